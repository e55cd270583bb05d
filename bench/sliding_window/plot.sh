#!/usr/bin/env bash
# bench/sliding_window/plot.sh - DIR/sliding-window.png from
# DIR/sliding-window.csv, the results of bench/sliding_window/run.sh (which
# calls it at its end when gnuplot is installed): per window, the size of
# the elastic_btree and the btree index on the same table, and their
# deleted pages and pages in the free space map.
#
# Usage: bench/sliding_window/plot.sh DIR [COMMAND]
#
#   COMMAND  the command line that wrote the CSV, shown in the title;
#            default: the one named in DIR/sliding-window.md
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=bench/plot_lib.sh
. "$here/../plot_lib.sh"
plot_init sliding_window sliding-window.md "$@"
csv="$dir/sliding-window.csv"
need_csv "$csv"

e=$(kind_colour elastic_btree)
b=$(kind_colour btree)
{
	echo "set terminal pngcairo noenhanced size 1300,480 font ',10'"
	echo "set output '$dir/sliding-window.png'"
	echo "set datafile separator ','"
	echo "cmd = $cmd"
	echo "set multiplot layout 1,2 title \"Sliding window: each window inserts one day of ascending keys, deletes the oldest day, VACUUMs (window 0: the initial load)\\nfrom sliding-window.csv of: \".cmd.\"   (drawn by bench/sliding_window/plot.sh)\" font ',11'"
	echo "set grid; set xlabel 'window'; set key bottom right"
	echo "set title 'index size (MB)'; set ylabel 'MB'; set yrange [0:*]"
	echo "plot '$csv' using 1:(\$3 / 1048576) skip 1 with linespoints pointtype 7 pointsize 0.6 lc rgb '$e' title 'elastic_btree'," \
		"'' using 1:(\$4 / 1048576) skip 1 with linespoints pointtype 5 pointsize 0.6 lc rgb '$b' title 'btree'"
	echo "set title 'deleted pages and pages in the free space map'; set ylabel 'pages'; set yrange [0:*]; set offsets 0, 0, graph 0.05, 0; set key right top at graph 0.98, 0.85 opaque"
	echo "plot '$csv' using 1:8 skip 1 with linespoints pointtype 7 pointsize 0.6 lc rgb '$e' title 'elastic_btree deleted'," \
		"'' using 1:9 skip 1 with lines dashtype 2 linewidth 2 lc rgb '$e' title 'elastic_btree in FSM'," \
		"'' using 1:12 skip 1 with linespoints pointtype 5 pointsize 0.6 lc rgb '$b' title 'btree deleted'," \
		"'' using 1:13 skip 1 with lines dashtype 2 linewidth 2 lc rgb '$b' title 'btree in FSM'"
	echo "unset multiplot"
} | gnuplot
echo "plot: $dir/sliding-window.png"
