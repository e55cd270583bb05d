CREATE EXTENSION IF NOT EXISTS elastic_index;
-- everything this file creates lives in its own schema
SET client_min_messages = warning;
DROP SCHEMA IF EXISTS ei_sf CASCADE;
CREATE SCHEMA ei_sf;
SET search_path = ei_sf, public;
RESET client_min_messages;
\i test/sql/differential_harness.sql
--
-- Compact leaf splits at fillfactor = 100 (src/README.md, "Compact
-- leaves"): a split past the middle keeps almost all entries left, the fill
-- factor's share on the rightmost leaf (a time series) or on any leaf
-- after an entry that follows its neighbour in heap order (equal keys of a
-- low-cardinality column, which sort by TID).  The left half, its TIDs
-- coded afresh and with a new high key, may then not fit its page; the
-- split must fall back on the middle, not fail the insert.  Each index is
-- made compact when small, then grows through inserts and compact splits;
-- the same queries through elastic_btree, btree and a sequential scan must
-- agree, and elastic_index_check with heapallindexed must pass.
--
CREATE TABLE sf_src AS
SELECT g AS id, g::int8 AS t, (g % 5)::int8 AS c
FROM generate_series(1, 24000) AS g;
SELECT ei_setup('sf', 'sf_src', 2000);
SELECT ei_index('sf', 't', '(t) WITH (fillfactor = 100)');
-- the initial rows hold 10 values, the inserted ones 5: their runs end
-- in leaves that are not the rightmost
UPDATE sf_seq SET c = id % 10;
UPDATE sf_bt SET c = id % 10;
UPDATE sf_ei SET c = id % 10;
VACUUM FULL sf_seq;
VACUUM FULL sf_bt;
VACUUM FULL sf_ei;
SELECT ei_index('sf', 'c', '(c) WITH (fillfactor = 100)');
SELECT count(*) AS shrunk FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid,
	LATERAL elastic_btree_shrink(c.oid) WHERE i.indrelid = 'sf_ei'::regclass;
SELECT ei_exec('sf', 'INSERT INTO %I SELECT * FROM sf_src WHERE id > 2000 ORDER BY id');
VACUUM ANALYZE sf_seq, sf_bt, sf_ei;
-- all leaves compact, and several of them
SELECT c.relname, s.compact_leaf_pages = s.leaf_pages AS all_compact,
	   s.leaf_pages > 4 AS split
FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid,
	 LATERAL elastic_index_stats(c.oid) AS s
WHERE i.indrelid = 'sf_ei'::regclass ORDER BY 1;
SELECT ei_diff('sf', 'SELECT id FROM %I WHERE t BETWEEN 5000 AND 5100', false, '{index,bitmap}');
SELECT ei_diff('sf', 'SELECT t FROM %I WHERE t > 23000 ORDER BY t DESC', true, '{index,indexonly}');
SELECT ei_diff('sf', 'SELECT count(*) FROM %I WHERE c = 3', false, '{index,indexonly,bitmap}');
SELECT ei_diff('sf', 'SELECT id FROM %I WHERE c = 7', false, '{index,bitmap}');
SELECT ei_check_all('sf');

SET client_min_messages = warning;
DROP SCHEMA ei_sf CASCADE;
-- the next file creates the extension afresh
DROP EXTENSION elastic_index CASCADE;
RESET client_min_messages;
RESET search_path;
