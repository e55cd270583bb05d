# Damaged pages cost a statement, never the server (issue 19, first part).
# Each case damages a copy of a healthy elastic_btree index on disk (the
# server stopped), starts the server, runs statements under a
# statement_timeout, and expects each to end before the timeout in an
# ERRCODE_INDEX_CORRUPTED error naming the index and the block.  The server
# must stay up, with no PANIC, failed assertion or crash in its log.  Cases:
#   1. every downlink of the root pointing back to the root: a descent
#      (a query, an insert) must see that the child is not one level down;
#      before, it looped for ever, deaf to cancels, holding a page lock;
#   2. a leaf's line pointer sent outside the page's tuple space: VACUUM,
#      which removes entries inside a critical section, must refuse the page
#      before it (before, PANIC: corrupted line pointer);
#   3. on a text index, the varlena header of a key rewritten to a 4-byte
#      header claiming 264 MB, in a leaf entry, a leaf's high key, an
#      inner page's pivot and an entry of osm_tree's insert buffer: the
#      verifier, VACUUM (which checks every leaf item before removing any),
#      an osm_tree lookup and flush (which check a buffer page's entries
#      before reading them) must refuse the item with
#      ERRCODE_INDEX_CORRUPTED (XX002) naming the index, the block and the
#      offset (before, the verifier, the osm lookup and flush crashed the
#      server in varstr_cmp, and VACUUM passed it).  Tree scans and
#      descents do not check attributes (src/README.md, "Damaged pages":
#      it cost 17% of a point lookup), so this test runs none over the
#      damaged tree items.
# Every page kind, damaged with zeros and random bytes, under every
# operation: test/t/024_corruption_matrix.pl.

use strict;
use warnings;

use FindBin;
use lib "$FindBin::RealBin/../perl";

use ElasticIndex::Damage;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $node = ElasticIndex::Damage::node('damaged');

$node->safe_psql(
	'postgres', q{
CREATE EXTENSION elastic_index;
CREATE TABLE t (a int8);
INSERT INTO t SELECT g FROM generate_series(1, 100000) g;
CREATE INDEX t_idx ON t USING elastic_btree (a);
DELETE FROM t WHERE a % 10 = 0;
CHECKPOINT;
});

my $blcksz = $node->safe_psql('postgres', 'SHOW block_size');
my $file = $node->data_dir . '/'
  . $node->safe_psql('postgres', "SELECT pg_relation_filepath('t_idx')");
# the root (eitree.h: the metapage's contents follow the 24-byte page
# header; root is the fourth uint32) and a leaf in the middle of the level
my $root = $node->safe_psql('postgres',
	"SELECT root_block FROM elastic_index_stats('t_idx')");
$node->stop;

my $pristine = ElasticIndex::Damage::read_file($file);
is(unpack('L', substr($pristine, 24 + 12, 4)), $root,
	'the metapage names the root where the test expects it');

# a leaf that is not the rightmost, from the middle of the file: its
# special space (eitree.h, EIPageOpaqueData) reads ei_prev, ei_next,
# ei_level, ei_flags (EI_LEAF = 1), and has no policy flags (0xFE00)
my $nblocks = length($pristine) / $blcksz;
my @leaves;
for my $blk (1 .. $nblocks - 1)
{
	my ($prev, $next, $level, $flags) =
	  unpack('LLLS', substr($pristine, ($blk + 1) * $blcksz - 16, 14));
	push @leaves, $blk
	  if $level == 0 && ($flags & 1) && !($flags & 0xFE00) && $next != 0xFFFFFFFF;
}
my $leaf = $leaves[int(@leaves / 2)];
ok(defined $leaf, "a leaf to damage: block $leaf of $nblocks");

# write bytes at an offset of the index file
sub poke
{
	my ($offset, $bytes) = @_;
	ElasticIndex::Damage::poke($file, $offset, $bytes);
}

# the 32-bit line pointer number $n (from 1) of block $blk in the pristine copy
sub line_pointer
{
	my ($blk, $n) = @_;
	return unpack('L', substr($pristine, $blk * $blcksz + 24 + 4 * ($n - 1), 4));
}

# the number of line pointers of block $blk
sub nitems
{
	my ($blk) = @_;
	my $lower = unpack('S', substr($pristine, $blk * $blcksz + 12, 2));
	return ($lower - 24) / 4;
}

# run SQL under a timeout; the result code and stderr
sub run
{
	my ($sql) = @_;
	my ($ret, $out, $err) = $node->psql(
		'postgres', "SET statement_timeout = '20s'; $sql",
		timeout => 60);
	return ($ret, $err // '');
}

# damage, start, run each statement, expect an error of the given kind
sub expect_errors
{
	my ($name, $damage, @cases) = @_;
	$damage->();
	$node->start;
	while (my ($sql, $pattern) = splice(@cases, 0, 2))
	{
		my ($ret, $err) = run($sql);
		isnt($ret, 0, "$name: \"$sql\" fails");
		unlike($err, qr/statement timeout/, "$name: \"$sql\" does not hang");
		like($err, $pattern, "$name: \"$sql\" says why") or diag($err);
	}
	is($node->safe_psql('postgres', 'SELECT 1'), '1', "$name: the server is up");
	$node->stop;
	ElasticIndex::Damage::write_file($file, $pristine);
}

my $force = 'SET enable_seqscan = off; SET enable_bitmapscan = off;';
my $corrupt = qr/index "t_idx" (is corrupted|contains corrupted page)/;

# 1. every downlink of the root leads back to the root
expect_errors(
	'the root points to itself',
	sub {
		for my $n (1 .. nitems($root))
		{
			my $lp = line_pointer($root, $n);
			my $off = $lp & 0x7FFF;
			# t_tid: bi_hi, bi_lo (the block), then ip_posid
			poke($root * $blcksz + $off,
				pack('SS', $root >> 16, $root & 0xFFFF));
		}
	},
	"$force SELECT count(*) FROM t WHERE a = 12345" =>
	  qr/$corrupt: downlink of block $root at level \d+ leads to block $root/,
	"$force INSERT INTO t VALUES (12345)" =>
	  qr/$corrupt: downlink of block $root/);

# 2. a leaf's line pointer outside the tuple space
expect_errors(
	'a leaf item outside its page',
	sub {
		my $lp = line_pointer($leaf, 3);
		my $bad = ($lp & ~0x7FFF) | ($blcksz - 8);
		poke($leaf * $blcksz + 24 + 8, pack('L', $bad));
	},
	"VACUUM t" => qr/$corrupt at block $leaf/);

# restored, the index is whole again
$node->start;
my ($ret, $err) = run("SELECT elastic_index_check('t_idx', true)");
is($ret, 0, 'restored: the verifier passes') or diag($err);

# 3. a damaged varlena header on a text index: keys 'k00000001' ..
# (a one-byte varlena header, then 9 bytes), every tenth row deleted so
# that VACUUM removes entries
$node->safe_psql(
	'postgres', q{
CREATE TABLE tx (k text);
INSERT INTO tx SELECT 'k' || lpad(g::text, 8, '0') FROM generate_series(1, 100000) g;
CREATE INDEX tx_idx ON tx USING elastic_btree (k);
DELETE FROM tx WHERE right(k, 1) = '0';
CREATE TABLE tb (k text);
INSERT INTO tb SELECT 'k' || lpad(g::text, 8, '0') FROM generate_series(1, 20000) g;
CREATE INDEX tb_idx ON tb USING osm_tree (k) WITH (buffer_size = 8, flush_fraction = 0.5);
SET osm_tree.batch_size = 1;
SET osm_tree.top_inserts = off;
SET osm_tree.flush_worker = off;
DO $$
BEGIN
	FOR i IN 1 .. 1500 LOOP
		INSERT INTO tb VALUES ('k' || lpad((20000 + (i * 7919) % 1500 + 1)::text, 8, '0'));
	END LOOP;
END
$$;
CHECKPOINT;
});
my $bfile = $node->data_dir . '/'
  . $node->safe_psql('postgres', "SELECT pg_relation_filepath('tb_idx')");
is($node->safe_psql('postgres', "SELECT entries > 0 FROM osm_tree_buffer_stats('tb_idx')"),
	't', 'tb_idx has buffered entries');
my $xfile = $node->data_dir . '/'
  . $node->safe_psql('postgres', "SELECT pg_relation_filepath('tx_idx')");
my ($xroot, $xheight) = split(/\|/,
	$node->safe_psql('postgres',
		"SELECT root_block, height FROM elastic_index_stats('tx_idx')"));
cmp_ok($xheight, '>=', 2, 'tx_idx has an inner level');
$node->stop;

my $xpristine = ElasticIndex::Damage::read_file($xfile);
my $bpristine = ElasticIndex::Damage::read_file($bfile);
my $xnblocks = length($xpristine) / $blcksz;
my @xleaves;
for my $blk (1 .. $xnblocks - 1)
{
	my ($prev, $next, $level, $flags) =
	  unpack('LLLS', substr($xpristine, ($blk + 1) * $blcksz - 16, 14));
	push @xleaves, $blk
	  if $level == 0 && ($flags & 1) && !($flags & 0xFE00) && $next != 0xFFFFFFFF;
}
my $xleaf = $xleaves[int(@xleaves / 2)];
ok(defined $xleaf, "a text leaf to damage: block $xleaf of $xnblocks");

# the tuple offset of item $n of block $blk, and its text key (a short
# varlena after the 8-byte tuple header)
sub xitem
{
	my ($blk, $n, $bytes) = @_;
	$bytes //= $xpristine;
	my $lp = unpack('L', substr($bytes, $blk * $blcksz + 24 + 4 * ($n - 1), 4));
	my $off = $lp & 0x7FFF;
	my $len = ord(substr($bytes, $blk * $blcksz + $off + 8, 1)) >> 1;
	return ($off, substr($bytes, $blk * $blcksz + $off + 9, $len - 1));
}

# a 4-byte varlena header claiming 264 MB over item $n's key
sub damage_varlena
{
	my ($blk, $n, $path, $bytes) = @_;
	my ($off) = xitem($blk, $n, $bytes);
	ElasticIndex::Damage::poke($path, $blk * $blcksz + $off + 8,
		pack('L', (264 * 1024 * 1024) << 2));
}

# damage, start, run each statement: an ERRCODE_INDEX_CORRUPTED error
# naming tx_idx and the damaged block and offset, and the server up after
# it (a crash is restarted from, to go on)
sub expect_corrupt_item
{
	my ($name, $idx, $blk, $n, @sqls) = @_;
	my ($path, $bytes) = $idx eq 'tx_idx' ? ($xfile, $xpristine) : ($bfile, $bpristine);
	damage_varlena($blk, $n, $path, $bytes);
	$node->start;
	for my $sql (@sqls)
	{
		my ($r, $out, $e) = $node->psql(
			'postgres',
			"\\set VERBOSITY verbose\nSET statement_timeout = '20s'; $force $sql",
			timeout => 60);
		$e //= '';
		isnt($r, 0, "$name: \"$sql\" fails");
		like($e,
			qr/ERROR:  XX002: index "$idx" (is corrupted|contains corrupted page at block $blk)/,
			"$name: \"$sql\" ends in ERRCODE_INDEX_CORRUPTED naming the index")
		  or diag($e);
		like($e, qr/(Block $blk, offset $n\.|Offset $n is an item whose varlena attribute passes its end)/,
			"$name: \"$sql\" names the block and offset") or diag($e);
		my ($up) = $node->psql('postgres', 'SELECT 1');
		if (!is($up, 0, "$name: \"$sql\": the server is up"))
		{
			# restart_after_crash is off: start again to go on
			for (1 .. 300)
			{
				last unless -e $node->data_dir . '/postmaster.pid';
				select(undef, undef, undef, 0.1);
			}
			$node->_update_pid(-1);
			$node->start;
		}
	}
	$node->stop;
	ElasticIndex::Damage::write_file($path, $bytes);
}

my $xcheck = "SELECT elastic_index_check('tx_idx', true)";
{
	# an entry in the middle of the leaf: the verifier compares it with
	# its neighbours, VACUUM checks it
	my $n = int((unpack('S', substr($xpristine, $xleaf * $blcksz + 12, 2)) - 24) / 4 / 2);
	expect_corrupt_item(
		'a leaf entry\'s varlena header', 'tx_idx', $xleaf, $n, $xcheck,
		'VACUUM tx');
}
{
	# the leaf's high key: the verifier compares it with the leaf's last
	# entry and deforms it (the pivot size check)
	expect_corrupt_item(
		'a high key\'s varlena header', 'tx_idx', $xleaf, 1, $xcheck,
		'VACUUM tx');
}
{
	# a pivot of the root (item 1 is minus infinity): the verifier
	# deforms it and compares it with its neighbours and its child
	my $n = int((unpack('S', substr($xpristine, $xroot * $blcksz + 12, 2)) - 24) / 4 / 2);
	$n = 2 if $n < 2;
	expect_corrupt_item(
		'an inner pivot\'s varlena header', 'tx_idx', $xroot, $n, $xcheck);
}

# an entry of osm_tree's insert buffer (item 1 of a buffer page is its
# summary; entries from item 2): the verifier compares it with the page's
# zonemap; a lookup of its key reads the page's entries and a flush moves
# them, each after osm_check_buffer_page has checked every entry
my @bpages;
for my $blk (1 .. length($bpristine) / $blcksz - 1)
{
	my $flags = unpack('S', substr($bpristine, ($blk + 1) * $blcksz - 4, 2));
	my $lower = unpack('S', substr($bpristine, $blk * $blcksz + 12, 2));
	# EI_BUFFER, not EI_DELETED (32) nor EI_BUFFER_FILTER, two entries
	push @bpages, $blk
	  if ($flags & (1 << 9)) && !($flags & (32 | (1 << 11))) && ($lower - 24) / 4 >= 3;
}
ok(@bpages > 0, 'an insert buffer page holding entries');
{
	my $blk = $bpages[0];
	my (undef, $key) = xitem($blk, 2, $bpristine);
	expect_corrupt_item(
		'a buffered entry\'s varlena header', 'tb_idx', $blk, 2,
		"SELECT elastic_index_check('tb_idx', true)",
		"SELECT count(*) FROM tb WHERE k = '$key'",
		"SELECT osm_tree_flush('tb_idx')");
}

$node->start;
($ret, $err) = run("SELECT elastic_index_check('tx_idx', true)");
is($ret, 0, 'restored: the verifier passes on tx_idx') or diag($err);
($ret, $err) = run("SELECT elastic_index_check('tb_idx', true)");
is($ret, 0, 'restored: the verifier passes on tb_idx') or diag($err);
$node->stop;

my $log = slurp_file($node->logfile);
unlike($log, qr/PANIC|TRAP|terminated by signal/,
	'no PANIC, failed assertion or crash in the server log');

done_testing();
