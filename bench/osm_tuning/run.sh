#!/usr/bin/env bash
# bench/osm_tuning/run.sh - how osm_tree's fill_factor and split_factor
# shape an index loaded by INSERT ... SELECT in arrival order, against btree
# loaded the same way, in one run on one throwaway cluster.
#
# For every sortedness (K:L, from elastic_index_near_sorted) and every
# (fill_factor, split_factor) pair, one statement inserts --rows int8 keys
# in arrival order into an empty table with an osm_tree index (batches of
# osm_tree.batch_size, the default 100000); the runner reports the leaf
# fill, the index size (and its ratio to btree's) and the load time.
# Then the paper's K x L grid: for every K and L in --grid, the index
# maintenance time (load with the index minus load without) of btree and of
# osm_tree with its default settings, and the speedup btree / osm_tree.
# Results go to docs/benchmarks/osm-tuning.{csv,md} and osm-grid.csv (or
# --out), and osm-tuning.png and osm-grid.png, drawn from the CSVs by
# bench/osm_tuning/plot.sh when gnuplot is installed.  The extension must
# be installed ("make install").
#
# Usage: bench/osm_tuning/run.sh [--rows N] [--large]
#            [--sortedness "0:0 5:5 25:25 100:100"] [--fill "90 95 98"]
#            [--split "0.5 0.7 0.9"] [--grid "1 5 10 25 50"]
#            [--port P] [--out DIR] [--workdir DIR] [--keep]
#
#   --rows N        rows per data set (default 1000000)
#   --large         --rows 5000000
set -euo pipefail

# One brace group: bash parses the whole script before running it.
{

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=bench/lib.sh
. "$here/../lib.sh" "$@"

rows=1000000
sortedness="0:0 5:5 25:25 100:100"
fills="90 95 98"
splits="0.5 0.7 0.9"
grid="1 5 10 25 50"
port=56091
out="$repo/docs/benchmarks"
workbase=${TMPDIR:-/tmp}
keep=0

while [ $# -gt 0 ]; do
	case $1 in
	--rows) need_int "$1" "${2-}"; rows=$2; shift 2 ;;
	--large) rows=5000000; shift ;;
	--sortedness) sortedness=${2-}; shift 2 ;;
	--fill) fills=${2-}; shift 2 ;;
	--split) splits=${2-}; shift 2 ;;
	--grid) grid=${2-}; shift 2 ;;
	--port) need_int "$1" "${2-}"; port=$2; shift 2 ;;
	--out) out=${2:?--out needs a directory}; shift 2 ;;
	--workdir) workbase=${2:?--workdir needs a directory}; shift 2 ;;
	--keep) keep=1; shift ;;
	-h | --help) usage 0 ;;
	*) echo "run.sh: unknown option $1" >&2; usage 2 ;;
	esac
done
# the runner changes directory: make --out absolute
mkdir -p "$out"
out=$(cd "$out" && pwd)
for s in $sortedness; do
	if ! [[ $s =~ ^[0-9]+:[0-9]+$ ]]; then
		echo "run.sh: --sortedness takes K:L pairs in percent, got '$s'" >&2
		exit 2
	fi
done

cluster_setup elastic_osm_tuning
results="$work/results.csv"
step "cluster: initdb in $work (rows=$rows, sortedness='$sortedness', fill='$fills', split='$splits')"
cluster_initdb bench/osm_tuning/run.sh <<EOF
shared_preload_libraries = 'elastic_index'
EOF
step "cluster: start on port $port"
cluster_start
pg_version=$(psql_b -c "SELECT split_part(version(), ' on ', 1)")
psql_b <<'EOF'
CREATE EXTENSION elastic_index;
CREATE EXTENSION pgstattuple;
EOF

echo "k,l,kind,fill_factor,split_factor,load_s,leaf_fill,index_bytes,size_vs_btree" >"$results"

# Load the table with an index of USING clause $1, WITH clause $2; print
# "load_s,leaf_fill,index_bytes".
load() {
	psql_b <<EOF
DROP TABLE IF EXISTS t;
CREATE TABLE t (key int8);
$([ "$1" = none ] || echo "CREATE INDEX t_key ON t USING $1 (key) $2;")
CHECKPOINT;
EOF
	local t0 t1 fill
	t0=$(now)
	psql_b -c "INSERT INTO t SELECT key FROM src ORDER BY arrival"
	t1=$(now)
	if [ "$1" = none ]; then
		echo "$(elapsed "$t0" "$t1"),,0"
		return
	elif [ "$1" = btree ]; then
		fill=$(psql_b -c "SELECT round(avg_leaf_density::numeric, 1) FROM pgstatindex('t_key')")
	else
		fill=$(psql_b -c "SELECT round(leaf_fill::numeric, 1) FROM elastic_index_stats('t_key')")
	fi
	echo "$(elapsed "$t0" "$t1"),$fill,$(psql_b -c "SELECT pg_relation_size('t_key')")"
}

for kl in $sortedness; do
	k=${kl%%:*}
	l=${kl##*:}
	step "K=$k% L=$l%: data"
	psql_b <<EOF
DROP TABLE IF EXISTS src;
CREATE TABLE src AS SELECT pos AS arrival, key FROM elastic_index_near_sorted($rows, $k, $l);
VACUUM ANALYZE src;
EOF
	IFS=, read -r bt_s bt_fill bt_bytes < <(load btree "")
	echo "$k,$l,btree,,,$bt_s,$bt_fill,$bt_bytes,1.00" >>"$results"
	step "K=$k% L=$l% btree: load $bt_s s, leaf fill $bt_fill%, $bt_bytes bytes"
	for f in $fills; do
		for sf in $splits; do
			IFS=, read -r s fill bytes < <(load osm_tree "WITH (fillfactor = $f, split_factor = $sf)")
			ratio=$(awk -v a="$bytes" -v b="$bt_bytes" 'BEGIN { printf "%.2f", a / b }')
			echo "$k,$l,osm_tree,$f,$sf,$s,$fill,$bytes,$ratio" >>"$results"
			step "K=$k% L=$l% osm_tree fillfactor=$f split_factor=$sf: load $s s, leaf fill $fill%, size ${ratio}x btree"
		done
	done
done

# the K x L grid: index maintenance time, btree against osm_tree
gridcsv="$work/grid.csv"
echo "k,l,none_s,btree_index_s,osm_index_s,speedup,btree_fill,osm_fill" >"$gridcsv"
for k in $grid; do
	for l in $grid; do
		psql_b <<EOF
DROP TABLE IF EXISTS src;
CREATE TABLE src AS SELECT pos AS arrival, key FROM elastic_index_near_sorted($rows, $k, $l);
VACUUM ANALYZE src;
EOF
		IFS=, read -r none_s _ _ < <(load none "")
		IFS=, read -r bt_s bt_fill _ < <(load btree "")
		IFS=, read -r osm_s osm_fill _ < <(load osm_tree "")
		read -r bt_i osm_i speedup < <(awk -v n="$none_s" -v b="$bt_s" -v o="$osm_s" \
			'BEGIN { bi = b - n; oi = o - n; printf "%.3f %.3f %s\n", bi, oi, (oi > 0 ? sprintf("%.2f", bi / oi) : "-") }')
		echo "$k,$l,$none_s,$bt_i,$osm_i,$speedup,$bt_fill,$osm_fill" >>"$gridcsv"
		step "grid K=$k% L=$l%: index time btree $bt_i s, osm_tree $osm_i s (speedup $speedup); leaf fill $bt_fill% / $osm_fill%"
	done
done

mkdir -p "$out"
cp "$results" "$out/osm-tuning.csv"
cp "$gridcsv" "$out/osm-grid.csv"
# the plots: drawn by plot.sh from the CSV when gnuplot is installed, and
# linked from the report
if command -v gnuplot >/dev/null; then plot=1; else plot=0; fi
{
	echo "# osm_tree: fill factor and split factor"
	echo
	echo "Produced by \`$command_line\` (from the repository root) on $(date -u '+%Y-%m-%d %H:%M UTC')."
	echo
	if [ "$plot" -eq 1 ]; then
		echo "![osm-tuning.png: per sortedness K:L, osm_tree's index size relative to btree's and its load time, by split_factor, one line per fillfactor](osm-tuning.png)"
		echo
		echo "The plots are drawn from osm-tuning.csv and osm-grid.csv of this run by \`bench/osm_tuning/plot.sh\` (run.sh calls it at its end;"
		echo "\`bench/osm_tuning/plot.sh DIR\` redraws them from the CSVs in DIR)."
		echo
	fi
	echo "- $pg_version; repository commit $(git -C "$repo" rev-parse --short HEAD 2>/dev/null || echo unknown); $(nproc) CPUs."
	echo "- Throwaway cluster: shared_buffers = 1GB, **fsync = off**, autovacuum = off, jit = off."
	echo "- $rows int8 keys 1..N in K-L near-sorted arrival order (\`elastic_index_near_sorted\`),"
	echo "  inserted by one \`INSERT ... SELECT ... ORDER BY arrival\` into an empty table with one"
	echo "  index; osm_tree applies them in sorted batches of 100000 (\`osm_tree.batch_size\`)."
	echo "- Load time includes the heap; leaf fill from \`pgstatindex\` (btree) and"
	echo "  \`elastic_index_stats\` (osm_tree); size ratio to btree's index in the same run."
	echo
	echo "| K% | L% | index | fillfactor | split_factor | load s | leaf fill % | size MB | size vs btree |"
	echo "|---:|---:|---|---:|---:|---:|---:|---:|---:|"
	tail -n +2 "$results" | awk -F, '{ printf "| %s | %s | %s | %s | %s | %s | %s | %.1f | %s |\n", $1, $2, $3, $4, $5, $6, $7, $8 / 1048576, $9 }'
	echo
	echo "## K x L grid: index maintenance speedup over btree"
	echo
	echo "Index maintenance time = load time with the index minus load time without,"
	echo "osm_tree with its default settings; each cell is btree's time / osm_tree's time"
	echo "(above 1: osm_tree is faster), then the leaf fill of btree / osm_tree."
	echo
	if [ "$plot" -eq 1 ]; then
		echo "![osm-grid.png: the K x L grid as a heatmap of the speedup, each cell with both index maintenance times and both leaf fills](osm-grid.png)"
		echo
	fi
	awk -F, -v grid="$grid" '
		NR > 1 { s[$1, $2] = $6; f[$1, $2] = $7 "/" $8 }
		END {
			n = split(grid, g, " ")
			printf "| K%% \\ L%% |"
			for (j = 1; j <= n; j++) printf " %s |", g[j]
			printf "\n|---:|"
			for (j = 1; j <= n; j++) printf "---:|"
			printf "\n"
			for (i = 1; i <= n; i++) {
				printf "| %s |", g[i]
				for (j = 1; j <= n; j++) printf " %sx (%s) |", s[g[i], g[j]], f[g[i], g[j]]
				printf "\n"
			}
		}' "$gridcsv"
	echo
	echo "Raw numbers are in osm-tuning.csv and osm-grid.csv."
} >"$out/osm-tuning.md"
step "report: $out/osm-tuning.csv, $out/osm-tuning.md"
if [ "$plot" -eq 1 ]; then
	step "plot: $out/osm-tuning.png, $out/osm-grid.png"
	bash "$here/plot.sh" "$out" "$command_line" >/dev/null ||
		echo "run.sh: bench/osm_tuning/plot.sh failed; the CSV and the report are written" >&2
fi
exit 0
}
