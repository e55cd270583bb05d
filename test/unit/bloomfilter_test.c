/*-------------------------------------------------------------------------
 *
 * bloomfilter_test.c
 *	  Unit tests of the Bloom filter and hash of bloomfilter.c.
 *
 * Stand-alone program, linked with the sources in src/lib; exits 0 when
 * every check passes.  It checks that the hash gives fixed known answers
 * (computed once, and cross-checked against an independent
 * reimplementation), that its output bits are balanced and its buckets
 * even (chi-square) for sequential integers and for strings sharing a long
 * prefix, and that flipping one input bit flips about half the output
 * bits; that bloom_filter_bytes and bloom_filter_nprobes handle their edge
 * cases; that the probes are exactly the bits (h1 + i * h2) mod nbits; that
 * a filter never forgets a key (random keys of length 0..64, including the
 * empty key and keys sharing long prefixes, for many sizes, key counts and
 * bits per key 1..20); and that the false-positive rate on 100000 absent
 * keys is at most 1.5 times the theoretical (1 - e^(-k n / m))^k plus
 * 0.002.  All randomness comes from the seeded generator of nearsort.c, so
 * every run is the same.
 *
 *-------------------------------------------------------------------------
 */
#include <inttypes.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../src/lib/bloomfilter.h"
#include "../../src/lib/nearsort.h"

/* Longest random key. */
#define MAX_KEY_LEN 64

/* Keys hashed by the distribution tests. */
#define NKEYS 200000

/* Absent keys probed by the false-positive test. */
#define NABSENT 100000

static long failures = 0;
static long checks = 0;

/* Record one check; print the message of a failing one. */
static void
check(bool ok, const char *what, uint64_t got, uint64_t want)
{
	checks++;
	if (!ok)
	{
		failures++;
		if (failures <= 20)
			printf("FAIL %s: got %" PRIu64 " (0x%016" PRIx64 "), want %" PRIu64
				   " (0x%016" PRIx64 ")\n", what, got, got, want, want);
	}
}

/* Record one check of a real number against a bound. */
static void
check_at_most(double got, double bound, const char *what)
{
	checks++;
	if (!(got <= bound))
	{
		failures++;
		if (failures <= 20)
			printf("FAIL %s: got %g, want at most %g\n", what, got, bound);
	}
}

/* The hash gives the known answers (fixed once; the format is on disk). */
static void
test_hash_known_answers(void)
{
	static const uint8_t int8[8] = {0xef, 0xcd, 0xab, 0x89, 0x67, 0x45, 0x23, 0x01};
	static const char fox[] = "The quick brown fox jumps over the lazy dog";
	uint8_t		copy[64 + 8];

	check(bloom_hash("", 0) == UINT64_C(0x9ca066f1a4ab2eea), "hash of \"\"",
		  bloom_hash("", 0), UINT64_C(0x9ca066f1a4ab2eea));
	check(bloom_hash(NULL, 0) == UINT64_C(0x9ca066f1a4ab2eea), "hash of NULL, 0",
		  bloom_hash(NULL, 0), UINT64_C(0x9ca066f1a4ab2eea));
	check(bloom_hash("abc", 3) == UINT64_C(0xd7dd46ac1c9f78d8), "hash of \"abc\"",
		  bloom_hash("abc", 3), UINT64_C(0xd7dd46ac1c9f78d8));
	/* 0x0123456789abcdef as 8 little-endian bytes */
	check(bloom_hash(int8, 8) == UINT64_C(0xf8d45868e67cdb21),
		  "hash of an 8-byte integer", bloom_hash(int8, 8),
		  UINT64_C(0xf8d45868e67cdb21));
	check(bloom_hash(fox, strlen(fox)) == UINT64_C(0x59cc30df58fb126b),
		  "hash of the fox", bloom_hash(fox, strlen(fox)),
		  UINT64_C(0x59cc30df58fb126b));

	/* the same at every alignment (no unaligned word reads) */
	for (int off = 0; off < 8; off++)
	{
		memcpy(copy + off, fox, strlen(fox));
		check(bloom_hash(copy + off, strlen(fox)) == UINT64_C(0x59cc30df58fb126b),
			  "hash of the fox at any alignment", (uint64_t) off, 0);
	}

	/* a trailing zero byte changes the hash (the length is mixed in) */
	check(bloom_hash("a", 1) != bloom_hash("a\0", 2), "\"a\" vs \"a\\0\"",
		  bloom_hash("a", 1), bloom_hash("a\0", 2));
	check(bloom_hash("", 0) != bloom_hash("\0", 1), "\"\" vs \"\\0\"",
		  bloom_hash("", 0), bloom_hash("\0", 1));
}

/*
 * Bit balance and chi-square of nkeys hashes (hashes[]): every output bit
 * is set in 50% +- 1% of them, and the low and high 10 bits fill 1024
 * buckets evenly.
 */
static void
check_distribution(const uint64_t *hashes, int nkeys, const char *what)
{
	long		ones[64] = {0};
	long		low[1024] = {0};
	long		high[1024] = {0};
	double		expect = nkeys / 1024.0;
	double		chi_low = 0;
	double		chi_high = 0;
	double		worst = 0;
	char		msg[200];

	for (int i = 0; i < nkeys; i++)
	{
		for (int b = 0; b < 64; b++)
			ones[b] += (hashes[i] >> b) & 1;
		low[hashes[i] & 1023]++;
		high[hashes[i] >> 54]++;
	}
	for (int b = 0; b < 64; b++)
	{
		double		share = (double) ones[b] / nkeys;

		if (fabs(share - 0.5) > worst)
			worst = fabs(share - 0.5);
	}
	snprintf(msg, sizeof(msg), "%s: bit balance, worst |share - 0.5|", what);
	check_at_most(worst, 0.01, msg);
	for (int i = 0; i < 1024; i++)
	{
		chi_low += (low[i] - expect) * (low[i] - expect) / expect;
		chi_high += (high[i] - expect) * (high[i] - expect) / expect;
	}
	/* 1023 degrees of freedom: mean 1023, standard deviation about 45 */
	snprintf(msg, sizeof(msg), "%s: chi-square of the low 10 bits", what);
	check_at_most(chi_low, 1023 + 6 * 45, msg);
	snprintf(msg, sizeof(msg), "%s: chi-square of the high 10 bits", what);
	check_at_most(chi_high, 1023 + 6 * 45, msg);
	printf("hash distribution, %s: worst bit %.4f off 0.5, chi-square %.0f (low), %.0f (high), 1023 expected\n",
		   what, worst, chi_low, chi_high);
}

/* The hash spreads poorly distributed inputs well. */
static void
test_hash_distribution(void)
{
	uint64_t   *hashes = malloc(sizeof(uint64_t) * NKEYS);
	NearSortRng rng;
	double		flips = 0;
	int			trials = 0;

	/* sequential 8-byte little-endian integers */
	for (int i = 0; i < NKEYS; i++)
	{
		uint8_t		buf[8];

		for (int j = 0; j < 8; j++)
			buf[j] = (uint8_t) ((uint64_t) i >> (8 * j));
		hashes[i] = bloom_hash(buf, 8);
	}
	check_distribution(hashes, NKEYS, "sequential int8");

	/* decimal strings after a 40-byte common prefix */
	for (int i = 0; i < NKEYS; i++)
	{
		char		buf[80];
		int			len = snprintf(buf, sizeof(buf),
								   "a-long-common-prefix-shared-by-all-keys-%d", i);

		hashes[i] = bloom_hash(buf, (size_t) len);
	}
	check_distribution(hashes, NKEYS, "long common prefix");

	/* avalanche: one flipped input bit flips about 32 output bits */
	nearsort_seed(&rng, 1);
	for (int round = 0; round < 2000; round++)
	{
		uint8_t		buf[MAX_KEY_LEN];
		size_t		len = 1 + (size_t) nearsort_below(&rng, MAX_KEY_LEN);
		uint64_t	h;

		for (size_t j = 0; j < len; j++)
			buf[j] = (uint8_t) nearsort_next(&rng);
		h = bloom_hash(buf, len);
		for (size_t bit = 0; bit < len * 8; bit += 3)
		{
			buf[bit / 8] ^= (uint8_t) (1u << (bit % 8));
			flips += __builtin_popcountll(h ^ bloom_hash(buf, len));
			buf[bit / 8] ^= (uint8_t) (1u << (bit % 8));
			trials++;
		}
	}
	printf("hash avalanche: %.3f of 64 output bits flip per input bit\n",
		   flips / trials);
	check_at_most(fabs(flips / trials - 32.0), 0.5, "avalanche, |mean flips - 32|");
	free(hashes);
}

/* Check one result of bloom_filter_bytes. */
static void
check_bytes(uint32_t nkeys, uint32_t bits_per_key, uint32_t max_bytes,
			uint32_t want, const char *what)
{
	uint32_t	got = bloom_filter_bytes(nkeys, bits_per_key, max_bytes);

	check(got == want, what, got, want);
}

/* Edge cases of bloom_filter_bytes and bloom_filter_nprobes. */
static void
test_sizes(void)
{
	NearSortRng rng;

	check_bytes(0, 10, 8192, 8, "bytes of 0 keys");
	check_bytes(100, 0, 8192, 8, "bytes at 0 bits per key");
	check_bytes(1, 1, 8192, 8, "bytes of 1 key");
	check_bytes(64, 1, 8192, 8, "64 bits");
	check_bytes(65, 1, 8192, 16, "65 bits");
	check_bytes(100, 10, 8192, 128, "1000 bits");
	check_bytes(1000000, 10, 8192, 8192, "clamped to max_bytes");
	check_bytes(UINT32_MAX, UINT32_MAX, 8192, 8192,
				"huge nkeys * bits_per_key clamped");
	check_bytes(UINT32_MAX, UINT32_MAX, UINT32_MAX, UINT32_MAX / 8 * 8,
				"huge everything");
	check_bytes(1000000, 10, 8, 8, "max_bytes 8");
	check_bytes(1000000, 10, 100, 96, "max_bytes not a multiple of 8");

	nearsort_seed(&rng, 2);
	for (int round = 0; round < 100000; round++)
	{
		uint64_t	range = round % 2 ? 100000 : UINT64_C(1) << 32;
		uint32_t	nkeys = (uint32_t) nearsort_below(&rng, range);
		uint32_t	bpk = (uint32_t) nearsort_below(&rng, 33);
		uint32_t	maxb = 8 + (uint32_t) nearsort_below(&rng, 8192);
		uint32_t	b = bloom_filter_bytes(nkeys, bpk, maxb);
		uint64_t	want = ((uint64_t) nkeys * bpk + 63) / 64 * 8;

		if (want > maxb / 8 * 8)
			want = maxb / 8 * 8;
		if (want < 8)
			want = 8;
		check(b == want, "bytes against the reference", b, want);
		check(b % 8 == 0 && b >= 8 && b <= maxb, "bytes a multiple of 8 in 8..max", b, maxb);
		check((uint64_t) b * 8 >= (uint64_t) nkeys * bpk || b == maxb / 8 * 8,
			  "bytes hold nkeys * bits_per_key bits unless clamped", b, maxb);
	}

	check(bloom_filter_nprobes(0) == 1, "probes at 0 bits", bloom_filter_nprobes(0), 1);
	check(bloom_filter_nprobes(1) == 1, "probes at 1 bit", bloom_filter_nprobes(1), 1);
	check(bloom_filter_nprobes(4) == 3, "probes at 4 bits", bloom_filter_nprobes(4), 3);
	check(bloom_filter_nprobes(8) == 6, "probes at 8 bits", bloom_filter_nprobes(8), 6);
	check(bloom_filter_nprobes(10) == 7, "probes at 10 bits", bloom_filter_nprobes(10), 7);
	check(bloom_filter_nprobes(16) == 11, "probes at 16 bits", bloom_filter_nprobes(16), 11);
	check(bloom_filter_nprobes(23) == 16, "probes at 23 bits", bloom_filter_nprobes(23), 16);
	check(bloom_filter_nprobes(1000) == 16, "probes clamped to 16", bloom_filter_nprobes(1000), 16);
	check(bloom_filter_nprobes(UINT32_MAX) == 16, "probes at UINT32_MAX bits",
		  bloom_filter_nprobes(UINT32_MAX), 16);
	for (uint32_t bpk = 0; bpk <= 100; bpk++)
	{
		long		want = lround(bpk * log(2.0));

		if (want < 1)
			want = 1;
		if (want > 16)
			want = 16;
		check(bloom_filter_nprobes(bpk) == want, "probes = round(bits * ln 2)",
			  (uint64_t) bloom_filter_nprobes(bpk), (uint64_t) want);
	}
}

/* The probes are exactly the bits (h1 + i * h2) mod nbits, and no others. */
static void
test_probe_positions(void)
{
	static const uint32_t sizes[] = {8, 16, 24, 40, 1000, 4096, 8184, 8192};
	uint8_t    *filter = malloc(8192);
	uint8_t    *want = malloc(8192);
	NearSortRng rng;

	nearsort_seed(&rng, 3);
	for (size_t s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++)
	{
		uint32_t	nbytes = sizes[s];
		uint64_t	nbits = (uint64_t) nbytes * 8;

		for (int round = 0; round < 2000; round++)
		{
			uint64_t	hash;
			int			nprobes = 1 + (int) nearsort_below(&rng, 16);

			if (round == 0)
				hash = 0;
			else if (round == 1)
				hash = UINT64_MAX;
			else if (round == 2)
				hash = UINT64_C(0xffffffff);
			else if (round == 3)
				hash = UINT64_C(0xffffffff00000000);
			else
				hash = nearsort_next(&rng);

			memset(filter, 0, nbytes);
			memset(want, 0, nbytes);
			for (int i = 0; i < nprobes; i++)
			{
				uint64_t	bit = ((hash & UINT64_C(0xffffffff)) +
								   (uint64_t) i * ((hash >> 32) | 1)) % nbits;

				want[bit / 8] |= (uint8_t) (1u << (bit % 8));
			}
			bloom_filter_add(filter, nbytes, nprobes, hash);
			check(memcmp(filter, want, nbytes) == 0, "probe positions", hash, nbytes);
			check(bloom_filter_maybe(filter, nbytes, nprobes, hash), "added hash found", hash, nbytes);
			memset(filter, 0, nbytes);
			check(!bloom_filter_maybe(filter, nbytes, nprobes, hash), "empty filter finds nothing", hash, nbytes);
			memset(filter, 0xff, nbytes);
			check(bloom_filter_maybe(filter, nbytes, nprobes, hash), "full filter finds all", hash, nbytes);
		}
	}
	free(filter);
	free(want);
}

/*
 * Make key number i of a set: random bytes of random length 0..64, but key
 * 0 is empty and every fourth key shares a long prefix with others.
 */
static size_t
make_key(NearSortRng *rng, long i, uint8_t *buf)
{
	size_t		len;

	if (i == 0)
		return 0;
	len = (size_t) nearsort_below(rng, MAX_KEY_LEN + 1);
	for (size_t j = 0; j < len; j++)
		buf[j] = (uint8_t) nearsort_next(rng);
	if (i % 4 == 1 && len > 0)
	{
		/* the same 48-byte prefix, then one to 16 distinguishing bytes */
		size_t		tail = 1 + (size_t) nearsort_below(rng, 16);

		memset(buf, 'p', 48);
		for (size_t j = 48; j < 48 + tail; j++)
			buf[j] = (uint8_t) nearsort_next(rng);
		len = 48 + tail;
	}
	return len;
}

/* No added key is ever reported absent, for many sizes and settings. */
static void
test_no_false_negatives(void)
{
	static const long counts[] = {0, 1, 2, 3, 10, 100, 1000, 5000};
	static const uint32_t max_sizes[] = {8, 64, 1024, 8192};
	uint64_t   *hashes = malloc(sizeof(uint64_t) * 5000);
	uint8_t    *filter = malloc(8192);
	NearSortRng rng;

	nearsort_seed(&rng, 4);
	for (size_t c = 0; c < sizeof(counts) / sizeof(counts[0]); c++)
		for (size_t m = 0; m < sizeof(max_sizes) / sizeof(max_sizes[0]); m++)
			for (uint32_t bpk = 1; bpk <= 20; bpk++)
			{
				long		n = counts[c];
				uint32_t	nbytes = bloom_filter_bytes((uint32_t) n, bpk, max_sizes[m]);
				int			nprobes = bloom_filter_nprobes(bpk);
				long		missing = 0;

				memset(filter, 0, nbytes);
				for (long i = 0; i < n; i++)
				{
					uint8_t		key[MAX_KEY_LEN];
					size_t		len = make_key(&rng, i, key);

					hashes[i] = bloom_hash(key, len);
					bloom_filter_add(filter, nbytes, nprobes, hashes[i]);
				}
				for (long i = 0; i < n; i++)
					if (!bloom_filter_maybe(filter, nbytes, nprobes, hashes[i]))
						missing++;
				check(missing == 0, "no false negatives", (uint64_t) missing, 0);
				/* the empty key, hashed again, is found */
				if (n > 0)
					check(bloom_filter_maybe(filter, nbytes, nprobes, bloom_hash("", 0)),
						  "empty key found", (uint64_t) n, bpk);
			}
	free(hashes);
	free(filter);
}

/* The false-positive rate is close to the theory (1 - e^(-k n / m))^k. */
static void
test_false_positive_rate(void)
{
	static const uint32_t bits[] = {4, 8, 10, 16};
	static const long counts[] = {1000, 6000};
	uint8_t    *filter = malloc(8192);
	NearSortRng rng;

	nearsort_seed(&rng, 5);
	for (size_t c = 0; c < sizeof(counts) / sizeof(counts[0]); c++)
		for (size_t b = 0; b < sizeof(bits) / sizeof(bits[0]); b++)
		{
			long		n = counts[c];
			uint32_t	bpk = bits[b];
			uint32_t	nbytes = bloom_filter_bytes((uint32_t) n, bpk, 8192);
			int			k = bloom_filter_nprobes(bpk);
			double		m = nbytes * 8.0;
			double		theory = pow(1.0 - exp(-k * n / m), k);
			long		fp = 0;
			double		rate;
			char		msg[200];

			memset(filter, 0, nbytes);
			/*
			 * present keys have even lengths 8..64 (long enough to be
			 * distinct: duplicates would lower the effective n), absent
			 * ones odd lengths 1..63
			 */
			for (long i = 0; i < n; i++)
			{
				uint8_t		key[MAX_KEY_LEN + 1];
				size_t		len = 8 + 2 * (size_t) nearsort_below(&rng, MAX_KEY_LEN / 2 - 3);

				for (size_t j = 0; j < len; j++)
					key[j] = (uint8_t) nearsort_next(&rng);
				bloom_filter_add(filter, nbytes, k, bloom_hash(key, len));
			}
			for (long i = 0; i < NABSENT; i++)
			{
				uint8_t		key[MAX_KEY_LEN + 1];
				size_t		len = 1 + 2 * (size_t) nearsort_below(&rng, MAX_KEY_LEN / 2);

				for (size_t j = 0; j < len; j++)
					key[j] = (uint8_t) nearsort_next(&rng);
				if (bloom_filter_maybe(filter, nbytes, k, bloom_hash(key, len)))
					fp++;
			}
			rate = (double) fp / NABSENT;
			printf("false positives: n=%ld bits/key=%u bytes=%u k=%d: %.5f (theory %.5f)\n",
				   n, bpk, nbytes, k, rate, theory);
			snprintf(msg, sizeof(msg),
					 "false-positive rate, n=%ld bits/key=%u (at most 1.5 x theory + 0.002)",
					 n, bpk);
			check_at_most(rate, 1.5 * theory + 0.002, msg);
		}
	free(filter);
}

/* Run every test and report. */
int
main(void)
{
	test_hash_known_answers();
	test_hash_distribution();
	test_sizes();
	test_probe_positions();
	test_no_false_negatives();
	test_false_positive_rate();

	printf("%ld checks, %ld failures\n", checks, failures);
	return failures == 0 ? 0 : 1;
}
