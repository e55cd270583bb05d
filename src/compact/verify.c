/*-------------------------------------------------------------------------
 *
 * verify.c
 *	  elastic_index_check's look at compact leaves (EILeafKindOps.verify):
 *	  the page layout, the SeqTree's bits against the keys read from the
 *	  heap, and a search for every entry.
 *
 * The verifier (inspect/check.c) reads each page into a private copy and
 * hands a compact leaf here; what comes back is a standard leaf with the
 * same special space and high key whose items are the first and the last
 * live entry, on which the verifier's level and downlink checks run as on
 * any leaf.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "eicompact.h"

static EIHeapKeyResult ei_verify_read_key(EIHeapKeyReader *reader,
										  ItemPointer tid);

/*
 * Read the key of a compact leaf entry for the checker, which works on a
 * copy of the leaf and holds no buffer lock (its ShareLocks keep VACUUM
 * away), so a key toasted out of line may be fetched.
 */
static EIHeapKeyResult
ei_verify_read_key(EIHeapKeyReader *reader, ItemPointer tid)
{
	EIHeapKeyResult result = EIHeapKeyRead(reader, tid);

	if (result == EI_HEAPKEY_UNREADABLE)
		result = EIHeapKeyReadUnlocked(reader, tid);
	return result;
}

/*
 * Verify a compact leaf (a private copy of it) against the heap, and return
 * a summary page for the other checks: a standard leaf with the same
 * flags, links and high key whose items are the first and the last live
 * entry, formed from the heap.  Checked once per leaf: the page layout
 * (high key, SeqTree image, TID array between pd_upper and the high key)
 * and, for every pair of neighbouring live entries, that their normalized
 * keys ascend and that the smallest bit of bits[] between them is the first
 * bit in which they differ, which is what SeqTree searches rely on; then a
 * search for every live entry must find exactly its position.  Entries
 * whose heap items are LP_DEAD have no key to check and are skipped.  The
 * check holds ShareLock on table and index, so no VACUUM can make a TID
 * mean another tuple while we read.  Only with full is every entry checked
 * (the verifier asks once per leaf); with collect, the live entries are
 * handed to the verifier for heapallindexed instead (EILeafKindOps.verify).
 */
Page
EICompactVerifyLeaf(EIVerifyContext *cxt, BlockNumber blkno, Page page,
					bool full, bool collect)
{
	EINormKeyInfo *norm = EICompactInfo(cxt->rel);
	EIPageOpaque opaque = EIPageGetOpaque(page);
	PageHeader	phdr = (PageHeader) page;
	Size		tidend = phdr->pd_special;
	Page		summary;
	EIHeapKeyReader *reader;
	SeqTree		st;
	Size		imageoff;
	char	   *prevkey = NULL;
	int			prevpos = -1;
	IndexTuple	first = NULL;
	IndexTuple	last = NULL;

	if (norm == NULL)
		EIVerifyCorrupt(cxt, blkno, InvalidOffsetNumber,
				   "leaf is compact, but the index cannot have compact leaves");

	imageoff = SizeOfPageHeaderData;
	if (!EI_RIGHTMOST(opaque))
	{
		ItemId		hiid = PageGetItemId(page, EI_HIKEY);

		imageoff += sizeof(ItemIdData);
		if (!ItemIdIsNormal(hiid) || ItemIdGetOffset(hiid) < phdr->pd_upper ||
			ItemIdGetOffset(hiid) + ItemIdGetLength(hiid) > phdr->pd_special ||
			IndexTupleSize((IndexTuple) PageGetItem(page, hiid)) != ItemIdGetLength(hiid))
			EIVerifyCorrupt(cxt, blkno, EI_HIKEY,
					   "high key line pointer of compact leaf is invalid");
		{
			const char *what = EIItemAttrsProblem(cxt->rel,
												  (IndexTuple) PageGetItem(page, hiid),
												  true);

			if (what != NULL)
				EIVerifyCorrupt(cxt, blkno, EI_HIKEY, "%s", what);
		}
		tidend = ItemIdGetOffset(hiid);
	}
	if (phdr->pd_lower < imageoff ||
		!seqtree_attach(&st, (char *) page + imageoff, phdr->pd_upper - imageoff))
		EIVerifyCorrupt(cxt, blkno, InvalidOffsetNumber,
				   "compact leaf has an invalid SeqTree image");
	if (st.keylen != norm->keylen ||
		imageoff + seqtree_used(&st) != phdr->pd_lower ||
		phdr->pd_upper > tidend)
		EIVerifyCorrupt(cxt, blkno, InvalidOffsetNumber,
				   "compact leaf layout is inconsistent (%d keys of %d bytes, lower %u, upper %u, TIDs end at %zu)",
				   st.nkeys, st.keylen, (unsigned) phdr->pd_lower,
				   (unsigned) phdr->pd_upper, tidend);
	{
		const char *what = EICompactTidsProblem(page, st.nkeys);

		if (what != NULL)
			EIVerifyCorrupt(cxt, blkno, InvalidOffsetNumber,
							"compact leaf heap TIDs are damaged: %s", what);
	}
	EICompactSetContext(cxt->rel, blkno, page);

	reader = EIHeapKeyReaderBegin(cxt->heapRel, cxt->rel, norm);
	reader->want_tuple = true;
	for (int pos = 0; pos < st.nkeys; pos++)
	{
		ItemPointerData tid;
		EIHeapKeyResult result;

		/* the summary needs only the first and the last live entry */
		if (!full && !collect && first != NULL)
		{
			int			back;

			for (back = st.nkeys - 1; back > pos; back--)
			{
				EICompactGetTid(page, back, &tid);
				if (ei_verify_read_key(reader, &tid) == EI_HEAPKEY_FOUND)
				{
					last = reader->itup;
					break;
				}
			}
			break;
		}

		EICompactGetTid(page, pos, &tid);
		if (!OffsetNumberIsValid(ItemPointerGetOffsetNumberNoCheck(&tid)) ||
			!BlockNumberIsValid(ItemPointerGetBlockNumberNoCheck(&tid)))
			EIVerifyCorrupt(cxt, blkno, pos + 1,
					   "compact leaf entry has invalid heap TID (%u,%u)",
					   ItemPointerGetBlockNumberNoCheck(&tid),
					   ItemPointerGetOffsetNumberNoCheck(&tid));
		result = ei_verify_read_key(reader, &tid);
		if (result == EI_HEAPKEY_DEAD)
			continue;
		if (result != EI_HEAPKEY_FOUND)
			EIVerifyCorrupt(cxt, blkno, pos + 1,
					   "key of compact leaf entry (%u,%u) cannot be read from the heap",
					   ItemPointerGetBlockNumber(&tid),
					   ItemPointerGetOffsetNumber(&tid));

		if (collect)
			cxt->collect_entry(cxt, blkno, pos + 1, reader->itup, false);
		if (full && prevkey != NULL)
		{
			int			minbit = INT_MAX;

			for (int i = prevpos; i < pos; i++)
				minbit = Min(minbit, seqtree_get_bit(&st, i));
			if (memcmp(prevkey, reader->key.data, st.keylen) >= 0)
				EIVerifyCorrupt(cxt, blkno, pos + 1,
						   "compact leaf entries at positions %d and %d are out of order",
						   prevpos, pos);
			if (minbit != seqtree_diff_bit((uint8 *) prevkey,
										   (uint8 *) reader->key.data,
										   st.keylen))
				EIVerifyCorrupt(cxt, blkno, pos + 1,
						   "SeqTree bits between positions %d and %d give bit %d, but the keys first differ in bit %d",
						   prevpos, pos, minbit,
						   seqtree_diff_bit((uint8 *) prevkey,
											(uint8 *) reader->key.data,
											st.keylen));
		}
		if (full)
		{
			if (prevkey == NULL)
				prevkey = palloc(st.keylen);
			memcpy(prevkey, reader->key.data, st.keylen);
		}
		prevpos = pos;
		if (first == NULL)
			first = reader->itup;
		else
		{
			if (last != NULL && last != first)
				pfree(last);
			last = reader->itup;
		}
	}

	/* a search for every live entry finds exactly that entry */
	if (full)
	{
		for (int pos = 0; pos < st.nkeys; pos++)
		{
			ItemPointerData tid;
			SeqTreeLocation loc;
			EIHeapKeyResult why;
			char	   *key;

			EICompactGetTid(page, pos, &tid);
			if (EIHeapKeyRead(reader, &tid) != EI_HEAPKEY_FOUND)
				continue;
			key = palloc(st.keylen);
			memcpy(key, reader->key.data, st.keylen);
			if (reader->itup != NULL)
				pfree(reader->itup);
			if (EICompactSearch(page, reader, (uint8 *) key, &loc, &why) < 0 &&
				(loc.pos != pos || !loc.exact))
				EIVerifyCorrupt(cxt, blkno, pos + 1,
						   "a SeqTree search for the entry at position %d finds position %d%s",
						   pos, loc.pos, loc.exact ? "" : " (no exact match)");
			pfree(key);
		}
	}
	EIHeapKeyReaderEnd(reader);

	/* the summary: same header and high key, first and last live entry */
	summary = PageGetTempPage(page);
	EIInitPage(summary, opaque->ei_flags, opaque->ei_level);
	*EIPageGetOpaque(summary) = *opaque;
	if (!EI_RIGHTMOST(opaque))
	{
		IndexTuple	hikey = EIReadTuple(page, EI_HIKEY);

		if (PageAddItem(summary, (Item) hikey, IndexTupleSize(hikey),
						EI_HIKEY, false, false) == InvalidOffsetNumber)
			elog(ERROR, "could not add high key to compact leaf summary");
	}
	if (first != NULL &&
		PageAddItem(summary, (Item) first, IndexTupleSize(first),
					InvalidOffsetNumber, false, false) == InvalidOffsetNumber)
		elog(ERROR, "could not add entry to compact leaf summary");
	if (last != NULL && last != first &&
		PageAddItem(summary, (Item) last, IndexTupleSize(last),
					InvalidOffsetNumber, false, false) == InvalidOffsetNumber)
		elog(ERROR, "could not add entry to compact leaf summary");
	if (prevkey != NULL)
		pfree(prevkey);
	return summary;
}
