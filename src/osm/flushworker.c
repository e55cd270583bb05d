/*-------------------------------------------------------------------------
 *
 * flushworker.c
 *	  Background flushes of osm_tree insert buffers: a dynamic background
 *	  worker per request, which flushes one index and exits.
 *
 * An insert that links a buffer page while a flush's worth of pages is
 * waiting asks for a worker (at most once a second per index and backend).
 * The worker connects to the index's database, takes the flush lock without
 * waiting (another flusher is as good), and moves pages into the tree until
 * fewer than a flush's worth remain, committing after every flush.  If no
 * worker slot is free the request is dropped: the buffer then fills up and
 * the insert that finds it full flushes one bounded step itself.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/relation.h"
#include "access/table.h"
#include "access/xact.h"
#include "eitree.h"
#include "miscadmin.h"
#include "pgstat.h"
#include "postmaster/bgworker.h"
#include "storage/ipc.h"
#include "storage/lmgr.h"
#include "tcop/tcopprot.h"
#include "utils/guc.h"
#include "utils/rel.h"
#include "utils/snapmgr.h"
#include "utils/timestamp.h"

/* least time between two requests of one backend for one index */
#define OSM_FLUSH_REQUEST_INTERVAL_MS	1000

/*
 * Ask for a background flush of the index, unless one was asked for
 * recently or background flushing is off.
 */
void
OsmRequestBackgroundFlush(Relation rel)
{
	BackgroundWorker worker;
	EIRelCache *cache;
	TimestampTz now;
	Oid			dboid = MyDatabaseId;

	if (!osm_flush_worker || !ei_rmgr_registered || !IsUnderPostmaster ||
		RELATION_IS_LOCAL(rel) || RecoveryInProgress())
		return;

	if (rel->rd_amcache == NULL)
		(void) EIGetMetaCached(rel, false);
	cache = (EIRelCache *) rel->rd_amcache;
	now = GetCurrentTimestamp();
	if (cache->flush_requested != 0 &&
		!TimestampDifferenceExceeds(cache->flush_requested, now,
									OSM_FLUSH_REQUEST_INTERVAL_MS))
		return;
	cache->flush_requested = now;

	memset(&worker, 0, sizeof(worker));
	worker.bgw_flags = BGWORKER_SHMEM_ACCESS |
		BGWORKER_BACKEND_DATABASE_CONNECTION;
	worker.bgw_start_time = BgWorkerStart_RecoveryFinished;
	worker.bgw_restart_time = BGW_NEVER_RESTART;
	snprintf(worker.bgw_library_name, BGW_MAXLEN, "elastic_index");
	snprintf(worker.bgw_function_name, BGW_MAXLEN, "OsmFlushWorkerMain");
	snprintf(worker.bgw_name, BGW_MAXLEN, "osm_tree flush of index %u",
			 RelationGetRelid(rel));
	snprintf(worker.bgw_type, BGW_MAXLEN, "osm_tree flush");
	worker.bgw_main_arg = ObjectIdGetDatum(RelationGetRelid(rel));
	memcpy(worker.bgw_extra, &dboid, sizeof(Oid));
	worker.bgw_notify_pid = 0;

	/* no free slot: the insert that finds the buffer full flushes */
	(void) RegisterDynamicBackgroundWorker(&worker, NULL);
}

/*
 * Flush one step's worth of pages in its own transaction; false when fewer
 * than a flush's worth wait, the index is gone, or another backend flushes.
 */
static bool
osm_worker_flush_once(Oid indexoid)
{
	Relation	rel;
	Relation	heapRel;
	bool		more = false;

	StartTransactionCommand();
	PushActiveSnapshot(GetTransactionSnapshot());

	rel = try_relation_open(indexoid, RowExclusiveLock);
	if (rel != NULL && rel->rd_rel->relkind == RELKIND_INDEX &&
		rel->rd_indam != NULL && EIRelIsOsm(rel))
	{
		int64		pages;
		int64		entries;
		int64		closed;
		int64		sorted;
		int			unit = Max(1, (int) (EIGetBufferSize(rel) *
										 EIGetFlushFraction(rel)));

		OsmBufferCounts(rel, &pages, &entries, &closed, &sorted);
		if (closed >= unit || (EIGetBufferSize(rel) == 0 && pages > 0))
		{
			heapRel = table_open(rel->rd_index->indrelid, AccessShareLock);
			more = OsmBufferFlush(rel, heapRel, unit, false) >= 0 &&
				closed - unit >= unit;
			table_close(heapRel, AccessShareLock);
		}
	}
	if (rel != NULL)
		relation_close(rel, RowExclusiveLock);

	PopActiveSnapshot();
	CommitTransactionCommand();
	return more;
}

/*
 * Main function of a flush worker: flush the index given as main_arg, in
 * the database given in bgw_extra, until a flush's worth no longer waits.
 */
void
OsmFlushWorkerMain(Datum main_arg)
{
	Oid			indexoid = DatumGetObjectId(main_arg);
	Oid			dboid;

	memcpy(&dboid, MyBgworkerEntry->bgw_extra, sizeof(Oid));
	pqsignal(SIGTERM, die);
	BackgroundWorkerUnblockSignals();
	BackgroundWorkerInitializeConnectionByOid(dboid, InvalidOid, 0);
	pgstat_report_appname("osm_tree flush");

	while (osm_worker_flush_once(indexoid))
		CHECK_FOR_INTERRUPTS();

	proc_exit(0);
}
