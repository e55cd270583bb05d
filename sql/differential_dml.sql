CREATE EXTENSION IF NOT EXISTS elastic_index;
-- everything this file creates lives in its own schema
SET client_min_messages = warning;
DROP SCHEMA IF EXISTS ei_dml CASCADE;
CREATE SCHEMA ei_dml;
SET search_path = ei_dml, public;
RESET client_min_messages;
\i test/sql/differential_harness.sql
--
-- Data changes after the build: deletes (with and without VACUUM), HOT and
-- non-HOT updates, aborted inserts, emptying the table, TRUNCATE, CLUSTER
-- through an elastic_btree index, VACUUM FULL.  After each phase the three
-- tables must still answer alike and every index must pass
-- elastic_index_check(idx, true).
--
SELECT setseed(0.6);
CREATE TABLE dm_src AS
WITH r AS MATERIALIZED (
	SELECT g AS id, random() AS r0, random() AS r1, random() AS r2, random() AS r3
	FROM generate_series(1, 20000) AS g)
SELECT id,
	CASE WHEN r0 < 0.02 THEN NULL ELSE floor(r1 * 20000)::int4 END AS k,
	md5(floor(r2 * 5000)::text) || repeat('-', floor(r3 * 60)::int) AS t,
	round(r3 * 1000)::float8 AS f,
	'pad' AS pad
FROM r;
SELECT ei_setup('dm', 'dm_src', 10000);
SELECT ei_index('dm', 'k', '(k)');
SELECT ei_index('dm', 't', '(t)');
SELECT ei_index('dm', 'fk', '(f DESC, k)');
SELECT ei_exec('dm', 'INSERT INTO %I SELECT * FROM dm_src WHERE id > 10000 ORDER BY id');
VACUUM ANALYZE dm_seq, dm_bt, dm_ei;
SELECT ei_check_all('dm');

-- the queries run after every phase
-- (without index-only scans when the visibility map is not set)
CREATE OR REPLACE FUNCTION dm_queries(vacuumed bool DEFAULT true)
RETURNS TABLE (query text, result text)
LANGUAGE plpgsql AS $fn$
DECLARE
	q			text;
	o			bool;
	m			text[];
BEGIN
	FOR q, o, m IN VALUES
		('SELECT id, k FROM %I WHERE k < 1000', false, '{index,bitmap}'::text[]),
		('SELECT k FROM %I WHERE k >= 19000 ORDER BY k DESC', true, '{index,indexonly,bitmap}'),
		('SELECT k FROM %I ORDER BY k', true, '{index,indexonly}'),
		('SELECT count(*) FROM %I WHERE k IS NULL', false, '{indexonly,bitmap}'),
		('SELECT id, t FROM %I WHERE t > ''f'' AND t < ''f1''', false, '{index,bitmap}'),
		('SELECT t FROM %I ORDER BY t DESC', true, '{index,indexonly}'),
		('SELECT f, k FROM %I WHERE f = 500 ORDER BY f DESC, k', true, '{index,indexonly,bitmap}'),
		('SELECT f, k FROM %I WHERE f > 990 ORDER BY f, k DESC', true, '{index,indexonly,bitmap}'),
		('SELECT min(k), max(k), min(t), max(t) FROM %I', true, '{index,indexonly}')
	LOOP
		IF NOT vacuumed THEN
			m := array_remove(m, 'indexonly');
		END IF;
		query := q;
		result := ei_diff('dm', q, o, m);
		RETURN NEXT;
	END LOOP;
END
$fn$;
SELECT * FROM dm_queries();

-- where the rows deleted below live now
CREATE TABLE dm_tids AS SELECT id, ctid AS old_tid FROM dm_ei WHERE id % 3 = 0;

-- 1. delete a third of the rows; scans before VACUUM see dead tuples (and
-- may mark their entries LP_DEAD), then VACUUM removes the entries
SELECT ei_exec('dm', 'DELETE FROM %I WHERE id %% 3 = 0');
SELECT * FROM dm_queries(false);
SELECT ei_check_all('dm');
VACUUM dm_seq, dm_bt, dm_ei;
SELECT entries = (SELECT count(*) FROM dm_ei) AS entries_match, dead_entries = 0 AS no_dead
FROM elastic_index_stats('dm_ei_k');
SELECT * FROM dm_queries();
SELECT ei_check_all('dm');

-- 2. re-insert the deleted rows in their original order: VACUUM freed
-- their heap line pointers, so most get their old heap TIDs back, with the
-- same keys; an entry may then equal the high key copied from it by an
-- earlier split, and must still go to the right of that high key
SELECT ei_exec('dm', 'INSERT INTO %I SELECT * FROM dm_src WHERE id %% 3 = 0 ORDER BY id');
SELECT count(*) FILTER (WHERE e.ctid = t.old_tid) > 100 AS tids_reused
FROM dm_ei AS e JOIN dm_tids AS t USING (id);
SELECT ei_check_all('dm');
SELECT * FROM dm_queries(false);

-- 3. update keys (new entries), update other columns (HOT), and abort an
-- insert
SELECT ei_exec('dm', 'DELETE FROM %I WHERE id %% 3 = 0 AND id %% 2 = 1');
SELECT ei_exec('dm', 'UPDATE %I SET k = k + 1 WHERE id %% 5 = 0');
SELECT ei_exec('dm', 'UPDATE %I SET pad = ''hot'' WHERE id %% 7 = 0');
BEGIN;
SELECT ei_exec('dm', 'INSERT INTO %I SELECT id + 100000, k, t, f, pad FROM dm_src WHERE id %% 4 = 0');
ROLLBACK;
SELECT * FROM dm_queries(false);
SELECT ei_check_all('dm');
VACUUM dm_seq, dm_bt, dm_ei;
SELECT entries = (SELECT count(*) FROM dm_ei) AS entries_match, dead_entries = 0 AS no_dead
FROM elastic_index_stats('dm_ei_k');
SELECT * FROM dm_queries();
SELECT ei_check_all('dm');

-- 4. empty a whole key range (entire leaves), VACUUM, then fill it again
SELECT ei_exec('dm', 'DELETE FROM %I WHERE k BETWEEN 5000 AND 12000');
VACUUM dm_seq, dm_bt, dm_ei;
SELECT ei_diff('dm', 'SELECT k FROM %I WHERE k BETWEEN 4900 AND 12100 ORDER BY k', true);
SELECT ei_diff('dm', 'SELECT k FROM %I WHERE k BETWEEN 4900 AND 12100 ORDER BY k DESC', true);
SELECT ei_check_all('dm');
SELECT ei_exec('dm', 'INSERT INTO %I SELECT id + 200000, k, t, f, pad FROM dm_src WHERE k BETWEEN 5000 AND 12000');
VACUUM ANALYZE dm_seq, dm_bt, dm_ei;
SELECT * FROM dm_queries();
SELECT ei_check_all('dm');

-- 5. delete every row: no entries are left
SELECT ei_exec('dm', 'DELETE FROM %I');
VACUUM dm_seq, dm_bt, dm_ei;
SELECT entries, dead_entries FROM elastic_index_stats('dm_ei_k');
SELECT * FROM dm_queries(false);
SELECT ei_check_all('dm');
SELECT ei_exec('dm', 'INSERT INTO %I SELECT * FROM dm_src');
VACUUM ANALYZE dm_seq, dm_bt, dm_ei;
SELECT * FROM dm_queries();
SELECT ei_check_all('dm');

-- 6. TRUNCATE gives fresh, empty indexes
SELECT ei_exec('dm', 'TRUNCATE %I');
SELECT height, entries, leaf_pages FROM elastic_index_stats('dm_ei_k');
SELECT ei_check_all('dm');
SELECT ei_exec('dm', 'INSERT INTO %I SELECT * FROM dm_src WHERE id <= 14000');
VACUUM ANALYZE dm_seq, dm_bt, dm_ei;
SELECT * FROM dm_queries();
SELECT ei_check_all('dm');

-- 7. CLUSTER reads the table through an elastic_btree index
CLUSTER dm_ei USING dm_ei_k;
SELECT bool_and(k >= prev) AS heap_in_index_order
FROM (SELECT k, lag(k) OVER (ORDER BY ctid) AS prev FROM dm_ei) AS s
WHERE k IS NOT NULL AND prev IS NOT NULL;
SELECT indisclustered FROM pg_index WHERE indexrelid = 'dm_ei_k'::regclass;
VACUUM ANALYZE dm_ei;
SELECT * FROM dm_queries();
SELECT ei_check_all('dm');

-- 8. VACUUM FULL and REINDEX TABLE rebuild every index
VACUUM FULL dm_ei;
VACUUM ANALYZE dm_ei;
SELECT ei_check_all('dm');
REINDEX TABLE dm_ei;
SELECT ei_check_all('dm');
SELECT * FROM dm_queries();

-- 9. more changes after the rebuild
SELECT ei_exec('dm', 'UPDATE %I SET t = t || ''x'' WHERE id %% 11 = 0');
SELECT ei_exec('dm', 'DELETE FROM %I WHERE id %% 13 = 0');
SELECT ei_exec('dm', 'INSERT INTO %I SELECT * FROM dm_src WHERE id > 14000 AND id %% 2 = 1');
VACUUM ANALYZE dm_seq, dm_bt, dm_ei;
SELECT * FROM dm_queries();
SELECT ei_check_all('dm');

-- clean up
SET client_min_messages = warning;
DROP SCHEMA ei_dml CASCADE;
-- the next file creates the extension afresh
DROP EXTENSION elastic_index CASCADE;
RESET client_min_messages;
RESET search_path;
