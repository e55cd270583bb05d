/*-------------------------------------------------------------------------
 *
 * scan.c
 *	  Index scans of the tree core: scan key preprocessing, positioning,
 *	  reading leaf pages, stepping between them, killing dead items,
 *	  mark/restore and parallel scans.
 *
 * A scan works one leaf page at a time.  Under a share lock it tests every
 * item against the scan keys and copies the heap TIDs (and, for index-only
 * scans, the tuples) of the matching ones into so->currPos; then it drops
 * the lock but keeps the pin until it moves to another page.  VACUUM takes
 * a cleanup lock on every leaf, so a pinned page cannot lose the entries
 * the scan is about to return.
 *
 * Scan keys are preprocessed once per rescan: copied in attribute order,
 * with strategies rewritten in index order (a DESC column flips < and >;
 * IS NULL becomes "=" and IS NOT NULL a bound against the NULLs) and each
 * key marked as required for the forward and/or backward direction when a
 * failure proves that no later item in that direction can match.  Every
 * key is still tested on every item the scan returns; preprocessing only
 * decides where the scan starts and when it may stop early.
 *
 * "= ANY (array)" keys are read in one pass as well: the array keys move
 * with the items read, items before the next element are skipped by
 * binary search, and the scan descends again only when the next element
 * lies beyond the leaf (see "Array keys" below and in src/README.md).
 *
 * Moving right follows the right link saved when the page was read (items
 * that a later split moved right were already copied).  Moving left goes to
 * the saved left link and then right until it finds the page whose right
 * link is the page we came from, because that left sibling may have split
 * in the meantime.
 *
 * A parallel scan shares one EIParallelScanDescData.  A participant seizes
 * the scan, reads one page, and publishes where the next participant
 * should continue (the right link, or for backward scans the page itself,
 * whose left sibling has to be found from it) before it processes the
 * page's items, so the others can proceed meanwhile.  When the policy
 * keeps entries outside the tree, each page read also takes a key range,
 * and a participant returns only its own collected entries that fall in
 * the ranges of its pages (see "Parallel scans" in src/README.md).
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/genam.h"
#include "access/parallel.h"
#include "access/relscan.h"
#include "access/stratnum.h"
#include "catalog/pg_am_d.h"
#include "access/table.h"
#include "access/xlog.h"
#include "catalog/pg_index.h"
#include "catalog/pg_type.h"
#include "eitree.h"
#include "miscadmin.h"
#include "nodes/tidbitmap.h"
#include "pgstat.h"
#include "storage/bufmgr.h"
#include "storage/condition_variable.h"
#include "storage/predicate.h"
#include "storage/spin.h"
#include "utils/array.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/rel.h"
#include "utils/snapmgr.h"
#include "utils/wait_event.h"

/*
 * What a scan knows about the entries from outside the tree it merges in
 * (EITreePolicy.scan_collect: osm_tree's insert buffer).
 */
typedef struct EIScanMerge
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
	struct EIScanMerge *mark; /* state at eimarkpos, or NULL */

	/* parallel scans (ei_gettuple_parallel) */
	bool		parallel;		/* return only entries of our key ranges */
	bool		solo;			/* this participant took the whole scan */
	bool	   *owned;			/* per entry: in a key range we read */
	int			own_next;		/* forward: first entry beyond our ranges */
	int			own_prev;		/* backward: last entry below them */
	IndexTuple	lo;				/* the shared range bound when we took our
								 * current page (NULL: none), in lo_space */
	bool		lo_inf;			/* backward: the bound is plus infinity (lo
								 * NULL), where no page ends */
	EISortEntry lo_entry;		/* the same, ready to compare */
	IndexTuple	hi;				/* backward: the high key of the page just
								 * read (NULL: rightmost), in hi_space */
	EISortEntry hi_entry;		/* the same, ready to compare */
	char	   *lo_space;		/* EI_PARALLEL_BOUND_SPACE bytes */
	char	   *hi_space;		/* the same, for a high key */
} EIScanMerge;

/*
 * Private flags of the preprocessed keys in so->keyData, in the bits of
 * sk_flags that are reserved for access methods (EI_SK_DESC and
 * EI_SK_NULLS_FIRST use bits 16 and 17).
 */
#define EISCAN_SK_CMP_OK	(1 << 24)	/* a 3-way comparison proc exists */
#define EISCAN_SK_LOOSE		(1 << 25)	/* another key bounds the same side
										 * of the column more tightly */
#define EISCAN_SK_ARRAY_FILTER	(1 << 26)	/* an array key that only
											 * filters, never positions */

/*
 * One "= ANY (array)" key (SK_SEARCHARRAY) of so->keyData, preprocessed:
 * its non-NULL elements, distinct and sorted in index order.  A positioning
 * key (the first array key on a column of the required prefix) has a
 * current element, which its key in so->keyData carries as an ordinary
 * "=" argument; any other array key only filters, by binary search.
 */
typedef struct EIScanArrayKey
{
	int			keyIndex;		/* its key in so->keyData */
	bool		positions;		/* positioning key, else a filter */
	int			nelems;
	Datum	   *elems;
	int			cur;			/* current element (positioning keys) */
	FmgrInfo	cmp;			/* 3-way comparison (column, element) */
	Oid			collation;
	bool		desc;			/* the column is DESC */
	bool		nulls_first;	/* ... NULLS FIRST */
} EIScanArrayKey;

/*
 * An equality of the required prefix when the scan has positioning array
 * keys: a positioning array key, an ordinary "=" or IS NULL, in attribute
 * order.  Together they name the next position the scan is looking for.
 */
typedef struct EIScanEqKey
{
	int			keyIndex;		/* its key in so->keyData */
	int			array;			/* its array key, or -1 */
	AttrNumber	attno;
	bool		isnull;			/* IS NULL */
	FmgrInfo	cmp;			/* 3-way comparison (column, argument) */
	Oid			collation;
	bool		desc;
	bool		nulls_first;
} EIScanEqKey;

/*
 * The array keys of a scan (so->arrays), rebuilt by every rescan in their
 * own memory context (so->arraysCxt).  See src/README.md, "Array keys".
 */
typedef struct EIScanArrays
{
	int			nkeys;			/* array keys */
	EIScanArrayKey *keys;
	int		   *arrayOfKey;		/* per key of so->keyData: its array key,
								 * or -1 */
	int			npositioning;	/* positioning array keys */
	AttrNumber	firstPosAttno;	/* column of the first one (0: none) */
	int			neq;
	EIScanEqKey *eq;			/* the required equalities, if npositioning */
	bool		advanced;		/* ei_check_keys moved the keys ahead of the
								 * tuple it tested */
	bool		needPrimScan;	/* the keys lie beyond the page read last:
								 * descend again */
	ScanDirection primScanDir;	/* ... in this direction */
	/* the state at eimarkpos */
	bool		marked;
	int		   *markCur;
	bool		markNeedPrimScan;
	ScanDirection markPrimScanDir;
} EIScanArrays;

/* What moving the array keys to a tuple found (ei_arrays_locate). */
typedef enum EIArraysResult
{
	EI_ARRAYS_MATCH,			/* the tuple matches the new keys' equalities */
	EI_ARRAYS_AHEAD,			/* the new keys lie beyond the tuple */
	EI_ARRAYS_DONE				/* no combination of elements is left */
} EIArraysResult;

/* How ei_read_next_page starts: on a page, or by a descent. */
typedef enum EIDescend
{
	EI_DESCEND_NONE,			/* read blkno */
	EI_DESCEND_FIRST,			/* descend; ei_first counted the scan */
	EI_DESCEND_AGAIN			/* descend to the array keys: a new
								 * primitive scan */
} EIDescend;

/*
 * How ei_read_page came to a leaf: by a descent (no bound applies), by a
 * right link or a step left, or as a backward scan's re-read of the leaf
 * holding the entries just below f (ei_move_right_below).
 */
typedef enum EIReadMode
{
	EI_READ_DESCENT,
	EI_READ_STEP,
	EI_READ_REREAD
} EIReadMode;

/* Is this strategy (in index order) an upper / lower bound? */
#define EI_STRAT_IS_UPPER(strat) \
	((strat) == BTLessStrategyNumber || (strat) == BTLessEqualStrategyNumber)
#define EI_STRAT_IS_LOWER(strat) \
	((strat) == BTGreaterStrategyNumber || (strat) == BTGreaterEqualStrategyNumber)
#define EI_STRAT_IS_STRICT(strat) \
	((strat) == BTLessStrategyNumber || (strat) == BTGreaterStrategyNumber)

/*
 * Pages we walk right from a left link before we re-read the page we are
 * stepping left from to get a fresher left link.
 */
#define EI_WALK_LEFT_MAX_HOPS	4

static void ei_pos_invalidate(EIScanPos pos);
static void ei_pos_unpin(EIScanPos pos);
static void ei_pos_copy(EIScanPos dst, EIScanPos src);
static void ei_alloc_tuples(IndexScanDesc scan);
static void ei_alloc_mark_tuples(EIScanOpaque so);
static void ei_init_more(EIScanOpaque so, ScanDirection dir);
static bool ei_key_has_cmp_proc(Relation rel, ScanKey key);
static bool ei_compare_key_args(Relation rel, ScanKey a, ScanKey b, int32 *result);
static void ei_mark_loose_keys(Relation rel, EIScanOpaque so);
static void ei_mark_required_keys(EIScanOpaque so);
static void ei_preprocess_keys(IndexScanDesc scan);
static bool ei_key_can_position(ScanKey key);
static ScanKey ei_better_start_key(ScanKey chosen, ScanKey cur);
static Buffer ei_descend(IndexScanDesc scan, ScanDirection dir,
						 OffsetNumber *offnum);
static bool ei_check_keys(IndexScanDesc scan, IndexTuple itup,
						  ScanDirection dir, bool *continuescan, bool advance);
static bool ei_check_final(IndexScanDesc scan, IndexTuple itup,
						   ScanDirection dir, bool *continuescan);
static int	ei_order(FmgrInfo *cmp, Oid collation, bool desc, bool nulls_first,
					 Datum value, bool isnull, Datum arg, bool argnull);
static int	ei_array_search(EIScanArrayKey *ak, int start, Datum value, bool isnull,
							ScanDirection dir, bool *equal);
static void ei_array_reduce_inequality(IndexScanDesc scan, ScanKey key);
static void ei_arrays_prepare(IndexScanDesc scan);
static void ei_arrays_finish(IndexScanDesc scan);
static void ei_arrays_set_args(EIScanOpaque so);
static void ei_arrays_start(EIScanOpaque so, ScanDirection dir);
static void ei_arrays_reset_after(EIScanArrays *arrays, int j, ScanDirection dir);
static EIArraysResult ei_arrays_increment(EIScanArrays *arrays, int j,
										  ScanDirection dir);
static EIArraysResult ei_arrays_locate(IndexScanDesc scan, IndexTuple itup,
									   ScanDirection dir, AttrNumber failattno);
static bool ei_required_failed(IndexScanDesc scan, IndexTuple itup,
							   ScanDirection dir, AttrNumber attno,
							   bool advance);
static int	ei_arrays_cmp_tuple(IndexScanDesc scan, IndexTuple itup);
static bool ei_arrays_beyond_page(IndexScanDesc scan, Page page,
								  ScanDirection dir);
static OffsetNumber ei_arrays_skip(IndexScanDesc scan, Page page,
								   ScanDirection dir, OffsetNumber offnum,
								   OffsetNumber limit);
static OffsetNumber ei_arrays_next_on_page(IndexScanDesc scan, Page page,
										   ScanDirection dir, OffsetNumber offnum,
										   OffsetNumber limit, bool *continuescan);
static void ei_arrays_after_page(IndexScanDesc scan, ScanDirection dir);
static void ei_count_descent(IndexScanDesc scan, bool again);
static char *ei_bound_space(IndexScanDesc scan, char **space);
static Size ei_bound_from_hikey(Relation rel, Buffer buf, char *space);
static Size ei_bound_from_item(Relation rel, Page page, OffsetNumber off,
							   char *space);
static EIScanInsert ei_bound_key(IndexScanDesc scan, IndexTuple bound);
static bool ei_bound_above_hikey(IndexScanDesc scan, IndexTuple bound,
								 Page page);
static int32 ei_bound_cmp_item(Relation rel, EIScanInsert key, Page page,
							   OffsetNumber off);
static OffsetNumber ei_bound_search(Relation rel, EIScanInsert key, Page page,
									OffsetNumber low, OffsetNumber high);
static bool ei_bound_splits_list(Relation rel, EIScanInsert key, Page page,
								 OffsetNumber off);
static bool ei_leaf_unchanged(Relation rel, BlockNumber blkno, XLogRecPtr lsn);
static bool ei_bound_below(IndexScanDesc scan, IndexTuple h, Page page,
						   IndexTuple f, bool same_left, BlockNumber rblk,
						   XLogRecPtr rlsn);
static void ei_pos_record_first(IndexScanDesc scan, Page page,
								EIPageOpaque opaque, bool reread,
								bool publish);
static void ei_pos_set_first(IndexScanDesc scan, IndexTuple bound);
static void ei_pos_record_hikey(IndexScanDesc scan, Buffer buf,
								EIPageOpaque opaque);
static void ei_pos_copy_bounds(IndexScanDesc scan, bool to_mark);
static bool ei_left_below_first(IndexScanDesc scan, Buffer buf,
								BlockNumber origblk);
static Buffer ei_move_right_below(IndexScanDesc scan, Buffer buf);
static bool ei_read_page(IndexScanDesc scan, ScanDirection dir,
						 OffsetNumber offnum, EIReadMode mode);
static Buffer ei_walk_left(Relation rel, BlockNumber origblk,
						   BlockNumber leftblk, bool leftknown);
static bool ei_read_next_page(IndexScanDesc scan, ScanDirection dir,
							  BlockNumber blkno, BlockNumber leftblk,
							  bool leftknown, EIDescend descend);
static bool ei_step_page(IndexScanDesc scan, ScanDirection dir);
static void ei_return_item(IndexScanDesc scan);
static bool ei_first(IndexScanDesc scan, ScanDirection dir);
static bool ei_next(IndexScanDesc scan, ScanDirection dir);
static void ei_kill_items(IndexScanDesc scan);
static void ei_remember_killed(EIScanOpaque so);
static EIParallelScanDesc ei_parallel_desc(IndexScanDesc scan);
static bool ei_parallel_seize(IndexScanDesc scan, BlockNumber *blkno,
							  bool *first, bool *primscan);
static void ei_parallel_release(IndexScanDesc scan, BlockNumber blkno,
								BlockNumber currblk);
static void ei_parallel_primscan_schedule(IndexScanDesc scan,
										  BlockNumber currblk);
static void ei_parallel_done(IndexScanDesc scan);
static void ei_parallel_take_range(IndexScanDesc scan, Page page,
								   EIPageOpaque opaque);
static bool ei_parallel_trim(IndexScanDesc scan, ScanDirection dir,
							 bool found);
static bool ei_parallel_ranges(IndexScanDesc scan);
static void ei_parallel_load_bound(IndexScanDesc scan);
static IndexTuple ei_high_key_entry(Relation rel, Buffer buf, char *space,
									EISortEntry *entry, EIEntrySort *esort);
static bool ei_parallel_take_range_left(IndexScanDesc scan);
static bool ei_parallel_solo_below(IndexScanDesc scan, ScanDirection dir);
static bool ei_gettuple_parallel(IndexScanDesc scan, ScanDirection dir);


/*
 * Does this participant share the scan with others?  (A participant that
 * took a whole backward scan merging entries from outside the tree reads
 * alone; see ei_first.)
 */
static inline bool
ei_scan_parallel(IndexScanDesc scan)
{
	EIScanOpaque so = (EIScanOpaque) scan->opaque;

	return scan->parallel_scan != NULL &&
		!(so->extra != NULL && so->extra->solo);
}


/* ----------------------------------------------------------------
 * Scan positions
 * ----------------------------------------------------------------
 */

/*
 * Forget a scan position, leaving it invalid; the caller drops any pin first.
 */
static void
ei_pos_invalidate(EIScanPos pos)
{
	pos->buf = InvalidBuffer;
	pos->currPage = InvalidBlockNumber;
	pos->nextPage = InvalidBlockNumber;
	pos->prevPage = InvalidBlockNumber;
	pos->lsn = InvalidXLogRecPtr;
	pos->moreLeft = false;
	pos->moreRight = false;
	pos->nextTupleOffset = 0;
	pos->firstItem = 0;
	pos->lastItem = -1;
	pos->itemIndex = 0;
	pos->hikeySize = 0;
	pos->firstSize = 0;
	pos->firstIsBound = false;
}

/*
 * Drop the pin a scan position holds, if any.
 */
static void
ei_pos_unpin(EIScanPos pos)
{
	if (BufferIsValid(pos->buf))
	{
		ReleaseBuffer(pos->buf);
		pos->buf = InvalidBuffer;
	}
}

/*
 * Copy a scan position, including only the items it actually holds.
 */
static void
ei_pos_copy(EIScanPos dst, EIScanPos src)
{
	int			nitems = Max(src->lastItem + 1, 0);

	memcpy(dst, src,
		   offsetof(EIScanPosData, items) + nitems * sizeof(EIScanPosItem));
}

/*
 * Allocate the tuple workspace of an index-only scan: one page's worth, as
 * a standard leaf's tuples fit in BLCKSZ.  A policy's leaf, whose entries
 * are not bounded by a page's tuple space, grows it (EIScanSaveItem); the
 * mark's copy is allocated when a position is first marked (eimarkpos).
 * Keeping the start small keeps a short scan's setup cheap: two copies
 * sized for the largest policy leaf cost a short lookup 10% of its time
 * in malloc growing and trimming the heap.
 */
static void
ei_alloc_tuples(IndexScanDesc scan)
{
	EIScanOpaque so = (EIScanOpaque) scan->opaque;

	so->tuplesSize = BLCKSZ;
	so->currTuples = (char *) palloc(so->tuplesSize);
	so->markTuples = NULL;
}

/*
 * Allocate the mark's copy of the tuple workspace, as large as the current
 * one, the first time a marked position keeps tuples.
 */
static void
ei_alloc_mark_tuples(EIScanOpaque so)
{
	if (so->markTuples == NULL)
		so->markTuples = MemoryContextAlloc(GetMemoryChunkContext(so->currTuples),
											so->tuplesSize);
}

/*
 * Set moreLeft/moreRight for a scan that starts at its boundary: nothing
 * behind the start position can match.
 */
static void
ei_init_more(EIScanOpaque so, ScanDirection dir)
{
	if (ScanDirectionIsForward(dir))
	{
		so->currPos.moreLeft = false;
		so->currPos.moreRight = true;
	}
	else
	{
		so->currPos.moreLeft = true;
		so->currPos.moreRight = false;
	}
}


/* ----------------------------------------------------------------
 * Scan key preprocessing
 * ----------------------------------------------------------------
 */

/*
 * Does the operator family have a 3-way comparison proc for the column type
 * and the key's argument type, so that the key can position the scan?
 */
static bool
ei_key_has_cmp_proc(Relation rel, ScanKey key)
{
	int			col = key->sk_attno - 1;

	if (key->sk_subtype == InvalidOid ||
		key->sk_subtype == rel->rd_opcintype[col])
		return true;

	return RegProcedureIsValid(get_opfamily_proc(rel->rd_opfamily[col],
												 rel->rd_opcintype[col],
												 key->sk_subtype,
												 EI_CMP_PROC));
}

/*
 * Compare the arguments of two ordinary keys of the same column and
 * argument type; false if the operator family cannot compare them.
 */
static bool
ei_compare_key_args(Relation rel, ScanKey a, ScanKey b, int32 *result)
{
	int			col = a->sk_attno - 1;
	Oid			argtype;
	RegProcedure cmp_proc;

	argtype = OidIsValid(a->sk_subtype) ? a->sk_subtype : rel->rd_opcintype[col];
	cmp_proc = get_opfamily_proc(rel->rd_opfamily[col], argtype, argtype,
								 EI_CMP_PROC);
	if (!RegProcedureIsValid(cmp_proc))
		return false;

	*result = DatumGetInt32(OidFunctionCall2Coll(cmp_proc, a->sk_collation,
												 a->sk_argument,
												 b->sk_argument));
	return true;
}

/*
 * Where two comparable keys bound the same side of one column, flag the
 * looser one so that the tighter one positions the scan.
 */
static void
ei_mark_loose_keys(Relation rel, EIScanOpaque so)
{
	int			i,
				j;

	for (i = 0; i < so->numberOfKeys; i++)
	{
		ScanKey		ki = &so->keyData[i];

		if ((ki->sk_flags & SK_ISNULL) || !(ki->sk_flags & EISCAN_SK_CMP_OK) ||
			ki->sk_strategy == BTEqualStrategyNumber)
			continue;

		for (j = i + 1; j < so->numberOfKeys; j++)
		{
			ScanKey		kj = &so->keyData[j];
			StrategyNumber typestrat;
			bool		i_wins;
			int32		cmp;

			if (kj->sk_attno != ki->sk_attno)
				break;
			if ((kj->sk_flags & (SK_ISNULL | EISCAN_SK_LOOSE)) ||
				!(kj->sk_flags & EISCAN_SK_CMP_OK) ||
				kj->sk_subtype != ki->sk_subtype ||
				kj->sk_collation != ki->sk_collation)
				continue;
			if (!((EI_STRAT_IS_UPPER(ki->sk_strategy) &&
				   EI_STRAT_IS_UPPER(kj->sk_strategy)) ||
				  (EI_STRAT_IS_LOWER(ki->sk_strategy) &&
				   EI_STRAT_IS_LOWER(kj->sk_strategy))))
				continue;
			if (!ei_compare_key_args(rel, ki, kj, &cmp))
				continue;

			/* decide in the data type's order, not the index's */
			typestrat = ki->sk_strategy;
			if (ki->sk_flags & EI_SK_DESC)
				typestrat = EI_COMMUTE_STRATEGY(typestrat);

			if (cmp == 0)
				i_wins = EI_STRAT_IS_STRICT(ki->sk_strategy) ||
					!EI_STRAT_IS_STRICT(kj->sk_strategy);
			else if (typestrat == BTGreaterStrategyNumber ||
					 typestrat == BTGreaterEqualStrategyNumber)
				i_wins = (cmp > 0);
			else
				i_wins = (cmp < 0);

			if (i_wins)
				kj->sk_flags |= EISCAN_SK_LOOSE;
			else
			{
				ki->sk_flags |= EISCAN_SK_LOOSE;
				break;
			}
		}
	}
}

/*
 * Mark the keys whose failure ends the scan in each direction.
 *
 * The keys of attribute k qualify when every earlier attribute has an
 * equality key (or IS NULL) that can position the scan: then, among the
 * items that pass the earlier keys, attribute k is in index order.  An
 * upper bound (in index order) is required forward, a lower bound backward,
 * an equality both ways.  Keys without a comparison proc are never
 * required, because the scan cannot be positioned by them.
 */
static void
ei_mark_required_keys(EIScanOpaque so)
{
	AttrNumber	expected = 1;
	int			i = 0;

	while (i < so->numberOfKeys)
	{
		AttrNumber	attno = so->keyData[i].sk_attno;
		bool		has_eq = false;
		int			j;

		if (attno != expected)
			break;

		for (j = i; j < so->numberOfKeys && so->keyData[j].sk_attno == attno; j++)
		{
			ScanKey		key = &so->keyData[j];

			if (!ei_key_can_position(key) ||
				(key->sk_flags & EISCAN_SK_ARRAY_FILTER))
				continue;

			if (key->sk_strategy == BTEqualStrategyNumber)
			{
				so->keyRequiredFwd[j] = true;
				so->keyRequiredBwd[j] = true;
				has_eq = true;
			}
			else if (EI_STRAT_IS_UPPER(key->sk_strategy))
				so->keyRequiredFwd[j] = true;
			else
				so->keyRequiredBwd[j] = true;
		}

		if (!has_eq)
			break;
		expected = attno + 1;
		i = j;
	}
}

/*
 * Copy the scan keys into so->keyData in attribute order, rewrite their
 * strategies in index order, and work out qual_ok and the required keys.
 */
static void
ei_preprocess_keys(IndexScanDesc scan)
{
	Relation	rel = scan->indexRelation;
	EIScanOpaque so = (EIScanOpaque) scan->opaque;
	int			nkeys = scan->numberOfKeys;
	int			nkeyatts = IndexRelationGetNumberOfKeyAttributes(rel);
	int			i;

	so->numberOfKeys = 0;
	so->qual_ok = true;
	if (so->arrays != NULL)
	{
		MemoryContextReset(so->arraysCxt);
		so->arrays = NULL;
	}
	if (nkeys <= 0)
		return;

	/* stable insertion sort by attribute number */
	for (i = 0; i < nkeys; i++)
	{
		ScanKey		src = &scan->keyData[i];
		int			j = i;

		while (j > 0 && so->keyData[j - 1].sk_attno > src->sk_attno)
		{
			so->keyData[j] = so->keyData[j - 1];
			j--;
		}
		so->keyData[j] = *src;
	}
	so->numberOfKeys = nkeys;

	for (i = 0; i < nkeys; i++)
	{
		ScanKey		key = &so->keyData[i];
		int16		opt;

		so->keyRequiredFwd[i] = false;
		so->keyRequiredBwd[i] = false;

		if (key->sk_flags & (SK_ROW_HEADER | SK_ROW_MEMBER | SK_ORDER_BY))
			elog(ERROR, "unsupported scan key flags 0x%x for index \"%s\"",
				 key->sk_flags, RelationGetRelationName(rel));
		if (key->sk_attno < 1 || key->sk_attno > nkeyatts)
			elog(ERROR, "invalid scan key attribute number %d for index \"%s\"",
				 key->sk_attno, RelationGetRelationName(rel));

		opt = rel->rd_indoption[key->sk_attno - 1];
		key->sk_flags &= ~(EI_SK_DESC | EI_SK_NULLS_FIRST |
						   EISCAN_SK_CMP_OK | EISCAN_SK_LOOSE |
						   EISCAN_SK_ARRAY_FILTER);
		if (opt & INDOPTION_DESC)
			key->sk_flags |= EI_SK_DESC;
		if (opt & INDOPTION_NULLS_FIRST)
			key->sk_flags |= EI_SK_NULLS_FIRST;

		if (key->sk_flags & (SK_SEARCHNULL | SK_SEARCHNOTNULL))
		{
			/* IS NULL is an equality; IS NOT NULL bounds the NULLs' side */
			key->sk_flags |= SK_ISNULL;
			if (key->sk_flags & SK_SEARCHNULL)
				key->sk_strategy = BTEqualStrategyNumber;
			else if (opt & INDOPTION_NULLS_FIRST)
				key->sk_strategy = BTGreaterStrategyNumber;
			else
				key->sk_strategy = BTLessStrategyNumber;
			continue;
		}

		if (key->sk_flags & SK_ISNULL)
		{
			/* an ordinary operator with a NULL argument is never true */
			so->qual_ok = false;
			continue;
		}

		if (key->sk_strategy < 1 || key->sk_strategy > BTMaxStrategyNumber)
			elog(ERROR, "invalid strategy number %d in scan key for index \"%s\"",
				 key->sk_strategy, RelationGetRelationName(rel));

		if (ei_key_has_cmp_proc(rel, key))
			key->sk_flags |= EISCAN_SK_CMP_OK;
		if (opt & INDOPTION_DESC)
			key->sk_strategy = EI_COMMUTE_STRATEGY(key->sk_strategy);
	}

	if (!so->qual_ok)
		return;

	ei_arrays_prepare(scan);
	if (!so->qual_ok)
		return;

	ei_mark_loose_keys(rel, so);
	ei_mark_required_keys(so);
	ei_arrays_finish(scan);
}


/* ----------------------------------------------------------------
 * Array keys ("= ANY (array)", SK_SEARCHARRAY)
 *
 * As in nbtree since PostgreSQL 17, a scan with array keys reads the
 * index once in order.  The positioning array keys have a current element
 * each; a tuple beyond the current combination moves them to the first
 * combination at or beyond it (ei_arrays_locate), found by binary search
 * in each array.  When that combination lies beyond the page being read,
 * the scan stops reading the page and descends again from the root to it
 * (a new primitive scan); otherwise it keeps reading, so that a run of
 * elements on the same leaf costs one descent.  See src/README.md, "Array
 * keys".
 * ----------------------------------------------------------------
 */

/* How ei_array_elem_cmp compares two elements of an array key. */
typedef struct EIArraySortArg
{
	FmgrInfo	cmp;			/* 3-way comparison (element, element) */
	Oid			collation;
	bool		desc;			/* the column is DESC */
} EIArraySortArg;

/* qsort_arg comparator of array elements, in index order. */
static int
ei_array_elem_cmp(const void *a, const void *b, void *arg)
{
	EIArraySortArg *sortarg = (EIArraySortArg *) arg;
	int32		c;

	c = DatumGetInt32(FunctionCall2Coll(&sortarg->cmp, sortarg->collation,
										*(const Datum *) a,
										*(const Datum *) b));
	if (sortarg->desc)
		INVERT_COMPARE_RESULT(c);
	return c;
}

/*
 * Where a column value lies relative to an argument, in index order:
 * negative before it, 0 equal, positive after.  A NULL argument stands for
 * IS NULL; NULLs sort after every value, or before them with NULLS FIRST.
 */
static int
ei_order(FmgrInfo *cmp, Oid collation, bool desc, bool nulls_first,
		 Datum value, bool isnull, Datum arg, bool argnull)
{
	int32		c;

	if (isnull || argnull)
	{
		if (isnull && argnull)
			return 0;
		c = isnull ? 1 : -1;
		return nulls_first ? -c : c;
	}
	c = DatumGetInt32(FunctionCall2Coll(cmp, collation, value, arg));
	if (desc)
		INVERT_COMPARE_RESULT(c);
	return (c > 0) - (c < 0);
}

/*
 * The first element of an array key at or beyond a value in the scan
 * direction (index nelems forward, -1 backward, if there is none); *equal
 * tells whether it equals the value.
 *
 * With a start element (a positioning key's current one) the search
 * gallops from it before it bisects: a scan moves its array keys on to
 * the next element or one shortly after it, so a long array costs a few
 * comparisons per move, not log2 of its length.  Any start gives the same
 * answer; start -1 (a filter, whose values have no order along the leaf)
 * bisects the whole array.
 */
static int
ei_array_search(EIScanArrayKey *ak, int start, Datum value, bool isnull,
				ScanDirection dir, bool *equal)
{
	bool		forward = ScanDirectionIsForward(dir);
	int			n = ak->nelems;
	int			lo;
	int			hi;
	int			k;

	/*
	 * high(i): element i sorts after the value (forward: at or after it).
	 * It is false up to some index and true from there on; find that
	 * index, lo in [0, n], by galloping from start to a range [lo, hi]
	 * known to hold it, then bisecting.
	 */
#define EI_ELEM_HIGH(i) \
	(ei_order(&ak->cmp, ak->collation, ak->desc, ak->nulls_first, \
			  value, isnull, ak->elems[(i)], false) < (forward ? 1 : 0))

	start = Min(start, n - 1);
	if (start < 0)
	{
		lo = 0;
		hi = n;
	}
	else if (EI_ELEM_HIGH(start))
	{
		/* the answer is at or before start: gallop back */
		int			step = 1;

		hi = start;
		lo = start - step;
		while (lo >= 0 && EI_ELEM_HIGH(lo))
		{
			hi = lo;
			step *= 2;
			lo = start - step;
		}
		lo = Max(lo + 1, 0);
	}
	else
	{
		/* the answer is after start: gallop on */
		int			step = 1;

		lo = start + 1;
		hi = start + step;
		while (hi < n && !EI_ELEM_HIGH(hi))
		{
			lo = hi + 1;
			step *= 2;
			hi = start + step;
		}
		hi = Min(hi, n);
	}

	/* bisect [lo, hi]: high(hi) holds or hi == n; high(lo - 1) fails */
	while (lo < hi)
	{
		int			mid = lo + (hi - lo) / 2;

		if (EI_ELEM_HIGH(mid))
			hi = mid;
		else
			lo = mid + 1;
	}
#undef EI_ELEM_HIGH

	k = forward ? lo : lo - 1;
	*equal = false;
	if (k >= 0 && k < n)
		*equal = ei_order(&ak->cmp, ak->collation, ak->desc, ak->nulls_first,
						  value, isnull, ak->elems[k], false) == 0;
	return k;
}

/*
 * Look up the 3-way comparison proc of index column attno (from 1) with an
 * argument type, into *finfo (in the current memory context).
 */
static void
ei_array_cmp_proc(Relation rel, AttrNumber attno, Oid lefttype, Oid righttype,
				  FmgrInfo *finfo)
{
	int			col = attno - 1;
	RegProcedure proc;

	if (lefttype == rel->rd_opcintype[col] &&
		righttype == rel->rd_opcintype[col])
	{
		fmgr_info_copy(finfo, index_getprocinfo(rel, attno, EI_CMP_PROC),
					   CurrentMemoryContext);
		return;
	}
	proc = get_opfamily_proc(rel->rd_opfamily[col], lefttype, righttype,
							 EI_CMP_PROC);
	if (!RegProcedureIsValid(proc))
		elog(ERROR, "missing support function %d(%u,%u) for attribute %d of index \"%s\"",
			 EI_CMP_PROC, lefttype, righttype, attno,
			 RelationGetRelationName(rel));
	fmgr_info(proc, finfo);
}

/*
 * Turn "col < ANY (array)" (or <=, >, >=) into the ordinary key it is the
 * same as: col < its greatest non-NULL element (for > and >=: its least).
 * No such element makes the quals false.  Runs in the array keys' memory
 * context, which keeps a detoasted array's elements.
 */
static void
ei_array_reduce_inequality(IndexScanDesc scan, ScanKey key)
{
	Relation	rel = scan->indexRelation;
	EIScanOpaque so = (EIScanOpaque) scan->opaque;
	ArrayType  *arr = DatumGetArrayTypeP(key->sk_argument);
	Oid			elemtype = ARR_ELEMTYPE(arr);
	StrategyNumber typestrat = key->sk_strategy;
	bool		want_greatest;
	int16		elmlen;
	bool		elmbyval;
	char		elmalign;
	Datum	   *elems;
	bool	   *nulls;
	int			nelems;
	FmgrInfo	cmp;
	bool		found = false;
	Datum		extreme = (Datum) 0;

	/* the key's strategy is in index order; the elements compare by value */
	if (key->sk_flags & EI_SK_DESC)
		typestrat = EI_COMMUTE_STRATEGY(typestrat);
	want_greatest = (typestrat == BTLessStrategyNumber ||
					 typestrat == BTLessEqualStrategyNumber);

	get_typlenbyvalalign(elemtype, &elmlen, &elmbyval, &elmalign);
	deconstruct_array(arr, elemtype, elmlen, elmbyval, elmalign,
					  &elems, &nulls, &nelems);
	ei_array_cmp_proc(rel, key->sk_attno, elemtype, elemtype, &cmp);
	for (int e = 0; e < nelems; e++)
	{
		int32		c;

		if (nulls[e])
			continue;
		if (!found)
		{
			extreme = elems[e];
			found = true;
			continue;
		}
		c = DatumGetInt32(FunctionCall2Coll(&cmp, key->sk_collation,
											elems[e], extreme));
		if (want_greatest ? c > 0 : c < 0)
			extreme = elems[e];
	}
	if (!found)
	{
		so->qual_ok = false;
		return;
	}
	key->sk_argument = extreme;
	key->sk_flags &= ~SK_SEARCHARRAY;
}

/*
 * Deconstruct the array keys.  An inequality becomes an ordinary key
 * (ei_array_reduce_inequality).  For "=": drop NULL elements (= NULL is
 * never true), sort the rest in index order, drop duplicates and, where
 * the elements have the column's type, the elements the column's other
 * keys reject.  An array left empty makes the quals false.  The second
 * array key of a column only filters.
 */
static void
ei_arrays_prepare(IndexScanDesc scan)
{
	Relation	rel = scan->indexRelation;
	EIScanOpaque so = (EIScanOpaque) scan->opaque;
	EIScanArrays *arrays;
	MemoryContext cxt;
	MemoryContext oldcxt;
	int			nkeys = 0;
	AttrNumber	lastattno = 0;

	for (int i = 0; i < so->numberOfKeys; i++)
		if (so->keyData[i].sk_flags & SK_SEARCHARRAY)
			nkeys++;
	if (nkeys == 0)
		return;

	/* one context for the scan's lifetime: a rescan only resets it */
	if (so->arraysCxt == NULL)
		so->arraysCxt = AllocSetContextCreate(GetMemoryChunkContext(so),
											  "elastic_index array keys",
											  ALLOCSET_SMALL_SIZES);
	cxt = so->arraysCxt;
	oldcxt = MemoryContextSwitchTo(cxt);
	arrays = palloc0(sizeof(EIScanArrays));
	arrays->keys = palloc0(sizeof(EIScanArrayKey) * nkeys);
	arrays->arrayOfKey = palloc(sizeof(int) * so->numberOfKeys);
	so->arrays = arrays;

	for (int i = 0; i < so->numberOfKeys; i++)
	{
		ScanKey		key = &so->keyData[i];
		int			col = key->sk_attno - 1;
		EIScanArrayKey *ak;
		ArrayType  *arr;
		Oid			elemtype;
		int16		elmlen;
		bool		elmbyval;
		char		elmalign;
		Datum	   *elems;
		bool	   *nulls;
		int			nelems;
		int			n = 0;
		EIArraySortArg sortarg;

		arrays->arrayOfKey[i] = -1;
		if (!(key->sk_flags & SK_SEARCHARRAY))
			continue;
		if (!(key->sk_flags & EISCAN_SK_CMP_OK))
			elog(ERROR, "missing support function %d(%u,%u) for attribute %d of index \"%s\"",
				 EI_CMP_PROC, rel->rd_opcintype[col], key->sk_subtype,
				 key->sk_attno, RelationGetRelationName(rel));

		if (key->sk_strategy != BTEqualStrategyNumber)
		{
			ei_array_reduce_inequality(scan, key);
			if (!so->qual_ok)
				break;
			continue;
		}

		ak = &arrays->keys[arrays->nkeys];
		arrays->arrayOfKey[i] = arrays->nkeys++;
		ak->keyIndex = i;
		ak->collation = key->sk_collation;
		ak->desc = (key->sk_flags & EI_SK_DESC) != 0;
		ak->nulls_first = (key->sk_flags & EI_SK_NULLS_FIRST) != 0;

		/* a column's second array key only filters */
		if (key->sk_attno == lastattno)
			key->sk_flags |= EISCAN_SK_ARRAY_FILTER;
		lastattno = key->sk_attno;

		arr = DatumGetArrayTypeP(key->sk_argument);
		elemtype = ARR_ELEMTYPE(arr);
		get_typlenbyvalalign(elemtype, &elmlen, &elmbyval, &elmalign);
		deconstruct_array(arr, elemtype, elmlen, elmbyval, elmalign,
						  &elems, &nulls, &nelems);
		for (int e = 0; e < nelems; e++)
			if (!nulls[e])
				elems[n++] = elems[e];

		ei_array_cmp_proc(rel, key->sk_attno, rel->rd_opcintype[col],
						  elemtype, &ak->cmp);

		/* sort and deduplicate in index order */
		if (n > 1)
		{
			sortarg.collation = ak->collation;
			sortarg.desc = ak->desc;
			ei_array_cmp_proc(rel, key->sk_attno, elemtype, elemtype,
							  &sortarg.cmp);
			qsort_arg(elems, n, sizeof(Datum), ei_array_elem_cmp, &sortarg);
			{
				int			kept = 1;

				for (int e = 1; e < n; e++)
					if (ei_array_elem_cmp(&elems[kept - 1], &elems[e],
										  &sortarg) != 0)
						elems[kept++] = elems[e];
				n = kept;
			}
		}

		/* the column's other keys rule elements out */
		for (int j = 0; j < so->numberOfKeys && n > 0; j++)
		{
			ScanKey		other = &so->keyData[j];
			int			kept = 0;

			if (j == i || other->sk_attno != key->sk_attno ||
				(other->sk_flags & SK_SEARCHARRAY))
				continue;
			if (other->sk_flags & SK_ISNULL)
			{
				/* IS NULL: no element; IS NOT NULL: every one */
				if (other->sk_flags & SK_SEARCHNULL)
					n = 0;
				continue;
			}
			if (elemtype != rel->rd_opcintype[col])
				continue;
			for (int e = 0; e < n; e++)
				if (DatumGetBool(FunctionCall2Coll(&other->sk_func,
												   other->sk_collation,
												   elems[e],
												   other->sk_argument)))
					elems[kept++] = elems[e];
			n = kept;
		}

		if (n == 0)
		{
			so->qual_ok = false;
			break;
		}
		ak->elems = elems;
		ak->nelems = n;
		ak->cur = 0;
		key->sk_argument = elems[0];
	}
	MemoryContextSwitchTo(oldcxt);
}

/*
 * After the required keys are known: the array keys of the required
 * prefix position the scan, every other one only filters (and is not
 * required); collect the prefix's equalities for ei_arrays_locate.
 */
static void
ei_arrays_finish(IndexScanDesc scan)
{
	Relation	rel = scan->indexRelation;
	EIScanOpaque so = (EIScanOpaque) scan->opaque;
	EIScanArrays *arrays = so->arrays;
	MemoryContext oldcxt;

	if (arrays == NULL)
		return;

	for (int a = 0; a < arrays->nkeys; a++)
	{
		EIScanArrayKey *ak = &arrays->keys[a];
		ScanKey		key = &so->keyData[ak->keyIndex];

		ak->positions = !(key->sk_flags & EISCAN_SK_ARRAY_FILTER) &&
			so->keyRequiredFwd[ak->keyIndex];
		if (!ak->positions)
		{
			key->sk_flags |= EISCAN_SK_ARRAY_FILTER;
			so->keyRequiredFwd[ak->keyIndex] = false;
			so->keyRequiredBwd[ak->keyIndex] = false;
			continue;
		}
		if (arrays->npositioning++ == 0)
			arrays->firstPosAttno = key->sk_attno;
	}
	if (arrays->npositioning == 0)
		return;

	oldcxt = MemoryContextSwitchTo(so->arraysCxt);
	arrays->eq = palloc0(sizeof(EIScanEqKey) * so->numberOfKeys);
	for (int i = 0; i < so->numberOfKeys; i++)
	{
		ScanKey		key = &so->keyData[i];
		EIScanEqKey *eq;

		if (key->sk_strategy != BTEqualStrategyNumber ||
			!so->keyRequiredFwd[i] || !so->keyRequiredBwd[i])
			continue;

		/*
		 * One equality per column: the one ei_descend starts from (the
		 * positioning array key, else the first).  Another one on the column
		 * (of another type, which could not rule elements out, or IS NULL
		 * against "=") stays required: where it fails on a tuple that
		 * matches the chosen one, no tuple of the combination can match,
		 * and ei_required_failed steps on.  Were it part of the
		 * combination, two different values for one column would put the
		 * combination beyond every tuple, and each descent would land where
		 * the last one did, for ever.
		 */
		if (arrays->neq > 0 &&
			arrays->eq[arrays->neq - 1].attno == key->sk_attno)
		{
			if (arrays->arrayOfKey[i] < 0 ||
				!arrays->keys[arrays->arrayOfKey[i]].positions ||
				arrays->eq[arrays->neq - 1].array >= 0)
				continue;
			arrays->neq--;		/* the array key replaces it */
		}
		eq = &arrays->eq[arrays->neq++];
		memset(eq, 0, sizeof(EIScanEqKey));
		eq->keyIndex = i;
		eq->array = arrays->arrayOfKey[i];
		eq->attno = key->sk_attno;
		eq->isnull = (key->sk_flags & SK_ISNULL) != 0;
		eq->desc = (key->sk_flags & EI_SK_DESC) != 0;
		eq->nulls_first = (key->sk_flags & EI_SK_NULLS_FIRST) != 0;
		eq->collation = key->sk_collation;
		if (eq->array >= 0)
			eq->cmp = arrays->keys[eq->array].cmp;
		else if (!eq->isnull)
			ei_array_cmp_proc(rel, key->sk_attno,
							  rel->rd_opcintype[key->sk_attno - 1],
							  OidIsValid(key->sk_subtype) ? key->sk_subtype :
							  rel->rd_opcintype[key->sk_attno - 1],
							  &eq->cmp);
	}
	arrays->markCur = palloc0(sizeof(int) * arrays->nkeys);
	MemoryContextSwitchTo(oldcxt);
}

/*
 * Put the current elements of the positioning array keys into their keys.
 */
static void
ei_arrays_set_args(EIScanOpaque so)
{
	EIScanArrays *arrays = so->arrays;

	for (int a = 0; a < arrays->nkeys; a++)
	{
		EIScanArrayKey *ak = &arrays->keys[a];

		if (ak->positions)
			so->keyData[ak->keyIndex].sk_argument = ak->elems[ak->cur];
	}
}

/*
 * Start the array keys at their first combination in the scan direction.
 */
static void
ei_arrays_start(EIScanOpaque so, ScanDirection dir)
{
	EIScanArrays *arrays = so->arrays;

	if (arrays == NULL)
		return;
	for (int a = 0; a < arrays->nkeys; a++)
		arrays->keys[a].cur = ScanDirectionIsForward(dir) ? 0 :
			arrays->keys[a].nelems - 1;
	arrays->needPrimScan = false;
	arrays->advanced = false;
	ei_arrays_set_args(so);
}

/*
 * Reset the positioning array keys after equality j to their first element
 * in the scan direction.
 */
static void
ei_arrays_reset_after(EIScanArrays *arrays, int j, ScanDirection dir)
{
	for (int k = j + 1; k < arrays->neq; k++)
	{
		EIScanArrayKey *ak;

		if (arrays->eq[k].array < 0)
			continue;
		ak = &arrays->keys[arrays->eq[k].array];
		ak->cur = ScanDirectionIsForward(dir) ? 0 : ak->nelems - 1;
	}
}

/*
 * Move to the next combination whose equalities before j differ from the
 * current one's: step the last array key before j that has elements left
 * in the scan direction, and reset the later ones.
 */
static EIArraysResult
ei_arrays_increment(EIScanArrays *arrays, int j, ScanDirection dir)
{
	int			step = ScanDirectionIsForward(dir) ? 1 : -1;

	for (int k = j - 1; k >= 0; k--)
	{
		EIScanArrayKey *ak;

		if (arrays->eq[k].array < 0)
			continue;
		ak = &arrays->keys[arrays->eq[k].array];
		if (ak->cur + step >= 0 && ak->cur + step < ak->nelems)
		{
			ak->cur += step;
			ei_arrays_reset_after(arrays, k, dir);
			return EI_ARRAYS_AHEAD;
		}
	}
	return EI_ARRAYS_DONE;
}

/*
 * Move the positioning array keys to the first combination at or beyond
 * the tuple in the scan direction, comparing the required prefix's
 * equalities column by column.  With failattno, a required key of that
 * column failed on the tuple although its equalities up to there match:
 * move to the next combination that differs up to that column.
 */
static EIArraysResult
ei_arrays_locate(IndexScanDesc scan, IndexTuple itup, ScanDirection dir,
				 AttrNumber failattno)
{
	EIScanOpaque so = (EIScanOpaque) scan->opaque;
	EIScanArrays *arrays = so->arrays;
	TupleDesc	tupdesc = RelationGetDescr(scan->indexRelation);
	bool		forward = ScanDirectionIsForward(dir);
	EIArraysResult result = EI_ARRAYS_MATCH;
	int			j;

	for (j = 0; j < arrays->neq; j++)
	{
		EIScanEqKey *eq = &arrays->eq[j];
		bool		isnull;
		Datum		value;

		if (failattno > 0 && eq->attno > failattno)
			break;
		value = index_getattr(itup, eq->attno, tupdesc, &isnull);
		if (eq->array >= 0)
		{
			EIScanArrayKey *ak = &arrays->keys[eq->array];
			bool		equal;
			int			k = ei_array_search(ak, ak->cur, value, isnull, dir,
											&equal);

			if (k < 0 || k >= ak->nelems)
			{
				result = ei_arrays_increment(arrays, j, dir);
				break;
			}
			ak->cur = k;
			if (!equal)
			{
				ei_arrays_reset_after(arrays, j, dir);
				result = EI_ARRAYS_AHEAD;
				break;
			}
		}
		else
		{
			ScanKey		key = &so->keyData[eq->keyIndex];
			int			c = ei_order(&eq->cmp, eq->collation, eq->desc,
									 eq->nulls_first, value, isnull,
									 key->sk_argument, eq->isnull);

			if (!forward)
				c = -c;
			if (c < 0)
			{
				ei_arrays_reset_after(arrays, j, dir);
				result = EI_ARRAYS_AHEAD;
				break;
			}
			if (c > 0)
			{
				result = ei_arrays_increment(arrays, j, dir);
				break;
			}
		}
	}
	if (result == EI_ARRAYS_MATCH && failattno > 0)
		result = ei_arrays_increment(arrays, j, dir);
	ei_arrays_set_args(so);
	return result;
}

/*
 * A required key of column attno failed on the tuple: return whether the
 * scan is over in this direction.  With positioning array keys on that
 * column or before it, it is over only when no combination is left;
 * otherwise the keys move on (ei_arrays_locate).
 */
static bool
ei_required_failed(IndexScanDesc scan, IndexTuple itup, ScanDirection dir,
				   AttrNumber attno, bool advance)
{
	EIScanOpaque so = (EIScanOpaque) scan->opaque;
	EIScanArrays *arrays = so->arrays;

	if (!advance || arrays == NULL || arrays->npositioning == 0 ||
		arrays->firstPosAttno > attno)
		return true;
	if (ei_arrays_locate(scan, itup, dir, attno) == EI_ARRAYS_DONE)
		return true;
	arrays->advanced = true;
	return false;
}

/*
 * Compare a tuple with the current combination of the array keys over the
 * required equalities, in index order: negative if it lies before.
 */
static int
ei_arrays_cmp_tuple(IndexScanDesc scan, IndexTuple itup)
{
	EIScanOpaque so = (EIScanOpaque) scan->opaque;
	EIScanArrays *arrays = so->arrays;
	TupleDesc	tupdesc = RelationGetDescr(scan->indexRelation);

	for (int j = 0; j < arrays->neq; j++)
	{
		EIScanEqKey *eq = &arrays->eq[j];
		ScanKey		key = &so->keyData[eq->keyIndex];
		bool		isnull;
		Datum		value = index_getattr(itup, eq->attno, tupdesc, &isnull);
		int			c = ei_order(&eq->cmp, eq->collation, eq->desc,
								 eq->nulls_first, value, isnull,
								 key->sk_argument, eq->isnull);

		if (c != 0)
			return c;
	}
	return 0;
}

/*
 * Have the array keys, just moved ahead, left the share-locked leaf page
 * behind in the scan direction?  Forward: they lie beyond its high key;
 * backward: before its first item.  Then a new descent finds them faster
 * than reading on.
 */
static bool
ei_arrays_beyond_page(IndexScanDesc scan, Page page, ScanDirection dir)
{
	EIPageOpaque opaque = EIPageGetOpaque(page);
	OffsetNumber minoff = EI_FIRST_DATA(opaque);

	if (ScanDirectionIsForward(dir))
	{
		if (EI_RIGHTMOST(opaque))
			return false;
		return ei_arrays_cmp_tuple(scan, EIReadTupleChecked(scan->indexRelation,
															page, EI_HIKEY)) < 0;
	}
	if (minoff > PageGetMaxOffsetNumber(page))
		return false;
	return ei_arrays_cmp_tuple(scan, EIReadTupleChecked(scan->indexRelation,
														page, minoff)) > 0;
}

/*
 * The array keys moved ahead of the item at offnum, but not off the page:
 * skip the items between by binary search.  The required equalities are
 * the leading key columns, so the page's items are in their order.
 * Returns the offset to continue from, such that the reading loop's next
 * step lands on the first item (forward: at or after, backward: at or
 * before) the new combination; limit is maxoff forward, minoff backward.
 */
static OffsetNumber
ei_arrays_skip(IndexScanDesc scan, Page page, ScanDirection dir,
			   OffsetNumber offnum, OffsetNumber limit)
{
	Relation	rel = scan->indexRelation;
	OffsetNumber lo;
	OffsetNumber hi;

	if (ScanDirectionIsForward(dir))
	{
		/* the first item at or after the keys, in (offnum, limit] */
		lo = OffsetNumberNext(offnum);
		hi = OffsetNumberNext(limit);
		while (lo < hi)
		{
			OffsetNumber mid = lo + (hi - lo) / 2;

			if (ei_arrays_cmp_tuple(scan, EIReadTupleChecked(rel, page, mid)) < 0)
				lo = OffsetNumberNext(mid);
			else
				hi = mid;
		}
		return OffsetNumberPrev(lo);
	}

	/* the first item after the keys in [limit, offnum); step back from it */
	if (offnum <= limit)
		return offnum;
	lo = limit;
	hi = offnum;
	while (lo < hi)
	{
		OffsetNumber mid = lo + (hi - lo) / 2;

		if (ei_arrays_cmp_tuple(scan, EIReadTupleChecked(rel, page, mid)) <= 0)
			lo = OffsetNumberNext(mid);
		else
			hi = mid;
	}
	/* keep the first data item in reach: the loop tests it even if dead */
	return lo;
}

/*
 * After a leaf is read: in a parallel scan, a participant whose array keys
 * left the leaf behind asks for a new descent in the shared state (if
 * nobody has moved on meanwhile) and goes on as the shared state says.
 */
static void
ei_arrays_after_page(IndexScanDesc scan, ScanDirection dir)
{
	EIScanOpaque so = (EIScanOpaque) scan->opaque;
	EIScanArrays *arrays = so->arrays;

	if (arrays == NULL || !arrays->needPrimScan || scan->parallel_scan == NULL)
		return;

	/*
	 * A scan that shares out key ranges (it merges entries from outside the
	 * tree) reads every leaf in turn instead: a descent would skip leaves
	 * whose ranges own buffered entries, and a participant reading alone
	 * (ei_parallel_solo_below) must stay below its bound.
	 */
	if (!ei_parallel_ranges(scan))
		ei_parallel_primscan_schedule(scan, so->currPos.currPage);
	arrays->needPrimScan = false;
	if (ScanDirectionIsForward(dir))
		so->currPos.moreRight = true;
	else
		so->currPos.moreLeft = true;
}

/*
 * First and last element of the array key so->keyData[keyIndex], in index
 * order, for a policy's bounds; false if it is not an array key.
 */
bool
EIScanArrayKeyRange(IndexScanDesc scan, int keyIndex, Datum *first,
					Datum *last)
{
	EIScanOpaque so = (EIScanOpaque) scan->opaque;
	EIScanArrayKey *ak;

	if (so->arrays == NULL || keyIndex < 0 ||
		keyIndex >= so->numberOfKeys || so->arrays->arrayOfKey[keyIndex] < 0)
		return false;
	ak = &so->arrays->keys[so->arrays->arrayOfKey[keyIndex]];
	*first = ak->elems[0];
	*last = ak->elems[ak->nelems - 1];
	return true;
}

/*
 * Count a descent: in pg_stat_*_indexes.idx_scan for every new primitive
 * scan (ei_first counts the first), and as EXPLAIN ANALYZE's "Index
 * Searches" (18 on).
 */
static void
ei_count_descent(IndexScanDesc scan, bool again)
{
	if (again)
		pgstat_count_index_scan(scan->indexRelation);
	EICountIndexSearch(scan);
}


/* ----------------------------------------------------------------
 * Positioning
 * ----------------------------------------------------------------
 */

/*
 * Can this preprocessed key be part of the insertion key that positions
 * the scan?
 */
static bool
ei_key_can_position(ScanKey key)
{
	return (key->sk_flags & (SK_ISNULL | EISCAN_SK_CMP_OK)) != 0;
}

/*
 * Choose between the current start key of an attribute and another
 * candidate bounding the same side: equality first, then a tight bound.
 */
static ScanKey
ei_better_start_key(ScanKey chosen, ScanKey cur)
{
	if (chosen == NULL)
		return cur;
	if (chosen->sk_strategy == BTEqualStrategyNumber)
	{
		/* a positioning array key moves on: the scan must follow it */
		if (cur->sk_strategy == BTEqualStrategyNumber &&
			(cur->sk_flags & SK_SEARCHARRAY) &&
			!(chosen->sk_flags & SK_SEARCHARRAY))
			return cur;
		return chosen;
	}
	if (cur->sk_strategy == BTEqualStrategyNumber)
		return cur;
	if ((chosen->sk_flags & EISCAN_SK_LOOSE) && !(cur->sk_flags & EISCAN_SK_LOOSE))
		return cur;
	return chosen;
}

/*
 * Descend to the leaf where the scan starts and return it share-locked,
 * with the offset to start reading from in *offnum.
 *
 * As in nbtree's _bt_first, the insertion key is built from the boundary
 * keys for the scan direction, attribute by attribute: an equality lets us
 * go on to the next attribute, >= / <= too, while a strict bound ends the
 * key.  The combined strategy decides whether we position at the first item
 * >= or > the key, and whether a backward scan then steps back one item.
 */
static Buffer
ei_descend(IndexScanDesc scan, ScanDirection dir, OffsetNumber *offnum)
{
	Relation	rel = scan->indexRelation;
	EIScanOpaque so = (EIScanOpaque) scan->opaque;
	bool		forward = ScanDirectionIsForward(dir);
	ScanKey		startKeys[INDEX_MAX_KEYS];
	ScanKeyData notnullkeys[INDEX_MAX_KEYS];
	EIScanInsertData inskey;
	StrategyNumber strat_total = BTEqualStrategyNumber;
	int			keysCount = 0;
	AttrNumber	curattr = 1;
	ScanKey		chosen = NULL;
	ScanKey		impliesNN = NULL;
	bool		nextkey;
	bool		goback;
	Buffer		buf;
	EIStack		stack;
	int			i;

	for (i = 0;; i++)
	{
		ScanKey		cur = (i < so->numberOfKeys) ? &so->keyData[i] : NULL;

		if (cur == NULL || cur->sk_attno != curattr)
		{
			StrategyNumber strat;

			/*
			 * No start key for this attribute.  If an ordinary key on the
			 * far side implies NOT NULL and the NULLs come first in the scan
			 * direction, we can at least start past them.
			 */
			if (chosen == NULL && impliesNN != NULL &&
				((impliesNN->sk_flags & EI_SK_NULLS_FIRST) ? forward : !forward))
			{
				chosen = &notnullkeys[keysCount];
				ScanKeyEntryInitialize(chosen,
									   SK_ISNULL | SK_SEARCHNOTNULL |
									   (impliesNN->sk_flags &
										(EI_SK_DESC | EI_SK_NULLS_FIRST)),
									   curattr,
									   (impliesNN->sk_flags & EI_SK_NULLS_FIRST) ?
									   BTGreaterStrategyNumber : BTLessStrategyNumber,
									   InvalidOid, InvalidOid, InvalidOid,
									   (Datum) 0);
			}

			if (chosen == NULL)
				break;
			startKeys[keysCount++] = chosen;

			strat = chosen->sk_strategy;
			if (EI_STRAT_IS_STRICT(strat))
			{
				strat_total = strat;
				break;
			}
			if (strat != BTEqualStrategyNumber)
				strat_total = strat;

			/* go on only if the next attribute has keys */
			if (cur == NULL || cur->sk_attno != curattr + 1)
				break;
			curattr = cur->sk_attno;
			chosen = NULL;
			impliesNN = NULL;
		}

		if (!ei_key_can_position(cur) ||
			(cur->sk_flags & EISCAN_SK_ARRAY_FILTER))
		{
			if (impliesNN == NULL)
				impliesNN = cur;
			continue;
		}

		switch (cur->sk_strategy)
		{
			case BTEqualStrategyNumber:
				chosen = ei_better_start_key(chosen, cur);
				break;
			case BTLessStrategyNumber:
			case BTLessEqualStrategyNumber:
				if (!forward)
					chosen = ei_better_start_key(chosen, cur);
				else if (impliesNN == NULL && !(cur->sk_flags & SK_ISNULL))
					impliesNN = cur;
				break;
			case BTGreaterStrategyNumber:
			case BTGreaterEqualStrategyNumber:
				if (forward)
					chosen = ei_better_start_key(chosen, cur);
				else if (impliesNN == NULL && !(cur->sk_flags & SK_ISNULL))
					impliesNN = cur;
				break;
			default:
				elog(ERROR, "unrecognized strategy number %d", cur->sk_strategy);
		}
	}

	/* no usable boundary: start at the first or last leaf */
	if (keysCount == 0)
	{
		Page		page;

		buf = EIGetEndpoint(rel, 0, !forward);
		page = BufferGetPage(buf);
		if (forward || (EIPageGetOpaque(page)->ei_flags & EI_POLICY_LEAF))
			*offnum = EI_FIRST_DATA(EIPageGetOpaque(page));
		else
			*offnum = PageGetMaxOffsetNumber(page);
		return buf;
	}

	/* build the insertion key with 3-way comparison procs */
	for (i = 0; i < keysCount; i++)
	{
		ScanKey		cur = startKeys[i];
		int			col = cur->sk_attno - 1;
		int			flags = cur->sk_flags & SK_ISNULL;

		Assert(cur->sk_attno == i + 1);
		if (rel->rd_indoption[col] & INDOPTION_DESC)
			flags |= EI_SK_DESC;
		if (rel->rd_indoption[col] & INDOPTION_NULLS_FIRST)
			flags |= EI_SK_NULLS_FIRST;

		if ((cur->sk_flags & SK_ISNULL) ||
			cur->sk_subtype == InvalidOid ||
			cur->sk_subtype == rel->rd_opcintype[col])
		{
			ScanKeyEntryInitializeWithInfo(&inskey.scankeys[i], flags,
										   cur->sk_attno, InvalidStrategy,
										   (cur->sk_flags & SK_ISNULL) ?
										   InvalidOid : cur->sk_subtype,
										   (cur->sk_flags & SK_ISNULL) ?
										   rel->rd_indcollation[col] :
										   cur->sk_collation,
										   index_getprocinfo(rel, cur->sk_attno,
															 EI_CMP_PROC),
										   cur->sk_argument);
		}
		else
		{
			RegProcedure cmp_proc;

			cmp_proc = get_opfamily_proc(rel->rd_opfamily[col],
										 rel->rd_opcintype[col],
										 cur->sk_subtype, EI_CMP_PROC);
			if (!RegProcedureIsValid(cmp_proc))
				elog(ERROR, "missing support function %d(%u,%u) for attribute %d of index \"%s\"",
					 EI_CMP_PROC, rel->rd_opcintype[col], cur->sk_subtype,
					 cur->sk_attno, RelationGetRelationName(rel));
			ScanKeyEntryInitialize(&inskey.scankeys[i], flags, cur->sk_attno,
								   InvalidStrategy, cur->sk_subtype,
								   cur->sk_collation, cmp_proc,
								   cur->sk_argument);
		}
	}

	/*
	 * Where to start, in index order.  Forward: >= key at the first item >=
	 * key, > key at the first item > key, = key at the first equal item.
	 * Backward: one item before the first item > key (<= and =) or >= key
	 * (<).
	 */
	switch (strat_total)
	{
		case BTLessStrategyNumber:
			nextkey = false;
			goback = true;
			break;
		case BTLessEqualStrategyNumber:
			nextkey = true;
			goback = true;
			break;
		case BTEqualStrategyNumber:
			nextkey = !forward;
			goback = !forward;
			break;
		case BTGreaterEqualStrategyNumber:
			nextkey = false;
			goback = false;
			break;
		case BTGreaterStrategyNumber:
			nextkey = true;
			goback = false;
			break;
		default:
			elog(ERROR, "unrecognized strategy number %d", strat_total);
			nextkey = goback = false;	/* keep compiler quiet */
	}

	inskey.nextkey = nextkey;
	inskey.keysz = keysCount;
	inskey.scantid = NULL;
	ItemPointerSetInvalid(&inskey.scantid_data);

	stack = EISearch(rel, &inskey, &buf, EI_READ);
	EIFreeStack(stack);

	/* a policy's leaf finds its own range (EILeafKindOps.read) */
	if (EIPageGetOpaque(BufferGetPage(buf))->ei_flags & EI_POLICY_LEAF)
	{
		*offnum = InvalidOffsetNumber;
		return buf;
	}
	*offnum = EIBinSearch(rel, &inskey, BufferGetPage(buf));
	if (goback)
		*offnum = OffsetNumberPrev(*offnum);
	return buf;
}


/* ----------------------------------------------------------------
 * Bounds of leaves as read
 *
 * Entries may move from a leaf L to its right sibling R between two page
 * reads of a scan (src/README.md, "Redistribution between sibling
 * leaves").  A forward scan keeps the high key of the leaf it read last
 * and, on reaching the next leaf by the right link, skips its items below
 * it: they were returned with L.  A backward scan keeps the first data
 * item f of the leaf R it read last and, when the high key h of the left
 * sibling L it steps to lies below f, first reads the entries in [h, f),
 * which may have moved from L to R after R was read.
 *
 * Only standard leaves are skipped in or re-read: a policy's leaf
 * (EI_POLICY_LEAF, compact) holds no keys, entries never move into or out
 * of one, and a policy that converts leaves does not move entries between
 * siblings, so its leaves give no f (no check) and are never re-read.
 *
 * Bounds are compared as the tree orders entries, an item by its first
 * heap TID; a posting list whose key equals a bound's may hold TIDs on
 * both sides of it (a dedup pass merged a moved list with one of R's), and
 * then only its TIDs on the unread side are saved.
 * ----------------------------------------------------------------
 */

/*
 * Return a bound space of the scan (so->currBounds, markBounds or
 * scratchBounds, passed by address), allocating it when first needed.
 */
static char *
ei_bound_space(IndexScanDesc scan, char **space)
{
	if (*space == NULL)
		*space = MemoryContextAlloc(GetMemoryChunkContext(scan->opaque),
									EI_POS_BOUND_SPACE);
	return *space;
}

/*
 * Copy the high key of the locked leaf buf (not the rightmost) into space
 * in leaf form, its heap TID in t_tid ((0,0), below every heap TID, for a
 * high key without one); return its size.
 */
static Size
ei_bound_from_hikey(Relation rel, Buffer buf, char *space)
{
	IndexTuple	hikey = EIReadTupleChecked(rel, BufferGetPage(buf), EI_HIKEY);
	Size		hisize = IndexTupleSize(hikey);
	IndexTuple	result;

	if ((EIPivotFlags(hikey) & ~EI_PIVOT_HAS_TID) != 0 ||
		((EIPivotFlags(hikey) & EI_PIVOT_HAS_TID) &&
		 hisize < MAXALIGN(sizeof(IndexTupleData)) + sizeof(ItemPointerData)) ||
		hisize > EI_PARALLEL_BOUND_SPACE)
		ereport(ERROR,
				(errcode(ERRCODE_INDEX_CORRUPTED),
				 errmsg("index \"%s\" is corrupted: the high key of block %u is not a pivot tuple",
						RelationGetRelationName(rel), BufferGetBlockNumber(buf)),
				 errhint("Please REINDEX it.")));
	memcpy(space, hikey, hisize);
	result = (IndexTuple) space;
	if (EIPivotFlags(hikey) & EI_PIVOT_HAS_TID)
		result->t_tid = *EIPivotGetHeapTID(hikey);
	else
		ItemPointerSet(&result->t_tid, 0, 0);
	return hisize;
}

/*
 * Copy data item off of a standard leaf into space in leaf form: a plain
 * entry as it is, a posting list as its key with its first heap TID in
 * t_tid; return the size.
 */
static Size
ei_bound_from_item(Relation rel, Page page, OffsetNumber off, char *space)
{
	IndexTuple	itup = EIReadTupleChecked(rel, page, off);
	IndexTuple	result = (IndexTuple) space;
	Size		size;

	if (EITupleIsPosting(itup))
	{
		if (!EIPostingBoundsOK(itup))
			EIItemCorrupted(rel, page, off, "a damaged posting list");
		size = EIPostingOffset(itup);
		if (MAXALIGN(size) > EI_PARALLEL_BOUND_SPACE)
			EIItemCorrupted(rel, page, off, "an item larger than an entry may be");
		memcpy(space, itup, size);
		size = MAXALIGN(size);
		result->t_info &= ~(INDEX_SIZE_MASK | EI_POSTING_BIT);
		result->t_info |= size;
		result->t_tid = *EIPostingTID(itup, 0);
		return size;
	}
	size = IndexTupleSize(itup);
	if (size > EI_PARALLEL_BOUND_SPACE)
		EIItemCorrupted(rel, page, off, "an item larger than an entry may be");
	memcpy(space, itup, size);
	return size;
}

/*
 * Return the scan's insertion key (made once per scan) set to a bound in
 * leaf form; a bound without heap TID ((0,0)) gets none, so that entries
 * with its key columns do not lie below it.
 */
static EIScanInsert
ei_bound_key(IndexScanDesc scan, IndexTuple bound)
{
	EIScanOpaque so = (EIScanOpaque) scan->opaque;
	Relation	rel = scan->indexRelation;

	if (so->boundKey == NULL)
	{
		MemoryContext oldcxt = MemoryContextSwitchTo(GetMemoryChunkContext(so));

		so->boundKey = EIMakeScanKey(rel, NULL, true);
		MemoryContextSwitchTo(oldcxt);
	}
	EIRefillScanKey(rel, so->boundKey, bound);
	so->boundKey->nextkey = false;
	if (!ItemPointerIsValid(&bound->t_tid))
		so->boundKey->scantid = NULL;
	return so->boundKey;
}

/*
 * Does the bound (the greatest high key a forward scan read so far) lie
 * above the high key of the non-rightmost leaf page?  Then it stays the
 * bound for the next step.  High keys grow from leaf to leaf, except where
 * a leaf gave entries to its right sibling R after the scan read it and R
 * then shifted part of them on to its own sibling: R's new high key is
 * below the bound, and the entries beyond it were returned already.
 */
static bool
ei_bound_above_hikey(IndexScanDesc scan, IndexTuple bound, Page page)
{
	return EICompare(scan->indexRelation, ei_bound_key(scan, bound), page,
					 EI_HIKEY) > 0;
}

/*
 * Compare a bound's key with data item off of a standard leaf, the item by
 * its first heap TID: > 0 when the item lies below the bound.
 */
static int32
ei_bound_cmp_item(Relation rel, EIScanInsert key, Page page, OffsetNumber off)
{
	IndexTuple	itup = EIReadTupleChecked(rel, page, off);

	if (EITupleIsPosting(itup) && !EIPostingBoundsOK(itup))
		EIItemCorrupted(rel, page, off, "a damaged posting list");
	return EICompareLeafTuple(rel, key, itup);
}

/*
 * Binary search data items low..high of a standard leaf for the first one
 * that does not lie below the bound (ei_bound_cmp_item); high + 1 if none.
 */
static OffsetNumber
ei_bound_search(Relation rel, EIScanInsert key, Page page, OffsetNumber low,
				OffsetNumber high)
{
	high = OffsetNumberNext(high);
	while (high > low)
	{
		OffsetNumber mid = low + ((high - low) / 2);

		if (ei_bound_cmp_item(rel, key, page, mid) > 0)
			low = OffsetNumberNext(mid);
		else
			high = mid;
	}
	return low;
}

/*
 * Does data item off, which lies below the bound, hold heap TIDs at or
 * above it too: a posting list with the bound's key columns whose last
 * TID is not below the bound's?
 */
static bool
ei_bound_splits_list(Relation rel, EIScanInsert key, Page page,
					 OffsetNumber off)
{
	IndexTuple	itup = EIReadTupleChecked(rel, page, off);
	ItemPointer scantid = key->scantid;
	bool		equal;

	if (!EITupleIsPosting(itup) || scantid == NULL)
		return false;
	key->scantid = NULL;
	equal = (EICompareLeafTuple(rel, key, itup) == 0);
	key->scantid = scantid;
	return equal && ItemPointerCompare(EIPostingMaxTID(itup), scantid) >= 0;
}

/*
 * Does the high key h of a left sibling lie below f, the first data item
 * of the leaf we step left from (as read)?  h is given in leaf form, or
 * when NULL as the high key of page.  A high key without heap TID whose
 * key columns equal f's is below f in the tree's order; it is taken as
 * equal when it belongs to the left sibling the leaf had when read
 * (same_left) and that leaf, block rblk, is unchanged since it was read
 * (its LSN still rlsn): the separator a shift writes keeps its heap TID
 * (see src/README.md), so such a high key is not a shift's, and no entry
 * of [h, f) came from there.  That is the common case of a leaf split
 * where the key columns change, which then costs no re-read, only a pin of
 * the leaf for its LSN.  (The LSN rules out a left sibling that split
 * after a shift into the leaf and whose right half, holding the key space
 * down to such a high key, VACUUM then deleted: the unlink changed the
 * leaf's left link, and so its LSN.)
 */
static bool
ei_bound_below(IndexScanDesc scan, IndexTuple h, Page page, IndexTuple f,
			   bool same_left, BlockNumber rblk, XLogRecPtr rlsn)
{
	Relation	rel = scan->indexRelation;
	EIScanInsert key = ei_bound_key(scan, f);
	ItemPointerData ftid = f->t_tid;
	ItemPointer htid;
	int32		cmp;

	key->scantid = NULL;
	if (h != NULL)
	{
		cmp = EICompareLeafTuple(rel, key, h);
		htid = ItemPointerIsValid(&h->t_tid) ? &h->t_tid : NULL;
	}
	else
	{
		IndexTuple	hikey = EIReadTupleChecked(rel, page, EI_HIKEY);

		cmp = EICompare(rel, key, page, EI_HIKEY);
		htid = (EIPivotFlags(hikey) & EI_PIVOT_HAS_TID) ?
			EIPivotGetHeapTID(hikey) : NULL;
	}
	if (cmp != 0)
		return cmp > 0;
	if (!ItemPointerIsValid(&ftid))
		return false;
	if (htid == NULL)
		return !same_left || ei_debug_fault == EI_FAULT_SCAN_BOUNDS ||
			!ei_leaf_unchanged(rel, rblk, rlsn);
	return ItemPointerCompare(&ftid, htid) > 0;
}

/*
 * Is block blkno's page LSN still lsn?  Read under a pin alone: the caller
 * holds a lock on the page's left sibling, and waits for no lock here.
 */
static bool
ei_leaf_unchanged(Relation rel, BlockNumber blkno, XLogRecPtr lsn)
{
	Buffer		buf;
	bool		result;

	if (!RelationNeedsWAL(rel) || !BlockNumberIsValid(blkno) ||
		XLogRecPtrIsInvalid(lsn))
		return false;
	buf = ReadBuffer(rel, blkno);
	result = (BufferGetLSNAtomic(buf) == lsn);
	ReleaseBuffer(buf);
	return result;
}

/*
 * Record the first data item f of the locked leaf the scan is reading, as
 * read, in currPos (a backward scan, after its left step, compares it with
 * the left sibling's high key); with publish (a parallel backward scan
 * without key ranges, seized) also in the shared state, for the
 * participant that steps left from here.  No
 * data item: f is the high key, or plus infinity on the rightmost leaf; a
 * policy's leaf: none.  After a re-read (ei_move_right_below) f is at
 * most the re-read's low bound, below which all of [low, old f) was read.
 */
static void
ei_pos_record_first(IndexScanDesc scan, Page page, EIPageOpaque opaque,
					bool reread, bool publish)
{
	EIScanOpaque so = (EIScanOpaque) scan->opaque;
	Relation	rel = scan->indexRelation;
	Buffer		buf = so->currPos.buf;
	OffsetNumber minoff = EI_FIRST_DATA(opaque);
	char	   *space = ei_bound_space(scan, &so->currBounds) + EI_POS_FIRST;

	so->currPos.firstIsBound = false;
	if (opaque->ei_flags & EI_POLICY_LEAF)
		so->currPos.firstSize = 0;
	else if (minoff <= PageGetMaxOffsetNumber(page))
		so->currPos.firstSize = ei_bound_from_item(rel, page, minoff, space);
	else if (!EI_RIGHTMOST(opaque))
		so->currPos.firstSize = ei_bound_from_hikey(rel, buf, space);
	else
		so->currPos.firstSize = EI_BOUND_INFINITY;

	if (reread)
	{
		IndexTuple	low = (IndexTuple) (so->scratchBounds + EI_POS_FIRST);

		if (so->currPos.firstSize == 0 ||
			so->currPos.firstSize == EI_BOUND_INFINITY ||
			EICompareLeafTuple(rel, ei_bound_key(scan, low),
							   (IndexTuple) space) <= 0)
		{
			so->currPos.firstSize = IndexTupleSize(low);
			memcpy(space, low, so->currPos.firstSize);
		}
	}

	if (publish)
	{
		EIParallelScanDesc ps = ei_parallel_desc(scan);

		ps->lowPage = BufferGetBlockNumber(buf);
		ps->lowPrev = opaque->ei_prev;
		ps->lowLsn = BufferGetLSNAtomic(buf);
		ps->lowInf = (so->currPos.firstSize == EI_BOUND_INFINITY);
		ps->lowSize = ps->lowInf ? 0 : so->currPos.firstSize;
		if (ps->lowSize > 0)
			memcpy(ps->low, space, ps->lowSize);
	}
}

/*
 * Set currPos's f to a copy of bound (a forward read that skipped the items
 * below it: they were returned with an earlier leaf, not this one).
 */
static void
ei_pos_set_first(IndexScanDesc scan, IndexTuple bound)
{
	EIScanOpaque so = (EIScanOpaque) scan->opaque;
	char	   *space = ei_bound_space(scan, &so->currBounds) + EI_POS_FIRST;

	so->currPos.firstSize = IndexTupleSize(bound);
	memmove(space, bound, so->currPos.firstSize);
	so->currPos.firstIsBound = true;
}

/*
 * Record the high key of the locked leaf the scan has read in currPos, as
 * read, if the scan may step right from it (the bound of a forward step).
 */
static void
ei_pos_record_hikey(IndexScanDesc scan, Buffer buf, EIPageOpaque opaque)
{
	EIScanOpaque so = (EIScanOpaque) scan->opaque;

	if (EI_RIGHTMOST(opaque) || !so->currPos.moreRight || !so->moves)
		so->currPos.hikeySize = 0;
	else
		so->currPos.hikeySize =
			ei_bound_from_hikey(scan->indexRelation, buf,
								ei_bound_space(scan, &so->currBounds) +
								EI_POS_HIKEY);
}

/*
 * Copy the bounds of currPos to markPos's bound space (to_mark), or back;
 * the caller copies the position itself.  Only the bytes in use move.
 */
static void
ei_pos_copy_bounds(IndexScanDesc scan, bool to_mark)
{
	EIScanOpaque so = (EIScanOpaque) scan->opaque;
	EIScanPos	src = to_mark ? &so->currPos : &so->markPos;
	char	   *from = to_mark ? so->currBounds : so->markBounds;
	char	   *to;

	if (src->hikeySize == 0 &&
		(src->firstSize == 0 || src->firstSize == EI_BOUND_INFINITY))
		return;
	to = ei_bound_space(scan, to_mark ? &so->markBounds : &so->currBounds);
	memcpy(to + EI_POS_HIKEY, from + EI_POS_HIKEY, src->hikeySize);
	if (src->firstSize != EI_BOUND_INFINITY)
		memcpy(to + EI_POS_FIRST, from + EI_POS_FIRST, src->firstSize);
}

/*
 * A backward scan has stepped left from origblk to the locked live leaf
 * buf: may entries have moved from it to the leaf read last since that
 * was read, that is, does buf's high key lie below that leaf's f?  If so,
 * leave f in the scratch space (EI_POS_HIKEY; so->scratchInf for plus
 * infinity) and buf's high key, in leaf form, as the re-read's low bound
 * (EI_POS_FIRST).  f comes from currPos, or in a parallel scan from the
 * shared state (the scan is seized).  One comparison when nothing moved.
 */
static bool
ei_left_below_first(IndexScanDesc scan, Buffer buf, BlockNumber origblk)
{
	EIScanOpaque so = (EIScanOpaque) scan->opaque;
	Page		page = BufferGetPage(buf);
	EIPageOpaque opaque = EIPageGetOpaque(page);
	char	   *scratch;
	IndexTuple	f = NULL;
	Size		fsize = 0;
	bool		inf;
	bool		same_left;
	XLogRecPtr	rlsn;

	/* a policy's leaf gives no entries away; nothing is right of the last */
	if ((opaque->ei_flags & EI_POLICY_LEAF) || EI_RIGHTMOST(opaque))
		return false;

	if (ei_scan_parallel(scan))
	{
		EIParallelScanDesc ps = ei_parallel_desc(scan);

		inf = ps->lowInf;
		if (!inf && ps->lowSize == 0)
			return false;
		if (ps->lowSize > EI_PARALLEL_BOUND_SPACE)
			elog(ERROR, "parallel scan of index \"%s\" has a bound of %zu bytes",
				 RelationGetRelationName(scan->indexRelation), ps->lowSize);
		same_left = (ps->lowPage == origblk &&
					 ps->lowPrev == BufferGetBlockNumber(buf));
		rlsn = ps->lowLsn;
		scratch = ei_bound_space(scan, &so->scratchBounds);
		if (!inf)
		{
			memcpy(scratch + EI_POS_HIKEY, ps->low, ps->lowSize);
			f = (IndexTuple) (scratch + EI_POS_HIKEY);
		}
	}
	else
	{
		inf = (so->currPos.firstSize == EI_BOUND_INFINITY);
		if (!inf && so->currPos.firstSize == 0)
			return false;
		/*
		 * f recorded from a skip is a bound, not an item of the leaf: the
		 * leaf held [h, f) when read, so the shortcut does not apply
		 */
		same_left = (so->currPos.currPage == origblk &&
					 so->currPos.prevPage == BufferGetBlockNumber(buf) &&
					 !so->currPos.firstIsBound);
		rlsn = so->currPos.lsn;
		if (!inf)
		{
			f = (IndexTuple) (so->currBounds + EI_POS_FIRST);
			fsize = so->currPos.firstSize;
		}
	}

	if (!inf && !ei_bound_below(scan, NULL, page, f, same_left, origblk, rlsn))
		return false;

	/* (ei_read_page overwrites currPos's f: the re-read keeps a copy) */
	scratch = ei_bound_space(scan, &so->scratchBounds);
	if (fsize > 0)
		memcpy(scratch + EI_POS_HIKEY, f, fsize);
	so->scratchInf = inf;
	(void) ei_bound_from_hikey(scan->indexRelation, buf, scratch + EI_POS_FIRST);
	return true;
}

/*
 * Move right from the locked leaf buf, whose high key lies below f, to the
 * leaf that now holds the entries just below f (the first live leaf whose
 * high key is not below f, or the rightmost), and return it locked.  On
 * the way the low bound in the scratch space becomes the high key of the
 * last live leaf passed: the entries of [low, f) are all on the leaf
 * returned.  Normally that is the leaf we stepped left from; it may have
 * split or given entries to its own right sibling since, or have been
 * deleted (its key space then is its right sibling's).
 */
static Buffer
ei_move_right_below(IndexScanDesc scan, Buffer buf)
{
	Relation	rel = scan->indexRelation;
	EIScanOpaque so = (EIScanOpaque) scan->opaque;
	EIScanInsert key = NULL;
	uint64		hops = 0;
	bool		first = true;

	if (!so->scratchInf)
		key = ei_bound_key(scan, (IndexTuple) (so->scratchBounds + EI_POS_HIKEY));

	for (;;)
	{
		Page		page = BufferGetPage(buf);
		EIPageOpaque opaque = EIPageGetOpaque(page);

		if (!EI_IS_LEAF(opaque) || opaque->ei_level != 0)
			ereport(ERROR,
					(errcode(ERRCODE_INDEX_CORRUPTED),
					 errmsg("index \"%s\" is corrupted: right link to block %u leaves the leaf level",
							RelationGetRelationName(rel),
							BufferGetBlockNumber(buf))));
		EICheckHops(rel, ++hops, BufferGetBlockNumber(buf));

		if (!EI_IGNORE(opaque))
		{
			if (!first &&
				(EI_RIGHTMOST(opaque) ||
				 (key != NULL && EICompare(rel, key, page, EI_HIKEY) <= 0)))
				return buf;
			/* (the first leaf's high key is the low bound already) */
			if (!first)
				(void) ei_bound_from_hikey(rel, buf,
										   so->scratchBounds + EI_POS_FIRST);
		}
		if (EI_RIGHTMOST(opaque))
			ereport(ERROR,
					(errcode(ERRCODE_INDEX_CORRUPTED),
					 errmsg("index \"%s\" is corrupted: block %u, a deleted leaf, has no right sibling",
							RelationGetRelationName(rel),
							BufferGetBlockNumber(buf))));
		first = false;
		buf = EIRelAndGetBuf(rel, buf, opaque->ei_next, EI_READ);
	}
}

/* ----------------------------------------------------------------
 * Reading a leaf page
 * ----------------------------------------------------------------
 */

/*
 * Test an index tuple against every scan key.  Return true if it matches;
 * clear *continuescan when a failing key shows that no later tuple in this
 * direction can match either.
 *
 * With advance, the tuple comes from the scan's own reading in the scan
 * direction, and the positioning array keys move with it: a tuple beyond
 * their current combination moves them to the first combination at or
 * beyond it (arrays->advanced is set when that lies beyond the tuple).
 * Without advance, array keys are only tested for membership.
 */
static bool
ei_check_keys(IndexScanDesc scan, IndexTuple itup, ScanDirection dir,
			  bool *continuescan, bool advance)
{
	EIScanOpaque so = (EIScanOpaque) scan->opaque;
	EIScanArrays *arrays = so->arrays;
	TupleDesc	tupdesc = RelationGetDescr(scan->indexRelation);
	bool		forward = ScanDirectionIsForward(dir);
	int			restarts = 0;
	int			i;

	*continuescan = true;
	if (arrays != NULL)
		arrays->advanced = false;

restart:
	for (i = 0; i < so->numberOfKeys; i++)
	{
		ScanKey		key = &so->keyData[i];
		bool		required = forward ? so->keyRequiredFwd[i] : so->keyRequiredBwd[i];
		Datum		datum;
		bool		isnull;

		datum = index_getattr(itup, key->sk_attno, tupdesc, &isnull);

		if (key->sk_flags & SK_SEARCHARRAY)
		{
			EIScanArrayKey *ak = &arrays->keys[arrays->arrayOfKey[i]];
			bool		equal;
			int			c;

			if (!advance || !ak->positions)
			{
				/* a filter: is the value one of the elements? */
				if (isnull)
					return false;
				(void) ei_array_search(ak, -1, datum, false,
									   ForwardScanDirection, &equal);
				if (!equal)
					return false;
				continue;
			}

			c = ei_order(&ak->cmp, ak->collation, ak->desc, ak->nulls_first,
						 datum, isnull, ak->elems[ak->cur], false);
			if (!forward)
				c = -c;
			if (c == 0)
				continue;
			if (c < 0)
				return false;	/* before the current combination */

			/* beyond it: move the array keys to the tuple */
			switch (ei_arrays_locate(scan, itup, dir, 0))
			{
				case EI_ARRAYS_DONE:
					*continuescan = false;
					return false;
				case EI_ARRAYS_AHEAD:
					arrays->advanced = true;
					return false;
				case EI_ARRAYS_MATCH:
					if (restarts++ > 0)
						elog(ERROR, "array keys of index \"%s\" did not settle on a tuple",
							 RelationGetRelationName(scan->indexRelation));
					goto restart;
			}
		}

		if (key->sk_flags & SK_ISNULL)
		{
			/* IS NULL or IS NOT NULL */
			if ((key->sk_flags & SK_SEARCHNULL) ? isnull : !isnull)
				continue;
			if (required &&
				ei_required_failed(scan, itup, dir, key->sk_attno, advance))
				*continuescan = false;
			return false;
		}

		if (isnull)
		{
			/*
			 * An ordinary key fails on NULL.  Once a scan reaches the NULLs
			 * of a required column from its non-NULL side, every later item
			 * that still passes the earlier keys is NULL there too, whatever
			 * the key's direction.
			 */
			if (so->keyRequiredFwd[i] || so->keyRequiredBwd[i])
			{
				bool		nulls_first = (key->sk_flags & EI_SK_NULLS_FIRST) != 0;

				if ((nulls_first ? !forward : forward) &&
					ei_required_failed(scan, itup, dir, key->sk_attno, advance))
					*continuescan = false;
			}
			return false;
		}

		if (!DatumGetBool(FunctionCall2Coll(&key->sk_func, key->sk_collation,
											datum, key->sk_argument)))
		{
			if (required &&
				ei_required_failed(scan, itup, dir, key->sk_attno, advance))
				*continuescan = false;
			return false;
		}
	}

	return true;
}

/*
 * Test the tuple that ends a leaf in the scan direction (the high key
 * forward) against the scan's keys: *continuescan is cleared when no later
 * leaf can match, or when the array keys moved beyond it, and then the
 * scan descends to them again (arrays->needPrimScan).
 */
static bool
ei_check_final(IndexScanDesc scan, IndexTuple itup, ScanDirection dir,
			   bool *continuescan)
{
	EIScanOpaque so = (EIScanOpaque) scan->opaque;
	bool		result = ei_check_keys(scan, itup, dir, continuescan, true);

	if (so->arrays != NULL && so->arrays->advanced)
	{
		so->arrays->advanced = false;
		so->arrays->needPrimScan = true;
		so->arrays->primScanDir = dir;
		*continuescan = false;
	}
	return result;
}

/*
 * Test a leaf's high key against the scan's keys, for a policy reading its
 * own leaf kind in the scan (see ei_check_final).
 */
bool
EIScanCheckKeys(IndexScanDesc scan, IndexTuple itup, ScanDirection dir,
				bool *continuescan)
{
	return ei_check_final(scan, itup, dir, continuescan);
}

/*
 * Does an index tuple match every scan key?  For entries a policy keeps
 * outside the tree; leaves the scan's position alone.
 */
bool
EIScanMatchKeys(IndexScanDesc scan, IndexTuple itup)
{
	bool		continuescan;

	return ei_check_keys(scan, itup, ForwardScanDirection, &continuescan,
						 false);
}

/*
 * Copy an index tuple of size bytes to dst, both MAXALIGNed: word by word
 * when the size is a whole number of words, as it is for every tuple
 * index_form_tuple makes.  The compiler inlines a memcpy of unknown small
 * size as "rep movsq", whose start-up cost, paid once per saved item, was
 * 5% of an index-only scan with a 1000-key "= ANY" array on this machine.
 */
static inline void
ei_copy_tuple(char *dst, IndexTuple itup, Size size)
{
	if (size % sizeof(uint64) == 0)
	{
		uint64	   *to = (uint64 *) dst;
		const uint64 *from = (const uint64 *) itup;

		for (Size w = 0; w < size / sizeof(uint64); w++)
			to[w] = from[w];
	}
	else
		memcpy(dst, itup, size);
}

/*
 * Save a matching item (and for index-only scans a copy of the tuple) in
 * currPos at itemIndex.
 */
void
EIScanSaveItem(EIScanOpaque so, int itemIndex, OffsetNumber offnum,
			 IndexTuple itup)
{
	EIScanPosItem *item = &so->currPos.items[itemIndex];

	item->heapTid = itup->t_tid;
	item->indexOffset = offnum;
	if (so->currTuples != NULL)
	{
		Size		itupsz = IndexTupleSize(itup);

		/*
		 * A policy's leaf, whose entries are not bounded by a page's tuple
		 * space, and a leaf with posting lists (a key copy per TID,
		 * ei_save_entry) can need more: grow both workspaces (the mark's if
		 * there is one), whose items are offsets.  No pointer into them is
		 * held while a page is read.
		 */
		if (so->currPos.nextTupleOffset + MAXALIGN(itupsz) > so->tuplesSize)
		{
			Size		newsize = Max(so->tuplesSize * 2,
									  so->currPos.nextTupleOffset +
									  MAXALIGN(itupsz));

			so->currTuples = repalloc_huge(so->currTuples, newsize);
			if (so->markTuples != NULL)
				so->markTuples = repalloc_huge(so->markTuples, newsize);
			so->tuplesSize = newsize;
		}
		item->tupleOffset = (uint32) so->currPos.nextTupleOffset;
		ei_copy_tuple(so->currTuples + so->currPos.nextTupleOffset, itup, itupsz);
		so->currPos.nextTupleOffset += MAXALIGN(itupsz);
	}
}

/*
 * Save a matching leaf entry of a standard leaf in currPos: a plain one as
 * one item at itemIndex (forward) or itemIndex - 1 (backward), a posting
 * list as one item per TID, ascending in the array either way, each with
 * a plain copy of the key and its TID for index-only scans and merges.
 * With cut, only a list's TIDs at or above it (forward) or below it
 * (backward) are saved: the others lie beyond a bound (ei_read_page).
 * Returns the next itemIndex.  A damaged list is refused before its TIDs
 * are read.
 */
static int
ei_save_entry(IndexScanDesc scan, int itemIndex, Page page,
			  OffsetNumber offnum, IndexTuple itup, bool forward,
			  ItemPointer cut)
{
	EIScanOpaque so = (EIScanOpaque) scan->opaque;
	union
	{
		IndexTupleData itup;
		char		data[EI_MAX_POSTING_SIZE];
	}			base;
	int			ntids;
	Size		keysize;
	const char *what;

	if (!EITupleIsPosting(itup))
	{
		if (forward)
			EIScanSaveItem(so, itemIndex++, offnum, itup);
		else
			EIScanSaveItem(so, --itemIndex, offnum, itup);
		return itemIndex;
	}

	if ((what = EIPostingProblem(itup)) != NULL)
		EIItemCorrupted(scan->indexRelation, page, offnum, what);
	ntids = EIPostingCount(itup);
	keysize = EIPostingOffset(itup);
	memcpy(base.data, itup, keysize);
	base.itup.t_info &= ~(INDEX_SIZE_MASK | EI_POSTING_BIT);
	base.itup.t_info |= MAXALIGN(keysize);

	for (int i = 0; i < ntids; i++)
	{
		int			t = forward ? i : ntids - 1 - i;

		base.itup.t_tid = *EIPostingTID(itup, t);
		if (cut != NULL &&
			(ItemPointerCompare(&base.itup.t_tid, cut) < 0) == forward)
			continue;
		if (forward)
			EIScanSaveItem(so, itemIndex++, offnum, &base.itup);
		else
			EIScanSaveItem(so, --itemIndex, offnum, &base.itup);
	}
	return itemIndex;
}

/*
 * After a leaf item moved the array keys on: skip to their next combination
 * on this page (limit: maxoff forward, minoff backward), or stop reading the
 * page when they lie beyond it, and the scan descends to them.  Returns the
 * offset to go on from; clears *continuescan to stop.
 */
static OffsetNumber
ei_arrays_next_on_page(IndexScanDesc scan, Page page, ScanDirection dir,
					   OffsetNumber offnum, OffsetNumber limit,
					   bool *continuescan)
{
	EIScanOpaque so = (EIScanOpaque) scan->opaque;

	if (ei_arrays_beyond_page(scan, page, dir))
	{
		so->arrays->needPrimScan = true;
		so->arrays->primScanDir = dir;
		*continuescan = false;
		return offnum;
	}
	return ei_arrays_skip(scan, page, dir, offnum, limit);
}

/*
 * Collect the matching items of the pinned and share-locked leaf
 * so->currPos.buf, from offnum on in the scan direction; return whether
 * there were any.
 *
 * Items are stored in page order in currPos.items (a backward scan fills
 * the array from its end), so that a scan that changes direction can walk
 * back through them.  moreRight / moreLeft are cleared when a required key
 * shows that the scan is over in that direction.
 */
static bool
ei_read_page(IndexScanDesc scan, ScanDirection dir, OffsetNumber offnum,
			 EIReadMode mode)
{
	EIScanOpaque so = (EIScanOpaque) scan->opaque;
	const EITreePolicy *policy = EIGetPolicyChecked(scan->indexRelation);
	Buffer		buf = so->currPos.buf;
	Page		page = BufferGetPage(buf);
	EIPageOpaque opaque = EIPageGetOpaque(page);
	OffsetNumber minoff = EI_FIRST_DATA(opaque);
	OffsetNumber maxoff = PageGetMaxOffsetNumber(page);
	bool		continuescan = true;
	bool		found;
	int			itemIndex;
	bool		forward = ScanDirectionIsForward(dir);
	bool		parallel = ei_scan_parallel(scan);
	bool		ranges = parallel && ei_parallel_ranges(scan);
	IndexTuple	bound = NULL;
	OffsetNumber cutoff = InvalidOffsetNumber;
	ItemPointerData cut;
	bool		skipped = false;	/* the forward skip passed items */

	Assert(BufferIsValid(buf));

	if (!EI_IS_LEAF(opaque) || opaque->ei_level != 0)
		ereport(ERROR,
				(errcode(ERRCODE_INDEX_CORRUPTED),
				 errmsg("index \"%s\" is corrupted: block %u, read as a leaf, is at level %u%s",
						RelationGetRelationName(scan->indexRelation),
						BufferGetBlockNumber(buf), opaque->ei_level,
						EI_IS_LEAF(opaque) ? "" : " without the leaf flag")));

	/*
	 * Every leaf a scan reads is locked for SERIALIZABLE, with the matches
	 * or without: the first one a descent reaches is where the keys the
	 * scan looks for would be, also when it finds none (the tree always
	 * has a root leaf, so there is no empty index to lock instead).  A
	 * no-op unless the scan's snapshot is a serializable transaction's.
	 */
	PredicateLockPage(scan->indexRelation, BufferGetBlockNumber(buf),
					  scan->xs_snapshot);

	/*
	 * A forward step by the right link skips the items below the high key
	 * of the leaf read last (see "Bounds of leaves as read"): currPos's, or
	 * in a parallel scan the one in the shared state, which we replace with
	 * ours.  (A scan that takes key ranges drops them in
	 * ei_parallel_trim.)  A backward scan records this leaf's f before a
	 * parallel one lets the next participant step left from here.
	 */
	if (forward && !ranges && so->moves)
	{
		if (parallel)
		{
			EIParallelScanDesc ps = ei_parallel_desc(scan);

			if (mode == EI_READ_STEP && ps->lowSize > 0)
			{
				char	   *scratch = ei_bound_space(scan, &so->scratchBounds);

				if (ps->lowSize > EI_PARALLEL_BOUND_SPACE)
					elog(ERROR, "parallel scan of index \"%s\" has a bound of %zu bytes",
						 RelationGetRelationName(scan->indexRelation),
						 ps->lowSize);
				memcpy(scratch + EI_POS_HIKEY, ps->low, ps->lowSize);
				bound = (IndexTuple) (scratch + EI_POS_HIKEY);
			}
			/* the greatest bound so far stays (ei_bound_above_hikey) */
			if (!(bound != NULL && !EI_RIGHTMOST(opaque) &&
				  ei_bound_above_hikey(scan, bound, page)))
				ps->lowSize = EI_RIGHTMOST(opaque) ? 0 :
					ei_bound_from_hikey(scan->indexRelation, buf, ps->low);
		}
		else if (mode == EI_READ_STEP && so->currPos.hikeySize > 0)
			bound = (IndexTuple) (so->currBounds + EI_POS_HIKEY);
	}
	else if (!forward && so->moves)
		ei_pos_record_first(scan, page, opaque, mode == EI_READ_REREAD,
							parallel && !ranges);
	else if (!forward)
		so->currPos.firstSize = 0;

	/*
	 * Let the next participant move on before we work on this page; a
	 * forward scan that merges entries from outside the tree takes the
	 * page's key range first.
	 */
	if (parallel)
	{
		if (!ranges)
			ei_parallel_release(scan, ScanDirectionIsForward(dir) ?
								opaque->ei_next : BufferGetBlockNumber(buf),
								BufferGetBlockNumber(buf));
		else if (ScanDirectionIsForward(dir))
		{
			ei_parallel_take_range(scan, page, opaque);
			ei_parallel_release(scan, opaque->ei_next,
								BufferGetBlockNumber(buf));
		}
		else
		{
			/* the caller takes the range once the page is unlocked */
			EIScanMerge *sb = so->extra;

			sb->hi = EI_RIGHTMOST(opaque) ? NULL :
				ei_high_key_entry(scan->indexRelation, buf, sb->hi_space,
								  &sb->hi_entry, sb->esort);
		}
	}

	so->currPos.currPage = BufferGetBlockNumber(buf);
	so->currPos.nextPage = opaque->ei_next;
	so->currPos.prevPage = opaque->ei_prev;
	so->currPos.lsn = BufferGetLSNAtomic(buf);
	so->currPos.nextTupleOffset = 0;
	so->currPos.recheck = false;

	/*
	 * Remember that the leaf is read, if the policy wants to know (the
	 * elastic policy converts hot leaves last).  Only a hint, set under our
	 * share lock without WAL like the LP_DEAD hints, and only once per
	 * VACUUM cycle, so reads seldom dirty the page.
	 */
	if (!(opaque->ei_flags & EI_ACCESSED) && policy->mark_leaf_reads != NULL &&
		policy->mark_leaf_reads(scan->indexRelation,
								(opaque->ei_flags & EI_POLICY_LEAF) != 0))
	{
		opaque->ei_flags |= EI_ACCESSED;
		MarkBufferDirtyHint(buf, true);
	}

	if (opaque->ei_flags & EI_POLICY_LEAF)
	{
		const EILeafKindOps *leafops = policy->leaf;

		if (leafops == NULL)
			ereport(ERROR,
					(errcode(ERRCODE_INDEX_CORRUPTED),
					 errmsg("index \"%s\" has a leaf of a kind its access method does not have in block %u",
							RelationGetRelationName(scan->indexRelation),
							so->currPos.currPage)));
		if (so->arrays != NULL)
			so->arrays->needPrimScan = false;
		if (mode == EI_READ_REREAD)
		{
			/* none of [low, f) can be here (see "Bounds of leaves as read") */
			so->currPos.firstItem = 0;
			so->currPos.lastItem = -1;
			so->currPos.itemIndex = 0;
			found = false;
		}
		else
			found = leafops->read(scan, dir);
		if (!(forward && !parallel && bound != NULL && !EI_RIGHTMOST(opaque) &&
			  so->currPos.moreRight && ei_bound_above_hikey(scan, bound, page)))
			ei_pos_record_hikey(scan, buf, opaque);
		if (forward)
			so->currPos.firstSize = 0;
		ei_arrays_after_page(scan, dir);
		return ei_parallel_trim(scan, dir, found);
	}

	if (so->arrays != NULL)
		so->arrays->needPrimScan = false;

	if (ScanDirectionIsForward(dir))
	{
		offnum = Max(offnum, minoff);

		/*
		 * Entries below the bound were returned with the leaf read last:
		 * one comparison when the first item is not below it, else a binary
		 * search; of a posting list that holds TIDs on both sides, only
		 * those at or above the bound's.
		 */
		if (bound != NULL && offnum <= maxoff)
		{
			EIScanInsert key = ei_bound_key(scan, bound);

			if (ei_bound_cmp_item(scan->indexRelation, key, page, offnum) > 0 ||
				ei_debug_fault == EI_FAULT_SCAN_BOUNDS)
			{
				OffsetNumber first = ei_bound_search(scan->indexRelation, key,
													 page, offnum, maxoff);

				if (first > offnum &&
					ei_bound_splits_list(scan->indexRelation, key, page,
										 OffsetNumberPrev(first)))
				{
					first = OffsetNumberPrev(first);
					cutoff = first;
					cut = *key->scantid;
				}
				skipped = (first > offnum || OffsetNumberIsValid(cutoff));
				offnum = first;
			}
		}

		itemIndex = 0;
		for (; offnum <= maxoff; offnum = OffsetNumberNext(offnum))
		{
			ItemId		iid = PageGetItemId(page, offnum);
			IndexTuple	itup;

			if (scan->ignore_killed_tuples && ItemIdIsDead(iid))
				continue;

			itup = EIReadTupleChecked(scan->indexRelation, page, offnum);
			if (ei_check_keys(scan, itup, dir, &continuescan, true))
				itemIndex = ei_save_entry(scan, itemIndex, page, offnum, itup,
										  true,
										  offnum == cutoff ? &cut : NULL);
			if (continuescan && so->arrays != NULL && so->arrays->advanced)
				offnum = ei_arrays_next_on_page(scan, page, dir, offnum, maxoff,
												&continuescan);
			if (!continuescan)
				break;
		}

		/*
		 * Every item to the right is >= the high key, so if the high key
		 * fails a required key we need not visit the right sibling.
		 */
		if (continuescan && !EI_RIGHTMOST(opaque))
			(void) ei_check_final(scan,
								  EIReadTupleChecked(scan->indexRelation, page,
													 EI_HIKEY), dir,
								  &continuescan);

		if (!continuescan)
			so->currPos.moreRight = false;

		so->currPos.firstItem = 0;
		so->currPos.lastItem = itemIndex - 1;
		so->currPos.itemIndex = 0;

		/*
		 * The bounds of this leaf, for the next step either way.  After a
		 * skip, f is the bound, not the first item: the items in between
		 * were not saved, and a scroll cursor that turns back must read
		 * them on the leaf they were returned from (the left step finds
		 * that leaf's high key below f).  Set before the high key, which
		 * may overwrite the bound.  A forward step keeps the greatest high
		 * key so far (ei_bound_above_hikey), which only a leaf whose first
		 * item lay below the bound, or an empty one, can fall short of.
		 */
		if (so->moves && so->currPos.moreLeft && skipped)
			ei_pos_set_first(scan, bound);
		else if (so->moves && so->currPos.moreLeft)
			ei_pos_record_first(scan, page, opaque, false, false);
		else
			so->currPos.firstSize = 0;
		if (!(!parallel && bound != NULL && !EI_RIGHTMOST(opaque) &&
			  so->currPos.moreRight &&
			  (skipped || PageGetMaxOffsetNumber(page) < minoff) &&
			  ei_bound_above_hikey(scan, bound, page)))
			ei_pos_record_hikey(scan, buf, opaque);
	}
	else
	{
		/*
		 * A re-read returns the entries below f (kept in the scratch space
		 * by ei_left_below_first), from the last data item below it; of a
		 * posting list that holds TIDs on both sides, only those below f's.
		 */
		if (mode == EI_READ_REREAD && !so->scratchInf)
		{
			EIScanInsert key = ei_bound_key(scan, (IndexTuple)
											(so->scratchBounds + EI_POS_HIKEY));

			offnum = OffsetNumberPrev(ei_bound_search(scan->indexRelation, key,
													  page, minoff, maxoff));
			if (offnum >= minoff &&
				ei_bound_splits_list(scan->indexRelation, key, page, offnum))
			{
				cutoff = offnum;
				cut = *key->scantid;
			}
		}

		itemIndex = EI_MAX_ITEMS_PER_PAGE;
		for (offnum = Min(offnum, maxoff); offnum >= minoff;
			 offnum = OffsetNumberPrev(offnum))
		{
			ItemId		iid = PageGetItemId(page, offnum);
			IndexTuple	itup;
			bool		alive = true;
			bool		passes;

			/*
			 * Skip a killed item, except the first data item: testing it
			 * anyway may tell us that the left sibling has no matches.
			 */
			if (scan->ignore_killed_tuples && ItemIdIsDead(iid))
			{
				if (offnum > minoff)
					continue;
				alive = false;
			}

			itup = EIReadTupleChecked(scan->indexRelation, page, offnum);
			passes = ei_check_keys(scan, itup, dir, &continuescan, true);
			if (passes && alive)
				itemIndex = ei_save_entry(scan, itemIndex, page, offnum, itup,
										  false,
										  offnum == cutoff ? &cut : NULL);
			if (continuescan && so->arrays != NULL && so->arrays->advanced)
				offnum = ei_arrays_next_on_page(scan, page, dir, offnum, minoff,
												&continuescan);
			if (!continuescan)
			{
				so->currPos.moreLeft = false;
				break;
			}
		}

		so->currPos.firstItem = itemIndex;
		so->currPos.lastItem = EI_MAX_ITEMS_PER_PAGE - 1;
		so->currPos.itemIndex = EI_MAX_ITEMS_PER_PAGE - 1;

		/*
		 * A re-read saved only the items below f; the leaf's items from f
		 * on were returned before.  A scroll cursor that turns forward
		 * must get them again: its step right reads this leaf again,
		 * skipping below f.
		 */
		if (mode == EI_READ_REREAD && !so->scratchInf && so->currPos.moreRight)
		{
			IndexTuple	f = (IndexTuple) (so->scratchBounds + EI_POS_HIKEY);

			so->currPos.nextPage = so->currPos.currPage;
			so->currPos.hikeySize = IndexTupleSize(f);
			memcpy(ei_bound_space(scan, &so->currBounds) + EI_POS_HIKEY, f,
				   so->currPos.hikeySize);
		}
		else
			ei_pos_record_hikey(scan, buf, opaque);
	}

	ei_arrays_after_page(scan, dir);
	return ei_parallel_trim(scan, dir,
							so->currPos.firstItem <= so->currPos.lastItem);
}


/*
 * Convert a scan key's argument to the type of index column col (from 0),
 * so that it can be normalized: the same type, or an integer of another
 * width that the column's type can hold.  Returns false when it cannot
 * (then the key gives no bound or filter; it is still checked on every
 * entry).  Policies use it for their own bounds and filters.
 */
bool
EIScanKeyValueAsColumn(Relation rel, ScanKey key, int col, Datum *value)
{
	Oid			coltype = rel->rd_opcintype[col];
	Oid			argtype = key->sk_subtype;
	int64		v;

	if (argtype == InvalidOid || argtype == coltype)
	{
		*value = key->sk_argument;
		return true;
	}
	switch (argtype)
	{
		case INT2OID:
			v = DatumGetInt16(key->sk_argument);
			break;
		case INT4OID:
			v = DatumGetInt32(key->sk_argument);
			break;
		case INT8OID:
			v = DatumGetInt64(key->sk_argument);
			break;
		default:
			return false;
	}
	switch (coltype)
	{
		case INT2OID:
			if (v < PG_INT16_MIN || v > PG_INT16_MAX)
				return false;
			*value = Int16GetDatum((int16) v);
			return true;
		case INT4OID:
			if (v < PG_INT32_MIN || v > PG_INT32_MAX)
				return false;
			*value = Int32GetDatum((int32) v);
			return true;
		case INT8OID:
			*value = Int64GetDatum(v);
			return true;
		default:
			return false;
	}
}

/* ----------------------------------------------------------------
 * Stepping between pages
 * ----------------------------------------------------------------
 */

/*
 * Return the left sibling of origblk, share-locked, or InvalidBuffer when
 * origblk is the leftmost page.
 *
 * leftblk is origblk's left link as seen when origblk was read, trusted
 * only if leftknown.  The left sibling may have split since then, so we
 * move right from it until we find the page whose right link is origblk.
 * If a few hops do not find it, we re-read origblk for a fresher left link
 * (or, if origblk was deleted, continue from the live page that took over
 * its key space).  The returned page may be half-dead; the caller skips it.
 */
static Buffer
ei_walk_left(Relation rel, BlockNumber origblk, BlockNumber leftblk,
			 bool leftknown)
{
	Buffer		buf;
	Page		page;
	EIPageOpaque opaque;

	if (!leftknown)
	{
		buf = EIGetBuf(rel, origblk, EI_READ);
		leftblk = EIPageGetOpaque(BufferGetPage(buf))->ei_prev;
		EIRelBuf(rel, buf);
	}

	for (;;)
	{
		int			hops;

		if (!BlockNumberIsValid(leftblk))
			return InvalidBuffer;

		CHECK_FOR_INTERRUPTS();

		buf = EIGetBuf(rel, leftblk, EI_READ);
		for (hops = 0;; hops++)
		{
			page = BufferGetPage(buf);
			opaque = EIPageGetOpaque(page);
			if (!(opaque->ei_flags & EI_DELETED) && opaque->ei_next == origblk)
				return buf;
			if (EI_RIGHTMOST(opaque) || hops >= EI_WALK_LEFT_MAX_HOPS)
				break;
			buf = EIRelAndGetBuf(rel, buf, opaque->ei_next, EI_READ);
		}

		/* not found: look at the page we are stepping left from */
		buf = EIRelAndGetBuf(rel, buf, origblk, EI_READ);
		page = BufferGetPage(buf);
		opaque = EIPageGetOpaque(page);
		if (opaque->ei_flags & EI_DELETED)
		{
			while (opaque->ei_flags & EI_DELETED)
			{
				if (EI_RIGHTMOST(opaque))
					elog(ERROR, "fell off the end of index \"%s\"",
						 RelationGetRelationName(rel));
				buf = EIRelAndGetBuf(rel, buf, opaque->ei_next, EI_READ);
				page = BufferGetPage(buf);
				opaque = EIPageGetOpaque(page);
			}
			origblk = BufferGetBlockNumber(buf);
		}
		else if (opaque->ei_prev == leftblk)
			elog(ERROR, "could not find left sibling of block %u in index \"%s\"",
				 origblk, RelationGetRelationName(rel));
		leftblk = opaque->ei_prev;
		EIRelBuf(rel, buf);
	}
}

/*
 * Read pages in the scan direction until one has matches, leaving it pinned
 * (not locked) in currPos; return false, with currPos invalid, at the end.
 *
 * Forward, blkno is the next page to read.  Backward, blkno is the page
 * last read, and we read its left sibling (see ei_walk_left for leftblk and
 * leftknown).  With descend, we start by descending from the root to the
 * scan's keys instead (ei_first, and a new primitive scan of array keys);
 * the scan also descends again where the array keys left the pages read
 * behind.  currPos must hold no pin.  In a parallel scan the caller has
 * seized the scan and got blkno from it.
 */
static bool
ei_read_next_page(IndexScanDesc scan, ScanDirection dir, BlockNumber blkno,
				  BlockNumber leftblk, bool leftknown, EIDescend descend)
{
	Relation	rel = scan->indexRelation;
	EIScanOpaque so = (EIScanOpaque) scan->opaque;
	bool		forward = ScanDirectionIsForward(dir);
	bool		parallel = ei_scan_parallel(scan);
	EIReadMode	mode;

	Assert(!EIScanPosIsPinned(so->currPos));

	for (;;)
	{
		Buffer		buf;
		Page		page;
		EIPageOpaque opaque;

		if (descend == EI_DESCEND_NONE &&
			(!BlockNumberIsValid(blkno) ||
			 !(forward ? so->currPos.moreRight : so->currPos.moreLeft)))
		{
			/*
			 * The array keys lie beyond the pages read: descend to them
			 * (not when key ranges are shared out, see ei_arrays_after_page)
			 */
			if (so->arrays != NULL && so->arrays->needPrimScan)
			{
				so->arrays->needPrimScan = false;
				if (so->arrays->primScanDir == dir && !parallel &&
					!ei_parallel_ranges(scan))
					descend = EI_DESCEND_AGAIN;
			}
			if (descend == EI_DESCEND_NONE)
				break;
		}

		CHECK_FOR_INTERRUPTS();

		if (descend != EI_DESCEND_NONE)
		{
			OffsetNumber offnum;
			bool		found;

			ei_count_descent(scan, descend == EI_DESCEND_AGAIN);

			/*
			 * A first descent starts at the scan's boundary.  A new
			 * primitive scan does not: the pages behind it were read by the
			 * earlier ones, and a scroll cursor that turns round must find
			 * them again (as _bt_readfirstpage sets both for needPrimScan).
			 */
			if (descend == EI_DESCEND_AGAIN)
			{
				so->currPos.moreLeft = true;
				so->currPos.moreRight = true;
			}
			else
				ei_init_more(so, dir);
			descend = EI_DESCEND_NONE;
			buf = ei_descend(scan, dir, &offnum);
			so->currPos.buf = buf;
			found = ei_read_page(scan, dir, offnum, EI_READ_DESCENT);
			if (parallel && !forward && ei_parallel_ranges(scan))
			{
				/*
				 * Backward with ranges: the first page's range ends at plus
				 * infinity; take it once the page is unlocked (only a first
				 * descent gets here: such scans make no others).
				 */
				LockBuffer(buf, BUFFER_LOCK_UNLOCK);
				if (!ei_parallel_take_range_left(scan))
					elog(ERROR, "parallel scan of index \"%s\" has a bound before its first page",
						 RelationGetRelationName(rel));
				if (found)
					return true;
				so->currPos.buf = InvalidBuffer;
				blkno = BufferGetBlockNumber(buf);
				leftblk = so->currPos.prevPage;
				leftknown = true;
				ReleaseBuffer(buf);
				goto seize_next;
			}
			if (found)
			{
				LockBuffer(buf, BUFFER_LOCK_UNLOCK);
				return true;
			}
			so->currPos.buf = InvalidBuffer;
			page = BufferGetPage(buf);
			opaque = EIPageGetOpaque(page);
		}
		else
		{
			if (forward)
				buf = EIGetBuf(rel, blkno, EI_READ);
			else
			{
				buf = ei_walk_left(rel, blkno, leftblk, leftknown);
				if (!BufferIsValid(buf))
				{
					/*
					 * With ranges, the page to our right had a left sibling
					 * when its range was taken; it was deleted since, so the
					 * key space below the range is that page's now.
					 */
					if (parallel && ei_parallel_ranges(scan))
						return ei_parallel_solo_below(scan, dir);
					break;
				}
			}
			page = BufferGetPage(buf);
			opaque = EIPageGetOpaque(page);

			if (parallel && !forward && ei_parallel_ranges(scan))
			{
				bool		found = false;
				bool		taken = false;

				/*
				 * A backward parallel scan that merges entries from outside
				 * the tree takes the page's range after reading it; a page
				 * that does not end where the last range began (a page was
				 * deleted meanwhile) makes us read the rest alone.
				 */
				if (!EI_IGNORE(opaque))
				{
					so->currPos.buf = buf;
					found = ei_read_page(scan, dir, PageGetMaxOffsetNumber(page),
										 EI_READ_STEP);
					LockBuffer(buf, BUFFER_LOCK_UNLOCK);
					taken = ei_parallel_take_range_left(scan);
				}
				else
					LockBuffer(buf, BUFFER_LOCK_UNLOCK);
				if (!taken)
				{
					ReleaseBuffer(buf);
					so->currPos.buf = InvalidBuffer;
					return ei_parallel_solo_below(scan, dir);
				}
				if (found)
					return true;
				so->currPos.buf = InvalidBuffer;
				blkno = BufferGetBlockNumber(buf);
				leftblk = so->currPos.prevPage;
				leftknown = true;
				ReleaseBuffer(buf);
				goto seize_next;
			}

			/*
			 * Stepping left: if the left sibling's high key lies below the
			 * first item of the leaf read last, entries may have moved from
			 * it to that leaf since we read it; read them first, from the
			 * leaf that holds them now (see "Bounds of leaves as read").
			 */
			mode = EI_READ_STEP;
			if (!forward && !EI_IGNORE(opaque) &&
				ei_left_below_first(scan, buf, blkno))
			{
				buf = ei_move_right_below(scan, buf);
				page = BufferGetPage(buf);
				opaque = EIPageGetOpaque(page);
				mode = EI_READ_REREAD;
			}

			if (!EI_IGNORE(opaque))
			{
				so->currPos.buf = buf;
				if (ei_read_page(scan, dir, forward ? EI_FIRST_DATA(opaque) :
								 PageGetMaxOffsetNumber(page), mode))
				{
					LockBuffer(buf, BUFFER_LOCK_UNLOCK);
					return true;
				}
				so->currPos.buf = InvalidBuffer;
			}
			else if (parallel)
				ei_parallel_release(scan, forward ? opaque->ei_next :
									BufferGetBlockNumber(buf),
									BufferGetBlockNumber(buf));
		}

		/* nothing here; continue from this page */
		if (forward)
			blkno = opaque->ei_next;
		else
		{
			blkno = BufferGetBlockNumber(buf);
			leftblk = opaque->ei_prev;
			leftknown = true;
		}
		EIRelBuf(rel, buf);

seize_next:
		if (parallel)
		{
			BlockNumber seized;
			bool		first;
			bool		primscan;

			if (!ei_parallel_seize(scan, &seized, &first, &primscan))
			{
				ei_pos_invalidate(&so->currPos);
				return false;
			}
			if (first)
				elog(ERROR, "parallel scan of index \"%s\" was reset while in progress",
					 RelationGetRelationName(rel));
			if (primscan)
				descend = EI_DESCEND_AGAIN;
			if (seized != blkno)
				leftknown = false;
			blkno = seized;
		}
	}

	/* end of the scan */
	if (parallel)
		ei_parallel_done(scan);
	ei_pos_invalidate(&so->currPos);
	return false;
}

/*
 * Leave the current page for the next one with matches in the scan
 * direction; return false, with currPos invalid, at the end of the scan.
 */
static bool
ei_step_page(IndexScanDesc scan, ScanDirection dir)
{
	EIScanOpaque so = (EIScanOpaque) scan->opaque;
	BlockNumber blkno;
	BlockNumber leftblk = InvalidBlockNumber;
	bool		leftknown = false;
	EIDescend	descend = EI_DESCEND_NONE;

	Assert(EIScanPosIsValid(so->currPos));

	/* mark what the executor found dead while we still pin the page */
	if (so->numKilled > 0)
		ei_kill_items(scan);

	/* a mark that still points into this page needs its own copy now */
	if (so->markItemIndex >= 0)
	{
		if (EIScanPosIsPinned(so->currPos))
			IncrBufferRefCount(so->currPos.buf);
		ei_pos_copy(&so->markPos, &so->currPos);
		ei_pos_copy_bounds(scan, true);
		if (so->currTuples != NULL)
		{
			ei_alloc_mark_tuples(so);
			memcpy(so->markTuples, so->currTuples, so->currPos.nextTupleOffset);
		}
		so->markPos.itemIndex = so->markItemIndex;
		so->markItemIndex = -1;
	}

	if (ScanDirectionIsForward(dir))
	{
		so->currPos.moreLeft = true;
		blkno = so->currPos.nextPage;
	}
	else
	{
		so->currPos.moreRight = true;
		blkno = so->currPos.currPage;
		leftblk = so->currPos.prevPage;
		leftknown = true;
	}

	if (ei_scan_parallel(scan))
	{
		BlockNumber seized;
		bool		first;
		bool		primscan;

		if (!ei_parallel_seize(scan, &seized, &first, &primscan))
		{
			ei_pos_unpin(&so->currPos);
			ei_pos_invalidate(&so->currPos);
			return false;
		}
		if (first)
			elog(ERROR, "parallel scan of index \"%s\" was reset while in progress",
				 RelationGetRelationName(scan->indexRelation));
		if (primscan)
			descend = EI_DESCEND_AGAIN;
		if (!ScanDirectionIsForward(dir) && seized != blkno)
			leftknown = false;
		blkno = seized;
	}

	ei_pos_unpin(&so->currPos);
	return ei_read_next_page(scan, dir, blkno, leftblk, leftknown, descend);
}


/* ----------------------------------------------------------------
 * Returning items
 * ----------------------------------------------------------------
 */

/*
 * Check a heap TID the scan is about to hand to the executor: a valid
 * offset, and a block inside the table.  The table's size is kept in the
 * index's cache and read again (an lseek) only when a TID reaches past it,
 * so intact entries cost one comparison; a TID past the table's end even
 * after that is damage of the index, not the heap's "could not read
 * block" about a file segment that does not exist.  Only heap tables are
 * bounded so: another table AM's TIDs need not name blocks of its file.
 */
void
EIScanCheckHeapTid(IndexScanDesc scan, ItemPointer tid)
{
	Relation	rel = scan->indexRelation;
	EIRelCache *cache = EIGetRelCache(rel);
	BlockNumber blkno = ItemPointerGetBlockNumberNoCheck(tid);
	OffsetNumber off = ItemPointerGetOffsetNumberNoCheck(tid);
	Relation	heap;

	if (likely(blkno < cache->heap_nblocks && OffsetNumberIsValid(off)))
		return;

	/* bitmap scans have no heap relation; the executor holds its lock */
	heap = scan->heapRelation;
	if (heap == NULL)
		heap = table_open(rel->rd_index->indrelid, NoLock);
	/* opening it may have rebuilt the index's cache */
	cache = EIGetRelCache(rel);
	if (OffsetNumberIsValid(off) && BlockNumberIsValid(blkno))
		cache->heap_nblocks = (heap->rd_rel->relam == HEAP_TABLE_AM_OID) ?
			RelationGetNumberOfBlocks(heap) : MaxBlockNumber;
	if (!OffsetNumberIsValid(off))
		ereport(ERROR,
				(errcode(ERRCODE_INDEX_CORRUPTED),
				 errmsg("index \"%s\" is corrupted: an entry points to heap tuple (%u,%u) of table \"%s\", an invalid offset",
						RelationGetRelationName(rel), blkno, (unsigned) off,
						RelationGetRelationName(heap)),
				 errhint("Please REINDEX it.")));
	if (blkno >= cache->heap_nblocks)
		ereport(ERROR,
				(errcode(ERRCODE_INDEX_CORRUPTED),
				 errmsg("index \"%s\" is corrupted: an entry points to heap tuple (%u,%u) of table \"%s\", which has %u blocks",
						RelationGetRelationName(rel), blkno, (unsigned) off,
						RelationGetRelationName(heap), cache->heap_nblocks),
				 errhint("Please REINDEX it.")));
	if (heap != scan->heapRelation)
		table_close(heap, NoLock);
}

/*
 * Hand the current item of currPos to the executor.
 */
static void
ei_return_item(IndexScanDesc scan)
{
	EIScanOpaque so = (EIScanOpaque) scan->opaque;
	EIScanPosItem *item = &so->currPos.items[so->currPos.itemIndex];

	EIScanCheckHeapTid(scan, &item->heapTid);
	scan->xs_heaptid = item->heapTid;
	scan->xs_recheck = so->currPos.recheck;
	if (so->currTuples != NULL)
		scan->xs_itup = (IndexTuple) (so->currTuples + item->tupleOffset);
}

/*
 * Start the scan: position it and load the first page with matches; false
 * if there are none.
 */
static bool
ei_first(IndexScanDesc scan, ScanDirection dir)
{
	EIScanOpaque so = (EIScanOpaque) scan->opaque;
	EIDescend	descend = EI_DESCEND_FIRST;
	BlockNumber blkno = InvalidBlockNumber;

	Assert(!EIScanPosIsValid(so->currPos));
	Assert(!EIScanPosIsPinned(so->currPos));

	pgstat_count_index_scan(scan->indexRelation);

	if (!so->qual_ok)
	{
		if (ei_scan_parallel(scan))
			ei_parallel_done(scan);
		return false;
	}

	if (scan->xs_want_itup && so->currTuples == NULL)
		ei_alloc_tuples(scan);

	ei_init_more(so, dir);
	ei_arrays_start(so, dir);

	if (ei_scan_parallel(scan))
	{
		bool		first;
		bool		primscan;

		if (!ei_parallel_seize(scan, &blkno, &first, &primscan))
			return false;
		/* unless we position it, another participant has */
		if (!first && !primscan)
			descend = EI_DESCEND_NONE;
	}

	if (!ei_read_next_page(scan, dir, blkno, InvalidBlockNumber, false,
						   descend))
		return false;
	ei_return_item(scan);
	return true;
}

/*
 * Advance to the next item in the scan direction, stepping pages as needed.
 */
static bool
ei_next(IndexScanDesc scan, ScanDirection dir)
{
	EIScanOpaque so = (EIScanOpaque) scan->opaque;

	if (ScanDirectionIsForward(dir))
	{
		if (++so->currPos.itemIndex > so->currPos.lastItem)
		{
			if (!ei_step_page(scan, dir))
				return false;
		}
	}
	else
	{
		if (--so->currPos.itemIndex < so->currPos.firstItem)
		{
			if (!ei_step_page(scan, dir))
				return false;
		}
	}

	ei_return_item(scan);
	return true;
}


/*
 * Remember to mark the current item LP_DEAD when the scan leaves its page
 * (the executor found the tuple we returned last dead to everyone).
 */
static void
ei_remember_killed(EIScanOpaque so)
{
	if (so->killedItems == NULL)
		so->killedItems = (int *) palloc(EI_MAX_ITEMS_PER_PAGE * sizeof(int));
	if (so->numKilled < EI_MAX_ITEMS_PER_PAGE)
		so->killedItems[so->numKilled++] = so->currPos.itemIndex;
}

/* ----------------------------------------------------------------
 * Merging entries from outside the tree into a scan
 *
 * A policy may keep entries outside the tree (osm_tree's insert buffer);
 * its scan_collect hands the scan those that match the keys.  They are
 * read first, sorted, and merged with the tree's items in key order.  The merged stream remembers
 * the last item it returned ("last"): the tree's next candidate is the
 * first tree item strictly beyond last in the scan direction, the buffer's
 * is at index fwd (forward) or bwd (backward).  An entry found in both (a
 * flush moved it between our two reads) is returned once.  Comparing with
 * last rather than trusting positions keeps direction changes, restored
 * marks and a tree that ran out in one direction simple and exact.
 * ----------------------------------------------------------------
 */

/*
 * Collect the policy's entries matching the scan's keys, if it has any;
 * must run before the tree is read.
 */
static void
ei_buffer_begin(IndexScanDesc scan)
{
	EIScanOpaque so = (EIScanOpaque) scan->opaque;
	bool		parallel = (scan->parallel_scan != NULL);
	EIScanMerge *sb;
	IndexTuple *items = NULL;
	int			n = 0;
	MemoryContext cxt;
	MemoryContext oldcxt;

	if (!so->qual_ok)
		return;

	/* (tests: a parallel worker waits here, the leader after collecting) */
	if (parallel && IsParallelWorker())
		EIFaultGate(EI_FAULT_PARALLEL_COLLECT_GATE, 2);

	cxt = AllocSetContextCreate(CurrentMemoryContext, "elastic_index scan merge",
								ALLOCSET_DEFAULT_SIZES);
	oldcxt = MemoryContextSwitchTo(cxt);
	/*
	 * Nothing outside the tree matches: the tree alone answers.  (The
	 * policy guarantees that an entry it moves into the tree meanwhile is
	 * in the tree before it leaves its own store, so that one of our two
	 * reads sees it.)
	 */
	if (!EIGetPolicyChecked(scan->indexRelation)->scan_collect(scan, &items, &n))
		n = 0;
	/* (a parallel scan needs the merge anyway, to return only its ranges) */
	if (n == 0 && !parallel)
	{
		MemoryContextSwitchTo(oldcxt);
		MemoryContextDelete(cxt);
		return;
	}

	sb = palloc0(sizeof(EIScanMerge));
	sb->cxt = cxt;
	sb->esort = palloc(sizeof(EIEntrySort));
	EIEntrySortInitCompare(sb->esort, scan->indexRelation, cxt);
	sb->entries = palloc(sizeof(EISortEntry) * Max(n, 1));
	for (int i = 0; i < n; i++)
		EIEntrySortSet(sb->esort, &sb->entries[i], items[i]);
	if (n > 1)
		EIEntrySortRun(sb->esort, sb->entries, n);

	/* an entry buffered twice (a batch applied again after an error) once */
	if (n > 1)
	{
		int			kept = 1;

		for (int i = 1; i < n; i++)
		{
			if (EIEntryCompare(sb->esort, &sb->entries[kept - 1],
							   &sb->entries[i]) != 0)
				sb->entries[kept++] = sb->entries[i];
		}
		n = kept;
	}
	sb->nitems = n;
	if (parallel)
	{
		sb->parallel = true;
		sb->owned = palloc0(sizeof(bool) * Max(n, 1));
		sb->own_prev = n - 1;
		sb->lo_space = palloc(EI_PARALLEL_BOUND_SPACE);
		sb->hi_space = palloc(EI_PARALLEL_BOUND_SPACE);
	}
	MemoryContextSwitchTo(oldcxt);
	so->extra = sb;
	if (parallel && !IsParallelWorker())
		EIFaultGate(EI_FAULT_PARALLEL_COLLECT_GATE, 1);

	/* the merge compares tree items, so keep copies of them */
	if (so->currTuples == NULL)
		ei_alloc_tuples(scan);
}

/*
 * Must the executor recheck an entry from outside the tree against its
 * heap tuple?  Only under a non-MVCC snapshot, with keys to check:
 * nbtree keeps the leaf pinned for such scans, so that VACUUM cannot remove
 * the entries and let the heap reuse their TIDs while the scan holds them,
 * but the policy's entries are copies whose pages are no longer pinned, so
 * a TID may meanwhile point to another row.  (SnapshotNonVacuumable, the
 * planner's endpoint probe, is left alone: it reads the value from the
 * index tuple, wants an estimate, and takes no recheck.)
 */
static bool
ei_recheck_outside_tree(IndexScanDesc scan)
{
	Snapshot	snapshot = scan->xs_snapshot;

	return scan->numberOfKeys > 0 && snapshot != InvalidSnapshot &&
		!IsMVCCSnapshot(snapshot) &&
		snapshot->snapshot_type != SNAPSHOT_NON_VACUUMABLE;
}

/*
 * Free a scan's buffer state.
 */
static void
ei_buffer_end(EIScanOpaque so)
{
	EIScanMerge *sb = so->extra;

	so->extra = NULL;
	so->extra_checked = false;
	if (sb != NULL)
		MemoryContextDelete(sb->cxt);
}

/*
 * Compare an entry with the last one returned, in the scan direction:
 * true if it lies strictly beyond.
 */
static bool
ei_buffer_beyond_last(EIScanMerge *sb, IndexTuple itup, ScanDirection dir)
{
	EISortEntry a;
	int			cmp;

	if (sb->last == NULL)
		return true;
	EIEntrySortSet(sb->esort, &a, itup);
	cmp = EIEntryCompare(sb->esort, &a, &sb->last_entry);
	return ScanDirectionIsForward(dir) ? cmp > 0 : cmp < 0;
}

/*
 * Remember a copy of the item just returned.
 */
static void
ei_buffer_set_last(EIScanMerge *sb, IndexTuple itup, bool from_buffer)
{
	MemoryContext oldcxt = MemoryContextSwitchTo(sb->cxt);

	if (sb->last != NULL)
		pfree(sb->last);
	sb->last = CopyIndexTuple(itup);
	EIEntrySortSet(sb->esort, &sb->last_entry, sb->last);
	sb->last_from_buffer = from_buffer;
	MemoryContextSwitchTo(oldcxt);
}

/*
 * The tree's current item, as a tuple (the merge keeps copies).
 */
static IndexTuple
ei_tree_current(EIScanOpaque so)
{
	EIScanPosItem *item = &so->currPos.items[so->currPos.itemIndex];

	return (IndexTuple) (so->currTuples + item->tupleOffset);
}

/*
 * Put the merged stream past its end in the given direction: no last
 * item, the buffer's candidates at that end, the tree unpositioned (the
 * next fetch the other way starts it from this end).
 */
static void
ei_buffer_past_end(IndexScanDesc scan, ScanDirection dir)
{
	EIScanOpaque so = (EIScanOpaque) scan->opaque;
	EIScanMerge *sb = so->extra;

	if (sb->last != NULL)
		pfree(sb->last);
	sb->last = NULL;
	sb->last_from_buffer = false;
	sb->tree_pending = false;
	if (ScanDirectionIsForward(dir))
	{
		sb->fwd = sb->nitems;
		sb->bwd = sb->nitems - 1;
	}
	else
	{
		sb->bwd = -1;
		sb->fwd = 0;
	}
	sb->tree_end_fwd = sb->tree_end_bwd = false;
	if (EIScanPosIsValid(so->currPos))
	{
		if (so->numKilled > 0)
			ei_kill_items(scan);
		ei_pos_unpin(&so->currPos);
		ei_pos_invalidate(&so->currPos);
		so->numKilled = 0;
	}
	/* going on the same way finds nothing in the tree either */
	if (ScanDirectionIsForward(dir))
		sb->tree_end_fwd = true;
	else
		sb->tree_end_bwd = true;
}

/*
 * Return the next item of the merged stream in the given direction.
 */
static bool
ei_gettuple_merged(IndexScanDesc scan, ScanDirection dir)
{
	EIScanOpaque so = (EIScanOpaque) scan->opaque;
	EIScanMerge *sb = so->extra;
	bool		fwd = ScanDirectionIsForward(dir);
	bool		tree_ok;
	int			bi;
	int			cmp = 0;
	EISortEntry tent;

	scan->xs_recheck = false;

	/* the tree's candidate */
	if (!sb->started)
	{
		sb->started = true;
		sb->fwd = fwd ? 0 : sb->nitems;
		sb->bwd = fwd ? -1 : sb->nitems - 1;
		tree_ok = ei_first(scan, dir);
	}
	else
	{
		/* the executor may ask us to kill the item we returned last */
		if (scan->kill_prior_tuple && !sb->last_from_buffer &&
			EIScanPosIsValid(so->currPos))
			ei_remember_killed(so);

		if (sb->tree_pending && sb->pending_dir == dir)
			tree_ok = true;
		else if (fwd ? sb->tree_end_fwd : sb->tree_end_bwd)
			tree_ok = false;
		else
		{
			tree_ok = EIScanPosIsValid(so->currPos) ?
				ei_next(scan, dir) : ei_first(scan, dir);
			while (tree_ok &&
				   !ei_buffer_beyond_last(sb, ei_tree_current(so), dir))
				tree_ok = ei_next(scan, dir);
		}
	}
	/* where the tree stands in each direction, relative to last */
	if (fwd)
	{
		sb->tree_end_fwd = !tree_ok;
		sb->tree_end_bwd = false;
	}
	else
	{
		sb->tree_end_bwd = !tree_ok;
		sb->tree_end_fwd = false;
	}

	/* the buffer's candidate */
	bi = fwd ? (sb->fwd < sb->nitems ? sb->fwd : -1) :
		(sb->bwd >= 0 ? sb->bwd : -1);

	if (!tree_ok && bi < 0)
	{
		/*
		 * Past the end in this direction, as the executor sees it: a fetch
		 * the other way returns the item we returned last.  So forget it,
		 * and let the tree start again from this end.
		 */
		ei_buffer_past_end(scan, dir);
		return false;
	}

	if (tree_ok && bi >= 0)
	{
		EIEntrySortSet(sb->esort, &tent, ei_tree_current(so));
		cmp = EIEntryCompare(sb->esort, &tent, &sb->entries[bi]);
		if (!fwd)
			cmp = -cmp;
	}

	if (bi >= 0 && (!tree_ok || cmp > 0))
	{
		/* the buffered entry comes first */
		IndexTuple	itup = sb->entries[bi].itup;

		EIScanCheckHeapTid(scan, &itup->t_tid);
		scan->xs_heaptid = itup->t_tid;
		scan->xs_recheck = ei_recheck_outside_tree(scan);
		if (scan->xs_want_itup)
			scan->xs_itup = itup;
		sb->fwd = bi + 1;
		sb->bwd = bi - 1;
		sb->tree_pending = tree_ok;
		sb->pending_dir = dir;
		ei_buffer_set_last(sb, itup, true);
		return true;
	}

	/* the tree's item comes first, or both have the same entry */
	if (bi >= 0 && cmp == 0)
	{
		sb->fwd = bi + 1;
		sb->bwd = bi - 1;
	}
	else if (fwd)
		sb->bwd = sb->fwd - 1;
	else
		sb->fwd = sb->bwd + 1;
	ei_return_item(scan);
	sb->tree_pending = false;
	ei_buffer_set_last(sb, ei_tree_current(so), false);
	return true;
}

/*
 * Return the next item of a parallel scan that merges entries from outside
 * the tree: the tree's items of the pages we read, merged with those of our
 * entries that lie in their key ranges (ei_parallel_take_range[_left]; all
 * those below the bound if we read the rest alone).  The direction never
 * changes (the executor does not fetch backward from a parallel scan, and
 * never marks).
 */
static bool
ei_gettuple_parallel(IndexScanDesc scan, ScanDirection dir)
{
	EIScanOpaque so = (EIScanOpaque) scan->opaque;
	EIScanMerge *sb = so->extra;
	bool		fwd = ScanDirectionIsForward(dir);
	bool		tree_ok;

	scan->xs_recheck = false;

	if (!sb->started)
	{
		sb->started = true;
		sb->pending_dir = dir;
		sb->fwd = 0;
		sb->bwd = sb->nitems - 1;
		tree_ok = ei_first(scan, dir);
	}
	else
	{
		if (dir != sb->pending_dir)
			elog(ERROR, "parallel scan of index \"%s\" cannot change direction",
				 RelationGetRelationName(scan->indexRelation));

		/* the executor may ask us to kill the item we returned last */
		if (scan->kill_prior_tuple && !sb->last_from_buffer &&
			EIScanPosIsValid(so->currPos))
			ei_remember_killed(so);

		if (sb->tree_pending)
			tree_ok = true;
		else if (sb->tree_end_fwd)
			tree_ok = false;
		else
			tree_ok = ei_next(scan, dir);
	}
	if (!tree_ok)
		sb->tree_end_fwd = true;

	/*
	 * Our entries before the tree's item come first.  An entry before it
	 * that is not ours never will be: our ranges so far reach past the
	 * tree's item, and later ones lie beyond it.
	 */
	while (fwd ? sb->fwd < sb->nitems : sb->bwd >= 0)
	{
		int			bi = fwd ? sb->fwd : sb->bwd;
		IndexTuple	itup;

		if (tree_ok)
		{
			EISortEntry tent;
			int			cmp;

			EIEntrySortSet(sb->esort, &tent, ei_tree_current(so));
			cmp = EIEntryCompare(sb->esort, &tent, &sb->entries[bi]);
			if (!fwd)
				cmp = -cmp;
			if (cmp <= 0)
			{
				/* the tree's item first; the same entry in both: once */
				if (cmp == 0)
				{
					if (fwd)
						sb->fwd++;
					else
						sb->bwd--;
				}
				break;
			}
		}
		if (fwd)
			sb->fwd++;
		else
			sb->bwd--;
		if (!sb->owned[bi])
			continue;

		itup = sb->entries[bi].itup;
		EIScanCheckHeapTid(scan, &itup->t_tid);
		scan->xs_heaptid = itup->t_tid;
		scan->xs_recheck = ei_recheck_outside_tree(scan);
		if (scan->xs_want_itup)
			scan->xs_itup = itup;
		sb->tree_pending = tree_ok;
		sb->last_from_buffer = true;
		return true;
	}

	if (!tree_ok)
		return false;
	ei_return_item(scan);
	sb->tree_pending = false;
	sb->last_from_buffer = false;
	return true;
}

/*
 * Copy the merge state for a mark (to NULL: drop it), or back from it.
 */
static void
ei_buffer_copy_state(EIScanMerge *dst, EIScanMerge *src)
{
	MemoryContext oldcxt = MemoryContextSwitchTo(src->cxt);
	IndexTuple	last = src->last != NULL ? CopyIndexTuple(src->last) : NULL;

	MemoryContextSwitchTo(oldcxt);
	if (dst->last != NULL)
		pfree(dst->last);
	dst->fwd = src->fwd;
	dst->bwd = src->bwd;
	dst->started = src->started;
	dst->tree_pending = src->tree_pending;
	dst->pending_dir = src->pending_dir;
	dst->tree_end_fwd = src->tree_end_fwd;
	dst->tree_end_bwd = src->tree_end_bwd;
	dst->last_from_buffer = src->last_from_buffer;
	dst->last = last;
	if (last != NULL)
		EIEntrySortSet(src->esort, &dst->last_entry, last);
}

/* ----------------------------------------------------------------
 * Killing dead items
 * ----------------------------------------------------------------
 */

/*
 * qsort comparator for ints.
 */
static int
ei_int_cmp(const void *a, const void *b)
{
	int			x = *(const int *) a;
	int			y = *(const int *) b;

	return (x > y) - (x < y);
}

/*
 * Mark the items the executor found dead to everyone LP_DEAD on the
 * current page, which the scan still pins.
 *
 * The pin keeps VACUUM away, but inserts may have moved an item to a higher
 * offset, and a split may have moved it to another page (then we skip it).
 * If the page's LSN has not changed since we read it, the offsets are exact.
 * This is only a hint, so it is done under a share lock without WAL.
 */
static void
ei_kill_items(IndexScanDesc scan)
{
	Relation	rel = scan->indexRelation;
	EIScanOpaque so = (EIScanOpaque) scan->opaque;
	Buffer		buf = so->currPos.buf;
	int			numKilled = so->numKilled;
	Page		page;
	EIPageOpaque opaque;
	OffsetNumber minoff;
	OffsetNumber maxoff;
	bool		exact;
	bool		killed = false;
	int			i;

	so->numKilled = 0;

	/* a policy's leaf has no line pointers to mark */
	if (numKilled == 0 || !BufferIsValid(buf) || so->currPos.recheck ||
		scan->xactStartedInRecovery || RecoveryInProgress())
		return;

	LockBuffer(buf, EI_READ);
	page = BufferGetPage(buf);
	opaque = EIPageGetOpaque(page);
	if (opaque->ei_flags & EI_POLICY_LEAF)
	{
		LockBuffer(buf, BUFFER_LOCK_UNLOCK);
		return;
	}
	minoff = EI_FIRST_DATA(opaque);
	maxoff = PageGetMaxOffsetNumber(page);
	exact = RelationNeedsWAL(rel) &&
		BufferGetLSNAtomic(buf) == so->currPos.lsn;

	/* in item order, each once: a posting list's TIDs are then adjacent */
	qsort(so->killedItems, numKilled, sizeof(int), ei_int_cmp);
	{
		int			nuniq = 0;

		for (i = 0; i < numKilled; i++)
			if (nuniq == 0 || so->killedItems[nuniq - 1] != so->killedItems[i])
				so->killedItems[nuniq++] = so->killedItems[i];
		numKilled = nuniq;
	}

	for (i = 0; i < numKilled; i++)
	{
		int			itemIndex = so->killedItems[i];
		EIScanPosItem *item;
		OffsetNumber off;

		if (itemIndex < so->currPos.firstItem ||
			itemIndex > so->currPos.lastItem)
			continue;
		item = &so->currPos.items[itemIndex];

		for (off = Max(item->indexOffset, minoff); off <= maxoff;
			 off = OffsetNumberNext(off))
		{
			ItemId		iid = PageGetItemId(page, off);

			if (ItemIdHasStorage(iid))
			{
				IndexTuple	itup = EIReadTupleChecked(scan->indexRelation,
													  page, off);

				/*
				 * A posting list is marked only when every one of its TIDs
				 * was killed: the killed items from this one on must be its
				 * TIDs, in order (items of one list are adjacent, and the
				 * killed ones are sorted).
				 */
				if (EITupleIsPosting(itup))
				{
					int			n = EIPostingCount(itup);
					int			t;

					if (!EIPostingBoundsOK(itup) ||
						ItemPointerCompare(&item->heapTid, EIPostingTID(itup, 0)) < 0 ||
						ItemPointerCompare(&item->heapTid, EIPostingMaxTID(itup)) > 0)
					{
						if (exact)
							break;
						continue;
					}
					for (t = 0; t < n && i + t < numKilled; t++)
					{
						int			k = so->killedItems[i + t];

						if (k < so->currPos.firstItem || k > so->currPos.lastItem ||
							!ItemPointerEquals(&so->currPos.items[k].heapTid,
											   EIPostingTID(itup, t)))
							break;
					}
					if (t == n)
					{
						if (!ItemIdIsDead(iid))
						{
							ItemIdMarkDead(iid);
							killed = true;
						}
						i += n - 1;
					}
					break;
				}
				if (ItemPointerEquals(&itup->t_tid, &item->heapTid))
				{
					if (!ItemIdIsDead(iid))
					{
						ItemIdMarkDead(iid);
						killed = true;
					}
					break;
				}
			}
			if (exact)
				break;
		}
	}

	if (killed)
	{
		opaque->ei_flags |= EI_HAS_GARBAGE;
		MarkBufferDirtyHint(buf, true);
	}

	LockBuffer(buf, BUFFER_LOCK_UNLOCK);
}


/* ----------------------------------------------------------------
 * Parallel scans
 * ----------------------------------------------------------------
 */

/*
 * Return the shared state of a parallel scan.
 */
static EIParallelScanDesc
ei_parallel_desc(IndexScanDesc scan)
{
	return (EIParallelScanDesc) OffsetToPointer((void *) scan->parallel_scan,
												EIParallelScanAmOffset(scan->parallel_scan));
}

/*
 * Wait until no other participant is advancing the scan and take it over.
 *
 * Returns false when the scan is done.  Otherwise *first tells whether the
 * scan has not been positioned yet (we must descend), *primscan whether a
 * participant asked for a new descent to the array keys, which are then
 * ours, and *blkno is where to continue: the next page to read forward, or
 * backward the page whose left sibling comes next (InvalidBlockNumber:
 * nothing left).
 */
static bool
ei_parallel_seize(IndexScanDesc scan, BlockNumber *blkno, bool *first,
				  bool *primscan)
{
	EIParallelScanDesc ps = ei_parallel_desc(scan);
	EIScanOpaque so = (EIScanOpaque) scan->opaque;
	int			arrElems[INDEX_MAX_KEYS];
	bool		seized = false;
	bool		done = false;

	*blkno = InvalidBlockNumber;
	*first = false;
	*primscan = false;

	for (;;)
	{
		SpinLockAcquire(&ps->mutex);
		if (ps->status == EI_PARALLEL_DONE)
			done = true;
		else if (ps->status != EI_PARALLEL_ADVANCING)
		{
			*first = (ps->status == EI_PARALLEL_NOT_INITIALIZED);
			*primscan = (ps->status == EI_PARALLEL_NEED_PRIMSCAN);
			if (*primscan)
				memcpy(arrElems, ps->arrElems, sizeof(arrElems));
			*blkno = ps->nextPage;
			ps->status = EI_PARALLEL_ADVANCING;
			seized = true;
		}
		SpinLockRelease(&ps->mutex);

		if (seized || done)
			break;
		ConditionVariableSleep(&ps->cv, WAIT_EVENT_BTREE_PAGE);
	}
	ConditionVariableCancelSleep();

	/* take over the array keys of the descent asked for */
	if (*primscan)
	{
		EIScanArrays *arrays = so->arrays;
		int			n = 0;

		if (arrays == NULL)
			elog(ERROR, "parallel scan of index \"%s\" asks for a descent to array keys it does not have",
				 RelationGetRelationName(scan->indexRelation));
		for (int a = 0; a < arrays->nkeys; a++)
		{
			EIScanArrayKey *ak = &arrays->keys[a];

			if (!ak->positions)
				continue;
			if (arrElems[n] < 0 || arrElems[n] >= ak->nelems)
				elog(ERROR, "parallel scan of index \"%s\" asks for array element %d of %d",
					 RelationGetRelationName(scan->indexRelation),
					 arrElems[n], ak->nelems);
			ak->cur = arrElems[n++];
		}
		arrays->needPrimScan = false;
		ei_arrays_set_args(so);
	}

	return seized;
}

/*
 * Publish where the next participant continues and let it go; currblk is
 * the page we read (a participant that reads it may ask for a descent
 * while nobody has moved on).
 */
static void
ei_parallel_release(IndexScanDesc scan, BlockNumber blkno, BlockNumber currblk)
{
	EIParallelScanDesc ps = ei_parallel_desc(scan);

	SpinLockAcquire(&ps->mutex);
	ps->nextPage = blkno;
	ps->lastCurrPage = currblk;
	ps->status = EI_PARALLEL_IDLE;
	SpinLockRelease(&ps->mutex);
	ConditionVariableSignal(&ps->cv);
}

/*
 * Ask for a new descent to our array keys, which left the page currblk
 * behind, if nobody has seized the scan since we read that page (then the
 * next page is unread and need not be: the keys' matches lie beyond it).
 * Otherwise another participant reads on from there, which is correct as
 * well: its array keys move with the tuples it reads.
 */
static void
ei_parallel_primscan_schedule(IndexScanDesc scan, BlockNumber currblk)
{
	EIParallelScanDesc ps = ei_parallel_desc(scan);
	EIScanOpaque so = (EIScanOpaque) scan->opaque;
	EIScanArrays *arrays = so->arrays;
	int			arrElems[INDEX_MAX_KEYS];
	int			n = 0;

	for (int a = 0; a < arrays->nkeys && n < INDEX_MAX_KEYS; a++)
		if (arrays->keys[a].positions)
			arrElems[n++] = arrays->keys[a].cur;

	SpinLockAcquire(&ps->mutex);
	if (ps->status == EI_PARALLEL_IDLE && ps->lastCurrPage == currblk)
	{
		ps->status = EI_PARALLEL_NEED_PRIMSCAN;
		ps->nextPage = InvalidBlockNumber;
		ps->lastCurrPage = InvalidBlockNumber;
		memcpy(ps->arrElems, arrElems, sizeof(int) * n);
	}
	SpinLockRelease(&ps->mutex);
}

/*
 * Mark the parallel scan finished and wake everyone waiting for it.
 */
static void
ei_parallel_done(IndexScanDesc scan)
{
	EIParallelScanDesc ps = ei_parallel_desc(scan);
	bool		changed = false;

	SpinLockAcquire(&ps->mutex);
	if (ps->status != EI_PARALLEL_DONE)
	{
		ps->status = EI_PARALLEL_DONE;
		changed = true;
	}
	SpinLockRelease(&ps->mutex);
	if (changed)
		ConditionVariableBroadcast(&ps->cv);
}

/*
 * Does this parallel scan share out key ranges (it merges entries from
 * outside the tree)?
 */
static bool
ei_parallel_ranges(IndexScanDesc scan)
{
	EIScanOpaque so = (EIScanOpaque) scan->opaque;

	return so->extra != NULL && so->extra->parallel;
}

/*
 * Copy the range bound of the shared state into sb->lo (NULL if there is
 * none); the caller has seized the scan.
 */
static void
ei_parallel_load_bound(IndexScanDesc scan)
{
	EIScanOpaque so = (EIScanOpaque) scan->opaque;
	EIScanMerge *sb = so->extra;
	EIParallelScanDesc ps = ei_parallel_desc(scan);

	sb->lo = NULL;
	sb->lo_inf = (ps->lowSize == 0 && ps->lowInf);
	if (ps->lowSize == 0)
		return;
	if (ps->lowSize > EI_PARALLEL_BOUND_SPACE)
		elog(ERROR, "parallel scan of index \"%s\" has a range bound of %zu bytes",
			 RelationGetRelationName(scan->indexRelation), ps->lowSize);
	memcpy(sb->lo_space, ps->low, ps->lowSize);
	sb->lo = (IndexTuple) sb->lo_space;
	EIEntrySortSet(sb->esort, &sb->lo_entry, sb->lo);
}

/*
 * Copy the high key of the locked leaf buf (not the rightmost) into space
 * in leaf form, its heap TID in t_tid, and set up entry to compare it.
 */
static IndexTuple
ei_high_key_entry(Relation rel, Buffer buf, char *space, EISortEntry *entry,
				  EIEntrySort *esort)
{
	IndexTuple	result = (IndexTuple) space;

	/* a high key without heap TID (EIFormPivot) bounds at its minus infinity */
	(void) ei_bound_from_hikey(rel, buf, space);
	EIEntrySortSet(esort, entry, result);
	return result;
}

/*
 * Take the key range of the leaf a forward parallel scan is about to read
 * (pinned and share-locked, scan seized): from the bound in the shared
 * state to the page's high key.  Mark our entries from outside the tree
 * that fall in it as ours to return, and publish the start of the next
 * page's range.
 *
 * The pages handed out in turn follow right links saved when each was
 * read, so the ranges [previous bound, high key) partition the key space;
 * a page whose left sibling was deleted after that sibling was read may
 * have a high key at or below the bound (its range is then empty), which
 * is why the bound is the largest high key so far.  A page's left bound
 * only moves down (its left sibling's deletion gives it that key space),
 * so when the page is read it holds every tree entry of its range: an
 * entry of the range is in the tree on this page, or still outside the
 * tree and so in our collection (taken before we read any page), and no
 * other participant returns it.  Items on the page below the range (moved
 * in after its start was fixed) are dropped by ei_parallel_trim.
 */
static void
ei_parallel_take_range(IndexScanDesc scan, Page page, EIPageOpaque opaque)
{
	EIScanOpaque so = (EIScanOpaque) scan->opaque;
	EIScanMerge *sb = so->extra;
	EIParallelScanDesc ps = ei_parallel_desc(scan);
	IndexTuple	hi = NULL;
	EISortEntry hi_entry;

	/* where the range starts: the shared bound, or minus infinity */
	ei_parallel_load_bound(scan);

	/* where it ends: the high key in leaf form, or plus infinity */
	if (!EI_RIGHTMOST(opaque))
		hi = ei_high_key_entry(scan->indexRelation, so->currPos.buf,
							   sb->hi_space, &hi_entry, sb->esort);

	/* our entries in [lo, hi); ranges come in ascending order */
	while (sb->own_next < sb->nitems)
	{
		EISortEntry *entry = &sb->entries[sb->own_next];

		if (hi != NULL && EIEntryCompare(sb->esort, entry, &hi_entry) >= 0)
			break;
		if (sb->lo == NULL ||
			EIEntryCompare(sb->esort, entry, &sb->lo_entry) >= 0)
			sb->owned[sb->own_next] = true;
		sb->own_next++;
	}

	/* the next page's range starts at the larger of lo and hi */
	if (hi != NULL &&
		(sb->lo == NULL || EIEntryCompare(sb->esort, &hi_entry, &sb->lo_entry) > 0))
	{
		memcpy(ps->low, hi, IndexTupleSize(hi));
		ps->lowSize = IndexTupleSize(hi);
	}
}

/*
 * Make the first data item f that currPos recorded the start of a backward
 * parallel scan's range: copied to the high key space, entry set up to
 * compare it.  Returns the copy.
 */
static IndexTuple
ei_range_from_first(IndexScanDesc scan, EISortEntry *entry)
{
	EIScanOpaque so = (EIScanOpaque) scan->opaque;
	EIScanMerge *sb = so->extra;
	IndexTuple	bound = (IndexTuple) sb->hi_space;

	memcpy(bound, so->currBounds + EI_POS_FIRST, so->currPos.firstSize);
	EIEntrySortSet(sb->esort, entry, bound);
	return bound;
}

/*
 * Take the key range of the leaf a backward parallel scan has just read
 * (still pinned, unlocked, scan seized), publish where the next
 * participant goes on, and let it go; false, with the scan still seized,
 * if the page does not end where the last range began.
 *
 * A leaf does not know its left bound, so we find it: the high key of the
 * live page to its left, which we read after the leaf (walking left past
 * half-dead pages, whose key space is already the leaf's).  The range is
 * [that bound, the bound in the shared state), which we replace with the
 * new bound, and the next participant walks left from the page we walked
 * left from.  A left bound only moves down: by deletions of pages that
 * held no entry our snapshot sees, and, in an index that shifts entries,
 * by a shift into the leaf (or by the deletion of a page a shift emptied
 * of visible entries).  Without shifts the leaf, read before we found its
 * bound, held every tree entry of its range that we must return; the rest
 * are in our collection.  With shifts, the leaf's first item f as read
 * bounds the range instead wherever the bound found lies below it (below).
 * The page the next participant finds must end
 * exactly at the new bound (its high key is the bound, or the bound moved
 * down since, by a deletion, and part of the range it would take now lies
 * in a page already read): otherwise it reads the rest alone
 * (ei_parallel_solo_below).
 */
static bool
ei_parallel_take_range_left(IndexScanDesc scan)
{
	Relation	rel = scan->indexRelation;
	EIScanOpaque so = (EIScanOpaque) scan->opaque;
	EIScanMerge *sb = so->extra;
	EIParallelScanDesc ps = ei_parallel_desc(scan);
	BlockNumber origin = InvalidBlockNumber;
	IndexTuple	bound = NULL;
	EISortEntry bound_entry;
	bool		plus_inf = false;

	/*
	 * Where the range ends: the shared bound, or plus infinity.  A bound of
	 * plus infinity that the reader of an empty rightmost leaf set (below)
	 * is one where no page ends.
	 */
	ei_parallel_load_bound(scan);
	if (sb->lo_inf ||
		(sb->lo != NULL &&
		 (sb->hi == NULL ||
		  EIEntryCompare(sb->esort, &sb->hi_entry, &sb->lo_entry) != 0 ||
		  ei_debug_fault == EI_FAULT_PARALLEL_ALONE)))
		return false;

	/* where it starts: the high key of the live page to the left */
	if (so->currPos.moreLeft)
	{
		BlockNumber blkno = so->currPos.currPage;
		BlockNumber leftblk = so->currPos.prevPage;
		bool		leftknown = true;
		bool		live = false;	/* the walk found a live page */

		for (;;)
		{
			Buffer		buf;
			EIPageOpaque opaque;

			CHECK_FOR_INTERRUPTS();
			buf = ei_walk_left(rel, blkno, leftblk, leftknown);
			if (!BufferIsValid(buf))
				break;
			opaque = EIPageGetOpaque(BufferGetPage(buf));
			if (EI_IGNORE(opaque))
			{
				blkno = BufferGetBlockNumber(buf);
				leftblk = opaque->ei_prev;
				leftknown = true;
				EIRelBuf(rel, buf);
				continue;
			}
			bound = ei_high_key_entry(rel, buf, sb->hi_space, &bound_entry,
									  sb->esort);
			origin = blkno;
			live = true;

			/*
			 * Entries may have moved from that page to the leaf after we
			 * read the leaf (see "Bounds of leaves as read"): if its high
			 * key lies below the leaf's first item f, our range starts at
			 * f, and the next participant, whose page then does not end at
			 * the bound, reads all below it alone, [high key, f) included.
			 */
			if (so->currPos.firstSize != 0 &&
				so->currPos.firstSize != EI_BOUND_INFINITY)
			{
				IndexTuple	f = (IndexTuple) (so->currBounds + EI_POS_FIRST);

				if (ei_bound_below(scan, bound, NULL, f,
								   origin == so->currPos.currPage &&
								   BufferGetBlockNumber(buf) == so->currPos.prevPage &&
								   !so->currPos.firstIsBound,
								   so->currPos.currPage, so->currPos.lsn))
					bound = ei_range_from_first(scan, &bound_entry);
			}

			/*
			 * The leaf was the rightmost and empty when read: f is plus
			 * infinity.  Unless the leaf is unchanged since (the same LSN,
			 * and still this page's right sibling), entries may have moved
			 * into it from this page (after it split, and so stopped being
			 * the rightmost), and its range as read began where this page's
			 * high key was then, above where it is now.  Our range then
			 * begins at plus infinity: we take nothing, and whoever takes
			 * the next page, which cannot end there, reads the rest alone
			 * from the right end (ei_parallel_solo_below), as a scan of its
			 * own would.
			 */
			else if (so->currPos.firstSize == EI_BOUND_INFINITY &&
					 (origin != so->currPos.currPage ||
					  BufferGetBlockNumber(buf) != so->currPos.prevPage ||
					  ei_debug_fault == EI_FAULT_SCAN_BOUNDS ||
					  !ei_leaf_unchanged(rel, so->currPos.currPage,
										 so->currPos.lsn)))
				plus_inf = true;
			EIRelBuf(rel, buf);
			break;
		}

		/*
		 * No live page to the left, though the leaf had a left sibling when
		 * read: that page was deleted (or is half-dead) since, and before it
		 * emptied, a shift may have moved its entries into the leaf.  Our
		 * range begins at f (plus infinity for an empty leaf); the next
		 * participant, whose walk left from the last page we walked from
		 * finds nothing either, reads the rest alone
		 * (ei_parallel_solo_below).
		 */
		if (!live && so->currPos.firstSize != 0 &&
			BlockNumberIsValid(so->currPos.prevPage))
		{
			origin = blkno;
			if (so->currPos.firstSize == EI_BOUND_INFINITY)
				plus_inf = true;
			else
				bound = ei_range_from_first(scan, &bound_entry);
		}
	}
	/* (nothing to the left, or nothing there matches: the range is open) */

	if (plus_inf)
	{
		/* an empty range, and plus infinity as the bound */
		ps->lowSize = 0;
		ps->lowInf = true;
	}
	else
	{
		/* our entries in [bound, lo); ranges come in descending order */
		while (sb->own_prev >= 0)
		{
			EISortEntry *entry = &sb->entries[sb->own_prev];

			if (bound != NULL &&
				EIEntryCompare(sb->esort, entry, &bound_entry) < 0)
				break;
			if (sb->lo == NULL ||
				EIEntryCompare(sb->esort, entry, &sb->lo_entry) < 0)
				sb->owned[sb->own_prev] = true;
			sb->own_prev--;
		}

		if (bound != NULL)
		{
			memcpy(ps->low, bound, IndexTupleSize(bound));
			ps->lowSize = IndexTupleSize(bound);
		}
	}
	sb->hi = NULL;
	ei_parallel_release(scan, origin, InvalidBlockNumber);
	return true;
}

/*
 * Read the rest of a backward parallel scan alone: everything below the
 * bound in the shared state (the scan is seized).  The others stop; we
 * descend to the bound and go on as a scan of our own would, returning all
 * our entries below it.  Returns as ei_read_next_page does.
 */
static bool
ei_parallel_solo_below(IndexScanDesc scan, ScanDirection dir)
{
	Relation	rel = scan->indexRelation;
	EIScanOpaque so = (EIScanOpaque) scan->opaque;
	EIScanMerge *sb = so->extra;
	EIScanInsert key;
	EIStack		stack;
	Buffer		buf;
	Page		page;
	OffsetNumber offnum = InvalidOffsetNumber;
	bool		found;

	ei_parallel_load_bound(scan);
	if (sb->lo == NULL && !sb->lo_inf)
		elog(ERROR, "parallel scan of index \"%s\" lost its range bound",
			 RelationGetRelationName(rel));
	sb->solo = true;
	ei_parallel_done(scan);

	for (int i = 0; i <= sb->own_prev; i++)
	{
		if (sb->lo_inf ||
			EIEntryCompare(sb->esort, &sb->entries[i], &sb->lo_entry) < 0)
			sb->owned[i] = true;
	}
	sb->own_prev = -1;

	/* the last item below the bound (below plus infinity: the last one) */
	ei_pos_invalidate(&so->currPos);
	so->numKilled = 0;
	ei_init_more(so, dir);
	if (sb->lo_inf)
	{
		buf = EIGetEndpoint(rel, 0, true);
		page = BufferGetPage(buf);
		if (!(EIPageGetOpaque(page)->ei_flags & EI_POLICY_LEAF))
			offnum = PageGetMaxOffsetNumber(page);
	}
	else
	{
		key = EIMakeScanKey(rel, sb->lo, true);
		key->nextkey = false;
		stack = EISearch(rel, key, &buf, EI_READ);
		EIFreeStack(stack);
		page = BufferGetPage(buf);
		if (!(EIPageGetOpaque(page)->ei_flags & EI_POLICY_LEAF))
			offnum = OffsetNumberPrev(ei_bound_search(rel, key, page,
													  EI_FIRST_DATA(EIPageGetOpaque(page)),
													  PageGetMaxOffsetNumber(page)));
		pfree(key);
	}

	so->currPos.buf = buf;
	found = ei_read_page(scan, dir, offnum, EI_READ_DESCENT);
	LockBuffer(buf, BUFFER_LOCK_UNLOCK);

	/* (a policy's leaf reads by the scan keys: drop what is not below) */
	while (found && !sb->lo_inf &&
		   so->currPos.lastItem >= so->currPos.firstItem)
	{
		EISortEntry item;

		EIEntrySortSet(sb->esort, &item,
					   (IndexTuple) (so->currTuples +
									 so->currPos.items[so->currPos.lastItem].tupleOffset));
		if (EIEntryCompare(sb->esort, &item, &sb->lo_entry) < 0)
			break;
		so->currPos.lastItem--;
	}
	so->currPos.itemIndex = so->currPos.lastItem;
	if (found && so->currPos.firstItem <= so->currPos.lastItem)
		return true;
	return ei_step_page(scan, dir);
}

/*
 * Drop the items of the page just read (forward, in a parallel scan that
 * took its range) that lie below the range's start: they belong to an
 * earlier range, whose owner returns them.  Returns whether items remain.
 */
static bool
ei_parallel_trim(IndexScanDesc scan, ScanDirection dir, bool found)
{
	EIScanOpaque so = (EIScanOpaque) scan->opaque;
	EIScanMerge *sb = so->extra;

	if (!found || sb == NULL || !sb->parallel || sb->lo == NULL ||
		!ScanDirectionIsForward(dir) || !ei_scan_parallel(scan))
		return found;

	while (so->currPos.firstItem <= so->currPos.lastItem)
	{
		EISortEntry item;

		EIEntrySortSet(sb->esort, &item,
					   (IndexTuple) (so->currTuples +
									 so->currPos.items[so->currPos.firstItem].tupleOffset));
		if (EIEntryCompare(sb->esort, &item, &sb->lo_entry) >= 0)
			break;
		so->currPos.firstItem++;
	}
	so->currPos.itemIndex = so->currPos.firstItem;
	return so->currPos.firstItem <= so->currPos.lastItem;
}

/*
 * Size of the shared state of a parallel scan.
 */
#if PG_VERSION_NUM >= 180000
Size
eiestimateparallelscan(Relation rel, int nkeys, int norderbys)
#elif PG_VERSION_NUM >= 170000
Size
eiestimateparallelscan(int nkeys, int norderbys)
#else
Size
eiestimateparallelscan(void)
#endif
{
	/* room for one range bound (a high key), see ei_parallel_take_range */
	return add_size(offsetof(EIParallelScanDescData, low),
					EI_PARALLEL_BOUND_SPACE);
}

/*
 * Initialize the shared state of a parallel scan.
 */
void
eiinitparallelscan(void *target)
{
	EIParallelScanDesc ps = (EIParallelScanDesc) target;

	SpinLockInit(&ps->mutex);
	ps->status = EI_PARALLEL_NOT_INITIALIZED;
	ps->nextPage = InvalidBlockNumber;
	ps->lowPage = InvalidBlockNumber;
	ps->lowPrev = InvalidBlockNumber;
	ps->lowLsn = InvalidXLogRecPtr;
	ps->lowInf = false;
	ps->lowSize = 0;
	ps->lastCurrPage = InvalidBlockNumber;
	memset(ps->arrElems, 0, sizeof(ps->arrElems));
	ConditionVariableInit(&ps->cv);
}

/*
 * Reset the shared state of a parallel scan so that it starts over.
 */
void
eiparallelrescan(IndexScanDesc scan)
{
	EIParallelScanDesc ps;

	Assert(scan->parallel_scan != NULL);
	ps = ei_parallel_desc(scan);

	SpinLockAcquire(&ps->mutex);
	ps->status = EI_PARALLEL_NOT_INITIALIZED;
	ps->nextPage = InvalidBlockNumber;
	ps->lowPage = InvalidBlockNumber;
	ps->lowPrev = InvalidBlockNumber;
	ps->lowLsn = InvalidXLogRecPtr;
	ps->lowInf = false;
	ps->lowSize = 0;
	ps->lastCurrPage = InvalidBlockNumber;
	SpinLockRelease(&ps->mutex);
}


/* ----------------------------------------------------------------
 * Access method callbacks
 * ----------------------------------------------------------------
 */

/*
 * Start a scan: allocate the scan state; the keys come with eirescan.
 */
IndexScanDesc
eibeginscan(Relation rel, int nkeys, int norderbys)
{
	IndexScanDesc scan;
	EIScanOpaque so;
	const EITreePolicy *policy = EIGetPolicyChecked(rel);

	Assert(norderbys == 0);

	/* our own entries the policy holds back go in first (apply_pending) */
	if (policy->apply_pending)
		policy->apply_pending(rel);
	/* catalog lookups of its leaf ops, before any page lock */
	if (policy->leaf != NULL && policy->leaf->prepare != NULL)
		policy->leaf->prepare(rel);

	scan = RelationGetIndexScan(rel, nkeys, norderbys);

	so = (EIScanOpaque) palloc(sizeof(EIScanOpaqueData));
	so->numberOfKeys = 0;
	so->qual_ok = true;
	if (nkeys > 0)
	{
		so->keyData = (ScanKey) palloc(nkeys * sizeof(ScanKeyData));
		so->keyRequiredFwd = (bool *) palloc0(nkeys * sizeof(bool));
		so->keyRequiredBwd = (bool *) palloc0(nkeys * sizeof(bool));
	}
	else
	{
		so->keyData = NULL;
		so->keyRequiredFwd = NULL;
		so->keyRequiredBwd = NULL;
	}
	ei_pos_invalidate(&so->currPos);
	ei_pos_invalidate(&so->markPos);
	so->markItemIndex = -1;
	so->killedItems = NULL;
	so->numKilled = 0;
	so->currTuples = NULL;
	so->markTuples = NULL;
	so->tuplesSize = 0;
	so->currBounds = NULL;
	so->markBounds = NULL;
	so->scratchBounds = NULL;
	so->scratchInf = false;

	/*
	 * Only an index that shifts entries between leaves needs the bounds of
	 * the leaves read (elastic_btree never shifts, osm_tree with
	 * redistribute_leaves).  Fixed for the scan: changing the choice takes
	 * AccessExclusiveLock, which waits for the scan to end, and a standby
	 * replays it only once no query holds the index.
	 */
	so->moves = (policy->redistribute != NULL && policy->redistribute(rel));
	so->boundKey = NULL;
	so->leaf_state = NULL;
	so->extra_checked = false;
	so->extra = NULL;
	so->arrays = NULL;
	so->arraysCxt = NULL;

	scan->xs_itupdesc = RelationGetDescr(rel);
	scan->opaque = so;

	return scan;
}

/*
 * (Re)start a scan with new key values.
 */
void
eirescan(IndexScanDesc scan, ScanKey scankey, int nscankeys,
		 ScanKey orderbys, int norderbys)
{
	EIScanOpaque so = (EIScanOpaque) scan->opaque;

	if (EIScanPosIsValid(so->currPos))
	{
		if (so->numKilled > 0)
			ei_kill_items(scan);
		ei_pos_unpin(&so->currPos);
	}
	ei_pos_unpin(&so->currPos);
	ei_pos_invalidate(&so->currPos);
	so->numKilled = 0;

	so->markItemIndex = -1;
	ei_pos_unpin(&so->markPos);
	ei_pos_invalidate(&so->markPos);
	ei_buffer_end(so);

	if (scan->xs_want_itup && so->currTuples == NULL)
		ei_alloc_tuples(scan);

	if (scankey != NULL && scan->numberOfKeys > 0)
		memmove(scan->keyData, scankey, scan->numberOfKeys * sizeof(ScanKeyData));
	if (so->leaf_state != NULL)
	{
		const EILeafKindOps *leafops = EIGetPolicyChecked(scan->indexRelation)->leaf;

		if (leafops->rescan)
			leafops->rescan(scan);
	}

	ei_preprocess_keys(scan);
}

/*
 * Return the next matching heap TID in the given direction.
 */
bool
eigettuple(IndexScanDesc scan, ScanDirection dir)
{
	EIScanOpaque so = (EIScanOpaque) scan->opaque;

	/* the tree is never lossy */
	scan->xs_recheck = false;

	/* entries from outside the tree are read before it, and merged */
	if (!so->extra_checked)
	{
		so->extra_checked = true;
		if (EIGetPolicyChecked(scan->indexRelation)->scan_collect != NULL &&
			!EIScanPosIsValid(so->currPos))
			ei_buffer_begin(scan);
	}
	if (so->extra != NULL)
		return so->extra->parallel ? ei_gettuple_parallel(scan, dir) :
			ei_gettuple_merged(scan, dir);

	if (!EIScanPosIsValid(so->currPos))
		return ei_first(scan, dir);

	/* remember to kill the item we returned last, if the executor says so */
	if (scan->kill_prior_tuple)
		ei_remember_killed(so);

	return ei_next(scan, dir);
}

/*
 * Add the heap TIDs of all matches to a bitmap; return how many.
 */
int64
eigetbitmap(IndexScanDesc scan, TIDBitmap *tbm)
{
	EIScanOpaque so = (EIScanOpaque) scan->opaque;
	const EITreePolicy *policy = EIGetPolicyChecked(scan->indexRelation);
	int64		ntids = 0;
	IndexTuple *items;
	int			nitems;

	/* the policy's entries first; one also in the tree is added twice */
	if (policy->scan_collect != NULL && so->qual_ok &&
		policy->scan_collect(scan, &items, &nitems))
	{
		bool		recheck = ei_recheck_outside_tree(scan);

		for (int i = 0; i < nitems; i++)
		{
			EIScanCheckHeapTid(scan, &items[i]->t_tid);
			tbm_add_tuples(tbm, &items[i]->t_tid, 1, recheck);
			pfree(items[i]);
		}
		ntids += nitems;
		if (items != NULL)
			pfree(items);
	}

	if (!ei_first(scan, ForwardScanDirection))
		return ntids;

	do
	{
		int			i;

		for (i = so->currPos.itemIndex; i <= so->currPos.lastItem; i++)
		{
			EIScanCheckHeapTid(scan, &so->currPos.items[i].heapTid);
			tbm_add_tuples(tbm, &so->currPos.items[i].heapTid, 1,
						   so->currPos.recheck);
			ntids++;
		}
		so->currPos.itemIndex = so->currPos.lastItem;
	} while (ei_step_page(scan, ForwardScanDirection));

	return ntids;
}

/*
 * End a scan, releasing its pins and memory.
 */
void
eiendscan(IndexScanDesc scan)
{
	EIScanOpaque so = (EIScanOpaque) scan->opaque;

	if (EIScanPosIsValid(so->currPos) && so->numKilled > 0)
		ei_kill_items(scan);
	ei_pos_unpin(&so->currPos);
	ei_pos_invalidate(&so->currPos);

	so->markItemIndex = -1;
	ei_pos_unpin(&so->markPos);
	ei_pos_invalidate(&so->markPos);
	ei_buffer_end(so);

	if (so->keyData != NULL)
		pfree(so->keyData);
	if (so->keyRequiredFwd != NULL)
		pfree(so->keyRequiredFwd);
	if (so->keyRequiredBwd != NULL)
		pfree(so->keyRequiredBwd);
	if (so->killedItems != NULL)
		pfree(so->killedItems);
	if (so->currTuples != NULL)
		pfree(so->currTuples);
	if (so->markTuples != NULL)
		pfree(so->markTuples);
	if (so->currBounds != NULL)
		pfree(so->currBounds);
	if (so->markBounds != NULL)
		pfree(so->markBounds);
	if (so->scratchBounds != NULL)
		pfree(so->scratchBounds);
	if (so->boundKey != NULL)
		pfree(so->boundKey);
	if (so->arraysCxt != NULL)
		MemoryContextDelete(so->arraysCxt);
	if (so->leaf_state != NULL)
	{
		const EILeafKindOps *leafops = EIGetPolicyChecked(scan->indexRelation)->leaf;

		if (leafops->endscan)
			leafops->endscan(scan);
	}
	pfree(so);
	scan->opaque = NULL;
}

/*
 * Remember the current position for a later eirestrpos.
 *
 * While the scan stays on the marked page, remembering the item index is
 * enough; ei_step_page copies the position into markPos (with its own pin)
 * before it leaves the page.
 */
void
eimarkpos(IndexScanDesc scan)
{
	EIScanOpaque so = (EIScanOpaque) scan->opaque;

	/* the planner never asks (a partial path is never a merge join's inner) */
	if (scan->parallel_scan != NULL)
		elog(ERROR, "parallel scan of index \"%s\" cannot mark its position",
			 RelationGetRelationName(scan->indexRelation));

	ei_pos_unpin(&so->markPos);
	ei_pos_invalidate(&so->markPos);

	if (EIScanPosIsValid(so->currPos))
		so->markItemIndex = so->currPos.itemIndex;
	else
		so->markItemIndex = -1;

	/* the array keys as they were when the marked page was read */
	if (so->arrays != NULL && so->arrays->npositioning > 0)
	{
		EIScanArrays *arrays = so->arrays;

		for (int a = 0; a < arrays->nkeys; a++)
			arrays->markCur[a] = arrays->keys[a].cur;
		arrays->markNeedPrimScan = arrays->needPrimScan;
		arrays->markPrimScanDir = arrays->primScanDir;
		arrays->marked = true;
	}

	/* the merge's own position */
	if (so->extra != NULL)
	{
		if (so->extra->mark == NULL)
		{
			so->extra->mark = MemoryContextAllocZero(so->extra->cxt,
													  sizeof(EIScanMerge));
			so->extra->mark->cxt = so->extra->cxt;
			so->extra->mark->esort = so->extra->esort;
		}
		ei_buffer_copy_state(so->extra->mark, so->extra);
	}
}

/*
 * Go back to the position saved by eimarkpos.
 */
void
eirestrpos(IndexScanDesc scan)
{
	EIScanOpaque so = (EIScanOpaque) scan->opaque;

	if (scan->parallel_scan != NULL)
		elog(ERROR, "parallel scan of index \"%s\" cannot restore a position",
			 RelationGetRelationName(scan->indexRelation));

	if (so->extra != NULL && so->extra->mark != NULL)
		ei_buffer_copy_state(so->extra, so->extra->mark);

	if (so->arrays != NULL && so->arrays->marked)
	{
		EIScanArrays *arrays = so->arrays;

		for (int a = 0; a < arrays->nkeys; a++)
			arrays->keys[a].cur = arrays->markCur[a];
		arrays->needPrimScan = arrays->markNeedPrimScan;
		arrays->primScanDir = arrays->markPrimScanDir;
		ei_arrays_set_args(so);
	}

	if (so->markItemIndex >= 0)
	{
		/* still on the marked page */
		so->currPos.itemIndex = so->markItemIndex;
		return;
	}

	if (EIScanPosIsValid(so->currPos))
	{
		if (so->numKilled > 0)
			ei_kill_items(scan);
		ei_pos_unpin(&so->currPos);
	}
	so->numKilled = 0;

	if (EIScanPosIsValid(so->markPos))
	{
		if (EIScanPosIsPinned(so->markPos))
			IncrBufferRefCount(so->markPos.buf);
		ei_pos_copy(&so->currPos, &so->markPos);
		ei_pos_copy_bounds(scan, false);
		if (so->currTuples != NULL)
			memcpy(so->currTuples, so->markTuples, so->markPos.nextTupleOffset);
	}
	else
		ei_pos_invalidate(&so->currPos);
}
