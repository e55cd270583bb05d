# The verifier (elastic_index_check) on the pages the policies own: the
# policy's words of the metapage and the flags of pages outside the tree.
# Each case damages a copy of a healthy index on disk (server stopped),
# then expects ERRCODE_INDEX_CORRUPTED naming the index and the damage, and
# a healthy server: no crash, no PANIC.  Cases:
#   1. an elastic_btree's metapage with a nonzero word only osm_tree uses;
#   2. an elastic_btree's metapage with an unknown size policy state;
#   3. an osm_tree's metapage with a nonzero word 0 (elastic's state);
#   4. a leaf of the tree flagged as an insert buffer page (a flag of pages
#      outside the tree), whose item 1 the verifier must still check as an
#      index tuple rather than leave to the policy.

use strict;
use warnings;

use FindBin;
use lib "$FindBin::RealBin/../perl";

use ElasticIndex::Damage;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $node = ElasticIndex::Damage::node('verify_policy');

$node->safe_psql(
	'postgres', q{
CREATE EXTENSION elastic_index;
CREATE TABLE t (a int8);
INSERT INTO t SELECT g FROM generate_series(1, 20000) g;
CREATE INDEX t_el ON t USING elastic_btree (a);
CREATE INDEX t_osm ON t USING osm_tree (a);
CHECKPOINT;
});

my $blcksz = $node->safe_psql('postgres', 'SHOW block_size');
my $pgdata = $node->data_dir;

# the file of an index, and the offsets used below (eitree.h): the
# metapage's contents start after the page header (24 bytes); its policy
# words after 32 bytes of them; a page's flags are 12 bytes into its
# 16-byte special space
my %file = map {
	$_ => "$pgdata/" . $node->safe_psql('postgres', "SELECT pg_relation_filepath('$_')")
} qw(t_el t_osm);
my $policy_word0 = 24 + 32;
my $flags_off = $blcksz - 16 + 12;

# keep pristine copies to restore after each case
$node->stop;
my %pristine =
  map { $_ => ElasticIndex::Damage::read_file($file{$_}) } keys %file;

# write bytes at an offset of an index file
sub poke
{
	my ($idx, $offset, $bytes) = @_;
	ElasticIndex::Damage::poke($file{$idx}, $offset, $bytes);
}

# read bytes at an offset of the pristine copy
sub peek
{
	my ($idx, $offset, $len) = @_;
	return substr($pristine{$idx}, $offset, $len);
}

# restore every index file
sub restore
{
	ElasticIndex::Damage::write_file($file{$_}, $pristine{$_}) for keys %file;
}

# damage, start, expect the verifier's error, stop, restore
sub expect_corrupt
{
	my ($name, $idx, $damage, $pattern) = @_;
	$damage->();
	$node->start;
	my ($ret, $out, $err) =
	  $node->psql('postgres', "SELECT elastic_index_check('$idx', true)");
	isnt($ret, 0, "$name: the verifier fails");
	like($err, qr/index "\Q$idx\E" is corrupted: $pattern/,
		"$name: it names the index and the damage");
	is($node->safe_psql('postgres', 'SELECT 1'), '1',
		"$name: the server is still up");
	$node->stop;
	restore();
}

expect_corrupt(
	'elastic_btree, osm word set', 't_el',
	sub { poke('t_el', $policy_word0 + 4, pack('L', 7)); },
	qr/metapage policy word 1 is 7, expected 0 in an elastic_btree index/);

expect_corrupt(
	'elastic_btree, unknown state', 't_el',
	sub { poke('t_el', $policy_word0, pack('L', 9)); },
	qr/metapage has size policy state 9/);

expect_corrupt(
	'osm_tree, word 0 set', 't_osm',
	sub { poke('t_osm', $policy_word0, pack('L', 1)); },
	qr/metapage policy word 0 is 1, expected 0 in an osm_tree index/);

# block 1 is the first leaf of a built tree (the metapage is block 0)
expect_corrupt(
	'leaf flagged as a buffer page', 't_el',
	sub {
		my $flags = unpack('S', peek('t_el', $blcksz + $flags_off, 2));
		poke('t_el', $blcksz + $flags_off, pack('S', $flags | (1 << 9)));
	},
	qr/tree page has the flags 0x0200 of a page outside the tree/);

# and the pristine indexes pass
$node->start;
for my $idx (sort keys %file)
{
	my ($ret, $out, $err) =
	  $node->psql('postgres', "SELECT elastic_index_check('$idx', true)");
	is($ret, 0, "$idx: restored, the verifier passes") or diag($err);
}
$node->stop;

my $log = slurp_file($node->logfile);
unlike($log, qr/PANIC|TRAP|terminated by signal/,
	'no PANIC, failed assertion or crash in the server log');

done_testing();
