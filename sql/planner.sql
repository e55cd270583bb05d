-- The planner costs elastic_btree like btree (same height, pages and
-- selectivity), so with either index alone it must choose the same plan
-- shape for the same query: the index where btree's would be used, and
-- not where btree's would not.
CREATE EXTENSION IF NOT EXISTS elastic_index;
CREATE SCHEMA planner;
SET search_path = planner, public;

CREATE TABLE t (id int8, grp int4, note text) WITH (autovacuum_enabled = off);
INSERT INTO t SELECT g, g % 100, md5(g::text) FROM generate_series(1, 100000) g;
-- sample every row, so the statistics (and plans) are the same every run
SET default_statistics_target = 1000;
VACUUM ANALYZE t;

-- the plan of a query with only a btree index, then with only ours, with
-- the index names blanked out
CREATE FUNCTION plan_of(q text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
	line text;
	result text := '';
BEGIN
	FOR line IN EXECUTE 'EXPLAIN (COSTS OFF) ' || q LOOP
		-- and InitPlan headers as 17 on writes them
		result := result ||
			regexp_replace(regexp_replace(line, 'using \S+', 'using IDX'),
						   '(InitPlan \d+) \(returns \$\d+\)', '\1') || E'\n';
	END LOOP;
	RETURN result;
END $$;

CREATE TABLE queries (q text);
INSERT INTO queries VALUES
	('SELECT * FROM planner.t WHERE id = 4242'),
	('SELECT * FROM planner.t WHERE id BETWEEN 100 AND 200'),
	('SELECT id FROM planner.t WHERE id BETWEEN 100 AND 20000'),
	('SELECT * FROM planner.t WHERE id > 1000'),
	('SELECT * FROM planner.t WHERE id < 50000'),
	('SELECT * FROM planner.t ORDER BY id LIMIT 10'),
	('SELECT * FROM planner.t ORDER BY id DESC LIMIT 10'),
	('SELECT max(id) FROM planner.t'),
	('SELECT * FROM planner.t WHERE id IN (1, 10, 100)'),
	('SELECT count(*) FROM planner.t WHERE grp = 3'),
	('SELECT * FROM planner.t WHERE note = ''x''');

CREATE TABLE plans (q text, kind text, plan text);
CREATE INDEX t_id ON t USING btree (id);
INSERT INTO plans SELECT q, 'btree', plan_of(q) FROM queries;
DROP INDEX t_id;
CREATE INDEX t_id ON t USING elastic_btree (id);
INSERT INTO plans SELECT q, 'elastic', plan_of(q) FROM queries;

-- every query gets the same plan shape with either index, the IN list
-- too: both walk the array inside one index scan (amsearcharray)
SELECT b.q, b.plan = e.plan AS same_plan
FROM plans b JOIN plans e ON b.q = e.q AND b.kind = 'btree' AND e.kind = 'elastic'
ORDER BY b.q;
-- and the elastic plans themselves
SELECT q, plan FROM plans WHERE kind = 'elastic' ORDER BY q;

RESET search_path;
DROP SCHEMA planner CASCADE;
DROP EXTENSION elastic_index CASCADE;
