# bench/memory_budget/report.awk - memory-budget.md from the per-run CSV of
# bench/memory_budget/run.sh (budget,budget_mb,round,table,dist,query,tps,
# queries,buffer_misses,disk_reads,disk_sectors); the variables come from
# run.sh.  Three tables: lookups per second, disk reads, shared-buffer
# misses; cbuilt's columns only when the CSV has cbuilt rows (older runs
# have built, grown and compact only).  A join statement looks up 100 keys:
# its rows count lookups (tps and queries times 100), so that every row is
# per lookup.

# The headings "$1 built | $1 grown | ..." of the tables in the report.
function cols(measure, t, line) {
	line = ""
	for (t = 1; t <= ntab; t++)
		line = line (t > 1 ? " | " : "") measure " " tabs[t]
	return line
}

# Per query: $1 over queries $2 ("" if unknown).
function per(x, n) {
	return (x == "" || n + 0 == 0) ? "" : x / n
}

# $1 formatted with two decimals, or "?" when empty.
function f2(x) {
	return (x == "") ? "?" : sprintf("%.2f", x)
}

# $1 formatted with no decimals, or "?" when empty.
function f0(x) {
	return (x == "") ? "?" : sprintf("%.0f", x)
}

# The ratio $1 / $2 as "0.00x", or "?" when either is missing or $2 is 0.
function ratio(a, b) {
	return (a == "" || b == "" || b + 0 == 0) ? "?" : sprintf("%.2fx", a / b)
}

# The header and the alignment row of a markdown table: the row's four
# leading columns, then $1 (" | "-separated headings after them).
function header(heads, n, i, line, parts) {
	n = split(heads, parts, " \\| ")
	line = "|---|---|---|---|"
	for (i = 1; i <= n; i++)
		line = line "---|"
	print "| budget | MB | keys | query | " heads " |"
	print line
}

# The cells of measure $1 (an array indexed by budget, table, dist, query)
# for the row key suffix $2 (SUBSEP dist SUBSEP query) of budget $3: one per
# table, formatted by f0 when $4 is 0, else f2; then, when $5 is set, one
# per ratio.
function cells(m, sfx, bud, digits, withratios, t, r, line, v) {
	line = ""
	for (t = 1; t <= ntab; t++) {
		v = m[bud SUBSEP tabs[t] sfx]
		line = line " " (digits ? f2(v) : f0(v)) " |"
	}
	if (withratios)
		for (r = 1; r <= nrat; r++)
			line = line " " ratio(m[bud SUBSEP ratnum[r] sfx], m[bud SUBSEP ratden[r] sfx]) " |"
	return line
}

# Print the rows of one table: per budget, key choice and query, the
# leading columns and cells(), followed by the kilobytes read per query
# when $4 is set.
function rows_of(m, digits, withratios, withkb, b, d, q, bud, sfx) {
	for (b = 1; b <= nb; b++) {
		bud = budgets[b]
		if (!(bud in mb)) continue
		for (d = 1; d <= 2; d++)
			for (q = 1; q <= nq; q++) {
				sfx = SUBSEP dists[d] SUBSEP queries[q]
				if (!((bud SUBSEP tabs[1] sfx) in m)) continue
				printf "| %s | %d | %s | %s |%s%s\n", bud, mb[bud], dists[d], queries[q], \
					cells(m, sfx, bud, digits, withratios), withkb ? cells(kbytes, sfx, bud, 1, 0) : ""
			}
	}
}

NR == 1 { next }
$6 == "join" {
	$7 *= 100
	$8 *= 100
}
{
	key = $1 SUBSEP $4 SUBSEP $5 SUBSEP $6
	if (!(key in tps) || $7 + 0 > tps[key] + 0) {
		tps[key] = $7
		miss[key] = ($8 + 0 > 0) ? $9 / $8 : ""
		disk[key] = per($10, $8)
		kbytes[key] = per($11 == "" ? "" : $11 / 2, $8)
	}
	mb[$1] = $2
	seen[$4] = 1
}
END {
	ntab = split(("cbuilt" in seen) ? "built grown compact cbuilt" : "built grown compact", tabs, " ")
	nrat = split(("cbuilt" in seen) ? "compact/built compact/grown cbuilt/built" : "compact/built compact/grown", rats, " ")
	for (r = 1; r <= nrat; r++) {
		split(rats[r], pair, "/")
		ratnum[r] = pair[1]
		ratden[r] = pair[2]
	}
	ratcols = ""
	for (r = 1; r <= nrat; r++)
		ratcols = ratcols " | " rats[r]
	nb = split("all table index none", budgets, " ")
	split("uniform zipfian", dists, " ")
	nq = split("present absent range join", queries, " ")

	print "# Point lookups under a memory budget: compact leaves against btree"
	print ""
	printf "`%s`, %s, elastic_index %s, commit %s, %s, %d cores.\n\n", cmd, pgver, extver, commit, date, nproc
	printf "- %d rows per table (k int8 = 2, 4, ..., 2N; v int8), inserted in one scattered order; heap %.1f MB per table.\n", rows, heap
	printf "- Indexes on k: built = btree by CREATE INDEX, %.1f MB; grown = btree that took the rows one insert at a time, %.1f MB; compact = elastic_btree WITH (size_bound = '1MB') grown the same way, %.1f MB (%s leaves compact)", sbuilt, sgrown, scompact, cleaves
	if ("cbuilt" in seen)
		printf "; cbuilt = elastic_btree WITH (size_bound = '1MB') by CREATE INDEX, %s MB (%s leaves compact: the leaves the build formed compact, if any)", (scbuilt == "") ? "?" : sprintf("%.1f", scbuilt), (cbleaves == "") ? "?" : cbleaves
	printf ". The pairs: compact/built and compact/grown (compact leaves grown by inserts against either btree)%s.\n", ("cbuilt" in seen) ? "; cbuilt/built (both by CREATE INDEX)" : ""
	printf "- Budgets: a memory cgroup around the server (shared memory, processes, the file pages they read), shared_buffers a quarter of it; what it leaves for file pages (3/4 of the budget - %d MB for the processes, measured) is, with \"compact index\" the larger of the elastic_btree indexes: all = heap + the larger btree + the compact index + 64 MB; table = halfway between heap + compact index and heap + built btree (the table fits with any compact index, not with a btree); index = halfway between the compact and the built index (every compact index fits, no btree, not the heap); none = half the compact index.\n", overhead
	if (scompact + 0 >= sbuilt + 0 || (("cbuilt" in seen) && scbuilt != "" && scbuilt + 0 >= sbuilt + 0))
		print "- Note: an elastic_btree index is not smaller than the built btree here, so the budgets table and index do not separate the compact index from the btree (they are set from the larger elastic_btree index)."
	printf "- Per budget, round and table (the tables interleaved): page cache dropped, server restarted in the cgroup, heap and index read once, then per key choice %d s of present-key lookups, then %d s per query; 1 pgbench client, prepared statements, sequential and bitmap scans, hash and merge joins off; best of %d rounds (highest tps).\n", warm, secs, rounds
	print "- Queries: present = `SELECT v FROM t WHERE k = :k` on a key in the table; absent = the same on an odd key; range = `sum(v)` over 100 rows; join = 100 present keys in one statement, looked up by a nested-loop join (`SELECT sum(v) FROM generate_series(1, 100) g JOIN t ON k = f(g)`, uniform keys only), counted per lookup (its tps is lookups per second), which leaves out the statement's fixed cost per key. Keys: uniform, or random_zipfian(0, N-1, 1.1) scattered by permute()."
	printf "- misses/q: shared-buffer misses (heap and index) per query, pg_statio; disk/q: read requests per query the device %s completed (/proc/diskstats: the whole machine's reads); KB/q: kilobytes it read per query (readahead included).\n", device
	print ""
	print "## Lookups per second (best round)"
	print ""
	header(cols("tps") ratcols)
	rows_of(tps, 0, 1, 0)
	print ""
	print "## Disk reads per query (the best round's): read requests, then kilobytes"
	print ""
	header(cols("disk/q") ratcols " | " cols("KB/q"))
	rows_of(disk, 1, 1, 1)
	print ""
	print "## Shared-buffer misses per query (the best round's)"
	print ""
	header(cols("misses/q"))
	rows_of(miss, 1, 0, 0)
}
