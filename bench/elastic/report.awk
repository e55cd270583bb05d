# bench/elastic/report.awk - the markdown report of bench/elastic/run.sh,
# from docs/benchmarks/elastic.csv and elastic-capacity.csv (awk -F, with
# the run's facts in -v).
FNR == 1 { next }
FILENAME ~ /-capacity\.csv$/ {
	ncap++
	cap_rows[ncap] = $2
	cap_bytes[ncap] = $3
	cap_leaves[ncap] = $4
	cap_compact[ncap] = $5
	next
}
{
	pass = $1; stepname = $2
	key = stepname
	if (!(key in order)) {
		order[key] = ++nsteps
		names[nsteps] = key
	}
	rows[pass, key] = $3
	bytes[pass, key] = $4
	leaves[pass, key] = $5
	compact[pass, key] = $6
	state[pass, key] = $7
	secs_[pass, key] = $8
	point[pass, key] = $9
	range_[pass, key] = $10
}
function ratio(a, b) {
	return (b > 0) ? sprintf("%.2f", a / b) : "-"
}
END {
	bound = bound_kb * 1024
	print "# Elasticity under a size bound: elastic_btree against btree"
	print ""
	printf "Produced by `%s` (from the repository root) on %s.\n", cmd, date
	print ""
	printf "- %s; elastic_index %s; repository commit %s; %s CPUs; load average %s before, %s after.\n",
		pgver, extver, commit, nproc, load0, load1
	print "- Throwaway cluster: shared_buffers = 1GB, **fsync = off**, autovacuum = off, jit = off."
	printf "- %d chunks of %d rows (%s, a pad column), one INSERT per chunk, then the chunks deleted oldest first with a VACUUM after each. Two tables get the same rows step by step in one run: one with a btree index, one with elastic_btree `WITH (size_bound = '%dkB')`, half of btree's peak of %.1f MB (found by a first, unmeasured load).\n",
		chunks, chunk, keydesc, bound_kb, peak / 1048576
	printf "- After every step, with one pgbench client for %d s each, forced through the index: point lookups of an inserted key and 100-row range scans (`ORDER BY k LIMIT 100`), in tps, measured after both tables took the step, alternating between the tables, the best of %d. Step time: the INSERT, or the DELETE plus VACUUM.\n", secs, repeat
	print ""
	print "Ratios are elastic_btree / btree at the same step: below 1 is better for size and time, above 1 for tps."
	print ""
	print "| step | rows | btree MB | elastic MB (ratio) | within bound +5% | elastic leaves (compact) | state | step s (btree / elastic) | point tps (btree / elastic, ratio) | range tps (btree / elastic, ratio) |"
	print "|---|---:|---:|---|:-:|---|---|---|---|---|"
	for (i = 1; i <= nsteps; i++) {
		k = names[i]
		ok = (bytes["elastic", k] <= bound * 1.05) ? "yes" : "**no**"
		printf "| %s | %d | %.1f | %.1f (%s) | %s | %d (%d) | %s | %s / %s | %s / %s (%s) | %s / %s (%s) |\n",
			k, rows["elastic", k], bytes["btree", k] / 1048576,
			bytes["elastic", k] / 1048576, ratio(bytes["elastic", k], bytes["btree", k]),
			ok, leaves["elastic", k], compact["elastic", k], state["elastic", k],
			secs_["btree", k], secs_["elastic", k],
			point["btree", k], point["elastic", k], ratio(point["elastic", k], point["btree", k]),
			range_["btree", k], range_["elastic", k], ratio(range_["elastic", k], range_["btree", k])
	}
	# entries per byte where the index is largest and most compact
	k = "insert " chunks
	if (bytes["elastic", k] > 0 && leaves["btree", k] > 0 && leaves["elastic", k] > 0) {
		print ""
		printf "At step %s elastic_btree holds %.2fx the entries per byte that btree holds (%.1f MB against %.1f MB), and its leaves hold %.0f entries each on average against btree's %.0f (%.2fx).\n",
			k, bytes["btree", k] / bytes["elastic", k], bytes["elastic", k] / 1048576,
			bytes["btree", k] / 1048576, rows["elastic", k] / leaves["elastic", k],
			rows["btree", k] / leaves["btree", k],
			(rows["elastic", k] / leaves["elastic", k]) / (rows["btree", k] / leaves["btree", k])
	}
	capacity_report()
	print ""
	printf "Raw numbers are in %s.csv and %s-capacity.csv; the plot %s.png (if gnuplot was installed) shows size and both tps curves per step.\n", name, name, name
}

# The capacity run: the most rows a fresh elastic_btree index held within
# its bound (+5%), against the rows btree fits in as many bytes.
function capacity_report(   i, last, btree_epb) {
	bound = bound_kb * 1024
	last = 0
	for (i = 1; i <= ncap; i++)
		if (cap_bytes[i] <= bound * 1.05)
			last = i
	if (last == 0 || peak == 0)
		return
	btree_epb = chunks * chunk / peak
	print ""
	print "## Capacity at the bound"
	print ""
	printf "A third table got the same chunks and more, up to %d, into an elastic_btree index with the same bound, until the index grew past the bound + 5%% (%.1f MB):\n", capacity_chunks, bound * 1.05 / 1048576
	print ""
	print "| chunk | rows | elastic MB | leaves (compact) | rows per leaf |"
	print "|---:|---:|---:|---|---:|"
	for (i = 1; i <= ncap; i++)
		printf "| %d | %d | %.1f | %d (%d) | %.0f |\n", i, cap_rows[i],
			cap_bytes[i] / 1048576, cap_leaves[i], cap_compact[i],
			cap_rows[i] / cap_leaves[i]
	print ""
	printf "Within its bound elastic_btree held %d rows in %.1f MB%s; btree needs %.1f MB for them at its density at its peak (%d rows in %.1f MB), so **elastic_btree fits %.2fx the entries btree fits in the same bytes**.\n",
		cap_rows[last], cap_bytes[last] / 1048576,
		(last == ncap) ? sprintf(" and never outgrew the bound in %d chunks (so at least that many)", ncap) : "",
		cap_rows[last] / btree_epb / 1048576, chunks * chunk, peak / 1048576,
		(cap_rows[last] / cap_bytes[last]) / btree_epb
	if (built_bytes > 0)
		printf "\nA btree built by CREATE INDEX over all %d rows of the capacity table (fillfactor 90, the densest btree) takes %.1f MB, %.1f bytes per entry: against it elastic_btree fits %.2fx the entries in the same bytes.\n",
			built_rows, built_bytes / 1048576, built_bytes / built_rows,
			(cap_rows[last] / cap_bytes[last]) / (built_rows / built_bytes)
}
