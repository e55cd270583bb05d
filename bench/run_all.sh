#!/usr/bin/env bash
# bench/run_all.sh - every benchmark of the repository, one after the other,
# each writing its report into docs/benchmarks/ (or --out DIR):
#
#   bench/core/run.sh            point, range, index-only, bulk insert, build
#   bench/sliding_window/run.sh  a 7-day window: insert a day, delete a day, VACUUM
#   bench/near_sorted/run.sh     near-sorted ingestion (COPY, single rows, reads)
#   bench/osm_tuning/run.sh      osm_tree fill/split factors and the K x L grid
#   bench/elastic/run.sh         the elastic index under a size bound (paper 6.1)
#   bench/ycsb/run.sh            YCSB workloads A, B, C, E, F
#
# Each runner prints its own progress; this script prints which one runs
# and how long it took, and stops at the first failure.  The default sizes
# finish in about 40 minutes on a 2-core machine; --large passes --large to
# every runner (hours).  The extension must be installed ("make install").
#
# Usage: bench/run_all.sh [--large] [--only "core elastic ..."] [--out DIR]
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
runners="core sliding_window near_sorted osm_tuning elastic ycsb"
args=()

while [ $# -gt 0 ]; do
	case $1 in
	--large) args+=(--large); shift ;;
	--only) runners=${2:?--only needs a list}; shift 2 ;;
	--out) args+=(--out "${2:?--out needs a directory}"); shift 2 ;;
	-h | --help) sed -n '/^# Usage:/p' "$0" | sed 's/^# //'; exit 0 ;;
	*) echo "run_all.sh: unknown option $1" >&2; exit 2 ;;
	esac
done

start=$(date +%s)
for r in $runners; do
	if [ ! -x "$here/$r/run.sh" ] && [ ! -f "$here/$r/run.sh" ]; then
		echo "run_all.sh: no runner bench/$r/run.sh" >&2
		exit 2
	fi
	t0=$(date +%s)
	echo "=== bench/$r/run.sh ${args[*]:-}"
	bash "$here/$r/run.sh" "${args[@]}"
	echo "=== bench/$r/run.sh done in $((($(date +%s) - t0) / 60)) min $((($(date +%s) - t0) % 60)) s"
done
echo "=== all done in $((($(date +%s) - start) / 60)) min"
