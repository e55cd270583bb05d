#!/usr/bin/env bash
# bench/parallel_scan/run.sh - parallel index scans of osm_tree, with rows
# in its insert buffer, against btree and elastic_btree on the same rows,
# in one run on one throwaway cluster.
#
# --rows int8 keys go into three tables (btree, elastic_btree, osm_tree
# indexes, built after the load), then --buffered more keys spread over the
# same range, one entry at a time: in osm_tree into its insert buffer
# (osm_tree.top_inserts off, a buffer large enough to hold them, no
# flushes).  VACUUM without index cleanup sets the visibility map (it
# would flush the buffer otherwise).  Each query runs with
# max_parallel_workers_per_gather = 0 (serial) and --workers (parallel,
# parallel costs forced to 0 so that the planner takes the parallel plan),
# interleaved over the indexes, --repeat times; the fastest execution time
# (EXPLAIN ANALYZE, TIMING OFF) counts:
#
#   agg      SELECT count(*), sum(k) WHERE k > 0      (Partial Aggregate over
#            a Parallel Index Only Scan)
#   asc      SELECT k WHERE k > N/2 ORDER BY k LIMIT N/10       (Gather Merge)
#   desc     the same ORDER BY k DESC (a backward scan: one more leaf read
#            per leaf, for its range's lower end)
#
# The runner checks that each plan has the expected shape (a parallel-aware
# index scan in parallel mode, none in serial mode) and that every index
# returns the same count and sum.
#
# Results: docs/benchmarks/parallel-scan.csv and parallel-scan.md, or
# --out DIR.  The extension must be installed.
#
# Usage: bench/parallel_scan/run.sh [--rows N] [--small] [--large] [--buffered M]
#            [--workers W] [--repeat R] [--port P] [--out DIR] [--workdir DIR] [--keep]
#
#   --rows N        keys in the trees (default 2000000)
#   --small         --rows 200000 --buffered 2000 --repeat 2 (a smoke run)
#   --large         --rows 20000000
#   --buffered M    keys in osm_tree's insert buffer (default 20000)
#   --workers W     max_parallel_workers_per_gather in parallel mode (default 2)
#   --repeat R      runs of each query per index and mode (default 5)
#   --port P        port of the throwaway cluster (default 56099)
set -euo pipefail

# One brace group: bash parses the whole script before running it.
{

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=bench/lib.sh
. "$here/../lib.sh" "$@"

rows=2000000
buffered=20000
workers=2
repeat=5
port=56099

while [ $# -gt 0 ]; do
	case $1 in
	--rows) need_int "$1" "${2-}"; rows=$2; shift 2 ;;
	--small) rows=200000; buffered=2000; repeat=2; shift ;;
	--large) rows=20000000; shift ;;
	--buffered) need_int "$1" "${2-}"; buffered=$2; shift 2 ;;
	--workers) need_int "$1" "${2-}"; workers=$2; shift 2 ;;
	--repeat) need_int "$1" "${2-}"; repeat=$2; shift 2 ;;
	*) common_option "$@"; shift "$nshift" ;;
	esac
done
mkdir -p "$out"
out=$(cd "$out" && pwd)

cluster_setup parallel_scan
results="$work/results.csv"
# shellcheck disable=SC2317 # called by cleanup
on_failure() { save_partial parallel-scan; }

# buffer pages: about 280 int8 entries fit a page; room to spare, no flush
bpages=$((buffered / 200 + 8))
step "cluster: initdb in $work (rows=$rows, buffered=$buffered, workers=$workers)"
printf '%s\n' "shared_preload_libraries = 'elastic_index'" "osm_tree.flush_worker = off" \
	"fsync = on" "max_worker_processes = $((workers + 8))" \
	"max_parallel_workers = $((workers + 4))" |
	cluster_initdb bench/parallel_scan/run.sh
step "cluster: start on port $port"
cluster_start
psql_b -c "CREATE EXTENSION elastic_index"
pg_version=$(psql_b -c "SELECT split_part(version(), ' on ', 1)")
ext_version=$(psql_b -c "SELECT extversion FROM pg_extension WHERE extname = 'elastic_index'")

kinds="btree elastic osm"
step "load: $rows keys into each table, then $buffered keys spread over them"
for kind in $kinds; do
	case $kind in
	btree) using="btree (k)" ;;
	elastic) using="elastic_btree (k)" ;;
	osm) using="osm_tree (k) WITH (buffer_size = $bpages, flush_fraction = 1, batch_size = 1)" ;;
	esac
	psql_b <<SQL
CREATE TABLE t_$kind (k int8, pad int4) WITH (autovacuum_enabled = off);
INSERT INTO t_$kind SELECT g * 8, 0 FROM generate_series(1, $rows) AS g;
CREATE INDEX t_${kind}_k ON t_$kind USING $using;
SET osm_tree.top_inserts = off;
INSERT INTO t_$kind SELECT (g::int8 * 7919) % ($rows::int8 * 8) + 3, 1
FROM generate_series(1, $buffered) AS g;
VACUUM (INDEX_CLEANUP OFF, ANALYZE) t_$kind;
SQL
done
IFS='|' read -r bp be < <(psql_b -c "SELECT pages, entries FROM osm_tree_buffer_stats('t_osm_k')")
step "osm_tree buffer: $bp pages, $be entries"
psql_b <<'SQL'
CREATE FUNCTION run_query(q text, OUT ms float8, OUT parallel bool, OUT result text)
LANGUAGE plpgsql AS $fn$
DECLARE
	plan		json;
BEGIN
	EXECUTE 'EXPLAIN (ANALYZE, TIMING OFF, COSTS OFF, FORMAT JSON) ' || q INTO plan;
	ms := (plan->0->>'Execution Time')::float8;
	parallel := plan::text LIKE '%"Parallel Aware": true%';
	EXECUTE 'SELECT count(*) || '' '' || coalesce(sum(k), 0) FROM (' || q || ') AS x' INTO result;
END
$fn$;
SQL

half=$((rows * 4))
limit=$((rows / 10))
declare -A queries=(
	[agg]="SELECT count(*) AS k FROM t_%s WHERE k > 0"
	[asc]="SELECT k FROM t_%s WHERE k > $half ORDER BY k LIMIT $limit"
	[desc]="SELECT k FROM t_%s WHERE k > 0 ORDER BY k DESC LIMIT $limit"
)
echo "query,mode,index,best_ms,result" >"$results"
declare -A best=() result=()
for ((r = 1; r <= repeat; r++)); do
	step "round $r of $repeat"
	for q in agg asc desc; do
		for mode in serial parallel; do
			if [ "$mode" = serial ]; then
				settings="SET max_parallel_workers_per_gather = 0"
			else
				settings="SET max_parallel_workers_per_gather = $workers; SET parallel_setup_cost = 0; SET parallel_tuple_cost = 0; SET min_parallel_index_scan_size = 0; SET cpu_operator_cost = 0"
			fi
			for kind in $kinds; do
				sql=$(printf "${queries[$q]}" "$kind")
				IFS='|' read -r ms par res < <(psql_b -c "$settings; SET enable_seqscan = off; SET enable_bitmapscan = off" \
					-c "SELECT * FROM run_query(\$q\$$sql\$q\$)")
				want=f
				[ "$mode" = parallel ] && want=t
				if [ "$par" != "$want" ]; then
					echo "run.sh: $q $mode on $kind: parallel plan $par, expected $want" >&2
					exit 1
				fi
				result[$q$mode$kind]=$res
				best[$q$mode$kind]=$(fastest "${best[$q$mode$kind]:-}" "$ms")
			done
		done
	done
done
for q in agg asc desc; do
	for mode in serial parallel; do
		for kind in $kinds; do
			if [ "${result[$q$mode$kind]}" != "${result[${q}serialbtree]}" ]; then
				echo "run.sh: $q $mode on $kind returned ${result[$q$mode$kind]}, btree serial ${result[${q}serialbtree]}" >&2
				exit 1
			fi
			echo "$q,$mode,$kind,${best[$q$mode$kind]},${result[$q$mode$kind]}" >>"$results"
		done
		step "$q $mode: btree ${best[${q}${mode}btree]} ms, elastic_btree ${best[${q}${mode}elastic]} ms, osm_tree ${best[${q}${mode}osm]} ms"
	done
done

# ---------------------------------------------------------------------------
# Report
# ---------------------------------------------------------------------------

step "report: $out/parallel-scan.csv, $out/parallel-scan.md"
cp "$results" "$out/parallel-scan.csv"
commit=$(repo_commit "$repo")
awk -F, -v cmd="$command_line" -v date="$(date -u '+%Y-%m-%d %H:%M UTC')" \
	-v nproc="$(nproc)" -v pgver="$pg_version" -v extver="$ext_version" \
	-v commit="$commit" -v rows="$rows" -v buffered="$buffered" -v bp="$bp" \
	-v be="$be" -v workers="$workers" -v repeat="$repeat" -v limit="$limit" '
NR == 1 { next }
{ ms[$1, $2, $3] = $4 }
END {
	printf "# Parallel index scans of osm_tree with a non-empty insert buffer\n\n"
	printf "Produced by `%s` (from the repository root) on %s.\n\n", cmd, date
	printf "- %s; elastic_index %s; repository commit %s; %s CPUs.\n", pgver, extver, commit, nproc
	printf "- Throwaway cluster: shared_buffers = 1GB, fsync = on, autovacuum = off, jit = off.\n"
	printf "- %d int8 keys in each index, built after the load; then %d keys spread over them, one\n", rows, buffered
	printf "  entry at a time: in osm_tree into its insert buffer (%d pages, %d entries).\n", bp, be
	printf "- Execution time (EXPLAIN ANALYZE, TIMING OFF), best of %d runs, indexes interleaved;\n", repeat
	printf "  serial: max_parallel_workers_per_gather = 0; parallel: %d workers and the leader.\n", workers
	printf "  agg: `count(*)` of `k > 0`; asc / desc: `ORDER BY k [DESC] LIMIT %d` (Gather Merge).\n\n", limit
	printf "| query | mode | btree ms | elastic_btree ms | osm_tree ms | osm_tree / btree |\n"
	printf "|---|---|---:|---:|---:|---:|\n"
	split("agg asc desc", qs, " ")
	split("serial parallel", ms_, " ")
	for (i = 1; i <= 3; i++)
		for (j = 1; j <= 2; j++) {
			q = qs[i]; m = ms_[j]
			printf "| %s | %s | %.1f | %.1f | %.1f | %.2f |\n", q, m, ms[q, m, "btree"],
				ms[q, m, "elastic"], ms[q, m, "osm"],
				(ms[q, m, "btree"] > 0 ? ms[q, m, "osm"] / ms[q, m, "btree"] : 0)
		}
	printf "\nParallel speedup (serial / parallel):"
	split("btree elastic osm", ks, " ")
	for (i = 1; i <= 3; i++)
		for (k = 1; k <= 3; k++)
			if (ms[qs[i], "parallel", ks[k]] > 0)
				printf " %s %s %.2f;", qs[i], ks[k], ms[qs[i], "serial", ks[k]] / ms[qs[i], "parallel", ks[k]]
	printf "\n"
}' "$results" >"$out/parallel-scan.md"

step "done in $(($(date +%s) - start_epoch)) s"
exit 0
}
