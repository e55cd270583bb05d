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
#define XLOG_EI_COMPACT_INSERT	0xA0	/* add an entry to a compact leaf */
#define XLOG_EI_COMPACT_DELETE	0xB0	/* remove entries from a compact leaf */
#define XLOG_EI_COMPACT_IMAGE	0xC0	/* compact leaves made, split or
										 * expanded: full page images */
#define XLOG_EI_INSERT_MULTI	0xD0	/* add several tuples to one leaf */
#define XLOG_EI_BUFFER_ADD		0xE0	/* osm_tree: entries to a buffer page */
#define XLOG_EI_BUFFER_LINK		0xF0	/* osm_tree: buffer page linked,
										 * closed or unlinked */

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
} xl_ei_insert;

#define SizeOfEIInsert	(offsetof(xl_ei_insert, offnum) + sizeof(OffsetNumber))

/*
 * XLOG_EI_INSERT_MULTI: sorted entries applied to one leaf (core/insert.c,
 * EIInsertSorted).
 *
 * Block 0: the leaf; its data is nitems OffsetNumbers, then the nitems
 * tuples (each MAXALIGNed).  Redo adds tuple i at offset i, in order, as
 * the primary did, so the page comes out byte for byte the same.
 */
typedef struct xl_ei_insert_multi
{
	uint16		nitems;
} xl_ei_insert_multi;

#define SizeOfEIInsertMulti	(offsetof(xl_ei_insert_multi, nitems) + sizeof(uint16))

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
 * ascending order.  Redo takes a cleanup lock, as VACUUM did, so that no
 * standby scan paused on the page loses entries it has yet to return.
 */
typedef struct xl_ei_vacuum
{
	uint16		ndeleted;
} xl_ei_vacuum;

#define SizeOfEIVacuum	(offsetof(xl_ei_vacuum, ndeleted) + sizeof(uint16))

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

/*
 * XLOG_EI_COMPACT_INSERT: an entry was added to the compact leaf in block 0
 * at position pos, with the arguments seqtree_insert_at needs.  A SeqTree
 * image depends only on its sequence of keys, so replaying the same call
 * gives the primary's page byte for byte.
 */
typedef struct xl_ei_compact_insert
{
	int32		pos;
	int32		lbit;
	int32		rbit;
	ItemPointerData tid;
} xl_ei_compact_insert;

#define SizeOfEICompactInsert	(offsetof(xl_ei_compact_insert, tid) + sizeof(ItemPointerData))

/*
 * XLOG_EI_COMPACT_DELETE: entries left the compact leaf in block 0; their
 * positions (uint16, ascending) follow as block data.  Entries removed on
 * insert point to heap items already LP_DEAD, whose pruning record resolved
 * standby conflicts, so no horizon is carried.  EI_XLOG_COMPACT_VACUUM:
 * VACUUM removed them, and redo takes a cleanup lock, as for XLOG_EI_VACUUM.
 */
typedef struct xl_ei_compact_delete
{
	uint16		ndeleted;
	uint16		flags;
} xl_ei_compact_delete;

#define EI_XLOG_COMPACT_VACUUM	0x0001

#define SizeOfEICompactDelete	(offsetof(xl_ei_compact_delete, flags) + sizeof(uint16))

/*
 * XLOG_EI_COMPACT_IMAGE: blocks 0 .. nimages-1 are full images (a leaf
 * converted either way, or the two halves of a compact split).  With
 * EI_XLOG_IMAGE_SIBLING the next block is the right sibling of the last
 * image, whose left link now points to that image.
 */
typedef struct xl_ei_compact_image
{
	uint8		kind;			/* EI_COMPACT_IMAGE_* */
	uint8		nimages;
	uint8		flags;
} xl_ei_compact_image;

#define EI_COMPACT_IMAGE_CONVERT	1	/* standard leaf made compact */
#define EI_COMPACT_IMAGE_EXPAND		2	/* compact leaf made standard */
#define EI_COMPACT_IMAGE_SPLIT		3	/* compact leaf split in two */

#define EI_XLOG_IMAGE_SIBLING	0x01

#define SizeOfEICompactImage	(offsetof(xl_ei_compact_image, flags) + sizeof(uint8))

/*
 * XLOG_EI_BUFFER_ADD
 *
 * Entries appended to an osm_tree insert buffer page, after its last item.
 * Block 0: the buffer page; its data is the entries' Bloom filter hashes
 * (ntuples uint64s, only if the page has a filter) followed by the entries,
 * each MAXALIGNed.  The page's zonemap becomes (minoff, maxoff).
 */
typedef struct xl_ei_buffer_add
{
	uint16		ntuples;
	OffsetNumber minoff;
	OffsetNumber maxoff;
} xl_ei_buffer_add;

#define SizeOfEIBufferAdd	(offsetof(xl_ei_buffer_add, maxoff) + sizeof(OffsetNumber))

/*
 * XLOG_EI_BUFFER_LINK
 *
 * OSM_LINK_NEWPAGE: block 0, the metapage (an xl_ei_metadata); block 1, the
 * new tail page, initialized empty with a filter of bloom_bytes bytes;
 * block 2 (if there was a tail), the old tail, now closed and linked to
 * block 1; block 3 (if the index has a section filter or makes one now),
 * the section filter page, its data an xl_ei_section_filter followed by
 * the hashes (uint64) of the keys it takes: the old tail's entries, or
 * when it is made, those of every page from the head to the old tail;
 * then, with XLF_ZONE, the section zonemap as it is after the change (the
 * primary compares values; redo, which cannot, copies the result).  Redo
 * of a record without it (an older build's) makes the page as that build
 * did: a new filter without a zonemap, an existing one's left as it is,
 * which the added keys' count then marks out of date.
 * OSM_LINK_SEAL: block 0, the tail page, now closed.
 * OSM_LINK_SORT: block 0, a buffer page whose entries were put in the
 * tree's order: its data is the page's old offsets in their new order
 * (one OffsetNumber per entry).  Redo permutes the line pointers and needs
 * no key comparison.
 * OSM_LINK_UNLINK: block 0, the metapage; blocks 1..npages, the flushed
 * pages, now deleted (stamped with safexid), each keeping the right link
 * given as its data.
 * OSM_LINK_FILTER: block 0, the section filter page, rebuilt after a flush
 * (always a full-page image; redo restores it).
 */
typedef struct xl_ei_buffer_link
{
	FullTransactionId safexid;	/* UNLINK */
	uint16		npages;
	uint16		bloom_bytes;	/* NEWPAGE */
	uint8		bloom_probes;	/* NEWPAGE */
	uint8		op;				/* OSM_LINK_* */
} xl_ei_buffer_link;

#define OSM_LINK_NEWPAGE	1
#define OSM_LINK_SEAL		2
#define OSM_LINK_UNLINK		3
#define OSM_LINK_SORT		4
#define OSM_LINK_FILTER		5

/* NEWPAGE, block 3: a section filter made now (bytes > 0) or added to */
typedef struct xl_ei_section_filter
{
	uint32		nhashes;		/* hashes that follow */
	uint16		init_bytes;		/* > 0: the page is made with this filter */
	uint8		init_probes;
	uint8		flags;			/* XLF_ZONE */
} xl_ei_section_filter;

#define XLF_ZONE	0x01		/* an OsmSectionZone follows the hashes */

#define SizeOfEIBufferLink	(offsetof(xl_ei_buffer_link, op) + sizeof(uint8))

/* core/xlog.c */
extern void ei_redo(XLogReaderState *record);
extern void ei_desc(StringInfo buf, XLogReaderState *record);
extern const char *ei_identify(uint8 info);
extern void ei_mask(char *pagedata, BlockNumber blkno);

#endif							/* EITREE_XLOG_H */
