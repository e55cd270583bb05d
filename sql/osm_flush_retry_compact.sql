-- A flush of osm_tree's insert buffer that fails after it moved some
-- entries into the tree leaves them in the buffer too; the next flush must
-- find them there and go on, on compact leaves as on standard ones (it
-- raised "entry for heap TID ... is already in index" on compact leaves,
-- and every later flush and VACUUM with it).  Needs a build with
-- EI_FAULT_INJECTION, as every suite's build is.
CREATE EXTENSION IF NOT EXISTS elastic_index;
-- everything this file creates lives in its own schema
SET client_min_messages = warning;
DROP SCHEMA IF EXISTS ei_flush_retry CASCADE;
CREATE SCHEMA ei_flush_retry;
SET search_path = ei_flush_retry, public;
RESET client_min_messages;

CREATE TABLE fr (seq int8);
CREATE INDEX fr_seq ON fr USING osm_tree (seq)
	WITH (compact_leaves = on, buffer_size = 8);
INSERT INTO fr SELECT g FROM generate_series(1, 20000) g;
SELECT compact_leaf_pages > 0 AS has_compact_leaves FROM elastic_index_stats('fr_seq');

-- 300 scattered rows into the insert buffer
SET osm_tree.top_inserts = off;
SET osm_tree.flush_worker = off;
INSERT INTO fr SELECT g * 37 % 20000 FROM generate_series(1, 300) g;
SELECT buffer_entries FROM elastic_index_stats('fr_seq');

-- the first flush fails after moving entries; the second finishes the job
SET elastic_index.debug_fault = after_flush_insert;
SELECT osm_tree_flush('fr_seq');
RESET elastic_index.debug_fault;
SELECT osm_tree_flush('fr_seq') > 0 AS flushed;
SELECT buffer_entries FROM elastic_index_stats('fr_seq');
VACUUM fr;
SELECT elastic_index_check('fr_seq', true);

-- every row once, through the index and by a sequential scan
SET enable_seqscan = off;
SET enable_bitmapscan = off;
SELECT count(*), count(DISTINCT ctid), sum(seq) FROM fr WHERE seq >= 0;
RESET enable_seqscan;
RESET enable_bitmapscan;
SET enable_indexscan = off;
SET enable_indexonlyscan = off;
SET enable_bitmapscan = off;
SELECT count(*), count(DISTINCT ctid), sum(seq) FROM fr WHERE seq >= 0;
RESET ALL;
SET search_path = ei_flush_retry, public;

-- the same with standard leaves, which already took it
CREATE TABLE fs (seq int8);
CREATE INDEX fs_seq ON fs USING osm_tree (seq) WITH (buffer_size = 8);
INSERT INTO fs SELECT g FROM generate_series(1, 20000) g;
SET osm_tree.top_inserts = off;
SET osm_tree.flush_worker = off;
INSERT INTO fs SELECT g * 37 % 20000 FROM generate_series(1, 300) g;
SET elastic_index.debug_fault = after_flush_insert;
SELECT osm_tree_flush('fs_seq');
RESET elastic_index.debug_fault;
SELECT osm_tree_flush('fs_seq') > 0 AS flushed;
SELECT elastic_index_check('fs_seq', true);
SET enable_seqscan = off;
SET enable_bitmapscan = off;
SELECT count(*), count(DISTINCT ctid), sum(seq) FROM fs WHERE seq >= 0;
RESET ALL;

SET client_min_messages = warning;
DROP SCHEMA ei_flush_retry CASCADE;
-- the next file creates the extension afresh
DROP EXTENSION elastic_index CASCADE;
RESET client_min_messages;
