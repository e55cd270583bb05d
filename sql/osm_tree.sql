CREATE EXTENSION IF NOT EXISTS elastic_index;
-- everything this file creates lives in its own schema
SET client_min_messages = warning;
DROP SCHEMA IF EXISTS ei_osm CASCADE;
CREATE SCHEMA ei_osm;
SET search_path = ei_osm, public;
RESET client_min_messages;
\i test/sql/differential_harness.sql
--
-- osm_tree: the shared tree with batch-aware ingestion (src/core/batch.c).
-- A transaction's entries are applied sorted, leaf by leaf, when the batch
-- is full, before the transaction reads the index, and before it commits.
-- The differential harness runs every query on a table without index, one
-- with btree and one with osm_tree indexes (ei_test.am).
--
SET ei_test.am = 'osm_tree';

-- Settings: defaults, ranges, reloptions
SHOW osm_tree.fill_factor;
SHOW osm_tree.split_factor;
SHOW osm_tree.batch_size;
SET osm_tree.fill_factor = 101;
SET osm_tree.split_factor = 0.99;
SET osm_tree.batch_size = 0;
SET osm_tree.no_such_setting = 1;
CREATE TABLE o_opts (k int8);
CREATE INDEX o_bad ON o_opts USING osm_tree (k) WITH (fillfactor = 5);
CREATE INDEX o_bad ON o_opts USING osm_tree (k) WITH (split_factor = 1.5);
CREATE INDEX o_bad ON o_opts USING osm_tree (k) WITH (batch_size = 0);
CREATE INDEX o_bad ON o_opts USING osm_tree (k) WITH (size_bound = '1MB');
CREATE INDEX o_opts_k ON o_opts USING osm_tree (k)
	WITH (fillfactor = 98, split_factor = 0.7, batch_size = 500);
SELECT reloptions FROM pg_class WHERE relname = 'o_opts_k';
ALTER INDEX o_opts_k SET (batch_size = 1000);
SELECT am, height, entries FROM elastic_index_stats('o_opts_k');
SELECT elastic_btree_shrink('o_opts_k');
-- every operator class of elastic_btree exists for osm_tree too
SELECT count(*) AS osm_opclasses,
	   count(*) = (SELECT count(*) FROM pg_opclass c JOIN pg_am a ON a.oid = c.opcmethod
				   WHERE a.amname = 'elastic_btree') AS same_as_elastic_btree
FROM pg_opclass c JOIN pg_am a ON a.oid = c.opcmethod WHERE a.amname = 'osm_tree';
SELECT amvalidate(c.oid) AS valid, count(*)
FROM pg_opclass c JOIN pg_am a ON a.oid = c.opcmethod
WHERE a.amname = 'osm_tree' GROUP BY 1;

-- A near-sorted load (K = L = 5%) in one statement, then more in several
-- transactions and single rows: the three tables must answer alike.
CREATE TABLE os_src AS
SELECT pos AS id, key AS k, (key * 7919) % 10007 AS j,
	   md5(key::text) AS t, now()::timestamp(0) AT TIME ZONE 'UTC' AS pad
FROM elastic_index_near_sorted(30000, 5, 5, 11);
SELECT ei_setup('os', 'os_src', 0);
SELECT ei_index('os', 'k', '(k)');
SELECT ei_index('os', 'jk', '(j DESC, k)');
SELECT ei_index('os', 't', '(t)');
SET osm_tree.batch_size = 4000;
SELECT ei_exec('os', 'INSERT INTO %I SELECT * FROM os_src WHERE id <= 20000 ORDER BY id');
SELECT ei_exec('os', 'INSERT INTO %I SELECT * FROM os_src WHERE id > 20000 AND id <= 25000 ORDER BY id');
DO $$
BEGIN
	FOR i IN 25001 .. 25300 LOOP
		PERFORM ei_exec('os', format('INSERT INTO %%I SELECT * FROM os_src WHERE id = %s', i));
	END LOOP;
END
$$;
VACUUM ANALYZE os_seq, os_bt, os_ei;
SELECT ei_check_all('os');

CREATE OR REPLACE FUNCTION os_queries(vacuumed bool DEFAULT true)
RETURNS TABLE (query text, result text)
LANGUAGE plpgsql AS $fn$
DECLARE
	q			text;
	o			bool;
	m			text[];
BEGIN
	FOR q, o, m IN VALUES
		('SELECT id, k FROM %I WHERE k BETWEEN 1000 AND 3000', false, '{index,bitmap}'::text[]),
		('SELECT k FROM %I WHERE k >= 24000 ORDER BY k DESC', true, '{index,indexonly,bitmap}'),
		('SELECT k FROM %I ORDER BY k', true, '{index,indexonly}'),
		('SELECT j, k FROM %I WHERE j = 77 ORDER BY j DESC, k', true, '{index,indexonly,bitmap}'),
		('SELECT t FROM %I WHERE t > ''f'' AND t < ''f2'' ORDER BY t', true, '{index,indexonly}'),
		('SELECT min(k), max(k), min(t), max(t) FROM %I', true, '{index,indexonly}')
	LOOP
		IF NOT vacuumed THEN
			m := array_remove(m, 'indexonly');
		END IF;
		query := q;
		result := ei_diff('os', q, o, m);
		RETURN NEXT;
	END LOOP;
END
$fn$;
SELECT * FROM os_queries();

-- The near-sorted load left the leaves packed: batches were applied sorted,
-- runs past the right edge became new leaves at the fill factor.
-- (Pages in use: the insert buffer's pages, freed by flushes, stay in the
-- file for reuse, like the pending list of a GIN index.)
SELECT round(s.leaf_fill) AS osm_leaf_fill,
	   round((s.meta_pages + s.inner_pages + s.leaf_pages)::numeric /
			 (pg_relation_size('os_bt_k') / 8192), 2) AS size_vs_btree
FROM elastic_index_stats('os_ei_k') s;

-- A transaction reads its own rows through the index, whatever kind of
-- scan, while its entries are still in its batch.  Entries of a rolled-back
-- subtransaction are never applied; those of a released one are.
BEGIN;
SET LOCAL osm_tree.batch_size = 100000;
SELECT ei_exec('os', 'INSERT INTO %I SELECT * FROM os_src WHERE id > 25300 AND id <= 26000');
SELECT * FROM os_queries(false);
SAVEPOINT a;
SELECT ei_exec('os', 'INSERT INTO %I SELECT * FROM os_src WHERE id > 26000 AND id <= 27000');
SAVEPOINT b;
SELECT ei_exec('os', 'INSERT INTO %I SELECT * FROM os_src WHERE id > 27000 AND id <= 28000');
RELEASE b;
ROLLBACK TO a;
SELECT ei_exec('os', 'INSERT INTO %I SELECT * FROM os_src WHERE id > 28000 AND id <= 28500');
SAVEPOINT c;
SELECT ei_exec('os', 'INSERT INTO %I SELECT * FROM os_src WHERE id > 28500 AND id <= 29000');
RELEASE c;
COMMIT;
SELECT * FROM os_queries(false);
SELECT ei_check_all('os');

-- An error inside a PL/pgSQL block (a subtransaction): the entries of its
-- rows are dropped, those the transaction inserted before are applied once.
BEGIN;
SET LOCAL osm_tree.batch_size = 100000;
INSERT INTO os_ei SELECT * FROM os_src WHERE id > 29000 AND id <= 29500;
INSERT INTO os_bt SELECT * FROM os_src WHERE id > 29000 AND id <= 29500;
INSERT INTO os_seq SELECT * FROM os_src WHERE id > 29000 AND id <= 29500;
DO $$
BEGIN
	INSERT INTO os_ei SELECT * FROM os_src WHERE id > 29500 AND id <= 29600;
	PERFORM 1 / 0;
EXCEPTION WHEN division_by_zero THEN
	RAISE NOTICE 'caught';
END
$$;
COMMIT;
SELECT * FROM os_queries(false);
SELECT ei_check_all('os');

-- Applying a batch fails half way inside a PL/pgSQL block (forced: a bulk
-- append stops with an error after its first step).  The block's rows are
-- rolled back and their entries dropped; the entries of the rows inserted
-- before the block stay in the batch, although part of them reached the
-- tree before the error, and are applied again at commit: each is in the
-- index once.
CREATE TABLE o_retry (k int8);
CREATE INDEX o_retry_k ON o_retry USING osm_tree (k) WITH (batch_size = 3000, buffer_size = 0);
INSERT INTO o_retry SELECT generate_series(1, 1000);
BEGIN;
INSERT INTO o_retry SELECT generate_series(1001, 2500);
DO $$
BEGIN
	SET LOCAL elastic_index.debug_fault = 'after_split';
	INSERT INTO o_retry SELECT generate_series(2501, 4000);
EXCEPTION WHEN OTHERS THEN
	RAISE NOTICE 'caught: %', SQLERRM;
END
$$;
RESET elastic_index.debug_fault;
-- part of the batch reached the tree before the error
SELECT bulk_appended_entries > 0 AS partly_applied
FROM elastic_index_stat_activity WHERE indexrelname = 'o_retry_k';
COMMIT;
SET enable_seqscan = off;
SET enable_bitmapscan = off;
SELECT count(*), count(DISTINCT k), min(k), max(k) FROM o_retry WHERE k > 0;
RESET enable_seqscan;
RESET enable_bitmapscan;
SELECT count(*), count(DISTINCT k), min(k), max(k) FROM o_retry;
SELECT elastic_index_check('o_retry_k', true);

-- A batch applied again with new entries between the ones that got in
-- before the error: even keys, applied by a scan until the first split
-- fails, then odd keys; at commit every full leaf the merged batch splits
-- looks ahead at entries half of which are in that leaf already (about
-- 460 such entries met here); they are passed over, and nothing is
-- doubled.
CREATE TABLE o_retry2 (k int8);
CREATE INDEX o_retry2_k ON o_retry2 USING osm_tree (k) WITH (batch_size = 100000, buffer_size = 0);
BEGIN;
INSERT INTO o_retry2 SELECT 2 * g FROM generate_series(1, 4000) AS g;
DO $$
BEGIN
	SET LOCAL elastic_index.debug_fault = 'after_split';
	PERFORM count(*) FROM o_retry2 WHERE k = 4;
EXCEPTION WHEN OTHERS THEN
	RAISE NOTICE 'caught: %', SQLERRM;
END
$$;
RESET elastic_index.debug_fault;
INSERT INTO o_retry2 SELECT 2 * g - 1 FROM generate_series(1, 4000) AS g;
COMMIT;
SET enable_seqscan = off;
SET enable_bitmapscan = off;
SELECT count(*), count(DISTINCT k), min(k), max(k) FROM o_retry2 WHERE k > 0;
RESET enable_seqscan;
RESET enable_bitmapscan;
SELECT count(*), count(DISTINCT k) FROM o_retry2;
SELECT elastic_index_check('o_retry2_k', true);
DROP TABLE o_retry2;

-- A sorted run whose first entry is large: the look-ahead split would put
-- the small keys before it on the left with a high key made from it, more
-- than a page; the split then takes the split factor's rule instead.
CREATE TABLE o_big (t text COLLATE "C");
CREATE INDEX o_big_t ON o_big USING osm_tree (t) WITH (batch_size = 100000, buffer_size = 0);
INSERT INTO o_big SELECT 'a' || lpad(g::text, 5, '0') FROM generate_series(1, 386) AS g
	UNION ALL SELECT 'z';
INSERT INTO o_big SELECT 'b' || lpad(g::text, 3, '0') ||
		(SELECT string_agg(md5(g::text || i::text), '') FROM generate_series(1, 62) AS i)
	FROM generate_series(1, 60) AS g;
SELECT count(*), count(DISTINCT t) FROM o_big;
SELECT elastic_index_check('o_big_t', true);
DROP TABLE o_big;

-- osm_tree runs no parallel index scans: a participant could return a
-- buffered entry that another reads in the tree (src/README.md).
BEGIN;
SET LOCAL osm_tree.batch_size = 100000;
SELECT ei_exec('os', 'INSERT INTO %I SELECT * FROM os_src WHERE id > 29600 AND id <= 29800');
SET LOCAL parallel_setup_cost = 0;
SET LOCAL parallel_tuple_cost = 0;
SET LOCAL min_parallel_index_scan_size = 0;
SET LOCAL max_parallel_workers_per_gather = 2;
SET LOCAL enable_seqscan = off;
SET LOCAL enable_bitmapscan = off;
DO $$
DECLARE
	plan		text;
BEGIN
	EXECUTE 'EXPLAIN (COSTS OFF, FORMAT JSON) SELECT k FROM os_ei ORDER BY k' INTO plan;
	RAISE NOTICE 'parallel-aware scan of an osm_tree index: %',
		plan LIKE '%"Parallel Aware": true%';
END
$$;
COMMIT;

-- TRUNCATE, DROP INDEX and REINDEX after inserts in the same transaction:
-- the batch for the old storage is dropped, nothing breaks.
BEGIN;
SELECT ei_exec('os', 'INSERT INTO %I SELECT * FROM os_src WHERE id > 29800 AND id <= 29900');
REINDEX INDEX os_ei_k;
SELECT ei_exec('os', 'INSERT INTO %I SELECT * FROM os_src WHERE id > 29900 AND id <= 29950');
COMMIT;
SELECT * FROM os_queries(false);
SELECT ei_check_all('os');
CREATE TABLE o_trunc (k int8);
CREATE INDEX o_trunc_k ON o_trunc USING osm_tree (k);
CREATE INDEX o_trunc_k2 ON o_trunc USING osm_tree (k);
BEGIN;
INSERT INTO o_trunc SELECT generate_series(1, 1000);
TRUNCATE o_trunc;
INSERT INTO o_trunc SELECT generate_series(5001, 5100);
DROP INDEX o_trunc_k2;
COMMIT;
SET enable_seqscan = off;
SELECT count(*), min(k), max(k) FROM o_trunc WHERE k > 0;
RESET enable_seqscan;
SELECT elastic_index_check('o_trunc_k', true);

-- Two-phase commit: the batch goes in before PREPARE.
BEGIN;
INSERT INTO o_trunc SELECT generate_series(6001, 6100);
PREPARE TRANSACTION 'osm_2pc';
COMMIT PREPARED 'osm_2pc';
SET enable_seqscan = off;
SELECT count(*) FROM o_trunc WHERE k > 6000;
RESET enable_seqscan;

-- An exclusion constraint's index takes entries at once: a conflict within
-- one statement, and one with a row of another statement, are caught.
CREATE TABLE o_excl (k int8, EXCLUDE USING osm_tree (k WITH =));
INSERT INTO o_excl VALUES (1), (2), (3);
INSERT INTO o_excl VALUES (4), (4);
INSERT INTO o_excl VALUES (2);
SELECT count(*) FROM o_excl;

-- Keys displaced further than a batch reaches: 5% of 200000 rows moved by
-- up to 10000 places, applied in batches of 1000.  Each batch's ascending
-- run then goes through leaves that keys which arrived early already fill.
-- A split there sees the batch's next entries and makes the left page's
-- high key where the run fills that page to the fill factor, often between
-- two of the page's own keys (ei_run_split_point).  Now 92% (int8) and
-- 87% (text) of the leaves' space is used; before that rule, 80% and 72%.
CREATE TABLE of_src AS
SELECT pos AS id, key AS k, lpad(key::text, 12, '0') AS t
FROM elastic_index_near_sorted(200000, 5, 5, 3);
SELECT ei_setup('of', 'of_src', 0);
SELECT ei_index('of', 'k', '(k)');
SELECT ei_index('of', 't', '(t)');
ALTER INDEX of_ei_k SET (batch_size = 1000, buffer_size = 0);
ALTER INDEX of_ei_t SET (batch_size = 1000, buffer_size = 0);
SELECT ei_exec('of', 'INSERT INTO %I SELECT * FROM of_src ORDER BY id');
SELECT c.relname, s.leaf_fill >= 85 AS packed,
	   s.total_pages < 0.6 * pg_relation_size(replace(c.relname, '_ei_', '_bt_')) / 8192
		   AS below_060_btree
FROM pg_class c, elastic_index_stats(c.oid) s
WHERE c.relname IN ('of_ei_k', 'of_ei_t') ORDER BY 1;
VACUUM ANALYZE of_seq, of_bt, of_ei;
SELECT ei_check_all('of');
SELECT ei_diff('of', 'SELECT id, k FROM %I WHERE k BETWEEN 5000 AND 9000', false, '{index,bitmap}');
SELECT ei_diff('of', 'SELECT k FROM %I WHERE k > 150000 ORDER BY k DESC', true, '{index,indexonly}');
SELECT ei_diff('of', 'SELECT t FROM %I WHERE t >= ''000000100000'' ORDER BY t LIMIT 3000', true, '{index,indexonly}');
SELECT ei_diff('of', 'SELECT id FROM %I WHERE k = ANY (ARRAY[1, 7777, 123456, 199999, 200000])', false, '{bitmap}');
DROP TABLE of_src, of_seq, of_bt, of_ei;

-- Counters: a sorted load of 20000 rows in batches of 5000 into an empty
-- index fills the root leaf leaf-wise, then appends whole leaves; every
-- entry is counted once, as batched or as bulk-appended.
CREATE TABLE o_cnt (k int8);
CREATE INDEX o_cnt_k ON o_cnt USING osm_tree (k) WITH (batch_size = 5000, buffer_size = 0);
INSERT INTO o_cnt SELECT generate_series(1, 20000);
SELECT batches_applied, batched_entries + bulk_appended_entries AS entries,
	   bulk_appended_entries > 19000 AS mostly_appended, leaf_splits
FROM elastic_index_stat_activity WHERE indexrelname = 'o_cnt_k';
SELECT round(leaf_fill) AS leaf_fill, entries FROM elastic_index_stats('o_cnt_k');
SELECT elastic_index_check('o_cnt_k', true);
-- batch_size = 1: every entry goes in at once, through the ordinary path
ALTER INDEX o_cnt_k SET (batch_size = 1);
SELECT elastic_index_activity_reset('o_cnt_k');
INSERT INTO o_cnt SELECT generate_series(20001, 20100);
SELECT batches_applied, batched_entries, bulk_appended_entries,
	   fastpath_inserts + descents AS top_inserted
FROM elastic_index_stat_activity WHERE indexrelname = 'o_cnt_k';

SET client_min_messages = warning;
DROP SCHEMA ei_osm CASCADE;
-- the next file creates the extension afresh
DROP EXTENSION elastic_index CASCADE;
