# bench/insert_latency/report.awk - insert-latency.md from the results CSV of
# bench/insert_latency/run.sh (one row per load); the variables come from
# run.sh (-v).
NR == 1 { next }
{
	key = $1 ":" $2
	if (!(key in seen)) { seen[key] = 1; order[++n] = key }
	kd = $3
	loads[key, kd]++
	# the best of the rounds: the highest tps, the lowest latencies
	if (!((key, kd) in tps) || $5 > tps[key, kd]) tps[key, kd] = $5
	for (f = 6; f <= 9; f++)
		if (!((key, kd, f) in lat) || $f < lat[key, kd, f]) lat[key, kd, f] = $f
	binserts[key, kd] += $10; steps[key, kd] += $11; fg[key, kd] += $12; left[key, kd] += $14
	# a flush of the pages left after the load, per page
	if ($14 > 0 && $15 != "") { fpages[key, kd] += $14; fms[key, kd] += $15 }
	bytes[key, kd] = $16; fill[key, kd] = $17
}
function name(kd) {
	if (kd == "osm") return "osm_tree (top_inserts on)"
	if (kd == "osm_buffer") return "osm_tree, buffer (top_inserts off)"
	if (kd == "osm_noworker") return "osm_tree, buffer, no flush worker"
	if (kd == "elastic") return "elastic_btree"
	return kd
}
function ratio(a, b) { return b > 0 ? sprintf("%.2f", a / b) : "-" }
function mean(x, key, kd) { return sprintf("%.0f", x[key, kd] / loads[key, kd]) }
END {
	print "# Single-row INSERT latency from concurrent clients"
	print ""
	printf "Produced by `%s` (from the repository root) on %s.\n\n", cmd, date
	printf "- %s; elastic_index %s; repository commit %s; %s CPUs; load average %s at the start.\n", pgver, extver, commit, nproc, load
	print "- Throwaway cluster: shared_buffers = 1GB, **fsync = on, synchronous_commit = on**, autovacuum = off, jit = off."
	printf "- %d int8 keys 1..N in near-sorted arrival order (`elastic_index_near_sorted(N, K, L)`), inserted one row per transaction by pgbench, %d clients, %d threads; each transaction takes the next row of the arrival order from a sequence. A fresh table with one index per load; %d round(s), each loading every kind once; per kind the best of the rounds counts for each figure (the highest tps, the lowest of each percentile).\n", rows, clients, jobs, repeat
	printf "- Latencies are the per-transaction times of pgbench (`--log`), in ms: the whole transaction, commit and WAL flush included. osm_tree insert buffer: `buffer_size` %s pages, `flush_fraction` %s; **buffer** = `osm_tree.top_inserts = off`, every row goes to the buffer, which the background worker and the insert that finds it full (a *foreground flush*) move into the tree. Flush steps (up to 16 pages each), foreground flushes and buffered entries are from `elastic_index_stat_activity`, means per load. The pages a load leaves in the buffer are then flushed by `osm_tree_flush`, timed: *flush ms per %d pages* is what one foreground flush adds to the INSERT that runs it.\n", bufsize, fraction, int(bufsize * fraction)
	print "- Issue 24 target: with the insert buffer on, p99.9 at most 2x that of btree."
	print ""
	if (plot) { print "![p50, p99, p99.9 and max latency, and tps, per kind](insert-latency.png)"; print "" }
	# the pages one flush moves (a foreground flush)
	unit = int(bufsize * fraction)
	if (unit < 1) unit = 1
	nk = split(kinds, kl, " ")
	for (i = 1; i <= n; i++) {
		key = order[i]
		split(key, s, ":")
		printf "## K = %s%%, L = %s%%\n\n", s[1], s[2]
		print "| kind | tps (ratio) | p50 ms | p99 ms | p99.9 ms | p99.9 / btree | max ms | entries buffered | flush steps | foreground flushes | buffer pages left | flush ms per " unit " pages | leaf fill % |"
		print "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
		for (j = 1; j <= nk; j++) {
			kd = kl[j]
			if (!((key, kd) in tps)) continue
			buf = (kd ~ /^osm/)
			printf "| %s | %.0f (%s) | %.3f | %.3f | %.3f | %s | %.3f | %s | %s | %s | %s | %s | %s |\n",
				name(kd), tps[key, kd], ratio(tps[key, kd], tps[key, "btree"]),
				lat[key, kd, 6], lat[key, kd, 7], lat[key, kd, 8],
				ratio(lat[key, kd, 8], lat[key, "btree", 8]), lat[key, kd, 9],
				buf ? mean(binserts, key, kd) : "", buf ? mean(steps, key, kd) : "",
				buf ? mean(fg, key, kd) : "", buf ? mean(left, key, kd) : "",
				(fpages[key, kd] > 0 ? sprintf("%.1f", fms[key, kd] / fpages[key, kd] * unit) : ""), fill[key, kd]
		}
		print ""
	}
	print "Ratios are kind / btree from the same run (tps: above 1 is faster; p99.9: below 1 is better)."
	print "A buffer kind with no flush steps never flushed: its percentiles then say nothing about flushes."
	print "Every load, round by round: insert-latency.csv."
}
