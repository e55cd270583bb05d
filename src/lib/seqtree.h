/*-------------------------------------------------------------------------
 *
 * seqtree.h
 *	  SeqTree: the compact leaf format of elastic_btree, a blind trie that
 *	  stores no keys (Hershcovitch et al., "Elastic Indexes: Dynamic Space
 *	  vs. Query Efficiency Tuning for In-Memory Database Indexing", EDBT
 *	  2022, section 5).
 *
 * A SeqTree indexes n distinct keys k[0] < ... < k[n-1], all byte strings
 * of the same length (the tree's "keylen"), compared as unsigned bytes
 * (memcmp order).  The caller builds them as binary-comparable normalized
 * keys with the 6-byte heap TID appended, so that they are distinct.  The
 * tree stores none of the keys: only
 *
 *	bits[i], 0 <= i < n-1: the number of the first bit in which k[i] and
 *		k[i+1] differ (bit 0 is the most significant bit of byte 0);
 *	a BlindiTree of "levels" levels: the top of the blind trie that these
 *		bits describe, stored as an implicit binary tree (children of node
 *		u are 2u+1 and 2u+2) whose entries are indexes into bits[], or
 *		SEQTREE_ET for "no trie node here".
 *
 * Keys are addressed by position 0..n-1 only; the caller keeps whatever
 * per-key payload it needs (heap TIDs) in a parallel array and shifts it as
 * positions change.  Whenever a key's bytes are needed the tree calls the
 * caller's SeqTreeGetKey callback with a position; in the server that is a
 * heap fetch, so every operation reads as few keys as possible:
 *
 *	search, insert				one read (none when the tree is empty)
 *	search_tolerant				one read if the candidate is readable, else
 *								more until a readable key of its subtree
 *								settles the search
 *	build						each key once
 *	merge						two reads, one if the caller passes one of
 *								the two keys at the seam, none with
 *								seqtree_merge_bit
 *	delete, split, insert_at	none
 *	insert_check				none
 *
 * The search is the SeqTree search of the paper: descend the BlindiTree
 * following the search key's bits, scan the remaining range of bits[] as
 * a SeqTrie, read the one candidate key that search reaches, and compute
 * the first bit D in which it differs from the search key.  The candidate
 * shares the longest prefix with the search key among all stored keys, so
 * the true predecessor is found from bits[] alone: it is next to the first
 * entry beyond the candidate (to the right if the search key is greater,
 * to the left otherwise) whose bit is smaller than D.  That entry lies in
 * the scanned range or is one of the BlindiTree nodes on the search path.
 *
 * Storage.  The tree lives entirely in a caller-provided buffer, its
 * "image"; this module never allocates memory.  The image is also the
 * serialized form, so a tree stored in a page is searched and updated in
 * place:
 *
 *	offset 0	uint16 nkeys
 *	offset 2	uint8  keylen (1..SEQTREE_MAX_KEYLEN)
 *	offset 3	uint8  levels (0..SEQTREE_MAX_LEVELS)
 *	offset 4	BlindiTree: 2^levels - 1 uint16 entries
 *	then		bits[0..n-2]: one byte each when keylen <= 32 (every bit
 *				number fits in a byte), two bytes each otherwise
 *
 * Multi-byte fields are in native byte order and need no alignment.  The
 * fixed part comes first and bits[] grows at the end, so the image grows
 * from one end: in a page, put the image at the low end and the TID array
 * at the high end, growing toward each other.  seqtree_size() gives the
 * image size for n keys and seqtree_capacity() the largest n for which the
 * image plus per-key payload fit in a given space.
 *
 * The image's content depends only on the sequence of keys and the levels,
 * never on the history of operations, so a WAL redo routine that replays
 * seqtree_insert_at / seqtree_delete / seqtree_split / seqtree_merge_bit
 * with the logged arguments reproduces the primary's image byte for byte.
 *
 * This file depends on nothing but the C library; it is compiled into the
 * server and into the stand-alone unit tests and fuzzer.
 *
 * src/lib/seqtree.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef SEQTREE_H
#define SEQTREE_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

/* Longest key, in bytes (bit numbers then stay below 2040) */
#define SEQTREE_MAX_KEYLEN		255

/* Longest key whose bit numbers fit in one byte each */
#define SEQTREE_NARROW_KEYLEN	32

/* Most keys in one tree (nkeys is a uint16) */
#define SEQTREE_MAX_KEYS		65535

/* Deepest BlindiTree: 2^10 - 1 nodes, 2046 bytes */
#define SEQTREE_MAX_LEVELS		10

/*
 * Default BlindiTree depth: 31 nodes (62 bytes).  With about 1000 keys in a
 * page the search then scans a range of roughly 1000 / 32 entries of bits[],
 * the range the paper found fastest (level 2 for 128-key leaves).  Measured
 * on a full page of 1161 int8 keys, a search without the key read takes
 * about 1.6 us at depth 0, 130 ns at depth 5 and 95 ns at depth 7.
 */
#define SEQTREE_DEFAULT_LEVELS	5

/* Size of the image's fixed header */
#define SEQTREE_HEADER_SIZE		4

/* BlindiTree entry for "no trie node": the node's range of bits[] is empty */
#define SEQTREE_ET				0xFFFF

/* seqtree_insert results other than a position */
#define SEQTREE_DUPLICATE		(-1)	/* the key is already stored */
#define SEQTREE_FULL			(-2)	/* no room for one more key */
#define SEQTREE_CORRUPT			(-3)	/* the key read contradicts bits[] */
#define SEQTREE_AMBIGUOUS		(-4)	/* only unreadable keys could tell */

/*
 * Callback returning the full key (keylen bytes) stored at position pos.
 * The pointer only has to stay valid until the next call.  It must not
 * return NULL, except to seqtree_search_tolerant for a key it cannot read.
 */
typedef const uint8_t *(*SeqTreeGetKey) (void *arg, int pos);

/*
 * Handle of a tree whose image lives at "img".  The fields other than img
 * and space are a cache of the image's header; use the functions below
 * (and seqtree_attach after moving or copying an image) to keep them in
 * step.
 */
typedef struct SeqTree
{
	uint8_t    *img;			/* the image: header, BlindiTree, bits[] */
	size_t		space;			/* bytes the image may grow to */
	int			nkeys;			/* number of keys */
	int			keylen;			/* bytes per key */
	int			levels;			/* BlindiTree depth */
	int			bitwidth;		/* bytes per bits[] entry: 1 or 2 */
} SeqTree;

/*
 * Result of a search.  pos is the largest stored key <= the search key, or
 * -1; exact says whether that key equals the search key.  When it does not,
 * the search key belongs at position pos + 1, and lbit / rbit are the
 * arguments seqtree_insert_at needs to put it there: lbit is the first bit
 * in which key pos and the search key differ (meaningless when pos == -1),
 * rbit the first bit in which the search key and key pos + 1 differ
 * (meaningless when pos == nkeys - 1).
 */
typedef struct SeqTreeLocation
{
	int			pos;
	bool		exact;
	int			lbit;
	int			rbit;
} SeqTreeLocation;

/* Sizes and capacity */
extern size_t seqtree_size(int nkeys, int keylen, int levels);
extern int	seqtree_capacity(size_t space, int keylen, int levels,
							 size_t per_key);
extern size_t seqtree_used(const SeqTree *st);

/* Creating, attaching, copying */
extern bool seqtree_init(SeqTree *st, void *buf, size_t space,
						 int keylen, int levels);
extern bool seqtree_attach(SeqTree *st, void *buf, size_t space);
extern size_t seqtree_serialize(const SeqTree *st, void *dst, size_t dstsize);
extern bool seqtree_copy(const SeqTree *src, SeqTree *dst, void *buf,
						 size_t space, int levels);
extern bool seqtree_build(SeqTree *st, int nkeys, SeqTreeGetKey get_key,
						  void *arg);
extern bool seqtree_build_bits(SeqTree *st, int nkeys, const uint16_t *bits);

/* Reading */
extern int	seqtree_get_bit(const SeqTree *st, int i);
extern int	seqtree_diff_bit(const uint8_t *a, const uint8_t *b, int keylen);
extern int	seqtree_search(const SeqTree *st, const uint8_t *key,
						   SeqTreeGetKey get_key, void *arg,
						   SeqTreeLocation *loc);
extern int	seqtree_search_tolerant(const SeqTree *st, const uint8_t *key,
									SeqTreeGetKey get_key, void *arg,
									SeqTreeLocation *loc, int maxreads,
									int *minpos, int *maxpos, int *nreads);
extern int	seqtree_last_le_from(const SeqTree *st, int pos,
								 const uint8_t *poskey, const uint8_t *bound);
extern bool seqtree_prefix_run(const SeqTree *st, const uint8_t *key,
							   int prefixbits, int maxrun, int *lo, int *hi);

/* Changing */
extern int	seqtree_insert(SeqTree *st, const uint8_t *key,
						   SeqTreeGetKey get_key, void *arg,
						   SeqTreeLocation *loc);
extern bool seqtree_insert_check(const SeqTree *st, int pos, int lbit,
								 int rbit);
extern bool seqtree_insert_at(SeqTree *st, int pos, int lbit, int rbit);
extern void seqtree_delete(SeqTree *st, int pos);
extern void seqtree_delete_many(SeqTree *st, const int *positions, int npos);
extern bool seqtree_split(SeqTree *st, int at, SeqTree *right, void *rbuf,
						  size_t rspace, int *seambit);
extern bool seqtree_merge_bit(SeqTree *left, const SeqTree *right,
							  int seambit);
extern bool seqtree_merge(SeqTree *left, const SeqTree *right,
						  const uint8_t *left_last, const uint8_t *right_first,
						  SeqTreeGetKey get_key, void *arg);

/* Verification */
extern const char *seqtree_check(const SeqTree *st, SeqTreeGetKey get_key,
								 void *arg, int *badpos);

#endif							/* SEQTREE_H */
