CREATE EXTENSION IF NOT EXISTS elastic_index;
-- everything this file creates lives in its own schema
SET client_min_messages = warning;
DROP SCHEMA IF EXISTS ei_types_numeric CASCADE;
CREATE SCHEMA ei_types_numeric;
SET search_path = ei_types_numeric, public;
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
-- Integer (int2, int4, int8), float (float4, float8), numeric, oid and bool
-- keys: random data with duplicates, NULLs, extremes, -0, NaN and
-- infinities, half loaded before CREATE INDEX and half inserted after it.
--
SELECT setseed(0.1);
CREATE TABLE tn_src AS
WITH r AS MATERIALIZED (
	SELECT g AS id,
		   random() AS r0, random() AS r1, random() AS r2, random() AS r3,
		   random() AS r4, random() AS r5, random() AS r6, random() AS r7,
		   random() AS r8, random() AS r9, random() AS r10, random() AS r11,
		   random() AS r12, random() AS r13, random() AS r14
	FROM generate_series(1, 16000) AS g)
SELECT id,
	CASE WHEN r0 < 0.05 THEN NULL
		 WHEN r0 < 0.06 THEN CASE WHEN r1 < 0.5 THEN -32768 ELSE 32767 END
		 ELSE floor(r1 * 601) - 300 END::int2 AS i2,
	CASE WHEN r2 < 0.05 THEN NULL
		 WHEN r2 < 0.06 THEN CASE WHEN r3 < 0.5 THEN -2147483648 ELSE 2147483647 END
		 ELSE floor(r3 * 10001) - 5000 END::int4 AS i4,
	CASE WHEN r4 < 0.05 THEN NULL
		 WHEN r4 < 0.06 THEN CASE WHEN r5 < 0.5 THEN -9223372036854775808 ELSE 9223372036854775807 END
		 WHEN r4 < 0.50 THEN floor(r5 * 2001)::int8 - 1000
		 ELSE (floor(r5 * 40001)::int8 - 20000) * 460000000000000 END::int8 AS i8,
	CASE WHEN r6 < 0.04 THEN NULL
		 WHEN r6 < 0.05 THEN 'NaN'
		 WHEN r6 < 0.06 THEN 'Infinity'
		 WHEN r6 < 0.07 THEN '-Infinity'
		 WHEN r6 < 0.09 THEN '-0'
		 WHEN r6 < 0.11 THEN '0'
		 WHEN r6 < 0.12 THEN '1.4e-45'
		 WHEN r6 < 0.50 THEN round(r7 * 200 - 100)
		 ELSE (r7 - 0.5) * 1e6 END::float4 AS f4,
	CASE WHEN r8 < 0.04 THEN NULL
		 WHEN r8 < 0.05 THEN 'NaN'
		 WHEN r8 < 0.06 THEN 'Infinity'
		 WHEN r8 < 0.07 THEN '-Infinity'
		 WHEN r8 < 0.09 THEN '-0'
		 WHEN r8 < 0.11 THEN '0'
		 WHEN r8 < 0.12 THEN CASE WHEN r9 < 0.5 THEN 5e-324 ELSE 1.7976931348623157e308 END
		 WHEN r8 < 0.50 THEN round(r9 * 200 - 100) / 4
		 ELSE (r9 - 0.5) * 1e12 END::float8 AS f8,
	CASE WHEN r10 < 0.04 THEN NULL
		 WHEN r10 < 0.05 THEN 'NaN'
		 WHEN r10 < 0.06 THEN 'Infinity'
		 WHEN r10 < 0.07 THEN '-Infinity'
		 WHEN r10 < 0.30 THEN round((r11 * 200 - 100)::numeric, 1)
		 WHEN r10 < 0.50 THEN round((r11 * 200 - 100)::numeric, 1)::numeric(10, 3)
		 WHEN r10 < 0.70 THEN round((r11 - 0.5)::numeric * 1e30)
		 WHEN r10 < 0.80 THEN (r11 - 0.5)::numeric * 1e-20
		 ELSE round(((r11 - 0.5) * 1e6)::numeric, 4) END AS n,
	CASE WHEN r12 < 0.05 THEN NULL
		 WHEN r12 < 0.30 THEN floor(r13 * 100)::int8
		 ELSE floor(r13 * 4294967295)::int8 END::oid AS o,
	CASE WHEN r14 < 0.10 THEN NULL
		 WHEN r14 < 0.55 THEN true
		 ELSE false END AS b
FROM r;

SELECT ei_setup('tn', 'tn_src', 8000);
SELECT ei_index('tn', 'i2', '(i2)');
SELECT ei_index('tn', 'i4', '(i4)');
SELECT ei_index('tn', 'i8', '(i8)');
SELECT ei_index('tn', 'f4', '(f4)');
SELECT ei_index('tn', 'f8', '(f8)');
SELECT ei_index('tn', 'n', '(n)');
SELECT ei_index('tn', 'o', '(o)');
SELECT ei_index('tn', 'b', '(b)');
SELECT ei_check_all('tn');

-- after the build: a few queries over built pages only
VACUUM ANALYZE tn_seq, tn_bt, tn_ei;
SELECT ei_diff('tn', 'SELECT i4 FROM %I WHERE i4 < -4000 ORDER BY i4', true);
SELECT ei_diff('tn', 'SELECT i8 FROM %I ORDER BY i8 DESC', true, '{index,indexonly}');
SELECT ei_diff('tn', 'SELECT n FROM %I WHERE n IS NOT NULL');

-- the second half, inserted one index entry at a time
SELECT ei_exec('tn', 'INSERT INTO %I SELECT * FROM tn_src WHERE id > 8000 ORDER BY id');
VACUUM ANALYZE tn_seq, tn_bt, tn_ei;
SELECT ei_check_all('tn');

-- the standard battery on every column
SELECT * FROM ei_diff_col('tn', 'i2', '-250', '250');
SELECT * FROM ei_diff_col('tn', 'i4', '-4800', '4800');
SELECT * FROM ei_diff_col('tn', 'i8', '-5', '900');
SELECT * FROM ei_diff_col('tn', 'f4', '-50', '50', '(%s + 0::float4)');
SELECT * FROM ei_diff_col('tn', 'f8', '-12.5', '12.5', '(%s + 0::float8)');
SELECT * FROM ei_diff_col('tn', 'n', '-12.5', '12.5', 'trim_scale(%s)');
SELECT * FROM ei_diff_col('tn', 'o', '50', '''3000000000''::oid');
-- bool: "b = false" and "b" are rewritten by the planner into NOT b and b,
-- which PostgreSQL 15 matches only to btree's own boolean operator family,
-- so the index serves the other operators only
SELECT ei_diff('tn', 'SELECT id, b FROM %I WHERE b < true', false, '{index,bitmap}');
SELECT ei_diff('tn', 'SELECT b FROM %I WHERE b <= false');
SELECT ei_diff('tn', 'SELECT b FROM %I WHERE b >= true');
SELECT ei_diff('tn', 'SELECT b FROM %I WHERE b > false');
SELECT ei_diff('tn', 'SELECT b FROM %I WHERE b > true');
SELECT ei_diff('tn', 'SELECT id FROM %I WHERE b IS NULL', false, '{index,bitmap}');
SELECT ei_diff('tn', 'SELECT count(*) FROM %I WHERE b IS NOT NULL', false, '{indexonly,bitmap}');
SELECT ei_diff('tn', 'SELECT b FROM %I ORDER BY b', true, '{index,indexonly}');
SELECT ei_diff('tn', 'SELECT b FROM %I ORDER BY b DESC', true, '{index,indexonly}');
SELECT ei_diff('tn', 'SELECT b FROM %I WHERE b >= false ORDER BY b LIMIT 50', true);
SELECT ei_diff('tn', 'SELECT b FROM %I WHERE b <= true ORDER BY b DESC LIMIT 50', true);

-- extremes of each integer type
SELECT ei_diff('tn', 'SELECT id, i2 FROM %I WHERE i2 = 32767', false, '{index,bitmap}');
SELECT ei_diff('tn', 'SELECT id, i2 FROM %I WHERE i2 <= -32768', false, '{index,bitmap}');
SELECT ei_diff('tn', 'SELECT id, i4 FROM %I WHERE i4 >= 2147483647', false, '{index,bitmap}');
SELECT ei_diff('tn', 'SELECT id, i4 FROM %I WHERE i4 = -2147483648', false, '{index,bitmap}');
SELECT ei_diff('tn', 'SELECT id, i8 FROM %I WHERE i8 > 9223372036854775806', false, '{index,bitmap}');
SELECT ei_diff('tn', 'SELECT id, i8 FROM %I WHERE i8 < -9223372036854775807', false, '{index,bitmap}');

-- cross-type comparisons within the integer family
SELECT ei_diff('tn', 'SELECT i4 FROM %I WHERE i4 < -4000::int8');
SELECT ei_diff('tn', 'SELECT i4 FROM %I WHERE i4 = 17::int2');
SELECT ei_diff('tn', 'SELECT i4 FROM %I WHERE i4 >= 4990::int2');
SELECT ei_diff('tn', 'SELECT count(*) FROM %I WHERE i4 < 3000000000::int8', false, '{indexonly,bitmap}');
SELECT ei_diff('tn', 'SELECT i4 FROM %I WHERE i4 > 3000000000::int8');
SELECT ei_diff('tn', 'SELECT i4 FROM %I WHERE i4 <= -3000000000::int8');
SELECT ei_diff('tn', 'SELECT i4 FROM %I WHERE i4 BETWEEN -10::int2 AND 10::int8 ORDER BY i4', true);
SELECT ei_diff('tn', 'SELECT i2 FROM %I WHERE i2 > 40000');
SELECT ei_diff('tn', 'SELECT count(*) FROM %I WHERE i2 >= -40000::int8', false, '{indexonly,bitmap}');
SELECT ei_diff('tn', 'SELECT i2 FROM %I WHERE i2 = 100::int8');
SELECT ei_diff('tn', 'SELECT i2 FROM %I WHERE i2 < -290::int4 ORDER BY i2 DESC', true);
SELECT ei_diff('tn', 'SELECT i8 FROM %I WHERE i8 BETWEEN -5::int2 AND 5::int4 ORDER BY i8 DESC', true);
SELECT ei_diff('tn', 'SELECT i8 FROM %I WHERE i8 >= 2147483647::int4 ORDER BY i8 LIMIT 20', true);
SELECT ei_diff('tn', 'SELECT i8 FROM %I WHERE i8 = 0::int2');

-- floats: special values and float4 vs float8
SELECT ei_diff('tn', 'SELECT id, f4 FROM %I WHERE f4 = ''NaN''', false, '{index,bitmap}');
SELECT ei_diff('tn', 'SELECT f4 FROM %I WHERE f4 > ''Infinity''');
SELECT ei_diff('tn', 'SELECT f4 FROM %I WHERE f4 >= ''Infinity''');
SELECT ei_diff('tn', 'SELECT f4 FROM %I WHERE f4 <= ''-Infinity''');
SELECT ei_diff('tn', 'SELECT f4 FROM %I WHERE f4 < ''-Infinity''');
SELECT ei_diff('tn', 'SELECT id, f4 FROM %I WHERE f4 = ''-0''', false, '{index,bitmap}');
SELECT ei_diff('tn', 'SELECT id, f4 FROM %I WHERE f4 = 0', false, '{index,bitmap}');
SELECT ei_diff('tn', 'SELECT f4 FROM %I WHERE f4 > 0 AND f4 < 1e-30');
SELECT ei_diff('tn', 'SELECT f4 FROM %I WHERE f4 < 0.5::float8');
SELECT ei_diff('tn', 'SELECT f4 FROM %I WHERE f4 = 17::float8');
SELECT ei_diff('tn', 'SELECT f4 FROM %I WHERE f4 = 0.1::float8');
SELECT ei_diff('tn', 'SELECT f4 FROM %I WHERE f4 > ''Infinity''::float8');
SELECT ei_diff('tn', 'SELECT f4 FROM %I WHERE f4 = ''NaN''::float8');
SELECT ei_diff('tn', 'SELECT (f4 + 0::float4) FROM %I WHERE f4 >= -1::float8 AND f4 <= 1::float8 ORDER BY f4', true);
SELECT ei_diff('tn', 'SELECT id, f8 FROM %I WHERE f8 = ''NaN''', false, '{index,bitmap}');
SELECT ei_diff('tn', 'SELECT f8 FROM %I WHERE f8 > ''Infinity''');
SELECT ei_diff('tn', 'SELECT f8 FROM %I WHERE f8 >= ''Infinity''');
SELECT ei_diff('tn', 'SELECT f8 FROM %I WHERE f8 <= ''-Infinity''');
SELECT ei_diff('tn', 'SELECT id, f8 FROM %I WHERE f8 = ''-0''', false, '{index,bitmap}');
SELECT ei_diff('tn', 'SELECT f8 FROM %I WHERE f8 > 0 AND f8 < 1e-300');
SELECT ei_diff('tn', 'SELECT f8 FROM %I WHERE f8 > 1e307');
SELECT ei_diff('tn', 'SELECT f8 FROM %I WHERE f8 >= 24::float4');
SELECT ei_diff('tn', 'SELECT f8 FROM %I WHERE f8 = 2.5::float4');
SELECT ei_diff('tn', 'SELECT f8 FROM %I WHERE f8 < ''-Infinity''::float4');
SELECT ei_diff('tn', 'SELECT f8 FROM %I WHERE f8 = ''NaN''::float4');

-- numeric: special values and equal values of different scales
SELECT ei_diff('tn', 'SELECT id, n FROM %I WHERE n = ''NaN''', false, '{index,bitmap}');
SELECT ei_diff('tn', 'SELECT n FROM %I WHERE n > ''Infinity''');
SELECT ei_diff('tn', 'SELECT n FROM %I WHERE n >= ''Infinity''');
SELECT ei_diff('tn', 'SELECT n FROM %I WHERE n <= ''-Infinity''');
SELECT ei_diff('tn', 'SELECT id, n FROM %I WHERE n = 1.5', false, '{index,bitmap}');
SELECT ei_diff('tn', 'SELECT n FROM %I WHERE n = 1.500');
SELECT ei_diff('tn', 'SELECT n FROM %I WHERE n > 0 AND n < 1e-21');
SELECT ei_diff('tn', 'SELECT n FROM %I WHERE n > 4e29');
SELECT ei_diff('tn', 'SELECT trim_scale(n) FROM %I WHERE n BETWEEN -1 AND 1 ORDER BY n DESC', true);

-- oids above 2^31 compare unsigned
SELECT ei_diff('tn', 'SELECT o FROM %I WHERE o > ''2147483647''::oid ORDER BY o LIMIT 100', true);
SELECT ei_diff('tn', 'SELECT o FROM %I WHERE o < 10');

-- IN lists (amsearcharray is off: bitmap scans only)
SELECT ei_diff('tn', 'SELECT id, i4 FROM %I WHERE i4 IN (1, 2, 3, -4800, 4800, 100000, NULL)', false, '{bitmap}');
SELECT ei_diff('tn', 'SELECT id, i2 FROM %I WHERE i2 = ANY (''{-300, 0, 300, 32767}''::int2[])', false, '{bitmap}');
SELECT ei_diff('tn', 'SELECT id, i8 FROM %I WHERE i8 IN (0, 1, -1, 9223372036854775807)', false, '{bitmap}');
SELECT ei_diff('tn', 'SELECT id, f8 FROM %I WHERE f8 IN (''NaN'', ''-0'', 2.5, ''-Infinity'')', false, '{bitmap}');
SELECT ei_diff('tn', 'SELECT id, f4 FROM %I WHERE f4 IN (''NaN'', 0, 42)', false, '{bitmap}');
SELECT ei_diff('tn', 'SELECT id, n FROM %I WHERE n IN (1.5, ''NaN'', -99.9, ''Infinity'')', false, '{bitmap}');
SELECT ei_diff('tn', 'SELECT id, o FROM %I WHERE o IN (1, 2, 3, 99)', false, '{bitmap}');

-- a few multi-column quals on one index with a residual filter
SELECT ei_diff('tn', 'SELECT id FROM %I WHERE i4 > 0 AND i4 < 100 AND i2 > 0', false, '{index,bitmap}');
SELECT ei_diff('tn', 'SELECT i4 FROM %I WHERE i4 > 100 AND i4 >= 200 AND i4 < 300 AND i4 <= 250 ORDER BY i4 DESC', true);
SELECT ei_diff('tn', 'SELECT i4 FROM %I WHERE i4 > 100 AND i4 < 50');
SELECT ei_diff('tn', 'SELECT i4 FROM %I WHERE i4 = 100 AND i4 = 101');

SELECT ei_check_all('tn');

-- clean up
SET client_min_messages = warning;
DROP SCHEMA ei_types_numeric CASCADE;
-- the next file creates the extension afresh
DROP EXTENSION elastic_index CASCADE;
RESET client_min_messages;
RESET search_path;
