/*-------------------------------------------------------------------------
 *
 * tidcode_fuzz.c
 *	  libFuzzer target for the TID code (src/lib/tidcode.c), run by
 *	  "make fuzz".
 *
 * The first input byte picks a mode.  Mode 0 takes the rest as a damaged
 * code: it is copied into a buffer of exactly its length (so that
 * AddressSanitizer sees any read past it) and opened, read, checked,
 * inserted into and deleted from; whatever tidcode_check accepts must
 * decode to valid TIDs, and a deletion from it must not grow it.  Mode 1
 * takes the rest as operations on a list: TIDs made from the input bytes
 * (deltas of any sign and size) are inserted at positions and deleted,
 * and after each change the code must decode to the model list, a
 * deletion must not grow it, and an insert must grow it by at most
 * TIDCODE_MAX_INSERT_GROWTH bytes.
 *
 * test/fuzz/tidcode_fuzz.c
 *
 *-------------------------------------------------------------------------
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tidcode.h"

#define FZ_MAX_TIDS		600
#define FZ_SPACE		(TIDCODE_HEADER_SIZE + FZ_MAX_TIDS * (TIDCODE_MAX_ENTRY + TIDCODE_DIR_ENTRY) + 64)

/* Abort with a message when a check fails (libFuzzer reports the crash). */
#define FZ_ASSERT(cond, what) \
	do { \
		if (!(cond)) \
		{ \
			fprintf(stderr, "tidcode_fuzz: %s:%d: %s (%s)\n", __FILE__, __LINE__, \
					what, #cond); \
			abort(); \
		} \
	} while (0)

typedef struct Input
{
	const uint8_t *data;
	size_t		size;
	size_t		off;
} Input;

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

/* Next input byte, 0 past the end. */
static int
in_byte(Input *in)
{
	return in->off < in->size ? in->data[in->off++] : 0;
}

/* Is tid in tids[0..n)? */
static bool
fz_contains(const TidCodeTid *tids, int n, TidCodeTid tid)
{
	for (int i = 0; i < n; i++)
		if (tids[i].block == tid.block && tids[i].offset == tid.offset)
			return true;
	return false;
}

/* Mode 0: the input is a (damaged) code. */
static void
fz_damaged(Input *in)
{
	int			n = in_byte(in) | (in_byte(in) << 8);
	size_t		len = in->size - in->off;
	uint8_t    *code = malloc(len ? len : 1);
	static uint8_t out[1 << 17];
	static TidCodeTid tids[TIDCODE_MAX_TIDS];
	TidCode		tc;

	memcpy(code, in->data + in->off, len);
	if (tidcode_open(&tc, code, len, n))
	{
		TidCodeTid	t;
		bool		valid = tidcode_check(&tc);

		for (int i = 0; i < n; i += 1 + i / 4)
			(void) tidcode_get(&tc, i, &t);
		(void) tidcode_decode(&tc, n / 3, n - n / 3, tids);
		if (valid)
		{
			int			positions[3] = {0, n / 2, n - 1};
			int			np = n >= 3 && n / 2 != n - 1 && n / 2 != 0 ? 3 : 1;
			long		nlen;

			FZ_ASSERT(tidcode_decode(&tc, 0, n, tids), "checked code decodes");
			for (int i = 0; i < n; i++)
				FZ_ASSERT(tids[i].offset >= 1 && tids[i].block <= TIDCODE_MAX_BLOCK &&
						  (i == 0 || tids[i].block != tids[i - 1].block ||
						   tids[i].offset != tids[i - 1].offset),
						  "checked code holds an invalid TID");
			if (n > 0)
			{
				nlen = tidcode_delete(&tc, positions, np, out, len);
				FZ_ASSERT(nlen >= 0 && (size_t) nlen <= len,
						  "deletion grew a checked code");
			}
		}
		else
		{
			int			positions[2] = {0, n - 1};

			if (n > 0)
				(void) tidcode_delete(&tc, positions, n > 1 ? 2 : 1, out, sizeof(out));
		}
		t.block = in->size;
		t.offset = 1 + (len & 0xFF);
		(void) tidcode_insert(&tc, n / 2, t, out, sizeof(out));
	}
	free(code);
}

/* Mode 1: operations on a model list. */
static void
fz_ops(Input *in)
{
	static TidCodeTid model[FZ_MAX_TIDS + 1];
	static uint8_t code[FZ_SPACE];
	static uint8_t next[FZ_SPACE];
	int			n = 0;
	long		len = 0;

	while (in->off < in->size)
	{
		int			op = in_byte(in);
		TidCode		tc;
		long		nlen;

		FZ_ASSERT(tidcode_open(&tc, code, (size_t) len, n), "open");
		if ((op & 3) != 3 && n < FZ_MAX_TIDS)
		{
			int			pos = n ? in_byte(in) % (n + 1) : 0;
			TidCodeTid	base = pos > 0 ? model[pos - 1] : (TidCodeTid) {0, 1};
			int			shape = in_byte(in);
			int64_t		blk = base.block;
			int64_t		off = base.offset;
			TidCodeTid	t;

			/* a delta of the input's choosing: small, large, either sign */
			if (shape & 1)
				blk += (int8_t) in_byte(in);
			if (shape & 2)
				blk += (int64_t) (in_byte(in) | (in_byte(in) << 8) |
								  ((uint32_t) in_byte(in) << 16) |
								  ((uint32_t) in_byte(in) << 24)) - 0x7FFFFFFF;
			if (shape & 4)
				off += (int8_t) in_byte(in);
			else
				off = 1 + (in_byte(in) | (in_byte(in) << 8)) % TIDCODE_MAX_OFFSET;
			if (blk < 0)
				blk = 0;
			if (blk > TIDCODE_MAX_BLOCK)
				blk = TIDCODE_MAX_BLOCK;
			if (off < 1)
				off = 1;
			if (off > TIDCODE_MAX_OFFSET)
				off = TIDCODE_MAX_OFFSET;
			t.block = (uint32_t) blk;
			t.offset = (uint16_t) off;
			nlen = tidcode_insert(&tc, pos, t, next, sizeof(next));
			if (fz_contains(model, n, t))
			{
				/* equal to a neighbour: refused; elsewhere it is the caller's to avoid */
				if ((pos > 0 && model[pos - 1].block == t.block && model[pos - 1].offset == t.offset) ||
					(pos < n && model[pos].block == t.block && model[pos].offset == t.offset))
					FZ_ASSERT(nlen < 0, "duplicate neighbour accepted");
				continue;
			}
			FZ_ASSERT(nlen >= 0 && nlen <= len + TIDCODE_MAX_INSERT_GROWTH,
					  "insert failed or grew too much");
			memmove(model + pos + 1, model + pos, (size_t) (n - pos) * sizeof(TidCodeTid));
			model[pos] = t;
			n++;
		}
		else if (n > 0)
		{
			int			positions[FZ_MAX_TIDS];
			int			np = 0;
			int			step = 1 + in_byte(in) % 16;

			for (int i = in_byte(in) % n; i < n; i += step)
				positions[np++] = i;
			nlen = tidcode_delete(&tc, positions, np, next, (size_t) len);
			FZ_ASSERT(nlen >= 0 && nlen <= len, "deletion failed or grew");
			for (int i = np - 1; i >= 0; i--)
			{
				memmove(model + positions[i], model + positions[i] + 1,
						(size_t) (n - positions[i] - 1) * sizeof(TidCodeTid));
				n--;
			}
		}
		else
			continue;
		memcpy(code, next, (size_t) nlen);
		len = nlen;
		{
			static TidCodeTid out[FZ_MAX_TIDS];
			TidCode		ntc;
			TidCodeTid	t;

			FZ_ASSERT(tidcode_open(&ntc, code, (size_t) len, n) && tidcode_check(&ntc),
					  "changed code does not check");
			FZ_ASSERT(tidcode_decode(&ntc, 0, n, out) &&
					  (n == 0 || tids_equal(out, model, n)),
					  "changed code differs from the model");
			if (n > 0)
				FZ_ASSERT(tidcode_get(&ntc, n - 1, &t) &&
						  t.block == model[n - 1].block && t.offset == model[n - 1].offset,
						  "get of the last TID");
		}
	}
	/* a fresh encoding of the list decodes to it */
	{
		TidCode		tc;
		static TidCodeTid out[FZ_MAX_TIDS];
		long		flen = tidcode_encode(model, n, next, sizeof(next));

		FZ_ASSERT(flen >= 0 && tidcode_open(&tc, next, (size_t) flen, n) &&
				  tidcode_decode(&tc, 0, n, out) &&
				  (n == 0 || tids_equal(out, model, n)),
				  "fresh encoding");
	}
}

/* libFuzzer entry point. */
int			LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	Input		in = {data, size, 0};

	if (in_byte(&in) & 1)
		fz_ops(&in);
	else
		fz_damaged(&in);
	return 0;
}
