-- Many sorted streams: an index on (device_id, ts) with many devices, each
-- appending in ts order, the rows interleaved across devices.  Every
-- device's new entries land at the end of its key range, in the middle of
-- a leaf, before the next device's items; split there half and half (or by
-- the split factor), the leaves end about 60% full.  The split rules for
-- streams (src/core/insert.c, ei_find_split_loc; src/README.md, "Many
-- sorted streams") split between two devices instead, so that a device's
-- later entries land at the end of a leaf of its own, which fills to the
-- fill factor as at the right edge.
CREATE EXTENSION IF NOT EXISTS elastic_index;

-- 100 devices x 1500 rows, in 30 transactions of 5000 rows (50 per
-- device): osm_tree applies each as one sorted batch, elastic_btree takes
-- the rows one at a time
CREATE TABLE ms (device_id int4, ts int8) WITH (autovacuum_enabled = off);
CREATE INDEX ms_osm ON ms USING osm_tree (device_id, ts) WITH (batch_size = 5000);
CREATE INDEX ms_ei ON ms USING elastic_btree (device_id, ts);
CREATE INDEX ms_bt ON ms USING btree (device_id, ts);
DO $$
BEGIN
	FOR b IN 0..29 LOOP
		INSERT INTO ms
			SELECT g % 100, 1000000 + g / 100
			FROM generate_series(b * 5000, b * 5000 + 4999) AS g;
		COMMIT;
	END LOOP;
END
$$;

-- leaves packed above 75% (about 60% and 55% without the stream rules)
SELECT s.leaf_fill > 75 AS osm_leaves_packed, s.entries
	FROM elastic_index_stats('ms_osm') AS s;
SELECT s.leaf_fill > 75 AS elastic_leaves_packed, s.entries
	FROM elastic_index_stats('ms_ei') AS s;

-- every entry is where it belongs
SELECT elastic_index_check('ms_osm', true);
SELECT elastic_index_check('ms_ei', true);

-- The same queries through each index and by a sequential scan: per-device
-- ranges, the latest rows of some devices, = ANY on the device.
CREATE FUNCTION ms_answers() RETURNS TABLE (query text, answer text)
LANGUAGE sql AS $$
	SELECT 'range', md5(string_agg(device_id || ':' || ts, ',' ORDER BY device_id, ts))
		FROM ms WHERE device_id BETWEEN 10 AND 12 AND ts >= 1000100 AND ts < 1001200
	UNION ALL
	SELECT 'latest', string_agg(x.device_id || ':' || x.ts, ',')
		FROM generate_series(0, 99, 33) AS d,
			 LATERAL (SELECT device_id, ts FROM ms WHERE device_id = d
					  ORDER BY ts DESC LIMIT 3) AS x
	UNION ALL
	SELECT 'any', count(*) || ' ' || sum(ts)
		FROM ms WHERE device_id = ANY ('{3,17,42,99}') AND ts > 1001000
	UNION ALL
	SELECT 'all', count(*) || ' ' || sum(ts) || ' ' || sum(device_id)
		FROM ms WHERE device_id >= 0
$$;
SET enable_indexscan = off;
SET enable_bitmapscan = off;
SET enable_indexonlyscan = off;
CREATE TABLE ms_seq AS SELECT * FROM ms_answers();
RESET enable_indexscan;
RESET enable_bitmapscan;
RESET enable_indexonlyscan;
SELECT * FROM ms_seq ORDER BY query;

SET enable_seqscan = off;
SET enable_bitmapscan = off;
BEGIN;
DROP INDEX ms_ei, ms_bt;
EXPLAIN (COSTS OFF)
	SELECT ts FROM ms WHERE device_id = 42 ORDER BY ts DESC LIMIT 3;
SELECT a.query, a.answer = s.answer AS osm_same
	FROM ms_answers() AS a JOIN ms_seq AS s USING (query) ORDER BY query;
ROLLBACK;
BEGIN;
DROP INDEX ms_osm, ms_bt;
EXPLAIN (COSTS OFF)
	SELECT ts FROM ms WHERE device_id = 42 ORDER BY ts DESC LIMIT 3;
SELECT a.query, a.answer = s.answer AS elastic_same
	FROM ms_answers() AS a JOIN ms_seq AS s USING (query) ORDER BY query;
ROLLBACK;
BEGIN;
DROP INDEX ms_osm, ms_ei;
SELECT a.query, a.answer = s.answer AS btree_same
	FROM ms_answers() AS a JOIN ms_seq AS s USING (query) ORDER BY query;
ROLLBACK;
RESET enable_seqscan;
RESET enable_bitmapscan;

-- A run of a new first-column value past a leaf's last item, as a
-- backfill into a gap of an index on (ts, id) makes it, is an ascending run
-- that fills leaves to the fill factor: the rule for many streams applies
-- only when the leaf ends with the new entry's own stream.
CREATE TABLE gap (ts int8, id int4) WITH (autovacuum_enabled = off);
CREATE INDEX gap_e ON gap USING elastic_btree (ts, id);
INSERT INTO gap SELECT g, g % 1000 FROM generate_series(1, 1000) AS g;
INSERT INTO gap SELECT g, g % 1000 FROM generate_series(10000000, 10001000) AS g;
INSERT INTO gap SELECT 1000 + g, g % 1000 FROM generate_series(1, 50000) AS g;
SELECT s.leaf_fill > 80 AS gap_leaves_packed FROM elastic_index_stats('gap_e') AS s;
SELECT elastic_index_check('gap_e', true);
DROP TABLE gap;

DROP TABLE ms, ms_seq;
DROP FUNCTION ms_answers();
-- the next file creates the extension afresh
DROP EXTENSION elastic_index CASCADE;
