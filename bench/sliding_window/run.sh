#!/usr/bin/env bash
# bench/sliding_window/run.sh - index size under a sliding time window.
#
# A table events (ts int8, payload text) keeps the last --days "days" of
# rows, --day rows each, keyed by an ascending timestamp.  After loading
# --days days, every window
#
#   1. inserts one new day (ascending ts, at the right end of the key space),
#   2. deletes the oldest day (the left end),
#   3. runs VACUUM,
#
# and records the size of an elastic_btree and a btree index on ts, both on
# the same table, so that both see exactly the same rows, deletions and
# VACUUMs.  Page deletion and recycling decide whether the indexes keep a
# constant size or grow by one day per window.  With --check, every window
# also runs elastic_index_check(index, true); the last window always runs it
# and compares a scan forced through each index with a sequential scan.
#
# Results go to docs/benchmarks/sliding-window.csv and
# docs/benchmarks/sliding-window.md (or --out DIR), and sliding-window.png,
# drawn from the CSV by bench/sliding_window/plot.sh when gnuplot is
# installed.  The extension must be installed ("make install").  Runs the
# throwaway cluster as the postgres OS user when started as root.
#
# Usage: bench/sliding_window/run.sh [--day N] [--days K] [--windows W]
#            [--large] [--check] [--port P] [--out DIR] [--workdir DIR]
#            [--keep]
#
#   --day N      rows per day (default 100000)
#   --days K     days kept in the table (default 7)
#   --windows W  windows to run (default 30)
#   --large      --day 1000000 --windows 60 (ten times the rows, twice the windows)
#   --check      elastic_index_check(index, true) after every window
#   --port P     port of the throwaway cluster (default 56080)
set -euo pipefail

# One brace group: bash parses the whole script before running it.
{

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=bench/lib.sh
. "$here/../lib.sh" "$@"

day=100000
days=7
windows=30
check=0
port=56080
out="$repo/docs/benchmarks"
workbase=${TMPDIR:-/tmp}
keep=0

while [ $# -gt 0 ]; do
	case $1 in
	--day) need_int "$1" "${2-}"; day=$2; shift 2 ;;
	--days) need_int "$1" "${2-}"; days=$2; shift 2 ;;
	--windows) need_int "$1" "${2-}"; windows=$2; shift 2 ;;
	--large) day=1000000; windows=60; shift ;;
	--check) check=1; shift ;;
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

cluster_setup elastic_window
results="$work/results.csv"

step "cluster: initdb in $work (day=$day rows, days=$days, windows=$windows)"
cluster_initdb bench/sliding_window/run.sh <<EOF
shared_preload_libraries = 'elastic_index'
EOF

step "cluster: start on port $port"
cluster_start

pg_version=$(psql_b -c "SELECT split_part(version(), ' on ', 1)")

# ---------------------------------------------------------------------------
# Workload
# ---------------------------------------------------------------------------

# INSERT of day $1: ts $1 * day .. ($1 + 1) * day - 1, in ascending order.
insert_day() {
	echo "INSERT INTO events SELECT g, md5(g::text)
	      FROM generate_series($1::int8 * $day, ($1 + 1)::int8 * $day - 1) AS g;"
}

psql_b <<EOF
CREATE EXTENSION elastic_index;
CREATE EXTENSION pgstattuple;
CREATE EXTENSION pg_freespacemap;
CREATE TABLE events (ts int8 NOT NULL, payload text NOT NULL);
CREATE INDEX events_ts_ei ON events USING elastic_btree (ts);
CREATE INDEX events_ts_bt ON events USING btree (ts);
EOF
ext_version=$(psql_b -c "SELECT extversion FROM pg_extension WHERE extname = 'elastic_index'")

# Append one result row for window $1 (0 = after the initial load), whose
# insert, delete and VACUUM took $2, $3 and $4 seconds.
record() {
	psql_b -F, -c "
SELECT $1, (SELECT count(*) FROM events),
       pg_relation_size('events_ts_ei'), pg_relation_size('events_ts_bt'),
       round(pg_relation_size('events_ts_ei')::numeric / pg_relation_size('events_ts_bt'), 4),
       e.leaf_pages, e.inner_pages, e.deleted_pages,
       (SELECT count(*) FROM pg_freespace('events_ts_ei') WHERE avail > 0),
       b.leaf_pages, b.internal_pages, b.deleted_pages,
       (SELECT count(*) FROM pg_freespace('events_ts_bt') WHERE avail > 0),
       pg_relation_size('events'), $2, $3, $4
FROM elastic_index_stats('events_ts_ei') AS e, pgstatindex('events_ts_bt') AS b" >>"$results"
}

step "load: $days days of $day rows"
t0=$(now)
for ((d = 0; d < days; d++)); do
	insert_day "$d"
done | psql_b
t1=$(now)
psql_b -c "VACUUM events"
t2=$(now)
record 0 "$(elapsed "$t0" "$t1")" 0 "$(elapsed "$t1" "$t2")"

for ((w = 1; w <= windows; w++)); do
	new=$((days + w - 1))
	old=$((w - 1))
	t0=$(now)
	insert_day "$new" | psql_b
	t1=$(now)
	psql_b -c "DELETE FROM events WHERE ts < $(((old + 1) * day))"
	t2=$(now)
	psql_b -c "VACUUM events"
	t3=$(now)
	if [ "$check" -eq 1 ] || [ "$w" -eq "$windows" ]; then
		psql_b -c "SELECT elastic_index_check('events_ts_ei', true)" >/dev/null
	fi
	record "$w" "$(elapsed "$t0" "$t1")" "$(elapsed "$t1" "$t2")" \
		"$(elapsed "$t2" "$t3")"
	step "window $w/$windows: $(tail -n 1 "$results" | awk -F, '{
		printf "elastic %d pages, btree %d pages, ratio %.3f", $3 / 8192, $4 / 8192, $5 }')"
done

# both indexes find exactly the rows a sequential scan finds
step "verify: forced index scans against a sequential scan"
query="SELECT count(*), sum(ts), md5(string_agg(payload, ',' ORDER BY ts)) FROM events WHERE ts >= 0"
seq=$(psql_b -c "SET enable_indexscan = off; SET enable_indexonlyscan = off;
	SET enable_bitmapscan = off; $query")
for idx in events_ts_ei events_ts_bt; do
	other=events_ts_bt
	[ "$idx" = events_ts_bt ] && other=events_ts_ei
	got=$(psql_b -c "SET enable_seqscan = off; SET enable_bitmapscan = off;
		BEGIN; DROP INDEX $other; $query; ROLLBACK;")
	if [ "$got" != "$seq" ]; then
		echo "run.sh: a scan through $idx found '$got', a sequential scan '$seq'" >&2
		exit 1
	fi
done

# ---------------------------------------------------------------------------
# Report
# ---------------------------------------------------------------------------

step "report: $out/sliding-window.csv, $out/sliding-window.md"
mkdir -p "$out"
{
	echo "window,rows,elastic_bytes,btree_bytes,ratio,elastic_leaf_pages,elastic_inner_pages,elastic_deleted_pages,elastic_fsm_pages,btree_leaf_pages,btree_internal_pages,btree_deleted_pages,btree_fsm_pages,heap_bytes,insert_s,delete_s,vacuum_s"
	cat "$results"
} >"$out/sliding-window.csv"
# the plots: drawn by plot.sh from the CSV when gnuplot is installed, and
# linked from the report
if command -v gnuplot >/dev/null; then plot=1; else plot=0; fi

mem_gb=$(awk '/^MemTotal:/ { printf "%.1f", $2 / 1048576 }' /proc/meminfo)
cpu_model=$(awk -F': ' '/^model name/ { print $2; exit }' /proc/cpuinfo)
commit=$(repo_commit "$repo")
end_epoch=$(date +%s)

awk -F, \
	-v cmd="$command_line" \
	-v date="$(date -u '+%Y-%m-%d %H:%M UTC')" \
	-v nproc="$(nproc)" -v mem="$mem_gb" -v cpu="$cpu_model" \
	-v pgver="$pg_version" -v extver="$ext_version" -v commit="$commit" \
	-v day="$day" -v days="$days" -v windows="$windows" -v check="$check" \
	-v load0="$load_start" -v load1="$(cut -d' ' -f1 /proc/loadavg)" \
	-v runtime="$(((end_epoch - start_epoch + 30) / 60))" -v plot="$plot" \
	-f "$here/report.awk" "$out/sliding-window.csv" >"$out/sliding-window.md"
if [ "$plot" -eq 1 ]; then
	step "plot: $out/sliding-window.png"
	bash "$here/plot.sh" "$out" "$command_line" >/dev/null ||
		echo "run.sh: bench/sliding_window/plot.sh failed; the CSV and the report are written" >&2
fi

step "done in $(((end_epoch - start_epoch) / 60)) min $(((end_epoch - start_epoch) % 60)) s"
exit 0
}
