/*-------------------------------------------------------------------------
 *
 * eiinspect.h
 *	  The SQL functions that inspect and maintain an index, on a table
 *	  distributed by Citus: run on every shard index, results aggregated
 *	  (src/inspect/shards.c).
 *
 * Citus is never a dependency: without it every function acts on the index
 * it is given, as always.
 *
 *-------------------------------------------------------------------------
 */
#ifndef EIINSPECT_H
#define EIINSPECT_H

#include "fmgr.h"
#include "access/tupdesc.h"
#include "nodes/pg_list.h"

/* How one column of a row-returning function is aggregated over shards. */
typedef enum EIShardAggKind
{
	EI_SHARD_AGG_FIRST,			/* the first shard's (all shards agree) */
	EI_SHARD_AGG_SUM,			/* int4 or int8 sum; NULL if all NULL */
	EI_SHARD_AGG_MAX,			/* int4 or int8 maximum */
	EI_SHARD_AGG_NULL,			/* means nothing for many indexes: NULL */
	EI_SHARD_AGG_WEIGHTED,		/* float8 mean weighted by column "weight"
								 * (int4 or int8), or unweighted if it is
								 * -1 */
	EI_SHARD_AGG_DISTINCT		/* text: the distinct values, sorted, joined
								 * by "," */
} EIShardAggKind;

/* One column's rule, in column order. */
typedef struct EIShardAgg
{
	EIShardAggKind kind;
	int			weight;			/* EI_SHARD_AGG_WEIGHTED: the weight
								 * column's number, from 0 */
} EIShardAgg;

/*
 * A shard's call that fails raises this (the shard's own SQLSTATE does not
 * travel back; its message is the error's detail), except for
 * elastic_index_check, which raises ERRCODE_INDEX_CORRUPTED.
 */
#define EI_SHARD_CALL_FAILED	ERRCODE_EXTERNAL_ROUTINE_EXCEPTION

extern bool EIIndexIsDistributed(Oid indexoid);
extern List *EIShardsCall(FunctionCallInfo fcinfo, Oid indexoid,
						  const char *more_args, bool every_placement,
						  bool returns_row, int failure_errcode);
extern int64 EIShardsSum(List *results);
extern Datum EIShardsAggregate(TupleDesc tupdesc, List *results,
							   const EIShardAgg *rules);

#endif							/* EIINSPECT_H */
