/*-------------------------------------------------------------------------
 *
 * batch.c
 *	  Batch-aware ingestion: the entries a transaction inserts into an index
 *	  are collected in backend memory, sorted, and applied leaf by leaf.
 *
 * An index that batches (osm_tree; OsmGetInsertOptions > 1) does not insert an
 * entry when aminsert is called.  It keeps a copy in this backend, and
 * applies all the entries it holds for the index, sorted by (keys, heap
 * TID), through EIInsertSorted (core/insert.c): one lock and one WAL record
 * per leaf touched, whole new leaves for the run past the right edge.
 *
 * Nobody but this transaction can see its new rows, so nobody but this
 * transaction needs their entries before it commits.  The entries are
 * applied
 *
 *	- when the index holds batch_size of them;
 *	- when the transaction's batches would take more than
 *	  osm_tree.batch_memory (work_mem if -1): see "Memory" below;
 *	- before this backend begins a scan of the index (its own reads, the
 *	  leader of a parallel scan before any worker starts, the inspection
 *	  functions);
 *	- before this backend runs ALTER TABLE or ALTER INDEX (which can move
 *	  an index to another tablespace), or a statement that can give an
 *	  index new storage or drop it (TRUNCATE, REINDEX, CLUSTER, REFRESH
 *	  MATERIALIZED VIEW, DROP, DROP OWNED, DISCARD), which a savepoint
 *	  rolled back can undo: ei_batch_process_utility;
 *	- before the transaction commits or prepares (XACT_EVENT_PRE_COMMIT,
 *	  XACT_EVENT_PRE_PREPARE), so the commit record follows them in WAL.
 *
 * Entries of a subtransaction that aborts are dropped: their heap tuples
 * are dead at once, VACUUM may remove them and reuse their TIDs, and an
 * entry applied later would point at somebody else's row.  Everything is
 * dropped when the transaction aborts.
 *
 * The storage the entries are meant for must still be the index's when
 * they are applied.  The executor lets go of its lock on an index when the
 * statement ends (ExecCloseIndices; only its table lock lasts until
 * commit), so the first entry of a batch takes a RowExclusiveLock on the
 * index (and the table) that lasts as long as the entry (ei_batch_lock):
 * no other session can then move or rebuild the index under the batch
 * (ALTER INDEX SET TABLESPACE locks only the index, and copies its blocks,
 * without our entries).  In this transaction, ALTER TABLE and ALTER INDEX
 * apply the batches before they run, since moving an index to another
 * tablespace is the one way to new storage that copies the old; every
 * other way (REINDEX, TRUNCATE, CLUSTER, a table rewrite) builds the new
 * storage from the heap, so our rows are in it or gone with the table's,
 * and a batch whose relfilenode changed is dropped.  Those statements, and
 * DROP, apply the batches before they run too: a savepoint rolled back
 * undoes them, the old storage (or the index) is back, and it must have
 * the entries that a batch dropped meanwhile (at a scan, an insert or
 * ei_batch_make_room) would have lost.  Exclusion constraints
 * and SERIALIZABLE are handled where entries come in (am/osm_tree.c).
 *
 * Memory.  Each batch keeps its copies in a memory context of its own,
 * reset when the batch is applied or dropped, so a long transaction holds
 * no more than its current batches.  The copies are laid end to end in
 * blocks (EIBatchBlock), in arrival order, without a chunk header or a
 * slot in an array each: a batch finds them by walking its blocks, and
 * needs no list of them until it is applied.  Which subtransaction added
 * which copies is kept as marks (EIBatchMark), one where a subtransaction
 * with a higher id than the last mark's added its first copy: the copies
 * a subtransaction and those inside it added are always the batch's last
 * ones, and a subtransaction's commit hands its mark to its parent, so
 * there are never more marks than open subtransactions (see
 * ei_batch_subxact_callback).  A copy of an int8 key thus takes 16 bytes,
 * which matters most to a new backend: its first batch touches its memory
 * for the first time, a page fault a page (src/README.md, "Batches").  A
 * batch counts (bytes) what it holds and what applying it
 * will take: its blocks and marks at their allocated size, and per entry
 * the EISortEntry that ei_batch_apply sorts.  The sum over the
 * transaction's batches (ei_batch_bytes) is kept within
 * OsmGetBatchMemory(): before a new block would take the sum past it, and
 * once an entry takes the sum to it, the batches are applied
 * (ei_batch_make_room).  Beyond that count, EIInsertSorted takes a few
 * pages' worth per leaf (src/README.md, "Batches").
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/heaptoast.h"
#include "access/htup_details.h"
#include "access/relation.h"
#include "access/table.h"
#include "access/xact.h"
#include "eistats.h"
#include "eiosm.h"
#include "miscadmin.h"
#include "storage/lmgr.h"
#include "tcop/utility.h"
#include "utils/hsearch.h"
#include "utils/memutils.h"
#include "utils/resowner.h"
#include "utils/rel.h"
#include "utils/snapmgr.h"

/*
 * A block of a batch's copies: index tuples laid end to end from data, each
 * at a MAXALIGNed offset, used bytes of them.
 */
typedef struct EIBatchBlock
{
	struct EIBatchBlock *next;	/* the block filled after this one */
	Size		size;			/* bytes allocated, this header included */
	Size		used;			/* bytes of data holding copies */
	char		data[FLEXIBLE_ARRAY_MEMBER];	/* MAXALIGNed: see below */
} EIBatchBlock;

/* Where a block's copies begin. */
#define EI_BATCH_BLOCK_HDRSZ	MAXALIGN(offsetof(EIBatchBlock, data))
#define EIBatchBlockData(block)	((char *) (block) + EI_BATCH_BLOCK_HDRSZ)

/*
 * Where the copies of a subtransaction began: the batch's nitems, block and
 * the block's used bytes when it added its first copy, if it came after the
 * subtransaction of the mark before (a higher id).
 */
typedef struct EIBatchMark
{
	SubTransactionId subid;
	int			nitems;
	EIBatchBlock *block;
	Size		used;
} EIBatchMark;

/* The entries one index holds for this transaction. */
typedef struct EIBatch
{
	Oid			indexoid;		/* hash key */
	Oid			heapoid;
	Oid			relfilenode;	/* storage the entries were meant for (a
								 * RelFileNumber from 16 on) */
	int			nitems;
	Size		bytes;			/* what it counts against the bound (see
								 * the file's header) */
	MemoryContext cxt;			/* blocks and marks; reset when emptied */
	EIBatchBlock *first;		/* blocks of copies, in arrival order */
	EIBatchBlock *last;			/* the block being filled */
	EIBatchMark *marks;			/* by increasing subid */
	int			nmarks;
	int			maxmarks;
	bool		to_tree;		/* a part was applied to the tree: so are
								 * the rest (see ei_batch_wants_buffer) */
} EIBatch;

/* Batches of the current transaction, in ei_batch_cxt; NULL if none. */
static HTAB *ei_batches = NULL;
static MemoryContext ei_batch_cxt = NULL;

/*
 * The entry of ei_batches that EIBatchAdd found last (NULL if none): a
 * statement adds row after row to the same index, so most adds skip the
 * lookup.  Entries are never removed and dynahash never moves one, so it
 * stays valid as long as ei_batches.
 */
static EIBatch *ei_batch_last = NULL;

/* The sum of the batches' bytes. */
static Size ei_batch_bytes = 0;

/* The highest subid any batch's mark ever had in this transaction. */
static SubTransactionId ei_batch_max_mark = InvalidSubTransactionId;

/* A batch's first block of copies, and the size its blocks double up to. */
#define EI_BATCH_FIRST_BLOCK	1024
#define EI_BATCH_BLOCK_SIZE		(64 * 1024)

/*
 * What an entry counts besides its copy: its slot in the sort array, and
 * an eighth of one for the sort's list of entries out of place
 * (src/lib/outliersort.h sets at most an eighth of them aside).
 */
#define EI_BATCH_APPLY_BYTES	(sizeof(EISortEntry) * 9 / 8)

static void ei_batch_lock(Oid heapoid, Oid indexoid);
static void ei_batch_clear(EIBatch *batch);
static void ei_batch_make_room(Relation rel, Relation heapRel, EIBatch *batch);
static void ei_batch_apply(Relation rel, Relation heapRel, EIBatch *batch);
static bool ei_batch_wants_buffer(Relation rel, IndexTuple *sorted, int n);
static void ei_batch_xact_callback(XactEvent event, void *arg);
static void ei_batch_process_utility(PlannedStmt *pstmt,
									 const char *queryString,
									 bool readOnlyTree,
									 ProcessUtilityContext context,
									 ParamListInfo params,
									 QueryEnvironment *queryEnv,
									 DestReceiver *dest,
									 QueryCompletion *qc);
static void ei_batch_subxact_callback(SubXactEvent event,
									  SubTransactionId mySubid,
									  SubTransactionId parentSubid,
									  void *arg);

static ProcessUtility_hook_type prev_ProcessUtility_hook = NULL;

/*
 * Register the transaction callbacks and the utility hook; called from
 * _PG_init.
 */
void
EIBatchInit(void)
{
	RegisterXactCallback(ei_batch_xact_callback, NULL);
	RegisterSubXactCallback(ei_batch_subxact_callback, NULL);
	prev_ProcessUtility_hook = ProcessUtility_hook;
	ProcessUtility_hook = ei_batch_process_utility;
}

/*
 * Apply the transaction's batches before ALTER TABLE and ALTER INDEX
 * (including ALTER ... ALL IN TABLESPACE), which can move an index to
 * another tablespace by copying its blocks: our entries must be in them;
 * and before the statements that can give an index new storage or drop
 * it, which a savepoint rolled back undoes (see the file's header).
 */
static void
ei_batch_process_utility(PlannedStmt *pstmt, const char *queryString,
						 bool readOnlyTree, ProcessUtilityContext context,
						 ParamListInfo params, QueryEnvironment *queryEnv,
						 DestReceiver *dest, QueryCompletion *qc)
{
	if (ei_batches != NULL && IsTransactionState() && !IsInParallelMode() &&
		(IsA(pstmt->utilityStmt, AlterTableStmt) ||
		 IsA(pstmt->utilityStmt, AlterTableMoveAllStmt) ||
		 IsA(pstmt->utilityStmt, TruncateStmt) ||
		 IsA(pstmt->utilityStmt, ReindexStmt) ||
		 IsA(pstmt->utilityStmt, ClusterStmt) ||
		 IsA(pstmt->utilityStmt, RefreshMatViewStmt) ||
		 IsA(pstmt->utilityStmt, DropStmt) ||
		 IsA(pstmt->utilityStmt, DropOwnedStmt) ||
		 IsA(pstmt->utilityStmt, DiscardStmt)))
		EIBatchFlushAll();

	if (prev_ProcessUtility_hook)
		prev_ProcessUtility_hook(pstmt, queryString, readOnlyTree, context,
								 params, queryEnv, dest, qc);
	else
		standard_ProcessUtility(pstmt, queryString, readOnlyTree, context,
								params, queryEnv, dest, qc);

	/* ALTER INDEX ... SET (compact_leaves = on) where it cannot hold */
	if (IsA(pstmt->utilityStmt, AlterTableStmt))
		OsmCheckAlteredOptions((AlterTableStmt *) pstmt->utilityStmt);
}

/*
 * Lock the table and the index of a batch that gets its first entry, until
 * the (sub)transaction adding it ends (see the file's header).
 *
 * The locks go to the (sub)transaction's resource owner, not to the
 * current one: during a cursor's FETCH that is the portal's, whose locks a
 * failed FETCH inside a later subtransaction releases with the
 * subtransaction, while the entries, which belong to the subtransaction
 * that added them (their marks), would stay.  Locks and entries thus end
 * together: at commit or abort, or at the abort of the subtransaction that
 * added them (when ei_batch_subxact_callback drops those entries), and
 * they pass to the parent when it commits.  The table is locked too
 * because a portal's lock on it goes the same way.
 */
static void
ei_batch_lock(Oid heapoid, Oid indexoid)
{
	ResourceOwner saved = CurrentResourceOwner;

	CurrentResourceOwner = CurTransactionResourceOwner;
	PG_TRY();
	{
		LockRelationOid(heapoid, RowExclusiveLock);
		LockRelationOid(indexoid, RowExclusiveLock);
	}
	PG_FINALLY();
	{
		CurrentResourceOwner = saved;
	}
	PG_END_TRY();
}

/*
 * Drop a batch's entries and give back their memory.
 */
static void
ei_batch_clear(EIBatch *batch)
{
	MemoryContextReset(batch->cxt);
	Assert(ei_batch_bytes >= batch->bytes);
	ei_batch_bytes -= batch->bytes;
	batch->nitems = 0;
	batch->bytes = 0;
	batch->first = NULL;
	batch->last = NULL;
	batch->marks = NULL;
	batch->nmarks = 0;
	batch->maxmarks = 0;
}

/*
 * Whether forming the index tuple of these values can fail (other than by
 * running out of memory): not if no value is to be fetched from TOAST or
 * compressed and the tuple fits a page's item.  Such a plain tuple is
 * formed in the batch's block directly (ei_batch_form_plain); any other is
 * formed and checked before the batch takes anything for it.  *datalen:
 * the size of the tuple's data; *size: the tuple's, MAXALIGNed; *fixed:
 * whether every value is of fixed width and none is null.
 */
static bool
ei_batch_is_plain(TupleDesc desc, Datum *values, bool *isnull,
				  Size *datalen, Size *size, bool *fixed)
{
	bool		hasnull = false;
	Size		len = 0;

	*fixed = true;
	for (int i = 0; i < desc->natts; i++)
	{
		Form_pg_attribute att = TupleDescAttr(desc, i);
		Pointer		v;

		if (isnull[i])
		{
			hasnull = true;
			continue;
		}
		if (att->attlen > 0)
			len = att_align_nominal(len, att->attalign) + att->attlen;
		else
			*fixed = false;
		if (att->attlen != -1)
			continue;
		v = DatumGetPointer(values[i]);
		if (VARATT_IS_EXTERNAL(v))
			return false;
		/* index_form_tuple would try to compress it (TOAST_INDEX_HACK) */
		if (!VARATT_IS_EXTENDED(v) && VARSIZE(v) > TOAST_INDEX_TARGET)
			return false;
	}
	/* fixed-width values: their aligned widths are the data's size */
	if (!*fixed)
		len = heap_compute_data_size(desc, values, isnull);
	Assert(len == heap_compute_data_size(desc, values, isnull));
	*datalen = len;
	*size = MAXALIGN(IndexInfoFindDataOffset(hasnull ? INDEX_NULL_MASK : 0) +
					 len);
	*fixed = *fixed && !hasnull;
	return *size <= EI_MAX_ITEM_SIZE;
}

/*
 * Form at dest the plain index tuple of values (ei_batch_is_plain said so
 * and computed datalen and fixed), writing the bytes index_form_tuple
 * would, without its allocation; values all of fixed width and not null
 * (int8, timestamp, uuid keys: the common case) without its general size
 * and fill loops either.
 */
static IndexTuple
ei_batch_form_plain(TupleDesc desc, Datum *values, bool *isnull,
					Size datalen, bool fixed, char *dest)
{
	IndexTuple	itup = (IndexTuple) dest;
	unsigned short infomask = 0;
	Size		hoff;
	Size		size;

	/* fixed: no value is null (ei_batch_is_plain) */
	for (int i = 0; !fixed && i < desc->natts; i++)
	{
		if (isnull[i])
		{
			infomask |= INDEX_NULL_MASK;
			break;
		}
	}
	hoff = IndexInfoFindDataOffset(infomask);
	size = MAXALIGN(hoff + datalen);

	/* zeroed: the padding between and after the values is compared whole */
	memset(dest, 0, size);
	if (fixed)
	{
		char	   *data = dest + hoff;
		Size		off = 0;

		for (int i = 0; i < desc->natts; i++)
		{
			Form_pg_attribute att = TupleDescAttr(desc, i);

			off = att_align_nominal(off, att->attalign);
			if (att->attbyval)
				store_att_byval(data + off, values[i], att->attlen);
			else
				memcpy(data + off, DatumGetPointer(values[i]), att->attlen);
			off += att->attlen;
		}
		Assert(off == datalen);
	}
	else
	{
		uint16		tupmask = 0;

		heap_fill_tuple(desc, values, isnull, dest + hoff, datalen, &tupmask,
						(infomask & INDEX_NULL_MASK) ?
						(bits8 *) dest + sizeof(IndexTupleData) : NULL);
		if (tupmask & HEAP_HASVARWIDTH)
			infomask |= INDEX_VAR_MASK;
	}
	itup->t_info = infomask | (unsigned short) size;

#ifdef USE_ASSERT_CHECKING
	{
		IndexTuple	general = index_form_tuple(desc, values, isnull);

		Assert(IndexTupleSize(general) == size &&
			   memcmp(general, itup, size) == 0);
		pfree(general);
	}
#endif
	return itup;
}

/*
 * Where a copy of size (MAXALIGNed) bytes goes: the end of the batch's last
 * block, or a new block.  A new block that would take the transaction's
 * batches past limit is taken only after they are applied (which empties
 * this batch too).  The caller counts the copy in the block's used bytes.
 */
static char *
ei_batch_room(Relation rel, Relation heapRel, EIBatch *batch, Size size,
			  Size limit)
{
	EIBatchBlock *block = batch->last;
	Size		blksize;

	Assert(size == MAXALIGN(size));
	if (block != NULL &&
		block->size - EI_BATCH_BLOCK_HDRSZ - block->used >= size)
		return EIBatchBlockData(block) + block->used;

	blksize = (block == NULL) ? EI_BATCH_FIRST_BLOCK :
		Min(block->size * 2, EI_BATCH_BLOCK_SIZE);
	if (ei_batch_bytes > 0 &&
		ei_batch_bytes + Max(blksize, EI_BATCH_BLOCK_HDRSZ + size) > limit)
	{
		ei_batch_make_room(rel, heapRel, batch);
		Assert(batch->nitems == 0 && batch->last == NULL);
		blksize = EI_BATCH_FIRST_BLOCK;
	}
	blksize = Max(blksize, EI_BATCH_BLOCK_HDRSZ + size);

	block = MemoryContextAlloc(batch->cxt, blksize);
	block->next = NULL;
	block->size = blksize;
	block->used = 0;
	if (batch->last != NULL)
		batch->last->next = block;
	else
		batch->first = block;
	batch->last = block;
	batch->bytes += blksize;
	ei_batch_bytes += blksize;
	return EIBatchBlockData(block);
}

/*
 * Mark where the copies of the current subtransaction begin, if its id is
 * higher than the last mark's (its first copy goes next, at the end of the
 * last block).
 */
static void
ei_batch_mark(EIBatch *batch)
{
	SubTransactionId subid = GetCurrentSubTransactionId();
	EIBatchMark *mark;

	Assert(batch->last != NULL);
	if (batch->nmarks > 0 && batch->marks[batch->nmarks - 1].subid >= subid)
		return;
	if (batch->nmarks == batch->maxmarks)
	{
		int			newmax = Max(4, batch->maxmarks * 2);

		if (batch->marks == NULL)
			batch->marks = MemoryContextAlloc(batch->cxt,
											  sizeof(EIBatchMark) * newmax);
		else
			batch->marks = repalloc(batch->marks,
									sizeof(EIBatchMark) * newmax);
		batch->bytes += sizeof(EIBatchMark) * (newmax - batch->maxmarks);
		ei_batch_bytes += sizeof(EIBatchMark) * (newmax - batch->maxmarks);
		batch->maxmarks = newmax;
	}
	ei_batch_max_mark = Max(ei_batch_max_mark, subid);
	mark = &batch->marks[batch->nmarks++];
	mark->subid = subid;
	mark->nitems = batch->nitems;
	mark->block = batch->last;
	mark->used = batch->last->used;
}

/*
 * Keep one entry (the index tuple of values and isnull, pointing at heap
 * tuple htid) for the transaction, applying the index's batch once it
 * holds batch_size entries (the index's, which the caller looked up), and
 * the transaction's batches once they take osm_tree.batch_memory (see the
 * file's header).  A plain tuple (ei_batch_is_plain) is formed in the
 * batch's block directly; any other is formed in the caller's memory,
 * refused there if oversized, before anything else, and copied once
 * accepted.
 */
void
EIBatchAdd(Relation rel, Relation heapRel, Datum *values, bool *isnull,
		   ItemPointer htid, int batch_size)
{
	Oid			indexoid = RelationGetRelid(rel);
	EIBatch    *batch;
	bool		found;
	Size		limit = OsmGetBatchMemory();
	Size		datalen = 0;
	Size		size;
	bool		fixed = false;
	char	   *dest;
	IndexTuple	itup = NULL;

	EICheckPreloaded();

	/* refuse an oversized entry now, with the row that has it */
	if (!ei_batch_is_plain(RelationGetDescr(rel), values, isnull, &datalen,
						   &size, &fixed))
	{
		itup = index_form_tuple(RelationGetDescr(rel), values, isnull);
		itup->t_tid = *htid;
		EICheckItemSize(rel, heapRel, itup);
		size = MAXALIGN(IndexTupleSize(itup));
	}

	if (ei_batches == NULL)
	{
		HASHCTL		ctl;

		ei_batch_cxt = AllocSetContextCreate(TopTransactionContext,
											 "elastic_index batches",
											 ALLOCSET_SMALL_SIZES);
		ctl.keysize = sizeof(Oid);
		ctl.entrysize = sizeof(EIBatch);
		ctl.hcxt = ei_batch_cxt;
		ei_batches = hash_create("elastic_index batches", 8, &ctl,
								 HASH_ELEM | HASH_BLOBS | HASH_CONTEXT);
		ei_batch_bytes = 0;
	}

	if (ei_batch_last != NULL && ei_batch_last->indexoid == indexoid)
		batch = ei_batch_last;
	else
		batch = hash_search(ei_batches, &indexoid, HASH_FIND, NULL);
	found = (batch != NULL);
	if (!found)
	{
		/*
		 * The context first: an entry the table holds must never be left
		 * without one by an allocation failing after it was entered (an
		 * error in a subtransaction leaves the table to the next insert).
		 */
		MemoryContext cxt = AllocSetContextCreate(ei_batch_cxt,
												  "elastic_index batch",
												  ALLOCSET_SMALL_SIZES);

		batch = hash_search(ei_batches, &indexoid, HASH_ENTER, NULL);
		batch->cxt = cxt;
		batch->bytes = 0;
	}
	ei_batch_last = batch;
	if (!found || batch->relfilenode != EIRelFileNumber(EIRelationLocator(rel)))
	{
		/* the index got new storage since: those entries are moot */
		ei_batch_clear(batch);
		batch->heapoid = RelationGetRelid(heapRel);
		batch->relfilenode = EIRelFileNumber(EIRelationLocator(rel));
		batch->to_tree = false;
	}
	else if (batch->nitems == 0 && batch->bytes > 0)
	{
		/*
		 * A block (and no mark) left by an error in ei_batch_mark, which
		 * only running out of memory can raise, in a subtransaction whose
		 * abort found no mark of its own to cut the batch back to.
		 */
		ei_batch_clear(batch);
	}

	/* room for the copy (applying the batches first if need be), marked */
	dest = ei_batch_room(rel, heapRel, batch, size, limit);
	ei_batch_mark(batch);

	/*
	 * An error in ei_batch_lock leaves a block and a mark without an entry:
	 * the abort of the (sub)transaction clears the batch, whose first mark
	 * is this one (the batch was empty).
	 */
	if (batch->nitems == 0)
		ei_batch_lock(batch->heapoid, indexoid);

	/*
	 * The entry, where it stays: nothing above resets the batch's memory
	 * after this (an apply does), and neither forming it in place nor
	 * copying it can fail.
	 */
	if (itup == NULL)
		itup = ei_batch_form_plain(RelationGetDescr(rel), values, isnull,
								   datalen, fixed, dest);
	else
	{
		IndexTuple	formed = itup;

		Assert(MAXALIGN(IndexTupleSize(formed)) == size);
		itup = (IndexTuple) dest;
		memcpy(itup, formed, IndexTupleSize(formed));
		pfree(formed);
	}
	itup->t_tid = *htid;
	batch->last->used += size;
	batch->nitems++;
	batch->bytes += EI_BATCH_APPLY_BYTES;
	ei_batch_bytes += EI_BATCH_APPLY_BYTES;

	if (batch->nitems >= batch_size)
		ei_batch_apply(rel, heapRel, batch);
	else if (ei_batch_bytes >= limit)
		ei_batch_make_room(rel, heapRel, batch);
}

/*
 * The transaction's batches reached osm_tree.batch_memory: apply them all
 * (as at commit), or only the current index's if it holds all there is.
 * Applying only the batch that took the last entry would leave the others'
 * memory taken, and the next entries would be applied a few at a time.
 */
static void
ei_batch_make_room(Relation rel, Relation heapRel, EIBatch *batch)
{
	if (batch->bytes == ei_batch_bytes)
		ei_batch_apply(rel, heapRel, batch);
	else
		EIBatchFlushAll();
}

/*
 * Apply the entries this transaction holds for an index, if any (before a
 * scan of it, say).
 */
void
EIBatchFlushIndex(Relation rel)
{
	Oid			indexoid = RelationGetRelid(rel);
	EIBatch    *batch;
	Relation	heapRel;

	if (ei_batches == NULL)
		return;
	batch = hash_search(ei_batches, &indexoid, HASH_FIND, NULL);
	if (batch == NULL || batch->nitems == 0)
		return;
	if (batch->relfilenode != EIRelFileNumber(EIRelationLocator(rel)))
	{
		ei_batch_clear(batch);	/* storage replaced: see above */
		return;
	}

	/* we inserted rows into the table, so we hold a lock on it already */
	heapRel = table_open(batch->heapoid, NoLock);
	ei_batch_apply(rel, heapRel, batch);
	table_close(heapRel, NoLock);
}

/*
 * Apply every batch of the transaction (before it commits).  An index that
 * no longer exists, or got new storage, loses its entries.
 *
 * The descents run under a snapshot, as every descent does: at commit the
 * statement's is gone, and without one this backend would hold no xmin,
 * so VACUUM's recycle fence (EIAdvanceRecycleFence) could let a page it
 * unlinked be reused while a descent here still held a link to it.
 *
 * The table and the index are opened in the executor's order, both in
 * RowExclusiveLock, which this transaction holds already (the table since
 * its inserts, the index since the batch's first entry: see above), so
 * this cannot wait; opening them with NoLock instead would skip the
 * invalidation processing a lock request brings, and assert-enabled
 * servers check that every relation opened is locked.  Either may be
 * gone, dropped by this very transaction.
 */
void
EIBatchFlushAll(void)
{
	HASH_SEQ_STATUS status;
	EIBatch    *batch;
	bool		pushed = false;

	if (ei_batches == NULL)
		return;

	hash_seq_init(&status, ei_batches);
	while ((batch = hash_seq_search(&status)) != NULL)
	{
		Relation	heapRel;
		Relation	rel;

		if (batch->nitems == 0)
			continue;
		CHECK_FOR_INTERRUPTS();
		heapRel = try_relation_open(batch->heapoid, RowExclusiveLock);
		if (heapRel == NULL)
		{
			ei_batch_clear(batch);
			continue;
		}
		rel = try_relation_open(batch->indexoid, RowExclusiveLock);
		if (rel == NULL)
		{
			relation_close(heapRel, NoLock);
			ei_batch_clear(batch);
			continue;
		}
		if (rel->rd_rel->relkind == RELKIND_INDEX &&
			EIRelIsOsm(rel))
		{
			if (!pushed && !ActiveSnapshotSet())
			{
				PushActiveSnapshot(GetTransactionSnapshot());
				pushed = true;
			}
			EIBatchFlushIndex(rel);
		}
		else
			ei_batch_clear(batch);
		relation_close(rel, NoLock);
		relation_close(heapRel, NoLock);
	}
	if (pushed)
		PopActiveSnapshot();
}

/*
 * Should a sorted batch go to the index's insert buffer rather than the
 * tree?  Yes if the buffer is on and the batch fills fewer pages than one
 * flush moves.  With osm_tree.top_inserts only a one-entry batch does: the
 * buffer then hands it straight to the tree through the backend's pole
 * (EIInsertTop), while a larger sorted batch is cheaper applied leaf by
 * leaf.
 */
static bool
ei_batch_wants_buffer(Relation rel, IndexTuple *sorted, int n)
{
	int			bufsize = OsmGetBufferSize(rel);
	double		perpage;
	double		unit;

	/* a serializable transaction inserts at once, never batches (osminsert) */
	Assert(!IsolationIsSerializable());

	if (bufsize <= 0)
		return false;
	if (osm_top_inserts)
		return n == 1;
	perpage = (double) (BLCKSZ - SizeOfPageHeaderData) /
		(MAXALIGN(IndexTupleSize(sorted[0])) + sizeof(ItemIdData));
	unit = Max(1.0, bufsize * OsmGetFlushFraction(rel));
	return n / perpage < unit;
}

/*
 * Sort an index's batch and apply it to the tree; the batch is empty after.
 */
static void
ei_batch_apply(Relation rel, Relation heapRel, EIBatch *batch)
{
	MemoryContext sortcxt;
	MemoryContext oldcxt;
	IndexTuple *sorted;
	IndexTuple	one;
	int			n = batch->nitems;

	if (n == 0)
		return;

	sortcxt = AllocSetContextCreate(CurrentMemoryContext,
									"elastic_index batch sort",
									ALLOCSET_DEFAULT_SIZES);
	oldcxt = MemoryContextSwitchTo(sortcxt);

	if (n == 1)
	{
		/* a one-row transaction: no sort */
		EIBatchBlock *block = batch->first;

		while (block->used == 0)
			block = block->next;
		one = (IndexTuple) EIBatchBlockData(block);
		sorted = &one;
	}
	else
	{
		EIEntrySort esort;
		EISortEntry *entries;
		int			i = 0;

		EIEntrySortInit(&esort, rel);
		entries = palloc_extended(sizeof(EISortEntry) * n, MCXT_ALLOC_HUGE);
		for (EIBatchBlock *block = batch->first; block; block = block->next)
		{
			char	   *data = EIBatchBlockData(block);

			for (Size off = 0; off < block->used;)
			{
				IndexTuple	itup = (IndexTuple) (data + off);

				Assert(i < n);
				EIEntrySortSet(&esort, &entries[i++], itup);
				off += MAXALIGN(IndexTupleSize(itup));
			}
		}
		Assert(i == n);
		EIEntrySortRun(&esort, entries, n);

		/*
		 * The sorted pointers take the front of the same array (what the
		 * batch counted for it): pointer i lands within entries[i / 3],
		 * which has been read by then.
		 */
		StaticAssertStmt(sizeof(EISortEntry) >= sizeof(IndexTuple),
						 "a sort entry must hold a pointer");
		sorted = (IndexTuple *) entries;
		for (i = 0; i < n; i++)
			sorted[i] = entries[i].itup;
	}

	/*
	 * The batch is emptied only once all of it is in.  If applying fails in
	 * a subtransaction that is rolled back while the transaction goes on,
	 * the entries stay and are applied again later; EIInsertSorted skips
	 * those already in the tree, and a scan or flush drops a buffered entry
	 * that is there twice.
	 *
	 * Without osm_tree.top_inserts, a batch smaller than one flush of the
	 * insert buffer goes to the buffer: its entries join others' there and
	 * reach the tree in one sorted flush (with it, see
	 * ei_batch_wants_buffer).  A larger one is its own sorted run, and so
	 * are the later parts of a transaction's batch once one part went to
	 * the tree (a bulk load applied in batch_memory-sized parts): buffering its
	 * tail would hand the tree those keys after the next load's, out of
	 * order.
	 */
	if (!batch->to_tree && ei_batch_wants_buffer(rel, sorted, n))
		OsmBufferInsert(rel, heapRel, sorted, n);
	else
	{
		EIInsertSorted(rel, heapRel, sorted, n, true);
		batch->to_tree = true;
	}
	EIStatsCount(rel, EI_STAT_BATCHES, 1);

	MemoryContextSwitchTo(oldcxt);
	MemoryContextDelete(sortcxt);

	ei_batch_clear(batch);
}

/*
 * Apply the batches before commit and prepare; forget them at the end of
 * the transaction (their memory goes with TopTransactionContext).
 */
static void
ei_batch_xact_callback(XactEvent event, void *arg)
{
	switch (event)
	{
		case XACT_EVENT_PRE_COMMIT:
		case XACT_EVENT_PRE_PREPARE:
			EIBatchFlushAll();
			break;
		case XACT_EVENT_COMMIT:
		case XACT_EVENT_ABORT:
		case XACT_EVENT_PREPARE:
		case XACT_EVENT_PARALLEL_COMMIT:
		case XACT_EVENT_PARALLEL_ABORT:
			ei_batches = NULL;
			ei_batch_last = NULL;
			ei_batch_cxt = NULL;
			ei_batch_bytes = 0;
			ei_batch_max_mark = InvalidSubTransactionId;
			break;
		default:
			break;
	}
}

/* The first of batch's marks of subtransaction subid or a later one. */
static int
ei_batch_first_mark(EIBatch *batch, SubTransactionId subid)
{
	int			m = 0;

	while (m < batch->nmarks && batch->marks[m].subid < subid)
		m++;
	return m;
}

/*
 * A subtransaction's entries belong to its parent once it commits: its
 * first mark, if any (its children's are folded into it by then), becomes
 * the parent's, unless the parent has one already; later ones go.  Every
 * mark is then an open (sub)transaction's, so a subtransaction per row (a
 * PL/pgSQL exception block, a driver's savepoint per statement) keeps one
 * mark, not one per row.  Nothing is kept to undo this if the commit fails
 * later on: by this callback CommitSubTransaction has made the
 * subtransaction's xid one of its parent's children (AtSubCommit_childXids),
 * so the parent's commit would commit it too (assert-enabled servers stop
 * at that in clog); the entries follow the xid.  (Until then clog says the
 * rows aborted, and a VACUUM in between may free their TIDs: a gap named in
 * src/README.md, "Batches".)
 */
static void
ei_batch_marks_commit(EIBatch *batch, SubTransactionId mySubid,
					  SubTransactionId parentSubid)
{
	int			m = ei_batch_first_mark(batch, mySubid);

	if (m == batch->nmarks)
		return;
	if (m > 0 && batch->marks[m - 1].subid >= parentSubid)
		batch->nmarks = m;		/* the parent's mark covers them */
	else
	{
		batch->marks[m].subid = parentSubid;
		batch->nmarks = m + 1;
	}
}

/*
 * Drop the entries of an aborted subtransaction and of every subtransaction
 * inside it: all of them started after it, so they have larger ids.  They
 * are the batch's last entries: each was added after the aborted
 * subtransaction began (it was open all the while), and every entry added
 * since then was added by it or by one inside it.  Its first entry, or the
 * first of one inside it, is where the first mark of such an id points.
 * At a subtransaction's commit, hand its marks to the parent.  No batch
 * has a mark of a subtransaction above ei_batch_max_mark, nor entries of
 * one: then there is nothing to do.
 */
static void
ei_batch_subxact_callback(SubXactEvent event, SubTransactionId mySubid,
						  SubTransactionId parentSubid, void *arg)
{
	HASH_SEQ_STATUS status;
	EIBatch    *batch;

	if ((event != SUBXACT_EVENT_ABORT_SUB &&
		 event != SUBXACT_EVENT_COMMIT_SUB) || ei_batches == NULL ||
		mySubid > ei_batch_max_mark)
		return;

	hash_seq_init(&status, ei_batches);
	while ((batch = hash_seq_search(&status)) != NULL)
	{
		int			m;
		EIBatchMark *mark;
		EIBatchBlock *next;

		if (event == SUBXACT_EVENT_COMMIT_SUB)
		{
			ei_batch_marks_commit(batch, mySubid, parentSubid);
			continue;
		}

		m = ei_batch_first_mark(batch, mySubid);
		if (m == batch->nmarks)
			continue;
		mark = &batch->marks[m];

		/*
		 * An emptied batch gives back all its memory: counted, it would take
		 * the bound from the others until the transaction ends (and
		 * EIBatchFlushAll passes over a batch without entries).
		 */
		if (mark->nitems == 0)
		{
			ei_batch_clear(batch);
			continue;
		}
		for (EIBatchBlock *block = mark->block->next; block; block = next)
		{
			next = block->next;
			batch->bytes -= block->size;
			ei_batch_bytes -= block->size;
			pfree(block);
		}
		mark->block->next = NULL;
		mark->block->used = mark->used;
		batch->last = mark->block;
		batch->bytes -= (Size) (batch->nitems - mark->nitems) *
			EI_BATCH_APPLY_BYTES;
		ei_batch_bytes -= (Size) (batch->nitems - mark->nitems) *
			EI_BATCH_APPLY_BYTES;
		batch->nitems = mark->nitems;
		batch->nmarks = m;
	}
}
