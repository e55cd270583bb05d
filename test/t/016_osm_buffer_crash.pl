# Crash safety of osm_tree's insert buffer.  New entries go to a chain of
# buffer pages (BUFFER_ADD, BUFFER_LINK newpage records); a flush step
# closes the tail page (BUFFER_LINK seal), inserts the pages' entries sorted
# into the tree, and only then unlinks the pages (BUFFER_LINK unlink).  With
# wal_consistency_checking = 'all' on the primary, a streaming standby and
# every crash recovery compare each replayed page with the primary's image
# ('all,elastic_index': at server start 'all' alone means only the built-in
# resource managers, ours being registered later by the preloaded library).
# Two indexes with a buffer of 8 pages: o_k (int8, batch_size = 1, so every
# row goes to the buffer) and o_t (text COLLATE "C", whose pages carry Bloom
# filters; small transactions' batches go to the buffer).  The test loads
# near-sorted keys in many small transactions, so that inserts that find
# the buffer full flush it, then crashes (a) with a non-empty buffer, (b)
# after a flush stopped right after sealing the tail (elastic_index.
# debug_fault = after_seal), (c) after a flush stopped between inserting
# the entries into the tree and unlinking the pages (after_flush_insert:
# entries in the buffer and the tree).  After every restart the index
# answers like a sequential scan, row for row (forward, backward, a range,
# a bitmap scan, an index-only scan, equality lookups through the Bloom
# filters), passes elastic_index_check, takes more rows, flushes to an empty
# buffer, and the standby answers like the primary.  Then VACUUM empties
# the buffer and removes deleted rows' entries, and the background flush
# worker flushes without any explicit flush.

use strict;
use warnings;

use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $node = PostgreSQL::Test::Cluster->new('osm_buffer');
$node->init(allows_streaming => 1);
$node->append_conf(
	'postgresql.conf', qq{
shared_preload_libraries = 'elastic_index'
wal_consistency_checking = 'all,elastic_index'
autovacuum = off
max_parallel_workers_per_gather = 0
osm_tree.flush_worker = off
# every entry through the buffer: keys in order would otherwise go
# straight into the rightmost leaf (plain tree inserts, tested elsewhere)
osm_tree.top_inserts = off
wal_keep_size = '2GB'
max_wal_size = '4GB'
});
$node->start;

$node->safe_psql(
	'postgres', q{
CREATE EXTENSION elastic_index;
CREATE TABLE o (k int8, t text COLLATE "C", id int8);
CREATE INDEX o_k ON o USING osm_tree (k)
  WITH (batch_size = 1, buffer_size = 8, flush_fraction = 0.5);
CREATE INDEX o_t ON o USING osm_tree (t)
  WITH (buffer_size = 8, flush_fraction = 0.5);
});

$node->backup('bkp');
my $standby = PostgreSQL::Test::Cluster->new('osm_buffer_standby');
$standby->init_from_backup($node, 'bkp', has_streaming => 1);
$standby->append_conf('postgresql.conf',
	"shared_preload_libraries = 'elastic_index'");
$standby->start;

is($node->safe_psql('postgres', 'SHOW wal_consistency_checking'),
	'all,elastic_index', 'the primary checks the consistency of every record');
my $start_lsn = $node->lsn('insert');

# rows in the table, and the greatest key so far (keys are unique)
my $rows = 0;
my $maxkey = 0;
my $arrival = 0;

# Load the keys $maxkey + 1 .. $maxkey + $n in a near-sorted order, $chunk
# rows per transaction (a DO block that commits after every chunk).
sub load
{
	my ($n, $chunk, $seed) = @_;
	my $base = $maxkey;
	my $chunks = int(($n + $chunk - 1) / $chunk);
	$node->safe_psql(
		'postgres', qq{
DO \$do\$
BEGIN
	FOR c IN 0 .. $chunks - 1 LOOP
		INSERT INTO o
		SELECT $base + key, md5(($base + key)::text), $arrival + pos
		FROM elastic_index_near_sorted($n, 5, 2, $seed)
		WHERE pos > c * $chunk AND pos <= (c + 1) * $chunk
		ORDER BY pos;
		COMMIT;
	END LOOP;
END
\$do\$;
});
	$maxkey += $n;
	$arrival += $n;
	$rows += $n;
	return;
}

# the index-forced queries, what each must use, and the reference settings
my $force = 'SET enable_seqscan = off; SET enable_bitmapscan = off; SET enable_sort = off;';
my $bitmap = 'SET enable_seqscan = off; SET enable_indexscan = off; SET enable_indexonlyscan = off;';
my $noindex = 'SET enable_indexscan = off; SET enable_indexonlyscan = off; SET enable_bitmapscan = off;';

sub queries
{
	my $lo = $maxkey - 1200;
	my $hi = $maxkey - 150;
	return (
		[
			'forward', $force,
			q{SELECT count(*), count(DISTINCT k), md5(string_agg(k || ':' || id || ':' || t, ',')) FROM (SELECT k, id, t FROM o WHERE k > 0 ORDER BY k) AS x},
			qr/Index Scan using o_k/
		],
		[
			'backward', $force,
			q{SELECT count(*), count(DISTINCT k), md5(string_agg(k || ':' || id, ',')) FROM (SELECT k, id FROM o WHERE k > 0 ORDER BY k DESC) AS x},
			qr/Index Scan Backward using o_k/
		],
		[
			'range', $force,
			qq{SELECT count(*), count(DISTINCT k), md5(string_agg(k || ':' || id, ',')) FROM (SELECT k, id FROM o WHERE k BETWEEN $lo AND $hi ORDER BY k) AS x},
			qr/Index Scan using o_k/
		],
		[
			'index-only', $force,
			q{SELECT count(*), count(DISTINCT k), md5(string_agg(k::text, ',')) FROM (SELECT k FROM o WHERE k > 0 ORDER BY k) AS x},
			qr/Index (Only )?Scan using o_k/
		],
		[
			'bitmap', $bitmap,
			q{SELECT count(*), count(DISTINCT k), sum(k), sum(id) FROM o WHERE k > 0},
			qr/Bitmap Index Scan on o_k/
		],
		[
			'text', $force,
			q{SELECT count(*), count(DISTINCT t), md5(string_agg(t || ':' || k, ',')) FROM (SELECT t, k FROM o WHERE t > '' ORDER BY t) AS x},
			qr/Index Scan using o_t/
		],);
}

# every row with k % 7 = 0 found by an equality lookup of its text key
my $lookup = q{SELECT count(*) FROM o AS x WHERE x.k % 7 = 0 AND (SELECT count(*) FROM o AS y WHERE y.t = x.t) = 1};

sub check_index
{
	my ($label) = @_;
	my @q = queries();
	my @plans_bad;
	my %answer;

	foreach my $qq (@q)
	{
		my ($name, $set, $sql, $plan_re) = @$qq;
		my $plan = $node->safe_psql('postgres', "$set EXPLAIN (COSTS OFF) $sql");
		push @plans_bad, "$name:\n$plan" unless $plan =~ $plan_re;
		my $via_index = $node->safe_psql('postgres', "$set $sql");
		my $via_seq = $node->safe_psql('postgres', "$noindex $sql");
		is($via_index, $via_seq, "$label: $name scan answers like a sequential scan");
		$answer{$name} = $via_index;
	}
	my $lplan = $node->safe_psql('postgres', "$force EXPLAIN (COSTS OFF) $lookup");
	push @plans_bad, "lookup:\n$lplan"
	  unless $lplan =~ /Index (Only )?Scan using o_t on o y/;
	ok(!@plans_bad, "$label: every query runs through its index")
	  or diag(join("\n", @plans_bad));

	like($answer{forward}, qr/^$rows\|$rows\|/,
		"$label: $rows rows through o_k, none lost or doubled");
	like($answer{text}, qr/^$rows\|$rows\|/,
		"$label: $rows rows through o_t, none lost or doubled");
	my $sampled = $node->safe_psql('postgres',
		"$noindex SELECT count(*) FROM o WHERE k % 7 = 0");
	is($node->safe_psql('postgres', "$force $lookup"),
		$sampled, "$label: every sampled row is found by its text key");

	foreach my $idx (qw(o_k o_t))
	{
		my ($ret, $out, $err) =
		  $node->psql('postgres', "SELECT elastic_index_check('$idx', true)");
		is($ret, 0, "$label: elastic_index_check($idx) passes") or diag($err);
	}

	$node->wait_for_catchup($standby, 'replay', $node->lsn('insert'));
	my @diff;
	foreach my $qq (@q)
	{
		my ($name, $set, $sql) = @$qq;
		my $s = $standby->safe_psql('postgres', "$set $sql");
		push @diff, "$name: standby $s, primary $answer{$name}"
		  if $s ne $answer{$name};
	}
	my $slookup = $standby->safe_psql('postgres', "$force $lookup");
	push @diff, "lookup: standby $slookup, primary $sampled"
	  if $slookup ne $sampled;
	ok(!@diff, "$label: the standby answers like the primary")
	  or diag(join("\n", @diff));
	return;
}

# pages|entries|closed_pages of an index's buffer
sub buffer_state
{
	my ($idx, $on) = @_;
	$on //= $node;
	return $on->safe_psql('postgres',
		"SELECT pages, entries, closed_pages FROM osm_tree_buffer_stats('$idx')");
}

# entries in the sorted sections of an index's buffer pages
sub sorted_entries
{
	my ($idx, $on) = @_;
	$on //= $node;
	return $on->safe_psql('postgres',
		"SELECT sorted_entries FROM osm_tree_buffer_stats('$idx')");
}

sub tree_entries
{
	my ($idx) = @_;
	return $node->safe_psql('postgres',
		"SELECT entries FROM elastic_index_stats('$idx')");
}

sub crash_restart
{
	$node->stop('immediate');
	$node->start;
	return;
}

# after a restart: the index answers, takes more rows, flushes to empty
sub after_crash
{
	my ($label, $seed) = @_;
	check_index("$label");
	load(1000, 100, $seed);
	check_index("$label, then more rows");
	foreach my $idx (qw(o_k o_t))
	{
		my $moved = $node->safe_psql('postgres', "SELECT osm_tree_flush('$idx')");
		cmp_ok($moved, '>', 0, "$label: osm_tree_flush($idx) moved $moved entries");
		is(buffer_state($idx), '0|0|0', "$label: the buffer of $idx is empty after the flush");
		is(tree_entries($idx), $rows, "$label: the tree of $idx holds all $rows rows");
	}
	check_index("$label, after a flush");
	return;
}

# 1. many small transactions; inserts that find the buffer full flush it
load(6000, 200, 3);
my $act = q{SELECT buffer_inserts, buffer_flushes > 0, buffer_foreground_flushes > 0, buffer_flushed_entries > 0 FROM elastic_index_stat_activity WHERE indexrelname = '%s'};
is($node->safe_psql('postgres', sprintf($act, 'o_k')),
	"$rows|t|t|t", 'o_k: every row went to the buffer, and full buffers were flushed by inserts');
is($node->safe_psql('postgres', sprintf($act, 'o_t')),
	"$rows|t|t|t", 'o_t: every small batch went to the buffer, and full buffers were flushed by inserts');
foreach my $idx (qw(o_k o_t))
{
	my ($pages, $entries, $closed) = split /\|/, buffer_state($idx);
	ok($pages > 0 && $pages <= 8 && $entries > 0 && $closed == $pages - 1,
		"$idx: the buffer holds $entries entries on $pages pages, all but the tail closed");
	is(tree_entries($idx) + $entries, $rows,
		"$idx: tree and buffer together hold every row once");
}
check_index('after loading');

# the buffer pages' filters and zonemaps let lookups skip them
$node->safe_psql('postgres', q{SELECT elastic_index_activity_reset('o_t'), elastic_index_activity_reset('o_k')});
$node->safe_psql('postgres',
	"$force SELECT count(*) FROM generate_series(1, 200) AS g, LATERAL (SELECT 1 FROM o WHERE t = md5('absent' || g)) AS l");
my ($read, $skipped) = split /\|/,
  $node->safe_psql('postgres',
	q{SELECT buffer_pages_read, buffer_pages_skipped FROM elastic_index_stat_activity WHERE indexrelname = 'o_t'});
ok($skipped > 0 && $read * 10 < $skipped,
	"lookups of absent text keys skip buffer pages by their Bloom filters (read $read, skipped $skipped)");
is($node->safe_psql('postgres', "$force SELECT count(*) FROM o WHERE k BETWEEN 1 AND 100"),
	'100', 'a range of old keys finds its rows');
($read, $skipped) = split /\|/,
  $node->safe_psql('postgres',
	q{SELECT buffer_pages_read, buffer_pages_skipped FROM elastic_index_stat_activity WHERE indexrelname = 'o_k'});
ok($skipped > 0 && $read == 0,
	"a range of old keys skips the buffer pages by their zonemaps (read $read, skipped $skipped)");

# (a) a crash with a non-empty buffer, some of whose pages range queries
# sorted (query-driven sorting, BUFFER_LINK sort)
my %before = map { $_ => buffer_state($_) } qw(o_k o_t);
my $sorted_before = sorted_entries('o_k');
ok($sorted_before > 0,
	"(a) range queries sorted buffer pages of o_k ($sorted_before entries)");
$node->wait_for_catchup($standby, 'replay', $node->lsn('insert'));
is(sorted_entries('o_k', $standby), $sorted_before,
	'(a) the standby has the same sorted sections');
crash_restart();
foreach my $idx (qw(o_k o_t))
{
	is(buffer_state($idx), $before{$idx},
		"(a) $idx: the buffer is as before the crash");
}
is(sorted_entries('o_k'), $sorted_before,
	'(a) the sorted sections survive the crash');
after_crash('(a) after a crash with a non-empty buffer', 4);

# (b) a flush stopped right after sealing the tail page
load(1500, 150, 5);
my %tree_before = map { $_ => tree_entries($_) } qw(o_k o_t);
foreach my $idx (qw(o_k o_t))
{
	my ($ret, $out, $err) = $node->psql(
		'postgres', qq{
SET elastic_index.debug_fault = 'after_seal';
SELECT osm_tree_flush('$idx');
});
	isnt($ret, 0, "(b) the forced fault stopped the flush of $idx");
	like($err, qr/fault injected/, "(b) $idx: the error is the injected fault");
	my ($pages, $entries, $closed) = split /\|/, buffer_state($idx);
	ok($pages > 0 && $closed == $pages,
		"(b) $idx: every buffer page is closed, the tail sealed ($pages pages, $closed closed)");
	is(tree_entries($idx), $tree_before{$idx}, "(b) $idx: nothing reached the tree");
	$before{$idx} = buffer_state($idx);
}
$node->wait_for_catchup($standby, 'replay', $node->lsn('insert'));
foreach my $idx (qw(o_k o_t))
{
	is(buffer_state($idx, $standby), $before{$idx},
		"(b) $idx: the standby has the sealed tail too");
}
crash_restart();
foreach my $idx (qw(o_k o_t))
{
	is(buffer_state($idx), $before{$idx},
		"(b) $idx: after the crash the buffer is as before, the tail sealed");
}
after_crash('(b) after a crash following a seal', 6);

# (c) a flush stopped after inserting into the tree, before the unlink:
# every buffered entry is in the buffer and in the tree
load(1500, 150, 7);
foreach my $idx (qw(o_k o_t))
{
	my $tree = tree_entries($idx);
	my ($pages, $entries) = split /\|/, buffer_state($idx);
	is($tree + $entries, $rows, "(c) $idx: tree and buffer hold every row once before the flush");
	my ($ret, $out, $err) = $node->psql(
		'postgres', qq{
SET elastic_index.debug_fault = 'after_flush_insert';
SELECT osm_tree_flush('$idx');
});
	isnt($ret, 0, "(c) the forced fault stopped the flush of $idx");
	like($err, qr/fault injected/, "(c) $idx: the error is the injected fault");
	$before{$idx} = buffer_state($idx);
	like($before{$idx}, qr/^$pages\|$entries\|$pages$/,
		"(c) $idx: the buffer still holds its $entries entries, all pages closed");
	is(tree_entries($idx), $rows, "(c) $idx: the tree holds them too");
}
check_index('(c) with entries in the buffer and the tree');
crash_restart();
foreach my $idx (qw(o_k o_t))
{
	is(buffer_state($idx), $before{$idx},
		"(c) $idx: after the crash the buffer still holds its entries");
	is(tree_entries($idx), $rows, "(c) $idx: after the crash the tree holds them too");
}
after_crash('(c) after a crash between the flush insert and the unlink', 8);

# 5. VACUUM empties the buffer; deleted rows' entries are gone
$node->safe_psql('postgres', 'VACUUM o');
load(1500, 150, 9);
foreach my $idx (qw(o_k o_t))
{
	my ($pages) = split /\|/, buffer_state($idx);
	cmp_ok($pages, '>', 0, "(5) $idx: the buffer has pages before VACUUM");
}
my $deleted = $node->safe_psql(
	'postgres', qq{
WITH d AS (DELETE FROM o WHERE k % 5 = 0 OR k > $maxkey - 300 RETURNING 1)
SELECT count(*) FROM d});
$rows -= $deleted;
$maxkey -= 300;
cmp_ok($deleted, '>', 300, "(5) deleted $deleted rows, some of them buffered");
$node->safe_psql('postgres', 'VACUUM o');
foreach my $idx (qw(o_k o_t))
{
	is(buffer_state($idx), '0|0|0', "(5) $idx: VACUUM emptied the buffer");
	is( $node->safe_psql(
			'postgres', "SELECT entries, dead_entries FROM elastic_index_stats('$idx')"),
		"$rows|0",
		"(5) $idx: the tree holds only the $rows remaining rows");
}
like(
	$node->safe_psql(
		'postgres', "$force EXPLAIN (COSTS OFF) " . (queries())[3][2]),
	qr/Index Only Scan using o_k/,
	'(5) after VACUUM the index-only query is an index-only scan');
check_index('(5) after deletes and VACUUM');
load(1000, 100, 10);
check_index('(5) after more rows on top of the vacuumed index');

# 6. the background worker flushes without an explicit flush
$node->safe_psql('postgres', 'SELECT osm_tree_flush(\'o_k\'), osm_tree_flush(\'o_t\')');
$node->safe_psql('postgres',
	'ALTER SYSTEM SET osm_tree.flush_worker = on; SELECT pg_reload_conf();');
$node->poll_query_until('postgres', q{SELECT current_setting('osm_tree.flush_worker') = 'on'})
  or die 'reload did not take effect';
my ($flushes0) = $node->safe_psql('postgres',
	q{SELECT flushes FROM osm_tree_buffer_stats('o_k')});
my $fg0 = $node->safe_psql('postgres',
	q{SELECT buffer_foreground_flushes FROM elastic_index_stat_activity WHERE indexrelname = 'o_k'});
# about 5.5 buffer pages of o_k: a flush's worth (4) waits, the buffer (8)
# never fills, so only the worker can flush
load(2000, 2000, 11);
ok( $node->poll_query_until(
		'postgres',
		"SELECT flushes > $flushes0 AND closed_pages < 4 FROM osm_tree_buffer_stats('o_k')"
	),
	'(6) the background worker flushed o_k');
is( $node->safe_psql(
		'postgres',
		q{SELECT buffer_foreground_flushes FROM elastic_index_stat_activity WHERE indexrelname = 'o_k'}
	),
	$fg0,
	'(6) no insert flushed o_k itself');
my ($pages, $entries) = split /\|/, buffer_state('o_k');
cmp_ok($pages, '>', 0, "(6) o_k keeps less than a flush's worth buffered ($pages pages)");
is(tree_entries('o_k') + $entries, $rows, '(6) o_k: tree and buffer hold every row once');
check_index('(6) after a background flush');

# and a last crash after the worker's flush
crash_restart();
check_index('(6) after a crash following a background flush');

# every kind of buffer record was written, each with the page images that
# redo compares its result with (pg_walinspect runs in the server, where
# our resource manager is registered)
$node->safe_psql('postgres', 'CREATE EXTENSION pg_walinspect');
my $records = $node->safe_psql(
	'postgres', qq{
SELECT record_type || CASE WHEN record_type = 'BUFFER_LINK' THEN ' ' || split_part(description, ',', 1) ELSE '' END,
	   count(*), count(*) FILTER (WHERE fpi_length = 0 AND coalesce(block_ref, '') <> '')
FROM pg_get_wal_records_info('$start_lsn', pg_current_wal_flush_lsn())
WHERE resource_manager = 'elastic_index'
GROUP BY 1 ORDER BY 1});
note "elastic_index records (type|count|with pages but no image):\n$records";
foreach my $type ('BUFFER_ADD', 'BUFFER_LINK newpage', 'BUFFER_LINK seal',
	'BUFFER_LINK sort', 'BUFFER_LINK unlink', 'INSERT_MULTI')
{
	like($records, qr/^$type\|[1-9]\d*\|/m, "the test wrote $type records");
}
unlike($records, qr/\|[1-9]\d*$/m,
	'every elastic_index record that touches pages carries their images for the consistency check');

foreach my $n ($node, $standby)
{
	my $log = PostgreSQL::Test::Utils::slurp_file($n->logfile);
	unlike($log, qr/inconsistent page found/, $n->name . ': no inconsistent page found');
	unlike($log, qr/PANIC|TRAP/, $n->name . ': no PANIC');
}

$standby->stop;
$node->stop;
done_testing();
