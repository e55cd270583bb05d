--
-- An entry osm_tree's batch refuses leaves nothing in the batch's memory
-- (src/osm/batch.c, EIBatchAdd): a row whose index tuple is too large for
-- index_form_tuple itself ("index row requires N bytes") is formed in the
-- caller's memory, not in the batch's, so thirty such rows refused in
-- subtransactions of one transaction, after a small row opened the batch,
-- leave the batch's context as small as that one row makes it.  Before,
-- each refused row left its whole tuple (64 kB here) in the context.
--
CREATE EXTENSION IF NOT EXISTS elastic_index;
SET osm_tree.batch_size = 1000;

CREATE TABLE obr (t text);
CREATE INDEX obr_t ON obr USING osm_tree (t);

BEGIN;
INSERT INTO obr VALUES ('small');
DO $$
DECLARE
	v text;
	n int := 0;
BEGIN
	-- 64 kB of hex digits: pglz finds no repeats, the tuple stays 64 kB
	SELECT string_agg(md5(g::text), '') INTO v FROM generate_series(1, 2000) g;
	FOR i IN 1..30 LOOP
		BEGIN
			INSERT INTO obr VALUES (v);
		EXCEPTION WHEN program_limit_exceeded THEN
			n := n + 1;
		END;
	END LOOP;
	RAISE NOTICE 'refused % of 30', n;
END $$;
-- one context, with the small row and the batch's arrays only
SELECT count(*) AS contexts, sum(total_bytes) < 65536 AS small
  FROM pg_backend_memory_contexts WHERE name = 'elastic_index batch';
COMMIT;
SELECT t FROM obr;
SELECT elastic_index_check('obr_t');

DROP TABLE obr;
RESET osm_tree.batch_size;
-- the next file creates the extension afresh
DROP EXTENSION elastic_index CASCADE;
