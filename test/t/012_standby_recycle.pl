# Recycling deleted pages while a hot standby scan may still hold a link to
# them.
#
# A deleted page keeps its sibling links, and its safexid (the next
# transaction id when it was unlinked) says which snapshots might still reach
# it.  Before the primary reuses the page it logs REUSE_PAGE with that
# safexid, and replaying it cancels the standby queries whose snapshots are
# that old.  Opportunistic cleanup before a split logs DELETE with the newest
# removed xid, which cancels queries the same way.  With
# hot_standby_feedback off the primary does not know about the standby's
# snapshots at all, so these conflicts are all that protects a standby scan.
#
# A standby cursor pauses on the leaf just left of a range of leaves whose
# rows were deleted before its snapshot was taken; it has read that leaf's
# right link, which points into the range.  The primary deletes those leaves
# (VACUUM), makes them recyclable (consumes xids, VACUUM), reuses them for new
# rows, and cleans LP_DEAD entries off another leaf before splitting it.
# When the standby has replayed all of that, the cursor fetches the rest: it
# must return exactly the rows of its snapshot, or fail with a recovery
# conflict, never a wrong answer or a corruption error.  Its snapshot is as
# old as the deleted pages' safexid, so replaying REUSE_PAGE must in fact
# cancel it (had it survived, it would have followed its saved link into a
# reused page).  A second cursor, whose snapshot is newer than everything
# removed, is paused on the leaf the DELETE record cleans and must come
# through with exactly its rows.

use strict;
use warnings;

use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use Digest::MD5 qw(md5_hex);

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
CREATE EXTENSION pageinspect;
CREATE EXTENSION pg_walinspect;
});

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

my $n = 30000;
$primary->safe_psql(
	'postgres', qq{
CREATE TABLE t (k int4, pad text);
INSERT INTO t SELECT g, md5(g::text) FROM generate_series(1, $n) AS g;
CREATE INDEX t_k ON t USING elastic_btree (k);
VACUUM (INDEX_CLEANUP ON) t;
-- fetch the rest of a cursor; one line: count, sum, md5 of the keys in order
CREATE FUNCTION drain(cur refcursor) RETURNS text LANGUAGE plpgsql AS \$\$
DECLARE
	r		record;
	keys	int4[] := '{}';
BEGIN
	LOOP
		FETCH cur INTO r;
		EXIT WHEN NOT FOUND;
		keys := keys || r.k;
	END LOOP;
	RETURN format('%s %s %s', cardinality(keys),
				  coalesce((SELECT sum(x) FROM unnest(keys) AS x), 0),
				  md5(array_to_string(keys, ',')));
END \$\$;
});

# The first key of every leaf, from the raw pages: a leaf has EI_LEAF (1)
# in its flags; its first data item is at offset 2 (1 on the rightmost
# leaf), and an int4 key sits 8 bytes into the tuple.
my %first_key;    # first key => block
foreach my $row (split /\n/, $primary->safe_psql('postgres', q{
SELECT b, encode(get_raw_page('t_k', b::int4), 'hex')
FROM generate_series(1, pg_relation_size('t_k') / 8192 - 1) AS b}))
{
	my ($blk, $hex) = split /\|/, $row;
	my $raw = pack('H*', $hex);
	my ($next, $level, $flags) =
	  unpack('V V v', substr($raw, length($raw) - 12, 10));
	next unless $flags & 1;
	my $lp  = unpack('V', substr($raw, 24 + 4 * ($next == 0xFFFFFFFF ? 0 : 1), 4));
	my $key = unpack('l<', substr($raw, ($lp & 0x7FFF) + 8, 4));
	$first_key{$key} = $blk;
}
my @firsts = sort { $a <=> $b } keys %first_key;
cmp_ok(scalar(@firsts), '>', 60, scalar(@firsts) . ' leaves');

# Range A: whole leaves from the first one starting at or after key 10000
# to the last one ending before key 25000.  L0, the leaf before it, keeps
# all its rows.
my ($a_lo) = grep { $_ >= 10000 } @firsts;
my ($after) = grep { $_ >= 25000 } @firsts;
my $a_hi = $after - 1;
my ($l0) = grep { $_ < $a_lo } reverse @firsts;
note "range A: keys $a_lo..$a_hi, leaf L0 starts at key $l0";

# Range R2: the last 150 keys of the leaf that starts after key 27000
my ($l2) = grep { $_ >= 27000 } @firsts;
my ($l2next) = grep { $_ > $l2 } @firsts;
my ($r2_lo, $r2_hi) = ($l2next - 150, $l2next - 1);
note "range R2: keys $r2_lo..$r2_hi on the leaf starting at key $l2";

my $force = q{
SET enable_seqscan = off; SET enable_bitmapscan = off; SET enable_sort = off;
SET enable_indexonlyscan = off; SET max_parallel_workers_per_gather = 0;
};
my $noindex = q{
SET enable_indexscan = off; SET enable_indexonlyscan = off;
SET enable_bitmapscan = off; SET max_parallel_workers_per_gather = 0;
};

sub stats
{
	return split /\|/, $primary->safe_psql('postgres',
		'SELECT deleted_pages, free_pages, total_pages, dead_entries FROM elastic_index_stats(\'t_k\')');
}

# Open a cursor in a REPEATABLE READ transaction on the standby and fetch
# the rows up to and including $upto; returns the session.
sub open_cursor
{
	my ($name, $upto) = @_;
	my $s = $standby->background_psql('postgres', on_error_stop => 0);
	$s->query_safe('\set VERBOSITY verbose');
	$s->query_safe($force);
	$s->query_safe('BEGIN ISOLATION LEVEL REPEATABLE READ');
	like(
		$s->query_safe(
			"EXPLAIN (COSTS OFF) SELECT k FROM t WHERE k > 0 ORDER BY k"),
		qr/Index Scan using t_k/,
		"$name: the cursor scans the elastic_btree index");
	$s->query_safe(
		"DECLARE $name CURSOR FOR SELECT k FROM t WHERE k > 0 ORDER BY k");
	my $count = $s->query_safe(
		"SELECT count(*) FROM t WHERE k > 0 AND k <= $upto");
	$s->query_safe("MOVE " . ($count - 1) . " FROM $name");
	# (the 16 branch point's BackgroundPsql leaves a newline on the output)
	my $fetched = $s->query_safe("FETCH 1 FROM $name");
	chomp $fetched;
	is($fetched, $upto, "$name: paused after key $upto");
	return ($s, $s->query_safe('SELECT pg_backend_pid()'));
}

# Fetch the rest of a cursor: it must give exactly @expect, or fail with a
# recovery conflict (SQLSTATE 40001), in which case the session is gone.
sub finish_cursor
{
	my ($name, $s, @expect) = @_;
	my ($out, $err) = ('', '');
	my $died = !eval {
		$out = $s->query("SELECT drain('$name')");
		chomp $out;
		1;
	};
	$err = $s->{stderr};
	if ($err eq '' && !$died)
	{
		my $sum = 0;
		$sum += $_ foreach @expect;
		is($out,
			scalar(@expect) . " $sum " . md5_hex(join(',', @expect)),
			"$name: returned exactly the rows of its snapshot, in order");
		$s->query_safe('COMMIT');
		$s->quit;
		return 'rows';
	}
	like($err, qr/40001: (canceling statement|terminating connection) due to conflict with recovery/,
		"$name: failed only with a recovery conflict")
	  or diag("stdout: $out");
	note "$name: $err";
	unlike($err, qr/corrupt|XX00\d/i, "$name: no corruption error");
	eval { $s->quit; };
	return 'conflict';
}

# Delete range A and commit before any cursor opens: its heap tuples'
# removal then conflicts with no standby snapshot
$primary->safe_psql('postgres',
	"DELETE FROM t WHERE k BETWEEN $a_lo AND $a_hi");
$primary->wait_for_catchup($standby, 'replay', $primary->lsn('insert'));

# Cursor 1 pauses on L0, a little into it (so that the heap page it has
# pinned holds no row of range A, which VACUUM would have to clean)
my ($c1, $c1_pid) = open_cursor('c1', $l0 + 9);
my @expect1 = (($l0 + 10) .. ($a_lo - 1), ($a_hi + 1) .. $n);

# VACUUM deletes range A's leaves: the first one is L0's right sibling
$primary->safe_psql('postgres', 'VACUUM (INDEX_CLEANUP ON) t');
my ($deleted, $free, $total) = stats();
my $a_leaves = grep { $_ >= $a_lo && $_ <= $a_hi } @firsts;
is($deleted, $a_leaves, "VACUUM deleted the $a_leaves leaves of range A");

# once transaction ids were used, the next VACUUM puts them into the free
# space map
$primary->safe_psql('postgres', 'SELECT txid_current()');
$primary->safe_psql('postgres', 'SELECT txid_current()');
$primary->safe_psql('postgres', 'VACUUM (INDEX_CLEANUP ON) t');
($deleted, $free, $total) = stats();
is($free, $a_leaves, "the deleted leaves are in the free space map ($free)");

# Range R2 on another leaf: delete, then let an index scan mark its entries
# LP_DEAD
$primary->safe_psql('postgres',
	"DELETE FROM t WHERE k BETWEEN $r2_lo AND $r2_hi");
$primary->safe_psql('postgres',
	$force . "SELECT count(*) FROM (SELECT pad FROM t WHERE k BETWEEN $r2_lo AND $r2_hi) AS s");
my (undef, undef, undef, $dead) = stats();
cmp_ok($dead, '>=', 100, "an index scan marked $dead entries of range R2 LP_DEAD");
$primary->wait_for_catchup($standby, 'replay', $primary->lsn('insert'));

# Cursor 2's snapshot is newer than everything removed from now on.  It
# pauses on R2's leaf, far enough from R2 that its heap page holds no R2
# row.
my ($c2, $c2_pid) = open_cursor('c2', $l2 + 9);
my @expect2 = grep { $_ < $r2_lo || $_ > $r2_hi } (($l2 + 10) .. $n);

# New rows at the right end take the free pages (REUSE_PAGE)...
my $start_lsn = $primary->lsn('insert');
my $new_hi = $n + 7000;
$primary->safe_psql('postgres',
	"INSERT INTO t SELECT g, md5(g::text) FROM generate_series($n + 1, $new_hi) AS g");
my ($deleted2, $free2, $total2) = stats();
cmp_ok($free2, '<', $free, "inserts took pages from the free space map ($free -> $free2)");
is($total2, $total, "the index did not grow ($total pages)");

# Cursor 1's snapshot was taken before the pages were unlinked, so its xmin
# is not newer than their safexid: replaying REUSE_PAGE must cancel it (the
# startup process goes on only once the conflicting transaction is gone).
# Cursor 2 is newer and stays.
$primary->wait_for_catchup($standby, 'replay', $primary->lsn('insert'));
ok( $standby->poll_query_until(
		'postgres',
		"SELECT count(*) = 0 FROM pg_stat_activity WHERE pid = $c1_pid"),
	'replaying REUSE_PAGE cancelled cursor 1');
is( $standby->safe_psql(
		'postgres', "SELECT count(*) FROM pg_stat_activity WHERE pid = $c2_pid"),
	'1', 'cursor 2 is still there');

# ... and rows in R2 fill its leaf, which gives back the LP_DEAD entries'
# space before it splits (DELETE)
my $mid = $r2_lo + 50;
$primary->safe_psql('postgres',
	"INSERT INTO t SELECT $mid, 'again' || g FROM generate_series(1, 500) AS g");
my $types = $primary->safe_psql(
	'postgres', qq{
SELECT string_agg(DISTINCT record_type, ',' ORDER BY record_type)
FROM pg_get_wal_records_info('$start_lsn', pg_current_wal_flush_lsn())
WHERE resource_manager = 'elastic_index'});
like($types, qr/\bREUSE_PAGE\b/, 'REUSE_PAGE records were written');
like($types, qr/\bDELETE\b/,     'a DELETE record was written');

my ($ret, $out, $err) = $primary->psql('postgres',
	"SELECT elastic_index_check('t_k', true)");
is($ret, 0, 'elastic_index_check passes on the primary') or diag($err);

# the standby replays everything, cancelling what it must
$primary->wait_for_catchup($standby, 'replay', $primary->lsn('insert'));

my $r1 = finish_cursor('c1', $c1, @expect1);
my $r2 = finish_cursor('c2', $c2, @expect2);
note "cursor 1: $r1, cursor 2: $r2; standby conflicts: "
  . $standby->safe_psql('postgres',
	"SELECT confl_snapshot || ' snapshot, ' || confl_bufferpin || ' buffer pin' FROM pg_stat_database_conflicts WHERE datname = 'postgres'");

# after catch-up the standby answers like the primary
my @queries = (
	q{SELECT count(*), sum(k), md5(string_agg(k::text || pad, ',' ORDER BY k, pad)) FROM t WHERE k > 0},
	q{SELECT count(*), sum(k), md5(string_agg(k::text, ',')) FROM (SELECT k FROM t WHERE k > 0 ORDER BY k DESC) AS s},
	qq{SELECT count(*), sum(k) FROM t WHERE k BETWEEN $l0 AND $after},
	qq{SELECT count(*), sum(k) FROM t WHERE k BETWEEN $l2 AND $l2next},
);
foreach my $q (@queries)
{
	my $p = $primary->safe_psql('postgres', $force . $q);
	is($p, $primary->safe_psql('postgres', $noindex . $q),
		"primary: index scan matches sequential scan: $q");
	is($standby->safe_psql('postgres', $force . $q), $p,
		"standby matches primary: $q");
}

$standby->stop;
$primary->stop;
done_testing();
