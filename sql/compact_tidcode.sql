CREATE EXTENSION IF NOT EXISTS elastic_index;
-- everything this file creates lives in its own schema
SET client_min_messages = warning;
DROP SCHEMA IF EXISTS ei_tc CASCADE;
CREATE SCHEMA ei_tc;
SET search_path = ei_tc, public;
RESET client_min_messages;
\i test/sql/differential_harness.sql
--
-- Compact leaves keep their heap TIDs as a TID code (src/README.md,
-- "Compact leaves", src/lib/tidcode.h): neighbouring TIDs as deltas.
-- Keys correlated with heap order (a time series) and a low-cardinality
-- column (10 values, equal keys in TID order) cost about 2 bytes an entry,
-- so a compact leaf holds more entries than the 6-byte TIDs of before
-- allowed on any page (EI_MAX_ITEMS_PER_PAGE was 1170).  Each index is
-- made compact when small (elastic_btree_shrink), then grows through
-- inserts into compact leaves and their splits; then DELETE, VACUUM and
-- more inserts.  After each phase the same queries through elastic_btree,
-- btree and a sequential scan must agree, and elastic_index_check with
-- heapallindexed must pass.
--
SELECT setseed(0.7);
CREATE TABLE tc_src AS
SELECT g AS id, g::int8 * 10 AS t, (g * 7919) % 10 AS c,
	   (random() * 1e9)::int8 AS r
FROM generate_series(1, 60000) AS g;
SELECT ei_setup('tc', 'tc_src', 2000);
SELECT ei_index('tc', 't', '(t)');
SELECT ei_index('tc', 'c', '(c)');
SELECT ei_index('tc', 'r', '(r)');
VACUUM ANALYZE tc_seq, tc_bt, tc_ei;

CREATE FUNCTION tc_shrink() RETURNS text
LANGUAGE sql AS $fn$
	SELECT string_agg(format('%s:%s', c.relname,
							 elastic_btree_shrink(c.oid) >= 0), ' ' ORDER BY c.relname)
	FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
	WHERE i.indrelid = 'tc_ei'::regclass
$fn$;
-- per index: all leaves compact, and entries per leaf past the old limit?
CREATE FUNCTION tc_density() RETURNS TABLE (index text, all_compact bool,
											per_leaf_over_old_max bool,
											per_leaf_over_2000 bool)
LANGUAGE sql AS $fn$
	SELECT c.relname::text, s.compact_leaf_pages = s.leaf_pages,
		   s.entries::float8 / s.leaf_pages > 1170,
		   s.entries::float8 / s.leaf_pages > 2000
	FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid,
		 LATERAL elastic_index_stats(c.oid) AS s
	WHERE i.indrelid = 'tc_ei'::regclass
	ORDER BY 1
$fn$;
CREATE FUNCTION tc_queries(vacuumed bool DEFAULT true)
RETURNS TABLE (query text, result text)
LANGUAGE plpgsql AS $fn$
DECLARE
	q			text;
	o			bool;
	m			text[];
BEGIN
	FOR q, o, m IN VALUES
		('SELECT id FROM %I WHERE t = 123460', false, '{index,bitmap}'::text[]),
		('SELECT id, t FROM %I WHERE t BETWEEN 200000 AND 230000', false, '{index,bitmap}'),
		('SELECT t FROM %I WHERE t > 590000 ORDER BY t DESC', true, '{index,indexonly}'),
		('SELECT t FROM %I WHERE t < 40000 ORDER BY t', true, '{index,indexonly,bitmap}'),
		('SELECT id FROM %I WHERE t = ANY (ARRAY[10, 5550, 300000, 599990, 7])', false, '{index,bitmap}'),
		('SELECT count(*) FROM %I WHERE c = 3', false, '{index,indexonly,bitmap}'),
		('SELECT id FROM %I WHERE c = 7 AND id < 3000', false, '{index,bitmap}'),
		('SELECT c FROM %I WHERE c >= 8 ORDER BY c DESC', true, '{index,indexonly}'),
		('SELECT count(*) FROM %I WHERE c = ANY (ARRAY[0, 9])', false, '{index,bitmap}'),
		('SELECT id FROM %I WHERE r < 20000000', false, '{index,bitmap}'),
		('SELECT r FROM %I WHERE r > 980000000 ORDER BY r DESC', true, '{index,indexonly}')
	LOOP
		IF NOT vacuumed THEN
			m := array_remove(m, 'indexonly');
		END IF;
		query := q;
		result := ei_diff('tc', q, o, m);
		RETURN NEXT;
	END LOOP;
END
$fn$;

SELECT tc_shrink();
SELECT ei_check_all('tc');

-- 1. grow through compact leaves: the time series in heap order, the
-- low-cardinality and scattered columns wherever their keys fall
SELECT ei_exec('tc', 'INSERT INTO %I SELECT * FROM tc_src WHERE id > 2000 ORDER BY id');
VACUUM ANALYZE tc_seq, tc_bt, tc_ei;
SELECT * FROM tc_density();
SELECT * FROM tc_queries();
SELECT ei_check_all('tc');

-- 2. delete a third, scattered, and a key range whole; VACUUM
SELECT ei_exec('tc', 'DELETE FROM %I WHERE id %% 3 = 0 OR id BETWEEN 20000 AND 26000');
SELECT * FROM tc_queries(false);
VACUUM tc_seq, tc_bt, tc_ei;
SELECT * FROM tc_queries();
SELECT ei_check_all('tc');

-- 3. insert in between: heap TIDs reused out of order, new keys inside
SELECT ei_exec('tc', 'INSERT INTO %I SELECT id + 100000, t + 5, c, r + 1 FROM tc_src WHERE id %% 5 = 0 ORDER BY r');
SELECT ei_exec('tc', 'INSERT INTO %I SELECT * FROM tc_src WHERE id BETWEEN 20000 AND 26000 ORDER BY id DESC');
VACUUM ANALYZE tc_seq, tc_bt, tc_ei;
SELECT * FROM tc_density();
SELECT * FROM tc_queries();
SELECT ei_check_all('tc');

-- 4. expand every leaf to standard and shrink again (codes written afresh)
SELECT count(*) >= 0 AS expanded FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid,
	LATERAL elastic_btree_expand(c.oid) WHERE i.indrelid = 'tc_ei'::regclass;
SELECT bool_and(s.compact_leaf_pages = 0) AS none_compact
FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid,
	 LATERAL elastic_index_stats(c.oid) AS s WHERE i.indrelid = 'tc_ei'::regclass;
SELECT tc_shrink();
SELECT * FROM tc_queries();
SELECT ei_check_all('tc');

-- 5. leaves as versions before 0.3.0 wrote them: plain 6-byte TIDs (the
-- fault setting plain_tids keeps that layout, for this test only).  They
-- are read, VACUUM deletes from them, and an insert adds a plain slot, all
-- as before 0.3.0 (a standby of this version replays an older primary's
-- records on them); a split writes TID codes.
CREATE TABLE tc_free AS
SELECT c.relname, s.free_bytes, s.entries
FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid,
	 LATERAL elastic_index_stats(c.oid) AS s WHERE i.indrelid = 'tc_ei'::regclass;
SELECT count(*) >= 0 AS expanded FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid,
	LATERAL elastic_btree_expand(c.oid) WHERE i.indrelid = 'tc_ei'::regclass;
SET elastic_index.debug_fault = plain_tids;
SELECT tc_shrink();
RESET elastic_index.debug_fault;
-- 6 bytes an entry, against about 1 to 4 for the code
SELECT f.relname, s.compact_leaf_pages = s.leaf_pages AS all_compact,
	   f.free_bytes - s.free_bytes > 2 * s.entries AS plain_takes_more
FROM tc_free f, LATERAL elastic_index_stats(f.relname::regclass) AS s ORDER BY 1;
SELECT * FROM tc_queries();
SELECT ei_check_all('tc');
-- one insert into a plain leaf that has room for it: it takes a 6-byte
-- slot and its bit number (1 byte here), the leaf stays plain (coding it
-- would free about 4 bytes an entry of the leaf)
CREATE TABLE tc_before AS
SELECT s.free_bytes, s.leaf_pages FROM elastic_index_stats('tc_ei_t') AS s;
SELECT count(*) FROM (SELECT ei_exec('tc', 'INSERT INTO %I VALUES (300001, 51, 1, 1)')) AS x;
SELECT b.free_bytes - s.free_bytes AS bytes_taken, s.leaf_pages = b.leaf_pages AS no_split
FROM tc_before b, LATERAL elastic_index_stats('tc_ei_t') AS s;
SELECT * FROM tc_queries();
SELECT ei_check_all('tc');
SELECT ei_exec('tc', 'DELETE FROM %I WHERE id %% 7 = 0');
VACUUM tc_seq, tc_bt, tc_ei;
SELECT * FROM tc_queries();
SELECT ei_check_all('tc');
SELECT ei_exec('tc', 'INSERT INTO %I SELECT id + 200000, t + 3, c, r + 2 FROM tc_src WHERE id %% 7 = 0 ORDER BY r');
VACUUM ANALYZE tc_seq, tc_bt, tc_ei;
SELECT * FROM tc_queries();
SELECT ei_check_all('tc');

-- what elastic_btree_compact_preview predicts for the standard leaves of
-- the btree-built copies: more than the old 1170 entries per compact leaf
CREATE INDEX tc_pre_t ON tc_seq USING elastic_btree (t);
CREATE INDEX tc_pre_c ON tc_seq USING elastic_btree (c);
SELECT compact_capacity > 2000 AS t_over_2000 FROM elastic_btree_compact_preview('tc_pre_t', true);
SELECT compact_capacity > 2000 AS c_over_2000 FROM elastic_btree_compact_preview('tc_pre_c', true);

SET client_min_messages = warning;
DROP SCHEMA ei_tc CASCADE;
-- the next file creates the extension afresh
DROP EXTENSION elastic_index CASCADE;
RESET client_min_messages;
RESET search_path;
