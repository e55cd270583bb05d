# Expanding compact leaves splits them, and each split inserts a downlink
# into the parent level.  The expansion walks the leaves left to right
# without a descent stack; if every split looked for its parent from the
# parent level's leftmost page, the expansion would read the parent level
# once per split: quadratic in the size of the index.  It must instead
# remember where the last parent was found (nbtree's bts_blkno hint), so
# that finding a parent costs O(1) page reads amortized.
#
# The measure is the server's own count of the index's page reads
# (pg_statio_all_indexes): an expansion reads the leaf, the new page, the
# right sibling and the parent for each split, a handful of pages, never
# the parent level.  Wide keys that share a long prefix keep inner pages
# small (about 35 downlinks), so the parent level has well over a hundred
# pages and a walk from its leftmost page costs dozens of reads per split.

use strict;
use warnings;

use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $node = PostgreSQL::Test::Cluster->new('main');
$node->init;
$node->append_conf(
	'postgresql.conf', qq{
shared_preload_libraries = 'elastic_index'
autovacuum = off
});
$node->start;
$node->safe_psql(
	'postgres', q{
CREATE EXTENSION elastic_index;
CREATE TABLE e (k text COLLATE "C") WITH (autovacuum_enabled = off);
INSERT INTO e SELECT repeat('x', 200) || lpad(g::text, 8, '0')
FROM generate_series(1, 100000, 50) AS g;
CREATE INDEX e_k ON e USING elastic_btree (k);
});

# all leaves compact, and the index shrinking: the rows that come now fill
# compact leaves, which hold many more entries than standard ones
my $shrunk = $node->safe_psql('postgres', q{SELECT elastic_btree_shrink('e_k')});
cmp_ok($shrunk, '>', 10, "$shrunk leaves made compact");
$node->safe_psql(
	'postgres', q{
INSERT INTO e SELECT repeat('x', 200) || lpad(g::text, 8, '0')
FROM generate_series(1, 100000) AS g WHERE g % 50 <> 1;
});
my $compact = $node->safe_psql('postgres',
	q{SELECT compact_leaf_pages FROM elastic_index_stats('e_k')});
# (with TID codes a compact leaf holds about 2000 of these entries, so the
# leaves made compact take the rows without splitting)
cmp_ok($compact, '>=', $shrunk, "$compact compact leaves");

# index page reads and leaf splits so far
sub counts
{
	$node->safe_psql('postgres', 'SELECT pg_stat_force_next_flush()');
	return split /\|/, $node->safe_psql(
		'postgres', q{
SELECT s.idx_blks_hit + s.idx_blks_read, a.leaf_splits
FROM pg_statio_all_indexes s, elastic_index_stat_activity a
WHERE s.indexrelid = 'e_k'::regclass AND a.indexrelid = 'e_k'::regclass});
}

my ($reads0, $splits0) = counts();
my $expanded = $node->safe_psql('postgres', q{SELECT elastic_btree_expand('e_k')});
my ($reads1, $splits1) = counts();
my $reads  = $reads1 - $reads0;
my $splits = $splits1 - $splits0;
note "expanded $expanded compact leaves with $splits leaf splits and $reads index page reads";
cmp_ok($expanded, '>=', $compact, "every compact leaf was expanded ($expanded)");
cmp_ok($splits, '>', 2000, "the expansion split leaves ($splits)");

my $inner_pages = $node->safe_psql('postgres',
	q{SELECT inner_pages FROM elastic_index_stats('e_k')});
cmp_ok($inner_pages, '>', 100, "the index has $inner_pages inner pages");

# a handful of page reads per split and per leaf expanded, not a walk of
# the parent level
cmp_ok($reads, '<=', 4 * ($splits + $expanded),
	"index page reads are linear in the work: $reads <= 4 x ($splits splits + $expanded leaves)");

my ($ret, $out, $err) = $node->psql('postgres', q{SELECT elastic_index_check('e_k', true)});
is($ret, 0, 'elastic_index_check passes') or diag($err);
is( $node->safe_psql(
		'postgres', q{
SET enable_seqscan = off; SET enable_bitmapscan = off;
SELECT count(*), md5(string_agg(k, ',' ORDER BY k)) FROM e WHERE k > ''}),
	$node->safe_psql(
		'postgres', q{
SET enable_indexscan = off; SET enable_bitmapscan = off; SET enable_indexonlyscan = off;
SELECT count(*), md5(string_agg(k, ',' ORDER BY k)) FROM e WHERE k > ''}),
	'the index returns every row');

$node->stop;
done_testing();
