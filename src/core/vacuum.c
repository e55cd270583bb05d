/*-------------------------------------------------------------------------
 *
 * vacuum.c
 *	  VACUUM support: removing the entries of dead heap tuples
 *	  (ambulkdelete) and reporting index statistics (amvacuumcleanup).
 *
 * Both walk the leaf level from left to right along the right links.  That
 * reaches every entry that existed when the walk started: a concurrent split
 * only moves entries to a new page right of the page being split, which is
 * still ahead of us if we have not visited that page, and holds only entries
 * we have already seen if we have.  Pages are deleted only by VACUUM, one at
 * a time per index, so the walk itself is the only deleter.
 *
 * Bulk deletion deletes the leaves it empties (pagedel.c), and finishes
 * leaves a crash left half-dead.  Cleanup then reads every block in physical
 * order to put deleted pages that no scan can reach any more into the free
 * space map, and gives trailing free pages back to the operating system when
 * it can take an exclusive lock on the index without waiting.
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
#include "access/xact.h"
#include "access/xloginsert.h"
#include "commands/progress.h"
#include "commands/vacuum.h"
#include "eistats.h"
#include "eitree.h"
#include "eitree_xlog.h"
#include "miscadmin.h"
#include "pgstat.h"
#include "storage/bufmgr.h"
#include "storage/indexfsm.h"
#include "storage/lmgr.h"
#include "catalog/storage.h"
#include "utils/rel.h"

static void ei_vacuum_scan(IndexVacuumInfo *info, IndexBulkDeleteResult *stats,
						   IndexBulkDeleteCallback callback,
						   void *callback_state);
/* a posting list VACUUM shrinks: the positions of the TIDs it loses */
typedef struct EIVacuumPosting
{
	OffsetNumber offnum;
	uint16		nremoved;
	uint16	   *removed;
} EIVacuumPosting;

static void ei_vacuum_delete(Relation rel, Buffer buf, OffsetNumber *deletable,
							 int ndeletable, EIVacuumPosting *updates,
							 int nupdates);
static BlockNumber ei_vacuum_free_tail(IndexVacuumInfo *info,
									   BlockNumber first, BlockNumber nblocks,
									   XLogRecPtr fence,
									   BlockNumber *ndeleted);
static void ei_vacuum_recycle(IndexVacuumInfo *info,
							  IndexBulkDeleteResult *stats);

/*
 * Remove the entries whose heap TIDs the callback reports dead
 * (ambulkdelete).
 */
IndexBulkDeleteResult *
eibulkdelete(IndexVacuumInfo *info, IndexBulkDeleteResult *stats,
			 IndexBulkDeleteCallback callback, void *callback_state)
{
	const EITreePolicy *policy;

	/* the deletions are WAL-logged with our resource manager */
	if (RelationNeedsWAL(info->index))
		EICheckPreloaded();

	if (stats == NULL)
		stats = (IndexBulkDeleteResult *) palloc0(sizeof(IndexBulkDeleteResult));

	/*
	 * The policy's preparation: entries it keeps outside the tree go into
	 * it, so that the walk below sees every entry that existed before it.
	 */
	policy = EIGetPolicyChecked(info->index);
	if (policy->leaf != NULL && policy->leaf->prepare != NULL)
		policy->leaf->prepare(info->index);
	if (policy->bulkdelete_begin)
		policy->bulkdelete_begin(info->index);

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
	const EITreePolicy *policy;

	if (info->analyze_only)
		return stats;

	/* the policy's work at cleanup, before and after the core's */
	policy = EIGetPolicyChecked(info->index);
	if (policy->leaf != NULL && policy->leaf->prepare != NULL)
		policy->leaf->prepare(info->index);
	if (policy->cleanup_begin)
		policy->cleanup_begin(info->index);

	if (stats == NULL)
	{
		stats = (IndexBulkDeleteResult *) palloc0(sizeof(IndexBulkDeleteResult));
		ei_vacuum_scan(info, stats, NULL, NULL);
	}

	/*
	 * Our count is exact even when the heap's is an estimate, unless leaves
	 * shifted entries right during the walk (src/README.md, "Redistribution
	 * between sibling leaves"): entries that moved from a leaf behind the
	 * walk to one ahead of it are counted twice (and checked twice, which
	 * is harmless); none is missed, as entries only move right.
	 */
	stats->estimated_count = false;

	ei_vacuum_recycle(info, stats);

	if (policy->cleanup_end)
		policy->cleanup_end(info->index);
	stats->num_pages = RelationGetNumberOfBlocks(info->index);

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

	/*
	 * Start at the leftmost leaf.  Only this walk deletes pages, so it stays
	 * put, but half-dead leaves left of the leftmost downlinked one (a crash
	 * in the middle of deleting the leftmost leaf) are reached only by
	 * stepping left from it.
	 */
	buf = EIGetEndpoint(rel, 0, false);
	blkno = BufferGetBlockNumber(buf);
	for (;;)
	{
		BlockNumber leftblk = EIPageGetOpaque(BufferGetPage(buf))->ei_prev;
		EIPageOpaque lopaque;

		if (!BlockNumberIsValid(leftblk))
			break;
		buf = EIRelAndGetBuf(rel, buf, leftblk, EI_READ);
		lopaque = EIPageGetOpaque(BufferGetPage(buf));
		if (!(lopaque->ei_flags & EI_HALF_DEAD) || lopaque->ei_next != blkno)
			break;
		blkno = leftblk;
	}
	EIRelBuf(rel, buf);

	while (BlockNumberIsValid(blkno))
	{
		Page		page;
		EIPageOpaque opaque;
		OffsetNumber deletable[MaxIndexTuplesPerPage];
		int			ndeletable = 0;
		EIVacuumPosting updates[MaxIndexTuplesPerPage];
		int			nupdates = 0;
		uint16		removed[EI_MAX_POSTING_SIZE / sizeof(ItemPointerData)];
		int64		ntidsremoved = 0;
		OffsetNumber offnum;
		OffsetNumber maxoff;

		EIVacuumDelayPoint();

		buf = ReadBufferExtended(rel, MAIN_FORKNUM, blkno, RBM_NORMAL,
								 info->strategy);
		if (callback != NULL)
			LockBufferForCleanup(buf);
		else
			LockBuffer(buf, EI_READ);
		EICheckPage(rel, buf);

		page = BufferGetPage(buf);
		opaque = EIPageGetOpaque(page);

		if (!EI_IS_LEAF(opaque) || opaque->ei_level != 0 || EI_IS_META(opaque))
			ereport(ERROR,
					(errcode(ERRCODE_INDEX_CORRUPTED),
					 errmsg("index \"%s\" is corrupted: block %u is not a leaf, but is linked from the leaf level",
							RelationGetRelationName(rel), blkno)));
		EICheckPageItems(rel, buf);

		if ((opaque->ei_flags & EI_HALF_DEAD) && !(opaque->ei_flags & EI_DELETED))
		{
			/* a crash interrupted this page's deletion: finish it */
			BlockNumber halfdead = blkno;

			blkno = opaque->ei_next;
			UnlockReleaseBuffer(buf);
			EIUnlinkHalfDead(rel, halfdead);
			stats->pages_newly_deleted++;
			continue;
		}

		if (!EI_IGNORE(opaque) && (opaque->ei_flags & EI_POLICY_LEAF))
		{
			const EILeafKindOps *leafops = EIGetPolicyChecked(rel)->leaf;

			if (leafops == NULL)
				ereport(ERROR,
						(errcode(ERRCODE_INDEX_CORRUPTED),
						 errmsg("index \"%s\" has a leaf of a kind its access method does not have in block %u",
								RelationGetRelationName(rel), blkno)));
			leafops->vacuum(rel, buf, callback, callback_state, stats);
		}

		if (!EI_IGNORE(opaque) && !(opaque->ei_flags & EI_POLICY_LEAF))
		{
			maxoff = PageGetMaxOffsetNumber(page);
			for (offnum = EI_FIRST_DATA(opaque); offnum <= maxoff;
				 offnum = OffsetNumberNext(offnum))
			{
				IndexTuple	itup = EIReadTuple(page, offnum);

				if (EITupleIsPosting(itup))
				{
					/* each TID of a list is asked for; the list shrinks */
					int			n = EIPostingCount(itup);
					int			nremoved = 0;

					for (int t = 0; callback != NULL && t < n; t++)
						if (callback(EIPostingTID(itup, t), callback_state))
							removed[nremoved++] = (uint16) t;
					if (nremoved == n)
						deletable[ndeletable++] = offnum;
					else if (nremoved > 0)
					{
						updates[nupdates].offnum = offnum;
						updates[nupdates].nremoved = nremoved;
						updates[nupdates].removed = palloc(sizeof(uint16) * nremoved);
						memcpy(updates[nupdates].removed, removed,
							   sizeof(uint16) * nremoved);
						nupdates++;
					}
					stats->num_index_tuples += n - nremoved;
					stats->tuples_removed += nremoved;
					ntidsremoved += nremoved;
				}
				else if (callback != NULL && callback(&itup->t_tid, callback_state))
					deletable[ndeletable++] = offnum;
				else
					stats->num_index_tuples += 1;
			}

			if (ndeletable > 0 || nupdates > 0)
			{
				int			nplain = ndeletable;

				/* (a whole list's TIDs were counted above) */
				for (int d = 0; d < ndeletable; d++)
					if (EITupleIsPosting(EIReadTuple(page, deletable[d])))
						nplain--;
				ei_vacuum_delete(rel, buf, deletable, ndeletable,
								 updates, nupdates);
				stats->tuples_removed += nplain;
				EIStatsCount(rel, EI_STAT_DEAD_REMOVED_BY_VACUUM,
							 nplain + ntidsremoved);
				for (int u = 0; u < nupdates; u++)
					pfree(updates[u].removed);
			}

			/* an emptied leaf (not the rightmost) is deleted */
			if (callback != NULL && !EI_RIGHTMOST(opaque) &&
				PageGetMaxOffsetNumber(page) < EI_FIRST_DATA(opaque))
			{
				blkno = opaque->ei_next;
				if (EIPageDelete(rel, buf))
					stats->pages_newly_deleted++;
				if (info->report_progress)
					pgstat_progress_update_param(PROGRESS_SCAN_BLOCKS_DONE,
												 ++pages_done);
				continue;
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
 * Is the block a deleted or never-initialized page that may be reused now?
 * Sets *isdeleted to whether it is a deleted page.
 */
static bool
ei_vacuum_check_free(IndexVacuumInfo *info, BlockNumber blkno,
					 XLogRecPtr fence, bool *isdeleted)
{
	Buffer		buf;
	Page		page;
	bool		free;

	buf = ReadBufferExtended(info->index, MAIN_FORKNUM, blkno, RBM_NORMAL,
							 info->strategy);
	LockBuffer(buf, EI_READ);
	page = BufferGetPage(buf);
	*isdeleted = !PageIsNew(page) &&
		(EIPageGetOpaque(page)->ei_flags & EI_DELETED) != 0;
	free = (PageIsNew(page) || *isdeleted) && EIPageIsRecyclable(page, fence);
	UnlockReleaseBuffer(buf);

	return free;
}

/*
 * Read every block in physical order: count deleted pages, put the
 * recyclable ones into the free space map, and truncate trailing free
 * pages if an exclusive lock on the index is available at once.
 *
 * If this VACUUM deleted pages, first try to move the recycle fence past
 * them (EIAdvanceRecycleFence), so that they are reusable as soon as this
 * VACUUM ends rather than one cycle later.  Deleted pages that neither the
 * fence nor the xid horizon frees are remembered and checked once more
 * after a second attempt at the end of the pass.
 */
static void
ei_vacuum_recycle(IndexVacuumInfo *info, IndexBulkDeleteResult *stats)
{
	Relation	rel = info->index;
	bool		needLock = !RELATION_IS_LOCAL(rel);
	BlockNumber nblocks;
	BlockNumber blkno;
	BlockNumber last_used = EI_METAPAGE;
	XLogRecPtr	fence;
	BlockNumber *pending = NULL;
	int			npending = 0;
	int			maxpending = 0;

	stats->pages_deleted = 0;
	stats->pages_free = 0;

	/*
	 * The length under the extension lock, as nbtree's btvacuumscan reads
	 * it: a backend extending the index (EINewBuf) holds the lock until it
	 * has locked its new page, so every page below this length is either
	 * initialized or locked by its extender, never a new page nobody holds
	 * yet, which this pass would record as free for another backend to take
	 * as well.  The exception, spare pages a backend added for itself, is
	 * harmless: their backend checks each before using it (src/README.md,
	 * "Spare pages").
	 */
	if (needLock)
		LockRelationForExtension(rel, ExclusiveLock);
	nblocks = RelationGetNumberOfBlocks(rel);
	if (needLock)
		UnlockRelationForExtension(rel, ExclusiveLock);

	if (stats->pages_newly_deleted > 0)
		fence = EIAdvanceRecycleFence(rel);
	else
		fence = EIGetMetaCached(rel, true)->recycle_fence;

	for (blkno = EI_METAPAGE + 1; blkno < nblocks; blkno++)
	{
		bool		deleted;

		EIVacuumDelayPoint();

		if (ei_vacuum_check_free(info, blkno, fence, &deleted))
		{
			RecordFreeIndexPage(rel, blkno);
			stats->pages_free++;
		}
		else
		{
			if (deleted)
			{
				if (npending == maxpending)
				{
					maxpending = Max(64, maxpending * 2);
					pending = pending == NULL ?
						palloc(maxpending * sizeof(BlockNumber)) :
						repalloc(pending, maxpending * sizeof(BlockNumber));
				}
				pending[npending++] = blkno;
			}
			last_used = blkno;
		}
		if (deleted)
			stats->pages_deleted++;
	}

	/* a second chance for deleted pages that were not free yet */
	if (npending > 0)
	{
		XLogRecPtr	newfence = EIAdvanceRecycleFence(rel);

		for (int i = 0; i < npending && newfence > fence; i++)
		{
			bool		deleted;

			if (ei_vacuum_check_free(info, pending[i], newfence, &deleted))
			{
				RecordFreeIndexPage(rel, pending[i]);
				stats->pages_free++;
			}
		}
		pfree(pending);
	}

	IndexFreeSpaceMapVacuum(rel);
	/* tests: others take trailing free pages before we lock (spare pages) */
	EIFaultGate(EI_FAULT_BEFORE_TRUNCATE_GATE, 1);

	/*
	 * Give back trailing free pages.  AccessExclusiveLock waits for no one
	 * here: if any backend uses the index, we simply leave the pages to the
	 * free space map.  Taking it logs the lock for standbys, which needs a
	 * transaction id, so a parallel VACUUM (which cannot assign one) leaves
	 * truncation to a later, serial one.  Between our reading of a page and
	 * the lock, another backend may have put it to use (taken from the map,
	 * or one of its spare pages, src/README.md "Spare pages"), so under the
	 * lock the trailing pages are read again, from the end down, and only
	 * those still free go (as heap's count_nondeletable_pages does).  Every
	 * backend that takes a new page holds a lock on the index, so none can
	 * change while we hold ours, and no scan holds a link to a block past
	 * the end.
	 */
	if (last_used + 1 < nblocks && !IsInParallelMode() &&
		ConditionalLockRelation(rel, AccessExclusiveLock))
	{
		BlockNumber newnblocks = nblocks;
		BlockNumber ndeleted = 0;

		if (RelationGetNumberOfBlocks(rel) == nblocks)
			newnblocks = ei_vacuum_free_tail(info, last_used + 1, nblocks,
											 fence, &ndeleted);
		if (newnblocks < nblocks)
		{
			RelationTruncate(rel, newnblocks);
			/* links past the new end are damage from now on */
			EIGetRelCache(rel)->index_nblocks = newnblocks;
			/* the pass counted every page cut as free, some as deleted */
			stats->pages_free -= nblocks - newnblocks;
			stats->pages_deleted -= ndeleted;
			UnlockRelation(rel, AccessExclusiveLock);
			/* tests: others use the index before we commit (spare pages) */
			EIFaultGate(EI_FAULT_AFTER_TRUNCATE_GATE, 1);
		}
		else
			UnlockRelation(rel, AccessExclusiveLock);
	}
}

/*
 * The new length of the index once its trailing free pages are cut: read
 * blocks nblocks - 1 down to first (the pages the pass found free after the
 * last page in use), stopping at the first one no longer free, and count
 * the deleted pages among those cut in *ndeleted.  A page still free now
 * was free, and deleted or not, when the pass read it: a page put to use
 * since is not free, nor is one deleted since (fence predates its
 * deletion), so the count is the pass's.  The caller holds
 * AccessExclusiveLock on the index.
 */
static BlockNumber
ei_vacuum_free_tail(IndexVacuumInfo *info, BlockNumber first,
					BlockNumber nblocks, XLogRecPtr fence,
					BlockNumber *ndeleted)
{
	BlockNumber end = nblocks;

	*ndeleted = 0;
	while (end > first)
	{
		bool		deleted;

		CHECK_FOR_INTERRUPTS();
		if (!ei_vacuum_check_free(info, end - 1, fence, &deleted))
			break;
		if (deleted)
			(*ndeleted)++;
		end--;
	}
	return end;
}

/*
 * Rewrite the posting lists that lose some TIDs, then remove the items of a
 * cleanup-locked leaf, and WAL-log both in one VACUUM record.
 */
static void
ei_vacuum_delete(Relation rel, Buffer buf, OffsetNumber *deletable,
				 int ndeletable, EIVacuumPosting *updates, int nupdates)
{
	Page		page = BufferGetPage(buf);
	IndexTuple *newtups = NULL;
	char	   *xldata;
	Size		xllen = ndeletable * sizeof(OffsetNumber);

	/*
	 * The rewritten lists and the record's block data (the offsets, then
	 * each list's update and positions), made before the critical section.
	 */
	for (int u = 0; u < nupdates; u++)
		xllen += SizeOfEIVacuumUpdate + updates[u].nremoved * sizeof(uint16);
	xldata = palloc(Max(xllen, 1));
	memcpy(xldata, deletable, ndeletable * sizeof(OffsetNumber));
	xllen = ndeletable * sizeof(OffsetNumber);
	if (nupdates > 0)
		newtups = palloc(sizeof(IndexTuple) * nupdates);
	for (int u = 0; u < nupdates; u++)
	{
		xl_ei_vacuum_update xlupdate;

		newtups[u] = EIPostingRemoveTIDs(EIReadTuple(page, updates[u].offnum),
										 updates[u].removed,
										 updates[u].nremoved);
		xlupdate.offnum = updates[u].offnum;
		xlupdate.nremoved = updates[u].nremoved;
		memcpy(xldata + xllen, &xlupdate, SizeOfEIVacuumUpdate);
		xllen += SizeOfEIVacuumUpdate;
		memcpy(xldata + xllen, updates[u].removed,
			   updates[u].nremoved * sizeof(uint16));
		xllen += updates[u].nremoved * sizeof(uint16);
	}

	START_CRIT_SECTION();

	for (int u = 0; u < nupdates; u++)
		if (!PageIndexTupleOverwrite(page, updates[u].offnum, (Item) newtups[u],
									 IndexTupleSize(newtups[u])))
			elog(PANIC, "failed to rewrite posting list at offset %u of block %u of index \"%s\"",
				 updates[u].offnum, BufferGetBlockNumber(buf),
				 RelationGetRelationName(rel));
	if (ndeletable > 0)
		EIDeleteItems(page, deletable, ndeletable);
	MarkBufferDirty(buf);

	if (RelationNeedsWAL(rel))
	{
		xl_ei_vacuum xlrec;
		XLogRecPtr	recptr;

		xlrec.ndeleted = (uint16) ndeletable;
		xlrec.nupdated = (uint16) nupdates;

		XLogBeginInsert();
		XLogRegisterData((char *) &xlrec, SizeOfEIVacuum);
		XLogRegisterBuffer(0, buf, REGBUF_STANDARD);
		if (xllen > 0)
			XLogRegisterBufData(0, xldata, xllen);
		recptr = XLogInsert(EI_RMGR_ID, XLOG_EI_VACUUM);
		PageSetLSN(page, recptr);
	}

	END_CRIT_SECTION();

	for (int u = 0; u < nupdates; u++)
		pfree(newtups[u]);
	if (newtups != NULL)
		pfree(newtups);
	pfree(xldata);
}
