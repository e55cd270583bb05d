# bench/near_sorted/report.awk - near-sorted.md from the runner's CSV.
#
# Input: the CSV written by bench/near_sorted/run.sh (header line first).
# Variables: cmd, pgver, extver, rows, batch, singles, clients, duration,
# nproc, date, commit.

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
	print "# Near-sorted ingestion: elastic_btree against btree"
	print ""
	printf "Produced by `%s` (from the repository root) on %s.\n", cmd, date
	print ""
	printf "- %s; elastic_index %s; repository commit %s; %d CPUs.\n", pgver, extver, commit, nproc
	print "- Throwaway cluster: shared_buffers = 1GB, **fsync = off**, autovacuum = off, jit = off."
	printf "- %d rows per data set, keys 1..N in near-sorted arrival order: K%% of the rows out of\n", rows
	print "  place, each moved by up to L% of N (`ns_key` in the runner; deterministic). K=L=0 is"
	print "  sorted, K=L=100 scrambled. timestamp keys are `2000-01-01 + key seconds`."
	printf "- **COPY**: the rows in arrival order, one COPY per %d rows (one transaction each), into a\n", batch
	print "  table without an index, with a btree index and with an elastic_btree index. Index time ="
	print "  load time with the index minus without. WAL per row includes the heap's."
	print "- **CREATE INDEX** over the same rows (the COPY target is \"at most 2x a build\")."
	printf "- **Single-row inserts**: %d rows, one INSERT per transaction, from %d pgbench clients\n", singles, clients
	print "  taking rows in arrival order (a sequence); index time as above; latency percentiles of"
	print "  one INSERT (pgbench per-transaction log)."
	printf "- **Reads** on the index the COPY load left: pgbench point lookups and 100-key range\n"
	printf "  scans, 1 client, %d s each (tps).\n", duration
	print ""
	print "Ratios are elastic_btree / btree from the same run: below 1 is better for times and"
	print "sizes, above 1 is better for tps."
	print ""
	print "| type | K% | L% | COPY index s (btree / elastic, ratio) | WAL B/row (ratio) | size MB (ratio) | leaf fill % (btree / elastic) | COPY / CREATE INDEX (elastic) | single-row index s (ratio) | p99.9 ms (btree / elastic) | point tps ratio | range tps ratio |"
	print "|---|---:|---:|---|---|---|---|---:|---|---|---:|---:|"
	for (j = 1; j <= n; j++) {
		key = order[j]
		split(key, p, SUBSEP)
		printf "| %s | %s | %s | %s / %s (%s) | %s / %s (%s) | %.1f / %.1f (%s) | %s / %s | %s | %s / %s (%s) | %s / %s | %s | %s |\n",
			p[1], p[2], p[3],
			v[key, "btree", 6], v[key, "elastic", 6], ratio(v[key, "elastic", 6], v[key, "btree", 6]),
			v[key, "btree", 7], v[key, "elastic", 7], ratio(v[key, "elastic", 7], v[key, "btree", 7]),
			v[key, "btree", 8] / 1048576, v[key, "elastic", 8] / 1048576, ratio(v[key, "elastic", 8], v[key, "btree", 8]),
			v[key, "btree", 9], v[key, "elastic", 9],
			ratio(v[key, "elastic", 6], v[key, "elastic", 10]),
			v[key, "btree", 12], v[key, "elastic", 12], ratio(v[key, "elastic", 12], v[key, "btree", 12]),
			v[key, "btree", 15], v[key, "elastic", 15],
			ratio(v[key, "elastic", 16], v[key, "btree", 16]),
			ratio(v[key, "elastic", 17], v[key, "btree", 17])
	}
	print ""
	print "Raw numbers, including the load without an index, are in near-sorted.csv."
}
