# Page deletion interrupted by a crash.  VACUUM deletes an emptied leaf in
# two WAL-logged steps (MARK_HALFDEAD, then UNLINK_PAGE).  The superuser-only
# setting elastic_index.debug_fault stops VACUUM with an error right after
# either step; an immediate shutdown then leaves the index in that state for
# crash recovery.  After recovery the index must pass elastic_index_check,
# answer queries and take inserts in the emptied key range, and the next
# VACUUM must finish the job.

use strict;
use warnings;

use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $node = PostgreSQL::Test::Cluster->new('pagedel');
$node->init;
$node->append_conf(
	'postgresql.conf', qq{
shared_preload_libraries = 'elastic_index'
autovacuum = off
});
$node->start;
$node->safe_psql('postgres', 'CREATE EXTENSION elastic_index');

my $force = 'SET enable_seqscan = off; SET enable_bitmapscan = off; SET enable_sort = off; ';
my $noindex = 'SET enable_indexscan = off; SET enable_indexonlyscan = off; SET enable_bitmapscan = off; ';

# the index and a sequential scan agree, and the checker is happy
sub check_index
{
	my ($label) = @_;
	my ($ret, $out, $err) = $node->psql('postgres',
		"SELECT elastic_index_check('t_w', true)");
	is($ret, 0, "$label: elastic_index_check passes") or diag($err);
	my $q = q{SELECT count(*), md5(string_agg(left(w, 8), ',')) FROM (SELECT w FROM t ORDER BY w DESC) AS s};
	is($node->safe_psql('postgres', $force . $q),
		$node->safe_psql('postgres', $noindex . $q),
		"$label: a backward index scan matches a sort");
	$q = q{SELECT count(*) FROM t WHERE w >= '00003000' AND w < '00009000'};
	is($node->safe_psql('postgres', $force . $q),
		$node->safe_psql('postgres', $noindex . $q),
		"$label: a range scan over the emptied keys matches");
	return;
}

sub stats
{
	return $node->safe_psql('postgres',
		"SELECT half_dead_pages || ' ' || deleted_pages FROM elastic_index_stats('t_w')");
}

foreach my $fault (qw(after_halfdead after_unlink))
{
	$node->safe_psql(
		'postgres', q{
DROP TABLE IF EXISTS t;
CREATE TABLE t (id int4, w text);
INSERT INTO t SELECT g, lpad(g::text, 8, '0') || repeat(md5(g::text), 8)
FROM generate_series(1, 12000) AS g;
CREATE INDEX t_w ON t USING elastic_btree (w);
DELETE FROM t WHERE id BETWEEN 3000 AND 9000;
});

	# VACUUM stops with an error right after the first page's step
	my ($ret, $out, $err) = $node->psql('postgres',
		"SET elastic_index.debug_fault = '$fault'; VACUUM t");
	like($err, qr/fault injected/, "$fault: VACUUM stopped by the fault");
	my ($halfdead, $deleted) = split / /, stats();
	if ($fault eq 'after_halfdead')
	{
		is($halfdead, '1', "$fault: one half-dead page before the crash");
	}
	else
	{
		cmp_ok($deleted, '>=', 1, "$fault: a deleted page before the crash");
	}

	# crash, and recover from WAL; VACUUM's records must be on disk first
	# (an aborted transaction does not flush WAL, a committed one that
	# wrote WAL does)
	$node->safe_psql('postgres', 'CREATE TABLE flush_wal (); DROP TABLE flush_wal');
	$node->stop('immediate');
	$node->start;
	($halfdead, $deleted) = split / /, stats();
	if ($fault eq 'after_halfdead')
	{
		is($halfdead, '1', "$fault: recovery restored the half-dead page");
	}
	else
	{
		cmp_ok($deleted, '>=', 1, "$fault: recovery restored the deleted page");
	}
	check_index("$fault, after recovery");

	# inserts into the emptied key range go around the half-dead page
	$node->safe_psql('postgres',
		q{INSERT INTO t SELECT g, lpad(g::text, 8, '0') || 'new' FROM generate_series(5000, 5100) AS g});
	check_index("$fault, after inserts into the emptied range");

	# the next VACUUM finishes: no half-dead page is left
	$node->safe_psql('postgres', 'VACUUM t');
	($halfdead, $deleted) = split / /, stats();
	is($halfdead, '0', "$fault: the next VACUUM leaves no half-dead page");
	cmp_ok($deleted, '>=', 1, "$fault: and has deleted pages");
	check_index("$fault, after VACUUM");

	# deleted pages are recycled once no transaction can still reach them
	$node->safe_psql('postgres',
		'SELECT txid_current(); SELECT txid_current(); VACUUM t');
	$node->safe_psql('postgres',
		q{INSERT INTO t SELECT g, lpad(g::text, 8, '0') || 'again' || repeat(md5(g::text), 8) FROM generate_series(3000, 9000) AS g});
	check_index("$fault, after reusing the pages");
}

$node->stop;
done_testing();
