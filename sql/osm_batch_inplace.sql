--
-- osm_tree's batches go onto the leaves in place (src/core/insert.c,
-- ei_insert_run): a first pass over the unchanged leaf decides where each
-- entry goes, and the critical section adds them there.  Entries landing
-- on leaves in the middle of the tree, one or a few per leaf (the record's
-- tuples registered as they are) or many (copied into one piece), on full
-- leaves (the split path), duplicate keys, DESC and NULLS FIRST, NULLs,
-- several columns and text; an oversized entry refused in the middle of a
-- batch, the same session's next COPY; a savepoint rolled back.  Every
-- result is compared with a sequential scan, and the index is checked.
--
CREATE EXTENSION IF NOT EXISTS elastic_index;
SET osm_tree.batch_size = 64;

-- by the index and by a sequential scan: row count and an ordered digest
-- (the ORDER BY of the index's first column, rows in the index's order)
CREATE FUNCTION obi_compare(tab regclass, cond text, ord text,
							OUT same boolean, OUT nrows bigint)
LANGUAGE plpgsql AS $$
DECLARE
	by_index text;
	by_seqscan text;
BEGIN
	SET LOCAL enable_seqscan = off;
	SET LOCAL enable_bitmapscan = off;
	SET LOCAL enable_sort = off;
	EXECUTE format('SELECT md5(string_agg(t::text, %L ORDER BY %s)), count(*) FROM %s t WHERE %s',
				   ',', ord, tab, cond) INTO by_index, nrows;
	SET LOCAL enable_seqscan = on;
	SET LOCAL enable_indexscan = off;
	SET LOCAL enable_indexonlyscan = off;
	EXECUTE format('SELECT md5(string_agg(t::text, %L ORDER BY %s)) FROM %s t WHERE %s',
				   ',', ord, tab, cond) INTO by_seqscan;
	same := by_index IS NOT DISTINCT FROM by_seqscan;
END $$;

-- int8: full leaves from an ordered load, then entries between their items
CREATE TABLE obi (k int8, v int);
CREATE INDEX obi_k ON obi USING osm_tree (k) WITH (fillfactor = 100);
INSERT INTO obi SELECT g * 100, 0 FROM generate_series(1, 20000) g;
-- one entry per leaf (each visit adds one, the record takes it as it is)
INSERT INTO obi SELECT g * 100 + 1, 1 FROM generate_series(1, 20000, 500) g;
-- a few per leaf, then many per leaf (splits: the leaves were full)
INSERT INTO obi SELECT g * 100 + o, 2 FROM generate_series(1, 20000, 300) g,
	generate_series(2, 5) o;
INSERT INTO obi SELECT g * 100 + o, 3 FROM generate_series(100, 400) g,
	generate_series(10, 40) o;
-- duplicates of existing keys, and of each other within one batch
INSERT INTO obi SELECT (g % 50) * 100 + 100, 4 FROM generate_series(1, 3000) g;
-- arrival order scrambled, and the same entry's key many times over
INSERT INTO obi SELECT (hashint4(g) & 2047) * 977 + 7, 5
	FROM generate_series(1, 5000) g;
SELECT * FROM obi_compare('obi', 'k > 0', 'k, ctid');
SELECT * FROM obi_compare('obi', 'k BETWEEN 10000 AND 40001', 'k, ctid');
SELECT elastic_index_check('obi_k');

-- DESC NULLS LAST and ASC NULLS FIRST, NULLs among the entries
CREATE TABLE obd (k int4, t text);
CREATE INDEX obd_kd ON obd USING osm_tree (k DESC NULLS LAST);
CREATE INDEX obd_kn ON obd USING osm_tree (k NULLS FIRST, t);
INSERT INTO obd SELECT g * 10, 'r' || g FROM generate_series(1, 20000) g;
INSERT INTO obd SELECT CASE WHEN g % 7 = 0 THEN NULL ELSE g * 10 + g % 3 END,
	CASE WHEN g % 5 = 0 THEN NULL ELSE repeat('x', g % 37) || g END
	FROM generate_series(1, 20000, 3) g;
INSERT INTO obd SELECT NULL, 'n' || g FROM generate_series(1, 500) g;
SET enable_seqscan = off;
SET enable_bitmapscan = off;
SELECT count(*) FILTER (WHERE k IS NULL) AS nulls, count(*) AS all_rows
	FROM (SELECT k FROM obd ORDER BY k DESC NULLS LAST) s;
RESET enable_seqscan;
RESET enable_bitmapscan;
SELECT * FROM obi_compare('obd', 'k > 1000 AND k < 150000', 'k DESC, ctid');
SELECT * FROM obi_compare('obd', 'k IS NULL', 'k, t, ctid');
SELECT * FROM obi_compare('obd', 'k < 50000', 'k, t, ctid');
SELECT elastic_index_check('obd_kd'), elastic_index_check('obd_kn');

-- an oversized entry in the middle of a batch: refused with its row; the
-- batch is left whole, and the same session's next COPY goes in
CREATE TABLE obt (k text);
CREATE INDEX obt_k ON obt USING osm_tree (k);
INSERT INTO obt SELECT lpad(g::text, 8, '0') FROM generate_series(1, 2000) g;
\set VERBOSITY terse
BEGIN;
INSERT INTO obt SELECT lpad(g::text, 8, '0') || 'a' FROM generate_series(1, 100) g;
INSERT INTO obt SELECT CASE WHEN g = 50
	THEN (SELECT string_agg(md5(i::text), '') FROM generate_series(1, 150) i)
	ELSE lpad(g::text, 8, '0') || 'b' END FROM generate_series(1, 100) g;
ROLLBACK;
COPY obt FROM STDIN;
00000005c
00000500c
00000005c
00001500c
\.
SELECT count(*) FROM obt;
SELECT * FROM obi_compare('obt', 'k > ''0''', 'k, ctid');
-- the same within one transaction: the entries before the error are gone
BEGIN;
INSERT INTO obt SELECT lpad(g::text, 8, '0') || 'd' FROM generate_series(1, 100) g;
SAVEPOINT s;
INSERT INTO obt SELECT CASE WHEN g = 70
	THEN (SELECT string_agg(md5(i::text), '') FROM generate_series(1, 150) i)
	ELSE lpad(g::text, 8, '0') || 'e' END FROM generate_series(1, 100) g;
ROLLBACK TO SAVEPOINT s;
COPY obt FROM STDIN;
00000007f
00001900f
\.
COMMIT;
\set VERBOSITY default
SELECT count(*) FILTER (WHERE k LIKE '%d') AS d, count(*) FILTER (WHERE k LIKE '%e') AS e,
	count(*) FILTER (WHERE k LIKE '%f') AS f, count(*) AS all_rows FROM obt;
SELECT * FROM obi_compare('obt', 'k > ''0''', 'k, ctid');
SELECT elastic_index_check('obt_k');

-- a savepoint rolled back after its entries were applied (batch_size 64)
BEGIN;
INSERT INTO obi SELECT g * 100 + 50, 6 FROM generate_series(1, 20000, 40) g;
SAVEPOINT s;
INSERT INTO obi SELECT g * 100 + 60, 7 FROM generate_series(1, 20000, 40) g;
ROLLBACK TO SAVEPOINT s;
INSERT INTO obi SELECT g * 100 + 70, 8 FROM generate_series(1, 20000, 40) g;
COMMIT;
SELECT v, count(*) FROM obi WHERE v >= 6 GROUP BY v ORDER BY v;
SELECT * FROM obi_compare('obi', 'k > 0', 'k, ctid');
SELECT elastic_index_check('obi_k');

DROP TABLE obi, obd, obt;
DROP FUNCTION obi_compare;
RESET osm_tree.batch_size;
-- the next file creates the extension afresh
DROP EXTENSION elastic_index CASCADE;
