/*-------------------------------------------------------------------------
 *
 * eicompact.h
 *	  The compact leaf kind (src/compact/): leaves that keep no keys, only
 *	  a SeqTree and a TID code, with keys read from the heap when needed.
 *
 * A leaf kind below the policies: it is built on the core (eitree.h) and
 * used by the policies that give their indexes compact leaves (elastic:
 * under the size bound; osm: the compact_leaves reloption), by the access
 * methods and by the inspection functions.  The core reaches it only as the
 * EILeafKindOps of a policy table (EITreePolicy.leaf).  See src/README.md,
 * "Compact leaves".
 *
 *-------------------------------------------------------------------------
 */
#ifndef EICOMPACT_H
#define EICOMPACT_H

#include "eitree.h"
#include "eitree_xlog.h"
#include "seqtree.h"
#include "tidcode.h"

/* The compact leaf kind's WAL records (in the range eitree_xlog.h leaves) */
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

/* A compact leaf is a policy leaf (EI_POLICY_LEAF) of this kind. */
#define EI_COMPACT			EI_POLICY_LEAF

/*
 * What a backend keeps for an index with compact leaves, whichever policy
 * serves it (EIGetLeafKindCache: a slot of its own next to the policy's
 * cache, so that each policy's cache struct stays its own).
 */
typedef struct EICompactCache
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
} EICompactCache;

/*
 * Reading entries' keys from the heap (compact/heapkey.c).  key holds the last
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

/* compact/compact.c: compact leaf pages */
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
extern bool EICompactFormLeaf(Relation index, EINormKeyInfo *norm,
							  IndexTuple *tuples, int ntuples, Page dst);
extern int	EICompactSearch(Page page, EIHeapKeyReader *reader,
							const uint8 *key, SeqTreeLocation *loc,
							EIHeapKeyResult *why);
extern bool EICompactSearchReadOnly(Page page, EIHeapKeyReader *reader,
									EICompactTidGroup *grp,
									const uint8 *key, int *minpos,
									int *maxpos);
extern int	EICompactLastWithin(Page page, int pos, const uint8 *poskey,
								const uint8 *bound);
extern bool EICompactPrefixRun(Page page, const uint8 *key, int prefixlen,
							   int maxrun, int *lo, int *hi);
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

/* compact/leafops.c: compact leaves in the tree (WAL-logged operations) */
extern EINormKeyInfo *EICompactInfo(Relation rel);
extern EINormKeyInfo *EICompactInfoCached(Relation rel);
extern int	EICompactFillCount(Relation rel, IndexTuple *entries, int nentries,
							   int fillfactor);
extern bool EICompactFormNew(Relation rel, IndexTuple *entries, int nentries,
							 Page page);
extern void EICompactRequire(Relation rel);
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

/* compact/scan.c: reading compact leaves in a scan */
extern bool EICompactScanRead(IndexScanDesc scan, ScanDirection dir);
extern void EICompactScanRescan(IndexScanDesc scan);
extern void EICompactScanEnd(IndexScanDesc scan);
extern void EICompactPrepare(Relation rel);

/* compact/verify.c: elastic_index_check on compact leaves */
extern Page EICompactVerifyLeaf(EIVerifyContext *cxt, BlockNumber blkno,
								Page page, bool full, bool collect);

/* compact/leafops.c (VACUUM) and compact/xlog.c */
extern void EICompactVacuumLeaf(Relation rel, Buffer buf,
								IndexBulkDeleteCallback callback,
								void *callback_state,
								IndexBulkDeleteResult *stats);
extern const EIRecordKind EICompactRecords[];

/* compact/leafops.c: the leaf kind as the policy tables name it */
extern const EILeafKindOps EICompactLeafOps;

/* Does the index's policy give it compact leaves (as its leaf kind)? */
#define EIRelHasCompactKind(rel) \
	(EIGetPolicy(rel) != NULL && EIGetPolicy(rel)->leaf == &EICompactLeafOps)


#endif							/* EICOMPACT_H */
