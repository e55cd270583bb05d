CREATE EXTENSION IF NOT EXISTS elastic_index;
-- everything this file creates lives in its own schema
SET client_min_messages = warning;
DROP SCHEMA IF EXISTS ei_osm_compact CASCADE;
CREATE SCHEMA ei_osm_compact;
SET search_path = ei_osm_compact, public;
RESET client_min_messages;
\i test/sql/differential_harness.sql
--
-- Compact leaves in osm_tree (the compact_leaves reloption, src/README.md,
-- "osm_tree"): bulk appends past the right edge write the leaves they fill
-- compact, from the entries' own keys.  Near-sorted rows (K = L = 5%) by
-- INSERT ... SELECT and COPY, with and without the insert buffer, small
-- batches, direct inserts, duplicates; every scan kind compared with btree
-- and a sequential scan on the same rows; churn and VACUUM; the verifier;
-- what cannot have compact leaves; ALTER INDEX ... SET (compact_leaves = off).
--
SET ei_test.am = 'osm_tree';
SET osm_tree.flush_worker = off;
-- k: int8, near-sorted; ts: timestamp, the same order; d: int8, 4 rows a key
CREATE TABLE oc_src AS
SELECT pos::int AS id, key AS k,
	   timestamp '2020-01-01' + key * interval '1 second' AS ts, key / 4 AS d
FROM elastic_index_near_sorted(60000, 5, 5);
SELECT ei_setup('oc', 'oc_src', 2000);
CREATE INDEX oc_bt_k ON oc_bt USING btree (k);
CREATE INDEX oc_bt_ts ON oc_bt USING btree (ts);
CREATE INDEX oc_bt_d ON oc_bt USING btree (d);
CREATE INDEX oc_ei_k ON oc_ei USING osm_tree (k) WITH (compact_leaves = on);
CREATE INDEX oc_ei_ts ON oc_ei USING osm_tree (ts) WITH (compact_leaves = on);
CREATE INDEX oc_ei_d ON oc_ei USING osm_tree (d) WITH (compact_leaves = on, deduplicate_items = on);
-- the same rows without the option, for the sizes
CREATE INDEX oc_std_k ON oc_seq USING osm_tree (k);
SELECT c.relname, c.reloptions FROM pg_class c
WHERE c.relname IN ('oc_ei_k', 'oc_ei_d', 'oc_std_k') ORDER BY 1;

-- Sorted batches of INSERT ... SELECT, without the insert buffer
SET osm_tree.buffer_size = 0;
SELECT ei_exec('oc', 'INSERT INTO %I SELECT * FROM oc_src WHERE id > 2000 AND id <= 25000 ORDER BY id');
RESET osm_tree.buffer_size;
-- COPY in two transactions (the batch path), with the insert buffer on
SELECT current_setting('data_directory') || '/ei_osm_compact.copy' AS copyfile \gset
COPY (SELECT * FROM oc_src WHERE id > 25000 AND id <= 40000 ORDER BY id) TO :'copyfile';
SELECT ei_exec('oc', format('COPY %%I FROM %L', :'copyfile'));
COPY (SELECT * FROM oc_src WHERE id > 40000 AND id <= 52000 ORDER BY id) TO :'copyfile';
SELECT ei_exec('oc', format('COPY %%I FROM %L', :'copyfile'));
ANALYZE oc_seq, oc_bt, oc_ei;
-- the appended leaves are compact: the index is a fraction of btree's
SELECT (SELECT compact_leaf_pages > 0 FROM elastic_index_stats('oc_ei_k')) AS k_compact,
	   (SELECT compact_leaf_pages > 0 FROM elastic_index_stats('oc_ei_ts')) AS ts_compact,
	   (SELECT compact_leaf_pages > 0 FROM elastic_index_stats('oc_ei_d')) AS d_compact,
	   (SELECT compact_leaf_pages FROM elastic_index_stats('oc_std_k')) AS std_compact,
	   pg_relation_size('oc_ei_k') < pg_relation_size('oc_bt_k') * 0.4 AS k_small,
	   pg_relation_size('oc_ei_k') < pg_relation_size('oc_std_k') * 0.7 AS k_smaller_than_standard;
SELECT (SELECT entries FROM elastic_index_stats('oc_ei_k')) AS k_entries,
	   (SELECT entries FROM elastic_index_stats('oc_ei_d')) AS d_entries;
SELECT ei_check_all('oc');
SELECT * FROM ei_diff_col('oc', 'k', '1000', '41000');
SELECT * FROM ei_diff_col('oc', 'ts', '''2020-01-01 02:00:00''', '''2020-01-01 11:00:00''');
SELECT * FROM ei_diff_col('oc', 'd', '300', '11000');
SELECT ei_diff('oc', 'SELECT k, id FROM %I WHERE k = ANY (''{3, 7777, 25000, 39999, 51999, 99999}'')', false, '{index,bitmap}');
SELECT ei_diff('oc', 'SELECT k FROM %I WHERE k = ANY (''{3, 7777, 25000, 39999, 51999}'') ORDER BY k DESC', true, '{index,indexonly}');
SELECT ei_diff('oc', 'SELECT d FROM %I WHERE d BETWEEN 5000 AND 5010 ORDER BY d DESC', true, '{index,indexonly}');

-- backward scroll cursor across compact leaves
SET enable_seqscan = off;
SET enable_bitmapscan = off;
BEGIN;
DECLARE cur SCROLL CURSOR FOR SELECT k FROM oc_ei WHERE k BETWEEN 20000 AND 30000 ORDER BY k DESC;
FETCH 2 FROM cur;
FETCH ABSOLUTE 5000 FROM cur;
FETCH BACKWARD 2 FROM cur;
MOVE FORWARD ALL FROM cur;
FETCH BACKWARD 2 FROM cur;
COMMIT;
RESET enable_seqscan;
RESET enable_bitmapscan;

-- Small batches go to the insert buffer (osm_tree.top_inserts off) and its
-- flush, single rows straight into the tree (batch_size 1), rows that
-- arrived late and duplicate keys land in compact leaves (their searches
-- read keys from the heap; a full one splits)
SET osm_tree.top_inserts = off;
SELECT ei_exec('oc', 'INSERT INTO %I SELECT * FROM oc_src WHERE id > 52000 AND id <= 53000 ORDER BY id');
SELECT (SELECT entries > 0 FROM osm_tree_buffer_stats('oc_ei_k')) AS buffered;
SELECT osm_tree_flush('oc_ei_k') > 0 AS flushed;
RESET osm_tree.top_inserts;
SET osm_tree.batch_size = 1;
SELECT ei_exec('oc', 'INSERT INTO %I SELECT * FROM oc_src WHERE id > 53000 AND id <= 54000 ORDER BY id');
RESET osm_tree.batch_size;
SELECT ei_exec('oc', 'INSERT INTO %I SELECT id + 100000, k, ts, d FROM oc_src WHERE id %% 13 = 0 AND id <= 50000');
SELECT ei_exec('oc', 'INSERT INTO %I SELECT * FROM oc_src WHERE id > 54000 ORDER BY id');
SELECT ei_check_all('oc');
SELECT * FROM ei_diff_col('oc', 'k', '1000', '50000');
SELECT * FROM ei_diff_col('oc', 'd', '300', '14000');
SELECT ei_diff('oc', 'SELECT k, id FROM %I WHERE k = ANY (''{13, 7800, 25012, 39988, 59999}'')', false, '{index,bitmap}');

-- Churn: deletes, updates (new entries everywhere), VACUUM
SELECT ei_exec('oc', 'DELETE FROM %I WHERE id %% 7 = 0');
SELECT ei_exec('oc', 'UPDATE %I SET k = k + 1, d = d + 1 WHERE id %% 11 = 0');
SELECT ei_exec('oc', 'DELETE FROM %I WHERE k BETWEEN 10000 AND 14000');
VACUUM oc_seq, oc_bt, oc_ei;
ANALYZE oc_seq, oc_bt, oc_ei;
SELECT ei_check_all('oc');
SELECT (SELECT compact_leaf_pages > 0 FROM elastic_index_stats('oc_ei_k')) AS k_compact_after_vacuum;
SELECT * FROM ei_diff_col('oc', 'k', '9000', '50000');
SELECT * FROM ei_diff_col('oc', 'ts', '''2020-01-01 03:00:00''', '''2020-01-01 12:00:00''');
SELECT ei_diff('oc', 'SELECT d FROM %I WHERE d BETWEEN 2400 AND 3600 ORDER BY d', true, '{index,indexonly}');

-- ALTER INDEX ... SET (compact_leaves = off): leaves appended from then on
-- are standard, those already compact stay so (osm_tree never expands
-- them) until REINDEX, which builds standard leaves
SELECT compact_leaf_pages AS compact_before FROM elastic_index_stats('oc_ei_k') \gset
ALTER INDEX oc_ei_k SET (compact_leaves = off);
SELECT ei_exec('oc', 'INSERT INTO %I SELECT id + 200000, k + 100000, ts, d FROM oc_src ORDER BY id');
SELECT compact_leaf_pages = :compact_before AS compact_kept,
	   leaf_pages - compact_leaf_pages > 100 AS new_leaves_standard
FROM elastic_index_stats('oc_ei_k');
SELECT ei_check_all('oc');
SELECT * FROM ei_diff_col('oc', 'k', '20000', '130000');
REINDEX INDEX oc_ei_k;
SELECT compact_leaf_pages FROM elastic_index_stats('oc_ei_k');
SELECT ei_diff('oc', 'SELECT k, id FROM %I WHERE k BETWEEN 30000 AND 30100', false, '{index,bitmap}');
-- and back on: bulk appends write compact leaves again
ALTER INDEX oc_ei_k SET (compact_leaves = on);
SELECT ei_exec('oc', 'INSERT INTO %I SELECT id + 300000, k + 200000, ts, d FROM oc_src ORDER BY id');
SELECT compact_leaf_pages > 0 AS compact_again FROM elastic_index_stats('oc_ei_k');
SELECT ei_check_all('oc');
SELECT * FROM ei_diff_col('oc', 'k', '150000', '230000');

-- CREATE INDEX and REINDEX with compact_leaves = on build compact leaves
-- (src/README.md, "Building"): the loader forms the leaf level in the
-- kind, as bulk appends do, from the entries alone; the rightmost leaf
-- stays standard.  Int8 keys (unique), duplicates (4 rows a key, posting
-- lists: deduplicate_items is on by default) and text under "C", built on
-- rows already loaded, then appends, late rows, deletes and VACUUM.
CREATE TABLE ob_src AS
SELECT id, k, d, lpad(k::text, 8, '0') COLLATE "C" AS t FROM oc_src;
SELECT ei_setup('ob', 'ob_src', 50000);
CREATE INDEX ob_bt_k ON ob_bt USING btree (k);
CREATE INDEX ob_bt_d ON ob_bt USING btree (d);
CREATE INDEX ob_bt_t ON ob_bt USING btree (t);
SET max_parallel_maintenance_workers = 0;
CREATE INDEX ob_ei_k ON ob_ei USING osm_tree (k) WITH (compact_leaves = on);
CREATE INDEX ob_ei_d ON ob_ei USING osm_tree (d) WITH (compact_leaves = on);
CREATE INDEX ob_ei_t ON ob_ei USING osm_tree (t) WITH (compact_leaves = on);
-- the same rows without the option
CREATE INDEX ob_std_k ON ob_seq USING osm_tree (k);
CREATE INDEX ob_std_d ON ob_seq USING osm_tree (d);
CREATE INDEX ob_std_t ON ob_seq USING osm_tree (t);
ANALYZE ob_seq, ob_bt, ob_ei;
-- all leaves compact but the last few (less than a compact leaf holds); a
-- fraction of the standard build
SELECT i AS index,
	   s.compact_leaf_pages > s.leaf_pages / 2 AND s.leaf_pages - s.compact_leaf_pages <= 10 AS mostly_compact,
	   s.entries, s.leaf_pages < 40 AS few_leaves
FROM unnest(ARRAY['ob_ei_k', 'ob_ei_d', 'ob_ei_t']) i, elastic_index_stats(i::regclass) s;
SELECT pg_relation_size('ob_ei_k') < pg_relation_size('ob_std_k') * 0.3 AS k_small,
	   pg_relation_size('ob_ei_d') < pg_relation_size('ob_std_d') * 0.5 AS d_small,
	   pg_relation_size('ob_ei_t') < pg_relation_size('ob_std_t') * 0.3 AS t_small,
	   pg_relation_size('ob_ei_k') < pg_relation_size('ob_bt_k') * 0.3 AS k_small_btree;
SELECT ei_check_all('ob');
SELECT * FROM ei_diff_col('ob', 'k', '1000', '41000');
SELECT * FROM ei_diff_col('ob', 'd', '300', '11000');
SELECT * FROM ei_diff_col('ob', 't', '''00001000''', '''00041000''');
SELECT ei_diff('ob', 'SELECT k, id FROM %I WHERE k = ANY (''{3, 7777, 25000, 39999, 49999, 99999}'')', false, '{index,bitmap}');
SELECT ei_diff('ob', 'SELECT d FROM %I WHERE d BETWEEN 5000 AND 5010 ORDER BY d DESC', true, '{index,indexonly}');
SELECT ei_diff('ob', 'SELECT t FROM %I WHERE t = ANY (''{00000003, 00025000, 00049999}'') ORDER BY t', true, '{index,indexonly}');
-- appends past the right edge, rows that arrived late (in compact leaves),
-- deletes and VACUUM
SELECT ei_exec('ob', 'INSERT INTO %I SELECT * FROM ob_src WHERE id > 50000 ORDER BY id');
SELECT ei_exec('ob', 'INSERT INTO %I SELECT id + 100000, k, d, t FROM ob_src WHERE id %% 13 = 0 AND id <= 50000');
SELECT ei_exec('ob', 'DELETE FROM %I WHERE id %% 7 = 0');
SELECT ei_exec('ob', 'DELETE FROM %I WHERE k BETWEEN 10000 AND 12000');
VACUUM ob_seq, ob_bt, ob_ei;
ANALYZE ob_seq, ob_bt, ob_ei;
SELECT ei_check_all('ob');
SELECT * FROM ei_diff_col('ob', 'k', '9000', '55000');
SELECT * FROM ei_diff_col('ob', 'd', '2000', '14000');
SELECT * FROM ei_diff_col('ob', 't', '''00009000''', '''00055000''');
-- REINDEX builds them again
REINDEX INDEX ob_ei_k;
REINDEX INDEX ob_ei_t;
SELECT i AS index,
	   s.compact_leaf_pages > s.leaf_pages / 2 AND s.leaf_pages - s.compact_leaf_pages <= 10 AS mostly_compact
FROM unnest(ARRAY['ob_ei_k', 'ob_ei_t']) i, elastic_index_stats(i::regclass) s;
SELECT ei_check_all('ob');
SELECT ei_diff('ob', 'SELECT k, id FROM %I WHERE k BETWEEN 30000 AND 30100', false, '{index,bitmap}');
SELECT ei_diff('ob', 'SELECT t FROM %I WHERE t >= ''00049000'' ORDER BY t DESC', true, '{index,indexonly}');
-- A parallel build loads the merged stream through the same loader: the
-- same leaves as the serial build (the build with every worker failing
-- shows that workers were launched)
SET max_parallel_maintenance_workers = 2;
SET min_parallel_table_scan_size = 0;
ALTER TABLE ob_ei SET (parallel_workers = 2);
SET elastic_index.debug_fault = in_build_worker;
\set VERBOSITY terse
CREATE INDEX ob_par_k ON ob_ei USING osm_tree (k) WITH (compact_leaves = on);
RESET elastic_index.debug_fault;
CREATE INDEX ob_par_k ON ob_ei USING osm_tree (k) WITH (compact_leaves = on);
CREATE INDEX ob_par_d ON ob_ei USING osm_tree (d) WITH (compact_leaves = on);
SELECT p.leaf_pages = s.leaf_pages AS same_leaves,
	   p.compact_leaf_pages = s.compact_leaf_pages AS same_compact,
	   p.entries = s.entries AS same_entries,
	   pg_relation_size('ob_par_k') = pg_relation_size('ob_ei_k') AS same_size
FROM elastic_index_stats('ob_par_k') p, elastic_index_stats('ob_ei_k') s;
SET max_parallel_maintenance_workers = 0;
REINDEX INDEX ob_ei_d;
SELECT p.compact_leaf_pages = s.compact_leaf_pages AND p.compact_leaf_pages > 0 AS same_compact_d
FROM elastic_index_stats('ob_par_d') p, elastic_index_stats('ob_ei_d') s;
RESET max_parallel_maintenance_workers;
RESET min_parallel_table_scan_size;
DROP INDEX ob_ei_k, ob_ei_d;
SELECT ei_check_all('ob');
SELECT * FROM ei_diff_col('ob', 'k', '9000', '55000');
SELECT ei_diff('ob', 'SELECT d FROM %I WHERE d BETWEEN 5000 AND 5010 ORDER BY d DESC', true, '{index,indexonly}');

-- the size model of hypothetical indexes counts the compact leaves bulk
-- appends write (src/README.md, "Hypothetical indexes")
SELECT elastic_index_hypothetical_reset();
SELECT indexrelid AS hyp_std
FROM elastic_index_hypothetical_create('CREATE INDEX ON oc_ei USING osm_tree (k)') \gset
SELECT indexrelid AS hyp_compact
FROM elastic_index_hypothetical_create('CREATE INDEX ON oc_ei USING osm_tree (k) WITH (compact_leaves = on)') \gset
SELECT c.compact_leaves > 0 AS compact_modeled, s.compact_leaves AS standard_compact,
	   c.total_pages < s.total_pages * 0.5 AS compact_smaller
FROM elastic_index_hypothetical_estimate(:hyp_compact) c,
	 elastic_index_hypothetical_estimate(:hyp_std) s;
SELECT elastic_index_hypothetical_reset();

-- Indexes that cannot have compact leaves: refused at CREATE INDEX and at
-- ALTER INDEX ... SET (and, if an older version let ALTER INDEX set it, at
-- the first insert)
CREATE TABLE oc_other (n numeric, k int8, t text COLLATE "C");
INSERT INTO oc_other SELECT g, g, g::text FROM generate_series(1, 100) g;
\set VERBOSITY default
CREATE INDEX oc_num ON oc_other USING osm_tree (n) WITH (compact_leaves = on);
CREATE INDEX oc_expr ON oc_other USING osm_tree ((k + 1)) WITH (compact_leaves = on);
SELECT * FROM elastic_index_hypothetical_create('CREATE INDEX ON oc_other USING osm_tree (n) WITH (compact_leaves = on)');
CREATE INDEX oc_num ON oc_other USING osm_tree (n);
ALTER INDEX oc_num SET (compact_leaves = on);
INSERT INTO oc_other VALUES (101, 101, '101');
\set VERBOSITY terse
-- ALTER INDEX ... SET (or ALTER TABLE on the index) is refused whole (else
-- REINDEX, a rebuild by ALTER TABLE ... TYPE and a dump's restore would
-- fail), with entries in the insert buffer, which still reach the tree
SET osm_tree.top_inserts = off;
INSERT INTO oc_other VALUES (102, 102, '102');
SELECT entries FROM osm_tree_buffer_stats('oc_num');
ALTER INDEX oc_num SET (compact_leaves = on);
ALTER TABLE oc_num SET (compact_leaves = on, fillfactor = 80);
ALTER INDEX oc_num SET (fillfactor = 80);
INSERT INTO oc_other VALUES (103, 103, '103');
BEGIN;
INSERT INTO oc_other SELECT g, g, g::text FROM generate_series(104, 110) g;
COMMIT;
VACUUM oc_other;
SELECT entries FROM osm_tree_buffer_stats('oc_num');
SELECT elastic_index_check('oc_num', true);
SELECT count(*) FROM oc_other;
REINDEX INDEX oc_num;
SELECT pg_get_indexdef('oc_num'::regclass);
RESET osm_tree.top_inserts;
-- text under C can
CREATE INDEX oc_text ON oc_other USING osm_tree (t) WITH (compact_leaves = on);
SELECT elastic_index_check('oc_text', true);
-- elastic_btree does not know the option
CREATE INDEX oc_eb ON oc_other USING elastic_btree (k) WITH (compact_leaves = on);

SET client_min_messages = warning;
DROP SCHEMA ei_osm_compact CASCADE;
-- the next file creates the extension afresh
DROP EXTENSION elastic_index CASCADE;
RESET client_min_messages;
RESET search_path;
