--
-- requires: hypopg
--
-- Hypothetical elastic_btree indexes (src/hypo) next to HypoPG's
-- hypothetical btree indexes on the same table, in one session.  HypoPG is
-- packaged for Debian's PostgreSQL 15 only, so scripts/test.sh runs this
-- file where the server has it (hypothetical.sql tests ours alone).
--
CREATE EXTENSION IF NOT EXISTS elastic_index;
CREATE EXTENSION IF NOT EXISTS hypopg;
CREATE TABLE hy (id int8, v text, ts timestamp);
INSERT INTO hy SELECT g, md5(g::text), timestamp '2024-01-01' + g * interval '1 minute'
FROM generate_series(1, 100000) AS g;
ANALYZE hy;

-- plan lines with the hypothetical OIDs (which differ between catalogs)
-- masked
CREATE FUNCTION hy_plan(q text) RETURNS SETOF text LANGUAGE plpgsql AS $$
DECLARE
	line text;
BEGIN
	FOR line IN EXECUTE 'EXPLAIN (COSTS OFF) ' || q LOOP
		RETURN NEXT regexp_replace(line, '<[0-9]+>', '<oid>', 'g');
	END LOOP;
END $$;

-- side by side on hy.id: HypoPG's btree and our elastic_btree
SELECT indexrelid AS hypopg_oid, regexp_replace(indexname, '<[0-9]+>', '<oid>') AS hypopg_index
FROM hypopg_create_index('CREATE INDEX ON hy (id)') \gset
SELECT indexrelid AS ours_oid, regexp_replace(indexname, '<[0-9]+>', '<oid>') AS our_index
FROM elastic_index_hypothetical_create('CREATE INDEX ON hy USING elastic_btree (id)') \gset
SELECT :'hypopg_index' AS hypopg_index, :'our_index' AS our_index;
SELECT (SELECT count(*) FROM hypopg_list_indexes) AS hypopg_indexes,
	   (SELECT count(*) FROM elastic_index_hypothetical_list()) AS our_indexes;
-- our OID is no relation's and lies below HypoPG's range (which starts
-- above the largest pg_class OID under 16384)
SELECT :ours_oid NOT IN (SELECT oid FROM pg_class) AS no_relation,
	   :ours_oid < (SELECT max(oid) FROM pg_class WHERE oid < 16384) AS below_hypopg_range,
	   :ours_oid < ALL (SELECT indexrelid FROM hypopg_list_indexes) AS below_hypopg_oids;

-- without ours, EXPLAIN chooses HypoPG's; without HypoPG's, ours
SELECT elastic_index_hypothetical_drop(:ours_oid);
SELECT * FROM hy_plan('SELECT * FROM hy WHERE id = 42');
SELECT indexrelid AS ours_oid
FROM elastic_index_hypothetical_create('CREATE INDEX ON hy USING elastic_btree (id)') \gset
SELECT hypopg_drop_index(:hypopg_oid);
SELECT * FROM hy_plan('SELECT * FROM hy WHERE id = 42');

-- both in one plan: HypoPG's btree on v, ours on id
SELECT count(*) AS hypopg_index FROM hypopg_create_index('CREATE INDEX ON hy (v)');
SELECT * FROM hy_plan('SELECT * FROM hy WHERE id = 42 OR v = ''abc''');
SELECT elastic_index_hypothetical_reset();
SELECT hypopg_reset();
DROP FUNCTION hy_plan(text);
DROP TABLE hy;
DROP EXTENSION hypopg;
-- the next file creates the extension afresh
DROP EXTENSION elastic_index CASCADE;
