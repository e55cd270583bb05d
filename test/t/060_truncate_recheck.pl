# VACUUM truncates only trailing pages that are still free once it holds
# the index's AccessExclusiveLock (ei_vacuum_recycle, ei_vacuum_free_tail in
# src/core/vacuum.c; src/README.md "Recycling and truncation").
#
# VACUUM reads every page, records the free ones in the free space map and
# only then takes the lock to truncate the trailing free pages.  In between,
# another backend may put a trailing page to use: one of its spare pages
# (src/README.md "Spare pages"), or the same page taken from the map.  A
# review reproduced it: VACUUM, checking only that the index's length had
# not changed, cut a committed leaf ("downlink to block ... is out of
# range").  Here the debug fault before_truncate_gate holds VACUUM between
# recording the free pages and locking the index, and extension_gate gives
# session B trailing spare pages without timing (as in 058): B holds no lock
# on the index between its statements, so VACUUM's lock is granted at once
# after B's second insert has committed on a trailing page.

use strict;
use warnings;

use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $node = PostgreSQL::Test::Cluster->new('main');
$node->init;
$node->append_conf(
	'postgresql.conf', q{
shared_preload_libraries = 'elastic_index'
autovacuum = off
});
$node->start;
is( $node->safe_psql(
		'postgres',
		q{LOAD 'elastic_index'; SELECT count(*) FROM pg_settings WHERE name = 'elastic_index.debug_fault'}),
	'1',
	'the build has elastic_index.debug_fault (make EI_FAULT_INJECTION=1)');

# Keys 1000 apart: 100 keys inside one gap land in one leaf and split it
# once.
$node->safe_psql(
	'postgres', q{
CREATE EXTENSION elastic_index;
CREATE TABLE t (k int8) WITH (autovacuum_enabled = off);
INSERT INTO t SELECT g * 1000 FROM generate_series(1, 20000) g;
CREATE INDEX t_k ON t USING elastic_btree (k);
});

# rows for one leaf: 100 keys between key $gap * 1000 and the next
sub gap_rows
{
	my ($gap) = @_;
	return "INSERT INTO t SELECT $gap * 1000 + g FROM generate_series(1, 100) g";
}

sub size
{
	return $node->safe_psql('postgres', q{SELECT pg_relation_size('t_k') / 8192});
}

sub new_pages
{
	return $node->safe_psql('postgres',
		q{SELECT pages_extended + pages_recycled FROM elastic_index_stat_activity WHERE indexrelid = 't_k'::regclass});
}

sub session
{
	my $s = $node->background_psql('postgres', on_error_stop => 0);
	my $pid = $s->query_safe('SELECT pg_backend_pid()');
	$pid =~ s/\s+$//;
	return ($s, $pid);
}

sub finish
{
	my ($s) = @_;
	my ($out, $failed) = $s->query('SELECT 1');
	return $failed ? $s->{stderr} : '';
}

# A splits a leaf at the low end and waits in the extension gate, holding
# the extension lock; B splits a leaf at the high end, waits for that lock
# and so adds spare pages after its own.
my $size0 = size();
my ($a, $apid) = session();
$a->query_safe(q{SET elastic_index.debug_fault = 'extension_gate'});
$a->query_until(qr/started/, "\\echo started\n" . gap_rows(10) . ";\n");
ok( $node->poll_query_until(
		'postgres', "SELECT wait_event = 'PgSleep' FROM pg_stat_activity WHERE pid = $apid"),
	'A waits in the extension gate, holding the extension lock');
my ($b, $bpid) = session();
my ($out, $failed) = $b->query(gap_rows(19000));
is($failed, 0, "B's first insert succeeds") or diag($b->{stderr});
is(finish($a), '', "A's insert succeeds");
$a->quit;
my $size1 = size();
cmp_ok($size1 - $size0, '>', 2, 'A added one page, B one and spares (' . ($size1 - $size0) . ' pages)');

# VACUUM records B's unused spares (all zeros, the last pages of the file)
# as free and waits before it locks the index to truncate them.
my $holder = $node->background_psql('postgres', on_error_stop => 1);
$holder->query_safe('SELECT pg_advisory_lock(14, 1)');
my ($v, $vpid) = session();
$v->query_safe(q{SET elastic_index.debug_fault = 'before_truncate_gate'});
$v->query_until(qr/started/, "\\echo started\nVACUUM (PARALLEL 0) t;\n");
ok( $node->poll_query_until(
		'postgres', "SELECT wait_event = 'advisory' FROM pg_stat_activity WHERE pid = $vpid"),
	'VACUUM waits after recording the free pages, before locking the index');
is($node->safe_psql('postgres', q{SELECT free_pages FROM elastic_index_stats('t_k')}),
	$size1 - $size0 - 2, "VACUUM's map holds B's spares as free pages");

# B splits another leaf: its new page is the first of those trailing pages
# (from the map or from its spares); it commits and holds no lock after.
my $new0 = new_pages();
($out, $failed) = $b->query(gap_rows(15000));
is($failed, 0, "B's second insert succeeds") or diag($b->{stderr});
is(new_pages() - $new0, 1, 'B took one new page');
is(size(), $size1, 'the index did not grow: B used a trailing page');

$holder->query_safe('SELECT pg_advisory_unlock(14, 1)');
is(finish($v), '', 'VACUUM succeeds');
$holder->quit;
$v->quit;
$b->quit;
my $size2 = size();
cmp_ok($size2, '<', $size1, "VACUUM truncated the pages still free ($size1 -> $size2 pages)");
is($size2, $size0 + 3, "and kept B's page in use (A's page, B's two)");

my ($rc, $err);
($rc, $out, $err) = $node->psql('postgres', q{SELECT elastic_index_check('t_k', true)});
is($rc, 0, 'elastic_index_check passes after the truncation') or diag($err);
my $q = q{SELECT count(*), sum(k), md5(string_agg(k::text, ',' ORDER BY k)) FROM t WHERE k >= 0};
my $seq = 'SET enable_indexscan = off; SET enable_bitmapscan = off; SET enable_indexonlyscan = off;';
my $idx = 'SET enable_seqscan = off; SET enable_bitmapscan = off;';
like($node->safe_psql('postgres', "$idx EXPLAIN (COSTS OFF) $q"),
	qr/Index (Only )?Scan using t_k/, 'the query can use t_k');
like($node->safe_psql('postgres', "$seq EXPLAIN (COSTS OFF) $q"),
	qr/Seq Scan on t/, 'the reference query scans the table');
is($node->safe_psql('postgres', "$idx $q"),
	$node->safe_psql('postgres', "$seq $q"), 't_k returns the rows of a seq scan');
is($node->safe_psql('postgres', 'SELECT count(*) FROM t'), 20300, 'every row is in the table');

($rc, $out, $err) = $node->psql('postgres', 'VACUUM (PARALLEL 0) t');
is($rc, 0, 'a second VACUUM succeeds') or diag($err);
($rc, $out, $err) = $node->psql('postgres', q{SELECT elastic_index_check('t_k', true)});
is($rc, 0, 'elastic_index_check passes after the second VACUUM') or diag($err);

$node->stop;
unlike(slurp_file($node->logfile), qr/TRAP:/, 'no assertion failed');

done_testing();
