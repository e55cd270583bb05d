#!/usr/bin/env bash
# bench/bounded_memory/run.sh - a large COPY into osm_tree within a stated
# memory bound (osm_tree.batch_memory), with shared_buffers smaller than
# the index: index maintenance time and size against btree's, and the COPY
# backend's peak memory against the bound.
#
# One throwaway cluster, fsync and synchronous_commit on, shared_buffers
# --shared-buffers (default rows x 8 bytes, at least 4MB: 38MB at the
# default 5M rows, 400MB at --large's 50M, each well below the size of
# either index).  --rows int8 keys 1..N in a K=L=5% near-sorted arrival
# order (elastic_index_near_sorted) are loaded into a fresh table with no
# index (the baseline), a btree index, an osm_tree index with the default
# settings (osm: osm_tree.batch_memory 8MB and batch_size
# 100000), and one osm_tree index per value of --memory (osm@SIZE), by COPY
# from server-side files in two modes:
#
#   one       all rows in one COPY, one transaction;
#   batched   one COPY, one transaction, per --batch rows.
#
# The osm@SIZE loads run with osm_tree.batch_memory set to SIZE and
# osm_tree.batch_size at its largest (10000000), so that memory, not the
# entry count, decides when a batch is applied.  Each round loads every
# kind once per mode, interleaved; the best (smallest) time of --rounds
# rounds counts.  Index maintenance is a load's time minus the no-index
# load's of the same mode (best against best), reported as a ratio to
# btree's from the same run.  After each batched load of btree and of the
# default osm_tree, a CREATE INDEX of the same kind over the rows it left
# (beside its index, default settings) is timed; the fastest build is the
# physical limit the load's index time is compared with.
#
# Memory: a side loop reads RssAnon (the backend's private resident memory;
# VmHWM would count the shared buffers it touched) from /proc/<pid>/status
# of the COPY backend every ~100 ms, from just before the COPY starts until
# its session ends.  "growth" is the peak minus the value before the COPY;
# "over none" is that growth minus the no-index load's growth in the same
# mode (the heap COPY's own memory), the memory the index's maintenance
# took, which for osm_tree must stay below the bound plus 256 kB (the
# constant of src/README.md, "Batches", and what the backend keeps for the
# index whatever its batch): the report says whether it did in every
# round.  batches is elastic_index_stat_activity's batches_applied for the
# load.
#
# Results: docs/benchmarks/bounded-memory.csv (per round and load) and
# bounded-memory.md, or --out DIR.  The extension must be installed ("make
# install"); PG_BINDIR (default Debian's 15) chooses the server.
#
# Usage: bench/bounded_memory/run.sh [--rows N] [--small | --large]
#            [--memory "16MB 64MB"] [--batch B] [--rounds R]
#            [--shared-buffers SIZE]
#            [--port P] [--out DIR] [--workdir DIR] [--keep]
#
#   --rows N            rows per load (default 5000000: about 20 minutes on
#                       2 cores)
#   --small             --rows 500000 --rounds 1 --memory 1MB (a quick
#                       try; do not commit its figures)
#   --large             --rows 50000000 (the size issue 24 asks for)
#   --memory "V ..."    osm_tree.batch_memory values, one osm@V load each
#                       besides the default-settings osm load (default
#                       "64MB")
#   --batch B           rows per transaction in the batched mode (default
#                       100000)
#   --rounds R          loads per kind and mode, interleaved; the best
#                       counts (default 3)
#   --shared-buffers S  the server's shared_buffers (default above)
set -euo pipefail

# One brace group: bash parses the whole script before running it.
{

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=bench/lib.sh
. "$here/../lib.sh" "$@"

rows=5000000
memory="64MB"
batch=100000
rounds=3
shared_buffers=""
port=56130
kl=5
# what the bound allows beyond batch_memory (src/README.md, "Batches")
slack_kb=256

while [ $# -gt 0 ]; do
	case $1 in
	--rows) need_int "$1" "${2-}"; rows=$2; shift 2 ;;
	--small) rows=500000; rounds=1; memory=1MB; shift ;;
	--large) rows=50000000; shift ;;
	--memory) memory=${2:?--memory needs sizes}; shift 2 ;;
	--batch) need_int "$1" "${2-}"; batch=$2; shift 2 ;;
	--rounds) need_int "$1" "${2-}"; rounds=$2; shift 2 ;;
	--shared-buffers) shared_buffers=${2:?--shared-buffers needs a size}; shift 2 ;;
	*) common_option "$@"; shift "$nshift" ;;
	esac
done
for m in $memory; do
	if ! [[ $m =~ ^[1-9][0-9]*(kB|MB|GB)$ ]]; then
		echo "run.sh: --memory takes sizes like 64MB, got '$m'" >&2
		exit 2
	fi
done
if [ -z "$shared_buffers" ]; then
	sb_mb=$((rows * 8 / 1048576))
	[ "$sb_mb" -ge 4 ] || sb_mb=4
	shared_buffers="${sb_mb}MB"
fi
mkdir -p "$out"
out=$(cd "$out" && pwd)

# shellcheck disable=SC2317 # called by cleanup
on_failure() {
	save_partial bounded-memory
}

cluster_setup elastic_bounded_memory
results="$work/results.csv"
mkdir -p "$work/chunks"
[ "$(id -u)" -ne 0 ] || chown postgres: "$work/chunks"

step "cluster: initdb in $work (rows=$rows, memory='$memory', batch=$batch, rounds=$rounds, shared_buffers=$shared_buffers)"
cluster_initdb bench/bounded_memory/run.sh <<EOF
shared_preload_libraries = 'elastic_index'
shared_buffers = $shared_buffers
fsync = on
synchronous_commit = on
EOF
step "cluster: start on port $port"
cluster_start

pg_version=$(psql_b -c "SELECT split_part(version(), ' on ', 1)")
psql_b -c "CREATE EXTENSION elastic_index"
ext_version=$(psql_b -c "SELECT extversion FROM pg_extension WHERE extname = 'elastic_index'")
work_mem=$(psql_b -c "SHOW work_mem")
sb_bytes=$(psql_b -c "SELECT setting::int8 * 8192 FROM pg_settings WHERE name = 'shared_buffers'")

# The data: all rows in arrival order in one file, and in files of --batch
# rows.
step "data: $rows keys, K=L=$kl%"
psql_b -c "CREATE TABLE src AS SELECT pos, key FROM elastic_index_near_sorted($rows, $kl, $kl)" \
	-c "CREATE INDEX ON src (pos)" -c "ANALYZE src"
psql_b -c "COPY (SELECT key FROM src ORDER BY pos) TO '$work/chunks/all.csv'"
nfiles=$(((rows + batch - 1) / batch))
for ((f = 0; f < nfiles; f++)); do
	psql_b -c "COPY (SELECT key FROM src WHERE pos > $((f * batch)) AND pos <= $(((f + 1) * batch)) ORDER BY pos) TO '$work/chunks/$f.csv'"
done
psql_b -c "DROP TABLE src"

# The COPY script of mode $1: the session's pid to $work/pid first.
copy_script() {
	echo "\\o $work/pid"
	echo "SELECT pg_backend_pid();"
	echo "\\o"
	echo "SELECT pg_sleep(0.3);"
	case $1 in
	one) echo "COPY t FROM '$work/chunks/all.csv';" ;;
	batched)
		for ((f = 0; f < nfiles; f++)); do
			echo "COPY t FROM '$work/chunks/$f.csv';"
		done
		;;
	esac
}
copy_script one >"$work/one.sql"
copy_script batched >"$work/batched.sql"
[ "$(id -u)" -ne 0 ] || chown postgres: "$work"/*.sql "$work"

# RssAnon in kB of process $1, or nothing once it has gone.
rss_anon() {
	awk '/^RssAnon:/ { print $2 }' "/proc/$1/status" 2>/dev/null || true
}

# Sample RssAnon of the backend named in $work/pid every ~100 ms until it
# ends; print the first sample and the peak.
sample_memory() {
	local pid="" first="" peak=0 v
	while [ -z "$pid" ]; do
		sleep 0.02
		pid=$(tr -d ' \n' 2>/dev/null <"$work/pid" || true)
	done
	while v=$(rss_anon "$pid") && [ -n "$v" ]; do
		[ -n "$first" ] || first=$v
		[ "$v" -le "$peak" ] || peak=$v
		sleep 0.1
	done
	echo "$first $peak"
}

# The index DDL of kind $1 (none, btree, osm@SIZE).
index_ddl() {
	case $1 in
	none) ;;
	btree) echo "CREATE INDEX t_key ON t USING btree (key);" ;;
	osm*) echo "CREATE INDEX t_key ON t USING osm_tree (key);" ;;
	esac
}

# The session settings of kind $1.
kind_settings() {
	case $1 in
	osm@*) echo "-c osm_tree.batch_memory=${1#osm@} -c osm_tree.batch_size=10000000" ;;
	*) echo "" ;;
	esac
}

kinds="none btree osm"
for m in $memory; do
	kinds+=" osm@$m"
done

echo "round,mode,kind,batch_memory_kb,load_s,index_bytes,rss_before_kb,rss_peak_kb,batches,build_s" >"$results"
for ((r = 1; r <= rounds; r++)); do
	for mode in one batched; do
		for kind in $kinds; do
			psql_b -c "DROP TABLE IF EXISTS t" -c "CREATE TABLE t (key int8)"
			[ "$kind" = none ] || psql_b -c "$(index_ddl "$kind")"
			psql_b -c "CHECKPOINT"
			bound_kb=""
			if [[ $kind == osm* ]]; then
				bound_kb=$(PGOPTIONS="$(kind_settings "$kind")" psql_b -c "SELECT CASE WHEN m.setting = '-1' THEN w.setting ELSE m.setting END FROM pg_settings m, pg_settings w WHERE m.name = 'osm_tree.batch_memory' AND w.name = 'work_mem'")
			fi
			rm -f "$work/pid"
			sample_memory >"$work/mem" &
			sampler=$!
			t0=$(now)
			PGOPTIONS="$(kind_settings "$kind")" psql_b -f "$work/$mode.sql" >/dev/null
			t1=$(now)
			wait "$sampler"
			read -r before peak <"$work/mem"
			size="" batches=""
			if [ "$kind" != none ]; then
				size=$(psql_b -c "SELECT pg_relation_size('t_key')")
				[ "$kind" = btree ] || batches=$(psql_b -c "SELECT batches_applied FROM elastic_index_stat_activity WHERE indexrelname = 't_key'")
			fi
			load=$(elapsed "$t0" "$t1")

			# A CREATE INDEX over the rows the batched load left, beside
			# its index: the physical limit the load's index time is
			# held to (issue 24: at most 1.3x).  btree's and the default
			# osm_tree's; an osm@SIZE build would be the same build.
			build=""
			if [ "$mode" = batched ] && { [ "$kind" = btree ] || [ "$kind" = osm ]; }; then
				# a scan first sets the new rows' hint bits (and the
				# checkpoint writes them), so the build does not pay
				psql_b -c "SELECT count(*) FROM t" >/dev/null
				psql_b -c "CHECKPOINT"
				b0=$(now)
				psql_b -c "$(index_ddl "$kind" | sed 's/t_key/t_build/')"
				b1=$(now)
				build=$(elapsed "$b0" "$b1")
				psql_b -c "DROP INDEX t_build"
			fi
			echo "$r,$mode,$kind,$bound_kb,$load,$size,$before,$peak,$batches,$build" >>"$results"
			step "round $r $mode $kind: load $load s, size $size, RssAnon $before -> $peak kB, batches $batches${build:+, CREATE INDEX $build s}"
		done
	done
done

cp "$results" "$out/bounded-memory.csv"
awk -F, -v cmd="$command_line" -v pgver="$pg_version" -v extver="$ext_version" \
	-v rows="$rows" -v batch="$batch" -v rounds="$rounds" -v sb="$shared_buffers" \
	-v workmem="$work_mem" -v slack="$slack_kb" -v sbbytes="$sb_bytes" -v nproc="$(nproc)" \
	-v date="$(date -u '+%Y-%m-%d %H:%M UTC')" -v commit="$(repo_commit "$repo")" '
NR == 1 { next }
{
	key = $2 SUBSEP $3
	if (!(key in best) || $5 + 0 < best[key] + 0) best[key] = $5
	size[key] = $6
	if ($6 != "" && (minsize == "" || $6 + 0 < minsize + 0)) minsize = $6
	bound[$3] = $4
	grow = $8 - $7
	if (!(key in maxgrow) || grow > maxgrow[key]) maxgrow[key] = grow
	growth[$1, $2, $3] = grow
	if ($9 != "") batches[key] = $9
	if ($10 != "" && (!(key in build) || $10 + 0 < build[key] + 0)) build[key] = $10
	if (!($3 in seen)) { seen[$3] = 1; kinds[++nk] = $3 }
	lastround = $1
}
END {
	print "# A large COPY within a stated memory bound"
	print ""
	printf "`%s`, %s, elastic_index %s, commit %s, %s, %d cores.\n\n", cmd, pgver, extver, commit, date, nproc
	print "- Throwaway cluster: shared_buffers = " sb ", fsync = on, synchronous_commit = on, autovacuum = off, jit = off, work_mem = " workmem ", maintenance_work_mem = 512MB."
	printf "- %d int8 keys, K = L = 5%% near-sorted; COPY of all rows in one transaction (one) and in %d-row transactions (batched); best of %d interleaved rounds.\n", rows, batch, rounds
	print "- osm: the default settings (osm_tree.batch_memory 8MB, batch_size 100000); osm@SIZE: osm_tree.batch_memory = SIZE, osm_tree.batch_size = 10000000 (memory decides when a batch is applied)."
	printf "- shared_buffers (%.1f MB) is smaller than the smallest index (%.1f MB): %s.\n", sbbytes / 1048576, minsize / 1048576, (sbbytes + 0 < minsize + 0) ? "yes" : "no"
	print "- Index maintenance: load time minus the no-index load time of the same mode; ratio to btree in the same run."
	print "- CREATE INDEX: the fastest build over the rows a batched load left (beside its index; default settings, so with parallel workers); index / build = the index time of that load over the build (issue 24: at most 1.3x)."
	print "- Memory: the COPY backend'"'"'s RssAnon sampled every ~100 ms; growth = peak - value before the COPY, the largest over the rounds; over none = growth - the no-index load'"'"'s growth. Bound held: over none <= batch_memory + " slack " kB in every round."
	print ""
	print "| mode | kind | load s | index s | vs btree | index MB | batches | growth MB | over none MB | bound MB | bound held | CREATE INDEX s | index / build |"
	print "|---|---|---|---|---|---|---|---|---|---|---|---|---|"
	split("one batched", modes, " ")
	for (m = 1; m <= 2; m++) {
		mode = modes[m]
		base = best[mode, "none"]
		bt = best[mode, "btree"] - base
		for (i = 1; i <= nk; i++) {
			k = kinds[i]
			key = mode SUBSEP k
			if (!(key in best)) continue
			idx = best[key] - base
			ratio = (k == "none" || bt <= 0) ? "" : sprintf("%.2fx", idx / bt)
			held = ""
			if (bound[k] != "") {
				held = "yes"
				for (r = 1; r <= lastround; r++)
					if (growth[r, mode, k] - growth[r, mode, "none"] > bound[k] + slack) held = "no"
			}
			printf "| %s | %s | %.2f | %s | %s | %s | %s | %.1f | %s | %s | %s | %s | %s |\n", mode, k, best[key], \
				k == "none" ? "" : sprintf("%.2f", idx), ratio, \
				size[key] == "" ? "" : sprintf("%.1f", size[key] / 1048576), batches[key], \
				maxgrow[key] / 1024, k == "none" ? "" : sprintf("%.1f", (maxgrow[key] - maxgrow[mode, "none"]) / 1024), \
				bound[k] == "" ? "" : sprintf("%.1f", bound[k] / 1024), held, \
				(key in build) ? sprintf("%.2f", build[key]) : "", \
				(key in build && build[key] > 0) ? sprintf("%.2fx", idx / build[key]) : ""
		}
	}
}' "$results" >"$out/bounded-memory.md"
step "report: $out/bounded-memory.csv, $out/bounded-memory.md"
if command -v gnuplot >/dev/null; then
	step "plot: $out/bounded-memory.png"
	bash "$here/plot.sh" "$out" "$command_line" >/dev/null ||
		echo "run.sh: bench/bounded_memory/plot.sh failed; the CSV and the report are written" >&2
	printf '\n![bounded-memory.png: index maintenance / btree and the memory the index took, per load mode and kind](bounded-memory.png)\n\nDrawn from bounded-memory.csv by `bench/bounded_memory/plot.sh` (`bench/bounded_memory/plot.sh DIR` redraws it).\n' >>"$out/bounded-memory.md"
fi
step "done in $((($(date +%s) - start_epoch) / 60)) min $((($(date +%s) - start_epoch) % 60)) s"
exit 0
}
