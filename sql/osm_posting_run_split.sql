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
-- are those of a text key 'm' under COLLATE "C" on 8 kB pages.  The second
-- part lets the split take the sorted-run rule anyway (a fault of builds
-- with EI_FAULT_INJECTION, as every suite's is): the split's check refuses
-- it with a warning and chooses again without the batch's entries.
CREATE EXTENSION IF NOT EXISTS elastic_index;
CREATE EXTENSION IF NOT EXISTS pageinspect;
-- everything this file creates lives in its own schema
SET client_min_messages = warning;
DROP SCHEMA IF EXISTS ei_posting_run_split CASCADE;
CREATE SCHEMA ei_posting_run_split;
SET search_path = ei_posting_run_split, public;
RESET client_min_messages;
SET osm_tree.flush_worker = off;
SELECT current_setting('block_size') = '8192' AS eight_kb_pages;

-- an index's root leaf: its free bytes (line pointers included), its items
CREATE FUNCTION leaf_free(idx regclass) RETURNS int LANGUAGE sql AS $$
	SELECT (upper - lower)::int
	FROM page_header(get_raw_page(idx::text,
		(SELECT root_block::int FROM elastic_index_stats(idx))))
$$;
CREATE FUNCTION leaf_items(idx regclass) RETURNS int LANGUAGE sql AS $$
	SELECT ((lower - 24) / 4)::int
	FROM page_header(get_raw_page(idx::text,
		(SELECT root_block::int FROM elastic_index_stats(idx))))
$$;
-- a new key before 'm' whose entry takes sz bytes with its line pointer
CREATE SEQUENCE filler_seq;
CREATE FUNCTION filler(sz int) RETURNS text LANGUAGE sql AS $$
	SELECT rpad('a' || lpad(nextval('ei_posting_run_split.filler_seq')::text,
							6, '0'), sz - 13, 'x')
$$;

-- Table tbl with an osm_tree index tbl_k whose only leaf is full to within
-- 4 bytes: a posting list of 221 entries of 'm' (one short of the largest
-- list), two plain entries of 'm' after it, 60 keys after 'm', the rest
-- keys before it; and 60 rows of 'm' in the insert buffer, whose heap TIDs
-- fall between the list's and the plain entries'.  Each step commits: rows
-- of the transaction that created the index do not go to its buffer.
CREATE PROCEDURE make_full_leaf(tbl text) LANGUAGE plpgsql AS $$
DECLARE
	idx			regclass;
	f			int;
BEGIN
	EXECUTE format('CREATE TABLE %I (k text COLLATE "C") WITH (autovacuum_enabled = off)', tbl);
	EXECUTE format('CREATE INDEX %I ON %I USING osm_tree (k)', tbl || '_k', tbl);
	idx := (tbl || '_k')::regclass;
	COMMIT;
	PERFORM set_config('osm_tree.top_inserts', 'on', false);
	-- the list: made by the dedup pass of the insert that finds the leaf full
	EXECUTE format('INSERT INTO %I SELECT ''m'' FROM generate_series(1, 221)', tbl);
	WHILE leaf_free(idx) >= 20 LOOP
		EXECUTE format('INSERT INTO %I VALUES (filler(20))', tbl);
	END LOOP;
	EXECUTE format('INSERT INTO %I VALUES (filler(20))', tbl);
	IF leaf_items(idx) >= 221 THEN
		RAISE EXCEPTION 'no posting list formed';
	END IF;
	COMMIT;
	-- the buffered rows, then the plain entries and the keys after 'm'
	PERFORM set_config('osm_tree.top_inserts', 'off', false);
	EXECUTE format('INSERT INTO %I SELECT ''m'' FROM generate_series(1, 60)', tbl);
	COMMIT;
	PERFORM set_config('osm_tree.top_inserts', 'on', false);
	EXECUTE format('INSERT INTO %I VALUES (''m''), (''m'')', tbl);
	EXECUTE format('INSERT INTO %I SELECT ''n'' || lpad(g::text, 4, ''0'') FROM generate_series(1, 60) g', tbl);
	-- full: the flush's first entry does not fit, nor after the dedup pass
	-- merges the first plain 'm' into the list
	WHILE leaf_free(idx) >= 40 LOOP
		EXECUTE format('INSERT INTO %I VALUES (filler(20))', tbl);
	END LOOP;
	f := leaf_free(idx);
	EXECUTE format('INSERT INTO %I VALUES (filler(%s))', tbl,
				   CASE WHEN f % 8 = 4 THEN f ELSE f - 4 END);
	COMMIT;
	PERFORM set_config('osm_tree.top_inserts', 'on', false);
END $$;

-- Every row once, through the index and by a sequential scan.
CREATE FUNCTION answers(tbl text) RETURNS TABLE (scan text, m bigint, m_rows bigint, rows bigint) LANGUAGE plpgsql AS $$
BEGIN
	FOREACH scan IN ARRAY ARRAY['index', 'seq'] LOOP
		PERFORM set_config('enable_seqscan', (scan = 'seq')::text, true);
		PERFORM set_config('enable_indexscan', (scan = 'index')::text, true);
		PERFORM set_config('enable_indexonlyscan', 'off', true);
		PERFORM set_config('enable_bitmapscan', 'off', true);
		EXECUTE format('SELECT count(*), count(DISTINCT ctid) FROM %I WHERE k = ''m''', tbl) INTO m, m_rows;
		EXECUTE format('SELECT count(DISTINCT ctid) FROM %I WHERE k >= ''''', tbl) INTO rows;
		RETURN NEXT;
	END LOOP;
END $$;

-- the flush splits the leaf; the index stays intact
CALL make_full_leaf('t');
SELECT leaf_free('t_k') <= 4 AS leaf_full, height, buffer_entries
FROM elastic_index_stats('t_k');
SELECT osm_tree_flush('t_k');
SELECT height, buffer_entries FROM elastic_index_stats('t_k');
SELECT elastic_index_check('t_k', true);
SET enable_seqscan = off;
SET enable_bitmapscan = off;
SET enable_indexonlyscan = off;
EXPLAIN (COSTS OFF) SELECT count(*) FROM t WHERE k = 'm';
RESET enable_seqscan;
RESET enable_bitmapscan;
RESET enable_indexonlyscan;
SELECT * FROM answers('t');

-- the sorted-run rule taken anyway: refused, and chosen again
CALL make_full_leaf('u');
SELECT leaf_free('u_k') <= 4 AS leaf_full, height, buffer_entries
FROM elastic_index_stats('u_k');
SET elastic_index.debug_fault = run_split_posting;
SELECT osm_tree_flush('u_k');
RESET elastic_index.debug_fault;
SELECT height, buffer_entries FROM elastic_index_stats('u_k');
SELECT elastic_index_check('u_k', true);
SELECT * FROM answers('u');

RESET ALL;
SET client_min_messages = warning;
DROP SCHEMA ei_posting_run_split CASCADE;
DROP EXTENSION pageinspect;
DROP EXTENSION elastic_index CASCADE;
RESET client_min_messages;
