# Crash safety of osm_tree's batch-aware ingestion.  A batch is applied in
# steps, each its own WAL record: entries put into an existing leaf
# (INSERT_MULTI), a new leaf appended at the right edge (a SPLIT record that
# moves nothing), the new leaf's downlink (INSERT_INNER).  The test crashes
# (1) after committed batches, (2) with a batch still in the memory of an
# open transaction, (3) between the two steps of a bulk append (forced with
# elastic_index.debug_fault = after_split), (4) with an open transaction's
# batch applied in pieces under a tiny osm_tree.batch_memory, and checks
# after every restart that the index answers like a sequential scan, row
# for row, passes the verifier, and that a streaming standby answers like
# the primary.

use strict;
use warnings;

use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $node = PostgreSQL::Test::Cluster->new('osm_crash');
$node->init(allows_streaming => 1);
$node->append_conf(
	'postgresql.conf', qq{
shared_preload_libraries = 'elastic_index'
autovacuum = off
wal_keep_size = '512MB'
});
$node->start;

$node->safe_psql(
	'postgres', q{
CREATE EXTENSION elastic_index;
CREATE TABLE o (id int8, k int8);
-- no insert buffer: this test is about batches (016 tests the buffer)
CREATE INDEX o_k ON o USING osm_tree (k) WITH (batch_size = 5000, buffer_size = 0);
});

$node->backup('bkp');
my $standby = PostgreSQL::Test::Cluster->new('osm_standby');
$standby->init_from_backup($node, 'bkp', has_streaming => 1);
$standby->append_conf('postgresql.conf',
	"shared_preload_libraries = 'elastic_index'");
$standby->start;

# the rows as the index returns them, and as a sequential scan does
my $force = 'SET enable_seqscan = off; SET enable_bitmapscan = off; SET enable_sort = off;';
my $q = q{SELECT count(*), count(DISTINCT (id, k)), md5(string_agg(k::text || ':' || id::text, ',' ORDER BY k, id)) FROM (SELECT id, k FROM o WHERE k > 0 ORDER BY k) AS x};

sub check_index
{
	my ($label, $expected_rows) = @_;
	my $via_index = $node->safe_psql('postgres', "$force $q");
	my $via_seq = $node->safe_psql('postgres',
		"SET enable_indexscan = off; SET enable_bitmapscan = off; $q");
	is($via_index, $via_seq, "$label: index answers like a sequential scan");
	like($via_index, qr/^$expected_rows\|$expected_rows\|/,
		"$label: $expected_rows rows, none lost or doubled");
	my ($ret, $out, $err) =
	  $node->psql('postgres', "SELECT elastic_index_check('o_k', true)");
	is($ret, 0, "$label: elastic_index_check passes") or diag($err);
	$node->wait_for_catchup($standby, 'replay', $node->lsn('insert'));
	is($standby->safe_psql('postgres', "$force $q"), $via_index,
		"$label: the standby answers like the primary");
	return;
}

# 1. committed near-sorted batches, then a crash
$node->safe_psql('postgres',
	'INSERT INTO o SELECT pos, key FROM elastic_index_near_sorted(60000, 5, 5, 7) ORDER BY pos');
my $appended = $node->safe_psql('postgres',
	"SELECT bulk_appended_entries > 10000 AND batched_entries > 0 AND batched_entries + bulk_appended_entries + fastpath_inserts + descents = 60000 FROM elastic_index_activity() WHERE indexrelid = 'o_k'::regclass");
is($appended, 't', 'the load appended leaves and filled existing ones, every entry counted once');
$node->stop('immediate');
$node->start;
check_index('after a crash following committed batches', 60000);

# 2. a crash while a transaction holds a batch not yet applied: its rows
# were never visible and stay invisible; nothing of it is in the index
my $bg = $node->background_psql('postgres', on_error_stop => 1);
$bg->query_safe('BEGIN');
$bg->query_safe(
	'INSERT INTO o SELECT g, 60000 + g FROM generate_series(1, 3000) AS g');
$node->stop('immediate');
eval { $bg->quit; };
$node->start;
check_index('after a crash with a batch in an open transaction', 60000);

# 3. a bulk append stopped after its first step (the new leaf is linked,
# its downlink missing), then a crash
my ($ret, $out, $err) = $node->psql(
	'postgres', q{
SET elastic_index.debug_fault = 'after_split';
INSERT INTO o SELECT g, 100000 + g FROM generate_series(1, 20000) AS g;
});
isnt($ret, 0, 'the forced fault stopped the load after a bulk append step');
like($err, qr/after_split|fault/i, 'the error names the fault point');
$node->stop('immediate');
$node->start;
check_index('after a crash between the two steps of a bulk append', 60000);

# the next load passes the incomplete split and finishes it
$node->safe_psql('postgres',
	'INSERT INTO o SELECT g, 100000 + g FROM generate_series(1, 20000) AS g');
check_index('after a load that finishes the interrupted append', 80000);

# 4. osm_tree.batch_memory: a transaction's batch applied in many pieces
# (64 kB holds about a thousand entries, under the index's batch_size of
# 5000), then a crash before it commits: the pieces are in the index, their
# rows never visible
$bg = $node->background_psql('postgres', on_error_stop => 1);
my $before = $bg->query_safe(
	"SELECT batches_applied FROM elastic_index_activity() WHERE indexrelid = 'o_k'::regclass");
$bg->query_safe('BEGIN');
$bg->query_safe("SET LOCAL osm_tree.batch_memory = '64kB'");
$bg->query_safe(
	'INSERT INTO o SELECT g, 200000 + g FROM generate_series(1, 20000) AS g');
my $pieces = $bg->query_safe(
	"SELECT batches_applied - $before FROM elastic_index_activity() WHERE indexrelid = 'o_k'::regclass");
$pieces =~ s/\s+//g;
cmp_ok($pieces, '>', 10,
	'the open transaction applied its batch in many pieces under a 64 kB bound');
$node->stop('immediate');
eval { $bg->quit; };
$node->start;
check_index('after a crash with a batch applied in pieces, uncommitted', 80000);

# and committed: 30000 scrambled rows in one transaction, in pieces
$node->safe_psql(
	'postgres', q{
SET osm_tree.batch_memory = '64kB';
INSERT INTO o SELECT pos, 300000 + key FROM elastic_index_near_sorted(30000, 100, 100, 3) ORDER BY pos;
});
check_index('after a one-transaction load applied in pieces', 110000);
$node->stop('immediate');
$node->start;
check_index('after a crash following it', 110000);

$standby->stop;
$node->stop;
done_testing();
