#!/usr/bin/env bash
# bench/osm_tuning/plot.sh - DIR/osm-tuning.png from DIR/osm-tuning.csv and
# DIR/osm-grid.png from DIR/osm-grid.csv, the results of
# bench/osm_tuning/run.sh (which calls it at its end when gnuplot is
# installed).
#
#   osm-tuning.png  one column of panels per sortedness K:L: osm_tree's
#                   index size relative to btree's, and its load time, by
#                   split_factor, one line per fillfactor; btree dashed.
#   osm-grid.png    the K x L grid as a heatmap: btree's index maintenance
#                   time / osm_tree's (the speedup), each cell labelled with
#                   the speedup, both times and both leaf fills.
#
# Usage: bench/osm_tuning/plot.sh DIR [COMMAND]
#
#   COMMAND  the command line that wrote the CSVs, shown in the titles;
#            default: the one named in DIR/osm-tuning.md
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=bench/plot_lib.sh
. "$here/../plot_lib.sh"
plot_init osm_tuning osm-tuning.md "$@"
csv="$dir/osm-tuning.csv"
grid="$dir/osm-grid.csv"
need_csv "$csv"
need_csv "$grid"

# ---------------------------------------------------------------------------
# osm-tuning.png
# ---------------------------------------------------------------------------

sortedness=$(awk -F, 'NR > 1 && !seen[$1 ":" $2]++ { printf "%s ", $1 ":" $2 }' "$csv")
fills=$(awk -F, 'NR > 1 && $4 != "" && !seen[$4]++ { printf "%s ", $4 }' "$csv")
splits=$(awk -F, 'NR > 1 && $5 != "" && !seen[$5]++ { printf "%s,", $5 }' "$csv")
npanels=$(echo "$sortedness" | wc -w)
# the y ranges, shared by the panels of a row: size ratio and load seconds
read -r rmin rmax smax < <(awk -F, 'NR > 1 {
		if (rmin == "" || $9 < rmin) rmin = $9
		if ($9 > rmax) rmax = $9
		if ($6 > smax) smax = $6
	} END { printf "%.2f %.2f %.2f\n", rmin - 0.05, rmax + 0.05, smax * 1.1 }' "$csv")

{
	echo "set terminal pngcairo noenhanced size $((340 * npanels + 120)),780 font ',10'"
	echo "set output '$dir/osm-tuning.png'"
	echo "set datafile separator ','"
	echo "cmd = $cmd"
	echo "set multiplot layout 2,$npanels title \"osm_tree's fillfactor and split_factor: int8 keys inserted in near-sorted arrival order (K% of the rows out of place by up to L% of N); x axis: split_factor\\nfrom osm-tuning.csv of: \".cmd.\"   (drawn by bench/osm_tuning/plot.sh)\" font ',11'"
	echo "set grid; set xtics (${splits%,}); set offsets 0.05, 0.05, 0, 0"
	echo "\$d << EOD"
	tail -n +2 "$csv"
	echo "EOD"
	for row in size load; do
		for kl in $sortedness; do
			k=${kl%%:*}
			l=${kl##*:}
			if [ $row = size ]; then
				echo "set title 'K=$k% L=$l%: index size / btree size'; set ylabel 'size / btree size'; set yrange [$rmin:$rmax]; unset key"
				col=9
				btree=1
			else
				echo "set title 'K=$k% L=$l%: load time (s, heap included)'; set ylabel 's'; set yrange [0:$smax]; set key below horizontal font ',9'"
				col=6
				btree=$(awk -F, -v k="$k" -v l="$l" 'NR > 1 && $1 == k && $2 == l && $3 == "btree" { print $6 }' "$csv")
			fi
			plot="plot"
			for f in $fills; do
				plot+=" \$d using 5:((\$1 == $k && \$2 == $l && \$4 == $f) ? \$$col : NaN) with linespoints pointtype 7 title 'fillfactor $f',"
			done
			plot+=" ${btree:-NaN} with lines dashtype 2 linewidth 2 lc rgb '$(kind_colour btree)' title 'btree'"
			echo "$plot"
		done
	done
	echo "unset multiplot"
} | gnuplot
echo "plot: $dir/osm-tuning.png"

# ---------------------------------------------------------------------------
# osm-grid.png
# ---------------------------------------------------------------------------

ks=$(awk -F, 'NR > 1 && !seen[$1]++ { printf "%s ", $1 }' "$grid")
ls=$(awk -F, 'NR > 1 && !seen[$2]++ { printf "%s ", $2 }' "$grid")
nk=$(echo "$ks" | wc -w)
nl=$(echo "$ls" | wc -w)
# the colour scale: red below 1 (osm_tree slower), white at 1, green above;
# a speedup of "-" (osm_tree's time not above 0: noise) is left blank
cbmax=$(awk -F, 'NR > 1 && $6 != "-" && $6 > m { m = $6 } END { printf "%d\n", (m > 2 ? int(m) + 1 : 2) }' "$grid")

{
	echo "set terminal pngcairo noenhanced size $((150 * nl + 300)),$((105 * nk + 210)) font ',10'"
	echo "set output '$dir/osm-grid.png'"
	echo "cmd = $cmd"
	echo "set title \"K x L grid: index maintenance time (load with the index - without) of btree / osm_tree, defaults\\nint8 keys, K% of the rows out of place by up to L% of N\\neach cell: speedup, btree s / osm_tree s, leaf fill % btree / osm_tree\\nfrom osm-grid.csv of: \".cmd.\"   (drawn by bench/osm_tuning/plot.sh)\""
	echo "set xlabel 'L: displacement, % of N'; set ylabel 'K: rows out of place, %'"
	xt="" i=0
	for l in $ls; do xt+="'$l' $i,"; i=$((i + 1)); done
	echo "set xtics (${xt%,}) scale 0; set xrange [-0.5:$((nl - 1)).5]"
	yt="" i=0
	for k in $ks; do yt+="'$k' $i,"; i=$((i + 1)); done
	echo "set ytics (${yt%,}) scale 0; set yrange [-0.5:$((nk - 1)).5]"
	echo "set cbrange [0:$cbmax]; set cblabel 'speedup (btree time / osm_tree time)'"
	echo "set palette defined (0 '#d73027', 1 '#ffffff', $cbmax '#1a9850')"
	echo "unset key"
	# columns: L position, K position, speedup, btree s, osm s, fills
	echo "\$g << EOD"
	awk -F, -v ks="$ks" -v ls="$ls" '
		BEGIN {
			n = split(ks, a, " "); for (i = 1; i <= n; i++) kp[a[i]] = i - 1
			n = split(ls, a, " "); for (i = 1; i <= n; i++) lp[a[i]] = i - 1
		}
		NR > 1 { printf "%d %d %s %s %s %s/%s\n", lp[$2], kp[$1], ($6 == "-" ? "NaN" : $6), $4, $5, $7, $8 }' "$grid"
	echo "EOD"
	echo "plot \$g using 1:2:3 with image pixels," \
		"\$g using 1:2:(strcol(3) eq 'NaN' ? '-' : sprintf('%.2fx', \$3)) with labels font ',13' offset 0,0.9," \
		"\$g using 1:2:(sprintf('%.2f / %.2f s', \$4, \$5)) with labels font ',9' offset 0,-0.3," \
		"\$g using 1:2:(sprintf('fill %s %%', strcol(6))) with labels font ',9' offset 0,-1.3"
} | gnuplot
echo "plot: $dir/osm-grid.png"
