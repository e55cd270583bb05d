/*-------------------------------------------------------------------------
 *
 * policy.c
 *	  What the core asks of osm_tree through its policy table
 *	  (am/osm_tree.c puts these functions in it): which indexes are
 *	  osm_tree's, and the insert buffer's flush at VACUUM.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "eiosm.h"

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
	(void) OsmBufferFlush(rel, NULL, -1, true);
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
