/*-------------------------------------------------------------------------
 *
 * shift.c
 *	  Redistribution between sibling leaves: a full leaf gives its last
 *	  entries to its right sibling instead of splitting (B*-tree shift).
 *
 * The design, its lock order and the scan protocol that makes it safe for
 * readers are in src/README.md, "Redistribution between sibling leaves".
 * In short: the inserter holds the full leaf L, locks its right sibling R,
 * then the parent P that holds both downlinks side by side; L's tail moves
 * to the front of R, L's high key and R's separator in P are lowered to
 * the same new pivot, and one XLOG_EI_SPLIT record with the
 * EI_XLOG_SPLIT_SHIFT flag logs all three pages.  Every check that can
 * fail runs before the critical section, on private copies of the pages;
 * the functions that change a page are shared with redo, so that primary
 * and standby build identical pages.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/itup.h"
#include "access/xloginsert.h"
#include "eitree.h"
#include "eitree_xlog.h"
#include "miscadmin.h"
#include "storage/bufmgr.h"
#include "storage/predicate.h"
#include "utils/datum.h"
#include "utils/rel.h"

/*
 * A shift needs the right sibling to have at least this share of a page
 * free (1/8: about 1 KB); with less, the two leaves become three instead.
 * Measured on 2M rows of 10,000 devices (src/README.md): leaf fill 91.5%
 * with 1/8, 83.6% with 1/16 (shifts of a few entries leave both leaves
 * full again soon), 69.0% with 1/4 (2-to-3 splits of leaves only three
 * quarters full leave pages barely fuller than a split's halves).
 */
#define EI_SHIFT_MIN_FREE_DIVISOR	8

static bool ei_shift_page_ok(EIPageOpaque opaque);
static bool ei_shift_stream_boundary(Relation rel, Page page,
									 OffsetNumber off);
static OffsetNumber ei_shift_third(Relation rel, Page rpage);
static OffsetNumber ei_shift_plan(Relation rel, Page lpage, Size freeR,
								  Size need, Size *moved,
								  IndexTuple *newhikey);
static OffsetNumber ei_shift_choose(Relation rel, Page lpage, Size freeL,
									Size freeR, Size need, Size *moved);

/*
 * Is the page a plain standard leaf that may take part in a shift: not a
 * policy's leaf, not being deleted, and with its right sibling's downlink
 * in place?
 */
static bool
ei_shift_page_ok(EIPageOpaque opaque)
{
	return EI_IS_LEAF(opaque) && opaque->ei_level == 0 &&
		!EI_IS_ROOT(opaque) &&
		!(opaque->ei_flags & (EI_POLICY_LEAF | EI_INCOMPLETE_SPLIT |
							  EI_HALF_DEAD | EI_DELETED));
}

/*
 * Do the items at off - 1 and off belong to different streams (differ in a
 * key attribute other than the last)?  The attributes are compared as
 * bytes, not by the operator class: this only chooses where entries move,
 * and a type whose equal values differ in their bytes (numeric's scale)
 * then at worst moves a boundary, never an entry out of order.  Cheaper
 * than an insertion key per candidate, of which a shift tries up to a
 * quarter of a leaf's items.
 */
static bool
ei_shift_stream_boundary(Relation rel, Page page, OffsetNumber off)
{
	TupleDesc	desc = RelationGetDescr(rel);
	IndexTuple	a = EIReadTuple(page, OffsetNumberPrev(off));
	IndexTuple	b = EIReadTuple(page, off);
	int			nstream = IndexRelationGetNumberOfKeyAttributes(rel) - 1;

	for (int i = 1; i <= nstream; i++)
	{
		Form_pg_attribute att = TupleDescAttr(desc, i - 1);
		bool		anull;
		bool		bnull;
		Datum		av = index_getattr(a, i, desc, &anull);
		Datum		bv = index_getattr(b, i, desc, &bnull);

		if (anull != bnull)
			return true;
		if (!anull && !datum_image_eq(av, bv, att->attbyval, att->attlen))
			return true;
	}
	return false;
}

/*
 * Choose the first item of the full leaf lpage that moves right: the offset
 * that leaves both leaves about the same free space, moved to the nearest
 * boundary between two streams within an eighth of the items (as a split
 * point is, so that a device's entries are not cut in two), such that both
 * leaves keep room for need bytes afterwards.  freeL and freeR are the
 * leaves' free space now.  Sets *moved to
 * the bytes that move, line pointers included.  InvalidOffsetNumber if no
 * offset works.
 */
static OffsetNumber
ei_shift_choose(Relation rel, Page lpage, Size freeL, Size freeR, Size need,
				Size *moved)
{
	OffsetNumber minoff = EI_FIRSTKEY;
	OffsetNumber maxoff = PageGetMaxOffsetNumber(lpage);
	int			nitems = maxoff - minoff + 1;
	Size	   *tail;			/* tail[off]: bytes of items off..maxoff */
	OffsetNumber best = InvalidOffsetNumber;
	OffsetNumber off;
	int			window;

	if (nitems < 2 || freeR <= freeL)
		return InvalidOffsetNumber;

	tail = palloc0(sizeof(Size) * (maxoff + 2));
	for (off = maxoff; off >= minoff; off = OffsetNumberPrev(off))
		tail[off] = tail[off + 1] +
			MAXALIGN(ItemIdGetLength(PageGetItemId(lpage, off))) +
			sizeof(ItemIdData);

	/* the most items whose bytes stay within half the difference */
	for (off = maxoff; off > minoff; off = OffsetNumberPrev(off))
	{
		if (tail[off] > (freeR - freeL) / 2)
			break;
		best = off;
	}
	if (!OffsetNumberIsValid(best))
	{
		pfree(tail);
		return InvalidOffsetNumber;
	}

	/*
	 * Both leaves keep need bytes; the size of the new high key, which
	 * replaces the old one, is checked by the caller once it is formed.
	 */
#define EI_SHIFT_FITS(o) \
	(freeR >= tail[o] + need && freeL + tail[o] >= need)

	window = nitems / 8;
	if (IndexRelationGetNumberOfKeyAttributes(rel) >= 2)
	{
		for (int d = 0; d <= window; d++)
		{
			if (best - d > minoff && EI_SHIFT_FITS(best - d) &&
				ei_shift_stream_boundary(rel, lpage, best - d))
			{
				best = best - d;
				break;
			}
			if (d > 0 && best + d <= maxoff && EI_SHIFT_FITS(best + d) &&
				ei_shift_stream_boundary(rel, lpage, best + d))
			{
				best = best + d;
				break;
			}
		}
	}
	if (!EI_SHIFT_FITS(best))
		best = InvalidOffsetNumber;
#undef EI_SHIFT_FITS
	*moved = OffsetNumberIsValid(best) ? tail[best] : 0;
	pfree(tail);
	return best;
}

/*
 * Where a full right sibling splits in a 2-to-3 split: after about a third
 * of its bytes, moved to the nearest stream boundary within an eighth of
 * the items.  InvalidOffsetNumber if it has fewer than three items.
 */
static OffsetNumber
ei_shift_third(Relation rel, Page rpage)
{
	OffsetNumber minoff = EI_FIRST_DATA(EIPageGetOpaque(rpage));
	OffsetNumber maxoff = PageGetMaxOffsetNumber(rpage);
	int			window = (maxoff - minoff + 1) / 8;
	Size		used = 0;
	Size		total = 0;
	OffsetNumber best;
	OffsetNumber off;

	if (maxoff < minoff + 2)
		return InvalidOffsetNumber;
	for (off = minoff; off <= maxoff; off = OffsetNumberNext(off))
		total += MAXALIGN(ItemIdGetLength(PageGetItemId(rpage, off)));
	for (best = minoff; best < maxoff; best = OffsetNumberNext(best))
	{
		used += MAXALIGN(ItemIdGetLength(PageGetItemId(rpage, best)));
		if (used * 3 >= total)
			break;
	}
	best = OffsetNumberNext(best);	/* the first item of the new page */
	if (IndexRelationGetNumberOfKeyAttributes(rel) >= 2)
	{
		for (int d = 0; d <= window; d++)
		{
			if (best - d > minoff && ei_shift_stream_boundary(rel, rpage, best - d))
				return best - d;
			if (d > 0 && best + d <= maxoff &&
				ei_shift_stream_boundary(rel, rpage, best + d))
				return best + d;
		}
	}
	return Min(best, maxoff);
}

/*
 * Plan a shift from the full leaf lpage into a right sibling with freeR
 * bytes free: the first item that moves (ei_shift_choose), with *moved its
 * bytes, and *newhikey, lpage's new high key (palloc'd), refused
 * (InvalidOffsetNumber) when it does not fit.  The new high key is the
 * first moved entry's key columns with its heap TID, never truncated: a
 * backward scan takes a high key without heap TID whose key columns equal
 * the first item it read on R for R's own left bound (src/README.md,
 * "Readers" under "Redistribution between sibling leaves"); with the TID
 * it sees that the bound moved below that item.
 */
static OffsetNumber
ei_shift_plan(Relation rel, Page lpage, Size freeR, Size need, Size *moved,
			  IndexTuple *newhikey)
{
	Size		freeL = PageGetFreeSpace(lpage);
	Size		oldhisz = MAXALIGN(ItemIdGetLength(PageGetItemId(lpage, EI_HIKEY)));
	OffsetNumber firstmoved;
	IndexTuple	hikey;

	firstmoved = ei_shift_choose(rel, lpage, freeL, freeR, need, moved);
	if (!OffsetNumberIsValid(firstmoved))
		return InvalidOffsetNumber;
	hikey = EIFormPivot(rel, NULL, EIReadTuple(lpage, firstmoved));
	if (freeL + *moved + oldhisz < need + MAXALIGN(IndexTupleSize(hikey)))
	{
		pfree(hikey);
		return InvalidOffsetNumber;
	}
	*newhikey = hikey;
	return firstmoved;
}

/*
 * Try to make room in the full, write-locked standard leaf istate->buf by
 * moving its last entries to its right sibling; return whether it did.
 *
 * The leaf stays locked either way.  On success its high key is lower and
 * it has room for the entry, which may now belong to the right sibling
 * instead (the caller compares the entry with the new high key).  On
 * failure nothing changed: the caller splits as before.  Only a leaf
 * reached by a descent (istate->stack) shifts, since the parent is found
 * from the stack.
 */
bool
EIShiftRight(EIInsertState istate)
{
	Relation	rel = istate->rel;
	Buffer		lbuf = istate->buf;
	Page		lpage = BufferGetPage(lbuf);
	EIPageOpaque lopaque = EIPageGetOpaque(lpage);
	BlockNumber lblk = BufferGetBlockNumber(lbuf);
	BlockNumber rblk;
	Buffer		rbuf;
	Buffer		pbuf;
	Page		rpage;
	Page		ppage;
	EIPageOpaque ropaque;
	Size		usable = BLCKSZ - SizeOfPageHeaderData -
		MAXALIGN(sizeof(EIPageOpaqueData));
	Size		need = istate->itemsz + sizeof(ItemIdData);
	Size		freeR;
	Size		moved = 0;
	Size		newhisz;
	Size		oldpivsz;
	OffsetNumber firstmoved;
	OffsetNumber maxoff;
	OffsetNumber poffset;
	IndexTuple	newhikey;
	IndexTuple	newpivot;
	char	   *chunk;
	Size		chunklen;
	Page		newL;
	Page		newR;
	Page		newP;
	const char *problem;
	EIStackData saved;

	if (istate->stack == NULL || EI_RIGHTMOST(lopaque) ||
		!ei_shift_page_ok(lopaque))
		return false;

	/*
	 * The right sibling, left to right as rule 1 of "Lock ordering" wants.
	 * L stays locked throughout, so R stays its right sibling: unlinking R
	 * would need L's lock.
	 */
	rblk = lopaque->ei_next;
	for (bool split_done = false;; split_done = true)
	{
		OffsetNumber third;

		rbuf = EIGetBuf(rel, rblk, EI_WRITE);
		rpage = BufferGetPage(rbuf);
		ropaque = EIPageGetOpaque(rpage);
		freeR = PageGetFreeSpace(rpage);
		/*
		 * Not into the rightmost leaf either: appends fill it to the fill
		 * factor anyway, and a parallel backward scan that read it empty
		 * has no first item to check a left step against (src/README.md).
		 */
		if (!ei_shift_page_ok(ropaque) || ropaque->ei_prev != lblk ||
			EI_RIGHTMOST(ropaque))
		{
			EIRelBuf(rel, rbuf);
			return false;
		}

		/*
		 * Every item that moves is copied: check L's items first, so that
		 * damage is reported here and never copied (the dedup pass may have
		 * checked them under our lock).  R's items are not read by a shift,
		 * which only adds line pointers in front of them (EIGetBuf checked
		 * the page's bounds); a split of R copies them, and checks them.
		 */
		if (!istate->items_checked)
			EICheckPageItems(rel, lbuf);
		istate->items_checked = true;

		if (freeR >= usable / EI_SHIFT_MIN_FREE_DIVISOR)
			break;

		/*
		 * R is full too: the 2-to-3 split.  R keeps its first third and a
		 * new page takes the rest (an ordinary split in two phases, which
		 * only adds L to the pages a split holds); then L shifts a third
		 * into R, and the three leaves come out two thirds full.  Not at
		 * the right edge, where appends fill leaves to the fill factor.
		 */
		if (split_done)
		{
			EIRelBuf(rel, rbuf);
			return false;
		}
		EICheckPageItems(rel, rbuf);
		third = ei_shift_third(rel, rpage);

		/*
		 * Split R only for a shift that will take place (with R's share
		 * after the split free, less the rest of its items): a shift
		 * refused after the split would leave two full leaves four.  Only
		 * R's downlink may then still turn up on another parent page.
		 */
		if (OffsetNumberIsValid(third))
		{
			Size		rest = 0;

			for (OffsetNumber off = third;
				 off <= PageGetMaxOffsetNumber(rpage);
				 off = OffsetNumberNext(off))
				rest += MAXALIGN(ItemIdGetLength(PageGetItemId(rpage, off))) +
					sizeof(ItemIdData);
			firstmoved = ei_shift_plan(rel, lpage, freeR + rest, need, &moved,
									   &newhikey);
			if (OffsetNumberIsValid(firstmoved))
				pfree(newhikey);
		}
		if (!OffsetNumberIsValid(third) || !OffsetNumberIsValid(firstmoved))
		{
			EIRelBuf(rel, rbuf);
			return false;
		}

		/*
		 * The downlink insert leaves the stack at R's downlink; L's is
		 * found again from where it was (parent splits move it right only).
		 */
		saved = *istate->stack;
		EIFinishLeafSplit(rel, rbuf, EISplitLeafAt(rel, rbuf, third),
						  istate->stack);
		istate->stack->blkno = saved.blkno;
		istate->stack->offset = saved.offset;
	}

	/* what moves, and L's new high key: R's new separator in P too */
	firstmoved = ei_shift_plan(rel, lpage, freeR, need, &moved, &newhikey);
	if (!OffsetNumberIsValid(firstmoved))
	{
		EIRelBuf(rel, rbuf);
		return false;
	}
	maxoff = PageGetMaxOffsetNumber(lpage);
	newhisz = MAXALIGN(IndexTupleSize(newhikey));

	/* the parent, holding both leaves (rule 2: child before parent) */
	pbuf = EIGetParentBuf(rel, istate->stack, lblk);
	if (!BufferIsValid(pbuf))
	{
		/* the split that follows reports it */
		pfree(newhikey);
		EIRelBuf(rel, rbuf);
		return false;
	}
	ppage = BufferGetPage(pbuf);
	poffset = OffsetNumberNext(istate->stack->offset);
	if (poffset > PageGetMaxOffsetNumber(ppage) ||
		EITupleGetDownlink(EIReadTupleChecked(rel, ppage, poffset)) != rblk)
	{
		/* R's downlink is on the next parent page: split instead */
		pfree(newhikey);
		EIRelBuf(rel, pbuf);
		EIRelBuf(rel, rbuf);
		return false;
	}
	/* the parent's tuples move when its item is replaced: check them */
	EICheckPageItems(rel, pbuf);
	oldpivsz = MAXALIGN(ItemIdGetLength(PageGetItemId(ppage, poffset)));
	newpivot = CopyIndexTuple(newhikey);
	EITupleSetDownlink(newpivot, rblk);
	if (MAXALIGN(IndexTupleSize(newpivot)) > oldpivsz &&
		MAXALIGN(IndexTupleSize(newpivot)) - oldpivsz >
		PageGetExactFreeSpace(ppage))
	{
		/* a wider pivot that the parent has no room for: split instead */
		pfree(newpivot);
		pfree(newhikey);
		EIRelBuf(rel, pbuf);
		EIRelBuf(rel, rbuf);
		return false;
	}

	/* the moved items, in order, as the record carries them */
	chunk = palloc(moved);
	chunklen = 0;
	for (OffsetNumber off = firstmoved; off <= maxoff; off = OffsetNumberNext(off))
	{
		IndexTuple	itup = EIReadTuple(lpage, off);
		Size		sz = MAXALIGN(IndexTupleSize(itup));

		memcpy(chunk + chunklen, itup, IndexTupleSize(itup));
		memset(chunk + chunklen + IndexTupleSize(itup), 0,
			   sz - IndexTupleSize(itup));
		chunklen += sz;
	}

	/* build the three pages in private memory, and check the leaves */
	newL = PageGetTempPageCopy(lpage);
	newR = PageGetTempPageCopy(rpage);
	newP = PageGetTempPageCopy(ppage);
	EIShiftApplyLeft(newL, firstmoved, newhikey);
	EIShiftApplyRight(newR, chunk, chunklen);
	EIShiftApplyParent(newP, poffset, newpivot);
	problem = EICheckSplitBounds(rel, newL, newR, EI_RIGHTMOST(ropaque));
	if (problem != NULL)
		ereport(ERROR,
				(errcode(ERRCODE_INTERNAL_ERROR),
				 errmsg_internal("shift from block %u to block %u of index \"%s\" refused: %s",
								 lblk, rblk, RelationGetRelationName(rel),
								 problem)));

	START_CRIT_SECTION();

	memcpy(lpage, newL, BLCKSZ);
	memcpy(rpage, newR, BLCKSZ);
	memcpy(ppage, newP, BLCKSZ);
	MarkBufferDirty(lbuf);
	MarkBufferDirty(rbuf);
	MarkBufferDirty(pbuf);

	if (RelationNeedsWAL(rel))
	{
		xl_ei_split xlrec;
		XLogRecPtr	recptr;

		xlrec.level = 0;
		xlrec.firstrightoff = firstmoved;
		xlrec.newitemoff = InvalidOffsetNumber;
		xlrec.flags = EI_XLOG_SPLIT_SHIFT;

		XLogBeginInsert();
		XLogRegisterData((char *) &xlrec, SizeOfEISplit);
		XLogRegisterData((char *) &poffset, sizeof(OffsetNumber));
		XLogRegisterBuffer(0, lbuf, REGBUF_STANDARD);
		XLogRegisterBufData(0, (char *) newhikey, newhisz);
		XLogRegisterBuffer(1, rbuf, REGBUF_STANDARD);
		XLogRegisterBufData(1, chunk, chunklen);
		XLogRegisterBuffer(2, pbuf, REGBUF_STANDARD);
		XLogRegisterBufData(2, (char *) newpivot,
							MAXALIGN(IndexTupleSize(newpivot)));
		recptr = XLogInsert(EI_RMGR_ID, XLOG_EI_SPLIT);
		PageSetLSN(lpage, recptr);
		PageSetLSN(rpage, recptr);
		PageSetLSN(ppage, recptr);
	}

	END_CRIT_SECTION();

	/*
	 * A serializable reader's lock on L's key range must cover the entries
	 * now on R, as after a split; both leaves are still locked.
	 */
	PredicateLockPageSplit(rel, lblk, rblk);

	EIRelBuf(rel, pbuf);
	EIRelBuf(rel, rbuf);
	pfree(newL);
	pfree(newR);
	pfree(newP);
	pfree(chunk);
	pfree(newpivot);
	pfree(newhikey);
	return true;
}

/*
 * The left leaf's side of a shift: drop the items from firstmoved on and
 * put hikey in place of the high key.  Shared with redo.
 */
void
EIShiftApplyLeft(Page page, OffsetNumber firstmoved, IndexTuple hikey)
{
	OffsetNumber maxoff = PageGetMaxOffsetNumber(page);
	int			n = maxoff - firstmoved + 1;
	OffsetNumber *offsets;

	if (firstmoved <= EI_FIRSTKEY || firstmoved > maxoff)
		elog(ERROR, "shift of items from offset %u of a leaf with %u",
			 firstmoved, maxoff);
	offsets = palloc(sizeof(OffsetNumber) * n);
	for (int i = 0; i < n; i++)
		offsets[i] = firstmoved + i;
	PageIndexMultiDelete(page, offsets, n);
	pfree(offsets);
	if (!PageIndexTupleOverwrite(page, EI_HIKEY, (Item) hikey,
								 MAXALIGN(IndexTupleSize(hikey))))
		elog(ERROR, "failed to replace the high key of a shifted leaf");
}

/*
 * The right leaf's side of a shift: put the chunk's items (MAXALIGNed index
 * tuples, in order) in front of its data items.  Shared with redo.
 */
void
EIShiftApplyRight(Page page, const char *chunk, Size len)
{
	OffsetNumber off = EI_FIRST_DATA(EIPageGetOpaque(page));

	while (len > 0)
	{
		IndexTuple	itup = (IndexTuple) chunk;
		Size		sz;

		if (len < sizeof(IndexTupleData) ||
			(sz = MAXALIGN(IndexTupleSize(itup))) > len || sz == 0)
			elog(ERROR, "shift: malformed chunk of moved items");
		if (PageAddItem(page, (Item) itup, sz, off, false, false) ==
			InvalidOffsetNumber)
			elog(ERROR, "failed to add a moved item to the right leaf of a shift");
		off = OffsetNumberNext(off);
		chunk += sz;
		len -= sz;
	}
}

/*
 * The parent's side of a shift: pivot (with the right leaf's downlink)
 * replaces the separator at poffset.  Shared with redo.
 */
void
EIShiftApplyParent(Page page, OffsetNumber poffset, IndexTuple pivot)
{
	if (poffset > PageGetMaxOffsetNumber(page) ||
		!PageIndexTupleOverwrite(page, poffset, (Item) pivot,
								 MAXALIGN(IndexTupleSize(pivot))))
		elog(ERROR, "failed to replace separator %u of a shift's parent",
			 poffset);
}
