CREATE EXTENSION IF NOT EXISTS elastic_index;
-- everything this file creates lives in its own schema
SET client_min_messages = warning;
DROP SCHEMA IF EXISTS ei_lk CASCADE;
CREATE SCHEMA ei_lk;
SET search_path = ei_lk, public;
RESET client_min_messages;
\i test/sql/differential_harness.sql
--
-- Point lookups on compact leaves, one index probe per outer row of a
-- nested loop, as a join does them: a scan's two bound searches and its
-- read of the entries share the TIDs of one decoded group of the TID code
-- (EICompactTidGroup), reset on every leaf.  Keys with 100 duplicates
-- whose entries span groups (a fresh code has 32 TIDs a group), unique
-- keys, keys absent between neighbours, below the first and above the
-- last key; with TID codes and with plain TIDs (debug fault plain_tids).
-- Index scans, index-only scans and a sequential scan must agree.
--
CREATE TABLE lk_src AS
SELECT g AS id,
	   CASE WHEN g <= 6000 THEN (g % 60) * 2 ELSE 10000 + g * 2 END::int8 AS k,
	   g::int8 AS v
FROM generate_series(1, 12000) AS g;
SELECT ei_setup('lk', 'lk_src', 12000);
SELECT ei_index('lk', 'k', '(k)');
-- the probes: every key of the duplicates and its absent odd neighbour,
-- keys around the gap between the two ranges, and every 37th key of the
-- unique range (hits and misses alike), past both ends
CREATE TABLE lk_probe AS
SELECT k::int8 FROM generate_series(-3, 123) AS k
UNION ALL SELECT k FROM generate_series(21990, 22010) AS k
UNION ALL SELECT k FROM generate_series(22001, 34010, 37) AS k;
VACUUM ANALYZE lk_seq, lk_bt, lk_ei, lk_probe;
SELECT elastic_btree_shrink('lk_ei_k') >= 0 AS shrunk;
SELECT compact_leaf_pages = leaf_pages AS all_compact, compact_leaf_pages > 2 AS several,
	   entries
FROM elastic_index_stats('lk_ei_k');

CREATE FUNCTION lk_queries() RETURNS TABLE (query text, result text)
LANGUAGE plpgsql AS $fn$
DECLARE
	q			text;
	m			text[];
BEGIN
	SET LOCAL enable_hashjoin = off;
	SET LOCAL enable_mergejoin = off;
	SET LOCAL enable_memoize = off;
	SET LOCAL enable_material = off;
	FOR q, m IN VALUES
		('SELECT p.k, t.v FROM lk_probe p JOIN %I t ON t.k = p.k', '{index}'::text[]),
		('SELECT p.k, t.k AS tk FROM lk_probe p JOIN %I t ON t.k = p.k', '{index,indexonly}'),
		('SELECT p.k, (SELECT count(*) FROM %I t WHERE t.k = p.k) FROM lk_probe p', '{index,indexonly}'),
		('SELECT p.k, (SELECT max(t.v) FROM %I t WHERE t.k = p.k) FROM lk_probe p', '{index}'),
		('SELECT p.k, t.v FROM lk_probe p JOIN %I t ON t.k = p.k + 1', '{index}'),
		('SELECT p.k, t.v FROM lk_probe p JOIN %I t ON t.k BETWEEN p.k AND p.k + 1', '{index}'),
		('SELECT p.k, t.k AS tk FROM lk_probe p JOIN %I t ON t.k > p.k AND t.k < p.k + 2', '{index,indexonly}'),
		('SELECT p.k, (SELECT t.v FROM %I t WHERE t.k = p.k ORDER BY t.k DESC LIMIT 1) IS NOT NULL FROM lk_probe p', '{index}')
	LOOP
		query := q;
		result := ei_diff('lk', q, false, m);
		RETURN NEXT;
	END LOOP;
END
$fn$;
SELECT * FROM lk_queries();

-- some rows dead and vacuumed away, some inserted: leaves and groups change
SELECT ei_exec('lk', 'DELETE FROM %I WHERE id %% 5 = 0');
VACUUM lk_seq, lk_bt, lk_ei;
SELECT ei_exec('lk', 'INSERT INTO %I SELECT id + 100000, k, v + 100000 FROM lk_src WHERE id %% 5 = 0 AND id %% 3 = 0');
VACUUM ANALYZE lk_seq, lk_bt, lk_ei;
SELECT * FROM lk_queries();
SELECT ei_check_all('lk');

-- leaves with plain TIDs (the layout before 0.3.0)
SELECT elastic_btree_expand('lk_ei_k') >= 0 AS expanded;
SET elastic_index.debug_fault = plain_tids;
SELECT elastic_btree_shrink('lk_ei_k') >= 0 AS shrunk;
RESET elastic_index.debug_fault;
SELECT compact_leaf_pages = leaf_pages AS all_compact FROM elastic_index_stats('lk_ei_k');
SELECT * FROM lk_queries();
SELECT ei_check_all('lk');

-- an INCLUDE column, some of its values toasted out of line (every 7th
-- row) among the duplicates and the unique keys: index-only lookups read
-- such an entry's key under the leaf's lock and its tuple without it
CREATE TABLE li_src (id int, k int8, t text);
ALTER TABLE li_src ALTER t SET STORAGE EXTERNAL;
INSERT INTO li_src
SELECT g, CASE WHEN g <= 3000 THEN (g % 30) * 2 ELSE 10000 + g * 2 END,
	   CASE WHEN g % 7 = 0 THEN repeat(md5(g::text), 80) ELSE 'v' || g END
FROM generate_series(1, 6000) AS g;
SELECT ei_setup('li', 'li_src', 6000);
SELECT ei_index('li', 'k', '(k) INCLUDE (t)');
VACUUM ANALYZE li_seq, li_bt, li_ei;
SELECT elastic_btree_shrink('li_ei_k') >= 0 AS shrunk;
SELECT compact_leaf_pages = leaf_pages AS all_compact FROM elastic_index_stats('li_ei_k');
SELECT count(*) FILTER (WHERE pg_column_size(t) = 2560) > 800 AS toasted FROM li_ei;
CREATE TABLE li_probe AS
SELECT k::int8 FROM generate_series(-3, 63) AS k
UNION ALL SELECT k FROM generate_series(15990, 16060) AS k
UNION ALL SELECT k FROM generate_series(16001, 22010, 37) AS k;
ANALYZE li_probe;
SET enable_hashjoin = off;
SET enable_mergejoin = off;
SET enable_memoize = off;
SET enable_material = off;
SELECT ei_diff('li', 'SELECT p.k, t.k AS tk, md5(t.t) FROM li_probe p JOIN %I t ON t.k = p.k', false, '{indexonly}');
SELECT ei_diff('li', 'SELECT p.k, (SELECT sum(length(t.t)) FROM %I t WHERE t.k = p.k) FROM li_probe p', false, '{indexonly}');
RESET enable_hashjoin;
RESET enable_mergejoin;
RESET enable_memoize;
RESET enable_material;

-- heap reads of one index-only lookup of key K (heap_key_reads counts a
-- scan's reads when it ends)
CREATE FUNCTION li_heap_reads(k int8) RETURNS int8
LANGUAGE plpgsql AS $fn$
DECLARE
	before		int8;
	after		int8;
	plan		text;
BEGIN
	SET LOCAL enable_seqscan = off;
	SET LOCAL enable_bitmapscan = off;
	SET LOCAL enable_indexscan = off;
	EXECUTE 'EXPLAIN (COSTS OFF) SELECT length(t) FROM li_ei WHERE k = $1' INTO plan USING k;
	IF plan NOT LIKE 'Index Only Scan%' THEN
		RAISE EXCEPTION 'not an index-only scan: %', plan;
	END IF;
	SELECT heap_key_reads INTO before FROM elastic_index_stat_activity WHERE indexrelname = 'li_ei_k';
	EXECUTE 'SELECT length(t) FROM li_ei WHERE k = $1' USING k;
	SELECT heap_key_reads INTO after FROM elastic_index_stat_activity WHERE indexrelname = 'li_ei_k';
	RETURN after - before;
END
$fn$;
-- one read for an absent key and for a unique key with a plain INCLUDE
-- value; two for one toasted out of line (its key under the leaf's lock,
-- the tuple without it).  (The search inside a compact leaf reads the keys
-- it probes, so a key whose search probes another toasted entry costs one
-- more: which keys do depends on where the leaves begin.)
SELECT length(t) FROM li_ei WHERE k IN (16020, 16008) ORDER BY k;
SELECT li_heap_reads(16007) AS absent, li_heap_reads(16008) AS plain,
	   li_heap_reads(16020) AS toasted, li_heap_reads(16019) AS absent_after_toasted;

-- Heap reads per index-only point lookup (the heap_key_reads counter): the
-- search keeps the entry's tuple for the scan's read, so a lookup of a key
-- with a short INCLUDE value reads the heap once, an absent key once; a
-- value toasted out of line cannot be formed under the leaf's lock, so the
-- search reads the key alone and the scan reads the value without the
-- lock: 2 reads (the first search reads the key and finds the tuple cannot
-- be formed, the second search and the scan's locked read read nothing,
-- the scan reads the tuple with the leaf unlocked).
CREATE TABLE lk_inc (k int8, t text) WITH (autovacuum_enabled = off);
ALTER TABLE lk_inc ALTER t SET STORAGE EXTERNAL;
INSERT INTO lk_inc
SELECT g * 2, CASE WHEN g % 10 = 0 THEN repeat(md5(g::text), 80) ELSE 's' || g END
FROM generate_series(1, 4000) AS g;
CREATE INDEX lk_inc_k ON lk_inc USING elastic_btree (k) INCLUDE (t);
SELECT elastic_btree_shrink('lk_inc_k') > 0 AS shrunk;
VACUUM ANALYZE lk_inc;
CREATE FUNCTION lk_inc_reads(key int8) RETURNS TABLE (reads int8, nrows int8, tlen int8)
LANGUAGE plpgsql AS $fn$
DECLARE
	before		int8;
	plan		text;
BEGIN
	SET LOCAL enable_seqscan = off;
	SET LOCAL enable_bitmapscan = off;
	SET LOCAL enable_indexscan = off;
	EXECUTE 'EXPLAIN (COSTS OFF) SELECT k, t FROM lk_inc WHERE k = $1' INTO plan USING key;
	IF plan NOT LIKE 'Index Only Scan using lk_inc_k%' THEN
		RAISE EXCEPTION 'not an index-only scan: %', plan;
	END IF;
	SELECT heap_key_reads INTO before FROM elastic_index_stat_activity
	WHERE indexrelname = 'lk_inc_k';
	EXECUTE 'SELECT count(*), sum(length(t)) FROM (SELECT k, t FROM lk_inc WHERE k = $1) s'
		INTO nrows, tlen USING key;
	SELECT heap_key_reads - before INTO reads FROM elastic_index_stat_activity
	WHERE indexrelname = 'lk_inc_k';
	RETURN NEXT;
END
$fn$;
SELECT 'short' AS include_value, * FROM lk_inc_reads(2002);
SELECT 'absent' AS include_value, * FROM lk_inc_reads(2003);
SELECT 'toasted' AS include_value, * FROM lk_inc_reads(2000);
SELECT count(*), sum(length(t)) FROM lk_inc WHERE k % 20 = 0;
SET enable_seqscan = off;
SET enable_bitmapscan = off;
SELECT count(*), sum(length(t)) FROM lk_inc WHERE k % 20 = 0 AND k BETWEEN 0 AND 9000;
RESET enable_seqscan;
RESET enable_bitmapscan;
SELECT count(*), sum(length(t)) FROM lk_inc WHERE k % 20 = 0 AND k BETWEEN 0 AND 9000;

-- Plain index scans of a point lookup read no key where bits[] settle it:
-- the entries that begin with the key's prefix (at most 4), or if the leaf
-- has none another key's run, go to the executor's recheck
-- (EICompactPrefixRun).  A key of more entries, a backward scan and a
-- range read keys as before.  Each lookup: its rows, the keys it read, the
-- rows the recheck turned away, and whether a sequential scan agrees.
CREATE TABLE lk_pt (k int8, k2 int4, t text COLLATE "C", v int8)
	WITH (autovacuum_enabled = off);
INSERT INTO lk_pt
SELECT CASE WHEN g <= 300 THEN (g % 3) * 1000 + 1	-- 3 keys of 100 rows
			WHEN g <= 330 THEN -5000 - (g % 10) * 2	-- 10 keys of 3 rows
			ELSE g * 2 END,
	   g % 7, 'key' || (g * 2), g
FROM generate_series(1, 20000) AS g;
CREATE TABLE lk_pk (LIKE lk_pt) WITH (autovacuum_enabled = off);
INSERT INTO lk_pk SELECT * FROM lk_pt;
CREATE INDEX lk_pt_k ON lk_pt USING elastic_btree (k);
CREATE INDEX lk_pt_t ON lk_pt USING elastic_btree (t);
CREATE INDEX lk_pk_kk ON lk_pk USING elastic_btree (k, k2);
SELECT elastic_btree_shrink(i) > 0 AS shrunk
FROM unnest(ARRAY['lk_pt_k', 'lk_pt_t', 'lk_pk_kk']) AS i;
VACUUM ANALYZE lk_pt, lk_pk;
CREATE FUNCTION lk_pt_lookup(idx text, cond text, dir text DEFAULT 'ASC',
							 OUT nrows int8, OUT reads int8,
							 OUT rechecked int8, OUT agrees bool)
LANGUAGE plpgsql AS $fn$
DECLARE
	q			text := format('SELECT v FROM %s WHERE %s%s',
								 CASE idx WHEN 'lk_pk_kk' THEN 'lk_pk' ELSE 'lk_pt' END, cond,
								 CASE dir WHEN 'DESC' THEN ' ORDER BY k DESC' ELSE '' END);
	before		int8;
	plan		jsonb;
	by_index	text;
	by_seq		text;
BEGIN
	SET LOCAL enable_seqscan = off;
	SET LOCAL enable_bitmapscan = off;
	SET LOCAL enable_indexonlyscan = off;
	EXECUTE 'EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF, FORMAT JSON) ' || q
		INTO plan;
	IF NOT plan @? format('$.** ? (@."Node Type" == "Index Scan" && @."Index Name" == "%s")', idx)::jsonpath THEN
		RAISE EXCEPTION 'not an index scan of %: %', idx, plan;
	END IF;
	rechecked := (SELECT coalesce(sum(x::text::int8), 0)
				  FROM jsonb_path_query(plan, 'strict $.**."Rows Removed by Index Recheck"') AS x);
	SELECT heap_key_reads INTO before FROM elastic_index_stat_activity
	WHERE indexrelname = idx;
	EXECUTE format('SELECT count(*), string_agg(v::text, %L ORDER BY v) FROM (%s) s', ',', q)
		INTO nrows, by_index;
	SELECT heap_key_reads - before INTO reads FROM elastic_index_stat_activity
	WHERE indexrelname = idx;
	SET LOCAL enable_seqscan = on;
	SET LOCAL enable_indexscan = off;
	EXECUTE format('SELECT string_agg(v::text, %L ORDER BY v) FROM (%s) s', ',', q) INTO by_seq;
	agrees := by_index IS NOT DISTINCT FROM by_seq;
END
$fn$;
SELECT c.what, l.*
FROM (VALUES ('unique key', 'lk_pt_k', 'k = 20000', 'ASC'),
			 ('absent key', 'lk_pt_k', 'k = 20001', 'ASC'),
			 ('key of 3 rows', 'lk_pt_k', 'k = -5004', 'ASC'),
			 ('absent between keys of 3 rows', 'lk_pt_k', 'k = -5005', 'ASC'),
			 ('bounds that meet', 'lk_pt_k', 'k >= 30000 AND k <= 30000', 'ASC'),
			 ('first of two columns', 'lk_pk_kk', 'k = 20000', 'ASC'),
			 ('first column, second filters', 'lk_pk_kk', 'k = -5004 AND k2 = 4', 'ASC'),
			 ('text key', 'lk_pt_t', 't = ''key20000''', 'ASC')) AS c(what, idx, cond, dir),
	 LATERAL lk_pt_lookup(c.idx, c.cond, c.dir) AS l;
-- these read keys: a run longer than 4, backward, a range
SELECT c.what, l.nrows, l.reads > 0 AS reads_keys, l.agrees
FROM (VALUES ('key of 100 rows', 'lk_pt_k', 'k = 1001', 'ASC'),
			 ('backward', 'lk_pt_k', 'k >= 20000 AND k <= 20000', 'DESC'),
			 ('range', 'lk_pt_k', 'k BETWEEN 20000 AND 20010', 'ASC')) AS c(what, idx, cond, dir),
	 LATERAL lk_pt_lookup(c.idx, c.cond, c.dir) AS l;
-- every key of the first 800 and its absent neighbour, each way
SELECT count(*) AS lookups, count(*) FILTER (WHERE l.agrees) AS agree,
	   sum(l.nrows) AS nrows
FROM generate_series(-5020, 800) AS g,
	 LATERAL lk_pt_lookup('lk_pt_k', 'k = ' || g) AS l
WHERE g < -4990 OR g >= 0;
SELECT count(*) FILTER (WHERE l.agrees) AS agree, sum(l.nrows) AS nrows
FROM generate_series(-5020, 800, 7) AS g,
	 LATERAL lk_pt_lookup('lk_pk_kk', 'k = ' || g) AS l
WHERE g < -4990 OR g >= 0;
SELECT count(*) FILTER (WHERE l.agrees) AS agree, sum(l.nrows) AS nrows
FROM generate_series(0, 2000, 3) AS g,
	 LATERAL lk_pt_lookup('lk_pt_t', format('t = %L', 'key' || g)) AS l;
SELECT elastic_index_check('lk_pt_k', true), elastic_index_check('lk_pt_t', true),
	   elastic_index_check('lk_pk_kk', true);

SET client_min_messages = warning;
DROP SCHEMA ei_lk CASCADE;
-- the next file creates the extension afresh
DROP EXTENSION elastic_index CASCADE;
RESET client_min_messages;
RESET search_path;
