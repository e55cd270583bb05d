\set ECHO none
--
-- Does a parallel build launch workers?  For files that build an index in
-- parallel and must show that workers took part.  Included with \i
-- (relative to the repository root, where pg_regress starts); it does not
-- echo itself into the test output.  The function goes into the first
-- schema of the search path.
--
--   ei_build_uses_workers(stmt)  runs the CREATE INDEX or REINDEX stmt with
--                                elastic_index.debug_fault = in_build_worker,
--                                which fails every worker as it starts, and
--                                rolls it back: 'a worker ran' when it
--                                failed so, 'no worker ran' when it built
--                                (a build without fault injection, which
--                                has no such setting, counts as 'a worker
--                                ran', as the files did before)
--
CREATE FUNCTION ei_build_uses_workers(stmt text) RETURNS text
LANGUAGE plpgsql AS $$
DECLARE
	result		text;
BEGIN
	BEGIN
		PERFORM set_config('elastic_index.debug_fault', 'in_build_worker', true);
		EXECUTE stmt;
		RAISE EXCEPTION 'no worker ran';
	EXCEPTION
		WHEN internal_error THEN
			result := 'a worker ran';
		WHEN raise_exception THEN
			result := 'no worker ran';
		WHEN undefined_object THEN
			RETURN 'a worker ran';
	END;
	PERFORM set_config('elastic_index.debug_fault', 'none', true);
	RETURN result;
END $$;
\set ECHO all
