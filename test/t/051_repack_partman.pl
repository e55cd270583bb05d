# requires: pg_repack pg_partman
#
# pg_repack and pg_partman over elastic_btree and osm_tree indexes (both
# extensions are packaged for Debian's PostgreSQL 15 only: scripts/setup.sh
# installs them for that server, and scripts/test.sh runs this file only
# where both are installed, because of the "requires" line above).
#
# - pg_repack -t of a table (with a btree primary key, which pg_repack
#   needs) whose elastic_btree indexes have standard and compact leaves and
#   whose osm_tree indexes have entries in their insert buffers, while other
#   sessions insert: one whose transaction pg_repack waits for before it
#   swaps the tables, inserting as it waits, and a new session.  The table
#   is rewritten in the order -o names (pg_repack would follow only a btree
#   index the table is clustered on), every index keeps its access method
#   and options and the table stays clustered on ours, passes the
#   verifier and answers like a sequential scan; every row is there.  Then
#   pg_repack -x (the indexes only), with the same checks.  A table whose
#   only indexes are ours is refused (no unique key).
# - pg_partman 4.7 (native partitioning): a parent with partitioned
#   elastic_btree and osm_tree indexes with options; the children that
#   create_parent and run_maintenance make carry both with the parent's
#   options, and those made after an index was added to partman's template
#   table carry that one with its options too; retention drops old children
#   with their indexes, and what is left passes the verifier and answers
#   like a sequential scan.

use strict;
use warnings;

use FindBin;
use IPC::Run;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use lib "$FindBin::RealBin/../perl";
use ElasticIndex::Tools;

my $node = PostgreSQL::Test::Cluster->new('repack');
$node->init;
# the insert buffers keep their entries: no worker flushes them, and
# osm_tree's inserts go to the buffer rather than straight into the tree
$node->append_conf(
	'postgresql.conf', q{
shared_preload_libraries = 'elastic_index'
autovacuum = off
osm_tree.flush_worker = off
osm_tree.top_inserts = off
});
$node->start;
my $db = 'postgres';
$node->safe_psql($db, 'CREATE EXTENSION elastic_index; CREATE EXTENSION pg_repack;');

#
# pg_repack
#
my $next_id = 1;

# The next $n rows of rp, as an INSERT.
sub more_rows
{
	my ($n) = @_;
	my ($a, $b) = ($next_id, $next_id + $n - 1);
	$next_id += $n;
	return qq{INSERT INTO rp SELECT g, (g * 7919) % 5000, md5(g::text), g % 100
		FROM generate_series($a, $b) AS g};
}

$node->safe_psql($db,
	'CREATE TABLE rp (id int8 PRIMARY KEY, k int8, t text COLLATE "C", v int4)');
$node->safe_psql($db, more_rows(20000));
$node->safe_psql(
	$db, q{
CREATE INDEX rp_k ON rp USING elastic_btree (k) WITH (fillfactor = 75);
CREATE INDEX rp_id_compact ON rp USING elastic_btree (id) WITH (size_bound = '256kB');
CREATE INDEX rp_part ON rp USING elastic_btree (v) WITH (fillfactor = 60) WHERE v < 10;
CREATE INDEX rp_osm ON rp USING osm_tree (k, v) INCLUDE (t)
	WITH (fillfactor = 85, split_factor = 0.6, buffer_size = 32, batch_size = 1, bloom_bits_per_key = 6);
CREATE INDEX rp_osm_expr ON rp USING osm_tree ((k % 97)) WITH (batch_size = 1, sort_threshold = 16);
ALTER TABLE rp CLUSTER ON rp_k;
VACUUM ANALYZE rp;
SELECT elastic_btree_shrink('rp_id_compact');
});
$node->safe_psql($db, more_rows(1000));
ok( $node->safe_psql($db,
		"SELECT compact_leaf_pages FROM elastic_index_stats('rp_id_compact')") > 0,
	'rp_id_compact has compact leaves');
foreach my $index ('rp_osm', 'rp_osm_expr')
{
	ok( $node->safe_psql($db,
			"SELECT buffer_entries FROM elastic_index_stats('$index')") > 0,
		"$index has entries in its insert buffer");
}

my $c = q{SELECT count(*), md5(string_agg(id::text, ',' ORDER BY id))};
my @rp_queries = (
	[ 'rp', 'rp_k', "$c FROM rp WHERE k BETWEEN 1000 AND 1400" ],
	[ 'rp', 'rp_id_compact', "$c FROM rp WHERE id >= 15000" ],
	[ 'rp', 'rp_part', "$c FROM rp WHERE v < 10 AND v >= 7" ],
	[   'rp', 'rp_osm',
		q{SELECT count(*), md5(string_agg(t || ':' || id, ',' ORDER BY id)) FROM rp
		  WHERE k BETWEEN 3000 AND 3300 AND v = 42} ],
	[ 'rp', 'rp_osm_expr', "$c FROM rp WHERE k % 97 = 5" ],
);
my $files_q = q{SELECT string_agg(relname || ':' || relfilenode, ' ' ORDER BY relname)
	FROM pg_class WHERE relname LIKE 'rp%' AND relkind IN ('r', 'i')};
# rows of rp out of k order (of those up to id 21000: the rows inserted
# while pg_repack runs come after the copy)
my $out_of_order = q{SELECT count(*) FROM (SELECT ctid,
	row_number() OVER (ORDER BY ctid) AS heap_pos,
	row_number() OVER (ORDER BY k, ctid) AS key_pos FROM rp WHERE id <= 21000) AS s
	WHERE heap_pos <> key_pos};
my $clustered_q = q{SELECT string_agg(indexrelid::regclass::text, ' ') FROM pg_index WHERE indisclustered};
# rp's indexes: five of ours and the primary key
my $n_indexes = 5;

my $sig = ElasticIndex::Tools::index_signature($node, $db);
like($sig, qr/^rp_osm\|osm_tree\|\{fillfactor=85,split_factor=0\.6,buffer_size=32,batch_size=1,bloom_bits_per_key=6\}\|/m,
	'the signature shows rp_osm\'s access method and options');
ElasticIndex::Tools::check_all_indexes($node, $db, 'before pg_repack', $n_indexes);
my $answers_before =
  ElasticIndex::Tools::differential($node, $db, 'before pg_repack', \@rp_queries);
ok($node->safe_psql($db, $out_of_order) > 0, 'rp is not in k order before pg_repack');
my $files_before = $node->safe_psql($db, $files_q);
my $count_before = $node->safe_psql($db, 'SELECT count(*) FROM rp');

# pg_repack -t rp -o k, while session D has a transaction open (before
# pg_repack starts, touching no table).  (pg_repack orders the copy by the
# index the table is clustered on only if it is a btree index, see its view
# repack.tables: for our indexes, -o names the columns.)  It copies, then
# waits for D before it swaps; meanwhile D and a new session insert rows,
# which pg_repack's trigger logs and pg_repack applies to the new table.
my $sd = $node->background_psql($db);
$sd->query_safe('BEGIN');
$sd->query_safe('SELECT 1');
my ($out, $err) = ('', '');
my $timer = IPC::Run::timer($PostgreSQL::Test::Utils::timeout_default);
my $repack = IPC::Run::start(
	[ 'pg_repack', '-h', $node->host, '-p', $node->port, '-d', $db, '-t', 'rp', '-o', 'k' ],
	'>', \$out, '2>', \$err, $timer);
ok( pump_until($repack, $timer, \$err, qr/Waiting for \d+ transactions? to finish/),
	'pg_repack waits for the open transaction before it swaps the tables');
$sd->query_safe(more_rows(200));
$node->safe_psql($db, more_rows(200));
$sd->query_safe(more_rows(200));
$sd->query_safe('COMMIT');
$sd->quit;
ok($repack->finish, 'pg_repack -t rp -o k') or diag("$out\n$err");
unlike($err, qr/WARNING|ERROR/, 'pg_repack -t rp: no warning or error') or diag($err);

is($node->safe_psql($db, 'SELECT count(*) FROM rp'),
	$count_before + 600, 'pg_repack -t rp: the rows inserted meanwhile are there');
isnt($node->safe_psql($db, $files_q), $files_before,
	'pg_repack -t rp: the table and its indexes have new files');
is($node->safe_psql($db, $out_of_order), '0',
	'pg_repack -t rp -o k: the table is in k order');
is($node->safe_psql($db, $clustered_q), 'rp_k', 'pg_repack -t rp: rp is still clustered on rp_k');
is(ElasticIndex::Tools::index_signature($node, $db),
	$sig, 'pg_repack -t rp: every index has its access method, options and definition');
ElasticIndex::Tools::no_invalid_indexes($node, $db, 'pg_repack -t rp');
ElasticIndex::Tools::check_all_indexes($node, $db, 'pg_repack -t rp', $n_indexes);
ElasticIndex::Tools::differential($node, $db, 'pg_repack -t rp', \@rp_queries);

# pg_repack -x: the indexes only, rebuilt concurrently and swapped in
$node->safe_psql($db, more_rows(500));
$files_before = $node->safe_psql($db, $files_q);
my $table_file = $node->safe_psql($db, "SELECT relfilenode FROM pg_class WHERE relname = 'rp'");
$node->command_ok(
	[ 'pg_repack', '-h', $node->host, '-p', $node->port, '-d', $db, '-t', 'rp', '-x' ],
	'pg_repack -x -t rp');
is($node->safe_psql($db, "SELECT relfilenode FROM pg_class WHERE relname = 'rp'"),
	$table_file, 'pg_repack -x -t rp: the table keeps its file');
is( $node->safe_psql(
		$db, qq{
SELECT count(*) FROM pg_class AS c JOIN pg_index AS i ON i.indexrelid = c.oid
WHERE i.indrelid = 'rp'::regclass
  AND position(c.relname || ':' || c.relfilenode || ' ' IN '$files_before ') = 0}),
	$n_indexes + 1,
	'pg_repack -x -t rp: every index has a new file');
is(ElasticIndex::Tools::index_signature($node, $db),
	$sig, 'pg_repack -x -t rp: every index has its access method, options and definition');
ElasticIndex::Tools::no_invalid_indexes($node, $db, 'pg_repack -x -t rp');
ElasticIndex::Tools::check_all_indexes($node, $db, 'pg_repack -x -t rp', $n_indexes);
ElasticIndex::Tools::differential($node, $db, 'pg_repack -x -t rp', \@rp_queries);

# a table whose only indexes are ours has no unique key (our access
# methods cannot be unique): pg_repack refuses it and leaves it as it is
$node->safe_psql($db,
	'CREATE TABLE nokey (k int8 NOT NULL); CREATE INDEX nokey_k ON nokey USING elastic_btree (k);'
);
my $nokey_file = $node->safe_psql($db, "SELECT relfilenode FROM pg_class WHERE relname = 'nokey'");
my $nokey_out = '';
IPC::Run::run(
	[ 'pg_repack', '-h', $node->host, '-p', $node->port, '-d', $db, '-t', 'nokey' ],
	'>&', \$nokey_out);
like($nokey_out, qr/relation "public.nokey" must have a primary key or not-null unique keys/,
	'pg_repack refuses a table without a btree unique key');
is($node->safe_psql($db, "SELECT relfilenode FROM pg_class WHERE relname = 'nokey'"),
	$nokey_file, 'pg_repack leaves that table as it is');
$node->safe_psql($db, 'DROP TABLE nokey, rp');

#
# pg_partman 4.7, native partitioning by day
#
$node->safe_psql(
	$db, q{
CREATE SCHEMA partman;
CREATE EXTENSION pg_partman SCHEMA partman;
CREATE TABLE events (id int8 NOT NULL, ts timestamptz NOT NULL, k int8, v int4) PARTITION BY RANGE (ts);
CREATE INDEX events_k ON events USING elastic_btree (k) WITH (fillfactor = 80, size_bound = '16MB');
CREATE INDEX events_kv ON events USING osm_tree (k, v) INCLUDE (id)
	WITH (split_factor = 0.7, buffer_size = 32, batch_size = 1);
SELECT partman.create_parent('public.events', 'ts', 'native', 'daily', p_premake := 3,
	p_start_partition := (current_date - 5)::text);
});

# every partition of events with its indexes, in name order: "child:
# parent index or 'own', access method, options; ..."
my $children_q = q{
SELECT string_agg(x.child || ': ' || x.indexes, E'\n' ORDER BY x.child) FROM (
	SELECT h.inhrelid::regclass::text AS child,
		   (SELECT string_agg(
				coalesce((SELECT p.inhparent::regclass::text FROM pg_inherits AS p WHERE p.inhrelid = c.oid),
						 'own') || ' ' || a.amname || ' ' || coalesce(c.reloptions::text, '-'), '; '
				ORDER BY c.relname)
			FROM pg_index AS i JOIN pg_class AS c ON c.oid = i.indexrelid
			JOIN pg_am AS a ON a.oid = c.relam WHERE i.indrelid = h.inhrelid) AS indexes
	FROM pg_inherits AS h WHERE h.inhparent = 'events'::regclass) AS x};
my $parent_indexes =
  'events_k elastic_btree {fillfactor=80,size_bound=16MB}; events_kv osm_tree {split_factor=0.7,buffer_size=32,batch_size=1}';
my $template_index = 'own osm_tree {fillfactor=75,buffer_size=8}';

# The partitions of events, as a hash from name to its indexes.
sub children
{
	my %children = map { split /: /, $_, 2 }
	  split /\n/, $node->safe_psql($db, $children_q);
	return \%children;
}

my $first = children();
# 5 days back, today, 3 days ahead, and the default partition
is(scalar(keys %$first), 10, 'create_parent made 10 partitions');
foreach my $child (sort keys %$first)
{
	is($first->{$child}, $parent_indexes,
		"create_parent: $child has the parent's indexes with their options");
}

# rows for every day from 5 days back to 3 days ahead
$node->safe_psql(
	$db, q{
INSERT INTO events SELECT g, current_date - 5 + (g % 9) + (g % 1440) * interval '1 minute',
	(g * 7919) % 5000, g % 50 FROM generate_series(1, 18000) AS g;
});

# an index on partman's template table: the children made from now on get
# it with its options, the others do not
$node->safe_psql(
	$db, q{
CREATE INDEX ON partman.template_public_events USING osm_tree (v) WITH (fillfactor = 75, buffer_size = 8);
UPDATE partman.part_config SET premake = 6, infinite_time_partitions = true
WHERE parent_table = 'public.events';
SELECT partman.run_maintenance();
});
my $second = children();
my @new = sort grep { !exists $first->{$_} } keys %$second;
ok(scalar(@new) >= 3, 'run_maintenance made partitions for the next days');
foreach my $child (sort keys %$second)
{
	is( $second->{$child},
		exists $first->{$child} ? $parent_indexes : "$parent_indexes; $template_index",
		"run_maintenance: $child has "
		  . (exists $first->{$child} ? "the parent's indexes" : "the parent's and the template's indexes")
		  . ' with their options');
}

# rows in the new partitions, some in the osm_tree indexes' buffers
$node->safe_psql(
	$db, q{
INSERT INTO events SELECT g, current_date + 4 + (g % 3) + (g % 1440) * interval '1 minute',
	(g * 7919) % 5000, g % 50 FROM generate_series(18001, 21000) AS g;
});
my $new_child = $new[0];
my $new_child_v = $node->safe_psql($db,
	"SELECT indexrelid::regclass FROM pg_index WHERE indrelid = '$new_child'::regclass AND indkey::text = '4'");
ok( $node->safe_psql($db,
		"SELECT buffer_entries FROM elastic_index_stats('$new_child_v')") > 0,
	"$new_child_v has entries in its insert buffer");

my @ev_queries = (
	[   'events', 'events_k', "$c FROM events WHERE k BETWEEN 1000 AND 1300",
		qr/Index (?:Only )?Scan using events_p\w+_k_idx on events_p/ ],
	[   'events', 'events_kv', "$c FROM events WHERE k BETWEEN 2000 AND 2100 AND v = 7",
		qr/Index (?:Only )?Scan using events_p\w+_k_v_id_idx on events_p/ ],
	[ $new_child, $new_child_v, "$c FROM $new_child WHERE v BETWEEN 10 AND 12" ],
);

# The checks after a maintenance step: every index passes the verifier,
# none is invalid, the queries answer like sequential scans.
sub check_events
{
	my ($label, $children) = @_;
	my $n = 0;
	$n += ($children->{$_} =~ tr/;//) + 1 for keys %$children;
	ElasticIndex::Tools::no_invalid_indexes($node, $db, $label);
	ElasticIndex::Tools::check_all_indexes($node, $db, $label, $n);
	ElasticIndex::Tools::differential($node, $db, $label, \@ev_queries);
	return;
}
check_events('pg_partman', $second);

# retention: run_maintenance drops the partitions older than 2 days, with
# their indexes
my %rows = map { split /\|/ } split /\n/,
  $node->safe_psql($db, 'SELECT tableoid::regclass, count(*) FROM events GROUP BY 1');
my $total = $node->safe_psql($db, 'SELECT count(*) FROM events');
$node->safe_psql(
	$db, q{
UPDATE partman.part_config SET retention = '2 days', retention_keep_table = false
WHERE parent_table = 'public.events';
SELECT partman.run_maintenance();
});
my $third = children();
my @dropped = sort grep { !exists $third->{$_} } keys %$second;
ok(scalar(@dropped) >= 2, 'retention dropped the oldest partitions: ' . join(' ', @dropped));
my $dropped_rows = 0;
$dropped_rows += $rows{$_} // 0 for @dropped;
ok($dropped_rows > 0, 'the dropped partitions had rows');
is($node->safe_psql($db, 'SELECT count(*) FROM events'),
	$total - $dropped_rows, 'retention: the rows of the other partitions are all there');
foreach my $child (@dropped)
{
	is($node->safe_psql($db, "SELECT count(*) FROM pg_class WHERE relname LIKE '${child}%'"),
		'0', "retention: $child and its indexes are gone");
}
foreach my $child (sort keys %$third)
{
	is($third->{$child}, $second->{$child}, "retention: $child keeps its indexes and their options");
}
check_events('pg_partman retention', $third);

$node->stop;
done_testing();
