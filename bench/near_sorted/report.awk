# bench/near_sorted/report.awk - near-sorted.md from the runner's CSV.
#
# Input: the CSV written by bench/near_sorted/run.sh (header line first).
# Variables: cmd, pgver, extver, rows, batch, singles, clients, duration,
# kinds (index kinds besides btree, e.g. "elastic osm"), nproc, date, commit,
# plot (1: near-sorted.png is drawn, link it).

# x / y with two decimals, or "-" when either is missing.
function ratio(x, y) {
	if (x == "" || y == "" || y + 0 == 0)
		return "-"
	return sprintf("%.2f", x / y)
}

NR == 1 { next }
{
	key = $1 SUBSEP $2 SUBSEP $3
	if (!(key in seen)) {
		seen[key] = 1
		order[++n] = key
	}
	for (i = 5; i <= NF; i++)
		v[key, $4, i] = $i
}

END {
	nk = split(kinds, kind, " ")
	amname["elastic"] = "elastic_btree"
	amname["osm"] = "osm_tree"
	amname["brin"] = "brin"
	amname["osm_compact"] = "osm_tree (compact_leaves)"
	amname["osm_redist"] = "osm_tree (redistribute_leaves)"
	names = ""
	for (q = 1; q <= nk; q++)
		names = names (q > 1 ? " and " : "") amname[kind[q]]
	print "# Near-sorted ingestion: " names " against btree"
	print ""
	printf "Produced by `%s` (from the repository root) on %s.\n", cmd, date
	print ""
	if (plot) {
		print "![near-sorted.png: per key type and sortedness K:L, each index kind's size, COPY index time, WAL per row and leaf fill](near-sorted.png)"
		print ""
		print "The plot is drawn from near-sorted.csv of this run by `bench/near_sorted/plot.sh` (run.sh calls it at its end;"
		print "`bench/near_sorted/plot.sh DIR` redraws it from the CSV in DIR)."
		print ""
	}
	printf "- %s; elastic_index %s; repository commit %s; %d CPUs.\n", pgver, extver, commit, nproc
	if (durable)
		print "- Throwaway cluster: shared_buffers = 1GB, **fsync = on, synchronous_commit = on** (`--durable`), autovacuum = off, jit = off, maintenance_work_mem = 512MB (the builds sort in memory)."
	else
		print "- Throwaway cluster: shared_buffers = 1GB, **fsync = off**, autovacuum = off, jit = off, maintenance_work_mem = 512MB (the builds sort in memory)."
	printf "- %d rows per data set, keys 1..N in near-sorted arrival order: K%% of the rows out of\n", rows
	print "  place, each moved by up to L% of N, made by `elastic_index_near_sorted(N, K, L)`"
	print "  (a permutation of 1..N, deterministic). K=L=0 is sorted, K=L=100 scrambled."
	print "  timestamp keys are `2000-01-01 + key seconds`."
	printf "- **COPY**: the rows in arrival order, one COPY per %d rows (one transaction each), into a\n", batch
	print "  table without an index, with a btree index and with an index of each kind. Index time ="
	print "  load time with the index minus without. WAL per row includes the heap's."
	print "- **CREATE INDEX** over the same rows, beside the index the load left, with the default"
	print "  settings (parallel workers) and with max_parallel_maintenance_workers = 0 (serial: the"
	print "  one backend a COPY has); the COPY target is \"at most 1.3x a build\" (issue 24)."
	printf "- COPY loads, CREATE INDEX, single-row loads and each read workload ran %d times per\n", repeat
	print "  index kind, the loads and builds in interleaved rounds (none, btree, each kind, then"
	print "  again); the fastest load and build (single-row: with that run's latencies) and the"
	print "  best tps count (the same work each time: the spread between runs is noise from the"
	print "  rest of the machine)."
	printf "- **Single-row inserts**: %d rows, one INSERT per transaction, from %d pgbench clients\n", singles, clients
	print "  taking rows in arrival order (a sequence); total seconds without an index, with btree,"
	print "  with the kind, and the ratio of the index times (load with the index minus"
	print "  without) only where both exceed 10% of the load without an index: one transaction per"
	print "  row costs far more than the index, and smaller differences are noise. Latency"
	print "  percentiles of one INSERT (pgbench per-transaction log)."
	printf "- **Reads** on the index the COPY load left: pgbench point lookups and 100-key range\n"
	printf "  scans, 1 client, best of %d runs of %d s (tps).\n", repeat, duration
	print ""
	print "Ratios are kind / btree from the same run: below 1 is better for times and"
	print "sizes, above 1 is better for tps."
	for (q = 1; q <= nk; q++) {
		e = kind[q]
		print ""
		print "## " amname[e]
		print ""
		print "| type | K% | L% | COPY index s (btree / " e ", ratio) | WAL B/row (ratio) | size MB (ratio) | leaf fill % (btree / " e ") | COPY / CREATE INDEX (" e "; parallel / serial) | single-row s (none / btree / " e "; index-time ratio) | p99.9 ms (btree / " e ") | point tps ratio | range tps ratio |"
		print "|---|---:|---:|---|---|---|---|---:|---|---|---:|---:|"
		for (j = 1; j <= n; j++) {
			key = order[j]
			split(key, p, SUBSEP)
			none = v[key, "none", 11]
			sratio = "within noise"
			if (v[key, "btree", 12] > 0.1 * none && v[key, e, 12] > 0.1 * none)
				sratio = ratio(v[key, e, 12], v[key, "btree", 12])
			printf "| %s | %s | %s | %s / %s (%s) | %s / %s (%s) | %.1f / %.1f (%s) | %s / %s | %s | %s / %s / %s (%s) | %s / %s | %s | %s |\n",
				p[1], p[2], p[3],
				v[key, "btree", 6], v[key, e, 6], ratio(v[key, e, 6], v[key, "btree", 6]),
				v[key, "btree", 7], v[key, e, 7], ratio(v[key, e, 7], v[key, "btree", 7]),
				v[key, "btree", 8] / 1048576, v[key, e, 8] / 1048576, ratio(v[key, e, 8], v[key, "btree", 8]),
				v[key, "btree", 9], v[key, e, 9],
				ratio(v[key, e, 6], v[key, e, 10]) " / " ratio(v[key, e, 6], v[key, e, 23]),
				none, v[key, "btree", 11], v[key, e, 11], sratio,
				v[key, "btree", 15], v[key, e, 15],
				ratio(v[key, e, 16], v[key, "btree", 16]),
				ratio(v[key, e, 17], v[key, "btree", 17])
		}
	}
	# the index single-row inserts left (columns 18-22; older CSVs lack them)
	have_single = 0
	for (j = 1; j <= n; j++)
		if (v[order[j], "btree", 18] != "")
			have_single = 1
	if (have_single) {
		print ""
		print "## The indexes single-row inserts left"
		print ""
		printf "After the %d single-row inserts above: index size and leaf fill, the pages left in\n", singles
		print "osm_tree's insert buffer (its background flush worker on, `osm_tree.buffer_size` 32), and"
		printf "pgbench point lookups and 100-key range scans over those rows, 1 client, best of %d runs of %d s,\n", repeat, duration
		print "as kind / btree tps (osm_tree reads its buffer pages too)."
		for (q = 1; q <= nk; q++) {
			e = kind[q]
			if (e == "brin")
				continue
			print ""
			print "### " amname[e]
			print ""
			print "| type | K% | L% | size MB (btree / " e ", ratio) | leaf fill % (btree / " e ") | buffer pages | point tps (btree / " e ", ratio) | range tps (btree / " e ", ratio) |"
			print "|---|---:|---:|---|---|---:|---|---|"
			for (j = 1; j <= n; j++) {
				key = order[j]
				split(key, p, SUBSEP)
				printf "| %s | %s | %s | %.1f / %.1f (%s) | %s / %s | %s | %s / %s (%s) | %s / %s (%s) |\n",
					p[1], p[2], p[3],
					v[key, "btree", 18] / 1048576, v[key, e, 18] / 1048576, ratio(v[key, e, 18], v[key, "btree", 18]),
					v[key, "btree", 19], v[key, e, 19],
					(v[key, e, 20] == "" ? "-" : v[key, e, 20]),
					v[key, "btree", 21], v[key, e, 21], ratio(v[key, e, 21], v[key, "btree", 21]),
					v[key, "btree", 22], v[key, e, 22], ratio(v[key, e, 22], v[key, "btree", 22])
			}
		}
	}
	print ""
	print "Raw numbers, including the load without an index, are in near-sorted.csv."
}
