/*-------------------------------------------------------------------------
 *
 * maintenance.c
 *	  The SQL functions that maintain an index on demand or report on
 *	  osm_tree's insert buffer: elastic_btree_shrink(),
 *	  elastic_btree_expand(), osm_tree_flush(), osm_tree_buffer_stats().
 *
 * Each checks its arguments and the index, then either does its work
 * through the policy that owns it (src/elastic/policy.c, src/osm/buffer.c)
 * or, on a table distributed by Citus, calls itself on every shard index
 * and combines the results (src/inspect/shards.c).
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/relation.h"
#include "catalog/pg_class.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "utils/acl.h"
#include "utils/rel.h"

#include "eielastic.h"
#include "eiinspect.h"
#include "eiosm.h"

PG_FUNCTION_INFO_V1(elastic_btree_shrink);
PG_FUNCTION_INFO_V1(elastic_btree_expand);
PG_FUNCTION_INFO_V1(osm_tree_flush);
PG_FUNCTION_INFO_V1(osm_tree_buffer_stats);

/*
 * How osm_tree_buffer_stats() combines its shard indexes' rows: counts and
 * buffer sizes are summed, the fill is the summed pages over the summed
 * buffer sizes.
 */
static const EIShardAgg osm_buffer_stats_shard_rules[OSM_BUFFER_STATS_NCOLUMNS] = {
	{EI_SHARD_AGG_SUM},			/* pages */
	{EI_SHARD_AGG_SUM},			/* entries */
	{EI_SHARD_AGG_SUM},			/* closed_pages */
	{EI_SHARD_AGG_SUM},			/* buffer_size */
	{EI_SHARD_AGG_WEIGHTED, 3}, /* fill, by buffer_size */
	{EI_SHARD_AGG_SUM},			/* flushes */
	{EI_SHARD_AGG_SUM},			/* sorted_pages */
	{EI_SHARD_AGG_SUM},			/* sorted_entries */
	{EI_SHARD_AGG_SUM},			/* unsorted_entries */
	{EI_SHARD_AGG_SUM},			/* filter_keys */
	{EI_SHARD_AGG_SUM},			/* filter_bytes */
};

/*
 * The work of elastic_btree_shrink() and elastic_btree_expand(): check the
 * arguments ("leaves": NULL for all, never negative) and the index, then
 * convert its leaves, or every shard index's on a distributed table (up to
 * "leaves" in each); returns the number of leaves converted.
 */
static Datum
ei_convert_function(FunctionCallInfo fcinfo, bool shrink)
{
	Oid			indexoid;
	int64		max_leaves = -1;
	Relation	rel;
	int64		converted;

	if (PG_ARGISNULL(0))
		PG_RETURN_NULL();
	indexoid = PG_GETARG_OID(0);
	if (!PG_ARGISNULL(1))
	{
		max_leaves = PG_GETARG_INT64(1);
		if (max_leaves < 0)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("number of leaves to convert must not be negative")));
	}
	/* a distributed index's shards are converted, not its empty shell */
	if (EIIndexIsDistributed(indexoid))
	{
		rel = EIElasticOpenForConversion(indexoid, AccessShareLock);
		PG_RETURN_INT64(EIShardsSum(EIShardsCall(fcinfo, rel,
												 max_leaves < 0 ?
												 ", NULL::pg_catalog.int8" :
												 psprintf(", " INT64_FORMAT, max_leaves),
												 EI_SHARDS_EVERY_PLACEMENT,
												 AccessShareLock,
												 RowExclusiveLock)));
	}
	rel = EIElasticOpenForConversion(indexoid, RowExclusiveLock);
	converted = shrink ? EIElasticShrink(rel, max_leaves) :
		EIElasticExpand(rel, max_leaves);
	index_close(rel, RowExclusiveLock);
	PG_RETURN_INT64(converted);
}

/*
 * elastic_btree_shrink(index regclass, leaves int8 DEFAULT NULL) returns int8
 *
 * Convert up to "leaves" standard leaves (all if NULL) to compact leaves,
 * left to right, and put the index in the SHRINKING state, in which full
 * leaves become compact instead of splitting.  Returns the number of
 * leaves converted.
 */
Datum
elastic_btree_shrink(PG_FUNCTION_ARGS)
{
	return ei_convert_function(fcinfo, true);
}

/*
 * elastic_btree_expand(index regclass, leaves int8 DEFAULT NULL) returns int8
 *
 * Convert compact leaves back to standard leaves: all, putting the index in
 * the NORMAL state, or the first "leaves" of them, hot ones first, leaving
 * it EXPANDING.  Returns the number of leaves converted back.
 */
Datum
elastic_btree_expand(PG_FUNCTION_ARGS)
{
	return ei_convert_function(fcinfo, false);
}

/*
 * osm_tree_flush(regclass): move every entry of the index's insert buffer
 * into the tree now; returns how many entries moved (summed over the shard
 * indexes of a distributed index).
 */
Datum
osm_tree_flush(PG_FUNCTION_ARGS)
{
	Oid			indexoid = PG_GETARG_OID(0);
	bool		distributed = EIIndexIsDistributed(indexoid);
	Relation	rel;
	int64		moved;

	/* a distributed index's shards are flushed, not its empty shell */
	rel = OsmOpenIndex(indexoid,
					   distributed ? AccessShareLock : RowExclusiveLock);
	if (!EIRelationOwnerCheck(indexoid, GetUserId()))
		aclcheck_error(ACLCHECK_NOT_OWNER, OBJECT_INDEX,
					   RelationGetRelationName(rel));
	if (distributed)
		PG_RETURN_INT64(EIShardsSum(EIShardsCall(fcinfo, rel, "",
												 EI_SHARDS_EVERY_PLACEMENT,
												 AccessShareLock,
												 RowExclusiveLock)));
	moved = OsmFlushIndex(rel);
	index_close(rel, RowExclusiveLock);
	PG_RETURN_INT64(moved);
}

/*
 * osm_tree_buffer_stats(regclass): the insert buffer's pages, entries,
 * closed pages, the buffer_size setting, flush steps so far, sorted pages,
 * the entries in sorted and unsorted sections, and the section filter
 * (summed over the shard indexes of a distributed index).
 */
Datum
osm_tree_buffer_stats(PG_FUNCTION_ARGS)
{
	Oid			indexoid = PG_GETARG_OID(0);
	Relation	rel;
	TupleDesc	tupdesc;
	Datum		values[OSM_BUFFER_STATS_NCOLUMNS];
	bool		nulls[OSM_BUFFER_STATS_NCOLUMNS];

	if (get_call_result_type(fcinfo, NULL, &tupdesc) != TYPEFUNC_COMPOSITE)
		elog(ERROR, "return type must be a row type");
	if (tupdesc->natts != OSM_BUFFER_STATS_NCOLUMNS)
		elog(ERROR, "osm_tree_buffer_stats must return %d columns, not %d",
			 OSM_BUFFER_STATS_NCOLUMNS, tupdesc->natts);

	rel = OsmOpenIndex(indexoid, AccessShareLock);
	if (EIIndexIsDistributed(indexoid))
		PG_RETURN_DATUM(EIShardsRow(fcinfo, rel, "", tupdesc,
									osm_buffer_stats_shard_rules));
	OsmBufferStatsRow(rel, values, nulls);
	index_close(rel, AccessShareLock);

	tupdesc = BlessTupleDesc(tupdesc);
	PG_RETURN_DATUM(HeapTupleGetDatum(heap_form_tuple(tupdesc, values, nulls)));
}
