-- Compact leaves, converted on copies of real leaves: capacity against
-- standard leaves, keys read from the heap (HOT chains, pruned and aborted
-- rows, NULLs, several columns), and a search of the compact form for every
-- entry (elastic_btree_compact_preview(index, verify => true)).
CREATE EXTENSION IF NOT EXISTS elastic_index;

-- random int8 keys: a compact leaf must hold at least 2.7x the entries of a
-- standard one
CREATE TABLE cp_int8 (k int8, pad text) WITH (autovacuum_enabled = off);
INSERT INTO cp_int8
	SELECT (g * 2654435761) % 1000003, 'row ' || g FROM generate_series(1, 50000) AS g;
CREATE INDEX cp_int8_k ON cp_int8 USING elastic_btree (k);
SELECT leaf_pages > 100 AS many_leaves, entries, key_bytes,
	   round(standard_capacity::numeric, 1) AS standard_capacity,
	   round(compact_capacity::numeric, 1) AS compact_capacity,
	   round(capacity_ratio::numeric, 2) AS capacity_ratio,
	   capacity_ratio >= 2.7 AS ratio_at_least_2_7,
	   compact_leaf_pages * 3 < leaf_pages AS compact_needs_under_a_third,
	   dead_entries, verified_entries, heap_key_reads = 2 * entries AS two_reads_per_entry
	FROM elastic_btree_compact_preview('cp_int8_k', true);
-- without verify nothing is read from the heap
SELECT entries, verified_entries IS NULL AS not_verified
	FROM elastic_btree_compact_preview('cp_int8_k');

-- uuid keys: at least 3.5x
CREATE TABLE cp_uuid (u uuid) WITH (autovacuum_enabled = off);
INSERT INTO cp_uuid SELECT md5(g::text)::uuid FROM generate_series(1, 20000) AS g;
CREATE INDEX cp_uuid_u ON cp_uuid USING elastic_btree (u);
SELECT entries, key_bytes, round(capacity_ratio::numeric, 2) AS capacity_ratio,
	   capacity_ratio >= 3.5 AS ratio_at_least_3_5,
	   verified_entries = entries AS all_verified
	FROM elastic_btree_compact_preview('cp_uuid_u', true);

-- HOT chains: updates of a non-key column before the index exists, and
-- after it; then pruning turns chain roots into redirects.  The key is read
-- through the redirect.
CREATE TABLE cp_hot (k int4, v int4) WITH (fillfactor = 50, autovacuum_enabled = off);
INSERT INTO cp_hot SELECT g, 0 FROM generate_series(1, 5000) AS g;
UPDATE cp_hot SET v = v + 1;
UPDATE cp_hot SET v = v + 1;
CREATE INDEX cp_hot_k ON cp_hot USING elastic_btree (k DESC);
UPDATE cp_hot SET v = v + 1 WHERE k % 3 = 0;
SELECT count(*) FROM cp_hot;		-- prunes the chains
SELECT entries, dead_entries, verified_entries = entries AS all_verified
	FROM elastic_btree_compact_preview('cp_hot_k', true);

-- deleted rows pruned to LP_DEAD by a reader, and aborted inserts: their
-- entries are dead to all and dropped; the rest verify
CREATE TABLE cp_dead (k int8, d date) WITH (autovacuum_enabled = off);
INSERT INTO cp_dead SELECT g, date '2000-01-01' + g % 5000 FROM generate_series(1, 20000) AS g;
CREATE INDEX cp_dead_kd ON cp_dead USING elastic_btree (d NULLS FIRST, k DESC);
BEGIN;
INSERT INTO cp_dead SELECT g, NULL FROM generate_series(20001, 21000) AS g;
ROLLBACK;
INSERT INTO cp_dead SELECT g, NULL FROM generate_series(21001, 21500) AS g;
DELETE FROM cp_dead WHERE k % 4 = 0;
SELECT count(*) FROM cp_dead;		-- prunes the heap pages
SELECT entries, dead_entries > 0 AS some_dead,
	   verified_entries + dead_entries = entries AS all_accounted,
	   verified_entries >= 16000 AS live_rows_verified
	FROM elastic_btree_compact_preview('cp_dead_kd', true);
-- the index is unchanged and still right
SELECT elastic_index_check('cp_dead_kd', true);

-- indexes that cannot have compact leaves, or not yet
CREATE TABLE cp_other (t text, n numeric);
CREATE INDEX cp_other_t ON cp_other USING elastic_btree (t COLLATE "C");
CREATE INDEX cp_other_n ON cp_other USING elastic_btree (n);
SELECT * FROM elastic_btree_compact_preview('cp_other_t');
SELECT * FROM elastic_btree_compact_preview('cp_other_n');
SELECT * FROM elastic_btree_compact_preview('cp_other');

DROP TABLE cp_int8, cp_uuid, cp_hot, cp_dead, cp_other;
-- the next file creates the extension afresh
DROP EXTENSION elastic_index CASCADE;
