#!/usr/bin/env bash
# bench/near_sorted/plot.sh - DIR/near-sorted.png from DIR/near-sorted.csv,
# the results of bench/near_sorted/run.sh (which calls it at its end when
# gnuplot is installed).  One row of panels per key type, the sortedness
# K:L on the x axis, one bar per index kind in the CSV: index size and leaf
# fill after the COPY load, its index maintenance time and WAL per row.
#
# Usage: bench/near_sorted/plot.sh DIR [COMMAND]
#
#   COMMAND  the command line that wrote the CSV, shown in the title;
#            default: the one named in DIR/near-sorted.md
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=bench/plot_lib.sh
. "$here/../plot_lib.sh"
plot_init near_sorted near-sorted.md "$@"
csv="$dir/near-sorted.csv"
need_csv "$csv"

types=$(awk -F, 'NR > 1 && !seen[$1]++ { printf "%s ", $1 }' "$csv")
kinds=$(awk -F, 'NR > 1 && !seen[$4]++ { printf "%s ", $4 }' "$csv")
ntypes=$(echo "$types" | wc -w)

# A datablock $NAME: one row per K:L of key type $2, one column per kind of
# $kinds holding CSV field $3 divided by $4 ("-" when missing).
block() {
	echo "\$$1 << EOD"
	awk -F, -v t="$2" -v f="$3" -v s="$4" -v kinds="$kinds" '
		NR > 1 && $1 == t {
			kl = $2 ":" $3
			if (!(kl in seen)) { seen[kl] = 1; order[++n] = kl }
			v[kl, $4] = $f
		}
		END {
			nk = split(kinds, k, " ")
			for (i = 1; i <= n; i++) {
				line = order[i]
				for (j = 1; j <= nk; j++) {
					x = v[order[i], k[j]]
					line = line " " (x == "" ? "-" : x / s)
				}
				print line
			}
		}' "$csv"
	echo "EOD"
}

# The plot command of datablock $1 for CSV field $2: one bar per kind that
# has a value in that field somewhere in the CSV.
bars() {
	local plot="plot" col=2 kind
	for kind in $kinds; do
		if awk -F, -v f="$2" -v k="$kind" 'NR > 1 && $4 == k && $f != "" { found = 1 } END { exit !found }' "$csv"; then
			plot+=" \$$1 using $col:xtic(1) title '$(kind_label "$kind")' lc rgb '$(kind_colour "$kind")',"
		fi
		col=$((col + 1))
	done
	echo "${plot%,}"
}

# For the size panel of key type $1: brin's largest index, too small for
# its bar to show.
small() {
	awk -F, -v t="$1" 'NR > 1 && $1 == t && $4 == "brin" && $8 / 1048576 > m { m = $8 / 1048576; b = 1 }
		END { if (b) printf "\\nbrin at most %.2f MB, too small to show", m }' "$csv"
}

{
	echo "set terminal pngcairo noenhanced size 1600,$((420 * ntypes + 70)) font ',10'"
	echo "set output '$dir/near-sorted.png'"
	echo "set datafile missing '-'"
	echo "cmd = $cmd"
	echo "set multiplot layout $ntypes,4 title \"Near-sorted ingestion: N keys COPYed in near-sorted arrival order (x axis: sortedness K:L, K% of the rows out of place by up to L% of N)\\nfrom near-sorted.csv of: \".cmd.\"   (drawn by bench/near_sorted/plot.sh)\" font ',11'"
	echo "set style data histograms; set style histogram clustered gap 1; set style fill solid 0.85 border -1"
	echo "set grid ytics; set yrange [0:*]"
	echo "set key below horizontal font ',9' samplen 1.5"
	for t in $types; do
		block "size_$t" "$t" 8 1048576
		block "copy_$t" "$t" 6 1
		block "wal_$t" "$t" 7 1
		block "fill_$t" "$t" 9 1
		echo "set title \"$t keys: index size after COPY (MB)$(small "$t")\"; set ylabel 'MB'"
		bars "size_$t" 8
		echo "set title '$t keys: index maintenance during COPY (s)'; set ylabel 'load s with index - without'"
		bars "copy_$t" 6
		echo "set title '$t keys: WAL per row, heap included (bytes)'; set ylabel 'bytes / row'"
		bars "wal_$t" 7
		echo "set title '$t keys: leaf fill after COPY (%)'; set ylabel '%'; set yrange [0:105]"
		bars "fill_$t" 9
		echo "set yrange [0:*]"
	done
	echo "unset multiplot"
} | gnuplot
echo "plot: $dir/near-sorted.png"
