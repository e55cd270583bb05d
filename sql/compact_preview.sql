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

-- posting lists (deduplicate_items = on): every heap TID of a list is an
-- entry of the compact form, counted, checked against the heap, dropped
-- when dead and searched for one by one, as for the same data without
-- lists; a standard leaf with lists holds more entries
CREATE TABLE cp_dup (k int4, t text COLLATE "C", pad text)
	WITH (autovacuum_enabled = off);
INSERT INTO cp_dup
	SELECT g % 10, 'key ' || g % 7, repeat('x', 100) FROM generate_series(1, 20000) AS g;
CREATE INDEX cp_dup_k_lists ON cp_dup USING elastic_btree (k)
	WITH (deduplicate_items = on);
CREATE INDEX cp_dup_k_plain ON cp_dup USING elastic_btree (k) WITH (deduplicate_items = off);
CREATE INDEX cp_dup_tk_lists ON cp_dup USING elastic_btree (t DESC, k)
	WITH (deduplicate_items = on);
CREATE INDEX cp_dup_tk_plain ON cp_dup USING elastic_btree (t DESC, k) WITH (deduplicate_items = off);
DELETE FROM cp_dup WHERE (k + length(t)) % 3 = 0;
SELECT count(*) FROM cp_dup;		-- prunes the heap pages
SELECT l.entries, l.entries = p.entries AS same_entries,
	   l.leaf_pages * 2 < p.leaf_pages AS lists_fewer_leaves,
	   l.standard_capacity > 2.5 * p.standard_capacity AS lists_hold_more,
	   l.key_bytes = p.key_bytes AS same_key_bytes,
	   abs(l.compact_capacity - p.compact_capacity) < 0.2 * p.compact_capacity
		   AS near_compact_capacity,
	   l.compact_leaf_pages <= p.compact_leaf_pages + 1 AS near_compact_leaves,
	   l.verified_entries IS NULL AND p.verified_entries IS NULL AS not_verified
	FROM elastic_btree_compact_preview('cp_dup_k_lists') AS l,
		 elastic_btree_compact_preview('cp_dup_k_plain') AS p;
SELECT l.entries, l.dead_entries > 5000 AS some_dead,
	   l.verified_entries + l.dead_entries = l.entries AS all_accounted,
	   (l.entries, l.dead_entries, l.verified_entries, l.heap_key_reads) =
	   (p.entries, p.dead_entries, p.verified_entries, p.heap_key_reads) AS same_as_plain
	FROM elastic_btree_compact_preview('cp_dup_k_lists', true) AS l,
		 elastic_btree_compact_preview('cp_dup_k_plain', true) AS p;
SELECT l.entries, l.dead_entries > 5000 AS some_dead,
	   l.verified_entries + l.dead_entries = l.entries AS all_accounted, l.key_bytes,
	   (l.entries, l.dead_entries, l.verified_entries, l.heap_key_reads) =
	   (p.entries, p.dead_entries, p.verified_entries, p.heap_key_reads) AS same_as_plain,
	   l.leaf_pages * 2 < p.leaf_pages AS lists_fewer_leaves
	FROM elastic_btree_compact_preview('cp_dup_tk_lists', true) AS l,
		 elastic_btree_compact_preview('cp_dup_tk_plain', true) AS p;
-- the indexes are unchanged and still right
SELECT elastic_index_check('cp_dup_k_lists', true),
	   elastic_index_check('cp_dup_tk_lists', true);

-- indexes that cannot have compact leaves, or not yet
CREATE TABLE cp_other (t text, n numeric);
CREATE INDEX cp_other_t ON cp_other USING elastic_btree (t COLLATE "C");
CREATE INDEX cp_other_n ON cp_other USING elastic_btree (n);
SELECT * FROM elastic_btree_compact_preview('cp_other_t');
SELECT * FROM elastic_btree_compact_preview('cp_other_n');
SELECT * FROM elastic_btree_compact_preview('cp_other');

DROP TABLE cp_int8, cp_uuid, cp_hot, cp_dead, cp_dup, cp_other;
-- the next file creates the extension afresh
DROP EXTENSION elastic_index CASCADE;
