/*-------------------------------------------------------------------------
 *
 * xlog.c
 *	  Redo and description of osm_tree's WAL records: entries added to an
 *	  insert buffer page, and buffer pages linked, closed, sorted and
 *	  unlinked, with the section filter.
 *
 * The core's resource manager dispatches these records here through the
 * EIRecordKind table the policy registers (eiosm.h).
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/xlogutils.h"
#include "bloomfilter.h"
#include "eiosm.h"

/*
 * Replay XLOG_EI_BUFFER_ADD: append the entries to the buffer page, add
 * their hashes to its filter, set its zonemap.
 */
static void
ei_redo_buffer_add(XLogReaderState *record)
{
	xl_ei_buffer_add *xlrec = (xl_ei_buffer_add *)
		EIRedoGetData(record, SizeOfEIBufferAdd, "buffer add");
	Buffer		buf;

	if (XLogReadBufferForRedo(record, 0, &buf) == BLK_NEEDS_REDO)
	{
		Page		page = BufferGetPage(buf);
		OsmBufferSummary *summary = OsmPageGetSummary(page);
		Size		len;
		Size		hashbytes = (summary->bloom_bytes > 0) ?
			sizeof(uint64) * xlrec->ntuples : 0;
		char	   *data = EIRedoGetBlockData(record, 0, hashbytes, &len,
											  "buffer add");
		char	   *tuples = data + hashbytes;
		Size		left = len - hashbytes;
		OffsetNumber off = OffsetNumberNext(PageGetMaxOffsetNumber(page));

		for (int i = 0; i < xlrec->ntuples; i++, off++)
		{
			Size		sz;
			char	   *itup;

			sz = EIRedoTupleSize(tuples, left, "buffer add");
			itup = EIRedoCopyData(tuples, sz);
			if (PageAddItem(page, (Item) itup, sz, off, false, false) ==
				InvalidOffsetNumber)
				elog(PANIC, "elastic_index redo: failed to add buffer entry");
			pfree(itup);
			tuples += sz;
			left -= sz;
			if (summary->bloom_bytes > 0)
			{
				uint64		hash;

				memcpy(&hash, data + sizeof(uint64) * i, sizeof(uint64));
				bloom_filter_add(summary->bloom, summary->bloom_bytes,
								 summary->bloom_probes, hash);
			}
		}
		EIRedoCheckLength(left, 0, "buffer add: bytes after the entries");
		summary->minoff = xlrec->minoff;
		summary->maxoff = xlrec->maxoff;
		PageSetLSN(page, record->EndRecPtr);
		MarkBufferDirty(buf);
	}
	if (BufferIsValid(buf))
		UnlockReleaseBuffer(buf);
}

/*
 * Replay the section filter block of a NEWPAGE record: make the page if
 * the primary made it, then add the keys' hashes the record carries.
 */
static void
ei_redo_section_filter(XLogReaderState *record, uint8 block_id)
{
	Size		len;
	char	   *data;
	xl_ei_section_filter xlfilter;
	Buffer		buf;
	bool		apply;

	data = XLogRecGetBlockData(record, block_id, &len);
	if (data == NULL)
	{
		/* a full-page image, with the keys in it */
		if (XLogReadBufferForRedo(record, block_id, &buf) != BLK_RESTORED)
			elog(ERROR, "elastic_index redo: section filter block without data");
		UnlockReleaseBuffer(buf);
		return;
	}
	EIRedoCheckLength(Min(len, sizeof(xlfilter)), sizeof(xlfilter),
					  "section filter header");
	memcpy(&xlfilter, data, sizeof(xlfilter));
	EIRedoCheckLength(len, sizeof(xlfilter) + sizeof(uint64) * (Size) xlfilter.nhashes +
					  ((xlfilter.flags & XLF_ZONE) ? sizeof(OsmSectionZone) : 0),
					  "section filter");
	if (xlfilter.init_bytes > 0)
	{
		buf = XLogInitBufferForRedo(record, block_id);
		OsmSectionFilterInit(BufferGetPage(buf), xlfilter.init_bytes,
							 xlfilter.init_probes,
							 (xlfilter.flags & XLF_ZONE) != 0);
		apply = true;
	}
	else
		apply = (XLogReadBufferForRedo(record, block_id, &buf) == BLK_NEEDS_REDO);
	if (apply)
	{
		Size		hashbytes = sizeof(uint64) * xlfilter.nhashes;
		uint64	   *hashes = NULL;
		OsmSectionZone zone;

		if (hashbytes > 0)
			hashes = (uint64 *) EIRedoCopyData(data + sizeof(xlfilter), hashbytes);
		/* the zonemap as the primary left it; none from an older primary */
		if (xlfilter.flags & XLF_ZONE)
			memcpy(&zone, data + sizeof(xlfilter) + hashbytes, sizeof(zone));
		OsmSectionFilterAdd(BufferGetPage(buf), hashes, (int) xlfilter.nhashes,
							(xlfilter.flags & XLF_ZONE) ? &zone : NULL);
		if (hashes != NULL)
			pfree(hashes);
		PageSetLSN(BufferGetPage(buf), record->EndRecPtr);
		MarkBufferDirty(buf);
	}
	if (BufferIsValid(buf))
		UnlockReleaseBuffer(buf);
}

/*
 * Replay XLOG_EI_BUFFER_LINK: a new tail page, a closed tail, or flushed
 * pages unlinked.
 */
static void
ei_redo_buffer_link(XLogReaderState *record)
{
	xl_ei_buffer_link *xlrec = (xl_ei_buffer_link *)
		EIRedoGetData(record, SizeOfEIBufferLink, "buffer link");
	Buffer		buf;

	switch (xlrec->op)
	{
		case OSM_LINK_NEWPAGE:
			{
				BlockNumber newblk;

				XLogRecGetBlockTag(record, 1, NULL, NULL, &newblk);
				buf = XLogInitBufferForRedo(record, 1);
				OsmBufferPageInit(BufferGetPage(buf), xlrec->bloom_bytes,
								  xlrec->bloom_probes);
				PageSetLSN(BufferGetPage(buf), record->EndRecPtr);
				MarkBufferDirty(buf);
				UnlockReleaseBuffer(buf);

				if (XLogRecHasBlockRef(record, 2))
				{
					if (XLogReadBufferForRedo(record, 2, &buf) == BLK_NEEDS_REDO)
					{
						Page		page = BufferGetPage(buf);

						EIPageGetOpaque(page)->ei_next = newblk;
						EIPageGetOpaque(page)->ei_flags |= EI_BUFFER_CLOSED;
						PageSetLSN(page, record->EndRecPtr);
						MarkBufferDirty(buf);
					}
					if (BufferIsValid(buf))
						UnlockReleaseBuffer(buf);
				}
				if (XLogRecHasBlockRef(record, 3))
					ei_redo_section_filter(record, 3);
				EIRedoMetapage(record, 0);
				break;
			}
		case OSM_LINK_FILTER:
			/* always a full-page image */
			if (XLogReadBufferForRedo(record, 0, &buf) != BLK_RESTORED)
				elog(ERROR, "elastic_index redo: section filter record without its page image");
			UnlockReleaseBuffer(buf);
			break;
		case OSM_LINK_SEAL:
			if (XLogReadBufferForRedo(record, 0, &buf) == BLK_NEEDS_REDO)
			{
				Page		page = BufferGetPage(buf);

				EIPageGetOpaque(page)->ei_flags |= EI_BUFFER_CLOSED;
				PageSetLSN(page, record->EndRecPtr);
				MarkBufferDirty(buf);
			}
			if (BufferIsValid(buf))
				UnlockReleaseBuffer(buf);
			break;
		case OSM_LINK_SORT:
			if (XLogReadBufferForRedo(record, 0, &buf) == BLK_NEEDS_REDO)
			{
				Page		page = BufferGetPage(buf);
				Size		len;
				char	   *data = EIRedoGetBlockData(record, 0, 0, &len,
													  "buffer sort");
				OffsetNumber *order;

				EIRedoCheckLength(len, OsmPageGetNEntries(page) * sizeof(OffsetNumber),
								  "buffer sort");
				order = (OffsetNumber *) EIRedoCopyData(data, len);

				OsmBufferPageSort(page, order,
								  (int) (len / sizeof(OffsetNumber)));
				pfree(order);
				PageSetLSN(page, record->EndRecPtr);
				MarkBufferDirty(buf);
			}
			if (BufferIsValid(buf))
				UnlockReleaseBuffer(buf);
			break;
		case OSM_LINK_UNLINK:
			for (int i = 1; i <= xlrec->npages; i++)
			{
				Size		len;
				char	   *data = EIRedoGetBlockData(record, i, 0, &len,
													  "buffer unlink");
				BlockNumber next;

				EIRedoCheckLength(len, sizeof(BlockNumber), "buffer unlink");
				memcpy(&next, data, sizeof(BlockNumber));
				buf = XLogInitBufferForRedo(record, i);
				EIPageSetDeleted(BufferGetPage(buf), InvalidBlockNumber, next,
								 0, xlrec->safexid);
				PageSetLSN(BufferGetPage(buf), record->EndRecPtr);
				MarkBufferDirty(buf);
				UnlockReleaseBuffer(buf);
			}
			EIRedoMetapage(record, 0);
			break;
		default:
			elog(PANIC, "elastic_index redo: unknown buffer link op %u", xlrec->op);
	}
}

/*
 * Describe one of these records.
 */
static void
ei_desc_buffer(StringInfo buf, XLogReaderState *record)
{
	char	   *rec = XLogRecGetData(record);
	uint8		info = XLogRecGetInfo(record) & ~XLR_INFO_MASK;

	switch (info)
	{
		case XLOG_EI_BUFFER_ADD:
			{
				xl_ei_buffer_add *xlrec = (xl_ei_buffer_add *) rec;

				appendStringInfo(buf, "ntuples: %u, minoff: %u, maxoff: %u",
								 xlrec->ntuples, xlrec->minoff, xlrec->maxoff);
				break;
			}
		case XLOG_EI_BUFFER_LINK:
			{
				xl_ei_buffer_link *xlrec = (xl_ei_buffer_link *) rec;
				static const char *const ops[] = {"?", "newpage", "seal", "unlink", "sort", "filter"};

				appendStringInfo(buf, "%s, npages: %u",
								 xlrec->op < lengthof(ops) ? ops[xlrec->op] : "?",
								 xlrec->npages);
				break;
			}
	}
}

/* The records, as the policy table hands them to the resource manager. */
const EIRecordKind OsmRecords[] = {
	{XLOG_EI_BUFFER_ADD, "BUFFER_ADD", ei_redo_buffer_add, ei_desc_buffer},
	{XLOG_EI_BUFFER_LINK, "BUFFER_LINK", ei_redo_buffer_link, ei_desc_buffer},
	{0, NULL, NULL, NULL}
};
