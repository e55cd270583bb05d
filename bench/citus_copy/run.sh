#!/usr/bin/env bash
# bench/citus_copy/run.sh - COPY of near-sorted rows through a Citus
# coordinator into a distributed table: btree against osm_tree.
#
# Three throwaway clusters on this machine: a Citus coordinator and two
# workers (shared_preload_libraries = 'citus, elastic_index'), fsync and
# synchronous_commit on.  --rows int8 keys 1..N in a K=L=5% near-sorted
# arrival order (elastic_index_near_sorted) are written once to CSV files of
# --batch rows.  Each round loads every kind once, in this order, into a
# fresh distributed table (create_distributed_table on the key, --shards
# shards) with one index of that kind on the key: none (no index, the
# baseline), btree, osm_tree.  A load is one psql session on the coordinator
# running "\copy t FROM file" for each file, so each --batch rows are one
# transaction (Citus commits each across the workers with two-phase
# commit); it is timed on the client.  Index maintenance is a kind's COPY
# time minus the no-index COPY time of the same round.  The best (smallest)
# of --rounds rounds counts, reported as a ratio to btree's from the same
# run; the index size is the sum of the shard indexes' sizes on the workers.
#
# Results: docs/benchmarks/citus-copy.csv and citus-copy.md, or --out DIR.
# elastic_index must be installed into the server ("make install" with its
# pg_config); Citus is installed with scripts/build_citus.sh if the server
# lacks it (cached after its first build), and the run stops if that fails;
# its EI_CITUS_ARCHIVE and EI_CITUS_CACHE pass through (from a git worktree
# the default archive, ../shared/citus/ beside the repository, may not exist).
# PG_BINDIR (default Debian's 15) chooses the server.
#
# Usage: bench/citus_copy/run.sh [--rows N] [--small | --large] [--rounds R]
#            [--batch B] [--shards S] [--port P] [--out DIR] [--workdir DIR] [--keep]
#
#   --rows N        rows loaded per table (default 1000000)
#   --small         --rows 100000 --rounds 1 (a quick try; do not commit its
#                   figures)
#   --large         --rows 5000000
#   --rounds R      loads per kind, interleaved; the best counts (default 3)
#   --batch B       rows per COPY transaction (default 100000)
#   --shards S      shards per distributed table (default 32, Citus's default)
#   --port P        port of the coordinator; the workers use P+1 and P+2
#                   (default 56110)
set -euo pipefail

# One brace group: bash parses the whole script before running it.
{

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=bench/lib.sh
. "$here/../lib.sh" "$@"

rows=1000000
rounds=3
batch=100000
shards=32
port=56110
kl=5

while [ $# -gt 0 ]; do
	case $1 in
	--rows) need_int "$1" "${2-}"; rows=$2; shift 2 ;;
	--small) rows=100000; rounds=1; shift ;;
	--large) rows=5000000; shift ;;
	--rounds) need_int "$1" "${2-}"; rounds=$2; shift 2 ;;
	--batch) need_int "$1" "${2-}"; batch=$2; shift 2 ;;
	--shards) need_int "$1" "${2-}"; shards=$2; shift 2 ;;
	*) common_option "$@"; shift "$nshift" ;;
	esac
done
mkdir -p "$out"
out=$(cd "$out" && pwd)

# Citus in the server under test: built (or installed from the cache) when
# missing
pkglibdir=$("$PG_BINDIR/pg_config" --pkglibdir)
if [ ! -f "$pkglibdir/elastic_index.so" ]; then
	echo "run.sh: elastic_index is not installed in $pkglibdir (make install PG_CONFIG=$PG_BINDIR/pg_config)" >&2
	exit 1
fi
if [ ! -f "$pkglibdir/citus.so" ]; then
	step "citus: not in $pkglibdir, scripts/build_citus.sh $PG_BINDIR/pg_config"
	if ! bash "$repo/scripts/build_citus.sh" "$PG_BINDIR/pg_config" || [ ! -f "$pkglibdir/citus.so" ]; then
		echo "run.sh: Citus is not installed in $pkglibdir and scripts/build_citus.sh could not install it" >&2
		exit 1
	fi
fi

cluster_setup citus_copy
results="$work/results.csv"
# shellcheck disable=SC2317 # called by cleanup
on_failure() {
	local f
	for f in "$work"/worker*.log; do
		[ -f "$f" ] || continue
		echo "---- last lines of $f ----" >&2
		tail -n 15 "$f" >&2 || true
	done
	save_partial citus-copy
}

coord_port=$port
worker_ports="$((port + 1)) $((port + 2))"

# The settings of every node, for cluster_initdb (its later lines win).
node_conf() {
	cat <<EOF
shared_preload_libraries = 'citus, elastic_index'
shared_buffers = 256MB
maintenance_work_mem = 256MB
fsync = on
synchronous_commit = on
wal_level = logical
max_replication_slots = 10
max_wal_senders = 10
max_prepared_transactions = 20
max_worker_processes = 20
citus.local_hostname = '$sock'
citus.enable_statistics_collection = off
EOF
	# Debian's 15.20 lists the plugins logical decoding may use; Citus's
	# logical shard moves need its own
	if [ "$plugin_list" -eq 1 ]; then
		echo "output_plugin_libraries = 'pgoutput, test_decoding, citus'"
	fi
}
plugin_list=0
if as_pg "$PG_BINDIR/postgres" --describe-config 2>/dev/null | grep -q '^output_plugin_libraries'; then
	plugin_list=1
fi

# psql on the database "bench" of the node on port $1 (the other arguments
# are psql's).
psql_n() {
	local p=$1
	shift
	as_pg "$PG_BINDIR/psql" -X -q -A -t -v ON_ERROR_STOP=1 \
		-h "$sock" -p "$p" -U "$dbuser" -d bench "$@"
}

step "cluster: coordinator (port $coord_port) and workers (ports ${worker_ports// /, }) in $work (rows=$rows, rounds=$rounds, batch=$batch, shards=$shards)"
coord_data=$data
i=0
for p in $worker_ports; do
	i=$((i + 1))
	data="$work/worker$i"
	port=$p
	extra_data+=("$data")
	cluster_initdb "bench/citus_copy/run.sh worker $i" < <(node_conf)
	as_pg "$PG_BINDIR/pg_ctl" -D "$data" -l "$work/worker$i.log" -w -t 120 start >/dev/null
	as_pg "$PG_BINDIR/psql" -X -q -v ON_ERROR_STOP=1 -h "$sock" -p "$p" \
		-U "$dbuser" -d postgres -c "CREATE DATABASE bench"
	psql_n "$p" -c "CREATE EXTENSION citus"
done
data=$coord_data
port=$coord_port
cluster_initdb "bench/citus_copy/run.sh coordinator" < <(node_conf)
cluster_start
psql_n "$port" -c "CREATE EXTENSION citus" \
	-c "SELECT citus_set_coordinator_host('$sock', $port)" >/dev/null
for p in $worker_ports; do
	psql_n "$port" -c "SELECT citus_add_node('$sock', $p)" >/dev/null
done
# created on the workers too, now that they are registered
psql_n "$port" -c "CREATE EXTENSION elastic_index"
nworkers=$(psql_n "$port" -c "SELECT count(*) FROM pg_dist_node WHERE isactive AND shouldhaveshards AND groupid > 0")
if [ "$nworkers" != 2 ]; then
	echo "run.sh: $nworkers active workers registered, expected 2" >&2
	exit 1
fi
pg_version=$(psql_n "$port" -c "SELECT split_part(version(), ' on ', 1)")
ext_version=$(psql_n "$port" -c "SELECT extversion FROM pg_extension WHERE extname = 'elastic_index'")
citus_version=$(psql_n "$port" -c "SELECT split_part(citus_version(), ' on ', 1)")

step "data: $rows keys, K=L=$kl%, in CSV files of $batch rows"
mkdir -p "$work/chunks"
[ "$(id -u)" -ne 0 ] || chown postgres: "$work/chunks"
psql_n "$port" -c "CREATE TABLE src AS SELECT pos, key FROM elastic_index_near_sorted($rows, $kl, $kl)" \
	-c "CREATE INDEX ON src (pos)"
nchunks=$(((rows + batch - 1) / batch))
script="$work/copy.sql"
: >"$script"
for ((c = 0; c < nchunks; c++)); do
	psql_n "$port" -c "COPY (SELECT key FROM src WHERE pos > $((c * batch)) AND pos <= $(((c + 1) * batch)) ORDER BY pos) TO '$work/chunks/$c.csv' (FORMAT csv)"
	echo "\\copy t FROM '$work/chunks/$c.csv' (FORMAT csv)" >>"$script"
done
psql_n "$port" -c "DROP TABLE src"
[ "$(id -u)" -ne 0 ] || chown postgres: "$script"

# The COPY script for table $1.
copy_script() {
	sed "s/^\\\\copy t /\\\\copy $1 /" "$script" >"$work/copy_$1.sql"
	[ "$(id -u)" -ne 0 ] || chown postgres: "$work/copy_$1.sql"
	echo "$work/copy_$1.sql"
}

# CHECKPOINT on every node, so that no load pays for the previous one's
# dirty pages.
checkpoint_all() {
	local p
	for p in $coord_port $worker_ports; do
		psql_n "$p" -c "CHECKPOINT"
	done
}

kinds="none btree osm_tree"
echo "kind,round,copy_s,index_s,index_bytes,rows" >"$results"
declare -A best_copy=() best_index=() size=()
for ((round = 1; round <= rounds; round++)); do
	for kind in $kinds; do
		t="t_$kind"
		psql_n "$port" -c "DROP TABLE IF EXISTS $t" \
			-c "CREATE TABLE $t (k int8) WITH (autovacuum_enabled = off)"
		[ "$kind" = none ] || psql_n "$port" -c "CREATE INDEX ${t}_k ON $t USING $kind (k)"
		psql_n "$port" -c "SELECT create_distributed_table('$t', 'k', shard_count => $shards)" >/dev/null
		f=$(copy_script "$t")
		checkpoint_all
		t0=$(now)
		psql_n "$port" -f "$f"
		t1=$(now)
		secs=$(elapsed "$t0" "$t1")
		n=$(psql_n "$port" -c "SELECT count(*) FROM $t")
		if [ "$n" != "$rows" ]; then
			echo "run.sh: $t holds $n rows after the COPY, expected $rows" >&2
			exit 1
		fi
		if [ "$kind" = none ]; then
			none_s=$secs
			index_s="" bytes=""
		else
			index_s=$(awk -v a="$secs" -v b="$none_s" 'BEGIN { printf "%.3f", a - b }')
			bytes=$(psql_n "$port" -c "SELECT sum(result::int8) FROM run_command_on_shards('$t', \$cmd\$SELECT pg_indexes_size('%s')\$cmd\$)")
			best_index[$kind]=$(fastest "${best_index[$kind]-}" "$index_s")
			size[$kind]=$bytes
		fi
		best_copy[$kind]=$(fastest "${best_copy[$kind]-}" "$secs")
		echo "$kind,$round,$secs,$index_s,$bytes,$rows" >>"$results"
		step "round $round/$rounds $kind: COPY ${secs} s${index_s:+, index ${index_s} s}${bytes:+, index $((bytes / 1024)) kB}"
		psql_n "$port" -c "DROP TABLE $t"
	done
done

# ---------------------------------------------------------------------------
# Report
# ---------------------------------------------------------------------------

step "report: $out/citus-copy.csv, $out/citus-copy.md"
cp "$results" "$out/citus-copy.csv"
commit=$(repo_commit "$repo")
{
	echo "# COPY through a Citus coordinator into a distributed table"
	echo
	echo "Produced by \`$command_line\` (from the repository root) on $(date -u '+%Y-%m-%d %H:%M UTC')."
	echo
	echo "- $pg_version; $citus_version; elastic_index $ext_version; repository commit $commit; $(nproc) CPUs."
	echo "- Three throwaway clusters on this machine, a coordinator and two workers: shared_buffers = 256MB each, fsync = on, synchronous_commit = on, wal_level = logical, autovacuum = off, jit = off."
	echo "- $rows int8 keys 1..N in a K=L=$kl% near-sorted arrival order (\`elastic_index_near_sorted\`), loaded with \`\\copy\` on the coordinator into a table distributed on the key over $shards shards, in transactions of $batch rows ($nchunks), timed on the client; one index on the key per kind (none: no index). Kinds interleaved, a fresh table per load, best of $rounds rounds."
	echo "- Index maintenance = the kind's COPY time minus the no-index COPY time of the same round (best round); index size = the sum of the shard indexes on the workers."
	echo
	echo "| kind | COPY s | ratio | index maintenance s | ratio | index size MB |"
	echo "|---|---:|---:|---:|---:|---:|"
	awk -v c="${best_copy[none]}" 'BEGIN { printf "| none | %.3f | | | | |\n", c }'
	for kind in btree osm_tree; do
		awk -v k="$kind" -v c="${best_copy[$kind]}" -v cb="${best_copy[btree]}" \
			-v i="${best_index[$kind]}" -v ib="${best_index[btree]}" -v s="${size[$kind]}" \
			'BEGIN { printf "| %s | %.3f | %.2f | %.3f | %s | %.1f |\n", k, c, c / cb, i, (ib > 0 && i > 0 ? sprintf("%.2f", i / ib) : "n/a"), s / 1048576 }'
	done
	echo
	echo "Ratios are kind / btree from the same run (below 1 is faster); a maintenance ratio is n/a when either"
	echo "maintenance time is not above zero (at sizes where it is within the noise of the rounds). Raw numbers"
	echo "are in citus-copy.csv."
} >"$out/citus-copy.md"
cat "$out/citus-copy.md"

step "done in $((($(date +%s) - start_epoch) / 60)) min $((($(date +%s) - start_epoch) % 60)) s"
exit 0
}
