CREATE EXTENSION IF NOT EXISTS elastic_index;
-- everything this file creates lives in its own schema
SET client_min_messages = warning;
DROP SCHEMA IF EXISTS ei_ctm CASCADE;
CREATE SCHEMA ei_ctm;
SET search_path = ei_ctm, public;
RESET client_min_messages;
\i test/sql/differential_harness.sql
--
-- Compact leaves for the types of the operator classes 0.3.0 added: time,
-- timetz, money, pg_lsn, "char", macaddr, macaddr8, inet/cidr, bit,
-- varbit, char(n) and name (under "C"), and the pattern classes
-- (text_pattern_ops, varchar_pattern_ops, bpchar_pattern_ops, under any
-- collation).  Every index must accept compact leaves (no NOTICE at CREATE
-- INDEX), take them under a small size bound as rows arrive, be made fully
-- compact, and then answer every comparison, range and ordered scan like
-- btree and a sequential scan, and pass elastic_index_check.  Enums keep
-- standard leaves (their order can be renumbered).
--

SELECT setseed(0.21);
CREATE TABLE ctm_src AS
WITH r AS MATERIALIZED (
	SELECT g AS id, random() AS r0, random() AS r1, random() AS r2,
		   random() AS r3, random() AS r4, random() AS r5
	FROM generate_series(1, 8000) AS g)
SELECT id,
	CASE WHEN r0 < 0.03 THEN NULL
		 ELSE time '00:00' + floor(r1 * 86400) * interval '1 s' END AS t,
	CASE WHEN r0 < 0.03 THEN NULL
		 ELSE ((time '00:00' + floor(r2 * 1440) * interval '1 min')::text
			   || (ARRAY['+00', '+01', '-01', '+00:30', '-05:30', '+15:59'])[1 + floor(r5 * 6)::int])::timetz
		 END AS tz,
	CASE WHEN r1 < 0.03 THEN NULL
		 ELSE (floor(r3 * 200000) - 100000)::numeric / 100 END::money AS m,
	CASE WHEN r2 < 0.03 THEN NULL
		 ELSE (to_hex(floor(r4 * 4)::int8 * 1073741824 + floor(r1 * 16)::int8) || '/'
			   || to_hex(floor(r3 * 1000000)::int))::pg_lsn END AS l,
	CASE WHEN r3 < 0.03 THEN NULL
		 ELSE chr(1 + floor(r4 * 126)::int)::"char" END AS c,
	CASE WHEN r4 < 0.03 THEN NULL
		 ELSE ('08:00:2b:' || lpad(to_hex(floor(r5 * 256)::int), 2, '0') || ':'
			   || lpad(to_hex(floor(r1 * 256)::int), 2, '0') || ':'
			   || lpad(to_hex(floor(r2 * 16)::int), 2, '0'))::macaddr END AS ma,
	CASE WHEN r5 < 0.03 THEN NULL
		 ELSE ('08:00:2b:ff:fe:' || lpad(to_hex(floor(r0 * 256)::int), 2, '0') || ':'
			   || lpad(to_hex(floor(r3 * 256)::int), 2, '0') || ':'
			   || lpad(to_hex(floor(r4 * 8)::int), 2, '0'))::macaddr8 END AS m8,
	CASE WHEN r0 < 0.03 THEN NULL
		 WHEN r0 < 0.45 THEN set_masklen(('10.' || floor(r1 * 4)::int || '.'
										  || floor(r2 * 256)::int || '.'
										  || floor(r3 * 256)::int)::inet,
										 (ARRAY[8, 9, 16, 24, 30, 32])[1 + floor(r4 * 6)::int])
		 WHEN r0 < 0.60 THEN network(set_masklen(('10.' || floor(r1 * 4)::int || '.'
												  || floor(r2 * 256)::int || '.0')::inet,
												 (ARRAY[8, 9, 16, 24])[1 + floor(r4 * 4)::int]))::inet
		 ELSE set_masklen(('2001:db8:' || to_hex(floor(r1 * 8)::int) || '::'
						   || to_hex(floor(r2 * 65536)::int))::inet,
						  (ARRAY[0, 32, 35, 64, 127, 128])[1 + floor(r3 * 6)::int]) END AS i,
	CASE WHEN r1 < 0.03 THEN NULL
		 ELSE floor(r2 * 1024)::int::bit(10) END AS b,
	CASE WHEN r2 < 0.03 THEN NULL
		 ELSE substr(floor(r3 * 65536)::int::bit(16)::text, 1,
					 floor(r4 * 17)::int)::varbit END AS vb,
	CASE WHEN r3 < 0.03 THEN NULL
		 ELSE (ARRAY['', 'a', 'ab', 'a b', 'b', 'B', 'é'])[1 + floor(r4 * 7)::int]
			  || floor(r5 * 30)::text END::char(8) COLLATE "C" AS bp,
	CASE WHEN r4 < 0.03 THEN NULL
		 ELSE ('n' || floor(r5 * 3000)::text
			   || repeat('x', floor(r0 * 10)::int))::name END AS n,
	CASE WHEN r5 < 0.03 THEN NULL
		 ELSE (ARRAY['', 'a', 'a ', 'A', 'é', 'b '])[1 + floor(r0 * 6)::int]
			  || floor(r1 * 400)::text END AS tp,
	CASE WHEN r0 < 0.03 THEN NULL
		 ELSE (ARRAY['', 'a', 'a  ', 'A', 'b'])[1 + floor(r2 * 5)::int]
			  || floor(r3 * 60)::text END::char(5) AS bpp
FROM r;

-- edge values: extremes, equal values that differ in bytes (char(n)
-- trailing spaces, inet vs cidr), one UTC time in several zones
INSERT INTO ctm_src VALUES
	(8001, '00:00', '00:00+15:59', '-92233720368547758.08', '0/0', E'\\001',
	 '00:00:00:00:00:00', '00:00:00:00:00:00:00:00', '0.0.0.0/0', B'0000000000',
	 B'', '', '', '', ''),
	(8002, '24:00', '24:00-15:59', '92233720368547758.07', 'FFFFFFFF/FFFFFFFF', E'\\377',
	 'ff:ff:ff:ff:ff:ff', 'ff:ff:ff:ff:ff:ff:ff:ff',
	 'ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff/128', B'1111111111',
	 B'1111111111111111', 'zzzzzzzz', repeat('z', 63), repeat('z', 20), 'zzzzz'),
	(8003, '12:00', '12:00+00', '-0.01', '80000000/0', E'\\200',
	 '80:00:00:00:00:00', '80:00:00:00:00:00:00:00', '10.0.0.0/8'::cidr, B'1000000000',
	 B'1', 'a', 'a', 'a ', 'a'),
	(8004, '12:00:00.000001', '13:00+01', '0.00', '0/1', ' ',
	 '7f:ff:ff:ff:ff:ff', '7f:ff:ff:ff:ff:ff:ff:ff', '10.0.0.0/8', B'0000000001',
	 B'10', 'a  ', 'a ', 'a', 'a  '),
	(8005, '23:59:59.999999', '11:00-01', '0.01', '0/FFFFFFFF', 'a',
	 '00:00:00:00:00:01', '00:00:00:00:00:00:00:01', '10.0.0.1/8', B'0111111111',
	 B'0', 'a b', 'a b', '', 'A'),
	(8006, NULL, '12:00-00:30', NULL, NULL, NULL, NULL, NULL, '10.0.0.0/9', NULL,
	 B'00', ' ', NULL, ' ', ' '),
	(8007, '00:00:00.000001', '12:30+00:30', '-1000.00', '1/0', '~',
	 '08:00:2b:00:00:00', '08:00:2b:ff:fe:00:00:00', '10.128.0.0/9', B'0000000000',
	 B'0000000000000000', 'é', 'é', 'é', 'é'),
	(8008, NULL, NULL, NULL, NULL, NULL, NULL, NULL, '::/0', NULL, B'00000000', NULL,
	 NULL, NULL, NULL),
	(8009, NULL, NULL, NULL, NULL, NULL, NULL, NULL, '::ffff:10.0.0.1', NULL,
	 B'000000000', NULL, NULL, NULL, NULL),
	(8010, NULL, NULL, NULL, NULL, NULL, NULL, NULL, '0.0.0.0/32', NULL, B'1000000',
	 NULL, NULL, NULL, NULL);

-- the data has what the test is about
SELECT count(*) FILTER (WHERE timezone('UTC', tz) = '12:00+00') AS same_utc_time,
	   count(DISTINCT tz::text) FILTER (WHERE timezone('UTC', tz) = '12:00+00') AS zones,
	   count(*) FILTER (WHERE bp = 'a') AS bp_a,
	   count(*) FILTER (WHERE i = '10.0.0.0/8') AS inet_cidr_equal,
	   count(DISTINCT masklen(i)) AS masklens,
	   count(DISTINCT family(i)) AS families,
	   count(DISTINCT length(vb)) AS varbit_lengths,
	   count(*) FILTER (WHERE m < 0::money) > 1000 AS negative_money
FROM ctm_src;

SELECT ei_setup('ctm', 'ctm_src', 4000);
-- no statistics on the "char" column: PostgreSQL 18's convert_string_datum
-- asks for collation 0 when a "char" range qual meets a histogram
SELECT ei_exec('ctm', 'ALTER TABLE %I ALTER COLUMN c SET STATISTICS 0');
-- a bound small enough that inserts make full leaves compact
SET elastic_btree.size_bound = '16kB';
-- no "will always keep standard leaves" NOTICE may appear
SET client_min_messages = notice;
SELECT ei_index('ctm', 't', '(t)');
SELECT ei_index('ctm', 'tz', '(tz DESC NULLS FIRST)');
SELECT ei_index('ctm', 'm', '(m)');
SELECT ei_index('ctm', 'l', '(l)');
SELECT ei_index('ctm', 'c', '(c)');
SELECT ei_index('ctm', 'ma', '(ma)');
SELECT ei_index('ctm', 'm8', '(m8)');
SELECT ei_index('ctm', 'i', '(i)');
SELECT ei_index('ctm', 'b', '(b)');
SELECT ei_index('ctm', 'vb', '(vb DESC)');
SELECT ei_index('ctm', 'bp', '(bp)');
SELECT ei_index('ctm', 'n', '(n)');
SELECT ei_index('ctm', 'tp', '(tp text_pattern_ops)');
SELECT ei_index('ctm', 'bpp', '(bpp bpchar_pattern_ops)');
SELECT ei_index('ctm', 'ci', '(c, i DESC, vb)');
SET client_min_messages = warning;

-- the other half arrives: full leaves become compact instead of splitting
SELECT ei_exec('ctm', 'INSERT INTO %I SELECT * FROM ctm_src WHERE id > 4000 ORDER BY id');
VACUUM ANALYZE ctm_seq, ctm_bt, ctm_ei;
SELECT c.relname, s.elastic_state, s.compact_leaf_pages > 0 AS has_compact_leaves
FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid,
	 LATERAL elastic_index_stats(c.oid) AS s
WHERE i.indrelid = 'ctm_ei'::regclass ORDER BY c.relname;
SELECT ei_check_all('ctm');
RESET elastic_btree.size_bound;

-- then every leaf compact
SELECT string_agg(c.relname, ' ' ORDER BY c.relname) AS shrunk
FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
WHERE i.indrelid = 'ctm_ei'::regclass AND elastic_btree_shrink(c.oid) >= 0;
SELECT c.relname, s.compact_leaf_pages = s.leaf_pages AS all_compact,
	   s.compact_leaf_pages > 1 AS several, s.entries
FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid,
	 LATERAL elastic_index_stats(c.oid) AS s
WHERE i.indrelid = 'ctm_ei'::regclass ORDER BY c.relname;
SELECT ei_check_all('ctm');

-- ordering the rows by their normalized keys (elastic_index_normalized_key)
-- is ordering them by the index's operators, NULLs and DESC included
CREATE FUNCTION ctm_agrees(idx text, cols text, order_by text) RETURNS text
LANGUAGE plpgsql AS $fn$
DECLARE
	ok			bool;
BEGIN
	EXECUTE format('SELECT array_agg(ctid ORDER BY %s, ctid) = '
				   'array_agg(ctid ORDER BY elastic_index_normalized_key(%L, ctid, %s)) '
				   'FROM ctm_ei', order_by, 'ctm_ei_' || idx, cols)
	INTO ok;
	RETURN format('%s: %s', idx, CASE WHEN ok THEN 'agrees' ELSE 'DIFFERS' END);
END
$fn$;
SELECT ctm_agrees(idx, cols, order_by)
FROM (VALUES ('t', 't', 't'), ('tz', 'tz', 'tz DESC NULLS FIRST'), ('m', 'm', 'm'),
			 ('l', 'l', 'l'), ('c', 'c', 'c'), ('ma', 'ma', 'ma'), ('m8', 'm8', 'm8'),
			 ('i', 'i', 'i'), ('b', 'b', 'b'), ('vb', 'vb', 'vb DESC'),
			 ('bp', 'bp', 'bp'), ('n', 'n', 'n'), ('tp', 'tp', 'tp USING ~<~'),
			 ('bpp', 'bpp', 'bpp USING ~<~'), ('ci', 'c, i, vb', 'c, i DESC, vb'))
	 AS x(idx, cols, order_by);

-- every comparison, BETWEEN, IS [NOT] NULL, ORDER BY both ways, ranges
SELECT * FROM ei_diff_col('ctm', 't', '''12:00''', '''18:00:00.5''');
SELECT * FROM ei_diff_col('ctm', 'tz', '''12:00+00''', '''12:00-00:30''',
						  fwd => '%s DESC NULLS FIRST', bwd => '%s NULLS LAST');
SELECT * FROM ei_diff_col('ctm', 'm', '''-0.01''', '''500.00''');
SELECT * FROM ei_diff_col('ctm', 'l', '''1/0''', '''80000000/0''');
SELECT * FROM ei_diff_col('ctm', 'c', '''A''', '''\200''', minmax => false);
SELECT * FROM ei_diff_col('ctm', 'ma', '''08:00:2b:00:00:00''', '''08:00:2b:c0:00:00''', minmax => false);
SELECT * FROM ei_diff_col('ctm', 'm8', '''08:00:2b:ff:fe:00:00:00''', '''08:00:2b:ff:fe:c0:00:00''', minmax => false);
SELECT * FROM ei_diff_col('ctm', 'i', '''10.0.0.0/8''', '''10.1.0.0/16''');
SELECT * FROM ei_diff_col('ctm', 'i', '''10.0.0.0/9''', '''2001:db8:4::/64''');
SELECT * FROM ei_diff_col('ctm', 'b', 'B''0100000000''', 'B''1000000000''', minmax => false);
SELECT * FROM ei_diff_col('ctm', 'vb', 'B''1''', 'B''10000000''', minmax => false,
						  fwd => '%s DESC', bwd => '%s');
SELECT * FROM ei_diff_col('ctm', 'bp', '''a''', '''b1   ''');
SELECT * FROM ei_diff_col('ctm', 'n', '''a''', '''n2500''', minmax => false);

-- equal values that differ in bytes, and in their text
SELECT ei_diff('ctm', 'SELECT id FROM %I WHERE tz = ''12:00+00''', false, '{index,bitmap}');
SELECT ei_diff('ctm', 'SELECT id, tz FROM %I WHERE tz >= ''12:00+00'' AND tz <= ''12:00-00:30'' ORDER BY tz DESC, id', true, '{bitmap}');
SELECT ei_diff('ctm', 'SELECT id FROM %I WHERE i = ''10.0.0.0/8''::cidr', false, '{index,bitmap}');
SELECT ei_diff('ctm', 'SELECT id FROM %I WHERE bp = ''a       ''', false, '{index,bitmap}');
SELECT ei_diff('ctm', 'SELECT id FROM %I WHERE vb = B''0''', false, '{index,bitmap}');

-- the pattern classes: their operators, and ORDER BY ... USING
SELECT ei_diff('ctm', format('SELECT id, tp FROM %%I WHERE tp %s ''a 1''', op), false, '{index,bitmap}')
FROM unnest(ARRAY['~<~', '~<=~', '=', '~>=~', '~>~']) AS op;
SELECT ei_diff('ctm', 'SELECT tp FROM %I WHERE tp ~>=~ ''a'' AND tp ~<~ ''b'' ORDER BY tp USING ~<~', true, '{index,indexonly}');
SELECT ei_diff('ctm', 'SELECT tp FROM %I ORDER BY tp USING ~>~', true, '{index,indexonly}');
SELECT ei_diff('ctm', 'SELECT id FROM %I WHERE tp IS NULL', false, '{index,bitmap}');
SELECT ei_diff('ctm', format('SELECT id, bpp FROM %%I WHERE bpp %s ''a1''', op), false, '{index,bitmap}')
FROM unnest(ARRAY['~<~', '~<=~', '=', '~>=~', '~>~']) AS op;
SELECT ei_diff('ctm', 'SELECT id FROM %I WHERE bpp = ''a  ''', false, '{index,bitmap}');
SELECT ei_diff('ctm', 'SELECT bpp FROM %I WHERE bpp ~>~ ''A'' ORDER BY bpp USING ~<~', true, '{index,indexonly}');
SELECT ei_diff('ctm', 'SELECT bpp FROM %I ORDER BY bpp USING ~>~', true, '{index,indexonly}');

-- three columns, one of them DESC
SELECT ei_diff('ctm', 'SELECT c, i, vb FROM %I WHERE c = ''a'' ORDER BY c, i DESC, vb', true, '{index,indexonly}');
SELECT ei_diff('ctm', 'SELECT c, i, vb FROM %I WHERE c > ''x'' ORDER BY c DESC, i, vb DESC', true, '{index,indexonly}');

-- inserts into compact leaves, deletes, VACUUM
SELECT ei_exec('ctm', 'DELETE FROM %I WHERE id %% 3 = 0');
SELECT ei_exec('ctm', 'INSERT INTO %I SELECT id + 10000, t, tz, m, l, c, ma, m8, i, b, vb, bp, n, tp, bpp FROM ctm_src WHERE id %% 5 = 0');
VACUUM ANALYZE ctm_seq, ctm_bt, ctm_ei;
SELECT bool_and(s.compact_leaf_pages > 0) AS still_compact
FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid,
	 LATERAL elastic_index_stats(c.oid) AS s
WHERE i.indrelid = 'ctm_ei'::regclass;
SELECT ei_check_all('ctm');
SELECT ei_diff('ctm', 'SELECT i FROM %I WHERE i > ''10.0.0.0/8'' ORDER BY i', true, '{index,indexonly}');
SELECT ei_diff('ctm', 'SELECT tz FROM %I WHERE tz < ''12:00+00'' ORDER BY tz DESC NULLS FIRST', true, '{index,indexonly}');
SELECT ei_diff('ctm', 'SELECT bp FROM %I WHERE bp BETWEEN ''a'' AND ''b'' ORDER BY bp', true, '{index,indexonly}');
SELECT ei_diff('ctm', 'SELECT vb FROM %I WHERE vb < B''1'' ORDER BY vb DESC', true, '{index,indexonly}');
SELECT ei_diff('ctm', 'SELECT id, m, l FROM %I WHERE m < ''-900.00'' AND l > ''1/0''', false, '{index,bitmap}');

-- osm_tree: its insert buffer hashes entries' normalized keys into Bloom
-- filters, so equal values with different bytes (char(n) trailing spaces,
-- inet vs cidr) must hash alike for equality lookups to find them there
SELECT ei_setup('cto', 'ctm_src', 0);
SET ei_test.am = 'osm_tree';
SELECT ei_index('cto', 'bp', '(bp)');
SELECT ei_index('cto', 'i', '(i)');
SELECT ei_index('cto', 'tz', '(tz)');
SELECT ei_index('cto', 'vb', '(vb)');
SELECT ei_index('cto', 'bpp', '(bpp bpchar_pattern_ops)');
SELECT ei_index('cto', 'n', '(n)');
-- every entry to the buffer (as in osm_buffer)
SET osm_tree.batch_size = 1;
SET osm_tree.top_inserts = off;
SET osm_tree.buffer_size = 16;
SELECT ei_exec('cto', 'INSERT INTO %I SELECT * FROM ctm_src ORDER BY id');
SELECT c.relname, b.entries > 0 AS buffered
FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid,
	 LATERAL osm_tree_buffer_stats(c.oid) AS b
WHERE i.indrelid = 'cto_ei'::regclass ORDER BY c.relname;
SELECT ei_diff('cto', format('SELECT id FROM %%I WHERE %s', q), false, '{index,bitmap}')
FROM unnest(ARRAY['bp = ''a''', 'bp = ''a  ''::char(3)', 'bp = ''a b''', 'bp = ''''',
				  'i = ''10.0.0.0/8''::cidr', 'i = ''10.0.0.0/8''::inet', 'i = ''10.0.0.1/8''',
				  'i = ''::/0''', 'tz = ''12:00+00''', 'tz = ''13:00+01''', 'vb = B''''',
				  'vb = B''0''', 'vb = B''00''', 'bpp = ''a  ''', 'bpp = ''a''', 'n = ''a''',
				  'n = ''''']) AS q;
SELECT ei_check_all('cto');
RESET ei_test.am;
RESET osm_tree.batch_size;
RESET osm_tree.top_inserts;
RESET osm_tree.buffer_size;

-- the pattern classes ignore the collation: a nondeterministic one (which
-- text_ops cannot have in compact leaves) does not matter to them
CREATE COLLATION ctm_ci (provider = icu, locale = 'und-u-ks-level2',
						 deterministic = false);
CREATE TABLE ctm_coll (id int, tp text COLLATE ctm_ci, bpp char(5) COLLATE ctm_ci);
INSERT INTO ctm_coll SELECT id, tp, bpp FROM ctm_src;
SET client_min_messages = notice;
CREATE INDEX ctm_coll_tp ON ctm_coll USING elastic_btree (tp text_pattern_ops);
CREATE INDEX ctm_coll_bpp ON ctm_coll USING elastic_btree (bpp bpchar_pattern_ops);
CREATE INDEX ctm_coll_t ON ctm_coll USING elastic_btree (tp);
SET client_min_messages = warning;
SELECT elastic_btree_shrink('ctm_coll_tp') > 0 AS shrunk_tp,
	   elastic_btree_shrink('ctm_coll_bpp') > 0 AS shrunk_bpp;
SELECT elastic_index_check('ctm_coll_tp', true), elastic_index_check('ctm_coll_bpp', true);
SET enable_seqscan = off;
SET enable_bitmapscan = off;
EXPLAIN (COSTS OFF)
SELECT id FROM ctm_coll WHERE tp ~>=~ 'a' AND tp ~<~ 'a 2' ORDER BY tp USING ~<~;
SELECT array_agg(id ORDER BY tp USING ~<~, id) AS via_index
FROM ctm_coll WHERE tp ~>=~ 'a' AND tp ~<~ 'a 2' \gset
RESET enable_seqscan;
RESET enable_bitmapscan;
SET enable_indexscan = off;
SET enable_bitmapscan = off;
SELECT array_agg(id ORDER BY tp USING ~<~, id) = :'via_index'::int[] AS same_as_seqscan,
	   count(*) > 50 AS enough
FROM ctm_coll WHERE tp ~>=~ 'a' AND tp ~<~ 'a 2';
RESET enable_indexscan;
RESET enable_bitmapscan;

-- a domain over name: its keys are variable-width like name's, though the
-- type has a fixed length
CREATE DOMAIN ctm_dname AS name;
CREATE TABLE ctm_dom (id int, d ctm_dname);
INSERT INTO ctm_dom SELECT id, n FROM ctm_src;
CREATE INDEX ctm_dom_d ON ctm_dom USING elastic_btree (d);
SELECT elastic_btree_shrink('ctm_dom_d') > 0 AS shrunk;
SELECT elastic_index_check('ctm_dom_d', true);
SET enable_seqscan = off;
SET enable_bitmapscan = off;
SELECT array_agg(id ORDER BY d, id) AS via_index
FROM ctm_dom WHERE d >= 'n1' AND d < 'n2' \gset
RESET enable_seqscan;
RESET enable_bitmapscan;
SET enable_indexscan = off;
SET enable_bitmapscan = off;
SELECT array_agg(id ORDER BY d, id) = :'via_index'::int[] AS same_as_seqscan,
	   count(*) > 50 AS enough
FROM ctm_dom WHERE d >= 'n1' AND d < 'n2';
RESET enable_indexscan;
RESET enable_bitmapscan;

-- enums keep standard leaves: their order (pg_enum.enumsortorder) can be
-- renumbered by ALTER TYPE ... ADD VALUE, so no encoding stays valid
-- (CREATE INDEX says so in a NOTICE, which from PostgreSQL 17 on names the
-- type with its schema: the build runs under a safe search_path)
CREATE TYPE ctm_mood AS ENUM ('sad', 'ok', 'happy');
CREATE TABLE ctm_enum (e ctm_mood);
CREATE INDEX ctm_enum_e ON ctm_enum USING elastic_btree (e);
DO $$
DECLARE
	detail		text;
BEGIN
	PERFORM elastic_btree_shrink('ctm_enum_e');
EXCEPTION WHEN feature_not_supported THEN
	GET STACKED DIAGNOSTICS detail = PG_EXCEPTION_DETAIL;
	RAISE WARNING '%: %', SQLERRM, detail;
END
$$;

DROP SCHEMA ei_ctm CASCADE;
-- the next file creates the extension afresh
DROP EXTENSION elastic_index CASCADE;
RESET client_min_messages;
RESET search_path;
