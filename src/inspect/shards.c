/*-------------------------------------------------------------------------
 *
 * shards.c
 *	  The index functions on a table distributed by Citus: run on every
 *	  shard index, results aggregated.
 *
 * Citus keeps a distributed table's rows in shards, tables named
 * <table>_<shardid> on the worker nodes, each with its own copy of every
 * index, named <index>_<shardid>.  The coordinator's table and its indexes
 * are empty shells.  A function such as elastic_index_stats() given the
 * shell index would report an empty index, so each function that reads or
 * maintains an index first asks EIIndexIsDistributed() and, if so, calls
 * itself on every shard index through Citus (EIShardsCall) and combines
 * what the shards return (EIShardsRow, EIShardsSum).
 *
 * Nothing here links with Citus or needs it installed: the test is a
 * catalog lookup by name (pg_dist_partition, only when an extension named
 * citus exists), and the calls go through SQL, to Citus's own functions
 * shard_name() (the shard index's name, shortened and hashed as Citus
 * shortens long names) and master_run_on_worker() (one command per
 * placement, each in a connection of its own).  Each shard's call is thus a
 * transaction of its own on its node: shards that finished keep what they
 * did if another fails or the caller's transaction rolls back, as with
 * run_command_on_shards().  On the shard the call is wrapped in
 * elastic_index_shard_call(), which hands back the call's error (SQLSTATE,
 * message, detail, hint) for the coordinator to raise as its own.
 *
 * The shard's call is the same function, schema-qualified as the caller's
 * is installed, given the shard index; the shard index's table is not in
 * pg_dist_partition, so the call acts on it and goes no further.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "access/parallel.h"
#include "access/relation.h"
#include "access/xact.h"
#include "catalog/index.h"
#include "catalog/pg_type.h"
#include "commands/extension.h"
#include "common/int.h"
#include "executor/spi.h"
#include "funcapi.h"
#include "lib/stringinfo.h"
#include "miscadmin.h"
#include "storage/lmgr.h"
#include "tcop/tcopprot.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/fmgroids.h"
#include "utils/lsyscache.h"
#include "utils/rel.h"
#include "utils/resowner.h"

#include "eiinspect.h"

PG_FUNCTION_INFO_V1(elastic_index_shard_call);

/*
 * Is the index's table distributed by Citus (listed in pg_dist_partition)?
 * False without Citus.
 */
bool
EIIndexIsDistributed(Oid indexoid)
{
	Oid			heapoid;
	Oid			argtypes[1] = {OIDOID};
	Datum		args[1];
	bool		distributed;

	if (!OidIsValid(get_extension_oid("citus", true)))
		return false;
	heapoid = IndexGetRelation(indexoid, true);
	if (!OidIsValid(heapoid))
		return false;

	args[0] = ObjectIdGetDatum(heapoid);
	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");
	if (SPI_execute_with_args("SELECT 1 FROM pg_catalog.pg_dist_partition "
							  "WHERE logicalrelid = $1::pg_catalog.regclass",
							  1, argtypes, args, NULL, true, 1) != SPI_OK_SELECT)
		elog(ERROR, "could not read pg_dist_partition");
	distributed = SPI_processed > 0;
	SPI_finish();
	return distributed;
}

/*
 * Build a one-dimensional array of the given element type from datums.
 */
static Datum
ei_shards_array(Datum *elems, int n, Oid elemtype)
{
	int16		typlen;
	bool		typbyval;
	char		typalign;

	get_typlenbyvalalign(elemtype, &typlen, &typbyval, &typalign);
	return PointerGetDatum(construct_array(elems, n, elemtype, typlen,
										   typbyval, typalign));
}

/*
 * Does this transaction hold a lock on the relation that conflicts with
 * the given mode?
 */
static bool
ei_shards_lock_conflicts(Relation rel, LOCKMODE mode)
{
	LOCKMODE	held;

	for (held = AccessShareLock; held <= MaxLockMode; held++)
		if (DoLockModesConflict(held, mode) &&
			CheckRelationLockedByMe(rel, held, false))
			return true;
	return false;
}

/*
 * Refuse to call a function on the shards of an index when the shards'
 * sessions could not see the shard indexes or would wait for this
 * transaction's locks: each shard's call runs in a session of its own,
 * outside this transaction, and nothing would end the wait.
 */
static void
ei_shards_check_transaction(Relation index, const char *fname,
							LOCKMODE table_lock, LOCKMODE index_lock)
{
	Relation	heap = relation_open(index->rd_index->indrelid, NoLock);
	Oid			argtypes[1] = {OIDOID};
	Datum		args[1];
	bool		isnull;
	bool		distributed_here;
	bool		remote_xact;
	bool		conflict;

	/* the index, or its table's shards, made in this transaction */
	args[0] = ObjectIdGetDatum(RelationGetRelid(heap));
	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");
	if (SPI_execute_with_args("SELECT p.xmin, "
							  "(SELECT t.transaction_number <> 0 "
							  "FROM pg_catalog.get_current_transaction_id() t) "
							  "FROM pg_catalog.pg_dist_partition p "
							  "WHERE p.logicalrelid = $1::pg_catalog.regclass",
							  1, argtypes, args, NULL, true, 1) != SPI_OK_SELECT ||
		SPI_processed != 1)
		elog(ERROR, "could not read the distribution of table \"%s\"",
			 RelationGetRelationName(heap));
	distributed_here =
		TransactionIdIsCurrentTransactionId(DatumGetTransactionId(SPI_getbinval(SPI_tuptable->vals[0],
																				SPI_tuptable->tupdesc,
																				1, &isnull)));
	remote_xact = DatumGetBool(SPI_getbinval(SPI_tuptable->vals[0],
											 SPI_tuptable->tupdesc, 2,
											 &isnull)) && !isnull;
	SPI_finish();

	if (index->rd_createSubid != InvalidSubTransactionId || distributed_here)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("cannot run %s on the shards of index \"%s\" in the transaction that created them",
						fname, RelationGetRelationName(index)),
				 errdetail("The function runs on each shard in a session of its own, which does not see the shard indexes before this transaction commits."),
				 errhint("Commit the transaction first.")));

	/*
	 * A lock of this transaction on the shell table or index that conflicts
	 * with the shard's call: the shell's locks stand for the shards', which
	 * Citus takes in the same transaction.  And a call whose table lock
	 * conflicts with writers (a check's ShareLock) whenever Citus has
	 * opened remote transactions in this one, since the shards may hold
	 * writes that the shell does not show (a foreign key's ON DELETE
	 * CASCADE from a reference table deletes rows on the workers only).
	 */
	conflict = ei_shards_lock_conflicts(heap, table_lock) ||
		ei_shards_lock_conflicts(index, index_lock) ||
		(remote_xact && DoLockModesConflict(RowExclusiveLock, table_lock));
	relation_close(heap, NoLock);
	if (conflict)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("cannot run %s on the shards of index \"%s\" in a transaction that has used its table",
						fname, RelationGetRelationName(index)),
				 errdetail("The function runs on each shard in a session of its own, which would wait for this transaction's locks on the shards."),
				 errhint("Run it in a transaction of its own.")));
}

/*
 * Call the function fcinfo is running on every shard index of a
 * distributed index, through Citus, and return what each call returned as
 * text (a List of palloc'd strings, one per call, in shard order).  The
 * index is open; it is closed here, its lock kept until the end of the
 * transaction.
 *
 * The call is "SELECT f('<shard index>'::regclass<more_args>)", or, with
 * EI_SHARDS_RETURNS_ROW, "SELECT r FROM f(...) AS r", whose text is the
 * row's composite literal; more_args is the text of the remaining
 * arguments, each with its leading comma.  With EI_SHARDS_EVERY_PLACEMENT
 * the call runs on every copy of each shard (a reference table has one on
 * every node), otherwise on one copy; with EI_SHARDS_ONE_AT_A_TIME the
 * calls run one after another instead of all at once.  table_lock and
 * index_lock are the locks the call takes on the shard's table and index.
 *
 * Each call is wrapped in elastic_index_shard_call() on its node, which
 * returns the call's error instead of raising it; the first shard's error
 * is raised here with its own SQLSTATE, message, detail and hint, and a
 * context line naming the shard index and its node.
 */
List *
EIShardsCall(FunctionCallInfo fcinfo, Relation index, const char *more_args,
			 int flags, LOCKMODE table_lock, LOCKMODE index_lock)
{
	MemoryContext callercxt = CurrentMemoryContext;
	Oid			fnoid = fcinfo->flinfo->fn_oid;
	Oid			indexoid = RelationGetRelid(index);
	Oid			heapoid = index->rd_index->indrelid;
	char	   *fname = get_func_name(fnoid);
	char	   *nspname = get_namespace_name(get_func_namespace(fnoid));
	char	   *qualified = quote_qualified_identifier(nspname, fname);
	char	   *wrapper = quote_qualified_identifier(nspname,
													 "elastic_index_shard_call");
	char	   *indexname = pstrdup(RelationGetRelationName(index));
	TupleDesc	calldesc;
	Oid			argtypes[3];
	Datum		args[3];
	uint64		nplacements;
	Datum	   *nodes;
	Datum	   *ports;
	Datum	   *commands;
	char	  **shard_indexes;
	List	   *results = NIL;
	uint64		i;

	if (IsParallelWorker())
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_TRANSACTION_STATE),
				 errmsg("cannot run %s on the shards of index \"%s\" in a parallel worker",
						fname, indexname)));
	ei_shards_check_transaction(index, fname, table_lock, index_lock);
	relation_close(index, NoLock);

	/* what elastic_index_shard_call() returns */
	calldesc = CreateTemplateTupleDesc(5);
	TupleDescInitEntry(calldesc, 1, "sqlstate", TEXTOID, -1, 0);
	TupleDescInitEntry(calldesc, 2, "message", TEXTOID, -1, 0);
	TupleDescInitEntry(calldesc, 3, "detail", TEXTOID, -1, 0);
	TupleDescInitEntry(calldesc, 4, "hint", TEXTOID, -1, 0);
	TupleDescInitEntry(calldesc, 5, "result", TEXTOID, -1, 0);
	calldesc = BlessTupleDesc(calldesc);

	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");

	/*
	 * The placements: node, port and the shard index's schema-qualified name
	 * (shard_name's third argument, since Citus 13.1: qualify public too, so
	 * that the shard's session finds the index whatever its search_path).
	 */
	argtypes[0] = OIDOID;
	argtypes[1] = OIDOID;
	args[0] = ObjectIdGetDatum(indexoid);
	args[1] = ObjectIdGetDatum(heapoid);
	if (SPI_execute_with_args((flags & EI_SHARDS_EVERY_PLACEMENT) ?
							  "SELECT p.nodename, p.nodeport, "
							  "pg_catalog.shard_name($1::pg_catalog.regclass, s.shardid, false) "
							  "FROM pg_catalog.pg_dist_shard s "
							  "JOIN pg_catalog.pg_dist_shard_placement p USING (shardid) "
							  "WHERE s.logicalrelid = $2::pg_catalog.regclass "
							  "AND p.shardstate = 1 "
							  "ORDER BY s.shardid, p.nodename, p.nodeport" :
							  "SELECT DISTINCT ON (s.shardid) p.nodename, p.nodeport, "
							  "pg_catalog.shard_name($1::pg_catalog.regclass, s.shardid, false) "
							  "FROM pg_catalog.pg_dist_shard s "
							  "JOIN pg_catalog.pg_dist_shard_placement p USING (shardid) "
							  "WHERE s.logicalrelid = $2::pg_catalog.regclass "
							  "AND p.shardstate = 1 "
							  "ORDER BY s.shardid, p.nodename, p.nodeport",
							  2, argtypes, args, NULL, true, 0) != SPI_OK_SELECT)
		elog(ERROR, "could not read the shard placements of index \"%s\"",
			 indexname);

	nplacements = SPI_processed;
	if (nplacements == 0)
	{
		SPI_finish();
		return NIL;
	}
	nodes = palloc(sizeof(Datum) * nplacements);
	ports = palloc(sizeof(Datum) * nplacements);
	commands = palloc(sizeof(Datum) * nplacements);
	shard_indexes = palloc(sizeof(char *) * nplacements);
	for (i = 0; i < nplacements; i++)
	{
		HeapTuple	tuple = SPI_tuptable->vals[i];
		TupleDesc	desc = SPI_tuptable->tupdesc;
		char	   *node = SPI_getvalue(tuple, desc, 1);
		char	   *port = SPI_getvalue(tuple, desc, 2);
		char	   *shard_index = SPI_getvalue(tuple, desc, 3);
		char	   *call;

		if (node == NULL || port == NULL || shard_index == NULL)
			elog(ERROR, "incomplete shard placement of index \"%s\"",
				 indexname);
		if (flags & EI_SHARDS_RETURNS_ROW)
			call = psprintf("SELECT r FROM %s(%s::pg_catalog.regclass%s) AS r",
							qualified, quote_literal_cstr(shard_index),
							more_args);
		else
			call = psprintf("SELECT %s(%s::pg_catalog.regclass%s)",
							qualified, quote_literal_cstr(shard_index),
							more_args);
		nodes[i] = CStringGetTextDatum(node);
		ports[i] = Int32GetDatum(pg_strtoint32(port));
		commands[i] = CStringGetTextDatum(psprintf("SELECT r FROM %s(%s) AS r",
												   wrapper,
												   quote_literal_cstr(call)));
		shard_indexes[i] = shard_index;
	}

	/* one command per placement, each in its own connection */
	argtypes[0] = TEXTARRAYOID;
	argtypes[1] = INT4ARRAYOID;
	argtypes[2] = TEXTARRAYOID;
	args[0] = ei_shards_array(nodes, nplacements, TEXTOID);
	args[1] = ei_shards_array(ports, nplacements, INT4OID);
	args[2] = ei_shards_array(commands, nplacements, TEXTOID);
	if (SPI_execute_with_args((flags & EI_SHARDS_ONE_AT_A_TIME) ?
							  "SELECT r.success, r.result, r.n "
							  "FROM pg_catalog.master_run_on_worker($1, $2, $3, false) "
							  "WITH ORDINALITY AS r(node_name, node_port, success, result, n) "
							  "ORDER BY r.n" :
							  "SELECT r.success, r.result, r.n "
							  "FROM pg_catalog.master_run_on_worker($1, $2, $3, true) "
							  "WITH ORDINALITY AS r(node_name, node_port, success, result, n) "
							  "ORDER BY r.n",
							  3, argtypes, args, NULL, false, 0) != SPI_OK_SELECT)
		elog(ERROR, "could not run %s on the shards of index \"%s\"",
			 fname, indexname);
	if (SPI_processed != nplacements)
		elog(ERROR, "%s ran on %llu shard placements of index \"%s\", not %llu",
			 fname, (unsigned long long) SPI_processed, indexname,
			 (unsigned long long) nplacements);

	for (i = 0; i < nplacements; i++)
	{
		HeapTuple	tuple = SPI_tuptable->vals[i];
		TupleDesc	desc = SPI_tuptable->tupdesc;
		char	   *success = SPI_getvalue(tuple, desc, 1);
		char	   *result = SPI_getvalue(tuple, desc, 2);
		char	   *node = TextDatumGetCString(nodes[i]);
		int			port = DatumGetInt32(ports[i]);
		Datum		values[5];
		bool		isnull[5];
		HeapTupleHeader th;
		HeapTupleData call;
		MemoryContext spicxt;

		/* the connection or the wrapper failed: Citus's message only */
		if (success == NULL || strcmp(success, "t") != 0 || result == NULL)
			ereport(ERROR,
					(errcode(ERRCODE_CONNECTION_EXCEPTION),
					 errmsg("could not run %s on shard index %s of index \"%s\" on node %s:%d",
							fname, shard_indexes[i], indexname, node, port),
					 errdetail_internal("%s", result ? result : "no message")));

		if (result[0] != '(')
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_TEXT_REPRESENTATION),
					 errmsg("unexpected result of %s on shard index %s of index \"%s\" on node %s:%d",
							fname, shard_indexes[i], indexname, node, port),
					 errdetail_internal("%s", result)));
		th = DatumGetHeapTupleHeader(OidInputFunctionCall(F_RECORD_IN, result,
														  RECORDOID,
														  calldesc->tdtypmod));
		call.t_len = HeapTupleHeaderGetDatumLength(th);
		ItemPointerSetInvalid(&call.t_self);
		call.t_tableOid = InvalidOid;
		call.t_data = th;
		heap_deform_tuple(&call, calldesc, values, isnull);

		/* the call failed on the shard: its own error, with where */
		if (!isnull[0])
		{
			char	   *sqlstate = TextDatumGetCString(values[0]);

			if (strlen(sqlstate) != 5)
				sqlstate = "XX000";
			ereport(ERROR,
					(errcode(MAKE_SQLSTATE(sqlstate[0], sqlstate[1],
										   sqlstate[2], sqlstate[3],
										   sqlstate[4])),
					 errmsg_internal("%s", isnull[1] ? "no message" :
									 TextDatumGetCString(values[1])),
					 isnull[2] ? 0 :
					 errdetail_internal("%s", TextDatumGetCString(values[2])),
					 isnull[3] ? 0 :
					 errhint("%s", TextDatumGetCString(values[3])),
					 errcontext("%s on shard index %s of index \"%s\" on node %s:%d",
								fname, shard_indexes[i], indexname, node,
								port)));
		}

		/* the List and its strings in the caller's context, not SPI's */
		spicxt = MemoryContextSwitchTo(callercxt);
		results = lappend(results,
						  isnull[4] ? pstrdup("") :
						  TextDatumGetCString(values[4]));
		MemoryContextSwitchTo(spicxt);
	}

	SPI_finish();
	return results;
}

/*
 * elastic_index_shard_call(call text) returns (sqlstate, message, detail,
 * hint, result)
 *
 * Run one statement (an index function's call on a shard index, as
 * EIShardsCall builds it) in a subtransaction and return the first column
 * of its first row as text, or, if it fails, its error instead of raising
 * it: Citus's master_run_on_worker() keeps only the first line of a
 * failure's message, and neither its SQLSTATE nor its detail, which the
 * coordinator needs to report the shard's error as its own.  It runs the
 * statement as the calling user, with the caller's privileges.
 */
Datum
elastic_index_shard_call(PG_FUNCTION_ARGS)
{
	char	   *call = text_to_cstring(PG_GETARG_TEXT_PP(0));
	MemoryContext oldcxt = CurrentMemoryContext;
	ResourceOwner oldowner = CurrentResourceOwner;
	TupleDesc	tupdesc;
	Datum		values[5];
	bool		nulls[5] = {true, true, true, true, true};
	char	   *volatile result = NULL;
	ErrorData  *edata = NULL;

	if (get_call_result_type(fcinfo, NULL, &tupdesc) != TYPEFUNC_COMPOSITE ||
		tupdesc->natts != 5)
		elog(ERROR, "elastic_index_shard_call must return a row of 5 columns");
	tupdesc = BlessTupleDesc(tupdesc);

	/* one SELECT, as the coordinator sends it */
	{
		List	   *stmts = pg_parse_query(call);

		if (list_length(stmts) != 1 ||
			!IsA(linitial_node(RawStmt, stmts)->stmt, SelectStmt))
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("elastic_index_shard_call runs one SELECT statement")));
	}

	BeginInternalSubTransaction(NULL);
	MemoryContextSwitchTo(oldcxt);
	PG_TRY();
	{
		if (SPI_connect() != SPI_OK_CONNECT)
			elog(ERROR, "SPI_connect failed");
		if (SPI_execute(call, false, 1) < 0)
			elog(ERROR, "could not run \"%s\"", call);
		if (SPI_tuptable != NULL && SPI_processed > 0)
		{
			char	   *value = SPI_getvalue(SPI_tuptable->vals[0],
											 SPI_tuptable->tupdesc, 1);

			if (value != NULL)
				result = MemoryContextStrdup(oldcxt, value);
		}
		SPI_finish();
		ReleaseCurrentSubTransaction();
		MemoryContextSwitchTo(oldcxt);
		CurrentResourceOwner = oldowner;
	}
	PG_CATCH();
	{
		MemoryContextSwitchTo(oldcxt);
		edata = CopyErrorData();
		FlushErrorState();
		RollbackAndReleaseCurrentSubTransaction();
		MemoryContextSwitchTo(oldcxt);
		CurrentResourceOwner = oldowner;
		/* as PL/pgSQL's OTHERS: a cancel or an assertion is not handed back */
		if (edata->sqlerrcode == ERRCODE_QUERY_CANCELED ||
			edata->sqlerrcode == ERRCODE_ASSERT_FAILURE)
			ReThrowError(edata);
	}
	PG_END_TRY();

	if (edata != NULL)
	{
		values[0] = CStringGetTextDatum(unpack_sql_state(edata->sqlerrcode));
		nulls[0] = false;
		if (edata->message)
		{
			values[1] = CStringGetTextDatum(edata->message);
			nulls[1] = false;
		}
		if (edata->detail)
		{
			values[2] = CStringGetTextDatum(edata->detail);
			nulls[2] = false;
		}
		if (edata->hint)
		{
			values[3] = CStringGetTextDatum(edata->hint);
			nulls[3] = false;
		}
		FreeErrorData(edata);
	}
	else if (result != NULL)
	{
		values[4] = CStringGetTextDatum(result);
		nulls[4] = false;
	}

	PG_RETURN_DATUM(HeapTupleGetDatum(heap_form_tuple(tupdesc, values, nulls)));
}

/*
 * The sum of int8 results, as the shards of a maintenance function return
 * them (leaves converted, entries moved).
 */
int64
EIShardsSum(List *results)
{
	ListCell   *lc;
	int64		sum = 0;

	foreach(lc, results)
	{
		int64		n = DatumGetInt64(DirectFunctionCall1(int8in,
														  CStringGetDatum((char *) lfirst(lc))));

		if (pg_add_s64_overflow(sum, n, &sum))
			ereport(ERROR,
					(errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
					 errmsg("sum of the shards' results is out of range")));
	}
	return sum;
}

/*
 * A column value as int64 (int4 or int8 columns).
 */
static int64
ei_shards_int(Datum value, Oid type)
{
	if (type == INT4OID)
		return DatumGetInt32(value);
	if (type == INT8OID)
		return DatumGetInt64(value);
	elog(ERROR, "shard aggregation of type %u is not an integer", type);
	return 0;					/* keep compiler quiet */
}

/*
 * An int64 as a datum of an int4 or int8 column.
 */
static Datum
ei_shards_int_datum(int64 value, Oid type)
{
	if (type == INT8OID)
		return Int64GetDatum(value);
	if (value > PG_INT32_MAX || value < PG_INT32_MIN)
		ereport(ERROR,
				(errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
				 errmsg("sum of the shards' results is out of range for type integer")));
	return Int32GetDatum((int32) value);
}

/* qsort comparator of C strings */
static int
ei_shards_strcmp(const void *a, const void *b)
{
	return strcmp(*(char *const *) a, *(char *const *) b);
}

/*
 * Combine the rows the shards returned (composite literals of tupdesc's
 * row type, as EIShardsCall returns them with returns_row) into one row,
 * column by column as rules says.
 */
static Datum
ei_shards_aggregate(TupleDesc tupdesc, List *results, const EIShardAgg *rules)
{
	int			natts = tupdesc->natts;
	int			nrows = list_length(results);
	Datum	  **rowvalues = palloc(sizeof(Datum *) * Max(nrows, 1));
	bool	  **rownulls = palloc(sizeof(bool *) * Max(nrows, 1));
	Datum	   *values = palloc0(sizeof(Datum) * natts);
	bool	   *nulls = palloc0(sizeof(bool) * natts);
	ListCell   *lc;
	int			r = 0;
	int			col;

	tupdesc = BlessTupleDesc(tupdesc);
	foreach(lc, results)
	{
		Datum		rec = OidInputFunctionCall(F_RECORD_IN, (char *) lfirst(lc),
											   RECORDOID, tupdesc->tdtypmod);
		HeapTupleHeader th = DatumGetHeapTupleHeader(rec);
		HeapTupleData tuple;

		tuple.t_len = HeapTupleHeaderGetDatumLength(th);
		ItemPointerSetInvalid(&tuple.t_self);
		tuple.t_tableOid = InvalidOid;
		tuple.t_data = th;
		rowvalues[r] = palloc(sizeof(Datum) * natts);
		rownulls[r] = palloc(sizeof(bool) * natts);
		heap_deform_tuple(&tuple, tupdesc, rowvalues[r], rownulls[r]);
		r++;
	}

	for (col = 0; col < natts; col++)
	{
		Oid			type = TupleDescAttr(tupdesc, col)->atttypid;
		bool		any = false;
		int64		acc = 0;

		nulls[col] = true;
		switch (rules[col].kind)
		{
			case EI_SHARD_AGG_FIRST:
				for (r = 0; r < nrows && nulls[col]; r++)
				{
					values[col] = rowvalues[r][col];
					nulls[col] = rownulls[r][col];
				}
				break;
			case EI_SHARD_AGG_SUM:
			case EI_SHARD_AGG_MAX:
				for (r = 0; r < nrows; r++)
				{
					int64		v;

					if (rownulls[r][col])
						continue;
					v = ei_shards_int(rowvalues[r][col], type);
					if (rules[col].kind == EI_SHARD_AGG_MAX)
						acc = any ? Max(acc, v) : v;
					else if (pg_add_s64_overflow(acc, v, &acc))
						ereport(ERROR,
								(errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
								 errmsg("sum of the shards' results is out of range")));
					any = true;
				}
				if (any)
				{
					values[col] = ei_shards_int_datum(acc, type);
					nulls[col] = false;
				}
				break;
			case EI_SHARD_AGG_NULL:
				break;
			case EI_SHARD_AGG_WEIGHTED:
				{
					int			w = rules[col].weight;
					Oid			wtype = w >= 0 ? TupleDescAttr(tupdesc, w)->atttypid : InvalidOid;
					double		sum = 0.0;
					double		weights = 0.0;

					Assert(type == FLOAT8OID);
					for (r = 0; r < nrows; r++)
					{
						double		weight;

						if (rownulls[r][col] || (w >= 0 && rownulls[r][w]))
							continue;
						weight = w >= 0 ?
							(double) ei_shards_int(rowvalues[r][w], wtype) : 1.0;
						sum += DatumGetFloat8(rowvalues[r][col]) * weight;
						weights += weight;
						any = true;
					}
					if (any && weights > 0.0)
					{
						values[col] = Float8GetDatum(sum / weights);
						nulls[col] = false;
					}
					break;
				}
			case EI_SHARD_AGG_DISTINCT:
				{
					char	  **texts = palloc(sizeof(char *) * Max(nrows, 1));
					int			n = 0;
					StringInfoData buf;
					int			k;

					Assert(type == TEXTOID);
					for (r = 0; r < nrows; r++)
						if (!rownulls[r][col])
							texts[n++] = TextDatumGetCString(rowvalues[r][col]);
					if (n == 0)
						break;
					qsort(texts, n, sizeof(char *), ei_shards_strcmp);
					initStringInfo(&buf);
					for (k = 0; k < n; k++)
					{
						if (k > 0 && strcmp(texts[k], texts[k - 1]) == 0)
							continue;
						if (buf.len > 0)
							appendStringInfoChar(&buf, ',');
						appendStringInfoString(&buf, texts[k]);
					}
					values[col] = CStringGetTextDatum(buf.data);
					nulls[col] = false;
					break;
				}
		}
	}

	return HeapTupleGetDatum(heap_form_tuple(tupdesc, values, nulls));
}

/*
 * Call a function that reads an index and returns a row (statistics, a
 * preview) on one placement of each shard of a distributed index and
 * combine the shards' rows into one of tupdesc's type, column by column as
 * rules says.  The index is open; it is closed here, its lock kept.
 */
Datum
EIShardsRow(FunctionCallInfo fcinfo, Relation index, const char *more_args,
			TupleDesc tupdesc, const EIShardAgg *rules)
{
	return ei_shards_aggregate(tupdesc,
							   EIShardsCall(fcinfo, index, more_args,
											EI_SHARDS_RETURNS_ROW,
											AccessShareLock, AccessShareLock),
							   rules);
}
