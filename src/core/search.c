/*-------------------------------------------------------------------------
 *
 * search.c
 *	  Insertion scan keys, the comparison that orders the tree, and the
 *	  descent from the root to a leaf.
 *
 * A descent holds one page lock at a time, as Lehman & Yao allow: when a
 * page split after we read its parent, the key we look for has moved right,
 * and the page's high key tells us to follow the right link.  Inserters
 * also finish any incomplete split they pass (see insert.c).
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/skey.h"
#include "eitree.h"
#include "utils/rel.h"

/*
 * Build an insertion scan key from an index tuple (or an empty key if NULL).
 *
 * For a leaf tuple or a pivot, the key carries every key attribute and the
 * heap TID, so it identifies exactly one position in the tree.
 */
EIScanInsert
EIMakeScanKey(Relation rel, IndexTuple itup, bool isleaf)
{
	EIScanInsert key;
	TupleDesc	itupdesc = RelationGetDescr(rel);
	int			nkeyatts = IndexRelationGetNumberOfKeyAttributes(rel);
	int			i;

	key = palloc(offsetof(EIScanInsertData, scankeys) +
				 sizeof(ScanKeyData) * nkeyatts);
	key->nextkey = false;
	key->scantid = NULL;
	key->keysz = 0;

	if (itup != NULL && !isleaf && EIPivotIsMinusInf(itup))
		itup = NULL;

	for (i = 0; i < nkeyatts; i++)
	{
		FmgrInfo   *procinfo = index_getprocinfo(rel, i + 1, EI_CMP_PROC);
		Datum		arg = (Datum) 0;
		bool		null = true;
		int			flags;

		if (itup != NULL)
			arg = index_getattr(itup, i + 1, itupdesc, &null);
		flags = (null ? SK_ISNULL : 0) | (rel->rd_indoption[i] << 16);
		ScanKeyEntryInitializeWithInfo(&key->scankeys[i], flags,
									   (AttrNumber) (i + 1), InvalidStrategy,
									   InvalidOid, rel->rd_indcollation[i],
									   procinfo, arg);
	}

	if (itup != NULL)
	{
		ItemPointer htid = EITupleGetHeapTID(itup, isleaf);

		key->keysz = nkeyatts;
		if (htid != NULL)
		{
			key->scantid_data = *htid;
			key->scantid = &key->scantid_data;
		}
	}
	return key;
}

/*
 * Compare an insertion key with the item at offnum: <0, 0 or >0 as the key
 * sorts before, equal to, or after the item.
 */
int32
EICompare(Relation rel, EIScanInsert key, Page page, OffsetNumber offnum)
{
	EIPageOpaque opaque = EIPageGetOpaque(page);
	TupleDesc	itupdesc = RelationGetDescr(rel);
	IndexTuple	itup;
	ItemPointer htid;
	int			i;

	/* the first data item of an inner page is minus infinity */
	if (!EI_IS_LEAF(opaque) && offnum == EI_FIRST_DATA(opaque))
		return 1;

	itup = EIReadTuple(page, offnum);

	for (i = 0; i < key->keysz; i++)
	{
		ScanKey		sk = &key->scankeys[i];
		Datum		datum;
		bool		isNull;
		int32		result;

		datum = index_getattr(itup, sk->sk_attno, itupdesc, &isNull);

		if (sk->sk_flags & SK_ISNULL)
		{
			if (isNull)
				result = 0;
			else if (sk->sk_flags & EI_SK_NULLS_FIRST)
				result = -1;
			else
				result = 1;
		}
		else if (isNull)
		{
			if (sk->sk_flags & EI_SK_NULLS_FIRST)
				result = 1;
			else
				result = -1;
		}
		else
		{
			/* the support function compares (item, key); we want the reverse */
			result = DatumGetInt32(FunctionCall2Coll(&sk->sk_func,
													 sk->sk_collation,
													 datum,
													 sk->sk_argument));
			if (!(sk->sk_flags & EI_SK_DESC))
				INVERT_COMPARE_RESULT(result);
		}

		if (result != 0)
			return result;
	}

	if (key->scantid == NULL)
		return 0;

	/* a leaf's high key is a pivot: its tiebreaker is at the tuple's end */
	htid = EITupleGetHeapTID(itup, EI_IS_LEAF(opaque) &&
							 !(offnum == EI_HIKEY && !EI_RIGHTMOST(opaque)));
	if (htid == NULL)
		return 1;
	return ItemPointerCompare(key->scantid, htid);
}

/*
 * Binary search a page for a key.
 *
 * On a leaf, return the first data offset whose item is >= key (> key when
 * nextkey), possibly one past the last item.  On an inner page, return the
 * offset of the downlink to follow: the last item < key (<= key when
 * nextkey), which is at least the minus-infinity item.
 */
OffsetNumber
EIBinSearch(Relation rel, EIScanInsert key, Page page)
{
	EIPageOpaque opaque = EIPageGetOpaque(page);
	OffsetNumber low = EI_FIRST_DATA(opaque);
	OffsetNumber high = PageGetMaxOffsetNumber(page);
	int32		cmpval = key->nextkey ? 0 : 1;

	if (high < low)
		return low;

	high = OffsetNumberNext(high);
	while (high > low)
	{
		OffsetNumber mid = low + ((high - low) / 2);

		if (EICompare(rel, key, page, mid) >= cmpval)
			low = OffsetNumberNext(mid);
		else
			high = mid;
	}

	if (EI_IS_LEAF(opaque))
		return low;

	Assert(low > EI_FIRST_DATA(opaque));
	return OffsetNumberPrev(low);
}

/*
 * Move right from a locked page until reaching the page that may hold the
 * key, returning that page locked in the given mode.
 *
 * When forupdate is true (an insertion), an incomplete split found on the
 * way is finished first, so that no page is ever split while its own
 * downlink is still missing.
 */
Buffer
EIMoveRight(Relation rel, EIScanInsert key, Buffer buf, bool forupdate,
			EIStack stack, int access)
{
	int32		cmpval = key->nextkey ? 0 : 1;

	for (;;)
	{
		Page		page = BufferGetPage(buf);
		EIPageOpaque opaque = EIPageGetOpaque(page);

		if (forupdate && EI_INCOMPLETE(opaque))
		{
			BlockNumber blkno = BufferGetBlockNumber(buf);

			if (access == EI_READ)
			{
				LockBuffer(buf, BUFFER_LOCK_UNLOCK);
				LockBuffer(buf, EI_WRITE);
			}
			if (EI_INCOMPLETE(opaque))
				EIFinishSplit(rel, buf, stack);
			else
				EIRelBuf(rel, buf);
			buf = EIGetBuf(rel, blkno, access);
			continue;
		}

		if (EI_RIGHTMOST(opaque))
			break;

		if (EI_IGNORE(opaque) || EICompare(rel, key, page, EI_HIKEY) >= cmpval)
		{
			buf = EIRelAndGetBuf(rel, buf, opaque->ei_next, access);
			continue;
		}
		break;
	}
	return buf;
}

/*
 * Descend from the root to the leaf where the key belongs.
 *
 * Returns the stack of parent pages visited; *bufP is the leaf, locked in
 * the given mode.  Inner pages are only share-locked, except that an
 * inserter briefly write-locks a page to finish its incomplete split.
 */
EIStack
EISearch(Relation rel, EIScanInsert key, Buffer *bufP, int access)
{
	EIStack		stack = NULL;
	Buffer		buf;
	int			page_access = EI_READ;
	bool		forupdate = (access == EI_WRITE);

	buf = EIGetRoot(rel, EI_READ, false);

	for (;;)
	{
		Page		page;
		EIPageOpaque opaque;
		OffsetNumber offnum;
		EIStack		entry;
		BlockNumber child;

		buf = EIMoveRight(rel, key, buf, forupdate, stack, page_access);
		page = BufferGetPage(buf);
		opaque = EIPageGetOpaque(page);

		if (EI_IS_LEAF(opaque))
			break;

		offnum = EIBinSearch(rel, key, page);
		child = EITupleGetDownlink(EIReadTuple(page, offnum));

		entry = palloc(sizeof(EIStackData));
		entry->blkno = BufferGetBlockNumber(buf);
		entry->offset = offnum;
		entry->parent = stack;
		stack = entry;

		if (opaque->ei_level == 1)
			page_access = access;
		buf = EIRelAndGetBuf(rel, buf, child, page_access);
	}

	/* a root that is a leaf was locked for reading; upgrade if needed */
	if (access == EI_WRITE && page_access == EI_READ)
	{
		LockBuffer(buf, BUFFER_LOCK_UNLOCK);
		LockBuffer(buf, EI_WRITE);
		buf = EIMoveRight(rel, key, buf, forupdate, stack, EI_WRITE);
	}

	*bufP = buf;
	return stack;
}

/*
 * Return the leftmost or rightmost page of a level, share-locked.
 */
Buffer
EIGetEndpoint(Relation rel, uint32 level, bool rightmost)
{
	Buffer		buf = EIGetRoot(rel, EI_READ, false);

	for (;;)
	{
		Page		page = BufferGetPage(buf);
		EIPageOpaque opaque = EIPageGetOpaque(page);
		OffsetNumber offnum;
		BlockNumber child;

		/* skip pages being deleted; on the way down, go right if asked to */
		if (EI_IGNORE(opaque) || (rightmost && !EI_RIGHTMOST(opaque)))
		{
			if (EI_RIGHTMOST(opaque))
				elog(ERROR, "fell off the end of index \"%s\"",
					 RelationGetRelationName(rel));
			buf = EIRelAndGetBuf(rel, buf, opaque->ei_next, EI_READ);
			continue;
		}

		if (opaque->ei_level == level)
			return buf;
		if (opaque->ei_level < level)
			elog(ERROR, "index \"%s\" has no level %u",
				 RelationGetRelationName(rel), level);

		offnum = rightmost ? PageGetMaxOffsetNumber(page) : EI_FIRST_DATA(opaque);
		child = EITupleGetDownlink(EIReadTuple(page, offnum));
		buf = EIRelAndGetBuf(rel, buf, child, EI_READ);
	}
}

/*
 * Free a descent stack.
 */
void
EIFreeStack(EIStack stack)
{
	while (stack != NULL)
	{
		EIStack		parent = stack->parent;

		pfree(stack);
		stack = parent;
	}
}
