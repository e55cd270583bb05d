# The osm_tree flush worker (src/osm/flushworker.c): who it flushes as,
# settings reloaded on SIGHUP, and an index dropped under it.
#
# 1. A table owned by a non-superuser role, whose osm_tree index uses an
#    operator class with a comparison function that raises an error unless
#    current_user is that role: the worker flushes the index (its sort and
#    tree inserts call the function) as the table's owner, so the buffer
#    drains and no such error is logged.  (Connected as the bootstrap
#    superuser and flushing as it, the worker failed.)  The function also
#    refuses a worker whose search_path names public: the worker's is
#    empty, as an autovacuum worker's.
# 2. A worker waiting for the table's lock while osm_tree.flush_worker is
#    turned off and the configuration reloaded: once it has the lock it
#    sees the new setting and exits without flushing.  (A worker that
#    ignored SIGHUP flushed.)
# 3. A worker waiting for the table's lock while the index is dropped: it
#    exits cleanly, and a new index on the table gets a worker at once.

use strict;
use warnings;

use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use Time::HiRes qw(usleep);

my $node = PostgreSQL::Test::Cluster->new('flush_worker');
$node->init;
$node->append_conf(
	'postgresql.conf', qq{
shared_preload_libraries = 'elastic_index'
autovacuum = off
max_parallel_workers_per_gather = 0
osm_tree.flush_worker = on
# entries whose key belongs in the rightmost leaf go to the buffer too
osm_tree.top_inserts = off
});
$node->start;

# a flush's worth is 2 pages of 8: about 4 pages of entries (int4, some
# 400 a page) leave a flush's worth waiting and the buffer never full, so
# only the worker flushes
my $opts = 'batch_size = 1, buffer_size = 8, flush_fraction = 0.25';

$node->safe_psql(
	'postgres', q{
CREATE EXTENSION elastic_index;
CREATE ROLE ei_owner LOGIN;
GRANT CREATE ON SCHEMA public TO ei_owner;
CREATE FUNCTION owner_only_cmp(int4, int4) RETURNS int4
LANGUAGE plpgsql IMMUTABLE STRICT AS $$
BEGIN
	IF current_user <> 'ei_owner' THEN
		RAISE EXCEPTION 'osm_tree comparison run as %', current_user;
	END IF;
	-- the worker resolves no names through schemas others can write to
	-- (the worker alone has no application_name: the test's sessions are
	-- named after the test file)
	IF current_setting('search_path') LIKE '%public%' AND
	   current_setting('application_name') = '' THEN
		RAISE EXCEPTION 'osm_tree flush worker with search_path %',
			current_setting('search_path');
	END IF;
	RETURN btint4cmp($1, $2);
END $$;
-- osm_tree takes an operator class whose operators sort like a btree
-- class with the same comparison function: operators of their own
CREATE OPERATOR #< (LEFTARG = int4, RIGHTARG = int4, FUNCTION = int4lt,
	COMMUTATOR = #>, NEGATOR = #>=, RESTRICT = scalarltsel, JOIN = scalarltjoinsel);
CREATE OPERATOR #<= (LEFTARG = int4, RIGHTARG = int4, FUNCTION = int4le,
	COMMUTATOR = #>=, NEGATOR = #>, RESTRICT = scalarlesel, JOIN = scalarlejoinsel);
CREATE OPERATOR #= (LEFTARG = int4, RIGHTARG = int4, FUNCTION = int4eq,
	COMMUTATOR = #=, RESTRICT = eqsel, JOIN = eqjoinsel);
CREATE OPERATOR #>= (LEFTARG = int4, RIGHTARG = int4, FUNCTION = int4ge,
	COMMUTATOR = #<=, NEGATOR = #<, RESTRICT = scalargesel, JOIN = scalargejoinsel);
CREATE OPERATOR #> (LEFTARG = int4, RIGHTARG = int4, FUNCTION = int4gt,
	COMMUTATOR = #<, NEGATOR = #<=, RESTRICT = scalargtsel, JOIN = scalargtjoinsel);
CREATE OPERATOR FAMILY owner_only_ops USING btree;
CREATE OPERATOR CLASS owner_only_int4_ops FOR TYPE int4 USING btree
FAMILY owner_only_ops AS
	OPERATOR 1 #<, OPERATOR 2 #<=, OPERATOR 3 #=, OPERATOR 4 #>=, OPERATOR 5 #>,
	FUNCTION 1 owner_only_cmp(int4, int4);
CREATE OPERATOR FAMILY owner_only_ops USING osm_tree;
CREATE OPERATOR CLASS owner_only_int4_ops FOR TYPE int4 USING osm_tree
FAMILY owner_only_ops AS
	OPERATOR 1 #<, OPERATOR 2 #<=, OPERATOR 3 #=, OPERATOR 4 #>=, OPERATOR 5 #>,
	FUNCTION 1 owner_only_cmp(int4, int4);
});

# Poll a query (as the superuser) until it returns 't', giving up early
# when the server log since $from contains $fail; true if it returned 't'.
sub poll_unless_logged
{
	my ($query, $fail, $from) = @_;
	for (1 .. 10 * $PostgreSQL::Test::Utils::timeout_default)
	{
		return 0 if $node->log_contains($fail, $from);
		return 1 if $node->safe_psql('postgres', $query) eq 't';
		usleep(100_000);
	}
	return 0;
}

# a worker of the given table waiting for its lock
sub worker_waits_for
{
	my ($table) = @_;
	return $node->poll_query_until(
		'postgres', qq{
SELECT count(*) = 1
FROM pg_stat_activity AS a JOIN pg_locks AS l ON l.pid = a.pid
WHERE a.backend_type = 'osm_tree flush' AND NOT l.granted
  AND l.relation = '$table'::regclass});
}

sub no_worker
{
	return $node->poll_query_until('postgres',
		q{SELECT count(*) = 0 FROM pg_stat_activity WHERE backend_type = 'osm_tree flush'});
}

# 1. the worker flushes as the table's owner
my $log = -s $node->logfile;
$node->safe_psql(
	'postgres', qq{
SET ROLE ei_owner;
CREATE TABLE w (k int4);
INSERT INTO w SELECT g * 2 FROM generate_series(1, 2000) AS g;
CREATE INDEX w_k ON w USING osm_tree (k owner_only_int4_ops) WITH ($opts);
INSERT INTO w SELECT g * 2 + 1 FROM generate_series(1, 1500) AS g;
});
ok( poll_unless_logged(
		q{SELECT flushes > 0 AND closed_pages < 2 FROM osm_tree_buffer_stats('w_k')},
		qr/osm_tree comparison run as/, $log),
	'(1) the worker flushed the index of a table owned by a non-superuser');
ok(!$node->log_contains(qr/osm_tree comparison run as/, $log),
	'(1) the worker called the comparison function as the table owner');
is( $node->safe_psql(
		'postgres',
		q{SELECT buffer_foreground_flushes FROM elastic_index_stat_activity WHERE indexrelname = 'w_k'}
	),
	'0',
	'(1) no insert flushed w_k itself');
is( $node->safe_psql(
		'postgres', q{
SET ROLE ei_owner;
SET enable_seqscan = off; SET enable_bitmapscan = off;
SELECT count(*), count(DISTINCT k) FROM w WHERE k #> 0}),
	'3500|3500',
	'(1) every row is found through the index');

# 2. a reload while the worker waits for the table turns it off
$node->safe_psql(
	'postgres', qq{
CREATE TABLE s (k int4);
INSERT INTO s SELECT g * 2 FROM generate_series(1, 2000) AS g;
CREATE INDEX s_k ON s USING osm_tree (k) WITH ($opts);
});
my $holder = $node->background_psql('postgres', on_error_stop => 1);
$holder->query_safe('BEGIN');
$holder->query_safe('LOCK TABLE s IN ACCESS EXCLUSIVE MODE');
$holder->query_safe(
	'INSERT INTO s SELECT g * 2 + 1 FROM generate_series(1, 1500) AS g');
ok(worker_waits_for('s'), '(2) a worker waits for the lock of table s');
$node->safe_psql('postgres',
	'ALTER SYSTEM SET osm_tree.flush_worker = off; SELECT pg_reload_conf();');
# a new session sees the setting only after the postmaster reread the file
# and signalled every process, the worker included
$node->poll_query_until('postgres',
	q{SELECT current_setting('osm_tree.flush_worker') = 'off'})
  or die 'reload did not take effect';
$holder->query_safe('COMMIT');
ok(no_worker(), '(2) the worker exited');
is( $node->safe_psql(
		'postgres', q{SELECT flushes, closed_pages >= 2 FROM osm_tree_buffer_stats('s_k')}),
	'0|t',
	'(2) it read the reloaded setting and flushed nothing');
$holder->quit;

$node->safe_psql('postgres',
	'ALTER SYSTEM RESET osm_tree.flush_worker; SELECT pg_reload_conf();');
$node->poll_query_until('postgres',
	q{SELECT current_setting('osm_tree.flush_worker') = 'on'})
  or die 'reload did not take effect';

# 3. the index is dropped while the worker waits for the table
$log = -s $node->logfile;
$holder = $node->background_psql('postgres', on_error_stop => 1);
$holder->query_safe('BEGIN');
$holder->query_safe('LOCK TABLE s IN ACCESS EXCLUSIVE MODE');
$holder->query_safe(
	'INSERT INTO s SELECT g * 2 + 1 FROM generate_series(1501, 3000) AS g');
ok(worker_waits_for('s'), '(3) a worker waits for the lock of table s');
$holder->query_safe('DROP INDEX s_k');
$holder->query_safe('COMMIT');
ok(no_worker(), '(3) the worker of the dropped index exited');
ok( !$node->log_contains(qr/osm_tree flush.*exited with exit code [^0]|ERROR/, $log),
	'(3) without an error');
$holder->quit;

$node->safe_psql('postgres',
	"CREATE INDEX s_k2 ON s USING osm_tree (k) WITH ($opts)");
$node->safe_psql('postgres',
	'INSERT INTO s SELECT g * 2 + 1 FROM generate_series(3001, 4500) AS g');
ok( $node->poll_query_until(
		'postgres',
		q{SELECT flushes > 0 AND closed_pages < 2 FROM osm_tree_buffer_stats('s_k2')}),
	'(3) a new index of the table gets a worker that flushes');

$node->stop;
done_testing();
