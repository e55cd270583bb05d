# bench/memory_budget/report.awk - memory-budget.md from the per-run CSV of
# bench/memory_budget/run.sh (budget,budget_mb,round,table,dist,query,tps,
# queries,buffer_misses,disk_reads,disk_sectors); the variables come from
# run.sh.

# Per query: $1 over queries $2 ("" if unknown).
function per(x, n) {
	return (x == "" || n + 0 == 0) ? "" : x / n
}

# $1 formatted with two decimals, or "?" when empty.
function f2(x) {
	return (x == "") ? "?" : sprintf("%.2f", x)
}

# The ratio $1 / $2 as "0.00x", or "?" when either is missing or $2 is 0.
function ratio(a, b) {
	return (a == "" || b == "" || b + 0 == 0) ? "?" : sprintf("%.2fx", a / b)
}

NR == 1 { next }
{
	key = $1 SUBSEP $4 SUBSEP $5 SUBSEP $6
	if (!(key in tps) || $7 + 0 > tps[key] + 0) {
		tps[key] = $7
		miss[key] = ($8 + 0 > 0) ? $9 / $8 : ""
		disk[key] = per($10, $8)
		kbytes[key] = per($11 == "" ? "" : $11 / 2, $8)
	}
	mb[$1] = $2
}
END {
	print "# Point lookups under a memory budget: compact leaves against btree"
	print ""
	printf "`%s`, %s, elastic_index %s, commit %s, %s, %d cores.\n\n", cmd, pgver, extver, commit, date, nproc
	printf "- %d rows per table (k int8 = 2, 4, ..., 2N; v int8), inserted in one scattered order; heap %.1f MB per table.\n", rows, heap
	printf "- Indexes on k: built = btree by CREATE INDEX, %.1f MB; grown = btree that took the rows one insert at a time, %.1f MB; compact = elastic_btree WITH (size_bound = '1MB') grown the same way, %.1f MB (%s leaves compact).\n", sbuilt, sgrown, scompact, cleaves
	printf "- Budgets: a memory cgroup around the server (shared memory, processes, the file pages they read), shared_buffers a quarter of it; what it leaves for file pages (3/4 of the budget - %d MB for the processes, measured) is: all = heap + the indexes + 64 MB; table = halfway between heap + compact and heap + built btree (the table fits with the compact index, not with a btree); index = halfway between the compact and the built index (the compact index fits, no btree, not the heap); none = half the compact index.\n", overhead
	printf "- Per budget, round and table: page cache dropped, server restarted in the cgroup, heap and index read once, then per key choice %d s of present-key lookups, then %d s per query; 1 pgbench client, prepared statements, sequential and bitmap scans off; best of %d rounds (highest tps).\n", warm, secs, rounds
	print "- Queries: present = `SELECT v FROM t WHERE k = :k` on a key in the table; absent = the same on an odd key; range = `sum(v)` over 100 rows. Keys: uniform, or random_zipfian(0, N-1, 1.1) scattered by permute()."
	printf "- misses/q: shared-buffer misses (heap and index) per query, pg_statio; disk/q: read requests per query the device %s completed (/proc/diskstats: the whole machine's reads); KB/q: kilobytes it read per query (readahead included).\n", device
	print ""
	print "| budget | MB | keys | query | tps built | tps grown | tps compact | compact/built | compact/grown | disk/q built | disk/q grown | disk/q compact | compact/built | compact/grown | misses/q built | misses/q grown | misses/q compact | KB/q built | KB/q grown | KB/q compact |"
	print "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"
	nb = split("all table index none", budgets, " ")
	split("uniform zipfian", dists, " ")
	split("present absent range", queries, " ")
	for (b = 1; b <= nb; b++) {
		bud = budgets[b]
		if (!(bud in mb)) continue
		for (d = 1; d <= 2; d++)
			for (q = 1; q <= 3; q++) {
				kb = bud SUBSEP "built" SUBSEP dists[d] SUBSEP queries[q]
				kg = bud SUBSEP "grown" SUBSEP dists[d] SUBSEP queries[q]
				kc = bud SUBSEP "compact" SUBSEP dists[d] SUBSEP queries[q]
				printf "| %s | %d | %s | %s | %.0f | %.0f | %.0f | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", \
					bud, mb[bud], dists[d], queries[q], tps[kb], tps[kg], tps[kc], \
					ratio(tps[kc], tps[kb]), ratio(tps[kc], tps[kg]), \
					f2(disk[kb]), f2(disk[kg]), f2(disk[kc]), \
					ratio(disk[kc], disk[kb]), ratio(disk[kc], disk[kg]), \
					f2(miss[kb]), f2(miss[kg]), f2(miss[kc]), \
					f2(kbytes[kb]), f2(kbytes[kg]), f2(kbytes[kc])
			}
	}
}
