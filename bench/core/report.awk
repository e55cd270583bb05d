# bench/core/report.awk - turn core-results.csv into core.md.
#
# Called by bench/core/run.sh with -F, and these variables: cmd, date, nproc,
# mem, cpu, pgver, extver, commit, rows, irows, duration, clients, reps,
# rounds, preload, kinds, types, runtime, load0, load1, plot (1: core.png
# is drawn, link it).  Plain POSIX awk (Debian's mawk is enough).

# Add metric row spec: name, label, format, divisor, target, per-client.
function spec(name, label, fmt, div, target, perclient) {
	ns++
	s_name[ns] = name
	s_label[ns] = label
	s_fmt[ns] = fmt
	s_div[ns] = div
	s_target[ns] = target
	s_pc[ns] = perclient
}

# Format value x of spec i, or a dash when missing.
function fmtval(i, x) {
	if (x == "" || x == "NA")
		return (x == "NA") ? "failed" : "—"
	return sprintf(s_fmt[i], x / s_div[i])
}

# Ratio cell a/b with PASS/MISS against target t ("<=1.05", ">=0.9", "").
function ratio(a, b, t, key,    r, res, lim) {
	if (a == "" || b == "" || a == "NA" || b == "NA" || b + 0 == 0)
		return "—"
	r = a / b
	if (t == "")
		return sprintf("%.2f", r)
	lim = substr(t, 3) + 0
	if (substr(t, 1, 2) == "<=")
		res = (r <= lim) ? "PASS" : "MISS"
	else
		res = (r >= lim) ? "PASS" : "MISS"
	if (res == "PASS")
		npass[key]++
	else {
		nmiss[key]++
		misses[key] = misses[key] sprintf("\n  - %s: %.2f (target %s)", cur_label, r, t)
	}
	return sprintf("%.2f %s", r, res)
}

# Print the range of btree dedup on / dedup off ratios of the metrics of
# key type ty whose names start with prefix: on unique keys btree builds
# the same tree either way, so the spread is the run-to-run noise.
function noise(ty, prefix, what,    i, c, a, b, r, lo, hi) {
	lo = ""; hi = ""
	for (i = 1; i <= ns; i++) {
		if (substr(s_name[i], 1, length(prefix)) != prefix)
			continue
		for (c = 1; c <= nc; c++) {
			a = val[ty, ON, s_name[i], cl[c]]; b = val[ty, OFF, s_name[i], cl[c]]
			if (a == "" || b == "" || a == "NA" || b == "NA" || b + 0 == 0)
				continue
			r = a / b
			if (lo == "" || r < lo) lo = r
			if (hi == "" || r > hi) hi = r
		}
	}
	if (lo != "")
		printf "- %s noise floor (%s): btree dedup on / dedup off, the same tree on unique keys, ranges %.2f .. %.2f\n", ty, what, lo, hi
}

BEGIN {
	spec("build_s", "build time, median of " reps " (s)", "%.3f", 1, "", 0)
	spec("build_cpu_s", "build server CPU, median (s)", "%.2f", 1, "", 0)
	spec("build_wal_bytes", "build WAL (MB)", "%.2f", 1048576, "", 0)
	spec("index_bytes", "index size after build (MB)", "%.2f", 1048576, "<=1.05", 0)
	spec("bytes_per_entry", "bytes/entry after build", "%.2f", 1, "", 0)
	spec("insert_rows_per_s", "bulk insert (rows/s)", "%.0f", 1, ">=0.9", 0)
	spec("insert_cpu_us_per_row", "insert server CPU, total (µs/row)", "%.2f", 1, "<=1.11", 0)
	spec("insert_index_us_per_row", "index's own insert time (µs/row)", "%.3f", 1, "", 0)
	spec("insert_index_cpu_us_per_row", "index's own insert CPU (µs/row)", "%.3f", 1, "", 0)
	spec("insert_wal_per_row", "insert WAL, total (bytes/row)", "%.1f", 1, "<=1.3", 0)
	spec("insert_index_wal_per_row", "insert WAL, index only (bytes/row)", "%.1f", 1, "<=1.3", 0)
	spec("insert_records_per_row", "insert WAL records/row", "%.3f", 1, "", 0)
	spec("insert_fpi_per_1000_rows", "insert full-page images/1000 rows", "%.2f", 1, "", 0)
	spec("index_bytes_after_insert", "index size after insert (MB)", "%.2f", 1048576, "<=1.05", 0)
	spec("bytes_per_entry_after_insert", "bytes/entry after insert", "%.2f", 1, "", 0)
	spec("tps_point", "point lookup (tps)", "%.0f", 1, ">=0.9", 1)
	spec("tps_range", "100-row range scan (tps)", "%.0f", 1, ">=0.9", 1)
	spec("tps_ios", "100-row index-only scan (tps)", "%.0f", 1, ">=0.9", 1)
	spec("cpu_us_per_tx_point", "point lookup, server CPU (µs/tx)", "%.1f", 1, "<=1.11", 1)
	spec("cpu_us_per_tx_range", "range scan, server CPU (µs/tx)", "%.1f", 1, "<=1.11", 1)
	spec("cpu_us_per_tx_ios", "index-only scan, server CPU (µs/tx)", "%.1f", 1, "<=1.11", 1)
	E = "elastic_btree"; OFF = "btree_dedup_off"; ON = "btree_dedup_on"; NO = "no_index"
}

NR > 1 {
	val[$1, $2, $3, $4] = $5
	if ($4 != "")
		seenc[$4] = 1
}

END {
	nc = split(clients, cl, " ")
	nt = split(types, tl, " ")

	print "# Core benchmark: elastic_btree vs PostgreSQL btree"
	print ""
	print "Produced by one run of `" cmd "` (from the repository root) on " date \
		", about " runtime " min."
	print ""
	if (plot) {
		print "![core.png: per key type and index kind, index size, CREATE INDEX and bulk-insert time, read tps and server CPU per transaction](core.png)"
		print ""
		print "The plot is drawn from core-results.csv of this run by `bench/core/plot.sh` (run.sh calls it at its end;"
		print "`bench/core/plot.sh DIR` redraws it from the CSV in DIR)."
		print ""
	}
	print "## Machine and settings"
	print ""
	print "- Machine: " nproc " CPUs (" cpu "), " mem " GB RAM; load average (1 min) " load0 \
		" at the start, " load1 " at the end of the run (other work on the machine makes the tps noisy)"
	print "- PostgreSQL " pgver "; elastic_index " extver "; repository commit " commit
	print "- Throwaway cluster (initdb --no-locale -E UTF8, so text compares with the C collation):"
	print "  shared_buffers = 1GB, max_wal_size = 4GB, checkpoint_timeout = 30min,"
	print "  shared_preload_libraries = '" preload "', **fsync = off** (for speed; WAL is still"
	print "  generated exactly as with fsync on: wal_level, full_page_writes and synchronous_commit keep"
	print "  their defaults), autovacuum = off (every VACUUM is explicit, so the tables stay identical),"
	print "  jit = off, maintenance_work_mem = 512MB, max_parallel_maintenance_workers = 0 (btree"
	print "  could build in parallel, elastic_btree cannot: builds are compared single-process),"
	print "  synchronize_seqscans = off."
	print "- Data: " rows " rows per table, columns (k, v int4); one table per index kind holding"
	print "  identical rows in identical heap order, each with only the index under test."
	print "  - int8: keys 2, 4, ..., 2N in random heap order (ordered by md5(i))."
	print "  - text: key = substr(md5(i::text), 1, 30), exactly 30 bytes, random order."
	print ""
	print "## Method"
	print ""
	print "- Build: DROP INDEX, CHECKPOINT, CREATE INDEX timed with clock_timestamp(), " reps \
		" times per kind, interleaved (A B C A B C ...); the median is reported. Size is"
	print "  pg_relation_size of the last build, bytes/entry = size / rows."
	print "- Bulk insert: after the reads, CHECKPOINT, then one INSERT ... SELECT of " irows \
		" new rows in random key order"
	print "  (int8: odd keys 4j+1 spread over the whole key range; text: md5 keys of rows N+1 ...)."
	print "  WAL = pg_current_wal_insert_lsn() difference; records and full-page images from pg_stat_wal."
	print "  The same insert into a table with no index is the baseline: \"index only\" = with index minus"
	print "  without. Every insert starts right after a CHECKPOINT, so it pays the full-page images"
	print "  of the pages it touches first (as a real workload does once per checkpoint)."
	print "- Reads: VACUUM ANALYZE and pg_prewarm of table and index, then pgbench -n -M prepared -T " duration \
		" -c C -j min(C, nproc)"
	print "  with PGOPTIONS='-c enable_seqscan=off -c enable_bitmapscan=off', clients " clients \
		", kinds interleaved per (workload, clients)" \
		(rounds > 1 ? ", " rounds " rounds (A B C A B C ...), median tps reported" : ", one run each") "."
	print "  Scripts: bench/core/<type>_{point,range,ios}.sql."
	print "  Every plan is checked with EXPLAIN ANALYZE (Index Scan / Index Only Scan with Heap"
	print "  Fetches: 0 on the index under test, no Sort), and the answers of all kinds are compared."
	print "- Server CPU: user + system time of the backends (the postmaster's reaped-children counters,"
	print "  10 ms resolution), per transaction or per inserted row. On a busy machine tps mostly"
	print "  measures how much CPU the run got; CPU per transaction hardly depends on that, so it is"
	print "  the steadier measure of the index's own cost."
	print "- Targets: size <= 1.05x btree, WAL per row <= 1.3x btree, every throughput >= 0.9x btree"
	print "  (for the CPU rows the same target reads CPU <= 1/0.9 = 1.11x); build time is reported as"
	print "  measured. Ratios are elastic_btree / btree."

	# Summary first needs the tables computed: build them into strings.
	for (t = 1; t <= nt; t++) {
		ty = tl[t]
		key = ty
		out = ""
		out = out "\n## " ty " keys\n\n"
		out = out "| metric | clients | elastic_btree | btree dedup off | btree dedup on | no index | elastic / dedup off | elastic / dedup on |\n"
		out = out "|---|---:|---:|---:|---:|---:|---:|---:|\n"
		for (i = 1; i <= ns; i++) {
			m = s_name[i]
			np = s_pc[i] ? nc : 1
			for (c = 1; c <= np; c++) {
				cc = s_pc[i] ? cl[c] : ""
				e = val[ty, E, m, cc]; off = val[ty, OFF, m, cc]
				on = val[ty, ON, m, cc]; no = val[ty, NO, m, cc]
				if (e == "" && off == "" && on == "")
					continue
				cur_label = s_label[i] (cc != "" ? ", " cc " clients" : "") " vs dedup off"
				r1 = ratio(e, off, s_target[i], key)
				cur_label = s_label[i] (cc != "" ? ", " cc " clients" : "") " vs dedup on"
				r2 = ratio(e, on, s_target[i], key)
				out = out sprintf("| %s | %s | %s | %s | %s | %s | %s | %s |\n", s_label[i],
					(cc == "" ? "" : cc), fmtval(i, e), fmtval(i, off), fmtval(i, on),
					fmtval(i, no), r1, r2)
			}
		}
		hb = val[ty, NO, "heap_bytes", ""]
		if (hb != "")
			out = out sprintf("\nHeap of each table: %.2f MB before the insert. Build times of every run (s):", hb / 1048576)
		split(E " " OFF " " ON, kl, " ")
		for (k = 1; k <= 3; k++) {
			b = val[ty, kl[k], "build_s_all", ""]
			if (b != "") {
				gsub(/;/, ", ", b)
				out = out " " kl[k] " " b ";"
			}
		}
		out = out "\n"
		table[t] = out
	}

	print ""
	print "## Summary"
	print ""
	for (t = 1; t <= nt; t++) {
		ty = tl[t]
		printf "- **%s**: %d PASS, %d MISS", ty, npass[ty] + 0, nmiss[ty] + 0
		if (nmiss[ty] > 0)
			printf "; misses:%s", misses[ty]
		print ""
	}
	# On unique keys btree builds the same tree with deduplication on or
	# off, so the spread of their tps ratio is the run-to-run noise.
	for (t = 1; t <= nt; t++) {
		noise(tl[t], "tps_", "tps")
		noise(tl[t], "cpu_us_per_tx_", "server CPU/tx")
	}
	for (t = 1; t <= nt; t++)
		printf "%s", table[t]

	print ""
	print "## Plan and answer checks"
	print ""
	print "| key type | workload | elastic_btree | btree dedup off | btree dedup on |"
	print "|---|---|---|---|---|"
	nw = split("point range ios", wl, " ")
	for (t = 1; t <= nt; t++)
		for (w = 1; w <= nw; w++) {
			line = "| " tl[t] " | " wl[w] " |"
			for (k = 1; k <= 3; k++) {
				p = val[tl[t], kl[k], "plan_ok_" wl[w], ""]
				a = val[tl[t], kl[k], "answer_mismatch_" wl[w], ""]
				cell = (p == "") ? "—" : (p == 1 ? "ok" : "WRONG PLAN")
				if (a == 1)
					cell = cell ", ANSWER DIFFERS"
				line = line " " cell " |"
			}
			print line
		}
	print ""
	print "Raw numbers (including average latencies and the per-run build times): core-results.csv."
}
