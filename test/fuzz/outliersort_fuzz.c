/*-------------------------------------------------------------------------
 *
 * outliersort_fuzz.c
 *	  libFuzzer target for the outlier sort template, src/lib/outliersort.h,
 *	  run by "make fuzz FUZZ_SECONDS=N".
 *
 * The input is an array to sort: a near-sorted array of its length, with
 * some entries replaced by keys the input chooses, so that the fuzzer
 * explores the shapes the pass must handle (runs of early and late
 * entries, repeats, piles at the start) and not only random arrays, which
 * fall back at once.  Entries are (key, position) pairs ordered by key,
 * then position.  Checks, any failure of which aborts:
 *
 *	- the result equals qsort's;
 *	- the return value is -1 (fallback) or the number of entries set aside,
 *	  at most an eighth of the array.
 *
 * Input layout:
 *	bytes 0-1	length of the array (little-endian, mod 20001)
 *	then		pairs (position byte pair, key byte pair): the entry at the
 *				position (mod length) gets the key (both little-endian),
 *				scaled so that keys reach the whole array
 *
 * test/fuzz/outliersort_fuzz.c
 *
 *-------------------------------------------------------------------------
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../unit/outliersort_pairs.h"

/* Abort with a message when a check fails (libFuzzer reports the crash). */
#define FZ_ASSERT(cond, what) \
	do { \
		if (!(cond)) \
		{ \
			fprintf(stderr, "outliersort_fuzz: %s:%d: %s (%s)\n", __FILE__, \
					__LINE__, what, #cond); \
			abort(); \
		} \
	} while (0)

/* Build the array the input describes, sort it both ways and compare. */
int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	size_t		n;
	PairEntry    *a;
	PairEntry    *b;
	int64_t		r;

	if (size < 2)
		return 0;
	n = (size_t) (data[0] | (data[1] << 8)) % 20001;
	a = malloc(sizeof(PairEntry) * (n + 1));
	b = malloc(sizeof(PairEntry) * (n + 1));
	for (size_t i = 0; i < n; i++)
		a[i].key = (int64_t) i * 4;
	for (size_t off = 2; off + 4 <= size && n > 0; off += 4)
	{
		size_t		at = (size_t) (data[off] | (data[off + 1] << 8)) % n;
		int64_t		key = (int64_t) (data[off + 2] | (data[off + 3] << 8));

		a[at].key = key * (int64_t) (4 * n + 65535) / 65535;
	}
	for (size_t i = 0; i < n; i++)
		a[i].pos = (int64_t) i;
	memcpy(b, a, sizeof(PairEntry) * n);

	r = pairs_outlier_sort(a, n, NULL);
	pairs_qsort(b, n, NULL);
	FZ_ASSERT(memcmp(a, b, sizeof(PairEntry) * n) == 0, "result differs from qsort's");
	FZ_ASSERT(r == -1 || (r >= 0 && (size_t) r <= n / 8), "return value out of range");
	free(a);
	free(b);
	return 0;
}
