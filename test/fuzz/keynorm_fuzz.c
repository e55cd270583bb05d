/*-------------------------------------------------------------------------
 *
 * keynorm_fuzz.c
 *	  libFuzzer target for the normalized keys of the types extension
 *	  version 0.3.0 gave them to (src/lib/keynorm.c), run by
 *	  "make fuzz FUZZ_SECONDS=N".
 *
 * The input chooses a type and two values of it.  Checks, any failure of
 * which aborts (libFuzzer reports a crash):
 *
 *	- the sign of memcmp of the two encodings (shorter prefix first) is the
 *	  sign of PostgreSQL's comparison function (test/unit/keynorm_pg_ref.h);
 *	- equal values have identical encodings;
 *	- the encodings have the documented sizes and stay within their
 *	  buffers (AddressSanitizer: each is written to a heap block of exactly
 *	  its size);
 *	- wrapped as a DESC column and followed by more bytes, distinct values
 *	  still compare in reverse (the encodings are prefix-free).
 *
 * Input layout:
 *	byte 0		type: 0 timetz, 1 inet/cidr, 2 bit/varbit, 3 char(n) and
 *				bpchar_pattern_ops, 4 text_pattern_ops, 5 name, 6 pg_lsn,
 *				7 money, 8 macaddr/macaddr8/"char" (mod 9)
 *	then		the two values, each read from the following bytes (missing
 *				bytes are zero); see fz_read_* below
 *
 * test/fuzz/keynorm_fuzz.c
 *
 *-------------------------------------------------------------------------
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "keynorm.h"
#include "../unit/keynorm_pg_ref.h"

/* Abort with a message when a check fails (libFuzzer reports the crash). */
#define FZ_ASSERT(cond, what) \
	do { \
		if (!(cond)) \
		{ \
			fprintf(stderr, "keynorm_fuzz: %s:%d: %s (%s)\n", __FILE__, \
					__LINE__, what, #cond); \
			abort(); \
		} \
	} while (0)

/* The input, read front to back */
typedef struct FzInput
{
	const uint8_t *data;
	size_t		size;
	size_t		pos;
} FzInput;

/*
 * Next input byte, or zero past the end.
 */
static uint8_t
fz_byte(FzInput *in)
{
	return in->pos < in->size ? in->data[in->pos++] : 0;
}

/*
 * Next n input bytes as a big-endian unsigned integer.
 */
static uint64_t
fz_uint(FzInput *in, int n)
{
	uint64_t	v = 0;

	for (int i = 0; i < n; i++)
		v = (v << 8) | fz_byte(in);
	return v;
}

/*
 * Compare with memcmp semantics, a shorter prefix first.
 */
static int
fz_cmp(const uint8_t *a, size_t alen, const uint8_t *b, size_t blen)
{
	int			r = memcmp(a, b, alen < blen ? alen : blen);

	if (r != 0)
		return sgn(r);
	return (alen > blen) - (alen < blen);
}

/*
 * Check two encodings against the reference result ref.
 */
static void
fz_check(const uint8_t *ea, size_t la, const uint8_t *eb, size_t lb, int ref,
		 const char *what)
{
	uint8_t    *ca = malloc(la + 3);
	uint8_t    *cb = malloc(lb + 3);
	size_t		na;
	size_t		nb;

	FZ_ASSERT(fz_cmp(ea, la, eb, lb) == ref, what);
	if (ref == 0)
		FZ_ASSERT(la == lb && memcmp(ea, eb, la) == 0, what);

	/* a DESC column, followed by bytes standing for a later column */
	na = keynorm_column(ca, KEYNORM_DESC, false, ea, la);
	nb = keynorm_column(cb, KEYNORM_DESC, false, eb, lb);
	ca[na] = 0x00;
	ca[na + 1] = 0xFF;
	cb[nb] = 0xFF;
	cb[nb + 1] = 0x00;
	if (ref != 0)
		FZ_ASSERT(fz_cmp(ca, na + 2, cb, nb + 2) == -ref, what);
	free(ca);
	free(cb);
}

/*
 * Read a string of at most maxlen bytes with no zero byte (a length byte,
 * then the bytes; zeros read as spaces, often the interesting byte here).
 */
static int
fz_read_string(FzInput *in, char *s, int maxlen)
{
	int			len = fz_byte(in) % (maxlen + 1);

	for (int i = 0; i < len; i++)
	{
		uint8_t		c = fz_byte(in);

		s[i] = c == 0 ? ' ' : (char) c;
	}
	return len;
}

/*
 * Read an inet value: family bit, netmask length, address bytes.
 */
static void
fz_read_inet(FzInput *in, RefInet *v)
{
	int			size;

	memset(v, 0, sizeof(*v));
	v->family = (fz_byte(in) & 1) ? REF_AF_INET6 : REF_AF_INET;
	size = v->family == REF_AF_INET ? 4 : 16;
	v->bits = (unsigned char) (fz_byte(in) % (8 * size + 1));
	for (int i = 0; i < size; i++)
		v->ipaddr[i] = fz_byte(in);
}

/*
 * Read a bit string: length in bits, then its bytes, padding bits zeroed.
 */
static void
fz_read_bits(FzInput *in, RefBits *v)
{
	int			nbytes;

	memset(v, 0, sizeof(*v));
	v->bitlen = fz_byte(in) % (8 * MAX_STR + 1);
	nbytes = (v->bitlen + 7) / 8;
	for (int i = 0; i < nbytes; i++)
		v->bits[i] = fz_byte(in);
	if (v->bitlen % 8 != 0)
		v->bits[nbytes - 1] &= (uint8_t) (0xFF << (8 - v->bitlen % 8));
}

/*
 * Encode a string as the server does for one of the string classes
 * (kind 3 char(n), 4 text_pattern_ops, 5 name) into a heap block of
 * exactly the encoding's size; *len is set to that size.
 */
static uint8_t *
fz_encode_string(int kind, const char *s, int slen, size_t *len)
{
	size_t		n = (size_t) slen;
	uint8_t    *e;

	if (kind == 3)
		n = keynorm_trim_spaces(s, n);
	else if (kind == 5)
		n = strnlen(s, n);
	*len = keynorm_bytes_size(s, n);
	e = malloc(*len);
	FZ_ASSERT(keynorm_bytes(s, n, e) == *len, "string size");
	return e;
}

int			LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/*
 * One input: a type and two values of it.
 */
int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	FzInput		in = {data, size, 0};
	int			kind = fz_byte(&in) % 9;
	uint8_t		ea[KEYNORM_INET6_SIZE];
	uint8_t		eb[KEYNORM_INET6_SIZE];

	switch (kind)
	{
		case 0:
			{
				int64_t		t1 = (int64_t) (fz_uint(&in, 5) % UINT64_C(86400000001));
				int32_t		z1 = (int32_t) (fz_uint(&in, 3) % (2 * 57599 + 1)) - 57599;
				int64_t		t2 = (int64_t) (fz_uint(&in, 5) % UINT64_C(86400000001));
				int32_t		z2 = (int32_t) (fz_uint(&in, 3) % (2 * 57599 + 1)) - 57599;

				FZ_ASSERT(keynorm_timetz(t1, z1, ea) == KEYNORM_TIMETZ_SIZE &&
						  keynorm_timetz(t2, z2, eb) == KEYNORM_TIMETZ_SIZE,
						  "timetz size");
				fz_check(ea, KEYNORM_TIMETZ_SIZE, eb, KEYNORM_TIMETZ_SIZE,
						 ref_timetz_cmp(t1, z1, t2, z2), "timetz");
				break;
			}
		case 1:
			{
				RefInet		a;
				RefInet		b;
				size_t		la;
				size_t		lb;

				fz_read_inet(&in, &a);
				fz_read_inet(&in, &b);
				la = keynorm_inet(a.family == REF_AF_INET6, a.ipaddr, a.bits, ea);
				lb = keynorm_inet(b.family == REF_AF_INET6, b.ipaddr, b.bits, eb);
				FZ_ASSERT(la == (a.family == REF_AF_INET ? KEYNORM_INET4_SIZE :
								 KEYNORM_INET6_SIZE), "inet size");
				fz_check(ea, la, eb, lb, ref_network_cmp(&a, &b), "inet");
				break;
			}
		case 2:
			{
				RefBits		a;
				RefBits		b;
				size_t		la;
				size_t		lb;
				uint8_t    *pa;
				uint8_t    *pb;

				fz_read_bits(&in, &a);
				fz_read_bits(&in, &b);
				la = keynorm_bits_size(a.bits, a.bitlen);
				lb = keynorm_bits_size(b.bits, b.bitlen);
				FZ_ASSERT(la <= KEYNORM_BITS_MAX_SIZE(a.bitlen), "bits max size");
				pa = malloc(la);
				pb = malloc(lb);
				FZ_ASSERT(keynorm_bits(a.bits, a.bitlen, pa) == la &&
						  keynorm_bits(b.bits, b.bitlen, pb) == lb, "bits size");
				fz_check(pa, la, pb, lb, ref_bit_cmp(&a, &b), "bits");
				free(pa);
				free(pb);
				break;
			}
		case 3:
		case 4:
		case 5:
			{
				char		a[NAMEDATALEN];
				char		b[NAMEDATALEN];
				int			alen = fz_read_string(&in, a, NAMEDATALEN - 1);
				int			blen = fz_read_string(&in, b, NAMEDATALEN - 1);
				size_t		la;
				size_t		lb;
				uint8_t    *pa;
				uint8_t    *pb;
				int			ref;

				if (kind == 3)
					ref = ref_bpchar_pattern_cmp(a, alen, b, blen);
				else if (kind == 4)
					ref = ref_text_pattern_cmp(a, alen, b, blen);
				else
				{
					memset(a + alen, 0, NAMEDATALEN - alen);
					memset(b + blen, 0, NAMEDATALEN - blen);
					ref = sgn(strncmp(a, b, NAMEDATALEN));
				}
				pa = fz_encode_string(kind, a, alen, &la);
				pb = fz_encode_string(kind, b, blen, &lb);
				fz_check(pa, la, pb, lb, ref, "string");
				free(pa);
				free(pb);
				break;
			}
		case 6:
			{
				uint64_t	a = fz_uint(&in, 8);
				uint64_t	b = fz_uint(&in, 8);

				keynorm_lsn(a, ea);
				keynorm_lsn(b, eb);
				fz_check(ea, KEYNORM_LSN_SIZE, eb, KEYNORM_LSN_SIZE,
						 ref_lsn_cmp(a, b), "pg_lsn");
				break;
			}
		case 7:
			{
				int64_t		a = (int64_t) fz_uint(&in, 8);
				int64_t		b = (int64_t) fz_uint(&in, 8);

				keynorm_money(a, ea);
				keynorm_money(b, eb);
				fz_check(ea, KEYNORM_MONEY_SIZE, eb, KEYNORM_MONEY_SIZE,
						 ref_cash_cmp(a, b), "money");
				break;
			}
		default:
			{
				uint8_t		a[8];
				uint8_t		b[8];

				for (int i = 0; i < 8; i++)
					a[i] = fz_byte(&in);
				for (int i = 0; i < 8; i++)
					b[i] = fz_byte(&in);
				keynorm_macaddr(a, ea);
				keynorm_macaddr(b, eb);
				fz_check(ea, KEYNORM_MACADDR_SIZE, eb, KEYNORM_MACADDR_SIZE,
						 ref_macaddr_cmp(a, b), "macaddr");
				keynorm_macaddr8(a, ea);
				keynorm_macaddr8(b, eb);
				fz_check(ea, KEYNORM_MACADDR8_SIZE, eb, KEYNORM_MACADDR8_SIZE,
						 ref_macaddr8_cmp(a, b), "macaddr8");
				keynorm_char(a[0], ea);
				keynorm_char(b[0], eb);
				fz_check(ea, 1, eb, 1, ref_char_cmp((char) a[0], (char) b[0]),
						 "char");
				break;
			}
	}
	return 0;
}
