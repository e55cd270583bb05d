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
 * Keys are normalized keys of one fixed length (core/normkey.c); only
 * indexes whose key columns all have fixed-width encodings can have
 * compact leaves.  Whenever the SeqTree needs a key it reads it from the
 * heap (core/heapkey.c) while the caller holds the leaf's lock.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/itup.h"
#include "eitree.h"
#include "seqtree.h"
#include "storage/bufpage.h"

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
 * tuples; palloc'd.
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
		EINormalizeKey(norm, values, isnull, &itup->t_tid, &key);
		Assert(key.len == norm->keylen);
		memcpy(keys + (Size) i * norm->keylen, key.data, norm->keylen);
	}
	pfree(key.data);
	return keys;
}

/*
 * Write into dst the compact form of the standard leaf src, whose entries'
 * normalized keys are computed from its own tuples (no heap reads).
 * Returns false if the entries do not fit in a compact leaf.
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

	EIInitPage(dst, (sopaque->ei_flags & ~EI_HAS_GARBAGE) | EI_COMPACT, 0);
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
 * SeqTreeGetKey callback for searching: read the candidate's key from the
 * heap.  A candidate whose key cannot be read is remembered, and the search
 * key itself is returned so that the search can finish; its result is then
 * discarded (see EICompactSearch).
 */
static const uint8_t *
ei_compact_heap_key(void *arg, int pos)
{
	EICompactSearchState *state = (EICompactSearchState *) arg;
	ItemPointerData tid;
	EIHeapKeyResult result;

	EICompactGetTid(state->page, pos, &tid);
	result = EIHeapKeyRead(state->reader, &tid);
	if (result != EI_HEAPKEY_FOUND)
	{
		if (state->badpos < 0)
		{
			state->badpos = pos;
			state->badresult = result;
		}
		return state->searchkey;
	}
	return (const uint8_t *) state->reader->key.data;
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

	EICompactAttach(page, &st);
	state.page = page;
	state.reader = reader;
	state.searchkey = key;
	state.badpos = -1;
	state.badresult = EI_HEAPKEY_FOUND;

	rc = seqtree_search(&st, key, ei_compact_heap_key, &state, loc);

	/* with a stand-in key the result means nothing, not even corruption */
	if (state.badpos >= 0)
	{
		*why = state.badresult;
		return state.badpos;
	}
	if (rc == SEQTREE_CORRUPT)
		ereport(ERROR,
				(errcode(ERRCODE_INDEX_CORRUPTED),
				 errmsg("compact leaf of index \"%s\" disagrees with the key read from the heap",
						RelationGetRelationName(reader->index))));
	return -1;
}
