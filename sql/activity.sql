CREATE EXTENSION IF NOT EXISTS elastic_index;
--
-- Activity counters: elastic_index_activity(), the view
-- elastic_index_stat_activity, elastic_index_activity_info() and
-- elastic_index_activity_reset().  Each step does known operations and
-- checks that the counters moved by the amounts the tree's shape (read
-- with elastic_index_stats) implies.
--
SET client_min_messages = warning;

SHOW elastic_index.stats_max_indexes;
SET elastic_index.stats_max_indexes = 10;

SELECT stats_reset AS reset_before FROM elastic_index_activity_info() \gset
SELECT elastic_index_activity_reset();
SELECT max_indexes, overflowed, stats_reset > :'reset_before' AS reset_time_moved
FROM elastic_index_activity_info();

-- a query that shows every counter of one index
CREATE FUNCTION act(idx regclass)
RETURNS TABLE (leaf_splits int8, inner_splits int8, root_splits int8,
			   fastpath_inserts int8, descents int8,
			   dead_on_insert int8, dead_by_vacuum int8,
			   pages_deleted int8, pages_recycled int8, pages_extended int8)
LANGUAGE sql AS $fn$
	SELECT leaf_splits, inner_splits, root_splits, fastpath_inserts, descents,
		   dead_entries_removed_on_insert, dead_entries_removed_by_vacuum,
		   pages_deleted, pages_recycled, pages_extended
	FROM elastic_index_stat_activity WHERE indexrelid = idx
$fn$;

-- CREATE INDEX counts nothing; a new index shows up in the view with zeros
-- and has no entry until its first event
CREATE TABLE act_t (id int4, pad text) WITH (autovacuum_enabled = off);
CREATE INDEX act_id ON act_t USING elastic_btree (id);
CREATE INDEX act_pad ON act_t USING elastic_btree (pad);
SELECT schemaname, relname, indexrelname, indexrelid = 'act_id'::regclass AS oid_ok
FROM elastic_index_stat_activity WHERE relname = 'act_t' ORDER BY indexrelname;
SELECT * FROM act('act_id');
SELECT count(*) FROM elastic_index_activity()
WHERE indexrelid IN ('act_id'::regclass, 'act_pad'::regclass);

-- 5000 ascending rows into the empty indexes.  Every split takes a new page
-- from the end of the file; each leaf split leaves one more leaf, each
-- inner split and each new root one more inner page.  The insert that
-- splits the rightmost leaf and the one after it descend from the root,
-- every other insert takes the fast path.  The wide keys of act_pad make
-- a three-level tree.
INSERT INTO act_t SELECT g, lpad(g::text, 200, '0') FROM generate_series(1, 5000) AS g;
SELECT i, s.height,
	   a.leaf_splits = s.leaf_pages - 1 AS leaf_splits_ok,
	   a.root_splits = s.height - 1 AS root_splits_ok,
	   a.inner_splits + a.root_splits = s.inner_pages AS inner_splits_ok,
	   a.inner_splits > 0 AS has_inner_splits,
	   a.pages_extended = s.total_pages - 2 AS pages_extended_ok,
	   a.pages_recycled,
	   a.fastpath_inserts + a.descents AS inserts,
	   a.descents = 2 * a.leaf_splits + 1 AS descents_ok,
	   a.dead_on_insert, a.dead_by_vacuum, a.pages_deleted
FROM unnest(ARRAY['act_id', 'act_pad']) AS i,
	 LATERAL elastic_index_stats(i::regclass) AS s,
	 LATERAL act(i::regclass) AS a
ORDER BY i;
SELECT count(*) FROM elastic_index_activity()
WHERE indexrelid IN ('act_id'::regclass, 'act_pad'::regclass);

-- resetting one index leaves the other alone
SELECT elastic_index_activity_reset('act_id');
SELECT * FROM act('act_id');
SELECT fastpath_inserts + descents AS inserts FROM act('act_pad');
SELECT elastic_index_activity_reset();
SELECT * FROM act('act_pad');

-- VACUUM removes the entries of the 3000 deleted rows and deletes the
-- leaves (and inner pages) it empties; nothing else moves
DELETE FROM act_t WHERE id <= 3000;
VACUUM act_t;
SELECT i, a.dead_by_vacuum, a.pages_deleted = s.deleted_pages AS pages_deleted_ok,
	   a.pages_deleted > 0 AS has_deleted_pages,
	   a.leaf_splits + a.inner_splits + a.root_splits AS splits,
	   a.fastpath_inserts + a.descents AS inserts, a.dead_on_insert,
	   a.pages_recycled + a.pages_extended AS new_pages
FROM unnest(ARRAY['act_id', 'act_pad']) AS i,
	 LATERAL elastic_index_stats(i::regclass) AS s,
	 LATERAL act(i::regclass) AS a
ORDER BY i;

-- inserting the deleted keys again, an ascending run in front of the
-- remaining keys: every insert is counted once, most of them take the fast
-- path; every split takes one page, and pages that VACUUM deleted are taken
-- from the free space map first
INSERT INTO act_t SELECT g, lpad(g::text, 200, '0') FROM generate_series(1, 3000) AS g;
SELECT i, a.fastpath_inserts + a.descents AS inserts,
	   a.fastpath_inserts > a.descents AS mostly_fastpath,
	   a.pages_recycled > 0 AS recycled_some,
	   a.pages_recycled <= a.pages_deleted AS recycled_at_most_deleted,
	   a.pages_recycled + a.pages_extended =
	   a.leaf_splits + a.inner_splits + a.root_splits AS one_page_per_split,
	   s.deleted_pages = a.pages_deleted - a.pages_recycled AS deleted_left_ok
FROM unnest(ARRAY['act_id', 'act_pad']) AS i,
	 LATERAL elastic_index_stats(i::regclass) AS s,
	 LATERAL act(i::regclass) AS a
ORDER BY i;
SELECT elastic_index_check('act_id', true), elastic_index_check('act_pad', true);

-- opportunistic cleanup: 100 entries of the first leaf marked dead by an
-- index scan are removed by the insert that finds the leaf full, which
-- then needs no split
CREATE TABLE act_d (id int4) WITH (autovacuum_enabled = off);
CREATE INDEX act_d_id ON act_d USING elastic_btree (id);
INSERT INTO act_d SELECT g * 2 FROM generate_series(1, 2000) AS g;
SELECT elastic_index_activity_reset('act_d_id');
DELETE FROM act_d WHERE id <= 200;
SET enable_seqscan = off;
SET enable_bitmapscan = off;
SET enable_indexonlyscan = off;
SELECT count(*) FROM act_d WHERE id <= 200;
RESET enable_seqscan;
RESET enable_bitmapscan;
RESET enable_indexonlyscan;
SELECT dead_entries, leaf_pages AS leaf_pages_before FROM elastic_index_stats('act_d_id') \gset
SELECT :dead_entries AS dead_entries;
INSERT INTO act_d SELECT g * 2 - 1 FROM generate_series(1, 100) AS g;
SELECT a.leaf_splits, a.inner_splits, a.root_splits,
	   a.fastpath_inserts + a.descents AS inserts, a.dead_on_insert,
	   a.dead_by_vacuum, a.pages_deleted, a.pages_recycled, a.pages_extended,
	   s.leaf_pages = :leaf_pages_before AS no_new_leaf, s.dead_entries, s.entries
FROM act('act_d_id') AS a, elastic_index_stats('act_d_id') AS s;

-- a dropped index's counters go when the drop commits, not when it is
-- rolled back (also to a savepoint)
SELECT 'act_d_id'::regclass::oid AS act_d_oid \gset
BEGIN;
DROP INDEX act_d_id;
ROLLBACK;
SELECT count(*) FROM elastic_index_activity() WHERE indexrelid = :act_d_oid;
BEGIN;
SAVEPOINT s1;
DROP TABLE act_d;
ROLLBACK TO SAVEPOINT s1;
COMMIT;
SELECT count(*) FROM elastic_index_activity() WHERE indexrelid = :act_d_oid;
BEGIN;
SAVEPOINT s1;
DROP TABLE act_d;
RELEASE SAVEPOINT s1;
SELECT count(*) FROM elastic_index_activity() WHERE indexrelid = :act_d_oid;
COMMIT;
SELECT count(*) FROM elastic_index_activity() WHERE indexrelid = :act_d_oid;

-- reading is open to everyone, resetting only to superusers by default
CREATE ROLE regress_activity_reader;
SET ROLE regress_activity_reader;
SELECT count(*) AS act_t_indexes FROM elastic_index_stat_activity WHERE relname = 'act_t';
SELECT overflowed FROM elastic_index_activity_info();
SELECT elastic_index_activity_reset('act_id');
SELECT elastic_index_activity_reset();
RESET ROLE;
DROP ROLE regress_activity_reader;

-- a SQL definition that does not match the library is refused
CREATE FUNCTION act_wrong(OUT indexrelid oid, OUT leaf_splits int8)
RETURNS SETOF record AS '$libdir/elastic_index', 'elastic_index_activity'
LANGUAGE C;
SELECT * FROM act_wrong();
DROP FUNCTION act_wrong();

-- dropping the table drops its indexes' counters
SELECT 'act_id'::regclass::oid AS act_id_oid, 'act_pad'::regclass::oid AS act_pad_oid \gset
DROP TABLE act_t;
SELECT count(*) FROM elastic_index_activity()
WHERE indexrelid IN (:act_id_oid, :act_pad_oid);
DROP FUNCTION act(regclass);
DROP EXTENSION elastic_index CASCADE;
