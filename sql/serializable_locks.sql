--
-- SERIALIZABLE: our index scans take page-level predicate locks
-- (ampredlocks), as btree's do: pg_locks shows SIReadLocks of locktype
-- 'page' on the index after a serializable scan, never 'relation'.  Each
-- kind of scan, on btree (the reference) and on elastic_btree with
-- standard and compact leaves and osm_tree: index, index-only, bitmap,
-- backward, one that finds nothing, parallel (elastic_btree; osm_tree has
-- no parallel scans) and the inner side of a merge join (mark/restore).
-- The answers are compared with a sequential scan's.  See src/README.md,
-- "Predicate locks"; the conflicts themselves are in
-- test/specs/serializable_*.spec.
--
CREATE EXTENSION IF NOT EXISTS elastic_index;
SET client_min_messages = warning;

-- this backend's predicate locks on an index, by kind
CREATE FUNCTION ssi_locks(idx regclass) RETURNS TABLE (locktype text, locks bigint)
LANGUAGE sql AS $$
	SELECT l.locktype, count(*) FROM pg_locks l
	WHERE l.relation = idx AND l.mode = 'SIReadLock' AND l.pid = pg_backend_pid()
	GROUP BY l.locktype ORDER BY l.locktype
$$;

CREATE TABLE ssi_bt (k int4, v int4);
INSERT INTO ssi_bt SELECT g * 1000, g FROM generate_series(0, 9999) AS g;
CREATE INDEX ssi_bt_k ON ssi_bt USING btree (k);
ANALYZE ssi_bt;
CREATE TABLE ssi_eb (k int4, v int4);
INSERT INTO ssi_eb SELECT g * 1000, g FROM generate_series(0, 9999) AS g;
CREATE INDEX ssi_eb_k ON ssi_eb USING elastic_btree (k);
ANALYZE ssi_eb;
CREATE TABLE ssi_cp (k int4, v int4);
INSERT INTO ssi_cp SELECT g * 1000, g FROM generate_series(0, 9999) AS g;
-- built standard, then each leaf made compact in place (a build under the
-- bound would pack compact leaves fuller)
CREATE INDEX ssi_cp_k ON ssi_cp USING elastic_btree (k);
ALTER INDEX ssi_cp_k SET (size_bound = '64kB');
SELECT elastic_btree_shrink('ssi_cp_k') > 0 AS shrunk;
ANALYZE ssi_cp;
CREATE TABLE ssi_osm (k int4, v int4);
INSERT INTO ssi_osm SELECT g * 1000, g FROM generate_series(0, 9999) AS g;
CREATE INDEX ssi_osm_k ON ssi_osm USING osm_tree (k);
ANALYZE ssi_osm;
SELECT compact_leaf_pages = leaf_pages AS all_compact FROM elastic_index_stats('ssi_cp_k');

-- the answers, by sequential scan
SELECT count(*), sum(v) FROM ssi_bt WHERE k BETWEEN 1000000 AND 1010000;
SELECT k FROM ssi_bt ORDER BY k DESC LIMIT 3;
SELECT count(*) FROM ssi_bt WHERE k BETWEEN 1000000 AND 3000000;

SET enable_seqscan = off;

-- index scan
BEGIN ISOLATION LEVEL SERIALIZABLE;
SET LOCAL enable_bitmapscan = off; SET LOCAL enable_indexonlyscan = off;
EXPLAIN (COSTS OFF) SELECT count(*), sum(v) FROM ssi_bt WHERE k BETWEEN 1000000 AND 1010000;
SELECT count(*), sum(v) FROM ssi_bt WHERE k BETWEEN 1000000 AND 1010000;
SELECT * FROM ssi_locks('ssi_bt_k');
COMMIT;
BEGIN ISOLATION LEVEL SERIALIZABLE;
SET LOCAL enable_bitmapscan = off; SET LOCAL enable_indexonlyscan = off;
EXPLAIN (COSTS OFF) SELECT count(*), sum(v) FROM ssi_eb WHERE k BETWEEN 1000000 AND 1010000;
SELECT count(*), sum(v) FROM ssi_eb WHERE k BETWEEN 1000000 AND 1010000;
SELECT * FROM ssi_locks('ssi_eb_k');
COMMIT;
BEGIN ISOLATION LEVEL SERIALIZABLE;
SET LOCAL enable_bitmapscan = off; SET LOCAL enable_indexonlyscan = off;
EXPLAIN (COSTS OFF) SELECT count(*), sum(v) FROM ssi_cp WHERE k BETWEEN 1000000 AND 1010000;
SELECT count(*), sum(v) FROM ssi_cp WHERE k BETWEEN 1000000 AND 1010000;
SELECT * FROM ssi_locks('ssi_cp_k');
COMMIT;
BEGIN ISOLATION LEVEL SERIALIZABLE;
SET LOCAL enable_bitmapscan = off; SET LOCAL enable_indexonlyscan = off;
EXPLAIN (COSTS OFF) SELECT count(*), sum(v) FROM ssi_osm WHERE k BETWEEN 1000000 AND 1010000;
SELECT count(*), sum(v) FROM ssi_osm WHERE k BETWEEN 1000000 AND 1010000;
SELECT * FROM ssi_locks('ssi_osm_k');
COMMIT;

-- index-only scan
BEGIN ISOLATION LEVEL SERIALIZABLE;
SET LOCAL enable_bitmapscan = off;
EXPLAIN (COSTS OFF) SELECT count(*) FROM ssi_bt WHERE k BETWEEN 1000000 AND 1010000;
SELECT count(*) FROM ssi_bt WHERE k BETWEEN 1000000 AND 1010000;
SELECT * FROM ssi_locks('ssi_bt_k');
COMMIT;
BEGIN ISOLATION LEVEL SERIALIZABLE;
SET LOCAL enable_bitmapscan = off;
EXPLAIN (COSTS OFF) SELECT count(*) FROM ssi_eb WHERE k BETWEEN 1000000 AND 1010000;
SELECT count(*) FROM ssi_eb WHERE k BETWEEN 1000000 AND 1010000;
SELECT * FROM ssi_locks('ssi_eb_k');
COMMIT;
BEGIN ISOLATION LEVEL SERIALIZABLE;
SET LOCAL enable_bitmapscan = off;
EXPLAIN (COSTS OFF) SELECT count(*) FROM ssi_cp WHERE k BETWEEN 1000000 AND 1010000;
SELECT count(*) FROM ssi_cp WHERE k BETWEEN 1000000 AND 1010000;
SELECT * FROM ssi_locks('ssi_cp_k');
COMMIT;
BEGIN ISOLATION LEVEL SERIALIZABLE;
SET LOCAL enable_bitmapscan = off;
EXPLAIN (COSTS OFF) SELECT count(*) FROM ssi_osm WHERE k BETWEEN 1000000 AND 1010000;
SELECT count(*) FROM ssi_osm WHERE k BETWEEN 1000000 AND 1010000;
SELECT * FROM ssi_locks('ssi_osm_k');
COMMIT;

-- bitmap scan
BEGIN ISOLATION LEVEL SERIALIZABLE;
SET LOCAL enable_indexscan = off; SET LOCAL enable_indexonlyscan = off;
EXPLAIN (COSTS OFF) SELECT count(*), sum(v) FROM ssi_bt WHERE k BETWEEN 1000000 AND 1010000;
SELECT count(*), sum(v) FROM ssi_bt WHERE k BETWEEN 1000000 AND 1010000;
SELECT * FROM ssi_locks('ssi_bt_k');
COMMIT;
BEGIN ISOLATION LEVEL SERIALIZABLE;
SET LOCAL enable_indexscan = off; SET LOCAL enable_indexonlyscan = off;
EXPLAIN (COSTS OFF) SELECT count(*), sum(v) FROM ssi_eb WHERE k BETWEEN 1000000 AND 1010000;
SELECT count(*), sum(v) FROM ssi_eb WHERE k BETWEEN 1000000 AND 1010000;
SELECT * FROM ssi_locks('ssi_eb_k');
COMMIT;
BEGIN ISOLATION LEVEL SERIALIZABLE;
SET LOCAL enable_indexscan = off; SET LOCAL enable_indexonlyscan = off;
EXPLAIN (COSTS OFF) SELECT count(*), sum(v) FROM ssi_cp WHERE k BETWEEN 1000000 AND 1010000;
SELECT count(*), sum(v) FROM ssi_cp WHERE k BETWEEN 1000000 AND 1010000;
SELECT * FROM ssi_locks('ssi_cp_k');
COMMIT;
BEGIN ISOLATION LEVEL SERIALIZABLE;
SET LOCAL enable_indexscan = off; SET LOCAL enable_indexonlyscan = off;
EXPLAIN (COSTS OFF) SELECT count(*), sum(v) FROM ssi_osm WHERE k BETWEEN 1000000 AND 1010000;
SELECT count(*), sum(v) FROM ssi_osm WHERE k BETWEEN 1000000 AND 1010000;
SELECT * FROM ssi_locks('ssi_osm_k');
COMMIT;

-- backward scan
BEGIN ISOLATION LEVEL SERIALIZABLE;
SET LOCAL enable_bitmapscan = off;
EXPLAIN (COSTS OFF) SELECT k FROM ssi_bt ORDER BY k DESC LIMIT 3;
SELECT k FROM ssi_bt ORDER BY k DESC LIMIT 3;
SELECT * FROM ssi_locks('ssi_bt_k');
COMMIT;
BEGIN ISOLATION LEVEL SERIALIZABLE;
SET LOCAL enable_bitmapscan = off;
EXPLAIN (COSTS OFF) SELECT k FROM ssi_eb ORDER BY k DESC LIMIT 3;
SELECT k FROM ssi_eb ORDER BY k DESC LIMIT 3;
SELECT * FROM ssi_locks('ssi_eb_k');
COMMIT;
BEGIN ISOLATION LEVEL SERIALIZABLE;
SET LOCAL enable_bitmapscan = off;
EXPLAIN (COSTS OFF) SELECT k FROM ssi_cp ORDER BY k DESC LIMIT 3;
SELECT k FROM ssi_cp ORDER BY k DESC LIMIT 3;
SELECT * FROM ssi_locks('ssi_cp_k');
COMMIT;
BEGIN ISOLATION LEVEL SERIALIZABLE;
SET LOCAL enable_bitmapscan = off;
EXPLAIN (COSTS OFF) SELECT k FROM ssi_osm ORDER BY k DESC LIMIT 3;
SELECT k FROM ssi_osm ORDER BY k DESC LIMIT 3;
SELECT * FROM ssi_locks('ssi_osm_k');
COMMIT;

-- a scan that finds nothing: the leaf where the key would be
BEGIN ISOLATION LEVEL SERIALIZABLE;
SET LOCAL enable_bitmapscan = off;
EXPLAIN (COSTS OFF) SELECT count(*) FROM ssi_bt WHERE k = 1000500;
SELECT count(*) FROM ssi_bt WHERE k = 1000500;
SELECT * FROM ssi_locks('ssi_bt_k');
COMMIT;
BEGIN ISOLATION LEVEL SERIALIZABLE;
SET LOCAL enable_bitmapscan = off;
EXPLAIN (COSTS OFF) SELECT count(*) FROM ssi_eb WHERE k = 1000500;
SELECT count(*) FROM ssi_eb WHERE k = 1000500;
SELECT * FROM ssi_locks('ssi_eb_k');
COMMIT;
BEGIN ISOLATION LEVEL SERIALIZABLE;
SET LOCAL enable_bitmapscan = off;
EXPLAIN (COSTS OFF) SELECT count(*) FROM ssi_cp WHERE k = 1000500;
SELECT count(*) FROM ssi_cp WHERE k = 1000500;
SELECT * FROM ssi_locks('ssi_cp_k');
COMMIT;
BEGIN ISOLATION LEVEL SERIALIZABLE;
SET LOCAL enable_bitmapscan = off;
EXPLAIN (COSTS OFF) SELECT count(*) FROM ssi_osm WHERE k = 1000500;
SELECT count(*) FROM ssi_osm WHERE k = 1000500;
SELECT * FROM ssi_locks('ssi_osm_k');
COMMIT;

-- below every key: the leftmost leaf
BEGIN ISOLATION LEVEL SERIALIZABLE;
SET LOCAL enable_bitmapscan = off;
EXPLAIN (COSTS OFF) SELECT count(*) FROM ssi_bt WHERE k < 0;
SELECT count(*) FROM ssi_bt WHERE k < 0;
SELECT * FROM ssi_locks('ssi_bt_k');
COMMIT;
BEGIN ISOLATION LEVEL SERIALIZABLE;
SET LOCAL enable_bitmapscan = off;
EXPLAIN (COSTS OFF) SELECT count(*) FROM ssi_eb WHERE k < 0;
SELECT count(*) FROM ssi_eb WHERE k < 0;
SELECT * FROM ssi_locks('ssi_eb_k');
COMMIT;
BEGIN ISOLATION LEVEL SERIALIZABLE;
SET LOCAL enable_bitmapscan = off;
EXPLAIN (COSTS OFF) SELECT count(*) FROM ssi_cp WHERE k < 0;
SELECT count(*) FROM ssi_cp WHERE k < 0;
SELECT * FROM ssi_locks('ssi_cp_k');
COMMIT;
BEGIN ISOLATION LEVEL SERIALIZABLE;
SET LOCAL enable_bitmapscan = off;
EXPLAIN (COSTS OFF) SELECT count(*) FROM ssi_osm WHERE k < 0;
SELECT count(*) FROM ssi_osm WHERE k < 0;
SELECT * FROM ssi_locks('ssi_osm_k');
COMMIT;

-- merge join: the inner index scan marks and restores
BEGIN ISOLATION LEVEL SERIALIZABLE;
SET LOCAL enable_hashjoin = off; SET LOCAL enable_nestloop = off; SET LOCAL enable_bitmapscan = off; SET LOCAL enable_indexonlyscan = off;
EXPLAIN (COSTS OFF) SELECT count(*), sum(s.v) FROM (VALUES (1000000), (1000000), (1001000), (1001000), (1002000)) AS o(x) JOIN ssi_bt s ON s.k = o.x;
SELECT count(*), sum(s.v) FROM (VALUES (1000000), (1000000), (1001000), (1001000), (1002000)) AS o(x) JOIN ssi_bt s ON s.k = o.x;
SELECT * FROM ssi_locks('ssi_bt_k');
COMMIT;
BEGIN ISOLATION LEVEL SERIALIZABLE;
SET LOCAL enable_hashjoin = off; SET LOCAL enable_nestloop = off; SET LOCAL enable_bitmapscan = off; SET LOCAL enable_indexonlyscan = off;
EXPLAIN (COSTS OFF) SELECT count(*), sum(s.v) FROM (VALUES (1000000), (1000000), (1001000), (1001000), (1002000)) AS o(x) JOIN ssi_eb s ON s.k = o.x;
SELECT count(*), sum(s.v) FROM (VALUES (1000000), (1000000), (1001000), (1001000), (1002000)) AS o(x) JOIN ssi_eb s ON s.k = o.x;
SELECT * FROM ssi_locks('ssi_eb_k');
COMMIT;
BEGIN ISOLATION LEVEL SERIALIZABLE;
SET LOCAL enable_hashjoin = off; SET LOCAL enable_nestloop = off; SET LOCAL enable_bitmapscan = off; SET LOCAL enable_indexonlyscan = off;
EXPLAIN (COSTS OFF) SELECT count(*), sum(s.v) FROM (VALUES (1000000), (1000000), (1001000), (1001000), (1002000)) AS o(x) JOIN ssi_cp s ON s.k = o.x;
SELECT count(*), sum(s.v) FROM (VALUES (1000000), (1000000), (1001000), (1001000), (1002000)) AS o(x) JOIN ssi_cp s ON s.k = o.x;
SELECT * FROM ssi_locks('ssi_cp_k');
COMMIT;
BEGIN ISOLATION LEVEL SERIALIZABLE;
SET LOCAL enable_hashjoin = off; SET LOCAL enable_nestloop = off; SET LOCAL enable_bitmapscan = off; SET LOCAL enable_indexonlyscan = off;
EXPLAIN (COSTS OFF) SELECT count(*), sum(s.v) FROM (VALUES (1000000), (1000000), (1001000), (1001000), (1002000)) AS o(x) JOIN ssi_osm s ON s.k = o.x;
SELECT count(*), sum(s.v) FROM (VALUES (1000000), (1000000), (1001000), (1001000), (1002000)) AS o(x) JOIN ssi_osm s ON s.k = o.x;
SELECT * FROM ssi_locks('ssi_osm_k');
COMMIT;

-- parallel index-only scan (btree and elastic_btree)
BEGIN ISOLATION LEVEL SERIALIZABLE;
SET LOCAL enable_bitmapscan = off; SET LOCAL parallel_setup_cost = 0; SET LOCAL parallel_tuple_cost = 0;
SET LOCAL min_parallel_index_scan_size = 0; SET LOCAL max_parallel_workers_per_gather = 2;
EXPLAIN (COSTS OFF) SELECT count(*) FROM ssi_bt WHERE k BETWEEN 1000000 AND 3000000;
SELECT count(*) FROM ssi_bt WHERE k BETWEEN 1000000 AND 3000000;
SELECT * FROM ssi_locks('ssi_bt_k');
COMMIT;
BEGIN ISOLATION LEVEL SERIALIZABLE;
SET LOCAL enable_bitmapscan = off; SET LOCAL parallel_setup_cost = 0; SET LOCAL parallel_tuple_cost = 0;
SET LOCAL min_parallel_index_scan_size = 0; SET LOCAL max_parallel_workers_per_gather = 2;
EXPLAIN (COSTS OFF) SELECT count(*) FROM ssi_eb WHERE k BETWEEN 1000000 AND 3000000;
SELECT count(*) FROM ssi_eb WHERE k BETWEEN 1000000 AND 3000000;
SELECT * FROM ssi_locks('ssi_eb_k');
COMMIT;

-- an empty index: its empty root leaf, not the relation (btree locks the
-- relation: it has no root page yet)
CREATE TABLE ssi_ebt (k int4);
CREATE INDEX ssi_ebt_k ON ssi_ebt USING btree (k);
BEGIN ISOLATION LEVEL SERIALIZABLE;
SET LOCAL enable_bitmapscan = off;
SELECT count(*) FROM ssi_ebt WHERE k = 5;
SELECT * FROM ssi_locks('ssi_ebt_k');
COMMIT;
DROP TABLE ssi_ebt;
CREATE TABLE ssi_eeb (k int4);
CREATE INDEX ssi_eeb_k ON ssi_eeb USING elastic_btree (k);
BEGIN ISOLATION LEVEL SERIALIZABLE;
SET LOCAL enable_bitmapscan = off;
SELECT count(*) FROM ssi_eeb WHERE k = 5;
SELECT * FROM ssi_locks('ssi_eeb_k');
COMMIT;
DROP TABLE ssi_eeb;
CREATE TABLE ssi_ecp (k int4);
CREATE INDEX ssi_ecp_k ON ssi_ecp USING elastic_btree (k) WITH (size_bound = '64kB');
BEGIN ISOLATION LEVEL SERIALIZABLE;
SET LOCAL enable_bitmapscan = off;
SELECT count(*) FROM ssi_ecp WHERE k = 5;
SELECT * FROM ssi_locks('ssi_ecp_k');
COMMIT;
DROP TABLE ssi_ecp;
CREATE TABLE ssi_eosm (k int4);
CREATE INDEX ssi_eosm_k ON ssi_eosm USING osm_tree (k);
BEGIN ISOLATION LEVEL SERIALIZABLE;
SET LOCAL enable_bitmapscan = off;
SELECT count(*) FROM ssi_eosm WHERE k = 5;
SELECT * FROM ssi_locks('ssi_eosm_k');
COMMIT;
DROP TABLE ssi_eosm;

-- not serializable: no predicate locks
BEGIN ISOLATION LEVEL REPEATABLE READ;
SELECT count(*) FROM ssi_eb WHERE k BETWEEN 1000000 AND 1010000;
SELECT * FROM ssi_locks('ssi_eb_k');
COMMIT;

RESET enable_seqscan;
DROP TABLE ssi_bt, ssi_eb, ssi_cp, ssi_osm;
DROP FUNCTION ssi_locks(regclass);
DROP EXTENSION elastic_index CASCADE;
RESET client_min_messages;
