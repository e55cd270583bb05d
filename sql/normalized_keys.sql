-- Normalized keys (operator class support function 3): ordering entries by
-- the bytes elastic_index_normalized_key() returns must be ordering them
-- exactly as the index does, for every type that has an encoding, in both
-- directions, with NULLs first or last, and across several columns.
-- Compact leaves rely on nothing else.  Types, collations and expression
-- columns without an encoding get a NOTICE at CREATE INDEX.
CREATE EXTENSION IF NOT EXISTS elastic_index;
SET client_min_messages = notice;

-- Does ordering the rows of tbl by (order_by, ctid) give the same sequence
-- as ordering them by the normalized key of (cols..., ctid) in index idx?
-- Also returns how many distinct values took part, so that a test cannot
-- pass on trivial data.
CREATE FUNCTION nk_agrees(idx regclass, tbl regclass, cols text, order_by text,
						  OUT agrees bool, OUT nrows int8)
LANGUAGE plpgsql AS $$
BEGIN
	EXECUTE format(
		'SELECT array_agg(ctid ORDER BY %s, ctid) = '
		'       array_agg(ctid ORDER BY elastic_index_normalized_key(%L, ctid, %s)), '
		'       count(*) FROM %s',
		order_by, idx, cols, tbl)
	INTO agrees, nrows;
END $$;

-- one column of each type, with edge values, duplicates and NULLs
CREATE TABLE nk_int (i2 int2, i4 int4, i8 int8);
INSERT INTO nk_int VALUES
	(-32768, -2147483648, -9223372036854775808),
	(32767, 2147483647, 9223372036854775807),
	(-1, -1, -1), (0, 0, 0), (1, 1, 1), (NULL, NULL, NULL), (0, 0, 0);
INSERT INTO nk_int
	SELECT (g * 7919 % 65536 - 32768)::int2, g * 104729 - 1000000000,
		   (g::int8 * 1000000007) * (CASE WHEN g % 2 = 0 THEN -1 ELSE 1 END)
	FROM generate_series(1, 2000) AS g;
CREATE INDEX nk_i2 ON nk_int USING elastic_btree (i2);
CREATE INDEX nk_i4d ON nk_int USING elastic_btree (i4 DESC);
CREATE INDEX nk_i8nf ON nk_int USING elastic_btree (i8 NULLS FIRST);
SELECT * FROM nk_agrees('nk_i2', 'nk_int', 'i2', 'i2');
SELECT * FROM nk_agrees('nk_i4d', 'nk_int', 'i4', 'i4 DESC');
SELECT * FROM nk_agrees('nk_i8nf', 'nk_int', 'i8', 'i8 NULLS FIRST');

CREATE TABLE nk_float (f4 float4, f8 float8);
INSERT INTO nk_float VALUES
	('-Infinity', '-Infinity'), ('Infinity', 'Infinity'), ('NaN', 'NaN'),
	('-0', '-0'), ('0', '0'), ('NaN', 'NaN'), ('-1e-45', '-5e-324'),
	('1e-45', '5e-324'), ('3.4e38', '1.7e308'), ('-3.4e38', '-1.7e308'),
	(NULL, NULL);
INSERT INTO nk_float
	SELECT sin(g) * 10 ^ (g % 20 - 10), cos(g) * 10 ^ (g % 40 - 20)
	FROM generate_series(1, 2000) AS g;
CREATE INDEX nk_f4 ON nk_float USING elastic_btree (f4);
CREATE INDEX nk_f8d ON nk_float USING elastic_btree (f8 DESC NULLS LAST);
SELECT * FROM nk_agrees('nk_f4', 'nk_float', 'f4', 'f4');
SELECT * FROM nk_agrees('nk_f8d', 'nk_float', 'f8', 'f8 DESC NULLS LAST');
-- -0 and 0, and all NaNs, are one key each (apart from the TID)
SELECT count(DISTINCT elastic_index_normalized_key('nk_f8d', NULL, f8))
	FROM nk_float WHERE f8 = 0 OR f8 = 'NaN';

CREATE TABLE nk_time (d date, ts timestamp, tz timestamptz);
INSERT INTO nk_time VALUES
	('-infinity', '-infinity', '-infinity'), ('infinity', 'infinity', 'infinity'),
	('4713-01-01 BC', '4713-01-01 00:00 BC', '4713-01-01 00:00 BC'),
	('5874897-12-31', '294276-12-31 23:59:59', '294276-12-31 23:59:59+00'),
	('2000-01-01', '2000-01-01', '2000-01-01 00:00+00'), (NULL, NULL, NULL);
INSERT INTO nk_time
	SELECT date '1970-01-01' + g * 37 - 40000,
		   timestamp '1970-01-01' + (g::float8 * 1234567) * interval '1 second' - interval '300 years',
		   timestamptz '1970-01-01 00:00+00' + (g::float8 * 7654321) * interval '1 millisecond'
	FROM generate_series(1, 2000) AS g;
CREATE INDEX nk_d ON nk_time USING elastic_btree (d);
CREATE INDEX nk_ts ON nk_time USING elastic_btree (ts DESC);
CREATE INDEX nk_tz ON nk_time USING elastic_btree (tz NULLS FIRST);
SELECT * FROM nk_agrees('nk_d', 'nk_time', 'd', 'd');
SELECT * FROM nk_agrees('nk_ts', 'nk_time', 'ts', 'ts DESC');
SELECT * FROM nk_agrees('nk_tz', 'nk_time', 'tz', 'tz NULLS FIRST');

CREATE TABLE nk_misc (u uuid, b bool, o oid, by bytea);
INSERT INTO nk_misc VALUES
	('00000000-0000-0000-0000-000000000000', false, 0, '\x'),
	('ffffffff-ffff-ffff-ffff-ffffffffffff', true, 4294967295, '\x00'),
	(NULL, NULL, NULL, NULL), (NULL, true, 1, '\x0000'), (NULL, false, 2, '\x0001'),
	(NULL, NULL, 3, '\x00ff'), (NULL, NULL, 4, '\xff'), (NULL, NULL, 5, '\xff00');
INSERT INTO nk_misc
	SELECT md5(g::text)::uuid, g % 3 = 0, (g * 2654435761::int8 % 4294967296)::oid,
		   decode(substr(md5(g::text), 1, g % 9 * 2), 'hex')
	FROM generate_series(1, 2000) AS g;
CREATE INDEX nk_u ON nk_misc USING elastic_btree (u);
CREATE INDEX nk_b ON nk_misc USING elastic_btree (b DESC NULLS FIRST);
CREATE INDEX nk_o ON nk_misc USING elastic_btree (o);
CREATE INDEX nk_by ON nk_misc USING elastic_btree (by);
CREATE INDEX nk_byd ON nk_misc USING elastic_btree (by DESC);
SELECT * FROM nk_agrees('nk_u', 'nk_misc', 'u', 'u');
SELECT * FROM nk_agrees('nk_b', 'nk_misc', 'b', 'b DESC NULLS FIRST');
SELECT * FROM nk_agrees('nk_o', 'nk_misc', 'o', 'o');
SELECT * FROM nk_agrees('nk_by', 'nk_misc', 'by', 'by');
SELECT * FROM nk_agrees('nk_byd', 'nk_misc', 'by', 'by DESC');

-- text under C and under a deterministic ICU collation (sort key, then the
-- bytes as tie-break); varchar goes through text_ops
CREATE TABLE nk_text (t text, v varchar(20));
INSERT INTO nk_text VALUES
	('', ''), ('a', 'a'), ('A', 'A'), ('ab', 'ab'), ('abc', 'abc'),
	('b', 'b'), ('B', 'B'), ('é', 'é'), ('e', 'e'), ('E', 'E'), ('ä', 'ä'),
	('z', 'z'), ('Ω', 'Ω'), ('日本', '日本'), (' a', ' a'), ('a ', 'a '),
	('co-op', 'co-op'), ('coop', 'coop'), ('e' || chr(769), 'e' || chr(769)),
	(NULL, NULL);
INSERT INTO nk_text
	SELECT substr(md5(g::text), 1, g % 13) || chr(65 + g % 58),
		   upper(substr(md5(g::text), 3, g % 7))
	FROM generate_series(1, 2000) AS g;
CREATE INDEX nk_tc ON nk_text USING elastic_btree (t COLLATE "C");
CREATE INDEX nk_tcd ON nk_text USING elastic_btree (t COLLATE "C" DESC);
CREATE INDEX nk_ti ON nk_text USING elastic_btree (t COLLATE "und-x-icu");
CREATE INDEX nk_tid ON nk_text USING elastic_btree (t COLLATE "und-x-icu" DESC NULLS LAST);
CREATE INDEX nk_vc ON nk_text USING elastic_btree (v COLLATE "POSIX");
SELECT * FROM nk_agrees('nk_tc', 'nk_text', 't', 't COLLATE "C"');
SELECT * FROM nk_agrees('nk_tcd', 'nk_text', 't', 't COLLATE "C" DESC');
SELECT * FROM nk_agrees('nk_ti', 'nk_text', 't', 't COLLATE "und-x-icu"');
SELECT * FROM nk_agrees('nk_tid', 'nk_text', 't', 't COLLATE "und-x-icu" DESC NULLS LAST');
SELECT * FROM nk_agrees('nk_vc', 'nk_text', 'v', 'v COLLATE "POSIX"');
-- the ICU order really differs from C's on these rows (else the test above
-- would not tell the two apart)
SELECT array_agg(t ORDER BY t COLLATE "C") <> array_agg(t ORDER BY t COLLATE "und-x-icu")
	AS icu_differs_from_c FROM nk_text;

-- several columns, mixed directions and NULL placement
CREATE TABLE nk_multi (a int4, b text, c float8);
INSERT INTO nk_multi
	SELECT CASE WHEN g % 11 = 0 THEN NULL ELSE g % 7 END,
		   CASE WHEN g % 13 = 0 THEN NULL ELSE chr(97 + g % 5) || (g % 3) END,
		   CASE WHEN g % 17 = 0 THEN NULL WHEN g % 19 = 0 THEN 'NaN' ELSE (g % 4) - 1.5 END
	FROM generate_series(1, 3000) AS g;
CREATE INDEX nk_m ON nk_multi USING elastic_btree
	(a DESC NULLS LAST, b COLLATE "C" NULLS FIRST, c);
SELECT * FROM nk_agrees('nk_m', 'nk_multi', 'a, b, c',
	'a DESC NULLS LAST, b COLLATE "C" NULLS FIRST, c');
-- a search key (no TID) sorts before every entry it is a prefix of
SELECT elastic_index_normalized_key('nk_m', NULL, 3, 'b1'::text, 0.5::float8)
	< elastic_index_normalized_key('nk_m', '(0,1)', 3, 'b1'::text, 0.5::float8)
	AS search_key_first;

-- no encoding: the index is built, with a NOTICE, and keeps standard leaves
CREATE TABLE nk_none (n numeric, iv interval, t text);
INSERT INTO nk_none VALUES (1.5, '1 day', 'x');
CREATE INDEX nk_num ON nk_none USING elastic_btree (n);
CREATE INDEX nk_iv ON nk_none USING elastic_btree (iv);
CREATE INDEX nk_expr ON nk_none USING elastic_btree (lower(t));
CREATE COLLATION nk_ci (provider = icu, locale = 'und-u-ks-level2',
						deterministic = false);
CREATE INDEX nk_nondet ON nk_none USING elastic_btree (t COLLATE nk_ci);
SELECT elastic_index_normalized_key('nk_num', NULL, 1.5::numeric);

-- errors
SELECT elastic_index_normalized_key('nk_i2', NULL, 1::int2, 2::int2);
SELECT elastic_index_normalized_key('nk_i2', NULL, 'x'::text);
SELECT elastic_index_normalized_key('nk_int', NULL, 1);

-- the validator accepts the operator classes with support function 3
SELECT amvalidate(opc.oid) AS valid, count(*)
	FROM pg_opclass opc JOIN pg_am am ON am.oid = opc.opcmethod
	WHERE am.amname = 'elastic_btree' GROUP BY 1;

DROP TABLE nk_int, nk_float, nk_time, nk_misc, nk_text, nk_multi, nk_none;
DROP COLLATION nk_ci;
DROP FUNCTION nk_agrees(regclass, regclass, text, text);
-- the next file creates the extension afresh
DROP EXTENSION elastic_index CASCADE;
