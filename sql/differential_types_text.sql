CREATE EXTENSION IF NOT EXISTS elastic_index;
-- everything this file creates lives in its own schema
SET client_min_messages = warning;
DROP SCHEMA IF EXISTS ei_types_text CASCADE;
CREATE SCHEMA ei_types_text;
SET search_path = ei_types_text, public;
RESET client_min_messages;
\i test/sql/differential_harness.sql
--
-- text (default collation, "C", "POSIX" and ICU when available), varchar,
-- bytea and uuid keys: random data with duplicates, NULLs, empty values,
-- non-ASCII characters and long (over 2 kB, compressible) values, half
-- loaded before CREATE INDEX and half inserted after it.
--

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
