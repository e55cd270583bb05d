-- bench/core/text_range.sql: 100-row range scan with heap access, starting
-- at an existing key.
\set i random(1, :nrows)
SELECT sum(v) FROM (SELECT v FROM @TABLE@ WHERE k >= substr(md5(:i::text), 1, 30) ORDER BY k LIMIT 100) s;
