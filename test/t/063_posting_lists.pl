# Posting lists (src/README.md, "Posting lists") through WAL: a standby
# with wal_consistency_checking = all replays an index built
# with deduplicate_items = on, plain inserts beside its lists, scans that
# mark lists dead, the opportunistic deletion of dead lists before a
# split (DELETE records), VACUUM rewriting lists and removing whole ones
# (VACUUM records with updated lists), posting splits of inserts whose
# TIDs fall inside lists (with and without a page split), and dedup passes
# of an index built empty (the dedup form of INSERT_MULTI; 065 checks it
# with pg_walinspect), the metapage's format
# version 3 of an index given the option after its build (a META record);
# and the same for osm_tree ("osm_tree" there): a build with lists,
# sorted batches that append leaves at the right edge with lists (SPLIT
# records carrying the new leaf whole), batches and insert buffer flushes
# into leaves that hold lists (posting splits through the ordinary path),
# dedup passes of direct inserts' full rightmost leaf, VACUUM, and an index
# given the option after its build.  The standby must find every page
# equal to the primary's image; its queries must give the primary's
# results.  Then the primary crashes and replays the same WAL from its
# last checkpoint (osm_tree's appends with lists among it), and the
# verifier and the queries must still agree.

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
wal_consistency_checking = 'all,elastic_index'
autovacuum = off
osm_tree.flush_worker = off
# every record carries a page image: keep the WAL until the standby has it
wal_keep_size = '1GB'
max_wal_size = '2GB'
});
$primary->start;
$primary->backup('bkp');
my $standby = PostgreSQL::Test::Cluster->new('standby');
$standby->init_from_backup($primary, 'bkp', has_streaming => 1);
$standby->append_conf('postgresql.conf',
	"shared_preload_libraries = 'elastic_index'");
$standby->start;

# what both servers must answer alike; the same through a sequential scan
my @queries = (
	'SELECT count(*), sum(id) FROM p WHERE k BETWEEN 10 AND 90',
	'SELECT count(*), sum(id) FROM p WHERE t >= \'k-0020\' AND t < \'k-0070\'',
	'SELECT count(*), sum(k) FROM p WHERE k < 50',
	'SELECT string_agg(id::text, \',\' ORDER BY k DESC, id) FROM p WHERE k IN (3, 33, 77)',
	'SELECT count(*), sum(id) FROM g WHERE k BETWEEN 5 AND 20',
	'SELECT count(*), sum(id) FROM o WHERE k BETWEEN 100 AND 2500',
	'SELECT count(*), sum(id) FROM o WHERE t >= \'k-000200\' AND t < \'k-001500\'',
	'SELECT string_agg(id::text, \',\' ORDER BY k DESC, id) FROM o WHERE k IN (3, 1033, 2777, 3001)',
	'SELECT count(*), sum(id) FROM o WHERE s = 3',
	'SELECT count(*), sum(id) FROM d WHERE k BETWEEN 2 AND 9',
);

# every osm_tree index of the test, for the verifier
my @osm_indexes = qw(o_k o_t o_s o_k_plain d_k);

# Run every query with the index, then by sequential scan, on one node.
sub answers
{
	my ($node) = @_;
	my @out;
	for my $q (@queries)
	{
		my $idx = $node->safe_psql('postgres',
			"SET enable_seqscan = off; SET enable_bitmapscan = off; $q");
		my $seq = $node->safe_psql('postgres',
			"SET enable_indexscan = off; SET enable_indexonlyscan = off; SET enable_bitmapscan = off; $q");
		is($idx, $seq, $node->name . ": index and sequential scan agree: $q");
		push @out, $idx;
	}
	return join("\n", @out);
}

$primary->safe_psql(
	'postgres', q{
CREATE EXTENSION elastic_index;
CREATE TABLE p (id int4, k int4, t text COLLATE "C");
INSERT INTO p SELECT g, g % 100, 'k-' || lpad((g % 100)::text, 4, '0')
FROM generate_series(1, 40000) AS g;
CREATE INDEX p_k ON p USING elastic_btree (k) WITH (deduplicate_items = on);
CREATE INDEX p_t ON p USING elastic_btree (t) WITH (deduplicate_items = on);
-- an index built empty: inserts fill its leaves, which get dedup passes
CREATE TABLE g (id int4, k int4);
CREATE INDEX g_k ON g USING elastic_btree (k) WITH (deduplicate_items = on);
CREATE INDEX g_k_plain ON g USING elastic_btree (k) WITH (deduplicate_items = off);
INSERT INTO g SELECT i, i % 37 FROM generate_series(1, 30000) AS i;
DELETE FROM g WHERE id % 4 = 0;
VACUUM g;
INSERT INTO g SELECT i, i % 37 FROM generate_series(30001, 36000) AS i;
-- plain entries beside the lists (new rows' TIDs follow the lists')
INSERT INTO p SELECT g, g % 100, 'k-' || lpad((g % 100)::text, 4, '0')
FROM generate_series(40001, 44000) AS g;
-- scans mark dead lists
DELETE FROM p WHERE k BETWEEN 40 AND 59;
SET enable_seqscan = off;
SET enable_bitmapscan = off;
SELECT count(*) FROM p WHERE k BETWEEN 40 AND 59;
SELECT count(*) FROM p WHERE t >= 'k-0040' AND t < 'k-0060';
});
my $dead = $primary->safe_psql('postgres',
	"SELECT dead_entries FROM elastic_index_stats('p_k')");
cmp_ok($dead, '>', 7000, 'scans marked the deleted rows\' lists dead');
# inserts into their leaves remove the dead lists before splitting
$primary->safe_psql(
	'postgres', q{
INSERT INTO p SELECT g, 40 + g % 20, 'k-' || lpad((40 + g % 20)::text, 4, '0')
FROM generate_series(44001, 52000) AS g;
});
cmp_ok($primary->safe_psql('postgres',
		"SELECT dead_entries FROM elastic_index_stats('p_k')"),
	'<', $dead, 'inserts removed dead lists');
# VACUUM: lists lose some TIDs (rewritten) or all (removed)
$primary->safe_psql(
	'postgres', q{
DELETE FROM p WHERE id % 3 = 0 OR k = 7;
VACUUM p;
-- posting splits: new rows take the space VACUUM freed, so their TIDs fall
-- inside the lists' ranges (INSERT_LEAF with postingoff, and splits whose
-- left half is logged whole)
INSERT INTO p SELECT g, g % 100, 'k-' || lpad((g % 100)::text, 4, '0')
FROM generate_series(60001, 72000) AS g;
});
# VACUUM leaves a heap page's deleted rows, and so their index entries,
# when it cannot take the page's cleanup lock (lazy_scan_noprune: another
# backend's passing pin, such as the checkpointer writing the page; seen
# once in 17-assert's suite, 102 entries over). Another VACUUM takes them;
# an entry the index holds twice would stay.
my $stats;
for my $attempt (1 .. 5)
{
	$stats = $primary->safe_psql('postgres',
		"SELECT entries FROM elastic_index_stats('p_k')");
	last if $stats eq $primary->safe_psql('postgres', 'SELECT count(*) FROM p');
	$primary->safe_psql('postgres', 'VACUUM p');
}
is($stats, $primary->safe_psql('postgres', 'SELECT count(*) FROM p'),
	'every row has one TID in the index');
$primary->safe_psql('postgres', "SELECT elastic_index_check('p_k', true)");
$primary->safe_psql('postgres', "SELECT elastic_index_check('p_t', true)");
$primary->safe_psql('postgres', "SELECT elastic_index_check('g_k', true)");
cmp_ok($primary->safe_psql('postgres', "SELECT pg_relation_size('g_k')"), '<',
	$primary->safe_psql('postgres', "SELECT pg_relation_size('g_k_plain') / 2"),
	'the dedup pass kept the index built empty small');

# The metapage says which indexes may hold lists (format version 3, so
# that a library knowing only version 2 refuses them): built with the
# option; built without it and then given it, from its first insert on (a
# META record the standby replays); an index without it stays at 2.
$primary->safe_psql(
	'postgres', q{
CREATE TABLE v (k int4);
INSERT INTO v SELECT i % 10 FROM generate_series(1, 3000) AS i;
CREATE INDEX v_k ON v USING elastic_btree (k) WITH (deduplicate_items = off);
});
my $formats = q{SELECT (SELECT format_version FROM elastic_index_stats('p_k')),
	(SELECT format_version FROM elastic_index_stats('g_k')),
	(SELECT format_version FROM elastic_index_stats('g_k_plain')),
	(SELECT format_version FROM elastic_index_stats('v_k'))};
is($primary->safe_psql('postgres', $formats),
	'3|3|2|2', 'format version 3 for the indexes built with lists');
$primary->safe_psql(
	'postgres', q{
ALTER INDEX v_k SET (deduplicate_items = on);
INSERT INTO v SELECT i % 10 FROM generate_series(1, 3000) AS i;
});
is($primary->safe_psql('postgres', $formats),
	'3|3|2|3', 'format version 3 once an insert may write a list');
cmp_ok($primary->safe_psql('postgres', "SELECT leaf_pages FROM elastic_index_stats('v_k')"),
	'<', 10, 'the dedup pass made lists in the index given the option');
$primary->safe_psql('postgres', "SELECT elastic_index_check('v_k', true)");

# osm_tree: a build with lists, sorted batches appending leaves with lists
# at the right edge, the insert buffer's flush into leaves with lists,
# direct inserts whose full rightmost leaf gets a dedup pass
$primary->safe_psql(
	'postgres', q{
CREATE TABLE o (id int4, k int8, s int4, t text COLLATE "C");
INSERT INTO o SELECT g, g / 20, g % 10, 'k-' || lpad((g / 30)::text, 6, '0')
FROM generate_series(1, 20000) AS g;
CREATE INDEX o_k ON o USING osm_tree (k) WITH (deduplicate_items = on);
CREATE INDEX o_t ON o USING osm_tree (t) WITH (deduplicate_items = on);
CREATE INDEX o_s ON o USING osm_tree (s) WITH (deduplicate_items = on);
CREATE INDEX o_k_plain ON o USING osm_tree (k) WITH (deduplicate_items = off);
INSERT INTO o SELECT g, g / 20, g % 10, 'k-' || lpad((g / 30)::text, 6, '0')
FROM generate_series(20001, 50000) AS g;
SET osm_tree.top_inserts = off;
INSERT INTO o SELECT g + 100000, g / 20, g % 10, 'k-' || lpad((g / 30)::text, 6, '0')
FROM generate_series(1, 30000, 211) AS g;
SELECT osm_tree_flush('o_k'), osm_tree_flush('o_t'), osm_tree_flush('o_s');
RESET osm_tree.top_inserts;
CREATE TABLE d (id int4, k int8);
CREATE INDEX d_k ON d USING osm_tree (k) WITH (deduplicate_items = on);
SET osm_tree.batch_size = 1;
DO $$
BEGIN
	FOR i IN 1 .. 4000 LOOP
		INSERT INTO d VALUES (i, i / 400);
	END LOOP;
END
$$;
});
cmp_ok($primary->safe_psql('postgres', "SELECT pg_relation_size('o_k')"), '<',
	$primary->safe_psql('postgres', "SELECT pg_relation_size('o_k_plain') / 2"),
	'osm_tree: the batches appended lists');
cmp_ok($primary->safe_psql('postgres', "SELECT leaf_pages FROM elastic_index_stats('d_k')"),
	'<', 8, 'osm_tree: the dedup pass made lists of direct inserts');
# VACUUM rewrites lists; new rows take the freed space, so their TIDs fall
# inside the lists' ranges (posting splits, from a batch); then an index
# given the option after its build (format 3 from its first insert)
$primary->safe_psql(
	'postgres', q{
DELETE FROM o WHERE id % 3 = 0 OR k = 777;
VACUUM o;
INSERT INTO o SELECT g + 200000, g / 20, g % 10, 'k-' || lpad((g / 30)::text, 6, '0')
FROM generate_series(1, 50000, 3) AS g;
ALTER INDEX o_k_plain SET (deduplicate_items = on);
INSERT INTO o SELECT g, g / 20, g % 10, 'k-' || lpad((g / 30)::text, 6, '0')
FROM generate_series(50001, 60000) AS g;
});
is($primary->safe_psql('postgres',
		"SELECT entries FROM elastic_index_stats('o_k')"),
	$primary->safe_psql('postgres', 'SELECT count(*) FROM o'),
	'osm_tree: every row has one TID in the index');
$primary->safe_psql('postgres', "SELECT elastic_index_check('$_', true)")
  for @osm_indexes;
my $osm_formats = q{SELECT (SELECT format_version FROM elastic_index_stats('o_k')),
	(SELECT format_version FROM elastic_index_stats('d_k')),
	(SELECT format_version FROM elastic_index_stats('o_k_plain'))};
is($primary->safe_psql('postgres', $osm_formats),
	'3|3|3', 'osm_tree: format version 3 for every index with lists');

$primary->wait_for_catchup($standby, 'replay', $primary->lsn('insert'));
is($standby->safe_psql('postgres', $formats),
	'3|3|2|3', 'the standby has the same format versions');
is($standby->safe_psql('postgres', $osm_formats),
	'3|3|3', 'the standby has the same format versions of osm_tree indexes');
my $want = answers($primary);
is(answers($standby), $want, 'the standby answers as the primary');
$standby->safe_psql('postgres', "SELECT elastic_index_check('$_')")
  for 'p_k', @osm_indexes;
my $log = slurp_file($standby->logfile);
unlike($log, qr/inconsistent page found/, 'no inconsistent page on the standby');

# crash: the WAL since the last checkpoint is replayed on the primary
$primary->safe_psql('postgres', 'CHECKPOINT');
$primary->safe_psql(
	'postgres', q{
DELETE FROM p WHERE id % 5 = 0;
VACUUM p;
INSERT INTO o SELECT g, g / 20, g % 10, 'k-' || lpad((g / 30)::text, 6, '0')
FROM generate_series(60001, 80000) AS g;
DELETE FROM o WHERE id % 5 = 0;
VACUUM o;
-- unlogged indexes, which crash recovery resets to their init forks: built
-- with lists (elastic_btree.deduplicate_items on, the default) and without
CREATE UNLOGGED TABLE un (k int4);
INSERT INTO un SELECT i % 10 FROM generate_series(1, 3000) AS i;
CREATE INDEX un_default ON un USING elastic_btree (k);
SET elastic_btree.deduplicate_items = off;
CREATE INDEX un_off ON un USING elastic_btree (k);
});
$want = answers($primary);
$primary->stop('immediate');
$primary->start;
is(answers($primary), $want, 'after crash recovery the primary answers as before');
# the init fork keeps the build's format version, so inserts go on making
# lists in the index built with them and in no other
$primary->safe_psql('postgres',
	'INSERT INTO un SELECT i % 10 FROM generate_series(1, 20000) AS i');
is($primary->safe_psql('postgres', q{
SELECT string_agg(relname || ':' || format_version, ' ' ORDER BY relname)
FROM pg_class c, elastic_index_stats(c.oid) WHERE relname IN ('un_default', 'un_off')}),
	'un_default:3 un_off:2',
	'unlogged indexes reset by recovery keep their format versions');
cmp_ok($primary->safe_psql('postgres',
		"SELECT leaf_pages * 2 FROM elastic_index_stats('un_default')"),
	'<', $primary->safe_psql('postgres',
		"SELECT leaf_pages FROM elastic_index_stats('un_off')"),
	'and inserts made lists in the one built with them');
$primary->safe_psql('postgres', "SELECT elastic_index_check('un_default', true)");
$primary->safe_psql('postgres', "SELECT elastic_index_check('p_k', true)");
$primary->safe_psql('postgres', "SELECT elastic_index_check('p_t', true)");
$primary->safe_psql('postgres', "SELECT elastic_index_check('$_', true)")
  for @osm_indexes;
pass('the verifier accepts every index after recovery');

$primary->wait_for_catchup($standby, 'replay', $primary->lsn('insert'));
is(answers($standby), $want, 'the standby follows the recovered primary');
$log = slurp_file($standby->logfile);
unlike($log, qr/inconsistent page found/, 'still no inconsistent page on the standby');

$standby->stop;
$primary->stop;
done_testing();
