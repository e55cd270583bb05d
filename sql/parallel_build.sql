--
-- Parallel CREATE INDEX, for both access methods: the workers and the
-- leader scan and sort shares of the table, the leader merges and loads.
-- A parallel build must write exactly the pages a serial build writes (its
-- entries come out of the sort in the same (keys, heap TID) order), with
-- index expressions and predicates evaluated in the workers, as the
-- table's owner.  CREATE INDEX CONCURRENTLY and REINDEX build in parallel
-- too; with no worker to launch the build is serial.
--
-- elastic_index.debug_fault = in_build_worker makes every worker of a
-- parallel build fail as it starts: each parallel build below is first
-- tried so, and must fail, which proves that it launched workers.
--
CREATE EXTENSION IF NOT EXISTS elastic_index;
CREATE EXTENSION IF NOT EXISTS pageinspect;
CREATE SCHEMA parallel_build;
SET search_path = parallel_build, public;

-- two workers are planned: the table's parallel_workers, at most
-- max_parallel_maintenance_workers, with 32MB of maintenance_work_mem for
-- each participant (the leader takes part)
SET max_parallel_maintenance_workers = 2;
SET min_parallel_table_scan_size = 0;
SET maintenance_work_mem = '128MB';

-- the table belongs to a role without privileges: builds run as it
CREATE ROLE regress_pb_owner;
GRANT USAGE, CREATE ON SCHEMA parallel_build TO regress_pb_owner;

-- an index expression that fails during the builds below (pb_build sets
-- parallel_build.owner_only) unless evaluated as the table's owner
CREATE FUNCTION pb_as_owner(v int8) RETURNS int8
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $fn$
BEGIN
	IF current_setting('parallel_build.owner_only', true) = 'on' AND
	   current_user <> 'regress_pb_owner' THEN
		RAISE EXCEPTION 'index expression evaluated as %', current_user;
	END IF;
	RETURN v;
END
$fn$;

SELECT setseed(0.25);
CREATE TABLE pb (id int4, k int8, t text, g int4)
	WITH (parallel_workers = 2, autovacuum_enabled = off);
ALTER TABLE pb OWNER TO regress_pb_owner;
-- long runs of duplicates (k: 100 values, t: 500, some long enough to be
-- stored compressed), NULLs, dead tuples and updated rows
INSERT INTO pb
SELECT i, CASE WHEN i % 97 = 0 THEN NULL ELSE (i * 7919) % 100 END,
	   CASE WHEN i % 50 = 0 THEN repeat(md5((i % 500)::text), 40)
			ELSE md5((i % 500)::text) END,
	   (random() * 9)::int4
FROM generate_series(1, 60000) AS i;
DELETE FROM pb WHERE id % 11 = 0;
UPDATE pb SET k = k + 1 WHERE id % 13 = 0;
ANALYZE pb;

-- Do two indexes have the same pages, but for each page's LSN and checksum
-- (the first ten bytes)?
CREATE FUNCTION pb_same_pages(a regclass, b regclass) RETURNS text
LANGUAGE plpgsql AS $fn$
DECLARE
	na			int8 := pg_relation_size(a) / current_setting('block_size')::int;
	nb			int8 := pg_relation_size(b) / current_setting('block_size')::int;
BEGIN
	IF na <> nb THEN
		RETURN format('%s pages, %s pages', na, nb);
	END IF;
	FOR i IN 0 .. na - 1 LOOP
		IF substr(get_raw_page(a::text, i::int), 11) <>
		   substr(get_raw_page(b::text, i::int), 11) THEN
			RETURN format('block %s differs', i);
		END IF;
	END LOOP;
	RETURN 'same pages';
END
$fn$;

-- Build the index "ON tbl USING am def" three ways: NAME_s serially in
-- memory, NAME_m serially through the tuplesort (maintenance_work_mem too
-- small for the entries), and NAME_p with two workers, after checking that
-- its build fails when its workers do (so it launched them).  Verify
-- NAME_p and compare its pages with the other two.
CREATE FUNCTION pb_build(name text, am text, def text, tbl text DEFAULT 'pb')
RETURNS text
LANGUAGE plpgsql AS $fn$
DECLARE
	stmt		text := 'CREATE INDEX %I ON ' || tbl || ' USING ' || am || ' ' || def;
	launched	bool := false;
BEGIN
	PERFORM set_config('parallel_build.owner_only', 'on', true);
	-- (not the NOTICE that expression indexes keep standard leaves)
	PERFORM set_config('client_min_messages', 'warning', true);
	PERFORM set_config('max_parallel_maintenance_workers', '0', true);
	EXECUTE format(stmt, name || '_s');
	PERFORM set_config('maintenance_work_mem', '1MB', true);
	EXECUTE format(stmt, name || '_m');
	PERFORM set_config('maintenance_work_mem', '128MB', true);
	PERFORM set_config('max_parallel_maintenance_workers', '2', true);
	BEGIN
		PERFORM set_config('elastic_index.debug_fault', 'in_build_worker', true);
		EXECUTE format(stmt, name || '_p');
	EXCEPTION WHEN internal_error THEN
		launched := SQLERRM LIKE '%fault injected%';
	END;
	PERFORM set_config('elastic_index.debug_fault', 'none', true);
	IF NOT launched THEN
		RETURN 'the parallel build launched no worker';
	END IF;
	EXECUTE format(stmt, name || '_p');
	PERFORM set_config('parallel_build.owner_only', 'off', true);
	PERFORM elastic_index_check((name || '_p')::regclass, true);
	RETURN format('%s %s: parallel vs serial: %s; vs serial through tuplesort: %s',
				  am, def, pb_same_pages((name || '_s')::regclass, (name || '_p')::regclass),
				  pb_same_pages((name || '_m')::regclass, (name || '_p')::regclass));
END
$fn$;

-- Run query q (a SELECT) through an index and by a sequential scan; 'same'
-- if both return the same rows, and the access method of the index the
-- plan reads (not its name: several of the indexes serve some queries at
-- nearly the same cost, and majors break such ties differently).
CREATE FUNCTION pb_diff(q text) RETURNS text
LANGUAGE plpgsql AS $fn$
DECLARE
	agg			text := 'SELECT count(*), md5(string_agg(r::text, '','' ORDER BY r::text)) FROM (%s) AS r';
	plan		text;
	via_index	text;
	via_seq		text;
	line		text;
BEGIN
	PERFORM set_config('enable_seqscan', 'off', true);
	PERFORM set_config('enable_bitmapscan', 'off', true);
	FOR line IN EXECUTE 'EXPLAIN (COSTS OFF) ' || q LOOP
		plan := coalesce(plan, '') || line;
	END LOOP;
	EXECUTE format(agg, q) INTO via_index;
	PERFORM set_config('enable_seqscan', 'on', true);
	PERFORM set_config('enable_indexscan', 'off', true);
	PERFORM set_config('enable_indexonlyscan', 'off', true);
	EXECUTE format(agg, q) INTO via_seq;
	PERFORM set_config('enable_bitmapscan', 'on', true);
	PERFORM set_config('enable_indexscan', 'on', true);
	PERFORM set_config('enable_indexonlyscan', 'on', true);
	line := substring(plan FROM 'using (\S+)');
	RETURN CASE WHEN via_index = via_seq THEN 'same' ELSE 'DIFFERENT' END ||
		' via ' || coalesce((SELECT amname FROM pg_class JOIN pg_am ON pg_am.oid = relam
							 WHERE relname = line AND relnamespace = 'parallel_build'::regnamespace),
							'no index');
END
$fn$;

-- a worker's failure reaches the leader; with no worker to launch
-- (max_parallel_workers = 0) the build falls back to serial and never
-- reaches the fault
SET elastic_index.debug_fault = in_build_worker;
CREATE INDEX pb_fail ON pb USING elastic_btree (k);
SET max_parallel_workers = 0;
CREATE INDEX pb_fallback ON pb USING elastic_btree (k);
RESET max_parallel_workers;
RESET elastic_index.debug_fault;
SELECT elastic_index_check('pb_fallback', true);
DROP INDEX pb_fallback;

\set am elastic_btree
\i test/sql/parallel_build_am.sql
\set am osm_tree
\i test/sql/parallel_build_am.sql

-- CREATE INDEX CONCURRENTLY builds in parallel, with an MVCC snapshot
SELECT pb_build('pb_c', 'elastic_btree', '(k)');
SET elastic_index.debug_fault = in_build_worker;
CREATE INDEX CONCURRENTLY pb_cic ON pb USING elastic_btree (k);
RESET elastic_index.debug_fault;
DROP INDEX pb_cic;
CREATE INDEX CONCURRENTLY pb_cic ON pb USING elastic_btree (k);
SELECT pb_same_pages('pb_c_s', 'pb_cic');
SELECT elastic_index_check('pb_cic', true);

-- REINDEX and REINDEX CONCURRENTLY build in parallel too
SET elastic_index.debug_fault = in_build_worker;
REINDEX INDEX pb_c_m;
RESET elastic_index.debug_fault;
REINDEX INDEX pb_c_m;
SELECT pb_same_pages('pb_c_s', 'pb_c_m');
REINDEX INDEX CONCURRENTLY pb_cic;
SELECT pb_same_pages('pb_c_s', 'pb_cic');
SELECT elastic_index_check('pb_cic', true);
DROP INDEX pb_c_s, pb_c_m, pb_c_p;
SELECT pb_diff('SELECT id, k FROM pb WHERE k BETWEEN 10 AND 20');
DROP INDEX pb_cic;

-- elastic_btree under a size bound its posting lists fit: the build, which
-- measures its first leaves, writes standard leaves either way, and the
-- leaves a shrink then makes compact are the same (on a copy of the table
-- without HOT chains; sql/elastic_build_compact.sql builds compact leaves
-- in parallel)
CREATE TABLE pbc WITH (parallel_workers = 2, autovacuum_enabled = off)
	AS SELECT * FROM pb;
ALTER TABLE pbc OWNER TO regress_pb_owner;
ANALYZE pbc;
SELECT pb_build('pb_bound', 'elastic_btree', '(k) WITH (size_bound = ''1MB'')', 'pbc');
SELECT elastic_btree_shrink('pb_bound_s') > 0 AS shrunk,
	   elastic_btree_shrink('pb_bound_p') > 0 AS shrunk;
SELECT compact_leaf_pages > 0 AS compact FROM elastic_index_stats('pb_bound_p');
SELECT pb_same_pages('pb_bound_s', 'pb_bound_p');
SELECT elastic_index_check('pb_bound_p', true);
-- an unlogged table (its index is not WAL-logged), and a partitioned table,
-- whose partitions' indexes each build in parallel
CREATE UNLOGGED TABLE pbu WITH (parallel_workers = 2, autovacuum_enabled = off)
	AS SELECT * FROM pbc;
ALTER TABLE pbu OWNER TO regress_pb_owner;
ANALYZE pbu;
SELECT pb_build('pb_u', 'osm_tree', '(k, id)', 'pbu');
CREATE TABLE pbp (id int4, k int8) PARTITION BY RANGE (id);
CREATE TABLE pbp1 PARTITION OF pbp FOR VALUES FROM (0) TO (30000)
	WITH (parallel_workers = 2, autovacuum_enabled = off);
CREATE TABLE pbp2 PARTITION OF pbp FOR VALUES FROM (30000) TO (60001)
	WITH (parallel_workers = 2, autovacuum_enabled = off);
INSERT INTO pbp SELECT id, k FROM pbc;
ANALYZE pbp;
SET elastic_index.debug_fault = in_build_worker;
CREATE INDEX pbp_k ON pbp USING elastic_btree (k);
RESET elastic_index.debug_fault;
CREATE INDEX pbp_k ON pbp USING elastic_btree (k);
SELECT elastic_index_check('pbp1_k_idx', true), elastic_index_check('pbp2_k_idx', true);
SELECT pb_diff('SELECT id FROM pbp WHERE k BETWEEN 40 AND 45');

RESET max_parallel_maintenance_workers;
RESET min_parallel_table_scan_size;
RESET maintenance_work_mem;
SET client_min_messages = warning;
DROP SCHEMA parallel_build CASCADE;
DROP OWNED BY regress_pb_owner;
DROP ROLE regress_pb_owner;
-- the next file creates the extension afresh
DROP EXTENSION pageinspect;
DROP EXTENSION elastic_index CASCADE;
RESET client_min_messages;
RESET search_path;
