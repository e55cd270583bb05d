/*-------------------------------------------------------------------------
 *
 * preview.c
 *	  elastic_btree_compact_preview(): what compact leaves would make of an
 *	  index, computed by converting copies of its leaves.
 *
 * For every leaf the function builds the compact form of a copy of the
 * page (compact/compact.c) and reports how many entries a compact leaf holds
 * against a standard one, and how many leaf pages the index would need if
 * all its leaves were compact.  Nothing in the index changes.
 *
 * With verify => true it also exercises what a compact leaf does in use,
 * while holding the leaf's share lock as the tree will: it reads every
 * entry's key from the heap (compact/heapkey.c) and checks it against the key
 * stored in the standard leaf, drops entries whose heap chain is dead to
 * all, and searches the compact copy for every remaining entry, which must
 * find exactly that entry with one heap read.  A mismatch is reported as
 * index corruption.  That costs two heap reads per entry.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <math.h>

#include "access/relation.h"
#include "access/table.h"
#include "catalog/index.h"
#include "catalog/pg_authid.h"
#include "catalog/pg_class.h"
#include "eiam.h"
#include "eielastic.h"
#include "eiinspect.h"
#include "eiosm.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "storage/bufmgr.h"
#include "utils/acl.h"
#include "utils/builtins.h"
#include "utils/rel.h"

PG_FUNCTION_INFO_V1(elastic_btree_compact_preview);

/* Totals over the leaves of one index. */
typedef struct EIPreviewCounts
{
	int64		leaf_pages;
	int64		entries;
	int64		standard_capacity_sum;	/* entries a full standard leaf holds */
	int64		compact_capacity_sum;	/* and a compact one, same high key */
	int64		dead_entries;
	int64		verified_entries;
	int64		heap_key_reads;
} EIPreviewCounts;

/*
 * Entries a standard leaf holds when full, for tuples of itemsz bytes and
 * a high key of hikeysz bytes (0 on the rightmost leaf).
 */
static int
ei_preview_standard_capacity(Size itemsz, Size hikeysz)
{
	Size		space = BLCKSZ - SizeOfPageHeaderData -
		MAXALIGN(sizeof(EIPageOpaqueData));

	if (hikeysz > 0)
		space -= sizeof(ItemIdData) + MAXALIGN(hikeysz);
	return (int) (space / (MAXALIGN(itemsz) + sizeof(ItemIdData)));
}

/*
 * The entries of the standard leaf page in page order, one per heap TID (a
 * posting list gives one per TID, as compact conversion expands it): each
 * entry's heap TID and the offset of the item holding it; palloc'd, *n set.
 * The page's items were checked (EICheckPageItems).
 */
static void
ei_preview_leaf_entries(Page page, ItemPointerData **tids,
						OffsetNumber **offsets, int *n)
{
	EIPageOpaque opaque = EIPageGetOpaque(page);
	OffsetNumber maxoff = PageGetMaxOffsetNumber(page);
	int			nentries = EICompactLeafEntries(page);
	int			i = 0;

	*tids = palloc(sizeof(ItemPointerData) * Max(nentries, 1));
	*offsets = palloc(sizeof(OffsetNumber) * Max(nentries, 1));
	for (OffsetNumber off = EI_FIRST_DATA(opaque); off <= maxoff; off++)
	{
		IndexTuple	itup = EIReadTuple(page, off);

		for (int t = 0; t < EILeafNTIDs(itup); t++)
		{
			(*tids)[i] = EITupleIsPosting(itup) ?
				*EIPostingTID(itup, t) : itup->t_tid;
			(*offsets)[i] = off;
			i++;
		}
	}
	Assert(i == nentries);
	*n = nentries;
}

/*
 * Entries (heap TIDs) a standard leaf like this one holds when full, for a
 * high key of hikeysz bytes (0 on the rightmost leaf): without posting
 * lists, by the size of its first item; with lists, by the bytes its items
 * and line pointers take per heap TID.
 */
static int
ei_preview_leaf_capacity(Page page, Size hikeysz)
{
	EIPageOpaque opaque = EIPageGetOpaque(page);
	OffsetNumber first = EI_FIRST_DATA(opaque);
	OffsetNumber maxoff = PageGetMaxOffsetNumber(page);
	Size		space = BLCKSZ - SizeOfPageHeaderData -
		MAXALIGN(sizeof(EIPageOpaqueData));
	Size		bytes = 0;
	int64		ntids = 0;
	bool		lists = false;

	if (hikeysz > 0)
		space -= sizeof(ItemIdData) + MAXALIGN(hikeysz);
	for (OffsetNumber off = first; off <= maxoff; off++)
	{
		IndexTuple	itup = EIReadTuple(page, off);

		lists |= EITupleIsPosting(itup);
		bytes += MAXALIGN(IndexTupleSize(itup)) + sizeof(ItemIdData);
		ntids += EILeafNTIDs(itup);
	}
	if (!lists)
		return ei_preview_standard_capacity(IndexTupleSize(EIReadTuple(page, first)),
											hikeysz);
	return (int) ((double) space * ntids / bytes);
}

/*
 * Check one leaf's compact copy against the heap: keys, dead entries and a
 * search for every entry.  The entries are the leaf's heap TIDs tids[0..n)
 * and the offsets of their items (ei_preview_leaf_entries), which are the
 * positions of the compact copy.  The leaf is share-locked by the caller.
 */
static void
ei_preview_verify(Relation index, EINormKeyInfo *norm,
				  EIHeapKeyReader *reader, Buffer buf, Page leaf, Page compact,
				  BlockNumber blkno, ItemPointerData *tids,
				  OffsetNumber *offsets, int n, EIPreviewCounts *counts)
{
	char	   *keys = EICompactLeafKeys(index, norm, leaf);
	bool	   *dead = palloc0(sizeof(bool) * Max(n, 1));
	int			pos;

	/*
	 * Every entry's key as the leaf stores it, and as the heap has it.  The
	 * leaf is a copy; a key toasted out of line is read with the real leaf
	 * unlocked (pinned) and remembered for the searches below.
	 */
	EIHeapKeyReaderForget(reader);
	for (int i = 0; i < n; i++)
	{
		EIHeapKeyResult result = EIHeapKeyRead(reader, &tids[i]);

		if (result == EI_HEAPKEY_UNREADABLE)
		{
			EIHeapKeyFetchUnlocked(reader, buf, EI_READ, &tids[i]);
			result = EIHeapKeyRead(reader, &tids[i]);
		}
		switch (result)
		{
			case EI_HEAPKEY_FOUND:
				if (reader->key.len != norm->keylen ||
					memcmp(reader->key.data, keys + (Size) i * norm->keylen,
						   norm->keylen) != 0)
					ereport(ERROR,
							(errcode(ERRCODE_INDEX_CORRUPTED),
							 errmsg("index \"%s\" block %u offset %u: the key differs from heap tuple (%u,%u)",
									RelationGetRelationName(index), blkno,
									offsets[i],
									ItemPointerGetBlockNumber(&tids[i]),
									ItemPointerGetOffsetNumber(&tids[i]))));
				break;
			case EI_HEAPKEY_DEAD:
				dead[i] = true;
				break;
			case EI_HEAPKEY_UNREADABLE:
				elog(ERROR, "toasted key read without a lock was not remembered");
				break;
		}
	}

	/* drop the dead entries from the copy, as the tree will, right to left */
	for (int i = n - 1; i >= 0; i--)
	{
		if (dead[i])
		{
			EICompactDelete(compact, i);
			counts->dead_entries++;
		}
	}

	/*
	 * Search for every live entry.  A chain that died since we looked (a
	 * concurrent reader pruned the heap page) is dropped and the search
	 * repeated, as the tree will.
	 */
	pos = 0;
	for (int i = 0; i < n; i++)
	{
		SeqTreeLocation loc;
		EIHeapKeyResult why;
		int			bad;

		if (dead[i])
			continue;
		while ((bad = EICompactSearch(compact, reader,
									  (const uint8 *) keys + (Size) i * norm->keylen,
									  &loc, &why)) >= 0)
		{
			if (why != EI_HEAPKEY_DEAD)
				elog(ERROR, "toasted key read without a lock was not remembered");
			EICompactDelete(compact, bad);
			counts->dead_entries++;
			if (bad < pos)
				pos--;
			else if (bad == pos)
			{
				/* the entry we are looking for died itself */
				pos--;
				break;
			}
			else
			{
				/* a later entry: do not look for it when we get there */
				int			rank = pos;

				for (int k = i + 1; k < n; k++)
				{
					if (!dead[k] && ++rank == bad)
					{
						dead[k] = true;
						break;
					}
				}
			}
		}
		if (bad < 0 && (!loc.exact || loc.pos != pos))
			ereport(ERROR,
					(errcode(ERRCODE_INDEX_CORRUPTED),
					 errmsg("index \"%s\" block %u offset %u: the compact form finds the entry at position %d%s, not %d",
							RelationGetRelationName(index), blkno, offsets[i],
							loc.pos, loc.exact ? "" : " (inexact)", pos)));
		if (bad < 0)
			counts->verified_entries++;
		pos++;
	}

	pfree(keys);
	pfree(dead);
}

/*
 * How elastic_btree_compact_preview() combines its shard indexes' rows:
 * counts are summed, capacities and their ratio are means weighted by leaf
 * pages.
 */
#define EI_PREVIEW_NCOLUMNS	10

static const EIShardAgg ei_preview_shard_rules[EI_PREVIEW_NCOLUMNS] = {
	{EI_SHARD_AGG_SUM},			/* leaf_pages */
	{EI_SHARD_AGG_SUM},			/* entries */
	{EI_SHARD_AGG_WEIGHTED, 0}, /* standard_capacity */
	{EI_SHARD_AGG_WEIGHTED, 0}, /* compact_capacity */
	{EI_SHARD_AGG_WEIGHTED, 0}, /* capacity_ratio */
	{EI_SHARD_AGG_SUM},			/* compact_leaf_pages */
	{EI_SHARD_AGG_MAX},			/* key_bytes */
	{EI_SHARD_AGG_SUM},			/* dead_entries */
	{EI_SHARD_AGG_SUM},			/* verified_entries */
	{EI_SHARD_AGG_SUM},			/* heap_key_reads */
};

/*
 * elastic_btree_compact_preview(index regclass, verify bool) returns one
 * row: leaf pages, entries, capacities of a standard and a compact leaf,
 * their ratio, the leaf pages a fully compact index would need, and (with
 * verify) dead entries dropped, entries verified and heap keys read.
 */
Datum
elastic_btree_compact_preview(PG_FUNCTION_ARGS)
{
	Oid			indexoid = PG_GETARG_OID(0);
	bool		verify = PG_GETARG_BOOL(1);
	Oid			heapoid;
	Relation	index;
	Relation	heap;
	EINormKeyInfo *norm;
	EIHeapKeyReader *reader = NULL;
	EIPreviewCounts counts = {0};
	Page		copy = palloc(BLCKSZ);
	Page		compact = palloc(BLCKSZ);
	Buffer		buf;
	TupleDesc	tupdesc;
	Datum		values[EI_PREVIEW_NCOLUMNS];
	bool		nulls[EI_PREVIEW_NCOLUMNS] = {false};
	double		std_cap;
	double		cmp_cap;
	EIOwnerSwitch owner;

	if (get_call_result_type(fcinfo, NULL, &tupdesc) != TYPEFUNC_COMPOSITE)
		elog(ERROR, "return type must be a row type");
	if (tupdesc->natts != EI_PREVIEW_NCOLUMNS)
		elog(ERROR, "elastic_btree_compact_preview must return %d columns, not %d",
			 EI_PREVIEW_NCOLUMNS, tupdesc->natts);

	/* the table first, as everybody locks them; not an index: say so */
	heapoid = IndexGetRelation(indexoid, true);
	if (!OidIsValid(heapoid))
		relation_close(EIOpenIndexChecked(indexoid, AccessShareLock),
					   AccessShareLock);
	heap = table_open(heapoid, AccessShareLock);
	index = EIOpenIndexChecked(indexoid, AccessShareLock);
	if (!EIRelationOwnerCheck(indexoid, GetUserId()) &&
		!has_privs_of_role(GetUserId(), ROLE_PG_STAT_SCAN_TABLES))
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				 errmsg("permission denied for index %s",
						RelationGetRelationName(index)),
				 errhint("Only the owner of the index or a member of pg_stat_scan_tables may preview it.")));

	norm = EIGetNormKeyInfo(index);
	if (!norm->ok)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("index \"%s\" cannot have compact leaves",
						RelationGetRelationName(index)),
				 errdetail("Compact leaves need normalized keys, but %s.",
						   norm->reason)));
	EINormKeyPad(norm);
	if (norm->keylen > SEQTREE_MAX_KEYLEN)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("index \"%s\" has keys longer than compact leaves allow",
						RelationGetRelationName(index))));
	/* a Citus-distributed index: its shard indexes hold the entries */
	if (EIIndexIsDistributed(indexoid))
	{
		table_close(heap, NoLock);
		PG_RETURN_DATUM(EIShardsRow(fcinfo, index,
									verify ? ", true" : ", false",
									tupdesc, ei_preview_shard_rules));
	}

	/* the heap keys read are the table owner's data, read as the owner */
	EIBecomeTableOwner(heap, &owner);
	if (verify)
		reader = EIHeapKeyReaderBegin(heap, index, norm);

	/* walk the leaf level left to right */
	buf = EIGetEndpoint(index, 0, false);
	for (;;)
	{
		Page		page = BufferGetPage(buf);
		EIPageOpaque opaque = EIPageGetOpaque(page);
		BlockNumber next = opaque->ei_next;
		OffsetNumber first = EI_FIRST_DATA(opaque);
		OffsetNumber maxoff = PageGetMaxOffsetNumber(page);

		CHECK_FOR_INTERRUPTS();

		if (!(opaque->ei_flags & (EI_DELETED | EI_HALF_DEAD | EI_COMPACT)) &&
			maxoff >= first)
		{
			Size		hikeysz;
			ItemPointerData *tids;
			OffsetNumber *offsets;
			int			n;

			/*
			 * Its tuples are read whole and its posting lists expanded: check
			 * every item first, as compact conversion does, so that damage
			 * is an error naming the block, not a read past a tuple.
			 */
			EICheckPageItems(index, buf);
			hikeysz = EI_RIGHTMOST(opaque) ? 0 :
				IndexTupleSize(EIReadTuple(page, EI_HIKEY));
			ei_preview_leaf_entries(page, &tids, &offsets, &n);

			counts.leaf_pages++;
			counts.entries += n;
			counts.standard_capacity_sum +=
				ei_preview_leaf_capacity(page, hikeysz);
			counts.compact_capacity_sum +=
				EICompactCapacity(norm->keylen, hikeysz,
								  EICompactTidBytes(tids, n));

			/*
			 * A leaf holding a key too long for compact leaves stays, and so
			 * does one whose posting lists hold more entries than a compact
			 * leaf takes (EICompactConvert leaves both).
			 */
			memcpy(copy, page, BLCKSZ);
			if (EICompactFromLeaf(index, norm, copy, compact))
			{
				if (verify)
					ei_preview_verify(index, norm, reader, buf, copy, compact,
									  BufferGetBlockNumber(buf), tids,
									  offsets, n, &counts);
			}
			else if (!norm->padded &&
					 n == maxoff - first + 1)
				elog(ERROR, "a standard leaf did not fit into a compact leaf");
			pfree(tids);
			pfree(offsets);
		}

		EIRelBuf(index, buf);
		if (next == InvalidBlockNumber)
			break;
		buf = EIGetBuf(index, next, EI_READ);
	}

	if (reader != NULL)
	{
		counts.heap_key_reads = (int64) reader->nreads;
		EIHeapKeyReaderEnd(reader);
	}

	std_cap = counts.leaf_pages > 0 ?
		(double) counts.standard_capacity_sum / counts.leaf_pages : 0;
	cmp_cap = counts.leaf_pages > 0 ?
		(double) counts.compact_capacity_sum / counts.leaf_pages : 0;

	values[0] = Int64GetDatum(counts.leaf_pages);
	values[1] = Int64GetDatum(counts.entries);
	values[2] = Float8GetDatum(std_cap);
	values[3] = Float8GetDatum(cmp_cap);
	values[4] = Float8GetDatum(std_cap > 0 ? cmp_cap / std_cap : 0);
	values[5] = Int64GetDatum(cmp_cap > 0 ?
							  (int64) ceil(counts.entries / cmp_cap) : 0);
	values[6] = Int32GetDatum(norm->keylen);
	nulls[7] = nulls[8] = nulls[9] = !verify;
	values[7] = Int64GetDatum(counts.dead_entries);
	values[8] = Int64GetDatum(counts.verified_entries);
	values[9] = Int64GetDatum(counts.heap_key_reads);

	EIRestoreCaller(&owner);
	relation_close(index, AccessShareLock);
	table_close(heap, AccessShareLock);

	PG_RETURN_DATUM(HeapTupleGetDatum(heap_form_tuple(tupdesc, values, nulls)));
}
