CREATE EXTENSION IF NOT EXISTS elastic_index;
-- everything this file creates lives in its own schema
SET client_min_messages = warning;
DROP SCHEMA IF EXISTS ei_types_datetime CASCADE;
CREATE SCHEMA ei_types_datetime;
SET search_path = ei_types_datetime, public;
RESET client_min_messages;
\i test/sql/differential_harness.sql
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
