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
#include "storage/lockdefs.h"
#include "utils/relcache.h"

/* How one column of a row-returning function is aggregated over shards. */
typedef enum EIShardAggKind
{
	EI_SHARD_AGG_FIRST,			/* the first shard's (all shards agree) */
	EI_SHARD_AGG_SUM,			/* int4 or int8 sum; NULL if all NULL */
	EI_SHARD_AGG_MAX,			/* int4 or int8 maximum */
	EI_SHARD_AGG_NULL,			/* means nothing for many indexes: NULL */
	EI_SHARD_AGG_WEIGHTED,		/* float8 mean weighted by column "weight"
								 * (int4 or int8), or unweighted if -1 */
	EI_SHARD_AGG_DISTINCT		/* text: the distinct values, sorted, joined
								 * by "," */
} EIShardAggKind;

/* One column's rule, in column order. */
typedef struct EIShardAgg
{
	EIShardAggKind kind;
	int			weight;			/* EI_SHARD_AGG_WEIGHTED: the weight column's
								 * number, from 0 */
} EIShardAgg;

/* flags of EIShardsCall */
#define EI_SHARDS_EVERY_PLACEMENT	0x01	/* every copy of each shard */
#define EI_SHARDS_RETURNS_ROW		0x02	/* the function returns a row */
#define EI_SHARDS_ONE_AT_A_TIME		0x04	/* not all placements at once */

extern bool EIIndexIsDistributed(Oid indexoid);
extern List *EIShardsCall(FunctionCallInfo fcinfo, Relation index,
						  const char *more_args, int flags,
						  LOCKMODE table_lock, LOCKMODE index_lock);
extern int64 EIShardsSum(List *results);
extern Datum EIShardsRow(FunctionCallInfo fcinfo, Relation index,
						 const char *more_args, TupleDesc tupdesc,
						 const EIShardAgg *rules);

#endif							/* EIINSPECT_H */
