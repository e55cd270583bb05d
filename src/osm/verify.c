/*-------------------------------------------------------------------------
 *
 * verify.c
 *	  elastic_index_check's look at osm_tree's insert buffer
 *	  (EITreePolicy.verify_extra): the chain of buffer pages, their
 *	  zonemaps, Bloom filters and sorted sections, and the section filter.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "bloomfilter.h"
#include "eiosm.h"
#include "utils/memutils.h"

static Page osm_verify_section_filter_page(EIVerifyContext *cxt,
										 EINormKeyInfo *norm,
										 OsmSectionFilter **filter);
static void osm_verify_section_zone(EIVerifyContext *cxt,
								  const OsmSectionZone *zone,
								  BlockNumber blkno, OffsetNumber off,
								  IndexTuple itup);

/*
 * Check osm_tree's insert buffer: every page of the chain from the
 * metapage's head is a live buffer page, the chain ends at the recorded
 * tail with the recorded page count, only the tail may take entries, and
 * each page's zonemap names its least and greatest entries and its Bloom
 * filter holds every entry's key.  With heapallindexed, the entries are
 * remembered too.
 */
void
OsmVerifyBuffer(EIVerifyContext *cxt)
{
	Relation	rel = cxt->rel;
	BlockNumber blkno = OsmMetaOf(cxt->meta)->buf_head;
	BlockNumber last = 0;
	uint32		npages = 0;
	EIEntrySort esort;
	EINormKeyInfo *norm = NULL;
	Page		sfpage = NULL;
	OsmSectionFilter *sfilter = NULL;

	if (OsmMetaOf(cxt->meta)->unused != 0)
		EIVerifyCorrupt(cxt, EI_METAPAGE, InvalidOffsetNumber,
						"metapage policy word 0 is %u, expected 0 in an osm_tree index",
						OsmMetaOf(cxt->meta)->unused);
	{
		EINormKeyInfo *info = EIGetNormKeyInfo(rel);

		if (info->ok)
			norm = info;
	}
	if (OsmMetaOf(cxt->meta)->buf_filter != 0)
		sfpage = osm_verify_section_filter_page(cxt, norm, &sfilter);
	if (blkno == 0)
	{
		if (OsmMetaOf(cxt->meta)->buf_tail != 0 || OsmMetaOf(cxt->meta)->buf_pages != 0)
			EIVerifyCorrupt(cxt, EI_METAPAGE, InvalidOffsetNumber,
					   "insert buffer has no head but tail %u and %u pages",
					   OsmMetaOf(cxt->meta)->buf_tail, OsmMetaOf(cxt->meta)->buf_pages);
		if (sfpage != NULL)
			pfree(sfpage);
		return;
	}
	EIEntrySortInitCompare(&esort, rel, CurrentMemoryContext);

	while (BlockNumberIsValid(blkno))
	{
		Page		page;
		EIPageOpaque opaque;
		OsmBufferSummary *summary;
		OffsetNumber maxoff;
		EISortEntry least;
		EISortEntry greatest;

		if (blkno == EI_METAPAGE || blkno >= cxt->nblocks)
			EIVerifyCorrupt(cxt, last, InvalidOffsetNumber,
					   "insert buffer links to block %u, out of range", blkno);
		if (cxt->visited[blkno])
			EIVerifyCorrupt(cxt, blkno, InvalidOffsetNumber,
					   "insert buffer page is reached twice");
		cxt->visited[blkno] = true;
		if (++npages > cxt->nblocks)
			EIVerifyCorrupt(cxt, blkno, InvalidOffsetNumber,
					   "insert buffer chain loops");

		page = cxt->read_page(cxt, blkno);
		opaque = EIPageGetOpaque(page);
		if ((opaque->ei_flags & (EI_BUFFER | EI_DELETED | EI_LEAF | EI_META)) !=
			EI_BUFFER)
			EIVerifyCorrupt(cxt, blkno, InvalidOffsetNumber,
					   "page in the insert buffer chain has flags 0x%04X",
					   opaque->ei_flags);
		if (BlockNumberIsValid(opaque->ei_next) &&
			!(opaque->ei_flags & EI_BUFFER_CLOSED))
			EIVerifyCorrupt(cxt, blkno, InvalidOffsetNumber,
					   "insert buffer page that is not the last takes entries");

		maxoff = PageGetMaxOffsetNumber(page);
		if (maxoff < OSM_BUFFER_SUMMARY)
			EIVerifyCorrupt(cxt, blkno, InvalidOffsetNumber,
							"insert buffer page has no summary");
		if (ItemIdGetLength(PageGetItemId(page, OSM_BUFFER_SUMMARY)) <
			offsetof(OsmBufferSummary, bloom))
			EIVerifyCorrupt(cxt, blkno, OSM_BUFFER_SUMMARY,
							"insert buffer page summary of %u bytes is too short",
							ItemIdGetLength(PageGetItemId(page, OSM_BUFFER_SUMMARY)));
		summary = OsmPageGetSummary(page);
		if ((summary->minoff == InvalidOffsetNumber) != (maxoff < OSM_BUFFER_FIRST) ||
			(summary->minoff != InvalidOffsetNumber &&
			 (summary->minoff < OSM_BUFFER_FIRST || summary->minoff > maxoff ||
			  summary->maxoff < OSM_BUFFER_FIRST || summary->maxoff > maxoff)))
			EIVerifyCorrupt(cxt, blkno, OSM_BUFFER_SUMMARY,
					   "zonemap offsets %u and %u do not fit %u entries",
					   summary->minoff, summary->maxoff,
					   maxoff >= OSM_BUFFER_FIRST ? maxoff - OSM_BUFFER_FIRST + 1 : 0);
		if (summary->bloom_bytes > 0 &&
			(norm == NULL || summary->bloom_probes == 0 ||
			 ItemIdGetLength(PageGetItemId(page, OSM_BUFFER_SUMMARY)) <
			 offsetof(OsmBufferSummary, bloom) + summary->bloom_bytes))
			EIVerifyCorrupt(cxt, blkno, OSM_BUFFER_SUMMARY,
					   "Bloom filter of %u bytes, %u probes does not fit the page",
					   summary->bloom_bytes, summary->bloom_probes);

		if (summary->minoff != InvalidOffsetNumber)
		{
			EIEntrySortSet(&esort, &least, EIReadTuple(page, summary->minoff));
			EIEntrySortSet(&esort, &greatest, EIReadTuple(page, summary->maxoff));
		}
		if (summary->nsorted > maxoff - OSM_BUFFER_FIRST + 1)
			EIVerifyCorrupt(cxt, blkno, InvalidOffsetNumber,
					   "insert buffer page has a sorted section longer than its entries");
		for (OffsetNumber off = OSM_BUFFER_FIRST; off <= maxoff; off++)
		{
			IndexTuple	itup = EIReadTuple(page, off);
			EISortEntry ent;

			/* the insert buffer keeps plain entries, lists or not */
			if (EITupleIsPosting(itup))
				EIVerifyCorrupt(cxt, blkno, off,
								"insert buffer holds a posting list (it keeps plain entries)");
			EIEntrySortSet(&esort, &ent, itup);
			if (off > OSM_BUFFER_FIRST && off < OSM_BUFFER_FIRST + summary->nsorted)
			{
				EISortEntry prev;

				EIEntrySortSet(&esort, &prev, EIReadTuple(page, off - 1));
				if (EIEntryCompare(&esort, &prev, &ent) > 0)
					EIVerifyCorrupt(cxt, blkno, off,
							   "entry in the sorted section of an insert buffer page is out of order");
			}
			if (EIEntryCompare(&esort, &ent, &least) < 0 ||
				EIEntryCompare(&esort, &ent, &greatest) > 0)
				EIVerifyCorrupt(cxt, blkno, off,
						   "buffered entry lies outside its page's zonemap");
			if (summary->bloom_bytes > 0 &&
				!bloom_filter_maybe(summary->bloom, summary->bloom_bytes,
									summary->bloom_probes,
									OsmBufferEntryHash(rel, norm, itup)))
				EIVerifyCorrupt(cxt, blkno, off,
						   "buffered entry is missing from its page's Bloom filter");
			/* every page but the tail is in the section filter */
			if (sfilter != NULL && BlockNumberIsValid(opaque->ei_next) &&
				!bloom_filter_maybe(sfilter->bloom, sfilter->bloom_bytes,
									sfilter->bloom_probes,
									OsmBufferEntryHash(rel, norm, itup)))
				EIVerifyCorrupt(cxt, blkno, off,
						   "buffered entry is missing from the insert buffer's section filter (block %u)",
						   OsmMetaOf(cxt->meta)->buf_filter);
			if (sfilter != NULL && BlockNumberIsValid(opaque->ei_next))
				osm_verify_section_zone(cxt, OsmSectionFilterCurrentZone(sfpage),
									  blkno, off, itup);
			if (cxt->collect)
				cxt->collect_entry(cxt, blkno, off, itup, true);
		}

		last = blkno;
		blkno = opaque->ei_next;
		pfree(page);
		MemoryContextReset(cxt->page_cxt);
	}

	if (last != OsmMetaOf(cxt->meta)->buf_tail || npages != OsmMetaOf(cxt->meta)->buf_pages)
		EIVerifyCorrupt(cxt, EI_METAPAGE, InvalidOffsetNumber,
				   "insert buffer ends at block %u after %u pages, the metapage says %u and %u",
				   last, npages, OsmMetaOf(cxt->meta)->buf_tail, OsmMetaOf(cxt->meta)->buf_pages);
	if (sfpage != NULL)
		pfree(sfpage);
}

/*
 * Check that the section zonemap (if the filter page has one) covers a
 * buffered entry of a page other than the tail: its first-column value
 * lies in [lo, hi], or the zonemap is unknown.
 */
static void
osm_verify_section_zone(EIVerifyContext *cxt, const OsmSectionZone *zone,
					  BlockNumber blkno, OffsetNumber off, IndexTuple itup)
{
	Relation	rel = cxt->rel;
	FmgrInfo   *cmp;
	Oid			collation = rel->rd_indcollation[0];
	Datum		value;
	bool		isnull;

	if (zone == NULL || zone->state == OSM_ZONE_UNKNOWN)
		return;
	if (zone->state == OSM_ZONE_EMPTY)
	{
		EIVerifyCorrupt(cxt, blkno, off,
				   "buffered entry is not covered by the insert buffer's empty section zonemap");
		return;
	}
	if (zone->state != OSM_ZONE_RANGE)
	{
		EIVerifyCorrupt(cxt, OsmMetaOf(cxt->meta)->buf_filter, OSM_SECTION_FILTER,
				   "section zonemap has state %u", zone->state);
		return;
	}
	value = index_getattr(itup, 1, RelationGetDescr(rel), &isnull);
	cmp = index_getprocinfo(rel, 1, EI_CMP_PROC);
	if (isnull ||
		DatumGetInt32(FunctionCall2Coll(cmp, collation, value, zone->lo)) < 0 ||
		DatumGetInt32(FunctionCall2Coll(cmp, collation, value, zone->hi)) > 0)
		EIVerifyCorrupt(cxt, blkno, off,
				   "buffered entry lies outside the insert buffer's section zonemap");
}

/*
 * Read and check the insert buffer's section filter page (the metapage's
 * buf_filter): a live page of that kind whose filter fits it, in an index
 * with normalized keys.  Returns a copy of the page; *filter points into it.
 */
static Page
osm_verify_section_filter_page(EIVerifyContext *cxt, EINormKeyInfo *norm,
							 OsmSectionFilter **filter)
{
	BlockNumber blkno = OsmMetaOf(cxt->meta)->buf_filter;
	Page		page = cxt->read_page(cxt, blkno);	/* checks the range */
	EIPageOpaque opaque;
	ItemId		itemid;

	if (cxt->visited[blkno])
		EIVerifyCorrupt(cxt, blkno, InvalidOffsetNumber,
				   "insert buffer's section filter page is reached twice");
	cxt->visited[blkno] = true;
	opaque = EIPageGetOpaque(page);
	if ((opaque->ei_flags & (EI_BUFFER_FILTER | EI_BUFFER | EI_DELETED |
							 EI_LEAF | EI_META)) != EI_BUFFER_FILTER)
		EIVerifyCorrupt(cxt, blkno, InvalidOffsetNumber,
				   "insert buffer's section filter page has flags 0x%04X",
				   opaque->ei_flags);
	if (norm == NULL)
		EIVerifyCorrupt(cxt, blkno, InvalidOffsetNumber,
				   "index without normalized keys has an insert buffer section filter");
	if (PageGetMaxOffsetNumber(page) != OSM_SECTION_FILTER)
		EIVerifyCorrupt(cxt, blkno, InvalidOffsetNumber,
				   "insert buffer's section filter page has %u items, not 1",
				   (unsigned) PageGetMaxOffsetNumber(page));
	itemid = PageGetItemId(page, OSM_SECTION_FILTER);
	*filter = OsmPageGetSectionFilter(page);
	if (ItemIdGetLength(itemid) < offsetof(OsmSectionFilter, bloom) ||
		(*filter)->bloom_bytes == 0 || (*filter)->bloom_bytes % 8 != 0 ||
		(*filter)->bloom_probes == 0 ||
		ItemIdGetLength(itemid) < offsetof(OsmSectionFilter, bloom) +
		(*filter)->bloom_bytes)
		EIVerifyCorrupt(cxt, blkno, OSM_SECTION_FILTER,
				   "section filter of %u bytes, %u probes does not fit its item of %u bytes",
				   (*filter)->bloom_bytes, (*filter)->bloom_probes,
				   (unsigned) ItemIdGetLength(itemid));
	return page;
}
