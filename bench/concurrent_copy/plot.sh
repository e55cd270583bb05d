#!/usr/bin/env bash
# bench/concurrent_copy/plot.sh - DIR/concurrent-copy.png from
# DIR/concurrent-copy.csv and concurrent-copy-waits.csv, the results of
# bench/concurrent_copy/run.sh (which calls it at its end when gnuplot is
# installed).  Per index kind: the load time and the index maintenance
# time (best round, as in the report), index size and leaf fill (last
# round), and the share of the COPY backends' wait-event samples per
# event (all rounds; a Lock:extend wait is shown as the table's or the
# index's, whatever the table's name).
#
# Usage: bench/concurrent_copy/plot.sh DIR [COMMAND]
#
#   COMMAND  the command line that wrote the CSV, shown in the title;
#            default: the one named in DIR/concurrent-copy.md
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=bench/plot_lib.sh
. "$here/../plot_lib.sh"
plot_init concurrent_copy concurrent-copy.md "$@"
csv="$dir/concurrent-copy.csv"
waits="$dir/concurrent-copy-waits.csv"
need_csv "$csv"
need_csv "$waits"
# events shown by name in the wait panel; the rest are "other"
top=7

kinds=$(awk -F, 'NR > 1 && !seen[$1]++ { printf "%s ", $1 }' "$csv")
ikinds=$(echo "$kinds" | sed 's/\bnone\b//')

# One row per kind of $kinds: its name, best load s, best index
# maintenance s ("-" for none), index MB and leaf fill of its last round.
summary() {
	awk -F, -v kinds="$kinds" '
		NR > 1 {
			if (!($1 in load) || $3 < load[$1]) load[$1] = $3
			if ($4 != "" && (!($1 in maint) || $4 < maint[$1])) maint[$1] = $4
			mb[$1] = $5 == "" ? "-" : sprintf("%.1f", $5 / 1048576)
			fill[$1] = $6 == "" ? "-" : $6
		}
		END {
			nk = split(kinds, k, " ")
			for (i = 1; i <= nk; i++)
				printf "%s %s %s %s %s\n", k[i], load[k[i]], (k[i] in maint) ? maint[k[i]] : "-", mb[k[i]], fill[k[i]]
		}' "$csv"
}

# The wait samples as "kind event share%" lines: Lock:extend waits named
# by the table's or the index's role, the $top most frequent events over
# all kinds by name, the others summed as "other".
shares() {
	awk -F, -v top="$top" '
		NR > 1 {
			e0 = $2
			gsub(/"/, "", e0)
			if (e0 ~ /^Lock:extend \(t_[a-z_]*_k\)$/) e0 = "Lock:extend (index)"
			else if (e0 ~ /^Lock:extend \(t_[a-z_]*\)$/) e0 = "Lock:extend (table)"
			n[$1, e0] += $3; total[$1] += $3; all[e0] += $3
			if (!($1 in kseen)) { kseen[$1] = 1; korder[++nk] = $1 }
		}
		END {
			m = 0
			for (e in all) ev[++m] = e
			for (i = 1; i <= m; i++)
				for (j = i + 1; j <= m; j++)
					if (all[ev[j]] > all[ev[i]]) { t = ev[i]; ev[i] = ev[j]; ev[j] = t }
			for (i = 1; i <= m; i++) name[ev[i]] = i <= top ? ev[i] : "other"
			for (a = 1; a <= nk; a++)
				for (i = 1; i <= m; i++)
					s[korder[a], name[ev[i]]] += n[korder[a], ev[i]]
			for (i = 1; i <= m && i <= top + 1; i++) {
				e = i <= top ? ev[i] : "other"
				for (a = 1; a <= nk; a++) {
					k = korder[a]
					printf "%s\t%s\t%.2f\n", k, e, total[k] ? 100 * s[k, e] / total[k] : 0
				}
			}
		}' "$waits"
}

# The colours of the wait panel, one per event in order.
event_colours=("#f0e442" "#0072b2" "#d55e00" "#cc79a7" "#56b4e9" "#e69f00" "#009e73" "#999999")

{
	echo "set terminal pngcairo noenhanced size 1400,1000 font ',10'"
	echo "set output '$dir/concurrent-copy.png'"
	echo "set datafile missing '-'"
	echo "cmd = $cmd"
	echo "set multiplot layout 2,2 title \"Concurrent COPY streams of near-sorted rows into one table, fsync and synchronous_commit on\\nfrom concurrent-copy.csv and concurrent-copy-waits.csv of\\n\".cmd.\"   (drawn by bench/concurrent_copy/plot.sh)\" font ',11'"
	echo "set style fill solid 0.85 border -1"
	echo "set grid ytics; set yrange [0:*]; set offsets 0, 0, graph 0.1, 0"
	echo "set key below horizontal font ',9' samplen 1.5"
	echo "\$sum << EOD"
	summary
	echo "EOD"

	# load and maintenance time: x = the two measures, one bar per kind
	echo "\$times << EOD"
	for m in load maintenance; do
		row="\"$m\""
		[ "$m" = maintenance ] && row="\"index maintenance\""
		for kd in $kinds; do
			f=2
			[ "$m" = maintenance ] && f=3
			row+=" $(summary | awk -v k="$kd" -v f="$f" '$1 == k { print $f }')"
		done
		echo "$row"
	done
	echo "EOD"
	echo "set title 'load time and index maintenance (s, best round)'; set ylabel 's'"
	echo "set style data histograms; set style histogram clustered gap 1"
	plot="plot"
	col=2
	n=$(echo "$kinds" | wc -w)
	i=0
	for kd in $kinds; do
		plot+=" \$times using $col:xtic(1) title '$(kind_label "$kd")' lc rgb '$(kind_colour "$kd")',"
		plot+=" \$times using (\$0 + ($i - ($n - 1) / 2.0) / ($n + 1.0)):$col:(sprintf('%.2f', \$$col)) with labels offset 0,0.7 font ',8' notitle,"
		col=$((col + 1))
		i=$((i + 1))
	done
	echo "${plot%,}"

	# size and leaf fill, one bar per kind with an index
	echo "set style data boxes; set boxwidth 0.6"
	echo "\$ikinds << EOD"
	for kd in $ikinds; do
		c=$(kind_colour "$kd")
		summary | awk -v k="$kd" -v c="$((16#${c#\#}))" -v l="$(kind_label "$kd")" '$1 == k { printf "\"%s\" %s %s %s\n", l, $4, $5, c }'
	done
	echo "EOD"
	echo "set title 'index size (MB)'; set ylabel 'MB'"
	echo "plot \$ikinds using 0:2:4:xtic(1) notitle lc rgb variable, '' using 0:2:(sprintf('%.1f', \$2)) with labels offset 0,0.8 notitle"
	echo "set title 'leaf fill (%)'; set ylabel '%'; set yrange [0:105]; set offsets 0, 0, 0, 0"
	echo "plot \$ikinds using 0:3:4:xtic(1) notitle lc rgb variable, '' using 0:3:(sprintf('%.1f', \$3)) with labels offset 0,0.8 notitle"

	# wait-event shares: one stacked bar per kind
	echo "\$waits << EOD"
	shares | awk -F'\t' -v kinds="$kinds" '
		{ if (!($2 in seen)) { seen[$2] = 1; ev[++m] = $2 } v[$1, $2] = $3 }
		END {
			nk = split(kinds, k, " ")
			line = "kind"
			for (i = 1; i <= m; i++) line = line "\t\"" ev[i] "\""
			print line
			for (j = 1; j <= nk; j++) {
				line = (k[j] == "none" ? "no index" : k[j])
				for (i = 1; i <= m; i++) line = line "\t" (((k[j], ev[i]) in v) ? v[k[j], ev[i]] : 0)
				print line
			}
		}'
	echo "EOD"
	echo "set datafile separator tab"
	echo "set title 'what the COPY backends wait on (% of samples)'; set ylabel '% of samples'; set yrange [0:100]"
	echo "set style data histograms; set style histogram rowstacked; set boxwidth 0.6"
	echo "set key outside right vertical font ',8' samplen 1 invert"
	nevents=$(shares | cut -f2 | awk '!seen[$0]++' | wc -l)
	plot="plot"
	for ((e = 0; e < nevents; e++)); do
		plot+=" \$waits using $((e + 2)):xtic(1) title columnheader lc rgb '${event_colours[e]}',"
	done
	echo "${plot%,}"
	echo "unset multiplot"
} | gnuplot
echo "plot: $dir/concurrent-copy.png"
