/*-------------------------------------------------------------------------
 *
 * keynorm_test.c
 *	  Unit tests of the normalized (binary-comparable) keys of keynorm.c.
 *
 * Stand-alone program, linked with the sources in src/lib; exits 0 when
 * every check passes.  Besides a few fixed encodings it runs randomized
 * property tests: for random pairs of values of every type (edge values
 * included), the sign of memcmp of the normalized forms must equal the sign
 * of a reference comparator written to PostgreSQL's semantics, and
 * multi-column keys with every DESC / NULLS FIRST / NULLS LAST combination
 * and a heap TID suffix must order like a reference tuple comparator (and
 * report "not decisive" exactly when truncated text prefixes tie).
 *
 * The seeds are fixed.  KEYNORM_TEST_ITERATIONS sets the number of random
 * pairs per type (default 100000; the multi-column test scales with it) and
 * KEYNORM_TEST_SEED replaces the base seed.
 *
 *-------------------------------------------------------------------------
 */
#include <float.h>
#include <inttypes.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../src/lib/keynorm.h"

#define MAX_FAILURES_SHOWN	20
#define MAX_STR				12
#define MAX_COLS			5
#define MAX_KEY				512
#define TUPLES_PER_SCHEMA	40

static long failures = 0;
static long checks = 0;
static uint64_t rng_state;
static long iterations = 100000;

/*
 * Record the outcome of one check, printing the first failures.
 */
static void
check(bool ok, const char *what, const char *detail)
{
	checks++;
	if (ok)
		return;
	failures++;
	if (failures <= MAX_FAILURES_SHOWN)
		printf("FAIL: %s: %s\n", what, detail);
}

/*
 * Seed the generator (splitmix64).
 */
static void
rng_seed(uint64_t seed)
{
	rng_state = seed;
}

/*
 * Return 64 random bits (splitmix64).
 */
static uint64_t
rnd(void)
{
	uint64_t	z = (rng_state += UINT64_C(0x9E3779B97F4A7C15));

	z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
	z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
	return z ^ (z >> 31);
}

/*
 * Return a random number in [0, n).
 */
static uint64_t
rnd_below(uint64_t n)
{
	return rnd() % n;
}

/*
 * Return the sign of an int as -1, 0 or 1.
 */
static int
sgn(int v)
{
	return (v > 0) - (v < 0);
}

/*
 * Compare two integers the way PostgreSQL's btint*cmp do.
 */
static int
ref_cmp_i64(int64_t a, int64_t b)
{
	return (a > b) - (a < b);
}

/*
 * Compare two unsigned integers (oid order).
 */
static int
ref_cmp_u64(uint64_t a, uint64_t b)
{
	return (a > b) - (a < b);
}

/*
 * Compare two float8 values as PostgreSQL's float8_cmp_internal does: NaNs
 * are equal to each other and greater than everything else, -0 == +0.
 */
static int
ref_cmp_f8(double a, double b)
{
	if (isnan(a))
		return isnan(b) ? 0 : 1;
	if (isnan(b))
		return -1;
	return (a > b) - (a < b);
}

/*
 * Compare two float4 values as PostgreSQL's float4_cmp_internal does.
 */
static int
ref_cmp_f4(float a, float b)
{
	if (isnan(a))
		return isnan(b) ? 0 : 1;
	if (isnan(b))
		return -1;
	return (a > b) - (a < b);
}

/*
 * Compare two byte strings as PostgreSQL compares bytea, and text under the
 * C collation: memcmp of the common length, then the shorter first.
 */
static int
ref_cmp_bytes(const uint8_t *a, size_t alen, const uint8_t *b, size_t blen)
{
	int			r = memcmp(a, b, alen < blen ? alen : blen);

	if (r != 0)
		return sgn(r);
	return (alen > blen) - (alen < blen);
}

/*
 * Reference escaping of a byte string, written independently of keynorm.c:
 * 0x00 -> 0x00 0xFF, terminator 0x00 0x00.  Returns the encoded length.
 */
static size_t
ref_escape(const uint8_t *s, size_t len, uint8_t *out)
{
	size_t		n = 0;
	size_t		i;

	for (i = 0; i < len; i++)
	{
		out[n++] = s[i];
		if (s[i] == 0)
			out[n++] = 0xFF;
	}
	out[n++] = 0;
	out[n++] = 0;
	return n;
}

/*
 * Format a byte string in hex into buf for failure messages.
 */
static const char *
hex(const uint8_t *p, size_t len, char *buf, size_t bufsize)
{
	size_t		i;
	size_t		n = 0;

	buf[0] = '\0';
	for (i = 0; i < len && n + 3 < bufsize; i++)
		n += snprintf(buf + n, bufsize - n, "%02x", p[i]);
	return buf;
}

/*
 * Compare two encodings with memcmp semantics (shorter prefix first).
 */
static int
enc_cmp(const uint8_t *a, size_t alen, const uint8_t *b, size_t blen)
{
	return ref_cmp_bytes(a, alen, b, blen);
}

/*
 * Random int64 drawn from edge values, small values (many ties) or random
 * bits, then narrowed by the caller.
 */
static int64_t
gen_i64(int bits)
{
	int64_t		maxv = (bits == 64) ? INT64_MAX :
		(int64_t) ((UINT64_C(1) << (bits - 1)) - 1);
	int64_t		minv = -maxv - 1;

	switch (rnd_below(6))
	{
		case 0:
			{
				int64_t		edge[] = {minv, minv + 1, -1, 0, 1,
				maxv - 1, maxv};

				return edge[rnd_below(7)];
			}
		case 1:
			return (int64_t) rnd_below(7) - 3;
		case 2:
			return (int64_t) rnd_below(2001) - 1000;
		default:
			{
				uint64_t	r = rnd();

				if (bits < 64)
				{
					/* sign-extend the low bits */
					uint64_t	m = UINT64_C(1) << (bits - 1);

					r &= (UINT64_C(1) << bits) - 1;
					return (int64_t) ((r ^ m) - m);
				}
				return (int64_t) r;
			}
	}
}

/*
 * Random float8 bit patterns: edge values, NaNs with any sign and payload,
 * denormals, small values (ties) and arbitrary bits.
 */
static double
gen_f8(void)
{
	double		v;
	uint64_t	bits;

	switch (rnd_below(8))
	{
		case 0:
			{
				double		edge[] = {0.0, -0.0, INFINITY, -INFINITY,
					DBL_MAX, -DBL_MAX, DBL_MIN, -DBL_MIN,
					4.9406564584124654e-324, -4.9406564584124654e-324,
				1.0, -1.0, 0.5, -0.5};

				return edge[rnd_below(sizeof(edge) / sizeof(edge[0]))];
			}
		case 1:
			/* NaN: exponent all ones, nonzero payload, random sign */
			bits = UINT64_C(0x7FF0000000000000) |
				(rnd() & UINT64_C(0x000FFFFFFFFFFFFF));
			if ((bits & UINT64_C(0x000FFFFFFFFFFFFF)) == 0)
				bits |= 1;
			if (rnd() & 1)
				bits |= UINT64_C(0x8000000000000000);
			break;
		case 2:
			/* denormal: exponent zero, random mantissa and sign */
			bits = rnd() & UINT64_C(0x800FFFFFFFFFFFFF);
			break;
		case 3:
			return (double) ((int) rnd_below(9) - 4) / 2.0;
		default:
			bits = rnd();
			break;
	}
	memcpy(&v, &bits, sizeof(v));
	return v;
}

/*
 * Random float4 bit patterns, as gen_f8 for single precision.
 */
static float
gen_f4(void)
{
	float		v;
	uint32_t	bits;

	switch (rnd_below(8))
	{
		case 0:
			{
				float		edge[] = {0.0f, -0.0f, INFINITY, -INFINITY,
					FLT_MAX, -FLT_MAX, FLT_MIN, -FLT_MIN,
					1.4e-45f, -1.4e-45f, 1.0f, -1.0f, 0.5f, -0.5f};

				return edge[rnd_below(sizeof(edge) / sizeof(edge[0]))];
			}
		case 1:
			bits = UINT32_C(0x7F800000) |
				((uint32_t) rnd() & UINT32_C(0x007FFFFF));
			if ((bits & UINT32_C(0x007FFFFF)) == 0)
				bits |= 1;
			if (rnd() & 1)
				bits |= UINT32_C(0x80000000);
			break;
		case 2:
			bits = (uint32_t) rnd() & UINT32_C(0x807FFFFF);
			break;
		case 3:
			return (float) ((int) rnd_below(9) - 4) / 2.0f;
		default:
			bits = (uint32_t) rnd();
			break;
	}
	memcpy(&v, &bits, sizeof(v));
	return v;
}

/*
 * Random byte string over an alphabet rich in 0x00 and 0xFF; len <= maxlen.
 */
static size_t
gen_bytes(uint8_t *s, size_t maxlen)
{
	static const uint8_t alpha[] = {0x00, 0x00, 0x01, 0x61, 0x62, 0x7F,
	0x80, 0xFE, 0xFF, 0xFF};
	size_t		len = rnd_below(maxlen + 1);
	size_t		i;

	for (i = 0; i < len; i++)
	{
		if (rnd_below(8) == 0)
			s[i] = (uint8_t) rnd();
		else
			s[i] = alpha[rnd_below(sizeof(alpha))];
	}
	return len;
}

/*
 * Generate a pair of byte strings, often one a prefix of the other or
 * sharing a long common prefix.
 */
static void
gen_bytes_pair(uint8_t *a, size_t *alen, uint8_t *b, size_t *blen)
{
	*alen = gen_bytes(a, MAX_STR);
	switch (rnd_below(4))
	{
		case 0:
			/* b = a + suffix, or a prefix of a */
			*blen = rnd_below(MAX_STR + 1);
			memcpy(b, a, *alen < *blen ? *alen : *blen);
			if (*blen > *alen)
				gen_bytes(b + *alen, *blen - *alen);
			if (*blen > *alen)
			{
				size_t		i;

				for (i = *alen; i < *blen; i++)
					b[i] = (rnd() & 1) ? 0x00 : b[i];
			}
			break;
		case 1:
			/* same prefix, one byte changed */
			*blen = *alen;
			memcpy(b, a, *alen);
			if (*blen > 0)
				b[rnd_below(*blen)] = (uint8_t) (rnd() & 1 ? 0x00 : 0xFF);
			break;
		case 2:
			*blen = *alen;
			memcpy(b, a, *alen);
			break;
		default:
			*blen = gen_bytes(b, MAX_STR);
			break;
	}
}

/*
 * Check one pair of fixed-width encodings against a reference result, in
 * both directions and under the column wrapper with every flag combination.
 */
static void
check_fixed_pair(const char *what, const uint8_t *ea, const uint8_t *eb,
				 size_t n, int ref)
{
	uint8_t		ca[64];
	uint8_t		cb[64];
	char		msg[256];
	char		ha[80];
	char		hb[80];
	int			flags;

	snprintf(msg, sizeof(msg), "%s vs %s: ref %d",
			 hex(ea, n, ha, sizeof(ha)), hex(eb, n, hb, sizeof(hb)), ref);
	check(sgn(memcmp(ea, eb, n)) == ref, what, msg);

	for (flags = 0; flags < 4; flags++)
	{
		size_t		la = keynorm_column(ca, flags, false, ea, n);
		size_t		lb = keynorm_column(cb, flags, false, eb, n);
		int			want = (flags & KEYNORM_DESC) ? -ref : ref;

		check(la == n + 1 && lb == n + 1, what, "column length");
		check(enc_cmp(ca, la, cb, lb) == want, what, msg);
	}
}

/*
 * Integer-like types: int2, int4, int8, oid, date, timestamp[tz], time.
 */
static void
test_integers(void)
{
	long		i;

	for (i = 0; i < iterations; i++)
	{
		uint8_t		ea[8];
		uint8_t		eb[8];
		int64_t		a;
		int64_t		b;
		uint32_t	ua;
		uint32_t	ub;

		a = gen_i64(16);
		b = rnd_below(4) == 0 ? a : gen_i64(16);
		check(keynorm_int16((int16_t) a, ea) == 2 &&
			  keynorm_int16((int16_t) b, eb) == 2, "int16", "size");
		check_fixed_pair("int16", ea, eb, 2, ref_cmp_i64(a, b));

		a = gen_i64(32);
		b = rnd_below(4) == 0 ? a : gen_i64(32);
		check(keynorm_int32((int32_t) a, ea) == 4 &&
			  keynorm_int32((int32_t) b, eb) == 4, "int32", "size");
		check_fixed_pair("int32", ea, eb, 4, ref_cmp_i64(a, b));
		keynorm_date((int32_t) a, ea);
		keynorm_date((int32_t) b, eb);
		check_fixed_pair("date", ea, eb, 4, ref_cmp_i64(a, b));

		a = gen_i64(64);
		b = rnd_below(4) == 0 ? a : gen_i64(64);
		check(keynorm_int64(a, ea) == 8 && keynorm_int64(b, eb) == 8,
			  "int64", "size");
		check_fixed_pair("int64", ea, eb, 8, ref_cmp_i64(a, b));
		keynorm_timestamp(a, ea);
		keynorm_timestamp(b, eb);
		check_fixed_pair("timestamp", ea, eb, 8, ref_cmp_i64(a, b));
		keynorm_timestamptz(a, ea);
		keynorm_timestamptz(b, eb);
		check_fixed_pair("timestamptz", ea, eb, 8, ref_cmp_i64(a, b));

		/* time: microseconds within a day (and beyond, to be safe) */
		a = (int64_t) rnd_below(UINT64_C(86400000001));
		b = rnd_below(4) == 0 ? a : (int64_t) rnd_below(UINT64_C(86400000001));
		keynorm_time(a, ea);
		keynorm_time(b, eb);
		check_fixed_pair("time", ea, eb, 8, ref_cmp_i64(a, b));

		ua = (uint32_t) gen_i64(32);
		ub = rnd_below(4) == 0 ? ua : (uint32_t) gen_i64(32);
		check(keynorm_oid(ua, ea) == 4 && keynorm_oid(ub, eb) == 4,
			  "oid", "size");
		check_fixed_pair("oid", ea, eb, 4, ref_cmp_u64(ua, ub));
	}
}

/*
 * float4 and float8 in PostgreSQL's order; NaNs and zeros canonical.
 */
static void
test_floats(void)
{
	long		i;
	uint8_t		nan8[8];
	uint8_t		nan4[4];
	uint8_t		e[8];
	double		d;
	float		f;
	uint64_t	bits;
	uint32_t	bits4;

	/* The canonical encodings of NaN and zero */
	keynorm_float8(NAN, nan8);
	keynorm_float4(NAN, nan4);
	check(memcmp(nan8, "\xFF\xF8\0\0\0\0\0\0", 8) == 0, "float8", "NaN bytes");
	check(memcmp(nan4, "\xFF\xC0\0\0", 4) == 0, "float4", "NaN bytes");
	keynorm_float8(-0.0, e);
	check(memcmp(e, "\x80\0\0\0\0\0\0\0", 8) == 0, "float8", "-0 bytes");
	keynorm_float4(-0.0f, e);
	check(memcmp(e, "\x80\0\0\0", 4) == 0, "float4", "-0 bytes");

	/* A negative signalling NaN and a positive one encode like NaN */
	bits = UINT64_C(0xFFF0000000000001);
	memcpy(&d, &bits, 8);
	keynorm_float8(d, e);
	check(memcmp(e, nan8, 8) == 0, "float8", "negative sNaN canonical");
	bits = UINT64_C(0x7FF0000000000001);
	memcpy(&d, &bits, 8);
	keynorm_float8(d, e);
	check(memcmp(e, nan8, 8) == 0, "float8", "positive sNaN canonical");
	bits4 = UINT32_C(0xFF800001);
	memcpy(&f, &bits4, 4);
	keynorm_float4(f, e);
	check(memcmp(e, nan4, 4) == 0, "float4", "negative sNaN canonical");

	for (i = 0; i < iterations; i++)
	{
		uint8_t		ea[8];
		uint8_t		eb[8];
		double		a8 = gen_f8();
		double		b8 = rnd_below(8) == 0 ? a8 : gen_f8();
		float		a4 = gen_f4();
		float		b4 = rnd_below(8) == 0 ? a4 : gen_f4();

		check(keynorm_float8(a8, ea) == 8 && keynorm_float8(b8, eb) == 8,
			  "float8", "size");
		check_fixed_pair("float8", ea, eb, 8, ref_cmp_f8(a8, b8));
		if (isnan(a8))
			check(memcmp(ea, nan8, 8) == 0, "float8", "NaN not canonical");

		check(keynorm_float4(a4, ea) == 4 && keynorm_float4(b4, eb) == 4,
			  "float4", "size");
		check_fixed_pair("float4", ea, eb, 4, ref_cmp_f4(a4, b4));
		if (isnan(a4))
			check(memcmp(ea, nan4, 4) == 0, "float4", "NaN not canonical");
	}
}

/*
 * bool and uuid.
 */
static void
test_bool_uuid(void)
{
	uint8_t		ea[16];
	uint8_t		eb[16];
	int			a;
	int			b;
	long		i;

	for (a = 0; a < 2; a++)
		for (b = 0; b < 2; b++)
		{
			check(keynorm_bool(a, ea) == 1 && keynorm_bool(b, eb) == 1,
				  "bool", "size");
			check_fixed_pair("bool", ea, eb, 1, (a > b) - (a < b));
		}

	for (i = 0; i < iterations; i++)
	{
		uint8_t		ua[16];
		uint8_t		ub[16];
		int			k;

		for (k = 0; k < 16; k++)
			ua[k] = (uint8_t) (rnd_below(3) == 0 ? rnd() : 0xFF * (rnd() & 1));
		memcpy(ub, ua, 16);
		if (rnd_below(4) != 0)
			ub[rnd_below(16)] = (uint8_t) rnd();
		check(keynorm_uuid(ua, ea) == 16 && keynorm_uuid(ub, eb) == 16,
			  "uuid", "size");
		check_fixed_pair("uuid", ea, eb, 16, ref_cmp_bytes(ua, 16, ub, 16));
	}
}

/*
 * Full variable-length bytea/text encoding: order, prefix-freeness, exact
 * size, DESC inversion and concatenation with arbitrary following bytes.
 */
static void
test_bytes(void)
{
	long		i;
	uint8_t		e[64];
	static const struct
	{
		const char *in;
		size_t		inlen;
		const char *out;
		size_t		outlen;
	}			vec[] =
	{
		{"", 0, "\0\0", 2},
		{"\0", 1, "\0\xFF\0\0", 4},
		{"a\0b", 3, "a\0\xFF" "b\0\0", 6},
		{"\xFF", 1, "\xFF\0\0", 3},
	};

	for (i = 0; i < (long) (sizeof(vec) / sizeof(vec[0])); i++)
	{
		size_t		n = keynorm_bytes(vec[i].in, vec[i].inlen, e);

		check(n == vec[i].outlen && memcmp(e, vec[i].out, n) == 0,
			  "bytes", "fixed vector");
		check(keynorm_bytes_size(vec[i].in, vec[i].inlen) == n,
			  "bytes", "fixed vector size");
	}

	for (i = 0; i < iterations; i++)
	{
		uint8_t		a[MAX_STR];
		uint8_t		b[MAX_STR];
		size_t		alen;
		size_t		blen;
		uint8_t		ea[2 * MAX_STR + 2 + 8];
		uint8_t		eb[2 * MAX_STR + 2 + 8];
		uint8_t		ra[2 * MAX_STR + 2];
		size_t		la;
		size_t		lb;
		size_t		m;
		size_t		k;
		int			ref;
		int			flags;
		char		msg[256];
		char		h1[80];
		char		h2[80];

		gen_bytes_pair(a, &alen, b, &blen);
		ref = ref_cmp_bytes(a, alen, b, blen);

		la = (rnd() & 1) ? keynorm_bytes(a, alen, ea) :
			keynorm_text((const char *) a, alen, ea);
		lb = keynorm_bytes(b, blen, eb);
		check(la == keynorm_bytes_size(a, alen), "bytes", "size");
		check(la <= KEYNORM_BYTES_MAX_SIZE(alen), "bytes", "max size");
		check(la == ref_escape(a, alen, ra) && memcmp(ea, ra, la) == 0,
			  "bytes", "matches reference escaping");

		snprintf(msg, sizeof(msg), "%s vs %s: ref %d",
				 hex(a, alen, h1, sizeof(h1)), hex(b, blen, h2, sizeof(h2)),
				 ref);
		check(enc_cmp(ea, la, eb, lb) == ref, "bytes order", msg);

		/* prefix-free: distinct encodings differ within the shorter one */
		m = la < lb ? la : lb;
		if (ref != 0)
			check(memcmp(ea, eb, m) != 0, "bytes prefix-free", msg);
		else
			check(la == lb && memcmp(ea, eb, la) == 0, "bytes equal", msg);

		/*
		 * Under every column flag, followed by arbitrary bytes standing for
		 * later columns, the order is the reference order (reversed for
		 * DESC) whenever the values differ.
		 */
		for (flags = 0; flags < 4; flags++)
		{
			uint8_t		ca[64];
			uint8_t		cb[64];
			size_t		ca_len = keynorm_column(ca, flags, false, ea, la);
			size_t		cb_len = keynorm_column(cb, flags, false, eb, lb);
			int			want = (flags & KEYNORM_DESC) ? -ref : ref;
			size_t		cm = ca_len < cb_len ? ca_len : cb_len;

			for (k = 0; k < 4; k++)
			{
				ca[ca_len + k] = (uint8_t) rnd();
				cb[cb_len + k] = (uint8_t) rnd();
			}
			if (ref != 0)
				check(sgn(memcmp(ca, cb, cm + 4)) == want,
					  "bytes column + trailing bytes", msg);
			else
				check(ca_len == cb_len && memcmp(ca, cb, ca_len) == 0,
					  "bytes column equal", msg);
		}
	}
}

/*
 * Truncated fixed-width bytea/text: where prefixes differ they order like
 * the values; where they are equal, both values are complete (and equal) or
 * neither is; completeness means the whole encoding fit.
 */
static void
test_bytes_prefix(void)
{
	long		i;
	uint8_t		e[8];
	bool		complete;

	/* an escape split by the width: "x\0" with width 2 */
	keynorm_bytes_prefix("x\0", 2, 2, e, &complete);
	check(memcmp(e, "x\0", 2) == 0 && !complete, "prefix", "split escape");
	keynorm_text_prefix("ab", 2, 4, e, &complete);
	check(memcmp(e, "ab\0\0", 4) == 0 && complete, "prefix", "exact fit");
	keynorm_text_prefix("ab", 2, 3, e, &complete);
	check(memcmp(e, "ab\0", 3) == 0 && !complete, "prefix", "terminator cut");
	check(keynorm_bytes_prefix("", 0, 0, e, &complete) == 0 && !complete,
		  "prefix", "width 0");

	for (i = 0; i < iterations; i++)
	{
		uint8_t		a[MAX_STR];
		uint8_t		b[MAX_STR];
		size_t		alen;
		size_t		blen;
		size_t		width = rnd_below(2 * MAX_STR + 4);
		uint8_t		ta[2 * MAX_STR + 8];
		uint8_t		tb[2 * MAX_STR + 8];
		uint8_t		ra[2 * MAX_STR + 2 + 2 * MAX_STR + 8];
		size_t		rlen;
		bool		ca;
		bool		cb;
		int			ref;
		int			r;
		char		msg[256];
		char		h1[80];
		char		h2[80];

		gen_bytes_pair(a, &alen, b, &blen);
		ref = ref_cmp_bytes(a, alen, b, blen);
		check(keynorm_bytes_prefix(a, alen, width, ta, &ca) == width,
			  "prefix", "size");
		keynorm_bytes_prefix(b, blen, width, tb, &cb);

		/* the prefix is the escaped form cut or zero-padded to width */
		rlen = ref_escape(a, alen, ra);
		memset(ra + rlen, 0, sizeof(ra) - rlen);
		check(memcmp(ta, ra, width) == 0, "prefix", "content");
		check(ca == (rlen <= width), "prefix", "complete flag");

		snprintf(msg, sizeof(msg), "%s vs %s width %zu: ref %d",
				 hex(a, alen, h1, sizeof(h1)), hex(b, blen, h2, sizeof(h2)),
				 width, ref);
		r = sgn(memcmp(ta, tb, width));
		if (r != 0)
			check(r == ref, "prefix order", msg);
		else
		{
			check(ca == cb, "prefix equal implies same completeness", msg);
			if (ca && cb)
				check(ref == 0, "complete equal prefixes mean equal values",
					  msg);
		}

		/* DESC: inverted fixed-width prefixes order in reverse */
		keynorm_invert(ta, width);
		keynorm_invert(tb, width);
		if (r != 0)
			check(sgn(memcmp(ta, tb, width)) == -ref, "prefix desc", msg);
		else
			check(memcmp(ta, tb, width) == 0, "prefix desc equal", msg);
	}
}

/*
 * NULL markers of the column wrapper against non-NULL values.
 */
static void
test_nulls(void)
{
	uint8_t		nul[4];
	uint8_t		val[8];
	uint8_t		v[4];
	int			flags;
	long		i;

	for (flags = 0; flags < 4; flags++)
	{
		bool		nf = (flags & KEYNORM_NULLS_FIRST) != 0;

		check(keynorm_column(nul, flags, true, NULL, 0) == 1, "null", "size");
		check(nul[0] == (nf ? KEYNORM_NULL_FIRST : KEYNORM_NULL_LAST),
			  "null", "marker");
		for (i = 0; i < 1000; i++)
		{
			size_t		n;

			keynorm_int32((int32_t) gen_i64(32), v);
			n = keynorm_column(val, flags, false, v, 4);
			check(val[0] == KEYNORM_NOT_NULL, "null", "non-null marker");
			check(sgn(enc_cmp(nul, 1, val, n)) == (nf ? -1 : 1),
				  "null placement", nf ? "nulls first" : "nulls last");
		}
	}
}

/* Column types of the multi-column test */
typedef enum ColType
{
	CT_INT16,
	CT_INT32,
	CT_INT64,
	CT_OID,
	CT_BOOL,
	CT_FLOAT4,
	CT_FLOAT8,
	CT_TIMESTAMP,
	CT_UUID,
	CT_TEXT,
	CT_BYTES,
	CT_TEXT_PREFIX,
	CT_NTYPES
} ColType;

typedef struct ColDef
{
	ColType		type;
	int			flags;
	size_t		width;			/* CT_TEXT_PREFIX only */
} ColDef;

typedef struct ColVal
{
	bool		isnull;
	int64_t		i;
	double		f8;
	float		f4;
	uint8_t		s[KEYNORM_UUID_SIZE];	/* string bytes or uuid */
	size_t		slen;
} ColVal;

typedef struct Tuple
{
	ColVal		col[MAX_COLS];
	uint32_t	block;
	uint16_t	offset;
	uint8_t		key[MAX_KEY];
	size_t		keylen;
	size_t		decisive;
} Tuple;

/*
 * Generate one column value from small pools, so that ties are frequent.
 */
static void
gen_colval(const ColDef *def, ColVal *v)
{
	static const int64_t ipool[] = {INT64_MIN, -2, -1, 0, 1, 2, INT64_MAX};
	static const double fpool[] = {-INFINITY, -1.0, -0.0, 0.0, 0.5, 1.0,
	INFINITY, NAN, -NAN};
	size_t		k;

	memset(v, 0, sizeof(*v));
	v->isnull = rnd_below(6) == 0;
	v->i = ipool[rnd_below(7)];
	switch (def->type)
	{
		case CT_INT16:
			v->i = (int16_t) (v->i == INT64_MIN ? INT16_MIN :
							  v->i == INT64_MAX ? INT16_MAX : v->i);
			break;
		case CT_INT32:
		case CT_OID:
			v->i = (int32_t) (v->i == INT64_MIN ? INT32_MIN :
							  v->i == INT64_MAX ? INT32_MAX : v->i);
			break;
		case CT_BOOL:
			v->i = (int64_t) (rnd() & 1);
			break;
		case CT_FLOAT4:
		case CT_FLOAT8:
			v->f8 = fpool[rnd_below(sizeof(fpool) / sizeof(fpool[0]))];
			if (isnan(v->f8) && (rnd() & 1))
			{
				/* a NaN with another payload */
				uint64_t	bits = UINT64_C(0x7FF0000000000000) |
					(rnd() & UINT64_C(0x000FFFFFFFFFFFFF)) | 1;

				memcpy(&v->f8, &bits, 8);
			}
			v->f4 = (float) v->f8;
			break;
		case CT_UUID:
			v->slen = 16;
			for (k = 0; k < 16; k++)
				v->s[k] = (uint8_t) (k < 14 ? 0x5A : rnd_below(3) * 0x7F);
			break;
		case CT_TEXT:
		case CT_BYTES:
		case CT_TEXT_PREFIX:
			{
				static const uint8_t alpha[] = {0x00, 0x01, 0x61, 0xFF};

				v->slen = rnd_below(5);
				for (k = 0; k < v->slen; k++)
					v->s[k] = alpha[rnd_below(4)];
			}
			break;
		default:
			break;
	}
}

/*
 * Reference comparison of two non-NULL column values, ascending.
 */
static int
ref_cmp_value(const ColDef *def, const ColVal *a, const ColVal *b)
{
	switch (def->type)
	{
		case CT_OID:
			return ref_cmp_u64((uint32_t) a->i, (uint32_t) b->i);
		case CT_FLOAT4:
			return ref_cmp_f4(a->f4, b->f4);
		case CT_FLOAT8:
			return ref_cmp_f8(a->f8, b->f8);
		case CT_UUID:
		case CT_TEXT:
		case CT_BYTES:
		case CT_TEXT_PREFIX:
			return ref_cmp_bytes(a->s, a->slen, b->s, b->slen);
		default:
			return ref_cmp_i64(a->i, b->i);
	}
}

/*
 * Reference comparison of one column as nbtree does it: NULLs equal to each
 * other and placed per NULLS FIRST/LAST, non-NULL results inverted for DESC.
 */
static int
ref_cmp_column(const ColDef *def, const ColVal *a, const ColVal *b)
{
	bool		nf = (def->flags & KEYNORM_NULLS_FIRST) != 0;
	int			r;

	if (a->isnull && b->isnull)
		return 0;
	if (a->isnull)
		return nf ? -1 : 1;
	if (b->isnull)
		return nf ? 1 : -1;
	r = ref_cmp_value(def, a, b);
	return (def->flags & KEYNORM_DESC) ? -r : r;
}

/*
 * Reference tuple comparison over the first ncols columns, optionally then
 * the heap TID.  *decided is false when a truncated column's prefixes are
 * equal and incomplete before anything else decided (the reference computes
 * the prefixes with its own escaping).
 */
static int
ref_cmp_tuple(const ColDef *defs, int ncols, const Tuple *a, const Tuple *b,
			  bool with_tid, bool *decided)
{
	int			c;

	*decided = true;
	for (c = 0; c < ncols; c++)
	{
		const ColVal *va = &a->col[c];
		const ColVal *vb = &b->col[c];
		int			r;

		if (defs[c].type == CT_TEXT_PREFIX && !va->isnull && !vb->isnull)
		{
			uint8_t		pa[2 * MAX_STR + 2 + MAX_KEY];
			uint8_t		pb[2 * MAX_STR + 2 + MAX_KEY];
			size_t		la = ref_escape(va->s, va->slen, pa);
			size_t		lb = ref_escape(vb->s, vb->slen, pb);

			memset(pa + la, 0, defs[c].width);
			memset(pb + lb, 0, defs[c].width);
			if (memcmp(pa, pb, defs[c].width) == 0 &&
				(la > defs[c].width || lb > defs[c].width))
			{
				*decided = false;
				return 0;
			}
		}
		r = ref_cmp_column(&defs[c], va, vb);
		if (r != 0)
			return r;
	}
	if (!with_tid)
		return 0;
	if (a->block != b->block)
		return a->block < b->block ? -1 : 1;
	if (a->offset != b->offset)
		return a->offset < b->offset ? -1 : 1;
	return 0;
}

/*
 * Build the normalized key of a tuple's first ncols columns (and its TID if
 * with_tid) with the builder.
 */
static bool
build_key(const ColDef *defs, int ncols, const Tuple *t, bool with_tid,
		  uint8_t *buf, size_t cap, size_t *len, size_t *decisive)
{
	KeyNormBuilder b;
	int			c;

	keynorm_builder_init(&b, buf, cap);
	for (c = 0; c < ncols; c++)
	{
		const ColDef *d = &defs[c];
		const ColVal *v = &t->col[c];
		int			fl = d->flags;

		if (v->isnull)
		{
			keynorm_add_null(&b, fl);
			continue;
		}
		switch (d->type)
		{
			case CT_INT16:
				keynorm_add_int16(&b, fl, (int16_t) v->i);
				break;
			case CT_INT32:
				keynorm_add_int32(&b, fl, (int32_t) v->i);
				break;
			case CT_INT64:
				keynorm_add_int64(&b, fl, v->i);
				break;
			case CT_OID:
				keynorm_add_oid(&b, fl, (uint32_t) v->i);
				break;
			case CT_BOOL:
				keynorm_add_bool(&b, fl, v->i != 0);
				break;
			case CT_FLOAT4:
				keynorm_add_float4(&b, fl, v->f4);
				break;
			case CT_FLOAT8:
				keynorm_add_float8(&b, fl, v->f8);
				break;
			case CT_TIMESTAMP:
				keynorm_add_timestamp(&b, fl, v->i);
				break;
			case CT_UUID:
				keynorm_add_uuid(&b, fl, v->s);
				break;
			case CT_TEXT:
				keynorm_add_text(&b, fl, (const char *) v->s, v->slen);
				break;
			case CT_BYTES:
				{
					/* exercise keynorm_add_encoded as well */
					uint8_t		enc[2 * MAX_STR + 2];
					size_t		n = keynorm_bytes(v->s, v->slen, enc);

					keynorm_add_encoded(&b, fl, enc, n);
				}
				break;
			case CT_TEXT_PREFIX:
				keynorm_add_text_prefix(&b, fl, (const char *) v->s, v->slen,
										d->width);
				break;
			default:
				break;
		}
	}
	if (with_tid)
		keynorm_add_tid(&b, t->block, t->offset);
	*len = keynorm_builder_length(&b);
	*decisive = keynorm_builder_decisive_length(&b);
	check(keynorm_builder_exact(&b) == (*decisive == KEYNORM_EXACT) ||
		  !keynorm_builder_ok(&b), "builder", "exact flag");
	return keynorm_builder_ok(&b);
}

/*
 * Multi-column keys: random schemas with every DESC / NULLS combination,
 * tuples with frequent ties and a TID suffix, compared pairwise against the
 * reference tuple comparator; also search keys made of a leading subset of
 * the columns without a TID.
 */
static void
test_multicolumn(void)
{
	long		nschemas = iterations / 200 + 1;
	long		s;
	static Tuple tuples[TUPLES_PER_SCHEMA];
	static const uint32_t blocks[] = {0, 1, 2, 0x00FFFFFF, 0xFFFFFFFE};
	static const uint16_t offsets[] = {1, 2, 0xFF, 0x100, 0xFFFF};
	long		decisive_count = 0;
	long		undecided_count = 0;

	for (s = 0; s < nschemas; s++)
	{
		ColDef		defs[MAX_COLS];
		int			ncols = 1 + (int) rnd_below(MAX_COLS);
		int			c;
		int			i;
		int			j;

		for (c = 0; c < ncols; c++)
		{
			defs[c].type = (ColType) rnd_below(CT_NTYPES);
			defs[c].flags = (int) rnd_below(4);
			defs[c].width = 1 + rnd_below(8);
		}

		for (i = 0; i < TUPLES_PER_SCHEMA; i++)
		{
			Tuple	   *t = &tuples[i];

			for (c = 0; c < ncols; c++)
			{
				if (i > 0 && rnd_below(3) == 0)
					t->col[c] = tuples[rnd_below(i)].col[c];
				else
					gen_colval(&defs[c], &t->col[c]);
			}
			t->block = blocks[rnd_below(5)];
			t->offset = offsets[rnd_below(5)];
			check(build_key(defs, ncols, t, true, t->key, MAX_KEY,
							&t->keylen, &t->decisive),
				  "multicolumn", "key fits");
		}

		for (i = 0; i < TUPLES_PER_SCHEMA; i++)
		{
			for (j = 0; j < TUPLES_PER_SCHEMA; j++)
			{
				Tuple	   *a = &tuples[i];
				Tuple	   *b = &tuples[j];
				bool		decided;
				bool		decisive;
				int			ref = ref_cmp_tuple(defs, ncols, a, b, true,
												&decided);
				int			r = keynorm_compare(a->key, a->keylen, a->decisive,
												b->key, b->keylen, b->decisive,
												&decisive);
				char		msg[200];
				uint32_t	blk;
				uint16_t	off;
				int			k;

				snprintf(msg, sizeof(msg),
						 "schema %ld tuples %d/%d: ref %d decided %d, "
						 "got %d decisive %d",
						 s, i, j, ref, decided, r, decisive);
				check(decisive == decided, "multicolumn decisive", msg);
				if (decided)
				{
					check(r == ref, "multicolumn order", msg);
					if (a->decisive == KEYNORM_EXACT &&
						b->decisive == KEYNORM_EXACT)
						check(sgn(enc_cmp(a->key, a->keylen, b->key,
										  b->keylen)) == ref,
							  "multicolumn plain memcmp", msg);
					decisive_count++;
				}
				else
					undecided_count++;
				keynorm_get_tid(a->key, a->keylen, &blk, &off);
				check(blk == a->block && off == a->offset,
					  "multicolumn", "TID round trip");

				/* search key: leading k columns of a, no TID, against b */
				for (k = 0; k <= ncols; k++)
				{
					uint8_t		sk[MAX_KEY];
					size_t		sklen;
					size_t		skdec;
					int			want;

					build_key(defs, k, a, false, sk, sizeof(sk),
							  &sklen, &skdec);
					want = ref_cmp_tuple(defs, k, a, b, false, &decided);
					if (decided && want == 0)
						want = -1;	/* a shorter matching prefix sorts first */
					r = keynorm_compare(sk, sklen, skdec, b->key, b->keylen,
										b->decisive, &decisive);
					check(decisive == decided, "search key decisive", msg);
					if (decided)
						check(r == want, "search key order", msg);
				}
			}
		}
	}
	check(decisive_count > 0 && undecided_count > 0, "multicolumn",
		  "both decisive and undecided comparisons occurred");
	printf("multicolumn: %ld schemas, %ld decisive and %ld undecided pairs\n",
		   nschemas, decisive_count, undecided_count);
}

/*
 * Heap TID suffix: block then offset, big-endian, ascending; identical keys
 * differ only by TID.
 */
static void
test_tid(void)
{
	static const uint32_t eb[] = {0, 1, 0xFF, 0x100, 0xFFFF, 0x10000,
	0xFFFFFF, 0x1000000, 0x7FFFFFFF, 0x80000000, 0xFFFFFFFE, 0xFFFFFFFF};
	static const uint16_t eo[] = {0, 1, 0xFF, 0x100, 0x7FFF, 0x8000, 0xFFFF};
	uint8_t		e[6];
	long		i;

	keynorm_tid(0x01020304, 0x0506, e);
	check(memcmp(e, "\x01\x02\x03\x04\x05\x06", 6) == 0, "tid", "bytes");

	for (i = 0; i < iterations; i++)
	{
		uint32_t	ba = rnd_below(2) ? eb[rnd_below(12)] : (uint32_t) rnd();
		uint32_t	bb = rnd_below(3) ? ba : (uint32_t) rnd();
		uint16_t	oa = rnd_below(2) ? eo[rnd_below(7)] : (uint16_t) rnd();
		uint16_t	ob = rnd_below(3) ? oa : (uint16_t) rnd();
		uint8_t		ka[32];
		uint8_t		kb[32];
		KeyNormBuilder b;
		int			ref;
		size_t		la;
		size_t		lb;
		int64_t		v = gen_i64(64);
		uint32_t	blk;
		uint16_t	off;

		if (rnd_below(4) == 0)
			ob = (uint16_t) rnd();
		ref = (ba != bb) ? (ba < bb ? -1 : 1) :
			(oa != ob) ? (oa < ob ? -1 : 1) : 0;

		/* the same key columns (DESC, to be sure the TID stays ascending) */
		keynorm_builder_init(&b, ka, sizeof(ka));
		keynorm_add_int64(&b, KEYNORM_DESC, v);
		keynorm_add_null(&b, 0);
		keynorm_add_tid(&b, ba, oa);
		la = keynorm_builder_length(&b);
		keynorm_builder_init(&b, kb, sizeof(kb));
		keynorm_add_int64(&b, KEYNORM_DESC, v);
		keynorm_add_null(&b, 0);
		keynorm_add_tid(&b, bb, ob);
		lb = keynorm_builder_length(&b);

		check(la == 1 + 8 + 1 + 6 && lb == la, "tid", "key length");
		check(sgn(memcmp(ka, kb, la)) == ref, "tid", "order");
		keynorm_get_tid(ka, la, &blk, &off);
		check(blk == ba && off == oa, "tid", "round trip");
	}
}

/*
 * Builder capacity handling: exact fit succeeds, one byte less fails and
 * the failure is sticky.
 */
static void
test_builder_capacity(void)
{
	uint8_t		buf[64];
	KeyNormBuilder b;
	size_t		need;
	uint8_t		ref[64];
	size_t		n;

	/* int4 + text "a\0" + truncated text width 5 + TID */
	need = (1 + 4) + (1 + 5) + (1 + 5) + 6;

	keynorm_builder_init(&b, buf, need);
	check(keynorm_add_int32(&b, 0, 42) &&
		  keynorm_add_text(&b, KEYNORM_DESC, "a\0", 2) &&
		  keynorm_add_text_prefix(&b, KEYNORM_NULLS_FIRST, "abcdef", 6, 5) &&
		  keynorm_add_tid(&b, 7, 3), "builder", "exact fit");
	check(keynorm_builder_ok(&b) && keynorm_builder_length(&b) == need,
		  "builder", "exact fit length");
	check(!keynorm_builder_exact(&b) &&
		  keynorm_builder_decisive_length(&b) == need - 6,
		  "builder", "decisive length after incomplete prefix");

	/* the same key assembled by hand from the column wrapper */
	n = 0;
	{
		uint8_t		v[16];
		size_t		vl;
		bool		complete;

		vl = keynorm_int32(42, v);
		n += keynorm_column(ref + n, 0, false, v, vl);
		vl = keynorm_text("a\0", 2, v);
		n += keynorm_column(ref + n, KEYNORM_DESC, false, v, vl);
		vl = keynorm_text_prefix("abcdef", 6, 5, v, &complete);
		n += keynorm_column(ref + n, KEYNORM_NULLS_FIRST, false, v, vl);
		n += keynorm_tid(7, 3, ref + n);
	}
	check(n == need && memcmp(ref, buf, n) == 0, "builder",
		  "matches column wrapper");

	keynorm_builder_init(&b, buf, need - 1);
	keynorm_add_int32(&b, 0, 42);
	keynorm_add_text(&b, KEYNORM_DESC, "a\0", 2);
	keynorm_add_text_prefix(&b, 0, "abcdef", 6, 5);
	check(!keynorm_add_tid(&b, 7, 3) && !keynorm_builder_ok(&b),
		  "builder", "overflow detected");
	check(!keynorm_add_null(&b, 0), "builder", "overflow sticky");

	keynorm_builder_init(&b, buf, 0);
	check(!keynorm_add_bool(&b, 0, true), "builder", "zero capacity");
	keynorm_builder_init(&b, buf, 1);
	check(keynorm_add_null(&b, KEYNORM_NULLS_FIRST) && buf[0] == 0x00,
		  "builder", "null in one byte");
}

/*
 * Run every test and report.
 */
int
main(void)
{
	const char *env = getenv("KEYNORM_TEST_ITERATIONS");
	uint64_t	seed = UINT64_C(0x6B65796E6F726D31);	/* "keynorm1" */

	if (env != NULL && atol(env) > 0)
		iterations = atol(env);
	env = getenv("KEYNORM_TEST_SEED");
	if (env != NULL && *env != '\0')
		seed = strtoull(env, NULL, 0);
	printf("keynorm_test: %ld iterations, seed 0x%" PRIx64 "\n",
		   iterations, seed);

	rng_seed(seed + 1);
	test_integers();
	rng_seed(seed + 2);
	test_floats();
	rng_seed(seed + 3);
	test_bool_uuid();
	rng_seed(seed + 4);
	test_bytes();
	rng_seed(seed + 5);
	test_bytes_prefix();
	rng_seed(seed + 6);
	test_nulls();
	rng_seed(seed + 7);
	test_multicolumn();
	rng_seed(seed + 8);
	test_tid();
	test_builder_capacity();

	printf("keynorm_test: %ld checks, %ld failures\n", checks, failures);
	return failures == 0 ? 0 : 1;
}
