/*-------------------------------------------------------------------------
 *
 * seqtree.c
 *	  SeqTree: a blind trie over fixed-length binary-comparable keys that
 *	  stores only the discriminating bits of adjacent keys plus a small
 *	  BlindiTree over them.  See seqtree.h for the format and the API.
 *
 * Background.  bits[] (n-1 entries for n sorted distinct keys) describes
 * the blind trie of the keys completely: the trie is the Cartesian tree of
 * bits[] (the root is the smallest entry, its left subtree is built from
 * the entries to its left, its right subtree from those to its right), and
 * the first bit in which k[i] and k[j] (i < j) differ is
 * min(bits[i..j-1]).  Because the keys are distinct, the minimum of every
 * range of bits[] is attained exactly once; seqtree_check verifies that.
 * A BlindiTree node represents an entry of bits[] together with the range
 * of bits[] its subtree covers: the root covers all of bits[] and points at
 * its minimum, its children cover the parts left and right of that entry,
 * and so on; an empty range is marked SEQTREE_ET.
 *
 * Maintenance.  Inserting a key inserts one entry into bits[] (the larger
 * of the two new neighbouring bits; the smaller one is the old entry
 * between the neighbours) and deleting a key removes one (the larger of
 * the two entries around it, which is the paper's
 * bits[i-1] = min(bits[i-1], bits[i]) rule).  The BlindiTree is then fixed
 * up along the path to the changed entry only: the entries after it shift
 * by one, and the subtree of the first node whose minimum changes is
 * recomputed from bits[], which is what the paper's splicing achieves for
 * a tree of fixed depth.  Split and merge recompute the whole BlindiTree,
 * levels * n steps.
 *
 * This file uses nothing but <stdint.h>, <stdbool.h> and <string.h>: no
 * allocation, no I/O, no server functions.
 *
 * src/lib/seqtree.c
 *
 *-------------------------------------------------------------------------
 */
#include "seqtree.h"

/* Number of BlindiTree nodes for the given depth */
#define ST_TREE_NODES(levels)	((1 << (levels)) - 1)

/* Larger than every bit number: "no limit" in the SeqTrie scan */
#define ST_NO_LIMIT				0x10000

/* Start of the BlindiTree in the image */
#define ST_TREE(st)				((st)->img + SEQTREE_HEADER_SIZE)

/* Start of bits[] in the image */
#define ST_BITS(st)				(ST_TREE(st) + 2 * ST_TREE_NODES((st)->levels))

/* Number of entries of bits[] */
#define ST_NBITS(st)			((st)->nkeys > 1 ? (st)->nkeys - 1 : 0)

/* Read a native-order uint16 at any alignment. */
static inline int
st_load16(const uint8_t *p)
{
	uint16_t	v;

	memcpy(&v, p, sizeof(v));
	return v;
}

/* Write a native-order uint16 at any alignment. */
static inline void
st_store16(uint8_t *p, int v)
{
	uint16_t	u = (uint16_t) v;

	memcpy(p, &u, sizeof(u));
}

/* Bytes per bits[] entry for keys of the given length. */
static inline int
st_bitwidth(int keylen)
{
	return keylen <= SEQTREE_NARROW_KEYLEN ? 1 : 2;
}

/* Entry i of bits[]. */
static inline int
st_bit(const SeqTree *st, int i)
{
	const uint8_t *bits = ST_BITS(st);

	if (st->bitwidth == 1)
		return bits[i];
	return st_load16(bits + 2 * i);
}

/* Set entry i of bits[]. */
static inline void
st_set_bit(SeqTree *st, int i, int v)
{
	uint8_t    *bits = ST_BITS(st);

	if (st->bitwidth == 1)
		bits[i] = (uint8_t) v;
	else
		st_store16(bits + 2 * i, v);
}

/* BlindiTree node k: an index into bits[], or SEQTREE_ET. */
static inline int
st_node(const SeqTree *st, int k)
{
	return st_load16(ST_TREE(st) + 2 * k);
}

/* Set BlindiTree node k. */
static inline void
st_set_node(SeqTree *st, int k, int v)
{
	st_store16(ST_TREE(st) + 2 * k, v);
}

/* Store the key count in the handle and in the image. */
static inline void
st_set_nkeys(SeqTree *st, int nkeys)
{
	st->nkeys = nkeys;
	st_store16(st->img, nkeys);
}

/* Bit b of a key (bit 0 = most significant bit of byte 0); 0 past the end. */
static inline int
st_keybit(const uint8_t *key, int b, int nkeybits)
{
	if (b >= nkeybits)
		return 0;
	return (key[b >> 3] >> (7 - (b & 7))) & 1;
}

/* Whether an image of nkeys keys fits in the handle's space. */
static inline bool
st_room(const SeqTree *st, int nkeys)
{
	return nkeys <= SEQTREE_MAX_KEYS &&
		seqtree_size(nkeys, st->keylen, st->levels) <= st->space;
}

/* Number of leading zero bits of a non-zero byte. */
static inline int
st_clz8(unsigned int v)
{
	int			n = 0;

	if ((v & 0xF0) == 0)
	{
		n += 4;
		v <<= 4;
	}
	if ((v & 0xC0) == 0)
	{
		n += 2;
		v <<= 2;
	}
	if ((v & 0x80) == 0)
		n += 1;
	return n;
}

/* Index of the smallest entry of bits[lo..hi] (lo <= hi). */
static int
st_argmin(const SeqTree *st, int lo, int hi)
{
	int			best = lo;
	int			bestv = st_bit(st, lo);
	int			i;

	for (i = lo + 1; i <= hi; i++)
	{
		int			v = st_bit(st, i);

		if (v < bestv)
		{
			best = i;
			bestv = v;
		}
	}
	return best;
}

/* Mark node "node" (at the given depth) and all its descendants empty. */
static void
st_clear_subtree(SeqTree *st, int node, int depth)
{
	int			k;

	for (k = 0; depth + k < st->levels; k++)
	{
		int			first = ((node + 1) << k) - 1;
		int			j;

		for (j = 0; j < (1 << k); j++)
			st_set_node(st, first + j, SEQTREE_ET);
	}
}

/* Recompute the BlindiTree subtree at "node", which covers bits[lo..hi]. */
static void
st_rebuild(SeqTree *st, int node, int depth, int lo, int hi)
{
	int			m;

	if (depth >= st->levels)
		return;
	if (lo > hi)
	{
		st_clear_subtree(st, node, depth);
		return;
	}
	m = st_argmin(st, lo, hi);
	st_set_node(st, node, m);
	st_rebuild(st, 2 * node + 1, depth + 1, lo, m - 1);
	st_rebuild(st, 2 * node + 2, depth + 1, m + 1, hi);
}

/* Recompute the whole BlindiTree from bits[]. */
static void
st_rebuild_all(SeqTree *st)
{
	st_rebuild(st, 0, 0, 0, ST_NBITS(st) - 1);
}

/*
 * Whether value v may be inserted into bits[] before index t: the nearest
 * entries <= v on either side must differ from v, or some range of the new
 * bits[] would have two minima, which no set of distinct keys produces.
 */
static bool
st_insert_ok(const SeqTree *st, int t, int v)
{
	int			nb = ST_NBITS(st);
	int			i;

	for (i = t - 1; i >= 0; i--)
	{
		int			b = st_bit(st, i);

		if (b <= v)
		{
			if (b == v)
				return false;
			break;
		}
	}
	for (i = t; i < nb; i++)
	{
		int			b = st_bit(st, i);

		if (b <= v)
		{
			if (b == v)
				return false;
			break;
		}
	}
	return true;
}

/*
 * Insert value v into bits[] at index t and bring the BlindiTree up to
 * date; the caller has checked room and sets nkeys to nkeys + 1 here.
 */
static void
st_insert_bit(SeqTree *st, int t, int v)
{
	int			w = st->bitwidth;
	int			oldnb = ST_NBITS(st);
	uint8_t    *bits = ST_BITS(st);
	int			ntree = ST_TREE_NODES(st->levels);
	int			node,
				depth,
				lo,
				hi,
				k;

	memmove(bits + (t + 1) * w, bits + t * w, (size_t) (oldnb - t) * w);
	st_set_bit(st, t, v);
	st_set_nkeys(st, st->nkeys + 1);

	/* Entries at t and beyond moved one to the right. */
	for (k = 0; k < ntree; k++)
	{
		int			m = st_node(st, k);

		if (m != SEQTREE_ET && m >= t)
			st_set_node(st, k, m + 1);
	}

	/*
	 * Walk towards t.  The first node whose range was empty, or whose
	 * minimum the new entry undercuts, gets its subtree recomputed; the
	 * nodes above it keep their minimum (v cannot equal it: minima are
	 * unique).
	 */
	node = 0;
	lo = 0;
	hi = oldnb;
	for (depth = 0; depth < st->levels; depth++)
	{
		int			m = st_node(st, node);

		/* (a node outside its range can only come from a damaged image) */
		if (m < lo || m > hi || v < st_bit(st, m))
		{
			st_rebuild(st, node, depth, lo, hi);
			break;
		}
		if (t < m)
		{
			hi = m - 1;
			node = 2 * node + 1;
		}
		else
		{
			lo = m + 1;
			node = 2 * node + 2;
		}
	}
}

/*
 * Remove entry t from bits[] and bring the BlindiTree up to date; nkeys
 * becomes nkeys - 1 here.
 */
static void
st_remove_bit(SeqTree *st, int t)
{
	int			w = st->bitwidth;
	int			oldnb = ST_NBITS(st);
	uint8_t    *bits = ST_BITS(st);
	int			ntree = ST_TREE_NODES(st->levels);
	int			node = 0,
				lo = 0,
				hi = oldnb - 1,
				depth,
				target = -1,
				k;

	/* Find the BlindiTree node pointing at t, if any. */
	for (depth = 0; depth < st->levels; depth++)
	{
		int			m = st_node(st, node);

		/* (a node outside its range can only come from a damaged image) */
		if (m == t || m < lo || m > hi)
		{
			target = node;
			break;
		}
		if (t < m)
		{
			hi = m - 1;
			node = 2 * node + 1;
		}
		else
		{
			lo = m + 1;
			node = 2 * node + 2;
		}
	}

	memmove(bits + t * w, bits + (t + 1) * w, (size_t) (oldnb - t - 1) * w);
	st_set_nkeys(st, st->nkeys - 1);

	for (k = 0; k < ntree; k++)
	{
		int			m = st_node(st, k);

		if (m != SEQTREE_ET && m > t)
			st_set_node(st, k, m - 1);
	}

	/* That node's range lost entry t; its minimum must be found again. */
	if (target >= 0)
		st_rebuild(st, target, depth, lo, hi - 1);
}

/*
 * Image size in bytes of a tree holding nkeys keys of keylen bytes with a
 * BlindiTree of the given depth.
 */
size_t
seqtree_size(int nkeys, int keylen, int levels)
{
	size_t		size = SEQTREE_HEADER_SIZE + 2 * (size_t) ST_TREE_NODES(levels);

	if (nkeys > 1)
		size += (size_t) (nkeys - 1) * st_bitwidth(keylen);
	return size;
}

/*
 * Largest number of keys whose image plus per_key bytes of payload per key
 * (6 for a heap TID) fits in space bytes.
 */
int
seqtree_capacity(size_t space, int keylen, int levels, size_t per_key)
{
	size_t		fixed = seqtree_size(0, keylen, levels);
	size_t		w = st_bitwidth(keylen);
	size_t		n;

	if (space < fixed)
		return 0;
	/* n keys need fixed + (n - 1) * w + n * per_key bytes */
	n = (space - fixed + w) / (w + per_key);
	if (n > SEQTREE_MAX_KEYS)
		n = SEQTREE_MAX_KEYS;
	return (int) n;
}

/* Bytes the tree's image occupies now. */
size_t
seqtree_used(const SeqTree *st)
{
	return seqtree_size(st->nkeys, st->keylen, st->levels);
}

/*
 * Create an empty tree in buf, which may hold an image of up to space
 * bytes.  Returns false if the arguments are out of range or the space is
 * too small even for an empty tree.
 */
bool
seqtree_init(SeqTree *st, void *buf, size_t space, int keylen, int levels)
{
	if (keylen < 1 || keylen > SEQTREE_MAX_KEYLEN ||
		levels < 0 || levels > SEQTREE_MAX_LEVELS ||
		space < seqtree_size(0, keylen, levels))
		return false;

	st->img = (uint8_t *) buf;
	st->space = space;
	st->keylen = keylen;
	st->levels = levels;
	st->bitwidth = st_bitwidth(keylen);
	st->img[2] = (uint8_t) keylen;
	st->img[3] = (uint8_t) levels;
	st_set_nkeys(st, 0);
	st_clear_subtree(st, 0, 0);
	return true;
}

/*
 * Set up a handle for an existing image in buf (for instance a compact
 * page, or a copy made with seqtree_serialize).  Returns false if the
 * header is invalid or the image does not fit in space bytes; the
 * contents beyond the header are not verified (see seqtree_check).
 */
bool
seqtree_attach(SeqTree *st, void *buf, size_t space)
{
	uint8_t    *img = (uint8_t *) buf;
	int			nkeys,
				keylen,
				levels;

	if (space < SEQTREE_HEADER_SIZE)
		return false;
	nkeys = st_load16(img);
	keylen = img[2];
	levels = img[3];
	if (keylen < 1 || levels > SEQTREE_MAX_LEVELS ||
		seqtree_size(nkeys, keylen, levels) > space)
		return false;

	st->img = img;
	st->space = space;
	st->nkeys = nkeys;
	st->keylen = keylen;
	st->levels = levels;
	st->bitwidth = st_bitwidth(keylen);
	return true;
}

/*
 * Copy the image into dst (dstsize bytes).  Returns the number of bytes
 * written, 0 if they do not fit.  Attach the copy with seqtree_attach.
 */
size_t
seqtree_serialize(const SeqTree *st, void *dst, size_t dstsize)
{
	size_t		used = seqtree_used(st);

	if (used > dstsize)
		return 0;
	memmove(dst, st->img, used);
	return used;
}

/*
 * Copy src into buf as a tree with a BlindiTree of the given depth (the
 * way to change the depth, or to move a tree into a larger buffer).  buf
 * may be src's own buffer; dst may be src.  Returns false, leaving
 * everything unchanged, if the copy does not fit in space bytes.
 */
bool
seqtree_copy(const SeqTree *src, SeqTree *dst, void *buf, size_t space,
			 int levels)
{
	int			nkeys = src->nkeys;
	int			keylen = src->keylen;
	int			w = src->bitwidth;
	const uint8_t *srcbits = ST_BITS(src);
	uint8_t    *newbits;

	if (levels < 0 || levels > SEQTREE_MAX_LEVELS ||
		seqtree_size(nkeys, keylen, levels) > space)
		return false;

	newbits = (uint8_t *) buf + SEQTREE_HEADER_SIZE +
		2 * ST_TREE_NODES(levels);
	/* bits[] first: it may overlap the old image when buf is src's buffer */
	memmove(newbits, srcbits, (size_t) ST_NBITS(src) * w);

	dst->img = (uint8_t *) buf;
	dst->space = space;
	dst->keylen = keylen;
	dst->levels = levels;
	dst->bitwidth = w;
	dst->img[2] = (uint8_t) keylen;
	dst->img[3] = (uint8_t) levels;
	st_set_nkeys(dst, nkeys);
	st_rebuild_all(dst);
	return true;
}

/*
 * Replace the tree's contents with nkeys keys read through get_key, each
 * exactly once, in position order.  The keys must be strictly ascending.
 * Returns false if they are not or if they do not fit; the tree is then
 * left empty.
 */
bool
seqtree_build(SeqTree *st, int nkeys, SeqTreeGetKey get_key, void *arg)
{
	uint8_t		prev[SEQTREE_MAX_KEYLEN];
	int			nkeybits = st->keylen * 8;
	int			i;

	st_set_nkeys(st, 0);
	st_clear_subtree(st, 0, 0);
	if (nkeys < 0 || !st_room(st, nkeys))
		return false;

	for (i = 0; i < nkeys; i++)
	{
		const uint8_t *key = get_key(arg, i);

		if (i > 0)
		{
			int			d = seqtree_diff_bit(prev, key, st->keylen);

			/* equal, or descending */
			if (d >= nkeybits || st_keybit(key, d, nkeybits) == 0)
				return false;
			st_set_bit(st, i - 1, d);
		}
		memcpy(prev, key, st->keylen);
	}
	st_set_nkeys(st, nkeys);
	st_rebuild_all(st);
	return true;
}

/*
 * Replace the tree's contents with nkeys keys described by their nkeys - 1
 * discriminating bits (as logged in WAL, or taken from another tree).
 * Returns false if they do not fit or are not the bits of any set of
 * distinct sorted keys; the tree is then left empty.
 */
bool
seqtree_build_bits(SeqTree *st, int nkeys, const uint16_t *bits)
{
	int			i;

	st_set_nkeys(st, 0);
	st_clear_subtree(st, 0, 0);
	if (nkeys < 0 || !st_room(st, nkeys))
		return false;
	for (i = 0; i + 1 < nkeys; i++)
	{
		if (bits[i] >= st->keylen * 8)
			return false;
		st_set_bit(st, i, bits[i]);
	}
	st_set_nkeys(st, nkeys);
	st_rebuild_all(st);
	if (seqtree_check(st, NULL, NULL, NULL) != NULL)
	{
		st_set_nkeys(st, 0);
		st_clear_subtree(st, 0, 0);
		return false;
	}
	return true;
}

/* Entry i of bits[] (first bit in which keys i and i+1 differ), or -1. */
int
seqtree_get_bit(const SeqTree *st, int i)
{
	if (i < 0 || i >= ST_NBITS(st))
		return -1;
	return st_bit(st, i);
}

/*
 * Number of the first bit in which two keys of keylen bytes differ (bit 0
 * is the most significant bit of byte 0), or keylen * 8 if they are equal.
 */
int
seqtree_diff_bit(const uint8_t *a, const uint8_t *b, int keylen)
{
	int			i = 0;

	/* skip equal 8-byte words */
	while (i + 8 <= keylen)
	{
		uint64_t	wa,
					wb;

		memcpy(&wa, a + i, 8);
		memcpy(&wb, b + i, 8);
		if (wa != wb)
			break;
		i += 8;
	}
	for (; i < keylen; i++)
	{
		if (a[i] != b[i])
			return i * 8 + st_clz8((unsigned int) (a[i] ^ b[i]));
	}
	return keylen * 8;
}

/* Where the blind descent of one search ended (see st_descend). */
typedef struct SeqTreePath
{
	int			cand;			/* the candidate: the one key to read */
	int			lo;				/* range of bits[] scanned as a SeqTrie */
	int			hi;
	int			nlefts;
	int			nrights;
	int			lefts[SEQTREE_MAX_LEVELS];	/* nodes where we went left */
	int			rights[SEQTREE_MAX_LEVELS]; /* nodes where we went right */
} SeqTreePath;

/*
 * Stage 1 of a search (on a non-empty tree): the blind descent.  Follow the
 * BlindiTree while the current range of bits[] is non-empty, then continue
 * as a SeqTrie scan of the range: an entry matters only if it is smaller
 * than every entry where the scan went left since it last went right; going
 * right at entry i makes key i+1 the candidate.  The candidate is the key
 * the blind trie search reaches, which shares the longest prefix with the
 * search key among all stored keys.
 */
static void
st_descend(const SeqTree *st, const uint8_t *key, SeqTreePath *path)
{
	int			nkeybits = st->keylen * 8;
	int			lo = 0;
	int			hi = st->nkeys - 2;
	int			node = 0;
	int			limit;
	int			depth;

	path->nlefts = 0;
	path->nrights = 0;
	for (depth = 0; depth < st->levels && lo <= hi; depth++)
	{
		int			m = st_node(st, node);

		/* a damaged BlindiTree only costs a longer scan, never a bad read */
		if (m < lo || m > hi)
			break;
		if (st_keybit(key, st_bit(st, m), nkeybits))
		{
			path->rights[path->nrights++] = m;
			lo = m + 1;
			node = 2 * node + 2;
		}
		else
		{
			path->lefts[path->nlefts++] = m;
			hi = m - 1;
			node = 2 * node + 1;
		}
	}
	path->lo = lo;
	path->hi = hi;
	path->cand = lo;
	limit = ST_NO_LIMIT;
	for (int i = lo; i <= hi; i++)
	{
		int			b = st_bit(st, i);

		if (b < limit)
		{
			if (st_keybit(key, b, nkeybits))
			{
				path->cand = i + 1;
				limit = ST_NO_LIMIT;
			}
			else
				limit = b;
		}
	}
}

/*
 * Stage 3 of a search: the candidate's key first differs from the search
 * key at bit d (< the key's bits), and no stored key agrees with the search
 * key beyond bit d, so the keys next to the candidate that share its first
 * d bits form a run bounded by the first entries < d on either side.  Look
 * for that entry in the scanned range first, then among the BlindiTree
 * nodes on the search path (deepest first); the subtrees in between only
 * hold entries larger than their node's.  Returns the predecessor.
 */
static int
st_locate(const SeqTree *st, const uint8_t *key, const SeqTreePath *path,
		  int d, SeqTreeLocation *loc)
{
	int			n = st->nkeys;
	int			i;

	if (st_keybit(key, d, st->keylen * 8))
	{
		/* key > candidate: the predecessor ends the run on the right */
		int			pos = n - 1;

		for (i = path->cand; i <= path->hi; i++)
		{
			if (st_bit(st, i) < d)
			{
				pos = i;
				break;
			}
		}
		if (i > path->hi)
		{
			for (i = path->nlefts - 1; i >= 0; i--)
			{
				if (st_bit(st, path->lefts[i]) < d)
				{
					pos = path->lefts[i];
					break;
				}
			}
		}
		loc->pos = pos;
		loc->lbit = d;
		loc->rbit = pos < n - 1 ? st_bit(st, pos) : 0;
		return pos;
	}
	else
	{
		/* key < candidate: the successor starts the run on the left */
		int			pos = -1;

		for (i = path->cand - 1; i >= path->lo; i--)
		{
			if (st_bit(st, i) < d)
			{
				pos = i;
				break;
			}
		}
		if (i < path->lo)
		{
			for (i = path->nrights - 1; i >= 0; i--)
			{
				if (st_bit(st, path->rights[i]) < d)
				{
					pos = path->rights[i];
					break;
				}
			}
		}
		loc->pos = pos;
		loc->rbit = d;
		loc->lbit = pos >= 0 ? st_bit(st, pos) : 0;
		return pos;
	}
}

/*
 * Find the largest stored key <= key (keylen bytes).  Returns its position,
 * or -1 if every stored key is greater; *loc (if not NULL) gets the
 * details, including what seqtree_insert_at needs to insert key.  Reads
 * exactly one stored key through get_key, none if the tree is empty.
 */
int
seqtree_search(const SeqTree *st, const uint8_t *key,
			   SeqTreeGetKey get_key, void *arg, SeqTreeLocation *loc)
{
	SeqTreeLocation dummy;
	SeqTreePath path;
	int			d;

	if (loc == NULL)
		loc = &dummy;
	loc->exact = false;
	loc->lbit = 0;
	loc->rbit = 0;
	if (st->nkeys == 0)
	{
		loc->pos = -1;
		return -1;
	}

	st_descend(st, key, &path);

	/* Stage 2: the one key read. */
	d = seqtree_diff_bit(key, get_key(arg, path.cand), st->keylen);
	if (d >= st->keylen * 8)
	{
		loc->pos = path.cand;
		loc->exact = true;
		return path.cand;
	}
	return st_locate(st, key, &path, d, loc);
}

/*
 * seqtree_search for a caller some of whose keys may be unreadable: get_key
 * may return NULL.  When the candidate c is unreadable, another key of the
 * same subtree stands in for it.  Key a first differs from key c at bit
 * m = min(bits[] between them) and from the search key at bit d.  c shares
 * the longest prefix with the search key, so d <= m.  If d < m, the search
 * key first differs from key c at d too, and stage 3 runs with that d.  If
 * d == m, key c agrees with the search key beyond m, so the answer lies
 * among c's neighbours that share more than m bits with it (bits[] > m
 * between them and c), and another key of that smaller run is tried.  The
 * nearest untried keys are tried first, and at most maxreads (>= 1) keys
 * are read in all (a leaf full of dead entries must not cost a read of
 * each).
 * Returns what seqtree_search returns; or SEQTREE_AMBIGUOUS if the keys it
 * could read do not settle the search, when the largest key <= the search
 * key is one of *minpos .. *maxpos, the run left (c - 1 .. c when the run
 * narrowed to c alone).  Returns SEQTREE_CORRUPT if a key read contradicts
 * bits[].  *nreads (if not NULL) gets the number of get_key calls.
 */
int
seqtree_search_tolerant(const SeqTree *st, const uint8_t *key,
						SeqTreeGetKey get_key, void *arg,
						SeqTreeLocation *loc, int maxreads, int *minpos,
						int *maxpos, int *nreads)
{
	SeqTreeLocation dummy;
	SeqTreePath path;
	const uint8_t *ckey;
	int			nkeybits = st->keylen * 8;
	int			reads = 0;
	int			c,
				runlo,
				runhi,
				left,
				right,
				result = SEQTREE_AMBIGUOUS;

	if (loc == NULL)
		loc = &dummy;
	loc->exact = false;
	loc->lbit = 0;
	loc->rbit = 0;
	loc->pos = -1;
	if (nreads == NULL)
		nreads = &reads;
	*nreads = 0;
	if (st->nkeys == 0)
		return -1;

	st_descend(st, key, &path);
	c = path.cand;
	ckey = get_key(arg, c);
	(*nreads)++;
	if (ckey != NULL)
	{
		int			d = seqtree_diff_bit(key, ckey, st->keylen);

		if (d >= nkeybits)
		{
			loc->pos = c;
			loc->exact = true;
			return c;
		}
		return st_locate(st, key, &path, d, loc);
	}

	/* the run [runlo, runhi] around c holds the answer; try its keys */
	runlo = 0;
	runhi = st->nkeys - 1;
	left = c - 1;
	right = c + 1;
	while ((left >= runlo || right <= runhi) && *nreads < maxreads)
	{
		const uint8_t *akey;
		int			a;
		int			m = ST_NO_LIMIT;
		int			d,
					lo,
					hi;

		if (right <= runhi && (left < runlo || right - c <= c - left))
			a = right++;
		else
			a = left--;
		akey = get_key(arg, a);
		(*nreads)++;
		if (akey == NULL)
			continue;

		for (int i = (a < c ? a : c); i < (a < c ? c : a); i++)
		{
			int			b = st_bit(st, i);

			if (b < m)
				m = b;
		}
		d = seqtree_diff_bit(key, akey, st->keylen);
		if (d < m)
			return st_locate(st, key, &path, d, loc);
		if (d > m)
		{
			result = SEQTREE_CORRUPT;
			break;
		}

		/* the search key and key c agree beyond m: narrow the run */
		lo = c;
		while (lo > runlo && st_bit(st, lo - 1) > m)
			lo--;
		hi = c;
		while (hi < runhi && st_bit(st, hi) > m)
			hi++;
		runlo = lo;
		runhi = hi;
	}
	loc->pos = c;
	*minpos = runlo - 1;
	*maxpos = runhi;
	return result;
}

/*
 * Find the largest stored key <= bound from a key already at hand: poskey,
 * the key at position pos, which is <= bound.  Reads no key: with d the
 * first bit in which poskey and bound differ (poskey has 0 there, bound 1)
 * and m the first bit in which key pos and a later key j differ, the
 * minimum of bits[pos..j-1], key j is < bound if m > d (it agrees with
 * poskey through bit d) and > bound if m < d (it has 1 at bit m, where
 * bound agrees with poskey's 0); only m == d leaves it open.  Returns the
 * largest position <= bound, or SEQTREE_AMBIGUOUS if bits[] alone cannot
 * tell (the caller searches then).  Linear in the keys it passes over.
 */
int
seqtree_last_le_from(const SeqTree *st, int pos, const uint8_t *poskey,
					 const uint8_t *bound)
{
	int			d = seqtree_diff_bit(poskey, bound, st->keylen);
	int			m = ST_NO_LIMIT;

	if (pos < 0 || pos >= st->nkeys)
		return SEQTREE_AMBIGUOUS;
	for (int j = pos; j < st->nkeys - 1; j++)
	{
		int			b = st_bit(st, j);

		if (b < m)
			m = b;
		if (m < d)
			return j;
		if (m == d)
			return SEQTREE_AMBIGUOUS;
	}
	return st->nkeys - 1;
}

/*
 * The stored keys that share their first prefixbits bits with key, found
 * without reading a key: if any key does, the blind descent's candidate
 * does (it shares the longest prefix with key), and those keys are the run
 * of neighbours bits[] joins to it at prefixbits or later.  If none does,
 * the run found is the candidate's own (its keys share prefixbits bits with
 * each other, not with key), which the caller cannot tell from the first
 * case without reading a key.  Sets *lo and *hi to the run's first and last
 * positions and returns true; returns false, setting neither, on an empty
 * tree or a run of more than maxrun keys.
 */
bool
seqtree_prefix_run(const SeqTree *st, const uint8_t *key, int prefixbits,
				   int maxrun, int *lo, int *hi)
{
	SeqTreePath path;
	int			first;
	int			last;

	if (st->nkeys == 0 || maxrun < 1)
		return false;
	st_descend(st, key, &path);
	first = last = path.cand;
	/* bits[i] >= prefixbits: keys i and i + 1 share prefixbits bits */
	while (first > 0 && st_bit(st, first - 1) >= prefixbits)
	{
		if (last - first + 1 >= maxrun)
			return false;
		first--;
	}
	while (last < st->nkeys - 1 && st_bit(st, last) >= prefixbits)
	{
		if (last - first + 1 >= maxrun)
			return false;
		last++;
	}
	*lo = first;
	*hi = last;
	return true;
}

/*
 * Insert key (keylen bytes).  Returns its new position (keys at that
 * position and beyond move one to the right), SEQTREE_DUPLICATE if it is
 * already stored, SEQTREE_FULL if the image would not fit (no key is read
 * then), or SEQTREE_CORRUPT if the key read through get_key is inconsistent
 * with bits[] (a damaged tree or a wrong callback); nothing changes then.  *loc (if not NULL) receives the search result, whose
 * pos + 1, lbit and rbit replay the insertion with seqtree_insert_at.
 * Reads one stored key, none if the tree was empty.
 */
int
seqtree_insert(SeqTree *st, const uint8_t *key, SeqTreeGetKey get_key,
			   void *arg, SeqTreeLocation *loc)
{
	SeqTreeLocation dummy;

	if (loc == NULL)
		loc = &dummy;
	if (!st_room(st, st->nkeys + 1))
	{
		loc->pos = -1;
		loc->exact = false;
		loc->lbit = loc->rbit = 0;
		return SEQTREE_FULL;
	}
	seqtree_search(st, key, get_key, arg, loc);
	if (loc->exact)
		return SEQTREE_DUPLICATE;
	if (!seqtree_insert_at(st, loc->pos + 1, loc->lbit, loc->rbit))
		return SEQTREE_CORRUPT;
	return loc->pos + 1;
}

/*
 * Plan the insertion of a key at position pos (see seqtree_insert_at): the
 * value *v that enters bits[] at index *t (*t = -1 when the tree is empty
 * and only nkeys changes).  Returns false if there is no room or the bits
 * cannot describe such a key.  Changes nothing.
 */
static bool
st_insert_plan(const SeqTree *st, int pos, int lbit, int rbit, int *t, int *v)
{
	int			n = st->nkeys;
	int			nkeybits = st->keylen * 8;

	if (pos < 0 || pos > n || !st_room(st, n + 1))
		return false;
	if (n == 0)
	{
		*t = -1;
		*v = 0;
		return true;
	}
	if (pos == 0)
	{
		/* new entry d(new, k[0]) in front */
		*t = 0;
		*v = rbit;
	}
	else if (pos == n)
	{
		/* new entry d(k[n-1], new) at the end */
		*t = n - 1;
		*v = lbit;
	}
	else
	{
		/*
		 * The old entry between keys pos-1 and pos is the smaller of the two
		 * new ones; the larger one is inserted next to it.
		 */
		int			old = st_bit(st, pos - 1);

		if (lbit < 0 || rbit < 0 || lbit == rbit ||
			(lbit < rbit ? lbit : rbit) != old)
			return false;
		if (lbit > rbit)
		{
			*t = pos - 1;
			*v = lbit;
		}
		else
		{
			*t = pos;
			*v = rbit;
		}
	}
	return *v >= 0 && *v < nkeybits && st_insert_ok(st, *t, *v);
}

/*
 * Whether seqtree_insert_at(st, pos, lbit, rbit) would succeed: the same
 * tests (position, room, lbit / rbit against the entry they replace, the
 * new entry below the key's bit count and not a second minimum of any
 * range), changing nothing.  A caller that must not fail halfway (a page
 * change inside a critical section) runs it first: on a damaged bits[] a
 * search may hand back bits that no insertion can use.
 */
bool
seqtree_insert_check(const SeqTree *st, int pos, int lbit, int rbit)
{
	int			t,
				v;

	return st_insert_plan(st, pos, lbit, rbit, &t, &v);
}

/*
 * Insert a key at position pos (0..nkeys) without reading any key: lbit is
 * the first bit in which key pos-1 and the new key differ (ignored when
 * pos == 0), rbit the first bit in which the new key and key pos differ
 * (ignored when pos == nkeys).  Returns false, changing nothing, if there
 * is no room or the bits cannot describe such a key (exactly when
 * seqtree_insert_check returns false).
 */
bool
seqtree_insert_at(SeqTree *st, int pos, int lbit, int rbit)
{
	int			t,
				v;

	if (!st_insert_plan(st, pos, lbit, rbit, &t, &v))
		return false;
	if (t < 0)
	{
		st_set_nkeys(st, 1);
		return true;
	}
	st_insert_bit(st, t, v);
	return true;
}

/*
 * Delete the key at position pos (keys beyond it move one to the left).
 * Reads no key: the entry between the new neighbours is the smaller of
 * the two entries around the deleted key.
 */
void
seqtree_delete(SeqTree *st, int pos)
{
	int			n = st->nkeys;
	int			t;

	if (pos < 0 || pos >= n)
		return;
	if (n == 1)
	{
		st_set_nkeys(st, 0);
		st_clear_subtree(st, 0, 0);
		return;
	}
	if (pos == 0)
		t = 0;
	else if (pos == n - 1)
		t = n - 2;
	else
		t = st_bit(st, pos - 1) > st_bit(st, pos) ? pos - 1 : pos;
	st_remove_bit(st, t);
}

/*
 * Delete the keys at the given positions (ascending, as they are before
 * the deletion) in one pass, then recompute the BlindiTree; the way to
 * remove many keys at once, as VACUUM does.  Reads no key.
 */
void
seqtree_delete_many(SeqTree *st, const int *positions, int npos)
{
	int			n = st->nkeys;
	int			k = 0,
				nw = 0,
				nkept = 0,
				pend = ST_NO_LIMIT,
				i;

	for (i = 0; i < n; i++)
	{
		bool		deleted = false;

		while (k < npos && positions[k] < i)
			k++;
		if (k < npos && positions[k] == i)
		{
			deleted = true;
			k++;
		}
		if (!deleted)
		{
			/* entry between the previous kept key and this one */
			if (nkept > 0)
				st_set_bit(st, nw++, pend);
			nkept++;
			pend = ST_NO_LIMIT;
		}
		if (i < n - 1)
		{
			int			b = st_bit(st, i);

			if (b < pend)
				pend = b;
		}
	}
	st_set_nkeys(st, nkept);
	st_rebuild_all(st);
}

/*
 * Split the tree before position at: keys at..nkeys-1 move into a new
 * tree "right" created in rbuf (space rspace, which must not overlap the
 * image), keys 0..at-1 stay.  *seambit (if not NULL) receives the entry
 * the split drops, the first bit in which keys at-1 and at differ, or -1
 * when one side is empty; it is what seqtree_merge_bit needs to undo the
 * split.  Reads no key.  Returns false, changing nothing, if at is out of
 * range or the right tree does not fit.
 */
bool
seqtree_split(SeqTree *st, int at, SeqTree *right, void *rbuf, size_t rspace,
			  int *seambit)
{
	int			n = st->nkeys;
	int			nr = n - at;
	int			seam;

	if (at < 0 || at > n ||
		seqtree_size(nr, st->keylen, st->levels) > rspace ||
		!seqtree_init(right, rbuf, rspace, st->keylen, st->levels))
		return false;

	seam = (at > 0 && at < n) ? st_bit(st, at - 1) : -1;
	if (nr > 1)
		memcpy(ST_BITS(right), ST_BITS(st) + (size_t) at * st->bitwidth,
			   (size_t) (nr - 1) * st->bitwidth);
	st_set_nkeys(right, nr);
	st_rebuild_all(right);

	st_set_nkeys(st, at);
	st_rebuild_all(st);
	if (seambit)
		*seambit = seam;
	return true;
}

/*
 * Append the keys of "right" (all greater than those of "left") to left.
 * seambit is the first bit in which left's last key and right's first key
 * differ (ignored if either tree is empty).  Reads no key; right is not
 * changed.  Returns false, changing nothing, if the key lengths differ,
 * the result does not fit in left's space, or seambit is impossible.
 */
bool
seqtree_merge_bit(SeqTree *left, const SeqTree *right, int seambit)
{
	int			nl = left->nkeys;
	int			nr = right->nkeys;
	int			w = left->bitwidth;
	int			i;

	if (left->keylen != right->keylen || !st_room(left, nl + nr))
		return false;
	if (nr == 0)
		return true;
	if (nl > 0)
	{
		/* seambit must not be the minimum of a range twice */
		if (seambit < 0 || seambit >= left->keylen * 8)
			return false;
		for (i = nl - 2; i >= 0; i--)
		{
			int			b = st_bit(left, i);

			if (b <= seambit)
			{
				if (b == seambit)
					return false;
				break;
			}
		}
		for (i = 0; i < nr - 1; i++)
		{
			int			b = st_bit(right, i);

			if (b <= seambit)
			{
				if (b == seambit)
					return false;
				break;
			}
		}
		st_set_bit(left, nl - 1, seambit);
		memmove(ST_BITS(left) + (size_t) nl * w, ST_BITS(right),
				(size_t) (nr - 1) * w);
	}
	else
		memmove(ST_BITS(left), ST_BITS(right), (size_t) (nr - 1) * w);
	st_set_nkeys(left, nl + nr);
	st_rebuild_all(left);
	return true;
}

/*
 * Append the keys of "right" to "left" as seqtree_merge_bit does, computing
 * the seam bit from left's last key and right's first key.  The caller
 * passes whichever of them it already has (or NULL); the others are read
 * through get_key, whose positions number the merged sequence (left's keys
 * 0..nl-1, then right's nl..nl+nr-1).  So the merge reads at most one key
 * when the caller holds one of the two.  Returns false, changing nothing,
 * if it does not fit or the keys at the seam are not ascending.
 */
bool
seqtree_merge(SeqTree *left, const SeqTree *right,
			  const uint8_t *left_last, const uint8_t *right_first,
			  SeqTreeGetKey get_key, void *arg)
{
	uint8_t		buf[SEQTREE_MAX_KEYLEN];
	int			nl = left->nkeys;
	int			nkeybits = left->keylen * 8;
	int			seam;

	if (left->keylen != right->keylen || !st_room(left, nl + right->nkeys))
		return false;
	if (nl == 0 || right->nkeys == 0)
		return seqtree_merge_bit(left, right, 0);

	if (left_last == NULL)
	{
		memcpy(buf, get_key(arg, nl - 1), left->keylen);
		left_last = buf;
	}
	if (right_first == NULL)
		right_first = get_key(arg, nl);
	seam = seqtree_diff_bit(left_last, right_first, left->keylen);
	if (seam >= nkeybits || st_keybit(right_first, seam, nkeybits) == 0)
		return false;
	return seqtree_merge_bit(left, right, seam);
}

/*
 * Verify the BlindiTree subtree at "node" covering bits[lo..hi]: every node
 * must point at the minimum of its range, empty ranges must be marked
 * SEQTREE_ET.  Returns an error message or NULL.
 */
static const char *
st_check_subtree(const SeqTree *st, int node, int depth, int lo, int hi,
				 int *badpos)
{
	int			m;
	const char *err;

	if (depth >= st->levels)
		return NULL;
	m = st_node(st, node);
	if (lo > hi)
	{
		if (m != SEQTREE_ET)
		{
			*badpos = node;
			return "BlindiTree node for an empty range is not ET";
		}
		err = st_check_subtree(st, 2 * node + 1, depth + 1, lo, hi, badpos);
		if (err == NULL)
			err = st_check_subtree(st, 2 * node + 2, depth + 1, lo, hi, badpos);
		return err;
	}
	if (m == SEQTREE_ET || m < lo || m > hi || m != st_argmin(st, lo, hi))
	{
		*badpos = node;
		return "BlindiTree node does not point at the minimum of its range";
	}
	err = st_check_subtree(st, 2 * node + 1, depth + 1, lo, m - 1, badpos);
	if (err == NULL)
		err = st_check_subtree(st, 2 * node + 2, depth + 1, m + 1, hi, badpos);
	return err;
}

/*
 * Verify the tree.  Without get_key (NULL) only the structure is checked,
 * reading no key: the header, the range of every entry of bits[], that no
 * range of bits[] has two minima (true for the bits of any distinct keys)
 * and that the BlindiTree matches bits[].  With get_key, each stored key
 * is also read once and bits[] compared with the keys, which must be
 * strictly ascending.  Returns NULL if all is well, else a message; then
 * *badpos (if not NULL) gets the position, entry or node concerned.
 */
const char *
seqtree_check(const SeqTree *st, SeqTreeGetKey get_key, void *arg,
			  int *badpos)
{
	uint16_t	spine[SEQTREE_MAX_KEYLEN * 8];
	uint8_t		prev[SEQTREE_MAX_KEYLEN];
	int			dummy;
	int			nb = ST_NBITS(st);
	int			nkeybits = st->keylen * 8;
	int			depth = 0;
	int			i;
	const char *err;

	if (badpos == NULL)
		badpos = &dummy;
	*badpos = -1;

	if (st->keylen < 1 || st->keylen > SEQTREE_MAX_KEYLEN ||
		st->levels < 0 || st->levels > SEQTREE_MAX_LEVELS ||
		st->bitwidth != st_bitwidth(st->keylen) ||
		st->nkeys < 0 || st->nkeys > SEQTREE_MAX_KEYS)
		return "invalid SeqTree handle";
	if (st_load16(st->img) != st->nkeys || st->img[2] != st->keylen ||
		st->img[3] != st->levels)
		return "SeqTree handle does not match its image header";
	if (seqtree_used(st) > st->space)
		return "SeqTree image is larger than its space";

	/*
	 * The right spine of the Cartesian tree of bits[0..i] has strictly
	 * increasing values below nkeybits, so it fits in "spine".  A new entry
	 * pops the larger ones; meeting an equal one means a range with two
	 * minima.
	 */
	for (i = 0; i < nb; i++)
	{
		int			b = st_bit(st, i);

		if (b >= nkeybits)
		{
			*badpos = i;
			return "discriminating bit beyond the key length";
		}
		while (depth > 0 && spine[depth - 1] > b)
			depth--;
		if (depth > 0 && spine[depth - 1] == b)
		{
			*badpos = i;
			return "discriminating bits describe no set of distinct keys";
		}
		spine[depth++] = (uint16_t) b;
	}

	err = st_check_subtree(st, 0, 0, 0, nb - 1, badpos);
	if (err != NULL || get_key == NULL)
		return err;

	for (i = 0; i < st->nkeys; i++)
	{
		const uint8_t *key = get_key(arg, i);

		if (i > 0)
		{
			int			d = seqtree_diff_bit(prev, key, st->keylen);

			if (d >= nkeybits || st_keybit(key, d, nkeybits) == 0)
			{
				*badpos = i;
				return "keys are not strictly ascending";
			}
			if (d != st_bit(st, i - 1))
			{
				*badpos = i - 1;
				return "discriminating bit does not match the keys";
			}
		}
		memcpy(prev, key, st->keylen);
	}
	return NULL;
}
