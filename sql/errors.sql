CREATE EXTENSION IF NOT EXISTS elastic_index;
--
-- Bad input must fail with a clear ERROR and the right SQLSTATE.  After
-- each failing statement, \echo :LAST_ERROR_SQLSTATE prints the code.
--
SET client_min_messages = warning;
SET timezone = 'UTC';

CREATE TABLE e1 (id int4, p point, a int4[], j jsonb, t text, b bytea);
INSERT INTO e1 SELECT g, point(g, g), ARRAY[g], '{}', g::text, '\x00'
FROM generate_series(1, 10) AS g;

-- types without an operator class
CREATE INDEX e1_p ON e1 USING elastic_btree (p);
\echo :LAST_ERROR_SQLSTATE
CREATE INDEX e1_a ON e1 USING elastic_btree (a);
\echo :LAST_ERROR_SQLSTATE
CREATE INDEX e1_j ON e1 USING elastic_btree (j);
\echo :LAST_ERROR_SQLSTATE
-- an operator class of another type, or of btree only
CREATE INDEX e1_t ON e1 USING elastic_btree (t int4_ops);
\echo :LAST_ERROR_SQLSTATE
CREATE INDEX e1_t ON e1 USING elastic_btree (t varchar_ops);
\echo :LAST_ERROR_SQLSTATE

-- reloptions
CREATE INDEX e1_id ON e1 USING elastic_btree (id) WITH (fillfactor = 5);
\echo :LAST_ERROR_SQLSTATE
CREATE INDEX e1_id ON e1 USING elastic_btree (id) WITH (fillfactor = 101);
\echo :LAST_ERROR_SQLSTATE
CREATE INDEX e1_id ON e1 USING elastic_btree (id) WITH (fillfactor = 'high');
\echo :LAST_ERROR_SQLSTATE
CREATE INDEX e1_id ON e1 USING elastic_btree (id) WITH (foo = 1);
\echo :LAST_ERROR_SQLSTATE
CREATE INDEX e1_id ON e1 USING elastic_btree (id) WITH (deduplicate_items = maybe);
\echo :LAST_ERROR_SQLSTATE
-- the limits themselves are accepted
CREATE INDEX e1_id10 ON e1 USING elastic_btree (id) WITH (fillfactor = 10);
CREATE INDEX e1_id100 ON e1 USING elastic_btree (id) WITH (fillfactor = 100);
SELECT relname, reloptions FROM pg_class WHERE relname LIKE 'e1_id%' ORDER BY relname;
ALTER INDEX e1_id10 SET (fillfactor = 9);
\echo :LAST_ERROR_SQLSTATE
ALTER INDEX e1_id10 SET (fillfactor = 75);
ALTER INDEX e1_id10 SET (bar = 1);
\echo :LAST_ERROR_SQLSTATE
SELECT relname, reloptions FROM pg_class WHERE relname = 'e1_id10';
ALTER INDEX e1_id10 RESET (fillfactor);
SELECT relname, reloptions FROM pg_class WHERE relname = 'e1_id10';

-- what the access method does not support
CREATE UNIQUE INDEX e1_u ON e1 USING elastic_btree (id);
\echo :LAST_ERROR_SQLSTATE
ALTER TABLE e1 ADD CONSTRAINT e1_excl EXCLUDE USING elastic_btree (id WITH <);
\echo :LAST_ERROR_SQLSTATE
CREATE INDEX e1_ok ON e1 USING elastic_btree (id);

-- keys too large for a page: over the access method's limit of 2704 bytes
-- (after compression), and over the 8 kB limit of any index tuple
SELECT setseed(0.7);
CREATE TABLE e2 (id int4, t text);
CREATE INDEX e2_t ON e2 USING elastic_btree (t);
-- random CJK characters (3 bytes each in UTF-8) do not compress
CREATE FUNCTION e_incompressible(nbytes int) RETURNS text
LANGUAGE sql VOLATILE AS $fn$
	SELECT string_agg(chr(19968 + floor(random() * 20000)::int), '')
		   || repeat('x', nbytes % 3)
	FROM generate_series(1, nbytes / 3)
$fn$;
-- exactly at the limit: a 12-byte tuple header and 2692 bytes of text
INSERT INTO e2 VALUES (1, e_incompressible(2692));
SELECT octet_length(t), pg_column_size(t) FROM e2;
-- one byte more
INSERT INTO e2 VALUES (2, e_incompressible(2693));
\echo :LAST_ERROR_SQLSTATE
INSERT INTO e2 VALUES (3, e_incompressible(10240));
\echo :LAST_ERROR_SQLSTATE
-- long but compressible values are fine
INSERT INTO e2 VALUES (4, repeat('abc', 5000));
SELECT id, octet_length(t) FROM e2 ORDER BY id;
SELECT elastic_index_check('e2_t', true);
-- the same limit during CREATE INDEX
CREATE TABLE e3 (id int4, t text);
INSERT INTO e3 VALUES (1, 'short'), (2, e_incompressible(3000)), (3, 'short too');
CREATE INDEX e3_t ON e3 USING elastic_btree (t);
\echo :LAST_ERROR_SQLSTATE
DELETE FROM e3 WHERE id = 2;
INSERT INTO e3 VALUES (4, e_incompressible(10240));
CREATE INDEX e3_t ON e3 USING elastic_btree (t);
\echo :LAST_ERROR_SQLSTATE
SELECT count(*) FROM pg_class WHERE relname = 'e3_t';
DELETE FROM e3 WHERE id = 4;
CREATE INDEX e3_t ON e3 USING elastic_btree (t);
SELECT elastic_index_check('e3_t', true);
-- the same limit on osm_tree names osm_tree: in the insert buffer, in a
-- transaction's batch, and during CREATE INDEX
CREATE TABLE e6 (id int4, t text);
CREATE INDEX e6_t ON e6 USING osm_tree (t);
INSERT INTO e6 VALUES (1, e_incompressible(2693));
BEGIN;
INSERT INTO e6 VALUES (2, 'short'), (3, e_incompressible(2693));
COMMIT;
DROP INDEX e6_t;
INSERT INTO e6 VALUES (4, e_incompressible(2693));
CREATE INDEX e6_t ON e6 USING osm_tree (t);
DROP TABLE e6;

-- inspection functions on something that is not one of our indexes
CREATE INDEX e1_bt ON e1 USING btree (id);
SELECT * FROM elastic_index_stats('e1_bt');
\echo :LAST_ERROR_SQLSTATE
SELECT * FROM elastic_index_stats('e1');
\echo :LAST_ERROR_SQLSTATE
SELECT * FROM elastic_index_stats('no_such_index');
\echo :LAST_ERROR_SQLSTATE
SELECT elastic_index_check('e1_bt');
\echo :LAST_ERROR_SQLSTATE
SELECT elastic_index_check('e1', true);
\echo :LAST_ERROR_SQLSTATE
SELECT elastic_index_check('no_such_index');
\echo :LAST_ERROR_SQLSTATE
CREATE SEQUENCE e_seq;
SELECT * FROM elastic_index_stats('e_seq');
\echo :LAST_ERROR_SQLSTATE
-- a partitioned index has no storage of its own
CREATE TABLE e4 (k int4) PARTITION BY RANGE (k);
CREATE TABLE e4_1 PARTITION OF e4 FOR VALUES FROM (0) TO (100);
CREATE INDEX e4_k ON e4 USING elastic_btree (k);
SELECT * FROM elastic_index_stats('e4_k');
\echo :LAST_ERROR_SQLSTATE
SELECT elastic_index_check('e4_k');
\echo :LAST_ERROR_SQLSTATE
-- NULL arguments (the functions are strict)
SELECT * FROM elastic_index_stats(NULL);
SELECT elastic_index_check(NULL) IS NULL AS is_null;

-- an index left invalid by a failed CREATE INDEX CONCURRENTLY
CREATE TABLE e5 (a int4);
INSERT INTO e5 VALUES (1), (5), (10);
CREATE INDEX CONCURRENTLY e5_inv ON e5 USING elastic_btree ((10 / (a - 5)));
\echo :LAST_ERROR_SQLSTATE
SELECT indisvalid FROM pg_index WHERE indexrelid = 'e5_inv'::regclass;
SELECT elastic_index_check('e5_inv');
\echo :LAST_ERROR_SQLSTATE
DROP INDEX e5_inv;

-- privileges: the checker is for superusers and roles they grant it to;
-- statistics for the owner and members of pg_stat_scan_tables
CREATE ROLE regress_ei_user;
GRANT SELECT ON e1 TO regress_ei_user;
SET ROLE regress_ei_user;
SELECT elastic_index_check('e1_ok');
\echo :LAST_ERROR_SQLSTATE
SELECT entries FROM elastic_index_stats('e1_ok');
\echo :LAST_ERROR_SQLSTATE
RESET ROLE;
GRANT pg_stat_scan_tables TO regress_ei_user;
GRANT EXECUTE ON FUNCTION elastic_index_check(regclass, bool) TO regress_ei_user;
SET ROLE regress_ei_user;
SELECT entries FROM elastic_index_stats('e1_ok');
SELECT elastic_index_check('e1_ok');
RESET ROLE;
REVOKE EXECUTE ON FUNCTION elastic_index_check(regclass, bool) FROM regress_ei_user;
REVOKE SELECT ON e1 FROM regress_ei_user;
REVOKE pg_stat_scan_tables FROM regress_ei_user;
DROP ROLE regress_ei_user;

-- every operator class of the access method passes its validator
SELECT opc.opcname, amvalidate(opc.oid)
FROM pg_opclass AS opc
JOIN pg_am AS am ON am.oid = opc.opcmethod
WHERE am.amname = 'elastic_btree'
ORDER BY opc.opcname;
-- a broken operator family is reported, not accepted silently
CREATE OPERATOR FAMILY e_broken_ops USING elastic_btree;
CREATE OPERATOR CLASS e_broken_int4_ops FOR TYPE int4 USING elastic_btree
FAMILY e_broken_ops AS
	OPERATOR 1 < ,
	OPERATOR 3 = ,
	FUNCTION 1 btint4cmp(int4, int4);
SELECT amvalidate(oid) FROM pg_opclass WHERE opcname = 'e_broken_int4_ops';
DROP OPERATOR FAMILY e_broken_ops USING elastic_btree;
-- osm_tree shares the validator, which names osm_tree for its families
CREATE OPERATOR FAMILY o_broken_ops USING osm_tree;
CREATE OPERATOR CLASS o_broken_int4_ops FOR TYPE int4 USING osm_tree
FAMILY o_broken_ops AS
	OPERATOR 1 < ,
	FUNCTION 1 btint4cmp(int4, int4);
SELECT amvalidate(oid) FROM pg_opclass WHERE opcname = 'o_broken_int4_ops';
DROP OPERATOR FAMILY o_broken_ops USING osm_tree;

-- size_bound: 'none' says no bound, also over the setting; the empty
-- string, the old spelling of none, is read as none so that older dumps
-- restore, with a warning for the storage parameter, and shown as 'none'
-- for the setting
CREATE INDEX e1_sb0 ON e1 USING elastic_btree (id) WITH (size_bound = '');
SELECT size_bound_pages FROM elastic_index_stats('e1_sb0');
DROP INDEX e1_sb0;
CREATE INDEX e1_sb ON e1 USING elastic_btree (id) WITH (size_bound = 'none');
ALTER INDEX e1_sb SET (size_bound = '');
ALTER INDEX e1_sb SET (size_bound = 'none');
ALTER INDEX e1_sb SET (size_bound = '-1MB');
\echo :LAST_ERROR_SQLSTATE
SET elastic_btree.size_bound = '';
SHOW elastic_btree.size_bound;
SET elastic_btree.size_bound = '1MB';
SELECT size_bound_pages FROM elastic_index_stats('e1_sb');
ALTER INDEX e1_sb RESET (size_bound);
SELECT size_bound_pages FROM elastic_index_stats('e1_sb');
SET elastic_btree.size_bound = 'None';
SELECT size_bound_pages FROM elastic_index_stats('e1_sb');
RESET elastic_btree.size_bound;
DROP INDEX e1_sb;

-- elastic_index_shard_call (what a Citus coordinator runs on a worker for
-- each shard index): the first value of one SELECT, or its error handed
-- back as a row; a cancel is raised, not handed back; one SELECT only
SELECT * FROM elastic_index_shard_call('SELECT 6 * 7');
SELECT * FROM elastic_index_shard_call('SELECT 1 / 0');
SELECT sqlstate, message FROM elastic_index_shard_call('SELECT elastic_index_check(''e1''::regclass)');
SELECT * FROM elastic_index_shard_call('SELECT 1; SELECT 2');
\echo :LAST_ERROR_SQLSTATE
SELECT * FROM elastic_index_shard_call('CREATE TABLE e_made_by_call (a int)');
SET statement_timeout = '100ms';
SELECT * FROM elastic_index_shard_call('SELECT pg_sleep(10)');
\echo :LAST_ERROR_SQLSTATE
RESET statement_timeout;
-- the functions that may call the shards of a distributed index through
-- connections of their own are not run by parallel workers
SELECT p.oid::regprocedure, p.proparallel FROM pg_proc p
WHERE p.proname IN ('elastic_index_stats', 'elastic_index_check',
	'elastic_btree_compact_preview', 'elastic_btree_shrink',
	'elastic_btree_expand', 'osm_tree_flush', 'osm_tree_buffer_stats',
	'elastic_index_shard_call')
ORDER BY p.proname;

DROP TABLE e1, e2, e3, e4, e5;
DROP SEQUENCE e_seq;
DROP FUNCTION e_incompressible(int);
-- the next file creates the extension afresh
DROP EXTENSION elastic_index CASCADE;
