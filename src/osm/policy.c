/*-------------------------------------------------------------------------
 *
 * policy.c
 *	  What the core asks of osm_tree through its policy table
 *	  (am/osm_tree.c puts these functions in it): which indexes are
 *	  osm_tree's, the insert buffer's flush at VACUUM, and compact leaves
 *	  (the compact_leaves reloption): refused where impossible, looked up
 *	  before inserts, asked for by bulk appends.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/relation.h"
#include "access/table.h"
#include "access/xact.h"
#include "catalog/namespace.h"
#include "eiosm.h"
#include "utils/rel.h"

/*
 * Move the whole insert buffer into the tree (EITreePolicy.bulkdelete_begin
 * and cleanup_begin).  Before a bulk deletion's walk, so that it sees every
 * entry that existed before it: entries buffered after that point to heap
 * tuples newer than any this VACUUM found dead.  At cleanup, because
 * VACUUM is where a buffer is flushed at the latest.
 */
void
OsmVacuumFlush(Relation rel)
{
	Relation	heap;

	/*
	 * The table, which VACUUM holds locked already: entries that land in a
	 * compact leaf are placed by keys read from it.
	 */
	heap = table_open(rel->rd_index->indrelid, AccessShareLock);
	(void) OsmBufferFlush(rel, heap, -1, true);
	table_close(heap, AccessShareLock);
}

/*
 * Before a build (EITreePolicy.build_begin): an index asked to have compact
 * leaves that cannot have them is refused.
 */
void
OsmBuildBegin(Relation index)
{
	if (OsmGetCompactLeaves(index))
		EICompactRequire(index);
}

/*
 * After ALTER INDEX (or ALTER TABLE on an index) ... SET or RESET of
 * reloptions (the utility hook, osm/batch.c): an osm_tree index that now
 * asks for compact leaves but cannot have them is refused, rolling the
 * ALTER back.  amoptions cannot see the index's columns; left standing, the
 * option would make every REINDEX, every rebuild by ALTER TABLE ... TYPE
 * and the CREATE INDEX of a dump's restore or of pg_upgrade fail
 * (OsmBuildBegin).
 */
void
OsmCheckAlteredOptions(AlterTableStmt *stmt)
{
	ListCell   *lc;
	bool		setsoptions = false;
	Oid			relid;
	Relation	rel;

	foreach(lc, stmt->cmds)
	{
		AlterTableCmd *cmd = lfirst_node(AlterTableCmd, lc);

		if (cmd->subtype == AT_SetRelOptions ||
			cmd->subtype == AT_ReplaceRelOptions)
			setsoptions = true;
	}
	if (!setsoptions || stmt->relation == NULL)
		return;

	/* the ALTER locked the relation; see its new options */
	relid = RangeVarGetRelid(stmt->relation, NoLock, true);
	if (!OidIsValid(relid))
		return;
	CommandCounterIncrement();
	rel = relation_open(relid, NoLock);
	if (rel->rd_rel->relkind == RELKIND_INDEX && EIRelIsOsm(rel))
		OsmRefuseCompactLeaves(rel);
	relation_close(rel, NoLock);
}

/*
 * Refuse an entry for an index asked for compact leaves that cannot have
 * them (osminsert, before the entry goes anywhere): an error, with nothing
 * changed.
 */
void
OsmRefuseCompactLeaves(Relation rel)
{
	if (OsmGetCompactLeaves(rel))
		EICompactRequire(rel);
}

/*
 * Before an insert takes a leaf lock (EITreePolicy.insert_prepare): look up
 * what compact leaves need (EICompactInfo: catalog reads once per index
 * file), which the leaf kind's insert and split and the bulk append's
 * forming read under their locks.  Also without the reloption: leaves made
 * compact before ALTER INDEX ... SET (compact_leaves = off) stay compact.
 * Never an error: an index that cannot have them (the reloption set by
 * ALTER INDEX, which cannot see the index's columns) refuses new entries
 * in osminsert, but the insert buffer's flush of entries taken before the
 * ALTER (at VACUUM, by the flush worker) must still move them into the
 * tree, in standard leaves (OsmFormLeaves is false for such an index).
 */
void
OsmInsertPrepare(Relation rel, Relation heapRel)
{
	(void) EICompactInfo(rel);
}

/*
 * Form the leaves a bulk append fills in the compact kind
 * (EITreePolicy.form_leaves)?  With the reloption, when the index can have
 * them (insert_prepare looked that up).  Reads rd_options and the cache.
 */
bool
OsmFormLeaves(Relation rel)
{
	return OsmGetCompactLeaves(rel) && EICompactInfoCached(rel) != NULL;
}

/*
 * Form a build's leaves in the compact kind (EITreePolicy.build_leaves)?
 * As for bulk appends: with the reloption (build_begin refused an index
 * that cannot have them), from the first entry on, however many there are.
 */
EIBuildLeavesChoice
OsmBuildLeaves(Relation index, Relation heap, double ntuples,
			   double standard_leaves)
{
	return OsmGetCompactLeaves(index) && EICompactInfo(index) != NULL ?
		EI_BUILD_KIND : EI_BUILD_STANDARD;
}

/*
 * Set up osm_tree's settings and its per-transaction batches; called from
 * _PG_init through the access method.
 */
void
OsmInit(void)
{
	OsmInitReloptions();
	OsmInitGUCs();
	EIBatchInit();
}
