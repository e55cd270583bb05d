# CREATE INDEX of an elastic_btree index on an UNLOGGED table under a size
# bound its standard leaves would not fit: the build forms compact leaves
# (src/README.md, "Elasticity": builds) in shared buffers and writes no
# WAL for them, and ambuildempty writes the init fork (a metapage and an
# empty root leaf), WAL-logged and synced.
#
#   - after the build: the index is compact and within its bound, the
#     verifier with heapallindexed passes, every query answers through the
#     index like a sequential scan, the build wrote far less WAL than the
#     index's size, and the init fork has its two pages, on the primary and
#     on a standby (which has it from the WAL);
#   - after a clean restart the pages are still there (the shutdown
#     checkpoint wrote them from shared buffers): same shape, same answers;
#   - after a crash the index is its init fork again, page for page: empty,
#     and usable: the verifier passes, inserts go in (and inserts make
#     leaves compact again under the bound), and queries answer like a
#     sequential scan;
#   - a REINDEX right before a crash (its init fork only in the WAL since
#     the last checkpoint) leaves an empty, usable index too;
#   - the standby, promoted, has the empty index from its init fork.

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
autovacuum = off
max_wal_size = '1GB'
});
$primary->start;
$primary->backup('bkp');
my $standby = PostgreSQL::Test::Cluster->new('standby');
$standby->init_from_backup($primary, 'bkp', has_streaming => 1);
$standby->append_conf('postgresql.conf',
	"shared_preload_libraries = 'elastic_index'");
$standby->start;

# the queries every check asks through u_k and by a sequential scan
my @queries = map { [ 'u', 'u_k', $_ ] } (
	'SELECT count(*), sum(id) FROM u WHERE k BETWEEN 1000 AND 400000',
	'SELECT count(*), sum(id) FROM u WHERE k > 990000',
	'SELECT string_agg(id::text, \',\' ORDER BY k, id) FROM u WHERE k IN (0, 7, 3333, 77777, 500001, 999999)',
	'SELECT count(*), min(k), max(k) FROM u',
);

# Every query through the index and by sequential scan on a node (tests of
# their own); return the answers.
sub answers
{
	my ($node, $what) = @_;
	return join("\n",
		map { ElasticIndex::Tools::differential($node, 'postgres', "$what", [$_])->{u_k} }
		  @queries);
}

my $shape_q =
  q{SELECT elastic_state, compact_leaf_pages, leaf_pages, total_pages, entries FROM elastic_index_stats('u_k')};
my $block_size = $primary->safe_psql('postgres', 'SHOW block_size');

# The rows g = a..b, scattered keys.
sub rows
{
	my ($a, $b) = @_;
	return "INSERT INTO u SELECT g, (g * 2654435761) % 1000003 FROM generate_series($a, $b) AS g";
}

# The init fork's size in blocks on a node.
sub init_fork_blocks
{
	my ($node) = @_;
	return $node->safe_psql('postgres',
		"SELECT (pg_stat_file(pg_relation_filepath('u_k') || '_init')).size / $block_size");
}

# After a crash: the index is its init fork again, page for page, and empty.
# Pages are compared without pd_checksum (bytes 8 and 9): a shared buffer's
# checksum is computed only when the buffer is written, so the init fork's
# buffer on a promoted standby (restored from a full-page image) can carry a
# stale one while the main fork, copied from the file, has the written one.
# Data checksums are on by default from PostgreSQL 18's initdb.
sub is_reset
{
	my ($node, $what) = @_;
	is( $node->safe_psql(
			'postgres', q{
SELECT pg_relation_size('u_k') / current_setting('block_size')::int,
	   bool_and(overlay(get_raw_page('u_k', 'main', b) PLACING '\x0000' FROM 9)
				= overlay(get_raw_page('u_k', 'init', b) PLACING '\x0000' FROM 9))
FROM generate_series(0, 1) AS b}),
		'2|t',
		"$what: the index is its init fork, page for page");
	is( $node->safe_psql(
			'postgres',
			q{SELECT elastic_state, compact_leaf_pages, leaf_pages, total_pages, entries, height, root_block
			  FROM elastic_index_stats('u_k')}),
		'normal|0|1|2|0|1|1',
		"$what: the index is one empty root leaf");
	is($node->safe_psql('postgres', 'SELECT count(*) FROM u'),
		'0', "$what: the table is empty");
	$node->safe_psql('postgres', "SELECT elastic_index_check('u_k', true)");
	return;
}

# 200000 scattered int8 keys under a 1MB bound (standard leaves: 551 pages)
$primary->safe_psql(
	'postgres', q{
CREATE EXTENSION elastic_index;
CREATE EXTENSION pageinspect;
CREATE UNLOGGED TABLE u (id int8, k int8);
});
$primary->safe_psql('postgres', rows(1, 200000));
my $lsn_before = $primary->lsn('insert');
$primary->safe_psql('postgres',
	"SET max_parallel_maintenance_workers = 0; CREATE INDEX u_k ON u USING elastic_btree (k) WITH (size_bound = '1MB')");
my $build_wal = $primary->safe_psql('postgres',
	"SELECT pg_wal_lsn_diff(pg_current_wal_insert_lsn(), '$lsn_before')");
my $shape = $primary->safe_psql('postgres', $shape_q);
my ($state, $compact, $leaves, $total, $entries) = split /\|/, $shape;
is($state, 'shrinking', 'the build left the index shrinking');
cmp_ok($compact, '>=', $leaves - 10,
	'all but the sample\'s and the last few leaves are compact');
cmp_ok($total, '<=', 1.05 * 1024 * 1024 / $block_size,
	'the index is within its bound');
is($entries, '200000', 'the index has an entry per row');
cmp_ok($build_wal * 4, '<', $total * $block_size,
	"the build logged no page of the unlogged index ($build_wal bytes of WAL)");
is(init_fork_blocks($primary), '2', 'the init fork has its two pages');
$primary->safe_psql('postgres', "SELECT elastic_index_check('u_k', true)");
my $before = answers($primary, 'after the build');

# the standby has the init fork from the WAL, and refuses to read the table
$primary->wait_for_catchup($standby, 'replay', $primary->lsn('insert'));
is(init_fork_blocks($standby), '2', 'the standby has the init fork');
my ($ret, $out, $err) = $standby->psql('postgres', 'SELECT count(*) FROM u');
like($err, qr/cannot access temporary or unlogged relations during recovery/,
	'the standby does not read the unlogged table');

# a clean restart: the shutdown checkpoint wrote the build's pages
$primary->restart;
is($primary->safe_psql('postgres', $shape_q), $shape,
	'after a clean restart the index has its shape');
is(answers($primary, 'after a clean restart'), $before,
	'after a clean restart the index answers as before');
$primary->safe_psql('postgres', "SELECT elastic_index_check('u_k', true)");

# inserts into the compact leaves, then a crash
$primary->safe_psql('postgres', rows(200001, 230000));
answers($primary, 'inserts after the restart');
$primary->safe_psql('postgres', "SELECT elastic_index_check('u_k', true)");
$primary->stop('immediate');
$primary->start;
is_reset($primary, 'after a crash');

# the reset index takes inserts, and makes leaves compact under its bound
$primary->safe_psql('postgres', rows(1, 120000));
$shape = $primary->safe_psql('postgres', $shape_q);
like($shape, qr/^shrinking\|[1-9]\d*\|/,
	'inserts into the reset index made leaves compact under the bound');
$primary->safe_psql('postgres', "SELECT elastic_index_check('u_k', true)");
answers($primary, 'inserts after the crash');

# a REINDEX (a new init fork, in the WAL since the last checkpoint) right
# before a crash
$primary->safe_psql('postgres', 'CHECKPOINT');
$primary->safe_psql('postgres',
	'SET max_parallel_maintenance_workers = 0; REINDEX INDEX u_k');
like($primary->safe_psql('postgres', $shape_q), qr/^shrinking\|[1-9]\d*\|/,
	'the REINDEX formed compact leaves');
$primary->safe_psql('postgres', "SELECT elastic_index_check('u_k', true)");
answers($primary, 'after the REINDEX');
is(init_fork_blocks($primary), '2', 'the REINDEX wrote an init fork');
$primary->stop('immediate');
$primary->start;
is_reset($primary, 'after a crash after the REINDEX');
$primary->safe_psql('postgres', rows(1, 5000));
answers($primary, 'inserts after the second crash');
$primary->safe_psql('postgres', "SELECT elastic_index_check('u_k', true)");

# the promoted standby has the empty index of its init fork
$primary->wait_for_catchup($standby, 'replay', $primary->lsn('insert'));
$standby->promote;
$standby->poll_query_until('postgres', 'SELECT NOT pg_is_in_recovery()')
  or die 'the standby was not promoted';
is_reset($standby, 'the promoted standby');
$standby->safe_psql('postgres', rows(1, 5000));
answers($standby, 'inserts on the promoted standby');
$standby->safe_psql('postgres', "SELECT elastic_index_check('u_k', true)");

done_testing();
