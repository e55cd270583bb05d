CREATE EXTENSION IF NOT EXISTS elastic_index;
-- everything this file creates lives in its own schema
SET client_min_messages = warning;
DROP SCHEMA IF EXISTS ei_types_datetime CASCADE;
CREATE SCHEMA ei_types_datetime;
SET search_path = ei_types_datetime, public;
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
-- date, timestamp, timestamptz and interval keys: random data with
-- duplicates, NULLs and +-infinity, half loaded before CREATE INDEX and
-- half inserted after it; cross-type comparisons within the datetime family.
--
SELECT setseed(0.3);
CREATE TABLE td_src AS
WITH r AS MATERIALIZED (
	SELECT g AS id,
		   random() AS r0, random() AS r1, random() AS r2, random() AS r3,
		   random() AS r4, random() AS r5, random() AS r6, random() AS r7,
		   random() AS r8
	FROM generate_series(1, 16000) AS g)
SELECT id,
	CASE WHEN r0 < 0.04 THEN NULL
		 WHEN r0 < 0.05 THEN 'infinity'
		 WHEN r0 < 0.06 THEN '-infinity'
		 WHEN r0 < 0.07 THEN '4713-01-01 BC'
		 WHEN r0 < 0.08 THEN '5874897-12-31'
		 WHEN r0 < 0.50 THEN date '2000-01-01' + floor(r1 * 400)::int
		 ELSE date '1900-01-01' + floor(r1 * 73000)::int END::date AS d,
	CASE WHEN r2 < 0.04 THEN NULL
		 WHEN r2 < 0.05 THEN 'infinity'
		 WHEN r2 < 0.06 THEN '-infinity'
		 WHEN r2 < 0.07 THEN '4713-01-01 00:00:00 BC'
		 WHEN r2 < 0.30 THEN timestamp '2000-01-01' + floor(r3 * 2000) * interval '1 hour'
		 WHEN r2 < 0.40 THEN timestamp '2000-01-01' + floor(r3 * 400) * interval '1 day'
		 ELSE timestamp '1900-01-01' + r3 * interval '200 years' END::timestamp AS ts,
	CASE WHEN r4 < 0.04 THEN NULL
		 WHEN r4 < 0.05 THEN 'infinity'
		 WHEN r4 < 0.06 THEN '-infinity'
		 WHEN r4 < 0.40 THEN timestamptz '2000-01-01 00:00:00+00' + floor(r5 * 2000) * interval '1 hour'
		 ELSE timestamptz '1900-01-01 00:00:00+00' + r5 * interval '200 years' END::timestamptz AS tz,
	CASE WHEN r6 < 0.04 THEN NULL
		 WHEN r6 < 0.30 THEN make_interval(days => floor(r7 * 60)::int)
		 WHEN r6 < 0.45 THEN make_interval(hours => 24 * floor(r7 * 60)::int)
		 WHEN r6 < 0.55 THEN make_interval(months => floor(r7 * 2)::int, days => floor(r8 * 30)::int)
		 WHEN r6 < 0.65 THEN -make_interval(days => floor(r7 * 60)::int, secs => floor(r8 * 86400))
		 WHEN r6 < 0.70 THEN make_interval(years => 1000 + floor(r7 * 5)::int)
		 ELSE make_interval(secs => r7 * 1e7) END AS iv
FROM r;

SELECT ei_setup('td', 'td_src', 8000);
SELECT ei_index('td', 'd', '(d)');
SELECT ei_index('td', 'ts', '(ts)');
SELECT ei_index('td', 'tz', '(tz)');
SELECT ei_index('td', 'iv', '(iv)');
SELECT ei_check_all('td');
VACUUM ANALYZE td_seq, td_bt, td_ei;
SELECT ei_diff('td', 'SELECT d FROM %I WHERE d < ''1950-01-01'' ORDER BY d', true);
SELECT ei_diff('td', 'SELECT tz FROM %I WHERE tz > ''2000-02-01'' ORDER BY tz DESC', true);

SELECT ei_exec('td', 'INSERT INTO %I SELECT * FROM td_src WHERE id > 8000 ORDER BY id');
VACUUM ANALYZE td_seq, td_bt, td_ei;
SELECT ei_check_all('td');

SELECT * FROM ei_diff_col('td', 'd', '''2000-03-01''', '''2000-12-31''');
SELECT * FROM ei_diff_col('td', 'ts', '''2000-01-02 05:00''', '''2000-03-01''');
SELECT * FROM ei_diff_col('td', 'tz', '''2000-01-03 00:00+00''', '''2000-03-20 07:00+00''');
SELECT * FROM ei_diff_col('td', 'iv', '''10 days''', '''1 mon 10 days''', 'justify_interval(%s)');

-- infinities and the extremes of the ranges
SELECT ei_diff('td', 'SELECT d FROM %I WHERE d = ''infinity''');
SELECT ei_diff('td', 'SELECT d FROM %I WHERE d > ''5874897-12-30''');
SELECT ei_diff('td', 'SELECT d FROM %I WHERE d <= ''-infinity''');
SELECT ei_diff('td', 'SELECT d FROM %I WHERE d < ''0001-01-01'' ORDER BY d', true);
SELECT ei_diff('td', 'SELECT ts FROM %I WHERE ts >= ''infinity''');
SELECT ei_diff('td', 'SELECT ts FROM %I WHERE ts < ''1000-01-01'' ORDER BY ts DESC', true);
SELECT ei_diff('td', 'SELECT tz FROM %I WHERE tz = ''-infinity''');
SELECT ei_diff('td', 'SELECT tz FROM %I WHERE tz > ''2100-01-01+00''');

-- date vs timestamp and timestamptz, timestamp vs date and timestamptz
SELECT ei_diff('td', 'SELECT d FROM %I WHERE d < ''2000-01-10 12:00''::timestamp ORDER BY d', true);
SELECT ei_diff('td', 'SELECT d FROM %I WHERE d = ''2000-01-10 00:00''::timestamp');
SELECT ei_diff('td', 'SELECT d FROM %I WHERE d = ''2000-01-10 00:00:01''::timestamp');
SELECT ei_diff('td', 'SELECT d FROM %I WHERE d > ''2000-02-10 23:59:59''::timestamp AND d <= ''2000-02-20''::timestamp');
SELECT ei_diff('td', 'SELECT d FROM %I WHERE d >= ''2000-01-10 12:00+00''::timestamptz ORDER BY d LIMIT 30', true);
SELECT ei_diff('td', 'SELECT d FROM %I WHERE d > ''infinity''::timestamp');
SELECT ei_diff('td', 'SELECT d FROM %I WHERE d >= ''infinity''::timestamp');
SELECT ei_diff('td', 'SELECT ts FROM %I WHERE ts >= ''2000-01-05''::date AND ts < ''2000-01-06''::date ORDER BY ts', true);
SELECT ei_diff('td', 'SELECT ts FROM %I WHERE ts = ''2000-01-05''::date');
SELECT ei_diff('td', 'SELECT ts FROM %I WHERE ts > ''2000-01-05 03:00+00''::timestamptz ORDER BY ts LIMIT 40', true);
SELECT ei_diff('td', 'SELECT ts FROM %I WHERE ts <= ''-infinity''::date');
SELECT ei_diff('td', 'SELECT tz FROM %I WHERE tz < ''2000-01-02''::date ORDER BY tz DESC LIMIT 40', true);
SELECT ei_diff('td', 'SELECT tz FROM %I WHERE tz = ''2000-01-02 05:00''::timestamp');
SELECT ei_diff('td', 'SELECT tz FROM %I WHERE tz BETWEEN ''2000-01-02''::date AND ''2000-01-03 00:00''::timestamp');

-- equal intervals written differently: 1 day = 24 hours, 1 mon = 30 days
SELECT ei_diff('td', 'SELECT iv FROM %I WHERE iv = ''1 day''');
SELECT ei_diff('td', 'SELECT iv FROM %I WHERE iv = ''24 hours''');
SELECT ei_diff('td', 'SELECT iv FROM %I WHERE iv = ''1 mon''');
SELECT ei_diff('td', 'SELECT justify_interval(iv) FROM %I WHERE iv >= ''29 days 23:59:59'' AND iv <= ''30 days'' ORDER BY iv', true);
SELECT ei_diff('td', 'SELECT justify_interval(iv) FROM %I WHERE iv < ''-59 days'' ORDER BY iv DESC', true);
SELECT ei_diff('td', 'SELECT iv FROM %I WHERE iv > ''999 years''');

-- IN lists
SELECT ei_diff('td', 'SELECT id, d FROM %I WHERE d IN (''2000-01-01'', ''2000-01-02'', ''infinity'')', false, '{bitmap}');
SELECT ei_diff('td', 'SELECT id, tz FROM %I WHERE tz IN (''2000-01-01 10:00+00'', ''-infinity'')', false, '{bitmap}');
SELECT ei_diff('td', 'SELECT id, iv FROM %I WHERE iv IN (''1 day'', ''2 days'', ''1 mon'')', false, '{bitmap}');

SELECT ei_check_all('td');

-- clean up
SET client_min_messages = warning;
DROP SCHEMA ei_types_datetime CASCADE;
-- the next file creates the extension afresh
DROP EXTENSION elastic_index CASCADE;
RESET client_min_messages;
RESET search_path;
