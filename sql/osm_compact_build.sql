CREATE EXTENSION IF NOT EXISTS elastic_index;
-- everything this file creates lives in its own schema
SET client_min_messages = warning;
DROP SCHEMA IF EXISTS ei_osm_compact_build CASCADE;
CREATE SCHEMA ei_osm_compact_build;
SET search_path = ei_osm_compact_build, public;
RESET client_min_messages;
--
-- CREATE INDEX of an osm_tree with compact_leaves = on (src/README.md,
-- "Building") on the edge cases of the leaf loader: long posting lists
-- (the high key a compact leaf reserves room for is a pivot, without the
-- list's TIDs), one key repeated 60000 times, fill factors 10 and 100,
-- NULLs, DESC, INCLUDE columns, entries that cannot be compact in between;
-- every scan kind against a sequential scan, the verifier with
-- heapallindexed, then inserts, deletes and VACUUM.
--
SET max_parallel_maintenance_workers = 0;
\i test/sql/scan_kinds.sql

-- 200 rows a key: posting lists of as many TIDs as a list takes
CREATE TABLE cb_dup (id int4, d int8);
INSERT INTO cb_dup SELECT g, g / 200 FROM generate_series(1, 200000) g;
CREATE INDEX cb_dup_list ON cb_dup USING osm_tree (d)
	WITH (compact_leaves = on, fillfactor = 100);
CREATE INDEX cb_dup_plain ON cb_dup USING osm_tree (d)
	WITH (compact_leaves = on, fillfactor = 100, deduplicate_items = off);
-- the lists' compact leaves are as full as the plain entries' (their high
-- keys are the same pivots; the plain entries' last leaves, fewer entries
-- than a compact leaf holds, are more standard leaves): a leaf filled as if
-- its high key were a whole list (812 bytes) holds a tenth fewer
SELECT l.compact_leaf_pages >= l.leaf_pages - 3 AS list_compact,
	   p.compact_leaf_pages >= p.leaf_pages - 10 AS plain_compact,
	   l.leaf_pages < p.leaf_pages * 0.93 AS lists_as_dense
FROM elastic_index_stats('cb_dup_list') l, elastic_index_stats('cb_dup_plain') p;
SELECT elastic_index_check('cb_dup_list', true), elastic_index_check('cb_dup_plain', true);
DROP INDEX cb_dup_plain;
SELECT ei_scan_kinds('SELECT d FROM cb_dup WHERE d BETWEEN 17 AND 700');
SELECT ei_scan_kinds('SELECT id FROM cb_dup WHERE d = ANY (''{0, 1, 333, 999, 1000}'')');

-- one key 60000 times, at fill factors 10 and 100
CREATE TABLE cb_one (id int4, k int8);
INSERT INTO cb_one SELECT g, 42 FROM generate_series(1, 60000) g;
INSERT INTO cb_one SELECT g, 43 FROM generate_series(60001, 60010) g;
CREATE INDEX cb_one_10 ON cb_one USING osm_tree (k)
	WITH (compact_leaves = on, fillfactor = 10);
SELECT s.compact_leaf_pages > s.leaf_pages - 3 AS mostly_compact, s.entries
FROM elastic_index_stats('cb_one_10') s;
SELECT elastic_index_check('cb_one_10', true);
SELECT ei_scan_kinds('SELECT k FROM cb_one WHERE k = 42');
SELECT ei_scan_kinds('SELECT id FROM cb_one WHERE k >= 43');
DROP INDEX cb_one_10;
CREATE INDEX cb_one_100 ON cb_one USING osm_tree (k)
	WITH (compact_leaves = on, fillfactor = 100);
SELECT ei_scan_kinds('SELECT k FROM cb_one WHERE k = 42');
INSERT INTO cb_one SELECT g, 42 FROM generate_series(70000, 75000) g;
DELETE FROM cb_one WHERE id % 3 = 0;
VACUUM cb_one;
SELECT elastic_index_check('cb_one_100', true);
SELECT ei_scan_kinds('SELECT id FROM cb_one WHERE k = 42');

-- NULLs, runs of duplicates, heap order unlike key order; DESC, INCLUDE,
-- two columns
CREATE TABLE cb_mix (id int4, k int8, inc text);
INSERT INTO cb_mix
SELECT g, CASE WHEN g % 5 = 0 THEN NULL WHEN g % 1000 < 300 THEN g / 1000 ELSE g END,
	   'x' || g
FROM generate_series(1, 60000) g ORDER BY (g * 7919) % 60001;
CREATE INDEX cb_mix_desc ON cb_mix USING osm_tree (k DESC NULLS LAST)
	WITH (compact_leaves = on, fillfactor = 30);
CREATE INDEX cb_mix_inc ON cb_mix USING osm_tree (k) INCLUDE (inc)
	WITH (compact_leaves = on);
CREATE INDEX cb_mix_two ON cb_mix USING osm_tree (k, id)
	WITH (compact_leaves = on, fillfactor = 100);
SELECT i AS index, s.compact_leaf_pages > 0 AS compact, s.entries
FROM unnest(ARRAY['cb_mix_desc', 'cb_mix_inc', 'cb_mix_two']) i,
	 elastic_index_stats(i::regclass) s;
SELECT i AS index, elastic_index_check(i::regclass, true)
FROM unnest(ARRAY['cb_mix_desc', 'cb_mix_inc', 'cb_mix_two']) i;
SELECT ei_scan_kinds('SELECT k FROM cb_mix WHERE k IS NULL');
SELECT ei_scan_kinds('SELECT k FROM cb_mix WHERE k BETWEEN 10 AND 150');
SELECT ei_scan_kinds('SELECT inc FROM cb_mix WHERE k BETWEEN 50 AND 60');
SELECT ei_scan_kinds('SELECT id FROM cb_mix WHERE k = 30 AND id > 30100');
INSERT INTO cb_mix SELECT g, CASE WHEN g % 5 = 0 THEN NULL ELSE g % 3000 END, 'y'
FROM generate_series(60001, 70000) g;
DELETE FROM cb_mix WHERE id % 7 = 0;
VACUUM cb_mix;
SELECT i AS index, elastic_index_check(i::regclass, true)
FROM unnest(ARRAY['cb_mix_desc', 'cb_mix_inc', 'cb_mix_two']) i;
SELECT ei_scan_kinds('SELECT k FROM cb_mix WHERE k IS NULL');
SELECT ei_scan_kinds('SELECT k FROM cb_mix WHERE k BETWEEN 10 AND 2500');

-- keys too long for a compact leaf among ones that fit: standard leaves in
-- between compact ones, but only around the long keys (a leaf's worth of
-- entries with one of them is not all put on standard leaves)
CREATE TABLE cb_text (id int4, t text COLLATE "C");
INSERT INTO cb_text
SELECT g, lpad(g::text, 8, '0') || CASE WHEN g % 10000 < 20 THEN repeat('z', 300) ELSE '' END
FROM generate_series(1, 40000) g;
CREATE INDEX cb_text_t ON cb_text USING osm_tree (t) WITH (compact_leaves = on);
CREATE INDEX cb_text_std ON cb_text USING osm_tree (t);
SELECT s.compact_leaf_pages > 0 AS compact,
	   s.leaf_pages > s.compact_leaf_pages AS standard_too,
	   s.leaf_pages < d.leaf_pages * 0.3 AS small
FROM elastic_index_stats('cb_text_t') s, elastic_index_stats('cb_text_std') d;
DROP INDEX cb_text_std;
SELECT elastic_index_check('cb_text_t', true);
SELECT ei_scan_kinds('SELECT t FROM cb_text WHERE t BETWEEN ''00004000'' AND ''00035000''');
SELECT ei_scan_kinds('SELECT id FROM cb_text WHERE t > ''00010000'' AND t < ''00010100''');

SET client_min_messages = warning;
DROP SCHEMA ei_osm_compact_build CASCADE;
-- the next file creates the extension afresh
DROP EXTENSION elastic_index CASCADE;
RESET client_min_messages;
RESET search_path;
