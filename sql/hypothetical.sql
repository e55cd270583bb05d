--
-- Hypothetical elastic_btree (and osm_tree) indexes (src/hypo).  Only a
-- plain EXPLAIN sees them; EXPLAIN ANALYZE and real queries never do.
-- (hypothetical_hypopg.sql has them next to HypoPG's.)
--
CREATE EXTENSION IF NOT EXISTS elastic_index;
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
-- the costs of the plan's top node
CREATE FUNCTION hy_cost(q text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
	line text;
BEGIN
	EXECUTE 'EXPLAIN ' || q INTO line;
	RETURN substring(line FROM 'cost=[0-9.]+\.\.[0-9.]+');
END $$;

-- EXPLAIN chooses ours
SELECT indexrelid AS ours_oid, regexp_replace(indexname, '<[0-9]+>', '<oid>') AS our_index
FROM elastic_index_hypothetical_create('CREATE INDEX ON hy USING elastic_btree (id)') \gset
SELECT :'our_index' AS our_index;
SELECT count(*) AS our_indexes FROM elastic_index_hypothetical_list();
-- our OID is no relation's
SELECT :ours_oid NOT IN (SELECT oid FROM pg_class) AS no_relation;
SELECT * FROM hy_plan('SELECT * FROM hy WHERE id = 42');
-- ordered scans, index-only scans, and a plan chosen under enable_seqscan = off
SELECT * FROM hy_plan('SELECT id FROM hy ORDER BY id DESC LIMIT 3');
SET enable_seqscan = off;
SELECT * FROM hy_plan('SELECT count(*) FROM hy WHERE id > 5000');
RESET enable_seqscan;
-- an osm_tree with a descending key serves ORDER BY ts DESC
SELECT regexp_replace(indexname, '<[0-9]+>', '<oid>') AS our_index
FROM elastic_index_hypothetical_create('CREATE INDEX ON hy USING osm_tree (ts DESC)');
SELECT * FROM hy_plan('SELECT ts FROM hy ORDER BY ts DESC LIMIT 5');

-- EXPLAIN ANALYZE and real queries never use a hypothetical index
-- (the plan's nodes without the figures, which 18 prints differently)
CREATE FUNCTION hy_analyze(q text) RETURNS SETOF text LANGUAGE plpgsql AS $$
DECLARE
	line text;
BEGIN
	FOR line IN EXECUTE 'EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) ' || q LOOP
		IF line !~ '^\s*Buffers: ' THEN
			RETURN NEXT regexp_replace(line, ' \(actual [^)]*\)', '');
		END IF;
	END LOOP;
END $$;
SELECT * FROM hy_analyze('SELECT * FROM hy WHERE id = 42');
DROP FUNCTION hy_analyze(text);
SELECT count(*) FROM hy WHERE id = 42;
-- nor does EXECUTE reuse a generic plan that EXPLAIN EXECUTE made with one
PREPARE hy_q(int8) AS SELECT * FROM hy WHERE id = $1;
SET plan_cache_mode = force_generic_plan;
SELECT * FROM hy_plan('EXECUTE hy_q(42)');
EXECUTE hy_q(42);
RESET plan_cache_mode;
DEALLOCATE hy_q;

-- the planner costs a hypothetical index as the real one it describes
-- (for a range inside the histogram: where a bound falls in its first or
-- last bucket, 16 on probe a real ordered index for the column's actual
-- end, which a hypothetical one cannot answer)
SELECT elastic_index_hypothetical_reset();
SELECT indexrelid AS ours_oid
FROM elastic_index_hypothetical_create('CREATE INDEX ON hy USING elastic_btree (id)') \gset
SELECT hy_cost('SELECT * FROM hy WHERE id BETWEEN 50100 AND 52000') AS hypothetical_cost \gset
SELECT elastic_index_hypothetical_reset();
CREATE INDEX hy_id_real ON hy USING elastic_btree (id);
SELECT hy_cost('SELECT * FROM hy WHERE id BETWEEN 50100 AND 52000') = :'hypothetical_cost' AS same_cost;
SELECT indexrelid AS ours_oid
FROM elastic_index_hypothetical_create('CREATE INDEX ON hy USING elastic_btree (id)') \gset
SELECT e.total_pages = s.total_pages AS same_pages, e.tree_height = s.height AS same_height
FROM elastic_index_hypothetical_estimate(:ours_oid) e, elastic_index_stats('hy_id_real') s;
DROP INDEX hy_id_real;

-- the size model: a bound the standard leaves would not fit makes every
-- leaf compact, as CREATE INDEX then builds it (int8 keys can be compact,
-- and so can text keys under the C collation, padded to 255 bytes),
-- osm_tree fills leaves to 96%
SELECT elastic_index_hypothetical_reset();
SELECT indexrelid AS plain_oid
FROM elastic_index_hypothetical_create('CREATE INDEX ON hy USING elastic_btree (id)') \gset
SELECT indexrelid AS bounded_oid
FROM elastic_index_hypothetical_create('CREATE INDEX ON hy USING elastic_btree (id) WITH (size_bound = ''2MB'')') \gset
SELECT indexrelid AS text_oid
FROM elastic_index_hypothetical_create('CREATE INDEX ON hy USING elastic_btree (v)') \gset
SELECT indexrelid AS text_bounded_oid
FROM elastic_index_hypothetical_create('CREATE INDEX ON hy USING elastic_btree (v) WITH (size_bound = ''1MB'')') \gset
SELECT indexrelid AS osm_oid
FROM elastic_index_hypothetical_create('CREATE INDEX ON hy USING osm_tree (id)') \gset
SELECT p.entries, p.compact_leaves AS plain_compact, p.size_bound_pages AS plain_bound,
	   b.standard_leaves = 0 AND b.compact_leaves > 0 AS bounded_all_compact,
	   b.total_pages < p.total_pages AS bound_shrinks_estimate,
	   b.size_bound_pages, b.total_pages <= 0.9 * b.size_bound_pages AS within_bound
FROM elastic_index_hypothetical_estimate(:plain_oid) p,
	 elastic_index_hypothetical_estimate(:bounded_oid) b;
SELECT t.compact_leaves AS text_compact, tb.compact_leaves > 0 AS text_bounded_compact,
	   tb.total_pages < t.total_pages AS text_bound_shrinks_estimate,
	   o.total_pages < p.total_pages AS osm_packs_tighter
FROM elastic_index_hypothetical_estimate(:plain_oid) p,
	 elastic_index_hypothetical_estimate(:text_oid) t,
	 elastic_index_hypothetical_estimate(:text_bounded_oid) tb,
	 elastic_index_hypothetical_estimate(:osm_oid) o;
-- under a bound of 512kB even compact leaves do not fit 0.9 x 64 pages:
-- the same compact leaves as under 2MB, past the bound
SELECT indexrelid AS small_oid
FROM elastic_index_hypothetical_create('CREATE INDEX ON hy USING elastic_btree (id) WITH (size_bound = ''512kB'')') \gset
SELECT s.standard_leaves AS small_standard, s.compact_leaves > 0 AS small_compact,
	   s.total_pages > 0.9 * s.size_bound_pages AS past_bound,
	   s.total_pages = b.total_pages AS same_as_2mb
FROM elastic_index_hypothetical_estimate(:small_oid) s,
	 elastic_index_hypothetical_estimate(:bounded_oid) b;
-- elastic_btree.size_bound applies to indexes without their own bound
SET elastic_btree.size_bound = '2MB';
SELECT (SELECT total_pages FROM elastic_index_hypothetical_estimate(:plain_oid)) =
	   (SELECT total_pages FROM elastic_index_hypothetical_estimate(:bounded_oid)) AS setting_applies;
RESET elastic_btree.size_bound;
-- posting lists (deduplicate_items): the model counts them from the key
-- columns' n_distinct (exact here: ANALYZE reads all 30000 rows) and gets
-- the pages CREATE INDEX writes; not for numeric (no equal image) nor with
-- INCLUDE columns
CREATE TABLE hy_dup (k int8, n numeric, x int4);
INSERT INTO hy_dup SELECT g / 15, g / 15, g FROM generate_series(1, 30000) g;
ANALYZE hy_dup;
SELECT indexrelid AS dup_oid
FROM elastic_index_hypothetical_create('CREATE INDEX ON hy_dup USING elastic_btree (k) WITH (deduplicate_items = on)') \gset
SELECT indexrelid AS nodup_oid
FROM elastic_index_hypothetical_create('CREATE INDEX ON hy_dup USING elastic_btree (k) WITH (deduplicate_items = off)') \gset
SELECT indexrelid AS dup_numeric_oid
FROM elastic_index_hypothetical_create('CREATE INDEX ON hy_dup USING elastic_btree (n) WITH (deduplicate_items = on)') \gset
SELECT indexrelid AS dup_include_oid
FROM elastic_index_hypothetical_create('CREATE INDEX ON hy_dup USING elastic_btree (k) INCLUDE (x) WITH (deduplicate_items = on)') \gset
SELECT indexrelid AS include_oid
FROM elastic_index_hypothetical_create('CREATE INDEX ON hy_dup USING elastic_btree (k) INCLUDE (x)') \gset
CREATE INDEX hy_dup_real ON hy_dup USING elastic_btree (k) WITH (deduplicate_items = on);
SELECT d.total_pages = pg_relation_size('hy_dup_real') / 8192 AS dup_estimate_exact,
	   d.total_pages < 0.5 * p.total_pages AS lists_halve_estimate,
	   n.total_pages = p.total_pages AS numeric_not_deduplicated,
	   i.total_pages = ni.total_pages AS include_not_deduplicated
FROM elastic_index_hypothetical_estimate(:dup_oid) d,
	 elastic_index_hypothetical_estimate(:nodup_oid) p,
	 elastic_index_hypothetical_estimate(:dup_numeric_oid) n,
	 elastic_index_hypothetical_estimate(:dup_include_oid) i,
	 elastic_index_hypothetical_estimate(:include_oid) ni;
SELECT bool_and(elastic_index_hypothetical_drop(o)) AS dup_dropped
FROM unnest(ARRAY[:dup_oid, :nodup_oid, :dup_numeric_oid, :dup_include_oid, :include_oid]::oid[]) o;
-- osm_tree's reloption too (its build writes the same leaves)
SELECT indexrelid AS osm_dup_oid
FROM elastic_index_hypothetical_create('CREATE INDEX ON hy_dup USING osm_tree (k) WITH (deduplicate_items = on, fillfactor = 90)') \gset
CREATE INDEX hy_dup_osm ON hy_dup USING osm_tree (k) WITH (deduplicate_items = on, fillfactor = 90);
SELECT d.total_pages = pg_relation_size('hy_dup_osm') / 8192 AS osm_dup_estimate_exact
FROM elastic_index_hypothetical_estimate(:osm_dup_oid) d;
SELECT elastic_index_hypothetical_drop(:osm_dup_oid) AS osm_dup_dropped;
DROP TABLE hy_dup;
-- the list shows the same estimates
SELECT count(*) AS listed FROM elastic_index_hypothetical_list() l,
	LATERAL elastic_index_hypothetical_estimate(l.indexrelid) e
WHERE l.estimated_pages = e.total_pages AND l.estimated_bytes = e.estimated_bytes;

-- a hypothetical index whose column changes type is left out
CREATE TABLE hy2 (a int4);
INSERT INTO hy2 SELECT g FROM generate_series(1, 10000) g;
ANALYZE hy2;
SELECT regexp_replace(indexname, '<[0-9]+>', '<oid>') AS our_index
FROM elastic_index_hypothetical_create('CREATE INDEX hy2_a ON hy2 USING elastic_btree (a)');
SELECT * FROM hy_plan('SELECT * FROM hy2 WHERE a = 1');
ALTER TABLE hy2 ALTER a TYPE int8;
SELECT * FROM hy_plan('SELECT * FROM hy2 WHERE a = 1');
SELECT regexp_replace(indexname, '<[0-9]+>', '<oid>') AS indexname, estimated_pages
FROM elastic_index_hypothetical_list() WHERE relid = 'hy2'::regclass;
DO $$
BEGIN
	PERFORM elastic_index_hypothetical_estimate(indexrelid)
	FROM elastic_index_hypothetical_list() WHERE relid = 'hy2'::regclass;
EXCEPTION WHEN object_not_in_prerequisite_state THEN
	RAISE NOTICE '%', regexp_replace(SQLERRM, '<[0-9]+>', '<oid>');
END $$;
DROP TABLE hy2;

SELECT elastic_index_hypothetical_drop(:plain_oid);
SELECT elastic_index_hypothetical_drop(:plain_oid);
SELECT elastic_index_hypothetical_reset();
SELECT count(*) FROM elastic_index_hypothetical_list();

-- bad definitions: not our access method, not one CREATE INDEX, an
-- unknown storage parameter
SELECT * FROM elastic_index_hypothetical_create('CREATE INDEX ON hy (id)');
SELECT * FROM elastic_index_hypothetical_create('SELECT 1');
SELECT * FROM elastic_index_hypothetical_create('CREATE INDEX ON hy USING elastic_btree (id) WITH (nope = 1)');
-- and more, as SQLSTATE, message, detail and hint
CREATE FUNCTION hy_error(definition text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
	detail text;
	hint text;
BEGIN
	PERFORM elastic_index_hypothetical_create(definition);
	RETURN 'no error';
EXCEPTION WHEN others THEN
	GET STACKED DIAGNOSTICS detail = PG_EXCEPTION_DETAIL, hint = PG_EXCEPTION_HINT;
	RETURN concat_ws(' / ', SQLSTATE || ' ' || SQLERRM, nullif(detail, ''), nullif(hint, ''));
END $$;
\x on
SELECT d AS definition, hy_error(d) AS error FROM (VALUES
	('CREATE INDEX ON hy USING hash (id)'),
	('CREATE INDEX ON hy USING nosuch (id)'),
	('CREATE INDEX ON hy USING elastic_btree (id); CREATE INDEX ON hy USING elastic_btree (v)'),
	('CREATE INDEX ON hy USING elastic_btree (id) WITH (size_bound = ''lots'')'),
	('CREATE INDEX ON hy USING osm_tree (id) WITH (fillfactor = 5)'),
	('CREATE INDEX ON hy USING elastic_btree (lower(v))'),
	('CREATE INDEX ON hy USING elastic_btree (id) WHERE id > 0'),
	('CREATE INDEX ON hy USING elastic_btree (id) INCLUDE (lower(v))'),
	('CREATE UNIQUE INDEX ON hy USING elastic_btree (id)'),
	('CREATE INDEX ON hy USING elastic_btree (id text_ops)'),
	('CREATE INDEX ON hy USING elastic_btree (nosuch)'),
	('CREATE INDEX ON nosuch USING elastic_btree (id)')) AS v(d);
\x off
SELECT * FROM elastic_index_hypothetical_estimate(1);
CREATE TABLE hy_parted (a int) PARTITION BY RANGE (a);
SELECT * FROM elastic_index_hypothetical_create('CREATE INDEX ON hy_parted USING elastic_btree (a)');
DROP TABLE hy_parted;
-- only for a table the caller may read
CREATE ROLE regress_hy_reader;
SET ROLE regress_hy_reader;
SELECT * FROM elastic_index_hypothetical_create('CREATE INDEX ON hy USING elastic_btree (id)');
RESET ROLE;
DROP ROLE regress_hy_reader;

DROP TABLE hy;
DROP FUNCTION hy_plan(text);
DROP FUNCTION hy_cost(text);
DROP FUNCTION hy_error(text);
-- the next file creates the extension afresh
DROP EXTENSION elastic_index CASCADE;
