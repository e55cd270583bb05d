#!/usr/bin/env bash
# bench/run_all.sh - every benchmark of the repository, one after the other,
# each writing its report into docs/benchmarks/ (or --out DIR), then one
# suite report (suite.md, suite.csv) that gathers them:
#
#   bench/core/run.sh            point, range, index-only, bulk insert, build
#   bench/sliding_window/run.sh  a 7-day window: insert a day, delete a day, VACUUM
#   bench/near_sorted/run.sh     near-sorted ingestion (COPY, single rows, reads):
#                                btree and osm_tree at 5M rows
#   bench/single_row/run.sh      index time per single-row INSERT, no transaction
#                                overhead: btree, elastic_btree, osm_tree
#   bench/osm_tuning/run.sh      osm_tree fill/split factors and the K x L grid
#   bench/buffer_lookups/run.sh  point lookups with a full osm_tree insert buffer
#   bench/elastic/run.sh         the elastic index under a size bound (paper 6.1)
#   bench/compact_lookups/run.sh point lookups (index and index-only scans, hits
#                                and absent keys) on compact leaves vs btree
#   bench/ycsb/run.sh            YCSB workloads A, B, C, E, F: btree, BRIN,
#                                elastic_btree, osm_tree
#   bench/serializable/run.sh    serialization failures under SERIALIZABLE:
#                                btree, elastic_btree, osm_tree
#   bench/search_array/run.sh    = ANY (array) lookups, 10 and 1000 keys: btree,
#                                elastic_btree, osm_tree
#   bench/parallel_build/run.sh  CREATE INDEX serially and with 2 workers:
#                                btree, elastic_btree, osm_tree
#   bench/concurrent_copy/run.sh 4 concurrent COPY streams of near-sorted
#                                rows, with their wait events: btree, osm_tree
#   bench/insert_latency/run.sh  single-row INSERT latency (p50 to p99.9) from
#                                8 clients, durably: btree, osm_tree with and
#                                without its insert buffer, elastic_btree
#   bench/bounded_memory/run.sh  one-transaction COPY under osm_tree.batch_memory
#                                with small shared_buffers: btree, osm_tree
#   bench/memory_budget/run.sh   point lookups with the server in a memory
#                                cgroup at four budgets: btree built and
#                                grown, elastic_btree with a size bound
#                                grown (compact) and built (cbuilt) (needs
#                                root)
#   bench/dedup/run.sh           posting lists: index sizes built and grown
#                                on repeating and unique keys, unique-key
#                                inserts and lookups: btree, elastic_btree
#                                with and without deduplicate_items
#
# Not run here: bench/citus_copy/run.sh (COPY through a Citus coordinator
# into a distributed table, btree against osm_tree) needs Citus, which it
# builds with scripts/build_citus.sh from a source archive not every machine
# has; run it on its own.
#
# Each runner prints its own progress; this script prints which one runs
# ([i/n]), how long it took, and the elapsed total.  The default sizes
# finish in about an hour on a 2-core machine; --small runs every runner
# at a size that takes a few minutes in all (a smoke run: its reports go to
# /tmp/elastic_index_bench_small unless --out is given, never over the
# committed ones); --large passes --large to every runner (hours).  The
# extension must be installed ("make install").
#
# When gnuplot is installed every runner draws PNG plots from its CSV next
# to its report and links them from it: core, sliding_window, near_sorted,
# osm_tuning, concurrent_copy, insert_latency, bounded_memory,
# memory_budget and dedup with their
# bench/<runner>/plot.sh DIR, elastic and ycsb in
# their run.sh.  --plot-only runs no benchmark: it redraws, with those
# plot.sh scripts, the plots of the CSVs already in --out (default
# docs/benchmarks; e.g. --out docs/benchmarks/suite).
#
# Usage: bench/run_all.sh [--small | --large] [--only "core elastic ..."] [--out DIR]
#        bench/run_all.sh --plot-only [--only "..."] [--out DIR]
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/.." && pwd)
runners="core sliding_window near_sorted single_row osm_tuning buffer_lookups elastic compact_lookups ycsb serializable search_array parallel_build concurrent_copy insert_latency bounded_memory memory_budget dedup"
size=default
out=""
plot_only=0

while [ $# -gt 0 ]; do
	case $1 in
	--small) size=small; shift ;;
	--large) size=large; shift ;;
	--only) runners=${2:?--only needs a list}; shift 2 ;;
	--out) out=${2:?--out needs a directory}; shift 2 ;;
	--plot-only) plot_only=1; shift ;;
	-h | --help) sed -n '/^# Usage:/,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
	*) echo "run_all.sh: unknown option $1" >&2; exit 2 ;;
	esac
done
if [ -z "$out" ]; then
	if [ "$size" = small ]; then
		out=/tmp/elastic_index_bench_small
	else
		out="$repo/docs/benchmarks"
	fi
fi

if [ "$plot_only" -eq 1 ]; then
	for r in $runners; do
		if [ -f "$here/$r/plot.sh" ]; then
			bash "$here/$r/plot.sh" "$out"
		else
			echo "run_all.sh: bench/$r/run.sh draws its plots itself; rerun it to redraw them"
		fi
	done
	exit 0
fi
mkdir -p "$out"

# The arguments of runner $1 at the chosen size.
runner_args() {
	case $size in
	large) echo "--large" ;;
	default) echo "" ;;
	small)
		case $1 in
		core) echo "--rows 100000 --duration 2 --clients 1" ;;
		sliding_window) echo "--day 20000 --windows 8" ;;
		near_sorted) echo "--rows 200000 --types int8 --sortedness 0:0,5:5,100:100 --duration 2" ;;
		single_row) echo "--rows 20000 --repeat 1 --sortedness 5:5,100:100" ;;
		osm_tuning) echo "--rows 200000 --fill 96 --split 0.7 --grid 1,5,25" ;;
		buffer_lookups) echo "--rows 100000 --buffered 4000 --pages 16 --duration 1 --repeat 1" ;;
		elastic) echo "--chunk 40000 --chunks 4 --secs 1" ;;
		compact_lookups) echo "--small" ;;
		ycsb) echo "--rows 100000 --secs 2" ;;
		serializable) echo "--small" ;;
		search_array) echo "--small" ;;
		parallel_build) echo "--small --repeat 1" ;;
		concurrent_copy) echo "--small" ;;
		insert_latency) echo "--small" ;;
		bounded_memory) echo "--small" ;;
		memory_budget) echo "--small" ;;
		dedup) echo "--small" ;;
		esac
		;;
	esac
}

# The report a runner writes, by runner name.
report_of() {
	case $1 in
	core) echo core ;;
	sliding_window) echo sliding-window ;;
	near_sorted) echo near-sorted ;;
	single_row) echo single-row ;;
	osm_tuning) echo osm-tuning ;;
	buffer_lookups) echo buffer-lookups ;;
	elastic) echo elastic ;;
	compact_lookups) echo compact-lookups ;;
	ycsb) echo ycsb ;;
	serializable) echo serializable ;;
	search_array) echo search-array ;;
	parallel_build) echo parallel-build ;;
	concurrent_copy) echo concurrent-copy ;;
	insert_latency) echo insert-latency ;;
	bounded_memory) echo bounded-memory ;;
	memory_budget) echo memory-budget ;;
	dedup) echo dedup ;;
	esac
}

n=$(echo "$runners" | wc -w)
i=0
start=$(date +%s)
echo "runner,status,seconds,report" >"$out/suite.csv"
for r in $runners; do
	i=$((i + 1))
	if [ ! -f "$here/$r/run.sh" ]; then
		echo "run_all.sh: no runner bench/$r/run.sh" >&2
		exit 2
	fi
	# lists in the small arguments are written with commas: make them words
	read -r -a rargs <<<"$(runner_args "$r")"
	for j in "${!rargs[@]}"; do
		rargs[j]=${rargs[j]//,/ }
	done
	t0=$(date +%s)
	echo "=== [$i/$n] bench/$r/run.sh ${rargs[*]:-} --out $out (total elapsed $((t0 - start)) s)"
	status=ok
	bash "$here/$r/run.sh" "${rargs[@]}" --out "$out" || status=failed
	secs=$(($(date +%s) - t0))
	echo "$r,$status,$secs,$(report_of "$r").md" >>"$out/suite.csv"
	echo "=== [$i/$n] bench/$r/run.sh $status in $((secs / 60)) min $((secs % 60)) s"
	[ "$status" = ok ] || exit 1
done

# suite.md: which runners ran, how long, and every report's text, with its
# headings moved one level down
{
	echo "# Benchmark suite"
	echo
	flag=""
	[ "$size" = default ] || flag=" --$size"
	echo "Produced by \`bench/run_all.sh$flag\` (from the repository root) on $(date -u '+%Y-%m-%d %H:%M UTC'),"
	echo "repository commit $(git -C "$repo" rev-parse --short HEAD 2>/dev/null || echo unknown), $(nproc) CPUs."
	echo "Every figure compares an index kind with PostgreSQL's btree measured in the"
	echo "same run of the same runner; each section below is that runner's report."
	echo
	echo "| runner | report | seconds |"
	echo "|---|---|---:|"
	tail -n +2 "$out/suite.csv" | awk -F, '{ printf "| bench/%s/run.sh | [%s](%s) | %s |\n", $1, $4, $4, $3 }'
	for r in $runners; do
		echo
		sed 's/^#/##/' "$out/$(report_of "$r").md"
	done
} >"$out/suite.md"
echo "=== all done in $((($(date +%s) - start) / 60)) min: $out/suite.md"
