CREATE EXTENSION IF NOT EXISTS elastic_index;
-- everything this file creates lives in its own schema
SET client_min_messages = warning;
DROP SCHEMA IF EXISTS ei_sam CASCADE;
CREATE SCHEMA ei_sam;
SET search_path = ei_sam, public;
RESET client_min_messages;
\i test/sql/differential_harness.sql
--
-- More "= ANY (array)" index conditions (src/README.md, "Array keys"):
-- cases found by review, each compared with btree and a sequential scan.
--
-- A scan that never ends would hang the suite: fail it instead.
SET statement_timeout = '30s';

CREATE TABLE sam_src AS
SELECT g AS id,
	CASE WHEN g % 31 = 0 THEN NULL ELSE (g * 37) % 400 END AS a,
	CASE WHEN g % 29 = 0 THEN NULL ELSE (g / 400) % 10 END AS b
FROM generate_series(1, 12000) g;
SELECT ei_setup('sam', 'sam_src', 12000);
SELECT ei_index('sam', 'ba', '(b, a)');
SELECT ei_index('sam', 'bdesc', '(b DESC, a NULLS FIRST)');
VACUUM ANALYZE sam_seq, sam_bt, sam_ei;

-- Two equalities on one column that the array's elements cannot be
-- compared with (an int2[] or int8[] array, an int4 "="), or IS NULL and
-- "=": the array keys' next combination took both, lay beyond every tuple,
-- and each new descent landed where the last one had (the scan never
-- ended).  Forward and backward, ASC and DESC columns.
SELECT ei_diff('sam', 'SELECT b, a FROM %I WHERE b = ANY (''{7, -2, 3, 4}''::int2[]) AND b = 6 ORDER BY b, a',
			   true, '{index,indexonly}');
SELECT ei_diff('sam', 'SELECT b, a FROM %I WHERE b = ANY (''{7, -2, 3, 4}''::int2[]) AND b = 6 ORDER BY b DESC, a DESC',
			   true, '{index,indexonly}');
SELECT ei_diff('sam', 'SELECT b, a FROM %I WHERE b = ANY (''{11, 8, -2, 0, 6}''::int8[]) AND b = 8 ORDER BY b DESC, a NULLS FIRST',
			   true, '{index,indexonly}');
SELECT ei_diff('sam', 'SELECT b, a FROM %I WHERE b = ANY (''{11, 8, -2, 0, 6}''::int8[]) AND b = 8 ORDER BY b, a DESC NULLS LAST',
			   true, '{index,indexonly}');
SELECT ei_diff('sam', 'SELECT b, a FROM %I WHERE b = ANY (''{1, 3, 5}'') AND a = 7 AND a = 7::int8',
			   false, '{index,indexonly,bitmap}');
SELECT ei_diff('sam', 'SELECT b, a FROM %I WHERE b = ANY (''{1, 3, 5}'') AND a = 7 AND a = (SELECT 9::int8)',
			   false, '{index,indexonly,bitmap}');
SELECT ei_diff('sam', 'SELECT b, a FROM %I WHERE b = ANY (''{1, 3, 5}'') AND a = 7 AND a IS NULL',
			   false, '{index,indexonly,bitmap}');
SELECT ei_diff('sam', 'SELECT b, a FROM %I WHERE b = ANY (''{1, 3, 5}'') AND a IS NULL AND a = 7',
			   false, '{index,indexonly,bitmap}');
SELECT ei_diff('sam', 'SELECT b, a FROM %I WHERE b = ANY (''{1, 3, NULL, 5}''::int8[]) AND b = ANY (''{3, 5, 9}'') AND b = 5',
			   false, '{index,indexonly,bitmap}');

-- A scroll cursor that turns round after a new descent (a new primitive
-- scan to the next array element): the descent cleared "more rows behind"
-- as a scan's first descent does, so the rows of the earlier elements were
-- lost going back.  Each table's cursor moves the same way; the rows must
-- be the same (only index columns are fetched: ties print the same).
-- (139 rows have b = 1 and a < 50, 142 have b = 8.)
CREATE FUNCTION sam_cursor(tbl text, query text, moves text[]) RETURNS text
LANGUAGE plpgsql AS $fn$
DECLARE
	c			refcursor;
	r			record;
	out			text := '';
	m			text;
BEGIN
	SET LOCAL enable_seqscan = off;
	SET LOCAL enable_bitmapscan = off;
	SET LOCAL enable_sort = off;
	IF tbl LIKE '%\_seq' THEN
		SET LOCAL enable_seqscan = on;
		SET LOCAL enable_sort = on;
	END IF;
	OPEN c SCROLL FOR EXECUTE format(query, tbl);
	FOREACH m IN ARRAY moves LOOP
		EXECUTE format('FETCH %s FROM %I', m, c) INTO r;
		out := out || m || ':' || coalesce(r::text, '-') || ' ';
	END LOOP;
	CLOSE c;
	RETURN out;
END
$fn$;
CREATE FUNCTION sam_cursor_diff(query text, moves text[]) RETURNS text
LANGUAGE plpgsql AS $fn$
DECLARE
	ref			text := sam_cursor('sam_seq', query, moves);
	res			text;
BEGIN
	FOREACH res IN ARRAY ARRAY[sam_cursor('sam_bt', query, moves), sam_cursor('sam_ei', query, moves)] LOOP
		IF res IS DISTINCT FROM ref THEN
			RAISE EXCEPTION 'cursor differs: % moves %', query, moves
				USING DETAIL = format('got %s, reference %s', res, ref);
		END IF;
	END LOOP;
	RETURN 'ok: ' || ref;
END
$fn$;
SELECT sam_cursor_diff('SELECT b, a FROM %I WHERE b = ANY (''{1, 8}'') AND a < 50 ORDER BY b, a',
					   '{RELATIVE 139,NEXT,NEXT,PRIOR,PRIOR,PRIOR,RELATIVE -30,NEXT,RELATIVE 10,LAST,RELATIVE -200}');
SELECT sam_cursor_diff('SELECT b, a FROM %I WHERE b = ANY (''{1, 8}'') AND a < 50 ORDER BY b DESC, a DESC',
					   '{RELATIVE 142,NEXT,NEXT,PRIOR,PRIOR,PRIOR,RELATIVE -30,NEXT,RELATIVE 10,LAST,RELATIVE -200}');
SELECT sam_cursor_diff('SELECT b, a FROM %I WHERE b = ANY (''{1, 8}'') AND a < 50 ORDER BY b DESC, a NULLS FIRST',
					   '{RELATIVE 142,NEXT,NEXT,PRIOR,PRIOR,PRIOR,RELATIVE -30,NEXT,RELATIVE 10,LAST,RELATIVE -200}');
SELECT sam_cursor_diff('SELECT b, a FROM %I WHERE b = ANY (''{8, 1, 5}'') AND a = ANY (''{3, 10, 24, 45, 380}'') ORDER BY b DESC, a DESC',
					   '{NEXT,NEXT,NEXT,NEXT,NEXT,NEXT,PRIOR,PRIOR,PRIOR,PRIOR,PRIOR,LAST,PRIOR,PRIOR,FIRST,NEXT}');

RESET statement_timeout;
SET client_min_messages = warning;
DROP SCHEMA ei_sam CASCADE;
-- the next file creates the extension afresh
DROP EXTENSION elastic_index CASCADE;
RESET client_min_messages;
