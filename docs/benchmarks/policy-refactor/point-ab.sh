#!/bin/bash
# A/B point lookups: $1 = worktree; prints tps of 3 runs for elastic index and btree
set -e
wt=$1
cd $wt && PG_CONFIG=/usr/lib/postgresql/15/bin/pg_config bash scripts/setup.sh >/dev/null 2>&1
md5sum $wt/elastic_index.so /usr/lib/postgresql/15/lib/elastic_index.so | awk '{print $1}' | uniq | wc -l
B=/usr/lib/postgresql/15/bin
D=/tmp/abdata
rm -rf $D; runuser -u postgres -- $B/initdb -D $D -U postgres --no-locale -E UTF8 >/dev/null
cat >> $D/postgresql.conf <<EOC
shared_preload_libraries = 'elastic_index'
shared_buffers = 1GB
fsync = off
autovacuum = off
port = 55999
unix_socket_directories = '/tmp'
EOC
runuser -u postgres -- $B/pg_ctl -D $D -w -l $D/log start >/dev/null
P="runuser -u postgres -- $B/psql -h /tmp -p 55999 -X -q"
$P -c "CREATE EXTENSION elastic_index; CREATE TABLE te (k int8, v int8); INSERT INTO te SELECT 2*g, g FROM generate_series(1,1000000) g ORDER BY random(); CREATE TABLE tb (LIKE te); INSERT INTO tb SELECT * FROM te; CREATE INDEX ON te USING elastic_btree (k); CREATE INDEX ON tb (k);"; $P -c "VACUUM ANALYZE"
for t in te tb; do echo "\\set k 2 * random(1, 1000000)
SELECT v FROM $t WHERE k = :k;" > /tmp/ab_$t.sql; chmod 644 /tmp/ab_$t.sql; done
for r in 1 2 3 4 5; do for t in te tb; do
 tps=$(runuser -u postgres -- $B/pgbench -h /tmp -p 55999 -n -T 10 -f /tmp/ab_$t.sql postgres 2>/dev/null | awk '/^tps/{print $3}')
 echo "$wt $t round $r $tps"
done; done
runuser -u postgres -- $B/pg_ctl -D $D -w stop -m fast >/dev/null
