#!/usr/bin/env bash
# bench/insert_latency/plot.sh - DIR/insert-latency.png from
# DIR/insert-latency.csv, the results of bench/insert_latency/run.sh (which
# calls it at its end when gnuplot is installed).  One row of panels per key
# order K:L: the p50, p99, p99.9 and max latency of a single-row INSERT per
# index kind (log scale), p99.9 as a ratio to btree's with issue 24's 2x
# target, and tps; per kind the best of the rounds, as in the report.
#
# Usage: bench/insert_latency/plot.sh DIR [COMMAND]
#
#   COMMAND  the command line that wrote the CSV, shown in the title;
#            default: the one named in DIR/insert-latency.md
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=bench/plot_lib.sh
. "$here/../plot_lib.sh"
plot_init insert_latency insert-latency.md "$@"
csv="$dir/insert-latency.csv"
need_csv "$csv"

orders=$(awk -F, 'NR > 1 && !seen[$1 ":" $2]++ { printf "%s ", $1 ":" $2 }' "$csv")
kinds=$(awk -F, 'NR > 1 && !seen[$3]++ { printf "%s ", $3 }' "$csv")
norders=$(echo "$orders" | wc -w)

# The legend name of kind $1 of this runner.
label() {
	case $1 in
	osm) echo "osm_tree (top_inserts on)" ;;
	osm_buffer) echo "osm_tree, buffer" ;;
	osm_noworker) echo "osm_tree, buffer, no worker" ;;
	*) kind_label "$1" ;;
	esac
}

# The colour of kind $1 of this runner: the buffer kinds in shades of
# osm_tree's green.
colour() {
	case $1 in
	osm_buffer) echo "#56b4a0" ;;
	osm_noworker) echo "#a6dcc8" ;;
	*) kind_colour "$1" ;;
	esac
}

# The best of the rounds of kind $2 at key order $1 for CSV field $3: the
# lowest (latencies) or, with $4 = max, the highest (tps).
best() {
	awk -F, -v o="$1" -v kd="$2" -v f="$3" -v dir="${4:-min}" '
		NR > 1 && $1 ":" $2 == o && $3 == kd && $f != "" {
			if (!set || (dir == "max" ? $f > b : $f < b)) { b = $f; set = 1 }
		}
		END { if (set) print b; else print "-" }' "$csv"
}

# A datablock $NAME of key order $2: the latency panel, one row per
# percentile, one column per kind.
latency_block() {
	local kd row p f
	echo "\$$1 << EOD"
	for p in "p50:6" "p99:7" "p99.9:8" "max:9"; do
		f=${p##*:}
		row=${p%%:*}
		for kd in $kinds; do
			row+=" $(best "$2" "$kd" "$f")"
		done
		echo "$row"
	done
	echo "EOD"
}

# A datablock $NAME of key order $2: one row per kind, its label, the
# p99.9 ratio to btree's, its tps and its colour (as a number).
kind_block() {
	local kd b999 v999 tps
	b999=$(best "$2" btree 8)
	echo "\$$1 << EOD"
	for kd in $kinds; do
		v999=$(best "$2" "$kd" 8)
		tps=$(best "$2" "$kd" 5 max)
		c=$(colour "$kd")
		echo "\"$(label "$kd")\" $(awk -v a="$v999" -v b="$b999" 'BEGIN { if (b > 0) printf "%.3f", a / b; else print "-" }') $tps $((16#${c#\#}))"
	done
	echo "EOD"
}

{
	echo "set terminal pngcairo noenhanced size 1500,$((400 * norders + 80)) font ',10'"
	echo "set output '$dir/insert-latency.png'"
	echo "set datafile missing '-'"
	echo "cmd = $cmd"
	echo "set multiplot layout $norders,3 title \"Single-row INSERT latency, one row per transaction from concurrent pgbench clients, fsync and synchronous_commit on (best of the rounds per kind)\\nfrom insert-latency.csv of: \".cmd.\"   (drawn by bench/insert_latency/plot.sh)\" font ',11'"
	echo "set style fill solid 0.85 border -1"
	echo "set grid ytics"
	echo "set key top left font ',9' samplen 1.5"
	for o in $orders; do
		name=${o//:/_}
		k=${o%%:*}
		l=${o##*:}
		latency_block "lat_$name" "$o"
		kind_block "kind_$name" "$o"
		echo "set title 'K = $k%, L = $l%: latency per INSERT transaction (ms, log scale)'"
		echo "set style data histograms; set style histogram clustered gap 1"
		echo "set logscale y; set yrange [*:*]; set ylabel 'ms'; set xtics ()"
		plot="plot"
		col=2
		for kd in $kinds; do
			plot+=" \$lat_$name using $col:xtic(1) title '$(label "$kd")' lc rgb '$(colour "$kd")',"
			col=$((col + 1))
		done
		echo "${plot%,}"
		echo "unset logscale y"
		echo "set style data boxes; set boxwidth 0.6"
		echo "set title 'K = $k%, L = $l%: p99.9 / btree p99.9 (target: at most 2)'"
		echo "set yrange [0:*]; set offsets 0, 0, graph 0.12, 0; set ylabel 'ratio'; set xtics rotate by -20 font ',9'"
		echo "plot \$kind_$name using 0:2:4:xtic(1) notitle lc rgb variable, '' using 0:2:(sprintf('%.2f', \$2)) with labels offset 0,0.8 notitle, 2 title '2x btree' lw 2 dt 2 lc rgb '#d55e00'"
		echo "set title 'K = $k%, L = $l%: throughput (tps)'"
		echo "set ylabel 'transactions / s'"
		echo "plot \$kind_$name using 0:3:4:xtic(1) notitle lc rgb variable, '' using 0:3:(sprintf('%.0f', \$3)) with labels offset 0,0.8 notitle"
		echo "set xtics norotate font ',10'; set offsets 0, 0, 0, 0"
	done
	echo "unset multiplot"
} | gnuplot
echo "plot: $dir/insert-latency.png"
