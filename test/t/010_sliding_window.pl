# A sliding window over time-ordered rows, the workload page deletion and
# recycling exist for.  A table keyed by an ascending bigint timestamp keeps
# the last seven "days": every window inserts one new day at the right end
# of the key space, deletes the oldest day at the left end and runs VACUUM.
# VACUUM deletes the emptied leaves and puts them into the free space map
# once no snapshot can reach them, and the next day's inserts take them from
# there instead of extending the file.
#
# An elastic_btree and a btree index on the same column go through the same
# windows.  After every window the elastic_btree index passes
# elastic_index_check with heapallindexed, a scan forced through it finds
# exactly the rows a sequential scan finds, and its size stays within 10%
# of btree's.  Its size must also stay within 10% of its size after the
# first window (see below).

use strict;
use warnings;

use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

# rows per day, days kept, windows run
my $day     = 20000;
my $days    = 7;
my $windows = 30;

my $node = PostgreSQL::Test::Cluster->new('window');
$node->init;
$node->append_conf(
	'postgresql.conf', qq{
shared_preload_libraries = 'elastic_index'
autovacuum = off
max_wal_size = '1GB'
});
$node->start;

# day d holds ts d * $day .. (d + 1) * $day - 1, inserted in ascending order
sub insert_day
{
	my ($d) = @_;
	my $lo = $d * $day;
	my $hi = $lo + $day - 1;
	return
	  "INSERT INTO events SELECT g, md5(g::text) FROM generate_series($lo, $hi) AS g;";
}

$node->safe_psql(
	'postgres', q{
CREATE EXTENSION elastic_index;
CREATE TABLE events (ts int8 NOT NULL, payload text NOT NULL);
CREATE INDEX events_ts_ei ON events USING elastic_btree (ts);
CREATE INDEX events_ts_bt ON events USING btree (ts);
});
$node->safe_psql('postgres', join("\n", map { insert_day($_) } 0 .. $days - 1));
$node->safe_psql('postgres', 'VACUUM events');

# a scan forced through the elastic_btree index: the btree index is dropped
# inside a transaction that is rolled back, so the planner has no choice
my $force = q{
SET enable_seqscan = off; SET enable_bitmapscan = off; SET enable_sort = off;
SET max_parallel_workers_per_gather = 0;
BEGIN; DROP INDEX events_ts_bt;
};
my $noindex = q{
SET enable_indexscan = off; SET enable_indexonlyscan = off;
SET enable_bitmapscan = off; SET max_parallel_workers_per_gather = 0;
};
my $query =
  q{SELECT count(*), sum(ts), min(ts), max(ts), md5(string_agg(payload, ',' ORDER BY ts)) FROM events WHERE ts >= 0};
my $range_query =
  q{SELECT count(*), sum(ts) FROM events WHERE ts BETWEEN %d AND %d};

like(
	$node->safe_psql('postgres', $force . "EXPLAIN (COSTS OFF) $query; ROLLBACK;"),
	qr/Index (Only )?Scan using events_ts_ei/,
	'the forced scan uses the elastic_btree index');

my @sizes;     # [window, elastic bytes, btree bytes]
my $failures = 0;
for my $w (1 .. $windows)
{
	my $new = $days + $w - 1;    # the day inserted
	my $old = $w - 1;            # the day deleted
	$node->safe_psql('postgres',
		insert_day($new) . "DELETE FROM events WHERE ts < " . (($old + 1) * $day) . ';');
	$node->safe_psql('postgres', 'VACUUM events');

	my ($ret, $out, $err) = $node->psql('postgres',
		"SELECT elastic_index_check('events_ts_ei', true)");
	$failures++ unless is($ret, 0, "window $w: elastic_index_check passes");
	diag($err) if $ret != 0;

	my $via_index = $node->safe_psql('postgres', $force . "$query; ROLLBACK;");
	my $via_seq   = $node->safe_psql('postgres', $noindex . $query);
	$failures++
	  unless is($via_index, $via_seq,
		"window $w: the index finds the rows a sequential scan finds");

	# a range over the boundary of the deleted day and the window's middle
	my $rq = sprintf($range_query, ($old + 1) * $day - 100, ($old + 3) * $day);
	$failures++
	  unless is(
		$node->safe_psql('postgres', $force . "$rq; ROLLBACK;"),
		$node->safe_psql('postgres', $noindex . $rq),
		"window $w: a range scan across the deleted day's boundary matches");

	my ($ei, $bt, $stats) = split /\|/, $node->safe_psql(
		'postgres', q{
SELECT pg_relation_size('events_ts_ei'), pg_relation_size('events_ts_bt'),
       format('leaf %s inner %s deleted %s half-dead %s free %s height %s',
              leaf_pages, inner_pages, deleted_pages, half_dead_pages,
              free_pages, height)
FROM elastic_index_stats('events_ts_ei')});
	push @sizes, [ $w, $ei, $bt ];
	note(sprintf("window %2d: elastic %d pages, btree %d pages, ratio %.3f (%s)",
			$w, $ei / 8192, $bt / 8192, $ei / $bt, $stats));

	$failures++
	  unless cmp_ok($ei, '<=', 1.1 * $bt,
		"window $w: elastic_btree size ($ei) is within 10% of btree's ($bt)");
	last if $failures > 0;
}

# Bounded size.  Pages deleted by window w's VACUUM are behind the recycle
# fence that VACUUM moves when no other snapshot could predate them (nothing
# else runs here), so window w + 1's inserts reuse them.  The xid horizon
# alone would free them only one cycle later (nbtree's behaviour): btree's
# size settles one day of pages above its first window's, while ours must
# stay within 10% of the first window's from start to end.
if ($failures == 0)
{
	my $first = $sizes[0][1];
	my ($max) = sort { $b <=> $a } map { $_->[1] } @sizes;
	cmp_ok($max, '<=', 1.1 * $first,
		"the largest size ($max) is within 10% of the size after the first window ($first)");
	my ($bmax) = sort { $b <=> $a } map { $_->[2] } @sizes;
	note("elastic_btree: first window $first bytes, max $max bytes; btree first window $sizes[0][2] bytes, max $bmax bytes");
}

# the index still takes inserts anywhere and passes the check
$node->safe_psql('postgres',
	'INSERT INTO events SELECT g, md5(g::text) FROM generate_series(0, 20000, 7) AS g');
my ($ret, $out, $err) = $node->psql('postgres',
	"SELECT elastic_index_check('events_ts_ei', true)");
is($ret, 0, 'after inserts into the deleted key range: elastic_index_check passes')
  or diag($err);
is( $node->safe_psql('postgres', $force . "$query; ROLLBACK;"),
	$node->safe_psql('postgres', $noindex . $query),
	'after inserts into the deleted key range: the index finds every row');

$node->stop;
done_testing();
