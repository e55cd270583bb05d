-- bench/core/text_point.sql: point lookup of an existing 30-byte text key.
-- Row i has the key substr(md5(i::text), 1, 30), i = 1 .. nrows.
\set i random(1, :nrows)
SELECT v FROM @TABLE@ WHERE k = substr(md5(:i::text), 1, 30);
