#!/usr/bin/env bash
# bench/include_columns/run.sh - covering indexes: INCLUDE columns in
# elastic_btree and osm_tree against btree with the same INCLUDE columns.
#
# A table of N rows (int8 key k in random order, an int8 a and a 40-byte
# text t) gets, in turn, the index (k) INCLUDE (a, t) of each kind: btree,
# elastic_btree, osm_tree, and elastic_btree made fully compact
# (elastic_btree_shrink: its index-only scans read a and t from the heap).
# For each: CREATE INDEX time, index size, and, after VACUUM, the time of
# --lookups index-only range scans of 100 rows each (one server-side loop),
# which must show no heap fetches.  Rounds interleave the kinds; the
# fastest of --repeat counts; ratios are against btree of the same run.
#
# Results: docs/benchmarks/include-columns.csv and include-columns.md, or
# --out DIR.  The extension must be installed.
#
# Usage: bench/include_columns/run.sh [--rows N] [--small] [--large]
#            [--lookups L] [--repeat R] [--port P] [--out DIR]
#            [--workdir DIR] [--keep]
#
#   --rows N        rows (default 1000000)
#   --small         --rows 100000 --lookups 2000 (a try-out, not results)
#   --large         --rows 5000000
#   --lookups L     index-only range scans per measurement (default 20000)
#   --repeat R      rounds; the fastest counts (default 3)
#   --port P        port of the throwaway cluster (default 56097)
set -euo pipefail

# One brace group: bash parses the whole script before running it.
{

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=bench/lib.sh
. "$here/../lib.sh" "$@"

rows=1000000
lookups=20000
repeat=3
port=56097

while [ $# -gt 0 ]; do
	case $1 in
	--rows) need_int "$1" "${2-}"; rows=$2; shift 2 ;;
	--small) rows=100000; lookups=2000; shift ;;
	--large) rows=5000000; shift ;;
	--lookups) need_int "$1" "${2-}"; lookups=$2; shift 2 ;;
	--repeat) need_int "$1" "${2-}"; repeat=$2; shift 2 ;;
	*) common_option "$@"; shift "$nshift" ;;
	esac
done
mkdir -p "$out"
out=$(cd "$out" && pwd)

cluster_setup include_columns
results="$work/results.csv"
# shellcheck disable=SC2317 # called by cleanup
on_failure() { save_partial include-columns; }

step "cluster: initdb in $work (rows=$rows, lookups=$lookups, repeat=$repeat)"
echo "shared_preload_libraries = 'elastic_index'" | cluster_initdb bench/include_columns/run.sh
step "cluster: start on port $port"
cluster_start
psql_b -c "CREATE EXTENSION elastic_index"
pg_version=$(psql_b -c "SELECT split_part(version(), ' on ', 1)")
ext_version=$(psql_b -c "SELECT extversion FROM pg_extension WHERE extname = 'elastic_index'")

step "data: $rows rows"
psql_b <<SQL
CREATE TABLE t (k int8, a int8, t text) WITH (autovacuum_enabled = off);
INSERT INTO t
SELECT (g * 2654435761) % $rows, g, md5(g::text) || left(md5((g + 1)::text), 8)
FROM generate_series(1, $rows) AS g;
VACUUM ANALYZE t;
-- lookups index-only range scans of 100 keys each; returns seconds
CREATE FUNCTION ic_lookups(n int, nrows int8) RETURNS float8 LANGUAGE plpgsql AS \$fn\$
DECLARE
	t0			timestamptz;
	s			int8;
	lo			int8;
BEGIN
	PERFORM set_config('enable_seqscan', 'off', true);
	PERFORM set_config('enable_bitmapscan', 'off', true);
	t0 := clock_timestamp();
	FOR i IN 1 .. n LOOP
		lo := (i::int8 * 7919) % greatest(nrows - 100, 1);
		SELECT sum(a) + sum(length(t)) INTO s FROM t WHERE k >= lo AND k < lo + 100;
	END LOOP;
	RETURN extract(epoch FROM clock_timestamp() - t0);
END
\$fn\$;
SQL

# Create the index of kind $1 and print its build time in seconds.
make_index() {
	local using=$1 t0 t1
	psql_b -c "DROP INDEX IF EXISTS t_k" -c "CHECKPOINT"
	t0=$(now)
	psql_b -c "CREATE INDEX t_k ON t USING $using (k) INCLUDE (a, t)"
	t1=$(now)
	elapsed "$t0" "$t1"
}

# Fail unless the lookups' query is an index-only scan without heap fetches.
check_plan() {
	local plan
	plan=$(psql_b -c "SET enable_seqscan = off" -c "SET enable_bitmapscan = off" \
		-c "EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) SELECT sum(a) + sum(length(t)) FROM t WHERE k >= 1000 AND k < 1100")
	if ! grep -q 'Index Only Scan using t_k' <<<"$plan" || ! grep -q 'Heap Fetches: 0' <<<"$plan"; then
		echo "run.sh: the lookups are not index-only scans without heap fetches:" >&2
		echo "$plan" >&2
		exit 1
	fi
}

echo "kind,build_s,index_bytes,lookups_s" >"$results"
kinds="btree elastic osm elastic_compact"
declare -A build=() size=() look=()
for ((r = 1; r <= repeat; r++)); do
	for kind in $kinds; do
		case $kind in
		btree) s=$(make_index btree) ;;
		elastic | elastic_compact) s=$(make_index elastic_btree) ;;
		osm) s=$(make_index osm_tree) ;;
		esac
		build[$kind]=$(fastest "${build[$kind]-}" "$s")
		[ "$kind" = elastic_compact ] && psql_b -c "SELECT elastic_btree_shrink('t_k')" >/dev/null
		psql_b -c "VACUUM t"
		size[$kind]=$(psql_b -c "SELECT pg_relation_size('t_k')")
		check_plan
		s=$(psql_b -c "SELECT ic_lookups($lookups, $rows)")
		look[$kind]=$(fastest "${look[$kind]-}" "$s")
		step "round $r $kind: build $(printf '%.3f' "${build[$kind]}") s, ${size[$kind]} bytes, lookups $(printf '%.3f' "$s") s"
	done
done
for kind in $kinds; do
	echo "$kind,${build[$kind]},${size[$kind]},${look[$kind]}" >>"$results"
done

# ---------------------------------------------------------------------------
# Report
# ---------------------------------------------------------------------------

step "report: $out/include-columns.csv, $out/include-columns.md"
cp "$results" "$out/include-columns.csv"
commit=$(repo_commit "$repo")
awk -F, -v cmd="$command_line" -v date="$(date -u '+%Y-%m-%d %H:%M UTC')" \
	-v nproc="$(nproc)" -v pgver="$pg_version" -v extver="$ext_version" \
	-v commit="$commit" -v rows="$rows" -v lookups="$lookups" -v repeat="$repeat" '
NR == 1 { next }
{ order[++n] = $1; b[$1] = $2; s[$1] = $3; l[$1] = $4 }
END {
	print "# Covering indexes: INCLUDE columns"
	print ""
	printf "Produced by `%s` (from the repository root) on %s.\n\n", cmd, date
	printf "- %s; elastic_index %s; repository commit %s; %s CPUs.\n", pgver, extver, commit, nproc
	print "- Throwaway cluster: shared_buffers = 1GB, **fsync = off**, autovacuum = off, jit = off."
	printf "- %d rows (int8 key in scrambled order, int8, 40-byte text); index `(k) INCLUDE (a, t)` of each kind; %d index-only range scans of 100 rows each (no heap fetches, checked); the fastest of %d interleaved rounds counts.\n", rows, lookups, repeat
	print "- elastic_compact: elastic_btree after `elastic_btree_shrink` (compact leaves read key and INCLUDE columns from the heap); its size is the file'"'"'s, which keeps the pages shrinking freed for reuse."
	print ""
	print "| kind | build s (ratio) | size MB (ratio) | lookups s (ratio) |"
	print "|---|---|---|---|"
	for (i = 1; i <= n; i++) {
		k = order[i]
		printf "| %s | %.3f (%.2f) | %.1f (%.2f) | %.3f (%.2f) |\n", k,
			b[k], b[k] / b["btree"], s[k] / 1048576, s[k] / s["btree"], l[k], l[k] / l["btree"]
	}
	print ""
	print "Ratios are kind / btree from the same run (below 1 is cheaper or smaller). Raw numbers are in include-columns.csv."
}' "$results" >"$out/include-columns.md"

step "done in $((($(date +%s) - start_epoch) / 60)) min $((($(date +%s) - start_epoch) % 60)) s"
exit 0
}
