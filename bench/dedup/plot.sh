#!/usr/bin/env bash
# bench/dedup/plot.sh - DIR/dedup.png from DIR/dedup.csv, the results of
# bench/dedup/run.sh (which calls it at its end when gnuplot is installed):
# per column, each index's size as a ratio to btree's, built by CREATE
# INDEX (left) and grown by inserts (right), for elastic_btree with
# deduplicate_items on and off, and (grown only) with compact leaves; the
# line at 1.0 is btree.
#
# Usage: bench/dedup/plot.sh DIR [COMMAND]
#
#   COMMAND  the command line that wrote the CSV, shown in the title;
#            default: the one named in DIR/dedup.md
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=bench/plot_lib.sh
. "$here/../plot_lib.sh"
plot_init dedup dedup.md "$@"
csv="$dir/dedup.csv"
need_csv "$csv"

# One row per column of section $1: the column, then elastic_btree with
# lists / btree and without lists / btree.
ratios() {
	awk -F, -v s="$1" '
		NR > 1 && $1 == s {
			if (!($2 in seen)) { seen[$2] = 1; order[++n] = $2 }
			v[$2, $3] = $5
		}
		END {
			for (i = 1; i <= n; i++) {
				c = order[i]
				printf "%s %.3f %.3f", c, v[c, "elastic_dedup"] / v[c, "btree"], v[c, "elastic"] / v[c, "btree"]
				if ((c, "compact") in v)
					printf " %.3f", v[c, "compact"] / v[c, "btree"]
				printf "\n"
			}
		}' "$csv"
}

kinds="elastic_dedup elastic"
{
	echo "set terminal pngcairo noenhanced size 1400,600 font ',10'"
	echo "set output '$dir/dedup.png'"
	echo "cmd = $cmd"
	echo "set multiplot layout 1,2 title \"Posting lists: index size / btree's (btree deduplicates)\\nfrom dedup.csv of \".cmd.\"   (drawn by bench/dedup/plot.sh)\" font ',11'"
	echo "set style data histograms; set style histogram clustered gap 1"
	echo "set style fill solid 0.85 border -1"
	echo "set grid ytics; set yrange [0:*]; set offsets 0, 0, graph 0.12, 0"
	echo "set key below horizontal font ',9' samplen 1.5"
	echo "set arrow from graph 0, first 1 to graph 1, first 1 nohead dt 2 lc rgb '#444444'"
	for section in built grown; do
		echo "\$$section << EOD"
		ratios "$section"
		echo "EOD"
		if [ "$section" = built ]; then
			echo "set title 'built by CREATE INDEX'; set ylabel 'size / btree'"
		else
			echo "set title 'grown by inserts'; set ylabel 'size / btree'"
		fi
		plot="plot"
		col=2
		i=0
		section_kinds=$kinds
		if [ "$section" = grown ] && grep -q '^grown,[^,]*,compact,' "$csv"; then
			section_kinds="$kinds compact"
		fi
		for kd in $section_kinds; do
			label="elastic_btree, deduplicate_items = on"
			colour=$(kind_colour elastic_btree)
			if [ "$kd" = elastic ]; then
				label="elastic_btree, deduplicate_items = off"
				colour="#56b4e9"
			elif [ "$kd" = compact ]; then
				label="elastic_btree, compact leaves"
				colour="#009e73"
			fi
			plot+=" \$$section using $col:xtic(1) title '$label' lc rgb '$colour',"
			nk=$(echo $section_kinds | wc -w)
			plot+=" \$$section using (\$0 + ($i - ($nk - 1) / 2.0) / ($nk + 1.0)):$col:(sprintf('%.2f', \$$col)) with labels offset 0,0.7 font ',8' notitle,"
			col=$((col + 1))
			i=$((i + 1))
		done
		echo "${plot%,}"
	done
	echo "unset multiplot"
} | gnuplot
echo "plot: $dir/dedup.png"
