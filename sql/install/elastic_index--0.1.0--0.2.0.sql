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
-- say that equal values of the type are bitwise equal.  Nothing calls them
-- yet; deduplication of entries will, as nbtree's does.
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

-- ALTER OPERATOR FAMILY ... ADD makes them loose members of the family
-- (automatic dependencies on the family, the function and the type); a
-- fresh 0.2.0 install makes them members of their operator class, as
-- CREATE OPERATOR CLASS does: an internal dependency on the class and
-- normal ones on the function and the type.  Make them the latter, so that
-- both catalogs are the same (DROP OPERATOR CLASS, pg_dump) whichever way
-- they came to 0.2.0.
UPDATE pg_catalog.pg_depend d
SET refclassid = 'pg_catalog.pg_opclass'::pg_catalog.regclass,
	refobjid = c.oid,
	deptype = 'i'
FROM pg_catalog.pg_amproc p, pg_catalog.pg_opfamily f, pg_catalog.pg_am a,
	 pg_catalog.pg_opclass c
WHERE d.classid = 'pg_catalog.pg_amproc'::pg_catalog.regclass
  AND d.objid = p.oid
  AND d.refclassid = 'pg_catalog.pg_opfamily'::pg_catalog.regclass
  AND d.refobjid = f.oid
  AND p.amprocfamily = f.oid
  AND p.amprocnum = 4
  AND f.opfmethod = a.oid
  AND a.amname IN ('elastic_btree', 'osm_tree')
  AND c.opcmethod = a.oid
  AND c.opcfamily = f.oid
  AND c.opcintype = p.amproclefttype;

UPDATE pg_catalog.pg_depend d
SET deptype = 'n'
FROM pg_catalog.pg_amproc p, pg_catalog.pg_opfamily f, pg_catalog.pg_am a
WHERE d.classid = 'pg_catalog.pg_amproc'::pg_catalog.regclass
  AND d.objid = p.oid
  AND d.refclassid IN ('pg_catalog.pg_proc'::pg_catalog.regclass,
					   'pg_catalog.pg_type'::pg_catalog.regclass)
  AND d.deptype = 'a'
  AND p.amprocfamily = f.oid
  AND p.amprocnum = 4
  AND f.opfmethod = a.oid
  AND a.amname IN ('elastic_btree', 'osm_tree');
