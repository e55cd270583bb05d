#!/bin/bash
# bench/near_sorted/instructions.sh - the CPU instructions of a near-sorted
# COPY's index work, counted: a deterministic figure where timings on a busy
# machine are not.
#
# Near-sorted keys (K% of the rows out of place by up to L% of N, from
# elastic_index_near_sorted) are COPYed in transactions of --batch rows into
# a table with no index and with each index kind, and the same rows indexed
# by CREATE INDEX, each in a single-user backend run under valgrind's
# callgrind.  The instructions of the index work are the run's total less
# the run without an index.  CREATE INDEX runs serially there (a
# single-user backend starts no workers), so the last column compares the
# COPY's index work with a build's work, not with a parallel build's time.
# Needs valgrind; the extension must be installed for $PG_BINDIR.
#
# Usage: bench/near_sorted/instructions.sh [--rows N] [--sortedness K:L]
#          [--types "int8 timestamp"] [--batch B] [--kinds "osm btree"]
#          [--port P] [--out DIR] [--workdir DIR] [--keep]
#   --rows N        rows per data set (default 2000000)
#   --sortedness    K:L pairs (default "5:5")
#   --types         key types, int8 and/or timestamp (default "int8 timestamp")
#   --batch B       rows per COPY transaction (default 100000)
#   --kinds         index kinds: osm, elastic, btree (default "osm btree")
#   --out DIR       where near-sorted-instructions.md and .csv go
#                   (default docs/benchmarks)
#   PG_BINDIR       the server's binaries (default Debian's PostgreSQL 15)
# Each callgrind run takes one to three minutes at the default size.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib.sh" "$@"
command_line=${command_line/\/run.sh/\/instructions.sh}

rows=2000000
sortedness="5:5"
types="int8 timestamp"
batch=100000
kinds="osm btree"
port=55471
while [ $# -gt 0 ]; do
	case $1 in
	--rows) need_int "$1" "${2-}"; rows=$2; shift 2 ;;
	--sortedness) sortedness=${2:?}; shift 2 ;;
	--types) types=${2:?}; shift 2 ;;
	--batch) need_int "$1" "${2-}"; batch=$2; shift 2 ;;
	--kinds) kinds=${2:?}; shift 2 ;;
	*) common_option "$@"; shift "$nshift" ;;
	esac
done
command -v valgrind >/dev/null || {
	echo "instructions.sh: needs valgrind (apt-get install valgrind)" >&2
	exit 2
}

cluster_setup ei_instructions
results="$work/near-sorted-instructions.csv"
mkdir -p "$work/chunks"
[ "$(id -u)" -ne 0 ] || chown -R postgres: "$work/chunks"

step "cluster: initdb in $work (rows=$rows, sortedness='$sortedness', types='$types', batch=$batch, kinds='$kinds')"
cluster_initdb bench/near_sorted/instructions.sh <<EOF
shared_preload_libraries = 'elastic_index'
EOF
cluster_start
psql_b -c "CREATE EXTENSION elastic_index"
pg_version=$(psql_b -c "SELECT split_part(version(), ' on ', 1)")
ext_version=$(psql_b -c "SELECT extversion FROM pg_extension WHERE extname = 'elastic_index'")

# The USING clause of index kind $1.
am_of() {
	case $1 in
	btree) echo "btree (key)" ;;
	elastic) echo "elastic_btree (key)" ;;
	osm) echo "osm_tree (key)" ;;
	*) echo "instructions.sh: unknown index kind '$1' (osm, elastic, btree)" >&2; exit 2 ;;
	esac
}

# The data sets' chunks, written while the server runs.
for type in $types; do
	case $type in
	int8) expr="key" ;;
	timestamp) expr="timestamp '2000-01-01' + key * interval '1 second'" ;;
	*) echo "instructions.sh: unknown type '$type' (int8, timestamp)" >&2; exit 2 ;;
	esac
	for kl in $sortedness; do
		k=${kl%%:*}
		l=${kl##*:}
		step "$type K=$k% L=$l%: data"
		mkdir -p "$work/chunks/$type-$k-$l"
		[ "$(id -u)" -ne 0 ] || chown postgres: "$work/chunks/$type-$k-$l"
		psql_b <<EOF
DROP TABLE IF EXISTS src;
CREATE TABLE src AS
	SELECT pos AS arrival, $expr AS key FROM elastic_index_near_sorted($rows, $k, $l);
CREATE INDEX ON src (arrival);
EOF
		for ((c = 0; c * batch < rows; c++)); do
			psql_b -c "COPY (SELECT key FROM src WHERE arrival > $((c * batch)) AND arrival <= $(((c + 1) * batch)) ORDER BY arrival) TO '$work/chunks/$type-$k-$l/$c.csv'"
		done
	done
done
psql_b -c "DROP TABLE src"
as_pg "$PG_BINDIR/pg_ctl" -D "$data" -w stop >/dev/null
server_started=0

# Instructions of one single-user backend running the script on standard
# input ($1 names the run).
count() {
	as_pg valgrind --tool=callgrind --callgrind-out-file="$work/callgrind.$1" \
		"$PG_BINDIR/postgres" --single -D "$data" -c fsync=off bench \
		>"$work/$1.log" 2>&1
	grep -o 'Collected : [0-9]*' "$work/$1.log" | awk '{ print $3 }'
}

# The statements of a run: a new table of type $1, the index of kind $2
# before the COPYs ("none": no index) or, with $3 = build, after them.
script() {
	echo "DROP TABLE IF EXISTS t"
	echo "CREATE TABLE t (key $1)"
	[ "$2" = none ] || [ "${3-}" = build ] || echo "CREATE INDEX t_key ON t USING $(am_of "$2")"
	for f in $(ls "$chunkdir" | sort -n); do
		echo "COPY t FROM '$chunkdir/$f'"
	done
	[ "${3-}" != build ] || echo "CREATE INDEX t_key ON t USING $(am_of "$2")"
	echo "DROP TABLE t"
}

echo "type,k,l,kind,copy_instructions,index_copy_instructions_per_row,build_instructions_per_row,copy_build_ratio" >"$results"
for type in $types; do
	for kl in $sortedness; do
		k=${kl%%:*}
		l=${kl##*:}
		chunkdir="$work/chunks/$type-$k-$l"
		step "$type K=$k% L=$l%: no index"
		base=$(script "$type" none | count "$type-$k-$l-none")
		echo "$type,$k,$l,none,$base,,," >>"$results"
		for kind in $kinds; do
			step "$type K=$k% L=$l%: $kind, COPY"
			load=$(script "$type" "$kind" | count "$type-$k-$l-$kind")
			step "$type K=$k% L=$l%: $kind, CREATE INDEX"
			build=$(script "$type" "$kind" build | count "$type-$k-$l-$kind-build")
			awk -v t="$type" -v k="$k" -v l="$l" -v kind="$kind" -v base="$base" \
				-v load="$load" -v build="$build" -v rows="$rows" 'BEGIN {
				printf "%s,%s,%s,%s,%s,%.0f,%.0f,%.2f\n", t, k, l, kind, load,
					(load - base) / rows, (build - base) / rows, (load - base) / (build - base)
			}' >>"$results"
		done
	done
done

mkdir -p "$out"
cp "$results" "$out/"
{
	echo "# Near-sorted COPY: instructions of the index work"
	echo
	echo "Produced by \`$command_line\` (from the repository root) on $(date -u '+%Y-%m-%d %H:%M UTC')."
	echo
	echo "- $pg_version; elastic_index $ext_version; repository commit $(repo_commit "$repo")."
	echo "- $rows rows per data set from \`elastic_index_near_sorted(N, K, L)\`, COPY in transactions of $batch rows,"
	echo "  in a single-user backend under valgrind's callgrind (fsync off: instructions, not I/O)."
	echo "- Index instructions = the run's total less the run without an index; CREATE INDEX"
	echo "  runs serially here (no workers), so the ratio compares work, not a parallel build's time."
	echo "- valgrind runs a string instruction with a repeat prefix (\`rep stosb\`, \`rep movsb\`: glibc's"
	echo "  memset and memcpy of a few kilobytes and more) as a loop and counts every byte as an instruction:"
	echo "  each page zeroed (\`PageInit\`, 8,208 counted) or copied weighs far more in the count than in time."
	echo
	echo "| type | K% | L% | kind | COPY index instructions / row | CREATE INDEX instructions / row | ratio |"
	echo "|---|---:|---:|---|---:|---:|---:|"
	awk -F, 'NR > 1 && $4 != "none" { printf "| %s | %s | %s | %s | %s | %s | %s |\n", $1, $2, $3, $4, $6, $7, $8 }' "$results"
	echo
	echo "Raw totals are in near-sorted-instructions.csv."
} >"$out/near-sorted-instructions.md"
step "done: $out/near-sorted-instructions.md"
