# ElasticIndex::Tools - what the TAP tests of the DBA's tools (pg_dump and
# pg_restore, REINDEX CONCURRENTLY, CLUSTER, ATTACH PARTITION, pg_repack,
# pg_partman) share: what a database's indexes are, the verifier on every
# one of ours, and queries answered through one index and by a sequential
# scan.
#
#   my $sig = ElasticIndex::Tools::index_signature($node, $db);
#   ElasticIndex::Tools::check_all_indexes($node, $db, $label);  # tests
#   my $res = ElasticIndex::Tools::differential($node, $db, $label, \@queries);
#   ElasticIndex::Tools::no_invalid_indexes($node, $db, $label);  # a test
#   my $standby = ElasticIndex::Tools::slot_standby($primary);
#   my $out = ElasticIndex::Tools::safe_psql_retrying($node, $db, $sql);

package ElasticIndex::Tools;

use strict;
use warnings;

use PostgreSQL::Test::Cluster;
use Test::More;

# One line per index of the public schema (partitioned ones included), in
# name order: name, access method, storage parameters, definition, valid
# and ready flags, and the index it is a partition of.  Two databases whose
# indexes have the same access methods, options and definitions have the
# same signature.
sub index_signature
{
	my ($node, $db) = @_;
	return $node->safe_psql(
		$db, q{
SELECT c.relname, a.amname, coalesce(c.reloptions::text, '-'),
	   pg_get_indexdef(c.oid), i.indisvalid, i.indisready,
	   coalesce((SELECT p.inhparent::regclass::text FROM pg_inherits AS p
				 WHERE p.inhrelid = c.oid), '-')
FROM pg_index AS i
JOIN pg_class AS c ON c.oid = i.indexrelid
JOIN pg_am AS a ON a.oid = c.relam
JOIN pg_namespace AS n ON n.oid = c.relnamespace
WHERE n.nspname = 'public'
ORDER BY c.relname});
}

# safe_psql, except that on a hot standby a statement that replay cancels
# runs again (up to 10 times, a second apart): a recovery conflict, or a
# deadlock with the startup process, which holds the locks the primary's
# transactions took (its autovacuum, say) and may wait for one the query
# holds (SQLSTATE 40001 and 40P01).  Returns the output and whether the
# statement succeeded; on a primary every error counts at once.  The
# standby's answers are still compared in full.
sub psql_retrying
{
	my ($node, $db, $sql) = @_;
	for (my $try = 1;; $try++)
	{
		my ($ret, $out, $err) = $node->psql($db, $sql, on_error_stop => 1);
		return ($out, 1, '') if $ret == 0;
		return ($out, 0, $err)
		  unless $try < 10
		  && $err =~ /deadlock detected|conflict with recovery/
		  && $node->safe_psql($db, 'SELECT pg_is_in_recovery()') eq 't';
		note("standby: statement cancelled by replay, again: $err");
		sleep 1;
	}
}

# psql_retrying that dies on an error, as safe_psql does.
sub safe_psql_retrying
{
	my ($node, $db, $sql) = @_;
	my ($out, $ok, $err) = psql_retrying($node, $db, $sql);
	die "error running SQL: '$err'\nwhile running '$sql'" unless $ok;
	return $out;
}

# The storage parameters and access method of one index, as "am|options".
sub am_and_options
{
	my ($node, $db, $index) = @_;
	return $node->safe_psql(
		$db, qq{
SELECT a.amname || '|' || coalesce(c.reloptions::text, '-')
FROM pg_class AS c JOIN pg_am AS a ON a.oid = c.relam
WHERE c.oid = '$index'::regclass});
}

# elastic_index_check with heapallindexed on every elastic_btree and
# osm_tree index (not the partitioned ones, which have no pages) of the
# public schema (without heapallindexed on a hot standby, which refuses
# it): one test per index, and one that the number checked is what the
# caller expects.
sub check_all_indexes
{
	my ($node, $db, $label, $expected) = @_;
	my @indexes = split /\n/, $node->safe_psql(
		$db, q{
SELECT c.oid::regclass FROM pg_class AS c
JOIN pg_am AS a ON a.oid = c.relam
JOIN pg_namespace AS n ON n.oid = c.relnamespace
WHERE n.nspname = 'public' AND c.relkind = 'i'
  AND a.amname IN ('elastic_btree', 'osm_tree')
ORDER BY 1::text});
	foreach my $index (@indexes)
	{
		my ($out, $ok, $err) = psql_retrying($node, $db,
			"SELECT elastic_index_check('$index', NOT pg_is_in_recovery())");
		ok($ok, "$label: elastic_index_check($index, heapallindexed) passes")
		  or diag($err);
	}
	is(scalar(@indexes), $expected,
		"$label: the verifier checked $expected indexes");
	return;
}

# A test that no index of the database is invalid or not ready (an
# interrupted REINDEX CONCURRENTLY or repack leaves one).
sub no_invalid_indexes
{
	my ($node, $db, $label) = @_;
	is( safe_psql_retrying(
			$node, $db, q{
SELECT coalesce(string_agg(indexrelid::regclass::text, ', '), 'none')
FROM pg_index WHERE NOT indisvalid OR NOT indisready}),
		'none',
		"$label: no index is invalid");
	return;
}

# Each query [table, index, sql, plan pattern (optional)] answered through
# the index (in a transaction that drops every other index of the table
# that no constraint uses and that is not a partition of a partitioned
# index, none on a hot standby, where the query must then pick the index
# by itself, with sequential and bitmap scans off and, from PostgreSQL 16
# on, enable_presorted_aggregate off: an aggregate's ORDER BY could make a
# full scan of another index in that order the cheaper plan; EXPLAIN
# must show an index scan matching the pattern, by default of the index)
# and by a sequential scan (EXPLAIN must show one and no index); the two
# answers must be equal and have rows.  Returns the answers by index, so
# that databases can be compared.
sub differential
{
	my ($node, $db, $label, $queries) = @_;
	my %answers;
	foreach my $q (@$queries)
	{
		my ($table, $index, $sql, $pattern) = @$q;
		$pattern //= qr/Index (?:Only )?Scan (?:Backward )?using \Q$index\E /;
		my $only = qq{
DO \$\$DECLARE r record; BEGIN
FOR r IN SELECT indexrelid::regclass AS i FROM pg_index
		 WHERE indrelid = '$table'::regclass AND indexrelid <> '$index'::regclass
		   AND NOT EXISTS (SELECT 1 FROM pg_constraint WHERE conindid = indexrelid)
		   AND NOT EXISTS (SELECT 1 FROM pg_inherits WHERE inhrelid = indexrelid)
		   AND NOT pg_is_in_recovery()
LOOP EXECUTE 'DROP INDEX ' || r.i; END LOOP;
IF pg_is_in_recovery() AND current_setting('server_version_num')::int >= 160000 THEN
	PERFORM set_config('enable_presorted_aggregate', 'off', true);
END IF; END\$\$;
SET LOCAL enable_seqscan = off; SET LOCAL enable_bitmapscan = off;};
		my $plan = safe_psql_retrying($node, $db,
			"BEGIN; $only EXPLAIN (COSTS OFF) $sql; ROLLBACK");
		like($plan, $pattern, "$label: $index: the query reads the index")
		  or diag($plan);
		unlike($plan, qr/Seq Scan/,
			"$label: $index: the query reads no table sequentially");
		my $through =
		  safe_psql_retrying($node, $db, "BEGIN; $only $sql; ROLLBACK");

		my $seqset = q{SET enable_indexscan = off; SET enable_indexonlyscan = off;
SET enable_bitmapscan = off;};
		my $seqplan =
		  safe_psql_retrying($node, $db, "$seqset EXPLAIN (COSTS OFF) $sql");
		ok($seqplan =~ /Seq Scan/ && $seqplan !~ /Index/,
			"$label: $index: the reference query scans sequentially")
		  or diag($seqplan);
		my $seq = safe_psql_retrying($node, $db, "$seqset $sql");
		is($through, $seq,
			"$label: $index answers like a sequential scan");
		unlike($seq, qr/^0\|/, "$label: $index: the query finds rows");
		$answers{$index} = $seq;
	}
	return \%answers;
}

# A streaming standby of a started primary (initialized with
# allows_streaming), started, that reads through a physical replication
# slot: with wal_consistency_checking every record carries a page image,
# and the slot keeps the WAL until the standby has it, through the
# primary's crashes too.
sub slot_standby
{
	my ($primary) = @_;
	$primary->safe_psql('postgres',
		"SELECT pg_create_physical_replication_slot('standby_slot')");
	$primary->backup('bkp');
	my $standby = PostgreSQL::Test::Cluster->new('standby');
	$standby->init_from_backup($primary, 'bkp', has_streaming => 1);
	$standby->append_conf('postgresql.conf',
		"primary_slot_name = 'standby_slot'");
	$standby->start;
	return $standby;
}

1;
