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
#include "utils/fmgroids.h"
#include "utils/rel.h"

/*
 * The flags of scan key column i (0-based) of an insertion key: null, and
 * the column's DESC / NULLS FIRST options.
 */
static inline int
ei_scan_key_flags(Relation rel, int i, bool null)
{
	return (null ? SK_ISNULL : 0) | (rel->rd_indoption[i] << 16);
}

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
		flags = ei_scan_key_flags(rel, i, null);
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
 * Make an insertion scan key (from EIMakeScanKey, for a leaf tuple of the
 * same index) describe another leaf tuple: its key attributes' values and
 * null flags and its heap TID.  The support functions, collations and
 * attribute numbers stay as they are, so a batch builds its key once.
 */
void
EIRefillScanKey(Relation rel, EIScanInsert key, IndexTuple itup)
{
	TupleDesc	itupdesc = RelationGetDescr(rel);
	int			nkeyatts = IndexRelationGetNumberOfKeyAttributes(rel);
	ItemPointer htid;

	for (int i = 0; i < nkeyatts; i++)
	{
		ScanKey		sk = &key->scankeys[i];
		bool		null;
		Datum		arg = index_getattr(itup, i + 1, itupdesc, &null);

		sk->sk_flags = ei_scan_key_flags(rel, i, null);
		sk->sk_argument = arg;
	}
	key->keysz = nkeyatts;
	htid = EITupleGetHeapTID(itup, true);
	if (htid != NULL)
	{
		key->scantid_data = *htid;
		key->scantid = &key->scantid_data;
	}
	else
		key->scantid = NULL;
}

/*
 * The width of the signed integers the built-in support function fn_oid
 * orders, for the comparisons whose result is the order of two signed
 * integers: int2, int4 and int8, date, timestamp and timestamptz (whose
 * function is timestamp_cmp's C code); 0 for any other function,
 * cross-type ones included (btint84cmp and the like).
 */
static inline int
ei_builtin_compare_width(Oid fn_oid)
{
	switch (fn_oid)
	{
		case F_BTINT8CMP:
		case F_TIMESTAMP_CMP:
		case F_TIMESTAMPTZ_CMP:
			return sizeof(int64);
		case F_BTINT4CMP:
		case F_DATE_CMP:
			return sizeof(int32);
		case F_BTINT2CMP:
			return sizeof(int16);
		default:
			return 0;
	}
}

/*
 * Compare a and b as the built-in support function fn_oid would, without
 * calling it, for the functions ei_builtin_compare_width knows.  Returns
 * false for any other function, which the caller then calls (src/README.md,
 * "Searching").
 */
static inline bool
ei_compare_builtin(Oid fn_oid, Datum a, Datum b, int32 *result)
{
	switch (ei_builtin_compare_width(fn_oid))
	{
		case sizeof(int64):
			{
				int64		x = DatumGetInt64(a);
				int64		y = DatumGetInt64(b);

				*result = (x > y) - (x < y);
				return true;
			}
		case sizeof(int32):
			{
				int32		x = DatumGetInt32(a);
				int32		y = DatumGetInt32(b);

				*result = (x > y) - (x < y);
				return true;
			}
		case sizeof(int16):
			{
				int16		x = DatumGetInt16(a);
				int16		y = DatumGetInt16(b);

				*result = (x > y) - (x < y);
				return true;
			}
		default:
			return false;
	}
}

/*
 * Compare an insertion key's attributes with an index tuple's: <0, 0 or >0
 * as the key sorts before, equal to, or after it on the key columns.
 */
static inline int32
ei_compare_attributes(Relation rel, EIScanInsert key, IndexTuple itup)
{
	TupleDesc	itupdesc = RelationGetDescr(rel);
	int			i;

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
			if (!ei_compare_builtin(sk->sk_func.fn_oid, datum,
									sk->sk_argument, &result))
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

	return 0;
}

/*
 * Compare an insertion key with the item at offnum: <0, 0 or >0 as the key
 * sorts before, equal to, or after the item.
 */
int32
EICompare(Relation rel, EIScanInsert key, Page page, OffsetNumber offnum)
{
	EIPageOpaque opaque = EIPageGetOpaque(page);
	IndexTuple	itup;
	ItemPointer htid;
	int32		result;

	/* the first data item of an inner page is minus infinity */
	if (!EI_IS_LEAF(opaque) && offnum == EI_FIRST_DATA(opaque))
		return 1;

	itup = EIReadTupleChecked(rel, page, offnum);
	result = ei_compare_attributes(rel, key, itup);
	if (result != 0)
		return result;

	if (key->scantid == NULL)
		return 0;

	/* a leaf's high key is a pivot: its tiebreaker is at the tuple's end */
	htid = EITupleGetHeapTID(itup, EI_IS_LEAF(opaque) &&
							 !(offnum == EI_HIKEY && !EI_RIGHTMOST(opaque)));
	if (htid == NULL)
		return 1;
	if (EITupleIsPosting(itup))
	{
		/* a list equals every TID from its first to its last */
		if (unlikely(!EI_IS_LEAF(opaque) || offnum < EI_FIRST_DATA(opaque) ||
					 !EIPostingBoundsOK(itup)))
			EIItemCorrupted(rel, page, offnum, "a damaged posting list");
		result = ItemPointerCompare(key->scantid, htid);
		if (result <= 0)
			return result;
		htid = EIPostingMaxTID(itup);
		if (ItemPointerCompare(key->scantid, htid) > 0)
			return 1;
		return 0;
	}
	if (unlikely(!ItemPointerIsValid(htid)))
		EIItemCorrupted(rel, page, offnum, "an item with an invalid heap TID");
	return ItemPointerCompare(key->scantid, htid);
}

/*
 * Compare an insertion key with a leaf entry that is on no page (a batch's
 * entry, say): <0, 0 or >0 as the key sorts before, equal to, or after it.
 */
int32
EICompareLeafTuple(Relation rel, EIScanInsert key, IndexTuple itup)
{
	int32		result = ei_compare_attributes(rel, key, itup);

	if (result != 0 || key->scantid == NULL)
		return result;
	return ItemPointerCompare(key->scantid, EITupleGetHeapTID(itup, true));
}

/*
 * Set up fc for EICompareEntriesFast if the index has one key column whose
 * comparison ei_compare_builtin does itself (ei_builtin_compare_width) on a
 * by-value integer of the column's width, taken from key (a scan key made
 * from one of the index's leaf entries); else fc->attlen is 0 and every
 * comparison goes through a scan key.
 */
void
EIFastCompareInit(Relation rel, EIScanInsert key, EIFastCompare *fc)
{
	Form_pg_attribute att = TupleDescAttr(RelationGetDescr(rel), 0);
	int			width = ei_builtin_compare_width(key->scankeys[0].sk_func.fn_oid);

	fc->attlen = 0;
	fc->desc = (key->scankeys[0].sk_flags & EI_SK_DESC) != 0;
	if (IndexRelationGetNumberOfKeyAttributes(rel) == 1 && att->attbyval &&
		width != 0 && att->attlen == width)
		fc->attlen = width;
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
	uint32		level = EIPageGetOpaque(BufferGetPage(buf))->ei_level;
	uint64		hops = 0;

	for (;;)
	{
		Page		page = BufferGetPage(buf);
		EIPageOpaque opaque = EIPageGetOpaque(page);

		/* a right link that leaves the level, or loops, is damage */
		if (opaque->ei_level != level || EI_IS_META(opaque) ||
			EI_IS_LEAF(opaque) != (level == 0))
			ereport(ERROR,
					(errcode(ERRCODE_INDEX_CORRUPTED),
					 errmsg("index \"%s\" is corrupted: right link to block %u leaves level %u for level %u",
							RelationGetRelationName(rel),
							BufferGetBlockNumber(buf), level,
							opaque->ei_level)));
		EICheckHops(rel, ++hops, BufferGetBlockNumber(buf));

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
	BlockNumber parent = InvalidBlockNumber;

	buf = EIGetRoot(rel, EI_READ, false);

	for (;;)
	{
		Page		page;
		EIPageOpaque opaque;
		OffsetNumber offnum;
		EIStack		entry;
		BlockNumber child;

		/*
		 * Each step goes one level down, so a damaged downlink (to a page of
		 * another level, or back up) ends in an error, never in a loop.
		 */
		if (stack != NULL)
			EICheckChildLevel(rel, parent, stack->level, buf);

		buf = EIMoveRight(rel, key, buf, forupdate, stack, page_access);
		page = BufferGetPage(buf);
		opaque = EIPageGetOpaque(page);

		if (EI_IS_LEAF(opaque))
			break;

		offnum = EIBinSearch(rel, key, page);
		child = EICheckDownlink(rel, buf, offnum);

		entry = palloc(sizeof(EIStackData));
		entry->blkno = BufferGetBlockNumber(buf);
		entry->offset = offnum;
		entry->level = opaque->ei_level;
		entry->parent = stack;
		stack = entry;
		parent = entry->blkno;

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
	uint32		curlevel = EIPageGetOpaque(BufferGetPage(buf))->ei_level;
	BlockNumber parent = InvalidBlockNumber;
	uint64		hops = 0;

	for (;;)
	{
		Page		page = BufferGetPage(buf);
		EIPageOpaque opaque = EIPageGetOpaque(page);
		OffsetNumber offnum;
		BlockNumber child;

		/* every page reached is of the level we are on (see EISearch) */
		if (opaque->ei_level != curlevel ||
			EI_IS_LEAF(opaque) != (curlevel == 0))
			ereport(ERROR,
					(errcode(ERRCODE_INDEX_CORRUPTED),
					 errmsg("index \"%s\" is corrupted: block %u is at level %u%s, reached at level %u from block %u",
							RelationGetRelationName(rel),
							BufferGetBlockNumber(buf), opaque->ei_level,
							EI_IS_LEAF(opaque) ? " (a leaf)" : "",
							curlevel, parent)));
		EICheckHops(rel, ++hops, BufferGetBlockNumber(buf));

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
		if (offnum < EI_FIRST_DATA(opaque))
			ereport(ERROR,
					(errcode(ERRCODE_INDEX_CORRUPTED),
					 errmsg("index \"%s\" is corrupted: inner block %u has no downlinks",
							RelationGetRelationName(rel), BufferGetBlockNumber(buf))));
		child = EICheckDownlink(rel, buf, offnum);
		parent = BufferGetBlockNumber(buf);
		curlevel = opaque->ei_level - 1;
		hops = 0;
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

/*
 * The page a downlink of block parent (at parentlevel) led to must be one
 * level below it, and a leaf exactly at level 0.
 */
void
EICheckChildLevel(Relation rel, BlockNumber parent, uint32 parentlevel,
				  Buffer child)
{
	EIPageOpaque opaque = EIPageGetOpaque(BufferGetPage(child));

	if (parentlevel == 0 || opaque->ei_level != parentlevel - 1 ||
		EI_IS_LEAF(opaque) != (opaque->ei_level == 0))
		ereport(ERROR,
				(errcode(ERRCODE_INDEX_CORRUPTED),
				 errmsg("index \"%s\" is corrupted: downlink of block %u at level %u leads to block %u at level %u%s",
						RelationGetRelationName(rel), parent, parentlevel,
						BufferGetBlockNumber(child), opaque->ei_level,
						EI_IS_LEAF(opaque) ? " (a leaf)" : "")));
}

/*
 * A walk along a level that took more steps than the index has pages has
 * gone around a loop of damaged links.  The file size is read only every
 * 1024 steps, so a walk costs nothing extra until it is that long.
 */
void
EICheckHops(Relation rel, uint64 hops, BlockNumber blkno)
{
	if ((hops & 1023) == 0 && hops > RelationGetNumberOfBlocks(rel))
		ereport(ERROR,
				(errcode(ERRCODE_INDEX_CORRUPTED),
				 errmsg("index \"%s\" is corrupted: the sibling links of block %u go around a loop",
						RelationGetRelationName(rel), blkno)));
}

/*
 * The downlink at offnum of a locked inner page, checked: the page has
 * downlinks, offnum is one of them, and it names a block that can be a
 * child (not the metapage, not InvalidBlockNumber).  The child's level is
 * checked when it is read (EICheckChildLevel).
 */
BlockNumber
EICheckDownlink(Relation rel, Buffer buf, OffsetNumber offnum)
{
	Page		page = BufferGetPage(buf);
	EIPageOpaque opaque = EIPageGetOpaque(page);
	BlockNumber child;

	if (offnum < EI_FIRST_DATA(opaque) || offnum > PageGetMaxOffsetNumber(page))
		ereport(ERROR,
				(errcode(ERRCODE_INDEX_CORRUPTED),
				 errmsg("index \"%s\" is corrupted: inner block %u has no downlink at offset %u (it has %u items)",
						RelationGetRelationName(rel), BufferGetBlockNumber(buf),
						offnum, (unsigned) PageGetMaxOffsetNumber(page))));
	child = EITupleGetDownlink(EIReadTupleChecked(rel, page, offnum));
	if (!BlockNumberIsValid(child) || child == EI_METAPAGE)
		ereport(ERROR,
				(errcode(ERRCODE_INDEX_CORRUPTED),
				 errmsg("index \"%s\" is corrupted: block %u has a downlink to block %u at offset %u",
						RelationGetRelationName(rel),
						BufferGetBlockNumber(buf), child, offnum)));
	return child;
}
