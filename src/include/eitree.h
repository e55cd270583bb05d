/*-------------------------------------------------------------------------
 *
 * eitree.h
 *	  The shared B+-tree core of elastic_index: page layout, metapage,
 *	  insertion scan keys, scan state, and every function the access
 *	  methods (elastic_btree, later osm_tree) call.
 *
 * The tree is a Lehman & Yao B+-tree over ordinary 8 KB buffer pages, laid
 * out much like PostgreSQL's nbtree.  See src/README.md for the page
 * formats, the locking protocol and the WAL records.
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
#include "access/sdir.h"
#include "access/skey.h"
#include "access/transam.h"
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
#include "storage/itemptr.h"
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
 * misread.
 */
#define EI_VERSION			2
#define EI_METAPAGE			0		/* block number of the metapage */
#define EI_PAGE_ID			0xFF9E	/* last 2 bytes of every page's special */

/* Which access method a tree serves (stored in the metapage). */
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

/* osm_tree settings: ranges (defaults are in am/osm_tree.c) */
#define OSM_MIN_SPLIT_FACTOR	0.05
#define OSM_MAX_SPLIT_FACTOR	0.95
#define OSM_MAX_BATCH_SIZE		10000000
#define OSM_MAX_BUFFER_SIZE		131072	/* pages: 1 GB */
#define OSM_MIN_FLUSH_FRACTION	0.01
#define OSM_MAX_BLOOM_BITS		32
#define OSM_MAX_SORT_THRESHOLD	MaxOffsetNumber

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
/* reserved for later page kinds: deleted, half-dead, compact, buffer */
#define EI_DELETED			(1 << 5)
#define EI_HALF_DEAD		(1 << 6)
#define EI_COMPACT			(1 << 7)
#define EI_ACCESSED			(1 << 8)	/* hint: a scan read this leaf since
										 * VACUUM last looked (set on standard
										 * leaves only while SHRINKING) */
#define EI_BUFFER			(1 << 9)	/* osm_tree insert buffer page */
#define EI_BUFFER_CLOSED	(1 << 10)	/* buffer page takes no more entries */
#define EI_BUFFER_FILTER	(1 << 11)	/* osm_tree insert buffer's section
										 * filter page */

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
 * the last key attribute (so every entry is unique).
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
 * Metapage
 * ----------------------------------------------------------------
 */
typedef struct EIMetaPageData
{
	uint32		magic;			/* EI_MAGIC */
	uint32		version;		/* EI_VERSION */
	uint32		am_kind;		/* EI_AM_* */
	BlockNumber root;			/* current root, or InvalidBlockNumber */
	uint32		level;			/* level of the root (0 = root is a leaf) */
	uint32		fillfactor;		/* leaf fill factor used by splits and build */
	XLogRecPtr	recycle_fence;	/* deleted pages with LSN <= this are
								 * unreachable (see EIPageIsRecyclable) */
	uint32		elastic_state;	/* EI_STATE_*: what the size policy is doing */

	/*
	 * osm_tree: the page of the insert buffer's section filter, a Bloom
	 * filter over the entries of every buffer page but the tail; zero (as
	 * in metapages written before it existed) means none.
	 */
	BlockNumber buf_filter;

	/*
	 * osm_tree's insert buffer (osm/buffer.c): a chain of EI_BUFFER pages
	 * from buf_head (oldest) to buf_tail (newest, takes new entries).  Zero
	 * (the metapage's own number, never a buffer page) means none, so a
	 * metapage written before the buffer existed reads as "empty".
	 */
	BlockNumber buf_head;
	BlockNumber buf_tail;
	uint32		buf_pages;		/* pages in the chain */
	uint32		buf_flushes;	/* flush steps completed (for stats) */
} EIMetaPageData;

/*
 * States of the size policy (src/README.md, "Elasticity").  NORMAL: no
 * conversions; full leaves split.  SHRINKING: the index is near its size
 * bound, so a full standard leaf is converted to a compact leaf instead of
 * being split.  EXPANDING: the index fell below the expand threshold, so
 * VACUUM converts compact leaves back.  Only elastic_btree_shrink, the
 * insert path and VACUUM change it, each by a META record.
 */
#define EI_STATE_NORMAL		0
#define EI_STATE_SHRINKING	1
#define EI_STATE_EXPANDING	2

typedef EIMetaPageData *EIMetaPage;

/*
 * What a backend keeps in an index's rd_amcache: a copy of the metapage
 * (EIGetMetaCached returns a pointer to it, the first member) and the leaf
 * its last descending insert went to, which the insert fast path uses to
 * tell an ascending run from scattered inserts (core/insert.c).
 */
typedef struct EIRelCache
{
	EIMetaPageData meta;
	BlockNumber lastleaf;
	int			pole_misses;	/* EIInsertTop: entries in a row outside
								 * the pole */
	bool		compact_checked;	/* compact_norm is known */
	struct EINormKeyInfo *compact_norm; /* NULL: no compact leaves possible */
	struct OsmBufferCache *buffer;	/* osm_tree insert state (osm/buffer.c) */
	TimestampTz flush_requested;	/* when we last asked for a background
									 * flush (osm/flushworker.c) */
	struct EIActivityEntry *activity;	/* the index's shared activity
										 * entry (inspect/activity.c), */
	uint64		activity_generation;	/* as of this entry generation */
	bool		heap_is_catalog;	/* EINoteHeapRel's note, for WAL records
									 * that reuse a page */
} EIRelCache;

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

/* A stack of parent pages remembered during a descent. */
typedef struct EIStackData
{
	BlockNumber blkno;			/* parent page */
	OffsetNumber offset;		/* downlink followed */
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
 * Most entries one leaf can hold: a compact leaf spends at least a 6-byte
 * TID and a 1-byte bit per entry, more entries than a standard leaf holds.
 */
#define EI_MAX_ITEMS_PER_PAGE \
	(BLCKSZ / (sizeof(ItemPointerData) + 1))

typedef struct EIScanPosData
{
	Buffer		buf;			/* pinned leaf, or InvalidBuffer */
	BlockNumber currPage;		/* the leaf the items came from */
	BlockNumber nextPage;		/* its right sibling when it was read */
	BlockNumber prevPage;		/* its left sibling when it was read */
	XLogRecPtr	lsn;			/* page LSN when read (for kill items) */
	bool		moreLeft;		/* may there be matches further left? */
	bool		moreRight;		/* ... further right? */
	bool		compact;		/* the page was compact: recheck every row */
	int			nextTupleOffset;	/* bytes used in currTuples */
	int			firstItem;
	int			lastItem;
	int			itemIndex;		/* current item, firstItem..lastItem */
	EIScanPosItem items[EI_MAX_ITEMS_PER_PAGE];
} EIScanPosData;

typedef EIScanPosData *EIScanPos;

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

	/* tuple copies for index-only scans (tuplesSize bytes each) */
	char	   *currTuples;
	char	   *markTuples;
	Size		tuplesSize;

	/* reading compact leaves: heap key reader and search bounds */
	struct EIScanCompact *compact;

	/* osm_tree: buffered entries merged into the scan, or NULL */
	bool		buffer_checked; /* looked at the buffer since (re)scan */
	struct OsmScanBuffer *buffer;
} EIScanOpaqueData;

typedef EIScanOpaqueData *EIScanOpaque;

/* Shared state of a parallel scan (in DSM). */
typedef enum EIParallelPageStatus
{
	EI_PARALLEL_NOT_INITIALIZED,
	EI_PARALLEL_ADVANCING,		/* a participant is reading the next page */
	EI_PARALLEL_IDLE,			/* next page to read is in nextPage */
	EI_PARALLEL_DONE
} EIParallelPageStatus;

typedef struct EIParallelScanDescData
{
	slock_t		mutex;
	EIParallelPageStatus status;
	BlockNumber nextPage;		/* next leaf for a participant to read */
	ConditionVariable cv;		/* participants wait here while ADVANCING */
} EIParallelScanDescData;

typedef EIParallelScanDescData *EIParallelScanDesc;

/* ----------------------------------------------------------------
 * Per-index options (reloptions), shared by both access methods
 * ----------------------------------------------------------------
 */
typedef struct EIOptions
{
	int32		varlena_header_;	/* varlena header (do not touch) */
	int			fillfactor;		/* leaf page fill factor; osm_tree: -1 =
								 * osm_tree.fill_factor */
	int			size_bound_offset;	/* elastic_btree: size_bound string, or 0 */
	double		split_factor;	/* osm_tree: -1 = osm_tree.split_factor */
	int			batch_size;		/* osm_tree: -1 = osm_tree.batch_size */
	int			buffer_size;	/* osm_tree: -1 = osm_tree.buffer_size */
	double		flush_fraction; /* osm_tree: -1 = osm_tree.flush_fraction */
	int			bloom_bits_per_key; /* osm_tree: -1 = osm_tree.bloom_bits_per_key */
	int			sort_threshold; /* osm_tree: -1 = osm_tree.sort_threshold */
} EIOptions;

/* Is this index an osm_tree (rather than an elastic_btree)? */
#define EIRelIsOsm(rel)	((rel)->rd_indam->aminsert == osminsert)

/* Lock modes, as nbtree names them. */
#define EI_READ		BUFFER_LOCK_SHARE
#define EI_WRITE	BUFFER_LOCK_EXCLUSIVE

/* ----------------------------------------------------------------
 * Functions
 * ----------------------------------------------------------------
 */

/* elastic_index.c: extension-wide */
extern bool ei_rmgr_registered;
extern void EICheckPreloaded(void);
extern void _PG_init(void);

/* core/page.c: pages, buffers, metapage, tuples */
extern void EIInitPage(Page page, uint16 flags, uint32 level);
extern void EIInitMetaPage(Page page, uint32 am_kind, BlockNumber root,
						   uint32 level, uint32 fillfactor);
extern void EICheckPage(Relation rel, Buffer buf);
extern Buffer EIGetBuf(Relation rel, BlockNumber blkno, int access);
extern Buffer EIRelAndGetBuf(Relation rel, Buffer obuf, BlockNumber blkno, int access);
extern void EIRelBuf(Relation rel, Buffer buf);
extern Buffer EINewBuf(Relation rel);
extern EIMetaPageData *EIGetMetaCached(Relation rel, bool refresh);
extern Buffer EIGetRoot(Relation rel, int access, bool create);
extern int	EIGetRootHeight(Relation rel);
extern IndexTuple EIFormPivot(IndexTuple itup);
extern IndexTuple EIFormMinusInf(BlockNumber downlink);
extern ItemPointer EITupleGetHeapTID(IndexTuple itup, bool isleaf);
extern void EICheckItemSize(Relation rel, Relation heapRel, IndexTuple itup);
extern Size EIPageFreeSpace(Page page);
extern IndexTuple EIReadTuple(Page page, OffsetNumber off);
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
#define EI_COMPACT_VARKEY_LEN	255

/* core/normkey.c and am/normalize.c: normalized keys */
extern EINormKeyInfo *EIGetNormKeyInfo(Relation index);
extern bool EINormalizeKey(EINormKeyInfo *info, Datum *values, bool *isnull,
						   ItemPointer tid, StringInfo out);
extern void EINormKeyPad(EINormKeyInfo *info);
extern int	EINormKeyPrefixLength(EINormKeyInfo *info, int keylen);
extern bool EINormKeyCollationOK(Oid collation);
extern Oid	EIGetNormalizeProc(Oid opfamily, Oid opcintype);

/*
 * Reading entries' keys from the heap (core/heapkey.c).  key holds the last
 * key read, normalized, with the entry's TID appended.
 */
typedef enum EIHeapKeyResult
{
	EI_HEAPKEY_FOUND,			/* reader->key holds the key */
	EI_HEAPKEY_DEAD,			/* the HOT chain is dead to everybody */
	EI_HEAPKEY_UNREADABLE		/* a key column is toasted out of line */
} EIHeapKeyResult;

typedef struct EIHeapKeyReader
{
	Relation	heap;
	Relation	index;
	EINormKeyInfo *norm;
	Buffer		buf;			/* pinned heap page of the last read */
	StringInfoData key;
	bool		want_tuple;		/* also form the entry's index tuple (set
								 * before the first read) */
	IndexTuple	itup;			/* if so, the last one read (palloc'd) */
	uint64		nreads;			/* keys read so far */
	bool		last_valid;		/* key holds the key of last_tid */
	ItemPointerData last_tid;
	MemoryContext cxt;			/* where remembered keys live */
	struct EIHeapKeyCached *cached; /* keys read with the leaf unlocked */
	int			ncached;
	int			maxcached;
} EIHeapKeyReader;

extern EIHeapKeyReader *EIHeapKeyReaderBegin(Relation heap, Relation index,
											 EINormKeyInfo *norm);
extern EIHeapKeyResult EIHeapKeyRead(EIHeapKeyReader *reader, ItemPointer tid);
extern EIHeapKeyResult EIHeapKeyReadUnlocked(EIHeapKeyReader *reader,
											 ItemPointer tid);
extern void EIHeapKeyFetchUnlocked(EIHeapKeyReader *reader, Buffer leafbuf,
								   int lockmode, ItemPointer tid);
extern void EIHeapKeyReaderReleasePin(EIHeapKeyReader *reader);
extern void EIHeapKeyReaderForget(EIHeapKeyReader *reader);
extern void EIHeapKeyReaderEnd(EIHeapKeyReader *reader);

/* core/compact.c: compact leaf pages */
extern void EICompactAttach(Page page, SeqTree *st);
extern void EICompactGetTid(Page page, int pos, ItemPointer tid);
extern void EICompactDelete(Page page, int pos);
extern int	EICompactCapacity(int keylen, Size hikeysz);
extern char *EICompactLeafKeys(Relation index, EINormKeyInfo *norm, Page leaf);
extern bool EICompactFromLeaf(Relation index, EINormKeyInfo *norm, Page src,
							  Page dst);
extern int	EICompactSearch(Page page, EIHeapKeyReader *reader,
							const uint8 *key, SeqTreeLocation *loc,
							EIHeapKeyResult *why);
extern bool EICompactSearchReadOnly(Page page, EIHeapKeyReader *reader,
									const uint8 *key, int *minpos,
									int *maxpos);
extern int	EICompactNKeys(Page page);
extern bool EICompactHasRoom(Page page);
extern bool EICompactInsertAt(Page page, int pos, int lbit, int rbit,
							  ItemPointer tid);
extern void EICompactDeleteMany(Page page, const uint16 *positions, int npos);
extern void EICompactSplitPages(Page origpage, int at, IndexTuple lefthikey,
								Page leftpage, Page rightpage);

/* elastic/leafops.c: compact leaves in the tree (WAL-logged operations) */
extern EINormKeyInfo *EICompactInfo(Relation rel);
extern bool EICompactKeyFits(Relation rel, IndexTuple itup);
extern bool EICompactConvert(Relation rel, Buffer buf);
/* EICompactInsert results */
typedef enum EICompactInsertResult
{
	EI_COMPACT_INSERTED,		/* the entry is in; the leaf is released */
	EI_COMPACT_FULL,			/* the leaf is full: split it (still locked) */
	EI_COMPACT_RESTART			/* the leaf is released: descend again */
} EICompactInsertResult;

extern EICompactInsertResult EICompactInsert(Relation rel, Relation heapRel,
											 Buffer buf, EIScanInsert key,
											 IndexTuple itup);
extern void EICompactSplit(Relation rel, Relation heapRel, Buffer buf,
						   EIStack stack);
extern bool EICompactExpand(Relation rel, Relation heapRel, Buffer buf);
extern void EICompactVacuumPage(Relation rel, Buffer buf, uint16 *positions,
								int npos);
extern void EICompactLogImages(Relation rel, uint8 kind, Buffer *bufs,
							   int nbufs, Buffer sibling);

/* elastic/policy.c: the size bound and the shrink/expand policy */
extern void EIElasticInitGUCs(void);
extern int64 EIElasticBoundPages(Relation rel);
extern bool EIElasticWantsCompact(Relation rel);
extern void EIElasticSetState(Relation rel, uint32 state);
extern void EIElasticVacuum(Relation rel);
extern bool EIValidateSizeBound(const char *value, char **hint);
extern bool EIParseSizeBound(const char *value, int64 *kb, double *percent,
							 const char **hint);
extern double EIElasticShrinkThreshold(void);
extern const char *EIElasticDefaultBound(void);

/* hypo/hypothetical.c: hypothetical indexes for EXPLAIN */
extern void EIHypoInit(void);

/* core/search.c: insertion keys, comparison, descent */
extern EIScanInsert EIMakeScanKey(Relation rel, IndexTuple itup, bool isleaf);
extern int32 EICompare(Relation rel, EIScanInsert key, Page page, OffsetNumber offnum);
extern OffsetNumber EIBinSearch(Relation rel, EIScanInsert key, Page page);
extern EIStack EISearch(Relation rel, EIScanInsert key, Buffer *bufP, int access);
extern Buffer EIMoveRight(Relation rel, EIScanInsert key, Buffer buf,
						  bool forupdate, EIStack stack, int access);
extern Buffer EIGetEndpoint(Relation rel, uint32 level, bool rightmost);
extern void EIFreeStack(EIStack stack);

/* core/insert.c: insertion, splits, new roots */
extern bool EIDoInsert(Relation rel, IndexTuple itup, Relation heapRel);
extern void EIInsertTop(Relation rel, Relation heapRel, IndexTuple itup);
extern void EIInsertSorted(Relation rel, Relation heapRel, IndexTuple *items,
						   int nitems);
extern void EIFinishSplit(Relation rel, Buffer lbuf, EIStack stack);
extern Buffer EIGetParentBuf(Relation rel, EIStack stack, BlockNumber child);
extern void EIInsertParent(Relation rel, Buffer buf, Buffer rbuf,
						   EIStack stack, bool isroot);
extern void EISplitBuildPages(Relation rel, Page origpage, OffsetNumber firstright,
							  OffsetNumber newitemoff, IndexTuple newitem,
							  bool newitemonleft, IndexTuple lefthikey,
							  Page leftpage, Page rightpage);

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

/* elastic_index.debug_fault: stop after a WAL-logged step (crash tests only) */
#define EI_FAULT_NONE			0
#define EI_FAULT_AFTER_HALFDEAD	1
#define EI_FAULT_AFTER_UNLINK	2
#define EI_FAULT_AFTER_SPLIT	3	/* split done, downlink not yet inserted */
#define EI_FAULT_AFTER_SEAL		4	/* osm flush: tail page closed */
#define EI_FAULT_AFTER_FLUSH_INSERT	5	/* osm flush: entries in the tree, pages
											 * not yet unlinked */
extern int	ei_debug_fault;
extern void EIFaultPoint(int point);

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
extern void EIRmgrRegister(void);

/* inspect/stats.c */
extern Relation EIOpenIndexChecked(Oid indexoid, LOCKMODE lockmode);

/* am/options.c and am/validate.c */
extern void EIInitReloptions(void);
extern bytea *eioptions(Datum reloptions, bool validate);
extern bytea *osmoptions(Datum reloptions, bool validate);
extern int	EIGetFillFactor(Relation rel);
extern double EIGetSplitFactor(Relation rel);
extern int	EIGetBatchSize(Relation rel);
extern int	EIGetBufferSize(Relation rel);
extern double EIGetFlushFraction(Relation rel);
extern int	EIGetBloomBitsPerKey(Relation rel);
extern int	EIGetSortThreshold(Relation rel);
extern uint32 EIRelAmKind(Relation rel);
extern bool eivalidate(Oid opclassoid);
extern bool eiproperty(Oid index_oid, int attno, IndexAMProperty prop,
					   const char *propname, bool *res, bool *isnull);
extern char *eibuildphasename(int64 phasenum);

/* am/elastic_btree.c */
extern Datum elastic_btree_handler(PG_FUNCTION_ARGS);
extern bool eiinsert(Relation rel, Datum *values, bool *isnull,
					 ItemPointer ht_ctid, Relation heapRel,
					 IndexUniqueCheck checkUnique, bool indexUnchanged,
					 IndexInfo *indexInfo);
extern bool eicanreturn(Relation index, int attno);

/* am/osm_tree.c: settings of osm_tree (reloptions override them) */
extern int	osm_fill_factor;
extern double osm_split_factor;
extern int	osm_batch_size;
extern int	osm_buffer_size;
extern double osm_flush_fraction;
extern int	osm_bloom_bits_per_key;
extern int	osm_sort_threshold;
extern bool osm_top_inserts;
extern bool osm_flush_worker;
extern void OsmInitGUCs(void);
extern bool osminsert(Relation rel, Datum *values, bool *isnull,
					  ItemPointer ht_ctid, Relation heapRel,
					  IndexUniqueCheck checkUnique, bool indexUnchanged,
					  IndexInfo *indexInfo);

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

/* What a scan knows about the buffered entries it must merge in. */
typedef struct OsmScanBuffer
{
	MemoryContext cxt;			/* everything below lives here */
	int			nitems;			/* matching entries */
	EISortEntry *entries;		/* them, ascending, ready to compare */
	struct EIEntrySort *esort;	/* tree order, without abbreviation */
	int			fwd;			/* next candidate going forward */
	int			bwd;			/* next candidate going backward */
	bool		started;		/* the tree scan was positioned */
	bool		tree_pending;	/* the tree's current item is not returned */
	ScanDirection pending_dir;	/* ... and lies beyond "last" this way */
	bool		tree_end_fwd;	/* the tree ran out going forward */
	bool		tree_end_bwd;	/* ... going backward */
	bool		last_from_buffer;	/* the last item returned was buffered */
	IndexTuple	last;			/* copy of the last item returned, or NULL */
	EISortEntry last_entry;		/* the same, ready to compare */
	struct OsmScanBuffer *mark; /* state at eimarkpos, or NULL */
} OsmScanBuffer;

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
extern int64 OsmBufferFlush(Relation rel, Relation heapRel, int maxpages,
							bool wait);
extern bool OsmBufferCollect(IndexScanDesc scan, IndexTuple **items,
							 int *nitems);
extern uint64 OsmBufferEntryHash(Relation rel, EINormKeyInfo *norm,
								 IndexTuple itup);
extern void OsmBufferCounts(Relation rel, OsmBufferCountsData *counts);
extern bool EIScanCheckKeys(IndexScanDesc scan, IndexTuple itup,
							ScanDirection dir, bool *continuescan);
extern bool EIScanKeyValueAsColumn(Relation rel, ScanKey key, int col,
								   Datum *value);
extern void EIEntrySortInitCompare(EIEntrySort *esort, Relation index,
								   MemoryContext cxt);
extern int	EIEntryCompare(EIEntrySort *esort, const EISortEntry *a,
						   const EISortEntry *b);

/* osm/flushworker.c */
extern void OsmRequestBackgroundFlush(Relation rel);
extern PGDLLEXPORT void OsmFlushWorkerMain(Datum main_arg);

/* core/batch.c: entries collected per transaction and applied sorted */
extern void EIBatchInit(void);
extern void EIBatchAdd(Relation rel, Relation heapRel, IndexTuple itup);
extern void EIBatchFlushIndex(Relation rel);
extern void EIBatchFlushAll(void);

/* build phases reported in pg_stat_progress_create_index */
#define EI_BUILD_PHASE_SCAN		2	/* PROGRESS_CREATEIDX_SUBPHASE_INITIALIZE is 1 */
#define EI_BUILD_PHASE_SORT		3
#define EI_BUILD_PHASE_LOAD		4

#endif							/* EITREE_H */
