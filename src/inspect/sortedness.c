/*-------------------------------------------------------------------------
 *
 * sortedness.c
 *	  SQL functions about near-sortedness: a deterministic generator of
 *	  K-L near-sorted keys, and an advisor that measures K and L of a
 *	  table column in its physical order.
 *
 * The algorithms are plain C in src/lib/nearsort.c (with unit tests);
 * this file is the server side.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "catalog/pg_class.h"
#include "executor/spi.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "nearsort.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/rel.h"
#include "utils/syscache.h"

PG_FUNCTION_INFO_V1(elastic_index_near_sorted);
PG_FUNCTION_INFO_V1(elastic_index_sortedness);

/* Largest sequence the generator makes (its work arrays take 40 bytes per key). */
#define EI_NEARSORT_MAX_ROWS	INT64CONST(100000000)

/* What the generator keeps between calls. */
typedef struct EINearSortState
{
	int64	   *keys;
	int64		n;
} EINearSortState;

/*
 * Reject a percentage outside 0..100 with a clear error.
 */
static void
ei_check_percent(const char *name, double value)
{
	if (!(value >= 0 && value <= 100))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s must be between 0 and 100, got %g", name, value)));
}

/*
 * elastic_index_near_sorted(n int8, k_percent float8, l_percent float8,
 *							 seed int8 DEFAULT 1)
 *	returns table (pos int8, key int8)
 *
 * The keys 1..n in a (K, L) near-sorted arrival order: k_percent of them
 * moved from their place by up to l_percent of n positions, the others in
 * order (src/lib/nearsort.h).  pos is the arrival position, 1..n.  The
 * same arguments always give the same rows.
 */
Datum
elastic_index_near_sorted(PG_FUNCTION_ARGS)
{
	FuncCallContext *funcctx;
	EINearSortState *state;

	if (SRF_IS_FIRSTCALL())
	{
		int64		n = PG_GETARG_INT64(0);
		double		k = PG_GETARG_FLOAT8(1);
		double		l = PG_GETARG_FLOAT8(2);
		int64		seed = PG_GETARG_INT64(3);
		MemoryContext oldcxt;
		TupleDesc	tupdesc;

		if (n < 0 || n > EI_NEARSORT_MAX_ROWS)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("number of keys must be between 0 and " INT64_FORMAT ", got " INT64_FORMAT,
							EI_NEARSORT_MAX_ROWS, n)));
		ei_check_percent("k_percent", k);
		ei_check_percent("l_percent", l);

		funcctx = SRF_FIRSTCALL_INIT();
		oldcxt = MemoryContextSwitchTo(funcctx->multi_call_memory_ctx);
		if (get_call_result_type(fcinfo, NULL, &tupdesc) != TYPEFUNC_COMPOSITE)
			elog(ERROR, "return type must be a row type");
		funcctx->tuple_desc = BlessTupleDesc(tupdesc);

		state = palloc(sizeof(EINearSortState));
		state->n = n;
		state->keys = palloc_extended(sizeof(int64) * Max(n, 1), MCXT_ALLOC_HUGE);
		if (nearsort_generate(state->keys, n, k, l, (uint64) seed) < 0)
			ereport(ERROR,
					(errcode(ERRCODE_OUT_OF_MEMORY),
					 errmsg("out of memory generating " INT64_FORMAT " near-sorted keys", n)));
		funcctx->user_fctx = state;
		funcctx->max_calls = (uint64) n;
		MemoryContextSwitchTo(oldcxt);
	}

	funcctx = SRF_PERCALL_SETUP();
	state = (EINearSortState *) funcctx->user_fctx;
	if (funcctx->call_cntr < funcctx->max_calls)
	{
		Datum		values[2];
		bool		nulls[2] = {false, false};

		values[0] = Int64GetDatum((int64) funcctx->call_cntr + 1);
		values[1] = Int64GetDatum(state->keys[funcctx->call_cntr]);
		SRF_RETURN_NEXT(funcctx,
						HeapTupleGetDatum(heap_form_tuple(funcctx->tuple_desc,
														  values, nulls)));
	}
	SRF_RETURN_DONE(funcctx);
}

/*
 * The advice for a measured K and L (percentages).
 */
static const char *
ei_sortedness_advice(double k, double l)
{
	if (k <= 0.1 && l <= 0.1)
		return "sorted: BRIN fits (tiny and exact for range scans); btree and elastic_btree append at the right edge and pack leaves at their fill factor, osm_tree appends whole leaves at 96% (0.94x btree's size)";
	if (k <= 30 && l <= 30)
		return "near-sorted: btree leaves end up about half full here; osm_tree loads such data in sorted batches and keeps leaves about 90% full (at K=L=5%: 0.58x btree's size and 0.31x its index time by COPY, docs/benchmarks/near-sorted.md); BRIN ranges overlap and lose selectivity";
	return "scrambled: no order to exploit; use btree or elastic_btree (with a size bound if space matters); BRIN does not help";
}

/*
 * elastic_index_sortedness(tbl regclass, col name, sample_rows int4 DEFAULT 30000)
 *	returns table (rows_sampled int8, k_percent float8, l_percent float8,
 *				   advice text)
 *
 * Measure how sorted a column is in the table's physical order (ctid): the
 * share of rows out of order (K: rows minus the longest ascending run of
 * values, by patience sorting) and the largest distance of a row from its
 * place in sorted order (L), both in percent of the rows looked at.
 * Tables with more than about sample_rows rows (by pg_class.reltuples) are
 * sampled row by row (TABLESAMPLE BERNOULLI, REPEATABLE), which keeps the
 * rows in file order at an even density: a row moved by d rows is then
 * moved by about d times the sampled share among the sampled rows, so K
 * and L keep their meaning (sampling whole blocks would not: the number of
 * sampled rows between two places varies too much).  NULLs are left out.  Runs as the
 * caller, so it needs SELECT on the table.
 */
Datum
elastic_index_sortedness(PG_FUNCTION_ARGS)
{
	Oid			relid = PG_GETARG_OID(0);
	Name		col = PG_GETARG_NAME(1);
	int32		sample_rows = PG_GETARG_INT32(2);
	TupleDesc	tupdesc;
	HeapTuple	classtup;
	char	   *relname;
	char		relkind;
	float4		reltuples;
	AttrNumber	attnum;
	StringInfoData sql;
	MemoryContext callercxt;
	int64		n;
	int64	   *ranks;
	int64		ooo = 0;
	int64		maxd = 0;
	double		k = 0;
	double		l = 0;
	Datum		values[4];
	bool		nulls[4] = {false, false, false, false};

	if (sample_rows < 100)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("sample_rows must be at least 100, got %d", sample_rows)));
	if (get_call_result_type(fcinfo, NULL, &tupdesc) != TYPEFUNC_COMPOSITE)
		elog(ERROR, "return type must be a row type");

	classtup = SearchSysCache1(RELOID, ObjectIdGetDatum(relid));
	if (!HeapTupleIsValid(classtup))
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_TABLE),
				 errmsg("relation with OID %u does not exist", relid)));
	relkind = ((Form_pg_class) GETSTRUCT(classtup))->relkind;
	reltuples = ((Form_pg_class) GETSTRUCT(classtup))->reltuples;
	ReleaseSysCache(classtup);
	if (relkind != RELKIND_RELATION && relkind != RELKIND_MATVIEW)
		ereport(ERROR,
				(errcode(ERRCODE_WRONG_OBJECT_TYPE),
				 errmsg("\"%s\" is not a table or materialized view",
						get_rel_name(relid)),
				 errhint("The advisor reads a table's rows in their physical order.")));
	attnum = get_attnum(relid, NameStr(*col));
	if (attnum == InvalidAttrNumber || attnum < 0)
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_COLUMN),
				 errmsg("column \"%s\" of relation \"%s\" does not exist",
						NameStr(*col), get_rel_name(relid))));
	relname = quote_qualified_identifier(get_namespace_name(get_rel_namespace(relid)),
										 get_rel_name(relid));

	/*
	 * The rank of each row's value (0-based, ties in physical order), listed
	 * in physical order; sampled by blocks when the table is large.
	 */
	initStringInfo(&sql);
	appendStringInfo(&sql,
					 "SELECT (row_number() OVER (ORDER BY v, t) - 1)::int8 AS r, t "
					 "FROM (SELECT %s AS v, ctid AS t FROM %s",
					 quote_identifier(NameStr(*col)), relname);
	if (reltuples > sample_rows * 1.2)
		appendStringInfo(&sql, " TABLESAMPLE BERNOULLI (%g) REPEATABLE (0)",
						 Max(0.0001, 100.0 * sample_rows / reltuples));
	appendStringInfo(&sql, " WHERE %s IS NOT NULL) AS s ORDER BY t",
					 quote_identifier(NameStr(*col)));

	/* the ranks must outlive SPI_finish, which frees SPI's memory */
	callercxt = CurrentMemoryContext;
	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");
	if (SPI_execute(sql.data, true, 0) != SPI_OK_SELECT)
		elog(ERROR, "could not read \"%s\" for the sortedness advisor", relname);
	n = (int64) SPI_processed;
	ranks = MemoryContextAllocExtended(callercxt, sizeof(int64) * Max(n, 1),
									   MCXT_ALLOC_HUGE);
	for (int64 i = 0; i < n; i++)
	{
		bool		isnull;

		ranks[i] = DatumGetInt64(SPI_getbinval(SPI_tuptable->vals[i],
											   SPI_tuptable->tupdesc, 1, &isnull));
	}
	SPI_finish();

	if (n > 0)
	{
		if (nearsort_measure(ranks, n, &ooo, &maxd) < 0)
			ereport(ERROR,
					(errcode(ERRCODE_OUT_OF_MEMORY),
					 errmsg("out of memory measuring " INT64_FORMAT " rows", n)));
		k = 100.0 * ooo / n;
		l = 100.0 * maxd / n;
	}

	values[0] = Int64GetDatum(n);
	values[1] = Float8GetDatum(k);
	values[2] = Float8GetDatum(l);
	if (n > 0)
		values[3] = CStringGetTextDatum(ei_sortedness_advice(k, l));
	else
		values[3] = CStringGetTextDatum("no rows with a value: nothing to measure");
	PG_RETURN_DATUM(HeapTupleGetDatum(heap_form_tuple(tupdesc, values, nulls)));
}
