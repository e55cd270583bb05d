# A randomized, concurrent workload that hunts for defects: several pgbench
# clients insert (single rows, near-sorted and scattered, and multi-row
# runs as COPY would), update indexed and non-indexed columns, delete
# ranges, roll transactions back and read through the indexes, while a
# maintenance loop runs VACUUM, mass deletes, size bound changes,
# elastic_btree_shrink / _expand, osm_tree_flush, REINDEX CONCURRENTLY and
# CHECKPOINT.  The indexes cover every mechanism: elastic_btree under a
# small size bound (compact leaves made by inserts and builds, converted
# back by VACUUM and expand), with posting lists (low-cardinality keys),
# with an INCLUDE column and on a text key under COLLATE "C"; osm_tree by
# default, with compact leaves, with the insert buffer (a second pgbench
# runs with osm_tree.top_inserts off, so that its rows go to the buffer)
# and on (device_id, ts).
#
# While the workload runs, readers compare an index scan, a bitmap scan and
# a sequential scan of the same query in one REPEATABLE READ snapshot
# (probe() below); a difference is an error ("probe mismatch") that stops
# the client.  Midway, at the end, and after the primary crashed (immediate
# stop in the middle of the workload) and restarted: every index answers
# like a sequential scan (ElasticIndex::Tools::differential), on the
# primary and on a streaming standby that replayed everything with
# wal_consistency_checking = 'all,elastic_index'; the verifier with
# heapallindexed passes on every index; no server log shows an assertion
# failure, a PANIC, a crashed backend, an internal or corruption error
# (SQLSTATE class XX) or an inconsistent page.
#
#   EI_STRESS_SEED=n      the random seed (pgbench's and the maintenance
#                         loop's; default: from the clock, printed)
#   EI_STRESS_SECONDS=n   workload time (default 30: the test takes about
#                         90 s on an assert-enabled build)
#
# The interleaving of the clients is not reproducible, only the choices
# each makes: a failure found with a seed may need several runs to repeat.

use strict;
use warnings;

use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use IPC::Run;
use FindBin;
use lib "$FindBin::RealBin/../perl";
use ElasticIndex::Tools;

my $seed    = $ENV{EI_STRESS_SEED}    // (time() ^ ($$ << 8)) % 1000000007;
my $seconds = $ENV{EI_STRESS_SECONDS} // 30;
diag("069_random_workload: EI_STRESS_SEED=$seed EI_STRESS_SECONDS=$seconds");
srand($seed);

my $primary = PostgreSQL::Test::Cluster->new('primary');
$primary->init(allows_streaming => 1);
$primary->append_conf(
	'postgresql.conf', q{
shared_preload_libraries = 'elastic_index'
wal_consistency_checking = 'all,elastic_index'
log_line_prefix = '%m [%p] %e %q%a '
log_statement = none
max_wal_size = '2GB'
shared_buffers = 32MB
max_connections = 40
autovacuum_naptime = 2
deadlock_timeout = 100ms
});
$primary->start;
my $standby = ElasticIndex::Tools::slot_standby($primary);

# ev: elastic_btree indexes, one per column so that a query on a column
# can only read its index (on the standby too); rows are made from one
# number by ev_row.  os: osm_tree indexes over a near-sorted clock.
$primary->safe_psql(
	'postgres', q{
CREATE EXTENSION elastic_index;
CREATE SEQUENCE ev_id;
CREATE SEQUENCE ev_near;
CREATE TABLE ev (id int8 DEFAULT nextval('ev_id'), k int8, c int4, a int4,
				 w text, t text COLLATE "C", n int4 DEFAULT 0);
-- the row of number x: k its key, c one of 16 values, a a value of 20011
-- with w included, t a text key (a few longer than compact leaves take)
CREATE FUNCTION ev_row(x int8) RETURNS TABLE (k int8, c int4, a int4, w text, t text)
LANGUAGE sql IMMUTABLE AS $$
	SELECT x, (hashint8(x) & 15), (x % 20011)::int4, md5(x::text),
		   CASE WHEN x % 997 = 0 THEN repeat('z', 300) || x ELSE md5((x * 7)::text) || x END
$$;
INSERT INTO ev (k, c, a, w, t)
SELECT r.* FROM generate_series(1, 30000) g, ev_row((g * 2654435761) % 10000019) r;
INSERT INTO ev (k, c, a, w, t)
SELECT r.* FROM generate_series(1, 5000) g, ev_row(10000000 + nextval('ev_near') * 3) r;
CREATE INDEX ev_k ON ev USING elastic_btree (k) WITH (size_bound = '512kB');
CREATE INDEX ev_c ON ev USING elastic_btree (c);
CREATE INDEX ev_a ON ev USING elastic_btree (a) INCLUDE (w) WITH (size_bound = '1MB');
CREATE INDEX ev_t ON ev USING elastic_btree (t) WITH (size_bound = '1MB');

CREATE SEQUENCE os_clock;
CREATE TABLE os (ts int8, device_id int4, seq int8, b int8, g int4, v int4 DEFAULT 0);
-- n rows of the next clock ticks: ts near-sorted (5% late by up to 5000),
-- 40 devices, seq in arrival order, b near ts, g one of 8 values
CREATE FUNCTION os_rows(n int) RETURNS TABLE (ts int8, device_id int4, seq int8, b int8, g int4)
LANGUAGE sql AS $$
	SELECT s * 10 - CASE WHEN abs(hashint8(s)) % 20 = 0 THEN abs(hashint8(s * 3)) % 5000 ELSE 0 END,
		   (s % 40)::int4, s, s * 10 + abs(hashint8(s * 5)) % 3000, (hashint8(s) & 7)
	FROM (SELECT nextval('os_clock') AS s FROM generate_series(1, n)) AS x
$$;
INSERT INTO os (ts, device_id, seq, b, g) SELECT * FROM os_rows(30000);
CREATE INDEX os_ts ON os USING osm_tree (ts);
CREATE INDEX os_dev ON os USING osm_tree (device_id, ts);
CREATE INDEX os_seq ON os USING osm_tree (seq) WITH (compact_leaves = on);
CREATE INDEX os_b ON os USING osm_tree (b)
	WITH (batch_size = 1, buffer_size = 8, flush_fraction = 0.5, sort_threshold = 16);
CREATE INDEX os_g ON os USING osm_tree (g);

-- The query kind of table tbl on [lo, lo + span] (for os, lo thousandths
-- into the clock's range) answered by an index
-- scan, a bitmap scan and a sequential scan in the caller's snapshot
-- (REPEATABLE READ); an error if they differ.
CREATE FUNCTION probe(tbl text, kind int, lo int8, span int8) RETURNS void
LANGUAGE plpgsql AS $$
DECLARE
	q text;
	by_index text;
	by_bitmap text;
	by_seq text;
	hi int8 := lo + span;
BEGIN
	IF current_setting('transaction_isolation') <> 'repeatable read' THEN
		RAISE EXCEPTION 'probe() needs a REPEATABLE READ transaction';
	END IF;
	IF tbl = 'ev' THEN
		q := CASE kind % 7
		WHEN 0 THEN format('SELECT count(*), sum(id), sum(n) FROM ev WHERE k BETWEEN %s AND %s', lo, hi)
		WHEN 1 THEN format('SELECT count(*), sum(id) FROM ev WHERE k = ANY (ARRAY[%s, %s, %s, %s]::int8[])',
						   lo, lo + 1, hi, lo + span / 2)
		WHEN 2 THEN format('SELECT count(*), sum(id) FROM ev WHERE c = %s AND id %% 7 = 0', lo % 16)
		WHEN 3 THEN format('SELECT count(*), sum(a), md5(string_agg(w, '','' ORDER BY a, w)) FROM ev WHERE a BETWEEN %s AND %s',
						   lo % 20011, lo % 20011 + span % 3000)
		WHEN 4 THEN format('SELECT count(*), md5(string_agg(t, '','' ORDER BY t)) FROM ev WHERE t >= %L AND t < %L',
						   to_hex(lo % 16), to_hex(lo % 16) || 'f')
		WHEN 5 THEN format('SELECT count(*), sum(id) FROM ev WHERE t = ANY (ARRAY(SELECT (ev_row(x)).t FROM generate_series(%s, %s) x))',
						   lo, lo + 30)
		ELSE format('SELECT count(*) FROM ev WHERE k >= %s', 10000000 + lo % 100000)
		END;
	ELSE
		-- lo is a position in the clock's ticks so far, in thousandths
		lo := (SELECT last_value FROM os_clock) * (lo % 1000) / 100;
		hi := lo + span;
		q := CASE kind % 6
		WHEN 0 THEN format('SELECT count(*), sum(seq), sum(v) FROM os WHERE ts BETWEEN %s AND %s', lo, hi)
		WHEN 1 THEN format('SELECT count(*), sum(ts) FROM os WHERE device_id = %s AND ts >= %s', lo % 40, lo)
		WHEN 2 THEN format('SELECT count(*), sum(ts) FROM os WHERE seq BETWEEN %s AND %s', lo / 10, hi / 10)
		WHEN 3 THEN format('SELECT count(*), sum(seq) FROM os WHERE b BETWEEN %s AND %s', lo, hi)
		WHEN 4 THEN format('SELECT count(*), sum(seq) FROM os WHERE b = ANY (ARRAY(SELECT b FROM os_rows_b(%s, 40)))', lo / 10)
		ELSE format('SELECT count(*), sum(seq) FROM os WHERE g = %s AND seq > %s', lo % 8, lo / 10)
		END;
	END IF;
	PERFORM set_config('enable_seqscan', 'off', true);
	PERFORM set_config('enable_bitmapscan', 'off', true);
	PERFORM set_config('enable_indexscan', 'on', true);
	PERFORM set_config('enable_indexonlyscan', 'on', true);
	EXECUTE q INTO by_index;
	PERFORM set_config('enable_bitmapscan', 'on', true);
	PERFORM set_config('enable_indexscan', 'off', true);
	PERFORM set_config('enable_indexonlyscan', 'off', true);
	EXECUTE q INTO by_bitmap;
	PERFORM set_config('enable_seqscan', 'on', true);
	PERFORM set_config('enable_bitmapscan', 'off', true);
	EXECUTE q INTO by_seq;
	IF by_index IS DISTINCT FROM by_seq OR by_bitmap IS DISTINCT FROM by_seq THEN
		RAISE EXCEPTION 'probe mismatch: %: index scan %, bitmap scan %, seq scan %',
			q, by_index, by_bitmap, by_seq;
	END IF;
END $$;
-- the b values of the n clock ticks from s on, as os_rows makes them
CREATE FUNCTION os_rows_b(s int8, n int) RETURNS TABLE (b int8)
LANGUAGE sql IMMUTABLE AS $$
	SELECT x * 10 + abs(hashint8(x * 5)) % 3000 FROM generate_series(s, s + n - 1) x
$$;
VACUUM ANALYZE ev, os;
});

# pgbench scripts: name => [weight, text]
my %scripts = (
	ev_insert => [ 10, q{
\set x random(1, 10000000)
INSERT INTO ev (k, c, a, w, t) SELECT * FROM ev_row(:x);
} ],
	ev_insert_near => [ 8, q{
\set j random(0, 40)
INSERT INTO ev (k, c, a, w, t) SELECT * FROM ev_row(10000000 + nextval('ev_near') * 3 + :j);
} ],
	ev_insert_run => [ 3, q{
\set x random(1, 10000000)
\set m random(10, 500)
\set step random(1, 50)
INSERT INTO ev (k, c, a, w, t) SELECT r.* FROM generate_series(0, :m) g, ev_row(:x + g * :step) r;
} ],
	ev_update_key => [ 3, q{
\set x random(1, 10000000)
\set d random(-500, 500)
UPDATE ev SET k = k + :d, t = md5(t) WHERE k BETWEEN :x AND least(:x + 2000, 9999000);
} ],
	ev_update_other => [ 3, q{
\set x random(1, 10000000)
UPDATE ev SET n = n + 1 WHERE k BETWEEN :x AND :x + 20000;
} ],
	ev_update_low => [ 2, q{
\set x random(1, 10000000)
UPDATE ev SET c = (c + 1) % 16, a = a + 1 WHERE k BETWEEN :x AND :x + 5000;
} ],
	ev_delete => [ 2, q{
\set x random(1, 10000000)
\set r random(100, 100000)
DELETE FROM ev WHERE k BETWEEN :x AND least(:x + :r, 9999999);
} ],
	os_insert => [ 10, q{
INSERT INTO os (ts, device_id, seq, b, g) SELECT * FROM os_rows(1);
} ],
	os_insert_run => [ 3, q{
\set m random(20, 2000)
INSERT INTO os (ts, device_id, seq, b, g) SELECT * FROM os_rows(:m);
} ],
	os_update => [ 3, q{
\set p random(0, 1000)
\set what random(0, 2)
UPDATE os SET v = v + 1, device_id = CASE WHEN :what = 0 THEN device_id + 40 ELSE device_id END,
	g = CASE WHEN :what = 1 THEN (g + 1) % 8 ELSE g END
WHERE ts BETWEEN (SELECT last_value * :p / 100 FROM os_clock) AND (SELECT last_value * :p / 100 + 3000 FROM os_clock);
} ],
	os_delete => [ 2, q{
\set p random(0, 1000)
\set r random(100, 30000)
DELETE FROM os WHERE ts BETWEEN (SELECT greatest(last_value * :p / 100, 100001) FROM os_clock)
	AND (SELECT last_value * :p / 100 + :r FROM os_clock);
} ],
	rollback => [ 2, q{
\set x random(1, 10000000)
BEGIN;
INSERT INTO ev (k, c, a, w, t) SELECT r.* FROM generate_series(0, 200) g, ev_row(:x + g) r;
INSERT INTO os (ts, device_id, seq, b, g) SELECT * FROM os_rows(300);
UPDATE ev SET k = -k WHERE k BETWEEN :x AND :x + 3000;
DELETE FROM os WHERE seq % 50 = :x % 50 AND ts > (SELECT last_value * 9 FROM os_clock);
ROLLBACK;
} ],
	select => [ 4, q{
\set x random(1, 10000000)
SELECT count(*) FROM ev WHERE k = ANY (ARRAY[:x, :x + 1, :x + 2]::int8[]);
SELECT count(*) FROM ev WHERE k BETWEEN :x AND :x + 50000;
SELECT count(*) FROM os WHERE ts BETWEEN :x / 10 AND :x / 10 + 5000;
SELECT count(*) FROM os WHERE b = :x / 10;
SELECT count(*) FROM os WHERE device_id = :x % 40 AND ts > :x / 20;
} ],
	probe_ev => [ 3, q{
\set kind random(0, 6)
\set lo random(1, 10000000)
\set span random(0, 200000)
BEGIN ISOLATION LEVEL REPEATABLE READ;
SELECT probe('ev', :kind, :lo, :span);
COMMIT;
} ],
	probe_os => [ 3, q{
\set kind random(0, 5)
\set lo random(0, 999)
\set span random(0, 20000)
BEGIN ISOLATION LEVEL REPEATABLE READ;
SELECT probe('os', :kind, :lo, :span);
COMMIT;
} ],);

my $dir = PostgreSQL::Test::Utils::tempdir;
my @script_args;
foreach my $name (sort keys %scripts)
{
	my ($weight, $text) = @{ $scripts{$name} };
	PostgreSQL::Test::Utils::append_to_file("$dir/$name.sql", $text);
	push @script_args, '-f', "$dir/$name.sql\@$weight";
}

# Start the workload for $secs seconds: two pgbench runs, one with
# osm_tree.top_inserts off (its single rows go to osm_tree's insert
# buffer), both with a seed derived from the run's.  Returns the handles.
my $round = 0;
sub start_workload
{
	my ($secs) = @_;
	my @runs;
	$round++;
	foreach my $top ('on', 'off')
	{
		my %run = (top => $top, out => '', err => '');
		local $ENV{PGOPTIONS} = "-c osm_tree.top_inserts=$top";
		$run{h} = IPC::Run::start(
			[
				'pgbench', '-n', '-T', $secs,
				'-c', $top eq 'on' ? 4 : 2, '-j', 2,
				'--max-tries', 100, '--verbose-errors',
				'--random-seed', $seed + 10 * $round + ($top eq 'on' ? 0 : 1),
				'-h', $primary->host, '-p', $primary->port, @script_args,
				'postgres'
			],
			'>', \$run{out}, '2>', \$run{err});
		push @runs, \%run;
	}
	return \@runs;
}

# Wait for the workload's pgbench runs: each must have succeeded (no client
# aborted) unless $crashed.
sub finish_workload
{
	my ($runs, $label, $crashed) = @_;
	foreach my $run (@$runs)
	{
		my $rc = $run->{h}->finish ? 0 : $run->{h}->result;
		my ($tx) = $run->{out} =~ /number of transactions actually processed: (\d+)/;
		my ($failed) = $run->{out} =~ /number of failed transactions: (\d+)/;
		note("$label: pgbench (top_inserts $run->{top}): "
			  . ($tx // '?') . ' transactions, '
			  . ($failed // 0) . ' failed');
		next if $crashed;
		is($rc, 0, "$label: pgbench (top_inserts $run->{top}) ran without errors")
		  or diag(substr($run->{err}, 0, 4000));
		my @aborted = grep { !/deadlock detected|could not serialize/ }
		  $run->{err} =~ /^(.*(?:aborted|ERROR|mismatch).*)$/mg;
		is(scalar(@aborted), 0, "$label: no pgbench client aborted (top_inserts $run->{top})")
		  or diag(join("\n", @aborted[0 .. ($#aborted < 20 ? $#aborted : 20)]));
	}
	return;
}

# The maintenance loop, until $until (epoch seconds): a random action, then
# a short pause.  Errors other than deadlocks are failures.
my @bounds = ('256kB', '512kB', '1MB', '4MB', 'none');
my @reindexable = qw(ev_k ev_c ev_a ev_t os_ts os_dev os_seq os_b os_g);
my @maintenance = (
	[ 3, sub { 'VACUUM ev' } ],
	[ 3, sub { 'VACUUM os' } ],
	[ 1, sub { 'VACUUM (FREEZE) ev, os' } ],
	# (mass deletes spare the rows the final queries look for, as the
	# clients' deletes and key updates do)
	[ 2, sub { 'DELETE FROM ev WHERE k < 10000000 AND id % 5 <> ' . int(rand(5)) . '; VACUUM ev' } ],
	[ 1, sub { 'DELETE FROM os WHERE ts > 100000 AND seq % 3 = ' . int(rand(3)) . '; VACUUM os' } ],
	[ 3, sub {
		my $idx = (qw(ev_k ev_a ev_t))[ int(rand(3)) ];
		"ALTER INDEX $idx SET (size_bound = '" . $bounds[ int(rand(@bounds)) ] . "')"
	  } ],
	[ 2, sub { 'SELECT elastic_btree_shrink(\'' . (qw(ev_k ev_a ev_t))[ int(rand(3)) ] . '\'' . (rand() < 0.5 ? ', ' . int(rand(50)) : '') . ')' } ],
	[ 2, sub { 'SELECT elastic_btree_expand(\'' . (qw(ev_k ev_a ev_t))[ int(rand(3)) ] . '\'' . (rand() < 0.5 ? ', ' . int(rand(50)) : '') . ')' } ],
	[ 2, sub { "SELECT osm_tree_flush('os_b')" } ],
	[ 1, sub { 'ALTER INDEX os_b SET (buffer_size = ' . (0, 4, 8, 32)[ int(rand(4)) ] . ')' } ],
	[ 1, sub { 'REINDEX INDEX CONCURRENTLY ' . $reindexable[ int(rand(@reindexable)) ] } ],
	[ 1, sub { 'CHECKPOINT' } ],
	[ 1, sub { 'ANALYZE ev, os' } ],);
my $total_weight = 0;
$total_weight += $_->[0] foreach @maintenance;

sub maintenance_loop
{
	my ($until, $label) = @_;
	my (%done, @errors);
	while (time() < $until)
	{
		my $pick = rand($total_weight);
		my $action;
		foreach my $m (@maintenance)
		{
			$action = $m->[1];
			last if ($pick -= $m->[0]) < 0;
		}
		my $sql = $action->();
		my ($rc, $out, $err) = $primary->psql('postgres', $sql);
		(my $kind = $sql) =~ s/^(\w+(?: \w+)?).*/$1/s;
		$done{$kind}++;
		push @errors, "$sql: $err"
		  if $rc != 0 && $err !~ /deadlock detected|could not obtain lock/;
		select(undef, undef, undef, rand(0.5));
	}
	note("$label: maintenance: "
		  . join(', ', map { "$_ x$done{$_}" } sort keys %done));
	is(scalar(@errors), 0, "$label: every maintenance command succeeded")
	  or diag(join("\n", @errors));
	return;
}

# What each index must answer like a sequential scan, on both servers (on
# the standby, where no other index can be dropped, a condition on a part
# of a column's range, so that the planner picks the index by itself).
my $near_keys = join(',', map { 10000000 + 7 * $_ } 0 .. 700);
my $tick_keys = join(',', map { 10 * (1 + 997 * $_) } 0 .. 700);
my @queries = (
	[ 'ev', 'ev_k', 'SELECT count(*), sum(id), sum(n), md5(string_agg(id::text, \',\' ORDER BY id)) FROM ev WHERE k BETWEEN 1000000 AND 7000000' ],
	[ 'ev', 'ev_k', 'SELECT count(*), sum(id) FROM ev WHERE k > 10000000' ],
	# (constant arrays, which a sequential scan hashes; some keys of the
	# near-sorted rows the table starts with and of the clock's first ticks)
	[ 'ev', 'ev_k', "SELECT count(*), sum(id) FROM ev WHERE k = ANY ('{$near_keys}'::int8[])" ],
	[ 'ev', 'ev_c', 'SELECT count(*), sum(id), md5(string_agg(id::text, \',\' ORDER BY id)) FROM ev WHERE c = 3' ],
	[ 'ev', 'ev_c', 'SELECT count(*), sum(id) FROM ev WHERE c IN (1, 7, 12)' ],
	[ 'ev', 'ev_a', 'SELECT count(*), sum(a), md5(string_agg(w, \',\' ORDER BY a, w)) FROM ev WHERE a BETWEEN 100 AND 15000' ],
	[ 'ev', 'ev_t', 'SELECT count(*), md5(string_agg(t, \',\' ORDER BY t)) FROM ev WHERE t >= \'3\' AND t < \'c\'' ],
	[ 'ev', 'ev_t', 'SELECT count(*), sum(id) FROM ev WHERE t > \'e\'' ],
	[ 'os', 'os_ts', 'SELECT count(*), sum(seq), sum(v), md5(string_agg(seq::text, \',\' ORDER BY seq)) FROM os WHERE ts BETWEEN 1000 AND 60000' ],
	[ 'os', 'os_ts', "SELECT count(*), sum(seq) FROM os WHERE ts = ANY ('{$tick_keys}'::int8[])" ],
	[ 'os', 'os_dev', 'SELECT count(*), sum(ts), md5(string_agg(ts::text, \',\' ORDER BY ts, seq)) FROM os WHERE device_id = 7' ],
	[ 'os', 'os_dev', 'SELECT count(*), sum(ts) FROM os WHERE device_id BETWEEN 3 AND 9' ],
	[ 'os', 'os_dev', 'SELECT count(*), sum(ts) FROM os WHERE device_id = 11 AND ts > 50000' ],
	[ 'os', 'os_seq', 'SELECT count(*), sum(ts) FROM os WHERE seq BETWEEN 1000 AND 2000000' ],
	[ 'os', 'os_b', 'SELECT count(*), sum(seq), md5(string_agg(seq::text, \',\' ORDER BY seq)) FROM os WHERE b BETWEEN 1000 AND 60000' ],
	[ 'os', 'os_g', 'SELECT count(*), sum(seq) FROM os WHERE g = 5' ],);
my $n_indexes = 9;

# Every check of one server: the verifier on every index, no index left
# invalid, and each query answered alike through its index and by a
# sequential scan.  Returns the answers.
sub check_node
{
	my ($node, $label) = @_;
	ElasticIndex::Tools::no_invalid_indexes($node, 'postgres', $label);
	ElasticIndex::Tools::check_all_indexes($node, 'postgres', $label, $n_indexes);
	my %answers;
	foreach my $q (@queries)
	{
		my $a = ElasticIndex::Tools::differential($node, 'postgres', $label, [$q]);
		$answers{"$q->[1]: $q->[2]"} = $a->{ $q->[1] };
	}
	return \%answers;
}

# check_node on the primary, then on the standby once it has replayed
# everything; the standby must answer as the primary.
sub check_both
{
	my ($label) = @_;
	my $want = check_node($primary, "$label, primary");
	$primary->wait_for_catchup($standby, 'replay', $primary->lsn('insert'));
	my $got = check_node($standby, "$label, standby");
	is_deeply($got, $want, "$label: the standby answers as the primary");
	note("$label: "
		  . $primary->safe_psql('postgres', q{
SELECT string_agg(format('%s %s/%s leaves compact, %s entries, %s buffer pages', i, compact_leaf_pages, leaf_pages, entries, buffer_pages), '; ' ORDER BY i)
FROM (SELECT c.relname AS i, s.* FROM pg_class c, elastic_index_stats(c.oid) s
	  WHERE c.relname IN ('ev_k', 'ev_a', 'ev_t', 'ev_c', 'os_seq', 'os_b')) x}));
	return;
}

# The activity counters of all indexes (those REINDEX CONCURRENTLY
# replaced included) summed.
sub counters
{
	my %c;
	my @cols = qw(leaves_made_compact leaves_made_standard compact_splits compact_inserts
	  buffer_inserts buffer_flushes batched_entries bulk_appended_entries
	  pages_deleted dead_entries_removed_on_insert);
	my $row = $primary->safe_psql('postgres',
		'SELECT ' . join(', ', map { "sum($_)" } @cols) . ' FROM elastic_index_activity()');
	@c{@cols} = split /\|/, $row;
	note('activity: ' . join(', ', map { "$_ $c{$_}" } @cols));
	return \%c;
}

my $half = int($seconds * 0.4) || 1;

# first part
my $runs = start_workload($half);
maintenance_loop(time() + $half, 'part 1');
finish_workload($runs, 'part 1');
check_both('midway');
my $c1 = counters();

# second part
$runs = start_workload($half);
maintenance_loop(time() + $half, 'part 2');
finish_workload($runs, 'part 2');
check_both('end');
my $c2 = counters();
foreach my $counter (qw(leaves_made_compact compact_inserts buffer_inserts buffer_flushes batched_entries))
{
	cmp_ok($c1->{$counter} + $c2->{$counter}, '>', 0, "the workload exercised $counter");
}

# a crash in the middle of the workload
my $crash_secs = int($seconds * 0.2) || 1;
$runs = start_workload($crash_secs + 60);
maintenance_loop(time() + $crash_secs, 'before the crash');
$primary->stop('immediate');
finish_workload($runs, 'crash', 1);
$primary->start;
check_both('after the crash');

# the servers' logs
$standby->stop;
$primary->stop;
foreach my $node ($primary, $standby)
{
	my $log = slurp_file($node->logfile);
	my @bad = $log =~
	  /^(.*(?:TRAP:|PANIC:|was terminated by signal|inconsistent page found| XX\d\d\d |ERROR:  probe mismatch).*)$/mg;
	is(scalar(@bad), 0, $node->name . ': no assertion failure, PANIC, crash, internal error or mismatch in the log')
	  or diag(join("\n", @bad[0 .. ($#bad < 30 ? $#bad : 30)]));
}

done_testing();
