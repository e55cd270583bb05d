#!/usr/bin/env bash
# bench/buffer_lookups/run.sh - what osm_tree's insert buffer costs point
# lookups when it is full, with its section filter, against btree on the
# same rows, in one run on one throwaway cluster.
#
# --rows int8 keys 1..N go into a table with a btree index and one with an
# osm_tree index (loaded before the index is built), then --buffered more
# keys above N in scrambled order, one entry at a time, into the insert
# buffer of --pages pages (osm_tree.top_inserts off, no flushes) and into
# the btree table.  Reported:
#
#   blocks    index and heap pages one lookup touches (EXPLAIN BUFFERS of an
#             index scan), averaged over --lookups keys, for keys in the
#             tree (outside the buffer's keys: the section filter rules
#             most out, so the lookup reads the metapage, the filter and the
#             tail but no other buffer page) and for keys in the buffer
#             (the filter passes them; the pages' own filters and zonemaps
#             pick the pages to read); and how many lookups read every
#             buffer page (a false positive of the section filter);
#   tps       pgbench point lookups and 100-key range scans from random
#             keys over both ranges, best of --repeat runs of --duration
#             seconds, 1 client.
#
# Results go to docs/benchmarks/buffer-lookups.{csv,md} (or --out DIR).
# The extension must be installed ("make install").
#
# Usage: bench/buffer_lookups/run.sh [--rows N] [--large] [--buffered M] [--pages P]
#            [--lookups L] [--duration S] [--repeat R]
#            [--port P] [--out DIR] [--workdir DIR] [--keep]
#
#   --rows N        keys in the tree (default 1000000)
#   --large         --rows 5000000
#   --buffered M    keys in the insert buffer (default 12000: a 32-page
#                   buffer of int8 entries nearly full)
#   --pages P       osm_tree's buffer_size (default 32, the default setting)
#   --lookups L     keys looked up for the block counts (default 200)
#   --duration S    seconds per pgbench run (default 5)
#   --repeat R      pgbench runs per index (default 3; the best counts)
set -euo pipefail

# One brace group: bash parses the whole script before running it.
{

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=bench/lib.sh
. "$here/../lib.sh" "$@"

rows=1000000
buffered=12000
pages=32
lookups=200
duration=5
repeat=3
port=56097

while [ $# -gt 0 ]; do
	case $1 in
	--rows) need_int "$1" "${2-}"; rows=$2; shift 2 ;;
	--large) rows=5000000; shift ;;
	--buffered) need_int "$1" "${2-}"; buffered=$2; shift 2 ;;
	--pages) need_int "$1" "${2-}"; pages=$2; shift 2 ;;
	--lookups) need_int "$1" "${2-}"; lookups=$2; shift 2 ;;
	--duration) need_int "$1" "${2-}"; duration=$2; shift 2 ;;
	--repeat) need_int "$1" "${2-}"; repeat=$2; shift 2 ;;
	*) common_option "$@"; shift "$nshift" ;;
	esac
done
mkdir -p "$out"
out=$(cd "$out" && pwd)

cluster_setup buffer_lookups
results="$work/results.csv"
on_failure() { save_partial buffer-lookups; }

step "cluster: initdb in $work (rows=$rows, buffered=$buffered, pages=$pages)"
printf '%s\n' "shared_preload_libraries = 'elastic_index'" "osm_tree.flush_worker = off" |
	cluster_initdb bench/buffer_lookups/run.sh
step "cluster: start on port $port"
cluster_start
psql_b -c "CREATE EXTENSION elastic_index"
pg_version=$(psql_b -c "SELECT split_part(version(), ' on ', 1)")
ext_version=$(psql_b -c "SELECT extversion FROM pg_extension WHERE extname = 'elastic_index'")

# a prime step above the buffered range scrambles its keys
span=$((buffered + buffered / 2 + 1))
step "load: $rows keys into the trees, $buffered scrambled keys above them"
psql_b <<SQL
CREATE TABLE t_btree (k int8) WITH (autovacuum_enabled = off);
CREATE TABLE t_osm (k int8) WITH (autovacuum_enabled = off);
INSERT INTO t_btree SELECT g FROM generate_series(1, $rows) AS g;
INSERT INTO t_osm SELECT g FROM generate_series(1, $rows) AS g;
CREATE INDEX t_btree_k ON t_btree USING btree (k);
CREATE INDEX t_osm_k ON t_osm USING osm_tree (k)
	WITH (buffer_size = $pages, flush_fraction = 1, batch_size = 1);
SET osm_tree.top_inserts = off;
INSERT INTO t_btree SELECT $rows + 1 + (g::int8 * 7919) % $span FROM generate_series(1, $buffered) AS g;
INSERT INTO t_osm SELECT $rows + 1 + (g::int8 * 7919) % $span FROM generate_series(1, $buffered) AS g;
-- the visibility map for index-only scans, on both tables alike; without
-- index cleanup, which would flush osm_tree's buffer
VACUUM (INDEX_CLEANUP OFF, ANALYZE) t_btree, t_osm;
CREATE FUNCTION blocks(q text) RETURNS int8 LANGUAGE plpgsql AS \$fn\$
DECLARE
	plan		json;
BEGIN
	EXECUTE 'EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON, COSTS OFF, TIMING OFF, SUMMARY OFF) ' || q
		INTO plan;
	RETURN (plan->0->'Plan'->>'Shared Hit Blocks')::int8 +
		(plan->0->'Plan'->>'Shared Read Blocks')::int8;
END
\$fn\$;
SQL
IFS='|' read -r bpages bentries fkeys fbytes < <(psql_b -c \
	"SELECT pages, entries, filter_keys, filter_bytes FROM osm_tree_buffer_stats('t_osm_k')")
step "buffer: $bpages pages, $bentries entries; section filter $fkeys keys in $fbytes bytes"

# Block counts: avg, max and lookups over half the buffer's pages, per
# index and key range (tree: keys 1..N; buffer: keys in the buffer).
echo "index,keys,lookups,avg_blocks,max_blocks,lookups_over_half_buffer,tps" >"$results"
for idx in btree osm; do
	for range in tree buffer; do
		if [ "$range" = tree ]; then
			keyexpr="(g::int8 * 48271) % $rows + 1"
		else
			keyexpr="$rows + 1 + (((g::int8 * 104729) % $buffered) + 1) * 7919 % $span"
		fi
		line=$(psql_b -c "SET enable_seqscan = off" -c "SET enable_bitmapscan = off" -c "
			SELECT round(avg(b), 1), max(b), count(*) FILTER (WHERE b > $bpages / 2)
			FROM (SELECT blocks(format('SELECT k FROM t_$idx WHERE k = %s', $keyexpr)) AS b
				  FROM generate_series(1, $lookups) AS g) AS x")
		IFS='|' read -r avg max over <<<"$line"
		echo "$idx,$range,$lookups,$avg,$max,$over," >>"$results"
		step "$idx, keys in the $range: $avg blocks per lookup (max $max; $over of $lookups over $((bpages / 2)))"
	done
done

# pgbench point lookups and 100-key range scans over both ranges
for idx in btree osm; do
	printf '\\set k random(1, %d)\nSELECT k FROM t_%s WHERE k = :k;\n' \
		"$((rows + span))" "$idx" >"$work/point_$idx.sql"
	printf '\\set k random(1, %d)\nSELECT count(*) FROM t_%s WHERE k >= :k AND k < :k + 100;\n' \
		"$((rows + span))" "$idx" >"$work/range_$idx.sql"
	chown postgres: "$work/point_$idx.sql" "$work/range_$idx.sql" 2>/dev/null || true
done
declare -A tps=()
for ((r = 1; r <= repeat; r++)); do
	for w in point range; do
		for idx in btree osm; do
			t=$(as_pg "$PG_BINDIR/pgbench" -n -h "$sock" -p "$port" -U "$dbuser" \
				-T "$duration" -f "$work/${w}_$idx.sql" bench 2>&1 |
				awk '/^tps = / { printf "%.0f", $3 }')
			if [ -z "${tps[$w$idx]:-}" ] || [ "$t" -gt "${tps[$w$idx]}" ]; then
				tps[$w$idx]=$t
			fi
		done
	done
done
for idx in btree osm; do
	echo "$idx,point,,,,,${tps[point$idx]}" >>"$results"
	echo "$idx,range,,,,,${tps[range$idx]}" >>"$results"
done
step "point lookups: btree ${tps[pointbtree]} tps, osm_tree ${tps[pointosm]} tps"
step "range scans: btree ${tps[rangebtree]} tps, osm_tree ${tps[rangeosm]} tps"

# ---------------------------------------------------------------------------
# Report
# ---------------------------------------------------------------------------

step "report: $out/buffer-lookups.csv, $out/buffer-lookups.md"
cp "$results" "$out/buffer-lookups.csv"
commit=$(repo_commit "$repo")
awk -F, -v cmd="$command_line" -v date="$(date -u '+%Y-%m-%d %H:%M UTC')" \
	-v nproc="$(nproc)" -v pgver="$pg_version" -v extver="$ext_version" \
	-v commit="$commit" -v rows="$rows" -v buffered="$buffered" \
	-v bpages="$bpages" -v bentries="$bentries" -v fkeys="$fkeys" \
	-v fbytes="$fbytes" -v duration="$duration" -v repeat="$repeat" '
NR == 1 { next }
$2 == "tree" || $2 == "buffer" { blocks[$1, $2] = $4; maxb[$1, $2] = $5; over[$1, $2] = $6; n = $3 }
$2 == "point" || $2 == "range" { tps[$1, $2] = $7 }
END {
	printf "# Point lookups with a full osm_tree insert buffer\n\n"
	printf "Produced by `%s` (from the repository root) on %s.\n\n", cmd, date
	printf "- %s; elastic_index %s; repository commit %s; %s CPUs.\n", pgver, extver, commit, nproc
	printf "- Throwaway cluster: shared_buffers = 1GB, **fsync = off**, autovacuum = off, jit = off.\n"
	printf "- %d int8 keys in the tree of each index, then %d scrambled keys above them, one\n", rows, buffered
	printf "  entry at a time: in osm_tree into its insert buffer (`osm_tree.top_inserts = off`, no\n"
	printf "  flushes): %d pages, %d entries; its section filter holds %d keys in %d bytes.\n", bpages, bentries, fkeys, fbytes
	printf "  Then `VACUUM (INDEX_CLEANUP OFF)` of both tables sets the visibility map (index-only\n"
	printf "  scans read no heap page) and leaves the buffer as it is.\n"
	printf "- Blocks: index and heap pages one index scan touches (EXPLAIN BUFFERS), average of %d\n", n
	printf "  lookups. Without the section filter every lookup reads every buffer page but those\n"
	printf "  a zonemap or page filter rules out, each read, so at least %d more blocks for keys\n", bpages
	printf "  in the tree.\n"
	printf "- tps: pgbench point lookups and 100-key range scans (`count(*)` of `k >= :k AND\n"
	printf "  k < :k + 100`) from random keys over both ranges, 1 client, best of %d runs of %d s.\n\n", repeat, duration
	printf "| index | blocks, key in the tree (max; lookups over %d) | blocks, key in the buffer (max; over %d) | point tps | range tps |\n", bpages / 2, bpages / 2
	printf "|---|---|---|---:|---:|\n"
	split("btree osm", idx, " ")
	for (i = 1; i <= 2; i++) {
		k = idx[i]
		printf "| %s | %s (%s; %s) | %s (%s; %s) | %s | %s |\n", (k == "osm" ? "osm_tree" : k),
			blocks[k, "tree"], maxb[k, "tree"], over[k, "tree"],
			blocks[k, "buffer"], maxb[k, "buffer"], over[k, "buffer"],
			tps[k, "point"], tps[k, "range"]
	}
	if (tps["btree", "point"] > 0 && tps["btree", "range"] > 0)
		printf "\nosm_tree / btree: point lookups %.2f, range scans %.2f.\n",
			tps["osm", "point"] / tps["btree", "point"], tps["osm", "range"] / tps["btree", "range"]
}' "$results" >"$out/buffer-lookups.md"

step "done in $(($(date +%s) - start_epoch)) s"
exit 0
}
