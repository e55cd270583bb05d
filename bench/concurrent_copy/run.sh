#!/usr/bin/env bash
# bench/concurrent_copy/run.sh - several sessions COPYing near-sorted rows
# of one key range into one table at the same time: btree against osm_tree,
# with what the COPY backends wait on.
#
# One throwaway cluster, fsync and synchronous_commit on.  --rows int8 keys
# 1..N in a K=L=5% near-sorted arrival order (elastic_index_near_sorted) are
# dealt to --streams sessions in chunks of --chunk rows in arrival order
# (chunk c goes to stream c mod S; --chunk 1 deals round-robin), so every
# stream carries near-sorted rows of the same key range at the same pace.
# Each stream is one psql session running COPY ... FROM a server-side file
# for each --batch rows of its share, each COPY its own transaction.  The
# streams start together; a load's time is from their start until the last
# one ends, timed on the client.
#
# Each round loads every kind once, in this order, into a fresh table with
# one index of that kind on the key: none (no index, the baseline), btree,
# osm_tree.  Index maintenance is a kind's load time minus the no-index load
# time of the same round; the best (smallest) of --rounds rounds counts,
# reported as a ratio to btree's from the same run.
#
# During every load one more session samples pg_stat_activity every ~10 ms
# (a PL/pgSQL loop with pg_sleep(0.01) and pg_stat_clear_snapshot) and keeps,
# for each COPY backend that is active, its wait_event_type:wait_event
# ("CPU" when it waits on nothing); a Lock wait also names the relation of
# the lock it waits for (pg_locks), or "(ended)" when the wait was over by
# the time pg_locks was read.  The report gives per kind the share of
# the samples (all rounds) of each of the most frequent events, and of all
# waits.  LWLock:BufferContent does not say on which relation's page it
# waits: compare with the none kind, whose waits are the heap's and WAL's.
#
# Results: docs/benchmarks/concurrent-copy.csv (per round),
# concurrent-copy-waits.csv (samples per kind and event) and
# concurrent-copy.md, and concurrent-copy.png drawn by
# bench/concurrent_copy/plot.sh when gnuplot is installed; or --out DIR.
# The extension must be installed ("make install"); PG_BINDIR (default
# Debian's 15) chooses the server.
#
# Usage: bench/concurrent_copy/run.sh [--rows N] [--small | --large]
#            [--streams S] [--batch B] [--chunk C] [--rounds R] [--top T]
#            [--port P] [--out DIR] [--workdir DIR] [--keep]
#
#   --rows N        rows over all streams (default 2000000)
#   --small         --rows 400000 --batch 50000 --rounds 1 (a quick try; do
#                   not commit its figures)
#   --large         --rows 10000000
#   --streams S     concurrent COPY sessions (default 4)
#   --batch B       rows per COPY transaction of one stream (default 100000)
#   --chunk C       rows dealt to a stream at a time (default 1000)
#   --rounds R      loads per kind, interleaved; the best counts (default 3)
#   --top T         wait events listed per kind (default 6)
set -euo pipefail

# One brace group: bash parses the whole script before running it.
{

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=bench/lib.sh
. "$here/../lib.sh" "$@"

rows=2000000
streams=4
batch=100000
chunk=1000
rounds=3
top=6
port=56120
kl=5

while [ $# -gt 0 ]; do
	case $1 in
	--rows) need_int "$1" "${2-}"; rows=$2; shift 2 ;;
	--small) rows=400000; batch=50000; rounds=1; shift ;;
	--large) rows=10000000; shift ;;
	--streams) need_int "$1" "${2-}"; streams=$2; shift 2 ;;
	--batch) need_int "$1" "${2-}"; batch=$2; shift 2 ;;
	--chunk) need_int "$1" "${2-}"; chunk=$2; shift 2 ;;
	--rounds) need_int "$1" "${2-}"; rounds=$2; shift 2 ;;
	--top) need_int "$1" "${2-}"; top=$2; shift 2 ;;
	*) common_option "$@"; shift "$nshift" ;;
	esac
done
mkdir -p "$out"
out=$(cd "$out" && pwd)

# shellcheck disable=SC2317 # called by cleanup
on_failure() {
	save_partial concurrent-copy
}

cluster_setup elastic_concurrent_copy
results="$work/results.csv"
waits="$work/waits.csv"
mkdir -p "$work/chunks"
[ "$(id -u)" -ne 0 ] || chown postgres: "$work/chunks"

step "cluster: initdb in $work (rows=$rows, streams=$streams, batch=$batch, chunk=$chunk, rounds=$rounds)"
cluster_initdb bench/concurrent_copy/run.sh <<EOF
shared_preload_libraries = 'elastic_index'
max_connections = $((streams + 20))
fsync = on
synchronous_commit = on
EOF
step "cluster: start on port $port"
cluster_start

pg_version=$(psql_b -c "SELECT split_part(version(), ' on ', 1)")
psql_b -c "CREATE EXTENSION elastic_index" -c "CREATE EXTENSION pgstattuple"
ext_version=$(psql_b -c "SELECT extversion FROM pg_extension WHERE extname = 'elastic_index'")

# The data: each stream's share in arrival order, in files of --batch rows,
# and a COPY script per stream and table.
step "data: $rows keys, K=L=$kl%, dealt to $streams streams in chunks of $chunk"
psql_b -c "CREATE TABLE src AS SELECT pos, key, ((pos - 1) / $chunk) % $streams AS stream FROM elastic_index_near_sorted($rows, $kl, $kl)" \
	-c "CREATE INDEX ON src (stream, pos)" -c "ANALYZE src"
nfiles=0
for ((s = 0; s < streams; s++)); do
	share=$(psql_b -c "SELECT count(*) FROM src WHERE stream = $s")
	nf=$(((share + batch - 1) / batch))
	: >"$work/stream$s.sql"
	for ((f = 0; f < nf; f++)); do
		psql_b -c "COPY (SELECT key FROM src WHERE stream = $s ORDER BY pos OFFSET $((f * batch)) LIMIT $batch) TO '$work/chunks/$s.$f.csv'"
		echo "COPY :tbl FROM '$work/chunks/$s.$f.csv';" >>"$work/stream$s.sql"
	done
	nfiles=$((nfiles + nf))
done
psql_b -c "DROP TABLE src"
[ "$(id -u)" -ne 0 ] || chown postgres: "$work"/stream*.sql

# The sampler: until every COPY session has gone (or none came within 60
# s), every ~10 ms one row per active COPY backend into a temporary table;
# then the counts per event to standard output, as CSV.
cat >"$work/sampler.sql" <<'EOF'
CREATE TEMP TABLE samples (event text);
DO $$
DECLARE
	seen bool := false;
	n int;
	t0 timestamptz := clock_timestamp();
BEGIN
	LOOP
		PERFORM pg_stat_clear_snapshot();
		SELECT count(*) INTO n FROM pg_stat_activity
		WHERE application_name LIKE 'ei_stream%';
		EXIT WHEN n = 0 AND (seen OR clock_timestamp() - t0 > interval '60 s');
		seen := seen OR n > 0;
		INSERT INTO samples
		SELECT CASE
			WHEN a.wait_event IS NULL THEN 'CPU'
			WHEN a.wait_event_type = 'Lock' THEN
				a.wait_event_type || ':' || a.wait_event || coalesce(' (' ||
					(SELECT l.relation::regclass::text FROM pg_locks l
					 WHERE l.pid = a.pid AND NOT l.granted LIMIT 1) || ')', ' (ended)')
			ELSE a.wait_event_type || ':' || a.wait_event END
		FROM pg_stat_activity a
		WHERE a.application_name LIKE 'ei_stream%' AND a.state = 'active';
		PERFORM pg_sleep(0.01);
	END LOOP;
END
$$;
COPY (SELECT event, count(*) FROM samples GROUP BY event) TO STDOUT (FORMAT csv);
EOF
[ "$(id -u)" -ne 0 ] || chown postgres: "$work/sampler.sql"

# Load table $1 with every stream at once, sampling; prints the seconds.
load() {
	local tbl=$1 s pids=() t0 t1 sampler
	as_pg "$PG_BINDIR/psql" -X -q -A -t -v ON_ERROR_STOP=1 -h "$sock" -p "$port" \
		-U "$dbuser" -d bench -f "$work/sampler.sql" >"$work/samples.csv" &
	sampler=$!
	# the sampler is in its loop before the streams start
	sleep 0.3
	t0=$(now)
	for ((s = 0; s < streams; s++)); do
		PGAPPNAME="ei_stream$s" as_pg "$PG_BINDIR/psql" -X -q -v ON_ERROR_STOP=1 \
			-h "$sock" -p "$port" -U "$dbuser" -d bench -v tbl="$tbl" \
			-f "$work/stream$s.sql" &
		pids+=($!)
	done
	for s in "${pids[@]}"; do
		wait "$s"
	done
	t1=$(now)
	wait "$sampler"
	elapsed "$t0" "$t1"
}

# Leaf fill in percent of index $2 of kind $1.
leaf_fill() {
	case $1 in
	btree) psql_b -c "SELECT round(avg_leaf_density::numeric, 1) FROM pgstatindex('$2')" ;;
	osm_tree) psql_b -c "SELECT round(leaf_fill::numeric, 1) FROM elastic_index_stats('$2')" ;;
	esac
}

kinds="none btree osm_tree"
echo "kind,round,load_s,index_s,index_bytes,leaf_fill,samples" >"$results"
echo "kind,event,samples" >"$waits"
declare -A best_load=() best_index=() size=() fill=()
for ((round = 1; round <= rounds; round++)); do
	for kind in $kinds; do
		t="t_$kind"
		psql_b -c "DROP TABLE IF EXISTS $t" \
			-c "CREATE TABLE $t (k int8) WITH (autovacuum_enabled = off)"
		[ "$kind" = none ] || psql_b -c "CREATE INDEX ${t}_k ON $t USING $kind (k)"
		psql_b -c "CHECKPOINT"
		secs=$(load "$t")
		n=$(psql_b -c "SELECT count(*) FROM $t")
		if [ "$n" != "$rows" ]; then
			echo "run.sh: $t holds $n rows after the load, expected $rows" >&2
			exit 1
		fi
		nsamples=$(awk -F, '{ n += $2 } END { print n + 0 }' "$work/samples.csv")
		awk -F, -v k="$kind" '{ printf "%s,\"%s\",%d\n", k, $1, $2 }' "$work/samples.csv" >>"$waits"
		if [ "$kind" = none ]; then
			none_s=$secs
			index_s="" bytes="" lf=""
		else
			index_s=$(awk -v a="$secs" -v b="$none_s" 'BEGIN { printf "%.3f", a - b }')
			bytes=$(psql_b -c "SELECT pg_relation_size('${t}_k')")
			lf=$(leaf_fill "$kind" "${t}_k")
			best_index[$kind]=$(fastest "${best_index[$kind]-}" "$index_s")
			size[$kind]=$bytes
			fill[$kind]=$lf
		fi
		best_load[$kind]=$(fastest "${best_load[$kind]-}" "$secs")
		echo "$kind,$round,$secs,$index_s,$bytes,$lf,$nsamples" >>"$results"
		step "round $round/$rounds $kind: load ${secs} s${index_s:+, index ${index_s} s}${bytes:+, index $((bytes / 1024)) kB, leaf fill $lf%}, $nsamples samples"
		psql_b -c "DROP TABLE $t"
	done
done

# ---------------------------------------------------------------------------
# Report
# ---------------------------------------------------------------------------

step "report: $out/concurrent-copy.csv, concurrent-copy-waits.csv, concurrent-copy.md"
cp "$results" "$out/concurrent-copy.csv"
cp "$waits" "$out/concurrent-copy-waits.csv"
if command -v gnuplot >/dev/null; then plot=1; else plot=0; fi
commit=$(repo_commit "$repo")
{
	echo "# Concurrent COPY streams of near-sorted rows"
	echo
	echo "Produced by \`$command_line\` (from the repository root) on $(date -u '+%Y-%m-%d %H:%M UTC')."
	echo
	echo "- $pg_version; elastic_index $ext_version; repository commit $commit; $(nproc) CPUs; load average $load_start at the start."
	echo "- Throwaway cluster: shared_buffers = 1GB, fsync = on, synchronous_commit = on, autovacuum = off, jit = off."
	echo "- $rows int8 keys 1..N in a K=L=$kl% near-sorted arrival order (\`elastic_index_near_sorted\`), dealt to $streams streams in chunks of $chunk rows in arrival order; each stream one session running \`COPY\` from server-side files of $batch rows, one transaction each ($nfiles in all); the streams start together, a load lasts until the last one ends. One index on the key per kind (none: no index). Kinds interleaved, a fresh table per load, best of $rounds rounds."
	echo "- Index maintenance = the kind's load time minus the no-index load time of the same round (best round)."
	echo
	if [ "$plot" -eq 1 ]; then
		echo "![load and index maintenance time, index size, leaf fill and wait-event shares per kind](concurrent-copy.png)"
		echo
	fi
	echo "| kind | load s | ratio | index maintenance s | ratio | index size MB | size ratio | leaf fill % |"
	echo "|---|---:|---:|---:|---:|---:|---:|---:|"
	awk -v c="${best_load[none]}" 'BEGIN { printf "| none | %.3f | | | | | | |\n", c }'
	for kind in btree osm_tree; do
		awk -v k="$kind" -v c="${best_load[$kind]}" -v cb="${best_load[btree]}" \
			-v i="${best_index[$kind]}" -v ib="${best_index[btree]}" \
			-v s="${size[$kind]}" -v sb="${size[btree]}" -v f="${fill[$kind]}" \
			'BEGIN { printf "| %s | %.3f | %.2f | %.3f | %s | %.1f | %.2f | %s |\n", k, c, c / cb, i, (ib > 0 && i > 0 ? sprintf("%.2f", i / ib) : "n/a"), s / 1048576, s / sb, f }'
	done
	echo
	echo "Ratios are kind / btree from the same run (below 1 is better); a maintenance ratio is n/a when either"
	echo "maintenance time is not above zero. Raw numbers are in concurrent-copy.csv."
	echo
	echo "## What the COPY backends wait on"
	echo
	echo "Samples of \`pg_stat_activity\` every ~10 ms, one per active COPY backend, all rounds; \"CPU\" is a"
	echo "sample without a wait event, \"waiting\" the share of all the others. A \`Lock\` wait names the"
	echo "relation it waits for (\"(ended)\": over by the time \`pg_locks\` was read). \`LWLock:BufferContent\` does not say whose page: the none kind's are the heap's."
	echo
	for kind in $kinds; do
		awk -F, -v k="$kind" -v top="$top" '
			NR > 1 && $1 == k { gsub(/"/, "", $2); n[$2] += $3; total += $3; if ($2 != "CPU") waiting += $3 }
			END {
				printf "**%s**: %d samples, waiting %.1f%%", k, total, total ? 100 * waiting / total : 0
				m = 0
				for (e in n) { ev[++m] = e }
				# the most frequent first
				for (i = 1; i <= m; i++)
					for (j = i + 1; j <= m; j++)
						if (n[ev[j]] > n[ev[i]]) { t = ev[i]; ev[i] = ev[j]; ev[j] = t }
				for (i = 1; i <= m && i <= top; i++)
					printf "%s %s %.1f%%", (i == 1 ? ";" : ","), ev[i], 100 * n[ev[i]] / total
				printf "\n\n"
			}' "$waits"
	done
	echo "Every event and count: concurrent-copy-waits.csv."
} >"$out/concurrent-copy.md"
cat "$out/concurrent-copy.md"
if [ "$plot" -eq 1 ]; then
	step "plot: $out/concurrent-copy.png"
	bash "$here/plot.sh" "$out" "$command_line" >/dev/null ||
		echo "run.sh: bench/concurrent_copy/plot.sh failed; the CSV and the report are written" >&2
fi

step "done in $((($(date +%s) - start_epoch) / 60)) min $((($(date +%s) - start_epoch) % 60)) s"
exit 0
}
