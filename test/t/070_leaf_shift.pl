# Redistribution between sibling leaves (src/README.md): an osm_tree index
# with redistribute_leaves shifts entries from full leaves to their right
# siblings and splits two full leaves into three.  A shift changes three
# pages in one SPLIT record with the SHIFT flag.  The test loads many
# interleaved sorted streams (every leaf holds the growing ends of several)
# with wal_consistency_checking on the primary for our resource manager
# too, so that the standby compares every page its redo of a shift builds
# with the primary's image; it checks that shift records were written,
# that the standby answers like the primary row for row; then it stops a
# 2-to-3 split between its two steps (the right sibling split, its downlink
# missing, the shift not done: elastic_index.debug_fault = after_split),
# crashes the primary with a transaction's batch half applied, and checks
# after recovery that the index answers like a sequential scan, passes the
# verifier, and keeps shifting.

use strict;
use warnings;

use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $node = PostgreSQL::Test::Cluster->new('shift_primary');
$node->init(allows_streaming => 1);
$node->append_conf(
	'postgresql.conf', qq{
shared_preload_libraries = 'elastic_index'
wal_consistency_checking = 'all,elastic_index'
autovacuum = off
wal_keep_size = '1GB'
max_wal_size = '2GB'
});
$node->start;

$node->safe_psql(
	'postgres', q{
CREATE EXTENSION elastic_index;
CREATE TABLE s (device_id int4, ts int8, pad text);
CREATE INDEX s_on ON s USING osm_tree (device_id, ts)
	WITH (batch_size = 2000, buffer_size = 0, redistribute_leaves = on);
CREATE INDEX s_pad ON s USING osm_tree (device_id, pad)
	WITH (batch_size = 2000, buffer_size = 0, redistribute_leaves = on);
});

$node->backup('bkp');
my $standby = PostgreSQL::Test::Cluster->new('shift_standby');
$standby->init_from_backup($node, 'bkp', has_streaming => 1);
$standby->append_conf('postgresql.conf',
	"shared_preload_libraries = 'elastic_index'");
$standby->start;

is($node->safe_psql('postgres', 'SHOW wal_consistency_checking'),
	'all,elastic_index', 'the primary checks the consistency of every record');
my $start_lsn = $node->safe_psql('postgres', 'SELECT pg_current_wal_insert_lsn()');

# Rows of 500 devices, interleaved, in transactions of 2000 rows: device g %
# 500 at second g / 500.  The pad column is a text key of varying width, so
# that the second index's pivots differ in size.
sub load
{
	my ($from, $to) = @_;
	for (my $b = $from; $b < $to; $b += 2000)
	{
		my $e = $b + 1999;
		$node->safe_psql('postgres',
			qq{INSERT INTO s SELECT g % 500, 1000000 + g / 500, repeat('x', (g * 7) % 23) || (g / 500)
			   FROM generate_series($b, $e) AS g});
	}
}

my $force = 'SET enable_seqscan = off; SET enable_bitmapscan = off; SET enable_sort = off;';
my $q_fwd = q{SELECT count(*), md5(string_agg(device_id || ':' || ts, ',')) FROM (SELECT device_id, ts FROM s WHERE device_id >= 0 ORDER BY device_id, ts) AS x};
my $q_bwd = q{SELECT count(*), md5(string_agg(device_id || ':' || ts, ',')) FROM (SELECT device_id, ts FROM s WHERE device_id >= 0 ORDER BY device_id DESC, ts DESC) AS x};
my $q_pad = q{SELECT count(*), md5(string_agg(device_id || ':' || pad, ',')) FROM (SELECT device_id, pad FROM s WHERE device_id >= 0 ORDER BY device_id, pad) AS x};

# the index answers like a sequential scan, forward and backward
sub check_node
{
	my ($n, $label) = @_;
	foreach my $q ($q_fwd, $q_bwd, $q_pad)
	{
		my $via_index = $n->safe_psql('postgres', "$force $q");
		my $via_seq = $n->safe_psql('postgres',
			"SET enable_indexscan = off; SET enable_indexonlyscan = off; SET enable_bitmapscan = off; $q");
		is($via_index, $via_seq, "$label: index answers like a sequential scan");
	}
}

load(0, 40000);
$node->wait_for_catchup($standby, 'replay', $node->lsn('insert'));

# shifts were written (pg_walinspect runs in the server, where our resource
# manager describes its records)
$node->safe_psql('postgres', 'CREATE EXTENSION pg_walinspect');
my $shifts = $node->safe_psql(
	'postgres', qq{
SELECT count(*) FROM pg_get_wal_records_info('$start_lsn', pg_current_wal_flush_lsn())
WHERE resource_manager = 'elastic_index' AND description LIKE 'shift%'});
cmp_ok($shifts, '>', 50, "the load shifted entries ($shifts shift records)");

check_node($node, 'primary');
check_node($standby, 'standby after shifts');
is($standby->safe_psql('postgres', "$force $q_fwd"),
	$node->safe_psql('postgres', "$force $q_fwd"),
	'standby returns the rows the primary does');
my ($ret, $out, $err) =
  $standby->psql('postgres', "SELECT elastic_index_check('s_on')");
is($ret, 0, 'verifier passes on the standby') or diag($err);

# A 2-to-3 split stopped between its steps.  A new index over the rows,
# built with leaves 90% full: a full leaf's right sibling then has less
# than an eighth free, so the first leaf that fills splits its sibling
# first, and the fault stops the insert after that split's first step.
$node->safe_psql(
	'postgres', q{
CREATE TABLE s3 (device_id int4, ts int8);
INSERT INTO s3 SELECT g % 1000, g / 1000 FROM generate_series(0, 9999) AS g;
CREATE INDEX s3_i ON s3 USING osm_tree (device_id, ts)
	WITH (redistribute_leaves = on, fillfactor = 90, buffer_size = 0);
});
my $splits_before = $node->safe_psql('postgres',
	"SELECT leaf_splits FROM elastic_index_activity() WHERE indexrelid = 's3_i'::regclass");
($ret, $out, $err) = $node->psql(
	'postgres', q{
SET elastic_index.debug_fault = 'after_split';
INSERT INTO s3 SELECT 5, 1000 + g FROM generate_series(1, 60) AS g;
});
isnt($ret, 0, 'the forced fault stopped the insert in its 2-to-3 split');
like($err, qr/after_split|fault/i, 'the error names the fault point');
is($node->safe_psql('postgres',
	"SELECT leaf_splits FROM elastic_index_activity() WHERE indexrelid = 's3_i'::regclass"),
	$splits_before + 1, 'the stop came after one split');
# block 1, the first leaf (the one that filled), is still full: the split
# was its right sibling's, the first step of a 2-to-3 split
$node->safe_psql('postgres', 'CREATE EXTENSION pageinspect');
is($node->safe_psql('postgres',
	"SELECT upper - lower < 200 FROM page_header(get_raw_page('s3_i', 1))"),
	't', 'the split was the right sibling\'s: the full leaf is as it was');

# then a crash with a transaction's batch half applied (batch_size 2000:
# applied in steps while the transaction runs), and recovery
my $bg = $node->background_psql('postgres');
$bg->query_safe('BEGIN');
$bg->query_safe(q{INSERT INTO s SELECT g % 500, 1000000 + g / 500, repeat('x', (g * 7) % 23) || (g / 500)
	FROM generate_series(40000, 49999) AS g});
$node->stop('immediate');
eval { $bg->quit; };
$node->start;
check_node($node, 'after crash recovery');
my $q3 = q{SELECT count(*), md5(string_agg(device_id || ':' || ts, ',')) FROM (SELECT device_id, ts FROM s3 WHERE device_id >= 0 ORDER BY device_id, ts) AS x};
is($node->safe_psql('postgres', "$force $q3"),
	$node->safe_psql('postgres', "SET enable_indexscan = off; SET enable_indexonlyscan = off; SET enable_bitmapscan = off; $q3"),
	'the index with a stopped 2-to-3 split answers like a sequential scan');
($ret, $out, $err) =
  $node->psql('postgres', "SELECT elastic_index_check('s_on', true), elastic_index_check('s_pad', true), elastic_index_check('s3_i', true)");
is($ret, 0, 'verifier passes after crash recovery') or diag($err);

# the stopped split is finished by the next insert that passes, and the
# leaf it was for shifts then
$node->safe_psql('postgres',
	'INSERT INTO s3 SELECT 5, 1000 + g FROM generate_series(1, 60) AS g');
is($node->safe_psql('postgres', "$force $q3"),
	$node->safe_psql('postgres', "SET enable_indexscan = off; SET enable_indexonlyscan = off; SET enable_bitmapscan = off; $q3"),
	'after the stopped split was finished: the same rows');
($ret, $out, $err) =
  $node->psql('postgres', "SELECT elastic_index_check('s3_i', true)");
is($ret, 0, 'verifier passes after the stopped split was finished') or diag($err);

# the recovered index keeps shifting, and the standby keeps up
load(50000, 70000);
$node->wait_for_catchup($standby, 'replay', $node->lsn('insert'));
check_node($node, 'after more shifts');
check_node($standby, 'standby after more shifts');
my $kinds = $node->safe_psql(
	'postgres', qq{
SELECT count(*) FILTER (WHERE description LIKE 'shift%') || ' shifts, ' ||
	   count(*) FILTER (WHERE record_type = 'SPLIT' AND description NOT LIKE 'shift%') || ' splits'
FROM pg_get_wal_records_info('$start_lsn', pg_current_wal_flush_lsn())
WHERE resource_manager = 'elastic_index'});
note "records since the start: $kinds";
my $fill = $node->safe_psql('postgres',
	"SELECT round(leaf_fill) FROM elastic_index_stats('s_on')");
cmp_ok($fill, '>', 75, "leaves packed by shifts ($fill%)");

# no redo failed its consistency check, and no assertion failed
foreach my $n ($node, $standby)
{
	my $log = slurp_file($n->logfile);
	unlike($log, qr/inconsistent page found/, $n->name . ': redo matched every image');
	unlike($log, qr/TRAP:/, $n->name . ': no assertion failed');
}

$standby->stop;
$node->stop;
done_testing();
