-- bench/core/int8_range.sql: 100-row range scan with heap access.
-- The keys are 2, 4, ..., 2 * nrows, so [a, a + 198] holds exactly 100 rows.
\set a 2 * random(1, :nrows - 99)
\set b :a + 198
SELECT sum(v) FROM @TABLE@ WHERE k BETWEEN :a AND :b;
