# Recycling deleted pages while a hot standby protects its queries with
# hot_standby_feedback through a physical replication slot.
#
# With a slot, the walsender does not put the standby's feedback xmin into
# its own PGPROC: the slot holds it.  The recycle fence must count the
# slots' xmin too, or VACUUM moves it past pages the standby's snapshots
# may still reach, inserts reuse them at once, and replaying the reuse
# record (REUSE_PAGE) cancels exactly the standby queries the feedback is
# there to protect.
#
# A REPEATABLE READ transaction on the standby reads the table through the
# index and stays open.  Once the slot holds its xmin, the primary deletes
# rows, VACUUMs (the emptied leaves are deleted), and inserts enough to
# split leaves, which would take deleted pages if they were recyclable.
# The standby replays all of it; its transaction must still be there and
# read the same rows as before.  After it ends, a VACUUM frees the pages and
# inserts do reuse them.

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
autovacuum = off
});
$primary->start;
$primary->safe_psql('postgres', q{
CREATE EXTENSION elastic_index;
SELECT pg_create_physical_replication_slot('standby_slot');
});

$primary->backup('bkp');
my $standby = PostgreSQL::Test::Cluster->new('standby');
$standby->init_from_backup($primary, 'bkp', has_streaming => 1);
# a conflict cancels at once: the test must not depend on how long replay
# would otherwise wait
$standby->append_conf(
	'postgresql.conf', qq{
shared_preload_libraries = 'elastic_index'
hot_standby = on
hot_standby_feedback = on
primary_slot_name = 'standby_slot'
wal_receiver_status_interval = 1s
max_standby_streaming_delay = 0
});
$standby->start;

my $n = 30000;
$primary->safe_psql(
	'postgres', qq{
CREATE TABLE t (k int4, pad text);
INSERT INTO t SELECT g, md5(g::text) FROM generate_series(1, $n) AS g;
CREATE INDEX t_k ON t USING elastic_btree (k);
VACUUM (INDEX_CLEANUP ON) t;
});

sub stats
{
	return split /\|/, $primary->safe_psql('postgres',
		q{SELECT deleted_pages, free_pages, total_pages FROM elastic_index_stats('t_k')});
}

my $force = q{
SET enable_seqscan = off; SET enable_bitmapscan = off; SET enable_sort = off;
SET enable_indexonlyscan = off; SET max_parallel_workers_per_gather = 0;
};
my $query =
  q{SELECT count(*), sum(k), md5(string_agg(k::text || pad, ',' ORDER BY k)) FROM t WHERE k > 0};

# the rows go before the standby's snapshot is taken, so that removing
# their heap tuples conflicts with nothing
$primary->safe_psql('postgres', 'DELETE FROM t WHERE k BETWEEN 5000 AND 25000');
$primary->wait_for_catchup($standby, 'replay', $primary->lsn('insert'));

my $s = $standby->background_psql('postgres', on_error_stop => 0);
$s->query_safe('\set VERBOSITY verbose');
$s->query_safe($force);
$s->query_safe('BEGIN ISOLATION LEVEL REPEATABLE READ');
like($s->query_safe("EXPLAIN (COSTS OFF) $query"),
	qr/Index Scan using t_k/, 'the standby query scans the elastic_btree index');
my $before = $s->query_safe($query);
chomp $before;
my $pid = $s->query_safe('SELECT pg_backend_pid()');
chomp $pid;
my $sxmin = $s->query_safe('SELECT pg_snapshot_xmin(pg_current_snapshot())');
chomp $sxmin;

# the slot holds the standby's snapshot (feedback comes every second)
ok( $primary->poll_query_until(
		'postgres', qq{
SELECT xmin IS NOT NULL AND xmin::text::bigint = $sxmin
FROM pg_replication_slots WHERE slot_name = 'standby_slot'}),
	"the slot holds the standby snapshot's xmin $sxmin");
is( $primary->safe_psql(
		'postgres',
		"SELECT count(*) FROM pg_stat_replication WHERE backend_xmin IS NOT NULL"),
	'0', 'the walsender itself holds no xmin: the slot does');

# VACUUM deletes the emptied leaves; a second one (after xids were used)
# would put them into the free space map if they were recyclable
$primary->safe_psql('postgres', 'VACUUM (INDEX_CLEANUP ON) t');
$primary->safe_psql('postgres', 'SELECT txid_current()');
$primary->safe_psql('postgres', 'SELECT txid_current()');
$primary->safe_psql('postgres', 'VACUUM (INDEX_CLEANUP ON) t');
my ($deleted, $free, $total) = stats();
cmp_ok($deleted, '>', 30, "VACUUM deleted $deleted leaves");
is($free, 0, 'none of them is free while the standby snapshot may reach them');

# new rows split leaves, which takes pages from the free space map if any
$primary->safe_psql('postgres',
	"INSERT INTO t SELECT g, md5(g::text) FROM generate_series($n + 1, $n + 7000) AS g");
$primary->wait_for_catchup($standby, 'replay', $primary->lsn('insert'));

# the standby transaction is still there and sees what it saw
my ($out, $died) = ('', 0);
$died = !eval { $out = $s->query($query); chomp $out; 1; };
my $err = $s->{stderr};
is($err, '', 'the standby query was not cancelled');
ok(!$died, 'the standby session is alive');
is($out, $before, 'the standby transaction reads the rows of its snapshot');
is( $standby->safe_psql(
		'postgres',
		"SELECT confl_snapshot FROM pg_stat_database_conflicts WHERE datname = 'postgres'"),
	'0', 'no snapshot conflict on the standby');
eval { $s->query_safe('COMMIT'); $s->quit; };

# once the standby's transaction is over and the slot lets go of its
# xmin, VACUUM frees the pages and inserts reuse them
ok( $primary->poll_query_until(
		'postgres', qq{
SELECT xmin IS NULL OR xmin::text::bigint > $sxmin
FROM pg_replication_slots WHERE slot_name = 'standby_slot'}),
	'the slot moved past the old snapshot');
$primary->safe_psql('postgres', 'VACUUM (INDEX_CLEANUP ON) t');
my ($deleted2, $free2, $total2) = stats();
cmp_ok($free2, '>', 0, "the deleted pages are free now ($free2)");
$primary->safe_psql('postgres',
	"INSERT INTO t SELECT g, md5(g::text) FROM generate_series($n + 7001, $n + 14000) AS g");
my ($deleted3, $free3, $total3) = stats();
cmp_ok($free3, '<', $free2, "inserts took free pages ($free2 -> $free3)");
is($total3, $total2, "the index did not grow ($total2 pages)");

# the standby answers like the primary
$primary->wait_for_catchup($standby, 'replay', $primary->lsn('insert'));
is($standby->safe_psql('postgres', $force . $query),
	$primary->safe_psql('postgres', $force . $query),
	'standby matches primary');

$standby->stop;
$primary->stop;
done_testing();
