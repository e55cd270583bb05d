--
-- Differential test harness, included by every sql/differential_*.sql file
-- (\i runs relative to the directory pg_regress is started from, the
-- repository root).  It does not echo itself into the test output.
--
-- Each data set BASE lives in three tables with identical rows:
--   BASE_seq   no index; read with a sequential scan (the reference)
--   BASE_bt    PostgreSQL's btree indexes
--   BASE_ei    the same indexes with USING elastic_btree, or with the
--              access method the setting ei_test.am names (osm_tree)
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
\set ECHO none
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

-- The access method under test: ei_test.am if set, else elastic_btree.
CREATE OR REPLACE FUNCTION ei_am() RETURNS text
LANGUAGE sql AS $fn$
	SELECT coalesce(nullif(current_setting('ei_test.am', true), ''), 'elastic_btree')
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
				  AND am.amname = ei_am())
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
					RAISE EXCEPTION 'mode %: plan does not use an % index as expected: %',
						mode, ei_am(), format(query, tbl)
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
			-- btree, the reference, answers a parallel query serially: its
			-- own parallel scans are not under test, and the 17 branch
			-- point's can hang with array keys (a worker waiting for the
			-- scan another holds while that one waits for the leader to
			-- take its tuples; seen once in the version matrix)
			IF mode = 'parallel' AND tbl = base || '_bt' THEN
				PERFORM set_config('max_parallel_workers_per_gather', '0', true);
			END IF;
			EXECUTE q INTO res;
			IF mode = 'parallel' AND tbl = base || '_bt' THEN
				PERFORM set_config('max_parallel_workers_per_gather', '2', true);
			END IF;
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
	EXECUTE format('CREATE INDEX %I ON %I USING %s %s', base || '_ei_' || name, base || '_ei', ei_am(), def);
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
		  AND am.amname = ei_am()
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

-- a random string of 0 to MAXLEN characters, ASCII and not
CREATE OR REPLACE FUNCTION ei_rand_text(maxlen int) RETURNS text
LANGUAGE sql VOLATILE AS $fn$
	SELECT coalesce(string_agg(substr(chars, 1 + floor(random() * length(chars))::int, 1), ''), '')
	FROM (SELECT 'abcdefxyzABCXYZ0129 -_.,~éèüößñÅÆØœ日本語€😀' AS chars) AS c,
		 generate_series(1, floor(random() * (maxlen + 1))::int)
$fn$;

RESET client_min_messages;
\set ECHO all
