/* sql/install/elastic_index--0.1.0--0.2.0.sql */

-- complain if script is sourced in psql, rather than via ALTER EXTENSION
\echo Use "ALTER EXTENSION elastic_index UPDATE TO '0.2.0'" to load this file. \quit

--------------------------------------------------------------------------
-- Support functions numbered as btree numbers them
--
-- From PostgreSQL 18 on, CREATE OPERATOR CLASS checks the support functions
-- of every ordering access method against btree's numbering, where 3 is an
-- in_range function with five arguments.  0.1.0 had the normalize function
-- there.  It moves to 7, in every operator family of both access methods
-- (a family a user made on the 0.1.0 model included: its function 3 can
-- only be a normalize function).  The member keeps its OID, its
-- dependencies and its place in the extension; only the number changes,
-- so indexes built under 0.1.0 are untouched.  A backend that was running
-- before this update may keep the old number in its operator class cache,
-- which the library still reads (EIGetNormalizeProc).
--------------------------------------------------------------------------

UPDATE pg_catalog.pg_amproc p
SET amprocnum = 7
FROM pg_catalog.pg_opfamily f, pg_catalog.pg_am a
WHERE p.amprocfamily = f.oid
  AND f.opfmethod = a.oid
  AND a.amname IN ('elastic_btree', 'osm_tree')
  AND p.amprocnum = 3;

--------------------------------------------------------------------------
-- Equal-image functions (support function 4), where btree has them: they
-- say that equal values of the type are bitwise equal, which entry
-- deduplication relies on.
--------------------------------------------------------------------------

DO $equalimage$
DECLARE
	am text;
	m record;
BEGIN
	FOREACH am IN ARRAY ARRAY['elastic_btree', 'osm_tree']
	LOOP
		FOR m IN
			SELECT * FROM (VALUES
				('integer_ops', 'int2', 'btequalimage'),
				('integer_ops', 'int4', 'btequalimage'),
				('integer_ops', 'int8', 'btequalimage'),
				('datetime_ops', 'date', 'btequalimage'),
				('datetime_ops', 'timestamp', 'btequalimage'),
				('datetime_ops', 'timestamptz', 'btequalimage'),
				('uuid_ops', 'uuid', 'btequalimage'),
				('text_ops', 'text', 'btvarstrequalimage'),
				('bytea_ops', 'bytea', 'btequalimage'),
				('bool_ops', 'bool', 'btequalimage'),
				('oid_ops', 'oid', 'btequalimage')) AS v(family, type, func)
		LOOP
			EXECUTE format('ALTER OPERATOR FAMILY %I.%I USING %I ADD FUNCTION 4 (%s, %s) %s(oid)',
						   '@extschema@', m.family, am, m.type, m.type,
						   m.func);
		END LOOP;
	END LOOP;
END
$equalimage$;
