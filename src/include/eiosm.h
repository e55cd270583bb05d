/*-------------------------------------------------------------------------
 *
 * eiosm.h
 *	  The osm policy (src/osm/): osm_tree's per-transaction batches, its
 *	  insert buffer with zonemaps and Bloom filters, the background flush,
 *	  and its settings.
 *
 * Built on the core (eitree.h); called by the osm_tree access method (am/)
 * and the inspection functions.  The core reaches it only through the
 * EITreePolicy table am/osm_tree.c registers.  See src/README.md,
 * "osm_tree" and "The osm_tree insert buffer".
 *
 *-------------------------------------------------------------------------
 */
#ifndef EIOSM_H
#define EIOSM_H

#include "eicompact.h"
#include "eitree_xlog.h"

/* osm_tree's WAL records (in the range eitree_xlog.h leaves) */
#define XLOG_EI_BUFFER_ADD		0xE0	/* entries to a buffer page */
#define XLOG_EI_BUFFER_LINK		0xF0	/* buffer page linked, closed or
										 * unlinked */

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

/* Page flags of the insert buffer's pages (EI_POLICY_FLAGS' bits). */
#define EI_BUFFER			(1 << 9)	/* osm_tree insert buffer page */
#define EI_BUFFER_CLOSED	(1 << 10)	/* buffer page takes no more entries */
#define EI_BUFFER_FILTER	(1 << 11)	/* osm_tree insert buffer's section
										 * filter page */

/*
 * osm_tree's part of the metapage (EIMetaGetPolicy).  The first word is
 * the elastic policy's state in an elastic_btree index and always zero in
 * an osm_tree index.
 *
 * buf_filter: the page of the insert buffer's section filter, a Bloom
 * filter over the entries of every buffer page but the tail; zero (as in
 * metapages written before it existed) means none.
 *
 * The insert buffer (osm/buffer.c) is a chain of EI_BUFFER pages from
 * buf_head (oldest) to buf_tail (newest, takes new entries).  Zero (the
 * metapage's own number, never a buffer page) means none, so a metapage
 * written before the buffer existed reads as "empty".
 */
typedef struct OsmMeta
{
	uint32		unused;			/* zero */
	BlockNumber buf_filter;
	BlockNumber buf_head;
	BlockNumber buf_tail;
	uint32		buf_pages;		/* pages in the chain */
	uint32		buf_flushes;	/* flush steps completed (for stats) */
} OsmMeta;

StaticAssertDecl(sizeof(OsmMeta) <= EI_META_POLICY_WORDS * sizeof(uint32),
				 "OsmMeta must fit the metapage's policy words");

/* osm_tree's fields of a metapage copy */
#define OsmMetaOf(meta)		EIMetaGetPolicy(meta, OsmMeta)

/* What a backend keeps for an osm_tree index (EIGetPolicyCache). */
typedef struct OsmRelCache
{
	struct OsmBufferCache *buffer;	/* insert state (osm/buffer.c) */
	TimestampTz flush_requested;	/* when we last asked for a background
									 * flush (osm/flushworker.c) */
} OsmRelCache;

/* osm_tree's reloptions: -1 (unset) means the osm_tree.* setting */
typedef struct OsmOptions
{
	int32		varlena_header_;	/* varlena header (do not touch) */
	int			fillfactor;
	double		split_factor;
	int			batch_size;
	int			buffer_size;
	double		flush_fraction;
	int			bloom_bits_per_key;
	int			sort_threshold;
	int			deduplicate_items;	/* leaves may hold posting lists: 0, 1, or
									 * EI_RELOPT_UNSET (the setting decides) */
	bool		compact_leaves; /* bulk appends form compact leaves */
	bool		redistribute_leaves;	/* full leaves shift entries right */
} OsmOptions;

/* osm_tree settings: ranges (defaults are in osm/options.c) */
#define OSM_MIN_SPLIT_FACTOR	0.05
#define OSM_MAX_SPLIT_FACTOR	0.95
#define OSM_MAX_BATCH_SIZE		10000000
#define OSM_MIN_BATCH_MEMORY	64	/* kB */
#define OSM_MAX_BUFFER_SIZE		131072	/* pages: 1 GB */
#define OSM_MIN_FLUSH_FRACTION	0.01
#define OSM_MAX_BLOOM_BITS		32
#define OSM_MAX_SORT_THRESHOLD	MaxOffsetNumber
/* ----------------------------------------------------------------
 * osm_tree's insert buffer (osm/buffer.c; src/README.md, "The osm_tree
 * insert buffer")
 *
 * A buffer page (EI_BUFFER) holds leaf tuples in arrival order from
 * OSM_BUFFER_FIRST on.  Item 1 is its summary: the zonemap, as the offsets
 * of the page's least and greatest entries, and a Bloom filter over the
 * normalized keys of its entries (without heap TID).  ei_next links the
 * chain from the metapage's buf_head (oldest) to buf_tail (newest).
 * ----------------------------------------------------------------
 */
typedef struct OsmBufferSummary
{
	OffsetNumber minoff;		/* item with the least entry, or Invalid */
	OffsetNumber maxoff;		/* item with the greatest entry, or Invalid */
	uint16		nsorted;		/* the first nsorted entries are in the
								 * tree's order (the sorted section) */
	uint16		bloom_bytes;	/* 0: no filter on this page */
	uint8		bloom_probes;	/* probes per key */
	uint8		unused;
	uint8		bloom[FLEXIBLE_ARRAY_MEMBER];	/* bloom_bytes bytes */
} OsmBufferSummary;

/*
 * The section filter (osm/buffer.c): item 1 of the page the metapage's
 * buf_filter names.  Its Bloom filter holds the key of every entry of every
 * buffer page in the chain except the tail (and, until the next rebuild,
 * of pages a flush has unlinked since), so a lookup whose key it rules out
 * reads no buffer page but the tail.  nkeys counts the keys added since it
 * was last rebuilt.
 */
typedef struct OsmSectionFilter
{
	uint32		nkeys;			/* keys added since the last rebuild */
	uint16		bloom_bytes;	/* size of bloom[] */
	uint8		bloom_probes;	/* probes per key */
	uint8		unused;
	uint8		bloom[FLEXIBLE_ARRAY_MEMBER];
	/* then, MAXALIGNed, an OsmSectionZone (see below) */
} OsmSectionFilter;

/*
 * The section zonemap: after the section filter's bloom[], in the same
 * item, the least and greatest first-column values of every entry the
 * filter covers (the same pages), when that column is passed by value.  A
 * scan whose bounds on the first column exclude that range reads no buffer
 * page but the tail, as a lookup the filter rules out does.  The values are
 * in the column's own order, not the index's (DESC does not swap them).
 * Filter pages made before it existed end with bloom[] and have none
 * (OsmSectionFilterGetZone returns NULL).
 */
typedef struct OsmSectionZone
{
	uint32		state;			/* OSM_ZONE_* */
	uint32		nkeys;			/* the filter's nkeys when this was set: an
								 * older build that adds keys leaves it
								 * behind, and then it counts as unknown */
	Datum		lo;				/* OSM_ZONE_RANGE: the least value */
	Datum		hi;				/* and the greatest */
} OsmSectionZone;

#define OSM_ZONE_UNKNOWN	0	/* anything: a column passed by reference,
								 * or a NULL among the covered entries */
#define OSM_ZONE_RANGE		1	/* every covered value lies in [lo, hi] */
#define OSM_ZONE_EMPTY		2	/* no covered entries */

#define OSM_SECTION_FILTER		((OffsetNumber) 1)
/* largest section filter: what one page holds with the zonemap, in whole
 * 8-byte words */
#define OSM_SECTION_BLOOM_BYTES \
	((BLCKSZ - SizeOfPageHeaderData - MAXALIGN(sizeof(EIPageOpaqueData)) - \
	  sizeof(ItemIdData) - offsetof(OsmSectionFilter, bloom) - \
	  sizeof(OsmSectionZone)) & ~7)

#define OsmPageGetSectionFilter(page) \
	((OsmSectionFilter *) PageGetItem(page, PageGetItemId(page, OSM_SECTION_FILTER)))
/* where a section filter's zonemap begins within its item */
#define OSM_SECTION_ZONE_OFFSET(filter) \
	MAXALIGN(offsetof(OsmSectionFilter, bloom) + (filter)->bloom_bytes)

#define OSM_BUFFER_SUMMARY		((OffsetNumber) 1)
#define OSM_BUFFER_FIRST		((OffsetNumber) 2)
#define OSM_MAX_BLOOM_BYTES		1024	/* largest filter of one page */
#define OSM_FLUSH_STEP_PAGES	16	/* most pages one flush step moves */
#define OSM_FLUSH_LOCK_SUBID	1	/* sub-ID of the flush lock's object lock tag */

/* Entries on a buffer page (every item but the summary). */
#define OsmPageGetNEntries(page) \
	((int) PageGetMaxOffsetNumber(page) - OSM_BUFFER_FIRST + 1)

#define OsmPageGetSummary(page) \
	((OsmBufferSummary *) PageGetItem(page, PageGetItemId(page, OSM_BUFFER_SUMMARY)))

/* What a walk of an insert buffer's chain counted (OsmBufferCounts). */
typedef struct OsmBufferCountsData
{
	int64		pages;			/* live buffer pages */
	int64		entries;		/* entries on them */
	int64		closed_pages;	/* pages that take no more entries */
	int64		sorted_pages;	/* pages whose entries are all sorted */
	int64		sorted_entries; /* entries in the pages' sorted sections */
} OsmBufferCountsData;


/* osm/buffer.c */
extern bool OsmBufferEnabled(Relation rel);
extern void OsmBufferPageInit(Page page, uint16 bloom_bytes, uint8 probes);
extern void OsmBufferPageSort(Page page, const OffsetNumber *order, int n);
extern void OsmSectionFilterInit(Page page, uint16 bloom_bytes, uint8 probes,
								 bool with_zone);
extern void OsmSectionFilterAdd(Page page, const uint64 *hashes, int n,
								const OsmSectionZone *zone);
extern OsmSectionZone *OsmSectionFilterGetZone(Page page);
extern const OsmSectionZone *OsmSectionFilterCurrentZone(Page page);
extern void OsmBufferInsert(Relation rel, Relation heapRel, IndexTuple *items,
							int nitems);
/* the SQL functions' work (their entry points are in src/inspect/maintenance.c) */
#define OSM_BUFFER_STATS_NCOLUMNS	11
extern Relation OsmOpenIndex(Oid indexoid, LOCKMODE lockmode);
extern int64 OsmFlushIndex(Relation rel);
extern void OsmBufferStatsRow(Relation rel, Datum *values, bool *nulls);
extern int64 OsmBufferFlush(Relation rel, Relation heapRel, int maxpages,
							bool wait);
extern bool OsmBufferCollect(IndexScanDesc scan, IndexTuple **items,
							 int *nitems);
extern uint64 OsmBufferEntryHash(Relation rel, EINormKeyInfo *norm,
								 IndexTuple itup);
extern void OsmBufferCounts(Relation rel, OsmBufferCountsData *counts);

/* osm/flushworker.c */
extern void OsmRequestBackgroundFlush(Relation rel);
extern PGDLLEXPORT void OsmFlushWorkerMain(Datum main_arg);

/* osm/batch.c: entries collected per transaction and applied sorted */
extern void EIBatchInit(void);
extern void EIBatchAdd(Relation rel, Relation heapRel, Datum *values,
					   bool *isnull, ItemPointer htid, int batch_size);
extern void EIBatchFlushIndex(Relation rel);
extern void EIBatchFlushAll(void);

/* osm/options.c: settings of osm_tree (reloptions override them) */
extern int	osm_fill_factor;
extern double osm_split_factor;
extern int	osm_batch_size;
extern int	osm_batch_memory;
extern int	osm_buffer_size;
extern double osm_flush_fraction;
extern int	osm_bloom_bits_per_key;
extern int	osm_sort_threshold;
extern bool osm_top_inserts;
extern bool osm_flush_worker;
extern bool osm_deduplicate_items;
extern void OsmInitGUCs(void);
extern void OsmInitReloptions(void);
extern bytea *osmoptions(Datum reloptions, bool validate);
extern int	OsmGetFillFactor(Relation rel);
extern double OsmGetSplitFactor(Relation rel);
extern EIDedupChoice OsmGetDeduplicate(Relation rel);
extern EIDedupChoice OsmOptionsDeduplicate(OsmOptions *opts);
extern int	OsmGetInsertOptions(Relation rel, bool *compact_leaves);
extern Size OsmGetBatchMemory(void);
extern int	OsmGetBufferSize(Relation rel);
extern double OsmGetFlushFraction(Relation rel);
extern int	OsmGetBloomBitsPerKey(Relation rel);
extern int	OsmGetSortThreshold(Relation rel);
extern bool OsmGetCompactLeaves(Relation rel);
extern bool OsmGetRedistribute(Relation rel);

/* osm/policy.c: what the core asks of osm_tree */
extern void OsmInit(void);
/* Is this index one of this policy's? */
#define EIRelIsOsm(rel)	EIRelServedBy((rel), EI_AM_OSM_TREE)
extern void OsmVacuumFlush(Relation rel);
extern void OsmRefuseCompactLeaves(Relation rel);
extern void OsmCheckAlteredOptions(AlterTableStmt *stmt);
extern void OsmBuildBegin(Relation index);
extern void OsmInsertPrepare(Relation rel, Relation heapRel);
extern bool OsmFormLeaves(Relation rel);
extern EIBuildLeavesChoice OsmBuildLeaves(Relation index, Relation heap,
										  double ntuples, double standard_leaves);

/* osm/verify.c: elastic_index_check on the insert buffer */
extern void OsmVerifyBuffer(EIVerifyContext *cxt);

/* osm/xlog.c: the insert buffer's WAL records */
extern const EIRecordKind OsmRecords[];

#endif							/* EIOSM_H */
