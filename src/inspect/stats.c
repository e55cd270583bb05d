/*-------------------------------------------------------------------------
 *
 * stats.c
 *	  elastic_index_stats(): a one-row summary of an elastic_index tree.
 *
 * The function reads every block of the index once, one page at a time
 * under a share lock, and classifies it by its page flags.  It takes only
 * an AccessShareLock on the index, so concurrent inserts go on; the numbers
 * are a consistent picture of each page, not of the whole tree at once.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "access/relation.h"
#include "catalog/pg_authid.h"
#include "catalog/pg_class.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "storage/bufmgr.h"
#include "utils/acl.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/rel.h"

#include "storage/freespace.h"

#include "eistats.h"
#include "eiam.h"
#include "eielastic.h"
#include "eiosm.h"
#include "eiinspect.h"

PG_FUNCTION_INFO_V1(elastic_index_stats);

/* Number of output columns of elastic_index_stats(). */
#define EI_STATS_NCOLUMNS	29

/*
 * How elastic_index_stats() combines its shard indexes' rows on a
 * distributed table: counts are summed, the height is the tallest shard's,
 * the root block means nothing, fills and entry sizes are means weighted by
 * leaf pages and entries, the states are listed.
 */
static const EIShardAgg ei_stats_shard_rules[EI_STATS_NCOLUMNS] = {
	{EI_SHARD_AGG_FIRST},		/* am */
	{EI_SHARD_AGG_MAX},		/* format_version: shards raise it on
								 * their own (posting lists) */
	{EI_SHARD_AGG_MAX},			/* height */
	{EI_SHARD_AGG_NULL},		/* root_block */
	{EI_SHARD_AGG_SUM},			/* total_pages */
	{EI_SHARD_AGG_SUM},			/* meta_pages */
	{EI_SHARD_AGG_SUM},			/* inner_pages */
	{EI_SHARD_AGG_SUM},			/* leaf_pages */
	{EI_SHARD_AGG_SUM},			/* entries */
	{EI_SHARD_AGG_SUM},			/* dead_entries */
	{EI_SHARD_AGG_SUM},			/* inner_entries */
	{EI_SHARD_AGG_SUM},			/* free_bytes */
	{EI_SHARD_AGG_WEIGHTED, 7}, /* leaf_fill, by leaf_pages */
	{EI_SHARD_AGG_WEIGHTED, 8}, /* avg_entry_bytes, by entries */
	{EI_SHARD_AGG_SUM},			/* half_dead_pages */
	{EI_SHARD_AGG_SUM},			/* deleted_pages */
	{EI_SHARD_AGG_SUM},			/* recyclable_pages */
	{EI_SHARD_AGG_SUM},			/* free_pages */
	{EI_SHARD_AGG_SUM},			/* compact_leaf_pages */
	{EI_SHARD_AGG_DISTINCT},	/* elastic_state */
	{EI_SHARD_AGG_SUM},			/* size_bound_pages */
	{EI_SHARD_AGG_SUM},			/* buffer_pages */
	{EI_SHARD_AGG_SUM},			/* buffer_entries */
	{EI_SHARD_AGG_SUM},			/* buffer_sorted_entries */
	{EI_SHARD_AGG_SUM},			/* buffer_unsorted_entries */
	{EI_SHARD_AGG_WEIGHTED, -1},	/* buffer_fill, the shards' mean */
	{EI_SHARD_AGG_SUM},			/* buffer_flushes */
	{EI_SHARD_AGG_SUM},			/* bulk_appended_entries */
	{EI_SHARD_AGG_SUM},			/* top_inserted_entries */
};

/* Counters gathered while reading the index. */
typedef struct EIStatsCounts
{
	int64		total_pages;
	int64		meta_pages;
	int64		inner_pages;
	int64		leaf_pages;
	int64		compact_leaf_pages;
	int64		buffer_pages;	/* osm_tree insert buffer pages */
	int64		buffer_entries; /* entries on them */
	int64		buffer_sorted_entries;	/* ... in their sorted sections */
	int64		entries;
	int64		dead_entries;
	int64		inner_entries;
	int64		free_bytes;
	int64		leaf_free_bytes;
	int64		leaf_usable_bytes;
	int64		half_dead_pages;	/* first step of deletion done */
	int64		deleted_pages;	/* unlinked, stamped with safexid */
	int64		recyclable_pages;	/* deleted or new, reusable now */
	int64		free_pages;		/* recorded in the free space map */
	XLogRecPtr	recycle_fence;	/* the metapage's, for recyclable_pages */
} EIStatsCounts;

/*
 * Name of a relation for messages, or its OID when it has gone away.
 */
static char *
ei_stats_relname(Oid relid)
{
	char	   *name = get_rel_name(relid);

	return name ? name : psprintf("with OID %u", relid);
}

/*
 * Error out unless the current user owns the index or may read statistics
 * of every table (pg_stat_scan_tables).
 */
static void
ei_stats_check_permission(Oid indexoid)
{
	if (EIRelationOwnerCheck(indexoid, GetUserId()))
		return;
	if (has_privs_of_role(GetUserId(), ROLE_PG_STAT_SCAN_TABLES))
		return;

	ereport(ERROR,
			(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
			 errmsg("permission denied for index %s", ei_stats_relname(indexoid)),
			 errhint("Only the owner of the index or a member of pg_stat_scan_tables may read its statistics.")));
}

/*
 * Read the metapage into *meta, verifying that it looks like ours.
 */
static void
ei_stats_read_meta(Relation rel, BufferAccessStrategy strategy,
				   EIMetaPageData *meta)
{
	Buffer		buf;
	Page		page;
	EIPageOpaque opaque;

	buf = ReadBufferExtended(rel, MAIN_FORKNUM, EI_METAPAGE, RBM_NORMAL,
							 strategy);
	LockBuffer(buf, BUFFER_LOCK_SHARE);
	page = BufferGetPage(buf);
	opaque = EIPageGetOpaque(page);

	if (PageIsNew(page) ||
		PageGetSpecialSize(page) != MAXALIGN(sizeof(EIPageOpaqueData)) ||
		!EI_IS_META(opaque) ||
		EIPageGetMeta(page)->magic != EI_MAGIC)
	{
		UnlockReleaseBuffer(buf);
		ereport(ERROR,
				(errcode(ERRCODE_INDEX_CORRUPTED),
				 errmsg("index \"%s\" has no valid metapage",
						RelationGetRelationName(rel)),
				 errdetail("Block %u is not an elastic_index metapage.",
						   (BlockNumber) EI_METAPAGE)));
	}

	memcpy(meta, EIPageGetMeta(page), sizeof(EIMetaPageData));
	UnlockReleaseBuffer(buf);
}

/*
 * Add one page's numbers to the counters; the page is share-locked.
 */
static void
ei_stats_count_page(Page page, EIStatsCounts *counts)
{
	EIPageOpaque opaque;
	OffsetNumber maxoff;
	OffsetNumber off;
	int64		freespace;

	/*
	 * A page that was added but never initialized (a crash between extending
	 * the file and logging the page) holds nothing; it counts only toward
	 * total_pages.  The same goes for a page whose header or special space
	 * is not ours, so that a damaged page cannot lead us astray.
	 */
	if (PageIsNew(page))
	{
		counts->recyclable_pages++;
		return;
	}
	if (((PageHeader) page)->pd_lower > ((PageHeader) page)->pd_upper ||
		((PageHeader) page)->pd_upper > ((PageHeader) page)->pd_special ||
		((PageHeader) page)->pd_special > BLCKSZ ||
		PageGetSpecialSize(page) != MAXALIGN(sizeof(EIPageOpaqueData)))
		return;

	opaque = EIPageGetOpaque(page);
	/* the metapage, and osm_tree's section filter page with it */
	if (EI_IS_META(opaque) || (opaque->ei_flags & EI_BUFFER_FILTER))
	{
		counts->meta_pages++;
		return;
	}

	if (opaque->ei_flags & EI_DELETED)
	{
		counts->deleted_pages++;
		if (EIPageIsRecyclable(page, counts->recycle_fence))
			counts->recyclable_pages++;
		return;
	}
	if (opaque->ei_flags & EI_HALF_DEAD)
	{
		counts->half_dead_pages++;
		return;
	}

	/* osm_tree's insert buffer: entries and the sorted sections' share */
	if (opaque->ei_flags & EI_BUFFER)
	{
		int			n = OsmPageGetNEntries(page);

		counts->buffer_pages++;
		if (n > 0)
		{
			counts->buffer_entries += n;
			counts->buffer_sorted_entries +=
				Min(OsmPageGetSummary(page)->nsorted, n);
		}
		return;
	}

	freespace = (int64) PageGetExactFreeSpace(page);
	counts->free_bytes += freespace;
	maxoff = PageGetMaxOffsetNumber(page);

	if (EI_IS_LEAF(opaque) && (opaque->ei_flags & EI_COMPACT))
	{
		/* a compact leaf: entries from its SeqTree, no LP_DEAD hints */
		SeqTree		st;
		Size		off = SizeOfPageHeaderData +
			(EI_RIGHTMOST(opaque) ? 0 : sizeof(ItemIdData));

		counts->leaf_pages++;
		counts->compact_leaf_pages++;
		counts->leaf_free_bytes += freespace;
		counts->leaf_usable_bytes += BLCKSZ - SizeOfPageHeaderData -
			PageGetSpecialSize(page);
		if (((PageHeader) page)->pd_lower >= off &&
			seqtree_attach(&st, (char *) page + off,
						   ((PageHeader) page)->pd_upper - off))
			counts->entries += st.nkeys;
	}
	else if (EI_IS_LEAF(opaque))
	{
		counts->leaf_pages++;
		counts->leaf_free_bytes += freespace;
		counts->leaf_usable_bytes += BLCKSZ - SizeOfPageHeaderData -
			PageGetSpecialSize(page);

		for (off = EI_FIRST_DATA(opaque); off <= maxoff; off = OffsetNumberNext(off))
		{
			ItemId		itemid = PageGetItemId(page, off);

			int			ntids = 1;

			if (!ItemIdHasStorage(itemid))
				continue;
			/* a posting list counts its TIDs (an item inside the page) */
			if (ItemIdGetLength(itemid) >= sizeof(IndexTupleData) &&
				ItemIdGetOffset(itemid) + ItemIdGetLength(itemid) <= BLCKSZ &&
				EITupleIsPosting((IndexTuple) PageGetItem(page, itemid)))
				ntids = EIPostingCount((IndexTuple) PageGetItem(page, itemid));
			counts->entries += ntids;
			if (ItemIdIsDead(itemid))
				counts->dead_entries += ntids;
		}
	}
	else
	{
		counts->inner_pages++;
		if (maxoff >= EI_FIRST_DATA(opaque))
			counts->inner_entries += maxoff - EI_FIRST_DATA(opaque) + 1;
	}
}

/*
 * elastic_index_stats(index regclass) returns record
 *
 * Shape and space use of one index: page counts per kind, entry counts,
 * free space and fill.
 */
Datum
elastic_index_stats(PG_FUNCTION_ARGS)
{
	Oid			indexoid = PG_GETARG_OID(0);
	Relation	rel;
	TupleDesc	tupdesc;
	BufferAccessStrategy strategy;
	EIMetaPageData meta;
	EIStatsCounts counts;
	BlockNumber nblocks;
	BlockNumber blkno;
	int64		bound;
	bool		is_osm;
	int			bufsize;
	uint64		bulk_appended;
	uint64		top_inserted;
	Datum		values[EI_STATS_NCOLUMNS];
	bool		nulls[EI_STATS_NCOLUMNS];
	HeapTuple	tuple;
	const char *amname;

	if (get_call_result_type(fcinfo, NULL, &tupdesc) != TYPEFUNC_COMPOSITE)
		elog(ERROR, "return type of elastic_index_stats must be a row type");
	if (tupdesc->natts != EI_STATS_NCOLUMNS)
		elog(ERROR, "elastic_index_stats must return %d columns, not %d",
			 EI_STATS_NCOLUMNS, tupdesc->natts);
	tupdesc = BlessTupleDesc(tupdesc);

	ei_stats_check_permission(indexoid);
	rel = EIOpenIndexChecked(indexoid, AccessShareLock);

	/* a Citus-distributed index: its shard indexes hold the entries */
	if (EIIndexIsDistributed(indexoid))
		PG_RETURN_DATUM(EIShardsRow(fcinfo, rel, "", tupdesc,
									ei_stats_shard_rules));

	strategy = GetAccessStrategy(BAS_BULKREAD);
	ei_stats_read_meta(rel, strategy, &meta);

	memset(&counts, 0, sizeof(counts));
	nblocks = RelationGetNumberOfBlocks(rel);
	counts.total_pages = nblocks;
	counts.recycle_fence = meta.recycle_fence;

	for (blkno = 0; blkno < nblocks; blkno++)
	{
		Buffer		buf;

		CHECK_FOR_INTERRUPTS();

		buf = ReadBufferExtended(rel, MAIN_FORKNUM, blkno, RBM_NORMAL,
								 strategy);
		LockBuffer(buf, BUFFER_LOCK_SHARE);
		ei_stats_count_page(BufferGetPage(buf), &counts);
		UnlockReleaseBuffer(buf);
		if (GetRecordedFreeSpace(rel, blkno) > 0)
			counts.free_pages++;
	}

	FreeAccessStrategy(strategy);
	bound = EIElasticBoundPages(rel);
	is_osm = EIRelIsOsm(rel);
	bufsize = is_osm ? OsmGetBufferSize(rel) : 0;
	bulk_appended = EIStatsRead(rel, EI_STAT_BULK_APPENDED);
	top_inserted = EIStatsRead(rel, EI_STAT_FASTPATH_INSERTS) +
		EIStatsRead(rel, EI_STAT_DESCENTS);
	relation_close(rel, AccessShareLock);

	switch (meta.am_kind)
	{
		case EI_AM_ELASTIC_BTREE:
			amname = "elastic_btree";
			break;
		case EI_AM_OSM_TREE:
			amname = "osm_tree";
			break;
		default:
			amname = "unknown";
			break;
	}

	memset(nulls, 0, sizeof(nulls));
	values[0] = CStringGetTextDatum(amname);
	values[1] = Int32GetDatum((int32) meta.version);
	values[2] = Int32GetDatum((int32) meta.level + 1);
	values[3] = Int64GetDatum(BlockNumberIsValid(meta.root) ?
							  (int64) meta.root : -1);
	values[4] = Int64GetDatum(counts.total_pages);
	values[5] = Int64GetDatum(counts.meta_pages);
	values[6] = Int64GetDatum(counts.inner_pages);
	values[7] = Int64GetDatum(counts.leaf_pages);
	values[8] = Int64GetDatum(counts.entries);
	values[9] = Int64GetDatum(counts.dead_entries);
	values[10] = Int64GetDatum(counts.inner_entries);
	values[11] = Int64GetDatum(counts.free_bytes);

	if (counts.leaf_usable_bytes > 0)
		values[12] = Float8GetDatum(100.0 *
									(1.0 - (double) counts.leaf_free_bytes /
									 (double) counts.leaf_usable_bytes));
	else
		nulls[12] = true;

	if (counts.entries > 0)
		values[13] = Float8GetDatum((double) counts.total_pages * BLCKSZ /
									(double) counts.entries);
	else
		nulls[13] = true;
	values[14] = Int64GetDatum(counts.half_dead_pages);
	values[15] = Int64GetDatum(counts.deleted_pages);
	values[16] = Int64GetDatum(counts.recyclable_pages);
	values[17] = Int64GetDatum(counts.free_pages);
	values[18] = Int64GetDatum(counts.compact_leaf_pages);
	values[19] = CStringGetTextDatum(EIElasticMetaState(&meta) == EI_STATE_SHRINKING ? "shrinking" :
									 EIElasticMetaState(&meta) == EI_STATE_EXPANDING ? "expanding" :
									 "normal");
	if (bound > 0)
		values[20] = Int64GetDatum(bound);
	else
		nulls[20] = true;
	values[21] = Int64GetDatum(counts.buffer_pages);
	values[22] = Int64GetDatum(counts.buffer_entries);
	values[23] = Int64GetDatum(counts.buffer_sorted_entries);
	values[24] = Int64GetDatum(counts.buffer_entries -
							   counts.buffer_sorted_entries);
	if (is_osm)
	{
		values[25] = Float8GetDatum(bufsize > 0 ?
									(double) counts.buffer_pages / bufsize : 0.0);
		values[26] = Int64GetDatum((int64) OsmMetaOf(&meta)->buf_flushes);
	}
	else
		nulls[25] = nulls[26] = true;
	/* since the server started: the activity counters */
	values[27] = Int64GetDatum((int64) bulk_appended);
	values[28] = Int64GetDatum((int64) top_inserted);

	tuple = heap_form_tuple(tupdesc, values, nulls);
	PG_RETURN_DATUM(HeapTupleGetDatum(tuple));
}
