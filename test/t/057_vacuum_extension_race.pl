# VACUUM must not record as free a page that a backend has just added to
# the index but not locked yet.
#
# EINewBuf extends the index under the relation extension lock: ReadBuffer
# (P_NEW) puts an all-zero page at the end of the file, then LockBuffer locks
# it, then the extension lock goes.  VACUUM's recycle pass (amvacuumcleanup)
# reads every block up to the index length and records all-zero pages as
# free.  If it reads the length without the extension lock, it can meet the
# new page in between, record it, and another backend can take it from the
# free space map and initialize it before its extender locks it: one page
# for two.  The pass reads the length under the extension lock, as nbtree's
# btvacuumscan does, so it waits for the extender instead.
#
# The debug fault extension_gate holds a backend between ReadBuffer(P_NEW)
# and LockBuffer, holding the extension lock, until another backend waits
# for that lock.  The extender here is an osm_tree insert that links the
# insert buffer's first page: it holds no leaf lock, so VACUUM's leaf walk
# does not wait for it.  Then VACUUM, whose recycle pass waits for the
# extension lock (which lets the extender go on) if the fix is in; without
# it, the pass records the new page as free and VACUUM ends while the
# extender still waits.  Then a third backend inserts enough rows to need
# several buffer pages: without the fix it takes the extender's page from
# the map, links it and fills it, then waits for the extension lock for its
# next page, which releases the extender, which finds its page in use
# ("new page ... is not empty"), or worse.  With the fix the map is empty
# and the extender is long done.  Either way no step depends on timing:
# the gate's time cap only bounds a wait that nothing would end.

use strict;
use warnings;

use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $node = PostgreSQL::Test::Cluster->new('main');
$node->init;
$node->append_conf(
	'postgresql.conf', qq{
shared_preload_libraries = 'elastic_index'
autovacuum = off
osm_tree.flush_worker = off
osm_tree.top_inserts = off
});
$node->start;

my $has_fault = $node->safe_psql('postgres',
	q{LOAD 'elastic_index'; SELECT count(*) FROM pg_settings WHERE name = 'elastic_index.debug_fault'});
is($has_fault, '1', 'the build has elastic_index.debug_fault (make EI_FAULT_INJECTION=1)');

# An index whose free space map exists (a new map's first page extends the
# relation under the same extension lock, which would release the extender
# early) and offers only a page that is not recyclable yet: the insert
# buffer's first page, unlinked by a flush while a snapshot from before it
# lasts.  So the next buffer page extends the index.  No Bloom filters, so
# that linking a buffer page needs one new page only.
$node->safe_psql(
	'postgres', q{
CREATE EXTENSION elastic_index;
CREATE TABLE o (k int8) WITH (autovacuum_enabled = off);
CREATE INDEX o_k ON o USING osm_tree (k)
	WITH (batch_size = 1, bloom_bits_per_key = 0, buffer_size = 32);
INSERT INTO o VALUES (-1);
});
my $old_snapshot = $node->background_psql('postgres', on_error_stop => 1);
$old_snapshot->query_safe('BEGIN ISOLATION LEVEL REPEATABLE READ');
$old_snapshot->query_safe('SELECT count(*) FROM o');
$node->safe_psql('postgres', q{SELECT osm_tree_flush('o_k')});
is( $node->safe_psql('postgres', q{SELECT pages FROM osm_tree_buffer_stats('o_k')}),
	'0', 'the flush emptied the insert buffer');
my $size0 = $node->safe_psql('postgres', q{SELECT pg_relation_size('o_k') / 8192});

# the extender: its insert waits in the gate, its new page not locked yet
my $extender = $node->background_psql('postgres', on_error_stop => 0);
my $extender_pid = $extender->query_safe('SELECT pg_backend_pid()');
$extender->query_safe(q{SET elastic_index.debug_fault = 'extension_gate'});
$extender->query_until(qr/inserting/, qq{\\echo inserting\nINSERT INTO o VALUES (0);\n});
ok( $node->poll_query_until(
		'postgres', qq{
SELECT wait_event = 'PgSleep' FROM pg_stat_activity WHERE pid = $extender_pid}),
	'the extender waits in the gate, holding the extension lock');
is( $node->safe_psql('postgres', q{SELECT pg_relation_size('o_k') / 8192}),
	$size0 + 1, 'it has added a page to the index');

# VACUUM: its recycle pass reads the index length under the extension lock
# (which releases the extender), or, without the fix, records the new page
# as free and ends while the extender still waits
my ($rc, $out, $err) = $node->psql('postgres', 'VACUUM o');
is($rc, 0, 'VACUUM succeeds') or diag($err);

# the third backend: three buffer pages' worth of entries, so that it needs
# more new pages than the free space map could hold
($rc, $out, $err) = $node->psql('postgres',
	'INSERT INTO o SELECT g FROM generate_series(1, 1500) g');
is($rc, 0, "the third backend's insert succeeds") or diag($err);

$old_snapshot->query_safe('COMMIT');
$old_snapshot->quit;

# the extender's insert is done by now (its session answers after it)
my ($count, $failed) = $extender->query(q{SELECT count(*) FROM o WHERE k = 0});
is($failed, 0, "the extender's insert succeeds")
  or diag($extender->{stderr});
# (16's development snapshot's BackgroundPsql leaves the newline on)
$count =~ s/\s+$// if defined $count;
is($count, '1', "the extender's row is there");
$extender->quit;

my $log = slurp_file($node->logfile);
note(join("\n", $log =~ /(elastic_index: extension gate .*)/g));

# the index is sound and holds the same rows as the heap
($rc, $out, $err) = $node->psql('postgres', q{SELECT elastic_index_check('o_k', true)});
is($rc, 0, 'elastic_index_check passes') or diag($err);
($rc, $out, $err) = $node->psql('postgres', 'VACUUM o');
is($rc, 0, 'a second VACUUM succeeds') or diag($err);
($rc, $out, $err) = $node->psql('postgres', q{SELECT elastic_index_check('o_k', true)});
is($rc, 0, 'elastic_index_check passes after it') or diag($err);

my $by_heap = $node->safe_psql(
	'postgres', q{
SET enable_indexscan = off; SET enable_bitmapscan = off; SET enable_indexonlyscan = off;
SELECT count(*), sum(k), string_agg(k::text, ',' ORDER BY k) FROM o});
my $by_index = $node->safe_psql(
	'postgres', q{
SET enable_seqscan = off; SET enable_bitmapscan = off;
SELECT count(*), sum(k), string_agg(k::text, ',' ORDER BY k)
FROM (SELECT k FROM o WHERE k >= -1 ORDER BY k) s});
like($by_heap, qr/^1502\|/, 'the heap has every row');
is($by_index, $by_heap, 'an index scan returns the rows of a seq scan');
my $plan = $node->safe_psql(
	'postgres', q{
SET enable_seqscan = off; SET enable_bitmapscan = off;
EXPLAIN (COSTS OFF) SELECT k FROM o WHERE k >= -1 ORDER BY k});
like($plan, qr/Index (Only )?Scan using o_k/, 'that scan uses the index');

$node->stop;
unlike(slurp_file($node->logfile), qr/TRAP:/, 'no assertion failed');

done_testing();
