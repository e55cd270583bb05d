/*-------------------------------------------------------------------------
 *
 * eicompat.h
 *	  Every difference between the PostgreSQL majors elastic_index builds
 *	  against (15, 16, 17 and 18), in one place.
 *
 * The rest of the source is written against the names defined here; a
 * call site that must differ by version (an access method callback whose
 * signature changed, say) keeps its own #if PG_VERSION_NUM guard, and
 * src/README.md ("Supported PostgreSQL versions") lists those sites.
 *
 *-------------------------------------------------------------------------
 */
#ifndef EICOMPAT_H
#define EICOMPAT_H

#include "postgres.h"

#include "access/stratnum.h"
#include "storage/bufpage.h"
#include "utils/acl.h"
#include "utils/lsyscache.h"
#include "utils/pg_locale.h"

#if PG_VERSION_NUM < 150000
#error "elastic_index needs PostgreSQL 15 or later"
#endif

/*
 * A relation's physical file: RelFileNode until 15, RelFileLocator from 16
 * on.  The two are laid out the same (tablespace, database, relation
 * number: three 4-byte OIDs), so WAL records that carry one have the same
 * bytes in every version.
 */
#if PG_VERSION_NUM >= 160000
#include "storage/relfilelocator.h"
typedef RelFileLocator EIRelFileLocator;
#define EIRelFileSpc(loc)		((loc).spcOid)
#define EIRelFileDb(loc)		((loc).dbOid)
#define EIRelFileNumber(loc)	((loc).relNumber)
#define EIRelationLocator(rel)	((rel)->rd_locator)
#define EISmgrLocator(smgr)		((smgr)->smgr_rlocator.locator)
#else
#include "storage/relfilenode.h"
typedef RelFileNode EIRelFileLocator;
#define EIRelFileSpc(loc)		((loc).spcNode)
#define EIRelFileDb(loc)		((loc).dbNode)
#define EIRelFileNumber(loc)	((loc).relNode)
#define EIRelationLocator(rel)	((rel)->rd_node)
#define EISmgrLocator(smgr)		((smgr)->smgr_rnode.node)
#endif

/*
 * Recovery conflicts: from 16 on the standby also needs to know whether
 * the removed tuples belong to a catalog (for logical decoding on a
 * standby), which our WAL records carry in every version.
 */
#if PG_VERSION_NUM >= 160000
#define EIResolveConflictWithSnapshot(xid, isCatalogRel, loc) \
	ResolveRecoveryConflictWithSnapshot((xid), (isCatalogRel), (loc))
#define EIResolveConflictWithSnapshotFullXid(fxid, isCatalogRel, loc) \
	ResolveRecoveryConflictWithSnapshotFullXid((fxid), (isCatalogRel), (loc))
#else
#define EIResolveConflictWithSnapshot(xid, isCatalogRel, loc) \
	((void) (isCatalogRel), ResolveRecoveryConflictWithSnapshot((xid), (loc)))
#define EIResolveConflictWithSnapshotFullXid(fxid, isCatalogRel, loc) \
	((void) (isCatalogRel), \
	 ResolveRecoveryConflictWithSnapshotFullXid((fxid), (loc)))
#endif

/* Does this role own this relation (or is it a superuser)? */
#if PG_VERSION_NUM >= 160000
#define EIRelationOwnerCheck(relid, roleid) \
	object_ownercheck(RelationRelationId, (relid), (roleid))
#else
#define EIRelationOwnerCheck(relid, roleid) \
	pg_class_ownercheck((relid), (roleid))
#endif

/*
 * A page-sized buffer that smgrextend and smgrwrite accept: from 16 on they
 * assert that it is aligned for direct I/O.
 */
#if PG_VERSION_NUM >= 160000
typedef PGIOAlignedBlock EIAlignedBlock;
#else
typedef PGAlignedBlock EIAlignedBlock;
#endif

/*
 * Maintenance run as a table's owner (the osm_tree flush worker, as
 * vacuum_rel) pins search_path to pg_catalog, pg_temp from 17 on, as 17's
 * VACUUM, ANALYZE, CLUSTER, REINDEX and CREATE INDEX do; before 17 they
 * keep the session's (the worker's is empty, set at its start as an
 * autovacuum worker's is).  Call inside a GUC nest level (NewGUCNestLevel).
 */
#if PG_VERSION_NUM >= 170000
#define EIRestrictSearchPath()	RestrictSearchPath()
#else
#define EIRestrictSearchPath()	((void) 0)
#endif

/*
 * A GUC check hook that replaces a string value allocates the new one as
 * the GUC machinery frees it: guc_strdup/guc_free from 16 on, malloc'd
 * memory before.
 */
#if PG_VERSION_NUM >= 160000
#define EIGucStrdup(s)	guc_strdup(LOG, (s))
#define EIGucFree(p)	guc_free(p)
#else
#define EIGucStrdup(s)	strdup(s)
#define EIGucFree(p)	free(p)
#endif

/* A cost-based vacuum delay point (18 tells VACUUM from ANALYZE). */
#if PG_VERSION_NUM >= 180000
#define EIVacuumDelayPoint()	vacuum_delay_point(false)
#else
#define EIVacuumDelayPoint()	vacuum_delay_point()
#endif

/*
 * A function that never returns: 18 replaced the pg_attribute_noreturn()
 * attribute with the pg_noreturn specifier, which goes first.  Write
 * "pg_noreturn static void f(...)" in every version.
 */
#ifndef pg_noreturn
#define pg_noreturn pg_attribute_noreturn()
#endif

/*
 * The offset of the access method's part of a parallel index scan's
 * shared state (18 added instrumentation before it).
 */
#if PG_VERSION_NUM >= 180000
#define EIParallelScanAmOffset(pscan)	((pscan)->ps_offset_am)
#else
#define EIParallelScanAmOffset(pscan)	((pscan)->ps_offset)
#endif

/*
 * Count a descent of an index scan as EXPLAIN ANALYZE's "Index Searches"
 * (18 on; nothing before).
 */
#if PG_VERSION_NUM >= 180000
#define EICountIndexSearch(scan) \
	do { if ((scan)->instrument) (scan)->instrument->nsearches++; } while (0)
#else
#define EICountIndexSearch(scan)	((void) (scan))
#endif

/*
 * The btree strategy (1-5) of an ordering operator, or 0 if it is not one
 * of a btree operator family; *opfamily and *opcintype as
 * get_ordering_op_properties returns them.  18 reports a CompareType.
 */
static inline int16
EIOrderingOpStrategy(Oid opno, Oid *opfamily, Oid *opcintype)
{
#if PG_VERSION_NUM >= 180000
	CompareType cmptype;

	if (!get_ordering_op_properties(opno, opfamily, opcintype, &cmptype))
		return 0;
	switch (cmptype)
	{
		case COMPARE_LT:
			return BTLessStrategyNumber;
		case COMPARE_LE:
			return BTLessEqualStrategyNumber;
		case COMPARE_EQ:
			return BTEqualStrategyNumber;
		case COMPARE_GE:
			return BTGreaterEqualStrategyNumber;
		case COMPARE_GT:
			return BTGreaterStrategyNumber;
		default:
			return 0;
	}
#else
	int16		strategy;

	if (!get_ordering_op_properties(opno, opfamily, opcintype, &strategy))
		return 0;
	return strategy;
#endif
}

/* Is text under this collation ordered by its bytes (C, POSIX)? */
static inline bool
EICollationIsC(Oid collation)
{
#if PG_VERSION_NUM >= 180000
	return pg_newlocale_from_collation(collation)->collate_is_c;
#else
	return lc_collate_is_c(collation);
#endif
}

/*
 * Parallel CREATE INDEX.  From 17 on an access method that sets
 * amcanbuildparallel gets its worker count from index_build, which plans
 * it (plan_create_index_workers) into indexInfo->ii_ParallelWorkers; 15 and
 * 16 plan workers for btree only, so the build plans them itself, as
 * index_build does for btree (never in bootstrap mode).  The access method
 * cannot see index_build's "parallel" argument there, so on 15 and 16 the
 * callers that pass false (reindex_index for TRUNCATE of a table created in
 * the same transaction, for example) may still get workers when the table
 * has the parallel_workers storage parameter: the tree is the same, only
 * the build differs from btree's.
 */
#if PG_VERSION_NUM >= 170000
#define EIBuildParallelWorkers(heap, index, indexInfo) \
	((indexInfo)->ii_ParallelWorkers)
#define EISetAmCanBuildParallel(amroutine) \
	((amroutine)->amcanbuildparallel = true)
#else
#include "miscadmin.h"
#include "nodes/execnodes.h"
#include "optimizer/optimizer.h"
#include "utils/rel.h"
static inline int
EIBuildParallelWorkers(Relation heap, Relation index, IndexInfo *indexInfo)
{
	if (!IsNormalProcessingMode())
		return 0;
	return plan_create_index_workers(RelationGetRelid(heap),
									 RelationGetRelid(index));
}
#define EISetAmCanBuildParallel(amroutine)	((void) (amroutine))
#endif

/*
 * Add npages all-zero pages (1 or more) at the end of an index's main fork,
 * its caller holding the relation extension lock (or the index being
 * local).  The first page comes back pinned, not locked; the others are
 * unpinned before this returns.  Returns how many pages were added: npages
 * on 15, which adds one page at a time (ReadBuffer(P_NEW)) and unpins each
 * extra one at once, so that it never holds more than two pins; possibly
 * fewer on 16 and later, whose ExtendBufferedRelBy adds them in one file
 * extension but pins them all together and so caps them at the backend's
 * share of shared buffers (LimitAdditionalPins).  The 16 branch point
 * names the relation with EB_REL, 16.0 and later with BMR_REL.
 */
#define EI_EXTEND_MAX_PAGES		64
#include "storage/bufmgr.h"
#include "utils/rel.h"
static inline uint32
EIExtendIndexBy(Relation rel, uint32 npages, Buffer *first)
{
#if PG_VERSION_NUM >= 160000
	Buffer		buffers[EI_EXTEND_MAX_PAGES];
	uint32		added = 0;

	Assert(npages >= 1 && npages <= EI_EXTEND_MAX_PAGES);
#ifdef BMR_REL
	(void) ExtendBufferedRelBy(BMR_REL(rel), MAIN_FORKNUM, NULL,
							   EB_SKIP_EXTENSION_LOCK, npages, buffers, &added);
#else
	(void) ExtendBufferedRelBy(EB_REL(rel), MAIN_FORKNUM, NULL,
							   EB_SKIP_EXTENSION_LOCK, npages, buffers, &added);
#endif
	for (uint32 i = 1; i < added; i++)
		ReleaseBuffer(buffers[i]);
	*first = buffers[0];
	return added;
#else
	Assert(npages >= 1 && npages <= EI_EXTEND_MAX_PAGES);
	*first = ReadBuffer(rel, P_NEW);
	for (uint32 i = 1; i < npages; i++)
		ReleaseBuffer(ReadBuffer(rel, P_NEW));
	return npages;
#endif
}

#endif							/* EICOMPAT_H */
