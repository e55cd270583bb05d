CREATE EXTENSION IF NOT EXISTS elastic_index;
-- everything this file creates lives in its own schema
SET client_min_messages = warning;
DROP SCHEMA IF EXISTS ei_osmexcl CASCADE;
CREATE SCHEMA ei_osmexcl;
SET search_path = ei_osmexcl, public;
RESET client_min_messages;
--
-- Exclusion constraints on osm_tree.  Their check (check_exclusion_or_
-- unique_constraint) searches the index under SnapshotDirty, a non-MVCC
-- snapshot, for which nbtree keeps the leaf pinned so that VACUUM cannot
-- recycle a TID the scan holds.  Buffered osm_tree entries are copies
-- whose pages are not pinned, but an exclusion constraint's index takes
-- every entry straight into the tree (osminsert), never into a batch or the
-- insert buffer, so the check never meets one; other non-MVCC scans with
-- keys get buffered entries with xs_recheck set (src/README.md, "Reading").
--
SET osm_tree.top_inserts = off;
CREATE TABLE ox (k int4, v int4,
	EXCLUDE USING osm_tree (k WITH =) WITH (buffer_size = 8, batch_size = 1));
CREATE INDEX ox_v ON ox USING osm_tree (v) WITH (buffer_size = 8, batch_size = 1);
INSERT INTO ox SELECT g * 2, g * 2 FROM generate_series(1, 1000) AS g;
INSERT INTO ox SELECT g * 2 + 1, g * 2 + 1 FROM generate_series(1, 1000) AS g;
-- the plain index buffered entries, the constraint's index none
SELECT c.relname, b.entries > 0 AS buffered
FROM pg_class AS c, osm_tree_buffer_stats(c.oid) AS b
WHERE c.relname IN ('ox_k_excl', 'ox_v') ORDER BY 1;
-- a conflict is found, in the tree
INSERT INTO ox VALUES (1001, 0);
-- a deleted row's TID recycled by VACUUM for a row with another key: the
-- old key goes in again without a false conflict, the new one conflicts
SELECT ctid AS old_ctid FROM ox WHERE k = 1001 \gset
DELETE FROM ox WHERE k = 1001;
VACUUM ox;
INSERT INTO ox VALUES (5000, 5000);
SELECT ctid = :'old_ctid' AS tid_recycled FROM ox WHERE k = 5000;
INSERT INTO ox VALUES (1001, 1001);
INSERT INTO ox VALUES (5000, 0);
SELECT count(*), count(DISTINCT k) FROM ox;

SET client_min_messages = warning;
DROP SCHEMA ei_osmexcl CASCADE;
RESET client_min_messages;
-- the next file creates the extension afresh
DROP EXTENSION elastic_index CASCADE;
