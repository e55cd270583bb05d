#!/usr/bin/env bash
# bench/many_streams/run.sh - many sorted streams: an index on
# (device_id, ts) with many devices, each appending in ts order, the rows
# interleaved across devices (row g is device g mod D at second g div D),
# loaded by COPY in transactions of --batch rows, durably (fsync on,
# synchronous_commit on).
#
# For each device count, the same rows are loaded into a table without an
# index, with btree, and with each kind in --kinds, in --repeat rounds that
# each load every kind once (a slow spell of the machine then costs every
# kind a load, not one kind all of its loads); the fastest load of a kind
# counts.  Reported per kind: index maintenance time (COPY time with the
# index minus COPY time without), its ratio to btree's from the same run,
# index size and its ratio to btree's, and leaf fill.  src/README.md,
# "Many sorted streams", says what the split rules do and what to expect.
#
# Results: docs/benchmarks/many-streams.csv and many-streams.md, and
# many-streams.png drawn by bench/many_streams/plot.sh when gnuplot is
# installed; or --out DIR.  The extension must be installed ("make
# install").
#
# Usage: bench/many_streams/run.sh [--rows N] [--small | --large]
#            [--devices "1000 10000"] [--batch B] [--repeat R]
#            [--kinds "osm osm_redist elastic"] [--port P] [--out DIR] [--workdir DIR] [--keep]
#
#   --rows N        rows per load (default 2000000)
#   --small         --rows 200000 --repeat 1 (a quick try; do not commit its
#                   figures as results)
#   --large         --rows 10000000
#   --devices       device counts, one data set each (default "1000 10000")
#   --batch B       rows per COPY transaction (default 100000)
#   --repeat R      rounds; the fastest load of each kind counts (default 3)
#   --kinds         index kinds besides btree: osm (osm_tree), osm_redist
#                   (osm_tree WITH (redistribute_leaves = on)), elastic
#                   (elastic_btree, one entry at a time); default
#                   "osm osm_redist elastic"
#   --port P        port of the throwaway cluster (default 56097)
set -euo pipefail

# One brace group: bash parses the whole script before running it.
{

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=bench/lib.sh
. "$here/../lib.sh" "$@"

rows=2000000
devices="1000 10000"
batch=100000
repeat=3
kinds="osm osm_redist elastic"
port=56097

while [ $# -gt 0 ]; do
	case $1 in
	--rows) need_int "$1" "${2-}"; rows=$2; shift 2 ;;
	--small) rows=200000; repeat=1; shift ;;
	--large) rows=10000000; shift ;;
	--devices) devices=${2:?--devices needs device counts}; shift 2 ;;
	--batch) need_int "$1" "${2-}"; batch=$2; shift 2 ;;
	--repeat) need_int "$1" "${2-}"; repeat=$2; shift 2 ;;
	--kinds) kinds=${2-}; shift 2 ;;
	*) common_option "$@"; shift "$nshift" ;;
	esac
done
for d in $devices; do
	need_int --devices "$d"
done
for kd in $kinds; do
	case $kd in
	osm | osm_redist | elastic) ;;
	*) echo "run.sh: unknown index kind '$kd' (osm, osm_redist, elastic)" >&2; exit 2 ;;
	esac
done
mkdir -p "$out"
out=$(cd "$out" && pwd)

cluster_setup many_streams
results="$work/results.csv"
# shellcheck disable=SC2317 # called by cleanup
on_failure() { save_partial many-streams; }
mkdir -p "$work/chunks"
[ "$(id -u)" -ne 0 ] || chown -R postgres: "$work/chunks"

step "cluster: initdb in $work (rows=$rows, devices='$devices', batch=$batch, repeat=$repeat, kinds='$kinds')"
cluster_initdb bench/many_streams/run.sh <<EOF
shared_preload_libraries = 'elastic_index'
fsync = on
synchronous_commit = on
EOF
step "cluster: start on port $port"
cluster_start
psql_b -c "CREATE EXTENSION elastic_index" -c "CREATE EXTENSION pgstattuple"
pg_version=$(psql_b -c "SELECT split_part(version(), ' on ', 1)")
ext_version=$(psql_b -c "SELECT extversion FROM pg_extension WHERE extname = 'elastic_index'")

# The USING clause of index kind $1.
am_of() {
	case $1 in
	btree) echo btree ;;
	osm | osm_redist) echo osm_tree ;;
	elastic) echo elastic_btree ;;
	esac
}

# The WITH clause of index kind $1.
with_of() {
	case $1 in
	osm_redist) echo "WITH (redistribute_leaves = on)" ;;
	*) echo "" ;;
	esac
}

# Leaf fill in percent of index t_i of kind $1.
leaf_fill() {
	case $1 in
	none) echo "" ;;
	btree) psql_b -c "SELECT round(avg_leaf_density::numeric, 1) FROM pgstatindex('t_i')" ;;
	*) psql_b -c "SELECT round(leaf_fill::numeric, 1) FROM elastic_index_stats('t_i')" ;;
	esac
}

echo "devices,kind,copy_s,index_bytes,leaf_fill" >"$results"
all_kinds="none btree $kinds"
nchunks=$(((rows + batch - 1) / batch))
for d in $devices; do
	step "$d devices: data ($nchunks chunks of $batch rows)"
	rm -f "$work"/chunks/*
	for ((c = 0; c < nchunks; c++)); do
		lo=$((c * batch))
		hi=$(((c + 1) * batch < rows ? (c + 1) * batch : rows))
		psql_b -c "COPY (SELECT g % $d, timestamp '2024-01-01' + (g / $d) * interval '1 second' FROM generate_series($lo, $((hi - 1))) AS g) TO '$work/chunks/$c.csv'"
	done

	declare -A best=() size=() fill=()
	for ((r = 1; r <= repeat; r++)); do
		for kind in $all_kinds; do
			psql_b -c "DROP TABLE IF EXISTS t" \
				-c "CREATE TABLE t (device_id int4, ts timestamp) WITH (autovacuum_enabled = off)"
			[ "$kind" = none ] ||
				psql_b -c "CREATE INDEX t_i ON t USING $(am_of "$kind") (device_id, ts) $(with_of "$kind")"
			psql_b -c "CHECKPOINT"
			t0=$(now)
			for ((c = 0; c < nchunks; c++)); do
				psql_b -c "COPY t FROM '$work/chunks/$c.csv'"
			done
			t1=$(now)
			best[$kind]=$(fastest "${best[$kind]-}" "$(elapsed "$t0" "$t1")")
			# the same rows in the same order: every load leaves the same index
			size[$kind]=""
			[ "$kind" = none ] || size[$kind]=$(psql_b -c "SELECT pg_relation_size('t_i')")
			fill[$kind]=$(leaf_fill "$kind")
			step "$d devices, round $r, $kind: COPY $(elapsed "$t0" "$t1") s"
		done
	done
	for kind in $all_kinds; do
		echo "$d,$kind,${best[$kind]},${size[$kind]},${fill[$kind]}" >>"$results"
		step "$d devices $kind: COPY ${best[$kind]} s, index ${size[$kind]} bytes, leaf fill ${fill[$kind]}%"
	done
	unset best size fill
done

# ---------------------------------------------------------------------------
# Report
# ---------------------------------------------------------------------------

step "report: $out/many-streams.csv, $out/many-streams.md"
cp "$results" "$out/many-streams.csv"
if command -v gnuplot >/dev/null; then plot=1; else plot=0; fi
commit=$(repo_commit "$repo")
awk -F, -v cmd="$command_line" -v date="$(date -u '+%Y-%m-%d %H:%M UTC')" \
	-v nproc="$(nproc)" -v pgver="$pg_version" -v extver="$ext_version" \
	-v commit="$commit" -v rows="$rows" -v batch="$batch" -v repeat="$repeat" \
	-v kinds="$kinds" -v plot="$plot" '
NR == 1 { next }
{
	if (!($1 in seen)) { seen[$1] = 1; order[++n] = $1 }
	copy[$1, $2] = $3; bytes[$1, $2] = $4; fill[$1, $2] = $5
}
function maint(d, kind) { return copy[d, kind] - copy[d, "none"] }
END {
	print "# Many sorted streams: (device_id, ts), devices interleaved"
	print ""
	printf "Produced by `%s` (from the repository root) on %s.\n\n", cmd, date
	printf "- %s; elastic_index %s; repository commit %s; %s CPUs.\n", pgver, extver, commit, nproc
	print "- Throwaway cluster: shared_buffers = 1GB, **fsync = on, synchronous_commit = on**, autovacuum = off, jit = off."
	printf "- %d rows `(device_id int4, ts timestamp)`: row g is device g mod D at second g div D, so every device appends in ts order and consecutive rows belong to different devices. COPY in transactions of %d rows, into a table without an index and with each index; %d rounds, each loading every kind once; the fastest load of each kind counts.\n", rows, batch, repeat
	print "- Index maintenance = COPY time with the index - COPY time without. Ratios are kind / btree from the same run (below 1 is cheaper or smaller)."
	print ""
	if (plot) { print "![index maintenance / btree, index size and leaf fill per kind and device count](many-streams.png)"; print "" }
	print "| devices | kind | COPY s | maintenance s | maintenance / btree | index MB | size / btree | leaf fill % |"
	print "|---:|---|---:|---:|---:|---:|---:|---:|"
	nk = split("btree " kinds, kl, " ")
	for (i = 1; i <= n; i++) {
		d = order[i]
		printf "| %s | no index | %.3f | | | | | |\n", d, copy[d, "none"]
		for (j = 1; j <= nk; j++) {
			k = kl[j]
			b = maint(d, "btree")
			name = k
			if (k == "osm") name = "osm_tree"
			if (k == "osm_redist") name = "osm_tree, redistribute_leaves"
			if (k == "elastic") name = "elastic_btree"
			ratio = "-"
			if (b > 0) ratio = sprintf("%.2f", maint(d, k) / b)
			printf "| %s | %s | %.3f | %.3f | %s | %.1f | %.3f | %s |\n", d, name,
				copy[d, k], maint(d, k), ratio,
				bytes[d, k] / 1048576, bytes[d, k] / bytes[d, "btree"], fill[d, k]
		}
	}
	print ""
	print "Raw numbers are in many-streams.csv."
}' "$results" >"$out/many-streams.md"
if [ "$plot" -eq 1 ]; then
	step "plot: $out/many-streams.png"
	bash "$here/plot.sh" "$out" "$command_line" >/dev/null ||
		echo "run.sh: bench/many_streams/plot.sh failed; the CSV and the report are written" >&2
fi

step "done in $((($(date +%s) - start_epoch) / 60)) min $((($(date +%s) - start_epoch) % 60)) s"
exit 0
}
