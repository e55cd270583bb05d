#!/usr/bin/env bash
# bench/core/plot.sh - DIR/core.png from DIR/core-results.csv, the results
# of bench/core/run.sh (which calls it at its end when gnuplot is
# installed).  One row of panels per key type, one bar per index kind:
# index size after the build and after the bulk insert; CREATE INDEX time
# and the index's own bulk-insert time per row; read tps and server CPU per
# transaction for every workload and client count.
#
# Usage: bench/core/plot.sh DIR [COMMAND]
#
#   COMMAND  the command line that wrote the CSV, shown in the title;
#            default: the one named in DIR/core.md
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=bench/plot_lib.sh
. "$here/../plot_lib.sh"
plot_init core core.md "$@"
csv="$dir/core-results.csv"
need_csv "$csv"

types=$(awk -F, 'NR > 1 && !seen[$1]++ { printf "%s ", $1 }' "$csv")
kinds=$(awk -F, 'NR > 1 && $2 != "no_index" && !seen[$2]++ { printf "%s ", $2 }' "$csv")
clients=$(awk -F, 'NR > 1 && $3 ~ /^tps_(point|range|ios)$/ && !seen[$4]++ { printf "%s ", $4 }' "$csv")
ntypes=$(echo "$types" | wc -w)

# A datablock $NAME for key type $2: one row per "label|metric|clients|divisor"
# of the remaining arguments, one column per kind ("-" when missing).
block() {
	local name=$1 type=$2
	shift 2
	echo "\$$name << EOD"
	printf '%s\n' "$@" | awk -F'|' -v t="$type" -v kinds="$kinds" -v csv="$csv" '
		BEGIN {
			while ((getline line < csv) > 0) {
				split(line, f, ",")
				if (f[1] == t)
					v[f[2], f[3], f[4]] = f[5]
			}
		}
		{
			line = "\"" $1 "\""
			nk = split(kinds, k, " ")
			for (j = 1; j <= nk; j++) {
				x = v[k[j], $2, $3]
				line = line " " (x == "" ? "-" : x / $4)
			}
			print line
		}'
	echo "EOD"
}

# The plot command of datablock $1: one bar per kind.
bars() {
	local plot="plot" col=2 kind
	for kind in $kinds; do
		plot+=" \$$1 using $col:xtic(1) title '$kind' lc rgb '$(kind_colour "$kind")',"
		col=$((col + 1))
	done
	echo "${plot%,}"
}

reads=()
for w in point range ios; do
	for c in $clients; do
		reads+=("$w, $c cl.|tps_$w|$c|1000")
	done
done
cpu=()
for r in "${reads[@]}"; do
	r=${r/|tps_/|cpu_us_per_tx_}
	cpu+=("${r%|1000}|1")
done

{
	echo "set terminal pngcairo noenhanced size 1800,$((430 * ntypes + 70)) font ',10'"
	echo "set output '$dir/core.png'"
	echo "set datafile missing '-'"
	echo "cmd = $cmd"
	echo "set multiplot layout $ntypes,4 title \"Core benchmark: elastic_btree against PostgreSQL's btree on identical tables (ios = 100-row index-only scan, range = 100-row range scan)\\nfrom core-results.csv of: \".cmd.\"   (drawn by bench/core/plot.sh)\" font ',11'"
	echo "set style data histograms; set style histogram clustered gap 1; set style fill solid 0.85 border -1"
	echo "set grid ytics; set yrange [0:*]"
	echo "set key inside top left horizontal font ',9' samplen 1.5; set offsets 0, 0, graph 0.2, 0; set bmargin 5"
	for t in $types; do
		block "size_$t" "$t" "after build|index_bytes||1048576" "after bulk insert|index_bytes_after_insert||1048576"
		block "time_$t" "$t" "build (s)|build_s||1" "insert (µs/row)|insert_index_us_per_row||1"
		block "tps_$t" "$t" "${reads[@]}"
		block "cpu_$t" "$t" "${cpu[@]}"
		echo "set title '$t keys: index size (MB)'; set ylabel 'MB'"
		bars "size_$t"
		echo "set title \"$t keys: CREATE INDEX (s) and the index's own\\nbulk-insert time per row (µs)\"; set ylabel 's  |  µs per row'"
		bars "time_$t"
		echo "set title '$t keys: reads, median tps (thousands)'; set ylabel 'thousand tps'; set xtics rotate by -40 left"
		bars "tps_$t"
		echo "set title '$t keys: reads, server CPU per transaction (µs)'; set ylabel 'µs / transaction'"
		bars "cpu_$t"
		echo "set xtics norotate autojustify"
	done
	echo "unset multiplot"
} | gnuplot
echo "plot: $dir/core.png"
