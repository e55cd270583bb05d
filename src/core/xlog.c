/*-------------------------------------------------------------------------
 *
 * xlog.c
 *	  The elastic_index WAL resource manager: redo, description and masking
 *	  of every record the tree core writes.
 *
 * Redo changes pages through the same functions the primary used
 * (EISplitBuildPages, EIDeleteItems, EIInitMetaPage), so that a standby's
 * pages are byte-identical to the primary's apart from hint bits; rm_mask
 * hides exactly those hints from wal_consistency_checking.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/bufmask.h"
#include "access/xlog_internal.h"
#include "access/xlogutils.h"
#include "bloomfilter.h"
#include "eitree.h"
#include "eitree_xlog.h"
#include "storage/standby.h"
#include "utils/memutils.h"

static MemoryContext ei_redo_cxt = NULL;

/* true once our resource manager is registered (only when preloaded) */
bool		ei_rmgr_registered = false;


/*
 * Return a MAXALIGNed private copy of len bytes of record data.
 */
char *
EIRedoCopyData(const char *data, Size len)
{
	char	   *copy = palloc(MAXALIGN(len));

	memcpy(copy, data, len);
	return copy;
}

/*
 * The main data of a record being replayed, which must hold at least
 * minlen bytes.  Redo checks every length it relies on, in release builds
 * too, and PANICs on a short record rather than copy what lies beyond it
 * (what is a phrase naming the record).
 */
char *
EIRedoGetData(XLogReaderState *record, Size minlen, const char *what)
{
	Size		len = XLogRecGetDataLen(record);

	if (len < minlen)
		elog(PANIC, "elastic_index redo: %s: record length %zu, expected %zu",
			 what, len, minlen);
	return XLogRecGetData(record);
}

/*
 * The data of a block of a record being replayed, *len bytes, which must
 * be at least minlen (a block without data has none).
 */
char *
EIRedoGetBlockData(XLogReaderState *record, uint8 block_id, Size minlen,
				   Size *len, const char *what)
{
	char	   *data = XLogRecGetBlockData(record, block_id, len);

	if (data == NULL)
		*len = 0;
	if (*len < minlen)
		elog(PANIC, "elastic_index redo: %s: block %u data length %zu, expected %zu",
			 what, block_id, *len, minlen);
	return data;
}

/*
 * PANIC unless a length a record carries is exactly the expected one.
 */
void
EIRedoCheckLength(Size len, Size expected, const char *what)
{
	if (len != expected)
		elog(PANIC, "elastic_index redo: %s: record length %zu, expected %zu",
			 what, len, expected);
}

/*
 * The MAXALIGNed size of the index tuple at data, of which avail bytes are
 * left in the record: PANIC unless its header and all of it are there.
 */
Size
EIRedoTupleSize(const char *data, Size avail, const char *what)
{
	IndexTupleData hdr;
	Size		sz;

	if (avail < sizeof(IndexTupleData))
		elog(PANIC, "elastic_index redo: %s: record length %zu, expected %zu",
			 what, avail, sizeof(IndexTupleData));
	memcpy(&hdr, data, sizeof(IndexTupleData));
	sz = MAXALIGN(IndexTupleSize(&hdr));
	if (IndexTupleSize(&hdr) < sizeof(IndexTupleData) || sz > avail)
		elog(PANIC, "elastic_index redo: %s: record length %zu, expected %zu",
			 what, avail, sz);
	return sz;
}

/*
 * Clear the incomplete-split flag of a child page (block id), if it needs redo.
 */
static void
ei_redo_clear_incomplete(XLogReaderState *record, uint8 block_id)
{
	Buffer		buf;

	if (XLogReadBufferForRedo(record, block_id, &buf) == BLK_NEEDS_REDO)
	{
		Page		page = BufferGetPage(buf);

		EIPageGetOpaque(page)->ei_flags &= ~EI_INCOMPLETE_SPLIT;
		PageSetLSN(page, record->EndRecPtr);
		MarkBufferDirty(buf);
	}
	if (BufferIsValid(buf))
		UnlockReleaseBuffer(buf);
}

/*
 * Replay XLOG_EI_INSERT_LEAF and XLOG_EI_INSERT_INNER.
 */
static void
ei_redo_insert(XLogReaderState *record, bool isleaf)
{
	xl_ei_insert *xlrec = (xl_ei_insert *)
		EIRedoGetData(record, SizeOfEIInsert, "insert");
	Buffer		buf;

	/* finish the child first: in normal operation it was locked first too */
	if (!isleaf)
		ei_redo_clear_incomplete(record, 1);

	if (XLogReadBufferForRedo(record, 0, &buf) == BLK_NEEDS_REDO)
	{
		Page		page = BufferGetPage(buf);
		Size		len;
		char	   *data = EIRedoGetBlockData(record, 0, sizeof(IndexTupleData),
											  &len, "insert");
		char	   *itup;

		EIRedoCheckLength(len, EIRedoTupleSize(data, len, "insert"), "insert");
		itup = EIRedoCopyData(data, len);

		/*
		 * A posting split: the list before offnum takes the entry's TID at
		 * postingoff and gives up its last one, which the added item gets.
		 */
		if (isleaf && XLogRecGetDataLen(record) >= SizeOfEIInsertPost &&
			xlrec->postingoff > 0)
		{
			IndexTuple	list;
			IndexTuple	nposting;
			ItemPointerData oldmax;

			if (xlrec->offnum <= FirstOffsetNumber ||
				xlrec->offnum - 1 > PageGetMaxOffsetNumber(page))
				elog(PANIC, "elastic_index redo: insert: no posting list before offset %u",
					 xlrec->offnum);
			list = EIReadTuple(page, xlrec->offnum - 1);
			if (!EITupleIsPosting(list) || EIPostingProblem(list) != NULL ||
				xlrec->postingoff >= EIPostingCount(list))
				elog(PANIC, "elastic_index redo: insert: item %u is no posting list to split at %u",
					 xlrec->offnum - 1, xlrec->postingoff);
			nposting = EIPostingSwap(list, &((IndexTuple) itup)->t_tid,
									 xlrec->postingoff, &oldmax);
			/* as on the primary: a list that takes a TID is not dead */
			EIPostingOverwrite(page, xlrec->offnum - 1, nposting);
			((IndexTuple) itup)->t_tid = oldmax;
		}
		if (PageAddItem(page, (Item) itup, len, xlrec->offnum,
						false, false) == InvalidOffsetNumber)
			elog(PANIC, "elastic_index redo: failed to add item");
		PageSetLSN(page, record->EndRecPtr);
		MarkBufferDirty(buf);
	}
	if (BufferIsValid(buf))
		UnlockReleaseBuffer(buf);
}

/*
 * Replay the dedup form of XLOG_EI_INSERT_MULTI: merge the logged intervals
 * of the leaf into posting lists with EIDedupBuildPage, as the primary did.
 */
static void
ei_redo_dedup(XLogReaderState *record)
{
	xl_ei_insert_multi *xlrec = (xl_ei_insert_multi *)
		EIRedoGetData(record, SizeOfEIInsertMultiDedup, "dedup");
	Buffer		buf;

	EIRedoCheckLength(XLogRecGetDataLen(record), SizeOfEIInsertMultiDedup,
					  "dedup");
	if (xlrec->nitems != 0 || xlrec->nintervals == 0)
		elog(PANIC, "elastic_index redo: dedup: %u items and %u intervals",
			 xlrec->nitems, xlrec->nintervals);

	if (XLogReadBufferForRedo(record, 0, &buf) == BLK_NEEDS_REDO)
	{
		Page		page = BufferGetPage(buf);
		Size		len;
		Size		want = sizeof(EIDedupInterval) * xlrec->nintervals;
		char	   *data = EIRedoGetBlockData(record, 0, want, &len, "dedup");
		EIDedupInterval *intervals;
		Page		newpage;
		const char *problem;

		EIRedoCheckLength(len, want, "dedup: intervals");
		intervals = (EIDedupInterval *) EIRedoCopyData(data, len);
		/* the primary checked its page; redo checks its own before reading */
		problem = EIDedupPageProblem(page);
		newpage = problem != NULL ? NULL :
			EIDedupBuildPage(page, intervals, xlrec->nintervals, &problem);
		if (newpage == NULL)
			elog(PANIC, "elastic_index redo: dedup of block %u: %s",
				 BufferGetBlockNumber(buf), problem);
		PageRestoreTempPage(newpage, page);
		pfree(intervals);
		PageSetLSN(page, record->EndRecPtr);
		MarkBufferDirty(buf);
	}
	if (BufferIsValid(buf))
		UnlockReleaseBuffer(buf);
}

/*
 * Replay XLOG_EI_INSERT_MULTI: add the tuples at their offsets, in order;
 * the longer main data is the dedup form.
 */
static void
ei_redo_insert_multi(XLogReaderState *record)
{
	xl_ei_insert_multi *xlrec = (xl_ei_insert_multi *)
		EIRedoGetData(record, SizeOfEIInsertMulti, "insert multi");
	Buffer		buf;

	if (XLogRecGetDataLen(record) > SizeOfEIInsertMulti)
	{
		ei_redo_dedup(record);
		return;
	}

	if (XLogReadBufferForRedo(record, 0, &buf) == BLK_NEEDS_REDO)
	{
		Page		page = BufferGetPage(buf);
		Size		len;
		char	   *data = EIRedoGetBlockData(record, 0,
											  sizeof(OffsetNumber) * xlrec->nitems,
											  &len, "insert multi");
		OffsetNumber *offsets = (OffsetNumber *) EIRedoCopyData(data,
															  sizeof(OffsetNumber) * xlrec->nitems);
		char	   *tuples = data + sizeof(OffsetNumber) * xlrec->nitems;
		Size		left = len - sizeof(OffsetNumber) * xlrec->nitems;

		for (int i = 0; i < xlrec->nitems; i++)
		{
			Size		sz;
			char	   *itup;

			sz = EIRedoTupleSize(tuples, left, "insert multi");
			itup = EIRedoCopyData(tuples, sz);
			if (PageAddItem(page, (Item) itup, sz, offsets[i],
							false, false) == InvalidOffsetNumber)
				elog(PANIC, "elastic_index redo: failed to add item");
			pfree(itup);
			tuples += sz;
			left -= sz;
		}
		EIRedoCheckLength(left, 0, "insert multi: bytes after the tuples");
		pfree(offsets);
		PageSetLSN(page, record->EndRecPtr);
		MarkBufferDirty(buf);
	}
	if (BufferIsValid(buf))
		UnlockReleaseBuffer(buf);
}

/*
 * The one index tuple that block block_id's data holds, checked and copied
 * to aligned memory.
 */
static IndexTuple
ei_redo_block_tuple(XLogReaderState *record, uint8 block_id, const char *what)
{
	Size		len;
	char	   *data = EIRedoGetBlockData(record, block_id,
										  sizeof(IndexTupleData), &len, what);

	EIRedoCheckLength(len, EIRedoTupleSize(data, len, what), what);
	return (IndexTuple) EIRedoCopyData(data, len);
}

/*
 * Replay a shift (XLOG_EI_SPLIT with EI_XLOG_SPLIT_SHIFT).
 *
 * The three pages are locked left leaf, right leaf, parent, as the primary
 * locked them, and released only after the last one is changed: a
 * standby's scan never sees the left leaf lowered while the right one does
 * not yet hold the moved items, nor a separator that disagrees with them.
 */
static void
ei_redo_shift(XLogReaderState *record, const xl_ei_split *xlrec)
{
	char	   *main = EIRedoGetData(record, SizeOfEISplit + sizeof(OffsetNumber),
									 "shift");
	OffsetNumber poffset;
	Buffer		lbuf;
	Buffer		rbuf;
	Buffer		pbuf;
	Size		len;
	char	   *data;

	memcpy(&poffset, main + SizeOfEISplit, sizeof(OffsetNumber));

	if (XLogReadBufferForRedo(record, 0, &lbuf) == BLK_NEEDS_REDO)
	{
		Page		page = BufferGetPage(lbuf);
		IndexTuple	hikey;

		hikey = ei_redo_block_tuple(record, 0, "shift: left high key");
		EIShiftApplyLeft(page, xlrec->firstrightoff, hikey);
		PageSetLSN(page, record->EndRecPtr);
		MarkBufferDirty(lbuf);
	}
	if (XLogReadBufferForRedo(record, 1, &rbuf) == BLK_NEEDS_REDO)
	{
		Page		page = BufferGetPage(rbuf);

		data = EIRedoGetBlockData(record, 1, sizeof(IndexTupleData), &len,
								  "shift: moved items");
		EIShiftApplyRight(page, EIRedoCopyData(data, len), len);
		PageSetLSN(page, record->EndRecPtr);
		MarkBufferDirty(rbuf);
	}
	if (XLogReadBufferForRedo(record, 2, &pbuf) == BLK_NEEDS_REDO)
	{
		Page		page = BufferGetPage(pbuf);
		IndexTuple	pivot;

		pivot = ei_redo_block_tuple(record, 2, "shift: separator");
		EIShiftApplyParent(page, poffset, pivot);
		PageSetLSN(page, record->EndRecPtr);
		MarkBufferDirty(pbuf);
	}
	if (BufferIsValid(lbuf))
		UnlockReleaseBuffer(lbuf);
	if (BufferIsValid(rbuf))
		UnlockReleaseBuffer(rbuf);
	if (BufferIsValid(pbuf))
		UnlockReleaseBuffer(pbuf);
}

/*
 * Replay XLOG_EI_SPLIT.
 */
static void
ei_redo_split(XLogReaderState *record)
{
	xl_ei_split *xlrec = (xl_ei_split *)
		EIRedoGetData(record, SizeOfEISplit, "split");
	bool		newitemonleft = (xlrec->flags & EI_XLOG_SPLIT_NEWITEM_LEFT) != 0;
	BlockNumber rightblk;
	Buffer		lbuf;
	Buffer		rbuf;

	/*
	 * A flag this build does not know would be replayed as another record:
	 * stop instead (a standby must run a build at least as new as its
	 * primary's).
	 */
	if (xlrec->flags & ~(EI_XLOG_SPLIT_NEWITEM_LEFT | EI_XLOG_SPLIT_SHIFT))
		elog(PANIC, "elastic_index redo: split record with unknown flags 0x%x",
			 xlrec->flags);
	if (xlrec->flags & EI_XLOG_SPLIT_SHIFT)
	{
		ei_redo_shift(record, xlrec);
		return;
	}

	XLogRecGetBlockTag(record, 1, NULL, NULL, &rightblk);

	/* the right page comes whole from its image */
	if (XLogReadBufferForRedo(record, 1, &rbuf) != BLK_RESTORED)
		elog(ERROR, "elastic_index redo: right half of split was not logged as an image");

	if (XLogReadBufferForRedo(record, 0, &lbuf) == BLK_NEEDS_REDO)
	{
		Page		origpage = BufferGetPage(lbuf);
		EIPageOpaque oopaque = EIPageGetOpaque(origpage);
		Size		len;
		char	   *data = EIRedoGetBlockData(record, 0, sizeof(IndexTupleData),
											  &len, "split");
		IndexTuple	newitem = NULL;
		IndexTuple	lefthikey;
		Page		leftpage;
		EIPageOpaque lopaque;
		Size		sz;

		if (newitemonleft)
		{
			sz = EIRedoTupleSize(data, len, "split: new item");
			newitem = (IndexTuple) EIRedoCopyData(data, sz);
			data += sz;
			len -= sz;
		}
		EIRedoCheckLength(len, EIRedoTupleSize(data, len, "split: left high key"),
						  "split: left high key");
		lefthikey = (IndexTuple) EIRedoCopyData(data, len);

		leftpage = PageGetTempPage(origpage);
		EISplitBuildPages(NULL, origpage, xlrec->firstrightoff,
						  xlrec->newitemoff, newitem, newitemonleft,
						  lefthikey, leftpage, NULL);
		lopaque = EIPageGetOpaque(leftpage);
		lopaque->ei_prev = oopaque->ei_prev;
		lopaque->ei_next = rightblk;

		PageRestoreTempPage(leftpage, origpage);
		PageSetLSN(origpage, record->EndRecPtr);
		MarkBufferDirty(lbuf);
	}

	/*
	 * Hold the halves locked until the old right sibling's left link points
	 * to the new page too, as the primary held all three: a standby's
	 * backward scan never sees that link lead past a half.
	 */
	if (XLogRecHasBlockRef(record, 2))
		EIRedoSetLeftLink(record, 2, rightblk);
	if (BufferIsValid(lbuf))
		UnlockReleaseBuffer(lbuf);
	UnlockReleaseBuffer(rbuf);

	if (XLogRecHasBlockRef(record, 3))
		ei_redo_clear_incomplete(record, 3);
}

/*
 * Replay the change of a split page's right sibling: its left link now
 * points to leftblk, the new page in between.
 */
void
EIRedoSetLeftLink(XLogReaderState *record, uint8 block_id,
				  BlockNumber leftblk)
{
	Buffer		sbuf;

	if (XLogReadBufferForRedo(record, block_id, &sbuf) == BLK_NEEDS_REDO)
	{
		Page		spage = BufferGetPage(sbuf);

		EIPageGetOpaque(spage)->ei_prev = leftblk;
		PageSetLSN(spage, record->EndRecPtr);
		MarkBufferDirty(sbuf);
	}
	if (BufferIsValid(sbuf))
		UnlockReleaseBuffer(sbuf);
}

/*
 * Replay XLOG_EI_NEWROOT and XLOG_EI_META: the metapage is rewritten whole.
 */
void
EIRedoMetapage(XLogReaderState *record, uint8 block_id)
{
	Buffer		metabuf = XLogInitBufferForRedo(record, block_id);
	Page		metapage = BufferGetPage(metabuf);
	Size		len;
	char	   *data = EIRedoGetBlockData(record, block_id, 0, &len, "metapage");
	xl_ei_metadata md;

	EIRedoCheckLength(len, sizeof(xl_ei_metadata), "metapage");
	memcpy(&md, data, sizeof(xl_ei_metadata));
	EIInitMetaPage(metapage, md.am_kind, md.root, md.level, md.fillfactor);
	memcpy(EIPageGetMeta(metapage), &md, sizeof(xl_ei_metadata));
	PageSetLSN(metapage, record->EndRecPtr);
	MarkBufferDirty(metabuf);
	UnlockReleaseBuffer(metabuf);
}

/*
 * Replay XLOG_EI_NEWROOT.
 */
static void
ei_redo_newroot(XLogReaderState *record)
{
	Buffer		rootbuf;

	if (XLogReadBufferForRedo(record, 0, &rootbuf) != BLK_RESTORED)
		elog(ERROR, "elastic_index redo: new root was not logged as an image");

	ei_redo_clear_incomplete(record, 1);
	EIRedoMetapage(record, 2);
	UnlockReleaseBuffer(rootbuf);
}

/*
 * Remove the leaf items whose offsets block 0 carries (VACUUM and DELETE).
 *
 * VACUUM's removal takes a cleanup lock, as VACUUM itself did, so that no
 * standby scan paused on the page loses entries it has yet to return.
 */
static void
ei_redo_remove_items(XLogReaderState *record, uint16 ndeleted,
					 bool cleanup_lock)
{
	Buffer		buf;

	if (XLogReadBufferForRedoExtended(record, 0, RBM_NORMAL, cleanup_lock,
									  &buf) == BLK_NEEDS_REDO)
	{
		Page		page = BufferGetPage(buf);
		Size		len;
		char	   *data = EIRedoGetBlockData(record, 0, 0, &len, "item removal");
		OffsetNumber *offs;

		EIRedoCheckLength(len, ndeleted * sizeof(OffsetNumber), "item removal");
		offs = (OffsetNumber *) EIRedoCopyData(data, len);
		EIDeleteItems(page, offs, ndeleted);
		PageSetLSN(page, record->EndRecPtr);
		MarkBufferDirty(buf);
	}
	if (BufferIsValid(buf))
		UnlockReleaseBuffer(buf);
}

/*
 * Replay XLOG_EI_VACUUM: rewrite the posting lists that lost TIDs, then
 * remove the items, under a cleanup lock.  A record written before posting
 * lists ends before nupdated.
 */
static void
ei_redo_vacuum(XLogReaderState *record)
{
	char	   *main = EIRedoGetData(record, SizeOfEIVacuumV1, "vacuum");
	xl_ei_vacuum xlrec;
	Buffer		buf;

	xlrec.nupdated = 0;
	memcpy(&xlrec, main, Min(XLogRecGetDataLen(record), SizeOfEIVacuum));
	if (xlrec.nupdated == 0)
	{
		ei_redo_remove_items(record, xlrec.ndeleted, true);
		return;
	}

	if (XLogReadBufferForRedoExtended(record, 0, RBM_NORMAL, true,
									  &buf) == BLK_NEEDS_REDO)
	{
		Page		page = BufferGetPage(buf);
		Size		len;
		char	   *data = EIRedoGetBlockData(record, 0, 0, &len, "vacuum");
		char	   *copy = EIRedoCopyData(data, len);
		Size		pos = xlrec.ndeleted * sizeof(OffsetNumber);

		if (pos > len)
			EIRedoCheckLength(len, pos, "vacuum");
		for (int u = 0; u < xlrec.nupdated; u++)
		{
			xl_ei_vacuum_update upd;
			uint16	   *removed;
			IndexTuple	itup;
			IndexTuple	newtup;

			if (pos + SizeOfEIVacuumUpdate > len)
				EIRedoCheckLength(len, pos + SizeOfEIVacuumUpdate, "vacuum");
			memcpy(&upd, copy + pos, SizeOfEIVacuumUpdate);
			pos += SizeOfEIVacuumUpdate;
			if (pos + upd.nremoved * sizeof(uint16) > len)
				EIRedoCheckLength(len, pos + upd.nremoved * sizeof(uint16), "vacuum");
			removed = (uint16 *) (copy + pos);
			pos += upd.nremoved * sizeof(uint16);

			if (upd.offnum < FirstOffsetNumber ||
				upd.offnum > PageGetMaxOffsetNumber(page))
				elog(PANIC, "elastic_index redo: vacuum: offset %u past the page's %u items",
					 upd.offnum, (unsigned) PageGetMaxOffsetNumber(page));
			itup = EIReadTuple(page, upd.offnum);
			if (!EITupleIsPosting(itup) || upd.nremoved == 0 ||
				upd.nremoved >= EIPostingCount(itup))
				elog(PANIC, "elastic_index redo: vacuum: item %u is no posting list that can lose %u TIDs",
					 upd.offnum, upd.nremoved);
			for (int r = 0; r < upd.nremoved; r++)
				if (removed[r] >= EIPostingCount(itup) ||
					(r > 0 && removed[r] <= removed[r - 1]))
					elog(PANIC, "elastic_index redo: vacuum: bad TID position %u of item %u",
						 removed[r], upd.offnum);
			newtup = EIPostingRemoveTIDs(itup, removed, upd.nremoved);
			if (!PageIndexTupleOverwrite(page, upd.offnum, (Item) newtup,
										 IndexTupleSize(newtup)))
				elog(PANIC, "elastic_index redo: vacuum: failed to rewrite item %u",
					 upd.offnum);
			pfree(newtup);
		}
		EIRedoCheckLength(len, pos, "vacuum");
		if (xlrec.ndeleted > 0)
			EIDeleteItems(page, (OffsetNumber *) copy, xlrec.ndeleted);
		PageSetLSN(page, record->EndRecPtr);
		MarkBufferDirty(buf);
	}
	if (BufferIsValid(buf))
		UnlockReleaseBuffer(buf);
}

/*
 * Replay XLOG_EI_DELETE: first cancel standby queries that could still see
 * the removed tuples, then remove the items.
 */
static void
ei_redo_delete(XLogReaderState *record)
{
	xl_ei_delete *xlrec = (xl_ei_delete *)
		EIRedoGetData(record, SizeOfEIDeleteV1, "delete");

	if (InHotStandby)
	{
		EIRelFileLocator loc;
		bool		isCatalogRel = false;

		if (XLogRecGetDataLen(record) >= SizeOfEIDelete)
			isCatalogRel = xlrec->isCatalogRel;
		XLogRecGetBlockTag(record, 0, &loc, NULL, NULL);
		EIResolveConflictWithSnapshot(xlrec->latestRemovedXid, isCatalogRel,
									  loc);
	}
	ei_redo_remove_items(record, xlrec->ndeleted, false);
}

/*
 * Replay XLOG_EI_MARK_HALFDEAD.
 */
static void
ei_redo_mark_halfdead(XLogReaderState *record)
{
	xl_ei_mark_halfdead *xlrec = (xl_ei_mark_halfdead *)
		EIRedoGetData(record, SizeOfEIMarkHalfdead, "mark half-dead");
	Buffer		buf;
	uint8		block_id;

	/* the leaf was locked first on the primary */
	if (XLogReadBufferForRedo(record, 0, &buf) == BLK_NEEDS_REDO)
	{
		Page		page = BufferGetPage(buf);

		EIPageMarkHalfDead(page, NULL, InvalidOffsetNumber, InvalidBlockNumber,
						   xlrec->topparent);
		PageSetLSN(page, record->EndRecPtr);
		MarkBufferDirty(buf);
	}
	if (BufferIsValid(buf))
		UnlockReleaseBuffer(buf);

	for (block_id = 2; block_id <= 3; block_id++)
	{
		if (!XLogRecHasBlockRef(record, block_id))
			continue;
		if (XLogReadBufferForRedo(record, block_id, &buf) == BLK_NEEDS_REDO)
		{
			Page		page = BufferGetPage(buf);

			EIPageGetOpaque(page)->ei_flags |= EI_HALF_DEAD;
			PageSetLSN(page, record->EndRecPtr);
			MarkBufferDirty(buf);
		}
		if (BufferIsValid(buf))
			UnlockReleaseBuffer(buf);
	}

	if (XLogReadBufferForRedo(record, 1, &buf) == BLK_NEEDS_REDO)
	{
		Page		ppage = BufferGetPage(buf);

		EIPageMarkHalfDead(NULL, ppage, xlrec->poffset, xlrec->rightblk,
						   InvalidBlockNumber);
		PageSetLSN(ppage, record->EndRecPtr);
		MarkBufferDirty(buf);
	}
	if (BufferIsValid(buf))
		UnlockReleaseBuffer(buf);
}

/*
 * Replay XLOG_EI_UNLINK_PAGE: siblings left to right, as the primary locked.
 */
static void
ei_redo_unlink_page(XLogReaderState *record)
{
	xl_ei_unlink_page *xlrec = (xl_ei_unlink_page *)
		EIRedoGetData(record, SizeOfEIUnlinkPage, "unlink page");
	Buffer		lbuf = InvalidBuffer;
	Buffer		tbuf;
	Buffer		rbuf;

	if (XLogRecHasBlockRef(record, 0) &&
		XLogReadBufferForRedo(record, 0, &lbuf) == BLK_NEEDS_REDO)
	{
		Page		page = BufferGetPage(lbuf);

		EIPageGetOpaque(page)->ei_next = xlrec->rightblk;
		PageSetLSN(page, record->EndRecPtr);
		MarkBufferDirty(lbuf);
	}

	tbuf = XLogInitBufferForRedo(record, 1);
	EIPageSetDeleted(BufferGetPage(tbuf), xlrec->leftblk, xlrec->rightblk,
					 xlrec->level, xlrec->safexid);
	PageSetLSN(BufferGetPage(tbuf), record->EndRecPtr);
	MarkBufferDirty(tbuf);

	if (XLogReadBufferForRedo(record, 2, &rbuf) == BLK_NEEDS_REDO)
	{
		Page		page = BufferGetPage(rbuf);

		EIPageGetOpaque(page)->ei_prev = xlrec->leftblk;
		PageSetLSN(page, record->EndRecPtr);
		MarkBufferDirty(rbuf);
	}

	if (XLogRecHasBlockRef(record, 3))
	{
		Buffer		leafbuf;

		if (XLogReadBufferForRedo(record, 3, &leafbuf) == BLK_NEEDS_REDO)
		{
			Page		page = BufferGetPage(leafbuf);

			EITupleSetDownlink(EIReadTuple(page, EI_HIKEY), xlrec->leaftopparent);
			PageSetLSN(page, record->EndRecPtr);
			MarkBufferDirty(leafbuf);
		}
		if (BufferIsValid(leafbuf))
			UnlockReleaseBuffer(leafbuf);
	}

	if (BufferIsValid(rbuf))
		UnlockReleaseBuffer(rbuf);
	UnlockReleaseBuffer(tbuf);
	if (BufferIsValid(lbuf))
		UnlockReleaseBuffer(lbuf);
}

/*
 * Replay XLOG_EI_REUSE_PAGE: only a recovery conflict, no page change.
 */
static void
ei_redo_reuse_page(XLogReaderState *record)
{
	xl_ei_reuse_page *xlrec = (xl_ei_reuse_page *)
		EIRedoGetData(record, SizeOfEIReusePageV1, "reuse page");

	if (InHotStandby)
		EIResolveConflictWithSnapshotFullXid(xlrec->safexid,
											 XLogRecGetDataLen(record) >= SizeOfEIReusePage &&
											 xlrec->isCatalogRel,
											 xlrec->node);
}

/*
 * Redo one record of our resource manager.
 */
void
ei_redo(XLogReaderState *record)
{
	uint8		info = XLogRecGetInfo(record) & ~XLR_INFO_MASK;
	MemoryContext oldcxt;

	if (ei_redo_cxt == NULL)
		ei_redo_cxt = AllocSetContextCreate(TopMemoryContext,
											"elastic_index redo",
											ALLOCSET_DEFAULT_SIZES);
	oldcxt = MemoryContextSwitchTo(ei_redo_cxt);

	switch (info)
	{
		case XLOG_EI_INSERT_LEAF:
			ei_redo_insert(record, true);
			break;
		case XLOG_EI_INSERT_INNER:
			ei_redo_insert(record, false);
			break;
		case XLOG_EI_SPLIT:
			ei_redo_split(record);
			break;
		case XLOG_EI_NEWROOT:
			ei_redo_newroot(record);
			break;
		case XLOG_EI_VACUUM:
			ei_redo_vacuum(record);
			break;
		case XLOG_EI_META:
			EIRedoMetapage(record, 0);
			break;
		case XLOG_EI_DELETE:
			ei_redo_delete(record);
			break;
		case XLOG_EI_MARK_HALFDEAD:
			ei_redo_mark_halfdead(record);
			break;
		case XLOG_EI_UNLINK_PAGE:
			ei_redo_unlink_page(record);
			break;
		case XLOG_EI_REUSE_PAGE:
			ei_redo_reuse_page(record);
			break;
		case XLOG_EI_INSERT_MULTI:
			ei_redo_insert_multi(record);
			break;
		default:
			{
				const EIRecordKind *kind = EIGetRecordKind(info);

				if (kind == NULL)
					elog(PANIC, "elastic_index redo: unknown op code %u", info);
				kind->redo(record);
				break;
			}
	}

	MemoryContextSwitchTo(oldcxt);
	MemoryContextReset(ei_redo_cxt);
}

/*
 * Describe a record for pg_waldump and error contexts.
 */
void
ei_desc(StringInfo buf, XLogReaderState *record)
{
	char	   *rec = XLogRecGetData(record);
	uint8		info = XLogRecGetInfo(record) & ~XLR_INFO_MASK;

	switch (info)
	{
		case XLOG_EI_INSERT_LEAF:
		case XLOG_EI_INSERT_INNER:
			appendStringInfo(buf, "off: %u", ((xl_ei_insert *) rec)->offnum);
			if (XLogRecGetDataLen(record) >= SizeOfEIInsertPost)
				appendStringInfo(buf, ", postingoff: %u",
								 ((xl_ei_insert *) rec)->postingoff);
			break;
		case XLOG_EI_SPLIT:
			{
				xl_ei_split *xlrec = (xl_ei_split *) rec;

				if (xlrec->flags & EI_XLOG_SPLIT_SHIFT)
				{
					appendStringInfo(buf, "shift: firstmovedoff: %u",
									 xlrec->firstrightoff);
					break;
				}
				appendStringInfo(buf, "level: %u, firstrightoff: %u, newitemoff: %u, newitem on %s",
								 xlrec->level, xlrec->firstrightoff,
								 xlrec->newitemoff,
								 (xlrec->flags & EI_XLOG_SPLIT_NEWITEM_LEFT) ?
								 "left" : "right");
				break;
			}
		case XLOG_EI_NEWROOT:
			appendStringInfo(buf, "level: %u", ((xl_ei_newroot *) rec)->level);
			break;
		case XLOG_EI_VACUUM:
			appendStringInfo(buf, "ndeleted: %u, nupdated: %u",
							 ((xl_ei_vacuum *) rec)->ndeleted,
							 XLogRecGetDataLen(record) >= SizeOfEIVacuum ?
							 ((xl_ei_vacuum *) rec)->nupdated : 0);
			break;
		case XLOG_EI_META:
			{
				Size		len;
				char	   *data = XLogRecGetBlockData(record, 0, &len);

				if (data != NULL && len == sizeof(xl_ei_metadata))
				{
					xl_ei_metadata md;

					memcpy(&md, data, sizeof(xl_ei_metadata));
					appendStringInfo(buf, "root: %u, level: %u, recycle_fence: %X/%X",
									 md.root, md.level,
									 LSN_FORMAT_ARGS(md.recycle_fence));
				}
				break;
			}
		case XLOG_EI_DELETE:
			{
				xl_ei_delete *xlrec = (xl_ei_delete *) rec;

				appendStringInfo(buf, "latestRemovedXid: %u, ndeleted: %u",
								 xlrec->latestRemovedXid, xlrec->ndeleted);
				if (XLogRecGetDataLen(record) >= SizeOfEIDelete)
					appendStringInfo(buf, ", isCatalogRel: %c",
									 xlrec->isCatalogRel ? 'T' : 'F');
				break;
			}
		case XLOG_EI_MARK_HALFDEAD:
			{
				xl_ei_mark_halfdead *xlrec = (xl_ei_mark_halfdead *) rec;

				appendStringInfo(buf, "poffset: %u, rightblk: %u, topparent: %u",
								 xlrec->poffset, xlrec->rightblk, xlrec->topparent);
				break;
			}
		case XLOG_EI_UNLINK_PAGE:
			{
				xl_ei_unlink_page *xlrec = (xl_ei_unlink_page *) rec;

				appendStringInfo(buf, "leftblk: %u, rightblk: %u, level: %u, leaftopparent: %u, safexid: %u:%u",
								 xlrec->leftblk, xlrec->rightblk, xlrec->level,
								 xlrec->leaftopparent,
								 EpochFromFullTransactionId(xlrec->safexid),
								 XidFromFullTransactionId(xlrec->safexid));
				break;
			}
		case XLOG_EI_INSERT_MULTI:
			if (XLogRecGetDataLen(record) >= SizeOfEIInsertMultiDedup)
				appendStringInfo(buf, "dedup: nintervals %u",
								 ((xl_ei_insert_multi *) rec)->nintervals);
			else
				appendStringInfo(buf, "nitems: %u",
								 ((xl_ei_insert_multi *) rec)->nitems);
			break;
		case XLOG_EI_REUSE_PAGE:
			{
				xl_ei_reuse_page *xlrec = (xl_ei_reuse_page *) rec;

				appendStringInfo(buf, "rel: %u/%u/%u, block: %u, safexid: %u:%u",
								 EIRelFileSpc(xlrec->node),
								 EIRelFileDb(xlrec->node),
								 EIRelFileNumber(xlrec->node), xlrec->block,
								 EpochFromFullTransactionId(xlrec->safexid),
								 XidFromFullTransactionId(xlrec->safexid));
				if (XLogRecGetDataLen(record) >= SizeOfEIReusePage)
					appendStringInfo(buf, ", isCatalogRel: %c",
									 xlrec->isCatalogRel ? 'T' : 'F');
				break;
			}
		default:
			{
				const EIRecordKind *kind = EIGetRecordKind(info);

				if (kind != NULL && kind->desc != NULL)
					kind->desc(buf, record);
				break;
			}
	}
}

/*
 * Name a record type.
 */
const char *
ei_identify(uint8 info)
{
	switch (info & ~XLR_INFO_MASK)
	{
		case XLOG_EI_INSERT_LEAF:
			return "INSERT_LEAF";
		case XLOG_EI_INSERT_INNER:
			return "INSERT_INNER";
		case XLOG_EI_SPLIT:
			return "SPLIT";
		case XLOG_EI_NEWROOT:
			return "NEWROOT";
		case XLOG_EI_VACUUM:
			return "VACUUM";
		case XLOG_EI_META:
			return "META";
		case XLOG_EI_DELETE:
			return "DELETE";
		case XLOG_EI_MARK_HALFDEAD:
			return "MARK_HALFDEAD";
		case XLOG_EI_UNLINK_PAGE:
			return "UNLINK_PAGE";
		case XLOG_EI_REUSE_PAGE:
			return "REUSE_PAGE";
		case XLOG_EI_INSERT_MULTI:
			return "INSERT_MULTI";
		default:
			{
				const EIRecordKind *kind = EIGetRecordKind(info & ~XLR_INFO_MASK);

				return kind ? kind->name : NULL;
			}
	}
	return NULL;
}

/*
 * Mask the parts of a page that may legitimately differ between primary and
 * standby: LSN, checksum, hint bits, unused space, and the LP_DEAD hints
 * (with the EI_HAS_GARBAGE flag that summarizes them), and the EI_ACCESSED
 * hint.
 */
void
ei_mask(char *pagedata, BlockNumber blkno)
{
	Page		page = (Page) pagedata;
	EIPageOpaque opaque;

	mask_page_lsn_and_checksum(page);
	mask_page_hint_bits(page);
	mask_unused_space(page);

	/*
	 * On a policy's leaf everything past the line pointers is the policy's
	 * image, whose bytes must match exactly (the elastic policy's SeqTree).
	 */
	opaque = EIPageGetOpaque(page);
	if (EI_IS_LEAF(opaque) && !(opaque->ei_flags & EI_POLICY_LEAF))
		mask_lp_flags(page);
	opaque->ei_flags &= ~(EI_HAS_GARBAGE | EI_ACCESSED);
}

/*
 * Register the resource manager; only possible while preloading.
 */
void
EIRmgrRegister(void)
{
	static RmgrData ei_rmgr = {
		.rm_name = EI_RMGR_NAME,
		.rm_redo = ei_redo,
		.rm_desc = ei_desc,
		.rm_identify = ei_identify,
		.rm_startup = NULL,
		.rm_cleanup = NULL,
		.rm_mask = ei_mask,
		.rm_decode = NULL
	};

	RegisterCustomRmgr(EI_RMGR_ID, &ei_rmgr);
	ei_rmgr_registered = true;
}

/*
 * Error out unless the library was preloaded: only then is our resource
 * manager registered, and WAL written with it replayable.
 */
void
EICheckPreloaded(void)
{
	if (!ei_rmgr_registered)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("elastic_index must be loaded via shared_preload_libraries"),
				 errdetail("Its indexes write WAL records that only a preloaded library can replay."),
				 errhint("Add elastic_index to shared_preload_libraries in postgresql.conf "
						 "(or ALTER SYSTEM SET shared_preload_libraries = 'elastic_index') "
						 "and restart the server.")));
}

/*
 * Is this info code one of the core's record kinds (which no policy may
 * claim)?
 */
bool
EIIsCoreRecord(uint8 info)
{
	switch (info & ~XLR_INFO_MASK)
	{
		case XLOG_EI_INSERT_LEAF:
		case XLOG_EI_INSERT_INNER:
		case XLOG_EI_SPLIT:
		case XLOG_EI_NEWROOT:
		case XLOG_EI_VACUUM:
		case XLOG_EI_META:
		case XLOG_EI_DELETE:
		case XLOG_EI_MARK_HALFDEAD:
		case XLOG_EI_UNLINK_PAGE:
		case XLOG_EI_REUSE_PAGE:
		case XLOG_EI_INSERT_MULTI:
			return true;
	}
	return false;
}
