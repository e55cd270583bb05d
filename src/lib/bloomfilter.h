/*-------------------------------------------------------------------------
 *
 * bloomfilter.h
 *	  A Bloom filter over byte strings, and the 64-bit hash it uses.
 *
 * The filter is a caller-owned array of nbytes bytes (a multiple of 8, at
 * most 8192 for the server's use but any size that fits in uint32 works),
 * all zero when empty.  Bit b of the filter is bit (b & 7) of byte b >> 3,
 * counting from the least significant bit, so the format is the same on
 * every platform and can be stored on disk.
 *
 * A key is first hashed with bloom_hash (or any well-mixed 64-bit hash);
 * the filter then derives its probes by double hashing (Kirsch and
 * Mitzenmacher, "Less hashing, same performance", 2006): with h1 the low
 * 32 bits of the hash and h2 the high 32 bits with the lowest bit set,
 * probe i (0 <= i < nprobes) is bit (h1 + i * h2) mod (nbytes * 8).
 *
 * With m bits, n keys and k probes the false-positive rate is about
 * (1 - e^(-k n / m))^k; k = round(m / n * ln 2) minimizes it, which is
 * what bloom_filter_nprobes returns for m / n bits per key.
 *
 * bloom_hash is a 64-bit multiply-xorshift hash in the style of
 * MurmurHash64A: it reads the input as little-endian 8-byte words (byte by
 * byte, so no unaligned reads and no dependence on the platform's byte
 * order), mixes in the length and ends with the fmix64 finalizer of
 * MurmurHash3.  It is deterministic, but it is not a cryptographic hash.
 *
 * This file depends on nothing but the C library; it is compiled into the
 * server and into the stand-alone unit tests.
 *
 * src/lib/bloomfilter.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef BLOOMFILTER_H
#define BLOOMFILTER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* 64-bit hash of the len bytes at data (data may be NULL if len is 0). */
extern uint64_t bloom_hash(const void *data, size_t len);

/*
 * Bytes of a filter for nkeys keys at bits_per_key bits each: rounded up to
 * a multiple of 8, at least 8 and at most max_bytes (max_bytes >= 8; a
 * max_bytes that is not a multiple of 8 is rounded down to one).
 */
extern uint32_t bloom_filter_bytes(uint32_t nkeys, uint32_t bits_per_key,
								   uint32_t max_bytes);

/*
 * Number of probes for bits_per_key bits per key: round(bits_per_key *
 * ln 2), clamped to 1..16.
 */
extern int	bloom_filter_nprobes(uint32_t bits_per_key);

/*
 * Set the bits of the key with the given hash in the filter of nbytes bytes
 * (nbytes a multiple of 8, > 0), nprobes bits in all.
 */
extern void bloom_filter_add(uint8_t *filter, uint32_t nbytes, int nprobes,
							 uint64_t hash);

/*
 * Whether the key with the given hash may have been added to the filter:
 * false only if it certainly never was (the same nbytes and nprobes as for
 * bloom_filter_add).
 */
extern bool bloom_filter_maybe(const uint8_t *filter, uint32_t nbytes,
							   int nprobes, uint64_t hash);

#endif							/* BLOOMFILTER_H */
