CREATE EXTENSION IF NOT EXISTS elastic_index;
-- everything this file creates lives in its own schema
SET client_min_messages = warning;
DROP SCHEMA IF EXISTS ei_elastic_build_compact CASCADE;
CREATE SCHEMA ei_elastic_build_compact;
SET search_path = ei_elastic_build_compact, public;
RESET client_min_messages;
--
-- CREATE INDEX and REINDEX of an elastic_btree index whose standard leaves
-- would not fit its size bound (src/README.md, "Elasticity": builds) form
-- compact leaves and leave the index SHRINKING; one that fits builds
-- standard leaves.  The build measures the standard leaves of a sample
-- first (the first four leaves at least), so posting lists and real widths
-- count.  Every scan kind against a sequential scan and the verifier with
-- heapallindexed, after the build, after inserts, after VACUUM has
-- expanded the leaves back.
--
SET max_parallel_maintenance_workers = 0;
\i test/sql/scan_kinds.sql
\i test/sql/build_workers.sql

-- 200000 scattered int8 keys: a standard build takes 551 pages (4.3 MB)
CREATE TABLE bc (id int8, k int8) WITH (autovacuum_enabled = off);
INSERT INTO bc SELECT g, (g * 2654435761) % 1000003 FROM generate_series(1, 200000) g;
CREATE INDEX bc_std ON bc USING elastic_btree (k) WITH (size_bound = '8MB');
CREATE INDEX bc_k ON bc USING elastic_btree (k) WITH (size_bound = '1MB');
-- the bound that fits keeps standard leaves; the one that does not gets
-- compact leaves and stays within it (5% over at most, as inserts keep it):
-- all but the sample's leaves and the last few (the entries after the
-- last compact leaf's, fewer than it holds, go on standard ones)
SELECT elastic_state, compact_leaf_pages FROM elastic_index_stats('bc_std');
SELECT elastic_state, compact_leaf_pages >= leaf_pages - 10 AS all_but_few_compact,
	   total_pages <= 1.05 * size_bound_pages AS within_bound,
	   entries = 200000 AS entries
FROM elastic_index_stats('bc_k');
SELECT elastic_index_check('bc_k', true);
DROP INDEX bc_std;
SELECT ei_scan_kinds('SELECT k FROM bc WHERE k BETWEEN 1000 AND 400000');
SELECT ei_scan_kinds('SELECT id FROM bc WHERE k = ANY (''{0, 7, 2654435761, 999999, 1000002}'')');
SELECT ei_scan_kinds('SELECT k FROM bc WHERE k < 5000 OR k > 995000');
-- absent keys find nothing, present ones their rows
SELECT ei_scan_kinds('SELECT id FROM bc WHERE k IN (SELECT (g * 2654435761) % 1000003 + 1 FROM generate_series(1, 300) g)');

-- the size model of a hypothetical index says what CREATE INDEX built
SELECT h.compact_leaves > 0 AS model_compact,
	   h.total_pages BETWEEN s.total_pages * 0.8 AND s.total_pages * 1.25 AS model_near
FROM elastic_index_stats('bc_k') s,
	 elastic_index_hypothetical_estimate((SELECT indexrelid FROM elastic_index_hypothetical_create(
		'CREATE INDEX ON ei_elastic_build_compact.bc USING elastic_btree (k) WITH (size_bound = ''1MB'')'))) h;
SELECT elastic_index_hypothetical_reset();

-- scattered inserts after the build go into compact leaves, which split
INSERT INTO bc SELECT g, (g * 2654435761) % 1000003 FROM generate_series(200001, 260000) g;
SELECT elastic_state, compact_leaf_pages >= leaf_pages - 10 AS all_but_few_compact
FROM elastic_index_stats('bc_k');
SELECT elastic_index_check('bc_k', true);
SELECT ei_scan_kinds('SELECT k FROM bc WHERE k BETWEEN 1000 AND 400000');

-- REINDEX keeps the bound: compact leaves again, as many as before or fewer
CREATE TEMP TABLE bc_before AS SELECT total_pages FROM elastic_index_stats('bc_k');
REINDEX INDEX bc_k;
SELECT elastic_state, compact_leaf_pages >= leaf_pages - 10 AS all_but_few_compact,
	   total_pages <= (SELECT total_pages FROM bc_before) AS no_larger
FROM elastic_index_stats('bc_k');
SELECT elastic_index_check('bc_k', true);

-- a parallel build forms the same compact leaves (workers do run: one
-- made to fail fails the build)
ALTER TABLE bc SET (parallel_workers = 2);
SET max_parallel_maintenance_workers = 2;
SET min_parallel_table_scan_size = 0;
SET maintenance_work_mem = '64MB';
SELECT ei_build_uses_workers('CREATE INDEX bc_par ON bc USING elastic_btree (k) WITH (size_bound = ''1MB'')');
CREATE INDEX bc_par ON bc USING elastic_btree (k) WITH (size_bound = '1MB');
RESET max_parallel_maintenance_workers;
RESET min_parallel_table_scan_size;
RESET maintenance_work_mem;
SET max_parallel_maintenance_workers = 0;
SELECT p.elastic_state, p.compact_leaf_pages = s.compact_leaf_pages AS same_compact,
	   p.total_pages = s.total_pages AS same_pages
FROM elastic_index_stats('bc_par') p, elastic_index_stats('bc_k') s;
SELECT elastic_index_check('bc_par', true);
DROP INDEX bc_par;

-- a percentage bound of the table's 1,400 pages: 10% does not hold the
-- 720 pages of standard leaves, 100% does
CREATE INDEX bc_p10 ON bc USING elastic_btree (k) WITH (size_bound = '10%');
CREATE INDEX bc_p100 ON bc USING elastic_btree (k) WITH (size_bound = '100%');
SELECT indexrelid::regclass AS index, elastic_state, compact_leaf_pages > 0 AS has_compact
FROM pg_index, elastic_index_stats(indexrelid::regclass)
WHERE indrelid = 'bc'::regclass AND indexrelid <> 'bc_k'::regclass ORDER BY 1;
DROP INDEX bc_p10, bc_p100;
-- the GUC gives the bound when the reloption is unset
SET elastic_btree.size_bound = '1MB';
CREATE INDEX bc_guc ON bc USING elastic_btree (k);
SELECT elastic_state, compact_leaf_pages > 0 AS has_compact FROM elastic_index_stats('bc_guc');
DROP INDEX bc_guc;
RESET elastic_btree.size_bound;

-- most rows gone: VACUUM converts the compact leaves back, as for an index
-- whose inserts made them compact
DELETE FROM bc WHERE id % 20 <> 0;
VACUUM bc;
SELECT elastic_state, compact_leaf_pages,
	   entries = (SELECT count(*) FROM bc) AS entries
FROM elastic_index_stats('bc_k');
SELECT elastic_index_check('bc_k', true);
SELECT ei_scan_kinds('SELECT k FROM bc WHERE k BETWEEN 1000 AND 400000');

-- text keys in the "C" collation, 30 rows a key: 4,000 md5 values do not
-- fit 1MB even in lists
CREATE TABLE bc_text (id int4, t text COLLATE "C") WITH (autovacuum_enabled = off);
INSERT INTO bc_text SELECT g, md5((g / 30)::text) FROM generate_series(1, 120000) g;
CREATE INDEX bc_text_t ON bc_text USING elastic_btree (t) WITH (size_bound = '1MB');
SELECT elastic_state, compact_leaf_pages >= leaf_pages - 10 AS all_but_few_compact,
	   total_pages <= 1.05 * size_bound_pages AS within_bound
FROM elastic_index_stats('bc_text_t');
SELECT elastic_index_check('bc_text_t', true);
SELECT ei_scan_kinds('SELECT t FROM bc_text WHERE t BETWEEN ''3'' AND ''8''');
SELECT ei_scan_kinds('SELECT id FROM bc_text WHERE t = md5(''77'')');

-- the same keys with posting lists: their standard leaves fit the bound
-- (the build measured them), so the build keeps them; without lists the
-- same rows do not fit and are built compact
CREATE TABLE bc_low (id int4, d int8) WITH (autovacuum_enabled = off);
INSERT INTO bc_low SELECT g, g % 100 FROM generate_series(1, 60000) g;
CREATE INDEX bc_low_list ON bc_low USING elastic_btree (d) WITH (size_bound = '1MB');
CREATE INDEX bc_low_plain ON bc_low USING elastic_btree (d)
	WITH (size_bound = '1MB', deduplicate_items = off);
SELECT indexrelid::regclass AS index, elastic_state, compact_leaf_pages > 0 AS has_compact,
	   total_pages <= size_bound_pages AS within_bound
FROM pg_index, elastic_index_stats(indexrelid::regclass)
WHERE indrelid = 'bc_low'::regclass ORDER BY 1;
SELECT elastic_index_check('bc_low_plain', true);
SELECT ei_scan_kinds('SELECT id FROM bc_low WHERE d IN (0, 17, 99)');
DROP INDEX bc_low_list;
SELECT ei_scan_kinds('SELECT d FROM bc_low WHERE d BETWEEN 10 AND 20');

-- DESC NULLS FIRST with NULLs, an INCLUDE column, a partial index (its
-- entries, not the table's rows, are counted)
CREATE TABLE bc_more (id int4, k int8, v int4) WITH (autovacuum_enabled = off);
INSERT INTO bc_more SELECT g, CASE WHEN g % 50 = 0 THEN NULL ELSE (g * 7919) % 300007 END, g % 1000
FROM generate_series(1, 150000) g;
CREATE INDEX bc_more_desc ON bc_more USING elastic_btree (k DESC NULLS FIRST) INCLUDE (v)
	WITH (size_bound = '1MB');
CREATE INDEX bc_more_part ON bc_more USING elastic_btree (k) WITH (size_bound = '1MB')
	WHERE id % 10 = 0;
SELECT indexrelid::regclass AS index, elastic_state, compact_leaf_pages > 0 AS has_compact,
	   entries
FROM pg_index, elastic_index_stats(indexrelid::regclass)
WHERE indrelid = 'bc_more'::regclass ORDER BY 1;
SELECT elastic_index_check('bc_more_desc', true), elastic_index_check('bc_more_part', true);
DROP INDEX bc_more_part;
SELECT ei_scan_kinds('SELECT v FROM bc_more WHERE k > 250000 OR k IS NULL');
SELECT ei_scan_kinds('SELECT k FROM bc_more WHERE k BETWEEN 1000 AND 90000');

-- keys that cannot be compact (an expression) keep standard leaves
CREATE INDEX bc_expr ON bc_text USING elastic_btree ((t || 'x')) WITH (size_bound = '1MB');
SELECT elastic_state, compact_leaf_pages FROM elastic_index_stats('bc_expr');

DROP SCHEMA ei_elastic_build_compact CASCADE;
DROP EXTENSION elastic_index;
