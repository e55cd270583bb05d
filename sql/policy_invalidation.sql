CREATE EXTENSION IF NOT EXISTS elastic_index;
--
-- The size policy's decision is taken before the insert locks a leaf
-- (EITreePolicy.insert_prepare), and the leaf_full callback, under the
-- leaf's lock, reads only what it left in the policy's cache: no table
-- open for a percentage size_bound, no catalog lookup, no metapage read,
-- nothing that accepts invalidation messages (issue 19).  Assert builds
-- check that (ei_guard_relcache_callback, src/core/policy.c): a relcache
-- invalidation accepted while the insert's leaf is locked is a TRAP.
-- debug_discard_caches = 1 (assert builds; elsewhere it stays 0) makes
-- every point that accepts invalidations discard every cache, also
-- rd_amcache, so the old table_open under the leaf lock trapped here.
-- On any build the inserts must make leaves compact under the percentage
-- bound and leave an intact index.
--
SET client_min_messages = warning;
DROP TABLE IF EXISTS inv_t;
RESET client_min_messages;

CREATE TABLE inv_t (a int4, pad text) WITH (autovacuum_enabled = off);
INSERT INTO inv_t SELECT g, repeat('x', 200) FROM generate_series(1, 20000) g;
-- full standard leaves, and a bound (5% of the table's 589 pages) the
-- index is over, set after the build (a build under it would form compact
-- leaves at once)
CREATE INDEX inv_i ON inv_t USING elastic_btree (a) WITH (fillfactor = 100);
ALTER INDEX inv_i SET (size_bound = '5%');
SELECT elastic_state, size_bound_pages, compact_leaf_pages
  FROM elastic_index_stats('inv_i');

-- a new session: the index's caches are not filled yet
\c
DO $$
BEGIN
  PERFORM set_config('debug_discard_caches', '1', false);
EXCEPTION WHEN invalid_parameter_value THEN
  NULL;		-- a build without cache discarding
END $$;
INSERT INTO inv_t SELECT (g * 7919) % 20000, 'y' FROM generate_series(1, 300) g;
RESET debug_discard_caches;

SELECT elastic_state, compact_leaf_pages > 0 AS has_compact
  FROM elastic_index_stats('inv_i');
SELECT elastic_index_check('inv_i', true);
SET enable_seqscan = off;
SET enable_bitmapscan = off;
SELECT count(*), count(DISTINCT a) FROM inv_t WHERE a BETWEEN 0 AND 20000;
RESET enable_seqscan;
RESET enable_bitmapscan;
SELECT count(*), count(DISTINCT a) FROM inv_t;

DROP TABLE inv_t;

--
-- The guard covers the policy's callbacks only: the core's removal of dead
-- entries before a split calls table_index_delete_tuples under the leaf
-- lock, which may look up the tablespace's maintenance_io_concurrency in
-- the catalog (as under nbtree's leaf lock).  With caches discarded, that
-- lookup accepts invalidations; a guard armed for the whole leaf lock
-- trapped here.
--
CREATE TABLE inv_d (a int4) WITH (autovacuum_enabled = off);
INSERT INTO inv_d SELECT g FROM generate_series(1, 4000) g;
CREATE INDEX inv_di ON inv_d USING elastic_btree (a) WITH (fillfactor = 100);
DELETE FROM inv_d WHERE a BETWEEN 1000 AND 1300;
-- an index scan marks the dead entries (LP_DEAD) and their leaf
SET enable_seqscan = off;
SET enable_bitmapscan = off;
SELECT count(*) FROM inv_d WHERE a BETWEEN 1000 AND 1300;
RESET enable_seqscan;
RESET enable_bitmapscan;
SELECT leaf_pages AS leaves_before FROM elastic_index_stats('inv_di') \gset
\c
DO $$
BEGIN
  PERFORM set_config('debug_discard_caches', '1', false);
EXCEPTION WHEN invalid_parameter_value THEN
  NULL;
END $$;
-- into the full leaf: its dead entries are removed instead of a split
INSERT INTO inv_d VALUES (1150);
RESET debug_discard_caches;
SELECT leaf_pages = :leaves_before AS no_split FROM elastic_index_stats('inv_di');
SELECT elastic_index_check('inv_di', true);
SELECT count(*) FROM inv_d WHERE a BETWEEN 1000 AND 1300;
DROP TABLE inv_d;
-- the next file creates the extension afresh
SET client_min_messages = warning;
DROP EXTENSION elastic_index CASCADE;
RESET client_min_messages;
