# ALTER EXTENSION elastic_index UPDATE from 0.1.0 to 0.2.0.
#
# 0.2.0 numbers the operator classes' support functions as btree does
# (PostgreSQL 18 insists: function 3 of an ordering access method must be
# an in_range function), so the normalize function moves from 3 to 7, and
# the equal-image functions come in as 4.  Indexes built under 0.1.0, with
# compact leaves (which compare normalized keys) and osm_tree batches, must
# answer as before the update, take inserts, pass the verifier, and
# convert both ways; the updated catalog must be the one a fresh 0.2.0
# install makes.  On 18, 0.1.0 cannot be installed at all, which is shown.

use strict;
use warnings;

use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $node = PostgreSQL::Test::Cluster->new('upgrade');
$node->init;
$node->append_conf(
	'postgresql.conf', qq{
shared_preload_libraries = 'elastic_index'
autovacuum = off
});
$node->start;

my $major = $node->safe_psql('postgres', 'SHOW server_version_num') / 10000;

# every support function and operator of our access methods' families, one
# line each with what it depends on and how, for comparing two catalogs
my $catalog_query = q{
SELECT string_agg(line, E'\n' ORDER BY line) FROM (
	SELECT format('%s %s proc %s (%s,%s) %s depends on %s', a.amname, f.opfname,
				  p.amprocnum, p.amproclefttype::regtype,
				  p.amprocrighttype::regtype, p.amproc::regprocedure,
				  (SELECT string_agg(pg_describe_object(d.refclassid, d.refobjid,
														d.refobjsubid) ||
									 ' (' || d.deptype::text || ')', ', '
									 ORDER BY 1)
				   FROM pg_depend d
				   WHERE d.classid = 'pg_amproc'::regclass AND d.objid = p.oid)) AS line
	FROM pg_amproc p JOIN pg_opfamily f ON f.oid = p.amprocfamily
	JOIN pg_am a ON a.oid = f.opfmethod
	WHERE a.amname IN ('elastic_btree', 'osm_tree')
	UNION ALL
	SELECT format('%s %s op %s (%s,%s) %s', a.amname, f.opfname, o.amopstrategy,
				  o.amoplefttype::regtype, o.amoprighttype::regtype,
				  o.amopopr::regoperator)
	FROM pg_amop o JOIN pg_opfamily f ON f.oid = o.amopfamily
	JOIN pg_am a ON a.oid = f.opfmethod
	WHERE a.amname IN ('elastic_btree', 'osm_tree')
	UNION ALL
	SELECT format('%s class %s for %s default %s family %s', a.amname, c.opcname,
				  c.opcintype::regtype, c.opcdefault, f.opfname)
	FROM pg_opclass c JOIN pg_opfamily f ON f.oid = c.opcfamily
	JOIN pg_am a ON a.oid = c.opcmethod
	WHERE a.amname IN ('elastic_btree', 'osm_tree')) AS l};
my $validate_query = q{
SELECT count(*) FILTER (WHERE amvalidate(c.oid)) || ' of ' || count(*)
FROM pg_opclass c JOIN pg_am a ON a.oid = c.opcmethod
WHERE a.amname IN ('elastic_btree', 'osm_tree')};

# a fresh 0.2.0 install: the reference catalog
$node->safe_psql('postgres', 'CREATE DATABASE fresh');
$node->safe_psql('fresh', 'CREATE EXTENSION elastic_index');
is($node->safe_psql('fresh',
	"SELECT extversion FROM pg_extension WHERE extname = 'elastic_index'"),
	'0.2.0', 'CREATE EXTENSION installs 0.2.0');
my $fresh_catalog = $node->safe_psql('fresh', $catalog_query);
like($fresh_catalog, qr/elastic_btree integer_ops proc 7 \(bigint,bigint\) elastic_btree_normalize\(bigint\) depends on /,
	'0.2.0: the normalize function is support function 7');
like($fresh_catalog, qr/osm_tree text_ops proc 4 \(text,text\) btvarstrequalimage\(oid\) depends on .*operator class text_ops for access method osm_tree \(i\)/,
	'0.2.0: text has the equal-image function 4, a member of its class');
unlike($fresh_catalog, qr/ proc 3 /, '0.2.0: no support function 3');
my $nclasses = $node->safe_psql('fresh',
	q{SELECT count(*) FROM pg_opclass c JOIN pg_am a ON a.oid = c.opcmethod
	  WHERE a.amname IN ('elastic_btree', 'osm_tree')});
is($node->safe_psql('fresh', $validate_query), "$nclasses of $nclasses",
	'0.2.0: amvalidate accepts every operator class');

if ($major >= 18)
{
	# what made 0.2.0 necessary
	$node->safe_psql('postgres', 'CREATE DATABASE old');
	my ($ret, $out, $err) = $node->psql('old',
		"CREATE EXTENSION elastic_index VERSION '0.1.0'");
	isnt($ret, 0, 'PostgreSQL 18 refuses 0.1.0');
	like($err, qr/ordering in_range functions must have five arguments/,
		'because its support function 3 is not an in_range function');
	$node->stop;
	done_testing();
	exit 0;
}

# 0.1.0 with an index of each kind, compact leaves among them
$node->safe_psql('postgres', 'CREATE DATABASE old');
$node->safe_psql(
	'old', q{
CREATE EXTENSION elastic_index VERSION '0.1.0';
CREATE TABLE u (id int4, k int8, t text COLLATE "C", o int8);
INSERT INTO u SELECT g, (g * 7919) % 40000, md5(g::text), g
FROM generate_series(1, 20000) AS g;
CREATE INDEX u_k ON u USING elastic_btree (k);
CREATE INDEX u_t ON u USING elastic_btree (t);
CREATE INDEX u_o ON u USING osm_tree (o);
SELECT elastic_btree_shrink('u_k');
SELECT elastic_btree_shrink('u_t');
});
is($node->safe_psql('old',
	"SELECT extversion FROM pg_extension WHERE extname = 'elastic_index'"),
	'0.1.0', 'the old database is at 0.1.0');
like($node->safe_psql('old', $catalog_query),
	qr/elastic_btree integer_ops proc 3 \(bigint,bigint\) elastic_btree_normalize\(bigint\)/,
	'0.1.0: the normalize function is support function 3');
ok($node->safe_psql('old',
	"SELECT compact_leaf_pages > 0 FROM elastic_index_stats('u_k')") eq 't'
	  && $node->safe_psql('old',
		"SELECT compact_leaf_pages > 0 FROM elastic_index_stats('u_t')") eq 't',
	'0.1.0: both elastic_btree indexes have compact leaves');

# what the indexes answer, and what a sequential scan answers
my @queries = (
	'SELECT count(*), sum(id) FROM u WHERE k >= 1000 AND k < 30000',
	'SELECT count(*), sum(id) FROM u WHERE k = 7919',
	q{SELECT count(*), md5(string_agg(t, ',' ORDER BY t)) FROM u WHERE t > '3' AND t < 'c'},
	'SELECT count(*), sum(id) FROM u WHERE o BETWEEN 500 AND 15000');
my $force = 'SET enable_seqscan = off; SET enable_bitmapscan = off;';
my $noindex = 'SET enable_indexscan = off; SET enable_indexonlyscan = off; SET enable_bitmapscan = off;';

sub answers
{
	my ($db, $settings) = @_;
	return join("\n", map { $node->safe_psql($db, "$settings $_") } @queries);
}
my $before = answers('old', $force);
is($before, answers('old', $noindex), '0.1.0: the indexes answer like a sequential scan');

# the update, in a session that used the indexes first (its operator class
# cache still has the 0.1.0 numbers), then more rows in the same session
my $same_session = $node->safe_psql(
	'old', qq{
$force
SELECT count(*) FROM u WHERE k > 100 AND t > '0';
ALTER EXTENSION elastic_index UPDATE;
INSERT INTO u SELECT g, (g * 7919) % 40000, md5(g::text), g
FROM generate_series(20001, 21000) AS g;
SELECT count(*) FROM u WHERE k >= 0;
});
like($same_session, qr/21000$/, 'inserts right after the update, in the same session, go into the indexes');
is($node->safe_psql('old',
	"SELECT extversion FROM pg_extension WHERE extname = 'elastic_index'"),
	'0.2.0', 'ALTER EXTENSION UPDATE reaches 0.2.0');
is($node->safe_psql('old', $catalog_query), $fresh_catalog,
	'the updated catalog is the one a fresh 0.2.0 install makes');
is($node->safe_psql('old', $validate_query), "$nclasses of $nclasses",
	'after the update amvalidate accepts every operator class');

# the indexes built under 0.1.0, after the update
is(answers('old', $force), answers('old', $noindex),
	'after the update the 0.1.0 indexes answer like a sequential scan');
$node->safe_psql(
	'old', q{
INSERT INTO u SELECT g, (g * 7919) % 40000, md5(g::text), g
FROM generate_series(21001, 26000) AS g;
DELETE FROM u WHERE id % 3 = 0;
VACUUM u;
});
is(answers('old', $force), answers('old', $noindex),
	'after more inserts, deletes and VACUUM they still do');
foreach my $idx (qw(u_k u_t u_o))
{
	my ($ret, $out, $err) =
	  $node->psql('old', "SELECT elastic_index_check('$idx', true)");
	is($ret, 0, "elastic_index_check($idx) passes after the update") or diag($err);
}
$node->safe_psql('old',
	q{SELECT elastic_btree_expand('u_k'); SELECT elastic_btree_shrink('u_k');});
is($node->safe_psql('old',
	"SELECT compact_leaf_pages > 0 FROM elastic_index_stats('u_k')"),
	't', 'expand and shrink work on an index built under 0.1.0');
is(answers('old', $force), answers('old', $noindex),
	'and it answers like a sequential scan after both');

$node->stop;
done_testing();
