#!/usr/bin/env bash
# bench/core/run.sh - compare elastic_btree with PostgreSQL's btree.
#
# One run, one throwaway cluster, identical data for every index kind:
#
#   elastic_btree     USING elastic_btree (k)
#   btree_dedup_off   USING btree (k) WITH (deduplicate_items = off)
#   btree_dedup_on    USING btree (k) WITH (deduplicate_items = on)
#
# for two key types: unique int8 and 30-byte text.  For each key type and
# index kind it measures
#
#   1. CREATE INDEX time (median of --reps builds), index size, bytes/entry;
#   2. a bulk INSERT ... SELECT of --insert-rows rows in random key order:
#      rows/s and WAL bytes per row, total and the index's own share (the
#      same insert into a table without an index is the baseline);
#   3. pgbench read workloads (point lookup, 100-row range scan, 100-row
#      index-only scan) for every --clients value, interleaving the kinds
#      (A B C, repeated --rounds times, median tps; default one round).
#
# The reads run before the insert, on the freshly built indexes.
#
# Results go to docs/benchmarks/core-results.csv and docs/benchmarks/core.md
# (or --out DIR), and core.png, drawn from the CSV by bench/core/plot.sh when
# gnuplot is installed.  Needs only what scripts/setup.sh installs; the
# extension must be installed ("make install") unless --kinds leaves elastic
# out.
#
# Usage: bench/core/run.sh [--rows N] [--duration S] [--clients "1 2 4"]
#            [--port P] [--large] [--insert-rows M] [--reps R] [--rounds R]
#            [--kinds "elastic btree_dedup_off btree_dedup_on"]
#            [--types "int8 text"] [--out DIR] [--workdir DIR] [--keep]
set -euo pipefail

# The whole script is one brace group, so bash parses it completely before
# running it: editing the file during a run cannot derail that run.
{

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=bench/lib.sh
. "$here/../lib.sh" "$@"

rows=""
duration=""
insert_rows=""
clients="1 2 4"
port=55700
large=0
reps=3
rounds=1
kinds="elastic btree_dedup_off btree_dedup_on"
types="int8 text"
out="$repo/docs/benchmarks"
workbase=${TMPDIR:-/tmp}
keep=0

while [ $# -gt 0 ]; do
	case $1 in
	--rows) need_int "$1" "${2-}"; rows=$2; shift 2 ;;
	--duration) need_int "$1" "${2-}"; duration=$2; shift 2 ;;
	--insert-rows) need_int "$1" "${2-}"; insert_rows=$2; shift 2 ;;
	--clients) clients=${2-}; shift 2 ;;
	--port) need_int "$1" "${2-}"; port=$2; shift 2 ;;
	--large) large=1; shift ;;
	--reps) need_int "$1" "${2-}"; reps=$2; shift 2 ;;
	--rounds) need_int "$1" "${2-}"; rounds=$2; shift 2 ;;
	--kinds) kinds=${2-}; shift 2 ;;
	--types) types=${2-}; shift 2 ;;
	--out) out=${2-}; shift 2 ;;
	--workdir) workbase=${2-}; shift 2 ;;
	--keep) keep=1; shift ;;
	-h | --help) usage 0 ;;
	*) echo "run.sh: unknown option '$1'" >&2; usage 2 ;;
	esac
done
# the runner changes directory: make --out absolute
mkdir -p "$out"
out=$(cd "$out" && pwd)

# --large changes the defaults only; explicit --rows / --duration win.
if [ "$large" -eq 1 ]; then
	rows=${rows:-10000000}
	duration=${duration:-30}
fi
rows=${rows:-1000000}
duration=${duration:-10}
insert_rows=${insert_rows:-$((rows / 2))}
round_tag=""
[ "$rounds" -eq 1 ] || round_tag=1
if [ "$rows" -lt 1000 ]; then
	echo "run.sh: --rows must be at least 1000" >&2
	exit 2
fi
for c in $clients; do
	need_int --clients "$c"
done
for k in $kinds; do
	case $k in
	elastic | btree_dedup_off | btree_dedup_on) ;;
	*) echo "run.sh: unknown index kind '$k'" >&2; exit 2 ;;
	esac
done
for t in $types; do
	case $t in
	int8 | text) ;;
	*) echo "run.sh: unknown key type '$t'" >&2; exit 2 ;;
	esac
done
if [ -z "$kinds" ] || [ -z "$types" ] || [ -z "$clients" ]; then
	echo "run.sh: --kinds, --types and --clients must not be empty" >&2
	exit 2
fi

# Read workloads, in the order they run; bench/core/<type>_<workload>.sql.
workloads="point range ios"

ncpu=$(nproc)

# Save what was measured when the run fails half way.
# shellcheck disable=SC2317 # called by cleanup
on_failure() {
	save_partial core-results
}

cluster_setup elastic_bench
results="$work/results.csv"

mkdir -p "$work/scripts" "$work/plans"
if [ "$(id -u)" -eq 0 ]; then
	chown -R postgres: "$work"
fi

# psql with the planner settings that force the index under test.
psql_forced() {
	as_pg env PGOPTIONS="$force_opts" "$PG_BINDIR/psql" -X -q -A -t \
		-v ON_ERROR_STOP=1 -h "$sock" -p "$port" -U "$dbuser" -d bench "$@"
}

force_opts='-c enable_seqscan=off -c enable_bitmapscan=off'

# Append a result row: key type, kind, metric, clients, value, unit.
record() {
	echo "$1,$2,$3,$4,$5,$6" >>"$results"
}

# Table name of key type $1 and index kind $2.
table_of() {
	echo "$1_$2"
}

# CREATE INDEX statement for key type $1, index kind $2.
index_ddl() {
	local tbl
	tbl=$(table_of "$1" "$2")
	case $2 in
	elastic) echo "CREATE INDEX ${tbl}_k ON $tbl USING elastic_btree (k)" ;;
	btree_dedup_off) echo "CREATE INDEX ${tbl}_k ON $tbl USING btree (k) WITH (deduplicate_items = off)" ;;
	btree_dedup_on) echo "CREATE INDEX ${tbl}_k ON $tbl USING btree (k) WITH (deduplicate_items = on)" ;;
	esac
}

# Name of the kind in the result files.
kind_label() {
	case $1 in
	elastic) echo elastic_btree ;;
	*) echo "$1" ;;
	esac
}

# Median of the numbers given as arguments.
median() {
	printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 } END {
		if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

# ---------------------------------------------------------------------------
# Cluster
# ---------------------------------------------------------------------------

if awk -v l="$load_start" -v n="$ncpu" 'BEGIN { exit !(l > n / 2) }'; then
	step "warning: load average $load_start on $ncpu CPUs; the tps numbers will be noisy"
fi
step "cluster: initdb in $work (rows=$rows, insert=$insert_rows, duration=${duration}s, clients='$clients', kinds='$kinds', types='$types')"
preload=""
case " $kinds " in
*" elastic "*) preload=elastic_index ;;
esac

cluster_initdb bench/core/run.sh <<EOF
max_connections = 40
shared_preload_libraries = '$preload'
max_wal_size = 4GB
max_parallel_maintenance_workers = 0
synchronize_seqscans = off
EOF

step "cluster: start on port $port"
cluster_start

# Server CPU time is read from the postmaster's "children" counters
# (cutime + cstime in /proc/PID/stat): a backend's user and system time is
# added there when the postmaster reaps it.  Unlike elapsed time, it hardly
# depends on what else the machine runs.
pm_pid=$(head -n 1 "$data/postmaster.pid")
clk_tck=$(getconf CLK_TCK)

# Number of processes whose parent is the postmaster.
pm_children() {
	# cat, not awk, reads the files: a process may exit meanwhile
	{ cat /proc/[0-9]*/stat 2>/dev/null || true; } | awk -v p="$pm_pid" '$4 == p { n++ } END { print n + 0 }'
}

# CPU seconds of all reaped backends so far, once every client backend
# (beyond the auxiliary processes counted at start) has exited.
backend_cpu() {
	local i
	for i in $(seq 1 100); do
		[ "$(pm_children)" -le "$aux_children" ] && break
		sleep 0.05
	done
	awk -v t="$clk_tck" '{ printf "%.2f", ($16 + $17) / t }' "/proc/$pm_pid/stat"
}
sleep 1
aux_children=$(pm_children)

pg_version=$(psql_b -c "SHOW server_version")
psql_b -c "CREATE EXTENSION pg_prewarm"
ext_version=""
if [ -n "$preload" ]; then
	if ! psql_b -c "CREATE EXTENSION elastic_index" 2>"$work/ext.err"; then
		cat "$work/ext.err" >&2
		echo "run.sh: the elastic_index extension is not installed (run make install)" >&2
		exit 1
	fi
	ext_version=$(psql_b -c "SELECT extversion FROM pg_extension WHERE extname = 'elastic_index'")
fi

: >"$results"

# ---------------------------------------------------------------------------
# Per key type
# ---------------------------------------------------------------------------

# SQL producing the base rows (k, v) of key type $1, in heap order.
base_rows_sql() {
	case $1 in
	# keys 2, 4, ..., 2N in a random (but deterministic) heap order
	int8) echo "SELECT 2 * i::int8 AS k, i::int4 AS v FROM generate_series(1, $rows) i ORDER BY md5(i::text)" ;;
	# 30 hex characters of md5(i): random order already
	text) echo "SELECT substr(md5(i::text), 1, 30) AS k, i::int4 AS v FROM generate_series(1, $rows) i" ;;
	esac
}

# SQL producing the rows inserted by the bulk-insert test, in insert order.
insert_rows_sql() {
	case $1 in
	# odd keys 4j + 1 spread over the whole key range, random order
	int8) echo "SELECT 4 * j::int8 + 1 AS k, ($rows + j)::int4 AS v FROM generate_series(1, $insert_rows) j ORDER BY md5('ins' || j)" ;;
	text) echo "SELECT substr(md5(i::text), 1, 30) AS k, i::int4 AS v FROM generate_series($rows + 1, $rows + $insert_rows) i" ;;
	esac
}

# Values of the pgbench variables for the plan check of key type $1.
sample_vars() {
	local i=$((rows / 2))
	case $1 in
	int8) echo "-v k=$((2 * i)) -v a=$((2 * i)) -v b=$((2 * i + 198)) -v i=$i" ;;
	text) echo "-v i=$i" ;;
	esac
}

# The SQL statement of pgbench script $1 for table $2 (psql can run it).
script_sql() {
	grep -v -e '^[\]' -e '^--' "$1" | sed "s/@TABLE@/$2/g" | tr '\n' ' '
}

for type in $types; do
	ktype=$type
	[ "$type" = int8 ] || ktype=text
	all_tables=""
	for kind in $kinds no_index; do
		all_tables+=" $(table_of "$type" "$kind")"
	done

	# -- data --------------------------------------------------------------
	step "$type: load $rows rows into$all_tables"
	{
		echo "DROP TABLE IF EXISTS ${type}_src, ${type}_ins;"
		echo "CREATE TABLE ${type}_src (k $ktype NOT NULL, v int4 NOT NULL);"
		echo "INSERT INTO ${type}_src $(base_rows_sql "$type");"
		for tbl in $all_tables; do
			echo "DROP TABLE IF EXISTS $tbl;"
			echo "CREATE TABLE $tbl (k $ktype NOT NULL, v int4 NOT NULL);"
			echo "INSERT INTO $tbl SELECT k, v FROM ${type}_src;"
		done
		echo "DROP TABLE ${type}_src;"
		echo "CREATE TABLE ${type}_ins (k $ktype NOT NULL, v int4 NOT NULL);"
		echo "INSERT INTO ${type}_ins $(insert_rows_sql "$type");"
		echo "VACUUM (FREEZE, ANALYZE);"
		echo "CHECKPOINT;"
	} | psql_b
	heap_bytes=$(psql_b -c "SELECT pg_relation_size('$(table_of "$type" no_index)')")
	record "$type" no_index heap_bytes "" "$heap_bytes" bytes

	# -- 1. build ----------------------------------------------------------
	declare -A build_times=() build_cpu=()
	for rep in $(seq 1 "$reps"); do
		for kind in $kinds; do
			tbl=$(table_of "$type" "$kind")
			psql_b -c "DROP INDEX IF EXISTS ${tbl}_k" -c "CHECKPOINT"
			cpu0=$(backend_cpu)
			res=$(psql_b <<EOF
SELECT clock_timestamp() AS t0, pg_current_wal_insert_lsn() AS l0 \gset
$(index_ddl "$type" "$kind");
SELECT round(extract(epoch FROM clock_timestamp() - :'t0'::timestamptz)::numeric, 4),
       pg_current_wal_insert_lsn() - :'l0'::pg_lsn,
       pg_relation_size('${tbl}_k');
EOF
			)
			cpu1=$(backend_cpu)
			IFS='|' read -r secs wal size <<<"$res"
			build_times[$kind]+=" $secs"
			cpu=$(awk -v a="$cpu0" -v b="$cpu1" 'BEGIN { printf "%.2f", b - a }')
			build_cpu[$kind]+=" $cpu"
			step "$type: build $rep/$reps $(kind_label "$kind"): ${secs}s (CPU ${cpu}s), $size bytes, WAL $wal bytes"
			if [ "$rep" -eq "$reps" ]; then
				record "$type" "$(kind_label "$kind")" index_bytes "" "$size" bytes
				record "$type" "$(kind_label "$kind")" bytes_per_entry "" \
					"$(awk -v s="$size" -v n="$rows" 'BEGIN { printf "%.2f", s / n }')" bytes
				record "$type" "$(kind_label "$kind")" build_wal_bytes "" "$wal" bytes
			fi
		done
	done
	for kind in $kinds; do
		# shellcheck disable=SC2086 # the list of times is meant to be split
		record "$type" "$(kind_label "$kind")" build_s "" "$(median ${build_times[$kind]})" s
		# shellcheck disable=SC2086
		record "$type" "$(kind_label "$kind")" build_s_all "" "$(echo ${build_times[$kind]} | tr ' ' ';')" s
		# shellcheck disable=SC2086
		record "$type" "$(kind_label "$kind")" build_cpu_s "" "$(median ${build_cpu[$kind]})" s
	done
	unset build_times build_cpu

	# -- 3. reads ----------------------------------------------------------
	step "$type: VACUUM ANALYZE, prewarm"
	{
		echo "VACUUM (ANALYZE);"
		echo "CHECKPOINT;"
		for kind in $kinds; do
			tbl=$(table_of "$type" "$kind")
			echo "SELECT pg_prewarm('$tbl'), pg_prewarm('${tbl}_k');"
		done
	} | psql_b >/dev/null

	# Plan and result check: every workload must use the index under test
	# (an Index Only Scan with no heap fetches for "ios", no Sort) and give
	# the same answer on every kind.
	for w in $workloads; do
		first_answer=""
		for kind in $kinds; do
			tbl=$(table_of "$type" "$kind")
			label=$(kind_label "$kind")
			sql=$(script_sql "$here/${type}_$w.sql" "$tbl")
			plan="$work/plans/${type}_${w}_$kind.txt"
			# shellcheck disable=SC2046 # sample_vars is a list of options
			psql_forced $(sample_vars "$type") \
				<<<"EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) $sql" >"$plan"
			# shellcheck disable=SC2046
			answer=$(psql_forced $(sample_vars "$type") <<<"$sql")
			if [ "$w" = ios ]; then
				want="Index Only Scan using ${tbl}_k on $tbl"
			else
				want="Index Scan using ${tbl}_k on $tbl"
			fi
			ok=1
			grep -q "$want" "$plan" || ok=0
			if grep -q "Sort" "$plan"; then ok=0; fi
			if [ "$w" = ios ] && ! grep -q "Heap Fetches: 0" "$plan"; then ok=0; fi
			if [ -z "$first_answer" ]; then
				first_answer=$answer
			elif [ "$answer" != "$first_answer" ]; then
				echo "run.sh: WARNING: $type $w on $label returns '$answer', first kind returned '$first_answer'" >&2
				record "$type" "$label" "answer_mismatch_$w" "" 1 flag
			fi
			record "$type" "$label" "plan_ok_$w" "" "$ok" flag
			if [ "$ok" -eq 1 ]; then
				step "$type: plan $w $label: ok ($(grep -o -m1 'Index[A-Za-z ]* Scan using [a-z0-9_]*' "$plan"))"
			else
				step "$type: plan $w $label: WRONG PLAN:"
				sed 's/^/    /' "$plan"
			fi
		done
	done

	for w in $workloads; do
		for tbl_kind in $kinds; do
			sed "s/@TABLE@/$(table_of "$type" "$tbl_kind")/g" "$here/${type}_$w.sql" \
				>"$work/scripts/${type}_${w}_$tbl_kind.sql"
		done
	done
	if [ "$(id -u)" -eq 0 ]; then
		chown -R postgres: "$work/scripts"
	fi

	for w in $workloads; do
		for c in $clients; do
			j=$((c < ncpu ? c : ncpu))
			declare -A tps_runs=() lat_runs=() cpu_runs=()
			for round in $(seq 1 "$rounds"); do
				for kind in $kinds; do
					label=$(kind_label "$kind")
					log="$work/pgbench.log"
					cpu0=$(backend_cpu)
					if as_pg env PGOPTIONS="$force_opts" "$PG_BINDIR/pgbench" -n -M prepared \
						-T "$duration" -c "$c" -j "$j" -D nrows="$rows" \
						-f "$work/scripts/${type}_${w}_$kind.sql" \
						-h "$sock" -p "$port" -U "$dbuser" bench >"$log" 2>&1; then
						cpu1=$(backend_cpu)
						ntx=$(awk '/^number of transactions actually processed:/ { print $6; exit }' "$log")
						cpu_tx=$(awk -v a="$cpu0" -v b="$cpu1" -v n="$ntx" 'BEGIN { if (n > 0) printf "%.2f", (b - a) * 1e6 / n }')
						tps=$(awk '/^tps = / { print $3; exit }' "$log")
						lat=$(awk '/^latency average = / { print $4; exit }' "$log")
						failed=$(awk -F'[:(]' '/^number of failed transactions/ { gsub(/ /, "", $2); print $2; exit }' "$log")
					else
						tps=""
						lat=""
						failed=""
						cpu_tx=""
						echo "run.sh: WARNING: pgbench $type $w $label c=$c failed:" >&2
						tail -n 5 "$log" >&2
					fi
					if [ -n "$tps" ]; then
						tps_runs[$kind]+=" $tps"
						lat_runs[$kind]+=" $lat"
					fi
					if [ -n "$cpu_tx" ]; then
						cpu_runs[$kind]+=" $cpu_tx"
					fi
					if [ -n "$failed" ] && [ "$failed" != 0 ]; then
						record "$type" "$label" "failed_tx_$w" "$c" "$failed" count
					fi
					step "$type: pgbench $w c=$c $label${round_tag:+ round $round/$rounds}: ${tps:-FAILED} tps, ${lat:-?} ms, server CPU ${cpu_tx:-?} us/tx"
				done
			done
			for kind in $kinds; do
				label=$(kind_label "$kind")
				if [ -n "${tps_runs[$kind]:-}" ]; then
					# shellcheck disable=SC2086 # the lists are meant to be split
					record "$type" "$label" "tps_$w" "$c" "$(median ${tps_runs[$kind]})" tps
					# shellcheck disable=SC2086
					record "$type" "$label" "latency_ms_$w" "$c" "$(median ${lat_runs[$kind]})" ms
					if [ -n "${cpu_runs[$kind]:-}" ]; then
						# shellcheck disable=SC2086
						record "$type" "$label" "cpu_us_per_tx_$w" "$c" "$(median ${cpu_runs[$kind]})" us
					fi
					if [ "$rounds" -gt 1 ]; then
						# shellcheck disable=SC2086
						record "$type" "$label" "tps_all_$w" "$c" "$(echo ${tps_runs[$kind]} | tr ' ' ';')" tps
					fi
				else
					record "$type" "$label" "tps_$w" "$c" NA tps
				fi
			done
			unset tps_runs lat_runs cpu_runs
		done
	done

	# -- 2. bulk insert ----------------------------------------------------
	psql_b -c "SELECT pg_prewarm('${type}_ins')" >/dev/null
	declare -A ins_secs=() ins_wal=() ins_cpu=()
	for kind in no_index $kinds; do
		tbl=$(table_of "$type" "$kind")
		label=$(kind_label "$kind")
		psql_b -c "CHECKPOINT"
		# WAL record and FPI counters are read in separate sessions: a
		# backend flushes its statistics when it exits.
		stats0=$(psql_b -c "SELECT wal_records || '|' || wal_fpi FROM pg_stat_wal")
		cpu0=$(backend_cpu)
		res=$(psql_b <<EOF
SELECT clock_timestamp() AS t0, pg_current_wal_insert_lsn() AS l0 \gset
INSERT INTO $tbl SELECT k, v FROM ${type}_ins;
SELECT round(extract(epoch FROM clock_timestamp() - :'t0'::timestamptz)::numeric, 4),
       pg_current_wal_insert_lsn() - :'l0'::pg_lsn;
EOF
		)
		cpu1=$(backend_cpu)
		stats1=$(psql_b -c "SELECT wal_records || '|' || wal_fpi FROM pg_stat_wal")
		IFS='|' read -r secs wal <<<"$res"
		IFS='|' read -r r0 f0 <<<"$stats0"
		IFS='|' read -r r1 f1 <<<"$stats1"
		ins_secs[$kind]=$secs
		ins_wal[$kind]=$wal
		ins_cpu[$kind]=$(awk -v a="$cpu0" -v b="$cpu1" 'BEGIN { printf "%.2f", b - a }')
		record "$type" "$label" insert_cpu_us_per_row "" \
			"$(awk -v n="$insert_rows" -v c="${ins_cpu[$kind]}" 'BEGIN { printf "%.3f", c * 1e6 / n }')" us
		rps=$(awk -v n="$insert_rows" -v s="$secs" 'BEGIN { printf "%.0f", n / s }')
		walrow=$(awk -v n="$insert_rows" -v w="$wal" 'BEGIN { printf "%.2f", w / n }')
		record "$type" "$label" insert_s "" "$secs" s
		record "$type" "$label" insert_rows_per_s "" "$rps" rows/s
		record "$type" "$label" insert_wal_per_row "" "$walrow" bytes
		record "$type" "$label" insert_records_per_row "" \
			"$(awk -v n="$insert_rows" -v a="$r0" -v b="$r1" 'BEGIN { printf "%.4f", (b - a) / n }')" records
		record "$type" "$label" insert_fpi_per_1000_rows "" \
			"$(awk -v n="$insert_rows" -v a="$f0" -v b="$f1" 'BEGIN { printf "%.3f", (b - a) * 1000 / n }')" fpi
		if [ "$kind" != no_index ]; then
			record "$type" "$label" insert_index_wal_per_row "" \
				"$(awk -v n="$insert_rows" -v w="$wal" -v b="${ins_wal[no_index]}" 'BEGIN { printf "%.2f", (w - b) / n }')" bytes
			record "$type" "$label" insert_index_us_per_row "" \
				"$(awk -v n="$insert_rows" -v s="$secs" -v b="${ins_secs[no_index]}" 'BEGIN { printf "%.3f", (s - b) * 1e6 / n }')" us
			record "$type" "$label" insert_index_cpu_us_per_row "" \
				"$(awk -v n="$insert_rows" -v c="${ins_cpu[$kind]}" -v b="${ins_cpu[no_index]}" 'BEGIN { printf "%.3f", (c - b) * 1e6 / n }')" us
			size=$(psql_b -c "SELECT pg_relation_size('${tbl}_k')")
			record "$type" "$label" index_bytes_after_insert "" "$size" bytes
			record "$type" "$label" bytes_per_entry_after_insert "" \
				"$(awk -v s="$size" -v n="$((rows + insert_rows))" 'BEGIN { printf "%.2f", s / n }')" bytes
			step "$type: insert $insert_rows rows $label: ${secs}s (CPU ${ins_cpu[$kind]}s, $rps rows/s), WAL $walrow bytes/row, index $size bytes"
		else
			step "$type: insert $insert_rows rows $label: ${secs}s (CPU ${ins_cpu[$kind]}s, $rps rows/s), WAL $walrow bytes/row"
		fi
	done
	unset ins_secs ins_wal ins_cpu

	step "$type: drop tables"
	{
		for tbl in $all_tables; do
			echo "DROP TABLE $tbl;"
		done
		echo "DROP TABLE ${type}_ins;"
		echo "CHECKPOINT;"
	} | psql_b
done

# ---------------------------------------------------------------------------
# Report
# ---------------------------------------------------------------------------

step "report: $out/core-results.csv, $out/core.md"
mkdir -p "$out"
{
	echo "key_type,kind,metric,clients,value,unit"
	cat "$results"
} >"$out/core-results.csv"
# the plots: drawn by plot.sh from the CSV when gnuplot is installed, and
# linked from the report
if command -v gnuplot >/dev/null; then plot=1; else plot=0; fi

mem_gb=$(awk '/^MemTotal:/ { printf "%.1f", $2 / 1048576 }' /proc/meminfo)
cpu_model=$(awk -F': ' '/^model name/ { print $2; exit }' /proc/cpuinfo)
commit=$(git -C "$repo" rev-parse --short HEAD 2>/dev/null || echo "none (uncommitted tree)")
end_epoch=$(date +%s)

awk -F, \
	-v cmd="$command_line" \
	-v date="$(date -u '+%Y-%m-%d %H:%M UTC')" \
	-v nproc="$ncpu" -v mem="$mem_gb" -v cpu="$cpu_model" \
	-v pgver="$pg_version" -v extver="${ext_version:-not loaded}" \
	-v commit="$commit" -v rows="$rows" -v irows="$insert_rows" \
	-v duration="$duration" -v clients="$clients" -v reps="$reps" \
	-v rounds="$rounds" -v preload="$preload" \
	-v load0="$load_start" -v load1="$(cut -d' ' -f1 /proc/loadavg)" \
	-v kinds="$kinds" -v types="$types" \
	-v runtime="$(((end_epoch - start_epoch + 30) / 60))" -v plot="$plot" \
	-f "$here/report.awk" "$out/core-results.csv" >"$out/core.md"
if [ "$plot" -eq 1 ]; then
	step "plot: $out/core.png"
	bash "$here/plot.sh" "$out" "$command_line" >/dev/null ||
		echo "run.sh: bench/core/plot.sh failed; the CSV and the report are written" >&2
fi

step "done in $(((end_epoch - start_epoch) / 60)) min $(((end_epoch - start_epoch) % 60)) s"
exit 0
}
