/*-------------------------------------------------------------------------
 *
 * vacuum.c
 *	  VACUUM support: removing the entries of dead heap tuples
 *	  (ambulkdelete) and reporting index statistics (amvacuumcleanup).
 *
 * Both walk the leaf level from left to right along the right links.  That
 * reaches every entry that existed when the walk started: pages are never
 * deleted, and a concurrent split only moves entries to a new page right of
 * the page being split, which is still ahead of us if we have not visited
 * that page, and holds only entries we have already seen if we have.
 *
 * Bulk deletion takes a cleanup lock on each leaf.  A scan keeps its pin on
 * the leaf whose entries it is returning, so waiting for the cleanup lock
 * keeps us from removing an entry whose heap tuple a paused scan has not
 * fetched yet (the heap tuple's slot could otherwise be reused by then).
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/genam.h"
#include "access/xloginsert.h"
#include "commands/progress.h"
#include "commands/vacuum.h"
#include "eitree.h"
#include "eitree_xlog.h"
#include "miscadmin.h"
#include "pgstat.h"
#include "storage/bufmgr.h"
#include "utils/rel.h"

static void ei_vacuum_scan(IndexVacuumInfo *info, IndexBulkDeleteResult *stats,
						   IndexBulkDeleteCallback callback,
						   void *callback_state);
static void ei_vacuum_delete(Relation rel, Buffer buf,
							 OffsetNumber *deletable, int ndeletable);

/*
 * Remove the entries whose heap TIDs the callback reports dead
 * (ambulkdelete).
 */
IndexBulkDeleteResult *
eibulkdelete(IndexVacuumInfo *info, IndexBulkDeleteResult *stats,
			 IndexBulkDeleteCallback callback, void *callback_state)
{
	/* the deletions are WAL-logged with our resource manager */
	if (RelationNeedsWAL(info->index))
		EICheckPreloaded();

	if (stats == NULL)
		stats = (IndexBulkDeleteResult *) palloc0(sizeof(IndexBulkDeleteResult));

	ei_vacuum_scan(info, stats, callback, callback_state);
	return stats;
}

/*
 * Report the index's statistics at the end of VACUUM (amvacuumcleanup).
 *
 * If no bulk deletion ran, walk the leaves to count the entries; otherwise
 * the last bulk deletion has counted them already.
 */
IndexBulkDeleteResult *
eivacuumcleanup(IndexVacuumInfo *info, IndexBulkDeleteResult *stats)
{
	if (info->analyze_only)
		return stats;

	if (stats == NULL)
	{
		stats = (IndexBulkDeleteResult *) palloc0(sizeof(IndexBulkDeleteResult));
		ei_vacuum_scan(info, stats, NULL, NULL);
	}

	/*
	 * Our count is exact even when the heap's (info->num_heap_tuples) is an
	 * estimate.  Pages are never deleted, so none are free for reuse.
	 */
	stats->num_pages = RelationGetNumberOfBlocks(info->index);
	stats->estimated_count = false;
	stats->pages_newly_deleted = 0;
	stats->pages_deleted = 0;
	stats->pages_free = 0;

	return stats;
}

/*
 * Walk the leaf level left to right, counting entries and, if a callback is
 * given, removing the entries it reports dead.
 *
 * The callback is called for every entry: CREATE INDEX CONCURRENTLY uses a
 * bulk deletion that removes nothing to collect the TIDs of all entries.
 */
static void
ei_vacuum_scan(IndexVacuumInfo *info, IndexBulkDeleteResult *stats,
			   IndexBulkDeleteCallback callback, void *callback_state)
{
	Relation	rel = info->index;
	BlockNumber blkno;
	BlockNumber num_pages;
	int64		pages_done = 0;
	Buffer		buf;

	num_pages = RelationGetNumberOfBlocks(rel);
	stats->num_pages = num_pages;
	stats->estimated_count = false;
	stats->num_index_tuples = 0;

	if (info->report_progress)
		pgstat_progress_update_param(PROGRESS_SCAN_BLOCKS_TOTAL, num_pages);

	/* the leftmost leaf never changes, since pages are never deleted */
	buf = EIGetEndpoint(rel, 0, false);
	blkno = BufferGetBlockNumber(buf);
	EIRelBuf(rel, buf);

	while (BlockNumberIsValid(blkno))
	{
		Page		page;
		EIPageOpaque opaque;
		OffsetNumber deletable[MaxIndexTuplesPerPage];
		int			ndeletable = 0;
		OffsetNumber offnum;
		OffsetNumber maxoff;

		vacuum_delay_point();

		buf = ReadBufferExtended(rel, MAIN_FORKNUM, blkno, RBM_NORMAL,
								 info->strategy);
		if (callback != NULL)
			LockBufferForCleanup(buf);
		else
			LockBuffer(buf, EI_READ);
		EICheckPage(rel, buf);

		page = BufferGetPage(buf);
		opaque = EIPageGetOpaque(page);

		if (!EI_IS_LEAF(opaque) || opaque->ei_level != 0)
			elog(ERROR, "block %u of index \"%s\" is not a leaf, but is linked from the leaf level",
				 blkno, RelationGetRelationName(rel));

		if (!EI_IGNORE(opaque))
		{
			maxoff = PageGetMaxOffsetNumber(page);
			for (offnum = EI_FIRST_DATA(opaque); offnum <= maxoff;
				 offnum = OffsetNumberNext(offnum))
			{
				IndexTuple	itup = EIReadTuple(page, offnum);

				if (callback != NULL && callback(&itup->t_tid, callback_state))
					deletable[ndeletable++] = offnum;
				else
					stats->num_index_tuples += 1;
			}

			if (ndeletable > 0)
			{
				ei_vacuum_delete(rel, buf, deletable, ndeletable);
				stats->tuples_removed += ndeletable;
			}
		}

		blkno = opaque->ei_next;
		UnlockReleaseBuffer(buf);

		if (info->report_progress)
			pgstat_progress_update_param(PROGRESS_SCAN_BLOCKS_DONE,
										 ++pages_done);
	}
}

/*
 * Remove items from a cleanup-locked leaf and WAL-log the removal.
 */
static void
ei_vacuum_delete(Relation rel, Buffer buf, OffsetNumber *deletable,
				 int ndeletable)
{
	Page		page = BufferGetPage(buf);

	START_CRIT_SECTION();

	EIDeleteItems(page, deletable, ndeletable);
	MarkBufferDirty(buf);

	if (RelationNeedsWAL(rel))
	{
		xl_ei_vacuum xlrec;
		XLogRecPtr	recptr;

		xlrec.ndeleted = (uint16) ndeletable;

		XLogBeginInsert();
		XLogRegisterData((char *) &xlrec, SizeOfEIVacuum);
		XLogRegisterBuffer(0, buf, REGBUF_STANDARD);
		XLogRegisterBufData(0, (char *) deletable,
							ndeletable * sizeof(OffsetNumber));
		recptr = XLogInsert(EI_RMGR_ID, XLOG_EI_VACUUM);
		PageSetLSN(page, recptr);
	}

	END_CRIT_SECTION();
}
