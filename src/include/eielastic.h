/*-------------------------------------------------------------------------
 *
 * eielastic.h
 *	  The elastic policy (src/elastic/): compact leaves, reading keys from
 *	  the heap, and the size bound that decides when leaves change form.
 *
 * Everything here is built on the core (eitree.h) and called by the
 * elastic_btree access method (am/) and the inspection functions; the core
 * reaches it only through the EITreePolicy table am/elastic_btree.c
 * registers.  See src/README.md, "Compact leaves" and "Elasticity".
 *
 *-------------------------------------------------------------------------
 */
#ifndef EIELASTIC_H
#define EIELASTIC_H

#include "eitree.h"
#include "eitree_xlog.h"
#include "seqtree.h"
#include "tidcode.h"

/* The elastic policy's WAL records (in the range eitree_xlog.h leaves) */
#define XLOG_EI_COMPACT_INSERT	0xA0	/* add an entry to a compact leaf */
#define XLOG_EI_COMPACT_DELETE	0xB0	/* remove entries from a compact leaf */
#define XLOG_EI_COMPACT_IMAGE	0xC0	/* compact leaves made, split or
										 * expanded: full page images */

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
 * standby conflicts, or to HOT chains found dead to everybody but not yet
 * pruned: then EI_XLOG_COMPACT_HORIZON is set and a TransactionId follows
 * the struct, the snapshot conflict horizon redo resolves first (with
 * EI_XLOG_COMPACT_CATALOG: of a table logical decoding reads).  Such a
 * record with ndeleted 0 only resolves the conflict (before an expansion
 * drops such entries).  EI_XLOG_COMPACT_VACUUM: VACUUM removed them, and
 * redo takes a cleanup lock, as for XLOG_EI_VACUUM.
 */
typedef struct xl_ei_compact_delete
{
	uint16		ndeleted;
	uint16		flags;
} xl_ei_compact_delete;

#define EI_XLOG_COMPACT_VACUUM	0x0001
#define EI_XLOG_COMPACT_HORIZON	0x0002
#define EI_XLOG_COMPACT_CATALOG	0x0004

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

/* A compact leaf is the elastic policy's own leaf kind. */
#define EI_COMPACT			EI_POLICY_LEAF

/*
 * The elastic policy's part of the metapage (EIMetaGetPolicy): the state
 * of the size policy.  Its place is the first word, where metapages of
 * every version have kept it.
 */
typedef struct EIElasticMeta
{
	uint32		state;			/* EI_STATE_*: what the size policy is doing */
} EIElasticMeta;

StaticAssertDecl(sizeof(EIElasticMeta) <= EI_META_POLICY_WORDS * sizeof(uint32),
				 "EIElasticMeta must fit the metapage's policy words");

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

/* The state of an elastic_btree index, read from a metapage copy. */
#define EIElasticMetaState(meta)	(EIMetaGetPolicy(meta, EIElasticMeta)->state)

/* size_bound texts insert_prepare keeps parsed are shorter than this */
#define EI_BOUND_TEXT_LEN	32

/* What a backend keeps for an elastic_btree index (EIGetPolicyCache). */
typedef struct EIElasticCache
{
	bool		compact_checked;	/* compact_norm is known */
	EINormKeyInfo *compact_norm;	/* NULL: no compact leaves possible */

	/*
	 * The index file compact_norm was derived for: the cache outlives an
	 * in-place relcache rebuild, and a new file (ALTER TABLE ... SET ACCESS
	 * METHOD, which rewrites the table and rebuilds its indexes, REINDEX,
	 * TRUNCATE) means the derivation is done again.
	 */
	Oid			compact_relfilenode;

	/*
	 * The size bound, parsed by insert_prepare from bound_text (the
	 * reloption or GUC string it came from, compared on every call; a new
	 * text is parsed again), and for a percentage the table's size as last
	 * read: for index file bound_relfilenode, at the start of the statement
	 * bound_read_at, bound_calls insert_prepare calls ago (see src/README.md,
	 * "Elasticity").
	 */
	bool		bound_parsed;	/* bound_text, bound_kb, bound_percent valid */
	char		bound_text[EI_BOUND_TEXT_LEN];
	int64		bound_kb;		/* -1: not a size */
	double		bound_percent;	/* -1: not a percentage */
	BlockNumber bound_heap_pages;	/* InvalidBlockNumber: not read */
	Oid			bound_relfilenode;
	TimestampTz bound_read_at;
	uint32		bound_calls;

	/*
	 * The decision the last insert_prepare took for leaf_full, which runs
	 * under the leaf's lock: a full standard leaf becomes compact when the
	 * index has at least this many pages; 0: never (split).
	 */
	int64		insert_compact_pages;
} EIElasticCache;

/* elastic_btree's reloptions (elastic/options.c) */
typedef struct EIElasticOptions
{
	int32		varlena_header_;	/* varlena header (do not touch) */
	int			fillfactor;		/* leaf page fill factor */
	int			size_bound_offset;	/* size_bound string, or 0 */
	int			deduplicate_items;	/* leaves may hold posting lists: 0, 1, or
									 * EI_RELOPT_UNSET (the setting decides) */
} EIElasticOptions;

/* elastic/options.c */
extern void EIElasticInitReloptions(void);
extern bytea *eioptions(Datum reloptions, bool validate);
extern EIDedupChoice EIElasticGetDeduplicate(Relation rel);
extern EIDedupChoice EIElasticOptionsDeduplicate(EIElasticOptions *opts);
extern int	EIElasticGetFillFactor(Relation rel);
extern const char *EIElasticGetSizeBound(Relation rel);

/*
 * Reading entries' keys from the heap (elastic/heapkey.c).  key holds the last
 * key read, normalized, with the entry's TID appended.
 */
typedef enum EIHeapKeyResult
{
	EI_HEAPKEY_FOUND,			/* reader->key holds the key */
	EI_HEAPKEY_DEAD,			/* the HOT chain is dead to everybody (or,
								 * read unlocked, to the reader's snapshot) */
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
	Snapshot	snapshot;		/* an index-only scan's MVCC snapshot, or
								 * NULL (see ei_heapkey_chain_needed) */
	uint64		nreads;			/* keys read so far */
	bool		last_valid;		/* key holds the key of last_tid */
	ItemPointerData last_tid;
	IndexTuple	last_itup;		/* and this its entry, if read with
								 * want_tuple and keep_tuple (the
								 * reader's), or NULL */
	bool		keep_tuple;		/* a locked read with want_tuple keeps the
								 * entry as last_itup for a later read
								 * instead of returning it in itup (a
								 * compact search's, for its scan) */
	bool		last_unformed;	/* last_tid's entry cannot be formed under
								 * the lock: an INCLUDE column is toasted
								 * out of line (its key columns are not) */
	MemoryContext cxt;			/* where remembered keys live */
	struct EIHeapKeyCached *cached; /* keys read with the leaf unlocked */
	int			ncached;
	int			maxcached;

	/*
	 * The newest xid that deleted a HOT chain this reader reported
	 * EI_HEAPKEY_DEAD although its heap items are not LP_DEAD (found dead
	 * to everybody with the leaf unlocked): removing such entries must
	 * resolve standby conflicts with it, as no pruning did.  Invalid if
	 * none.
	 */
	TransactionId dead_horizon;
} EIHeapKeyReader;

extern EIHeapKeyReader *EIHeapKeyReaderBegin(Relation heap, Relation index,
											 EINormKeyInfo *norm);
extern EIHeapKeyResult EIHeapKeyRead(EIHeapKeyReader *reader, ItemPointer tid);
extern EIHeapKeyResult EIHeapKeyReadUnlocked(EIHeapKeyReader *reader,
											 ItemPointer tid);
extern void EIHeapKeyFetchUnlocked(EIHeapKeyReader *reader, Buffer leafbuf,
								   int lockmode, ItemPointer tid);
extern const char *EIHeapKeyReaderLastKey(EIHeapKeyReader *reader,
										  ItemPointer tid);
extern void EIHeapKeyReaderReleasePin(EIHeapKeyReader *reader);
extern void EIHeapKeyReaderForget(EIHeapKeyReader *reader);
extern void EIHeapKeyReaderEnd(EIHeapKeyReader *reader);

/*
 * The decoded heap TIDs of one group of a compact leaf's TID code
 * (TIDCODE_GROUP_MAX entries at most): a lookup's searches and its scan
 * decode the group they need once.  Valid only while its holder keeps the
 * leaf locked; count 0 means empty (EICompactTidGroupReset).
 */
#define EI_COMPACT_TID_GROUP_MAX 64
typedef struct EICompactTidGroup
{
	int			first;			/* position of tids[0] */
	int			count;			/* TIDs held (the group's first ones),
								 * 0 if none */
	TidCodeTid	tids[EI_COMPACT_TID_GROUP_MAX]; /* as decoded: converted
														 * only when read */
} EICompactTidGroup;

#define EICompactTidGroupReset(grp) ((grp)->count = 0)

/* elastic/compact.c: compact leaf pages */
extern void EICompactAttach(Page page, SeqTree *st);
extern int	EICompactCheckLeaf(Relation rel, Buffer buf);
extern void EICompactSetContext(Relation rel, BlockNumber blkno, Page page);
extern void EICompactGetTid(Page page, int pos, ItemPointer tid);
extern void EICompactGetTids(Page page, int start, int count, ItemPointer tids);
extern void EICompactGetTidCached(Page page, EICompactTidGroup *grp, int pos,
								  ItemPointer tid);
extern void EICompactGetTidsCached(Page page, EICompactTidGroup *grp,
								   int start, int count, ItemPointer tids);
extern const char *EICompactTidsProblem(Page page, int n);
extern void EICompactDelete(Page page, int pos);
extern int	EICompactCapacity(int keylen, Size hikeysz, double tidbytes);
extern double EICompactTidBytes(ItemPointer tids, int n);
extern char *EICompactLeafKeys(Relation index, EINormKeyInfo *norm, Page leaf);
extern int	EICompactLeafEntries(Page leaf);
extern bool EICompactFromLeaf(Relation index, EINormKeyInfo *norm, Page src,
							  Page dst);
extern int	EICompactSearch(Page page, EIHeapKeyReader *reader,
							const uint8 *key, SeqTreeLocation *loc,
							EIHeapKeyResult *why);
extern bool EICompactSearchReadOnly(Page page, EIHeapKeyReader *reader,
									EICompactTidGroup *grp,
									const uint8 *key, int *minpos,
									int *maxpos);
extern int	EICompactLastWithin(Page page, int pos, const uint8 *poskey,
								const uint8 *bound);
extern int	EICompactNKeys(Page page);
extern bool EICompactHasRoom(Relation rel, Buffer buf, int pos,
							 ItemPointer tid);
extern bool EICompactInsertAt(Page page, int pos, int lbit, int rbit,
							  ItemPointer tid);
extern void EICompactCheckInsert(Relation rel, Buffer buf, int pos, int lbit,
								 int rbit);
extern void EICompactCheckDelete(Relation rel, Buffer buf,
								 const uint16 *positions, int npos);
extern void EICompactDeleteMany(Page page, const uint16 *positions, int npos);
extern bool EICompactSplitPages(Page origpage, int at, IndexTuple lefthikey,
								Page leftpage, Page rightpage);

/* elastic/leafops.c: compact leaves in the tree (WAL-logged operations) */
extern EINormKeyInfo *EICompactInfo(Relation rel);
extern bool EICompactKeyFits(Relation rel, IndexTuple itup);
extern bool EICompactConvert(Relation rel, Buffer buf);
extern EILeafInsertResult EICompactInsert(EIInsertState istate);
extern void EICompactSplit(EIInsertState istate);
extern void EICompactSplitLeaf(Relation rel, Relation heapRel, Buffer buf,
							   EIStack stack);
extern bool EICompactExpand(Relation rel, Relation heapRel, Buffer buf);
extern void EICompactVacuumPage(Relation rel, Buffer buf, uint16 *positions,
								int npos);
extern void EICompactLogImages(Relation rel, uint8 kind, Buffer *bufs,
							   int nbufs, Buffer sibling);

/* elastic/scan.c: reading compact leaves in a scan */
extern bool EICompactScanRead(IndexScanDesc scan, ScanDirection dir);
extern void EICompactScanRescan(IndexScanDesc scan);
extern void EICompactScanEnd(IndexScanDesc scan);
extern void EICompactPrepare(Relation rel);

/* elastic/verify.c: elastic_index_check on compact leaves */
extern Page EICompactVerifyLeaf(EIVerifyContext *cxt, BlockNumber blkno,
								Page page, bool full, bool collect);
extern void EIElasticVerifyMeta(EIVerifyContext *cxt);

/* elastic/vacuum.c and elastic/xlog.c */
extern void EICompactVacuumLeaf(Relation rel, Buffer buf,
								IndexBulkDeleteCallback callback,
								void *callback_state,
								IndexBulkDeleteResult *stats);
extern const EIRecordKind EIElasticRecords[];

/* elastic/policy.c: the size bound and the shrink/expand policy */
extern const EILeafKindOps EICompactLeafOps;
extern void EIElasticInit(void);
extern void EIElasticInitGUCs(void);
extern bool ei_deduplicate_items;
/* Is this index one of this policy's? */
#define EIRelIsElastic(rel)	EIRelServedBy((rel), EI_AM_ELASTIC_BTREE)
extern void EIElasticBuildBegin(Relation index);
extern void EIElasticInsertPrepare(Relation rel, Relation heapRel);
extern bool EIElasticLeafFull(EIInsertState istate);
extern void EIElasticInsertDone(EIInsertState istate);
extern bool EIElasticMarkLeafReads(Relation rel, bool policy_leaf);
extern int64 EIElasticBoundPages(Relation rel);
extern void EIElasticSetState(Relation rel, uint32 state);
extern void EIElasticVacuum(Relation rel);
extern uint32 EIElasticGetState(Relation rel);
extern Relation EIElasticOpenForConversion(Oid indexoid, LOCKMODE lockmode);
extern int64 EIElasticShrink(Relation rel, int64 max_leaves);
extern int64 EIElasticExpand(Relation rel, int64 max_leaves);
extern bool EIValidateSizeBound(const char *value, char **hint);
extern bool EIParseSizeBound(const char *value, int64 *kb, double *percent,
							 const char **hint);
extern double EIElasticShrinkThreshold(void);
extern const char *EIElasticDefaultBound(void);

#endif							/* EIELASTIC_H */
