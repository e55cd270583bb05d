#!/usr/bin/env bash
# bench/versions/run.sh - the headline benchmarks on each PostgreSQL major,
# each against btree in the same run on the same server:
#
#   near-sorted  bench/near_sorted/run.sh: K=L=5% int8 and timestamp rows
#                loaded by COPY into osm_tree and btree (size, leaf fill,
#                index maintenance time, WAL), then point and range reads
#   elastic      bench/elastic/run.sh: elastic_btree under a size bound of
#                half btree's peak, inserts then deletes, and the capacity
#                at the bound (entries per byte against btree's)
#   core         bench/core/run.sh: CREATE INDEX, size, point lookups,
#                range and index-only scans of unique int8 keys, against
#                btree with deduplication (its default)
#
# Servers: "debian-15" (Debian's PostgreSQL 15 package) and 15, 16, 17, 18
# (built by scripts/build_postgres.sh --release: no assertions, -O2).  The
# extension is installed into each (scripts/setup.sh), then the runners
# run one after the other, one server at a time, with their own settings
# (bench/lib.sh).  Results: DIR/SERVER/{near-sorted,elastic,core}/ (DIR is
# docs/benchmarks/versions by default); docs/benchmarks/versions.md
# compares them.
#
# Usage: bench/versions/run.sh [--servers "debian-15 18"] [--rows N]
#            [--repeat R] [--out DIR]
#
#   --servers S   servers, in order (default "debian-15 18")
#   --rows N      rows of the near-sorted and core data sets (default
#                 1000000; the elastic run uses N/10-row chunks, 5 of them)
#   --repeat R    best-of-R measurements where a runner takes it (default 3)
#   --out DIR     results directory (default docs/benchmarks/versions)
# One brace group: bash parses the whole script before running it.
{
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$repo"

servers="debian-15 18"
rows=1000000
repeat=3
out=$repo/docs/benchmarks/versions
while [ $# -gt 0 ]; do
	case $1 in
	--servers) servers=${2:?--servers needs a list}; shift 2 ;;
	--rows) rows=${2:?--rows needs a number}; shift 2 ;;
	--repeat) repeat=${2:?--repeat needs a number}; shift 2 ;;
	--out) out=${2:?--out needs a directory}; shift 2 ;;
	-h | --help) sed -n '/^# Usage:/,/^# One brace/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
	*) echo "run.sh: unknown option $1" >&2; exit 2 ;;
	esac
done

for server in $servers; do
	case $server in
	debian-15) pg_config=/usr/lib/postgresql/15/bin/pg_config ;;
	15 | 16 | 17 | 18) pg_config=$(bash scripts/build_postgres.sh --release "$server" | tail -n 1) ;;
	*) echo "run.sh: unknown server $server" >&2; exit 2 ;;
	esac
	name=$server
	[ "$server" = debian-15 ] || name=$server-release
	echo "== $name: $("$pg_config" --version)"
	PG_CONFIG=$pg_config bash scripts/setup.sh
	bindir=$("$pg_config" --bindir)
	mkdir -p "$out/$name"
	PG_BINDIR=$bindir bash bench/near_sorted/run.sh --rows "$rows" \
		--sortedness 5:5 --types "int8 timestamp" --repeat "$repeat" \
		--out "$out/$name/near-sorted"
	PG_BINDIR=$bindir bash bench/elastic/run.sh --chunk $((rows / 10)) \
		--chunks 5 --repeat "$repeat" --out "$out/$name/elastic"
	PG_BINDIR=$bindir bash bench/core/run.sh --rows "$rows" --types int8 \
		--kinds "elastic btree_dedup_on" --clients 1 --rounds "$repeat" \
		--out "$out/$name/core"
done
exit 0
}
