/*-------------------------------------------------------------------------
 *
 * outliersort_pairs.h
 *	  The outlier sort of src/lib/outliersort.h instantiated on pairs (key,
 *	  position) ordered by key, then position, as the tree orders entries
 *	  by key, then heap TID; shared by its unit test and its fuzz target.
 *	  Defines pairs_outlier_sort and, for reference, pairs_qsort.
 *
 *-------------------------------------------------------------------------
 */
#ifndef OUTLIERSORT_PAIRS_H
#define OUTLIERSORT_PAIRS_H

#include <stdint.h>
#include <stdlib.h>

typedef struct PairEntry
{
	int64_t		key;
	int64_t		pos;
} PairEntry;

/* comparisons made so far, by either sort */
static long pair_comparisons = 0;

/* Order two entries by key, then position. */
static int
pair_compare(const PairEntry *a, const PairEntry *b, void *arg)
{
	pair_comparisons++;
	if (a->key != b->key)
		return a->key < b->key ? -1 : 1;
	if (a->pos != b->pos)
		return a->pos < b->pos ? -1 : 1;
	return 0;
}

/* qsort's comparator of the same order. */
static int
pair_qsort_compare(const void *a, const void *b)
{
	return pair_compare(a, b, NULL);
}

/* The reference sort, and the base sort the template falls back to. */
static void
pairs_qsort(PairEntry *a, size_t n, void *arg)
{
	qsort(a, n, sizeof(PairEntry), pair_qsort_compare);
}

#define OS_SORT pairs_outlier_sort
#define OS_ELEMENT_TYPE PairEntry
#define OS_ARG_TYPE void
#define OS_COMPARE(a, b, arg) pair_compare(a, b, arg)
#define OS_BASE_SORT(a, n, arg) pairs_qsort(a, n, arg)
#define OS_ALLOC(sz) malloc(sz)
#define OS_REALLOC(p, sz) realloc(p, sz)
#define OS_FREE(p) free(p)
#include "../../src/lib/outliersort.h"

#endif							/* OUTLIERSORT_PAIRS_H */
