CREATE EXTENSION IF NOT EXISTS elastic_index;
-- everything this file creates lives in its own schema
SET client_min_messages = warning;
DROP SCHEMA IF EXISTS ei_dedup_size CASCADE;
CREATE SCHEMA ei_dedup_size;
SET search_path = ei_dedup_size, public;
RESET client_min_messages;
-- Posting lists no larger than btree's (issue 20; bench/dedup/run.sh at
-- 1M rows).  Sizes are compared with btree's, which deduplicates by
-- default, on the same rows; every index is verified, and queries through
-- it agree with btree and a sequential scan.
CREATE TABLE src (g int8, i4 int4, t text COLLATE "C")
	WITH (autovacuum_enabled = off);
INSERT INTO src
SELECT g, g % 10, 'value-' || lpad((g / 30)::text, 24, '0')
FROM generate_series(1, 60000) g;
-- CREATE INDEX: 30-byte keys, 30 rows per key.  A leaf holds as many
-- lists as btree's (the build's fill rule is nbtree's: the item that
-- would become the high key counts without its list's TIDs).
CREATE INDEX src_t_b ON src USING btree (t);
CREATE INDEX src_t_e ON src USING elastic_btree (t) WITH (deduplicate_items = on);
SELECT pg_relation_size('src_t_e') <= pg_relation_size('src_t_b') AS built_text_le_btree;
-- Grown by inserting the rows in order.  Text keys, 30 rows each (a
-- split's high key made from a list counts the key alone, not the list):
CREATE TABLE gt (LIKE src) WITH (autovacuum_enabled = off);
CREATE INDEX gt_b ON gt USING btree (t);
CREATE INDEX gt_e ON gt USING elastic_btree (t) WITH (deduplicate_items = on);
INSERT INTO gt SELECT * FROM src ORDER BY g;
SELECT pg_relation_size('gt_e') <= pg_relation_size('gt_b') AS grown_text_le_btree;
-- 10 int4 values inserted in turn (each value's run grows at its end; the
-- first rows of the next value must not travel along with it):
CREATE TABLE g4 (LIKE src) WITH (autovacuum_enabled = off);
CREATE INDEX g4_b ON g4 USING btree (i4);
CREATE INDEX g4_e ON g4 USING elastic_btree (i4) WITH (deduplicate_items = on);
INSERT INTO g4 SELECT g, g % 10 FROM generate_series(1, 200000) g;
SELECT pg_relation_size('g4_e') <= pg_relation_size('g4_b') AS grown_int4_le_btree;
-- Unique scattered keys (uuid, 32-byte text) inserted in a fixed random
-- order: a random insert that lands after every item of a leaf is no
-- ascending run (its row is far in the heap from the last item's), so the
-- leaf splits half and half, as btree's does (the fill-factor split there
-- left the text index 578 pages against btree's 571).
CREATE TABLE gu (u uuid, t text COLLATE "C") WITH (autovacuum_enabled = off);
CREATE INDEX gu_u_b ON gu USING btree (u);
CREATE INDEX gu_u_e ON gu USING elastic_btree (u) WITH (deduplicate_items = on);
CREATE INDEX gu_t_b ON gu USING btree (t);
CREATE INDEX gu_t_e ON gu USING elastic_btree (t) WITH (deduplicate_items = on);
INSERT INTO gu SELECT md5(g::text)::uuid, md5(g::text) FROM generate_series(1, 60000) g;
SELECT pg_relation_size('gu_u_e') <= pg_relation_size('gu_u_b') AS grown_uuid_le_btree,
	   pg_relation_size('gu_t_e') <= pg_relation_size('gu_t_b') AS grown_unique_text_le_btree;
-- One value, the rightmost leaf: its lists leave room for the high key a
-- split adds, so the split keeps them all on the left.
CREATE TABLE g1 (k int4) WITH (autovacuum_enabled = off);
CREATE INDEX g1_e ON g1 USING elastic_btree (k) WITH (deduplicate_items = on);
INSERT INTO g1 SELECT 0 FROM generate_series(1, 30000);
SELECT leaf_fill >= 95 AS one_value_leaves_full, leaf_pages
FROM elastic_index_stats('g1_e');
SELECT elastic_index_check('src_t_e', heapallindexed => true),
	   elastic_index_check('gt_e', heapallindexed => true),
	   elastic_index_check('g4_e', heapallindexed => true),
	   elastic_index_check('g1_e', heapallindexed => true),
	   elastic_index_check('gu_u_e', heapallindexed => true),
	   elastic_index_check('gu_t_e', heapallindexed => true);
-- the same answers through elastic_btree, btree and a sequential scan
CREATE FUNCTION answers(tbl regclass, col text) RETURNS text
LANGUAGE plpgsql AS $$
DECLARE r text;
BEGIN
	EXECUTE format($q$SELECT md5(string_agg(x, ';' ORDER BY x)) FROM (
		SELECT count(*)::text || '/' || sum(g)::text AS x FROM %1$s
		WHERE %2$I = (SELECT min(%2$I) FROM %1$s)
		UNION ALL SELECT count(*)::text FROM %1$s
		WHERE %2$I > (SELECT %2$I FROM %1$s WHERE g = 777)
		UNION ALL SELECT count(*)::text FROM %1$s
		WHERE %2$I <= (SELECT %2$I FROM %1$s WHERE g = 31234)
		UNION ALL SELECT string_agg(g::text, ',' ORDER BY g) FROM %1$s
		WHERE %2$I = (SELECT %2$I FROM %1$s WHERE g = 45678)) s$q$,
		tbl, col) INTO r;
	RETURN r;
END $$;
CREATE TEMP TABLE ans (tbl text, via text, a text);
SET enable_bitmapscan = off;
SET enable_seqscan = off;
DROP INDEX gt_b, g4_b;
INSERT INTO ans VALUES ('gt', 'elastic_btree', answers('gt', 't')),
	('g4', 'elastic_btree', answers('g4', 'i4'));
CREATE INDEX gt_b ON gt USING btree (t);
CREATE INDEX g4_b ON g4 USING btree (i4);
DROP INDEX gt_e, g4_e;
INSERT INTO ans VALUES ('gt', 'btree', answers('gt', 't')),
	('g4', 'btree', answers('g4', 'i4'));
SET enable_seqscan = on;
SET enable_indexscan = off;
SET enable_indexonlyscan = off;
INSERT INTO ans VALUES ('gt', 'seq', answers('gt', 't')),
	('g4', 'seq', answers('g4', 'i4'));
SELECT tbl, count(*) AS ways, count(DISTINCT a) AS answers FROM ans GROUP BY tbl ORDER BY tbl;
RESET enable_seqscan;
RESET enable_indexscan;
RESET enable_indexonlyscan;
RESET enable_bitmapscan;
SET client_min_messages = warning;
DROP SCHEMA ei_dedup_size CASCADE;
DROP EXTENSION elastic_index CASCADE;
RESET client_min_messages;
RESET search_path;
