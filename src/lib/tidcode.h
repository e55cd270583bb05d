/*-------------------------------------------------------------------------
 *
 * tidcode.h
 *	  TID code: a list of heap TIDs in a given (key) order, coded compactly
 *	  for the compact leaves of elastic_btree (src/README.md, "Compact
 *	  leaves", "The TID code").
 *
 * A TID is a block number (0..TIDCODE_MAX_BLOCK) and an offset
 * (1..TIDCODE_MAX_OFFSET).  The list is in the order of its keys, not of
 * its TIDs: when keys follow insertion order (time series) or repeat (a
 * low-cardinality column, whose equal keys sort by TID) neighbouring TIDs
 * are close, and each is coded as its difference from the one before:
 *
 *	same block:		varint(zigzag(offset - previous offset) << 1)
 *	another block:	varint(zigzag(block - previous block) << 1 | 1),
 *					varint(offset)
 *
 * varint: 7 bits a byte, least significant first, the high bit saying
 * another byte follows; no overlong forms.  zigzag maps 0, -1, 1, -2, ...
 * to 0, 1, 2, 3, ... so deltas can be negative (keys not correlated with
 * heap order).  A TID costs 1 byte next to its predecessor in one block,
 * 2 for the next block's first tuple, at most 8.
 *
 * Random access: the list is cut into groups of consecutive entries (at
 * most TIDCODE_GROUP_MAX; a fresh encoding makes them TIDCODE_GROUP long),
 * and each group's first TID is coded whole, varint(block) varint(offset).
 * A directory gives each group's first position and where its bytes
 * start, so reading entry pos decodes one group's prefix.
 *
 *	offset 0	uint8  TIDCODE_MAGIC
 *	offset 1	uint8  flags: TIDCODE_PADDED if a zero byte ends the code
 *	offset 2	uint16 n, the number of TIDs
 *	offset 4	uint16 ngroups
 *	offset 6	ngroups x { uint16 first position, uint16 byte offset of
 *				the group's data from the code's start }
 *	then		the groups' data, in order, back to back
 *	then		a zero byte if needed to make the length odd
 *
 * An empty list is zero bytes.  Any other code has an odd length, so it
 * is never as long as n 6-byte TIDs: that is how a compact leaf tells it
 * from the plain TID array older versions wrote.  Multi-byte fields are in
 * native byte order and need no alignment.
 *
 * Changes.  tidcode_insert and tidcode_delete edit the groups they touch
 * and copy the others' bytes: an insert re-codes one group (split in two
 * when it outgrows TIDCODE_GROUP_MAX), a deletion re-codes the groups that
 * lose entries and drops the emptied ones.  The result depends only on
 * the code and the arguments, so WAL redo repeating the call reproduces
 * it byte for byte.  A deletion never makes the code longer: replacing two
 * deltas by their sum, or a group's first TID and the delta after it by
 * the next TID coded whole, never needs more bytes, since a varint of
 * a + b is never longer than the varints of a and b together.  So a
 * deletion inside a critical section always fits.  An insert can grow
 * the code by up to TIDCODE_MAX_INSERT_GROWTH bytes; callers ask
 * tidcode_insert for the exact result first.
 *
 * Damage: every function checks what it reads (bounds, counts, overlong or
 * out-of-range values, a zero delta, a group that does not end where the
 * next begins) and returns false or -1 instead of reading past the code.
 *
 * This file depends on nothing but the C library; it never allocates.
 *
 * src/lib/tidcode.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef TIDCODE_H
#define TIDCODE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define TIDCODE_MAGIC		0xE5
#define TIDCODE_PADDED		0x01

#define TIDCODE_HEADER_SIZE	6
#define TIDCODE_DIR_ENTRY	4

/* Entries per group in a fresh encoding, and most a group holds */
#define TIDCODE_GROUP		32
#define TIDCODE_GROUP_MAX	64

/* Most TIDs one code holds (n is a uint16) */
#define TIDCODE_MAX_TIDS	65535

#define TIDCODE_MAX_BLOCK	0xFFFFFFFEu
#define TIDCODE_MAX_OFFSET	0xFFFFu

/* Most bytes one TID takes (5-byte block varint, 3-byte offset varint) */
#define TIDCODE_MAX_ENTRY	8

/*
 * Most bytes an insert adds: the new TID and its successor coded anew (two
 * entries for one), a group split (a directory entry, a first TID coded
 * whole instead of as a delta) and the padding byte.
 */
#define TIDCODE_MAX_INSERT_GROWTH (3 * TIDCODE_MAX_ENTRY + TIDCODE_DIR_ENTRY + 1)

typedef struct TidCodeTid
{
	uint32_t	block;
	uint16_t	offset;
} TidCodeTid;

/* A code opened for reading: the header and directory were checked. */
typedef struct TidCode
{
	const uint8_t *buf;
	size_t		len;			/* bytes, padding included */
	size_t		datalen;		/* bytes, padding excluded */
	int			n;
	int			ngroups;
} TidCode;

extern bool tidcode_open(TidCode *tc, const uint8_t *buf, size_t len, int n);
extern bool tidcode_get(const TidCode *tc, int pos, TidCodeTid *tid);
extern int	tidcode_get_group(const TidCode *tc, int pos, TidCodeTid *out,
							  int *first);
extern bool tidcode_decode(const TidCode *tc, int start, int count,
						   TidCodeTid *out);
extern bool tidcode_check(const TidCode *tc);
extern long tidcode_encode(const TidCodeTid *tids, int n, uint8_t *out,
						   size_t outsz);
extern long tidcode_insert(const TidCode *tc, int pos, TidCodeTid tid,
						   uint8_t *out, size_t outsz);
extern long tidcode_delete(const TidCode *tc, const int *positions, int npos,
						   uint8_t *out, size_t outsz);
extern size_t tidcode_entry_size(const TidCodeTid *prev, const TidCodeTid *tid);

#endif							/* TIDCODE_H */
