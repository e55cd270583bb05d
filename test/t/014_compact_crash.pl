# Crash safety of compact leaves (int8 keys and text keys padded to 255
# bytes): a crash after inserts into compact leaves,
# and a crash between the two steps of a compact leaf's split (forced with
# elastic_index.debug_fault = after_split).  After each restart the verifier
# passes (it checks every compact leaf's SeqTree against the heap), the
# index answers like a sequential scan, and the next insert finishes the
# interrupted split.

use strict;
use warnings;

use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $node = PostgreSQL::Test::Cluster->new('compact_crash');
$node->init;
$node->append_conf(
	'postgresql.conf', qq{
shared_preload_libraries = 'elastic_index'
autovacuum = off
});
$node->start;

$node->safe_psql(
	'postgres', q{
CREATE EXTENSION elastic_index;
-- (id::text: the 16 branch point takes text || int4 for not immutable)
CREATE TABLE c (id int4, k int8, t text COLLATE "C" GENERATED ALWAYS AS (md5(k::text) || id::text) STORED);
-- the text index is compact from its first entry: every entry goes into a
-- compact leaf, which splits when full
CREATE INDEX c_t ON c USING elastic_btree (t);
SELECT elastic_btree_shrink('c_t');
INSERT INTO c SELECT g, (g * 7919) % 50000 FROM generate_series(1, 20000) AS g;
CREATE INDEX c_k ON c USING elastic_btree (k);
SELECT elastic_btree_shrink('c_k');
});

# the index must agree with a sequential scan and pass the verifier
sub check_index
{
	my ($label) = @_;
	my $force = 'SET enable_seqscan = off; SET enable_bitmapscan = off;';
	my $q = 'SELECT count(*), sum(k) FROM c WHERE k >= 100 AND k < 40000';
	my $via_index = $node->safe_psql('postgres', "$force $q");
	my $via_seq = $node->safe_psql('postgres',
		"SET enable_indexscan = off; SET enable_bitmapscan = off; $q");
	is($via_index, $via_seq, "$label: index scan answers like a sequential scan");
	$q = q{SELECT count(*), md5(string_agg(t, ',' ORDER BY t)) FROM c WHERE t > '3' AND t < 'c'};
	$via_index = $node->safe_psql('postgres', "$force SET enable_sort = off; $q");
	$via_seq = $node->safe_psql('postgres',
		"SET enable_indexscan = off; SET enable_bitmapscan = off; $q");
	is($via_index, $via_seq, "$label: text index scan answers like a sequential scan");
	foreach my $idx (qw(c_k c_t))
	{
		my ($ret, $out, $err) =
		  $node->psql('postgres', "SELECT elastic_index_check('$idx', true)");
		is($ret, 0, "$label: elastic_index_check($idx) passes") or diag($err);
	}
	return;
}

# 1. inserts into compact leaves, then a crash
$node->safe_psql('postgres',
	'INSERT INTO c SELECT g, (g::int8 * 104729) % 50000 FROM generate_series(20001, 40000) AS g');
$node->stop('immediate');
$node->start;
check_index('after a crash following compact inserts');
my $compact = $node->safe_psql('postgres',
	q{SELECT bool_and(s.compact_leaf_pages = s.leaf_pages AND s.compact_leaf_pages > 0)
	  FROM unnest('{c_k,c_t}'::regclass[]) AS i, LATERAL elastic_index_stats(i) AS s});
is($compact, 't', 'every leaf is still compact after recovery');

# 2. a compact split stopped after its first step, then a crash
my ($ret, $out, $err) = $node->psql(
	'postgres', q{
SET elastic_index.debug_fault = 'after_split';
INSERT INTO c SELECT g, (g * 7) % 50000 FROM generate_series(40001, 100000) AS g;
});
isnt($ret, 0, 'the forced fault stopped an insert after a split');
like($err, qr/after_split|debug fault|fault/i, 'the error names the fault point');
$node->stop('immediate');
$node->start;
check_index('after a crash between the two steps of a compact split');

# the next inserts go through the incomplete split and finish it; 80000 of
# them, so that both indexes split whichever of them the fault stopped
# (with 20000 the int8 index's leaves were just short of full on 18; with
# 40000 neither split once compact leaves coded their TIDs and held more)
$node->safe_psql('postgres',
	'INSERT INTO c SELECT g, (g * 7) % 50000 FROM generate_series(40001, 120000) AS g');
check_index('after inserts that finish the split');
my $splits = $node->safe_psql('postgres',
	"SELECT bool_and(compact_splits > 0) FROM elastic_index_activity() WHERE indexrelid IN ('c_k'::regclass, 'c_t'::regclass)");
is($splits, 't', 'compact leaves of both indexes were split');

$node->stop;
done_testing();
