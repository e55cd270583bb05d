-- Near-sorted input: most rows arrive in key order, a few early or late.
-- PostgreSQL's btree leaves such an index about half full, because an
-- ascending run that reaches keys which arrived early splits their pages
-- in the middle.  elastic_btree recognizes the run by adjacent heap TIDs
-- and splits at fillfactor there (src/core/insert.c, ei_find_split_loc).
CREATE EXTENSION IF NOT EXISTS elastic_index;

-- 200000 rows; 5% of them displaced by up to 5% of N, deterministically
CREATE TABLE ns_src AS
	SELECT g AS arrival,
		   CASE WHEN abs(hashint4(g)) % 100 < 5
				THEN greatest(1, least(200000, g + hashint4(g + 7) % 10000))
				ELSE g END::int8 AS k
	FROM generate_series(1, 200000) AS g;
CREATE TABLE ns (k int8) WITH (autovacuum_enabled = off);
CREATE INDEX ns_ei ON ns USING elastic_btree (k);
CREATE INDEX ns_bt ON ns USING btree (k) WITH (deduplicate_items = off);
INSERT INTO ns SELECT k FROM ns_src ORDER BY arrival;

-- how near-sorted: share of rows not in place
SELECT count(*) FILTER (WHERE k <> arrival) * 100 / count(*) AS pct_displaced FROM ns_src;

-- leaves packed well above btree's, and the index clearly smaller
SELECT s.leaf_fill > 75 AS elastic_leaves_packed,
	   s.total_pages < 0.75 * pg_relation_size('ns_bt') / 8192 AS smaller_than_btree
	FROM elastic_index_stats('ns_ei') AS s;

-- sorted input keeps fillfactor, and random input is not hurt
CREATE TABLE ns_sorted (k int8) WITH (autovacuum_enabled = off);
CREATE INDEX ns_sorted_ei ON ns_sorted USING elastic_btree (k);
INSERT INTO ns_sorted SELECT g FROM generate_series(1, 100000) AS g;
SELECT round(leaf_fill) AS sorted_leaf_fill FROM elastic_index_stats('ns_sorted_ei');
CREATE TABLE ns_random (k int8) WITH (autovacuum_enabled = off);
CREATE INDEX ns_random_ei ON ns_random USING elastic_btree (k);
CREATE INDEX ns_random_bt ON ns_random USING btree (k) WITH (deduplicate_items = off);
INSERT INTO ns_random SELECT hashint8(g) FROM generate_series(1, 100000) AS g;
SELECT s.total_pages <= 1.02 * pg_relation_size('ns_random_bt') / 8192 AS random_like_btree
	FROM elastic_index_stats('ns_random_ei') AS s;

-- an ascending run into a leaf that is not the rightmost (keys above the
-- run came first), in an index with posting lists: each new entry goes
-- after every item of its leaf, its row right after the row of the leaf's
-- last item, so the leaf keeps fillfactor (a random insert at the end of
-- a leaf splits half and half instead: sql/dedup_size.sql)
CREATE TABLE ns_below (k int8) WITH (autovacuum_enabled = off);
CREATE INDEX ns_below_ei ON ns_below USING elastic_btree (k)
	WITH (deduplicate_items = on);
INSERT INTO ns_below SELECT 1000000 + g FROM generate_series(1, 1000) AS g;
INSERT INTO ns_below SELECT g FROM generate_series(1, 100000) AS g;
SELECT leaf_fill > 85 AS run_below_packed FROM elastic_index_stats('ns_below_ei');

-- and every row is found
SELECT elastic_index_check('ns_ei', true);
SET enable_seqscan = off;
SET enable_bitmapscan = off;
SELECT count(*), sum(k) FROM ns WHERE k > 0;
DROP INDEX ns_bt;
EXPLAIN (COSTS OFF) SELECT count(*), sum(k) FROM ns WHERE k > 0;
SELECT count(*), sum(k) FROM ns WHERE k > 0;
RESET enable_seqscan;
RESET enable_bitmapscan;
SELECT count(*), sum(k) FROM ns_src;

DROP TABLE ns_src, ns, ns_sorted, ns_random, ns_below;
-- the next file creates the extension afresh
DROP EXTENSION elastic_index CASCADE;
