-- bench/near_sorted/timestamp_range.sql: 100-key range scan over timestamps.
-- Key k is 2000-01-01 plus k seconds, k in 1..:rows (pgbench -D rows=N).
\set k random(1, greatest(:rows - 100, 1))
SELECT count(*) FROM t
WHERE key >= timestamp '2000-01-01' + :k * interval '1 second'
	AND key < timestamp '2000-01-01' + (:k + 100) * interval '1 second';
