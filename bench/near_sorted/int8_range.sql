-- bench/near_sorted/int8_range.sql: 100-key range scan over int8 keys.
-- The keys are 1..:rows (pgbench -D rows=N), so [k, k + 100) holds 100.
\set k random(1, greatest(:rows - 100, 1))
SELECT count(*) FROM t WHERE key >= :k AND key < :k + 100;
