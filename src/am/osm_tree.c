/*-------------------------------------------------------------------------
 *
 * osm_tree.c
 *	  The osm_tree access method: its handler, its policy table, and its
 *	  insert callback, which hands entries to the per-transaction batch
 *	  (osm/batch.c) instead of inserting them one by one.
 *
 * osm_tree is the shared tree core tuned for sorted and near-sorted
 * ingestion: entries a transaction inserts are sorted and applied leaf by
 * leaf (small batches go to the insert buffer, osm/buffer.c), runs past the right edge become whole new leaves filled to
 * osm_tree.fill_factor, and a leaf that a batch's run splits is left the
 * fill factor full once the run is in (or, among dense early keys, keeps at
 * least osm_tree.split_factor on the left).  Everything else (search,
 * scans, VACUUM, WAL) is the core's, exactly as for elastic_btree.  See
 * src/README.md, "osm_tree".
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/amapi.h"
#include "access/xact.h"
#include "commands/vacuum.h"
#include "eiam.h"
#include "eiosm.h"
#include "fmgr.h"
#include "utils/guc.h"

PG_FUNCTION_INFO_V1(osm_tree_handler);

/*
 * osm_tree: the core tree with the osm policy: entries enter through the
 * transaction's batch or the insert buffer (osminsert), scans merge the
 * buffer, VACUUM flushes it.
 */
static const EITreePolicy osm_tree_policy = {
	.name = "osm_tree",
	.am_kind = EI_AM_OSM_TREE,
	.aminsert = osminsert,
	.fillfactor = OsmGetFillFactor,
	.split_factor = OsmGetSplitFactor,
	.deduplicate = OsmGetDeduplicate,
	.redistribute = OsmGetRedistribute,
	.build_begin = OsmBuildBegin,
	.build_leaves = OsmBuildLeaves,
	.insert_prepare = OsmInsertPrepare,
	.leaf_full = NULL,
	.insert_done = NULL,
	.apply_pending = EIBatchFlushIndex,
	.leaf = &EICompactLeafOps,
	.form_leaves = OsmFormLeaves,
	.mark_leaf_reads = NULL,
	.scan_collect = OsmBufferCollect,
	.bulkdelete_begin = OsmVacuumFlush,
	.cleanup_begin = OsmVacuumFlush,
	.cleanup_end = NULL,
	.verify_extra = OsmVerifyBuffer,
	.records = OsmRecords,
};

/*
 * Set up osm_tree: its settings, batches, and policy table; called from
 * _PG_init.
 */
void
EIOsmTreeInit(void)
{
	OsmInit();
	EIRegisterPolicy(&osm_tree_policy);
}

/*
 * Insert one heap tuple's entry (aminsert): into the transaction's batch,
 * or at once where other backends must see it before we commit.
 *
 * An exclusion constraint's check in another backend searches the index
 * for our uncommitted entry in order to wait for us, so those indexes
 * (and any uniqueness check) take entries at once.  So does a serializable
 * transaction: its insert checks the leaf for rw-conflicts with the
 * readers that locked it by then, as nbtree's does; a batch applied at
 * commit would also catch every reader of the leaf since the INSERT, and
 * page granularity makes most of those false conflicts (src/README.md,
 * "Predicate locks").  Its entries never enter the insert buffer either.
 */
bool
osminsert(Relation rel, Datum *values, bool *isnull, ItemPointer ht_ctid,
		  Relation heapRel, IndexUniqueCheck checkUnique, bool indexUnchanged,
		  IndexInfo *indexInfo)
{
	IndexTuple	itup;
	bool		direct = (checkUnique != UNIQUE_CHECK_NO || indexInfo == NULL ||
						  indexInfo->ii_ExclusionOps != NULL ||
						  IsolationIsSerializable());
	bool		compact_leaves;
	int			batch_size = OsmGetInsertOptions(rel, &compact_leaves);

	/*
	 * An index asked for compact leaves that cannot have them (the
	 * reloption set by ALTER INDEX) refuses the entry here, before it goes
	 * into a batch or the insert buffer, whose flush must not fail
	 * (OsmInsertPrepare)
	 */
	if (compact_leaves)
		OsmRefuseCompactLeaves(rel);

	/* the batch forms its entry in its own memory */
	if (!direct && batch_size > 1)
	{
		EIBatchAdd(rel, heapRel, values, isnull, ht_ctid, batch_size);
		return false;
	}

	itup = index_form_tuple(RelationGetDescr(rel), values, isnull);
	itup->t_tid = *ht_ctid;

	if (direct)
		EIDoInsert(rel, itup, heapRel);
	else if (OsmBufferEnabled(rel))
		OsmBufferInsert(rel, heapRel, &itup, 1);
	else
		EIDoInsert(rel, itup, heapRel);
	pfree(itup);

	return false;
}

/*
 * Describe the access method to the server (the AM handler).  Only
 * aminsert and amoptions differ from elastic_btree.
 */
Datum
osm_tree_handler(PG_FUNCTION_ARGS)
{
	IndexAmRoutine *amroutine;

	amroutine = (IndexAmRoutine *) DatumGetPointer(DirectFunctionCall1(elastic_btree_handler,
																	   PointerGetDatum(NULL)));
	amroutine->aminsert = osminsert;
	amroutine->amoptions = osmoptions;
	/* parallel scans share out key ranges, buffer included (core/scan.c) */
	Assert(amroutine->amcanparallel);

	PG_RETURN_POINTER(amroutine);
}
