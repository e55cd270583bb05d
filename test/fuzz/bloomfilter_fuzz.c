/*-------------------------------------------------------------------------
 *
 * bloomfilter_fuzz.c
 *	  libFuzzer target for the Bloom filter and hash of
 *	  src/lib/bloomfilter.c, run by "make fuzz FUZZ_SECONDS=N".
 *
 * The input chooses the filter's sizing and the keys.  The filter lives in
 * a heap block of exactly its size, so AddressSanitizer catches a probe
 * that lands outside it.  Checks, any failure of which aborts (libFuzzer
 * reports a crash):
 *
 *	- bloom_filter_bytes gives a multiple of 8, at least 8, at most the
 *	  limit rounded down to a multiple of 8 (when that is at least 8), and
 *	  enough for the keys at the bits per key when the limit allows;
 *	- bloom_filter_nprobes gives 1..16;
 *	- bloom_hash gives the same value for the same bytes wherever they lie
 *	  in memory (it must not depend on alignment);
 *	- no false negatives: every key added is reported as maybe present;
 *	- adding a key sets at most nprobes bits, and adding it again changes
 *	  nothing;
 *	- a filter of all ones answers maybe to every hash, an empty one no.
 *
 * Input layout:
 *	byte 0		bits per key (mod 33)
 *	bytes 1-2	limit of the filter size in bytes (little-endian, mod 8193)
 *	byte 3		probes override: 0 = bloom_filter_nprobes, else 1..16
 *	then		keys: a length byte (mod 65) and that many bytes, to the end
 *
 * test/fuzz/bloomfilter_fuzz.c
 *
 *-------------------------------------------------------------------------
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bloomfilter.h"

#define FZ_MAX_KEYS		2048

/* Abort with a message when a check fails (libFuzzer reports the crash). */
#define FZ_ASSERT(cond, what) \
	do { \
		if (!(cond)) \
		{ \
			fprintf(stderr, "bloomfilter_fuzz: %s:%d: %s (%s)\n", __FILE__, \
					__LINE__, what, #cond); \
			abort(); \
		} \
	} while (0)

/* Number of bits set in a filter. */
static uint32_t
fz_popcount(const uint8_t *filter, uint32_t nbytes)
{
	uint32_t	n = 0;

	for (uint32_t i = 0; i < nbytes; i++)
		n += (uint32_t) __builtin_popcount(filter[i]);
	return n;
}

/* The hash of len bytes copied to an odd offset of a fresh block. */
static uint64_t
fz_hash_unaligned(const uint8_t *data, size_t len)
{
	uint8_t    *copy = malloc(len + 3);
	uint64_t	h;

	FZ_ASSERT(copy != NULL, "out of memory");
	if (len > 0)
		memcpy(copy + 3, data, len);
	h = bloom_hash(copy + 3, len);
	free(copy);
	return h;
}

/* The fuzzing entry point: one filter, its keys, every check above. */
int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint32_t	bits_per_key;
	uint32_t	limit;
	int			nprobes;
	uint32_t	nkeys = 0;
	uint32_t	nbytes;
	uint64_t	hashes[FZ_MAX_KEYS];
	uint8_t    *filter;
	size_t		pos;

	if (size < 4)
		return 0;
	bits_per_key = data[0] % 33;
	limit = (uint32_t) (data[1] | (data[2] << 8)) % 8193;
	if (limit < 8)
		limit = 8;

	/* the keys: hash each, twice from different addresses */
	pos = 4;
	while (pos < size && nkeys < FZ_MAX_KEYS)
	{
		size_t		len = data[pos] % 65;

		pos++;
		if (len > size - pos)
			len = size - pos;
		hashes[nkeys] = bloom_hash(data + pos, len);
		FZ_ASSERT(hashes[nkeys] == fz_hash_unaligned(data + pos, len),
				  "bloom_hash depends on the address of its input");
		nkeys++;
		pos += len;
	}

	/* sizing */
	nbytes = bloom_filter_bytes(nkeys, bits_per_key, limit);
	FZ_ASSERT(nbytes % 8 == 0 && nbytes >= 8, "filter size not a positive multiple of 8");
	FZ_ASSERT(nbytes <= (limit & ~7u), "filter larger than its limit");
	if ((uint64_t) nkeys * bits_per_key <= (uint64_t) (limit & ~7u) * 8)
		FZ_ASSERT((uint64_t) nbytes * 8 >= (uint64_t) nkeys * bits_per_key,
				  "filter smaller than the keys need though the limit allows");
	nprobes = bloom_filter_nprobes(bits_per_key);
	FZ_ASSERT(nprobes >= 1 && nprobes <= 16, "probes out of range");
	if (data[3] != 0)
		nprobes = 1 + data[3] % 16;

	/* exactly nbytes, so that ASan sees any probe outside the filter */
	filter = calloc(1, nbytes);
	FZ_ASSERT(filter != NULL, "out of memory");

	for (uint32_t i = 0; i < nkeys; i++)
		FZ_ASSERT(!bloom_filter_maybe(filter, nbytes, nprobes, hashes[i]),
				  "an empty filter reports a key");

	for (uint32_t i = 0; i < nkeys; i++)
	{
		uint32_t	before = fz_popcount(filter, nbytes);
		uint32_t	after;

		bloom_filter_add(filter, nbytes, nprobes, hashes[i]);
		after = fz_popcount(filter, nbytes);
		FZ_ASSERT(after >= before && after - before <= (uint32_t) nprobes,
				  "adding a key set more bits than it has probes");
		FZ_ASSERT(bloom_filter_maybe(filter, nbytes, nprobes, hashes[i]),
				  "a key just added is not reported");
		bloom_filter_add(filter, nbytes, nprobes, hashes[i]);
		FZ_ASSERT(fz_popcount(filter, nbytes) == after,
				  "adding a key twice changed the filter");
	}

	/* no false negatives, once all keys are in */
	for (uint32_t i = 0; i < nkeys; i++)
		FZ_ASSERT(bloom_filter_maybe(filter, nbytes, nprobes, hashes[i]),
				  "false negative");

	/* a full filter reports everything */
	memset(filter, 0xFF, nbytes);
	for (uint32_t i = 0; i < nkeys; i++)
		FZ_ASSERT(bloom_filter_maybe(filter, nbytes, nprobes, hashes[i] ^ 0x9E3779B97F4A7C15ULL),
				  "a full filter rules a key out");

	free(filter);
	return 0;
}
