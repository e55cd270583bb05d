-- Redistribution between sibling leaves (src/README.md): with the
-- redistribute_leaves storage parameter, a full osm_tree leaf gives its last
-- entries to its right sibling before it splits, and when that sibling is
-- full too the two become three.  Where every leaf holds the growing ends of
-- several sorted streams (here 400 devices of 60 rows, fewer than a leaf
-- holds), no split rule keeps leaves fuller than about 69%; shifts do.
CREATE EXTENSION IF NOT EXISTS elastic_index;

CREATE TABLE rs (device_id int4, ts int8) WITH (autovacuum_enabled = off);
CREATE INDEX rs_on ON rs USING osm_tree (device_id, ts)
	WITH (batch_size = 2000, redistribute_leaves = on);
CREATE INDEX rs_off ON rs USING osm_tree (device_id, ts) WITH (batch_size = 2000);
CREATE INDEX rs_bt ON rs USING btree (device_id, ts);
SELECT c.relname, c.reloptions FROM pg_class AS c
	WHERE c.relname IN ('rs_on', 'rs_off') ORDER BY c.relname;

-- 400 devices x 60 rows, interleaved, in 12 transactions of 2000 rows
DO $$
BEGIN
	FOR b IN 0..11 LOOP
		INSERT INTO rs
			SELECT g % 400, 1000000 + g / 400
			FROM generate_series(b * 2000, b * 2000 + 1999) AS g;
		COMMIT;
	END LOOP;
END
$$;

-- fuller leaves, fewer of them (77% against 66% when this was written)
SELECT n.leaf_fill > f.leaf_fill + 8 AS fuller, n.leaf_pages < f.leaf_pages AS fewer_leaves,
	   n.leaf_fill > 72 AS packed, n.entries, f.entries AS entries_without
	FROM elastic_index_stats('rs_on') AS n, elastic_index_stats('rs_off') AS f;
SELECT elastic_index_check('rs_on', true);

-- The same queries through each index and by a sequential scan: ranges of
-- a few devices, the latest rows of some (backward scans), = ANY, every
-- row forward and backward.
CREATE FUNCTION rs_answers() RETURNS TABLE (query text, answer text)
LANGUAGE sql AS $$
	SELECT 'range', md5(string_agg(device_id || ':' || ts, ',' ORDER BY device_id, ts))
		FROM rs WHERE device_id BETWEEN 10 AND 14 AND ts >= 1000010 AND ts < 1000050
	UNION ALL
	SELECT 'latest', string_agg(x.device_id || ':' || x.ts, ',')
		FROM generate_series(0, 399, 57) AS d,
			 LATERAL (SELECT device_id, ts FROM rs WHERE device_id = d
					  ORDER BY ts DESC LIMIT 3) AS x
	UNION ALL
	SELECT 'any', count(*) || ' ' || sum(ts)
		FROM rs WHERE device_id = ANY ('{3,17,42,399}') AND ts > 1000030
	UNION ALL
	SELECT 'forward', md5(string_agg(device_id || ':' || ts, ','))
		FROM (SELECT device_id, ts FROM rs WHERE device_id >= 0
			  ORDER BY device_id, ts) AS x
	UNION ALL
	SELECT 'backward', md5(string_agg(device_id || ':' || ts, ','))
		FROM (SELECT device_id, ts FROM rs WHERE device_id >= 0
			  ORDER BY device_id DESC, ts DESC) AS x
$$;
CREATE FUNCTION rs_compare(label text) RETURNS TABLE (query text, same bool)
LANGUAGE plpgsql AS $$
BEGIN
	SET LOCAL enable_indexscan = off;
	SET LOCAL enable_bitmapscan = off;
	SET LOCAL enable_indexonlyscan = off;
	CREATE TEMP TABLE rs_seq AS SELECT * FROM rs_answers();
	SET LOCAL enable_indexscan = on;
	SET LOCAL enable_indexonlyscan = on;
	SET LOCAL enable_seqscan = off;
	SET LOCAL enable_sort = off;
	RETURN QUERY SELECT label || ' ' || a.query, a.answer = s.answer
		FROM rs_answers() AS a JOIN rs_seq AS s USING (query) ORDER BY a.query;
	DROP TABLE rs_seq;
END
$$;

BEGIN;
DROP INDEX rs_off, rs_bt;
SELECT * FROM rs_compare('shifted');
ROLLBACK;
BEGIN;
DROP INDEX rs_on, rs_bt;
SELECT * FROM rs_compare('split only');
ROLLBACK;
BEGIN;
DROP INDEX rs_on, rs_off;
SELECT * FROM rs_compare('btree');
ROLLBACK;

-- Churn: delete a third of every device's rows, VACUUM, and load more rows
-- into the leaves that have room again; then again the same answers.
DELETE FROM rs WHERE ts % 3 = 0;
VACUUM rs;
DO $$
BEGIN
	FOR b IN 12..17 LOOP
		INSERT INTO rs
			SELECT g % 400, 1000000 + g / 400
			FROM generate_series(b * 2000, b * 2000 + 1999) AS g;
		COMMIT;
	END LOOP;
END
$$;
SELECT elastic_index_check('rs_on', true);
BEGIN;
DROP INDEX rs_off, rs_bt;
SELECT * FROM rs_compare('after churn, shifted');
ROLLBACK;
BEGIN;
DROP INDEX rs_on, rs_off;
SELECT * FROM rs_compare('after churn, btree');
ROLLBACK;

-- With posting lists: four rows per (device, ts), so the moved items are
-- posting lists (whole: a shift moves items, never part of one).
CREATE TABLE rd (device_id int4, ts int8) WITH (autovacuum_enabled = off);
CREATE INDEX rd_on ON rd USING osm_tree (device_id, ts)
	WITH (batch_size = 3000, redistribute_leaves = on, deduplicate_items = on);
CREATE INDEX rd_off ON rd USING osm_tree (device_id, ts)
	WITH (batch_size = 3000, deduplicate_items = on);
DO $$
BEGIN
	FOR b IN 0..9 LOOP
		INSERT INTO rd
			SELECT g % 300, (g / 300) / 4
			FROM generate_series(b * 3000, b * 3000 + 2999) AS g;
		COMMIT;
	END LOOP;
END
$$;
SELECT n.leaf_pages < f.leaf_pages AS fewer_leaves
	FROM elastic_index_stats('rd_on') AS n, elastic_index_stats('rd_off') AS f;
SELECT elastic_index_check('rd_on', true);
DROP INDEX rd_off;
SET enable_seqscan = off;
SET enable_bitmapscan = off;
SELECT count(*), sum(ts), count(DISTINCT (device_id, ts)) FROM rd WHERE device_id >= 0;
SELECT count(*), sum(ts) FROM (SELECT * FROM rd WHERE device_id >= 0
							   ORDER BY device_id DESC, ts DESC) AS x;
RESET enable_seqscan;
RESET enable_bitmapscan;
SELECT count(*), sum(ts), count(DISTINCT (device_id, ts)) FROM rd;

-- With compact leaves too, nothing shifts: scans skip moved entries by
-- their keys, which a compact leaf does not have.  The leaves are those of
-- an index without the parameter.
CREATE TABLE rc (device_id int4, ts int8) WITH (autovacuum_enabled = off);
CREATE INDEX rc_both ON rc USING osm_tree (device_id, ts)
	WITH (batch_size = 2000, redistribute_leaves = on, compact_leaves = on);
CREATE INDEX rc_compact ON rc USING osm_tree (device_id, ts)
	WITH (batch_size = 2000, compact_leaves = on);
DO $$
BEGIN
	FOR b IN 0..11 LOOP
		INSERT INTO rc
			SELECT g % 400, 1000000 + g / 400
			FROM generate_series(b * 2000, b * 2000 + 1999) AS g;
		COMMIT;
	END LOOP;
END
$$;
SELECT b.leaf_pages = c.leaf_pages AS same_leaves, b.compact_leaf_pages = c.compact_leaf_pages AS same_compact
	FROM elastic_index_stats('rc_both') AS b, elastic_index_stats('rc_compact') AS c;
DROP TABLE rc;

-- the parameter: a boolean of osm_tree only
CREATE INDEX rs_bad ON rs USING osm_tree (device_id) WITH (redistribute_leaves = 'maybe');
CREATE INDEX rs_bad ON rs USING elastic_btree (device_id) WITH (redistribute_leaves = on);
ALTER INDEX rs_off SET (redistribute_leaves = on);
ALTER INDEX rs_off RESET (redistribute_leaves);
-- changing it locks out every scan: a scan keeps the bounds of the leaves
-- it reads only if the index shifts entries as the scan begins
BEGIN;
ALTER INDEX rs_off SET (redistribute_leaves = on);
SELECT mode FROM pg_locks
	WHERE locktype = 'relation' AND relation = 'rs_off'::regclass
		AND pid = pg_backend_pid() AND granted
	ORDER BY mode;
ROLLBACK;

DROP TABLE rs, rd;
DROP FUNCTION rs_answers();
DROP FUNCTION rs_compare(text);
-- the next file creates the extension afresh
DROP EXTENSION elastic_index CASCADE;
