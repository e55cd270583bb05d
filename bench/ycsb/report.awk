# bench/ycsb/report.awk - the markdown report of bench/ycsb/run.sh, from
# docs/benchmarks/ycsb.csv (awk -F, with the run's facts in -v).
NR == 1 { next }
{
	if (!($1 in seen)) {
		seen[$1] = 1
		w[++nw] = $1
	}
	tps[$1, $2] = $3
}
END {
	nk = split(kinds, k, " ")
	desc["A"] = "50% reads, 50% updates"
	desc["B"] = "95% reads, 5% updates"
	desc["C"] = "100% reads"
	desc["E"] = "95% range scans of 1-100 rows, 5% inserts"
	desc["F"] = "read-modify-write"
	print "# YCSB-style workloads: index kinds against btree"
	print ""
	printf "Produced by `%s` (from the repository root) on %s.\n", cmd, date
	print ""
	printf "- %s; elastic_index %s; repository commit %s; %s CPUs.\n", pgver, extver, commit, nproc
	print "- Throwaway cluster: shared_buffers = 1GB, **fsync = off**, autovacuum = off, jit = off."
	printf "- One table per index kind (%s), each with the same %d rows (an int8 key, a 100-byte field; keys loaded in a scattered order) and one index on the key. Each workload runs %d s per table, %d pgbench clients, keys chosen by `random_zipfian(1, N, 1.01)` (YCSB uses 0.99; pgbench accepts 1.001 and above), sequential scans off; a VACUUM after each workload.\n",
		kinds, rows, secs, clients
	print "- Every index is loaded by one INSERT of all rows in the scattered order (osm_tree applies it in sorted batches of 100000)."
	print ""
	printf "| workload | mix |"
	for (j = 1; j <= nk; j++)
		printf " %s tps |", k[j]
	for (j = 1; j <= nk; j++)
		if (k[j] != "btree")
			printf " %s / btree |", k[j]
	print ""
	printf "|---|---|"
	for (j = 1; j <= nk; j++)
		printf "---:|"
	for (j = 1; j <= nk; j++)
		if (k[j] != "btree")
			printf "---:|"
	print ""
	for (i = 1; i <= nw; i++) {
		printf "| %s | %s |", w[i], desc[w[i]]
		for (j = 1; j <= nk; j++)
			printf " %s |", tps[w[i], k[j]]
		for (j = 1; j <= nk; j++)
			if (k[j] != "btree")
				printf " %s |", (tps[w[i], "btree"] > 0) ? sprintf("%.2f", tps[w[i], k[j]] / tps[w[i], "btree"]) : "-"
		print ""
	}
	print ""
	print "BRIN summarizes block ranges; on keys loaded in a scattered order every range spans"
	print "nearly all keys, so each lookup reads most of the table: it is in the table to show"
	print "what a block-range index does on unsorted data, not as a contender here."
	print ""
	print "Raw numbers are in ycsb.csv; ycsb.png (if gnuplot was installed) plots the ratios."
}
