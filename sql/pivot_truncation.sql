CREATE EXTENSION IF NOT EXISTS elastic_index;
-- everything this file creates lives in its own schema
SET client_min_messages = warning;
DROP SCHEMA IF EXISTS ei_pivot_trunc CASCADE;
CREATE SCHEMA ei_pivot_trunc;
SET search_path = ei_pivot_trunc, public;
RESET client_min_messages;
-- Pivots (high keys and downlinks) leave out the heap TID when their key
-- columns already separate the two sides, as nbtree's suffix truncation
-- does (src/README.md, "Items"); a missing TID compares as minus infinity.
-- Unique int8 keys, built: as many leaves as btree and, with 16-byte
-- pivots instead of 24, as few inner pages (2 fewer at 300000 rows).
CREATE TABLE u (k int8, d int4) WITH (autovacuum_enabled = off);
INSERT INTO u SELECT (g * 48271) % 2147483647, g % 3 FROM generate_series(1::int8, 300000) g;
CREATE INDEX u_b ON u USING btree (k);
CREATE INDEX u_e ON u USING elastic_btree (k);
SELECT pg_relation_size('u_e') <= pg_relation_size('u_b') AS unique_le_btree;
-- the verifier checks every pivot's size: its key columns, and the heap
-- TID exactly when EI_PIVOT_HAS_TID says it is there
SELECT elastic_index_check('u_e', heapallindexed => true);
-- grown by scattered inserts (splits truncate against the last item left)
-- and with duplicates, whose pivots keep the TID where equal keys meet
CREATE TABLE w (k int8, d int4, t text COLLATE "C") WITH (autovacuum_enabled = off);
CREATE INDEX w_k ON w USING elastic_btree (k);
CREATE INDEX w_dk ON w USING elastic_btree (d, k);
CREATE INDEX w_d ON w USING elastic_btree (d);
CREATE INDEX w_dd ON w USING elastic_btree (d) WITH (deduplicate_items = on);
CREATE INDEX w_t ON w USING elastic_btree (t);
INSERT INTO w SELECT (g * 7919) % 100003, g % 7, md5((g % 5000)::text)
FROM generate_series(1, 60000) g;
SELECT elastic_index_check(i, heapallindexed => true)
FROM unnest('{w_k,w_dk,w_d,w_dd,w_t}'::regclass[]) i;
-- the same answers through each index and a sequential scan
CREATE FUNCTION answers(q text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE r text;
BEGIN
	EXECUTE 'SELECT md5(string_agg(x::text, '','' ORDER BY x)) FROM (' || q || ') s(x)' INTO r;
	RETURN r;
END $$;
CREATE TEMP TABLE ans (q int, via text, a text);
CREATE FUNCTION collect(via text) RETURNS void LANGUAGE sql AS $$
	INSERT INTO ans
	SELECT n, via, answers(q)
	FROM unnest(ARRAY[
		'SELECT k FROM w WHERE k BETWEEN 1000 AND 9000',
		'SELECT k FROM w WHERE k = 50021 OR k = 7919',
		'SELECT k FROM w WHERE d = 3 AND k > 90000',
		'SELECT k FROM w WHERE d = 5',
		'SELECT count(*) FROM w WHERE t = md5(''1234'')',
		'SELECT k FROM w WHERE t > md5(''77'') AND t < md5(''78'')',
		'SELECT k FROM w WHERE k = ANY (''{50021, 7919, 3, 99991, 100002}'')',
		'SELECT k FROM w WHERE k < 5000 ORDER BY k DESC LIMIT 300',
		'SELECT d * 1000000 + k FROM w WHERE d = 2 ORDER BY d DESC, k DESC LIMIT 500',
		'SELECT t FROM w WHERE t < md5(''4'') ORDER BY t DESC LIMIT 200']) WITH ORDINALITY AS v(q, n)
$$;
SET enable_bitmapscan = off;
SET enable_seqscan = off;
SELECT collect('indexes');
RESET enable_seqscan;
SET enable_indexscan = off;
SET enable_indexonlyscan = off;
SELECT collect('seq');
SELECT count(*) AS queries, count(*) FILTER (WHERE a IS NULL) AS null_answers,
	   bool_and(same) AS same_answers
FROM (SELECT q, min(a) AS a, count(DISTINCT a) = 1 AS same FROM ans GROUP BY q) s;
RESET enable_indexscan;
RESET enable_indexonlyscan;
RESET enable_bitmapscan;
-- a split whose new item is the last on the left truncates against the new
-- item: rows that take freed heap space get TIDs below their equal-key
-- twins' (mutating that choice breaks the key order the verifier checks)
CREATE TABLE m (k int4, pad int4) WITH (autovacuum_enabled = off);
INSERT INTO m SELECT -1, g FROM generate_series(1, 60000) g;
INSERT INTO m SELECT (g * 7919) % 50021, g FROM generate_series(1, 50000) g;
DELETE FROM m WHERE k = -1;
VACUUM m;
CREATE INDEX m_k ON m USING elastic_btree (k) WITH (deduplicate_items = off);
CREATE INDEX m_kd ON m USING elastic_btree (k DESC) WITH (deduplicate_items = off);
CREATE INDEX m_ko ON m USING osm_tree (k) WITH (deduplicate_items = off);
INSERT INTO m SELECT (g * 7919) % 50021, g FROM generate_series(1, 50000) g;
SELECT osm_tree_flush('m_ko') >= 0 AS flushed;
SELECT elastic_index_check(i, heapallindexed => true)
FROM unnest('{m_k,m_kd,m_ko}'::regclass[]) i;
SET enable_seqscan = off;
SET enable_bitmapscan = off;
SELECT count(*) FROM m WHERE k = ANY (ARRAY(SELECT generate_series(1, 50000, 7)));
SELECT string_agg(k::text, ',') FROM (SELECT k FROM m WHERE k BETWEEN 1000 AND 1004 ORDER BY k DESC) s;
RESET enable_seqscan;
RESET enable_bitmapscan;
-- a build's high key is truncated against the page's last item: five
-- values of 20000 rows each, so that each value spans leaves; then page
-- deletion around those high keys, and inserts again
CREATE TABLE pd (d int4, g int4) WITH (autovacuum_enabled = off);
INSERT INTO pd SELECT g / 20000, g FROM generate_series(0, 99999) g;
CREATE INDEX pd_d ON pd USING elastic_btree (d) WITH (deduplicate_items = off);
CREATE INDEX pd_dd ON pd USING elastic_btree (d DESC) WITH (deduplicate_items = off);
CREATE INDEX pd_o ON pd USING osm_tree (d) WITH (deduplicate_items = off);
SELECT elastic_index_check(i, heapallindexed => true)
FROM unnest('{pd_d,pd_dd,pd_o}'::regclass[]) i;
DELETE FROM pd WHERE (d = 1 AND g % 20000 > 15000) OR (d = 2 AND g % 20000 < 5000) OR d = 3;
VACUUM pd;
SELECT deleted_pages > 0 AS pages_deleted FROM elastic_index_stats('pd_d');
INSERT INTO pd SELECT g / 20000, g FROM generate_series(30000, 80000, 3) g;
SELECT elastic_index_check(i, heapallindexed => true)
FROM unnest('{pd_d,pd_dd,pd_o}'::regclass[]) i;
SET enable_seqscan = off;
SET enable_bitmapscan = off;
SELECT d, count(*), sum(g) FROM pd WHERE d = ANY ('{0,1,2,3,4}') GROUP BY d ORDER BY d;
SELECT count(*), sum(g) FROM (SELECT g FROM pd WHERE d = 2 ORDER BY d DESC) s;
RESET enable_seqscan;
SET enable_indexscan = off;
SET enable_indexonlyscan = off;
SELECT d, count(*), sum(g) FROM pd GROUP BY d ORDER BY d;
RESET enable_indexscan;
RESET enable_indexonlyscan;
RESET enable_bitmapscan;
SET client_min_messages = warning;
DROP SCHEMA ei_pivot_trunc CASCADE;
DROP EXTENSION elastic_index CASCADE;
RESET client_min_messages;
RESET search_path;
