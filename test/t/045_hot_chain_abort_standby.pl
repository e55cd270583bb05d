# A HOT update that aborted before CREATE INDEX leaves the old tuple marked
# HOT-updated, pointing to a new member whose xmin aborted and whose key
# differs.  CREATE INDEX indexes the old tuple with its own values and sets
# the hint bit that says the update aborted, but hint bits are not
# WAL-logged: a hot standby's copy of the page still looks HOT-updated.  An
# index-only scan of compact leaves on the standby reads keys from the heap
# and must not follow the link into the aborted member (src/README.md,
# "Keys read from the heap"): it must count every row, as a sequential
# scan does.

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
autovacuum = off
wal_log_hints = off
});
$primary->start;
$primary->safe_psql('postgres', 'CREATE EXTENSION elastic_index');

$primary->backup('bkp');
my $standby = PostgreSQL::Test::Cluster->new('standby');
$standby->init_from_backup($primary, 'bkp', has_streaming => 1);
$standby->append_conf(
	'postgresql.conf', qq{
shared_preload_libraries = 'elastic_index'
hot_standby = on
max_standby_streaming_delay = -1
});
$standby->start;

# Pages half full (fillfactor 50 while loading), then fillfactor 100, so
# that the HOT updates find room and no later read of a page prunes it
# (pruning would remove the aborted members and log that); the
# checkpoint before the update makes its full-page image the standby's
# copy, and no later change of the page is logged before the index build
# sets the hint bit, so (with data checksums, from 18 on) no hint record
# either.
$primary->safe_psql(
	'postgres', q{
CREATE TABLE h (id int4, k int4, pad text) WITH (fillfactor = 50);
INSERT INTO h SELECT g, g % 100, repeat('x', 40) FROM generate_series(1, 20000) AS g;
ALTER TABLE h SET (fillfactor = 100);
CHECKPOINT;
BEGIN;
UPDATE h SET k = k + 1000 WHERE id % 3 = 0;
ROLLBACK;
CREATE INDEX h_k ON h USING elastic_btree (k);
});
is( $primary->safe_psql('postgres', "SELECT elastic_btree_shrink('h_k') > 0"),
	't', 'the index is compact');
$primary->wait_for_catchup($standby, 'replay', $primary->lsn('insert'));

my $force = q{
SET enable_seqscan = off; SET enable_bitmapscan = off;
SET max_parallel_workers_per_gather = 0;
};
my $ios = q{SELECT count(*), sum(k) FROM h WHERE k >= 0 AND k < 100};

# the standby reads the pages first through the index-only scan
like(
	$standby->safe_psql('postgres', $force . "EXPLAIN (COSTS OFF) $ios"),
	qr/Index Only Scan using h_k/,
	'the standby plans an index-only scan');
is($standby->safe_psql('postgres', $force . $ios),
	'20000|990000', 'index-only scan on the standby counts every row');
is( $standby->safe_psql('postgres',
		$force . 'SELECT count(*) FROM h WHERE k >= 1000'),
	'0', 'no row has the aborted update\'s key on the standby');
is( $standby->safe_psql('postgres',
		'SET enable_indexonlyscan = off; SET enable_indexscan = off; SET enable_bitmapscan = off; '
		  . $ios),
	'20000|990000',
	'a sequential scan on the standby agrees');

# and the primary agrees, and its index is sound
is($primary->safe_psql('postgres', $force . $ios),
	'20000|990000', 'index-only scan on the primary counts every row');
is($primary->safe_psql('postgres', "SELECT elastic_index_check('h_k', true)"),
	'', 'elastic_index_check passes on the primary');

done_testing();
