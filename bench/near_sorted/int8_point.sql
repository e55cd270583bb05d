-- bench/near_sorted/int8_point.sql: point lookup of one int8 key.
-- The keys are 1..:rows (pgbench -D rows=N).
\set k random(1, :rows)
SELECT count(*) FROM t WHERE key = :k;
