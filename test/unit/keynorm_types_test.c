/*-------------------------------------------------------------------------
 *
 * keynorm_types_test.c
 *	  Unit tests of the normalized keys of the types extension version
 *	  0.3.0 added operator classes for: timetz, money, pg_lsn, "char",
 *	  macaddr, macaddr8, inet/cidr, bit/varbit, char(n) (bpchar and
 *	  bpchar_pattern_ops), name (under C) and text_pattern_ops.
 *
 * Stand-alone program, linked with the sources in src/lib; exits 0 when
 * every check passes.  For random pairs of values (edge values, ties and
 * near-ties included) the sign of memcmp of the normalized forms must equal
 * the sign of a reimplementation of PostgreSQL 15's comparison function
 * (date.c timetz_cmp_internal, cash.c cash_cmp, pg_lsn.c pg_lsn_cmp,
 * nbtcompare.c btcharcmp, mac.c macaddr_cmp_internal, mac8.c
 * macaddr8_cmp_internal, network.c network_cmp_internal and bitncmp,
 * varbit.c bit_cmp, varchar.c bpcharcmp under C and
 * internal_bpchar_pattern_compare, name.c namecmp under C, varlena.c
 * internal_text_pattern_compare); equal values must have equal encodings;
 * and each encoding, wrapped as a column with every DESC / NULLS flag and
 * followed by arbitrary bytes (later columns), must still order the values
 * (prefix-freedom).
 *
 * KEYNORM_TEST_ITERATIONS sets the number of random pairs per type
 * (default 100000) and KEYNORM_TEST_SEED replaces the base seed.
 *
 *-------------------------------------------------------------------------
 */
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../src/lib/keynorm.h"
#include "keynorm_pg_ref.h"

#define MAX_FAILURES_SHOWN	20
#define MAX_ENC				160

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
 * Hex-dump len bytes into buf.
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
 * Compare two byte strings with memcmp semantics (shorter prefix first).
 */
static int
enc_cmp(const uint8_t *a, size_t alen, const uint8_t *b, size_t blen)
{
	int			r = memcmp(a, b, alen < blen ? alen : blen);

	if (r != 0)
		return sgn(r);
	return (alen > blen) - (alen < blen);
}

/*
 * Check a pair of encodings against the reference result ref: their
 * memcmp order, equality exactly when the values are equal, and, wrapped as
 * a column under every flag combination and followed by random bytes
 * standing for later columns, the same order (reversed for DESC).
 */
static void
check_pair(const char *what, const uint8_t *ea, size_t la,
		   const uint8_t *eb, size_t lb, int ref)
{
	char		msg[600];
	char		ha[2 * MAX_ENC + 4];
	char		hb[2 * MAX_ENC + 4];
	int			flags;

	snprintf(msg, sizeof(msg), "%s vs %s: ref %d",
			 hex(ea, la, ha, sizeof(ha)), hex(eb, lb, hb, sizeof(hb)), ref);
	check(enc_cmp(ea, la, eb, lb) == ref, what, msg);
	if (ref == 0)
		check(la == lb && memcmp(ea, eb, la) == 0, what, msg);

	for (flags = 0; flags < 4; flags++)
	{
		uint8_t		ca[MAX_ENC + 8];
		uint8_t		cb[MAX_ENC + 8];
		size_t		na = keynorm_column(ca, flags, false, ea, la);
		size_t		nb = keynorm_column(cb, flags, false, eb, lb);
		int			want = (flags & KEYNORM_DESC) ? -ref : ref;
		int			k;

		for (k = 0; k < 4; k++)
		{
			ca[na + k] = (uint8_t) rnd();
			cb[nb + k] = (uint8_t) rnd();
		}
		if (ref != 0)
			check(enc_cmp(ca, na + 4, cb, nb + 4) == want, what, msg);
		else
			check(na == nb && memcmp(ca, cb, na) == 0, what, msg);
	}
}

/* ---- generators ---- */

/*
 * A random 64-bit integer: an edge value, a small value (many ties) or
 * random bits.
 */
static int64_t
gen_i64(void)
{
	switch (rnd_below(6))
	{
		case 0:
			return INT64_MIN + (int64_t) rnd_below(3);
		case 1:
			return INT64_MAX - (int64_t) rnd_below(3);
		case 2:
		case 3:
			return (int64_t) rnd_below(21) - 10;
		default:
			return (int64_t) rnd();
	}
}

/*
 * A random string over an alphabet rich in spaces and the bytes around
 * them (no zero byte: PostgreSQL strings have none); len <= maxlen.
 */
static int
gen_str(char *s, int maxlen)
{
	static const char alpha[] = {' ', ' ', ' ', '\x1f', '!', 'a', 'b',
	'\x7f', '\x80', '\xff'};
	int			len = (int) rnd_below(maxlen + 1);
	int			i;

	for (i = 0; i < len; i++)
		s[i] = alpha[rnd_below(sizeof(alpha))];
	return len;
}

/*
 * A pair of strings, often one a prefix of the other or equal but for
 * trailing spaces.
 */
static void
gen_str_pair(char *a, int *alen, char *b, int *blen, int maxlen)
{
	*alen = gen_str(a, maxlen);
	switch (rnd_below(4))
	{
		case 0:
			/* a prefix of a, or a followed by spaces or other bytes */
			*blen = (int) rnd_below(maxlen + 1);
			memcpy(b, a, *alen < *blen ? *alen : *blen);
			if (*blen > *alen)
			{
				int			i;

				for (i = *alen; i < *blen; i++)
					b[i] = rnd_below(3) ? ' ' : 'a';
			}
			break;
		case 1:
			*blen = *alen;
			memcpy(b, a, *alen);
			break;
		default:
			*blen = gen_str(b, maxlen);
			break;
	}
}

/*
 * A random inet value; other, if not NULL, is a value to share the family
 * and a prefix of the address with.
 */
static void
gen_inet(RefInet *v, const RefInet *other)
{
	int			size;
	int			i;

	memset(v, 0, sizeof(*v));
	v->family = (rnd_below(4) == 0) ? REF_AF_INET6 : REF_AF_INET;
	if (other != NULL && rnd_below(4) != 0)
		v->family = other->family;
	size = v->family == REF_AF_INET ? 4 : 16;
	for (i = 0; i < size; i++)
	{
		switch (rnd_below(4))
		{
			case 0:
				v->ipaddr[i] = 0x00;
				break;
			case 1:
				v->ipaddr[i] = 0xFF;
				break;
			default:
				v->ipaddr[i] = (uint8_t) rnd();
				break;
		}
	}
	if (other != NULL && other->family == v->family && rnd_below(3) != 0)
	{
		int			keep = (int) rnd_below(8 * size + 1);	/* shared bits */

		for (i = 0; i < keep; i++)
		{
			uint8_t		bit = 0x80 >> (i % 8);

			v->ipaddr[i / 8] = (v->ipaddr[i / 8] & ~bit) |
				(other->ipaddr[i / 8] & bit);
		}
	}
	switch (rnd_below(5))
	{
		case 0:
			v->bits = 0;
			break;
		case 1:
			v->bits = (unsigned char) (8 * size);
			break;
		case 2:
			v->bits = other != NULL ? other->bits : (unsigned char) (8 * size);
			if (v->bits > 8 * size)
				v->bits = (unsigned char) (8 * size);
			break;
		default:
			v->bits = (unsigned char) rnd_below(8 * size + 1);
			break;
	}
	/* a cidr value: no bit set past the netmask */
	if (rnd_below(3) == 0)
	{
		for (i = v->bits; i < 8 * size; i++)
			v->ipaddr[i / 8] &= (uint8_t) ~(0x80 >> (i % 8));
	}
}

/*
 * A random bit string; other, if not NULL, is one to share a prefix with.
 */
static void
gen_bits(RefBits *v, const RefBits *other)
{
	int			nbytes;
	int			i;

	memset(v, 0, sizeof(*v));
	v->bitlen = (int) rnd_below(8 * MAX_STR + 1);
	if (rnd_below(3) == 0)
		v->bitlen = (int) rnd_below(17);
	nbytes = (v->bitlen + 7) / 8;
	for (i = 0; i < nbytes; i++)
		v->bits[i] = rnd_below(3) == 0 ? 0x00 : (uint8_t) rnd();
	if (other != NULL && rnd_below(2) == 0)
		memcpy(v->bits, other->bits, nbytes);
	/* padding bits are zero (VARBIT_PAD) */
	if (v->bitlen % 8 != 0)
		v->bits[nbytes - 1] &= (uint8_t) (0xFF << (8 - v->bitlen % 8));
	for (i = nbytes; i < MAX_STR; i++)
		v->bits[i] = 0;
}

/* ---- tests ---- */

/*
 * timetz, money, pg_lsn, "char", macaddr, macaddr8.
 */
static void
test_fixed(void)
{
	long		i;
	uint8_t		ea[16];
	uint8_t		eb[16];

	for (i = 0; i < iterations; i++)
	{
		/* timetz: time of day in microseconds, zone within +-15:59:59 */
		{
			int64_t		t1 = (int64_t) rnd_below(UINT64_C(86400000001));
			int64_t		t2 = (int64_t) rnd_below(UINT64_C(86400000001));
			int32_t		z1 = (int32_t) rnd_below(2 * 57599 + 1) - 57599;
			int32_t		z2 = (int32_t) rnd_below(2 * 57599 + 1) - 57599;

			switch (rnd_below(4))
			{
				case 0:
					/* the same UTC time in another zone */
					z2 = (int32_t) rnd_below(2 * 3600 + 1) - 3600;
					t2 = t1 + (int64_t) (z1 - z2) * 1000000;
					if (t2 < 0 || t2 > INT64_C(86400000000))
					{
						t2 = t1;
						z2 = z1;
					}
					break;
				case 1:
					t2 = t1;
					z2 = z1;
					break;
				case 2:
					z2 = z1;
					break;
				default:
					break;
			}
			check(keynorm_timetz(t1, z1, ea) == KEYNORM_TIMETZ_SIZE &&
				  keynorm_timetz(t2, z2, eb) == KEYNORM_TIMETZ_SIZE,
				  "timetz", "size");
			check_pair("timetz", ea, KEYNORM_TIMETZ_SIZE, eb,
					   KEYNORM_TIMETZ_SIZE, ref_timetz_cmp(t1, z1, t2, z2));
		}

		/* money */
		{
			int64_t		a = gen_i64();
			int64_t		b = rnd_below(4) == 0 ? a : gen_i64();

			check(keynorm_money(a, ea) == KEYNORM_MONEY_SIZE &&
				  keynorm_money(b, eb) == KEYNORM_MONEY_SIZE, "money", "size");
			check_pair("money", ea, 8, eb, 8, ref_cash_cmp(a, b));
		}

		/* pg_lsn: unsigned, the high bit included */
		{
			uint64_t	a = (uint64_t) gen_i64();
			uint64_t	b = rnd_below(4) == 0 ? a : (uint64_t) gen_i64();

			check(keynorm_lsn(a, ea) == KEYNORM_LSN_SIZE &&
				  keynorm_lsn(b, eb) == KEYNORM_LSN_SIZE, "pg_lsn", "size");
			check_pair("pg_lsn", ea, 8, eb, 8, ref_lsn_cmp(a, b));
		}

		/* "char": bytes above 0x7F are greater (unsigned) */
		{
			char		a = (char) rnd();
			char		b = rnd_below(4) == 0 ? a : (char) rnd();

			check(keynorm_char((uint8_t) a, ea) == KEYNORM_CHAR_SIZE &&
				  keynorm_char((uint8_t) b, eb) == KEYNORM_CHAR_SIZE,
				  "char", "size");
			check_pair("char", ea, 1, eb, 1, ref_char_cmp(a, b));
		}

		/* macaddr and macaddr8, often sharing leading bytes */
		{
			uint8_t		a[8];
			uint8_t		b[8];
			int			k;
			int			shared = (int) rnd_below(9);

			for (k = 0; k < 8; k++)
			{
				a[k] = rnd_below(3) == 0 ? 0xFF : (uint8_t) rnd();
				b[k] = k < shared ? a[k] : (uint8_t) rnd();
			}
			check(keynorm_macaddr(a, ea) == KEYNORM_MACADDR_SIZE &&
				  keynorm_macaddr(b, eb) == KEYNORM_MACADDR_SIZE,
				  "macaddr", "size");
			check_pair("macaddr", ea, 6, eb, 6, ref_macaddr_cmp(a, b));
			check(keynorm_macaddr8(a, ea) == KEYNORM_MACADDR8_SIZE &&
				  keynorm_macaddr8(b, eb) == KEYNORM_MACADDR8_SIZE,
				  "macaddr8", "size");
			check_pair("macaddr8", ea, 8, eb, 8, ref_macaddr8_cmp(a, b));
		}
	}
}

/*
 * inet and cidr, both families, every netmask length.
 */
static void
test_inet(void)
{
	long		i;
	uint8_t		e[KEYNORM_INET6_SIZE];
	static const uint8_t v4[4] = {10, 1, 2, 3};
	static const uint8_t want4[KEYNORM_INET4_SIZE] =
	{0x00, 10, 0, 0, 0, 8, 10, 1, 2, 3};

	/* 10.1.2.3/8 */
	check(keynorm_inet(false, v4, 8, e) == KEYNORM_INET4_SIZE &&
		  memcmp(e, want4, KEYNORM_INET4_SIZE) == 0, "inet", "fixed vector");

	for (i = 0; i < iterations; i++)
	{
		RefInet		a;
		RefInet		b;
		uint8_t		ea[KEYNORM_INET6_SIZE];
		uint8_t		eb[KEYNORM_INET6_SIZE];
		size_t		la;
		size_t		lb;

		gen_inet(&a, NULL);
		if (rnd_below(8) == 0)
			b = a;
		else
			gen_inet(&b, &a);
		la = keynorm_inet(a.family == REF_AF_INET6, a.ipaddr, a.bits, ea);
		lb = keynorm_inet(b.family == REF_AF_INET6, b.ipaddr, b.bits, eb);
		check(la == (a.family == REF_AF_INET ? KEYNORM_INET4_SIZE : KEYNORM_INET6_SIZE),
			  "inet", "size");
		check_pair("inet", ea, la, eb, lb, ref_network_cmp(&a, &b));
	}
}

/*
 * bit and varbit of every length up to 8 * MAX_STR bits.
 */
static void
test_bits(void)
{
	long		i;
	uint8_t		e[16];
	static const uint8_t b101[1] = {0xA0};
	static const uint8_t want101[4] = {0xA0, 0x00, 0x00, 0x03};
	static const uint8_t want_empty[3] = {0x00, 0x00, 0x00};

	check(keynorm_bits(b101, 3, e) == 4 && memcmp(e, want101, 4) == 0,
		  "bits", "fixed vector B'101'");
	check(keynorm_bits(b101, 0, e) == 3 && memcmp(e, want_empty, 3) == 0,
		  "bits", "fixed vector B''");

	for (i = 0; i < iterations; i++)
	{
		RefBits		a;
		RefBits		b;
		uint8_t		ea[KEYNORM_BITS_MAX_SIZE(8 * MAX_STR)];
		uint8_t		eb[KEYNORM_BITS_MAX_SIZE(8 * MAX_STR)];
		size_t		la;
		size_t		lb;

		gen_bits(&a, NULL);
		if (rnd_below(8) == 0)
			b = a;
		else
			gen_bits(&b, &a);
		la = keynorm_bits(a.bits, a.bitlen, ea);
		lb = keynorm_bits(b.bits, b.bitlen, eb);
		check(la == keynorm_bits_size(a.bits, a.bitlen) &&
			  la <= KEYNORM_BITS_MAX_SIZE(a.bitlen), "bits", "size");
		check_pair("bits", ea, la, eb, lb, ref_bit_cmp(&a, &b));
	}
}

/*
 * char(n) under C and bpchar_pattern_ops (trailing spaces ignored), text
 * and varchar_pattern_ops (bytes), name under C (strncmp of NAMEDATALEN
 * bytes), each encoded as src/am/normalize.c does.
 */
static void
test_strings(void)
{
	long		i;

	for (i = 0; i < iterations; i++)
	{
		char		a[NAMEDATALEN];
		char		b[NAMEDATALEN];
		int			alen;
		int			blen;
		uint8_t		ea[2 * NAMEDATALEN + 2];
		uint8_t		eb[2 * NAMEDATALEN + 2];
		size_t		la;
		size_t		lb;

		/* bpchar: the text encoding of the value without trailing spaces */
		gen_str_pair(a, &alen, b, &blen, MAX_STR);
		la = keynorm_text(a, keynorm_trim_spaces(a, alen), ea);
		lb = keynorm_text(b, keynorm_trim_spaces(b, blen), eb);
		check_pair("bpchar", ea, la, eb, lb,
				   ref_bpchar_pattern_cmp(a, alen, b, blen));

		/* text_pattern_ops: every byte counts, trailing spaces too */
		la = keynorm_bytes(a, alen, ea);
		lb = keynorm_bytes(b, blen, eb);
		check_pair("text_pattern", ea, la, eb, lb,
				   ref_text_pattern_cmp(a, alen, b, blen));

		/*
		 * name: NUL-padded NAMEDATALEN bytes, at most NAMEDATALEN - 1 used;
		 * the encoding is the text encoding of the bytes before the NUL.
		 */
		gen_str_pair(a, &alen, b, &blen, NAMEDATALEN - 1);
		memset(a + alen, 0, NAMEDATALEN - alen);
		memset(b + blen, 0, NAMEDATALEN - blen);
		la = keynorm_text(a, strnlen(a, NAMEDATALEN), ea);
		lb = keynorm_text(b, strnlen(b, NAMEDATALEN), eb);
		check_pair("name", ea, la, eb, lb,
				   sgn(strncmp(a, b, NAMEDATALEN)));
	}
}

/*
 * Run every test and report.
 */
int
main(void)
{
	const char *env = getenv("KEYNORM_TEST_ITERATIONS");
	uint64_t	seed = UINT64_C(0x6B65796E6F726D32);	/* "keynorm2" */

	if (env != NULL && atol(env) > 0)
		iterations = atol(env);
	env = getenv("KEYNORM_TEST_SEED");
	if (env != NULL && *env != '\0')
		seed = strtoull(env, NULL, 0);
	printf("keynorm_types_test: %ld iterations, seed 0x%" PRIx64 "\n",
		   iterations, seed);

	rng_state = seed + 1;
	test_fixed();
	rng_state = seed + 2;
	test_inet();
	rng_state = seed + 3;
	test_bits();
	rng_state = seed + 4;
	test_strings();

	printf("keynorm_types_test: %ld checks, %ld failures\n", checks, failures);
	return failures == 0 ? 0 : 1;
}
