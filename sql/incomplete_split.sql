-- A split whose downlink was never inserted (as after a crash between the
-- two steps of a split) is finished by the next inserter that passes the
-- page; readers find every row meanwhile.  elastic_index.debug_fault
-- stops an insert right after the first step.
CREATE EXTENSION IF NOT EXISTS elastic_index;
CREATE SCHEMA incomplete_split;
SET search_path = incomplete_split, public;

CREATE TABLE t (k int8) WITH (autovacuum_enabled = off);
CREATE INDEX t_k ON t USING elastic_btree (k);

-- 1. the root leaf splits and no new root is made
INSERT INTO t SELECT g * 2 FROM generate_series(1, 400) g;
SELECT height, leaf_pages FROM elastic_index_stats('t_k');
SET elastic_index.debug_fault = after_split;
DO $$
BEGIN
	FOR i IN 1..1000 LOOP
		INSERT INTO incomplete_split.t VALUES (i * 2 + 1);
	END LOOP;
EXCEPTION WHEN internal_error THEN
	RAISE NOTICE 'insert stopped: %', SQLERRM;
END $$;
RESET elastic_index.debug_fault;
-- the failed transaction's rows are gone; the split page stays split
SELECT count(*) FROM t;
SELECT height, leaf_pages FROM elastic_index_stats('t_k');
SELECT elastic_index_check('t_k', true);
SET enable_seqscan = off;
SET enable_bitmapscan = off;
SELECT count(*), min(k), max(k) FROM t WHERE k > 0;
SELECT k FROM t WHERE k >= 790 ORDER BY k DESC LIMIT 3;
-- the next insert finishes the split: the tree grows a root
INSERT INTO t VALUES (1);
SELECT height, leaf_pages FROM elastic_index_stats('t_k');
SELECT elastic_index_check('t_k', true);

-- 2. a leaf split below an inner page, left unfinished
INSERT INTO t SELECT g * 2 FROM generate_series(401, 20000) g;
SELECT height FROM elastic_index_stats('t_k');
SET elastic_index.debug_fault = after_split;
DO $$
BEGIN
	FOR i IN 1..1000 LOOP
		INSERT INTO incomplete_split.t VALUES (10001 + i * 2);
	END LOOP;
EXCEPTION WHEN internal_error THEN
	RAISE NOTICE 'insert stopped: %', SQLERRM;
END $$;
RESET elastic_index.debug_fault;
SELECT elastic_index_check('t_k', true);
SELECT count(*), sum(k) FROM t WHERE k BETWEEN 9000 AND 13000;
SET enable_indexscan = off;
SET enable_indexonlyscan = off;
SET enable_seqscan = on;
SELECT count(*), sum(k) FROM t WHERE k BETWEEN 9000 AND 13000;
RESET enable_indexscan;
RESET enable_indexonlyscan;
SET enable_seqscan = off;
-- inserts into the same key range pass the page and finish its split
INSERT INTO t SELECT 10001 + g * 2 FROM generate_series(1, 1000) g;
SELECT elastic_index_check('t_k', true);
SELECT count(*) FROM t WHERE k BETWEEN 9000 AND 13000;

RESET search_path;
DROP SCHEMA incomplete_split CASCADE;
DROP EXTENSION elastic_index CASCADE;
