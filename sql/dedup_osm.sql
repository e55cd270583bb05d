CREATE EXTENSION IF NOT EXISTS elastic_index;
-- everything this file creates lives in its own schema
SET client_min_messages = warning;
DROP SCHEMA IF EXISTS ei_dedup_osm CASCADE;
CREATE SCHEMA ei_dedup_osm;
SET search_path = ei_dedup_osm, public;
RESET client_min_messages;
\i test/sql/differential_harness.sql
--
-- Posting lists in osm_tree (src/README.md, "Posting lists"): the
-- deduplicate_items reloption, CREATE INDEX writing lists, sorted batches
-- appending lists at the right edge, batches and the insert buffer's flush
-- meeting lists (posting splits, entries found inside lists), the dedup
-- pass of a full leaf.  The same queries through osm_tree, btree and a
-- sequential scan; every scan kind.
--
SET ei_test.am = 'osm_tree';
SELECT setseed(0.5);
-- rows in id order have ascending k and t (a right-edge load); k: int8,
-- 20 rows a key; s: int4, 10 values; c: 3 values (heavy duplication); t:
-- text COLLATE "C", 30 rows a key; n: numeric (never deduplicated); u:
-- unique, scattered
CREATE TABLE do_src AS
SELECT g AS id, (g / 20)::int8 AS k, (g % 10)::int4 AS s, (g % 3)::int4 AS c,
	   ('key-' || lpad((g / 30)::text, 6, '0')) COLLATE "C" AS t,
	   (g / 20)::numeric AS n, (g * 7919) % 40009 AS u
FROM generate_series(1, 40000) AS g;
SELECT ei_setup('do', 'do_src', 15000);
SELECT ei_index('do', 'k', '(k) WITH (deduplicate_items = on)');
SELECT ei_index('do', 's', '(s) WITH (deduplicate_items = on)');
SELECT ei_index('do', 'c', '(c) WITH (deduplicate_items = on)');
SELECT ei_index('do', 't', '(t) WITH (deduplicate_items = on)');
SELECT ei_index('do', 'n', '(n) WITH (deduplicate_items = on)');
SELECT ei_index('do', 'u', '(u) WITH (deduplicate_items = on)');
SELECT ei_index('do', 'sk', '(s, k DESC) WITH (deduplicate_items = on)');
VACUUM ANALYZE do_seq, do_bt;
ANALYZE do_ei;
SELECT ei_check_all('do');

-- the option is stored and shown (unset: osm_tree.deduplicate_items); the metapage says
-- whether lists may exist (format version 3) once the index is built
CREATE INDEX do_plain_k ON do_seq USING osm_tree (k) WITH (deduplicate_items = off);
CREATE INDEX do_plain_n ON do_seq USING osm_tree (n) WITH (deduplicate_items = off);
SELECT c.relname, c.reloptions FROM pg_class c
WHERE c.relname IN ('do_ei_k', 'do_plain_k') ORDER BY 1;
SELECT i AS index, (SELECT format_version FROM elastic_index_stats(i)) AS format_version
FROM unnest(ARRAY['do_ei_k', 'do_ei_n', 'do_ei_u', 'do_plain_k']::regclass[]) AS i;
-- lists shrink the index on repeated keys; numeric keys (no equal image)
-- are as large as without the option
SELECT pg_relation_size('do_ei_k') < pg_relation_size('do_plain_k') / 2 AS k_smaller,
	   pg_relation_size('do_ei_k') <= pg_relation_size('do_bt_k') * 1.1 AS k_near_btree,
	   pg_relation_size('do_ei_n') = pg_relation_size('do_plain_n') AS n_same;
-- an INCLUDE column turns lists off (as in btree)
CREATE INDEX do_incl ON do_seq USING osm_tree (k) INCLUDE (u) WITH (deduplicate_items = on);
CREATE INDEX do_noincl ON do_seq USING osm_tree (k) INCLUDE (u);
SELECT pg_relation_size('do_incl') = pg_relation_size('do_noincl') AS include_not_deduplicated;
DROP INDEX do_incl, do_noincl, do_plain_n;

-- every scan kind over the lists
SELECT * FROM ei_diff_col('do', 'k', '100', '600');
SELECT * FROM ei_diff_col('do', 't', '''key-000100''', '''key-000400''');
SELECT ei_diff('do', 'SELECT id FROM %I WHERE s = 4', false, '{index,bitmap,parallel}');
SELECT ei_diff('do', 'SELECT count(*) FROM %I WHERE c = 1', false, '{indexonly,bitmap}');
SELECT ei_diff('do', 'SELECT s, k FROM %I WHERE s = 2 AND k > 300 ORDER BY s, k DESC', true, '{index}');
SELECT ei_diff('do', 'SELECT k, id FROM %I WHERE k = ANY (''{3, 77, 500, 749}'')', false, '{index,bitmap}');
SELECT ei_diff('do', 'SELECT k FROM %I WHERE k = ANY (''{3, 77, 500, 749}'') ORDER BY k DESC', true, '{index,indexonly}');

-- Growth by sorted batches: rows in id order come after every key, so the
-- batch appends whole leaves at the right edge, grouping equal keys into
-- lists as the build does; s and c take their rows in the middle of the
-- tree (posting splits, dedup passes of full leaves).  Without the insert
-- buffer first, then with it.
SET osm_tree.buffer_size = 0;
SELECT ei_exec('do', 'INSERT INTO %I SELECT * FROM do_src WHERE id > 15000 AND id <= 28000 ORDER BY id');
RESET osm_tree.buffer_size;
-- the same by COPY (the batch path too), with the insert buffer on
SELECT current_setting('data_directory') || '/ei_dedup_osm.copy' AS copyfile \gset
COPY (SELECT * FROM do_src WHERE id > 28000 AND id <= 39000 ORDER BY id) TO :'copyfile';
SELECT ei_exec('do', format('COPY %%I FROM %L', :'copyfile'));
ANALYZE do_seq, do_bt, do_ei;
SELECT ei_check_all('do');
SELECT pg_relation_size('do_ei_k') <= pg_relation_size('do_bt_k') * 1.2 AS k_grown_near_btree,
	   pg_relation_size('do_ei_t') <= pg_relation_size('do_bt_t') * 1.2 AS t_grown_near_btree,
	   pg_relation_size('do_ei_c') <= pg_relation_size('do_bt_c') * 1.5 AS c_grown_near_btree;
SELECT (SELECT entries FROM elastic_index_stats('do_ei_k')) AS k_entries,
	   (SELECT entries FROM elastic_index_stats('do_ei_c')) AS c_entries;
SELECT * FROM ei_diff_col('do', 'k', '100', '1800');
SELECT * FROM ei_diff_col('do', 't', '''key-000100''', '''key-001200''');
SELECT * FROM ei_diff_col('do', 's', '3', '7');
SELECT ei_diff('do', 'SELECT id FROM %I WHERE c = 2', false, '{index,bitmap,parallel}');
SELECT ei_diff('do', 'SELECT s, k FROM %I WHERE s = 2 AND k > 1000 ORDER BY s, k DESC', true, '{index}');
SELECT ei_diff('do', 'SELECT k, id FROM %I WHERE k = ANY (''{3, 777, 1500, 1949}'')', false, '{index,bitmap}');

-- backward scroll cursors move item by item inside a list
SET enable_seqscan = off;
SET enable_bitmapscan = off;
BEGIN;
DECLARE cur SCROLL CURSOR FOR SELECT k, id FROM do_ei WHERE k BETWEEN 1500 AND 1502 ORDER BY k DESC;
FETCH 3 FROM cur;
FETCH BACKWARD 2 FROM cur;
FETCH ABSOLUTE 25 FROM cur;
MOVE FORWARD ALL FROM cur;
FETCH BACKWARD 3 FROM cur;
COMMIT;
RESET enable_seqscan;
RESET enable_bitmapscan;

-- Small batches go to the insert buffer (with osm_tree.top_inserts off),
-- which keeps plain entries (the verifier says so); scans merge them with
-- the lists, and the flush puts them in the tree
SET osm_tree.top_inserts = off;
SELECT ei_exec('do', 'INSERT INTO %I SELECT id + 40000, k, s, c, t, n, u + 40009 FROM do_src WHERE id %% 97 = 0 AND id <= 3000');
SELECT ei_exec('do', 'INSERT INTO %I SELECT * FROM do_src WHERE id > 39000 ORDER BY id');
SELECT entries FROM osm_tree_buffer_stats('do_ei_k');
SELECT ei_check_all('do');
SELECT * FROM ei_diff_col('do', 'k', '10', '1900');
SELECT ei_diff('do', 'SELECT id FROM %I WHERE c = 0', false, '{index,bitmap}');
-- an interrupted flush (it stops after inserting the entries into the
-- tree, most as lists on leaves appended at the right edge) leaves them in
-- the buffer and the tree; the next flush finds them there, inside the
-- lists, and adds nothing twice
SET elastic_index.debug_fault = 'after_flush_insert';
SELECT osm_tree_flush('do_ei_k');
RESET elastic_index.debug_fault;
SELECT entries AS still_buffered FROM osm_tree_buffer_stats('do_ei_k');
SELECT ei_diff('do', 'SELECT k, id FROM %I WHERE k >= 1940', false, '{index,bitmap}');
SELECT ei_diff('do', 'SELECT k FROM %I WHERE k >= 1940 ORDER BY k DESC', true, '{index,indexonly}');
SELECT osm_tree_flush('do_ei_k') >= 0 AS flushed;
SELECT entries FROM osm_tree_buffer_stats('do_ei_k');
SELECT ei_check_all('do');
SELECT ei_diff('do', 'SELECT k, id FROM %I WHERE k >= 1940', false, '{index,bitmap}');
SELECT ei_diff('do', 'SELECT k FROM %I WHERE k >= 1940 ORDER BY k DESC', true, '{index,indexonly}');
SELECT (SELECT entries FROM elastic_index_stats('do_ei_k')) = (SELECT count(*) FROM do_ei) AS k_entries_once;
RESET osm_tree.top_inserts;

-- Churn: deletes, updates (new TIDs, some inside lists' ranges once
-- VACUUM has freed heap space) and VACUUM rewriting lists
SELECT ei_exec('do', 'DELETE FROM %I WHERE u %% 3 = 0 OR t = ''key-000333''');
VACUUM do_seq, do_bt, do_ei;
SELECT ei_check_all('do');
SELECT * FROM ei_diff_col('do', 'k', '100', '1500');
SELECT * FROM ei_diff_col('do', 't', '''key-000300''', '''key-000400''');
SELECT ei_exec('do', 'INSERT INTO %I SELECT * FROM do_src WHERE u %% 3 = 0 AND id <= 39000 ORDER BY id');
SELECT ei_exec('do', 'UPDATE %I SET s = s + 1, c = c + 1 WHERE u %% 7 = 1');
ANALYZE do_seq, do_bt, do_ei;
SELECT ei_check_all('do');
SELECT * FROM ei_diff_col('do', 'k', '100', '1500');
SELECT * FROM ei_diff_col('do', 's', '3', '7');
SELECT ei_diff('do', 'SELECT id FROM %I WHERE c = 2', false, '{index,bitmap,parallel}');
SELECT ei_diff('do', 'SELECT s, k FROM %I WHERE s = 2 AND k > 1000 ORDER BY s, k DESC', true, '{index}');
SELECT ei_exec('do', 'DELETE FROM %I WHERE u %% 5 = 0');
VACUUM do_seq, do_bt, do_ei;
SELECT ei_check_all('do');
SELECT * FROM ei_diff_col('do', 'k', '100', '1500');
SELECT ei_diff('do', 'SELECT count(*) FROM %I WHERE c = 1', false, '{indexonly,bitmap}');

-- Direct inserts at the right edge (osm_tree.top_inserts, single rows):
-- a full rightmost leaf gets the dedup pass before it splits
CREATE TABLE do_top (id int4, k int8);
CREATE INDEX do_top_k ON do_top USING osm_tree (k) WITH (deduplicate_items = on);
CREATE INDEX do_top_k_plain ON do_top USING osm_tree (k) WITH (deduplicate_items = off);
SET osm_tree.batch_size = 1;
DO $$
BEGIN
	FOR i IN 1 .. 6000 LOOP
		INSERT INTO do_top VALUES (i, i / 500);
	END LOOP;
END
$$;
RESET osm_tree.batch_size;
SELECT elastic_index_check('do_top_k', true);
SELECT pg_relation_size('do_top_k') < pg_relation_size('do_top_k_plain') * 0.6 AS top_smaller,
	   (SELECT entries FROM elastic_index_stats('do_top_k')) AS entries,
	   (SELECT format_version FROM elastic_index_stats('do_top_k')) AS format_version;
SET enable_seqscan = off;
SET enable_bitmapscan = off;
SELECT count(*), sum(id) FROM do_top WHERE k BETWEEN 1 AND 10;
RESET enable_seqscan;
RESET enable_bitmapscan;

-- Sorted batches into the middle of the tree: 10 keys, each batch's rows
-- go to the end of every key's run.  A full leaf is deduplicated before it
-- splits, and the split falls at the end of the key's run (or between the
-- keys, the run on the left), not where the batch's plain entries would
-- leave the left page at the fill factor, never deduplicated
CREATE TABLE do_mid (g int4, k int4);
CREATE INDEX do_mid_k ON do_mid USING osm_tree (k) WITH (deduplicate_items = on);
CREATE INDEX do_mid_k_bt ON do_mid USING btree (k);
INSERT INTO do_mid SELECT g, g % 10 FROM generate_series(1, 40000) g;
INSERT INTO do_mid SELECT g, g % 10 FROM generate_series(40001, 80000) g;
INSERT INTO do_mid SELECT g, g % 10 FROM generate_series(80001, 120000) g;
SELECT pg_relation_size('do_mid_k') <= pg_relation_size('do_mid_k_bt') * 1.15 AS mid_near_btree,
	   (SELECT entries FROM elastic_index_stats('do_mid_k')) AS entries;
SELECT elastic_index_check('do_mid_k', true);
SET enable_seqscan = off;
SET enable_bitmapscan = off;
SELECT k, count(*), sum(g) FROM do_mid GROUP BY k ORDER BY k DESC LIMIT 3;
RESET enable_seqscan;
RESET enable_bitmapscan;
SELECT k, count(*), sum(g) FROM do_mid GROUP BY k ORDER BY k DESC LIMIT 3;

-- keys that come back in later sorted passes (a second row per key): the
-- run-end split between keys applies only when the batch goes on with the
-- new entry's key, else each pass would cut every leaf at the batch's
-- first entry (a review's reproduction: 1.33x the pages without lists)
CREATE TABLE do_pass_on (k int4);
CREATE TABLE do_pass_off (k int4);
CREATE INDEX do_pass_on_k ON do_pass_on USING osm_tree (k) WITH (deduplicate_items = on);
CREATE INDEX do_pass_off_k ON do_pass_off USING osm_tree (k) WITH (deduplicate_items = off);
INSERT INTO do_pass_on SELECT g FROM generate_series(1, 40000) g;
INSERT INTO do_pass_off SELECT g FROM generate_series(1, 40000) g;
INSERT INTO do_pass_on SELECT g FROM generate_series(1, 40000) g;
INSERT INTO do_pass_off SELECT g FROM generate_series(1, 40000) g;
SELECT pg_relation_size('do_pass_on_k') <= pg_relation_size('do_pass_off_k') AS passes_no_larger;
SELECT elastic_index_check('do_pass_on_k', true);
SELECT count(*) FROM do_pass_on WHERE k BETWEEN 100 AND 199;
DROP TABLE do_pass_on, do_pass_off;

-- ALTER INDEX ... SET turns lists on for an index built without: the
-- first insert raises the format version, batches then write lists
CREATE TABLE do_alter (id int4, k int8);
INSERT INTO do_alter SELECT g, g / 50 FROM generate_series(1, 5000) g;
CREATE INDEX do_alter_k ON do_alter USING osm_tree (k) WITH (deduplicate_items = off);
CREATE INDEX do_alter_k_plain ON do_alter USING osm_tree (k) WITH (deduplicate_items = off);
SELECT format_version FROM elastic_index_stats('do_alter_k');
ALTER INDEX do_alter_k SET (deduplicate_items = on);
SELECT format_version FROM elastic_index_stats('do_alter_k');
INSERT INTO do_alter SELECT g, g / 50 FROM generate_series(5001, 20000) g;
SELECT format_version, entries FROM elastic_index_stats('do_alter_k');
SELECT pg_relation_size('do_alter_k') < pg_relation_size('do_alter_k_plain') * 0.6 AS alter_smaller;
SELECT elastic_index_check('do_alter_k', true);
SET enable_seqscan = off;
SET enable_bitmapscan = off;
SELECT count(*), sum(id) FROM do_alter WHERE k BETWEEN 90 AND 310;
RESET enable_seqscan;
RESET enable_bitmapscan;
SELECT count(*), sum(id) FROM do_alter WHERE k BETWEEN 90 AND 310;

SET client_min_messages = warning;
DROP SCHEMA ei_dedup_osm CASCADE;
-- the next file creates the extension afresh
DROP EXTENSION elastic_index CASCADE;
RESET client_min_messages;
RESET search_path;
