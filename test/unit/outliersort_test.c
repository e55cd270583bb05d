/*-------------------------------------------------------------------------
 *
 * outliersort_test.c
 *	  Unit tests of the outlier sort template, src/lib/outliersort.h.
 *
 * Stand-alone program; exits 0 when every check passes.  The template is
 * instantiated on pairs (key, position) ordered by key, then position, as
 * the tree orders entries by key, then heap TID (outliersort_pairs.h).  For every input the
 * result must equal qsort's: sorted arrays, arrays sorted but for a run
 * of entries moved early or late, near-sorted permutations from the
 * generator of nearsort.c over a grid of K and L, descending and random
 * arrays, arrays of one key (the positions order them), and sizes around
 * the thresholds (64 and 4096 entries).  Beyond the result it checks
 * the work: a near-sorted array of K% moved entries sets at most 3K% + 1%
 * aside and never falls back, and a random one falls back.
 *
 *-------------------------------------------------------------------------
 */
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../src/lib/nearsort.h"
#include "outliersort_pairs.h"

static long failures = 0;
static long checks = 0;

/* Record one check; print the message of a failing one. */
static void
check(bool ok, const char *what, size_t n, int64_t got, int64_t want)
{
	checks++;
	if (!ok)
	{
		failures++;
		if (failures <= 20)
			printf("FAIL %s (n=%zu): got %" PRId64 ", want %" PRId64 "\n",
				   what, n, got, want);
	}
}

/*
 * Sort a copy of keys[0..n) both ways and compare; return what the outlier
 * sort returned (entries set aside, or -1).
 */
static int64_t
sort_and_compare(const char *what, const int64_t *keys, size_t n)
{
	PairEntry  *a = malloc(sizeof(PairEntry) * (n > 0 ? n : 1));
	PairEntry  *b = malloc(sizeof(PairEntry) * (n > 0 ? n : 1));
	int64_t		result;
	size_t		bad = n;

	for (size_t i = 0; i < n; i++)
	{
		a[i].key = keys[i];
		a[i].pos = (int64_t) i;
	}
	memcpy(b, a, sizeof(PairEntry) * n);
	result = pairs_outlier_sort(a, n, NULL);
	pairs_qsort(b, n, NULL);
	for (size_t i = 0; i < n && bad == n; i++)
		if (a[i].key != b[i].key || a[i].pos != b[i].pos)
			bad = i;
	check(bad == n, what, n, (int64_t) bad, (int64_t) n);
	free(a);
	free(b);
	return result;
}

/* Sorted arrays, with and without runs of entries moved early or late. */
static void
test_shapes(void)
{
	static const size_t sizes[] = {0, 1, 2, 63, 64, 65, 1000, 1023, 1024,
	1025, 4095, 4096, 5000, 100000};

	for (int s = 0; s < (int) (sizeof(sizes) / sizeof(sizes[0])); s++)
	{
		size_t		n = sizes[s];
		int64_t    *keys = malloc(sizeof(int64_t) * (n + 1));
		int64_t		r;

		for (size_t i = 0; i < n; i++)
			keys[i] = (int64_t) i;
		r = sort_and_compare("sorted", keys, n);
		if (n >= 64)
			check(r == 0, "sorted: nothing set aside", n, r, 0);

		/* descending */
		for (size_t i = 0; i < n; i++)
			keys[i] = (int64_t) (n - i);
		r = sort_and_compare("descending", keys, n);
		if (n >= 4096)
			check(r == -1, "descending: falls back", n, r, -1);

		/* one key: the positions order the entries */
		for (size_t i = 0; i < n; i++)
			keys[i] = 7;
		r = sort_and_compare("one key", keys, n);
		if (n >= 64)
			check(r == 0, "one key: nothing set aside", n, r, 0);

		/* runs of 1..12 large keys placed early, every 50 entries */
		for (int run = 1; run <= 12 && n >= 100; run++)
		{
			for (size_t i = 0; i < n; i++)
				keys[i] = (int64_t) i;
			for (size_t i = 10; i + run < n; i += 50)
				for (int j = 0; j < run; j++)
					keys[i + j] = (int64_t) (i + j + 1000 + n / 3);
			r = sort_and_compare("early runs", keys, n);
			/*
			 * only the moved ones are set aside while they are under the
			 * limit, an eighth of the array (a run of 6 every 50 is not)
			 */
			if (run <= 5 && n >= 1024)
				check(r >= 0 && r <= (int64_t) (n / 50 + 1) * run,
					  "early runs: only the moved entries set aside", n, r,
					  (int64_t) (n / 50 + 1) * run);
		}

		/* runs of small keys placed late */
		for (int run = 1; run <= 12 && n >= 100; run++)
		{
			for (size_t i = 0; i < n; i++)
				keys[i] = (int64_t) i + 1000;
			for (size_t i = 10; i + run < n; i += 50)
				for (int j = 0; j < run; j++)
					keys[i + j] = (int64_t) (i + j) / 2;
			r = sort_and_compare("late runs", keys, n);
			if (run <= 5 && n >= 1024)
				check(r >= 0 && r <= (int64_t) (n / 50 + 1) * run,
					  "late runs: only the moved entries set aside", n, r,
					  (int64_t) (n / 50 + 1) * run);
		}
		free(keys);
	}
}

/* Near-sorted permutations over a grid of K and L, and random ones. */
static void
test_near_sorted(void)
{
	static const double kl[][2] = {{0, 0}, {1, 1}, {5, 5}, {5, 50}, {10, 1},
	{10, 10}, {20, 20}, {50, 50}, {100, 100}};
	const int64_t n = 100000;
	int64_t    *keys = malloc(sizeof(int64_t) * n);
	NearSortRng rng;

	for (int g = 0; g < (int) (sizeof(kl) / sizeof(kl[0])); g++)
	{
		double		k = kl[g][0];
		double		l = kl[g][1];
		int64_t		r;
		long		before;

		nearsort_generate(keys, n, k, l, 1000 + g);
		before = pair_comparisons;
		r = sort_and_compare("near-sorted", keys, (size_t) n);
		if (k <= 10)
		{
			int64_t		most = (int64_t) (n * (3 * k + 1) / 100);

			check(r >= 0 && r <= most, "near-sorted: few set aside",
				  (size_t) n, r, most);
		}
		if (k == 100)
			check(r == -1, "scrambled: falls back", (size_t) n, r, -1);
		if (k == 5 && l == 5)
			printf("K=%g L=%g, n=%" PRId64 ": %" PRId64 " set aside, %ld comparisons (with qsort's check)\n",
				   k, l, n, r, pair_comparisons - before);
	}

	/* random keys with many repeats */
	nearsort_seed(&rng, 7);
	for (int round = 0; round < 200; round++)
	{
		size_t		m = (size_t) nearsort_below(&rng, 3000);

		for (size_t i = 0; i < m; i++)
			keys[i] = (int64_t) nearsort_below(&rng, 1 + round);
		(void) sort_and_compare("random", keys, m);
	}
	free(keys);
}

int
main(void)
{
	test_shapes();
	test_near_sorted();
	printf("%ld checks, %ld failures\n", checks, failures);
	return failures == 0 ? 0 : 1;
}
