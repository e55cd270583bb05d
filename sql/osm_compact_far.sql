CREATE EXTENSION IF NOT EXISTS elastic_index;
SET client_min_messages = warning;
DROP SCHEMA IF EXISTS ei_osm_compact_far CASCADE;
CREATE SCHEMA ei_osm_compact_far;
SET search_path = ei_osm_compact_far, public;
RESET client_min_messages;
--
-- Compact leaves in osm_tree when rows arrive far ahead of their place
-- (src/README.md, "Compact leaves in osm_tree", "Rows far ahead"): 200k
-- int8 keys at K = 5%, L = 10% (a row moved up to 20k keys) in 8k-row
-- transactions, so that a row lands up to two and a half transactions
-- ahead, as 5M rows at K = L = 5% in 100k-row transactions do.  Compact
-- leaves are formed only from entries that fill them and arrived in their
-- order, so most rows go in through the batches' runs, and few one by one
-- into compact leaves (each with a heap read): before, leaves made compact
-- while they held the sparse early rows took most of the later rows one by
-- one.  The counters are deterministic (one session, no autovacuum).
--
SET osm_tree.flush_worker = off;
CREATE TABLE far_src AS
SELECT pos::int AS id, key AS k FROM elastic_index_near_sorted(200000, 5, 10);
CREATE TABLE far (k int8) WITH (autovacuum_enabled = off);
CREATE INDEX far_k ON far USING osm_tree (k) WITH (compact_leaves = on);
CREATE TABLE far_bt (k int8) WITH (autovacuum_enabled = off);
CREATE INDEX far_bt_k ON far_bt USING btree (k);
SELECT elastic_index_activity_reset();
DO $$
BEGIN
	FOR b IN 0..24 LOOP
		EXECUTE format('INSERT INTO far SELECT k FROM far_src WHERE id > %s AND id <= %s ORDER BY id',
					   b * 8000, (b + 1) * 8000);
		COMMIT;
	END LOOP;
END $$;
INSERT INTO far_bt SELECT k FROM far_src ORDER BY id;
-- few entries one by one into compact leaves; most through batches' runs
SELECT compact_inserts < 20000 AS few_compact_inserts,
	   batched_entries > 150000 AS most_batched
FROM elastic_index_stat_activity WHERE indexrelname = 'far_k';
-- and the index is small (0.36x btree's; about 0.55x without compact leaves)
SELECT pg_relation_size('far_k') < 0.45 * pg_relation_size('far_bt_k') AS small;
SELECT elastic_index_check('far_k', heapallindexed => true);
-- every row found, as by btree and a sequential scan
SET enable_seqscan = off;
SET enable_bitmapscan = off;
SELECT count(*), sum(k) FROM far WHERE k > 0;
SELECT count(*), sum(k) FROM far WHERE k BETWEEN 50000 AND 150000;
RESET enable_seqscan;
RESET enable_bitmapscan;
SELECT count(*), sum(k) FROM far_src WHERE k BETWEEN 50000 AND 150000;
SET client_min_messages = warning;
DROP SCHEMA ei_osm_compact_far CASCADE;
-- the next file creates the extension afresh
DROP EXTENSION elastic_index CASCADE;
RESET client_min_messages;
RESET search_path;
