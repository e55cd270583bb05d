# Crashes in the middle of page deletion, replayed by crash recovery on the
# primary and by a streaming standby that checks every elastic_index record
# with wal_consistency_checking.
#
# VACUUM deletes an emptied leaf in two WAL-logged steps, MARK_HALFDEAD and
# UNLINK_PAGE; a leaf that is its parent's only child goes together with the
# parent (a chain: both are marked half-dead, then the parent is unlinked,
# then the leaf).  elastic_index.debug_fault makes VACUUM stop with an error
# right after a step's WAL record.  For each step we crash the primary
# (immediate shutdown) in that state, for a plain leaf and for a chain, and
# check after recovery: elastic_index_check with heapallindexed passes,
# every committed row is found through the index, elastic_index_stats shows
# the half-dead or deleted pages, and the standby answers like the primary.
# A plain VACUUM then finishes the deletion.

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
});
$primary->start;
$primary->safe_psql('postgres', q{
CREATE EXTENSION elastic_index;
CREATE EXTENSION pageinspect;
CREATE TABLE flush_wal (i int4);
});

$primary->backup('bkp');
my $standby = PostgreSQL::Test::Cluster->new('standby');
$standby->init_from_backup($primary, 'bkp', has_streaming => 1);
$standby->append_conf(
	'postgresql.conf', qq{
shared_preload_libraries = 'elastic_index'
wal_consistency_checking = 'elastic_index'
hot_standby = on
max_standby_streaming_delay = -1
});
$standby->start;

my $force = q{
SET enable_seqscan = off; SET enable_bitmapscan = off; SET enable_sort = off;
SET max_parallel_workers_per_gather = 0;
};
my $noindex = q{
SET enable_indexscan = off; SET enable_indexonlyscan = off;
SET enable_bitmapscan = off; SET max_parallel_workers_per_gather = 0;
};

# one line per query, forced through the index (or not): the whole index in
# both directions, and a range around the deleted keys
my @queries = (
	q{SELECT count(*), sum(id), md5(string_agg(id::text, ',')) FROM (SELECT id FROM t ORDER BY w) AS s},
	q{SELECT count(*), sum(id), md5(string_agg(id::text, ',')) FROM (SELECT id FROM t ORDER BY w DESC) AS s},
	q{SELECT count(*), sum(id) FROM t WHERE w BETWEEN '00000900' AND '00003100'},
	q{SELECT count(*) FROM t WHERE w > '0'},
);

# Decode one page of index t_w: special area and, for each line pointer,
# the block of the item's t_tid (the heap block of a leaf item, the
# downlink of a pivot) and its offset part.
sub read_page
{
	my ($node, $blkno) = @_;
	my $hex = $node->safe_psql('postgres',
		"SELECT encode(get_raw_page('t_w', $blkno), 'hex')");
	my $raw = pack('H*', $hex);
	my ($prev, $next, $level, $flags) =
	  unpack('V V V v', substr($raw, length($raw) - 16, 14));
	my $lower = unpack('v', substr($raw, 12, 2));
	my @items;
	for (my $lp = 24; $lp < $lower; $lp += 4)
	{
		my $v   = unpack('V', substr($raw, $lp, 4));
		my $off = $v & 0x7FFF;
		my ($hi, $lo, $pos) = unpack('v v v', substr($raw, $off, 6));
		push @items, { block => ($hi << 16) | $lo, posid => $pos };
	}
	return {
		prev   => $prev,
		next   => $next,
		level  => $level,
		flags  => $flags,
		items  => \@items,
		rightmost => $next == 0xFFFFFFFF,
	};
}

# data items of a page (after the high key unless it is the rightmost)
sub data_items
{
	my ($page) = @_;
	my @items = @{ $page->{items} };
	shift @items unless $page->{rightmost};
	return @items;
}

use constant {
	EI_LEAF      => 1,
	EI_DELETED   => 1 << 5,
	EI_HALF_DEAD => 1 << 6,
};

sub stats
{
	my ($node) = @_;
	my ($hd, $del) = split /\|/, $node->safe_psql('postgres',
		'SELECT half_dead_pages, deleted_pages FROM elastic_index_stats(\'t_w\')');
	return ($hd, $del);
}

# the checker passes and index scans agree with sequential scans on the
# primary; the standby (once caught up) returns the same answers
sub check_all
{
	my ($label) = @_;
	my ($ret, $out, $err) = $primary->psql('postgres',
		"SELECT elastic_index_check('t_w', true)");
	is($ret, 0, "$label: elastic_index_check passes") or diag($err);
	$primary->wait_for_catchup($standby, 'replay', $primary->lsn('insert'));
	foreach my $q (@queries)
	{
		my $p = $primary->safe_psql('postgres', $force . $q);
		is($p, $primary->safe_psql('postgres', $noindex . $q),
			"$label: index scan matches sequential scan: $q");
		is($standby->safe_psql('postgres', $force . $q), $p,
			"$label: standby matches primary: $q");
	}
	return;
}

# 4000 rows with ~400-byte keys: 16 entries per leaf, a tree of four levels
sub create_table
{
	$primary->safe_psql(
		'postgres', q{
DROP TABLE IF EXISTS t;
CREATE TABLE t (id int4, w text);
INSERT INTO t SELECT g, lpad(g::text, 8, '0') || repeat(md5(g::text), 12)
FROM generate_series(1, 4000) AS g;
CREATE INDEX t_w ON t USING elastic_btree (w);
});
	return;
}

# delete the rows whose entries are on the given leaves (by heap TID)
sub delete_leaves
{
	my @tids;
	foreach my $blk (@_)
	{
		push @tids, map { "($_->{block},$_->{posid})" }
		  data_items(read_page($primary, $blk));
	}
	$primary->safe_psql('postgres',
		"DELETE FROM t WHERE ctid = ANY ('{" . join(',', map { "\"$_\"" } @tids) . "}'::tid[])");
	return;
}

foreach my $case (qw(leaf chain leftmost_chain))
{
	foreach my $fault (qw(after_halfdead after_unlink))
	{
		my $label = "$fault, $case";
		create_table();

		my ($expect_hd, $expect_del);
		my ($chain_parent, $chain_leaf);
		if ($case eq 'leaf')
		{
			# a key range in the middle: the first leaf VACUUM empties has
			# siblings under its parent, so it is deleted alone
			$primary->safe_psql('postgres',
				'DELETE FROM t WHERE id BETWEEN 1000 AND 3000');
			($expect_hd, $expect_del) =
			  $fault eq 'after_halfdead' ? (1, 0) : (0, 1);
		}
		else
		{
			# Pick an inner page P on level 1 (with at least three
			# children) whose downlink is not the last of its parent: the
			# leftmost page of the level, or one in the middle.  First empty
			# and delete all its children but the last; then the last child
			# is P's only child, and deleting it deletes P too.  The level is
			# the low byte at offset 8184 of a page.
			my @candidates;
			foreach my $blk (split /\n/, $primary->safe_psql('postgres', q{
SELECT b FROM generate_series(1, pg_relation_size('t_w') / 8192 - 1) AS b
WHERE get_byte(get_raw_page('t_w', b::int4), 8184) = 2 ORDER BY b}))
			{
				my @down = map { $_->{block} } data_items(read_page($primary, $blk));
				push @candidates, @down[ 0 .. $#down - 1 ];
			}
			my $leftmost = $case eq 'leftmost_chain';
			my ($p) = grep {
				scalar(data_items($_->[1])) >= 3
				  && ($_->[1]{prev} == 0xFFFFFFFF) == $leftmost
			} map { [ $_, read_page($primary, $_) ] } @candidates;
			BAIL_OUT('no suitable level-1 page') unless defined $p;
			$chain_parent = $p->[0];
			my @children = map { $_->{block} } data_items($p->[1]);
			$chain_leaf = $children[-1];
			delete_leaves(@children[ 0 .. $#children - 1 ]);
			# INDEX_CLEANUP ON: so few dead rows would otherwise let VACUUM
			# skip the index
			$primary->safe_psql('postgres', 'VACUUM (INDEX_CLEANUP ON) t');
			my ($hd, $del) = stats($primary);
			is("$hd $del", "0 " . (@children - 1),
				"$label: the first VACUUM deleted all children of block $chain_parent but one");
			is(scalar(data_items(read_page($primary, $chain_parent))), 1,
				"$label: block $chain_parent has one downlink left");
			check_all("$label, before the chain is deleted");

			delete_leaves($chain_leaf);
			($expect_hd, $expect_del) =
			  $fault eq 'after_halfdead'
			  ? (2, @children - 1)
			  : (1, scalar(@children));
		}

		# VACUUM stops with an error right after the first step
		my ($ret, $out, $err) = $primary->psql('postgres',
			"SET elastic_index.debug_fault = '$fault'; VACUUM (INDEX_CLEANUP ON) t");
		isnt($ret, 0, "$label: VACUUM fails");
		like($err, qr/fault injected/, "$label: with the injected fault");
		my ($hd, $del) = stats($primary);
		is("$hd $del", "$expect_hd $expect_del",
			"$label: half-dead and deleted pages before the crash");

		# The aborted VACUUM's records reach disk only once a later commit
		# flushes WAL; then crash
		$primary->safe_psql('postgres',
			'SET synchronous_commit = on; INSERT INTO flush_wal VALUES (1)');
		$primary->stop('immediate');
		$primary->start;

		($hd, $del) = stats($primary);
		is("$hd $del", "$expect_hd $expect_del",
			"$label: recovery restored the half-dead and deleted pages");
		if ($case ne 'leaf')
		{
			my $pflags = read_page($primary, $chain_parent)->{flags};
			my $lflags = read_page($primary, $chain_leaf)->{flags};
			if ($fault eq 'after_halfdead')
			{
				ok($pflags & EI_HALF_DEAD && !($pflags & EI_DELETED),
					"$label: the parent is half-dead");
			}
			else
			{
				ok($pflags & EI_DELETED, "$label: the parent is deleted");
			}
			ok($lflags & EI_HALF_DEAD && !($lflags & EI_DELETED),
				"$label: the leaf is half-dead");
		}
		$primary->wait_for_catchup($standby, 'replay', $primary->lsn('insert'));
		is( join(' ', stats($standby)), "$expect_hd $expect_del",
			"$label: the standby has the same half-dead and deleted pages");
		check_all("$label, after recovery");

		# inserts into the deleted key range go around the half-dead pages
		$primary->safe_psql('postgres',
			q{INSERT INTO t SELECT g, lpad(g::text, 8, '0') || 'new' FROM generate_series(1500, 1520) AS g});
		check_all("$label, after inserts into the deleted range");

		# A plain VACUUM finishes the deletion.  In the chain cases only
		# the last leaf's 16 rows are dead, too few for VACUUM to scan the
		# index for them (it bypasses index vacuuming below 2% of the heap
		# pages); the index's cleanup pass must finish the half-dead pages
		# all the same.
		$primary->safe_psql('postgres', 'VACUUM t');
		($hd, $del) = stats($primary);
		is($hd, 0, "$label: VACUUM leaves no half-dead page");
		cmp_ok($del, '>=', $expect_hd + $expect_del,
			"$label: and has deleted the half-dead ones");
		if ($case ne 'leaf')
		{
			ok(read_page($primary, $chain_parent)->{flags} & EI_DELETED,
				"$label: the parent is deleted");
			ok(read_page($primary, $chain_leaf)->{flags} & EI_DELETED,
				"$label: the leaf is deleted");
		}
		check_all("$label, after VACUUM");
	}
}

# the standby replayed every record and found each page as the primary's
# full-page image says
ok( !$standby->log_contains('inconsistent page'),
	'the standby log has no inconsistent page');
ok($standby->safe_psql('postgres', 'SELECT pg_is_in_recovery()') eq 't',
	'the standby is still replaying');

$standby->stop;
$primary->stop;
done_testing();
