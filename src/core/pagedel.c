/*-------------------------------------------------------------------------
 *
 * pagedel.c
 *	  Deleting empty leaf pages and recycling them.
 *
 * VACUUM deletes an empty leaf in two WAL-logged steps, as nbtree does.
 * Step 1 (MARK_HALFDEAD) removes the leaf's downlink: in the parent, the
 * downlink to the leaf is redirected to the leaf's right sibling and the
 * right sibling's own downlink is removed, so the right sibling takes over
 * the leaf's key space; the leaf is flagged EI_HALF_DEAD.  Step 2
 * (UNLINK_PAGE) takes the leaf out of the sibling chain and flags it
 * EI_DELETED, stamping it with the next transaction id (safexid).  A crash
 * between the steps leaves a half-dead leaf in the chain, which readers
 * skip and the next VACUUM unlinks.
 *
 * The deleted page keeps its sibling links so that a scan that was about to
 * step onto it can still move on.  It is given out again (through the free
 * space map) only once safexid is older than every running transaction's
 * snapshot horizon: no scan that could have seen a link to the page is left.
 *
 * Only leaves are deleted, and only a leaf whose right sibling has the same
 * parent, so parents never lose their last downlink.  See src/README.md.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/transam.h"
#include "access/xloginsert.h"
#include "eitree.h"
#include "eitree_xlog.h"
#include "miscadmin.h"
#include "utils/snapmgr.h"

/* debug fault injection for crash tests (elastic_index.debug_fault) */
int			ei_debug_fault = EI_FAULT_NONE;

/*
 * Raise an error at a named step of page deletion when asked to by the
 * superuser-only debug GUC, so that tests can stop between WAL records.
 */
static void
ei_fault_point(int point)
{
	if (ei_debug_fault == point)
		ereport(ERROR,
				(errcode(ERRCODE_INTERNAL_ERROR),
				 errmsg("elastic_index: fault injected at step %d of page deletion",
						point)));
}

/*
 * Turn a page into a deleted page: no items but the safexid stamp, sibling
 * links kept.  Used by UNLINK_PAGE and its redo.
 */
void
EIPageSetDeleted(Page page, BlockNumber prev, BlockNumber next, uint32 level,
				 FullTransactionId safexid)
{
	EIPageOpaque opaque;

	EIInitPage(page, EI_DELETED | (level == 0 ? EI_LEAF : 0), level);
	opaque = EIPageGetOpaque(page);
	opaque->ei_prev = prev;
	opaque->ei_next = next;
	if (PageAddItem(page, (Item) &safexid, sizeof(FullTransactionId),
					FirstOffsetNumber, false, false) == InvalidOffsetNumber)
		elog(ERROR, "could not stamp deleted page");
}

/*
 * Return the safexid stamped on a deleted page.
 */
FullTransactionId
EIPageGetSafeXid(Page page)
{
	FullTransactionId safexid;

	memcpy(&safexid, PageGetItem(page, PageGetItemId(page, FirstOffsetNumber)),
		   sizeof(FullTransactionId));
	return safexid;
}

/*
 * May this page be handed out again?  New (all-zero) pages always; deleted
 * pages once no snapshot can still lead a scan to them.
 */
bool
EIPageIsRecyclable(Page page)
{
	if (PageIsNew(page))
		return true;
	if (!(EIPageGetOpaque(page)->ei_flags & EI_DELETED))
		return false;
	return GlobalVisCheckRemovableFullXid(NULL, EIPageGetSafeXid(page));
}

/*
 * In a parent, hand the key space of the child at poff to its right
 * sibling: redirect the downlink at poff, drop the pivot after it.  Used by
 * MARK_HALFDEAD and its redo.
 */
void
EIPageRemoveDownlink(Page ppage, OffsetNumber poff, BlockNumber rightblk)
{
	IndexTuple	itup = EIReadTuple(ppage, poff);

	EITupleSetDownlink(itup, rightblk);
	PageIndexTupleDelete(ppage, OffsetNumberNext(poff));
}

/*
 * Find the parent page holding the downlink to a leaf, by descending with
 * the leaf's high key to level 1; returns it write-locked, or InvalidBuffer.
 */
static Buffer
ei_find_leaf_parent(Relation rel, Page leafpage, BlockNumber leafblk,
					OffsetNumber *poff)
{
	IndexTuple	hikey = EIReadTuple(leafpage, EI_HIKEY);
	EIScanInsert key = EIMakeScanKey(rel, hikey, false);
	EIStackData stack;
	Buffer		buf;
	Buffer		pbuf;

	buf = EIGetRoot(rel, EI_READ, false);
	for (;;)
	{
		Page		page;
		EIPageOpaque opaque;
		OffsetNumber off;

		buf = EIMoveRight(rel, key, buf, false, NULL, EI_READ);
		page = BufferGetPage(buf);
		opaque = EIPageGetOpaque(page);
		if (opaque->ei_level < 1)
		{
			/* the root is a leaf (a root split is still unfinished) */
			EIRelBuf(rel, buf);
			pfree(key);
			return InvalidBuffer;
		}
		off = EIBinSearch(rel, key, page);
		if (opaque->ei_level == 1)
		{
			stack.blkno = BufferGetBlockNumber(buf);
			stack.offset = off;
			stack.parent = NULL;
			EIRelBuf(rel, buf);
			break;
		}
		buf = EIRelAndGetBuf(rel, buf,
							 EITupleGetDownlink(EIReadTuple(page, off)), EI_READ);
	}
	pfree(key);

	pbuf = EIGetParentBuf(rel, &stack, leafblk);
	*poff = stack.offset;
	return pbuf;
}

/*
 * Delete an empty leaf that VACUUM holds locked.  Always releases leafbuf.
 * Returns true if the page was deleted (or at least made half-dead).
 */
bool
EIPageDelete(Relation rel, Buffer leafbuf)
{
	Page		page = BufferGetPage(leafbuf);
	EIPageOpaque opaque = EIPageGetOpaque(page);
	BlockNumber leafblk = BufferGetBlockNumber(leafbuf);
	BlockNumber rightblk = opaque->ei_next;
	Buffer		pbuf;
	Page		ppage;
	OffsetNumber poff;

	/* never the rightmost leaf, the root, or a page with entries */
	if (!EI_IS_LEAF(opaque) || EI_RIGHTMOST(opaque) || EI_IS_ROOT(opaque) ||
		EI_IGNORE(opaque) || EI_INCOMPLETE(opaque) ||
		PageGetMaxOffsetNumber(page) >= EI_FIRST_DATA(opaque))
	{
		EIRelBuf(rel, leafbuf);
		return false;
	}

	/*
	 * Lock the parent while holding the leaf: locks go upward, as in
	 * insertion.  The leaf must not be its parent's last downlink, and the
	 * next downlink must be its right sibling, or we leave it alone.
	 */
	pbuf = ei_find_leaf_parent(rel, page, leafblk, &poff);
	if (!BufferIsValid(pbuf))
	{
		EIRelBuf(rel, leafbuf);
		return false;
	}
	ppage = BufferGetPage(pbuf);
	if (poff >= PageGetMaxOffsetNumber(ppage) ||
		EITupleGetDownlink(EIReadTuple(ppage, OffsetNumberNext(poff))) != rightblk)
	{
		EIRelBuf(rel, pbuf);
		EIRelBuf(rel, leafbuf);
		return false;
	}

	START_CRIT_SECTION();

	EIPageRemoveDownlink(ppage, poff, rightblk);
	opaque->ei_flags |= EI_HALF_DEAD;
	MarkBufferDirty(pbuf);
	MarkBufferDirty(leafbuf);

	if (RelationNeedsWAL(rel))
	{
		xl_ei_mark_halfdead xlrec;
		XLogRecPtr	recptr;

		xlrec.poffset = poff;
		xlrec.rightblk = rightblk;
		XLogBeginInsert();
		XLogRegisterData((char *) &xlrec, SizeOfEIMarkHalfdead);
		XLogRegisterBuffer(0, leafbuf, REGBUF_STANDARD);
		XLogRegisterBuffer(1, pbuf, REGBUF_STANDARD);
		recptr = XLogInsert(EI_RMGR_ID, XLOG_EI_MARK_HALFDEAD);
		PageSetLSN(page, recptr);
		PageSetLSN(ppage, recptr);
	}

	END_CRIT_SECTION();

	EIRelBuf(rel, pbuf);
	EIRelBuf(rel, leafbuf);

	ei_fault_point(EI_FAULT_AFTER_HALFDEAD);

	EIUnlinkHalfDead(rel, leafblk);
	return true;
}

/*
 * Unlink a half-dead leaf from its siblings and mark it deleted (step 2).
 *
 * Locks go left to right: left sibling, target, right sibling.  The left
 * sibling may have split since the target was read, so we walk right from
 * the remembered one until we find the page that links to the target.
 */
void
EIUnlinkHalfDead(Relation rel, BlockNumber target)
{
	Buffer		lbuf = InvalidBuffer;
	Buffer		tbuf;
	Buffer		rbuf;
	Page		tpage;
	EIPageOpaque topaque;
	BlockNumber leftblk;
	BlockNumber rightblk;
	uint32		level;
	FullTransactionId safexid;

	tbuf = EIGetBuf(rel, target, EI_READ);
	topaque = EIPageGetOpaque(BufferGetPage(tbuf));
	if (!(topaque->ei_flags & EI_HALF_DEAD))
	{
		EIRelBuf(rel, tbuf);
		return;
	}
	leftblk = topaque->ei_prev;
	EIRelBuf(rel, tbuf);

	if (BlockNumberIsValid(leftblk))
	{
		lbuf = EIGetBuf(rel, leftblk, EI_WRITE);
		for (;;)
		{
			EIPageOpaque lopaque = EIPageGetOpaque(BufferGetPage(lbuf));

			if (lopaque->ei_next == target)
				break;
			if (EI_RIGHTMOST(lopaque))
				ereport(ERROR,
						(errcode(ERRCODE_INDEX_CORRUPTED),
						 errmsg("left sibling of block %u not found in index \"%s\"",
								target, RelationGetRelationName(rel))));
			leftblk = lopaque->ei_next;
			lbuf = EIRelAndGetBuf(rel, lbuf, leftblk, EI_WRITE);
		}
	}

	tbuf = EIGetBuf(rel, target, EI_WRITE);
	tpage = BufferGetPage(tbuf);
	topaque = EIPageGetOpaque(tpage);
	if (!(topaque->ei_flags & EI_HALF_DEAD) || topaque->ei_prev != leftblk)
		ereport(ERROR,
				(errcode(ERRCODE_INDEX_CORRUPTED),
				 errmsg("half-dead block %u changed while being unlinked in index \"%s\"",
						target, RelationGetRelationName(rel))));
	rightblk = topaque->ei_next;
	level = topaque->ei_level;

	rbuf = EIGetBuf(rel, rightblk, EI_WRITE);
	if (EIPageGetOpaque(BufferGetPage(rbuf))->ei_prev != target)
		ereport(ERROR,
				(errcode(ERRCODE_INDEX_CORRUPTED),
				 errmsg("right sibling's left-link doesn't match: block %u links to %u instead of expected %u in index \"%s\"",
						rightblk,
						EIPageGetOpaque(BufferGetPage(rbuf))->ei_prev,
						target, RelationGetRelationName(rel))));

	/* no snapshot taken from now on can reach the page through a link */
	safexid = ReadNextFullTransactionId();

	START_CRIT_SECTION();

	if (BufferIsValid(lbuf))
	{
		EIPageGetOpaque(BufferGetPage(lbuf))->ei_next = rightblk;
		MarkBufferDirty(lbuf);
	}
	EIPageGetOpaque(BufferGetPage(rbuf))->ei_prev = leftblk;
	MarkBufferDirty(rbuf);
	EIPageSetDeleted(tpage, leftblk, rightblk, level, safexid);
	MarkBufferDirty(tbuf);

	if (RelationNeedsWAL(rel))
	{
		xl_ei_unlink_page xlrec;
		XLogRecPtr	recptr;

		xlrec.leftblk = leftblk;
		xlrec.rightblk = rightblk;
		xlrec.level = level;
		xlrec.safexid = safexid;
		XLogBeginInsert();
		XLogRegisterData((char *) &xlrec, SizeOfEIUnlinkPage);
		if (BufferIsValid(lbuf))
			XLogRegisterBuffer(0, lbuf, REGBUF_STANDARD);
		XLogRegisterBuffer(1, tbuf, REGBUF_WILL_INIT);
		XLogRegisterBuffer(2, rbuf, REGBUF_STANDARD);
		recptr = XLogInsert(EI_RMGR_ID, XLOG_EI_UNLINK_PAGE);
		if (BufferIsValid(lbuf))
			PageSetLSN(BufferGetPage(lbuf), recptr);
		PageSetLSN(tpage, recptr);
		PageSetLSN(BufferGetPage(rbuf), recptr);
	}

	END_CRIT_SECTION();

	EIRelBuf(rel, rbuf);
	EIRelBuf(rel, tbuf);
	if (BufferIsValid(lbuf))
		EIRelBuf(rel, lbuf);

	ei_fault_point(EI_FAULT_AFTER_UNLINK);
}

/*
 * Log that a deleted page is being reused, for hot standby conflicts.
 */
void
EILogReusePage(Relation rel, BlockNumber blkno, FullTransactionId safexid)
{
	xl_ei_reuse_page xlrec;

	xlrec.node = rel->rd_node;
	xlrec.block = blkno;
	xlrec.safexid = safexid;
	XLogBeginInsert();
	XLogRegisterData((char *) &xlrec, SizeOfEIReusePage);
	XLogInsert(EI_RMGR_ID, XLOG_EI_REUSE_PAGE);
}
