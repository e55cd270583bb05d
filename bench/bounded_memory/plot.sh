#!/usr/bin/env bash
# bench/bounded_memory/plot.sh - DIR/bounded-memory.png from
# DIR/bounded-memory.csv, the results of bench/bounded_memory/run.sh (which
# calls it at its end when gnuplot is installed).  The two load modes on
# the x axis (all rows in one transaction; one transaction per batch of
# rows), one bar per index kind: index maintenance time as a ratio to
# btree's (best load of the rounds, minus the best no-index load), and the
# memory the index took (the largest RssAnon growth over the rounds minus
# the no-index load's), labelled with the kind's bound.
#
# Usage: bench/bounded_memory/plot.sh DIR [COMMAND]
#
#   COMMAND  the command line that wrote the CSV, shown in the title;
#            default: the one named in DIR/bounded-memory.md
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=bench/plot_lib.sh
. "$here/../plot_lib.sh"
# the report names its command on its third line, in backquotes
if [ $# -eq 1 ] && [ -f "$1/bounded-memory.md" ]; then
	set -- "$1" "$(sed -n 's/^`\([^`]*\)`.*/\1/p' "$1/bounded-memory.md" | head -n 1)"
fi
plot_init bounded_memory bounded-memory.md "$@"
csv="$dir/bounded-memory.csv"
need_csv "$csv"

# every kind with an index, in the order of the CSV (btree first)
kinds=$(awk -F, 'NR > 1 && $3 != "none" && !seen[$3]++ { printf "%s ", $3 }' "$csv")

# A datablock $NAME: one row per mode, one column per kind of $kinds
# holding $2: "ratio" (maintenance / btree's) or "mem" (MB over the
# no-index load, then one column per kind with its label: that MB and the
# bound); "-" when missing.
block() {
	echo "\$$1 << EOD"
	awk -F, -v kinds="$kinds" -v what="$2" '
		NR > 1 {
			m = $2; k = $3
			if (!(m in seen)) { seen[m] = 1; order[++n] = m }
			if (!((m, k) in best) || $5 < best[m, k]) best[m, k] = $5
			g = $8 - $7
			if (!((m, k) in grow) || g > grow[m, k]) grow[m, k] = g
			if ($4 != "") bound[k] = $4
		}
		function mb(m, k,   v) {
			v = (grow[m, k] - grow[m, "none"]) / 1024
			return v < 0 ? 0 : v
		}
		function value(m, k,   idx, bt) {
			if (!((m, k) in best)) return "-"
			idx = best[m, k] - best[m, "none"]
			bt = best[m, "btree"] - best[m, "none"]
			if (what == "ratio") return bt > 0 ? sprintf("%.3f", idx / bt) : "-"
			return sprintf("%.2f", mb(m, k))
		}
		function label(m, k) {
			if (!((m, k) in best)) return "-"
			if (k in bound) return sprintf("%.1f/%.0f", mb(m, k), bound[k] / 1024)
			return sprintf("%.1f", mb(m, k))
		}
		END {
			nk = split(kinds, kl, " ")
			for (i = 1; i <= n; i++) {
				line = order[i]
				for (j = 1; j <= nk; j++) line = line " " value(order[i], kl[j])
				if (what == "mem")
					for (j = 1; j <= nk; j++) line = line " " label(order[i], kl[j])
				print line
			}
		}' "$csv"
	echo "EOD"
}

{
	echo "set terminal pngcairo noenhanced size 1200,520 font ',10'"
	echo "set output '$dir/bounded-memory.png'"
	echo "set datafile missing '-'"
	echo "cmd = $cmd"
	echo "set multiplot layout 1,2 title \"A COPY under osm_tree.batch_memory, durably, shared_buffers smaller than the index (x axis: one transaction / one per batch)\\nfrom bounded-memory.csv of: \".cmd.\"   (drawn by bench/bounded_memory/plot.sh)\" font ',11'"
	echo "set style data histograms; set style histogram clustered gap 1; set style fill solid 0.85 border -1"
	echo "set grid ytics; set yrange [0:*]; set offsets 0, 0, graph 0.1, 0"
	echo "set key below horizontal font ',9' samplen 1.5 width 3"
	block ratio ratio
	block mem mem
	echo "set title 'index maintenance during COPY / btree (below 1: cheaper)'; set ylabel 'ratio'"
	kind_bars ratio "%.2f"
	echo "set title 'backend memory the index took (MB; label: MB / bound)'; set ylabel 'MB'"
	kind_bars mem columns
	echo "unset multiplot"
} | gnuplot
echo "plot: $dir/bounded-memory.png"
