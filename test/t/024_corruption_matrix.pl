# The corruption matrix (issue 19): for each kind of page (metapage of
# each access method, inner, standard leaf, compact leaf, osm_tree buffer
# page, buffer tail and section filter page), damaged three ways (the
# whole page zeroed; its body, between page header and special space,
# zeroed; its body overwritten with random bytes of a fixed seed), and one
# part of a page damaged alone (a standard leaf's line pointer, one key of
# a standard leaf put out of order, a compact leaf's SeqTree bits[] with
# random bit numbers, the special space of both kinds of leaf), every
# operation either works or ends in an ERROR naming the index, before
# statement_timeout; the verifier, which runs first, must report every
# damaged page (all are in use).  Where a read works, it must return what
# a sequential scan returns: an answer that differs (rows missing because
# damaged entries were skipped, or rows invented from garbage) is a
# failure too, except for damage that keeps the page's layout valid (the
# key out of order, the bits[]): reads do not check key order or bits[]
# (src/README.md, "Damaged pages"), so such a cell is printed as
# undetected-missing or undetected-wrong and counted.  Each case starts from a pristine copy of the database
# directory (the server stopped).  0 PANIC, 0 failed assertion, 0 crash:
# the server log is checked at the end.  Last, on each access method, a
# long operation over a damaged index is stopped by pg_cancel_backend.
# The matrix is printed with diag().

use strict;
use warnings;

use FindBin;
use lib "$FindBin::RealBin/../perl";

use ElasticIndex::Damage;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $node = ElasticIndex::Damage::node('matrix');
$node->append_conf('postgresql.conf', "osm_tree.flush_worker = off\n");
$node->restart;

# three indexes, each on its own table:
#   te_idx, elastic_btree with standard leaves, fillfactor 10 so that
#     60000 int8 keys make a tree of height 3;
#   tc_idx, elastic_btree whose every leaf is compact (elastic_btree_shrink);
#   to_idx, osm_tree whose insert buffer holds entries: single-row inserts
#     into a buffer of 8 pages, with a section filter over the closed ones.
$node->safe_psql(
	'postgres', q{
CREATE EXTENSION elastic_index;
CREATE TABLE te (a int8, b int8);
INSERT INTO te SELECT g, g FROM generate_series(1, 60000) g;
CREATE INDEX te_idx ON te USING elastic_btree (a) WITH (fillfactor = 10);
CREATE TABLE tc (a int8, b int8);
INSERT INTO tc SELECT g, g FROM generate_series(1, 60000) g;
CREATE INDEX tc_idx ON tc USING elastic_btree (a);
SELECT elastic_btree_shrink('tc_idx');
CREATE TABLE tz (a int8, b int8);
INSERT INTO tz SELECT g, g FROM generate_series(1, 20000) g;
CREATE INDEX tz_idx ON tz USING osm_tree (a)
	WITH (buffer_size = 8, flush_fraction = 0.5);
});
$node->safe_psql(
	'postgres', q{
SET osm_tree.batch_size = 1;
SET osm_tree.top_inserts = off;
DO $$
BEGIN
	FOR i IN 1 .. 1500 LOOP
		INSERT INTO tz VALUES (20000 + (i * 7919) % 1500 + 1, 20000 + (i * 7919) % 1500 + 1);
	END LOOP;
END
$$;
});
$node->safe_psql(
	'postgres', q{
VACUUM (FREEZE, INDEX_CLEANUP off) te, tc;
DELETE FROM te WHERE a % 10 = 0;
DELETE FROM tc WHERE a % 10 = 0;
DELETE FROM tz WHERE a % 10 = 0 AND a <= 20000;
CHECKPOINT;
});

my %shape = (
	height => $node->safe_psql('postgres',
		"SELECT height FROM elastic_index_stats('te_idx')"),
	compact => $node->safe_psql('postgres',
		"SELECT compact_leaf_pages = leaf_pages AND leaf_pages > 1 FROM elastic_index_stats('tc_idx')"),
	buffered => $node->safe_psql('postgres',
		"SELECT pages > 1 AND entries > 0 AND filter_bytes > 0 FROM osm_tree_buffer_stats('tz_idx')"));
is($shape{height}, 3, 'te_idx has three levels');
is($shape{compact}, 't', 'tc_idx has only compact leaves');
is($shape{buffered}, 't', 'tz_idx has buffer pages holding entries');

my $blcksz = $node->safe_psql('postgres', 'SHOW block_size');
my $pgdata = $node->data_dir;
my $dbdir = "$pgdata/" . $node->safe_psql('postgres',
	"SELECT 'base/' || oid FROM pg_database WHERE datname = 'postgres'");
my %file = map {
	$_ => "$pgdata/" . $node->safe_psql('postgres', "SELECT pg_relation_filepath('$_')")
} qw(te_idx tc_idx tz_idx);
# the operations: [name, AMs it applies to, SQL (TABLE, INDEX replaced),
# is it a read compared with the truth]
my $idx_scan = 'SET enable_seqscan = off; SET enable_bitmapscan = off;';
my $bmp_scan = 'SET enable_seqscan = off; SET enable_indexscan = off; SET enable_indexonlyscan = off;';
my $ios_scan = $idx_scan;
my $par_scan =
  "$idx_scan SET max_parallel_workers_per_gather = 2; SET parallel_setup_cost = 0; "
  . 'SET parallel_tuple_cost = 0; SET min_parallel_index_scan_size = 0; '
  . 'SET min_parallel_table_scan_size = 0; SET parallel_leader_participation = off;';
my $join =
  'SET enable_hashjoin = off; SET enable_mergejoin = off; SET enable_material = off;';
# (the verifier runs first: the later operations may change the damaged
# page, shrink and expand even rebuild it from the heap)
my @ops = (
	[ 'verify', 'all', "SELECT elastic_index_check('INDEX', true)", 0 ],
	[
		'point', 'all',
		"$idx_scan $join SELECT count(*), sum(b) FROM generate_series(1, 62000, 3) g JOIN TABLE ON a = g", 1
	],
	[ 'range', 'all', "$idx_scan SELECT count(*), sum(b) FROM TABLE WHERE a BETWEEN 0 AND 1000000", 1 ],
	[
		'backward', 'all',
		"$idx_scan SELECT count(*), sum(b) FROM (SELECT b FROM TABLE WHERE a > 0 ORDER BY a DESC LIMIT 1000000) s",
		1
	],
	[ 'bitmap', 'all', "$bmp_scan SELECT count(*), sum(b) FROM TABLE WHERE a > 0", 1 ],
	[ 'index-only', 'all', "$idx_scan SELECT count(a), sum(a) FROM TABLE WHERE a > 0", 1 ],
	[ 'parallel', 'elastic_btree', "$par_scan SELECT count(*), sum(b) FROM TABLE WHERE a > 0", 1 ],
	[
		'insert', 'all',
		'SET osm_tree.batch_size = 1; INSERT INTO TABLE (a) SELECT g FROM generate_series(5, 62000, 997) g', 0
	],
	[ 'copy', 'all', "COPY TABLE (a) FROM PROGRAM 'seq 7 1999 62000'", 0 ],
	[ 'vacuum', 'all', 'VACUUM TABLE', 0 ],
	[ 'shrink', 'elastic_btree', "SELECT elastic_btree_shrink('INDEX') >= 0", 0 ],
	[ 'expand', 'elastic_btree', "SELECT elastic_btree_expand('INDEX') >= 0", 0 ],
	[ 'flush', 'osm_tree', "SELECT osm_tree_flush('INDEX') >= 0", 0 ]);

# what the reads must return: a sequential scan's answers, on the pristine
# tables (the planner reads the metapage of each index even for them)
my $seq = 'SET enable_indexscan = off; SET enable_bitmapscan = off; SET enable_indexonlyscan = off;';
my %truth = map {
	$_ => [
		$node->safe_psql('postgres', "$seq SELECT count(*), sum(a) FROM $_ WHERE a > 0"),
		$node->safe_psql('postgres',
			"$seq SELECT count(*), sum(a) FROM generate_series(1, 62000, 3) g JOIN $_ ON a = g")
	]
} qw(te tc tz);
# each read runs the plan it is named after
my %plan = (
	point => 'Index Scan using', range => 'Index Scan using',
	backward => 'Index Scan Backward using', bitmap => 'Bitmap Index Scan on',
	'index-only' => 'Index Only Scan using', parallel => 'Parallel Index Scan using');
for my $op (grep { $_->[3] } @ops)
{
	my ($oname, $ams, $sql) = @$op;
	for my $table ($ams eq 'all' ? qw(te tc tz) : qw(te tc))
	{
		my $q = $sql;
		$q =~ s/TABLE/$table/g;
		$q =~ s/(SELECT count)/EXPLAIN (COSTS OFF) $1/;
		$q =~ s/INDEX/${table}_idx/g;
		like($node->safe_psql('postgres', $q), qr/\Q$plan{$oname} ${table}_idx\E/,
			"$oname on $table: the plan");
	}
}
$node->stop;

# the pristine database directory, restored before each case
my $pristine_dir = PostgreSQL::Test::Utils::tempdir() . '/pristine';
system('cp', '-a', $dbdir, $pristine_dir) == 0 or die "cp: $?";

sub restore
{
	system('rm', '-rf', $dbdir) == 0 or die "rm: $?";
	system('cp', '-a', $pristine_dir, $dbdir) == 0 or die "cp: $?";
}

# the special space of every page (eitree.h EIPageOpaqueData: ei_prev,
# ei_next, ei_level, ei_flags, ei_page_id)
sub pages_of
{
	my ($idx) = @_;
	my $bytes = ElasticIndex::Damage::read_file($file{$idx});
	my @pages;
	for my $blk (0 .. length($bytes) / $blcksz - 1)
	{
		my ($prev, $next, $level, $flags, $id) =
		  unpack('LLLSS', substr($bytes, ($blk + 1) * $blcksz - 16, 16));
		push @pages,
		  { blk => $blk, prev => $prev, next => $next, level => $level, flags => $flags };
	}
	return @pages;
}

# the page in the middle of those a filter takes
sub middle
{
	my @p = @_;
	die 'no page of the kind' unless @p;
	return $p[int(@p / 2)]->{blk};
}

# flags (eitree.h, eiosm.h)
my ($LEAF, $ROOT, $DELETED, $HALF_DEAD, $POLICY_LEAF) = (1, 2, 32, 64, 128);
my ($BUFFER, $CLOSED, $FILTER) = (1 << 9, 1 << 10, 1 << 11);

my @te = pages_of('te_idx');
my @tc = pages_of('tc_idx');
my @tz = pages_of('tz_idx');
my $live = sub { !($_[0]->{flags} & ($DELETED | $HALF_DEAD)) };

# the page kinds: [name, index, table, block]
my @kinds = (
	[ 'metapage', 'te_idx', 'te', 0 ],
	[
		'inner', 'te_idx', 'te',
		middle(grep { $live->($_) && $_->{level} == 1 && !($_->{flags} & $ROOT) } @te)
	],
	[
		'leaf', 'te_idx', 'te',
		middle(grep {
				 $live->($_)
			  && $_->{blk} > 0
			  && $_->{level} == 0
			  && ($_->{flags} & $LEAF)
			  && !($_->{flags} & ($POLICY_LEAF | 0xFE00))
		} @te)
	],
	[
		'compact leaf', 'tc_idx', 'tc',
		middle(grep { $live->($_) && $_->{blk} > 0 && ($_->{flags} & $POLICY_LEAF) } @tc)
	],
	[ 'osm metapage', 'tz_idx', 'tz', 0 ],
	[
		'buffer page', 'tz_idx', 'tz',
		middle(grep {
				 $live->($_)
			  && $_->{blk} > 0
			  && ($_->{flags} & $BUFFER)
			  && ($_->{flags} & $CLOSED)
			  && !($_->{flags} & $FILTER)
		} @tz)
	],
	[
		'buffer tail', 'tz_idx', 'tz',
		middle(grep {
				 $live->($_)
			  && $_->{blk} > 0
			  && ($_->{flags} & $BUFFER)
			  && !($_->{flags} & ($CLOSED | $FILTER))
		} @tz)
	],
	[
		'filter page', 'tz_idx', 'tz',
		middle(grep { $live->($_) && $_->{blk} > 0 && ($_->{flags} & $FILTER) } @tz)
	]);

# the damages: what to write over block $blk of a file
srand(19);
my @damages = (
	[ 'zero page', sub { return (0, "\0" x $blcksz); } ],
	[ 'zero body', sub { return (24, "\0" x ($blcksz - 24 - 16)); } ],
	[
		'random body',
		sub {
			return (24, join('', map { chr(int(rand(256))) } 1 .. ($blcksz - 24 - 16)));
		}
	]);

# partial damages, each of one part of one page only: [name, page kind,
# sub returning [offset, bytes] pokes from the page's bytes, does it keep
# the page's layout valid (a read may then return wrong rows without
# noticing: printed as undetected-missing / undetected-wrong), SQL that
# replaces an operation's]
sub page_bytes
{
	my ($idx, $blk) = @_;
	return substr(ElasticIndex::Damage::read_file($file{$idx}), $blk * $blcksz, $blcksz);
}

# line pointer k (1-based) of a page: offset, flags, length
sub line_pointer
{
	my ($page, $k) = @_;
	my $lp = unpack('L', substr($page, 24 + 4 * ($k - 1), 4));
	return ($lp & 0x7FFF, ($lp >> 15) & 3, $lp >> 17);
}

my @partial = (
	[
		# the middle item's line pointer points past pd_special
		'one line pointer', 'leaf',
		sub {
			my ($page) = @_;
			my $lower = unpack('S', substr($page, 12, 2));
			my $k = int(($lower - 24) / 4 / 2);
			my (undef, undef, $len) = line_pointer($page, $k);
			return ([ 24 + 4 * ($k - 1), pack('L', 8180 | (1 << 15) | ($len << 17)) ]);
		},
		0
	],
	[
		# the middle item's int8 key gets bit 62 set: out of order
		'one key', 'leaf',
		sub {
			my ($page) = @_;
			my $lower = unpack('S', substr($page, 12, 2));
			my $k = int(($lower - 24) / 4 / 2);
			my ($off) = line_pointer($page, $k);
			my $byte = $off + 8 + 7;
			return ([ $byte, chr(ord(substr($page, $byte, 1)) ^ 0x40) ]);
		},
		1
	],
	[
		# the reviewer's recipe: random bit numbers 64..72 over bits[],
		# between the BlindiTree and pd_lower; many inserts into the leaf
		'bit array', 'compact leaf',
		sub {
			my ($page) = @_;
			my $lower = unpack('S', substr($page, 12, 2));
			my $next = unpack('L', substr($page, $blcksz - 12, 4));
			my $image = 24 + ($next == 0xFFFFFFFF ? 0 : 4);
			my $levels = ord(substr($page, $image + 3, 1));
			my $bits = $image + 4 + 2 * (2**$levels - 1);
			die "no bits[] on the compact leaf" unless $lower > $bits + 16;
			return ([ $bits, join('', map { chr(64 + int(rand(9))) } 1 .. ($lower - $bits)) ]);
		},
		1,
		{ insert => 'INSERT INTO TABLE SELECT g, g FROM generate_series(3, 62001, 6) g' }
	],
	[
		# the TID code's group data (after its header and directory) all
		# 0xFF: varints that never end (src/lib/tidcode.h)
		'TID code', 'compact leaf',
		sub {
			my ($page) = @_;
			my $upper = unpack('S', substr($page, 14, 2));
			die "no TID code on the compact leaf"
			  unless ord(substr($page, $upper, 1)) == 0xE5;
			my $ngroups = unpack('S', substr($page, $upper + 4, 2));
			my $data = $upper + 6 + 4 * $ngroups;
			my ($hioff) = line_pointer($page, 1);
			return ([ $data, "\xFF" x ($hioff - $data - 1) ]);
		},
		0
	],
	[
		# the special space: level 7, flags garbage, a right link far away
		'special space', 'leaf',
		sub {
			return ([ $blcksz - 16, pack('LLLSS', 0, 0x7FFFFFF0, 7, 0xA5A5, unpack('S', substr($_[0], $blcksz - 2, 2))) ]);
		},
		0
	],
	[
		'special space', 'compact leaf',
		sub {
			return ([ $blcksz - 16, pack('LLLSS', 0, 0x7FFFFFF0, 7, 0xA5A5, unpack('S', substr($_[0], $blcksz - 2, 2))) ]);
		},
		0
	]);

my %am = (te_idx => 'elastic_btree', tc_idx => 'elastic_btree', tz_idx => 'osm_tree');

# run SQL under the timeout: the exit code, stdout and stderr
sub run
{
	my ($sql) = @_;
	my ($ret, $out, $err) = $node->psql(
		'postgres', "SET statement_timeout = '20s'; $sql",
		timeout => 90);
	return ($ret, $out // '', $err // '');
}

# classify one run: ok, corrupt (an error naming the index), missing or
# wrong (a read that returned fewer rows than the sequential scan, or
# another answer), timeout, crash, or error (one that does not name the
# index)
sub classify
{
	my ($idx, $ret, $out, $err, $truth) = @_;
	if ($ret == 0)
	{
		return 'ok' if !defined $truth || $out eq $truth;
		my ($got) = split(/\|/, $out);
		my ($want) = split(/\|/, $truth);
		return ($got // 0) < $want ? 'missing' : 'wrong';
	}
	return 'timeout' if $err =~ /statement timeout/;
	return 'crash'
	  if $err =~ /server closed the connection|terminated abnormally|connection to server/;
	return 'corrupt' if $err =~ /ERROR:.*\b\Q$idx\E\b/;
	return 'error';
}

# every case: [page kind, damage name, pokes, keeps layout, op SQL overrides]
my @cases;
for my $kind (@kinds)
{
	for my $damage (@damages)
	{
		my ($off, $bytes) = $damage->[1]->();
		push @cases, [ $kind, $damage->[0], [ [ $off, $bytes ] ], 0, {} ];
	}
}
for my $p (@partial)
{
	my ($dname, $kname, $make, $keeps, $over) = @$p;
	my ($kind) = grep { $_->[0] eq $kname } @kinds;
	push @cases,
	  [ $kind, $dname, [ $make->(page_bytes($kind->[1], $kind->[3])) ], $keeps, $over // {} ];
}

my @matrix;
my $undetected = 0;
for my $case (@cases)
{
	my ($kind, $dname, $pokes, $keeps, $over) = @$case;
	my ($kname, $idx, $table, $blk) = @$kind;
	{
		restore();
		ElasticIndex::Damage::poke($file{$idx}, $blk * $blcksz + $_->[0], $_->[1])
		  for @$pokes;
		$node->start;
		my ($truth, $ptruth) = @{ $truth{$table} };
		my @row = ("$kname/$dname");
		for my $op (@ops)
		{
			my ($oname, $ams, $sql, $isread) = @$op;
			if ($ams ne 'all' && $ams ne $am{$idx})
			{
				push @row, 'n/a';
				next;
			}
			$sql = $over->{$oname} if exists $over->{$oname};
			$sql =~ s/TABLE/$table/g;
			$sql =~ s/INDEX/$idx/g;
			my ($ret, $out, $err) = run($sql);
			my $want = !$isread ? undef : $oname eq 'point' ? $ptruth : $truth;
			my $class = classify($idx, $ret, $out, $err, $want);
			my $cell = "$kname, $dname (block $blk of $idx), $oname";
			if ($oname eq 'verify')
			{
				# every damaged page is in use: the verifier must see it
				ok($class eq 'corrupt', "$cell: $class")
				  or diag("$cell: got \"$out\"; $err");
			}
			elsif ($keeps && ($class eq 'missing' || $class eq 'wrong'))
			{
				# a layout-keeping damage a read does not notice: the
				# documented limit (src/README.md, "Damaged pages")
				$class = "undetected-$class";
				$undetected++;
				pass("$cell: $class (a read does not check key order or bits[])");
			}
			else
			{
				ok($class eq 'ok' || $class eq 'corrupt', "$cell: $class")
				  or diag("$cell: got \"$out\", expected \"" . ($want // '') . "\"; $err");
			}
			push @row, $class;
			# after a crash (restart_after_crash is off), start again
			if ($class eq 'crash')
			{
				for (1 .. 300)
				{
					last unless -e "$pgdata/postmaster.pid";
					select(undef, undef, undef, 0.1);
				}
				$node->_update_pid(-1);
				$node->start if !defined $node->{_pid};
			}
		}
		push @matrix, \@row;
		$node->stop('fast');
	}
}

# the matrix
my @head = ('page / damage', map { $_->[0] } @ops);
my @width = map { length } @head;
for my $row (@matrix)
{
	for my $i (0 .. $#$row)
	{
		$width[$i] = length($row->[$i]) if length($row->[$i]) > $width[$i];
	}
}
my $fmt = join(' ', map { "%-${_}s" } @width) . "\n";
my $table = sprintf($fmt, @head);
$table .= sprintf($fmt, @$_) for @matrix;
diag("corruption matrix (ok: worked; corrupt: an error naming the index; "
	  . "undetected-*: a read over layout-keeping damage that returned missing or "
	  . "wrong rows without noticing, $undetected cells):\n$table");

# a damaged TID code: a point lookup reaching it reports the index and the
# block, and the server stays up
{
	my ($kind) = grep { $_->[0] eq 'compact leaf' } @kinds;
	my ($p) = grep { $_->[0] eq 'TID code' } @partial;
	my $blk = $kind->[3];
	restore();
	ElasticIndex::Damage::poke($file{tc_idx}, $blk * $blcksz + $_->[0], $_->[1])
	  for $p->[2]->(page_bytes('tc_idx', $blk));
	$node->start;
	my ($ret, $out, $err) = run(
		"SET enable_seqscan = off; SET enable_bitmapscan = off; "
		  . "SELECT count(*) FROM tc WHERE a > 0 AND b > 0");
	like($err,
		qr/index "tc_idx" contains corrupted compact leaf at block $blk/,
		'a scan over a damaged TID code reports index and block');
	is($node->safe_psql('postgres', 'SELECT 1'), '1', 'and the server is up');
	$node->stop('fast');
}

# pg_cancel_backend stops a long operation over a damaged index, on each
# access method: with a leaf of te_idx and a closed buffer page of tz_idx
# damaged (their bodies zeroed), a loop of index scans over keys that do
# not reach the damage (tz's section zonemap rules out its closed pages)
# runs until it is cancelled from outside
restore();
for my $case ([ 'leaf', 'zero body' ], [ 'buffer page', 'zero body' ])
{
	my ($kind) = grep { $_->[0] eq $case->[0] } @kinds;
	my ($damage) = grep { $_->[0] eq $case->[1] } @damages;
	my ($off, $bytes) = $damage->[1]->();
	ElasticIndex::Damage::poke($file{ $kind->[1] }, $kind->[3] * $blcksz + $off, $bytes);
}
$node->start;
for my $table ('te', 'tz')
{
	my $bg = $node->background_psql('postgres', on_error_stop => 0);
	$bg->query_safe("SET application_name = 'cancel_$table'");
	$bg->query_until(
		qr/looping/, qq{SET enable_seqscan = off; SET enable_bitmapscan = off;
\\echo looping
DO \$\$ BEGIN FOR i IN 1 .. 100000000 LOOP PERFORM count(*) FROM $table WHERE a < 100; END LOOP; END \$\$;
});
	$node->poll_query_until('postgres',
		"SELECT count(*) = 1 FROM pg_stat_activity WHERE application_name = 'cancel_$table' AND state = 'active'");
	$node->safe_psql('postgres',
		"SELECT pg_cancel_backend(pid) FROM pg_stat_activity WHERE application_name = 'cancel_$table'");
	my ($out, $ret) = $bg->query('SELECT 1');
	like($bg->{stderr}, qr/canceling statement due to user request/,
		"$table: pg_cancel_backend stops a long loop of scans over the damaged index");
	$bg->quit;
}
$node->stop;

my $log = slurp_file($node->logfile);
unlike($log, qr/PANIC|TRAP|terminated by signal/,
	'no PANIC, failed assertion or crash in the server log');

done_testing();
