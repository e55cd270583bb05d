# wal_consistency_checking for our resource manager: the primary attaches a
# full-page image to every elastic_index record, and the standby compares
# the page its redo produced with that image (after ei_mask) and stops with
# FATAL "inconsistent page found" at the first difference.  The workload
# writes every kind of record: leaf and inner inserts, splits on every
# level, new roots, VACUUM (with page deletion and page reuse), the
# opportunistic deletion of dead entries before a split, index builds, and
# compact leaves (conversion, inserts, splits, VACUUM, expansion), and
# osm_tree's batches (multi-entry inserts, bulk appends), and indexes with
# INCLUDE columns, whose pivots hold the key columns only (splits of leaves
# and inner pages, builds, compact leaves, osm_tree's batches and buffer).
# Then the same once more with wal_consistency_checking = 'all'.

use strict;
use warnings;

use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $primary = PostgreSQL::Test::Cluster->new('primary');
$primary->init(allows_streaming => 1);
$primary->append_conf(
	'postgresql.conf', qq{
shared_preload_libraries = 'elastic_index'
wal_consistency_checking = 'elastic_index'
autovacuum = off
# keep the WAL of the first round for pg_walinspect
wal_keep_size = '2GB'
max_wal_size = '3GB'
});
$primary->start;

$primary->backup('bkp');
my $standby = PostgreSQL::Test::Cluster->new('standby');
$standby->init_from_backup($primary, 'bkp', has_streaming => 1);
$standby->append_conf('postgresql.conf',
	"shared_preload_libraries = 'elastic_index'");
$standby->start;

is($primary->safe_psql('postgres', 'SHOW wal_consistency_checking'),
	'elastic_index', 'wal_consistency_checking accepts our resource manager');

my $start_lsn = $primary->lsn('insert');

# the workload, run once per setting
my $workload = q{
CREATE EXTENSION IF NOT EXISTS elastic_index;
DROP TABLE IF EXISTS t, s;
-- indexes that grow from an empty root: leaf inserts, splits on every
-- level, inner inserts, new roots; ~400-byte keys make four levels
CREATE TABLE t (id int4, k int4, w text);
CREATE INDEX t_w ON t USING elastic_btree (w);
CREATE INDEX t_k ON t USING elastic_btree (k DESC);
INSERT INTO t SELECT g, (g * 7919) % 5000, lpad(((g * 7919) % 100000)::text, 8, '0') || repeat(md5(g::text), 12)
FROM generate_series(1, 15000) AS g;
-- ascending keys: rightmost splits
INSERT INTO t SELECT g, g, lpad(g::text, 8, '0') || repeat('x', 300)
FROM generate_series(100000, 103000) AS g;
-- a build of an existing table, and one of an unlogged table
CREATE TABLE s (k int4);
INSERT INTO s SELECT g FROM generate_series(1, 20000) AS g;
CREATE INDEX s_k ON s USING elastic_btree (k);
CREATE UNLOGGED TABLE IF NOT EXISTS u (k int4);
CREATE INDEX IF NOT EXISTS u_k ON u USING elastic_btree (k);
-- VACUUM: removes entries, empties and deletes leaves
DELETE FROM t WHERE id % 2 = 0;
DELETE FROM t WHERE w >= '00020000' AND w < '00060000';
DELETE FROM t WHERE k BETWEEN 1000 AND 3000;
VACUUM t;
-- once transaction ids have moved past the pages' safexid, the next
-- VACUUM finds the deleted pages recyclable
SELECT txid_current();
SELECT txid_current();
VACUUM t;
-- refill: recycled pages are reused
INSERT INTO t SELECT g, g % 5000, lpad((20000 + g * 3)::text, 8, '0') || repeat(md5(g::text), 12)
FROM generate_series(1, 8000) AS g;
-- dead entries marked by scans are removed before a split
DELETE FROM s WHERE k % 4 <> 0;
SET enable_seqscan = off;
SET enable_bitmapscan = off;
SELECT count(*) FROM s WHERE k > 0;
RESET enable_seqscan;
RESET enable_bitmapscan;
INSERT INTO s SELECT g FROM generate_series(1, 20000) AS g WHERE g % 4 = 1;
VACUUM s;
INSERT INTO s SELECT g FROM generate_series(1, 20000) AS g;
VACUUM t;
-- compact leaves: conversion, inserts and splits, VACUUM (which turns an
-- emptied compact leaf into a standard one and deletes it), expansion
DROP TABLE IF EXISTS c;
-- (text keys padded to 255 bytes, a few too long for compact leaves)
CREATE TABLE c (id int4, k int8, u uuid, t text COLLATE "C");
CREATE OR REPLACE FUNCTION c_text(g int) RETURNS text LANGUAGE sql IMMUTABLE AS
$$ SELECT CASE WHEN g % 997 = 0 THEN repeat('z', 300) || g ELSE md5(g::text) || g END $$;
INSERT INTO c SELECT g, (g * 7919) % 30000, md5(g::text)::uuid, c_text(g) FROM generate_series(1, 12000) AS g;
CREATE INDEX c_k ON c USING elastic_btree (k);
CREATE INDEX c_u ON c USING elastic_btree (u DESC);
CREATE INDEX c_t ON c USING elastic_btree (t);
SELECT elastic_btree_shrink('c_k'), elastic_btree_shrink('c_u'), elastic_btree_shrink('c_t');
INSERT INTO c SELECT g, (g::int8 * 104729) % 30000, md5(g::text)::uuid, c_text(g) FROM generate_series(12001, 40000) AS g;
DELETE FROM c WHERE id % 3 = 0 OR k BETWEEN 10000 AND 14000;
VACUUM c;
SELECT elastic_btree_expand('c_u');
INSERT INTO c SELECT g, g % 30000, md5(g::text)::uuid, c_text(g) FROM generate_series(40001, 45000) AS g;
-- compact leaves' TID codes: heap-correlated keys (1-byte deltas, groups
-- split by inserts, rightmost compact splits) and 10 distinct values
-- (equal keys in TID order), inserts between, VACUUM re-coding groups and
-- dropping emptied ones, expansion; then leaves with plain 6-byte TIDs as
-- before 0.3.0 (plain_tids), vacuumed (they stay plain) and coded by the
-- next insert
DROP TABLE IF EXISTS ct;
CREATE TABLE ct (id int8, c int4);
INSERT INTO ct SELECT g, g % 10 FROM generate_series(1, 3000) AS g;
CREATE INDEX ct_id ON ct USING elastic_btree (id);
CREATE INDEX ct_c ON ct USING elastic_btree (c);
SELECT elastic_btree_shrink('ct_id'), elastic_btree_shrink('ct_c');
INSERT INTO ct SELECT g, g % 10 FROM generate_series(3001, 40000) AS g;
INSERT INTO ct SELECT g * 2 + 100000, g % 10 FROM generate_series(1, 2000) AS g;
INSERT INTO ct SELECT g, (g * 7) % 10 FROM generate_series(50001, 52000) AS g;
DELETE FROM ct WHERE id % 4 = 0 OR id BETWEEN 10000 AND 16000;
VACUUM ct;
INSERT INTO ct SELECT g, g % 10 FROM generate_series(10000, 16000) AS g;
SELECT elastic_btree_expand('ct_c');
SET elastic_index.debug_fault = plain_tids;
SELECT elastic_btree_shrink('ct_c');
RESET elastic_index.debug_fault;
DELETE FROM ct WHERE id % 5 = 0;
VACUUM ct;
INSERT INTO ct SELECT g, g % 10 FROM generate_series(60001, 64000) AS g;
-- osm_tree: batches applied leaf by leaf (INSERT_MULTI), bulk appends at
-- the right edge (SPLIT records that move nothing), stragglers in a packed
-- region (ordinary splits at split_factor), single rows, VACUUM
DROP TABLE IF EXISTS o;
CREATE TABLE o (id int8, k int8);
CREATE INDEX o_k ON o USING osm_tree (k) WITH (batch_size = 3000, split_factor = 0.7);
INSERT INTO o SELECT pos, key FROM elastic_index_near_sorted(40000, 5, 5, 3) ORDER BY pos;
INSERT INTO o SELECT pos, key + 40000 FROM elastic_index_near_sorted(20000, 25, 25, 4) ORDER BY pos;
INSERT INTO o SELECT g, (g * 7919) % 60000 FROM generate_series(1, 3000) AS g;
INSERT INTO o VALUES (0, 30000), (0, 70000);
DELETE FROM o WHERE id % 5 = 0;
VACUUM o;
-- keys displaced further than a batch reaches: sorted-run splits whose left
-- high key is a batch entry between two of the page's keys
DROP TABLE IF EXISTS of;
CREATE TABLE of (k int8, t text);
CREATE INDEX of_k ON of USING osm_tree (k) WITH (batch_size = 500, buffer_size = 0);
CREATE INDEX of_t ON of USING osm_tree (t) WITH (batch_size = 500, buffer_size = 0);
INSERT INTO of SELECT key, lpad(key::text, 12, '0') FROM elastic_index_near_sorted(40000, 5, 5, 5) ORDER BY pos;
-- osm_tree's insert buffer: pages appended and linked, the section filter
-- made and added to, flushes that unlink pages and rebuild the filter,
-- query-driven sorting
DROP TABLE IF EXISTS ob;
CREATE TABLE ob (k int8, t text);
CREATE INDEX ob_k ON ob USING osm_tree (k) WITH (batch_size = 1, buffer_size = 8, flush_fraction = 0.5);
CREATE INDEX ob_t ON ob USING osm_tree (t) WITH (batch_size = 1, buffer_size = 8, flush_fraction = 0.5);
SET osm_tree.top_inserts = off;
SET osm_tree.flush_worker = off;
INSERT INTO ob SELECT (g * 7919) % 20011, md5(g::text) FROM generate_series(1, 6000) AS g;
SET enable_seqscan = off;
SET enable_bitmapscan = off;
SELECT count(*) FROM ob WHERE k BETWEEN 100 AND 5000;
SELECT count(*) FROM ob WHERE t = md5('5999');
RESET enable_seqscan;
RESET enable_bitmapscan;
SELECT osm_tree_flush('ob_t');
INSERT INTO ob SELECT (g * 7919) % 20011, md5(g::text) FROM generate_series(6001, 7000) AS g;
RESET osm_tree.top_inserts;
RESET osm_tree.flush_worker;
-- INCLUDE columns: wide included text makes leaves split often and the
-- truncated pivots fill inner pages; a build, compact leaves (convert,
-- insert, split with a high key formed from the heap, VACUUM, expand),
-- and osm_tree's batches and buffer with INCLUDE columns
DROP TABLE IF EXISTS ic;
CREATE TABLE ic (id int4, k int4, a int4, w text);
CREATE INDEX ic_k ON ic USING elastic_btree (k, id) INCLUDE (a, w);
CREATE INDEX ic_o ON ic USING osm_tree (k) INCLUDE (w, a) WITH (batch_size = 1, buffer_size = 8, flush_fraction = 0.5);
SET osm_tree.top_inserts = off;
SET osm_tree.flush_worker = off;
INSERT INTO ic SELECT g, (g * 7919) % 3000, g % 97, CASE WHEN g % 10 = 0 THEN NULL ELSE repeat(md5(g::text), 1 + g % 8) END
FROM generate_series(1, 2500) AS g;
CREATE INDEX ic_b ON ic USING elastic_btree (a) INCLUDE (k);
SELECT elastic_btree_shrink('ic_b');
INSERT INTO ic SELECT g, g % 3000, g % 101, md5(g::text) FROM generate_series(2501, 5000) AS g;
DELETE FROM ic WHERE id % 4 = 0;
VACUUM ic;
SELECT elastic_btree_expand('ic_b');
INSERT INTO ic SELECT g, g, g % 7, 'z' FROM generate_series(5001, 5500) AS g;
RESET osm_tree.top_inserts;
RESET osm_tree.flush_worker;
-- many sorted streams: (device, ts) with devices interleaved, so that leaves
-- split between two devices, move a device's head right with another's
-- entries, and split at device boundaries (src/README.md, "Many sorted
-- streams"), through osm_tree's batches and elastic_btree's single rows
DROP TABLE IF EXISTS ms;
CREATE TABLE ms (device int4, ts int8);
CREATE INDEX ms_o ON ms USING osm_tree (device, ts) WITH (batch_size = 2000);
CREATE INDEX ms_e ON ms USING elastic_btree (device, ts);
INSERT INTO ms SELECT g % 40, g / 40 FROM generate_series(0, 5999) AS g;
INSERT INTO ms SELECT g % 40, g / 40 FROM generate_series(6000, 11999) AS g;
INSERT INTO ms SELECT g % 40, g / 40 FROM generate_series(12000, 17999) AS g;
INSERT INTO ms SELECT g % 40, g / 40 FROM generate_series(18000, 23999) AS g;
};

sub run_and_check
{
	my ($label) = @_;
	$primary->safe_psql('postgres', $workload);
	$primary->wait_for_catchup($standby, 'replay', $primary->lsn('insert'));

	my $log = PostgreSQL::Test::Utils::slurp_file($standby->logfile);
	unlike($log, qr/inconsistent page found/, "$label: no inconsistent page on the standby");
	unlike($log, qr/FATAL|PANIC/, "$label: no FATAL or PANIC on the standby");

	# the standby is alive and answers through the indexes
	my $force = q{SET enable_seqscan = off; SET enable_bitmapscan = off; SET enable_sort = off;};
	foreach my $q (
		q{SELECT count(*), md5(string_agg(left(w, 8), ',')) FROM (SELECT w FROM t ORDER BY w) AS x},
		q{SELECT count(*), sum(k) FROM (SELECT k FROM t ORDER BY k DESC) AS x},
		q{SELECT count(*), sum(k) FROM s WHERE k > 100},
		q{SELECT count(*), sum(k) FROM (SELECT k FROM c WHERE k > 500 ORDER BY k) AS x},
		q{SELECT count(*), md5(string_agg(u::text, ',')) FROM (SELECT u FROM c ORDER BY u DESC) AS x},
		q{SELECT count(*), md5(string_agg(t, ',')) FROM (SELECT t FROM c WHERE t > '8' ORDER BY t) AS x},
		'SELECT count(*), sum(id) FROM (SELECT id FROM ct WHERE id > 100 ORDER BY id) AS x',
		'SELECT count(*), sum(id) FROM (SELECT id FROM ct WHERE c = 3) AS x',
		q{SELECT count(*), md5(string_agg(k::text, ',')) FROM (SELECT k FROM o ORDER BY k) AS x},
		q{SELECT count(*), md5(string_agg(k::text, ',')) FROM (SELECT k FROM of ORDER BY k) AS x},
		q{SELECT count(*), md5(string_agg(t, ',')) FROM (SELECT t FROM of ORDER BY t DESC) AS x},
		q{SELECT count(*), md5(string_agg(k::text, ',')) FROM (SELECT k FROM ob ORDER BY k) AS x},
		q{SELECT count(*) FROM ob AS x WHERE x.k % 9 = 0 AND (SELECT count(*) FROM ob AS y WHERE y.t = x.t) = 1},
		q{SELECT count(*), md5(string_agg(concat_ws('/', k, id, a, w), ',')) FROM (SELECT k, id, a, w FROM ic WHERE k > 100 ORDER BY k, id) AS x},
		q{SELECT count(*), sum(k), md5(string_agg(w, ',')) FROM (SELECT k, w FROM ic WHERE k < 2000 ORDER BY k) AS x},
		q{SELECT count(*), sum(k) FROM (SELECT a, k FROM ic WHERE a BETWEEN 10 AND 60 ORDER BY a) AS x},
		q{SELECT count(*), md5(string_agg(device || ':' || ts, ',')) FROM (SELECT device, ts FROM ms WHERE device >= 0 ORDER BY device, ts) AS x})
	{
		is($standby->safe_psql('postgres', "$force $q"),
			$primary->safe_psql('postgres', "$force $q"),
			"$label: standby answers like the primary: $q");
	}
	return;
}

run_and_check('elastic_index');

# every kind of record was written (pg_walinspect runs in the server,
# where our resource manager is registered)
$primary->safe_psql('postgres', 'CREATE EXTENSION pg_walinspect');
my $types = $primary->safe_psql(
	'postgres', qq{
SELECT string_agg(DISTINCT record_type, ',' ORDER BY record_type)
FROM pg_get_wal_records_info('$start_lsn', pg_current_wal_flush_lsn())
WHERE resource_manager = 'elastic_index'});
note "record types written: $types";
note 'WAL written: '
  . $primary->safe_psql('postgres',
	"SELECT pg_size_pretty(pg_wal_lsn_diff(pg_current_wal_flush_lsn(), '$start_lsn'))");
foreach my $type (
	qw(INSERT_LEAF INSERT_INNER SPLIT NEWROOT VACUUM DELETE MARK_HALFDEAD UNLINK_PAGE REUSE_PAGE
	COMPACT_INSERT COMPACT_DELETE COMPACT_IMAGE INSERT_MULTI BUFFER_ADD BUFFER_LINK)
  )
{
	like($types, qr/\b$type\b/, "the workload wrote $type records");
}
my $height = $primary->safe_psql('postgres',
	"SELECT max(height) FROM elastic_index_stats('t_w')");
cmp_ok($height, '>=', 3, "t_w reached $height levels");
$height = $primary->safe_psql('postgres',
	"SELECT max(height) FROM elastic_index_stats('ic_k')");
cmp_ok($height, '>=', 2, "ic_k (INCLUDE) reached $height levels");
# of's leaves are packed by sorted-run splits (95% here, 80% and 72% with
# the split of the previous format of this rule)
foreach my $idx (qw(of_k of_t))
{
	my $fill = $primary->safe_psql('postgres',
		"SELECT round(leaf_fill) FROM elastic_index_stats('$idx')");
	cmp_ok($fill, '>=', 90, "$idx: leaves $fill% full");
}

# the TID code leaves: compact, more entries a leaf than 6-byte TIDs allow
is($primary->safe_psql('postgres',
	"SELECT bool_and(compact_leaf_pages > 0 AND entries::float8 / leaf_pages > 1170) FROM elastic_index_stats('ct_id')"),
	't', 'ct_id: compact leaves hold more than 1170 entries on average');

# the same with every resource manager checked
$primary->append_conf('postgresql.conf', "wal_consistency_checking = 'all'");
$primary->reload;
$primary->poll_query_until('postgres',
	"SELECT current_setting('wal_consistency_checking') = 'all'")
  or die 'reload did not take effect';
run_and_check('all');

foreach my $idx (qw(t_w t_k s_k c_k c_u c_t ct_id ct_c o_k of_k of_t ob_k ob_t ic_k ic_o ic_b ms_o ms_e))
{
	my ($ret, $out, $err) = $primary->psql('postgres',
		"SELECT elastic_index_check('$idx', true)");
	is($ret, 0, "elastic_index_check($idx, true) passes on the primary")
	  or diag($err);
}

$standby->stop;
$primary->stop;
done_testing();
