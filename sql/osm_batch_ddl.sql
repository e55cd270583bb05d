--
-- A transaction's osm_tree batch (src/core/batch.c) and DDL on the index
-- before the transaction commits.  ALTER INDEX SET TABLESPACE copies the
-- index's blocks into new storage: the batch must be applied before the
-- copy, or the committed rows have no entries.  REINDEX and TRUNCATE build
-- new storage from the heap: the batch is then moot.  (Another session's
-- SET TABLESPACE waits for our commit: test/specs/osm_batch_tablespace.)
-- Also the planner: from 18 on it reads an ordered index's ends for its
-- estimates (get_actual_variable_range), through ours too, with a batch
-- pending and over compact leaves.
--
CREATE EXTENSION IF NOT EXISTS elastic_index;
CREATE TABLESPACE ei_regress_ts LOCATION '';
CREATE TABLE obt (k int8);
CREATE INDEX obt_k ON obt USING osm_tree (k);
SET osm_tree.batch_size = 100000;
INSERT INTO obt SELECT generate_series(1, 1000);

-- the rows of the index, by index and by a sequential scan
CREATE FUNCTION obt_counts(OUT by_index bigint, OUT by_seqscan bigint)
LANGUAGE plpgsql AS $$
BEGIN
	SET LOCAL enable_seqscan = off;
	SET LOCAL enable_bitmapscan = off;
	SELECT count(*) INTO by_index FROM obt WHERE k > 0;
	SET LOCAL enable_seqscan = on;
	SET LOCAL enable_indexscan = off;
	SET LOCAL enable_indexonlyscan = off;
	SELECT count(*) INTO by_seqscan FROM obt;
END $$;

-- a batch, then the index moves to another tablespace, then another batch
BEGIN;
INSERT INTO obt SELECT generate_series(1001, 3000);
ALTER INDEX obt_k SET TABLESPACE ei_regress_ts;
INSERT INTO obt SELECT generate_series(3001, 3500);
COMMIT;
SELECT * FROM obt_counts();
SELECT elastic_index_check('obt_k');

-- the same through ALTER INDEX ALL IN TABLESPACE, back to the default
BEGIN;
INSERT INTO obt SELECT generate_series(3501, 5000);
ALTER INDEX ALL IN TABLESPACE ei_regress_ts SET TABLESPACE pg_default;
COMMIT;
SELECT * FROM obt_counts();
SELECT spcname FROM pg_class c LEFT JOIN pg_tablespace t ON t.oid = c.reltablespace
WHERE c.relname = 'obt_k';

-- REINDEX in the same transaction rebuilds from the heap, our rows included
BEGIN;
INSERT INTO obt SELECT generate_series(5001, 6000);
REINDEX INDEX obt_k;
INSERT INTO obt SELECT generate_series(6001, 6500);
COMMIT;
SELECT * FROM obt_counts();
SELECT elastic_index_check('obt_k');

-- TRUNCATE in the same transaction takes our rows with it
BEGIN;
INSERT INTO obt SELECT generate_series(6501, 7000);
TRUNCATE obt;
INSERT INTO obt SELECT generate_series(1, 10);
COMMIT;
SELECT * FROM obt_counts();

-- the planner reads the index's ends with a batch pending (18 on; earlier
-- versions read only btree indexes' ends): the batch is applied first,
-- and the estimate and the rows are those of every row
INSERT INTO obt SELECT generate_series(11, 5000);
ANALYZE obt;
BEGIN;
INSERT INTO obt SELECT generate_series(5001, 6000);
DO $$
BEGIN
	EXECUTE 'EXPLAIN SELECT * FROM obt WHERE k > 5990';
END $$;
SELECT * FROM obt_counts();
SELECT count(*) AS above_5990 FROM obt WHERE k > 5990;
COMMIT;
-- and over compact leaves of an elastic_btree index
CREATE TABLE ebt (k int8);
INSERT INTO ebt SELECT generate_series(1, 20000);
CREATE INDEX ebt_k ON ebt USING elastic_btree (k);
SELECT elastic_btree_shrink('ebt_k') > 0 AS compact;
ANALYZE ebt;
INSERT INTO ebt SELECT generate_series(20001, 21000);
SET enable_seqscan = off;
SET enable_bitmapscan = off;
DO $$
BEGIN
	EXECUTE 'EXPLAIN SELECT * FROM ebt WHERE k > 20990';
	EXECUTE 'EXPLAIN SELECT * FROM ebt WHERE k < 3';
END $$;
SELECT count(*) AS above_20990 FROM ebt WHERE k > 20990;
SELECT count(*) AS below_3 FROM ebt WHERE k < 3;
RESET enable_seqscan;
RESET enable_bitmapscan;
SELECT elastic_index_check('ebt_k');

-- TRUNCATE, REINDEX and DROP in a savepoint rolled back: the old storage
-- (the index) is back and must have the batch's entries, which an insert,
-- a scan or osm_tree.batch_memory (applying every batch of the
-- transaction) would otherwise drop while the statement's effect lasts.
CREATE TABLE sv_t (k int8);
CREATE INDEX sv_t_k ON sv_t USING osm_tree (k);
CREATE TABLE sv_r (k int8);
CREATE INDEX sv_r_k ON sv_r USING osm_tree (k);
CREATE TABLE sv_d (k int8);
CREATE INDEX sv_d_k ON sv_d USING osm_tree (k);
CREATE TABLE sv_o (k int8);
CREATE INDEX sv_o_k ON sv_o USING osm_tree (k);
BEGIN;
INSERT INTO sv_t SELECT generate_series(1, 100);
SAVEPOINT s;
TRUNCATE sv_t;
INSERT INTO sv_t VALUES (1000);
ROLLBACK TO SAVEPOINT s;
INSERT INTO sv_r SELECT generate_series(1, 100);
SAVEPOINT s;
REINDEX INDEX sv_r_k;
INSERT INTO sv_r VALUES (1000);
ROLLBACK TO SAVEPOINT s;
INSERT INTO sv_d SELECT generate_series(1, 100);
SAVEPOINT s;
DROP INDEX sv_d_k;
SET LOCAL osm_tree.batch_memory = '64kB';
INSERT INTO sv_o SELECT generate_series(1, 2000);
ROLLBACK TO SAVEPOINT s;
COMMIT;
SELECT count(*) FROM sv_t;
SELECT elastic_index_check('sv_t_k', true);
SELECT elastic_index_check('sv_r_k', true);
SELECT elastic_index_check('sv_d_k', true);
DROP TABLE sv_t, sv_r, sv_d, sv_o;

DROP TABLE obt, ebt;
DROP FUNCTION obt_counts();
DROP TABLESPACE ei_regress_ts;
RESET osm_tree.batch_size;
-- the next file creates the extension afresh
DROP EXTENSION elastic_index CASCADE;
