CREATE EXTENSION IF NOT EXISTS elastic_index;
-- everything this file creates lives in its own schema
SET client_min_messages = warning;
DROP SCHEMA IF EXISTS ei_pcstale CASCADE;
CREATE SCHEMA ei_pcstale;
SET search_path = ei_pcstale, public;
RESET client_min_messages;
--
-- The elastic policy's per-backend cache (EIElasticCache, kept across
-- relcache rebuilds by EIGetPolicyCache) must never keep a stale answer.
--
-- 1. The size bound is parsed once per text and kept (insert_prepare runs
-- for every row), but a new bound, by ALTER INDEX ... SET (size_bound) or
-- SET elastic_btree.size_bound, applies to the very next insert.  Every
-- leaf is full (fillfactor 100), so the next insert into a leaf either
-- splits it or, at the bound, makes it compact.
--
CREATE TABLE sb_t (a int4, pad text) WITH (autovacuum_enabled = off);
INSERT INTO sb_t SELECT g * 10, repeat('x', 200) FROM generate_series(1, 5000) g;
CREATE INDEX sb_i ON sb_t USING elastic_btree (a) WITH (fillfactor = 100);
-- no bound: inserts split (and fill this backend's cache with 'none')
INSERT INTO sb_t VALUES (15, 'y'), (25005, 'y');
SELECT elastic_state, size_bound_pages, compact_leaf_pages
  FROM elastic_index_stats('sb_i');
-- the GUC, in the same session: the next insert makes its leaf compact
SET elastic_btree.size_bound = '8kB';
INSERT INTO sb_t VALUES (10005, 'y');
SELECT elastic_state, compact_leaf_pages > 0 AS has_compact
  FROM elastic_index_stats('sb_i');
-- back to standard leaves, a large GUC bound: inserts split again
SELECT elastic_btree_expand('sb_i') > 0 AS expanded;
SET elastic_btree.size_bound = '1000%';
INSERT INTO sb_t VALUES (20005, 'y');
SELECT elastic_state, compact_leaf_pages FROM elastic_index_stats('sb_i');
-- a percentage the index is over: the next insert makes its leaf compact
SET elastic_btree.size_bound = '1%';
INSERT INTO sb_t VALUES (30005, 'y');
SELECT elastic_state, compact_leaf_pages > 0 AS has_compact
  FROM elastic_index_stats('sb_i');
-- the reloption overrides the GUC, at once; in a transaction that
-- created the index its relcache entry is rebuilt in place (the cache
-- survives), so the cached text must be compared, not trusted
SELECT elastic_btree_expand('sb_i') > 0 AS expanded;
SET elastic_btree.size_bound = '8kB';
ALTER INDEX sb_i SET (size_bound = '1GB');
INSERT INTO sb_t VALUES (40005, 'y');
SELECT elastic_state, compact_leaf_pages FROM elastic_index_stats('sb_i');
BEGIN;
CREATE TABLE sb_t2 (a int4, pad text);
INSERT INTO sb_t2 SELECT g * 10, repeat('x', 200) FROM generate_series(1, 5000) g;
CREATE INDEX sb_i2 ON sb_t2 USING elastic_btree (a)
  WITH (fillfactor = 100, size_bound = '1GB');
INSERT INTO sb_t2 VALUES (15, 'y');
SELECT elastic_state, compact_leaf_pages FROM elastic_index_stats('sb_i2');
ALTER INDEX sb_i2 SET (size_bound = '8kB');
INSERT INTO sb_t2 VALUES (10005, 'y');
SELECT elastic_state, compact_leaf_pages > 0 AS has_compact
  FROM elastic_index_stats('sb_i2');
COMMIT;
RESET elastic_btree.size_bound;
SELECT elastic_index_check('sb_i', true), elastic_index_check('sb_i2', true);
--
-- 2. Whether an index's leaves can be compact depends on its table being
-- a heap table (compact leaves read keys from heap tuples).  ALTER TABLE
-- ... SET ACCESS METHOD rewrites the table and rebuilds its indexes in
-- place: in that transaction (and after it, in this backend) the index's
-- relcache entry is rebuilt in place and keeps the policy's cache, so the
-- cached answer must be derived again for the index's new file.  A table
-- access method that is heap under another name (as PostgreSQL's own
-- tests make) is not a heap table to the policy.
--
CREATE ACCESS METHOD ei_heap2 TYPE TABLE HANDLER heap_tableam_handler;
CREATE TABLE am_t (a int4, pad text) WITH (autovacuum_enabled = off);
INSERT INTO am_t SELECT g * 10, repeat('x', 200) FROM generate_series(1, 5000) g;
-- built standard, then bounded (a build under the bound would form compact
-- leaves itself)
CREATE INDEX am_i ON am_t USING elastic_btree (a) WITH (fillfactor = 100);
ALTER INDEX am_i SET (size_bound = '8kB');
BEGIN;
-- on the heap table, an insert into a full leaf makes it compact
INSERT INTO am_t VALUES (15, 'y');
SELECT elastic_state, compact_leaf_pages > 0 AS has_compact
  FROM elastic_index_stats('am_i');
ALTER TABLE am_t SET ACCESS METHOD ei_heap2;
-- rebuilt with standard leaves, which must stay standard
SELECT compact_leaf_pages FROM elastic_index_stats('am_i');
INSERT INTO am_t SELECT g * 10 + 5, 'y' FROM generate_series(100, 4000, 100) g;
SELECT compact_leaf_pages FROM elastic_index_stats('am_i');
COMMIT;
INSERT INTO am_t SELECT g * 10 + 6, 'y' FROM generate_series(100, 4000, 100) g;
SELECT compact_leaf_pages FROM elastic_index_stats('am_i');
SELECT elastic_btree_shrink('am_i');
SELECT elastic_index_check('am_i', true);
SELECT count(*) FROM am_t;
-- and back to heap: compact leaves are possible again at once (the
-- rebuild under the bound measures its sample, four leaves, and then has
-- fewer entries left than a compact leaf holds: standard leaves; the
-- insert into a full one makes it compact)
BEGIN;
ALTER TABLE am_t SET ACCESS METHOD heap;
SELECT compact_leaf_pages > 0 AS has_compact FROM elastic_index_stats('am_i');
INSERT INTO am_t VALUES (25, 'y');
SELECT compact_leaf_pages > 0 AS has_compact FROM elastic_index_stats('am_i');
COMMIT;
SELECT elastic_index_check('am_i', true);
SET client_min_messages = warning;
DROP SCHEMA ei_pcstale CASCADE;
DROP ACCESS METHOD ei_heap2;
-- the next file creates the extension afresh
DROP EXTENSION elastic_index CASCADE;
RESET client_min_messages;
