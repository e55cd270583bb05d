CREATE EXTENSION IF NOT EXISTS elastic_index;
-- everything this file creates lives in its own schema
SET client_min_messages = warning;
DROP SCHEMA IF EXISTS ei_cmpt CASCADE;
CREATE SCHEMA ei_cmpt;
SET search_path = ei_cmpt, public;
RESET client_min_messages;
\i test/sql/differential_harness.sql
--
-- Compact leaves with variable-width keys (src/README.md, "Variable-width
-- keys in compact leaves"): text under the C and POSIX collations, varchar,
-- bytea and a (text, int) pair, forced fully compact.  Keys up to 249 bytes
-- go into compact leaves padded to 255 bytes; longer ones keep their leaf
-- standard (a compact leaf that must take one is made standard first).  A
-- second data set has every key toasted out of line, which compact leaves
-- read with the leaf unlocked.  After each phase the three tables must
-- answer alike and every index must pass elastic_index_check.
--

SELECT setseed(0.4);
CREATE TABLE ct_src AS
WITH r AS MATERIALIZED (
	SELECT g AS id, random() AS r0, random() AS r1,
		   ei_rand_text(30) AS s
	FROM generate_series(1, 16000) AS g)
SELECT id,
	CASE WHEN r0 < 0.02 THEN NULL
		 WHEN r0 < 0.10 THEN 'dup' || floor(r1 * 20)::text
		 ELSE s END AS tc,
	CASE WHEN r0 < 0.02 THEN NULL ELSE s END AS tp,
	CASE WHEN r0 < 0.05 THEN NULL ELSE left(s, 12) END::varchar(20) AS v,
	CASE WHEN r0 < 0.03 THEN NULL
		 ELSE convert_to(s, 'UTF8') || '\x00ff'::bytea END AS by,
	floor(r1 * 50)::int AS n
FROM r;
ALTER TABLE ct_src ALTER COLUMN tc TYPE text COLLATE "C";
ALTER TABLE ct_src ALTER COLUMN tp TYPE text COLLATE "POSIX";
ALTER TABLE ct_src ALTER COLUMN v TYPE varchar(20) COLLATE "C";
-- a few keys too long for a compact leaf, among the first half and the second
UPDATE ct_src SET tc = repeat('m', 300) || id WHERE id % 1000 = 7;

SELECT ei_setup('ct', 'ct_src', 8000);
SELECT ei_index('ct', 'tc', '(tc)');
SELECT ei_index('ct', 'tp', '(tp DESC NULLS LAST)');
SELECT ei_index('ct', 'v', '(v)');
SELECT ei_index('ct', 'by', '(by)');
SELECT ei_index('ct', 'tcn', '(tc, n DESC)');
VACUUM ANALYZE ct_seq, ct_bt, ct_ei;

-- make every leaf of every elastic_btree index compact that can be
CREATE FUNCTION ct_shrink(tbl regclass) RETURNS text
LANGUAGE sql AS $fn$
	SELECT string_agg(format('%s:%s', c.relname,
							 elastic_btree_shrink(c.oid) >= 0), ' ' ORDER BY c.relname)
	FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
	WHERE i.indrelid = tbl
$fn$;
-- leaves, compact leaves and entries of each index
CREATE FUNCTION ct_kinds(tbl regclass)
RETURNS TABLE (index name, all_compact bool, some_compact bool)
LANGUAGE sql AS $fn$
	SELECT c.relname, s.compact_leaf_pages = s.leaf_pages, s.compact_leaf_pages > 0
	FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid,
		 LATERAL elastic_index_stats(c.oid) AS s
	WHERE i.indrelid = tbl ORDER BY 1
$fn$;
SELECT ct_shrink('ct_ei');
-- the indexes holding 300-byte keys keep those keys' leaves standard
SELECT * FROM ct_kinds('ct_ei');
SELECT ei_check_all('ct');

-- a compact leaf of 30-byte text holds over five times a standard leaf's entries
CREATE TABLE ct_cap AS SELECT md5(g::text) || left(md5((g * 7)::text), 2)
	COLLATE "C" AS k FROM generate_series(1, 20000) AS g;
CREATE INDEX ct_cap_k ON ct_cap USING elastic_btree (k);
SELECT key_bytes, capacity_ratio > 5 AS over_5x, verified_entries = 20000 AS all_verified
FROM elastic_btree_compact_preview('ct_cap_k', true);
SELECT elastic_btree_shrink('ct_cap_k') > 0 AS converted;
SELECT compact_leaf_pages = leaf_pages AS all_compact FROM elastic_index_stats('ct_cap_k');
SELECT elastic_index_check('ct_cap_k');

-- the queries run after every phase: (query, ordered, planner modes);
-- the second data set has only the first text column, named k
CREATE TABLE ct_query_list (n serial, q text, o bool, m text[]);
INSERT INTO ct_query_list (q, o, m) VALUES
	('SELECT id, tc FROM %I WHERE tc < ''B''', false, '{index,bitmap}'),
	('SELECT id FROM %I WHERE tc = ''dup7''', false, '{index,bitmap}'),
	('SELECT tc FROM %I WHERE tc >= ''x'' ORDER BY tc', true, '{index,indexonly}'),
	('SELECT tc FROM %I WHERE tc > ''mmmm'' AND tc < ''mn'' ORDER BY tc DESC', true, '{index,indexonly,bitmap}'),
	('SELECT tc FROM %I WHERE tc = repeat(''m'', 300) || ''1007''', false, '{index,bitmap}'),
	('SELECT tc FROM %I ORDER BY tc', true, '{index,indexonly}'),
	('SELECT count(*) FROM %I WHERE tc IS NULL', false, '{indexonly,bitmap}'),
	('SELECT tp FROM %I WHERE tp > ''日'' ORDER BY tp DESC NULLS LAST', true, '{index,indexonly}'),
	('SELECT tp FROM %I WHERE tp BETWEEN ''a'' AND ''b'' ORDER BY tp NULLS FIRST', true, '{index,indexonly,bitmap}'),
	('SELECT v FROM %I WHERE v LIKE ''é%%'' AND v >= ''é'' ORDER BY v', true, '{index,indexonly}'),
	('SELECT id, by FROM %I WHERE by < ''\x41''', false, '{index,bitmap}'),
	('SELECT by FROM %I WHERE by > ''\x7a'' ORDER BY by DESC', true, '{index,indexonly}'),
	('SELECT tc, n FROM %I WHERE tc = ''dup3'' ORDER BY tc, n DESC', true, '{index,indexonly,bitmap}'),
	('SELECT min(tc), max(tc) FROM %I', true, '{index,indexonly}');
-- index-only scans only once VACUUM has set the visibility map
CREATE FUNCTION ct_queries(base text, vacuumed bool DEFAULT true)
RETURNS TABLE (query text, result text)
LANGUAGE sql AS $fn$
	SELECT x.q, ei_diff(base, x.q, l.o,
						CASE WHEN vacuumed THEN l.m ELSE array_remove(l.m, 'indexonly') END)
	FROM ct_query_list AS l,
		 LATERAL (SELECT CASE WHEN base = 'cx' THEN regexp_replace(l.q, '\mtc\M', 'k', 'g')
							  ELSE l.q END AS q) AS x
	WHERE base <> 'cx' OR l.q !~ '\m(tp|v|by|n)\M'
	ORDER BY l.n
$fn$;
SELECT * FROM ct_queries('ct');

-- 1. insert the other half into the compact leaves: they split, and the
--    ones that must take a 300-byte key become standard first
SELECT ei_exec('ct', 'INSERT INTO %I SELECT * FROM ct_src WHERE id > 8000 ORDER BY id');
VACUUM ANALYZE ct_seq, ct_bt, ct_ei;
SELECT * FROM ct_kinds('ct_ei');
SELECT * FROM ct_queries('ct');
SELECT ei_check_all('ct');

-- 2. delete a third, HOT and key updates, an aborted insert, VACUUM
SELECT ei_exec('ct', 'DELETE FROM %I WHERE id %% 3 = 0');
SELECT ei_exec('ct', 'UPDATE %I SET n = n + 1 WHERE id %% 5 = 0');
SELECT ei_exec('ct', 'UPDATE %I SET tc = tc || ''!'' WHERE id %% 7 = 0');
BEGIN;
SELECT ei_exec('ct', 'INSERT INTO %I SELECT id + 100000, tc, tp, v, by, n FROM ct_src WHERE id %% 4 = 0');
ROLLBACK;
SELECT * FROM ct_queries('ct', false);
SELECT ei_check_all('ct');
VACUUM ANALYZE ct_seq, ct_bt, ct_ei;
SELECT * FROM ct_queries('ct');
SELECT ei_check_all('ct');

-- 3. expand back to standard leaves, then shrink again
SELECT c.relname, elastic_btree_expand(c.oid) > 0 AS expanded
FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
WHERE i.indrelid = 'ct_ei'::regclass ORDER BY c.relname;
SELECT * FROM ct_kinds('ct_ei');
SELECT * FROM ct_queries('ct');
SELECT ct_shrink('ct_ei');
SELECT * FROM ct_queries('ct');
SELECT ei_check_all('ct');

-- 4. every key toasted out of line: a plain 2100-byte column keeps each row
--    wide, so the toaster moves the key (storage EXTERNAL) to TOAST
CREATE TABLE cx_src (id int, k text COLLATE "C", n int, pad text);
ALTER TABLE cx_src ALTER COLUMN k SET STORAGE EXTERNAL;
ALTER TABLE cx_src ALTER COLUMN pad SET STORAGE PLAIN;
INSERT INTO cx_src
SELECT id, tc || '-' || md5(id::text), n, repeat('p', 2100)
FROM ct_src WHERE id <= 6000;
SELECT ei_setup('cx', 'cx_src', 1000);
SELECT ei_index('cx', 'k', '(k)');
VACUUM ANALYZE cx_seq, cx_bt, cx_ei;
CREATE FUNCTION ct_toasted(tbl regclass) RETURNS bigint
LANGUAGE plpgsql AS $fn$
DECLARE
	n			bigint;
BEGIN
	EXECUTE format('SELECT count(DISTINCT chunk_id) FROM %s',
				   (SELECT reltoastrelid::regclass FROM pg_class WHERE oid = tbl))
		INTO n;
	RETURN n;
END
$fn$;
SELECT ct_toasted('cx_ei') = count(k) AS keys_toasted FROM cx_ei;
SELECT ct_shrink('cx_ei');
SELECT * FROM ct_kinds('cx_ei');
CREATE TABLE cx_leaves AS
SELECT compact_leaf_pages AS leaves FROM elastic_index_stats('cx_ei_k');
SELECT * FROM ct_queries('cx');
SELECT ei_check_all('cx');
SELECT ei_exec('cx', 'INSERT INTO %I SELECT * FROM cx_src WHERE id > 1000 ORDER BY id');
SELECT ei_exec('cx', 'DELETE FROM %I WHERE id %% 4 = 0');
VACUUM ANALYZE cx_seq, cx_bt, cx_ei;
SELECT * FROM ct_kinds('cx_ei');
-- the compact leaves split, at keys read from TOAST
SELECT s.compact_leaf_pages > a.leaves AS compact_split
FROM elastic_index_stats('cx_ei_k') AS s, cx_leaves AS a;
SELECT * FROM ct_queries('cx');
SELECT ei_check_all('cx');
SELECT elastic_btree_expand('cx_ei_k') > 0 AS expanded;
SELECT * FROM ct_queries('cx');
SELECT ei_check_all('cx');

-- clean up
SET client_min_messages = warning;
DROP SCHEMA ei_cmpt CASCADE;
-- the next file creates the extension afresh
DROP EXTENSION elastic_index CASCADE;
RESET client_min_messages;
RESET search_path;
