# ElasticIndex::Damage - what the TAP tests that damage an index on disk
# share: a node set up for it, and reading and writing index files while
# the node is stopped.
#
#   my $node = ElasticIndex::Damage::node('name');   # started
#   my $bytes = ElasticIndex::Damage::read_file($path);
#   ElasticIndex::Damage::poke($path, $offset, $bytes);
#   ElasticIndex::Damage::write_file($path, $bytes);  # restore a copy
#   my $blk = ElasticIndex::Damage::inner_leaf($bytes, $blcksz);
#   ElasticIndex::Damage::swap_first_entries($path, $bytes, $blk, $blcksz);

package ElasticIndex::Damage;

use strict;
use warnings;

use PostgreSQL::Test::Cluster;

# A started node that preloads elastic_index, with autovacuum off (it
# would read the damage at a moment of its own) and checksum failures
# ignored (18's initdb turns data checksums on, and the damage does not
# update them).
sub node
{
	my ($name) = @_;
	my $node = PostgreSQL::Test::Cluster->new($name);
	$node->init;
	$node->append_conf(
		'postgresql.conf', q{
shared_preload_libraries = 'elastic_index'
autovacuum = off
ignore_checksum_failure = on
});
	$node->start;
	return $node;
}

# The whole contents of a file.
sub read_file
{
	my ($path) = @_;
	open(my $fh, '<:raw', $path) or die "open $path: $!";
	local $/;
	my $bytes = <$fh>;
	close $fh;
	return $bytes;
}

# Write bytes at an offset of a file.
sub poke
{
	my ($path, $offset, $bytes) = @_;
	open(my $fh, '+<:raw', $path) or die "open $path: $!";
	seek($fh, $offset, 0) or die "seek $path: $!";
	print $fh $bytes;
	close $fh;
}

# Replace a file's contents.
sub write_file
{
	my ($path, $bytes) = @_;
	open(my $fh, '>:raw', $path) or die "open $path: $!";
	print $fh $bytes;
	close $fh;
}

# The first standard leaf of an index file's contents that has a right
# sibling (so line pointer 1 is its high key) and at least three entries,
# or undef.
sub inner_leaf
{
	my ($bytes, $blcksz) = @_;
	for my $blk (1 .. length($bytes) / $blcksz - 1)
	{
		# EIPageOpaqueData: ei_prev, ei_next, ei_level, ei_flags (EI_LEAF = 1;
		# the bits from 9 up are the policies' page kinds)
		my ($prev, $next, $level, $flags) =
		  unpack('LLLS', substr($bytes, ($blk + 1) * $blcksz - 16, 14));
		my $lower = unpack('S', substr($bytes, $blk * $blcksz + 12, 2));
		return $blk
		  if $level == 0
		  && ($flags & 1)
		  && !($flags & 0xFE00)
		  && $next != 0xFFFFFFFF
		  && ($lower - 24) / 4 >= 4;
	}
	return undef;
}

# Swap line pointers 2 and 3 (the first two entries after the high key) of
# block $blk of the file at $path, whose contents are $bytes: the entries
# are then out of order.
sub swap_first_entries
{
	my ($path, $bytes, $blk, $blcksz) = @_;
	my $lps = substr($bytes, $blk * $blcksz + 24 + 4, 8);
	poke($path, $blk * $blcksz + 24 + 4,
		substr($lps, 4, 4) . substr($lps, 0, 4));
	return;
}

1;
