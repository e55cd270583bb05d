CREATE EXTENSION IF NOT EXISTS elastic_index;
-- everything this file creates lives in its own schema
SET client_min_messages = warning;
DROP SCHEMA IF EXISTS ei_types_text CASCADE;
CREATE SCHEMA ei_types_text;
SET search_path = ei_types_text, public;
RESET client_min_messages;
--
-- Differential test harness (the same text opens every differential_*.sql
-- file, so that each file runs on its own).
--
-- Each data set BASE lives in three tables with identical rows:
--   BASE_seq   no index; read with a sequential scan (the reference)
--   BASE_bt    PostgreSQL's btree indexes
--   BASE_ei    the same indexes with USING elastic_btree
-- ei_diff(BASE, QUERY, ORDERED, MODES) expands QUERY, a format() template in
-- which %I (or %1$I) stands for the table, for each table, runs it under
-- every planner mode in MODES and raises an error unless every result equals
-- the reference: row for row when ORDERED, as multisets otherwise.  Before
-- running a query on BASE_ei it also checks with EXPLAIN (FORMAT JSON) that
-- the plan reads one of BASE_ei's elastic_btree indexes the way MODES asks
-- and, for ORDERED queries outside bitmap mode, that no Sort node provides
-- the order, so a test cannot pass by silently not using the index.  It
-- returns 'ok rows=N' with N the number of rows of the reference (and the
-- row itself when there is just one).
--
-- Modes: index (plain index scan), indexonly (index-only scan), bitmap
-- (bitmap index scan), parallel (parallel-aware index or index-only scan).
--
-- Ordered queries must order by every output column they print, or print
-- values that are equal only when their text is equal: ties may come back
-- in any order, and -0 vs 0 (float), 1.0 vs 1.00 (numeric) or '1 day' vs
-- '24 hours' (interval) are equal but print differently, so such queries
-- print normalized values (x + 0, trim_scale(x), justify_interval(x)).
--
SET client_min_messages = warning;
SET timezone = 'UTC';
SET datestyle = 'ISO, MDY';
SET intervalstyle = 'postgres';
SET extra_float_digits = 1;
SET max_parallel_workers_per_gather = 0;

-- The join and sort switches a test may have turned off.
CREATE OR REPLACE FUNCTION ei_get_knobs() RETURNS text[]
LANGUAGE sql AS $fn$
	SELECT array_agg(current_setting(k) ORDER BY n)
	FROM unnest(ARRAY['enable_hashjoin', 'enable_mergejoin', 'enable_nestloop',
					  'enable_sort', 'enable_material']) WITH ORDINALITY AS x(k, n)
$fn$;

-- Set the planner switches of one mode, for the current transaction.  The
-- join and sort switches are turned on for the reference (mode seq), so
-- that it gets a plain plan, and put back to SAVED (from ei_get_knobs) for
-- the other modes.
CREATE OR REPLACE FUNCTION ei_set_mode(mode text, saved text[] DEFAULT NULL) RETURNS void
LANGUAGE plpgsql AS $fn$
DECLARE
	knobs		text[] := ARRAY['enable_hashjoin', 'enable_mergejoin', 'enable_nestloop',
								'enable_sort', 'enable_material'];
	i			int;
BEGIN
	IF mode NOT IN ('seq', 'index', 'indexonly', 'bitmap', 'parallel') THEN
		RAISE EXCEPTION 'unknown mode "%"', mode;
	END IF;
	IF saved IS NOT NULL THEN
		FOR i IN 1 .. cardinality(knobs) LOOP
			PERFORM set_config(knobs[i],
							   CASE WHEN mode = 'seq' THEN 'on' ELSE saved[i] END, true);
		END LOOP;
	END IF;
	PERFORM set_config('enable_seqscan',
					   CASE WHEN mode = 'seq' THEN 'on' ELSE 'off' END, true);
	PERFORM set_config('enable_indexscan',
					   CASE WHEN mode IN ('index', 'indexonly', 'parallel')
					   THEN 'on' ELSE 'off' END, true);
	PERFORM set_config('enable_indexonlyscan',
					   CASE WHEN mode IN ('indexonly', 'parallel')
					   THEN 'on' ELSE 'off' END, true);
	PERFORM set_config('enable_bitmapscan',
					   CASE WHEN mode = 'bitmap' THEN 'on' ELSE 'off' END, true);
	IF mode = 'parallel' THEN
		PERFORM set_config('max_parallel_workers_per_gather', '2', true);
		PERFORM set_config('parallel_setup_cost', '0', true);
		PERFORM set_config('parallel_tuple_cost', '0', true);
		PERFORM set_config('min_parallel_table_scan_size', '0', true);
		PERFORM set_config('min_parallel_index_scan_size', '0', true);
		PERFORM set_config('parallel_leader_participation', 'off', true);
		-- make CPU work dominate, so that sharing it among workers wins
		PERFORM set_config('random_page_cost', '1', true);
		PERFORM set_config('cpu_tuple_cost', '1', true);
		PERFORM set_config('cpu_index_tuple_cost', '1', true);
	ELSE
		PERFORM set_config('max_parallel_workers_per_gather', '0', true);
	END IF;
END
$fn$;

-- Does an EXPLAIN (FORMAT JSON) plan read an elastic_btree index of TBL
-- with the scan kind MODE asks for?
CREATE OR REPLACE FUNCTION ei_plan_uses(plan jsonb, tbl text, mode text) RETURNS bool
LANGUAGE sql AS $fn$
	SELECT EXISTS (
		SELECT 1
		FROM jsonb_path_query(plan, 'strict $.**') AS n(node)
		WHERE jsonb_typeof(node) = 'object'
		  AND node ->> 'Index Name' IN (
				SELECT ci.relname
				FROM pg_index i
				JOIN pg_class ci ON ci.oid = i.indexrelid
				JOIN pg_am am ON am.oid = ci.relam
				WHERE i.indrelid = tbl::regclass
				  AND am.amname = 'elastic_btree')
		  AND CASE mode
				WHEN 'index' THEN node ->> 'Node Type' = 'Index Scan'
				WHEN 'indexonly' THEN node ->> 'Node Type' = 'Index Only Scan'
				WHEN 'bitmap' THEN node ->> 'Node Type' = 'Bitmap Index Scan'
				WHEN 'parallel' THEN node ->> 'Node Type' IN ('Index Scan', 'Index Only Scan')
									 AND (node -> 'Parallel Aware')::bool
				ELSE false
			  END)
$fn$;

-- Sort an array of row texts (multiset comparison).
CREATE OR REPLACE FUNCTION ei_sorted(a text[]) RETURNS text[]
LANGUAGE sql IMMUTABLE AS $fn$
	SELECT coalesce(array_agg(e ORDER BY e COLLATE "C"), '{}')
	FROM unnest(a) AS e
$fn$;

-- Run QUERY on BASE_seq, BASE_bt and BASE_ei under each mode and compare.
CREATE OR REPLACE FUNCTION ei_diff(base text, query text, ordered bool DEFAULT false,
						modes text[] DEFAULT '{index,indexonly,bitmap}')
RETURNS text
LANGUAGE plpgsql AS $fn$
DECLARE
	wrap constant text := 'SELECT coalesce(array_agg(x::text), ''{}'') FROM (%s) x';
	ref			text[];
	res			text[];
	plan		jsonb;
	mode		text;
	tbl			text;
	q			text;
	i			int;
	saved		text[] := ei_get_knobs();
BEGIN
	PERFORM ei_set_mode('seq', saved);
	EXECUTE format(wrap, format(query, base || '_seq')) INTO ref;
	IF NOT ordered THEN
		ref := ei_sorted(ref);
	END IF;

	FOREACH mode IN ARRAY modes LOOP
		PERFORM ei_set_mode(mode, saved);
		FOREACH tbl IN ARRAY ARRAY[base || '_bt', base || '_ei'] LOOP
			q := format(wrap, format(query, tbl));
			IF tbl = base || '_ei' THEN
				EXECUTE 'EXPLAIN (COSTS OFF, FORMAT JSON) ' || q INTO plan;
				IF NOT ei_plan_uses(plan, tbl, mode) THEN
					RAISE EXCEPTION 'mode %: plan does not use an elastic_btree index as expected: %',
						mode, format(query, tbl)
						USING DETAIL = jsonb_pretty(plan);
				END IF;
				-- an ordered query read through the index must get its order
				-- from the index, not from a Sort node
				IF ordered AND mode <> 'bitmap'
				   AND jsonb_path_exists(plan, 'strict $.** ? (@."Node Type" like_regex "Sort")') THEN
					RAISE EXCEPTION 'mode %: plan sorts instead of reading the index in order: %',
						mode, format(query, tbl)
						USING DETAIL = jsonb_pretty(plan);
				END IF;
			END IF;
			EXECUTE q INTO res;
			IF NOT ordered THEN
				res := ei_sorted(res);
			END IF;
			IF res IS DISTINCT FROM ref THEN
				i := 1;
				WHILE i <= greatest(cardinality(res), cardinality(ref))
					  AND res[i] IS NOT DISTINCT FROM ref[i] LOOP
					i := i + 1;
				END LOOP;
				RAISE EXCEPTION 'mode %: % returned % rows, reference % rows; first difference at row %: % vs reference %',
					mode, format(query, tbl), cardinality(res), cardinality(ref),
					i, left(res[i], 200), left(ref[i], 200);
			END IF;
		END LOOP;
	END LOOP;
	IF cardinality(ref) = 1 THEN
		RETURN format('ok rows=1: %s', left(ref[1], 80));
	END IF;
	RETURN format('ok rows=%s', cardinality(ref));
END
$fn$;

-- The standard battery of queries on one column COL of BASE: every
-- comparison operator against LO (<, <=, =) and HI (>=, >), BETWEEN,
-- IS [NOT] NULL, ORDER BY ASC and DESC (with and without a range qual and
-- LIMIT), and MIN/MAX unless MINMAX is false.  NORM is a format()
-- template that normalizes an output value for ordered comparisons (see
-- above).  FWD and BWD are the ORDER BY clauses (format() templates) that
-- read the index forward and backward.  PROJ is what the unordered queries
-- print of the column (a format() template).
CREATE OR REPLACE FUNCTION ei_diff_col(base text, col text, lo text, hi text,
							norm text DEFAULT '%s', minmax bool DEFAULT true,
							fwd text DEFAULT '%s', bwd text DEFAULT '%s DESC',
							proj text DEFAULT '%s')
RETURNS TABLE (query text, result text)
LANGUAGE plpgsql AS $fn$
DECLARE
	op			text;
	v			text;
	n			text := format(norm, col);
	p			text := format(proj, col);
BEGIN
	FOREACH op IN ARRAY ARRAY['<', '<=', '=', '>=', '>'] LOOP
		v := CASE WHEN op IN ('<', '<=', '=') THEN lo ELSE hi END;
		query := format('SELECT id, %s FROM %%I WHERE %s %s %s', p, col, op, v);
		result := ei_diff(base, query, false, '{index,bitmap}');
		RETURN NEXT;
		query := format('SELECT %s FROM %%I WHERE %s %s %s', p, col, op, v);
		result := ei_diff(base, query, false, '{indexonly}');
		RETURN NEXT;
	END LOOP;

	query := format('SELECT %s FROM %%I WHERE %s BETWEEN %s AND %s', p, col, lo, hi);
	result := ei_diff(base, query);
	RETURN NEXT;
	query := format('SELECT id FROM %%I WHERE %s IS NULL', col);
	result := ei_diff(base, query, false, '{index,bitmap}');
	RETURN NEXT;
	query := format('SELECT count(*) FROM %%I WHERE %s IS NOT NULL', col);
	result := ei_diff(base, query, false, '{indexonly,bitmap}');
	RETURN NEXT;

	query := format('SELECT %s FROM %%I ORDER BY %s', n, format(fwd, col));
	result := ei_diff(base, query, true, '{index,indexonly}');
	RETURN NEXT;
	query := format('SELECT %s FROM %%I ORDER BY %s', n, format(bwd, col));
	result := ei_diff(base, query, true, '{index,indexonly}');
	RETURN NEXT;
	query := format('SELECT %s FROM %%I WHERE %s >= %s ORDER BY %s LIMIT 50', n, col, lo, format(fwd, col));
	result := ei_diff(base, query, true, '{index,indexonly,bitmap}');
	RETURN NEXT;
	query := format('SELECT %s FROM %%I WHERE %s <= %s ORDER BY %s LIMIT 50', n, col, hi, format(bwd, col));
	result := ei_diff(base, query, true, '{index,indexonly,bitmap}');
	RETURN NEXT;
	query := format('SELECT %s FROM %%I WHERE %s > %s AND %s < %s ORDER BY %s', n, col, lo, col, hi, format(bwd, col));
	result := ei_diff(base, query, true);
	RETURN NEXT;
	IF minmax THEN
		query := format('SELECT %s, %s FROM %%I', format(norm, 'min(' || col || ')'),
						format(norm, 'max(' || col || ')'));
		result := ei_diff(base, query, true, '{index,indexonly}');
		RETURN NEXT;
	END IF;
END
$fn$;

-- Create BASE_seq, BASE_bt and BASE_ei with the columns of table SRC, and
-- load the rows of SRC with id <= SPLIT into each (the rest is inserted
-- after the indexes are built).
CREATE OR REPLACE FUNCTION ei_setup(base text, src text, split int) RETURNS void
LANGUAGE plpgsql AS $fn$
DECLARE
	s			text;
BEGIN
	FOREACH s IN ARRAY ARRAY['_seq', '_bt', '_ei'] LOOP
		EXECUTE format('CREATE TABLE %I (LIKE %I INCLUDING ALL) WITH (autovacuum_enabled = off)',
					   base || s, src);
		EXECUTE format('INSERT INTO %I SELECT * FROM %I WHERE id <= %s ORDER BY id',
					   base || s, src, split);
	END LOOP;
END
$fn$;

-- Create index NAME (DEF is what follows the access method in CREATE INDEX,
-- e.g. '(a, b DESC) WHERE a > 0') on BASE_bt with btree and on BASE_ei
-- with elastic_btree.
CREATE OR REPLACE FUNCTION ei_index(base text, name text, def text) RETURNS void
LANGUAGE plpgsql AS $fn$
BEGIN
	EXECUTE format('CREATE INDEX %I ON %I USING btree %s', base || '_bt_' || name, base || '_bt', def);
	EXECUTE format('CREATE INDEX %I ON %I USING elastic_btree %s', base || '_ei_' || name, base || '_ei', def);
END
$fn$;

-- Run SQL (a format() template with %I for the table) on all three tables.
CREATE OR REPLACE FUNCTION ei_exec(base text, sql text) RETURNS void
LANGUAGE plpgsql AS $fn$
DECLARE
	s			text;
BEGIN
	FOREACH s IN ARRAY ARRAY['_seq', '_bt', '_ei'] LOOP
		EXECUTE format(sql, base || s);
	END LOOP;
END
$fn$;

-- Verify every elastic_btree index of BASE_ei with elastic_index_check(idx,
-- true), and check that the three tables hold the same number of rows.
CREATE OR REPLACE FUNCTION ei_check_all(base text) RETURNS text
LANGUAGE plpgsql AS $fn$
DECLARE
	idx			regclass;
	nidx		int := 0;
	counts		bigint[];
	c			bigint;
	s			text;
BEGIN
	FOR idx IN
		SELECT i.indexrelid::regclass
		FROM pg_index i
		JOIN pg_class ci ON ci.oid = i.indexrelid
		JOIN pg_am am ON am.oid = ci.relam
		WHERE i.indrelid = (base || '_ei')::regclass
		  AND am.amname = 'elastic_btree'
		ORDER BY ci.relname
	LOOP
		PERFORM elastic_index_check(idx, true);
		nidx := nidx + 1;
	END LOOP;
	FOREACH s IN ARRAY ARRAY['_seq', '_bt', '_ei'] LOOP
		EXECUTE format('SELECT count(*) FROM %I', base || s) INTO c;
		counts := counts || c;
	END LOOP;
	IF counts[1] <> counts[2] OR counts[1] <> counts[3] THEN
		RAISE EXCEPTION 'tables of % differ in size: %', base, counts;
	END IF;
	RETURN format('%s indexes ok, %s rows', nidx, counts[1]);
END
$fn$;

RESET client_min_messages;
--
-- text (default collation, "C", "POSIX" and ICU when available), varchar,
-- bytea and uuid keys: random data with duplicates, NULLs, empty values,
-- non-ASCII characters and long (over 2 kB, compressible) values, half
-- loaded before CREATE INDEX and half inserted after it.
--

-- a random string of 0 to MAXLEN characters, ASCII and not
CREATE OR REPLACE FUNCTION ei_rand_text(maxlen int) RETURNS text
LANGUAGE sql VOLATILE AS $fn$
	SELECT coalesce(string_agg(substr(chars, 1 + floor(random() * length(chars))::int, 1), ''), '')
	FROM (SELECT 'abcdefxyzABCXYZ0129 -_.,~éèüößñÅÆØœ日本語€😀' AS chars) AS c,
		 generate_series(1, floor(random() * (maxlen + 1))::int)
$fn$;

SELECT setseed(0.2);
CREATE TABLE tt_src AS
WITH r AS MATERIALIZED (
	SELECT g AS id, random() AS r0, random() AS r1, random() AS r2,
		   random() AS r3, random() AS r4, random() AS r5, random() AS r6,
		   ei_rand_text(20) AS s1, ei_rand_text(30) AS s2
	FROM generate_series(1, 12000) AS g)
SELECT id,
	CASE WHEN r0 < 0.05 THEN NULL
		 WHEN r0 < 0.08 THEN ''
		 WHEN r0 < 0.40 THEN (ARRAY['wörd', 'Word', 'word', 'WORD', '日本'])[1 + floor(r1 * 5)::int]
							 || floor(r6 * 50)::text
		 WHEN r0 < 0.42 THEN repeat('abcdefgh', 300 + floor(r1 * 200)::int) || s1
		 WHEN r0 < 0.43 THEN repeat('日本語', 250 + floor(r1 * 10)::int) || s1
		 ELSE s1 END AS t,
	CASE WHEN r2 < 0.05 THEN NULL
		 WHEN r2 < 0.30 THEN 'v' || floor(r3 * 100)::text
		 ELSE left(s2, 40) END::varchar(40) AS v,
	CASE WHEN r4 < 0.05 THEN NULL
		 WHEN r4 < 0.08 THEN ''::bytea
		 WHEN r4 < 0.10 THEN '\x00'::bytea
		 WHEN r4 < 0.12 THEN '\x0000ff'::bytea
		 WHEN r4 < 0.40 THEN decode(lpad(to_hex(floor(r5 * 300)::int), 4, '0'), 'hex')
		 WHEN r4 < 0.42 THEN decode(repeat('00ff', 1100), 'hex') || decode(md5(s2), 'hex')
		 ELSE substr(decode(md5(s2) || md5(s1), 'hex'), 1, 1 + floor(r5 * 32)::int) END AS by,
	CASE WHEN r5 < 0.05 THEN NULL
		 WHEN r5 < 0.06 THEN '00000000-0000-0000-0000-000000000000'
		 WHEN r5 < 0.07 THEN 'ffffffff-ffff-ffff-ffff-ffffffffffff'
		 WHEN r5 < 0.40 THEN md5(floor(r5 * 300)::text)
		 ELSE md5(s1 || s2) END::uuid AS u
FROM r;

-- the same strings under the collations "C" and "POSIX"
ALTER TABLE tt_src ADD COLUMN tc text COLLATE "C", ADD COLUMN tp text COLLATE "POSIX";
UPDATE tt_src SET tc = t, tp = t;

-- sanity of the data: long values, non-ASCII, duplicates
SELECT count(*) FILTER (WHERE octet_length(t) > 2048) > 200 AS long_values,
	   count(*) FILTER (WHERE t ~ '[^\x01-\x7f]') > 1000 AS non_ascii,
	   count(DISTINCT t) < count(t) AS duplicates,
	   count(*) FILTER (WHERE octet_length(by) > 2048) > 200 AS long_bytea
FROM tt_src;

SELECT ei_setup('tt', 'tt_src', 6000);
SELECT ei_index('tt', 't', '(t)');
SELECT ei_index('tt', 'tc', '(tc)');
SELECT ei_index('tt', 'tp', '(tp)');
SELECT ei_index('tt', 'v', '(v)');
SELECT ei_index('tt', 'by', '(by)');
SELECT ei_index('tt', 'u', '(u)');
SELECT ei_index('tt', 'lower', '(lower(t))');
SELECT ei_check_all('tt');

-- long values are stored compressed in the index, well under the size limit
SELECT pg_column_size(t) < 1000 AS compressed
FROM tt_ei WHERE t LIKE 'abcdefghabcdefgh%' LIMIT 1;

SELECT ei_exec('tt', 'INSERT INTO %I SELECT * FROM tt_src WHERE id > 6000 ORDER BY id');
VACUUM ANALYZE tt_seq, tt_bt, tt_ei;
SELECT ei_check_all('tt');

SELECT * FROM ei_diff_col('tt', 't', '''Word1''', '''wörd3''');
SELECT * FROM ei_diff_col('tt', 'v', '''v42''', '''v7''');
SELECT * FROM ei_diff_col('tt', 'by', '''\x0101''', '''\x0120''', '%s', false);
SELECT * FROM ei_diff_col('tt', 'u', 'md5(''50'')::uuid',
						  '''e0000000-0000-0000-0000-000000000000''', '%s', false);

-- empty strings, long values and non-ASCII characters
SELECT ei_diff('tt', 'SELECT id FROM %I WHERE t = ''''', false, '{index,bitmap}');
SELECT ei_diff('tt', 'SELECT t FROM %I WHERE t <= ''''');
SELECT ei_diff('tt', 'SELECT t FROM %I WHERE t > '''' ORDER BY t LIMIT 200', true);
SELECT ei_diff('tt', 'SELECT t FROM %I WHERE t >= ''abcdefgh'' AND t < ''abcdefgi'' ORDER BY t', true);
SELECT ei_diff('tt', 'SELECT t FROM %I WHERE t > repeat(''abcdefgh'', 400)');
SELECT ei_diff('tt', 'SELECT t FROM %I WHERE t >= ''日本語日本語'' ORDER BY t DESC', true);
SELECT ei_diff('tt', 'SELECT t FROM %I WHERE t > ''€'' AND t < ''😀'' ORDER BY t', true);
SELECT ei_diff('tt', 'SELECT t FROM %I WHERE t = ''wörd17''');
SELECT ei_diff('tt', 'SELECT id, t FROM %I WHERE t IN (''wörd1'', ''Word2'', ''日本3'', '''')', false, '{bitmap}');

-- "C" and "POSIX" columns
SELECT ei_diff('tt', 'SELECT tc FROM %I WHERE tc > ''Z'' AND tc < ''a'' ORDER BY tc', true);
SELECT ei_diff('tt', 'SELECT tc FROM %I WHERE tc = ''WORD10''');
SELECT ei_diff('tt', 'SELECT tc FROM %I WHERE tc >= ''日本'' ORDER BY tc DESC', true);
SELECT ei_diff('tt', 'SELECT tc FROM %I ORDER BY tc', true, '{index,indexonly}');
SELECT ei_diff('tt', 'SELECT id FROM %I WHERE tc IS NULL', false, '{index,bitmap}');
SELECT ei_diff('tt', 'SELECT tp FROM %I WHERE tp BETWEEN ''W'' AND ''w'' ORDER BY tp DESC', true);
SELECT ei_diff('tt', 'SELECT tp FROM %I WHERE tp BETWEEN ''日本12'' AND ''日本4'' ORDER BY tp', true);
SELECT ei_diff('tt', 'SELECT tp FROM %I WHERE tp < ''WORD'' ORDER BY tp DESC LIMIT 10', true);
SELECT ei_diff('tt', 'SELECT tp FROM %I ORDER BY tp DESC', true, '{index,indexonly}');
SELECT ei_diff('tt', 'SELECT count(*) FROM %I WHERE tp IS NOT NULL', false, '{indexonly,bitmap}');

-- varchar compared through text
SELECT ei_diff('tt', 'SELECT v FROM %I WHERE v = ''v42''::varchar');
SELECT ei_diff('tt', 'SELECT v FROM %I WHERE v > ''v9''::text ORDER BY v', true);
SELECT ei_diff('tt', 'SELECT id, v FROM %I WHERE v IN (''v1'', ''v2'', ''v99'')', false, '{bitmap}');

-- bytea: empty, zero bytes, long
SELECT ei_diff('tt', 'SELECT by FROM %I WHERE by = ''''::bytea');
SELECT ei_diff('tt', 'SELECT by FROM %I WHERE by <= ''\x00''::bytea ORDER BY by', true);
SELECT ei_diff('tt', 'SELECT by FROM %I WHERE by > ''\x00''::bytea AND by < ''\x0001''::bytea');
SELECT ei_diff('tt', 'SELECT md5(by) FROM %I WHERE by >= ''\x00ff00ff''::bytea AND by < ''\x01''::bytea');

-- uuid extremes and duplicates
SELECT ei_diff('tt', 'SELECT u FROM %I WHERE u = ''00000000-0000-0000-0000-000000000000''');
SELECT ei_diff('tt', 'SELECT u FROM %I WHERE u >= ''ffffffff-ffff-ffff-ffff-ffffffffffff''');
SELECT ei_diff('tt', 'SELECT u FROM %I WHERE u = md5(''50'')::uuid');

-- the expression index on lower(t)
SELECT ei_diff('tt', 'SELECT id, t FROM %I WHERE lower(t) = ''word7''', false, '{index,bitmap}');
SELECT ei_diff('tt', 'SELECT lower(t) FROM %I WHERE lower(t) > ''word4'' ORDER BY lower(t)', true, '{index,bitmap}');
SELECT ei_diff('tt', 'SELECT lower(t) FROM %I WHERE lower(t) < ''abc'' ORDER BY lower(t) DESC LIMIT 30', true, '{index,bitmap}');
SELECT ei_diff('tt', 'SELECT id FROM %I WHERE lower(t) IS NULL', false, '{index,bitmap}');

--
-- An ICU collation.  The test must pass where ICU is missing too, so the
-- column uses "und-x-icu" when pg_collation has it and falls back to "C"
-- otherwise.  Row counts differ between the two, so only the outcome of
-- each comparison is printed.
--
DO $do$
DECLARE
	coll text := CASE WHEN EXISTS (SELECT 1 FROM pg_collation
								   WHERE collname = 'und-x-icu')
				 THEN 'und-x-icu' ELSE 'C' END;
BEGIN
	EXECUTE format('CREATE TABLE ti_src (id int, t text COLLATE %I)', coll);
END
$do$;
INSERT INTO ti_src SELECT id, t FROM tt_src;
SELECT ei_setup('ti', 'ti_src', 6000);
SELECT ei_index('ti', 't', '(t)');
SELECT ei_exec('ti', 'INSERT INTO %I SELECT * FROM ti_src WHERE id > 6000 ORDER BY id');
VACUUM ANALYZE ti_seq, ti_bt, ti_ei;
SELECT ei_check_all('ti');
SELECT query, result LIKE 'ok rows=%' AS ok FROM ei_diff_col('ti', 't', '''Word1''', '''wörd3''');
SELECT ei_diff('ti', 'SELECT t FROM %I WHERE t > ''a'' AND t < ''B'' ORDER BY t', true) LIKE 'ok rows=%' AS ok;
SELECT ei_diff('ti', 'SELECT t FROM %I WHERE t >= ''é'' AND t <= ''f'' ORDER BY t DESC', true) LIKE 'ok rows=%' AS ok;
SELECT ei_diff('ti', 'SELECT t FROM %I WHERE t BETWEEN ''ä'' AND ''z'' ORDER BY t', true) LIKE 'ok rows=%' AS ok;

SELECT ei_check_all('tt');

-- clean up
SET client_min_messages = warning;
DROP SCHEMA ei_types_text CASCADE;
-- the next file creates the extension afresh
DROP EXTENSION elastic_index CASCADE;
RESET client_min_messages;
RESET search_path;
