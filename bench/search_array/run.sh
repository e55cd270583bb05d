#!/usr/bin/env bash
# bench/search_array/run.sh - "= ANY (array)" lookups: btree against
# elastic_btree and osm_tree.
#
# One int8 table of --rows rows (keys 1..N, unique, in random order) per
# index kind, each with one index on the key: btree, elastic_btree,
# osm_tree.  pgbench runs "SELECT count(*) ... WHERE k = ANY (array)" with
# arrays of 10 and of 1000 random keys (the same keys for every kind: they
# come from pgbench's random seed variable through hashint8), as index-only
# scans (enable_seqscan and enable_bitmapscan off for every kind), one
# client.  The kinds run interleaved, --rounds rounds of each workload;
# the best TPS of each kind counts, reported as a ratio to btree's from the
# same run.  The target is at least 0.9x btree.
#
# Results: docs/benchmarks/search-array.csv and search-array.md, or --out DIR.
# The extension must be installed.
#
# Usage: bench/search_array/run.sh [--rows N] [--small | --large] [--duration S]
#            [--rounds R] [--port P] [--out DIR] [--workdir DIR] [--keep]
#
#   --rows N        rows per table (default 1000000)
#   --small         --rows 100000 --duration 5 --rounds 2 (a quick try; do
#                   not commit its figures)
#   --large         --rows 10000000
#   --duration S    seconds per pgbench run (default 20)
#   --rounds R      runs per kind and workload; the best counts (default 3)
#   --port P        port of the throwaway cluster (default 56097)
set -euo pipefail

# One brace group: bash parses the whole script before running it.
{

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=bench/lib.sh
. "$here/../lib.sh" "$@"

rows=1000000
duration=20
rounds=3
port=56097

while [ $# -gt 0 ]; do
	case $1 in
	--rows) need_int "$1" "${2-}"; rows=$2; shift 2 ;;
	--small) rows=100000; duration=5; rounds=2; shift ;;
	--large) rows=10000000; shift ;;
	--duration) need_int "$1" "${2-}"; duration=$2; shift 2 ;;
	--rounds) need_int "$1" "${2-}"; rounds=$2; shift 2 ;;
	*) common_option "$@"; shift "$nshift" ;;
	esac
done
mkdir -p "$out"
out=$(cd "$out" && pwd)

cluster_setup search_array
results="$work/results.csv"
# shellcheck disable=SC2317 # called by cleanup
on_failure() { save_partial search-array; }

step "cluster: initdb in $work (rows=$rows, duration=${duration}s, rounds=$rounds)"
printf '%s\n' "shared_preload_libraries = 'elastic_index'" "fsync = on" |
	cluster_initdb bench/search_array/run.sh
step "cluster: start on port $port"
cluster_start
psql_b -c "CREATE EXTENSION elastic_index"
pg_version=$(psql_b -c "SELECT split_part(version(), ' on ', 1)")
ext_version=$(psql_b -c "SELECT extversion FROM pg_extension WHERE extname = 'elastic_index'")

kinds="btree elastic_btree osm_tree"
step "data: $rows rows per table, indexes"
psql_b -c "CREATE TABLE src AS SELECT g::int8 AS k FROM generate_series(1, $rows) g ORDER BY random()"
for kind in $kinds; do
	psql_b -c "CREATE TABLE t_$kind (k int8) WITH (autovacuum_enabled = off)" \
		-c "INSERT INTO t_$kind SELECT k FROM src" \
		-c "CREATE INDEX t_${kind}_k ON t_$kind USING $kind (k)" \
		-c "VACUUM ANALYZE t_$kind"
done
psql_b -c "DROP TABLE src" -c "CHECKPOINT"

# The pgbench script of workload $1 (array length) for kind $2.
mkdir -p "$work/scripts"
for n in 10 1000; do
	for kind in $kinds; do
		cat >"$work/scripts/any${n}_$kind.sql" <<SQL
\set s random(1, 1000000000)
SELECT count(*) FROM t_$kind
WHERE k = ANY (ARRAY(SELECT (hashint8(:s + g) & 2147483647) % :nrows + 1
                     FROM generate_series(1, $n) g));
SQL
	done
done
if [ "$(id -u)" -eq 0 ]; then
	chown -R postgres: "$work/scripts"
fi
force_opts="-c enable_seqscan=off -c enable_bitmapscan=off -c max_parallel_workers_per_gather=0"

# Each kind must read its own index with the array as an index condition.
for kind in $kinds; do
	plan=$(as_pg env PGOPTIONS="$force_opts" "$PG_BINDIR/psql" -X -A -t -h "$sock" -p "$port" \
		-U "$dbuser" -d bench -c "EXPLAIN (COSTS OFF) SELECT count(*) FROM t_$kind WHERE k = ANY ('{1,2,3}')")
	if ! grep -q "Index Cond: (k = ANY" <<<"$plan" || ! grep -q "t_${kind}_k" <<<"$plan"; then
		echo "run.sh: the plan for $kind does not use its index with the array as index condition:" >&2
		echo "$plan" >&2
		exit 1
	fi
done

echo "workload,kind,round,tps" >"$results"
declare -A best=()
for n in 10 1000; do
	for ((round = 1; round <= rounds; round++)); do
		for kind in $kinds; do
			log="$work/pgbench.log"
			as_pg env PGOPTIONS="$force_opts" "$PG_BINDIR/pgbench" -n -M prepared \
				-T "$duration" -c 1 -j 1 -D nrows="$rows" \
				-f "$work/scripts/any${n}_$kind.sql" \
				-h "$sock" -p "$port" -U "$dbuser" bench >"$log" 2>&1 || {
				tail -n 5 "$log" >&2
				exit 1
			}
			tps=$(awk '/^tps = / { print $3; exit }' "$log")
			echo "any$n,$kind,$round,$tps" >>"$results"
			if [ -z "${best[any$n,$kind]-}" ] || awk -v a="$tps" -v b="${best[any$n,$kind]}" 'BEGIN { exit !(a > b) }'; then
				best[any$n,$kind]=$tps
			fi
			step "any$n $kind round $round/$rounds: $tps tps"
		done
	done
done

# ---------------------------------------------------------------------------
# Report
# ---------------------------------------------------------------------------

step "report: $out/search-array.csv, $out/search-array.md"
cp "$results" "$out/search-array.csv"
commit=$(repo_commit "$repo")
{
	echo "# = ANY (array) lookups against btree"
	echo
	echo "Produced by \`$command_line\` (from the repository root) on $(date -u '+%Y-%m-%d %H:%M UTC')."
	echo
	echo "- $pg_version; elastic_index $ext_version; repository commit $commit; $(nproc) CPUs."
	echo "- Throwaway cluster: shared_buffers = 1GB, fsync = on, autovacuum = off, jit = off."
	echo "- One table of $rows int8 keys (unique, random order) per kind with one index; \`SELECT count(*) WHERE k = ANY (array)\` with 10 and with 1000 random keys, index-only scans, 1 client, ${duration} s per run; kinds interleaved, best of $rounds runs."
	echo
	echo "| array | btree tps | elastic_btree tps (ratio) | osm_tree tps (ratio) |"
	echo "|---|---:|---:|---:|"
	for n in 10 1000; do
		b=${best[any$n,btree]}
		e=${best[any$n,elastic_btree]}
		o=${best[any$n,osm_tree]}
		awk -v n="$n" -v b="$b" -v e="$e" -v o="$o" \
			'BEGIN { printf "| %d keys | %.1f | %.1f (%.2f) | %.1f (%.2f) |\n", n, b, e, e / b, o, o / b }'
	done
	echo
	echo "Ratios are kind / btree from the same run (above 1 is faster). Raw numbers are in search-array.csv."
} >"$out/search-array.md"
cat "$out/search-array.md"

step "done in $((($(date +%s) - start_epoch) / 60)) min $((($(date +%s) - start_epoch) % 60)) s"
exit 0
}
