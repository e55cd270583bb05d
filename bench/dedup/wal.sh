#!/usr/bin/env bash
# bench/dedup/wal.sh - WAL volume of growing an index with posting lists
# (deduplicate_items = on) from empty: --rows rows inserted by one INSERT
# ... SELECT into a table with the index, after a CHECKPOINT; the WAL bytes
# are the difference of pg_current_wal_lsn() around the INSERT, and
# pg_walinspect's pg_get_wal_stats splits them by record type.  Columns:
#   int4_10   i % 10 (10 distinct int4 values, in turn)
#   int8_15   hashint4(i / 15) % 66667 (~15 rows per int8 key, keys in
#             random order)
# Kinds: elastic_btree with deduplicate_items = on, btree, and no index
# (the table's own WAL).  WAL bytes do not depend on the machine's load;
# src/README.md ("Posting lists", Insert) quotes the figures.
#
# Usage: bench/dedup/wal.sh [--rows N] [--port P] [--workdir DIR] [--keep]
#
#   --rows N        rows inserted (default 1000000)
set -euo pipefail

# One brace group: bash parses the whole script before running it.
{

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=bench/lib.sh
. "$here/../lib.sh" "$@"

rows=1000000
port=56132

while [ $# -gt 0 ]; do
	case $1 in
	--rows) need_int "$1" "${2-}"; rows=$2; shift 2 ;;
	*) common_option "$@"; shift "$nshift" ;;
	esac
done

cluster_setup dedup_wal
step "cluster: initdb in $work (rows=$rows)"
printf '%s\n' "shared_preload_libraries = 'elastic_index'" "checkpoint_timeout = 1h" \
	"max_wal_size = 20GB" | cluster_initdb bench/dedup/wal.sh
cluster_start
psql_b -c "CREATE EXTENSION elastic_index" -c "CREATE EXTENSION pg_walinspect"

# one line per column: name:type:expression of i
columns='int4_10:int4:i % 10
int8_15:int8:(hashint4(i / 15) % 66667)::int8'
index_of() {
	case $1 in
	elastic_dedup) echo "CREATE INDEX t_k ON t USING elastic_btree (k) WITH (deduplicate_items = on)" ;;
	btree) echo "CREATE INDEX t_k ON t USING btree (k)" ;;
	none) echo "DROP INDEX IF EXISTS t_k" ;;
	esac
}

printf '| column | kind | WAL bytes | index bytes | dedup records (bytes each) | page images of the index |\n'
printf '|---|---|---:|---:|---:|---:|\n'
while IFS=: read -r col type expr; do
	[ -n "$col" ] || continue
	for kind in elastic_dedup btree none; do
		psql_b <<SQL
DROP TABLE IF EXISTS t;
CREATE TABLE t (k $type) WITH (autovacuum_enabled = off);
$(index_of "$kind");
CHECKPOINT;
SELECT pg_current_wal_lsn() AS s \gset
INSERT INTO t SELECT $expr FROM generate_series(1, $rows) AS i;
SELECT pg_current_wal_lsn() AS e \gset
SELECT format('| %s | %s | %s | %s | %s (%s) | %s |', '$col', '$kind',
	pg_wal_lsn_diff(:'e', :'s'), coalesce(pg_relation_size(to_regclass('t_k')), 0),
	count(*) FILTER (WHERE description LIKE 'dedup:%'),
	coalesce(round(avg(record_length) FILTER (WHERE description LIKE 'dedup:%')), 0),
	count(*) FILTER (WHERE record_type = 'FPI' AND to_regclass('t_k') IS NOT NULL
		AND block_ref ~ ('/' || pg_relation_filenode(to_regclass('t_k')) || '[ ,]')))
FROM pg_get_wal_records_info(:'s', :'e');
SQL
	done
done <<<"$columns"

step "done in $((($(date +%s) - start_epoch) / 60)) min $((($(date +%s) - start_epoch) % 60)) s"
exit 0
}
