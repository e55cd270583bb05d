#!/usr/bin/env bash
# bench/elastic/run.sh - the elastic index under a size bound (the paper's
# section 6.1 experiment: Hershcovitch et al., EDBT 2022).
#
# Two passes over the same rows on one throwaway cluster, one index each:
#
#   btree     a btree index on k; its largest size is the "peak"
#   elastic   an elastic_btree index on k WITH (size_bound = peak / 2)
#
# Each pass inserts --chunks chunks of --chunk rows with scattered int8
# keys (one INSERT per chunk), then deletes them again one chunk at a time,
# oldest first, with a VACUUM after each.  After every step it records the
# index size, leaf pages (and compact leaves), the insert or delete+VACUUM
# time, and, for --secs seconds each with one pgbench client, point lookups
# of an inserted key (tps) and 100-row range scans (tps), both forced
# through the index.  Ratios are elastic / btree at the same step.
#
# Results: docs/benchmarks/elastic.csv, elastic.md and elastic.png (when
# gnuplot is installed), or --out DIR.  The extension must be installed.
#
# Usage: bench/elastic/run.sh [--chunk N] [--chunks C] [--secs S] [--large]
#            [--port P] [--out DIR] [--workdir DIR] [--keep]
#
#   --chunk N    rows per chunk (default 200000)
#   --chunks C   chunks inserted and then deleted (default 10)
#   --secs S     seconds per pgbench measurement (default 3)
#   --large      --chunk 1000000 --secs 5
#   --port P     port of the throwaway cluster (default 56090)
set -euo pipefail

# One brace group: bash parses the whole script before running it.
{

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=bench/lib.sh
. "$here/../lib.sh" "$@"

chunk=200000
chunks=10
secs=3
port=56090
out="$repo/docs/benchmarks"
workbase=${TMPDIR:-/tmp}
keep=0

while [ $# -gt 0 ]; do
	case $1 in
	--chunk) need_int "$1" "${2-}"; chunk=$2; shift 2 ;;
	--chunks) need_int "$1" "${2-}"; chunks=$2; shift 2 ;;
	--secs) need_int "$1" "${2-}"; secs=$2; shift 2 ;;
	--large) chunk=1000000; secs=5; shift ;;
	--port) need_int "$1" "${2-}"; port=$2; shift 2 ;;
	--out) out=${2:?--out needs a directory}; shift 2 ;;
	--workdir) workbase=${2:?--workdir needs a directory}; shift 2 ;;
	--keep) keep=1; shift ;;
	-h | --help) usage 0 ;;
	*) echo "run.sh: unknown option $1" >&2; usage 2 ;;
	esac
done

cluster_setup elastic_bound
results="$work/results.csv"
# shellcheck disable=SC2317 # called by cleanup
on_failure() { save_partial elastic; }

step "cluster: initdb in $work (chunk=$chunk rows, chunks=$chunks, secs=$secs)"
echo "shared_preload_libraries = 'elastic_index'" | cluster_initdb bench/elastic/run.sh
step "cluster: start on port $port"
cluster_start
psql_b -c "CREATE EXTENSION elastic_index"
pg_version=$(psql_b -c "SELECT split_part(version(), ' on ', 1)")
ext_version=$(psql_b -c "SELECT extversion FROM pg_extension WHERE extname = 'elastic_index'")

# Row g has key k(g) = g * 2654435761 mod 4294967311 (a prime): distinct,
# scattered keys; pgbench computes the same key from a random g.
keyexpr='(g * 2654435761) % 4294967311'
printf '%s\n' '\set g random(1, :n)' '\set k (:g * 2654435761) % 4294967311' \
	'SELECT pad FROM t WHERE k = :k;' >"$work/point.sql"
printf '%s\n' '\set g random(1, :n)' '\set k (:g * 2654435761) % 4294967311' \
	'SELECT count(pad) FROM (SELECT pad FROM t WHERE k >= :k ORDER BY k LIMIT 100) AS s;' \
	>"$work/range.sql"
if [ "$(id -u)" -eq 0 ]; then
	chown postgres: "$work/point.sql" "$work/range.sql"
fi

# tps of one pgbench script ($1) over the rows inserted so far ($2)
tps() {
	as_pg env PGOPTIONS="-c enable_seqscan=off -c enable_bitmapscan=off" \
		"$PG_BINDIR/pgbench" -n -h "$sock" -p "$port" -U "$dbuser" -c 1 \
		-T "$secs" -D n="$2" -f "$work/$1.sql" bench 2>&1 |
		awk '/^tps = / { printf "%.0f", $3 }'
}

# Append one result row: pass $1, step $2 ("insert N" or "delete N"),
# seconds $3 of the step, rows inserted so far $4 (for the lookups).
record() {
	local p r stats
	p=$(tps point "$4")
	r=$(tps range "$4")
	if [ "$1" = elastic ]; then
		stats=$(psql_b -F, -c "SELECT leaf_pages, compact_leaf_pages, elastic_state
			FROM elastic_index_stats('t_k')")
	else
		stats=$(psql_b -F, -c "SELECT leaf_pages, 0, 'btree' FROM pgstatindex('t_k')")
	fi
	echo "$1,$2,$(psql_b -F, -c "SELECT count(*), pg_relation_size('t_k') FROM t"),$stats,$3,$p,$r" \
		>>"$results"
}

# One pass: $1 = btree or elastic, $2 = the CREATE INDEX options
pass() {
	local c t0 t1
	psql_b -c "DROP TABLE IF EXISTS t" \
		-c "CREATE TABLE t (g int8, k int8, chunk int4, pad text) WITH (autovacuum_enabled = off)"
	if [ "$1" = btree ]; then
		psql_b -c "CREATE INDEX t_k ON t USING btree (k)"
	else
		psql_b -c "CREATE INDEX t_k ON t USING elastic_btree (k) $2"
	fi
	for ((c = 1; c <= chunks; c++)); do
		t0=$(now)
		psql_b -c "INSERT INTO t SELECT g, $keyexpr, $c, md5(g::text)
			FROM generate_series($(((c - 1) * chunk + 1))::int8, $((c * chunk))::int8) AS g"
		t1=$(now)
		psql_b -c "VACUUM ANALYZE t"
		record "$1" "insert $c" "$(elapsed "$t0" "$t1")" $((c * chunk))
		step "$1: inserted chunk $c/$chunks: $(tail -n 1 "$results" | cut -d, -f3-)"
	done
	for ((c = 1; c <= chunks; c++)); do
		t0=$(now)
		psql_b -c "DELETE FROM t WHERE chunk = $c" -c "VACUUM t"
		t1=$(now)
		psql_b -c "ANALYZE t"
		record "$1" "delete $c" "$(elapsed "$t0" "$t1")" $((chunks * chunk))
		step "$1: deleted chunk $c/$chunks: $(tail -n 1 "$results" | cut -d, -f3-)"
	done
}

psql_b -c "CREATE EXTENSION pgstattuple"
pass btree ""
peak=$(awk -F, '$1 == "btree" && $4 > m { m = $4 } END { print m }' "$results")
bound_kb=$((peak / 2 / 1024))
step "btree peak $((peak / 8192)) pages: elastic bound ${bound_kb}kB"
pass elastic "WITH (size_bound = '${bound_kb}kB')"
step "verify: elastic_index_check on the emptied index"
psql_b -c "SELECT elastic_index_check('t_k', true)" >/dev/null

# ---------------------------------------------------------------------------
# Report
# ---------------------------------------------------------------------------

step "report: $out/elastic.csv, $out/elastic.md"
mkdir -p "$out"
{
	echo "pass,step,rows,index_bytes,leaf_pages,compact_leaf_pages,state,step_s,point_tps,range_tps"
	cat "$results"
} >"$out/elastic.csv"

commit=$(git -C "$repo" rev-parse --short HEAD 2>/dev/null || echo "none")
if [ "$commit" != none ] && ! git -C "$repo" diff --quiet HEAD -- src sql 2>/dev/null; then
	commit="$commit with uncommitted changes to src/ or sql/"
fi
end_epoch=$(date +%s)
awk -F, \
	-v cmd="$command_line" -v date="$(date -u '+%Y-%m-%d %H:%M UTC')" \
	-v nproc="$(nproc)" -v pgver="$pg_version" -v extver="$ext_version" \
	-v commit="$commit" -v chunk="$chunk" -v chunks="$chunks" -v secs="$secs" \
	-v bound_kb="$bound_kb" -v peak="$peak" \
	-v load0="$load_start" -v load1="$(cut -d' ' -f1 /proc/loadavg)" \
	-f "$here/report.awk" "$out/elastic.csv" >"$out/elastic.md"

if command -v gnuplot >/dev/null; then
	step "plot: $out/elastic.png"
	awk -F, 'NR > 1 { n[$1]++; print $1, n[$1], $4 / 1048576, $9, $10 }' \
		"$out/elastic.csv" >"$work/plot.dat"
	{
		echo 'set terminal pngcairo size 1350,430 font ",10"'
		echo "set output '$out/elastic.png'"
		echo "set multiplot layout 1,3 title 'bench/elastic/run.sh: $chunks chunks of $chunk int8 keys inserted (steps 1-$chunks), then deleted with VACUUM; elastic\\_btree bound = half of btree peak'"
		echo 'set xlabel "step"; set key top left; set grid'
		echo 'set ylabel "index MB"'
		echo "plot '< grep ^btree $work/plot.dat' using 2:3 with linespoints title 'btree', '< grep ^elastic $work/plot.dat' using 2:3 with linespoints title 'elastic\\_btree', $bound_kb / 1024.0 with lines dashtype 2 title 'bound'"
		echo 'set ylabel "point lookups (tps)"'
		echo "plot '< grep ^btree $work/plot.dat' using 2:4 with linespoints title 'btree', '< grep ^elastic $work/plot.dat' using 2:4 with linespoints title 'elastic\\_btree'"
		echo 'set ylabel "100-row range scans (tps)"'
		echo "plot '< grep ^btree $work/plot.dat' using 2:5 with linespoints title 'btree', '< grep ^elastic $work/plot.dat' using 2:5 with linespoints title 'elastic\\_btree'"
		echo 'unset multiplot'
	} | gnuplot
fi

step "done in $(((end_epoch - start_epoch) / 60)) min $(((end_epoch - start_epoch) % 60)) s"
exit 0
}
