# Streaming replication: indexes built and changed on a primary (inserts
# that split every level and add new roots, deletes, VACUUM with page
# deletion) are replayed on a hot standby, which answers the same queries,
# forced through the indexes, with the same results, also while replay is
# going on, also when compact leaves hold entries of pruned heap tuples.
# After promotion the standby's indexes pass elastic_index_check
# and take new inserts.

use strict;
use warnings;

use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use FindBin;
use lib "$FindBin::RealBin/../perl";
use ElasticIndex::Damage;

my $primary = PostgreSQL::Test::Cluster->new('primary');
$primary->init(allows_streaming => 1);
$primary->append_conf(
	'postgresql.conf', qq{
shared_preload_libraries = 'elastic_index'
autovacuum = off
});
$primary->start;
$primary->safe_psql('postgres', 'CREATE EXTENSION elastic_index');

$primary->backup('bkp');
my $standby = PostgreSQL::Test::Cluster->new('standby');
$standby->init_from_backup($primary, 'bkp', has_streaming => 1);
# the library must be preloaded on the standby too (the configuration
# comes with the backup, but say so explicitly)
$standby->append_conf(
	'postgresql.conf', qq{
shared_preload_libraries = 'elastic_index'
hot_standby = on
max_standby_streaming_delay = -1
# the damage test below changes a page without its checksum (on from 18)
ignore_checksum_failure = on
});
$standby->start;

# an index built by CREATE INDEX, and indexes that start empty and grow
# by inserts: ~400-byte keys make a tree several levels high quickly
$primary->safe_psql(
	'postgres', q{
CREATE TABLE t (id int4, k int4, w text);
INSERT INTO t SELECT g, g % 1000, lpad(g::text, 8, '0') || repeat(md5(g::text), 12)
FROM generate_series(1, 5000) AS g;
CREATE INDEX t_k ON t USING elastic_btree (k);
CREATE INDEX t_w ON t USING elastic_btree (w);
CREATE INDEX t_kid ON t USING elastic_btree (k DESC, id);
CREATE UNLOGGED TABLE u (k int4);
CREATE INDEX u_k ON u USING elastic_btree (k);
INSERT INTO u SELECT g FROM generate_series(1, 1000) AS g;
});

# queries forced through the indexes; each prints one line
my $force = q{
SET enable_seqscan = off; SET enable_bitmapscan = off; SET enable_sort = off;
SET max_parallel_workers_per_gather = 0;
};
my @queries = (
	q{SELECT count(*), sum(k), md5(string_agg(id::text, ',')) FROM (SELECT k, id FROM t ORDER BY k DESC, id) AS s},
	q{SELECT count(*), md5(string_agg(left(w, 8), ',')) FROM (SELECT w FROM t ORDER BY w) AS s},
	q{SELECT count(*), md5(string_agg(left(w, 8), ',')) FROM (SELECT w FROM t ORDER BY w DESC) AS s},
	q{SELECT count(*), md5(string_agg(left(w, 8), ',')) FROM (SELECT w FROM t WHERE w > '0001' AND w < '0003' ORDER BY w) AS s},
	q{SELECT count(*), sum(id) FROM t WHERE k = 7},
	q{SELECT count(*), sum(id) FROM t WHERE k BETWEEN 100 AND 120},
	q{SELECT min(w) = (SELECT min(w) FROM t), max(k) FROM t},
);

# compare every query on both nodes (and with a sequential scan on the
# primary for the first ones)
sub compare_nodes
{
	my ($label) = @_;
	$primary->wait_for_catchup($standby, 'replay', $primary->lsn('insert'));
	foreach my $q (@queries)
	{
		my $p = $primary->safe_psql('postgres', $force . $q);
		my $s = $standby->safe_psql('postgres', $force . $q);
		is($s, $p, "$label: standby matches primary: $q");
	}
	my $noindex = q{
SET enable_indexscan = off; SET enable_indexonlyscan = off; SET enable_bitmapscan = off;
};
	is( $primary->safe_psql('postgres', $noindex . $queries[1]),
		$primary->safe_psql('postgres', $force . $queries[1]),
		"$label: index order matches a sort");
	return;
}

compare_nodes('after the build');

# grow the tree: random and ascending keys, several levels, new roots
$primary->safe_psql(
	'postgres', q{
INSERT INTO t SELECT g, (g * 7919) % 1000, lpad(((g * 7919) % 100000)::text, 8, '0') || repeat(md5(g::text), 12)
FROM generate_series(5001, 25000) AS g;
});
my $height = $primary->safe_psql('postgres',
	"SELECT height FROM elastic_index_stats('t_w')");
cmp_ok($height, '>=', 3, "t_w is $height levels high");
compare_nodes('after inserts');

# standby queries while the primary inserts: run a batch on the primary in
# the background and keep querying the standby meanwhile
my $bg = $primary->background_psql('postgres');
$bg->query_until(qr/started/, q{
\echo started
INSERT INTO t SELECT g, g % 1000, lpad((100000 + g)::text, 8, '0') || repeat(md5(g::text), 12)
FROM generate_series(25001, 45000) AS g;
});
my $errors = 0;
for (my $i = 0; $i < 30; $i++)
{
	my ($ret, $out, $err) = $standby->psql('postgres',
		$force . 'SELECT count(*) FROM (SELECT w FROM t ORDER BY w DESC) AS s');
	$errors++ if $ret != 0;
	diag($err) if $ret != 0;
}
is($errors, 0, 'standby scans during replay of splits succeed');
$bg->quit;
compare_nodes('after concurrent inserts');

# deletes and VACUUM: emptied leaves are deleted
$primary->safe_psql(
	'postgres', q{
DELETE FROM t WHERE id % 3 = 0;
DELETE FROM t WHERE id BETWEEN 10000 AND 20000;
VACUUM t;
});
my $deleted = $primary->safe_psql('postgres',
	"SELECT deleted_pages + half_dead_pages FROM elastic_index_stats('t_w')");
cmp_ok($deleted, '>', 0, "VACUUM deleted $deleted pages of t_w");
compare_nodes('after VACUUM');

# refill the freed key range (pages are recycled) and VACUUM again
$primary->safe_psql(
	'postgres', q{
INSERT INTO t SELECT g, g % 1000, lpad(g::text, 8, '0') || repeat(md5(g::text), 12)
FROM generate_series(10000, 20000) AS g;
DELETE FROM t WHERE id % 5 = 0;
VACUUM t;
INSERT INTO t SELECT g, g % 1000, lpad(g::text, 8, '0') || repeat(md5(g::text), 11)
FROM generate_series(1, 3000) AS g;
});
compare_nodes('after refill');

# compact leaves whose entries point to heap items the primary pruned and
# VACUUM has not yet removed from the index (INDEX_CLEANUP OFF keeps them):
# a standby scan whose SeqTree candidate is such an entry lets another
# entry of its subtree stand in, so it answers like the primary and
# rechecks (almost) no extra row (ranges and lists of several keys search
# so; a point lookup takes its key's run by bits[], reading no key, and
# the pruned entry's heap fetch finds nothing)
$primary->safe_psql(
	'postgres', q{
CREATE TABLE c (k int8, pad text) WITH (autovacuum_enabled = off);
INSERT INTO c SELECT g, 'old' FROM generate_series(1, 20000) AS g;
CREATE INDEX c_k ON c USING elastic_btree (k);
SELECT elastic_btree_shrink('c_k');
DELETE FROM c WHERE k % 2 = 0;
INSERT INTO c SELECT g, 'new' FROM generate_series(2, 20000, 2) AS g;
VACUUM (INDEX_CLEANUP OFF) c;
CREATE FUNCTION rechecked(q text) RETURNS int8 LANGUAGE plpgsql AS $$
DECLARE
	plan jsonb;
BEGIN
	EXECUTE 'EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF, FORMAT JSON) ' || q
		INTO plan;
	RETURN (SELECT coalesce(sum(v::text::int8), 0)
			FROM jsonb_path_query(plan, 'strict $.**."Rows Removed by Index Recheck"') AS v);
END;
$$;
});
$primary->wait_for_catchup($standby, 'replay', $primary->lsn('insert'));
is( $standby->safe_psql('postgres',
		"SELECT compact_leaf_pages = leaf_pages, entries FROM elastic_index_stats('c_k')"),
	't|30000',
	'standby: every leaf of c_k is compact and 10000 entries point to pruned items');
foreach my $q (
	q{SELECT count(*), sum(k), count(*) FILTER (WHERE pad = 'new') FROM c WHERE k BETWEEN 1000 AND 2999},
	q{SELECT string_agg(pad, ',' ORDER BY k) FROM c WHERE k IN (2, 3, 4000, 19999, 20000)},
	q{SELECT count(*), sum(k) FROM (SELECT k FROM c WHERE k > 5000 AND k <= 7000 ORDER BY k DESC) AS s})
{
	is($standby->safe_psql('postgres', $force . $q),
		$primary->safe_psql('postgres', 'SET enable_indexscan = off; SET enable_bitmapscan = off; ' . $q),
		"standby through c_k matches a sequential scan on the primary: $q");
}
is( $standby->safe_psql(
		'postgres', $force . q{
SELECT sum(rechecked(format('SELECT pad FROM c WHERE k = %s', g))) FROM generate_series(2, 400, 2) AS g}),
	'0',
	'standby point lookups of keys with a pruned entry recheck no extra row');

# statistics and structure seen on the standby are the primary's
is( $standby->safe_psql(
		'postgres',
		"SELECT height, leaf_pages, inner_pages, entries FROM elastic_index_stats('t_w')"),
	$primary->safe_psql(
		'postgres',
		"SELECT height, leaf_pages, inner_pages, entries FROM elastic_index_stats('t_w')"),
	'elastic_index_stats agrees on both nodes');

foreach my $idx (qw(t_k t_w t_kid))
{
	my ($ret, $out, $err) = $primary->psql('postgres',
		"SELECT elastic_index_check('$idx', true)");
	is($ret, 0, "elastic_index_check($idx, true) passes on the primary")
	  or diag($err);
}

# elastic_index_check on the hot standby: AccessShareLock (a standby
# refuses ShareLock) and the checks one page copy allows, for both access
# methods, also while replay changes the trees; heapallindexed is refused
$primary->safe_psql(
	'postgres', q{
CREATE TABLE o (k int8) WITH (autovacuum_enabled = off);
CREATE INDEX o_k ON o USING osm_tree (k) WITH (buffer_size = 64, batch_size = 1);
SET osm_tree.top_inserts = off;
INSERT INTO o SELECT (g * 7919) % 100000 FROM generate_series(1, 20000) AS g;
});
$primary->wait_for_catchup($standby, 'replay', $primary->lsn('insert'));
cmp_ok($standby->safe_psql('postgres',
		"SELECT buffer_pages FROM elastic_index_stats('o_k')"),
	'>', 0, 'standby: the osm_tree index o_k has insert buffer pages');
# parallel scans of o_k on the standby, buffer included, return what a
# sequential scan returns
my $parallel = 'SET max_parallel_workers_per_gather = 2; SET parallel_setup_cost = 0; '
  . 'SET parallel_tuple_cost = 0; SET min_parallel_index_scan_size = 0; '
  . 'SET cpu_operator_cost = 0; SET enable_seqscan = off; SET enable_bitmapscan = off; ';
my $oq = 'SELECT count(*), sum(k) FROM (SELECT k FROM o WHERE k > 10 ORDER BY k%s LIMIT 100000) AS x';
foreach my $dir ('', ' DESC')
{
	like($standby->safe_psql('postgres',
			$parallel . 'EXPLAIN (COSTS OFF) ' . sprintf($oq, $dir)),
		qr/Parallel Index Only Scan (Backward )?using o_k/,
		"standby: parallel scan of o_k,$dir plan");
	is($standby->safe_psql('postgres', $parallel . sprintf($oq, $dir)),
		$standby->safe_psql('postgres',
			'SET enable_indexscan = off; SET enable_indexonlyscan = off; '
			  . 'SET enable_bitmapscan = off; ' . sprintf($oq, $dir)),
		"standby: parallel scan of o_k,$dir returns every row once");
}
foreach my $idx (qw(t_k t_w t_kid c_k o_k))
{
	my ($ret, $out, $err) = $standby->psql('postgres',
		"SELECT elastic_index_check('$idx')");
	is($ret, 0, "elastic_index_check($idx) passes on the standby")
	  or diag($err);
}
my ($hret, $hout, $herr) = $standby->psql('postgres',
	"SELECT elastic_index_check('t_k', true)");
like($herr, qr/heapallindexed cannot be checked during recovery/,
	'elastic_index_check with heapallindexed is refused on the standby');
$bg = $primary->background_psql('postgres');
$bg->query_until(qr/started/, q{
\echo started
INSERT INTO t SELECT g, g % 1000, lpad((200000 + g)::text, 8, '0') || repeat(md5(g::text), 12)
FROM generate_series(60001, 75000) AS g;
SET osm_tree.top_inserts = off;
INSERT INTO o SELECT (g * 7919) % 100000 FROM generate_series(20001, 40000) AS g;
});
$errors = 0;
for (my $i = 0; $i < 20; $i++)
{
	foreach my $idx (qw(t_w o_k))
	{
		my ($ret, $out, $err) = $standby->psql('postgres',
			"SELECT elastic_index_check('$idx')");
		$errors++ if $ret != 0;
		diag($err) if $ret != 0;
	}
}
is($errors, 0, 'elastic_index_check on the standby passes during replay of splits and buffer inserts');
$bg->quit;

# damage found on the standby: two items of a leaf of t_k swapped in the
# standby's file (after a restartpoint, so that replay leaves it), then the
# file restored
$primary->safe_psql('postgres', 'CHECKPOINT');
$primary->wait_for_catchup($standby, 'replay', $primary->lsn('insert'));
$standby->safe_psql('postgres', 'CHECKPOINT');
my $blcksz = $standby->safe_psql('postgres', 'SHOW block_size');
my $file = $standby->data_dir . '/'
  . $standby->safe_psql('postgres', "SELECT pg_relation_filepath('t_k')");
$standby->stop;
my $pristine = ElasticIndex::Damage::read_file($file);
my $leaf = ElasticIndex::Damage::inner_leaf($pristine, $blcksz);
ok(defined $leaf, "standby: a leaf of t_k to damage: block $leaf");
# line pointers 2 and 3 (the first two entries after the high key) swapped
ElasticIndex::Damage::swap_first_entries($file, $pristine, $leaf, $blcksz);
$standby->start;
my ($dret, $dout, $derr) = $standby->psql('postgres',
	"SELECT elastic_index_check('t_k')");
like($derr, qr/index "t_k" is corrupted: item is not less than.*\n.*Block $leaf, offset 2/,
	'elastic_index_check on the standby reports the swapped items');
$standby->stop;
ElasticIndex::Damage::write_file($file, $pristine);
$standby->start;
($dret, $dout, $derr) = $standby->psql('postgres',
	"SELECT elastic_index_check('t_k')");
is($dret, 0, 'after the repair, elastic_index_check passes on the standby')
  or diag($derr);

# promote and check there
$primary->wait_for_catchup($standby, 'replay', $primary->lsn('insert'));
$standby->promote;
$standby->poll_query_until('postgres', 'SELECT NOT pg_is_in_recovery()')
  or die 'standby did not leave recovery';
foreach my $idx (qw(t_k t_w t_kid))
{
	my ($ret, $out, $err) = $standby->psql('postgres',
		"SELECT elastic_index_check('$idx', true)");
	is($ret, 0, "elastic_index_check($idx, true) passes on the promoted standby")
	  or diag($err);
}

# the unlogged table comes back empty, with a usable index
is($standby->safe_psql('postgres', $force . 'SELECT count(*) FROM u WHERE k > 0'),
	'0', 'unlogged table is empty after promotion');
$standby->safe_psql('postgres',
	'INSERT INTO u SELECT g FROM generate_series(1, 5000) AS g');
is($standby->safe_psql('postgres', $force . 'SELECT count(*) FROM u WHERE k > 0'),
	'5000', 'its index takes inserts');

# the promoted node writes WAL of its own for the indexes
$standby->safe_psql(
	'postgres', q{
INSERT INTO t SELECT g, g % 1000, md5(g::text) FROM generate_series(50001, 60000) AS g;
DELETE FROM t WHERE k < 100;
VACUUM t;
});
foreach my $idx (qw(t_k t_w t_kid u_k))
{
	my ($ret, $out, $err) = $standby->psql('postgres',
		"SELECT elastic_index_check('$idx', true)");
	is($ret, 0, "elastic_index_check($idx, true) passes after writes on the promoted node")
	  or diag($err);
}

$standby->stop;
$primary->stop;
done_testing();
