#!/usr/bin/env bash
# bench/single_row/run.sh - what one single-row INSERT costs the index,
# without the cost of a transaction per row around it.
#
# bench/near_sorted/run.sh loads single rows the way applications do, one
# transaction each from several clients; there a transaction costs about
# ten times what the index does, and index maintenance drowns in the noise.
# Here one server-side loop inserts the same rows one INSERT statement at a
# time, in arrival order, in one transaction: into a table without an
# index, with btree, with elastic_btree, with osm_tree (batch_size = 1, so
# that every row takes the path a one-row transaction takes: direct inserts
# through the predicted leaf, osm_tree.top_inserts on) and with osm_tree
# through its insert buffer (top_inserts off, the OSM paper's design).
# Index time = load time with the index minus without; best of --repeat.
#
# Results: docs/benchmarks/single-row.csv and single-row.md, or --out DIR.
# The extension must be installed.
#
# Usage: bench/single_row/run.sh [--rows N] [--large] [--sortedness "0:0 5:5 25:25 100:100"]
#            [--repeat R] [--port P] [--out DIR] [--workdir DIR] [--keep]
#
#   --rows N        rows per load (default 1000000: about 4 minutes; at
#                   200000 the index's share of a load is small enough
#                   that the machine's noise moves ratios by 5%)
#   --large         --rows 5000000
#   --sortedness    K:L pairs in percent (elastic_index_near_sorted); 100:100
#                   is scrambled
#   --repeat R      loads per index kind; the fastest counts (default 3)
#   --port P        port of the throwaway cluster (default 56095)
set -euo pipefail

# One brace group: bash parses the whole script before running it.
{

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=bench/lib.sh
. "$here/../lib.sh" "$@"

rows=1000000
sortedness="0:0 5:5 25:25 100:100"
repeat=3
port=56095

while [ $# -gt 0 ]; do
	case $1 in
	--rows) need_int "$1" "${2-}"; rows=$2; shift 2 ;;
	--large) rows=5000000; shift ;;
	--sortedness) sortedness=${2:?--sortedness needs K:L pairs}; shift 2 ;;
	--repeat) need_int "$1" "${2-}"; repeat=$2; shift 2 ;;
	*) common_option "$@"; shift "$nshift" ;;
	esac
done
mkdir -p "$out"
out=$(cd "$out" && pwd)

cluster_setup single_row
results="$work/results.csv"
# shellcheck disable=SC2317 # called by cleanup
on_failure() { save_partial single-row; }

step "cluster: initdb in $work (rows=$rows, sortedness='$sortedness', repeat=$repeat)"
echo "shared_preload_libraries = 'elastic_index'" | cluster_initdb bench/single_row/run.sh
step "cluster: start on port $port"
cluster_start
psql_b -c "CREATE EXTENSION elastic_index" -c "CREATE EXTENSION pgstattuple"
pg_version=$(psql_b -c "SELECT split_part(version(), ' on ', 1)")
ext_version=$(psql_b -c "SELECT extversion FROM pg_extension WHERE extname = 'elastic_index'")

# The load: one INSERT statement per row, in arrival order; returns seconds.
psql_b <<'SQL'
CREATE FUNCTION sr_load() RETURNS float8 LANGUAGE plpgsql AS $fn$
DECLARE
	t0			timestamptz := clock_timestamp();
	r			record;
BEGIN
	FOR r IN SELECT key FROM src ORDER BY pos LOOP
		INSERT INTO t VALUES (r.key);
	END LOOP;
	RETURN extract(epoch FROM clock_timestamp() - t0);
END
$fn$;
SQL

# Create table t with the index of kind $1.
make_table() {
	psql_b -c "DROP TABLE IF EXISTS t" \
		-c "CREATE TABLE t (k int8) WITH (autovacuum_enabled = off)"
	case $1 in
	btree) psql_b -c "CREATE INDEX t_k ON t USING btree (k)" ;;
	elastic) psql_b -c "CREATE INDEX t_k ON t USING elastic_btree (k)" ;;
	osm | osm_buffer) psql_b -c "CREATE INDEX t_k ON t USING osm_tree (k) WITH (batch_size = 1)" ;;
	esac
}

# Leaf fill of t_k for kind $1.
leaf_fill() {
	case $1 in
	none) echo "" ;;
	btree) psql_b -c "SELECT round(avg_leaf_density::numeric, 1) FROM pgstatindex('t_k')" ;;
	*) psql_b -c "SELECT round(leaf_fill::numeric, 1) FROM elastic_index_stats('t_k')" ;;
	esac
}

echo "k,l,kind,load_s,index_bytes,leaf_fill" >"$results"
kinds="none btree elastic osm osm_buffer"
for kl in $sortedness; do
	k=${kl%%:*}
	l=${kl##*:}
	step "K=$k% L=$l%: data"
	psql_b -c "DROP TABLE IF EXISTS src" \
		-c "CREATE TABLE src AS SELECT pos, key FROM elastic_index_near_sorted($rows, $k, $l) ORDER BY pos"
	# --repeat rounds, each loading every kind once: a slow spell of the
	# machine then costs every kind a load, not one kind all of its loads
	declare -A best=() size=() fill=()
	for ((r = 1; r <= repeat; r++)); do
		for kind in $kinds; do
			make_table "$kind"
			psql_b -c "CHECKPOINT"
			if [ "$kind" = osm_buffer ]; then
				s=$(psql_b -c "SET osm_tree.top_inserts = off" -c "SELECT sr_load()")
			else
				s=$(psql_b -c "SELECT sr_load()")
			fi
			best[$kind]=$(fastest "${best[$kind]-}" "$s")
			# the same rows in the same order: every load leaves the same index
			size[$kind]=""
			[ "$kind" = none ] || size[$kind]=$(psql_b -c "SELECT pg_relation_size('t_k')")
			fill[$kind]=$(leaf_fill "$kind")
		done
	done
	for kind in $kinds; do
		echo "$k,$l,$kind,${best[$kind]},${size[$kind]},${fill[$kind]}" >>"$results"
		step "K=$k% L=$l% $kind: load $(printf '%.3f' "${best[$kind]}") s, index ${size[$kind]} bytes"
	done
	unset best size fill
done

# ---------------------------------------------------------------------------
# Report
# ---------------------------------------------------------------------------

step "report: $out/single-row.csv, $out/single-row.md"
cp "$results" "$out/single-row.csv"
commit=$(repo_commit "$repo")
awk -F, -v cmd="$command_line" -v date="$(date -u '+%Y-%m-%d %H:%M UTC')" \
	-v nproc="$(nproc)" -v pgver="$pg_version" -v extver="$ext_version" \
	-v commit="$commit" -v rows="$rows" -v repeat="$repeat" '
NR == 1 { next }
{
	key = $1 ":" $2
	if (!(key in seen)) { seen[key] = 1; order[++n] = key }
	load[key, $3] = $4; bytes[key, $3] = $5; fill[key, $3] = $6
}
function us(kind, key) { return (load[key, kind] - load[key, "none"]) * 1e6 / rows }
function cell(kind, key,   b) {
	b = us("btree", key)
	return sprintf("%.2f (%s)", us(kind, key), b > 0 ? sprintf("%.2f", us(kind, key) / b) : "-")
}
END {
	print "# Index maintenance per single-row INSERT"
	print ""
	printf "Produced by `%s` (from the repository root) on %s.\n\n", cmd, date
	printf "- %s; elastic_index %s; repository commit %s; %s CPUs.\n", pgver, extver, commit, nproc
	print "- Throwaway cluster: shared_buffers = 1GB, **fsync = off**, autovacuum = off, jit = off."
	printf "- %d int8 keys 1..N in near-sorted arrival order (`elastic_index_near_sorted(N, K, L)`), inserted by one server-side loop, one INSERT statement per row, in one transaction, into a table without an index and with each index; the fastest of %d loads counts (%d rounds, each loading every kind once). Index time per row = (load with the index - load without) / N.\n", rows, repeat, repeat
	print "- osm_tree has `batch_size = 1`, so every row takes the path of a one-row transaction: **direct** = `osm_tree.top_inserts` on (the default: through the predicted leaf, else by a descent), **buffer** = off (every row to the insert buffer, flushed in the foreground when full and by the background worker)."
	print ""
	print "| K% | L% | no index s | btree us/row | elastic_btree us/row (ratio) | osm_tree direct us/row (ratio) | osm_tree buffer us/row (ratio) | leaf fill % (btree / elastic / osm direct / osm buffer) | size ratio osm direct / btree |"
	print "|---:|---:|---:|---:|---|---|---|---|---:|"
	for (i = 1; i <= n; i++) {
		key = order[i]
		split(key, kl, ":")
		printf "| %s | %s | %.3f | %.2f | %s | %s | %s | %s / %s / %s / %s | %.2f |\n",
			kl[1], kl[2], load[key, "none"], us("btree", key),
			cell("elastic", key), cell("osm", key), cell("osm_buffer", key),
			fill[key, "btree"], fill[key, "elastic"], fill[key, "osm"], fill[key, "osm_buffer"],
			bytes[key, "osm"] / bytes[key, "btree"]
	}
	print ""
	print "Ratios are kind / btree from the same run (below 1 is cheaper). Raw numbers are in single-row.csv."
}' "$results" >"$out/single-row.md"

step "done in $((($(date +%s) - start_epoch) / 60)) min $((($(date +%s) - start_epoch) % 60)) s"
exit 0
}
