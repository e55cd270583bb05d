/*-------------------------------------------------------------------------
 *
 * compact.c
 *	  The compact leaf page: a SeqTree over normalized keys plus heap TIDs,
 *	  with no keys stored.
 *
 * Layout (src/README.md, "Compact leaves"):
 *
 *	PageHeader | line pointer 1 (the high key; absent on the rightmost
 *	leaf) | SeqTree image, growing up | free space | heap TIDs, 6 bytes
 *	each in key order, growing down | high key tuple | special space
 *
 * pd_lower is the end of the SeqTree image and pd_upper the start of the
 * TID array, so PageGetFreeSpace and WAL's hole compression treat the gap
 * between them as the page's free space, shared by both arrays.  The
 * special space is the ordinary EIPageOpaqueData with EI_LEAF | EI_COMPACT.
 * Because pd_lower covers the image, PageGetMaxOffsetNumber means nothing
 * on a compact page: code must test EI_COMPACT before reading items.
 *
 * Keys are normalized keys of one fixed length (core/normkey.c): the
 * fixed width of the key columns' encodings, or, with a variable-width
 * column (text, bytea), EI_NORMKEY_VARKEY_LEN bytes, each key padded with
 * zeros; an entry whose key is longer cannot be in a compact leaf.
 * Whenever the SeqTree needs a key it reads it from the heap
 * (elastic/heapkey.c) while the caller holds the leaf's lock.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/itup.h"
#include "eielastic.h"
#include "seqtree.h"
#include "storage/bufpage.h"

/*
 * Most heap keys one read-only search reads when it meets unreadable
 * entries: usually a neighbour settles it; a leaf full of dead entries
 * rechecks more rows instead of reading every key.
 */
#define EI_COMPACT_SEARCH_READS	16

/* State of one SeqTree search whose keys come from the heap. */
typedef struct EICompactSearchState
{
	Page		page;
	EIHeapKeyReader *reader;
	const uint8 *searchkey;		/* returned for an unreadable candidate */
	int			badpos;			/* first candidate we could not read */
	EIHeapKeyResult badresult;	/* and why */
} EICompactSearchState;

/* Keys of a leaf being converted, normalized from its own tuples. */
typedef struct EICompactBuildKeys
{
	char	   *keys;			/* nkeys * keylen bytes */
	int			keylen;
} EICompactBuildKeys;

/*
 * Offset of the SeqTree image in a compact leaf: after the high key's line
 * pointer, if the page has one.
 */
static Size
ei_compact_image_offset(Page page)
{
	return SizeOfPageHeaderData +
		(EI_RIGHTMOST(EIPageGetOpaque(page)) ? 0 : sizeof(ItemIdData));
}

/*
 * Attach st to the SeqTree image of a compact leaf.
 */
void
EICompactAttach(Page page, SeqTree *st)
{
	Size		off = ei_compact_image_offset(page);

	Assert(EIPageGetOpaque(page)->ei_flags & EI_COMPACT);
	if (!seqtree_attach(st, (char *) page + off,
						((PageHeader) page)->pd_upper - off))
		elog(ERROR, "compact leaf has an invalid SeqTree image");
}

/*
 * Check the layout of a locked compact leaf before any read or change of
 * it: its high key, a SeqTree image that attaches with the index's key
 * length and ends at pd_lower, and a TID array from pd_upper to the high
 * key holding one TID per key.  Constant time: every compact leaf
 * operation (EILeafKindOps read, insert, split, vacuum) and expansion run
 * it first, so that the changes they then make inside a critical section
 * (EICompactAttach, EICompactInsertAt, EICompactDeleteMany) meet no
 * damage there.  Damage is ERRCODE_INDEX_CORRUPTED naming index and block.
 */
void
EICompactCheckLeaf(Relation rel, Buffer buf)
{
	Page		page = BufferGetPage(buf);
	PageHeader	phdr = (PageHeader) page;
	EINormKeyInfo *norm = EICompactInfo(rel);
	Size		imageoff = ei_compact_image_offset(page);
	Size		tidend = phdr->pd_special;
	const char *what = NULL;
	SeqTree		st;

	if (!EI_RIGHTMOST(EIPageGetOpaque(page)))
	{
		ItemId		hiid = PageGetItemId(page, EI_HIKEY);

		if (!ItemIdIsNormal(hiid) || ItemIdGetOffset(hiid) < phdr->pd_upper ||
			ItemIdGetLength(hiid) < sizeof(IndexTupleData) ||
			ItemIdGetOffset(hiid) + ItemIdGetLength(hiid) > phdr->pd_special ||
			IndexTupleSize((IndexTuple) PageGetItem(page, hiid)) != ItemIdGetLength(hiid))
			what = "Its high key's line pointer is invalid.";
		else
			tidend = ItemIdGetOffset(hiid);
	}
	if (what == NULL &&
		(phdr->pd_lower < imageoff ||
		 !seqtree_attach(&st, (char *) page + imageoff, phdr->pd_upper - imageoff)))
		what = "Its SeqTree image is invalid.";
	if (what == NULL &&
		((norm != NULL && st.keylen != norm->keylen) ||
		 imageoff + seqtree_used(&st) != phdr->pd_lower ||
		 phdr->pd_upper + (Size) st.nkeys * sizeof(ItemPointerData) != tidend))
		what = psprintf("Its layout is inconsistent (%d keys of %d bytes, lower %u, upper %u, TIDs end at %zu).",
						st.nkeys, st.keylen, (unsigned) phdr->pd_lower,
						(unsigned) phdr->pd_upper, tidend);
	if (what != NULL)
		ereport(ERROR,
				(errcode(ERRCODE_INDEX_CORRUPTED),
				 errmsg("index \"%s\" contains corrupted compact leaf at block %u",
						RelationGetRelationName(rel), BufferGetBlockNumber(buf)),
				 errdetail_internal("%s", what),
				 errhint("Please REINDEX it.")));
}

/*
 * Return the heap TID of the entry at position pos of a compact leaf.
 */
void
EICompactGetTid(Page page, int pos, ItemPointer tid)
{
	memcpy(tid, (char *) page + ((PageHeader) page)->pd_upper +
		   pos * sizeof(ItemPointerData), sizeof(ItemPointerData));
}

/*
 * Remove the entry at position pos from a compact leaf (no key read).
 */
void
EICompactDelete(Page page, int pos)
{
	PageHeader	phdr = (PageHeader) page;
	SeqTree		st;

	EICompactAttach(page, &st);
	Assert(pos >= 0 && pos < st.nkeys);
	seqtree_delete(&st, pos);

	/* close the TID array's gap by moving the TIDs before pos up */
	memmove((char *) page + phdr->pd_upper + sizeof(ItemPointerData),
			(char *) page + phdr->pd_upper,
			pos * sizeof(ItemPointerData));
	phdr->pd_upper += sizeof(ItemPointerData);
	phdr->pd_lower = ei_compact_image_offset(page) + seqtree_used(&st);
}

/*
 * Largest number of entries a compact leaf holds for keys of keylen bytes
 * and a high key of hikeysz bytes (0 on the rightmost leaf).
 */
int
EICompactCapacity(int keylen, Size hikeysz)
{
	Size		space = BLCKSZ - SizeOfPageHeaderData -
		MAXALIGN(sizeof(EIPageOpaqueData));

	if (hikeysz > 0)
		space -= sizeof(ItemIdData) + MAXALIGN(hikeysz);
	return seqtree_capacity(space, keylen, SEQTREE_DEFAULT_LEVELS,
							sizeof(ItemPointerData));
}

/*
 * SeqTreeGetKey callback for building: the keys are in an array.
 */
static const uint8_t *
ei_compact_build_key(void *arg, int pos)
{
	EICompactBuildKeys *keys = (EICompactBuildKeys *) arg;

	return (const uint8_t *) keys->keys + (Size) pos * keys->keylen;
}

/*
 * Return the normalized keys (norm->keylen bytes each, heap TID included)
 * of the entries of a standard leaf, in page order, computed from its own
 * tuples; palloc'd.  Returns NULL if a key is too long for a compact leaf.
 */
char *
EICompactLeafKeys(Relation index, EINormKeyInfo *norm, Page leaf)
{
	EIPageOpaque opaque = EIPageGetOpaque(leaf);
	OffsetNumber first = EI_FIRST_DATA(opaque);
	OffsetNumber maxoff = PageGetMaxOffsetNumber(leaf);
	int			n = maxoff >= first ? maxoff - first + 1 : 0;
	char	   *keys = palloc((Size) Max(n, 1) * norm->keylen);
	StringInfoData key;

	initStringInfo(&key);
	for (int i = 0; i < n; i++)
	{
		IndexTuple	itup = EIReadTuple(leaf, first + i);
		Datum		values[INDEX_MAX_KEYS];
		bool		isnull[INDEX_MAX_KEYS];

		index_deform_tuple(itup, RelationGetDescr(index), values, isnull);
		resetStringInfo(&key);
		if (!EINormalizeKey(norm, values, isnull, &itup->t_tid, &key))
		{
			pfree(keys);
			pfree(key.data);
			return NULL;
		}
		Assert(key.len == norm->keylen);
		memcpy(keys + (Size) i * norm->keylen, key.data, norm->keylen);
	}
	pfree(key.data);
	return keys;
}

/*
 * Write into dst the compact form of the standard leaf src, whose entries'
 * normalized keys are computed from its own tuples (no heap reads).
 * Returns false if the entries do not fit in a compact leaf or a key is
 * too long for one.
 */
bool
EICompactFromLeaf(Relation index, EINormKeyInfo *norm, Page src, Page dst)
{
	EIPageOpaque sopaque = EIPageGetOpaque(src);
	EIPageOpaque dopaque;
	OffsetNumber first = EI_FIRST_DATA(sopaque);
	OffsetNumber maxoff = PageGetMaxOffsetNumber(src);
	int			n = maxoff >= first ? maxoff - first + 1 : 0;
	EICompactBuildKeys keys;
	PageHeader	dhdr = (PageHeader) dst;
	Size		imageoff;
	Size		tidoff;
	SeqTree		st;

	Assert(norm->ok && norm->keylen > 0);
	Assert(EI_IS_LEAF(sopaque) && !(sopaque->ei_flags & EI_COMPACT));

	EIInitPage(dst, (sopaque->ei_flags & ~(EI_HAS_GARBAGE | EI_ACCESSED)) | EI_COMPACT, 0);
	dopaque = EIPageGetOpaque(dst);
	dopaque->ei_prev = sopaque->ei_prev;
	dopaque->ei_next = sopaque->ei_next;

	if (!EI_RIGHTMOST(sopaque))
	{
		IndexTuple	hikey = EIReadTuple(src, EI_HIKEY);

		if (PageAddItem(dst, (Item) hikey, IndexTupleSize(hikey), EI_HIKEY,
						false, false) != EI_HIKEY)
			elog(ERROR, "could not add high key to compact leaf");
	}
	imageoff = ei_compact_image_offset(dst);
	if (dhdr->pd_upper < imageoff + n * sizeof(ItemPointerData))
		return false;
	tidoff = dhdr->pd_upper - n * sizeof(ItemPointerData);

	/* normalized keys of the entries, in page order (which is key order) */
	keys.keylen = norm->keylen;
	keys.keys = EICompactLeafKeys(index, norm, src);
	if (keys.keys == NULL)
		return false;
	for (int i = 0; i < n; i++)
		memcpy((char *) dst + tidoff + i * sizeof(ItemPointerData),
			   &EIReadTuple(src, first + i)->t_tid, sizeof(ItemPointerData));

	if (!seqtree_init(&st, (char *) dst + imageoff, tidoff - imageoff,
					  norm->keylen, SEQTREE_DEFAULT_LEVELS) ||
		!seqtree_build(&st, n, ei_compact_build_key, &keys))
	{
		pfree(keys.keys);
		return false;
	}

	dhdr->pd_lower = imageoff + seqtree_used(&st);
	dhdr->pd_upper = tidoff;

	pfree(keys.keys);
	return true;
}

/*
 * Read the key of entry pos of the leaf being searched from the heap; NULL
 * if it cannot be read (*result says why).
 */
static const uint8_t *
ei_compact_read_key(EICompactSearchState *state, int pos,
					EIHeapKeyResult *result)
{
	EIHeapKeyReader *reader = state->reader;
	ItemPointerData tid;
	bool		want_tuple = reader->want_tuple;

	/*
	 * A search needs the key, not the tuple an index-only scan's reader
	 * forms: read the key columns only, so that an INCLUDE column toasted
	 * out of line does not make the entry unreadable here.
	 */
	EICompactGetTid(state->page, pos, &tid);
	reader->want_tuple = false;
	*result = EIHeapKeyRead(reader, &tid);
	reader->want_tuple = want_tuple;
	if (*result != EI_HEAPKEY_FOUND)
		return NULL;
	return (const uint8_t *) reader->key.data;
}

/*
 * SeqTreeGetKey callback for searching: read the candidate's key from the
 * heap.  A candidate whose key cannot be read is remembered, and the search
 * key itself is returned so that the search can finish; its result is then
 * discarded (see EICompactSearch).
 */
static const uint8_t *
ei_compact_heap_key(void *arg, int pos)
{
	EICompactSearchState *state = (EICompactSearchState *) arg;
	EIHeapKeyResult result;
	const uint8_t *key = ei_compact_read_key(state, pos, &result);

	if (key != NULL)
		return key;
	if (state->badpos < 0)
	{
		state->badpos = pos;
		state->badresult = result;
	}
	return state->searchkey;
}

/*
 * SeqTreeGetKey callback for seqtree_search_tolerant: the entry's key from
 * the heap, or NULL if it is dead or toasted out of line.
 */
static const uint8_t *
ei_compact_heap_key_or_null(void *arg, int pos)
{
	EIHeapKeyResult result;

	return ei_compact_read_key((EICompactSearchState *) arg, pos, &result);
}

/*
 * Attach st to compact leaf page and set up state for a search of it for
 * key through reader.
 */
static void
ei_compact_search_begin(EICompactSearchState *state, SeqTree *st, Page page,
						EIHeapKeyReader *reader, const uint8 *key)
{
	EICompactAttach(page, st);
	state->page = page;
	state->reader = reader;
	state->searchkey = key;
	state->badpos = -1;
	state->badresult = EI_HEAPKEY_FOUND;
}

/*
 * Report a compact leaf whose bits contradict a key read from the heap.
 */
pg_noreturn static void
ei_compact_search_corrupted(EIHeapKeyReader *reader)
{
	ereport(ERROR,
			(errcode(ERRCODE_INDEX_CORRUPTED),
			 errmsg("compact leaf of index \"%s\" disagrees with the key read from the heap",
					RelationGetRelationName(reader->index))));
}

/*
 * Search a compact leaf for key (a normalized key of the leaf's length),
 * reading at most one key from the heap.  Returns -1 and fills *loc when
 * the search succeeded.  If the key it had to read was unreadable, returns
 * that entry's position and sets *why; the caller removes a dead entry (or,
 * where it may not change the page, gives up) and searches again.
 */
int
EICompactSearch(Page page, EIHeapKeyReader *reader, const uint8 *key,
				SeqTreeLocation *loc, EIHeapKeyResult *why)
{
	EICompactSearchState state;
	SeqTree		st;
	int			rc;

	ei_compact_search_begin(&state, &st, page, reader, key);
	rc = seqtree_search(&st, key, ei_compact_heap_key, &state, loc);

	/* with a stand-in key the result means nothing, not even corruption */
	if (state.badpos >= 0)
	{
		*why = state.badresult;
		return state.badpos;
	}
	if (rc == SEQTREE_CORRUPT)
		ei_compact_search_corrupted(reader);
	return -1;
}

/*
 * Search a compact leaf for key without changing it, as a scan does: an
 * entry whose key cannot be read (dead, or toasted out of line) is passed
 * over for another entry of its SeqTree subtree (seqtree_search_tolerant),
 * reading at most EI_COMPACT_SEARCH_READS keys.  Sets *minpos and *maxpos
 * to the position of the largest entry <= key (-1 if none) when the search
 * settles it, or else to the range that entry lies in (*minpos is then
 * never an entry equal to key).  Returns whether a settled search found an
 * entry equal to key.
 */
bool
EICompactSearchReadOnly(Page page, EIHeapKeyReader *reader, const uint8 *key,
						int *minpos, int *maxpos)
{
	EICompactSearchState state;
	SeqTreeLocation loc;
	SeqTree		st;
	int			rc;

	ei_compact_search_begin(&state, &st, page, reader, key);
	rc = seqtree_search_tolerant(&st, key, ei_compact_heap_key_or_null,
								 &state, &loc, EI_COMPACT_SEARCH_READS,
								 minpos, maxpos, NULL);
	if (rc == SEQTREE_CORRUPT)
		ei_compact_search_corrupted(reader);
	if (rc == SEQTREE_AMBIGUOUS)
		return false;
	*minpos = *maxpos = loc.pos;
	return loc.exact;
}

/*
 * Number of entries on a compact leaf.
 */
int
EICompactNKeys(Page page)
{
	SeqTree		st;

	EICompactAttach(page, &st);
	return st.nkeys;
}

/*
 * Is there room on a compact leaf for one more entry (its TID and its bit)?
 */
bool
EICompactHasRoom(Page page)
{
	SeqTree		st;

	EICompactAttach(page, &st);
	return ei_compact_image_offset(page) +
		seqtree_size(st.nkeys + 1, st.keylen, st.levels) +
		sizeof(ItemPointerData) <= ((PageHeader) page)->pd_upper;
}

/*
 * Add an entry with heap TID tid at position pos of a compact leaf, with
 * the bits seqtree_insert_at needs (from a search for its key).  Returns
 * false, changing nothing, if the page has no room.  Redo calls this with
 * the logged arguments.
 */
bool
EICompactInsertAt(Page page, int pos, int lbit, int rbit, ItemPointer tid)
{
	PageHeader	phdr = (PageHeader) page;
	Size		off = ei_compact_image_offset(page);
	SeqTree		st;

	if (!EICompactHasRoom(page))
		return false;
	/*
	 * Callers run this inside a critical section (and redo), on a leaf
	 * EICompactCheckLeaf passed, after EICompactCheckInsert accepted the
	 * same arguments: a failure below cannot happen.
	 */
	EICompactAttach(page, &st);
	if (pos < 0 || pos > st.nkeys)
		elog(PANIC, "compact leaf insert position %d out of range 0..%d",
			 pos, st.nkeys);

	/* the TIDs before pos move down one slot; the new TID goes between */
	memmove((char *) page + phdr->pd_upper - sizeof(ItemPointerData),
			(char *) page + phdr->pd_upper,
			pos * sizeof(ItemPointerData));
	phdr->pd_upper -= sizeof(ItemPointerData);
	memcpy((char *) page + phdr->pd_upper + pos * sizeof(ItemPointerData),
		   tid, sizeof(ItemPointerData));

	st.space = phdr->pd_upper - off;
	if (!seqtree_insert_at(&st, pos, lbit, rbit))
		elog(PANIC, "could not add entry to compact leaf");
	phdr->pd_lower = off + seqtree_used(&st);
	return true;
}

/*
 * Check, changing nothing, that EICompactInsertAt(page, pos, lbit, rbit)
 * will succeed on the locked compact leaf buf, which has room for one more
 * entry: the tests seqtree_insert_at makes, with the space the image has
 * once the new TID is in place.  EICompactCheckLeaf does not read bits[]
 * (it runs in constant time), so a damaged bits[] reaches the search,
 * which then hands back bits no insertion can use; that is
 * ERRCODE_INDEX_CORRUPTED naming index and block, raised before the
 * caller's critical section.
 */
void
EICompactCheckInsert(Relation rel, Buffer buf, int pos, int lbit, int rbit)
{
	Page		page = BufferGetPage(buf);
	PageHeader	phdr = (PageHeader) page;
	Size		off = ei_compact_image_offset(page);
	SeqTree		st;

	EICompactAttach(page, &st);
	st.space = phdr->pd_upper - sizeof(ItemPointerData) - off;
	if (!seqtree_insert_check(&st, pos, lbit, rbit))
		ereport(ERROR,
				(errcode(ERRCODE_INDEX_CORRUPTED),
				 errmsg("index \"%s\" contains corrupted compact leaf at block %u",
						RelationGetRelationName(rel), BufferGetBlockNumber(buf)),
				 errdetail_internal("Its SeqTree bits cannot take an entry at position %d of %d (bits %d and %d).",
									pos, st.nkeys, lbit, rbit),
				 errhint("Please REINDEX it.")));
}

/*
 * Remove the entries at the given positions (ascending) from a compact
 * leaf, reading no key.  Nothing in it can refuse on a leaf
 * EICompactCheckLeaf passed (seqtree_delete_many accepts any bits[]), so
 * callers need no check before their critical section but valid positions.
 */
void
EICompactDeleteMany(Page page, const uint16 *positions, int npos)
{
	PageHeader	phdr = (PageHeader) page;
	char	   *tids = (char *) page + phdr->pd_upper;
	/* on the stack: callers run this in a critical section */
	int			ipos[BLCKSZ / sizeof(ItemPointerData)];
	SeqTree		st;
	int			n;
	int			k = 0;
	int			kept = 0;

	/*
	 * Callers run this inside a critical section (and redo), on a leaf
	 * EICompactCheckLeaf passed, with positions read from it: a failure
	 * below cannot happen.
	 */
	EICompactAttach(page, &st);
	n = st.nkeys;
	if (npos > n)
		elog(PANIC, "cannot delete %d entries from a compact leaf of %d",
			 npos, n);
	for (int i = 0; i < npos; i++)
	{
		if (positions[i] >= n || (i > 0 && positions[i] <= positions[i - 1]))
			elog(PANIC, "compact leaf delete positions are not ascending within 0..%d",
				 n - 1);
		ipos[i] = positions[i];
	}
	seqtree_delete_many(&st, ipos, npos);

	/* keep the surviving TIDs in order, packed against the page's end */
	for (int i = n - 1; i >= 0; i--)
	{
		if (k < npos && positions[npos - 1 - k] == i)
		{
			k++;
			continue;
		}
		kept++;
		if (k > 0)
			memmove(tids + (Size) (i + k) * sizeof(ItemPointerData),
					tids + (Size) i * sizeof(ItemPointerData),
					sizeof(ItemPointerData));
	}
	Assert(kept == n - npos);
	phdr->pd_upper += npos * sizeof(ItemPointerData);
	phdr->pd_lower = ei_compact_image_offset(page) + seqtree_used(&st);
}

/*
 * Build the two halves of a compact leaf split at position at: entries
 * before it go left, behind lefthikey, the rest right, behind the original
 * high key.  No key is read.  The caller sets the new sibling links.
 */
void
EICompactSplitPages(Page origpage, int at, IndexTuple lefthikey,
					Page leftpage, Page rightpage)
{
	EIPageOpaque oopaque = EIPageGetOpaque(origpage);
	uint16		flags = oopaque->ei_flags &
		~(EI_ROOT | EI_HAS_GARBAGE | EI_INCOMPLETE_SPLIT | EI_ACCESSED);
	char	   *otids = (char *) origpage + ((PageHeader) origpage)->pd_upper;
	SeqTree		ost;
	SeqTree		tst;
	SeqTree		lst;
	SeqTree		rst;
	char	   *tmp;
	int			n;
	Page		pages[2] = {leftpage, rightpage};
	int			counts[2];

	EICompactAttach(origpage, &ost);
	n = ost.nkeys;
	Assert(at > 0 && at < n);
	counts[0] = at;
	counts[1] = n - at;

	/*
	 * The links decide where the image starts (after the high key's line
	 * pointer unless the page is rightmost), so set them first; the caller
	 * replaces the left page's right link with the new page's number.
	 */
	EIInitPage(leftpage, flags | EI_INCOMPLETE_SPLIT, 0);
	EIPageGetOpaque(leftpage)->ei_prev = oopaque->ei_prev;
	EIPageGetOpaque(leftpage)->ei_next = EI_METAPAGE;
	if (PageAddItem(leftpage, (Item) lefthikey,
					MAXALIGN(IndexTupleSize(lefthikey)), EI_HIKEY,
					false, false) == InvalidOffsetNumber)
		elog(ERROR, "failed to add high key to left half of compact split");
	EIInitPage(rightpage, flags, 0);
	EIPageGetOpaque(rightpage)->ei_next = oopaque->ei_next;
	if (!EI_RIGHTMOST(oopaque))
	{
		IndexTuple	hikey = EIReadTuple(origpage, EI_HIKEY);

		if (PageAddItem(rightpage, (Item) hikey,
						MAXALIGN(IndexTupleSize(hikey)), EI_HIKEY,
						false, false) == InvalidOffsetNumber)
			elog(ERROR, "failed to add high key to right half of compact split");
	}

	/* split a scratch copy of the SeqTree, then place each half */
	tmp = palloc(BLCKSZ);
	if (!seqtree_copy(&ost, &tst, tmp, BLCKSZ, ost.levels))
		elog(ERROR, "could not copy SeqTree of compact leaf");
	for (int side = 0; side < 2; side++)
	{
		Page		page = pages[side];
		PageHeader	phdr = (PageHeader) page;
		Size		off = ei_compact_image_offset(page);
		Size		tidoff = phdr->pd_upper - counts[side] * sizeof(ItemPointerData);
		SeqTree    *dst = side == 0 ? &lst : &rst;

		if (tidoff < off)
			elog(ERROR, "compact split half does not fit");
		memcpy((char *) page + tidoff,
			   otids + (side == 0 ? 0 : (Size) at * sizeof(ItemPointerData)),
			   counts[side] * sizeof(ItemPointerData));
		phdr->pd_upper = tidoff;
		if (side == 0)
		{
			SeqTree		rtmp;
			char	   *rbuf = palloc(BLCKSZ);

			/* tst keeps the left part; the right part goes to rbuf */
			if (!seqtree_split(&tst, at, &rtmp, rbuf, BLCKSZ, NULL) ||
				!seqtree_copy(&tst, dst, (char *) page + off, tidoff - off,
							  ost.levels))
				elog(ERROR, "could not split SeqTree of compact leaf");
			/* keep the right part for the second pass */
			if (!seqtree_copy(&rtmp, &tst, tmp, BLCKSZ, ost.levels))
				elog(ERROR, "could not copy SeqTree of compact leaf");
			pfree(rbuf);
		}
		else if (!seqtree_copy(&tst, dst, (char *) page + off, tidoff - off,
							   ost.levels))
			elog(ERROR, "could not place right half of compact split");
		phdr->pd_lower = off + seqtree_used(dst);
	}
	pfree(tmp);
}
