/*-------------------------------------------------------------------------
 *
 * nearsort.c
 *	  Near-sorted sequences: generator and measure (see nearsort.h).
 *
 * src/lib/nearsort.c
 *
 *-------------------------------------------------------------------------
 */
#include "nearsort.h"

#include <stdlib.h>

/* One entry while the permutation is built: where it lands, and its key. */
typedef struct NearSortSlot
{
	int64_t		place;			/* 2 * position, +1 for a moved entry */
	uint64_t	tiebreak;		/* orders moved entries landing together */
	int64_t		key;
} NearSortSlot;

/*
 * splitmix64 step, used to expand a seed into the generator's state.
 */
static uint64_t
nearsort_splitmix(uint64_t *x)
{
	uint64_t	z = (*x += UINT64_C(0x9E3779B97F4A7C15));

	z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
	z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
	return z ^ (z >> 31);
}

/*
 * Rotate a 64-bit word left by k bits.
 */
static uint64_t
nearsort_rotl(uint64_t x, int k)
{
	return (x << k) | (x >> (64 - k));
}

/*
 * Seed the generator from one 64-bit value.
 */
void
nearsort_seed(NearSortRng *rng, uint64_t seed)
{
	for (int i = 0; i < 4; i++)
		rng->s[i] = nearsort_splitmix(&seed);
}

/*
 * Next 64 random bits (xoshiro256**).
 */
uint64_t
nearsort_next(NearSortRng *rng)
{
	uint64_t   *s = rng->s;
	uint64_t	result = nearsort_rotl(s[1] * 5, 7) * 9;
	uint64_t	t = s[1] << 17;

	s[2] ^= s[0];
	s[3] ^= s[1];
	s[1] ^= s[2];
	s[0] ^= s[3];
	s[2] ^= t;
	s[3] = nearsort_rotl(s[3], 45);
	return result;
}

/*
 * A uniform integer below bound, without modulo bias (rejection).
 */
uint64_t
nearsort_below(NearSortRng *rng, uint64_t bound)
{
	uint64_t	limit = UINT64_MAX - UINT64_MAX % bound;
	uint64_t	x;

	do
		x = nearsort_next(rng);
	while (x >= limit);
	return x % bound;
}

/*
 * Order slots by where they land (qsort comparator).
 */
static int
nearsort_slot_cmp(const void *a, const void *b)
{
	const NearSortSlot *x = (const NearSortSlot *) a;
	const NearSortSlot *y = (const NearSortSlot *) b;

	if (x->place != y->place)
		return (x->place > y->place) - (x->place < y->place);
	return (x->tiebreak > y->tiebreak) - (x->tiebreak < y->tiebreak);
}

/*
 * Build a (K, L) near-sorted permutation of 1..n in keys.
 *
 * Entry i (key i + 1) stays at place 2i unless it is one of the m = K% * n
 * entries chosen to move (a partial Fisher-Yates shuffle of the indexes
 * picks them); a moved entry gets place 2(i + d) + 1 with d a nonzero
 * offset in [-l, l], l = L% * n, clamped to the ends, so it lands just
 * after the unmoved entry i + d.  Sorting by place gives the sequence.
 */
int64_t
nearsort_generate(int64_t *keys, int64_t n, double k_percent,
				  double l_percent, uint64_t seed)
{
	NearSortRng rng;
	NearSortSlot *slots;
	int64_t    *pick;
	int64_t		m;
	int64_t		l;

	if (n < 0 || !(k_percent >= 0 && k_percent <= 100) ||
		!(l_percent >= 0 && l_percent <= 100))
		return -1;
	if (n == 0)
		return 0;

	m = (int64_t) (k_percent / 100.0 * (double) n + 0.5);
	l = (int64_t) (l_percent / 100.0 * (double) n + 0.5);
	if (l == 0 || n < 2)
		m = 0;					/* nowhere to move to */

	slots = malloc(sizeof(NearSortSlot) * (size_t) n);
	pick = malloc(sizeof(int64_t) * (size_t) n);
	if (slots == NULL || pick == NULL)
	{
		free(slots);
		free(pick);
		return -1;
	}

	nearsort_seed(&rng, seed);
	for (int64_t i = 0; i < n; i++)
	{
		slots[i].place = 2 * i;
		slots[i].tiebreak = 0;
		slots[i].key = i + 1;
		pick[i] = i;
	}

	for (int64_t j = 0; j < m; j++)
	{
		int64_t		r = j + (int64_t) nearsort_below(&rng, (uint64_t) (n - j));
		int64_t		i = pick[r];
		int64_t		d;
		int64_t		target;

		pick[r] = pick[j];
		pick[j] = i;

		/* a nonzero offset in [-l, l] */
		d = (int64_t) nearsort_below(&rng, (uint64_t) (2 * l)) - l;
		if (d >= 0)
			d++;
		target = i + d;
		if (target < 0)
			target = 0;
		if (target > n - 1)
			target = n - 1;
		if (target == i)
			target = (i > 0) ? i - 1 : i + 1;
		/* after the entry at target when moving right, before it when left */
		slots[i].place = (target > i) ? 2 * target + 1 : 2 * target - 1;
		slots[i].tiebreak = nearsort_next(&rng);
	}

	qsort(slots, (size_t) n, sizeof(NearSortSlot), nearsort_slot_cmp);
	for (int64_t i = 0; i < n; i++)
		keys[i] = slots[i].key;

	free(slots);
	free(pick);
	return m;
}

/*
 * Measure out-of-order entries (n minus the longest ascending subsequence,
 * by patience sorting in O(n log n)) and the largest displacement.
 */
int
nearsort_measure(const int64_t *ranks, int64_t n, int64_t *out_of_order,
				 int64_t *max_displacement)
{
	int64_t    *tails;
	int64_t		len = 0;
	int64_t		maxd = 0;

	tails = malloc(sizeof(int64_t) * (size_t) (n > 0 ? n : 1));
	if (tails == NULL)
		return -1;

	for (int64_t i = 0; i < n; i++)
	{
		int64_t		lo = 0;
		int64_t		hi = len;
		int64_t		d = ranks[i] - i;

		if (d < 0)
			d = -d;
		if (d > maxd)
			maxd = d;

		/* first tail >= ranks[i] */
		while (lo < hi)
		{
			int64_t		mid = lo + (hi - lo) / 2;

			if (tails[mid] < ranks[i])
				lo = mid + 1;
			else
				hi = mid;
		}
		tails[lo] = ranks[i];
		if (lo == len)
			len++;
	}

	free(tails);
	*out_of_order = n - len;
	*max_displacement = maxd;
	return 0;
}
