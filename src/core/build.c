/*-------------------------------------------------------------------------
 *
 * build.c
 *	  Bulk build of a tree (ambuild) and of the empty init fork of an
 *	  unlogged index (ambuildempty).
 *
 * A build scans the table, sorts the entries by (keys, heap TID) with a
 * tuplesort that spills to disk beyond maintenance_work_mem, and then loads
 * the tree bottom-up, as nbtree does: leaves are filled left to right, and
 * whenever a page is finished its right neighbour's downlink goes to the
 * level above, which grows the same way.  Pages are written through shared
 * buffers (nobody else reads the index before the build commits) and
 * WAL-logged as full-page images once the whole tree exists.
 *
 * A page is finished with a high key that is the pivot of the first item of
 * the next page, so room for that pivot must be kept before the next item
 * is known to go elsewhere.  Each level therefore holds back one item until
 * its successor arrives: an item goes on the current page only if the
 * page can still take its successor's pivot as high key afterwards.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/nbtree.h"
#include "access/tableam.h"
#include "access/xloginsert.h"
#include "catalog/pg_index.h"
#include "catalog/pg_operator_d.h"
#include "catalog/pg_type_d.h"
#include "commands/progress.h"
#include "eitree.h"
#include "executor/tuptable.h"
#include "miscadmin.h"
#include "pgstat.h"
#include "storage/bufmgr.h"
#include "storage/smgr.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/regproc.h"
#include "utils/rel.h"
#include "utils/sortsupport.h"
#include "utils/tuplesort.h"

/* State of the table scan that feeds the sort. */
typedef struct EIBuildState
{
	Relation	heap;
	Relation	index;
	int			nkeys;			/* key columns of the index */
	int			natts;			/* key and INCLUDE columns */
	Tuplesortstate *sort;		/* rows: key columns, then heap TID */
	TupleDesc	sortdesc;
	TupleTableSlot *inslot;		/* virtual slot that feeds the sort */
	MemoryContext tmpcxt;		/* reset after every heap tuple */
	double		indtuples;		/* entries fed into the sort */

	/*
	 * Entries are first kept in memory as formed index tuples and sorted with
	 * qsort; only if they outgrow maintenance_work_mem do they all go to the
	 * tuplesort above, which can spill to disk.
	 */
	bool		spilled;		/* true once the tuplesort is in use */
	MemoryContext memcxt;		/* holds the in-memory entries */
	EISortEntry *memtuples;
	int64		nmem;
	int64		memcap;
	Size		memused;
	Size		memlimit;
	EIEntrySort esort;			/* how to sort them (core/sort.c) */
} EIBuildState;

/* One level of the tree while it is loaded. */
typedef struct EILoadLevel
{
	uint32		level;			/* 0 for leaves */
	Page		page;			/* page being filled, in local memory */
	Buffer		buf;			/* its block, pinned and still all zeroes */
	BlockNumber blkno;			/* block number of buf */
	BlockNumber firstblkno;		/* leftmost page of the level */
	int			ndata;			/* data items on the page so far */
	Size		slack;			/* free space each page keeps (fill factor) */
	IndexTuple	pending;		/* item held back until its successor comes */
	struct EILoadLevel *parent; /* level above, once this one has two pages */
} EILoadLevel;

/* State of the bottom-up load. */
typedef struct EILoadState
{
	Relation	index;
	int			fillfactor;		/* leaf fill factor, in percent */
	EILoadLevel *leaf;			/* level 0; higher levels hang off it */
} EILoadState;

static IndexBuildResult *ei_build_tree(Relation heap, Relation index,
									   IndexInfo *indexInfo, uint32 am_kind);
static void ei_build_begin_sort(EIBuildState *bstate);
static void ei_build_put_sorted(EIBuildState *bstate, IndexTuple itup);
static void ei_build_spill(EIBuildState *bstate);
static void ei_build_sort_memory(EIBuildState *bstate);
static void ei_build_callback(Relation index, ItemPointer tid, Datum *values,
							  bool *isnull, bool tupleIsAlive, void *state);
static void ei_load_tree(EIBuildState *bstate, uint32 am_kind);
static Buffer ei_load_extend(Relation index);
static EILoadLevel *ei_load_new_level(EILoadState *lstate, uint32 level);
static void ei_load_add(EILoadState *lstate, EILoadLevel *lvl, IndexTuple itup);
static void ei_load_place(EILoadState *lstate, EILoadLevel *lvl,
						  IndexTuple itup, IndexTuple next);
static void ei_load_next_page(EILoadState *lstate, EILoadLevel *lvl,
							  IndexTuple first);
static void ei_load_write_page(EILoadState *lstate, EILoadLevel *lvl);
static Size ei_load_hikey_size(IndexTuple itup, bool isleaf);
static void ei_load_finish(EILoadState *lstate);

/*
 * Build a new index of either access method from the rows of its table
 * (ambuild).  The policy first says what it must (build_begin: the
 * elastic policy notes an index that can never have compact leaves).
 */
IndexBuildResult *
eibuild(Relation heap, Relation index, IndexInfo *indexInfo)
{
	const EITreePolicy *policy = EIGetPolicyChecked(index);

	if (policy->build_begin)
		policy->build_begin(index);

	return ei_build_tree(heap, index, indexInfo, policy->am_kind);
}

/*
 * Write the init fork of an unlogged index: a metapage and an empty root leaf
 * (ambuildempty).
 */
void
eibuildempty(Relation index)
{
	EIAlignedBlock block;
	Page		page = (Page) block.data;

	EICheckPreloaded();

	/* block 0: the metapage, pointing at the root leaf in block 1 */
	EIInitMetaPage(page, EIRelAmKind(index), 1, 0, EIGetFillFactor(index));
	PageSetChecksumInplace(page, EI_METAPAGE);
	smgrextend(RelationGetSmgr(index), INIT_FORKNUM, EI_METAPAGE,
			   (char *) page, true);
	log_newpage(&EISmgrLocator(RelationGetSmgr(index)), INIT_FORKNUM,
				EI_METAPAGE, page, true);

	/* block 1: the empty root leaf */
	EIInitPage(page, EI_LEAF | EI_ROOT, 0);
	PageSetChecksumInplace(page, 1);
	smgrextend(RelationGetSmgr(index), INIT_FORKNUM, 1, (char *) page, true);
	log_newpage(&EISmgrLocator(RelationGetSmgr(index)), INIT_FORKNUM,
				1, page, true);

	/*
	 * The pages bypassed shared buffers, so a checkpoint cannot have flushed
	 * them; sync them now, or a crash right after the checkpoint that follows
	 * our WAL records would lose them.
	 */
	smgrimmedsync(RelationGetSmgr(index), INIT_FORKNUM);
}

/*
 * Build a tree serving the given access method kind: scan, sort, load.
 */
static IndexBuildResult *
ei_build_tree(Relation heap, Relation index, IndexInfo *indexInfo,
			  uint32 am_kind)
{
	EIBuildState bstate;
	IndexBuildResult *result;
	double		reltuples;

	EICheckPreloaded();

	if (RelationGetNumberOfBlocks(index) != 0)
		elog(ERROR, "index \"%s\" already contains data",
			 RelationGetRelationName(index));

	memset(&bstate, 0, sizeof(bstate));
	bstate.heap = heap;
	bstate.index = index;
	bstate.nkeys = IndexRelationGetNumberOfKeyAttributes(index);
	bstate.natts = IndexRelationGetNumberOfAttributes(index);
	bstate.tmpcxt = AllocSetContextCreate(CurrentMemoryContext,
										  "elastic_index build tuple",
										  ALLOCSET_DEFAULT_SIZES);
	ei_build_begin_sort(&bstate);
	bstate.memcxt = AllocSetContextCreate(CurrentMemoryContext,
										  "elastic_index build entries",
										  ALLOCSET_DEFAULT_SIZES);
	bstate.memlimit = (Size) maintenance_work_mem * 1024;
	bstate.memcap = 1024;
	bstate.memtuples = MemoryContextAlloc(bstate.memcxt,
										  sizeof(EISortEntry) * bstate.memcap);

	/* scan the table; the callback feeds the sort */
	pgstat_progress_update_param(PROGRESS_CREATEIDX_SUBPHASE,
								 EI_BUILD_PHASE_SCAN);
	reltuples = table_index_build_scan(heap, index, indexInfo, true, true,
									   ei_build_callback, &bstate, NULL);

	{
		const int	index_params[] = {
			PROGRESS_CREATEIDX_SUBPHASE,
			PROGRESS_CREATEIDX_TUPLES_TOTAL
		};
		const int64 vals[] = {
			EI_BUILD_PHASE_SORT,
			(int64) bstate.indtuples
		};

		pgstat_progress_update_multi_param(2, index_params, vals);
	}
	if (bstate.spilled)
		tuplesort_performsort(bstate.sort);
	else
		ei_build_sort_memory(&bstate);

	pgstat_progress_update_param(PROGRESS_CREATEIDX_SUBPHASE,
								 EI_BUILD_PHASE_LOAD);
	ei_load_tree(&bstate, am_kind);

	tuplesort_end(bstate.sort);
	ExecDropSingleTupleTableSlot(bstate.inslot);
	MemoryContextDelete(bstate.tmpcxt);
	MemoryContextDelete(bstate.memcxt);

	result = (IndexBuildResult *) palloc(sizeof(IndexBuildResult));
	result->heap_tuples = reltuples;
	result->index_tuples = bstate.indtuples;
	return result;
}

/*
 * Set up the sort: one column per index column, plus the heap TID; it
 * orders by the key columns and the heap TID, and carries INCLUDE columns
 * along unsorted.
 */
static void
ei_build_begin_sort(EIBuildState *bstate)
{
	Relation	index = bstate->index;
	TupleDesc	itupdesc = RelationGetDescr(index);
	int			nkeys = bstate->nkeys;
	int			natts = bstate->natts;
	int			ncols = natts + 1;
	int			nsortkeys = nkeys + 1;
	AttrNumber *attnums = palloc(sizeof(AttrNumber) * nsortkeys);
	Oid		   *sortops = palloc(sizeof(Oid) * nsortkeys);
	Oid		   *collations = palloc(sizeof(Oid) * nsortkeys);
	bool	   *nullsfirst = palloc(sizeof(bool) * nsortkeys);
	int			i;

	bstate->sortdesc = CreateTemplateTupleDesc(ncols);
	for (i = 0; i < natts; i++)
		TupleDescCopyEntry(bstate->sortdesc, i + 1, itupdesc, i + 1);
	for (i = 0; i < nkeys; i++)
	{
		attnums[i] = i + 1;
		sortops[i] = EISortOperator(index, i);
		collations[i] = index->rd_indcollation[i];
		nullsfirst[i] = (index->rd_indoption[i] & INDOPTION_NULLS_FIRST) != 0;
	}
	TupleDescInitEntry(bstate->sortdesc, ncols, "heap_tid", TIDOID, -1, 0);
	attnums[nkeys] = ncols;
	sortops[nkeys] = TIDLessOperator;
	collations[nkeys] = InvalidOid;
	nullsfirst[nkeys] = false;

	/* the same orderings, for sorting formed tuples in memory */
	EIEntrySortInit(&bstate->esort, index);

	bstate->sort = tuplesort_begin_heap(bstate->sortdesc, nsortkeys, attnums,
										sortops, collations, nullsfirst,
										maintenance_work_mem, NULL,
										TUPLESORT_NONE);
	bstate->inslot = MakeSingleTupleTableSlot(bstate->sortdesc,
											  &TTSOpsVirtual);
}

/*
 * Receive one heap tuple's index values from the table scan and sort them.
 *
 * The entry is formed as the index will store it, so that oversized keys are
 * refused here, before any sorting, with the usual message.
 */
static void
ei_build_callback(Relation index, ItemPointer tid, Datum *values,
				  bool *isnull, bool tupleIsAlive, void *state)
{
	EIBuildState *bstate = (EIBuildState *) state;
	MemoryContext oldcxt;
	IndexTuple	itup;

	oldcxt = MemoryContextSwitchTo(bstate->spilled ? bstate->tmpcxt :
								   bstate->memcxt);

	itup = index_form_tuple(RelationGetDescr(index), values, isnull);
	itup->t_tid = *tid;
	EICheckItemSize(index, bstate->heap, itup);
	bstate->indtuples += 1;

	if (!bstate->spilled)
	{
		Size		size = GetMemoryChunkSpace(itup) + sizeof(EISortEntry);

		if (bstate->memused + size <= bstate->memlimit)
		{
			EISortEntry *entry;

			if (bstate->nmem == bstate->memcap)
			{
				bstate->memcap *= 2;
				bstate->memtuples = repalloc_huge(bstate->memtuples,
												  sizeof(EISortEntry) * bstate->memcap);
			}
			entry = &bstate->memtuples[bstate->nmem++];
			EIEntrySortSet(&bstate->esort, entry, itup);
			bstate->memused += size;
			MemoryContextSwitchTo(oldcxt);
			return;
		}

		/* itup lives in memcxt too: feed it before memcxt goes away */
		ei_build_spill(bstate);
		ei_build_put_sorted(bstate, itup);
		MemoryContextSwitchTo(oldcxt);
		MemoryContextReset(bstate->memcxt);
		bstate->memtuples = NULL;
		return;
	}

	ei_build_put_sorted(bstate, itup);

	MemoryContextSwitchTo(oldcxt);
	MemoryContextReset(bstate->tmpcxt);
}

/*
 * Feed one formed entry to the tuplesort, as its columns plus heap TID.
 *
 * The stored (possibly compressed) form is sorted, as the tree compares it.
 */
static void
ei_build_put_sorted(EIBuildState *bstate, IndexTuple itup)
{
	TupleTableSlot *slot = bstate->inslot;

	ExecClearTuple(slot);
	index_deform_tuple(itup, RelationGetDescr(bstate->index),
					   slot->tts_values, slot->tts_isnull);
	slot->tts_values[bstate->natts] = PointerGetDatum(&itup->t_tid);
	slot->tts_isnull[bstate->natts] = false;
	ExecStoreVirtualTuple(slot);
	tuplesort_puttupleslot(bstate->sort, slot);
	ExecClearTuple(slot);
}

/*
 * The entries outgrew maintenance_work_mem: move them all to the tuplesort,
 * which spills to disk, and use it from now on.  The caller frees memcxt.
 */
static void
ei_build_spill(EIBuildState *bstate)
{
	int64		i;

	for (i = 0; i < bstate->nmem; i++)
		ei_build_put_sorted(bstate, bstate->memtuples[i].itup);
	bstate->spilled = true;
	bstate->nmem = 0;
}

/*
 * Sort the in-memory entries in the tree's order.
 */
static void
ei_build_sort_memory(EIBuildState *bstate)
{
	EIEntrySortRun(&bstate->esort, bstate->memtuples, bstate->nmem);
}

/*
 * Load the sorted entries into a new tree, then write its metapage and
 * WAL-log every page.
 */
static void
ei_load_tree(EIBuildState *bstate, uint32 am_kind)
{
	Relation	index = bstate->index;
	TupleDesc	itupdesc = RelationGetDescr(index);
	int			natts = bstate->natts;
	EILoadState lstate;
	TupleTableSlot *slot;
	Buffer		metabuf;
	int64		done = 0;

	lstate.index = index;
	lstate.fillfactor = EIGetFillFactor(index);

	/* block 0 is the metapage; it is written once the root is known */
	metabuf = ei_load_extend(index);
	if (BufferGetBlockNumber(metabuf) != EI_METAPAGE)
		elog(ERROR, "index \"%s\" already contains data",
			 RelationGetRelationName(index));

	lstate.leaf = ei_load_new_level(&lstate, 0);

	slot = MakeSingleTupleTableSlot(bstate->sortdesc, &TTSOpsMinimalTuple);
	for (;;)
	{
		IndexTuple	itup;

		CHECK_FOR_INTERRUPTS();

		if (!bstate->spilled)
		{
			if (done >= bstate->nmem)
				break;
			itup = bstate->memtuples[done].itup;
		}
		else
		{
			if (!tuplesort_gettupleslot(bstate->sort, true, false, slot, NULL))
				break;
			slot_getallattrs(slot);
			itup = index_form_tuple(itupdesc, slot->tts_values, slot->tts_isnull);
			itup->t_tid = *((ItemPointer) DatumGetPointer(slot->tts_values[natts]));
		}
		ei_load_add(&lstate, lstate.leaf, itup);

		if (++done % 1024 == 0)
			pgstat_progress_update_param(PROGRESS_CREATEIDX_TUPLES_DONE, done);
	}
	pgstat_progress_update_param(PROGRESS_CREATEIDX_TUPLES_DONE, done);
	ExecDropSingleTupleTableSlot(slot);

	ei_load_finish(&lstate);

	/* now that the root is known, write the metapage */
	{
		EILoadLevel *top = lstate.leaf;

		while (top->parent != NULL)
			top = top->parent;
		LockBuffer(metabuf, BUFFER_LOCK_EXCLUSIVE);
		EIInitMetaPage(BufferGetPage(metabuf), am_kind, top->blkno,
					   top->level, lstate.fillfactor);
		MarkBufferDirty(metabuf);
		UnlockReleaseBuffer(metabuf);
	}

	/* free the level states */
	while (lstate.leaf != NULL)
	{
		EILoadLevel *parent = lstate.leaf->parent;

		pfree(lstate.leaf->page);
		pfree(lstate.leaf);
		lstate.leaf = parent;
	}

	/*
	 * Log every page as a full-page image.  When the index needs no WAL
	 * (unlogged, or created in this transaction under wal_level = minimal),
	 * the pages reach disk through shared buffers: at a checkpoint, or by the
	 * sync at commit that wal_level = minimal arranges.
	 */
	if (RelationNeedsWAL(index))
		log_newpage_range(index, MAIN_FORKNUM, 0,
						  RelationGetNumberOfBlocks(index), true);
}

/*
 * Extend the index by one block and return it pinned, still all zeroes.
 */
static Buffer
ei_load_extend(Relation index)
{
	return ReadBufferExtended(index, MAIN_FORKNUM, P_NEW, RBM_NORMAL, NULL);
}

/*
 * Start a new level of the tree with its first, still empty, page.
 */
static EILoadLevel *
ei_load_new_level(EILoadState *lstate, uint32 level)
{
	EILoadLevel *lvl = palloc0(sizeof(EILoadLevel));
	Size		usable = BLCKSZ - SizeOfPageHeaderData -
		MAXALIGN(sizeof(EIPageOpaqueData));
	int			fillfactor;

	fillfactor = (level == 0) ? lstate->fillfactor : EI_NONLEAF_FILLFACTOR;

	lvl->level = level;
	lvl->page = (Page) palloc(BLCKSZ);
	lvl->buf = ei_load_extend(lstate->index);
	lvl->blkno = BufferGetBlockNumber(lvl->buf);
	lvl->firstblkno = lvl->blkno;
	lvl->ndata = 0;
	lvl->slack = usable * (100 - fillfactor) / 100;
	lvl->pending = NULL;
	lvl->parent = NULL;
	EIInitPage(lvl->page, level == 0 ? EI_LEAF : 0, level);
	return lvl;
}

/*
 * Append an item to a level; the item before it is placed now that its
 * successor is known.
 *
 * The level takes ownership of itup (palloc'd) and frees it once placed.
 */
static void
ei_load_add(EILoadState *lstate, EILoadLevel *lvl, IndexTuple itup)
{
	IndexTuple	prev = lvl->pending;

	lvl->pending = itup;
	if (prev != NULL)
	{
		ei_load_place(lstate, lvl, prev, itup);
		pfree(prev);
	}
}

/*
 * Put an item on the level's current page, or on a new page to its right if
 * the current one is full; next is the item that follows, or NULL if none.
 *
 * The item stays on the current page only if afterwards the page keeps its
 * fill factor's free space and still has room for next's pivot as its high
 * key.  The first two items of a page go on it regardless: EI_MAX_ITEM_SIZE
 * guarantees that two items plus any high key fit.
 */
static void
ei_load_place(EILoadState *lstate, EILoadLevel *lvl, IndexTuple itup,
			  IndexTuple next)
{
	bool		isleaf = (lvl->level == 0);
	IndexTuple	item = itup;
	Size		itemsz;

	if (lvl->ndata >= 2)
	{
		Size		needed;

		needed = MAXALIGN(IndexTupleSize(itup)) + sizeof(ItemIdData) +
			lvl->slack;
		if (next != NULL)
			needed += ei_load_hikey_size(next, isleaf) + sizeof(ItemIdData);
		if (PageGetExactFreeSpace(lvl->page) < needed)
			ei_load_next_page(lstate, lvl, itup);
	}

	/* an inner page starts with the minus-infinity downlink */
	if (!isleaf && lvl->ndata == 0 && !EIPivotIsMinusInf(itup))
		item = EIFormMinusInf(EITupleGetDownlink(itup));

	itemsz = MAXALIGN(IndexTupleSize(item));
	if (PageAddItem(lvl->page, (Item) item, itemsz, InvalidOffsetNumber,
					false, false) == InvalidOffsetNumber)
		elog(ERROR, "failed to add item to block %u of index \"%s\"",
			 lvl->blkno, RelationGetRelationName(lstate->index));
	lvl->ndata++;

	if (item != itup)
		pfree(item);
}

/*
 * Finish the level's current page, with first's pivot as its high key, and
 * start a new page to its right whose downlink goes to the level above.
 */
static void
ei_load_next_page(EILoadState *lstate, EILoadLevel *lvl, IndexTuple first)
{
	bool		isleaf = (lvl->level == 0);
	Page		page = lvl->page;
	IndexTuple	hikey;
	Buffer		nbuf;
	BlockNumber oblkno = lvl->blkno;
	BlockNumber nblkno;

	/* the high key: leaf items gain their heap TID, inner pivots have it */
	if (isleaf)
		hikey = EIFormPivot(lstate->index, first);
	else
		hikey = CopyIndexTuple(first);
	EITupleSetDownlink(hikey, InvalidBlockNumber);

	nbuf = ei_load_extend(lstate->index);
	nblkno = BufferGetBlockNumber(nbuf);

	/* finish the old page: right link, high key in front of the data */
	EIPageGetOpaque(page)->ei_next = nblkno;
	if (PageAddItem(page, (Item) hikey, MAXALIGN(IndexTupleSize(hikey)),
					EI_HIKEY, false, false) == InvalidOffsetNumber)
		elog(ERROR, "failed to add high key to block %u of index \"%s\"",
			 oblkno, RelationGetRelationName(lstate->index));
	ei_load_write_page(lstate, lvl);

	/* start the new page */
	lvl->buf = nbuf;
	lvl->blkno = nblkno;
	lvl->ndata = 0;
	EIInitPage(page, isleaf ? EI_LEAF : 0, lvl->level);
	EIPageGetOpaque(page)->ei_prev = oblkno;

	/* the level above gets the new page's downlink (and the first's) */
	if (lvl->parent == NULL)
	{
		lvl->parent = ei_load_new_level(lstate, lvl->level + 1);
		ei_load_add(lstate, lvl->parent, EIFormMinusInf(lvl->firstblkno));
	}
	EITupleSetDownlink(hikey, nblkno);
	ei_load_add(lstate, lvl->parent, hikey);
}

/*
 * Copy the level's finished page into its buffer and release the buffer.
 */
static void
ei_load_write_page(EILoadState *lstate, EILoadLevel *lvl)
{
	LockBuffer(lvl->buf, BUFFER_LOCK_EXCLUSIVE);
	memcpy(BufferGetPage(lvl->buf), lvl->page, BLCKSZ);
	MarkBufferDirty(lvl->buf);
	UnlockReleaseBuffer(lvl->buf);
	lvl->buf = InvalidBuffer;
}

/*
 * Return the space the high key made from an item would take on a page.
 */
static Size
ei_load_hikey_size(IndexTuple itup, bool isleaf)
{
	if (isleaf)
		return MAXALIGN(IndexTupleSize(itup) + sizeof(ItemPointerData));
	return MAXALIGN(IndexTupleSize(itup));
}

/*
 * Place every level's held-back item and write each level's last page,
 * bottom-up; the only page of the top level becomes the root.
 */
static void
ei_load_finish(EILoadState *lstate)
{
	EILoadLevel *lvl;

	for (lvl = lstate->leaf; lvl != NULL; lvl = lvl->parent)
	{
		if (lvl->pending != NULL)
		{
			/* may finish a page, and so add to (or create) the level above */
			ei_load_place(lstate, lvl, lvl->pending, NULL);
			pfree(lvl->pending);
			lvl->pending = NULL;
		}

		/* the last page of a level is its rightmost: no high key */
		if (lvl->parent == NULL)
			EIPageGetOpaque(lvl->page)->ei_flags |= EI_ROOT;
		ei_load_write_page(lstate, lvl);
	}
}

/*
 * Name a build phase for pg_stat_progress_create_index (ambuildphasename).
 */
char *
eibuildphasename(int64 phasenum)
{
	switch (phasenum)
	{
		case PROGRESS_CREATEIDX_SUBPHASE_INITIALIZE:
			return "initializing";
		case EI_BUILD_PHASE_SCAN:
			return "scanning table";
		case EI_BUILD_PHASE_SORT:
			return "sorting";
		case EI_BUILD_PHASE_LOAD:
			return "loading tree";
		default:
			return NULL;
	}
}
