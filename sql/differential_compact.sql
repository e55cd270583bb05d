CREATE EXTENSION IF NOT EXISTS elastic_index;
-- everything this file creates lives in its own schema
SET client_min_messages = warning;
DROP SCHEMA IF EXISTS ei_cmp CASCADE;
CREATE SCHEMA ei_cmp;
SET search_path = ei_cmp, public;
RESET client_min_messages;
\i test/sql/differential_harness.sql
--
-- Compact leaves in the tree (src/README.md, "Compact leaves in the
-- tree"): every elastic_btree index is forced fully compact with
-- elastic_btree_shrink, then the data changes as in differential_dml:
-- inserts into compact leaves (and their splits), deletes with and without
-- VACUUM, heap TIDs reused after VACUUM, key updates, HOT updates made
-- before CREATE INDEX and after, an aborted insert, then expansion back to
-- standard leaves and shrinking again.  After each phase the three tables
-- must answer alike and every index must pass elastic_index_check, which
-- checks each compact leaf's SeqTree against the keys in the heap.
--
SELECT setseed(0.3);
CREATE TABLE cp_src AS
WITH r AS MATERIALIZED (
	SELECT g AS id, random() AS r0, random() AS r1, random() AS r2, random() AS r3
	FROM generate_series(1, 20000) AS g)
SELECT id,
	CASE WHEN r0 < 0.02 THEN NULL ELSE floor(r1 * 20000)::int4 END AS k,
	round(r3 * 1000)::float8 AS f,
	md5(floor(r2 * 8000)::text)::uuid AS u,
	timestamp '2026-01-01' + floor(r2 * 100000) * interval '1 minute' AS ts,
	'pad' AS pad
FROM r;
SELECT ei_setup('cp', 'cp_src', 10000);
-- HOT updates before the indexes exist: their entries point to chain roots
SELECT ei_exec('cp', 'UPDATE %I SET pad = ''hot0'' WHERE id %% 9 = 0');
SELECT ei_index('cp', 'k', '(k)');
SELECT ei_index('cp', 'fk', '(f DESC, k)');
SELECT ei_index('cp', 'u', '(u)');
SELECT ei_index('cp', 'ts', '(ts DESC NULLS LAST)');
VACUUM ANALYZE cp_seq, cp_bt, cp_ei;

-- make every leaf of every elastic_btree index compact
CREATE FUNCTION cp_shrink() RETURNS text
LANGUAGE sql AS $fn$
	SELECT string_agg(format('%s:%s', c.relname,
							 elastic_btree_shrink(c.oid) >= 0), ' ' ORDER BY c.relname)
	FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
	WHERE i.indrelid = 'cp_ei'::regclass
$fn$;
-- every leaf of every index compact (true), or none (false)?
CREATE FUNCTION cp_all_compact(expect bool) RETURNS bool
LANGUAGE sql AS $fn$
	SELECT bool_and(CASE WHEN expect THEN s.compact_leaf_pages = s.leaf_pages
						 ELSE s.compact_leaf_pages = 0 END)
	FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid,
		 LATERAL elastic_index_stats(c.oid) AS s
	WHERE i.indrelid = 'cp_ei'::regclass
$fn$;
SELECT cp_shrink();
SELECT cp_all_compact(true);
SELECT elastic_state, compact_leaf_pages > 1 AS several, entries = 10000 AS entries_ok
FROM elastic_index_stats('cp_ei_k');
SELECT ei_check_all('cp');

-- the queries run after every phase
CREATE OR REPLACE FUNCTION cp_queries(vacuumed bool DEFAULT true)
RETURNS TABLE (query text, result text)
LANGUAGE plpgsql AS $fn$
DECLARE
	q			text;
	o			bool;
	m			text[];
BEGIN
	FOR q, o, m IN VALUES
		('SELECT id, k FROM %I WHERE k < 1000', false, '{index,bitmap}'::text[]),
		('SELECT id FROM %I WHERE k = 777', false, '{index,bitmap}'),
		('SELECT id FROM %I WHERE k = 777::int8', false, '{index,bitmap}'),
		('SELECT k FROM %I WHERE k > 19000::int2 ORDER BY k DESC', true, '{index,indexonly,bitmap}'),
		('SELECT k FROM %I WHERE k >= 5000 AND k < 5400 ORDER BY k', true, '{index,indexonly}'),
		('SELECT k FROM %I ORDER BY k', true, '{index,indexonly}'),
		('SELECT count(*) FROM %I WHERE k IS NULL', false, '{indexonly,bitmap}'),
		('SELECT f, k FROM %I WHERE f = 500 ORDER BY f DESC, k', true, '{index,indexonly,bitmap}'),
		('SELECT f, k FROM %I WHERE f > 990 ORDER BY f, k DESC', true, '{index,indexonly,bitmap}'),
		('SELECT f, k FROM %I WHERE f BETWEEN 100 AND 120 AND k < 3000 ORDER BY f DESC, k', true, '{index,indexonly}'),
		('SELECT u FROM %I WHERE u < ''10000000-0000-0000-0000-000000000000'' ORDER BY u', true, '{index,indexonly,bitmap}'),
		('SELECT id, u FROM %I WHERE u = ''c4ca4238-a0b9-2382-0dcc-509a6f75849b''', false, '{index,bitmap}'),
		('SELECT ts FROM %I WHERE ts > ''2026-02-01'' ORDER BY ts DESC NULLS LAST', true, '{index,indexonly}'),
		('SELECT min(k), max(k), min(ts), max(ts) FROM %I', true, '{index,indexonly}')
	LOOP
		IF NOT vacuumed THEN
			m := array_remove(m, 'indexonly');
		END IF;
		query := q;
		result := ei_diff('cp', q, o, m);
		RETURN NEXT;
	END LOOP;
END
$fn$;
SELECT * FROM cp_queries();

-- 1. insert the other half: entries go into compact leaves, which split
SELECT ei_exec('cp', 'INSERT INTO %I SELECT * FROM cp_src WHERE id > 10000 ORDER BY id');
VACUUM ANALYZE cp_seq, cp_bt, cp_ei;
SELECT cp_all_compact(true);
-- the compact leaves took the new entries with few splits
SELECT s.total_pages < 0.6 * b.relpages AS compact_is_denser
FROM elastic_index_stats('cp_ei_k') AS s, pg_class AS b
WHERE b.relname = 'cp_bt_k';
SELECT * FROM cp_queries();
SELECT ei_check_all('cp');

-- 2. delete a third; scans see dead tuples until VACUUM removes the entries
CREATE TABLE cp_tids AS SELECT id, ctid AS old_tid FROM cp_ei WHERE id % 3 = 0;
SELECT ei_exec('cp', 'DELETE FROM %I WHERE id %% 3 = 0');
SELECT * FROM cp_queries(false);
SELECT ei_check_all('cp');
VACUUM cp_seq, cp_bt, cp_ei;
SELECT entries = (SELECT count(*) FROM cp_ei) AS entries_match FROM elastic_index_stats('cp_ei_k');
SELECT * FROM cp_queries();
SELECT ei_check_all('cp');

-- 3. re-insert them: most get their old heap TIDs back, with the same keys
SELECT ei_exec('cp', 'INSERT INTO %I SELECT * FROM cp_src WHERE id %% 3 = 0 ORDER BY id');
SELECT count(*) FILTER (WHERE e.ctid = t.old_tid) > 100 AS tids_reused
FROM cp_ei AS e JOIN cp_tids AS t USING (id);
SELECT ei_check_all('cp');
SELECT * FROM cp_queries(false);

-- 4. key updates (new entries), HOT updates, an aborted insert
SELECT ei_exec('cp', 'UPDATE %I SET k = k + 1 WHERE id %% 5 = 0');
SELECT ei_exec('cp', 'UPDATE %I SET pad = ''hot'' WHERE id %% 7 = 0');
BEGIN;
SELECT ei_exec('cp', 'INSERT INTO %I SELECT id + 100000, k, f, u, ts, pad FROM cp_src WHERE id %% 4 = 0');
ROLLBACK;
SELECT * FROM cp_queries(false);
SELECT ei_check_all('cp');
VACUUM cp_seq, cp_bt, cp_ei;
SELECT * FROM cp_queries();
SELECT ei_check_all('cp');

-- 5. empty a key range (whole compact leaves), VACUUM, fill it again
SELECT ei_exec('cp', 'DELETE FROM %I WHERE k BETWEEN 5000 AND 12000');
VACUUM cp_seq, cp_bt, cp_ei;
SELECT ei_diff('cp', 'SELECT k FROM %I WHERE k BETWEEN 4900 AND 12100 ORDER BY k', true);
SELECT ei_diff('cp', 'SELECT k FROM %I WHERE k BETWEEN 4900 AND 12100 ORDER BY k DESC', true);
SELECT ei_check_all('cp');
SELECT ei_exec('cp', 'INSERT INTO %I SELECT id + 200000, k, f, u, ts, pad FROM cp_src WHERE k BETWEEN 5000 AND 12000');
VACUUM ANALYZE cp_seq, cp_bt, cp_ei;
SELECT * FROM cp_queries();
SELECT ei_check_all('cp');

-- 6. expand every index back to standard leaves, then shrink again
SELECT c.relname, elastic_btree_expand(c.oid) > 0 AS expanded
FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
WHERE i.indrelid = 'cp_ei'::regclass ORDER BY c.relname;
SELECT cp_all_compact(false);
SELECT elastic_state FROM elastic_index_stats('cp_ei_k');
SELECT * FROM cp_queries();
SELECT ei_check_all('cp');
SELECT cp_shrink();
SELECT ei_exec('cp', 'UPDATE %I SET k = k - 1 WHERE id %% 5 = 0');
VACUUM ANALYZE cp_seq, cp_bt, cp_ei;
SELECT * FROM cp_queries();
SELECT ei_check_all('cp');

-- 7. entries whose heap items were pruned but are still indexed (what a
-- hot standby meets between the primary's pruning and its VACUUM): a scan
-- whose SeqTree candidate is such an entry lets another entry of the same
-- subtree stand in for it, so it rechecks (almost) no extra row.  Every
-- even key's first row is deleted and inserted again at a new TID; VACUUM
-- without index cleanup leaves its old entry pointing to an LP_DEAD item.
CREATE TABLE cp_dead (k int8, pad text) WITH (autovacuum_enabled = off);
INSERT INTO cp_dead SELECT g, 'old' FROM generate_series(1, 20000) AS g;
CREATE INDEX cp_dead_k ON cp_dead USING elastic_btree (k);
SELECT elastic_btree_shrink('cp_dead_k') > 0 AS shrunk;
DELETE FROM cp_dead WHERE k % 2 = 0;
INSERT INTO cp_dead SELECT g, 'new' FROM generate_series(2, 20000, 2) AS g;
VACUUM (INDEX_CLEANUP OFF) cp_dead;
SELECT compact_leaf_pages = leaf_pages AS all_compact, entries
FROM elastic_index_stats('cp_dead_k');
-- rows the executor removed on recheck (a compact leaf's rows all carry
-- xs_recheck) while running query q through the index
CREATE FUNCTION cp_rechecked(q text) RETURNS int8 LANGUAGE plpgsql AS $$
DECLARE
	plan jsonb;
BEGIN
	PERFORM set_config('enable_seqscan', 'off', true);
	PERFORM set_config('enable_bitmapscan', 'off', true);
	EXECUTE 'EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF, FORMAT JSON) ' || q
		INTO plan;
	RETURN (SELECT coalesce(sum(v::text::int8), 0)
			FROM jsonb_path_query(plan, 'strict $.**."Rows Removed by Index Recheck"') AS v);
END;
$$;
-- point lookups of 200 re-inserted keys and of 200 others; ranges.  (A
-- point lookup takes its key's run of entries by bits[] alone; a key that
-- begins a leaf is looked for on the leaf before it too, where the run is
-- another key's, and its row is rechecked: one of the 200 others, 367.)
SELECT sum(cp_rechecked(format('SELECT pad FROM cp_dead WHERE k = %s', g))) AS rechecked
FROM generate_series(2, 400, 2) AS g;
SELECT sum(cp_rechecked(format('SELECT pad FROM cp_dead WHERE k = %s', g))) AS rechecked
FROM generate_series(1, 399, 2) AS g;
SELECT cp_rechecked('SELECT count(*) FROM cp_dead WHERE k BETWEEN 1000 AND 1999') <= 2 AS few,
	cp_rechecked('SELECT k FROM cp_dead WHERE k > 5000 AND k <= 5100 ORDER BY k DESC') <= 2 AS few_backward;
-- and the rows are right: through the index, as an index-only scan, and
-- by a sequential scan
SET enable_seqscan = off;
SET enable_bitmapscan = off;
SELECT count(*), sum(k), count(*) FILTER (WHERE pad = 'new') AS new
FROM cp_dead WHERE k BETWEEN 1000 AND 2999;
SELECT count(*), sum(k) FROM (SELECT k FROM cp_dead WHERE k BETWEEN 1000 AND 2999) AS s;
SELECT array_agg(pad ORDER BY k) FROM cp_dead WHERE k IN (2, 3, 4000, 19999, 20000);
RESET enable_seqscan;
RESET enable_bitmapscan;
SET enable_indexscan = off;
SET enable_indexonlyscan = off;
SET enable_bitmapscan = off;
SELECT count(*), sum(k), count(*) FILTER (WHERE pad = 'new') AS new
FROM cp_dead WHERE k BETWEEN 1000 AND 2999;
SELECT array_agg(pad ORDER BY k) FROM cp_dead WHERE k IN (2, 3, 4000, 19999, 20000);
RESET enable_indexscan;
RESET enable_indexonlyscan;
RESET enable_bitmapscan;
SELECT elastic_index_check('cp_dead_k', true);

-- errors
SELECT elastic_btree_shrink('cp_bt_k');
CREATE INDEX cp_ei_pad ON cp_ei USING elastic_btree (lower(pad));
SELECT elastic_btree_shrink('cp_ei_pad');
SELECT elastic_btree_shrink('cp_ei_k', -1);
CREATE INDEX cp_bad ON cp_ei USING elastic_btree (k) WITH (size_bound = 'lots');
CREATE INDEX cp_bad ON cp_ei USING elastic_btree (k) WITH (size_bound = '0%');
SET elastic_btree.size_bound = 'lots';
SET elastic_btree.shrink_threshold = 2;

-- clean up
SET client_min_messages = warning;
DROP SCHEMA ei_cmp CASCADE;
-- the next file creates the extension afresh
DROP EXTENSION elastic_index CASCADE;
RESET client_min_messages;
RESET search_path;
