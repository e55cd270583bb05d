# Activity counters at their limits: a table of elastic_index.stats_max_indexes
# entries that fills up (events of further indexes only count as
# overflowed), entries freed by DROP and by a full reset, entries of a
# dropped database freed by a reset in another database, and counters that
# start from zero after a restart and after a crash.

use strict;
use warnings;

use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $node = PostgreSQL::Test::Cluster->new('activity');
$node->init;
$node->append_conf(
	'postgresql.conf', qq{
shared_preload_libraries = 'elastic_index'
elastic_index.stats_max_indexes = 10
autovacuum = off
});
$node->start;

$node->safe_psql('postgres', 'CREATE EXTENSION elastic_index');

# twelve indexes, one row each: one event (an insert that descends) per index
for my $i (1 .. 12)
{
	$node->safe_psql('postgres',
		"CREATE TABLE a$i (k int4); CREATE INDEX a${i}_k ON a$i USING elastic_btree (k)");
}

my $info = q{SELECT max_indexes, tracked_indexes, overflowed FROM elastic_index_activity_info()};
is($node->safe_psql('postgres', $info), '10|0|0', 'an empty table of 10 entries');

for my $i (1 .. 12)
{
	$node->safe_psql('postgres', "INSERT INTO a$i VALUES ($i)");
}
is($node->safe_psql('postgres', $info),
	'10|10|2', 'the table is full and two events were lost');
is( $node->safe_psql(
		'postgres', q{
SELECT string_agg(indexrelname || ':' || descents, ',' ORDER BY indexrelname)
FROM elastic_index_stat_activity WHERE indexrelname IN ('a1_k', 'a10_k', 'a11_k', 'a12_k')}),
	'a10_k:1,a11_k:0,a12_k:0,a1_k:1',
	'the first ten indexes have counters, the last two none');

# dropping a counted index frees its entry for the next index with an event
$node->safe_psql('postgres', 'DROP TABLE a1');
$node->safe_psql('postgres', 'INSERT INTO a12 VALUES (0)');
is($node->safe_psql('postgres', $info), '10|10|2', 'the dropped index made room');
is( $node->safe_psql(
		'postgres', q{SELECT descents FROM elastic_index_stat_activity WHERE indexrelname = 'a12_k'}),
	'1',
	'the next event was counted');

# a database with counters is dropped; a full reset in another database
# frees its entries too, with those of the current database
$node->safe_psql('postgres', 'CREATE DATABASE other');
$node->safe_psql('other',
	'CREATE EXTENSION elastic_index; CREATE TABLE o (k int4); '
	  . 'CREATE INDEX o_k ON o USING elastic_btree (k)');
$node->safe_psql('postgres', 'SELECT elastic_index_activity_reset()');
is($node->safe_psql('postgres', $info), '10|0|0', 'a full reset empties the table');
$node->safe_psql('other', 'INSERT INTO o VALUES (1)');
$node->safe_psql('postgres', 'INSERT INTO a2 VALUES (0)');
is($node->safe_psql('postgres', $info), '10|2|0', 'one entry in each database');
is( $node->safe_psql(
		'postgres', q{SELECT count(*) FROM elastic_index_activity()}),
	'1',
	'elastic_index_activity() shows the current database only');
$node->safe_psql('postgres', 'DROP DATABASE other');
is($node->safe_psql('postgres', $info), '10|2|0', 'the dropped database keeps its entry');
$node->safe_psql('postgres', 'SELECT elastic_index_activity_reset()');
is($node->safe_psql('postgres', $info),
	'10|0|0', 'until a full reset elsewhere frees it');

# counters are kept in memory only: a restart and a crash both start over
$node->safe_psql('postgres', 'INSERT INTO a2 VALUES (1)');
is($node->safe_psql('postgres', $info), '10|1|0', 'one entry before the restart');
$node->restart;
is($node->safe_psql('postgres', $info), '10|0|0', 'no entries after a restart');

$node->safe_psql('postgres', 'INSERT INTO a2 VALUES (2)');
$node->stop('immediate');
$node->start;
is($node->safe_psql('postgres', $info), '10|0|0', 'no entries after a crash');
is( $node->safe_psql(
		'postgres', q{SELECT count(*) FROM a2}),
	'4',
	'the rows survived the crash');

# the size setting needs a restart
my ($ret, $out, $err) =
  $node->psql('postgres', 'SET elastic_index.stats_max_indexes = 20');
like($err, qr/cannot be changed without restarting the server/,
	'elastic_index.stats_max_indexes is fixed at server start');

$node->stop;
done_testing();
