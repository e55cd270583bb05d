/*-------------------------------------------------------------------------
 *
 * tidcode_test.c
 *	  Unit and randomized differential tests of the TID code
 *	  (src/lib/tidcode.c), run by "make unittest".
 *
 * Lists of every shape a compact leaf meets (ascending as in a time
 * series, descending, random, clustered in few blocks, runs of a
 * low-cardinality column, extreme block numbers and offsets) are encoded,
 * read back entry by entry and by ranges, and then changed by random
 * inserts and deletions, each checked against a model array; a deletion
 * must never make the code longer, and an insert's growth must stay
 * within TIDCODE_MAX_INSERT_GROWTH.  Damaged codes (truncated, bytes
 * changed) must be refused or decode to something, never crash (the
 * fuzzer, test/fuzz/tidcode_fuzz.c, runs this under AddressSanitizer).
 *
 * Environment:
 *	TIDCODE_TEST_ITERATIONS  number of random lists (default 400)
 *	TIDCODE_TEST_SEED        base seed (default fixed)
 *
 * test/unit/tidcode_test.c
 *
 *-------------------------------------------------------------------------
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tidcode.h"

#define SPACE		8192
#define MAXN		4096

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

typedef struct Rng
{
	uint64_t	s;
} Rng;

/* Next 64 random bits (splitmix64). */
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

/* Is tid among tids[0..n)? */
static bool
contains(const TidCodeTid *tids, int n, TidCodeTid tid)
{
	for (int i = 0; i < n; i++)
		if (tids[i].block == tid.block && tids[i].offset == tid.offset)
			return true;
	return false;
}

/* Kinds of lists */
enum
{
	K_ASC,						/* time series: heap order */
	K_DESC,						/* reverse heap order */
	K_RANDOM,					/* random TIDs in a small table */
	K_HUGE,						/* random TIDs over every block number */
	K_CLUSTER,					/* few blocks, any order */
	K_LOWCARD,					/* one key value's TIDs: ascending, gaps */
	K_EXTREME,					/* first and last blocks and offsets */
	K_NKINDS
};

/* A random TID of kind k near prev (a new one each call). */
static TidCodeTid
random_tid(Rng *r, int kind, const TidCodeTid *prev)
{
	TidCodeTid	t;

	switch (kind)
	{
		case K_ASC:
		case K_LOWCARD:
			t = *prev;
			if (t.offset >= 200 || rng_int(r, kind == K_ASC ? 180 : 20) == 0)
			{
				t.block += 1 + (kind == K_LOWCARD ? 0 : rng_int(r, 2));
				t.offset = 1 + rng_int(r, kind == K_ASC ? 2 : 12);
			}
			else
				t.offset += 1 + (kind == K_LOWCARD ? rng_int(r, 12) : 0);
			return t;
		case K_DESC:
			t = *prev;
			if (t.offset <= 1 || rng_int(r, 150) == 0)
			{
				t.block = t.block > 0 ? t.block - 1 : TIDCODE_MAX_BLOCK;
				t.offset = 150 + rng_int(r, 50);
			}
			else
				t.offset--;
			return t;
		case K_RANDOM:
			t.block = (uint32_t) rng_int(r, 5000);
			t.offset = (uint16_t) (1 + rng_int(r, 291));
			return t;
		case K_HUGE:
			t.block = (uint32_t) (rng_next(r) % ((uint64_t) TIDCODE_MAX_BLOCK + 1));
			t.offset = (uint16_t) (1 + rng_next(r) % TIDCODE_MAX_OFFSET);
			return t;
		case K_CLUSTER:
			t.block = 1000 + rng_int(r, 4);
			t.offset = (uint16_t) (1 + rng_int(r, 2048));
			return t;
		default:
			t.block = rng_int(r, 2) ? rng_int(r, 3) : TIDCODE_MAX_BLOCK - (uint32_t) rng_int(r, 3);
			t.offset = rng_int(r, 2) ? 1 + rng_int(r, 3) : TIDCODE_MAX_OFFSET - rng_int(r, 3);
			return t;
	}
}

/*
 * Whether two lists of n TIDs are equal, field by field: TidCodeTid has
 * padding after offset, which memcmp would compare too (uninitialized
 * bytes of a decoded array).
 */
static bool
tids_equal(const TidCodeTid *a, const TidCodeTid *b, int n)
{
	for (int i = 0; i < n; i++)
		if (a[i].block != b[i].block || a[i].offset != b[i].offset)
			return false;
	return true;
}

/* Does code[0..len) hold exactly model[0..n)?  Checks every reader. */
static void
check_code(const uint8_t *code, long len, const TidCodeTid *model, int n,
		   const char *what, int step)
{
	TidCode		tc;
	TidCodeTid	out[MAXN];
	bool		ok;

	CHECK(len >= 0 && (len == 0) == (n == 0) && (len == 0 || (len & 1) == 1),
		  "%s: length %ld for %d TIDs", what, len, n);
	ok = tidcode_open(&tc, code, (size_t) len, n);
	CHECK(ok, "%s: open", what);
	if (!ok)
		return;
	CHECK(tidcode_check(&tc), "%s: check", what);
	CHECK(tidcode_decode(&tc, 0, n, out), "%s: decode", what);
	CHECK(tids_equal(out, model, n) || n == 0,
		  "%s: decoded list differs", what);
	for (int i = 0; i < n; i += step)
	{
		TidCodeTid	t;

		ok = tidcode_get(&tc, i, &t);
		CHECK(ok && t.block == model[i].block && t.offset == model[i].offset,
			  "%s: get(%d) gave (%u,%u), want (%u,%u)", what, i, t.block,
			  (unsigned) t.offset, model[i].block, (unsigned) model[i].offset);
	}
	CHECK(!tidcode_get(&tc, n, out) && !tidcode_get(&tc, -1, out),
		  "%s: get out of range", what);
	for (int i = 0; i < n; i += step)
	{
		TidCodeTid	grp[TIDCODE_GROUP_MAX];
		int			first = -1;
		int			count = tidcode_get_group(&tc, i, grp, &first);
		bool		same = count >= 1 && count <= TIDCODE_GROUP_MAX &&
			first >= 0 && first + count == i + 1;

		for (int j = 0; same && j < count; j++)
			same = grp[j].block == model[first + j].block &&
				grp[j].offset == model[first + j].offset;
		CHECK(same, "%s: group of %d (first %d, %d TIDs) differs", what, i, first, count);
	}
	{
		int			first;

		CHECK(tidcode_get_group(&tc, n, out, &first) == 0 &&
			  tidcode_get_group(&tc, -1, out, &first) == 0,
			  "%s: group out of range", what);
	}
	if (n > 2)
	{
		int			a = n / 3,
					c = n / 2;

		CHECK(tidcode_decode(&tc, a, c, out) &&
			  tids_equal(out, model + a, c),
			  "%s: range decode", what);
		CHECK(!tidcode_decode(&tc, a, n, out), "%s: range past the end", what);
	}
	/* a fresh encoding of the same list decodes to it too */
	{
		uint8_t		fresh[SPACE * 2];
		long		flen = tidcode_encode(model, n, fresh, sizeof(fresh));
		TidCode		ftc;

		CHECK(flen >= 0 && tidcode_open(&ftc, fresh, (size_t) flen, n) &&
			  tidcode_decode(&ftc, 0, n, out) &&
			  (n == 0 || tids_equal(out, model, n)),
			  "%s: fresh encoding", what);
	}
}

/* Damage code in ways a page can be damaged; nothing may crash. */
static void
damage(Rng *r, const uint8_t *code, long len, int n)
{
	uint8_t		bad[SPACE * 2];
	TidCodeTid	out[MAXN];
	TidCode		tc;

	if (len <= 0)
		return;
	/* truncated: an odd length must not open as the same list */
	for (long cut = 1; cut < len; cut += 1 + rng_int(r, 7))
	{
		bool		opened = tidcode_open(&tc, code, (size_t) (len - cut), n);

		CHECK(!opened || !tidcode_check(&tc),
			  "code cut by %ld bytes still checks", cut);
	}
	/* a wrong count */
	CHECK(!tidcode_open(&tc, code, (size_t) len, n + 1) &&
		  !tidcode_open(&tc, code, (size_t) len, n - 1),
		  "wrong count accepted");
	/* changed bytes: refused, or a list of n valid TIDs */
	for (int t = 0; t < 20; t++)
	{
		memcpy(bad, code, (size_t) len);
		for (int k = 1 + rng_int(r, 3); k > 0; k--)
			bad[rng_int(r, (int) len)] ^= (uint8_t) (1 + rng_int(r, 255));
		if (tidcode_open(&tc, bad, (size_t) len, n) && tidcode_check(&tc))
		{
			CHECK(tidcode_decode(&tc, 0, n, out), "checked code does not decode");
			for (int i = 0; i < n; i++)
				CHECK(out[i].offset >= 1 && out[i].block <= TIDCODE_MAX_BLOCK &&
					  (i == 0 || out[i].block != out[i - 1].block ||
					   out[i].offset != out[i - 1].offset),
					  "damaged code decoded to an invalid TID");
		}
		else if (tidcode_open(&tc, bad, (size_t) len, n))
		{
			/* reads of a damaged code may fail, never run past it */
			for (int i = 0; i < n; i += 1 + rng_int(r, 5))
			{
				int			first;

				(void) tidcode_get(&tc, i, out);
				(void) tidcode_get_group(&tc, i, out, &first);
			}
		}
	}
}

/* One random list: build, check, change randomly, check again. */
static void
random_list(uint64_t seed)
{
	Rng			r = {seed};
	int			kind = rng_int(&r, K_NKINDS);
	int			n = rng_int(&r, 8) == 0 ? rng_int(&r, 4) : rng_int(&r, 2500);
	static TidCodeTid model[MAXN + 1];
	static uint8_t code[SPACE * 2];
	static uint8_t next[SPACE * 2];
	static uint8_t small[SPACE * 2];
	TidCodeTid	prev = {(uint32_t) rng_int(&r, 100000), 1};

	if (kind == K_EXTREME)
		n = n % 20;				/* only 36 such TIDs exist */
	if (kind == K_HUGE)
		n = n % 1500;			/* up to 8 bytes each */
	long		len;
	char		what[64];

	for (int i = 0; i < n; i++)
	{
		TidCodeTid	t;

		do
			t = random_tid(&r, kind, i > 0 ? &model[i - 1] : &prev);
		while (contains(model, i, t));
		model[i] = t;
	}
	snprintf(what, sizeof(what), "kind %d n %d seed %llx", kind, n,
			 (unsigned long long) seed);
	len = tidcode_encode(model, n, code, sizeof(code));
	check_code(code, len, model, n, what, 1);
	damage(&r, code, len, n);

	/* random changes, each checked against the model */
	for (int op = 0; op < 30 && len >= 0; op++)
	{
		TidCode		tc;
		long		nlen;

		if (!tidcode_open(&tc, code, (size_t) len, n))
		{
			CHECK(false, "%s: open before op %d", what, op);
			return;
		}
		if (rng_int(&r, 2) == 0 && n < MAXN && (kind != K_EXTREME || n < 30))
		{
			int			pos = rng_int(&r, n + 1);
			TidCodeTid	t;

			for (int tries = 0;; tries++)
			{
				t = random_tid(&r, tries < 4 ? kind : K_HUGE,
							   pos > 0 ? &model[pos - 1] : &prev);
				if (!contains(model, n, t))
					break;
			}
			nlen = tidcode_insert(&tc, pos, t, next, sizeof(next));
			CHECK(nlen >= 0 && nlen <= len + TIDCODE_MAX_INSERT_GROWTH,
				  "%s: insert grew %ld to %ld", what, len, nlen);
			memmove(model + pos + 1, model + pos, (size_t) (n - pos) * sizeof(TidCodeTid));
			model[pos] = t;
			n++;
			/* a neighbour's TID again is refused */
			if (n > 1)
			{
				TidCode		ntc;
				uint8_t		tmp[SPACE * 2];

				CHECK(tidcode_open(&ntc, next, (size_t) nlen, n) &&
					  tidcode_insert(&ntc, pos, t, tmp, sizeof(tmp)) < 0 &&
					  tidcode_insert(&ntc, pos + 1, t, tmp, sizeof(tmp)) < 0,
					  "%s: duplicate neighbour accepted", what);
			}
			/* too small an output is refused */
			CHECK(nlen <= 0 || tidcode_insert(&tc, pos, t, small, (size_t) nlen - 1) < 0 ||
				  nlen == 0, "%s: insert into too small a buffer", what);
		}
		else
		{
			int			positions[MAXN];
			int			npos = 0;
			int			want = n == 0 ? 0 : 1 + rng_int(&r, rng_int(&r, 4) == 0 ? n : 1 + n / 20);

			for (int i = 0; i < n && npos < want; i++)
				if (rng_int(&r, n) < want)
					positions[npos++] = i;
			nlen = tidcode_delete(&tc, positions, npos, next, (size_t) len);
			CHECK(nlen >= 0 && nlen <= len, "%s: delete grew %ld to %ld", what, len, nlen);
			for (int i = npos - 1; i >= 0; i--)
			{
				memmove(model + positions[i], model + positions[i] + 1,
						(size_t) (n - positions[i] - 1) * sizeof(TidCodeTid));
				n--;
			}
			if (npos >= 2)
			{
				int			swapped[2] = {positions[1], positions[0]};

				CHECK(tidcode_delete(&tc, swapped, 2, small, sizeof(small)) < 0,
					  "%s: positions out of order accepted", what);
			}
		}
		if (nlen < 0)
			return;
		memcpy(code, next, (size_t) nlen);
		len = nlen;
		check_code(code, len, model, n, what, 1 + n / 8);
	}
}

/* Fixed cases: sizes of typical lists, extremes, invalid input. */
static void
test_fixed(void)
{
	static TidCodeTid tids[MAXN];
	static uint8_t code[SPACE * 2];
	long		len;
	TidCode		tc;

	/* a time series: 2000 TIDs in heap order, about 1 byte each */
	for (int i = 0; i < 2000; i++)
	{
		tids[i].block = 12345 + i / 185;
		tids[i].offset = 1 + i % 185;
	}
	len = tidcode_encode(tids, 2000, code, sizeof(code));
	CHECK(len > 0 && len < 2000 * 5 / 4, "time series takes %ld bytes", len);
	check_code(code, len, tids, 2000, "time series", 1);

	/* the extremes of both fields, and big jumps both ways */
	tids[0] = (TidCodeTid) {TIDCODE_MAX_BLOCK, TIDCODE_MAX_OFFSET};
	tids[1] = (TidCodeTid) {0, 1};
	tids[2] = (TidCodeTid) {TIDCODE_MAX_BLOCK, 1};
	tids[3] = (TidCodeTid) {TIDCODE_MAX_BLOCK, TIDCODE_MAX_OFFSET - 1};
	tids[4] = (TidCodeTid) {0, TIDCODE_MAX_OFFSET};
	len = tidcode_encode(tids, 5, code, sizeof(code));
	CHECK(len > 0, "extremes refused");
	check_code(code, len, tids, 5, "extremes", 1);
	CHECK(tidcode_entry_size(&tids[0], &tids[1]) <= TIDCODE_MAX_ENTRY &&
		  tidcode_entry_size(&tids[1], &tids[2]) <= TIDCODE_MAX_ENTRY &&
		  tidcode_entry_size(&tids[2], &tids[3]) <= TIDCODE_MAX_ENTRY,
		  "an entry longer than TIDCODE_MAX_ENTRY");

	/* invalid lists */
	tids[1] = tids[0];
	CHECK(tidcode_encode(tids, 2, code, sizeof(code)) < 0, "equal neighbours");
	tids[1] = (TidCodeTid) {0, 0};
	CHECK(tidcode_encode(tids, 2, code, sizeof(code)) < 0, "offset 0");
	tids[1] = (TidCodeTid) {0xFFFFFFFFu, 1};
	CHECK(tidcode_encode(tids, 2, code, sizeof(code)) < 0, "block 0xFFFFFFFF");
	tids[1] = (TidCodeTid) {7, 7};
	CHECK(tidcode_encode(tids, 2, code, 5) < 0, "too small a buffer");

	/* empty */
	CHECK(tidcode_encode(tids, 0, code, sizeof(code)) == 0, "empty list");
	CHECK(tidcode_open(&tc, code, 0, 0) && !tidcode_open(&tc, code, 0, 1),
		  "empty code");

	/* six-byte TID arrays (the old layout) never open as a code */
	for (int n = 1; n < 50; n++)
	{
		memset(code, 0, 6 * n);
		code[0] = TIDCODE_MAGIC;
		code[2] = (uint8_t) n;
		CHECK(!tidcode_open(&tc, code, 6 * n, n), "%d old TIDs opened", n);
	}

	/* a groupful of equal-block TIDs, then the insert that splits it */
	for (int i = 0; i < TIDCODE_GROUP_MAX; i++)
		tids[i] = (TidCodeTid) {5, (uint16_t) (2 * i + 2)};
	{
		uint8_t		next[SPACE];
		TidCodeTid	model[TIDCODE_GROUP_MAX + 1];
		long		nlen;

		/* one group of 64: build it with inserts at the end */
		len = tidcode_encode(tids, 1, code, sizeof(code));
		for (int i = 1; i < TIDCODE_GROUP_MAX; i++)
		{
			CHECK(tidcode_open(&tc, code, (size_t) len, i), "open %d", i);
			nlen = tidcode_insert(&tc, i, tids[i], next, sizeof(next));
			memcpy(code, next, (size_t) nlen);
			len = nlen;
		}
		CHECK(tidcode_open(&tc, code, (size_t) len, TIDCODE_GROUP_MAX) &&
			  tc.ngroups == 1, "one group of %d", TIDCODE_GROUP_MAX);
		nlen = tidcode_insert(&tc, 10, (TidCodeTid) {5, 21}, next, sizeof(next));
		memcpy(model, tids, 10 * sizeof(TidCodeTid));
		model[10] = (TidCodeTid) {5, 21};
		memcpy(model + 11, tids + 10, (TIDCODE_GROUP_MAX - 10) * sizeof(TidCodeTid));
		check_code(next, nlen, model, TIDCODE_GROUP_MAX + 1, "group split", 1);
		CHECK(tidcode_open(&tc, next, (size_t) nlen, TIDCODE_GROUP_MAX + 1) &&
			  tc.ngroups == 2, "the full group split");
	}
}

int
main(void)
{
	const char *env;
	long		iterations = 400;
	uint64_t	seed = 0x71DC0DEULL;

	if ((env = getenv("TIDCODE_TEST_ITERATIONS")) != NULL)
		iterations = atol(env);
	if ((env = getenv("TIDCODE_TEST_SEED")) != NULL)
		seed = strtoull(env, NULL, 0);

	test_fixed();
	for (long i = 0; i < iterations; i++)
		random_list(seed + (uint64_t) i * 0x1000193ULL);

	printf("tidcode_test: %ld checks, %ld failures\n", n_checks, n_failures);
	return n_failures == 0 ? 0 : 1;
}
