CREATE EXTENSION IF NOT EXISTS elastic_index;
-- everything this file creates lives in its own schema
SET client_min_messages = warning;
DROP SCHEMA IF EXISTS ei_dedup CASCADE;
CREATE SCHEMA ei_dedup;
SET search_path = ei_dedup, public;
RESET client_min_messages;
\i test/sql/differential_harness.sql
--
-- Posting lists (src/README.md, "Posting lists"): CREATE INDEX with
-- deduplicate_items = on stores the entries of equal keys as lists.  The
-- same queries through them, btree (which deduplicates too) and a
-- sequential scan; every scan kind, forward and backward, before and after
-- inserts that add plain entries beside the lists.
--
SELECT setseed(0.25);
-- k: int8, ~15 rows a key; s: int4, 10 values; t: text COLLATE "C", ~30
-- rows a key; n: numeric (never deduplicated: equal is not identical);
-- u: unique; z: mostly NULL
CREATE TABLE dd_src AS
SELECT row_number() OVER ()::int4 AS id, (g / 15)::int8 AS k, (g % 10)::int4 AS s,
	   ('key-' || lpad((g / 30)::text, 6, '0')) COLLATE "C" AS t,
	   (g / 15)::numeric AS n, g AS u,
	   CASE WHEN g % 7 = 0 THEN g % 5 END AS z
FROM (SELECT g FROM generate_series(1, 30000) AS g ORDER BY random()) AS p;
SELECT ei_setup('dd', 'dd_src', 20000);
SELECT ei_index('dd', 'k', '(k) WITH (deduplicate_items = on)');
SELECT ei_index('dd', 's', '(s) WITH (deduplicate_items = on)');
SELECT ei_index('dd', 't', '(t) WITH (deduplicate_items = on)');
SELECT ei_index('dd', 'n', '(n) WITH (deduplicate_items = on)');
SELECT ei_index('dd', 'u', '(u) WITH (deduplicate_items = on)');
SELECT ei_index('dd', 'z', '(z) WITH (deduplicate_items = on)');
SELECT ei_index('dd', 'sk', '(s, k DESC) WITH (deduplicate_items = on)');
VACUUM ANALYZE dd_seq, dd_bt;
ANALYZE dd_ei;
SELECT ei_check_all('dd');

-- the option is stored and shown (unset: the setting decides)
SELECT c.relname, c.reloptions FROM pg_class c
WHERE c.relname IN ('dd_ei_k', 'dd_ei_n') ORDER BY 1;
CREATE INDEX dd_plain_k ON dd_seq USING elastic_btree (k) WITH (deduplicate_items = off);
CREATE INDEX dd_plain_t ON dd_seq USING elastic_btree (t) WITH (deduplicate_items = off);
CREATE INDEX dd_plain_n ON dd_seq USING elastic_btree (n) WITH (deduplicate_items = off);
CREATE INDEX dd_plain_u ON dd_seq USING elastic_btree (u) WITH (deduplicate_items = off);
SELECT reloptions FROM pg_class WHERE relname = 'dd_plain_k';

-- lists shrink the indexes on repeated keys to about btree's size; numeric
-- keys and unique keys are as large as without the option
SELECT pg_relation_size('dd_ei_k') < pg_relation_size('dd_plain_k') / 2 AS k_smaller,
	   pg_relation_size('dd_ei_k') <= pg_relation_size('dd_bt_k') * 1.1 AS k_near_btree,
	   pg_relation_size('dd_ei_t') < pg_relation_size('dd_plain_t') / 2 AS t_smaller,
	   pg_relation_size('dd_ei_t') <= pg_relation_size('dd_bt_t') * 1.1 AS t_near_btree,
	   pg_relation_size('dd_ei_n') = pg_relation_size('dd_plain_n') AS n_same,
	   pg_relation_size('dd_ei_u') = pg_relation_size('dd_plain_u') AS u_same;
DROP INDEX dd_plain_k, dd_plain_t, dd_plain_n, dd_plain_u;

-- an INCLUDE column turns lists off (as in btree)
CREATE INDEX dd_incl ON dd_seq USING elastic_btree (k) INCLUDE (u) WITH (deduplicate_items = on);
CREATE INDEX dd_noincl ON dd_seq USING elastic_btree (k) INCLUDE (u);
SELECT pg_relation_size('dd_incl') = pg_relation_size('dd_noincl') AS include_not_deduplicated;
DROP INDEX dd_incl, dd_noincl;

-- every scan kind over the lists
SELECT * FROM ei_diff_col('dd', 'k', '100', '1500');
SELECT * FROM ei_diff_col('dd', 's', '3', '7');
SELECT * FROM ei_diff_col('dd', 't', '''key-000100''', '''key-000900''');
SELECT * FROM ei_diff_col('dd', 'n', '100', '1500');
SELECT * FROM ei_diff_col('dd', 'u', '1000', '29000');
SELECT * FROM ei_diff_col('dd', 'z', '1', '3');
SELECT ei_diff('dd', 'SELECT id FROM %I WHERE s = 4', false, '{index,bitmap,parallel}');
SELECT ei_diff('dd', 'SELECT count(*) FROM %I WHERE s = 4', false, '{indexonly}');
SELECT ei_diff('dd', 'SELECT s, k FROM %I WHERE s = 2 AND k > 1000 ORDER BY s, k DESC', true, '{index,indexonly}');
SELECT ei_diff('dd', 'SELECT s, k FROM %I WHERE s IN (1, 5) ORDER BY s DESC, k', true, '{index,indexonly}');
SELECT ei_diff('dd', 'SELECT k, id FROM %I WHERE k = ANY (''{3, 77, 500, 1999}'')', false, '{index,bitmap}');
SELECT ei_diff('dd', 'SELECT k FROM %I WHERE k = ANY (''{3, 77, 500, 1999}'') ORDER BY k DESC', true, '{index,indexonly}');
SELECT ei_diff('dd', 'SELECT t FROM %I WHERE t > ''key-000500'' ORDER BY t DESC LIMIT 100', true, '{index,indexonly,parallel}');

-- backward scroll cursors move item by item inside a list
SET enable_seqscan = off;
SET enable_bitmapscan = off;
BEGIN;
DECLARE c SCROLL CURSOR FOR SELECT s, k FROM dd_ei WHERE s = 3 AND k BETWEEN 100 AND 130 ORDER BY s, k DESC;
FETCH 3 FROM c;
FETCH BACKWARD 2 FROM c;
FETCH ABSOLUTE 5 FROM c;
MOVE FORWARD ALL FROM c;
FETCH BACKWARD 3 FROM c;
COMMIT;
RESET enable_seqscan;
RESET enable_bitmapscan;

-- merge joins mark and restore inside lists
SET enable_hashjoin = off;
SET enable_nestloop = off;
SET enable_sort = off;
SET enable_material = off;
SET enable_seqscan = off;
SET enable_bitmapscan = off;
SELECT ei_diff('dd', 'SELECT count(*), sum(a.u::int8 * b.u) FROM %1$I a JOIN %1$I b ON a.k = b.k WHERE a.k < 300', false, '{index}');
SELECT ei_diff('dd', 'SELECT count(*), sum(a.k) FROM %1$I a JOIN %1$I b ON a.k = b.k WHERE a.k < 300', false, '{indexonly}');
SELECT ei_diff('dd', 'SELECT count(*), sum(a.u) FROM %1$I a JOIN %1$I b ON a.t = b.t WHERE a.t < ''key-000050''', false, '{index}');
RESET enable_hashjoin;
RESET enable_nestloop;
RESET enable_sort;
RESET enable_material;
RESET enable_seqscan;
RESET enable_bitmapscan;

-- inserts after the build: new rows' TIDs follow every list's, so they go
-- in as plain entries beside the lists
SELECT ei_exec('dd', 'INSERT INTO %I SELECT * FROM dd_src WHERE id > 20000 ORDER BY id');
ANALYZE dd_seq, dd_bt, dd_ei;
SELECT ei_check_all('dd');
SELECT * FROM ei_diff_col('dd', 'k', '100', '1500');
SELECT * FROM ei_diff_col('dd', 't', '''key-000100''', '''key-000900''');
SELECT ei_diff('dd', 'SELECT id FROM %I WHERE s = 4', false, '{index,bitmap,parallel}');
SELECT ei_diff('dd', 'SELECT s, k FROM %I WHERE s = 2 AND k > 1000 ORDER BY s, k DESC', true, '{index,indexonly}');

-- REINDEX writes the lists again, from all rows
REINDEX INDEX dd_ei_k;
SELECT ei_check_all('dd');
SELECT * FROM ei_diff_col('dd', 'k', '100', '1500');

-- every entry counted, each TID of a list as one
SELECT entries FROM elastic_index_stats('dd_ei_k');

-- kill_prior_tuple: scans that meet deleted rows mark plain entries, and
-- whole lists once every one of their TIDs is dead
SELECT ei_exec('dd', 'DELETE FROM %I WHERE k BETWEEN 200 AND 260');
SET enable_seqscan = off;
SET enable_bitmapscan = off;
SET enable_indexonlyscan = off;
SELECT count(*) FROM dd_ei WHERE k BETWEEN 190 AND 270;
SELECT count(*) FROM dd_ei WHERE k BETWEEN 190 AND 270;
RESET enable_seqscan;
RESET enable_bitmapscan;
RESET enable_indexonlyscan;
SELECT dead_entries FROM elastic_index_stats('dd_ei_k');
SELECT ei_check_all('dd');
SELECT * FROM ei_diff_col('dd', 'k', '195', '265');

-- VACUUM removes TIDs from lists (rewriting them, or the whole list when
-- all its TIDs are dead) and plain entries
SELECT ei_exec('dd', 'DELETE FROM %I WHERE u %% 3 = 0 OR t = ''key-000333''');
VACUUM dd_seq, dd_bt, dd_ei;
SELECT entries, dead_entries FROM elastic_index_stats('dd_ei_k');
SELECT ei_check_all('dd');
SELECT * FROM ei_diff_col('dd', 'k', '100', '1500');
SELECT * FROM ei_diff_col('dd', 't', '''key-000300''', '''key-000400''');
SELECT * FROM ei_diff_col('dd', 's', '3', '7');
SELECT ei_diff('dd', 'SELECT s, k FROM %I WHERE s = 2 AND k > 1000 ORDER BY s, k DESC', true, '{index,indexonly}');
-- a second VACUUM finds nothing more to remove
VACUUM dd_ei;
SELECT ei_check_all('dd');

-- posting splits: rows inserted into the space VACUUM freed get TIDs
-- inside the lists' ranges; each goes into its list, which gives up its
-- last TID to a plain entry after it (with and without a page split)
SELECT ei_exec('dd', 'INSERT INTO %I SELECT * FROM dd_src WHERE u %% 3 = 0 ORDER BY id');
SELECT ei_exec('dd', 'UPDATE %I SET s = s + 1 WHERE u %% 7 = 1');
ANALYZE dd_seq, dd_bt, dd_ei;
SELECT ei_check_all('dd');
SELECT * FROM ei_diff_col('dd', 'k', '100', '1500');
SELECT * FROM ei_diff_col('dd', 't', '''key-000300''', '''key-000400''');
SELECT * FROM ei_diff_col('dd', 's', '3', '7');
SELECT ei_diff('dd', 'SELECT s, k FROM %I WHERE s = 2 AND k > 1000 ORDER BY s, k DESC', true, '{index,indexonly}');
SELECT ei_diff('dd', 'SELECT id FROM %I WHERE s = 4', false, '{index,bitmap,parallel}');
-- and once more through VACUUM
SELECT ei_exec('dd', 'DELETE FROM %I WHERE u %% 5 = 0');
VACUUM dd_seq, dd_bt, dd_ei;
SELECT ei_check_all('dd');
SELECT * FROM ei_diff_col('dd', 'k', '100', '1500');

-- the dedup pass: an index built empty gets lists as inserts fill its
-- leaves (a full leaf merges its runs of equal keys before it splits)
CREATE TABLE dd_grow (id int4, k int8, t text COLLATE "C", n numeric, s int4);
CREATE INDEX dd_grow_k ON dd_grow USING elastic_btree (k) WITH (deduplicate_items = on);
CREATE INDEX dd_grow_t ON dd_grow USING elastic_btree (t) WITH (deduplicate_items = on);
CREATE INDEX dd_grow_n ON dd_grow USING elastic_btree (n) WITH (deduplicate_items = on);
CREATE INDEX dd_grow_k_plain ON dd_grow USING elastic_btree (k) WITH (deduplicate_items = off);
CREATE INDEX dd_grow_k_bt ON dd_grow USING btree (k);
CREATE INDEX dd_grow_s ON dd_grow USING elastic_btree (s) WITH (deduplicate_items = on);
CREATE INDEX dd_grow_s_bt ON dd_grow USING btree (s);
INSERT INTO dd_grow SELECT id, k, t, n, s FROM dd_src ORDER BY id;
-- a key's run ends where new rows go: a split there keeps the run's part
-- on the left whole (it gets no more rows), as btree's single-value splits
SELECT elastic_index_check('dd_grow_s', true);
SELECT (SELECT entries FROM elastic_index_stats('dd_grow_s')) = 30000 AS s_entries;
SELECT pg_relation_size('dd_grow_k') < pg_relation_size('dd_grow_k_plain') / 2 AS k_smaller,
	   pg_relation_size('dd_grow_k') <= pg_relation_size('dd_grow_k_bt') * 1.2 AS k_near_btree,
	   (SELECT entries FROM elastic_index_stats('dd_grow_k')) = 30000 AS k_entries,
	   (SELECT entries FROM elastic_index_stats('dd_grow_t')) = 30000 AS t_entries;
SELECT elastic_index_check('dd_grow_k', true), elastic_index_check('dd_grow_t', true),
	   elastic_index_check('dd_grow_n', true);
SET enable_seqscan = off;
SET enable_bitmapscan = off;
SELECT count(*), sum(id) FROM dd_grow WHERE k BETWEEN 100 AND 200;
SELECT count(*), sum(id) FROM dd_grow WHERE t >= 'key-000100' AND t < 'key-000200';
RESET enable_seqscan;
RESET enable_bitmapscan;
SELECT count(*), sum(id) FROM dd_grow WHERE k BETWEEN 100 AND 200;
SELECT count(*), sum(id) FROM dd_grow WHERE t >= 'key-000100' AND t < 'key-000200';
DROP TABLE dd_grow;

-- elastic_btree.deduplicate_items (on by default) stands in for an unset
-- reloption: builds write lists while it is on, and inserts merge keys into
-- lists only in an index built with them (format 3), so that an index built
-- without (by an older library, or with the setting off) keeps its format
-- until REINDEX or the reloption; the reloption, in any of boolean's
-- spellings, overrides the setting
SHOW elastic_btree.deduplicate_items;
CREATE TABLE dd_guc (k int4);
INSERT INTO dd_guc SELECT g % 10 FROM generate_series(1, 10000) g;
CREATE INDEX dd_guc_default ON dd_guc USING elastic_btree (k);
SET elastic_btree.deduplicate_items = off;
CREATE INDEX dd_guc_off ON dd_guc USING elastic_btree (k);
CREATE INDEX dd_guc_on ON dd_guc USING elastic_btree (k) WITH (deduplicate_items = on);
RESET elastic_btree.deduplicate_items;
CREATE INDEX dd_guc_false ON dd_guc USING elastic_btree (k) WITH (deduplicate_items = FALSE);
CREATE INDEX dd_guc_1 ON dd_guc USING elastic_btree (k) WITH (deduplicate_items = 1);
-- a prefix, as a bool reloption stored it
CREATE INDEX dd_guc_t ON dd_guc USING elastic_btree (k) WITH (deduplicate_items = t);
CREATE VIEW dd_guc_state AS
SELECT c.relname, c.reloptions, s.format_version,
	   s.leaf_pages < (SELECT count(*) FROM dd_guc) / 700 AS lists
FROM pg_class c, elastic_index_stats(c.oid) s
WHERE c.relname LIKE 'dd\_guc\_%' AND c.relkind = 'i' ORDER BY c.relname;
SELECT * FROM dd_guc_state;
-- inserts: full leaves merge keys in the format 3 indexes only
INSERT INTO dd_guc SELECT g % 10 FROM generate_series(1, 30000) g;
SELECT * FROM dd_guc_state;
-- the reloption raises dd_guc_off to format 3 at its next insert
ALTER INDEX dd_guc_off SET (deduplicate_items = on);
INSERT INTO dd_guc SELECT g % 10 FROM generate_series(1, 30000) g;
SELECT relname, format_version FROM dd_guc_state WHERE relname = 'dd_guc_off';
-- unset again, the setting decides at the next build
ALTER INDEX dd_guc_false RESET (deduplicate_items);
REINDEX INDEX dd_guc_false;
SELECT relname, format_version, lists FROM dd_guc_state WHERE relname = 'dd_guc_false';
SELECT elastic_index_check(c.oid, true) FROM pg_class c
WHERE c.relname LIKE 'dd\_guc\_%' AND c.relkind = 'i' ORDER BY c.relname;
SET enable_seqscan = off;
SET enable_bitmapscan = off;
SELECT count(*) FROM dd_guc WHERE k = 3;
RESET enable_seqscan;
RESET enable_bitmapscan;
SELECT count(*) FROM dd_guc WHERE k = 3;
CREATE INDEX dd_guc_bad ON dd_guc USING elastic_btree (k) WITH (deduplicate_items = sometimes);
\echo :LAST_ERROR_SQLSTATE
DROP VIEW dd_guc_state;
DROP TABLE dd_guc;

-- clean up
SET client_min_messages = warning;
DROP SCHEMA ei_dedup CASCADE;
-- the next file creates the extension afresh
DROP EXTENSION elastic_index CASCADE;
RESET client_min_messages;
RESET search_path;
