CREATE EXTENSION IF NOT EXISTS elastic_index;
--
-- The size policy on its own (src/elastic/policy.c, "Elasticity" in
-- src/README.md): an index with a size bound makes full leaves compact once
-- its file reaches shrink_threshold of the bound, stays within the bound
-- while rows keep coming, and after most rows are deleted VACUUM converts
-- its compact leaves back.  Every phase is checked with
-- elastic_index_check and against a sequential scan.
--
SET client_min_messages = warning;
DROP TABLE IF EXISTS pol;
RESET client_min_messages;

CREATE TABLE pol (id int8, k int8) WITH (autovacuum_enabled = off);
-- 1 MB = 128 pages; 0.9 of it is where shrinking starts
CREATE INDEX pol_k ON pol USING elastic_btree (k) WITH (size_bound = '1MB');
SELECT elastic_state, size_bound_pages, compact_leaf_pages FROM elastic_index_stats('pol_k');

-- the rows for every phase: scattered keys, the same for every run
CREATE FUNCTION pol_load(lo int8, hi int8) RETURNS void LANGUAGE sql AS $$
	INSERT INTO pol SELECT g, (g * 2654435761) % 1000003 FROM generate_series(lo, hi) AS g
$$;
-- the index agrees with a sequential scan, and passes the verifier
CREATE FUNCTION pol_agrees() RETURNS bool LANGUAGE plpgsql AS $$
DECLARE
	a text;
	b text;
BEGIN
	SET LOCAL enable_seqscan = off;
	SET LOCAL enable_bitmapscan = off;
	SELECT count(*) || ':' || coalesce(sum(k), 0) INTO a FROM pol WHERE k >= 1000 AND k < 900000;
	SET LOCAL enable_seqscan = on;
	SET LOCAL enable_indexscan = off;
	SET LOCAL enable_indexonlyscan = off;
	SELECT count(*) || ':' || coalesce(sum(k), 0) INTO b FROM pol WHERE k >= 1000 AND k < 900000;
	PERFORM elastic_index_check('pol_k', true);
	RETURN a = b;
END
$$;

-- 1. below the bound: a plain B+-tree
SELECT pol_load(1, 20000);
SELECT elastic_state, compact_leaf_pages FROM elastic_index_stats('pol_k');

-- 2. past 0.9 of the bound: full leaves become compact, the file stops
-- growing, and stays within the bound (+5%) as the rows double
SELECT pol_load(20001, 40000);
SELECT pol_load(40001, 80000);
SELECT elastic_state, compact_leaf_pages > 0 AS has_compact,
	   total_pages <= 1.05 * size_bound_pages AS within_bound, entries
FROM elastic_index_stats('pol_k');
SELECT leaves_made_compact > 0 AS converted, compact_inserts > 0 AS compact_inserts
FROM elastic_index_stat_activity WHERE indexrelname = 'pol_k';
SELECT pol_agrees();

-- the same rows take well over the bound in a btree, even one packed by
-- CREATE INDEX
CREATE INDEX pol_bt ON pol USING btree (k);
SELECT pg_relation_size('pol_bt') > 1.5 * 1024 * 1024 AS btree_over_the_bound;
DROP INDEX pol_bt;

-- 3. a quarter of the rows gone: in standard leaves the entries would still
-- need more than expand_threshold (0.7) of the bound, so VACUUM keeps the
-- compact leaves
DELETE FROM pol WHERE id % 4 = 0;
VACUUM pol;
SELECT elastic_state, compact_leaf_pages > 0 AS has_compact FROM elastic_index_stats('pol_k');
SELECT pol_agrees();

-- 4. most rows gone: the entries fit well under the bound in standard
-- leaves, so VACUUM converts every compact leaf back
DELETE FROM pol WHERE id % 8 <> 1;
VACUUM pol;
SELECT elastic_state, compact_leaf_pages, entries = (SELECT count(*) FROM pol) AS entries_match
FROM elastic_index_stats('pol_k');
SELECT leaves_made_standard > 0 AS expanded
FROM elastic_index_stat_activity WHERE indexrelname = 'pol_k';
SELECT pol_agrees();

-- 5. the GUC gives the bound when the reloption is unset; the reloption wins
ALTER INDEX pol_k RESET (size_bound);
SELECT size_bound_pages FROM elastic_index_stats('pol_k');
SET elastic_btree.size_bound = '2MB';
SELECT size_bound_pages FROM elastic_index_stats('pol_k');
SET elastic_btree.size_bound = '50%';
SELECT size_bound_pages = greatest(pg_relation_size('pol') / 8192 / 2, 1) AS half_of_table
FROM elastic_index_stats('pol_k');
ALTER INDEX pol_k SET (size_bound = '4MB');
SELECT size_bound_pages FROM elastic_index_stats('pol_k');
RESET elastic_btree.size_bound;

-- keys index IDX read from the heap while it looked up key K (by an index
-- scan): 0 when the leaf holding K is standard
CREATE FUNCTION pol_heap_reads(idx text, tbl text, k int8) RETURNS int8
LANGUAGE plpgsql AS $fn$
DECLARE
	before		int8;
	after		int8;
BEGIN
	SELECT heap_key_reads INTO before FROM elastic_index_stat_activity WHERE indexrelname = idx;
	SET LOCAL enable_seqscan = off;
	SET LOCAL enable_bitmapscan = off;
	EXECUTE format('SELECT count(*) FROM %I WHERE k = $1', tbl) USING k;
	SELECT heap_key_reads INTO after FROM elastic_index_stat_activity WHERE indexrelname = idx;
	RETURN after - before;
END
$fn$;

-- 6. expanding takes hot leaves first: a compact leaf a scan read since the
-- last VACUUM is converted before the others
CREATE TABLE hot (k int8) WITH (autovacuum_enabled = off);
INSERT INTO hot SELECT g FROM generate_series(1, 100000) AS g;
CREATE INDEX hot_k ON hot USING elastic_btree (k);
SELECT elastic_btree_shrink('hot_k') > 100 AS shrunk;
SET enable_seqscan = off;
SET enable_bitmapscan = off;
SELECT count(*) FROM hot WHERE k = 50000;
SELECT elastic_btree_expand('hot_k', 1) AS expanded;
SELECT elastic_state, compact_leaf_pages = leaf_pages - 1 AS one_leaf_back
FROM elastic_index_stats('hot_k');
-- the leaf holding 50000 is standard now: looking it up reads no key from
-- the heap, while a cold leaf still does
SELECT pol_heap_reads('hot_k', 'hot', 50000) AS reads_for_hot_key,
	   pol_heap_reads('hot_k', 'hot', 10000) > 0 AS cold_key_read_from_heap;
RESET enable_seqscan;
RESET enable_bitmapscan;
SELECT elastic_btree_expand('hot_k') > 100 AS rest_expanded;
SELECT elastic_state, compact_leaf_pages FROM elastic_index_stats('hot_k');
SELECT elastic_btree_expand('hot_k', -1);
SELECT elastic_btree_expand(NULL) IS NULL AS null_in_null_out;
DROP TABLE hot;

-- 7. shrinking takes cold leaves first: while the index is SHRINKING, scans
-- mark the standard leaves they read; elastic_btree_shrink with a limit
-- converts unmarked (cold) leaves first, and VACUUM converts every cold
-- leaf that is at least half full, leaving the hot ones standard
CREATE TABLE cold (k int8) WITH (autovacuum_enabled = off);
INSERT INTO cold SELECT g FROM generate_series(1, 100000) AS g;
-- built standard under a bound it fits (a build under 2MB would form
-- compact leaves at once), then the bound lowered
CREATE INDEX cold_k ON cold USING elastic_btree (k) WITH (size_bound = '4MB');
ALTER INDEX cold_k SET (size_bound = '2MB');
SELECT elastic_btree_shrink('cold_k', 0) AS converted;
SELECT elastic_state, compact_leaf_pages FROM elastic_index_stats('cold_k');
SET enable_seqscan = off;
SET enable_bitmapscan = off;
SELECT count(*) FROM cold WHERE k = 1;
SELECT count(*) FROM cold WHERE k = 50000;
SELECT elastic_btree_shrink('cold_k', 5) AS converted;
-- the leaves of keys 1 and 50000 were skipped: reading them reads no key
-- from the heap, while a converted cold leaf does
SELECT pol_heap_reads('cold_k', 'cold', 1) + pol_heap_reads('cold_k', 'cold', 50000)
	   AS reads_for_hot_keys,
	   pol_heap_reads('cold_k', 'cold', 1000) > 0 AS cold_key_read_from_heap;
-- VACUUM (still over expand_threshold of the bound) converts the other
-- cold leaves; the two hot ones stay standard, and so does the rightmost
-- leaf, less than half full (82 of 100000 entries at 366 a leaf)
VACUUM cold;
SELECT elastic_state, leaf_pages - compact_leaf_pages AS standard_leaves
FROM elastic_index_stats('cold_k');
SELECT pol_heap_reads('cold_k', 'cold', 1) + pol_heap_reads('cold_k', 'cold', 50000)
	   AS reads_for_hot_keys;
RESET enable_seqscan;
RESET enable_bitmapscan;
SELECT elastic_index_check('cold_k');
SELECT count(*) FROM cold WHERE k BETWEEN 1 AND 100000;
DROP TABLE cold;

DROP TABLE pol;
DROP FUNCTION pol_load(int8, int8);
DROP FUNCTION pol_agrees();
DROP FUNCTION pol_heap_reads(text, text, int8);

-- the next file creates the extension afresh
SET client_min_messages = warning;
DROP EXTENSION elastic_index CASCADE;
RESET client_min_messages;
