CREATE EXTENSION IF NOT EXISTS elastic_index;
-- everything this file creates lives in its own schema
SET client_min_messages = warning;
DROP SCHEMA IF EXISTS ei_multicolumn CASCADE;
CREATE SCHEMA ei_multicolumn;
SET search_path = ei_multicolumn, public;
RESET client_min_messages;
\i test/sql/differential_harness.sql
--
-- Multi-column indexes (quals on a prefix, on a later column only, on
-- every column), DESC and NULLS FIRST columns, partial and expression
-- indexes.
--
SELECT setseed(0.4);

-- (a int4, b text): prefix and second-column quals
CREATE TABLE mc1_src AS
WITH r AS MATERIALIZED (
	SELECT g AS id, random() AS r0, random() AS r1, random() AS r2,
		   random() AS r3, random() AS r4, random() AS r5
	FROM generate_series(1, 16000) AS g)
SELECT id,
	CASE WHEN r0 < 0.03 THEN NULL ELSE floor(r1 * 200)::int4 END AS a,
	CASE WHEN r2 < 0.05 THEN NULL
		 ELSE (ARRAY['apple', 'Banana', 'cherry', 'dätte', 'elder', 'fig', 'grape', ''])[1 + floor(r3 * 8)::int]
			  || CASE WHEN r4 < 0.5 THEN '' ELSE floor(r5 * 20)::text END END AS b,
	r5 AS c
FROM r;
SELECT ei_setup('mc1', 'mc1_src', 8000);
SELECT ei_index('mc1', 'ab', '(a, b)');
SELECT ei_exec('mc1', 'INSERT INTO %I SELECT * FROM mc1_src WHERE id > 8000 ORDER BY id');
VACUUM ANALYZE mc1_seq, mc1_bt, mc1_ei;
SELECT ei_check_all('mc1');

-- a prefix of the key
SELECT ei_diff('mc1', 'SELECT id, a, b FROM %I WHERE a = 17', false, '{index,bitmap}');
SELECT ei_diff('mc1', 'SELECT a, b FROM %I WHERE a = 17 ORDER BY a, b', true);
SELECT ei_diff('mc1', 'SELECT a, b FROM %I WHERE a < 5 ORDER BY a, b', true);
SELECT ei_diff('mc1', 'SELECT a, b FROM %I WHERE a BETWEEN 10 AND 12 ORDER BY a DESC, b DESC', true);
SELECT ei_diff('mc1', 'SELECT a, b FROM %I WHERE a > 190 ORDER BY a, b LIMIT 25', true);
SELECT ei_diff('mc1', 'SELECT a, b FROM %I WHERE a IS NULL ORDER BY a, b', true);
SELECT ei_diff('mc1', 'SELECT min(a), max(a) FROM %I', true, '{index,indexonly}');
-- every column
SELECT ei_diff('mc1', 'SELECT a, b FROM %I WHERE a = 17 AND b > ''d'' ORDER BY a, b', true);
SELECT ei_diff('mc1', 'SELECT id FROM %I WHERE a = 17 AND b = ''fig''', false, '{index,bitmap}');
SELECT ei_diff('mc1', 'SELECT a, b FROM %I WHERE a >= 190 AND b < ''c'' ORDER BY a DESC, b DESC', true);
SELECT ei_diff('mc1', 'SELECT a, b FROM %I WHERE a > 100 AND a < 103 AND b >= ''cherry'' AND b <= ''elder''');
SELECT ei_diff('mc1', 'SELECT id FROM %I WHERE a = 17 AND b IS NULL', false, '{index,bitmap}');
SELECT ei_diff('mc1', 'SELECT a, b FROM %I WHERE a IS NULL AND b IS NOT NULL');
SELECT ei_diff('mc1', 'SELECT a, b FROM %I WHERE a IS NOT NULL AND b = '''' ORDER BY a DESC, b DESC', true);
SELECT ei_diff('mc1', 'SELECT a, b FROM %I WHERE a = 17 AND b > ''z''');
-- the second column only
SELECT ei_diff('mc1', 'SELECT a, b FROM %I WHERE b = ''fig7''');
SELECT ei_diff('mc1', 'SELECT a, b FROM %I WHERE b < ''Banana1'' ORDER BY a, b', true);
SELECT ei_diff('mc1', 'SELECT a, b FROM %I WHERE b IS NULL ORDER BY a DESC, b DESC', true);
-- full scans in both directions
SELECT ei_diff('mc1', 'SELECT a, b FROM %I ORDER BY a, b', true, '{index,indexonly}');
SELECT ei_diff('mc1', 'SELECT a, b FROM %I ORDER BY a DESC, b DESC', true, '{index,indexonly}');
-- IN lists
SELECT ei_diff('mc1', 'SELECT id, a, b FROM %I WHERE a IN (1, 2, 3) AND b = ''apple''', false, '{bitmap}');
SELECT ei_diff('mc1', 'SELECT id, a, b FROM %I WHERE a = 5 AND b IN (''apple'', ''fig3'', '''')', false, '{bitmap}');

-- (x float8 DESC NULLS LAST, y int8 NULLS FIRST)
CREATE TABLE mc2_src AS
WITH r AS MATERIALIZED (
	SELECT g AS id, random() AS r0, random() AS r1, random() AS r2,
		   random() AS r3
	FROM generate_series(1, 16000) AS g)
SELECT id,
	CASE WHEN r0 < 0.05 THEN NULL
		 WHEN r0 < 0.07 THEN 'NaN'
		 WHEN r0 < 0.09 THEN '-0'
		 ELSE round(r1 * 100) / 100 END::float8 AS x,
	CASE WHEN r2 < 0.08 THEN NULL ELSE floor(r3 * 50)::int8 END AS y
FROM r;
SELECT ei_setup('mc2', 'mc2_src', 8000);
SELECT ei_index('mc2', 'xy', '(x DESC NULLS LAST, y NULLS FIRST)');
SELECT ei_exec('mc2', 'INSERT INTO %I SELECT * FROM mc2_src WHERE id > 8000 ORDER BY id');
VACUUM ANALYZE mc2_seq, mc2_bt, mc2_ei;
SELECT ei_check_all('mc2');

SELECT ei_diff('mc2', 'SELECT x + 0, y FROM %I ORDER BY x DESC NULLS LAST, y NULLS FIRST', true, '{index,indexonly}');
SELECT ei_diff('mc2', 'SELECT x + 0, y FROM %I ORDER BY x NULLS FIRST, y DESC NULLS LAST', true, '{index,indexonly}');
SELECT ei_diff('mc2', 'SELECT x + 0, y FROM %I ORDER BY x DESC NULLS LAST, y NULLS FIRST LIMIT 100', true, '{index,indexonly}');
SELECT ei_diff('mc2', 'SELECT x + 0, y FROM %I ORDER BY x NULLS FIRST, y DESC NULLS LAST LIMIT 1000', true, '{index,indexonly}');
SELECT ei_diff('mc2', 'SELECT x + 0, y FROM %I WHERE x < 0.5 ORDER BY x DESC NULLS LAST, y NULLS FIRST', true);
SELECT ei_diff('mc2', 'SELECT x + 0, y FROM %I WHERE x <= 0.5 ORDER BY x NULLS FIRST, y DESC NULLS LAST', true);
SELECT ei_diff('mc2', 'SELECT x, y FROM %I WHERE x > 0.2 AND x <= 0.7');
SELECT ei_diff('mc2', 'SELECT x, y FROM %I WHERE x >= 0.99');
SELECT ei_diff('mc2', 'SELECT x, y FROM %I WHERE x = ''NaN''');
SELECT ei_diff('mc2', 'SELECT x, y FROM %I WHERE x = 0');
SELECT ei_diff('mc2', 'SELECT id FROM %I WHERE x IS NULL', false, '{index,bitmap}');
SELECT ei_diff('mc2', 'SELECT y FROM %I WHERE x IS NULL ORDER BY x DESC NULLS LAST, y NULLS FIRST', true);
SELECT ei_diff('mc2', 'SELECT x, y FROM %I WHERE x IS NULL AND y IS NULL');
SELECT ei_diff('mc2', 'SELECT x, y FROM %I WHERE x = 0.25 AND y > 5 ORDER BY x DESC NULLS LAST, y NULLS FIRST', true);
SELECT ei_diff('mc2', 'SELECT x, y FROM %I WHERE x = 0.25 AND y IS NULL');
SELECT ei_diff('mc2', 'SELECT x, y FROM %I WHERE x > 0.9 AND y <= 3 ORDER BY x NULLS FIRST, y DESC NULLS LAST', true);
SELECT ei_diff('mc2', 'SELECT x, y FROM %I WHERE y IS NULL');
SELECT ei_diff('mc2', 'SELECT x, y FROM %I WHERE y = 7');
SELECT ei_diff('mc2', 'SELECT x + 0, y FROM %I WHERE x IS NOT NULL ORDER BY x DESC NULLS LAST, y NULLS FIRST LIMIT 10', true);
SELECT ei_diff('mc2', 'SELECT min(x) + 0, max(x) + 0 FROM %I', true, '{index,indexonly}');

-- single columns with NULLS FIRST and DESC: the battery in every direction
CREATE TABLE mc3_src AS
WITH r AS MATERIALIZED (
	SELECT g AS id, random() AS r0, random() AS r1, random() AS r2,
		   random() AS r3
	FROM generate_series(1, 12000) AS g)
SELECT id,
	CASE WHEN r0 < 0.05 THEN NULL ELSE floor(r1 * 3000)::int4 END AS k1,
	CASE WHEN r2 < 0.05 THEN NULL ELSE floor(r3 * 3000)::int4 END AS k2
FROM r;
SELECT ei_setup('mc3', 'mc3_src', 6000);
SELECT ei_index('mc3', 'k1', '(k1 NULLS FIRST)');
SELECT ei_index('mc3', 'k2', '(k2 DESC)');
SELECT ei_exec('mc3', 'INSERT INTO %I SELECT * FROM mc3_src WHERE id > 6000 ORDER BY id');
VACUUM ANALYZE mc3_seq, mc3_bt, mc3_ei;
SELECT ei_check_all('mc3');
SELECT * FROM ei_diff_col('mc3', 'k1', '300', '2700', '%s', true, '%s NULLS FIRST', '%s DESC NULLS LAST');
SELECT ei_diff('mc3', 'SELECT k1 FROM %I ORDER BY k1 NULLS FIRST LIMIT 700', true, '{index,indexonly}');
SELECT ei_diff('mc3', 'SELECT k1 FROM %I WHERE k1 < 100 ORDER BY k1 NULLS FIRST', true);
SELECT * FROM ei_diff_col('mc3', 'k2', '300', '2700', '%s', true, '%s DESC', '%s');
SELECT ei_diff('mc3', 'SELECT k2 FROM %I ORDER BY k2 DESC LIMIT 700', true, '{index,indexonly}');
SELECT ei_diff('mc3', 'SELECT k2 FROM %I WHERE k2 > 2900 ORDER BY k2', true);

-- (d date, t text DESC, i int2 NULLS FIRST)
CREATE TABLE mc4_src AS
WITH r AS MATERIALIZED (
	SELECT g AS id, random() AS r0, random() AS r1, random() AS r2,
		   random() AS r3, random() AS r4, random() AS r5, random() AS r6
	FROM generate_series(1, 16000) AS g)
SELECT id,
	CASE WHEN r0 < 0.03 THEN NULL ELSE date '2020-01-01' + floor(r1 * 30)::int END AS d,
	CASE WHEN r2 < 0.03 THEN NULL ELSE chr(ascii('a') + floor(r3 * 10)::int) || chr(ascii('é') + floor(r4 * 3)::int) END AS t,
	CASE WHEN r5 < 0.10 THEN NULL ELSE floor(r6 * 20)::int2 END AS i
FROM r;
SELECT ei_setup('mc4', 'mc4_src', 8000);
SELECT ei_index('mc4', 'dti', '(d, t DESC, i NULLS FIRST)');
SELECT ei_exec('mc4', 'INSERT INTO %I SELECT * FROM mc4_src WHERE id > 8000 ORDER BY id');
VACUUM ANALYZE mc4_seq, mc4_bt, mc4_ei;
SELECT ei_check_all('mc4');

SELECT ei_diff('mc4', 'SELECT d, t, i FROM %I ORDER BY d, t DESC, i NULLS FIRST', true, '{index,indexonly}');
SELECT ei_diff('mc4', 'SELECT d, t, i FROM %I ORDER BY d DESC NULLS FIRST, t NULLS LAST, i DESC NULLS LAST', true, '{index,indexonly}');
SELECT ei_diff('mc4', 'SELECT d, t, i FROM %I WHERE d = ''2020-01-05'' ORDER BY d, t DESC, i NULLS FIRST', true);
SELECT ei_diff('mc4', 'SELECT d, t, i FROM %I WHERE d = ''2020-01-05'' AND t = ''cé'' ORDER BY d, t DESC, i NULLS FIRST', true);
SELECT ei_diff('mc4', 'SELECT d, t, i FROM %I WHERE d = ''2020-01-05'' AND t = ''cé'' AND i > 10');
SELECT ei_diff('mc4', 'SELECT d, t, i FROM %I WHERE d = ''2020-01-05'' AND t = ''cé'' AND i IS NULL');
SELECT ei_diff('mc4', 'SELECT d, t, i FROM %I WHERE d BETWEEN ''2020-01-10'' AND ''2020-01-12'' AND t > ''h'' ORDER BY d DESC NULLS FIRST, t NULLS LAST, i DESC NULLS LAST', true);
SELECT ei_diff('mc4', 'SELECT d, t, i FROM %I WHERE d > ''2020-01-25'' AND t < ''c'' AND i <= 3');
SELECT ei_diff('mc4', 'SELECT d, t, i FROM %I WHERE t = ''bê''');
SELECT ei_diff('mc4', 'SELECT d, t, i FROM %I WHERE i IS NULL');
SELECT ei_diff('mc4', 'SELECT d, t, i FROM %I WHERE t IS NULL AND i = 5');
SELECT ei_diff('mc4', 'SELECT d, t, i FROM %I WHERE d IS NULL ORDER BY d, t DESC, i NULLS FIRST', true);
SELECT ei_diff('mc4', 'SELECT d, t, i FROM %I WHERE d < ''2020-01-03''::timestamp AND t >= ''j'' ORDER BY d, t DESC, i NULLS FIRST', true);

-- partial and expression indexes
CREATE TABLE mp_src AS
WITH r AS MATERIALIZED (
	SELECT g AS id, random() AS r0, random() AS r1, random() AS r2,
		   random() AS r3, random() AS r4
	FROM generate_series(1, 16000) AS g)
SELECT id,
	CASE WHEN r0 < 0.03 THEN NULL ELSE floor(r1 * 10000)::int4 END AS n,
	(ARRAY['Alpha', 'ALPHA', 'alpha', 'Beta', 'BETA', 'gamma', 'Ärger', 'ärger'])[1 + floor(r2 * 8)::int]
		|| floor(r3 * 10)::text AS t,
	r4 < 0.3 AS flag
FROM r;
SELECT ei_setup('mp', 'mp_src', 8000);
SELECT ei_index('mp', 'n_partial', '(n) WHERE n > 9000');
SELECT ei_index('mp', 'lower_flag', '(lower(t)) WHERE flag');
SELECT ei_index('mp', 'mod_n', '((n % 10), n)');
SELECT ei_exec('mp', 'INSERT INTO %I SELECT * FROM mp_src WHERE id > 8000 ORDER BY id');
VACUUM ANALYZE mp_seq, mp_bt, mp_ei;
SELECT ei_check_all('mp');

SELECT ei_diff('mp', 'SELECT n FROM %I WHERE n > 9500 ORDER BY n', true);
SELECT ei_diff('mp', 'SELECT id, n FROM %I WHERE n >= 9001 AND n < 9050', false, '{index,bitmap}');
SELECT ei_diff('mp', 'SELECT n FROM %I WHERE n > 9000 ORDER BY n DESC LIMIT 20', true);
SELECT ei_diff('mp', 'SELECT count(*) FROM %I WHERE n > 9000', false, '{indexonly,bitmap}');
SELECT ei_diff('mp', 'SELECT id, t FROM %I WHERE lower(t) = ''alpha3'' AND flag', false, '{index,bitmap}');
SELECT ei_diff('mp', 'SELECT lower(t) FROM %I WHERE flag AND lower(t) > ''beta'' ORDER BY lower(t)', true, '{index,bitmap}');
SELECT ei_diff('mp', 'SELECT lower(t) FROM %I WHERE flag AND lower(t) < ''b'' ORDER BY lower(t) DESC', true, '{index,bitmap}');
SELECT ei_diff('mp', 'SELECT n FROM %I WHERE n %% 10 = 3 AND n < 500 ORDER BY n %% 10, n', true, '{index,bitmap}');
SELECT ei_diff('mp', 'SELECT n FROM %I WHERE n %% 10 = 7 ORDER BY n %% 10 DESC, n DESC', true, '{index,bitmap}');
SELECT ei_diff('mp', 'SELECT id, n FROM %I WHERE n %% 10 IS NULL', false, '{index,bitmap}');

-- clean up
SET client_min_messages = warning;
DROP SCHEMA ei_multicolumn CASCADE;
-- the next file creates the extension afresh
DROP EXTENSION elastic_index CASCADE;
RESET client_min_messages;
RESET search_path;
