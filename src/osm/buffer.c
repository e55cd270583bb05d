/*-------------------------------------------------------------------------
 *
 * buffer.c
 *	  osm_tree's insert buffer: index pages that take new entries in arrival
 *	  order, each with a zonemap and a Bloom filter, and the flush that
 *	  moves them into the tree in sorted, bounded steps.
 *
 * The buffer is a chain of EI_BUFFER pages from the metapage's buf_head
 * (oldest) to buf_tail (newest).  Inserters append to the tail page; when
 * it is full, a new page is linked after it.  A flush step takes up to
 * OSM_FLUSH_STEP_PAGES pages from the head, closes the tail if it takes
 * it, sorts their entries and inserts them into the tree leaf by leaf
 * (EIInsertSorted), and only then unlinks the pages.  So every entry is
 * always in the buffer, the tree, or both; scans read the buffer before
 * the tree and drop an entry they meet twice.  See src/README.md, "The
 * osm_tree insert buffer", for the locking and recovery arguments.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/genam.h"
#include "access/nbtree.h"
#include "access/relscan.h"
#include "access/table.h"
#include "access/xlog.h"
#include "access/xact.h"
#include "access/xloginsert.h"
#include "bloomfilter.h"
#include "catalog/index.h"
#include "catalog/pg_class.h"
#include "eistats.h"
#include "eiosm.h"
#include "fmgr.h"
#include "miscadmin.h"
#include "storage/indexfsm.h"
#include "storage/lmgr.h"
#include "utils/builtins.h"
#include "utils/date.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/rel.h"

/* What inserting into the buffer of one index needs, cached per relation. */
typedef struct OsmBufferCache
{
	EIEntrySort esort;			/* tree order, no abbreviation */
	EINormKeyInfo *norm;		/* for Bloom hashes; NULL if none */
} OsmBufferCache;

static OsmBufferCache *osm_buffer_cache(Relation rel);
static bool osm_page_is_open_tail(Page page);
static Buffer osm_get_tail(Relation rel, Relation heapRel, Size itemsz);
static Buffer osm_new_tail(Relation rel, BlockNumber seen_tail, Size itemsz);
static int	osm_page_add_run(Relation rel, Buffer buf, IndexTuple *items,
							 int nitems);
static int64 osm_flush_step(Relation rel, Relation heapRel, int maxpages,
							 bool *took_tail);
static void osm_seal_page(Relation rel, Buffer buf);
static void osm_sort_page(Relation rel, Buffer buf);
static void osm_log_page_op(Relation rel, Buffer buf, uint8 op, char *data,
							Size len);
static void osm_log_meta(Buffer metabuf, uint8 block_id);
static void osm_page_hashes(Relation rel, Page page, uint64 **hashes,
							int *nhashes, int *maxhashes);
static void osm_chain_hashes(Relation rel, BlockNumber blkno,
							 BlockNumber stop, uint64 **hashes, int *nhashes,
							 int *maxhashes, OsmSectionZone *zone);
static Buffer osm_filter_buf(Relation rel, BlockNumber blkno, int access);
static void osm_check_buffer_page(Relation rel, Buffer buf, bool entries);
static void osm_check_chain_block(Relation rel, BlockNumber blkno);
static void osm_filter_rebuild(Relation rel);
static void osm_link_begin(xl_ei_buffer_link *xlrec, uint8 op, uint16 npages,
						   uint16 bloom_bytes, uint8 probes,
						   FullTransactionId safexid);

/*
 * Does this index take new entries into an insert buffer?
 */
bool
OsmBufferEnabled(Relation rel)
{
	return EIRelIsOsm(rel) && OsmGetBufferSize(rel) > 0;
}

/*
 * Return the per-relation insert state, built on first use in the index's
 * own memory context.
 */
static OsmBufferCache *
osm_buffer_cache(Relation rel)
{
	OsmRelCache *cache = EIGetPolicyCache(rel, EI_AM_OSM_TREE, sizeof(OsmRelCache));
	MemoryContext oldcxt;
	OsmBufferCache *bc;
	EINormKeyInfo *norm;

	if (cache->buffer != NULL)
		return cache->buffer;

	/* catalog lookups, which may rebuild rd_amcache: get the cache after */
	oldcxt = MemoryContextSwitchTo(rel->rd_indexcxt);
	bc = palloc0(sizeof(OsmBufferCache));
	norm = EIGetNormKeyInfo(rel);
	EIEntrySortInitCompare(&bc->esort, rel, rel->rd_indexcxt);
	bc->norm = norm->ok ? norm : NULL;
	MemoryContextSwitchTo(oldcxt);

	cache = EIGetPolicyCache(rel, EI_AM_OSM_TREE, sizeof(OsmRelCache));
	cache->buffer = bc;
	return bc;
}

/*
 * The Bloom filter hash of an entry's key columns: the hash of their
 * normalized (binary-comparable) encoding, so that equal keys hash alike.
 * norm is the index's normalized-key information (it must be ok).  The
 * verifier checks filters with the same function.
 */
uint64
OsmBufferEntryHash(Relation rel, EINormKeyInfo *norm, IndexTuple itup)
{
	Datum		values[INDEX_MAX_KEYS];
	bool		isnull[INDEX_MAX_KEYS];
	StringInfoData key;
	uint64		hash;

	index_deform_tuple(itup, RelationGetDescr(rel), values, isnull);
	initStringInfo(&key);
	EINormalizeKey(norm, values, isnull, NULL, &key);
	hash = bloom_hash(key.data, key.len);
	pfree(key.data);
	return hash;
}

/*
 * Hash the search values of a scan whose keys fix every key column by
 * equality (to values of the columns' own types, or integers of another
 * width); false otherwise.
 */
static bool
osm_scan_hash(IndexScanDesc scan, EINormKeyInfo *norm, uint64 *hash)
{
	Relation	rel = scan->indexRelation;
	EIScanOpaque so = (EIScanOpaque) scan->opaque;
	int			nkeyatts = IndexRelationGetNumberOfKeyAttributes(rel);
	Datum		values[INDEX_MAX_KEYS];
	bool		isnull[INDEX_MAX_KEYS];
	bool		have[INDEX_MAX_KEYS];
	StringInfoData key;

	if (norm == NULL || !so->qual_ok)
		return false;
	memset(have, 0, sizeof(have));
	for (int i = 0; i < so->numberOfKeys; i++)
	{
		ScanKey		sk = &so->keyData[i];
		int			col = sk->sk_attno - 1;

		Datum		value;

		/* an array key fixes no single value */
		if (sk->sk_strategy != BTEqualStrategyNumber ||
			(sk->sk_flags & (SK_ISNULL | SK_ROW_HEADER | SK_ROW_MEMBER |
							 SK_SEARCHARRAY)) ||
			col < 0 || col >= nkeyatts)
			continue;
		if (!EIScanKeyValueAsColumn(rel, sk, col, &value))
			continue;
		values[col] = value;
		isnull[col] = false;
		have[col] = true;
	}
	for (int i = 0; i < nkeyatts; i++)
		if (!have[i])
			return false;

	initStringInfo(&key);
	EINormalizeKey(norm, values, isnull, NULL, &key);
	*hash = bloom_hash(key.data, key.len);
	pfree(key.data);
	return true;
}

/*
 * Make an empty buffer page: the summary item, with a filter of bloom_bytes
 * bytes (none if 0), and no entries.  Also used by redo.
 */
void
OsmBufferPageInit(Page page, uint16 bloom_bytes, uint8 probes)
{
	/* the item is built here: no allocation in a critical section */
	PGAlignedBlock scratch;
	Size		sz = offsetof(OsmBufferSummary, bloom) + bloom_bytes;
	OsmBufferSummary *summary = (OsmBufferSummary *) scratch.data;

	Assert(sz <= BLCKSZ);
	memset(summary, 0, sz);
	summary->minoff = InvalidOffsetNumber;
	summary->maxoff = InvalidOffsetNumber;
	summary->bloom_bytes = bloom_bytes;
	summary->bloom_probes = probes;

	EIInitPage(page, EI_BUFFER, 0);
	/* an empty page always takes it: callers are in critical sections */
	if (PageAddItem(page, (Item) summary, sz, OSM_BUFFER_SUMMARY,
					false, false) == InvalidOffsetNumber)
		elog(PANIC, "could not add the summary of an osm_tree buffer page");
}

/*
 * Make an empty section filter page with a filter of bloom_bytes bytes and
 * probes probes per key, and with_zone an empty section zonemap.  Also
 * used by redo, where a record of an older build makes the page without
 * one, as that build did.
 */
void
OsmSectionFilterInit(Page page, uint16 bloom_bytes, uint8 probes,
					 bool with_zone)
{
	/* zeros to copy the item from: no allocation in a critical section */
	static const char zeros[BLCKSZ];
	Size		sz = offsetof(OsmSectionFilter, bloom) + bloom_bytes;
	OsmSectionFilter *filter;
	OsmSectionZone *zone;

	if (with_zone)
	{
		Assert(bloom_bytes <= OSM_SECTION_BLOOM_BYTES);
		sz = MAXALIGN(sz) + sizeof(OsmSectionZone);
	}
	EIInitPage(page, EI_BUFFER_FILTER, 0);
	if (PageAddItem(page, (Item) zeros, sz, OSM_SECTION_FILTER,
					false, false) == InvalidOffsetNumber)
		elog(PANIC, "could not add the section filter of an osm_tree insert buffer");
	filter = OsmPageGetSectionFilter(page);
	filter->bloom_bytes = bloom_bytes;
	filter->bloom_probes = probes;
	zone = OsmSectionFilterGetZone(page);
	if (zone != NULL)
		zone->state = OSM_ZONE_EMPTY;
}

/*
 * Where the section zonemap of the section filter on page lies, or NULL if
 * the page predates it (its item ends with the filter).
 */
OsmSectionZone *
OsmSectionFilterGetZone(Page page)
{
	ItemId		itemid = PageGetItemId(page, OSM_SECTION_FILTER);
	OsmSectionFilter *filter = (OsmSectionFilter *) PageGetItem(page, itemid);

	if (ItemIdGetLength(itemid) < OSM_SECTION_ZONE_OFFSET(filter) +
		sizeof(OsmSectionZone))
		return NULL;
	return (OsmSectionZone *) ((char *) filter + OSM_SECTION_ZONE_OFFSET(filter));
}

/*
 * The section zonemap of the section filter on page if it can be trusted:
 * NULL if the page has none, or if keys were added since it was set (by a
 * build that does not keep it: its bounds may be too narrow).
 */
const OsmSectionZone *
OsmSectionFilterCurrentZone(Page page)
{
	OsmSectionZone *zone = OsmSectionFilterGetZone(page);

	if (zone == NULL || zone->nkeys != OsmPageGetSectionFilter(page)->nkeys)
		return NULL;
	return zone;
}

/*
 * Add n key hashes to the section filter on page, and make its zonemap
 * zone (what the caller computed with the keys' values), stamped with the
 * filter's new key count.  Also used by redo.  Without a zone (redo of an
 * older build's record) the zonemap's bytes stay as that build left them:
 * the key count it no longer matches makes it unknown.
 */
void
OsmSectionFilterAdd(Page page, const uint64 *hashes, int n,
					const OsmSectionZone *zone)
{
	OsmSectionFilter *filter = OsmPageGetSectionFilter(page);
	OsmSectionZone *pagezone = OsmSectionFilterGetZone(page);

	for (int i = 0; i < n; i++)
		bloom_filter_add(filter->bloom, filter->bloom_bytes,
						 filter->bloom_probes, hashes[i]);
	filter->nkeys += n;
	if (pagezone != NULL && zone != NULL)
	{
		memcpy(pagezone, zone, sizeof(OsmSectionZone));
		pagezone->nkeys = filter->nkeys;
	}
}

/*
 * The first-column values of a non-empty buffer page's least and greatest
 * entries (its zonemap) in the column's own order: a DESC column's least
 * entry has the greatest value.  False if either is NULL.
 */
static bool
osm_page_value_range(Relation rel, Page page, OsmBufferSummary *summary,
					 Datum *lo, Datum *hi)
{
	TupleDesc	desc = RelationGetDescr(rel);
	bool		desc_col = (rel->rd_indoption[0] & INDOPTION_DESC) != 0;
	bool		lonull;
	bool		hinull;

	*lo = index_getattr(EIReadTupleChecked(rel, page, desc_col ? summary->maxoff : summary->minoff),
						1, desc, &lonull);
	*hi = index_getattr(EIReadTupleChecked(rel, page, desc_col ? summary->minoff : summary->maxoff),
						1, desc, &hinull);
	return !lonull && !hinull;
}

/*
 * Widen a section zonemap by the entries of buffer page page: by the
 * first-column values of its least and greatest entries (its own zonemap).
 * It becomes unknown when the column is passed by reference or an end is
 * NULL; an empty page changes nothing.
 */
static void
osm_zone_widen(Relation rel, OsmSectionZone *zone, Page page)
{
	OsmBufferSummary *summary = OsmPageGetSummary(page);
	FmgrInfo   *cmp;
	Oid			collation = rel->rd_indcollation[0];
	Datum		lo;
	Datum		hi;

	if (zone->state == OSM_ZONE_UNKNOWN ||
		summary->minoff == InvalidOffsetNumber)
		return;
	if (!TupleDescAttr(RelationGetDescr(rel), 0)->attbyval ||
		!osm_page_value_range(rel, page, summary, &lo, &hi))
	{
		memset(zone, 0, sizeof(OsmSectionZone));
		return;
	}
	if (zone->state == OSM_ZONE_EMPTY)
	{
		zone->state = OSM_ZONE_RANGE;
		zone->lo = lo;
		zone->hi = hi;
		return;
	}
	cmp = index_getprocinfo(rel, 1, EI_CMP_PROC);
	if (DatumGetInt32(FunctionCall2Coll(cmp, collation, lo, zone->lo)) < 0)
		zone->lo = lo;
	if (DatumGetInt32(FunctionCall2Coll(cmp, collation, hi, zone->hi)) > 0)
		zone->hi = hi;
}

/*
 * Append the key hashes of the entries of buffer page page to *hashes
 * (*nhashes used of *maxhashes, grown as needed).
 */
static void
osm_page_hashes(Relation rel, Page page, uint64 **hashes, int *nhashes,
				int *maxhashes)
{
	EINormKeyInfo *norm = osm_buffer_cache(rel)->norm;
	OffsetNumber maxoff = PageGetMaxOffsetNumber(page);

	if (norm == NULL)
		elog(ERROR, "osm_tree insert buffer has a section filter but index \"%s\" has no normalized keys",
			 RelationGetRelationName(rel));
	for (OffsetNumber off = OSM_BUFFER_FIRST; off <= maxoff; off++)
	{
		if (*nhashes == *maxhashes)
		{
			*maxhashes = Max(256, *maxhashes * 2);
			*hashes = (*hashes == NULL) ?
				palloc(sizeof(uint64) * *maxhashes) :
				repalloc(*hashes, sizeof(uint64) * *maxhashes);
		}
		(*hashes)[(*nhashes)++] = OsmBufferEntryHash(rel, norm,
													 EIReadTuple(page, off));
	}
}

/*
 * Append the key hashes of the entries of the chain's pages from blkno up
 * to, not including, block stop (0 or the end of the chain also stops it),
 * and widen *zone by their values.
 */
static void
osm_chain_hashes(Relation rel, BlockNumber blkno, BlockNumber stop,
				 uint64 **hashes, int *nhashes, int *maxhashes,
				 OsmSectionZone *zone)
{
	while (blkno != 0 && blkno != stop && BlockNumberIsValid(blkno))
	{
		Buffer		buf;

		CHECK_FOR_INTERRUPTS();
		osm_check_chain_block(rel, blkno);
		buf = EIGetBuf(rel, blkno, EI_READ);
		osm_check_buffer_page(rel, buf, true);
		osm_page_hashes(rel, BufferGetPage(buf), hashes, nhashes, maxhashes);
		osm_zone_widen(rel, zone, BufferGetPage(buf));
		blkno = EIPageGetOpaque(BufferGetPage(buf))->ei_next;
		UnlockReleaseBuffer(buf);
	}
}

/*
 * Check a block number that the metapage or a buffer page names before
 * the buffer's code reads it: neither the metapage nor past the end of the
 * index.  The index's size is kept in its cache and read again (an lseek)
 * only when a block reaches past it; no catalog access, so it may run
 * under the metapage's lock.  Without it a damaged link read a block of a
 * file segment that does not exist, an error that does not name the index.
 */
static void
osm_check_chain_block(Relation rel, BlockNumber blkno)
{
	EIRelCache *cache = EIGetRelCache(rel);

	if (likely(blkno != EI_METAPAGE && blkno < cache->index_nblocks))
		return;
	if (blkno != EI_METAPAGE && BlockNumberIsValid(blkno))
		cache->index_nblocks = RelationGetNumberOfBlocks(rel);
	if (blkno == EI_METAPAGE || blkno >= cache->index_nblocks)
		ereport(ERROR,
				(errcode(ERRCODE_INDEX_CORRUPTED),
				 errmsg("index \"%s\" is corrupted: its insert buffer links to block %u of %u",
						RelationGetRelationName(rel), blkno, cache->index_nblocks),
				 errhint("Please REINDEX it.")));
}

/*
 * Report a damaged page of the insert buffer: ERRCODE_INDEX_CORRUPTED
 * naming the index and block.
 */
pg_noreturn static void
osm_page_corrupted(Relation rel, Buffer buf, const char *detail)
{
	ereport(ERROR,
			(errcode(ERRCODE_INDEX_CORRUPTED),
			 errmsg("index \"%s\" contains corrupted insert buffer page at block %u",
					RelationGetRelationName(rel), BufferGetBlockNumber(buf)),
			 errdetail_internal("%s", detail),
			 errhint("Please REINDEX it.")));
	pg_unreachable();
}

/*
 * Is the line pointer at off of page one with storage inside its tuple
 * space, of at least minlen bytes?
 */
static bool
osm_item_in_page(Page page, OffsetNumber off, Size minlen)
{
	PageHeader	phdr = (PageHeader) page;
	ItemId		itemid;

	if (off > PageGetMaxOffsetNumber(page))
		return false;
	itemid = PageGetItemId(page, off);
	return ItemIdHasStorage(itemid) && !ItemIdIsRedirected(itemid) &&
		ItemIdGetOffset(itemid) >= phdr->pd_upper &&
		ItemIdGetOffset(itemid) == MAXALIGN(ItemIdGetOffset(itemid)) &&
		ItemIdGetOffset(itemid) + ItemIdGetLength(itemid) <= phdr->pd_special &&
		ItemIdGetLength(itemid) >= minlen;
}

/*
 * Check a locked buffer page (EICheckPage passed) before it is read or
 * changed: a buffer page (deleted ones keep only their link), its summary
 * item of the size its filter needs, a zonemap and sorted section within
 * its entries and the attributes of the two it names; with entries, also
 * every entry's line pointer, size, heap TID and attributes.  Constant
 * time without entries: a scan checks the summary of every page of the
 * chain, and the entries of the pages it reads.
 */
static void
osm_check_buffer_page(Relation rel, Buffer buf, bool entries)
{
	Page		page = BufferGetPage(buf);
	EIPageOpaque opaque = EIPageGetOpaque(page);
	OffsetNumber maxoff = PageGetMaxOffsetNumber(page);
	OsmBufferSummary *summary;

	if (opaque->ei_flags & EI_DELETED)
		return;
	if ((opaque->ei_flags & (EI_BUFFER | EI_BUFFER_FILTER | EI_LEAF | EI_META)) != EI_BUFFER)
		osm_page_corrupted(rel, buf,
						   psprintf("It is in the insert buffer's chain but has the flags 0x%04x.",
									(unsigned) opaque->ei_flags));
	if (maxoff > MaxIndexTuplesPerPage ||
		!osm_item_in_page(page, OSM_BUFFER_SUMMARY, offsetof(OsmBufferSummary, bloom)))
		osm_page_corrupted(rel, buf, "Its summary's line pointer is invalid.");
	summary = OsmPageGetSummary(page);
	if (summary->bloom_bytes > OSM_MAX_BLOOM_BYTES ||
		ItemIdGetLength(PageGetItemId(page, OSM_BUFFER_SUMMARY)) !=
		offsetof(OsmBufferSummary, bloom) + summary->bloom_bytes ||
		(summary->bloom_bytes > 0 && summary->bloom_probes == 0))
		osm_page_corrupted(rel, buf, "Its summary's filter does not fit its item.");
	if ((summary->minoff == InvalidOffsetNumber) != (summary->maxoff == InvalidOffsetNumber) ||
		(summary->minoff != InvalidOffsetNumber &&
		 (summary->minoff < OSM_BUFFER_FIRST || summary->minoff > maxoff ||
		  summary->maxoff < OSM_BUFFER_FIRST || summary->maxoff > maxoff)))
		osm_page_corrupted(rel, buf,
						   psprintf("Its zonemap names offsets %u and %u of %u.",
									(unsigned) summary->minoff,
									(unsigned) summary->maxoff, (unsigned) maxoff));
	/* the zonemap's two entries are compared even without the others */
	if (summary->minoff != InvalidOffsetNumber)
	{
		EICheckTupleAttrs(rel, page, summary->minoff,
						  EIReadTupleChecked(rel, page, summary->minoff), false);
		EICheckTupleAttrs(rel, page, summary->maxoff,
						  EIReadTupleChecked(rel, page, summary->maxoff), false);
	}
	if (!entries)
		return;
	for (OffsetNumber off = OSM_BUFFER_FIRST; off <= maxoff; off++)
	{
		IndexTuple	itup = EIReadTupleChecked(rel, page, off);

		if (!ItemPointerIsValid(&itup->t_tid) ||
			!BlockNumberIsValid(ItemPointerGetBlockNumberNoCheck(&itup->t_tid)))
			EIItemCorrupted(rel, page, off, "an entry with an invalid heap TID");
		if (EITupleIsPosting(itup))
			EIItemCorrupted(rel, page, off,
							"a posting list (the insert buffer keeps plain entries)");
		EICheckTupleAttrs(rel, page, off, itup, false);
	}
}

/*
 * Lock and return the section filter page blkno, refusing a page of
 * another kind or a filter item that does not fit its page.
 */
static Buffer
osm_filter_buf(Relation rel, BlockNumber blkno, int access)
{
	Buffer		buf;
	Page		page;
	OsmSectionFilter *filter;

	osm_check_chain_block(rel, blkno);
	buf = EIGetBuf(rel, blkno, access);
	page = BufferGetPage(buf);

	if ((EIPageGetOpaque(page)->ei_flags & (EI_BUFFER_FILTER | EI_BUFFER | EI_LEAF |
											 EI_META | EI_DELETED)) != EI_BUFFER_FILTER)
		osm_page_corrupted(rel, buf,
						   psprintf("It is the insert buffer's section filter but has the flags 0x%04x.",
									(unsigned) EIPageGetOpaque(page)->ei_flags));
	if (!osm_item_in_page(page, OSM_SECTION_FILTER, offsetof(OsmSectionFilter, bloom)))
		osm_page_corrupted(rel, buf, "Its filter's line pointer is invalid.");
	filter = OsmPageGetSectionFilter(page);
	if (filter->bloom_bytes > OSM_SECTION_BLOOM_BYTES ||
		(filter->bloom_bytes > 0 && filter->bloom_probes == 0) ||
		offsetof(OsmSectionFilter, bloom) + filter->bloom_bytes >
		ItemIdGetLength(PageGetItemId(page, OSM_SECTION_FILTER)))
		osm_page_corrupted(rel, buf, "Its filter does not fit its item.");
	return buf;
}

/*
 * Put the entries of a buffer page in the given order (old offsets, in
 * their new order) by permuting its line pointers, and make them all the
 * page's sorted section: its zonemap is then its first and last entry.
 * Also used by redo, with the order the primary logged.
 */
void
OsmBufferPageSort(Page page, const OffsetNumber *order, int n)
{
	OsmBufferSummary *summary = OsmPageGetSummary(page);

	/* on the stack: this runs in a critical section */
	ItemIdData	lps[MaxIndexTuplesPerPage];

	Assert(n == OsmPageGetNEntries(page) && n <= MaxIndexTuplesPerPage);
	for (int i = 0; i < n; i++)
		lps[i] = *PageGetItemId(page, order[i]);
	for (int i = 0; i < n; i++)
		*PageGetItemId(page, OSM_BUFFER_FIRST + i) = lps[i];
	if (n > 0)
	{
		summary->minoff = OSM_BUFFER_FIRST;
		summary->maxoff = OSM_BUFFER_FIRST + n - 1;
	}
	summary->nsorted = n;
}

/* What osm_offset_cmp compares offsets by. */
typedef struct OsmOrderArg
{
	EIEntrySort *esort;
	EISortEntry *ents;			/* entry of offset OSM_BUFFER_FIRST + i at i */
} OsmOrderArg;

/* qsort_arg comparator: two offsets of a page by their entries' order */
static int
osm_offset_cmp(const void *a, const void *b, void *arg)
{
	OsmOrderArg *oa = (OsmOrderArg *) arg;

	return EIEntryCompare(oa->esort,
						  &oa->ents[*(const OffsetNumber *) a - OSM_BUFFER_FIRST],
						  &oa->ents[*(const OffsetNumber *) b - OSM_BUFFER_FIRST]);
}

/*
 * The order that sorts a buffer page's entries: their offsets, least entry
 * first; sets *n to how many.  Only the unsorted section is sorted; it is
 * then merged with the sorted section.
 */
static OffsetNumber *
osm_page_order(Relation rel, Page page, int *n)
{
	OsmBufferCache *bc = osm_buffer_cache(rel);
	int			nitems = OsmPageGetNEntries(page);
	int			nsorted = Min(OsmPageGetSummary(page)->nsorted, nitems);
	OffsetNumber *order = palloc(sizeof(OffsetNumber) * Max(nitems, 1));
	OffsetNumber *tail = palloc(sizeof(OffsetNumber) * Max(nitems, 1));
	OsmOrderArg arg;
	int			i = 0;
	int			j = nsorted;
	int			k = 0;

	arg.esort = &bc->esort;
	arg.ents = palloc(sizeof(EISortEntry) * Max(nitems, 1));
	for (int e = 0; e < nitems; e++)
	{
		EIEntrySortSet(&bc->esort, &arg.ents[e],
					   EIReadTuple(page, OSM_BUFFER_FIRST + e));
		tail[e] = OSM_BUFFER_FIRST + e;
	}
	qsort_arg(tail + nsorted, nitems - nsorted, sizeof(OffsetNumber),
			  osm_offset_cmp, &arg);
	/* merge; on a tie the sorted section's entry goes first */
	while (i < nsorted || j < nitems)
	{
		if (j >= nitems ||
			(i < nsorted && osm_offset_cmp(&tail[i], &tail[j], &arg) <= 0))
			order[k++] = tail[i++];
		else
			order[k++] = tail[j++];
	}
	pfree(tail);
	pfree(arg.ents);
	*n = nitems;
	return order;
}

/*
 * Is this page a buffer page that still takes entries (the tail)?
 */
static bool
osm_page_is_open_tail(Page page)
{
	EIPageOpaque opaque;

	if (PageIsNew(page) ||
		PageGetSpecialSize(page) != MAXALIGN(sizeof(EIPageOpaqueData)))
		return false;
	opaque = EIPageGetOpaque(page);
	return opaque->ei_page_id == EI_PAGE_ID &&
		(opaque->ei_flags & (EI_BUFFER | EI_BUFFER_CLOSED | EI_DELETED)) ==
		EI_BUFFER &&
		opaque->ei_next == InvalidBlockNumber;
}

/*
 * Take entries (in any order) headed for the index's insert buffer.  With
 * osm_tree.top_inserts they go straight into the tree instead (EIInsertTop:
 * through the predicted leaf where they belong there, else by a descent);
 * without it they are appended to the buffer: as many as fit on the tail
 * page under one lock and in one WAL record, then on new tail pages.
 *
 * A serializable transaction's entries always go straight into the tree,
 * where the insert checks their leaf for rw-conflicts with readers'
 * predicate locks; so the buffer holds only entries of transactions that
 * SSI does not track, and its flush need check nothing (src/README.md,
 * "Predicate locks").  A transaction's isolation level is fixed from its
 * first snapshot on, before any insert, so this decision never changes
 * within a transaction.
 */
void
OsmBufferInsert(Relation rel, Relation heapRel, IndexTuple *items, int nitems)
{
	int			i = 0;

	EICheckPreloaded();
	if (osm_top_inserts || IsolationIsSerializable())
	{
		for (int k = 0; k < nitems; k++)
			EIInsertTop(rel, heapRel, items[k]);
		return;
	}
	EINoteHeapRel(rel, heapRel);
	(void) osm_buffer_cache(rel);

	while (i < nitems)
	{
		Buffer		buf;

		CHECK_FOR_INTERRUPTS();
		EICheckItemSize(rel, heapRel, items[i]);
		buf = osm_get_tail(rel, heapRel, MAXALIGN(IndexTupleSize(items[i])));
		i += osm_page_add_run(rel, buf, items + i, nitems - i);
	}
	EIStatsCount(rel, EI_STAT_BUFFER_INSERTS, nitems);
}

/*
 * Return the tail page, write-locked, with room for an entry of itemsz
 * bytes: the current tail if it has room, else a new one.  When the buffer
 * is full, first move its oldest pages into the tree (a bounded step, and
 * only if no other backend is flushing); when a flush's worth of pages is
 * waiting, ask for a background flush.
 */
static Buffer
osm_get_tail(Relation rel, Relation heapRel, Size itemsz)
{
	Buffer		metabuf;
	EIMetaPage	meta;
	BlockNumber tail;
	uint32		npages;
	int			bufsize = OsmGetBufferSize(rel);
	int			unit = Max(1, (int) (bufsize * OsmGetFlushFraction(rel)));

	/* meta, then tail: the order every locker of both follows */
	metabuf = EIGetMetaBuf(rel, EI_READ);
	meta = EIPageGetMeta(BufferGetPage(metabuf));
	tail = OsmMetaOf(meta)->buf_tail;
	npages = OsmMetaOf(meta)->buf_pages;
	if (tail != 0)
	{
		Buffer		buf;
		Page		page;

		osm_check_chain_block(rel, tail);
		buf = ReadBuffer(rel, tail);
		page = BufferGetPage(buf);
		LockBuffer(buf, EI_WRITE);
		EIRelBuf(rel, metabuf);
		EICheckPage(rel, buf);
		osm_check_buffer_page(rel, buf, false);
		if (osm_page_is_open_tail(page))
		{
			if (PageGetFreeSpace(page) >= itemsz)
				return buf;

			/*
			 * Full: close it here, holding only this page, so that linking
			 * the next page holds the metapage briefly.  Its entries are
			 * sorted by the first query that reads it (osm_sort_page).
			 */
			osm_seal_page(rel, buf);
		}
		UnlockReleaseBuffer(buf);
	}
	else
		EIRelBuf(rel, metabuf);

	/* a new page is needed */
	if (npages >= (uint32) bufsize)
	{
		if (OsmBufferFlush(rel, heapRel, unit, false) > 0)
			EIStatsCount(rel, EI_STAT_BUFFER_FOREGROUND_FLUSHES, 1);
	}
	else if (npages >= (uint32) unit)
		OsmRequestBackgroundFlush(rel);

	return osm_new_tail(rel, tail, itemsz);
}

/*
 * Link a new tail page after the buffer's last page (seen_tail when we
 * looked) and return it write-locked.  If another backend linked one in
 * the meantime and it has room, use that one instead.
 *
 * The old tail leaves the section filter's blind spot here: its keys go
 * into the section filter in the same critical section and record.  The
 * filter page is made at the first link that needs it, with the keys of
 * every page from the head to the old tail.
 */
static Buffer
osm_new_tail(Relation rel, BlockNumber seen_tail, Size itemsz)
{
	Buffer		newbuf;
	Buffer		metabuf;
	Buffer		oldbuf = InvalidBuffer;
	Buffer		filterbuf = InvalidBuffer;
	bool		filter_new = false;
	EIMetaPage	meta;
	Page		newpage;
	BlockNumber newblk;
	BlockNumber oldtail;
	Size		usable;
	uint32		estimate;
	uint16		bloom_bytes = 0;
	uint8		probes = 0;
	uint16		filter_bytes = 0;
	uint8		filter_probes = 0;
	int			bits = OsmGetBloomBitsPerKey(rel);
	bool		want_filter = bits > 0 && osm_buffer_cache(rel)->norm != NULL;
	uint64	   *hashes = NULL;
	int			nhashes = 0;
	int			maxhashes = 0;
	OsmSectionZone zone;
	bool		have_zone = false;

	usable = BLCKSZ - SizeOfPageHeaderData - MAXALIGN(sizeof(EIPageOpaqueData));
	estimate = usable / (itemsz + sizeof(ItemIdData));

	/*
	 * the zonemap's comparison function, looked up before any lock (an
	 * existing filter is kept up even when new ones are off)
	 */
	(void) index_getprocinfo(rel, 1, EI_CMP_PROC);
	/* allocate first: EINewBuf may read the metapage itself */
	newbuf = EINewBuf(rel);
	newblk = BufferGetBlockNumber(newbuf);
	/*
	 * A section filter is made at a link that closes the buffer's only page,
	 * so that it starts with one page of keys: the record stays small and
	 * the metapage's lock short.  (An index without one and a longer chain,
	 * made by an older build or while filters were off, gets it once a flush
	 * has shortened the chain to one page.)
	 */
	if (want_filter && seen_tail != 0)
	{
		EIMetaPageData *cached = EIGetMetaCached(rel, false);

		if (OsmMetaOf(cached)->buf_filter == 0)
			cached = EIGetMetaCached(rel, true);
		if (OsmMetaOf(cached)->buf_filter == 0 && OsmMetaOf(cached)->buf_head == seen_tail)
			filterbuf = EINewBuf(rel);
	}

	metabuf = EIGetMetaBuf(rel, EI_WRITE);
	meta = EIPageGetMeta(BufferGetPage(metabuf));
	oldtail = OsmMetaOf(meta)->buf_tail;
	if (oldtail != seen_tail && oldtail != 0)
	{
		Buffer		buf;

		osm_check_chain_block(rel, oldtail);
		buf = ReadBuffer(rel, oldtail);
		LockBuffer(buf, EI_WRITE);
		EICheckPage(rel, buf);
		osm_check_buffer_page(rel, buf, true);
		if (osm_page_is_open_tail(BufferGetPage(buf)) &&
			PageGetFreeSpace(BufferGetPage(buf)) >= itemsz)
		{
			/* somebody else made a new tail: give our pages back */
			EIRelBuf(rel, metabuf);
			UnlockReleaseBuffer(newbuf);
			RecordFreeIndexPage(rel, newblk);
			if (BufferIsValid(filterbuf))
			{
				RecordFreeIndexPage(rel, BufferGetBlockNumber(filterbuf));
				UnlockReleaseBuffer(filterbuf);
			}
			return buf;
		}
		oldbuf = buf;
	}
	else if (oldtail != 0)
	{
		osm_check_chain_block(rel, oldtail);
		oldbuf = ReadBuffer(rel, oldtail);
		LockBuffer(oldbuf, EI_WRITE);
		EICheckPage(rel, oldbuf);
		osm_check_buffer_page(rel, oldbuf, true);
	}

	/*
	 * The section filter takes the old tail's keys: the existing one, or a
	 * new one when the old tail is the only page (see above).  Its hashes
	 * are one page's entries, at most about 400 (8 bytes each), so block 3's
	 * data stays far below a block's 64 kB limit.  Locks: metapage, old
	 * tail, then the filter page (a new filter page, which nobody else can
	 * reach, is locked from its allocation on).
	 */
	if (OsmMetaOf(meta)->buf_filter != 0 && BufferIsValid(oldbuf))
	{
		osm_page_hashes(rel, BufferGetPage(oldbuf), &hashes, &nhashes,
						&maxhashes);
		if (BufferIsValid(filterbuf))
		{
			RecordFreeIndexPage(rel, BufferGetBlockNumber(filterbuf));
			UnlockReleaseBuffer(filterbuf);
		}
		filterbuf = osm_filter_buf(rel, OsmMetaOf(meta)->buf_filter, EI_WRITE);
	}
	else if (OsmMetaOf(meta)->buf_filter == 0 && BufferIsValid(filterbuf) &&
			 BufferIsValid(oldbuf) && OsmMetaOf(meta)->buf_head == oldtail)
	{
		uint32		nkeys;

		osm_page_hashes(rel, BufferGetPage(oldbuf), &hashes, &nhashes,
						&maxhashes);

		/* sized for a full buffer; past that it only passes more keys */
		nkeys = Max(1, OsmGetBufferSize(rel)) * estimate;
		filter_bytes = bloom_filter_bytes(nkeys, bits, OSM_SECTION_BLOOM_BYTES);
		filter_probes = bloom_filter_nprobes(Min((uint32) bits,
												 Max(1, filter_bytes * 8 / nkeys)));
		filter_new = true;
	}
	else if (BufferIsValid(filterbuf))
	{
		/* not needed after all */
		RecordFreeIndexPage(rel, BufferGetBlockNumber(filterbuf));
		UnlockReleaseBuffer(filterbuf);
		filterbuf = InvalidBuffer;
	}

	/*
	 * The section zonemap widened by the old tail's values, computed here
	 * (the comparisons run outside the critical section) and logged as it
	 * ends up.  A filter page of an older build has none.
	 */
	if (BufferIsValid(filterbuf))
	{
		Page		fpage = BufferGetPage(filterbuf);

		memset(&zone, 0, sizeof(zone));
		if (filter_new)
		{
			zone.state = OSM_ZONE_EMPTY;
			have_zone = true;
		}
		else if (OsmSectionFilterGetZone(fpage) != NULL)
		{
			const OsmSectionZone *cur = OsmSectionFilterCurrentZone(fpage);

			/* one left behind by an older build stays unknown */
			if (cur != NULL)
				memcpy(&zone, cur, sizeof(zone));
			have_zone = true;
		}
		if (have_zone)
			osm_zone_widen(rel, &zone, BufferGetPage(oldbuf));
	}

	/* size the page's filter for as many entries as are likely to fit */
	if (bits > 0 && osm_buffer_cache(rel)->norm != NULL)
	{
		bloom_bytes = bloom_filter_bytes(estimate, bits, OSM_MAX_BLOOM_BYTES);
		probes = bloom_filter_nprobes(bits);
	}

	START_CRIT_SECTION();

	newpage = BufferGetPage(newbuf);
	OsmBufferPageInit(newpage, bloom_bytes, probes);
	MarkBufferDirty(newbuf);
	if (BufferIsValid(oldbuf))
	{
		EIPageOpaque oopaque = EIPageGetOpaque(BufferGetPage(oldbuf));

		oopaque->ei_next = newblk;
		oopaque->ei_flags |= EI_BUFFER_CLOSED;
		MarkBufferDirty(oldbuf);
	}
	if (BufferIsValid(filterbuf))
	{
		if (filter_new)
		{
			OsmSectionFilterInit(BufferGetPage(filterbuf), filter_bytes,
								 filter_probes, true);
			OsmMetaOf(meta)->buf_filter = BufferGetBlockNumber(filterbuf);
		}
		OsmSectionFilterAdd(BufferGetPage(filterbuf), hashes, nhashes,
							have_zone ? &zone : NULL);
		MarkBufferDirty(filterbuf);
	}
	OsmMetaOf(meta)->buf_tail = newblk;
	if (OsmMetaOf(meta)->buf_head == 0)
		OsmMetaOf(meta)->buf_head = newblk;
	OsmMetaOf(meta)->buf_pages++;
	MarkBufferDirty(metabuf);

	if (RelationNeedsWAL(rel))
	{
		xl_ei_buffer_link xlrec;
		xl_ei_section_filter xlfilter;
		XLogRecPtr	recptr;

		osm_link_begin(&xlrec, OSM_LINK_NEWPAGE, 1, bloom_bytes, probes,
					   InvalidFullTransactionId);
		osm_log_meta(metabuf, 0);
		XLogRegisterBuffer(1, newbuf, REGBUF_WILL_INIT);
		if (BufferIsValid(oldbuf))
			XLogRegisterBuffer(2, oldbuf, REGBUF_STANDARD);
		if (BufferIsValid(filterbuf))
		{
			xlfilter.nhashes = nhashes;
			xlfilter.init_bytes = filter_new ? filter_bytes : 0;
			xlfilter.init_probes = filter_new ? filter_probes : 0;
			xlfilter.flags = have_zone ? XLF_ZONE : 0;
			XLogRegisterBuffer(3, filterbuf,
							   filter_new ? REGBUF_WILL_INIT : REGBUF_STANDARD);
			XLogRegisterBufData(3, (char *) &xlfilter, sizeof(xlfilter));
			if (nhashes > 0)
				XLogRegisterBufData(3, (char *) hashes, sizeof(uint64) * nhashes);
			if (have_zone)
				XLogRegisterBufData(3, (char *) &zone, sizeof(zone));
		}
		recptr = XLogInsert(EI_RMGR_ID, XLOG_EI_BUFFER_LINK);
		PageSetLSN(newpage, recptr);
		PageSetLSN(BufferGetPage(metabuf), recptr);
		if (BufferIsValid(oldbuf))
			PageSetLSN(BufferGetPage(oldbuf), recptr);
		if (BufferIsValid(filterbuf))
			PageSetLSN(BufferGetPage(filterbuf), recptr);
	}

	END_CRIT_SECTION();

	if (BufferIsValid(filterbuf))
		UnlockReleaseBuffer(filterbuf);
	if (BufferIsValid(oldbuf))
		UnlockReleaseBuffer(oldbuf);
	EISetMetaCached(rel, meta);
	EIRelBuf(rel, metabuf);
	if (hashes != NULL)
		pfree(hashes);
	return newbuf;
}

/*
 * Start a BUFFER_LINK record: fill in xlrec (which must live until
 * XLogInsert) and register it as the record's main data.
 */
static void
osm_link_begin(xl_ei_buffer_link *xlrec, uint8 op, uint16 npages,
			   uint16 bloom_bytes, uint8 probes, FullTransactionId safexid)
{
	xlrec->op = op;
	xlrec->npages = npages;
	xlrec->bloom_bytes = bloom_bytes;
	xlrec->bloom_probes = probes;
	xlrec->safexid = safexid;
	XLogBeginInsert();
	XLogRegisterData((char *) xlrec, SizeOfEIBufferLink);
}

/*
 * Register the metapage, whole, as block block_id of the record being
 * built (redo rewrites it like XLOG_EI_META).
 */
static void
osm_log_meta(Buffer metabuf, uint8 block_id)
{
	XLogRegisterBuffer(block_id, metabuf, REGBUF_STANDARD | REGBUF_WILL_INIT);
	XLogRegisterBufData(block_id,
						(char *) EIPageGetMeta(BufferGetPage(metabuf)),
						sizeof(xl_ei_metadata));
}

/*
 * Add as many of the entries as fit to the write-locked tail page buf,
 * updating its zonemap and filter, in one WAL record; release buf and
 * return how many went in (at least one: the caller made room for it).
 */
static int
osm_page_add_run(Relation rel, Buffer buf, IndexTuple *items, int nitems)
{
	OsmBufferCache *bc = osm_buffer_cache(rel);
	Page		page = BufferGetPage(buf);
	OsmBufferSummary *summary = OsmPageGetSummary(page);
	PageHeader	phdr = (PageHeader) page;
	Size		room = phdr->pd_upper - phdr->pd_lower;
	OffsetNumber first = OffsetNumberNext(PageGetMaxOffsetNumber(page));
	OffsetNumber minoff = summary->minoff;
	OffsetNumber maxoff = summary->maxoff;
	EISortEntry minent;
	EISortEntry maxent;
	uint64	   *hashes;
	Size		tupbytes = 0;
	char	   *tupdata;
	int			n = 0;
	bool		hashed = (summary->bloom_bytes > 0);

	/* how many fit */
	while (n < nitems)
	{
		Size		need = MAXALIGN(IndexTupleSize(items[n])) + sizeof(ItemIdData);

		if (need > room)
			break;
		room -= need;
		tupbytes += MAXALIGN(IndexTupleSize(items[n]));
		n++;
	}
	Assert(n > 0);

	/* the new zonemap: compare with the page's current least and greatest */
	if (minoff != InvalidOffsetNumber)
	{
		EIEntrySortSet(&bc->esort, &minent, EIReadTupleChecked(rel, page, minoff));
		EIEntrySortSet(&bc->esort, &maxent, EIReadTupleChecked(rel, page, maxoff));
	}
	hashes = palloc(sizeof(uint64) * n);
	tupdata = palloc(tupbytes);
	tupbytes = 0;
	for (int i = 0; i < n; i++)
	{
		EISortEntry ent;
		Size		sz = IndexTupleSize(items[i]);

		EIEntrySortSet(&bc->esort, &ent, items[i]);
		if (minoff == InvalidOffsetNumber ||
			EIEntryCompare(&bc->esort, &ent, &minent) < 0)
		{
			minoff = first + i;
			minent = ent;
		}
		if (maxoff == InvalidOffsetNumber ||
			EIEntryCompare(&bc->esort, &ent, &maxent) > 0)
		{
			maxoff = first + i;
			maxent = ent;
		}
		if (hashed)
		{
			if (bc->norm == NULL)
				elog(ERROR, "osm_tree buffer page has a filter but the index has no normalized keys");
			hashes[i] = OsmBufferEntryHash(rel, bc->norm, items[i]);
		}
		memcpy(tupdata + tupbytes, items[i], sz);
		memset(tupdata + tupbytes + sz, 0, MAXALIGN(sz) - sz);
		tupbytes += MAXALIGN(sz);
	}

	START_CRIT_SECTION();

	tupbytes = 0;
	for (int i = 0; i < n; i++)
	{
		Size		sz = MAXALIGN(IndexTupleSize(items[i]));

		if (PageAddItem(page, (Item) (tupdata + tupbytes), sz,
						first + i, false, false) == InvalidOffsetNumber)
			elog(PANIC, "failed to add an entry to osm_tree buffer page %u",
				 BufferGetBlockNumber(buf));
		if (hashed)
			bloom_filter_add(summary->bloom, summary->bloom_bytes,
							 summary->bloom_probes, hashes[i]);
		tupbytes += sz;
	}
	summary->minoff = minoff;
	summary->maxoff = maxoff;
	MarkBufferDirty(buf);

	if (RelationNeedsWAL(rel))
	{
		xl_ei_buffer_add xlrec;
		XLogRecPtr	recptr;

		xlrec.ntuples = n;
		xlrec.minoff = minoff;
		xlrec.maxoff = maxoff;
		XLogBeginInsert();
		XLogRegisterData((char *) &xlrec, SizeOfEIBufferAdd);
		XLogRegisterBuffer(0, buf, REGBUF_STANDARD);
		if (hashed)
			XLogRegisterBufData(0, (char *) hashes, sizeof(uint64) * n);
		XLogRegisterBufData(0, tupdata, tupbytes);
		recptr = XLogInsert(EI_RMGR_ID, XLOG_EI_BUFFER_ADD);
		PageSetLSN(page, recptr);
	}

	END_CRIT_SECTION();

	UnlockReleaseBuffer(buf);
	pfree(hashes);
	pfree(tupdata);
	return n;
}

/*
 * Take the flush lock of an index (see OsmBufferFlush); false if wait is
 * false and another backend holds it.
 *
 * It is a heavyweight ExclusiveLock on an object lock tag of the index
 * (pg_class, the index's OID, sub-ID OSM_FLUSH_LOCK_SUBID), which nothing
 * in the server takes: relations are locked through relation lock tags.
 * GIN serializes its pending-list cleanup with a lock on the metapage's
 * block number instead, but a backend holding a page lock may take no
 * other heavyweight lock (16 and later assert it), and a flush reads
 * catalogs (sort support, the compact-leaf setup) while it runs.
 */
static bool
osm_flush_lock(Relation rel, bool wait)
{
	LOCKTAG		tag;

	SET_LOCKTAG_OBJECT(tag, MyDatabaseId, RelationRelationId,
					   RelationGetRelid(rel), OSM_FLUSH_LOCK_SUBID);
	return LockAcquire(&tag, ExclusiveLock, false, !wait) != LOCKACQUIRE_NOT_AVAIL;
}

/*
 * Release the flush lock of an index.
 */
static void
osm_flush_unlock(Relation rel)
{
	LOCKTAG		tag;

	SET_LOCKTAG_OBJECT(tag, MyDatabaseId, RelationRelationId,
					   RelationGetRelid(rel), OSM_FLUSH_LOCK_SUBID);
	LockRelease(&tag, ExclusiveLock, false);
}

/*
 * Move up to maxpages of the buffer's oldest pages into the tree, in steps
 * of at most OSM_FLUSH_STEP_PAGES pages; return how many entries moved, or
 * -1 if another backend is flushing and wait is false.
 *
 * One flusher at a time: the flush lock (osm_flush_lock) serializes
 * flushes and VACUUM, never readers or inserters.  maxpages < 0 means every
 * page there is when the flush starts: it stops after the step that takes
 * the tail, so that inserts that keep linking pages cannot keep it going.
 */
int64
OsmBufferFlush(Relation rel, Relation heapRel, int maxpages, bool wait)
{
	int64		moved = 0;
	int			pages = 0;

	EICheckPreloaded();
	if (!osm_flush_lock(rel, wait))
		return -1;

	while (maxpages < 0 || pages < maxpages)
	{
		int			step = OSM_FLUSH_STEP_PAGES;
		int64		n;
		int			npages;
		bool		took_tail;

		CHECK_FOR_INTERRUPTS();
		if (maxpages >= 0)
			step = Min(step, maxpages - pages);
		n = osm_flush_step(rel, heapRel, step, &took_tail);
		if (n < 0)
			break;				/* the buffer is empty */
		npages = (int) (n >> 32);
		moved += n & 0xFFFFFFFF;
		pages += npages;
		if (maxpages < 0 && took_tail)
			break;				/* everything there at the start is in */
	}

	/* make the pages the steps freed findable in the free space map */
	if (pages > 0)
	{
		osm_filter_rebuild(rel);
		IndexFreeSpaceMapVacuum(rel);
	}
	osm_flush_unlock(rel);
	return moved;
}

/*
 * Rebuild the section filter from the pages still in the buffer, dropping
 * the keys of the pages flushes have unlinked.  The caller holds the flush
 * lock, so no page leaves the chain meanwhile; pages may join it.
 *
 * The keys are hashed without the metapage's lock, from the head to the
 * tail seen at the start: every page before that tail is closed, so its
 * entries stay as they are.  Then, under the metapage's exclusive lock,
 * the pages linked since (their keys went into the old filter, not into
 * this one) are hashed too, and the new filter replaces the old one in one
 * record (a full-page image).  Stale keys in a filter cost only reads, so
 * a crash before the rebuild loses nothing.  The section zonemap is
 * recomputed the same way.
 */
static void
osm_filter_rebuild(Relation rel)
{
	Buffer		metabuf;
	Buffer		filterbuf;
	EIMetaPage	meta;
	BlockNumber filterblk;
	BlockNumber blkno;
	BlockNumber tail;
	OsmSectionFilter *filter;
	Page		page;
	uint64	   *hashes = NULL;
	int			nhashes = 0;
	int			maxhashes = 0;
	OsmSectionZone zone;

	metabuf = EIGetMetaBuf(rel, EI_READ);
	meta = EIPageGetMeta(BufferGetPage(metabuf));
	filterblk = OsmMetaOf(meta)->buf_filter;
	blkno = OsmMetaOf(meta)->buf_head;
	tail = OsmMetaOf(meta)->buf_tail;
	EIRelBuf(rel, metabuf);
	if (filterblk == 0)
		return;
	(void) index_getprocinfo(rel, 1, EI_CMP_PROC);
	memset(&zone, 0, sizeof(zone));
	zone.state = OSM_ZONE_EMPTY;

	/* 1. the pages before the tail, unlocked */
	osm_chain_hashes(rel, blkno, tail, &hashes, &nhashes, &maxhashes, &zone);

	/* 2. the pages that stopped being the tail since, and the swap */
	metabuf = EIGetMetaBuf(rel, EI_WRITE);
	meta = EIPageGetMeta(BufferGetPage(metabuf));
	osm_chain_hashes(rel, (tail != 0) ? tail : OsmMetaOf(meta)->buf_head, OsmMetaOf(meta)->buf_tail,
					 &hashes, &nhashes, &maxhashes, &zone);
	filterbuf = osm_filter_buf(rel, filterblk, EI_WRITE);
	page = BufferGetPage(filterbuf);
	filter = OsmPageGetSectionFilter(page);

	START_CRIT_SECTION();

	/* a filter page of an older build gets room for the zonemap */
	if (OsmSectionFilterGetZone(page) == NULL &&
		filter->bloom_bytes <= OSM_SECTION_BLOOM_BYTES)
	{
		uint16		bloom_bytes = filter->bloom_bytes;
		uint8		bloom_probes = filter->bloom_probes;

		OsmSectionFilterInit(page, bloom_bytes, bloom_probes, true);
		filter = OsmPageGetSectionFilter(page);
	}
	memset(filter->bloom, 0, filter->bloom_bytes);
	filter->nkeys = 0;
	OsmSectionFilterAdd(page, hashes, nhashes, &zone);
	MarkBufferDirty(filterbuf);
	if (RelationNeedsWAL(rel))
	{
		xl_ei_buffer_link xlrec;
		XLogRecPtr	recptr;

		osm_link_begin(&xlrec, OSM_LINK_FILTER, 1, 0, 0,
					   InvalidFullTransactionId);
		XLogRegisterBuffer(0, filterbuf, REGBUF_STANDARD | REGBUF_FORCE_IMAGE);
		recptr = XLogInsert(EI_RMGR_ID, XLOG_EI_BUFFER_LINK);
		PageSetLSN(page, recptr);
	}

	END_CRIT_SECTION();

	UnlockReleaseBuffer(filterbuf);
	EIRelBuf(rel, metabuf);
	if (hashes != NULL)
		pfree(hashes);
}

/*
 * One flush step: close the pages (the tail too, if taken), insert their
 * entries into the tree, unlink the pages.  Returns (pages << 32 | entries),
 * or -1 if the buffer is empty; *took_tail tells whether the step took the
 * page that was the tail when it began (every page linked before it began).
 * The caller holds the flush lock.
 */
static int64
osm_flush_step(Relation rel, Relation heapRel, int maxpages, bool *took_tail)
{
	BlockNumber blocks[OSM_FLUSH_STEP_PAGES];
	Buffer		bufs[OSM_FLUSH_STEP_PAGES];
	int			npages = 0;
	BlockNumber blkno;
	Buffer		metabuf;
	EIMetaPage	meta;
	MemoryContext cxt;
	MemoryContext oldcxt;
	IndexTuple *items;
	int			nitems = 0;
	int			maxitems = 256;
	BlockNumber newhead;
	FullTransactionId safexid;

	Assert(maxpages > 0 && maxpages <= OSM_FLUSH_STEP_PAGES);

	*took_tail = false;
	metabuf = EIGetMetaBuf(rel, EI_READ);
	blkno = OsmMetaOf(EIPageGetMeta(BufferGetPage(metabuf)))->buf_head;
	EIRelBuf(rel, metabuf);
	if (blkno == 0)
		return -1;

	cxt = AllocSetContextCreate(CurrentMemoryContext, "osm_tree flush",
								ALLOCSET_DEFAULT_SIZES);
	oldcxt = MemoryContextSwitchTo(cxt);
	items = palloc(sizeof(IndexTuple) * maxitems);

	/* 1. close and read the pages, oldest first */
	while (BlockNumberIsValid(blkno) && npages < maxpages)
	{
		Buffer		buf;
		Page		page;
		EIPageOpaque opaque;
		OffsetNumber maxoff;

		osm_check_chain_block(rel, blkno);
		buf = EIGetBuf(rel, blkno, EI_READ);
		page = BufferGetPage(buf);
		opaque = EIPageGetOpaque(page);
		if ((opaque->ei_flags & (EI_BUFFER | EI_DELETED)) != EI_BUFFER)
			elog(ERROR, "block %u of index \"%s\" is in the insert buffer's chain but is not a buffer page",
				 blkno, RelationGetRelationName(rel));
		osm_check_buffer_page(rel, buf, true);
		if (!(opaque->ei_flags & EI_BUFFER_CLOSED))
		{
			/* the tail: close it, so that its entries stay as we read them */
			LockBuffer(buf, BUFFER_LOCK_UNLOCK);
			LockBuffer(buf, EI_WRITE);
			osm_seal_page(rel, buf);
			EIFaultPoint(EI_FAULT_AFTER_SEAL);
		}
		maxoff = PageGetMaxOffsetNumber(page);
		for (OffsetNumber off = OSM_BUFFER_FIRST; off <= maxoff; off++)
		{
			if (nitems == maxitems)
			{
				maxitems *= 2;
				items = repalloc(items, sizeof(IndexTuple) * maxitems);
			}
			items[nitems++] = CopyIndexTuple(EIReadTuple(page, off));
		}
		blocks[npages++] = blkno;
		blkno = opaque->ei_next;
		UnlockReleaseBuffer(buf);
	}
	/* the last page read had no next page: it was the tail */
	*took_tail = !BlockNumberIsValid(blkno);

	/* 2. into the tree, sorted; entries already there are skipped */
	if (nitems > 0)
	{
		EIEntrySort esort;
		EISortEntry *entries = palloc(sizeof(EISortEntry) * nitems);

		EIEntrySortInit(&esort, rel);
		for (int i = 0; i < nitems; i++)
			EIEntrySortSet(&esort, &entries[i], items[i]);
		EIEntrySortRun(&esort, entries, nitems);
		for (int i = 0; i < nitems; i++)
			items[i] = entries[i].itup;
		EIInsertSorted(rel, heapRel, items, nitems, false);
	}
	EIFaultPoint(EI_FAULT_AFTER_FLUSH_INSERT);

	/* 3. unlink the pages: metapage first, then the pages in chain order */
	metabuf = EIGetMetaBuf(rel, EI_WRITE);
	meta = EIPageGetMeta(BufferGetPage(metabuf));
	if (OsmMetaOf(meta)->buf_head != blocks[0])
		elog(ERROR, "insert buffer of index \"%s\" changed its head during a flush",
			 RelationGetRelationName(rel));
	for (int i = 0; i < npages; i++)
		bufs[i] = EIGetBuf(rel, blocks[i], EI_WRITE);
	newhead = EIPageGetOpaque(BufferGetPage(bufs[npages - 1]))->ei_next;
	safexid = ReadNextFullTransactionId();
	/* the metapage and every page, each with its data, plus the record's */
	if (RelationNeedsWAL(rel))
		XLogEnsureRecordSpace(npages, npages + 3);

	START_CRIT_SECTION();

	for (int i = 0; i < npages; i++)
	{
		Page		page = BufferGetPage(bufs[i]);

		EIPageSetDeleted(page, InvalidBlockNumber,
						 EIPageGetOpaque(page)->ei_next, 0, safexid);
		MarkBufferDirty(bufs[i]);
	}
	if (BlockNumberIsValid(newhead))
		OsmMetaOf(meta)->buf_head = newhead;
	else
	{
		OsmMetaOf(meta)->buf_head = 0;
		OsmMetaOf(meta)->buf_tail = 0;
	}
	OsmMetaOf(meta)->buf_pages -= Min(OsmMetaOf(meta)->buf_pages, (uint32) npages);
	OsmMetaOf(meta)->buf_flushes++;
	MarkBufferDirty(metabuf);

	if (RelationNeedsWAL(rel))
	{
		xl_ei_buffer_link xlrec;
		XLogRecPtr	recptr;

		osm_link_begin(&xlrec, OSM_LINK_UNLINK, npages, 0, 0, safexid);
		osm_log_meta(metabuf, 0);
		for (int i = 0; i < npages; i++)
			XLogRegisterBuffer(i + 1, bufs[i], REGBUF_WILL_INIT);
		/* each page's right link, which the deleted page keeps */
		for (int i = 0; i < npages; i++)
			XLogRegisterBufData(i + 1,
								(char *) &EIPageGetOpaque(BufferGetPage(bufs[i]))->ei_next,
								sizeof(BlockNumber));
		recptr = XLogInsert(EI_RMGR_ID, XLOG_EI_BUFFER_LINK);
		PageSetLSN(BufferGetPage(metabuf), recptr);
		for (int i = 0; i < npages; i++)
			PageSetLSN(BufferGetPage(bufs[i]), recptr);
	}

	END_CRIT_SECTION();

	for (int i = npages - 1; i >= 0; i--)
		UnlockReleaseBuffer(bufs[i]);

	/*
	 * Offer the pages for reuse at once, as GIN does with its pending list:
	 * EINewBuf takes a page from the free space map only once it is
	 * recyclable (no snapshot from before the unlink remains), so that a
	 * scan still holding a link to it never lands on a reused page.
	 */
	for (int i = 0; i < npages; i++)
		RecordFreeIndexPage(rel, blocks[i]);
	EISetMetaCached(rel, meta);
	EIRelBuf(rel, metabuf);

	MemoryContextSwitchTo(oldcxt);
	MemoryContextDelete(cxt);

	EIStatsCount(rel, EI_STAT_BUFFER_FLUSHES, 1);
	EIStatsCount(rel, EI_STAT_BUFFER_FLUSHED, nitems);
	return ((int64) npages << 32) | (int64) nitems;
}

/*
 * Close the write-locked tail page buf: it takes no more entries, and the
 * next insert links a new tail after it.
 */
static void
osm_seal_page(Relation rel, Buffer buf)
{
	Page		page = BufferGetPage(buf);

	if (EIPageGetOpaque(page)->ei_flags & EI_BUFFER_CLOSED)
		return;

	START_CRIT_SECTION();

	EIPageGetOpaque(page)->ei_flags |= EI_BUFFER_CLOSED;
	MarkBufferDirty(buf);
	osm_log_page_op(rel, buf, OSM_LINK_SEAL, NULL, 0);

	END_CRIT_SECTION();
}

/*
 * Log a BUFFER_LINK record of op that changed the one buffer page buf
 * (seal, sort), with data (if any) as the page's data.  Called inside the
 * caller's critical section, after the change.
 */
static void
osm_log_page_op(Relation rel, Buffer buf, uint8 op, char *data, Size len)
{
	xl_ei_buffer_link xlrec;
	XLogRecPtr	recptr;

	if (!RelationNeedsWAL(rel))
		return;
	osm_link_begin(&xlrec, op, 1, 0, 0, InvalidFullTransactionId);
	XLogRegisterBuffer(0, buf, REGBUF_STANDARD);
	if (len > 0)
		XLogRegisterBufData(0, data, len);
	recptr = XLogInsert(EI_RMGR_ID, XLOG_EI_BUFFER_LINK);
	PageSetLSN(BufferGetPage(buf), recptr);
}

/*
 * Put all entries of the write-locked buffer page buf into the sorted
 * section (query-driven sorting): sort the unsorted section, merge it with
 * the sorted one, permute the line pointers, and log the permutation in a
 * BUFFER_LINK sort record.  Open and closed pages alike; the page's set of
 * entries does not change, so a flush that copied them is unaffected.
 */
static void
osm_sort_page(Relation rel, Buffer buf)
{
	Page		page = BufferGetPage(buf);
	OffsetNumber *order;
	int			norder;

	osm_check_buffer_page(rel, buf, true);
	order = osm_page_order(rel, page, &norder);

	START_CRIT_SECTION();

	OsmBufferPageSort(page, order, norder);
	MarkBufferDirty(buf);
	/* the order the entries were put in (old offsets) */
	osm_log_page_op(rel, buf, OSM_LINK_SORT, (char *) order,
					sizeof(OffsetNumber) * norder);

	END_CRIT_SECTION();

	pfree(order);
	EIStatsCount(rel, EI_STAT_BUFFER_PAGES_SORTED, 1);
}

/* A scan key on the first column that a zonemap can rule pages out by. */
typedef struct OsmZoneKey
{
	StrategyNumber strategy;
	Datum		arg;
	Oid			argtype;		/* the argument's type */
	Oid			collation;
	FmgrInfo	cmp;			/* 3-way comparison (column, argument) */
} OsmZoneKey;

static bool osm_value_bound(Datum value, bool isnull, OsmZoneKey *zkeys,
							int nzkeys, bool lower);
static int	osm_zone_key_add(Relation rel, ScanKey sk, bool desc_col,
							 OsmZoneKey *zkeys, int n);

/*
 * Collect the scan's keys on the first index column with their 3-way
 * comparison functions; return how many.  The zonemap compares the
 * column's values, not index order: a DESC column's preprocessed keys
 * (commuted into index order) are commuted back.
 */
static int
osm_zone_keys(IndexScanDesc scan, OsmZoneKey *zkeys)
{
	Relation	rel = scan->indexRelation;
	EIScanOpaque so = (EIScanOpaque) scan->opaque;
	bool		desc_col = (rel->rd_indoption[0] & INDOPTION_DESC) != 0;
	int			n = 0;

	for (int i = 0; i < so->numberOfKeys && n < INDEX_MAX_KEYS - 1; i++)
	{
		ScanKeyData bounds[2];
		int			nbounds = 1;

		bounds[0] = so->keyData[i];
		if (bounds[0].sk_flags & SK_SEARCHARRAY)
		{
			Datum		first;
			Datum		last;

			/* an array key: its first and last element bound the column */
			if (!EIScanArrayKeyRange(scan, i, &first, &last))
				continue;
			bounds[0].sk_flags &= ~SK_SEARCHARRAY;
			bounds[1] = bounds[0];
			bounds[0].sk_strategy = BTGreaterEqualStrategyNumber;
			bounds[0].sk_argument = first;
			bounds[1].sk_strategy = BTLessEqualStrategyNumber;
			bounds[1].sk_argument = last;
			nbounds = 2;
		}
		for (int b = 0; b < nbounds; b++)
			n = osm_zone_key_add(rel, &bounds[b], desc_col, zkeys, n);
	}
	return n;
}

/*
 * Add a preprocessed scan key to the zonemap's keys if it bounds the first
 * column and can be compared; return the new number of keys.
 */
static int
osm_zone_key_add(Relation rel, ScanKey sk, bool desc_col, OsmZoneKey *zkeys,
				 int n)
{
	Oid			subtype;
	Oid			procid;

	if (sk->sk_attno != 1 ||
		(sk->sk_flags & (SK_ISNULL | SK_ROW_HEADER | SK_ROW_MEMBER)) ||
		sk->sk_strategy < BTLessStrategyNumber ||
		sk->sk_strategy > BTGreaterStrategyNumber)
		return n;
	subtype = OidIsValid(sk->sk_subtype) ? sk->sk_subtype :
		rel->rd_opcintype[0];
	if (subtype == rel->rd_opcintype[0])
	{
		/* the column's own comparison, which the relcache keeps */
		fmgr_info_copy(&zkeys[n].cmp, index_getprocinfo(rel, 1, EI_CMP_PROC),
					   CurrentMemoryContext);
	}
	else
	{
		procid = get_opfamily_proc(rel->rd_opfamily[0], rel->rd_opcintype[0],
								   subtype, EI_CMP_PROC);
		if (!OidIsValid(procid))
			return n;
		fmgr_info(procid, &zkeys[n].cmp);
	}
	zkeys[n].strategy = desc_col ?
		EI_COMMUTE_STRATEGY(sk->sk_strategy) : sk->sk_strategy;
	zkeys[n].arg = sk->sk_argument;
	zkeys[n].argtype = subtype;
	zkeys[n].collation = sk->sk_collation;
	n++;
	return n;
}

/*
 * Does an entry's first column pass the scan's lower bounds (lower true:
 * >, >=, =) or upper bounds (lower false: <, <=, =) on it?  For a column
 * in ASC NULLS LAST order a NULL sorts after every value: it passes every
 * lower bound and fails every upper bound, which keeps both tests monotone
 * along a sorted page.
 */
static bool
osm_zone_bound(Relation rel, IndexTuple itup, OsmZoneKey *zkeys, int nzkeys,
			   bool lower)
{
	bool		isnull;
	Datum		value = index_getattr(itup, 1, RelationGetDescr(rel), &isnull);

	return osm_value_bound(value, isnull, zkeys, nzkeys, lower);
}

/* osm_zone_bound for a first-column value. */
static bool
osm_value_bound(Datum value, bool isnull, OsmZoneKey *zkeys, int nzkeys,
				bool lower)
{
	for (int i = 0; i < nzkeys; i++)
	{
		OsmZoneKey *zk = &zkeys[i];
		int32		c;

		if (lower ? (zk->strategy < BTEqualStrategyNumber) :
			(zk->strategy > BTEqualStrategyNumber))
			continue;
		if (isnull)
		{
			if (lower)
				continue;
			return false;
		}
		c = DatumGetInt32(FunctionCall2Coll(&zk->cmp, zk->collation, value,
											zk->arg));
		switch (zk->strategy)
		{
			case BTLessStrategyNumber:
				if (c >= 0)
					return false;
				break;
			case BTLessEqualStrategyNumber:
				if (c > 0)
					return false;
				break;
			case BTEqualStrategyNumber:
				if (lower ? c < 0 : c > 0)
					return false;
				break;
			case BTGreaterEqualStrategyNumber:
				if (c < 0)
					return false;
				break;
			case BTGreaterStrategyNumber:
				if (c <= 0)
					return false;
				break;
		}
	}
	return true;
}

/*
 * Can the section zonemap rule out every page it covers for the scan's
 * first-column keys?  Yes when it covers no entry, or when its greatest
 * value fails a lower bound or its least value an upper bound.
 */
static bool
osm_section_zone_excludes(const OsmSectionZone *zone, OsmZoneKey *zkeys,
						  int nzkeys)
{
	if (zone == NULL || nzkeys == 0)
		return false;
	if (zone->state == OSM_ZONE_EMPTY)
		return true;
	if (zone->state != OSM_ZONE_RANGE)
		return false;
	return !osm_value_bound(zone->hi, false, zkeys, nzkeys, true) ||
		!osm_value_bound(zone->lo, false, zkeys, nzkeys, false);
}

/*
 * Can the zonemap of a buffer page (its least and greatest entries in the
 * tree's order) rule the page out for the first-column keys?  Only when
 * both ends have a non-NULL first column: then the page is out if its
 * greatest value fails a lower bound or its least value an upper bound.  A
 * DESC column's least entry has the greatest value.
 */
static bool
osm_zone_excludes(Relation rel, Page page, OsmBufferSummary *summary,
				  OsmZoneKey *zkeys, int nzkeys)
{
	Datum		lo;
	Datum		hi;

	if (nzkeys == 0 || !osm_page_value_range(rel, page, summary, &lo, &hi))
		return false;
	return !osm_value_bound(hi, false, zkeys, nzkeys, true) ||
		!osm_value_bound(lo, false, zkeys, nzkeys, false);
}

/* What an interpolation search of a page's sorted section needs. */
typedef struct OsmInterp
{
	bool		ok;				/* the first column holds numbers */
	Oid			coltype;		/* the first column's type */
	double		target;			/* greatest lower bound the scan puts on it */
} OsmInterp;

/*
 * A datum of an integer, date/time or floating-point type as a double, in
 * the type's order; false for other types, NaN and infinities.
 */
static bool
osm_datum_number(Oid typid, Datum value, double *number)
{
	switch (typid)
	{
		case INT2OID:
			*number = DatumGetInt16(value);
			break;
		case INT4OID:
			*number = DatumGetInt32(value);
			break;
		case DATEOID:
			*number = DatumGetDateADT(value);
			break;
		case OIDOID:
			*number = DatumGetObjectId(value);
			break;
		case INT8OID:
		case TIMEOID:
		case TIMESTAMPOID:
		case TIMESTAMPTZOID:
			*number = (double) DatumGetInt64(value);
			break;
		case FLOAT4OID:
			*number = DatumGetFloat4(value);
			break;
		case FLOAT8OID:
			*number = DatumGetFloat8(value);
			break;
		default:
			return false;
	}
	return isfinite(*number);
}

/*
 * Set up the interpolation search for a scan's first-column keys: usable
 * when the column and the arguments of its lower bounds are numbers.  The
 * search only chooses which entries to test; the tests are the operator
 * class's comparisons, so a poor guess costs steps, never a wrong answer.
 */
static void
osm_interp_init(Relation rel, OsmZoneKey *zkeys, int nzkeys, OsmInterp *interp)
{
	double		number;

	interp->ok = false;
	interp->coltype = TupleDescAttr(RelationGetDescr(rel), 0)->atttypid;
	if (!osm_datum_number(interp->coltype, (Datum) 0, &number))
		return;					/* not a number type (0 is a number in all) */
	for (int i = 0; i < nzkeys; i++)
	{
		if (zkeys[i].strategy < BTEqualStrategyNumber)
			continue;
		if (!osm_datum_number(zkeys[i].argtype, zkeys[i].arg, &number))
		{
			interp->ok = false;
			return;
		}
		if (!interp->ok || number > interp->target)
			interp->target = number;
		interp->ok = true;
	}
}

/* The first column of a buffered entry as a number; false if NULL. */
static bool
osm_entry_number(Relation rel, OsmInterp *interp, IndexTuple itup,
				 double *number)
{
	bool		isnull;
	Datum		value = index_getattr(itup, 1, RelationGetDescr(rel), &isnull);

	return !isnull && osm_datum_number(interp->coltype, value, number);
}

/*
 * In a page's sorted section (offsets OSM_BUFFER_FIRST up to end, not
 * included), the first entry that passes the lower bounds on the first
 * column; end if none does.  With numbers, one interpolation probe placed
 * where the bound's value lies between the values at the range's ends,
 * then steps of 1, 2, 4, ... away from it until the answer is bracketed
 * (on evenly spread keys it lies next to the probe), then bisection of
 * the bracket; otherwise bisection of the whole section.  The answer is
 * always in [lo, hi]: an entry that passes moves hi to it, one that fails
 * moves lo past it.
 */
static OffsetNumber
osm_sorted_start(Relation rel, Page page, OffsetNumber end,
				 OsmZoneKey *zkeys, int nzkeys, OsmInterp *interp)
{
	OffsetNumber lo = OSM_BUFFER_FIRST;
	OffsetNumber hi = end;

	/*
	 * Interpolate between the range's ends once both are numbers: NULLs,
	 * NaN and infinities sort at the ends, so a bisection step or two
	 * first moves past them.
	 */
	for (int tries = 0; interp->ok && tries < 4 && hi - lo > 8; tries++)
	{
		double		vlo;
		double		vhi;
		int			probe;
		int			step;

		if (!osm_entry_number(rel, interp, EIReadTuple(page, lo), &vlo) ||
			!osm_entry_number(rel, interp, EIReadTuple(page, hi - 1), &vhi) ||
			vhi <= vlo)
		{
			OffsetNumber mid = lo + (hi - lo) / 2;

			if (osm_zone_bound(rel, EIReadTuple(page, mid), zkeys, nzkeys, true))
				hi = mid;
			else
				lo = mid + 1;
			continue;
		}

		if (interp->target <= vlo)
			probe = lo;
		else if (interp->target >= vhi)
			probe = hi - 1;
		else
			probe = lo + (int) ((interp->target - vlo) / (vhi - vlo) *
								(hi - 1 - lo));
		if (osm_zone_bound(rel, EIReadTuple(page, probe), zkeys, nzkeys, true))
		{
			hi = probe;
			for (step = 1; probe - step >= lo; step *= 2)
			{
				if (!osm_zone_bound(rel, EIReadTuple(page, probe - step),
									zkeys, nzkeys, true))
				{
					lo = probe - step + 1;
					break;
				}
				hi = probe - step;
			}
		}
		else
		{
			lo = probe + 1;
			for (step = 1; probe + step < hi; step *= 2)
			{
				if (osm_zone_bound(rel, EIReadTuple(page, probe + step),
								   zkeys, nzkeys, true))
				{
					hi = probe + step;
					break;
				}
				lo = probe + step + 1;
			}
		}
		break;
	}

	while (lo < hi)
	{
		OffsetNumber mid = lo + (hi - lo) / 2;

		if (osm_zone_bound(rel, EIReadTuple(page, mid), zkeys, nzkeys, true))
			hi = mid;
		else
			lo = mid + 1;
	}
	return lo;
}

/* A growing array of copied index tuples. */
typedef struct OsmItemList
{
	IndexTuple *items;
	int			nitems;
	int			maxitems;
} OsmItemList;

/* Copy the entry at off of page to the list if it passes the scan's keys. */
static void
osm_collect_entry(IndexScanDesc scan, Page page, OffsetNumber off,
				  OsmItemList *list)
{
	IndexTuple	itup = EIReadTupleChecked(scan->indexRelation, page, off);

	if (!EIScanMatchKeys(scan, itup))
		return;
	if (list->nitems == list->maxitems)
	{
		list->maxitems = Max(64, list->maxitems * 2);
		list->items = list->items == NULL ?
			palloc(sizeof(IndexTuple) * list->maxitems) :
			repalloc(list->items, sizeof(IndexTuple) * list->maxitems);
	}
	list->items[list->nitems++] = CopyIndexTuple(itup);
}

/*
 * Collect the buffered entries that match a scan's keys, in arrival order;
 * false (and nothing collected) if the buffer is empty.
 *
 * A page is skipped without reading its entries when its Bloom filter says
 * it cannot hold the key a scan fixes by equality, or when its zonemap
 * (the least and greatest entry) lies outside a bound the scan puts on the
 * first column.  On a page it reads, the scan searches the sorted section
 * for the range its first-column bounds allow (interpolation, then
 * bisection) and tests every entry of the unsorted section.  Query-driven
 * sorting: a scan that can search (bounds on an ASC NULLS LAST first
 * column) and finds at least sort_threshold unsorted entries on a page it
 * reads sorts the page first, if it gets the exclusive lock without
 * waiting and the server is not in recovery.  Pages a flush deleted after
 * we read their link are skipped by their kept right link: their entries
 * were in the tree before the pages left the chain, and the caller reads
 * the tree after this.
 */
bool
OsmBufferCollect(IndexScanDesc scan, IndexTuple **itemsp, int *nitemsp)
{
	Relation	rel = scan->indexRelation;
	Buffer		metabuf;
	EIMetaPage	meta;
	BlockNumber blkno;
	OsmItemList list = {NULL, 0, 0};
	uint64		hash = 0;
	bool		hashed;
	OsmZoneKey	zkeys[INDEX_MAX_KEYS];
	int			nzkeys;
	bool		searchable;
	int			sort_threshold;
	OsmInterp	interp = {0};	/* set up only for a searchable scan */
	int64		nread = 0;
	int64		nskipped = 0;

	*itemsp = NULL;
	*nitemsp = 0;

	/* an empty buffer, the common case, costs one look at the metapage */
	metabuf = EIGetMetaBuf(rel, EI_READ);
	blkno = OsmMetaOf(EIPageGetMeta(BufferGetPage(metabuf)))->buf_head;
	EIRelBuf(rel, metabuf);
	if (blkno == 0)
		return false;

	/* the keys' lookups (catalog reads) before taking the metapage again */
	hashed = osm_scan_hash(scan, osm_buffer_cache(rel)->norm, &hash);
	nzkeys = osm_zone_keys(scan, zkeys);

	/*
	 * The head, or the tail when the section filter rules out the key or
	 * the section zonemap the first-column bounds: both cover every other
	 * page of the chain.  They are read under the metapage's lock, which
	 * every link that changes what they cover holds exclusively.
	 */
	metabuf = EIGetMetaBuf(rel, EI_READ);
	meta = EIPageGetMeta(BufferGetPage(metabuf));
	blkno = OsmMetaOf(meta)->buf_head;
	if ((hashed || nzkeys > 0) && OsmMetaOf(meta)->buf_filter != 0 && blkno != 0 &&
		blkno != OsmMetaOf(meta)->buf_tail)
	{
		Buffer		filterbuf = osm_filter_buf(rel, OsmMetaOf(meta)->buf_filter, EI_READ);
		Page		filterpage = BufferGetPage(filterbuf);
		OsmSectionFilter *filter = OsmPageGetSectionFilter(filterpage);

		if ((hashed &&
			 !bloom_filter_maybe(filter->bloom, filter->bloom_bytes,
								 filter->bloom_probes, hash)) ||
			osm_section_zone_excludes(OsmSectionFilterCurrentZone(filterpage),
									  zkeys, nzkeys))
		{
			nskipped += OsmMetaOf(meta)->buf_pages > 0 ? OsmMetaOf(meta)->buf_pages - 1 : 0;
			blkno = OsmMetaOf(meta)->buf_tail;
		}
		EIRelBuf(rel, filterbuf);
	}
	EIRelBuf(rel, metabuf);
	if (blkno == 0)
		return false;

	/* sorted sections can be searched when the first column is ASC NULLS LAST */
	searchable = nzkeys > 0 &&
		(rel->rd_indoption[0] & (INDOPTION_DESC | INDOPTION_NULLS_FIRST)) == 0;
	if (searchable)
		osm_interp_init(rel, zkeys, nzkeys, &interp);
	sort_threshold = (searchable && !RecoveryInProgress()) ?
		OsmGetSortThreshold(rel) : 0;

	while (BlockNumberIsValid(blkno))
	{
		Buffer		buf;
		bool		sort_tried = false;

		CHECK_FOR_INTERRUPTS();
		osm_check_chain_block(rel, blkno);
		buf = EIGetBuf(rel, blkno, EI_READ);
		for (;;)
		{
			Page		page = BufferGetPage(buf);
			EIPageOpaque opaque = EIPageGetOpaque(page);
			OsmBufferSummary *summary;
			OffsetNumber sorted_end;
			OffsetNumber maxoff;

			if (opaque->ei_flags & EI_DELETED)
				break;
			if (!(opaque->ei_flags & EI_BUFFER))
				elog(ERROR, "block %u of index \"%s\" is in the insert buffer's chain but is not a buffer page",
					 blkno, RelationGetRelationName(rel));
			osm_check_buffer_page(rel, buf, false);

			summary = OsmPageGetSummary(page);
			if (summary->minoff == InvalidOffsetNumber ||
				(hashed && summary->bloom_bytes > 0 &&
				 !bloom_filter_maybe(summary->bloom, summary->bloom_bytes,
									 summary->bloom_probes, hash)) ||
				osm_zone_excludes(rel, page, summary, zkeys, nzkeys))
			{
				nskipped++;
				break;
			}

			maxoff = PageGetMaxOffsetNumber(page);
			sorted_end = OSM_BUFFER_FIRST + Min(summary->nsorted,
												OsmPageGetNEntries(page));
			if (sort_threshold > 0 && !sort_tried &&
				maxoff + 1 - sorted_end >= sort_threshold)
			{
				/* sort it first if nobody holds it; then look again */
				sort_tried = true;
				LockBuffer(buf, BUFFER_LOCK_UNLOCK);
				if (ConditionalLockBuffer(buf))
				{
					opaque = EIPageGetOpaque(page);
					if ((opaque->ei_flags & (EI_BUFFER | EI_DELETED)) == EI_BUFFER)
						osm_sort_page(rel, buf);
				}
				else
					LockBuffer(buf, EI_READ);
				continue;
			}

			/* its entries are read: check them all */
			osm_check_buffer_page(rel, buf, true);
			nread++;
			if (searchable)
			{
				/* the sorted section: from the first candidate to the last */
				OffsetNumber off = osm_sorted_start(rel, page, sorted_end,
													zkeys, nzkeys, &interp);

				for (; off < sorted_end; off++)
				{
					if (!osm_zone_bound(rel, EIReadTuple(page, off), zkeys,
										nzkeys, false))
						break;
					osm_collect_entry(scan, page, off, &list);
				}
			}
			else
				sorted_end = OSM_BUFFER_FIRST;
			/* the unsorted section (all of the page if not searchable) */
			for (OffsetNumber off = sorted_end; off <= maxoff; off++)
				osm_collect_entry(scan, page, off, &list);
			break;
		}
		blkno = EIPageGetOpaque(BufferGetPage(buf))->ei_next;
		UnlockReleaseBuffer(buf);
	}

	EIStatsCount(rel, EI_STAT_BUFFER_PAGES_READ, nread);
	EIStatsCount(rel, EI_STAT_BUFFER_PAGES_SKIPPED, nskipped);
	*itemsp = list.items;
	*nitemsp = list.nitems;
	return true;
}

/*
 * Count the buffer's pages, entries, closed and sorted pages and sorted
 * entries by walking its chain.
 */
void
OsmBufferCounts(Relation rel, OsmBufferCountsData *counts)
{
	Buffer		metabuf;
	BlockNumber blkno;

	memset(counts, 0, sizeof(OsmBufferCountsData));
	metabuf = EIGetMetaBuf(rel, EI_READ);
	blkno = OsmMetaOf(EIPageGetMeta(BufferGetPage(metabuf)))->buf_head;
	EIRelBuf(rel, metabuf);

	while (blkno != 0 && BlockNumberIsValid(blkno))
	{
		Buffer		buf;
		Page		page;
		EIPageOpaque opaque;

		CHECK_FOR_INTERRUPTS();
		osm_check_chain_block(rel, blkno);
		buf = EIGetBuf(rel, blkno, EI_READ);
		page = BufferGetPage(buf);
		opaque = EIPageGetOpaque(page);
		osm_check_buffer_page(rel, buf, false);
		if (!(opaque->ei_flags & EI_DELETED))
		{
			int			n = OsmPageGetNEntries(page);
			int			nsorted = OsmPageGetSummary(page)->nsorted;

			counts->pages++;
			counts->entries += n;
			if (opaque->ei_flags & EI_BUFFER_CLOSED)
				counts->closed_pages++;
			if (nsorted >= n)
				counts->sorted_pages++;
			counts->sorted_entries += Min(nsorted, n);
		}
		blkno = opaque->ei_next;
		UnlockReleaseBuffer(buf);
	}
}

/*
 * Open an osm_tree index named by OID for a SQL function, refusing other
 * relations with a clear error.
 */
Relation
OsmOpenIndex(Oid indexoid, LOCKMODE lockmode)
{
	Relation	rel = EIOpenIndexChecked(indexoid, lockmode);

	if (!EIRelIsOsm(rel))
	{
		char	   *name = pstrdup(RelationGetRelationName(rel));

		index_close(rel, lockmode);
		ereport(ERROR,
				(errcode(ERRCODE_WRONG_OBJECT_TYPE),
				 errmsg("\"%s\" is not an osm_tree index", name),
				 errhint("Only osm_tree indexes have an insert buffer.")));
	}
	return rel;
}

/*
 * Move every entry of the insert buffer of an index opened by OsmOpenIndex
 * (RowExclusiveLock) into its tree now; returns how many entries moved.
 */
int64
OsmFlushIndex(Relation rel)
{
	Relation	heapRel;
	int64		moved;
	EIOwnerSwitch owner;

	heapRel = table_open(rel->rd_index->indrelid, AccessShareLock);
	/* the index's comparison functions are the table owner's code */
	EIBecomeTableOwner(heapRel, &owner);
	moved = OsmBufferFlush(rel, heapRel, -1, true);
	EIRestoreCaller(&owner);
	table_close(heapRel, AccessShareLock);
	return moved;
}

/*
 * The columns of osm_tree_buffer_stats() for an index opened by
 * OsmOpenIndex: the insert buffer's pages, entries, closed pages, the
 * buffer_size setting, its fill, flush steps so far, sorted pages, the
 * entries in sorted and unsorted sections, and the section filter's keys
 * and size.
 */
void
OsmBufferStatsRow(Relation rel, Datum *values, bool *nulls)
{
	OsmBufferCountsData counts;
	EIMetaPageData *meta;
	int			bufsize;

	OsmBufferCounts(rel, &counts);
	meta = EIGetMetaCached(rel, true);
	bufsize = OsmGetBufferSize(rel);

	memset(nulls, 0, sizeof(bool) * OSM_BUFFER_STATS_NCOLUMNS);
	values[0] = Int64GetDatum(counts.pages);
	values[1] = Int64GetDatum(counts.entries);
	values[2] = Int64GetDatum(counts.closed_pages);
	values[3] = Int32GetDatum(bufsize);
	values[4] = Float8GetDatum(bufsize > 0 ? (double) counts.pages / bufsize : 0.0);
	values[5] = Int64GetDatum((int64) OsmMetaOf(meta)->buf_flushes);
	values[6] = Int64GetDatum(counts.sorted_pages);
	values[7] = Int64GetDatum(counts.sorted_entries);
	values[8] = Int64GetDatum(counts.entries - counts.sorted_entries);
	if (OsmMetaOf(meta)->buf_filter != 0)
	{
		Buffer		buf = osm_filter_buf(rel, OsmMetaOf(meta)->buf_filter, EI_READ);
		OsmSectionFilter *filter = OsmPageGetSectionFilter(BufferGetPage(buf));

		values[9] = Int64GetDatum((int64) filter->nkeys);
		values[10] = Int32GetDatum((int32) filter->bloom_bytes);
		UnlockReleaseBuffer(buf);
	}
	else
		nulls[9] = nulls[10] = true;
}
