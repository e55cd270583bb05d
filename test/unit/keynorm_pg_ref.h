/*-------------------------------------------------------------------------
 *
 * keynorm_pg_ref.h
 *	  PostgreSQL 15's comparison functions of the types 0.3.0 gave normalized
 *	  keys, rewritten in plain C, for test/unit/keynorm_types_test.c and
 *	  test/fuzz/keynorm_fuzz.c to compare the encodings of src/lib/keynorm.c
 *	  against.
 *
 * Each is a transcription of the server function named above it (in
 * src/backend/utils/adt/ unless said otherwise), returning -1, 0 or 1.
 *
 *-------------------------------------------------------------------------
 */
#ifndef KEYNORM_PG_REF_H
#define KEYNORM_PG_REF_H

#include <stdint.h>
#include <string.h>

#define MAX_STR				12		/* bytes of the bit strings tested */
#define NAMEDATALEN			64

/*
 * Return the sign of an int as -1, 0 or 1.
 */
static inline int
sgn(int v)
{
	return (v > 0) - (v < 0);
}

/*
 * date.c timetz_cmp_internal: UTC-equivalent time, then zone.
 */
static inline int
ref_timetz_cmp(int64_t time1, int32_t zone1, int64_t time2, int32_t zone2)
{
	int64_t		t1 = time1 + (zone1 * INT64_C(1000000));
	int64_t		t2 = time2 + (zone2 * INT64_C(1000000));

	if (t1 > t2)
		return 1;
	if (t1 < t2)
		return -1;
	if (zone1 > zone2)
		return 1;
	if (zone1 < zone2)
		return -1;
	return 0;
}

/*
 * cash.c cash_cmp (money is a signed 64-bit integer).
 */
static inline int
ref_cash_cmp(int64_t c1, int64_t c2)
{
	if (c1 > c2)
		return 1;
	else if (c1 == c2)
		return 0;
	else
		return -1;
}

/*
 * pg_lsn.c pg_lsn_cmp (XLogRecPtr is unsigned 64 bits).
 */
static inline int
ref_lsn_cmp(uint64_t a, uint64_t b)
{
	if (a > b)
		return 1;
	else if (a == b)
		return 0;
	else
		return -1;
}

/*
 * nbtcompare.c btcharcmp: "char" compared as unsigned.
 */
static inline int
ref_char_cmp(char a, char b)
{
	return sgn((int32_t) ((uint8_t) a) - (int32_t) ((uint8_t) b));
}

/*
 * mac.c macaddr_cmp_internal: the high three bytes, then the low three.
 */
static inline int
ref_macaddr_cmp(const uint8_t *a, const uint8_t *b)
{
	unsigned long ha = ((unsigned long) a[0] << 16) | (a[1] << 8) | a[2];
	unsigned long hb = ((unsigned long) b[0] << 16) | (b[1] << 8) | b[2];
	unsigned long la = ((unsigned long) a[3] << 16) | (a[4] << 8) | a[5];
	unsigned long lb = ((unsigned long) b[3] << 16) | (b[4] << 8) | b[5];

	if (ha < hb)
		return -1;
	else if (ha > hb)
		return 1;
	else if (la < lb)
		return -1;
	else if (la > lb)
		return 1;
	return 0;
}

/*
 * mac8.c macaddr8_cmp_internal: the high four bytes, then the low four.
 */
static inline int
ref_macaddr8_cmp(const uint8_t *a, const uint8_t *b)
{
	unsigned long ha = ((unsigned long) a[0] << 24) | ((unsigned long) a[1] << 16) |
		((unsigned long) a[2] << 8) | a[3];
	unsigned long hb = ((unsigned long) b[0] << 24) | ((unsigned long) b[1] << 16) |
		((unsigned long) b[2] << 8) | b[3];
	unsigned long la = ((unsigned long) a[4] << 24) | ((unsigned long) a[5] << 16) |
		((unsigned long) a[6] << 8) | a[7];
	unsigned long lb = ((unsigned long) b[4] << 24) | ((unsigned long) b[5] << 16) |
		((unsigned long) b[6] << 8) | b[7];

	if (ha < hb)
		return -1;
	else if (ha > hb)
		return 1;
	else if (la < lb)
		return -1;
	else if (la > lb)
		return 1;
	return 0;
}

/* An inet or cidr value as network.c sees it */
typedef struct RefInet
{
	unsigned char family;		/* PGSQL_AF_INET (2) or PGSQL_AF_INET6 (3) */
	unsigned char bits;			/* netmask length */
	unsigned char ipaddr[16];
} RefInet;

#define REF_AF_INET		2
#define REF_AF_INET6	3

/*
 * network.c bitncmp: compare the first n bits of two addresses.
 */
static inline int
ref_bitncmp(const unsigned char *l, const unsigned char *r, int n)
{
	unsigned int lb,
				rb;
	int			x,
				b;

	b = n / 8;
	x = memcmp(l, r, b);
	if (x || (n % 8) == 0)
		return x;

	lb = l[b];
	rb = r[b];
	for (b = n % 8; b > 0; b--)
	{
		if ((lb & 0x80) != (rb & 0x80))
		{
			if (lb & 0x80)
				return 1;
			return -1;
		}
		lb <<= 1;
		rb <<= 1;
	}
	return 0;
}

/*
 * network.c network_cmp_internal.
 */
static inline int
ref_network_cmp(const RefInet *a1, const RefInet *a2)
{
	if (a1->family == a2->family)
	{
		int			order;
		int			maxbits = a1->family == REF_AF_INET ? 32 : 128;

		order = ref_bitncmp(a1->ipaddr, a2->ipaddr,
							a1->bits < a2->bits ? a1->bits : a2->bits);
		if (order != 0)
			return sgn(order);
		order = ((int) a1->bits) - ((int) a2->bits);
		if (order != 0)
			return sgn(order);
		return sgn(ref_bitncmp(a1->ipaddr, a2->ipaddr, maxbits));
	}
	return sgn(a1->family - a2->family);
}

/* A bit or varbit value as varbit.c sees it */
typedef struct RefBits
{
	int			bitlen;
	uint8_t		bits[MAX_STR];
} RefBits;

/*
 * varbit.c bit_cmp: the bytes over the shorter byte length, then the bit
 * lengths.
 */
static inline int
ref_bit_cmp(const RefBits *a, const RefBits *b)
{
	int			bytelen1 = (a->bitlen + 7) / 8;
	int			bytelen2 = (b->bitlen + 7) / 8;
	int			cmp;

	cmp = memcmp(a->bits, b->bits, bytelen1 < bytelen2 ? bytelen1 : bytelen2);
	if (cmp == 0)
	{
		if (a->bitlen != b->bitlen)
			cmp = (a->bitlen < b->bitlen) ? -1 : 1;
	}
	return sgn(cmp);
}

/*
 * varchar.c bpchartruelen.
 */
static inline int
ref_bpchartruelen(const char *s, int len)
{
	int			i;

	for (i = len - 1; i >= 0; i--)
	{
		if (s[i] != ' ')
			break;
	}
	return i + 1;
}

/*
 * varchar.c internal_bpchar_pattern_compare, which is also bpcharcmp under
 * the C collation (varstr_cmp: memcmp, then the lengths).
 */
static inline int
ref_bpchar_pattern_cmp(const char *a, int alen, const char *b, int blen)
{
	int			len1 = ref_bpchartruelen(a, alen);
	int			len2 = ref_bpchartruelen(b, blen);
	int			result;

	result = memcmp(a, b, len1 < len2 ? len1 : len2);
	if (result != 0)
		return sgn(result);
	else if (len1 < len2)
		return -1;
	else if (len1 > len2)
		return 1;
	else
		return 0;
}

/*
 * varlena.c internal_text_pattern_compare.
 */
static inline int
ref_text_pattern_cmp(const char *a, int len1, const char *b, int len2)
{
	int			result;

	result = memcmp(a, b, len1 < len2 ? len1 : len2);
	if (result != 0)
		return sgn(result);
	else if (len1 < len2)
		return -1;
	else if (len1 > len2)
		return 1;
	else
		return 0;
}

#endif							/* KEYNORM_PG_REF_H */
