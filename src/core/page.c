/*-------------------------------------------------------------------------
 *
 * page.c
 *	  Pages, buffers, the metapage and tuple helpers of the tree core.
 *
 * Everything that knows the byte layout of a page or a tuple lives here,
 * so that insert, split, build, scan, VACUUM and redo change pages through
 * one set of functions.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/relscan.h"
#include "access/toast_compression.h"
#include "access/xlog.h"
#include "access/xloginsert.h"
#include "eistats.h"
#include "eitree.h"
#include "eitree_xlog.h"
#include "miscadmin.h"
#include "storage/freespace.h"
#include "storage/indexfsm.h"
#include "storage/lmgr.h"
#include "utils/memutils.h"
#include "utils/rel.h"

/*
 * Initialize an empty tree page with the given flags and level.
 */
void
EIInitPage(Page page, uint16 flags, uint32 level)
{
	EIPageOpaque opaque;

	PageInit(page, BLCKSZ, sizeof(EIPageOpaqueData));
	opaque = EIPageGetOpaque(page);
	opaque->ei_prev = InvalidBlockNumber;
	opaque->ei_next = InvalidBlockNumber;
	opaque->ei_level = level;
	opaque->ei_flags = flags;
	opaque->ei_page_id = EI_PAGE_ID;
}

/*
 * Initialize the metapage; pd_lower ends right after the metadata so that a
 * full-page image leaves out the unused rest of the page.
 */
void
EIInitMetaPage(Page page, uint32 am_kind, BlockNumber root, uint32 level,
			   uint32 fillfactor)
{
	EIMetaPage	meta;

	EIInitPage(page, EI_META, 0);
	meta = EIPageGetMeta(page);
	memset(meta, 0, sizeof(EIMetaPageData));
	meta->magic = EI_MAGIC;
	meta->version = EI_VERSION;
	meta->am_kind = am_kind;
	meta->root = root;
	meta->level = level;
	meta->fillfactor = fillfactor;
	((PageHeader) page)->pd_lower =
		((char *) meta + sizeof(EIMetaPageData)) - (char *) page;
}

/*
 * Report a damaged page of the index: ERRCODE_INDEX_CORRUPTED naming the
 * index and block, with what is wrong (NULL: nothing more to say).
 */
pg_noreturn static void
ei_page_corrupted(Relation rel, Buffer buf, const char *detail)
{
	ereport(ERROR,
			(errcode(ERRCODE_INDEX_CORRUPTED),
			 errmsg("index \"%s\" contains corrupted page at block %u",
					RelationGetRelationName(rel), BufferGetBlockNumber(buf)),
			 detail ? errdetail_internal("%s", detail) : 0,
			 errhint("Please REINDEX it.")));
	pg_unreachable();
}

/*
 * Verify that a buffer we just read looks like one of our pages.
 */
void
EICheckPage(Relation rel, Buffer buf)
{
	Page		page = BufferGetPage(buf);

	if (PageIsNew(page))
		ereport(ERROR,
				(errcode(ERRCODE_INDEX_CORRUPTED),
				 errmsg("index \"%s\" contains unexpected zero page at block %u",
						RelationGetRelationName(rel), BufferGetBlockNumber(buf)),
				 errhint("Please REINDEX it.")));

	if (PageGetSpecialSize(page) != MAXALIGN(sizeof(EIPageOpaqueData)) ||
		EIPageGetOpaque(page)->ei_page_id != EI_PAGE_ID)
		ei_page_corrupted(rel, buf, NULL);

	/*
	 * A standard page with more line pointers than a page holds would
	 * overflow the arrays a scan or a split fills from it (a policy's page
	 * uses pd_lower as it likes).
	 */
	if (!(EIPageGetOpaque(page)->ei_flags & (EI_POLICY_LEAF | EI_POLICY_FLAGS)) &&
		PageGetMaxOffsetNumber(page) > MaxIndexTuplesPerPage)
		ei_page_corrupted(rel, buf,
						  psprintf("It has %u line pointers; a page holds at most %u.",
								   (unsigned) PageGetMaxOffsetNumber(page),
								   (unsigned) MaxIndexTuplesPerPage));

	/*
	 * The free space bounds, which PageAddItem and PageIndexMultiDelete
	 * trust (and answer with PANIC inside a critical section): check them
	 * here, before any change.
	 */
	{
		PageHeader	phdr = (PageHeader) page;

		if (phdr->pd_lower < SizeOfPageHeaderData ||
			phdr->pd_lower > phdr->pd_upper ||
			phdr->pd_upper > phdr->pd_special ||
			phdr->pd_special != BLCKSZ - MAXALIGN(sizeof(EIPageOpaqueData)))
			ei_page_corrupted(rel, buf,
							  psprintf("The page header's bounds are lower %u, upper %u, special %u.",
									   (unsigned) phdr->pd_lower,
									   (unsigned) phdr->pd_upper,
									   (unsigned) phdr->pd_special));
	}
}

/*
 * Verify every item of a locked page of the tree before a critical section
 * removes some of them: no more line pointers than a page holds, each
 * holding an index tuple of its own length inside the page's tuple space,
 * together no more bytes than that space, every attribute inside its
 * tuple (EICheckTupleAttrs), and a leaf's entries with a valid heap TID
 * (a posting list: well formed, EIPostingProblem).  A leaf in a policy's format is left to the policy.  Damage is an
 * ERRCODE_INDEX_CORRUPTED error naming the
 * index, block and offset, not the PANIC PageIndexMultiDelete would raise
 * inside the critical section.  It reads the whole page, so it runs before
 * changes (VACUUM, removing dead entries, page deletion), not on every
 * read.
 */
void
EICheckPageItems(Relation rel, Buffer buf)
{
	Page		page = BufferGetPage(buf);
	PageHeader	phdr = (PageHeader) page;
	EIPageOpaque opaque = EIPageGetOpaque(page);
	OffsetNumber maxoff = PageGetMaxOffsetNumber(page);
	OffsetNumber firstdata = EI_FIRST_DATA(opaque);
	bool		leaf = EI_IS_LEAF(opaque);
	Size		total = 0;
	int16		fixed;

	/*
	 * A policy's leaf or page is the policy's to check; a deleted page keeps
	 * only its stamp (EIPageSetDeleted), which is not an index tuple.
	 */
	if (opaque->ei_flags & (EI_POLICY_LEAF | EI_POLICY_FLAGS | EI_DELETED))
		return;
	fixed = EIEntryFixedDataLen(rel);

	/* more items than a page can hold would overflow fixed arrays */
	if (maxoff > MaxIndexTuplesPerPage)
		ei_page_corrupted(rel, buf,
						  psprintf("It has %u line pointers; a page holds at most %u.",
								   (unsigned) maxoff,
								   (unsigned) MaxIndexTuplesPerPage));

	for (OffsetNumber off = FirstOffsetNumber; off <= maxoff; off++)
	{
		ItemId		itemid = PageGetItemId(page, off);
		unsigned	itemoff = ItemIdGetOffset(itemid);
		unsigned	itemlen = ItemIdGetLength(itemid);
		const char *what = NULL;

		if (!ItemIdHasStorage(itemid) || ItemIdIsRedirected(itemid))
			what = "an unused or redirected line pointer";
		else if (itemoff < phdr->pd_upper ||
				 itemoff + itemlen > phdr->pd_special ||
				 itemoff != MAXALIGN(itemoff) ||
				 itemlen < sizeof(IndexTupleData))
			what = "a line pointer outside the page's tuple space";
		else if (IndexTupleSize((IndexTuple) PageGetItem(page, itemid)) != itemlen)
			what = "an item whose size does not match its line pointer";
		else if (EITupleIsPosting((IndexTuple) PageGetItem(page, itemid)) &&
				 !(leaf && off >= firstdata))
			what = "a pivot marked as a posting list";
		else if (leaf && off >= firstdata &&
				 !EITupleIsPosting((IndexTuple) PageGetItem(page, itemid)))
		{
			ItemPointer tid = &((IndexTuple) PageGetItem(page, itemid))->t_tid;

			/* any table AM's TID: offsets are not bounded by the heap's */
			if (!BlockNumberIsValid(ItemPointerGetBlockNumberNoCheck(tid)) ||
				!OffsetNumberIsValid(ItemPointerGetOffsetNumberNoCheck(tid)))
				what = "an entry with an invalid heap TID";
		}
		if (what != NULL)
			ei_page_corrupted(rel, buf, psprintf("Offset %u is %s.", off, what));

		/*
		 * A plain leaf entry without nulls whose attributes are all
		 * fixed-width: EIItemAttrsProblem's one comparison, inline (this
		 * loop runs before every split).
		 */
		if (!(leaf && off >= firstdata && fixed > 0 &&
			  !EITupleIsPosting((IndexTuple) PageGetItem(page, itemid)) &&
			  !IndexTupleHasNulls((IndexTuple) PageGetItem(page, itemid)) &&
			  IndexInfoFindDataOffset(((IndexTuple) PageGetItem(page, itemid))->t_info) +
			  (Size) fixed <= itemlen))
			EICheckTupleAttrs(rel, page, off, (IndexTuple) PageGetItem(page, itemid),
							  EIItemIsPivot(page, off));
		total += MAXALIGN(itemlen);
	}

	/*
	 * Items that overlap can pass one by one; PageIndexMultiDelete would
	 * then find more tuple bytes than the tuple space holds, inside the
	 * critical section.  (This bounds the total, which is what it needs; it
	 * does not prove that no two items overlap.)
	 */
	if (total > phdr->pd_special - phdr->pd_upper)
		ei_page_corrupted(rel, buf,
						  psprintf("Its items take %zu bytes of a tuple space of %u.",
								   total,
								   (unsigned) (phdr->pd_special - phdr->pd_upper)));
}

/*
 * The block of a page in a shared or local buffer, or InvalidBlockNumber
 * for a page copied elsewhere (only for error messages).
 */
static BlockNumber
ei_page_block(Page page)
{
	char	   *p = (char *) page;

	if (p >= BufferBlocks && p < BufferBlocks + (Size) NBuffers * BLCKSZ)
		return BufferGetBlockNumber((Buffer) ((p - BufferBlocks) / BLCKSZ) + 1);
	for (int i = 0; i < NLocBuffer; i++)
		if (LocalBufferBlockPointers[i] == (Block) page)
			return BufferGetBlockNumber(-i - 1);
	return InvalidBlockNumber;
}

/*
 * Report a damaged item of a page of the index: ERRCODE_INDEX_CORRUPTED
 * naming the index, the block (when the page is in a buffer) and offset.
 */
void
EIItemCorrupted(Relation rel, Page page, OffsetNumber off, const char *what)
{
	BlockNumber blkno = ei_page_block(page);

	if (BlockNumberIsValid(blkno))
		ereport(ERROR,
				(errcode(ERRCODE_INDEX_CORRUPTED),
				 errmsg("index \"%s\" contains corrupted page at block %u",
						RelationGetRelationName(rel), blkno),
				 errdetail_internal("Offset %u is %s.", off, what),
				 errhint("Please REINDEX it.")));
	ereport(ERROR,
			(errcode(ERRCODE_INDEX_CORRUPTED),
			 errmsg("index \"%s\" contains a corrupted page",
					RelationGetRelationName(rel)),
			 errdetail_internal("Offset %u is %s.", off, what),
			 errhint("Please REINDEX it.")));
	pg_unreachable();
}

/*
 * What is wrong with the attributes of itup (NULL: nothing), walking them
 * as index_deform_tuple and nocachegetattr do: the first natts columns of
 * desc must each lie before end bytes from the tuple's start (a leaf
 * entry: its size; a pivot: the heap TID at its end), a varlena must have
 * a sane header (no TOAST pointer, which an index tuple never holds; a
 * compressed value with a sane raw size) and a cstring a NUL before the
 * end.  Pure: it only reads the tuple, so damage is reported by the caller.
 */
const char *
EITupleAttrsProblem(TupleDesc desc, int natts, IndexTuple itup, Size end)
{
	bool		hasnulls = IndexTupleHasNulls(itup);
	bits8	   *bp = (bits8 *) ((char *) itup + sizeof(IndexTupleData));
	Size		hoff = IndexInfoFindDataOffset(itup->t_info);
	char	   *tp;
	Size		limit;
	Size		off = 0;

	if (hoff > end)
		return "an item too short for its header";
	tp = (char *) itup + hoff;
	limit = end - hoff;

	for (int i = 0; i < natts; i++)
	{
		Form_pg_attribute att = TupleDescAttr(desc, i);

		if (hasnulls && att_isnull(i, bp))
			continue;

		if (att->attlen > 0)
		{
			off = att_align_nominal(off, att->attalign);
			if (off + att->attlen > limit)
				return "an item whose fixed-width attribute passes its end";
			off += att->attlen;
		}
		else if (att->attlen == -1)
		{
			Size		len;

			/* a nonzero first byte is a short header, else alignment pad */
			if (off >= limit)
				return "an item whose varlena attribute passes its end";
			if (*((uint8 *) (tp + off)) == 0)
				off = att_align_nominal(off, att->attalign);
			if (off >= limit)
				return "an item whose varlena attribute passes its end";
			if (VARATT_IS_EXTERNAL(tp + off))
				return "an item holding a TOAST pointer";
			if (VARATT_IS_1B(tp + off))
				len = VARSIZE_1B(tp + off);
			else
			{
				uint32		header;

				if (off + VARHDRSZ > limit)
					return "an item whose varlena attribute passes its end";
				memcpy(&header, tp + off, sizeof(header));
				len = VARSIZE_4B(&header);
				if (len < VARHDRSZ)
					return "an item with a damaged varlena header";
				if (VARATT_IS_4B_C(&header))
				{
					struct varlena *value = (struct varlena *) (tp + off);
					Size		rawsize;

					if (len < VARHDRSZ_COMPRESSED || off + len > limit)
						return "an item whose varlena attribute passes its end";
					rawsize = VARDATA_COMPRESSED_GET_EXTSIZE(value);

					/*
					 * pglz and lz4 expand at most about 255 times; decompression
					 * allocates rawsize bytes up front, so a damaged one would
					 * ask for up to 1 GB.
					 */
					if (rawsize > (len - VARHDRSZ_COMPRESSED) * (Size) 1024 ||
						rawsize > MaxAllocSize - VARHDRSZ ||
						(VARDATA_COMPRESSED_GET_COMPRESS_METHOD(value) != TOAST_PGLZ_COMPRESSION_ID &&
						 VARDATA_COMPRESSED_GET_COMPRESS_METHOD(value) != TOAST_LZ4_COMPRESSION_ID))
						return "an item with a damaged compressed attribute";
				}
			}
			if (off + len > limit)
				return "an item whose varlena attribute passes its end";
			off += len;
		}
		else if (att->attlen == -2)
		{
			Size		n;

			off = att_align_nominal(off, att->attalign);
			if (off >= limit)
				return "an item whose cstring attribute passes its end";
			n = strnlen(tp + off, limit - off);
			if (n >= limit - off)
				return "an item whose cstring attribute has no end";
			off += n + 1;
		}
		else
			return "an item of a column with an invalid length";
	}
	return NULL;
}

/*
 * The bytes the first natts attributes of desc take in an index tuple
 * without nulls, aligned as index_form_tuple places them, when all are of
 * fixed width; -1 when one is not.
 */
static int16
ei_fixed_data_len(TupleDesc desc, int natts)
{
	Size		off = 0;

	for (int i = 0; i < natts; i++)
	{
		Form_pg_attribute att = TupleDescAttr(desc, i);

		if (att->attlen <= 0)
			return -1;
		off = att_align_nominal(off, att->attalign);
		off += att->attlen;
	}
	return off > 0 && off < BLCKSZ ? (int16) off : -1;
}

/*
 * ei_fixed_data_len of the first natts attributes of rel, kept in the
 * index's cache at slot (0 for entries, 1 for pivots).
 */
static int16
ei_fixed_data_len_cached(Relation rel, int slot, int natts)
{
	int16	   *fixed = &EIGetRelCache(rel)->fixed_data_len[slot];

	if (*fixed == 0)
		*fixed = ei_fixed_data_len(RelationGetDescr(rel), natts);
	return *fixed;
}

/*
 * The bytes the attributes of an entry of rel without nulls take when all
 * are of fixed width, else -1 (EIItemAttrsProblem's shortcut).
 */
int16
EIEntryFixedDataLen(Relation rel)
{
	return ei_fixed_data_len_cached(rel, 0, RelationGetDescr(rel)->natts);
}

/*
 * What is wrong with the attributes of itup as an item of rel (NULL:
 * nothing): a leaf entry holds every column, a pivot (pivot true) the key
 * columns followed by its heap TID, a minus infinity item nothing.
 */
const char *
EIItemAttrsProblem(Relation rel, IndexTuple itup, bool pivot)
{
	Size		end = IndexTupleSize(itup);
	int			natts = RelationGetDescr(rel)->natts;

	if (EITupleIsPosting(itup))
	{
		const char *what;

		if (pivot)
			return "a pivot marked as a posting list";
		if ((what = EIPostingProblem(itup)) != NULL)
			return what;
		end = EIPostingOffset(itup);
	}
	if (pivot)
	{
		if (EIPivotIsMinusInf(itup))
			return NULL;
		natts = IndexRelationGetNumberOfKeyAttributes(rel);
		if (EIPivotFlags(itup) & EI_PIVOT_HAS_TID)
		{
			if (end < sizeof(IndexTupleData) + sizeof(ItemPointerData))
				return "a pivot too short to hold a heap TID";
			end -= sizeof(ItemPointerData);
		}
	}

	/*
	 * Attributes all of fixed width and none null end at the same offset in
	 * every tuple: one comparison decides.  (The loop would pass every one of
	 * them when the last ends inside the tuple.)
	 */
	if (!IndexTupleHasNulls(itup))
	{
		int16		fixed = pivot ? ei_fixed_data_len_cached(rel, 1, natts) :
			EIEntryFixedDataLen(rel);

		if (fixed > 0 && IndexInfoFindDataOffset(itup->t_info) + (Size) fixed <= end)
			return NULL;
	}
	return EITupleAttrsProblem(RelationGetDescr(rel), natts, itup, end);
}

/*
 * Refuse the item itup at off of page when an attribute it holds does not
 * lie inside it (EIItemAttrsProblem): ERRCODE_INDEX_CORRUPTED naming
 * index, block and offset, before anything compares or deforms it.
 */
void
EICheckTupleAttrs(Relation rel, Page page, OffsetNumber off, IndexTuple itup,
				  bool pivot)
{
	const char *what = EIItemAttrsProblem(rel, itup, pivot);

	if (unlikely(what != NULL))
		EIItemCorrupted(rel, page, off, what);
}

/*
 * Report the item at off of page that EIReadTupleChecked refused, saying
 * why (out of line: the check is inline in eitree.h).
 */
void
EIItemRefused(Relation rel, Page page, OffsetNumber off)
{
	PageHeader	phdr = (PageHeader) page;
	ItemId		itemid;

	if (off < FirstOffsetNumber || off > PageGetMaxOffsetNumber(page))
		EIItemCorrupted(rel, page, off, "past the page's last line pointer");
	itemid = PageGetItemId(page, off);
	if (!ItemIdHasStorage(itemid) || !ItemIdIsUsed(itemid) ||
		ItemIdIsRedirected(itemid) ||
		ItemIdGetOffset(itemid) < phdr->pd_upper ||
		ItemIdGetOffset(itemid) + ItemIdGetLength(itemid) > phdr->pd_special ||
		ItemIdGetLength(itemid) < sizeof(IndexTupleData))
		EIItemCorrupted(rel, page, off,
						"a line pointer outside the page's tuple space");
	EIItemCorrupted(rel, page, off,
					"an item whose size does not match its line pointer");
}

/*
 * Refuse a block number past the end of the index before it is read: a
 * damaged link (a right link, a downlink) otherwise gives the storage
 * manager's "could not open file", which does not name the index.  The
 * size is kept in the index's cache and read again (an lseek) only when a
 * block reaches past it, so an intact link costs one comparison.
 */
static inline void
ei_check_block_in_index(Relation rel, BlockNumber blkno)
{
	EIRelCache *cache = EIGetRelCache(rel);

	if (likely(blkno < cache->index_nblocks))
		return;
	cache->index_nblocks = RelationGetNumberOfBlocks(rel);
	if (blkno >= cache->index_nblocks)
		ereport(ERROR,
				(errcode(ERRCODE_INDEX_CORRUPTED),
				 errmsg("index \"%s\" is corrupted: a link names block %u of %u",
						RelationGetRelationName(rel), blkno, cache->index_nblocks),
				 errhint("Please REINDEX it.")));
}

/*
 * Read and lock a page, checking that it is one of ours.
 */
Buffer
EIGetBuf(Relation rel, BlockNumber blkno, int access)
{
	Buffer		buf;

	Assert(BlockNumberIsValid(blkno));
	ei_check_block_in_index(rel, blkno);
	buf = ReadBuffer(rel, blkno);
	LockBuffer(buf, access);
	EICheckPage(rel, buf);
	return buf;
}

/*
 * Release one page and read-lock another, like nbtree's _bt_relandgetbuf.
 */
Buffer
EIRelAndGetBuf(Relation rel, Buffer obuf, BlockNumber blkno, int access)
{
	Buffer		buf;

	Assert(BlockNumberIsValid(blkno));
	ei_check_block_in_index(rel, blkno);
	if (BufferIsValid(obuf))
		LockBuffer(obuf, BUFFER_LOCK_UNLOCK);

	/*
	 * Between two pages no lock is held: every walk over pages can be
	 * cancelled here (a held buffer lock holds off interrupts).
	 */
	CHECK_FOR_INTERRUPTS();
	buf = ReleaseAndReadBuffer(obuf, rel, blkno);
	LockBuffer(buf, access);
	EICheckPage(rel, buf);
	return buf;
}

/*
 * Unlock and release a buffer.
 */
void
EIRelBuf(Relation rel, Buffer buf)
{
	UnlockReleaseBuffer(buf);
}

/* candidates from the free space map that one EINewBuf call turns down */
#define EI_NEWBUF_MAX_REJECTED	16

/*
 * Spare pages a backend adds when the relation extension lock was busy:
 * EI_SPARE_PAGES_FIRST at its first such extension, twice as many as the
 * last time at each of its next ones, up to EI_SPARE_PAGES_MAX; each
 * extension that finds the lock free halves the count it remembers, so
 * that one quiet moment between busy ones does not start it over.
 */
#define EI_SPARE_PAGES_FIRST		8
#define EI_SPARE_PAGES_MAX			48

StaticAssertDecl(EI_SPARE_PAGES_MAX < EI_EXTEND_MAX_PAGES,
				 "a page and its spares are added in one extension");

/*
 * The next of this backend's spare pages (EIRelCache.spare_next) that is
 * still all zeros and that nobody else pins, exclusively locked, or
 * InvalidBuffer when none is left or the next one is busy.
 *
 * Nothing but this backend knows the spares, yet another backend may reach
 * one: VACUUM records an all-zero page as free, another backend takes it
 * from the free space map and uses it; and VACUUM may truncate spares at
 * the end of the file while this backend holds no lock on the index, after
 * which another backend may add the same block numbers anew.  So a spare is
 * used only if it is still inside the file, all zeros, and pinned by nobody
 * else (a cleanup lock, taken conditionally: the caller may hold leaf
 * locks): a page another backend took from the map is pinned by it until it
 * has initialized the page, and a page just added by an extender is pinned
 * by it from the extension until it has locked and initialized it.  A spare
 * seen in use is dropped (if it becomes free again, VACUUM finds it).  A
 * spare whose cleanup lock fails while it still looks all zeros (or whose
 * buffer lock is busy) is kept for a later call, which checks it again:
 * the pin is most often a passing one (the background writer, VACUUM's
 * pass, a statistics function).  The file cannot shrink while the caller
 * holds its lock on the index, so one size lookup per call is enough.
 */
static Buffer
ei_take_spare_page(Relation rel)
{
	EIRelCache *cache = EIGetRelCache(rel);
	BlockNumber nblocks = InvalidBlockNumber;

	while (cache->spare_next < cache->spare_end)
	{
		BlockNumber blkno = cache->spare_next;
		Buffer		buf;
		bool		keep = true;

		CHECK_FOR_INTERRUPTS();
		if (!BlockNumberIsValid(nblocks))
			nblocks = RelationGetNumberOfBlocks(rel);
		if (blkno >= nblocks)
		{
			/* truncated away, and so are the spares after it */
			cache->spare_next = cache->spare_end;
			break;
		}
		buf = ReadBuffer(rel, blkno);
		if (ConditionalLockBufferForCleanup(buf))
		{
			if (PageIsNew(BufferGetPage(buf)))
			{
				cache->spare_next++;
				elog(DEBUG1, "elastic_index: took spare page %u of index \"%s\"",
					 blkno, RelationGetRelationName(rel));
				return buf;
			}
			LockBuffer(buf, BUFFER_LOCK_UNLOCK);
			keep = false;
		}
		else if (ConditionalLockBuffer(buf))
		{
			/* pinned by another: in use, or a passing pin? */
			keep = PageIsNew(BufferGetPage(buf));
			LockBuffer(buf, BUFFER_LOCK_UNLOCK);
		}
		ReleaseBuffer(buf);
		if (keep)
		{
			elog(DEBUG1, "elastic_index: spare page %u of index \"%s\" is busy, kept for later",
				 blkno, RelationGetRelationName(rel));
			break;
		}
		elog(DEBUG1, "elastic_index: spare page %u of index \"%s\" is in use, dropped",
			 blkno, RelationGetRelationName(rel));
		cache->spare_next++;
	}
	return InvalidBuffer;
}

/*
 * Add a page at the end of the index and return it exclusively locked;
 * when the relation extension lock was busy, add spare pages after it for
 * this backend's next calls (EIRelCache.spare_next), so that a backend that
 * had to wait for the lock asks for it again only every so many pages.
 *
 * How many spares follows the backend's own demand, not the number of
 * waiters, whom spares cannot serve: EI_SPARE_PAGES_FIRST, doubled at each
 * consecutive busy extension (EIRelCache.spare_run) up to
 * EI_SPARE_PAGES_MAX; none while spares of an earlier run are still kept
 * (ei_take_spare_page found the next one busy), as one run is remembered.
 * The new page is locked before the extension lock is released (VACUUM
 * reads the index's length under that lock, see ei_vacuum_recycle); the
 * spares are not locked nor pinned once added (ei_take_spare_page checks
 * each when it comes to use it).  A local index (temporary, or created in
 * this transaction) needs no lock and gets no spares.
 */
static Buffer
ei_extend_index(Relation rel)
{
	bool		needLock = !RELATION_IS_LOCAL(rel);
	uint32		nspare = 0;
	uint32		added;
	Buffer		buf;
	BlockNumber blkno;
	EIRelCache *cache;

	if (needLock)
	{
		bool		busy = false;

		if (!ConditionalLockRelationForExtension(rel, ExclusiveLock))
		{
			LockRelationForExtension(rel, ExclusiveLock);
			busy = true;
		}
		/* the count includes us, its holder */
		else if (RelationExtensionLockWaiterCount(rel) > 1)
			busy = true;

		cache = EIGetRelCache(rel);
		if (!busy)
			cache->spare_run /= 2;
		else if (cache->spare_next >= cache->spare_end)
		{
			cache->spare_run = cache->spare_run == 0 ? EI_SPARE_PAGES_FIRST :
				Min(EI_SPARE_PAGES_MAX, cache->spare_run * 2);
			nspare = cache->spare_run;
		}
	}
	added = EIExtendIndexBy(rel, 1 + nspare, &buf);
	/* tests: hold the new page unlocked (debug_fault extension_gate) */
	if (needLock)
		EIFaultExtensionGate(rel);
	LockBuffer(buf, BUFFER_LOCK_EXCLUSIVE);
	if (needLock)
		UnlockRelationForExtension(rel, ExclusiveLock);

	/*
	 * A page just added is all zeros; one that is not was handed to another
	 * backend meanwhile (as hio.c checks for heaps), and using it would
	 * overwrite that backend's page.
	 */
	blkno = BufferGetBlockNumber(buf);
	if (!PageIsNew(BufferGetPage(buf)))
		ereport(ERROR,
				(errcode(ERRCODE_INDEX_CORRUPTED),
				 errmsg("new page %u of index \"%s\" is not empty",
						blkno, RelationGetRelationName(rel))));

	cache = EIGetRelCache(rel);
	if (added > 1)
	{
		/* no spares were left from before (nspare is 0 otherwise) */
		cache->spare_next = blkno + 1;
		cache->spare_end = blkno + added;
		elog(DEBUG1, "elastic_index: added %u spare pages to index \"%s\" after block %u",
			 added - 1, RelationGetRelationName(rel), blkno);
	}
	/* the block bound (ei_check_block_in_index) knows our new pages */
	cache->index_nblocks = Max(cache->index_nblocks, blkno + added);
	return buf;
}

/*
 * Get a new, exclusively locked page for the tree: a recyclable page from
 * the free space map if there is one, else one of this backend's spare
 * pages, else a new page at the end (with spares if the relation extension
 * lock was busy, ei_extend_index).
 *
 * The caller initializes the page inside its critical section.  The free
 * space map is only a hint (it is not WAL-logged and may be stale after a
 * crash), so each candidate is checked under a conditional lock.  Reusing a
 * deleted page is logged first so that a hot standby cancels queries that
 * could still be on their way to it.
 *
 * The caller may hold leaf locks, so nothing here waits for a lock another
 * backend holds on a page of the index: the candidates, the spares and the
 * metapage (read for the newest recycle fence) are locked conditionally; a
 * busy metapage leaves us with our cached fence, which is older and so
 * only turns down more pages.  Taking a page from the map removes it
 * there, so a candidate turned down that may still become free (a deleted
 * page not recyclable yet, or one we could not lock) is put back, once we
 * are done with the map, to be found by a later call rather than only by
 * the next VACUUM.  At most EI_NEWBUF_MAX_REJECTED candidates are turned
 * down per call, so that while an old snapshot holds many deleted pages, a
 * call reads a bounded number of them before it extends the index.  Giving
 * a page back sets only its slot on the map's bottom level, whose search
 * resumes past the last page it handed out, so the next call sees the
 * candidates behind the ones turned down.  No map vacuum here: it would
 * send the next search back to the lowest free pages, the same ones again.
 * (For the same reason spares stay out of the map: recording them would
 * need a map vacuum over them to be found.)  A search that found a map page
 * emptied lowered the upper levels' entry for it; pages given back there
 * are found after the next map vacuum (osm_tree's flush, VACUUM's cleanup).
 */
Buffer
EINewBuf(Relation rel)
{
	Buffer		buf = InvalidBuffer;
	bool		have_fence = false;
	XLogRecPtr	fence = InvalidXLogRecPtr;
	BlockNumber giveback[EI_NEWBUF_MAX_REJECTED];
	int			ngiveback = 0;
	int			nrejected = 0;

	while (nrejected < EI_NEWBUF_MAX_REJECTED)
	{
		BlockNumber blkno = GetFreeIndexPage(rel);
		Buffer		cand;
		Page		page;
		bool		maybe_free = true;

		if (!BlockNumberIsValid(blkno))
			break;

		/*
		 * VACUUM put the page into the map because it was recyclable by the
		 * recycle fence it had just moved, which our cached metapage may
		 * predate: read the fence afresh once per call, if the metapage is
		 * free to lock.  The fence only moves forward.
		 */
		if (!have_fence)
		{
			EIRelCache *cache = EIGetRelCache(rel);
			Buffer		metabuf = ReadBuffer(rel, EI_METAPAGE);

			if (cache->meta_valid)
				fence = cache->meta.recycle_fence;
			if (ConditionalLockBuffer(metabuf))
			{
				Page		metapage = BufferGetPage(metabuf);

				if (!PageIsNew(metapage) &&
					EI_IS_META(EIPageGetOpaque(metapage)) &&
					EIPageGetMeta(metapage)->magic == EI_MAGIC &&
					EIPageGetMeta(metapage)->recycle_fence > fence)
					fence = EIPageGetMeta(metapage)->recycle_fence;
				LockBuffer(metabuf, BUFFER_LOCK_UNLOCK);
			}
			ReleaseBuffer(metabuf);
			have_fence = true;
		}

		cand = ReadBuffer(rel, blkno);
		if (ConditionalLockBuffer(cand))
		{
			page = BufferGetPage(cand);
			if (EIPageIsRecyclable(page, fence))
			{
				if (!PageIsNew(page) && XLogStandbyInfoActive() &&
					RelationNeedsWAL(rel))
					EILogReusePage(rel, blkno, EIPageGetSafeXid(page));
				EIStatsCount(rel, EI_STAT_PAGES_RECYCLED, 1);
				buf = cand;
				break;
			}
			/* a page in use is no candidate; a deleted one will be */
			maybe_free = (EIPageGetOpaque(page)->ei_flags & EI_DELETED) != 0;
			LockBuffer(cand, BUFFER_LOCK_UNLOCK);
		}
		ReleaseBuffer(cand);
		if (maybe_free)
			giveback[ngiveback++] = blkno;
		nrejected++;
	}

	if (!BufferIsValid(buf))
	{
		buf = ei_take_spare_page(rel);
		if (!BufferIsValid(buf))
			buf = ei_extend_index(rel);
		EIStatsCount(rel, EI_STAT_PAGES_EXTENDED, 1);
	}

	/*
	 * Put the pages turned down back.  Only the map's bottom level changes:
	 * its search has moved on past them, so the next call sees other
	 * candidates first.
	 */
	for (int i = 0; i < ngiveback; i++)
		RecordFreeIndexPage(rel, giveback[i]);

	return buf;
}

/*
 * Check the locked metapage's flag, magic and version.
 */
static void
ei_check_meta_header(Relation rel, Buffer buf)
{
	Page		page = BufferGetPage(buf);
	EIMetaPage	meta = EIPageGetMeta(page);

	if (!EI_IS_META(EIPageGetOpaque(page)) || meta->magic != EI_MAGIC)
		ereport(ERROR,
				(errcode(ERRCODE_INDEX_CORRUPTED),
				 errmsg("index \"%s\" is not an elastic_index tree",
						RelationGetRelationName(rel))));
	if (!EI_VERSION_KNOWN(meta->version))
		ereport(ERROR,
				(errcode(ERRCODE_INDEX_CORRUPTED),
				 errmsg("index \"%s\" has format version %u, expected %u or %u",
						RelationGetRelationName(rel), meta->version, EI_VERSION,
						EI_VERSION_POSTING),
				 errhint("REINDEX the index to rebuild it in the current format.")));
}

/*
 * Verify the locked metapage (EICheckPage passed) before its contents are
 * used or changed: the flag, magic and version, and a root that is a
 * block of the index other than the metapage (descents check the levels
 * from there, EICheckChildLevel).  The
 * root's bound costs a file size lookup, once per read of the metapage
 * (backends cache its contents).
 */
void
EICheckMetaPage(Relation rel, Buffer buf)
{
	EIMetaPage	meta = EIPageGetMeta(BufferGetPage(buf));

	ei_check_meta_header(rel, buf);
	if (meta->root == EI_METAPAGE || !BlockNumberIsValid(meta->root) ||
		meta->root >= RelationGetNumberOfBlocks(rel))
		ei_page_corrupted(rel, buf,
						  psprintf("The metapage names root block %u at level %u.",
								   meta->root, meta->level));
}

/*
 * Lock the metapage for access (EI_READ or EI_WRITE) and check its flag,
 * magic and version, for a policy that reads or changes its own words
 * there: the tree's fields (the root) are checked by EICheckMetaPage when
 * a backend caches them.
 */
Buffer
EIGetMetaBuf(Relation rel, int access)
{
	Buffer		buf = EIGetBuf(rel, EI_METAPAGE, access);

	ei_check_meta_header(rel, buf);
	return buf;
}

/*
 * Mark the index as one that may hold posting lists (format version
 * EI_VERSION_POSTING, WAL-logged as a META record) unless it is already;
 * called before any buffer lock by an insert that may write a list, so
 * that a library knowing only version 2 refuses the index before it could
 * misread one.
 */
void
EIMetaSetPosting(Relation rel)
{
	Buffer		metabuf;
	EIMetaPage	meta;

	if (EIGetMetaCached(rel, false)->version == EI_VERSION_POSTING)
		return;
	metabuf = EIGetBuf(rel, EI_METAPAGE, EI_WRITE);
	EICheckMetaPage(rel, metabuf);
	meta = EIPageGetMeta(BufferGetPage(metabuf));
	if (meta->version != EI_VERSION_POSTING)
	{
		START_CRIT_SECTION();

		meta->version = EI_VERSION_POSTING;
		MarkBufferDirty(metabuf);
		EILogMetaPage(rel, metabuf);

		END_CRIT_SECTION();
	}
	EISetMetaCached(rel, meta);
	EIRelBuf(rel, metabuf);
}

/*
 * WAL-log the whole metapage as XLOG_EI_META, which redo writes back whole,
 * if the index is WAL-logged; the caller changed the page and marked it
 * dirty in the critical section it calls this from.
 */
void
EILogMetaPage(Relation rel, Buffer metabuf)
{
	XLogRecPtr	recptr;

	if (!RelationNeedsWAL(rel))
		return;
	XLogBeginInsert();
	XLogRegisterBuffer(0, metabuf, REGBUF_STANDARD | REGBUF_WILL_INIT);
	XLogRegisterBufData(0, (char *) EIPageGetMeta(BufferGetPage(metabuf)),
						sizeof(xl_ei_metadata));
	recptr = XLogInsert(EI_RMGR_ID, XLOG_EI_META);
	PageSetLSN(BufferGetPage(metabuf), recptr);
}

/*
 * Return the metapage contents, cached in rd_amcache; refresh re-reads it.
 *
 * The cached root may be stale after a root split.  That is harmless: the
 * old root remains an ancestor of the left part of the tree and moving right
 * reaches everything else.  Callers refresh when the cached root is no
 * longer flagged as root at the expected level.
 */
EIMetaPageData *
EIGetMetaCached(Relation rel, bool refresh)
{
	EIRelCache *cache = EIGetRelCache(rel);

	if (!cache->meta_valid || refresh)
	{
		Buffer		buf = EIGetBuf(rel, EI_METAPAGE, EI_READ);
		Page		page = BufferGetPage(buf);
		EIMetaPage	meta = EIPageGetMeta(page);

		EICheckMetaPage(rel, buf);

		/* reading the page accepted no invalidation: cache is still ours */
		memcpy(&cache->meta, meta, sizeof(EIMetaPageData));
		cache->meta_valid = true;
		EIRelBuf(rel, buf);
	}
	return &cache->meta;
}

/*
 * The backend's cache of an index (rd_amcache), made empty if there is
 * none: no page is read, so it may be called under any buffer lock.
 */
EIRelCache *
EIGetRelCache(Relation rel)
{
	if (rel->rd_amcache == NULL)
	{
		EIRelCache *cache = MemoryContextAllocZero(rel->rd_indexcxt,
												   sizeof(EIRelCache));

		cache->lastleaf = InvalidBlockNumber;
		rel->rd_amcache = cache;
	}
	return (EIRelCache *) rel->rd_amcache;
}

/*
 * Note the metapage contents just written, if the backend has a cache.
 */
void
EISetMetaCached(Relation rel, const EIMetaPageData *meta)
{
	EIRelCache *cache = (EIRelCache *) rel->rd_amcache;

	if (cache != NULL)
	{
		memcpy(&cache->meta, meta, sizeof(EIMetaPageData));
		cache->meta_valid = true;
	}
}

/*
 * Return the root page, locked in the given mode.
 *
 * The tree always has a root (build creates an empty root leaf), so create
 * is accepted for symmetry with nbtree but never needed.
 */
Buffer
EIGetRoot(Relation rel, int access, bool create)
{
	EIMetaPageData *meta = EIGetMetaCached(rel, false);
	Buffer		buf;
	EIPageOpaque opaque;

	buf = EIGetBuf(rel, meta->root, access);
	opaque = EIPageGetOpaque(BufferGetPage(buf));
	if (EI_IS_ROOT(opaque) && opaque->ei_level == meta->level)
		return buf;

	/* stale cache: re-read the metapage and try its root */
	EIRelBuf(rel, buf);
	meta = EIGetMetaCached(rel, true);
	buf = EIGetBuf(rel, meta->root, access);
	opaque = EIPageGetOpaque(BufferGetPage(buf));

	/*
	 * A concurrent root split may still be between its two phases; the old
	 * root then lacks EI_ROOT but is still the right place to start, since
	 * moving right from it reaches every key.
	 */
	return buf;
}

/*
 * Return the number of levels above the leaves plus one, from the metapage.
 */
int
EIGetRootHeight(Relation rel)
{
	EIMetaPageData *meta = EIGetMetaCached(rel, false);

	return (int) meta->level + 1;
}

/*
 * Make the pivot tuple that separates leaf tuple lastleft from the leaf
 * tuple itup that follows it: itup's key columns, plus its heap TID unless
 * the key columns of the two differ (then nothing equal to itup's keys is
 * on the left, and the missing TID compares as minus infinity, as in
 * nbtree's _bt_truncate; EI_PIVOT_HAS_TID unset).  lastleft NULL (not
 * known) keeps the TID.  No downlink yet.
 *
 * INCLUDE columns are cut off (index_truncate_tuple, as nbtree's
 * _bt_truncate does), so a pivot holds exactly the index's key columns.
 * Only leaf tuples are accepted; a pivot that moves up from an inner page is
 * copied with CopyIndexTuple, since it already carries its tiebreaker.
 */
IndexTuple
EIFormPivot(Relation rel, IndexTuple lastleft, IndexTuple itup)
{
	int			nkeyatts = IndexRelationGetNumberOfKeyAttributes(rel);
	IndexTuple	keys = itup;
	Size		oldsz;
	Size		newsz;
	IndexTuple	pivot;
	ItemPointerData heaptid;
	bool		keeptid = true;

	if (lastleft != NULL)
	{
		EIScanInsert key = EIMakeScanKey(rel, itup, true);

		key->scantid = NULL;
		keeptid = (EICompareLeafTuple(rel, key, lastleft) == 0);
		pfree(key);
	}

	heaptid = *EILeafMinTID(itup);
	if (nkeyatts < IndexRelationGetNumberOfAttributes(rel))
		keys = index_truncate_tuple(RelationGetDescr(rel), itup, nkeyatts);
	/* a posting list's key without its TIDs (lists have no INCLUDE columns) */
	oldsz = EIPostingKeySize(keys);
	newsz = keeptid ? MAXALIGN(oldsz + sizeof(ItemPointerData)) : MAXALIGN(oldsz);
	pivot = (IndexTuple) palloc0(newsz);
	memcpy(pivot, keys, oldsz);
	if (keys != itup)
		pfree(keys);
	pivot->t_info &= ~(INDEX_SIZE_MASK | EI_POSTING_BIT);
	pivot->t_info |= newsz;
	ItemPointerSetBlockNumber(&pivot->t_tid, InvalidBlockNumber);
	ItemPointerSetOffsetNumber(&pivot->t_tid, 0);
	if (keeptid)
	{
		ItemPointerCopy(&heaptid, EIPivotGetHeapTID(pivot));
		ItemPointerSetOffsetNumber(&pivot->t_tid, EI_PIVOT_HAS_TID);
	}
	return pivot;
}

/*
 * Form a new leaf in the policy's leaf kind (ops->form) holding the first
 * *take of the sorted leaf tuples entries, behind a high key between
 * entries[*take - 1] and entries[*take] (which must exist: the leaf is
 * never the rightmost), from the tuples alone; what a bulk append, a sorted
 * run's split and a build that form such leaves share.  The page gets the
 * flags and an ei_next of EI_METAPAGE (not the rightmost: the caller sets
 * the real links).  The kind's estimate (fill_count) may be high for
 * unlucky entries, so when they do not fit it tries up to twice more with
 * an eighth fewer of those past the first nkeep, never nkeep or fewer.
 * Returns the palloc'd page and sets *take and *hikey (palloc'd, as on the
 * page), or returns NULL.  Reads no heap and no catalog.
 */
Page
EIFormKindLeaf(Relation rel, const EILeafKindOps *ops, uint16 flags,
			   IndexTuple *entries, int *take, int nkeep, IndexTuple *hikey)
{
	*hikey = NULL;
	for (int attempt = 0; attempt < 3 && *take > nkeep; attempt++)
	{
		Page		page = (Page) palloc(BLCKSZ);

		EIInitPage(page, flags, 0);
		EIPageGetOpaque(page)->ei_next = EI_METAPAGE;
		*hikey = EIFormPivot(rel, entries[*take - 1], entries[*take]);
		if (PageAddItem(page, (Item) *hikey, MAXALIGN(IndexTupleSize(*hikey)),
						EI_HIKEY, false, false) == InvalidOffsetNumber)
			elog(ERROR, "failed to add high key to a new leaf of index \"%s\"",
				 RelationGetRelationName(rel));
		if (ops->form(rel, entries, *take, page))
			return page;
		pfree(page);
		pfree(*hikey);
		*hikey = NULL;
		*take -= Max((*take - nkeep) / 8, 1);
	}
	return NULL;
}

/*
 * Form a leaf entry with the key of base (a plain entry or a list) and the
 * ntids strictly ascending heap TIDs: a plain entry when ntids is 1, else
 * a posting list; palloc'd.  The caller keeps it within
 * EI_MAX_POSTING_SIZE.
 */
IndexTuple
EIFormPosting(IndexTuple base, ItemPointer tids, int ntids)
{
	Size		keysize = EIPostingKeySize(base);
	Size		newsize;
	IndexTuple	itup;

	Assert(ntids >= 1);
	Assert(keysize == MAXALIGN(keysize));
	if (ntids == 1)
		newsize = keysize;
	else
		newsize = MAXALIGN(keysize + sizeof(ItemPointerData) * ntids);
	Assert(newsize <= INDEX_SIZE_MASK);

	itup = (IndexTuple) palloc0(newsize);
	memcpy(itup, base, keysize);
	itup->t_info &= ~(INDEX_SIZE_MASK | EI_POSTING_BIT);
	itup->t_info |= newsize;
	if (ntids == 1)
		itup->t_tid = tids[0];
	else
	{
		itup->t_info |= EI_POSTING_BIT;
		ItemPointerSetBlockNumber(&itup->t_tid, (BlockNumber) keysize);
		ItemPointerSetOffsetNumber(&itup->t_tid, (OffsetNumber) ntids);
		memcpy((char *) itup + keysize, tids, sizeof(ItemPointerData) * ntids);
	}
	return itup;
}

/*
 * Start a run of equal keys (EIPostingRun) with the plain entry itup, which
 * the run refers to without copying it.
 */
void
EIPostingRunStart(EIPostingRun *run, IndexTuple itup)
{
	Assert(!EITupleIsPosting(itup));
	run->base = itup;
	run->tids[0] = itup->t_tid;
	run->ntids = 1;
}

/*
 * Does the plain entry itup, the next in (keys, heap TID) order, continue
 * the run?  If so, the run takes its heap TID.  Keys are equal when their
 * bytes are: the callers form every entry the same way, and equal image
 * (EIAllEqualImage) makes equal keys' images equal (a pair that differs in
 * bytes only stays apart, which is merely less compact).  A run ends at a
 * different key or when one more TID would take its list past
 * EI_BUILD_MAX_POSTING_SIZE (as nbtree's _bt_sort_dedup).
 */
bool
EIPostingRunAdd(EIPostingRun *run, IndexTuple itup)
{
	IndexTuple	base = run->base;

	if (base == NULL ||
		IndexTupleSize(base) != IndexTupleSize(itup) ||
		base->t_info != itup->t_info ||
		MAXALIGN(IndexTupleSize(base) +
				 sizeof(ItemPointerData) * (run->ntids + 1)) > EI_BUILD_MAX_POSTING_SIZE ||
		memcmp((char *) base + sizeof(IndexTupleData),
			   (char *) itup + sizeof(IndexTupleData),
			   IndexTupleSize(itup) - sizeof(IndexTupleData)) != 0)
		return false;
	Assert(ItemPointerCompare(&run->tids[run->ntids - 1], &itup->t_tid) < 0);
	run->tids[run->ntids++] = itup->t_tid;
	return true;
}

/*
 * End the run: its one entry (the base itself) or a palloc'd posting list
 * of its TIDs; NULL if no run was started.  The run is empty afterwards.
 */
IndexTuple
EIPostingRunEnd(EIPostingRun *run)
{
	IndexTuple	base = run->base;

	run->base = NULL;
	if (base == NULL || run->ntids == 1)
		return base;
	return EIFormPosting(base, run->tids, run->ntids);
}

/*
 * What is wrong with a posting list as read from a page (NULL: nothing),
 * given that the tuple is of its line pointer's length: its array must
 * start inside the tuple past the header, 2-byte aligned, hold at least 2
 * valid, strictly ascending TIDs and end the tuple (MAXALIGNed), which is
 * at most EI_MAX_POSTING_SIZE.  Pure: the caller reports it.
 */
const char *
EIPostingProblem(IndexTuple itup)
{
	Size		size = IndexTupleSize(itup);
	Size		offset = EIPostingOffset(itup);
	int			n = EIPostingCount(itup);

	Assert(EITupleIsPosting(itup));
	if (size > EI_MAX_POSTING_SIZE)
		return "a posting list larger than a list may be";
	if (offset < IndexInfoFindDataOffset(itup->t_info) || offset >= size ||
		offset % sizeof(uint16) != 0)
		return "a posting list whose TIDs start outside it";
	if (n < 2)
		return "a posting list with fewer than 2 TIDs";
	if (offset + sizeof(ItemPointerData) * n > size ||
		MAXALIGN(offset + sizeof(ItemPointerData) * n) != size)
		return "a posting list whose TIDs do not end it";
	for (int i = 0; i < n; i++)
	{
		ItemPointer tid = EIPostingTID(itup, i);

		if (!BlockNumberIsValid(ItemPointerGetBlockNumberNoCheck(tid)) ||
			!OffsetNumberIsValid(ItemPointerGetOffsetNumberNoCheck(tid)))
			return "a posting list with an invalid heap TID";
		if (i > 0 && ItemPointerCompare(EIPostingTID(itup, i - 1), tid) >= 0)
			return "a posting list whose TIDs are not strictly ascending";
	}
	return NULL;
}

/*
 * Form the entry a posting list becomes when it loses the TIDs at the
 * nremoved positions (ascending, fewer than its count): a shorter list, or
 * a plain entry when one TID is left; palloc'd.  VACUUM and its redo.
 */
IndexTuple
EIPostingRemoveTIDs(IndexTuple itup, const uint16 *removed, int nremoved)
{
	int			n = EIPostingCount(itup);
	ItemPointerData tids[EI_MAX_POSTING_SIZE / sizeof(ItemPointerData)];
	int			nkept = 0;
	int			r = 0;

	Assert(nremoved > 0 && nremoved < n);
	for (int i = 0; i < n; i++)
	{
		if (r < nremoved && removed[r] == i)
		{
			r++;
			continue;
		}
		tids[nkept++] = *EIPostingTID(itup, i);
	}
	Assert(r == nremoved);
	return EIFormPosting(itup, tids, nkept);
}

/*
 * Where a heap TID goes in a posting list: the position of its first TID
 * above tid, or -1 if the list holds tid already.  Binary search.
 */
int
EIPostingFind(IndexTuple itup, ItemPointer tid)
{
	int			low = 0;
	int			high = EIPostingCount(itup);

	while (high > low)
	{
		int			mid = low + (high - low) / 2;
		int32		cmp = ItemPointerCompare(tid, EIPostingTID(itup, mid));

		if (cmp == 0)
			return -1;
		if (cmp > 0)
			low = mid + 1;
		else
			high = mid;
	}
	return low;
}

/*
 * Write a posting list that took a TID (EIPostingSwap's result, the same
 * size) over the list at offnum, and clear the item's LP_DEAD mark: a list
 * that takes a live TID is not dead (primary and redo alike).
 */
void
EIPostingOverwrite(Page page, OffsetNumber offnum, IndexTuple nposting)
{
	ItemId		iid = PageGetItemId(page, offnum);

	Assert(ItemIdGetLength(iid) == IndexTupleSize(nposting));
	memcpy(PageGetItem(page, iid), nposting, IndexTupleSize(nposting));
	ItemIdSetNormal(iid, ItemIdGetOffset(iid), ItemIdGetLength(iid));
}

/*
 * The posting split's list (as nbtree's _bt_swap_posting): a copy of itup
 * with newtid at postingoff (strictly inside: 1 to count - 1) and without
 * its last TID, which is returned in *oldmax; palloc'd, of the same size.
 */
IndexTuple
EIPostingSwap(IndexTuple itup, ItemPointer newtid, int postingoff,
			  ItemPointer oldmax)
{
	int			n = EIPostingCount(itup);
	IndexTuple	nposting = CopyIndexTuple(itup);
	ItemPointer tids = EIPostingTID(nposting, 0);

	Assert(postingoff >= 1 && postingoff < n);
	*oldmax = *EIPostingMaxTID(itup);
	memmove(tids + postingoff + 1, tids + postingoff,
			sizeof(ItemPointerData) * (n - 1 - postingoff));
	tids[postingoff] = *newtid;
	return nposting;
}

/*
 * May a list with base's key and ntids TIDs take n more and stay within
 * EI_MAX_POSTING_SIZE?
 */
static bool
ei_dedup_fits(IndexTuple base, int ntids, int n)
{
	return MAXALIGN(EIPostingKeySize(base) +
					sizeof(ItemPointerData) * (ntids + n)) <= EI_MAX_POSTING_SIZE;
}

/*
 * The dedup pass's plan for a standard leaf (src/README.md, "Posting
 * lists", Insert; nbtree's _bt_dedup_pass): the runs of at least two
 * entries with equal keys, none marked LP_DEAD, each small enough for one
 * list, as intervals (first offset, number of items) in ascending order.
 * intervals has room for MaxIndexTuplesPerPage; returns their number.
 * Reads the page only: the caller checked its items (EICheckPageItems).
 *
 * On the rightmost leaf, which has no high key, a run also ends where its
 * list would leave the page no room for a high key of its key (a pivot of
 * the key and a heap TID): a split can then keep every list up to there on
 * its left page, which gets a high key (src/README.md, "Posting lists";
 * issue 20: a leaf of one value held six lists of EI_MAX_POSTING_SIZE,
 * and its split kept five).  Redo reads the intervals from the record.
 */
int
EIDedupIntervals(Page page, EIDedupInterval *intervals)
{
	EIPageOpaque opaque = EIPageGetOpaque(page);
	OffsetNumber maxoff = PageGetMaxOffsetNumber(page);
	IndexTuple	base = NULL;
	EIDedupInterval run = {InvalidOffsetNumber, 0};
	int			ntids = 0;
	int			nintervals = 0;
	bool		rightmost = EI_RIGHTMOST(opaque);
	Size		usable = PageGetPageSize(page) - SizeOfPageHeaderData -
		MAXALIGN(sizeof(EIPageOpaqueData));
	Size		used = 0;		/* the new page's items before the run */

	for (OffsetNumber off = EI_FIRST_DATA(opaque); off <= maxoff + 1; off++)
	{
		IndexTuple	itup = off <= maxoff ? EIReadTuple(page, off) : NULL;
		bool		dead = itup != NULL && ItemIdIsDead(PageGetItemId(page, off));
		int			n = itup != NULL ? EILeafNTIDs(itup) : 0;

		/* the item continues the run if its key is equal and it fits */
		if (base != NULL && itup != NULL && !dead && EISameKey(base, itup) &&
			ei_dedup_fits(base, ntids, n) &&
			(!rightmost ||
			 used + MAXALIGN(EIPostingKeySize(base) +
							 sizeof(ItemPointerData) * (ntids + n)) +
			 sizeof(ItemIdData) +
			 MAXALIGN(EIPostingKeySize(base) + sizeof(ItemPointerData)) +
			 sizeof(ItemIdData) <= usable))
		{
			run.nitems++;
			ntids += n;
			continue;
		}
		/* what the run, or a dead item, takes on the new page */
		if (base != NULL)
			used += (run.nitems >= 2 ?
					 MAXALIGN(EIPostingKeySize(base) +
							  sizeof(ItemPointerData) * ntids) :
					 MAXALIGN(IndexTupleSize(base))) + sizeof(ItemIdData);
		if (dead)
			used += MAXALIGN(IndexTupleSize(itup)) + sizeof(ItemIdData);
		if (run.nitems >= 2)
			intervals[nintervals++] = run;
		/* a dead item starts no run: it stays as it is */
		base = dead ? NULL : itup;
		run.baseoff = off;
		run.nitems = base != NULL ? 1 : 0;
		ntids = n;
	}
	return nintervals;
}

/*
 * Append a leaf entry's heap TIDs (a list's, or the plain entry's one) to
 * tids[ntids...]; return the new count.  The caller made room.
 */
static int
ei_collect_tids(IndexTuple itup, ItemPointerData *tids, int ntids)
{
	if (!EITupleIsPosting(itup))
		tids[ntids++] = itup->t_tid;
	else
		for (int t = 0; t < EIPostingCount(itup); t++)
			tids[ntids++] = *EIPostingTID(itup, t);
	return ntids;
}

/*
 * Why item off of a page that redo is about to read is unusable, or NULL:
 * a line pointer outside the tuple space, a size that disagrees with it, a
 * malformed posting list (EIPostingProblem).  Redo has no relation to name
 * in an ERRCODE_INDEX_CORRUPTED error, so the dedup form's redo checks
 * what it reads itself rather than read past the page.
 */
static const char *
ei_dedup_item_problem(Page page, OffsetNumber off)
{
	PageHeader	phdr = (PageHeader) page;
	ItemId		itemid = PageGetItemId(page, off);
	unsigned	itemoff = ItemIdGetOffset(itemid);
	unsigned	itemlen = ItemIdGetLength(itemid);
	IndexTuple	itup;

	if (!ItemIdHasStorage(itemid) || itemoff < phdr->pd_upper ||
		itemoff + itemlen > phdr->pd_special ||
		itemlen < sizeof(IndexTupleData))
		return "a line pointer outside the page's tuple space";
	itup = (IndexTuple) PageGetItem(page, itemid);
	if (IndexTupleSize(itup) != itemlen)
		return "an item whose size does not match its line pointer";
	if (EITupleIsPosting(itup))
		return EIPostingProblem(itup);
	return NULL;
}

/*
 * Why redo of the dedup pass cannot read a page safely, or NULL: more line
 * pointers than a page holds, or an item ei_dedup_item_problem refuses.
 * The primary checks the page with EICheckPageItems instead, which names
 * the index in its error.
 */
const char *
EIDedupPageProblem(Page page)
{
	OffsetNumber maxoff = PageGetMaxOffsetNumber(page);
	const char *problem = NULL;

	if (maxoff > MaxIndexTuplesPerPage)
		return "more line pointers than a page holds";
	for (OffsetNumber off = FirstOffsetNumber;
		 off <= maxoff && problem == NULL; off++)
		problem = ei_dedup_item_problem(page, off);
	return problem;
}

/*
 * The page the dedup pass makes of a standard leaf, given its intervals
 * (EIDedupIntervals on the primary, the XLOG_EI_INSERT_MULTI dedup form's
 * in redo): a temporary copy in which the items of each interval are one
 * posting list and every other item is copied as it is, LP_DEAD mark
 * included.  Primary and redo both call it on the same page, so the two
 * come out byte for byte alike.  Returns NULL and sets *problem when the
 * intervals do not fit the page (out of order, past its items, keys that
 * differ, a list too large) or an item does not fit; palloc'd, for
 * PageRestoreTempPage.
 */
Page
EIDedupBuildPage(Page page, const EIDedupInterval *intervals, int nintervals,
				 const char **problem)
{
	EIPageOpaque opaque = EIPageGetOpaque(page);
	OffsetNumber maxoff = PageGetMaxOffsetNumber(page);
	ItemPointerData tids[EI_MAX_POSTING_SIZE / sizeof(ItemPointerData)];
	Page		newpage;
	int			next = 0;

	*problem = NULL;
	if (!EI_IS_LEAF(opaque) || (opaque->ei_flags & EI_POLICY_LEAF))
	{
		*problem = "the page is no standard leaf";
		return NULL;
	}
	newpage = PageGetTempPageCopySpecial(page);

	/*
	 * Keep the page's LSN: XLogInsert compares it with the redo pointer to
	 * decide whether the record needs a full-page image, and a zero LSN
	 * would make every dedup record carry one.
	 */
	PageSetLSN(newpage, PageGetLSN(page));
	if (!EI_RIGHTMOST(opaque))
	{
		IndexTuple	hikey = EIReadTuple(page, EI_HIKEY);

		if (PageAddItem(newpage, (Item) hikey, IndexTupleSize(hikey),
						EI_HIKEY, false, false) == InvalidOffsetNumber)
			*problem = "failed to add the high key";
	}

	for (OffsetNumber off = EI_FIRST_DATA(opaque);
		 off <= maxoff && *problem == NULL; off++)
	{
		IndexTuple	itup = EIReadTuple(page, off);
		OffsetNumber newoff;

		if (next < nintervals && intervals[next].baseoff == off)
		{
			int			nitems = intervals[next].nitems;
			int			ntids = 0;
			IndexTuple	entry;

			if (nitems < 2 || off + nitems - 1 > maxoff)
			{
				*problem = "an interval past the page's items";
				break;
			}
			for (int i = 0; i < nitems; i++)
			{
				IndexTuple	item = EIReadTuple(page, off + i);

				if (!EISameKey(itup, item))
					*problem = "an interval of entries with different keys";
				else if (!ei_dedup_fits(itup, ntids, EILeafNTIDs(item)))
					*problem = "an interval larger than a posting list may be";
				else
				{
					ntids = ei_collect_tids(item, tids, ntids);
					continue;
				}
				break;
			}
			if (*problem != NULL)
				break;
			entry = EIFormPosting(itup, tids, ntids);
			*problem = EIPostingProblem(entry);
			if (*problem == NULL &&
				PageAddItem(newpage, (Item) entry, IndexTupleSize(entry),
							InvalidOffsetNumber, false, false) == InvalidOffsetNumber)
				*problem = "failed to add a posting list";
			pfree(entry);
			off += nitems - 1;
			next++;
			continue;
		}

		newoff = PageAddItem(newpage, (Item) itup, IndexTupleSize(itup),
							 InvalidOffsetNumber, false, false);
		if (newoff == InvalidOffsetNumber)
			*problem = "failed to add an entry";
		else if (ItemIdIsDead(PageGetItemId(page, off)))
			ItemIdMarkDead(PageGetItemId(newpage, newoff));
	}
	if (*problem == NULL && next < nintervals)
		*problem = "an interval that starts at no item";
	if (*problem != NULL)
	{
		pfree(newpage);
		return NULL;
	}
	return newpage;
}

/*
 * Make the "minus infinity" downlink that starts every inner page.
 */
IndexTuple
EIFormMinusInf(BlockNumber downlink)
{
	IndexTuple	itup = (IndexTuple) palloc0(MAXALIGN(sizeof(IndexTupleData)));

	itup->t_info = MAXALIGN(sizeof(IndexTupleData));
	ItemPointerSetBlockNumber(&itup->t_tid, downlink);
	ItemPointerSetOffsetNumber(&itup->t_tid, EI_PIVOT_MINUS_INF);
	return itup;
}

/*
 * Return the heap TID of a leaf tuple or pivot, or NULL for minus infinity.
 */
ItemPointer
EITupleGetHeapTID(IndexTuple itup, bool isleaf)
{
	if (isleaf)
		return EILeafMinTID(itup);
	if (EIPivotFlags(itup) & EI_PIVOT_HAS_TID)
		return EIPivotGetHeapTID(itup);
	return NULL;
}

/*
 * Reject a leaf tuple too large for three of its pivots to fit on a page.
 */
void
EICheckItemSize(Relation rel, Relation heapRel, IndexTuple itup)
{
	Size		itemsz = MAXALIGN(IndexTupleSize(itup));
	const char *amname;

	if (itemsz <= EI_MAX_ITEM_SIZE)
		return;

	amname = EIGetPolicyChecked(rel)->name;

	ereport(ERROR,
			(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
			 errmsg("index row size %zu exceeds %s maximum %zu for index \"%s\"",
					itemsz, amname, (Size) EI_MAX_ITEM_SIZE,
					RelationGetRelationName(rel)),
			 heapRel ? errdetail("Index row references tuple (%u,%u) in relation \"%s\".",
								 ItemPointerGetBlockNumber(&itup->t_tid),
								 ItemPointerGetOffsetNumber(&itup->t_tid),
								 RelationGetRelationName(heapRel)) : 0,
			 errhint("Values larger than 1/3 of a buffer page cannot be indexed.\n"
					 "Consider a function index of an MD5 hash of the value, "
					 "or use full text indexing.")));
}

/*
 * Return the free space of a page, ignoring the line pointer a new item needs.
 */
Size
EIPageFreeSpace(Page page)
{
	return PageGetExactFreeSpace(page);
}

/*
 * Remove items from a leaf page, the change VACUUM makes and its redo replays.
 *
 * The offsets must be in ascending order.  EI_HAS_GARBAGE is cleared once no
 * LP_DEAD item is left on the page.
 */
void
EIDeleteItems(Page page, OffsetNumber *offs, int noffs)
{
	EIPageOpaque opaque = EIPageGetOpaque(page);
	OffsetNumber off,
				maxoff;
	bool		garbage = false;

	if (noffs > 0)
		PageIndexMultiDelete(page, offs, noffs);

	maxoff = PageGetMaxOffsetNumber(page);
	for (off = EI_FIRST_DATA(opaque); off <= maxoff; off = OffsetNumberNext(off))
	{
		if (ItemIdIsDead(PageGetItemId(page, off)))
		{
			garbage = true;
			break;
		}
	}
	if (!garbage)
		opaque->ei_flags &= ~EI_HAS_GARBAGE;
}
