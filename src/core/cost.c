/*-------------------------------------------------------------------------
 *
 * cost.c
 *	  Planner cost estimation for the tree.
 *
 * The tree has the shape and the access pattern of nbtree, so we cost it
 * with btcostestimate, after giving it the one figure the planner fills in
 * only for btree indexes: the height of the tree, read from our metapage.
 * The planner then chooses between our index and a btree on equal terms.
 *
 * A hypothetical index (src/hypo) has no relation to open: its tree_height
 * comes with its IndexOptInfo, from the size model.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/genam.h"
#include "eitree.h"
#include "utils/index_selfuncs.h"
#include "utils/rel.h"

/*
 * Estimate the cost of an index path (amcostestimate).
 */
void
eicostestimate(PlannerInfo *root, IndexPath *path, double loop_count,
			   Cost *indexStartupCost, Cost *indexTotalCost,
			   Selectivity *indexSelectivity, double *indexCorrelation,
			   double *indexPages)
{
	IndexOptInfo *index = path->indexinfo;

	/* never open a hypothetical index: its OID is no relation's */
	if (index->tree_height < 0 && !index->hypothetical)
	{
		/* the planner already holds a lock on the index */
		Relation	rel = index_open(index->indexoid, NoLock);

		index->tree_height = EIGetRootHeight(rel) - 1;
		index_close(rel, NoLock);
	}

	btcostestimate(root, path, loop_count, indexStartupCost, indexTotalCost,
				   indexSelectivity, indexCorrelation, indexPages);
}
