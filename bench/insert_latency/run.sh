#!/usr/bin/env bash
# bench/insert_latency/run.sh - the latency of single-row INSERTs from
# several clients, durably (fsync on, synchronous_commit on): btree against
# osm_tree with its insert buffer in use, p50 / p99 / p99.9 / max.
#
# Issue 24's target: with the insert buffer on, an insert's p99.9 latency at
# most 2x btree's.  For each key order (--sortedness K:L, the arrival order
# of elastic_index_near_sorted), --rows rows are inserted one per
# transaction by pgbench (--clients clients, --jobs threads; each
# transaction takes the next row of the arrival order from a sequence) into
# a fresh table with one index on the key, of each kind:
#
#   btree         PostgreSQL's btree, the reference;
#   osm           osm_tree with the defaults (osm_tree.top_inserts on: single
#                 rows go straight into the tree, the buffer stays empty);
#   osm_buffer    osm_tree with osm_tree.top_inserts = off: every row goes
#                 to the insert buffer (buffer_size 32 pages, the default),
#                 which fills, and is flushed by the background worker and
#                 by the insert that finds it full (a foreground flush of
#                 buffer_size x flush_fraction pages);
#   osm_noworker  as osm_buffer with osm_tree.flush_worker = off: every flush
#                 is a foreground flush inside some client's INSERT;
#   elastic       elastic_btree.
#
# Every transaction's latency comes from pgbench's log (-l); per load the
# runner records tps, p50, p99, p99.9 and max, and for osm_tree the insert
# buffer's work from elastic_index_stat_activity (entries buffered, flush
# steps, foreground flushes) and what the load left in the buffer.  --repeat
# rounds each load every kind once (a slow spell of the machine then costs
# every kind a load, not one kind all of its loads); per kind the best value
# of each figure over the rounds counts, as a ratio to btree's from the same
# run.
#
# Results: docs/benchmarks/insert-latency.csv (one row per load) and
# insert-latency.md, and insert-latency.png drawn by
# bench/insert_latency/plot.sh when gnuplot is installed; or --out DIR.  The
# extension must be installed ("make install"); PG_BINDIR (default Debian's
# 15) chooses the server.
#
# Usage: bench/insert_latency/run.sh [--rows N] [--small | --large]
#            [--sortedness "5:5 100:100"] [--clients C] [--jobs J]
#            [--kinds "osm osm_buffer osm_noworker elastic"] [--repeat R]
#            [--port P] [--out DIR] [--workdir DIR] [--keep]
#
#   --rows N        single-row transactions per load (default 200000: the
#                   buffer holds about 12000 int8 entries and a flush moves
#                   half of them, so a load flushes about 30 times)
#   --small         --rows 60000 --repeat 1 (a quick try; do not commit its
#                   figures as results)
#   --large         --rows 1000000
#   --sortedness    K:L pairs in percent (default "5:5 100:100": near-sorted
#                   and scattered keys)
#   --clients C     pgbench clients (default 8)
#   --jobs J        pgbench threads (default 2)
#   --kinds         index kinds besides btree: osm, osm_buffer, osm_noworker,
#                   elastic (default all four)
#   --repeat R      rounds (default 3)
#   --port P        port of the throwaway cluster (default 56130)
set -euo pipefail

# One brace group: bash parses the whole script before running it.
{

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=bench/lib.sh
. "$here/../lib.sh" "$@"

rows=200000
sortedness="5:5 100:100"
clients=8
jobs=2
kinds="osm osm_buffer osm_noworker elastic"
repeat=3
port=56130

while [ $# -gt 0 ]; do
	case $1 in
	--rows) need_int "$1" "${2-}"; rows=$2; shift 2 ;;
	--small) rows=60000; repeat=1; shift ;;
	--large) rows=1000000; shift ;;
	--sortedness) sortedness=${2:?--sortedness needs K:L pairs}; shift 2 ;;
	--clients) need_int "$1" "${2-}"; clients=$2; shift 2 ;;
	--jobs) need_int "$1" "${2-}"; jobs=$2; shift 2 ;;
	--kinds) kinds=${2-}; shift 2 ;;
	--repeat) need_int "$1" "${2-}"; repeat=$2; shift 2 ;;
	*) common_option "$@"; shift "$nshift" ;;
	esac
done
for s in $sortedness; do
	if ! [[ $s =~ ^[0-9]+:[0-9]+$ ]]; then
		echo "run.sh: --sortedness takes K:L pairs in percent, got '$s'" >&2
		exit 2
	fi
done
for kd in $kinds; do
	case $kd in
	osm | osm_buffer | osm_noworker | elastic) ;;
	*) echo "run.sh: unknown index kind '$kd' (osm, osm_buffer, osm_noworker, elastic)" >&2; exit 2 ;;
	esac
done
if [ "$jobs" -gt "$clients" ]; then
	echo "run.sh: --jobs $jobs is more than --clients $clients" >&2
	exit 2
fi
mkdir -p "$out"
out=$(cd "$out" && pwd)

cluster_setup insert_latency
results="$work/results.csv"
# shellcheck disable=SC2317 # called by cleanup
on_failure() { save_partial insert-latency; }

step "cluster: initdb in $work (rows=$rows, sortedness='$sortedness', clients=$clients, jobs=$jobs, kinds='$kinds', repeat=$repeat)"
cluster_initdb bench/insert_latency/run.sh <<EOF
shared_preload_libraries = 'elastic_index'
max_connections = $((clients + 20))
fsync = on
synchronous_commit = on
EOF
step "cluster: start on port $port"
cluster_start
psql_b -c "CREATE EXTENSION elastic_index" -c "CREATE EXTENSION pgstattuple"
pg_version=$(psql_b -c "SELECT split_part(version(), ' on ', 1)")
ext_version=$(psql_b -c "SELECT extversion FROM pg_extension WHERE extname = 'elastic_index'")
buffer_size=$(psql_b -c "SELECT setting FROM pg_settings WHERE name = 'osm_tree.buffer_size'")
flush_fraction=$(psql_b -c "SHOW osm_tree.flush_fraction")

# The pgbench script: one row per transaction, the rows taken in arrival
# order by every client from one sequence.
cat >"$work/insert.sql" <<'EOF'
INSERT INTO t SELECT key FROM src WHERE arrival = (SELECT nextval('arrival_seq'));
EOF
[ "$(id -u)" -ne 0 ] || chown postgres: "$work/insert.sql"

# Milliseconds osm_tree_flush takes to move everything in the insert buffer
# of index $1 into the tree: what a foreground flush costs the INSERT that
# runs it, per page.
psql_b <<'SQL'
CREATE FUNCTION il_flush_ms(idx regclass) RETURNS float8 LANGUAGE plpgsql AS $fn$
DECLARE
	t0			timestamptz := clock_timestamp();
BEGIN
	PERFORM osm_tree_flush(idx);
	RETURN round(1000 * extract(epoch FROM clock_timestamp() - t0), 3);
END
$fn$;
SQL

# The USING clause of index kind $1.
am_of() {
	case $1 in
	btree) echo btree ;;
	osm | osm_buffer | osm_noworker) echo osm_tree ;;
	elastic) echo elastic_btree ;;
	esac
}

# The settings of the pgbench sessions of index kind $1 (PGOPTIONS).
options_of() {
	case $1 in
	osm_buffer) echo "-c osm_tree.top_inserts=off" ;;
	osm_noworker) echo "-c osm_tree.top_inserts=off -c osm_tree.flush_worker=off" ;;
	*) echo "" ;;
	esac
}

# Leaf fill in percent of index t_k of kind $1.
leaf_fill() {
	case $1 in
	btree) psql_b -c "SELECT round(avg_leaf_density::numeric, 1) FROM pgstatindex('t_k')" ;;
	*) psql_b -c "SELECT round(leaf_fill::numeric, 1) FROM elastic_index_stats('t_k')" ;;
	esac
}

echo "k,l,kind,round,tps,p50_ms,p99_ms,p999_ms,max_ms,buffer_inserts,flush_steps,foreground_flushes,flushed_entries,buffer_pages_left,flush_ms,index_bytes,leaf_fill" >"$results"
all_kinds="btree $kinds"
per_client=$((rows / clients))
total=$((per_client * clients))
for kl in $sortedness; do
	k=${kl%%:*}
	l=${kl##*:}
	step "K=$k% L=$l%: data ($total rows)"
	psql_b -c "DROP TABLE IF EXISTS src" \
		-c "CREATE TABLE src AS SELECT pos AS arrival, key FROM elastic_index_near_sorted($total, $k, $l)" \
		-c "CREATE INDEX ON src (arrival)" -c "VACUUM ANALYZE src"
	for ((r = 1; r <= repeat; r++)); do
		for kind in $all_kinds; do
			psql_b <<EOF
DROP TABLE IF EXISTS t;
CREATE TABLE t (key int8) WITH (autovacuum_enabled = off);
CREATE INDEX t_k ON t USING $(am_of "$kind") (key);
DROP SEQUENCE IF EXISTS arrival_seq;
CREATE SEQUENCE arrival_seq;
CHECKPOINT;
EOF
			rm -f "$work"/pgbench_log.*
			opts=$(options_of "$kind")
			tps=$(as_pg env PGOPTIONS="$opts" "$PG_BINDIR/pgbench" -n \
				-h "$sock" -p "$port" -U "$dbuser" -c "$clients" -j "$jobs" -t "$per_client" \
				-l --log-prefix="$work/pgbench_log" -f "$work/insert.sql" bench |
				awk '/^tps/ { printf "%.1f", $3; exit }')
			n=$(psql_b -c "SELECT count(*) FROM t")
			if [ "$n" != "$total" ]; then
				echo "run.sh: t holds $n rows after the load, expected $total" >&2
				exit 1
			fi
			# per-transaction latency (microseconds) is the log's third field
			read -r p50 p99 p999 pmax < <(cat "$work"/pgbench_log.* | awk '{ print $3 }' | sort -n |
				awk '{ v[NR] = $1 }
					function at(q,   i) { i = int(NR * q + 0.999999); if (i < 1) i = 1; return v[i] / 1000 }
					END { printf "%.3f %.3f %.3f %.3f\n", at(0.5), at(0.99), at(0.999), v[NR] / 1000 }')
			binserts="" steps="" fg="" flushed="" left="" flush_ms=""
			case $kind in
			osm*)
				IFS=, read -r binserts steps fg flushed < <(psql_b -F, -c "SELECT buffer_inserts, buffer_flushes, buffer_foreground_flushes, buffer_flushed_entries FROM elastic_index_stat_activity WHERE indexrelname = 't_k'")
				left=$(psql_b -c "SELECT pages FROM osm_tree_buffer_stats('t_k')")
				# the pages the load left, flushed now: a flush's cost
				[ "$left" -eq 0 ] || flush_ms=$(psql_b -c "SELECT il_flush_ms('t_k')")
				;;
			esac
			bytes=$(psql_b -c "SELECT pg_relation_size('t_k')")
			fill=$(leaf_fill "$kind")
			echo "$k,$l,$kind,$r,$tps,$p50,$p99,$p999,$pmax,$binserts,$steps,$fg,$flushed,$left,$flush_ms,$bytes,$fill" >>"$results"
			step "K=$k% L=$l% round $r/$repeat $kind: $tps tps; p50 $p50, p99 $p99, p99.9 $p999, max $pmax ms${steps:+; $binserts entries buffered, $steps flush steps, $fg foreground flushes, $left pages left}${flush_ms:+, flushed in $flush_ms ms}"
		done
	done
done

# ---------------------------------------------------------------------------
# Report
# ---------------------------------------------------------------------------

cp "$results" "$out/insert-latency.csv"
if command -v gnuplot >/dev/null; then plot=1; else plot=0; fi
commit=$(repo_commit "$repo")
awk -F, -v cmd="$command_line" -v date="$(date -u '+%Y-%m-%d %H:%M UTC')" \
	-v nproc="$(nproc)" -v pgver="$pg_version" -v extver="$ext_version" \
	-v commit="$commit" -v rows="$total" -v repeat="$repeat" -v clients="$clients" \
	-v jobs="$jobs" -v kinds="btree $kinds" -v load="$load_start" -v plot="$plot" \
	-v bufsize="$buffer_size" -v fraction="$flush_fraction" \
	-f "$here/report.awk" "$results" >"$out/insert-latency.md"
step "report: $out/insert-latency.csv, $out/insert-latency.md"
if [ "$plot" -eq 1 ]; then
	step "plot: $out/insert-latency.png"
	bash "$here/plot.sh" "$out" "$command_line" >/dev/null ||
		echo "run.sh: bench/insert_latency/plot.sh failed; the CSV and the report are written" >&2
fi

step "done in $((($(date +%s) - start_epoch) / 60)) min $((($(date +%s) - start_epoch) % 60)) s"
exit 0
}
