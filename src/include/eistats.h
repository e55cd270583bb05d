/*-------------------------------------------------------------------------
 *
 * eistats.h
 *	  Per-index activity counters kept in shared memory (core/activity.c).
 *
 * The tree core reports events (splits, fast-path inserts, removed entries,
 * pages taken and freed) with one call, EIStatsCount(rel, kind, n).  The
 * counters live in a fixed-size shared hash table keyed by database and
 * index and are read through elastic_index_activity() and the view
 * elastic_index_stat_activity.  Like pg_stat_statements they are not
 * crash-safe: they start from zero at every server start.
 *
 * Adding a counter is one line in EI_STAT_COUNTERS below, plus its column
 * in the SQL definition of elastic_index_activity() and of the view;
 * activity.c checks at run time that the two lists agree.
 *
 *-------------------------------------------------------------------------
 */
#ifndef EISTATS_H
#define EISTATS_H

#include "postgres.h"

#include "utils/rel.h"

/*
 * Every counter: its enum symbol and its SQL column name, in column order.
 */
#define EI_STAT_COUNTERS(X) \
	X(EI_STAT_LEAF_SPLITS, "leaf_splits") \
	X(EI_STAT_INNER_SPLITS, "inner_splits") \
	X(EI_STAT_ROOT_SPLITS, "root_splits") \
	X(EI_STAT_FASTPATH_INSERTS, "fastpath_inserts") \
	X(EI_STAT_DESCENTS, "descents") \
	X(EI_STAT_DEAD_REMOVED_ON_INSERT, "dead_entries_removed_on_insert") \
	X(EI_STAT_DEAD_REMOVED_BY_VACUUM, "dead_entries_removed_by_vacuum") \
	X(EI_STAT_PAGES_DELETED, "pages_deleted") \
	X(EI_STAT_PAGES_RECYCLED, "pages_recycled") \
	X(EI_STAT_PAGES_EXTENDED, "pages_extended") \
	X(EI_STAT_TO_COMPACT, "leaves_made_compact") \
	X(EI_STAT_TO_STANDARD, "leaves_made_standard") \
	X(EI_STAT_COMPACT_SPLITS, "compact_splits") \
	X(EI_STAT_COMPACT_INSERTS, "compact_inserts") \
	X(EI_STAT_HEAP_KEY_READS, "heap_key_reads") \
	X(EI_STAT_BATCHES, "batches_applied") \
	X(EI_STAT_BATCH_ENTRIES, "batched_entries") \
	X(EI_STAT_BULK_APPENDED, "bulk_appended_entries") \
	X(EI_STAT_BUFFER_INSERTS, "buffer_inserts") \
	X(EI_STAT_BUFFER_FLUSHES, "buffer_flushes") \
	X(EI_STAT_BUFFER_FLUSHED, "buffer_flushed_entries") \
	X(EI_STAT_BUFFER_FOREGROUND_FLUSHES, "buffer_foreground_flushes") \
	X(EI_STAT_BUFFER_PAGES_READ, "buffer_pages_read") \
	X(EI_STAT_BUFFER_PAGES_SKIPPED, "buffer_pages_skipped") \
	X(EI_STAT_BUFFER_PAGES_SORTED, "buffer_pages_sorted")

#define EI_STAT_ENUM_ENTRY(sym, name) sym,

typedef enum EIStatKind
{
	EI_STAT_COUNTERS(EI_STAT_ENUM_ENTRY)
	EI_STAT_NCOUNTERS			/* number of counters, not a counter */
} EIStatKind;

#undef EI_STAT_ENUM_ENTRY

/* elastic_index.stats_max_indexes: entries of the shared table */
extern int	ei_stats_max_indexes;

/* core/activity.c */
extern void EIActivityInit(void);
extern void EIStatsCount(Relation rel, EIStatKind kind, uint64 n);
extern uint64 EIStatsRead(Relation rel, EIStatKind kind);
extern uint64 EIStatsFlushWorkerClaim(Relation rel, int stale_ms);
extern uint64 EIStatsFlushWorkerAlive(Relation rel, uint64 claim);
extern void EIStatsFlushWorkerRelease(Oid indexrelid, uint64 claim);

#endif							/* EISTATS_H */
