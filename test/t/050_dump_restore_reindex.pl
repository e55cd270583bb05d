# The tools a DBA runs over elastic_btree and osm_tree indexes keep their
# access method and storage parameters, and leave indexes that pass the
# verifier and answer like a sequential scan:
#
# - pg_dump -Fc with pg_restore, and plain pg_dump replayed by psql, of a
#   database with indexes of both kinds with non-default options:
#   multi-column, INCLUDE, partial and expression indexes, exclusion
#   constraints, an elastic_btree index with compact leaves, osm_tree
#   indexes with entries in their insert buffers, and partitioned indexes
#   (one partition's index attached by ATTACH PARTITION);
# - REINDEX INDEX CONCURRENTLY and REINDEX TABLE CONCURRENTLY while other
#   sessions insert: one whose transaction the REINDEX waits for before it
#   builds the new index, one it waits for before validating it, and new
#   sessions inserting at both waits (the latter into the new, ready index);
# - CLUSTER through elastic_btree and osm_tree indexes (always by index
#   scan: PostgreSQL sorts only for btree), the osm_tree one with entries
#   in its insert buffer;
# - ATTACH PARTITION of tables whose indexes match the partitioned
#   indexes: they are attached, not rebuilt.
#
# Each phase is made to happen by locks the sessions hold, never by time.

use strict;
use warnings;

use FindBin;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use lib "$FindBin::RealBin/../perl";
use ElasticIndex::Tools;

my $node = PostgreSQL::Test::Cluster->new('tools');
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
$node->safe_psql('postgres', 'CREATE DATABASE src');

# rows a..b of each table; every batch of inserts below uses fresh ids
my %rows = (
	items => sub {
		my ($a, $b) = @_;
		return qq{INSERT INTO items SELECT g, (g * 7919) % 5000, md5(g::text), g % 100,
			'2024-01-01'::timestamptz + g * interval '1 minute'
			FROM generate_series($a, $b) AS g};
	},
	events => sub {
		my ($a, $b) = @_;
		return qq{INSERT INTO events SELECT g, (g::int8 * 104729) % 20000, g % 50, 'n' || (g % 1000)
			FROM generate_series($a, $b) AS g};
	},
	parted => sub {
		my ($a, $b) = @_;
		return qq{INSERT INTO parted SELECT '2024-01-01'::date + (g % 90), (g * 7919) % 5000, g
			FROM generate_series($a, $b) AS g};
	});
my %next_id = (items => 20001, events => 20001, parted => 9001);

# The next $n rows of a table, as an INSERT.
sub more_rows
{
	my ($table, $n) = @_;
	my $a = $next_id{$table};
	$next_id{$table} += $n;
	return $rows{$table}->($a, $a + $n - 1);
}

$node->safe_psql(
	'src', q{
CREATE EXTENSION elastic_index;
CREATE TABLE items (id int4 NOT NULL, k int8, t text COLLATE "C", v int4, ts timestamptz);
CREATE TABLE events (id int8 NOT NULL, k int8, v int4, note text);
CREATE TABLE parted (d date, k int8, v int4) PARTITION BY RANGE (d);
CREATE TABLE parted_1 PARTITION OF parted FOR VALUES FROM ('2024-01-01') TO ('2024-02-01');
CREATE TABLE slots (room int4, slot int4,
	EXCLUDE USING elastic_btree (room WITH =, slot WITH =) WITH (fillfactor = 75));
CREATE TABLE oslots (room int4, slot int4,
	EXCLUDE USING osm_tree (room WITH =, slot WITH =) WITH (split_factor = 0.8, buffer_size = 8));
INSERT INTO slots SELECT r, s FROM generate_series(1, 50) AS r, generate_series(1, 40) AS s;
INSERT INTO oslots SELECT r, s FROM generate_series(1, 50) AS r, generate_series(1, 40) AS s;
});
$node->safe_psql('src', $rows{items}->(1, 20000));
$node->safe_psql('src', $rows{events}->(1, 20000));
$node->safe_psql('src',
	q{INSERT INTO parted SELECT '2024-01-01'::date + (g % 31), (g * 7919) % 5000, g FROM generate_series(1, 3000) AS g}
);
$node->safe_psql(
	'src', q{
CREATE INDEX items_k ON items USING elastic_btree (k) WITH (fillfactor = 70, size_bound = '2MB');
CREATE INDEX items_v_ts ON items USING elastic_btree (v, ts DESC) WITH (fillfactor = 85);
CREATE INDEX items_t_incl ON items USING elastic_btree (t) INCLUDE (v, id) WITH (size_bound = '50%');
CREATE INDEX items_ts_part ON items USING elastic_btree (ts) WITH (fillfactor = 60) WHERE v < 10;
CREATE INDEX items_expr ON items USING elastic_btree ((k % 97), lower(t));
CREATE INDEX items_id_compact ON items USING elastic_btree (id) WITH (size_bound = '256kB');
CREATE INDEX events_k ON events USING osm_tree (k) WITH (fillfactor = 80, split_factor = 0.6,
	buffer_size = 64, batch_size = 1, bloom_bits_per_key = 12, sort_threshold = 32, flush_fraction = 0.3);
CREATE INDEX events_k_v ON events USING osm_tree (k, v) INCLUDE (note) WITH (buffer_size = 16, batch_size = 1);
CREATE INDEX events_part ON events USING osm_tree (v) WITH (fillfactor = 70) WHERE k < 2000;
CREATE INDEX events_expr ON events USING osm_tree ((id % 1000)) WITH (split_factor = 0.9, batch_size = 1);
CREATE INDEX parted_k ON parted USING elastic_btree (k) WITH (size_bound = '8MB');
CREATE INDEX parted_ko ON parted USING osm_tree (k, d) WITH (buffer_size = 16, split_factor = 0.8);
VACUUM ANALYZE;
});

# ATTACH PARTITION: parted_2's two indexes match the partitioned ones and
# are attached as they are; parted_3's elastic_btree index matches but for
# its size bound, which PostgreSQL does not compare (CompareIndexInfo), so
# it is attached too, keeping its own; its osm_tree index is made by the
# ATTACH, with the partitioned index's options.
$node->safe_psql(
	'src', q{
CREATE TABLE parted_2 (LIKE parted);
CREATE TABLE parted_3 (LIKE parted);
INSERT INTO parted_2 SELECT '2024-02-01'::date + (g % 29), (g * 7919) % 5000, g FROM generate_series(3001, 6000) AS g;
INSERT INTO parted_3 SELECT '2024-03-01'::date + (g % 31), (g * 7919) % 5000, g FROM generate_series(6001, 9000) AS g;
CREATE INDEX parted_2_k ON parted_2 USING elastic_btree (k) WITH (size_bound = '8MB');
CREATE INDEX parted_2_ko ON parted_2 USING osm_tree (k, d) WITH (buffer_size = 16, split_factor = 0.8);
CREATE INDEX parted_3_k ON parted_3 USING elastic_btree (k) WITH (size_bound = '4MB');
VACUUM ANALYZE parted_2, parted_3;
});
my $files_q = q{SELECT string_agg(relname || ':' || oid || ':' || relfilenode, ' ' ORDER BY relname)
	FROM pg_class WHERE relname IN ('parted_2_k', 'parted_2_ko', 'parted_3_k')};
my $files_before = $node->safe_psql('src', $files_q);
$node->safe_psql(
	'src', q{
ALTER TABLE parted ATTACH PARTITION parted_2 FOR VALUES FROM ('2024-02-01') TO ('2024-03-01');
ALTER TABLE parted ATTACH PARTITION parted_3 FOR VALUES FROM ('2024-03-01') TO ('2024-04-01');
});
is($node->safe_psql('src', $files_q),
	$files_before, 'ATTACH PARTITION: the matching indexes keep their OIDs and files');
is( $node->safe_psql(
		'src', q{
SELECT string_agg(inhrelid::regclass || '->' || inhparent::regclass, ' ' ORDER BY inhrelid::regclass::text)
FROM pg_inherits WHERE inhparent IN ('parted_k'::regclass, 'parted_ko'::regclass)}),
	'parted_1_k_d_idx->parted_ko parted_1_k_idx->parted_k parted_2_k->parted_k parted_2_ko->parted_ko parted_3_k->parted_k parted_3_k_d_idx->parted_ko',
	'ATTACH PARTITION: the indexes are partitions of the partitioned indexes');
is( $node->safe_psql(
		'src', q{
SELECT string_agg(c.relname || ' ' || a.amname || ' ' || c.reloptions::text, '; ' ORDER BY c.relname)
FROM pg_index AS i JOIN pg_class AS c ON c.oid = i.indexrelid JOIN pg_am AS a ON a.oid = c.relam
WHERE i.indrelid = 'parted_3'::regclass}),
	'parted_3_k elastic_btree {size_bound=4MB}; parted_3_k_d_idx osm_tree {buffer_size=16,split_factor=0.8}',
	'ATTACH PARTITION: the attached index keeps its size bound, the one made takes the partitioned index\'s options'
);

# an elastic_btree index with compact leaves (its index is above its size
# bound, so VACUUM leaves them compact), and osm_tree indexes with entries
# in their insert buffers
$node->safe_psql('src', 'SELECT elastic_btree_shrink(\'items_id_compact\')');
$node->safe_psql('src', 'ALTER TABLE items CLUSTER ON items_k');
$node->safe_psql('src', more_rows('events', 2000));
$node->safe_psql('src', more_rows('parted', 300));
ok( $node->safe_psql('src',
		"SELECT compact_leaf_pages FROM elastic_index_stats('items_id_compact')") > 0,
	'source: items_id_compact has compact leaves');
foreach my $index ('events_k', 'events_k_v', 'events_expr')
{
	ok( $node->safe_psql('src',
			"SELECT buffer_entries FROM elastic_index_stats('$index')") > 0,
		"source: $index has entries in its insert buffer");
}

# the queries of the differential checks, each through one index
my $c = q{SELECT count(*), md5(string_agg(id::text, ',' ORDER BY id))};
my @queries = (
	[ 'items', 'items_k', "$c FROM items WHERE k BETWEEN 1000 AND 1400" ],
	[ 'items', 'items_v_ts', "$c FROM items WHERE v = 7 AND ts < '2024-01-10'" ],
	[   'items', 'items_t_incl',
		q{SELECT count(*), md5(string_agg(t || ':' || v || ':' || id, ',' ORDER BY t, id))
		  FROM items WHERE t >= 'a' AND t < 'b'} ],
	[ 'items', 'items_ts_part', "$c FROM items WHERE v < 10 AND ts >= '2024-01-05'" ],
	[ 'items', 'items_expr', "$c FROM items WHERE k % 97 = 5 AND lower(t) > '8'" ],
	[ 'items', 'items_id_compact', "$c FROM items WHERE id >= 15000" ],
	[ 'events', 'events_k', "$c FROM events WHERE k BETWEEN 100 AND 900" ],
	[ 'events', 'events_k_v', "$c FROM events WHERE k BETWEEN 5000 AND 6000 AND v = 3" ],
	[ 'events', 'events_part', "$c FROM events WHERE k < 2000 AND v BETWEEN 10 AND 12" ],
	[ 'events', 'events_expr', "$c FROM events WHERE id % 1000 = 77" ],
	[   'slots', 'slots_room_slot_excl',
		q{SELECT count(*), md5(string_agg(room || ':' || slot, ',' ORDER BY slot)) FROM slots WHERE room = 7} ],
	[   'oslots', 'oslots_room_slot_excl',
		q{SELECT count(*), md5(string_agg(room || ':' || slot, ',' ORDER BY slot)) FROM oslots WHERE room = 7} ],
	[   'parted', 'parted_k',
		q{SELECT count(*), md5(string_agg(v::text, ',' ORDER BY v)) FROM parted WHERE k BETWEEN 100 AND 400},
		qr/using parted_1_k_idx on parted_1\b.*using parted_2_k on parted_2\b.*using parted_3_k on parted_3\b/s ],
	[   'parted', 'parted_ko',
		q{SELECT count(*), md5(string_agg(v::text, ',' ORDER BY v)) FROM parted WHERE k BETWEEN 3000 AND 3100},
		qr/using parted_1_k_d_idx on parted_1\b.*using parted_2_ko on parted_2\b.*using parted_3_k_d_idx on parted_3\b/s ],
);
# every index of ours that has pages: 6 on items, 4 on events, 2 for the
# exclusion constraints, 2 on each partition
my $n_indexes = 18;

my $src_sig = ElasticIndex::Tools::index_signature($node, 'src');
# the signature does say what each index is
like($src_sig,
	qr/^events_k\|osm_tree\|\{fillfactor=80,split_factor=0\.6,buffer_size=64,batch_size=1,bloom_bits_per_key=12,sort_threshold=32,flush_fraction=0\.3\}\|CREATE INDEX events_k ON public\.events USING osm_tree \(k\) WITH \(/m,
	'source: the signature shows events_k\'s access method and options');
like($src_sig,
	qr/^items_id_compact\|elastic_btree\|\{size_bound=256kB\}\|/m,
	'source: the signature shows items_id_compact\'s access method and options');
is( $node->safe_psql(
		'src', q{
SELECT string_agg(a.amname || ':' || n, ' ' ORDER BY a.amname) FROM (
	SELECT c.relam, count(*) AS n FROM pg_class AS c
	JOIN pg_namespace AS s ON s.oid = c.relnamespace
	WHERE s.nspname = 'public' AND c.relkind IN ('i', 'I') GROUP BY c.relam) AS x
JOIN pg_am AS a ON a.oid = x.relam}),
	'elastic_btree:11 osm_tree:9',
	'source: 11 elastic_btree and 9 osm_tree indexes, partitioned ones included');
my $clustered_q = q{SELECT string_agg(indexrelid::regclass::text, ' ') FROM pg_index WHERE indisclustered};
is($node->safe_psql('src', $clustered_q), 'items_k', 'source: items is clustered on items_k');
ElasticIndex::Tools::check_all_indexes($node, 'src', 'source', $n_indexes);
my $src_answers =
  ElasticIndex::Tools::differential($node, 'src', 'source', \@queries);

# A conflicting row is refused by each exclusion constraint.
sub exclusion_holds
{
	my ($db, $label) = @_;
	foreach my $t ('slots', 'oslots')
	{
		my ($ret, $out, $err) =
		  $node->psql($db, "INSERT INTO $t VALUES (7, 3)");
		like(
			$err,
			qr/conflicting key value violates exclusion constraint "${t}_room_slot_excl"/,
			"$label: ${t}'s exclusion constraint refuses a conflicting row");
	}
	return;
}
exclusion_holds('src', 'source');

# pg_dump -Fc and pg_restore; plain pg_dump replayed by psql
my $tmp = PostgreSQL::Test::Utils::tempdir;
$node->command_ok(
	[ 'pg_dump', '-Fc', '-f', "$tmp/src.dump", '-d', 'src' ],
	'pg_dump -Fc');
$node->safe_psql('postgres', 'CREATE DATABASE restored_c');
$node->command_ok(
	[ 'pg_restore', '--exit-on-error', '-d', 'restored_c', "$tmp/src.dump" ],
	'pg_restore');
$node->command_ok([ 'pg_dump', '-f', "$tmp/src.sql", '-d', 'src' ],
	'pg_dump, plain format');
$node->safe_psql('postgres', 'CREATE DATABASE restored_p');
$node->command_ok(
	[   'psql', '-X', '-q', '-v', 'ON_ERROR_STOP=1', '-d', 'restored_p', '-f',
		"$tmp/src.sql" ],
	'the plain dump replayed by psql');

foreach my $db ('restored_c', 'restored_p')
{
	is(ElasticIndex::Tools::index_signature($node, $db),
		$src_sig, "$db: every index has the source's access method, options and definition");
	is($node->safe_psql($db, $clustered_q), 'items_k', "$db: items is clustered on items_k");
	ElasticIndex::Tools::check_all_indexes($node, $db, $db, $n_indexes);
	my $answers =
	  ElasticIndex::Tools::differential($node, $db, $db, \@queries);
	is_deeply($answers, $src_answers, "$db: every query answers as in the source");
	exclusion_holds($db, $db);
	# compact leaves are a state of the pages, not part of the definition
	# (docs/operations.md): the restored index is built again under its
	# bound, which its standard leaves would not fit, so with compact ones
	is( $node->safe_psql($db,
			"SELECT elastic_state || ' ' || (compact_leaf_pages > 0) FROM elastic_index_stats('items_id_compact')"),
		'shrinking true', "$db: items_id_compact is built compact under its bound");
}

# the comparison sees a lost option
$node->safe_psql('restored_p', 'ALTER INDEX events_k RESET (split_factor)');
isnt(ElasticIndex::Tools::index_signature($node, 'restored_p'),
	$src_sig, 'the signatures differ once an index lost an option');

# REINDEX ... CONCURRENTLY while other sessions insert into the table.
#
# Session A inserts in a transaction that the REINDEX waits for once it
# has made its new indexes (not ready yet); meanwhile session D starts a
# transaction and inserts, another session inserts and commits, and A
# inserts again and commits.  The REINDEX then builds the new indexes and
# waits for D before validating them; meanwhile a new session inserts
# (into the new indexes too, which are ready now) and D inserts again and
# commits.  The REINDEX's validation adds what its build did not see.
sub reindex_with_inserts
{
	my ($stmt, $table) = @_;
	my $sa = $node->background_psql('src');
	my $sd = $node->background_psql('src');
	my $sr = $node->background_psql('src');
	my $rpid = $sr->query_safe('SELECT pg_backend_pid()');
	# (without the NOTICE that items_expr keeps standard leaves)
	$sr->query_safe('SET client_min_messages = warning');
	my $new_indexes = q{FROM pg_index AS i JOIN pg_class AS c ON c.oid = i.indexrelid
		WHERE c.relname LIKE '%\_ccnew%'};

	$sa->query_safe('BEGIN');
	$sa->query_safe(more_rows($table, 200));
	$sr->query_until(qr/reindex_started/,
		"\\echo reindex_started\n$stmt;\n");
	# waiting for A, with its new indexes made but not ready
	$node->poll_query_until(
		'src', qq{
SELECT EXISTS (SELECT 1 FROM pg_locks WHERE pid = $rpid AND NOT granted)
   AND (SELECT count(*) > 0 AND bool_and(NOT indisready) $new_indexes)})
	  or die "$stmt did not wait for the inserting transaction";
	$sd->query_safe('BEGIN');
	$sd->query_safe(more_rows($table, 200));
	$node->safe_psql('src', more_rows($table, 200));
	$sa->query_safe(more_rows($table, 200));
	$sa->query_safe('COMMIT');
	# waiting for D, with its new indexes built and ready, not yet valid
	$node->poll_query_until(
		'src', qq{
SELECT EXISTS (SELECT 1 FROM pg_locks WHERE pid = $rpid AND NOT granted)
   AND (SELECT count(*) > 0 AND bool_and(indisready) AND NOT bool_or(indisvalid) $new_indexes)})
	  or die "$stmt did not wait before validating";
	my $new_entries = q{SELECT sum(s.entries + coalesce(s.buffer_entries, 0))
		FROM (SELECT c.oid FROM pg_class AS c JOIN pg_am AS a ON a.oid = c.relam
			  WHERE c.relname LIKE '%\_ccnew%' AND a.amname IN ('elastic_btree', 'osm_tree')
			  OFFSET 0) AS n, elastic_index_stats(n.oid) AS s};
	my $entries_before = $node->safe_psql('src', $new_entries);
	$node->safe_psql('src', more_rows($table, 200));
	ok($node->safe_psql('src', $new_entries) > $entries_before,
		"$stmt: a new session's inserts went into the new, ready indexes");
	$sd->query_safe(more_rows($table, 200));
	$sd->query_safe('COMMIT');
	# the REINDEX has ended once the session answers again
	$sr->query_safe('SELECT 1');
	$_->quit for ($sa, $sd, $sr);
	return;
}

# The table's row count, and the checks every tool must pass: the same
# signature as before, no invalid index, the verifier, the differential
# queries.
sub check_after
{
	my ($label, $sig_before) = @_;
	is(ElasticIndex::Tools::index_signature($node, 'src'),
		$sig_before, "$label: every index has its access method, options and definition");
	ElasticIndex::Tools::no_invalid_indexes($node, 'src', $label);
	ElasticIndex::Tools::check_all_indexes($node, 'src', $label, $n_indexes);
	ElasticIndex::Tools::differential($node, 'src', $label, \@queries);
	return;
}

foreach my $r (
	[ 'REINDEX INDEX CONCURRENTLY items_id_compact', 'items' ],
	[ 'REINDEX INDEX CONCURRENTLY events_k', 'events' ],
	[ 'REINDEX TABLE CONCURRENTLY items', 'items' ],
	[ 'REINDEX TABLE CONCURRENTLY events', 'events' ],
	[ 'REINDEX INDEX CONCURRENTLY parted_2_ko', 'parted' ],
	[ 'REINDEX TABLE CONCURRENTLY parted', 'parted', 'alone' ])
{
	my ($stmt, $table, $alone) = @$r;
	my $count_q = "SELECT count(*) FROM $table";
	my $before = $node->safe_psql('src', $count_q);
	my $oids_q = qq{SELECT string_agg(indexrelid::text, ' ' ORDER BY indexrelid::regclass::text)
		FROM pg_index WHERE indrelid IN (SELECT '$table'::regclass UNION ALL
			SELECT inhrelid FROM pg_inherits WHERE inhparent = '$table'::regclass)};
	my $oids_before = $node->safe_psql('src', $oids_q);
	my $sig = ElasticIndex::Tools::index_signature($node, 'src');
	if ($alone)
	{
		# a partitioned table's partitions are first share-locked all
		# together (ReindexPartitions), so the REINDEX waits for every
		# writer before it makes a new index: no session inserts meanwhile
		$node->safe_psql('src', more_rows($table, 1200));
		$node->safe_psql('src', $stmt);
	}
	else
	{
		reindex_with_inserts($stmt, $table);
	}
	is($node->safe_psql('src', $count_q),
		$before + 1200, "$stmt: the table has the 1200 rows inserted meanwhile");
	isnt($node->safe_psql('src', $oids_q),
		$oids_before, "$stmt: new indexes replaced the old ones");
	check_after($stmt, $sig);
}

# an exclusion constraint's index is not reindexed concurrently; a plain
# REINDEX rebuilds it
foreach my $t ('slots', 'oslots')
{
	my ($ret, $out, $err) =
	  $node->psql('src', "REINDEX TABLE CONCURRENTLY $t");
	like(
		$err,
		qr/cannot reindex exclusion constraint index "public.${t}_room_slot_excl" concurrently, skipping/,
		"REINDEX TABLE CONCURRENTLY $t skips the exclusion constraint's index");
	$node->safe_psql('src', "REINDEX TABLE $t");
}
check_after('REINDEX TABLE slots, oslots',
	ElasticIndex::Tools::index_signature($node, 'src'));
exclusion_holds('src', 'after REINDEX');

# CLUSTER through an index: the table ends in the index's order, with all
# its rows, and every index is rebuilt with its options.  PostgreSQL reads
# any index but a btree one by an index scan (it plans a sequential scan
# and sort only for btree, in copy_table_data), even with index scans off;
# through an osm_tree index, the entries in its insert buffer included.
foreach my $cl (
	[ 'items', 'items_k', 'k', '' ],
	[ 'events', 'events_k', 'k', '' ],
	[ 'items', 'items_v_ts', 'v, ts DESC', 'SET enable_indexscan = off;' ])
{
	my ($table, $index, $order, $set) = @$cl;
	my $how = qq{using index scan on "$index"};
	$node->safe_psql('src', more_rows($table, 500));
	if ($table eq 'events')
	{
		ok( $node->safe_psql('src',
				"SELECT buffer_entries FROM elastic_index_stats('events_k')") > 0,
			'events_k has entries in its insert buffer before CLUSTER');
	}
	my $out_of_order = qq{SELECT count(*) FROM (SELECT ctid,
		row_number() OVER (ORDER BY ctid) AS heap_pos,
		row_number() OVER (ORDER BY $order, ctid) AS key_pos FROM $table) AS s
		WHERE heap_pos <> key_pos};
	ok($node->safe_psql('src', $out_of_order) > 0,
		"$table is not in the order of $index before CLUSTER");
	my $count = $node->safe_psql('src', "SELECT count(*) FROM $table");
	my $sig = ElasticIndex::Tools::index_signature($node, 'src');
	my ($ret, $out, $err) =
	  $node->psql('src', "$set CLUSTER VERBOSE $table USING $index");
	is($ret, 0, "CLUSTER $table USING $index") or diag($err);
	like($err, qr/clustering "public.$table" \Q$how\E/,
		"CLUSTER $table USING $index: $how");
	is($node->safe_psql('src', $out_of_order),
		'0', "CLUSTER $table USING $index: the table is in the index's order");
	is($node->safe_psql('src', "SELECT count(*) FROM $table"),
		$count, "CLUSTER $table USING $index: every row is kept");
	check_after("CLUSTER $table USING $index", $sig);
}

$node->stop;
done_testing();
