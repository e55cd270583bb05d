CREATE EXTENSION IF NOT EXISTS elastic_index;
-- everything this file creates lives in its own schema
SET client_min_messages = warning;
DROP SCHEMA IF EXISTS ei_polcache CASCADE;
CREATE SCHEMA ei_polcache;
SET search_path = ei_polcache, public;
RESET client_min_messages;
--
-- Each index keeps one per-backend cache for its policy (EIGetPolicyCache,
-- src/core/policy.c).  The verifier and the size functions ask about
-- compact leaves for any index; on an osm_tree index that must not touch
-- the osm policy's cache, which holds its insert buffer state.  A fresh
-- session: the verifier runs first, then buffered inserts and scans use
-- the cache.
--
CREATE TABLE pc_t (a int8);
INSERT INTO pc_t SELECT g FROM generate_series(1, 2000) g;
CREATE INDEX pc_osm ON pc_t USING osm_tree (a) WITH (buffer_size = 8, batch_size = 1);
CREATE INDEX pc_el ON pc_t USING elastic_btree (a);
\c
SET search_path = ei_polcache, public;
SET osm_tree.top_inserts = off;
SELECT elastic_index_check('pc_osm', true);
-- buffered inserts (out of order, so the buffer takes them) and scans
INSERT INTO pc_t SELECT 5000 - g FROM generate_series(1, 300) g;
SELECT buffer_entries > 0 AS buffered FROM elastic_index_stats('pc_osm');
SET enable_seqscan = off;
SET enable_bitmapscan = off;
SELECT count(*) FROM pc_t WHERE a BETWEEN 4700 AND 4999;
SET enable_indexscan = off;
SET enable_bitmapscan = on;
SELECT count(*) FROM pc_t WHERE a BETWEEN 4700 AND 4999;
RESET enable_indexscan;
RESET enable_bitmapscan;
SELECT elastic_index_check('pc_osm', true);
-- the elastic index in the same session, and the size functions on osm
SELECT elastic_index_check('pc_el', true);
SELECT elastic_btree_shrink('pc_osm');
SELECT elastic_index_check('pc_osm', true);
INSERT INTO pc_t SELECT 9000 - g FROM generate_series(1, 100) g;
SELECT count(*) FROM pc_t WHERE a BETWEEN 8900 AND 8999;
RESET enable_seqscan;
SET client_min_messages = warning;
DROP SCHEMA ei_polcache CASCADE;
-- the next file creates the extension afresh
DROP EXTENSION elastic_index CASCADE;
RESET client_min_messages;
