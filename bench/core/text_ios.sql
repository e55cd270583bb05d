-- bench/core/text_ios.sql: the same 100-row range, reading only the key
-- (an Index Only Scan once VACUUM has set the visibility map).
\set i random(1, :nrows)
SELECT count(*) FROM (SELECT k FROM @TABLE@ WHERE k >= substr(md5(:i::text), 1, 30) ORDER BY k LIMIT 100) s;
