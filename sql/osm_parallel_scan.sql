CREATE EXTENSION IF NOT EXISTS elastic_index;
-- everything this file creates lives in its own schema
SET client_min_messages = warning;
DROP SCHEMA IF EXISTS ei_osmpar CASCADE;
CREATE SCHEMA ei_osmpar;
SET search_path = ei_osmpar, public;
RESET client_min_messages;
\i test/sql/differential_harness.sql
--
-- Parallel index scans of osm_tree (src/core/scan.c, "Parallel scans"):
-- the participants share out the tree's leaves, and each returns, of the
-- entries in the insert buffer, exactly those in the key ranges of the
-- leaves it read.  Every query runs on a table whose osm_tree indexes hold
-- part of their rows in the buffer, through parallel plans (Gather,
-- Gather Merge, parallel aggregates, incremental sorts), forward and
-- backward, and is compared with btree and a sequential scan.
--
SET ei_test.am = 'osm_tree';

-- The parallel shape of a plan, the same text on every server version:
-- which of the nodes that matter here it has (EXPLAIN's text differs by
-- version, so the JSON plan is searched instead).
CREATE FUNCTION op_shape(q text) RETURNS text[]
LANGUAGE plpgsql AS $fn$
DECLARE
	plan		jsonb;
	shape		text[] := '{}';
	node		jsonb;
BEGIN
	EXECUTE 'EXPLAIN (COSTS OFF, FORMAT JSON) ' || q INTO plan;
	FOR node IN
		SELECT n FROM jsonb_path_query(plan, 'strict $.**') AS x(n)
		WHERE jsonb_typeof(n) = 'object' AND n ? 'Node Type'
	LOOP
		IF node ->> 'Node Type' IN ('Gather', 'Gather Merge', 'Incremental Sort', 'Sort')
		   OR (node ->> 'Node Type' = 'Aggregate' AND node ->> 'Partial Mode' <> 'Simple') THEN
			shape := shape || (node ->> 'Node Type' ||
							   coalesce(' ' || lower(nullif(node ->> 'Partial Mode', 'Simple')), ''));
		ELSIF node ->> 'Node Type' IN ('Index Scan', 'Index Only Scan') THEN
			shape := shape || (CASE WHEN (node -> 'Parallel Aware')::bool THEN 'Parallel ' ELSE '' END ||
							   (node ->> 'Node Type') ||
							   CASE WHEN node ->> 'Scan Direction' = 'Backward' THEN ' Backward' ELSE '' END ||
							   ' (' || (SELECT amname FROM pg_am a JOIN pg_class c ON c.relam = a.oid
										WHERE c.relname = node ->> 'Index Name') || ')');
		END IF;
	END LOOP;
	RETURN shape;
END
$fn$;

-- A near-sorted table: 16000 rows loaded into the tree, then 3000 more one
-- row at a time into the insert buffer (no top inserts: all of them
-- buffered).  Columns: a key, a column of long runs of duplicates, a
-- (DESC, ASC) pair and text.
CREATE TABLE op_src AS
SELECT pos AS id, key AS k, key % 7 AS d, (key * 7919) % 1009 AS j,
	   md5(key::text) AS t
FROM elastic_index_near_sorted(19000, 5, 5, 3);
SELECT ei_setup('op', 'op_src', 16000);
SELECT ei_index('op', 'k', '(k)');
SELECT ei_index('op', 'd', '(d)');
SELECT ei_index('op', 'jk', '(j DESC, k)');
SELECT ei_index('op', 't', '(t)');
VACUUM ANALYZE op_seq, op_bt, op_ei;
SET osm_tree.batch_size = 1;
SET osm_tree.top_inserts = off;
SET osm_tree.buffer_size = 256;
SELECT ei_exec('op', 'INSERT INTO %I SELECT * FROM op_src WHERE id > 16000 ORDER BY id');
ANALYZE op_seq, op_bt, op_ei;
-- every index holds rows in its buffer
SELECT indexrelid::regclass AS index, s.entries
FROM pg_index i, LATERAL osm_tree_buffer_stats(indexrelid) s
WHERE indrelid = 'op_ei'::regclass ORDER BY indexrelid::regclass::text;

-- Plans: parallel aggregates and ordered reads through osm_tree, as btree
SET max_parallel_workers_per_gather = 2;
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET min_parallel_index_scan_size = 0;
SET enable_seqscan = off;
SET enable_bitmapscan = off;
SELECT op_shape('SELECT count(*), sum(k) FROM op_ei WHERE k > 100');
SELECT op_shape('SELECT count(*), sum(k) FROM op_bt WHERE k > 100');
SELECT op_shape('SELECT count(*), sum(length(t)) FROM op_ei WHERE k > 100');
-- (comparisons free, so that Gather Merge's are no reason to read alone)
SET cpu_operator_cost = 0;
SELECT op_shape('SELECT k FROM op_ei WHERE k > 100 ORDER BY k');
SELECT op_shape('SELECT k FROM op_ei WHERE k > 100 ORDER BY k DESC');
SELECT op_shape('SELECT k, id FROM op_ei WHERE k > 100 ORDER BY k, id LIMIT 50');
SELECT op_shape('SELECT k, id FROM op_bt WHERE k > 100 ORDER BY k, id LIMIT 50');
RESET cpu_operator_cost;

-- Differential: parallel index and index-only scans (two workers, the
-- leader not participating) against btree and a sequential scan
SELECT ei_diff('op', 'SELECT count(*), sum(k) FROM %I WHERE k > 100', false, '{parallel}');
SELECT ei_diff('op', 'SELECT count(*), sum(k), sum(length(t)) FROM %I WHERE k > 0', false, '{parallel}');
SELECT ei_diff('op', 'SELECT id, k FROM %I WHERE k BETWEEN 2000 AND 15000', false, '{parallel}');
SELECT ei_diff('op', 'SELECT k FROM %I WHERE k > 100 ORDER BY k', true, '{parallel}');
SELECT ei_diff('op', 'SELECT k FROM %I WHERE k < 18500 ORDER BY k DESC', true, '{parallel}');
SELECT ei_diff('op', 'SELECT k FROM %I WHERE k > 9000 ORDER BY k LIMIT 700', true, '{parallel}');
SELECT ei_diff('op', 'SELECT k FROM %I WHERE k > 0 ORDER BY k DESC LIMIT 700', true, '{parallel}');
-- duplicates: long runs, buffered entries between them by heap TID
SELECT ei_diff('op', 'SELECT count(*), sum(id) FROM %I WHERE d = 3', false, '{parallel}');
SELECT ei_diff('op', 'SELECT d FROM %I WHERE d >= 2 ORDER BY d', true, '{parallel}');
SELECT ei_diff('op', 'SELECT d FROM %I WHERE d <= 5 ORDER BY d DESC', true, '{parallel}');
SELECT ei_diff('op', 'SELECT id FROM %I WHERE d = 6', false, '{parallel}');
-- a DESC column first, text
SELECT ei_diff('op', 'SELECT j, k FROM %I WHERE j > 100 ORDER BY j DESC, k', true, '{parallel}');
SELECT ei_diff('op', 'SELECT j, k FROM %I WHERE j < 900 ORDER BY j, k DESC', true, '{parallel}');
SELECT ei_diff('op', 'SELECT t FROM %I WHERE t > ''4'' ORDER BY t', true, '{parallel}');
SELECT ei_diff('op', 'SELECT count(*) FROM %I WHERE t < ''c''', false, '{parallel}');

-- NULLs, a DESC NULLS LAST column and a second column, both directions
CREATE TABLE on_src AS
SELECT g AS id, CASE WHEN g % 9 = 0 THEN NULL ELSE (g * 7919) % 2000 END AS k,
	   g % 13 AS j
FROM generate_series(1, 15000) AS g;
SELECT ei_setup('on', 'on_src', 12000);
SELECT ei_index('on', 'kj', '(k DESC NULLS LAST, j)');
VACUUM ANALYZE on_seq, on_bt, on_ei;
SELECT ei_exec('on', 'INSERT INTO %I SELECT * FROM on_src WHERE id > 12000 ORDER BY id');
ANALYZE on_seq, on_bt, on_ei;
SELECT entries FROM osm_tree_buffer_stats('on_ei_kj');
SELECT ei_diff('on', 'SELECT k, j FROM %I ORDER BY k DESC NULLS LAST, j', true, '{parallel}');
SELECT ei_diff('on', 'SELECT k, j FROM %I ORDER BY k NULLS FIRST, j DESC', true, '{parallel}');
SELECT ei_diff('on', 'SELECT k, j, id FROM %I WHERE k IS NULL', false, '{parallel}');
SELECT ei_diff('on', 'SELECT k, j FROM %I WHERE k IS NOT NULL AND k < 500 ORDER BY k DESC NULLS LAST, j', true, '{parallel}');

-- The same with the leader taking part, and with the leader alone (no
-- worker can start): each query returns what a sequential scan returns.
CREATE FUNCTION op_same(q text) RETURNS text
LANGUAGE plpgsql AS $fn$
DECLARE
	wrap constant text := 'SELECT coalesce(array_agg(x::text), ''{}'') FROM (%s) x';
	ref			text[];
	res			text[];
BEGIN
	PERFORM set_config('enable_seqscan', 'on', true);
	PERFORM set_config('enable_indexscan', 'off', true);
	PERFORM set_config('enable_indexonlyscan', 'off', true);
	PERFORM set_config('max_parallel_workers_per_gather', '0', true);
	EXECUTE format(wrap, format(q, 'op_seq')) INTO ref;
	PERFORM set_config('enable_seqscan', 'off', true);
	PERFORM set_config('enable_indexscan', 'on', true);
	PERFORM set_config('enable_indexonlyscan', 'on', true);
	PERFORM set_config('max_parallel_workers_per_gather', '2', true);
	PERFORM set_config('cpu_operator_cost', '0', true);
	IF NOT 'Parallel' = ANY (SELECT split_part(s, ' ', 1) FROM unnest(op_shape(format(q, 'op_ei'))) AS s) THEN
		RAISE EXCEPTION 'not a parallel scan: %', op_shape(format(q, 'op_ei'));
	END IF;
	EXECUTE format(wrap, format(q, 'op_ei')) INTO res;
	IF res IS DISTINCT FROM ref THEN
		RAISE EXCEPTION '% returned % rows, a sequential scan % rows',
			format(q, 'op_ei'), cardinality(res), cardinality(ref);
	END IF;
	RETURN format('ok rows=%s', cardinality(ref));
END
$fn$;
SET parallel_leader_participation = on;
SELECT op_same('SELECT count(*), sum(k) FROM %I WHERE k > 100');
SELECT op_same('SELECT k FROM %I WHERE k > 100 ORDER BY k');
SELECT op_same('SELECT k FROM %I WHERE k > 100 ORDER BY k DESC');
SELECT op_same('SELECT d, count(*) FROM %I WHERE d > 0 GROUP BY d ORDER BY d');
-- = ANY through parallel scans that share out key ranges: they read
-- every leaf in turn (no new descents for the array keys), and find the
-- buffered rows of every range once
ALTER TABLE op_ei SET (parallel_workers = 2);
SELECT op_same(format('SELECT count(*), sum(k) FROM %%I WHERE k = ANY (''%s'')',
	(SELECT array_agg(19000 - g * 29)::text FROM generate_series(1, 650) AS g)));
SELECT op_same(format('SELECT count(*), sum(k) FROM %%I WHERE k = ANY (''%s'')',
	(SELECT array_agg(19000 - g * 41)::text FROM generate_series(1, 450) AS g)));
SELECT op_same('SELECT d, k FROM %I WHERE d = ANY (''{5,1,3,3,NULL}'') AND k > 100 ORDER BY d, k');
ALTER TABLE op_ei RESET (parallel_workers);
SET max_parallel_workers = 0;
SELECT op_same('SELECT count(*), sum(k) FROM %I WHERE k > 100');
SELECT op_same('SELECT k FROM %I WHERE k > 100 ORDER BY k');
SELECT op_same('SELECT k FROM %I WHERE k > 100 ORDER BY k DESC');
RESET max_parallel_workers;

-- Rescans: a parallel aggregate on the inner side of a nested loop runs
-- once per outer row
SET enable_material = off;
SET enable_hashjoin = off;
SET enable_mergejoin = off;
SELECT op_shape($$SELECT * FROM (SELECT count(*), sum(k) FROM op_ei WHERE k > 100) ss
	RIGHT JOIN (VALUES (1), (2), (3)) v(x) ON true$$);
SELECT x, ss.* FROM (SELECT count(*), sum(k) FROM op_ei WHERE k > 100) ss
	RIGHT JOIN (VALUES (1), (2), (3)) v(x) ON true ORDER BY x;
SELECT count(*), sum(k) FROM op_seq WHERE k > 100;
RESET enable_material;
RESET enable_hashjoin;
RESET enable_mergejoin;

-- A key that no entry can match (a NULL parameter): nothing, in a
-- parallel plan
PREPARE op_null(int8) AS SELECT count(*) FROM op_ei WHERE k > $1;
SET plan_cache_mode = force_generic_plan;
SELECT op_shape('EXECUTE op_null(NULL)');
EXECUTE op_null(NULL);
EXECUTE op_null(100);
RESET plan_cache_mode;
DEALLOCATE op_null;

-- An empty tree with a non-empty buffer: every buffered row once
CREATE TABLE op_empty (k int8);
CREATE INDEX op_empty_k ON op_empty USING osm_tree (k);
INSERT INTO op_empty SELECT g FROM generate_series(1, 500) AS g;
ANALYZE op_empty;
SELECT pages > 0 AS buffered, entries FROM osm_tree_buffer_stats('op_empty_k');
SET cpu_operator_cost = 0;
SELECT op_shape('SELECT count(*), sum(k) FROM op_empty WHERE k > 0');
SELECT count(*), sum(k) FROM op_empty WHERE k > 0;
SELECT op_shape('SELECT k FROM op_empty WHERE k > 0 ORDER BY k DESC');
SELECT count(*), count(DISTINCT k), sum(k) FROM
	(SELECT k FROM op_empty WHERE k > 0 ORDER BY k DESC LIMIT 1000) AS s;

-- A transaction's own rows, held in its batch until a scan of the index
-- begins (the leader's, before the workers start)
RESET osm_tree.batch_size;
BEGIN;
INSERT INTO op_empty SELECT g FROM generate_series(1001, 4000) AS g;
SELECT op_shape('SELECT count(*), sum(k) FROM op_empty WHERE k > 0');
SELECT count(*), sum(k) FROM op_empty WHERE k > 0;
SELECT count(*), count(DISTINCT k), sum(k) FROM
	(SELECT k FROM op_empty WHERE k > 0 ORDER BY k DESC LIMIT 10000) AS s;
ROLLBACK;
SELECT count(*), sum(k) FROM op_empty WHERE k > 0;

-- redistribute_leaves: a backward scan that begins on an empty rightmost
-- leaf reads the rest alone from the right end, once the leaf is no longer
-- as read (entries may have moved into it from the left: src/README.md,
-- "Redistribution between sibling leaves"); the debug fault scan_bounds
-- makes every such leaf count as changed.  6000 rows in the tree, the
-- last 1000 deleted and vacuumed away (the rightmost leaf stays, empty),
-- 600 more in the buffer.
RESET max_parallel_workers_per_gather;
RESET enable_seqscan;
RESET enable_bitmapscan;
SET osm_tree.batch_size = 1000;
CREATE TABLE pr_src AS SELECT g AS id, g AS k FROM generate_series(1, 6600) AS g;
UPDATE pr_src SET k = (id - 6000) * 7 WHERE id > 6000;
SELECT ei_setup('pr', 'pr_src', 6000);
CREATE INDEX pr_bt_k ON pr_bt USING btree (k);
CREATE INDEX pr_ei_k ON pr_ei USING osm_tree (k) WITH (redistribute_leaves = on);
SELECT ei_exec('pr', 'DELETE FROM %I WHERE k > 5000');
VACUUM pr_seq, pr_bt, pr_ei;
SET osm_tree.batch_size = 1;
SELECT ei_exec('pr', 'INSERT INTO %I SELECT * FROM pr_src WHERE id > 6000 ORDER BY id');
ANALYZE pr_seq, pr_bt, pr_ei;
SELECT s.entries AS buffered FROM osm_tree_buffer_stats('pr_ei_k') AS s;
SET max_parallel_workers_per_gather = 2;
SET enable_seqscan = off;
SET enable_bitmapscan = off;
SET cpu_operator_cost = 0;
SELECT op_shape('SELECT k FROM pr_ei WHERE k > 0 ORDER BY k DESC');
RESET cpu_operator_cost;
SET elastic_index.debug_fault = scan_bounds;
SELECT ei_diff('pr', 'SELECT k FROM %I WHERE k > 0 ORDER BY k DESC', true, '{parallel}');
SELECT ei_diff('pr', 'SELECT count(*), sum(k) FROM %I WHERE k > 100', false, '{parallel}');
RESET elastic_index.debug_fault;
SELECT ei_diff('pr', 'SELECT k FROM %I WHERE k > 0 ORDER BY k DESC', true, '{parallel}');
SELECT ei_check_all('pr');

-- The indexes are intact, and still hold buffered rows
SELECT ei_check_all('op');
SELECT count(*) FILTER (WHERE s.entries > 0) AS buffered, count(*) AS indexes
FROM pg_index i, LATERAL osm_tree_buffer_stats(indexrelid) s
WHERE indrelid = 'op_ei'::regclass;

RESET ALL;
SET client_min_messages = warning;
DROP SCHEMA ei_osmpar CASCADE;
-- the next file creates the extension afresh
DROP EXTENSION elastic_index CASCADE;
