# requires: pg_walinspect
# The dedup pass's WAL record (src/README.md, "Posting lists", Insert and
# Record codes): a dedup pass of a full leaf logs the dedup form of
# INSERT_MULTI (its intervals: base offset and item count of each new
# list), never a full-page image, and redo merges the same runs again
# with the primary's code (EIDedupBuildPage).  On a primary with a
# streaming standby and wal_consistency_checking = 'all', indexes of
# elastic_btree with deduplicate_items = on grow from empty (int4 keys of
# 10 values, text keys of 300, int8 keys of ~15 rows each), lose rows
# to scans that mark them dead and to VACUUM, and grow again.  pg_walinspect
# must show the new records with their description, no FPI record for
# these indexes, and records far smaller than the 8 KB page image.  The
# standby must find every page equal to the primary's image and answer
# as the primary, whose answers equal btree's and a sequential scan's;
# then the primary crashes after more dedup passes and replays them.

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

my @queries = (
	'SELECT count(*), sum(id) FROM d WHERE k BETWEEN 2 AND 6',
	'SELECT count(*), sum(id) FROM d WHERE k = 9',
	'SELECT count(*), sum(id) FROM d WHERE t >= \'k-0100\' AND t < \'k-0200\'',
	'SELECT string_agg(id::text, \',\' ORDER BY id) FROM d WHERE t = \'k-0042\'',
	'SELECT count(*), sum(id) FROM d WHERE b BETWEEN -100000 AND 100000',
	'SELECT count(*), sum(b) FROM d WHERE b < 0',
);

my $byindex = 'SET enable_seqscan = off; SET enable_bitmapscan = off;';
my $seqonly =
  'SET enable_indexscan = off; SET enable_indexonlyscan = off; SET enable_bitmapscan = off;';

# The queries' answers through the elastic_btree indexes on one node; on
# the primary also through btree indexes of a copy, and by sequential
# scan, which must agree.
sub answers
{
	my ($node, $compare) = @_;
	my @out;
	if ($compare)
	{
		$node->safe_psql(
			'postgres', q{
DROP TABLE IF EXISTS dbt;
CREATE TABLE dbt AS SELECT * FROM d;
CREATE INDEX ON dbt (k);
CREATE INDEX ON dbt (t);
CREATE INDEX ON dbt (b);
});
	}
	for my $q (@queries)
	{
		my $idx = $node->safe_psql('postgres', "$byindex $q");
		if ($compare)
		{
			(my $bq = $q) =~ s/FROM d /FROM dbt /;
			is($node->safe_psql('postgres', "$byindex $bq"),
				$idx, "btree answers as elastic_btree: $q");
			is($node->safe_psql('postgres', "$seqonly $q"),
				$idx, "a sequential scan answers as elastic_btree: $q");
		}
		push @out, $idx;
	}
	return join("\n", @out);
}

# the dedup records and the FPI records of the indexes from $from on
sub dedup_records
{
	my ($node, $from, $to) = @_;
	return $node->safe_psql(
		'postgres', qq{
SELECT count(*) FILTER (WHERE resource_manager = 'elastic_index'
		AND record_type = 'INSERT_MULTI' AND description ~ '^dedup: nintervals [1-9][0-9]*\$'),
	count(*) FILTER (WHERE record_type = 'FPI' AND block_ref ~ ('/(' ||
		pg_relation_filenode('d_k') || '|' || pg_relation_filenode('d_t') || '|' ||
		pg_relation_filenode('d_b') || ')[ ,]')),
	coalesce(max(record_length - fpi_length) FILTER (WHERE description LIKE 'dedup:%'), 0),
	coalesce(round(avg(record_length - fpi_length) FILTER (WHERE description LIKE 'dedup:%')), 0)
FROM pg_get_wal_records_info('$from', '$to')});
}

$primary->safe_psql(
	'postgres', q{
CREATE EXTENSION elastic_index;
CREATE EXTENSION pg_walinspect;
CREATE TABLE d (id int4, k int4, t text COLLATE "C", b int8);
CREATE INDEX d_k ON d USING elastic_btree (k) WITH (deduplicate_items = on);
CREATE INDEX d_t ON d USING elastic_btree (t) WITH (deduplicate_items = on);
CREATE INDEX d_b ON d USING elastic_btree (b) WITH (deduplicate_items = on);
});
my $start = $primary->lsn('insert');
$primary->safe_psql(
	'postgres', q{
INSERT INTO d SELECT i, i % 10, 'k-' || lpad((i % 300)::text, 4, '0'),
	hashint4(i / 15) % 1000000
FROM generate_series(1, 20000) AS i;
});
my $end = $primary->lsn('insert');
my ($ndedup, $nfpi, $maxlen, $avglen) =
  split /\|/, dedup_records($primary, $start, $end);
cmp_ok($ndedup, '>', 20, 'dedup passes write the dedup form of INSERT_MULTI');
# 'all' alone, read at server start before the library registers our
# resource manager, would leave our records unchecked: every dedup record
# must carry the image the standby and crash recovery compare against
is($primary->safe_psql('postgres', qq{
SELECT count(*) FILTER (WHERE fpi_length = 0)
FROM pg_get_wal_records_info('$start', '$end') WHERE description LIKE 'dedup:%'}),
	'0', 'every dedup record carries its consistency-check image');
is($nfpi, 0, 'and no FPI record for the indexes');
cmp_ok($maxlen, '<', 1024,
	'a dedup record without its consistency image is far below a page');
note "dedup records: $ndedup, bytes without the check image: avg $avglen, max $maxlen";

# Without wal_consistency_checking, a dedup record carries an image only
# when it is the page's first change after a checkpoint.
$start = $primary->lsn('insert');
$primary->safe_psql(
	'postgres', q{
SET wal_consistency_checking = '';
INSERT INTO d SELECT i, i % 10, 'k-' || lpad((i % 300)::text, 4, '0'),
	hashint4(i / 15) % 1000000
FROM generate_series(20001, 30000) AS i;
});
$end = $primary->lsn('insert');
my $sizes = $primary->safe_psql(
	'postgres', qq{
SELECT count(*), percentile_disc(0.5) WITHIN GROUP (ORDER BY record_length),
	current_setting('block_size')
FROM pg_get_wal_records_info('$start', '$end') WHERE description LIKE 'dedup:%'});
my ($n, $median, $blcksz) = split /\|/, $sizes;
cmp_ok($n, '>', 10, 'more dedup records');
cmp_ok($median * 8, '<', $blcksz,
	'the median dedup record is below an eighth of the page image it replaces');
note "dedup records without consistency checking: $n, median $median bytes, page $blcksz";

# dead entries (scans mark them), VACUUM's rewritten lists, and more
# dedup passes over lists, plain entries and dead items
$primary->safe_psql(
	'postgres', q{
DELETE FROM d WHERE k = 4 OR t LIKE 'k-01%';
SET enable_seqscan = off;
SET enable_bitmapscan = off;
SELECT count(*) FROM d WHERE k = 4;
SELECT count(*) FROM d WHERE t >= 'k-0100' AND t < 'k-0200';
INSERT INTO d SELECT i, i % 10, 'k-' || lpad((i % 300)::text, 4, '0'),
	hashint4(i / 15) % 1000000
FROM generate_series(30001, 36000) AS i;
DELETE FROM d WHERE id % 3 = 0;
VACUUM d;
INSERT INTO d SELECT i, i % 10, 'k-' || lpad((i % 300)::text, 4, '0'),
	hashint4(i / 15) % 1000000
FROM generate_series(36001, 50000) AS i;
});
for my $i ('d_k', 'd_t', 'd_b')
{
	$primary->safe_psql('postgres', "SELECT elastic_index_check('$i', true)");
}
is($primary->safe_psql('postgres',
		"SELECT entries FROM elastic_index_stats('d_k')"),
	$primary->safe_psql('postgres', 'SELECT count(*) FROM d'),
	'every row has one TID in the index');

my $want = answers($primary, 1);
$primary->wait_for_catchup($standby, 'replay', $primary->lsn('insert'));
is(answers($standby, 0), $want, 'the standby answers as the primary');
$standby->safe_psql('postgres', "SELECT elastic_index_check('d_k')");
my $log = slurp_file($standby->logfile);
unlike($log, qr/inconsistent page found/, 'no inconsistent page on the standby');

# crash recovery replays dedup records (those after the checkpoint)
$primary->safe_psql('postgres', 'CHECKPOINT');
$start = $primary->lsn('insert');
$primary->safe_psql(
	'postgres', q{
INSERT INTO d SELECT i, i % 10, 'k-' || lpad((i % 300)::text, 4, '0'),
	hashint4(i / 15) % 1000000
FROM generate_series(50001, 62000) AS i;
});
$end = $primary->lsn('insert');
($ndedup, $nfpi) = split /\|/, dedup_records($primary, $start, $end);
cmp_ok($ndedup, '>', 10, 'dedup records after the checkpoint');
is($nfpi, 0, 'still no FPI record for the indexes');
$want = answers($primary, 1);
$primary->stop('immediate');
$primary->start;
is(answers($primary, 0), $want, 'after crash recovery the primary answers as before');
for my $i ('d_k', 'd_t', 'd_b')
{
	$primary->safe_psql('postgres', "SELECT elastic_index_check('$i', true)");
}
pass('the verifier accepts the indexes after recovery');
$log = slurp_file($primary->logfile);
unlike($log, qr/inconsistent page found/, 'crash recovery found no inconsistent page');

$primary->wait_for_catchup($standby, 'replay', $primary->lsn('insert'));
is(answers($standby, 0), $want, 'the standby follows the recovered primary');
$log = slurp_file($standby->logfile);
unlike($log, qr/inconsistent page found/, 'still no inconsistent page on the standby');

$standby->stop;
$primary->stop;
done_testing();
