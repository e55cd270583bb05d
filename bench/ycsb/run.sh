#!/usr/bin/env bash
# bench/ycsb/run.sh - YCSB-style workloads against each index kind.
#
# One table per index kind gets the same rows (usertable: an int8 key and a
# 100-byte field, keys 1..N loaded in a scattered order, as YCSB loads
# them), each with one index on the key; then every workload runs for
# --secs seconds per table, one table after the other, with --clients
# pgbench clients and zipfian key choice (random_zipfian(1, N, 1.01); YCSB uses
# 0.99, but pgbench since PostgreSQL 13 accepts only 1.001 to 1000):
#
#   A  50% reads, 50% updates of the field
#   B  95% reads, 5% updates
#   C  100% reads
#   E  95% short range scans (ORDER BY key LIMIT 1..100), 5% inserts of new keys
#   F  read-modify-write: read a row and update it in one transaction
#
# Index kinds are listed once, in $kinds below (an access method the
# server does not have is skipped with a note).  The report gives tps per kind and the ratio to btree's
# tps in the same run.  Results: docs/benchmarks/ycsb.csv, ycsb.md and
# ycsb.png (when gnuplot is installed), or --out DIR.  The extension must
# be installed.
#
# Usage: bench/ycsb/run.sh [--rows N] [--secs S] [--clients C] [--large]
#            [--workloads "A B C E F"] [--port P] [--out DIR] [--workdir DIR]
#            [--keep]
#
#   --rows N       rows loaded (default 1000000)
#   --secs S       seconds per workload and index kind (default 10)
#   --clients C    pgbench clients (default 2)
#   --large        --rows 10000000 --secs 30
#   --port P       port of the throwaway cluster (default 56095)
set -euo pipefail

# One brace group: bash parses the whole script before running it.
{

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=bench/lib.sh
. "$here/../lib.sh" "$@"

# the index kinds compared: name and CREATE INDEX method
kinds="btree brin elastic_btree osm_tree"

rows=1000000
secs=10
clients=2
workloads="A B C E F"
port=56095
out="$repo/docs/benchmarks"
workbase=${TMPDIR:-/tmp}
keep=0

while [ $# -gt 0 ]; do
	case $1 in
	--rows) need_int "$1" "${2-}"; rows=$2; shift 2 ;;
	--secs) need_int "$1" "${2-}"; secs=$2; shift 2 ;;
	--clients) need_int "$1" "${2-}"; clients=$2; shift 2 ;;
	--large) rows=10000000; secs=30; shift ;;
	--workloads) workloads=${2:?--workloads needs a list}; shift 2 ;;
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
for w in $workloads; do
	case $w in
	A | B | C | E | F) ;;
	*) echo "run.sh: unknown workload $w (A, B, C, E, F)" >&2; exit 2 ;;
	esac
done

cluster_setup elastic_ycsb
results="$work/results.csv"
# shellcheck disable=SC2317 # called by cleanup
on_failure() { save_partial ycsb; }

step "cluster: initdb in $work (rows=$rows, secs=$secs, clients=$clients)"
echo "shared_preload_libraries = 'elastic_index'" | cluster_initdb bench/ycsb/run.sh
step "cluster: start on port $port"
cluster_start
psql_b -c "CREATE EXTENSION elastic_index"
pg_version=$(psql_b -c "SELECT split_part(version(), ' on ', 1)")
ext_version=$(psql_b -c "SELECT extversion FROM pg_extension WHERE extname = 'elastic_index'")
present=""
for kind in $kinds; do
	if [ "$(psql_b -c "SELECT count(*) FROM pg_am WHERE amname = '$kind'")" = 1 ]; then
		present+="${present:+ }$kind"
	else
		step "skipping $kind: no such access method in this server"
	fi
done
kinds=$present

# the rows, in a scattered order (key = position * 2654435761 mod N, + 1,
# a permutation of 1..N when N has no factor in common with that prime)
step "load: $rows rows into one table per index kind ($kinds)"
psql_b -c "CREATE TABLE src AS SELECT ((g::int8 * 2654435761) % $rows) + 1 AS ycsb_key,
	repeat(md5(g::text), 4)::char(100)::text AS field0
	FROM generate_series(0, $rows - 1) AS g"
for kind in $kinds; do
	t0=$(now)
	psql_b -c "CREATE TABLE t_$kind (ycsb_key int8, field0 text) WITH (fillfactor = 90)" \
		-c "CREATE INDEX t_${kind}_key ON t_$kind USING $kind (ycsb_key)" \
		-c "INSERT INTO t_$kind SELECT * FROM src" \
		-c "CREATE SEQUENCE t_${kind}_next START $((rows + 1))"
	t1=$(now)
	psql_b -c "VACUUM ANALYZE t_$kind"
	step "load: t_$kind in $(elapsed "$t0" "$t1") s, index $(psql_b -c "SELECT pg_size_pretty(pg_relation_size('t_${kind}_key'))")"
done
psql_b -c "DROP TABLE src"

# pgbench scripts of workload $1 for table t_$2, written to $work/$1_$2_*.sql;
# prints the pgbench -f arguments (with weights)
scripts() {
	local w=$1 t=t_$2 f="$work/$1_$2"
	local pick='\set k random_zipfian(1, :n, 1.01)'
	printf '%s\n' "$pick" "SELECT field0 FROM $t WHERE ycsb_key = :k;" >"${f}_read.sql"
	printf '%s\n' "$pick" "UPDATE $t SET field0 = md5(random()::text) WHERE ycsb_key = :k;" >"${f}_update.sql"
	printf '%s\n' "$pick" '\set len random(1, 100)' \
		"SELECT field0 FROM $t WHERE ycsb_key >= :k ORDER BY ycsb_key LIMIT :len;" >"${f}_scan.sql"
	printf '%s\n' "INSERT INTO $t SELECT nextval('${t}_next'), md5(random()::text);" >"${f}_insert.sql"
	printf '%s\n' "$pick" 'BEGIN;' "SELECT field0 FROM $t WHERE ycsb_key = :k;" \
		"UPDATE $t SET field0 = md5(random()::text) WHERE ycsb_key = :k;" 'END;' >"${f}_rmw.sql"
	[ "$(id -u)" -ne 0 ] || chown postgres: "$f"_*.sql
	case $w in
	A) echo "-f ${f}_read.sql@50 -f ${f}_update.sql@50" ;;
	B) echo "-f ${f}_read.sql@95 -f ${f}_update.sql@5" ;;
	C) echo "-f ${f}_read.sql" ;;
	E) echo "-f ${f}_scan.sql@95 -f ${f}_insert.sql@5" ;;
	F) echo "-f ${f}_rmw.sql" ;;
	esac
}

for w in $workloads; do
	for kind in $kinds; do
		# shellcheck disable=SC2046 # the -f arguments are meant to split
		tps=$(as_pg env PGOPTIONS="-c enable_seqscan=off" \
			"$PG_BINDIR/pgbench" -n -h "$sock" -p "$port" -U "$dbuser" \
			-c "$clients" -j "$clients" -T "$secs" -D n="$rows" \
			$(scripts "$w" "$kind") bench 2>&1 | awk '/^tps = / { printf "%.0f", $3 }')
		echo "$w,$kind,$tps" >>"$results"
		step "workload $w on $kind: $tps tps"
	done
	psql_b -c "VACUUM" >/dev/null
done

# ---------------------------------------------------------------------------
# Report
# ---------------------------------------------------------------------------

step "report: $out/ycsb.csv, $out/ycsb.md"
mkdir -p "$out"
{
	echo "workload,kind,tps"
	cat "$results"
} >"$out/ycsb.csv"
commit=$(repo_commit "$repo")
awk -F, -v cmd="$command_line" -v date="$(date -u '+%Y-%m-%d %H:%M UTC')" \
	-v nproc="$(nproc)" -v pgver="$pg_version" -v extver="$ext_version" \
	-v commit="$commit" -v rows="$rows" -v secs="$secs" -v clients="$clients" \
	-v kinds="$kinds" -f "$here/report.awk" "$out/ycsb.csv" >"$out/ycsb.md"

if command -v gnuplot >/dev/null; then
	step "plot: $out/ycsb.png"
	# one row per workload, one column per kind (tps relative to btree)
	awk -F, -v kinds="$kinds" 'NR > 1 { t[$1, $2] = $3; if (!($1 in seen)) { seen[$1] = 1; w[++n] = $1 } }
		END { nk = split(kinds, k, " "); for (i = 1; i <= n; i++) { line = w[i];
			for (j = 1; j <= nk; j++) line = line " " (t[w[i], "btree"] > 0 ? t[w[i], k[j]] / t[w[i], "btree"] : 0);
			print line } }' "$out/ycsb.csv" >"$work/plot.dat"
	{
		echo 'set terminal pngcairo size 900,450 font ",10"'
		echo "set output '$out/ycsb.png'"
		echo "set title 'bench/ycsb/run.sh: YCSB workloads, $rows rows, $clients clients, ${secs} s each; tps relative to btree'"
		echo 'set style data histograms; set style histogram clustered gap 1; set style fill solid 0.8 border -1'
		echo 'set ylabel "tps / btree tps"; set logscale y; set yrange [0.0001:2]; set grid ytics; set key top left'
		plot="plot"
		col=2
		for kind in $kinds; do
			plot+=" '$work/plot.dat' using $col:xtic(1) title '$kind' noenhanced,"
			col=$((col + 1))
		done
		echo "${plot%,}"
	} | gnuplot
fi

step "done in $((($(date +%s) - start_epoch) / 60)) min $((($(date +%s) - start_epoch) % 60)) s"
exit 0
}
