CREATE EXTENSION IF NOT EXISTS elastic_index;
-- everything this file creates lives in its own schema
SET client_min_messages = warning;
DROP SCHEMA IF EXISTS ei_scans CASCADE;
CREATE SCHEMA ei_scans;
SET search_path = ei_scans, public;
RESET client_min_messages;
\i test/sql/differential_harness.sql
--
-- Scan machinery: a tree several levels high (wide keys), scroll cursors
-- moving forward and backward, rescans (nested loop), mark and restore
-- (merge join), parallel index scans, long runs of duplicates.
--
SELECT setseed(0.5);
-- u is a permutation of 1..20000 (unique), k has about 20 duplicates per
-- value, c only three values, w is a unique ~400-byte key ordered like u
CREATE TABLE sc_src AS
SELECT row_number() OVER ()::int4 AS id, u, u % 997 AS k, u % 3 AS c,
	   lpad(u::text, 8, '0') || repeat(md5(u::text), 12) AS w
FROM (SELECT g AS u FROM generate_series(1, 20000) AS g ORDER BY random()) AS p;
SELECT ei_setup('sc', 'sc_src', 10000);
SELECT ei_index('sc', 'u', '(u)');
SELECT ei_index('sc', 'k', '(k)');
SELECT ei_index('sc', 'c', '(c)');
SELECT ei_index('sc', 'w', '(w)');
SELECT ei_check_all('sc');
-- the second half in random order: splits on every level
SELECT ei_exec('sc', 'INSERT INTO %I SELECT * FROM sc_src WHERE id > 10000 ORDER BY id');
VACUUM ANALYZE sc_seq, sc_bt, sc_ei;
SELECT ei_check_all('sc');
SELECT height >= 3 AS several_levels FROM elastic_index_stats('sc_ei_w');

SELECT * FROM ei_diff_col('sc', 'w', '''00002000''', '''00018000''', 'left(%s, 8)', true, '%s', '%s DESC', 'left(%s, 8)');
SELECT * FROM ei_diff_col('sc', 'u', '1000', '19000');
SELECT ei_diff('sc', 'SELECT w FROM %I WHERE w > ''00005'' AND w < ''00006'' ORDER BY w DESC', true);
SELECT ei_diff('sc', 'SELECT w FROM %I WHERE w < ''00000100''');
SELECT ei_diff('sc', 'SELECT u FROM %I WHERE w >= ''00019990''', false, '{index,bitmap}');

-- long runs of one value spanning many leaves
SELECT ei_diff('sc', 'SELECT id FROM %I WHERE c = 1', false, '{index,bitmap}');
SELECT ei_diff('sc', 'SELECT count(*) FROM %I WHERE c = 2', false, '{indexonly,bitmap}');
SELECT ei_diff('sc', 'SELECT c FROM %I WHERE c >= 1 ORDER BY c DESC', true);
SELECT ei_diff('sc', 'SELECT c FROM %I WHERE c < 2 ORDER BY c', true);
SELECT ei_diff('sc', 'SELECT c FROM %I WHERE c = 1 ORDER BY c DESC LIMIT 10', true);

--
-- Scroll cursors: the same walk (forward, backward, absolute, relative,
-- running off both ends) over each table must fetch the same rows.
--
CREATE OR REPLACE FUNCTION ei_cursor_walk(query text) RETURNS text[]
LANGUAGE plpgsql AS $fn$
DECLARE
	c			refcursor;
	r			record;
	out			text[] := '{}';
	all_rows	text[];
	i			int;
BEGIN
	OPEN c SCROLL FOR EXECUTE query;
	FETCH FIRST FROM c INTO r;
	out := out || ('first ' || coalesce(r::text, 'none'));
	FOR i IN 1 .. 5 LOOP
		FETCH NEXT FROM c INTO r;
		out := out || ('next ' || coalesce(r::text, 'none'));
	END LOOP;
	MOVE FORWARD 1000 FROM c;
	FETCH NEXT FROM c INTO r;
	out := out || ('move 1000, next ' || coalesce(r::text, 'none'));
	FOR i IN 1 .. 3 LOOP
		FETCH PRIOR FROM c INTO r;
		out := out || ('prior ' || coalesce(r::text, 'none'));
	END LOOP;
	FETCH BACKWARD FROM c INTO r;
	out := out || ('backward ' || coalesce(r::text, 'none'));
	FETCH ABSOLUTE 5000 FROM c INTO r;
	out := out || ('absolute 5000 ' || coalesce(r::text, 'none'));
	FETCH RELATIVE -7 FROM c INTO r;
	out := out || ('relative -7 ' || coalesce(r::text, 'none'));
	FETCH RELATIVE 20 FROM c INTO r;
	out := out || ('relative 20 ' || coalesce(r::text, 'none'));
	MOVE BACKWARD 30 FROM c;
	FETCH FORWARD FROM c INTO r;
	out := out || ('move backward 30, forward ' || coalesce(r::text, 'none'));
	FETCH LAST FROM c INTO r;
	out := out || ('last ' || coalesce(r::text, 'none'));
	FOR i IN 1 .. 3 LOOP
		FETCH PRIOR FROM c INTO r;
		out := out || ('prior ' || coalesce(r::text, 'none'));
	END LOOP;
	FETCH NEXT FROM c INTO r;
	out := out || ('next ' || coalesce(r::text, 'none'));
	FETCH ABSOLUTE -1 FROM c INTO r;
	out := out || ('absolute -1 ' || coalesce(r::text, 'none'));
	FOR i IN 1 .. 2 LOOP
		FETCH NEXT FROM c INTO r;
		out := out || ('next past the end ' || coalesce(r::text, 'none'));
	END LOOP;
	FETCH PRIOR FROM c INTO r;
	out := out || ('prior from after the end ' || coalesce(r::text, 'none'));
	FETCH ABSOLUTE 1 FROM c INTO r;
	out := out || ('absolute 1 ' || coalesce(r::text, 'none'));
	FETCH PRIOR FROM c INTO r;
	out := out || ('prior before the start ' || coalesce(r::text, 'none'));
	FETCH NEXT FROM c INTO r;
	out := out || ('next from before the start ' || coalesce(r::text, 'none'));
	FETCH ABSOLUTE 100000 FROM c INTO r;
	out := out || ('absolute 100000 ' || coalesce(r::text, 'none'));
	-- every row backward from the end, then forward from the start
	MOVE LAST FROM c;
	MOVE NEXT FROM c;
	all_rows := '{}';
	LOOP
		FETCH PRIOR FROM c INTO r;
		EXIT WHEN NOT FOUND;
		all_rows := all_rows || r::text;
	END LOOP;
	out := out || format('backward walk: %s rows, md5 %s', cardinality(all_rows),
						 md5(array_to_string(all_rows, ',')));
	all_rows := '{}';
	LOOP
		FETCH NEXT FROM c INTO r;
		EXIT WHEN NOT FOUND;
		all_rows := all_rows || r::text;
	END LOOP;
	out := out || format('forward walk: %s rows, md5 %s', cardinality(all_rows),
						 md5(array_to_string(all_rows, ',')));
	CLOSE c;
	RETURN out;
END
$fn$;

-- Walk QUERY (ordered, a %I template) on BASE_seq, BASE_bt and BASE_ei
-- under each mode; the elastic plan must scan its index without a
-- Materialize node (the index scan itself moves backward).
CREATE OR REPLACE FUNCTION ei_cursor_diff(base text, query text,
							   modes text[] DEFAULT '{index,indexonly}')
RETURNS text
LANGUAGE plpgsql AS $fn$
DECLARE
	ref			text[];
	res			text[];
	plan		jsonb;
	mode		text;
	tbl			text;
	saved		text[] := ei_get_knobs();
BEGIN
	PERFORM ei_set_mode('seq', saved);
	ref := ei_cursor_walk(format(query, base || '_seq'));
	FOREACH mode IN ARRAY modes LOOP
		PERFORM ei_set_mode(mode, saved);
		FOREACH tbl IN ARRAY ARRAY[base || '_bt', base || '_ei'] LOOP
			IF tbl = base || '_ei' THEN
				EXECUTE 'EXPLAIN (COSTS OFF, FORMAT JSON) DECLARE x SCROLL CURSOR FOR '
					|| format(query, tbl) INTO plan;
				IF NOT ei_plan_uses(plan, tbl, mode) OR plan::text LIKE '%Materialize%' THEN
					RAISE EXCEPTION 'mode %: unexpected cursor plan for %', mode, format(query, tbl)
						USING DETAIL = jsonb_pretty(plan);
				END IF;
			END IF;
			res := ei_cursor_walk(format(query, tbl));
			IF res IS DISTINCT FROM ref THEN
				RAISE EXCEPTION 'mode %: cursor walk over % differs: % vs reference %',
					mode, tbl, res, ref;
			END IF;
		END LOOP;
	END LOOP;
	RETURN array_to_string(ref, E'\n');
END
$fn$;

SELECT ei_cursor_diff('sc', 'SELECT u FROM %I ORDER BY u');
SELECT ei_cursor_diff('sc', 'SELECT u FROM %I WHERE u > 7777 ORDER BY u DESC');
SELECT ei_cursor_diff('sc', 'SELECT left(w, 8), id FROM %I WHERE w < ''00013'' ORDER BY w', '{index}');
SELECT ei_cursor_diff('sc', 'SELECT c FROM %I WHERE c = 1 ORDER BY c');
SELECT ei_cursor_diff('sc', 'SELECT c FROM %I WHERE c >= 1 ORDER BY c DESC', '{index}');
SELECT ei_cursor_diff('sc', 'SELECT u FROM %I WHERE u < 0 ORDER BY u');

-- the plan of such a cursor: no Materialize node
SET enable_seqscan = off;
SET enable_bitmapscan = off;
EXPLAIN (COSTS OFF) DECLARE c SCROLL CURSOR FOR SELECT u FROM sc_ei WHERE u > 7777 ORDER BY u DESC;
BEGIN;
DECLARE c SCROLL CURSOR FOR SELECT u FROM sc_ei WHERE u BETWEEN 100 AND 200 ORDER BY u;
FETCH 3 FROM c;
FETCH BACKWARD 2 FROM c;
FETCH ABSOLUTE 101 FROM c;
FETCH FORWARD 2 FROM c;
FETCH PRIOR FROM c;
FETCH BACKWARD ALL FROM c \g /dev/null
FETCH NEXT FROM c;
MOVE FORWARD ALL FROM c;
FETCH BACKWARD 3 FROM c;
COMMIT;
RESET enable_seqscan;
RESET enable_bitmapscan;

--
-- Rescans: a nested loop probing the index once per outer row, forward and
-- backward (LATERAL ... ORDER BY DESC LIMIT).
--
SET enable_hashjoin = off;
SET enable_mergejoin = off;
SELECT ei_diff('sc', 'SELECT g, t.id FROM generate_series(1, 600, 3) AS g JOIN %I AS t ON t.u = g', false, '{index,bitmap}');
SELECT ei_diff('sc', 'SELECT g, t.u FROM generate_series(1, 600, 3) AS g JOIN %I AS t ON t.u = g', false, '{indexonly}');
SELECT ei_diff('sc', 'SELECT g, x.u FROM generate_series(0, 996, 7) AS g, LATERAL (SELECT u FROM %I WHERE k = g ORDER BY k DESC LIMIT 3) AS x', false, '{index}');
SELECT ei_diff('sc', 'SELECT g, x.w FROM generate_series(1, 19999, 997) AS g, LATERAL (SELECT w FROM %I WHERE w < lpad(g::text, 8, ''0'') ORDER BY w DESC LIMIT 2) AS x', false, '{index,indexonly}');
RESET enable_hashjoin;
RESET enable_mergejoin;

--
-- Merge joins read the index in order on both sides; the inner side marks
-- and restores its position for every run of duplicates.
--
SET enable_hashjoin = off;
SET enable_nestloop = off;
SET enable_sort = off;
SET enable_material = off;
SET enable_seqscan = off;
SET enable_bitmapscan = off;
SET enable_indexonlyscan = off;
EXPLAIN (COSTS OFF)
SELECT count(*) FROM sc_ei a JOIN sc_ei b ON a.k = b.k WHERE a.k < 50;
SELECT ei_diff('sc', 'SELECT count(*), sum(a.u::int8 * b.u) FROM %1$I a JOIN %1$I b ON a.k = b.k WHERE a.k < 50', false, '{index}');
SELECT ei_diff('sc', 'SELECT count(*), sum(a.k) FROM %1$I a JOIN %1$I b ON a.k = b.k WHERE a.k < 50', false, '{indexonly}');
SELECT ei_diff('sc', 'SELECT a.k, b.u FROM %1$I a JOIN %1$I b ON a.k = b.k WHERE a.k BETWEEN 900 AND 920 AND a.u %% 2 = 0', false, '{index}');
SELECT ei_diff('sc', 'SELECT a.k FROM %1$I a JOIN %1$I b ON a.k = b.k WHERE a.k < 20 ORDER BY a.k DESC', true, '{index,indexonly}');
SELECT ei_diff('sc', 'SELECT a.c, count(*) FROM %1$I a JOIN %1$I b ON a.c = b.c WHERE a.u < 30 GROUP BY a.c', false, '{index}');
RESET enable_hashjoin;
RESET enable_nestloop;
RESET enable_sort;
RESET enable_material;
RESET enable_seqscan;
RESET enable_bitmapscan;
RESET enable_indexonlyscan;

--
-- Parallel index scans (and index-only scans), ordered through Gather
-- Merge, forward and backward.
--
SELECT ei_diff('sc', 'SELECT count(*), sum(u) FROM %I WHERE u > 1000', false, '{parallel}');
SELECT ei_diff('sc', 'SELECT count(*), sum(length(w)) FROM %I', false, '{parallel}');
SELECT ei_diff('sc', 'SELECT u FROM %I WHERE u BETWEEN 5000 AND 15000 ORDER BY u', true, '{parallel}');
SELECT ei_diff('sc', 'SELECT u FROM %I WHERE u > 100 ORDER BY u DESC', true, '{parallel}');
SELECT ei_diff('sc', 'SELECT id, u FROM %I WHERE k < 100', false, '{parallel}');
SELECT ei_diff('sc', 'SELECT left(w, 8) FROM %I WHERE w > ''0001'' ORDER BY w DESC', true, '{parallel}');
SELECT ei_diff('sc', 'SELECT id FROM %I WHERE c = 0', false, '{parallel}');
SELECT ei_diff('sc', 'SELECT count(*) FROM %I WHERE u < 0', false, '{index}');
SET max_parallel_workers_per_gather = 2;
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_index_scan_size = 0;
SET random_page_cost = 1;
SET cpu_tuple_cost = 1;
SET cpu_index_tuple_cost = 1;
SET enable_seqscan = off;
SET enable_bitmapscan = off;
EXPLAIN (COSTS OFF) SELECT u FROM sc_ei WHERE u BETWEEN 5000 AND 15000 ORDER BY u;
RESET max_parallel_workers_per_gather;
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_index_scan_size;
RESET random_page_cost;
RESET cpu_tuple_cost;
RESET cpu_index_tuple_cost;
RESET enable_seqscan;
RESET enable_bitmapscan;
SET max_parallel_workers_per_gather = 0;

SELECT ei_check_all('sc');

-- clean up
SET client_min_messages = warning;
DROP SCHEMA ei_scans CASCADE;
-- the next file creates the extension afresh
DROP EXTENSION elastic_index CASCADE;
RESET client_min_messages;
RESET search_path;
