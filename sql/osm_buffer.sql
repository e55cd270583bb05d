CREATE EXTENSION IF NOT EXISTS elastic_index;
-- everything this file creates lives in its own schema
SET client_min_messages = warning;
DROP SCHEMA IF EXISTS ei_osmbuf CASCADE;
CREATE SCHEMA ei_osmbuf;
SET search_path = ei_osmbuf, public;
RESET client_min_messages;
\i test/sql/differential_harness.sql
--
-- osm_tree's insert buffer (src/osm/buffer.c): entries of single-row
-- inserts and small batches go to buffer pages in arrival order; flushes
-- move them into the tree.  Every kind of scan must return each row once,
-- whether its entry is buffered, in the tree, or (after an interrupted
-- flush) both.  The regression instance runs with osm_tree.flush_worker =
-- off (test/regress.conf), so only full buffers, VACUUM and osm_tree_flush
-- flush, at moments the test chooses.
--
SET ei_test.am = 'osm_tree';

-- Settings: defaults, ranges, reloptions
SHOW osm_tree.buffer_size;
SHOW osm_tree.flush_fraction;
SHOW osm_tree.bloom_bits_per_key;
SHOW osm_tree.sort_threshold;
-- (the range as 15 to 17 write it; 18 gives its ends units too)
CREATE FUNCTION ob_set_error(setting text, value text) RETURNS text
LANGUAGE plpgsql AS $$
BEGIN
	PERFORM set_config(setting, value, false);
	RETURN 'no error';
EXCEPTION WHEN others THEN
	RETURN SQLSTATE || ' ' || regexp_replace(SQLERRM, '\((\S+) 8kB \.\. (\S+) 8kB\)', '(\1 .. \2)');
END $$;
SELECT ob_set_error('osm_tree.buffer_size', '-1');
SELECT ob_set_error('osm_tree.buffer_size', '2GB');
DROP FUNCTION ob_set_error(text, text);
SET osm_tree.flush_fraction = 0;
SET osm_tree.bloom_bits_per_key = 33;
SET osm_tree.sort_threshold = -1;
CREATE TABLE ob_opts (k int8);
CREATE INDEX ob_bad ON ob_opts USING osm_tree (k) WITH (buffer_size = -2);
CREATE INDEX ob_bad ON ob_opts USING osm_tree (k) WITH (flush_fraction = 1.5);
CREATE INDEX ob_bad ON ob_opts USING osm_tree (k) WITH (bloom_bits_per_key = 40);
CREATE INDEX ob_bad ON ob_opts USING osm_tree (k) WITH (sort_threshold = 70000);
CREATE INDEX ob_bad ON ob_opts USING elastic_btree (k) WITH (buffer_size = 8);
CREATE INDEX ob_opts_k ON ob_opts USING osm_tree (k)
	WITH (buffer_size = 16, flush_fraction = 0.25, bloom_bits_per_key = 8,
		  sort_threshold = 10);
SELECT reloptions FROM pg_class WHERE relname = 'ob_opts_k';
SELECT * FROM osm_tree_buffer_stats('ob_opts_k');
-- osm_tree_flush and osm_tree_buffer_stats take osm_tree indexes only
CREATE INDEX ob_opts_e ON ob_opts USING elastic_btree (k);
SELECT osm_tree_flush('ob_opts_e');
SELECT * FROM osm_tree_buffer_stats('ob_opts');
SELECT osm_tree_flush(NULL);

-- A near-sorted table (K = L = 5%) loaded one row per statement into a
-- small buffer (4 pages, flushes of 2), so that inserts flush when it is
-- full and part of the rows stay buffered.  Columns: an int8 key, a
-- (DESC, ASC) pair, text (Bloom filters over text) and numeric (no
-- binary-comparable encoding: zonemaps only).
CREATE TABLE ob_src AS
SELECT pos AS id, key AS k, (key * 7919) % 1009 AS j,
	   md5(key::text) AS t, (key % 997)::numeric / 7 AS n
FROM elastic_index_near_sorted(6000, 5, 5, 3);
SELECT ei_setup('ob', 'ob_src', 0);
SELECT ei_index('ob', 'k', '(k)');
SELECT ei_index('ob', 'jk', '(j DESC, k)');
SELECT ei_index('ob', 't', '(t)');
SELECT ei_index('ob', 'n', '(n)');
SET osm_tree.batch_size = 1;
-- every entry to the buffer: no top inserts (they have their own section)
SET osm_tree.top_inserts = off;
SET osm_tree.buffer_size = 4;
SET osm_tree.flush_fraction = 0.5;
SELECT ei_exec('ob', 'INSERT INTO %I SELECT * FROM ob_src WHERE id <= 3000 ORDER BY id');
DO $$
BEGIN
	FOR i IN 3001 .. 3400 LOOP
		PERFORM ei_exec('ob', format('INSERT INTO %%I SELECT * FROM ob_src WHERE id = %s', i));
	END LOOP;
END
$$;
-- the buffer filled up and flushed, and holds rows now
SELECT pages > 0 AS buffered, entries > 0 AS has_entries, flushes > 0 AS flushed,
	   pages <= buffer_size AS within_size,
	   sorted_entries + unsorted_entries = entries AS sections_add_up
FROM osm_tree_buffer_stats('ob_ei_k');
SELECT buffer_inserts, buffer_flushes > 0 AS flushed,
	   buffer_foreground_flushes > 0 AS flushed_by_inserts
FROM elastic_index_stat_activity WHERE indexrelname = 'ob_ei_k';
SELECT ei_check_all('ob');

CREATE OR REPLACE FUNCTION ob_queries(indexonly bool DEFAULT false)
RETURNS TABLE (query text, result text)
LANGUAGE plpgsql AS $fn$
DECLARE
	q			text;
	o			bool;
	m			text[];
BEGIN
	FOR q, o, m IN VALUES
		('SELECT id, k FROM %I WHERE k BETWEEN 1000 AND 3000', false, '{index,bitmap}'::text[]),
		('SELECT k FROM %I WHERE k > 2500 ORDER BY k', true, '{index,indexonly,bitmap}'),
		('SELECT k FROM %I WHERE k >= 3650 ORDER BY k DESC', true, '{index,indexonly,bitmap}'),
		('SELECT k FROM %I WHERE k = 3333', true, '{index,indexonly,bitmap}'),
		('SELECT k FROM %I WHERE k = 4242', true, '{index,indexonly,bitmap}'),
		('SELECT k FROM %I WHERE k IN (1, 2999, 3001, 3399, 5999)', false, '{bitmap}'),
		('SELECT j, k FROM %I WHERE j = 77 ORDER BY j DESC, k', true, '{index,indexonly,bitmap}'),
		('SELECT j, k FROM %I WHERE j BETWEEN 500 AND 510 ORDER BY j DESC, k', true, '{index,indexonly,bitmap}'),
		('SELECT t FROM %I WHERE t = md5(''3101'')', true, '{index,indexonly,bitmap}'),
		('SELECT t FROM %I WHERE t > ''f'' AND t < ''f2'' ORDER BY t', true, '{index,indexonly}'),
		('SELECT n FROM %I WHERE n = 50 ORDER BY n', true, '{index,indexonly,bitmap}'),
		('SELECT n FROM %I WHERE n > 140 ORDER BY n', true, '{index,indexonly}'),
		('SELECT min(k), max(k), min(t), max(t) FROM %I', true, '{index,indexonly}')
	LOOP
		IF NOT indexonly THEN
			m := array_remove(m, 'indexonly');
		END IF;
		query := q;
		result := ei_diff('ob', q, o, m);
		RETURN NEXT;
	END LOOP;
END
$fn$;
SELECT * FROM ob_queries();

-- Index-only scans read buffered entries too: VACUUM (which flushes) sets
-- the visibility map, then more rows arrive in the buffer.
VACUUM ANALYZE ob_seq, ob_bt, ob_ei;
SELECT pages, entries FROM osm_tree_buffer_stats('ob_ei_k');
DO $$
BEGIN
	FOR i IN 3401 .. 3700 LOOP
		PERFORM ei_exec('ob', format('INSERT INTO %%I SELECT * FROM ob_src WHERE id = %s', i));
	END LOOP;
END
$$;
SELECT entries > 0 AS buffered FROM osm_tree_buffer_stats('ob_ei_k');
SELECT * FROM ob_queries(true);

-- Equality lookups skip buffer pages by their Bloom filters and zonemaps.
SELECT elastic_index_activity_reset('ob_ei_t');
SET enable_seqscan = off;
SET enable_bitmapscan = off;
SELECT count(*) FROM ob_ei WHERE t = md5('3650');
SELECT count(*) FROM ob_ei WHERE t = 'not a key';
RESET enable_seqscan;
RESET enable_bitmapscan;
SELECT buffer_pages_read <= 2 AS few_read, buffer_pages_skipped > 0 AS some_skipped
FROM elastic_index_stat_activity WHERE indexrelname = 'ob_ei_t';

-- The section filter: one Bloom filter over every buffer page but the
-- tail, kept in its own page, taking a page's keys when the next page is
-- linked after it.  An equality lookup whose key it rules out reads the
-- metapage, the filter and the tail, not the other buffer pages, even where
-- zonemaps cannot help (scrambled keys); a key in the buffer is found
-- through it.  Counted here in buffer accesses of the index scan.
CREATE TABLE ob_sf (k int8, t text COLLATE "C");
CREATE INDEX ob_sf_k ON ob_sf USING osm_tree (k)
	WITH (buffer_size = 16, flush_fraction = 1, batch_size = 1);
CREATE INDEX ob_sf_t ON ob_sf USING osm_tree (t)
	WITH (buffer_size = 16, flush_fraction = 1, batch_size = 1);
INSERT INTO ob_sf SELECT (g * 7919) % 4001, md5(g::text)
	FROM generate_series(1, 2000) AS g;
SELECT p.pages AS k_buffer_pages, q.pages AS t_buffer_pages,
	   s.meta_pages AS k_meta_and_filter_pages
FROM osm_tree_buffer_stats('ob_sf_k') p, osm_tree_buffer_stats('ob_sf_t') q,
	 elastic_index_stats('ob_sf_k') s;
CREATE FUNCTION ob_index_hits(q text) RETURNS int8 LANGUAGE plpgsql AS $$
DECLARE
	plan		json;
BEGIN
	EXECUTE 'EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON, COSTS OFF, TIMING OFF, SUMMARY OFF) ' || q
		INTO plan;
	RETURN (plan->0->'Plan'->>'Shared Hit Blocks')::int8 +
		(plan->0->'Plan'->>'Shared Read Blocks')::int8;
END
$$;
SET enable_seqscan = off;
SET enable_bitmapscan = off;
-- 40 absent keys of each kind: nearly all cost the metapage, the filter,
-- the tail and the (one-leaf) tree and its heap pages: under 8 blocks
SELECT count(*) FILTER (WHERE ob_index_hits(format('SELECT k FROM ob_sf WHERE k = %s', g)) < 8) >= 36
		AS k_absent_cheap,
	   count(*) FILTER (WHERE ob_index_hits(format('SELECT t FROM ob_sf WHERE t = %L', 'x' || g)) < 8) >= 36
		AS t_absent_cheap
FROM generate_series(5001, 5040) AS g;
-- present keys, in old pages and in the tail, are found
SELECT count(*) FILTER (WHERE (SELECT count(*) FROM ob_sf WHERE k = (g * 7919) % 4001) = 1) AS k_found,
	   count(*) FILTER (WHERE (SELECT count(*) FROM ob_sf WHERE t = md5(g::text)) = 1) AS t_found
FROM generate_series(1, 2000, 7) AS g;
RESET enable_seqscan;
RESET enable_bitmapscan;
SELECT elastic_index_check('ob_sf_k', true), elastic_index_check('ob_sf_t', true);
-- a flush leaves the filter with the keys of the pages still buffered only
SELECT osm_tree_flush('ob_sf_k') AS moved;
INSERT INTO ob_sf SELECT (g * 7919) % 4001, md5(g::text)
	FROM generate_series(2001, 2600) AS g;
SELECT elastic_index_check('ob_sf_k', true);
SET enable_seqscan = off;
SET enable_bitmapscan = off;
SELECT count(*) FILTER (WHERE (SELECT count(*) FROM ob_sf WHERE k = (g * 7919) % 4001) = 1) AS k_found
FROM generate_series(1, 2600, 7) AS g;
RESET enable_seqscan;
RESET enable_bitmapscan;
DROP TABLE ob_sf;

-- The section zonemap: the least and greatest first-column values over
-- the pages the section filter covers, kept with it.  A range scan whose
-- bounds lie outside it reads the metapage, the filter and the tail, not
-- the other buffer pages, although every page's own zonemap spans the
-- whole buffered range (scrambled keys); one that overlaps it reads them
-- and finds its rows.  The tree holds 1..3000, the buffer 3001..6000 in
-- scrambled order; an ASC and a DESC index (the zonemap holds values, not
-- index order).  Then a NULL on a page other than the tail makes the
-- zonemap unknown: scans read every page again and still answer right.
CREATE TABLE ob_sza (k int8);
CREATE TABLE ob_szd (k int8);
CREATE INDEX ob_sza_k ON ob_sza USING osm_tree (k)
	WITH (buffer_size = 16, flush_fraction = 1, batch_size = 1);
CREATE INDEX ob_szd_k ON ob_szd USING osm_tree (k DESC)
	WITH (buffer_size = 16, flush_fraction = 1, batch_size = 1);
INSERT INTO ob_sza SELECT g FROM generate_series(1, 3000) AS g;
INSERT INTO ob_szd SELECT g FROM generate_series(1, 3000) AS g;
SELECT osm_tree_flush('ob_sza_k') AS a_moved, osm_tree_flush('ob_szd_k') AS d_moved;
INSERT INTO ob_sza SELECT 3001 + (g * 7919) % 3000 FROM generate_series(1, 3000) AS g;
INSERT INTO ob_szd SELECT 3001 + (g * 7919) % 3000 FROM generate_series(1, 3000) AS g;
SELECT p.pages AS a_buffer_pages, q.pages AS d_buffer_pages
FROM osm_tree_buffer_stats('ob_sza_k') p, osm_tree_buffer_stats('ob_szd_k') q;
SET enable_seqscan = off;
SET enable_bitmapscan = off;
CREATE FUNCTION ob_sz_scans(tbl text, OUT below_blocks int8, OUT inside_blocks int8,
							OUT rows_ok bool)
LANGUAGE plpgsql AS $$
BEGIN
	-- the most blocks any of 20 scans below the buffered range touches, and
	-- the fewest of 20 scans inside it
	SELECT max(ob_index_hits(format('SELECT count(*) FROM %I WHERE k BETWEEN %s AND %s',
									tbl, g * 100, g * 100 + 49)))
	INTO below_blocks FROM generate_series(1, 20) AS g;
	SELECT min(ob_index_hits(format('SELECT count(*) FROM %I WHERE k BETWEEN %s AND %s',
									tbl, 3000 + g * 100, 3000 + g * 100 + 49)))
	INTO inside_blocks FROM generate_series(1, 20) AS g;
	-- every kind of bound, below, across and inside the buffered range
	EXECUTE format($q$
		SELECT (SELECT count(*) FROM %1$I WHERE k < 2000) = 1999
		   AND (SELECT count(*) FROM %1$I WHERE k <= 3000) = 3000
		   AND (SELECT count(*) FROM %1$I WHERE k > 2990 AND k < 3011) = 20
		   AND (SELECT count(*) FROM %1$I WHERE k >= 5995) = 6
		   AND (SELECT count(*) FROM %1$I WHERE k > 6000) = 0
		   AND (SELECT count(*) FROM %1$I WHERE k = 4321) = 1
		   AND (SELECT array_agg(k ORDER BY k) FROM %1$I WHERE k BETWEEN 2998 AND 3002)
			   = '{2998,2999,3000,3001,3002}'
		   AND (SELECT array_agg(k) FROM (SELECT k FROM %1$I WHERE k >= 3998
										 ORDER BY k DESC LIMIT 3) s)
			   = '{6000,5999,5998}'$q$, tbl)
	INTO rows_ok;
END
$$;
-- below: the metapage, the filter, the tail, the tree's root and leaf and
-- the heap, at most 12 blocks (at least 15 when the 8 buffer pages are
-- read); inside: every buffer page
SELECT 'asc' AS idx, below_blocks <= 12 AS below_skips_buffer,
	   inside_blocks > 8 AS inside_reads_buffer, rows_ok
FROM ob_sz_scans('ob_sza')
UNION ALL
SELECT 'desc', below_blocks <= 12, inside_blocks > 8, rows_ok
FROM ob_sz_scans('ob_szd');
RESET enable_seqscan;
RESET enable_bitmapscan;
SELECT elastic_index_check('ob_sza_k', true), elastic_index_check('ob_szd_k', true);
-- a NULL, then a page's worth more, so that its page is no longer the tail
INSERT INTO ob_sza VALUES (NULL);
INSERT INTO ob_sza SELECT 6001 + g FROM generate_series(1, 500) AS g;
DELETE FROM ob_sza WHERE k > 6000;
SET enable_seqscan = off;
SET enable_bitmapscan = off;
SELECT below_blocks >= 15 AS below_reads_buffer_again, rows_ok FROM ob_sz_scans('ob_sza');
SELECT count(*) AS nulls FROM ob_sza WHERE k IS NULL;
RESET enable_seqscan;
RESET enable_bitmapscan;
SELECT elastic_index_check('ob_sza_k', true);
-- a flush rebuilds it from what is left: the tail only
SELECT osm_tree_flush('ob_sza_k') > 0 AS flushed;
SELECT elastic_index_check('ob_sza_k', true);
DROP TABLE ob_sza, ob_szd;
DROP FUNCTION ob_sz_scans(text);
DROP FUNCTION ob_index_hits(text);

-- A scrollable cursor changes direction over interleaved buffered and
-- tree entries, and a merge join marks and restores positions; both must
-- see what a btree sees.
CREATE OR REPLACE FUNCTION ob_cursor(tbl text) RETURNS text
LANGUAGE plpgsql AS $fn$
DECLARE
	c			refcursor := 'ob_c';
	r			record;
	out			text := '';
	step		text;
BEGIN
	SET LOCAL enable_seqscan = off;
	SET LOCAL enable_bitmapscan = off;
	SET LOCAL enable_sort = off;
	OPEN c SCROLL FOR EXECUTE format('SELECT k FROM %I WHERE k BETWEEN 3090 AND 3160 ORDER BY k', tbl);
	FOREACH step IN ARRAY ARRAY['NEXT', 'NEXT', 'NEXT', 'PRIOR', 'PRIOR', 'NEXT', 'LAST',
								'PRIOR', 'PRIOR', 'NEXT', 'NEXT', 'NEXT', 'PRIOR', 'FIRST',
								'PRIOR', 'NEXT', 'ABSOLUTE 30', 'RELATIVE -7', 'NEXT'] LOOP
		EXECUTE format('FETCH %s FROM ob_c', step) INTO r;
		out := out || coalesce(r.k::text, '-') || ' ';
	END LOOP;
	-- forward to the end and once past it, then back
	LOOP
		FETCH c INTO r;
		EXIT WHEN NOT FOUND;
	END LOOP;
	FETCH PRIOR FROM c INTO r;
	out := out || coalesce(r.k::text, '-') || ' ';
	FETCH PRIOR FROM c INTO r;
	out := out || coalesce(r.k::text, '-');
	CLOSE c;
	RETURN out;
END
$fn$;
SELECT ob_cursor('ob_ei') = ob_cursor('ob_bt') AS cursor_same, ob_cursor('ob_ei') AS ob_ei_cursor;

CREATE OR REPLACE FUNCTION ob_merge_join(tbl text, OUT merge_join bool, OUT rows bigint, OUT digest text)
LANGUAGE plpgsql AS $fn$
DECLARE
	q			text := format('SELECT a.k AS ak, b.k AS bk FROM %1$I a JOIN %1$I b ON a.j = b.j WHERE a.j < 60 AND b.j < 60', tbl);
	plan		text := '';
	line		text;
BEGIN
	SET LOCAL enable_hashjoin = off;
	SET LOCAL enable_nestloop = off;
	SET LOCAL enable_seqscan = off;
	SET LOCAL enable_bitmapscan = off;
	SET LOCAL enable_sort = off;
	FOR line IN EXECUTE 'EXPLAIN (COSTS OFF) ' || q LOOP
		plan := plan || line || E'\n';
	END LOOP;
	merge_join := plan LIKE '%Merge Join%' AND plan LIKE '%Index%Scan%';
	EXECUTE format('SELECT count(*), md5(string_agg(ak || '':'' || bk, '','' ORDER BY ak, bk)) FROM (%s) x', q)
		INTO rows, digest;
END
$fn$;
SELECT (SELECT merge_join FROM ob_merge_join('ob_ei')) AS osm_merge_join,
	   (SELECT (rows, digest) FROM ob_merge_join('ob_ei')) =
	   (SELECT (rows, digest) FROM ob_merge_join('ob_seq')) AS same_as_seq,
	   (SELECT rows FROM ob_merge_join('ob_ei')) AS rows;

-- An interrupted flush (forced: it stops after inserting the entries into
-- the tree, before unlinking the pages) leaves entries in the buffer and
-- the tree; scans return them once, the verifier accepts them, and the
-- next flush finishes the job.
SELECT pages > 0 AS buffered FROM osm_tree_buffer_stats('ob_ei_k');
SET elastic_index.debug_fault = 'after_flush_insert';
SELECT osm_tree_flush('ob_ei_k');
RESET elastic_index.debug_fault;
SELECT pages > 0 AS still_buffered FROM osm_tree_buffer_stats('ob_ei_k');
SELECT * FROM ob_queries(true);
SELECT ob_cursor('ob_ei') = ob_cursor('ob_bt') AS cursor_same;
SELECT ei_check_all('ob');
SELECT osm_tree_flush('ob_ei_k') >= 0 AS flushed;
SELECT pages, entries, closed_pages FROM osm_tree_buffer_stats('ob_ei_k');
-- the same after the first step: the tail page closed, nothing moved
SELECT ei_exec('ob', 'INSERT INTO %I SELECT * FROM ob_src WHERE id > 3700 AND id <= 3710');
SET elastic_index.debug_fault = 'after_seal';
SELECT osm_tree_flush('ob_ei_k');
RESET elastic_index.debug_fault;
SELECT pages, entries, closed_pages FROM osm_tree_buffer_stats('ob_ei_k');
SELECT ei_exec('ob', 'INSERT INTO %I SELECT * FROM ob_src WHERE id > 3710 AND id <= 3720');
SELECT pages, entries, closed_pages FROM osm_tree_buffer_stats('ob_ei_k');
SELECT * FROM ob_queries();

-- A batch applied again after an error inside a PL/pgSQL block puts its
-- entries into the buffer twice; every entry is returned once.
BEGIN;
SET LOCAL osm_tree.batch_size = 100;
SET LOCAL osm_tree.buffer_size = 64;
SELECT ei_exec('ob', 'INSERT INTO %I SELECT * FROM ob_src WHERE id > 3720 AND id <= 3770');
SELECT ei_exec('ob', 'INSERT INTO %I SELECT * FROM ob_src WHERE id > 3770 AND id <= 3800');
DO $$
BEGIN
	INSERT INTO ob_ei SELECT * FROM ob_src WHERE id > 3800 AND id <= 3900;
	PERFORM 1 / 0;
EXCEPTION WHEN division_by_zero THEN
	RAISE NOTICE 'caught';
END
$$;
COMMIT;
SELECT * FROM ob_queries();
SELECT ei_check_all('ob');

-- DELETE, then VACUUM: it flushes the buffer first, then removes the
-- entries of the dead rows from the tree.
SELECT ei_exec('ob', 'DELETE FROM %I WHERE k %% 3 = 0');
SELECT entries > 0 AS buffered_before FROM osm_tree_buffer_stats('ob_ei_k');
VACUUM ob_seq, ob_bt, ob_ei;
SELECT pages, entries FROM osm_tree_buffer_stats('ob_ei_k');
SELECT buffer_pages FROM elastic_index_stats('ob_ei_k');
SELECT * FROM ob_queries(true);
SELECT ei_check_all('ob');

-- Query-driven sorting.  Pages fill in arrival order; a scan with bounds
-- on the first column that reads a page with at least sort_threshold
-- unsorted entries sorts it, then searches its sorted section
-- (interpolation for numbers, bisection otherwise) and tests the unsorted
-- rest.  Keys here repeat (every fifth one three times) and include NULLs,
-- infinities and NaN, the cases an interpolation search must not trip on;
-- every lower bound from below the least key to above the greatest is
-- compared with a sequential scan, before sorting, after it, and with a
-- sorted section followed by new unsorted entries on the same page.
CREATE TABLE os_src AS
SELECT row_number() OVER () AS id, k, k::int4 AS i,
	   CASE WHEN k % 97 = 0 THEN 'Infinity'::float8
			WHEN k % 89 = 0 THEN 'NaN'::float8
			WHEN k % 83 = 0 THEN '-Infinity'::float8 ELSE k / 4.0 END AS f
FROM (SELECT CASE WHEN key % 50 = 7 THEN NULL ELSE key END AS k
	  FROM elastic_index_near_sorted(1500, 5, 5, 11),
		   generate_series(1, CASE WHEN key % 5 = 0 THEN 3 ELSE 1 END)) s;
SELECT ei_setup('os', 'os_src', 0);
SELECT ei_index('os', 'k', '(k)');
SELECT ei_index('os', 'i', '(i)');
SELECT ei_index('os', 'f', '(f)');
SET osm_tree.buffer_size = 64;
SET osm_tree.sort_threshold = 0;
DO $$
BEGIN
	FOR n IN 1 .. 1400 LOOP
		PERFORM ei_exec('os', format('INSERT INTO %%I SELECT * FROM os_src WHERE id = %s', n));
	END LOOP;
END
$$;
CREATE FUNCTION os_queries() RETURNS TABLE (query text, result text)
LANGUAGE plpgsql AS $fn$
DECLARE
	q			text;
BEGIN
	FOREACH q IN ARRAY ARRAY[
		'SELECT v, (SELECT count(*) FROM %1$I WHERE k >= v), (SELECT count(*) FROM %1$I WHERE k = v), (SELECT count(*) FROM %1$I WHERE k > v AND k <= v + 40) FROM generate_series(-10, 1560, 7) v',
		'SELECT v, (SELECT count(*) FROM %1$I WHERE i >= v::int8), (SELECT count(*) FROM %1$I WHERE i = v::int8), (SELECT count(*) FROM %1$I WHERE i > v::int2) FROM generate_series(-10, 1560, 13) v',
		'SELECT v, (SELECT count(*) FROM %1$I WHERE f >= v), (SELECT count(*) FROM %1$I WHERE f = v), (SELECT count(*) FROM %1$I WHERE f > v AND f < v + 3) FROM generate_series(-10, 400, 2.25) v',
		'SELECT (SELECT count(*) FROM %1$I WHERE f >= ''Infinity''), (SELECT count(*) FROM %1$I WHERE f = ''NaN''), (SELECT count(*) FROM %1$I WHERE f > ''-Infinity''), (SELECT count(*) FROM %1$I WHERE f <= ''-Infinity'')']
	LOOP
		query := left(q, 60);
		result := ei_diff('os', q, false, '{index,bitmap}');
		RETURN NEXT;
	END LOOP;
END
$fn$;
-- sort_threshold = 0: nothing is sorted
SELECT * FROM os_queries();
SELECT pages >= 3 AS several_pages, sorted_entries FROM osm_tree_buffer_stats('os_ei_k');
-- the default threshold: scans sort the pages they read
RESET osm_tree.sort_threshold;
SELECT elastic_index_activity_reset('os_ei_k');
SELECT * FROM os_queries();
SELECT sorted_pages = pages AS all_sorted, unsorted_entries
FROM osm_tree_buffer_stats('os_ei_k');
SELECT buffer_pages_sorted > 0 AS sorted_by_queries
FROM elastic_index_stat_activity WHERE indexrelname = 'os_ei_k';
SELECT ei_check_all('os');
-- new entries after the sorted section of the tail page; threshold 1
SET osm_tree.sort_threshold = 1;
DO $$
BEGIN
	FOR n IN 1401 .. 1460 LOOP
		PERFORM ei_exec('os', format('INSERT INTO %%I SELECT * FROM os_src WHERE id = %s', n));
	END LOOP;
END
$$;
SELECT unsorted_entries > 0 AS tail_has_unsorted FROM osm_tree_buffer_stats('os_ei_k');
SELECT ei_check_all('os');
SELECT * FROM os_queries();
SELECT b.unsorted_entries, s.buffer_sorted_entries = b.sorted_entries AS stats_agree
FROM osm_tree_buffer_stats('os_ei_k') b, elastic_index_stats('os_ei_k') s;
SELECT ei_check_all('os');
RESET osm_tree.sort_threshold;
RESET osm_tree.buffer_size;

-- Direct inserts (osm_tree.top_inserts, on by default): single rows and
-- small batches go straight into the tree, through the pole (the leaf the
-- backend's last two inserts went to, or the rightmost one; no descent)
-- where they belong there, else by a descent.  The buffer stays empty;
-- every query still answers like btree and a sequential scan.
RESET osm_tree.top_inserts;
CREATE TABLE ot_src AS
SELECT g AS id, CASE WHEN g <= 2000 THEN g * 2
					 WHEN g <= 2300 THEN ((g - 2000) * 131 % 300) * 2 + 1
					 ELSE 4000 + (g * 7919) % 3001 END AS k
FROM generate_series(1, 2600) AS g;
SELECT ei_setup('ot', 'ot_src', 0);
SELECT ei_index('ot', 'k', '(k)');
ALTER INDEX ot_ei_k SET (buffer_size = 64);
SELECT elastic_index_activity_reset('ot_ei_k');
-- 2000 ascending keys, one row per statement: through the pole
DO $$
BEGIN
	FOR n IN 1 .. 2000 LOOP
		PERFORM ei_exec('ot', format('INSERT INTO %%I SELECT * FROM ot_src WHERE id = %s', n));
	END LOOP;
END
$$;
SELECT b.entries AS buffered, s.top_inserted_entries AS top_inserted,
	   a.descents < 20 AS mostly_through_the_pole, a.buffer_inserts
FROM osm_tree_buffer_stats('ot_ei_k') b, elastic_index_stats('ot_ei_k') s,
	 elastic_index_stat_activity a WHERE a.indexrelname = 'ot_ei_k';
-- 300 odd keys below the right edge in scattered order, all inside the
-- first leaf: once two descents in a row found that leaf, it is the pole
-- and takes the rest
DO $$
BEGIN
	FOR n IN 2001 .. 2300 LOOP
		PERFORM ei_exec('ot', format('INSERT INTO %%I SELECT * FROM ot_src WHERE id = %s', n));
	END LOOP;
END
$$;
SELECT b.entries AS buffered, a.buffer_inserts,
	   a.fastpath_inserts > 10 * a.descents AS mostly_through_the_pole
FROM osm_tree_buffer_stats('ot_ei_k') b, elastic_index_stat_activity a
WHERE a.indexrelname = 'ot_ei_k';
-- 300 scattered keys above the tree's keys, in one transaction (a batch
-- smaller than one flush, which would otherwise go to the buffer)
SELECT ei_exec('ot', 'INSERT INTO %I SELECT * FROM ot_src WHERE id > 2300');
SELECT b.entries + s.entries = 2600 AS each_entry_once
FROM osm_tree_buffer_stats('ot_ei_k') b, elastic_index_stats('ot_ei_k') s;
SELECT ei_diff('ot', 'SELECT k FROM %I WHERE k > 1500 ORDER BY k', true, '{index,bitmap}');
SELECT ei_diff('ot', 'SELECT k FROM %I WHERE k BETWEEN 3 AND 599 ORDER BY k DESC', true, '{index,bitmap}');
SELECT ei_diff('ot', 'SELECT k FROM %I WHERE k >= 4000 ORDER BY k', true, '{index,bitmap}');
SELECT ei_check_all('ot');
SELECT osm_tree_flush('ot_ei_k') AS flushed_nothing;
SELECT ei_check_all('ot');

-- buffer_size = 0: new entries go to the tree directly
ALTER INDEX ob_ei_k SET (buffer_size = 0);
SELECT elastic_index_activity_reset('ob_ei_k');
INSERT INTO ob_ei SELECT * FROM ob_src WHERE id > 3900 AND id <= 3950;
SELECT buffer_inserts, descents + fastpath_inserts AS top_inserted
FROM elastic_index_stat_activity WHERE indexrelname = 'ob_ei_k';

-- A DESC first column.  Its scan keys are kept in index order (k > 100 is
-- "before 100" there); the zonemap compares values and must turn them
-- back.  Near-sorted keys give pages narrow value ranges, so ranges that
-- cover a page, or overlap one of its ends, are what a wrong test would
-- drop.
SET osm_tree.top_inserts = off;
SET osm_tree.batch_size = 1;
SET osm_tree.buffer_size = 64;
CREATE TABLE od_src AS
SELECT pos AS id, key AS k FROM elastic_index_near_sorted(3000, 5, 5, 11);
SELECT ei_setup('od', 'od_src', 0);
SELECT ei_index('od', 'kd', '(k DESC)');
DO $$
BEGIN
	FOR i IN 1 .. 3000 LOOP
		PERFORM ei_exec('od', format('INSERT INTO %%I SELECT * FROM od_src WHERE id = %s', i));
	END LOOP;
END
$$;
SELECT pages > 4 AS buffered, entries = 3000 AS all_buffered
FROM osm_tree_buffer_stats('od_ei_kd');
SELECT elastic_index_activity_reset('od_ei_kd');
SELECT q, ei_diff('od', q, true, '{index,indexonly,bitmap}')
FROM (VALUES ('SELECT k FROM %I WHERE k > 100 ORDER BY k DESC'),
			 ('SELECT k FROM %I WHERE k >= 2500 ORDER BY k DESC'),
			 ('SELECT k FROM %I WHERE k < 700 ORDER BY k DESC'),
			 ('SELECT k FROM %I WHERE k <= 1201 ORDER BY k'),
			 ('SELECT k FROM %I WHERE k BETWEEN 900 AND 2100 ORDER BY k DESC'),
			 ('SELECT k FROM %I WHERE k > 1000 AND k < 1010 ORDER BY k'),
			 ('SELECT k FROM %I WHERE k = 1777 ORDER BY k')) AS v(q);
-- the zonemap still skips the pages outside a narrow range
SELECT buffer_pages_skipped > 0 AS zonemap_skips
FROM elastic_index_stat_activity WHERE indexrelname = 'od_ei_kd';
SELECT ei_check_all('od');

-- An entry the buffer holds twice, past the tree's right edge.  A batch
-- whose application stops half way with an error (here a flush it set
-- off, failing by an injected fault), inside a subtransaction that is
-- rolled back, is applied again in full at commit: the entries it wrote
-- before the error are then in the buffer twice, and one flush takes both
-- copies.  Both lie past the right edge, where entries go onto new leaves
-- (no descent that would find the first copy): the flush must drop the
-- second, or the index returns the row twice.
CREATE TABLE odup (k int8);
CREATE INDEX odup_k ON odup USING osm_tree (k)
	WITH (buffer_size = 4, flush_fraction = 0.5);
SET osm_tree.batch_size = 100000;
INSERT INTO odup SELECT generate_series(1, 1000);
SET osm_tree.batch_size = 1;
-- single rows fill three and a half of the buffer's four pages
DO $$
BEGIN
	FOR i IN 1001 .. 2400 LOOP
		INSERT INTO odup VALUES (i);
	END LOOP;
END
$$;
SELECT pages AS pages_before FROM osm_tree_buffer_stats('odup_k');
BEGIN;
SET LOCAL osm_tree.batch_size = 100000;
INSERT INTO odup SELECT generate_series(2401, 2800);
SAVEPOINT s;
SET LOCAL elastic_index.debug_fault = 'after_flush_insert';
SET LOCAL enable_seqscan = off;
-- the scan applies the batch first: it fills the tail, the buffer is full,
-- and the flush that should make room fails
SELECT count(*) FROM odup WHERE k > 0;
ROLLBACK TO SAVEPOINT s;
COMMIT;
SELECT osm_tree_flush('odup_k') > 0 AS flushed;
SET enable_seqscan = off;
SET enable_bitmapscan = off;
SELECT count(*) AS by_index, count(DISTINCT k) AS distinct_keys
FROM odup WHERE k > 0;
RESET enable_seqscan;
RESET enable_bitmapscan;
SELECT count(*) AS by_seqscan FROM odup;
SELECT elastic_index_check('odup_k');
RESET osm_tree.top_inserts;
RESET osm_tree.batch_size;
RESET osm_tree.buffer_size;

SET client_min_messages = warning;
DROP SCHEMA ei_osmbuf CASCADE;
-- the next file creates the extension afresh
DROP EXTENSION elastic_index CASCADE;
