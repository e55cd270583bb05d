#!/usr/bin/env bash
# bench/compact_lookups/run.sh - point lookups on compact leaves against
# btree on the same rows (issue 20), CPU only: the data stays cached.
#
# --rows int8 keys (2, 4, ..., 2N: even, so that odd keys are absent, in
# key order in the heap) go into two tables with the same rows: one with a
# btree index, one with an elastic_btree index made compact whole
# (elastic_btree_shrink).  A nested loop then looks up --lookups keys in
# random order, one index probe each, through:
#
#   index       an index scan (the query reads a non-key column)
#   index_only  an index-only scan (the table is vacuumed: all visible)
#
# for keys that are there (hit) and keys that are not (absent).  Each
# query runs --repeat times per index, interleaved (btree, elastic_btree,
# btree, ...), after a warm-up run of each; the fastest counts.  Ratio =
# btree seconds / elastic_btree seconds (1 is btree's speed, below 1 is
# slower).  Every plan is checked to be the nested loop and scan wanted,
# btree's index-only scans to make no heap fetches, and every run's result
# (the sum or count the query returns) to be the same for both indexes.
# Reported too: the keys elastic_btree read from the heap per lookup
# (heap_key_reads of elastic_index_stat_activity, over one more run).
#
# Then sizes (issue 20): per data set below, --rows rows in random order
# go into a table with btree (built by CREATE INDEX after the load, and
# grown by the same inserts) and one with elastic_btree WITH (size_bound =
# a quarter of the built btree), grown by inserts in 10 chunks so that it
# turns its leaves compact as the elastic benchmarks do; reported are the
# index sizes and the leaves that are compact:
#
#   int8_dups     int8 keys, about 15 rows a key
#   text_c_dups   30-byte text keys COLLATE "C", about 30 rows a key
#   ts_near       timestamp keys near-sorted, K = L = 5%
#                 (elastic_index_near_sorted), in arrival order
#
# Results go to docs/benchmarks/compact-lookups.{csv,md} and
# compact-sizes.csv (or --out DIR).
# The extension must be installed ("make install").
#
# Usage: bench/compact_lookups/run.sh [--rows N] [--small] [--large]
#            [--lookups L] [--repeat R]
#            [--port P] [--out DIR] [--workdir DIR] [--keep]
#
#   --rows N        rows per table (default 1000000)
#   --small         --rows 100000 --lookups 20000 --repeat 3 (a quick check
#                   of the runner; not results)
#   --large         --rows 5000000
#   --lookups L     keys looked up per query (default 200000)
#   --repeat R      timed runs per query and index (default 7)
set -euo pipefail

# One brace group: bash parses the whole script before running it.
{

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=bench/lib.sh
. "$here/../lib.sh" "$@"

rows=1000000
lookups=200000
repeat=7
port=56099

while [ $# -gt 0 ]; do
	case $1 in
	--rows) need_int "$1" "${2-}"; rows=$2; shift 2 ;;
	--small) rows=100000; lookups=20000; repeat=3; shift ;;
	--large) rows=5000000; shift ;;
	--lookups) need_int "$1" "${2-}"; lookups=$2; shift 2 ;;
	--repeat) need_int "$1" "${2-}"; repeat=$2; shift 2 ;;
	*) common_option "$@"; shift "$nshift" ;;
	esac
done
mkdir -p "$out"
out=$(cd "$out" && pwd)

cluster_setup compact_lookups
results="$work/results.csv"
# shellcheck disable=SC2317 # called by cleanup
on_failure() { save_partial compact-lookups; }

step "cluster: initdb in $work (rows=$rows, lookups=$lookups, repeat=$repeat)"
echo "shared_preload_libraries = 'elastic_index'" | cluster_initdb bench/compact_lookups/run.sh
step "cluster: start on port $port"
cluster_start
psql_b -c "CREATE EXTENSION elastic_index"
pg_version=$(psql_b -c "SELECT split_part(version(), ' on ', 1)")
ext_version=$(psql_b -c "SELECT extversion FROM pg_extension WHERE extname = 'elastic_index'")

step "data: $rows rows into t_bt (btree) and t_ei (elastic_btree, compact)"
psql_b <<SQL
CREATE TABLE t_bt (k int8, v int8) WITH (autovacuum_enabled = off);
CREATE TABLE t_ei (k int8, v int8) WITH (autovacuum_enabled = off);
INSERT INTO t_bt SELECT 2 * g, g FROM generate_series(1, $rows) AS g;
INSERT INTO t_ei SELECT 2 * g, g FROM generate_series(1, $rows) AS g;
CREATE INDEX t_bt_k ON t_bt USING btree (k);
CREATE INDEX t_ei_k ON t_ei USING elastic_btree (k);
SELECT elastic_btree_shrink('t_ei_k'::regclass) >= 0 AS shrunk \gset
SELECT setseed(0.5);
CREATE TABLE probe_hit AS
	SELECT 2 * (1 + floor(random() * $rows))::int8 AS k
	FROM generate_series(1, $lookups);
CREATE TABLE probe_absent AS
	SELECT 2 * (1 + floor(random() * $rows))::int8 - 1 AS k
	FROM generate_series(1, $lookups);
VACUUM (FREEZE, ANALYZE) t_bt, t_ei, probe_hit, probe_absent;

-- the seconds one run of query q takes, and its result: "seconds,result"
CREATE FUNCTION cl_time(q text) RETURNS text LANGUAGE plpgsql AS \$fn\$
DECLARE
	t0			timestamptz := clock_timestamp();
	r			text;
BEGIN
	EXECUTE q INTO r;
	RETURN extract(epoch FROM clock_timestamp() - t0) || ',' || coalesce(r, 'null');
END
\$fn\$;

-- the keys index idx read from the heap during one run of query q
CREATE FUNCTION cl_heap_reads(q text, idx text) RETURNS int8 LANGUAGE plpgsql AS \$fn\$
DECLARE
	before		int8;
	after		int8;
BEGIN
	SELECT heap_key_reads INTO before FROM elastic_index_stat_activity WHERE indexrelname = idx;
	EXECUTE q;
	SELECT heap_key_reads INTO after FROM elastic_index_stat_activity WHERE indexrelname = idx;
	RETURN after - before;
END
\$fn\$;
SQL
stats=$(psql_b -F, -c "SELECT leaf_pages, compact_leaf_pages FROM elastic_index_stats('t_ei_k')")
if [ "${stats%%,*}" != "${stats##*,}" ]; then
	echo "run.sh: t_ei_k is not compact whole (leaf_pages,compact_leaf_pages = $stats)" >&2
	exit 1
fi
bt_bytes=$(psql_b -c "SELECT pg_relation_size('t_bt_k')")
ei_bytes=$(psql_b -c "SELECT pg_relation_size('t_ei_k')")

# The settings that make the planner take a nested loop of index probes.
settings="SET enable_hashjoin = off; SET enable_mergejoin = off; SET enable_seqscan = off;
SET enable_bitmapscan = off; SET enable_material = off; SET enable_memoize = off;
SET max_parallel_workers_per_gather = 0;"

# The query of scan kind $1 for probes $2 on table $3.
query() {
	case $1 in
	index) echo "SELECT sum(t.v) FROM $2 p JOIN $3 t ON t.k = p.k" ;;
	index_only) echo "SELECT count(t.k) FROM $2 p JOIN $3 t ON t.k = p.k" ;;
	esac
}

# Check that the plan of scan kind $1 for probes $2 on table $3 is the
# nested loop over the scan wanted.
check_plan() {
	local plan want
	plan=$(psql_b -c "$settings" -c "EXPLAIN (COSTS OFF) $(query "$1" "$2" "$3")")
	case $1 in
	index) want="Index Scan using ${3}_k" ;;
	index_only) want="Index Only Scan using ${3}_k" ;;
	esac
	if ! grep -q "Nested Loop" <<<"$plan" || ! grep -q "$want" <<<"$plan"; then
		echo "run.sh: unexpected plan for $1 on $3:" >&2
		echo "$plan" >&2
		exit 1
	fi
	# btree's index-only scans read no heap page (all visible)
	if [ "$1" = index_only ] && [ "$3" = t_bt ]; then
		plan=$(psql_b -c "$settings" -c "EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) $(query "$1" "$2" "$3")")
		if ! grep -q "Heap Fetches: 0" <<<"$plan"; then
			echo "run.sh: btree's index-only scan fetches heap pages:" >&2
			echo "$plan" >&2
			exit 1
		fi
	fi
}

# Run query $1 once, timed, check its result against the one seen before
# for the same probes ($2, empty at first) and print "seconds,result".
timed_run() {
	local run
	run=$(psql_b -c "$settings" -c "SELECT cl_time(\$q\$$1\$q\$)")
	if [ -n "$2" ] && [ "${run#*,}" != "$2" ]; then
		echo "run.sh: $1 returned ${run#*,}, not $2 as before" >&2
		exit 1
	fi
	echo "$run"
}

echo "scan,probes,index,best_s,runs,heap_reads_per_lookup" >"$results"
for scan in index index_only; do
	for probes in hit absent; do
		for t in t_bt t_ei; do
			check_plan "$scan" "probe_$probes" "$t"
		done
		declare -A best=()
		# warm-up (whose result the others must return), then --repeat
		# interleaved rounds
		expect=""
		for t in t_bt t_ei; do
			run=$(timed_run "$(query "$scan" "probe_$probes" "$t")" "$expect")
			expect=${run#*,}
		done
		for ((r = 1; r <= repeat; r++)); do
			for t in t_bt t_ei; do
				run=$(timed_run "$(query "$scan" "probe_$probes" "$t")" "$expect")
				best[$t]=$(fastest "${best[$t]-}" "${run%%,*}")
			done
		done
		reads=$(psql_b -c "$settings" -c "SELECT cl_heap_reads(\$q\$$(query "$scan" "probe_$probes" t_ei)\$q\$, 't_ei_k')")
		per_lookup=$(awk -v r="$reads" -v n="$lookups" 'BEGIN { printf "%.3f", r / n }')
		echo "$scan,$probes,btree,${best[t_bt]},$repeat," >>"$results"
		echo "$scan,$probes,elastic_btree_compact,${best[t_ei]},$repeat,$per_lookup" >>"$results"
		step "$scan $probes: btree $(printf '%.3f' "${best[t_bt]}") s, compact $(printf '%.3f' "${best[t_ei]}") s, ratio $(awk -v a="${best[t_bt]}" -v b="${best[t_ei]}" 'BEGIN { printf "%.2f", a / b }'), result $expect, heap reads per lookup $per_lookup"
		unset best
	done
done

# ---------------------------------------------------------------------------
# Sizes
# ---------------------------------------------------------------------------

sizes="$work/sizes.csv"
echo "data,rows,btree_built_bytes,btree_grown_bytes,compact_bytes,leaf_pages,compact_leaf_pages" >"$sizes"
psql_b -c "DROP TABLE t_bt, t_ei, probe_hit, probe_absent"
for data in int8_dups text_c_dups ts_near; do
	case $data in
	int8_dups)
		type=int8
		src="SELECT g AS pos, (random() * $rows / 15)::int8 AS k FROM generate_series(1, $rows) AS g ORDER BY random()" ;;
	text_c_dups)
		type='text COLLATE "C"'
		src="SELECT g AS pos, left(md5((random() * $rows / 30)::int8::text), 30) AS k FROM generate_series(1, $rows) AS g ORDER BY random()" ;;
	ts_near)
		type=timestamp
		src="SELECT pos, timestamp '2020-01-01' + key * interval '1 second' AS k FROM elastic_index_near_sorted($rows, 5, 5)" ;;
	esac
	step "sizes: $data"
	psql_b \
		-c "DROP TABLE IF EXISTS s_src, s_bt, s_grown, s_ei" \
		-c "SELECT setseed(0.25)" \
		-c "CREATE TABLE s_src AS $src" \
		-c "CREATE TABLE s_bt (k $type) WITH (autovacuum_enabled = off)" \
		-c "INSERT INTO s_bt SELECT k FROM s_src ORDER BY pos" \
		-c "CREATE INDEX s_bt_k ON s_bt USING btree (k)"
	built=$(psql_b -c "SELECT pg_relation_size('s_bt_k')")
	bound_kb=$((built / 4096))
	psql_b \
		-c "CREATE TABLE s_grown (k $type) WITH (autovacuum_enabled = off)" \
		-c "CREATE INDEX s_grown_k ON s_grown USING btree (k)" \
		-c "CREATE TABLE s_ei (k $type) WITH (autovacuum_enabled = off)" \
		-c "CREATE INDEX s_ei_k ON s_ei USING elastic_btree (k) WITH (size_bound = '${bound_kb}kB')"
	for ((c = 0; c < 10; c++)); do
		psql_b \
			-c "INSERT INTO s_grown SELECT k FROM s_src WHERE pos % 10 = $c ORDER BY pos" \
			-c "INSERT INTO s_ei SELECT k FROM s_src WHERE pos % 10 = $c ORDER BY pos"
	done
	row=$(psql_b -F, -c "SELECT pg_relation_size('s_grown_k'), pg_relation_size('s_ei_k'), leaf_pages, compact_leaf_pages FROM elastic_index_stats('s_ei_k')")
	echo "$data,$rows,$built,$row" >>"$sizes"
	step "sizes: $data: btree built $built bytes, grown ${row%%,*}; elastic_btree (bound ${bound_kb}kB): $row"
done
cp "$sizes" "$out/compact-sizes.csv"

# ---------------------------------------------------------------------------
# Report
# ---------------------------------------------------------------------------

name=compact-lookups
step "report: $out/$name.csv, $out/$name.md"
cp "$results" "$out/$name.csv"
commit=$(repo_commit "$repo")
awk -F, -v cmd="$command_line" -v date="$(date -u '+%Y-%m-%d %H:%M UTC')" \
	-v nproc="$(nproc)" -v pgver="$pg_version" -v extver="$ext_version" \
	-v commit="$commit" -v rows="$rows" -v lookups="$lookups" -v repeat="$repeat" \
	-v btb="$bt_bytes" -v eib="$ei_bytes" -v load="$load_start" '
NR == 1 { next }
{
	key = $1 "," $2
	if (!(key in seen)) { seen[key] = 1; order[++n] = key }
	s[key, $3] = $4
	if ($3 == "elastic_btree_compact") reads[key] = $6
}
END {
	print "# Point lookups on compact leaves against btree"
	print ""
	printf "Produced by `%s` (from the repository root) on %s.\n\n", cmd, date
	printf "- %s; elastic_index %s; repository commit %s; %s CPUs, load average %s at the start.\n", pgver, extver, commit, nproc, load
	print "- Throwaway cluster: shared_buffers = 1GB, fsync = off, autovacuum = off, jit = off; all data cached (CPU only)."
	printf "- %d int8 rows (keys 2, 4, ..., in key order in the heap) in two tables: btree (%d bytes) and elastic_btree made compact whole by elastic_btree_shrink (%d bytes).\n", rows, btb, eib
	printf "- %d lookups in random order by a nested loop (hash and merge joins, bitmap scans, memoize off); hit = even keys, absent = odd keys. Fastest of %d interleaved runs per index after a warm-up run.\n", lookups, repeat
	print ""
	print "| scan | keys | btree s | compact s | ratio btree / compact | compact heap reads per lookup |"
	print "|---|---|---:|---:|---:|---:|"
	for (i = 1; i <= n; i++) {
		key = order[i]
		split(key, k, ",")
		printf "| %s | %s | %.3f | %.3f | %.2f | %s |\n", k[1], k[2], s[key, "btree"],
			s[key, "elastic_btree_compact"], s[key, "btree"] / s[key, "elastic_btree_compact"], reads[key]
	}
	print ""
	print "A ratio of 1 is btree speed; below 1 compact leaves are slower. Raw numbers are in the csv."
}' "$results" >"$out/$name.md"
awk -F, '
NR == 1 {
	print ""
	print "## Sizes: compact leaves grown by inserts under a size bound, against btree"
	print ""
	print "elastic_btree WITH (size_bound = a quarter of the built btree), grown by 10 chunks of inserts; btree built by CREATE INDEX after the load, and grown by the same inserts."
	print ""
	print "| data | rows | btree built bytes | btree grown bytes | elastic_btree bytes | compact / built btree | compact leaves |"
	print "|---|---:|---:|---:|---:|---:|---|"
	next
}
{ printf "| %s | %d | %d | %d | %d | %.2f | %d of %d |\n", $1, $2, $3, $4, $5, $5 / $3, $7, $6 }
' "$sizes" >>"$out/$name.md"

step "done in $((($(date +%s) - start_epoch) / 60)) min $((($(date +%s) - start_epoch) % 60)) s"
exit 0
}
