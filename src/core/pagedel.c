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
 * A leaf that is its parent's only child is deleted together with the
 * parent (and a single-child grandparent), as a chain: step 1 removes the
 * chain top's downlink and flags every chain page half-dead; step 2 unlinks
 * the chain top down, the leaf's high key remembering the next page to
 * unlink.  See src/README.md.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/transam.h"
#include "access/xloginsert.h"
#include "eistats.h"
#include "eitree.h"
#include "eitree_xlog.h"
#include "miscadmin.h"
#include "storage/lmgr.h"
#include "storage/lock.h"
#include "storage/predicate.h"
#include "storage/proc.h"
#include "storage/procarray.h"
#include "utils/rel.h"
#include "utils/relcache.h"
#include "access/xlog.h"
#include "catalog/catalog.h"
#include "utils/snapmgr.h"
#include "utils/wait_event.h"

#ifdef EI_FAULT_INJECTION
/* the longest the extension gate waits for a waiter (milliseconds) */
#define EI_EXTENSION_GATE_CAP_MS	5000
/* extensions a session gates at most while the cap releases them */
#define EI_EXTENSION_GATE_TRIES	4

/* debug fault injection for crash tests (elastic_index.debug_fault) */
int			ei_debug_fault = EI_FAULT_NONE;

/*
 * Raise an error at a named step when asked to by the superuser-only debug
 * GUC, so that tests can stop between two WAL records of one operation.
 */
void
EIFaultPoint(int point)
{
	if (ei_debug_fault == point)
		ereport(ERROR,
				(errcode(ERRCODE_INTERNAL_ERROR),
				 errmsg("elastic_index: fault injected at step %d", point)));
}

/*
 * Wait at a named step, when the debug GUC asks for it, until advisory lock
 * (point, gate) of the current database (pg_advisory_lock(point, gate))
 * can be shared, so that a test holding it can act while we wait.
 */
void
EIFaultGate(int point, uint32 gate)
{
	LOCKTAG		tag;

	if (ei_debug_fault != point)
		return;
	SET_LOCKTAG_ADVISORY(tag, MyDatabaseId, (uint32) point, gate, 2);
	(void) LockAcquire(&tag, ShareLock, false, false);
	LockRelease(&tag, ShareLock, false);
}

/*
 * Hold a backend that has just added a page to the index, holding the
 * relation extension lock but not yet the page's buffer lock, until another
 * backend waits for the extension lock, for at most a few seconds; once per
 * session, at its first extension after the debug GUC was set, and again at
 * its next extensions (up to EI_EXTENSION_GATE_TRIES in all) while the cap
 * rather than a waiter released it (an index nobody else was extending).
 *
 * The holder of an extension lock may take no heavyweight lock, so this
 * polls instead of waiting on an advisory lock, reporting the wait event
 * PgSleep so that a test can see where the backend stands.  The cap only
 * bounds the wait when nobody ever asks for the lock.
 */
void
EIFaultExtensionGate(Relation rel)
{
	static int	tries = 0;
	int			waited_ms = 0;
	bool		waiter = false;

	if (ei_debug_fault != EI_FAULT_EXTENSION_GATE ||
		tries >= EI_EXTENSION_GATE_TRIES)
		return;
	tries++;
	while (waited_ms < EI_EXTENSION_GATE_CAP_MS)
	{
		CHECK_FOR_INTERRUPTS();
		/* the count includes us, its holder */
		if (RelationExtensionLockWaiterCount(rel) > 1)
		{
			waiter = true;
			break;
		}
		pgstat_report_wait_start(WAIT_EVENT_PG_SLEEP);
		pg_usleep(10 * 1000L);
		pgstat_report_wait_end();
		waited_ms += 10;
	}
	if (waiter)
		tries = EI_EXTENSION_GATE_TRIES;
	elog(LOG, "elastic_index: extension gate of index \"%s\" released %s after %d ms",
		 RelationGetRelationName(rel),
		 waiter ? "by a waiter" : "by its time cap", waited_ms);
}
#endif

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
 * pages once no scan can still reach them.
 *
 * Two proofs are accepted.  The first is nbtree's: every snapshot that
 * exists now is younger than the page's safexid, so every scan that could
 * have read a link to the page before it was unlinked has ended.  The
 * second is the metapage's recycle fence: VACUUM found, at a WAL position
 * at or after the page's unlink record, that no other backend held a
 * snapshot old enough to have been taken before the unlink
 * (EIAdvanceRecycleFence).  Pass InvalidXLogRecPtr to use the first only.
 */
bool
EIPageIsRecyclable(Page page, XLogRecPtr recycle_fence)
{
	if (PageIsNew(page))
		return true;
	if (!(EIPageGetOpaque(page)->ei_flags & EI_DELETED))
		return false;
	if (!XLogRecPtrIsInvalid(recycle_fence) &&
		!XLogRecPtrIsInvalid(PageGetLSN(page)) &&
		PageGetLSN(page) <= recycle_fence)
		return true;
	return GlobalVisCheckRemovableFullXid(NULL, EIPageGetSafeXid(page));
}

/*
 * Does any backend other than ours, or any replication slot, hold a
 * snapshot whose xmin is at or before limit?  Such a snapshot may have been
 * taken before a page was unlinked, so a scan under it may still hold a link
 * to the page.  Backends of every database count, and so do other VACUUMs:
 * the test errs towards "yes".  So do the slots: a standby's
 * hot_standby_feedback xmin is held by its walsender's PGPROC only without a
 * slot; through a physical slot it is the slot's xmin.  A logical slot's
 * catalog_xmin protects the historic snapshots of decoding, which scan only
 * catalogs and user_catalog_tables: it counts only for an index of such a
 * table (with_catalog_xmin), since every slot's catalog_xmin is older than
 * limit and counting it would stop the fence of every index.
 */
static bool
ei_old_snapshot_exists(TransactionId limit, bool with_catalog_xmin)
{
	bool		found = false;
	TransactionId slot_xmin;
	TransactionId slot_catalog_xmin;

	ProcArrayGetReplicationSlotXmin(&slot_xmin, &slot_catalog_xmin);
	if ((TransactionIdIsValid(slot_xmin) &&
		 TransactionIdPrecedesOrEquals(slot_xmin, limit)) ||
		(with_catalog_xmin && TransactionIdIsValid(slot_catalog_xmin) &&
		 TransactionIdPrecedesOrEquals(slot_catalog_xmin, limit)))
		return true;

	LWLockAcquire(ProcArrayLock, LW_SHARED);
	for (uint32 i = 0; i < ProcGlobal->allProcCount && !found; i++)
	{
		PGPROC	   *proc = &ProcGlobal->allProcs[i];
		TransactionId xmin = *((volatile TransactionId *) &proc->xmin);

		if (proc != MyProc && TransactionIdIsValid(xmin) &&
			TransactionIdPrecedesOrEquals(xmin, limit))
			found = true;
	}
	LWLockRelease(ProcArrayLock);

	return found;
}

/*
 * Move the metapage's recycle fence to the current end of WAL if no other
 * backend holds a snapshot that could predate it; return the fence in
 * force afterwards.
 *
 * A scan can reach a deleted page only through a link it read before the
 * page was unlinked, and it holds a snapshot (and so an xmin) for as long
 * as it runs.  Read the WAL insert position first, then the next xid: a
 * scan that began before any record up to that position has an xmin at or
 * before that xid.  If no such backend exists, every page whose unlink
 * record ends at or before the position is unreachable now and for good.
 * VACUUM calls this after deleting pages, so that the next inserts can
 * reuse them instead of waiting until the xid horizon passes their safexid,
 * which for a table written in large transactions is one VACUUM cycle
 * later.  Our own backend is exempt: VACUUM holds no links into the index.
 */
XLogRecPtr
EIAdvanceRecycleFence(Relation rel)
{
	Buffer		metabuf;
	EIMetaPage	meta;
	XLogRecPtr	fence;
	XLogRecPtr	result;
	TransactionId limit;
	Relation	heapRel;
	bool		decoding_reads;

	if (!RelationNeedsWAL(rel))
		return InvalidXLogRecPtr;

	/* can logical decoding's historic snapshots scan this index? */
	heapRel = RelationIdGetRelation(rel->rd_index->indrelid);
	decoding_reads = !RelationIsValid(heapRel) ||
		RelationIsAccessibleInLogicalDecoding(heapRel);
	if (RelationIsValid(heapRel))
		RelationClose(heapRel);

	fence = GetXLogInsertRecPtr();
	limit = XidFromFullTransactionId(ReadNextFullTransactionId());

	metabuf = EIGetBuf(rel, EI_METAPAGE, EI_WRITE);
	meta = EIPageGetMeta(BufferGetPage(metabuf));
	result = meta->recycle_fence;

	if (fence > result && !ei_old_snapshot_exists(limit, decoding_reads))
	{
		START_CRIT_SECTION();

		meta->recycle_fence = fence;
		MarkBufferDirty(metabuf);
		EILogMetaPage(rel, metabuf);

		END_CRIT_SECTION();

		result = fence;
		EISetMetaCached(rel, meta);
	}
	EIRelBuf(rel, metabuf);

	return result;
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

/* a chain is the leaf plus at most this many single-child ancestors */
#define EI_MAX_CHAIN_PARENTS	2

/*
 * Find the page at `level` holding the downlink to `child`, by descending
 * with the leaf's high key; returns it write-locked, or InvalidBuffer.
 */
static Buffer
ei_find_parent(Relation rel, EIScanInsert key, uint32 level,
			   BlockNumber child, OffsetNumber *poff)
{
	EIStackData stack;
	Buffer		buf;
	Buffer		pbuf;
	BlockNumber parent = InvalidBlockNumber;
	uint32		parentlevel = 0;

	buf = EIGetRoot(rel, EI_READ, false);
	for (;;)
	{
		Page		page;
		EIPageOpaque opaque;
		OffsetNumber off;

		/* one level down per step, as in EISearch: damage cannot loop */
		if (BlockNumberIsValid(parent))
			EICheckChildLevel(rel, parent, parentlevel, buf);
		buf = EIMoveRight(rel, key, buf, false, NULL, EI_READ);
		page = BufferGetPage(buf);
		opaque = EIPageGetOpaque(page);
		if (opaque->ei_level < level)
		{
			/* the tree is not that tall (a root split is unfinished) */
			EIRelBuf(rel, buf);
			return InvalidBuffer;
		}
		off = EIBinSearch(rel, key, page);
		if (opaque->ei_level == level)
		{
			stack.blkno = BufferGetBlockNumber(buf);
			stack.offset = off;
			stack.level = level;
			stack.parent = NULL;
			EIRelBuf(rel, buf);
			break;
		}
		parent = BufferGetBlockNumber(buf);
		parentlevel = opaque->ei_level;
		buf = EIRelAndGetBuf(rel, buf, EICheckDownlink(rel, buf, off), EI_READ);
	}

	pbuf = EIGetParentBuf(rel, &stack, child);
	*poff = stack.offset;
	return pbuf;
}

/*
 * Set the chain-top link kept in a half-dead leaf's high key.
 */
static void
ei_set_leaf_topparent(Page leafpage, BlockNumber topparent)
{
	EITupleSetDownlink(EIReadTuple(leafpage, EI_HIKEY), topparent);
}

/*
 * Apply step 1 to the pages it changes (shared with redo): the chain top's
 * parent hands the top's key space to its right sibling, the leaf and the
 * chain's inner pages become half-dead, and the leaf remembers the top.
 */
void
EIPageMarkHalfDead(Page leafpage, Page ppage, OffsetNumber poff,
				   BlockNumber rightblk, BlockNumber topparent)
{
	if (ppage != NULL)
		EIPageRemoveDownlink(ppage, poff, rightblk);
	if (leafpage != NULL)
	{
		EIPageGetOpaque(leafpage)->ei_flags |= EI_HALF_DEAD;
		ei_set_leaf_topparent(leafpage, topparent);
	}
}

/*
 * Delete an empty leaf that VACUUM holds locked.  Always releases leafbuf.
 * Returns true if the page was deleted (or at least made half-dead).
 *
 * If the leaf is its parent's only child, the parent is deleted with it,
 * and so on up (a chain of at most EI_MAX_CHAIN_PARENTS inner pages), so
 * that inner pages never stay behind empty.  The chain's top must not be
 * the last downlink of its own parent: its key space goes to its right
 * sibling, whose downlink must follow it in that parent.
 */
bool
EIPageDelete(Relation rel, Buffer leafbuf)
{
	Page		page = BufferGetPage(leafbuf);
	EIPageOpaque opaque = EIPageGetOpaque(page);
	BlockNumber leafblk = BufferGetBlockNumber(leafbuf);
	BlockNumber child = leafblk;
	BlockNumber topright = opaque->ei_next;
	BlockNumber leafright = opaque->ei_next;
	Buffer		chain[EI_MAX_CHAIN_PARENTS];
	int			nchain = 0;
	Buffer		pbuf = InvalidBuffer;
	OffsetNumber poff = InvalidOffsetNumber;
	EIScanInsert key;
	uint32		level;
	int			i;
	bool		ok = false;

	/* never the rightmost leaf, the root, or a page with entries */
	if (!EI_IS_LEAF(opaque) || EI_RIGHTMOST(opaque) || EI_IS_ROOT(opaque) ||
		EI_IGNORE(opaque) || EI_INCOMPLETE(opaque) ||
		(opaque->ei_flags & EI_POLICY_LEAF) ||
		PageGetMaxOffsetNumber(page) >= EI_FIRST_DATA(opaque))
	{
		EIRelBuf(rel, leafbuf);
		return false;
	}

	/*
	 * Lock parents upward while holding the leaf, as insertion does.  A
	 * single-child parent cannot change meanwhile: only a split of its one
	 * child, our locked empty leaf or a chain page above it, could add to it.
	 */
	key = EIMakeScanKey(rel, EIReadTuple(page, EI_HIKEY), false);
	for (level = 1;; level++)
	{
		Page		ppage;
		EIPageOpaque popaque;
		OffsetNumber pmax;

		pbuf = ei_find_parent(rel, key, level, child, &poff);
		if (!BufferIsValid(pbuf))
			break;
		ppage = BufferGetPage(pbuf);
		popaque = EIPageGetOpaque(ppage);
		pmax = PageGetMaxOffsetNumber(ppage);

		if (poff < pmax)
		{
			/* found the chain top's parent */
			ok = (EITupleGetDownlink(EIReadTuple(ppage, OffsetNumberNext(poff))) ==
				  topright);
			break;
		}

		/* the child is the last downlink: go up only if it is the only one */
		if (poff != EI_FIRST_DATA(popaque) || EI_IS_ROOT(popaque) ||
			EI_RIGHTMOST(popaque) || EI_INCOMPLETE(popaque) ||
			nchain == EI_MAX_CHAIN_PARENTS)
			break;
		chain[nchain++] = pbuf;
		child = BufferGetBlockNumber(pbuf);
		topright = popaque->ei_next;
		pbuf = InvalidBuffer;
	}
	pfree(key);

	if (!ok)
	{
		if (BufferIsValid(pbuf))
			EIRelBuf(rel, pbuf);
		for (i = nchain - 1; i >= 0; i--)
			EIRelBuf(rel, chain[i]);
		EIRelBuf(rel, leafbuf);
		return false;
	}

	/* the parent loses an item: its line pointers must be sound first */
	EICheckPageItems(rel, pbuf);

	/*
	 * The empty leaf's key space goes to its right sibling: an insert that
	 * would have gone to the leaf goes there now, so serializable readers'
	 * predicate locks on the leaf move there too (as nbtree's
	 * _bt_mark_page_halfdead does).  Before the critical section: it may
	 * error out.
	 */
	PredicateLockPageCombine(rel, leafblk, leafright);

	START_CRIT_SECTION();

	EIPageMarkHalfDead(page, BufferGetPage(pbuf), poff, topright,
					   nchain > 0 ? child : InvalidBlockNumber);
	for (i = 0; i < nchain; i++)
	{
		EIPageGetOpaque(BufferGetPage(chain[i]))->ei_flags |= EI_HALF_DEAD;
		MarkBufferDirty(chain[i]);
	}
	MarkBufferDirty(pbuf);
	MarkBufferDirty(leafbuf);

	if (RelationNeedsWAL(rel))
	{
		xl_ei_mark_halfdead xlrec;
		XLogRecPtr	recptr;

		xlrec.poffset = poff;
		xlrec.rightblk = topright;
		xlrec.topparent = nchain > 0 ? child : InvalidBlockNumber;
		XLogBeginInsert();
		XLogRegisterData((char *) &xlrec, SizeOfEIMarkHalfdead);
		XLogRegisterBuffer(0, leafbuf, REGBUF_STANDARD);
		XLogRegisterBuffer(1, pbuf, REGBUF_STANDARD);
		for (i = 0; i < nchain; i++)
			XLogRegisterBuffer(2 + i, chain[i], REGBUF_STANDARD);
		recptr = XLogInsert(EI_RMGR_ID, XLOG_EI_MARK_HALFDEAD);
		PageSetLSN(page, recptr);
		PageSetLSN(BufferGetPage(pbuf), recptr);
		for (i = 0; i < nchain; i++)
			PageSetLSN(BufferGetPage(chain[i]), recptr);
	}

	END_CRIT_SECTION();

	EIRelBuf(rel, pbuf);
	for (i = nchain - 1; i >= 0; i--)
		EIRelBuf(rel, chain[i]);
	EIRelBuf(rel, leafbuf);

	EIFaultPoint(EI_FAULT_AFTER_HALFDEAD);

	EIUnlinkHalfDead(rel, leafblk);
	return true;
}

/*
 * Unlink one half-dead page from its siblings and mark it deleted.
 *
 * Locks go left to right: left sibling, target, right sibling.  The left
 * sibling may have split since the target was read, so we walk right from
 * the remembered one until we find the page that links to the target.  When
 * the target is an inner page of a chain, lbuf is the half-dead leaf, held
 * write-locked by the caller (a lower level, so locked first), whose
 * chain-top link moves down to the target's child.
 */
static void
ei_unlink_page(Relation rel, BlockNumber target, Buffer lbuf)
{
	Buffer		sbuf = InvalidBuffer;
	Buffer		tbuf;
	Buffer		rbuf;
	Page		tpage;
	EIPageOpaque topaque;
	BlockNumber leftblk;
	BlockNumber rightblk;
	BlockNumber nexttop = InvalidBlockNumber;
	uint32		level;
	FullTransactionId safexid;

	tbuf = EIGetBuf(rel, target, EI_READ);
	topaque = EIPageGetOpaque(BufferGetPage(tbuf));
	if (!(topaque->ei_flags & EI_HALF_DEAD) || (topaque->ei_flags & EI_DELETED))
		ereport(ERROR,
				(errcode(ERRCODE_INDEX_CORRUPTED),
				 errmsg("block %u to unlink is not half-dead in index \"%s\"",
						target, RelationGetRelationName(rel))));
	leftblk = topaque->ei_prev;
	level = topaque->ei_level;
	EIRelBuf(rel, tbuf);

	if (BlockNumberIsValid(leftblk))
	{
		uint64		hops = 0;

		sbuf = EIGetBuf(rel, leftblk, EI_WRITE);
		for (;;)
		{
			EIPageOpaque sopaque = EIPageGetOpaque(BufferGetPage(sbuf));

			/* other locks may be held: a damaged chain must end the walk */
			if (sopaque->ei_level != level)
				ereport(ERROR,
						(errcode(ERRCODE_INDEX_CORRUPTED),
						 errmsg("index \"%s\" is corrupted: block %u, left of block %u at level %u, is at level %u",
								RelationGetRelationName(rel),
								BufferGetBlockNumber(sbuf), target,
								level, sopaque->ei_level)));
			EICheckHops(rel, ++hops, BufferGetBlockNumber(sbuf));
			if (sopaque->ei_next == target)
				break;
			if (EI_RIGHTMOST(sopaque))
				ereport(ERROR,
						(errcode(ERRCODE_INDEX_CORRUPTED),
						 errmsg("left sibling of block %u not found in index \"%s\"",
								target, RelationGetRelationName(rel))));
			leftblk = sopaque->ei_next;
			sbuf = EIRelAndGetBuf(rel, sbuf, leftblk, EI_WRITE);
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
	if (BufferIsValid(lbuf))
	{
		BlockNumber child = EITupleGetDownlink(EIReadTuple(tpage, EI_FIRST_DATA(topaque)));

		if (child != BufferGetBlockNumber(lbuf))
			nexttop = child;
	}

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

	if (BufferIsValid(sbuf))
	{
		EIPageGetOpaque(BufferGetPage(sbuf))->ei_next = rightblk;
		MarkBufferDirty(sbuf);
	}
	EIPageGetOpaque(BufferGetPage(rbuf))->ei_prev = leftblk;
	MarkBufferDirty(rbuf);
	EIPageSetDeleted(tpage, leftblk, rightblk, level, safexid);
	MarkBufferDirty(tbuf);
	if (BufferIsValid(lbuf))
	{
		ei_set_leaf_topparent(BufferGetPage(lbuf), nexttop);
		MarkBufferDirty(lbuf);
	}

	if (RelationNeedsWAL(rel))
	{
		xl_ei_unlink_page xlrec;
		XLogRecPtr	recptr;

		xlrec.leftblk = leftblk;
		xlrec.rightblk = rightblk;
		xlrec.level = level;
		xlrec.leaftopparent = nexttop;
		xlrec.safexid = safexid;
		XLogBeginInsert();
		XLogRegisterData((char *) &xlrec, SizeOfEIUnlinkPage);
		if (BufferIsValid(sbuf))
			XLogRegisterBuffer(0, sbuf, REGBUF_STANDARD);
		XLogRegisterBuffer(1, tbuf, REGBUF_WILL_INIT);
		XLogRegisterBuffer(2, rbuf, REGBUF_STANDARD);
		if (BufferIsValid(lbuf))
			XLogRegisterBuffer(3, lbuf, REGBUF_STANDARD);
		recptr = XLogInsert(EI_RMGR_ID, XLOG_EI_UNLINK_PAGE);
		if (BufferIsValid(sbuf))
			PageSetLSN(BufferGetPage(sbuf), recptr);
		PageSetLSN(tpage, recptr);
		PageSetLSN(BufferGetPage(rbuf), recptr);
		if (BufferIsValid(lbuf))
			PageSetLSN(BufferGetPage(lbuf), recptr);
	}

	END_CRIT_SECTION();
	EIStatsCount(rel, EI_STAT_PAGES_DELETED, 1);

	EIRelBuf(rel, rbuf);
	EIRelBuf(rel, tbuf);
	if (BufferIsValid(sbuf))
		EIRelBuf(rel, sbuf);
}

/*
 * Finish deleting a half-dead leaf (step 2): unlink its chain from the top
 * down, then the leaf itself.
 *
 * Top-down order keeps every intermediate state valid: the pages still
 * linked are the leaf and the chain below the recorded top, each reachable
 * only through right links, and a crash anywhere leaves the leaf pointing at
 * the next page to unlink.
 */
void
EIUnlinkHalfDead(Relation rel, BlockNumber leafblk)
{
	for (;;)
	{
		Buffer		lbuf = EIGetBuf(rel, leafblk, EI_WRITE);
		Page		lpage = BufferGetPage(lbuf);
		EIPageOpaque lopaque = EIPageGetOpaque(lpage);
		BlockNumber top;

		if (!(lopaque->ei_flags & EI_HALF_DEAD) || (lopaque->ei_flags & EI_DELETED))
		{
			EIRelBuf(rel, lbuf);
			return;
		}
		top = EITupleGetDownlink(EIReadTuple(lpage, EI_HIKEY));

		if (!BlockNumberIsValid(top))
		{
			/* the leaf itself: its left sibling must be locked before it */
			EIRelBuf(rel, lbuf);
			ei_unlink_page(rel, leafblk, InvalidBuffer);
			EIFaultPoint(EI_FAULT_AFTER_UNLINK);
			return;
		}

		ei_unlink_page(rel, top, lbuf);
		EIRelBuf(rel, lbuf);
		EIFaultPoint(EI_FAULT_AFTER_UNLINK);
	}
}

/*
 * Note, before any buffer lock, whether logical decoding reads the index's
 * table as a catalog (a user_catalog_table under wal_level = logical), for
 * EIHeapIsCatalogRel.  The insertion entry points call it with the table
 * they were given, so that the record that reuses a page, written deep in
 * a split with buffer locks held, needs no relation cache lookup there.
 * Without one (VACUUM's flush of an osm_tree buffer) the table is looked
 * up here, where no buffer is locked yet.
 */
void
EINoteHeapRel(Relation rel, Relation heapRel)
{
	bool		catalog;

	if (!XLogLogicalInfoActive())
		return;
	if (heapRel != NULL)
		catalog = RelationIsAccessibleInLogicalDecoding(heapRel);
	else
	{
		Relation	heap = RelationIdGetRelation(rel->rd_index->indrelid);

		catalog = RelationIsValid(heap) &&
			RelationIsAccessibleInLogicalDecoding(heap);
		if (RelationIsValid(heap))
			RelationClose(heap);
	}
	EIGetRelCache(rel)->heap_is_catalog = catalog;
}

/*
 * Does logical decoding read the table of this index as a catalog?
 * Recovery conflicts on a standby ask it from 16 on.  As noted by the
 * operation's entry point (EINoteHeapRel); false where none did, and when
 * a relation cache flush between the note and the page's reuse dropped the
 * note with rd_amcache (a standby's logical slot then misses one
 * invalidation it would have had, as everywhere on 15, where nothing reads
 * the flag).
 */
bool
EIHeapIsCatalogRel(Relation index)
{
	return XLogLogicalInfoActive() && index->rd_amcache != NULL &&
		((EIRelCache *) index->rd_amcache)->heap_is_catalog;
}

/*
 * Log that a deleted page is being reused, for hot standby conflicts.
 */
void
EILogReusePage(Relation rel, BlockNumber blkno, FullTransactionId safexid)
{
	xl_ei_reuse_page xlrec;

	xlrec.node = EIRelationLocator(rel);
	xlrec.block = blkno;
	xlrec.safexid = safexid;
	xlrec.isCatalogRel = EIHeapIsCatalogRel(rel);
	XLogBeginInsert();
	XLogRegisterData((char *) &xlrec, SizeOfEIReusePage);
	XLogInsert(EI_RMGR_ID, XLOG_EI_REUSE_PAGE);
}
