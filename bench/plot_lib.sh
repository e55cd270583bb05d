# Helpers shared by the plot scripts (bench/*/plot.sh); sourced, not run.
# Each plot script draws PNGs with gnuplot from the CSV files a runner wrote
# into a directory; the runner calls it at its end, and it can be run on
# its own on a directory of committed results (docs/benchmarks).

# plot_init NAME MD DIR [COMMAND]: check the arguments of plot script NAME
# (bench/NAME/plot.sh) and set dir (the results directory, no trailing
# slash) and cmd, a gnuplot string constant holding the command that wrote
# the results: COMMAND, or the one named by the "Produced by `...`" line of
# the runner's report DIR/MD.
plot_init() {
	local name=$1 md=$2 command
	if [ $# -lt 3 ] || [ $# -gt 4 ] || [ ! -d "$3" ]; then
		echo "usage: bench/$name/plot.sh DIR [COMMAND]" >&2
		echo "  DIR: a directory holding the runner's CSV files (e.g. docs/benchmarks)" >&2
		exit 2
	fi
	if ! command -v gnuplot >/dev/null; then
		echo "plot.sh: gnuplot is not installed" >&2
		exit 1
	fi
	dir=${3%/}
	command=${4-}
	if [ -z "$command" ] && [ -f "$dir/$md" ]; then
		command=$(sed -n 's/^Produced by[^`]*`\([^`]*\)`.*/\1/p' "$dir/$md" | head -n 1)
	fi
	cmd=$(gp_quote "${command:-bench/$name/run.sh (command unknown: no $md)}")
}

# A gnuplot single-quoted string constant holding $1.
gp_quote() {
	printf "'%s'" "${1//\'/\'\'}"
}

# Fail unless the CSV file $1 exists and has a row besides its header.
need_csv() {
	if [ "$(wc -l <"$1" 2>/dev/null || echo 0)" -lt 2 ]; then
		echo "plot.sh: no results in $1" >&2
		exit 1
	fi
}

# The colour of index kind $1, the same in every plot.
kind_colour() {
	case $1 in
	none | no_index) echo "#999999" ;;
	btree | btree_dedup_on | btree_built) echo "#444444" ;;
	btree_dedup_off | btree_grown) echo "#a0a0a0" ;;
	brin) echo "#e69f00" ;;
	elastic | elastic_btree | elastic_compact) echo "#0072b2" ;;
	elastic_cbuilt) echo "#56b4e9" ;;
	osm | osm_tree) echo "#009e73" ;;
	*) echo "#cc79a7" ;;
	esac
}

# The name of index kind $1 in legends.
kind_label() {
	case $1 in
	none) echo "no index" ;;
	elastic) echo "elastic_btree" ;;
	btree_built) echo "btree (CREATE INDEX)" ;;
	btree_grown) echo "btree (grown by inserts)" ;;
	elastic_compact) echo "elastic_btree (compact)" ;;
	elastic_cbuilt) echo "elastic_btree (CREATE INDEX)" ;;
	osm) echo "osm_tree" ;;
	*) echo "$1" ;;
	esac
}

# The gnuplot command that draws datablock $1 as clustered histogram bars:
# one row per cluster (its x label in column 1), one column per kind of
# $kinds (the caller's variable), each bar in its kind's colour and labelled
# above it with its value in printf format $2, or, when $2 is "columns",
# with the text of the column that follows the value columns by the number
# of kinds.
kind_bars() {
	local plot="plot" col=2 kind n i label
	n=$(echo "$kinds" | wc -w)
	for kind in $kinds; do
		plot+=" \$$1 using $col:xtic(1) title '$(kind_label "$kind")' lc rgb '$(kind_colour "$kind")',"
		col=$((col + 1))
	done
	col=2
	for ((i = 0; i < n; i++)); do
		# a bar's centre: cluster x + (i - (n - 1) / 2) / (n + 1)
		if [ "$2" = columns ]; then
			label=$((col + n))
		else
			label="(sprintf('$2', \$$col))"
		fi
		plot+=" \$$1 using (\$0 + ($i - ($n - 1) / 2.0) / ($n + 1.0)):$col:$label with labels offset 0,0.7 font ',8' notitle,"
		col=$((col + 1))
	done
	echo "${plot%,}"
}
