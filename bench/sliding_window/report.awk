# bench/sliding_window/report.awk - turn sliding-window.csv into Markdown.
#
# Input: the CSV written by run.sh (header line first).  Variables passed
# with -v: cmd, date, nproc, mem, cpu, pgver, extver, commit, day, days,
# windows, check, load0, load1, runtime, plot (1: sliding-window.png is
# drawn, link it).

# Pages of a size in bytes.
function pages(bytes) {
	return bytes / 8192
}

# Megabytes of a size in bytes, one decimal.
function mb(bytes) {
	return sprintf("%.1f", bytes / 1048576)
}

NR == 1 {
	next
}

{
	w = $1
	nw = w
	rows[w] = $2
	ei[w] = $3
	bt[w] = $4
	ratio[w] = $5
	eleaf[w] = $6
	einner[w] = $7
	edel[w] = $8
	efsm[w] = $9
	bleaf[w] = $10
	binner[w] = $11
	bdel[w] = $12
	bfsm[w] = $13
	heap[w] = $14
	tins[w] = $15
	tdel[w] = $16
	tvac[w] = $17
}

END {
	# summary figures
	maxei = 0; maxbt = 0; maxratio = 0; minratio = 1e9
	for (i = 1; i <= nw; i++) {
		if (ei[i] > maxei) { maxei = ei[i]; maxei_w = i }
		if (bt[i] > maxbt) maxbt = bt[i]
		if (ratio[i] > maxratio) { maxratio = ratio[i]; maxratio_w = i }
		if (ratio[i] < minratio) minratio = ratio[i]
	}
	base = (nw >= 3) ? 3 : nw
	maxlater = 0
	for (i = base; i <= nw; i++)
		if (ei[i] > maxlater) maxlater = ei[i]

	print "# Sliding-window benchmark: page deletion and recycling"
	print ""
	printf "Produced by one run of `%s` (from the repository root) on %s, about %d min.\n", cmd, date, runtime
	print ""
	if (plot) {
		print "![sliding-window.png: per window, the size of both indexes and their deleted pages and pages in the free space map](sliding-window.png)"
		print ""
		print "The plot is drawn from sliding-window.csv of this run by `bench/sliding_window/plot.sh` (run.sh calls it at its end;"
		print "`bench/sliding_window/plot.sh DIR` redraws it from the CSV in DIR)."
		print ""
	}
	print "## Machine and settings"
	print ""
	printf "- Machine: %d CPUs (%s), %s GB RAM; load average (1 min) %s at the start, %s at the end\n", nproc, cpu, mem, load0, load1
	printf "- %s; elastic_index %s; repository commit %s\n", pgver, extver, commit
	print "- Throwaway cluster (initdb --no-locale -E UTF8): shared_buffers = 1GB, max_wal_size = 8GB, checkpoint_timeout = 30min,"
	print "  **fsync = off**, autovacuum = off (every VACUUM is explicit), jit = off,"
	print "  shared_preload_libraries = 'elastic_index'."
	print ""
	print "## Workload"
	print ""
	printf "- Table `events (ts int8, payload text)` with two indexes on `ts`: `USING elastic_btree` and\n"
	print "  `USING btree` (default options). Both are on the same table, so they see the same rows,"
	print "  deletions and VACUUMs."
	printf "- Load: %d days of %d rows, ts ascending (day d holds ts d*%d .. (d+1)*%d-1), payload md5(ts), then VACUUM.\n", days, day, day, day
	printf "- Then %d windows of: INSERT the next day (ascending ts), DELETE the oldest day, VACUUM.\n", windows
	print "  The table always holds " days " days (" days * day " rows) after a window."
	print "- After each window: `pg_relation_size` of both indexes; `elastic_index_stats` and `pgstatindex`"
	print "  (leaf, inner and deleted pages); `pg_freespace` (pages in the free space map)."
	if (check)
		print "- `elastic_index_check(index, true)` passed after every window (`--check`)."
	else
		print "- `elastic_index_check(index, true)` passed after the last window."
	print "- After the last window a scan forced through each index returned exactly the rows of a"
	print "  sequential scan (count, sum and md5 of the payloads in ts order)."
	print ""
	print "## Summary"
	print ""
	printf "- Size after the first full window: elastic_btree %d pages (%s MB), btree %d pages (%s MB).\n", pages(ei[1]), mb(ei[1]), pages(bt[1]), mb(bt[1])
	printf "- Largest size over all %d windows: elastic_btree %d pages (%s MB, window %d), **%.3fx the first window** (target 1.1x: %s); btree %d pages, %.3fx its first window.\n", nw, pages(maxei), mb(maxei), maxei_w, maxei / ei[1], (maxei <= 1.1 * ei[1]) ? "met" : "**not met**", pages(maxbt), maxbt / bt[1]
	printf "- From window %d on the size stays within %.3fx of window %d's (%d pages)%s.\n", base, maxlater / ei[base], base, pages(ei[base]), (maxlater <= 1.1 * ei[base]) ? ": the index does not grow" : ": **the index keeps growing**"
	printf "- elastic_btree / btree size ratio: %.3f .. %.3f (largest in window %d); last window %.3f.\n", minratio, maxratio, maxratio_w, ratio[nw]
	print ""
	print "Why btree settles one day of pages above its first window and elastic_btree does not: a"
	print "page deleted by VACUUM carries the next transaction id as its safexid, and nbtree reuses it"
	print "only once no snapshot can be that old. VACUUM has no transaction id, so the next window's"
	print "INSERT (one transaction) runs with exactly that xmin and cannot reuse the page; only the"
	print "following VACUUM records it in the free space map, for the window after. elastic_btree"
	print "also accepts a second proof, its recycle fence: at the end of the VACUUM that deleted the"
	print "pages, no other backend held a snapshot that could predate the deletions, so the pages are"
	print "recorded in the free space map at once and the next window's INSERT reuses them"
	print "(src/README.md, \"Recycling and truncation\")."
	print ""
	print "## Per window"
	print ""
	print "Sizes in 8 KB pages. Window 0 is the state after the initial load. `deleted` counts the"
	print "deleted pages in the file (`elastic_index_stats`, `pgstatindex`), whether or not they are"
	print "reusable yet; `FSM` the pages the free space map offers for reuse (`pg_freespace`). Times are"
	print "elapsed seconds of the window's INSERT, DELETE and VACUUM (both indexes together)."
	print ""
	print "| window | rows | elastic_btree | btree | ratio | elastic leaf | elastic inner | elastic deleted | elastic FSM | btree leaf | btree deleted | btree FSM | insert s | delete s | VACUUM s |"
	print "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
	for (i = 0; i <= nw; i++)
		printf "| %d | %d | %d | %d | %.3f | %d | %d | %d | %d | %d | %d | %d | %.2f | %.2f | %.2f |\n", i, rows[i], pages(ei[i]), pages(bt[i]), ratio[i], eleaf[i], einner[i], edel[i], efsm[i], bleaf[i], bdel[i], bfsm[i], tins[i], tdel[i], tvac[i]
	print ""
	print "Raw numbers: `docs/benchmarks/sliding-window.csv` (sizes in bytes)."
}
