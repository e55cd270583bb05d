/*-------------------------------------------------------------------------
 *
 * sort.c
 *	  Sorting formed index entries in memory in the tree's order: by the key
 *	  columns as the operator classes order them, then by heap TID.
 *
 * CREATE INDEX sorts its entries here while they fit in
 * maintenance_work_mem (core/build.c), and a batch of inserted entries is
 * sorted here before it is applied leaf by leaf (osm/batch.c).  The first
 * key of every entry is cached, abbreviated where its type allows, as
 * tuplesort does.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/nbtree.h"
#include "catalog/pg_amop.h"
#include "eitree.h"
#include "miscadmin.h"
#include "utils/lsyscache.h"
#include "utils/regproc.h"
#include "utils/rel.h"
#include "utils/sortsupport.h"

/*
 * Prepare the sort support of every key column of an index.
 */
void
EIEntrySortInit(EIEntrySort *esort, Relation index)
{
	int			nkeys = IndexRelationGetNumberOfKeyAttributes(index);

	esort->index = index;
	esort->nkeys = nkeys;
	esort->sortkeys = palloc0(sizeof(SortSupportData) * nkeys);
	for (int i = 0; i < nkeys; i++)
	{
		SortSupport ssup = &esort->sortkeys[i];

		ssup->ssup_cxt = CurrentMemoryContext;
		ssup->ssup_collation = index->rd_indcollation[i];
		ssup->ssup_nulls_first =
			(index->rd_indoption[i] & INDOPTION_NULLS_FIRST) != 0;
		ssup->ssup_attno = i + 1;
		/* the first key is cached per entry, abbreviated where possible */
		ssup->abbreviate = (i == 0);
		PrepareSortSupportFromOrderingOp(EISortOperator(index, i), ssup);
	}
}

/*
 * Prepare comparisons of single entries (EIEntryCompare) in the tree's
 * order: like EIEntrySortInit, without abbreviated keys, in cxt.
 */
void
EIEntrySortInitCompare(EIEntrySort *esort, Relation index, MemoryContext cxt)
{
	MemoryContext oldcxt = MemoryContextSwitchTo(cxt);

	EIEntrySortInit(esort, index);
	for (int i = 0; i < esort->nkeys; i++)
	{
		SortSupport ssup = &esort->sortkeys[i];

		if (ssup->abbrev_converter != NULL)
		{
			/* start over without abbreviation */
			memset(ssup, 0, sizeof(SortSupportData));
			ssup->ssup_cxt = cxt;
			ssup->ssup_collation = index->rd_indcollation[i];
			ssup->ssup_nulls_first =
				(index->rd_indoption[i] & INDOPTION_NULLS_FIRST) != 0;
			ssup->ssup_attno = i + 1;
			ssup->abbreviate = false;
			PrepareSortSupportFromOrderingOp(EISortOperator(index, i), ssup);
		}
	}
	MemoryContextSwitchTo(oldcxt);
}

/*
 * Fill in a sort entry for a formed index tuple, caching its first key.
 */
void
EIEntrySortSet(EIEntrySort *esort, EISortEntry *entry, IndexTuple itup)
{
	SortSupport first = &esort->sortkeys[0];

	entry->itup = itup;
	entry->datum1 = index_getattr(itup, 1, RelationGetDescr(esort->index),
								  &entry->isnull1);
	if (first->abbrev_converter != NULL && !entry->isnull1)
		entry->datum1 = first->abbrev_converter(entry->datum1, first);
}

/*
 * Return the ordering operator that sorts one index column as the tree does.
 *
 * tuplesort only sorts by ordering operators, which it resolves through a
 * btree operator family.  Our operator classes use the same operators and
 * comparison functions as btree's, so the sort order is exactly the tree's
 * order; an operator class that breaks this is refused rather than allowed
 * to build a misordered tree.
 */
Oid
EISortOperator(Relation index, int attno)
{
	Oid			opfamily = index->rd_opfamily[attno];
	Oid			opcintype = index->rd_opcintype[attno];
	int16		strategy;
	Oid			sortop;
	Oid			btfamily;
	Oid			btintype;
	Oid			ourcmp;

	strategy = (index->rd_indoption[attno] & INDOPTION_DESC) ?
		BTGreaterStrategyNumber : BTLessStrategyNumber;
	sortop = get_opfamily_member(opfamily, opcintype, opcintype, strategy);
	if (!OidIsValid(sortop))
		elog(ERROR, "missing operator %d(%u,%u) in opfamily %u",
			 strategy, opcintype, opcintype, opfamily);

	ourcmp = get_opfamily_proc(opfamily, opcintype, opcintype, EI_CMP_PROC);
	if (EIOrderingOpStrategy(sortop, &btfamily, &btintype) == 0 ||
		get_opfamily_proc(btfamily, btintype, btintype, BTORDER_PROC) != ourcmp)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("cannot build index \"%s\" because the operator class of column %d does not sort like a btree operator class",
						RelationGetRelationName(index), attno + 1),
				 errdetail("Operator %s must also belong to a btree operator family whose comparison function is %s.",
						   format_operator(sortop), format_procedure(ourcmp))));

	return sortop;
}

/*
 * Order two formed entries whose cached first keys compare equal: by the
 * first key in full if the cached one is abbreviated, then by the other key
 * columns, then by heap TID.
 */
static int
ei_sort_compare_rest(const EISortEntry *ea, const EISortEntry *eb,
					  EIEntrySort *esort)
{
	TupleDesc	itupdesc = RelationGetDescr(esort->index);
	int			i;

	/* equal abbreviations say nothing: compare the first key in full */
	if (esort->sortkeys[0].abbrev_converter != NULL)
	{
		bool		nulla;
		bool		nullb;
		Datum		da = index_getattr(ea->itup, 1, itupdesc, &nulla);
		Datum		db = index_getattr(eb->itup, 1, itupdesc, &nullb);
		int			cmp;

		cmp = ApplySortAbbrevFullComparator(da, nulla, db, nullb,
											&esort->sortkeys[0]);
		if (cmp != 0)
			return cmp;
	}

	for (i = 1; i < esort->nkeys; i++)
	{
		bool		nulla;
		bool		nullb;
		Datum		da = index_getattr(ea->itup, i + 1, itupdesc, &nulla);
		Datum		db = index_getattr(eb->itup, i + 1, itupdesc, &nullb);
		int			cmp;

		cmp = ApplySortComparator(da, nulla, db, nullb, &esort->sortkeys[i]);
		if (cmp != 0)
			return cmp;
	}
	return ItemPointerCompare(&ea->itup->t_tid, &eb->itup->t_tid);
}

/*
 * Define an order of two formed entries as the tree orders them: the cached
 * first keys compared with APPLY (one of sortsupport.h's Apply*Comparator
 * functions), then the rest.  Each instance inlines its comparison into a
 * sort made from sort_template.h, as tuplesort specializes its own sorts.
 */
#define EI_BUILD_COMPARE(NAME, APPLY) \
static inline int \
NAME(const EISortEntry *ea, const EISortEntry *eb, EIEntrySort *esort) \
{ \
	int			cmp = APPLY(ea->datum1, ea->isnull1, eb->datum1, eb->isnull1, \
							&esort->sortkeys[0]); \
\
	return cmp != 0 ? cmp : ei_sort_compare_rest(ea, eb, esort); \
}

/* any first key, through its comparator function */
EI_BUILD_COMPARE(ei_sort_compare, ApplySortComparator)
/* first keys compared as signed 64-bit values (int8, timestamp, ...) */
EI_BUILD_COMPARE(ei_sort_compare_signed, ApplySignedSortComparator)
/* first keys compared as 32-bit integers (int4, date, ...) */
EI_BUILD_COMPARE(ei_sort_compare_int32, ApplyInt32SortComparator)
/* first keys compared as unsigned Datums (abbreviated text, uuid, ...) */
EI_BUILD_COMPARE(ei_sort_compare_unsigned, ApplyUnsignedSortComparator)

/*
 * Compare two entries set up by EIEntrySortSet in the tree's order: keys,
 * then heap TID.
 */
int
EIEntryCompare(EIEntrySort *esort, const EISortEntry *a, const EISortEntry *b)
{
	return ei_sort_compare(a, b, esort);
}

#define ST_SORT ei_sort_entries_unsigned
#define ST_ELEMENT_TYPE EISortEntry
#define ST_COMPARE(a, b, state) ei_sort_compare_unsigned(a, b, state)
#define ST_COMPARE_ARG_TYPE EIEntrySort
#define ST_CHECK_FOR_INTERRUPTS
#define ST_SCOPE static
#define ST_DEFINE
#include "lib/sort_template.h"

#define ST_SORT ei_sort_entries
#define ST_ELEMENT_TYPE EISortEntry
#define ST_COMPARE(a, b, state) ei_sort_compare(a, b, state)
#define ST_COMPARE_ARG_TYPE EIEntrySort
#define ST_CHECK_FOR_INTERRUPTS
#define ST_SCOPE static
#define ST_DEFINE
#include "lib/sort_template.h"

#define ST_SORT ei_sort_entries_signed
#define ST_ELEMENT_TYPE EISortEntry
#define ST_COMPARE(a, b, state) ei_sort_compare_signed(a, b, state)
#define ST_COMPARE_ARG_TYPE EIEntrySort
#define ST_CHECK_FOR_INTERRUPTS
#define ST_SCOPE static
#define ST_DEFINE
#include "lib/sort_template.h"

#define ST_SORT ei_sort_entries_int32
#define ST_ELEMENT_TYPE EISortEntry
#define ST_COMPARE(a, b, state) ei_sort_compare_int32(a, b, state)
#define ST_COMPARE_ARG_TYPE EIEntrySort
#define ST_CHECK_FOR_INTERRUPTS
#define ST_SCOPE static
#define ST_DEFINE
#include "lib/sort_template.h"

/*
 * The same four orders again as outlier sorts (src/lib/outliersort.h) over
 * the quicksorts above: a near-sorted array, as an osm_tree batch of a
 * near-sorted load is, costs about one comparison per entry in place.
 */
#define OS_ELEMENT_TYPE EISortEntry
#define OS_ARG_TYPE EIEntrySort
#define OS_ALLOC(sz) palloc_extended((sz), MCXT_ALLOC_HUGE)
#define OS_REALLOC(p, sz) repalloc_huge((p), (sz))
#define OS_FREE(p) pfree(p)
#define OS_CHECK_FOR_INTERRUPTS() CHECK_FOR_INTERRUPTS()
#define OS_SORT ei_outlier_sort_unsigned
#define OS_COMPARE(a, b, arg) ei_sort_compare_unsigned(a, b, arg)
#define OS_BASE_SORT(a, n, arg) ei_sort_entries_unsigned(a, n, arg)
#include "outliersort.h"

#define OS_SORT ei_outlier_sort_signed
#define OS_COMPARE(a, b, arg) ei_sort_compare_signed(a, b, arg)
#define OS_BASE_SORT(a, n, arg) ei_sort_entries_signed(a, n, arg)
#include "outliersort.h"

#define OS_SORT ei_outlier_sort_int32
#define OS_COMPARE(a, b, arg) ei_sort_compare_int32(a, b, arg)
#define OS_BASE_SORT(a, n, arg) ei_sort_entries_int32(a, n, arg)
#include "outliersort.h"

#define OS_SORT ei_outlier_sort
#define OS_COMPARE(a, b, arg) ei_sort_compare(a, b, arg)
#define OS_BASE_SORT(a, n, arg) ei_sort_entries(a, n, arg)
#include "outliersort.h"
#undef OS_ELEMENT_TYPE
#undef OS_ARG_TYPE
#undef OS_ALLOC
#undef OS_REALLOC
#undef OS_FREE
#undef OS_CHECK_FOR_INTERRUPTS

/*
 * Sort n entries in the tree's order, with a comparison specialized for the
 * first key's sort support where one applies.  Entries out of place are
 * set aside, sorted alone and merged back (src/lib/outliersort.h): at most
 * an eighth of the entries, kept in a second array; input far from sorted
 * is quicksorted after a short first pass.
 */
void
EIEntrySortRun(EIEntrySort *esort, EISortEntry *entries, int64 n)
{
	SortSupport first = &esort->sortkeys[0];

	if (first->comparator == ssup_datum_unsigned_cmp)
		(void) ei_outlier_sort_unsigned(entries, n, esort);
	else if (first->comparator == ssup_datum_signed_cmp)
		(void) ei_outlier_sort_signed(entries, n, esort);
	else if (first->comparator == ssup_datum_int32_cmp)
		(void) ei_outlier_sort_int32(entries, n, esort);
	else
		(void) ei_outlier_sort(entries, n, esort);
}
