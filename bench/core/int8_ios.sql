-- bench/core/int8_ios.sql: the same 100-row range, reading only the key
-- (an Index Only Scan once VACUUM has set the visibility map).
\set a 2 * random(1, :nrows - 99)
\set b :a + 198
SELECT sum(k) FROM @TABLE@ WHERE k BETWEEN :a AND :b;
