#!/usr/bin/env bash
# bench/memory_budget/plot.sh - DIR/memory-budget.png from
# DIR/memory-budget.csv, the results of bench/memory_budget/run.sh (which
# calls it at its end when gnuplot is installed).  The four budgets on the
# x axis (all fits; the table fits with the compact index; the compact
# index fits; nothing fits), one bar per index, the two built by CREATE
# INDEX side by side (btree built, elastic_btree cbuilt), then the two
# grown by inserts (btree grown, elastic_btree compact); cbuilt only when
# the CSV has it (older runs do not): present-key lookups per second (best
# round) and disk reads per lookup (that round's), for uniform and for
# zipfian keys.
#
# Usage: bench/memory_budget/plot.sh DIR [COMMAND]
#
#   COMMAND  the command line that wrote the CSV, shown in the title;
#            default: the one named in DIR/memory-budget.md
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=bench/plot_lib.sh
. "$here/../plot_lib.sh"
# the report names its command on its third line, in backquotes
if [ $# -eq 1 ] && [ -f "$1/memory-budget.md" ]; then
	set -- "$1" "$(sed -n 's/^`\([^`]*\)`.*/\1/p' "$1/memory-budget.md" | head -n 1)"
fi
plot_init memory_budget memory-budget.md "$@"
csv="$dir/memory-budget.csv"
need_csv "$csv"

# the tables of the CSV to draw, in the order of their bars, and their
# kinds (bench/plot_lib.sh: colours and legends)
if awk -F, 'NR > 1 && $4 == "cbuilt" { found = 1; exit } END { exit !found }' "$csv"; then
	tables="built cbuilt grown compact"
	kinds="btree_built elastic_cbuilt btree_grown elastic_compact"
else
	tables="built grown compact"
	kinds="btree_built btree_grown elastic_compact"
fi
# wider with four bars a cluster, so that their labels do not overlap
width=$(($(echo "$kinds" | wc -w) > 3 ? 1600 : 1200))

# A datablock $NAME: one row per budget ("all 412MB"), one column per
# index of the present-key lookups with keys $2, holding $3: "tps" (the
# best round's) or "disk" (that round's disk reads per lookup); "-" when
# missing.
block() {
	echo "\$$1 << EOD"
	awk -F, -v dist="$2" -v what="$3" -v tables="$tables" '
		NR > 1 && $5 == dist && $6 == "present" {
			key = $1 SUBSEP $4
			if (!(key in tps) || $7 + 0 > tps[key] + 0) {
				tps[key] = $7
				disk[key] = ($10 == "" || $8 + 0 == 0) ? "-" : sprintf("%.3f", $10 / $8)
			}
			mb[$1] = $2
		}
		END {
			nb = split("all table index none", budgets, " ")
			nt = split(tables, tabs, " ")
			for (b = 1; b <= nb; b++) {
				if (!(budgets[b] in mb)) continue
				line = "\"" budgets[b] " " mb[budgets[b]] "MB\""
				for (t = 1; t <= nt; t++) {
					key = budgets[b] SUBSEP tabs[t]
					if (!(key in tps)) line = line " -"
					else if (what == "tps") line = line " " sprintf("%.0f", tps[key])
					else line = line " " disk[key]
				}
				print line
			}
		}' "$csv"
	echo "EOD"
}

{
	echo "set terminal pngcairo noenhanced size $width,900 font ',10'"
	echo "set output '$dir/memory-budget.png'"
	echo "set datafile missing '-'"
	echo "cmd = $cmd"
	echo "set multiplot layout 2,2 title \"Present-key lookups under a memory budget (x axis: all fits / table + compact index fit / compact index fits / nothing fits)\\nfrom memory-budget.csv of: \".cmd.\"   (drawn by bench/memory_budget/plot.sh)\" font ',11'"
	echo "set style data histograms; set style histogram clustered gap 1; set style fill solid 0.85 border -1"
	echo "set grid ytics; set yrange [0:*]; set offsets 0, 0, graph 0.1, 0"
	echo "set key below horizontal font ',9' samplen 1.5 width 3"
	block tps_u uniform tps
	block tps_z zipfian tps
	block disk_u uniform disk
	block disk_z zipfian disk
	echo "set title 'uniform keys: lookups per second (higher is better)'; set ylabel 'tps'"
	kind_bars tps_u "%.0f"
	echo "set title 'zipfian keys: lookups per second (higher is better)'; set ylabel 'tps'"
	kind_bars tps_z "%.0f"
	echo "set title 'uniform keys: disk reads per lookup (lower is better)'; set ylabel 'read requests'"
	kind_bars disk_u "%.2f"
	echo "set title 'zipfian keys: disk reads per lookup (lower is better)'; set ylabel 'read requests'"
	kind_bars disk_z "%.2f"
	echo "unset multiplot"
} | gnuplot
echo "plot: $dir/memory-budget.png"
