/*-------------------------------------------------------------------------
 *
 * nearsort_test.c
 *	  Unit tests of the near-sorted sequence generator and measure of
 *	  nearsort.c.
 *
 * Stand-alone program, linked with the sources in src/lib; exits 0 when
 * every check passes.  For a grid of sizes and (K, L) settings it checks
 * that the generator returns a permutation of 1..n, that the same seed
 * gives the same sequence and another seed another one, that the measured
 * K (n minus the longest ascending subsequence) is within 10% of the
 * requested share (it can only be lower: a moved entry may land in order
 * by chance; checked from 1000 entries on) and never above the number of
 * moved entries, and that the
 * measured L stays within the requested displacement plus a small margin
 * and reaches at least 90% of it.  The measure itself is checked against
 * a quadratic reference on small random permutations.
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

static long failures = 0;
static long checks = 0;

/* Record one check; print the message of a failing one. */
static void
check(bool ok, const char *what, int64_t n, double k, double l, int64_t got,
	  int64_t want)
{
	checks++;
	if (!ok)
	{
		failures++;
		if (failures <= 20)
			printf("FAIL %s (n=%" PRId64 " K=%g L=%g): got %" PRId64 ", want %" PRId64 "\n",
				   what, n, k, l, got, want);
	}
}

/* Longest ascending subsequence by the quadratic method (reference). */
static int64_t
reference_lis(const int64_t *a, int64_t n)
{
	int64_t    *best = malloc(sizeof(int64_t) * (size_t) (n > 0 ? n : 1));
	int64_t		result = 0;

	for (int64_t i = 0; i < n; i++)
	{
		best[i] = 1;
		for (int64_t j = 0; j < i; j++)
			if (a[j] < a[i] && best[j] + 1 > best[i])
				best[i] = best[j] + 1;
		if (best[i] > result)
			result = best[i];
	}
	free(best);
	return result;
}

/* The measure agrees with the reference on small random permutations. */
static void
test_measure(void)
{
	NearSortRng rng;

	nearsort_seed(&rng, 42);
	for (int round = 0; round < 300; round++)
	{
		int64_t		n = 1 + (int64_t) nearsort_below(&rng, 60);
		int64_t    *a = malloc(sizeof(int64_t) * (size_t) n);
		int64_t		ooo;
		int64_t		maxd;
		int64_t		refd = 0;

		for (int64_t i = 0; i < n; i++)
			a[i] = i;
		for (int64_t i = n - 1; i > 0; i--)
		{
			int64_t		j = (int64_t) nearsort_below(&rng, (uint64_t) i + 1);
			int64_t		t = a[i];

			a[i] = a[j];
			a[j] = t;
		}
		for (int64_t i = 0; i < n; i++)
		{
			int64_t		d = a[i] > i ? a[i] - i : i - a[i];

			if (d > refd)
				refd = d;
		}
		nearsort_measure(a, n, &ooo, &maxd);
		check(ooo == n - reference_lis(a, n), "measure K", n, 0, 0, ooo,
			  n - reference_lis(a, n));
		check(maxd == refd, "measure L", n, 0, 0, maxd, refd);
		free(a);
	}
}

/* One generator setting: permutation, determinism, measured K and L. */
static void
test_generate(int64_t n, double k, double l)
{
	int64_t    *keys = malloc(sizeof(int64_t) * (size_t) n);
	int64_t    *again = malloc(sizeof(int64_t) * (size_t) n);
	int64_t    *ranks = malloc(sizeof(int64_t) * (size_t) n);
	char	   *seen = calloc((size_t) n, 1);
	int64_t		moved = nearsort_generate(keys, n, k, l, 7);
	int64_t		want_moved = (int64_t) (k / 100.0 * n + 0.5);
	int64_t		want_l = (int64_t) (l / 100.0 * n + 0.5);
	int64_t		ooo;
	int64_t		maxd;
	bool		perm = true;

	if (want_l == 0 || n < 2)
		want_moved = 0;
	check(moved == want_moved, "entries moved", n, k, l, moved, want_moved);
	for (int64_t i = 0; i < n; i++)
	{
		if (keys[i] < 1 || keys[i] > n || seen[keys[i] - 1])
			perm = false;
		else
			seen[keys[i] - 1] = 1;
		ranks[i] = keys[i] - 1;
	}
	check(perm, "permutation of 1..n", n, k, l, perm, 1);

	nearsort_generate(again, n, k, l, 7);
	check(memcmp(keys, again, sizeof(int64_t) * (size_t) n) == 0,
		  "same seed, same sequence", n, k, l, 0, 0);
	if (want_moved > 10)
	{
		nearsort_generate(again, n, k, l, 8);
		check(memcmp(keys, again, sizeof(int64_t) * (size_t) n) != 0,
			  "other seed, other sequence", n, k, l, 0, 0);
	}

	nearsort_measure(ranks, n, &ooo, &maxd);
	check(ooo <= want_moved, "measured K at most the moved entries", n, k, l,
		  ooo, want_moved);
	/* a few entries in a short sequence may land in order by chance */
	if (n >= 1000)
		check(ooo >= want_moved * 0.9, "measured K within 10%", n, k, l, ooo,
			  want_moved);
	if (k <= 25)
	{
		/* moved entries crossing the same stretch add a few positions */
		int64_t		slack = (int64_t) (want_l * k / 100.0 * 4) + 2;

		check(maxd <= want_l + slack, "measured L at most L plus slack", n, k,
			  l, maxd, want_l + slack);
		if (want_moved >= 50)
			check(maxd >= want_l * 0.9, "measured L within 10%", n, k, l, maxd,
				  want_l);
	}
	if (k == 0 || l == 0)
		check(ooo == 0 && maxd == 0, "sorted when K or L is 0", n, k, l,
			  ooo + maxd, 0);

	free(keys);
	free(again);
	free(ranks);
	free(seen);
}

/* Run every test and report. */
int
main(void)
{
	static const double settings[][2] = {
		{0, 0}, {0, 5}, {5, 0}, {1, 1}, {5, 5}, {10, 1}, {1, 10},
		{25, 25}, {50, 10}, {100, 100}
	};
	static const int64_t sizes[] = {1, 2, 10, 1000, 100000};

	test_measure();
	for (size_t s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++)
		for (size_t i = 0; i < sizeof(settings) / sizeof(settings[0]); i++)
			test_generate(sizes[s], settings[i][0], settings[i][1]);

	printf("%ld checks, %ld failures\n", checks, failures);
	return failures == 0 ? 0 : 1;
}
