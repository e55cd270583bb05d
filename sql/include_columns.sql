CREATE EXTENSION IF NOT EXISTS elastic_index;
-- everything this file creates lives in its own schema
SET client_min_messages = warning;
DROP SCHEMA IF EXISTS ei_incl CASCADE;
CREATE SCHEMA ei_incl;
SET search_path = ei_incl, public;
RESET client_min_messages;
\i test/sql/differential_harness.sql
--
-- INCLUDE columns (src/README.md, "Items"; docs/user-guide.md): both access
-- methods store them in leaf entries, compare and order by the key columns
-- only, and cut them from every pivot (high keys, downlinks), so index-only
-- scans return them as btree's do.  Each data set lives in three tables
-- (differential harness): the same INCLUDE indexes with btree and with
-- elastic_btree (then osm_tree), and none (the reference).
--
-- Commits are flushed at once, so that VACUUM can mark the heap pages all
-- visible (it cannot while an inserting transaction's commit record is
-- still unflushed) and index-only scans show no heap fetches.
SET synchronous_commit = on;

-- EXPLAIN ANALYZE of an index-only scan, printed alike on every version:
-- the scan node (with its row count, whole), its conditions and heap
-- fetches (18 adds decimals to row counts, index searches and buffers)
CREATE FUNCTION ic_explain(query text) RETURNS SETOF text LANGUAGE plpgsql AS $$
DECLARE
	line		text;
BEGIN
	FOR line IN EXECUTE 'EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) ' || query LOOP
		CONTINUE WHEN line ~ '^\s*(Index Searches|Buffers|Planning|Execution):';
		RETURN NEXT regexp_replace(line, 'rows=([0-9]+)(\.[0-9]+)? loops', 'rows=\1 loops');
	END LOOP;
END $$;

-- 1. What is refused, and what works as with btree
CREATE TABLE ic_err (k int4, v int4, t text);
CREATE UNIQUE INDEX ic_err_u ON ic_err USING elastic_btree (k) INCLUDE (v);
\echo :LAST_ERROR_SQLSTATE
CREATE INDEX ic_err_x ON ic_err USING elastic_btree (k) INCLUDE (lower(t));
\echo :LAST_ERROR_SQLSTATE
CREATE INDEX ic_err_d ON ic_err USING osm_tree (k) INCLUDE (v DESC);
\echo :LAST_ERROR_SQLSTATE
-- an included column's bytes count toward the entry size limit, with the
-- same error as an oversized key (random CJK text does not compress)
SELECT setseed(0.21);
CREATE INDEX ic_err_kt ON ic_err USING elastic_btree (k) INCLUDE (t);
CREATE INDEX ic_err_ot ON ic_err USING osm_tree (k) INCLUDE (v, t);
INSERT INTO ic_err SELECT 1, 1, string_agg(chr(19968 + floor(random() * 20000)::int), '')
FROM generate_series(1, 1000);
\echo :LAST_ERROR_SQLSTATE
DROP INDEX ic_err_kt;
INSERT INTO ic_err SELECT 2, 2, string_agg(chr(19968 + floor(random() * 20000)::int), '')
FROM generate_series(1, 1000);
\echo :LAST_ERROR_SQLSTATE
DROP INDEX ic_err_ot;
INSERT INTO ic_err SELECT 3, 3, string_agg(chr(19968 + floor(random() * 20000)::int), '')
FROM generate_series(1, 1000);
CREATE INDEX ic_err_kt ON ic_err USING elastic_btree (k) INCLUDE (t);
\echo :LAST_ERROR_SQLSTATE
-- exclusion constraints with INCLUDE columns, for both access methods
CREATE TABLE ic_excl (k int4, v int4, w text,
	EXCLUDE USING elastic_btree (k WITH =) INCLUDE (v, w));
CREATE TABLE ic_excl_osm (k int4, v int4,
	EXCLUDE USING osm_tree (k WITH =) INCLUDE (v));
INSERT INTO ic_excl SELECT g, g, 'w' || g FROM generate_series(1, 2000) g;
INSERT INTO ic_excl_osm SELECT g, g FROM generate_series(1, 2000) g;
INSERT INTO ic_excl VALUES (1500, 0, 'again');
\echo :LAST_ERROR_SQLSTATE
INSERT INTO ic_excl_osm VALUES (1500, 0);
\echo :LAST_ERROR_SQLSTATE
\d ic_excl
SELECT elastic_index_check('ic_excl_k_v_w_excl', true);
SELECT elastic_index_check('ic_excl_osm_k_v_excl', true);
DROP TABLE ic_err, ic_excl, ic_excl_osm;

-- 2. Pivots hold the key columns only.  Entries of about 1 kB (an int4 key
-- and an incompressible text) fill a leaf with seven; built and inserted
-- row by row, the leaves' high keys and downlinks stay 24 bytes, so a
-- few inner pages hold all of them (pivots with the text would take four
-- more levels).
CREATE TABLE ic_wide (k int4, t text);
INSERT INTO ic_wide SELECT g, string_agg(chr(19968 + ((g * 7919 + i * 104729) % 20000)), '')
FROM generate_series(1, 6000) g, generate_series(1, 330) i GROUP BY g;
CREATE INDEX ic_wide_e ON ic_wide USING elastic_btree (k) INCLUDE (t);
CREATE TABLE ic_wide2 (k int4, t text);
CREATE INDEX ic_wide2_e ON ic_wide2 USING elastic_btree (k) INCLUDE (t);
CREATE INDEX ic_wide2_o ON ic_wide2 USING osm_tree (k) INCLUDE (t)
	WITH (buffer_size = 0, batch_size = 1);
INSERT INTO ic_wide2 SELECT * FROM ic_wide ORDER BY (k * 7919) % 6001;
SELECT c.relname, s.height, s.leaf_pages > 700 AS many_leaves,
	   s.inner_pages <= 8 AS few_inner_pages,
	   s.entries
FROM pg_class AS c, elastic_index_stats(c.oid) AS s
WHERE c.relname IN ('ic_wide_e', 'ic_wide2_e', 'ic_wide2_o') ORDER BY 1;
SELECT elastic_index_check('ic_wide_e', true);
SELECT elastic_index_check('ic_wide2_e', true);
SELECT elastic_index_check('ic_wide2_o', true);
SELECT count(*), count(DISTINCT t) FROM ic_wide2 WHERE k BETWEEN 1000 AND 2000;
-- a build whose entries outgrow maintenance_work_mem sorts them on disk,
-- INCLUDE columns carried along
SET maintenance_work_mem = '1MB';
CREATE INDEX ic_wide_s ON ic_wide USING elastic_btree (k DESC) INCLUDE (t);
RESET maintenance_work_mem;
SELECT elastic_index_check('ic_wide_s', true);
SET enable_seqscan = off;
SET enable_bitmapscan = off;
EXPLAIN (COSTS OFF) SELECT k, t FROM ic_wide WHERE k > 3000 ORDER BY k DESC;
SELECT md5(string_agg(k || t, ',' ORDER BY k DESC)) AS through_index
FROM (SELECT k, t FROM ic_wide WHERE k > 3000 ORDER BY k DESC) AS x \gset
RESET enable_seqscan;
RESET enable_bitmapscan;
SELECT md5(string_agg(k || t, ',' ORDER BY k DESC)) = :'through_index' AS same
FROM ic_wide WHERE k > 3000;
SELECT (SELECT md5(string_agg(t, ',' ORDER BY k)) FROM ic_wide) =
	   (SELECT md5(string_agg(t, ',' ORDER BY k)) FROM ic_wide2) AS same_texts;
DROP TABLE ic_wide, ic_wide2;

-- 3. Differential: key columns with NULLs and duplicates, INCLUDE columns
-- with NULLs, text of every length (a few values long enough to be
-- compressed, and toasted out of line in the heap) and a multi-column key.
SELECT setseed(0.42);
CREATE TABLE ic_src (id int4, k int4, j int4, a int4, t text, u uuid);
ALTER TABLE ic_src ALTER t SET STORAGE EXTERNAL;
INSERT INTO ic_src
WITH r AS MATERIALIZED (
	SELECT g AS id, random() AS r0, random() AS r1, random() AS r2, random() AS r3
	FROM generate_series(1, 30000) AS g)
SELECT id,
	CASE WHEN r0 < 0.02 THEN NULL ELSE floor(r1 * 8000)::int4 END AS k,
	floor(r2 * 50)::int4 AS j,
	CASE WHEN r3 < 0.1 THEN NULL ELSE floor(r3 * 100000)::int4 END AS a,
	CASE WHEN r0 > 0.95 THEN NULL
		 WHEN r0 > 0.9 THEN repeat(md5(id::text), 80)
		 ELSE left(md5(r2::text), floor(r1 * 32)::int) END AS t,
	md5(id::text)::uuid AS u
FROM r;
SELECT ei_setup('ic', 'ic_src', 15000);
-- the long texts are out of line in the heap (2560 bytes, uncompressed)
SELECT count(*) FILTER (WHERE pg_column_size(t) = 2560) > 500 AS toasted
FROM ic_ei;
SELECT ei_index('ic', 'k', '(k, id) INCLUDE (a, t)');
SELECT ei_index('ic', 'jk', '(j DESC, a NULLS FIRST) INCLUDE (u, k, id)');
SELECT ei_index('ic', 'u', '(u) INCLUDE (t)');
VACUUM ANALYZE ic_seq, ic_bt, ic_ei;
\d ic_ei

CREATE OR REPLACE FUNCTION ic_queries(vacuumed bool DEFAULT true)
RETURNS TABLE (query text, result text)
LANGUAGE plpgsql AS $fn$
DECLARE
	q			text;
	o			bool;
	m			text[];
BEGIN
	FOR q, o, m IN VALUES
		('SELECT k, id, a, t FROM %I WHERE k BETWEEN 1000 AND 2500 ORDER BY k, id', true, '{index,indexonly}'::text[]),
		('SELECT k, id, a, t FROM %I WHERE k > 7500 ORDER BY k DESC, id DESC', true, '{index,indexonly}'),
		('SELECT k, id, a, t FROM %I WHERE k = 4321', false, '{index,indexonly,bitmap}'),
		('SELECT k, id, a FROM %I WHERE k < 300 AND a > 50000', false, '{index,indexonly,bitmap}'),
		('SELECT id, a, t FROM %I WHERE k IS NULL', false, '{index,indexonly,bitmap}'),
		('SELECT count(*), count(a), count(t), sum(length(t)) FROM %I WHERE k >= 0', false, '{index,bitmap}'),
		('SELECT k, id, md5(t) FROM %I WHERE k BETWEEN 100 AND 1500', false, '{index,indexonly}'),
		('SELECT j, k, u, a, id FROM %I WHERE j = 17 AND a > 20000', false, '{index,indexonly,bitmap}'),
		('SELECT j, k, a FROM %I WHERE j BETWEEN 10 AND 12 AND k < 2000 AND a IS NULL', false, '{index,indexonly,bitmap}'),
		('SELECT u, t FROM %I WHERE u < ''20000000-0000-0000-0000-000000000000''', false, '{index,indexonly}'),
		('SELECT u, t FROM %I WHERE u = ''c4ca4238-a0b9-2382-0dcc-509a6f75849b''', false, '{index,indexonly,bitmap}'),
		('SELECT min(k), max(k), min(j), max(j) FROM %I', true, '{index,indexonly}'),
		('SELECT k, id, a, t FROM %I WHERE k BETWEEN 2000 AND 6000', false, '{parallel}')
	LOOP
		IF NOT vacuumed THEN
			m := array_remove(m, 'indexonly');
		END IF;
		query := q;
		result := ei_diff('ic', q, o, m);
		RETURN NEXT;
	END LOOP;
END
$fn$;
SELECT * FROM ic_queries();
SELECT ei_check_all('ic');
-- covering: no heap fetches once VACUUM has set the visibility map
SET enable_seqscan = off;
SET enable_bitmapscan = off;
SELECT * FROM ic_explain('SELECT k, id, a, t FROM ic_ei WHERE k BETWEEN 1000 AND 1100');
SELECT * FROM ic_explain('SELECT j, k, a FROM ic_ei WHERE j = 3 AND a > 1000');
-- a condition on an INCLUDE column filters index entries, no heap fetch
SELECT * FROM ic_explain('SELECT k, id, a FROM ic_ei WHERE k BETWEEN 1000 AND 1100 AND a > 50000');
RESET enable_seqscan;
RESET enable_bitmapscan;
SELECT s.height >= 2 AS has_inner_levels, s.entries
FROM elastic_index_stats('ic_ei_k') AS s;

-- the other half: inserts split leaves and inner pages
SELECT ei_exec('ic', 'INSERT INTO %I SELECT * FROM ic_src WHERE id > 15000 ORDER BY k');
VACUUM ANALYZE ic_seq, ic_bt, ic_ei;
SELECT * FROM ic_queries();
SELECT ei_check_all('ic');

-- updates of included columns only (not HOT: every indexed column counts),
-- of keys, deletes; then VACUUM
SELECT ei_exec('ic', 'UPDATE %I SET a = coalesce(a, 0) + 1, t = t || ''x'' WHERE id %% 5 = 0');
SELECT ei_exec('ic', 'UPDATE %I SET a = NULL WHERE id %% 11 = 0');
SELECT ei_exec('ic', 'UPDATE %I SET k = k + 1 WHERE id %% 7 = 0');
SELECT ei_exec('ic', 'DELETE FROM %I WHERE id %% 3 = 0');
SELECT * FROM ic_queries(false);
SELECT ei_check_all('ic');
VACUUM ic_seq, ic_bt, ic_ei;
SELECT * FROM ic_queries();
SELECT ei_check_all('ic');

-- 4. Compact leaves (elastic_btree): the leaves keep no keys; index-only
-- scans read key and INCLUDE columns from the heap (toasted ones with the
-- leaf unlocked), and expansion rebuilds whole entries from the heap.
SELECT c.relname, elastic_btree_shrink(c.oid) > 0 AS shrunk
FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
WHERE i.indrelid = 'ic_ei'::regclass ORDER BY 1;
SELECT c.relname, s.compact_leaf_pages = s.leaf_pages AS all_compact
FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid,
	 LATERAL elastic_index_stats(c.oid) AS s
WHERE i.indrelid = 'ic_ei'::regclass ORDER BY 1;
SELECT * FROM ic_queries();
SELECT ei_check_all('ic');
SET enable_seqscan = off;
SET enable_bitmapscan = off;
SELECT * FROM ic_explain('SELECT k, id, a, t FROM ic_ei WHERE k BETWEEN 1000 AND 1100');
RESET enable_seqscan;
RESET enable_bitmapscan;
-- inserts into compact leaves, which split (their high keys are formed
-- from heap tuples, key columns only), updates and deletes, VACUUM
SELECT ei_exec('ic', 'INSERT INTO %I SELECT id + 100000, k, j, a, t, u FROM ic_src WHERE id %% 2 = 0 ORDER BY k');
SELECT ei_exec('ic', 'UPDATE %I SET a = a + 7, t = ''y'' || t WHERE id %% 13 = 0');
SELECT ei_exec('ic', 'DELETE FROM %I WHERE id %% 17 = 0');
SELECT * FROM ic_queries(false);
SELECT ei_check_all('ic');
VACUUM ANALYZE ic_seq, ic_bt, ic_ei;
SELECT c.relname, s.compact_leaf_pages > 0 AS has_compact
FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid,
	 LATERAL elastic_index_stats(c.oid) AS s
WHERE i.indrelid = 'ic_ei'::regclass ORDER BY 1;
SELECT * FROM ic_queries();
SELECT ei_check_all('ic');
-- back to standard leaves: whole entries, INCLUDE columns too
SELECT c.relname, elastic_btree_expand(c.oid) > 0 AS expanded
FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
WHERE i.indrelid = 'ic_ei'::regclass ORDER BY 1;
SELECT c.relname, s.compact_leaf_pages AS compact
FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid,
	 LATERAL elastic_index_stats(c.oid) AS s
WHERE i.indrelid = 'ic_ei'::regclass ORDER BY 1;
SELECT * FROM ic_queries();
SELECT ei_check_all('ic');

-- Entries whose heap tuples are dead but not yet vacuumed, with INCLUDE
-- values toasted out of line that the TOAST table has already lost (its
-- own VACUUM, or pruning, removes the chunks of deleted values): scans,
-- the verifier and expansion of compact leaves skip them rather than fail
-- with "missing chunk number 0 for toast value".
CREATE TABLE ic_toast (k int4, t text);
ALTER TABLE ic_toast ALTER t SET STORAGE EXTERNAL;
INSERT INTO ic_toast SELECT g, repeat(md5(g::text), 80) FROM generate_series(1, 2000) g;
CREATE INDEX ic_toast_k ON ic_toast USING elastic_btree (k) INCLUDE (t);
VACUUM ANALYZE ic_toast;
SELECT elastic_btree_shrink('ic_toast_k') > 0 AS shrunk;
UPDATE ic_toast SET t = 'short' || k WHERE k % 3 = 0;
DELETE FROM ic_toast WHERE k % 5 = 0;
SELECT format('VACUUM %s', reltoastrelid::regclass) AS vacuum_toast
FROM pg_class WHERE relname = 'ic_toast' \gset
:vacuum_toast;
SET enable_seqscan = off;
SET enable_bitmapscan = off;
EXPLAIN (COSTS OFF) SELECT k, t FROM ic_toast WHERE k BETWEEN 100 AND 1900;
SELECT count(*), md5(string_agg(k || t, ',' ORDER BY k)) AS through_index
FROM ic_toast WHERE k BETWEEN 100 AND 1900 \gset
RESET enable_seqscan;
RESET enable_bitmapscan;
SELECT count(*) = :count AS same_count,
	   md5(string_agg(k || t, ',' ORDER BY k)) = :'through_index' AS same_rows
FROM ic_toast WHERE k BETWEEN 100 AND 1900;
SELECT elastic_index_check('ic_toast_k', true);
SELECT elastic_btree_expand('ic_toast_k') > 0 AS expanded;
SELECT elastic_index_check('ic_toast_k', true);
DROP TABLE ic_toast;

-- a size bound small enough to make leaves compact as the index grows
CREATE TABLE ic_bound (k int8, a int4, t text);
CREATE INDEX ic_bound_k ON ic_bound USING elastic_btree (k) INCLUDE (a, t)
	WITH (size_bound = '16');
INSERT INTO ic_bound SELECT g, g % 97, 'v' || (g % 1000) FROM generate_series(1, 20000) g;
VACUUM ANALYZE ic_bound;
SELECT compact_leaf_pages > 0 AS has_compact, entries FROM elastic_index_stats('ic_bound_k');
SELECT elastic_index_check('ic_bound_k', true);
SET enable_seqscan = off;
SET enable_bitmapscan = off;
SELECT count(*), sum(a), sum(length(t)) FROM ic_bound WHERE k BETWEEN 2000 AND 18000;
RESET enable_seqscan;
RESET enable_bitmapscan;
SELECT count(*), sum(a), sum(length(t)) FROM ic_bound WHERE k BETWEEN 2000 AND 18000;
DROP TABLE ic_bound;

-- 5. osm_tree, with entries in its insert buffer
SET ei_test.am = 'osm_tree';
SET osm_tree.batch_size = 1;
SET osm_tree.top_inserts = off;
SET osm_tree.buffer_size = 8;
SET osm_tree.flush_fraction = 0.5;
SELECT ei_setup('io', 'ic_src', 10000);
SELECT ei_index('io', 'k', '(k, id) INCLUDE (a, t)');
SELECT ei_index('io', 'jk', '(j DESC, a NULLS FIRST) INCLUDE (u, k, id)');
SELECT ei_index('io', 'u', '(u) INCLUDE (t)');
-- single-row inserts go to the buffer
DO $$
BEGIN
	FOR i IN 10001 .. 10600 LOOP
		PERFORM ei_exec('io', format('INSERT INTO %%I SELECT * FROM ic_src WHERE id = %s', i));
	END LOOP;
END
$$;
VACUUM (INDEX_CLEANUP off) io_seq, io_bt, io_ei;
ANALYZE io_seq, io_bt, io_ei;
SELECT c.relname, b.entries > 0 AS buffered
FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid,
	 LATERAL osm_tree_buffer_stats(c.oid) AS b
WHERE i.indrelid = 'io_ei'::regclass ORDER BY 1;
CREATE OR REPLACE FUNCTION io_queries(vacuumed bool DEFAULT true)
RETURNS TABLE (query text, result text)
LANGUAGE plpgsql AS $fn$
DECLARE
	q			text;
	o			bool;
	m			text[];
BEGIN
	FOR q, o, m IN VALUES
		('SELECT k, id, a, t FROM %I WHERE k BETWEEN 1000 AND 2500 ORDER BY k, id', true, '{index,indexonly}'::text[]),
		('SELECT k, id, a, t FROM %I WHERE k > 7500 ORDER BY k DESC, id DESC', true, '{index,indexonly}'),
		('SELECT k, id, a, t FROM %I WHERE k = 4321', false, '{index,indexonly,bitmap}'),
		('SELECT id, a, t FROM %I WHERE k IS NULL', false, '{index,indexonly,bitmap}'),
		('SELECT j, k, u, a, id FROM %I WHERE j = 17 AND a > 20000', false, '{index,indexonly,bitmap}'),
		('SELECT u, t FROM %I WHERE u = ''c4ca4238-a0b9-2382-0dcc-509a6f75849b''', false, '{index,indexonly,bitmap}'),
		('SELECT count(*), count(a), count(t), sum(length(t)) FROM %I WHERE k >= 0', false, '{index,bitmap}')
	LOOP
		IF NOT vacuumed THEN
			m := array_remove(m, 'indexonly');
		END IF;
		query := q;
		result := ei_diff('io', q, o, m);
		RETURN NEXT;
	END LOOP;
END
$fn$;
SELECT * FROM io_queries();
SELECT ei_check_all('io');
-- updates and deletes, buffered again; then a flush by VACUUM
DO $$
BEGIN
	FOR i IN 1 .. 300 LOOP
		PERFORM ei_exec('io', format('UPDATE %%I SET a = coalesce(a, 0) + 1, t = ''u'' || t WHERE id = %s', i * 31));
	END LOOP;
END
$$;
SELECT ei_exec('io', 'DELETE FROM %I WHERE id %% 3 = 0');
SELECT * FROM io_queries(false);
SELECT ei_check_all('io');
VACUUM io_seq, io_bt, io_ei;
SELECT c.relname, b.entries AS buffered
FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid,
	 LATERAL osm_tree_buffer_stats(c.oid) AS b
WHERE i.indrelid = 'io_ei'::regclass ORDER BY 1;
SELECT * FROM io_queries();
SELECT ei_check_all('io');
SET enable_seqscan = off;
SET enable_bitmapscan = off;
SELECT * FROM ic_explain('SELECT k, id, a, t FROM io_ei WHERE k BETWEEN 1000 AND 1100');
RESET enable_seqscan;
RESET enable_bitmapscan;
\d io_ei
-- a bulk load in one statement goes through a sorted batch
SELECT ei_exec('io', 'INSERT INTO %I SELECT * FROM ic_src WHERE id > 20000');
VACUUM ANALYZE io_seq, io_bt, io_ei;
SELECT * FROM io_queries();
SELECT ei_check_all('io');
RESET ei_test.am;
RESET osm_tree.batch_size;
RESET osm_tree.top_inserts;
RESET osm_tree.buffer_size;
RESET osm_tree.flush_fraction;

-- 6. Hypothetical indexes with INCLUDE columns: wider leaf entries, the
-- same pivots, and index-only scans in EXPLAIN
SELECT * FROM elastic_index_hypothetical_reset();
SELECT indexrelid AS plain_oid
FROM elastic_index_hypothetical_create('CREATE INDEX ON ic_seq USING elastic_btree (k, id)') \gset
SELECT indexrelid AS incl_oid
FROM elastic_index_hypothetical_create('CREATE INDEX ON ic_seq USING elastic_btree (k, id) INCLUDE (a, t)') \gset
SELECT i.entries = p.entries AS same_entries,
	   i.standard_leaves > p.standard_leaves AS wider_leaves,
	   i.tree_height = p.tree_height AS same_height
FROM elastic_index_hypothetical_estimate(:plain_oid) p,
	 elastic_index_hypothetical_estimate(:incl_oid) i;
SELECT elastic_index_hypothetical_drop(:plain_oid);
CREATE FUNCTION ic_plan(query text) RETURNS SETOF text LANGUAGE plpgsql AS $$
DECLARE
	line		text;
BEGIN
	FOR line IN EXECUTE 'EXPLAIN (COSTS OFF) ' || query LOOP
		RETURN NEXT regexp_replace(line, '<[0-9]+>', '<oid>');
	END LOOP;
END $$;
SET enable_seqscan = off;
SET enable_bitmapscan = off;
SELECT * FROM ic_plan('SELECT k, id, a, t FROM ic_seq WHERE k = 10');
RESET enable_seqscan;
RESET enable_bitmapscan;
SELECT * FROM elastic_index_hypothetical_create('CREATE INDEX ON ic_seq USING elastic_btree (k) INCLUDE (lower(t))');
SELECT * FROM elastic_index_hypothetical_create('CREATE INDEX ON ic_seq USING osm_tree (k) INCLUDE (a DESC)');
SELECT * FROM elastic_index_hypothetical_create('CREATE INDEX ON ic_seq USING osm_tree (k) INCLUDE (nosuch)');
SELECT * FROM elastic_index_hypothetical_reset();

SET client_min_messages = warning;
DROP SCHEMA ei_incl CASCADE;
-- the next file creates the extension afresh
DROP EXTENSION elastic_index CASCADE;
RESET client_min_messages;
RESET search_path;
RESET synchronous_commit;
