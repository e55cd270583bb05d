#!/usr/bin/env bash
# bench/compare/run.sh - the headline benchmarks of two commits of this
# repository, interleaved on one server, to show whether a change moved any
# ratio against btree:
#
#   near     bench/near_sorted/run.sh --rows N --sortedness 5:5
#            --types "int8 timestamp" --repeat R
#   elastic  bench/elastic/run.sh --chunk N/10 --chunks 5 --repeat R
#   core     bench/core/run.sh --rows N --types int8
#            --kinds "elastic btree_dedup_on" --clients 1 --rounds R
#
# (the arguments of bench/versions/run.sh).  Each commit is checked out in a
# git worktree under the work directory and installed into the server
# (scripts/setup.sh) before each of its runs; the installed library's md5
# is compared with the worktree's, so a run never measures the wrong build.
# The runs alternate: near A, near B, elastic A, elastic B, core A, core B,
# and with --pairs 2 again in the order B, A.  Every runner compares its
# index with btree in the same run, so the two columns compare ratios.
# Results: OUT/{a,b}/RUNNER[-PAIR]/ (each runner's own report), and
# OUT/compare.md, a table of the headline ratios per pair.
#
# Usage: bench/compare/run.sh --a REV --b REV [--runners "near elastic core"]
#            [--rows N] [--repeat R] [--pairs P] [--out DIR]
#            [--pg-config PATH]
#
#   --a, --b      the two commits (default: HEAD~1 and HEAD)
#   --runners     which runners, in order (default "near elastic core")
#   --rows N      rows (default 1000000; elastic uses N/10-row chunks)
#   --repeat R    best-of-R / rounds of each runner (default 3)
#   --pairs P     how many times each pair runs (default 1; the second and
#                 later pairs run B first)
#   --out DIR     results (default /tmp/elastic_index_compare)
#   --pg-config   the server (default Debian's PostgreSQL 15)
#
# About 4 minutes per near-sorted run, 6.5 per elastic run and 3.5 per core
# run at the defaults on a 2-core machine: 28 minutes for one pair of all
# three.
# One brace group: bash parses the whole script before running it.
{
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
a=HEAD~1
b=HEAD
runners="near elastic core"
rows=1000000
repeat=3
pairs=1
out=/tmp/elastic_index_compare
pg_config=/usr/lib/postgresql/15/bin/pg_config

while [ $# -gt 0 ]; do
	case $1 in
		--a) a=$2; shift 2 ;;
		--b) b=$2; shift 2 ;;
		--runners) runners=$2; shift 2 ;;
		--rows) rows=$2; shift 2 ;;
		--repeat) repeat=$2; shift 2 ;;
		--pairs) pairs=$2; shift 2 ;;
		--out) out=$2; shift 2 ;;
		--pg-config) pg_config=$2; shift 2 ;;
		-h|--help) sed -n '2,35p' "$0"; exit 0 ;;
		*) echo "run.sh: unknown option $1" >&2; exit 2 ;;
	esac
done

mkdir -p "$out"
rev_a=$(git -C "$repo" rev-parse --short "$a")
rev_b=$(git -C "$repo" rev-parse --short "$b")
libdir=$("$pg_config" --pkglibdir)
bindir=$("$pg_config" --bindir)

# Check out a commit in a worktree of its own (kept for reruns).
worktree() {
	local side=$1 rev=$2 dir="$out/src-$1"
	if [ -d "$dir" ]; then
		git -C "$dir" checkout -q --detach "$rev"
	else
		git -C "$repo" worktree add -q --detach "$dir" "$rev"
	fi
	echo "$dir"
}
dir_a=$(worktree a "$rev_a")
dir_b=$(worktree b "$rev_b")

# Install one side's build and make sure it is the one the server loads.
install_side() {
	local dir=$1
	(cd "$dir" && PG_CONFIG=$pg_config bash scripts/setup.sh >/dev/null)
	if [ "$(md5sum <"$dir/elastic_index.so")" != "$(md5sum <"$libdir/elastic_index.so")" ]; then
		echo "run.sh: the installed library is not $dir's build" >&2
		exit 1
	fi
}

# Run one runner for one side into OUT/SIDE/NAME.
run_one() {
	local side=$1 runner=$2 name=$3 dir args
	dir=$([ "$side" = a ] && echo "$dir_a" || echo "$dir_b")
	case $runner in
		near) args=(bench/near_sorted/run.sh --rows "$rows" --sortedness 5:5
			--types "int8 timestamp" --repeat "$repeat") ;;
		elastic) args=(bench/elastic/run.sh --chunk $((rows / 10)) --chunks 5
			--repeat "$repeat") ;;
		core) args=(bench/core/run.sh --rows "$rows" --types int8
			--kinds "elastic btree_dedup_on" --clients 1 --rounds "$repeat") ;;
		*) echo "run.sh: unknown runner $runner" >&2; exit 2 ;;
	esac
	install_side "$dir"
	echo "== $(date -u +%T) $side ($( [ "$side" = a ] && echo "$rev_a" || echo "$rev_b")): ${args[*]}"
	mkdir -p "$out/$side/$name"
	(cd "$dir" && PG_BINDIR=$bindir bash "${args[@]}" --out "$out/$side/$name" \
		>"$out/$side/$name/run.log" 2>&1)
}

for ((p = 1; p <= pairs; p++)); do
	for r in $runners; do
		name=$r
		[ "$p" -gt 1 ] && name="$r-$p"
		if [ "$p" -eq 1 ]; then
			run_one a "$r" "$name"
			run_one b "$r" "$name"
		else
			run_one b "$r" "$name"
			run_one a "$r" "$name"
		fi
	done
done
install_side "$dir_b"

# The headline ratios of one side's run of a runner, one "label value" a
# line.
ratios() {
	local d=$1 runner=$2
	case $runner in
		near)
			# btree's and osm's rows per type: index COPY time, WAL/row,
			# size, leaf fill, point and range tps
			awk -F, 'NR > 1 && $4 == "btree" { b[$1] = $0 }
				NR > 1 && $4 == "osm" { o[$1] = $0 }
				END {
					for (t in o) {
						split(b[t], x, ","); split(o[t], y, ",")
						printf "%s COPY index time %.2f\n", t, y[6] / x[6]
						printf "%s WAL per row %.2f\n", t, y[7] / x[7]
						printf "%s size %.3f\n", t, y[8] / x[8]
						printf "%s leaf fill (osm) %.1f\n", t, y[9]
						printf "%s point tps %.2f\n", t, y[16] / x[16]
						printf "%s range tps %.2f\n", t, y[17] / x[17]
					}
				}' "$d/near-sorted.csv" | sort ;;
		elastic)
			# the capacities the report states, and the last step's sizes
			grep -o 'fits [0-9.]*x the entries' "$d/elastic.md" |
				awk '{ sub(/x$/, "", $2) } NR == 1 { print "capacity against btree at its peak " $2 }
					NR == 2 { print "capacity against a CREATE INDEX btree " $2 }'
			awk -F, 'NR > 1 && $1 == "btree" { b = $4 } NR > 1 && $1 == "elastic" { e = $4 }
				END { printf "size at the last step %.3f\n", e / b }' "$d/elastic.csv" ;;
		core)
			awk -F, 'NR > 1 && $3 ~ /^(index_bytes|tps_point|tps_range|tps_ios|build_s|insert_rows_per_s|cpu_us_per_tx_point|insert_wal_per_row)$/ {
					v[$2, $3] = $5; m[$3] = 1 }
				END {
					for (k in m)
						if (v["btree_dedup_on", k] > 0)
							printf "%s %.3f\n", k, v["elastic_btree", k] / v["btree_dedup_on", k]
				}' "$d/core-results.csv" | sort ;;
	esac
}

{
	echo "# $rev_a (a) against $rev_b (b), each against btree in the same run"
	echo
	echo "Produced by \`bench/compare/run.sh --a $a --b $b --runners \"$runners\" --rows $rows --repeat $repeat --pairs $pairs\` on $(date -u '+%Y-%m-%d %H:%M') UTC, $("$pg_config" --version)."
	for r in $runners; do
		for ((p = 1; p <= pairs; p++)); do
			name=$r
			[ "$p" -gt 1 ] && name="$r-$p"
			echo
			echo "## $name"
			echo
			echo "| figure | a | b |"
			echo "|---|---:|---:|"
			join -t '|' <(ratios "$out/a/$name" "$r" | sed 's/ \([^ ]*\)$/|\1/' | sort) \
				<(ratios "$out/b/$name" "$r" | sed 's/ \([^ ]*\)$/|\1/' | sort) |
				awk -F'|' '{ printf "| %s | %s | %s |\n", $1, $2, $3 }'
		done
	done
} >"$out/compare.md"
cat "$out/compare.md"
exit 0
}
