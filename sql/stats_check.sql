CREATE EXTENSION IF NOT EXISTS elastic_index;
--
-- elastic_index_stats() on empty, small and multi-level indexes, fill
-- factors, EXCLUDE constraints, unlogged, temporary and partitioned tables,
-- CREATE INDEX CONCURRENTLY, REINDEX [CONCURRENTLY], index properties.
-- elastic_index_check(idx, true) must pass after each step.
--
SET client_min_messages = warning;
SET timezone = 'UTC';

-- an empty index: a metapage and an empty root leaf
CREATE TABLE s0 (k int4);
CREATE INDEX s0_k ON s0 USING elastic_btree (k);
SELECT * FROM elastic_index_stats('s0_k');
SELECT elastic_index_check('s0_k', true);

-- ten entries on the root leaf: 16-byte tuples plus 4-byte line pointers
INSERT INTO s0 SELECT g FROM generate_series(1, 10) AS g;
SELECT am, height, total_pages, meta_pages, inner_pages, leaf_pages, entries,
	   dead_entries, inner_entries, free_bytes, round(leaf_fill::numeric, 2) AS leaf_fill,
	   avg_entry_bytes
FROM elastic_index_stats('s0_k');
SELECT elastic_index_check('s0_k', true);

-- pages add up (no crash left all-zero pages here) and every live page but
-- the root has exactly one downlink
CREATE FUNCTION s_shape(idx regclass, nrows bigint)
RETURNS TABLE (multi_level bool, pages_add_up bool, entries_match bool,
			   one_downlink_per_page bool, no_dead bool)
LANGUAGE sql AS $fn$
	SELECT height > 1,
		   total_pages = meta_pages + inner_pages + leaf_pages + half_dead_pages + deleted_pages,
		   entries = nrows,
		   inner_entries = inner_pages + leaf_pages - 1,
		   dead_entries = 0
	FROM elastic_index_stats(idx)
$fn$;

-- a multi-level index built by CREATE INDEX, with fill factors 90
-- (default), 50, 100 and 10
CREATE TABLE s1 (k int4, t text);
SELECT setseed(0.8);
INSERT INTO s1 SELECT floor(random() * 1000000)::int4, md5(g::text)
FROM generate_series(1, 100000) AS g;
CREATE INDEX s1_k90 ON s1 USING elastic_btree (k);
CREATE INDEX s1_k50 ON s1 USING elastic_btree (k) WITH (fillfactor = 50);
CREATE INDEX s1_k100 ON s1 USING elastic_btree (k) WITH (fillfactor = 100);
CREATE INDEX s1_k10 ON s1 USING elastic_btree (k) WITH (fillfactor = 10);
SELECT i, s.* FROM unnest(ARRAY['s1_k90', 's1_k50', 's1_k100', 's1_k10']) AS i,
	 LATERAL s_shape(i::regclass, 100000) AS s;
SELECT i, height >= 2 AS height_ok, leaf_fill BETWEEN 85 AND 92 AS fill90,
	   leaf_fill BETWEEN 45 AND 55 AS fill50, leaf_fill > 95 AS fill100,
	   leaf_fill BETWEEN 5 AND 15 AS fill10
FROM unnest(ARRAY['s1_k90', 's1_k50', 's1_k100', 's1_k10']) AS i,
	 LATERAL elastic_index_stats(i::regclass);
SELECT a.leaf_pages > 1.6 * b.leaf_pages AS ff50_has_more_leaves,
	   c.leaf_pages < b.leaf_pages AS ff100_has_fewer_leaves,
	   d.leaf_pages > 5 * b.leaf_pages AS ff10_has_many_more_leaves
FROM elastic_index_stats('s1_k50') AS a, elastic_index_stats('s1_k90') AS b,
	 elastic_index_stats('s1_k100') AS c, elastic_index_stats('s1_k10') AS d;
SELECT elastic_index_check('s1_k90', true);
SELECT elastic_index_check('s1_k50', true);
SELECT elastic_index_check('s1_k100', true);
SELECT elastic_index_check('s1_k10', true);

-- grown by inserts: random keys leave pages about 70% full, ascending keys
-- split the rightmost page at the fill factor, and so does a page holding a
-- single value
CREATE TABLE s2 (k int4, t text);
CREATE INDEX s2_rand ON s2 USING elastic_btree (k);
CREATE INDEX s2_asc ON s2 USING elastic_btree ((t)) WHERE k IS NULL;
INSERT INTO s2 SELECT floor(random() * 1000000)::int4 FROM generate_series(1, 50000);
INSERT INTO s2 SELECT NULL, lpad(g::text, 10, '0') FROM generate_series(1, 50000) AS g;
CREATE TABLE s3 (k int4);
CREATE INDEX s3_same ON s3 USING elastic_btree (k) WITH (deduplicate_items = off);
INSERT INTO s3 SELECT 42 FROM generate_series(1, 50000);
SELECT s.* FROM s_shape('s2_rand', 100000) AS s;
SELECT s.* FROM s_shape('s2_asc', 50000) AS s;
SELECT s.* FROM s_shape('s3_same', 50000) AS s;
SELECT leaf_fill BETWEEN 55 AND 85 AS random_fill FROM elastic_index_stats('s2_rand');
SELECT leaf_fill BETWEEN 85 AND 92 AS ascending_fill FROM elastic_index_stats('s2_asc');
SELECT leaf_fill BETWEEN 85 AND 92 AS single_value_fill FROM elastic_index_stats('s3_same');
SELECT elastic_index_check('s2_rand', true);
SELECT elastic_index_check('s2_asc', true);
SELECT elastic_index_check('s3_same', true);
-- the fill factor changed after the build applies to later splits
ALTER INDEX s3_same SET (fillfactor = 60);
INSERT INTO s3 SELECT 42 FROM generate_series(1, 50000);
SELECT leaf_fill BETWEEN 65 AND 80 AS mixed_fill FROM elastic_index_stats('s3_same');
SELECT elastic_index_check('s3_same', true);
-- deleted entries are counted, and gone after VACUUM
DELETE FROM s3 WHERE ctid IN (SELECT ctid FROM s3 LIMIT 30000);
VACUUM s3;
SELECT entries, dead_entries FROM elastic_index_stats('s3_same');
SELECT elastic_index_check('s3_same', true);

-- EXCLUDE constraints use the index to find conflicts
CREATE TABLE ex (c int4, t text, EXCLUDE USING elastic_btree (c WITH =));
INSERT INTO ex VALUES (1, 'a'), (2, 'b'), (NULL, 'c'), (NULL, 'd');
INSERT INTO ex VALUES (1, 'e');
\echo :LAST_ERROR_SQLSTATE
UPDATE ex SET c = 2 WHERE t = 'a';
\echo :LAST_ERROR_SQLSTATE
UPDATE ex SET c = 3 WHERE t = 'a';
INSERT INTO ex SELECT g FROM generate_series(10, 5000) AS g;
INSERT INTO ex VALUES (4000);
\echo :LAST_ERROR_SQLSTATE
SELECT count(*) FROM ex;
SELECT elastic_index_check('ex_c_excl', true);
-- on several columns, deferred to commit
CREATE TABLE ex2 (a int4, b text,
	EXCLUDE USING elastic_btree (a WITH =, b WITH =) DEFERRABLE INITIALLY DEFERRED);
INSERT INTO ex2 VALUES (1, 'x'), (1, 'y'), (2, 'x');
BEGIN;
INSERT INTO ex2 VALUES (1, 'x');
DELETE FROM ex2 WHERE a = 1 AND b = 'x' AND ctid = (SELECT min(ctid) FROM ex2 WHERE a = 1 AND b = 'x');
COMMIT;
BEGIN;
INSERT INTO ex2 VALUES (2, 'x');
COMMIT;
\echo :LAST_ERROR_SQLSTATE
SELECT a, b FROM ex2 ORDER BY a, b;
-- adding the constraint to a table that violates it
CREATE TABLE ex3 (c int4);
INSERT INTO ex3 VALUES (1), (5), (5);
ALTER TABLE ex3 ADD CONSTRAINT ex3_c EXCLUDE USING elastic_btree (c WITH =);
\echo :LAST_ERROR_SQLSTATE

-- unlogged tables: the index gets an init fork (metapage and root)
CREATE UNLOGGED TABLE ul (k int4);
CREATE INDEX ul_k ON ul USING elastic_btree (k);
SELECT pg_relation_size('ul_k', 'init') AS init_fork_bytes;
INSERT INTO ul SELECT g FROM generate_series(1, 20000) AS g;
SELECT s.* FROM s_shape('ul_k', 20000) AS s;
SET enable_seqscan = off;
SELECT count(*), min(k), max(k) FROM ul WHERE k > 100;
RESET enable_seqscan;
SELECT elastic_index_check('ul_k', true);
-- temporary tables
CREATE TEMP TABLE tmp (k int4);
INSERT INTO tmp SELECT g FROM generate_series(1, 20000) AS g;
CREATE INDEX tmp_k ON tmp USING elastic_btree (k);
INSERT INTO tmp SELECT g FROM generate_series(1, 5000) AS g;
SELECT s.* FROM s_shape('tmp_k', 25000) AS s;
SELECT elastic_index_check('tmp_k', true);

-- partitioned tables: the partitions get elastic_btree indexes
CREATE TABLE pt (k int4, v text) PARTITION BY RANGE (k);
CREATE TABLE pt_1 PARTITION OF pt FOR VALUES FROM (0) TO (10000);
CREATE TABLE pt_2 PARTITION OF pt FOR VALUES FROM (10000) TO (20000);
INSERT INTO pt SELECT g, g::text FROM generate_series(0, 14999) AS g;
CREATE INDEX pt_k ON pt USING elastic_btree (k);
CREATE TABLE pt_3 PARTITION OF pt FOR VALUES FROM (20000) TO (30000);
CREATE TABLE pt_4 (k int4, v text);
INSERT INTO pt_4 SELECT g, g::text FROM generate_series(30000, 34999) AS g;
CREATE INDEX pt_4_k ON pt_4 USING elastic_btree (k);
ALTER TABLE pt ATTACH PARTITION pt_4 FOR VALUES FROM (30000) TO (40000);
INSERT INTO pt SELECT g, g::text FROM generate_series(15000, 29999) AS g;
SELECT c.relname, c.relkind, am.amname, i.inhparent::regclass AS parent
FROM pg_class AS c
JOIN pg_am AS am ON am.oid = c.relam
LEFT JOIN pg_inherits AS i ON i.inhrelid = c.oid
WHERE c.relname LIKE 'pt%' AND c.relkind IN ('i', 'I')
ORDER BY c.relname;
SELECT i.inhrelid::regclass AS partition_index, elastic_index_check(i.inhrelid, true)
FROM pg_inherits AS i
WHERE i.inhparent = 'pt_k'::regclass
ORDER BY i.inhrelid::regclass::text;
SET enable_seqscan = off;
SET enable_bitmapscan = off;
SET enable_indexonlyscan = off;
EXPLAIN (COSTS OFF) SELECT k FROM pt WHERE k BETWEEN 9990 AND 10010 ORDER BY k;
SELECT k FROM pt WHERE k BETWEEN 9995 AND 10004 ORDER BY k;
SELECT count(*), min(k), max(k) FROM pt WHERE k >= 29000;
RESET enable_seqscan;
RESET enable_bitmapscan;
RESET enable_indexonlyscan;

-- CREATE INDEX CONCURRENTLY, REINDEX, REINDEX CONCURRENTLY
CREATE TABLE s4 (k int4, t text);
INSERT INTO s4 SELECT g % 5000, md5(g::text) FROM generate_series(1, 30000) AS g;
CREATE INDEX CONCURRENTLY s4_k ON s4 USING elastic_btree (k);
CREATE INDEX CONCURRENTLY s4_t ON s4 USING elastic_btree (t DESC);
SELECT indexrelid::regclass, indisvalid, indisready FROM pg_index
WHERE indrelid = 's4'::regclass ORDER BY indexrelid::regclass::text;
SELECT s.* FROM s_shape('s4_k', 30000) AS s;
SELECT elastic_index_check('s4_k', true);
SELECT elastic_index_check('s4_t', true);
DELETE FROM s4 WHERE k % 3 = 0;
REINDEX INDEX s4_k;
SELECT s.* FROM s_shape('s4_k', (SELECT count(*) FROM s4)) AS s;
SELECT elastic_index_check('s4_k', true);
REINDEX INDEX CONCURRENTLY s4_k;
SELECT elastic_index_check('s4_k', true);
REINDEX TABLE CONCURRENTLY s4;
SELECT indexrelid::regclass, indisvalid, indisready FROM pg_index
WHERE indrelid = 's4'::regclass ORDER BY indexrelid::regclass::text;
SELECT elastic_index_check('s4_k', true);
SELECT elastic_index_check('s4_t', true);
SET enable_seqscan = off;
SET enable_bitmapscan = off;
SELECT count(*) FROM s4 WHERE k = 4999;
SELECT t FROM s4 WHERE t > 'fff' ORDER BY t DESC LIMIT 3;
RESET enable_seqscan;
RESET enable_bitmapscan;

-- properties of the access method, an index and its columns
SELECT p.name, pg_indexam_has_property(am.oid, p.name)
FROM pg_am AS am,
	 unnest(ARRAY['can_order', 'can_unique', 'can_multi_col', 'can_exclude',
				  'can_include']) AS p(name)
WHERE am.amname = 'elastic_btree';
CREATE INDEX s4_mixed ON s4 USING elastic_btree (k DESC NULLS LAST, t NULLS FIRST);
SELECT p.name, pg_index_has_property('s4_mixed', p.name)
FROM unnest(ARRAY['clusterable', 'index_scan', 'bitmap_scan',
				  'backward_scan']) AS p(name);
SELECT c.col, p.name, pg_index_column_has_property('s4_mixed', c.col, p.name)
FROM generate_series(1, 2) AS c(col),
	 unnest(ARRAY['asc', 'desc', 'nulls_first', 'nulls_last', 'orderable',
				  'distance_orderable', 'returnable', 'search_array',
				  'search_nulls']) AS p(name)
ORDER BY c.col, p.name;
SELECT elastic_index_check('s4_mixed', true);

DROP TABLE s0, s1, s2, s3, ex, ex2, ex3, ul, tmp, pt, s4;
DROP FUNCTION s_shape(regclass, bigint);
-- the next file creates the extension afresh
DROP EXTENSION elastic_index CASCADE;
