/*-------------------------------------------------------------------------
 *
 * eitree.h
 *	  The shared B+-tree core of elastic_index: page layout, metapage,
 *	  insertion scan keys, scan and insert state, the policy table
 *	  (EITreePolicy) and every function of the core.
 *
 * The tree is a Lehman & Yao B+-tree over ordinary 8 KB buffer pages, laid
 * out much like PostgreSQL's nbtree.  It knows no policy: what an access
 * method decides and adds reaches it through its EITreePolicy.  See
 * src/README.md for the layers, the policy table, the page formats, the
 * locking protocol and the WAL records.
 *
 *-------------------------------------------------------------------------
 */
#ifndef EITREE_H
#define EITREE_H

#include "postgres.h"

#include "access/amapi.h"
#include "access/genam.h"
#include "access/itup.h"
#include "access/relscan.h"
#include "access/reloptions.h"
#include "access/sdir.h"
#include "access/skey.h"
#include "access/transam.h"
#include "access/xlogreader.h"
#include "datatype/timestamp.h"
#include "eicompat.h"
#include "fmgr.h"
#include "lib/stringinfo.h"
#include "seqtree.h"
#include "nodes/execnodes.h"
#include "nodes/pathnodes.h"
#include "storage/bufmgr.h"
#include "storage/bufpage.h"
#include "storage/condition_variable.h"
#include "utils/memdebug.h"
#include "storage/dsm.h"
#include "storage/itemptr.h"
#include "storage/shm_toc.h"
#include "storage/spin.h"
#include "utils/rel.h"

/* ----------------------------------------------------------------
 * Versions and magic numbers
 * ----------------------------------------------------------------
 */
#define EI_MAGIC			0x45495452	/* "EITR" */
/*
 * On-disk format version.  2: the summary of an osm_tree insert buffer page
 * has nsorted (its sorted section), so its Bloom filter starts two bytes
 * later than in version 1, whose buffer pages a version 2 build would
 * misread.  3 (EI_VERSION_POSTING): the index may hold posting lists (built
 * with deduplicate_items on, or inserted into with it on: EIMetaSetPosting,
 * before any list is written); a library that knows only version 2, which
 * would read a list as one entry with a bogus heap TID, refuses it.  An
 * index without lists stays at version 2, readable by both.
 */
#define EI_VERSION			2
#define EI_VERSION_POSTING	3
#define EI_VERSION_KNOWN(v)	((v) == EI_VERSION || (v) == EI_VERSION_POSTING)
#define EI_METAPAGE			0		/* block number of the metapage */
#define EI_META_POLICY_WORDS 6		/* uint32 words of a policy's metapage
								 * fields */
#define EI_PAGE_ID			0xFF9E	/* last 2 bytes of every page's special */

/*
 * Which access method a tree serves (stored in the metapage): every
 * EITreePolicy names its kind, and no two share one.
 */
#define EI_AM_ELASTIC_BTREE	1
#define EI_AM_OSM_TREE		2

/*
 * Support function numbers of our operator classes.  They are btree's
 * (access/nbtree.h), because from PostgreSQL 18 on the server checks the
 * support functions of every ordering access method against btree's
 * numbering: 3 must be an in_range function, 4 an equalimage function,
 * 5 the options function and 6 a skip-support function.  Our own come
 * after them.  Version 0.1.0 of the extension had the normalize function
 * as number 3 (EI_NORMALIZE_PROC_V1); the upgrade to 0.2.0 renumbers it,
 * and EIGetNormalizeProc still finds it under a catalog not yet updated.
 */
#define EI_CMP_PROC			1	/* int4 cmp(a, b), BTORDER_PROC */
#define EI_SORTSUPPORT_PROC	2	/* optional: sort support, BTSORTSUPPORT_PROC */
#define EI_INRANGE_PROC		3	/* unused: BTINRANGE_PROC's number */
#define EI_EQUALIMAGE_PROC	4	/* optional: equalimage, BTEQUALIMAGE_PROC */

#define EI_OPTIONS_PROC		5	/* unused: BTOPTIONS_PROC's number */
#define EI_SKIPSUPPORT_PROC	6	/* unused: BTSKIPSUPPORT_PROC's number */

/*
 * A boolean reloption that a setting stands in for while it is unset is an
 * enum of boolean's spellings (EIOptionalBoolValues) whose default,
 * EI_RELOPT_UNSET, is none of them; EI_OPTIONAL_BOOL_DETAIL is its error
 * detail.
 */
#define EI_RELOPT_UNSET		(-1)
#define EI_OPTIONAL_BOOL_DETAIL \
	gettext_noop("Valid values are \"on\", \"off\", \"true\", \"false\", \"yes\", \"no\", \"1\" and \"0\".")
#define EI_NORMALIZE_PROC	7	/* optional: bytea normalize(value), the
								 * value's binary-comparable encoding */
#define EI_NPROCS			7
#define EI_NORMALIZE_PROC_V1 3	/* EI_NORMALIZE_PROC in version 0.1.0 */

/* Strategy numbers: exactly btree's, so the planner can order by them. */
#define EI_NSTRATEGIES		5

/* Fill factors, as in nbtree. */
#define EI_MIN_FILLFACTOR		10
#define EI_DEFAULT_FILLFACTOR	90
#define EI_NONLEAF_FILLFACTOR	70


/* ----------------------------------------------------------------
 * Page layout
 *
 * Every page except the metapage holds index tuples.  On every page that is
 * not the rightmost of its level, item 1 is the high key: a pivot tuple that
 * is an upper bound (exclusive) for every key on the page.  Data items start
 * at EI_FIRST_DATA(opaque).  The first data item of an inner page is the
 * "minus infinity" downlink, a tuple with no key attributes.
 * ----------------------------------------------------------------
 */
typedef struct EIPageOpaqueData
{
	BlockNumber ei_prev;		/* left sibling, or InvalidBlockNumber */
	BlockNumber ei_next;		/* right sibling, or InvalidBlockNumber */
	uint32		ei_level;		/* 0 for leaves, parent = child + 1 */
	uint16		ei_flags;		/* EI_* page flags below */
	uint16		ei_page_id;		/* EI_PAGE_ID, for tools */
} EIPageOpaqueData;

typedef EIPageOpaqueData *EIPageOpaque;

#define EIPageGetOpaque(page) ((EIPageOpaque) PageGetSpecialPointer(page))

/* Page flags */
#define EI_LEAF				(1 << 0)	/* leaf page */
#define EI_ROOT				(1 << 1)	/* root page (the metapage points here) */
#define EI_META				(1 << 2)	/* the metapage */
#define EI_INCOMPLETE_SPLIT	(1 << 3)	/* right sibling's downlink is missing */
#define EI_HAS_GARBAGE		(1 << 4)	/* hint: some items are LP_DEAD */
#define EI_DELETED			(1 << 5)	/* deleted (see EIPageIsRecyclable) */
#define EI_HALF_DEAD		(1 << 6)	/* deletion's first step done */
#define EI_POLICY_LEAF		(1 << 7)	/* a leaf in its policy's own format:
										 * only EITreePolicy.leaf reads it */
#define EI_ACCESSED			(1 << 8)	/* hint: a scan read this leaf since
										 * VACUUM last looked (set on standard
										 * leaves only when the policy's
										 * mark_leaf_reads asks for it) */
/*
 * Bits 9 to 15 are the policies' own, for pages they keep outside the tree
 * (in the same file, allocated with EINewBuf, never linked into a level).
 */
#define EI_POLICY_FLAGS		0xFE00

#define EI_IS_LEAF(opaque)		(((opaque)->ei_flags & EI_LEAF) != 0)
#define EI_IS_ROOT(opaque)		(((opaque)->ei_flags & EI_ROOT) != 0)
#define EI_IS_META(opaque)		(((opaque)->ei_flags & EI_META) != 0)
#define EI_RIGHTMOST(opaque)	((opaque)->ei_next == InvalidBlockNumber)
#define EI_LEFTMOST(opaque)		((opaque)->ei_prev == InvalidBlockNumber)
#define EI_INCOMPLETE(opaque)	(((opaque)->ei_flags & EI_INCOMPLETE_SPLIT) != 0)
#define EI_IGNORE(opaque)		(((opaque)->ei_flags & (EI_DELETED | EI_HALF_DEAD)) != 0)

#define EI_HIKEY				((OffsetNumber) 1)
#define EI_FIRSTKEY				((OffsetNumber) 2)
#define EI_FIRST_DATA(opaque)	(EI_RIGHTMOST(opaque) ? EI_HIKEY : EI_FIRSTKEY)

/* ----------------------------------------------------------------
 * Index tuples
 *
 * Leaf tuples are plain IndexTuples: t_tid is the heap TID, which is also
 * the last key attribute (so every entry is unique); or posting lists (see
 * below), which hold the key once and several heap TIDs.
 *
 * Pivot tuples (high keys and inner-page downlinks) carry every key
 * attribute followed by the heap TID tiebreaker, stored in the last
 * sizeof(ItemPointerData) bytes of the MAXALIGNed tuple.  In a pivot, t_tid
 * holds the downlink: block number in ip_blkid, EI_PIVOT_* flags in ip_posid.
 * A high key's downlink is InvalidBlockNumber.  The "minus infinity" item
 * has EI_PIVOT_MINUS_INF set and no key data at all.
 * ----------------------------------------------------------------
 */
#define EI_PIVOT_HAS_TID	0x0001		/* heap TID stored at the tuple's end */
#define EI_PIVOT_MINUS_INF	0x0002		/* no keys: less than anything */

#define EITupleGetDownlink(itup) ItemPointerGetBlockNumberNoCheck(&(itup)->t_tid)
#define EITupleSetDownlink(itup, blkno) \
	ItemPointerSetBlockNumber(&(itup)->t_tid, (blkno))
#define EIPivotFlags(itup)		ItemPointerGetOffsetNumberNoCheck(&(itup)->t_tid)
#define EIPivotIsMinusInf(itup)	((EIPivotFlags(itup) & EI_PIVOT_MINUS_INF) != 0)

/* Heap TID tiebreaker stored at the end of a pivot tuple. */
#define EIPivotGetHeapTID(itup) \
	((ItemPointer) ((char *) (itup) + IndexTupleSize(itup) - sizeof(ItemPointerData)))

/*
 * Largest leaf tuple we accept.  Three pivots (a leaf tuple plus its heap
 * TID, MAXALIGNed) with their line pointers must fit on a page, as in nbtree.
 */
#define EI_MAX_PIVOT_SIZE \
	MAXALIGN_DOWN((BLCKSZ - MAXALIGN(SizeOfPageHeaderData + 3 * sizeof(ItemIdData)) - \
				   MAXALIGN(sizeof(EIPageOpaqueData))) / 3)
#define EI_MAX_ITEM_SIZE \
	(EI_MAX_PIVOT_SIZE - MAXALIGN(sizeof(ItemPointerData)))

/* ----------------------------------------------------------------
 * Posting lists (src/README.md, "Posting lists")
 *
 * A leaf data item with EI_POSTING_BIT in t_info holds the key once and
 * a strictly ascending array of heap TIDs.  Its t_tid is reused: the block
 * part is the byte offset of the array from the tuple's start, the offset
 * part the number of TIDs (at least 2).  Only leaf data items can be
 * posting tuples; pivots never set the flag.  EIPostingProblem says
 * whether a tuple read from a page is a well-formed list; check it before
 * trusting the accessors on a page that may be damaged.
 * ----------------------------------------------------------------
 */
#define EI_MAX_POSTING_SIZE		MAXALIGN_DOWN(EI_MAX_ITEM_SIZE / 2)

/*
 * Largest posting list the build writes: a tenth of a page, as nbtree's
 * _bt_sort_dedup, so that a leaf filled to its fill factor wastes little
 * room at its end on a list that no longer fits (core/build.c; the size
 * model of hypothetical indexes counts with it too).
 */
#define EI_BUILD_MAX_POSTING_SIZE \
	(MAXALIGN_DOWN(BLCKSZ * 10 / 100) - sizeof(ItemIdData))

/*
 * A run of sorted entries with equal keys on its way to becoming one
 * posting list of at most EI_BUILD_MAX_POSTING_SIZE (EIPostingRunAdd): the
 * build's leaves (core/build.c) and the leaves a sorted batch appends at
 * the right edge (ei_append_page) group their entries with it.
 */
typedef struct EIPostingRun
{
	IndexTuple	base;			/* the run's first entry, or NULL */
	int			ntids;
	ItemPointerData tids[EI_BUILD_MAX_POSTING_SIZE / sizeof(ItemPointerData)];
} EIPostingRun;

#define EI_POSTING_BIT			INDEX_AM_RESERVED_BIT	/* nbtree's
														 * INDEX_ALT_TID_MASK */

#define EITupleIsPosting(itup) (((itup)->t_info & EI_POSTING_BIT) != 0)
#define EIPostingCount(itup) \
	((int) ItemPointerGetOffsetNumberNoCheck(&(itup)->t_tid))
#define EIPostingOffset(itup) \
	((Size) ItemPointerGetBlockNumberNoCheck(&(itup)->t_tid))
#define EIPostingTID(itup, n) \
	((ItemPointer) ((char *) (itup) + EIPostingOffset(itup)) + (n))
#define EIPostingMaxTID(itup)	EIPostingTID((itup), EIPostingCount(itup) - 1)
/* the TID an entry sorts by: a list's first, a plain entry's own */
#define EILeafMinTID(itup) \
	(EITupleIsPosting(itup) ? EIPostingTID((itup), 0) : &(itup)->t_tid)
#define EILeafMaxTID(itup) \
	(EITupleIsPosting(itup) ? EIPostingMaxTID(itup) : &(itup)->t_tid)
/*
 * Do a posting list's count and offset keep its TIDs inside the tuple?  The
 * cheap part of EIPostingProblem, for readers that touch only some TIDs.
 */
#define EIPostingBoundsOK(itup) \
	(EIPostingCount(itup) >= 2 && \
	 EIPostingOffset(itup) >= sizeof(IndexTupleData) && \
	 EIPostingOffset(itup) % sizeof(uint16) == 0 && \
	 EIPostingOffset(itup) + sizeof(ItemPointerData) * EIPostingCount(itup) <= \
	 IndexTupleSize(itup))
/* the number of heap TIDs an entry holds */
#define EILeafNTIDs(itup) \
	(EITupleIsPosting(itup) ? EIPostingCount(itup) : 1)

/*
 * A run of a leaf's items that the dedup pass merges into one posting list
 * (nbtree's BTDedupInterval): nitems (at least 2) items from baseoff on.
 * The XLOG_EI_INSERT_MULTI dedup form logs them (eitree_xlog.h).
 */
typedef struct EIDedupInterval
{
	OffsetNumber baseoff;
	uint16		nitems;
} EIDedupInterval;

/* ----------------------------------------------------------------
 * Metapage
 * ----------------------------------------------------------------
 */
typedef struct EIMetaPageData
{
	uint32		magic;			/* EI_MAGIC */
	uint32		version;		/* EI_VERSION */
	uint32		am_kind;		/* EI_AM_*: whose policy (EITreePolicy) */
	BlockNumber root;			/* current root, or InvalidBlockNumber */
	uint32		level;			/* level of the root (0 = root is a leaf) */
	uint32		fillfactor;		/* leaf fill factor used by splits and build */
	XLogRecPtr	recycle_fence;	/* deleted pages with LSN <= this are
								 * unreachable (see EIPageIsRecyclable) */

	/*
	 * The policy's own fields.  The core initializes them to zeros, copies
	 * them into META records and never reads them; each policy overlays its
	 * struct with EIMetaGetPolicy (elastic: EIElasticMeta, osm: OsmMeta).
	 * Zero means "nothing" to every policy, so a metapage written before a
	 * field existed reads as its default.
	 */
	uint32		policy[EI_META_POLICY_WORDS];
} EIMetaPageData;

typedef EIMetaPageData *EIMetaPage;

/* The policy's part of a metapage, as the policy's own struct. */
#define EIMetaGetPolicy(meta, type) \
	(AssertMacro(sizeof(type) <= sizeof((meta)->policy)), \
	 (type *) (meta)->policy)

/*
 * What a backend keeps in an index's rd_amcache: a copy of the metapage
 * (EIGetMetaCached returns a pointer to it, the first member, reading the
 * metapage if meta_valid is false), the leaf its last descending insert
 * went to, which the insert fast path uses to tell an ascending run from
 * scattered inserts (core/insert.c), the spare pages this backend added
 * and has not used yet (EINewBuf, core/page.c), and the policy's own cache
 * (EIGetPolicyCache) and its leaf kind's (EIGetLeafKindCache).  A relcache
 * rebuild frees rd_amcache; the policy's and leaf kind's caches, separate
 * chunks of rd_indexcxt, stay and are found again (they go with the
 * relcache entry): never keep an EIRelCache pointer across a call that may
 * accept invalidations, a policy cache pointer may be kept.
 */
typedef struct EIRelCache
{
	EIMetaPageData meta;
	bool		meta_valid;		/* meta holds the metapage (else zeros) */
	BlockNumber lastleaf;
	int			pole_misses;	/* a patient pole's entries in a row that
								 * went elsewhere (ei_fastpath_leaf) */
	void	   *policy_cache;	/* the policy's, or NULL */
	uint32		policy_cache_kind;	/* EI_AM_* of the policy that made it */
	void	   *leaf_cache;		/* the policy's leaf kind's, or NULL */
	struct EIActivityEntry *activity;	/* the index's shared activity
										 * entry (core/activity.c), */
	uint64		activity_generation;	/* as of this entry generation */
	bool		heap_is_catalog;	/* EINoteHeapRel's note, for WAL records
									 * that reuse a page */
	BlockNumber heap_nblocks;	/* the table's size when last read: no
								 * scan's heap TID may reach it unless it
								 * grew since (EIScanCheckHeapTid) */
	BlockNumber index_nblocks;	/* the index's size when last read, for
								 * block numbers a policy's pages name */
	BlockNumber spare_next;		/* spare pages this backend added to the
								 * index and has not used yet: blocks */
	BlockNumber spare_end;		/* spare_next up to spare_end (EINewBuf) */
	uint32		spare_run;		/* spares its last busy extension added */
	uint8		equalimage;		/* EIAllEqualImage's answer, asked once:
								 * EI_EQUALIMAGE_UNKNOWN, _NO or _YES */
	int16		fixed_data_len[2];	/* bytes of the attributes of an entry
									 * [0] and of a pivot [1] without nulls
									 * when all are fixed-width, -1 when
									 * not, 0 not yet known
									 * (EIItemAttrsProblem) */
} EIRelCache;

#define EI_EQUALIMAGE_UNKNOWN	0	/* what the zeroed cache starts with */
#define EI_EQUALIMAGE_NO		1
#define EI_EQUALIMAGE_YES		2

#define EIPageGetMeta(page) ((EIMetaPage) PageGetContents(page))

/* ----------------------------------------------------------------
 * Insertion scan keys
 *
 * An insertion scan key describes a position in the tree: a prefix of the
 * key attributes and, optionally, a heap TID.  It is used to descend the
 * tree and to binary search within a page.  scankeys[i].sk_func is the
 * 3-way comparison support function for (index column type, argument type);
 * sk_flags carries SK_ISNULL and the column's EI_SK_DESC / EI_SK_NULLS_FIRST.
 *
 * nextkey = false positions at the first item >= key, nextkey = true at the
 * first item > key.  A key without heap TID whose attributes equal an
 * item's is treated as less than the item when !nextkey and greater when
 * nextkey, which makes a scan start at the first (last) duplicate.
 * ----------------------------------------------------------------
 */
#define EI_SK_DESC			(1 << 16)	/* column is DESC */
#define EI_SK_NULLS_FIRST	(1 << 17)	/* column is NULLS FIRST */

typedef struct EIScanInsertData
{
	bool		nextkey;
	int			keysz;			/* number of key attributes used */
	ItemPointer scantid;		/* heap TID tiebreaker, or NULL */
	ItemPointerData scantid_data;
	ScanKeyData scankeys[INDEX_MAX_KEYS];
} EIScanInsertData;

typedef EIScanInsertData *EIScanInsert;

/*
 * How two plain leaf entries of an index with one key column of a built-in
 * integer type compare without a scan key (EIFastCompareInit,
 * EICompareEntriesFast): the key's width, and whether the column is DESC.
 */
typedef struct EIFastCompare
{
	int16		attlen;			/* 2, 4 or 8; 0: not such an index */
	bool		desc;
} EIFastCompare;

/* A stack of parent pages remembered during a descent. */
typedef struct EIStackData
{
	BlockNumber blkno;			/* parent page */
	OffsetNumber offset;		/* downlink followed */
	uint32		level;			/* the parent's level */
	struct EIStackData *parent; /* next level up */
} EIStackData;

typedef EIStackData *EIStack;

/* ----------------------------------------------------------------
 * Scan state
 *
 * A scan reads one leaf page at a time: under a share lock it copies the
 * heap TIDs (and for index-only scans the tuples) of every matching item
 * into currPos, then releases the lock.  It keeps the pin so that VACUUM,
 * which takes a cleanup lock on each leaf, cannot remove entries whose heap
 * tuples the scan has not fetched yet.
 * ----------------------------------------------------------------
 */
typedef struct EIScanPosItem
{
	ItemPointerData heapTid;	/* TID of the heap tuple */
	OffsetNumber indexOffset;	/* offset on the leaf page */
	uint32		tupleOffset;	/* offset of the tuple copy in currTuples */
} EIScanPosItem;

/*
 * Most entries one leaf can hold: a compact leaf spends at least a 1-byte
 * bit and a 1-byte TID code per entry (src/lib/tidcode.h), more entries
 * than a standard leaf holds.
 */
#define EI_MAX_ITEMS_PER_PAGE	(BLCKSZ / 2)

typedef struct EIScanPosData
{
	Buffer		buf;			/* pinned leaf, or InvalidBuffer */
	BlockNumber currPage;		/* the leaf the items came from */
	BlockNumber nextPage;		/* its right sibling when it was read */
	BlockNumber prevPage;		/* its left sibling when it was read */
	XLogRecPtr	lsn;			/* page LSN when read (for kill items) */
	bool		moreLeft;		/* may there be matches further left? */
	bool		moreRight;		/* ... further right? */
	bool		recheck;		/* a policy leaf (no keys): recheck every row */
	int			nextTupleOffset;	/* bytes used in currTuples */
	int			firstItem;
	int			lastItem;
	int			itemIndex;		/* current item, firstItem..lastItem */

	/*
	 * The leaf as read, for entries that move to a right sibling between two
	 * page reads (src/README.md, "Redistribution between sibling leaves"):
	 * its high key, below which a forward scan skips the items of the next
	 * leaf, and its first data item f, which a backward scan compares with
	 * the left sibling's high key.  Both in leaf form (key columns, heap TID
	 * in t_tid; (0,0), below every heap TID, for a high key without one),
	 * hikeySize and firstSize bytes at EI_POS_HIKEY and EI_POS_FIRST of the
	 * position's bound space (so->currBounds, so->markBounds).  0: none
	 * (rightmost, a policy leaf's f, or not needed); EI_BOUND_INFINITY: f is
	 * plus infinity (an empty rightmost leaf).
	 */
	uint16		hikeySize;
	uint16		firstSize;
	bool		firstIsBound;	/* f is a forward skip's bound, not an item */
	EIScanPosItem items[EI_MAX_ITEMS_PER_PAGE];
} EIScanPosData;

typedef EIScanPosData *EIScanPos;

/* where a position's bounds are in its bound space, and its size */
#define EI_POS_HIKEY			0
#define EI_POS_FIRST			EI_PARALLEL_BOUND_SPACE
#define EI_POS_BOUND_SPACE		(2 * EI_PARALLEL_BOUND_SPACE)
#define EI_BOUND_INFINITY		PG_UINT16_MAX

#define EIScanPosIsValid(pos)	BlockNumberIsValid((pos).currPage)
#define EIScanPosIsPinned(pos)	BufferIsValid((pos).buf)

/*
 * The strategy of the commuted operator: < becomes >, <= becomes >=.
 * Preprocessing commutes the keys on a DESC column (index order); the
 * column's values compare the other way.
 */
#define EI_COMMUTE_STRATEGY(strat) \
	((StrategyNumber) (BTMaxStrategyNumber + 1 - (strat)))

typedef struct EIScanOpaqueData
{
	/* search quals, preprocessed; required keys stop the scan */
	int			numberOfKeys;
	ScanKey		keyData;		/* copies of scan->keyData, in index order:
								 * a DESC column's keys commuted */
	bool	   *keyRequiredFwd; /* key failing ends a forward scan */
	bool	   *keyRequiredBwd; /* key failing ends a backward scan */
	bool		qual_ok;		/* false if the quals can never be true */

	/* positions (the mark holds its own pin) */
	EIScanPosData currPos;
	EIScanPosData markPos;
	int			markItemIndex;	/* mark within currPos, or -1 */

	/* items to mark LP_DEAD when we leave the page */
	int		   *killedItems;
	int			numKilled;

	/*
	 * The bound space of currPos and of markPos (EI_POS_BOUND_SPACE bytes
	 * each, allocated when first needed), a scratch space of the same size
	 * (a parallel scan's bound, a re-read's f and low bound), and an
	 * insertion key set to one of them (ei_bound_key).
	 */
	char	   *currBounds;
	char	   *markBounds;
	char	   *scratchBounds;
	bool		scratchInf;		/* the re-read's f is plus infinity */
	bool		moves;			/* the index shifts entries between leaves
								 * (as the scan began): the bounds are kept */
	struct EIScanInsertData *boundKey;

	/* tuple copies for index-only scans (tuplesSize bytes each) */
	char	   *currTuples;
	char	   *markTuples;
	Size		tuplesSize;

	/* the policy's leaf ops' state for reading its leaves, or NULL */
	void	   *leaf_state;

	/* entries from outside the tree (EITreePolicy.scan_collect), or NULL */
	bool		extra_checked;	/* collected them since (re)scan */
	struct EIScanMerge *extra;

	/* the "= ANY (array)" keys, preprocessed (core/scan.c), or NULL */
	struct EIScanArrays *arrays;
	MemoryContext arraysCxt;	/* holds arrays; reset, not rebuilt, per rescan */
} EIScanOpaqueData;

typedef EIScanOpaqueData *EIScanOpaque;

/* Shared state of a parallel scan (in DSM). */
typedef enum EIParallelPageStatus
{
	EI_PARALLEL_NOT_INITIALIZED,
	EI_PARALLEL_ADVANCING,		/* a participant is reading the next page */
	EI_PARALLEL_IDLE,			/* next page to read is in nextPage */
	EI_PARALLEL_NEED_PRIMSCAN,	/* descend again to the array keys in
								 * arrElems */
	EI_PARALLEL_DONE
} EIParallelPageStatus;

typedef struct EIParallelScanDescData
{
	slock_t		mutex;
	EIParallelPageStatus status;
	BlockNumber nextPage;		/* next leaf for a participant to read */
	BlockNumber lastCurrPage;	/* the leaf whose reader released the scan */
	ConditionVariable cv;		/* participants wait here while ADVANCING */
	int			arrElems[INDEX_MAX_KEYS];	/* current element of each
											 * positioning array key */
	/*
	 * A bound in leaf form (key columns, heap TID in t_tid), lowSize bytes at
	 * low; written and read only by the participant that has seized the
	 * scan.  Forward scans of a policy with scan_collect: where the key range
	 * of nextPage starts (the largest high key read so far; 0: minus
	 * infinity).  Other forward scans: the high key of the leaf read last
	 * (0: none, or a descent comes next), below which the reader of nextPage
	 * skips its items.  Backward scans of a policy with scan_collect: where
	 * the key range of the last leaf read begins (0 with lowInf: plus
	 * infinity, where no leaf ends: the rest is read alone).  Other backward
	 * scans: the first data item f of lowPage, the leaf read last, whose
	 * left link was lowPrev when read (0: no check; lowInf: plus infinity).
	 */
	BlockNumber lowPage;
	BlockNumber lowPrev;
	XLogRecPtr	lowLsn;			/* lowPage's LSN when read */
	bool		lowInf;
	Size		lowSize;
	char		low[FLEXIBLE_ARRAY_MEMBER];	/* EI_PARALLEL_BOUND_SPACE bytes */
} EIParallelScanDescData;

/* room for a range bound in EIParallelScanDescData: one maximal high key */
#define EI_PARALLEL_BOUND_SPACE	MAXALIGN(EI_MAX_PIVOT_SIZE)

typedef EIParallelScanDescData *EIParallelScanDesc;

/* ----------------------------------------------------------------
 * Insertion state
 *
 * What one entry's insertion carries down to the page it lands on and the
 * split it may cause (as nbtree's BTInsertStateData).
 * ----------------------------------------------------------------
 */
typedef struct EIInsertStateData
{
	Relation	rel;
	Relation	heapRel;
	IndexTuple	itup;			/* the entry, t_tid set */
	Size		itemsz;			/* its MAXALIGNed size */
	EIScanInsert key;			/* its position (nextkey) */
	EIStack		stack;			/* parents of the leaf, or NULL */
	Buffer		buf;			/* the write-locked leaf, while held */

	/*
	 * An entry of a sorted batch (EIInsertSorted) that goes on densely in
	 * its leaf: the batch's entries after it, which a split of the leaf
	 * takes into account (see ei_find_split_loc).  NULL otherwise.
	 */
	IndexTuple *run_next;
	int			run_nnext;

	/* for the policy: a note kept across retries, -1 at first */
	int			policy_memo;
	/* the policy's leaf_full changed the leaf's kind */
	bool		leaf_changed;
	/* the entry is the transaction's own: check serializable conflicts */
	bool		own_entry;

	/*
	 * A posting split (src/README.md, "Posting lists"): the entry's heap TID
	 * falls inside the list at posting_listoff, which becomes nposting (the
	 * TID in at position postingoff, its last TID out); the item inserted
	 * after it is the entry with that last TID.  origitup is the entry as
	 * it came, which the WAL record carries.  postingoff 0: none.
	 */
	uint16		postingoff;
	OffsetNumber posting_listoff;
	IndexTuple	nposting;
	IndexTuple	origitup;

	/* a full leaf gets a dedup pass before it splits (EIGetDeduplicate) */
	bool		deduplicate;

	/*
	 * An entry of osm_tree's sorted batches or insert-buffer flushes, which
	 * may be in the tree already (a flush interrupted after it moved some
	 * entries, a batch applied again): a leaf that holds it, of any kind,
	 * leaves it there instead of raising a duplicate-entry error.
	 */
	bool		may_be_present;

	/*
	 * The dedup pass checked the items of the leaf buf under the lock still
	 * held (EICheckPageItems) and left the page as it found it, or rebuilt
	 * it from those items: the split that follows need not check them
	 * again.  Cleared whenever buf is taken anew or changed otherwise.
	 */
	bool		items_checked;
} EIInsertStateData;

typedef EIInsertStateData *EIInsertState;

/* ----------------------------------------------------------------
 * Policies
 *
 * The core is a B+-tree that knows no policy.  What the access methods
 * decide and add is in a table of callbacks, an EITreePolicy: the policies
 * (elastic/, osm/) provide the callbacks, each access method (am/) puts
 * them in a table with its aminsert and registers it at _PG_init
 * (EIRegisterPolicy).  The core finds an index's table through the
 * routine the AM's handler built, which the relcache keeps with the index
 * (rd_indam->aminsert), and calls only the table.  A NULL callback means
 * the core's default, given in brackets.  src/README.md, "Policies", says
 * how to add one.
 * ----------------------------------------------------------------
 */

/*
 * What the verifier (elastic_index_check) hands a policy's checks
 * (EILeafKindOps.verify, EITreePolicy.verify_extra): the index and its
 * table, the metapage as the check began, and the verifier's services.
 */
typedef struct EIVerifyContext EIVerifyContext;
struct EIVerifyContext
{
	Relation	rel;
	Relation	heapRel;
	const EIMetaPageData *meta;	/* the metapage as the check began */
	BlockNumber nblocks;		/* the index's size then */
	bool	   *visited;		/* blocks a walk reached: mark yours, and
								 * report a page reached twice */
	bool		collect;		/* heapallindexed: hand every live entry
								 * to collect_entry */
	MemoryContext page_cxt;		/* reset after every page */
	/* report damage at a block (and offset, when valid); raises an ERROR */
	void		(*corrupt) (EIVerifyContext *cxt, BlockNumber blkno,
							OffsetNumber offnum, const char *message);
	/* remember a live entry for heapallindexed */
	void		(*collect_entry) (EIVerifyContext *cxt, BlockNumber blkno,
								  OffsetNumber offnum, IndexTuple itup,
								  bool outside_tree);
	/* a private copy of a page, its header and line pointers checked */
	Page		(*read_page) (EIVerifyContext *cxt, BlockNumber blkno);
	void	   *private_data;	/* the verifier's */
};

/* Report damage through an EIVerifyContext; never returns. */
#define EIVerifyCorrupt(cxt, blkno, offnum, ...) \
	do { \
		(cxt)->corrupt((cxt), (blkno), (offnum), psprintf(__VA_ARGS__)); \
		pg_unreachable(); \
	} while (0)

/* What a policy leaf's insert did (EILeafKindOps.insert). */
typedef enum EILeafInsertResult
{
	EI_LEAF_INSERTED,			/* the entry is in; the leaf is released */
	EI_LEAF_FULL,				/* the leaf is full: split it (still locked) */
	EI_LEAF_RESTART				/* the leaf is released: descend again */
} EILeafInsertResult;

/*
 * Operations on leaves in a policy's own format (EI_POLICY_LEAF).  The
 * page keeps the core's special space, high key and sibling links, so
 * descents, page deletion and the parent level treat it as any leaf.
 */
typedef struct EILeafKindOps
{
	/* look up, before the core locks any page of the index, whatever the
	 * other operations read from the catalogs, so that none of them does a
	 * catalog lookup under a buffer lock; called when a scan, VACUUM or
	 * the verifier begins (inserts use insert_prepare) [nothing] */
	void		(*prepare) (Relation rel);
	/* elastic_index_check: check a private copy of one such leaf (fully,
	 * or only for the summary; with collect, hand its live entries to the
	 * verifier) and return a standard leaf with the same special space and
	 * high key holding its first and last live entries */
	Page		(*verify) (EIVerifyContext *cxt, BlockNumber blkno, Page page,
						   bool full, bool collect);
	/* insert the entry into the write-locked leaf istate->buf */
	EILeafInsertResult (*insert) (EIInsertState istate);
	/* split the full write-locked leaf istate->buf, releasing it */
	void		(*split) (EIInsertState istate);
	/* copy the pinned, share-locked leaf's matches into so->currPos */
	bool		(*read) (IndexScanDesc scan, ScanDirection dir);
	/* forget per-rescan state (so->leaf_state) [nothing] */
	void		(*rescan) (IndexScanDesc scan);
	/* free so->leaf_state [nothing] */
	void		(*endscan) (IndexScanDesc scan);
	/* VACUUM: remove the dead entries of the cleanup-locked leaf, count
	 * the others; callback NULL: only count */
	void		(*vacuum) (Relation rel, Buffer buf,
						   IndexBulkDeleteCallback callback,
						   void *callback_state,
						   IndexBulkDeleteResult *stats);
	/* how many of the sorted leaf tuples entries[0..nentries) a new leaf
	 * of this kind formed from them takes when filled to fillfactor,
	 * keeping room for a high key about as long as an entry.  Reads no
	 * catalog and no heap: called under buffer locks [0: none] */
	int			(*fill_count) (Relation rel, IndexTuple *entries,
							   int nentries, int fillfactor);
	/* make page, a new standard leaf with its special space, links and
	 * (unless rightmost) high key but no entries, a leaf of this kind
	 * holding entries[0..nentries), from the tuples alone (no heap read,
	 * no catalog, no lock): false if they do not fit (page is garbage) */
	bool		(*form) (Relation rel, IndexTuple *entries, int nentries,
						 Page page);
	/* the leaf kind's WAL records, ended by an entry whose redo is NULL;
	 * registered once however many policies use the kind [none] */
	const struct EIRecordKind *records;
} EILeafKindOps;

/* A WAL record kind a policy adds to the resource manager. */
typedef struct EIRecordKind
{
	uint8		info;			/* XLOG_EI_* code, in the policy's range */
	const char *name;			/* for rm_identify */
	void		(*redo) (XLogReaderState *record);
	void		(*desc) (StringInfo buf, XLogReaderState *record);
} EIRecordKind;

/*
 * What a policy says of posting lists in an index (EITreePolicy.deduplicate,
 * EIGetDeduplicate).
 */
typedef enum EIDedupChoice
{
	EI_DEDUP_OFF,				/* one entry per row */
	EI_DEDUP_ON,				/* builds write lists and inserts merge keys
								 * into lists (raising the format version) */
	EI_DEDUP_IF_BUILT			/* builds write lists; inserts merge keys only
								 * in an index whose format version says it
								 * may hold lists (EI_VERSION_POSTING) */
} EIDedupChoice;

/*
 * What a policy says of a build's leaves (EITreePolicy.build_leaves).
 */
typedef enum EIBuildLeavesChoice
{
	EI_BUILD_STANDARD,			/* standard leaves */
	EI_BUILD_KIND,				/* the policy's leaf kind */
	EI_BUILD_MEASURE			/* ask again after a sample in standard leaves */
} EIBuildLeavesChoice;

typedef struct EITreePolicy
{
	const char *name;			/* the access method's name */
	uint32		am_kind;		/* EI_AM_*, stored in the metapage */

	/* the AM's aminsert: how an entry enters the index, and the key by
	 * which EIGetPolicy finds this table */
	aminsert_function aminsert;

	/* options: leaf fill factor [EI_DEFAULT_FILLFACTOR]; least share a
	 * leaf's left half keeps in a dense sorted run's split [0.5] */
	int			(*fillfactor) (Relation rel);
	double		(*split_factor) (Relation rel);
	/* may its leaves hold posting lists (src/README.md, "Posting
	 * lists")?  Read by builds and inserts, before any lock [off] */
	EIDedupChoice (*deduplicate) (Relation rel);
	/* may a full standard leaf give entries to its right sibling instead
	 * of splitting (src/README.md, "Redistribution between sibling
	 * leaves")?  Scans skip moved entries by their keys, so a policy that
	 * says yes must never make a standard leaf one of its own kind while
	 * it does.  Called under the leaf's write lock: reads only rd_options
	 * [false] */
	bool		(*redistribute) (Relation rel);

	/* building: before the table is read [nothing] */
	void		(*build_begin) (Relation index);
	/* building: form the leaves of a new index of heap's rows in the leaf
	 * kind (leaf->fill_count, leaf->form) instead of standard?  The leaf
	 * loader asks before its first entry (standard_leaves < 0) and, on
	 * EI_BUILD_MEASURE, once more after a sample of the ntuples sorted
	 * entries went into standard leaves, with standard_leaves the leaves
	 * all of them would take at that rate; the kind applies from there
	 * on.  May read catalogs and relation sizes: no buffer lock is held
	 * [EI_BUILD_STANDARD] */
	EIBuildLeavesChoice (*build_leaves) (Relation index, Relation heap,
										 double ntuples,
										 double standard_leaves);
	/* building: set the policy's words of the metapage the build writes
	 * (locked, not yet logged), knowing whether it formed leaves of the
	 * kind [nothing] */
	void		(*build_meta) (Relation index, EIMetaPage meta,
							   bool kind_leaves);

	/* inserting: read what leaf_full needs, before any lock: catalog
	 * lookups, relation sizes, the metapage (heapRel: the index's table,
	 * open, or NULL) [nothing] */
	void		(*insert_prepare) (Relation rel, Relation heapRel);
	/* a full standard leaf, write-locked, dead entries gone: change its
	 * kind instead of splitting it?  true if it did.  Reads only what
	 * insert_prepare left in the policy's cache and pages: no catalog, no
	 * relation open, nothing that accepts invalidations [false: split] */
	bool		(*leaf_full) (EIInsertState istate);
	/* after an insert whose leaf_full changed a leaf, locks released */
	void		(*insert_done) (EIInsertState istate);

	/* apply the entries this backend holds back from the index (its
	 * transaction's batch) before a function reads the index whole
	 * (EIOpenIndexChecked) [nothing] */
	void		(*apply_pending) (Relation rel);

	/* the policy's own leaf kind [none] */
	const EILeafKindOps *leaf;
	/* form the leaves a bulk append fills past the right edge, and the
	 * left halves of a sorted run's splits, in the leaf kind
	 * (leaf->fill_count, leaf->form) instead of standard?  Called under
	 * buffer locks: reads only rd_options and what insert_prepare left in
	 * the caches [false] */
	bool		(*form_leaves) (Relation rel);

	/* scans: mark a leaf read (a policy leaf or a standard one) with the
	 * EI_ACCESSED hint?  Called under the leaf's share lock [false] */
	bool		(*mark_leaf_reads) (Relation rel, bool policy_leaf);
	/* entries outside the tree that match the scan's keys, which the scan
	 * merges with the tree's in index order; false: none [false] */
	bool		(*scan_collect) (IndexScanDesc scan, IndexTuple **items,
								 int *nitems);

	/* VACUUM: before a bulk deletion's walk, before and after cleanup
	 * [nothing] */
	void		(*bulkdelete_begin) (Relation rel);
	void		(*cleanup_begin) (Relation rel);
	void		(*cleanup_end) (Relation rel);

	/* elastic_index_check: check the pages the policy keeps outside the
	 * tree [nothing] */
	void		(*verify_extra) (EIVerifyContext *cxt);

	/* the policy's WAL records, ended by an entry whose redo is NULL */
	const EIRecordKind *records;
} EITreePolicy;


/* Lock modes, as nbtree names them. */
#define EI_READ		BUFFER_LOCK_SHARE
#define EI_WRITE	BUFFER_LOCK_EXCLUSIVE

/* ----------------------------------------------------------------
 * Functions
 * ----------------------------------------------------------------
 */

/* core/policy.c: the policy table */
extern void EIRegisterPolicy(const EITreePolicy *policy);
extern const EITreePolicy *EIGetPolicy(Relation rel);
extern const EITreePolicy *EIGetPolicyChecked(Relation rel);
extern uint32 EIRelAmKind(Relation rel);
extern bool EIRelServedBy(Relation rel, uint32 am_kind);
extern int	EIGetFillFactor(Relation rel);
extern double EIGetSplitFactor(Relation rel);
extern bool EIGetDeduplicate(Relation rel, bool building);
extern relopt_enum_elt_def EIOptionalBoolValues[];
extern EIDedupChoice EIDedupChoiceOf(int reloption, bool setting);
extern bool EIAllEqualImage(Relation rel);
extern bool EIColumnEqualImage(Oid opfamily, Oid opcintype, Oid collation);
extern Relation EIOpenIndexChecked(Oid indexoid, LOCKMODE lockmode);

/* a caller's identity, saved while a SQL function works as a table's owner */
typedef struct EIOwnerSwitch
{
	Oid			save_userid;
	int			save_sec_context;
	int			save_nestlevel;
} EIOwnerSwitch;
extern void EIBecomeTableOwner(Relation heap, EIOwnerSwitch *sw);
extern void EIRestoreCaller(EIOwnerSwitch *sw);
extern void *EIGetPolicyCache(Relation rel, uint32 am_kind, Size size);
extern void *EIGetLeafKindCache(Relation rel, Size size);
extern const EIRecordKind *EIGetRecordKind(uint8 info);
extern void EIGuardInit(void);
extern void EIGuardLeaf(Buffer buf);

/* core/page.c: pages, buffers, metapage, tuples */
extern void EIInitPage(Page page, uint16 flags, uint32 level);
extern void EIInitMetaPage(Page page, uint32 am_kind, BlockNumber root,
						   uint32 level, uint32 fillfactor);
extern void EICheckPage(Relation rel, Buffer buf);
extern void EICheckPageItems(Relation rel, Buffer buf);
extern void EICheckMetaPage(Relation rel, Buffer buf);
extern Buffer EIGetMetaBuf(Relation rel, int access);
extern void EIMetaSetPosting(Relation rel);
extern void EILogMetaPage(Relation rel, Buffer metabuf);
extern Buffer EIGetBuf(Relation rel, BlockNumber blkno, int access);
extern Buffer EIRelAndGetBuf(Relation rel, Buffer obuf, BlockNumber blkno, int access);
extern void EIRelBuf(Relation rel, Buffer buf);
extern Buffer EINewBuf(Relation rel);
extern EIMetaPageData *EIGetMetaCached(Relation rel, bool refresh);
extern EIRelCache *EIGetRelCache(Relation rel);
extern void EISetMetaCached(Relation rel, const EIMetaPageData *meta);
extern Buffer EIGetRoot(Relation rel, int access, bool create);
extern int	EIGetRootHeight(Relation rel);
extern IndexTuple EIFormPivot(Relation rel, IndexTuple lastleft,
							  IndexTuple itup);
extern IndexTuple EIFormMinusInf(BlockNumber downlink);
extern Page EIFormKindLeaf(Relation rel, const EILeafKindOps *ops,
						   uint16 flags, IndexTuple *entries, int *take,
						   int nkeep, IndexTuple *hikey);
extern IndexTuple EIFormPosting(IndexTuple base, ItemPointer tids, int ntids);
extern void EIPostingRunStart(EIPostingRun *run, IndexTuple itup);
extern bool EIPostingRunAdd(EIPostingRun *run, IndexTuple itup);
extern IndexTuple EIPostingRunEnd(EIPostingRun *run);
extern IndexTuple EIPostingRemoveTIDs(IndexTuple itup, const uint16 *removed,
									  int nremoved);
extern int	EIPostingFind(IndexTuple itup, ItemPointer tid);
extern void EIPostingOverwrite(Page page, OffsetNumber offnum,
							   IndexTuple nposting);
extern IndexTuple EIPostingSwap(IndexTuple itup, ItemPointer newtid,
								int postingoff, ItemPointer oldmax);
extern const char *EIPostingProblem(IndexTuple itup);
extern int	EIDedupIntervals(Page page, EIDedupInterval *intervals);
extern const char *EIDedupPageProblem(Page page);
extern Page EIDedupBuildPage(Page page, const EIDedupInterval *intervals,
							 int nintervals, const char **problem);
extern ItemPointer EITupleGetHeapTID(IndexTuple itup, bool isleaf);
extern void EICheckItemSize(Relation rel, Relation heapRel, IndexTuple itup);
extern Size EIPageFreeSpace(Page page);
extern void EIScanCheckHeapTid(IndexScanDesc scan, ItemPointer tid);
pg_noreturn extern void EIItemRefused(Relation rel, Page page, OffsetNumber off);

/*
 * Return the tuple at an offset of a page.
 */
static inline IndexTuple
EIReadTuple(Page page, OffsetNumber off)
{
	return (IndexTuple) PageGetItem(page, PageGetItemId(page, off));
}

/*
 * The bytes of a leaf entry before its TIDs: a posting list's offset, a
 * plain entry's whole size (MAXALIGNed, as index_form_tuple makes it).
 */
static inline Size
EIPostingKeySize(IndexTuple itup)
{
	return EITupleIsPosting(itup) ? EIPostingOffset(itup) : IndexTupleSize(itup);
}

/*
 * Compare two leaf entries a and b in the tree's order (key, then heap TID)
 * into *result (<0, 0 or >0) without a scan key, for an index
 * EIFastCompareInit accepted (fc->attlen set): the one key column, a
 * signed integer of attlen bytes right after the header, compares as its
 * built-in function would (ei_compare_builtin).  Returns false, for the
 * caller to compare through a scan key, when either entry has a null (its
 * data then starts later), is a posting list (it covers a range of TIDs),
 * or is too short to hold the key (a damaged item, which the scan key's
 * path reports).
 */
static inline bool
EICompareEntriesFast(const EIFastCompare *fc, IndexTuple a, IndexTuple b,
					 int32 *result)
{
	const char *da = (const char *) a + MAXALIGN(sizeof(IndexTupleData));
	const char *db = (const char *) b + MAXALIGN(sizeof(IndexTupleData));
	int32		c;

	if (fc->attlen == 0 ||
		((a->t_info | b->t_info) & (INDEX_NULL_MASK | EI_POSTING_BIT)) != 0 ||
		IndexTupleSize(a) < MAXALIGN(sizeof(IndexTupleData)) + fc->attlen ||
		IndexTupleSize(b) < MAXALIGN(sizeof(IndexTupleData)) + fc->attlen)
		return false;
	if (fc->attlen == sizeof(int64))
	{
		int64		x;
		int64		y;

		memcpy(&x, da, sizeof(x));
		memcpy(&y, db, sizeof(y));
		c = (x > y) - (x < y);
	}
	else if (fc->attlen == sizeof(int32))
	{
		int32		x;
		int32		y;

		memcpy(&x, da, sizeof(x));
		memcpy(&y, db, sizeof(y));
		c = (x > y) - (x < y);
	}
	else
	{
		int16		x;
		int16		y;

		memcpy(&x, da, sizeof(x));
		memcpy(&y, db, sizeof(y));
		c = (x > y) - (x < y);
	}
	if (c == 0)
	{
		BlockNumber ablk = ItemPointerGetBlockNumberNoCheck(&a->t_tid);
		BlockNumber bblk = ItemPointerGetBlockNumberNoCheck(&b->t_tid);
		OffsetNumber aoff = ItemPointerGetOffsetNumberNoCheck(&a->t_tid);
		OffsetNumber boff = ItemPointerGetOffsetNumberNoCheck(&b->t_tid);

		/* the heap TID ascends whatever the column's direction */
		*result = ablk != bblk ? (ablk > bblk ? 1 : -1) :
			(aoff > boff) - (aoff < boff);
		return true;
	}
	*result = fc->desc ? -c : c;
	return true;
}

/*
 * Are two leaf entries' keys the same bytes (their attributes and null
 * bitmap, not their TIDs), so that one posting list may hold both?  With
 * equal image (EIGetDeduplicate), equal keys are; keys that differ only in
 * bytes stay apart, which is merely less compact.
 */
static inline bool
EISameKey(IndexTuple a, IndexTuple b)
{
	Size		asz = EIPostingKeySize(a);

	return asz == EIPostingKeySize(b) &&
		((a->t_info ^ b->t_info) & ~(INDEX_SIZE_MASK | EI_POSTING_BIT)) == 0 &&
		memcmp((char *) a + sizeof(IndexTupleData),
			   (char *) b + sizeof(IndexTupleData),
			   asz - sizeof(IndexTupleData)) == 0;
}

/*
 * Is the item at off of a page a pivot (a high key or an item of an inner
 * page)?  A policy's page outside the tree holds entries.
 */
static inline bool
EIItemIsPivot(Page page, OffsetNumber off)
{
	EIPageOpaque opaque = EIPageGetOpaque(page);

	if (EI_IS_LEAF(opaque))
		return off == EI_HIKEY && !EI_RIGHTMOST(opaque);
	/* a policy's page outside the tree (osm's buffer) holds entries */
	return !(opaque->ei_flags & EI_POLICY_FLAGS);
}

/*
 * Add an item of size bytes (a MAXALIGNed length) at offset off of a page
 * of the tree, off at most one past its last item: PageAddItem's placement
 * (the line pointers from off on move up one, the tuple goes below the
 * others) without the checks of what this code controls, for the paths
 * that add an item per entry.  The page's header bounds were checked when
 * it was read (EICheckPage), or the page was built here.  Returns false
 * when the item does not fit or off is past the end.  Redo adds the same
 * items with PageAddItem, so wal_consistency_checking compares the two.
 */
static inline bool
EIPageAddItemAt(Page page, Item item, Size size, OffsetNumber off)
{
	PageHeader	phdr = (PageHeader) page;
	OffsetNumber limit = PageGetMaxOffsetNumber(page) + 1;
	int			lower = phdr->pd_lower + sizeof(ItemIdData);
	int			upper = (int) phdr->pd_upper - (int) MAXALIGN(size);
	ItemId		itemid;

	if (unlikely(lower > upper || off < FirstOffsetNumber || off > limit))
		return false;
	itemid = PageGetItemId(page, off);
	if (off < limit)
		memmove(itemid + 1, itemid, (limit - off) * sizeof(ItemIdData));
	VALGRIND_CHECK_MEM_IS_DEFINED(item, size);
	ItemIdSetNormal(itemid, upper, size);
	memcpy((char *) page + upper, item, size);
	phdr->pd_lower = (LocationIndex) lower;
	phdr->pd_upper = (LocationIndex) upper;
	return true;
}

/*
 * Return the tuple at an offset of a page read by EICheckPage, checking
 * the one line pointer and tuple it reads: an offset the page has, a line
 * pointer with storage inside the tuple space, and a tuple of the line
 * pointer's length.  A few comparisons on data the caller reads anyway:
 * searches and scans call it for every item they read.
 */
static inline IndexTuple
EIReadTupleChecked(Relation rel, Page page, OffsetNumber off)
{
	PageHeader	phdr = (PageHeader) page;
	ItemId		itemid;
	unsigned	itemoff;
	unsigned	itemlen;

	if (unlikely(off < FirstOffsetNumber || off > PageGetMaxOffsetNumber(page)))
		EIItemRefused(rel, page, off);
	itemid = PageGetItemId(page, off);
	itemoff = ItemIdGetOffset(itemid);
	itemlen = ItemIdGetLength(itemid);
	if (unlikely(itemid->lp_flags == LP_UNUSED ||
				 itemid->lp_flags == LP_REDIRECT ||
				 itemoff < phdr->pd_upper ||
				 itemoff + itemlen > phdr->pd_special ||
				 itemlen < sizeof(IndexTupleData) ||
				 IndexTupleSize((IndexTuple) ((char *) page + itemoff)) != itemlen))
		EIItemRefused(rel, page, off);
	return (IndexTuple) ((char *) page + itemoff);
}
pg_noreturn extern void EIItemCorrupted(Relation rel, Page page, OffsetNumber off,
										const char *what);
extern const char *EITupleAttrsProblem(TupleDesc desc, int natts,
									   IndexTuple itup, Size end);
extern int16 EIEntryFixedDataLen(Relation rel);
extern const char *EIItemAttrsProblem(Relation rel, IndexTuple itup,
									  bool pivot);
extern void EICheckTupleAttrs(Relation rel, Page page, OffsetNumber off,
							  IndexTuple itup, bool pivot);
extern void EIDeleteItems(Page page, OffsetNumber *offs, int noffs);

/*
 * What it takes to compute an index's normalized keys (core/normkey.c):
 * when ok, the support function 3 of every key column with its collation
 * and keynorm flags (DESC, NULLS FIRST); otherwise why not.
 */
typedef struct EINormKeyInfo EINormKeyInfo;
struct EINormKeyInfo
{
	bool		ok;
	const char *reason;			/* when !ok: a phrase for messages */
	int			nkeyatts;
	FmgrInfo	procs[INDEX_MAX_KEYS];
	Oid			collations[INDEX_MAX_KEYS];
	int			flags[INDEX_MAX_KEYS];
	int			widths[INDEX_MAX_KEYS];	/* encoded value bytes, -1 if variable */
	int			keylen;			/* bytes of every key (TID included) when
								 * all widths are fixed, else -1; or, when
								 * padded, the padded length */
	bool		padded;			/* variable-width keys are padded with zeros
								 * to keylen (EINormKeyPad) */
};

/*
 * Length of the padded normalized keys of an index with a variable-width
 * key column (text, bytea) in its compact leaves: the longest key a SeqTree
 * can index.  Zero padding keeps both the memcmp order and the first
 * differing bit of two keys, because the encodings are prefix-free and end
 * with the distinct heap TIDs (see src/README.md, "Variable-width keys").
 */
#define EI_NORMKEY_VARKEY_LEN	255

/* core/normkey.c: normalized keys */
extern EINormKeyInfo *EIGetNormKeyInfo(Relation index);
extern bool EINormalizeKey(EINormKeyInfo *info, Datum *values, bool *isnull,
						   ItemPointer tid, StringInfo out);
extern void EINormKeyPad(EINormKeyInfo *info);
extern int	EINormKeyPrefixLength(EINormKeyInfo *info, int keylen);
extern bool EINormKeyCollationOK(Oid collation);
extern bool EINormalizeProcUsesCollation(Oid procid);
extern int	EINormKeyTypeWidth(Oid typid);
extern Oid	EIGetNormalizeProc(Oid opfamily, Oid opcintype);

/* core/search.c: insertion keys, comparison, descent */
extern EIScanInsert EIMakeScanKey(Relation rel, IndexTuple itup, bool isleaf);
extern void EIRefillScanKey(Relation rel, EIScanInsert key, IndexTuple itup);
extern int32 EICompare(Relation rel, EIScanInsert key, Page page, OffsetNumber offnum);
extern int32 EICompareLeafTuple(Relation rel, EIScanInsert key, IndexTuple itup);
extern void EIFastCompareInit(Relation rel, EIScanInsert key, EIFastCompare *fc);
extern OffsetNumber EIBinSearch(Relation rel, EIScanInsert key, Page page);
extern EIStack EISearch(Relation rel, EIScanInsert key, Buffer *bufP, int access);
extern Buffer EIMoveRight(Relation rel, EIScanInsert key, Buffer buf,
						  bool forupdate, EIStack stack, int access);
extern Buffer EIGetEndpoint(Relation rel, uint32 level, bool rightmost);
extern void EIFreeStack(EIStack stack);
extern void EICheckChildLevel(Relation rel, BlockNumber parent,
							  uint32 parentlevel, Buffer child);
extern void EICheckHops(Relation rel, uint64 hops, BlockNumber blkno);
extern BlockNumber EICheckDownlink(Relation rel, Buffer buf, OffsetNumber offnum);

/* core/insert.c: insertion, splits, new roots */
extern bool EIDoInsert(Relation rel, IndexTuple itup, Relation heapRel);
extern void EIInsertTop(Relation rel, Relation heapRel, IndexTuple itup);
extern void EIInsertSorted(Relation rel, Relation heapRel, IndexTuple *items,
						   int nitems, bool own_entries);
extern void EIFinishSplit(Relation rel, Buffer lbuf, EIStack stack);
extern Buffer EIGetParentBuf(Relation rel, EIStack stack, BlockNumber child);
/* levels of parent hints a left-to-right pass over a level keeps */
#define EI_PARENT_HINT_LEVELS	8
extern void EIInitParentHints(EIStackData *hints, int nlevels, uint32 level);
extern void EIInsertParent(Relation rel, Buffer buf, Buffer rbuf,
						   EIStack stack, bool isroot);
extern void EISplitBuildPages(Relation rel, Page origpage, OffsetNumber firstright,
							  OffsetNumber newitemoff, IndexTuple newitem,
							  bool newitemonleft, IndexTuple lefthikey,
							  Page leftpage, Page rightpage);
extern const char *EICheckSplitBounds(Relation rel, Page leftpage,
									  Page rightpage, bool rightmost);
extern Buffer EISplitLeafAt(Relation rel, Buffer buf, OffsetNumber firstright);
extern void EIFinishLeafSplit(Relation rel, Buffer buf, Buffer rbuf,
							  EIStack stack);

/* core/shift.c: a full leaf gives entries to its right sibling */
extern bool EIShiftRight(EIInsertState istate);
extern void EIShiftApplyLeft(Page page, OffsetNumber firstmoved,
							 IndexTuple hikey);
extern void EIShiftApplyRight(Page page, const char *chunk, Size len);
extern void EIShiftApplyParent(Page page, OffsetNumber poffset,
							   IndexTuple pivot);

/*
 * Sorting formed entries in memory (core/sort.c): the first key of each is
 * cached, abbreviated where its type allows, as tuplesort does.
 */
typedef struct EISortEntry
{
	Datum		datum1;
	bool		isnull1;
	IndexTuple	itup;
} EISortEntry;

typedef struct EIEntrySort
{
	Relation	index;
	int			nkeys;			/* key columns */
	struct SortSupportData *sortkeys;	/* one per key column */
} EIEntrySort;

extern Oid	EISortOperator(Relation index, int attno);
extern void EIEntrySortInit(EIEntrySort *esort, Relation index);
extern void EIEntrySortSet(EIEntrySort *esort, EISortEntry *entry,
						   IndexTuple itup);
extern void EIEntrySortRun(EIEntrySort *esort, EISortEntry *entries, int64 n);

/* core/build.c: bulk build */
extern IndexBuildResult *eibuild(Relation heap, Relation index, IndexInfo *indexInfo);
extern void eibuildempty(Relation index);
extern PGDLLEXPORT void ei_parallel_build_main(dsm_segment *seg,
											   shm_toc *toc);

/* core/scan.c: index scans */
extern IndexScanDesc eibeginscan(Relation rel, int nkeys, int norderbys);
extern void eirescan(IndexScanDesc scan, ScanKey scankey, int nscankeys,
					 ScanKey orderbys, int norderbys);
extern bool eigettuple(IndexScanDesc scan, ScanDirection dir);
extern int64 eigetbitmap(IndexScanDesc scan, TIDBitmap *tbm);
extern void eiendscan(IndexScanDesc scan);
extern void eimarkpos(IndexScanDesc scan);
extern void eirestrpos(IndexScanDesc scan);
#if PG_VERSION_NUM >= 180000
extern Size eiestimateparallelscan(Relation rel, int nkeys, int norderbys);
#elif PG_VERSION_NUM >= 170000
extern Size eiestimateparallelscan(int nkeys, int norderbys);
#else
extern Size eiestimateparallelscan(void);
#endif
extern void eiinitparallelscan(void *target);
extern void eiparallelrescan(IndexScanDesc scan);

/* core/pagedel.c: page deletion and recycling */
extern bool EIPageDelete(Relation rel, Buffer leafbuf);
extern void EIUnlinkHalfDead(Relation rel, BlockNumber target);
extern bool EIPageIsRecyclable(Page page, XLogRecPtr recycle_fence);
extern XLogRecPtr EIAdvanceRecycleFence(Relation rel);
extern void EIPageSetDeleted(Page page, BlockNumber prev, BlockNumber next,
							 uint32 level, FullTransactionId safexid);
extern FullTransactionId EIPageGetSafeXid(Page page);
extern void EIPageRemoveDownlink(Page ppage, OffsetNumber poff, BlockNumber rightblk);
extern void EIPageMarkHalfDead(Page leafpage, Page ppage, OffsetNumber poff,
							   BlockNumber rightblk, BlockNumber topparent);
extern void EINoteHeapRel(Relation rel, Relation heapRel);
extern bool EIHeapIsCatalogRel(Relation index);
extern void EILogReusePage(Relation rel, BlockNumber blkno, FullTransactionId safexid);

/*
 * elastic_index.debug_fault: stop after a WAL-logged step (crash tests
 * only).  Compiled in only with -DEI_FAULT_INJECTION (make
 * EI_FAULT_INJECTION=1, as scripts/test.sh builds), as PostgreSQL's
 * injection points need --enable-injection-points; otherwise the points
 * compile to nothing and the setting does not exist.
 */
#define EI_FAULT_NONE			0
#define EI_FAULT_AFTER_HALFDEAD	1
#define EI_FAULT_AFTER_UNLINK	2
#define EI_FAULT_AFTER_SPLIT	3	/* split done, downlink not yet inserted */
#define EI_FAULT_AFTER_SEAL		4	/* osm flush: tail page closed */
#define EI_FAULT_AFTER_FLUSH_INSERT	5	/* osm flush: entries in the tree, pages
											 * not yet unlinked */
#define EI_FAULT_PARALLEL_COLLECT_GATE	6	/* parallel scan: the leader waits
											 * after collecting the policy's
											 * entries, a worker before */
#define EI_FAULT_PARALLEL_ALONE	7	/* backward parallel scan: the second
									 * page's taker reads the rest alone */
#define EI_FAULT_IN_BUILD_WORKER	8	/* a parallel build's worker, as it
										 * starts (proves workers ran) */
#define EI_FAULT_UNLOCKED_READ_GATE	9	/* a compact leaf's key read with the
										 * leaf unlocked waits there */
#define EI_FAULT_BUILD_PHASE_GATE	10	/* a build waits as it enters its
										 * sort and load phases (gate: the
										 * phase number) */
#define EI_FAULT_EXTENSION_GATE	11	/* a backend's first extension waits,
									 * its new page not yet locked, until
									 * another waits for the extension lock */
#define EI_FAULT_PLAIN_TIDS		12	/* leaves made compact keep plain 6-byte
									 * TIDs, as before 0.3.0 */
#define EI_FAULT_AFTER_TRUNCATE_GATE	13	/* VACUUM waits after truncating
											 * the index, its transaction not
											 * yet over */
#define EI_FAULT_BEFORE_TRUNCATE_GATE	14	/* VACUUM waits after recording
											 * free pages, before it locks
											 * the index to truncate */
#define EI_FAULT_RUN_SPLIT_POSTING	15	/* a leaf split that carries a
											 * posting split may take the
											 * sorted-run rule, as before
											 * stop 38: tests the split
											 * check's second choice */
#define EI_FAULT_SCAN_BOUNDS	16	/* scans take leaf steps for ones
									 * where entries may have moved: the
									 * forward skip always searches, a
									 * backward step re-reads whenever the
									 * left high key has no heap TID */
#ifdef EI_FAULT_INJECTION
extern int	ei_debug_fault;
extern void EIFaultPoint(int point);
extern void EIFaultGate(int point, uint32 gate);
extern void EIFaultExtensionGate(Relation rel);
#else
#define ei_debug_fault			EI_FAULT_NONE
#define EIFaultPoint(point)		((void) (point))
#define EIFaultGate(point, gate)	((void) (point), (void) (gate))
#define EIFaultExtensionGate(rel)	((void) (rel))
#endif

/* core/vacuum.c: VACUUM */
extern IndexBulkDeleteResult *eibulkdelete(IndexVacuumInfo *info,
										   IndexBulkDeleteResult *stats,
										   IndexBulkDeleteCallback callback,
										   void *callback_state);
extern IndexBulkDeleteResult *eivacuumcleanup(IndexVacuumInfo *info,
											  IndexBulkDeleteResult *stats);

/* core/cost.c: planner */
extern void eicostestimate(PlannerInfo *root, IndexPath *path, double loop_count,
						   Cost *indexStartupCost, Cost *indexTotalCost,
						   Selectivity *indexSelectivity, double *indexCorrelation,
						   double *indexPages);

/* core/xlog.c: WAL resource manager */
extern bool ei_rmgr_registered;
extern void EIRmgrRegister(void);
extern void EICheckPreloaded(void);
extern bool EIIsCoreRecord(uint8 info);

/* core/scan.c, core/sort.c: what policies that read entries share */
extern bool EIScanCheckKeys(IndexScanDesc scan, IndexTuple itup,
							ScanDirection dir, bool *continuescan);
extern bool EIScanMatchKeys(IndexScanDesc scan, IndexTuple itup);
extern bool EIScanArrayKeyRange(IndexScanDesc scan, int keyIndex,
								Datum *first, Datum *last);
extern bool EIScanKeyValueAsColumn(Relation rel, ScanKey key, int col,
								   Datum *value);
extern void EIEntrySortInitCompare(EIEntrySort *esort, Relation index,
								   MemoryContext cxt);
extern int	EIEntryCompare(EIEntrySort *esort, const EISortEntry *a,
						   const EISortEntry *b);
extern void EIScanSaveItem(EIScanOpaque so, int itemIndex,
						   OffsetNumber offnum, IndexTuple itup);
extern char *eibuildphasename(int64 phasenum);

/* build phases reported in pg_stat_progress_create_index */
#define EI_BUILD_PHASE_SCAN		2	/* PROGRESS_CREATEIDX_SUBPHASE_INITIALIZE is 1 */
#define EI_BUILD_PHASE_SORT		3
#define EI_BUILD_PHASE_LOAD		4

#endif							/* EITREE_H */
