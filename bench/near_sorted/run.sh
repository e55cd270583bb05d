#!/usr/bin/env bash
# bench/near_sorted/run.sh - ingesting near-sorted data: elastic_btree and
# osm_tree against PostgreSQL's btree, in one run on one throwaway cluster.
#
# For every key type and sortedness, the same N rows (keys 1..N in a
# near-sorted arrival order: K% of the rows out of place, each by at most
# L% of N, from elastic_index_near_sorted) are loaded into a table with no index, with a
# btree index and with an index of each kind in --kinds (osm_tree by
# default; BRIN and elastic_btree on request), and the runner reports per
# index kind:
#
#   copy      COPY in transactions of --batch rows, in arrival order:
#             index maintenance time (load with the index minus load
#             without), WAL bytes per row, index size, leaf fill;
#   build     CREATE INDEX over the same rows, for comparison: with the
#             default settings (parallel workers) and serially;
#   single    single-row INSERTs from --clients pgbench clients taking rows
#             in arrival order: index maintenance time and the p50, p99 and
#             p99.9 latency of one insert;
#   reads     pgbench point lookups and 100-row range scans (tps) on the
#             index loaded by COPY, and on the index the single-row
#             inserts left (osm_tree: with what they left in its insert
#             buffer), with that index's size and leaf fill.
#
# The pgbench scripts are bench/near_sorted/<type>_point.sql,
# <type>_range.sql and single_insert.sql.  Results go to
# docs/benchmarks/near-sorted.csv and near-sorted.md (or
# --out DIR), and near-sorted.png, drawn from the CSV by
# bench/near_sorted/plot.sh when gnuplot is installed.  The extension must
# be installed ("make install").
#
# Usage: bench/near_sorted/run.sh [--rows N] [--large]
#            [--sortedness "0:0 1:1 5:5 25:25 100:100"] [--types "int8 timestamp"]
#            [--batch B] [--singles M] [--clients C] [--duration S]
#            [--repeat R] [--kinds "elastic osm"] [--durable]
#            [--port P] [--out DIR] [--workdir DIR] [--keep]
#
#   --rows N        rows per data set (default 5000000, the size issue 6's
#                   benchmark asks for: about 35 minutes with the default
#                   kinds on 2 cores; --rows 1000000 takes about 8)
#   --large         --rows 10000000 --singles 1000000
#   --sortedness    K:L pairs in percent; 0:0 is sorted, 100:100 scrambled
#   --batch B       rows per COPY transaction (default 100000)
#   --singles M     rows inserted one per transaction (default rows / 10)
#   --clients C     pgbench clients for single-row inserts (default 4)
#   --duration S    seconds per read run (default 3; each read workload runs
#                   --repeat times and the best tps counts)
#   --repeat R      COPY loads, CREATE INDEX runs, single-row loads and read
#                   runs per index kind, the loads and builds in rounds
#                   interleaved across the kinds; the fastest (best tps) counts, the
#                   latency percentiles of the fastest single-row load
#                   (default 3)
#   --kinds         index kinds besides btree: brin, elastic (elastic_btree),
#                   osm (osm_tree), osm_compact (osm_tree WITH
#                   (compact_leaves = on)), osm_redist (osm_tree WITH
#                   (redistribute_leaves = on)); default osm (brin, elastic
#                   and osm take about twice as long)
#   --durable       fsync and synchronous_commit on, as users run servers
#                   (default off: the cost of the index alone, without the
#                   flushes every commit pays)
set -euo pipefail

# One brace group: bash parses the whole script before running it.
{

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=bench/lib.sh
. "$here/../lib.sh" "$@"

rows=5000000
singles=""
sortedness="0:0 1:1 5:5 25:25 100:100"
types="int8 timestamp"
batch=100000
clients=4
duration=3
repeat=3
kinds="osm"
durable=0
port=56090
out="$repo/docs/benchmarks"
workbase=${TMPDIR:-/tmp}
keep=0

while [ $# -gt 0 ]; do
	case $1 in
	--rows) need_int "$1" "${2-}"; rows=$2; shift 2 ;;
	--large) rows=10000000; singles=${singles:-1000000}; shift ;;
	--sortedness) sortedness=${2-}; shift 2 ;;
	--types) types=${2-}; shift 2 ;;
	--batch) need_int "$1" "${2-}"; batch=$2; shift 2 ;;
	--singles) need_int "$1" "${2-}"; singles=$2; shift 2 ;;
	--clients) need_int "$1" "${2-}"; clients=$2; shift 2 ;;
	--duration) need_int "$1" "${2-}"; duration=$2; shift 2 ;;
	--repeat) need_int "$1" "${2-}"; repeat=$2; shift 2 ;;
	--kinds) kinds=${2-}; shift 2 ;;
	--durable) durable=1; shift ;;
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
singles=${singles:-$((rows / 10))}

# The best tps of --repeat pgbench runs of --duration seconds of script $1
# (1 client) over keys 1..$2: the run least disturbed by the rest of the
# machine.
best_tps() {
	local best="" tps
	for ((r = 0; r < repeat; r++)); do
		tps=$(pgbench_b -T "$duration" -D rows="$2" -f "$1" | awk '/^tps/ { printf "%.0f", $3 }')
		if [ -z "$best" ] || [ "${tps:-0}" -gt "$best" ]; then
			best=$tps
		fi
	done
	echo "$best"
}
for s in $sortedness; do
	if ! [[ $s =~ ^[0-9]+:[0-9]+$ ]]; then
		echo "run.sh: --sortedness takes K:L pairs in percent, got '$s'" >&2
		exit 2
	fi
done
seen_kinds=" "
for kd in $kinds; do
	if [[ $seen_kinds == *" $kd "* ]]; then
		echo "run.sh: index kind '$kd' given twice in --kinds" >&2
		exit 2
	fi
	seen_kinds+="$kd "
	case $kd in
	brin | elastic | osm | osm_compact | osm_redist) ;;
	*) echo "run.sh: unknown index kind '$kd' (brin, elastic, osm, osm_compact, osm_redist)" >&2; exit 2 ;;
	esac
done
for t in $types; do
	case $t in
	int8 | timestamp) ;;
	*) echo "run.sh: unknown key type '$t' (int8, timestamp)" >&2; exit 2 ;;
	esac
done

# Save what was measured when the run fails half way.
# shellcheck disable=SC2317 # called by cleanup
on_failure() {
	save_partial near-sorted
}

cluster_setup elastic_near_sorted
results="$work/results.csv"
mkdir -p "$work/chunks" "$work/scripts"
# the pgbench scripts, bench/near_sorted/*.sql, where the cluster owner
# reads them
cp "$here"/*.sql "$work/scripts/"
[ "$(id -u)" -ne 0 ] || chown -R postgres: "$work/chunks" "$work/scripts"

step "cluster: initdb in $work (rows=$rows, sortedness='$sortedness', types='$types', batch=$batch, singles=$singles x $clients clients)"
cluster_initdb bench/near_sorted/run.sh <<EOF
shared_preload_libraries = 'elastic_index'
max_connections = 40
$([ "$durable" -eq 0 ] || printf 'fsync = on\nsynchronous_commit = on')
EOF
step "cluster: start on port $port"
cluster_start

pg_version=$(psql_b -c "SELECT split_part(version(), ' on ', 1)")

psql_b <<'EOF'
CREATE EXTENSION elastic_index;
CREATE EXTENSION pgstattuple;
EOF
ext_version=$(psql_b -c "SELECT extversion FROM pg_extension WHERE extname = 'elastic_index'")

echo "type,k,l,kind,copy_s,index_copy_s,wal_bytes_per_row,index_bytes,leaf_fill,build_s,single_s,index_single_s,p50_ms,p99_ms,p999_ms,point_tps,range_tps,single_index_bytes,single_leaf_fill,single_buffer_pages,single_point_tps,single_range_tps,build_serial_s" >"$results"

# The key column's SQL for key type $1 of int8 expression $2.
key_expr() {
	case $1 in
	int8) echo "$2" ;;
	timestamp) echo "timestamp '2000-01-01' + ($2) * interval '1 second'" ;;
	esac
}

# Leaf fill in percent of index $2 of kind $1.
leaf_fill() {
	case $1 in
	btree) psql_b -c "SELECT round(avg_leaf_density::numeric, 1) FROM pgstatindex('$2')" ;;
	elastic | osm | osm_compact | osm_redist) psql_b -c "SELECT round(leaf_fill::numeric, 1) FROM elastic_index_stats('$2')" ;;
	none | brin) echo "" ;;
	esac
}

# The USING clause of index kind $1, with its column and storage parameters.
am_of() {
	case $1 in
	btree) echo "btree (key)" ;;
	brin) echo "brin (key)" ;;
	elastic) echo "elastic_btree (key)" ;;
	osm) echo "osm_tree (key)" ;;
	osm_compact) echo "osm_tree (key) WITH (compact_leaves = on)" ;;
	osm_redist) echo "osm_tree (key) WITH (redistribute_leaves = on)" ;;
	*) echo "run.sh: unknown index kind '$1' (elastic, osm, osm_compact, osm_redist)" >&2; exit 2 ;;
	esac
}

# pgbench as the cluster owner on the benchmark database.
pgbench_b() {
	as_pg "$PG_BINDIR/pgbench" -n -h "$sock" -p "$port" -U "$dbuser" "$@" bench
}

# Seconds a CREATE INDEX of kind $1 over table t_$1 takes after a
# checkpoint, in one session with the psql options $2... (settings) first;
# the index is dropped again.
timed_build() {
	local t0 t1
	psql_b -c "CHECKPOINT"
	t0=$(now)
	psql_b "${@:2}" -c "CREATE INDEX t_${1}_build ON t_$1 USING $(am_of "$1")"
	t1=$(now)
	psql_b -c "DROP INDEX t_${1}_build"
	elapsed "$t0" "$t1"
}

for type in $types; do
	for kl in $sortedness; do
		k=${kl%%:*}
		l=${kl##*:}
		step "$type K=$k% L=$l%: data"
		psql_b <<EOF
DROP TABLE IF EXISTS src;
CREATE TABLE src AS
	SELECT pos AS arrival, $(key_expr "$type" "key") AS key
	FROM elastic_index_near_sorted($rows, $k, $l);
CREATE INDEX ON src (arrival);
VACUUM ANALYZE src;
EOF
		rm -f "$work"/chunks/*
		nchunks=$(((rows + batch - 1) / batch))
		for ((c = 0; c < nchunks; c++)); do
			psql_b -c "COPY (SELECT key FROM src WHERE arrival > $((c * batch)) AND arrival <= $(((c + 1) * batch)) ORDER BY arrival) TO '$work/chunks/$c.csv'"
		done

		# COPY loads and CREATE INDEX runs, interleaved across the kinds
		# round by round (none, btree, the kinds, then again), so that a
		# slow minute of the machine costs every kind alike; the fastest
		# load and build of each kind count (the same work each time: the
		# spread is noise).  Each kind loads into its own table, t_<kind>,
		# which the reads below use.
		declare -A copy_s=() single_s=() wal_b=() build_s=() serial_s=()
		for ((r = 0; r < repeat; r++)); do
			for kind in none btree $kinds; do
				psql_b -c "DROP TABLE IF EXISTS t_$kind; CREATE TABLE t_$kind (key $type)"
				[ "$kind" = none ] || psql_b -c "CREATE INDEX t_${kind}_key ON t_$kind USING $(am_of "$kind")"
				psql_b -c "CHECKPOINT"
				lsn0=$(psql_b -c "SELECT pg_current_wal_insert_lsn()")
				t0=$(now)
				for ((c = 0; c < nchunks; c++)); do
					psql_b -c "COPY t_$kind FROM '$work/chunks/$c.csv'"
				done
				t1=$(now)
				wal_b[$kind]=$(psql_b -c "SELECT round((pg_current_wal_insert_lsn() - '$lsn0'::pg_lsn) / $rows.0, 1)")
				copy_s[$kind]=$(fastest "${copy_s[$kind]-}" "$(elapsed "$t0" "$t1")")
				[ "$kind" != none ] || continue

				# CREATE INDEX over the same rows, beside the loaded index,
				# with the default settings (parallel workers) and serially
				# (the one backend a COPY has); a scan first sets the new
				# rows' hint bits, so that neither timed build pays for them
				psql_b -c "SELECT count(*) FROM t_$kind" >/dev/null
				build_s[$kind]=$(fastest "${build_s[$kind]-}" "$(timed_build "$kind")")
				serial_s[$kind]=$(fastest "${serial_s[$kind]-}" \
					"$(timed_build "$kind" -c "SET max_parallel_maintenance_workers = 0")")
			done
		done

		for kind in none btree $kinds; do
			wal=${wal_b[$kind]} build=${build_s[$kind]-} serial=${serial_s[$kind]-}
			size="" fill="" point="" range=""
			psql_b -c "DROP TABLE IF EXISTS t; ALTER TABLE t_$kind RENAME TO t"
			if [ "$kind" != none ]; then
				psql_b -c "ALTER INDEX t_${kind}_key RENAME TO t_key"
				size=$(psql_b -c "SELECT pg_relation_size('t_key')")
				fill=$(leaf_fill "$kind" t_key)
				psql_b -c "VACUUM ANALYZE t"

				# reads on the index the load left
				point=$(best_tps "$work/scripts/${type}_point.sql" "$rows")
				range=$(best_tps "$work/scripts/${type}_range.sql" "$rows")
			fi

			# single-row inserts from several clients, in arrival order,
			# --repeat times into a new table; the fastest run counts, with
			# its latency percentiles
			single_s[$kind]=""
			for ((r = 0; r < repeat; r++)); do
				psql_b <<EOF
DROP TABLE IF EXISTS t;
CREATE TABLE t (key $type);
$([ "$kind" = none ] || echo "CREATE INDEX t_key ON t USING $(am_of "$kind");")
DROP SEQUENCE IF EXISTS arrival_seq;
CREATE SEQUENCE arrival_seq;
CHECKPOINT;
EOF
				rm -f "$work"/pgbench_log.*
				t0=$(now)
				(cd "$work" && pgbench_b -c "$clients" -j "$clients" -t $((singles / clients)) \
					-l --log-prefix="$work/pgbench_log" -f "$work/scripts/single_insert.sql" >/dev/null)
				t1=$(now)
				run_s=$(elapsed "$t0" "$t1")
				if [ "$(fastest "${single_s[$kind]}" "$run_s")" = "$run_s" ]; then
					single_s[$kind]=$run_s
					# per-transaction latency (microseconds) is the third field
					read -r p50 p99 p999 < <(cat "$work"/pgbench_log.* | awk '{ print $3 }' | sort -n |
						awk '{ v[NR] = $1 } END { printf "%.3f %.3f %.3f\n", v[int(NR * 0.5)] / 1000, v[int(NR * 0.99)] / 1000, v[int(NR * 0.999)] / 1000 }')
				fi
			done

			# the index the single-row inserts left, with what they left in
			# osm_tree's insert buffer: size, fill, reads
			ssize="" sfill="" sbuf="" spoint="" srange=""
			if [ "$kind" != none ]; then
				ssize=$(psql_b -c "SELECT pg_relation_size('t_key')")
				sfill=$(leaf_fill "$kind" t_key)
				[ "$kind" != osm ] && [ "$kind" != osm_compact ] && [ "$kind" != osm_redist ] || sbuf=$(psql_b -c "SELECT pages FROM osm_tree_buffer_stats('t_key')")
				spoint=$(best_tps "$work/scripts/${type}_point.sql" "$singles")
				srange=$(best_tps "$work/scripts/${type}_range.sql" "$singles")
			fi

			icopy="" isingle=""
			if [ "$kind" != none ]; then
				icopy=$(awk -v a="${copy_s[$kind]}" -v b="${copy_s[none]}" 'BEGIN { printf "%.3f", a - b }')
				isingle=$(awk -v a="${single_s[$kind]}" -v b="${single_s[none]}" 'BEGIN { printf "%.3f", a - b }')
			fi
			echo "$type,$k,$l,$kind,${copy_s[$kind]},$icopy,$wal,$size,$fill,$build,${single_s[$kind]},$isingle,$p50,$p99,$p999,$point,$range,$ssize,$sfill,$sbuf,$spoint,$srange,$serial" >>"$results"
			step "$type K=$k% L=$l% $kind: copy ${copy_s[$kind]} s (index $icopy s), WAL $wal B/row, size $size, fill $fill, build $build s (serial $serial s); single ${single_s[$kind]} s (index $isingle s), p99.9 ${p999} ms; point $point tps, range $range tps"
		done
		unset copy_s single_s
	done
done

mkdir -p "$out"
cp "$results" "$out/near-sorted.csv"
# the plots: drawn by plot.sh from the CSV when gnuplot is installed, and
# linked from the report
if command -v gnuplot >/dev/null; then plot=1; else plot=0; fi
awk -F, -v cmd="$command_line" -v pgver="$pg_version" -v extver="$ext_version" \
	-v rows="$rows" -v batch="$batch" -v singles="$singles" -v clients="$clients" \
	-v duration="$duration" -v repeat="$repeat" -v kinds="$kinds" -v nproc="$(nproc)" -v date="$(date -u '+%Y-%m-%d %H:%M UTC')" \
	-v commit="$(git -C "$repo" rev-parse --short HEAD 2>/dev/null || echo unknown)" -v plot="$plot" -v durable="$durable" \
	-f "$here/report.awk" "$results" >"$out/near-sorted.md"
step "report: $out/near-sorted.csv, $out/near-sorted.md"
if [ "$plot" -eq 1 ]; then
	step "plot: $out/near-sorted.png"
	bash "$here/plot.sh" "$out" "$command_line" >/dev/null ||
		echo "run.sh: bench/near_sorted/plot.sh failed; the CSV and the report are written" >&2
fi
step "done in $((($(date +%s) - start_epoch) / 60)) min $((($(date +%s) - start_epoch) % 60)) s"
exit 0
}
