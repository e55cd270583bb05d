\set ECHO none
--
-- One query under every scan kind against a sequential scan, for files
-- that check queries one at a time on their own tables (the differential
-- harness, test/sql/differential_harness.sql, wants its three tables per
-- data set).  Included with \i (relative to the repository root, where
-- pg_regress starts); it does not echo itself into the test output.  The
-- functions go into the first schema of the search path.
--
--   ei_scan_result(q, mode)  count and md5 of the one column query q returns,
--                            under mode: seq, index, indexonly or bitmap
--   ei_scan_kinds(q)         'ok N' when index, index-only and bitmap scans
--                            return the sequential scan's N rows, else the
--                            differences
--
SET client_min_messages = warning;

CREATE FUNCTION ei_scan_result(q text, mode text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE r text;
BEGIN
  PERFORM set_config('enable_seqscan', (mode = 'seq')::text, true);
  PERFORM set_config('enable_indexscan', (mode IN ('index', 'indexonly'))::text, true);
  PERFORM set_config('enable_indexonlyscan', (mode = 'indexonly')::text, true);
  PERFORM set_config('enable_bitmapscan', (mode = 'bitmap')::text, true);
  EXECUTE 'SELECT count(*) || '':'' || md5(coalesce(string_agg(x::text, '','' ORDER BY x), '''')) FROM (' || q || ') s(x)' INTO r;
  RETURN r;
END $$;

CREATE FUNCTION ei_scan_kinds(q text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE s text; m text; r text; res text := 'ok';
BEGIN
  s := ei_scan_result(q, 'seq');
  FOREACH m IN ARRAY ARRAY['index', 'indexonly', 'bitmap'] LOOP
    r := ei_scan_result(q, m);
    IF r <> s THEN res := res || ' MISMATCH ' || m || ' ' || r || ' vs ' || s; END IF;
  END LOOP;
  RETURN res || ' ' || split_part(s, ':', 1);
END $$;

RESET client_min_messages;
\set ECHO all
