# Crash recovery: several clients insert into a table with elastic_btree
# indexes (splits on every level, new roots) while the postmaster is killed
# with SIGKILL.  After restart every index passes elastic_index_check with
# heapallindexed, and every row whose transaction committed before the
# crash is found through each index.  One index has INCLUDE columns, whose
# pivots hold the key only; its index-only scans return them afterwards.
#
# Each client transaction inserts rows into t and records their ids in
# "committed" in the same transaction, so after recovery the committed
# rows are exactly those listed there.  full_page_writes is off so that
# redo replays our records rather than restoring full-page images (the
# operating system does not crash here, so no page can be torn).

use strict;
use warnings;

use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use IPC::Run;
use Time::HiRes qw(usleep);

my $node = PostgreSQL::Test::Cluster->new('crash');
$node->init;
$node->append_conf(
	'postgresql.conf', qq{
shared_preload_libraries = 'elastic_index'
full_page_writes = off
max_connections = 30
checkpoint_timeout = 1h
restart_after_crash = off
});
$node->start;

$node->safe_psql(
	'postgres', q{
CREATE EXTENSION elastic_index;
CREATE TABLE t (id bigint, k int4, w text);
CREATE INDEX t_id ON t USING elastic_btree (id);
CREATE INDEX t_k ON t USING elastic_btree (k);
CREATE INDEX t_w ON t USING elastic_btree (w);
CREATE INDEX t_kw ON t USING elastic_btree (k DESC, w);
-- INCLUDE columns: leaf entries carry w and id, pivots only k
CREATE INDEX t_ki ON t USING elastic_btree (k) INCLUDE (w, id);
CREATE TABLE committed (id bigint);
CREATE SEQUENCE ids;
-- the indexes start empty: the load makes them grow level by level
CHECKPOINT;
});

# each transaction: 20 rows with random keys and ~130-byte strings, the
# ids recorded in the same transaction; every tenth also deletes a few
# rows, so that dead entries exist at the crash
my $script = q{
\set r random(1, 10)
BEGIN;
WITH ins AS (
	INSERT INTO t
	SELECT nextval('ids'), (random() * 1000000)::int4,
		   md5(random()::text) || repeat(md5(random()::text), 3)
	FROM generate_series(1, 20)
	RETURNING id)
INSERT INTO committed SELECT id FROM ins;
COMMIT;
};
my $deleter = q{
BEGIN;
WITH del AS (
	DELETE FROM t WHERE id IN (SELECT id FROM committed ORDER BY random() LIMIT 3)
	RETURNING id)
DELETE FROM committed WHERE id IN (SELECT id FROM del);
COMMIT;
};
my $script_file = $node->basedir . '/insert.sql';
my $deleter_file = $node->basedir . '/delete.sql';
PostgreSQL::Test::Utils::append_to_file($script_file, $script);
PostgreSQL::Test::Utils::append_to_file($deleter_file, $deleter);

# pgbench with 4 clients for up to 60 seconds; we kill the server long
# before that
my ($stdout, $stderr) = ('', '');
my $pgbench = IPC::Run::start(
	[
		'pgbench', '-n', '-c', '4', '-j', '2', '-T', '60',
		'-f', "$script_file\@9", '-f', "$deleter_file\@1",
		'-h', $node->host, '-p', $node->port, 'postgres'
	],
	'>', \$stdout, '2>', \$stderr);

# wait until the indexes are a few levels high and splits are frequent
my $rows = 0;
for (my $i = 0; $i < 600; $i++)
{
	$rows = $node->safe_psql('postgres', 'SELECT count(*) FROM committed');
	last if $rows >= 30000;
	usleep(100_000);
}
cmp_ok($rows, '>=', 30000, "load committed $rows rows before the crash");

# every server process, to wait for after the crash
my @pids = split /\n/,
  $node->safe_psql('postgres', 'SELECT pid FROM pg_stat_activity');

# a real SIGKILL of the postmaster, in the middle of the load
$node->kill9;
$pgbench->finish;
note "pgbench after the crash: $stderr" if $stderr ne '';

# orphaned backends exit as soon as they notice the postmaster is gone;
# until they have, the old shared memory is still attached and a new
# postmaster would refuse to start
for (my $i = 0; $i < 600; $i++)
{
	last unless grep { kill(0, $_) } @pids;
	usleep(100_000);
}
ok(!(grep { kill(0, $_) } @pids), 'every old server process has exited');
$node->start;

ok($node->log_contains('database system was interrupted|was not properly shut down'),
	'the restart ran crash recovery');

# every index is sound and holds an entry for every visible heap tuple
foreach my $idx (qw(t_id t_k t_w t_kw t_ki))
{
	my ($ret, $out, $err) = $node->psql('postgres',
		"SELECT elastic_index_check('$idx', true)");
	is($ret, 0, "elastic_index_check($idx, true) passes after recovery")
	  or diag($err);
}

my $ncommitted = $node->safe_psql('postgres', 'SELECT count(*) FROM committed');
my $nseq = $node->safe_psql(
	'postgres', q{
SET enable_indexscan = off; SET enable_indexonlyscan = off; SET enable_bitmapscan = off;
SELECT count(*) FROM t;
});
is($nseq, $ncommitted, "the table holds exactly the $ncommitted committed rows");

# counts through each index, forced
my $forced = q{
SET enable_seqscan = off; SET enable_bitmapscan = off; SET enable_sort = off;
SET enable_hashjoin = off; SET enable_mergejoin = off; SET enable_material = off;
};
is($node->safe_psql('postgres', $forced . 'SELECT count(*) FROM t WHERE k >= 0'),
	$ncommitted, 'count through t_k (or t_kw)');
is($node->safe_psql('postgres', $forced . q{SELECT count(*) FROM t WHERE w >= ''}),
	$ncommitted, 'count through t_w');

# every committed id found by a probe of the id index
is( $node->safe_psql(
		'postgres', $forced . q{
SELECT count(*) FROM committed AS c
WHERE EXISTS (SELECT 1 FROM t WHERE t.id = c.id)}),
	$ncommitted,
	'every committed row is found through t_id');
like(
	$node->safe_psql(
		'postgres', $forced . q{
EXPLAIN (COSTS OFF) SELECT count(*) FROM committed AS c
WHERE EXISTS (SELECT 1 FROM t WHERE t.id = c.id)}),
	qr/Index (Only )?Scan using t_id/,
	'that probe uses t_id');

# the same rows in the same order through the index and through a sort
is( $node->safe_psql(
		'postgres', $forced . q{
SELECT md5(string_agg(w, ',')) FROM (SELECT w FROM t ORDER BY w DESC) AS s}),
	$node->safe_psql(
		'postgres', q{
SET enable_indexscan = off; SET enable_indexonlyscan = off; SET enable_bitmapscan = off;
SELECT md5(string_agg(w, ',')) FROM (SELECT w FROM t ORDER BY w DESC) AS s}),
	'backward scan of t_w matches a sort');

# the recovered indexes keep working: more inserts, VACUUM, check again
$node->safe_psql(
	'postgres', q{
INSERT INTO t SELECT nextval('ids'), (random() * 1000000)::int4, md5(random()::text)
FROM generate_series(1, 5000);
DELETE FROM t WHERE k % 7 = 0;
VACUUM t;
});
foreach my $idx (qw(t_id t_k t_w t_kw t_ki))
{
	my ($ret, $out, $err) = $node->psql('postgres',
		"SELECT elastic_index_check('$idx', true)");
	is($ret, 0, "elastic_index_check($idx, true) passes after more changes")
	  or diag($err);
}

# after VACUUM, the INCLUDE columns through an index-only scan of t_ki
# match the table
my $ios = q{SELECT md5(string_agg(concat_ws('/', k, id, w), ',' ORDER BY k, id))
FROM (SELECT k, id, w FROM t WHERE k >= 0) AS s};
like(
	$node->safe_psql('postgres',
		$forced . 'EXPLAIN (COSTS OFF) ' . $ios),
	qr/Index Only Scan using t_ki/,
	'an index-only scan of t_ki reads the INCLUDE columns');
is( $node->safe_psql('postgres', $forced . $ios),
	$node->safe_psql(
		'postgres', q{
SET enable_indexscan = off; SET enable_indexonlyscan = off; SET enable_bitmapscan = off;
} . $ios),
	'INCLUDE columns of t_ki match the table');

my $height = $node->safe_psql('postgres',
	"SELECT height FROM elastic_index_stats('t_w')");
cmp_ok($height, '>=', 3, "t_w grew to $height levels");

$node->stop;
done_testing();
