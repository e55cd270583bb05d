# A deleted page that the free space map offers before it is recyclable
# must not be lost.
#
# osm_tree puts the buffer pages a flush unlinks into the free space map at
# once (as GIN does with its pending list); EINewBuf hands such a page out
# only once no snapshot from before the unlink is left.  While an old
# snapshot lasts, an insert that needs a page takes the flushed pages from
# the map, finds them not recyclable and extends the index instead.  Those
# pages must go back into the map: once the snapshot is gone, later inserts
# must reuse them, without waiting for a VACUUM to find them again.

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
osm_tree.flush_worker = off
osm_tree.top_inserts = off
});
$node->start;
$node->safe_psql(
	'postgres', q{
CREATE EXTENSION elastic_index;
CREATE TABLE o (k int8) WITH (autovacuum_enabled = off);
CREATE INDEX o_k ON o USING osm_tree (k) WITH (buffer_size = 4000, flush_fraction = 1);
-- small transactions: each one's entries go to the insert buffer
CREATE PROCEDURE fill(batches int) LANGUAGE plpgsql AS $$
BEGIN
	FOR i IN 1 .. batches LOOP
		INSERT INTO o SELECT (random() * 1e9)::int8 FROM generate_series(1, 500);
		COMMIT;
	END LOOP;
END $$;
});

sub buffer_pages
{
	return $node->safe_psql('postgres', q{SELECT pages FROM osm_tree_buffer_stats('o_k')});
}

sub recycled
{
	return $node->safe_psql('postgres',
		q{SELECT pages_recycled FROM elastic_index_stat_activity WHERE indexrelid = 'o_k'::regclass});
}

sub size
{
	return $node->safe_psql('postgres', q{SELECT pg_relation_size('o_k') / 8192});
}

$node->safe_psql('postgres', 'CALL fill(40)');
my $flushed = buffer_pages();
cmp_ok($flushed, '>', 40, "the insert buffer has $flushed pages");

# an old snapshot, then a flush: the buffer pages are unlinked after the
# snapshot was taken, so it keeps them from being reused
my $s = $node->background_psql('postgres', on_error_stop => 1);
$s->query_safe('BEGIN ISOLATION LEVEL REPEATABLE READ');
$s->query_safe('SELECT count(*) FROM o');
$node->safe_psql('postgres', q{SELECT osm_tree_flush('o_k')});
is(buffer_pages(), '0', 'the flush emptied the buffer');

# new buffer pages: the map offers the flushed ones, which are not
# recyclable yet, so the index grows
my $recycled0 = recycled();
my $size0     = size();
$node->safe_psql('postgres', 'CALL fill(40)');
my $size1 = size();
is(recycled(), $recycled0, 'no page was reused under the old snapshot');
cmp_ok($size1, '>', $size0, "the index grew ($size0 -> $size1 pages)");

# the snapshot ends, and transaction ids move past the pages' safexid
$s->query_safe('COMMIT');
$s->quit;
$node->safe_psql('postgres', 'SELECT txid_current()');
$node->safe_psql('postgres', 'SELECT txid_current()');

# without a VACUUM in between, the next buffer pages reuse the flushed ones
$node->safe_psql('postgres', 'CALL fill(40)');
my $recycled2 = recycled() - $recycled0;
my $size2     = size();
cmp_ok($recycled2, '>=', $flushed / 2,
	"inserts reused the pages the map had offered too early ($recycled2)");
cmp_ok($size2, '<', $size1 + $flushed / 2,
	"the index grew by less than the buffer ($size1 -> $size2 pages)");

my ($ret, $out, $err) = $node->psql('postgres', q{SELECT elastic_index_check('o_k', true)});
is($ret, 0, 'elastic_index_check passes') or diag($err);
is( $node->safe_psql(
		'postgres', q{
SET enable_seqscan = off; SET enable_bitmapscan = off;
SELECT count(*), sum(k) FROM o WHERE k >= 0}),
	$node->safe_psql(
		'postgres', q{
SET enable_indexscan = off; SET enable_bitmapscan = off; SET enable_indexonlyscan = off;
SELECT count(*), sum(k) FROM o WHERE k >= 0}),
	'the index returns every row');

$node->stop;
done_testing();
