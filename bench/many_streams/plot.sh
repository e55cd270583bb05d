#!/usr/bin/env bash
# bench/many_streams/plot.sh - DIR/many-streams.png from DIR/many-streams.csv,
# the results of bench/many_streams/run.sh (which calls it at its end when
# gnuplot is installed).  The device count on the x axis, one bar per index
# kind: index maintenance time as a ratio to btree's, index size and leaf
# fill after the COPY load.
#
# Usage: bench/many_streams/plot.sh DIR [COMMAND]
#
#   COMMAND  the command line that wrote the CSV, shown in the title;
#            default: the one named in DIR/many-streams.md
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=bench/plot_lib.sh
. "$here/../plot_lib.sh"
plot_init many_streams many-streams.md "$@"
csv="$dir/many-streams.csv"
need_csv "$csv"

# every kind with an index, btree first
kinds=$(awk -F, 'NR > 1 && $2 != "none" && !seen[$2]++ { printf "%s ", $2 }' "$csv")
kinds="btree $(echo "$kinds" | sed 's/\bbtree\b//')"

# A datablock $NAME: one row per device count, one column per kind of
# $kinds holding the value of awk expression $2 over that row's fields
# (copy: COPY s, none: the no-index COPY s, bytes, fill, bcopy: btree's
# COPY s); "-" when missing.
block() {
	echo "\$$1 << EOD"
	awk -F, -v kinds="$kinds" -v expr="$2" '
		NR > 1 {
			if (!($1 in seen)) { seen[$1] = 1; order[++n] = $1 }
			copy[$1, $2] = $3; bytes[$1, $2] = $4; fill[$1, $2] = $5
		}
		function value(d, k,   m, mb) {
			if (!((d, k) in copy)) return "-"
			m = copy[d, k] - copy[d, "none"]
			mb = copy[d, "btree"] - copy[d, "none"]
			if (expr == "ratio") return mb > 0 ? sprintf("%.3f", m / mb) : "-"
			if (expr == "mb") return sprintf("%.1f", bytes[d, k] / 1048576)
			if (expr == "fill") return fill[d, k] == "" ? "-" : fill[d, k]
		}
		END {
			nk = split(kinds, kl, " ")
			for (i = 1; i <= n; i++) {
				line = order[i]
				for (j = 1; j <= nk; j++) line = line " " value(order[i], kl[j])
				print line
			}
		}' "$csv"
	echo "EOD"
}

{
	echo "set terminal pngcairo noenhanced size 1500,520 font ',10'"
	echo "set output '$dir/many-streams.png'"
	echo "set datafile missing '-'"
	echo "cmd = $cmd"
	echo "set multiplot layout 1,3 title \"Many sorted streams: (device_id, ts), rows interleaved across devices, COPY durably (x axis: devices)\\nfrom many-streams.csv of: \".cmd.\"   (drawn by bench/many_streams/plot.sh)\" font ',11'"
	echo "set style data histograms; set style histogram clustered gap 1; set style fill solid 0.85 border -1"
	echo "set grid ytics; set yrange [0:*]; set offsets 0, 0, graph 0.1, 0"
	echo "set key below horizontal font ',9' samplen 1.5"
	block ratio ratio
	block mb mb
	block fill fill
	echo "set title 'index maintenance during COPY / btree (below 1: cheaper)'; set ylabel 'ratio'"
	kind_bars ratio "%.2f"
	echo "set title 'index size after COPY (MB)'; set ylabel 'MB'"
	kind_bars mb "%.1f"
	echo "set title 'leaf fill after COPY (%)'; set ylabel '%'; set yrange [0:105]; set offsets 0, 0, 0, 0"
	kind_bars fill "%.1f"
	echo "unset multiplot"
} | gnuplot
echo "plot: $dir/many-streams.png"
