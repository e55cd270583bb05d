#!/usr/bin/env bash
# Show elastic_index at work: build and install it (scripts/setup.sh), start a
# throw-away PostgreSQL 15 cluster, load an orders table, build elastic_btree
# and btree indexes side by side, run queries, inspect and verify the
# indexes, make one compact, load near-sorted events into btree and
# osm_tree, then simulate a crash and check the indexes after WAL replay.
#
# Environment: DEMO_ROWS (default 1000000), DEMO_PORT (default 54400).
# The cluster lives in a temporary directory that is removed on exit.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
repo=$(pwd)

PG_MAJOR=15
PG_BINDIR=/usr/lib/postgresql/${PG_MAJOR}/bin
export PG_CONFIG=${PG_BINDIR}/pg_config
ROWS=${DEMO_ROWS:-1000000}
PORT=${DEMO_PORT:-54400}

bash "$repo/scripts/setup.sh"

# Run a command as the postgres OS user (initdb refuses to run as root).
as_postgres() {
	if [ "$(id -un)" = postgres ]; then
		"$@"
	elif [ "$(id -u)" -eq 0 ]; then
		runuser -u postgres -- "$@"
	else
		sudo -u postgres -- "$@"
	fi
}

tmp=$(mktemp -d /tmp/elastic_index_demo.XXXXXX)
if [ "$(id -un)" != postgres ]; then
	if [ "$(id -u)" -eq 0 ]; then
		chown postgres: "$tmp"
	else
		sudo chown postgres: "$tmp"
	fi
fi
cd "$tmp"
data=$tmp/data

# Stop the server if it runs and remove the temporary directory.
cleanup() {
	status=$?
	if as_postgres test -f "$data/postmaster.pid"; then
		as_postgres "$PG_BINDIR/pg_ctl" -D "$data" -m fast -w stop >/dev/null 2>&1 || true
	fi
	if [ "$status" -ne 0 ] && as_postgres test -f "$tmp/server.log"; then
		echo "---------- last lines of the server log" >&2
		as_postgres tail -n 40 "$tmp/server.log" >&2 || true
	fi
	cd /
	as_postgres rm -rf "$tmp" 2>/dev/null || rm -rf "$tmp"
	exit "$status"
}
trap cleanup EXIT

# psql against the demo cluster, stopping at the first error.
demo_psql() {
	as_postgres "$PG_BINDIR/psql" -X -q -v ON_ERROR_STOP=1 -v rows="$ROWS" \
		-h "$tmp" -p "$PORT" -d postgres "$@"
}

# Write a file into the temporary directory as postgres (from stdin).
put_file() {
	as_postgres tee "$1" >/dev/null
}

echo
echo "== Starting a throw-away PostgreSQL ${PG_MAJOR} cluster on port $PORT"
as_postgres "$PG_BINDIR/initdb" -D "$data" -A trust -E UTF8 --locale=C.UTF-8 \
	>"$tmp/initdb.log" 2>&1 || { cat "$tmp/initdb.log"; exit 1; }
put_file "$data/postgresql.auto.conf" <<EOF
port = $PORT
listen_addresses = ''
unix_socket_directories = '$tmp'
shared_preload_libraries = 'elastic_index'
maintenance_work_mem = '256MB'
# elastic_btree builds serially; make btree build serially too, to compare.
max_parallel_maintenance_workers = 0
max_wal_size = '4GB'
checkpoint_timeout = '30min'
timezone = 'UTC'
EOF
as_postgres "$PG_BINDIR/pg_ctl" -D "$data" -l "$tmp/server.log" -w start >/dev/null
demo_psql -At -c "SELECT version()"

put_file "$tmp/demo1.sql" <<'EOF'
\pset footer off
\echo
\echo '== 1. The extension'
CREATE EXTENSION elastic_index;
SELECT e.extname AS extension, e.extversion AS version, a.amname AS access_method,
       obj_description(a.oid, 'pg_am') AS description
FROM pg_extension e, pg_am a
WHERE e.extname = 'elastic_index' AND a.amname = 'elastic_btree';

-- Helper: run one statement, remember how long it took.
CREATE TABLE demo_timings (seq serial, step text, index_name text, ms numeric);
CREATE FUNCTION demo_timed(step text, index_name text, cmd text) RETURNS text
LANGUAGE plpgsql AS $$
DECLARE
	t0 timestamptz := clock_timestamp();
	ms numeric;
BEGIN
	EXECUTE cmd;
	ms := round(extract(epoch FROM clock_timestamp() - t0) * 1000, 1);
	INSERT INTO demo_timings (step, index_name, ms) VALUES (step, index_name, ms);
	RETURN format('%-45s %10s ms', step, ms);
END $$;

\echo
\echo '== 2. Loading' :rows 'orders (deterministic pseudo-random data)'
CREATE TABLE orders (
	id          bigint NOT NULL,
	customer    text NOT NULL,
	amount      numeric(10, 2) NOT NULL,
	created_at  timestamptz NOT NULL
);
\pset tuples_only on
\pset format unaligned
SELECT demo_timed('load orders', NULL, format($$
	INSERT INTO orders (id, customer, amount, created_at)
	SELECT n,
	       'customer_' || (1 + (hashint4(n) & 2147483647) %% 50000),
	       round(1 + ((hashint4(n * 31) & 2147483647) %% 500000) / 100.0, 2),
	       timestamptz '2024-01-01 00:00:00+00'
	         + n * interval '30 seconds'
	         + ((hashint4(n * 17) & 1023) - 512) * interval '1 second'
	FROM generate_series(1, %s) AS n$$, :rows));
\pset format aligned
\pset tuples_only off
VACUUM (ANALYZE) orders;
SELECT * FROM orders ORDER BY id LIMIT 5;
SELECT count(*) AS orders, count(DISTINCT customer) AS customers,
       min(created_at) AS first_order, max(created_at) AS last_order,
       pg_size_pretty(pg_relation_size('orders')) AS table_size
FROM orders;

\echo
\echo '== 3. Building indexes (serial builds, maintenance_work_mem = 256MB)'
\pset tuples_only on
\pset format unaligned
SELECT demo_timed('elastic_btree on (created_at)', 'orders_created_at_ei',
	'CREATE INDEX orders_created_at_ei ON orders USING elastic_btree (created_at)');
SELECT demo_timed('elastic_btree on (customer)', 'orders_customer_ei',
	'CREATE INDEX orders_customer_ei ON orders USING elastic_btree (customer)');
SELECT demo_timed('btree on (created_at)', 'orders_created_at_bt',
	'CREATE INDEX orders_created_at_bt ON orders USING btree (created_at)');
SELECT demo_timed('btree on (customer)', 'orders_customer_bt',
	'CREATE INDEX orders_customer_bt ON orders USING btree (customer)');
SELECT demo_timed('btree on (customer), deduplicate_items = off', 'orders_customer_bt_nodedup',
	'CREATE INDEX orders_customer_bt_nodedup ON orders USING btree (customer) WITH (deduplicate_items = off)');
\pset format aligned
\pset tuples_only off

\echo
\echo '== 4. Build time and size'
SELECT t.index_name AS index, a.amname AS method, t.ms AS build_ms,
       pg_relation_size(c.oid) / current_setting('block_size')::int AS pages,
       pg_size_pretty(pg_relation_size(c.oid)) AS size
FROM demo_timings t
JOIN pg_class c ON c.relname = t.index_name
JOIN pg_am a ON a.oid = c.relam
ORDER BY t.seq;
\echo 'btree stores duplicate keys once per posting list (deduplication);'
\echo 'elastic_btree stores one entry per row, like btree with deduplicate_items = off.'

\echo
\echo '== 5. elastic_index_stats() next to the btree on the same column'
\x on
SELECT p.elastic AS elastic_index, s.am, s.format_version, s.height, s.root_block,
       s.total_pages, s.meta_pages, s.inner_pages, s.leaf_pages,
       s.entries, s.dead_entries, s.inner_entries,
       pg_size_pretty(s.free_bytes) AS free_space,
       round(s.leaf_fill::numeric, 3) AS leaf_fill,
       round(s.avg_entry_bytes::numeric, 1) AS avg_entry_bytes,
       pg_size_pretty(pg_relation_size(p.elastic)) AS elastic_size,
       p.btree AS btree_index,
       pg_size_pretty(pg_relation_size(p.btree)) AS btree_size
FROM (VALUES ('orders_created_at_ei'::regclass, 'orders_created_at_bt'::regclass),
             ('orders_customer_ei'::regclass, 'orders_customer_bt'::regclass)) AS p(elastic, btree),
     LATERAL elastic_index_stats(p.elastic) AS s;
\x off

\echo
\echo '== 6. Queries (btree indexes dropped so that the planner uses elastic_btree)'
DROP INDEX orders_created_at_bt, orders_customer_bt, orders_customer_bt_nodedup;
ANALYZE orders;

\echo
\echo '-- point lookup: every order of one customer'
EXPLAIN (ANALYZE, BUFFERS, COSTS OFF)
SELECT * FROM orders WHERE customer = 'customer_4242';
SELECT count(*) AS orders, sum(amount) AS total FROM orders WHERE customer = 'customer_4242';

\echo
\echo '-- range: one day of orders'
EXPLAIN (ANALYZE, BUFFERS, COSTS OFF)
SELECT count(*), sum(amount) FROM orders
WHERE created_at >= '2024-03-01' AND created_at < '2024-03-02';
SELECT count(*) AS orders, sum(amount) AS total FROM orders
WHERE created_at >= '2024-03-01' AND created_at < '2024-03-02';

\echo
\echo '-- ORDER BY ... LIMIT: the five latest orders'
EXPLAIN (ANALYZE, BUFFERS, COSTS OFF)
SELECT * FROM orders ORDER BY created_at DESC LIMIT 5;
SELECT * FROM orders ORDER BY created_at DESC LIMIT 5;

\echo
\echo '-- ORDER BY ... LIMIT from a starting point'
EXPLAIN (ANALYZE, BUFFERS, COSTS OFF)
SELECT * FROM orders WHERE created_at >= '2024-06-01' ORDER BY created_at LIMIT 5;
SELECT * FROM orders WHERE created_at >= '2024-06-01' ORDER BY created_at LIMIT 5;

\echo
\echo '-- range over the text column (index-only scan when possible)'
EXPLAIN (ANALYZE, BUFFERS, COSTS OFF)
SELECT count(*) FROM orders WHERE customer BETWEEN 'customer_100' AND 'customer_109';
SELECT count(*) AS orders FROM orders WHERE customer BETWEEN 'customer_100' AND 'customer_109';

\echo
\echo '== 7. Same answers with and without the indexes'
CREATE TABLE demo_answers (query text, phase text, answer text);
CREATE FUNCTION demo_collect(phase text) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
	q record;
	a text;
BEGIN
	FOR q IN SELECT * FROM (VALUES
		('point lookup', $q$SELECT count(*) || ' rows, ids ' || md5(string_agg(id::text, ',' ORDER BY id)) FROM orders WHERE customer = 'customer_4242'$q$),
		('one day', $q$SELECT count(*) || ' rows, sum ' || sum(amount) FROM orders WHERE created_at >= '2024-03-01' AND created_at < '2024-03-02'$q$),
		('latest 5', $q$SELECT string_agg(id::text, ',') FROM (SELECT id FROM orders ORDER BY created_at DESC, id LIMIT 5) s$q$),
		('customer range', $q$SELECT count(*) || ' rows' FROM orders WHERE customer BETWEEN 'customer_100' AND 'customer_109'$q$),
		('before 2024-01-02', $q$SELECT count(*) || ' rows' FROM orders WHERE created_at < '2024-01-02'$q$)
	) AS v(name, sql)
	LOOP
		EXECUTE q.sql INTO a;
		INSERT INTO demo_answers VALUES (q.name, phase, a);
	END LOOP;
END $$;
DO $$ BEGIN PERFORM demo_collect('index'); END $$;
SET enable_indexscan = off;
SET enable_indexonlyscan = off;
SET enable_bitmapscan = off;
DO $$ BEGIN PERFORM demo_collect('seqscan'); END $$;
RESET enable_indexscan;
RESET enable_indexonlyscan;
RESET enable_bitmapscan;
SELECT i.query, i.answer AS with_index, s.answer = i.answer AS same_as_seqscan
FROM demo_answers i JOIN demo_answers s ON s.query = i.query AND s.phase = 'seqscan'
WHERE i.phase = 'index';

\echo
\echo '== 8. Writes after the build: insert 50000 rows, update and delete every 50th, VACUUM'
\pset tuples_only on
\pset format unaligned
SELECT demo_timed('insert 50000 orders', NULL, format($$
	INSERT INTO orders (id, customer, amount, created_at)
	SELECT n,
	       'customer_' || (1 + (hashint4(n) & 2147483647) %% 50000),
	       round(1 + ((hashint4(n * 31) & 2147483647) %% 500000) / 100.0, 2),
	       timestamptz '2024-01-01 00:00:00+00' + (hashint4(n * 7) & 2147483647) %% 31536000 * interval '1 second'
	FROM generate_series(%s + 1, %s + 50000) AS n$$, :rows, :rows));
SELECT demo_timed('update every 50th order (new created_at)', NULL,
	$$UPDATE orders SET created_at = created_at + interval '1 hour' WHERE id % 50 = 0$$);
SELECT demo_timed('delete every 50th order', NULL,
	$$DELETE FROM orders WHERE id % 50 = 1$$);
\pset format aligned
\pset tuples_only off
\timing on
VACUUM orders;
\timing off
SELECT s.index_name AS index, e.height, e.total_pages, e.leaf_pages, e.entries, e.dead_entries,
       round(e.leaf_fill::numeric, 3) AS leaf_fill
FROM (VALUES ('orders_created_at_ei'), ('orders_customer_ei')) AS s(index_name),
     LATERAL elastic_index_stats(s.index_name::regclass) AS e;
SELECT count(*) AS rows_in_table FROM orders;

\echo
\echo '== 9. elastic_index_check(index, heapallindexed => true)'
SELECT v.idx AS index, 'structure ok, every row indexed' AS result
FROM (VALUES ('orders_created_at_ei'::regclass), ('orders_customer_ei'::regclass)) AS v(idx),
     LATERAL (SELECT elastic_index_check(v.idx, true)) AS c;

\echo
\echo '== 9b. Elasticity: compact leaves for the created_at index, then more writes'
\echo 'elastic_btree_shrink converts every leaf to a compact leaf (a SeqTree of'
\echo 'discriminating bits plus heap TIDs, no keys); with a size bound, full leaves'
\echo 'are converted like this instead of split once the index nears the bound.'
SELECT pg_relation_size('orders_created_at_ei') AS size_before \gset
SELECT elastic_btree_shrink('orders_created_at_ei') AS leaves_made_compact;
\pset tuples_only on
\pset format unaligned
SELECT demo_timed('insert 100000 orders into compact leaves', NULL, format($$
	INSERT INTO orders (id, customer, amount, created_at)
	SELECT n, 'customer_' || (1 + (hashint4(n) & 2147483647) %% 50000), 2.00,
	       timestamptz '2024-01-01 00:00:00+00' + (hashint4(n * 11) & 2147483647) %% 31536000 * interval '1 second'
	FROM generate_series(%s + 200001, %s + 300000) AS n$$, :rows, :rows));
\pset format aligned
\pset tuples_only off
VACUUM orders;
\echo '-- 100000 more entries, and the index did not grow: compact leaves had room'
SELECT pg_size_pretty(:size_before::bigint) AS size_before_shrink,
       pg_size_pretty(pg_relation_size('orders_created_at_ei')) AS size_now,
       e.leaf_pages, e.compact_leaf_pages, e.elastic_state, e.entries
FROM elastic_index_stats('orders_created_at_ei') AS e;
\echo '-- the same day through the compact index: each leaf answers with two heap reads'
SET enable_seqscan = off;
SET enable_bitmapscan = off;
EXPLAIN (ANALYZE, COSTS OFF)
SELECT count(*), sum(amount) FROM orders
WHERE created_at >= '2024-03-01' AND created_at < '2024-03-02';
RESET enable_seqscan;
RESET enable_bitmapscan;
DELETE FROM demo_answers;
DO $$ BEGIN PERFORM demo_collect('index'); END $$;
SET enable_indexscan = off;
SET enable_indexonlyscan = off;
SET enable_bitmapscan = off;
DO $$ BEGIN PERFORM demo_collect('seqscan'); END $$;
RESET enable_indexscan;
RESET enable_indexonlyscan;
RESET enable_bitmapscan;
SELECT i.query, s.answer = i.answer AS same_as_seqscan
FROM demo_answers i JOIN demo_answers s ON s.query = i.query AND s.phase = 'seqscan'
WHERE i.phase = 'index';
SELECT 'orders_created_at_ei' AS index, 'compact leaves match the heap, every row indexed' AS result
FROM (SELECT elastic_index_check('orders_created_at_ei', true)) AS c;
SELECT leaves_made_compact, compact_inserts, compact_splits, heap_key_reads
FROM elastic_index_stat_activity WHERE indexrelname = 'orders_created_at_ei';

\echo '== 9c. osm_tree: near-sorted events (5% of them up to 5% out of place), loaded by 10 INSERTs into btree and osm_tree'
CREATE EXTENSION IF NOT EXISTS pgstattuple;
CREATE TABLE events_src AS
SELECT pos, timestamptz '2024-01-01 00:00:00+00' + key * interval '1 second' AS ts
FROM elastic_index_near_sorted(:rows, 5, 5);
CREATE TABLE events_bt (ts timestamptz, payload text);
CREATE INDEX events_bt_ts ON events_bt USING btree (ts);
CREATE TABLE events_osm (ts timestamptz, payload text);
CREATE INDEX events_osm_ts ON events_osm USING osm_tree (ts);
\pset tuples_only on
\pset format unaligned
SELECT demo_timed('load events with a btree index', 'events_bt_ts', format($fmt$
	DO $do$ BEGIN FOR c IN 0 .. 9 LOOP
		INSERT INTO events_bt SELECT ts, 'e' FROM events_src
		WHERE pos > c * %1$s / 10 AND pos <= (c + 1) * %1$s / 10 ORDER BY pos;
	END LOOP; END $do$ $fmt$, :rows));
SELECT demo_timed('load events with an osm_tree index', 'events_osm_ts', format($fmt$
	DO $do$ BEGIN FOR c IN 0 .. 9 LOOP
		INSERT INTO events_osm SELECT ts, 'e' FROM events_src
		WHERE pos > c * %1$s / 10 AND pos <= (c + 1) * %1$s / 10 ORDER BY pos;
	END LOOP; END $do$ $fmt$, :rows));
\pset format aligned
\pset tuples_only off
SELECT 'btree' AS index, pg_size_pretty(pg_relation_size('events_bt_ts')) AS size,
       round(avg_leaf_density::numeric, 1) AS leaf_fill
FROM pgstatindex('events_bt_ts')
UNION ALL
SELECT 'osm_tree', pg_size_pretty(pg_relation_size('events_osm_ts')), round(leaf_fill::numeric, 1)
FROM elastic_index_stats('events_osm_ts');
\echo '-- the statement entries were applied in sorted batches: leaf by leaf, and as whole new leaves at the right edge'
SELECT batches_applied, batched_entries, bulk_appended_entries,
       fastpath_inserts + descents AS inserted_one_by_one
FROM elastic_index_stat_activity WHERE indexrelname = 'events_osm_ts';
SELECT (SELECT count(*) FROM events_osm WHERE ts >= '2024-01-02' AND ts < '2024-01-03')
       = (SELECT count(*) FROM events_bt WHERE ts >= '2024-01-02' AND ts < '2024-01-03') AS same_day_count,
       'structure ok, every row indexed' AS check_result
FROM (SELECT elastic_index_check('events_osm_ts', true)) AS c;
EOF

put_file "$tmp/demo2.sql" <<'EOF'
\pset footer off
\pset tuples_only on
\pset format unaligned
SELECT demo_timed('insert 10000 orders (not checkpointed)', NULL, format($$
	INSERT INTO orders (id, customer, amount, created_at)
	SELECT n, 'customer_' || (1 + (hashint4(n) & 2147483647) %% 50000), 1.00,
	       timestamptz '2025-01-01 00:00:00+00' + n * interval '1 second'
	FROM generate_series(%s + 100001, %s + 110000) AS n$$, :rows, :rows));
\pset format aligned
\pset tuples_only off
EOF

put_file "$tmp/demo3.sql" <<'EOF'
\pset footer off
SELECT count(*) AS orders_after_recovery,
       count(*) FILTER (WHERE created_at >= '2025-01-01') AS written_before_crash
FROM orders;
SET enable_seqscan = off;
SET enable_bitmapscan = off;
SELECT count(*) AS found_through_index FROM orders WHERE created_at >= '2025-01-01';
RESET enable_seqscan;
RESET enable_bitmapscan;
SELECT v.idx AS index, 'structure ok, every row indexed' AS result
FROM (VALUES ('orders_created_at_ei'::regclass), ('orders_customer_ei'::regclass)) AS v(idx),
     LATERAL (SELECT elastic_index_check(v.idx, true)) AS c;
EOF

demo_psql -f "$tmp/demo1.sql"

echo
echo "== 10. Crash recovery: write, stop the server without a checkpoint, restart"
demo_psql -f "$tmp/demo2.sql"
as_postgres "$PG_BINDIR/pg_ctl" -D "$data" -m immediate -w stop >/dev/null
echo "server stopped with -m immediate (like a crash); restarting, WAL replay runs elastic_btree's redo"
as_postgres "$PG_BINDIR/pg_ctl" -D "$data" -l "$tmp/server.log" -w start >/dev/null
as_postgres grep -E 'redo (starts|done)' "$tmp/server.log" | sed 's/^.*LOG: */server log: /' || true
demo_psql -f "$tmp/demo3.sql"

echo
echo "== Done. Stopping the server and removing $tmp"
