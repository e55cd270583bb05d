/*-------------------------------------------------------------------------
 *
 * activity.c
 *	  Per-index activity counters in shared memory, and the SQL functions
 *	  elastic_index_activity(), elastic_index_activity_info() and
 *	  elastic_index_activity_reset().
 *
 * The counters live in a shared hash table of fixed size
 * (elastic_index.stats_max_indexes entries), keyed by database and index
 * OID.  Each entry holds one 64-bit atomic per counter (eistats.h).  The
 * LWLock of the table is taken only to look an entry up for the first time
 * in a backend, to create or remove entries, and to read the table: every
 * backend remembers, in a local hash table, where the entry of each index it
 * has counted for lives, so that counting an event for a known index is one
 * atomic addition and no lock.
 *
 * Removing entries (a reset, or the commit of a DROP) bumps a shared
 * generation number; a backend that sees a new generation forgets every
 * entry address it remembered, since a removed entry's slot may be reused
 * for another index.  A count that races with a removal can still land on
 * the old slot; that loses or misplaces one event, never more.
 *
 * When the table is full, events of indexes without an entry are not
 * recorded anywhere; their number is added to a shared "overflowed"
 * counter that elastic_index_activity_info() reports.  Counters start from
 * zero at every server start, crash restarts included.
 *
 * Counts are made only by the backend that performs an operation on the
 * primary (never by WAL redo), right after the operation's critical
 * section.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/xact.h"
#include "catalog/objectaccess.h"
#include "catalog/pg_class.h"
#include "eistats.h"
#include "eitree.h"
#include "fmgr.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "nodes/pg_list.h"
#include "port/atomics.h"
#include "storage/ipc.h"
#include "storage/lwlock.h"
#include "storage/shmem.h"
#include "utils/builtins.h"
#include "utils/guc.h"
#include "utils/hsearch.h"
#include "utils/memutils.h"
#include "utils/syscache.h"
#include "utils/timestamp.h"

PG_FUNCTION_INFO_V1(elastic_index_activity);
PG_FUNCTION_INFO_V1(elastic_index_activity_info);
PG_FUNCTION_INFO_V1(elastic_index_activity_reset);

#define EI_ACTIVITY_TRANCHE		"elastic_index"

/* Key of an entry: the index, in its database. */
typedef struct EIActivityKey
{
	Oid			dbid;
	Oid			indexrelid;
} EIActivityKey;

/* One index's counters (an element of the shared hash table). */
typedef struct EIActivityEntry
{
	EIActivityKey key;
	pg_atomic_uint64 counters[EI_STAT_NCOUNTERS];
	pg_atomic_uint64 flush_worker;	/* osm_tree: time of the flush worker's
									 * last sign of life, 0 if none */
} EIActivityEntry;

/* Shared state next to the hash table. */
typedef struct EIActivityShared
{
	LWLock	   *lock;			/* protects the hash table and stats_reset */
	pg_atomic_uint64 generation;	/* bumped whenever entries are removed */
	pg_atomic_uint64 overflowed;	/* events lost because the table was full */
	TimestampTz stats_reset;	/* last reset of all counters */
} EIActivityShared;

/* A backend's memory of where an index's entry lives (NULL: no room). */
typedef struct EIActivityLocal
{
	Oid			indexrelid;
	EIActivityEntry *entry;
} EIActivityLocal;

/* An index dropped by the current transaction, whose entry goes at commit. */
typedef struct EIActivityDrop
{
	Oid			indexrelid;
	SubTransactionId subid;		/* subtransaction that dropped it */
} EIActivityDrop;

/* SQL column names of the counters, in column order */
#define EI_STAT_NAME_ENTRY(sym, name) name,
static const char *const ei_stat_names[EI_STAT_NCOUNTERS] = {
	EI_STAT_COUNTERS(EI_STAT_NAME_ENTRY)
};
#undef EI_STAT_NAME_ENTRY

int			ei_stats_max_indexes = 1000;

static EIActivityShared *ei_activity = NULL;
static HTAB *ei_activity_hash = NULL;

/* this backend's entry addresses, valid while the generation is unchanged */
static HTAB *ei_local_entries = NULL;
static uint64 ei_local_generation = 0;

/* indexes dropped by this transaction (EIActivityDrop, TopTransactionContext) */
static List *ei_pending_drops = NIL;

static shmem_request_hook_type prev_shmem_request_hook = NULL;
static shmem_startup_hook_type prev_shmem_startup_hook = NULL;
static object_access_hook_type prev_object_access_hook = NULL;

static Size ei_activity_shmem_size(void);
static void ei_activity_shmem_request(void);
static void ei_activity_shmem_startup(void);
static EIActivityEntry *ei_activity_find(Oid indexrelid);
static EIActivityEntry *ei_activity_find_or_create(Oid indexrelid);
static void ei_activity_object_access(ObjectAccessType access, Oid classId,
									  Oid objectId, int subId, void *arg);
static void ei_activity_xact_callback(XactEvent event, void *arg);
static void ei_activity_subxact_callback(SubXactEvent event,
										 SubTransactionId mySubid,
										 SubTransactionId parentSubid,
										 void *arg);
static void ei_activity_remove_dropped(void);
static void ei_activity_check_available(void);
static void ei_activity_check_columns(TupleDesc tupdesc);

/*
 * Define the size setting and install the shared memory, drop and
 * transaction hooks; called from _PG_init while the postmaster preloads the
 * library.
 */
void
EIActivityInit(void)
{
	DefineCustomIntVariable("elastic_index.stats_max_indexes",
							"Maximum number of indexes whose activity counters are kept.",
							"Events of further indexes are only counted as overflowed.",
							&ei_stats_max_indexes,
							1000,
							10,
							1000000,
							PGC_POSTMASTER,
							0,
							NULL, NULL, NULL);

	prev_shmem_request_hook = shmem_request_hook;
	shmem_request_hook = ei_activity_shmem_request;
	prev_shmem_startup_hook = shmem_startup_hook;
	shmem_startup_hook = ei_activity_shmem_startup;
	prev_object_access_hook = object_access_hook;
	object_access_hook = ei_activity_object_access;
	RegisterXactCallback(ei_activity_xact_callback, NULL);
	RegisterSubXactCallback(ei_activity_subxact_callback, NULL);
}

/*
 * Shared memory the counters need.
 */
static Size
ei_activity_shmem_size(void)
{
	return add_size(MAXALIGN(sizeof(EIActivityShared)),
					hash_estimate_size(ei_stats_max_indexes,
									   sizeof(EIActivityEntry)));
}

/*
 * Ask the postmaster for our shared memory and LWLock (shmem_request_hook).
 */
static void
ei_activity_shmem_request(void)
{
	if (prev_shmem_request_hook)
		prev_shmem_request_hook();

	RequestAddinShmemSpace(ei_activity_shmem_size());
	RequestNamedLWLockTranche(EI_ACTIVITY_TRANCHE, 1);
}

/*
 * Create, or attach to, the shared state and hash table
 * (shmem_startup_hook).  Runs in the postmaster at every (re)initialization
 * of shared memory, so counters start from zero after a crash too.
 */
static void
ei_activity_shmem_startup(void)
{
	HASHCTL		info;
	bool		found;

	if (prev_shmem_startup_hook)
		prev_shmem_startup_hook();

	ei_activity = NULL;
	ei_activity_hash = NULL;

	LWLockAcquire(AddinShmemInitLock, LW_EXCLUSIVE);

	ei_activity = ShmemInitStruct("elastic_index activity",
								  sizeof(EIActivityShared), &found);
	if (!found)
	{
		ei_activity->lock = &(GetNamedLWLockTranche(EI_ACTIVITY_TRANCHE))->lock;
		pg_atomic_init_u64(&ei_activity->generation, 0);
		pg_atomic_init_u64(&ei_activity->overflowed, 0);
		ei_activity->stats_reset = GetCurrentTimestamp();
	}

	memset(&info, 0, sizeof(info));
	info.keysize = sizeof(EIActivityKey);
	info.entrysize = sizeof(EIActivityEntry);
	ei_activity_hash = ShmemInitHash("elastic_index activity hash",
									 ei_stats_max_indexes,
									 ei_stats_max_indexes,
									 &info,
									 HASH_ELEM | HASH_BLOBS | HASH_FIXED_SIZE);

	LWLockRelease(AddinShmemInitLock);
}

/*
 * Return the shared entry of an index of the current database, or NULL.
 */
static EIActivityEntry *
ei_activity_find(Oid indexrelid)
{
	EIActivityKey key;
	EIActivityEntry *entry;

	key.dbid = MyDatabaseId;
	key.indexrelid = indexrelid;

	LWLockAcquire(ei_activity->lock, LW_SHARED);
	entry = hash_search(ei_activity_hash, &key, HASH_FIND, NULL);
	LWLockRelease(ei_activity->lock);

	return entry;
}

/*
 * Return the shared entry of an index of the current database, creating it
 * with zero counters if there is room; NULL when the table is full.
 */
static EIActivityEntry *
ei_activity_find_or_create(Oid indexrelid)
{
	EIActivityKey key;
	EIActivityEntry *entry;

	entry = ei_activity_find(indexrelid);
	if (entry != NULL)
		return entry;

	key.dbid = MyDatabaseId;
	key.indexrelid = indexrelid;

	LWLockAcquire(ei_activity->lock, LW_EXCLUSIVE);
	entry = hash_search(ei_activity_hash, &key, HASH_FIND, NULL);
	if (entry == NULL &&
		hash_get_num_entries(ei_activity_hash) < ei_stats_max_indexes)
	{
		bool		found;

		entry = hash_search(ei_activity_hash, &key, HASH_ENTER_NULL, &found);
		if (entry != NULL && !found)
		{
			for (int i = 0; i < EI_STAT_NCOUNTERS; i++)
				pg_atomic_init_u64(&entry->counters[i], 0);
			pg_atomic_init_u64(&entry->flush_worker, 0);
		}
	}
	LWLockRelease(ei_activity->lock);

	return entry;
}

/*
 * Return this backend's pointer to the shared entry of an index, finding or
 * creating the entry on first use; NULL if the table is full or the library
 * was not preloaded.
 */
static EIActivityEntry *
ei_activity_entry(Relation rel)
{
	uint64		generation;
	EIActivityLocal *local;
	bool		found;

	if (ei_activity == NULL)
		return NULL;

	/* entries were removed since we last looked: forget their addresses */
	generation = pg_atomic_read_u64(&ei_activity->generation);
	if (ei_local_entries != NULL && generation != ei_local_generation)
	{
		hash_destroy(ei_local_entries);
		ei_local_entries = NULL;
	}
	if (ei_local_entries == NULL)
	{
		HASHCTL		info;

		memset(&info, 0, sizeof(info));
		info.keysize = sizeof(Oid);
		info.entrysize = sizeof(EIActivityLocal);
		info.hcxt = TopMemoryContext;
		ei_local_entries = hash_create("elastic_index activity entries", 64,
									   &info,
									   HASH_ELEM | HASH_BLOBS | HASH_CONTEXT);
		ei_local_generation = generation;
	}

	local = hash_search(ei_local_entries, &rel->rd_id, HASH_ENTER, &found);
	if (!found)
		local->entry = ei_activity_find_or_create(rel->rd_id);
	return local->entry;
}

/*
 * Add n to one activity counter of an index.
 *
 * Takes no lock once this backend knows the index's entry, and no lookup
 * either while the index's relation cache holds the entry's address from
 * the current entry generation (the counters are bumped on every insert).
 * Must not be called inside a critical section: the first count for an
 * index in a backend allocates local memory.  Does nothing unless the
 * library was preloaded.
 */
void
EIStatsCount(Relation rel, EIStatKind kind, uint64 n)
{
	EIActivityEntry *entry;
	EIRelCache *cache = (EIRelCache *) rel->rd_amcache;
	uint64		generation;

	Assert(kind >= 0 && kind < EI_STAT_NCOUNTERS);

	if (ei_activity == NULL || n == 0)
		return;

	generation = pg_atomic_read_u64(&ei_activity->generation);
	if (cache != NULL && cache->activity != NULL &&
		cache->activity_generation == generation)
		entry = cache->activity;
	else
	{
		entry = ei_activity_entry(rel);
		if (cache != NULL)
		{
			cache->activity = entry;
			cache->activity_generation = generation;
		}
	}
	if (entry != NULL)
		pg_atomic_fetch_add_u64(&entry->counters[kind], n);
	else
		pg_atomic_fetch_add_u64(&ei_activity->overflowed, n);
}

/*
 * Read one activity counter of an index: 0 if it had no events since the
 * server started (or the library is not preloaded).
 */
uint64
EIStatsRead(Relation rel, EIStatKind kind)
{
	EIActivityEntry *entry;

	Assert(kind >= 0 && kind < EI_STAT_NCOUNTERS);

	if (ei_activity == NULL)
		return 0;
	entry = ei_activity_find(RelationGetRelid(rel));
	return entry != NULL ? pg_atomic_read_u64(&entry->counters[kind]) : 0;
}

/*
 * osm_tree's flush worker of an index, one at a time: claim the slot
 * unless a worker showed a sign of life within stale_ms, returning the
 * claim (the time it was made, never 0), or 0 when the slot is taken.  The
 * slot lives in the index's activity entry; without one (table full,
 * library not preloaded) every claim succeeds.
 */
uint64
EIStatsFlushWorkerClaim(Relation rel, int stale_ms)
{
	EIActivityEntry *entry = ei_activity_entry(rel);
	TimestampTz now = GetCurrentTimestamp();
	uint64		old;

	if (entry == NULL)
		return (uint64) now;
	old = pg_atomic_read_u64(&entry->flush_worker);
	if (old != 0 &&
		!TimestampDifferenceExceeds((TimestampTz) old, now, stale_ms))
		return 0;
	if (!pg_atomic_compare_exchange_u64(&entry->flush_worker, &old,
										(uint64) now))
		return 0;
	return (uint64) now;
}

/*
 * Renew a flush worker's claim on its index (its heartbeat): returns the
 * renewed claim, or 0 if the claim is no longer the worker's (another
 * took the slot over as stale, or the entry was reset).
 */
uint64
EIStatsFlushWorkerAlive(Relation rel, uint64 claim)
{
	EIActivityEntry *entry = ei_activity_entry(rel);
	uint64		now = (uint64) GetCurrentTimestamp();

	if (entry == NULL)
		return claim;
	if (now == claim)
		now++;
	if (!pg_atomic_compare_exchange_u64(&entry->flush_worker, &claim, now))
		return 0;
	return now;
}

/*
 * Give up a flush worker's claim on an index of the current database, if
 * it is still that claim; by OID, so that it works when the index is gone
 * (then its entry went with it, or belongs to a new index that reused the
 * OID, whose claims are other ones) and at process exit.  Never errors.
 */
void
EIStatsFlushWorkerRelease(Oid indexrelid, uint64 claim)
{
	EIActivityKey key;
	EIActivityEntry *entry;

	if (ei_activity == NULL || ei_activity_hash == NULL || claim == 0 ||
		!OidIsValid(MyDatabaseId))
		return;
	key.dbid = MyDatabaseId;
	key.indexrelid = indexrelid;

	/* the shared lock keeps the entry from being removed and reused */
	LWLockAcquire(ei_activity->lock, LW_SHARED);
	entry = hash_search(ei_activity_hash, &key, HASH_FIND, NULL);
	if (entry != NULL)
		(void) pg_atomic_compare_exchange_u64(&entry->flush_worker, &claim, 0);
	LWLockRelease(ei_activity->lock);
}

/*
 * Remember a dropped relation that has counters, so that its entry is
 * removed if the dropping transaction commits (object_access_hook).
 */
static void
ei_activity_object_access(ObjectAccessType access, Oid classId,
						  Oid objectId, int subId, void *arg)
{
	if (prev_object_access_hook)
		prev_object_access_hook(access, classId, objectId, subId, arg);

	if (access == OAT_DROP && classId == RelationRelationId && subId == 0 &&
		ei_activity != NULL && ei_activity_find(objectId) != NULL)
	{
		MemoryContext oldcxt = MemoryContextSwitchTo(TopTransactionContext);
		EIActivityDrop *drop = palloc(sizeof(EIActivityDrop));

		drop->indexrelid = objectId;
		drop->subid = GetCurrentSubTransactionId();
		ei_pending_drops = lappend(ei_pending_drops, drop);
		MemoryContextSwitchTo(oldcxt);
	}
}

/*
 * At commit, remove the entries of the indexes the transaction dropped; at
 * abort or PREPARE, keep them.  The list itself lives in
 * TopTransactionContext and goes with it.
 */
static void
ei_activity_xact_callback(XactEvent event, void *arg)
{
	switch (event)
	{
		case XACT_EVENT_COMMIT:
		case XACT_EVENT_PARALLEL_COMMIT:
			if (ei_pending_drops != NIL)
				ei_activity_remove_dropped();
			ei_pending_drops = NIL;
			break;
		case XACT_EVENT_ABORT:
		case XACT_EVENT_PARALLEL_ABORT:
		case XACT_EVENT_PREPARE:
			ei_pending_drops = NIL;
			break;
		default:
			break;
	}
}

/*
 * Forget drops made by an aborted subtransaction; hand those of a committed
 * one to its parent.
 */
static void
ei_activity_subxact_callback(SubXactEvent event, SubTransactionId mySubid,
							 SubTransactionId parentSubid, void *arg)
{
	ListCell   *lc;

	if (event == SUBXACT_EVENT_ABORT_SUB)
	{
		foreach(lc, ei_pending_drops)
		{
			EIActivityDrop *drop = (EIActivityDrop *) lfirst(lc);

			if (drop->subid == mySubid)
				ei_pending_drops = foreach_delete_current(ei_pending_drops, lc);
		}
	}
	else if (event == SUBXACT_EVENT_COMMIT_SUB)
	{
		foreach(lc, ei_pending_drops)
		{
			EIActivityDrop *drop = (EIActivityDrop *) lfirst(lc);

			if (drop->subid == mySubid)
				drop->subid = parentSubid;
		}
	}
}

/*
 * Remove the entries of the indexes the committing transaction dropped.
 * Runs after the commit record, so nothing here may raise an error.
 */
static void
ei_activity_remove_dropped(void)
{
	ListCell   *lc;
	bool		removed = false;

	if (ei_activity == NULL)
		return;

	LWLockAcquire(ei_activity->lock, LW_EXCLUSIVE);
	foreach(lc, ei_pending_drops)
	{
		EIActivityDrop *drop = (EIActivityDrop *) lfirst(lc);
		EIActivityKey key;

		key.dbid = MyDatabaseId;
		key.indexrelid = drop->indexrelid;
		if (hash_search(ei_activity_hash, &key, HASH_REMOVE, NULL) != NULL)
			removed = true;
	}
	if (removed)
		pg_atomic_fetch_add_u64(&ei_activity->generation, 1);
	LWLockRelease(ei_activity->lock);
}

/*
 * Raise an error unless the counters exist (the library was preloaded).
 */
static void
ei_activity_check_available(void)
{
	if (ei_activity == NULL || ei_activity_hash == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("elastic_index activity counters are not available"),
				 errdetail("They live in shared memory that only a preloaded library sets up."),
				 errhint("Add elastic_index to shared_preload_libraries in postgresql.conf "
						 "and restart the server.")));
}

/*
 * Check that the SQL definition of elastic_index_activity() has the
 * columns this library fills: indexrelid, then every counter by name.
 */
static void
ei_activity_check_columns(TupleDesc tupdesc)
{
	bool		ok = (tupdesc->natts == EI_STAT_NCOUNTERS + 1);

	for (int i = 0; ok && i < EI_STAT_NCOUNTERS; i++)
	{
		Form_pg_attribute att = TupleDescAttr(tupdesc, i + 1);

		ok = (att->atttypid == INT8OID &&
			  strcmp(NameStr(att->attname), ei_stat_names[i]) == 0);
	}

	if (!ok)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("the SQL definition of elastic_index_activity() does not match the loaded library"),
				 errhint("Update the extension with ALTER EXTENSION elastic_index UPDATE.")));
}

/*
 * elastic_index_activity(): one row per index of the current database that
 * has counters: its OID, then every counter.
 */
Datum
elastic_index_activity(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	HASH_SEQ_STATUS status;
	EIActivityEntry *entry;
	Datum		values[EI_STAT_NCOUNTERS + 1];
	bool		nulls[EI_STAT_NCOUNTERS + 1];

	ei_activity_check_available();
	InitMaterializedSRF(fcinfo, 0);
	ei_activity_check_columns(rsinfo->setDesc);

	memset(nulls, 0, sizeof(nulls));

	LWLockAcquire(ei_activity->lock, LW_SHARED);
	hash_seq_init(&status, ei_activity_hash);
	while ((entry = hash_seq_search(&status)) != NULL)
	{
		if (entry->key.dbid != MyDatabaseId)
			continue;
		values[0] = ObjectIdGetDatum(entry->key.indexrelid);
		for (int i = 0; i < EI_STAT_NCOUNTERS; i++)
			values[i + 1] = Int64GetDatum((int64)
										  pg_atomic_read_u64(&entry->counters[i]));
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
	}
	LWLockRelease(ei_activity->lock);

	return (Datum) 0;
}

/*
 * elastic_index_activity_info(): the size of the table, how many indexes
 * of all databases have entries, events lost because the table was full,
 * and when all counters were last reset.
 */
Datum
elastic_index_activity_info(PG_FUNCTION_ARGS)
{
	TupleDesc	tupdesc;
	Datum		values[4];
	bool		nulls[4];

	ei_activity_check_available();
	if (get_call_result_type(fcinfo, NULL, &tupdesc) != TYPEFUNC_COMPOSITE)
		elog(ERROR, "return type must be a row type");

	memset(nulls, 0, sizeof(nulls));
	values[0] = Int32GetDatum(ei_stats_max_indexes);

	LWLockAcquire(ei_activity->lock, LW_SHARED);
	values[1] = Int64GetDatum((int64) hash_get_num_entries(ei_activity_hash));
	values[2] = Int64GetDatum((int64) pg_atomic_read_u64(&ei_activity->overflowed));
	values[3] = TimestampTzGetDatum(ei_activity->stats_reset);
	LWLockRelease(ei_activity->lock);

	PG_RETURN_DATUM(HeapTupleGetDatum(heap_form_tuple(tupdesc, values, nulls)));
}

/*
 * elastic_index_activity_reset(index DEFAULT NULL): drop the counters of
 * one index of the current database, or with NULL those of every index of
 * the current database and of databases that no longer exist, together
 * with the overflow count; the reset time is then now.
 *
 * Entries are removed rather than zeroed, which frees their slots; an
 * index gets a new entry at its next event.
 */
Datum
elastic_index_activity_reset(PG_FUNCTION_ARGS)
{
	List	   *gone = NIL;
	bool		all = PG_ARGISNULL(0);

	ei_activity_check_available();

	if (all)
	{
		HASH_SEQ_STATUS status;
		EIActivityEntry *entry;
		List	   *others = NIL;
		ListCell   *lc;

		/* other databases with entries; look them up without our lock */
		LWLockAcquire(ei_activity->lock, LW_SHARED);
		hash_seq_init(&status, ei_activity_hash);
		while ((entry = hash_seq_search(&status)) != NULL)
		{
			if (entry->key.dbid != MyDatabaseId)
				others = list_append_unique_oid(others, entry->key.dbid);
		}
		LWLockRelease(ei_activity->lock);

		foreach(lc, others)
		{
			Oid			dbid = lfirst_oid(lc);

			if (!SearchSysCacheExists1(DATABASEOID, ObjectIdGetDatum(dbid)))
				gone = lappend_oid(gone, dbid);
		}

		LWLockAcquire(ei_activity->lock, LW_EXCLUSIVE);
		hash_seq_init(&status, ei_activity_hash);
		while ((entry = hash_seq_search(&status)) != NULL)
		{
			if (entry->key.dbid == MyDatabaseId ||
				list_member_oid(gone, entry->key.dbid))
				hash_search(ei_activity_hash, &entry->key, HASH_REMOVE, NULL);
		}
		pg_atomic_write_u64(&ei_activity->overflowed, 0);
		ei_activity->stats_reset = GetCurrentTimestamp();
	}
	else
	{
		EIActivityKey key;

		key.dbid = MyDatabaseId;
		key.indexrelid = PG_GETARG_OID(0);
		LWLockAcquire(ei_activity->lock, LW_EXCLUSIVE);
		hash_search(ei_activity_hash, &key, HASH_REMOVE, NULL);
	}
	pg_atomic_fetch_add_u64(&ei_activity->generation, 1);
	LWLockRelease(ei_activity->lock);

	PG_RETURN_VOID();
}
