CREATE EXTENSION IF NOT EXISTS elastic_index;
-- everything this file creates lives in its own schema
SET client_min_messages = warning;
DROP SCHEMA IF EXISTS ei_opclasses_more CASCADE;
CREATE SCHEMA ei_opclasses_more;
SET search_path = ei_opclasses_more, public;
RESET client_min_messages;
\i test/sql/differential_harness.sql
--
-- The operator classes of extension version 0.3.0, for both access methods:
-- bpchar, name, time, timetz, inet and cidr, macaddr, macaddr8, enums,
-- "char", money, pg_lsn, bit, varbit, and the pattern classes of text,
-- varchar and bpchar.  Each column holds about 2,000 values with
-- duplicates and NULLs; queries through the index must return what a
-- sequential scan and btree return (differential_harness.sql).
--

-- every new class exists for both access methods and passes amvalidate
SELECT a.amname, c.opcname, c.opcintype::regtype, c.opcdefault, f.opfname,
	   amvalidate(c.oid)
FROM pg_opclass c JOIN pg_am a ON a.oid = c.opcmethod
JOIN pg_opfamily f ON f.oid = c.opcfamily
WHERE a.amname IN ('elastic_btree', 'osm_tree')
  AND c.opcname IN ('bpchar_ops', 'name_ops', 'time_ops', 'timetz_ops', 'inet_ops',
					'cidr_ops', 'macaddr_ops', 'macaddr8_ops', 'enum_ops', 'char_ops',
					'money_ops', 'pg_lsn_ops', 'bit_ops', 'varbit_ops',
					'text_pattern_ops', 'varchar_pattern_ops', 'bpchar_pattern_ops')
ORDER BY a.amname, c.opcname;

CREATE TYPE mood AS ENUM ('sad', 'ok', 'happy');
ALTER TYPE mood ADD VALUE 'meh' BEFORE 'ok';	-- an odd-numbered enum value

SELECT setseed(0.3);
CREATE TABLE om_src AS
WITH r AS MATERIALIZED (
	SELECT g AS id, random() AS r0, floor(random() * 300)::int AS k,
		   random() AS r1
	FROM generate_series(1, 2000) AS g)
SELECT id,
	CASE WHEN r0 < 0.05 THEN NULL ELSE 'k' || k END::char(6) AS bp,
	CASE WHEN r0 < 0.05 THEN NULL ELSE 'n' || k END::name COLLATE "C" AS nm,
	CASE WHEN r0 < 0.05 THEN NULL ELSE time '00:00' + k * interval '287 seconds' END AS tm,
	CASE WHEN r0 < 0.05 THEN NULL
		 ELSE (time '00:00' + k * interval '287 seconds')::text
			  || (ARRAY['+00', '+02', '-05:30'])[1 + k % 3] END::timetz AS ttz,
	CASE WHEN r0 < 0.05 THEN NULL
		 WHEN k % 4 = 0 THEN ('2001:db8::' || to_hex(k) || '/' || (64 + k % 65))::inet
		 ELSE ('10.' || (k % 7) || '.' || (k / 7) || '.' || (k % 11) || '/' || (8 + k % 25))::inet END AS ip,
	CASE WHEN r0 < 0.05 THEN NULL
		 ELSE set_masklen(('10.' || (k % 7) || '.' || (k / 7) || '.0')::cidr, 16 + k % 9) END AS ci,
	CASE WHEN r0 < 0.05 THEN NULL
		 ELSE ('08:00:2b:' || lpad(to_hex(k % 256), 2, '0') || ':' || lpad(to_hex(k / 7), 2, '0') || ':01')::macaddr END AS mac,
	CASE WHEN r0 < 0.05 THEN NULL
		 ELSE ('08:00:2b:01:02:03:' || lpad(to_hex(k % 256), 2, '0') || ':' || lpad(to_hex(k / 3), 2, '0'))::macaddr8 END AS mac8,
	CASE WHEN r0 < 0.05 THEN NULL ELSE (enum_range(NULL::mood))[1 + k % 4] END AS en,
	CASE WHEN r0 < 0.05 THEN NULL ELSE chr(33 + k % 90) END::"char" AS ch,
	CASE WHEN r0 < 0.05 THEN NULL ELSE ((k - 150) * 1.25)::numeric::money END AS mo,
	CASE WHEN r0 < 0.05 THEN NULL ELSE (to_hex(k % 5) || '/' || to_hex(k * 4099)) END::pg_lsn AS lsn,
	CASE WHEN r0 < 0.05 THEN NULL ELSE k::bit(10) END AS bi,
	CASE WHEN r0 < 0.05 THEN NULL ELSE substring(k::bit(10)::varbit from 1 + k % 5)::varbit END AS vb,
	CASE WHEN r0 < 0.05 THEN NULL
		 ELSE (ARRAY['abc', 'Abc', 'abd', 'ab', 'é', 'Z'])[1 + k % 6] || (k % 40) END AS tp,
	CASE WHEN r0 < 0.05 THEN NULL
		 ELSE (ARRAY['abc', 'Abc', 'abd', 'ab', 'é', 'Z'])[1 + k % 6] || (k % 40) END::varchar(10) AS vp,
	CASE WHEN r0 < 0.05 THEN NULL
		 ELSE (ARRAY['abc', 'Abc', 'abd', 'ab', 'é', 'Z'])[1 + k % 6] || (k % 40) END::char(8) AS bpp
FROM r;

-- sanity of the data: duplicates and NULLs in every column
SELECT count(*) AS n_rows, count(*) - count(bp) AS n_null,
	   count(DISTINCT bp) < count(bp) AND count(DISTINCT ip) < count(ip)
	   AND count(DISTINCT vb) < count(vb) AS duplicates
FROM om_src;

-- the tables and indexes of one access method: om_ (elastic_btree) and
-- oo_ (osm_tree); half the rows go in after CREATE INDEX
CREATE FUNCTION om_build(base text) RETURNS text
LANGUAGE plpgsql AS $fn$
DECLARE
	col			text;
BEGIN
	PERFORM ei_setup(base, 'om_src', 1000);
	FOREACH col IN ARRAY ARRAY['bp', 'nm', 'tm', 'ttz', 'ip', 'ci', 'mac', 'mac8',
							   'en', 'ch', 'mo', 'lsn', 'bi', 'vb'] LOOP
		PERFORM ei_index(base, col, format('(%I)', col));
	END LOOP;
	PERFORM ei_index(base, 'tp', '(tp text_pattern_ops)');
	PERFORM ei_index(base, 'vp', '(vp varchar_pattern_ops)');
	PERFORM ei_index(base, 'bpp', '(bpp bpchar_pattern_ops)');
	PERFORM ei_exec(base, 'INSERT INTO %I SELECT * FROM om_src WHERE id > 1000 ORDER BY id');
	RETURN ei_check_all(base);
END
$fn$;

-- The differential battery on every column of BASE: the comparison
-- operators, IS [NOT] NULL and ORDER BY both ways (ei_diff_col), then the
-- pattern operators of the pattern columns.
CREATE FUNCTION om_run(base text) RETURNS TABLE (query text, result text)
LANGUAGE plpgsql AS $fn$
DECLARE
	c			record;
	op			text;
	v			text;
BEGIN
	FOR c IN
		SELECT * FROM (VALUES
			('bp', '''k120''', '''k77''', '%s', true),
			('nm', '''n120''', '''n77''', '%s', false),
			('tm', '''06:08:19''', '''09:34:00''', '%s', true),
			('ttz', '''09:34:00+00''', '''06:08:19-05:30''', '%s', false),
			('ip', '''10.0.11.0/10''', '''2001:db8::78/119''', '%s', true),
			('ci', '''10.0.8.0/21''', '''10.1.0.0/19''', '%s', false),
			('mac', '''08:00:2b:4d:0b:01''', '''08:00:2b:78:11:01''', '%s', false),
			('mac8', '''08:00:2b:01:02:03:4d:19''', '''08:00:2b:01:02:03:78:28''', '%s', false),
			('en', '''meh''', '''happy''', '%s', true),
			('ch', '''A''', '''m''', '%s', false),
			('mo', '''-91.25''::money', '''-37.50''::money', '%s::numeric AS mo_num', true),
			('lsn', '''0/78168''', '''2/4D0E7''', '%s', true),
			('bi', 'B''0001001101''', 'B''0001111000''', '%s', false),
			('vb', 'B''0001111000''', 'B''01001101''', '%s', false),
			('vp', '''abc''', '''abd''', '%s', true))
			AS t(col, lo, hi, norm, minmax)
	LOOP
		-- vp (varchar_pattern_ops) is read with the plain operators through
		-- its btree index only; its own index answers the pattern queries
		CONTINUE WHEN c.col = 'vp';
		RETURN QUERY SELECT * FROM ei_diff_col(base, c.col, c.lo, c.hi, c.norm, c.minmax,
											   proj => c.norm);
	END LOOP;

	FOREACH c.col IN ARRAY ARRAY['tp', 'vp', 'bpp'] LOOP
		FOREACH op IN ARRAY ARRAY['~<~', '~<=~', '=', '~>=~', '~>~'] LOOP
			v := CASE WHEN op IN ('~<~', '~<=~', '=') THEN '''abc12''' ELSE '''Z3''' END;
			query := format('SELECT id, %s FROM %%I WHERE %s %s %s', c.col, c.col, op, v);
			result := ei_diff(base, query, false, '{index,bitmap}');
			RETURN NEXT;
			query := format('SELECT %s FROM %%I WHERE %s %s %s', c.col, c.col, op, v);
			result := ei_diff(base, query, false, '{indexonly}');
			RETURN NEXT;
		END LOOP;
		query := format('SELECT %s FROM %%I WHERE %s ~>=~ ''abc'' AND %s ~<~ ''abd'' ORDER BY %s USING ~<~',
						c.col, c.col, c.col, c.col);
		result := ei_diff(base, query, true);
		RETURN NEXT;
		query := format('SELECT %s FROM %%I ORDER BY %s USING ~<~', c.col, c.col);
		result := ei_diff(base, query, true, '{index,indexonly}');
		RETURN NEXT;
		query := format('SELECT %s FROM %%I ORDER BY %s USING ~>~', c.col, c.col);
		result := ei_diff(base, query, true, '{index,indexonly}');
		RETURN NEXT;
		query := format('SELECT id FROM %%I WHERE %s IS NULL', c.col);
		result := ei_diff(base, query, false, '{index,bitmap}');
		RETURN NEXT;
	END LOOP;
END
$fn$;

-- elastic_btree (the build NOTICE that these types keep standard leaves,
-- having no normalized keys, is hidden)
SET client_min_messages = warning;
SELECT om_build('om');
RESET client_min_messages;
VACUUM ANALYZE om_seq, om_bt, om_ei;
SELECT * FROM om_run('om');

-- osm_tree
SET ei_test.am = 'osm_tree';
SELECT om_build('oo');
VACUUM ANALYZE oo_seq, oo_bt, oo_ei;
SELECT * FROM om_run('oo');
SELECT ei_check_all('oo');
RESET ei_test.am;
SELECT ei_check_all('om');

-- one plan per type and access method, for the reader
SET enable_seqscan = off;
SET enable_bitmapscan = off;
EXPLAIN (COSTS OFF) SELECT * FROM om_ei WHERE bp = 'k1';
EXPLAIN (COSTS OFF) SELECT * FROM om_ei WHERE nm < 'n1';
EXPLAIN (COSTS OFF) SELECT * FROM om_ei WHERE tm <= '01:00';
EXPLAIN (COSTS OFF) SELECT * FROM om_ei WHERE ttz > '01:00+00';
EXPLAIN (COSTS OFF) SELECT * FROM om_ei WHERE ip >= '10.1.0.0/16';
EXPLAIN (COSTS OFF) SELECT * FROM om_ei WHERE ci = '10.1.0.0/16';
EXPLAIN (COSTS OFF) SELECT * FROM om_ei WHERE mac = '08:00:2b:01:02:01';
EXPLAIN (COSTS OFF) SELECT * FROM om_ei WHERE mac8 = '08:00:2b:01:02:03:04:05';
EXPLAIN (COSTS OFF) SELECT * FROM om_ei WHERE en = 'ok';
EXPLAIN (COSTS OFF) SELECT * FROM om_ei WHERE ch = 'a';
EXPLAIN (COSTS OFF) SELECT * FROM om_ei WHERE mo = '1'::money;
EXPLAIN (COSTS OFF) SELECT * FROM om_ei WHERE lsn = '0/10';
EXPLAIN (COSTS OFF) SELECT * FROM om_ei WHERE bi = B'0000000001';
EXPLAIN (COSTS OFF) SELECT * FROM om_ei WHERE vb = B'01';
EXPLAIN (COSTS OFF) SELECT * FROM om_ei WHERE tp ~<~ 'abc';
EXPLAIN (COSTS OFF) SELECT * FROM om_ei WHERE vp ~>=~ 'abc';
EXPLAIN (COSTS OFF) SELECT * FROM om_ei WHERE bpp ~>~ 'abc';
EXPLAIN (COSTS OFF) SELECT * FROM oo_ei WHERE bp = 'k1';
EXPLAIN (COSTS OFF) SELECT * FROM oo_ei WHERE en > 'meh';
EXPLAIN (COSTS OFF) SELECT * FROM oo_ei WHERE ip < '10.1.0.0/16';
EXPLAIN (COSTS OFF) SELECT * FROM oo_ei WHERE tp ~<=~ 'abc';
EXPLAIN (COSTS OFF) SELECT * FROM oo_ei ORDER BY vb DESC LIMIT 1;

-- LIKE with a prefix: the planner turns it into an index condition only for
-- btree's own pattern families (like_support.c tests their OIDs) or, with
-- the plain operators, under the "C" collation.  This database's default
-- collation is "C", so the default text class serves LIKE; a pattern class
-- of ours does not, and the operators ~>=~ and ~<~ must be written out.
CREATE INDEX om_ei_tp_plain ON om_ei USING elastic_btree (tp);
EXPLAIN (COSTS OFF) SELECT tp FROM om_ei WHERE tp LIKE 'abc%';
DROP INDEX om_ei_tp_plain;
EXPLAIN (COSTS OFF) SELECT tp FROM om_ei WHERE tp LIKE 'abc%';
EXPLAIN (COSTS OFF) SELECT tp FROM om_ei WHERE tp ~>=~ 'abc' AND tp ~<~ 'abd' AND tp LIKE 'abc%';
SELECT (SELECT count(*) FROM om_ei WHERE tp ~>=~ 'abc' AND tp ~<~ 'abd' AND tp LIKE 'abc%') =
	   (SELECT count(*) FROM om_seq WHERE tp LIKE 'abc%') AS same_count;
RESET enable_seqscan;
RESET enable_bitmapscan;

-- an index of a new class is rebuilt and checked like any other
SET client_min_messages = warning;
REINDEX TABLE om_ei;
REINDEX TABLE oo_ei;
RESET client_min_messages;
SELECT ei_check_all('om');
SET ei_test.am = 'osm_tree';
SELECT ei_check_all('oo');
RESET ei_test.am;

-- clean up
SET client_min_messages = warning;
DROP SCHEMA ei_opclasses_more CASCADE;
-- the next file creates the extension afresh
DROP EXTENSION elastic_index CASCADE;
RESET client_min_messages;
RESET search_path;
