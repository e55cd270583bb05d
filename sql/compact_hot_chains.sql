CREATE EXTENSION IF NOT EXISTS elastic_index;
-- everything this file creates lives in its own schema
SET client_min_messages = warning;
DROP SCHEMA IF EXISTS ei_hot CASCADE;
CREATE SCHEMA ei_hot;
SET search_path = ei_hot, public;
RESET client_min_messages;
\i test/sql/differential_harness.sql
--
-- 1. Compact leaves over HOT chains that are broken for the index: the
-- rows were HOT-updated, changing the indexed columns, before the index
-- existed.  CREATE INDEX indexes such a chain once, under its root's TID,
-- with the values of the chain's last member; a compact leaf, which keeps
-- no keys, must read those values and not the root's (src/README.md,
-- "Keys read from the heap").  Nothing here vacuums before the indexes
-- are checked, so the roots are still there: the chains are not pruned to
-- redirects.  After each phase (shrink, inserts that split compact leaves,
-- expansion, VACUUM) the three tables must answer alike and every index
-- must pass elastic_index_check.
--
CREATE TABLE hc_src AS
SELECT i AS id,
	CASE WHEN i % 97 = 0 THEN NULL ELSE (i * 7919) % 100 END::int8 AS k,
	CASE WHEN i % 50 = 0 THEN repeat(md5((i % 500)::text), 40)
		 ELSE md5((i % 500)::text) END AS t,
	(i % 7)::int4 AS g,
	'pad'::text AS pad
FROM generate_series(1, 60000) AS i;
SELECT ei_setup('hc', 'hc_src', 60000);
-- the reported case: deletes, then HOT updates that change k
SELECT ei_exec('hc', 'DELETE FROM %I WHERE id %% 11 = 0');
SELECT ei_exec('hc', 'UPDATE %I SET k = k + 1 WHERE id %% 13 = 0');
-- chains of several members, changing k, t and g in turn
SELECT ei_exec('hc', 'UPDATE %I SET k = k + 2, t = t || ''x'' WHERE id %% 17 = 0');
SELECT ei_exec('hc', 'UPDATE %I SET g = g + 10, t = upper(t) WHERE id %% 19 = 0');
SELECT ei_exec('hc', 'UPDATE %I SET k = 200 - k WHERE id %% 221 = 0');
-- a HOT update that aborted: its new member is no part of the chain
BEGIN;
SELECT ei_exec('hc', 'UPDATE %I SET k = -k, g = -1 WHERE id %% 23 = 0');
ROLLBACK;
-- one update in a subtransaction that aborted, one that commits, then the
-- first index, in the same transaction
BEGIN;
SAVEPOINT s;
SELECT ei_exec('hc', 'UPDATE %I SET k = k + 1000 WHERE id %% 29 = 0');
ROLLBACK TO SAVEPOINT s;
SELECT ei_exec('hc', 'UPDATE %I SET k = k + 3 WHERE id %% 31 = 0');
SELECT ei_index('hc', 'k', '(k)');
COMMIT;
SELECT ei_index('hc', 'tk', '(t, k DESC)');
SELECT ei_index('hc', 'gk', '(g, k) INCLUDE (id)');
SELECT ei_index('hc', 't', '(t)');
SELECT i.indcheckxmin AS broken_chains_seen
FROM pg_index i WHERE i.indexrelid = 'hc_ei_k'::regclass;
ANALYZE hc_seq, hc_bt, hc_ei;

-- every leaf of every index compact where the keys allow it
CREATE FUNCTION hc_shrink() RETURNS text
LANGUAGE sql AS $fn$
	SELECT string_agg(format('%s:%s', c.relname,
							 elastic_btree_shrink(c.oid) > 0), ' ' ORDER BY c.relname)
	FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
	WHERE i.indrelid = 'hc_ei'::regclass
$fn$;
CREATE FUNCTION hc_expand() RETURNS text
LANGUAGE sql AS $fn$
	SELECT string_agg(format('%s:%s', c.relname,
							 elastic_btree_expand(c.oid) > 0), ' ' ORDER BY c.relname)
	FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
	WHERE i.indrelid = 'hc_ei'::regclass
$fn$;
-- the differential queries of every phase
CREATE FUNCTION hc_diff() RETURNS SETOF text
LANGUAGE plpgsql AS $fn$
BEGIN
	-- every key of k, looked up by itself
	RETURN NEXT ei_diff('hc', 'SELECT v, (SELECT count(*) FROM %I WHERE k = v) FROM generate_series(-5, 205) AS v', false, '{indexonly}');
	RETURN NEXT ei_diff('hc', 'SELECT v, (SELECT sum(id) FROM %I WHERE k = v) FROM generate_series(-5, 205) AS v', false, '{index}');
	RETURN NEXT ei_diff('hc', 'SELECT k, count(*) FROM %I WHERE k BETWEEN 10 AND 60 GROUP BY k', false);
	RETURN NEXT ei_diff('hc', 'SELECT k FROM %I WHERE k >= 95 ORDER BY k', true, '{index,indexonly}');
	RETURN NEXT ei_diff('hc', 'SELECT k FROM %I WHERE k <= 5 ORDER BY k DESC', true, '{index,indexonly}');
	RETURN NEXT ei_diff('hc', 'SELECT id FROM %I WHERE k IS NULL', false, '{index,bitmap}');
	RETURN NEXT ei_diff('hc', 'SELECT min(k), max(k) FROM %I', true, '{index,indexonly}');
	-- the text and multi-column indexes
	RETURN NEXT ei_diff('hc', 'SELECT t, k FROM %I WHERE t = upper(md5(''38''))', false, '{index,bitmap}');
	RETURN NEXT ei_diff('hc', 'SELECT t, k FROM %I WHERE t >= md5(''38'') AND t < md5(''38'') || ''y''', false, '{index,bitmap}');
	RETURN NEXT ei_diff('hc', 'SELECT t, k FROM %I WHERE t > ''E'' AND t < ''G'' ORDER BY t, k DESC', true, '{index,indexonly}');
	RETURN NEXT ei_diff('hc', 'SELECT g, k FROM %I WHERE g >= 10 ORDER BY g, k', true, '{index,indexonly}');
	RETURN NEXT ei_diff('hc', 'SELECT g, k, id FROM %I WHERE g = 3 AND k BETWEEN 40 AND 45', false);
	RETURN NEXT ei_diff('hc', 'SELECT id FROM %I WHERE g = -1 OR k < 0', false, '{bitmap}');
END
$fn$;

-- the preview reads the keys from the heap and compares them with the leaves'
SELECT dead_entries, verified_entries > 0 AS verified
FROM elastic_btree_compact_preview('hc_ei_k', true);
SELECT hc_shrink();
SELECT c.relname, s.compact_leaf_pages > 0 AS has_compact
FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid,
	 LATERAL elastic_index_stats(c.oid) AS s
WHERE i.indrelid = 'hc_ei'::regclass ORDER BY c.relname;
SELECT ei_check_all('hc');
SELECT hc_diff();

-- 2. inserts into the compact leaves, enough to split them, and HOT
-- updates after the indexes exist (which keep the indexed columns)
SELECT ei_exec('hc', 'INSERT INTO %I SELECT 100000 + i, (i * 31) %% 100, md5((i %% 300)::text), i %% 7, ''new'' FROM generate_series(1, 30000) AS i');
SELECT ei_exec('hc', 'UPDATE %I SET pad = ''hot after'' WHERE id %% 13 = 0 OR id %% 37 = 0');
SELECT ei_check_all('hc');
SELECT hc_diff();

-- 3. back to standard leaves: their tuples are formed from the heap
SELECT hc_expand();
SELECT ei_check_all('hc');
SELECT hc_diff();

-- 4. VACUUM (pruning leaves redirects to the chains' ends), compact again
SELECT hc_shrink();
VACUUM hc_seq, hc_bt, hc_ei;
SELECT ei_check_all('hc');
SELECT hc_diff();
SELECT hc_expand();
SELECT ei_check_all('hc');
SELECT hc_diff();

--
-- 5. Functions that run the table owner's code (index expressions and
-- predicates, the operator class's support functions) run it as the
-- table's owner, in a security-restricted operation, as amcheck and
-- VACUUM do: called by a superuser, the owner's code sees the owner as
-- current_user.  Every function below raises an error for anybody else.
--
CREATE ROLE regress_ei_hot_owner;
GRANT USAGE, CREATE ON SCHEMA ei_hot TO regress_ei_hot_owner;
CREATE FUNCTION hc_owner_only(int4) RETURNS int4
LANGUAGE plpgsql IMMUTABLE AS $fn$
BEGIN
	IF current_user <> 'regress_ei_hot_owner' THEN
		RAISE EXCEPTION 'index code of regress_ei_hot_owner run by another role';
	END IF;
	RETURN $1;
END
$fn$;
CREATE FUNCTION hc_owner_cmp(int4, int4) RETURNS int4
LANGUAGE plpgsql IMMUTABLE AS $fn$
BEGIN
	IF current_user <> 'regress_ei_hot_owner' THEN
		RAISE EXCEPTION 'comparison of regress_ei_hot_owner run by another role';
	END IF;
	RETURN btint4cmp($1, $2);
END
$fn$;
-- (from 17 on the owner's code runs with search_path pg_catalog, pg_temp)
CREATE FUNCTION hc_owner_norm(int4) RETURNS bytea
LANGUAGE plpgsql IMMUTABLE AS $fn$
BEGIN
	IF current_user <> 'regress_ei_hot_owner' THEN
		RAISE EXCEPTION 'normalization of regress_ei_hot_owner run by another role';
	END IF;
	RETURN public.elastic_btree_normalize($1);
END
$fn$;
-- operators of their own, so that a btree operator class with the same
-- comparison function can sort them (as index builds need)
CREATE OPERATOR ei_hot.<# (LEFTARG = int4, RIGHTARG = int4, FUNCTION = int4lt);
CREATE OPERATOR ei_hot.<=# (LEFTARG = int4, RIGHTARG = int4, FUNCTION = int4le);
CREATE OPERATOR ei_hot.=# (LEFTARG = int4, RIGHTARG = int4, FUNCTION = int4eq);
CREATE OPERATOR ei_hot.>=# (LEFTARG = int4, RIGHTARG = int4, FUNCTION = int4ge);
CREATE OPERATOR ei_hot.># (LEFTARG = int4, RIGHTARG = int4, FUNCTION = int4gt);
CREATE OPERATOR CLASS hc_owner_ops FOR TYPE int4 USING btree AS
	OPERATOR 1 <# , OPERATOR 2 <=# , OPERATOR 3 =# , OPERATOR 4 >=# , OPERATOR 5 ># ,
	FUNCTION 1 hc_owner_cmp(int4, int4);
CREATE OPERATOR CLASS hc_owner_ops FOR TYPE int4 USING elastic_btree AS
	OPERATOR 1 <# , OPERATOR 2 <=# , OPERATOR 3 =# , OPERATOR 4 >=# , OPERATOR 5 ># ,
	FUNCTION 1 hc_owner_cmp(int4, int4),
	FUNCTION 7 hc_owner_norm(int4);
CREATE OPERATOR CLASS hc_owner_ops FOR TYPE int4 USING osm_tree AS
	OPERATOR 1 <# , OPERATOR 2 <=# , OPERATOR 3 =# , OPERATOR 4 >=# , OPERATOR 5 ># ,
	FUNCTION 1 hc_owner_cmp(int4, int4);

CREATE TABLE hc_owned (a int4, b int4);
ALTER TABLE hc_owned OWNER TO regress_ei_hot_owner;
SET ROLE regress_ei_hot_owner;
INSERT INTO hc_owned SELECT i, i % 100 FROM generate_series(1, 5000) AS i;
CREATE INDEX hc_owned_expr ON hc_owned USING elastic_btree (hc_owner_only(a))
	WHERE hc_owner_only(b) >= 0;
CREATE INDEX hc_owned_ops ON hc_owned USING elastic_btree (a hc_owner_ops);
-- (rows inserted one at a time go to the insert buffer, without
-- osm_tree.top_inserts)
CREATE INDEX hc_owned_osm ON hc_owned USING osm_tree (b hc_owner_ops, a)
	WITH (buffer_size = 64, batch_size = 1);
CREATE INDEX hc_owned_osm_expr ON hc_owned USING osm_tree (hc_owner_only(b))
	WITH (buffer_size = 64, batch_size = 1);
SET osm_tree.top_inserts = off;
INSERT INTO hc_owned SELECT i, i % 100 FROM generate_series(5001, 8000) AS i;
RESET osm_tree.top_inserts;
RESET ROLE;
SELECT entries > 0 AS buffered FROM osm_tree_buffer_stats('hc_owned_osm');

-- the superuser calls each function
SELECT elastic_index_check('hc_owned_expr', true);
SELECT elastic_index_check('hc_owned_ops', false);
SELECT elastic_index_check('hc_owned_osm_expr', true);
SELECT osm_tree_flush('hc_owned_osm') > 0 AS flushed;
SELECT elastic_index_check('hc_owned_osm', true);
SELECT leaf_pages > 0 AS has_leaves, dead_entries, verified_entries
FROM elastic_btree_compact_preview('hc_owned_ops', true);
SELECT elastic_btree_shrink('hc_owned_ops') > 0 AS shrunk;
SELECT elastic_index_check('hc_owned_ops', true);
-- compact leaves made by the owner, expanded by the superuser
SET ROLE regress_ei_hot_owner;
SELECT elastic_btree_expand('hc_owned_ops') >= 0 AS expanded_by_owner;
SELECT elastic_btree_shrink('hc_owned_ops') > 0 AS shrunk_by_owner;
RESET ROLE;
SELECT elastic_btree_expand('hc_owned_ops') > 0 AS expanded;
SELECT elastic_index_check('hc_owned_ops', true);
-- and is itself again afterwards
SELECT current_user = session_user AS caller_again;
SET search_path = ei_hot, public;

-- the owner's code still sees its caller where nothing switches
SELECT hc_owner_only(1);

SET client_min_messages = warning;
DROP SCHEMA ei_hot CASCADE;
DROP ROLE regress_ei_hot_owner;
-- the next file creates the extension afresh
DROP EXTENSION elastic_index CASCADE;
RESET client_min_messages;
RESET search_path;
