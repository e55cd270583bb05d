--
-- osm_tree: a batch's sorted run through full leaves that hold few of its
-- neighbours (keys that arrived early, as a near-sorted load leaves them
-- past the right edge) splits each such leaf for the run at once
-- (src/core/insert.c, ei_run_split): the left half packed with the run to
-- the fill factor, the leaf's later items on a new right sibling, both
-- logged as images.  Leaves with posting lists, equal keys under
-- deduplication, or many items among the run take the ordinary path.
-- One-column integer keys are compared without a scan key
-- (EICompareEntriesFast).  Every result is compared with a sequential scan
-- and with a btree over the same rows, and every index is checked.
--
CREATE EXTENSION IF NOT EXISTS elastic_index;

-- the rows by an index scan of tab and by a sequential scan, and of
-- tab's twin by its btree: the same (count, ordered digest) three ways
CREATE FUNCTION ors_compare(tab regclass, twin regclass, cond text, ord text,
							OUT same boolean, OUT nrows bigint)
LANGUAGE plpgsql AS $$
DECLARE
	by_index text;
	by_seqscan text;
	by_btree text;
BEGIN
	SET LOCAL enable_seqscan = off;
	SET LOCAL enable_bitmapscan = off;
	SET LOCAL enable_sort = off;
	EXECUTE format('SELECT md5(string_agg(t::text, %L ORDER BY %s)), count(*) FROM %s t WHERE %s',
				   ',', ord, tab, cond) INTO by_index, nrows;
	EXECUTE format('SELECT md5(string_agg(t::text, %L ORDER BY %s)) FROM %s t WHERE %s',
				   ',', ord, twin, cond) INTO by_btree;
	SET LOCAL enable_seqscan = on;
	SET LOCAL enable_indexscan = off;
	SET LOCAL enable_indexonlyscan = off;
	EXECUTE format('SELECT md5(string_agg(t::text, %L ORDER BY %s)) FROM %s t WHERE %s',
				   ',', ord, tab, cond) INTO by_seqscan;
	same := by_index IS NOT DISTINCT FROM by_seqscan AND
		by_index IS NOT DISTINCT FROM by_btree;
END $$;

-- near-sorted int8 (5% of the rows up to 5% of N out of place) in six
-- transactions: each batch's early keys lie past the right edge, and the
-- next batch's run goes through the leaves they filled
CREATE TABLE ors (k int8, v int);
CREATE TABLE ors_twin (k int8, v int);
CREATE INDEX ors_k ON ors USING osm_tree (k);
CREATE INDEX ors_twin_k ON ors_twin (k);
CREATE TABLE ors_src AS
	SELECT pos, key FROM elastic_index_near_sorted(60000, 5, 5, 21);
INSERT INTO ors SELECT key, pos FROM ors_src WHERE pos < 10000 ORDER BY pos;
INSERT INTO ors SELECT key, pos FROM ors_src WHERE pos >= 10000 AND pos < 20000 ORDER BY pos;
INSERT INTO ors SELECT key, pos FROM ors_src WHERE pos >= 20000 AND pos < 30000 ORDER BY pos;
INSERT INTO ors SELECT key, pos FROM ors_src WHERE pos >= 30000 AND pos < 40000 ORDER BY pos;
INSERT INTO ors SELECT key, pos FROM ors_src WHERE pos >= 40000 AND pos < 50000 ORDER BY pos;
INSERT INTO ors SELECT key, pos FROM ors_src WHERE pos >= 50000 ORDER BY pos;
INSERT INTO ors_twin SELECT * FROM ors;
-- the runs took their leaves' splits: few entries went the ordinary way,
-- and the leaves are full
SELECT top_inserted_entries < leaf_pages / 4 AS runs_split_leaves,
	leaf_fill > 90 AS leaves_full, entries
	FROM elastic_index_stats('ors_k');
SELECT * FROM ors_compare('ors', 'ors_twin', 'k > 0', 'k, v');
SELECT * FROM ors_compare('ors', 'ors_twin', 'k BETWEEN 12345 AND 45678', 'k, v');
SELECT * FROM ors_compare('ors', 'ors_twin', 'k >= 59000', 'k, v');
SELECT elastic_index_check('ors_k');

-- the same rows as text keys of varying width (a high key cut from two
-- neighbours), and in a descending index
CREATE TABLE orst (k text, v int);
CREATE TABLE orst_twin (k text, v int);
CREATE INDEX orst_k ON orst USING osm_tree (k COLLATE "C");
CREATE INDEX orst_kd ON orst USING osm_tree (v DESC);
CREATE INDEX orst_twin_k ON orst_twin (k COLLATE "C");
INSERT INTO orst SELECT lpad(key::text, 6, '0') || repeat('x', key::int % 13), -key::int
	FROM ors_src WHERE pos < 20000 ORDER BY pos;
INSERT INTO orst SELECT lpad(key::text, 6, '0') || repeat('x', key::int % 13), -key::int
	FROM ors_src WHERE pos >= 20000 AND pos < 40000 ORDER BY pos;
INSERT INTO orst SELECT lpad(key::text, 6, '0') || repeat('x', key::int % 13), -key::int
	FROM ors_src WHERE pos >= 40000 ORDER BY pos;
INSERT INTO orst_twin SELECT * FROM orst;
SELECT top_inserted_entries < leaf_pages / 4 AS runs_split_leaves
	FROM elastic_index_stats('orst_k');
SELECT top_inserted_entries < leaf_pages / 4 AS runs_split_leaves
	FROM elastic_index_stats('orst_kd');
SELECT * FROM ors_compare('orst', 'orst_twin', 'k COLLATE "C" > ''0''', 'k COLLATE "C", v');
SELECT * FROM ors_compare('orst', 'orst_twin', 'k COLLATE "C" BETWEEN ''02'' AND ''031''', 'k COLLATE "C", v');
SELECT * FROM ors_compare('orst', 'orst_twin', 'v BETWEEN -40000 AND -30000', 'v DESC, k');
SELECT elastic_index_check('orst_k'), elastic_index_check('orst_kd');

-- a long key among short ones (one in 40, 1,286 bytes of hex that do not
-- compress): the left half's high key is cut from the entry after it, and
-- a split whose high key would overfill the left half is not made there
-- (it raised "failed to add item to left page of run split" before)
CREATE TABLE orsl (k text);
CREATE TABLE orsl_twin (k text);
CREATE INDEX orsl_k ON orsl USING osm_tree (k COLLATE "C");
CREATE INDEX orsl_twin_k ON orsl_twin (k COLLATE "C");
CREATE TABLE orsl_src AS SELECT pos, lpad(key::text, 6, '0') ||
	CASE WHEN hashint8(key) % 40 = 0 THEN
		(SELECT string_agg(md5(key::text || g::text), '') FROM generate_series(1, 40) g)
	ELSE '' END AS k
	FROM ors_src;
INSERT INTO orsl SELECT k FROM orsl_src WHERE pos < 20000 ORDER BY pos;
INSERT INTO orsl SELECT k FROM orsl_src WHERE pos >= 20000 AND pos < 40000 ORDER BY pos;
INSERT INTO orsl SELECT k FROM orsl_src WHERE pos >= 40000 ORDER BY pos;
INSERT INTO orsl_twin SELECT * FROM orsl;
SELECT * FROM ors_compare('orsl', 'orsl_twin', 'k COLLATE "C" > ''0''', 'k COLLATE "C"');
SELECT elastic_index_check('orsl_k');

-- the other key widths compared without a scan key: int2, date and
-- timestamptz, with NULLs among them (which take the scan key; first, so
-- that the right edge stays free for the runs)
CREATE TABLE orsw (a int2, d date, ts timestamptz);
CREATE TABLE orsw_twin (a int2, d date, ts timestamptz);
CREATE INDEX orsw_a ON orsw USING osm_tree (a);
CREATE INDEX orsw_d ON orsw USING osm_tree (d);
CREATE INDEX orsw_ts ON orsw USING osm_tree (ts NULLS FIRST);
CREATE INDEX orsw_twin_a ON orsw_twin (a);
CREATE INDEX orsw_twin_d ON orsw_twin (d);
CREATE INDEX orsw_twin_ts ON orsw_twin (ts NULLS FIRST);
INSERT INTO orsw SELECT key / 2 - 15000, date '2000-01-01' + key::int,
	CASE WHEN key % 997 = 0 THEN NULL ELSE timestamptz '2000-01-01 UTC' + key * interval '1 minute' END
	FROM ors_src WHERE pos < 20000 ORDER BY pos;
INSERT INTO orsw SELECT key / 2 - 15000, date '2000-01-01' + key::int,
	CASE WHEN key % 997 = 0 THEN NULL ELSE timestamptz '2000-01-01 UTC' + key * interval '1 minute' END
	FROM ors_src WHERE pos >= 20000 AND pos < 40000 ORDER BY pos;
INSERT INTO orsw SELECT key / 2 - 15000, date '2000-01-01' + key::int,
	CASE WHEN key % 997 = 0 THEN NULL ELSE timestamptz '2000-01-01 UTC' + key * interval '1 minute' END
	FROM ors_src WHERE pos >= 40000 ORDER BY pos;
INSERT INTO orsw_twin SELECT * FROM orsw;
SELECT top_inserted_entries < leaf_pages / 4 AS runs_split_leaves
	FROM elastic_index_stats('orsw_d');
SELECT top_inserted_entries < leaf_pages / 4 AS runs_split_leaves
	FROM elastic_index_stats('orsw_ts');
SELECT * FROM ors_compare('orsw', 'orsw_twin', 'a BETWEEN -9000 AND 9000', 'a, d');
SELECT * FROM ors_compare('orsw', 'orsw_twin', 'd > date ''2000-03-01''', 'd');
SELECT * FROM ors_compare('orsw', 'orsw_twin', 'ts < timestamptz ''2000-01-20 UTC''', 'ts');
SELECT * FROM ors_compare('orsw', 'orsw_twin', 'ts IS NULL', 'd');
SELECT elastic_index_check('orsw_a'), elastic_index_check('orsw_d'),
	elastic_index_check('orsw_ts');

-- two key columns and an INCLUDE column: the high key keeps the key
-- columns only
CREATE TABLE orsm (a int4, b int8, c text);
CREATE TABLE orsm_twin (a int4, b int8, c text);
CREATE INDEX orsm_ab ON orsm USING osm_tree (a, b) INCLUDE (c);
CREATE INDEX orsm_twin_ab ON orsm_twin (a, b) INCLUDE (c);
INSERT INTO orsm SELECT key / 1000, key, 'c' || pos FROM ors_src WHERE pos < 30000 ORDER BY pos;
INSERT INTO orsm SELECT key / 1000, key, 'c' || pos FROM ors_src WHERE pos >= 30000 ORDER BY pos;
INSERT INTO orsm_twin SELECT * FROM orsm;
SELECT top_inserted_entries < leaf_pages / 4 AS runs_split_leaves
	FROM elastic_index_stats('orsm_ab');
SELECT * FROM ors_compare('orsm', 'orsm_twin', 'a BETWEEN 10 AND 40 AND b % 7 = 0', 'a, b');
SELECT elastic_index_check('orsm_ab');

-- three rows a key: with deduplication, equal keys go the ordinary way
-- (its dedup pass makes posting lists); without it, the run's split takes
-- them as plain entries, and its high key keeps a heap TID
CREATE TABLE orsd (k int8, v int);
CREATE TABLE orsd_twin (k int8, v int);
CREATE INDEX orsd_dedup ON orsd USING osm_tree (k);
CREATE INDEX orsd_plain ON orsd USING osm_tree (k) WITH (deduplicate_items = off);
CREATE INDEX orsd_twin_k ON orsd_twin (k);
INSERT INTO orsd SELECT key / 3, pos FROM ors_src WHERE pos < 20000 ORDER BY pos;
INSERT INTO orsd SELECT key / 3, pos FROM ors_src WHERE pos >= 20000 AND pos < 40000 ORDER BY pos;
INSERT INTO orsd SELECT key / 3, pos FROM ors_src WHERE pos >= 40000 ORDER BY pos;
INSERT INTO orsd_twin SELECT * FROM orsd;
SELECT top_inserted_entries < leaf_pages / 4 AS runs_split_leaves
	FROM elastic_index_stats('orsd_plain');
SELECT top_inserted_entries > leaf_pages / 4 AS ordinary_splits
	FROM elastic_index_stats('orsd_dedup');
SELECT * FROM ors_compare('orsd', 'orsd_twin', 'k > 0', 'k, v');
SELECT * FROM ors_compare('orsd', 'orsd_twin', 'k = 7777', 'k, v');
SET enable_seqscan = off;
SET enable_bitmapscan = off;
DROP INDEX orsd_dedup;
SELECT * FROM ors_compare('orsd', 'orsd_twin', 'k BETWEEN 5000 AND 6000', 'k, v');
RESET enable_seqscan;
RESET enable_bitmapscan;
SELECT elastic_index_check('orsd_plain');

-- a run through the root: a leaf that is the whole tree, holding a few
-- keys spread over the range, then the rows between them in one batch
CREATE TABLE orsr (k int8);
CREATE TABLE orsr_twin (k int8);
CREATE INDEX orsr_k ON orsr USING osm_tree (k);
CREATE INDEX orsr_twin_k ON orsr_twin (k);
INSERT INTO orsr SELECT g * 500 FROM generate_series(1, 40) g;
SELECT height, leaf_pages FROM elastic_index_stats('orsr_k');
INSERT INTO orsr SELECT g FROM generate_series(1, 20000) g WHERE g % 500 <> 0;
INSERT INTO orsr_twin SELECT * FROM orsr;
SELECT height > 1 AS grew, top_inserted_entries < leaf_pages / 4 AS runs_split_leaves
	FROM elastic_index_stats('orsr_k');
SELECT * FROM ors_compare('orsr', 'orsr_twin', 'k > 0', 'k');
SELECT elastic_index_check('orsr_k');

-- runs that meet many of a leaf's items (another stream's keys after
-- each run's place) are not split for: (device, ts) with rows interleaved
CREATE TABLE orss (dev int4, ts int8);
CREATE TABLE orss_twin (dev int4, ts int8);
CREATE INDEX orss_k ON orss USING osm_tree (dev, ts);
CREATE INDEX orss_twin_k ON orss_twin (dev, ts);
INSERT INTO orss SELECT d, t FROM generate_series(1, 200) t, generate_series(1, 100) d ORDER BY t, d;
INSERT INTO orss SELECT d, t FROM generate_series(201, 400) t, generate_series(1, 100) d ORDER BY t, d;
INSERT INTO orss_twin SELECT * FROM orss;
SELECT top_inserted_entries > leaf_pages / 4 AS ordinary_splits
	FROM elastic_index_stats('orss_k');
SELECT * FROM ors_compare('orss', 'orss_twin', 'dev BETWEEN 10 AND 20', 'dev, ts');
SELECT * FROM ors_compare('orss', 'orss_twin', 'dev > 0', 'dev, ts');
SELECT elastic_index_check('orss_k');

DROP TABLE ors, ors_twin, ors_src, orst, orst_twin, orsl, orsl_twin, orsl_src,
	orsw, orsw_twin, orsm,
	orsm_twin, orsd, orsd_twin, orsr, orsr_twin, orss, orss_twin;
DROP FUNCTION ors_compare;
-- the next file creates the extension afresh
DROP EXTENSION elastic_index CASCADE;
