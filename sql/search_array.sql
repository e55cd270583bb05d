CREATE EXTENSION IF NOT EXISTS elastic_index;
-- everything this file creates lives in its own schema
SET client_min_messages = warning;
DROP SCHEMA IF EXISTS ei_sa CASCADE;
CREATE SCHEMA ei_sa;
SET search_path = ei_sa, public;
RESET client_min_messages;
\i test/sql/differential_harness.sql
--
-- "= ANY (array)" and IN (...) as index conditions (amsearcharray) of both
-- access methods: src/README.md, "Array keys".  The array keys move with
-- the tuples the scan reads, so the output is in index order (forward,
-- backward, DESC columns), mark/restore and parallel scans work, and a run
-- of elements on one leaf costs one descent.  Each query is compared with
-- btree and a sequential scan (test/sql/differential_harness.sql) and
-- checked to read our index in the asked way, in order without a Sort.
--
SELECT setseed(0.21);
CREATE TABLE sa_src AS
WITH r AS MATERIALIZED (
	SELECT g AS id, random() AS r0, random() AS r1, random() AS r2
	FROM generate_series(1, 20000) AS g)
SELECT id,
	CASE WHEN r0 < 0.03 THEN NULL ELSE floor(r1 * 2000)::int4 END AS a,
	floor(r2 * 50)::int8 AS b,
	'k' || lpad(floor(r1 * 3000)::text, 5, '0') AS t
FROM r;
SELECT ei_setup('sa', 'sa_src', 20000);
SELECT ei_index('sa', 'a', '(a)');
SELECT ei_index('sa', 'id', '(id DESC)');
SELECT ei_index('sa', 'ba', '(b DESC, a NULLS FIRST)');
SELECT ei_index('sa', 't', '(t)');
VACUUM ANALYZE sa_seq, sa_bt, sa_ei;
-- parallel plans for scans of few pages: the planner would not split them
ALTER TABLE sa_bt SET (parallel_workers = 2);
ALTER TABLE sa_ei SET (parallel_workers = 2);

-- the plan shows the array as an index condition (no filter, no sort)
SET enable_seqscan = off;
SET enable_bitmapscan = off;
EXPLAIN (COSTS OFF) SELECT * FROM sa_ei WHERE a = ANY ('{7, 3, NULL, 3}') ORDER BY a;
EXPLAIN (COSTS OFF) SELECT * FROM sa_ei WHERE a IN (7, 3) ORDER BY a DESC;
RESET enable_seqscan;
RESET enable_bitmapscan;

-- one column: NULL elements, duplicates, unsorted, missing values,
-- empty and all-NULL arrays, cross-type arrays
SELECT ei_diff('sa', 'SELECT id, a FROM %I WHERE a = ANY (''{1500, 7, NULL, 3, 7, 99999, 1999, 0}'')',
			   false, '{index,bitmap,parallel}');
SELECT ei_diff('sa', 'SELECT a FROM %I WHERE a = ANY (''{1500, 7, NULL, 3, 7, 99999, 1999, 0}'') ORDER BY a',
			   true, '{index,indexonly}');
SELECT ei_diff('sa', 'SELECT a FROM %I WHERE a = ANY (''{1500, 7, NULL, 3, 7, 99999, 1999, 0}'') ORDER BY a DESC',
			   true, '{index,indexonly}');
SELECT ei_diff('sa', 'SELECT a FROM %I WHERE a IN (12, 1800, 5, 600) ORDER BY a DESC LIMIT 7',
			   true, '{index,indexonly}');
SELECT ei_diff('sa', 'SELECT a FROM %I WHERE a IN (12, 1800, 5, 600) ORDER BY a LIMIT 7',
			   true, '{index,indexonly}');
SELECT ei_diff('sa', 'SELECT id FROM %I WHERE a = ANY (''{}'')', false, '{index,bitmap}');
SELECT ei_diff('sa', 'SELECT id FROM %I WHERE a = ANY (''{NULL, NULL}'')', false, '{index,bitmap}');
SELECT ei_diff('sa', 'SELECT id FROM %I WHERE a = ANY (NULL::int4[])', false, '{index,bitmap}');
SELECT ei_diff('sa', 'SELECT a FROM %I WHERE a = ANY (''{5, 1000, 17}''::int8[]) ORDER BY a',
			   true, '{index,indexonly}');
SELECT ei_diff('sa', 'SELECT a FROM %I WHERE a = ANY (''{5, 1000, 17}''::int2[]) ORDER BY a DESC',
			   true, '{index,indexonly}');
-- with inequalities on the same column (and an IS NULL that no element meets)
SELECT ei_diff('sa', 'SELECT a FROM %I WHERE a = ANY (''{5, 40, 41, 300, 1999}'') AND a > 5 AND a <= 300 ORDER BY a',
			   true, '{index,indexonly}');
SELECT ei_diff('sa', 'SELECT a FROM %I WHERE a = ANY (''{5, 40, 41, 300, 1999}'') AND a > 5::int8 AND a < 1999::int8 ORDER BY a DESC',
			   true, '{index,indexonly}');
SELECT ei_diff('sa', 'SELECT id FROM %I WHERE a = ANY (''{5, 40}'') AND a IS NULL', false, '{index}');
SELECT ei_diff('sa', 'SELECT a FROM %I WHERE a = ANY (''{5, 40, 41}'') AND a = ANY (''{41, 5, 1000}'') ORDER BY a',
			   true, '{index,indexonly}');
-- inequalities against an array: the same as against its greatest element
-- (<, <=) or least (>, >=); ASC and DESC columns
SELECT ei_diff('sa', 'SELECT a FROM %I WHERE a < ANY (''{5, 17, NULL, 3}'') ORDER BY a DESC',
			   true, '{index,indexonly}');
SELECT ei_diff('sa', 'SELECT a FROM %I WHERE a >= ANY (''{1990, 1995, NULL}''::int8[]) ORDER BY a',
			   true, '{index,indexonly}');
SELECT ei_diff('sa', 'SELECT id FROM %I WHERE id <= ANY (''{30, 7}'') ORDER BY id DESC',
			   true, '{index,indexonly}');
SELECT ei_diff('sa', 'SELECT id FROM %I WHERE id > ANY (''{19990, 19985}'') ORDER BY id',
			   true, '{index,indexonly}');
SELECT ei_diff('sa', 'SELECT id FROM %I WHERE id > ANY (''{NULL}'')', false, '{index,bitmap}');
SELECT ei_diff('sa', 'SELECT a FROM %I WHERE a < ANY (''{40, 20}'') AND a = ANY (''{1, 19, 20, 39, 41}'') ORDER BY a',
			   true, '{index,indexonly}');
-- long arrays: 1000 adjacent keys, 1000 random ones
SELECT ei_diff('sa', 'SELECT a FROM %I WHERE a = ANY (ARRAY(SELECT generate_series(500, 1499))) ORDER BY a',
			   true, '{index,indexonly,parallel}');
SELECT ei_diff('sa', 'SELECT id, a FROM %I WHERE a = ANY (ARRAY(SELECT (g * 7919) %% 2100 FROM generate_series(1, 1000) g))',
			   false, '{index,bitmap,parallel}');
SELECT ei_diff('sa', 'SELECT id FROM %I WHERE id = ANY (ARRAY(SELECT (g * 7919) %% 21000 FROM generate_series(1, 1000) g)) ORDER BY id DESC',
			   true, '{index,indexonly}');
SELECT ei_diff('sa', 'SELECT id FROM %I WHERE id = ANY (ARRAY(SELECT (g * 7919) %% 21000 FROM generate_series(1, 1000) g)) ORDER BY id',
			   true, '{index,indexonly}');

-- a DESC column, and arrays on both columns of a two-column index
SELECT ei_diff('sa', 'SELECT b, a FROM %I WHERE b = ANY (''{3, 49, 0, 17, 3}'') ORDER BY b DESC, a NULLS FIRST',
			   true, '{index,indexonly}');
SELECT ei_diff('sa', 'SELECT b, a FROM %I WHERE b = ANY (''{3, 49, 0, 17, 3}'') ORDER BY b, a DESC NULLS LAST',
			   true, '{index,indexonly}');
-- (before 17 the planner does not take the order of a scan with an array
-- on a later column, so these compare multisets)
SELECT ei_diff('sa', 'SELECT b, a FROM %I WHERE b = ANY (''{3, 49, 0, 17, 60}'') AND a = ANY (''{1999, 4, NULL, 700, 701, 4}''::int4[] || ARRAY(SELECT generate_series(1000, 1999, 4)))',
			   false, '{index,indexonly,bitmap,parallel}');
SELECT ei_diff('sa', 'SELECT b, a FROM %I WHERE b = ANY (''{3, 49, 0, 17}'') AND a = ANY (ARRAY(SELECT generate_series(0, 1999, 3))) AND a < 1000',
			   false, '{index,indexonly,bitmap}');
SELECT ei_diff('sa', 'SELECT b, a FROM %I WHERE b = 17 AND a = ANY (ARRAY(SELECT generate_series(1999, 0, -2)))',
			   false, '{index,indexonly}');
SELECT ei_diff('sa', 'SELECT b, a FROM %I WHERE b = ANY (''{3, 49, 0, 17}'') AND a = ANY (ARRAY(SELECT generate_series(1, 1999, 5))) AND a > 4 AND b < 49',
			   false, '{index,indexonly}');
-- an array on the second column only filters
SELECT ei_diff('sa', 'SELECT b, a FROM %I WHERE b > 40 AND a = ANY (''{1999, 4, 700, 701}'')',
			   false, '{index,bitmap}');
-- text
SELECT ei_diff('sa', 'SELECT t FROM %I WHERE t = ANY (''{k02999, k00001, zz, k00001, NULL, k01500}'') ORDER BY t',
			   true, '{index,indexonly}');
SELECT ei_diff('sa', 'SELECT t FROM %I WHERE t IN (''k02999'', ''k00001'', ''k01500'') ORDER BY t DESC LIMIT 5',
			   true, '{index,indexonly}');

-- merge join: the inner index scan is marked and restored
SET enable_hashjoin = off;
SET enable_nestloop = off;
CREATE FUNCTION sa_plan_has(query text, node text) RETURNS bool
LANGUAGE plpgsql AS $fn$
DECLARE
	plan		jsonb;
BEGIN
	EXECUTE 'EXPLAIN (COSTS OFF, FORMAT JSON) ' || query INTO plan;
	RETURN jsonb_path_exists(plan, 'strict $.** ? (@."Node Type" == $n)',
							 jsonb_build_object('n', node));
END
$fn$;
SELECT sa_plan_has('SELECT x.id, y.id FROM sa_ei x JOIN sa_ei y ON x.b = y.b
					WHERE x.b = ANY (''{3, 49, 17}'') AND y.b = ANY (''{3, 17, 2}'') AND x.a < 40',
				   'Merge Join') AS merge_join;
SELECT ei_diff('sa', 'SELECT x.id, y.id FROM %1$I x JOIN %1$I y ON x.b = y.b
					  WHERE x.b = ANY (''{3, 49, 17}'') AND y.b = ANY (''{3, 17, 2}'') AND x.a < 40',
			   false, '{index}');
RESET enable_hashjoin;
RESET enable_nestloop;

-- a scroll cursor going back and forth, also past both ends
CREATE FUNCTION sa_cursor(tbl text) RETURNS text
LANGUAGE plpgsql AS $fn$
DECLARE
	c			refcursor;
	r			record;
	out			text := '';
BEGIN
	SET LOCAL enable_seqscan = off;
	SET LOCAL enable_bitmapscan = off;
	SET LOCAL enable_sort = off;
	OPEN c SCROLL FOR EXECUTE format(
		'SELECT b, a FROM %I WHERE b = ANY (''{3, 49, 0, 17}'') AND a < 60 ORDER BY b DESC, a NULLS FIRST', tbl);
	FOR i IN 1 .. 5 LOOP
		FETCH c INTO r;
		out := out || coalesce(r::text, '-') || ' ';
	END LOOP;
	FOR i IN 1 .. 3 LOOP
		FETCH PRIOR FROM c INTO r;
		out := out || coalesce(r::text, '-') || ' ';
	END LOOP;
	FETCH LAST FROM c INTO r;
	out := out || coalesce(r::text, '-') || ' ';
	FETCH NEXT FROM c INTO r;
	out := out || coalesce(r::text, '-') || ' ';
	FOR i IN 1 .. 4 LOOP
		FETCH PRIOR FROM c INTO r;
		out := out || coalesce(r::text, '-') || ' ';
	END LOOP;
	FETCH ABSOLUTE 2 FROM c INTO r;
	out := out || coalesce(r::text, '-') || ' ';
	FETCH PRIOR FROM c INTO r;
	out := out || coalesce(r::text, '-') || ' ';
	FETCH PRIOR FROM c INTO r;
	out := out || coalesce(r::text, '-') || ' ';
	FETCH NEXT FROM c INTO r;
	out := out || coalesce(r::text, '-');
	CLOSE c;
	RETURN out;
END
$fn$;
-- (against the sequential scan: btree's scroll cursor over these arrays
-- returns other rows on PostgreSQL 17's branch point, the test matrix's 17)
SELECT sa_cursor('sa_ei') = sa_cursor('sa_seq') AS same_as_seq,
	   length(sa_cursor('sa_ei')) > 100 AS has_rows;

-- descents: a run of elements on one leaf costs one, elements far apart
-- one each (pg_stat_user_indexes.idx_scan counts every descent)
CREATE TABLE sa_d (k int8);
INSERT INTO sa_d SELECT g FROM generate_series(1, 20000) g;
CREATE INDEX sa_d_k ON sa_d USING elastic_btree (k);
VACUUM ANALYZE sa_d;
-- the descents a query adds, once its counts are flushed
CREATE FUNCTION sa_idx_scan() RETURNS int8
LANGUAGE sql AS $fn$
	SELECT idx_scan FROM pg_stat_user_indexes WHERE indexrelname = 'sa_d_k'
$fn$;
SET enable_seqscan = off;
SET enable_bitmapscan = off;
SET max_parallel_workers_per_gather = 0;
SELECT sa_plan_has('SELECT count(*) FROM sa_d WHERE k = ANY (ARRAY(SELECT generate_series(3001, 4000)))',
				   'Index Only Scan') AS index_only;
SELECT pg_stat_force_next_flush();
SELECT sa_idx_scan() AS before \gset
SELECT count(*) AS adjacent_1000 FROM sa_d WHERE k = ANY (ARRAY(SELECT generate_series(3001, 4000)));
SELECT pg_stat_force_next_flush();
SELECT sa_idx_scan() - :before AS descents;
SELECT sa_idx_scan() AS before \gset
SELECT count(*) AS every_other_1000 FROM sa_d WHERE k = ANY (ARRAY(SELECT generate_series(3001, 5000, 2)));
SELECT pg_stat_force_next_flush();
SELECT sa_idx_scan() - :before AS descents;
SELECT sa_idx_scan() AS before \gset
SELECT count(*) AS unsorted_4000 FROM sa_d WHERE k = ANY (ARRAY(SELECT generate_series(4000, 1, -1)));
SELECT pg_stat_force_next_flush();
SELECT sa_idx_scan() - :before AS descents;
SELECT sa_idx_scan() AS before \gset
SELECT count(*) AS far_apart_10 FROM sa_d WHERE k = ANY (ARRAY(SELECT generate_series(1, 20000, 2000)));
SELECT pg_stat_force_next_flush();
SELECT sa_idx_scan() - :before AS descents;
SELECT sa_idx_scan() AS before \gset
SELECT array_agg(k) AS far_apart_10_backward
FROM (SELECT k FROM sa_d WHERE k = ANY (ARRAY(SELECT generate_series(1, 20000, 2000))) ORDER BY k DESC) s;
SELECT pg_stat_force_next_flush();
SELECT sa_idx_scan() - :before AS descents;
RESET enable_seqscan;
RESET enable_bitmapscan;
RESET max_parallel_workers_per_gather;

-- compact leaves (every leaf made compact by elastic_btree_shrink)
CREATE TABLE sc_src AS
SELECT g AS id, (g * 37) % 5000 AS k, (g % 97)::int8 AS j
FROM generate_series(1, 20000) g;
SELECT ei_setup('sc', 'sc_src', 20000);
SELECT ei_index('sc', 'k', '(k)');
SELECT ei_index('sc', 'jk', '(j DESC, k)');
CREATE INDEX sc_bt_id ON sc_bt (id);
CREATE INDEX sc_ei_id ON sc_ei (id);
VACUUM ANALYZE sc_seq, sc_bt, sc_ei;
ALTER TABLE sc_bt SET (parallel_workers = 2);
ALTER TABLE sc_ei SET (parallel_workers = 2);
SELECT string_agg(format('%s:%s', c.relname, elastic_btree_shrink(c.oid) >= 0), ' ' ORDER BY c.relname)
FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid JOIN pg_am am ON am.oid = c.relam
WHERE i.indrelid = 'sc_ei'::regclass AND am.amname = 'elastic_btree';
SELECT c.relname, s.compact_leaf_pages = s.leaf_pages AS all_compact, s.leaf_pages > 3 AS several
FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid JOIN pg_am am ON am.oid = c.relam,
	 LATERAL elastic_index_stats(c.oid) AS s
WHERE i.indrelid = 'sc_ei'::regclass AND am.amname = 'elastic_btree' ORDER BY 1;
SELECT ei_diff('sc', 'SELECT id, k FROM %I WHERE k = ANY (''{4999, 7, NULL, 3, 7, 2500, 123456}'')',
			   false, '{index,bitmap,parallel}');
SELECT ei_diff('sc', 'SELECT k FROM %I WHERE k = ANY (''{4999, 7, NULL, 3, 7, 2500}'') ORDER BY k',
			   true, '{index,indexonly}');
-- (no backward parallel scan with arrays: every query runs on btree too,
-- and the nbtree of PostgreSQL 17's branch point, the test matrix's 17,
-- can wait forever in one)
SELECT ei_diff('sc', 'SELECT k FROM %I WHERE k = ANY (ARRAY(SELECT generate_series(100, 3000, 3))) ORDER BY k DESC',
			   true, '{index,indexonly}');
SELECT ei_diff('sc', 'SELECT k FROM %I WHERE k = ANY (ARRAY(SELECT generate_series(100, 3000, 3))) ORDER BY k',
			   true, '{index,indexonly,parallel}');
SELECT ei_diff('sc', 'SELECT j, k FROM %I WHERE j = ANY (''{96, 0, 50, 51}'') AND k = ANY (ARRAY(SELECT generate_series(0, 4999, 7)))',
			   false, '{index,indexonly,bitmap,parallel}');
SELECT ei_diff('sc', 'SELECT j, k FROM %I WHERE j = ANY (''{96, 0, 50, 51}'') AND k < 3000 ORDER BY j DESC, k',
			   true, '{index,indexonly}');
SELECT ei_diff('sc', 'SELECT j, k FROM %I WHERE j = ANY (''{96, 0, 50, 51}'') AND k > 2000 ORDER BY j, k DESC',
			   true, '{index,indexonly}');
SELECT ei_check_all('sc');

-- osm_tree, with part of the entries still in its insert buffer
SET ei_test.am = 'osm_tree';
CREATE TABLE so_src AS
SELECT g AS id, (g * 7919) % 3000 AS k, (g % 13)::int8 AS j, md5((g % 500)::text) AS t
FROM generate_series(1, 6000) g;
SELECT ei_setup('so', 'so_src', 4000);
SELECT ei_index('so', 'k', '(k)');
SELECT ei_index('so', 'jk', '(j DESC, k)');
SELECT ei_index('so', 't', '(t)');
SET osm_tree.batch_size = 1;
SET osm_tree.top_inserts = off;
SET osm_tree.buffer_size = 64;
DO $$
BEGIN
	FOR i IN 4001 .. 4600 LOOP
		PERFORM ei_exec('so', format('INSERT INTO %%I SELECT * FROM so_src WHERE id = %s', i));
	END LOOP;
END
$$;
VACUUM ANALYZE so_seq, so_bt;
ANALYZE so_ei;
SELECT entries > 0 AS k_buffered FROM osm_tree_buffer_stats('so_ei_k');
SELECT entries > 0 AS jk_buffered FROM osm_tree_buffer_stats('so_ei_jk');
SELECT ei_diff('so', 'SELECT id, k FROM %I WHERE k = ANY (''{2999, 7, NULL, 3, 7, 1500, 123456}'')',
			   false, '{index,bitmap}');
SELECT ei_diff('so', 'SELECT k FROM %I WHERE k = ANY (ARRAY(SELECT (g * 31) %% 3100 FROM generate_series(1, 1000) g)) ORDER BY k',
			   true, '{index,indexonly}');
SELECT ei_diff('so', 'SELECT k FROM %I WHERE k = ANY (ARRAY(SELECT (g * 31) %% 3100 FROM generate_series(1, 1000) g)) ORDER BY k DESC LIMIT 30',
			   true, '{index,indexonly}');
SELECT ei_diff('so', 'SELECT j, k FROM %I WHERE j = ANY (''{12, 0, 5, 6, 40}'') AND k = ANY (ARRAY(SELECT generate_series(0, 2999, 11)))',
			   false, '{index,bitmap}');
SELECT ei_diff('so', 'SELECT j, k FROM %I WHERE j = ANY (''{12, 0, 5, 6, 40}'') AND k < 2000 ORDER BY j DESC, k',
			   true, '{index,indexonly}');
SELECT ei_diff('so', 'SELECT j, k FROM %I WHERE j = ANY (''{12, 0, 5, 6, 40}'') AND k > 1000 ORDER BY j, k DESC',
			   true, '{index,indexonly}');
SELECT ei_diff('so', 'SELECT t FROM %I WHERE t = ANY (ARRAY(SELECT md5(g::text) FROM generate_series(0, 600, 4) g)) ORDER BY t',
			   true, '{index,indexonly}');
SELECT ei_diff('so', 'SELECT id, t FROM %I WHERE t IN (md5(''1''), md5(''77''), md5(''499''))',
			   false, '{index,bitmap}');
SET enable_hashjoin = off;
SET enable_nestloop = off;
SELECT sa_plan_has('SELECT x.id, y.id FROM so_ei x JOIN so_ei y ON x.k = y.k
					WHERE x.k = ANY (''{3, 1500, 17, 2999}'') AND y.k = ANY (''{3, 17, 2, 2999}'')',
				   'Merge Join') AS merge_join;
SELECT ei_diff('so', 'SELECT x.id, y.id FROM %1$I x JOIN %1$I y ON x.k = y.k
					  WHERE x.k = ANY (''{3, 1500, 17, 2999}'') AND y.k = ANY (''{3, 17, 2, 2999}'')',
			   false, '{index}');
RESET enable_hashjoin;
RESET enable_nestloop;
SELECT ei_check_all('so');
RESET ei_test.am;
SET client_min_messages = warning;
DROP SCHEMA ei_sa CASCADE;
-- the next file creates the extension afresh
DROP EXTENSION elastic_index CASCADE;
RESET client_min_messages;
