/*-------------------------------------------------------------------------
 *
 * heapkey.c
 *	  Reading an index entry's key from the heap.
 *
 * A compact leaf stores heap TIDs but no keys; whenever a key is needed it
 * is read from the heap tuple the entry points to.  The rules that make
 * that safe (see src/README.md, "Keys read from the heap"):
 *
 *	- The caller holds a lock on the leaf holding the entry.  VACUUM must
 *	  remove the entry from that leaf (under a cleanup lock) before the
 *	  heap line pointer can be marked unused and reused, so while the leaf
 *	  is locked the TID still means the tuple the entry was made for.
 *	- The entry's TID is the root of a HOT chain, and the entry holds the
 *	  values of the chain's last member (ei_heapkey_chain_end), not
 *	  necessarily the root's: a chain HOT-updated before the index was
 *	  created may change the index's columns ("broken" for this index;
 *	  see the heap's README.HOT), and CREATE INDEX indexes the chain's
 *	  end under the root's TID.  Updates after that are HOT only if they
 *	  keep every indexed column, so all members from the build's end on
 *	  share the entry's values; the member the chain ends at now is one
 *	  of them.  A HOT update whose transaction aborted is no link.
 *	- A root marked LP_DEAD means the whole chain is dead to everybody: the
 *	  entry can be removed, and its key is not needed any more.
 *	- A key column stored out of line in TOAST would need a TOAST-table
 *	  read, which must never happen under a buffer lock; the entry is
 *	  reported unreadable instead.  (Fixed-width types are never toasted;
 *	  a short text key is moved out of line only in a row that stays wider
 *	  than about 2 kB once every larger column is.)  The caller then
 *	  unlocks the leaf, keeping its pin, and reads the key with
 *	  EIHeapKeyReadUnlocked, which detoasts it holding no buffer lock and
 *	  remembers it by TID; later reads of that TID by the same reader
 *	  return the remembered key.  The leaf's pin keeps that safe: VACUUM
 *	  needs a cleanup lock on every leaf before it can mark a heap item
 *	  unused, so no TID the leaf held when it was unlocked is reused while
 *	  the pin lasts.  A reader therefore forgets its remembered keys
 *	  (EIHeapKeyReaderForget) whenever it moves to another leaf.
 *	- Aborted and deleted tuples keep their data until pruned, and pruning
 *	  needs a cleanup lock on the heap page, which our share lock excludes
 *	  while we read.
 *
 * Only tables of the heap access method are supported; the line-pointer
 * rules above are the heap's.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/heapam.h"
#include "access/htup_details.h"
#include "access/transam.h"
#include "access/xact.h"
#include "catalog/pg_am.h"
#include "eistats.h"
#include "eicompact.h"
#include "storage/bufmgr.h"
#include "storage/procarray.h"
#include "utils/rel.h"
#include "utils/snapmgr.h"

/* A key read with the leaf unlocked (EIHeapKeyReadUnlocked). */
typedef struct EIHeapKeyCached
{
	ItemPointerData tid;
	char	   *key;			/* normalized key, key.len bytes */
	int			keylen;
	IndexTuple	itup;			/* with want_tuple (fixed per reader), else
								 * NULL */
	bool		dead;			/* no key: the entry was found dead */
	TransactionId horizon;		/* then: the newest xid that deleted it */
} EIHeapKeyCached;

static EIHeapKeyResult ei_heapkey_read(EIHeapKeyReader *reader,
									   ItemPointer tid, bool unlocked);
static bool ei_heapkey_chain_needed(EIHeapKeyReader *reader, Page page,
									BlockNumber blkno, OffsetNumber root,
									TransactionId *horizon);
static OffsetNumber ei_heapkey_chain_end(Page page, OffsetNumber first);
static bool ei_heapkey_xmin_aborted(HeapTupleHeader tup);
static void ei_heapkey_advance_horizon(TransactionId *horizon,
									   TransactionId xid);
static void ei_heapkey_forget_last(EIHeapKeyReader *reader);
static EIHeapKeyCached *ei_heapkey_remember(EIHeapKeyReader *reader,
											ItemPointer tid);

/*
 * Prepare to read keys of the entries of index from its table heap.
 * norm must be the index's normalized-key information (norm->ok).
 */
EIHeapKeyReader *
EIHeapKeyReaderBegin(Relation heap, Relation index, EINormKeyInfo *norm)
{
	EIHeapKeyReader *reader;

	Assert(norm->ok);
	if (heap->rd_rel->relam != HEAP_TABLE_AM_OID)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("table \"%s\" does not use the heap access method",
						RelationGetRelationName(heap)),
				 errdetail("Compact leaves read keys from heap tuples.")));

	reader = palloc0(sizeof(EIHeapKeyReader));
	reader->heap = heap;
	reader->index = index;
	reader->norm = norm;
	reader->buf = InvalidBuffer;
	reader->cxt = CurrentMemoryContext;
	initStringInfo(&reader->key);
	return reader;
}

/*
 * Forget the key (and entry) read last under the leaf's lock.
 */
static void
ei_heapkey_forget_last(EIHeapKeyReader *reader)
{
	reader->last_valid = false;
	reader->last_unformed = false;
	if (reader->last_itup != NULL)
	{
		pfree(reader->last_itup);
		reader->last_itup = NULL;
	}
}

/*
 * Forget the keys read with the leaf unlocked: the caller is about to let
 * go of the leaf whose pin made them safe.
 */
void
EIHeapKeyReaderForget(EIHeapKeyReader *reader)
{
	ei_heapkey_forget_last(reader);
	for (int i = 0; i < reader->ncached; i++)
	{
		if (reader->cached[i].key != NULL)
			pfree(reader->cached[i].key);
		if (reader->cached[i].itup != NULL)
			pfree(reader->cached[i].itup);
	}
	reader->ncached = 0;
}

/*
 * Drop the pin on the heap page last read, so that a reader kept for a
 * whole scan never holds a heap page pinned while its scan is paused
 * (VACUUM waits for pins to go before it removes dead heap items).
 */
void
EIHeapKeyReaderReleasePin(EIHeapKeyReader *reader)
{
	ei_heapkey_forget_last(reader);
	if (BufferIsValid(reader->buf))
	{
		ReleaseBuffer(reader->buf);
		reader->buf = InvalidBuffer;
	}
}

/*
 * The key read last under the leaf's lock if it is the key of tid (its
 * normalized key, reader->key.len bytes), else NULL; valid as long as that
 * lock is held and the reader reads nothing else.
 */
const char *
EIHeapKeyReaderLastKey(EIHeapKeyReader *reader, ItemPointer tid)
{
	if (reader->last_valid && ItemPointerEquals(&reader->last_tid, tid))
		return reader->key.data;
	return NULL;
}

/*
 * Count the keys read, and release the reader's heap buffer pin and memory.
 */
void
EIHeapKeyReaderEnd(EIHeapKeyReader *reader)
{
	EIStatsCount(reader->index, EI_STAT_HEAP_KEY_READS, reader->nreads);
	if (BufferIsValid(reader->buf))
		ReleaseBuffer(reader->buf);
	EIHeapKeyReaderForget(reader);
	if (reader->cached != NULL)
		pfree(reader->cached);
	pfree(reader->key.data);
	pfree(reader);
}

/*
 * Read the key of the entry whose heap TID is tid into reader->key, as a
 * normalized key with tid appended.  Returns EI_HEAPKEY_FOUND,
 * EI_HEAPKEY_DEAD (the chain is dead to all; the entry may be removed) or
 * EI_HEAPKEY_UNREADABLE (a key column is toasted out of line).  With
 * want_tuple, reader->itup is then also the entry as an index tuple, with
 * its INCLUDE columns read from the same heap tuple (which share the HOT
 * chain's values as the key columns do); one of those toasted out of line
 * makes the entry unreadable too, but its key is still read: a read of the
 * same TID without want_tuple then reads nothing (see
 * EIHeapKeyReaderLastKey), and one with it returns EI_HEAPKEY_UNREADABLE
 * again without reading.  With keep_tuple too, the tuple is not returned
 * but kept for a later read of the same TID (which then copies it out
 * without reading the heap): only the read that returns an entry copies
 * it.  The caller must hold a lock on the leaf holding the entry.
 */
EIHeapKeyResult
EIHeapKeyRead(EIHeapKeyReader *reader, ItemPointer tid)
{
	return ei_heapkey_read(reader, tid, false);
}

/*
 * Like EIHeapKeyRead, but for a caller that holds the leaf holding the
 * entry pinned and not locked: a key column toasted out of line is
 * fetched from TOAST (holding no buffer lock), and the key is remembered
 * so that EIHeapKeyRead of the same TID finds it until the reader forgets.
 */
EIHeapKeyResult
EIHeapKeyReadUnlocked(EIHeapKeyReader *reader, ItemPointer tid)
{
	return ei_heapkey_read(reader, tid, true);
}

/*
 * Unlock the pinned leaf leafbuf, read the key of tid with
 * EIHeapKeyReadUnlocked, and lock the leaf again in lockmode.  The leaf
 * may have changed meanwhile; the caller checks it again.
 */
void
EIHeapKeyFetchUnlocked(EIHeapKeyReader *reader, Buffer leafbuf, int lockmode,
					   ItemPointer tid)
{
	LockBuffer(leafbuf, BUFFER_LOCK_UNLOCK);
	/* tests hold the leaf unlocked here (advisory lock (9, 1)) */
	EIFaultGate(EI_FAULT_UNLOCKED_READ_GATE, 1);
	(void) EIHeapKeyReadUnlocked(reader, tid);
	LockBuffer(leafbuf, lockmode);
}

/*
 * Return the remembered key of tid, or NULL.
 */
static EIHeapKeyCached *
ei_heapkey_cached(EIHeapKeyReader *reader, ItemPointer tid)
{
	for (int i = 0; i < reader->ncached; i++)
		if (ItemPointerEquals(&reader->cached[i].tid, tid))
			return &reader->cached[i];
	return NULL;
}

/*
 * Read the key of tid (see EIHeapKeyRead); unlocked says the caller holds
 * no lock on the leaf, so a toasted key may be fetched and is remembered.
 */
static EIHeapKeyResult
ei_heapkey_read(EIHeapKeyReader *reader, ItemPointer tid, bool unlocked)
{
	Relation	heap = reader->heap;
	Relation	index = reader->index;
	BlockNumber blkno = ItemPointerGetBlockNumber(tid);
	OffsetNumber offnum = ItemPointerGetOffsetNumber(tid);
	OffsetNumber first;			/* the chain's first member with storage */
	Page		page;
	ItemId		lp;
	HeapTupleData tuple;
	Datum		values[INDEX_MAX_KEYS];
	bool		isnull[INDEX_MAX_KEYS];
	EIHeapKeyResult result = EI_HEAPKEY_FOUND;
	bool		key_read;		/* the key columns are normalized */
	int			nread;			/* columns read from the heap tuple */
	HeapTuple	copy = NULL;
	int			natts;
	int			nkeyatts = reader->norm->nkeyatts;

	/* the tuple of an earlier read is its caller's (or already freed) */
	reader->itup = NULL;

	/*
	 * The key read last, again: a point lookup's two bound searches on a
	 * compact leaf usually end at the same entry, and an index-only scan
	 * then reads that entry (whose tuple its searches formed).  Valid while
	 * the caller holds the leaf (EIHeapKeyReaderForget and ReleasePin end
	 * it).
	 */
	if (!unlocked && reader->last_valid &&
		ItemPointerEquals(&reader->last_tid, tid))
	{
		if (!reader->want_tuple)
			return EI_HEAPKEY_FOUND;
		if (reader->last_itup != NULL && reader->keep_tuple)
			return EI_HEAPKEY_FOUND;
		if (reader->last_itup != NULL)
		{
			reader->itup = palloc(IndexTupleSize(reader->last_itup));
			memcpy(reader->itup, reader->last_itup,
				   IndexTupleSize(reader->last_itup));
			return EI_HEAPKEY_FOUND;
		}
		/* an INCLUDE column was found toasted out of line: still so */
		if (reader->last_unformed)
			return EI_HEAPKEY_UNREADABLE;
	}
	ei_heapkey_forget_last(reader);

	reader->nreads++;
	if (!BufferIsValid(reader->buf) ||
		BufferGetBlockNumber(reader->buf) != blkno)
		reader->buf = ReleaseAndReadBuffer(reader->buf, heap, blkno);
	LockBuffer(reader->buf, BUFFER_LOCK_SHARE);
	page = BufferGetPage(reader->buf);

	if (offnum < FirstOffsetNumber || offnum > PageGetMaxOffsetNumber(page))
	{
		LockBuffer(reader->buf, BUFFER_LOCK_UNLOCK);
		ereport(ERROR,
				(errcode(ERRCODE_INDEX_CORRUPTED),
				 errmsg("index \"%s\" points past the end of heap page %u of \"%s\" (offset %u)",
						RelationGetRelationName(index), blkno,
						RelationGetRelationName(heap), offnum)));
	}

	first = offnum;
	lp = PageGetItemId(page, offnum);
	if (ItemIdIsRedirected(lp))
	{
		first = ItemIdGetRedirect(lp);
		lp = PageGetItemId(page, first);
	}

	if (ItemIdIsDead(lp))
	{
		LockBuffer(reader->buf, BUFFER_LOCK_UNLOCK);
		return EI_HEAPKEY_DEAD;
	}
	if (!ItemIdIsNormal(lp))
	{
		LockBuffer(reader->buf, BUFFER_LOCK_UNLOCK);
		ereport(ERROR,
				(errcode(ERRCODE_INDEX_CORRUPTED),
				 errmsg("index \"%s\" points to unused heap item (%u,%u) of \"%s\"",
						RelationGetRelationName(index), blkno, offnum,
						RelationGetRelationName(heap))));
	}

	/* the entry holds the values of the chain's last member */
	lp = PageGetItemId(page, ei_heapkey_chain_end(page, first));

	tuple.t_data = (HeapTupleHeader) PageGetItem(page, lp);
	tuple.t_len = ItemIdGetLength(lp);
	tuple.t_tableOid = RelationGetRelid(heap);
	ItemPointerSet(&tuple.t_self, blkno, offnum);

	/*
	 * Without the leaf's lock, work on a copy of the tuple so that TOAST is
	 * read with no buffer locked.
	 */
	if (unlocked)
	{
		/*
		 * TOAST is read for this entry: a HOT chain nobody can see any more
		 * may have lost its TOAST values already (pruning of the TOAST
		 * table removes them once the deleter is old enough), so it is
		 * reported dead rather than detoasted.
		 */
		TransactionId horizon = InvalidTransactionId;

		if (!ei_heapkey_chain_needed(reader, page, blkno, offnum, &horizon))
		{
			EIHeapKeyCached *c;

			LockBuffer(reader->buf, BUFFER_LOCK_UNLOCK);
			c = ei_heapkey_cached(reader, tid);
			if (c == NULL)
			{
				c = ei_heapkey_remember(reader, tid);
				c->dead = true;
				c->horizon = horizon;
			}
			if (c->dead)
				ei_heapkey_advance_horizon(&reader->dead_horizon, c->horizon);
			return EI_HEAPKEY_DEAD;
		}
		copy = heap_copytuple(&tuple);
		LockBuffer(reader->buf, BUFFER_LOCK_UNLOCK);
		tuple = *copy;
	}

	/* the key columns, and for a tuple the INCLUDE columns after them */
	natts = reader->want_tuple ? IndexRelationGetNumberOfAttributes(index) :
		nkeyatts;
	nread = natts;
	for (int i = 0; i < natts; i++)
	{
		AttrNumber	attnum = index->rd_index->indkey.values[i];

		values[i] = heap_getattr(&tuple, attnum, RelationGetDescr(heap),
								 &isnull[i]);
		if (!unlocked && !isnull[i] &&
			TupleDescAttr(RelationGetDescr(heap), attnum - 1)->attlen == -1 &&
			VARATT_IS_EXTERNAL(DatumGetPointer(values[i])))
		{
			result = EI_HEAPKEY_UNREADABLE;
			nread = i;
			break;
		}
	}

	/*
	 * Normalizing and forming a tuple copy what they need out of the page.
	 * An INCLUDE column toasted out of line (the key columns, before it,
	 * are all read) leaves the key readable.
	 */
	resetStringInfo(&reader->key);
	key_read = nread >= nkeyatts;
	if (key_read)
	{
		if (!EINormalizeKey(reader->norm, values, isnull, tid, &reader->key))
		{
			if (!unlocked)
				LockBuffer(reader->buf, BUFFER_LOCK_UNLOCK);
			ereport(ERROR,
					(errcode(ERRCODE_INDEX_CORRUPTED),
					 errmsg("key of heap tuple (%u,%u) of \"%s\" is too long for a compact leaf of index \"%s\"",
							blkno, offnum, RelationGetRelationName(heap),
							RelationGetRelationName(index)),
					 errhint("The key's collation may have changed.  REINDEX the index.")));
		}
		if (result == EI_HEAPKEY_FOUND && reader->want_tuple &&
			reader->keep_tuple && !unlocked)
		{
			/* formed where it is kept, for the read that returns it */
			MemoryContext oldcxt = MemoryContextSwitchTo(reader->cxt);

			reader->last_itup = index_form_tuple(RelationGetDescr(index),
												 values, isnull);
			reader->last_itup->t_tid = *tid;
			MemoryContextSwitchTo(oldcxt);
		}
		else if (result == EI_HEAPKEY_FOUND && reader->want_tuple)
		{
			reader->itup = index_form_tuple(RelationGetDescr(index), values,
											isnull);
			reader->itup->t_tid = *tid;
		}
	}

	if (!unlocked)
		LockBuffer(reader->buf, BUFFER_LOCK_UNLOCK);
	else
	{
		/* remember the key for reads under the leaf's lock */
		MemoryContext oldcxt = MemoryContextSwitchTo(reader->cxt);
		EIHeapKeyCached *c = ei_heapkey_cached(reader, tid);

		if (c == NULL)
		{
			c = ei_heapkey_remember(reader, tid);
			c->keylen = reader->key.len;
			c->key = palloc(reader->key.len);
			memcpy(c->key, reader->key.data, reader->key.len);
			if (reader->itup != NULL)
			{
				c->itup = palloc(IndexTupleSize(reader->itup));
				memcpy(c->itup, reader->itup, IndexTupleSize(reader->itup));
			}
		}
		MemoryContextSwitchTo(oldcxt);
	}
	if (copy != NULL)
		heap_freetuple(copy);

	if (key_read && !unlocked)
	{
		reader->last_valid = true;
		reader->last_tid = *tid;
		reader->last_unformed = (result != EI_HEAPKEY_FOUND);
	}

	/* a key too wide to read under the lock may have been read without it */
	if (result == EI_HEAPKEY_UNREADABLE)
	{
		EIHeapKeyCached *c = ei_heapkey_cached(reader, tid);

		if (c != NULL && c->dead)
		{
			ei_heapkey_advance_horizon(&reader->dead_horizon, c->horizon);
			return EI_HEAPKEY_DEAD;
		}
		/* a key remembered without its tuple does not serve a tuple read */
		if (c != NULL && (c->itup != NULL || !reader->want_tuple))
		{
			reader->last_unformed = false;
			resetStringInfo(&reader->key);
			appendBinaryStringInfo(&reader->key, c->key, c->keylen);
			if (c->itup != NULL && reader->want_tuple)
			{
				reader->itup = palloc(IndexTupleSize(c->itup));
				memcpy(reader->itup, c->itup, IndexTupleSize(c->itup));
			}
			result = EI_HEAPKEY_FOUND;
		}
	}
	return result;
}

/*
 * Add an empty remembered entry for tid (the caller has checked that there
 * is none) in the reader's memory context.
 */
static EIHeapKeyCached *
ei_heapkey_remember(EIHeapKeyReader *reader, ItemPointer tid)
{
	MemoryContext oldcxt = MemoryContextSwitchTo(reader->cxt);
	EIHeapKeyCached *c;

	if (reader->ncached == reader->maxcached)
	{
		reader->maxcached = Max(8, reader->maxcached * 2);
		reader->cached = reader->cached == NULL ?
			palloc(sizeof(EIHeapKeyCached) * reader->maxcached) :
			repalloc(reader->cached,
					 sizeof(EIHeapKeyCached) * reader->maxcached);
	}
	c = &reader->cached[reader->ncached++];
	memset(c, 0, sizeof(EIHeapKeyCached));
	c->tid = *tid;
	MemoryContextSwitchTo(oldcxt);
	return c;
}

/*
 * May a member of the HOT chain at root of the share-locked heap page
 * still be needed: visible to the reader's snapshot if it has one (an
 * index-only scan, which skips the others), else not surely dead to
 * everybody?  Only such a chain's TOAST values are sure to exist: the
 * TOAST rows of a value are deleted with the last version that has it,
 * and pruned once that deletion is old enough for every snapshot.
 */
static bool
ei_heapkey_chain_needed(EIHeapKeyReader *reader, Page page, BlockNumber blkno,
						OffsetNumber root, TransactionId *horizon)
{
	GlobalVisState *vistest = NULL;
	OffsetNumber offnum = root;
	TransactionId prev_xmax = InvalidTransactionId;
	bool		at_root = true;

	if (reader->snapshot == NULL)
		vistest = GlobalVisTestFor(reader->heap);
	for (;;)
	{
		ItemId		lp;
		HeapTupleData tuple;

		if (offnum < FirstOffsetNumber || offnum > PageGetMaxOffsetNumber(page))
			return false;
		lp = PageGetItemId(page, offnum);
		if (ItemIdIsRedirected(lp) && at_root)
		{
			offnum = ItemIdGetRedirect(lp);
			at_root = false;
			continue;
		}
		if (!ItemIdIsNormal(lp))
			return false;
		at_root = false;

		tuple.t_data = (HeapTupleHeader) PageGetItem(page, lp);
		tuple.t_len = ItemIdGetLength(lp);
		tuple.t_tableOid = RelationGetRelid(reader->heap);
		ItemPointerSet(&tuple.t_self, blkno, offnum);
		if (TransactionIdIsValid(prev_xmax) &&
			!TransactionIdEquals(prev_xmax,
								 HeapTupleHeaderGetXmin(tuple.t_data)))
			return false;

		if (reader->snapshot != NULL)
		{
			if (HeapTupleSatisfiesVisibility(&tuple, reader->snapshot,
											 reader->buf))
				return true;
		}
		else
		{
			TransactionId dead_after = InvalidTransactionId;
			HTSV_Result state;

			/* sets the hint bits HeapTupleIsSurelyDead would rely on */
			state = HeapTupleSatisfiesVacuumHorizon(&tuple, reader->buf,
													&dead_after);
			if (state != HEAPTUPLE_DEAD &&
				!(state == HEAPTUPLE_RECENTLY_DEAD &&
				  GlobalVisTestIsRemovableXid(vistest, dead_after)))
				return true;
		}

		/*
		 * Not needed: the xid that deleted it is what a standby's snapshot
		 * may still not see (heap pruning's conflict horizon; a tuple whose
		 * inserter aborted, or deleted it itself, was never seen by any).
		 */
		if (HeapTupleHeaderXminCommitted(tuple.t_data) ||
			(!HeapTupleHeaderXminInvalid(tuple.t_data) &&
			 TransactionIdDidCommit(HeapTupleHeaderGetXmin(tuple.t_data))))
		{
			TransactionId xmax = HeapTupleHeaderGetUpdateXid(tuple.t_data);

			if (TransactionIdIsNormal(xmax) &&
				!TransactionIdEquals(xmax, HeapTupleHeaderGetXmin(tuple.t_data)))
				ei_heapkey_advance_horizon(horizon, xmax);
		}

		if (!HeapTupleIsHotUpdated(&tuple))
			return false;
		offnum = ItemPointerGetOffsetNumber(&tuple.t_data->t_ctid);
		prev_xmax = HeapTupleHeaderGetUpdateXid(tuple.t_data);
	}
}

/*
 * Return the offset of the last member of the HOT chain whose first member
 * with storage is at first (a normal line pointer) on the share-locked heap
 * page: the member whose values the chain's index entries hold.
 *
 * The chain is followed as heap_hot_search_buffer does, through members
 * marked HOT-updated to a next member whose xmin is the updater, and also
 * stops before a next member whose inserting transaction aborted: CREATE
 * INDEX counts a tuple whose HOT update aborted as live and indexes its
 * values, even before a hint bit says that the update aborted.  A member
 * that is dead, even to everybody, still holds the values; whether the
 * entry's row is visible is the caller's heap fetch's business.
 */
static OffsetNumber
ei_heapkey_chain_end(Page page, OffsetNumber first)
{
	OffsetNumber offnum = first;
	OffsetNumber maxoff = PageGetMaxOffsetNumber(page);

	/* a chain has fewer members than the page has line pointers */
	for (int nmembers = 0; nmembers < maxoff; nmembers++)
	{
		HeapTupleHeader member;
		HeapTupleHeader next;
		OffsetNumber nextoff;
		ItemId		lp;

		member = (HeapTupleHeader) PageGetItem(page, PageGetItemId(page, offnum));
		if (!HeapTupleHeaderIsHotUpdated(member))
			break;
		nextoff = ItemPointerGetOffsetNumber(&member->t_ctid);
		if (nextoff < FirstOffsetNumber || nextoff > maxoff)
			break;
		lp = PageGetItemId(page, nextoff);
		if (!ItemIdIsNormal(lp))
			break;
		next = (HeapTupleHeader) PageGetItem(page, lp);
		if (!TransactionIdEquals(HeapTupleHeaderGetXmin(next),
								 HeapTupleHeaderGetUpdateXid(member)) ||
			ei_heapkey_xmin_aborted(next))
			break;
		offnum = nextoff;
	}
	return offnum;
}

/*
 * Did the transaction that inserted the heap tuple tup abort?  Decided as
 * the heap's visibility checks do (in progress before committed), without
 * setting hint bits.
 */
static bool
ei_heapkey_xmin_aborted(HeapTupleHeader tup)
{
	TransactionId xmin;

	if (HeapTupleHeaderXminCommitted(tup))
		return false;
	if (HeapTupleHeaderXminInvalid(tup))
		return true;
	xmin = HeapTupleHeaderGetRawXmin(tup);
	if (TransactionIdIsCurrentTransactionId(xmin) ||
		TransactionIdIsInProgress(xmin))
		return false;
	return !TransactionIdDidCommit(xmin);
}

/*
 * Make a conflict horizon (InvalidTransactionId: none yet) at least xid,
 * if xid is valid.
 */
static void
ei_heapkey_advance_horizon(TransactionId *horizon, TransactionId xid)
{
	if (TransactionIdIsValid(xid) &&
		(!TransactionIdIsValid(*horizon) ||
		 TransactionIdFollows(xid, *horizon)))
		*horizon = xid;
}
