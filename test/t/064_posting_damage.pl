# A damaged posting list (src/README.md, "Posting lists") costs a
# statement, never the server: the first data item of the first leaf of an
# index built with deduplicate_items = on is a list; its TID count is set
# past the tuple's end, its TIDs are put out of order, and its TID array's
# offset is moved into the tuple header.  A scan, a bitmap scan, the
# verifier, elastic_btree_compact_preview (which expands the lists, with and
# without verify) and VACUUM must each end in ERRCODE_INDEX_CORRUPTED (XX002)
# naming the index, and the server must stay up with no crash or failed
# assertion in its log.

use strict;
use warnings;

use FindBin;
use lib "$FindBin::RealBin/../perl";

use ElasticIndex::Damage;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $node = ElasticIndex::Damage::node('posting_damage');
$node->safe_psql(
	'postgres', q{
CREATE EXTENSION elastic_index;
CREATE TABLE t (k int4);
INSERT INTO t SELECT g % 50 FROM generate_series(1, 20000) AS g;
CREATE INDEX t_k ON t USING elastic_btree (k) WITH (deduplicate_items = on);
});
my $blcksz = $node->safe_psql('postgres', 'SHOW block_size');
my $file = $node->data_dir . '/'
  . $node->safe_psql('postgres', "SELECT pg_relation_filepath('t_k')");
$node->stop;
my $pristine = ElasticIndex::Damage::read_file($file);

# block 1 is the first leaf; its item 2 (after the high key) is k = 0's list
my $blk = 1;
my ($flags) = unpack('S', substr($pristine, ($blk + 1) * $blcksz - 4, 2));
is($flags & 1, 1, 'block 1 is a leaf');
my $lp = unpack('L', substr($pristine, $blk * $blcksz + 24 + 4, 4));
my $itemoff = $lp & 0x7FFF;
my $item = $blk * $blcksz + $itemoff;
my ($bi_hi, $bi_lo, $posid, $t_info) =
  unpack('SSSS', substr($pristine, $item, 8));
ok($t_info & 0x2000, 'its first entry is a posting list');
cmp_ok($posid, '>=', 2, "the list holds $posid TIDs");

my @cases = (
	[ 'a TID count past the tuple', 4, pack('S', 2000) ],
	[
		'TIDs out of order', $item - $blk * $blcksz + $bi_lo,
		substr($pristine, $item + $bi_lo + 6, 6)
		  . substr($pristine, $item + $bi_lo, 6)
	],
	[ 'the TID array inside the header', 2, pack('S', 4) ],
);

my @statements = (
	[
		'index scan',
		'SET enable_seqscan = off; SET enable_bitmapscan = off; SELECT count(*) FROM t WHERE k < 3'
	],
	[
		'bitmap scan',
		'SET enable_seqscan = off; SET enable_indexscan = off; SELECT count(*) FROM t WHERE k < 3'
	],
	[ 'verifier', "SELECT elastic_index_check('t_k')" ],
	[
		'compact preview',
		"SELECT entries FROM elastic_btree_compact_preview('t_k')"
	],
	[
		'compact preview with verify',
		"SELECT entries FROM elastic_btree_compact_preview('t_k', true)"
	],
	[ 'VACUUM', 'DELETE FROM t WHERE k = 0; VACUUM t' ],
);

for my $case (@cases)
{
	my ($what, $offset, $bytes) = @$case;
	ElasticIndex::Damage::write_file($file, $pristine);
	# offsets below 8 are within the tuple header, others from the page
	my $at = $offset < 8 ? $item + $offset : $blk * $blcksz + $offset;
	ElasticIndex::Damage::poke($file, $at, $bytes);
	$node->start;
	for my $st (@statements)
	{
		my ($name, $sql) = @$st;
		my ($ret, $out, $err) = $node->psql('postgres',
			"SET statement_timeout = '60s'; \\set VERBOSITY verbose\n$sql");
		like($err, qr/ERROR:  XX002: .*index "t_k"/,
			"$what: $name fails with ERRCODE_INDEX_CORRUPTED");
	}
	$node->stop;
}

# the metapage's format version 3 says the index may hold lists; a version
# 2 metapage over lists is damage the verifier names (a library that knows
# only version 2 would read them as plain entries)
ElasticIndex::Damage::write_file($file, $pristine);
is(unpack('L', substr($pristine, 28, 4)), 3, 'the metapage has format version 3');
ElasticIndex::Damage::poke($file, 28, pack('L', 2));
$node->start;
{
	my ($ret, $out, $err) = $node->psql('postgres',
		"\\set VERBOSITY verbose\nSELECT elastic_index_check('t_k')");
	like($err, qr/ERROR:  XX002: index "t_k" is corrupted: posting list in an index of format version 2/,
		'a list under a version 2 metapage fails the verifier');
}
$node->stop;

ElasticIndex::Damage::write_file($file, $pristine);
$node->start;
is($node->safe_psql('postgres', 'SELECT count(*) FROM t WHERE k < 3'),
	'1200', 'the pristine index answers');
my $log = slurp_file($node->logfile);
unlike($log, qr/TRAP|PANIC|terminated by signal/,
	'no crash, PANIC or failed assertion');
$node->stop;
done_testing();
