#!/usr/bin/env bash
# bench/memory_budget/run.sh - point lookups when the server has less memory
# than the data: elastic_btree with compact leaves against btree, built and
# grown, on the same rows, under four memory budgets (the elastic paper's
# point: a smaller index keeps more of what lookups read in memory).
#
# Four tables get the same --rows rows (k int8 = 2, 4, ..., 2N: an odd key
# is absent; v int8), inserted in one scattered order, so that their heaps
# are alike:
#
#   built    a btree index created after the rows were loaded (CREATE INDEX)
#   grown    a btree index that took the rows one insert at a time
#   compact  an elastic_btree index WITH (size_bound = '1MB') that took the
#            rows one insert at a time: every leaf that fills becomes compact
#   cbuilt   an elastic_btree index WITH (size_bound = '1MB') created after
#            the rows were loaded (CREATE INDEX): the build forms compact
#            leaves when the index would not fit its bound (a build that
#            writes standard leaves only shows as 0 compact leaves in the
#            report); its like-for-like pair is built
#
# The budgets, each a memory limit on a cgroup that holds the server (its
# shared memory, its processes and the file pages they read; shared_buffers
# is a quarter of the budget), are chosen from the sizes measured after the
# load so that the file pages the kernel can keep (the budget less
# shared_buffers and the processes' own memory) are:
#
#   all      the heap and every index, plus 64 MB: everything fits
#   table    halfway between heap + compact index and heap + built btree:
#            the table with the compact index fits, with no btree it does
#            not
#   index    halfway between the compact index and the built btree: the
#            compact index fits with room to spare for heap pages, no
#            btree does, the heap does not
#   none     half the compact index: no index fits
#
# where "the compact index" is the larger of compact's and cbuilt's (so
# that under table and index every compact index fits and no btree does)
# and "every index" is the larger btree (built or grown) and the larger
# compact index.

# (No budget is set below 48 MB: the server may not start in less.)
#
# For each budget, round and table (the tables interleaved), the server is
# restarted in the cgroup with that limit after the kernel's page cache was
# dropped; the table's heap and then its index are read once by a process
# in the cgroup, and then, for each key choice (uniform over all keys;
# zipfian, random_zipfian(0, N-1, 1.1) through permute() so that hot keys
# lie scattered), pgbench runs present-key lookups for --warm seconds to
# settle the cache, then measures for --secs seconds each, one client,
# sequential and bitmap scans, hash and merge joins off:
#
#   present  SELECT v FROM t WHERE k = :k   (a key in the table)
#   absent   the same with an odd key (in no table)
#   range    sum(v) over k BETWEEN :k AND :k + 198 (100 rows)
#   join     100 present keys, uniform, looked up in one statement by a
#            nested-loop join (SELECT sum(v) FROM generate_series(1, 100) g
#            JOIN t ON k = f(g)): the lookups without a statement's fixed
#            cost per key (parse-free prepared execution, the client round
#            trip), as a lookup join or an IN list pays them; the report
#            counts its lookups, 100 a statement
#
# and reports per query: transactions per second (tps), shared-buffer
# misses per query (index and heap pages from pg_statio, which may come
# from the kernel's cache) and disk reads per query (read requests the
# device under the work directory completed, /proc/diskstats: the whole
# machine's reads, so run it on a quiet machine; the CSV also has the bytes
# read, which the kernel's readahead inflates).  The best
# round counts (highest tps; its reads); ratios are compact / built,
# compact / grown and cbuilt / built (both built by CREATE INDEX) in the
# same run.
#
# Needs root (the cgroup, dropping the page cache) and the cgroup v1 memory
# controller (/sys/fs/cgroup/memory) or cgroup v2 with the memory controller
# (memory.max).  Results: docs/benchmarks/memory-budget.csv and
# memory-budget.md, and memory-budget.png drawn by
# bench/memory_budget/plot.sh when gnuplot is installed; or --out DIR.  The
# extension must be installed ("make install"); PG_BINDIR (default Debian's
# 15) chooses the server.
#
# Usage: bench/memory_budget/run.sh [--rows N] [--small | --large]
#            [--secs S] [--warm S] [--rounds R] [--overhead MB]
#            [--budgets "ALL TABLE INDEX NONE"]
#            [--port P] [--out DIR] [--workdir DIR] [--keep]
#
#   --rows N       rows per table (default 10000000, the size issue 20 asks
#                  for: about 30 minutes on 2 cores)
#   --small        --rows 1000000 --secs 3 --warm 3 --rounds 1 (a quick
#                  try; do not commit its figures)
#   --large        --rows 30000000
#   --secs S       seconds per measured pgbench run (default 5)
#   --warm S       seconds of present-key lookups before them (default 10)
#   --rounds R     rounds per budget, tables interleaved; the best counts
#                  (default 2)
#   --overhead MB  the server processes' own memory in every budget
#                  (default: measured, the anonymous memory the cgroup
#                  holds during lookups on a 1 GB budget, plus 8 MB)
#   --budgets "A T I N"  the four budgets in MB instead of the computed ones
set -euo pipefail

# One brace group: bash parses the whole script before running it.
{

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=bench/lib.sh
. "$here/../lib.sh" "$@"

rows=10000000
secs=5
warm=10
rounds=2
overhead=""
budgets=""
port=56140

while [ $# -gt 0 ]; do
	case $1 in
	--rows) need_int "$1" "${2-}"; rows=$2; shift 2 ;;
	--small) rows=1000000; secs=3; warm=3; rounds=1; shift ;;
	--large) rows=30000000; shift ;;
	--secs) need_int "$1" "${2-}"; secs=$2; shift 2 ;;
	--warm) need_int "$1" "${2-}"; warm=$2; shift 2 ;;
	--rounds) need_int "$1" "${2-}"; rounds=$2; shift 2 ;;
	--overhead) need_int "$1" "${2-}"; overhead=$2; shift 2 ;;
	--budgets) budgets=${2:?--budgets needs four sizes in MB}; shift 2 ;;
	*) common_option "$@"; shift "$nshift" ;;
	esac
done
if [ -n "$budgets" ] && ! [[ $budgets =~ ^[1-9][0-9]*\ [1-9][0-9]*\ [1-9][0-9]*\ [1-9][0-9]*$ ]]; then
	echo "run.sh: --budgets takes four sizes in MB, got '$budgets'" >&2
	exit 2
fi
if [ "$(id -u)" -ne 0 ]; then
	echo "run.sh: needs root (a memory cgroup for the server, dropping the page cache)" >&2
	exit 1
fi
cgname="elastic_index_memory_budget_$port"
if [ -f /sys/fs/cgroup/memory/memory.limit_in_bytes ] || [ -d /sys/fs/cgroup/memory ]; then
	cgroup=/sys/fs/cgroup/memory/$cgname
	limit_file=memory.limit_in_bytes
elif grep -qw memory /sys/fs/cgroup/cgroup.controllers 2>/dev/null; then
	cgroup=/sys/fs/cgroup/$cgname
	limit_file=memory.max
	grep -qw memory /sys/fs/cgroup/cgroup.subtree_control ||
		echo +memory >/sys/fs/cgroup/cgroup.subtree_control
else
	echo "run.sh: no memory cgroup controller (/sys/fs/cgroup/memory or cgroup v2 memory)" >&2
	exit 1
fi
mkdir -p "$out"
out=$(cd "$out" && pwd)

# shellcheck disable=SC2317 # called by cleanup
on_failure() {
	save_partial memory-budget
}

cluster_setup elastic_memory_budget
results="$work/results.csv"
mkdir -p "$cgroup"
# the cgroup goes once the server is stopped (cleanup stops it first)
# shellcheck disable=SC2317 # called by the EXIT trap
cleanup_cgroup() {
	local rc=$?
	as_pg "$PG_BINDIR/pg_ctl" -D "$data" -m immediate -w stop >/dev/null 2>&1 || true
	server_started=0
	rmdir "$cgroup" 2>/dev/null || true
	return $rc
}
trap 'cleanup_cgroup; cleanup' EXIT

# the block device under the work directory, for /proc/diskstats
device=$(basename "$(df --output=source "$work" | tail -n 1)")
grep -qw "$device" /proc/diskstats || device=""

step "cluster: initdb in $work (rows=$rows, secs=$secs, warm=$warm, rounds=$rounds, device=${device:-unknown})"
cluster_initdb bench/memory_budget/run.sh <<EOF
shared_preload_libraries = 'elastic_index'
shared_buffers = 1GB
fsync = on
synchronous_commit = on
EOF
step "cluster: start on port $port (no limit, for the load)"
cluster_start

pg_version=$(psql_b -c "SELECT split_part(version(), ' on ', 1)")
psql_b -c "CREATE EXTENSION elastic_index"
ext_version=$(psql_b -c "SELECT extversion FROM pg_extension WHERE extname = 'elastic_index'")

step "load: $rows rows into built, grown, compact and cbuilt"
psql_b <<EOF
CREATE TABLE src AS SELECT 2 * i AS k, i AS v FROM generate_series(1, $rows) i ORDER BY hashint8(i);
CREATE TABLE t_built (k int8, v int8);
CREATE TABLE t_grown (k int8, v int8);
CREATE TABLE t_compact (k int8, v int8);
CREATE TABLE t_cbuilt (k int8, v int8);
CREATE INDEX t_grown_k ON t_grown USING btree (k);
CREATE INDEX t_compact_k ON t_compact USING elastic_btree (k) WITH (size_bound = '1MB');
INSERT INTO t_built SELECT k, v FROM src;
CREATE INDEX t_built_k ON t_built USING btree (k);
EOF
step "load: grown"
psql_b -c "INSERT INTO t_grown SELECT k, v FROM src"
step "load: compact"
psql_b -c "INSERT INTO t_compact SELECT k, v FROM src"
step "load: cbuilt"
psql_b <<EOF
INSERT INTO t_cbuilt SELECT k, v FROM src;
CREATE INDEX t_cbuilt_k ON t_cbuilt USING elastic_btree (k) WITH (size_bound = '1MB');
EOF
psql_b -c "DROP TABLE src" -c "VACUUM ANALYZE t_built, t_grown, t_compact, t_cbuilt" -c "CHECKPOINT"

tables="built grown compact cbuilt"
declare -A heap_mb index_mb files
for t in $tables; do
	read -r h i hf if < <(psql_b -F ' ' -c "SELECT pg_relation_size('t_$t') / 1048576.0, pg_relation_size('t_${t}_k') / 1048576.0, pg_relation_filepath('t_$t'), pg_relation_filepath('t_${t}_k')")
	heap_mb[$t]=$(printf '%.1f' "$h")
	index_mb[$t]=$(printf '%.1f' "$i")
	files[$t]="$hf $if"
done
declare -A leaves
for t in compact cbuilt; do
	leaves[$t]=$(psql_b -c "SELECT compact_leaf_pages || ' of ' || leaf_pages FROM elastic_index_stats('t_${t}_k')")
done
step "sizes MB: heap ${heap_mb[built]}, built ${index_mb[built]}, grown ${index_mb[grown]}, compact ${index_mb[compact]} (${leaves[compact]} leaves compact), cbuilt ${index_mb[cbuilt]} (${leaves[cbuilt]} leaves compact)"

# The pgbench script of key choice $1 (uniform, zipfian), query $2, table $3.
pgbench_script() {
	case $1 in
	uniform) echo "\\set r random(0, $rows - 1)" ;;
	zipfian) echo "\\set r permute(random_zipfian(0, $rows - 1, 1.1), $rows)" ;;
	esac
	case $2 in
	present) echo "\\set k 2 * :r + 2" ;;
	absent) echo "\\set k 2 * :r + 1" ;;
	range) echo "\\set k 2 * :r + 2" ;;
	join) echo "\\set s random(0, 1000000000)" ;;
	esac
	case $2 in
	present | absent) echo "SELECT v FROM t_$3 WHERE k = :k;" ;;
	range) echo "SELECT sum(v) FROM t_$3 WHERE k BETWEEN :k AND :k + 198;" ;;
	join) echo "SELECT sum(v) FROM generate_series(1, 100) g JOIN t_$3 ON k = 2 * ((hashint8(g + :s) & 2147483647) % $rows) + 2;" ;;
	esac
}

# The queries run with key choice $1: join's keys are uniform only (they
# are computed in the statement, where pgbench's zipfian choice is not).
queries_of() {
	case $1 in
	uniform) echo "present absent range join" ;;
	zipfian) echo "present absent range" ;;
	esac
}
for dist in uniform zipfian; do
	for q in $(queries_of "$dist"); do
		for t in $tables; do
			pgbench_script "$dist" "$q" "$t" >"$work/$dist-$q-$t.sql"
		done
	done
done
[ "$(id -u)" -ne 0 ] || chown postgres: "$work"/*.sql

# Restart the server in the cgroup with a limit of $1 MB.
restart_limited() {
	local mb=$1 sb=$(($1 / 4))
	[ "$sb" -ge 4 ] || sb=4
	as_pg "$PG_BINDIR/pg_ctl" -D "$data" -m fast -w stop >/dev/null
	server_started=0
	echo "shared_buffers = '${sb}MB'" >"$data/budget.conf"
	grep -q "include_if_exists = 'budget.conf'" "$data/postgresql.conf" ||
		echo "include_if_exists = 'budget.conf'" >>"$data/postgresql.conf"
	sync
	echo 3 >/proc/sys/vm/drop_caches
	# the old limit may be below what the cgroup still holds: raise it first
	echo -1 >"$cgroup/$limit_file" 2>/dev/null || echo max >"$cgroup/$limit_file"
	echo $((mb * 1048576)) >"$cgroup/$limit_file"
	sh -c "echo \$\$ >$cgroup/cgroup.procs && exec runuser -u postgres -- $PG_BINDIR/pg_ctl -D $data -l $work/server.log -w -t 120 start" >/dev/null
	server_started=1
}

# Read the files of table $1 (heap, then index) once from a process in the
# cgroup, so that the page cache starts with them as far as they fit.
read_in_cgroup() {
	local f
	for f in ${files[$1]}; do
		sh -c "echo \$\$ >$cgroup/cgroup.procs && cat $data/$f $data/$f.[0-9]* >/dev/null 2>&1 || true"
	done
}

# Read requests completed and sectors read by the device so far (nothing
# when it is unknown).
disk_reads() {
	[ -n "$device" ] || return 0
	awk -v d="$device" '$3 == d { print $4, $6 }' /proc/diskstats
}

# Shared-buffer misses of table $1 and its index so far.
misses() {
	psql_b -c "SELECT pg_stat_clear_snapshot()" -c "SELECT coalesce(heap_blks_read, 0) + coalesce(idx_blks_read, 0) FROM pg_statio_user_tables WHERE relname = 't_$1'"
}

# One pgbench run of script $1 on table $2 for $3 seconds: prints tps and
# the transactions.
run_pgbench() {
	local log
	log=$(PGOPTIONS="-c enable_seqscan=off -c enable_bitmapscan=off -c enable_hashjoin=off -c enable_mergejoin=off" as_pg "$PG_BINDIR/pgbench" -n -M prepared \
		-h "$sock" -p "$port" -U "$dbuser" -c 1 -T "$3" -f "$work/$1-$2.sql" bench 2>&1) || {
		echo "$log" >&2
		return 1
	}
	awk '/^number of transactions actually processed/ { n = $NF } /^tps = / { t = $3 } END { print t, n }' <<<"$log"
}

# The cgroup's anonymous memory in MB (its processes' own memory).
cgroup_anon_mb() {
	awk '$1 == "rss" || $1 == "anon" { print int($2 / 1048576 + 0.5) }' "$cgroup/memory.stat"
}

declare -A budget_mb
if [ -z "$budgets" ] && [ -z "$overhead" ]; then
	restart_limited 1024
	run_pgbench uniform-present built 3 >/dev/null &
	sleep 2.5
	overhead=$(($(cgroup_anon_mb) + 8))
	wait $!
	step "overhead: ${overhead} MB (anonymous memory during lookups, plus 8 MB)"
fi
if [ -z "$budgets" ]; then
	budgets=$(awk -v h="${heap_mb[built]}" -v b="${index_mb[built]}" \
		-v g="${index_mb[grown]}" -v c1="${index_mb[compact]}" -v c2="${index_mb[cbuilt]}" -v o="$overhead" 'BEGIN {
		big = (b > g) ? b : g
		# the larger compact index, so that every compact index fits
		c = (c1 > c2) ? c1 : c2
		# shared_buffers takes a quarter, the processes o: the kernel keeps
		# 3/4 x budget - o of file pages
		printf "%d %d %d %d\n", (h + big + c + 64 + o) * 4 / 3, (h + (c + b) / 2 + o) * 4 / 3,
			((c + b) / 2 + o) * 4 / 3, (c / 2 + o) * 4 / 3 }')
fi
read -r budget_mb[all] budget_mb[table] budget_mb[index] budget_mb[none] <<<"$budgets"
if awk -v b="${index_mb[built]}" -v c1="${index_mb[compact]}" -v c2="${index_mb[cbuilt]}" 'BEGIN { exit !(c1 >= b || c2 >= b) }'; then
	step "warning: a compact index (compact ${index_mb[compact]} MB, cbuilt ${index_mb[cbuilt]} MB) is not smaller than the built btree (${index_mb[built]} MB): the budgets table and index do not separate them"
fi
# below about 48 MB the server itself may not start in the cgroup
for budget in all table index none; do
	[ "${budget_mb[$budget]}" -ge 48 ] || budget_mb[$budget]=48
done
step "budgets MB: all ${budget_mb[all]}, table ${budget_mb[table]}, index ${budget_mb[index]}, none ${budget_mb[none]}"

echo "budget,budget_mb,round,table,dist,query,tps,queries,buffer_misses,disk_reads,disk_sectors" >"$results"
for budget in all table index none; do
	mb=${budget_mb[$budget]}
	for ((r = 1; r <= rounds; r++)); do
		for t in $tables; do
			restart_limited "$mb"
			read_in_cgroup "$t"
			for dist in uniform zipfian; do
				run_pgbench "$dist-present" "$t" "$warm" >/dev/null
				for q in $(queries_of "$dist"); do
					m0=$(misses "$t")
					read -r r0 s0 < <(disk_reads; echo)
					read -r tps n < <(run_pgbench "$dist-$q" "$t" "$secs")
					sleep 0.5
					read -r r1 s1 < <(disk_reads; echo)
					m1=$(misses "$t")
					reads="" sect=""
					[ -z "$r0" ] || { reads=$((r1 - r0)); sect=$((s1 - s0)); }
					echo "$budget,$mb,$r,$t,$dist,$q,$tps,$n,$((m1 - m0)),$reads,$sect" >>"$results"
					step "$budget ${mb}MB round $r $t $dist $q: tps $tps, misses/q $(awk -v a=$((m1 - m0)) -v n="$n" 'BEGIN { printf "%.2f", a / n }'), disk reads/q $(awk -v a="$reads" -v n="$n" 'BEGIN { if (a == "") print "?"; else printf "%.2f", a / n }')"
				done
			done
		done
	done
done

cp "$results" "$out/memory-budget.csv"
awk -F, -v cmd="$command_line" -v pgver="$pg_version" -v extver="$ext_version" \
	-v rows="$rows" -v secs="$secs" -v warm="$warm" -v rounds="$rounds" -v overhead="$overhead" \
	-v heap="${heap_mb[built]}" -v sbuilt="${index_mb[built]}" -v sgrown="${index_mb[grown]}" \
	-v scompact="${index_mb[compact]}" -v cleaves="${leaves[compact]}" \
	-v scbuilt="${index_mb[cbuilt]}" -v cbleaves="${leaves[cbuilt]}" -v device="${device:-unknown}" \
	-v nproc="$(nproc)" -v date="$(date -u '+%Y-%m-%d %H:%M UTC')" -v commit="$(repo_commit "$repo")" \
	-f "$here/report.awk" "$results" >"$out/memory-budget.md"
step "report: $out/memory-budget.csv, $out/memory-budget.md"
if command -v gnuplot >/dev/null; then
	step "plot: $out/memory-budget.png"
	bash "$here/plot.sh" "$out" "$command_line" >/dev/null ||
		echo "run.sh: bench/memory_budget/plot.sh failed; the CSV and the report are written" >&2
	printf '\n![memory-budget.png: tps and disk reads per query of compact and cbuilt against the built and the grown btree, per budget](memory-budget.png)\n\nDrawn from memory-budget.csv by `bench/memory_budget/plot.sh` (`bench/memory_budget/plot.sh DIR` redraws it).\n' >>"$out/memory-budget.md"
fi
step "done in $((($(date +%s) - start_epoch) / 60)) min $((($(date +%s) - start_epoch) % 60)) s"
exit 0
}
