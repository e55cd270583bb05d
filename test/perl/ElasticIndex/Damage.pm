# ElasticIndex::Damage - what the TAP tests that damage an index on disk
# share: a node set up for it, and reading and writing index files while
# the node is stopped.
#
#   my $node = ElasticIndex::Damage::node('name');   # started
#   my $bytes = ElasticIndex::Damage::read_file($path);
#   ElasticIndex::Damage::poke($path, $offset, $bytes);
#   ElasticIndex::Damage::write_file($path, $bytes);  # restore a copy

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

1;
