/*-------------------------------------------------------------------------
 *
 * eitree_xlog.h
 *	  WAL records of the elastic_index resource manager.
 *
 * Every record is logical and small: an insert logs the new tuple and its
 * offset, a split logs the new right page as a full image and the left page
 * as "keep items before firstright, plus these".  src/README.md describes
 * each record, the blocks it registers, and how redo replays it.
 *
 *-------------------------------------------------------------------------
 */
#ifndef EITREE_XLOG_H
#define EITREE_XLOG_H

#include "access/transam.h"
#include "access/xlogreader.h"
#include "eitree.h"
#include "lib/stringinfo.h"
#include "storage/off.h"

/*
 * Our fixed custom resource manager id.  128 is RM_EXPERIMENTAL_ID; we use
 * 153, which no extension listed on the PostgreSQL wiki's custom WAL
 * resource manager page claims.
 */
#define EI_RMGR_ID			153
#define EI_RMGR_NAME		"elastic_index"

/* Record types (high 4 bits of xl_info) */
#define XLOG_EI_INSERT_LEAF		0x00	/* add a tuple to a leaf */
#define XLOG_EI_INSERT_INNER	0x10	/* add a downlink, finish a child split */
#define XLOG_EI_SPLIT			0x20	/* split a page (either level) */
#define XLOG_EI_NEWROOT			0x30	/* new root above a split root */
#define XLOG_EI_VACUUM			0x40	/* remove dead leaf items */
#define XLOG_EI_META			0x50	/* rewrite the metapage */
#define XLOG_EI_DELETE			0x60	/* remove dead leaf items before a split */
#define XLOG_EI_MARK_HALFDEAD	0x70	/* page deletion, step 1 */
#define XLOG_EI_UNLINK_PAGE		0x80	/* page deletion, step 2 */
#define XLOG_EI_REUSE_PAGE		0x90	/* a deleted page is about to be reused */
#define XLOG_EI_INSERT_MULTI	0xD0	/* add several tuples to one leaf */

/*
 * 0xA0 to 0xC0 and 0xE0 to 0xF0 are the policies' records, each policy's
 * in its own header; the core replays them through the EIRecordKind its
 * EITreePolicy registers (core/xlog.c, EIGetRecordKind).
 */

/*
 * XLOG_EI_META
 *
 * Block 0: the metapage, registered with REGBUF_WILL_INIT; its data is an
 * xl_ei_metadata.  VACUUM logs it when it advances recycle_fence.
 */

/*
 * XLOG_EI_INSERT_LEAF / XLOG_EI_INSERT_INNER
 *
 * Block 0: the page receiving the tuple; its data is the tuple.
 * Block 1 (INNER only): the left child whose EI_INCOMPLETE_SPLIT flag the
 * new downlink clears.
 */
typedef struct xl_ei_insert
{
	OffsetNumber offnum;
	uint16		postingoff;		/* a posting split's position in the list
								 * before offnum; only in records of one
								 * (SizeOfEIInsertPost), whose tuple is the
								 * entry as it came: redo swaps the TIDs */
} xl_ei_insert;

#define SizeOfEIInsert	(offsetof(xl_ei_insert, offnum) + sizeof(OffsetNumber))
#define SizeOfEIInsertPost	(offsetof(xl_ei_insert, postingoff) + sizeof(uint16))

/*
 * XLOG_EI_INSERT_MULTI: sorted entries applied to one leaf (core/insert.c,
 * EIInsertSorted).
 *
 * Block 0: the leaf; its data is nitems OffsetNumbers, then the nitems
 * tuples (each MAXALIGNed).  Redo adds tuple i at offset i, in order, as
 * the primary did, so the page comes out byte for byte the same.
 *
 * The dedup form (a dedup pass of a full leaf, core/insert.c
 * ei_dedup_pass; nbtree's xl_btree_dedup) has the longer main data
 * (SizeOfEIInsertMultiDedup), nitems 0 and nintervals of at least 1.
 * Block 0: the leaf; its data is the nintervals EIDedupIntervals (eitree.h),
 * ascending.  Redo rebuilds the page with EIDedupBuildPage, as the primary
 * did.  A library from before this form reads nitems 0 and finds block
 * data it cannot place (src/README.md, "Posting lists", Record codes).
 */
typedef struct xl_ei_insert_multi
{
	uint16		nitems;
	uint16		nintervals;		/* dedup form only */
} xl_ei_insert_multi;

#define SizeOfEIInsertMulti	(offsetof(xl_ei_insert_multi, nitems) + sizeof(uint16))
#define SizeOfEIInsertMultiDedup \
	(offsetof(xl_ei_insert_multi, nintervals) + sizeof(uint16))

/*
 * XLOG_EI_SPLIT
 *
 * A bulk append at the right edge (EIInsertSorted) is logged as a split
 * that moves nothing: firstrightoff is past the left page's last item and
 * newitemoff is InvalidOffsetNumber (no new item).
 *
 * Block 0: the left (original) page.  Its data is the new item, if it went
 * to the left page, followed by the left page's new high key.  Redo keeps
 * the original items before firstrightoff, inserts the new item, and puts
 * the high key in front.
 * Block 1: the new right page, as a full-page image.
 * Block 2: the old right sibling, whose left link now points to block 1
 * (absent when the original page was rightmost).
 * Block 3: for inner pages, the child whose split this insert completes.
 */
typedef struct xl_ei_split
{
	uint32		level;			/* level of the pages being split */
	OffsetNumber firstrightoff; /* first original item going right */
	OffsetNumber newitemoff;	/* the new item's offset in the original page */
	uint16		flags;			/* EI_XLOG_SPLIT_* */
} xl_ei_split;

#define EI_XLOG_SPLIT_NEWITEM_LEFT	0x0001

/*
 * A shift (src/README.md, "Redistribution between sibling leaves"): no page
 * is split; the left leaf's items from firstrightoff on move to the front
 * of its right sibling.  An OffsetNumber follows the struct: the offset in
 * the parent of the right leaf's separator.  newitemoff is unused.
 *
 * Block 0: the left leaf; its data is its new high key.  Redo drops the
 * items from firstrightoff on and replaces the high key.
 * Block 1: the right leaf; its data is the moved items, MAXALIGNed, in
 * order, which redo puts in front of its data items.
 * Block 2: the parent; its data is the new separator (the new high key
 * with the right leaf's downlink), which replaces the item at the offset.
 */
#define EI_XLOG_SPLIT_SHIFT			0x0002

#define SizeOfEISplit	(offsetof(xl_ei_split, flags) + sizeof(uint16))

/*
 * XLOG_EI_NEWROOT
 *
 * Block 0: the new root, as a full-page image.
 * Block 1: the old root, now its left child, whose incomplete-split flag
 * is cleared.
 * Block 2: the metapage; its data is an xl_ei_metadata (the whole
 * EIMetaPageData).
 */
typedef struct xl_ei_newroot
{
	uint32		level;			/* level of the new root */
} xl_ei_newroot;

#define SizeOfEINewroot	(offsetof(xl_ei_newroot, level) + sizeof(uint32))

/*
 * The metapage contents carried by NEWROOT and META records: the whole
 * EIMetaPageData, so that redo reproduces every field, present and future.
 */
typedef EIMetaPageData xl_ei_metadata;

/*
 * XLOG_EI_VACUUM
 *
 * Block 0: the leaf page; its data is an array of ndeleted OffsetNumbers, in
 * ascending order, then nupdated posting lists that lose some of their
 * TIDs, each an xl_ei_vacuum_update followed by the nremoved positions
 * (uint16, ascending) of the TIDs it loses.  Redo rewrites the lists
 * first, then removes the items, as VACUUM did.  It takes a cleanup lock,
 * as VACUUM did, so that no standby scan paused on the page loses entries
 * it has yet to return.  Records of versions before posting lists end
 * before nupdated (SizeOfEIVacuumV1), read as 0.
 */
typedef struct xl_ei_vacuum
{
	uint16		ndeleted;
	uint16		nupdated;
} xl_ei_vacuum;

#define SizeOfEIVacuumV1	(offsetof(xl_ei_vacuum, ndeleted) + sizeof(uint16))
#define SizeOfEIVacuum	(offsetof(xl_ei_vacuum, nupdated) + sizeof(uint16))

typedef struct xl_ei_vacuum_update
{
	OffsetNumber offnum;		/* the posting list */
	uint16		nremoved;		/* positions that follow */
} xl_ei_vacuum_update;

#define SizeOfEIVacuumUpdate	(offsetof(xl_ei_vacuum_update, nremoved) + sizeof(uint16))

/*
 * XLOG_EI_DELETE
 *
 * Opportunistic removal of dead leaf items by an inserter that would
 * otherwise split the page.  Block 0: the leaf; its data is an array of
 * ndeleted OffsetNumbers, ascending.  latestRemovedXid is the newest xid
 * that deleted one of the removed heap tuples: a hot standby cancels the
 * queries whose snapshots could still see one of them before replaying.
 * isCatalogRel says whether the table is one logical decoding reads as a
 * catalog (user_catalog_table), for a standby's logical slots (16 on; as
 * nbtree's records carry it).  Records of version 0.1.0 end before it.
 */
typedef struct xl_ei_delete
{
	TransactionId latestRemovedXid;
	uint16		ndeleted;
	bool		isCatalogRel;
} xl_ei_delete;

#define SizeOfEIDeleteV1	(offsetof(xl_ei_delete, ndeleted) + sizeof(uint16))
#define SizeOfEIDelete	(offsetof(xl_ei_delete, isCatalogRel) + sizeof(bool))

/*
 * XLOG_EI_MARK_HALFDEAD
 *
 * Block 0: the empty leaf, which becomes EI_HALF_DEAD; its high key's
 * downlink field is set to topparent.  Block 1: the parent of the chain's
 * top page, where the downlink at poffset is redirected to the top page's
 * right sibling (rightblk) and the pivot after it is removed.  Blocks 2 and
 * 3 (optional): single-child ancestors of the leaf deleted with it, which
 * become EI_HALF_DEAD too.
 */
typedef struct xl_ei_mark_halfdead
{
	OffsetNumber poffset;		/* the chain top's downlink in its parent */
	BlockNumber rightblk;		/* the chain top's right sibling */
	BlockNumber topparent;		/* chain top if above the leaf, else invalid */
} xl_ei_mark_halfdead;

#define SizeOfEIMarkHalfdead	(offsetof(xl_ei_mark_halfdead, topparent) + sizeof(BlockNumber))

/*
 * XLOG_EI_UNLINK_PAGE
 *
 * Block 0: left sibling (absent for the leftmost page), whose right link
 * skips the target.  Block 1: the half-dead target, which becomes
 * EI_DELETED with safexid stored in it (will-init).  Block 2: right
 * sibling, whose left link skips the target.  Block 3 (when the target is
 * an inner page of a chain): the half-dead leaf, whose high key's downlink
 * moves down the chain to leaftopparent.
 */
typedef struct xl_ei_unlink_page
{
	BlockNumber leftblk;		/* InvalidBlockNumber if none */
	BlockNumber rightblk;
	uint32		level;
	BlockNumber leaftopparent;	/* next chain top, or invalid */
	FullTransactionId safexid;	/* page may be recycled once this is old */
} xl_ei_unlink_page;

#define SizeOfEIUnlinkPage	(offsetof(xl_ei_unlink_page, safexid) + sizeof(FullTransactionId))

/*
 * XLOG_EI_REUSE_PAGE
 *
 * No blocks.  Written before a deleted page is reused, so that a hot standby
 * cancels queries that might still be on their way to the page.
 * isCatalogRel as in XLOG_EI_DELETE; records of version 0.1.0 end before it.
 */
typedef struct xl_ei_reuse_page
{
	EIRelFileLocator node;
	BlockNumber block;
	FullTransactionId safexid;
	bool		isCatalogRel;
} xl_ei_reuse_page;

#define SizeOfEIReusePageV1	(offsetof(xl_ei_reuse_page, safexid) + sizeof(FullTransactionId))
#define SizeOfEIReusePage	(offsetof(xl_ei_reuse_page, isCatalogRel) + sizeof(bool))

/* core/xlog.c */
extern void ei_redo(XLogReaderState *record);
extern void ei_desc(StringInfo buf, XLogReaderState *record);
extern const char *ei_identify(uint8 info);
extern void ei_mask(char *pagedata, BlockNumber blkno);
extern char *EIRedoCopyData(const char *data, Size len);
extern char *EIRedoGetData(XLogReaderState *record, Size minlen,
						   const char *what);
extern char *EIRedoGetBlockData(XLogReaderState *record, uint8 block_id,
								Size minlen, Size *len, const char *what);
extern void EIRedoCheckLength(Size len, Size expected, const char *what);
extern Size EIRedoTupleSize(const char *data, Size avail, const char *what);
extern void EIRedoMetapage(XLogReaderState *record, uint8 block_id);
extern void EIRedoSetLeftLink(XLogReaderState *record, uint8 block_id,
							  BlockNumber leftblk);

#endif							/* EITREE_XLOG_H */
