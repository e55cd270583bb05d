/*-------------------------------------------------------------------------
 *
 * leafops.c
 *	  Compact leaves in the tree: converting a leaf either way, inserting
 *	  into a compact leaf, splitting it and removing its dead entries, each
 *	  one WAL-logged step under the leaf's exclusive lock.
 *
 * The page format and the operations on it that redo repeats live in
 * compact/compact.c; this file decides and logs.  Everything above the leaf
 * level is unaware of compact leaves: a compact leaf keeps a full high key
 * and ordinary sibling links, and its split inserts a downlink through
 * EIInsertParent like any other split.  See src/README.md, "Compact leaves
 * in the tree".
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/heapam.h"
#include "access/xloginsert.h"
#include "catalog/catalog.h"
#include "catalog/pg_am.h"
#include "catalog/pg_class.h"
#include "eicompact.h"
#include "eistats.h"
#include "miscadmin.h"
#include "storage/predicate.h"
#include "utils/rel.h"
#include "utils/syscache.h"

static void ei_compact_remove_dead(Relation rel, Relation heapRel, Buffer buf,
								   uint16 *positions, int npos,
								   TransactionId horizon);
static bool ei_table_is_heap(Oid relid);

/*
 * The compact leaf this backend last found full for an insert, where the
 * entry would have gone, and whether its heap TID follows the TID before
 * that position closely (EICompactInsert), for the split that follows.
 */
/*
 * Tries of a compact split whose left half does not fit its page before it
 * splits in the middle (ei_compact_split_point).
 */
#define EI_COMPACT_SPLIT_BACKOFFS	3

static BlockNumber ei_compact_full_block = InvalidBlockNumber;
static int	ei_compact_full_pos = -1;
static bool ei_compact_full_seq = false;

/*
 * Is the table of the given OID a heap table (the only kind whose line
 * pointers compact/heapkey.c understands)?
 */
static bool
ei_table_is_heap(Oid relid)
{
	HeapTuple	tuple = SearchSysCache1(RELOID, ObjectIdGetDatum(relid));
	bool		result;

	if (!HeapTupleIsValid(tuple))
		elog(ERROR, "cache lookup failed for relation %u", relid);
	result = ((Form_pg_class) GETSTRUCT(tuple))->relam == HEAP_TABLE_AM_OID;
	ReleaseSysCache(tuple);
	return result;
}

/*
 * Return the normalized-key information of an index whose leaves can be
 * compact, or NULL if they cannot: the keys need normalized forms
 * (core/normkey.c; variable-width ones are padded) and a heap table.
 * INCLUDE columns are allowed: they are plain columns, read from the heap
 * with the keys where a whole entry is needed (index-only scans,
 * expansion).  Cached in
 * the leaf kind's cache (EIGetLeafKindCache) for the index's current file: the
 * cache outlives an in-place relcache rebuild, and a table whose access
 * method changed (a rewrite) gave the index a new file, so the answer is
 * derived again then.  The information itself lives in rd_indexcxt, which
 * outlives a relcache flush of the cache.
 */
EINormKeyInfo *
EICompactInfo(Relation rel)
{
	EICompactCache *cache;
	MemoryContext oldcxt;
	EINormKeyInfo *norm;
	bool		possible;
	Oid			relfilenode;

	/* only indexes whose policy has this leaf kind, and this cache */
	if (!EIRelHasCompactKind(rel))
		return NULL;
	cache = EIGetLeafKindCache(rel, sizeof(EICompactCache));
	relfilenode = EIRelFileNumber(EIRelationLocator(rel));
	if (cache->compact_checked && cache->compact_relfilenode == relfilenode)
		return cache->compact_norm;

	/* catalog lookups, which may rebuild rd_amcache: get the cache after */
	oldcxt = MemoryContextSwitchTo(rel->rd_indexcxt);
	norm = EIGetNormKeyInfo(rel);
	EINormKeyPad(norm);
	MemoryContextSwitchTo(oldcxt);
	possible = (norm->ok && norm->keylen > 0 &&
				norm->keylen <= SEQTREE_MAX_KEYLEN &&
				ei_table_is_heap(rel->rd_index->indrelid));

	cache = EIGetLeafKindCache(rel, sizeof(EICompactCache));
	cache->compact_norm = possible ? norm : NULL;
	cache->compact_relfilenode = relfilenode;
	cache->compact_checked = true;
	return cache->compact_norm;
}

/*
 * Raise the error of an index that a policy was asked to give compact
 * leaves but that cannot have them (EICompactInfo says none): its key has
 * no normalized form (a type without the support function, an expression,
 * a nondeterministic collation), is too long, or its table is not a heap.
 * Catalog lookups: call before any lock.
 */
void
EICompactRequire(Relation rel)
{
	EINormKeyInfo *norm;
	const char *reason;

	if (EICompactInfo(rel) != NULL)
		return;
	norm = EIGetNormKeyInfo(rel);
	EINormKeyPad(norm);
	if (!norm->ok)
		reason = norm->reason;
	else if (norm->keylen <= 0 || norm->keylen > SEQTREE_MAX_KEYLEN)
		reason = "its normalized keys are too long";
	else
		reason = "its table does not use the heap access method";
	ereport(ERROR,
			(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
			 errmsg("index \"%s\" cannot have compact leaves",
					RelationGetRelationName(rel)),
			 errdetail("Compact leaves need normalized keys of plain columns in a heap table, but %s.",
					   reason),
			 errhint("Set compact_leaves = off for this index.")));
}

/*
 * The normalized-key information EICompactInfo found for the index's
 * current file, or NULL if it was not looked up (or there is none):
 * reads only the cache, so it may be called under buffer locks.
 */
EINormKeyInfo *
EICompactInfoCached(Relation rel)
{
	EICompactCache *cache;

	if (!EIRelHasCompactKind(rel))
		return NULL;
	cache = EIGetLeafKindCache(rel, sizeof(EICompactCache));
	if (!cache->compact_checked ||
		cache->compact_relfilenode != EIRelFileNumber(EIRelationLocator(rel)))
		return NULL;
	return cache->compact_norm;
}

/*
 * Look up the normalized-key information before any page of the index is
 * locked (EILeafKindOps.prepare): the cache it fills lives as long as the
 * relcache entry, so the leaf ops find it there under their locks.
 */
void
EICompactPrepare(Relation rel)
{
	(void) EICompactInfo(rel);
}

/*
 * WAL-log pages that were rewritten whole as full images; with a valid
 * sibling, also the left-link change of the last image's right sibling.
 * Called inside the critical section that changed them.
 */
void
EICompactLogImages(Relation rel, uint8 kind, Buffer *bufs, int nbufs,
				   Buffer sibling)
{
	xl_ei_compact_image xlrec;
	XLogRecPtr	recptr;
	int			i;

	if (!RelationNeedsWAL(rel))
		return;

	xlrec.kind = kind;
	xlrec.nimages = (uint8) nbufs;
	xlrec.flags = BufferIsValid(sibling) ? EI_XLOG_IMAGE_SIBLING : 0;

	XLogBeginInsert();
	XLogRegisterData((char *) &xlrec, SizeOfEICompactImage);
	for (i = 0; i < nbufs; i++)
		XLogRegisterBuffer(i, bufs[i], REGBUF_STANDARD | REGBUF_FORCE_IMAGE);
	if (BufferIsValid(sibling))
		XLogRegisterBuffer(nbufs, sibling, REGBUF_STANDARD);
	recptr = XLogInsert(EI_RMGR_ID, XLOG_EI_COMPACT_IMAGE);

	for (i = 0; i < nbufs; i++)
		PageSetLSN(BufferGetPage(bufs[i]), recptr);
	if (BufferIsValid(sibling))
		PageSetLSN(BufferGetPage(sibling), recptr);
}

/*
 * Convert the write-locked standard leaf buf to a compact leaf in place,
 * from its own tuples (no heap reads).  Returns false, changing nothing,
 * if the index cannot have compact leaves.
 */
bool
EICompactConvert(Relation rel, Buffer buf)
{
	EINormKeyInfo *norm = EICompactInfo(rel);
	Page		page = BufferGetPage(buf);
	EIPageOpaque opaque = EIPageGetOpaque(page);
	Page		tmp;

	if (norm == NULL || !EI_IS_LEAF(opaque) || EI_IGNORE(opaque) ||
		(opaque->ei_flags & EI_COMPACT))
		return false;

	/* its tuples are read whole: check every one first */
	EICheckPageItems(rel, buf);

	tmp = PageGetTempPage(page);
	if (!EICompactFromLeaf(rel, norm, page, tmp))
	{
		pfree(tmp);
		return false;
	}
	PageSetLSN(tmp, PageGetLSN(page));

	START_CRIT_SECTION();
	memcpy(page, tmp, BLCKSZ);
	MarkBufferDirty(buf);
	EICompactLogImages(rel, EI_COMPACT_IMAGE_CONVERT, &buf, 1, InvalidBuffer);
	END_CRIT_SECTION();

	pfree(tmp);
	EIStatsCount(rel, EI_STAT_TO_COMPACT, 1);
	return true;
}

/*
 * Remove the entries at the npos positions (ascending; none: only log the
 * horizon) of a write-locked compact leaf, whose heap tuples a search found
 * dead to everybody: heap items LP_DEAD, whose pruning already resolved
 * conflicts with standby queries, or HOT chains not yet pruned, whose
 * deleting xids reach up to horizon (else InvalidTransactionId): the
 * record then carries it, and redo resolves the conflicts first.
 */
static void
ei_compact_remove_dead(Relation rel, Relation heapRel, Buffer buf,
					   uint16 *positions, int npos, TransactionId horizon)
{
	Page		page = BufferGetPage(buf);
	bool		catalog = TransactionIdIsValid(horizon) &&
		RelationIsAccessibleInLogicalDecoding(heapRel);

	EICompactCheckDelete(rel, buf, positions, npos);

	START_CRIT_SECTION();

	if (npos > 0)
		EICompactDeleteMany(page, positions, npos);
	MarkBufferDirty(buf);

	if (RelationNeedsWAL(rel))
	{
		xl_ei_compact_delete xlrec;
		XLogRecPtr	recptr;

		xlrec.ndeleted = (uint16) npos;
		xlrec.flags = 0;
		if (TransactionIdIsValid(horizon))
			xlrec.flags |= EI_XLOG_COMPACT_HORIZON;
		if (catalog)
			xlrec.flags |= EI_XLOG_COMPACT_CATALOG;
		XLogBeginInsert();
		XLogRegisterData((char *) &xlrec, SizeOfEICompactDelete);
		if (TransactionIdIsValid(horizon))
			XLogRegisterData((char *) &horizon, sizeof(TransactionId));
		XLogRegisterBuffer(0, buf, REGBUF_STANDARD);
		if (npos > 0)
			XLogRegisterBufData(0, (char *) positions, npos * sizeof(uint16));
		recptr = XLogInsert(EI_RMGR_ID, XLOG_EI_COMPACT_DELETE);
		PageSetLSN(page, recptr);
	}

	END_CRIT_SECTION();
	if (npos > 0)
		EIStatsCount(rel, EI_STAT_DEAD_REMOVED_ON_INSERT, npos);
}

/*
 * Remove the entries at the given positions (ascending) of a
 * cleanup-locked compact leaf for VACUUM.
 */
void
EICompactVacuumPage(Relation rel, Buffer buf, uint16 *positions, int npos)
{
	Page		page = BufferGetPage(buf);

	EICompactCheckDelete(rel, buf, positions, npos);

	START_CRIT_SECTION();

	EICompactDeleteMany(page, positions, npos);
	MarkBufferDirty(buf);

	if (RelationNeedsWAL(rel))
	{
		xl_ei_compact_delete xlrec;
		XLogRecPtr	recptr;

		xlrec.ndeleted = (uint16) npos;
		xlrec.flags = EI_XLOG_COMPACT_VACUUM;
		XLogBeginInsert();
		XLogRegisterData((char *) &xlrec, SizeOfEICompactDelete);
		XLogRegisterBuffer(0, buf, REGBUF_STANDARD);
		XLogRegisterBufData(0, (char *) positions, npos * sizeof(uint16));
		recptr = XLogInsert(EI_RMGR_ID, XLOG_EI_COMPACT_DELETE);
		PageSetLSN(page, recptr);
	}

	END_CRIT_SECTION();
}

/*
 * Can the entry itup be stored in a compact leaf of rel (which can have
 * them)?  Only a key longer than EI_NORMKEY_VARKEY_LEN cannot.
 */
bool
EICompactKeyFits(Relation rel, IndexTuple itup)
{
	EINormKeyInfo *norm = EICompactInfo(rel);
	Datum		values[INDEX_MAX_KEYS];
	bool		isnull[INDEX_MAX_KEYS];
	StringInfoData key;
	bool		fits;

	if (norm == NULL || !norm->padded)
		return true;
	index_deform_tuple(itup, RelationGetDescr(rel), values, isnull);
	initStringInfo(&key);
	fits = EINormalizeKey(norm, values, isnull, &itup->t_tid, &key);
	pfree(key.data);
	return fits;
}

/*
 * Does the write-locked leaf buf, locked again after a wait, still take
 * the entry whose insertion scan key is scankey as a compact leaf?  A split
 * may have moved its key range right meanwhile.
 */
static bool
ei_compact_still_covers(Relation rel, Buffer buf, EIScanInsert scankey)
{
	Page		page = BufferGetPage(buf);
	EIPageOpaque opaque = EIPageGetOpaque(page);

	if (EI_IGNORE(opaque) || !EI_IS_LEAF(opaque) ||
		!(opaque->ei_flags & EI_COMPACT))
		return false;
	return EI_RIGHTMOST(opaque) ||
		EICompare(rel, scankey, page, EI_HIKEY) < (scankey->nextkey ? 0 : 1);
}

/*
 * Insert itup, whose insertion scan key is scankey, into the write-locked
 * compact leaf buf: one SeqTree search (one heap read) finds its position.
 * Returns EI_LEAF_INSERTED, having released buf, when the entry is in;
 * EI_LEAF_FULL, keeping buf locked, when the leaf must be split first;
 * EI_LEAF_RESTART, having released buf, when the caller must descend
 * again.
 *
 * A key too long for a compact leaf (a variable-width one) makes the leaf
 * standard again, after halving it as often as it takes to fit into one
 * standard leaf; the caller then inserts the entry there.  The search
 * reads a key toasted out of line with the leaf unlocked (pinned), and
 * restarts if a split moved the entry's place meanwhile.
 */
EILeafInsertResult
EICompactInsert(EIInsertState istate)
{
	Relation	rel = istate->rel;
	Relation	heapRel = istate->heapRel;
	Buffer		buf = istate->buf;
	EIScanInsert scankey = istate->key;
	IndexTuple	itup = istate->itup;
	EINormKeyInfo *norm = EICompactInfo(rel);
	Page		page = BufferGetPage(buf);
	Datum		values[INDEX_MAX_KEYS];
	bool		isnull[INDEX_MAX_KEYS];
	StringInfoData key;
	EIHeapKeyReader *reader;
	SeqTreeLocation loc;
	bool		relocked = false;

	if (norm == NULL)
		elog(ERROR, "index \"%s\" has a compact leaf but cannot have compact leaves",
			 RelationGetRelationName(rel));
	EICompactCheckLeaf(rel, buf);

	index_deform_tuple(itup, RelationGetDescr(rel), values, isnull);
	initStringInfo(&key);
	if (!EINormalizeKey(norm, values, isnull, &itup->t_tid, &key))
	{
		pfree(key.data);
		if (!EICompactExpand(rel, heapRel, buf))
			return EI_LEAF_FULL;
		EIRelBuf(rel, buf);
		return EI_LEAF_RESTART;
	}

	reader = EIHeapKeyReaderBegin(heapRel, rel, norm);
	for (;;)
	{
		EIHeapKeyResult why;
		int			bad = EICompactSearch(page, reader, (uint8 *) key.data,
										  &loc, &why);
		ItemPointerData tid;

		if (bad < 0)
			break;
		if (why == EI_HEAPKEY_DEAD)
		{
			uint16		position = (uint16) bad;

			ei_compact_remove_dead(rel, heapRel, buf, &position, 1,
								   reader->dead_horizon);
			continue;
		}

		/* a key toasted out of line: read it with the leaf unlocked */
		EICompactGetTid(page, bad, &tid);
		EIHeapKeyFetchUnlocked(reader, buf, EI_WRITE, &tid);
		if (!ei_compact_still_covers(rel, buf, scankey))
		{
			EIHeapKeyReaderEnd(reader);
			pfree(key.data);
			EIRelBuf(rel, buf);
			return EI_LEAF_RESTART;
		}
		relocked = true;
	}
	EIHeapKeyReaderEnd(reader);
	pfree(key.data);

	/*
	 * ei_insert checked the leaf for serializable conflicts before this
	 * insert unlocked it: a reader may have locked and read it since,
	 * without the entry, so check again now that it is locked until the
	 * entry is in.
	 */
	if (relocked && istate->own_entry)
		CheckForSerializableConflictIn(rel, NULL, BufferGetBlockNumber(buf));

	if (loc.exact && istate->may_be_present)
	{
		/* a batch's or flush's entry that is here already (an earlier try) */
		EIRelBuf(rel, buf);
		return EI_LEAF_INSERTED;
	}
	if (loc.exact)
		elog(ERROR, "entry for heap TID (%u,%u) is already in index \"%s\"",
			 ItemPointerGetBlockNumber(&itup->t_tid),
			 ItemPointerGetOffsetNumber(&itup->t_tid),
			 RelationGetRelationName(rel));
	if (!EICompactHasRoom(rel, buf, loc.pos + 1, &itup->t_tid))
	{
		ei_compact_full_block = BufferGetBlockNumber(buf);
		ei_compact_full_pos = loc.pos + 1;
		ei_compact_full_seq = false;
		if (loc.pos >= 0)
		{
			ItemPointerData prev;

			EICompactGetTid(page, loc.pos, &prev);
			ei_compact_full_seq = ItemPointerCompare(&prev, &itup->t_tid) < 0 &&
				ItemPointerGetBlockNumber(&itup->t_tid) -
				ItemPointerGetBlockNumber(&prev) <= 1;
		}
		return EI_LEAF_FULL;
	}
	/* a damaged bits[] can give bits the insertion refuses: not in there */
	EICompactCheckInsert(rel, buf, loc.pos + 1, loc.lbit, loc.rbit);

	START_CRIT_SECTION();

	if (!EICompactInsertAt(page, loc.pos + 1, loc.lbit, loc.rbit, &itup->t_tid))
		elog(PANIC, "compact leaf lost its room during an insert");
	MarkBufferDirty(buf);

	if (RelationNeedsWAL(rel))
	{
		xl_ei_compact_insert xlrec;
		XLogRecPtr	recptr;

		xlrec.pos = loc.pos + 1;
		xlrec.lbit = loc.lbit;
		xlrec.rbit = loc.rbit;
		xlrec.tid = itup->t_tid;
		XLogBeginInsert();
		XLogRegisterData((char *) &xlrec, SizeOfEICompactInsert);
		XLogRegisterBuffer(0, buf, REGBUF_STANDARD);
		recptr = XLogInsert(EI_RMGR_ID, XLOG_EI_COMPACT_INSERT);
		PageSetLSN(page, recptr);
	}

	END_CRIT_SECTION();

	EIStatsCount(rel, EI_STAT_COMPACT_INSERTS, 1);
	EIRelBuf(rel, buf);
	return EI_LEAF_INSERTED;
}

/*
 * Where a compact leaf of n >= 2 entries splits: the first entry that goes
 * right.  Half and half, or the fill factor's share left on the rightmost
 * leaf.  When the entry that filled the leaf would go into its right half
 * right after an entry whose heap TID it closely follows (seqpos: its
 * position, else -1), entries arrive in heap order there: a
 * low-cardinality column's equal keys (which sort by TID) at the end of
 * their value's run, one stream of a multi-column key, a time series in a
 * leaf that is not the last.  The entries before it then go left, up to
 * the fill factor's share, as nbtree splits after a new tuple in such a
 * pattern; half-empty left pages would stay so.  After backoff failed
 * tries (a half did not fit its page, EICompactSplitPages), the split
 * point moves halfway back to the middle each time, and to the middle
 * itself from the EI_COMPACT_SPLIT_BACKOFFS-th on.
 */
static int
ei_compact_split_point(Relation rel, EIPageOpaque opaque, int n, int seqpos,
					   int backoff)
{
	int			ff = (n * EIGetFillFactor(rel)) / 100;
	int			at = EI_RIGHTMOST(opaque) ? ff : n / 2;

	if (seqpos > n / 2)
		at = Min(seqpos, ff);
	if (backoff >= EI_COMPACT_SPLIT_BACKOFFS)
		at = n / 2;
	else if (backoff > 0 && at > n / 2)
		at = n / 2 + ((at - n / 2) >> backoff);
	else if (backoff > 0)
		at = n / 2 - ((n / 2 - at) >> backoff);

	return Max(1, Min(at, n - 1));
}

/*
 * Split the full, write-locked compact leaf buf (both phases; releases
 * buf).  The left page keeps half the entries, or the fill factor's share
 * on the rightmost leaf; no key is read but the first right entry's, whose
 * heap values make the left page's new high key.  The caller inserts its
 * entry again from the top.
 */
void
EICompactSplitLeaf(Relation rel, Relation heapRel, Buffer buf, EIStack stack)
{
	EINormKeyInfo *norm = EICompactInfo(rel);
	Page		origpage = BufferGetPage(buf);
	EIPageOpaque oopaque = EIPageGetOpaque(origpage);
	BlockNumber origblk = BufferGetBlockNumber(buf);
	bool		isroot = EI_IS_ROOT(oopaque);
	int			n;
	int			at;
	int			seqpos;
	int			backoff = 0;
	int			delta;
	EIHeapKeyReader *reader;
	IndexTuple	lefthikey = NULL;
	Page		leftpage;
	Page		rightpage;
	Buffer		rbuf;
	Buffer		sbuf = InvalidBuffer;
	BlockNumber rightblk;
	Buffer		images[2];

	EICompactCheckLeaf(rel, buf);
	n = EICompactNKeys(origpage);
	if (norm == NULL || n < 2)
		elog(ERROR, "cannot split compact leaf %u of index \"%s\" with %d entries",
			 origblk, RelationGetRelationName(rel), n);

	seqpos = ei_compact_full_block == origblk && ei_compact_full_seq ?
		ei_compact_full_pos : -1;
	ei_compact_full_block = InvalidBlockNumber;
retry:
	at = ei_compact_split_point(rel, oopaque, n, seqpos, backoff);

	/*
	 * The first right entry's key makes the pivot; skip dead entries.  If
	 * the only live ones have keys toasted out of line, read the one at the
	 * split point with the leaf unlocked (pinned) and try again: the leaf
	 * may have changed meanwhile, so recompute the split point.
	 */
	reader = EIHeapKeyReaderBegin(heapRel, rel, norm);
	reader->want_tuple = true;
	for (;;)
	{
		int			unreadable = -1;

		for (delta = 0; lefthikey == NULL && delta < n; delta++)
		{
			int			cands[2] = {at + delta, at - delta};

			for (int c = 0; c < 2 && lefthikey == NULL; c++)
			{
				ItemPointerData tid;
				EIHeapKeyResult result;

				if (cands[c] < 1 || cands[c] > n - 1 || (c == 1 && delta == 0))
					continue;
				EICompactGetTid(origpage, cands[c], &tid);
				result = EIHeapKeyRead(reader, &tid);
				if (result == EI_HEAPKEY_FOUND)
				{
					at = cands[c];
					lefthikey = EIFormPivot(rel, NULL, reader->itup);
					pfree(reader->itup);
				}
				else if (result == EI_HEAPKEY_UNREADABLE && unreadable < 0)
					unreadable = cands[c];
			}
		}
		if (lefthikey != NULL || unreadable < 0)
			break;

		{
			ItemPointerData tid;

			EICompactGetTid(origpage, unreadable, &tid);
			EIHeapKeyFetchUnlocked(reader, buf, EI_WRITE, &tid);
		}
		oopaque = EIPageGetOpaque(origpage);
		n = EI_IGNORE(oopaque) || !(oopaque->ei_flags & EI_COMPACT) ?
			0 : EICompactNKeys(origpage);
		if (n < 2)
		{
			/* no longer a compact leaf worth splitting: the caller retries */
			EIHeapKeyReaderEnd(reader);
			EIRelBuf(rel, buf);
			return;
		}
		isroot = EI_IS_ROOT(oopaque);
		at = ei_compact_split_point(rel, oopaque, n, seqpos, backoff);
	}
	EIHeapKeyReaderEnd(reader);
	if (lefthikey == NULL)
		elog(ERROR, "no live entry to split compact leaf %u of index \"%s\" at",
			 origblk, RelationGetRelationName(rel));

	leftpage = PageGetTempPage(origpage);
	rightpage = PageGetTempPage(origpage);
	if (!EICompactSplitPages(origpage, at, lefthikey, leftpage, rightpage))
	{
		/*
		 * The larger half of a split away from the middle (the fill
		 * factor's share, or after a stream) can outgrow its page: its TIDs
		 * coded afresh may take more bytes than in the leaf, and the left
		 * half gets a new high key.  Move the split point back toward the
		 * middle, which always fits.
		 */
		if (backoff >= EI_COMPACT_SPLIT_BACKOFFS)
			elog(ERROR, "compact leaf %u of index \"%s\" does not split at its middle",
				 origblk, RelationGetRelationName(rel));
		pfree(leftpage);
		pfree(rightpage);
		pfree(lefthikey);
		lefthikey = NULL;
		backoff++;
		goto retry;
	}

	rbuf = EINewBuf(rel);
	rightblk = BufferGetBlockNumber(rbuf);
	EIPageGetOpaque(leftpage)->ei_prev = oopaque->ei_prev;
	EIPageGetOpaque(leftpage)->ei_next = rightblk;
	EIPageGetOpaque(rightpage)->ei_prev = origblk;
	EIPageGetOpaque(rightpage)->ei_next = oopaque->ei_next;

	if (!EI_RIGHTMOST(oopaque))
	{
		EIPageOpaque sopaque;

		sbuf = EIGetBuf(rel, oopaque->ei_next, EI_WRITE);
		sopaque = EIPageGetOpaque(BufferGetPage(sbuf));
		if (sopaque->ei_prev != origblk)
			ereport(ERROR,
					(errcode(ERRCODE_INDEX_CORRUPTED),
					 errmsg("right sibling's left-link doesn't match: block %u links to %u instead of expected %u in index \"%s\"",
							oopaque->ei_next, sopaque->ei_prev, origblk,
							RelationGetRelationName(rel))));
	}
	PageSetLSN(leftpage, PageGetLSN(origpage));

	START_CRIT_SECTION();

	memcpy(origpage, leftpage, BLCKSZ);
	memcpy(BufferGetPage(rbuf), rightpage, BLCKSZ);
	MarkBufferDirty(buf);
	MarkBufferDirty(rbuf);
	if (BufferIsValid(sbuf))
	{
		EIPageGetOpaque(BufferGetPage(sbuf))->ei_prev = rightblk;
		MarkBufferDirty(sbuf);
	}
	images[0] = buf;
	images[1] = rbuf;
	EICompactLogImages(rel, EI_COMPACT_IMAGE_SPLIT, images, 2, sbuf);

	END_CRIT_SECTION();

	/* the right half's entries keep the readers' predicate locks */
	PredicateLockPageSplit(rel, origblk, rightblk);

	EIStatsCount(rel, EI_STAT_COMPACT_SPLITS, 1);
	EIStatsCount(rel, EI_STAT_LEAF_SPLITS, 1);
	if (BufferIsValid(sbuf))
		EIRelBuf(rel, sbuf);
	pfree(leftpage);
	pfree(rightpage);
	pfree(lefthikey);
	if (RelationGetTargetBlock(rel) == origblk)
		RelationSetTargetBlock(rel, InvalidBlockNumber);

	if (ei_debug_fault == EI_FAULT_AFTER_SPLIT)
	{
		/* leave the split incomplete, as a crash here would */
		EIRelBuf(rel, rbuf);
		EIRelBuf(rel, buf);
		EIFaultPoint(EI_FAULT_AFTER_SPLIT);
	}
	EIInsertParent(rel, buf, rbuf, stack, isroot);
}

/*
 * Split the full compact leaf of an insert (EILeafKindOps.split).
 */
void
EICompactSplit(EIInsertState istate)
{
	EICompactSplitLeaf(istate->rel, istate->heapRel, istate->buf,
					   istate->stack);
}

/*
 * Start the standard form of compact leaf page in tmp: same links, level
 * and flags but EI_COMPACT and the hints, same high key, no entries.
 */
static void
ei_expand_begin(Page page, Page tmp)
{
	EIPageOpaque opaque = EIPageGetOpaque(page);
	EIPageOpaque topaque;

	EIInitPage(tmp, opaque->ei_flags & ~(EI_COMPACT | EI_HAS_GARBAGE | EI_ACCESSED),
			   opaque->ei_level);
	topaque = EIPageGetOpaque(tmp);
	topaque->ei_prev = opaque->ei_prev;
	topaque->ei_next = opaque->ei_next;
	if (!EI_RIGHTMOST(opaque))
	{
		IndexTuple	hikey = EIReadTuple(page, EI_HIKEY);

		if (PageAddItem(tmp, (Item) hikey, MAXALIGN(IndexTupleSize(hikey)),
						EI_HIKEY, false, false) == InvalidOffsetNumber)
			elog(ERROR, "failed to add high key to expanded leaf");
	}
}

/*
 * Convert the write-locked compact leaf buf back to a standard leaf, with
 * every live entry's key read from the heap; entries whose heap items are
 * LP_DEAD are left out.  Returns false, changing nothing, if the entries
 * do not fit in a standard leaf (the caller splits the compact leaf first).
 *
 * A key toasted out of line is read with the leaf unlocked (pinned); the
 * leaf may change meanwhile, so the conversion then starts over (and
 * returns true at once if somebody else converted the leaf).
 */
bool
EICompactExpand(Relation rel, Relation heapRel, Buffer buf)
{
	EINormKeyInfo *norm = EICompactInfo(rel);
	Page		page = BufferGetPage(buf);
	EIPageOpaque opaque = EIPageGetOpaque(page);
	int			n;
	EIHeapKeyReader *reader;
	Page		tmp;
	OffsetNumber off;
	bool		fits = true;

	if (norm == NULL)
		elog(ERROR, "index \"%s\" has a compact leaf but cannot have compact leaves",
			 RelationGetRelationName(rel));
	EICompactCheckLeaf(rel, buf);
	n = EICompactNKeys(page);

	tmp = PageGetTempPage(page);
	ei_expand_begin(page, tmp);

	/* an empty leaf (VACUUM emptied it) needs no table */
	reader = n > 0 ? EIHeapKeyReaderBegin(heapRel, rel, norm) : NULL;
	if (reader != NULL)
		reader->want_tuple = true;
	off = EI_FIRST_DATA(EIPageGetOpaque(tmp));
	for (int pos = 0; pos < n && fits; pos++)
	{
		ItemPointerData tid;
		EIHeapKeyResult result;

		EICompactGetTid(page, pos, &tid);
		result = EIHeapKeyRead(reader, &tid);
		if (result == EI_HEAPKEY_DEAD)
			continue;
		if (result == EI_HEAPKEY_UNREADABLE)
		{
			EIHeapKeyFetchUnlocked(reader, buf, EI_WRITE, &tid);
			if (EI_IGNORE(opaque) || !(opaque->ei_flags & EI_COMPACT))
			{
				EIHeapKeyReaderEnd(reader);
				pfree(tmp);
				return true;
			}
			n = EICompactNKeys(page);
			ei_expand_begin(page, tmp);
			off = EI_FIRST_DATA(EIPageGetOpaque(tmp));
			pos = -1;
			continue;
		}
		if (PageAddItem(tmp, (Item) reader->itup,
						MAXALIGN(IndexTupleSize(reader->itup)), off,
						false, false) == InvalidOffsetNumber)
			fits = false;
		else
			off++;
		pfree(reader->itup);
	}
	if (!fits)
	{
		if (reader != NULL)
			EIHeapKeyReaderEnd(reader);
		pfree(tmp);
		return false;
	}

	/*
	 * Entries of HOT chains found dead with the leaf unlocked, not yet
	 * pruned, are left out: standby queries that may still see them
	 * conflict first.
	 */
	if (reader != NULL && TransactionIdIsValid(reader->dead_horizon))
		ei_compact_remove_dead(rel, heapRel, buf, NULL, 0,
							   reader->dead_horizon);
	if (reader != NULL)
		EIHeapKeyReaderEnd(reader);
	PageSetLSN(tmp, PageGetLSN(page));

	START_CRIT_SECTION();
	memcpy(page, tmp, BLCKSZ);
	MarkBufferDirty(buf);
	EICompactLogImages(rel, EI_COMPACT_IMAGE_EXPAND, &buf, 1, InvalidBuffer);
	END_CRIT_SECTION();

	pfree(tmp);
	EIStatsCount(rel, EI_STAT_TO_STANDARD, 1);
	return true;
}

/*
 * VACUUM of one cleanup-locked compact leaf (EILeafKindOps.vacuum): remove
 * the entries the callback reports dead, count the others; an emptied
 * compact leaf becomes an empty standard leaf (no heap reads: it has no
 * entries) so that page deletion takes it, as core/vacuum.c does with an
 * emptied standard leaf.
 */
void
EICompactVacuumLeaf(Relation rel, Buffer buf, IndexBulkDeleteCallback callback,
					void *callback_state, IndexBulkDeleteResult *stats)
{
	Page		page = BufferGetPage(buf);
	EIPageOpaque opaque = EIPageGetOpaque(page);
	int			n;
	uint16	   *positions;
	ItemPointerData *tids;
	int			npos = 0;

	EICompactCheckLeaf(rel, buf);
	n = EICompactNKeys(page);
	positions = palloc(sizeof(uint16) * Max(n, 1));
	tids = palloc(sizeof(ItemPointerData) * Max(n, 1));
	EICompactGetTids(page, 0, n, tids);

	for (int pos = 0; pos < n; pos++)
	{
		ItemPointerData tid = tids[pos];

		if (callback != NULL && callback(&tid, callback_state))
			positions[npos++] = (uint16) pos;
		else
			stats->num_index_tuples += 1;
	}
	if (npos > 0)
	{
		EICompactVacuumPage(rel, buf, positions, npos);
		stats->tuples_removed += npos;
		EIStatsCount(rel, EI_STAT_DEAD_REMOVED_BY_VACUUM, npos);
	}
	pfree(positions);
	pfree(tids);

	if (callback != NULL && !EI_RIGHTMOST(opaque) &&
		EICompactNKeys(page) == 0)
		(void) EICompactExpand(rel, NULL, buf);
}

/*
 * How many of the sorted leaf tuples entries[0..nentries) a new compact
 * leaf takes when filled to fillfactor (EILeafKindOps.fill_count): the
 * capacity EICompactCapacity gives for the index's key length, the TID
 * code's bytes per entry measured on the entries themselves and a high
 * key as long as the first entry's key (without a posting list's TIDs)
 * with a heap TID.  Reads only the cache
 * EICompactInfo filled (the caller's insert_prepare), so it may run under
 * buffer locks; 0 when the index has no compact leaves.
 */
int
EICompactFillCount(Relation rel, IndexTuple *entries, int nentries,
				   int fillfactor)
{
	EINormKeyInfo *norm = EICompactInfoCached(rel);
	int			maxtids = Min(EI_MAX_ITEMS_PER_PAGE, SEQTREE_MAX_KEYS);
	ItemPointerData *tids;
	int			ntids = 0;
	int			capacity;
	int			target;
	int			k;
	int			taken = 0;

	if (norm == NULL || nentries <= 0)
		return 0;

	/* the TIDs of as many entries as a compact leaf could hold at most */
	tids = palloc(sizeof(ItemPointerData) * maxtids);
	for (k = 0; k < nentries && ntids < maxtids; k++)
		for (int t = 0; t < EILeafNTIDs(entries[k]) && ntids < maxtids; t++)
			tids[ntids++] = EITupleIsPosting(entries[k]) ?
				*EIPostingTID(entries[k], t) : entries[k]->t_tid;
	/* the high key keeps a posting list's key, not its TIDs (EIFormPivot) */
	capacity = EICompactCapacity(norm->keylen,
								 EIPostingKeySize(entries[0]) + sizeof(ItemPointerData),
								 EICompactTidBytes(tids, ntids));
	pfree(tids);
	target = (int) ((int64) capacity * fillfactor / 100);

	/* whole tuples (a posting list counts as its TIDs) up to the target */
	for (k = 0; k < nentries; k++)
	{
		if (taken + EILeafNTIDs(entries[k]) > target)
			break;
		taken += EILeafNTIDs(entries[k]);
	}
	return k;
}

/*
 * Make page, a new leaf without entries, the compact leaf of the sorted
 * leaf tuples entries[0..nentries) (EILeafKindOps.form): no heap reads, the
 * keys come from the tuples.  false if they do not fit or the index has no
 * compact leaves (as the cache says: runs under buffer locks).
 */
bool
EICompactFormNew(Relation rel, IndexTuple *entries, int nentries, Page page)
{
	EINormKeyInfo *norm = EICompactInfoCached(rel);

	if (norm == NULL)
		return false;
	return EICompactFormLeaf(rel, norm, entries, nentries, page);
}

/* Compact leaves, as the core sees them through the policy table. */
const EILeafKindOps EICompactLeafOps = {
	.prepare = EICompactPrepare,
	.insert = EICompactInsert,
	.split = EICompactSplit,
	.read = EICompactScanRead,
	.rescan = EICompactScanRescan,
	.endscan = EICompactScanEnd,
	.vacuum = EICompactVacuumLeaf,
	.verify = EICompactVerifyLeaf,
	.fill_count = EICompactFillCount,
	.form = EICompactFormNew,
	.records = EICompactRecords,
};
