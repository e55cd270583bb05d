/*-------------------------------------------------------------------------
 *
 * flushworker.c
 *	  Background flushes of osm_tree insert buffers: a dynamic background
 *	  worker per request, which flushes one index and exits.
 *
 * An insert that links a buffer page while a flush's worth of pages is
 * waiting asks for a worker, unless the index has one: the slot is claimed
 * in the index's entry of the shared activity table (core/activity.c),
 * and the worker renews the claim while it lives.  The worker connects to
 * the index's database and moves pages into the tree, a flush's worth at a
 * time, each flush in its own transaction (taking the flush lock without
 * waiting: another flusher is as good); when less than that waits it
 * checks again every OSM_WORKER_NAP_MS, and exits after OSM_WORKER_IDLE_MS
 * without work.  Starting a backend costs milliseconds of CPU, so one
 * worker serving a burst of inserts matters on small machines.  If no
 * worker slot is free the request is dropped: the buffer then fills up and
 * the insert that finds it full flushes one bounded step itself.
 *
 * The worker connects as the bootstrap superuser, but flushes as the
 * table's owner in a security-restricted operation (as autovacuum does):
 * a flush calls the index's comparison functions.  It rereads the
 * configuration file on SIGHUP, and stops when osm_tree.flush_worker is
 * turned off, when its index is gone, or when its claim was taken over;
 * whatever way it exits, it gives its claim up (if still its own).  A
 * session asks for a worker only if the server's value of the setting
 * (its reset value) is on too.  The worker's search_path is empty, as an
 * autovacuum worker's.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/relation.h"
#include "access/table.h"
#include "access/xact.h"
#include "catalog/index.h"
#include "eicompat.h"
#include "eistats.h"
#include "eiosm.h"
#include "miscadmin.h"
#include "pgstat.h"
#include "postmaster/bgworker.h"
#include "postmaster/interrupt.h"
#include "storage/ipc.h"
#include "storage/latch.h"
#include "storage/lmgr.h"
#include "tcop/tcopprot.h"
#include "utils/guc.h"
#include "utils/rel.h"
#include "utils/snapmgr.h"
#include "utils/timestamp.h"

/* least time between two requests of one backend for one index */
#define OSM_FLUSH_REQUEST_INTERVAL_MS	1000
/* how often an idle worker looks for work, and how long it waits for it */
#define OSM_WORKER_NAP_MS				50
#define OSM_WORKER_IDLE_MS				2000
/* a claim older than this belongs to a worker that died */
#define OSM_WORKER_STALE_MS				10000

/*
 * Ask for a background flush of the index, unless one was asked for
 * recently or background flushing is off.
 */
void
OsmRequestBackgroundFlush(Relation rel)
{
	BackgroundWorker worker;
	OsmRelCache *cache;
	TimestampTz now;
	Oid			dboid = MyDatabaseId;
	uint64		claim;

	if (!osm_flush_worker || !ei_rmgr_registered || !IsUnderPostmaster ||
		RELATION_IS_LOCAL(rel) || RecoveryInProgress())
		return;

	cache = EIGetPolicyCache(rel, EI_AM_OSM_TREE, sizeof(OsmRelCache));
	now = GetCurrentTimestamp();
	if (cache->flush_requested != 0 &&
		!TimestampDifferenceExceeds(cache->flush_requested, now,
									OSM_FLUSH_REQUEST_INTERVAL_MS))
		return;
	cache->flush_requested = now;

	/*
	 * The worker obeys the server's value of the setting, not this
	 * session's: a session that turned it on for itself while the server
	 * has it off would start a worker a second that exits at once.
	 */
	if (strcmp(GetConfigOptionResetString("osm_tree.flush_worker"), "on") != 0)
		return;

	/* one worker per index: it renews its claim while it runs */
	claim = EIStatsFlushWorkerClaim(rel, OSM_WORKER_STALE_MS);
	if (claim == 0)
		return;

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
	memcpy(worker.bgw_extra + sizeof(Oid), &claim, sizeof(uint64));
	worker.bgw_notify_pid = 0;

	/* no free slot: the insert that finds the buffer full flushes */
	if (!RegisterDynamicBackgroundWorker(&worker, NULL))
		EIStatsFlushWorkerRelease(RelationGetRelid(rel), claim);
}

/* the claim on the index's worker slot this worker holds, 0 if none */
static uint64 osm_worker_claim = 0;


/*
 * Reread the configuration file if the worker got a SIGHUP, as every
 * backend does between commands: osm_tree.flush_worker and the buffer
 * settings are read from it.
 */
static void
osm_worker_reload_config(void)
{
	if (ConfigReloadPending)
	{
		ConfigReloadPending = false;
		ProcessConfigFile(PGC_SIGHUP);
	}
}

/*
 * Flush a flush's worth of pages in its own transaction if that much waits;
 * returns 1 if it flushed, 0 if there was not enough to flush, -1 if the
 * worker should stop: the index is gone, the claim is no longer ours, or
 * osm_tree.flush_worker was turned off.  Renews the worker's claim.
 */
static int
osm_worker_flush_once(Oid indexoid)
{
	Oid			heapoid;
	Relation	rel = NULL;
	Relation	heapRel = NULL;
	int			result = 0;

	StartTransactionCommand();
	/* a snapshot, so that our xmin keeps the pages we walk from reuse */
	PushActiveSnapshot(GetTransactionSnapshot());

	/*
	 * The table first, then the index, as the executor and DDL (DROP,
	 * TRUNCATE, CLUSTER) lock them: the other order can deadlock with them.
	 * The index may have been dropped, and its OID reused, between the
	 * lookup and the locks: it must still be an index of that table.
	 */
	heapoid = IndexGetRelation(indexoid, true);
	if (OidIsValid(heapoid))
		heapRel = try_table_open(heapoid, AccessShareLock);
	if (heapRel != NULL)
		rel = try_relation_open(indexoid, RowExclusiveLock);

	/* settings reloaded while we waited for the locks count from now */
	osm_worker_reload_config();

	if (!osm_flush_worker)
		result = -1;
	else if (rel == NULL || rel->rd_rel->relkind != RELKIND_INDEX ||
			 rel->rd_indam == NULL || !EIRelIsOsm(rel) ||
			 rel->rd_index->indrelid != heapoid)
		result = -1;
	else if ((osm_worker_claim = EIStatsFlushWorkerAlive(rel,
														 osm_worker_claim)) == 0)
		result = -1;
	else
	{
		OsmBufferCountsData counts;
		int			unit = Max(1, (int) (OsmGetBufferSize(rel) *
										 OsmGetFlushFraction(rel)));
		EIOwnerSwitch owner;

		/*
		 * Do the work as the table's owner, in a security-restricted
		 * operation with its own GUC nest level, as autovacuum's vacuum_rel
		 * does: the flush calls the index's comparison and sort support
		 * functions, which must not run as the bootstrap superuser the
		 * worker connected as.
		 */
		EIBecomeTableOwner(heapRel, &owner);

		OsmBufferCounts(rel, &counts);
		if (counts.closed_pages >= unit ||
			(OsmGetBufferSize(rel) == 0 && counts.pages > 0))
		{
			if (OsmBufferFlush(rel, heapRel, unit, false) >= 0)
				result = 1;
		}

		EIRestoreCaller(&owner);
	}
	if (rel != NULL)
		relation_close(rel, RowExclusiveLock);
	if (heapRel != NULL)
		table_close(heapRel, AccessShareLock);

	PopActiveSnapshot();
	CommitTransactionCommand();
	return result;
}

/*
 * Give up the worker's claim on its index at exit, however it exits (an
 * error too), so that the next insert can start a worker at once.
 */
static void
osm_worker_release_claim(int code, Datum arg)
{
	EIStatsFlushWorkerRelease(DatumGetObjectId(arg), osm_worker_claim);
	osm_worker_claim = 0;
}

/*
 * Main function of a flush worker: flush the index given as main_arg, in
 * the database given in bgw_extra (with the claim the requester made),
 * while inserts keep a flush's worth waiting; exit after
 * OSM_WORKER_IDLE_MS without work, when the index is gone, or when
 * osm_tree.flush_worker is turned off.
 */
void
OsmFlushWorkerMain(Datum main_arg)
{
	Oid			indexoid = DatumGetObjectId(main_arg);
	Oid			dboid;
	int			idle_ms = 0;

	memcpy(&dboid, MyBgworkerEntry->bgw_extra, sizeof(Oid));
	memcpy(&osm_worker_claim, MyBgworkerEntry->bgw_extra + sizeof(Oid),
		   sizeof(uint64));
	pqsignal(SIGHUP, SignalHandlerForConfigReload);
	pqsignal(SIGTERM, die);
	BackgroundWorkerUnblockSignals();

	/*
	 * Registered before the connection, so that it runs after the
	 * transaction cleanup InitPostgres registers (callbacks run last
	 * registered first).
	 */
	before_shmem_exit(osm_worker_release_claim, ObjectIdGetDatum(indexoid));
	BackgroundWorkerInitializeConnectionByOid(dboid, InvalidOid, 0);
	pgstat_report_appname("osm_tree flush");

	/*
	 * An empty search_path for the whole worker, as autovacuum's workers
	 * have on every version: the owner's functions the flush calls must
	 * not resolve names through schemas others can create objects in.
	 * From 17 on the flush also pins it to pg_catalog, pg_temp
	 * (EIRestrictSearchPath), as 17's maintenance commands do.
	 */
	SetConfigOption("search_path", "", PGC_SUSET, PGC_S_OVERRIDE);

	while (idle_ms < OSM_WORKER_IDLE_MS)
	{
		int			r;

		CHECK_FOR_INTERRUPTS();
		osm_worker_reload_config();
		r = osm_worker_flush_once(indexoid);
		if (r < 0)
			break;
		if (r > 0)
		{
			idle_ms = 0;
			continue;
		}
		(void) WaitLatch(MyLatch, WL_LATCH_SET | WL_TIMEOUT | WL_EXIT_ON_PM_DEATH,
						 OSM_WORKER_NAP_MS, PG_WAIT_EXTENSION);
		ResetLatch(MyLatch);
		idle_ms += OSM_WORKER_NAP_MS;
	}
	proc_exit(0);
}
