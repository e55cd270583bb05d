--
-- Hypothetical elastic_btree and osm_tree indexes (src/hypo), next to
-- HypoPG's hypothetical btree on the same table, in one session.  Only a
-- plain EXPLAIN sees them; EXPLAIN ANALYZE and real queries never do.
--
CREATE EXTENSION IF NOT EXISTS elastic_index;
CREATE EXTENSION IF NOT EXISTS hypopg;
CREATE TABLE hy (id int8, v text, ts timestamp);
INSERT INTO hy SELECT g, md5(g::text), timestamp '2024-01-01' + g * interval '1 minute'
FROM generate_series(1, 100000) AS g;
ANALYZE hy;

-- plan lines with the hypothetical OIDs (which differ between HypoPG
-- versions and catalogs) masked
CREATE FUNCTION hy_plan(q text) RETURNS SETOF text LANGUAGE plpgsql AS $$
DECLARE
	line text;
BEGIN
	FOR line IN EXECUTE 'EXPLAIN (COSTS OFF) ' || q LOOP
		RETURN NEXT regexp_replace(line, '<[0-9]+>', '<oid>', 'g');
	END LOOP;
END $$;

-- side by side: HypoPG's btree and our elastic_btree on id, osm_tree on ts
SELECT regexp_replace(indexname, '<[0-9]+>', '<oid>') AS hypopg_index
FROM hypopg_create_index('CREATE INDEX ON hy (id)');
SELECT regexp_replace(indexname, '<[0-9]+>', '<oid>') AS our_index
FROM elastic_index_hypothetical_create('CREATE INDEX ON hy USING elastic_btree (id)');
SELECT regexp_replace(indexname, '<[0-9]+>', '<oid>') AS our_index
FROM elastic_index_hypothetical_create('CREATE INDEX ON hy USING osm_tree (ts DESC)');
SELECT count(*) AS hypopg_indexes FROM hypopg_list_indexes;
SELECT regexp_replace(indexname, '<[0-9]+>', '<oid>') AS indexname, relid, amname
FROM elastic_index_hypothetical_list() ORDER BY indexname;
-- their OIDs do not collide, and no relation has them
SELECT count(*) AS collisions FROM elastic_index_hypothetical_list() e
WHERE e.indexrelid IN (SELECT indexrelid FROM hypopg_list_indexes)
   OR e.indexrelid IN (SELECT oid FROM pg_class);

-- EXPLAIN chooses each: osm_tree for ts; for id, HypoPG's btree and our
-- elastic_btree cost the same and the planner takes one of them
SELECT * FROM hy_plan('SELECT * FROM hy WHERE ts >= ''2024-02-01'' AND ts < ''2024-02-02''');
SELECT * FROM hy_plan('SELECT ts FROM hy ORDER BY ts DESC LIMIT 5');
SELECT * FROM hy_plan('SELECT * FROM hy WHERE id = 42') AS p
WHERE p LIKE '%Index Scan%';
-- without HypoPG's, ours is chosen
SELECT hypopg_reset();
SELECT * FROM hy_plan('SELECT * FROM hy WHERE id = 42');
-- EXPLAIN ANALYZE and real queries never use a hypothetical index
EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) SELECT * FROM hy WHERE id = 42;
SELECT count(*) FROM hy WHERE id = 42;

-- the size model: a bound makes the estimate smaller, text keys never
-- compact, osm_tree fills leaves to 96%
SELECT elastic_index_hypothetical_reset();
SELECT regexp_replace(indexname, '<[0-9]+>', '<oid>') AS our_index
FROM elastic_index_hypothetical_create('CREATE INDEX ON hy USING elastic_btree (id)');
SELECT regexp_replace(indexname, '<[0-9]+>', '<oid>') AS our_index
FROM elastic_index_hypothetical_create('CREATE INDEX ON hy USING elastic_btree (id) WITH (size_bound = ''1MB'')');
SELECT regexp_replace(indexname, '<[0-9]+>', '<oid>') AS our_index
FROM elastic_index_hypothetical_create('CREATE INDEX ON hy USING elastic_btree (v) WITH (size_bound = ''1MB'')');
SELECT regexp_replace(indexname, '<[0-9]+>', '<oid>') AS our_index
FROM elastic_index_hypothetical_create('CREATE INDEX ON hy USING osm_tree (id)');
WITH l AS (SELECT row_number() OVER (ORDER BY indexrelid DESC) AS n, * FROM elastic_index_hypothetical_list())
SELECT (SELECT estimated_pages FROM l WHERE n = 2) < (SELECT estimated_pages FROM l WHERE n = 1) AS bound_shrinks_estimate,
	   (SELECT estimated_pages FROM l WHERE n = 2) <= 128 * 1.05 AS compact_within_bound,
	   (SELECT estimated_pages FROM l WHERE n = 3) > 128 AS text_not_compact,
	   (SELECT estimated_pages FROM l WHERE n = 4) < (SELECT estimated_pages FROM l WHERE n = 1) AS osm_packs_tighter;
-- the real index's size next to the estimate for the unbounded one
CREATE INDEX hy_id_real ON hy USING elastic_btree (id);
SELECT round(pg_relation_size('hy_id_real')::numeric / e.estimated_bytes, 1) AS real_vs_estimate
FROM elastic_index_hypothetical_list() e ORDER BY e.indexrelid DESC LIMIT 1;
DROP INDEX hy_id_real;
SELECT elastic_index_hypothetical_drop(indexrelid) FROM elastic_index_hypothetical_list();
SELECT elastic_index_hypothetical_drop(1);
SELECT count(*) FROM elastic_index_hypothetical_list();

-- bad definitions
SELECT * FROM elastic_index_hypothetical_create('CREATE INDEX ON hy (id)');
SELECT * FROM elastic_index_hypothetical_create('CREATE INDEX ON hy USING osm_tree (id) WITH (nope = 1)');
SELECT * FROM elastic_index_hypothetical_create('CREATE INDEX ON hy USING osm_tree (id) WITH (fillfactor = 5)');
SELECT * FROM elastic_index_hypothetical_create('CREATE INDEX ON hy USING osm_tree (lower(v))');
SELECT * FROM elastic_index_hypothetical_create('CREATE INDEX ON hy USING osm_tree (id) WHERE id > 0');
SELECT * FROM elastic_index_hypothetical_create('CREATE INDEX ON hy USING osm_tree (nosuch)');
SELECT * FROM elastic_index_hypothetical_create('SELECT 1');

DROP TABLE hy;
DROP FUNCTION hy_plan(text);
DROP EXTENSION hypopg;
-- the next file creates the extension afresh
DROP EXTENSION elastic_index CASCADE;
