# Without shared_preload_libraries: CREATE EXTENSION works (loading the
# library on demand registers what it can), but everything that writes our
# WAL records (CREATE INDEX, inserts, VACUUM) fails with an error whose hint
# names shared_preload_libraries, while reading an existing index still
# works.  Also: pg_waldump on WAL holding our records.

use strict;
use warnings;

use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $node = PostgreSQL::Test::Cluster->new('nopreload');
$node->init;
$node->append_conf('postgresql.conf', "autovacuum = off");
$node->start;

# CREATE EXTENSION works without preloading
my ($ret, $out, $err) = $node->psql('postgres', 'CREATE EXTENSION elastic_index');
is($ret, 0, 'CREATE EXTENSION works without shared_preload_libraries')
  or diag($err);

$node->safe_psql('postgres',
	'CREATE TABLE t (k int4); INSERT INTO t SELECT g FROM generate_series(1, 1000) AS g');

# CREATE INDEX fails clearly, with SQLSTATE 55000
($ret, $out, $err) = $node->psql(
	'postgres', 'CREATE INDEX t_k ON t USING elastic_btree (k)',
	extra_params => [ '-v', 'VERBOSITY=verbose' ]);
isnt($ret, 0, 'CREATE INDEX fails without shared_preload_libraries');
like($err, qr/ERROR:\s+55000: .*shared_preload_libraries/,
	'the error names shared_preload_libraries (SQLSTATE 55000)');
like($err, qr/HINT:\s+.*shared_preload_libraries.*restart/s,
	'the hint says to add the library to shared_preload_libraries and restart');
note $err;
is($node->safe_psql('postgres', "SELECT count(*) FROM pg_class WHERE relname = 't_k'"),
	'0', 'no index was left behind');

# an empty table and CREATE INDEX CONCURRENTLY fail the same way
($ret, $out, $err) = $node->psql('postgres',
	'CREATE TABLE e (k int4); CREATE INDEX e_k ON e USING elastic_btree (k)');
like($err, qr/shared_preload_libraries/, 'CREATE INDEX on an empty table fails too');
($ret, $out, $err) = $node->psql('postgres',
	'CREATE INDEX CONCURRENTLY t_k2 ON t USING elastic_btree (k)');
like($err, qr/shared_preload_libraries/, 'CREATE INDEX CONCURRENTLY fails too');

# the inspection functions work, and say there is nothing to inspect
($ret, $out, $err) = $node->psql('postgres',
	"CREATE INDEX t_bt ON t (k); SELECT * FROM elastic_index_stats('t_bt')");
like($err, qr/is not an elastic_index index/, 'elastic_index_stats loads and runs');

# with the library preloaded, build an index; then restart without it
$node->append_conf('postgresql.conf', "shared_preload_libraries = 'elastic_index'");
$node->restart;
my $lsn_start = $node->lsn('insert');
$node->safe_psql(
	'postgres', q{
DROP TABLE e;
CREATE INDEX t_k ON t USING elastic_btree (k);
INSERT INTO t SELECT g FROM generate_series(1001, 20000) AS g;
DELETE FROM t WHERE k % 10 = 0;
VACUUM t;
});
my $lsn_end = $node->lsn('insert');

$node->adjust_conf('postgresql.conf', 'shared_preload_libraries', "''");
$node->restart;
is($node->safe_psql('postgres', 'SHOW shared_preload_libraries'), '',
	'restarted without the library preloaded');

# reading works without the library preloaded
my $force = 'SET enable_seqscan = off; SET enable_bitmapscan = off; ';
like(
	$node->safe_psql('postgres', $force . 'EXPLAIN (COSTS OFF) SELECT count(*) FROM t WHERE k < 500'),
	qr/Index (Only )?Scan using t_k/,
	'the index is still used for reading');
is($node->safe_psql('postgres', $force . 'SELECT count(*) FROM t WHERE k < 500'),
	'450', 'and returns the right rows');
($ret, $out, $err) = $node->psql('postgres', "SELECT elastic_index_check('t_k', true)");
is($ret, 0, 'elastic_index_check works without preloading') or diag($err);

# writing fails clearly: insert, update, VACUUM, REINDEX
foreach my $sql (
	'INSERT INTO t VALUES (1)',
	'UPDATE t SET k = k + 1 WHERE k = 5',
	'REINDEX INDEX t_k')
{
	($ret, $out, $err) = $node->psql('postgres', $sql);
	isnt($ret, 0, "\"$sql\" fails without shared_preload_libraries");
	like($err, qr/shared_preload_libraries/, "\"$sql\": the error names the setting");
}
$node->safe_psql('postgres', 'DELETE FROM t WHERE k < 100');
($ret, $out, $err) = $node->psql('postgres', 'VACUUM t');
like($err, qr/shared_preload_libraries/, 'VACUUM of a table with dead entries fails clearly');
is($node->safe_psql('postgres', $force . 'SELECT count(*) FROM t WHERE k < 500'),
	'360', 'the index still answers correctly after the failed writes');

# back with the library: everything works again
$node->adjust_conf('postgresql.conf', 'shared_preload_libraries', "'elastic_index'");
$node->restart;
$node->safe_psql('postgres', 'INSERT INTO t VALUES (1); VACUUM t');
($ret, $out, $err) = $node->psql('postgres', "SELECT elastic_index_check('t_k', true)");
is($ret, 0, 'elastic_index_check passes after preloading again') or diag($err);

# pg_waldump: PostgreSQL 15's pg_waldump cannot load a custom resource
# manager's description callbacks, so our records show up under the
# generic name "custom153" with no description.  Check that it runs over
# WAL holding them and lists them; pg_walinspect (which runs in the server,
# with the resource manager registered) shows the readable descriptions.
$node->safe_psql('postgres', 'CHECKPOINT');
my ($stdout, $stderr);
IPC::Run::run(
	[
		'pg_waldump', '--path', $node->data_dir . '/pg_wal',
		'--start', $lsn_start, '--end', $lsn_end
	],
	'>', \$stdout, '2>', \$stderr);
note "pg_waldump stderr: $stderr" if $stderr ne '';
like($stdout, qr/rmgr: custom153\s/, 'pg_waldump lists our records as custom153');

($stdout, $stderr) = ('', '');
IPC::Run::run(
	[
		'pg_waldump', '--path', $node->data_dir . '/pg_wal',
		'--start', $lsn_start, '--end', $lsn_end, '--stats=record'
	],
	'>', \$stdout, '2>', \$stderr);
like($stdout, qr/custom153/, 'pg_waldump --stats counts them');

$node->safe_psql('postgres', 'CREATE EXTENSION pg_walinspect');
my $desc = $node->safe_psql(
	'postgres', qq{
SELECT record_type || ': ' || description
FROM pg_get_wal_records_info('$lsn_start', '$lsn_end')
WHERE resource_manager = 'elastic_index' AND record_type IN ('INSERT_LEAF', 'SPLIT', 'VACUUM')
ORDER BY start_lsn});
like($desc, qr/^INSERT_LEAF: off: \d+$/m, 'pg_walinspect shows INSERT_LEAF with its offset');
like($desc, qr/^SPLIT: level: 0, firstrightoff: \d+/m, 'pg_walinspect shows SPLIT details');
like($desc, qr/^VACUUM: ndeleted: \d+, nupdated: \d+$/m, 'pg_walinspect shows VACUUM details');

$node->stop;
done_testing();
