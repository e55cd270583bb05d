/*-------------------------------------------------------------------------
 *
 * xlog.c
 *	  The elastic_index WAL resource manager: redo, description and masking
 *	  of every record the tree core writes.
 *
 * Redo changes pages through the same functions the primary used
 * (EISplitBuildPages, EIDeleteItems, EIInitMetaPage), so that a standby's
 * pages are byte-identical to the primary's apart from hint bits; rm_mask
 * hides exactly those hints from wal_consistency_checking.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/bufmask.h"
#include "access/xlog_internal.h"
#include "access/xlogutils.h"
#include "bloomfilter.h"
#include "eitree.h"
#include "eitree_xlog.h"
#include "storage/standby.h"
#include "utils/memutils.h"

static MemoryContext ei_redo_cxt = NULL;

static void ei_redo_set_left_link(XLogReaderState *record, uint8 block_id,
								  BlockNumber leftblk);

/*
 * Return a MAXALIGNed private copy of len bytes of record data.
 */
static char *
ei_copy_data(const char *data, Size len)
{
	char	   *copy = palloc(MAXALIGN(len));

	memcpy(copy, data, len);
	return copy;
}

/*
 * Clear the incomplete-split flag of a child page (block id), if it needs redo.
 */
static void
ei_redo_clear_incomplete(XLogReaderState *record, uint8 block_id)
{
	Buffer		buf;

	if (XLogReadBufferForRedo(record, block_id, &buf) == BLK_NEEDS_REDO)
	{
		Page		page = BufferGetPage(buf);

		EIPageGetOpaque(page)->ei_flags &= ~EI_INCOMPLETE_SPLIT;
		PageSetLSN(page, record->EndRecPtr);
		MarkBufferDirty(buf);
	}
	if (BufferIsValid(buf))
		UnlockReleaseBuffer(buf);
}

/*
 * Replay XLOG_EI_INSERT_LEAF and XLOG_EI_INSERT_INNER.
 */
static void
ei_redo_insert(XLogReaderState *record, bool isleaf)
{
	xl_ei_insert *xlrec = (xl_ei_insert *) XLogRecGetData(record);
	Buffer		buf;

	/* finish the child first: in normal operation it was locked first too */
	if (!isleaf)
		ei_redo_clear_incomplete(record, 1);

	if (XLogReadBufferForRedo(record, 0, &buf) == BLK_NEEDS_REDO)
	{
		Page		page = BufferGetPage(buf);
		Size		len;
		char	   *data = XLogRecGetBlockData(record, 0, &len);
		char	   *itup = ei_copy_data(data, len);

		if (PageAddItem(page, (Item) itup, len, xlrec->offnum,
						false, false) == InvalidOffsetNumber)
			elog(PANIC, "elastic_index redo: failed to add item");
		PageSetLSN(page, record->EndRecPtr);
		MarkBufferDirty(buf);
	}
	if (BufferIsValid(buf))
		UnlockReleaseBuffer(buf);
}

/*
 * Replay XLOG_EI_INSERT_MULTI: add the tuples at their offsets, in order.
 */
static void
ei_redo_insert_multi(XLogReaderState *record)
{
	xl_ei_insert_multi *xlrec = (xl_ei_insert_multi *) XLogRecGetData(record);
	Buffer		buf;

	if (XLogReadBufferForRedo(record, 0, &buf) == BLK_NEEDS_REDO)
	{
		Page		page = BufferGetPage(buf);
		Size		len;
		char	   *data = XLogRecGetBlockData(record, 0, &len);
		OffsetNumber *offsets = (OffsetNumber *) ei_copy_data(data,
															  sizeof(OffsetNumber) * xlrec->nitems);
		char	   *tuples = data + sizeof(OffsetNumber) * xlrec->nitems;

		for (int i = 0; i < xlrec->nitems; i++)
		{
			IndexTupleData hdr;
			Size		sz;
			char	   *itup;

			memcpy(&hdr, tuples, sizeof(IndexTupleData));
			sz = MAXALIGN(IndexTupleSize(&hdr));
			itup = ei_copy_data(tuples, sz);
			if (PageAddItem(page, (Item) itup, sz, offsets[i],
							false, false) == InvalidOffsetNumber)
				elog(PANIC, "elastic_index redo: failed to add item");
			pfree(itup);
			tuples += sz;
		}
		pfree(offsets);
		PageSetLSN(page, record->EndRecPtr);
		MarkBufferDirty(buf);
	}
	if (BufferIsValid(buf))
		UnlockReleaseBuffer(buf);
}

/*
 * Replay XLOG_EI_SPLIT.
 */
static void
ei_redo_split(XLogReaderState *record)
{
	xl_ei_split *xlrec = (xl_ei_split *) XLogRecGetData(record);
	bool		newitemonleft = (xlrec->flags & EI_XLOG_SPLIT_NEWITEM_LEFT) != 0;
	BlockNumber rightblk;
	Buffer		lbuf;
	Buffer		rbuf;

	XLogRecGetBlockTag(record, 1, NULL, NULL, &rightblk);

	/* the right page comes whole from its image */
	if (XLogReadBufferForRedo(record, 1, &rbuf) != BLK_RESTORED)
		elog(ERROR, "elastic_index redo: right half of split was not logged as an image");

	if (XLogReadBufferForRedo(record, 0, &lbuf) == BLK_NEEDS_REDO)
	{
		Page		origpage = BufferGetPage(lbuf);
		EIPageOpaque oopaque = EIPageGetOpaque(origpage);
		Size		len;
		char	   *data = XLogRecGetBlockData(record, 0, &len);
		IndexTuple	newitem = NULL;
		IndexTuple	lefthikey;
		Page		leftpage;
		EIPageOpaque lopaque;
		Size		sz;

		if (newitemonleft)
		{
			IndexTupleData hdr;

			memcpy(&hdr, data, sizeof(IndexTupleData));
			sz = MAXALIGN(IndexTupleSize(&hdr));
			newitem = (IndexTuple) ei_copy_data(data, sz);
			data += sz;
			len -= sz;
		}
		lefthikey = (IndexTuple) ei_copy_data(data, len);

		leftpage = PageGetTempPage(origpage);
		EISplitBuildPages(NULL, origpage, xlrec->firstrightoff,
						  xlrec->newitemoff, newitem, newitemonleft,
						  lefthikey, leftpage, NULL);
		lopaque = EIPageGetOpaque(leftpage);
		lopaque->ei_prev = oopaque->ei_prev;
		lopaque->ei_next = rightblk;

		PageRestoreTempPage(leftpage, origpage);
		PageSetLSN(origpage, record->EndRecPtr);
		MarkBufferDirty(lbuf);
	}

	/* hold the halves locked until both are in place, as the primary did */
	if (BufferIsValid(lbuf))
		UnlockReleaseBuffer(lbuf);
	UnlockReleaseBuffer(rbuf);

	if (XLogRecHasBlockRef(record, 2))
		ei_redo_set_left_link(record, 2, rightblk);

	if (XLogRecHasBlockRef(record, 3))
		ei_redo_clear_incomplete(record, 3);
}

/*
 * Replay the change of a split page's right sibling: its left link now
 * points to leftblk, the new page in between.
 */
static void
ei_redo_set_left_link(XLogReaderState *record, uint8 block_id,
					  BlockNumber leftblk)
{
	Buffer		sbuf;

	if (XLogReadBufferForRedo(record, block_id, &sbuf) == BLK_NEEDS_REDO)
	{
		Page		spage = BufferGetPage(sbuf);

		EIPageGetOpaque(spage)->ei_prev = leftblk;
		PageSetLSN(spage, record->EndRecPtr);
		MarkBufferDirty(sbuf);
	}
	if (BufferIsValid(sbuf))
		UnlockReleaseBuffer(sbuf);
}

/*
 * Replay XLOG_EI_COMPACT_INSERT: the same seqtree_insert_at as the primary.
 */
static void
ei_redo_compact_insert(XLogReaderState *record)
{
	xl_ei_compact_insert *xlrec = (xl_ei_compact_insert *) XLogRecGetData(record);
	Buffer		buf;

	if (XLogReadBufferForRedo(record, 0, &buf) == BLK_NEEDS_REDO)
	{
		Page		page = BufferGetPage(buf);

		if (!EICompactInsertAt(page, xlrec->pos, xlrec->lbit, xlrec->rbit,
							   &xlrec->tid))
			elog(PANIC, "elastic_index redo: compact leaf has no room for the logged entry");
		PageSetLSN(page, record->EndRecPtr);
		MarkBufferDirty(buf);
	}
	if (BufferIsValid(buf))
		UnlockReleaseBuffer(buf);
}

/*
 * Replay XLOG_EI_COMPACT_DELETE, under a cleanup lock when VACUUM logged it
 * (so that no standby scan still holds TIDs read from the page).
 */
static void
ei_redo_compact_delete(XLogReaderState *record)
{
	xl_ei_compact_delete *xlrec = (xl_ei_compact_delete *) XLogRecGetData(record);
	bool		cleanup = (xlrec->flags & EI_XLOG_COMPACT_VACUUM) != 0;
	Buffer		buf;

	if (XLogReadBufferForRedoExtended(record, 0, RBM_NORMAL, cleanup, &buf) ==
		BLK_NEEDS_REDO)
	{
		Page		page = BufferGetPage(buf);
		Size		len;
		char	   *data = XLogRecGetBlockData(record, 0, &len);
		uint16	   *positions;

		if (len != xlrec->ndeleted * sizeof(uint16))
			elog(PANIC, "elastic_index redo: compact delete record has %zu bytes of positions for %u entries",
				 len, xlrec->ndeleted);
		positions = (uint16 *) ei_copy_data(data, len);
		EICompactDeleteMany(page, positions, xlrec->ndeleted);
		PageSetLSN(page, record->EndRecPtr);
		MarkBufferDirty(buf);
	}
	if (BufferIsValid(buf))
		UnlockReleaseBuffer(buf);
}

/*
 * Replay XLOG_EI_COMPACT_IMAGE: restore every image, holding them all
 * locked until the last is in place, then fix the right sibling's link.
 */
static void
ei_redo_compact_image(XLogReaderState *record)
{
	xl_ei_compact_image *xlrec = (xl_ei_compact_image *) XLogRecGetData(record);
	Buffer		bufs[2];
	BlockNumber lastblk = InvalidBlockNumber;
	int			i;

	if (xlrec->nimages < 1 || xlrec->nimages > lengthof(bufs))
		elog(PANIC, "elastic_index redo: compact image record with %u images",
			 xlrec->nimages);
	for (i = 0; i < xlrec->nimages; i++)
	{
		if (XLogReadBufferForRedo(record, i, &bufs[i]) != BLK_RESTORED)
			elog(PANIC, "elastic_index redo: compact leaf was not logged as an image");
		XLogRecGetBlockTag(record, i, NULL, NULL, &lastblk);
	}
	for (i = 0; i < xlrec->nimages; i++)
		UnlockReleaseBuffer(bufs[i]);

	if (xlrec->flags & EI_XLOG_IMAGE_SIBLING)
		ei_redo_set_left_link(record, xlrec->nimages, lastblk);
}

/*
 * Replay XLOG_EI_NEWROOT and XLOG_EI_META: the metapage is rewritten whole.
 */
static void
ei_redo_metapage(XLogReaderState *record, uint8 block_id)
{
	Buffer		metabuf = XLogInitBufferForRedo(record, block_id);
	Page		metapage = BufferGetPage(metabuf);
	Size		len;
	char	   *data = XLogRecGetBlockData(record, block_id, &len);
	xl_ei_metadata md;

	Assert(len == sizeof(xl_ei_metadata));
	memcpy(&md, data, sizeof(xl_ei_metadata));
	EIInitMetaPage(metapage, md.am_kind, md.root, md.level, md.fillfactor);
	memcpy(EIPageGetMeta(metapage), &md, sizeof(xl_ei_metadata));
	PageSetLSN(metapage, record->EndRecPtr);
	MarkBufferDirty(metabuf);
	UnlockReleaseBuffer(metabuf);
}

/*
 * Replay XLOG_EI_NEWROOT.
 */
static void
ei_redo_newroot(XLogReaderState *record)
{
	Buffer		rootbuf;

	if (XLogReadBufferForRedo(record, 0, &rootbuf) != BLK_RESTORED)
		elog(ERROR, "elastic_index redo: new root was not logged as an image");

	ei_redo_clear_incomplete(record, 1);
	ei_redo_metapage(record, 2);
	UnlockReleaseBuffer(rootbuf);
}

/*
 * Remove the leaf items whose offsets block 0 carries (VACUUM and DELETE).
 *
 * VACUUM's removal takes a cleanup lock, as VACUUM itself did, so that no
 * standby scan paused on the page loses entries it has yet to return.
 */
static void
ei_redo_remove_items(XLogReaderState *record, uint16 ndeleted,
					 bool cleanup_lock)
{
	Buffer		buf;

	if (XLogReadBufferForRedoExtended(record, 0, RBM_NORMAL, cleanup_lock,
									  &buf) == BLK_NEEDS_REDO)
	{
		Page		page = BufferGetPage(buf);
		Size		len;
		char	   *data = XLogRecGetBlockData(record, 0, &len);
		OffsetNumber *offs = (OffsetNumber *) ei_copy_data(data, len);

		Assert(len == ndeleted * sizeof(OffsetNumber));
		EIDeleteItems(page, offs, ndeleted);
		PageSetLSN(page, record->EndRecPtr);
		MarkBufferDirty(buf);
	}
	if (BufferIsValid(buf))
		UnlockReleaseBuffer(buf);
}

/*
 * Replay XLOG_EI_DELETE: first cancel standby queries that could still see
 * the removed tuples, then remove the items.
 */
static void
ei_redo_delete(XLogReaderState *record)
{
	xl_ei_delete *xlrec = (xl_ei_delete *) XLogRecGetData(record);

	if (InHotStandby)
	{
		EIRelFileLocator loc;
		bool		isCatalogRel = false;

		if (XLogRecGetDataLen(record) >= SizeOfEIDelete)
			isCatalogRel = xlrec->isCatalogRel;
		XLogRecGetBlockTag(record, 0, &loc, NULL, NULL);
		EIResolveConflictWithSnapshot(xlrec->latestRemovedXid, isCatalogRel,
									  loc);
	}
	ei_redo_remove_items(record, xlrec->ndeleted, false);
}

/*
 * Replay XLOG_EI_MARK_HALFDEAD.
 */
static void
ei_redo_mark_halfdead(XLogReaderState *record)
{
	xl_ei_mark_halfdead *xlrec = (xl_ei_mark_halfdead *) XLogRecGetData(record);
	Buffer		buf;
	uint8		block_id;

	/* the leaf was locked first on the primary */
	if (XLogReadBufferForRedo(record, 0, &buf) == BLK_NEEDS_REDO)
	{
		Page		page = BufferGetPage(buf);

		EIPageMarkHalfDead(page, NULL, InvalidOffsetNumber, InvalidBlockNumber,
						   xlrec->topparent);
		PageSetLSN(page, record->EndRecPtr);
		MarkBufferDirty(buf);
	}
	if (BufferIsValid(buf))
		UnlockReleaseBuffer(buf);

	for (block_id = 2; block_id <= 3; block_id++)
	{
		if (!XLogRecHasBlockRef(record, block_id))
			continue;
		if (XLogReadBufferForRedo(record, block_id, &buf) == BLK_NEEDS_REDO)
		{
			Page		page = BufferGetPage(buf);

			EIPageGetOpaque(page)->ei_flags |= EI_HALF_DEAD;
			PageSetLSN(page, record->EndRecPtr);
			MarkBufferDirty(buf);
		}
		if (BufferIsValid(buf))
			UnlockReleaseBuffer(buf);
	}

	if (XLogReadBufferForRedo(record, 1, &buf) == BLK_NEEDS_REDO)
	{
		Page		ppage = BufferGetPage(buf);

		EIPageMarkHalfDead(NULL, ppage, xlrec->poffset, xlrec->rightblk,
						   InvalidBlockNumber);
		PageSetLSN(ppage, record->EndRecPtr);
		MarkBufferDirty(buf);
	}
	if (BufferIsValid(buf))
		UnlockReleaseBuffer(buf);
}

/*
 * Replay XLOG_EI_UNLINK_PAGE: siblings left to right, as the primary locked.
 */
static void
ei_redo_unlink_page(XLogReaderState *record)
{
	xl_ei_unlink_page *xlrec = (xl_ei_unlink_page *) XLogRecGetData(record);
	Buffer		lbuf = InvalidBuffer;
	Buffer		tbuf;
	Buffer		rbuf;

	if (XLogRecHasBlockRef(record, 0) &&
		XLogReadBufferForRedo(record, 0, &lbuf) == BLK_NEEDS_REDO)
	{
		Page		page = BufferGetPage(lbuf);

		EIPageGetOpaque(page)->ei_next = xlrec->rightblk;
		PageSetLSN(page, record->EndRecPtr);
		MarkBufferDirty(lbuf);
	}

	tbuf = XLogInitBufferForRedo(record, 1);
	EIPageSetDeleted(BufferGetPage(tbuf), xlrec->leftblk, xlrec->rightblk,
					 xlrec->level, xlrec->safexid);
	PageSetLSN(BufferGetPage(tbuf), record->EndRecPtr);
	MarkBufferDirty(tbuf);

	if (XLogReadBufferForRedo(record, 2, &rbuf) == BLK_NEEDS_REDO)
	{
		Page		page = BufferGetPage(rbuf);

		EIPageGetOpaque(page)->ei_prev = xlrec->leftblk;
		PageSetLSN(page, record->EndRecPtr);
		MarkBufferDirty(rbuf);
	}

	if (XLogRecHasBlockRef(record, 3))
	{
		Buffer		leafbuf;

		if (XLogReadBufferForRedo(record, 3, &leafbuf) == BLK_NEEDS_REDO)
		{
			Page		page = BufferGetPage(leafbuf);

			EITupleSetDownlink(EIReadTuple(page, EI_HIKEY), xlrec->leaftopparent);
			PageSetLSN(page, record->EndRecPtr);
			MarkBufferDirty(leafbuf);
		}
		if (BufferIsValid(leafbuf))
			UnlockReleaseBuffer(leafbuf);
	}

	if (BufferIsValid(rbuf))
		UnlockReleaseBuffer(rbuf);
	UnlockReleaseBuffer(tbuf);
	if (BufferIsValid(lbuf))
		UnlockReleaseBuffer(lbuf);
}

/*
 * Replay XLOG_EI_REUSE_PAGE: only a recovery conflict, no page change.
 */
static void
ei_redo_reuse_page(XLogReaderState *record)
{
	xl_ei_reuse_page *xlrec = (xl_ei_reuse_page *) XLogRecGetData(record);

	if (InHotStandby)
		EIResolveConflictWithSnapshotFullXid(xlrec->safexid,
											 XLogRecGetDataLen(record) >= SizeOfEIReusePage &&
											 xlrec->isCatalogRel,
											 xlrec->node);
}

/*
 * Replay XLOG_EI_BUFFER_ADD: append the entries to the buffer page, add
 * their hashes to its filter, set its zonemap.
 */
static void
ei_redo_buffer_add(XLogReaderState *record)
{
	xl_ei_buffer_add *xlrec = (xl_ei_buffer_add *) XLogRecGetData(record);
	Buffer		buf;

	if (XLogReadBufferForRedo(record, 0, &buf) == BLK_NEEDS_REDO)
	{
		Page		page = BufferGetPage(buf);
		OsmBufferSummary *summary = OsmPageGetSummary(page);
		Size		len;
		char	   *data = XLogRecGetBlockData(record, 0, &len);
		char	   *tuples = data;
		OffsetNumber off = OffsetNumberNext(PageGetMaxOffsetNumber(page));

		if (summary->bloom_bytes > 0)
			tuples += sizeof(uint64) * xlrec->ntuples;
		for (int i = 0; i < xlrec->ntuples; i++, off++)
		{
			IndexTupleData hdr;
			Size		sz;
			char	   *itup;

			memcpy(&hdr, tuples, sizeof(IndexTupleData));
			sz = MAXALIGN(IndexTupleSize(&hdr));
			itup = ei_copy_data(tuples, sz);
			if (PageAddItem(page, (Item) itup, sz, off, false, false) ==
				InvalidOffsetNumber)
				elog(PANIC, "elastic_index redo: failed to add buffer entry");
			pfree(itup);
			tuples += sz;
			if (summary->bloom_bytes > 0)
			{
				uint64		hash;

				memcpy(&hash, data + sizeof(uint64) * i, sizeof(uint64));
				bloom_filter_add(summary->bloom, summary->bloom_bytes,
								 summary->bloom_probes, hash);
			}
		}
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
	memcpy(&xlfilter, data, sizeof(xlfilter));
	if (len != sizeof(xlfilter) + sizeof(uint64) * xlfilter.nhashes +
		((xlfilter.flags & XLF_ZONE) ? sizeof(OsmSectionZone) : 0))
		elog(ERROR, "elastic_index redo: section filter block of %zu bytes for %u hashes",
			 len, xlfilter.nhashes);
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
			hashes = (uint64 *) ei_copy_data(data + sizeof(xlfilter), hashbytes);
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
	xl_ei_buffer_link *xlrec = (xl_ei_buffer_link *) XLogRecGetData(record);
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
				ei_redo_metapage(record, 0);
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
				char	   *data = XLogRecGetBlockData(record, 0, &len);
				OffsetNumber *order = (OffsetNumber *) ei_copy_data(data, len);

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
				char	   *data = XLogRecGetBlockData(record, i, &len);
				BlockNumber next;

				Assert(len == sizeof(BlockNumber));
				memcpy(&next, data, sizeof(BlockNumber));
				buf = XLogInitBufferForRedo(record, i);
				EIPageSetDeleted(BufferGetPage(buf), InvalidBlockNumber, next,
								 0, xlrec->safexid);
				PageSetLSN(BufferGetPage(buf), record->EndRecPtr);
				MarkBufferDirty(buf);
				UnlockReleaseBuffer(buf);
			}
			ei_redo_metapage(record, 0);
			break;
		default:
			elog(PANIC, "elastic_index redo: unknown buffer link op %u", xlrec->op);
	}
}


/*
 * Redo one record of our resource manager.
 */
void
ei_redo(XLogReaderState *record)
{
	uint8		info = XLogRecGetInfo(record) & ~XLR_INFO_MASK;
	MemoryContext oldcxt;

	if (ei_redo_cxt == NULL)
		ei_redo_cxt = AllocSetContextCreate(TopMemoryContext,
											"elastic_index redo",
											ALLOCSET_DEFAULT_SIZES);
	oldcxt = MemoryContextSwitchTo(ei_redo_cxt);

	switch (info)
	{
		case XLOG_EI_INSERT_LEAF:
			ei_redo_insert(record, true);
			break;
		case XLOG_EI_INSERT_INNER:
			ei_redo_insert(record, false);
			break;
		case XLOG_EI_SPLIT:
			ei_redo_split(record);
			break;
		case XLOG_EI_NEWROOT:
			ei_redo_newroot(record);
			break;
		case XLOG_EI_VACUUM:
			ei_redo_remove_items(record,
								 ((xl_ei_vacuum *) XLogRecGetData(record))->ndeleted,
								 true);
			break;
		case XLOG_EI_META:
			ei_redo_metapage(record, 0);
			break;
		case XLOG_EI_DELETE:
			ei_redo_delete(record);
			break;
		case XLOG_EI_MARK_HALFDEAD:
			ei_redo_mark_halfdead(record);
			break;
		case XLOG_EI_UNLINK_PAGE:
			ei_redo_unlink_page(record);
			break;
		case XLOG_EI_REUSE_PAGE:
			ei_redo_reuse_page(record);
			break;
		case XLOG_EI_COMPACT_INSERT:
			ei_redo_compact_insert(record);
			break;
		case XLOG_EI_COMPACT_DELETE:
			ei_redo_compact_delete(record);
			break;
		case XLOG_EI_COMPACT_IMAGE:
			ei_redo_compact_image(record);
			break;
		case XLOG_EI_INSERT_MULTI:
			ei_redo_insert_multi(record);
			break;
		case XLOG_EI_BUFFER_ADD:
			ei_redo_buffer_add(record);
			break;
		case XLOG_EI_BUFFER_LINK:
			ei_redo_buffer_link(record);
			break;
		default:
			elog(PANIC, "elastic_index redo: unknown op code %u", info);
	}

	MemoryContextSwitchTo(oldcxt);
	MemoryContextReset(ei_redo_cxt);
}

/*
 * Describe a record for pg_waldump and error contexts.
 */
void
ei_desc(StringInfo buf, XLogReaderState *record)
{
	char	   *rec = XLogRecGetData(record);
	uint8		info = XLogRecGetInfo(record) & ~XLR_INFO_MASK;

	switch (info)
	{
		case XLOG_EI_INSERT_LEAF:
		case XLOG_EI_INSERT_INNER:
			appendStringInfo(buf, "off: %u", ((xl_ei_insert *) rec)->offnum);
			break;
		case XLOG_EI_SPLIT:
			{
				xl_ei_split *xlrec = (xl_ei_split *) rec;

				appendStringInfo(buf, "level: %u, firstrightoff: %u, newitemoff: %u, newitem on %s",
								 xlrec->level, xlrec->firstrightoff,
								 xlrec->newitemoff,
								 (xlrec->flags & EI_XLOG_SPLIT_NEWITEM_LEFT) ?
								 "left" : "right");
				break;
			}
		case XLOG_EI_NEWROOT:
			appendStringInfo(buf, "level: %u", ((xl_ei_newroot *) rec)->level);
			break;
		case XLOG_EI_VACUUM:
			appendStringInfo(buf, "ndeleted: %u", ((xl_ei_vacuum *) rec)->ndeleted);
			break;
		case XLOG_EI_META:
			{
				Size		len;
				char	   *data = XLogRecGetBlockData(record, 0, &len);

				if (data != NULL && len == sizeof(xl_ei_metadata))
				{
					xl_ei_metadata md;

					memcpy(&md, data, sizeof(xl_ei_metadata));
					appendStringInfo(buf, "root: %u, level: %u, recycle_fence: %X/%X",
									 md.root, md.level,
									 LSN_FORMAT_ARGS(md.recycle_fence));
				}
				break;
			}
		case XLOG_EI_DELETE:
			{
				xl_ei_delete *xlrec = (xl_ei_delete *) rec;

				appendStringInfo(buf, "latestRemovedXid: %u, ndeleted: %u",
								 xlrec->latestRemovedXid, xlrec->ndeleted);
				if (XLogRecGetDataLen(record) >= SizeOfEIDelete)
					appendStringInfo(buf, ", isCatalogRel: %c",
									 xlrec->isCatalogRel ? 'T' : 'F');
				break;
			}
		case XLOG_EI_MARK_HALFDEAD:
			{
				xl_ei_mark_halfdead *xlrec = (xl_ei_mark_halfdead *) rec;

				appendStringInfo(buf, "poffset: %u, rightblk: %u, topparent: %u",
								 xlrec->poffset, xlrec->rightblk, xlrec->topparent);
				break;
			}
		case XLOG_EI_UNLINK_PAGE:
			{
				xl_ei_unlink_page *xlrec = (xl_ei_unlink_page *) rec;

				appendStringInfo(buf, "leftblk: %u, rightblk: %u, level: %u, leaftopparent: %u, safexid: %u:%u",
								 xlrec->leftblk, xlrec->rightblk, xlrec->level,
								 xlrec->leaftopparent,
								 EpochFromFullTransactionId(xlrec->safexid),
								 XidFromFullTransactionId(xlrec->safexid));
				break;
			}
		case XLOG_EI_COMPACT_INSERT:
			{
				xl_ei_compact_insert *xlrec = (xl_ei_compact_insert *) rec;

				appendStringInfo(buf, "pos: %d, lbit: %d, rbit: %d, tid: (%u,%u)",
								 xlrec->pos, xlrec->lbit, xlrec->rbit,
								 ItemPointerGetBlockNumberNoCheck(&xlrec->tid),
								 ItemPointerGetOffsetNumberNoCheck(&xlrec->tid));
				break;
			}
		case XLOG_EI_COMPACT_DELETE:
			{
				xl_ei_compact_delete *xlrec = (xl_ei_compact_delete *) rec;

				appendStringInfo(buf, "ndeleted: %u%s", xlrec->ndeleted,
								 (xlrec->flags & EI_XLOG_COMPACT_VACUUM) ?
								 ", vacuum" : "");
				break;
			}
		case XLOG_EI_COMPACT_IMAGE:
			{
				xl_ei_compact_image *xlrec = (xl_ei_compact_image *) rec;
				static const char *const kinds[] = {"?", "convert", "expand", "split"};

				appendStringInfo(buf, "%s, nimages: %u%s",
								 xlrec->kind < lengthof(kinds) ? kinds[xlrec->kind] : "?",
								 xlrec->nimages,
								 (xlrec->flags & EI_XLOG_IMAGE_SIBLING) ?
								 ", sibling" : "");
				break;
			}
		case XLOG_EI_INSERT_MULTI:
			appendStringInfo(buf, "nitems: %u",
							 ((xl_ei_insert_multi *) rec)->nitems);
			break;
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
		case XLOG_EI_REUSE_PAGE:
			{
				xl_ei_reuse_page *xlrec = (xl_ei_reuse_page *) rec;

				appendStringInfo(buf, "rel: %u/%u/%u, block: %u, safexid: %u:%u",
								 EIRelFileSpc(xlrec->node),
								 EIRelFileDb(xlrec->node),
								 EIRelFileNumber(xlrec->node), xlrec->block,
								 EpochFromFullTransactionId(xlrec->safexid),
								 XidFromFullTransactionId(xlrec->safexid));
				if (XLogRecGetDataLen(record) >= SizeOfEIReusePage)
					appendStringInfo(buf, ", isCatalogRel: %c",
									 xlrec->isCatalogRel ? 'T' : 'F');
				break;
			}
	}
}

/*
 * Name a record type.
 */
const char *
ei_identify(uint8 info)
{
	switch (info & ~XLR_INFO_MASK)
	{
		case XLOG_EI_INSERT_LEAF:
			return "INSERT_LEAF";
		case XLOG_EI_INSERT_INNER:
			return "INSERT_INNER";
		case XLOG_EI_SPLIT:
			return "SPLIT";
		case XLOG_EI_NEWROOT:
			return "NEWROOT";
		case XLOG_EI_VACUUM:
			return "VACUUM";
		case XLOG_EI_META:
			return "META";
		case XLOG_EI_DELETE:
			return "DELETE";
		case XLOG_EI_MARK_HALFDEAD:
			return "MARK_HALFDEAD";
		case XLOG_EI_UNLINK_PAGE:
			return "UNLINK_PAGE";
		case XLOG_EI_REUSE_PAGE:
			return "REUSE_PAGE";
		case XLOG_EI_COMPACT_INSERT:
			return "COMPACT_INSERT";
		case XLOG_EI_COMPACT_DELETE:
			return "COMPACT_DELETE";
		case XLOG_EI_COMPACT_IMAGE:
			return "COMPACT_IMAGE";
		case XLOG_EI_INSERT_MULTI:
			return "INSERT_MULTI";
		case XLOG_EI_BUFFER_ADD:
			return "BUFFER_ADD";
		case XLOG_EI_BUFFER_LINK:
			return "BUFFER_LINK";
	}
	return NULL;
}

/*
 * Mask the parts of a page that may legitimately differ between primary and
 * standby: LSN, checksum, hint bits, unused space, and the LP_DEAD hints
 * (with the EI_HAS_GARBAGE flag that summarizes them), and the EI_ACCESSED
 * hint of compact leaves.
 */
void
ei_mask(char *pagedata, BlockNumber blkno)
{
	Page		page = (Page) pagedata;
	EIPageOpaque opaque;

	mask_page_lsn_and_checksum(page);
	mask_page_hint_bits(page);
	mask_unused_space(page);

	/*
	 * On a compact leaf everything past the high key's line pointer is the
	 * SeqTree image, whose bytes must match exactly.
	 */
	opaque = EIPageGetOpaque(page);
	if (EI_IS_LEAF(opaque) && !(opaque->ei_flags & EI_COMPACT))
		mask_lp_flags(page);
	opaque->ei_flags &= ~(EI_HAS_GARBAGE | EI_ACCESSED);
}

/*
 * Register the resource manager; only possible while preloading.
 */
void
EIRmgrRegister(void)
{
	static RmgrData ei_rmgr = {
		.rm_name = EI_RMGR_NAME,
		.rm_redo = ei_redo,
		.rm_desc = ei_desc,
		.rm_identify = ei_identify,
		.rm_startup = NULL,
		.rm_cleanup = NULL,
		.rm_mask = ei_mask,
		.rm_decode = NULL
	};

	RegisterCustomRmgr(EI_RMGR_ID, &ei_rmgr);
}
