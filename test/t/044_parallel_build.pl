# Parallel CREATE INDEX for both access methods: a build with two workers
# writes exactly the pages a serial build of the same index writes (long
# runs of duplicate keys, which must come out in heap TID order either
# way), and the server log shows that it launched its workers.  The pages
# reach the standby through WAL, and survive a crash right after the
# build: after recovery, and on the standby, the parallel-built indexes
# still have the serial builds' pages, pass elastic_index_check and answer
# like a sequential scan.  So does a build whose participants each write
# several sorted runs, their shares being larger than their memory.

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
max_worker_processes = 12
max_parallel_workers = 8
max_parallel_maintenance_workers = 2
min_parallel_table_scan_size = 0
maintenance_work_mem = 128MB
log_min_messages = debug1
});
$primary->start;
$primary->safe_psql('postgres',
	'CREATE EXTENSION elastic_index; CREATE EXTENSION pageinspect;');

# the standby's slot keeps the WAL it has not received yet, however far
# behind it is when the primary checkpoints
$primary->safe_psql('postgres',
	"SELECT pg_create_physical_replication_slot('standby', true)");
$primary->backup('bkp');
my $standby = PostgreSQL::Test::Cluster->new('standby');
$standby->init_from_backup($primary, 'bkp', has_streaming => 1);
$standby->append_conf(
	'postgresql.conf', qq{
primary_slot_name = 'standby'
hot_standby = on
max_standby_streaming_delay = -1
log_min_messages = warning
});
$standby->start;

# 200,000 rows: k has 300 values in long runs of duplicates, t 1000 text
# values; the table is big enough that every participant scans a share
$primary->safe_psql(
	'postgres', q{
CREATE TABLE t (id int4, k int8, t text) WITH (parallel_workers = 2);
INSERT INTO t SELECT g, (g * 7919) % 300, md5((g % 1000)::text)
FROM generate_series(1, 200000) AS g;
ANALYZE t;
});

my @defs = (
	[ 'eb_k', 'elastic_btree', '(k)' ],
	[ 'eb_tk', 'elastic_btree', '(t, k)' ],
	[ 'osm_k', 'osm_tree', '(k)' ],
	[ 'osm_tk', 'osm_tree', '(t, k)' ]);

# each index NAME as NAME_s built serially and NAME_p with two workers
foreach my $d (@defs)
{
	my ($name, $am, $cols) = @$d;
	$primary->safe_psql('postgres',
		"SET max_parallel_maintenance_workers = 0; CREATE INDEX ${name}_s ON t USING $am $cols"
	);
	my $offset = -s $primary->logfile;
	$primary->safe_psql('postgres',
		"CREATE INDEX ${name}_p ON t USING $am $cols");
	my $log = slurp_file($primary->logfile, $offset);
	like(
		$log,
		qr/elastic_index: building index "${name}_p" with 2 of 2 parallel workers launched/,
		"$am $cols: the build launched two workers");
}

# "same" if the two indexes have the same pages but for LSN and checksum
sub same_pages
{
	my ($node, $a, $b) = @_;
	return $node->safe_psql(
		'postgres', qq{
SELECT CASE WHEN pg_relation_size('$a') <> pg_relation_size('$b')
			THEN 'sizes differ'
			WHEN bool_and(substr(get_raw_page('$a', i), 11) = substr(get_raw_page('$b', i), 11))
			THEN 'same ' || count(*) || ' pages' ELSE 'pages differ' END
FROM generate_series(0, (pg_relation_size('$a') / 8192)::int - 1) AS i});
}

# On the primary: the serial builds' pages, the verifier, and the
# sequential scan's answers through each parallel-built index.
sub check_all
{
	my ($label) = @_;
	foreach my $d (@defs)
	{
		my ($name, $am, $cols) = @$d;
		like(same_pages($primary, "${name}_s", "${name}_p"),
			qr/^same \d+ pages$/,
			"$label: $am $cols: the parallel build's pages are the serial build's"
		);
		my ($ret, $out, $err) = $primary->psql('postgres',
			"SELECT elastic_index_check('${name}_p', true)");
		is($ret, 0, "$label: elastic_index_check(${name}_p) passes")
		  or diag($err);
	}
	my $q = q{SELECT count(*), md5(string_agg(id::text, ',' ORDER BY k, t, id))
			  FROM t WHERE k BETWEEN 100 AND 120 AND t > '4'};
	my $seq = $primary->safe_psql('postgres',
		"SET enable_indexscan = off; SET enable_bitmapscan = off; SET enable_indexonlyscan = off; $q"
	);
	foreach my $d (@defs)
	{
		my ($name, $am, $cols) = @$d;
		# in a transaction that drops every other index
		my $only = join(' ',
			map { "DROP INDEX $_->[0]_s;" . ($_->[0] eq $name ? '' : " DROP INDEX $_->[0]_p;") }
			  @defs)
		  . ' SET enable_seqscan = off;';
		my $plan = $primary->safe_psql('postgres',
			"BEGIN; $only EXPLAIN (COSTS OFF) $q; ROLLBACK");
		like($plan, qr/${name}_p/, "$label: the query reads ${name}_p");
		is($primary->safe_psql('postgres', "BEGIN; $only $q; ROLLBACK"),
			$seq, "$label: $am $cols answers like a sequential scan");
	}
	return;
}

check_all('primary');

# the standby replays the builds' pages
$primary->wait_for_catchup($standby);
foreach my $d (@defs)
{
	my ($name, $am, $cols) = @$d;
	like(same_pages($standby, "${name}_s", "${name}_p"),
		qr/^same \d+ pages$/,
		"standby: $am $cols: the parallel build's pages are the serial build's"
	);
}
my $q = q{SELECT count(*), sum(id) FROM t WHERE k = 17};
is( $standby->safe_psql('postgres', "SET enable_seqscan = off; SET enable_bitmapscan = off; $q"),
	$primary->safe_psql('postgres', "SET enable_indexscan = off; SET enable_bitmapscan = off; $q"),
	'standby: an index scan answers like the primary\'s sequential scan');

# a crash right after parallel builds: new ones, of both kinds, then an
# immediate stop; recovery replays their pages
$primary->safe_psql('postgres', 'DROP INDEX eb_k_p, osm_tk_p');
$primary->safe_psql('postgres',
	'CREATE INDEX eb_k_p ON t USING elastic_btree (k); CREATE INDEX osm_tk_p ON t USING osm_tree (t, k)'
);
$primary->stop('immediate');
$primary->start;
check_all('after a crash');

# and the standby, after it has replayed them too
$primary->wait_for_catchup($standby);
foreach my $d (@defs)
{
	my ($name, $am, $cols) = @$d;
	like(same_pages($standby, "${name}_s", "${name}_p"),
		qr/^same \d+ pages$/,
		"standby after the crash: $am $cols: the parallel build's pages are the serial build's"
	);
}

# A participant whose share outgrows its memory (maintenance_work_mem
# divided among the three participants: 32MB, the least with which two
# workers are planned) writes it as several sorted runs: 2.4 million
# entries cannot fit in three participants' memory, so the leader merges
# more runs than participants, and the tree is still the serial build's.
$primary->safe_psql(
	'postgres', q{
CREATE TABLE big (id int4, k int8) WITH (parallel_workers = 2);
INSERT INTO big SELECT g, (g::int8 * 7919) % 100000 FROM generate_series(1, 2400000) AS g;
ANALYZE big;
});
foreach my $am ('elastic_btree', 'osm_tree')
{
	$primary->safe_psql('postgres',
		"SET maintenance_work_mem = '96MB'; SET max_parallel_maintenance_workers = 0; CREATE INDEX big_${am}_s ON big USING $am (k)"
	);
	my $offset = -s $primary->logfile;
	$primary->safe_psql('postgres',
		"SET maintenance_work_mem = '96MB'; CREATE INDEX big_${am}_p ON big USING $am (k)"
	);
	my $log = slurp_file($primary->logfile, $offset);
	like(
		$log,
		qr/elastic_index: building index "big_${am}_p" with 2 of 2 parallel workers launched/,
		"$am, many runs: the build launched two workers");
	ok( $log =~
		  /elastic_index: merging (\d+) sorted runs to build index "big_${am}_p"/
		  && $1 > 3,
		"$am, many runs: the leader merged more runs than participants");
	like(same_pages($primary, "big_${am}_s", "big_${am}_p"),
		qr/^same \d+ pages$/,
		"$am, many runs: the parallel build's pages are the serial build's");
	my ($ret, $out, $err) = $primary->psql('postgres',
		"SELECT elastic_index_check('big_${am}_p', true)");
	is($ret, 0, "$am, many runs: elastic_index_check passes") or diag($err);
	my $bq = q{SELECT count(*), sum(id) FROM big WHERE k BETWEEN 500 AND 520};
	# in a transaction that drops every other index of big
	my $only = join(' ',
		map { "DROP INDEX IF EXISTS $_;" }
		  grep { $_ ne "big_${am}_p" }
		  qw(big_elastic_btree_s big_elastic_btree_p big_osm_tree_s big_osm_tree_p))
	  . ' SET enable_seqscan = off; SET enable_bitmapscan = off;';
	like(
		$primary->safe_psql('postgres',
			"BEGIN; $only EXPLAIN (COSTS OFF) $bq; ROLLBACK"),
		qr/big_${am}_p/,
		"$am, many runs: the query reads big_${am}_p");
	is( $primary->safe_psql('postgres', "BEGIN; $only $bq; ROLLBACK"),
		$primary->safe_psql('postgres',
			"SET enable_indexscan = off; SET enable_bitmapscan = off; $bq"),
		"$am, many runs: an index scan answers like a sequential scan");
}
$primary->wait_for_catchup($standby);
foreach my $am ('elastic_btree', 'osm_tree')
{
	like(same_pages($standby, "big_${am}_s", "big_${am}_p"),
		qr/^same \d+ pages$/,
		"standby: $am, many runs: the parallel build's pages are the serial build's"
	);
}

$standby->stop;
$primary->stop;
ok(1, 'done');
done_testing();
