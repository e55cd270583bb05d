/*-------------------------------------------------------------------------
 *
 * nearsort.h
 *	  Near-sorted sequences: a deterministic generator of K-L near-sorted
 *	  permutations and the measure of a sequence's K and L.
 *
 * K-L sortedness (Ben-Moshe et al., ICDT 2011; the measure used by the
 * sortedness-aware index papers and their BoDS benchmark): a sequence of N
 * entries is (K, L)-sorted when removing K entries leaves it sorted and no
 * entry is more than L positions away from its place in sorted order.
 * Here both are given as percentages of N.
 *
 * The generator starts from the keys 1..N in order, picks K% of the
 * entries at random and moves each one to a random position at most L% of
 * N away (at least one position), keeping the order of all other entries.
 * A moved entry lands between two unmoved ones, so each moved entry is out
 * of order and the unmoved ones stay sorted: N minus the longest ascending
 * subsequence is the number of moved entries, up to the few that land in
 * order by chance.  Displacements are at most L% of N plus the number of
 * moved entries crossing the same stretch, which is small unless K is
 * large.  K = L = 0 gives 1..N, K = L = 100 a thorough shuffle.
 *
 * Everything is deterministic for a given seed (xoshiro256** seeded by
 * splitmix64), independent of the platform's random().
 *
 * This file depends on nothing but the C library; it is compiled into the
 * server and into the stand-alone unit tests.
 *
 * src/lib/nearsort.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef NEARSORT_H
#define NEARSORT_H

#include <stddef.h>
#include <stdint.h>

/* State of the pseudo-random generator. */
typedef struct NearSortRng
{
	uint64_t	s[4];
} NearSortRng;

/* Seed the generator (any seed, including 0). */
extern void nearsort_seed(NearSortRng *rng, uint64_t seed);

/* Next 64 random bits. */
extern uint64_t nearsort_next(NearSortRng *rng);

/* A uniform integer in [0, bound) (bound > 0). */
extern uint64_t nearsort_below(NearSortRng *rng, uint64_t bound);

/*
 * Fill keys[0..n-1] with a (K, L) near-sorted permutation of 1..n, K and L
 * in percent (0..100).  Returns the number of entries moved, or -1 if n or
 * the percentages are out of range or memory runs out.
 */
extern int64_t nearsort_generate(int64_t *keys, int64_t n, double k_percent,
								 double l_percent, uint64_t seed);

/*
 * Measure a sequence of n distinct ranks (a permutation of 0..n-1, in
 * sequence order): *out_of_order is n minus the length of its longest
 * ascending subsequence (the K of K-L sortedness), *max_displacement the
 * largest |rank - position| (the L).  Returns 0, or -1 if memory runs out.
 */
extern int	nearsort_measure(const int64_t *ranks, int64_t n,
							 int64_t *out_of_order, int64_t *max_displacement);

#endif							/* NEARSORT_H */
