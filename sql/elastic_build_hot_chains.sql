CREATE EXTENSION IF NOT EXISTS elastic_index;
CREATE EXTENSION IF NOT EXISTS pageinspect;
-- everything this file creates lives in its own schema
SET client_min_messages = warning;
DROP SCHEMA IF EXISTS ei_build_hot CASCADE;
CREATE SCHEMA ei_build_hot;
SET search_path = ei_build_hot, public;
RESET client_min_messages;
\i test/sql/differential_harness.sql
\i test/sql/build_workers.sql
--
-- CREATE INDEX and REINDEX under a size bound (compact leaves formed by
-- the build, src/README.md, "Elasticity": builds) over HOT chains that are
-- broken for the new index: the rows were HOT-updated on a neighbour
-- column, then on k, which no index covered yet; some updates aborted, one
-- in a subtransaction, and some are still in progress in the transaction
-- that builds the index.  The build indexes each chain once, under its
-- root's TID, with the values of the chain's live member; a compact leaf
-- keeps only the TID and reads the key from the heap, following the chain.
-- It must report the broken chains (a parallel build too, from its
-- workers), so that PostgreSQL sets indcheckxmin.  After each build every
-- scan kind of the elastic_btree table must answer like a sequential scan
-- and like btree over the same rows (ei_diff also checks that the plan
-- reads the index), and elastic_index_check with heapallindexed must pass
-- (a TID missing or indexed twice is an error).  Snapshots that still see
-- the chains' older members are tested in
-- test/specs/elastic_build_hot_snapshot.spec.
--
SET max_parallel_maintenance_workers = 0;
CREATE TABLE bh_src (id int4, k int8, v int4, pad text);
SELECT ei_setup('bh', 'bh_src', 0);
SELECT ei_exec('bh', 'ALTER TABLE %I SET (fillfactor = 50, parallel_workers = 2)');
SELECT ei_exec('bh', 'INSERT INTO %I SELECT i, (i::int8 * 7919) %% 200003, i %% 100, ''p'' FROM generate_series(1, 100000) AS i');
-- an index on v: the updates below keep v, so they are HOT for it too
SELECT ei_index('bh', 'v', '(v)');

-- HOT updates of a neighbour column, then of k, which no index covers yet
SELECT ei_exec('bh', 'UPDATE %I SET pad = pad || ''x'' WHERE id %% 3 = 0');
SELECT ei_exec('bh', 'UPDATE %I SET k = k + 300000 WHERE id %% 3 = 0');
SELECT ei_exec('bh', 'UPDATE %I SET pad = pad || ''y'', k = 700000 - k WHERE id %% 7 = 0');
-- an update that aborted: its new members are no part of the chains
BEGIN;
SELECT ei_exec('bh', 'UPDATE %I SET k = -k WHERE id %% 5 = 0');
ROLLBACK;
-- the updates were HOT: heap-only tuples on the first pages
SELECT count(*) > 100 AS heap_only_tuples
FROM generate_series(0, 9) AS b, heap_page_items(get_raw_page('bh_ei', b)) AS p
WHERE p.t_infomask2 & 32768 <> 0;

-- the differential queries on k
CREATE FUNCTION bh_diff() RETURNS SETOF text
LANGUAGE plpgsql AS $fn$
BEGIN
	RETURN NEXT ei_diff('bh', 'SELECT id, k FROM %I WHERE k BETWEEN 100000 AND 500000', false, '{index,bitmap}');
	RETURN NEXT ei_diff('bh', 'SELECT k FROM %I WHERE k BETWEEN 100000 AND 500000', false, '{indexonly}');
	RETURN NEXT ei_diff('bh', 'SELECT k FROM %I WHERE k >= 650000 ORDER BY k', true, '{index,indexonly}');
	RETURN NEXT ei_diff('bh', 'SELECT k FROM %I WHERE k <= 20000 ORDER BY k DESC', true, '{index,indexonly}');
	RETURN NEXT ei_diff('bh', 'SELECT id, k FROM %1$I WHERE k = ANY (ARRAY(SELECT (g::int8 * 7919) %% 200003 + d FROM generate_series(1, 100000, 997) AS g, unnest(''{0,1,2,300000,300001}''::int8[]) AS d))', false, '{index,bitmap}');
	RETURN NEXT ei_diff('bh', 'SELECT id FROM %I WHERE k < 0', false, '{index,bitmap}');
	RETURN NEXT ei_diff('bh', 'SELECT min(k), max(k) FROM %I', true, '{index,indexonly}');
END
$fn$;

-- 1. A serial build in a transaction whose own updates are still in
-- progress: an update in a subtransaction that aborted, HOT updates of k
-- and pad that are not, deletes
BEGIN;
SAVEPOINT s;
SELECT ei_exec('bh', 'UPDATE %I SET k = k + 1000000 WHERE id %% 11 = 0');
ROLLBACK TO SAVEPOINT s;
SELECT ei_exec('bh', 'UPDATE %I SET k = k + 1, pad = pad || ''z'' WHERE id %% 13 = 0');
SELECT ei_exec('bh', 'DELETE FROM %I WHERE id %% 17 = 0');
CREATE INDEX bh_bt_k ON bh_bt USING btree (k);
CREATE INDEX bh_ei_k ON bh_ei USING elastic_btree (k) WITH (size_bound = '1MB');
COMMIT;
SELECT i.indcheckxmin AS broken_chains_seen, s.elastic_state,
	   s.compact_leaf_pages >= s.leaf_pages - 10 AS all_but_few_compact,
	   s.total_pages <= 1.05 * s.size_bound_pages AS within_bound
FROM pg_index i, elastic_index_stats('bh_ei_k') s WHERE i.indexrelid = 'bh_ei_k'::regclass;
SELECT ei_check_all('bh');
SELECT bh_diff();

-- 2. REINDEX: compact leaves again, over the same chains
REINDEX INDEX bh_ei_k;
REINDEX INDEX bh_bt_k;
SELECT elastic_state, compact_leaf_pages >= leaf_pages - 10 AS all_but_few_compact
FROM elastic_index_stats('bh_ei_k');
SELECT ei_check_all('bh');
SELECT bh_diff();

-- 3. A parallel build in a transaction with HOT updates of k in progress
-- again (the index is dropped first, so that they are HOT): the workers'
-- broken chains reach the leader
DROP INDEX bh_ei_k;
DROP INDEX bh_bt_k;
BEGIN;
SELECT ei_exec('bh', 'UPDATE %I SET k = k + 2 WHERE id %% 19 = 0');
SELECT ei_exec('bh', 'UPDATE %I SET pad = pad || ''w'' WHERE id %% 23 = 0');
SET LOCAL max_parallel_maintenance_workers = 2;
SET LOCAL min_parallel_table_scan_size = 0;
SET LOCAL maintenance_work_mem = '64MB';
-- workers do run: one made to fail fails the build
SELECT ei_build_uses_workers('CREATE INDEX bh_ei_k ON bh_ei USING elastic_btree (k) WITH (size_bound = ''1MB'')');
CREATE INDEX bh_bt_k ON bh_bt USING btree (k);
CREATE INDEX bh_ei_k ON bh_ei USING elastic_btree (k) WITH (size_bound = '1MB');
COMMIT;
SELECT i.indcheckxmin AS broken_chains_seen, s.elastic_state,
	   s.compact_leaf_pages >= s.leaf_pages - 10 AS all_but_few_compact
FROM pg_index i, elastic_index_stats('bh_ei_k') s WHERE i.indexrelid = 'bh_ei_k'::regclass;
SELECT ei_check_all('bh');
SELECT bh_diff();

-- 4. inserts into the compact leaves, updates of k (not HOT now) and of
-- pad (HOT), then VACUUM, which prunes the chains to redirects
SELECT ei_exec('bh', 'INSERT INTO %I SELECT i, (i::int8 * 7919) %% 200003, i %% 100, ''n'' FROM generate_series(100001, 130000) AS i');
SELECT ei_exec('bh', 'UPDATE %I SET k = k + 3 WHERE id %% 29 = 0');
SELECT ei_exec('bh', 'UPDATE %I SET pad = pad || ''v'' WHERE id %% 31 = 0');
SELECT elastic_state, compact_leaf_pages > 0 AS has_compact FROM elastic_index_stats('bh_ei_k');
SELECT ei_check_all('bh');
SELECT bh_diff();
VACUUM bh_seq, bh_bt, bh_ei;
SELECT ei_check_all('bh');
SELECT bh_diff();

SET client_min_messages = warning;
DROP SCHEMA ei_build_hot CASCADE;
DROP EXTENSION pageinspect;
DROP EXTENSION elastic_index;
RESET client_min_messages;
