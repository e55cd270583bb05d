# Entries of a compact leaf whose heap tuples are dead to every snapshot of
# the primary, but not yet pruned, and whose keys are toasted out of line.
# An insert into the leaf reads such keys with the leaf unlocked and finds
# their HOT chains dead (their TOAST may already be gone), and removes the
# entries.  A hot standby query whose snapshot still sees those rows must
# keep seeing them through the index, or be canceled by a recovery
# conflict: never silently lose them (hot_standby_feedback off, so the
# primary knows nothing about the standby's snapshots).

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
$primary->safe_psql('postgres', 'CREATE EXTENSION elastic_index');

$primary->backup('bkp');
my $standby = PostgreSQL::Test::Cluster->new('standby');
$standby->init_from_backup($primary, 'bkp', has_streaming => 1);
$standby->append_conf(
	'postgresql.conf', qq{
shared_preload_libraries = 'elastic_index'
hot_standby = on
hot_standby_feedback = off
max_standby_streaming_delay = 1s
});
$standby->start;

# every key toasted out of line: storage EXTERNAL, rows kept wide by a
# PLAIN column; compact leaves
$primary->safe_psql(
	'postgres', q{
CREATE TABLE t (k text COLLATE "C", pad text);
ALTER TABLE t ALTER COLUMN k SET STORAGE EXTERNAL;
ALTER TABLE t ALTER COLUMN pad SET STORAGE PLAIN;
INSERT INTO t SELECT lpad((g * 10)::text, 40, '0'), repeat('p', 2100)
FROM generate_series(1, 3000) AS g;
CREATE INDEX t_k ON t USING elastic_btree (k) WITH (size_bound = '64kB');
SELECT elastic_btree_shrink('t_k');
});
is($primary->safe_psql('postgres',
		'SELECT compact_leaf_pages > 0 FROM elastic_index_stats(\'t_k\')'),
	't', 'the index has compact leaves');
$primary->wait_for_catchup($standby, 'replay', $primary->lsn('insert'));

my $force = 'SET enable_seqscan = off; SET enable_bitmapscan = off;';

# A standby transaction whose snapshot sees the range $range ($expect rows)
# reads it through the index; the primary deletes the range (no snapshot of
# its own needs the rows) and runs $action on the compact leaves, which
# meets the deleted rows' toasted keys; the standby replays it.  The same
# query in the same snapshot must then find the same rows, or be canceled.
sub check_standby_snapshot
{
	my ($name, $range, $expect, $action) = @_;
	my $s = $standby->background_psql('postgres', on_error_stop => 0);
	$s->query_safe('\set VERBOSITY verbose');
	$s->query_safe($force);
	$s->query_safe('BEGIN ISOLATION LEVEL REPEATABLE READ');
	like($s->query_safe("EXPLAIN (COSTS OFF) SELECT count(*) FROM t WHERE $range"),
		qr/Index Only Scan using t_k|Index Scan using t_k/,
		"$name: the standby query reads the index");
	my $before = $s->query_safe("SELECT count(*) FROM t WHERE $range");
	chomp $before;
	is($before, $expect, "$name: the standby snapshot sees the range");

	$primary->safe_psql('postgres', "DELETE FROM t WHERE $range");
	$primary->safe_psql('postgres', $action);
	$primary->wait_for_catchup($standby, 'replay', $primary->lsn('insert'));

	my $out = '';
	my $died = !eval {
		$out = $s->query("SELECT count(*) FROM t WHERE $range");
		chomp $out;
		1;
	};
	my $err = $s->{stderr};
	if (!$died && $err eq '')
	{
		is($out, $before,
			"$name: the standby snapshot still finds every row of the range through the index");
	}
	else
	{
		like($err, qr/40001: (canceling statement|terminating connection) due to conflict with recovery/,
			"$name: the standby query was canceled by a recovery conflict");
	}
	eval { $s->quit; };
}

# an insert into the range: its search removes the dead entries it meets
check_standby_snapshot('insert',
	q{k BETWEEN lpad('10000', 40, '0') AND lpad('20000', 40, '0')}, 1001,
	"INSERT INTO t VALUES (lpad('15005', 40, '0'), '')");
# the leaves back to standard ones: the expansion leaves dead entries out
check_standby_snapshot('expand',
	q{k BETWEEN lpad('20010', 40, '0') AND lpad('30000', 40, '0')}, 1000,
	"SELECT elastic_btree_expand('t_k')");

done_testing();
