-- A flush of osm_tree's insert buffer whose first entry lands inside a
-- posting list only after the leaf's dedup pass (which merges the plain
-- entry after it into the list), on a leaf still full after that pass: the
-- entry takes a posting split, which hands the list's old last TID to the
-- new item, and the leaf splits.  The split must not take its high key
-- from the batch's next entries (a sorted run's split, which assumes they
-- all sort after the new item): those sort before the old last TID, and
-- the left page's last item would then not be less than its high key.
-- That damaged osm_tree indexes on low-cardinality columns under a
-- concurrent buffered workload (stop 37's stress test; scans then missed
-- rows).  The leaf is built item by item to that state; the sizes below
-- are those of a text key 'm' under COLLATE "C" on 8 kB pages.
CREATE EXTENSION IF NOT EXISTS elastic_index;
CREATE EXTENSION IF NOT EXISTS pageinspect;
-- everything this file creates lives in its own schema
SET client_min_messages = warning;
DROP SCHEMA IF EXISTS ei_posting_run_split CASCADE;
CREATE SCHEMA ei_posting_run_split;
SET search_path = ei_posting_run_split, public;
RESET client_min_messages;
SET osm_tree.flush_worker = off;

CREATE TABLE t (k text COLLATE "C") WITH (autovacuum_enabled = off);
CREATE INDEX t_k ON t USING osm_tree (k);

-- the root leaf's free bytes (line pointers included) and its item count
CREATE FUNCTION leaf_free() RETURNS int LANGUAGE sql AS $$
	SELECT (upper - lower)::int
	FROM page_header(get_raw_page('ei_posting_run_split.t_k',
		(SELECT root_block::int
		 FROM elastic_index_stats('ei_posting_run_split.t_k'))))
$$;
CREATE FUNCTION leaf_items() RETURNS int LANGUAGE sql AS $$
	SELECT ((lower - 24) / 4)::int
	FROM page_header(get_raw_page('ei_posting_run_split.t_k',
		(SELECT root_block::int
		 FROM elastic_index_stats('ei_posting_run_split.t_k'))))
$$;
-- a new key before 'm' whose entry takes sz bytes with its line pointer
CREATE SEQUENCE filler_seq;
CREATE FUNCTION filler(sz int) RETURNS text LANGUAGE sql AS $$
	SELECT rpad('a' || lpad(nextval('ei_posting_run_split.filler_seq')::text,
							6, '0'), sz - 13, 'x')
$$;

-- 221 entries of 'm' (one short of the largest list), made a posting list
-- by the dedup pass of the insert that finds the leaf full
SET osm_tree.top_inserts = on;
INSERT INTO t SELECT 'm' FROM generate_series(1, 221);
DO $$
BEGIN
	WHILE leaf_free() >= 20 LOOP
		INSERT INTO t VALUES (filler(20));
	END LOOP;
	INSERT INTO t VALUES (filler(20));
END $$;
SELECT leaf_items() < 221 AS list_formed, height FROM elastic_index_stats('t_k');

-- 60 rows of 'm' into the insert buffer, then two plain entries of 'm'
-- (heap TIDs after the buffered ones) and 60 keys after 'm'
SET osm_tree.top_inserts = off;
INSERT INTO t SELECT 'm' FROM generate_series(1, 60);
SET osm_tree.top_inserts = on;
INSERT INTO t VALUES ('m'), ('m');
INSERT INTO t SELECT 'n' || lpad(g::text, 4, '0') FROM generate_series(1, 60) g;

-- fill the leaf to within 4 bytes: the flush's first entry does not fit,
-- nor after the dedup pass merges the first plain 'm' into the list
DO $$
DECLARE
	f			int;
BEGIN
	WHILE leaf_free() >= 40 LOOP
		INSERT INTO t VALUES (filler(20));
	END LOOP;
	f := leaf_free();
	INSERT INTO t VALUES (filler(CASE WHEN f % 8 = 4 THEN f ELSE f - 4 END));
END $$;
SELECT leaf_free() <= 4 AS leaf_full, height, buffer_entries
FROM elastic_index_stats('t_k');

-- the flush splits the leaf; the index stays intact
SELECT osm_tree_flush('t_k');
SELECT height, buffer_entries FROM elastic_index_stats('t_k');
SELECT elastic_index_check('t_k', true);

-- every row once, through the index and by a sequential scan
SET enable_seqscan = off;
SET enable_bitmapscan = off;
SELECT count(*), count(DISTINCT ctid) FROM t WHERE k = 'm';
SELECT count(*), count(DISTINCT ctid) FROM t WHERE k >= '';
RESET enable_seqscan;
RESET enable_bitmapscan;
SET enable_indexscan = off;
SET enable_indexonlyscan = off;
SET enable_bitmapscan = off;
SELECT count(*), count(DISTINCT ctid) FROM t WHERE k = 'm';
SELECT count(*), count(DISTINCT ctid) FROM t WHERE k >= '';
RESET ALL;

SET client_min_messages = warning;
DROP SCHEMA ei_posting_run_split CASCADE;
DROP EXTENSION pageinspect;
DROP EXTENSION elastic_index CASCADE;
