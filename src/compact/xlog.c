/*-------------------------------------------------------------------------
 *
 * xlog.c
 *	  Redo and description of the compact leaf kind's WAL records: entries
 *	  added to and removed from compact leaves, and compact leaves made,
 *	  split or expanded (full page images).
 *
 * The core's resource manager dispatches these records here through the
 * EIRecordKind table the leaf kind registers (eicompact.h).  Redo changes
 * pages through the same functions the primary used (EICompactInsertAt,
 * EICompactDeleteMany), so a standby's pages are byte-identical.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/xlogutils.h"
#include "storage/standby.h"
#include "eicompact.h"

/*
 * Replay XLOG_EI_COMPACT_INSERT: the same seqtree_insert_at as the primary.
 */
static void
ei_redo_compact_insert(XLogReaderState *record)
{
	xl_ei_compact_insert *xlrec = (xl_ei_compact_insert *)
		EIRedoGetData(record, SizeOfEICompactInsert, "compact insert");
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
	xl_ei_compact_delete *xlrec = (xl_ei_compact_delete *)
		EIRedoGetData(record, SizeOfEICompactDelete, "compact delete");
	bool		cleanup = (xlrec->flags & EI_XLOG_COMPACT_VACUUM) != 0;
	Buffer		buf;

	/* entries of HOT chains not yet pruned: cancel queries that see them */
	if ((xlrec->flags & EI_XLOG_COMPACT_HORIZON) && InHotStandby)
	{
		TransactionId horizon;
		EIRelFileLocator loc;

		if (XLogRecGetDataLen(record) <
			SizeOfEICompactDelete + sizeof(TransactionId))
			elog(PANIC, "elastic_index redo: compact delete: no conflict horizon");
		memcpy(&horizon, XLogRecGetData(record) + SizeOfEICompactDelete,
			   sizeof(TransactionId));
		XLogRecGetBlockTag(record, 0, &loc, NULL, NULL);
		EIResolveConflictWithSnapshot(horizon,
									  (xlrec->flags & EI_XLOG_COMPACT_CATALOG) != 0,
									  loc);
	}

	if (XLogReadBufferForRedoExtended(record, 0, RBM_NORMAL, cleanup, &buf) ==
		BLK_NEEDS_REDO)
	{
		Page		page = BufferGetPage(buf);

		/* none: the record only resolved the conflict above */
		if (xlrec->ndeleted > 0)
		{
			Size		len;
			char	   *data = EIRedoGetBlockData(record, 0, 0, &len,
												  "compact delete");
			uint16	   *positions;

			EIRedoCheckLength(len, xlrec->ndeleted * sizeof(uint16),
							  "compact delete");
			positions = (uint16 *) EIRedoCopyData(data, len);
			EICompactDeleteMany(page, positions, xlrec->ndeleted);
		}
		PageSetLSN(page, record->EndRecPtr);
		MarkBufferDirty(buf);
	}
	if (BufferIsValid(buf))
		UnlockReleaseBuffer(buf);
}

/*
 * Replay XLOG_EI_COMPACT_IMAGE: restore every image and fix the right
 * sibling's link, holding all of them locked until the last is in place, as
 * the primary held them.
 */
static void
ei_redo_compact_image(XLogReaderState *record)
{
	xl_ei_compact_image *xlrec = (xl_ei_compact_image *)
		EIRedoGetData(record, SizeOfEICompactImage, "compact image");
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
	if (xlrec->flags & EI_XLOG_IMAGE_SIBLING)
		EIRedoSetLeftLink(record, xlrec->nimages, lastblk);
	for (i = 0; i < xlrec->nimages; i++)
		UnlockReleaseBuffer(bufs[i]);
}

/*
 * Describe one of these records.
 */
static void
ei_desc_compact(StringInfo buf, XLogReaderState *record)
{
	char	   *rec = XLogRecGetData(record);
	uint8		info = XLogRecGetInfo(record) & ~XLR_INFO_MASK;

	switch (info)
	{
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
				if ((xlrec->flags & EI_XLOG_COMPACT_HORIZON) &&
					XLogRecGetDataLen(record) >=
					SizeOfEICompactDelete + sizeof(TransactionId))
				{
					TransactionId horizon;

					memcpy(&horizon, rec + SizeOfEICompactDelete,
						   sizeof(TransactionId));
					appendStringInfo(buf, ", horizon: %u", horizon);
				}
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
	}
}

/* The records, as the leaf kind hands them to the resource manager. */
const EIRecordKind EICompactRecords[] = {
	{XLOG_EI_COMPACT_INSERT, "COMPACT_INSERT", ei_redo_compact_insert, ei_desc_compact},
	{XLOG_EI_COMPACT_DELETE, "COMPACT_DELETE", ei_redo_compact_delete, ei_desc_compact},
	{XLOG_EI_COMPACT_IMAGE, "COMPACT_IMAGE", ei_redo_compact_image, ei_desc_compact},
	{0, NULL, NULL, NULL}
};
