/*-------------------------------------------------------------------------
 *
 * check.c
 *	  elastic_index_check(): verify the structure of an elastic_index tree
 *	  and, optionally, that every visible heap tuple has its index entry.
 *
 * The checker locks the table and the index with ShareLock, the lock
 * amcheck's bt_index_parent_check() takes: it blocks INSERT, UPDATE,
 * DELETE and VACUUM but not SELECT, so nothing changes the tree while we
 * look at it (readers may only set LP_DEAD hints).  Pages are read one at
 * a time under a buffer share lock and copied, so no buffer lock is held
 * while comparing.
 *
 * A hot standby refuses ShareLock, and no lock it grants keeps replay
 * from changing the tree (amcheck's bt_index_parent_check() refuses to run
 * in recovery; its bt_index_check() runs under AccessShareLock and skips
 * the parent-child checks).  There the checker takes AccessShareLock and checks what one page copy shows by itself
 * (ei_check_pages_standby): the metapage (1., the root against the size
 * read after it), and every page of the file that is in the tree, each
 * against its own header, line pointers, item kinds, key order and high
 * key.  It leaves out what needs a tree that holds still or a table that
 * holds still: the level walks with sibling links, sibling keys and
 * downlinks (2. and 3.: replay splits and deletes pages between two
 * reads), the entries of compact leaves (their keys are read from the
 * heap, where replayed VACUUMs free and reuse TIDs: a compact leaf is
 * skipped), the policy's pages
 * outside the tree (4.: osm_tree's buffer moves under replay), and
 * heapallindexed (5.), which it refuses.
 *
 * It verifies, stopping at the first problem:
 *	1. the metapage;
 *	2. every level, walked left to right from its leftmost page: sibling
 *	   links, levels, flags, high keys, key order within and across pages
 *	   (a leaf of the policy's own kind, a compact leaf, is checked by the
 *	   policy, EILeafKindOps.verify, and read as a summary of its first and
 *	   last entries);
 *	3. every downlink against its child: level, key bounds, and that the
 *	   children of consecutive downlinks are consecutive siblings (allowing
 *	   right halves of incomplete splits in between);
 *	4. the pages a policy keeps outside the tree (EITreePolicy.verify_extra:
 *	   osm_tree's insert buffer, osm/verify.c);
 *	5. with heapallindexed, that each entry's heap TID is unique (an entry
 *	   both buffered and in the tree, as an interrupted flush leaves it, is
 *	   one entry) and that every heap tuple visible to a fresh MVCC
 *	   snapshot has an entry with the same key.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "access/relation.h"
#include "access/table.h"
#include "access/tableam.h"
#include "access/xact.h"
#include "catalog/index.h"
#include "commands/defrem.h"
#include "lib/stringinfo.h"
#include "miscadmin.h"
#include "storage/bufmgr.h"
#include "utils/datum.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/rel.h"
#include "utils/snapmgr.h"
#include <limits.h>

#include "eiinspect.h"
#include "eitree.h"

PG_FUNCTION_INFO_V1(elastic_index_check);

/* One leaf entry remembered for the heapallindexed check. */
typedef struct EICheckEntry
{
	ItemPointerData htid;		/* heap TID of the entry */
	OffsetNumber offnum;		/* its offset on the leaf */
	bool		matched;		/* some heap tuple found it */
	BlockNumber blkno;			/* the leaf holding it */
	Size		tupoff;			/* offset of its copy in tuples */
	bool		buffered;		/* it is in osm_tree's insert buffer */
} EICheckEntry;

/* Where the downlinks of one level have taken us on the level below. */
typedef struct EIChildCursor
{
	bool		started;		/* a downlink of this level was checked */
	BlockNumber lastchild;		/* last page covered by the previous downlink */
	BlockNumber expected;		/* its right sibling: next downlink's target */
} EIChildCursor;

/* State of one elastic_index_check() call. */
typedef struct EICheckState
{
	Relation	rel;			/* the index */
	Relation	heaprel;		/* its table */
	bool		heapallindexed; /* also match the table against the leaves */
	bool		standby;		/* in recovery: page by page only */
	BlockNumber nblocks;		/* index size when we started */
	BufferAccessStrategy strategy;
	MemoryContext keycxt;		/* scan keys; reset after every page */
	bool	   *visited;		/* blocks already reached by a level walk */
	bool	   *policy_leaf_checked;	/* policy leaves fully verified */
	EIMetaPageData meta;		/* copy of the metapage contents */
	EIVerifyContext vcxt;		/* what the policy's verify callbacks get */

	/* heapallindexed: leaf entries sorted by heap TID, and tuple copies */
	EICheckEntry *entries;
	int64		nentries;
	int64		maxentries;
	char	   *tuples;
	Size		tuples_used;
	Size		tuples_size;
	MemoryContext tuplecxt;		/* per heap tuple; reset by the callback */
} EICheckState;

pg_noreturn static void ei_corrupt(EICheckState *state, BlockNumber blkno,
								   OffsetNumber offnum, const char *fmt,...)
			pg_attribute_printf(4, 5);
static void ei_collect_entry(EICheckState *state, BlockNumber blkno,
							 OffsetNumber offnum, IndexTuple itup,
							 bool outside_tree);
static Page ei_read_page(EICheckState *state, BlockNumber blkno,
						 bool outside_tree);
static Page ei_read_tree_page(EICheckState *state, BlockNumber blkno);
static Page ei_copy_page(EICheckState *state, BlockNumber blkno);
static Page ei_check_page_copy(EICheckState *state, BlockNumber blkno,
							   Page page, bool outside_tree);
static Page ei_policy_leaf(EICheckState *state, BlockNumber blkno, Page page,
						   bool collect);
static void ei_verify_corrupt(EIVerifyContext *cxt, BlockNumber blkno,
							  OffsetNumber offnum, const char *message);
static void ei_verify_collect(EIVerifyContext *cxt, BlockNumber blkno,
							  OffsetNumber offnum, IndexTuple itup,
							  bool outside_tree);
static Page ei_verify_read_page(EIVerifyContext *cxt, BlockNumber blkno);

/*
 * Report corruption of the index at a block (and offset, when valid).
 */
static void
ei_corrupt(EICheckState *state, BlockNumber blkno, OffsetNumber offnum,
		   const char *fmt,...)
{
	StringInfoData what;

	initStringInfo(&what);
	for (;;)
	{
		va_list		args;
		int			needed;

		va_start(args, fmt);
		needed = appendStringInfoVA(&what, fmt, args);
		va_end(args);
		if (needed == 0)
			break;
		enlargeStringInfo(&what, needed);
	}

	if (OffsetNumberIsValid(offnum))
		ereport(ERROR,
				(errcode(ERRCODE_INDEX_CORRUPTED),
				 errmsg("index \"%s\" is corrupted: %s",
						RelationGetRelationName(state->rel), what.data),
				 errdetail("Block %u, offset %u.", blkno, offnum)));
	else
		ereport(ERROR,
				(errcode(ERRCODE_INDEX_CORRUPTED),
				 errmsg("index \"%s\" is corrupted: %s",
						RelationGetRelationName(state->rel), what.data),
				 errdetail("Block %u.", blkno)));
}

/*
 * The index tuple at offnum of a page copy.
 */
static IndexTuple
ei_item(Page page, OffsetNumber offnum)
{
	return (IndexTuple) PageGetItem(page, PageGetItemId(page, offnum));
}

/*
 * Is the item at off of page a pivot with key columns but no heap TID
 * (EIFormPivot's truncation)?
 */
static bool
ei_pivot_lacks_tid(Page page, OffsetNumber off)
{
	IndexTuple	itup = ei_item(page, off);

	return EIItemIsPivot(page, off) && !EIPivotIsMinusInf(itup) &&
		(EIPivotFlags(itup) & EI_PIVOT_HAS_TID) == 0;
}

/*
 * Compare the item at srcoff of srcpage, as an insertion key with heap TID,
 * against the item at dstoff of dstpage; <0, 0, >0 as EICompare.
 */
static int32
ei_compare_items(EICheckState *state, Page srcpage, OffsetNumber srcoff,
				 Page dstpage, OffsetNumber dstoff, bool src_max)
{
	MemoryContext oldcxt;
	EIScanInsert key;
	int32		result;

	oldcxt = MemoryContextSwitchTo(state->keycxt);
	key = EIMakeScanKey(state->rel, ei_item(srcpage, srcoff),
						!EIItemIsPivot(srcpage, srcoff));

	/* a posting list below dst: all of it, so its last TID */
	if (src_max && !EIItemIsPivot(srcpage, srcoff) &&
		EITupleIsPosting(ei_item(srcpage, srcoff)))
		key->scantid_data = *EIPostingMaxTID(ei_item(srcpage, srcoff));

	if (EI_IS_LEAF(EIPageGetOpaque(dstpage)) &&
		EIItemIsPivot(dstpage, dstoff))
	{
		/*
		 * A leaf's high key keeps its heap TID at the tuple's end, not in
		 * t_tid: compare the attributes alone, then that TID ourselves; a
		 * high key without one (EI_PIVOT_HAS_TID unset) is minus infinity
		 * in it.
		 */
		ItemPointer scantid = key->scantid;
		IndexTuple	hikey = ei_item(dstpage, dstoff);

		key->scantid = NULL;
		result = EICompare(state->rel, key, dstpage, dstoff);
		if (result == 0 && scantid != NULL)
			result = (EIPivotFlags(hikey) & EI_PIVOT_HAS_TID) ?
				ItemPointerCompare(scantid, EIPivotGetHeapTID(hikey)) : 1;
	}
	else
		result = EICompare(state->rel, key, dstpage, dstoff);
	MemoryContextSwitchTo(oldcxt);

	/*
	 * A source pivot without heap TID is minus infinity in it: below an
	 * item with equal key columns that has one (every leaf entry, a pivot
	 * with EI_PIVOT_HAS_TID), equal only to another pivot without.
	 */
	if (result == 0 && ei_pivot_lacks_tid(srcpage, srcoff) &&
		!ei_pivot_lacks_tid(dstpage, dstoff))
		result = -1;
	return result;
}

/*
 * First data item of a page that carries a key (skipping an inner page's
 * minus infinity item), or InvalidOffsetNumber if there is none.
 */
static OffsetNumber
ei_first_keyed_item(Page page)
{
	EIPageOpaque opaque = EIPageGetOpaque(page);
	OffsetNumber first = EI_FIRST_DATA(opaque);

	if (!EI_IS_LEAF(opaque))
		first = OffsetNumberNext(first);
	if (first > PageGetMaxOffsetNumber(page))
		return InvalidOffsetNumber;
	return first;
}

/*
 * Read a page (not the metapage) into a palloc'd copy, verifying the page
 * header, the special space and every line pointer, so that later checks
 * can read its tuples safely.  A tree page must not carry the flags of a
 * page a policy keeps outside the tree (outside_tree: such a page, whose
 * item 1 the policy checks itself).
 */
static Page
ei_read_page(EICheckState *state, BlockNumber blkno, bool outside_tree)
{
	Page		page;

	if (blkno == EI_METAPAGE || blkno >= state->nblocks)
		ei_corrupt(state, blkno, InvalidOffsetNumber,
				   "link to block %u is out of range (index has %u blocks)",
				   blkno, state->nblocks);

	page = ei_copy_page(state, blkno);
	if (PageIsNew(page))
		ei_corrupt(state, blkno, InvalidOffsetNumber,
				   "reachable page is uninitialized");
	return ei_check_page_copy(state, blkno, page, outside_tree);
}

/*
 * A private copy of a block of the index, read under a share lock.
 */
static Page
ei_copy_page(EICheckState *state, BlockNumber blkno)
{
	Page		page = palloc(BLCKSZ);
	Buffer		buf;

	buf = ReadBufferExtended(state->rel, MAIN_FORKNUM, blkno, RBM_NORMAL,
							 state->strategy);
	LockBuffer(buf, BUFFER_LOCK_SHARE);
	memcpy(page, BufferGetPage(buf), BLCKSZ);
	UnlockReleaseBuffer(buf);
	return page;
}

/*
 * Check a private copy of an initialized page (ei_read_page): header,
 * special space, flags and line pointers.  Returns it, or a policy leaf's
 * summary instead, freeing it.
 */
static Page
ei_check_page_copy(EICheckState *state, BlockNumber blkno, Page page,
				   bool outside_tree)
{
	PageHeader	phdr = (PageHeader) page;
	EIPageOpaque opaque;
	OffsetNumber maxoff;
	OffsetNumber off;

	if (phdr->pd_lower < SizeOfPageHeaderData ||
		phdr->pd_lower > phdr->pd_upper ||
		phdr->pd_upper > phdr->pd_special ||
		phdr->pd_special > BLCKSZ)
		ei_corrupt(state, blkno, InvalidOffsetNumber,
				   "page header is invalid (lower %u, upper %u, special %u)",
				   (unsigned) phdr->pd_lower, (unsigned) phdr->pd_upper,
				   (unsigned) phdr->pd_special);
	if (PageGetSpecialSize(page) != MAXALIGN(sizeof(EIPageOpaqueData)))
		ei_corrupt(state, blkno, InvalidOffsetNumber,
				   "page has special space of %u bytes, expected %u",
				   (unsigned) PageGetSpecialSize(page),
				   (unsigned) MAXALIGN(sizeof(EIPageOpaqueData)));

	opaque = EIPageGetOpaque(page);
	if (opaque->ei_page_id != EI_PAGE_ID)
		ei_corrupt(state, blkno, InvalidOffsetNumber,
				   "page id is 0x%04X, expected 0x%04X",
				   opaque->ei_page_id, EI_PAGE_ID);
	if (EI_IS_META(opaque))
		ei_corrupt(state, blkno, InvalidOffsetNumber,
				   "tree page is flagged as a metapage");
	if (!outside_tree && (opaque->ei_flags & EI_POLICY_FLAGS))
		ei_corrupt(state, blkno, InvalidOffsetNumber,
				   "tree page has the flags 0x%04X of a page outside the tree",
				   opaque->ei_flags & EI_POLICY_FLAGS);

	/* a leaf of the policy's kind is checked by it and read as a summary */
	if (EI_IS_LEAF(opaque) && (opaque->ei_flags & EI_POLICY_LEAF) &&
		!EI_IGNORE(opaque))
	{
		Page		summary;

		Assert(!state->standby);
		summary = ei_policy_leaf(state, blkno, page, false);

		pfree(page);
		return summary;
	}

	maxoff = PageGetMaxOffsetNumber(page);
	for (off = FirstOffsetNumber; off <= maxoff; off = OffsetNumberNext(off))
	{
		ItemId		itemid = PageGetItemId(page, off);
		unsigned	itemoff = ItemIdGetOffset(itemid);
		unsigned	itemlen = ItemIdGetLength(itemid);

		if (!ItemIdHasStorage(itemid) || ItemIdIsRedirected(itemid))
			ei_corrupt(state, blkno, off,
					   "line pointer is unused or redirected");
		if (itemoff < phdr->pd_upper || itemoff + itemlen > phdr->pd_special ||
			itemoff != MAXALIGN(itemoff))
			ei_corrupt(state, blkno, off,
					   "line pointer (offset %u, length %u) lies outside the tuple space [%u, %u)",
					   itemoff, itemlen, (unsigned) phdr->pd_upper,
					   (unsigned) phdr->pd_special);
		/*
		 * A policy's page outside the tree may keep its own data in item 1
		 * (osm_tree: a buffer page's summary, the section filter), which
		 * the policy's verify_extra checks; the other items are tuples.
		 */
		if (outside_tree && (opaque->ei_flags & EI_POLICY_FLAGS) &&
			!(opaque->ei_flags & EI_DELETED) && off == FirstOffsetNumber)
			continue;
		if (itemlen < sizeof(IndexTupleData) ||
			IndexTupleSize((IndexTuple) PageGetItem(page, itemid)) != itemlen)
			ei_corrupt(state, blkno, off,
					   "line pointer length %u does not match index tuple size %u",
					   itemlen,
					   itemlen < sizeof(IndexTupleData) ? 0 :
					   (unsigned) IndexTupleSize((IndexTuple) PageGetItem(page, itemid)));

		/*
		 * Every attribute inside the tuple, before anything compares or
		 * deforms it (a deleted page's stamp is no tuple; a policy's page
		 * outside the tree holds entries, not pivots).
		 */
		if (!(opaque->ei_flags & EI_DELETED))
		{
			const char *what;

			what = EIItemAttrsProblem(state->rel,
									  (IndexTuple) PageGetItem(page, itemid),
									  EIItemIsPivot(page, off));
			if (what != NULL)
				ei_corrupt(state, blkno, off, "%s", what);
		}
	}

	return page;
}

static bool ei_is_halfdead(Page page);

/*
 * Size a pivot made from the key columns of itup takes: those columns
 * formed alone (INCLUDE columns cut off, as EIFormPivot does) plus the
 * heap TID, which a pivot without EI_PIVOT_HAS_TID does not hold.  Reads
 * only the key columns, so itup may be a pivot itself.
 */
static Size
ei_pivot_size_of_keys(Relation rel, IndexTuple itup)
{
	TupleDesc	desc = RelationGetDescr(rel);
	int			nkeyatts = IndexRelationGetNumberOfKeyAttributes(rel);
	IndexTuple	keys;
	Size		size;

	if (nkeyatts < desc->natts)
		keys = index_truncate_tuple(desc, itup, nkeyatts);
	else
	{
		Datum		values[INDEX_MAX_KEYS];
		bool		isnull[INDEX_MAX_KEYS];

		/* index_truncate_tuple would copy the whole pivot, TID included */
		index_deform_tuple(itup, desc, values, isnull);
		keys = index_form_tuple(desc, values, isnull);
	}
	size = MAXALIGN(IndexTupleSize(keys) +
					((EIPivotFlags(itup) & EI_PIVOT_HAS_TID) ?
					 sizeof(ItemPointerData) : 0));
	pfree(keys);
	return size;
}

/*
 * A pivot holds exactly the key columns and the heap TID (README "Items"):
 * one whose size says otherwise (an INCLUDE column left in it, or bytes
 * after its keys) is reported.
 */
static void
ei_check_pivot_size(EICheckState *state, BlockNumber blkno,
					OffsetNumber off, IndexTuple itup)
{
	MemoryContext oldcxt = MemoryContextSwitchTo(state->keycxt);
	Size		expected = ei_pivot_size_of_keys(state->rel, itup);

	MemoryContextSwitchTo(oldcxt);
	if (IndexTupleSize(itup) != expected)
		ei_corrupt(state, blkno, off,
				   "pivot tuple of %u bytes does not hold exactly the %d key columns%s (%u bytes)",
				   (unsigned) IndexTupleSize(itup),
				   IndexRelationGetNumberOfKeyAttributes(state->rel),
				   (EIPivotFlags(itup) & EI_PIVOT_HAS_TID) ? " and a heap TID" : "",
				   (unsigned) expected);
}

/*
 * Check the kind of every item of a page: high key, minus infinity item,
 * pivots with heap TID and sane downlinks, leaf items with valid heap TIDs.
 */
static void
ei_check_item_kinds(EICheckState *state, BlockNumber blkno, Page page)
{
	EIPageOpaque opaque = EIPageGetOpaque(page);
	OffsetNumber maxoff = PageGetMaxOffsetNumber(page);
	OffsetNumber first = EI_FIRST_DATA(opaque);
	bool		isleaf = EI_IS_LEAF(opaque);
	OffsetNumber off;

	if (!EI_RIGHTMOST(opaque) && maxoff < EI_HIKEY)
		ei_corrupt(state, blkno, InvalidOffsetNumber,
				   "page that is not rightmost has no high key");
	if (!isleaf && maxoff < first)
		ei_corrupt(state, blkno, InvalidOffsetNumber,
				   "inner page has no downlinks");

	for (off = FirstOffsetNumber; off <= maxoff; off = OffsetNumberNext(off))
	{
		ItemId		itemid = PageGetItemId(page, off);
		IndexTuple	itup = (IndexTuple) PageGetItem(page, itemid);

		if (ItemIdIsDead(itemid) && (!isleaf || off < first))
			ei_corrupt(state, blkno, off,
					   "pivot tuple is marked LP_DEAD");

		if (off < first)
		{
			/* the high key */
			/* a half-dead leaf keeps its chain top in the downlink field */
			if ((EITupleGetDownlink(itup) != InvalidBlockNumber &&
				 !ei_is_halfdead(page)) ||
				(EIPivotFlags(itup) & ~EI_PIVOT_HAS_TID) != 0)
				ei_corrupt(state, blkno, off,
						   "high key is not a pivot tuple (downlink %u, flags 0x%04X)",
						   EITupleGetDownlink(itup), EIPivotFlags(itup));
			if ((EIPivotFlags(itup) & EI_PIVOT_HAS_TID) &&
				IndexTupleSize(itup) < MAXALIGN(sizeof(IndexTupleData)) +
				sizeof(ItemPointerData))
				ei_corrupt(state, blkno, off,
						   "high key of %u bytes is too short to hold a heap TID",
						   (unsigned) IndexTupleSize(itup));
			ei_check_pivot_size(state, blkno, off, itup);
			continue;
		}

		/*
		 * A posting list was checked whole as the page was read; the
		 * metapage must say that the index may hold lists.  On a standby,
		 * replay may have raised the version since the metapage was read;
		 * the META record that raised it precedes every list in the WAL, so
		 * the metapage read again now, after this page, says 3.
		 */
		if (isleaf && EITupleIsPosting(itup))
		{
			if (state->meta.version != EI_VERSION_POSTING && state->standby)
			{
				Page		meta = ei_copy_page(state, EI_METAPAGE);

				if (!PageIsNew(meta) &&
					EIPageGetMeta(meta)->version == EI_VERSION_POSTING)
					state->meta.version = EI_VERSION_POSTING;
				pfree(meta);
			}
			if (state->meta.version != EI_VERSION_POSTING)
				ei_corrupt(state, blkno, off,
						   "posting list in an index of format version %u (lists need %u)",
						   state->meta.version, EI_VERSION_POSTING);
			continue;
		}
		if (isleaf)
		{
			ItemPointer htid = &itup->t_tid;

			if (ItemPointerGetBlockNumberNoCheck(htid) == InvalidBlockNumber)
				ei_corrupt(state, blkno, off,
						   EI_RIGHTMOST(opaque) && off == EI_HIKEY ?
						   "rightmost page has a high key" :
						   "leaf item is a pivot tuple");
			if (!OffsetNumberIsValid(ItemPointerGetOffsetNumberNoCheck(htid)))
				ei_corrupt(state, blkno, off,
						   "leaf item has invalid heap TID (%u,%u)",
						   ItemPointerGetBlockNumberNoCheck(htid),
						   ItemPointerGetOffsetNumberNoCheck(htid));
			continue;
		}

		/* inner page data item: a downlink */
		if (off == first)
		{
			if (!EIPivotIsMinusInf(itup))
				ei_corrupt(state, blkno, off,
						   "first downlink of inner page is not minus infinity");
		}
		else
		{
			if (EIPivotIsMinusInf(itup))
				ei_corrupt(state, blkno, off,
						   "minus infinity item is not the first downlink");
			if ((EIPivotFlags(itup) & ~EI_PIVOT_HAS_TID) != 0 ||
				((EIPivotFlags(itup) & EI_PIVOT_HAS_TID) &&
				 IndexTupleSize(itup) < MAXALIGN(sizeof(IndexTupleData)) +
				 sizeof(ItemPointerData)))
				ei_corrupt(state, blkno, off,
						   "pivot tuple has unknown flags or is too short for its heap TID (flags 0x%04X)",
						   EIPivotFlags(itup));
			ei_check_pivot_size(state, blkno, off, itup);
		}

		if (EITupleGetDownlink(itup) == EI_METAPAGE ||
			EITupleGetDownlink(itup) >= state->nblocks)
			ei_corrupt(state, blkno, off,
					   "downlink to block %u is out of range (index has %u blocks)",
					   EITupleGetDownlink(itup), state->nblocks);
	}
}

/*
 * Check that the keyed items of a page are strictly increasing and all
 * less than its high key.
 */
static void
ei_check_page_order(EICheckState *state, BlockNumber blkno, Page page)
{
	EIPageOpaque opaque = EIPageGetOpaque(page);
	OffsetNumber maxoff = PageGetMaxOffsetNumber(page);
	OffsetNumber first = ei_first_keyed_item(page);
	OffsetNumber off;

	if (!OffsetNumberIsValid(first))
		return;

	for (off = first; off < maxoff; off = OffsetNumberNext(off))
	{
		CHECK_FOR_INTERRUPTS();

		if (ei_compare_items(state, page, off, page, OffsetNumberNext(off), true) >= 0)
			ei_corrupt(state, blkno, off,
					   "item is not less than the item at offset %u",
					   OffsetNumberNext(off));
	}

	if (!EI_RIGHTMOST(opaque) &&
		ei_compare_items(state, page, maxoff, page, EI_HIKEY, true) >= 0)
		ei_corrupt(state, blkno, maxoff,
				   "last item is not less than the page's high key");
}

/*
 * Check a page against its left sibling: its first keyed item must not be
 * below the left sibling's high key, and its own high key must be above it.
 */
static void
ei_check_sibling_keys(EICheckState *state, BlockNumber leftblk, Page leftpage,
					  BlockNumber blkno, Page page)
{
	OffsetNumber first = ei_first_keyed_item(page);

	if (OffsetNumberIsValid(first) &&
		ei_compare_items(state, page, first, leftpage, EI_HIKEY, false) < 0)
		ei_corrupt(state, blkno, first,
				   "first item is less than the high key of left sibling %u",
				   leftblk);

	if (!EI_RIGHTMOST(EIPageGetOpaque(page)) &&
		ei_compare_items(state, page, EI_HIKEY, leftpage, EI_HIKEY, false) <= 0)
		ei_corrupt(state, blkno, EI_HIKEY,
				   "high key is not greater than the high key of left sibling %u",
				   leftblk);
}

/*
 * Is this page left half-dead by the first step of page deletion: a leaf
 * with no entries, or an inner page of a deleted chain with its one downlink?
 */
static bool
ei_is_halfdead(Page page)
{
	EIPageOpaque opaque = EIPageGetOpaque(page);
	OffsetNumber maxoff = PageGetMaxOffsetNumber(page);

	if (!(opaque->ei_flags & EI_HALF_DEAD) || (opaque->ei_flags & EI_DELETED))
		return false;
	if (EI_IS_LEAF(opaque))
		return opaque->ei_level == 0 && maxoff < EI_FIRST_DATA(opaque);
	return opaque->ei_level > 0 && maxoff == EI_FIRST_DATA(opaque);
}

/*
 * Check the fields of a child page reached from a parent at the given level.
 */
static void
ei_check_child_header(EICheckState *state, BlockNumber parentblk,
					  OffsetNumber parentoff, uint32 parentlevel,
					  BlockNumber childblk, Page child)
{
	EIPageOpaque copaque = EIPageGetOpaque(child);

	if (copaque->ei_level != parentlevel - 1)
		ei_corrupt(state, parentblk, parentoff,
				   "downlink points to block %u at level %u, expected level %u",
				   childblk, copaque->ei_level, parentlevel - 1);
	if (EI_IGNORE(copaque))
		ei_corrupt(state, parentblk, parentoff,
				   "downlink points to deleted or half-dead block %u",
				   childblk);
	if (EI_IS_LEAF(copaque) != (parentlevel == 1))
		ei_corrupt(state, parentblk, parentoff,
				   "downlink points to block %u whose leaf flag does not match its level %u",
				   childblk, copaque->ei_level);
}

/*
 * Check every downlink of an inner page against its child: the child's
 * level, its first key against the downlink's pivot, its high key against
 * the next pivot (or the parent's high key), and that it continues the
 * sibling chain where the previous downlink's child ended.
 */
static void
ei_check_downlinks(EICheckState *state, BlockNumber blkno, Page page,
				   EIChildCursor *cursor)
{
	EIPageOpaque opaque = EIPageGetOpaque(page);
	OffsetNumber maxoff = PageGetMaxOffsetNumber(page);
	OffsetNumber off;

	for (off = EI_FIRST_DATA(opaque); off <= maxoff; off = OffsetNumberNext(off))
	{
		IndexTuple	itup = ei_item(page, off);
		BlockNumber childblk = EITupleGetDownlink(itup);
		BlockNumber curblk;
		Page		child;
		Page		cur;
		EIPageOpaque copaque;
		OffsetNumber first;
		OffsetNumber boundoff;
		BlockNumber chainlen;

		CHECK_FOR_INTERRUPTS();

		child = ei_read_tree_page(state, childblk);
		ei_check_child_header(state, blkno, off, opaque->ei_level,
							  childblk, child);
		copaque = EIPageGetOpaque(child);

		/*
		 * The child continues the chain of children on the level below.
		 * Half-dead leaves have no downlink any more: their key space went
		 * to their right sibling, which the chain reaches through them.
		 */
		if (!cursor->started)
		{
			BlockNumber leftblk = copaque->ei_prev;

			while (BlockNumberIsValid(leftblk))
			{
				Page		left = ei_read_tree_page(state, leftblk);
				bool		halfdead = ei_is_halfdead(left);
				BlockNumber nextleft = EIPageGetOpaque(left)->ei_prev;

				pfree(left);
				if (!halfdead)
					ei_corrupt(state, blkno, off,
							   "first downlink of the level points to block %u, which has left sibling %u",
							   childblk, leftblk);
				leftblk = nextleft;
			}
		}
		else
		{
			BlockNumber expected = cursor->expected;
			BlockNumber prevlink = cursor->lastchild;

			while (expected != childblk && BlockNumberIsValid(expected))
			{
				Page		skip = ei_read_tree_page(state, expected);
				bool		halfdead = ei_is_halfdead(skip) &&
					EIPageGetOpaque(skip)->ei_prev == prevlink;
				BlockNumber nextblk = EIPageGetOpaque(skip)->ei_next;

				pfree(skip);
				if (!halfdead)
					break;
				prevlink = expected;
				expected = nextblk;
			}

			if (childblk != expected)
				ei_corrupt(state, blkno, off,
						   "downlink points to block %u, but the next page after block %u on level %u is %u",
						   childblk, cursor->lastchild, copaque->ei_level,
						   cursor->expected);
			if (copaque->ei_prev != prevlink)
				ei_corrupt(state, childblk, InvalidOffsetNumber,
						   "left link points to block %u, expected %u",
						   copaque->ei_prev, prevlink);
		}

		/* lower bound: the pivot; minus infinity bounds nothing here */
		first = ei_first_keyed_item(child);
		if (!EIPivotIsMinusInf(itup) && OffsetNumberIsValid(first) &&
			ei_compare_items(state, child, first, page, off, false) < 0)
			ei_corrupt(state, childblk, first,
					   "first item is less than its downlink's pivot at block %u, offset %u",
					   blkno, off);

		/*
		 * The right halves of incomplete splits have no downlink yet; the
		 * key space of this downlink runs through them.
		 */
		cur = child;
		curblk = childblk;
		chainlen = 0;
		while (EI_INCOMPLETE(EIPageGetOpaque(cur)))
		{
			BlockNumber nextblk = EIPageGetOpaque(cur)->ei_next;
			Page		next;

			if (++chainlen >= state->nblocks)
				ei_corrupt(state, curblk, InvalidOffsetNumber,
						   "incomplete split chain does not end");
			if (nextblk == InvalidBlockNumber)
				ei_corrupt(state, curblk, InvalidOffsetNumber,
						   "rightmost page is flagged incomplete split");
			next = ei_read_tree_page(state, nextblk);
			ei_check_child_header(state, blkno, off, opaque->ei_level,
								  nextblk, next);
			if (EIPageGetOpaque(next)->ei_prev != curblk)
				ei_corrupt(state, nextblk, InvalidOffsetNumber,
						   "left link points to block %u, expected %u",
						   EIPageGetOpaque(next)->ei_prev, curblk);
			if (cur != child)
				pfree(cur);
			cur = next;
			curblk = nextblk;
		}

		/* upper bound: the next pivot, else the parent's high key */
		if (off < maxoff)
			boundoff = OffsetNumberNext(off);
		else if (!EI_RIGHTMOST(opaque))
			boundoff = EI_HIKEY;
		else
			boundoff = InvalidOffsetNumber;

		if (!OffsetNumberIsValid(boundoff))
		{
			if (!EI_RIGHTMOST(EIPageGetOpaque(cur)))
				ei_corrupt(state, curblk, InvalidOffsetNumber,
						   "last child of rightmost block %u is not rightmost",
						   blkno);
		}
		else
		{
			if (EI_RIGHTMOST(EIPageGetOpaque(cur)))
				ei_corrupt(state, curblk, InvalidOffsetNumber,
						   "page is rightmost, but its parent block %u bounds it at offset %u",
						   blkno, boundoff);
			if (ei_compare_items(state, cur, EI_HIKEY, page, boundoff, false) != 0)
				ei_corrupt(state, curblk, EI_HIKEY,
						   "high key does not equal the bounding pivot at block %u, offset %u",
						   blkno, boundoff);
		}

		cursor->started = true;
		cursor->lastchild = curblk;
		cursor->expected = EIPageGetOpaque(cur)->ei_next;

		if (cur != child)
			pfree(cur);
		pfree(child);
		MemoryContextReset(state->keycxt);
	}
}

/*
 * Remember the entries of a leaf for the heapallindexed check.
 */
static void
ei_collect_leaf(EICheckState *state, BlockNumber blkno, Page page)
{
	EIPageOpaque opaque = EIPageGetOpaque(page);
	OffsetNumber maxoff = PageGetMaxOffsetNumber(page);
	OffsetNumber off;

	/* a policy leaf's summary holds two entries: read them all again */
	if (opaque->ei_flags & EI_POLICY_LEAF)
	{
		Buffer		buf = ReadBufferExtended(state->rel, MAIN_FORKNUM, blkno,
											 RBM_NORMAL, state->strategy);
		Page		raw = palloc(BLCKSZ);

		LockBuffer(buf, BUFFER_LOCK_SHARE);
		memcpy(raw, BufferGetPage(buf), BLCKSZ);
		UnlockReleaseBuffer(buf);
		pfree(ei_policy_leaf(state, blkno, raw, true));
		pfree(raw);
		return;
	}

	for (off = EI_FIRST_DATA(opaque); off <= maxoff; off = OffsetNumberNext(off))
	{
		IndexTuple	itup = ei_item(page, off);

		if (!EITupleIsPosting(itup))
		{
			ei_collect_entry(state, blkno, off, itup, false);
			continue;
		}
		/* a posting list: each TID as the plain entry it stands for */
		for (int t = 0; t < EIPostingCount(itup); t++)
		{
			IndexTuple	plain = EIFormPosting(itup, EIPostingTID(itup, t), 1);

			ei_collect_entry(state, blkno, off, plain, false);
			pfree(plain);
		}
	}
}

/*
 * Remember one leaf entry for the heapallindexed check.
 */
static void
ei_collect_entry(EICheckState *state, BlockNumber blkno, OffsetNumber off,
				 IndexTuple itup, bool outside_tree)
{
	{
		Size		sz = IndexTupleSize(itup);
		EICheckEntry *entry;

		if (state->nentries >= state->maxentries)
		{
			state->maxentries *= 2;
			state->entries = repalloc_huge(state->entries,
										   state->maxentries * sizeof(EICheckEntry));
		}
		if (state->tuples_used + sz > state->tuples_size)
		{
			while (state->tuples_used + sz > state->tuples_size)
				state->tuples_size *= 2;
			state->tuples = repalloc_huge(state->tuples, state->tuples_size);
		}

		memcpy(state->tuples + state->tuples_used, itup, sz);
		entry = &state->entries[state->nentries++];
		entry->htid = itup->t_tid;
		entry->offnum = off;
		entry->matched = false;
		entry->blkno = blkno;
		entry->buffered = outside_tree;
		entry->tupoff = state->tuples_used;
		state->tuples_used += sz;
	}
}

/*
 * Have the policy check a leaf of its own kind (a private copy), fully the
 * first time; returns the standard-leaf summary the level checks read.
 */
static Page
ei_policy_leaf(EICheckState *state, BlockNumber blkno, Page page,
			   bool collect)
{
	const EILeafKindOps *leafops = EIGetPolicyChecked(state->rel)->leaf;
	bool		full = !collect && !state->policy_leaf_checked[blkno];
	Page		summary;

	if (leafops == NULL || leafops->verify == NULL)
		ei_corrupt(state, blkno, InvalidOffsetNumber,
				   "leaf is of a kind the index's access method does not have");
	summary = leafops->verify(&state->vcxt, blkno, page, full, collect);
	if (full)
		state->policy_leaf_checked[blkno] = true;
	return summary;
}

/*
 * EIVerifyContext.corrupt: report the policy's finding as ours.
 */
static void
ei_verify_corrupt(EIVerifyContext *cxt, BlockNumber blkno,
				  OffsetNumber offnum, const char *message)
{
	ei_corrupt((EICheckState *) cxt->private_data, blkno, offnum, "%s",
			   message);
}

/*
 * EIVerifyContext.collect_entry: remember a live entry the policy found.
 */
static void
ei_verify_collect(EIVerifyContext *cxt, BlockNumber blkno,
				  OffsetNumber offnum, IndexTuple itup, bool outside_tree)
{
	ei_collect_entry((EICheckState *) cxt->private_data, blkno, offnum, itup,
					 outside_tree);
}

/*
 * EIVerifyContext.read_page: a checked private copy of a page the policy
 * keeps outside the tree.
 */
static Page
ei_verify_read_page(EIVerifyContext *cxt, BlockNumber blkno)
{
	return ei_read_page((EICheckState *) cxt->private_data, blkno, true);
}

/*
 * A checked private copy of a page of the tree (a level's, or a child's).
 */
static Page
ei_read_tree_page(EICheckState *state, BlockNumber blkno)
{
	return ei_read_page(state, blkno, false);
}

/*
 * The leftmost page of a level: the page the leftmost downlink names, or a
 * half-dead page left of it (a crash while deleting the leftmost page).
 */
static BlockNumber
ei_leftmost_with_half_dead(EICheckState *state, BlockNumber blkno)
{
	for (;;)
	{
		Page		page = ei_read_tree_page(state, blkno);
		BlockNumber leftblk = EIPageGetOpaque(page)->ei_prev;
		Page		left;
		bool		halfdead;

		pfree(page);
		if (!BlockNumberIsValid(leftblk) || leftblk >= state->nblocks)
			return blkno;
		left = ei_read_tree_page(state, leftblk);
		halfdead = ei_is_halfdead(left) && EIPageGetOpaque(left)->ei_next == blkno;
		pfree(left);
		if (!halfdead)
			return blkno;
		blkno = leftblk;
	}
}

/*
 * Walk one level from its leftmost page to the right, checking each page
 * and, above the leaves, its downlinks.  Returns the leftmost page of the
 * level below (InvalidBlockNumber for the leaf level).
 */
static BlockNumber
ei_check_level(EICheckState *state, BlockNumber leftmost, uint32 level)
{
	BlockNumber blkno = leftmost;
	BlockNumber prevblk = InvalidBlockNumber;
	Page		prevpage = NULL;
	BlockNumber childleftmost = InvalidBlockNumber;
	EIChildCursor cursor;

	cursor.started = false;
	cursor.lastchild = InvalidBlockNumber;
	cursor.expected = InvalidBlockNumber;

	while (BlockNumberIsValid(blkno))
	{
		Page		page;
		EIPageOpaque opaque;

		CHECK_FOR_INTERRUPTS();

		if (blkno != EI_METAPAGE && blkno < state->nblocks &&
			state->visited[blkno])
			ei_corrupt(state, blkno, InvalidOffsetNumber,
					   "block is reached twice walking the levels (last from block %u on level %u)",
					   prevblk, level);

		page = ei_read_tree_page(state, blkno);
		state->visited[blkno] = true;
		opaque = EIPageGetOpaque(page);

		if (opaque->ei_level != level)
			ei_corrupt(state, blkno, InvalidOffsetNumber,
					   blkno == state->meta.root ?
					   "root page is at level %u, but the metapage says %u" :
					   "page is at level %u, expected level %u",
					   opaque->ei_level, level);
		if (EI_IS_LEAF(opaque) != (level == 0))
			ei_corrupt(state, blkno, InvalidOffsetNumber,
					   "leaf flag does not match level %u", level);
		/*
		 * Half-dead pages stay linked until the second step of their
		 * deletion (a crash can leave them so until the next VACUUM); a
		 * deleted page must be unlinked.
		 */
		if ((opaque->ei_flags & EI_DELETED) ||
			((opaque->ei_flags & EI_HALF_DEAD) && !ei_is_halfdead(page)))
			ei_corrupt(state, blkno, InvalidOffsetNumber,
					   "deleted or half-dead page is linked into level %u",
					   level);
		if (opaque->ei_prev != prevblk)
			ei_corrupt(state, blkno, InvalidOffsetNumber,
					   "left link points to block %u, expected %u",
					   opaque->ei_prev, prevblk);

		/*
		 * Only the metapage's root carries EI_ROOT.  A split clears the flag
		 * on both halves, so a root whose split has not yet got its new root
		 * lacks it while still flagged incomplete.
		 */
		if (EI_IS_ROOT(opaque) && blkno != state->meta.root)
			ei_corrupt(state, blkno, InvalidOffsetNumber,
					   "page is flagged root, but the metapage's root is block %u",
					   state->meta.root);
		if (!EI_IS_ROOT(opaque) && blkno == state->meta.root &&
			!EI_INCOMPLETE(opaque))
			ei_corrupt(state, blkno, InvalidOffsetNumber,
					   "metapage's root page is not flagged root");
		if (EI_INCOMPLETE(opaque) && EI_RIGHTMOST(opaque))
			ei_corrupt(state, blkno, InvalidOffsetNumber,
					   "rightmost page is flagged incomplete split");

		/* the root level holds the root and right halves of its splits */
		if (level == state->meta.level && prevpage != NULL &&
			!EI_INCOMPLETE(EIPageGetOpaque(prevpage)))
			ei_corrupt(state, blkno, InvalidOffsetNumber,
					   "root level has a second page that no incomplete split of block %u accounts for",
					   prevblk);

		ei_check_item_kinds(state, blkno, page);
		ei_check_page_order(state, blkno, page);
		if (prevpage != NULL)
			ei_check_sibling_keys(state, prevblk, prevpage, blkno, page);
		MemoryContextReset(state->keycxt);

		if (level > 0)
		{
			if (prevpage == NULL)
				childleftmost = EITupleGetDownlink(ei_item(page, EI_FIRST_DATA(opaque)));
			/* a half-dead chain page's one downlink leads to half-dead pages */
			if (!ei_is_halfdead(page))
				ei_check_downlinks(state, blkno, page, &cursor);
		}
		else if (state->heapallindexed)
			ei_collect_leaf(state, blkno, page);

		if (prevpage != NULL)
			pfree(prevpage);
		prevpage = page;
		prevblk = blkno;
		blkno = opaque->ei_next;
	}

	if (prevpage != NULL)
		pfree(prevpage);

	return childleftmost;
}

/*
 * On a standby, check every page of the file by itself (see the file's
 * header comment): new pages (replay extends the file before it fills a
 * page), deleted pages, the policy's pages outside the tree and leaves of
 * its own kind (compact leaves) are skipped.  The size is read
 * again after every page, so that a downlink to a page replay added
 * meanwhile is in range.
 */
static void
ei_check_pages_standby(EICheckState *state)
{
	BlockNumber end = state->nblocks;

	for (BlockNumber blkno = EI_METAPAGE + 1; blkno < end; blkno++)
	{
		Page		page;
		EIPageOpaque opaque;

		CHECK_FOR_INTERRUPTS();
		page = ei_copy_page(state, blkno);
		state->nblocks = Max(state->nblocks,
							 RelationGetNumberOfBlocks(state->rel));
		if (PageIsNew(page))
		{
			pfree(page);
			continue;
		}
		opaque = EIPageGetOpaque(page);
		if (PageGetSpecialSize(page) == MAXALIGN(sizeof(EIPageOpaqueData)) &&
			opaque->ei_page_id == EI_PAGE_ID &&
			((opaque->ei_flags & (EI_POLICY_FLAGS | EI_DELETED)) ||
			 (EI_IS_LEAF(opaque) && (opaque->ei_flags & EI_POLICY_LEAF))))
		{
			/* a policy's page: its own format; a deleted one: free */
			pfree(page);
			continue;
		}
		page = ei_check_page_copy(state, blkno, page, false);
		opaque = EIPageGetOpaque(page);
		if (EI_IS_LEAF(opaque) != (opaque->ei_level == 0))
			ei_corrupt(state, blkno, InvalidOffsetNumber,
					   "leaf flag does not match level %u", opaque->ei_level);
		ei_check_item_kinds(state, blkno, page);
		ei_check_page_order(state, blkno, page);
		MemoryContextReset(state->keycxt);
		pfree(page);
	}
}

/*
 * Read and verify the metapage, keeping a copy of its contents.
 */
static void
ei_check_meta(EICheckState *state)
{
	Buffer		buf;
	Page		page;
	EIPageOpaque opaque;
	EIMetaPage	meta;
	const char *amname;
	uint32		expected_kind;

	if (state->nblocks == 0)
		ei_corrupt(state, EI_METAPAGE, InvalidOffsetNumber,
				   "index has no blocks");

	buf = ReadBufferExtended(state->rel, MAIN_FORKNUM, EI_METAPAGE,
							 RBM_NORMAL, state->strategy);
	LockBuffer(buf, BUFFER_LOCK_SHARE);
	page = BufferGetPage(buf);

	/* (a zero page has no special space to point to) */
	if (PageIsNew(page) ||
		PageGetSpecialSize(page) != MAXALIGN(sizeof(EIPageOpaqueData)) ||
		!EI_IS_META((opaque = EIPageGetOpaque(page))) ||
		opaque->ei_page_id != EI_PAGE_ID)
	{
		UnlockReleaseBuffer(buf);
		ei_corrupt(state, EI_METAPAGE, InvalidOffsetNumber,
				   "metapage is missing or not flagged as a metapage");
	}
	meta = EIPageGetMeta(page);
	memcpy(&state->meta, meta, sizeof(EIMetaPageData));
	UnlockReleaseBuffer(buf);
	meta = &state->meta;

	/* replay extends the file before a new root is in the metapage */
	if (state->standby)
		state->nblocks = RelationGetNumberOfBlocks(state->rel);

	if (meta->magic != EI_MAGIC)
		ei_corrupt(state, EI_METAPAGE, InvalidOffsetNumber,
				   "metapage magic is 0x%08X, expected 0x%08X",
				   meta->magic, EI_MAGIC);
	if (!EI_VERSION_KNOWN(meta->version))
		ei_corrupt(state, EI_METAPAGE, InvalidOffsetNumber,
				   "metapage version is %u, expected %u or %u",
				   meta->version, EI_VERSION, EI_VERSION_POSTING);

	amname = EIGetPolicyChecked(state->rel)->name;
	expected_kind = EIRelAmKind(state->rel);
	if (meta->am_kind != expected_kind)
		ei_corrupt(state, EI_METAPAGE, InvalidOffsetNumber,
				   "metapage access method kind is %u, expected %u for %s",
				   meta->am_kind, expected_kind, amname);

	if (!BlockNumberIsValid(meta->root) || meta->root == EI_METAPAGE ||
		meta->root >= state->nblocks)
		ei_corrupt(state, EI_METAPAGE, InvalidOffsetNumber,
				   "metapage root block %u is out of range (index has %u blocks)",
				   meta->root, state->nblocks);
	if (meta->level >= state->nblocks)
		ei_corrupt(state, EI_METAPAGE, InvalidOffsetNumber,
				   "metapage root level %u is impossible for %u blocks",
				   meta->level, state->nblocks);
}

/*
 * Order leaf entries by heap TID.
 */
static int
ei_entry_cmp(const void *a, const void *b)
{
	return ItemPointerCompare(&((EICheckEntry *) a)->htid,
							  &((EICheckEntry *) b)->htid);
}

/*
 * Find the leaf entry for a heap TID, or NULL.
 */
static EICheckEntry *
ei_find_entry(EICheckState *state, ItemPointer htid)
{
	int64		lo = 0;
	int64		hi = state->nentries;

	while (lo < hi)
	{
		int64		mid = lo + (hi - lo) / 2;
		int32		c = ItemPointerCompare(&state->entries[mid].htid, htid);

		if (c == 0)
			return &state->entries[mid];
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

/*
 * Are the attributes of two index tuples equal?  Key columns compare with
 * the operator class's comparison function, included columns by image.
 */
static bool
ei_same_values(EICheckState *state, IndexTuple a, IndexTuple b)
{
	Relation	rel = state->rel;
	TupleDesc	tupdesc = RelationGetDescr(rel);
	int			nkeyatts = IndexRelationGetNumberOfKeyAttributes(rel);
	int			i;

	for (i = 0; i < tupdesc->natts; i++)
	{
		Form_pg_attribute att = TupleDescAttr(tupdesc, i);
		bool		anull;
		bool		bnull;
		Datum		adatum = index_getattr(a, i + 1, tupdesc, &anull);
		Datum		bdatum = index_getattr(b, i + 1, tupdesc, &bnull);

		if (anull != bnull)
			return false;
		if (anull)
			continue;

		if (i < nkeyatts)
		{
			FmgrInfo   *cmp = index_getprocinfo(rel, i + 1, EI_CMP_PROC);

			if (DatumGetInt32(FunctionCall2Coll(cmp, rel->rd_indcollation[i],
												adatum, bdatum)) != 0)
				return false;
		}
		else if (!datum_image_eq(adatum, bdatum, att->attbyval, att->attlen))
			return false;
	}
	return true;
}

/*
 * table_index_build_scan callback: every heap tuple the snapshot sees must
 * have a leaf entry with its root TID and the same key.
 */
static void
ei_heap_callback(Relation index, ItemPointer tid, Datum *values,
				 bool *isnull, bool tupleIsAlive, void *checkstate)
{
	EICheckState *state = (EICheckState *) checkstate;
	MemoryContext oldcxt;
	IndexTuple	itup;
	EICheckEntry *entry;

	CHECK_FOR_INTERRUPTS();

	entry = ei_find_entry(state, tid);
	if (entry == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_INDEX_CORRUPTED),
				 errmsg("index \"%s\" is corrupted: heap tuple (%u,%u) of table \"%s\" has no index entry",
						RelationGetRelationName(state->rel),
						ItemPointerGetBlockNumber(tid),
						ItemPointerGetOffsetNumber(tid),
						RelationGetRelationName(state->heaprel)),
				 errdetail("The tuple is visible to the check's snapshot.")));

	oldcxt = MemoryContextSwitchTo(state->tuplecxt);
	itup = index_form_tuple(RelationGetDescr(index), values, isnull);
	itup->t_tid = *tid;
	if (!ei_same_values(state, itup,
						(IndexTuple) (state->tuples + entry->tupoff)))
		ei_corrupt(state, entry->blkno, entry->offnum,
				   "entry for heap tuple (%u,%u) of table \"%s\" does not match the tuple's key",
				   ItemPointerGetBlockNumber(tid),
				   ItemPointerGetOffsetNumber(tid),
				   RelationGetRelationName(state->heaprel));
	MemoryContextSwitchTo(oldcxt);
	MemoryContextReset(state->tuplecxt);

	entry->matched = true;
}

/*
 * Check that no two leaf entries share a heap TID, then that every heap
 * tuple visible to a fresh MVCC snapshot has its entry.
 */
static void
ei_check_heapallindexed(EICheckState *state)
{
	int64		i;
	int64		unmatched;
	Snapshot	snapshot;
	IndexInfo  *indexInfo;
	TableScanDesc scan;

	qsort(state->entries, state->nentries, sizeof(EICheckEntry),
		  ei_entry_cmp);
	for (i = 1; i < state->nentries; i++)
	{
		EICheckEntry *prev = &state->entries[i - 1];
		EICheckEntry *cur = &state->entries[i];

		if (ItemPointerEquals(&prev->htid, &cur->htid) &&
			(prev->buffered || cur->buffered) &&
			ei_same_values(state, (IndexTuple) (state->tuples + prev->tupoff),
						   (IndexTuple) (state->tuples + cur->tupoff)))
			continue;			/* buffered and flushed, or buffered twice */
		if (ItemPointerEquals(&prev->htid, &cur->htid))
			ei_corrupt(state, cur->blkno, cur->offnum,
					   "heap TID (%u,%u) is indexed twice, also at block %u, offset %u",
					   ItemPointerGetBlockNumber(&cur->htid),
					   ItemPointerGetOffsetNumber(&cur->htid),
					   prev->blkno, prev->offnum);
	}

	snapshot = RegisterSnapshot(GetTransactionSnapshot());

	/*
	 * An index built over a broken HOT chain is usable only by snapshots
	 * that do not see the chain's older members; a transaction snapshot
	 * taken before the index was built may see them.
	 */
	if (IsolationUsesXactSnapshot() && state->rel->rd_index->indcheckxmin &&
		!TransactionIdPrecedes(HeapTupleHeaderGetXmin(state->rel->rd_indextuple->t_data),
							   snapshot->xmin))
		ereport(ERROR,
				(errcode(ERRCODE_T_R_SERIALIZATION_FAILURE),
				 errmsg("index \"%s\" cannot be checked with this transaction's snapshot",
						RelationGetRelationName(state->rel)),
				 errhint("Run the check in a new transaction, or in READ COMMITTED mode.")));

	/*
	 * BuildIndexInfo sets up expressions and the partial index predicate;
	 * the scan evaluates them for us.  With ii_Concurrent the scan does not
	 * compute an xmin horizon, which it must not do when handed an MVCC
	 * snapshot; uniqueness is not ours to check here.
	 */
	indexInfo = BuildIndexInfo(state->rel);
	indexInfo->ii_Concurrent = true;
	indexInfo->ii_Unique = false;
	indexInfo->ii_ExclusionOps = NULL;
	indexInfo->ii_ExclusionProcs = NULL;
	indexInfo->ii_ExclusionStrats = NULL;

	state->tuplecxt = AllocSetContextCreate(CurrentMemoryContext,
											"elastic_index_check tuple",
											ALLOCSET_DEFAULT_SIZES);

	scan = table_beginscan_strat(state->heaprel, snapshot, 0, NULL,
								 true, true);
	table_index_build_scan(state->heaprel, state->rel, indexInfo, true, false,
						   ei_heap_callback, (void *) state, scan);

	UnregisterSnapshot(snapshot);
	MemoryContextDelete(state->tuplecxt);

	/* unmatched entries point at dead tuples awaiting VACUUM: fine */
	unmatched = 0;
	for (i = 0; i < state->nentries; i++)
	{
		if (!state->entries[i].matched)
			unmatched++;
	}
	elog(DEBUG1, "index \"%s\": " INT64_FORMAT " of " INT64_FORMAT " entries matched no visible heap tuple",
		 RelationGetRelationName(state->rel), unmatched, state->nentries);
}

/*
 * elastic_index_check(index regclass, heapallindexed bool) returns void
 *
 * Verify an elastic_index index; raise ERRCODE_INDEX_CORRUPTED at the
 * first problem, return silently if there is none.
 */
Datum
elastic_index_check(PG_FUNCTION_ARGS)
{
	Oid			indexoid = PG_GETARG_OID(0);
	bool		heapallindexed = PG_ARGISNULL(1) ? false : PG_GETARG_BOOL(1);
	Oid			heapoid;
	Relation	heaprel = NULL;
	Relation	rel;
	bool		standby = RecoveryInProgress();
	LOCKMODE	lockmode = standby ? AccessShareLock : ShareLock;
	EICheckState state;
	MemoryContext checkcxt;
	MemoryContext oldcxt;
	BlockNumber leftmost;
	uint32		level;
	EIOwnerSwitch owner;

	/*
	 * No ownership test here: like amcheck's functions, the install script
	 * revokes EXECUTE from PUBLIC, so only superusers and the roles they
	 * grant it to get this far.
	 */

	/*
	 * Lock the table before the index, as every writer does, to avoid
	 * deadlocks.  ShareLock on both (like amcheck's bt_index_parent_check)
	 * keeps out INSERT, UPDATE, DELETE and VACUUM, while SELECT goes on.  A
	 * standby grants only AccessShareLock, and replay goes on: check page
	 * by page there (ei_check_pages_standby), without the heap.
	 */
	if (standby && heapallindexed)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("heapallindexed cannot be checked during recovery"),
				 errdetail("On a standby, elastic_index_check checks each page by itself, while replay changes the tree and the table."),
				 errhint("Run elastic_index_check with heapallindexed false here, or with true on the primary.")));

	/*
	 * A Citus-distributed index: check every placement of every shard index
	 * (each on its node, as the shard's own call; the coordinator's index is
	 * an empty shell).
	 */
	if (EIIndexIsDistributed(indexoid))
	{
		rel = EIOpenIndexChecked(indexoid, AccessShareLock);

		/*
		 * The shards' checks would take ShareLock on the primaries' shards,
		 * blocking their writers, which a check on a standby must not do.
		 */
		if (standby)
			ereport(ERROR,
					(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
					 errmsg("cannot check the shards of index \"%s\" during recovery",
							RelationGetRelationName(rel)),
					 errdetail("The shards' checks would run on the worker nodes' primaries and block their writes."),
					 errhint("Run elastic_index_check on the primary coordinator, or on each shard index on a standby of its worker.")));

		/*
		 * One placement after another: each check holds ShareLock on its
		 * shard until it ends, so that writes wait for one shard at a time.
		 */
		(void) EIShardsCall(fcinfo, rel,
							heapallindexed ? ", true" : ", false",
							EI_SHARDS_EVERY_PLACEMENT | EI_SHARDS_ONE_AT_A_TIME,
							ShareLock, ShareLock);
		PG_RETURN_VOID();
	}

	heapoid = IndexGetRelation(indexoid, true);
	if (OidIsValid(heapoid))
		heaprel = table_open(heapoid, lockmode);

	rel = EIOpenIndexChecked(indexoid, lockmode);

	/* the index might have been dropped and its OID reused meanwhile */
	if (heaprel == NULL || heapoid != IndexGetRelation(indexoid, false))
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_TABLE),
				 errmsg("could not open table of index \"%s\"",
						RelationGetRelationName(rel))));

	if (!rel->rd_index->indisvalid)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("cannot check index \"%s\"",
						RelationGetRelationName(rel)),
				 errdetail("The index is not valid (a failed CREATE INDEX CONCURRENTLY?)."),
				 errhint("Rebuild it with REINDEX.")));

	/*
	 * The index's expressions, predicate and comparison functions are the
	 * table owner's code: run them as the owner, as amcheck does.
	 */
	EIBecomeTableOwner(heaprel, &owner);

	checkcxt = AllocSetContextCreate(CurrentMemoryContext,
									 "elastic_index_check",
									 ALLOCSET_DEFAULT_SIZES);
	oldcxt = MemoryContextSwitchTo(checkcxt);

	memset(&state, 0, sizeof(state));
	state.rel = rel;
	state.heaprel = heaprel;
	state.heapallindexed = heapallindexed;
	state.standby = standby;
	state.nblocks = RelationGetNumberOfBlocks(rel);
	state.strategy = GetAccessStrategy(BAS_BULKREAD);
	state.keycxt = AllocSetContextCreate(checkcxt,
										 "elastic_index_check keys",
										 ALLOCSET_DEFAULT_SIZES);
	state.visited = palloc_extended(Max(state.nblocks, 1) * sizeof(bool),
									MCXT_ALLOC_HUGE | MCXT_ALLOC_ZERO);
	state.policy_leaf_checked = palloc_extended(Max(state.nblocks, 1) * sizeof(bool),
												MCXT_ALLOC_HUGE | MCXT_ALLOC_ZERO);
	if (heapallindexed)
	{
		state.maxentries = 1024;
		state.entries = MemoryContextAllocHuge(checkcxt,
											   state.maxentries * sizeof(EICheckEntry));
		state.tuples_size = BLCKSZ;
		state.tuples = MemoryContextAllocHuge(checkcxt, state.tuples_size);
	}

	/* the policy's catalog lookups, before any page is locked */
	{
		const EILeafKindOps *leafops = EIGetPolicyChecked(rel)->leaf;

		if (leafops != NULL && leafops->prepare != NULL)
			leafops->prepare(rel);
	}

	/* 1. the metapage */
	ei_check_meta(&state);

	if (standby)
	{
		/* every page by itself (the arrays below are not used) */
		ei_check_pages_standby(&state);
		goto done;
	}

	/* what the policy's checks get */
	state.vcxt.rel = rel;
	state.vcxt.heapRel = heaprel;
	state.vcxt.meta = &state.meta;
	state.vcxt.nblocks = state.nblocks;
	state.vcxt.visited = state.visited;
	state.vcxt.collect = heapallindexed;
	state.vcxt.page_cxt = state.keycxt;
	state.vcxt.corrupt = ei_verify_corrupt;
	state.vcxt.collect_entry = ei_verify_collect;
	state.vcxt.read_page = ei_verify_read_page;
	state.vcxt.private_data = &state;

	/* 2. and 3. every level from the root down, with its downlinks */
	leftmost = state.meta.root;
	level = state.meta.level;
	for (;;)
	{
		BlockNumber childleftmost;

		leftmost = ei_leftmost_with_half_dead(&state, leftmost);
		childleftmost = ei_check_level(&state, leftmost, level);

		if (level == 0)
			break;
		leftmost = childleftmost;
		level--;
	}

	/* 4. the pages the policy keeps outside the tree (osm_tree's buffer) */
	if (EIGetPolicyChecked(rel)->verify_extra)
		EIGetPolicyChecked(rel)->verify_extra(&state.vcxt);

	/* 5. the table against the leaves and the buffer */
	if (heapallindexed)
		ei_check_heapallindexed(&state);

done:
	FreeAccessStrategy(state.strategy);
	MemoryContextSwitchTo(oldcxt);
	MemoryContextDelete(checkcxt);
	EIRestoreCaller(&owner);

	relation_close(rel, lockmode);
	table_close(heaprel, lockmode);

	PG_RETURN_VOID();
}
