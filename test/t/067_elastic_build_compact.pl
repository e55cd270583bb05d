# CREATE INDEX and REINDEX of an elastic_btree index whose standard leaves
# would not fit its size bound form compact leaves (src/README.md,
# "Elasticity": builds) through WAL: a standby with wal_consistency_checking
# = all replays the build's page images (serial and parallel, and a
# REINDEX), then inserts into the compact leaves and their splits
# (COMPACT_INSERT, COMPACT_IMAGE), and VACUUM converting them back once
# most rows are gone; every page must equal the primary's image, and the
# standby's queries and verifier must agree with the primary's.  Then the
# primary crashes (immediate stop) after a build since its last
# checkpoint, replays the WAL, and the verifier and queries still agree.

use strict;
use warnings;

use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use FindBin;
use lib "$FindBin::RealBin/../perl";
use ElasticIndex::Tools;

my $primary = PostgreSQL::Test::Cluster->new('primary');
$primary->init(allows_streaming => 1);
$primary->append_conf(
	'postgresql.conf', qq{
shared_preload_libraries = 'elastic_index'
wal_consistency_checking = 'all,elastic_index'
autovacuum = off
max_wal_size = '2GB'
});
$primary->start;
my $standby = ElasticIndex::Tools::slot_standby($primary);

# what both servers must answer alike, through b_k and by a sequential scan
my @queries = map { [ 'b', 'b_k', $_ ] } (
	'SELECT count(*), sum(id) FROM b WHERE k BETWEEN 1000 AND 400000',
	'SELECT count(*), sum(id) FROM b WHERE k < 20000',
	'SELECT count(*), sum(id) FROM b WHERE k > 990000',
	'SELECT string_agg(id::text, \',\' ORDER BY k, id) FROM b WHERE k IN (0, 7, 3333, 77777, 500001, 999999)',
	'SELECT count(*), min(k), max(k) FROM b',
);

# Run every query through the index and by sequential scan on one node
# (ElasticIndex::Tools::differential); return the answers.
sub answers
{
	my ($node) = @_;
	return join("\n",
		map { ElasticIndex::Tools::differential($node, 'postgres', $node->name, [$_])->{b_k} }
		  @queries);
}

# Wait for the standby, compare its answers and its index's shape with the
# primary's, and run the verifier on both.
sub standby_agrees
{
	my ($what) = @_;
	$primary->safe_psql('postgres', "SELECT elastic_index_check('b_k', true)");
	my $want = answers($primary);
	my $shape = 'SELECT elastic_state, compact_leaf_pages, leaf_pages FROM elastic_index_stats(\'b_k\')';
	my $pshape = $primary->safe_psql('postgres', $shape);
	$primary->wait_for_catchup($standby, 'replay', $primary->lsn('insert'));
	is(answers($standby), $want, "$what: the standby answers as the primary");
	is($standby->safe_psql('postgres', $shape), $pshape,
		"$what: the standby's index has the primary's shape");
	$standby->safe_psql('postgres', "SELECT elastic_index_check('b_k')");
	return $pshape;
}

# 200000 scattered int8 keys under a 1MB bound (standard leaves: 551 pages)
$primary->safe_psql(
	'postgres', q{
CREATE EXTENSION elastic_index;
CREATE TABLE b (id int8, k int8);
INSERT INTO b SELECT g, (g * 2654435761) % 1000003 FROM generate_series(1, 200000) g;
SET max_parallel_maintenance_workers = 0;
CREATE INDEX b_k ON b USING elastic_btree (k) WITH (size_bound = '1MB');
});
my $shape = standby_agrees('serial build');
like($shape, qr/^shrinking\|(\d+)\|/, 'the build left the index shrinking');
my ($compact, $leaves) = $shape =~ /\|(\d+)\|(\d+)$/;
cmp_ok($compact, '>=', $leaves - 10,
	'all but the sample\'s and the last few leaves are compact');

# scattered inserts into the compact leaves, and their splits
$primary->safe_psql('postgres',
	'INSERT INTO b SELECT g, (g * 2654435761) % 1000003 FROM generate_series(200001, 260000) g');
standby_agrees('inserts');

# a parallel REINDEX forms compact leaves again
$primary->safe_psql(
	'postgres', q{
ALTER TABLE b SET (parallel_workers = 2);
SET max_parallel_maintenance_workers = 2;
SET min_parallel_table_scan_size = 0;
REINDEX INDEX b_k;
});
$shape = standby_agrees('parallel REINDEX');
like($shape, qr/^shrinking\|/, 'the REINDEX left the index shrinking');

# most rows gone: VACUUM converts every compact leaf back
$primary->safe_psql('postgres', 'DELETE FROM b WHERE id % 20 <> 0; VACUUM b');
$shape = standby_agrees('VACUUM expansion');
like($shape, qr/^normal\|0\|/, 'VACUUM converted the compact leaves back');

# a build and inserts since the last checkpoint, then a crash
$primary->safe_psql(
	'postgres', q{
CHECKPOINT;
INSERT INTO b SELECT g, (g * 2654435761) % 1000003 FROM generate_series(300001, 400000) g;
SET max_parallel_maintenance_workers = 0;
REINDEX INDEX b_k;
INSERT INTO b SELECT g, (g * 2654435761) % 1000003 FROM generate_series(400001, 410000) g;
});
my $before = answers($primary);
my $pshape = $primary->safe_psql('postgres',
	'SELECT elastic_state, compact_leaf_pages, leaf_pages FROM elastic_index_stats(\'b_k\')');
like($pshape, qr/^shrinking\|[1-9]/, 'the last REINDEX formed compact leaves');
$primary->stop('immediate');
$primary->start;
is(answers($primary), $before, 'after the crash the primary answers as before');
is($primary->safe_psql('postgres',
	'SELECT elastic_state, compact_leaf_pages, leaf_pages FROM elastic_index_stats(\'b_k\')'),
	$pshape, 'after the crash the index has its shape');
$primary->safe_psql('postgres', "SELECT elastic_index_check('b_k', true)");
$primary->wait_for_catchup($standby, 'replay', $primary->lsn('insert'));
is(answers($standby), $before, 'the standby answers as the primary after its crash');

done_testing();
