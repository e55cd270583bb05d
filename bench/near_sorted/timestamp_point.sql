-- bench/near_sorted/timestamp_point.sql: point lookup of one timestamp key.
-- Key k is 2000-01-01 plus k seconds, k in 1..:rows (pgbench -D rows=N).
\set k random(1, :rows)
SELECT count(*) FROM t WHERE key = timestamp '2000-01-01' + :k * interval '1 second';
