/*-------------------------------------------------------------------------
 *
 * elastic_btree.c
 *	  The elastic_btree access method: its handler and the callbacks that
 *	  are specific to it rather than to the shared tree core.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/amapi.h"
#include "access/nbtree.h"
#include "commands/vacuum.h"
#include "eiam.h"
#include "eielastic.h"
#include "fmgr.h"

PG_FUNCTION_INFO_V1(elastic_btree_handler);

/*
 * elastic_btree: the core tree with the elastic policy, whose compact
 * leaves and size bound the core reaches only through this table.
 */
static const EITreePolicy elastic_btree_policy = {
	.name = "elastic_btree",
	.am_kind = EI_AM_ELASTIC_BTREE,
	.aminsert = eiinsert,
	.fillfactor = EIElasticGetFillFactor,
	.split_factor = NULL,
	.deduplicate = EIElasticGetDeduplicate,
	.build_begin = EIElasticBuildBegin,
	.build_leaves = EIElasticBuildLeaves,
	.build_meta = EIElasticBuildMeta,
	.insert_prepare = EIElasticInsertPrepare,
	.leaf_full = EIElasticLeafFull,
	.insert_done = EIElasticInsertDone,
	.apply_pending = NULL,
	.leaf = &EICompactLeafOps,
	.mark_leaf_reads = EIElasticMarkLeafReads,
	.scan_collect = NULL,
	.bulkdelete_begin = NULL,
	.cleanup_begin = NULL,
	.cleanup_end = EIElasticVacuum,
	.verify_extra = EIElasticVerifyMeta,
	.records = NULL,
};

/*
 * Set up elastic_btree: its settings, and its policy table; called from
 * _PG_init.
 */
void
EIElasticBtreeInit(void)
{
	EIElasticInitReloptions();
	EIElasticInitGUCs();
	EIRegisterPolicy(&elastic_btree_policy);
}

/*
 * Insert one heap tuple's entry (aminsert).
 */
bool
eiinsert(Relation rel, Datum *values, bool *isnull, ItemPointer ht_ctid,
		 Relation heapRel, IndexUniqueCheck checkUnique, bool indexUnchanged,
		 IndexInfo *indexInfo)
{
	IndexTuple	itup;

	itup = index_form_tuple(RelationGetDescr(rel), values, isnull);
	itup->t_tid = *ht_ctid;
	EIDoInsert(rel, itup, heapRel);
	pfree(itup);

	return false;
}

/*
 * Every key column can be returned by index-only scans (amcanreturn).
 */
bool
eicanreturn(Relation index, int attno)
{
	return true;
}

/*
 * Describe the access method to the server (the AM handler).
 */
Datum
elastic_btree_handler(PG_FUNCTION_ARGS)
{
	IndexAmRoutine *amroutine = makeNode(IndexAmRoutine);

	amroutine->amstrategies = EI_NSTRATEGIES;
	amroutine->amsupport = EI_NPROCS;
	amroutine->amoptsprocnum = EI_OPTIONS_PROC;
	amroutine->amcanorder = true;
	amroutine->amcanorderbyop = false;
	amroutine->amcanbackward = true;
	amroutine->amcanunique = false;
	amroutine->amcanmulticol = true;
	amroutine->amoptionalkey = true;
	amroutine->amsearcharray = true;
	amroutine->amsearchnulls = true;
	amroutine->amstorage = false;
	amroutine->amclusterable = true;
	/* page-level predicate locks for SERIALIZABLE (src/README.md) */
	amroutine->ampredlocks = true;
	amroutine->amcanparallel = true;
	amroutine->amcaninclude = true;
	/* parallel CREATE INDEX (eicompat.h: before 17 the build plans it) */
	EISetAmCanBuildParallel(amroutine);
	amroutine->amusemaintenanceworkmem = false;
	amroutine->amparallelvacuumoptions =
		VACUUM_OPTION_PARALLEL_BULKDEL | VACUUM_OPTION_PARALLEL_COND_CLEANUP;
	amroutine->amkeytype = InvalidOid;
#if PG_VERSION_NUM >= 180000
	/* equal and ordered as btree's strategies say (planner, 18 on) */
	amroutine->amconsistentequality = true;
	amroutine->amconsistentordering = true;
#endif

	amroutine->ambuild = eibuild;
	amroutine->ambuildempty = eibuildempty;
	amroutine->aminsert = eiinsert;
	amroutine->ambulkdelete = eibulkdelete;
	amroutine->amvacuumcleanup = eivacuumcleanup;
	amroutine->amcanreturn = eicanreturn;
	amroutine->amcostestimate = eicostestimate;
	amroutine->amoptions = eioptions;
	amroutine->amproperty = NULL;
	amroutine->ambuildphasename = eibuildphasename;
	amroutine->amvalidate = eivalidate;
	amroutine->amadjustmembers = NULL;
	amroutine->ambeginscan = eibeginscan;
	amroutine->amrescan = eirescan;
	amroutine->amgettuple = eigettuple;
	amroutine->amgetbitmap = eigetbitmap;
	amroutine->amendscan = eiendscan;
	amroutine->ammarkpos = eimarkpos;
	amroutine->amrestrpos = eirestrpos;
	amroutine->amestimateparallelscan = eiestimateparallelscan;
	amroutine->aminitparallelscan = eiinitparallelscan;
	amroutine->amparallelrescan = eiparallelrescan;
#if PG_VERSION_NUM >= 180000
	/* our strategy numbers are btree's */
	amroutine->amtranslatestrategy = bttranslatestrategy;
	amroutine->amtranslatecmptype = bttranslatecmptype;
#endif

	PG_RETURN_POINTER(amroutine);
}
