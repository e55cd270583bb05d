/*-------------------------------------------------------------------------
 *
 * bloomfilter.c
 *	  A Bloom filter over byte strings, and its 64-bit hash (see
 *	  bloomfilter.h).
 *
 * src/lib/bloomfilter.c
 *
 *-------------------------------------------------------------------------
 */
#include "bloomfilter.h"

/* Multiplier of MurmurHash64A. */
#define BLOOM_HASH_M	UINT64_C(0xc6a4a7935bd1e995)

/* Seed of the hash (an arbitrary odd constant). */
#define BLOOM_HASH_SEED UINT64_C(0x9E3779B97F4A7C15)

/* Fewest and most probes bloom_filter_nprobes returns. */
#define BLOOM_MIN_PROBES 1
#define BLOOM_MAX_PROBES 16

/*
 * The fmix64 finalizer of MurmurHash3: every input bit affects every
 * output bit.
 */
static uint64_t
bloom_fmix64(uint64_t k)
{
	k ^= k >> 33;
	k *= UINT64_C(0xff51afd7ed558ccd);
	k ^= k >> 33;
	k *= UINT64_C(0xc4ceb9fe1a85ec53);
	k ^= k >> 33;
	return k;
}

/*
 * Read 8 bytes as a little-endian word, one byte at a time.
 */
static uint64_t
bloom_load64(const uint8_t *p)
{
	return (uint64_t) p[0] |
		((uint64_t) p[1] << 8) |
		((uint64_t) p[2] << 16) |
		((uint64_t) p[3] << 24) |
		((uint64_t) p[4] << 32) |
		((uint64_t) p[5] << 40) |
		((uint64_t) p[6] << 48) |
		((uint64_t) p[7] << 56);
}

/*
 * 64-bit hash of a byte string: MurmurHash64A's block loop over
 * little-endian words, then fmix64.
 */
uint64_t
bloom_hash(const void *data, size_t len)
{
	const uint8_t *p = (const uint8_t *) data;
	uint64_t	h = BLOOM_HASH_SEED ^ ((uint64_t) len * BLOOM_HASH_M);
	size_t		nblocks = len / 8;
	size_t		rest = len % 8;

	for (size_t i = 0; i < nblocks; i++, p += 8)
	{
		uint64_t	k = bloom_load64(p);

		k *= BLOOM_HASH_M;
		k ^= k >> 47;
		k *= BLOOM_HASH_M;
		h ^= k;
		h *= BLOOM_HASH_M;
	}

	if (rest > 0)
	{
		uint64_t	k = 0;

		for (size_t i = 0; i < rest; i++)
			k |= (uint64_t) p[i] << (8 * i);
		h ^= k;
		h *= BLOOM_HASH_M;
	}

	return bloom_fmix64(h);
}

/*
 * Bytes of a filter for nkeys keys at bits_per_key bits each, a multiple
 * of 8 between 8 and max_bytes.
 */
uint32_t
bloom_filter_bytes(uint32_t nkeys, uint32_t bits_per_key, uint32_t max_bytes)
{
	/* cannot overflow: (2^32 - 1)^2 + 63 < 2^64 */
	uint64_t	bits = (uint64_t) nkeys * bits_per_key;
	uint64_t	bytes = (bits + 63) / 64 * 8;
	uint64_t	limit = max_bytes / 8 * 8;

	if (limit < 8)
		limit = 8;
	if (bytes > limit)
		bytes = limit;
	if (bytes < 8)
		bytes = 8;
	return (uint32_t) bytes;
}

/*
 * Number of probes for bits_per_key bits per key: round(bits_per_key *
 * ln 2) in integer arithmetic, clamped to 1..16.
 */
int
bloom_filter_nprobes(uint32_t bits_per_key)
{
	/* ln 2 = 0.693147180..., so this is exact for any realistic input */
	uint64_t	k = ((uint64_t) bits_per_key * UINT64_C(693147180) +
					 UINT64_C(500000000)) / UINT64_C(1000000000);

	if (k < BLOOM_MIN_PROBES)
		k = BLOOM_MIN_PROBES;
	if (k > BLOOM_MAX_PROBES)
		k = BLOOM_MAX_PROBES;
	return (int) k;
}

/*
 * Set the nprobes bits of the key's hash: bit (h1 + i * h2) mod nbits for
 * i = 0..nprobes-1, computed incrementally so nothing can overflow.
 */
void
bloom_filter_add(uint8_t *filter, uint32_t nbytes, int nprobes, uint64_t hash)
{
	uint64_t	nbits = (uint64_t) nbytes * 8;
	uint64_t	pos;
	uint64_t	step;

	if (nbits == 0)
		return;
	pos = (hash & UINT64_C(0xffffffff)) % nbits;
	step = ((hash >> 32) | 1) % nbits;
	for (int i = 0; i < nprobes; i++)
	{
		filter[pos >> 3] |= (uint8_t) (1u << (pos & 7));
		pos += step;
		if (pos >= nbits)
			pos -= nbits;
	}
}

/*
 * Whether all nprobes bits of the key's hash are set, i.e. the key may
 * have been added; false means it certainly was not.
 */
bool
bloom_filter_maybe(const uint8_t *filter, uint32_t nbytes, int nprobes,
				   uint64_t hash)
{
	uint64_t	nbits = (uint64_t) nbytes * 8;
	uint64_t	pos;
	uint64_t	step;

	if (nbits == 0)
		return true;
	pos = (hash & UINT64_C(0xffffffff)) % nbits;
	step = ((hash >> 32) | 1) % nbits;
	for (int i = 0; i < nprobes; i++)
	{
		if ((filter[pos >> 3] & (1u << (pos & 7))) == 0)
			return false;
		pos += step;
		if (pos >= nbits)
			pos -= nbits;
	}
	return true;
}
