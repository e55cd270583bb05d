# requires: citus
#
# Scale-out on Citus: a coordinator and two workers (three clusters on this
# machine, shared_preload_libraries = 'citus, elastic_index').  Indexes of
# both access methods, made before and after create_distributed_table with
# storage parameters that are not the defaults, reach every shard placement
# with their access method and options: on a distributed table, a
# reference table and a partitioned distributed table (a partitioned
# elastic_btree index).  Rows COPYed through the coordinator are found
# through the shard indexes (EXPLAIN through Citus shows the task's plan
# using them) exactly as a local btree-indexed copy and a sequential scan
# find them; a session SET does not reach the shards, SET LOCAL with
# citus.propagate_set_commands = 'local' does.  The index functions given a
# distributed index act on its shard indexes (src/inspect/shards.c):
# elastic_index_stats, osm_tree_buffer_stats and elastic_btree_compact_preview
# combine the shards' rows (checked against the same figures gathered shard
# by shard with run_command_on_shards), osm_tree_flush empties every shard's
# insert buffer, elastic_btree_shrink/expand convert every shard's leaves
# (every placement of a reference table's), and the queries answer the same
# through compact shard leaves; elastic_index_check passes on every shard
# index (also checked shard by shard), and a damaged shard index (a copy of
# a reference table's on the last node too) makes it fail on the
# coordinator with the shard's own error (XX002, the block) in the context
# of the shard and its node.  The shard indexes are found whatever the
# shards' search_path; a shard's permission error comes back as 42501; a
# transaction whose locks the shards' sessions would wait for is refused,
# as is a hot standby's check.  After
# citus_move_shard_placement (block_writes) the moved shards' indexes still
# have their access method and options, pass the check, and the queries
# answer as before; rows inserted then are found, and so they are after the
# shard moves back by logical replication (force_logical).  ALTER INDEX
# ... SET reaches every shard index, ALTER DATABASE/ROLE ... SET the
# workers.

use strict;
use warnings;

use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use FindBin;
use lib "$FindBin::RealBin/../perl";
use ElasticIndex::Damage;

my $coord = PostgreSQL::Test::Cluster->new('coordinator');
my $w1 = PostgreSQL::Test::Cluster->new('worker1');
my $w2 = PostgreSQL::Test::Cluster->new('worker2');
my @nodes = ($coord, $w1, $w2);

foreach my $node (@nodes)
{
	$node->init;
	$node->append_conf(
		'postgresql.conf', qq{
shared_preload_libraries = 'citus, elastic_index'
wal_level = logical
max_replication_slots = 10
max_wal_senders = 10
max_prepared_transactions = 20
max_worker_processes = 20
autovacuum = off
citus.shard_count = 4
citus.local_hostname = '@{[ $node->host ]}'
citus.enable_statistics_collection = off
ignore_checksum_failure = on
});
	$node->start;
	# Debian's 15.20 lists the plugins logical decoding may use; Citus's
	# logical shard moves need its own
	if ($node->safe_psql('postgres',
			"SELECT count(*) FROM pg_settings WHERE name = 'output_plugin_libraries'") eq '1')
	{
		$node->append_conf('postgresql.conf',
			"output_plugin_libraries = 'pgoutput, test_decoding, citus'");
		$node->restart;
	}
	$node->safe_psql('postgres', 'CREATE EXTENSION citus');
}

is( $coord->safe_psql('postgres', 'SHOW shared_preload_libraries'),
	'citus, elastic_index',
	'citus is preloaded before elastic_index');

$coord->safe_psql('postgres',
	"SELECT citus_set_coordinator_host('" . $coord->host . "', " . $coord->port . ")");
foreach my $w ($w1, $w2)
{
	$coord->safe_psql('postgres',
		"SELECT citus_add_node('" . $w->host . "', " . $w->port . ")");
}
is( $coord->safe_psql('postgres',
		'SELECT count(*) FROM pg_dist_node WHERE isactive AND shouldhaveshards AND groupid > 0'),
	'2',
	'two active workers registered');

# CREATE EXTENSION on the coordinator reaches the workers
$coord->safe_psql('postgres', 'CREATE EXTENSION elastic_index');
foreach my $w ($w1, $w2)
{
	is( $w->safe_psql('postgres',
			"SELECT count(*) FROM pg_extension WHERE extname = 'elastic_index'"),
		'1',
		$w->name . ' has elastic_index');
}

# ---- the data: one COPY through the coordinator, and the same rows in a
# local btree-indexed table
my $nrows = 4000;
my $copy = '';
my %expect;
for my $i (1 .. $nrows)
{
	my $k = ($i % 97 == 0) ? undef : ($i * 7919) % 1000;
	my $t = 'v' . (($i * 31) % 300);
	my $u = $i * 3 + ($i % 7);
	$copy .= join("\t", $i, defined $k ? $k : '\N', $t, $u) . "\n";
	$expect{k} += 1 if defined $k && $k >= 100 && $k <= 400;
	$expect{t} += 1 if $t ge 'v1' && $t lt 'v2';
	$expect{id} += 1 if $i >= 1000 && $i <= 2500;
	$expect{u} += 1 if $u > 9000;
	$expect{knull} += 1 if !defined $k;
}

$coord->safe_psql(
	'postgres', q{
CREATE TABLE dt (id int4, k int8, t text, u int8);
CREATE INDEX dt_eb ON dt USING elastic_btree (k) WITH (fillfactor = 70, size_bound = '64MB');
CREATE INDEX dt_osm ON dt USING osm_tree (t) WITH (buffer_size = 8, batch_size = 500);
SELECT create_distributed_table('dt', 'id');
CREATE INDEX dt_eb_after ON dt USING elastic_btree (id) WITH (size_bound = '25%', fillfactor = 60);
CREATE INDEX dt_osm_after ON dt USING osm_tree (u) WITH (split_factor = 0.6, bloom_bits_per_key = 16);
CREATE TABLE lt (id int4, k int8, t text, u int8);
CREATE INDEX lt_k ON lt (k);
CREATE INDEX lt_t ON lt (t);
CREATE INDEX lt_id ON lt (id);
CREATE INDEX lt_u ON lt (u);
});
$coord->safe_psql('postgres', "COPY dt FROM STDIN;\n$copy\\.\n");
$coord->safe_psql('postgres', "COPY lt FROM STDIN;\n$copy\\.\n");
is($coord->safe_psql('postgres', 'SELECT count(*) FROM dt'),
	$nrows, 'COPY through the coordinator stored every row');
is( $coord->safe_psql('postgres',
		"SELECT count(DISTINCT nodeport) FROM citus_shards WHERE table_name = 'dt'::regclass"),
	'2',
	'the shards of dt are on both workers');

# reference table: both access methods before create_reference_table, one
# after
$coord->safe_psql(
	'postgres', q{
CREATE TABLE rt (code int4, name text, w int8);
INSERT INTO rt SELECT g, 'n' || (g % 50), (g * 37) % 700 FROM generate_series(1, 700) AS g;
-- without lists: 50 names of 14 rows would fit one leaf, and the damage
-- test below needs a leaf with a right sibling
CREATE INDEX rt_name ON rt USING elastic_btree (name) WITH (fillfactor = 80, deduplicate_items = off);
CREATE INDEX rt_w ON rt USING osm_tree (w) WITH (buffer_size = 4, flush_fraction = 0.25);
SELECT create_reference_table('rt');
CREATE INDEX rt_code ON rt USING elastic_btree (code) WITH (size_bound = '1MB');
});

# partitioned distributed table with a partitioned elastic_btree index
$coord->safe_psql(
	'postgres', q{
CREATE TABLE pt (id int4, d int4, v int8) PARTITION BY RANGE (d);
CREATE TABLE pt_1 PARTITION OF pt FOR VALUES FROM (0) TO (50);
CREATE TABLE pt_2 PARTITION OF pt FOR VALUES FROM (50) TO (100);
CREATE INDEX pt_v ON pt USING elastic_btree (v) WITH (fillfactor = 75);
SELECT create_distributed_table('pt', 'id');
INSERT INTO pt SELECT g, g % 100, (g * 13) % 500 FROM generate_series(1, 2000) AS g;
});

# The indexes each table's shards must have: [index, am, reloptions]; a
# shard's index is named <index>_<shardid>.
my %want_indexes = (
	dt => [
		[ 'dt_eb', 'elastic_btree', 'fillfactor=70,size_bound=64MB' ],
		[ 'dt_eb_after', 'elastic_btree', 'size_bound=25%,fillfactor=60' ],
		[ 'dt_osm', 'osm_tree', 'buffer_size=8,batch_size=500' ],
		[ 'dt_osm_after', 'osm_tree', 'split_factor=0.6,bloom_bits_per_key=16' ],
	],
	rt => [
		[ 'rt_code', 'elastic_btree', 'size_bound=1MB' ],
		[ 'rt_name', 'elastic_btree', 'fillfactor=80,deduplicate_items=off' ],
		[ 'rt_w', 'osm_tree', 'buffer_size=4,flush_fraction=0.25' ],
	],
	pt => [ [ 'pt_v', 'elastic_btree', 'fillfactor=75' ] ],
	pt_1 => [ [ 'pt_1_v_idx', 'elastic_btree', 'fillfactor=75' ] ],
	pt_2 => [ [ 'pt_2_v_idx', 'elastic_btree', 'fillfactor=75' ] ],);

# the coordinator's own (shell) indexes have what the shards must have
foreach my $table (sort keys %want_indexes)
{
	my $want = join("\n",
		map { "$_->[0] $_->[1] $_->[2]" } @{ $want_indexes{$table} });
	is( $coord->safe_psql(
			'postgres', qq{
SELECT c.relname || ' ' || a.amname || ' ' || array_to_string(c.reloptions, ',')
FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid JOIN pg_am a ON a.oid = c.relam
WHERE i.indrelid = '$table'::regclass ORDER BY c.relname}),
		$want,
		"coordinator: the indexes of $table");
}

# Every node's shard indexes, as "index am reloptions" lines, against what
# citus_shards says each node holds: each placement of each shard has each
# index of its table, with its access method and options, and nothing else.
sub check_shard_indexes
{
	my ($label) = @_;
	my $regex = '^(' . join('|', keys %want_indexes) . ')_[0-9]+$';
	my %want = map { $_->port => [] } @nodes;
	my $placements = $coord->safe_psql(
		'postgres', qq{
SELECT s.table_name::text, s.shardid, s.nodeport FROM citus_shards s
WHERE s.table_name::text IN ('@{[ join("', '", keys %want_indexes) ]}')
ORDER BY 1, 2, 3});
	foreach my $line (split /\n/, $placements)
	{
		my ($table, $shardid, $port) = split /\|/, $line;
		push @{ $want{$port} }, "$_->[0]_$shardid $_->[1] $_->[2]"
		  foreach @{ $want_indexes{$table} };
	}
	foreach my $node (@nodes)
	{
		my $got = $node->safe_psql(
			'postgres', qq{
SET citus.override_table_visibility = off;
SELECT c.relname || ' ' || a.amname || ' ' || coalesce(array_to_string(c.reloptions, ','), '')
FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid JOIN pg_am a ON a.oid = c.relam
JOIN pg_class r ON r.oid = i.indrelid
WHERE r.relname ~ '$regex'
  AND substring(r.relname from '[0-9]+\$')::int8 IN (SELECT shardid FROM pg_dist_shard)
ORDER BY c.relname COLLATE "C"});
		is($got, join("\n", sort @{ $want{$node->port} }),
			"$label: " . $node->name . "'s shard indexes have their access method and options");
	}
	return;
}

check_shard_indexes('after distribution');

# Run SQL on the coordinator in a transaction whose SET LOCAL settings
# Citus sends to the shards' sessions.
sub in_shards
{
	my ($settings, $sql) = @_;
	return $coord->safe_psql('postgres',
		"BEGIN;\nSET LOCAL citus.propagate_set_commands = 'local';\n$settings\n$sql;\nCOMMIT;"
	);
}

my $use_index = 'SET LOCAL enable_seqscan = off;';
my $use_seqscan =
  'SET LOCAL enable_indexscan = off; SET LOCAL enable_indexonlyscan = off; SET LOCAL enable_bitmapscan = off;';

# [name, query on TABLE, the index whose shards it uses, rows expected]
my @queries = (
	[ 'k', 'SELECT id, k FROM TABLE WHERE k BETWEEN 100 AND 400 ORDER BY id', 'dt_eb', $expect{k} ],
	[ 't', "SELECT id, t FROM TABLE WHERE t >= 'v1' AND t < 'v2' ORDER BY id", 'dt_osm', $expect{t} ],
	[ 'id', 'SELECT id, u FROM TABLE WHERE id BETWEEN 1000 AND 2500 ORDER BY id', 'dt_eb_after', $expect{id} ],
	[ 'u', 'SELECT id, u FROM TABLE WHERE u > 9000 ORDER BY id', 'dt_osm_after', $expect{u} ],
	[ 'knull', 'SELECT id FROM TABLE WHERE k IS NULL ORDER BY id', 'dt_eb', $expect{knull} ],);

# The distributed queries through the shard indexes: the same rows as the
# local btree copy and as a sequential scan of the shards; returns them.
sub check_queries
{
	my ($label) = @_;
	my %rows;
	foreach my $q (@queries)
	{
		my ($name, $sql, $index, $count) = @$q;
		(my $dsql = $sql) =~ s/TABLE/dt/;
		(my $lsql = $sql) =~ s/TABLE/lt/;
		my $plan = in_shards($use_index, "EXPLAIN (COSTS OFF) $dsql");
		like($plan, qr/(Index Scan|Index Only Scan) using ${index}_[0-9]+ on dt_[0-9]+|Bitmap Index Scan on ${index}_[0-9]+/,
			"$label: query $name: the shard's plan uses $index") or diag($plan);
		my $via_index = in_shards($use_index, $dsql);
		my $plan_seq = in_shards($use_seqscan, "EXPLAIN (COSTS OFF) $dsql");
		like($plan_seq, qr/Seq Scan on dt_[0-9]+/,
			"$label: query $name: with index scans off, the shard's plan is a sequential scan")
		  or diag($plan_seq);
		my $via_seq = in_shards($use_seqscan, $dsql);
		my $local = $coord->safe_psql('postgres', "SET enable_seqscan = off; $lsql");
		my @lines = split /\n/, $via_index;
		is(scalar(@lines), $count, "$label: query $name finds its $count rows");
		is($via_index, $local, "$label: query $name: shard indexes answer as a local btree");
		is($via_index, $via_seq, "$label: query $name: shard indexes answer as a sequential scan");
		$rows{$name} = $via_index;
	}
	return \%rows;
}

my $before = check_queries('distributed table');

# a session SET is not sent to the shards: the same plan with enable_seqscan
# off for the session only scans the shard sequentially
like(
	$coord->safe_psql('postgres',
		'SET enable_seqscan = off; EXPLAIN (COSTS OFF) SELECT id FROM dt WHERE k >= 0'),
	qr/Seq Scan on dt_[0-9]+/,
	'a session SET does not reach the shard sessions');
like(
	in_shards($use_index, 'EXPLAIN (COSTS OFF) SELECT id FROM dt WHERE k >= 0'),
	qr/Index (Only )?Scan using dt_eb_[0-9]+|Bitmap Index Scan on dt_eb_[0-9]+/,
	'SET LOCAL with citus.propagate_set_commands = local does');

# reference table and partitioned table, through their indexes and by
# sequential scan
my $rt_sql = "SELECT code, name FROM rt WHERE name >= 'n10' AND name < 'n20' ORDER BY code";
like(in_shards($use_index, "EXPLAIN (COSTS OFF) $rt_sql"),
	qr/Index (Only )?Scan using rt_name_[0-9]+|Bitmap Index Scan on rt_name_[0-9]+/,
	'reference table: the plan uses rt_name');
my $rt_rows = in_shards($use_index, $rt_sql);
is(scalar(split /\n/, $rt_rows), 154, 'reference table: the query finds its 154 rows');
is($rt_rows, in_shards($use_seqscan, $rt_sql),
	'reference table: rt_name answers as a sequential scan');
my $rt_w_sql = 'SELECT code FROM rt WHERE w BETWEEN 100 AND 199 ORDER BY code';
like(in_shards($use_index, "EXPLAIN (COSTS OFF) $rt_w_sql"),
	qr/Index (Only )?Scan using rt_w_[0-9]+|Bitmap Index Scan on rt_w_[0-9]+/,
	'reference table: the plan uses rt_w (osm_tree)');
my $rt_w_rows = in_shards($use_index, $rt_w_sql);
is(scalar(split /\n/, $rt_w_rows), 100, 'reference table: the osm_tree query finds its 100 rows');
is($rt_w_rows, in_shards($use_seqscan, $rt_w_sql),
	'reference table: rt_w answers as a sequential scan');

my $pt_sql = 'SELECT id, d, v FROM pt WHERE v BETWEEN 10 AND 30 ORDER BY id';
like(in_shards($use_index, "EXPLAIN (COSTS OFF) $pt_sql"),
	qr/Index (Only )?Scan using pt_[12]_v_idx_[0-9]+|Bitmap Index Scan on pt_[12]_v_idx_[0-9]+/,
	'partitioned table: the plan uses the partitions\' shard indexes');
my $pt_rows = in_shards($use_index, $pt_sql);
is(scalar(split /\n/, $pt_rows), 84, 'partitioned table: the query finds its 84 rows');
is($pt_rows, in_shards($use_seqscan, $pt_sql),
	'partitioned table: pt_v answers as a sequential scan');

# elastic_index_check (heapallindexed) on every shard index, shard by shard
# (run_command_on_shards), and on every placement of the reference table's
# shard (run_command_on_placements: it has one on each node); the number is
# how many indexes each shard checked
my $check_cmd =
  q{SELECT count(*) FROM pg_index i, LATERAL elastic_index_check(i.indexrelid::regclass, true) AS c WHERE i.indrelid = '%s'::regclass};

sub check_every_shard_index
{
	my ($label) = @_;
	foreach my $t (
		[ 'dt', 4, 'run_command_on_shards' ],
		[ 'pt_1', 1, 'run_command_on_shards' ],
		[ 'pt_2', 1, 'run_command_on_shards' ],
		[ 'rt', 3, 'run_command_on_placements' ])
	{
		my ($table, $n, $runner) = @$t;
		my $ntargets = $coord->safe_psql('postgres',
			$runner eq 'run_command_on_shards'
			? "SELECT count(*) FROM pg_dist_shard WHERE logicalrelid = '$table'::regclass"
			: "SELECT count(*) FROM citus_shards WHERE table_name = '$table'::regclass");
		cmp_ok($ntargets, '>', 0, "$label: $table has shards");
		is( $coord->safe_psql(
				'postgres', qq{
SELECT count(*) || ' ' || string_agg(DISTINCT success || ' ' || result, ', ')
FROM $runner('$table', \$cmd\$$check_cmd\$cmd\$)}),
			"$ntargets true $n",
			"$label: elastic_index_check passes on the $n index(es) of each of the $ntargets shard(s) or placement(s) of $table ($runner)"
		);
	}
	return;
}

check_every_shard_index('before the move');

# ---- the index functions on a distributed index act on its shard indexes
# (src/inspect/shards.c).  Each figure is checked against the same figure
# gathered shard by shard with run_command_on_shards, as users had to.

# One column of elastic_index_stats over the shards of an index of dt,
# shard by shard: "sum", "max" or the distinct values.
sub per_shard_stat
{
	my ($index, $column, $how) = @_;
	my $agg =
	    $how eq 'sum' ? 'sum(result::int8)'
	  : $how eq 'max' ? 'max(result::int8)'
	  :                 q{string_agg(DISTINCT result, ',')};
	return $coord->safe_psql(
		'postgres', qq{
SELECT $agg FROM run_command_on_shards('dt',
  \$cmd\$SELECT $column FROM elastic_index_stats(('${index}_' || substring('%s' from '[0-9]+\$'))::regclass)\$cmd\$)});
}

# the shell index on the coordinator is empty; through the function the
# index holds one entry per row
is( $coord->safe_psql(
		'postgres', q{
SELECT pg_relation_size('dt_eb') <= 2 * 8192}),
	't',
	"the coordinator's dt_eb is an empty shell (a metapage and an empty root)");
is($coord->safe_psql('postgres', "SELECT entries FROM elastic_index_stats('dt_eb')"),
	$nrows, 'elastic_index_stats(dt_eb) counts the entries of all its shards');
foreach my $index (qw(dt_eb dt_eb_after dt_osm dt_osm_after))
{
	foreach my $c (
		[ 'total_pages', 'sum' ], [ 'leaf_pages', 'sum' ],
		[ 'entries', 'sum' ], [ 'inner_entries', 'sum' ],
		[ 'free_bytes', 'sum' ], [ 'buffer_entries', 'sum' ],
		[ 'height', 'max' ], [ 'am', 'distinct' ])
	{
		my ($column, $how) = @$c;
		is( $coord->safe_psql('postgres',
				"SELECT $column FROM elastic_index_stats('$index')"),
			per_shard_stat($index, $column, $how),
			"elastic_index_stats($index).$column is the $how over its shards");
	}
}
is( $coord->safe_psql(
		'postgres', q{
SELECT root_block IS NULL, size_bound_pages, elastic_state
FROM elastic_index_stats('dt_eb')}),
	't|32768|normal',
	'dt_eb: no one root block; size_bound = 64MB is 8192 pages on each of 4 shards; state normal');
is( $coord->safe_psql(
		'postgres', q{
SELECT round(s.leaf_fill::numeric, 6) = round(
  (SELECT sum(f * l) / sum(l) FROM (
     SELECT split_part(result, ' ', 1)::numeric AS f, split_part(result, ' ', 2)::numeric AS l
     FROM run_command_on_shards('dt',
       $cmd$SELECT leaf_fill || ' ' || leaf_pages FROM elastic_index_stats(('dt_eb_' || substring('%s' from '[0-9]+$'))::regclass)$cmd$)) x), 6)
FROM elastic_index_stats('dt_eb') s}),
	't',
	'elastic_index_stats(dt_eb).leaf_fill is the shards\' fill weighted by their leaf pages');

# a reference table's index: one placement counted, not one per node
is($coord->safe_psql('postgres', "SELECT entries FROM elastic_index_stats('rt_name')"),
	'700', 'elastic_index_stats on a reference table\'s index counts one placement');
# a partition of a distributed partitioned table is a distributed table
is( $coord->safe_psql('postgres',
		"SELECT (SELECT entries FROM elastic_index_stats('pt_1_v_idx')) = (SELECT count(*) FROM pt_1)"),
	't',
	'elastic_index_stats on a partition\'s index counts its shards\' entries');
my ($pret, $pout, $perr) = $coord->psql('postgres', "SELECT elastic_index_stats('pt_v')");
like($perr, qr/"pt_v" is not an elastic_index index.*\n.*HINT:  .*partition/,
	'a partitioned index is refused, with a hint to name its partitions\' indexes');

# osm_tree's insert buffer: single-row inserts (batch_size = 1, top_inserts
# off in the shards' sessions) go to the shards' buffers; stats, flush,
# stats again
$coord->safe_psql(
	'postgres', q{
CREATE TABLE ob (id int4, v int8);
SELECT create_distributed_table('ob', 'id');
CREATE INDEX ob_v ON ob USING osm_tree (v) WITH (buffer_size = 8, batch_size = 1);
INSERT INTO ob SELECT g, g * 10 FROM generate_series(1, 4000) AS g;
});
in_shards('SET LOCAL osm_tree.top_inserts = off;',
	join('', map { "INSERT INTO ob VALUES (" . (4000 + $_) . ", " . ($_ * 397 % 40000) . ");\n" } 1 .. 80)
	  . 'SELECT 1');
my $buffered = $coord->safe_psql('postgres',
	"SELECT buffer_entries FROM elastic_index_stats('ob_v')");
cmp_ok($buffered, '>', 0, "ob_v's shards have $buffered entries in their insert buffers");
is( $coord->safe_psql('postgres',
		"SELECT entries || ' ' || buffer_size FROM osm_tree_buffer_stats('ob_v')"),
	"$buffered 32",
	'osm_tree_buffer_stats(ob_v): the buffered entries of all shards, 4 buffers of 8 pages');
is($coord->safe_psql('postgres', "SELECT osm_tree_flush('ob_v')"),
	$buffered, 'osm_tree_flush(ob_v) moves every shard\'s buffered entries');
is( $coord->safe_psql('postgres',
		"SELECT buffer_entries || ' ' || entries FROM elastic_index_stats('ob_v')"),
	'0 4080',
	'ob_v: the shards\' buffers are empty, their trees hold every row');
is( $coord->safe_psql(
		'postgres', q{
SELECT string_agg(DISTINCT result, ',') FROM run_command_on_shards('ob',
  $cmd$SELECT buffer_entries FROM elastic_index_stats(('ob_v_' || substring('%s' from '[0-9]+$'))::regclass)$cmd$)}),
	'0', 'ob_v: each shard\'s buffer is empty (shard by shard)');
$coord->safe_psql('postgres', "SELECT elastic_index_check('ob_v', true)");
pass('elastic_index_check(ob_v, true) passes after the flush');
is( in_shards($use_index, 'SELECT count(*), sum(v) FROM ob WHERE v BETWEEN 1000 AND 20000'),
	in_shards($use_seqscan, 'SELECT count(*), sum(v) FROM ob WHERE v BETWEEN 1000 AND 20000'),
	'ob_v answers as a sequential scan after the flush');

# shrink and expand: on every shard index; the queries answer the same
my $leaves = $coord->safe_psql('postgres',
	"SELECT leaf_pages FROM elastic_index_stats('dt_eb')");
is( $coord->safe_psql(
		'postgres', q{
SELECT leaf_pages FROM elastic_btree_compact_preview('dt_eb')}),
	$leaves,
	'elastic_btree_compact_preview(dt_eb) previews the leaves of all shards');
is($coord->safe_psql('postgres', "SELECT elastic_btree_shrink('dt_eb', 1)"),
	'4', 'elastic_btree_shrink(dt_eb, 1) converts one leaf in each of the 4 shard indexes');
is( $coord->safe_psql('postgres',
		"SELECT compact_leaf_pages || ' ' || elastic_state FROM elastic_index_stats('dt_eb')"),
	'4 shrinking',
	'dt_eb: 4 compact leaves, every shard shrinking');
my $shrunk = $coord->safe_psql('postgres', "SELECT elastic_btree_shrink('dt_eb')");
cmp_ok($shrunk, '>', 0, "elastic_btree_shrink(dt_eb) converts the $shrunk other leaves");
is( $coord->safe_psql('postgres',
		"SELECT compact_leaf_pages = leaf_pages FROM elastic_index_stats('dt_eb')"),
	't',
	'dt_eb: every leaf of every shard is compact');
is(per_shard_stat('dt_eb', 'compact_leaf_pages', 'sum'),
	$shrunk + 4, 'dt_eb: the shards\' compact leaves, shard by shard, are the ones converted');
$coord->safe_psql('postgres', "SELECT elastic_index_check('dt_eb', true)");
pass('elastic_index_check(dt_eb, true) passes on the compact shard indexes');
my $compact = check_queries('compact shard leaves');
foreach my $q (@queries)
{
	is($compact->{ $q->[0] }, $before->{ $q->[0] },
		"query $q->[0] answers through compact shard leaves as before");
}
is($coord->safe_psql('postgres', "SELECT elastic_btree_expand('dt_eb')"),
	$shrunk + 4, 'elastic_btree_expand(dt_eb) converts every compact leaf back');
is( $coord->safe_psql('postgres',
		"SELECT compact_leaf_pages || ' ' || elastic_state FROM elastic_index_stats('dt_eb')"),
	'0 normal',
	'dt_eb: no compact leaf left, every shard normal');
# one shard shrinking, the others not: the states are listed
my $one_shard = $coord->safe_psql('postgres',
	"SELECT min(shardid) FROM citus_shards WHERE table_name = 'dt'::regclass AND nodeport = "
	  . $w1->port);
$w1->safe_psql('postgres', "SELECT elastic_btree_shrink('dt_eb_$one_shard', 0)");
is($coord->safe_psql('postgres', "SELECT elastic_state FROM elastic_index_stats('dt_eb')"),
	'normal,shrinking', 'dt_eb: the shards\' differing states are listed');
$w1->safe_psql('postgres', "SELECT elastic_btree_expand('dt_eb_$one_shard')");

# a reference table's index is converted on every node's placement
is( $coord->safe_psql('postgres', q{
SELECT elastic_btree_shrink('rt_code') =
  3 * (SELECT leaf_pages FROM elastic_index_stats('rt_code'))}),
	't',
	'elastic_btree_shrink(rt_code) converts the leaves of all 3 placements');
is( $coord->safe_psql(
		'postgres', q{
SELECT count(*) || ' ' || string_agg(DISTINCT result, ',') FROM run_command_on_placements('rt',
  $cmd$SELECT compact_leaf_pages = leaf_pages FROM elastic_index_stats(('rt_code_' || substring('%s' from '[0-9]+$'))::regclass)$cmd$)}),
	'3 t',
	'rt_code: every placement\'s leaves are compact');
is( $coord->safe_psql('postgres',
		"SELECT elastic_btree_expand('rt_code') > 0 AND (SELECT compact_leaf_pages FROM elastic_index_stats('rt_code')) = 0"),
	't', 'elastic_btree_expand(rt_code) converts them back');

# elastic_index_check through the distributed indexes, every placement
sub check_through_functions
{
	my ($label) = @_;
	foreach my $table ('dt', 'pt_1', 'pt_2', 'rt')
	{
		foreach my $index (map { $_->[0] } @{ $want_indexes{$table} })
		{
			my ($ret, $out, $err) = $coord->psql('postgres',
				"SELECT elastic_index_check('$index', true)");
			is($ret, 0, "$label: elastic_index_check($index, true) passes on every shard")
			  or diag($err);
		}
	}
	return;
}
check_through_functions('before the move');

# A damaged shard index: the check on the coordinator fails with the
# shard's own error (XX002, its message and detail naming the block), in
# the context of the shard index and its node; repaired, it passes.
# Returns the verbose psql output of the failed check.
sub damage_and_check
{
	my ($node, $shard_index, $index) = @_;
	my $file = $node->data_dir . '/'
	  . $node->safe_psql('postgres',
		"SET citus.override_table_visibility = off; SELECT pg_relation_filepath('$shard_index')");
	my $blcksz = 8192;
	$node->stop;
	my $pristine = ElasticIndex::Damage::read_file($file);
	my $leaf = ElasticIndex::Damage::inner_leaf($pristine, $blcksz);
	ok(defined $leaf, "a leaf of $shard_index to damage: block $leaf");
	# line pointers 2 and 3 (the first two entries after the high key)
	# swapped
	ElasticIndex::Damage::swap_first_entries($file, $pristine, $leaf, $blcksz);
	$node->start;
	my ($ret, $out, $err) = $coord->psql('postgres',
		"\\set VERBOSITY verbose\nSELECT elastic_index_check('$index')");
	like($err,
		qr/ERROR:  XX002: index "$shard_index" is corrupted: item is not less than[^\n]*\nDETAIL:  Block $leaf, offset 2\.\nCONTEXT:  elastic_index_check on shard index public\.$shard_index of index "$index" on node [^ ]+:@{[ $node->port ]}\n/,
		"damaged $shard_index on " . $node->name . ": the check of $index on the coordinator raises the shard's error (XX002, block), naming shard and node"
	) or diag($err);
	$node->stop;
	ElasticIndex::Damage::write_file($file, $pristine);
	$node->start;
	($ret, $out, $err) = $coord->psql('postgres',
		"SELECT elastic_index_check('$index', true)");
	is($ret, 0, "$shard_index repaired, the check of $index on the coordinator passes")
	  or diag($err);
	return;
}
damage_and_check($w1, "dt_osm_after_$one_shard", 'dt_osm_after');
# every placement of a reference table's shard is checked: damage the
# copy on worker2 (the coordinator's and worker1's come first)
my $rt_shard = $coord->safe_psql('postgres',
	"SELECT shardid FROM pg_dist_shard WHERE logicalrelid = 'rt'::regclass");
damage_and_check($w2, "rt_name_$rt_shard", 'rt_name');

# the shard indexes are named with their schema, whatever the search_path
# of the shards' sessions: a role's search_path and a decoy index named
# like a shard index in another schema change nothing
$coord->safe_psql('postgres', 'CREATE SCHEMA decoy');
foreach my $w ($w1, $w2)
{
	$w->safe_psql(
		'postgres', qq{
SET citus.enable_ddl_propagation = off;
CREATE TABLE decoy.d (k int8);
INSERT INTO decoy.d SELECT g FROM generate_series(1, 10) AS g;
CREATE INDEX "dt_eb_$one_shard" ON decoy.d USING elastic_btree (k);
});
}
$coord->safe_psql('postgres', 'ALTER ROLE CURRENT_USER SET search_path = decoy, public');
is($coord->safe_psql('postgres', "SELECT entries FROM elastic_index_stats('public.dt_eb')"),
	$nrows, 'with search_path = decoy, public on the shards, elastic_index_stats finds the shard indexes');
is($coord->safe_psql('postgres', "SELECT elastic_btree_shrink('public.dt_eb', 0)"),
	'0', 'elastic_btree_shrink(dt_eb, 0) with that search_path');
is( $w1->safe_psql('postgres',
		"SELECT (SELECT elastic_state FROM elastic_index_stats('decoy.\"dt_eb_$one_shard\"')) || ' ' || (SELECT elastic_state FROM elastic_index_stats('public.dt_eb_$one_shard'))"),
	'normal shrinking',
	'the decoy index is untouched, the shard index is shrinking');
$coord->safe_psql('postgres', "SELECT elastic_btree_expand('public.dt_eb')");
$coord->safe_psql('postgres', 'ALTER ROLE CURRENT_USER RESET search_path');
$coord->safe_psql('postgres', 'DROP SCHEMA decoy CASCADE');

# the shard's own error and SQLSTATE: EXECUTE on elastic_index_check
# granted on the coordinator only (Citus does not send GRANTs on an
# extension's functions); granted on every node, the check passes
$coord->safe_psql('postgres', q{
CREATE ROLE checker LOGIN;
GRANT EXECUTE ON FUNCTION elastic_index_check(regclass, bool) TO checker;
});
my ($cret, $cout, $cerr) = $coord->psql(
	'postgres',
	"\\set VERBOSITY verbose\nSELECT elastic_index_check('dt_eb')",
	connstr => $coord->connstr('postgres') . ' user=checker');
like($cerr,
	qr/ERROR:  42501: permission denied for function elastic_index_check\n.*CONTEXT:  elastic_index_check on shard index public\.dt_eb_[0-9]+ of index "dt_eb" on node /s,
	'EXECUTE granted on the coordinator only: the shard\'s permission error (42501), with the shard in its context')
  or diag($cerr);
$coord->safe_psql('postgres',
	q{SELECT run_command_on_workers('GRANT EXECUTE ON FUNCTION elastic_index_check(regclass, bool) TO checker')});
($cret, $cout, $cerr) = $coord->psql(
	'postgres',
	"SELECT elastic_index_check('dt_eb', true)",
	connstr => $coord->connstr('postgres') . ' user=checker');
is($cret, 0, 'granted on every node: the check passes for that role') or diag($cerr);

# the shards' sessions would wait for this transaction's locks, or not see
# an index it created: refused at once, with a hint (statement_timeout
# only guards the test against a hang)
# a reference table with a foreign key to it from a distributed table,
# whose ON DELETE CASCADE deletes on the workers only (the coordinator
# locks no shell of dt2); a local table with an index, to distribute in a
# transaction
$coord->safe_psql(
	'postgres', q{
CREATE TABLE rt2 (code int4 PRIMARY KEY);
SELECT create_reference_table('rt2');
INSERT INTO rt2 SELECT g FROM generate_series(1, 10) AS g;
CREATE TABLE dt2 (id int4, code int4 REFERENCES rt2 ON DELETE CASCADE, v int8);
SELECT create_distributed_table('dt2', 'id');
CREATE INDEX dt2_v ON dt2 USING elastic_btree (v);
INSERT INTO dt2 SELECT g, 1 + g % 10, g FROM generate_series(1, 200) AS g;
CREATE TABLE lx (id int4, v int8);
CREATE INDEX lx_v ON lx USING elastic_btree (v);
INSERT INTO lx SELECT g, g FROM generate_series(1, 100) AS g;
});
foreach my $t (
	[ "INSERT INTO dt VALUES (99999, 1, 'x', 1); SELECT elastic_index_check('dt_eb')",
	  'in a transaction that has used its table', 'after an INSERT: elastic_index_check' ],
	[ "SELECT count(*) FROM dt; SELECT elastic_index_check('dt_eb')",
	  'in a transaction that has used its table', 'after a SELECT on the table: elastic_index_check' ],
	[ "DELETE FROM rt2 WHERE code = 5; SELECT elastic_index_check('dt2_v')",
	  'in a transaction that has used its table', 'after a DELETE that cascades to the shards only: elastic_index_check' ],
	[ "LOCK TABLE dt IN ACCESS EXCLUSIVE MODE; SELECT entries FROM elastic_index_stats('dt_eb')",
	  'in a transaction that has used its table', 'after LOCK ... ACCESS EXCLUSIVE: elastic_index_stats' ],
	[ "CREATE INDEX dt_new ON dt USING elastic_btree (u); SELECT entries FROM elastic_index_stats('dt_new')",
	  'in the transaction that created them', 'after CREATE INDEX: elastic_index_stats of the new index' ],
	[ "SELECT create_distributed_table('lx', 'id'); SELECT entries FROM elastic_index_stats('lx_v')",
	  'in the transaction that created them', 'after create_distributed_table: elastic_index_stats' ])
{
	my ($sql, $msg, $label) = @$t;
	my ($tret, $tout, $terr) = $coord->psql('postgres',
		"SET statement_timeout = '60s';\n\\set VERBOSITY verbose\nBEGIN;\n$sql;\nROLLBACK;");
	like($terr, qr/ERROR:  55000: cannot run [a-z_]+ on the shards of index "[a-z0-9_]+" $msg\n.*HINT:  /s,
		"$label is refused (55000), not left waiting") or diag($terr);
}
# osm_tree_flush and shrink after a write to the table: no lock of theirs
# conflicts, so they run; and a check after them (their shell lock is
# AccessShareLock, their shards' work committed on its own)
foreach my $sql (
	"UPDATE dt SET u = u WHERE id = 7;\nSELECT osm_tree_flush('dt_osm')",
	"UPDATE dt SET u = u WHERE id = 7;\nSELECT elastic_btree_shrink('dt_eb', 0)",
	"SELECT osm_tree_flush('dt_osm');\nSELECT elastic_btree_shrink('dt_eb', 0);\nSELECT elastic_index_check('dt_osm')")
{
	my ($fret, $fout, $ferr) = $coord->psql('postgres',
		"SET statement_timeout = '60s';\nBEGIN;\n$sql;\nROLLBACK;");
	(my $label = $sql) =~ s/\n/ /g;
	is($fret, 0, "in one transaction, $label: runs") or diag($ferr);
}
# (the shards' shrink committed on its own: back to normal)
$coord->safe_psql('postgres', "SELECT elastic_btree_expand('dt_eb')");
# stats, flush and shrink in a transaction that wrote do not wait: allowed
# (the INSERTs into dt rolled back above left dead entries in dt_eb's
# shards); statistics in a transaction that wrote to the table itself: its
# uncommitted entry is there
my $dt_eb_entries = per_shard_stat('dt_eb', 'entries', 'sum');
is( $coord->safe_psql('postgres', q{
BEGIN;
INSERT INTO dt VALUES (99998, 2, 'y', 2);
SELECT entries FROM elastic_index_stats('dt_eb');
ROLLBACK;}),
	$dt_eb_entries + 1, 'elastic_index_stats in a transaction that wrote to the table works');
$dt_eb_entries++;

# a hot standby of the coordinator refuses to check the shards (the checks
# would lock the primaries' shards); statistics come from the shards
$coord->backup('coord_backup');
my $standby = PostgreSQL::Test::Cluster->new('coordinator_standby');
$standby->init_from_backup($coord, 'coord_backup', has_streaming => 1);
# the key of the certificate Citus made for the coordinator, copied with
# the backup's file modes, which the server refuses for a key
chmod(0600, $standby->data_dir . '/server.key') if -e $standby->data_dir . '/server.key';
$standby->start;
$coord->wait_for_catchup($standby, 'replay', $coord->lsn('insert'));
my ($sret, $sout, $serr) = $standby->psql('postgres',
	"\\set VERBOSITY verbose\nSELECT elastic_index_check('dt_eb')");
like($serr, qr/ERROR:  0A000: cannot check the shards of index "dt_eb" during recovery/,
	'a standby coordinator refuses to check the shards') or diag($serr);
is($standby->safe_psql('postgres', "SELECT entries FROM elastic_index_stats('dt_eb')"),
	$dt_eb_entries, 'a standby coordinator reads the shards\' statistics');
$standby->stop;

# ---- move a shard of dt (and its colocated shard of pt) to the other worker
my $moved = $coord->safe_psql('postgres',
	"SELECT min(shardid) FROM citus_shards WHERE table_name = 'dt'::regclass AND nodeport = "
	  . $w1->port);
$coord->safe_psql('postgres',
	    "SELECT citus_move_shard_placement($moved, '"
	  . $w1->host . "', "
	  . $w1->port . ", '"
	  . $w2->host . "', "
	  . $w2->port
	  . ", shard_transfer_mode => 'block_writes')");
# the source's placement is dropped later; drop it now
$coord->safe_psql('postgres', 'CALL citus_cleanup_orphaned_resources()');
is( $coord->safe_psql('postgres',
		"SELECT nodeport FROM citus_shards WHERE shardid = $moved"),
	$w2->port,
	"shard $moved is on worker2 after the move");
is( $w2->safe_psql(
		'postgres', qq{
SET citus.override_table_visibility = off;
SELECT string_agg(c.relname || ' ' || a.amname || ' ' || array_to_string(c.reloptions, ','), ', ' ORDER BY c.relname COLLATE "C")
FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid JOIN pg_am a ON a.oid = c.relam
WHERE i.indrelid = 'dt_$moved'::regclass}),
	join(', ',
		map { "$_->[0]_$moved $_->[1] $_->[2]" } @{ $want_indexes{dt} }),
	'the moved shard\'s indexes on worker2 have their access methods and options');

check_shard_indexes('after the move');
check_every_shard_index('after the move');
check_through_functions('after the move');
my $after = check_queries('after the move');
foreach my $q (@queries)
{
	is($after->{ $q->[0] }, $before->{ $q->[0] },
		"query $q->[0] answers after the move as before");
}
is($coord->safe_psql('postgres', 'SELECT count(*) FROM dt'),
	$nrows, 'every row is still there after the move');

# the moved shard takes writes through its indexes: 200 more rows (in the
# local copy too), which queries k, t and u find
foreach my $table ('dt', 'lt')
{
	$coord->safe_psql('postgres',
		"INSERT INTO $table SELECT g, 100, 'v1', 1000000 + g FROM generate_series(5001, 5200) AS g"
	);
}
is( in_shards($use_index, 'SELECT count(*) FROM dt WHERE u > 1000000'),
	'200', 'rows inserted after the move are found through dt_osm_after');
$_->[3] += 200 foreach grep { $_->[0] =~ /^(k|t|u)$/ } @queries;
my $after_inserts = check_queries('after inserts');
check_every_shard_index('after inserts');

# ---- and back, by logical replication (force_logical, since dt has no
# replica identity; on 15.20 it needs citus in output_plugin_libraries)
$coord->safe_psql('postgres',
	    "SELECT citus_move_shard_placement($moved, '"
	  . $w2->host . "', "
	  . $w2->port . ", '"
	  . $w1->host . "', "
	  . $w1->port
	  . ", shard_transfer_mode => 'force_logical')");
$coord->safe_psql('postgres', 'CALL citus_cleanup_orphaned_resources()');
is( $coord->safe_psql('postgres',
		"SELECT nodeport FROM citus_shards WHERE shardid = $moved"),
	$w1->port,
	"shard $moved is back on worker1 after a logical move");
check_shard_indexes('after the logical move');
check_every_shard_index('after the logical move');
check_through_functions('after the logical move');
my $after_logical = check_queries('after the logical move');
foreach my $q (@queries)
{
	is($after_logical->{ $q->[0] }, $after_inserts->{ $q->[0] },
		"query $q->[0] answers after the logical move as before it");
}

# ALTER INDEX ... SET on the coordinator changes every shard index
$coord->safe_psql('postgres', 'ALTER INDEX dt_osm SET (batch_size = 600)');
$want_indexes{dt}[2][2] = 'buffer_size=8,batch_size=600';
check_shard_indexes('after ALTER INDEX dt_osm SET (batch_size = 600)');

# ALTER DATABASE ... SET and ALTER ROLE ... SET on the coordinator reach
# the workers, where new sessions (as the shards' are) start with them
$coord->safe_psql(
	'postgres', q{
ALTER DATABASE postgres SET elastic_btree.shrink_threshold = 0.85;
CREATE ROLE app LOGIN;
ALTER ROLE app SET osm_tree.flush_fraction = 0.3;
});
foreach my $w ($w1, $w2)
{
	is($w->safe_psql('postgres', 'SHOW elastic_btree.shrink_threshold'),
		'0.85', $w->name . ': ALTER DATABASE ... SET reached it');
	is( $w->safe_psql(
			'postgres', 'SHOW osm_tree.flush_fraction',
			connstr => $w->connstr('postgres') . ' user=app'),
		'0.3',
		$w->name . ': ALTER ROLE ... SET reached it');
}

done_testing();
