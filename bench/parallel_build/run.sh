#!/usr/bin/env bash
# bench/parallel_build/run.sh - CREATE INDEX with and without parallel
# workers, for btree, elastic_btree and osm_tree.
#
# One table of random int8 keys; every index kind is built serially
# (max_parallel_maintenance_workers = 0) and with --workers parallel
# workers, in rounds that build every kind both ways once each (a slow
# spell of the machine then costs every build a round, not one build all
# of its tries); the fastest of --repeat builds counts.  Reported: each
# kind's parallel speedup over its own serial build, and its times as a
# ratio to btree's from the same run.  Every parallel build must have
# launched all its workers (the server log's DEBUG1 lines say so for
# elastic_btree and osm_tree; btree's pg_stat_progress_create_index does
# not show it, so btree is trusted to launch them as ours did).
#
# Results: docs/benchmarks/parallel-build.csv and parallel-build.md, or
# --out DIR.  The extension must be installed.
#
# Usage: bench/parallel_build/run.sh [--rows N] [--small] [--large] [--workers W]
#            [--repeat R] [--port P] [--out DIR] [--workdir DIR] [--keep]
#
#   --rows N        rows of the table (default 10000000)
#   --small         --rows 1000000
#   --large         --rows 50000000
#   --workers W     parallel workers of the parallel builds (default 2)
#   --repeat R      builds per kind and worker count; the fastest counts
#                   (default 3)
#   --port P        port of the throwaway cluster (default 56097)
set -euo pipefail

# One brace group: bash parses the whole script before running it.
{

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=bench/lib.sh
. "$here/../lib.sh" "$@"

rows=10000000
workers=2
repeat=3
port=56097

while [ $# -gt 0 ]; do
	case $1 in
	--rows) need_int "$1" "${2-}"; rows=$2; shift 2 ;;
	--small) rows=1000000; shift ;;
	--large) rows=50000000; shift ;;
	--workers) need_int "$1" "${2-}"; workers=$2; shift 2 ;;
	--repeat) need_int "$1" "${2-}"; repeat=$2; shift 2 ;;
	*) common_option "$@"; shift "$nshift" ;;
	esac
done
mkdir -p "$out"
out=$(cd "$out" && pwd)

cluster_setup parallel_build
results="$work/results.csv"
# shellcheck disable=SC2317 # called by cleanup
on_failure() { save_partial parallel-build; }

step "cluster: initdb in $work (rows=$rows, workers=$workers, repeat=$repeat)"
cluster_initdb bench/parallel_build/run.sh <<CONF
shared_preload_libraries = 'elastic_index'
fsync = on
max_worker_processes = $((workers + 8))
max_parallel_workers = $((workers + 8))
max_parallel_maintenance_workers = $workers
min_parallel_table_scan_size = 0
log_min_messages = debug1
osm_tree.flush_worker = off
CONF
step "cluster: start on port $port"
cluster_start
psql_b -c "CREATE EXTENSION elastic_index"
pg_version=$(psql_b -c "SELECT split_part(version(), ' on ', 1)")
ext_version=$(psql_b -c "SELECT extversion FROM pg_extension WHERE extname = 'elastic_index'")
mwm=$(psql_b -c "SHOW maintenance_work_mem")

step "data: $rows random int8 keys"
psql_b -c "CREATE TABLE t (k int8) WITH (autovacuum_enabled = off, parallel_workers = $workers)" \
	-c "INSERT INTO t SELECT (random() * 1e15)::int8 FROM generate_series(1, $rows)" \
	-c "VACUUM ANALYZE t"

# The access method of kind $1.
am_of() {
	case $1 in
	btree) echo btree ;;
	elastic) echo elastic_btree ;;
	osm) echo osm_tree ;;
	esac
}

# Build t_k of kind $1 with up to $2 workers; print its time in seconds.
build() {
	local t0 t1
	psql_b -c "DROP INDEX IF EXISTS t_k" -c "CHECKPOINT"
	t0=$(now)
	psql_b -c "SET max_parallel_maintenance_workers = $2" \
		-c "CREATE INDEX t_k ON t USING $(am_of "$1") (k)"
	t1=$(now)
	elapsed "$t0" "$t1"
}

# Lines of the server log saying that one of our builds launched all of
# its $1 workers.
launched_lines() {
	grep -c "with $1 of $1 parallel workers launched" "$work/server.log" || true
}

echo "kind,workers,build_s,index_bytes" >"$results"
kinds="btree elastic osm"
declare -A best=() size=()
for ((r = 1; r <= repeat; r++)); do
	for kind in $kinds; do
		for w in 0 "$workers"; do
			before=$(launched_lines "$workers")
			s=$(build "$kind" "$w")
			if [ "$kind" != btree ] && [ "$w" -gt 0 ] &&
				[ "$(launched_lines "$workers")" -ne $((before + 1)) ]; then
				echo "run.sh: the $kind build with $w workers did not launch them all" >&2
				exit 1
			fi
			best[$kind,$w]=$(fastest "${best[$kind,$w]-}" "$s")
			size[$kind,$w]=$(psql_b -c "SELECT pg_relation_size('t_k')")
			step "round $r: $kind, $w workers: $s s"
		done
	done
done
for kind in $kinds; do
	for w in 0 "$workers"; do
		echo "$kind,$w,${best[$kind,$w]},${size[$kind,$w]}" >>"$results"
	done
done

# ---------------------------------------------------------------------------
# Report
# ---------------------------------------------------------------------------

step "report: $out/parallel-build.csv, $out/parallel-build.md"
cp "$results" "$out/parallel-build.csv"
commit=$(repo_commit "$repo")
awk -F, -v cmd="$command_line" -v date="$(date -u '+%Y-%m-%d %H:%M UTC')" \
	-v nproc="$(nproc)" -v pgver="$pg_version" -v extver="$ext_version" \
	-v commit="$commit" -v rows="$rows" -v repeat="$repeat" -v w="$workers" \
	-v mwm="$mwm" '
NR == 1 { next }
{ t[$1, $2] = $3; bytes[$1, $2] = $4 }
END {
	print "# Parallel CREATE INDEX"
	print ""
	printf "Produced by `%s` (from the repository root) on %s.\n\n", cmd, date
	printf "- %s; elastic_index %s; repository commit %s; %s CPUs.\n", pgver, extver, commit, nproc
	printf "- Throwaway cluster: shared_buffers = 1GB, fsync = on, maintenance_work_mem = %s, autovacuum = off, jit = off.\n", mwm
	printf "- `CREATE INDEX` on one int8 column of %d random keys, serially and with %d parallel workers (table reloption `parallel_workers = %d`, `min_parallel_table_scan_size = 0`), after a `CHECKPOINT`; the fastest of %d builds counts (%d rounds, each building every kind both ways once).\n", rows, w, w, repeat, repeat
	print ""
	printf "| index | serial s | %d workers s | speedup | serial / btree serial | parallel / btree parallel | size MB |\n", w
	print "|---|---:|---:|---:|---:|---:|---:|"
	split("btree elastic osm", kinds, " ")
	split("btree elastic_btree osm_tree", names, " ")
	for (i = 1; i <= 3; i++) {
		k = kinds[i]
		printf "| %s | %.3f | %.3f | %.2fx | %.2f | %.2f | %.1f |\n", names[i],
			t[k, 0], t[k, w], t[k, 0] / t[k, w], t[k, 0] / t["btree", 0],
			t[k, w] / t["btree", w], bytes[k, w] / 1048576
	}
	print ""
	print "Targets: a parallel speedup of at least 1.6x over the same access method'"'"'s serial build, and a parallel build within 1.2x of btree'"'"'s. Raw numbers are in parallel-build.csv."
}' "$results" >"$out/parallel-build.md"

step "done in $((($(date +%s) - start_epoch) / 60)) min $((($(date +%s) - start_epoch) % 60)) s"
exit 0
}
