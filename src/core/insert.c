/*-------------------------------------------------------------------------
 *
 * insert.c
 *	  Insertion into the tree: leaf inserts, the last-leaf (pole) fast path,
 *	  split-point choice, two-phase page splits and new roots.
 *
 * A split happens in two WAL-logged steps, as in nbtree.  The first splits
 * the page, links the new right sibling, and sets EI_INCOMPLETE_SPLIT on
 * the left page; the second inserts the right page's downlink into the
 * parent and clears the flag in the same record.  A crash between the two
 * leaves a tree that readers traverse correctly through right links; the
 * next inserter to pass the left page finishes the split.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/tableam.h"
#include "access/xloginsert.h"
#include "catalog/catalog.h"
#include "eistats.h"
#include "eitree.h"
#include "eitree_xlog.h"
#include "miscadmin.h"
#include "storage/predicate.h"
#include "storage/smgr.h"
#include "utils/rel.h"

static void ei_insert(EIInsertState istate, bool from_batch,
					  bool own_entry);
static bool ei_split_closes_left(EIInsertState istate, Page page);
static void ei_insert_on_page(Relation rel, Buffer buf, Buffer cbuf,
							  EIStack stack, IndexTuple itup,
							  OffsetNumber newitemoff,
							  const EIInsertStateData *istate);
static Buffer ei_split(Relation rel, Buffer buf, Buffer cbuf,
					   OffsetNumber newitemoff, IndexTuple newitem,
					   const EIInsertStateData *istate);
static Buffer ei_split_new_page(Relation rel, Buffer buf, Page leftpage,
								Page rightpage, Buffer *sbuf);
static void ei_split_install(Relation rel, Buffer buf, Buffer rbuf,
							 Buffer sbuf, Buffer cbuf, Page leftpage,
							 Page rightpage, OffsetNumber firstright,
							 OffsetNumber newitemoff, IndexTuple newitem,
							 IndexTuple lefthikey, bool left_image);
static void ei_finish_split(Relation rel, Buffer buf, Buffer rbuf,
							EIStack stack, bool isroot);
static int	ei_run_split_point(Relation rel, Page page, IndexTuple newitem,
							   Size *sizes, OffsetNumber *origoff, int nitems,
							   Size usable, Size hikeysz,
							   const EIInsertStateData *istate,
							   bool streamleaf, IndexTuple *separator);
static bool ei_ends_leading_stream(Relation rel, Page page,
								   OffsetNumber first,
								   OffsetNumber newitemoff,
								   IndexTuple newitem);
static int	ei_stream_split_point(Relation rel, Page page, IndexTuple newitem,
								  Size *sizes, OffsetNumber *origoff,
								  int nitems, Size usable, Size hikeysz,
								  const EIInsertStateData *istate);
static bool ei_only_a_head_follows(Relation rel, Page page,
								   OffsetNumber newitemoff);
static bool ei_extends_leaf_end(Relation rel, Page page,
								OffsetNumber first, IndexTuple newitem);
static bool ei_stream_boundary(Relation rel, Page page, IndexTuple newitem,
							   OffsetNumber *origoff, int k);
static int	ei_stream_aligned_split(Relation rel, Page page,
									IndexTuple newitem, OffsetNumber *origoff,
									int nitems, bool *feasible, int best);
static inline IndexTuple ei_split_item(Page page, const OffsetNumber *origoff,
									 IndexTuple newitem, int k);
static int	ei_key_aligned_split(Page page, IndexTuple newitem,
								 const OffsetNumber *origoff, const Size *sizes,
								 int nitems, const bool *feasible, int best);
static OffsetNumber ei_find_split_loc(Relation rel, Page page,
									  OffsetNumber newitemoff,
									  IndexTuple newitem,
									  const EIInsertStateData *istate,
									  bool *newitemonleft,
									  IndexTuple *separator);
static void ei_new_root(Relation rel, Buffer lbuf, Buffer rbuf);
/* what ei_pole_check found */
typedef enum EIPoleResult
{
	EI_POLE_TAKES,				/* the pole takes the entry (locked) */
	EI_POLE_ELSEWHERE,			/* the pole is fine; the entry is not its */
	EI_POLE_GONE				/* no usable pole */
} EIPoleResult;

/* entries in a row outside the pole after which osm_tree forgets it */
#define EI_POLE_MISSES	8

static EIPoleResult ei_pole_check(Relation rel, EIScanInsert key, Size itemsz,
								  Buffer *bufp);
static Buffer ei_fastpath_leaf(Relation rel, EIScanInsert key, Size itemsz,
							   bool patient);
static void ei_remember_leaf(Relation rel, BlockNumber blkno, bool rightmost);
static void ei_forget_pole(Relation rel);

/*
 * Bytes a leaf's high key made from itup takes, line pointer included: its
 * key (a posting list's without its TIDs, as EIFormPivot cuts them) and
 * the heap TID.
 */
#define EI_LEAF_HIKEY_SIZE(itup) \
	(MAXALIGN(EIPostingKeySize(itup) + sizeof(ItemPointerData)) + \
	 sizeof(ItemIdData))

/* how many entries back a split looks for its inserter's previous row */
#define EI_RUN_LOOKBACK		8
/* how far (in heap blocks) the row before it may be from a run's new row */
#define EI_RUN_NEAR_BLOCKS	16
/* how many padded entries an insert-multi record takes as they are */
#define EI_RUN_DIRECT_PIECES	8
/* the least share of a leaf's items a stream's run splits at its end for */
#define EI_STREAM_RUN_DIV	16
static int	ei_drop_copies(IndexTuple *items, int nitems);
static bool ei_delete_dead_items(Relation rel, Relation heapRel, Buffer buf);

static bool ei_prepare_insert(Relation rel, Relation heapRel,
							  const EITreePolicy *policy);
static int	ei_insert_run(Relation rel, Buffer buf, EIStack stack, bool dedup,
						  bool own_entries, IndexTuple *items, int nitems,
						  EIScanInsert key, const EIFastCompare *fc,
						  bool *dense, bool *no_append,
						  OffsetNumber **split_for_run, int *nplanned);
static Buffer ei_append_page(Relation rel, Buffer buf, bool dedup,
							 IndexTuple *items, int nitems, int *nappended);
static int	ei_run_split(Relation rel, Buffer buf, EIStack stack,
						 bool own_entries, IndexTuple *items, int nitems,
						 EIScanInsert key, const EIFastCompare *fc,
						 bool kind, bool dedup,
						 const OffsetNumber *planned, int nplanned);
static Page ei_run_split_standard_left(Relation rel, uint16 oflags,
									   IndexTuple *merged,
									   const bool *fromrun, int lastold,
									   int *take, IndexTuple *hikey);
static bool ei_entries_arrived_in_order(IndexTuple *entries, int n);
static Page ei_append_policy_leaf(Relation rel, Page origpage,
								  IndexTuple *items, int nitems, int *nused,
								  IndexTuple *hikey);
static int	ei_offset_cmp(const void *a, const void *b);
static IndexTuple ei_posting_split_prepare(EIInsertState istate,
											 OffsetNumber *offnum);
static bool ei_dedup_pass(Relation rel, Buffer buf);
static bool ei_leaf_holds(Relation rel, EIScanInsert key, Page page,
						  OffsetNumber *offp);

/*
 * Set up the insertion state of one entry: its scan key (nextkey), and what
 * the policy must read before any leaf is locked.
 */
static void
ei_insert_begin(EIInsertState istate, Relation rel, Relation heapRel,
				IndexTuple itup)
{
	const EITreePolicy *policy = EIGetPolicyChecked(rel);

	EICheckPreloaded();
	EICheckItemSize(rel, heapRel, itup);

	memset(istate, 0, sizeof(EIInsertStateData));
	istate->rel = rel;
	istate->heapRel = heapRel;
	istate->itup = itup;
	istate->itemsz = MAXALIGN(IndexTupleSize(itup));
	istate->buf = InvalidBuffer;
	istate->policy_memo = -1;
	istate->postingoff = 0;
	istate->posting_listoff = InvalidOffsetNumber;
	istate->nposting = NULL;
	istate->origitup = NULL;
	istate->deduplicate = false;
	istate->may_be_present = false;

	/*
	 * Pivots are copies of the first item of their right page, so a page's
	 * high key is an exclusive bound: an entry equal to a pivot (same key and
	 * a heap TID that VACUUM freed and the heap reused) belongs to its right.
	 * Entries are unique, so searching for the first item > key (nextkey)
	 * finds the one place the entry can take.
	 */
	istate->key = EIMakeScanKey(rel, itup, true);
	istate->key->nextkey = true;

	istate->deduplicate = ei_prepare_insert(rel, heapRel, policy);
}

/*
 * What an insert of single entries or of a sorted batch reads before any
 * buffer lock: what the policy needs, whether the index deduplicates (both
 * catalog lookups), then the table's flag (after those lookups, which can
 * reset rd_amcache, where the note lives) and the metapage copy, so that no
 * leaf lock waits for the metapage; an index that deduplicates has its
 * metapage say so (EIMetaSetPosting) before a dedup pass or an append can
 * write a list.  Returns whether it deduplicates.
 */
static bool
ei_prepare_insert(Relation rel, Relation heapRel, const EITreePolicy *policy)
{
	bool		dedup;

	if (policy->insert_prepare)
		policy->insert_prepare(rel, heapRel);
	dedup = EIGetDeduplicate(rel, false);
	EINoteHeapRel(rel, heapRel);
	(void) EIGetMetaCached(rel, false);
	if (dedup)
		EIMetaSetPosting(rel);
	return dedup;
}

/*
 * Insert one leaf tuple (t_tid already set to the heap TID).
 */
bool
EIDoInsert(Relation rel, IndexTuple itup, Relation heapRel)
{
	EIInsertStateData istate;

	ei_insert_begin(&istate, rel, heapRel, itup);
	ei_insert(&istate, false, true);
	pfree(istate.key);
	return false;
}

/*
 * The one path by which an entry reaches its leaf.
 *
 * The leaf is the backend's pole, if the entry belongs there and fits
 * (ei_pole_check), or the one a descent finds.  A full standard leaf first
 * gives back the space of entries known to be dead; if it is still full,
 * the policy may change its kind instead of splitting it (the elastic
 * policy makes it compact near the size bound).  A standard leaf takes the
 * entry, splitting if it must; a leaf of the policy's kind takes it through
 * the policy's leaf ops, which may ask for a split and a new descent.
 *
 * from_batch: an entry of osm_tree's batches or insert buffer, which may be
 * in the tree already (a batch applied again after an error) and is then
 * not inserted twice (ei_leaf_holds, which looks inside posting lists: a
 * full leaf of such an entry gets the dedup pass as any other); and whose
 * pole survives a few entries that land elsewhere (EI_POLE_MISSES), as
 * near-sorted input keeps returning to it.
 *
 * own_entry: the entry is this transaction's, so a serializable
 * transaction checks the leaf for rw-conflicts with the predicate locks of
 * readers (as _bt_doinsert does); false for entries of other transactions
 * that osm_tree's flush moves from the insert buffer (see src/README.md,
 * "Predicate locks").
 */
static void
ei_insert(EIInsertState istate, bool from_batch, bool own_entry)
{
	Relation	rel = istate->rel;
	const EITreePolicy *policy = EIGetPolicyChecked(rel);

	/* a policy's leaf that unlocks itself checks again (src/README.md) */
	istate->own_entry = own_entry;
	/* a batch's entry may be in the tree already, on a leaf of any kind */
	if (from_batch)
		istate->may_be_present = true;
	for (;;)
	{
		Page		page;
		OffsetNumber offnum;
		bool		via_pole;
		EILeafInsertResult leaf_result;

		istate->items_checked = false;
		istate->buf = ei_fastpath_leaf(rel, istate->key, istate->itemsz,
									   from_batch);
		via_pole = BufferIsValid(istate->buf);
		if (!via_pole)
			istate->stack = EISearch(rel, istate->key, &istate->buf, EI_WRITE);
		page = BufferGetPage(istate->buf);

		if (!(EIPageGetOpaque(page)->ei_flags & EI_POLICY_LEAF))
		{
			if (istate->may_be_present &&
				ei_leaf_holds(rel, istate->key, page, &offnum))
			{
				/* there already */
				EIRelBuf(rel, istate->buf);
				break;
			}

			if (PageGetFreeSpace(page) < istate->itemsz)
			{
				/* a full leaf ends a patient pole too, as any miss does */
				if (from_batch)
					ei_forget_pole(rel);
				ei_delete_dead_items(rel, istate->heapRel, istate->buf);
				if (PageGetFreeSpace(page) < istate->itemsz &&
					istate->deduplicate)
					istate->items_checked = ei_dedup_pass(rel, istate->buf);
				if (PageGetFreeSpace(page) < istate->itemsz &&
					policy->leaf_full != NULL)
				{
					bool		changed;

					EIGuardLeaf(istate->buf);
					changed = policy->leaf_full(istate);
					EIGuardLeaf(InvalidBuffer);
					if (changed)
					{
						istate->leaf_changed = true;
						istate->items_checked = false;
					}
				}

				/*
				 * Still full: give entries to the right sibling, if the
				 * policy wants it; the entry may then belong there.
				 */
				if (PageGetFreeSpace(page) < istate->itemsz &&
					!(EIPageGetOpaque(page)->ei_flags & EI_POLICY_LEAF) &&
					policy->redistribute != NULL &&
					istate->stack != NULL &&
					!EI_RIGHTMOST(EIPageGetOpaque(page)) &&
					policy->redistribute(rel) &&
					!ei_split_closes_left(istate, page) &&
					EIShiftRight(istate) &&
					EICompare(rel, istate->key, page, EI_HIKEY) >= 0)
				{
					EIRelBuf(rel, istate->buf);
					EIFreeStack(istate->stack);
					istate->stack = NULL;
					continue;
				}
			}
		}

		/*
		 * an entry a standard leaf holds already was not inserted, nor counted
		 * (one a compact leaf holds is counted as a descent or fast-path insert)
		 */
		EIStatsCount(rel, via_pole ? EI_STAT_FASTPATH_INSERTS :
					 EI_STAT_DESCENTS, 1);

		/*
		 * The leaf is where a reader that looked for this key took its
		 * predicate lock (a pole is taken only for a key inside its range),
		 * so a serializable writer checks it here, under the leaf's lock.
		 */
		if (own_entry)
			CheckForSerializableConflictIn(rel, NULL,
										   BufferGetBlockNumber(istate->buf));

		if (!(EIPageGetOpaque(page)->ei_flags & EI_POLICY_LEAF))
		{
			IndexTuple	newitem;

			offnum = EIBinSearch(rel, istate->key, page);
			newitem = ei_posting_split_prepare(istate, &offnum);
			ei_insert_on_page(rel, istate->buf, InvalidBuffer, istate->stack,
							  newitem, offnum, istate);
			if (newitem != istate->itup)
			{
				pfree(newitem);
				pfree(istate->nposting);
				istate->nposting = NULL;
				istate->postingoff = 0;
			}
			break;
		}

		/* a leaf of the policy's kind: insert, or split it and start over */
		if (policy->leaf == NULL)
			ereport(ERROR,
					(errcode(ERRCODE_INDEX_CORRUPTED),
					 errmsg("index \"%s\" has a leaf of a kind its access method does not have in block %u",
							RelationGetRelationName(rel),
							BufferGetBlockNumber(istate->buf))));
		EIGuardLeaf(istate->buf);
		leaf_result = policy->leaf->insert(istate);
		EIGuardLeaf(InvalidBuffer);
		switch (leaf_result)
		{
			case EI_LEAF_INSERTED:
				break;
			case EI_LEAF_FULL:
				EIGuardLeaf(istate->buf);
				policy->leaf->split(istate);
				EIGuardLeaf(InvalidBuffer);
				/* fall through */
			case EI_LEAF_RESTART:
				EIFreeStack(istate->stack);
				istate->stack = NULL;
				continue;
		}
		break;
	}

	istate->buf = InvalidBuffer;
	istate->items_checked = false;
	EIFreeStack(istate->stack);
	istate->stack = NULL;

	if (istate->leaf_changed && policy->insert_done != NULL)
		policy->insert_done(istate);
}

/*
 * Would the split of the full leaf page for istate's entry keep at least
 * three quarters of its bytes on the left?  Such a split closes the left
 * page nearly full where the split rules see a run or the end of a stream
 * (src/README.md, "Splits of near-sorted input", "Many sorted streams"),
 * which no shift improves on; a shift is tried only instead of a split
 * nearer the middle.
 */
static bool
ei_split_closes_left(EIInsertState istate, Page page)
{
	OffsetNumber newitemoff = EIBinSearch(istate->rel, istate->key, page);
	OffsetNumber minoff = EI_FIRST_DATA(EIPageGetOpaque(page));
	OffsetNumber maxoff = PageGetMaxOffsetNumber(page);
	OffsetNumber firstright;
	IndexTuple	separator = NULL;
	bool		newitemonleft;
	Size		left = 0;
	Size		total = 0;

	firstright = ei_find_split_loc(istate->rel, page, newitemoff, istate->itup,
								   istate, &newitemonleft, &separator);
	for (OffsetNumber off = minoff; off <= maxoff; off = OffsetNumberNext(off))
	{
		Size		sz = MAXALIGN(ItemIdGetLength(PageGetItemId(page, off)));

		total += sz;
		if (off < firstright)
			left += sz;
	}
	return left * 4 >= total * 3;
}

/*
 * The posting list right before offnum on the leaf if the key compares
 * equal to it (its TID range covers the key's heap TID), else NULL.
 */
static IndexTuple
ei_list_before(Relation rel, EIScanInsert key, Page page, OffsetNumber offnum)
{
	IndexTuple	list;

	if (offnum <= EI_FIRST_DATA(EIPageGetOpaque(page)))
		return NULL;
	list = EIReadTupleChecked(rel, page, OffsetNumberPrev(offnum));
	if (!EITupleIsPosting(list) ||
		EICompare(rel, key, page, OffsetNumberPrev(offnum)) != 0)
		return NULL;
	return list;
}

/*
 * Prepare a posting split if the entry's heap TID falls inside the range of
 * the posting list before *offnum (where EIBinSearch with nextkey put it,
 * the list comparing equal): as nbtree's _bt_swap_posting, the list takes
 * the TID and gives up its last one, which the returned copy of the entry
 * carries to *offnum.  Returns istate->itup itself otherwise.  A TID the
 * list holds already is damage (each heap TID is in the index once).
 *
 * A list marked LP_DEAD (every TID of it dead, ei_kill_items) must not
 * take a live TID: scans would skip the new row, and the next
 * ei_delete_dead_items would remove the list with it as known deletable.
 * As nbtree (_bt_binsrch_posting refuses a dead list, and
 * _bt_findinsertloc deletes dead items and searches again), the leaf's
 * dead items go first, and *offnum is searched again; a list still there
 * (nothing could be deleted: no table at hand, or a stale garbage flag)
 * loses its LP_DEAD mark when the split writes it (ei_insert_on_page and
 * its redo, ei_split's copy of the page), as the mark only ever says its
 * TIDs may be dead.
 */
static IndexTuple
ei_posting_split_prepare(EIInsertState istate, OffsetNumber *offnum)
{
	Relation	rel = istate->rel;
	Page		page = BufferGetPage(istate->buf);
	OffsetNumber listoff;
	IndexTuple	list;
	IndexTuple	newitem;
	const char *what;
	int			postingoff;
	ItemPointerData oldmax;

	list = ei_list_before(rel, istate->key, page, *offnum);
	if (list == NULL)
		return istate->itup;
	if (ItemIdIsDead(PageGetItemId(page, OffsetNumberPrev(*offnum))) &&
		ei_delete_dead_items(rel, istate->heapRel, istate->buf))
	{
		istate->items_checked = false;
		*offnum = EIBinSearch(rel, istate->key, page);
		list = ei_list_before(rel, istate->key, page, *offnum);
		if (list == NULL)
			return istate->itup;
	}

	/*
	 * A dead list still there (nothing deleted) loses its mark in the
	 * split's critical section, and in redo: ei_insert_on_page, and
	 * ei_split's copy of the page.
	 */
	listoff = OffsetNumberPrev(*offnum);

	if ((what = EIPostingProblem(list)) != NULL)
		EIItemCorrupted(rel, page, listoff, what);
	postingoff = EIPostingFind(list, &istate->itup->t_tid);
	if (postingoff <= 0 || postingoff >= EIPostingCount(list))
		ereport(ERROR,
				(errcode(ERRCODE_INDEX_CORRUPTED),
				 errmsg("index \"%s\" holds heap TID (%u,%u) already, in the posting list at offset %u of block %u",
						RelationGetRelationName(rel),
						ItemPointerGetBlockNumber(&istate->itup->t_tid),
						ItemPointerGetOffsetNumber(&istate->itup->t_tid),
						listoff, BufferGetBlockNumber(istate->buf)),
				 errhint("Please REINDEX it.")));

	istate->nposting = EIPostingSwap(list, &istate->itup->t_tid, postingoff,
									 &oldmax);
	istate->postingoff = (uint16) postingoff;
	istate->posting_listoff = listoff;
	istate->origitup = istate->itup;
	newitem = CopyIndexTuple(istate->itup);
	newitem->t_tid = oldmax;
	return newitem;
}

/*
 * The dedup pass (src/README.md, "Posting lists"; nbtree's
 * _bt_dedup_pass): merge the runs of equal keys of the full write-locked
 * standard leaf buf into posting lists of at most EI_MAX_POSTING_SIZE, so
 * that an insert may fit without a split.  Items marked LP_DEAD are left
 * as they are.  The runs are found (EIDedupIntervals) and the new page
 * built in private memory (EIDedupBuildPage, which redo calls with the
 * logged intervals) before the critical section copies it over the leaf
 * and logs the intervals (XLOG_EI_INSERT_MULTI's dedup form).  Does
 * nothing when no run has two entries.  Returns whether it checked the
 * leaf's items (a split under the same lock need not check them again).
 */
static bool
ei_dedup_pass(Relation rel, Buffer buf)
{
	Page		page = BufferGetPage(buf);
	EIPageOpaque opaque = EIPageGetOpaque(page);
	EIDedupInterval intervals[MaxIndexTuplesPerPage];
	int			nintervals;
	Page		newpage;
	const char *problem;

	if (!EI_IS_LEAF(opaque) || (opaque->ei_flags & EI_POLICY_LEAF) ||
		PageGetMaxOffsetNumber(page) <= EI_FIRST_DATA(opaque))
		return false;

	/* its items are read whole and copied: check them first */
	EICheckPageItems(rel, buf);

	nintervals = EIDedupIntervals(page, intervals);
	if (nintervals == 0)
		return true;
	newpage = EIDedupBuildPage(page, intervals, nintervals, &problem);
	if (newpage == NULL)
		elog(ERROR, "dedup pass: %s in block %u of index \"%s\"",
			 problem, BufferGetBlockNumber(buf), RelationGetRelationName(rel));

	START_CRIT_SECTION();
	PageRestoreTempPage(newpage, page);
	MarkBufferDirty(buf);
	if (RelationNeedsWAL(rel))
	{
		xl_ei_insert_multi xlrec;
		XLogRecPtr	recptr;

		xlrec.nitems = 0;
		xlrec.nintervals = nintervals;
		XLogBeginInsert();
		XLogRegisterData((char *) &xlrec, SizeOfEIInsertMultiDedup);
		XLogRegisterBuffer(0, buf, REGBUF_STANDARD);
		XLogRegisterBufData(0, (char *) intervals,
							sizeof(EIDedupInterval) * nintervals);
		recptr = XLogInsert(EI_RMGR_ID, XLOG_EI_INSERT_MULTI);
		PageSetLSN(page, recptr);
	}
	END_CRIT_SECTION();
	return true;
}

/*
 * Insert entries sorted by (keys, heap TID), one leaf at a time.
 *
 * Each descent finds the leaf of the next entry; every following entry that
 * belongs on the same leaf and fits goes in with it, under one lock and in
 * one WAL record.  On the rightmost leaf, entries past its last item fill
 * it only up to the fill factor; the rest of such a run goes onto whole new
 * leaves, each filled to the fill factor and linked in by a split that moves
 * nothing (ei_append_page).  An entry whose leaf is full or compact takes
 * the ordinary path (EIDoInsert), which splits.  An entry that is already
 * in the tree (a batch applied again after an error) is skipped, so
 * applying the same entries twice adds each once; so is an entry that
 * items holds twice (osm_tree's insert buffer can, see ei_batch_apply),
 * which the sort put next to its copy.  items is compacted in place.
 *
 * own_entries: the entries are this transaction's (osm_tree's batch), and a
 * serializable transaction checks each leaf it writes for rw-conflicts;
 * false for a flush of the insert buffer, which moves other transactions'
 * entries and checks nothing on the flusher's behalf.
 */
void
EIInsertSorted(Relation rel, Relation heapRel, IndexTuple *items, int nitems,
			   bool own_entries)
{
	int			i = 0;
	EIScanInsert key = NULL;	/* one for the batch, refilled per entry */
	EIFastCompare fc;			/* entries compared without it, if set */

	const EITreePolicy *policy = EIGetPolicyChecked(rel);
	bool		dedup;
	bool		no_append = false;	/* an append was refused */
	bool		kind;			/* full leaves split into the policy's kind */

	EICheckPreloaded();
	nitems = ei_drop_copies(items, nitems);
	dedup = ei_prepare_insert(rel, heapRel, policy);
	kind = policy->form_leaves != NULL && policy->form_leaves(rel);

	while (i < nitems)
	{
		EIStack		stack;
		Buffer		buf;
		Page		page;
		int			done;
		bool		dense;
		OffsetNumber *planned = NULL;	/* see ei_insert_run */
		int			nplanned = 0;

		CHECK_FOR_INTERRUPTS();

		if (key == NULL)
		{
			key = EIMakeScanKey(rel, items[i], true);
			EIFastCompareInit(rel, key, &fc);
		}
		else
			EIRefillScanKey(rel, key, items[i]);
		key->nextkey = true;
		stack = EISearch(rel, key, &buf, EI_WRITE);
		page = BufferGetPage(buf);

		done = 0;
		dense = false;
		if (!(EIPageGetOpaque(page)->ei_flags & EI_POLICY_LEAF))
		{
			done = ei_insert_run(rel, buf, stack, dedup, own_entries,
								 items + i, nitems - i, key, &fc, &dense,
								 &no_append, kind ? NULL : &planned,
								 &nplanned);

			/*
			 * The run goes on densely through the leaf past what it holds,
			 * among few of its items: split it for the run at once, the
			 * left half packed with the run (ei_run_split); buf is still
			 * locked, untouched.  If that does not apply after all, the
			 * leaf takes what fits in place, as below.
			 */
			if (planned != NULL)
			{
				done = ei_run_split(rel, buf, stack, own_entries, items + i,
									nitems - i, key, &fc, false, dedup,
									planned, nplanned);
				pfree(planned);
				if (done == 0)
				{
					EIRefillScanKey(rel, key, items[i]);
					key->nextkey = true;
					done = ei_insert_run(rel, buf, stack, dedup, own_entries,
										 items + i, nitems - i, key, &fc,
										 &dense, &no_append, NULL, NULL);
				}
			}
		}
		else
			EIRelBuf(rel, buf);
		EIFreeStack(stack);

		/*
		 * A full standard leaf inside the tree that the batch goes on
		 * densely in: the policy may form its own kind of leaf from the
		 * leaf's entries and the batch's (ei_run_split)
		 */
		if (done == 0 && dense && kind)
		{
			/* the leaf of this entry (ei_insert_run moved the key on) */
			EIRefillScanKey(rel, key, items[i]);
			key->nextkey = true;
			stack = EISearch(rel, key, &buf, EI_WRITE);
			done = ei_run_split(rel, buf, stack, own_entries, items + i,
								nitems - i, key, &fc, true, dedup, NULL, 0);
			if (done == 0)
				EIRelBuf(rel, buf);
			EIFreeStack(stack);
		}

		if (done == 0)
		{
			EIInsertStateData istate;

			/*
			 * A full leaf, or one of the policy's kind: the ordinary path
			 * splits it.  If the batch goes on densely in this leaf, the
			 * split sees the batch's next entries (ei_run_split_point); else
			 * it splits as for any insert.
			 */
			ei_insert_begin(&istate, rel, heapRel, items[i]);
			istate.may_be_present = true;
			if (dense)
			{
				istate.run_next = items + i + 1;
				istate.run_nnext = nitems - i - 1;
			}
			ei_insert(&istate, false, own_entries);
			pfree(istate.key);
			done = 1;
		}
		i += done;
	}
	if (key != NULL)
		pfree(key);
}

/*
 * Drop the entries of a sorted array that equal the one before them (the
 * same heap TID and the same key bytes); return how many are left.  The
 * tree's order sorts by TID after the key, so copies are adjacent.
 */
static int
ei_drop_copies(IndexTuple *items, int nitems)
{
	int			n = Min(nitems, 1);

	for (int i = 1; i < nitems; i++)
	{
		IndexTuple	prev = items[n - 1];
		IndexTuple	cur = items[i];
		Size		sz = IndexTupleSize(cur);

		if (ItemPointerEquals(&prev->t_tid, &cur->t_tid) &&
			IndexTupleSize(prev) == sz &&
			memcmp((char *) prev + sizeof(IndexTupleData),
				   (char *) cur + sizeof(IndexTupleData),
				   sz - sizeof(IndexTupleData)) == 0)
			continue;
		items[n++] = cur;
	}
	return n;
}

/*
 * Put as many of the sorted entries as belong on the write-locked leaf buf
 * and fit there; then, if the leaf is the rightmost and the run goes on
 * past it, append new leaves (with dedup, grouping runs of equal keys into
 * posting lists, ei_append_page).  Releases buf (and consumes nothing but
 * the lock when the first entry does not fit).  Returns how many entries were
 * dealt with: inserted, found already present, or appended.  When an entry
 * does not fit, *dense tells whether the batch still holds at least an
 * eighth of the leaf's item count for it: a run worth splitting for.
 * own_entries: check the leaf for serializable conflicts before it (or a
 * leaf appended after it, whose key space it gives up) takes any entry.
 * key: the caller's scan key, refilled here for each entry looked at.
 * *no_append: an append of this batch was refused (ei_append_page); the
 * rightmost leaf then fills in place, and splits when full, as any other.
 * split_for_run (NULL: never): set when the run goes on densely past what
 * the leaf holds and its entries so far passed over few of the leaf's
 * items (keys that arrived early, at most the fill factor's slack of the
 * entries), the case where a split packs its left half with the run
 * (ei_run_split_point).  Nothing is then inserted and buf stays locked,
 * for the caller to split the leaf for the run (ei_run_split) instead of
 * filling it in place first and splitting it after; *split_for_run is
 * then the palloc'd plan of the first *nplanned entries (each one's place
 * among the leaf's items: the offset of the first item after it), which
 * that split need not search again.
 *
 * The leaf is read as it is and changed in place, as nbtree's
 * _bt_insertonpg does: a first pass decides, without touching the page,
 * where each entry goes (its offset among the leaf's old items, and the
 * free space the entries before it took), and the critical section then
 * adds the entries in order, each at its old position plus the number
 * added before it, which is where the WAL record says they went.
 */
static int
ei_insert_run(Relation rel, Buffer buf, EIStack stack, bool dedup,
			  bool own_entries, IndexTuple *items, int nitems,
			  EIScanInsert key, const EIFastCompare *fc, bool *dense,
			  bool *no_append,
			  OffsetNumber **split_for_run, int *nplanned)
{
	Page		page = BufferGetPage(buf);
	EIPageOpaque opaque = EIPageGetOpaque(page);
	bool		rightmost = EI_RIGHTMOST(opaque);
	Size		usable = BLCKSZ - SizeOfPageHeaderData -
		MAXALIGN(sizeof(EIPageOpaqueData));
	Size		slack = usable * (100 - EIGetFillFactor(rel)) / 100;
	OffsetNumber maxoff = PageGetMaxOffsetNumber(page);

	/* the leaf's free space as PageGetFreeSpace counts it, before any entry */
	Size		freespace = PageGetFreeSpace(page);
	Size		taken = 0;		/* by the entries taken so far, line pointers
								 * included */

	/* no more entries than a leaf holds go in, however long the batch */
	int			maxinserted = Min(nitems, MaxIndexTuplesPerPage);
	OffsetNumber *offsets = palloc(sizeof(OffsetNumber) * maxinserted);
	IndexTuple *inserted = palloc(sizeof(IndexTuple) * maxinserted);
	int			ninserted = 0;
	int			k;
	bool		append = false;
	bool		aligned = true; /* every entry padded, in whole words */

	/*
	 * The first old item that sorts after the previous entry (maxoff + 1:
	 * none), or InvalidOffsetNumber before the first entry.
	 */
	OffsetNumber nextold = InvalidOffsetNumber;
	OffsetNumber firstoff = InvalidOffsetNumber;	/* the first entry's */

	for (k = 0; k < nitems; k++)
	{
		IndexTuple	itup = items[k];
		Size		itemsz = MAXALIGN(IndexTupleSize(itup));
		Size		left;
		OffsetNumber off;		/* where it goes among the old items */
		bool		present;
		bool		filled = (k == 0);	/* the caller's key describes the
										 * first entry already */
		int32		cmp = 1;

#ifdef USE_ASSERT_CHECKING
		/* the shortcuts below rely on each entry sorting after the last */
		if (!filled)
			EIRefillScanKey(rel, key, itup);
		filled = true;
		Assert(k == 0 || EICompareLeafTuple(rel, key, items[k - 1]) > 0);
#endif

		/*
		 * Against the leaf's item after the previous entry: without the
		 * scan key where the index allows (EICompareEntriesFast)
		 */
		if (OffsetNumberIsValid(nextold) && nextold <= maxoff &&
			!EICompareEntriesFast(fc, itup,
								  EIReadTupleChecked(rel, page, nextold),
								  &cmp))
		{
			if (!filled)
				EIRefillScanKey(rel, key, itup);
			filled = true;
			key->nextkey = true;
			cmp = EICompare(rel, key, page, nextold);
		}
		if (OffsetNumberIsValid(nextold) && nextold <= maxoff && cmp < 0)
		{
			/*
			 * Right after the previous entry (which sorts before this one)
			 * and before the leaf's next item, so below the high key too: a
			 * run that continues one stream costs one comparison an entry.
			 */
			off = nextold;
			present = false;
		}
		else
		{
			if (!filled)
				EIRefillScanKey(rel, key, itup);
			key->nextkey = true;
			if (!rightmost && EICompare(rel, key, page, EI_HIKEY) >= 0)
				break;			/* belongs to a leaf further right */
			if (nextold == OffsetNumberNext(maxoff))
			{
				/* after the previous entry, past the leaf's last item */
				off = nextold;
				present = false;
			}
			else
				present = ei_leaf_holds(rel, key, page, &off);

			/*
			 * A heap TID inside a posting list's range takes a posting
			 * split, which only the ordinary path makes (EIInsertSorted
			 * hands it this entry).
			 */
			if (!present && ei_list_before(rel, key, page, off) != NULL)
				break;
		}
		if (present)
		{
			/*
			 * off is the item's successor: the next entry sorts after it.
			 * Unless the item is a posting list, whose range may cover the
			 * next entry too (held there, or due a posting split): then the
			 * next entry is searched for, not put before off.
			 */
			nextold = off;
			if (EITupleIsPosting(EIReadTuple(page, OffsetNumberPrev(off))))
				nextold = InvalidOffsetNumber;
			continue;
		}

		left = freespace > taken ? freespace - taken : 0;
		if (left < itemsz || ninserted == maxinserted)
		{
			int			nleaf = maxoff + ninserted -
				EI_FIRST_DATA(opaque) + 1;
			int			want = Max(nleaf / 8, 1);
			int			follow = 0;

			for (int j = k; j < nitems && follow < want; j++)
			{
				if (!rightmost)
				{
					EIRefillScanKey(rel, key, items[j]);
					key->nextkey = true;
					if (EICompare(rel, key, page, EI_HIKEY) >= 0)
						break;
				}
				follow++;
			}
			*dense = (follow >= want);
			break;
		}

		/*
		 * Past the last item of the rightmost leaf, fill only up to the fill
		 * factor, keeping room for the high key an append will add; the run
		 * continues on new leaves.
		 */
		if (rightmost && off > maxoff && !*no_append &&
			left - itemsz < slack + EI_LEAF_HIKEY_SIZE(itup))
		{
			append = true;
			break;
		}

		/* where it lands once the entries before it (all before it) are in */
		if (ninserted == 0)
			firstoff = off;
		offsets[ninserted] = off + ninserted;
		inserted[ninserted++] = itup;
		taken += itemsz + sizeof(ItemIdData);
		if (itemsz != IndexTupleSize(itup) || itemsz % sizeof(uint64) != 0)
			aligned = false;
		nextold = off;
	}

	/*
	 * A run through the leaf among few of its items, past what it holds:
	 * the caller splits the leaf for it (split_for_run above).  The items
	 * the entries so far passed over are the left half's early keys.
	 */
	if (split_for_run != NULL && *dense && !append && ninserted == k &&
		k > 0 && k < nitems && nextold > firstoff &&
		(double) (nextold - firstoff) * EIGetFillFactor(rel) <=
		(double) ninserted * (100 - EIGetFillFactor(rel)))
	{
		for (int j = 0; j < ninserted; j++)
			offsets[j] -= j;
		pfree(inserted);
		*split_for_run = offsets;
		*nplanned = ninserted;
		return 0;
	}

	/* a reader that looked into the leaf's key range locked the leaf */
	if (own_entries && (ninserted > 0 || append))
		CheckForSerializableConflictIn(rel, NULL, BufferGetBlockNumber(buf));

	if (ninserted > 0)
	{
		Size		tupbytes = 0;
		char	   *tupdata = NULL;

		/*
		 * The record's tuples, each padded to MAXALIGN: in one piece of
		 * record data (a record takes only so many pieces), unless a few
		 * already padded entries can go in as they are.
		 */
		if (!aligned || ninserted > EI_RUN_DIRECT_PIECES)
		{
			for (int j = 0; j < ninserted; j++)
				tupbytes += MAXALIGN(IndexTupleSize(inserted[j]));
			tupdata = palloc(tupbytes);
			tupbytes = 0;
			for (int j = 0; j < ninserted; j++)
			{
				Size		sz = MAXALIGN(IndexTupleSize(inserted[j]));

				if (aligned)
				{
					/*
					 * Word by word: most entries are a few words long, and
					 * an inlined memcpy of a length it cannot foresee costs
					 * more than the copy (a rep movs).
					 */
					uint64	   *dst = (uint64 *) (tupdata + tupbytes);
					const uint64 *src = (const uint64 *) inserted[j];

					for (Size w = 0; w < sz / sizeof(uint64); w++)
						dst[w] = src[w];
				}
				else
				{
					memcpy(tupdata + tupbytes, inserted[j],
						   IndexTupleSize(inserted[j]));
					memset(tupdata + tupbytes + IndexTupleSize(inserted[j]),
						   0, sz - IndexTupleSize(inserted[j]));
				}
				tupbytes += sz;
			}
		}

		START_CRIT_SECTION();

		/* the space and the offsets were checked above: this cannot fail */
		for (int j = 0; j < ninserted; j++)
			if (!EIPageAddItemAt(page, (Item) inserted[j],
								 MAXALIGN(IndexTupleSize(inserted[j])),
								 offsets[j]))
				elog(PANIC, "failed to add item to block %u of index \"%s\"",
					 BufferGetBlockNumber(buf), RelationGetRelationName(rel));
		MarkBufferDirty(buf);

		if (RelationNeedsWAL(rel))
		{
			xl_ei_insert_multi xlrec;
			XLogRecPtr	recptr;

			xlrec.nitems = ninserted;
			XLogBeginInsert();
			XLogRegisterData((char *) &xlrec, SizeOfEIInsertMulti);
			XLogRegisterBuffer(0, buf, REGBUF_STANDARD);
			XLogRegisterBufData(0, (char *) offsets,
								sizeof(OffsetNumber) * ninserted);
			/* the tuples, in the order they went in at those offsets */
			if (tupdata != NULL)
				XLogRegisterBufData(0, tupdata, tupbytes);
			else
				for (int j = 0; j < ninserted; j++)
					XLogRegisterBufData(0, (char *) inserted[j],
										IndexTupleSize(inserted[j]));
			recptr = XLogInsert(EI_RMGR_ID, XLOG_EI_INSERT_MULTI);
			PageSetLSN(page, recptr);
		}

		END_CRIT_SECTION();
		EIStatsCount(rel, EI_STAT_BATCH_ENTRIES, ninserted);
		if (tupdata != NULL)
			pfree(tupdata);
	}
	pfree(offsets);
	pfree(inserted);

	if (append)
	{
		int			nappended = 0;
		bool		isroot = EI_IS_ROOT(opaque);	/* before the append */
		Buffer		rbuf;

		rbuf = ei_append_page(rel, buf, dedup, items + k, nitems - k,
							  &nappended);
		if (BufferIsValid(rbuf))
		{
			ei_finish_split(rel, buf, rbuf, stack, isroot);
			return k + nappended;
		}
		*no_append = true;
	}

	EIRelBuf(rel, buf);
	return k;
}

/*
 * A sorted run through a full leaf, split for the run (EIInsertSorted, when
 * the batch goes on densely in the leaf): merge the
 * write-locked standard leaf's items with the run's entries that belong
 * before its high key, and split it into a left leaf holding the first of
 * them, as many as it takes at the fill factor, and a new standard right
 * sibling holding the rest of the leaf's items; the run's entries after
 * those come back to the right sibling (ei_insert_run, then this again when
 * it is full).  The left leaf is in the policy's kind when kind is set (formed
 * from the tuples, no heap reads, as a bulk append forms one), else a
 * standard leaf (ei_run_split_standard_left; the leaf may be the
 * rightmost, and the root, which the policy's kind never splits here).
 * Logged as a SPLIT with both
 * halves as full images, so redo needs nothing new; the downlink follows
 * as for any split.  Returns how many of the run's entries went in, having
 * released buf; or 0, buf still locked and unchanged, when it does not
 * apply (the leaf is not such a leaf any more, holds posting lists, dead
 * items or an entry of the run, or the left leaf would not be what the
 * run's split wants): the caller then takes the ordinary path.
 * planned: the places among the leaf's items of the run's first nplanned
 * entries, as ei_insert_run found them on the same locked leaf, which are
 * not compared again (NULL and 0: none).
 */
static int
ei_run_split(Relation rel, Buffer buf, EIStack stack, bool own_entries,
			 IndexTuple *items, int nitems, EIScanInsert key,
			 const EIFastCompare *fc, bool kind, bool dedup,
			 const OffsetNumber *planned, int nplanned)
{
	const EILeafKindOps *ops = kind ? EIGetPolicyChecked(rel)->leaf : NULL;
	Page		origpage = BufferGetPage(buf);
	EIPageOpaque oopaque = EIPageGetOpaque(origpage);
	BlockNumber origblk = BufferGetBlockNumber(buf);
	OffsetNumber maxoff = PageGetMaxOffsetNumber(origpage);
	bool		rightmost = EI_RIGHTMOST(oopaque);
	bool		isroot = EI_IS_ROOT(oopaque);	/* before the split */
	IndexTuple	lefthikey = NULL;
	IndexTuple *merged;
	bool	   *fromrun;
	int			maxrun;
	int			nold = 0;
	int			nmerged = 0;
	int			lastold = -1;	/* merged index of the leaf's last item */
	int			take;
	int			consumed = 0;
	Page		leftpage = NULL;
	Page		rightpage;
	Buffer		rbuf;
	Buffer		sbuf;

	if ((kind && (ops == NULL || ops->fill_count == NULL ||
				  ops->form == NULL || rightmost)) ||
		!EI_IS_LEAF(oopaque) ||
		(oopaque->ei_flags & (EI_POLICY_LEAF | EI_INCOMPLETE_SPLIT |
							  EI_HALF_DEAD)) != 0 ||
		(!kind && (oopaque->ei_flags & EI_HAS_GARBAGE) != 0))
		return 0;
	EICheckPageItems(rel, buf);

	/*
	 * The leaf's items merged with the run's entries for it, in the tree's
	 * order: an entry before an old item is below the high key; past the
	 * last old item, the high key bounds the run.  No more entries than the
	 * left half can take (the rest come back to the right half): a compact
	 * leaf's count, or for a standard leaf those until the merged items
	 * overfill a page at the fill factor.  Then the old items left over.
	 */
	maxrun = Min(nitems, kind ? EI_MAX_ITEMS_PER_PAGE : MaxIndexTuplesPerPage);
	merged = palloc(sizeof(IndexTuple) * (maxoff + maxrun));
	fromrun = palloc(sizeof(bool) * (maxoff + maxrun));
	{
		OffsetNumber off = EI_FIRST_DATA(oopaque);
		bool		fail = false;
		Size		target = (BLCKSZ - SizeOfPageHeaderData -
							  MAXALIGN(sizeof(EIPageOpaqueData))) *
			EIGetFillFactor(rel) / 100;
		Size		bytes = 0;

		for (int j = 0; j <= maxrun && !fail; j++)
		{
			bool		last = (j == maxrun);
			bool		known = (j < nplanned);	/* its place is planned */
			bool		filled = false;	/* key describes items[j] */

			for (; off <= maxoff; off++)
			{
				IndexTuple	old = EIReadTuple(origpage, off);
				int32		cmp;

				if (last)
					cmp = 1;
				else if (known)
					cmp = off < planned[j] ? 1 : -1;
				else if (!EICompareEntriesFast(fc, items[j], old, &cmp))
				{
					if (!filled)
					{
						EIRefillScanKey(rel, key, items[j]);
						key->nextkey = true;
						filled = true;
					}
					cmp = EICompareLeafTuple(rel, key, old);
				}

				/* lists and entries already there: the ordinary path */
				if (EITupleIsPosting(old) || cmp == 0)
				{
					fail = true;
					break;
				}
				if (cmp < 0)
					break;
				fromrun[nmerged] = false;
				lastold = nmerged;
				merged[nmerged++] = old;
				nold++;
				bytes += MAXALIGN(IndexTupleSize(old)) + sizeof(ItemIdData);
			}
			if (last || fail)
				continue;
			if (!known && off > maxoff && !rightmost && !filled)
			{
				EIRefillScanKey(rel, key, items[j]);
				key->nextkey = true;
				filled = true;
			}
			if (!known && off > maxoff && !rightmost &&
				EICompare(rel, key, origpage, EI_HIKEY) >= 0)
				maxrun = j;		/* belongs to a leaf further right */
			else
			{
				fromrun[nmerged] = true;
				merged[nmerged++] = items[j];
				bytes += MAXALIGN(IndexTupleSize(items[j])) + sizeof(ItemIdData);
				if (!kind && bytes > target)
					maxrun = j + 1; /* the left half is full */
			}
		}

		/*
		 * A standard leaf with posting lists gathers equal keys into lists
		 * (the dedup pass of the ordinary path); this split would not
		 */
		for (int j = 1; j < nmerged && !fail && !kind && dedup; j++)
			fail = EISameKey(merged[j - 1], merged[j]);
		if (fail)
		{
			pfree(merged);
			pfree(fromrun);
			return 0;
		}
	}

	if (kind)
	{
		/*
		 * The kind's leaf, if it takes more than the standard leaf held
		 * (else nothing is gained); at least one entry goes right.  Only a
		 * leaf the merged entries fill, and whose entries arrived in their
		 * order (ei_entries_arrived_in_order): else the leaf of the kind
		 * would span the old leaf's range while most of its rows are still
		 * to come, and take them one at a time.
		 */
		take = Min(ops->fill_count(rel, merged, nmerged,
								   EIGetFillFactor(rel)),
				   nmerged - 1);
		if (take < nmerged - 1 && ei_entries_arrived_in_order(merged, take))
			leftpage = EIFormKindLeaf(rel, ops,
									  (oopaque->ei_flags &
									   ~(EI_ROOT | EI_HAS_GARBAGE |
										 EI_ACCESSED)) |
									  EI_INCOMPLETE_SPLIT,
									  merged, &take, nold, &lefthikey);
	}
	else
		leftpage = ei_run_split_standard_left(rel, oopaque->ei_flags,
											  merged, fromrun, lastold,
											  &take, &lefthikey);
	if (leftpage == NULL)
	{
		pfree(merged);
		pfree(fromrun);
		return 0;
	}

	/*
	 * The right half: the old high key and the leaf's items the left leaf
	 * did not take (they fit: they were on the leaf); the run's entries
	 * among them come back to it, as the batch goes on.
	 */
	rightpage = PageGetTempPage(origpage);
	EIInitPage(rightpage, oopaque->ei_flags &
			   ~(EI_ROOT | EI_HAS_GARBAGE | EI_ACCESSED | EI_INCOMPLETE_SPLIT), 0);
	if (!rightmost)
	{
		IndexTuple	hikey = EIReadTuple(origpage, EI_HIKEY);

		if (PageAddItem(rightpage, (Item) hikey,
						MAXALIGN(IndexTupleSize(hikey)),
						EI_HIKEY, false, false) == InvalidOffsetNumber)
			elog(ERROR, "failed to add high key to right page of split");
	}
	for (int j = take; j < nmerged; j++)
		if (!fromrun[j] &&
			!EIPageAddItemAt(rightpage, (Item) merged[j],
							 MAXALIGN(IndexTupleSize(merged[j])),
							 PageGetMaxOffsetNumber(rightpage) + 1))
			elog(ERROR, "failed to add item to right page of split");
	for (int j = 0; j < take; j++)
		if (fromrun[j])
			consumed++;

	/*
	 * A standard left half against its high key, as ei_split checks; on
	 * failure (a defect in the choice of the high key) nothing has changed,
	 * and the leaf takes the ordinary path, with a warning: an ERROR would
	 * come back at every retry of the same batch or insert-buffer flush
	 */
	if (!kind)
	{
		const char *problem = EICheckSplitBounds(rel, leftpage, rightpage,
													rightmost);

		if (problem != NULL)
		{
			ereport(WARNING,
					(errcode(ERRCODE_INTERNAL_ERROR),
					 errmsg_internal("run split of block %u of index \"%s\" refused: %s",
									 origblk, RelationGetRelationName(rel),
									 problem),
					 errdetail_internal("%d of %d merged entries on the left; the leaf takes the ordinary path.",
										take, nmerged)));
			pfree(leftpage);
			pfree(rightpage);
			pfree(lefthikey);
			pfree(merged);
			pfree(fromrun);
			return 0;
		}
	}

	/* a reader that looked into the leaf's key range locked the leaf */
	if (own_entries)
		CheckForSerializableConflictIn(rel, NULL, origblk);

	rbuf = ei_split_new_page(rel, buf, leftpage, rightpage, &sbuf);

	ei_split_install(rel, buf, rbuf, sbuf, InvalidBuffer, leftpage, rightpage,
					 OffsetNumberNext(maxoff), InvalidOffsetNumber, NULL,
					 lefthikey, true);
	EIStatsCount(rel, EI_STAT_LEAF_SPLITS, 1);
	EIStatsCount(rel, EI_STAT_BATCH_ENTRIES, consumed);
	if (BufferIsValid(sbuf))
		EIRelBuf(rel, sbuf);
	pfree(leftpage);
	pfree(rightpage);
	pfree(lefthikey);
	pfree(merged);
	pfree(fromrun);
	if (RelationGetTargetBlock(rel) == origblk)
		RelationSetTargetBlock(rel, InvalidBlockNumber);

	ei_finish_split(rel, buf, rbuf, stack, isroot);
	return consumed;
}

/*
 * The standard left leaf of a run's split (ei_run_split): the merged
 * entries from the first on, as many as fit at the fill factor but never
 * the leaf's last item (an old item stays right, so the right half is
 * never empty), behind a high key between the last taken and the next
 * (EIFormPivot).  The leaf's items among them that sort after the run's
 * first entry (keys that arrived early) may be at most the fill factor's
 * slack of the run's entries taken, the rule by which a split packs its
 * left half for a run (ei_run_split_point); a leaf with more, or a left
 * leaf that would take no entry of the run, is not split here (NULL).
 * Sets *take and *hikey (palloc'd, as on the page).
 */
static Page
ei_run_split_standard_left(Relation rel, uint16 oflags, IndexTuple *merged,
						   const bool *fromrun, int lastold, int *take,
						   IndexTuple *hikey)
{
	int			ff = EIGetFillFactor(rel);
	Size		usable = BLCKSZ - SizeOfPageHeaderData -
		MAXALIGN(sizeof(EIPageOpaqueData));
	Size		target = usable * ff / 100;
	Size		acc = 0;
	Size		runbytes = 0;	/* of the run's entries taken */
	Size		earlybytes = 0; /* of the leaf's items after the first */
	bool		pastrun = false;
	int			n;
	Page		page;

	for (n = 0; n < lastold; n++)
	{
		Size		sz = MAXALIGN(IndexTupleSize(merged[n])) + sizeof(ItemIdData);

		if (n > 0 && acc + sz + EI_LEAF_HIKEY_SIZE(merged[n]) > target)
			break;
		acc += sz;
		if (fromrun[n])
		{
			runbytes += sz;
			pastrun = true;
		}
		else if (pastrun)
			earlybytes += sz;
	}
	if (runbytes == 0 ||
		(double) earlybytes * ff > (double) runbytes * (100 - ff))
		return NULL;

	/*
	 * The high key is cut from the next entry, which may be longer than the
	 * ones the walk allowed for (a long text key after short ones): a left
	 * half it would overfill is not made here
	 */
	*hikey = EIFormPivot(rel, merged[n - 1], merged[n]);
	if (acc + MAXALIGN(IndexTupleSize(*hikey)) + sizeof(ItemIdData) > usable)
	{
		pfree(*hikey);
		*hikey = NULL;
		return NULL;
	}
	page = (Page) palloc(BLCKSZ);
	EIInitPage(page, (oflags & ~(EI_ROOT | EI_HAS_GARBAGE | EI_ACCESSED)) |
			   EI_INCOMPLETE_SPLIT, 0);
	EIPageGetOpaque(page)->ei_next = EI_METAPAGE;	/* not the rightmost */
	if (!EIPageAddItemAt(page, (Item) *hikey, MAXALIGN(IndexTupleSize(*hikey)),
						 EI_HIKEY))
		elog(ERROR, "failed to add high key to left page of run split");
	for (int j = 0; j < n; j++)
		if (!EIPageAddItemAt(page, (Item) merged[j],
							 MAXALIGN(IndexTupleSize(merged[j])),
							 OffsetNumberNext(EI_HIKEY) + j))
			elog(ERROR, "failed to add item to left page of run split");
	*take = n;
	return page;
}

/*
 * Did the entries (in key order) arrive in that order, so that their key
 * range is filled: does at least half of them have its row in the same heap
 * block as the row of the entry before it, or in the next?  A near-sorted
 * run that arrived in order does (rows out of place are a few); the rows a
 * load sends far ahead of their place (K = L = 5% of 5M rows moves them up
 * to 250k keys) come past the right edge sparsely, from all over the
 * transaction's heap pages, and the rows between them are still to come.
 */
static bool
ei_entries_arrived_in_order(IndexTuple *entries, int n)
{
	int			close = 0;

	for (int i = 1; i < n; i++)
	{
		BlockNumber prev = ItemPointerGetBlockNumber(EILeafMaxTID(entries[i - 1]));
		BlockNumber next = ItemPointerGetBlockNumber(EILeafMinTID(entries[i]));

		if (next == prev || next == prev + 1)
			close++;
	}
	return 2 * close >= n - 1;
}

/*
 * A bulk append of the policy's leaf kind (ei_append_page): if the policy
 * forms new leaves in its kind and the run past the write-locked rightmost
 * leaf's last item fills such a leaf to the fill factor with the leaf's own
 * items, form it in memory from those tuples (no heap reads: the kind
 * takes what it stores from the tuples themselves) behind a new high key
 * between its last entry and the next; set *nused to the run's entries it
 * took and *hikey to the high key.  Returns the page (to replace the old
 * leaf), or NULL if the append stays standard: the policy does not ask for
 * it, the run is too short to fill the leaf (its entries go on standard
 * leaves, as a later, longer run's may), or the entries do not fit.  At
 * least one entry is left for the new rightmost leaf, which stays
 * standard so that the next run's entries are added to it in bulk.
 */
static Page
ei_append_policy_leaf(Relation rel, Page origpage, IndexTuple *items,
					  int nitems, int *nused, IndexTuple *hikey)
{
	const EITreePolicy *policy = EIGetPolicyChecked(rel);
	const EILeafKindOps *ops = policy->leaf;
	EIPageOpaque oopaque = EIPageGetOpaque(origpage);
	OffsetNumber maxoff = PageGetMaxOffsetNumber(origpage);
	int			nold = 0;
	IndexTuple *entries;
	int			take;
	Page		page = NULL;

	*nused = 0;
	*hikey = NULL;
	if (ops == NULL || ops->fill_count == NULL || ops->form == NULL ||
		policy->form_leaves == NULL || !policy->form_leaves(rel) ||
		nitems < 2)
		return NULL;

	/* the old leaf's items, then the run */
	entries = palloc(sizeof(IndexTuple) * (maxoff + nitems));
	for (OffsetNumber off = EI_FIRST_DATA(oopaque); off <= maxoff; off++)
		entries[nold++] = EIReadTuple(origpage, off);
	memcpy(entries + nold, items, sizeof(IndexTuple) * nitems);

	take = ops->fill_count(rel, entries, nold + nitems, EIGetFillFactor(rel));

	/*
	 * A leaf that would not be filled, or would take the whole run; or whose
	 * entries did not arrive in their order (ei_entries_arrived_in_order):
	 * rows that came far ahead of their place, whose neighbours are still to
	 * come, which a leaf of the kind would take one at a time.
	 */
	if (take <= nold || take >= nold + nitems ||
		!ei_entries_arrived_in_order(entries, take))
	{
		pfree(entries);
		return NULL;
	}

	/* the caller sets the real links */
	page = EIFormKindLeaf(rel, ops,
						  (oopaque->ei_flags &
						   ~(EI_ROOT | EI_HAS_GARBAGE | EI_ACCESSED)) |
						  EI_INCOMPLETE_SPLIT,
						  entries, &take, nold, hikey);
	pfree(entries);
	if (page == NULL)
		return NULL;
	*nused = take - nold;
	return page;
}

/*
 * Append a new rightmost leaf after the write-locked rightmost leaf buf,
 * holding the first of the sorted entries (all of them after every item of
 * buf) up to the fill factor.  The old leaf gains a high key and keeps all
 * of its items: this is a split that moves nothing, logged as an
 * XLOG_EI_SPLIT whose first right offset is past the last item and which
 * has no new item, so redo needs nothing new.  Like a split's first phase
 * it leaves EI_INCOMPLETE_SPLIT on buf; the caller inserts the downlink.
 * Returns the new leaf write-locked, or InvalidBuffer (nothing done) if the
 * high key does not fit on buf, or if the pages fail ei_check_split_bounds.
 *
 * With dedup (the index deduplicates), runs of entries with equal keys go
 * onto the new leaf as posting lists, grouped as the build groups them
 * (EIPostingRun): a list never spans leaves, and a run that no longer fits
 * goes whole to the next append.  The record carries the new leaf as a
 * full image, so redo reproduces the lists exactly.
 *
 * When the policy forms its leaves in its own kind (form_leaves: osm_tree's
 * compact leaves), the old leaf is rewritten instead, in that kind, from
 * its own items and as many of the run's first entries as the kind holds
 * at the fill factor (ei_append_policy_leaf), and the rest of the run
 * starts the new standard rightmost leaf; the record then carries the old
 * leaf as a full image too, so redo restores both halves and needs nothing
 * new.
 */
static Buffer
ei_append_page(Relation rel, Buffer buf, bool dedup, IndexTuple *items,
			   int nitems, int *nappended)
{
	Page		origpage = BufferGetPage(buf);
	EIPageOpaque oopaque = EIPageGetOpaque(origpage);
	OffsetNumber maxoff = PageGetMaxOffsetNumber(origpage);
	Size		usable = BLCKSZ - SizeOfPageHeaderData -
		MAXALIGN(sizeof(EIPageOpaqueData));
	Size		slack = usable * (100 - EIGetFillFactor(rel)) / 100;
	IndexTuple	lefthikey;
	Page		leftpage;
	Page		rightpage;
	Buffer		rbuf;
	BlockNumber rightblk;
	OffsetNumber off = FirstOffsetNumber;
	int			n = 0;
	int			first;			/* the first entry on the new leaf */
	bool		left_image = false;
	EIPostingRun run;

	Assert(EI_RIGHTMOST(oopaque) && EI_IS_LEAF(oopaque));

	/* the leaf is rebuilt from its items below (EISplitBuildPages) */
	EICheckPageItems(rel, buf);

	/* or, in the policy's leaf kind, with the run's first entries */
	leftpage = ei_append_policy_leaf(rel, origpage, items, nitems, &n,
									 &lefthikey);
	if (leftpage == NULL)
	{
		lefthikey = EIFormPivot(rel, maxoff >= EI_FIRST_DATA(oopaque) ?
								EIReadTuple(origpage, maxoff) : NULL, items[0]);
		if (PageGetFreeSpace(origpage) < MAXALIGN(IndexTupleSize(lefthikey)))
		{
			pfree(lefthikey);
			return InvalidBuffer;
		}
	}
	first = n;

	/* the new leaf: the run, up to the fill factor (at least one entry) */
	rightpage = PageGetTempPage(origpage);
	EIInitPage(rightpage, EI_LEAF, 0);
	while (n < nitems)
	{
		IndexTuple	entry = items[n];
		int			nentries = 1;	/* of items that entry holds */
		Size		itemsz;

		if (dedup)
		{
			EIPostingRunStart(&run, items[n]);
			while (n + nentries < nitems &&
				   EIPostingRunAdd(&run, items[n + nentries]))
				nentries++;
			entry = EIPostingRunEnd(&run);
		}
		itemsz = MAXALIGN(IndexTupleSize(entry));
		if (n > first &&
			PageGetFreeSpace(rightpage) < itemsz + slack +
			EI_LEAF_HIKEY_SIZE(items[n]))
		{
			if (entry != items[n])
				pfree(entry);
			break;
		}
		if (PageAddItem(rightpage, (Item) entry, itemsz, off,
						false, false) == InvalidOffsetNumber)
			elog(ERROR, "failed to add item to new leaf of index \"%s\"",
				 RelationGetRelationName(rel));
		if (entry != items[n])
			pfree(entry);
		off++;
		n += nentries;
	}

	/* the old leaf: every item stays, behind the new high key */
	if (leftpage == NULL)
	{
		leftpage = PageGetTempPage(origpage);
		EISplitBuildPages(rel, origpage, OffsetNumberNext(maxoff),
						  InvalidOffsetNumber, NULL, false, lefthikey,
						  leftpage, NULL);
	}
	else
		left_image = true;

	/*
	 * A standard left page and the new leaf against the new high key (as
	 * ei_split checks its halves); on failure nothing is appended, and the
	 * caller fills the leaf in place for the rest of the batch
	 * (ei_insert_run's no_append), splitting it by its own items when full.
	 */
	if (!left_image)
	{
		const char *problem = EICheckSplitBounds(rel, leftpage, rightpage,
													true);

		if (problem != NULL)
		{
			ereport(WARNING,
					(errcode(ERRCODE_INTERNAL_ERROR),
					 errmsg_internal("bulk append after block %u of index \"%s\" refused: %s",
									 BufferGetBlockNumber(buf),
									 RelationGetRelationName(rel), problem),
					 errdetail_internal("Last item at offset %u, %d of the run's %d entries on the new leaf; the rest of the batch fills the leaf in place.",
										maxoff, n - first, nitems)));
			pfree(leftpage);
			pfree(rightpage);
			pfree(lefthikey);
			return InvalidBuffer;
		}
	}

	rbuf = EINewBuf(rel);
	rightblk = BufferGetBlockNumber(rbuf);
	EIPageGetOpaque(leftpage)->ei_prev = oopaque->ei_prev;
	EIPageGetOpaque(leftpage)->ei_next = rightblk;
	EIPageGetOpaque(rightpage)->ei_prev = BufferGetBlockNumber(buf);
	EIPageGetOpaque(rightpage)->ei_next = InvalidBlockNumber;

	ei_split_install(rel, buf, rbuf, InvalidBuffer, InvalidBuffer,
					 leftpage, rightpage, OffsetNumberNext(maxoff),
					 InvalidOffsetNumber, NULL, lefthikey, left_image);
	EIStatsCount(rel, EI_STAT_BULK_APPENDED, n);

	pfree(leftpage);
	pfree(rightpage);
	pfree(lefthikey);

	/* the next run starts at the new right edge */
	RelationSetTargetBlock(rel, rightblk);

	*nappended = n;
	return rbuf;
}

/*
 * Does the standard leaf page hold the entry the key (with its heap TID,
 * nextkey) describes?  Sets *offp to where the entry goes (or would go).
 */
static bool
ei_leaf_holds(Relation rel, EIScanInsert key, Page page, OffsetNumber *offp)
{
	OffsetNumber off = EIBinSearch(rel, key, page);
	IndexTuple	prev;

	*offp = off;
	if (off <= EI_FIRST_DATA(EIPageGetOpaque(page)) ||
		EICompare(rel, key, page, OffsetNumberPrev(off)) != 0)
		return false;

	/*
	 * A posting list compares equal to every TID in its range: it holds
	 * the entry only if one of its TIDs is the entry's (else the entry
	 * takes a posting split).  Its bounds were checked by EICompare.
	 */
	prev = EIReadTuple(page, OffsetNumberPrev(off));
	if (EITupleIsPosting(prev))
		return key->scantid != NULL && EIPostingFind(prev, key->scantid) == -1;
	return true;
}

/*
 * osm_tree's direct inserts (osm_tree.top_inserts): put an entry straight
 * into the tree instead of into the insert buffer.
 *
 * If it belongs in the backend's pole (ei_pole_check), that costs one
 * conditional lock and no descent: QuIT's "predicted leaf".  The pole is
 * the rightmost leaf for sorted input, or the leaf two inserts in a row
 * went to, which for near-sorted input is where the in-order keys land
 * while the entries that arrived early sit to its right.  Any other entry
 * is inserted as btree would: a descent finds its leaf (a full one is
 * cleaned up or split by EIDoInsert, whose split rules keep a run's pages
 * full).  An entry outside a pole that is still usable (an outlier) leaves
 * the pole in place, unless EI_POLE_MISSES entries in a row were outside
 * it: then the keys are scattered, and the pole costs a page lock each.
 * An entry already in the leaf (a batch applied again after an error) is
 * not inserted twice.
 *
 * Why not buffer the rest, as the OSM paper does: measured here, a
 * buffered entry costs more than a descent and an insert.  It is written
 * twice (to the buffer, then to its leaf), its flush saves few descents
 * because scattered entries spread over many leaves, and the buffer's tail
 * page is a point every inserting backend contends for.  With 100000
 * single-row inserts from 4 clients (bench/near_sorted), scrambled keys
 * cost 10x btree's index maintenance time through the buffer and about
 * btree's directly; near-sorted ones leave the index 0.69x btree's size
 * through the buffer and 0.71x directly.  See src/README.md, "Direct
 * inserts".
 */
void
EIInsertTop(Relation rel, Relation heapRel, IndexTuple itup)
{
	EIInsertStateData istate;

	ei_insert_begin(&istate, rel, heapRel, itup);
	ei_insert(&istate, true, true);
	pfree(istate.key);
}

/*
 * Look at the leaf remembered by the last insert of this backend (the
 * "pole").
 *
 * That is the rightmost leaf after an insert there, or any leaf that two
 * inserts in a row went to (an ascending run in the middle of the tree,
 * which near-sorted input keeps up; see ei_remember_leaf).  The entry
 * belongs there if it sorts after the leaf's first entry, which is not
 * below the leaf's lower bound, and before its high key.  Returns
 * EI_POLE_TAKES with *bufp write-locked when the key belongs there and
 * fits without a split; EI_POLE_ELSEWHERE when the leaf is fine but the
 * key lies outside it; EI_POLE_GONE when there is no usable pole (none, a
 * busy leaf, a leaf that is full, split incompletely, compact or deleted).
 * Only a conditional lock is taken, so a busy leaf sends us down the
 * normal path instead of queueing.  The caller decides whether to forget
 * the pole.
 */
static EIPoleResult
ei_pole_check(Relation rel, EIScanInsert key, Size itemsz, Buffer *bufp)
{
	BlockNumber blkno = RelationGetTargetBlock(rel);
	Buffer		buf;
	EIPoleResult result = EI_POLE_GONE;

	*bufp = InvalidBuffer;
	if (!BlockNumberIsValid(blkno))
		return EI_POLE_GONE;

	buf = ReadBuffer(rel, blkno);
	if (!ConditionalLockBuffer(buf))
	{
		ReleaseBuffer(buf);
		return EI_POLE_GONE;
	}
	EICheckPage(rel, buf);
	{
		Page		page = BufferGetPage(buf);
		EIPageOpaque opaque = EIPageGetOpaque(page);

		if (EI_IS_LEAF(opaque) && !EI_IGNORE(opaque) &&
			!EI_INCOMPLETE(opaque) && !(opaque->ei_flags & EI_POLICY_LEAF) &&
			PageGetFreeSpace(page) >= itemsz &&
			PageGetMaxOffsetNumber(page) >= EI_FIRST_DATA(opaque))
		{
			if (EICompare(rel, key, page, EI_FIRST_DATA(opaque)) > 0 &&
				(EI_RIGHTMOST(opaque) || EICompare(rel, key, page, EI_HIKEY) < 0))
			{
				*bufp = buf;
				return EI_POLE_TAKES;
			}
			result = EI_POLE_ELSEWHERE;
		}
	}
	UnlockReleaseBuffer(buf);
	return result;
}

/*
 * The fast path of an insert: the pole, write-locked, if the entry belongs
 * there and fits; otherwise InvalidBuffer.  An impatient caller forgets
 * the pole at once; a patient one (entries of osm_tree's batches) only
 * when it is gone or after EI_POLE_MISSES entries in a row went elsewhere.
 */
static Buffer
ei_fastpath_leaf(Relation rel, EIScanInsert key, Size itemsz, bool patient)
{
	Buffer		buf;
	EIPoleResult pole;
	EIRelCache *cache;

	pole = ei_pole_check(rel, key, itemsz, &buf);
	cache = EIGetRelCache(rel);	/* no page read: a leaf may be locked */
	if (pole == EI_POLE_TAKES)
	{
		cache->pole_misses = 0;
		return buf;
	}
	if (!patient || pole == EI_POLE_GONE ||
		++cache->pole_misses >= EI_POLE_MISSES)
		ei_forget_pole(rel);	/* no pole, or scattered keys */
	return InvalidBuffer;
}

/*
 * Stop trying the pole: the next insert descends.
 */
static void
ei_forget_pole(Relation rel)
{
	EIRelCache *cache = (EIRelCache *) rel->rd_amcache;

	RelationSetTargetBlock(rel, InvalidBlockNumber);
	if (cache != NULL)
		cache->pole_misses = 0;
}

/*
 * Note the leaf an insert just went to, and make it the fast path's pole
 * if it is the rightmost leaf or the same leaf as the insert before.  A
 * single repeat is the cheapest sign of a run: scattered inserts rarely hit
 * one leaf twice in a row, so they do not pay for a fast-path attempt that
 * would fail.  Uses the relation cache only if it exists, so that no
 * metapage read happens under the leaf's lock.
 */
static void
ei_remember_leaf(Relation rel, BlockNumber blkno, bool rightmost)
{
	EIRelCache *cache = (EIRelCache *) rel->rd_amcache;
	bool		repeat = false;

	if (cache != NULL)
	{
		repeat = (cache->lastleaf == blkno);
		cache->lastleaf = blkno;
	}
	if (rightmost || repeat)
		RelationSetTargetBlock(rel, blkno);
}

/*
 * Order offset numbers ascending (qsort comparator).
 */
static int
ei_offset_cmp(const void *a, const void *b)
{
	OffsetNumber x = *(const OffsetNumber *) a;
	OffsetNumber y = *(const OffsetNumber *) b;

	return (x > y) - (x < y);
}

/*
 * Remove dead entries from a full, write-locked leaf before it is split.
 *
 * Candidates are the items scans marked LP_DEAD, plus every other item that
 * points into the same heap blocks: the table AM reads those blocks anyway,
 * and finds entries whose heap tuples were pruned to LP_DEAD line pointers or whose
 * whole HOT chain is dead to everyone.  The table AM confirms each candidate
 * and returns the conflict horizon the WAL record carries for standbys.  A
 * page without LP_DEAD hints costs nothing here.  Returns true if anything
 * was removed.
 */
static bool
ei_delete_dead_items(Relation rel, Relation heapRel, Buffer buf)
{
	Page		page = BufferGetPage(buf);
	EIPageOpaque opaque;
	OffsetNumber maxoff;
	OffsetNumber off;
	BlockNumber *deadblocks;
	int			ndeadblocks = 0;
	TM_IndexDeleteOp delstate;
	OffsetNumber *deletable;
	int			ndeletable = 0;
	TransactionId latestRemovedXid;
	bool		isCatalogRel;
	int			i;

	opaque = EIPageGetOpaque(page);
	if (heapRel == NULL || !EI_IS_LEAF(opaque) ||
		!(opaque->ei_flags & EI_HAS_GARBAGE))
		return false;

	/* its items are read and removed below: check them first */
	EICheckPageItems(rel, buf);
	maxoff = PageGetMaxOffsetNumber(page);

	/* the heap blocks holding entries already known to be dead */
	deadblocks = palloc(sizeof(BlockNumber) * EI_MAX_ITEMS_PER_PAGE);
	for (off = EI_FIRST_DATA(opaque); off <= maxoff; off = OffsetNumberNext(off))
	{
		ItemId		iid = PageGetItemId(page, off);
		IndexTuple	itup = EIReadTuple(page, off);
		BlockNumber hblk;

		if (!ItemIdIsDead(iid))
			continue;
		/* a dead posting list: every one of its TIDs (ei_kill_items) */
		for (int t = 0; t < EILeafNTIDs(itup); t++)
		{
			hblk = ItemPointerGetBlockNumber(EITupleIsPosting(itup) ?
											 EIPostingTID(itup, t) :
											 &itup->t_tid);
			for (i = 0; i < ndeadblocks; i++)
				if (deadblocks[i] == hblk)
					break;
			if (i == ndeadblocks && ndeadblocks < EI_MAX_ITEMS_PER_PAGE)
				deadblocks[ndeadblocks++] = hblk;
		}
	}
	if (ndeadblocks == 0)
	{
		/* a stale hint; clearing it is itself only a hint */
		opaque->ei_flags &= ~EI_HAS_GARBAGE;
		MarkBufferDirtyHint(buf, true);
		pfree(deadblocks);
		return false;
	}

	delstate.irel = rel;
	delstate.iblknum = BufferGetBlockNumber(buf);
	delstate.bottomup = false;
	delstate.bottomupfreespace = 0;
	delstate.ndeltids = 0;
	delstate.deltids = palloc(sizeof(TM_IndexDelete) * EI_MAX_ITEMS_PER_PAGE);
	delstate.status = palloc(sizeof(TM_IndexStatus) * EI_MAX_ITEMS_PER_PAGE);

	for (off = EI_FIRST_DATA(opaque); off <= maxoff; off = OffsetNumberNext(off))
	{
		ItemId		iid = PageGetItemId(page, off);
		IndexTuple	itup = EIReadTuple(page, off);
		BlockNumber hblk;
		bool		dead = ItemIdIsDead(iid);
		int			n = delstate.ndeltids;

		/* a live list is not checked; a dead one gives all its TIDs */
		if (EITupleIsPosting(itup))
		{
			if (!dead)
				continue;
			for (int t = 0; t < EIPostingCount(itup); t++)
			{
				n = delstate.ndeltids;
				delstate.deltids[n].tid = *EIPostingTID(itup, t);
				delstate.deltids[n].id = n;
				delstate.status[n].idxoffnum = off;
				delstate.status[n].knowndeletable = true;
				delstate.status[n].promising = false;
				delstate.status[n].freespace = 0;
				delstate.ndeltids++;
			}
			continue;
		}
		hblk = ItemPointerGetBlockNumber(&itup->t_tid);
		if (!dead)
		{
			for (i = 0; i < ndeadblocks; i++)
				if (deadblocks[i] == hblk)
					break;
			if (i == ndeadblocks)
				continue;
		}
		delstate.deltids[n].tid = itup->t_tid;
		delstate.deltids[n].id = n;
		delstate.status[n].idxoffnum = off;
		delstate.status[n].knowndeletable = dead;
		delstate.status[n].promising = false;
		delstate.status[n].freespace = ItemIdGetLength(iid) + sizeof(ItemIdData);
		delstate.ndeltids++;
	}

	latestRemovedXid = table_index_delete_tuples(heapRel, &delstate);

	deletable = palloc(sizeof(OffsetNumber) * EI_MAX_ITEMS_PER_PAGE);
	for (i = 0; i < delstate.ndeltids; i++)
	{
		TM_IndexStatus *status = &delstate.status[delstate.deltids[i].id];

		if (status->knowndeletable)
			deletable[ndeletable++] = status->idxoffnum;
	}

	if (ndeletable > 0)
	{
		int			nuniq = 0;

		/* a dead posting list's offset came once per TID */
		qsort(deletable, ndeletable, sizeof(OffsetNumber), ei_offset_cmp);
		for (i = 0; i < ndeletable; i++)
			if (nuniq == 0 || deletable[nuniq - 1] != deletable[i])
				deletable[nuniq++] = deletable[i];
		ndeletable = nuniq;
		isCatalogRel = RelationIsAccessibleInLogicalDecoding(heapRel);

		START_CRIT_SECTION();

		EIDeleteItems(page, deletable, ndeletable);
		MarkBufferDirty(buf);

		if (RelationNeedsWAL(rel))
		{
			xl_ei_delete xlrec;
			XLogRecPtr	recptr;

			xlrec.latestRemovedXid = latestRemovedXid;
			xlrec.ndeleted = ndeletable;
			xlrec.isCatalogRel = isCatalogRel;
			XLogBeginInsert();
			XLogRegisterData((char *) &xlrec, SizeOfEIDelete);
			XLogRegisterBuffer(0, buf, REGBUF_STANDARD);
			XLogRegisterBufData(0, (char *) deletable,
								ndeletable * sizeof(OffsetNumber));
			recptr = XLogInsert(EI_RMGR_ID, XLOG_EI_DELETE);
			PageSetLSN(page, recptr);
		}

		END_CRIT_SECTION();
		EIStatsCount(rel, EI_STAT_DEAD_REMOVED_ON_INSERT, ndeletable);
	}

	pfree(deadblocks);
	pfree(delstate.deltids);
	pfree(delstate.status);
	pfree(deletable);
	return ndeletable > 0;
}

/*
 * Insert a tuple at newitemoff on a write-locked page, splitting if needed.
 *
 * cbuf, when valid, is the write-locked left child whose split this
 * (downlink) insert completes; its flag is cleared in the same WAL record.
 * Releases buf and cbuf.
 */
static void
ei_insert_on_page(Relation rel, Buffer buf, Buffer cbuf, EIStack stack,
				  IndexTuple itup, OffsetNumber newitemoff,
				  const EIInsertStateData *istate)
{
	Page		page = BufferGetPage(buf);
	EIPageOpaque opaque = EIPageGetOpaque(page);
	Size		itemsz = MAXALIGN(IndexTupleSize(itup));
	bool		isleaf = EI_IS_LEAF(opaque);
	bool		posting = (istate != NULL && istate->postingoff > 0);

	if (PageGetFreeSpace(page) < itemsz)
	{
		bool		isroot = EI_IS_ROOT(opaque);
		Buffer		rbuf;

		rbuf = ei_split(rel, buf, cbuf, newitemoff, itup, istate);
		ei_finish_split(rel, buf, rbuf, stack, isroot);
		return;
	}

	START_CRIT_SECTION();

	/*
	 * A posting split: the list takes the new TID (same size), and is not
	 * dead (ei_posting_split_prepare; redo does the same, as a page image
	 * taken while the list was marked may reach a standby)
	 */
	if (posting)
		EIPostingOverwrite(page, istate->posting_listoff, istate->nposting);
	if (!EIPageAddItemAt(page, (Item) itup, itemsz, newitemoff))
		elog(PANIC, "failed to add item to block %u of index \"%s\"",
			 BufferGetBlockNumber(buf), RelationGetRelationName(rel));
	MarkBufferDirty(buf);

	if (BufferIsValid(cbuf))
	{
		EIPageGetOpaque(BufferGetPage(cbuf))->ei_flags &= ~EI_INCOMPLETE_SPLIT;
		MarkBufferDirty(cbuf);
	}

	if (RelationNeedsWAL(rel))
	{
		xl_ei_insert xlrec;
		XLogRecPtr	recptr;

		xlrec.offnum = newitemoff;
		xlrec.postingoff = posting ? istate->postingoff : 0;
		XLogBeginInsert();
		XLogRegisterData((char *) &xlrec,
						 posting ? SizeOfEIInsertPost : SizeOfEIInsert);
		XLogRegisterBuffer(0, buf, REGBUF_STANDARD);
		/* a posting split logs the entry as it came; redo swaps again */
		XLogRegisterBufData(0, (char *) (posting ? istate->origitup : itup),
							itemsz);
		if (BufferIsValid(cbuf))
			XLogRegisterBuffer(1, cbuf, REGBUF_STANDARD);
		recptr = XLogInsert(EI_RMGR_ID,
							isleaf ? XLOG_EI_INSERT_LEAF : XLOG_EI_INSERT_INNER);
		PageSetLSN(page, recptr);
		if (BufferIsValid(cbuf))
			PageSetLSN(BufferGetPage(cbuf), recptr);
	}

	END_CRIT_SECTION();

	/* remember the leaf for the next insert of this backend */
	if (isleaf)
		ei_remember_leaf(rel, BufferGetBlockNumber(buf), EI_RIGHTMOST(opaque));

	if (BufferIsValid(cbuf))
		EIRelBuf(rel, cbuf);
	EIRelBuf(rel, buf);
}

/*
 * Second phase of a split or a bulk append: insert the right page's
 * downlink (EIInsertParent releases buf and rbuf).  With
 * elastic_index.debug_fault = after_split, stop with an error instead,
 * leaving the split incomplete as a crash here would.
 */
static void
ei_finish_split(Relation rel, Buffer buf, Buffer rbuf, EIStack stack,
				bool isroot)
{
	if (ei_debug_fault == EI_FAULT_AFTER_SPLIT)
	{
		EIRelBuf(rel, rbuf);
		EIRelBuf(rel, buf);
		EIFaultPoint(EI_FAULT_AFTER_SPLIT);
	}
	EIInsertParent(rel, buf, rbuf, stack, isroot);
}

/*
 * Second phase of a leaf split made by EISplitLeafAt (the 2-to-3 split of
 * core/shift.c), with the same debug fault point as every split.
 */
void
EIFinishLeafSplit(Relation rel, Buffer buf, Buffer rbuf, EIStack stack)
{
	ei_finish_split(rel, buf, rbuf, stack, false);
}

/*
 * Build the left and right halves of a split from the original page.
 *
 * Items before firstright (plus the new item if it goes left) stay on the
 * left, behind lefthikey; the rest go right, behind the original high key.
 * On an inner page the first item moved right becomes its minus infinity.
 * The same function rebuilds the left page during redo (rightpage NULL),
 * so primary and standby produce identical pages.  Sibling links are left
 * to the caller.
 */
void
EISplitBuildPages(Relation rel, Page origpage, OffsetNumber firstright,
				  OffsetNumber newitemoff, IndexTuple newitem,
				  bool newitemonleft, IndexTuple lefthikey,
				  Page leftpage, Page rightpage)
{
	EIPageOpaque oopaque = EIPageGetOpaque(origpage);
	bool		isleaf = EI_IS_LEAF(oopaque);
	uint16		flags = oopaque->ei_flags &
		~(EI_ROOT | EI_HAS_GARBAGE | EI_INCOMPLETE_SPLIT);
	OffsetNumber maxoff = PageGetMaxOffsetNumber(origpage);
	OffsetNumber off;
	OffsetNumber leftoff = EI_FIRSTKEY;
	OffsetNumber rightoff;
	bool		rightfirst = true;

	EIInitPage(leftpage, flags | EI_INCOMPLETE_SPLIT, oopaque->ei_level);
	if (!EIPageAddItemAt(leftpage, (Item) lefthikey,
						 MAXALIGN(IndexTupleSize(lefthikey)), EI_HIKEY))
		elog(ERROR, "failed to add high key to left page of split");

	if (rightpage != NULL)
	{
		EIInitPage(rightpage, flags, oopaque->ei_level);
		if (!EI_RIGHTMOST(oopaque))
		{
			IndexTuple	hikey = EIReadTuple(origpage, EI_HIKEY);

			if (!EIPageAddItemAt(rightpage, (Item) hikey,
								 MAXALIGN(IndexTupleSize(hikey)), EI_HIKEY))
				elog(ERROR, "failed to add high key to right page of split");
			rightoff = EI_FIRSTKEY;
		}
		else
			rightoff = EI_HIKEY;
	}

	/* walk original items plus the new one, in order */
	for (off = EI_FIRST_DATA(oopaque); off <= maxoff + 1; off++)
	{
		IndexTuple	items[2];
		int			nitems = 0;
		int			i;

		if (off == newitemoff)
			items[nitems++] = newitem;
		if (off <= maxoff)
			items[nitems++] = EIReadTuple(origpage, off);

		for (i = 0; i < nitems; i++)
		{
			IndexTuple	itup = items[i];
			bool		isnew = (itup == newitem);
			bool		toleft;

			if (isnew)
				toleft = newitemonleft;
			else
				toleft = (off < firstright);

			if (toleft)
			{
				if (!EIPageAddItemAt(leftpage, (Item) itup,
									 MAXALIGN(IndexTupleSize(itup)), leftoff))
					elog(ERROR, "failed to add item to left page of split");
				leftoff++;
			}
			else if (rightpage != NULL)
			{
				IndexTuple	minusinf = NULL;

				if (!isleaf && rightfirst)
					itup = minusinf = EIFormMinusInf(EITupleGetDownlink(itup));
				if (!EIPageAddItemAt(rightpage, (Item) itup,
									 MAXALIGN(IndexTupleSize(itup)), rightoff))
					elog(ERROR, "failed to add item to right page of split");
				rightoff++;
				rightfirst = false;
				if (minusinf)
					pfree(minusinf);
			}
		}
	}
}

/*
 * Take the new page for the right half of a split of the write-locked page
 * buf, link the halves built in private memory (leftpage, rightpage)
 * between buf's siblings, and write-lock buf's right sibling into *sbuf
 * (InvalidBuffer when buf is the rightmost), checking that it links back.
 * Returns the new page, write-locked.
 */
static Buffer
ei_split_new_page(Relation rel, Buffer buf, Page leftpage, Page rightpage,
				  Buffer *sbuf)
{
	EIPageOpaque oopaque = EIPageGetOpaque(BufferGetPage(buf));
	BlockNumber origblk = BufferGetBlockNumber(buf);
	Buffer		rbuf = EINewBuf(rel);
	BlockNumber rightblk = BufferGetBlockNumber(rbuf);

	EIPageGetOpaque(leftpage)->ei_prev = oopaque->ei_prev;
	EIPageGetOpaque(leftpage)->ei_next = rightblk;
	EIPageGetOpaque(rightpage)->ei_prev = origblk;
	EIPageGetOpaque(rightpage)->ei_next = oopaque->ei_next;
	*sbuf = InvalidBuffer;
	if (!EI_RIGHTMOST(oopaque))
	{
		EIPageOpaque sopaque;

		*sbuf = EIGetBuf(rel, oopaque->ei_next, EI_WRITE);
		sopaque = EIPageGetOpaque(BufferGetPage(*sbuf));
		if (sopaque->ei_prev != origblk)
			ereport(ERROR,
					(errcode(ERRCODE_INDEX_CORRUPTED),
					 errmsg("right sibling's left-link doesn't match: block %u links to %u instead of expected %u in index \"%s\"",
							oopaque->ei_next, sopaque->ei_prev, origblk,
							RelationGetRelationName(rel))));
	}
	return rbuf;
}

/*
 * Put the two halves of a split in place and WAL-log them (XLOG_EI_SPLIT),
 * in one critical section: leftpage replaces buf, rightpage goes to the new
 * page rbuf, the old right sibling sbuf (if valid) gets its left link and
 * cbuf (if valid), the child whose split this completes, loses its
 * EI_INCOMPLETE_SPLIT flag.  newitem is the new item if it went left (redo
 * rebuilds the left page from the original one with it), else NULL.  A
 * bulk append (ei_append_page) is the case that moves nothing:
 * firstright past the last item and no new item.
 */
static void
ei_split_install(Relation rel, Buffer buf, Buffer rbuf, Buffer sbuf,
				 Buffer cbuf, Page leftpage, Page rightpage,
				 OffsetNumber firstright, OffsetNumber newitemoff,
				 IndexTuple newitem, IndexTuple lefthikey, bool left_image)
{
	Page		origpage = BufferGetPage(buf);
	BlockNumber rightblk = BufferGetBlockNumber(rbuf);
	EIPageOpaque lopaque = EIPageGetOpaque(leftpage);
	bool		newitemonleft = (newitem != NULL);

	/*
	 * The left half replaces the original page in place: it keeps the
	 * original's LSN, or XLogInsert would think the page was never logged
	 * and attach a full image of it to every split.
	 */
	PageSetLSN(leftpage, PageGetLSN(origpage));

	START_CRIT_SECTION();

	memcpy(origpage, leftpage, BLCKSZ);
	memcpy(BufferGetPage(rbuf), rightpage, BLCKSZ);
	MarkBufferDirty(buf);
	MarkBufferDirty(rbuf);
	if (BufferIsValid(sbuf))
	{
		EIPageGetOpaque(BufferGetPage(sbuf))->ei_prev = rightblk;
		MarkBufferDirty(sbuf);
	}
	if (BufferIsValid(cbuf))
	{
		EIPageGetOpaque(BufferGetPage(cbuf))->ei_flags &= ~EI_INCOMPLETE_SPLIT;
		MarkBufferDirty(cbuf);
	}

	if (RelationNeedsWAL(rel))
	{
		xl_ei_split xlrec;
		XLogRecPtr	recptr;

		xlrec.level = lopaque->ei_level;
		xlrec.firstrightoff = firstright;
		xlrec.newitemoff = newitemoff;
		xlrec.flags = newitemonleft ? EI_XLOG_SPLIT_NEWITEM_LEFT : 0;

		XLogBeginInsert();
		XLogRegisterData((char *) &xlrec, SizeOfEISplit);
		XLogRegisterBuffer(0, buf, REGBUF_STANDARD |
						   (left_image ? REGBUF_FORCE_IMAGE : 0));
		if (newitemonleft)
			XLogRegisterBufData(0, (char *) newitem,
								MAXALIGN(IndexTupleSize(newitem)));
		XLogRegisterBufData(0, (char *) lefthikey,
							MAXALIGN(IndexTupleSize(lefthikey)));
		XLogRegisterBuffer(1, rbuf, REGBUF_STANDARD | REGBUF_FORCE_IMAGE);
		if (BufferIsValid(sbuf))
			XLogRegisterBuffer(2, sbuf, REGBUF_STANDARD);
		if (BufferIsValid(cbuf))
			XLogRegisterBuffer(3, cbuf, REGBUF_STANDARD);

		recptr = XLogInsert(EI_RMGR_ID, XLOG_EI_SPLIT);
		PageSetLSN(origpage, recptr);
		PageSetLSN(BufferGetPage(rbuf), recptr);
		if (BufferIsValid(sbuf))
			PageSetLSN(BufferGetPage(sbuf), recptr);
		if (BufferIsValid(cbuf))
			PageSetLSN(BufferGetPage(cbuf), recptr);
	}

	END_CRIT_SECTION();

	/*
	 * A leaf's key space is now divided between two pages: serializable
	 * readers' predicate locks on it cover the right page too (as nbtree's
	 * _bt_insertonpg does after _bt_split).  Outside the critical section,
	 * with both pages still locked, so no insert into the right page can
	 * come first.
	 */
	if (lopaque->ei_level == 0)
		PredicateLockPageSplit(rel, BufferGetBlockNumber(buf), rightblk);
}

/*
 * Split a write-locked page to make room for newitem (first phase).
 *
 * Returns the new right page, write-locked; buf stays locked and now
 * carries EI_INCOMPLETE_SPLIT.  cbuf (a child whose split the new item
 * completes) is released.
 */
static Buffer
ei_split(Relation rel, Buffer buf, Buffer cbuf, OffsetNumber newitemoff,
		 IndexTuple newitem, const EIInsertStateData *istate)
{
	Page		origpage = BufferGetPage(buf);
	EIPageOpaque oopaque = EIPageGetOpaque(origpage);
	BlockNumber origblk = BufferGetBlockNumber(buf);
	bool		isleaf = EI_IS_LEAF(oopaque);
	bool		newitemonleft;
	OffsetNumber firstright;
	IndexTuple	firstrightitem;
	IndexTuple	separator;
	IndexTuple	lefthikey;
	Buffer		rbuf;
	Buffer		sbuf = InvalidBuffer;
	Page		leftpage;
	Page		rightpage;
	const EIInsertStateData *choice = istate;
	EIInsertStateData plain;

	/*
	 * Every item is copied to a new page below, and the right one is logged
	 * as a full image: check them all first, so that damage is reported
	 * here rather than copied into pages that look intact (unless the dedup
	 * pass did so under the lock we hold: istate->items_checked).
	 */
	if (istate == NULL || !istate->items_checked || istate->buf != buf)
		EICheckPageItems(rel, buf);

	/*
	 * A posting split: split the page as it is with the list rewritten (a
	 * private copy; same size), and log the left half as a full image,
	 * which redo restores instead of rebuilding it.
	 */
	if (istate != NULL && istate->postingoff > 0)
	{
		origpage = PageGetTempPageCopy(BufferGetPage(buf));
		EIPostingOverwrite(origpage, istate->posting_listoff,
						   istate->nposting);
	}

	/*
	 * Choose the split point, form the left page's high key and build both
	 * halves in private memory; nothing is visible yet.  A leaf's halves are
	 * checked against the high key (ei_check_split_bounds).  A split that
	 * fails the check after rules that looked at a batch's next entries is
	 * chosen again without them, by the rules that take the high key from
	 * the leaf's own items (a flush would otherwise fail the same way at
	 * every retry); any other failure is an error.
	 */
	for (int attempt = 0;; attempt++)
	{
		const char *problem;

		firstright = ei_find_split_loc(rel, origpage, newitemoff, newitem,
									   choice, &newitemonleft, &separator);

		/*
		 * The left page's new high key bounds it from the first right item,
		 * or from the batch entry a sorted run's split falls before.
		 */
		if (separator != NULL)
			firstrightitem = separator;
		else if (!newitemonleft && newitemoff == firstright)
			firstrightitem = newitem;
		else
			firstrightitem = EIReadTuple(origpage, firstright);
		if (isleaf)
		{
			IndexTuple	lastleftitem = NULL;

			/* the last item left of the split, to truncate the pivot against */
			if (separator != NULL)
				lastleftitem = NULL;
			else if (newitemonleft && newitemoff == firstright)
				lastleftitem = newitem;
			else if (firstright > EI_FIRST_DATA(oopaque))
				lastleftitem = EIReadTuple(origpage, OffsetNumberPrev(firstright));
			lefthikey = EIFormPivot(rel, lastleftitem, firstrightitem);
		}
		else
		{
			lefthikey = CopyIndexTuple(firstrightitem);
			EITupleSetDownlink(lefthikey, InvalidBlockNumber);
		}

		leftpage = PageGetTempPage(origpage);
		rightpage = PageGetTempPage(origpage);
		EISplitBuildPages(rel, origpage, firstright, newitemoff, newitem,
						  newitemonleft, lefthikey, leftpage, rightpage);
		if (!isleaf)
			break;
		problem = EICheckSplitBounds(rel, leftpage, rightpage,
										EI_RIGHTMOST(oopaque));
		if (problem == NULL)
			break;
		if (attempt > 0 || choice == NULL || choice->run_next == NULL)
			ereport(ERROR,
					(errcode(ERRCODE_INTERNAL_ERROR),
					 errmsg_internal("split of block %u of index \"%s\" refused: %s",
									 origblk, RelationGetRelationName(rel),
									 problem),
					 errdetail_internal("First right offset %u, new item offset %u%s.",
										firstright, newitemoff,
										separator != NULL ? ", high key from a batch entry" : "")));
		ereport(WARNING,
				(errcode(ERRCODE_INTERNAL_ERROR),
				 errmsg_internal("split of block %u of index \"%s\" by its batch's entries refused: %s",
								 origblk, RelationGetRelationName(rel), problem),
				 errdetail_internal("First right offset %u, new item offset %u%s; chosen again without them.",
									firstright, newitemoff,
									separator != NULL ? ", high key from a batch entry" : "")));
		plain = *choice;
		plain.run_next = NULL;
		plain.run_nnext = 0;
		choice = &plain;
		pfree(leftpage);
		pfree(rightpage);
		pfree(lefthikey);
	}

	rbuf = ei_split_new_page(rel, buf, leftpage, rightpage, &sbuf);

	ei_split_install(rel, buf, rbuf, sbuf, cbuf, leftpage, rightpage,
					 firstright, newitemoff, newitemonleft ? newitem : NULL,
					 lefthikey, origpage != BufferGetPage(buf));
	EIStatsCount(rel, isleaf ? EI_STAT_LEAF_SPLITS : EI_STAT_INNER_SPLITS, 1);
	if (origpage != BufferGetPage(buf))
		pfree(origpage);

	if (BufferIsValid(sbuf))
		EIRelBuf(rel, sbuf);
	if (BufferIsValid(cbuf))
		EIRelBuf(rel, cbuf);
	pfree(leftpage);
	pfree(rightpage);
	pfree(lefthikey);

	/* the right edge moved; let the next insert find it by descending */
	if (isleaf && RelationGetTargetBlock(rel) == origblk)
		RelationSetTargetBlock(rel, InvalidBlockNumber);

	return rbuf;
}

/*
 * Split the write-locked standard leaf buf before its item firstright,
 * without a new item (first phase): the items from firstright on go to a
 * new right page, which is returned write-locked; buf stays locked and
 * carries EI_INCOMPLETE_SPLIT, for the caller's EIInsertParent.  The
 * caller has checked the leaf's items (EICheckPageItems).  A 2-to-3 split
 * (core/shift.c) splits a full right sibling so this way before it shifts
 * entries into it.
 */
Buffer
EISplitLeafAt(Relation rel, Buffer buf, OffsetNumber firstright)
{
	Page		origpage = BufferGetPage(buf);
	EIPageOpaque oopaque = EIPageGetOpaque(origpage);
	BlockNumber origblk = BufferGetBlockNumber(buf);
	IndexTuple	lefthikey;
	Page		leftpage;
	Page		rightpage;
	Buffer		rbuf;
	Buffer		sbuf = InvalidBuffer;
	const char *problem;

	Assert(EI_IS_LEAF(oopaque));
	if (firstright <= EI_FIRST_DATA(oopaque) ||
		firstright > PageGetMaxOffsetNumber(origpage))
		elog(ERROR, "split of block %u of index \"%s\" at offset %u, outside its items",
			 origblk, RelationGetRelationName(rel), firstright);

	lefthikey = EIFormPivot(rel, EIReadTuple(origpage, OffsetNumberPrev(firstright)),
							EIReadTuple(origpage, firstright));
	leftpage = PageGetTempPage(origpage);
	rightpage = PageGetTempPage(origpage);
	EISplitBuildPages(rel, origpage, firstright, InvalidOffsetNumber, NULL,
					  false, lefthikey, leftpage, rightpage);
	problem = EICheckSplitBounds(rel, leftpage, rightpage,
								 EI_RIGHTMOST(oopaque));
	if (problem != NULL)
		ereport(ERROR,
				(errcode(ERRCODE_INTERNAL_ERROR),
				 errmsg_internal("split of block %u of index \"%s\" refused: %s",
								 origblk, RelationGetRelationName(rel),
								 problem),
				 errdetail_internal("First right offset %u, no new item.",
									firstright)));

	rbuf = ei_split_new_page(rel, buf, leftpage, rightpage, &sbuf);
	ei_split_install(rel, buf, rbuf, sbuf, InvalidBuffer, leftpage, rightpage,
					 firstright, InvalidOffsetNumber, NULL, lefthikey, false);
	EIStatsCount(rel, EI_STAT_LEAF_SPLITS, 1);

	if (BufferIsValid(sbuf))
		EIRelBuf(rel, sbuf);
	pfree(leftpage);
	pfree(rightpage);
	pfree(lefthikey);
	if (RelationGetTargetBlock(rel) == origblk)
		RelationSetTargetBlock(rel, InvalidBlockNumber);
	return rbuf;
}

/*
 * Check the two halves of a leaf split, built in private memory, before
 * they are installed: the left half's last item (a posting list by its
 * last TID) must sort before the new high key, and the right half's first
 * item (by its first TID) must not.  A split that broke either would put
 * entries where descents do not look for them.  Returns what is wrong, or
 * NULL.  Only a defect in the split's choice of its high key can get here,
 * never a page read from disk: EICheckPageItems checked its items, and
 * the split keeps their order.  rightmost: the split page was the
 * rightmost, so the right half has no high key.
 */
const char *
EICheckSplitBounds(Relation rel, Page leftpage, Page rightpage,
					  bool rightmost)
{
	EIPageOpaque lopaque = EIPageGetOpaque(leftpage);
	BlockNumber lnext = lopaque->ei_next;
	OffsetNumber lmax = PageGetMaxOffsetNumber(leftpage);
	OffsetNumber rfirst = rightmost ? EI_HIKEY : EI_FIRSTKEY;
	EIScanInsert key;
	const char *what = NULL;

	/*
	 * EICompare reads the left half's high key as a pivot only on a page
	 * that is not the rightmost; the real links are set after the check.
	 */
	lopaque->ei_next = EI_METAPAGE;
	if (lmax >= EI_FIRSTKEY)
	{
		IndexTuple	last = EIReadTuple(leftpage, lmax);

		key = EIMakeScanKey(rel, last, true);
		key->scantid_data = *EILeafMaxTID(last);
		key->scantid = &key->scantid_data;
		if (EICompare(rel, key, leftpage, EI_HIKEY) >= 0)
			what = "the left half's last item is not less than its high key";
		pfree(key);
	}
	if (what == NULL && PageGetMaxOffsetNumber(rightpage) >= rfirst)
	{
		key = EIMakeScanKey(rel, EIReadTuple(rightpage, rfirst), true);
		if (EICompare(rel, key, leftpage, EI_HIKEY) < 0)
			what = "the right half's first item is less than the left half's high key";
		pfree(key);
	}
	lopaque->ei_next = lnext;
	return what;
}

/*
 * Did the row of heap TID b arrive right after the row of heap TID a?
 * Rows appended to a heap in one go get consecutive TIDs: the next offset
 * on the same block, or the first offset of the next block.
 */
static bool
ei_heap_tids_adjacent(ItemPointer a, ItemPointer b)
{
	BlockNumber ablk = ItemPointerGetBlockNumber(a);
	BlockNumber bblk = ItemPointerGetBlockNumber(b);

	if (ablk == bblk)
		return ItemPointerGetOffsetNumber(b) == ItemPointerGetOffsetNumber(a) + 1;
	return bblk == ablk + 1 && ItemPointerGetOffsetNumber(b) == FirstOffsetNumber;
}

/*
 * Does newitem, about to go at newitemoff, land shortly after the entry of
 * the row its inserter added just before it?  Looking a few entries back
 * rather than one keeps this true when several sessions load one run
 * together: their rows interleave in key order, but each session's rows
 * are still adjacent in the heap.  The entry right before the new one must
 * also be recent (its row a few heap blocks from the new row): a second
 * pass over keys that an earlier pass loaded also follows its own previous
 * row, but between the old rows of the first pass, and there a fill-factor
 * split would leave a small page behind the pass at every split.
 */
static bool
ei_follows_own_row(Page page, OffsetNumber first, OffsetNumber newitemoff,
				   IndexTuple newitem)
{
	BlockNumber newblk = ItemPointerGetBlockNumber(&newitem->t_tid);
	BlockNumber prevblk;

	if (newitemoff <= first)
		return false;
	prevblk = ItemPointerGetBlockNumber(EILeafMaxTID(EIReadTuple(page, newitemoff - 1)));
	if ((prevblk > newblk ? prevblk - newblk : newblk - prevblk) > EI_RUN_NEAR_BLOCKS)
		return false;

	for (OffsetNumber off = newitemoff - 1;
		 off >= first && off + EI_RUN_LOOKBACK >= newitemoff; off--)
	{
		if (ei_heap_tids_adjacent(EILeafMaxTID(EIReadTuple(page, off)),
								  &newitem->t_tid))
			return true;
	}
	return false;
}

/*
 * Does newitem, about to go at newitemoff, end a stream that begins the
 * leaf?  Streams are what the key attributes but the last tell apart (an
 * index on (device, ts)): the leaf's items before the new one must all be
 * of its stream, and the item after it of another.
 */
static bool
ei_ends_leading_stream(Relation rel, Page page, OffsetNumber first,
					   OffsetNumber newitemoff, IndexTuple newitem)
{
	EIScanInsert key;
	bool		result;

	if (IndexRelationGetNumberOfKeyAttributes(rel) < 2 ||
		newitemoff <= first || newitemoff > PageGetMaxOffsetNumber(page))
		return false;

	/* the stream's key: every key attribute but the last, no heap TID */
	key = EIMakeScanKey(rel, newitem, true);
	key->keysz = IndexRelationGetNumberOfKeyAttributes(rel) - 1;
	key->scantid = NULL;
	result = EICompare(rel, key, page, first) == 0 &&
		EICompare(rel, key, page, newitemoff) != 0;
	pfree(key);
	return result;
}

/*
 * Where a sorted run that ends one stream of many splits a full leaf: just
 * before the next stream's first item, so that the left page keeps the
 * stream's items and the run, and the other streams' items go right.
 *
 * In an index on (device, ts) with many devices each appending in ts order,
 * a batch holds a run of each device's new entries, and each run lands at
 * the end of its device's key range: in the middle of a leaf, before the
 * next device's items.  Those items are not early keys of the run, and the
 * fill-factor walk (ei_run_split_point) refuses to pack them; a split by the
 * split factor then cuts through the next device's items, and every later
 * run of either device splits a leaf in its middle again (70% leaf fill).
 * Split at the stream boundary instead, and the left page ends where the
 * device's key range ends: the device's later runs land at the end of a
 * leaf that holds only its entries, which the rule for entries past a
 * leaf's last item fills to the fill factor, as at the right edge.
 *
 * The caller has checked that the new entry ends the stream the leaf
 * begins with (ei_ends_leading_stream), so the left page holds that one
 * stream.  It applies when the run (the new entry and the batch entries
 * that land before the next stream's first item) holds at least a
 * sixteenth of the leaf's item count (a stream that fills leaves, not a
 * few entries of each of many small ones, which this would give a leaf
 * each), and the left page with the whole run stays within the fill
 * factor (beyond it, the walk packs the left page with the run alone).
 * Returns the number of virtual items that go left, or -1.
 */
static int
ei_stream_split_point(Relation rel, Page page, IndexTuple newitem,
					  Size *sizes, OffsetNumber *origoff, int nitems,
					  Size usable, Size hikeysz,
					  const EIInsertStateData *istate)
{
	Size		target = usable * EIGetFillFactor(rel) / 100;
	Size		leftitems = 0;
	Size		runbytes = 0;
	Size		total = 0;
	int			nrun = 1;		/* the new entry */
	EIScanInsert key = NULL;
	OffsetNumber nextoff;
	int			newidx;
	int			j;

	for (newidx = 0; newidx < nitems; newidx++)
		if (origoff[newidx] == InvalidOffsetNumber)
			break;
	Assert(newidx > 0 && newidx + 1 < nitems);
	nextoff = origoff[newidx + 1];

	/* the run: the batch's entries that land before the next stream */
	for (j = 0; j < istate->run_nnext; j++)
	{
		IndexTuple	next = istate->run_next[j];
		int32		cmp;

		if (ItemPointerEquals(&next->t_tid, &newitem->t_tid))
			continue;
		/* one key, refilled for each entry */
		if (key == NULL)
			key = EIMakeScanKey(rel, next, true);
		else
			EIRefillScanKey(rel, key, next);
		cmp = EICompare(rel, key, page, nextoff);
		if (cmp >= 0)
			break;
		runbytes += MAXALIGN(IndexTupleSize(next)) + sizeof(ItemIdData);
		nrun++;
	}
	if (key != NULL)
		pfree(key);
	if (nrun < Max((nitems - 1) / EI_STREAM_RUN_DIV, 1))
		return -1;

	for (j = 0; j < nitems; j++)
	{
		total += sizes[j];
		if (j <= newidx)
			leftitems += sizes[j];
	}
	if (leftitems + runbytes + EI_LEAF_HIKEY_SIZE(EIReadTuple(page, nextoff)) >
		target ||
		total - leftitems + hikeysz > usable)
		return -1;
	return newidx + 1;
}

/*
 * Where a sorted run splits a full leaf: where the leaf's items, merged in
 * key order with the batch's next entries, reach the fill factor.
 *
 * sizes[] and origoff[] describe the leaf's items with the new one, as in
 * ei_find_split_loc.  Every batch entry in istate->run_next sorts after the new
 * item; the walk counts each where it will land, and splits before the
 * first item or entry that would take the left page past the fill factor
 * once the batch has filled it.  A split that falls before a batch entry
 * (between two items) sets *separator to that entry, from which the left
 * page's high key is made: the batch then fills the left page to the fill
 * factor and continues on the right.  A batch entry equal to the new item
 * or to an item of the leaf (an entry present already) is passed over: it
 * adds nothing, and a separator must be greater than every left item.
 * Returns the number of virtual items that go left, or -1 when the run's
 * split does not apply (dense early keys, below) or either page would not
 * fit; the caller then splits by the split factor.  Never called for a
 * split that carries a posting split, whose new item may sort after the
 * batch's next entries (ei_find_split_loc).
 */
static int
ei_run_split_point(Relation rel, Page page, IndexTuple newitem, Size *sizes,
				   OffsetNumber *origoff, int nitems, Size usable,
				   Size hikeysz, const EIInsertStateData *istate,
				   bool streamleaf, IndexTuple *separator)
{
	IndexTuple *run_next = istate->run_next;
	int			run_nnext = istate->run_nnext;
	int			ff = EIGetFillFactor(rel);
	Size		target = usable * ff / 100;
	Size		total = 0;
	Size		leftitems = 0;	/* bytes of the leaf's items kept left */
	Size		acc = 0;		/* ... and of the batch entries that follow */
	Size		afteritems = 0;
	bool		pastnew = false;
	EIScanInsert key = NULL;	/* of run_next[keyj], refilled */
	int			keyj = -1;
	int			j = 0;
	int			k;

	for (k = 0; k < nitems; k++)
		total += sizes[k];

	for (k = 0; k < nitems; k++)
	{
		IndexTuple	itup;

		/* the batch's entries that sort before item k land left of it */
		while (pastnew && j < run_nnext)
		{
			IndexTuple	next = run_next[j];
			Size		sz = MAXALIGN(IndexTupleSize(next)) + sizeof(ItemIdData);
			int32		cmp;

			/*
			 * The new entry again, or item k itself (a batch applied again
			 * after an error, or an entry buffered twice): it adds nothing,
			 * and a separator equal to a left item would be no bound.
			 */
			if (ItemPointerEquals(&next->t_tid, &newitem->t_tid))
			{
				j++;
				continue;
			}
			/* entry j's key, set once however many items it is tested on */
			if (key == NULL)
				key = EIMakeScanKey(rel, next, true);
			else if (keyj != j)
				EIRefillScanKey(rel, key, next);
			keyj = j;
			cmp = EICompare(rel, key, page, origoff[k]);
			if (cmp > 0)
				break;
			if (cmp == 0)
			{
				j++;
				continue;
			}
			if (acc + sz + EI_LEAF_HIKEY_SIZE(next) > target)
			{
				*separator = next;
				break;
			}
			acc += sz;
			j++;
		}
		if (*separator != NULL)
			break;
		itup = ei_split_item(page, origoff, newitem, k);
		if (k > 0 && acc + sizes[k] + EI_LEAF_HIKEY_SIZE(itup) > target)
			break;
		acc += sizes[k];
		leftitems += sizes[k];
		if (pastnew)
			afteritems += sizes[k];
		if (origoff[k] == InvalidOffsetNumber)
			pastnew = true;
	}

	/*
	 * Pack the left page only where the run fills its range nearly by
	 * itself: the leaf's items between the new entry and the split (keys
	 * that arrived early) are at most the fill factor's slack of what lands
	 * there.  As many keys again may arrive late, and the slack is where
	 * they go; a leaf with denser early keys expects more late ones than
	 * that, and its split keeps the split factor's rule.
	 */
	if (key != NULL)
		pfree(key);
	if ((double) afteritems * ff > (double) (acc - leftitems) * (100 - ff))
	{
		/*
		 * The items after the new entry are too many to be early keys of
		 * its run; if they are another stream's, split where that stream
		 * starts instead (ei_stream_split_point).
		 */
		*separator = NULL;
		if (!streamleaf)
			return -1;
		return ei_stream_split_point(rel, page, newitem, sizes, origoff,
									 nitems, usable, hikeysz, istate);
	}

	/*
	 * Both pages must fit: the left one its items and the high key made from
	 * the separator or the first right item, the right one the rest of the
	 * leaf's items and its high key.
	 */
	if (k > 0 && k < nitems)
	{
		IndexTuple	hk = *separator;

		if (hk == NULL)
			hk = ei_split_item(page, origoff, newitem, k);
		if (leftitems + EI_LEAF_HIKEY_SIZE(hk) > usable ||
			total - leftitems + hikeysz > usable)
			k = 0;
	}
	if (k == 0 || k >= nitems)
	{
		*separator = NULL;
		return -1;
	}
	return k;
}

/*
 * Are the leaf's items from newitemoff on the first part of one stream,
 * which goes on past the leaf's high key?  Such a head grows no more where
 * it is: its stream's entries land at its end, on a later leaf.
 */
static bool
ei_only_a_head_follows(Relation rel, Page page, OffsetNumber newitemoff)
{
	EIPageOpaque opaque = EIPageGetOpaque(page);
	OffsetNumber maxoff = PageGetMaxOffsetNumber(page);
	EIScanInsert key;
	bool		result;

	if (EI_RIGHTMOST(opaque) || newitemoff > maxoff)
		return false;
	key = EIMakeScanKey(rel, EIReadTuple(page, newitemoff), true);
	key->keysz = IndexRelationGetNumberOfKeyAttributes(rel) - 1;
	key->scantid = NULL;
	result = EICompare(rel, key, page, maxoff) == 0 &&
		EICompare(rel, key, page, EI_HIKEY) == 0;
	pfree(key);
	return result;
}

/*
 * Does newitem, about to go after every item of a non-rightmost leaf, extend
 * an ascending run there, so that the leaf should keep the fill factor?
 *
 * In an index of several key attributes, a leaf that begins with newitem's
 * stream takes that stream's append (its rows come between other streams'
 * rows, so their heap TIDs are far apart); a leaf that begins with another
 * stream and ends with newitem's takes one stream's entry among several,
 * which the fill factor would pack into a leaf that they go on growing in.
 * Otherwise (one key attribute, or a leaf that ends with another stream, as
 * an index on (ts, id) filled in ts order) the new row must follow the row
 * of the leaf's last item closely in the heap: at most EI_RUN_LOOKBACK
 * offsets after it on its block, or among the first EI_RUN_LOOKBACK of the
 * next block.  An ascending run's previous row is that item's, or a few
 * early or late rows lie between them.  A random insert lands after the
 * items of a leaf too, one split in as many as the leaf holds, but after an
 * item whose row came long before; a fill-factor split there packs the left
 * page for keys that never come in order, and random inserts soon split it
 * again (issue 20: 1.007x btree's size for unique text grown by inserts).
 */
static bool
ei_extends_leaf_end(Relation rel, Page page, OffsetNumber first,
					IndexTuple newitem)
{
	OffsetNumber maxoff = PageGetMaxOffsetNumber(page);
	ItemPointer lasttid;
	BlockNumber lastblk;
	BlockNumber newblk;
	OffsetNumber newoff;

	if (first > maxoff)
		return false;
	if (IndexRelationGetNumberOfKeyAttributes(rel) >= 2)
	{
		EIScanInsert key;
		bool		atfirst;
		bool		atlast;

		key = EIMakeScanKey(rel, newitem, true);
		key->keysz = IndexRelationGetNumberOfKeyAttributes(rel) - 1;
		key->scantid = NULL;
		atfirst = EICompare(rel, key, page, first) == 0;
		atlast = EICompare(rel, key, page, maxoff) == 0;
		pfree(key);
		if (atfirst)
			return true;
		if (atlast)
			return false;
	}
	lasttid = EILeafMaxTID(EIReadTuple(page, maxoff));
	lastblk = ItemPointerGetBlockNumber(lasttid);
	newblk = ItemPointerGetBlockNumber(&newitem->t_tid);
	newoff = ItemPointerGetOffsetNumber(&newitem->t_tid);
	if (newblk == lastblk)
		return newoff > ItemPointerGetOffsetNumber(lasttid) &&
			newoff - ItemPointerGetOffsetNumber(lasttid) <= EI_RUN_LOOKBACK;
	return newblk == lastblk + 1 && newoff <= EI_RUN_LOOKBACK;
}

/*
 * Do virtual items k - 1 and k of a split (see ei_find_split_loc) belong to
 * different streams, that is differ in a key attribute before the last?
 */
static bool
ei_stream_boundary(Relation rel, Page page, IndexTuple newitem,
				   OffsetNumber *origoff, int k)
{
	IndexTuple	keytup;
	OffsetNumber off;
	EIScanInsert key;
	bool		result;

	/* a key from one of the two, compared with the other on the page */
	if (origoff[k] == InvalidOffsetNumber)
	{
		keytup = newitem;
		off = origoff[k - 1];
	}
	else
	{
		keytup = ei_split_item(page, origoff, newitem, k - 1);
		off = origoff[k];
	}
	key = EIMakeScanKey(rel, keytup, true);
	key->keysz = IndexRelationGetNumberOfKeyAttributes(rel) - 1;
	key->scantid = NULL;
	result = EICompare(rel, key, page, off) != 0;
	pfree(key);
	return result;
}

/*
 * The split point nearest to best, at most an eighth of the items away,
 * that falls between two streams and lets both pages fit; best if there
 * is none, or the index has a single key attribute.
 */
static int
ei_stream_aligned_split(Relation rel, Page page, IndexTuple newitem,
						OffsetNumber *origoff, int nitems, bool *feasible,
						int best)
{
	int			window = nitems / 8;

	if (IndexRelationGetNumberOfKeyAttributes(rel) < 2)
		return best;
	for (int d = 0; d <= window; d++)
	{
		if (best - d >= 1 && feasible[best - d] &&
			ei_stream_boundary(rel, page, newitem, origoff, best - d))
			return best - d;
		if (d > 0 && best + d < nitems && feasible[best + d] &&
			ei_stream_boundary(rel, page, newitem, origoff, best + d))
			return best + d;
	}
	return best;
}

/*
 * The k-th of a split's virtual items: the page's item at origoff[k], or the
 * new item where origoff[k] is InvalidOffsetNumber.
 */
static inline IndexTuple
ei_split_item(Page page, const OffsetNumber *origoff, IndexTuple newitem, int k)
{
	return origoff[k] == InvalidOffsetNumber ? newitem :
		EIReadTuple(page, origoff[k]);
}

/*
 * The split point nearest to best (a half-and-half split's) that falls
 * between two different keys, leaves between a third and two thirds of the
 * items' bytes on the left and lets both pages fit; best if best falls
 * between two keys itself, or there is none.  For a leaf of posting lists
 * (src/README.md, "Posting lists"), as nbtree's default split strategy
 * prefers a point its suffix truncation can use: the items of a key that
 * follow a run growing at its end would otherwise be split off with the
 * run's new items every time and take room on every leaf the run fills.
 */
static int
ei_key_aligned_split(Page page, IndexTuple newitem,
					 const OffsetNumber *origoff, const Size *sizes,
					 int nitems, const bool *feasible, int best)
{
	Size		total = 0;
	Size		left = 0;
	int			found = -1;

	/* best itself falls between two keys: nothing to move */
	if (best >= 1 && best < nitems &&
		!EISameKey(ei_split_item(page, origoff, newitem, best - 1),
				   ei_split_item(page, origoff, newitem, best)))
		return best;

	for (int i = 0; i < nitems; i++)
		total += sizes[i];
	for (int k = 1; k < nitems; k++)
	{
		left += sizes[k - 1];
		if (!feasible[k] || left * 3 < total || left * 3 > total * 2)
			continue;
		if (found >= 0 && abs(k - best) >= abs(found - best))
			continue;
		if (!EISameKey(ei_split_item(page, origoff, newitem, k - 1),
					   ei_split_item(page, origoff, newitem, k)))
			found = k;
	}
	return found >= 0 ? found : best;
}

/*
 * Choose where to split a page that must take newitem.
 *
 * Every candidate split keeps at least one data item on each side and must
 * leave both halves (with their high keys) fitting on a page.  Among those,
 * nbtree's rule picks the one closest to a target share of the free space:
 * half and half in general, but the left page fillfactor full when the page
 * is the rightmost of its level, so that sequential loads leave pages
 * packed, not half empty.
 *
 * An entry of a sorted batch that goes on densely in a full leaf splits
 * where the leaf's items merged with the batch's next entries reach the
 * fill factor (ei_run_split_point; *separator may then name the batch
 * entry the left high key is made from), or failing that keeps at least
 * split_factor on the left (src/README.md, "Applying a sorted batch").
 *
 * Two more rules keep near-sorted loads packed (src/README.md, "Splits of
 * near-sorted input").  A leaf that takes a new item after all of its
 * items keeps fillfactor on the left when the item extends an ascending
 * run: always at the right edge (this includes nbtree's case of a page full
 * of one value taking another duplicate at its end), elsewhere when the new
 * row closely follows the row of the leaf's last item (ei_extends_leaf_end;
 * random inserts land there too, after old rows).  And so does a leaf whose new
 * item lands shortly after the item of the row its inserter added just
 * before it (adjacent heap TIDs; ei_follows_own_row) with items still after
 * it: that is an ascending run
 * that caught up with keys that arrived early.  A half-and-half split there
 * would leave the run a half-full page behind every time it passed one;
 * splitting at fillfactor leaves pages as full as an appending load does,
 * and the early keys move on ahead of the run until it reaches them.
 *
 * In an index of several key attributes, streams (what the attributes but
 * the last tell apart, as devices in (device, ts)) come first (src/README.md,
 * "Many sorted streams"): a new item that ends the stream the leaf begins
 * with splits the leaf between that stream and the next, or moves a short
 * head of the next stream right with it; an item at the end of a leaf that
 * begins with other streams is no ascending run; and a split point chosen
 * by shares of free space moves to a stream boundary nearby.  These rules
 * read only the page being split, so a wrong guess costs density, never
 * correctness.
 */
static OffsetNumber
ei_find_split_loc(Relation rel, Page page, OffsetNumber newitemoff,
				  IndexTuple newitem, const EIInsertStateData *istate,
				  bool *newitemonleft, IndexTuple *separator)
{
	EIPageOpaque opaque = EIPageGetOpaque(page);
	bool		isleaf = EI_IS_LEAF(opaque);
	OffsetNumber first = EI_FIRST_DATA(opaque);
	OffsetNumber maxoff = PageGetMaxOffsetNumber(page);
	int			nitems = maxoff - first + 2;	/* data items plus new item */
	Size	   *sizes;
	OffsetNumber *origoff;		/* original offset, or newitemoff for new */
	bool	   *feasible;		/* both pages fit when k items go left */
	Size	   *leftfree;		/* ... with this much free on the left */
	Size	   *rightfree;		/* ... and this much on the right */
	bool		ascending = false;	/* a fill-factor split at the end */
	Size		usable;
	Size		hikeysz = 0;
	Size		total = 0;
	Size		leftsz = 0;
	double		fillmult = 0.5;
	double		before;
	bool		streamleaf;		/* the new item ends the leaf's first stream */
	bool		headmoves;		/* ... and a short head follows it */
	bool		batchrun;		/* an entry of a dense sorted batch */
	bool		runend;			/* it ends a run of equal keys (lists) */
	bool		keyend;			/* ... a shorter one, in a dense batch */
	double		bestdelta = -1;
	int			best = -1;
	bool		decided = false;
	int			k;
	int			i;

	*separator = NULL;
	usable = BLCKSZ - SizeOfPageHeaderData - MAXALIGN(sizeof(EIPageOpaqueData));
	if (!EI_RIGHTMOST(opaque))
		hikeysz = MAXALIGN(IndexTupleSize(EIReadTuple(page, EI_HIKEY))) +
			sizeof(ItemIdData);

	sizes = palloc(sizeof(Size) * nitems);
	origoff = palloc(sizeof(OffsetNumber) * nitems);
	feasible = palloc0(sizeof(bool) * nitems);
	leftfree = palloc(sizeof(Size) * nitems);
	rightfree = palloc(sizeof(Size) * nitems);
	i = 0;
	for (k = first; k <= maxoff + 1; k++)
	{
		if (k == newitemoff)
		{
			sizes[i] = MAXALIGN(IndexTupleSize(newitem)) + sizeof(ItemIdData);
			origoff[i++] = InvalidOffsetNumber;
		}
		if (k <= maxoff)
		{
			sizes[i] = MAXALIGN(IndexTupleSize(EIReadTuple(page, k))) +
				sizeof(ItemIdData);
			origoff[i++] = k;
		}
	}
	Assert(i == nitems);

	for (i = 0; i < nitems; i++)
		total += sizes[i];

	/* the free space each split point leaves on the two pages, if both fit */
	for (k = 1; k < nitems; k++)
	{
		Size		lhikey;
		Size		rightsz;
		IndexTuple	firstitem;

		leftsz += sizes[k - 1];
		rightsz = total - leftsz;

		firstitem = ei_split_item(page, origoff, newitem, k);
		if (isleaf)
			lhikey = EI_LEAF_HIKEY_SIZE(firstitem);
		else
		{
			lhikey = sizes[k];
			/* the first right item shrinks to a minus-infinity downlink */
			rightsz = rightsz - sizes[k] + MAXALIGN(sizeof(IndexTupleData)) +
				sizeof(ItemIdData);
		}

		if (leftsz + lhikey > usable || rightsz + hikeysz > usable)
			continue;
		feasible[k] = true;
		leftfree[k] = usable - leftsz - lhikey;
		rightfree[k] = usable - rightsz - hikeysz;
	}

	/*
	 * Many sorted streams (src/README.md, "Many sorted streams"): in an
	 * index on (stream, position), a new item that ends the stream the leaf
	 * begins with, other streams' items after it, is one stream's append.
	 * If the rest of the leaf is a short head of a stream that goes on past
	 * the leaf, the head moves right with the new item, and the left page
	 * keeps what it holds; else the split falls between the two streams,
	 * if the stream fills at least half of the leaf, or keeps the fill
	 * factor on the left if it fills more than that.
	 */
	before = (double) (newitemoff - first + 1) / nitems;
	streamleaf = isleaf &&
		ei_ends_leading_stream(rel, page, first, newitemoff, newitem);
	headmoves = streamleaf && (maxoff - newitemoff + 1) * 8 <= nitems &&
		ei_only_a_head_follows(rel, page, newitemoff);

	/*
	 * Posting lists: the new item ends a run of equal keys that fills at
	 * least half the leaf (below); or, in a dense sorted batch whose next
	 * entry has the new item's key too, a shorter run that other keys
	 * follow: the split falls between the keys, the new item on the left,
	 * where the batch's next entries of its key go on
	 * (until the leaf is full, deduplicated, and splits at the run's end).
	 * Both come before a batch's split point (ei_run_split_point), which
	 * would leave the left page at the fill factor with the batch's plain
	 * entries, never full again and so never deduplicated (measured with
	 * bench/dedup: osm_tree on an int4 column of 10 values grown by COPY,
	 * 1.31x btree's size without them, 1.06x with them).
	 */
	runend = isleaf && istate != NULL && istate->deduplicate &&
		newitemoff > first && (newitemoff - first) * 2 >= nitems &&
		EISameKey(EIReadTuple(page, newitemoff - nitems / 2), newitem) &&
		(newitemoff > maxoff ||
		 !EISameKey(EIReadTuple(page, newitemoff), newitem));
	keyend = isleaf && istate != NULL && istate->deduplicate && !runend &&
		istate->run_next != NULL && istate->run_nnext > 0 &&
		EISameKey(istate->run_next[0], newitem) && newitemoff > first &&
		newitemoff <= maxoff && feasible[newitemoff - first + 1] &&
		EISameKey(EIReadTuple(page, newitemoff - 1), newitem) &&
		!EISameKey(EIReadTuple(page, newitemoff), newitem);
	/*
	 * Not after a posting split: the new item then carries the list's old
	 * last TID (ei_posting_split_prepare), and the batch's next entries,
	 * which sort after the entry itself, may sort before it; a separator
	 * taken from one of them would be less than the new item on the left.
	 */
	batchrun = isleaf && istate != NULL && istate->run_next != NULL &&
		(istate->postingoff == 0 ||
		 ei_debug_fault == EI_FAULT_RUN_SPLIT_POSTING) &&
		newitemoff <= maxoff && !runend && !keyend;

	if (batchrun)
	{
		/*
		 * An entry of a sorted batch (EIInsertSorted) that goes on densely
		 * in this leaf: split where the leaf's items merged with the batch's
		 * next entries reach the fill factor (ei_run_split_point).
		 */
		best = ei_run_split_point(rel, page, newitem, sizes, origoff, nitems,
								  usable, hikeysz, istate,
								  streamleaf && !headmoves, separator);
		decided = (best >= 0);
		if (!decided)
			fillmult = Max(EIGetSplitFactor(rel),
						   Min(EIGetFillFactor(rel) / 100.0, before));
	}

	if (decided)
	{
		/* the batch's walk chose the split point */
	}
	else if (runend)
	{
		/*
		 * Posting lists: the new item ends a run of equal keys that fills at
		 * least half the leaf.  New rows' TIDs go on growing the run's end
		 * (they ascend), so the run's part on the left would get no more:
		 * keep it whole on the left and start the right page with the new
		 * item (nbtree's single-value strategy does the same for a leaf of
		 * one key).  But when items of another key follow the new item, the
		 * new item stays with the run and those items go right: else they
		 * would move along with the run's end at every split and take room
		 * on every leaf the run fills (10 int4 values inserted in turn:
		 * each value's leaves were two thirds full).  And when the run does
		 * not fit whole beside a high key (a rightmost leaf, which has
		 * none), as much of it as fits stays left; the dedup pass leaves a
		 * rightmost leaf's lists room for that high key.
		 */
		best = newitemoff - first;
		if (newitemoff <= maxoff && feasible[best + 1])
			best++;
		else
			while (best > 1 && !feasible[best])
				best--;
		decided = feasible[best];
		if (!decided)
			best = -1;
	}
	else if (keyend)
	{
		best = newitemoff - first + 1;
		decided = true;
	}
	else if (headmoves && feasible[newitemoff - first])
	{
		best = newitemoff - first;
		decided = true;
	}
	else if (streamleaf && before >= 0.5)
	{
		if (before > EIGetFillFactor(rel) / 100.0)
			fillmult = EIGetFillFactor(rel) / 100.0;
		else if (feasible[newitemoff - first + 1])
		{
			best = newitemoff - first + 1;
			decided = true;
		}
	}
	else if (!batchrun && isleaf && newitemoff <= maxoff &&
			 ei_follows_own_row(page, first, newitemoff, newitem))
	{
		/*
		 * The run goes on after the new item: keep what precedes it on the
		 * left, up to the fill factor, so that the run continues into the
		 * room the split leaves.  A run still near the start of the page
		 * (a second pass over keys a first pass loaded) gets a plain half
		 * split; a fill-factor split there would peel off a nearly empty
		 * right page at every split.
		 */
		fillmult = Max(0.5, Min(EIGetFillFactor(rel) / 100.0, before));
	}
	else if (!batchrun &&
			 (EI_RIGHTMOST(opaque) ||
			  (isleaf && origoff[nitems - 1] == InvalidOffsetNumber &&
			   ei_extends_leaf_end(rel, page, first, newitem))))
	{
		/*
		 * An ascending run: at the right edge, or at the end of a leaf whose
		 * last item's row the new row follows (ei_extends_leaf_end).
		 */
		fillmult = (isleaf ? EIGetFillFactor(rel) : EI_NONLEAF_FILLFACTOR) / 100.0;
		ascending = true;
	}

	/* k = number of virtual items that go left (1 .. nitems - 1) */
	for (k = 1; !decided && k < nitems; k++)
	{
		double		delta;

		if (!feasible[k])
			continue;
		delta = fillmult * (double) leftfree[k] -
			(1.0 - fillmult) * (double) rightfree[k];
		if (delta < 0)
			delta = -delta;
		if (best < 0 || delta < bestdelta)
		{
			best = k;
			bestdelta = delta;
		}
	}

	if (best < 0)
		elog(ERROR, "could not find a feasible split point for index \"%s\"",
			 RelationGetRelationName(rel));

	/*
	 * Near a split point chosen by shares of free space, prefer one between
	 * two streams: a stream cut in two leaves its first part on a leaf it
	 * no longer grows on (src/README.md, "Many sorted streams").  The
	 * entry at the end of a leaf keeps its fill-factor split.
	 */
	if (!decided && isleaf && !ascending)
		best = ei_stream_aligned_split(rel, page, newitem, origoff, nitems,
									   feasible, best);
	if (!decided && isleaf && !ascending && fillmult == 0.5 &&
		istate != NULL && istate->deduplicate)
		best = ei_key_aligned_split(page, newitem, origoff, sizes, nitems,
									feasible, best);

	/* translate the virtual position back to original offsets */
	if (origoff[best] == InvalidOffsetNumber)
	{
		/* the new item is the first item on the right */
		*newitemonleft = false;
		k = (best + 1 < nitems) ? origoff[best + 1] : maxoff + 1;
	}
	else
	{
		k = origoff[best];
		/* the new item went left if it precedes position best */
		*newitemonleft = false;
		for (i = 0; i < best; i++)
			if (origoff[i] == InvalidOffsetNumber)
				*newitemonleft = true;
	}

	pfree(sizes);
	pfree(origoff);
	pfree(feasible);
	pfree(leftfree);
	pfree(rightfree);
	return (OffsetNumber) k;
}

/*
 * Insert the downlink for a just-split page into its parent (second phase).
 *
 * buf (left) and rbuf (right) are write-locked; both are released.  When the
 * split page was the root, a new root is made instead.
 */
void
EIInsertParent(Relation rel, Buffer buf, Buffer rbuf, EIStack stack,
				 bool isroot)
{
	Page		lpage = BufferGetPage(buf);
	EIPageOpaque lopaque = EIPageGetOpaque(lpage);
	BlockNumber lblk = BufferGetBlockNumber(buf);
	BlockNumber rblk = BufferGetBlockNumber(rbuf);
	EIStackData fakestack;
	IndexTuple	downlink;
	Buffer		pbuf;

	if (isroot)
	{
		ei_new_root(rel, buf, rbuf);
		return;
	}

	/*
	 * Without a stack (we started at a stale root or came by the fast path),
	 * find the parent level's leftmost page and search right from there.  A
	 * hint stack (EIInitParentHints) that has no page for this level yet
	 * starts there too, and keeps the page where the parent is found.
	 */
	if (stack == NULL || !BlockNumberIsValid(stack->blkno))
	{
		Buffer		ebuf = EIGetEndpoint(rel, lopaque->ei_level + 1, false);

		if (stack == NULL)
		{
			fakestack.parent = NULL;
			stack = &fakestack;
		}
		stack->blkno = BufferGetBlockNumber(ebuf);
		stack->offset = InvalidOffsetNumber;
		stack->level = lopaque->ei_level + 1;
		EIRelBuf(rel, ebuf);
	}
	Assert(stack->level == lopaque->ei_level + 1);

	downlink = CopyIndexTuple(EIReadTuple(lpage, EI_HIKEY));
	EITupleSetDownlink(downlink, rblk);

	pbuf = EIGetParentBuf(rel, stack, lblk);
	EIRelBuf(rel, rbuf);
	if (!BufferIsValid(pbuf))
		ereport(ERROR,
				(errcode(ERRCODE_INDEX_CORRUPTED),
				 errmsg("failed to re-find parent key in index \"%s\" for split pages %u/%u",
						RelationGetRelationName(rel), lblk, rblk)));

	ei_insert_on_page(rel, pbuf, buf, stack->parent, downlink,
					  OffsetNumberNext(stack->offset), NULL);
	pfree(downlink);
}

/*
 * Make a stack of parent hints for a caller that splits (or finishes the
 * splits of) pages of one level from left to right without descending to
 * them: one entry per level from level + 1 up, each pointing nowhere yet.
 *
 * The first split on a level finds the parent from the level's leftmost
 * page, as a missing stack does; EIGetParentBuf then leaves the entry at the
 * page and offset where the downlink was found, and the next split searches
 * from there.  The child of a later split lies right of the earlier one, so
 * its downlink lies at or right of the remembered one: parent splits move
 * downlinks right, and page deletion hands a page's key space to its right
 * sibling.  Finding a parent thus reads one or two pages, not the level.
 * A remembered page may be deleted meanwhile, but not reused: the caller
 * holds a snapshot (an SQL function), or is VACUUM, the only deleter, which
 * deletes nothing while it walks; a deleted page keeps its right link, which
 * EIGetParentBuf follows.  Above the last entry a parent split has no stack
 * and walks its level from the left, as before (at most a few times per
 * pass: the tree would have to grow by nlevels levels).
 */
void
EIInitParentHints(EIStackData *hints, int nlevels, uint32 level)
{
	for (int i = 0; i < nlevels; i++)
	{
		hints[i].blkno = InvalidBlockNumber;
		hints[i].offset = InvalidOffsetNumber;
		hints[i].level = level + 1 + i;
		hints[i].parent = i + 1 < nlevels ? &hints[i + 1] : NULL;
	}
}

/*
 * Write-lock the parent page that holds the downlink to child, starting at
 * the page and offset the stack remembers and moving right as the parent
 * may have split since.  Updates the stack entry; InvalidBuffer if not found.
 */
Buffer
EIGetParentBuf(Relation rel, EIStack stack, BlockNumber child)
{
	BlockNumber blkno = stack->blkno;
	OffsetNumber start = stack->offset;
	uint32		level = stack->level;	/* the parent level */
	uint64		hops = 0;

	for (;;)
	{
		Buffer		buf = EIGetBuf(rel, blkno, EI_WRITE);
		Page		page = BufferGetPage(buf);
		EIPageOpaque opaque = EIPageGetOpaque(page);

		/*
		 * The child's lock is held, so this walk cannot be cancelled: a
		 * right link that leaves the level or loops must end it.
		 */
		if (opaque->ei_level != level || level == 0)
			ereport(ERROR,
					(errcode(ERRCODE_INDEX_CORRUPTED),
					 errmsg("index \"%s\" is corrupted: block %u on the way to the parent of block %u is at level %u",
							RelationGetRelationName(rel), blkno, child,
							opaque->ei_level)));
		EICheckHops(rel, ++hops, blkno);

		if (EI_INCOMPLETE(opaque))
		{
			EIFinishSplit(rel, buf, stack->parent);
			continue;
		}

		if (!EI_IGNORE(opaque))
		{
			OffsetNumber minoff = EI_FIRST_DATA(opaque);
			OffsetNumber maxoff = PageGetMaxOffsetNumber(page);
			OffsetNumber off;

			if (start < minoff)
				start = minoff;
			if (start > maxoff)
				start = OffsetNumberNext(maxoff);

			for (off = start; off <= maxoff; off = OffsetNumberNext(off))
			{
				if (EITupleGetDownlink(EIReadTuple(page, off)) == child)
				{
					stack->blkno = blkno;
					stack->offset = off;
					return buf;
				}
			}
			for (off = OffsetNumberPrev(start); off >= minoff; off = OffsetNumberPrev(off))
			{
				if (EITupleGetDownlink(EIReadTuple(page, off)) == child)
				{
					stack->blkno = blkno;
					stack->offset = off;
					return buf;
				}
			}
		}

		if (EI_RIGHTMOST(opaque))
		{
			EIRelBuf(rel, buf);
			return InvalidBuffer;
		}
		blkno = opaque->ei_next;
		start = InvalidOffsetNumber;
		EIRelBuf(rel, buf);
	}
}

/*
 * Put a new root above a split root; releases lbuf and rbuf.
 */
static void
ei_new_root(Relation rel, Buffer lbuf, Buffer rbuf)
{
	Page		lpage = BufferGetPage(lbuf);
	EIPageOpaque lopaque = EIPageGetOpaque(lpage);
	uint32		level = lopaque->ei_level + 1;
	Buffer		rootbuf;
	Buffer		metabuf;
	Page		rootpage;
	EIMetaPage	meta;
	IndexTuple	left;
	IndexTuple	right;
	BlockNumber rootblk;

	rootbuf = EINewBuf(rel);
	rootblk = BufferGetBlockNumber(rootbuf);
	metabuf = EIGetBuf(rel, EI_METAPAGE, EI_WRITE);
	meta = EIPageGetMeta(BufferGetPage(metabuf));

	left = EIFormMinusInf(BufferGetBlockNumber(lbuf));
	right = CopyIndexTuple(EIReadTuple(lpage, EI_HIKEY));
	EITupleSetDownlink(right, BufferGetBlockNumber(rbuf));

	rootpage = PageGetTempPage(lpage);
	EIInitPage(rootpage, EI_ROOT, level);
	/* the root is rightmost: no high key, data from the first offset */
	if (PageAddItem(rootpage, (Item) left, IndexTupleSize(left),
					FirstOffsetNumber, false, false) == InvalidOffsetNumber ||
		PageAddItem(rootpage, (Item) right, IndexTupleSize(right),
					OffsetNumberNext(FirstOffsetNumber),
					false, false) == InvalidOffsetNumber)
		elog(ERROR, "failed to add items to new root of index \"%s\"",
			 RelationGetRelationName(rel));

	START_CRIT_SECTION();

	memcpy(BufferGetPage(rootbuf), rootpage, BLCKSZ);
	lopaque->ei_flags &= ~EI_INCOMPLETE_SPLIT;
	meta->root = rootblk;
	meta->level = level;
	MarkBufferDirty(rootbuf);
	MarkBufferDirty(lbuf);
	MarkBufferDirty(metabuf);

	if (RelationNeedsWAL(rel))
	{
		xl_ei_newroot xlrec;
		XLogRecPtr	recptr;

		xlrec.level = level;

		XLogBeginInsert();
		XLogRegisterData((char *) &xlrec, SizeOfEINewroot);
		XLogRegisterBuffer(0, rootbuf, REGBUF_STANDARD | REGBUF_FORCE_IMAGE);
		XLogRegisterBuffer(1, lbuf, REGBUF_STANDARD);
		XLogRegisterBuffer(2, metabuf, REGBUF_STANDARD | REGBUF_WILL_INIT);
		XLogRegisterBufData(2, (char *) meta, sizeof(xl_ei_metadata));

		recptr = XLogInsert(EI_RMGR_ID, XLOG_EI_NEWROOT);
		PageSetLSN(BufferGetPage(rootbuf), recptr);
		PageSetLSN(lpage, recptr);
		PageSetLSN(BufferGetPage(metabuf), recptr);
	}

	END_CRIT_SECTION();
	EIStatsCount(rel, EI_STAT_ROOT_SPLITS, 1);

	/* our cached metapage is stale now */
	EISetMetaCached(rel, meta);

	EIRelBuf(rel, metabuf);
	EIRelBuf(rel, rootbuf);
	EIRelBuf(rel, rbuf);
	EIRelBuf(rel, lbuf);
	pfree(rootpage);
	pfree(left);
	pfree(right);
}

/*
 * Finish an incomplete split of the write-locked page lbuf by inserting its
 * right sibling's downlink; releases lbuf.
 *
 * stack is the descent stack above lbuf's level (may be NULL).  The split
 * was of the root if the metapage still names lbuf as root.
 */
void
EIFinishSplit(Relation rel, Buffer lbuf, EIStack stack)
{
	EIPageOpaque lopaque = EIPageGetOpaque(BufferGetPage(lbuf));
	Buffer		rbuf;
	Buffer		metabuf;
	bool		wasroot;

	Assert(EI_INCOMPLETE(lopaque));

	rbuf = EIGetBuf(rel, lopaque->ei_next, EI_WRITE);

	metabuf = EIGetBuf(rel, EI_METAPAGE, EI_READ);
	wasroot = (EIPageGetMeta(BufferGetPage(metabuf))->root ==
			   BufferGetBlockNumber(lbuf));
	EIRelBuf(rel, metabuf);

	EIInsertParent(rel, lbuf, rbuf, stack, wasroot);
}
