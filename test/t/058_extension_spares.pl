# Spare pages: a backend that had to wait for the index's relation
# extension lock adds spare pages after its new page and uses them for its
# next pages (EINewBuf, ei_extend_index and ei_take_spare_page in
# src/core/page.c; src/README.md "Spare pages").
#
# The debug fault extension_gate makes the wait happen without timing: it
# holds the first extension of session A, the extension lock held, until
# another backend (B) waits for that lock; B then extends with spares.  The
# pages come from osm_tree's insert buffer, whose inserters hold no index
# page while they get a new one (osm_new_tail), and whose flushed pages give
# the free space map candidates that are not recyclable while an old
# snapshot lasts, so that the backends do extend.  The scenario checks:
#
# 1. The spares are used by B's next pages, while the snapshot holds 16 or
#    more given-back deleted pages ahead of them in the map: the index does
#    not grow.  (A review of an earlier design, which put the spares into
#    the map and ran a map vacuum over them, found that the map vacuum also
#    re-exposed those deleted pages at the map's upper levels, so each call
#    turned them down again and extended anyway: the index grew with every
#    call.)
# 2. On a server with shared_buffers = 128kB, the extension with spares
#    succeeds: it never holds many pins (the earlier design pinned up to 64
#    buffers at once on 15 and failed with "no unpinned buffers available").
# 3. Spares that VACUUM truncated while their backend held no lock on the
#    index, and whose block numbers another backend then added anew, are
#    not used: VACUUM is held after truncating (debug fault
#    after_truncate_gate), before the relcache invalidation of its commit
#    would make B forget its spares; the other backend (C) is held by the
#    extension gate between adding the block and locking it; and B, asking
#    for a page, must neither take that page (C would then fail: "new page
#    ... is not empty") nor read past the end of the file.  B keeps that
#    spare, busy, for a later check rather than dropping it; the server log
#    (DEBUG1 in B) shows that B still had its spares and came to C's page,
#    and C's gate log that B then waited for the extension lock C held, so
#    the step cannot pass with B's spares forgotten or C's gate timed out.
#
# B's first busy extension adds 8 spares (not 16 per waiter: spares are
# private, sized by the backend's own demand).
#
# Then the index is checked (elastic_index_check), and compared with a seq
# scan and with a btree index on the same column.

use strict;
use warnings;

use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

# a row count that fills about one insert buffer page
my $rows_per_page = 400;

sub size
{
	my ($node) = @_;
	return $node->safe_psql('postgres', q{SELECT pg_relation_size('o_k') / 8192});
}

sub counter
{
	my ($node, $what) = @_;
	return $node->safe_psql('postgres',
		"SELECT $what FROM elastic_index_stat_activity WHERE indexrelid = 'o_k'::regclass");
}

# Start a background session; returns it and its pid.
sub session
{
	my ($node) = @_;
	my $s = $node->background_psql('postgres', on_error_stop => 0);
	my $pid = $s->query_safe('SELECT pg_backend_pid()');
	$pid =~ s/\s+$//;
	return ($s, $pid);
}

# Make session $s (pid $pid) wait in the extension gate while running $sql.
sub into_gate
{
	my ($node, $s, $pid, $sql, $what) = @_;
	$s->query_safe(q{SET elastic_index.debug_fault = 'extension_gate'});
	$s->query_until(qr/started/, "\\echo started\n$sql;\n");
	ok( $node->poll_query_until(
			'postgres',
			"SELECT wait_event = 'PgSleep' FROM pg_stat_activity WHERE pid = $pid"),
		"$what waits in the gate, holding the extension lock");
}

# Wait for what session $s runs to end; returns its error output.
sub finish
{
	my ($s) = @_;
	my ($out, $failed) = $s->query('SELECT 1');
	return $failed ? $s->{stderr} : '';
}

# A server and a table with an osm_tree index and a btree index.  With
# $flushed, the insert buffer's flushed pages (more than 16) are in the free
# space map, not recyclable while the returned session's snapshot lasts;
# else the index is empty and so is its free space map.
sub setup
{
	my ($name, $conf, $flushed) = @_;
	my $node = PostgreSQL::Test::Cluster->new($name);
	$node->init;
	$node->append_conf(
		'postgresql.conf', qq{
shared_preload_libraries = 'elastic_index'
autovacuum = off
osm_tree.flush_worker = off
osm_tree.top_inserts = off
$conf
});
	$node->start;
	is( $node->safe_psql(
			'postgres',
			q{LOAD 'elastic_index'; SELECT count(*) FROM pg_settings WHERE name = 'elastic_index.debug_fault'}),
		'1',
		"$name: the build has elastic_index.debug_fault (make EI_FAULT_INJECTION=1)");
	$node->safe_psql(
		'postgres', q{
CREATE EXTENSION elastic_index;
CREATE TABLE o (k int8) WITH (autovacuum_enabled = off);
CREATE INDEX o_k ON o USING osm_tree (k)
	WITH (batch_size = 1, bloom_bits_per_key = 0, buffer_size = 64);
CREATE INDEX o_b ON o USING btree (k);
});
	return ($node, undef) unless $flushed;

	$node->safe_psql('postgres',
		"INSERT INTO o SELECT g FROM generate_series(1, 40 * $rows_per_page) g");
	my $bufpages = $node->safe_psql('postgres', q{SELECT pages FROM osm_tree_buffer_stats('o_k')});
	cmp_ok($bufpages, '>', 32, "$name: the insert buffer has $bufpages pages");

	# the snapshot reads no index of o: it takes no lock that would keep
	# VACUUM from truncating o_k
	my $snap = $node->background_psql('postgres', on_error_stop => 1);
	$snap->query_safe('BEGIN ISOLATION LEVEL REPEATABLE READ');
	$snap->query_safe('SELECT 1');
	$node->safe_psql('postgres', q{SELECT osm_tree_flush('o_k')});
	is($node->safe_psql('postgres', q{SELECT pages FROM osm_tree_buffer_stats('o_k')}),
		'0', "$name: the flush emptied the insert buffer");
	return ($node, $snap);
}

# Steps 1 and 2: A in the gate, B waits for the extension lock and extends
# with spares, then B's next pages come from its spares.  Returns B.
sub spares_used
{
	my ($node, $name, $expected_growth) = @_;
	my $size0     = size($node);
	my $extended0 = counter($node, 'pages_extended');

	my ($a, $apid) = session($node);
	into_gate($node, $a, $apid, 'INSERT INTO o VALUES (0)', "$name: A");
	my ($b, $bpid) = session($node);
	my ($out, $failed) = $b->query('INSERT INTO o VALUES (0)');
	is($failed, 0, "$name: B's insert, which waited for the extension lock, succeeds")
	  or diag($b->{stderr});
	is(finish($a), '', "$name: A's insert succeeds");
	$a->quit;
	my $size1 = size($node);
	is(counter($node, 'pages_extended') - $extended0, 2, "$name: A and B each extended the index once");
	$expected_growth->($size1 - $size0);

	# B's next pages: the map's candidates are the flushed pages, not
	# recyclable yet, so they come from B's spares
	my $new_pages = 'pages_extended + pages_recycled';
	my $extended1 = counter($node, $new_pages);
	($out, $failed) = $b->query("INSERT INTO o SELECT g FROM generate_series(1, 3 * $rows_per_page) g");
	is($failed, 0, "$name: B's next insert succeeds") or diag($b->{stderr});
	my $new = counter($node, $new_pages) - $extended1;
	cmp_ok($new, '>=', 2, "$name: B's next insert took $new new pages");
	return ($b, $size1, $new);
}

# The index holds what the table holds: checked, and the same rows through
# o_k, through the btree o_b and by a seq scan.
sub same_rows
{
	my ($node, $name) = @_;
	my ($rc, $out, $err) = $node->psql('postgres', q{SELECT elastic_index_check('o_k', true)});
	is($rc, 0, "$name: elastic_index_check passes") or diag($err);
	my $q = q{SELECT count(*), sum(k), md5(string_agg(k::text, ',' ORDER BY k)) FROM o WHERE k >= 0};
	my $by_heap = $node->safe_psql('postgres',
		"SET enable_indexscan = off; SET enable_bitmapscan = off; SET enable_indexonlyscan = off; $q");
	my $seq_plan = $node->safe_psql('postgres',
		"SET enable_indexscan = off; SET enable_bitmapscan = off; SET enable_indexonlyscan = off; EXPLAIN (COSTS OFF) $q");
	like($seq_plan, qr/Seq Scan on o/, "$name: the reference query scans the table");
	for my $pair (['o_k', 'o_b'], ['o_b', 'o_k'])
	{
		my ($use, $drop) = @$pair;
		my $with = "BEGIN; SET LOCAL enable_seqscan = off; SET LOCAL enable_bitmapscan = off; DROP INDEX $drop;";
		like(
			$node->safe_psql('postgres', "$with EXPLAIN (COSTS OFF) $q; ROLLBACK"),
			qr/Index (Only )?Scan using $use/,
			"$name: with $drop dropped, the query uses $use");
		is($node->safe_psql('postgres', "$with $q; ROLLBACK"),
			$by_heap, "$name: $use returns the rows of a seq scan");
	}
	return;
}

# ---------------------------------------------------------------------------
# Steps 1 and 3 on a server with the default shared_buffers.
# ---------------------------------------------------------------------------
my ($node, $snap) = setup('main', '', 1);
my ($b, $size1, $used) = spares_used(
	$node, 'main',
	sub {
		my ($growth) = @_;
		is($growth, 1 + 1 + 8, 'A added one page, B one and 8 spares');
	});
cmp_ok($used, '<', 8, 'B has spares left');
is(size($node), $size1,
	"B's $used next pages came from its spares: the index did not grow");

# B holds no lock on o_k now.  The snapshot ends, so that the flushed pages
# become reusable (transaction ids move past their safexid); VACUUM flushes
# the insert buffer into the tree with them, truncates B's unused spares
# (all zeros, at the end of the file) and waits (debug fault
# after_truncate_gate) before its transaction ends, so that the relcache
# invalidation its statistics update sends, which would make B forget its
# spares, does not reach B before B uses the index again.
$snap->query_safe('COMMIT');
$snap->quit;
$node->safe_psql('postgres', 'SELECT txid_current()');
$node->safe_psql('postgres', 'SELECT txid_current()');
my $holder = $node->background_psql('postgres', on_error_stop => 1);
$holder->query_safe('SELECT pg_advisory_lock(13, 1)');
my ($v, $vpid) = session($node);
$v->query_safe(q{SET elastic_index.debug_fault = 'after_truncate_gate'});
$v->query_until(qr/started/, "\\echo started\nVACUUM (PARALLEL 0) o;\n");
ok( $node->poll_query_until(
		'postgres',
		"SELECT wait_event = 'advisory' FROM pg_stat_activity WHERE pid = $vpid"),
	'VACUUM waits after truncating the index');
my $size2 = size($node);
cmp_ok($size2, '<', $size1, "VACUUM truncated the spares B has not used ($size1 -> $size2 pages)");
cmp_ok($size2, '>=', $size1 - (8 - $used) - 2,
	"and only those, and the insert buffer's pages A and B used");

# C takes the reusable pages from the map, then adds the first block past
# the new end, which B still counts as a spare of its own, and waits in the
# gate before locking it; then B needs a page
my $free = $node->safe_psql('postgres', q{SELECT free_pages FROM elastic_index_stats('o_k')});
my ($c, $cpid) = session($node);
into_gate($node, $c, $cpid,
	"INSERT INTO o SELECT g FROM generate_series(1, ($free + 8) * $rows_per_page) g", 'C');
is(size($node), $size2 + 1, 'C added one page');
$b->query_safe('SET log_min_messages = debug1');
my $log_offset = -s $node->logfile;
my ($out, $failed) = $b->query("INSERT INTO o SELECT g FROM generate_series(1, 3 * $rows_per_page) g");
is($failed, 0, "B's insert after the truncation succeeds") or diag($b->{stderr});
is(finish($c), '', "C's insert succeeds: B did not take its new page");
# the order the step needs did happen: B came to its spare at C's block
# while C held it, and then waited for the extension lock C held
my $log = slurp_file($node->logfile, $log_offset);
like($log, qr/spare page $size2 of index "o_k" is busy, kept for later/,
	"B still had its spares and found the first, C's new page, busy");
like($log, qr/extension gate of index "o_k" released by a waiter/,
	"C was held in the gate until B waited for the extension lock");
$holder->query_safe('SELECT pg_advisory_unlock(13, 1)');
is(finish($v), '', 'VACUUM succeeds');
$holder->quit;
$v->quit;
$c->quit;
$b->quit;
same_rows($node, 'main');
my ($rc, $err);
($rc, $out, $err) = $node->psql('postgres', 'VACUUM (PARALLEL 0) o');
is($rc, 0, 'a second VACUUM succeeds') or diag($err);
same_rows($node, 'main, after VACUUM');
$node->stop;
unlike(slurp_file($node->logfile), qr/TRAP:/, 'main: no assertion failed');

# ---------------------------------------------------------------------------
# Step 2: the same extension with 16 shared buffers.  16 and later add the
# spares in one ExtendBufferedRelBy, which caps them at the backend's share
# of shared buffers (here: none), so B adds 1 to 9 pages there; 15 adds
# them one at a time, each unpinned at once, all 9.
# ---------------------------------------------------------------------------
my ($small) = setup('small', 'shared_buffers = 128kB', 0);
my $version = $small->safe_psql('postgres', 'SHOW server_version_num');
($b, $size1, $used) = spares_used(
	$small, 'small',
	sub {
		my ($growth) = @_;
		if ($version < 160000)
		{
			is($growth, 1 + 1 + 8, 'small: A added one page, B one and 8 spares');
		}
		else
		{
			ok($growth >= 2 && $growth <= 10, "small: A and B added $growth pages");
		}
	});
$b->quit;
same_rows($small, 'small');
$small->stop;
unlike(slurp_file($small->logfile), qr/TRAP:/, 'small: no assertion failed');

done_testing();
