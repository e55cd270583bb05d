/*-------------------------------------------------------------------------
 *
 * hypothetical.c
 *	  Hypothetical elastic_btree and osm_tree indexes for EXPLAIN, next to
 *	  HypoPG's own hypothetical indexes.
 *
 * HypoPG 1.3 refuses access methods other than btree, brin, hash and
 * bloom, so we keep our own list of hypothetical indexes (backend-local,
 * like HypoPG's) and add them to the planner's view of a table through
 * get_relation_info_hook, after calling whatever hook was installed before
 * ours (HypoPG's, when it is loaded after us, calls ours in turn).  They
 * are added only while a plain EXPLAIN (without ANALYZE) runs, so that no
 * plan that uses one can ever execute.  EXPLAIN names them through
 * explain_get_index_name_hook.
 *
 * A hypothetical index has no relation, so everything the planner and
 * eicostestimate need comes from here: pages, tuples and tree height from
 * a size model of standard leaves, compact leaves and the size bound
 * (ei_hypo_estimate), the operator families and sort orders from the
 * catalogs.  eicostestimate opens the index only when tree_height is
 * unknown, which it never is here.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <math.h>

#include "access/htup_details.h"
#include "access/nbtree.h"
#include "access/relation.h"
#include "access/reloptions.h"
#include "access/table.h"
#include "catalog/index.h"
#include "catalog/namespace.h"
#include "catalog/pg_am.h"
#include "catalog/pg_class.h"
#include "catalog/pg_opclass.h"
#include "commands/defrem.h"
#include "commands/explain.h"
#include "eitree.h"
#include "fmgr.h"
#include "funcapi.h"
#include "keynorm.h"
#include "miscadmin.h"
#include "nodes/makefuncs.h"
#include "optimizer/optimizer.h"
#include "optimizer/plancat.h"
#include "parser/parser.h"
#include "seqtree.h"
#include "tcop/utility.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/rel.h"
#include "utils/syscache.h"

PG_FUNCTION_INFO_V1(elastic_index_hypothetical_create);
PG_FUNCTION_INFO_V1(elastic_index_hypothetical_list);
PG_FUNCTION_INFO_V1(elastic_index_hypothetical_drop);
PG_FUNCTION_INFO_V1(elastic_index_hypothetical_reset);

/* One hypothetical index. */
typedef struct EIHypoIndex
{
	Oid			oid;			/* fake OID, not in pg_class */
	char	   *name;
	Oid			relid;
	Oid			amoid;
	char	   *amname;
	int			ncolumns;
	int			indexkeys[INDEX_MAX_KEYS];
	Oid			collations[INDEX_MAX_KEYS];
	Oid			opfamily[INDEX_MAX_KEYS];
	Oid			opcintype[INDEX_MAX_KEYS];
	bool		desc[INDEX_MAX_KEYS];
	bool		nulls_first[INDEX_MAX_KEYS];
	int			fillfactor;		/* percent */
	char	   *size_bound;		/* elastic_btree: reloption, or NULL */
	int			tuplesz;		/* bytes of a leaf entry with its line pointer */
	int			keylen;			/* normalized key bytes, or -1: never compact */
} EIHypoIndex;

/* The session's hypothetical indexes, in TopMemoryContext. */
static List *ei_hypo_indexes = NIL;

/* Set while a plain EXPLAIN runs: only then are they shown to the planner. */
static bool ei_hypo_in_explain = false;

static get_relation_info_hook_type prev_get_relation_info_hook = NULL;
static explain_get_index_name_hook_type prev_explain_get_index_name_hook = NULL;
static ProcessUtility_hook_type prev_ProcessUtility_hook = NULL;

static void ei_hypo_get_relation_info(PlannerInfo *root, Oid relationObjectId,
									  bool inhparent, RelOptInfo *rel);
static const char *ei_hypo_index_name(Oid indexId);
static void ei_hypo_process_utility(PlannedStmt *pstmt, const char *queryString,
									bool readOnlyTree,
									ProcessUtilityContext context,
									ParamListInfo params,
									QueryEnvironment *queryEnv,
									DestReceiver *dest, QueryCompletion *qc);

/*
 * Install the planner, EXPLAIN and utility hooks; called from _PG_init.
 */
void
EIHypoInit(void)
{
	prev_get_relation_info_hook = get_relation_info_hook;
	get_relation_info_hook = ei_hypo_get_relation_info;
	prev_explain_get_index_name_hook = explain_get_index_name_hook;
	explain_get_index_name_hook = ei_hypo_index_name;
	prev_ProcessUtility_hook = ProcessUtility_hook;
	ProcessUtility_hook = ei_hypo_process_utility;
}

/*
 * Note whether the statement is a plain EXPLAIN, run it, and forget.
 */
static void
ei_hypo_process_utility(PlannedStmt *pstmt, const char *queryString,
						bool readOnlyTree, ProcessUtilityContext context,
						ParamListInfo params, QueryEnvironment *queryEnv,
						DestReceiver *dest, QueryCompletion *qc)
{
	bool		saved = ei_hypo_in_explain;

	if (IsA(pstmt->utilityStmt, ExplainStmt))
	{
		ExplainStmt *stmt = (ExplainStmt *) pstmt->utilityStmt;
		bool		analyze = false;
		ListCell   *lc;

		foreach(lc, stmt->options)
		{
			DefElem    *opt = (DefElem *) lfirst(lc);

			if (strcmp(opt->defname, "analyze") == 0)
				analyze = defGetBoolean(opt);
		}
		ei_hypo_in_explain = !analyze;
	}

	PG_TRY();
	{
		if (prev_ProcessUtility_hook)
			prev_ProcessUtility_hook(pstmt, queryString, readOnlyTree, context,
									 params, queryEnv, dest, qc);
		else
			standard_ProcessUtility(pstmt, queryString, readOnlyTree, context,
									params, queryEnv, dest, qc);
	}
	PG_FINALLY();
	{
		ei_hypo_in_explain = saved;
	}
	PG_END_TRY();
}

/*
 * Entries a leaf of the given fill holds, for entries of tuplesz bytes.
 */
static double
ei_hypo_leaf_capacity(int tuplesz, int fillfactor)
{
	double		usable = BLCKSZ - SizeOfPageHeaderData -
		MAXALIGN(sizeof(EIPageOpaqueData));

	return Max(1.0, floor(usable * fillfactor / 100.0 / tuplesz));
}

/*
 * Estimate pages and height of a hypothetical index over ntuples entries.
 *
 * Standard leaves hold usable space x fill factor / entry size; inner pages
 * hold pivots of the same size at 70%.  elastic_btree with a size bound
 * and compact-capable keys: the index grows in standard leaves up to
 * shrink_threshold of the bound; past that, full leaves become compact in
 * place (EICompactCapacity entries each) instead of splitting, until all
 * are compact; only then does it grow again, in compact leaves.
 */
static void
ei_hypo_estimate(EIHypoIndex *hypo, double ntuples, BlockNumber heappages,
				 BlockNumber *pages, int *height)
{
	double		scap = ei_hypo_leaf_capacity(hypo->tuplesz, hypo->fillfactor);
	double		icap = ei_hypo_leaf_capacity(hypo->tuplesz + 8,
											 EI_NONLEAF_FILLFACTOR);
	double		leaves = Max(1.0, ceil(ntuples / scap));
	double		inner = 0;
	double		level = leaves;
	double		total;
	int			h = 1;

	while (level > 1)
	{
		level = ceil(level / icap);
		inner += level;
		h++;
	}
	total = 1 + leaves + inner;

	if (hypo->size_bound != NULL && hypo->keylen > 0)
	{
		int64		kb;
		double		percent;
		const char *hint;
		double		bound = -1;

		if (EIParseSizeBound(hypo->size_bound, &kb, &percent, &hint))
		{
			if (kb > 0)
				bound = Max(kb * 1024.0 / BLCKSZ, 1);
			else if (percent > 0)
				bound = Max(heappages * percent / 100.0, 1);
		}
		if (bound > 0 && total > EIElasticShrinkThreshold() * bound)
		{
			double		ccap = EICompactCapacity(hypo->keylen,
												 MAXALIGN(hypo->tuplesz));
			double		limit = EIElasticShrinkThreshold() * bound;
			double		avail = Max(1.0, limit - 1 - inner);

			if (ccap > scap && avail * ccap >= ntuples)
				total = limit;	/* some leaves compact, within the bound */
			else if (ccap > scap)
				total = 1 + inner + ceil(ntuples / ccap);	/* all compact */
		}
	}

	*pages = (BlockNumber) Min(total, (double) MaxBlockNumber);
	*height = h;
}

/*
 * Add the session's hypothetical indexes on this table to the planner's
 * view of it, during a plain EXPLAIN.
 */
static void
ei_hypo_get_relation_info(PlannerInfo *root, Oid relationObjectId,
						  bool inhparent, RelOptInfo *rel)
{
	ListCell   *lc;

	if (prev_get_relation_info_hook)
		prev_get_relation_info_hook(root, relationObjectId, inhparent, rel);

	if (!ei_hypo_in_explain || inhparent || ei_hypo_indexes == NIL)
		return;

	foreach(lc, ei_hypo_indexes)
	{
		EIHypoIndex *hypo = (EIHypoIndex *) lfirst(lc);
		IndexOptInfo *info;
		int			n = hypo->ncolumns;

		if (hypo->relid != relationObjectId)
			continue;

		info = makeNode(IndexOptInfo);
		info->indexoid = hypo->oid;
		info->reltablespace = InvalidOid;
		info->rel = rel;
		info->tuples = rel->tuples;
		ei_hypo_estimate(hypo, Max(rel->tuples, 0), rel->pages,
						 &info->pages, &info->tree_height);
		info->tree_height -= 1;	/* the planner counts levels above leaves */
		info->ncolumns = n;
		info->nkeycolumns = n;
		info->indexkeys = palloc(sizeof(int) * n);
		info->indexcollations = palloc(sizeof(Oid) * n);
		info->opfamily = palloc(sizeof(Oid) * n);
		info->opcintype = palloc(sizeof(Oid) * n);
		info->sortopfamily = palloc(sizeof(Oid) * n);
		info->reverse_sort = palloc(sizeof(bool) * n);
		info->nulls_first = palloc(sizeof(bool) * n);
		info->canreturn = palloc(sizeof(bool) * n);
		info->opclassoptions = palloc0(sizeof(bytea *) * n);
		info->indextlist = NIL;
		for (int i = 0; i < n; i++)
		{
			Oid			ltopr;
			Oid			btopfamily;
			Oid			btopcintype;
			int16		btstrategy;
			Oid			atttype;
			int32		atttypmod;
			Oid			attcoll;

			info->indexkeys[i] = hypo->indexkeys[i];
			info->indexcollations[i] = hypo->collations[i];
			info->opfamily[i] = hypo->opfamily[i];
			info->opcintype[i] = hypo->opcintype[i];
			info->reverse_sort[i] = hypo->desc[i];
			info->nulls_first[i] = hypo->nulls_first[i];
			info->canreturn[i] = true;
			/* the btree family that sorts like ours, as plancat.c finds it */
			info->sortopfamily[i] = InvalidOid;
			ltopr = get_opfamily_member(hypo->opfamily[i], hypo->opcintype[i],
										hypo->opcintype[i], BTLessStrategyNumber);
			if (OidIsValid(ltopr) &&
				get_ordering_op_properties(ltopr, &btopfamily, &btopcintype,
										   &btstrategy) &&
				btopcintype == hypo->opcintype[i] &&
				btstrategy == BTLessStrategyNumber)
				info->sortopfamily[i] = btopfamily;

			get_atttypetypmodcoll(relationObjectId, hypo->indexkeys[i],
								  &atttype, &atttypmod, &attcoll);
			info->indextlist = lappend(info->indextlist,
									   makeTargetEntry((Expr *) makeVar(rel->relid, hypo->indexkeys[i],
																		atttype, atttypmod, attcoll, 0),
													   i + 1, NULL, false));
		}
		info->relam = hypo->amoid;
		info->indexprs = NIL;
		info->indpred = NIL;
		info->predOK = false;
		info->unique = false;
		info->immediate = true;
		info->hypothetical = true;
		info->amcanorderbyop = false;
		info->amoptionalkey = true;
		info->amsearcharray = false;
		info->amsearchnulls = true;
		info->amhasgettuple = true;
		info->amhasgetbitmap = true;
		info->amcanparallel = true;
		info->amcanmarkpos = true;
		info->amcostestimate = (void (*) ()) eicostestimate;

		rel->indexlist = lcons(info, rel->indexlist);
	}
}

/*
 * Name one of our hypothetical indexes in EXPLAIN output.
 */
static const char *
ei_hypo_index_name(Oid indexId)
{
	ListCell   *lc;

	foreach(lc, ei_hypo_indexes)
	{
		EIHypoIndex *hypo = (EIHypoIndex *) lfirst(lc);

		if (hypo->oid == indexId)
			return hypo->name;
	}
	if (prev_explain_get_index_name_hook)
		return prev_explain_get_index_name_hook(indexId);
	return NULL;
}

/*
 * A fake OID no relation has and none of ours has: counting down from
 * FirstNormalObjectId - 1 (HypoPG counts up from lower OIDs).
 */
static Oid
ei_hypo_new_oid(void)
{
	for (Oid oid = FirstNormalObjectId - 1; oid > FirstUnpinnedObjectId; oid--)
	{
		ListCell   *lc;
		bool		taken = SearchSysCacheExists1(RELOID, ObjectIdGetDatum(oid));

		foreach(lc, ei_hypo_indexes)
			if (((EIHypoIndex *) lfirst(lc))->oid == oid)
				taken = true;
		if (!taken)
			return oid;
	}
	ereport(ERROR,
			(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
			 errmsg("no free OID for another hypothetical index"),
			 errhint("Drop some with elastic_index_hypothetical_drop() or elastic_index_hypothetical_reset().")));
	return InvalidOid;			/* keep the compiler quiet */
}

/*
 * elastic_index_hypothetical_create(definition text)
 *	returns table (indexrelid oid, indexname text)
 *
 * Make a hypothetical index from a CREATE INDEX statement using
 * elastic_btree or osm_tree: plain key columns, operator classes,
 * ASC/DESC, NULLS FIRST/LAST, WITH (...) storage parameters.
 */
Datum
elastic_index_hypothetical_create(PG_FUNCTION_ARGS)
{
	char	   *sql = text_to_cstring(PG_GETARG_TEXT_PP(0));
	List	   *parsetree;
	IndexStmt  *stmt;
	Oid			relid;
	Relation	heap;
	HeapTuple	amtup;
	Form_pg_am	amform;
	IndexAmRoutine *amroutine;
	EIHypoIndex *hypo;
	MemoryContext oldcxt;
	ListCell   *lc;
	int			i = 0;
	int			datasz = 0;
	bool		compactable;
	Datum		reloptions;
	EIOptions  *opts;
	TupleDesc	tupdesc;
	Datum		values[2];
	bool		nulls[2] = {false, false};

	parsetree = raw_parser(sql, RAW_PARSE_DEFAULT);
	if (list_length(parsetree) != 1 ||
		!IsA(((RawStmt *) linitial(parsetree))->stmt, IndexStmt))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("hypothetical index definition must be one CREATE INDEX statement"),
				 errhint("For example: CREATE INDEX ON t USING elastic_btree (col)")));
	stmt = (IndexStmt *) ((RawStmt *) linitial(parsetree))->stmt;

	if (stmt->accessMethod == NULL ||
		(strcmp(stmt->accessMethod, "elastic_btree") != 0 &&
		 strcmp(stmt->accessMethod, "osm_tree") != 0))
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("hypothetical indexes of elastic_index use elastic_btree or osm_tree, not %s",
						stmt->accessMethod ? stmt->accessMethod : "btree"),
				 errhint("Use hypopg_create_index() for the access methods HypoPG supports.")));
	if (stmt->whereClause != NULL || stmt->indexIncludingParams != NIL ||
		stmt->unique)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("hypothetical indexes of elastic_index support plain key columns only"),
				 errdetail("Partial, unique and INCLUDE indexes are not modelled.")));

	relid = RangeVarGetRelid(stmt->relation, AccessShareLock, false);
	heap = table_open(relid, NoLock);
	if (heap->rd_rel->relkind != RELKIND_RELATION &&
		heap->rd_rel->relkind != RELKIND_MATVIEW)
		ereport(ERROR,
				(errcode(ERRCODE_WRONG_OBJECT_TYPE),
				 errmsg("\"%s\" is not a table or materialized view",
						RelationGetRelationName(heap))));
	if (list_length(stmt->indexParams) > INDEX_MAX_KEYS)
		ereport(ERROR,
				(errcode(ERRCODE_TOO_MANY_COLUMNS),
				 errmsg("cannot use more than %d columns in an index",
						INDEX_MAX_KEYS)));

	amtup = SearchSysCache1(AMNAME, CStringGetDatum(stmt->accessMethod));
	if (!HeapTupleIsValid(amtup))
		elog(ERROR, "access method \"%s\" does not exist", stmt->accessMethod);
	amform = (Form_pg_am) GETSTRUCT(amtup);
	amroutine = GetIndexAmRoutine(amform->amhandler);

	oldcxt = MemoryContextSwitchTo(TopMemoryContext);
	hypo = palloc0(sizeof(EIHypoIndex));
	hypo->relid = relid;
	hypo->amoid = amform->oid;
	hypo->amname = pstrdup(stmt->accessMethod);
	MemoryContextSwitchTo(oldcxt);
	ReleaseSysCache(amtup);

	compactable = (strcmp(hypo->amname, "elastic_btree") == 0);
	foreach(lc, stmt->indexParams)
	{
		IndexElem  *elem = (IndexElem *) lfirst(lc);
		AttrNumber	attno;
		Form_pg_attribute att;
		Oid			opclass;

		if (elem->name == NULL)
			ereport(ERROR,
					(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
					 errmsg("hypothetical indexes of elastic_index support plain key columns only"),
					 errdetail("Expression columns are not modelled.")));
		attno = get_attnum(relid, elem->name);
		if (attno == InvalidAttrNumber)
			ereport(ERROR,
					(errcode(ERRCODE_UNDEFINED_COLUMN),
					 errmsg("column \"%s\" does not exist", elem->name)));
		if (attno < 0)
			ereport(ERROR,
					(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
					 errmsg("index creation on system columns is not supported")));
		att = TupleDescAttr(RelationGetDescr(heap), attno - 1);

		opclass = ResolveOpClass(elem->opclass, att->atttypid,
								 hypo->amname, hypo->amoid);
		hypo->indexkeys[i] = attno;
		hypo->opfamily[i] = get_opclass_family(opclass);
		hypo->opcintype[i] = get_opclass_input_type(opclass);
		hypo->collations[i] = elem->collation ?
			get_collation_oid(elem->collation, false) : att->attcollation;
		hypo->desc[i] = (elem->ordering == SORTBY_DESC);
		hypo->nulls_first[i] = (elem->nulls_ordering == SORTBY_NULLS_DEFAULT) ?
			hypo->desc[i] : (elem->nulls_ordering == SORTBY_NULLS_FIRST);

		/* key bytes: the type's length, or its average width */
		datasz += att->attlen > 0 ? att->attlen :
			get_attavgwidth(relid, attno) > 0 ? get_attavgwidth(relid, attno) : 32;
		if (att->attlen <= 0 ||
			!OidIsValid(get_opfamily_proc(hypo->opfamily[i], hypo->opcintype[i],
										  hypo->opcintype[i], EI_NORMALIZE_PROC)))
			compactable = false;
		i++;
	}
	hypo->ncolumns = i;
	hypo->tuplesz = MAXALIGN(sizeof(IndexTupleData) + datasz) + sizeof(ItemIdData);
	hypo->keylen = -1;
	if (compactable)
	{
		int			keylen = KEYNORM_TID_SIZE;

		for (int c = 0; c < i; c++)
			keylen += 1 + TupleDescAttr(RelationGetDescr(heap),
										hypo->indexkeys[c] - 1)->attlen;
		if (keylen <= SEQTREE_MAX_KEYLEN)
			hypo->keylen = keylen;
	}

	/* storage parameters, validated by the access method */
	reloptions = transformRelOptions((Datum) 0, stmt->options, NULL, NULL,
									 false, false);
	opts = (EIOptions *) amroutine->amoptions(reloptions, true);
	hypo->fillfactor = strcmp(hypo->amname, "osm_tree") == 0 ?
		((opts && opts->fillfactor > 0) ? opts->fillfactor : osm_fill_factor) :
		(opts ? opts->fillfactor : EI_DEFAULT_FILLFACTOR);
	oldcxt = MemoryContextSwitchTo(TopMemoryContext);
	if (compactable && opts && opts->size_bound_offset != 0)
		hypo->size_bound = pstrdup((char *) opts + opts->size_bound_offset);
	else if (compactable && EIElasticDefaultBound() != NULL)
		hypo->size_bound = pstrdup(EIElasticDefaultBound());
	hypo->oid = ei_hypo_new_oid();
	hypo->name = psprintf("<%u>%s_%s_%s", hypo->oid, hypo->amname,
						  RelationGetRelationName(heap),
						  get_attname(relid, hypo->indexkeys[0], false));
	ei_hypo_indexes = lappend(ei_hypo_indexes, hypo);
	MemoryContextSwitchTo(oldcxt);
	table_close(heap, NoLock);

	if (get_call_result_type(fcinfo, NULL, &tupdesc) != TYPEFUNC_COMPOSITE)
		elog(ERROR, "return type must be a row type");
	tupdesc = BlessTupleDesc(tupdesc);
	values[0] = ObjectIdGetDatum(hypo->oid);
	values[1] = CStringGetTextDatum(hypo->name);
	PG_RETURN_DATUM(HeapTupleGetDatum(heap_form_tuple(tupdesc, values, nulls)));
}

/*
 * elastic_index_hypothetical_list()
 *	returns setof (indexrelid oid, indexname text, relid regclass,
 *				   amname text, estimated_pages int8, estimated_bytes int8)
 *
 * The session's hypothetical indexes with their estimated size over the
 * table's current pg_class.reltuples.
 */
Datum
elastic_index_hypothetical_list(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	ListCell   *lc;

	InitMaterializedSRF(fcinfo, 0);
	foreach(lc, ei_hypo_indexes)
	{
		EIHypoIndex *hypo = (EIHypoIndex *) lfirst(lc);
		Datum		values[6];
		bool		nulls[6] = {false};
		Relation	heap = try_relation_open(hypo->relid, AccessShareLock);
		BlockNumber pages = 0;
		int			height;

		/* a table dropped since: no estimate */
		if (heap != NULL)
		{
			ei_hypo_estimate(hypo, Max(heap->rd_rel->reltuples, 0),
							 RelationGetNumberOfBlocks(heap), &pages, &height);
			relation_close(heap, AccessShareLock);
		}
		values[0] = ObjectIdGetDatum(hypo->oid);
		values[1] = CStringGetTextDatum(hypo->name);
		values[2] = ObjectIdGetDatum(hypo->relid);
		values[3] = CStringGetTextDatum(hypo->amname);
		values[4] = Int64GetDatum((int64) pages);
		values[5] = Int64GetDatum((int64) pages * BLCKSZ);
		nulls[4] = nulls[5] = (heap == NULL);
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
	}
	return (Datum) 0;
}

/*
 * elastic_index_hypothetical_drop(indexrelid oid) returns bool
 */
Datum
elastic_index_hypothetical_drop(PG_FUNCTION_ARGS)
{
	Oid			oid = PG_GETARG_OID(0);
	ListCell   *lc;

	foreach(lc, ei_hypo_indexes)
	{
		EIHypoIndex *hypo = (EIHypoIndex *) lfirst(lc);

		if (hypo->oid == oid)
		{
			ei_hypo_indexes = foreach_delete_current(ei_hypo_indexes, lc);
			PG_RETURN_BOOL(true);
		}
	}
	PG_RETURN_BOOL(false);
}

/*
 * elastic_index_hypothetical_reset() returns void
 */
Datum
elastic_index_hypothetical_reset(PG_FUNCTION_ARGS)
{
	list_free(ei_hypo_indexes);
	ei_hypo_indexes = NIL;
	PG_RETURN_VOID();
}
