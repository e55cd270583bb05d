# ALTER EXTENSION elastic_index UPDATE from 0.1.0 to 0.2.0, and from 0.2.0
# to 0.3.0.
#
# 0.2.0 numbers the operator classes' support functions as btree does
# (PostgreSQL 18 insists: function 3 of an ordering access method must be
# an in_range function), so the normalize function moves from 3 to 7, and
# the equal-image functions come in as 4.  Indexes built under 0.1.0, with
# compact leaves (which compare normalized keys) and osm_tree batches, must
# answer as before the update, take inserts, pass the verifier, and
# convert both ways; the updated catalog must be the one a fresh 0.2.0
# install makes.  On 18, 0.1.0 cannot be installed at all, which is shown.
#
# 0.3.0 adds operator classes (char(n), name, time, inet, enums, ... and the
# pattern classes): an update from 0.2.0 must make the catalog a fresh
# 0.3.0 install makes, member by member, for both access methods, and the
# new classes must index and verify.

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

my $nclasses_query = q{
SELECT count(*) FROM pg_opclass c JOIN pg_am a ON a.oid = c.opcmethod
WHERE a.amname IN ('elastic_btree', 'osm_tree')};

# a fresh 0.2.0 install: the reference catalog of 0.2.0
$node->safe_psql('postgres', 'CREATE DATABASE fresh02');
$node->safe_psql('fresh02', "CREATE EXTENSION elastic_index VERSION '0.2.0'");
is($node->safe_psql('fresh02',
	"SELECT extversion FROM pg_extension WHERE extname = 'elastic_index'"),
	'0.2.0', 'CREATE EXTENSION VERSION installs 0.2.0');
my $fresh_catalog = $node->safe_psql('fresh02', $catalog_query);
like($fresh_catalog, qr/elastic_btree integer_ops proc 7 \(bigint,bigint\) elastic_btree_normalize\(bigint\) depends on /,
	'0.2.0: the normalize function is support function 7');
like($fresh_catalog, qr/osm_tree text_ops proc 4 \(text,text\) btvarstrequalimage\(oid\) depends on .*operator class text_ops for access method osm_tree \(i\)/,
	'0.2.0: text has the equal-image function 4, a member of its class');
unlike($fresh_catalog, qr/ proc 3 /, '0.2.0: no support function 3');
my $nclasses = $node->safe_psql('fresh02', $nclasses_query);
is($node->safe_psql('fresh02', $validate_query), "$nclasses of $nclasses",
	'0.2.0: amvalidate accepts every operator class');
unlike($fresh_catalog, qr/ (inet_ops|enum_ops|text_pattern_ops|name_ops) /,
	'0.2.0 has none of the classes 0.3.0 adds');

# a fresh 0.3.0 install, the default version: the reference catalog of 0.3.0
$node->safe_psql('postgres', 'CREATE DATABASE fresh');
$node->safe_psql('fresh', 'CREATE EXTENSION elastic_index');
is($node->safe_psql('fresh',
	"SELECT extversion FROM pg_extension WHERE extname = 'elastic_index'"),
	'0.3.0', 'CREATE EXTENSION installs 0.3.0');
my $fresh03_catalog = $node->safe_psql('fresh', $catalog_query);
my $nclasses03 = $node->safe_psql('fresh', $nclasses_query);
is($nclasses03, $nclasses + 34, '0.3.0 has 17 more operator classes per access method');
is($node->safe_psql('fresh', $validate_query), "$nclasses03 of $nclasses03",
	'0.3.0: amvalidate accepts every operator class');
foreach my $am (qw(elastic_btree osm_tree))
{
	like($fresh03_catalog, qr/^$am class varchar_pattern_ops for text default f family text_pattern_ops$/m,
		"0.3.0: $am has varchar_pattern_ops, sharing text_pattern_ops's members");
	like($fresh03_catalog, qr/^$am class enum_ops for anyenum default t family enum_ops$/m,
		"0.3.0: $am has a default class for enums");
	like($fresh03_catalog, qr/^$am text_ops proc 1 \(name,text\) btnametextcmp\(name,text\) depends on /m,
		"0.3.0: $am has name vs text in the family text_ops, as btree");
	like($fresh03_catalog, qr/^$am network_ops proc 2 \(inet,inet\) network_sortsupport\(internal\) depends on .*operator class inet_ops for access method $am \(i\)/m,
		"0.3.0: $am has inet's sort support, a member of inet_ops");
}

# 0.2.0 to 0.3.0, with an index built under 0.2.0
$node->safe_psql('postgres', 'CREATE DATABASE mid');
$node->safe_psql(
	'mid', q{
CREATE EXTENSION elastic_index VERSION '0.2.0';
CREATE TABLE m (id int4, t text, ip inet, e text);
INSERT INTO m SELECT g, md5((g % 500)::text),
	('10.' || (g % 200) || '.' || (g % 7) || '.1')::inet,
	(ARRAY['sad', 'ok', 'happy'])[1 + g % 3]
FROM generate_series(1, 5000) AS g;
CREATE INDEX m_t ON m USING elastic_btree (t);
});
my ($ret02, $out02, $err02) =
  $node->psql('mid', 'CREATE INDEX m_ip ON m USING elastic_btree (ip)');
like($err02, qr/data type inet has no default operator class for access method "elastic_btree"/,
	'0.2.0 has no operator class for inet');
$node->safe_psql('mid', 'ALTER EXTENSION elastic_index UPDATE');
is($node->safe_psql('mid',
	"SELECT extversion FROM pg_extension WHERE extname = 'elastic_index'"),
	'0.3.0', 'ALTER EXTENSION UPDATE takes 0.2.0 to 0.3.0');
is($node->safe_psql('mid', $catalog_query), $fresh03_catalog,
	'the catalog updated from 0.2.0 is the one a fresh 0.3.0 install makes');
is($node->safe_psql('mid', $validate_query), "$nclasses03 of $nclasses03",
	'after the update from 0.2.0 amvalidate accepts every operator class');
$node->safe_psql(
	'mid', q{
CREATE TYPE mood AS ENUM ('sad', 'ok', 'happy');
ALTER TABLE m ALTER e TYPE mood USING e::mood;
CREATE INDEX m_ip ON m USING elastic_btree (ip);
CREATE INDEX m_e ON m USING osm_tree (e);
CREATE INDEX m_tp ON m USING osm_tree (t text_pattern_ops);
INSERT INTO m SELECT g, md5((g % 500)::text),
	('10.' || (g % 200) || '.' || (g % 7) || '.1')::inet,
	(ARRAY['sad', 'ok', 'happy'])[1 + g % 3]::mood
FROM generate_series(5001, 6000) AS g;
});
my @mid_queries = (
	q{SELECT count(*), sum(id) FROM m WHERE ip >= '10.50.0.0' AND ip < '10.120.0.0'},
	q{SELECT count(*), sum(id) FROM m WHERE e > 'sad'},
	q{SELECT count(*), sum(id) FROM m WHERE t ~>=~ '3' AND t ~<~ 'c'},
	q{SELECT count(*), sum(id) FROM m WHERE t > '3' AND t < 'c'});
my $mid_force = 'SET enable_seqscan = off; SET enable_bitmapscan = off;';
my $mid_noindex = 'SET enable_indexscan = off; SET enable_indexonlyscan = off; SET enable_bitmapscan = off;';
foreach my $q (@mid_queries)
{
	like($node->safe_psql('mid', "$mid_force EXPLAIN (COSTS OFF) $q"), qr/Index (Only )?Scan using m_/,
		"after the update from 0.2.0 an index serves: $q");
	is($node->safe_psql('mid', "$mid_force $q"), $node->safe_psql('mid', "$mid_noindex $q"),
		"and answers like a sequential scan: $q");
}
foreach my $idx (qw(m_t m_ip m_e m_tp))
{
	my ($ret, $out, $err) =
	  $node->psql('mid', "SELECT elastic_index_check('$idx', true)");
	is($ret, 0, "elastic_index_check($idx) passes after the update from 0.2.0") or diag($err);
}

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
ALTER EXTENSION elastic_index UPDATE TO '0.2.0';
INSERT INTO u SELECT g, (g * 7919) % 40000, md5(g::text), g
FROM generate_series(20001, 21000) AS g;
SELECT count(*) FROM u WHERE k >= 0;
});
like($same_session, qr/21000$/, 'inserts right after the update, in the same session, go into the indexes');
is($node->safe_psql('old',
	"SELECT extversion FROM pg_extension WHERE extname = 'elastic_index'"),
	'0.2.0', 'ALTER EXTENSION UPDATE TO reaches 0.2.0');
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

# on to 0.3.0
$node->safe_psql('old', 'ALTER EXTENSION elastic_index UPDATE');
is($node->safe_psql('old',
	"SELECT extversion FROM pg_extension WHERE extname = 'elastic_index'"),
	'0.3.0', 'a second ALTER EXTENSION UPDATE reaches 0.3.0');
is($node->safe_psql('old', $catalog_query), $fresh03_catalog,
	'the catalog updated from 0.1.0 through 0.2.0 is the one a fresh 0.3.0 install makes');
is(answers('old', $force), answers('old', $noindex),
	'the indexes built under 0.1.0 answer like a sequential scan at 0.3.0');

$node->stop;
done_testing();
