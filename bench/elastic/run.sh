#!/usr/bin/env bash
# bench/elastic/run.sh - the elastic index under a size bound (the paper's
# section 6.1 experiment: Hershcovitch et al., EDBT 2022).
#
# First a quick load into a table with a btree index finds btree's largest
# size, the "peak".  Then two tables get the same rows step by step, in the
# same run, so that both see the same load on the machine:
#
#   t_btree    a btree index on k
#   t_elastic  an elastic_btree index on k WITH (size_bound = peak / 2)
#
# --chunks chunks of --chunk rows with scattered int8 keys (or, with --key
# text, 30-byte text keys under the C collation) are inserted (one
# INSERT per chunk and table), then deleted again one chunk at a time,
# oldest first, with a VACUUM after each.  After every step it records per
# table the index size, leaf pages (and compact leaves), the insert or
# delete+VACUUM time, and, for --secs seconds each with one pgbench client,
# point lookups of an inserted key (tps) and 100-row range scans (tps), both
# forced through the index.  The measurements run after both tables took
# the step, alternating between the tables, --repeat times; the highest tps
# of each counts (noise on a shared machine only ever slows a run down).
# Ratios are elastic / btree at the same step.
#
# Then the capacity at the bound: a third table gets the same chunks (and
# more, up to --capacity-chunks) into an elastic_btree index with the same
# bound until the index outgrows the bound by 5%; the rows it held at the
# last chunk within the bound, per byte, against btree's rows per byte at
# its peak, are the entries elastic_btree fits in the bytes btree needs.
#
# Results: docs/benchmarks/elastic.csv, elastic.md and elastic.png (when
# gnuplot is installed; elastic-text.* with --key text), or --out DIR.  The
# extension must be installed.
#
# Usage: bench/elastic/run.sh [--key int8|text] [--chunk N] [--chunks C]
#            [--secs S] [--repeat R] [--capacity-chunks M] [--large]
#            [--port P] [--out DIR] [--workdir DIR] [--keep]
#
#   --key K      key type: int8 (default) or text (30 bytes, COLLATE "C")
#   --chunk N    rows per chunk (default 200000)
#   --chunks C   chunks inserted and then deleted (default 10)
#   --secs S     seconds per pgbench measurement (default 3)
#   --repeat R   measurements per table, step and query; the best counts
#                (default 1)
#   --capacity-chunks M  most chunks for the capacity run (default
#                4 * chunks)
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
repeat=1
capacity_chunks=
port=56090
out="$repo/docs/benchmarks"
workbase=${TMPDIR:-/tmp}
keep=0
key=int8

while [ $# -gt 0 ]; do
	case $1 in
	--key)
		key=${2-}
		[ "$key" = int8 ] || [ "$key" = text ] || { echo "run.sh: --key must be int8 or text" >&2; usage 2; }
		shift 2 ;;
	--chunk) need_int "$1" "${2-}"; chunk=$2; shift 2 ;;
	--chunks) need_int "$1" "${2-}"; chunks=$2; shift 2 ;;
	--secs) need_int "$1" "${2-}"; secs=$2; shift 2 ;;
	--repeat) need_int "$1" "${2-}"; repeat=$2; shift 2 ;;
	--capacity-chunks) need_int "$1" "${2-}"; capacity_chunks=$2; shift 2 ;;
	--large) chunk=1000000; secs=5; shift ;;
	--port) need_int "$1" "${2-}"; port=$2; shift 2 ;;
	--out) out=${2:?--out needs a directory}; shift 2 ;;
	--workdir) workbase=${2:?--workdir needs a directory}; shift 2 ;;
	--keep) keep=1; shift ;;
	-h | --help) usage 0 ;;
	*) echo "run.sh: unknown option $1" >&2; usage 2 ;;
	esac
done
capacity_chunks=${capacity_chunks:-$((4 * chunks))}
name=elastic
keydesc='int8 keys scattered over 0..2^32'
if [ "$key" = text ]; then
	name=elastic-text
	keydesc='30-byte text keys under the C collation, the first 30 hex digits of md5(g)'
fi
# the runner changes directory: make --out absolute
mkdir -p "$out"
out=$(cd "$out" && pwd)

cluster_setup elastic_bound
results="$work/results.csv"
# shellcheck disable=SC2317 # called by cleanup
on_failure() { save_partial "$name"; }

step "cluster: initdb in $work (chunk=$chunk rows, chunks=$chunks, secs=$secs, repeat=$repeat)"
echo "shared_preload_libraries = 'elastic_index'" | cluster_initdb bench/elastic/run.sh
step "cluster: start on port $port"
cluster_start
psql_b -c "CREATE EXTENSION elastic_index"
pg_version=$(psql_b -c "SELECT split_part(version(), ' on ', 1)")
ext_version=$(psql_b -c "SELECT extversion FROM pg_extension WHERE extname = 'elastic_index'")

# Row g has key k(g) = g * 2654435761 mod 4294967311 (a prime): distinct,
# scattered keys; pgbench computes the same key from a random g.  Text keys
# are the first 30 hex digits of md5(g), which the server computes from g.
if [ "$key" = int8 ]; then
	keytype=int8
	keyexpr='(g * 2654435761) % 4294967311'
	pbset='\set k (:g * 2654435761) % 4294967311'
	pbkey=':k'
else
	keytype='text COLLATE "C"'
	keyexpr='left(md5(g::text), 30)'
	pbset='\set k :g'
	pbkey="left(md5(:k::text), 30)"
fi
for p in btree elastic; do
	printf '%s\n' '\set g random(1, :n)' "$pbset" \
		"SELECT pad FROM t_$p WHERE k = $pbkey;" >"$work/point_$p.sql"
	printf '%s\n' '\set g random(1, :n)' "$pbset" \
		"SELECT count(pad) FROM (SELECT pad FROM t_$p WHERE k >= $pbkey ORDER BY k LIMIT 100) AS s;" \
		>"$work/range_$p.sql"
done
if [ "$(id -u)" -eq 0 ]; then
	chown postgres: "$work"/point_*.sql "$work"/range_*.sql
fi

# tps of one pgbench script ($1) over the rows inserted so far ($2)
tps() {
	as_pg env PGOPTIONS="-c enable_seqscan=off -c enable_bitmapscan=off" \
		"$PG_BINDIR/pgbench" -n -h "$sock" -p "$port" -U "$dbuser" -c 1 \
		-T "$secs" -D n="$2" -f "$work/$1.sql" bench 2>&1 |
		awk '/^tps = / { printf "%.0f", $3 }'
}

# The higher of tps $1 (may be empty) and a new measurement of pgbench
# script $2 over the rows inserted so far ($3).
best_tps() {
	awk -v a="$1" -v b="$(tps "$2" "$3")" \
		'BEGIN { if (a == "" || b + 0 > a + 0) print b; else print a }'
}

# Append one result row: table t_$1, step $2, seconds $3 of the step, point
# and range tps $4 and $5.
row() {
	local stats
	if [ "$1" = elastic ]; then
		stats=$(psql_b -F, -c "SELECT leaf_pages, compact_leaf_pages, elastic_state
			FROM elastic_index_stats('t_elastic_k')")
	else
		stats=$(psql_b -F, -c "SELECT leaf_pages, 0, 'btree' FROM pgstatindex('t_btree_k')")
	fi
	echo "$1,$2,$(psql_b -F, -c "SELECT count(*), pg_relation_size('t_$1_k') FROM t_$1"),$stats,$3,$4,$5" \
		>>"$results"
}

# Measure both tables after step $1 ("insert N" or "delete N") with $2 rows
# inserted so far (for the lookups), alternating between the tables
# --repeat times, and append their rows; $3 and $4 are the seconds the step
# took on btree and on elastic_btree.
record_step() {
	local r bp="" ep="" br="" er=""
	for ((r = 1; r <= repeat; r++)); do
		bp=$(best_tps "$bp" point_btree "$2")
		ep=$(best_tps "$ep" point_elastic "$2")
		br=$(best_tps "$br" range_btree "$2")
		er=$(best_tps "$er" range_elastic "$2")
	done
	row btree "$1" "$3" "$bp" "$br"
	step "btree: $1: $(tail -n 1 "$results" | cut -d, -f3-)"
	row elastic "$1" "$4" "$ep" "$er"
	step "elastic: $1: $(tail -n 1 "$results" | cut -d, -f3-)"
}

# Insert chunk $2 into t_$1; prints the seconds the INSERT took.
insert_chunk() {
	local t0 t1
	t0=$(now)
	psql_b -c "INSERT INTO t_$1 SELECT g, $keyexpr, $2, md5(g::text)
		FROM generate_series($((($2 - 1) * chunk + 1))::int8, $(($2 * chunk))::int8) AS g"
	t1=$(now)
	elapsed "$t0" "$t1"
}

# Delete chunk $2 from t_$1 and VACUUM; prints the seconds both took.
delete_chunk() {
	local t0 t1
	t0=$(now)
	psql_b -c "DELETE FROM t_$1 WHERE chunk = $2" -c "VACUUM t_$1"
	t1=$(now)
	elapsed "$t0" "$t1"
}

psql_b -c "CREATE EXTENSION pgstattuple"
for p in btree elastic; do
	psql_b -c "CREATE TABLE t_$p (g int8, k $keytype, chunk int4, pad text) WITH (autovacuum_enabled = off)"
done

# btree's peak: the same chunks into the btree table, then start it over
psql_b -c "CREATE INDEX t_btree_k ON t_btree USING btree (k)"
peak=0
for ((c = 1; c <= chunks; c++)); do
	insert_chunk btree "$c" >/dev/null
	size=$(psql_b -c "SELECT pg_relation_size('t_btree_k')")
	[ "$size" -gt "$peak" ] && peak=$size
done
psql_b -c "TRUNCATE t_btree"
bound_kb=$((peak / 2 / 1024))
step "btree peak $((peak / 8192)) pages: elastic bound ${bound_kb}kB"
psql_b -c "CREATE INDEX t_elastic_k ON t_elastic USING elastic_btree (k) WITH (size_bound = '${bound_kb}kB')"

for ((c = 1; c <= chunks; c++)); do
	sb=$(insert_chunk btree "$c")
	psql_b -c "VACUUM ANALYZE t_btree"
	se=$(insert_chunk elastic "$c")
	psql_b -c "VACUUM ANALYZE t_elastic"
	record_step "insert $c" $((c * chunk)) "$sb" "$se"
done
for ((c = 1; c <= chunks; c++)); do
	sb=$(delete_chunk btree "$c")
	psql_b -c "ANALYZE t_btree"
	se=$(delete_chunk elastic "$c")
	psql_b -c "ANALYZE t_elastic"
	record_step "delete $c" $((chunks * chunk)) "$sb" "$se"
done
step "verify: elastic_index_check on the emptied index"
psql_b -c "SELECT elastic_index_check('t_elastic_k', true)" >/dev/null

# Capacity at the bound: more chunks into a fresh elastic_btree index with
# the same bound until it outgrows the bound by 5% (sizes only, no tps).
capacity="$work/capacity.csv"
psql_b -c "DROP TABLE t_btree, t_elastic"
psql_b -c "CREATE TABLE t_capacity (g int8, k $keytype, chunk int4, pad text) WITH (autovacuum_enabled = off)"
psql_b -c "CREATE INDEX t_capacity_k ON t_capacity USING elastic_btree (k) WITH (size_bound = '${bound_kb}kB')"
for ((c = 1; c <= capacity_chunks; c++)); do
	insert_chunk capacity "$c" >/dev/null
	psql_b -c "VACUUM ANALYZE t_capacity"
	echo "$c,$((c * chunk)),$(psql_b -F, -c "SELECT pg_relation_size('t_capacity_k'),
		leaf_pages, compact_leaf_pages, elastic_state
		FROM elastic_index_stats('t_capacity_k')")" >>"$capacity"
	step "capacity: chunk $c: $(tail -n 1 "$capacity" | cut -d, -f2-)"
	[ "$(cut -d, -f3 <"$capacity" | tail -n 1)" -gt $((bound_kb * 1024 * 105 / 100)) ] && break
done
step "verify: elastic_index_check on the capacity index"
psql_b -c "SELECT elastic_index_check('t_capacity_k', false)" >/dev/null
# the densest btree over the same rows: built by CREATE INDEX (fillfactor 90)
psql_b -c "CREATE INDEX t_capacity_btree ON t_capacity USING btree (k)"
built=$(psql_b -F, -c "SELECT count(*), pg_relation_size('t_capacity_btree') FROM t_capacity")
step "capacity: btree built over the same rows: $built"

# ---------------------------------------------------------------------------
# Report
# ---------------------------------------------------------------------------

step "report: $out/$name.csv, $out/$name.md"
mkdir -p "$out"
{
	echo "pass,step,rows,index_bytes,leaf_pages,compact_leaf_pages,state,step_s,point_tps,range_tps"
	cat "$results"
} >"$out/$name.csv"
{
	echo "chunk,rows,index_bytes,leaf_pages,compact_leaf_pages,state"
	cat "$capacity"
} >"$out/$name-capacity.csv"

commit=$(repo_commit "$repo")
end_epoch=$(date +%s)
awk -F, \
	-v cmd="$command_line" -v date="$(date -u '+%Y-%m-%d %H:%M UTC')" \
	-v nproc="$(nproc)" -v pgver="$pg_version" -v extver="$ext_version" \
	-v commit="$commit" -v chunk="$chunk" -v chunks="$chunks" -v secs="$secs" \
	-v bound_kb="$bound_kb" -v peak="$peak" -v name="$name" \
	-v keydesc="$keydesc" \
	-v load0="$load_start" -v load1="$(cut -d' ' -f1 /proc/loadavg)" \
	-v capacity_chunks="$capacity_chunks" -v repeat="$repeat" \
	-v built_rows="${built%,*}" -v built_bytes="${built#*,}" \
	-f "$here/report.awk" "$out/$name.csv" "$out/$name-capacity.csv" >"$out/$name.md"

if command -v gnuplot >/dev/null; then
	step "plot: $out/$name.png"
	awk -F, 'NR > 1 { n[$1]++; print $1, n[$1], $4 / 1048576, $9, $10 }' \
		"$out/$name.csv" >"$work/plot.dat"
	{
		echo 'set terminal pngcairo size 1350,430 font ",10"'
		echo "set output '$out/$name.png'"
		echo "set multiplot layout 1,3 title 'bench/elastic/run.sh: $chunks chunks of $chunk $key keys inserted (steps 1-$chunks), then deleted with VACUUM; elastic\\_btree bound = half of btree peak'"
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
