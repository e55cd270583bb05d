CREATE EXTENSION IF NOT EXISTS elastic_index;
-- everything this file creates lives in its own schema
SET client_min_messages = warning;
DROP SCHEMA IF EXISTS ei_dedup_dead CASCADE;
CREATE SCHEMA ei_dedup_dead;
SET search_path = ei_dedup_dead, public;
RESET client_min_messages;
-- A posting split must not put a live heap TID into a posting list that
-- scans marked LP_DEAD (every TID of it dead): scans skip such a list, and
-- removing dead items later would take the new row's only entry with it.
-- The new entry goes in only after the leaf's dead items are gone (or the
-- list's hint is cleared), as nbtree does.
SET enable_seqscan = off;
SET enable_bitmapscan = off;
CREATE TABLE dd (k int, f text) WITH (autovacuum_enabled = off);
ALTER TABLE dd ALTER f SET STORAGE plain;
-- two rows per heap page: k = 1 at (0,1) and (2,1), k = 2 on page 1
INSERT INTO dd
SELECT CASE WHEN g IN (1, 5) THEN 1 WHEN g IN (3, 4) THEN 2 ELSE 3 END, repeat('x', 3000)
FROM generate_series(1, 6) g;
DELETE FROM dd WHERE k = 2;
VACUUM dd;
CREATE INDEX dd_k ON dd USING elastic_btree (k) WITH (deduplicate_items = on);
DELETE FROM dd WHERE k = 1;
-- this scan finds both TIDs of the list dead and marks the list LP_DEAD
SELECT count(*) FROM dd WHERE k = 1;
-- a new row for k = 1 lands on heap page 0, inside the list's TID range
INSERT INTO dd VALUES (1, 'new') RETURNING ctid;
SELECT ctid, k FROM dd WHERE k = 1;
SELECT elastic_index_check('dd_k', heapallindexed => true);
-- fill the leaf until it splits: its dead items are removed first
INSERT INTO dd SELECT 5, 'y' FROM generate_series(1, 600);
INSERT INTO dd SELECT 5, 'y' FROM generate_series(1, 600);
SELECT ctid, k FROM dd WHERE k = 1;
SELECT elastic_index_check('dd_k', heapallindexed => true);
-- the same rows through the index and by a seq scan
SELECT count(*), sum(k) FROM dd WHERE k IN (1, 3, 5);
RESET enable_seqscan;
RESET enable_bitmapscan;
SELECT count(*), sum(k) FROM dd WHERE k IN (1, 3, 5);
SET client_min_messages = warning;
DROP SCHEMA ei_dedup_dead CASCADE;
DROP EXTENSION elastic_index CASCADE;
RESET client_min_messages;
RESET search_path;
