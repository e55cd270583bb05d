CREATE EXTENSION IF NOT EXISTS elastic_index;
-- everything this file creates lives in its own schema
SET client_min_messages = warning;
DROP SCHEMA IF EXISTS ei_osm_mem CASCADE;
CREATE SCHEMA ei_osm_mem;
SET search_path = ei_osm_mem, public;
RESET client_min_messages;
\i test/sql/differential_harness.sql
--
-- osm_tree.batch_memory: the memory a transaction's batches may take, over
-- all its osm_tree indexes, before they are applied (src/osm/batch.c,
-- "Memory"; src/README.md, "Batches").  With a tiny bound, a large load in
-- one transaction is applied in many pieces, and every index answers as
-- btree and a sequential scan do.
--
SET ei_test.am = 'osm_tree';

-- The setting: 8MB by default; -1 (work_mem), or at least 64 kB, in kB units.
SHOW osm_tree.batch_memory;
SET osm_tree.batch_memory = 63;
SET osm_tree.batch_memory = 0;
SET osm_tree.batch_memory = '3TB';
SET osm_tree.batch_memory = 'lots';
SET osm_tree.batch_memory = 64;
SHOW osm_tree.batch_memory;
SET osm_tree.batch_memory = '2MB';
SHOW osm_tree.batch_memory;
SET osm_tree.batch_memory = -1;
SHOW osm_tree.batch_memory;
RESET osm_tree.batch_memory;
SHOW osm_tree.batch_memory;
-- it is the transaction's, not an index's: no storage parameter
CREATE TABLE m_opts (k int8);
CREATE INDEX m_bad ON m_opts USING osm_tree (k) WITH (batch_memory = 64);
DROP TABLE m_opts;

-- 60000 near-sorted rows in one transaction, through three indexes (a
-- fixed-width key, a variable-width one, two columns), with a 64 kB bound
-- and batch_size at its largest: memory alone decides when the batches
-- are applied.
CREATE TABLE m_src AS
SELECT pos AS id, key AS k, md5(key::text) AS t, key % 97 AS g
FROM elastic_index_near_sorted(60000, 5, 5, 24);
SELECT ei_setup('m', 'm_src', 0);
SELECT ei_index('m', 'k', '(k)');
SELECT ei_index('m', 't', '(t)');
SELECT ei_index('m', 'gk', '(g, k DESC)');
SET osm_tree.batch_size = 10000000;
SET osm_tree.batch_memory = '64kB';
BEGIN;
SELECT ei_exec('m', 'INSERT INTO %I SELECT * FROM m_src WHERE id <= 50000 ORDER BY id');
-- every index's batches were applied in many pieces before the commit:
-- 64 kB holds a few hundred entries of the three indexes together
SELECT indexrelname, batches_applied > 100 AS many_pieces,
	   batched_entries + bulk_appended_entries + fastpath_inserts + descents
		 BETWEEN 45000 AND 50000 AS most_entries_in
FROM elastic_index_stat_activity
WHERE indexrelname LIKE 'm\_ei\_%' ORDER BY indexrelname;
-- a savepoint rolled back drops its entries from the count as well
SAVEPOINT s;
SELECT ei_exec('m', 'INSERT INTO %I SELECT * FROM m_src WHERE id > 50000 AND id <= 55000 ORDER BY id');
ROLLBACK TO SAVEPOINT s;
SELECT ei_exec('m', 'INSERT INTO %I SELECT * FROM m_src WHERE id > 55000 ORDER BY id');
COMMIT;
SELECT ei_check_all('m');
SELECT ei_diff('m', 'SELECT k FROM %I WHERE k BETWEEN 1000 AND 1999 ORDER BY k', true);
SELECT ei_diff('m', 'SELECT t FROM %I WHERE t >= ''f'' ORDER BY t LIMIT 500', true);
SELECT ei_diff('m', 'SELECT g, k FROM %I WHERE g = 42 ORDER BY g, k DESC', true);
SELECT ei_diff('m', 'SELECT id FROM %I WHERE k = ANY (ARRAY[1, 777, 50000, 50001, 55001, 60000])', false, '{bitmap}');
SELECT count(*) FROM m_ei WHERE id > 50000 AND id <= 55000;

-- The default (8MB) applies the same load in a few pieces.
RESET osm_tree.batch_memory;
SELECT elastic_index_activity_reset('m_ei_k');
BEGIN;
SELECT ei_exec('m', 'INSERT INTO %I SELECT id + 60000, k + 60000, md5((k + 60000)::text), mod(k + 60000, 97) FROM m_src ORDER BY id');
SELECT batches_applied BETWEEN 1 AND 10 AS few_pieces
FROM elastic_index_stat_activity WHERE indexrelname = 'm_ei_k';
COMMIT;
SELECT ei_check_all('m');
SELECT ei_diff('m', 'SELECT k FROM %I WHERE k BETWEEN 59990 AND 60010 ORDER BY k', true);

-- -1 takes work_mem as the bound.
CREATE TABLE m_w (k int8);
CREATE INDEX m_w_k ON m_w USING osm_tree (k);
SET osm_tree.batch_memory = -1;
SET work_mem = '64kB';
INSERT INTO m_w SELECT generate_series(1, 10000);
SELECT batches_applied > 3 AS several_pieces
FROM elastic_index_stat_activity WHERE indexrelname = 'm_w_k';
RESET work_mem;
RESET osm_tree.batch_memory;
SELECT elastic_index_check('m_w_k', true);

-- Without top_inserts, pieces smaller than one flush go to the insert
-- buffer; the index still answers as a sequential scan does.
CREATE TABLE m_f (id int8, k int8);
CREATE INDEX m_f_k ON m_f USING osm_tree (k);
SET osm_tree.top_inserts = off;
SET osm_tree.batch_memory = '64kB';
BEGIN;
INSERT INTO m_f SELECT pos, key FROM elastic_index_near_sorted(20000, 5, 5, 7);
COMMIT;
SELECT batches_applied > 3 AS several_pieces, buffer_inserts > 0 AS buffered
FROM elastic_index_stat_activity WHERE indexrelname = 'm_f_k';
RESET osm_tree.top_inserts;
RESET osm_tree.batch_memory;
SELECT elastic_index_check('m_f_k', true);
SET enable_seqscan = off;
SET enable_bitmapscan = off;
SELECT count(*), sum(k) FROM m_f WHERE k BETWEEN 100 AND 15000;
RESET enable_seqscan;
RESET enable_bitmapscan;
SET enable_indexscan = off;
SET enable_bitmapscan = off;
SET enable_indexonlyscan = off;
SELECT count(*), sum(k) FROM m_f WHERE k BETWEEN 100 AND 15000;
RESET enable_indexscan;
RESET enable_bitmapscan;
RESET enable_indexonlyscan;

-- The bound is the transaction's: a batch another table's index holds is
-- applied when a lower bound leaves it no room, before the commit.
CREATE TABLE m_a (k int8);
CREATE INDEX m_a_k ON m_a USING osm_tree (k);
CREATE TABLE m_b (k int8);
CREATE INDEX m_b_k ON m_b USING osm_tree (k);
BEGIN;
INSERT INTO m_a SELECT generate_series(1, 3000);
SELECT batches_applied FROM elastic_index_stat_activity WHERE indexrelname = 'm_a_k';
SET LOCAL osm_tree.batch_memory = '64kB';
INSERT INTO m_b VALUES (1);
SELECT indexrelname, batches_applied FROM elastic_index_stat_activity
WHERE indexrelname IN ('m_a_k', 'm_b_k') ORDER BY 1;
COMMIT;
SELECT count(*) FROM m_a WHERE k > 0;
SELECT elastic_index_check('m_a_k', true), elastic_index_check('m_b_k', true);

-- A savepoint rolled back gives back its batches' blocks as well as their
-- entries: a load that fails in each of many partitions, each in its own
-- savepoint, leaves nothing counted, and a later load is applied in as few
-- pieces as in a fresh transaction.
CREATE TABLE m_p (p int, k int8) PARTITION BY LIST (p);
SELECT format('CREATE TABLE m_p_%s PARTITION OF m_p FOR VALUES IN (%s)', g, g)
FROM generate_series(1, 30) AS g \gexec
CREATE INDEX m_p_k ON m_p USING osm_tree (k);
CREATE TABLE m_s (k int8);
CREATE INDEX m_s_k ON m_s USING osm_tree (k);
BEGIN;
SET LOCAL osm_tree.batch_memory = '64kB';
DO $$
BEGIN
	FOR p IN 1..30 LOOP
		BEGIN
			INSERT INTO ei_osm_mem.m_p SELECT p, g FROM generate_series(1, 300) AS g;
			RAISE EXCEPTION 'the load of partition % fails', p;
		EXCEPTION WHEN raise_exception THEN NULL;
		END;
	END LOOP;
END $$;
INSERT INTO m_s SELECT generate_series(1, 2000);
SELECT batches_applied BETWEEN 1 AND 4 AS few_pieces
FROM elastic_index_stat_activity WHERE indexrelname = 'm_s_k';
COMMIT;
SELECT count(*) FROM m_p;
SELECT elastic_index_check('m_s_k', true);

-- A savepoint rolled back cuts its batches back to where the savepoint
-- began (src/osm/batch.c, the marks): the entries the transaction added
-- after a released savepoint stay; those of the savepoint rolled back and
-- of the savepoints inside it go, however many blocks they took, from both
-- indexes' batches; after the batches were applied (here by ALTER TABLE),
-- only what came later is dropped.  A released savepoint's mark passes to
-- its parent, which a rollback then finds.
CREATE TABLE m_x (k int8) WITH (autovacuum_enabled = off);
CREATE INDEX m_x_k ON m_x USING osm_tree (k);
CREATE INDEX m_x_kd ON m_x USING osm_tree (k DESC);
-- The rows of m_x counted and summed through its indexes (ascending, and
-- descending) and by a sequential scan: all three must agree.
CREATE FUNCTION m_x_by_index(OUT n int8, OUT total numeric) LANGUAGE sql
	SET enable_seqscan = off SET enable_bitmapscan = off
	AS 'SELECT count(*), sum(k) FROM m_x WHERE k > 0';
CREATE FUNCTION m_x_by_index_desc(OUT n int8, OUT total numeric) LANGUAGE sql
	SET enable_seqscan = off SET enable_bitmapscan = off
	AS 'SELECT count(*), sum(k) FROM (SELECT k FROM m_x WHERE k > 0 ORDER BY k DESC) s';
CREATE FUNCTION m_x_by_seqscan(OUT n int8, OUT total numeric) LANGUAGE sql
	SET enable_indexscan = off SET enable_bitmapscan = off
	SET enable_indexonlyscan = off
	AS 'SELECT count(*), sum(k) FROM m_x WHERE k > 0';
BEGIN;
INSERT INTO m_x SELECT generate_series(1, 100);
SAVEPOINT a;
INSERT INTO m_x SELECT generate_series(101, 200);
RELEASE a;
INSERT INTO m_x SELECT generate_series(201, 300);
SAVEPOINT b;
INSERT INTO m_x SELECT generate_series(1001, 3000);
SAVEPOINT c;
INSERT INTO m_x SELECT generate_series(3001, 3100);
RELEASE c;
INSERT INTO m_x SELECT generate_series(3101, 3200);
ROLLBACK TO b;
INSERT INTO m_x SELECT generate_series(301, 400);
SAVEPOINT d;
INSERT INTO m_x SELECT generate_series(401, 500);
SAVEPOINT e;
INSERT INTO m_x SELECT generate_series(5001, 5100);
ROLLBACK TO e;
RELEASE d;
SAVEPOINT f;
INSERT INTO m_x SELECT generate_series(501, 600);
ALTER TABLE m_x SET (autovacuum_enabled = off);
INSERT INTO m_x SELECT generate_series(6001, 6100);
ROLLBACK TO f;
INSERT INTO m_x SELECT generate_series(601, 700);
SAVEPOINT x;
SAVEPOINT y;
INSERT INTO m_x SELECT generate_series(7001, 7100);
RELEASE y;
INSERT INTO m_x SELECT generate_series(7101, 7200);
ROLLBACK TO x;
-- a subtransaction per row, every third of which fails
DO $$
BEGIN
	FOR i IN 701..1000 LOOP
		BEGIN
			INSERT INTO ei_osm_mem.m_x VALUES (i);
			IF i % 3 = 0 THEN
				RAISE EXCEPTION 'row % fails', i;
			END IF;
		EXCEPTION WHEN raise_exception THEN NULL;
		END;
	END LOOP;
END $$;
-- the same in a savepoint rolled back: its own entries and the rows' go
SAVEPOINT z;
INSERT INTO m_x SELECT generate_series(9001, 9050);
DO $$
BEGIN
	FOR i IN 9051..9100 LOOP
		BEGIN
			INSERT INTO ei_osm_mem.m_x VALUES (i);
		EXCEPTION WHEN raise_exception THEN NULL;
		END;
	END LOOP;
END $$;
ROLLBACK TO z;
COMMIT;
-- each index: the 800 rows' entries, and the 100 applied for f's rows
SELECT entries + buffer_entries AS entries FROM elastic_index_stats('m_x_k');
SELECT entries + buffer_entries AS entries FROM elastic_index_stats('m_x_kd');
SELECT elastic_index_check('m_x_k', true), elastic_index_check('m_x_kd', true);
SELECT * FROM m_x_by_index(), m_x_by_index_desc(), m_x_by_seqscan();

-- A savepoint whose entries the bound applied in pieces, rolled back: the
-- pieces applied stay (their rows are dead), the rest go.
SELECT elastic_index_activity_reset('m_x_k');
BEGIN;
SAVEPOINT g;
SET LOCAL osm_tree.batch_memory = '64kB';
INSERT INTO m_x SELECT generate_series(8001, 10000);
ROLLBACK TO g;
INSERT INTO m_x SELECT generate_series(1001, 1100);
COMMIT;
SELECT batches_applied > 3 AS several_pieces
FROM elastic_index_stat_activity WHERE indexrelname = 'm_x_k';
SELECT entries + buffer_entries - 1000 BETWEEN 1 AND 1999 AS applied_in_part
FROM elastic_index_stats('m_x_k');
SELECT entries + buffer_entries - 1000 BETWEEN 1 AND 1999 AS applied_in_part
FROM elastic_index_stats('m_x_kd');
SELECT elastic_index_check('m_x_k', true), elastic_index_check('m_x_kd', true);
SELECT * FROM m_x_by_index(), m_x_by_seqscan();

RESET osm_tree.batch_size;
SET client_min_messages = warning;
DROP SCHEMA ei_osm_mem CASCADE;
-- the next file creates the extension afresh
DROP EXTENSION elastic_index CASCADE;
