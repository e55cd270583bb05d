/*-------------------------------------------------------------------------
 *
 * scan.c
 *	  Reading compact leaves in an index scan (EILeafKindOps.read): the
 *	  entries between the scan's bounds, found by bits[] alone for a point
 *	  lookup, else by SeqTree searches that read keys from the heap.
 *
 * The core's scan (core/scan.c) reads standard leaves itself and hands a
 * compact leaf, pinned and share-locked, to EICompactScanRead, which fills
 * so->currPos as the core's reader does, with every row to be rechecked.
 * See src/README.md, "Compact leaves in the tree".
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/nbtree.h"
#include "access/relscan.h"
#include "access/table.h"
#include "eicompact.h"
#include "utils/memutils.h"
#include "utils/rel.h"
#include "utils/snapmgr.h"

/*
 * What a scan needs on compact leaves (src/README.md, "Compact leaves in the
 * tree"): the table to read keys from, and the scan's bounds on the first
 * key column as normalized keys, computed once per rescan.  lower is
 * padded so that it sorts before (or, for a strict bound, after) every
 * entry with the bound's value, upper likewise after (or before).
 */
typedef struct EIScanCompact
{
	Relation	heap;			/* NULL until a key must be read */
	EIHeapKeyReader *reader;	/* likewise */
	bool		bounds_ready;
	bool		has_lower;
	bool		has_upper;
	char	   *lower;			/* keylen bytes each */
	char	   *upper;
	int			point_prefixlen;	/* lower and upper are one prefix padded
									 * with 0x00 and 0xFF: its length; else 0 */
	StringInfoData norm;		/* workspace: a key normalized */
	char	   *bound;			/* workspace: a padded bound (keylen bytes) */
	EICompactTidGroup tids;		/* decoded for the leaf being read */
} EIScanCompact;

/*
 * Most entries a forward scan takes from a compact leaf by bits[] alone,
 * without a heap read, when its bounds are one prefix (a point lookup):
 * all of them are rechecked, and if the key is absent they are another
 * key's entries, each a wasted heap fetch.
 */
#define EI_COMPACT_POINT_RUN	4

static EIScanCompact *ei_compact_state(IndexScanDesc scan, EINormKeyInfo *norm);
static EIHeapKeyReader *ei_compact_reader(IndexScanDesc scan,
										  EIScanCompact *cs,
										  EINormKeyInfo *norm);
static void ei_compact_search_bounds(IndexScanDesc scan, EIScanCompact *cs,
									 EINormKeyInfo *norm, Page page, int n,
									 bool forward, int *plo, int *phi);
static void ei_compact_bounds(IndexScanDesc scan, EIScanCompact *cs,
							  EINormKeyInfo *norm);

/*
 * Return the scan's compact-leaf state, creating it on the first compact
 * leaf.
 */
static EIScanCompact *
ei_compact_state(IndexScanDesc scan, EINormKeyInfo *norm)
{
	EIScanOpaque so = (EIScanOpaque) scan->opaque;

	if (so->leaf_state == NULL)
	{
		MemoryContext oldcxt = MemoryContextSwitchTo(GetMemoryChunkContext(so));
		EIScanCompact *cs = palloc0(sizeof(EIScanCompact));

		cs->lower = palloc(norm->keylen);
		cs->upper = palloc(norm->keylen);
		initStringInfo(&cs->norm);
		cs->bound = palloc(norm->keylen);
		so->leaf_state = cs;
		MemoryContextSwitchTo(oldcxt);
	}
	return (EIScanCompact *) so->leaf_state;
}

/*
 * Return the scan's heap key reader, opening the table and the reader the
 * first time a key must be read: a point lookup that bits[] settle never
 * reads one.  The table is opened without a lock: the leaf is share-locked
 * here, and taking a lock mode this backend does not hold yet (an UPDATE's
 * target holds RowExclusiveLock) would process invalidations, which may
 * read the catalogs, under it.  The executor holds a lock on the table for
 * as long as it scans the index (as EIScanCheckHeapTid relies on too).
 */
static EIHeapKeyReader *
ei_compact_reader(IndexScanDesc scan, EIScanCompact *cs, EINormKeyInfo *norm)
{
	EIScanOpaque so = (EIScanOpaque) scan->opaque;
	Relation	rel = scan->indexRelation;

	if (cs->heap == NULL)
		cs->heap = table_open(rel->rd_index->indrelid, NoLock);
	if (cs->reader == NULL)
	{
		MemoryContext oldcxt = MemoryContextSwitchTo(GetMemoryChunkContext(so));

		cs->reader = EIHeapKeyReaderBegin(cs->heap, rel, norm);
		MemoryContextSwitchTo(oldcxt);
	}
	cs->reader->want_tuple = (so->currTuples != NULL);
	/* an index-only scan needs no TOAST of entries its snapshot cannot see */
	cs->reader->snapshot =
		(so->currTuples != NULL && IsMVCCSnapshot(scan->xs_snapshot)) ?
		scan->xs_snapshot : NULL;
	return cs->reader;
}

/*
 * Turn the scan's keys on the first column into normalized lower and upper
 * bounds (in index order: the keys' strategies already are, and an array
 * key's elements are sorted so: its first and last bound the column).  A
 * bound is the column's normalized prefix padded with 0x00 or 0xFF to the
 * key length; no entry equals a padded key, because no heap TID has offset 0
 * or 0xFFFF (a variable-width prefix ends in its terminator, so the next
 * byte of an entry is a column marker or a heap TID byte, followed by more
 * non-padding bytes).  Keys that cannot be converted give no bound.
 */
static void
ei_compact_bounds(IndexScanDesc scan, EIScanCompact *cs, EINormKeyInfo *norm)
{
	EIScanOpaque so = (EIScanOpaque) scan->opaque;
	Relation	rel = scan->indexRelation;
	int			prefixlen;
	StringInfo	tmp = &cs->norm;
	char	   *bound = cs->bound;
	ScanKeyData bkeysbuf[8];
	ScanKey		bkeys = bkeysbuf;
	int			nbkeys;

	/* no allocation for a few keys: a nested loop rescans per outer row */
	cs->has_lower = cs->has_upper = false;
	if (2 * so->numberOfKeys > (int) lengthof(bkeysbuf))
		bkeys = palloc(sizeof(ScanKeyData) * 2 * so->numberOfKeys);

	/* an array key bounds the column by its first and last element */
	nbkeys = 0;
	for (int i = 0; i < so->numberOfKeys; i++)
	{
		Datum		first;
		Datum		last;

		bkeys[nbkeys] = so->keyData[i];
		if (!(so->keyData[i].sk_flags & SK_SEARCHARRAY))
		{
			nbkeys++;
			continue;
		}
		if (!EIScanArrayKeyRange(scan, i, &first, &last))
			continue;
		bkeys[nbkeys].sk_flags &= ~SK_SEARCHARRAY;
		bkeys[nbkeys + 1] = bkeys[nbkeys];
		bkeys[nbkeys].sk_strategy = BTGreaterEqualStrategyNumber;
		bkeys[nbkeys].sk_argument = first;
		bkeys[nbkeys + 1].sk_strategy = BTLessEqualStrategyNumber;
		bkeys[nbkeys + 1].sk_argument = last;
		nbkeys += 2;
	}

	for (int i = 0; i < nbkeys; i++)
	{
		ScanKey		key = &bkeys[i];
		Datum		values[INDEX_MAX_KEYS];
		bool		isnull[INDEX_MAX_KEYS];
		bool		lower_pad_ff = false;
		bool		upper_pad_ff = false;
		bool		is_lower = false;
		bool		is_upper = false;

		if (key->sk_attno != 1 ||
			(key->sk_flags & (SK_ISNULL | SK_ROW_HEADER | SK_SEARCHNULL |
							  SK_SEARCHNOTNULL)))
			continue;
		switch (key->sk_strategy)
		{
			case BTEqualStrategyNumber:
				is_lower = is_upper = true;
				upper_pad_ff = true;
				break;
			case BTGreaterEqualStrategyNumber:
				is_lower = true;
				break;
			case BTGreaterStrategyNumber:
				is_lower = true;
				lower_pad_ff = true;
				break;
			case BTLessEqualStrategyNumber:
				is_upper = true;
				upper_pad_ff = true;
				break;
			case BTLessStrategyNumber:
				is_upper = true;
				break;
			default:
				continue;
		}
		if (!EIScanKeyValueAsColumn(rel, key, 0, &values[0]))
			continue;
		isnull[0] = false;
		for (int c = 1; c < norm->nkeyatts; c++)
		{
			values[c] = (Datum) 0;
			isnull[c] = true;
		}
		resetStringInfo(tmp);
		(void) EINormalizeKey(norm, values, isnull, NULL, tmp);

		/*
		 * The first column's part.  A variable-width value longer than the
		 * padded keys is cut: every stored key is shorter and first differs
		 * from the value inside itself (the encoding is prefix-free), so the
		 * cut value orders like the whole one against all of them.
		 */
		prefixlen = norm->widths[0] >= 0 ? 1 + norm->widths[0] :
			EINormKeyPrefixLength(norm, tmp->len);
		Assert(tmp->len >= prefixlen);
		prefixlen = Min(prefixlen, norm->keylen);

		if (is_lower)
		{
			memcpy(bound, tmp->data, prefixlen);
			memset(bound + prefixlen, lower_pad_ff ? 0xFF : 0x00,
				   norm->keylen - prefixlen);
			if (!cs->has_lower || memcmp(bound, cs->lower, norm->keylen) > 0)
			{
				memcpy(cs->lower, bound, norm->keylen);
				cs->has_lower = true;
			}
		}
		if (is_upper)
		{
			memcpy(bound, tmp->data, prefixlen);
			memset(bound + prefixlen, upper_pad_ff ? 0xFF : 0x00,
				   norm->keylen - prefixlen);
			if (!cs->has_upper || memcmp(bound, cs->upper, norm->keylen) < 0)
			{
				memcpy(cs->upper, bound, norm->keylen);
				cs->has_upper = true;
			}
		}
	}
	if (bkeys != bkeysbuf)
		pfree(bkeys);

	/*
	 * Bounds P + 0x00... and P + 0xFF... (an equality key's, or two that
	 * meet) hold exactly the entries that begin with P.
	 */
	cs->point_prefixlen = 0;
	if (cs->has_lower && cs->has_upper)
	{
		int			p = 0;
		bool		padded = true;

		while (p < norm->keylen && cs->lower[p] == cs->upper[p])
			p++;
		for (int i = p; i < norm->keylen && padded; i++)
			padded = ((uint8) cs->lower[i] == 0x00 &&
					  (uint8) cs->upper[i] == 0xFF);
		if (p > 0 && p < norm->keylen && padded)
			cs->point_prefixlen = p;
	}
	cs->bounds_ready = true;
}

/*
 * Narrow a compact leaf of n entries to the positions lo..hi between the
 * scan's bounds by SeqTree searches that read keys from the heap, ending the
 * scan in a direction where a bound excludes entries of the leaf.
 */
static void
ei_compact_search_bounds(IndexScanDesc scan, EIScanCompact *cs,
						 EINormKeyInfo *norm, Page page, int n, bool forward,
						 int *plo, int *phi)
{
	EIScanOpaque so = (EIScanOpaque) scan->opaque;
	EIHeapKeyReader *reader = ei_compact_reader(scan, cs, norm);
	int			lo = 0;
	int			hi = n - 1;
	bool		upper_settled = false;

	/* keys remembered for another leaf's entries are not safe here */
	EIHeapKeyReaderForget(reader);

	/*
	 * Where only unreadable entries could tell, the largest entry <= a
	 * bound is one of minpos..maxpos: take the end that keeps them all,
	 * since their rows are rechecked like every other.
	 */
	if (n > 0 && cs->has_lower)
	{
		int			minpos;
		int			maxpos;

		lo = EICompactSearchReadOnly(page, reader, &cs->tids,
									 (uint8 *) cs->lower,
									 &minpos, &maxpos) ? minpos : minpos + 1;
		if (!forward && minpos >= 0)
			so->currPos.moreLeft = false;
	}
	/*
	 * The key the lower bound's search read is at hand when it is the
	 * first entry past the lower bound (a point lookup's hit) or the one
	 * before it (often an absent key's).  That settles the upper bound
	 * without a search whenever bits[] can: a key beyond the upper bound
	 * leaves nothing from it on; one within it is followed by the entries
	 * that bits[] place below the upper bound, up to the first one they
	 * place above (a point lookup's next entry, whose key differs in the
	 * first column).
	 */
	for (int at = Min(lo, n - 1); cs->has_lower && cs->has_upper &&
		 !upper_settled && at >= Max(lo - 1, 0); at--)
	{
		ItemPointerData tid;
		const char *key;
		bool		beyond;
		int			last;

		EICompactGetTidCached(page, &cs->tids, at, &tid);
		key = EIHeapKeyReaderLastKey(reader, &tid);
		if (key == NULL || reader->key.len != norm->keylen)
			continue;
		beyond = memcmp(key, cs->upper, norm->keylen) > 0;
		last = beyond ? at - 1 :
			EICompactLastWithin(page, at, (const uint8 *) key,
								(const uint8 *) cs->upper);
		if (!beyond && last < 0)
			break;
		hi = last;
		upper_settled = true;
		if (forward && hi < n - 1)
			so->currPos.moreRight = false;
	}
	if (n > 0 && cs->has_upper && !upper_settled)
	{
		int			minpos;
		int			maxpos;

		(void) EICompactSearchReadOnly(page, reader, &cs->tids,
									   (uint8 *) cs->upper,
									   &minpos, &maxpos);
		hi = maxpos;
		if (forward && maxpos < n - 1)
			so->currPos.moreRight = false;
	}
	*plo = lo;
	*phi = hi;
}

/*
 * Collect the entries of the pinned and share-locked compact leaf
 * so->currPos.buf that may match, in index order; return whether there
 * were any.
 *
 * A compact leaf has no keys to test, so every returned row is rechecked by
 * the executor.  A forward point lookup takes the run of entries bits[]
 * give it, reading no key (EICompactPrefixRun).  Otherwise a SeqTree
 * search per bound, usually one heap read each, narrows the leaf to the
 * entries between the scan's bounds on the first column; the upper bound's
 * is skipped when the key the lower bound's search read and bits[] settle
 * it (EICompactLastWithin).  A search that meets a dead or toasted entry
 * reads another entry of its subtree instead (EICompactSearchReadOnly).  A
 * bound that excludes entries of this leaf also ends the scan in that
 * direction, as a failing required key does on a standard leaf.
 * Index-only scans read each entry's key from the heap.
 */
bool
EICompactScanRead(IndexScanDesc scan, ScanDirection dir)
{
	EIScanOpaque so = (EIScanOpaque) scan->opaque;
	Relation	rel = scan->indexRelation;
	Buffer		buf = so->currPos.buf;
	Page		page = BufferGetPage(buf);
	EIPageOpaque opaque = EIPageGetOpaque(page);
	EINormKeyInfo *norm = EICompactInfo(rel);
	bool		forward = ScanDirectionIsForward(dir);
	EIScanCompact *cs;
	int			n;
	int			lo;
	int			hi;
	int			count = 0;
	int		   *pending = NULL;
	int			npending = 0;
	ItemPointerData tidbuf[64];
	ItemPointerData *tids = tidbuf;

	if (norm == NULL)
		elog(ERROR, "index \"%s\" has a compact leaf but cannot have compact leaves",
			 RelationGetRelationName(rel));
	cs = ei_compact_state(scan, norm);
	if (!cs->bounds_ready)
		ei_compact_bounds(scan, cs, norm);

	so->currPos.recheck = true;
	n = EICompactCheckLeaf(rel, buf);
	EICompactTidGroupReset(&cs->tids);
	lo = 0;
	hi = n - 1;

	/*
	 * A forward point lookup (bounds that are one prefix) takes the run of
	 * entries bits[] give it, with no heap read: they are the prefix's
	 * entries if the leaf has any, else another prefix's, which the
	 * executor's recheck turns away.  The run says nothing about the
	 * leaves to the right when it is not the prefix's, so only the high key
	 * ends the scan, below.  An index-only scan reads the keys anyway, and
	 * a backward one would have no high key to stop it.  An empty leaf
	 * needs neither.
	 */
	if (n > 0 &&
		!(forward && so->currTuples == NULL && cs->point_prefixlen > 0 &&
		  EICompactPrefixRun(page, (const uint8 *) cs->lower,
							 cs->point_prefixlen, EI_COMPACT_POINT_RUN,
							 &lo, &hi)))
		ei_compact_search_bounds(scan, cs, norm, page, n, forward, &lo, &hi);

	/* every entry to the right is >= the high key (see ei_read_page) */
	if (forward && so->currPos.moreRight && !EI_RIGHTMOST(opaque))
	{
		bool		continuescan;

		(void) EIScanCheckKeys(scan, EIReadTuple(page, EI_HIKEY), dir,
							 &continuescan);
		if (!continuescan)
			so->currPos.moreRight = false;
	}

	/*
	 * Index-only scans read each entry's key.  Keys toasted out of line are
	 * read after the others, with the leaf unlocked but still pinned: the
	 * items are those the locked leaf held, and the pin keeps their TIDs
	 * from being reused meanwhile (see compact/heapkey.c).
	 */
	/* the TIDs of lo..hi, decoded once (the searches' group, if it holds them) */
	if (hi >= lo && hi - lo + 1 > (int) lengthof(tidbuf))
		tids = palloc(sizeof(ItemPointerData) * (hi - lo + 1));
	if (hi >= lo)
		EICompactGetTidsCached(page, &cs->tids, lo, hi - lo + 1, tids);
	for (int pos = lo; pos <= hi; pos++)
	{
		EIScanPosItem *item = &so->currPos.items[count];

		item->heapTid = tids[pos - lo];
		item->indexOffset = InvalidOffsetNumber;
		if (so->currTuples != NULL)
		{
			/* (never a run taken by bits[], so the reader is open) */
			EIHeapKeyResult result = EIHeapKeyRead(cs->reader, &item->heapTid);

			if (result == EI_HEAPKEY_DEAD)
				continue;
			if (result == EI_HEAPKEY_UNREADABLE)
			{
				if (pending == NULL)
					pending = palloc(sizeof(int) * (hi - lo + 1));
				pending[npending++] = count++;
				continue;
			}
			EIScanSaveItem(so, count, InvalidOffsetNumber, cs->reader->itup);
			pfree(cs->reader->itup);
		}
		count++;
	}
	if (npending > 0)
	{
		int			kept = 0;

		LockBuffer(buf, BUFFER_LOCK_UNLOCK);
		for (int i = 0; i < npending; i++)
		{
			EIScanPosItem *item = &so->currPos.items[pending[i]];

			if (EIHeapKeyReadUnlocked(cs->reader, &item->heapTid) ==
				EI_HEAPKEY_FOUND)
			{
				EIScanSaveItem(so, pending[i], InvalidOffsetNumber,
							 cs->reader->itup);
				pfree(cs->reader->itup);
			}
			else
				ItemPointerSetInvalid(&item->heapTid);
		}
		LockBuffer(buf, EI_READ);

		/* drop the items found dead meanwhile */
		for (int i = 0; i < count; i++)
			if (ItemPointerIsValid(&so->currPos.items[i].heapTid))
				so->currPos.items[kept++] = so->currPos.items[i];
		count = kept;
		pfree(pending);
	}

	if (tids != tidbuf)
		pfree(tids);
	if (cs->reader != NULL)
		EIHeapKeyReaderReleasePin(cs->reader);

	if (forward)
	{
		so->currPos.firstItem = 0;
		so->currPos.lastItem = count - 1;
		so->currPos.itemIndex = 0;
	}
	else
	{
		/* backward scans keep the items at the end of the array */
		memmove(&so->currPos.items[EI_MAX_ITEMS_PER_PAGE - count],
				&so->currPos.items[0], count * sizeof(EIScanPosItem));
		so->currPos.firstItem = EI_MAX_ITEMS_PER_PAGE - count;
		so->currPos.lastItem = EI_MAX_ITEMS_PER_PAGE - 1;
		so->currPos.itemIndex = EI_MAX_ITEMS_PER_PAGE - 1;
	}
	return count > 0;
}

/*
 * Forget the bounds computed for the previous keys (EILeafKindOps.rescan).
 */
void
EICompactScanRescan(IndexScanDesc scan)
{
	EIScanCompact *cs = (EIScanCompact *) ((EIScanOpaque) scan->opaque)->leaf_state;

	if (cs != NULL)
		cs->bounds_ready = false;
}

/*
 * Release what reading compact leaves took: the heap key reader and the
 * table (EILeafKindOps.endscan).
 */
void
EICompactScanEnd(IndexScanDesc scan)
{
	EIScanOpaque so = (EIScanOpaque) scan->opaque;
	EIScanCompact *cs = (EIScanCompact *) so->leaf_state;

	if (cs == NULL)
		return;
	if (cs->reader != NULL)
		EIHeapKeyReaderEnd(cs->reader);
	if (cs->heap != NULL)
		table_close(cs->heap, NoLock);
	pfree(cs->lower);
	pfree(cs->upper);
	pfree(cs->norm.data);
	pfree(cs->bound);
	pfree(cs);
	so->leaf_state = NULL;
}

