/*-------------------------------------------------------------------------
 *
 * seqtree_test.c
 *	  Unit and randomized differential tests of the SeqTree compact leaf
 *	  format (src/lib/seqtree.c), run by "make unittest".
 *
 * Every operation is checked against a model: a sorted array of the keys.
 * The model also serves the keys to the SeqTree callback and counts the
 * calls, so the read bounds (one key per search or insert, none per
 * delete or split, at most two per merge) are checked too.  After changes
 * the tree's image is compared byte for byte with an image built from
 * scratch out of the model's keys, which checks the incremental upkeep of
 * the BlindiTree.
 *
 * Environment:
 *	SEQTREE_TEST_ITERATIONS  number of random trees (default 2000)
 *	SEQTREE_TEST_SEED        base seed (default fixed)
 *	SEQTREE_TEST_VERBOSE     print each random tree's parameters
 *	SEQTREE_TEST_BENCH       also time searches for each BlindiTree depth
 *
 * test/unit/seqtree_test.c
 *
 *-------------------------------------------------------------------------
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "seqtree.h"

#define TID_LEN		6
#define PAGE_USABLE (8192 - 24 - 16)	/* page minus header and special */

static long n_checks = 0;
static long n_failures = 0;

#define CHECK(cond, ...) \
	do { \
		n_checks++; \
		if (!(cond)) \
		{ \
			n_failures++; \
			if (n_failures <= 30) \
			{ \
				fprintf(stderr, "%s:%d: check failed: %s: ", __FILE__, __LINE__, #cond); \
				fprintf(stderr, __VA_ARGS__); \
				fputc('\n', stderr); \
			} \
		} \
	} while (0)

/* ----------------------------------------------------------------
 * Random numbers (splitmix64: fixed seeds give fixed runs)
 * ----------------------------------------------------------------
 */
typedef struct Rng
{
	uint64_t	s;
} Rng;

/* Next 64 random bits. */
static uint64_t
rng_next(Rng *r)
{
	uint64_t	z = (r->s += 0x9E3779B97F4A7C15ULL);

	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
	return z ^ (z >> 31);
}

/* Uniform integer in [0, n). */
static int
rng_int(Rng *r, int n)
{
	return (int) (rng_next(r) % (uint64_t) n);
}

/* Uniform integer in [lo, hi]. */
static int
rng_range(Rng *r, int lo, int hi)
{
	return lo + rng_int(r, hi - lo + 1);
}

/* ----------------------------------------------------------------
 * The model: a sorted array of keys, also serving the callback
 * ----------------------------------------------------------------
 */
typedef struct Model
{
	int			keylen;
	int			n;
	int			cap;
	uint8_t    *keys;			/* n * keylen bytes, ascending */
	long		reads;			/* callback calls */
	int			lastpos;		/* position of the last callback */
	int			base;			/* callback position of keys[0] */
	struct Model *next;			/* keys after ours, for merges */
} Model;

/* Create an empty model able to hold cap keys. */
static void
model_init(Model *m, int keylen, int cap)
{
	m->keylen = keylen;
	m->n = 0;
	m->cap = cap;
	m->keys = malloc((size_t) (cap > 0 ? cap : 1) * keylen);
	m->reads = 0;
	m->lastpos = 0;
	m->base = 0;
	m->next = NULL;
}

/* Release a model's memory. */
static void
model_free(Model *m)
{
	free(m->keys);
	m->keys = NULL;
}

/* Key at position i. */
static uint8_t *
model_key(const Model *m, int i)
{
	return m->keys + (size_t) i * m->keylen;
}

/* Key at position i of a merge's right model (positions past the left's). */
static const uint8_t *
model_get_next(Model *m, int i)
{
	Model	   *r = m->next;
	int			j = i - m->n;

	CHECK(j >= 0 && j < r->n, "merge callback position %d outside right tree", i);
	if (j < 0 || j >= r->n)
		return model_key(m, 0);
	return model_key(r, j);
}

/* SeqTreeGetKey over the model (and the one chained after it). */
static const uint8_t *
model_get(void *arg, int pos)
{
	static uint8_t junk[SEQTREE_MAX_KEYLEN];
	Model	   *m = (Model *) arg;
	int			i = pos - m->base;

	m->reads++;
	m->lastpos = pos;
	if (i >= m->n && m->next != NULL)
		return model_get_next(m, i);
	CHECK(i >= 0 && i < m->n, "callback position %d outside 0..%d", pos, m->n - 1);
	if (i < 0 || i >= m->n)
		return junk;
	return model_key(m, i);
}

/* Position of the largest key <= key, or -1; *exact says if equal. */
static int
model_pred(const Model *m, const uint8_t *key, int *exact)
{
	int			lo = 0,
				hi = m->n;		/* first key > key lies in [lo, hi] */

	while (lo < hi)
	{
		int			mid = (lo + hi) / 2;

		if (memcmp(model_key(m, mid), key, m->keylen) <= 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	*exact = lo > 0 && memcmp(model_key(m, lo - 1), key, m->keylen) == 0;
	return lo - 1;
}

/* Insert key at position pos. */
static void
model_insert(Model *m, int pos, const uint8_t *key)
{
	memmove(model_key(m, pos + 1), model_key(m, pos),
			(size_t) (m->n - pos) * m->keylen);
	memcpy(model_key(m, pos), key, m->keylen);
	m->n++;
}

/* Delete the key at position pos. */
static void
model_delete(Model *m, int pos)
{
	memmove(model_key(m, pos), model_key(m, pos + 1),
			(size_t) (m->n - pos - 1) * m->keylen);
	m->n--;
}

/* qsort comparator for keys of a global length. */
static int	sort_keylen;

/* Compare two keys of sort_keylen bytes. */
static int
cmp_keys(const void *a, const void *b)
{
	return memcmp(a, b, sort_keylen);
}

/* Sort an array of n keys and drop duplicates; returns the new count. */
static int
sort_unique(uint8_t *keys, int n, int keylen)
{
	int			i,
				w = 0;

	sort_keylen = keylen;
	qsort(keys, n, keylen, cmp_keys);
	for (i = 0; i < n; i++)
	{
		if (w > 0 && memcmp(keys + (size_t) (w - 1) * keylen,
							keys + (size_t) i * keylen, keylen) == 0)
			continue;
		memmove(keys + (size_t) w * keylen, keys + (size_t) i * keylen, keylen);
		w++;
	}
	return w;
}

/* ----------------------------------------------------------------
 * Helpers around the tree
 * ----------------------------------------------------------------
 */

/* Build a tree image from scratch out of the model's keys, in buf. */
static void
build_reference(const Model *m, int levels, uint8_t *buf, size_t space,
				SeqTree *ref)
{
	Model		tmp = *m;
	bool		ok;

	tmp.base = 0;
	tmp.next = NULL;
	tmp.reads = 0;
	ok = seqtree_init(ref, buf, space, m->keylen, levels);
	CHECK(ok, "seqtree_init for the reference failed");
	ok = seqtree_build(ref, m->n, model_get, &tmp);
	CHECK(ok, "seqtree_build of %d keys failed", m->n);
	CHECK(tmp.reads == m->n, "build read %ld keys for %d", tmp.reads, m->n);
}

/*
 * Check the tree against the model: structure, bits against keys, and the
 * image against one built from scratch.
 */
static void
check_tree(const SeqTree *st, Model *m, const char *when)
{
	uint8_t    *buf;
	SeqTree		ref;
	const char *err;
	int			bad;
	long		reads = m->reads;
	size_t		used = seqtree_used(st);

	CHECK(st->nkeys == m->n, "%s: tree has %d keys, model %d", when, st->nkeys, m->n);
	err = seqtree_check(st, NULL, NULL, &bad);
	CHECK(err == NULL, "%s: structure: %s at %d", when, err, bad);
	CHECK(m->reads == reads, "%s: structural check read keys", when);
	if (st->nkeys != m->n)
		return;
	err = seqtree_check(st, model_get, m, &bad);
	CHECK(err == NULL, "%s: keys: %s at %d", when, err, bad);
	CHECK(m->reads == reads + m->n, "%s: check read %ld keys for %d", when,
		  m->reads - reads, m->n);
	m->reads = reads;

	buf = malloc(used + 16);
	build_reference(m, st->levels, buf, used + 16, &ref);
	CHECK(seqtree_used(&ref) == used, "%s: image sizes differ", when);
	CHECK(memcmp(ref.img, st->img, used) == 0,
		  "%s: image differs from one built from scratch (n=%d levels=%d)",
		  when, m->n, st->levels);
	free(buf);
}

/*
 * Check the insertion bits of a search for key that found no equal key and
 * whose predecessor is want.
 */
static void
check_insert_bits(const Model *m, const uint8_t *key, int want,
				  const SeqTreeLocation *loc, const char *what)
{
	if (want >= 0)
		CHECK(loc->lbit == seqtree_diff_bit(model_key(m, want), key, m->keylen),
			  "%s: lbit %d", what, loc->lbit);
	if (want < m->n - 1)
		CHECK(loc->rbit == seqtree_diff_bit(key, model_key(m, want + 1), m->keylen),
			  "%s: rbit %d", what, loc->rbit);
}

/* Search key in the tree and compare everything with the model. */
static void
check_search(const SeqTree *st, Model *m, const uint8_t *key, const char *what)
{
	SeqTreeLocation loc;
	long		reads = m->reads;
	int			exact;
	int			want = model_pred(m, key, &exact);
	int			got = seqtree_search(st, key, model_get, m, &loc);

	CHECK(got == want && loc.pos == want, "%s: search got %d want %d (n=%d)",
		  what, got, want, m->n);
	CHECK(loc.exact == (exact != 0), "%s: exact %d want %d", what, loc.exact, exact);
	CHECK(m->reads - reads == (m->n > 0 ? 1 : 0),
		  "%s: search read %ld keys (n=%d, %s)", what, m->reads - reads, m->n,
		  exact ? "hit" : "miss");
	if (got == want && !exact)
		check_insert_bits(m, key, want, &loc, what);
}

/* Counters of seqtree_last_le_from. */
static long ops_last_le,
			n_last_le_settled;

/*
 * seqtree_last_le_from from the keys at positions up to the largest key <=
 * bound (the model's answer): the answer or SEQTREE_AMBIGUOUS, and the
 * answer whenever bound equals the key at hand or the next key differs
 * from it before bound does (a point lookup's upper bound, whose next
 * entry differs in the first column).
 */
static void
check_last_le_from(const SeqTree *st, Model *m, const uint8_t *bound,
				   const char *what)
{
	int			exact;
	int			want = model_pred(m, bound, &exact);

	for (int pos = want - 3 < 0 ? 0 : want - 3; pos <= want; pos++)
	{
		const uint8_t *k = model_key(m, pos);
		int			got = seqtree_last_le_from(st, pos, k, bound);
		int			d = seqtree_diff_bit(k, bound, m->keylen);

		ops_last_le++;
		if (got != SEQTREE_AMBIGUOUS)
			n_last_le_settled++;
		CHECK(got == want || got == SEQTREE_AMBIGUOUS,
			  "%s: last <= bound from %d gave %d, want %d (n=%d)", what, pos,
			  got, want, m->n);
		if (pos == want && (d >= m->keylen * 8 || pos == m->n - 1 ||
							seqtree_get_bit(st, pos) < d))
			CHECK(got == want, "%s: last <= bound from %d unsettled (want %d)",
				  what, pos, want);
	}
}

/* Counters of seqtree_prefix_run. */
static long ops_prefix_run,
			n_prefix_run_matched,
			n_prefix_run_other,
			n_prefix_run_long;

/*
 * seqtree_prefix_run for key and prefixbits: when some stored keys share
 * prefixbits bits with key, the run is exactly those keys (or refused as
 * longer than maxrun, only if it is); when none does, the run (if not
 * refused) is a whole run of keys sharing prefixbits bits with each other
 * and longer than maxrun only never.  It reads no key (it takes no
 * callback, and the model's counter stays put).
 */
static void
check_prefix_run(const SeqTree *st, Model *m, const uint8_t *key,
				 int prefixbits, int maxrun, const char *what)
{
	int			lo = -2;
	int			hi = -2;
	int			first = -1;
	int			last = -1;
	long		reads = m->reads;
	bool		ok = seqtree_prefix_run(st, key, prefixbits, maxrun, &lo, &hi);

	ops_prefix_run++;
	for (int i = 0; i < m->n; i++)
	{
		if (seqtree_diff_bit(model_key(m, i), key, m->keylen) >= prefixbits)
		{
			if (first < 0)
				first = i;
			last = i;
		}
	}
	CHECK(m->reads == reads, "%s: prefix run read keys", what);
	if (m->n == 0)
	{
		CHECK(!ok, "%s: prefix run of an empty tree", what);
		return;
	}
	if (first >= 0)
	{
		/* the keys that match are contiguous: sorted keys sharing a prefix */
		if (last - first + 1 > maxrun)
		{
			n_prefix_run_long++;
			CHECK(!ok, "%s: prefix run %d..%d longer than %d taken", what,
				  first, last, maxrun);
		}
		else
		{
			n_prefix_run_matched++;
			CHECK(ok && lo == first && hi == last,
				  "%s: prefix run gave %s %d..%d, want %d..%d (bits %d, n=%d)",
				  what, ok ? "" : "(refused)", lo, hi, first, last,
				  prefixbits, m->n);
		}
		return;
	}
	if (!ok)
	{
		n_prefix_run_long++;
		return;
	}
	n_prefix_run_other++;
	CHECK(lo >= 0 && lo <= hi && hi < m->n && hi - lo + 1 <= maxrun,
		  "%s: prefix run %d..%d (n=%d, max %d)", what, lo, hi, m->n, maxrun);
	if (!(lo >= 0 && lo <= hi && hi < m->n))
		return;
	for (int i = lo; i < hi; i++)
		CHECK(seqtree_diff_bit(model_key(m, i), model_key(m, i + 1),
							   m->keylen) >= prefixbits,
			  "%s: prefix run %d..%d not one run at %d", what, lo, hi, i);
	CHECK(lo == 0 || seqtree_diff_bit(model_key(m, lo - 1), model_key(m, lo),
									  m->keylen) < prefixbits,
		  "%s: prefix run %d..%d goes on to the left", what, lo, hi);
	CHECK(hi == m->n - 1 ||
		  seqtree_diff_bit(model_key(m, hi), model_key(m, hi + 1),
						   m->keylen) < prefixbits,
		  "%s: prefix run %d..%d goes on to the right", what, lo, hi);
}

/* The model with some keys unreadable, for seqtree_search_tolerant. */
typedef struct MaskedModel
{
	Model	   *m;
	const bool *unreadable;		/* per position */
	bool	   *read;			/* per position: read already */
	long		reads;
} MaskedModel;

/* SeqTreeGetKey over a masked model: NULL for an unreadable key. */
static const uint8_t *
masked_get(void *arg, int pos)
{
	MaskedModel *mm = (MaskedModel *) arg;

	mm->reads++;
	CHECK(pos >= 0 && pos < mm->m->n, "tolerant callback position %d outside 0..%d",
		  pos, mm->m->n - 1);
	if (pos < 0 || pos >= mm->m->n)
		return NULL;
	CHECK(!mm->read[pos], "tolerant search read key %d twice", pos);
	mm->read[pos] = true;
	if (mm->unreadable[pos])
		return NULL;
	return model_key(mm->m, pos);
}

/* Counters of the tolerant searches. */
static long ops_tolerant,
			n_ambiguous,
			n_ambiguous_one,
			n_ambiguous_capped,
			max_reads_tolerant;

/*
 * Search key with the keys marked in unreadable[] unreadable: the result
 * must be the model's, or SEQTREE_AMBIGUOUS with the answer in the range
 * reported (never equal to the key at its start), the candidate c that of
 * seqtree_search, every key of that run unreadable, and no readable key
 * able to tell (each shares a shorter prefix with c than the search key
 * does).  No key is read twice.
 */
static void
check_search_tolerant(const SeqTree *st, Model *m, const uint8_t *key,
					  const bool *unreadable, int cand, int maxreads,
					  const char *what)
{
	bool	   *read = calloc(m->n > 0 ? m->n : 1, sizeof(bool));
	MaskedModel mm = {m, unreadable, read, 0};
	SeqTreeLocation loc;
	int			nreads = -1;
	int			minpos = -2;
	int			maxpos = -2;
	int			exact;
	int			nunreadable = 0;
	int			want = model_pred(m, key, &exact);
	int			got = seqtree_search_tolerant(st, key, masked_get, &mm, &loc,
											  maxreads, &minpos, &maxpos,
											  &nreads);

	ops_tolerant++;
	for (int i = 0; i < m->n; i++)
		nunreadable += unreadable[i];
	CHECK(nreads == mm.reads, "%s: tolerant search reported %d reads, made %ld",
		  what, nreads, mm.reads);
	CHECK(mm.reads <= m->n && mm.reads <= maxreads,
		  "%s: tolerant search read %ld keys of %d (at most %d)", what,
		  mm.reads, m->n, maxreads);
	free(read);
	if (mm.reads > max_reads_tolerant)
		max_reads_tolerant = mm.reads;
	if (got == SEQTREE_AMBIGUOUS)
	{
		int			c = loc.pos;
		int			dc;

		CHECK(c == cand, "%s: ambiguous at %d, but the candidate is %d", what,
			  c, cand);
		CHECK(!(exact && want == minpos),
			  "%s: ambiguous range %d..%d starts at the equal key", what,
			  minpos, maxpos);

		n_ambiguous++;
		if (maxpos == c && minpos == c - 1)
			n_ambiguous_one++;
		CHECK(c >= 0 && c < m->n && minpos < c && c <= maxpos && minpos >= -1 &&
			  maxpos < m->n, "%s: ambiguous at %d in %d..%d (n=%d)", what, c,
			  minpos, maxpos, m->n);
		if (c < 0 || c >= m->n || minpos < -1 || maxpos >= m->n)
			return;
		CHECK(want >= minpos && want <= maxpos,
			  "%s: ambiguous in %d..%d, answer %d", what, minpos, maxpos, want);
		if (mm.reads < maxreads)
		{
			/* it ran out of keys to try, not of reads */
			for (int j = minpos + 1; j <= maxpos; j++)
				CHECK(unreadable[j], "%s: ambiguous in %d..%d, key %d readable",
					  what, minpos, maxpos, j);
		}
		else
		{
			n_ambiguous_capped++;
			return;
		}
		dc = seqtree_diff_bit(key, model_key(m, c), m->keylen);
		for (int j = 0; j < m->n; j++)
			if (j != c && !unreadable[j])
				CHECK(seqtree_diff_bit(model_key(m, j), model_key(m, c), m->keylen) < dc,
					  "%s: ambiguous at %d though readable key %d could tell",
					  what, c, j);
		return;
	}
	CHECK(got == want && loc.pos == want,
		  "%s: tolerant search got %d want %d (n=%d, %d unreadable)",
		  what, got, want, m->n, nunreadable);
	CHECK(loc.exact == (exact != 0), "%s: tolerant exact %d want %d", what,
		  loc.exact, exact);
	if (nunreadable == 0)
		CHECK(mm.reads == (m->n > 0 ? 1 : 0),
			  "%s: tolerant search with every key readable read %ld", what, mm.reads);
	if (got == want && !exact)
		check_insert_bits(m, key, want, &loc, what);
}

/*
 * Tolerant searches for key: with the candidate seqtree_search reads
 * unreadable (a dead entry) and with a random share of all keys unreadable.
 */
static void
check_search_masks(const SeqTree *st, Model *m, Rng *r, const uint8_t *key)
{
	static const int shares[] = {0, 10, 50, 90, 100};
	bool	   *mask = calloc(m->n > 0 ? m->n : 1, sizeof(bool));
	long		reads = m->reads;
	int			share = shares[rng_int(r, 5)];
	int			cand = -1;

	if (m->n > 0)
	{
		seqtree_search(st, key, model_get, m, NULL);
		cand = m->lastpos;
		mask[cand] = true;
	}
	check_search_tolerant(st, m, key, mask, cand, INT32_MAX,
						  "tolerant, candidate unreadable");
	for (int i = 0; i < m->n; i++)
		mask[i] = rng_int(r, 100) < share;
	check_search_tolerant(st, m, key, mask, cand, INT32_MAX,
						  "tolerant, random keys unreadable");
	check_search_tolerant(st, m, key, mask, cand, rng_range(r, 1, 8),
						  "tolerant, random keys unreadable, few reads");
	m->reads = reads;
	free(mask);
}

/* Tree of its own buffer, for the tests that need several. */
typedef struct OwnedTree
{
	SeqTree		st;
	uint8_t    *buf;
	size_t		space;
} OwnedTree;

/* Create an empty owned tree with room for cap keys. */
static void
owned_init(OwnedTree *o, int keylen, int levels, int cap)
{
	bool		ok;

	o->space = seqtree_size(cap, keylen, levels);
	o->buf = malloc(o->space);
	ok = seqtree_init(&o->st, o->buf, o->space, keylen, levels);
	CHECK(ok, "seqtree_init(keylen %d, levels %d) failed", keylen, levels);
}

/* Release an owned tree. */
static void
owned_free(OwnedTree *o)
{
	free(o->buf);
	o->buf = NULL;
}

/* Fill a model with the given byte keys (keylen 1). */
static void
model_from_bytes(Model *m, const uint8_t *bytes, int n)
{
	int			i;

	for (i = 0; i < n; i++)
		memcpy(model_key(m, i), bytes + i, 1);
	m->n = n;
}

/* ----------------------------------------------------------------
 * Unit tests
 * ----------------------------------------------------------------
 */

/* seqtree_diff_bit on hand-made keys. */
static void
test_diff_bit(void)
{
	uint8_t		a[20],
				b[20];
	int			i;

	memset(a, 0, sizeof(a));
	memset(b, 0, sizeof(b));
	CHECK(seqtree_diff_bit(a, b, 20) == 160, "equal keys");
	b[0] = 0x80;
	CHECK(seqtree_diff_bit(a, b, 20) == 0, "first bit");
	b[0] = 0x01;
	CHECK(seqtree_diff_bit(a, b, 20) == 7, "bit 7");
	b[0] = 0;
	for (i = 0; i < 160; i++)
	{
		memset(b, 0, sizeof(b));
		b[i / 8] = (uint8_t) (0x80 >> (i % 8));
		b[19] |= 1;				/* later differences must not matter */
		CHECK(seqtree_diff_bit(a, b, 20) == i, "bit %d", i);
		CHECK(seqtree_diff_bit(b, a, 20) == i, "bit %d reversed", i);
	}
}

/* Size and capacity arithmetic. */
static void
test_sizes(void)
{
	int			keylen,
				levels,
				per;

	CHECK(seqtree_size(0, 14, 0) == SEQTREE_HEADER_SIZE, "empty, no tree");
	CHECK(seqtree_size(1, 14, 0) == SEQTREE_HEADER_SIZE, "one key");
	CHECK(seqtree_size(10, 14, 2) == SEQTREE_HEADER_SIZE + 6 + 9, "narrow");
	CHECK(seqtree_size(10, 33, 2) == SEQTREE_HEADER_SIZE + 6 + 18, "wide");
	for (keylen = 1; keylen <= 40; keylen += 13)
		for (levels = 0; levels <= 6; levels += 3)
			for (per = 0; per <= 8; per += 6)
			{
				size_t		space;

				for (space = 0; space < 3000; space += 7)
				{
					int			c = seqtree_capacity(space, keylen, levels, per);

					if (c > 0)
						CHECK(seqtree_size(c, keylen, levels) + (size_t) c * per <= space,
							  "capacity %d too large for %zu", c, space);
					if (c < SEQTREE_MAX_KEYS &&
						space >= seqtree_size(0, keylen, levels))
						CHECK(seqtree_size(c + 1, keylen, levels) +
							  (size_t) (c + 1) * per > space,
							  "capacity %d too small for %zu", c, space);
				}
			}
	CHECK(seqtree_capacity(1 << 30, 8, 0, 0) == SEQTREE_MAX_KEYS, "capped");
}

/*
 * A small tree of one-byte keys with known bits; every search result of
 * all 256 possible keys is checked, for every BlindiTree depth.
 */
static void
test_small_example(void)
{
	/* 00000010 00001011 01001010 01001100 01010101 10111001 10111111 11111111 */
	static const uint8_t keys[] = {0x02, 0x0B, 0x4A, 0x4C, 0x55, 0xB9, 0xBF, 0xFF};
	static const int expect_bits[] = {4, 1, 5, 3, 0, 5, 1};
	Model		m;
	int			levels;

	model_init(&m, 1, 16);
	model_from_bytes(&m, keys, 8);
	for (levels = 0; levels <= 4; levels++)
	{
		OwnedTree	o;
		int			i,
					k;

		owned_init(&o, 1, levels, 16);
		CHECK(seqtree_build(&o.st, m.n, model_get, &m), "build");
		for (i = 0; i < 7; i++)
			CHECK(seqtree_get_bit(&o.st, i) == expect_bits[i],
				  "bit %d is %d, want %d", i, seqtree_get_bit(&o.st, i),
				  expect_bits[i]);
		CHECK(seqtree_get_bit(&o.st, 7) == -1, "no bit 7");
		check_tree(&o.st, &m, "example");
		for (k = 0; k < 256; k++)
		{
			uint8_t		key = (uint8_t) k;

			check_search(&o.st, &m, &key, "example search");
		}
		owned_free(&o);
	}
	model_free(&m);
}

/* Empty and one-key trees. */
static void
test_tiny(void)
{
	OwnedTree	o;
	Model		m;
	uint8_t		key[8] = {1, 2, 3, 4, 5, 6, 7, 8};
	uint8_t		lo[8] = {0};
	uint8_t		hi[8] = {255, 255, 255, 255, 255, 255, 255, 255};

	model_init(&m, 8, 4);
	owned_init(&o, 8, 3, 4);
	check_search(&o.st, &m, key, "empty");
	CHECK(seqtree_insert(&o.st, key, model_get, &m, NULL) == 0, "first insert");
	CHECK(m.reads == 0, "insert into empty tree read a key");
	model_insert(&m, 0, key);
	check_tree(&o.st, &m, "one key");
	check_search(&o.st, &m, key, "one key, hit");
	check_search(&o.st, &m, lo, "one key, below");
	check_search(&o.st, &m, hi, "one key, above");
	CHECK(seqtree_insert(&o.st, key, model_get, &m, NULL) == SEQTREE_DUPLICATE,
		  "duplicate");
	seqtree_delete(&o.st, 0);
	model_delete(&m, 0);
	check_tree(&o.st, &m, "deleted to empty");
	seqtree_delete(&o.st, 0);
	CHECK(o.st.nkeys == 0, "delete from empty tree");
	owned_free(&o);
	model_free(&m);
}

/* Invalid arguments are refused without damage. */
static void
test_invalid(void)
{
	uint8_t		buf[256];
	SeqTree		st,
				st2;
	uint16_t	bits[4];
	static const uint8_t keys[] = {0x10, 0x20, 0x30, 0x40};
	Model		m;

	CHECK(!seqtree_init(&st, buf, sizeof(buf), 0, 2), "keylen 0");
	CHECK(!seqtree_init(&st, buf, sizeof(buf), 256, 2), "keylen 256");
	CHECK(!seqtree_init(&st, buf, sizeof(buf), 8, SEQTREE_MAX_LEVELS + 1), "levels");
	CHECK(!seqtree_init(&st, buf, 3, 8, 0), "space");
	CHECK(seqtree_init(&st, buf, sizeof(buf), 1, 2), "init");

	/* bits that no distinct keys produce */
	bits[0] = 3;
	bits[1] = 5;
	bits[2] = 3;
	CHECK(!seqtree_build_bits(&st, 4, bits), "two minima");
	CHECK(st.nkeys == 0, "left empty");
	bits[2] = 8;
	CHECK(!seqtree_build_bits(&st, 4, bits), "bit beyond key");
	bits[0] = 1;
	bits[1] = 5;
	bits[2] = 3;
	CHECK(seqtree_build_bits(&st, 4, bits), "valid bits");
	CHECK(seqtree_check(&st, NULL, NULL, NULL) == NULL, "valid bits check");

	/* descending keys */
	model_init(&m, 1, 8);
	model_from_bytes(&m, keys, 4);
	memcpy(model_key(&m, 2), "\x50", 1);
	CHECK(!seqtree_build(&st, 4, model_get, &m), "descending keys");
	model_from_bytes(&m, keys, 4);
	CHECK(seqtree_build(&st, 4, model_get, &m), "ascending keys");

	/* insert_at refuses impossible bits */
	CHECK(!seqtree_insert_check(&st, 5, 0, 0), "check: position beyond end");
	CHECK(!seqtree_insert_check(&st, 2, 6, 7), "check: min is not the old entry");
	CHECK(!seqtree_insert_check(&st, 4, 9, 0), "check: bit beyond key");
	CHECK(!seqtree_insert_at(&st, 5, 0, 0), "position beyond end");
	CHECK(!seqtree_insert_at(&st, 2, 2, 2), "equal neighbours");
	CHECK(!seqtree_insert_at(&st, 2, 6, 7), "min is not the old entry");
	CHECK(!seqtree_insert_at(&st, 0, 0, 1), "same as next entry");
	CHECK(!seqtree_insert_at(&st, 4, 9, 0), "bit beyond key");
	CHECK(st.nkeys == 4, "nothing inserted");
	check_tree(&st, &m, "after refused inserts");

	/* a full tree */
	CHECK(seqtree_init(&st2, buf, seqtree_size(2, 1, 0), 1, 0), "small init");
	m.n = 2;
	CHECK(seqtree_build(&st2, 2, model_get, &m), "build 2");
	CHECK(!seqtree_build(&st2, 3, model_get, &m), "build 3 in room for 2");
	CHECK(seqtree_build(&st2, 2, model_get, &m), "build 2 again");
	m.reads = 0;
	CHECK(seqtree_insert(&st2, keys + 3, model_get, &m, NULL) == SEQTREE_FULL, "full");
	CHECK(m.reads == 0, "full insert read keys");
	CHECK(!seqtree_insert_at(&st2, 2, 5, 0), "insert_at when full");

	/* attach refuses garbage */
	memset(buf, 0, sizeof(buf));
	CHECK(!seqtree_attach(&st, buf, sizeof(buf)), "keylen 0 image");
	model_free(&m);
}

/*
 * seqtree_insert_check agrees with seqtree_insert_at and changes nothing:
 * on trees whose bits[] is damaged at random (the damage EICompactCheckLeaf
 * does not see), for the location a search hands back and for arbitrary
 * arguments, check says ok exactly when insert_at (on a copy) succeeds,
 * and an insert_at that refuses leaves the image as it was.
 */
static void
test_insert_check_damaged(void)
{
	Rng			r = {0x1A5E27ULL};
	long		nok = 0,
				nrefused = 0,
				nsearched_refused = 0;

	for (int round = 0; round < 400; round++)
	{
		int			keylen = rng_int(&r, 4) == 0 ? 40 : 8;
		int			levels = rng_int(&r, SEQTREE_DEFAULT_LEVELS + 1);
		int			n = rng_range(&r, 2, 300);
		int			bitwidth = keylen <= SEQTREE_NARROW_KEYLEN ? 1 : 2;
		size_t		space = seqtree_size(n + rng_int(&r, 3), keylen, levels);
		uint8_t    *buf = calloc(1, space);
		uint8_t    *before = malloc(space);
		uint8_t    *copy = malloc(space);
		uint8_t		key[64];
		size_t		bitsoff = SEQTREE_HEADER_SIZE + 2 * (((size_t) 1 << levels) - 1);
		Model		m;
		SeqTree		st;

		model_init(&m, keylen, n);
		for (int i = 0; i < n; i++)
			for (int b = 0; b < keylen; b++)
				model_key(&m, i)[b] = (uint8_t) rng_int(&r, 256);
		sort_keylen = keylen;
		m.n = sort_unique(m.keys, n, keylen);
		CHECK(seqtree_init(&st, buf, space, keylen, levels), "init");
		CHECK(seqtree_build(&st, m.n, model_get, &m), "build");

		/* damage bits[] only: random values in a few entries, or all */
		if (m.n > 1)
		{
			int			nbytes = (m.n - 1) * bitwidth;
			int			ndamage = rng_int(&r, 2) ? rng_range(&r, 1, 3) : nbytes;

			for (int d = 0; d < ndamage; d++)
			{
				int			at = ndamage == nbytes ? d : rng_int(&r, nbytes);

				buf[bitsoff + at] = (uint8_t) (bitwidth == 1 ?
											   rng_range(&r, 0, 80) :
											   rng_int(&r, 256));
			}
		}
		CHECK(seqtree_attach(&st, buf, space), "attach damaged");

		for (int q = 0; q < 60; q++)
		{
			SeqTreeLocation loc;
			SeqTree		cst;
			int			pos,
						lbit,
						rbit;
			bool		ok,
						inserted;

			if (q % 2 == 0)
			{
				/* the arguments a search of the damaged tree gives */
				for (int b = 0; b < keylen; b++)
					key[b] = (uint8_t) rng_int(&r, 256);
				seqtree_search(&st, key, model_get, &m, &loc);
				if (loc.exact)
					continue;
				pos = loc.pos + 1;
				lbit = loc.lbit;
				rbit = loc.rbit;
			}
			else
			{
				pos = rng_range(&r, -1, m.n + 1);
				lbit = rng_range(&r, -1, keylen * 8);
				rbit = rng_range(&r, -1, keylen * 8);
			}
			memcpy(before, buf, space);
			ok = seqtree_insert_check(&st, pos, lbit, rbit);
			CHECK(memcmp(before, buf, space) == 0, "insert_check changed the image");
			memcpy(copy, buf, space);
			CHECK(seqtree_attach(&cst, copy, space), "attach copy");
			inserted = seqtree_insert_at(&cst, pos, lbit, rbit);
			CHECK(ok == inserted,
				  "insert_check says %d, insert_at %d (pos %d of %d, bits %d %d)",
				  ok, inserted, pos, m.n, lbit, rbit);
			if (!inserted)
				CHECK(memcmp(before, copy, space) == 0,
					  "refused insert_at changed the image");
			else
				CHECK(cst.nkeys == m.n + 1, "insert_at added one key");
			nok += ok;
			nrefused += !ok;
			nsearched_refused += (!ok && q % 2 == 0);
		}
		model_free(&m);
		free(buf);
		free(before);
		free(copy);
	}
	/* both outcomes occur, also for what a search of damage hands back */
	CHECK(nok > 0 && nrefused > 0 && nsearched_refused > 0,
		  "insert_check: %ld ok, %ld refused (%ld after a search)", nok,
		  nrefused, nsearched_refused);
	printf("seqtree: insert_check on damaged bits: %ld ok, %ld refused "
		   "(%ld after a search)\n", nok, nrefused, nsearched_refused);
}

/* Inserting keys in random order yields the image that build produces. */
static void
test_insert_order(void)
{
	Rng			rng = {12345};
	int			round;

	for (round = 0; round < 40; round++)
	{
		int			keylen = 1 + round % 3;
		int			levels = round % 6;
		int			n = rng_range(&rng, 1, 200);
		Model		all,
					m;
		OwnedTree	o;
		int			i;
		int		   *perm = malloc(sizeof(int) * n);

		model_init(&all, keylen, n);
		for (i = 0; i < n; i++)
		{
			int			j;

			for (j = 0; j < keylen; j++)
				model_key(&all, i)[j] = (uint8_t) rng_int(&rng, 256);
		}
		all.n = sort_unique(all.keys, n, keylen);
		n = all.n;
		for (i = 0; i < n; i++)
			perm[i] = i;
		for (i = n - 1; i > 0; i--)
		{
			int			j = rng_int(&rng, i + 1);
			int			t = perm[i];

			perm[i] = perm[j];
			perm[j] = t;
		}
		model_init(&m, keylen, n);
		owned_init(&o, keylen, levels, n);
		for (i = 0; i < n; i++)
		{
			const uint8_t *key = model_key(&all, perm[i]);
			int			exact;
			int			want = model_pred(&m, key, &exact) + 1;
			long		reads = m.reads;
			int			got = seqtree_insert(&o.st, key, model_get, &m, NULL);

			CHECK(got == want, "insert position %d want %d", got, want);
			CHECK(m.reads - reads == (m.n > 0 ? 1 : 0), "insert reads %ld",
				  m.reads - reads);
			if (got != want)
				break;
			model_insert(&m, got, key);
			if (i % 17 == 0)
				check_tree(&o.st, &m, "insert order");
		}
		check_tree(&o.st, &m, "insert order, end");
		owned_free(&o);
		model_free(&m);
		model_free(&all);
		free(perm);
	}
}

/* Deletion, one by one and in batches, without key reads. */
static void
test_delete(void)
{
	Rng			rng = {777};
	int			round;

	for (round = 0; round < 40; round++)
	{
		int			keylen = 2 + round % 4;
		int			levels = round % 5;
		int			n = rng_range(&rng, 1, 300);
		Model		m;
		OwnedTree	o;
		int			i;

		model_init(&m, keylen, n);
		for (i = 0; i < n; i++)
		{
			int			j;

			for (j = 0; j < keylen; j++)
				model_key(&m, i)[j] = (uint8_t) (rng_int(&rng, 4) * 0x41);
		}
		m.n = sort_unique(m.keys, n, keylen);
		owned_init(&o, keylen, levels, m.n);
		CHECK(seqtree_build(&o.st, m.n, model_get, &m), "build");
		m.reads = 0;
		while (m.n > 0)
		{
			if (rng_int(&rng, 4) == 0)
			{
				int			pos[64];
				int			np = 0;

				for (i = 0; i < m.n && np < 64; i++)
					if (rng_int(&rng, 3) == 0)
						pos[np++] = i;
				seqtree_delete_many(&o.st, pos, np);
				for (i = np - 1; i >= 0; i--)
					model_delete(&m, pos[i]);
			}
			else
			{
				int			p = rng_int(&rng, m.n);

				seqtree_delete(&o.st, p);
				model_delete(&m, p);
			}
			CHECK(m.reads == 0, "delete read keys");
			check_tree(&o.st, &m, "delete");
			m.reads = 0;
		}
		owned_free(&o);
		model_free(&m);
	}
}

/* Split at every position, then merge back in each of the four ways. */
static void
test_split_merge(void)
{
	static const uint8_t raw[] = {0x00, 0x01, 0x10, 0x11, 0x12, 0x80, 0x81, 0xC0,
	0xC1, 0xF0, 0xFE, 0xFF};
	int			n = (int) sizeof(raw);
	int			levels,
				at,
				way;

	for (levels = 0; levels <= 3; levels++)
		for (at = 0; at <= n; at++)
			for (way = 0; way < 4; way++)
			{
				Model		m,
							lm,
							rm;
				OwnedTree	o;
				SeqTree		right;
				uint8_t		rbuf[64];
				int			seam = -2;
				int			i;
				bool		ok;

				model_init(&m, 1, n);
				model_from_bytes(&m, raw, n);
				owned_init(&o, 1, levels, n);
				CHECK(seqtree_build(&o.st, n, model_get, &m), "build");
				m.reads = 0;
				CHECK(seqtree_split(&o.st, at, &right, rbuf, sizeof(rbuf), &seam),
					  "split at %d", at);
				CHECK(m.reads == 0, "split read keys");
				CHECK(seam == ((at > 0 && at < n) ?
							   seqtree_diff_bit(raw + at - 1, raw + at, 1) : -1),
					  "seam %d at %d", seam, at);
				model_init(&lm, 1, n);
				model_init(&rm, 1, n);
				model_from_bytes(&lm, raw, at);
				model_from_bytes(&rm, raw + at, n - at);
				check_tree(&o.st, &lm, "split left");
				check_tree(&right, &rm, "split right");

				/* merge back; callback positions number the merged keys */
				lm.next = &rm;
				lm.reads = 0;
				switch (way)
				{
					case 0:
						ok = seqtree_merge_bit(&o.st, &right, seam);
						CHECK(lm.reads == 0, "merge_bit read keys");
						break;
					case 1:
						ok = seqtree_merge(&o.st, &right, NULL, NULL, model_get, &lm);
						CHECK(lm.reads == ((at > 0 && at < n) ? 2 : 0),
							  "merge read %ld keys", lm.reads);
						break;
					case 2:
						ok = seqtree_merge(&o.st, &right,
										   at > 0 ? raw + at - 1 : NULL, NULL,
										   model_get, &lm);
						CHECK(lm.reads <= 1, "merge with left key read %ld keys",
							  lm.reads);
						break;
					default:
						ok = seqtree_merge(&o.st, &right, NULL,
										   at < n ? raw + at : NULL,
										   model_get, &lm);
						CHECK(lm.reads <= 1, "merge with right key read %ld keys",
							  lm.reads);
						break;
				}
				CHECK(ok, "merge way %d at %d", way, at);
				m.reads = 0;
				check_tree(&o.st, &m, "merged back");
				for (i = 0; i < 256; i += 5)
				{
					uint8_t		key = (uint8_t) i;

					check_search(&o.st, &m, &key, "after merge");
				}
				model_free(&lm);
				model_free(&rm);
				model_free(&m);
				owned_free(&o);
			}
}

/* Merges refuse keys that are not ascending at the seam, and full trees. */
static void
test_merge_refused(void)
{
	static const uint8_t a[] = {0x10, 0x20};
	static const uint8_t b[] = {0x18, 0x30};
	Model		lm,
				rm;
	OwnedTree	l,
				r;

	model_init(&lm, 1, 2);
	model_init(&rm, 1, 2);
	model_from_bytes(&lm, a, 2);
	model_from_bytes(&rm, b, 2);
	owned_init(&l, 1, 2, 4);
	owned_init(&r, 1, 2, 2);
	CHECK(seqtree_build(&l.st, 2, model_get, &lm), "build left");
	CHECK(seqtree_build(&r.st, 2, model_get, &rm), "build right");
	lm.next = &rm;
	CHECK(!seqtree_merge(&l.st, &r.st, NULL, NULL, model_get, &lm), "overlap");
	/* left's only entry is 2 (0x10 | 0x20), so 2 would be a double minimum */
	CHECK(!seqtree_merge_bit(&l.st, &r.st, 2), "impossible seam bit");
	CHECK(l.st.nkeys == 2, "left unchanged");
	check_tree(&l.st, &lm, "after refused merge");
	CHECK(!seqtree_merge_bit(&r.st, &l.st, 0), "no room");
	owned_free(&l);
	owned_free(&r);
	model_free(&lm);
	model_free(&rm);
}

/* Exhaustive: every search key against random sets of one-byte keys. */
static void
test_exhaustive_bytes(void)
{
	Rng			rng = {4242};
	int			round;

	for (round = 0; round < 300; round++)
	{
		Model		m;
		OwnedTree	o;
		int			n = 0,
					k,
					levels = round % 7;
		int			density = rng_range(&rng, 1, 255);

		model_init(&m, 1, 256);
		for (k = 0; k < 256; k++)
			if (rng_int(&rng, 256) < density)
				model_key(&m, n++)[0] = (uint8_t) k;
		m.n = n;
		owned_init(&o, 1, levels, 256);
		CHECK(seqtree_build(&o.st, n, model_get, &m), "build");
		check_tree(&o.st, &m, "exhaustive");
		for (k = 0; k < 256; k++)
		{
			uint8_t		key = (uint8_t) k;

			check_search(&o.st, &m, &key, "exhaustive search");
		}
		owned_free(&o);
		model_free(&m);
	}
}

/* Copying, changing depth in place, serializing and attaching. */
static void
test_copy_serialize(void)
{
	Rng			rng = {99};
	Model		m;
	OwnedTree	o;
	uint8_t    *buf2 = malloc(4096);
	uint8_t    *big = malloc(8192);
	SeqTree		st2;
	int			i,
				levels;

	model_init(&m, 10, 300);
	for (i = 0; i < 300; i++)
	{
		int			j;

		for (j = 0; j < 10; j++)
			model_key(&m, i)[j] = (uint8_t) rng_int(&rng, 256);
	}
	m.n = sort_unique(m.keys, 300, 10);
	owned_init(&o, 10, 2, m.n);
	CHECK(seqtree_build(&o.st, m.n, model_get, &m), "build");

	CHECK(seqtree_serialize(&o.st, buf2, 10) == 0, "serialize into too little");
	CHECK(seqtree_serialize(&o.st, buf2, 4096) == seqtree_used(&o.st), "serialize");
	CHECK(seqtree_attach(&st2, buf2, 4096), "attach");
	CHECK(st2.nkeys == m.n && st2.levels == 2 && st2.keylen == 10, "attached header");
	check_tree(&st2, &m, "attached copy");

	for (levels = 0; levels <= SEQTREE_MAX_LEVELS; levels++)
	{
		/* in place, within a large buffer, and into another buffer */
		memcpy(big, o.st.img, seqtree_used(&o.st));
		CHECK(seqtree_attach(&st2, big, 8192), "attach big");
		CHECK(seqtree_copy(&st2, &st2, big, 8192, levels), "relevel in place to %d",
			  levels);
		check_tree(&st2, &m, "relevelled in place");
		CHECK(seqtree_copy(&st2, &st2, big, 8192, (levels + 3) % 8), "relevel again");
		check_tree(&st2, &m, "relevelled twice");
		if (seqtree_size(m.n, 10, levels) <= 4096)
		{
			CHECK(seqtree_copy(&o.st, &st2, buf2, 4096, levels), "copy");
			check_tree(&st2, &m, "copied");
		}
		else
			CHECK(!seqtree_copy(&o.st, &st2, buf2, 4096, levels), "copy too large");
	}
	owned_free(&o);
	free(buf2);
	free(big);
	model_free(&m);
}

/* seqtree_check notices damage to bits[] and to the BlindiTree. */
static void
test_check_detects(void)
{
	Rng			rng = {5};
	Model		m;
	OwnedTree	o;
	int			i,
				found = 0,
				tries = 0;

	model_init(&m, 4, 100);
	for (i = 0; i < 100; i++)
	{
		int			j;

		for (j = 0; j < 4; j++)
			model_key(&m, i)[j] = (uint8_t) rng_int(&rng, 256);
	}
	m.n = sort_unique(m.keys, 100, 4);
	owned_init(&o, 4, 4, m.n);
	CHECK(seqtree_build(&o.st, m.n, model_get, &m), "build");
	for (i = 0; i < 2000; i++)
	{
		size_t		off = SEQTREE_HEADER_SIZE + rng_int(&rng, (int) seqtree_used(&o.st) -
														SEQTREE_HEADER_SIZE);
		uint8_t		save = o.buf[off];

		o.buf[off] ^= (uint8_t) (1 << rng_int(&rng, 8));
		tries++;
		if (seqtree_check(&o.st, model_get, &m, NULL) != NULL)
			found++;
		o.buf[off] = save;
	}
	/* every byte of the image matters (a flipped bit changes the value) */
	CHECK(found == tries, "check found %d of %d corruptions", found, tries);
	CHECK(seqtree_check(&o.st, model_get, &m, NULL) == NULL, "restored");

	/* a key changed in the bit that tells it from its predecessor */
	i = seqtree_get_bit(&o.st, 49);
	model_key(&m, 50)[i / 8] ^= (uint8_t) (0x80 >> (i % 8));
	CHECK(seqtree_check(&o.st, model_get, &m, NULL) != NULL, "changed key");
	owned_free(&o);
	model_free(&m);
}

/* ----------------------------------------------------------------
 * Randomized differential test
 * ----------------------------------------------------------------
 */

/* How the key part of random keys is made. */
typedef enum KeyMode
{
	KM_UNIFORM,					/* random bytes */
	KM_PREFIX,					/* long shared prefix, random tail */
	KM_ALL_EQUAL,				/* one key part, only TIDs differ */
	KM_POOL,					/* a few key parts, duplicated */
	KM_COUNTER,					/* big-endian small integers */
	KM_SPARSE,					/* mostly zero bytes */
	KM_NMODES
} KeyMode;

static const char *const mode_names[] = {
	"uniform", "prefix", "all-equal", "pool", "counter", "sparse"
};

typedef struct Gen
{
	int			w;				/* key part width */
	KeyMode		mode;
	int			tail;			/* KM_PREFIX: random tail bytes */
	int			pool;			/* KM_POOL: number of key parts */
	int			tidspread;		/* TIDs: number of blocks */
	uint8_t		base[32];
	uint8_t		parts[8][32];
} Gen;

/* Set up a key generator. */
static void
gen_init(Gen *g, Rng *r, int w, KeyMode mode)
{
	int			i,
				j;

	g->w = w;
	g->mode = mode;
	g->tail = rng_range(r, 1, w < 3 ? w : 3);
	g->pool = rng_range(r, 1, 8);
	g->tidspread = rng_int(r, 3) == 0 ? 1 : rng_range(r, 1, 1000);
	for (i = 0; i < 32; i++)
		g->base[i] = (uint8_t) rng_int(r, 256);
	for (i = 0; i < 8; i++)
		for (j = 0; j < 32; j++)
			g->parts[i][j] = rng_int(r, 2) ? g->base[j] : (uint8_t) rng_int(r, 256);
}

/* Make a random key: w bytes of key part and a 6-byte TID. */
static void
gen_key(Gen *g, Rng *r, uint8_t *out)
{
	int			w = g->w;
	int			i;
	uint32_t	blk;
	uint16_t	off;

	switch (g->mode)
	{
		case KM_UNIFORM:
			for (i = 0; i < w; i++)
				out[i] = (uint8_t) rng_int(r, 256);
			break;
		case KM_PREFIX:
			memcpy(out, g->base, w);
			for (i = w - g->tail; i < w; i++)
				out[i] = (uint8_t) rng_int(r, 256);
			break;
		case KM_ALL_EQUAL:
			memcpy(out, g->base, w);
			break;
		case KM_POOL:
			memcpy(out, g->parts[rng_int(r, g->pool)], w);
			break;
		case KM_COUNTER:
			{
				uint64_t	v = (uint64_t) rng_int(r, 5000);

				memset(out, 0, w);
				for (i = w - 1; i >= 0 && v > 0; i--, v >>= 8)
					out[i] = (uint8_t) (v & 0xFF);
				break;
			}
		default:
			memset(out, 0, w);
			if (w > 0)
				out[rng_int(r, w)] = (uint8_t) (1 << rng_int(r, 8));
			break;
	}
	blk = (uint32_t) rng_int(r, g->tidspread);
	off = (uint16_t) rng_range(r, 1, 291);
	out[w] = (uint8_t) (blk >> 24);
	out[w + 1] = (uint8_t) (blk >> 16);
	out[w + 2] = (uint8_t) (blk >> 8);
	out[w + 3] = (uint8_t) blk;
	out[w + 4] = (uint8_t) (off >> 8);
	out[w + 5] = (uint8_t) off;
}

/*
 * A key near a stored one: the same key with a bit flipped in its last
 * bytes, or its TID moved by one, so that it differs only deep down.
 */
static void
near_key(const Model *m, Rng *r, uint8_t *out)
{
	int			keylen = m->keylen;

	if (m->n == 0)
	{
		memset(out, 0x55, keylen);
		return;
	}
	memcpy(out, model_key(m, rng_int(r, m->n)), keylen);
	if (rng_int(r, 2))
	{
		int			byte = keylen - 1 - rng_int(r, keylen < 8 ? keylen : 8);

		out[byte] ^= (uint8_t) (1 << rng_int(r, 8));
	}
	else
	{
		int			i = keylen - 1;
		int			delta = rng_int(r, 2) ? 1 : -1;

		/* add or subtract one, big-endian */
		while (i >= 0)
		{
			uint8_t		old = out[i];

			out[i] = (uint8_t) (out[i] + delta);
			if ((delta > 0 && old != 0xFF) || (delta < 0 && old != 0x00))
				break;
			i--;
		}
	}
}

/* Choose an insert/search key: generated, near a stored one, or stored. */
static void
pick_key(Gen *g, const Model *m, Rng *r, uint8_t *out)
{
	int			c = rng_int(r, 10);

	if (c < 5)
		gen_key(g, r, out);
	else if (c < 8 || m->n == 0)
		near_key(m, r, out);
	else
		memcpy(out, model_key(m, rng_int(r, m->n)), m->keylen);
}

/* Per-run counters for the summary line. */
static long ops_insert,
			ops_search,
			ops_delete,
			ops_split,
			ops_merge,
			ops_other,
			max_reads_hit,
			max_reads_miss;

/* One random tree with a random sequence of operations. */
static void
random_tree(uint64_t seed, bool verbose)
{
	Rng			rng = {seed};
	Rng		   *r = &rng;
	int			w = rng_range(r, 1, 32);
	int			keylen = w + TID_LEN;
	int			levels = rng_int(r, 4) == 0 ? SEQTREE_DEFAULT_LEVELS : rng_range(r, 0, 7);
	int			capbase = rng_int(r, 3) == 0 ? 1200 : (rng_int(r, 2) ? 150 : 20);
	int			cap = rng_range(r, 1, capbase);
	KeyMode		mode = (KeyMode) rng_int(r, KM_NMODES);
	int			nops = rng_range(r, 50, 600);
	size_t		space = seqtree_size(cap, keylen, levels);
	uint8_t    *buf = malloc(space);
	uint8_t    *rbuf = malloc(space);
	int			maxkeys = seqtree_capacity(space, keylen, 0, 0);	/* any depth */
	Gen			g;
	Model		m;
	SeqTree		st;
	uint8_t		key[SEQTREE_MAX_KEYLEN];
	int			op;
	long		failures_before = n_failures;

	gen_init(&g, r, w, mode);
	if (verbose)
		printf("seed %llu: w=%d levels=%d cap=%d mode=%s ops=%d\n",
			   (unsigned long long) seed, w, levels, cap, mode_names[mode], nops);
	model_init(&m, keylen, maxkeys);
	CHECK(seqtree_init(&st, buf, space, keylen, levels), "init");

	/* start from a bulk build half the time */
	if (rng_int(r, 2))
	{
		int			n = rng_range(r, 0, cap);
		int			i;

		for (i = 0; i < n; i++)
			gen_key(&g, r, model_key(&m, i));
		m.n = sort_unique(m.keys, n, keylen);
		CHECK(seqtree_build(&st, m.n, model_get, &m), "build %d", m.n);
		CHECK(m.reads == m.n, "build reads");
		check_tree(&st, &m, "random build");
	}

	for (op = 0; op < nops && n_failures == failures_before; op++)
	{
		int			c = rng_int(r, 100);
		bool		changed = false;

		m.reads = 0;
		if (c < 40)
		{
			/* insert */
			int			exact,
						want,
						got;
			bool		full = seqtree_size(m.n + 1, keylen, st.levels) > space;
			SeqTreeLocation loc;

			pick_key(&g, &m, r, key);
			want = model_pred(&m, key, &exact) + 1;
			if (rng_int(r, 4) == 0 && !full)
			{
				/* search, then replay with insert_at */
				seqtree_search(&st, key, model_get, &m, &loc);
				got = loc.exact ? SEQTREE_DUPLICATE :
					(seqtree_insert_at(&st, loc.pos + 1, loc.lbit, loc.rbit) ?
					 loc.pos + 1 : -100);
			}
			else
				got = seqtree_insert(&st, key, model_get, &m, &loc);
			ops_insert++;
			if (full)
			{
				CHECK(got == SEQTREE_FULL, "insert into full tree gave %d", got);
				CHECK(m.reads == 0, "full insert read keys");
			}
			else if (exact)
			{
				CHECK(got == SEQTREE_DUPLICATE, "duplicate insert gave %d", got);
				CHECK(m.reads == 1, "duplicate insert read %ld keys", m.reads);
			}
			else
			{
				CHECK(got == want, "insert at %d, want %d (n=%d)", got, want, m.n);
				CHECK(m.reads == (m.n > 0 ? 1 : 0), "insert read %ld keys", m.reads);
				if (got == want)
				{
					model_insert(&m, want, key);
					changed = true;
				}
			}
		}
		else if (c < 70)
		{
			int			exact;

			pick_key(&g, &m, r, key);
			model_pred(&m, key, &exact);
			check_search(&st, &m, key, "random search");
			check_last_le_from(&st, &m, key, "random search");
			if (m.n > 0)
			{
				/* a point lookup's upper bound: a key's first half, 0xFF after */
				uint8_t		bound[SEQTREE_MAX_KEYLEN];
				const uint8_t *k = model_key(&m, rng_int(r, m.n));

				memcpy(bound, k, m.keylen);
				memset(bound + m.keylen / 2, 0xFF, m.keylen - m.keylen / 2);
				check_last_le_from(&st, &m, bound, "padded bound");

				/*
				 * A point lookup's lower bound: the value part of a stored
				 * key or of the key searched for, zeros after it; the
				 * prefix is the value part, or any length.
				 */
				memcpy(bound, rng_int(r, 2) ? k : key, m.keylen);
				memset(bound + m.keylen - TID_LEN, 0, TID_LEN);
				check_prefix_run(&st, &m, bound, (m.keylen - TID_LEN) * 8,
								 rng_range(r, 1, 8), "value prefix");
				check_prefix_run(&st, &m, key, rng_int(r, m.keylen * 8 + 1),
								 rng_int(r, 3) == 0 ? m.n + 1 :
								 rng_range(r, 1, 8), "any prefix");
			}
			ops_search++;
			if (exact && m.reads > max_reads_hit)
				max_reads_hit = m.reads;
			if (!exact && m.reads > max_reads_miss)
				max_reads_miss = m.reads;
			check_search_masks(&st, &m, r, key);
		}
		else if (c < 86)
		{
			if (m.n > 0)
			{
				int			p = rng_int(r, m.n);

				seqtree_delete(&st, p);
				model_delete(&m, p);
				CHECK(m.reads == 0, "delete read keys");
				changed = true;
			}
			ops_delete++;
		}
		else if (c < 89)
		{
			int		   *pos = malloc(sizeof(int) * (m.n + 1));
			int			np = 0,
						i,
						pct = rng_int(r, 101);

			for (i = 0; i < m.n; i++)
				if (rng_int(r, 100) < pct)
					pos[np++] = i;
			seqtree_delete_many(&st, pos, np);
			for (i = np - 1; i >= 0; i--)
				model_delete(&m, pos[i]);
			CHECK(m.reads == 0, "delete_many read keys");
			free(pos);
			changed = true;
			ops_delete++;
		}
		else if (c < 97)
		{
			/* split, check both halves, then merge back or keep one half */
			int			at = rng_range(r, 0, m.n);
			int			seam = -2,
						way = rng_int(r, 6);
			SeqTree		right;
			Model		lm,
						rm;
			bool		ok;

			ok = seqtree_split(&st, at, &right, rbuf, space, &seam);
			CHECK(ok, "split at %d of %d", at, m.n);
			CHECK(m.reads == 0, "split read keys");
			if (!ok)
				break;
			CHECK(seam == ((at > 0 && at < m.n) ?
						   seqtree_diff_bit(model_key(&m, at - 1), model_key(&m, at),
											keylen) : -1), "seam bit");
			model_init(&lm, keylen, maxkeys);
			model_init(&rm, keylen, maxkeys);
			memcpy(lm.keys, m.keys, (size_t) at * keylen);
			lm.n = at;
			memcpy(rm.keys, model_key(&m, at), (size_t) (m.n - at) * keylen);
			rm.n = m.n - at;
			check_tree(&st, &lm, "random split, left");
			check_tree(&right, &rm, "random split, right");
			ops_split++;
			lm.next = &rm;
			lm.reads = 0;
			switch (way)
			{
				case 0:
					ok = seqtree_merge_bit(&st, &right, seam);
					CHECK(lm.reads == 0, "merge_bit read keys");
					break;
				case 1:
					ok = seqtree_merge(&st, &right, NULL, NULL, model_get, &lm);
					CHECK(lm.reads <= 2, "merge read %ld keys", lm.reads);
					break;
				case 2:
					ok = seqtree_merge(&st, &right,
									   at > 0 ? model_key(&m, at - 1) : NULL, NULL,
									   model_get, &lm);
					CHECK(lm.reads <= 1, "merge read %ld keys", lm.reads);
					break;
				case 3:
					ok = seqtree_merge(&st, &right, NULL,
									   at < m.n ? model_key(&m, at) : NULL,
									   model_get, &lm);
					CHECK(lm.reads <= 1, "merge read %ld keys", lm.reads);
					break;
				case 4:
					/* keep the left half */
					ok = true;
					m.n = at;
					break;
				default:
					/* keep the right half, moved back into buf */
					ok = seqtree_serialize(&right, buf, space) > 0 &&
						seqtree_attach(&st, buf, space);
					memmove(m.keys, rm.keys, (size_t) rm.n * keylen);
					m.n = rm.n;
					break;
			}
			CHECK(ok, "merge way %d", way);
			if (way < 4)
				ops_merge++;
			model_free(&lm);
			model_free(&rm);
			changed = true;
		}
		else if (c < 99)
		{
			/* change the BlindiTree depth in place */
			int			nl = rng_range(r, 0, 7);

			if (seqtree_size(m.n, keylen, nl) <= space)
			{
				CHECK(seqtree_copy(&st, &st, buf, space, nl), "relevel to %d", nl);
				changed = true;
			}
			ops_other++;
		}
		else
		{
			/* verify with keys: n reads */
			const char *err = seqtree_check(&st, model_get, &m, NULL);

			CHECK(err == NULL, "check: %s", err);
			CHECK(m.reads == m.n, "check read %ld of %d keys", m.reads, m.n);
			ops_other++;
		}
		if (changed && (m.n <= 64 || rng_int(r, 8) == 0))
			check_tree(&st, &m, "random op");
	}
	check_tree(&st, &m, "random end");
	if (n_failures != failures_before)
		fprintf(stderr, "random tree seed %llu failed (w=%d levels=%d cap=%d mode=%s)\n",
				(unsigned long long) seed, w, levels, cap, mode_names[mode]);
	model_free(&m);
	free(buf);
	free(rbuf);
}

/* ----------------------------------------------------------------
 * Space measurements
 * ----------------------------------------------------------------
 */

/*
 * Print the compact form's bytes per entry and the page capacity against a
 * standard leaf, and check the capacity targets.
 */
static void
measure_sizes(void)
{
	static const struct
	{
		const char *name;
		int			w;			/* key part width */
		int			stdentry;	/* standard leaf entry incl. line pointer */
		double		target;
	}			types[] = {
		{"int8", 8, 20, 2.7},
		{"uuid", 16, 28, 3.5},
		{"text(30)", 30, 44, 5.0},
	};
	int			t;

	printf("compact form, %d-byte page area, %d-byte TID per entry:\n",
		   PAGE_USABLE, TID_LEN);
	for (t = 0; t < 3; t++)
	{
		int			keylen = types[t].w + TID_LEN;
		int			stdcap = (PAGE_USABLE - types[t].stdentry) / types[t].stdentry;
		int			levels;

		for (levels = 0; levels <= 7; levels++)
		{
			int			cap = seqtree_capacity(PAGE_USABLE - types[t].stdentry,
											   keylen, levels, TID_LEN);
			double		bpe = (double) seqtree_size(cap, keylen, levels) / cap;
			double		ratio = (double) cap / stdcap;

			if (levels != SEQTREE_DEFAULT_LEVELS && levels % 2 == 0)
				continue;
			printf("  %-9s keylen %2d levels %d: %4d entries, %.3f B/entry "
				   "(bits+tree), standard leaf %3d entries, ratio %.2fx (target %.1fx)\n",
				   types[t].name, keylen, levels, cap, bpe, stdcap, ratio,
				   types[t].target);
			if (levels == SEQTREE_DEFAULT_LEVELS)
				CHECK(ratio >= types[t].target, "%s page capacity ratio %.2f",
					  types[t].name, ratio);
		}
	}
}

/* Time searches in a full page of int8 keys for each BlindiTree depth. */
static void
measure_speed(void)
{
	Rng			rng = {2024};
	int			keylen = 8 + TID_LEN;
	int			cap = seqtree_capacity(PAGE_USABLE - 20, keylen, 0, TID_LEN);
	Model		m;
	int			levels,
				i;

	model_init(&m, keylen, cap);
	for (i = 0; i < cap; i++)
	{
		uint64_t	v = rng_next(&rng);
		int			j;

		for (j = 0; j < keylen; j++)
			model_key(&m, i)[j] = (uint8_t) (v >> (8 * (j % 8)));
	}
	m.n = sort_unique(m.keys, cap, keylen);
	for (levels = 0; levels <= 8; levels++)
	{
		OwnedTree	o;
		clock_t		start;
		long		nsearch = 200000;
		long		hits = 0;
		double		secs;

		owned_init(&o, keylen, levels, m.n);
		seqtree_build(&o.st, m.n, model_get, &m);
		start = clock();
		for (i = 0; i < nsearch; i++)
		{
			const uint8_t *key = model_key(&m, (int) (rng_next(&rng) % m.n));
			SeqTreeLocation loc;

			seqtree_search(&o.st, key, model_get, &m, &loc);
			hits += loc.exact;
		}
		secs = (double) (clock() - start) / CLOCKS_PER_SEC;
		printf("  search, %d int8 keys, levels %d: %.0f ns\n", m.n, levels,
			   secs * 1e9 / nsearch);
		CHECK(hits == nsearch, "timed searches missed");
		owned_free(&o);
	}
	model_free(&m);
}

/* Run everything; exit 0 when all checks pass. */
int
main(void)
{
	const char *env;
	long		iterations = 2000;
	uint64_t	seed = 0x5EC7EEULL;
	bool		verbose = getenv("SEQTREE_TEST_VERBOSE") != NULL;
	long		i;

	if ((env = getenv("SEQTREE_TEST_ITERATIONS")) != NULL)
		iterations = atol(env);
	if ((env = getenv("SEQTREE_TEST_SEED")) != NULL)
		seed = strtoull(env, NULL, 0);

	test_diff_bit();
	test_sizes();
	test_small_example();
	test_tiny();
	test_invalid();
	test_insert_check_damaged();
	test_insert_order();
	test_delete();
	test_split_merge();
	test_merge_refused();
	test_exhaustive_bytes();
	test_copy_serialize();
	test_check_detects();

	for (i = 0; i < iterations; i++)
		random_tree(seed + (uint64_t) i * 0x1000193ULL, verbose);

	measure_sizes();
	if (getenv("SEQTREE_TEST_BENCH") != NULL)
		measure_speed();

	printf("seqtree: %ld random trees (seed %#llx): %ld inserts, %ld searches, "
		   "%ld deletes, %ld splits, %ld merges, %ld other; max key reads per "
		   "search: hit %ld, miss %ld\n",
		   iterations, (unsigned long long) seed, ops_insert, ops_search,
		   ops_delete, ops_split, ops_merge, ops_other, max_reads_hit,
		   max_reads_miss);
	printf("seqtree: %ld tolerant searches, %ld ambiguous (%ld between the "
		   "candidate and its left neighbour, %ld out of reads), max key "
		   "reads %ld\n", ops_tolerant, n_ambiguous, n_ambiguous_one,
		   n_ambiguous_capped, max_reads_tolerant);
	printf("seqtree: %ld searches from a key at hand, %ld settled by bits "
		   "alone\n", ops_last_le, n_last_le_settled);
	printf("seqtree: %ld prefix runs without a key read: %ld of matching "
		   "keys, %ld of others, %ld refused as long\n", ops_prefix_run,
		   n_prefix_run_matched, n_prefix_run_other, n_prefix_run_long);
	printf("seqtree: %ld checks, %ld failed\n", n_checks, n_failures);
	return n_failures == 0 ? 0 : 1;
}
