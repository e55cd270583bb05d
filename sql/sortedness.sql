CREATE EXTENSION IF NOT EXISTS elastic_index;
--
-- The near-sortedness generator and advisor (src/inspect/sortedness.c,
-- algorithms in src/lib/nearsort.c).  Tables are filled in arrival order by
-- the generator with known K and L; the advisor, reading them in physical
-- order, must report K and L within 10% of what was asked (and ~0 for
-- sorted data).
--
SET client_min_messages = warning;
DROP TABLE IF EXISTS ns_data;
RESET client_min_messages;

-- a permutation of 1..n, deterministic, sorted for K = L = 0
SELECT count(*) AS n, count(DISTINCT key) AS distinct_keys, min(key), max(key),
	   bool_and(key = pos) AS sorted
FROM elastic_index_near_sorted(20000, 0, 0);
SELECT count(*) AS n, count(DISTINCT key) AS distinct_keys, min(key), max(key),
	   count(*) FILTER (WHERE key <> pos) > 0 AS some_moved
FROM elastic_index_near_sorted(20000, 5, 5);
SELECT (SELECT array_agg(key ORDER BY pos) FROM elastic_index_near_sorted(1000, 10, 2, 42)) =
	   (SELECT array_agg(key ORDER BY pos) FROM elastic_index_near_sorted(1000, 10, 2, 42)) AS same_seed_same_keys,
	   (SELECT array_agg(key ORDER BY pos) FROM elastic_index_near_sorted(1000, 10, 2, 42)) <>
	   (SELECT array_agg(key ORDER BY pos) FROM elastic_index_near_sorted(1000, 10, 2, 43)) AS other_seed_other_keys;
-- no key moves further than L% of n (plus the few positions that other
-- moved keys add)
SELECT max(abs(key - pos)) BETWEEN 0.9 * 200 AND 1.1 * 200 AS max_displacement_near_l
FROM elastic_index_near_sorted(20000, 1, 1);

-- the advisor on generated tables of known K and L
CREATE TABLE ns_data (k float8, l float8, pos int8, key int8, pad text);
CREATE FUNCTION ns_measure(k float8, l float8, n int8)
RETURNS TABLE (k_asked float8, l_asked float8, rows_sampled int8,
			   k_ok bool, l_ok bool, advice text)
LANGUAGE plpgsql AS $fn$
DECLARE
	r		record;
BEGIN
	DROP TABLE IF EXISTS ns_one;
	CREATE TABLE ns_one (key int8, pad text);
	INSERT INTO ns_one SELECT g.key, 'x' FROM elastic_index_near_sorted(n, k, l) AS g ORDER BY g.pos;
	-- the advisor samples when pg_class.reltuples says the table is large
	ANALYZE ns_one;
	SELECT * INTO r FROM elastic_index_sortedness('ns_one', 'key', 50000);
	k_asked := k;
	l_asked := l;
	rows_sampled := r.rows_sampled;
	-- within 10% of the asked value, or below 0.1 points when 0 was asked
	k_ok := CASE WHEN k = 0 THEN r.k_percent < 0.1 ELSE abs(r.k_percent - k) <= 0.1 * k END;
	l_ok := CASE WHEN k = 0 OR l = 0 THEN r.l_percent < 0.1 ELSE abs(r.l_percent - l) <= 0.1 * l END;
	advice := split_part(r.advice, ':', 1);
	IF NOT (k_ok AND l_ok) THEN
		RAISE NOTICE 'K=% L=%: measured K=% L=%', k, l, r.k_percent, r.l_percent;
	END IF;
	RETURN NEXT;
END
$fn$;
SELECT m.* FROM (VALUES (0::float8, 0::float8), (1, 1), (5, 5), (2, 10), (25, 25), (100, 100)) AS v(k, l),
	 LATERAL ns_measure(v.k, v.l, 20000) AS m;

-- a larger table is sampled (row by row); K and L stay close
SELECT rows_sampled < 60000 AS sampled, k_ok, l_ok FROM ns_measure(5, 5, 200000);

-- NULLs are left out; an empty column has nothing to measure
CREATE TABLE ns_nulls (v int4);
INSERT INTO ns_nulls SELECT CASE WHEN g % 2 = 0 THEN g END FROM generate_series(1, 1000) AS g;
SELECT rows_sampled, k_percent, l_percent FROM elastic_index_sortedness('ns_nulls', 'v');
TRUNCATE ns_nulls;
SELECT * FROM elastic_index_sortedness('ns_nulls', 'v');

-- errors
SELECT * FROM elastic_index_near_sorted(10, 101, 5);
SELECT * FROM elastic_index_near_sorted(10, 5, -1);
SELECT * FROM elastic_index_near_sorted(-1, 5, 5);
SELECT * FROM elastic_index_sortedness('ns_nulls', 'nope');
SELECT * FROM elastic_index_sortedness('ns_nulls', 'v', 10);
CREATE VIEW ns_view AS SELECT 1 AS v;
SELECT * FROM elastic_index_sortedness('ns_view', 'v');

DROP VIEW ns_view;
DROP TABLE ns_data, ns_one, ns_nulls;
DROP FUNCTION ns_measure(float8, float8, int8);

-- the next file creates the extension afresh
SET client_min_messages = warning;
DROP EXTENSION elastic_index CASCADE;
RESET client_min_messages;
