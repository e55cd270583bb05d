#!/usr/bin/env bash
# bench/serializable/run.sh - serialization failures under SERIALIZABLE,
# against btree's in the same run.
#
# An index that takes only relation-level predicate locks makes every pair
# of concurrent serializable transactions that read and write through it
# conflict; with page-level locks (ampredlocks, as btree has) only those
# that write into a leaf the other read.  Here --clients pgbench clients run
# one mix in SERIALIZABLE against a table per index kind (btree,
# elastic_btree, osm_tree), each with one index on k, the same rows:
#
#   read a short range (10 keys) and one key through the index, update one
#   row's value (not indexed: a HOT update) and insert one row with a new
#   random key, in one transaction; keys uniform over the table.
#
# pgbench runs with --max-tries=1 (no retries), so every serialization
# failure is counted once: failure rate = failures / (committed + failed).
# The report gives each kind's rate and its ratio to btree's rate in the
# same round (the target is at most 1.2x), and the tps.  Rounds are
# interleaved: each round rebuilds every table from the same rows and runs
# every kind once, so a slow spell of the machine costs every kind a run;
# the best (lowest) rate of --repeat rounds counts, the mean is shown too.
# fsync is on (the cluster's commits are real).
#
# The default table is small (20000 rows, growing to about 150000 by the
# inserts of one run) so that enough transactions fail to compare: about
# 0.5% of btree's, some 700 per run, where a count's own noise is under 4%.
# With 200000 rows about 30 fail per run and rates of the same kind differ
# by 20% from run to run, more than the target allows.
#
# Results: docs/benchmarks/serializable.csv and serializable.md, or --out
# DIR.  The extension must be installed.
#
# Usage: bench/serializable/run.sh [--rows N] [--secs S] [--clients C]
#            [--repeat R] [--small] [--large] [--port P] [--out DIR]
#            [--workdir DIR] [--keep]
#
#   --rows N        rows per table (default 20000)
#   --secs S        seconds per kind and round (default 30)
#   --clients C     pgbench clients (default 8)
#   --repeat R      rounds; the lowest failure rate counts (default 3)
#   --small         --secs 5 --repeat 2 (a try, not a result)
#   --large         --rows 200000 --secs 60
#   --port P        port of the throwaway cluster (default 56097)
set -euo pipefail

# One brace group: bash parses the whole script before running it.
{

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=bench/lib.sh
. "$here/../lib.sh" "$@"

kinds="btree elastic_btree osm_tree"
rows=20000
secs=30
clients=8
repeat=3
port=56097

while [ $# -gt 0 ]; do
	case $1 in
	--rows) need_int "$1" "${2-}"; rows=$2; shift 2 ;;
	--secs) need_int "$1" "${2-}"; secs=$2; shift 2 ;;
	--clients) need_int "$1" "${2-}"; clients=$2; shift 2 ;;
	--repeat) need_int "$1" "${2-}"; repeat=$2; shift 2 ;;
	--small) secs=5; repeat=2; shift ;;
	--large) rows=200000; secs=60; shift ;;
	*) common_option "$@"; shift "$nshift" ;;
	esac
done
mkdir -p "$out"
out=$(cd "$out" && pwd)

cluster_setup elastic_serializable
results="$work/results.csv"
# shellcheck disable=SC2317 # called by cleanup
on_failure() { save_partial serializable; }

step "cluster: initdb in $work (rows=$rows, secs=$secs, clients=$clients, repeat=$repeat)"
{
	echo "shared_preload_libraries = 'elastic_index'"
	# commits are real: failure rates depend on how long transactions overlap
	echo "fsync = on"
	echo "max_connections = $((clients + 20))"
	# room for every client's page locks, so none is promoted to a relation lock
	echo "max_pred_locks_per_transaction = 256"
} | cluster_initdb bench/serializable/run.sh
step "cluster: start on port $port"
cluster_start
psql_b -c "CREATE EXTENSION elastic_index"
pg_version=$(psql_b -c "SELECT split_part(version(), ' on ', 1)")
ext_version=$(psql_b -c "SELECT extversion FROM pg_extension WHERE extname = 'elastic_index'")

# the rows: keys 10, 20, ... in a scattered order; inserts add keys between
psql_b -c "CREATE TABLE src AS SELECT (((g::int8 * 2654435761) % $rows) + 1) * 10 AS k, 0::int8 AS v
	FROM generate_series(0, $rows - 1) AS g"

# (Re)create table t_$1 with its index, from src.
make_table() {
	psql_b -c "DROP TABLE IF EXISTS t_$1" \
		-c "CREATE TABLE t_$1 (k int8, v int8) WITH (fillfactor = 90, autovacuum_enabled = off)" \
		-c "INSERT INTO t_$1 SELECT k, v FROM src" \
		-c "CREATE INDEX t_$1_k ON t_$1 USING $1 (k)" \
		-c "VACUUM ANALYZE t_$1" \
		-c "CHECKPOINT"
}

# The pgbench script for table t_$1, written to $work/mix_$1.sql.
write_script() {
	local f="$work/mix_$1.sql"
	cat >"$f" <<EOF
\\set a random(1, :n) * 10
\\set b random(1, :n) * 10
\\set c random(1, :n) * 10
\\set d random(1, :n) * 10 + random(1, 9)
BEGIN;
SELECT sum(v) FROM t_$1 WHERE k BETWEEN :a AND :a + 100;
SELECT v FROM t_$1 WHERE k = :b;
UPDATE t_$1 SET v = v + 1 WHERE k = :c;
INSERT INTO t_$1 VALUES (:d, 0);
END;
EOF
	[ "$(id -u)" -ne 0 ] || chown postgres: "$f"
	echo "$f"
}

echo "round,kind,committed,failures,rate_pct,tps" >"$results"
for ((r = 1; r <= repeat; r++)); do
	for kind in $kinds; do
		make_table "$kind"
		script=$(write_script "$kind")
		# index scans only: a sequential scan would lock the whole table
		report=$(as_pg env PGOPTIONS="-c default_transaction_isolation=serializable -c enable_seqscan=off -c enable_bitmapscan=off" \
			"$PG_BINDIR/pgbench" -n -h "$sock" -p "$port" -U "$dbuser" \
			-c "$clients" -j "$clients" -T "$secs" -D n="$rows" \
			--max-tries=1 --failures-detailed -f "$script" bench 2>&1) || {
			echo "$report" >&2
			exit 1
		}
		committed=$(echo "$report" | awk '/^number of transactions actually processed:/ { print $6 }')
		failures=$(echo "$report" | awk '/^number of serialization failures:/ { print $5 }')
		tps=$(echo "$report" | awk '/^tps = / { printf "%.1f", $3 }')
		if [ -z "$committed" ] || [ -z "$failures" ]; then
			echo "$report" >&2
			echo "run.sh: could not read pgbench's counts" >&2
			exit 1
		fi
		rate=$(awk -v c="$committed" -v f="$failures" 'BEGIN { printf "%.3f", ((c + f) > 0 ? 100 * f / (c + f) : 0) }')
		echo "$r,$kind,$committed,$failures,$rate,$tps" >>"$results"
		step "round $r $kind: $committed committed, $failures serialization failures ($rate%), $tps tps"
	done
done

# ---------------------------------------------------------------------------
# Report
# ---------------------------------------------------------------------------

step "report: $out/serializable.csv, $out/serializable.md"
cp "$results" "$out/serializable.csv"
commit=$(repo_commit "$repo")
awk -F, -v cmd="$command_line" -v date="$(date -u '+%Y-%m-%d %H:%M UTC')" \
	-v nproc="$(nproc)" -v pgver="$pg_version" -v extver="$ext_version" \
	-v commit="$commit" -v rows="$rows" -v secs="$secs" -v clients="$clients" \
	-v repeat="$repeat" -v kinds="$kinds" '
NR == 1 { next }
{
	k = $2
	n[k]++
	sum[k] += $5
	if (!(k in best) || $5 + 0 < best[k] + 0) best[k] = $5
	if (!(k in tps) || $6 + 0 > tps[k] + 0) tps[k] = $6
	rate[$1, k] = $5
	if ($1 + 0 > rounds) rounds = $1 + 0
}
function ratio(a, b) { return b > 0 ? sprintf("%.2f", a / b) : "-" }
END {
	print "# Serialization failures under SERIALIZABLE"
	print ""
	printf "Produced by `%s` (from the repository root) on %s.\n\n", cmd, date
	printf "- %s; elastic_index %s; repository commit %s; %s CPUs.\n", pgver, extver, commit, nproc
	print "- Throwaway cluster: shared_buffers = 1GB, **fsync = on**, autovacuum = off, jit = off, max_pred_locks_per_transaction = 256."
	printf "- %d rows per table (int8 keys 10, 20, ..., one index on k); %d pgbench clients for %d s per kind and round, `default_transaction_isolation = serializable`, index scans only, `--max-tries=1`. Each transaction: a 10-key range read, a point read, an update of one row (HOT), an insert of a new key; keys uniform. %d rounds, interleaved, each rebuilding every table from the same rows.\n", rows, clients, secs, repeat
	print ""
	print "| kind | failure rate % (best) | ratio to btree | failure rate % (mean) | ratio to btree | tps (best) |"
	print "|---|---:|---:|---:|---:|---:|"
	nk = split(kinds, kl, " ")
	for (i = 1; i <= nk; i++) {
		k = kl[i]
		if (!(k in n)) continue
		m = sum[k] / n[k]
		mb = sum["btree"] / n["btree"]
		printf "| %s | %.3f | %s | %.3f | %s | %.1f |\n", k, best[k], ratio(best[k], best["btree"]), m, ratio(m, mb), tps[k]
	}
	print ""
	print "Per round (failure rate %, ratio to btree in the same round):"
	print ""
	head = "| round |"
	rule = "|---|"
	for (i = 1; i <= nk; i++) {
		head = head " " kl[i] " |"
		rule = rule "---:|"
	}
	print head
	print rule
	for (r = 1; r <= rounds; r++) {
		line = "| " r " |"
		for (i = 1; i <= nk; i++)
			line = line " " rate[r, kl[i]] " (" ratio(rate[r, kl[i]], rate[r, "btree"]) ") |"
		print line
	}
	print ""
	print "A ratio above 1 means more failures than btree. Raw numbers are in serializable.csv."
}' "$results" >"$out/serializable.md"

step "done in $((($(date +%s) - start_epoch) / 60)) min $((($(date +%s) - start_epoch) % 60)) s"
exit 0
}
