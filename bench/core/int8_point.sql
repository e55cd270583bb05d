-- bench/core/int8_point.sql: point lookup of an existing int8 key.
-- @TABLE@ is replaced by run.sh; :nrows is passed with pgbench -D.
-- The table holds the keys 2, 4, ..., 2 * nrows (in random heap order).
\set k 2 * random(1, :nrows)
SELECT v FROM @TABLE@ WHERE k = :k;
