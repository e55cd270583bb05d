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
 * plan that uses one can ever execute; after such an EXPLAIN the session's
 * plan cache is reset, so that a generic plan made by EXPLAIN EXECUTE is
 * never reused by EXECUTE.  EXPLAIN names them through
 * explain_get_index_name_hook.
 *
 * Their OIDs never collide with HypoPG's nor with a relation's: HypoPG
 * (unless hypopg.use_real_oids is on, when it takes real OIDs from 16384
 * up) counts up from one past the largest pg_class OID below
 * FirstNormalObjectId; we count down from one below that largest OID,
 * skipping OIDs that pg_class has.  Relations never get new OIDs below
 * FirstNormalObjectId once initdb is done.
 *
 * A hypothetical index has no relation, so everything the planner and
 * eicostestimate need comes from here: pages, tuples and tree height from
 * a size model of standard leaves (with posting lists where the index
 * deduplicates, from the key columns' n_distinct), compact leaves and the
 * size bound (ei_hypo_estimate), the operator families, sort orders and AM properties
 * from the catalogs and the access method's handler.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <math.h>

#include "access/genam.h"
#include "access/htup_details.h"
#include "access/relation.h"
#include "access/reloptions.h"
#include "access/stratnum.h"
#include "access/table.h"
#include "access/transam.h"
#include "access/tupmacs.h"
#include "catalog/index.h"
#include "catalog/namespace.h"
#include "catalog/objectaddress.h"
#include "catalog/pg_am.h"
#include "catalog/pg_class.h"
#include "catalog/pg_statistic.h"
#include "commands/defrem.h"
#include "commands/explain.h"
#include "eiam.h"
#include "eielastic.h"
#include "eihypo.h"
#include "eiosm.h"
#include "fmgr.h"
#include "funcapi.h"
#include "keynorm.h"
#include "mb/pg_wchar.h"
#include "miscadmin.h"
#include "nodes/makefuncs.h"
#include "optimizer/plancat.h"
#include "parser/parser.h"
#include "seqtree.h"
#include "tcop/utility.h"
#include "utils/acl.h"
#include "utils/builtins.h"
#include "utils/fmgroids.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/plancache.h"
#include "utils/rel.h"
#include "utils/syscache.h"

PG_FUNCTION_INFO_V1(elastic_index_hypothetical_create);
PG_FUNCTION_INFO_V1(elastic_index_hypothetical_list);
PG_FUNCTION_INFO_V1(elastic_index_hypothetical_estimate);
PG_FUNCTION_INFO_V1(elastic_index_hypothetical_drop);
PG_FUNCTION_INFO_V1(elastic_index_hypothetical_reset);

/* One hypothetical index; everything in it lives in ei_hypo_context. */
typedef struct EIHypoIndex
{
	Oid			oid;			/* fake OID, not in pg_class */
	char		name[NAMEDATALEN];
	Oid			relid;
	Oid			amoid;
	char		amname[NAMEDATALEN];
	bool		osm;			/* osm_tree: no size bound */
	bool		compact_appends;	/* osm_tree with compact_leaves: bulk
									 * appends write compact leaves */
	int			ncolumns;		/* key and INCLUDE columns */
	int			nkeycolumns;	/* key columns, the first ones */
	AttrNumber	indexkeys[INDEX_MAX_KEYS];
	Oid			atttypes[INDEX_MAX_KEYS];	/* column types when created */
	Oid			collations[INDEX_MAX_KEYS];
	Oid			opfamily[INDEX_MAX_KEYS];
	Oid			opcintype[INDEX_MAX_KEYS];
	Oid			sortopfamily[INDEX_MAX_KEYS];
	bool		ordered;		/* sortopfamily is set for every column */
	bool		desc[INDEX_MAX_KEYS];
	bool		nulls_first[INDEX_MAX_KEYS];
	int			fillfactor;		/* leaf fill factor, percent */
	char	   *size_bound;		/* size_bound reloption, or NULL */
	Size		itemsz;			/* a leaf entry, MAXALIGN'd */
	Size		keysz;			/* a plain entry's header and key columns,
								 * unaligned: a posting list's TIDs start at
								 * its SHORTALIGN */
	bool		dedup;			/* deduplicate_items, every key column equal
								 * image and no INCLUDE columns: leaves may
								 * hold posting lists */
	Size		pivotsz;		/* a pivot (high key, inner entry): key
								 * columns and heap TID, MAXALIGN'd */
	int			keylen;			/* normalized key bytes, or -1: no compact
								 * leaves */
	/* the access method's properties, for IndexOptInfo */
	bool		amcanorderbyop;
	bool		amoptionalkey;
	bool		amsearcharray;
	bool		amsearchnulls;
	bool		amhasgettuple;
	bool		amhasgetbitmap;
	bool		amcanparallel;
	bool		amcanmarkpos;
	bool		amcanreturn;
	amcostestimate_function amcostestimate;
} EIHypoIndex;

/* The size model's figures for one hypothetical index. */
typedef struct EIHypoEstimate
{
	double		entries;
	double		standard_leaves;
	double		compact_leaves;
	double		inner_pages;
	double		total_pages;	/* metapage included */
	int			height;			/* levels, the leaf level included */
	int64		bound_pages;	/* the size bound, or -1 if none applies */
} EIHypoEstimate;

/* The session's hypothetical indexes and the context that holds them. */
static List *ei_hypo_indexes = NIL;
static MemoryContext ei_hypo_context = NULL;

/* Largest pg_class OID below FirstNormalObjectId; 0 until looked up. */
static Oid	ei_hypo_catalog_top = InvalidOid;

/* Set while a plain EXPLAIN runs: only then are they shown to the planner. */
static bool ei_hypo_in_explain = false;

/* Set when the planner saw a hypothetical index (ours or HypoPG's). */
static bool ei_hypo_planned = false;

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
 * Note whether the statement is a plain EXPLAIN and run it; afterwards,
 * if it planned with hypothetical indexes, invalidate the session's cached
 * plans, one of which EXPLAIN EXECUTE may have made with them.
 */
static void
ei_hypo_process_utility(PlannedStmt *pstmt, const char *queryString,
						bool readOnlyTree, ProcessUtilityContext context,
						ParamListInfo params, QueryEnvironment *queryEnv,
						DestReceiver *dest, QueryCompletion *qc)
{
	bool		saved = ei_hypo_in_explain;
	bool		is_explain = IsA(pstmt->utilityStmt, ExplainStmt);

	if (is_explain)
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
		if (is_explain && ei_hypo_planned)
		{
			ei_hypo_planned = false;
			ResetPlanCache();
		}
	}
	PG_END_TRY();
}

/*
 * Entries a page holds: items of itemsz bytes (with their line pointers)
 * as the bulk loader (core/build.c, nbtree's rule) fills pages: while the
 * page keeps the fill factor's share of the block free besides two line
 * pointers, and room for a high key of hikeysz bytes; at least two.
 */
static double
ei_hypo_page_capacity(Size itemsz, Size hikeysz, int fillfactor)
{
	double		usable = BLCKSZ - SizeOfPageHeaderData -
		MAXALIGN(sizeof(EIPageOpaqueData));
	double		soft = usable - floor(BLCKSZ * (100 - fillfactor) / 100) -
		2 * sizeof(ItemIdData);
	double		hard = usable - hikeysz - sizeof(ItemIdData);

	return Max(2.0, floor(Min(soft, hard) / (itemsz + sizeof(ItemIdData))));
}

/*
 * Distinct key values of the hypothetical index's table as ANALYZE saw
 * them: each key column's n_distinct (a negative one a fraction of the
 * rows), their product for several columns, at most ntuples; ntuples (no
 * two rows share a key) when a column has no statistics.
 */
static double
ei_hypo_distinct_keys(EIHypoIndex *hypo, double ntuples)
{
	double		distinct = 1;

	for (int i = 0; i < hypo->nkeycolumns; i++)
	{
		HeapTuple	tuple;
		float4		stadistinct;

		tuple = SearchSysCache3(STATRELATTINH,
								ObjectIdGetDatum(hypo->relid),
								Int16GetDatum(hypo->indexkeys[i]),
								BoolGetDatum(false));
		if (!HeapTupleIsValid(tuple))
			return ntuples;
		stadistinct = ((Form_pg_statistic) GETSTRUCT(tuple))->stadistinct;
		ReleaseSysCache(tuple);
		if (stadistinct == 0)
			return ntuples;
		distinct *= stadistinct > 0 ? stadistinct : -stadistinct * ntuples;
	}
	return Min(Max(distinct, 1), Max(ntuples, 1));
}

/*
 * Leaf bytes per row (entry or TID, with line pointers) when every key has
 * rows_per_key rows kept in posting lists of at most maxsize bytes, as the
 * build writes them (core/build.c): full lists, then one with the rest, or
 * a plain entry for a single row.
 */
static double
ei_hypo_posting_bytes_per_row(EIHypoIndex *hypo, double rows_per_key,
							  Size maxsize)
{
	Size		tidoff = SHORTALIGN(hypo->keysz);
	double		plain = hypo->itemsz + sizeof(ItemIdData);
	double		per_list = floor((double) (maxsize - tidoff) /
								 sizeof(ItemPointerData));
	double		nfull;
	double		rest;
	double		bytes;

	if (rows_per_key < 2 || per_list < 2)
		return plain;
	nfull = floor(rows_per_key / per_list);
	rest = ceil(rows_per_key - nfull * per_list);
	bytes = nfull * (MAXALIGN(tidoff + (Size) per_list *
							  sizeof(ItemPointerData)) + sizeof(ItemIdData));
	if (rest >= 2)
		bytes += MAXALIGN(tidoff + (Size) rest * sizeof(ItemPointerData)) +
			sizeof(ItemIdData);
	else if (rest > 0)
		bytes += plain;
	return bytes / (nfull * per_list + rest);
}

/*
 * Rows a standard leaf holds: entries of itemsz bytes, or with posting
 * lists (hypo->dedup) as many rows as their bytes per row allow, both up to
 * the fill factor as ei_hypo_page_capacity counts.
 */
static double
ei_hypo_leaf_rows(EIHypoIndex *hypo, double ntuples)
{
	double		plain = ei_hypo_page_capacity(hypo->itemsz, hypo->pivotsz,
											  hypo->fillfactor);
	double		usable = BLCKSZ - SizeOfPageHeaderData -
		MAXALIGN(sizeof(EIPageOpaqueData));
	double		room = usable - floor(BLCKSZ * (100 - hypo->fillfactor) / 100) -
		2 * sizeof(ItemIdData);
	double		per_row;

	if (!hypo->dedup || ntuples < 2)
		return plain;
	per_row = ei_hypo_posting_bytes_per_row(hypo, ntuples /
											ei_hypo_distinct_keys(hypo, ntuples),
											EI_BUILD_MAX_POSTING_SIZE);
	return Max(plain, floor(room / per_row));
}

/*
 * Inner pages and levels above the given number of leaves.
 */
static void
ei_hypo_upper_levels(double leaves, double inner_capacity,
					 double *inner, int *height)
{
	double		level = leaves;

	*inner = 0;
	*height = 1;
	while (level > 1)
	{
		level = ceil(level / inner_capacity);
		*inner += level;
		(*height)++;
	}
}

/*
 * The size bound that applies to a hypothetical index in pages (its
 * size_bound reloption, else elastic_btree.size_bound now; a percentage is
 * of heappages), or -1.  Mirrors EIElasticBoundPages.
 */
static int64
ei_hypo_bound_pages(EIHypoIndex *hypo, BlockNumber heappages)
{
	const char *value;
	int64		kb;
	double		percent;
	const char *hint;

	if (hypo->osm)
		return -1;				/* osm_tree has no size bound */
	value = hypo->size_bound ? hypo->size_bound : EIElasticDefaultBound();
	if (value == NULL || !EIParseSizeBound(value, &kb, &percent, &hint))
		return -1;
	if (kb > 0)
		return Max(kb * 1024 / BLCKSZ, 1);
	if (percent > 0)
		return Max((int64) (heappages * percent / 100.0), 1);
	return -1;
}

/*
 * Bytes a compact leaf's TID code spends on an entry (src/lib/tidcode.h),
 * for a table of ntuples rows in heappages pages, assuming keys not
 * correlated with heap order: neighbouring entries a third of the table
 * apart, a block delta and an offset each.  Correlated or repeated keys
 * cost 1 to 2 bytes, so this errs toward fewer entries per compact leaf.
 */
static double
ei_hypo_tid_bytes(double ntuples, BlockNumber heappages)
{
	double		delta = Max(1.0, (double) heappages / 3.0) * 4.0;
	double		perpage = heappages > 0 ? ntuples / heappages : 1;
	double		bytes = 1;

	while (delta >= 128 && bytes < 5)
	{
		delta /= 128;
		bytes++;
	}
	return bytes + (perpage >= 128 ? 2 : 1);
}

/*
 * Estimate the shape of a hypothetical index over ntuples entries, as
 * CREATE INDEX would build it now.
 *
 * Standard leaves filled to the fill factor, inner pages to 70%.  Every
 * leaf compact instead, filled to the fill factor of a compact leaf's
 * capacity (EICompactCapacity; a build leaves its last few leaves standard,
 * and an elastic_btree build the leaves of its sample too), when the keys
 * can be compact and either it is an osm_tree with compact_leaves (whose
 * near-sorted loads in large transactions reach the same) or an
 * elastic_btree whose standard leaves (with posting lists where it
 * deduplicates) would take shrink_threshold of its bound
 * (EIElasticBuildLeaves' rule, which the build applies to the leaves it
 * measured).  Later inserts change this: scattered ones into a bounded
 * elastic_btree convert leaves as they fill and leave them about 70% full.
 */
static void
ei_hypo_estimate(EIHypoIndex *hypo, double ntuples, BlockNumber heappages,
				 EIHypoEstimate *est)
{
	double		scap = ei_hypo_leaf_rows(hypo, ntuples);

	/*
	 * Inner pages: the build truncates a pivot's heap TID where the key
	 * columns separate the pages (EIFormPivot), at nearly every leaf
	 * boundary; the model counts them all so.
	 */
	Size		innersz = MAXALIGN(hypo->keysz);
	double		icap = ei_hypo_page_capacity(innersz, innersz,
											 EI_NONLEAF_FILLFACTOR);
	bool		compact = false;
	double		ccap;

	est->entries = Max(ntuples, 0);
	est->standard_leaves = Max(1.0, ceil(est->entries / scap));
	est->compact_leaves = 0;
	ei_hypo_upper_levels(est->standard_leaves, icap, &est->inner_pages,
						 &est->height);
	est->total_pages = 1 + est->standard_leaves + est->inner_pages;
	est->bound_pages = ei_hypo_bound_pages(hypo, heappages);

	if (hypo->keylen < 0)
		return;
	if (hypo->compact_appends)
		compact = true;
	else
		compact = EIElasticStandardPassesBound(est->standard_leaves,
											   est->bound_pages);
	if (!compact)
		return;

	ccap = floor(EICompactCapacity(hypo->keylen, hypo->pivotsz,
								   ei_hypo_tid_bytes(ntuples, heappages)) *
				 hypo->fillfactor / 100.0);
	if (ccap > scap)
	{
		est->standard_leaves = 0;
		est->compact_leaves = Max(1.0, ceil(est->entries / ccap));
		ei_hypo_upper_levels(est->compact_leaves, icap,
							 &est->inner_pages, &est->height);
		est->total_pages = 1 + est->compact_leaves + est->inner_pages;
	}
}

/*
 * Does the hypothetical index still fit its table and access method?  Not
 * once the table, a column or the access method is dropped or a column's
 * type changed (DROP EXTENSION, ALTER TABLE): such an index is left out
 * of plans, and has no estimate.
 */
static bool
ei_hypo_is_current(EIHypoIndex *hypo)
{
	if (!SearchSysCacheExists1(AMOID, ObjectIdGetDatum(hypo->amoid)) ||
		!SearchSysCacheExists1(RELOID, ObjectIdGetDatum(hypo->relid)))
		return false;
	for (int i = 0; i < hypo->ncolumns; i++)
	{
		HeapTuple	atttup = SearchSysCache2(ATTNUM,
											 ObjectIdGetDatum(hypo->relid),
											 Int16GetDatum(hypo->indexkeys[i]));
		bool		same;

		if (!HeapTupleIsValid(atttup))
			return false;
		same = !((Form_pg_attribute) GETSTRUCT(atttup))->attisdropped &&
			((Form_pg_attribute) GETSTRUCT(atttup))->atttypid == hypo->atttypes[i];
		ReleaseSysCache(atttup);
		if (!same)
			return false;
	}
	return true;
}

/*
 * The IndexOptInfo the planner gets for a hypothetical index on rel.
 */
static IndexOptInfo *
ei_hypo_index_info(EIHypoIndex *hypo, RelOptInfo *rel, Oid relationObjectId)
{
	IndexOptInfo *info = makeNode(IndexOptInfo);
	EIHypoEstimate est;
	int			n = hypo->ncolumns;
	int			nkey = hypo->nkeycolumns;

	info->indexoid = hypo->oid;
	info->reltablespace = rel->reltablespace;
	info->rel = rel;
	info->tuples = rel->tuples;
	ei_hypo_estimate(hypo, rel->tuples, rel->pages, &est);
	info->pages = (BlockNumber) Min(est.total_pages, (double) MaxBlockNumber);
	info->tree_height = est.height - 1; /* levels above the leaves */
	/* as plancat.c: operator class arrays for the key columns only */
	info->ncolumns = n;
	info->nkeycolumns = nkey;
	info->indexkeys = palloc(sizeof(int) * n);
	info->indexcollations = palloc(sizeof(Oid) * nkey);
	info->opfamily = palloc(sizeof(Oid) * nkey);
	info->opcintype = palloc(sizeof(Oid) * nkey);
	info->canreturn = palloc(sizeof(bool) * n);
	info->opclassoptions = palloc0(sizeof(bytea *) * nkey);
	if (hypo->ordered)
	{
		info->sortopfamily = palloc(sizeof(Oid) * nkey);
		info->reverse_sort = palloc(sizeof(bool) * nkey);
		info->nulls_first = palloc(sizeof(bool) * nkey);
	}
	info->indextlist = NIL;
	for (int i = 0; i < n; i++)
	{
		Oid			atttype;
		int32		atttypmod;
		Oid			attcoll;

		info->indexkeys[i] = hypo->indexkeys[i];
		info->canreturn[i] = hypo->amcanreturn;
		if (i < nkey)
		{
			info->indexcollations[i] = hypo->collations[i];
			info->opfamily[i] = hypo->opfamily[i];
			info->opcintype[i] = hypo->opcintype[i];
		}
		if (hypo->ordered && i < nkey)
		{
			info->sortopfamily[i] = hypo->sortopfamily[i];
			info->reverse_sort[i] = hypo->desc[i];
			info->nulls_first[i] = hypo->nulls_first[i];
		}
		get_atttypetypmodcoll(relationObjectId, hypo->indexkeys[i],
							  &atttype, &atttypmod, &attcoll);
		info->indextlist =
			lappend(info->indextlist,
					makeTargetEntry((Expr *) makeVar(rel->relid,
													 hypo->indexkeys[i],
													 atttype, atttypmod,
													 attcoll, 0),
									i + 1, NULL, false));
	}
	info->relam = hypo->amoid;
	info->indexprs = NIL;
	info->indpred = NIL;
	info->predOK = false;
	info->unique = false;
	info->immediate = true;
	info->hypothetical = true;
	info->amcanorderbyop = hypo->amcanorderbyop;
	info->amoptionalkey = hypo->amoptionalkey;
	info->amsearcharray = hypo->amsearcharray;
	info->amsearchnulls = hypo->amsearchnulls;
	info->amhasgettuple = hypo->amhasgettuple;
	info->amhasgetbitmap = hypo->amhasgetbitmap;
	info->amcanparallel = hypo->amcanparallel;
	info->amcanmarkpos = hypo->amcanmarkpos;
	info->amcostestimate = hypo->amcostestimate;
	return info;
}

/*
 * After the previous hook (HypoPG's, or whichever), add the session's
 * hypothetical indexes on this table to the planner's view of it, during
 * a plain EXPLAIN.
 */
static void
ei_hypo_get_relation_info(PlannerInfo *root, Oid relationObjectId,
						  bool inhparent, RelOptInfo *rel)
{
	ListCell   *lc;

	if (prev_get_relation_info_hook)
		prev_get_relation_info_hook(root, relationObjectId, inhparent, rel);

	if (!ei_hypo_in_explain)
		return;

	/* HypoPG's hypothetical indexes count too, for the plan cache reset */
	foreach(lc, rel->indexlist)
		if (((IndexOptInfo *) lfirst(lc))->hypothetical)
			ei_hypo_planned = true;

	if (inhparent)
		return;
	foreach(lc, ei_hypo_indexes)
	{
		EIHypoIndex *hypo = (EIHypoIndex *) lfirst(lc);

		if (hypo->relid != relationObjectId || !ei_hypo_is_current(hypo))
			continue;
		rel->indexlist = lcons(ei_hypo_index_info(hypo, rel, relationObjectId),
							   rel->indexlist);
		ei_hypo_planned = true;
	}
}

/*
 * Name one of our hypothetical indexes in EXPLAIN output; other OIDs go to
 * the previous hook.
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
 * The largest pg_class OID below FirstNormalObjectId: HypoPG's fake OIDs
 * start right above it.  Read once per session, from pg_class's OID index.
 */
static Oid
ei_hypo_catalog_top_oid(void)
{
	Relation	pg_class;
	Relation	oid_index;
	ScanKeyData key;
	SysScanDesc scan;
	HeapTuple	tup;

	if (OidIsValid(ei_hypo_catalog_top))
		return ei_hypo_catalog_top;

	pg_class = table_open(RelationRelationId, AccessShareLock);
	oid_index = index_open(ClassOidIndexId, AccessShareLock);
	ScanKeyInit(&key, Anum_pg_class_oid, BTLessStrategyNumber, F_OIDLT,
				ObjectIdGetDatum(FirstNormalObjectId));
	scan = systable_beginscan_ordered(pg_class, oid_index, NULL, 1, &key);
	tup = systable_getnext_ordered(scan, BackwardScanDirection);
	if (!HeapTupleIsValid(tup))
		elog(ERROR, "pg_class has no OID below %u", FirstNormalObjectId);
	ei_hypo_catalog_top = ((Form_pg_class) GETSTRUCT(tup))->oid;
	systable_endscan_ordered(scan);
	index_close(oid_index, AccessShareLock);
	table_close(pg_class, AccessShareLock);
	return ei_hypo_catalog_top;
}

/*
 * A fake OID that no relation, none of HypoPG's hypothetical indexes and
 * none of ours has: counting down from below the largest pg_class OID under
 * FirstNormalObjectId (HypoPG counts up from above it) to
 * FirstGenbkiObjectId, skipping OIDs that pg_class or our list has.
 */
static Oid
ei_hypo_new_oid(void)
{
	for (Oid oid = ei_hypo_catalog_top_oid() - 1; oid >= FirstGenbkiObjectId; oid--)
	{
		ListCell   *lc;
		bool		taken = false;

		foreach(lc, ei_hypo_indexes)
			if (((EIHypoIndex *) lfirst(lc))->oid == oid)
				taken = true;
		if (!taken && !SearchSysCacheExists1(RELOID, ObjectIdGetDatum(oid)))
			return oid;
	}
	ereport(ERROR,
			(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
			 errmsg("no free OID for another hypothetical index"),
			 errhint("Drop some with elastic_index_hypothetical_drop() or elastic_index_hypothetical_reset().")));
	return InvalidOid;			/* keep the compiler quiet */
}

/*
 * Copy a name into a NAMEDATALEN buffer, cut at a character boundary.
 */
static void
ei_hypo_set_name(char *dst, const char *src)
{
	int			len = pg_mbcliplen(src, strlen(src), NAMEDATALEN - 1);

	memcpy(dst, src, len);
	dst[len] = '\0';
}

/*
 * Fill in the key columns of a hypothetical index from the statement's
 * column list: operator classes, collations, orderings, the btree
 * families that sort like them, and the entry sizes and normalized key
 * length for the size model; then its INCLUDE columns, which count in the
 * leaf entries' size only.
 */
static void
ei_hypo_set_columns(EIHypoIndex *hypo, IndexStmt *stmt, Relation heap,
					StringInfo colnames)
{
	Oid			relid = RelationGetRelid(heap);
	Size		datasz = 0;
	int			keylen = KEYNORM_TID_SIZE;
	bool		compactable = true;
	bool		varwidth = false;
	bool		allequalimage = true;
	ListCell   *lc;
	int			i = 0;

	if (list_length(stmt->indexParams) > INDEX_MAX_KEYS)
		ereport(ERROR,
				(errcode(ERRCODE_TOO_MANY_COLUMNS),
				 errmsg("cannot use more than %d columns in an index",
						INDEX_MAX_KEYS)));

	hypo->ordered = true;
	foreach(lc, stmt->indexParams)
	{
		IndexElem  *elem = (IndexElem *) lfirst(lc);
		AttrNumber	attno;
		Form_pg_attribute att;
		Oid			opclass;
		Oid			ltopr;
		Oid			btopfamily;
		Oid			btopcintype;
		Oid			normproc;
		int32		width = 0;

		if (elem->name == NULL)
			ereport(ERROR,
					(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
					 errmsg("hypothetical indexes of elastic_index support plain key columns only"),
					 errdetail("Expression columns are not modelled.")));
		if (elem->opclassopts != NIL)
			ereport(ERROR,
					(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
					 errmsg("operator class options are not supported by access method \"%s\"",
							hypo->amname)));
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
		hypo->atttypes[i] = att->atttypid;
		hypo->opfamily[i] = get_opclass_family(opclass);
		hypo->opcintype[i] = get_opclass_input_type(opclass);
		if (elem->collation != NIL)
		{
			if (!type_is_collatable(att->atttypid))
				ereport(ERROR,
						(errcode(ERRCODE_DATATYPE_MISMATCH),
						 errmsg("collations are not supported by type %s",
								format_type_be(att->atttypid))));
			hypo->collations[i] = get_collation_oid(elem->collation, false);
		}
		else
			hypo->collations[i] = att->attcollation;
		hypo->desc[i] = (elem->ordering == SORTBY_DESC);
		hypo->nulls_first[i] = (elem->nulls_ordering == SORTBY_NULLS_DEFAULT) ?
			hypo->desc[i] : (elem->nulls_ordering == SORTBY_NULLS_FIRST);

		/* the btree family that sorts like ours, as plancat.c finds it */
		ltopr = get_opfamily_member(hypo->opfamily[i], hypo->opcintype[i],
									hypo->opcintype[i], BTLessStrategyNumber);
		if (OidIsValid(ltopr) &&
			EIOrderingOpStrategy(ltopr, &btopfamily, &btopcintype) ==
			BTLessStrategyNumber &&
			btopcintype == hypo->opcintype[i])
			hypo->sortopfamily[i] = btopfamily;
		else
			hypo->ordered = false;

		/*
		 * Bytes of the entry's data: fixed-width columns aligned as
		 * index_form_tuple aligns them, others at their average width
		 * (ANALYZE's, else the type's guess), with short varlena headers.
		 */
		if (att->attlen > 0)
			datasz = att_align_nominal(datasz, att->attalign) + att->attlen;
		else
		{
			width = get_attavgwidth(relid, attno);
			if (width <= 0)
				width = get_typavgwidth(att->atttypid, att->atttypmod);
			datasz += width;
		}

		/*
		 * Compact leaves need normalized keys (core/normkey.c); with a
		 * variable-width column they are padded to EI_NORMKEY_VARKEY_LEN,
		 * and we model them only when the column's values are on average
		 * well below that.
		 */
		normproc = EIGetNormalizeProc(hypo->opfamily[i], hypo->opcintype[i]);
		if (!OidIsValid(normproc) ||
			(type_is_collatable(att->atttypid) &&
			 EINormalizeProcUsesCollation(normproc) &&
			 !EINormKeyCollationOK(hypo->collations[i])))
			compactable = false;
		else if (EINormKeyTypeWidth(att->atttypid) > 0)
			keylen += 1 + EINormKeyTypeWidth(att->atttypid);
		else if (width <= EI_NORMKEY_VARKEY_LEN / 2)
			varwidth = true;
		else
			compactable = false;

		/* posting lists need equal images (EIAllEqualImage) */
		if (!EIColumnEqualImage(hypo->opfamily[i], hypo->opcintype[i],
								hypo->collations[i]))
			allequalimage = false;

		appendStringInfo(colnames, "_%s", elem->name);
		i++;
	}
	hypo->nkeycolumns = i;
	hypo->keysz = sizeof(IndexTupleData) + datasz;
	/* pivots hold the key columns only (EIFormPivot cuts INCLUDE columns) */
	hypo->pivotsz = MAXALIGN(MAXALIGN(sizeof(IndexTupleData) + datasz) +
							 sizeof(ItemPointerData));

	/*
	 * INCLUDE columns: in leaf entries only; compact leaves read them from
	 * the heap with the keys, so they change neither keylen nor whether
	 * leaves can be compact.
	 */
	foreach(lc, stmt->indexIncludingParams)
	{
		IndexElem  *elem = (IndexElem *) lfirst(lc);
		AttrNumber	attno;
		Form_pg_attribute att;

		if (i >= INDEX_MAX_KEYS)
			ereport(ERROR,
					(errcode(ERRCODE_TOO_MANY_COLUMNS),
					 errmsg("cannot use more than %d columns in an index",
							INDEX_MAX_KEYS)));
		if (elem->name == NULL)
			ereport(ERROR,
					(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
					 errmsg("expressions are not supported in included columns")));
		if (elem->opclass != NIL || elem->collation != NIL ||
			elem->ordering != SORTBY_DEFAULT ||
			elem->nulls_ordering != SORTBY_NULLS_DEFAULT)
			ereport(ERROR,
					(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
					 errmsg("including column does not support an operator class, a collation or ordering options")));
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
		hypo->indexkeys[i] = attno;
		hypo->atttypes[i] = att->atttypid;
		if (att->attlen > 0)
			datasz = att_align_nominal(datasz, att->attalign) + att->attlen;
		else
		{
			int32		width = get_attavgwidth(relid, attno);

			if (width <= 0)
				width = get_typavgwidth(att->atttypid, att->atttypmod);
			datasz += width;
		}
		appendStringInfo(colnames, "_%s", elem->name);
		i++;
	}
	hypo->ncolumns = i;
	hypo->itemsz = MAXALIGN(sizeof(IndexTupleData) + datasz);
	/* the reloption is read later; this says whether it may apply */
	hypo->dedup = allequalimage && hypo->ncolumns == hypo->nkeycolumns;
	if (varwidth)
		keylen = EI_NORMKEY_VARKEY_LEN;
	hypo->keylen = (compactable && keylen <= SEQTREE_MAX_KEYLEN) ? keylen : -1;
}

/*
 * elastic_index_hypothetical_create(definition text)
 *	returns table (indexrelid oid, indexname text)
 *
 * Make a hypothetical index from a CREATE INDEX statement using
 * elastic_btree or osm_tree: plain key columns, operator classes,
 * collations, ASC/DESC, NULLS FIRST/LAST, INCLUDE columns, WITH (...)
 * storage parameters.
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
	IndexAmRoutine *amroutine;
	EIHypoIndex *hypo;
	StringInfoData colnames;
	AclResult	aclresult;
	Datum		reloptions;
	bytea	   *opts;
	TupleDesc	tupdesc;
	Datum		values[2];
	bool		nulls[2] = {false, false};
	MemoryContext oldcxt;

	parsetree = raw_parser(sql, RAW_PARSE_DEFAULT);
	if (list_length(parsetree) != 1 ||
		!IsA(((RawStmt *) linitial(parsetree))->stmt, IndexStmt))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("hypothetical index definition must be one CREATE INDEX statement"),
				 errhint("For example: CREATE INDEX ON t USING elastic_btree (col)")));
	stmt = (IndexStmt *) ((RawStmt *) linitial(parsetree))->stmt;

	/* the access method: one whose handler is ours */
	hypo = palloc0(sizeof(EIHypoIndex));
	ei_hypo_set_name(hypo->amname,
					 stmt->accessMethod ? stmt->accessMethod : DEFAULT_INDEX_TYPE);
	amtup = SearchSysCache1(AMNAME, CStringGetDatum(hypo->amname));
	if (!HeapTupleIsValid(amtup))
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_OBJECT),
				 errmsg("access method \"%s\" does not exist", hypo->amname)));
	hypo->amoid = ((Form_pg_am) GETSTRUCT(amtup))->oid;
	amroutine = GetIndexAmRoutine(((Form_pg_am) GETSTRUCT(amtup))->amhandler);
	ReleaseSysCache(amtup);
	if (amroutine->amcostestimate != eicostestimate)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("access method \"%s\" is not one of elastic_index's",
						hypo->amname),
				 errhint("Use USING elastic_btree or USING osm_tree; HypoPG's hypopg_create_index() makes hypothetical indexes of the access methods it supports.")));
	hypo->osm = (amroutine->aminsert == osminsert);
	hypo->amcanorderbyop = amroutine->amcanorderbyop;
	hypo->amoptionalkey = amroutine->amoptionalkey;
	hypo->amsearcharray = amroutine->amsearcharray;
	hypo->amsearchnulls = amroutine->amsearchnulls;
	hypo->amhasgettuple = (amroutine->amgettuple != NULL);
	hypo->amhasgetbitmap = (amroutine->amgetbitmap != NULL);
	hypo->amcanparallel = amroutine->amcanparallel;
	hypo->amcanmarkpos = (amroutine->ammarkpos != NULL &&
						  amroutine->amrestrpos != NULL);
	hypo->amcanreturn = (amroutine->amcanreturn != NULL);
	hypo->amcostestimate = amroutine->amcostestimate;

	if (stmt->unique)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("access method \"%s\" does not support unique indexes",
						hypo->amname)));
	if (stmt->whereClause != NULL)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("hypothetical indexes of elastic_index support plain key columns only"),
				 errdetail("Partial indexes are not modelled.")));

	/* the table: one the caller may read */
	relid = RangeVarGetRelid(stmt->relation, AccessShareLock, false);
	heap = table_open(relid, NoLock);
	if (heap->rd_rel->relkind == RELKIND_PARTITIONED_TABLE)
		ereport(ERROR,
				(errcode(ERRCODE_WRONG_OBJECT_TYPE),
				 errmsg("hypothetical indexes on partitioned table \"%s\" are not supported",
						RelationGetRelationName(heap)),
				 errhint("Make one on each partition.")));
	if (heap->rd_rel->relkind != RELKIND_RELATION &&
		heap->rd_rel->relkind != RELKIND_MATVIEW)
		ereport(ERROR,
				(errcode(ERRCODE_WRONG_OBJECT_TYPE),
				 errmsg("\"%s\" is not a table or materialized view",
						RelationGetRelationName(heap))));
	aclresult = pg_class_aclcheck(relid, GetUserId(), ACL_SELECT);
	if (aclresult != ACLCHECK_OK)
		aclcheck_error(aclresult, get_relkind_objtype(heap->rd_rel->relkind),
					   RelationGetRelationName(heap));
	hypo->relid = relid;

	initStringInfo(&colnames);
	ei_hypo_set_columns(hypo, stmt, heap, &colnames);

	/* storage parameters, validated by the access method */
	reloptions = transformRelOptions((Datum) 0, stmt->options, NULL, NULL,
									 false, false);
	opts = amroutine->amoptions(reloptions, true);
	if (hypo->osm)
		hypo->fillfactor = (opts && ((OsmOptions *) opts)->fillfactor > 0) ?
			((OsmOptions *) opts)->fillfactor : osm_fill_factor;
	else
		hypo->fillfactor = opts ? ((EIElasticOptions *) opts)->fillfactor :
			EI_DEFAULT_FILLFACTOR;
	hypo->dedup = hypo->dedup &&
		(hypo->osm ? OsmOptionsDeduplicate((OsmOptions *) opts) :
		 EIElasticOptionsDeduplicate((EIElasticOptions *) opts)) != EI_DEDUP_OFF;
	hypo->compact_appends = hypo->osm && opts &&
		((OsmOptions *) opts)->compact_leaves;
	if (hypo->compact_appends && hypo->keylen < 0)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("a hypothetical osm_tree index on these columns cannot have compact leaves"),
				 errdetail("Compact leaves need normalized keys of plain columns."),
				 errhint("Set compact_leaves = off for this index.")));

	/* keep it for the session */
	if (ei_hypo_context == NULL)
		ei_hypo_context = AllocSetContextCreate(TopMemoryContext,
												"elastic_index hypothetical indexes",
												ALLOCSET_SMALL_SIZES);
	hypo->oid = ei_hypo_new_oid();
	if (stmt->idxname != NULL)
		ei_hypo_set_name(hypo->name,
						 psprintf("<%u>%s", hypo->oid, stmt->idxname));
	else
		ei_hypo_set_name(hypo->name,
						 psprintf("<%u>%s_%s%s", hypo->oid, hypo->amname,
								  RelationGetRelationName(heap), colnames.data));
	oldcxt = MemoryContextSwitchTo(ei_hypo_context);
	if (!hypo->osm && opts &&
		((EIElasticOptions *) opts)->size_bound_offset != 0)
		hypo->size_bound = pstrdup((char *) opts +
								   ((EIElasticOptions *) opts)->size_bound_offset);
	ei_hypo_indexes = lappend(ei_hypo_indexes,
							  memcpy(palloc(sizeof(EIHypoIndex)), hypo,
									 sizeof(EIHypoIndex)));
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
 * Estimate a hypothetical index over its table's size as the planner sees
 * it now (estimate_rel_size); false if the table no longer fits it.
 */
static bool
ei_hypo_estimate_now(EIHypoIndex *hypo, EIHypoEstimate *est)
{
	Relation	heap;
	BlockNumber pages;
	double		tuples;
	double		allvisfrac;

	if (!ei_hypo_is_current(hypo))
		return false;
	heap = try_relation_open(hypo->relid, AccessShareLock);
	if (heap == NULL)
		return false;
	estimate_rel_size(heap, NULL, &pages, &tuples, &allvisfrac);
	ei_hypo_estimate(hypo, tuples, pages, est);
	relation_close(heap, AccessShareLock);
	return true;
}

/*
 * elastic_index_hypothetical_list()
 *	returns setof (indexrelid oid, indexname text, relid regclass,
 *				   amname text, estimated_pages int8, estimated_bytes int8)
 *
 * The session's hypothetical indexes with their estimated size; NULL
 * estimates for one whose table, columns or access method are gone.
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
		EIHypoEstimate est;

		values[0] = ObjectIdGetDatum(hypo->oid);
		values[1] = CStringGetTextDatum(hypo->name);
		values[2] = ObjectIdGetDatum(hypo->relid);
		values[3] = CStringGetTextDatum(hypo->amname);
		if (ei_hypo_estimate_now(hypo, &est))
		{
			values[4] = Int64GetDatum((int64) est.total_pages);
			values[5] = Int64GetDatum((int64) est.total_pages * BLCKSZ);
		}
		else
			nulls[4] = nulls[5] = true;
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
	}
	return (Datum) 0;
}

/*
 * elastic_index_hypothetical_estimate(indexrelid oid)
 *	returns (entries, total_pages, estimated_bytes, inner_pages,
 *			 standard_leaves, compact_leaves, tree_height, size_bound_pages)
 *
 * The size model's figures for one hypothetical index: what the planner
 * is given for it.
 */
Datum
elastic_index_hypothetical_estimate(PG_FUNCTION_ARGS)
{
	Oid			oid = PG_GETARG_OID(0);
	EIHypoIndex *hypo = NULL;
	EIHypoEstimate est;
	ListCell   *lc;
	TupleDesc	tupdesc;
	Datum		values[8];
	bool		nulls[8] = {false};

	foreach(lc, ei_hypo_indexes)
		if (((EIHypoIndex *) lfirst(lc))->oid == oid)
			hypo = (EIHypoIndex *) lfirst(lc);
	if (hypo == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_OBJECT),
				 errmsg("this session has no hypothetical index with OID %u", oid),
				 errhint("elastic_index_hypothetical_list() shows them.")));
	if (!ei_hypo_estimate_now(hypo, &est))
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("hypothetical index \"%s\" no longer fits its table",
						hypo->name),
				 errdetail("Its table, one of its columns or its access method was dropped, or a column's type changed.")));

	if (get_call_result_type(fcinfo, NULL, &tupdesc) != TYPEFUNC_COMPOSITE)
		elog(ERROR, "return type must be a row type");
	tupdesc = BlessTupleDesc(tupdesc);
	values[0] = Int64GetDatum((int64) est.entries);
	values[1] = Int64GetDatum((int64) est.total_pages);
	values[2] = Int64GetDatum((int64) est.total_pages * BLCKSZ);
	values[3] = Int64GetDatum((int64) est.inner_pages);
	values[4] = Int64GetDatum((int64) est.standard_leaves);
	values[5] = Int64GetDatum((int64) est.compact_leaves);
	values[6] = Int32GetDatum(est.height);
	values[7] = Int64GetDatum(est.bound_pages);
	nulls[7] = (est.bound_pages < 0);
	PG_RETURN_DATUM(HeapTupleGetDatum(heap_form_tuple(tupdesc, values, nulls)));
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
			if (hypo->size_bound)
				pfree(hypo->size_bound);
			pfree(hypo);
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
	ei_hypo_indexes = NIL;
	if (ei_hypo_context != NULL)
		MemoryContextReset(ei_hypo_context);
	PG_RETURN_VOID();
}
