/*-------------------------------------------------------------------------
 *
 * compact.c
 *	  The compact leaf page: a SeqTree over normalized keys plus heap TIDs,
 *	  with no keys stored.
 *
 * Layout (src/README.md, "Compact leaves"):
 *
 *	PageHeader | line pointer 1 (the high key; absent on the rightmost
 *	leaf) | SeqTree image, growing up | free space | heap TIDs in key
 *	order, growing down | high key tuple | special space
 *
 * The TIDs are a TID code (src/lib/tidcode.h: deltas in groups, an odd
 * number of bytes), or, on a leaf written before 0.3.0 and not rewritten
 * since, a plain array of 6-byte TIDs (an even number of bytes, 6 per
 * key).  Reads take either; every rewrite but a deletion writes a code.
 *
 * pd_lower is the end of the SeqTree image and pd_upper the start of the
 * TIDs, so PageGetFreeSpace and WAL's hole compression treat the gap
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
 * (compact/heapkey.c) while the caller holds the leaf's lock.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <math.h>

#include "access/itup.h"
#include "eicompact.h"
#include "seqtree.h"
#include "storage/bufpage.h"
#include "tidcode.h"
#include "utils/builtins.h"

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
	EICompactTidGroup *grp;		/* TIDs decoded for candidates */
	EICompactTidGroup owngrp;	/* grp when the caller keeps none */
} EICompactSearchState;

StaticAssertDecl(EI_COMPACT_TID_GROUP_MAX == TIDCODE_GROUP_MAX,
				 "EICompactTidGroup holds one TID code group");

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
 * The compact leaf EICompactCheckLeaf last checked (or a verifier's copy),
 * so that a damaged TID code found later while it is read is reported
 * naming index and block.
 */
static Page ei_compact_ctx_page = NULL;
static BlockNumber ei_compact_ctx_block = InvalidBlockNumber;
static NameData ei_compact_ctx_index;

/*
 * Remember page as block blkno of index rel, for reports of its damage.
 */
void
EICompactSetContext(Relation rel, BlockNumber blkno, Page page)
{
	ei_compact_ctx_page = page;
	ei_compact_ctx_block = blkno;
	/* a scan sets it per leaf: copy the name only when it changes */
	if (strcmp(NameStr(ei_compact_ctx_index), RelationGetRelationName(rel)) != 0)
		namestrcpy(&ei_compact_ctx_index, RelationGetRelationName(rel));
}

/*
 * Report the damaged TID code of compact leaf page.
 */
pg_noreturn static void
ei_compact_tids_corrupted(Page page, const char *what)
{
	if (page == ei_compact_ctx_page)
		ereport(ERROR,
				(errcode(ERRCODE_INDEX_CORRUPTED),
				 errmsg("index \"%s\" contains corrupted compact leaf at block %u",
						NameStr(ei_compact_ctx_index), ei_compact_ctx_block),
				 errdetail_internal("Its heap TIDs are damaged: %s.", what),
				 errhint("Please REINDEX it.")));
	ereport(ERROR,
			(errcode(ERRCODE_INDEX_CORRUPTED),
			 errmsg("compact leaf has damaged heap TIDs: %s", what),
			 errhint("Please REINDEX the index.")));
}

/*
 * Where a compact leaf's TIDs end: at its high key, or at the special
 * space on the rightmost leaf.
 */
static Size
ei_compact_tid_end(Page page)
{
	if (EI_RIGHTMOST(EIPageGetOpaque(page)))
		return ((PageHeader) page)->pd_special;
	return ItemIdGetOffset(PageGetItemId(page, EI_HIKEY));
}

/*
 * Does the compact leaf of n keys keep its TIDs in the plain 6-byte array
 * of versions before 0.3.0?  A TID code has an odd length (tidcode.h).
 */
static bool
ei_compact_tids_plain(Page page, int n)
{
	Size		len = ei_compact_tid_end(page) - ((PageHeader) page)->pd_upper;

	return n > 0 && len == (Size) n * sizeof(ItemPointerData);
}

/*
 * Open the TID code of the compact leaf page of n keys (not plain).
 */
static void
ei_compact_open_code(Page page, int n, TidCode *tc)
{
	PageHeader	phdr = (PageHeader) page;

	if (!tidcode_open(tc, (const uint8_t *) page + phdr->pd_upper,
					  ei_compact_tid_end(page) - phdr->pd_upper, n))
		ei_compact_tids_corrupted(page, "invalid header");
}

/*
 * Number of keys of a compact leaf, from its SeqTree image's header.
 */
static int
ei_compact_nkeys(Page page)
{
	uint16		n;

	memcpy(&n, (char *) page + ei_compact_image_offset(page), sizeof(uint16));
	return n;
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
 * Returns the leaf's number of keys.
 */
int
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
		 phdr->pd_upper > tidend))
		what = psprintf("Its layout is inconsistent (%d keys of %d bytes, lower %u, upper %u, TIDs end at %zu).",
						st.nkeys, st.keylen, (unsigned) phdr->pd_lower,
						(unsigned) phdr->pd_upper, tidend);
	if (what == NULL &&
		tidend - phdr->pd_upper != (Size) st.nkeys * sizeof(ItemPointerData))
	{
		TidCode		tc;

		/* a TID code: its header, in constant time; groups as read */
		if (!tidcode_open(&tc, (const uint8_t *) page + phdr->pd_upper,
						  tidend - phdr->pd_upper, st.nkeys))
			what = psprintf("Its heap TIDs are damaged: %zu bytes do not hold the TIDs of %d keys.",
							tidend - phdr->pd_upper, st.nkeys);
	}
	if (what != NULL)
		ereport(ERROR,
				(errcode(ERRCODE_INDEX_CORRUPTED),
				 errmsg("index \"%s\" contains corrupted compact leaf at block %u",
						RelationGetRelationName(rel), BufferGetBlockNumber(buf)),
				 errdetail_internal("%s", what),
				 errhint("Please REINDEX it.")));
	EICompactSetContext(rel, BufferGetBlockNumber(buf), page);
	return st.nkeys;
}

/*
 * Return the heap TID of the entry at position pos of a compact leaf.
 */
void
EICompactGetTid(Page page, int pos, ItemPointer tid)
{
	int			n = ei_compact_nkeys(page);
	TidCode		tc;
	TidCodeTid	t;

	if (pos < 0 || pos >= n)
		ei_compact_tids_corrupted(page, "position out of range");
	if (ei_compact_tids_plain(page, n))
	{
		memcpy(tid, (char *) page + ((PageHeader) page)->pd_upper +
			   pos * sizeof(ItemPointerData), sizeof(ItemPointerData));
		return;
	}
	ei_compact_open_code(page, n, &tc);
	if (!tidcode_get(&tc, pos, &t))
		ei_compact_tids_corrupted(page, psprintf("entry %d cannot be decoded", pos));
	ItemPointerSet(tid, t.block, t.offset);
}

/*
 * Copy the heap TIDs of the count entries from position start of a
 * compact leaf into tids (decoding each group once).
 */
void
EICompactGetTids(Page page, int start, int count, ItemPointer tids)
{
	int			n = ei_compact_nkeys(page);
	TidCode		tc;
	TidCodeTid	tbuf[TIDCODE_GROUP_MAX];
	TidCodeTid *t;

	if (start < 0 || count < 0 || start + count > n)
		ei_compact_tids_corrupted(page, "positions out of range");
	if (count == 0)
		return;
	if (ei_compact_tids_plain(page, n))
	{
		memcpy(tids, (char *) page + ((PageHeader) page)->pd_upper +
			   start * sizeof(ItemPointerData), count * sizeof(ItemPointerData));
		return;
	}
	ei_compact_open_code(page, n, &tc);
	t = count <= (int) lengthof(tbuf) ? tbuf : palloc(sizeof(TidCodeTid) * count);
	if (!tidcode_decode(&tc, start, count, t))
		ei_compact_tids_corrupted(page, psprintf("entries %d to %d cannot be decoded",
												 start, start + count - 1));
	for (int i = 0; i < count; i++)
		ItemPointerSet(&tids[i], t[i].block, t[i].offset);
	if (t != tbuf)
		pfree(t);
}

/*
 * Return the heap TID of the entry at position pos of a compact leaf,
 * through grp: the group holding pos is decoded (from its first TID to
 * pos) and kept there for the next reads of the same locked leaf (grp may
 * be NULL).
 */
void
EICompactGetTidCached(Page page, EICompactTidGroup *grp, int pos,
					  ItemPointer tid)
{
	int			n;
	TidCode		tc;
	int			first;
	int			count;

	if (grp != NULL && grp->count > 0 &&
		pos >= grp->first && pos < grp->first + grp->count)
	{
		ItemPointerSet(tid, grp->tids[pos - grp->first].block,
					   grp->tids[pos - grp->first].offset);
		return;
	}
	n = ei_compact_nkeys(page);
	if (grp == NULL || pos < 0 || pos >= n || ei_compact_tids_plain(page, n))
	{
		/* a plain array is read in place */
		EICompactGetTid(page, pos, tid);
		return;
	}
	ei_compact_open_code(page, n, &tc);
	grp->count = 0;				/* decoded in place */
	count = tidcode_get_group(&tc, pos, grp->tids, &first);
	if (count == 0)
		ei_compact_tids_corrupted(page, psprintf("entry %d cannot be decoded", pos));
	grp->first = first;
	grp->count = count;
	ItemPointerSet(tid, grp->tids[pos - first].block,
				   grp->tids[pos - first].offset);
}

/*
 * EICompactGetTids through grp: a range within the group kept there is
 * copied from it (a point lookup's entries usually are).
 */
void
EICompactGetTidsCached(Page page, EICompactTidGroup *grp, int start,
					   int count, ItemPointer tids)
{
	if (grp != NULL && grp->count > 0 && count > 0 &&
		start >= grp->first && start + count <= grp->first + grp->count)
	{
		for (int i = 0; i < count; i++)
			ItemPointerSet(&tids[i], grp->tids[start - grp->first + i].block,
						   grp->tids[start - grp->first + i].offset);
		return;
	}
	EICompactGetTids(page, start, count, tids);
}

/*
 * What is wrong with the TIDs of compact leaf page, whose image is sound
 * and holds n keys: NULL if they are a plain array of n TIDs or a TID code
 * of n TIDs that decodes whole (tidcode_check).  For the verifier.
 */
const char *
EICompactTidsProblem(Page page, int n)
{
	PageHeader	phdr = (PageHeader) page;
	Size		tidend = ei_compact_tid_end(page);
	TidCode		tc;

	if (phdr->pd_upper > tidend)
		return "its TIDs start after they end";
	if (ei_compact_tids_plain(page, n))
		return NULL;
	if (!tidcode_open(&tc, (const uint8_t *) page + phdr->pd_upper,
					  tidend - phdr->pd_upper, n))
		return psprintf("its %zu bytes of heap TIDs are neither %d plain TIDs nor a TID code of them",
						tidend - phdr->pd_upper, n);
	if (!tidcode_check(&tc))
		return "its TID code does not decode";
	return NULL;
}

/*
 * Decode the TIDs of the n entries of compact leaf page into t (n
 * entries), from either layout; false if the code is damaged.  No
 * allocation or error: redo and critical sections call it.
 */
static bool
ei_compact_decode_all(Page page, int n, TidCodeTid *t)
{
	PageHeader	phdr = (PageHeader) page;
	TidCode		tc;

	if (ei_compact_tids_plain(page, n))
	{
		for (int i = 0; i < n; i++)
		{
			ItemPointerData tid;

			memcpy(&tid, (char *) page + phdr->pd_upper + i * sizeof(ItemPointerData),
				   sizeof(ItemPointerData));
			t[i].block = ItemPointerGetBlockNumberNoCheck(&tid);
			t[i].offset = ItemPointerGetOffsetNumberNoCheck(&tid);
		}
		return true;
	}
	return tidcode_open(&tc, (const uint8_t *) page + phdr->pd_upper,
						ei_compact_tid_end(page) - phdr->pd_upper, n) &&
		tidcode_decode(&tc, 0, n, t);
}

/*
 * Remove the entry at position pos from a compact leaf (no key read).
 */
void
EICompactDelete(Page page, int pos)
{
	uint16		position = (uint16) pos;

	EICompactDeleteMany(page, &position, 1);
}

/*
 * Largest number of entries a compact leaf holds for keys of keylen bytes,
 * a high key of hikeysz bytes (0 on the rightmost leaf) and heap TIDs
 * whose code takes tidbytes bytes an entry on average (EICompactTidBytes;
 * sizeof(ItemPointerData) for the plain array).
 */
int
EICompactCapacity(int keylen, Size hikeysz, double tidbytes)
{
	Size		space = BLCKSZ - SizeOfPageHeaderData -
		MAXALIGN(sizeof(EIPageOpaqueData)) - TIDCODE_HEADER_SIZE - 1;
	Size		fixed = seqtree_size(0, keylen, SEQTREE_DEFAULT_LEVELS);
	double		w = keylen <= SEQTREE_NARROW_KEYLEN ? 1 : 2;
	double		n;

	if (hikeysz > 0)
		space -= sizeof(ItemIdData) + MAXALIGN(hikeysz);
	if (space <= fixed)
		return 0;
	/* a directory entry per group of TIDCODE_GROUP */
	tidbytes = Max(tidbytes, 1.0) + (double) TIDCODE_DIR_ENTRY / TIDCODE_GROUP;
	n = floor((space - fixed + w) / (w + tidbytes));
	return (int) Min(n, (double) Min(EI_MAX_ITEMS_PER_PAGE, SEQTREE_MAX_KEYS));
}

/*
 * Average bytes an entry's heap TID takes in the code of the TIDs tids[0..n)
 * in key order (groups of TIDCODE_GROUP, each first TID coded whole).
 */
double
EICompactTidBytes(ItemPointer tids, int n)
{
	double		total = 0;

	if (n <= 0)
		return sizeof(ItemPointerData);
	for (int i = 0; i < n; i++)
	{
		TidCodeTid	prev;
		TidCodeTid	cur;

		cur.block = ItemPointerGetBlockNumberNoCheck(&tids[i]);
		cur.offset = ItemPointerGetOffsetNumberNoCheck(&tids[i]);
		if (i > 0)
		{
			prev.block = ItemPointerGetBlockNumberNoCheck(&tids[i - 1]);
			prev.offset = ItemPointerGetOffsetNumberNoCheck(&tids[i - 1]);
		}
		total += tidcode_entry_size(i % TIDCODE_GROUP == 0 ? NULL : &prev, &cur);
	}
	return total / n;
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
 * of the sorted leaf tuples tuples[0..ntuples) (a posting list gives one
 * per TID), computed from the tuples themselves; palloc'd.  Returns NULL if
 * a key is too long for a compact leaf.
 */
static char *
ei_compact_tuple_keys(Relation index, EINormKeyInfo *norm,
					  IndexTuple *tuples, int ntuples, int n)
{
	char	   *keys = palloc((Size) Max(n, 1) * norm->keylen);
	StringInfoData key;
	int			i = 0;

	initStringInfo(&key);
	for (int k = 0; k < ntuples; k++)
	{
		IndexTuple	itup = tuples[k];
		Datum		values[INDEX_MAX_KEYS];
		bool		isnull[INDEX_MAX_KEYS];

		/* a posting list is one entry per TID */
		index_deform_tuple(itup, RelationGetDescr(index), values, isnull);
		for (int t = 0; t < EILeafNTIDs(itup); t++)
		{
			ItemPointer tid = EITupleIsPosting(itup) ?
				EIPostingTID(itup, t) : &itup->t_tid;

			resetStringInfo(&key);
			if (!EINormalizeKey(norm, values, isnull, tid, &key))
			{
				pfree(keys);
				pfree(key.data);
				return NULL;
			}
			Assert(key.len == norm->keylen);
			memcpy(keys + (Size) i * norm->keylen, key.data, norm->keylen);
			i++;
		}
	}
	Assert(i == n);
	pfree(key.data);
	return keys;
}

/*
 * The data items of a standard leaf, in page order; palloc'd, *ntuples set.
 */
static IndexTuple *
ei_compact_leaf_tuples(Page leaf, int *ntuples)
{
	EIPageOpaque opaque = EIPageGetOpaque(leaf);
	OffsetNumber maxoff = PageGetMaxOffsetNumber(leaf);
	IndexTuple *tuples = palloc(sizeof(IndexTuple) * Max(maxoff, 1));
	int			n = 0;

	for (OffsetNumber off = EI_FIRST_DATA(opaque); off <= maxoff; off++)
		tuples[n++] = EIReadTuple(leaf, off);
	*ntuples = n;
	return tuples;
}

/*
 * Return the normalized keys (norm->keylen bytes each, heap TID included)
 * of the entries of a standard leaf, in page order, computed from its own
 * tuples; palloc'd.  Returns NULL if a key is too long for a compact leaf.
 */
char *
EICompactLeafKeys(Relation index, EINormKeyInfo *norm, Page leaf)
{
	int			ntuples;
	IndexTuple *tuples = ei_compact_leaf_tuples(leaf, &ntuples);
	char	   *keys = ei_compact_tuple_keys(index, norm, tuples, ntuples,
										   EICompactLeafEntries(leaf));

	pfree(tuples);
	return keys;
}

/*
 * The number of entries (heap TIDs) of a standard leaf: its items, each
 * posting list counted as its TIDs.
 */
int
EICompactLeafEntries(Page leaf)
{
	EIPageOpaque opaque = EIPageGetOpaque(leaf);
	OffsetNumber maxoff = PageGetMaxOffsetNumber(leaf);
	int			n = 0;

	for (OffsetNumber off = EI_FIRST_DATA(opaque); off <= maxoff; off++)
		n += EILeafNTIDs(EIReadTuple(leaf, off));
	return n;
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
	IndexTuple *tuples;
	int			ntuples;
	bool		result;

	Assert(EI_IS_LEAF(sopaque) && !(sopaque->ei_flags & EI_COMPACT));

	EIInitPage(dst, sopaque->ei_flags & ~(EI_HAS_GARBAGE | EI_ACCESSED), 0);
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
	tuples = ei_compact_leaf_tuples(src, &ntuples);
	result = EICompactFormLeaf(index, norm, tuples, ntuples, dst);
	pfree(tuples);
	return result;
}

/*
 * Make dst, a new standard leaf with its special space, links and (unless
 * it is the rightmost) high key but no entries, the compact leaf holding
 * the sorted leaf tuples tuples[0..ntuples) (posting lists count as their
 * TIDs), with their normalized keys computed from the tuples (no heap
 * reads): what a conversion and a bulk append that forms compact leaves
 * both do.  Returns false if the entries do not fit in a compact leaf or a
 * key is too long for one (dst is then garbage).
 */
bool
EICompactFormLeaf(Relation index, EINormKeyInfo *norm, IndexTuple *tuples,
				  int ntuples, Page dst)
{
	EIPageOpaque dopaque = EIPageGetOpaque(dst);
	int			n = 0;
	int			ntids = 0;
	EICompactBuildKeys keys;
	PageHeader	dhdr = (PageHeader) dst;
	Size		imageoff;
	Size		tidoff;
	TidCodeTid *tids;
	char	   *code;
	long		codelen;
	SeqTree		st;

	Assert(norm->ok && norm->keylen > 0);
	Assert(EI_IS_LEAF(dopaque) &&
		   PageGetMaxOffsetNumber(dst) == (EI_RIGHTMOST(dopaque) ? 0 : EI_HIKEY));

	for (int k = 0; k < ntuples; k++)
		n += EILeafNTIDs(tuples[k]);
	if (n > Min(EI_MAX_ITEMS_PER_PAGE, SEQTREE_MAX_KEYS))
		return false;
	dopaque->ei_flags |= EI_COMPACT;
	imageoff = ei_compact_image_offset(dst);

	/* the heap TIDs in page order (which is key order), coded */
	tids = palloc(sizeof(TidCodeTid) * Max(n, 1));
	code = palloc(BLCKSZ);
	for (int k = 0; k < ntuples; k++)
	{
		IndexTuple	itup = tuples[k];

		/* a posting list is one entry per TID */
		for (int t = 0; t < EILeafNTIDs(itup); t++)
		{
			ItemPointer tid = EITupleIsPosting(itup) ?
				EIPostingTID(itup, t) : &itup->t_tid;

			tids[ntids].block = ItemPointerGetBlockNumberNoCheck(tid);
			tids[ntids].offset = ItemPointerGetOffsetNumberNoCheck(tid);
			ntids++;
		}
	}
	Assert(ntids == n);
	codelen = tidcode_encode(tids, n, (uint8_t *) code, BLCKSZ);
	if (ei_debug_fault == EI_FAULT_PLAIN_TIDS)
	{
		/* tests: the plain TID array of versions before 0.3.0 */
		for (int i = 0; i < n; i++)
			ItemPointerSet((ItemPointer) (code + i * sizeof(ItemPointerData)),
						   tids[i].block, tids[i].offset);
		codelen = n * sizeof(ItemPointerData);
	}
	pfree(tids);
	if (codelen < 0 || dhdr->pd_upper < imageoff + codelen)
	{
		pfree(code);
		return false;
	}
	tidoff = dhdr->pd_upper - codelen;
	memcpy((char *) dst + tidoff, code, codelen);
	pfree(code);

	/* normalized keys of the entries, in page order (which is key order) */
	keys.keylen = norm->keylen;
	keys.keys = ei_compact_tuple_keys(index, norm, tuples, ntuples, n);
	if (keys.keys == NULL)
		return false;

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
	 * A search needs the key.  An index-only scan's reader also forms the
	 * entry's tuple, which the reader keeps (keep_tuple, without a copy for
	 * the search) for the scan's read of the same entry (usually the one a point lookup's search ends at); if that fails
	 * (an INCLUDE column toasted out of line), the key is still at hand
	 * (EIHeapKeyRead read it, and a read of the key alone then reads
	 * nothing), so that such a column does not make the entry unreadable
	 * here.  Only a key column toasted out of line does.  When the entry's
	 * key was read last without its tuple, the tuple is not tried again:
	 * the key is at hand.
	 */
	EICompactGetTidCached(state->page, state->grp, pos, &tid);
	*result = EI_HEAPKEY_UNREADABLE;
	if (want_tuple &&
		!(EIHeapKeyReaderLastKey(reader, &tid) != NULL &&
		  reader->last_itup == NULL))
	{
		reader->keep_tuple = true;
		*result = EIHeapKeyRead(reader, &tid);
		reader->keep_tuple = false;
		if (reader->itup != NULL)
			pfree(reader->itup);
		reader->itup = NULL;
	}
	if (*result == EI_HEAPKEY_UNREADABLE)
	{
		reader->want_tuple = false;
		*result = EIHeapKeyRead(reader, &tid);
		reader->want_tuple = want_tuple;
	}
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
						EIHeapKeyReader *reader, EICompactTidGroup *grp,
						const uint8 *key)
{
	EICompactAttach(page, st);
	state->page = page;
	if (grp == NULL)
	{
		grp = &state->owngrp;
		EICompactTidGroupReset(grp);
	}
	state->grp = grp;
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

	ei_compact_search_begin(&state, &st, page, reader, NULL, key);
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
 * entry equal to key.  grp (or NULL) keeps the TIDs decoded for the
 * candidates, for the caller's next reads of the same locked leaf.
 */
bool
EICompactSearchReadOnly(Page page, EIHeapKeyReader *reader,
						EICompactTidGroup *grp, const uint8 *key,
						int *minpos, int *maxpos)
{
	EICompactSearchState state;
	SeqTreeLocation loc;
	SeqTree		st;
	int			rc;

	ei_compact_search_begin(&state, &st, page, reader, grp, key);
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
 * The position of the last entry <= bound on a compact leaf, from the key
 * of entry pos (poskey, <= bound) at hand and bits[] alone, without a heap
 * read (seqtree_last_le_from); -1 if bits[] cannot tell, and the caller
 * searches for bound.
 */
int
EICompactLastWithin(Page page, int pos, const uint8 *poskey,
					const uint8 *bound)
{
	SeqTree		st;
	int			last;

	EICompactAttach(page, &st);
	last = seqtree_last_le_from(&st, pos, poskey, bound);
	return last >= 0 ? last : -1;
}

/*
 * The entries of a compact leaf whose keys begin with key's first prefixlen
 * bytes, found by bits[] alone, without a heap read (seqtree_prefix_run): if
 * any entry does, exactly those; if none does, another run of entries that
 * share a prefix of that length, which the caller must treat as candidates
 * only.  Returns false, setting neither *lo nor *hi, on an empty leaf or a
 * run of more than maxrun entries.
 */
bool
EICompactPrefixRun(Page page, const uint8 *key, int prefixlen, int maxrun,
				   int *lo, int *hi)
{
	SeqTree		st;

	EICompactAttach(page, &st);
	return seqtree_prefix_run(&st, key, prefixlen * 8, maxrun, lo, hi);
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
 * Write into code (BLCKSZ bytes) the TIDs of the compact leaf page with tid
 * added at position pos; returns its length, or -1 if the TIDs are damaged
 * or tid equals a neighbour.  A code is changed in the group taking tid
 * (tidcode_insert).  A plain array stays a plain array, one slot longer,
 * byte for byte what versions before 0.3.0 wrote: a standby of this version
 * replaying an older primary's COMPACT_INSERT must write the page that
 * primary wrote, and after the upgrade both sides keep doing the same.  A
 * plain leaf is coded only by records that carry the whole page (a split,
 * a conversion).  No allocation or error: redo and critical sections call
 * it.
 */
static long
ei_compact_code_insert(Page page, int n, int pos, ItemPointer tid, char *code)
{
	PageHeader	phdr = (PageHeader) page;
	TidCodeTid	t;

	t.block = ItemPointerGetBlockNumberNoCheck(tid);
	t.offset = ItemPointerGetOffsetNumberNoCheck(tid);
	if (pos < 0 || pos > n)
		return -1;
	if (ei_compact_tids_plain(page, n))
	{
		const char *plain = (const char *) page + phdr->pd_upper;
		Size		slot = sizeof(ItemPointerData);

		/* TIDs are unique in an index: tid must differ from its neighbours */
		if ((Size) (n + 1) * slot > BLCKSZ ||
			(pos > 0 && memcmp(plain + (pos - 1) * slot, tid, slot) == 0) ||
			(pos < n && memcmp(plain + pos * slot, tid, slot) == 0))
			return -1;
		memcpy(code, plain, pos * slot);
		memcpy(code + pos * slot, tid, slot);
		memcpy(code + (pos + 1) * slot, plain + pos * slot, (n - pos) * slot);
		return (long) ((n + 1) * slot);
	}
	else
	{
		TidCode		tc;

		if (!tidcode_open(&tc, (const uint8_t *) page + phdr->pd_upper,
						  ei_compact_tid_end(page) - phdr->pd_upper, n))
			return -1;
		return tidcode_insert(&tc, pos, t, (uint8_t *) code, BLCKSZ);
	}
}

/*
 * Is there room on the locked compact leaf buf for an entry with heap TID
 * tid at position pos: its bit in the SeqTree and the TID code with it?
 * The code's growth depends on tid and its neighbours, so this is asked
 * after the search found pos.  Damaged TIDs are ERRCODE_INDEX_CORRUPTED.
 */
bool
EICompactHasRoom(Relation rel, Buffer buf, int pos, ItemPointer tid)
{
	Page		page = BufferGetPage(buf);
	SeqTree		st;
	char	   *code = palloc(BLCKSZ);
	long		len;

	/*
	 * Only the group taking tid is decoded (and its neighbours' adjacent
	 * TIDs); the other groups' bytes are copied after a bounds check, so
	 * this costs one group, not the whole code, and EICompactInsertAt,
	 * repeating it on the same page, cannot fail where it succeeded.
	 * Damage elsewhere in the code is found where it is read.
	 */
	EICompactAttach(page, &st);
	EICompactSetContext(rel, BufferGetBlockNumber(buf), page);
	len = ei_compact_code_insert(page, st.nkeys, pos, tid, code);
	pfree(code);
	if (len < 0)
		ei_compact_tids_corrupted(page, psprintf("TID (%u,%u) cannot be added at position %d",
												 ItemPointerGetBlockNumberNoCheck(tid),
												 ItemPointerGetOffsetNumberNoCheck(tid), pos));
	return ei_compact_image_offset(page) +
		seqtree_size(st.nkeys + 1, st.keylen, st.levels) + len <=
		ei_compact_tid_end(page);
}

/*
 * Add an entry with heap TID tid at position pos of a compact leaf, with
 * the bits seqtree_insert_at needs (from a search for its key).  Returns
 * false, changing nothing, if the page has no room.  Redo calls this with
 * the logged arguments; the result depends on nothing else, so a standby
 * writes the same bytes.
 */
bool
EICompactInsertAt(Page page, int pos, int lbit, int rbit, ItemPointer tid)
{
	PageHeader	phdr = (PageHeader) page;
	Size		off = ei_compact_image_offset(page);
	Size		tidend = ei_compact_tid_end(page);
	/* on the stack: callers run this in a critical section */
	char		code[BLCKSZ];
	long		len;
	SeqTree		st;

	/*
	 * Callers run this inside a critical section (and redo), on a leaf
	 * EICompactCheckLeaf passed, after EICompactHasRoom and
	 * EICompactCheckInsert accepted the same arguments: a failure below
	 * cannot happen.
	 */
	EICompactAttach(page, &st);
	if (pos < 0 || pos > st.nkeys)
		elog(PANIC, "compact leaf insert position %d out of range 0..%d",
			 pos, st.nkeys);
	len = ei_compact_code_insert(page, st.nkeys, pos, tid, code);
	if (len < 0)
		elog(PANIC, "could not add TID to compact leaf");
	if (off + seqtree_size(st.nkeys + 1, st.keylen, st.levels) + len > tidend)
		return false;

	/* the new code ends where the TIDs end; the image grows toward it */
	memcpy((char *) page + tidend - len, code, len);
	phdr->pd_upper = tidend - len;

	st.space = phdr->pd_upper - off;
	if (!seqtree_insert_at(&st, pos, lbit, rbit))
		elog(PANIC, "could not add entry to compact leaf");
	phdr->pd_lower = off + seqtree_used(&st);
	return true;
}

/*
 * Check, changing nothing, that EICompactInsertAt(page, pos, lbit, rbit)
 * will succeed on the locked compact leaf buf, which has room for one more
 * entry: the tests seqtree_insert_at makes, with the space EICompactHasRoom
 * found for the image.  EICompactCheckLeaf does not read bits[]
 * (it runs in constant time), so a damaged bits[] reaches the search,
 * which then hands back bits no insertion can use; that is
 * ERRCODE_INDEX_CORRUPTED naming index and block, raised before the
 * caller's critical section.
 */
void
EICompactCheckInsert(Relation rel, Buffer buf, int pos, int lbit, int rbit)
{
	Page		page = BufferGetPage(buf);
	Size		off = ei_compact_image_offset(page);
	SeqTree		st;

	EICompactAttach(page, &st);
	/* EICompactHasRoom found room for the image with one more bit */
	st.space = ei_compact_tid_end(page) - off;
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
 * Write into code (BLCKSZ bytes) the TID code of compact leaf page without
 * the entries at positions (ascending); returns its length, never more
 * than the code's now (tidcode.h), or -1 if it is damaged.  Not for a
 * plain array.  No allocation or error: critical sections call it.
 */
static long
ei_compact_code_delete(Page page, int n, const uint16 *positions, int npos,
					   char *code)
{
	PageHeader	phdr = (PageHeader) page;
	int			ipos[EI_MAX_ITEMS_PER_PAGE];
	TidCode		tc;

	if (npos > n || npos > lengthof(ipos) ||
		!tidcode_open(&tc, (const uint8_t *) page + phdr->pd_upper,
					  ei_compact_tid_end(page) - phdr->pd_upper, n))
		return -1;
	for (int i = 0; i < npos; i++)
		ipos[i] = positions[i];
	return tidcode_delete(&tc, ipos, npos, (uint8_t *) code, BLCKSZ);
}

/*
 * Check, changing nothing, that EICompactDeleteMany(page, positions, npos)
 * will succeed on the locked compact leaf buf: the positions ascend within
 * the leaf and the groups they touch decode.  Damage is
 * ERRCODE_INDEX_CORRUPTED naming index and block, raised before the
 * caller's critical section.
 */
void
EICompactCheckDelete(Relation rel, Buffer buf, const uint16 *positions,
					 int npos)
{
	Page		page = BufferGetPage(buf);
	int			n = ei_compact_nkeys(page);
	char	   *code;
	long		len;

	EICompactSetContext(rel, BufferGetBlockNumber(buf), page);
	for (int i = 0; i < npos; i++)
		if (positions[i] >= n || (i > 0 && positions[i] <= positions[i - 1]))
			ei_compact_tids_corrupted(page, "positions to delete out of range");
	if (npos == 0 || ei_compact_tids_plain(page, n))
		return;
	code = palloc(BLCKSZ);
	len = ei_compact_code_delete(page, n, positions, npos, code);
	pfree(code);
	if (len < 0)
		ei_compact_tids_corrupted(page, "a group losing entries cannot be decoded");
}

/*
 * Remove the entries at the given positions (ascending) from a compact
 * leaf, reading no key.  Nothing in it can refuse on a leaf
 * EICompactCheckLeaf and EICompactCheckDelete passed (seqtree_delete_many
 * accepts any bits[], and a TID code never grows by a deletion), so
 * callers need no other check before their critical section.  A plain
 * TID array stays plain: coding it could take more room than it has.
 */
void
EICompactDeleteMany(Page page, const uint16 *positions, int npos)
{
	PageHeader	phdr = (PageHeader) page;
	char	   *tids = (char *) page + phdr->pd_upper;
	Size		tidend = ei_compact_tid_end(page);
	/* on the stack: callers run this in a critical section */
	int			ipos[EI_MAX_ITEMS_PER_PAGE];
	char		code[BLCKSZ];
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

	if (!ei_compact_tids_plain(page, n))
	{
		long		len = ei_compact_code_delete(page, n, positions, npos, code);

		if (len < 0 || (Size) len > tidend - phdr->pd_upper)
			elog(PANIC, "could not delete TIDs from compact leaf");
		seqtree_delete_many(&st, ipos, npos);
		memcpy((char *) page + tidend - len, code, len);
		phdr->pd_upper = tidend - len;
		phdr->pd_lower = ei_compact_image_offset(page) + seqtree_used(&st);
		return;
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
 * Returns false if a half does not fit its page: each half's TIDs are
 * coded afresh, in groups of TIDCODE_GROUP, which can take more bytes than
 * the same TIDs took in the leaf's code (its groups grown by inserts to
 * TIDCODE_GROUP_MAX), and the left half gets a new high key, so a split
 * point near the end can leave the left half too large.
 */
bool
EICompactSplitPages(Page origpage, int at, IndexTuple lefthikey,
					Page leftpage, Page rightpage)
{
	EIPageOpaque oopaque = EIPageGetOpaque(origpage);
	uint16		flags = oopaque->ei_flags &
		~(EI_ROOT | EI_HAS_GARBAGE | EI_INCOMPLETE_SPLIT | EI_ACCESSED);
	TidCodeTid *alltids;
	char	   *code;
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

	/* every TID, to code each half afresh */
	alltids = palloc(sizeof(TidCodeTid) * n);
	if (!ei_compact_decode_all(origpage, n, alltids))
		ei_compact_tids_corrupted(origpage, "the leaf to split cannot be decoded");
	code = palloc(BLCKSZ);

	/* split a scratch copy of the SeqTree, then place each half */
	tmp = palloc(BLCKSZ);
	if (!seqtree_copy(&ost, &tst, tmp, BLCKSZ, ost.levels))
		elog(ERROR, "could not copy SeqTree of compact leaf");
	for (int side = 0; side < 2; side++)
	{
		Page		page = pages[side];
		PageHeader	phdr = (PageHeader) page;
		Size		off = ei_compact_image_offset(page);
		long		len = tidcode_encode(alltids + (side == 0 ? 0 : at),
										 counts[side], (uint8_t *) code, BLCKSZ);
		Size		tidoff;
		SeqTree    *dst = side == 0 ? &lst : &rst;

		if (len < 0)
			ei_compact_tids_corrupted(origpage, "a TID of the leaf to split is invalid");
		if (phdr->pd_upper < off + len)
		{
			pfree(tmp);
			pfree(code);
			pfree(alltids);
			return false;
		}
		tidoff = phdr->pd_upper - len;
		memcpy((char *) page + tidoff, code, len);
		phdr->pd_upper = tidoff;
		if (side == 0)
		{
			SeqTree		rtmp;
			char	   *rbuf = palloc(BLCKSZ);

			/* tst keeps the left part; the right part goes to rbuf */
			if (!seqtree_split(&tst, at, &rtmp, rbuf, BLCKSZ, NULL))
				elog(ERROR, "could not split SeqTree of compact leaf");
			if (!seqtree_copy(&tst, dst, (char *) page + off, tidoff - off,
							  ost.levels))
			{
				pfree(rbuf);
				pfree(tmp);
				pfree(code);
				pfree(alltids);
				return false;
			}
			/* keep the right part for the second pass */
			if (!seqtree_copy(&rtmp, &tst, tmp, BLCKSZ, ost.levels))
				elog(ERROR, "could not copy SeqTree of compact leaf");
			pfree(rbuf);
		}
		else if (!seqtree_copy(&tst, dst, (char *) page + off, tidoff - off,
							   ost.levels))
		{
			pfree(tmp);
			pfree(code);
			pfree(alltids);
			return false;
		}
		phdr->pd_lower = off + seqtree_used(dst);
	}
	pfree(tmp);
	pfree(code);
	pfree(alltids);
	return true;
}
