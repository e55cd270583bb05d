/*-------------------------------------------------------------------------
 *
 * outliersort.h
 *	  A sort for arrays that are sorted but for a few entries out of place:
 *	  set the out-of-place entries aside in one pass, sort only those, and
 *	  merge them back.
 *
 * An osm_tree batch holds the rows of a near-sorted load in arrival order:
 * with K% of the rows out of place, the rest already ascend.  A quicksort
 * pays about log2(n) comparisons per entry for that; this sort pays about
 * one for an entry in place, a few for an entry out of place, and the
 * quicksort of the entries set aside, which are about K% of them.
 *
 * The pass keeps a list of kept entries in ascending order at the front of
 * the array.  An entry not smaller than the last kept one is kept.  An
 * entry x smaller than it is either out of place itself, arriving late
 * (then many kept entries exceed it), or follows kept entries that arrived
 * early (a few large ones, the last kept): when at most OS_EVICT of the
 * last kept entries exceed x, those are set aside and x is kept, else x is
 * set aside.  Either way the kept list stays ascending, so the result is
 * sorted whatever the input; only the number of entries set aside depends
 * on how near to sorted the input is.  Evicting handles runs of up to
 * OS_EVICT early entries in a row, which a rule that only looks at the
 * last kept entry (or only at the next entry) does not: a single early
 * entry kept by mistake would send every later entry smaller than it
 * aside.
 *
 * When the entries set aside pass an eighth of the array, or half of the
 * entries seen once 4096 have been (input far from sorted: on random input
 * nearly every entry goes aside), the pass stops, puts the set-aside
 * entries back, and the whole array is sorted by the base sort; on random
 * input that costs at most OS_EVICT + 1 comparisons per entry of the first
 * 4096.  (The first thousands are not judged alone: a batch may begin with
 * a pile of entries moved early from all over it.)  The extra memory is the
 * set-aside list: at most an eighth of the array, grown as needed.
 *
 * This is a template, instantiated like PostgreSQL's lib/sort_template.h:
 *
 *	#define OS_SORT name of the function to define
 *	#define OS_ELEMENT_TYPE the array's element type
 *	#define OS_COMPARE(a, b, arg) compare two elements (pointers); < 0, 0, > 0
 *	#define OS_ARG_TYPE type of the comparator's and base sort's argument
 *	#define OS_BASE_SORT(array, n, arg) a sort of the same order
 *	#define OS_ALLOC(bytes), OS_REALLOC(ptr, bytes), OS_FREE(ptr)
 *	#define OS_CHECK_FOR_INTERRUPTS() optional, called every 1024 entries
 *	#include "outliersort.h"
 *
 * OS_SORT, OS_COMPARE and OS_BASE_SORT are undefined at the end, the rest
 * stay defined for further instances (undefine them after the last), and
 * each instance defines
 *
 *	static int64_t OS_SORT(OS_ELEMENT_TYPE *a, size_t n, OS_ARG_TYPE *arg)
 *
 * sorting a[0..n) and returning the number of entries set aside, or -1
 * when it fell back to the base sort over the whole array.  It depends on
 * nothing but the C library, so the unit tests and the fuzzer instantiate
 * it on plain integers.
 *
 * Unlike a quicksort, which only swaps, the pass leaves a[] no permutation
 * of its input while entries are set aside (they are in the list only, and
 * the slots they left hold stale copies): an error thrown by
 * OS_CHECK_FOR_INTERRUPTS, OS_ALLOC or OS_REALLOC leaves a[] with entries
 * missing and others twice.  A caller must not use the array after such
 * an error; none does (a build, a batch, a buffer flush and a scan each
 * sort an array of their own that the error discards).
 *
 * src/lib/outliersort.h
 *
 *-------------------------------------------------------------------------
 */

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#ifndef OS_EVICT
/* most kept entries one smaller entry may send aside */
#define OS_EVICT 8
#endif

#ifndef OS_CHECK_FOR_INTERRUPTS
#define OS_CHECK_FOR_INTERRUPTS() ((void) 0)
#endif

/*
 * Sort a[0..n) in OS_COMPARE's order; return how many entries were set
 * aside, or -1 if the input was too far from sorted and the base sort did
 * all of it.
 */
static int64_t
OS_SORT(OS_ELEMENT_TYPE *a, size_t n, OS_ARG_TYPE *arg)
{
	size_t		limit = n / 8;	/* most entries set aside */
	size_t		cap = 0;		/* allocated length of side */
	OS_ELEMENT_TYPE *side = NULL;
	size_t		nkept = 0;		/* a[0..nkept): kept, ascending */
	size_t		nside = 0;

	if (n < 64)
	{
		OS_BASE_SORT(a, n, arg);
		return -1;
	}

	for (size_t i = 0; i < n; i++)
	{
		OS_ELEMENT_TYPE x = a[i];	/* nkept + nside == i: slot i is free */
		size_t		nout;		/* entries that go aside for x */
		size_t		k;

		if ((i & 1023) == 0)
		{
			OS_CHECK_FOR_INTERRUPTS();
			if (i >= 4096 && nside * 2 > i)
				goto fallback;
		}

		if (nkept == 0 || OS_COMPARE(&a[nkept - 1], &x, arg) <= 0)
		{
			a[nkept++] = x;
			continue;
		}

		/* k: how many of the last kept entries exceed x, up to OS_EVICT + 1 */
		k = 1;
		while (k < nkept && k <= OS_EVICT &&
			   OS_COMPARE(&a[nkept - 1 - k], &x, arg) > 0)
			k++;
		nout = (k <= OS_EVICT) ? k : 1;

		if (nside + nout > limit)
			goto fallback;
		if (nside + nout > cap)
		{
			size_t		newcap = cap == 0 ? 256 : cap * 2;

			while (newcap < nside + nout)
				newcap *= 2;
			if (newcap > limit)
				newcap = limit;
			side = (side == NULL) ?
				(OS_ELEMENT_TYPE *) OS_ALLOC(newcap * sizeof(OS_ELEMENT_TYPE)) :
				(OS_ELEMENT_TYPE *) OS_REALLOC(side, newcap * sizeof(OS_ELEMENT_TYPE));
			cap = newcap;
		}

		if (k <= OS_EVICT)
		{
			/* the last k kept entries arrived early: set them aside */
			memcpy(side + nside, a + nkept - k, k * sizeof(OS_ELEMENT_TYPE));
			nside += k;
			nkept -= k;
			a[nkept++] = x;
		}
		else
			side[nside++] = x;	/* x arrived late */
	}

	/* sort the set-aside entries and merge them in from the back */
	if (nside > 0)
	{
		size_t		out = n;
		size_t		ik = nkept;
		size_t		is = nside;

		OS_BASE_SORT(side, nside, arg);
		while (is > 0)
		{
			if (ik > 0 && OS_COMPARE(&a[ik - 1], &side[is - 1], arg) > 0)
				a[--out] = a[--ik];
			else
				a[--out] = side[--is];
		}
	}
	if (side != NULL)
		OS_FREE(side);
	return (int64_t) nside;

fallback:
	/* put the set-aside entries into the free slots and sort everything */
	if (nside > 0)
		memcpy(a + nkept, side, nside * sizeof(OS_ELEMENT_TYPE));
	if (side != NULL)
		OS_FREE(side);
	OS_BASE_SORT(a, n, arg);
	return -1;
}

/* the types and memory functions stay defined for further instances */
#undef OS_SORT
#undef OS_COMPARE
#undef OS_BASE_SORT
