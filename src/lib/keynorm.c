/*-------------------------------------------------------------------------
 *
 * keynorm.c
 *	  Binary-comparable ("normalized") index keys.
 *
 * Encoders that turn values of the common key types into byte strings whose
 * memcmp order is PostgreSQL's order of the values, a column wrapper that
 * places NULLs and applies DESC, and a builder that concatenates the columns
 * of a key and the heap TID.  keynorm.h documents the encoding of every type
 * and why the variable-length encoding stays correct under DESC inversion.
 *
 * Plain C with no server dependency, so the SeqTree code and stand-alone unit
 * tests can both use it.
 *
 *-------------------------------------------------------------------------
 */
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "keynorm.h"

/* Bit patterns of the canonical NaNs (positive, quiet) */
#define KN_FLOAT4_NAN	UINT32_C(0x7FC00000)
#define KN_FLOAT8_NAN	UINT64_C(0x7FF8000000000000)

/*
 * Store a 16-bit unsigned integer big-endian.
 */
static inline void
kn_store16(uint8_t *dst, uint16_t v)
{
	dst[0] = (uint8_t) (v >> 8);
	dst[1] = (uint8_t) v;
}

/*
 * Store a 32-bit unsigned integer big-endian.
 */
static inline void
kn_store32(uint8_t *dst, uint32_t v)
{
	dst[0] = (uint8_t) (v >> 24);
	dst[1] = (uint8_t) (v >> 16);
	dst[2] = (uint8_t) (v >> 8);
	dst[3] = (uint8_t) v;
}

/*
 * Store a 64-bit unsigned integer big-endian.
 */
static inline void
kn_store64(uint8_t *dst, uint64_t v)
{
	kn_store32(dst, (uint32_t) (v >> 32));
	kn_store32(dst + 4, (uint32_t) v);
}

/*
 * Encode an int2: sign bit flipped, big-endian.
 */
size_t
keynorm_int16(int16_t v, uint8_t *dst)
{
	kn_store16(dst, (uint16_t) v ^ UINT16_C(0x8000));
	return KEYNORM_INT16_SIZE;
}

/*
 * Encode an int4: sign bit flipped, big-endian.
 */
size_t
keynorm_int32(int32_t v, uint8_t *dst)
{
	kn_store32(dst, (uint32_t) v ^ UINT32_C(0x80000000));
	return KEYNORM_INT32_SIZE;
}

/*
 * Encode an int8: sign bit flipped, big-endian.
 */
size_t
keynorm_int64(int64_t v, uint8_t *dst)
{
	kn_store64(dst, (uint64_t) v ^ UINT64_C(0x8000000000000000));
	return KEYNORM_INT64_SIZE;
}

/*
 * Encode a float4 in PostgreSQL's order: -0 as +0, every NaN as one NaN
 * greater than +Infinity.
 */
size_t
keynorm_float4(float v, uint8_t *dst)
{
	uint32_t	bits;

	if (isnan(v))
		bits = KN_FLOAT4_NAN;
	else if (v == 0.0f)
		bits = 0;
	else
		memcpy(&bits, &v, sizeof(bits));

	if (bits & UINT32_C(0x80000000))
		bits = ~bits;
	else
		bits |= UINT32_C(0x80000000);
	kn_store32(dst, bits);
	return KEYNORM_FLOAT4_SIZE;
}

/*
 * Encode a float8 in PostgreSQL's order: -0 as +0, every NaN as one NaN
 * greater than +Infinity.
 */
size_t
keynorm_float8(double v, uint8_t *dst)
{
	uint64_t	bits;

	if (isnan(v))
		bits = KN_FLOAT8_NAN;
	else if (v == 0.0)
		bits = 0;
	else
		memcpy(&bits, &v, sizeof(bits));

	if (bits & UINT64_C(0x8000000000000000))
		bits = ~bits;
	else
		bits |= UINT64_C(0x8000000000000000);
	kn_store64(dst, bits);
	return KEYNORM_FLOAT8_SIZE;
}

/*
 * Encode a bool as one byte, false before true.
 */
size_t
keynorm_bool(bool v, uint8_t *dst)
{
	dst[0] = v ? 0x01 : 0x00;
	return KEYNORM_BOOL_SIZE;
}

/*
 * Encode an oid (unsigned 32 bits) big-endian.
 */
size_t
keynorm_oid(uint32_t v, uint8_t *dst)
{
	kn_store32(dst, v);
	return KEYNORM_OID_SIZE;
}

/*
 * Encode a date (signed days since 2000-01-01; the infinities are the
 * extreme int32 values).
 */
size_t
keynorm_date(int32_t v, uint8_t *dst)
{
	return keynorm_int32(v, dst);
}

/*
 * Encode a timestamp (signed microseconds; the infinities are the extreme
 * int64 values).
 */
size_t
keynorm_timestamp(int64_t v, uint8_t *dst)
{
	return keynorm_int64(v, dst);
}

/*
 * Encode a timestamptz, which is ordered exactly like a timestamp (UTC
 * microseconds).
 */
size_t
keynorm_timestamptz(int64_t v, uint8_t *dst)
{
	return keynorm_int64(v, dst);
}

/*
 * Encode a time (microseconds since midnight).
 */
size_t
keynorm_time(int64_t v, uint8_t *dst)
{
	return keynorm_int64(v, dst);
}

/*
 * Encode a uuid: its 16 bytes unchanged.
 */
size_t
keynorm_uuid(const uint8_t *v, uint8_t *dst)
{
	memcpy(dst, v, KEYNORM_UUID_SIZE);
	return KEYNORM_UUID_SIZE;
}

/*
 * Encode a timetz: the UTC-adjusted time (time + zone seconds), then the
 * zone, as timetz_cmp orders them.
 */
size_t
keynorm_timetz(int64_t time, int32_t zone, uint8_t *dst)
{
	keynorm_int64(time + (int64_t) zone * INT64_C(1000000), dst);
	keynorm_int32(zone, dst + KEYNORM_INT64_SIZE);
	return KEYNORM_TIMETZ_SIZE;
}

/*
 * Encode a money amount (a signed 64-bit integer).
 */
size_t
keynorm_money(int64_t v, uint8_t *dst)
{
	return keynorm_int64(v, dst);
}

/*
 * Encode a pg_lsn (an unsigned 64-bit integer) big-endian.
 */
size_t
keynorm_lsn(uint64_t v, uint8_t *dst)
{
	kn_store64(dst, v);
	return KEYNORM_LSN_SIZE;
}

/*
 * Encode a "char": the byte itself, which PostgreSQL compares unsigned.
 */
size_t
keynorm_char(uint8_t v, uint8_t *dst)
{
	dst[0] = v;
	return KEYNORM_CHAR_SIZE;
}

/*
 * Encode a macaddr: its 6 bytes unchanged.
 */
size_t
keynorm_macaddr(const uint8_t *v, uint8_t *dst)
{
	memcpy(dst, v, KEYNORM_MACADDR_SIZE);
	return KEYNORM_MACADDR_SIZE;
}

/*
 * Encode a macaddr8: its 8 bytes unchanged.
 */
size_t
keynorm_macaddr8(const uint8_t *v, uint8_t *dst)
{
	memcpy(dst, v, KEYNORM_MACADDR8_SIZE);
	return KEYNORM_MACADDR8_SIZE;
}

/*
 * Encode an inet or cidr value (4 or 16 address bytes, netmask length
 * masklen): family byte, address masked to masklen bits, masklen, whole
 * address.  keynorm.h explains why this is network_cmp's order.
 */
size_t
keynorm_inet(bool ipv6, const uint8_t *addr, int masklen, uint8_t *dst)
{
	size_t		size = ipv6 ? 16 : 4;
	size_t		i;

	if (masklen < 0)
		masklen = 0;
	if ((size_t) masklen > 8 * size)
		masklen = (int) (8 * size);

	dst[0] = ipv6 ? 0x01 : 0x00;
	for (i = 0; i < size; i++)
	{
		int			keep = masklen - 8 * (int) i;	/* bits of this byte kept */
		uint8_t		mask;

		if (keep >= 8)
			mask = 0xFF;
		else if (keep <= 0)
			mask = 0x00;
		else
			mask = (uint8_t) (0xFF << (8 - keep));
		dst[1 + i] = addr[i] & mask;
	}
	dst[1 + size] = (uint8_t) masklen;
	memcpy(dst + 2 + size, addr, size);
	return 2 + 2 * size;
}

/*
 * Return the exact size of the encoding of a bit string of nbits bits.
 */
size_t
keynorm_bits_size(const uint8_t *bits, size_t nbits)
{
	return keynorm_bytes_size(bits, (nbits + 7) / 8) + 1;
}

/*
 * Encode a bit string (nbits bits in (nbits + 7) / 8 bytes, high bit first,
 * padding bits zero): its bytes in the variable-length encoding, then the
 * number of bits used in the last byte.  dst needs keynorm_bits_size()
 * bytes.
 */
size_t
keynorm_bits(const uint8_t *bits, size_t nbits, uint8_t *dst)
{
	size_t		nbytes = (nbits + 7) / 8;
	size_t		n = keynorm_bytes(bits, nbytes, dst);

	dst[n++] = (uint8_t) (nbits - 8 * (nbytes > 0 ? nbytes - 1 : 0));
	return n;
}

/*
 * Return the length of a char(n) value without its trailing spaces, the
 * part PostgreSQL compares.
 */
size_t
keynorm_trim_spaces(const char *data, size_t len)
{
	while (len > 0 && data[len - 1] == ' ')
		len--;
	return len;
}

/*
 * Return the exact size of the variable-length encoding of a byte string.
 */
size_t
keynorm_bytes_size(const void *data, size_t len)
{
	const uint8_t *p = data;
	size_t		size = len + 2;
	size_t		i;

	for (i = 0; i < len; i++)
		if (p[i] == 0x00)
			size++;
	return size;
}

/*
 * Encode a byte string: 0x00 as 0x00 0xFF, other bytes as themselves, then
 * the terminator 0x00 0x00.  dst needs keynorm_bytes_size() bytes.
 */
size_t
keynorm_bytes(const void *data, size_t len, uint8_t *dst)
{
	const uint8_t *p = data;
	size_t		out = 0;
	size_t		i;

	for (i = 0; i < len; i++)
	{
		if (p[i] == 0x00)
		{
			dst[out++] = 0x00;
			dst[out++] = 0xFF;
		}
		else
			dst[out++] = p[i];
	}
	dst[out++] = 0x00;
	dst[out++] = 0x00;
	return out;
}

/*
 * Encode a text value under the C collation, which orders like bytea.
 */
size_t
keynorm_text(const char *data, size_t len, uint8_t *dst)
{
	return keynorm_bytes(data, len, dst);
}

/*
 * Write the first width bytes of a byte string's encoding, padded with 0x00,
 * and report whether the whole encoding fit (then equal prefixes mean equal
 * values; otherwise equal prefixes decide nothing).
 */
size_t
keynorm_bytes_prefix(const void *data, size_t len, size_t width,
					 uint8_t *dst, bool *complete)
{
	const uint8_t *p = data;
	size_t		out = 0;
	size_t		i;

	for (i = 0; i < len && out < width; i++)
	{
		if (p[i] == 0x00)
		{
			dst[out++] = 0x00;
			if (out == width)
				break;			/* the escape's second byte does not fit */
			dst[out++] = 0xFF;
		}
		else
			dst[out++] = p[i];
	}

	/* The terminator and the padding are both 0x00 bytes */
	*complete = (i == len && width - out >= 2);
	memset(dst + out, 0x00, width - out);
	return width;
}

/*
 * Write the truncated fixed-width form of a text value under the C
 * collation.
 */
size_t
keynorm_text_prefix(const char *data, size_t len, size_t width,
					uint8_t *dst, bool *complete)
{
	return keynorm_bytes_prefix(data, len, width, dst, complete);
}

/*
 * Encode a heap TID: block number then offset number, both big-endian.
 */
size_t
keynorm_tid(uint32_t block, uint16_t offset, uint8_t *dst)
{
	kn_store32(dst, block);
	kn_store16(dst + 4, offset);
	return KEYNORM_TID_SIZE;
}

/*
 * Read the heap TID back from the last KEYNORM_TID_SIZE bytes of a complete
 * key of len bytes.
 */
void
keynorm_get_tid(const uint8_t *key, size_t len,
				uint32_t *block, uint16_t *offset)
{
	const uint8_t *t = key + len - KEYNORM_TID_SIZE;

	*block = ((uint32_t) t[0] << 24) | ((uint32_t) t[1] << 16) |
		((uint32_t) t[2] << 8) | (uint32_t) t[3];
	*offset = (uint16_t) (((uint16_t) t[4] << 8) | (uint16_t) t[5]);
}

/*
 * Invert every byte of a buffer in place (the DESC transformation).
 */
void
keynorm_invert(uint8_t *data, size_t len)
{
	size_t		i;

	for (i = 0; i < len; i++)
		data[i] = (uint8_t) ~data[i];
}

/*
 * Write one column: the NULL/non-NULL marker, then (for a non-NULL value)
 * its encoding, inverted for a DESC column.  Returns the bytes written (1
 * for a NULL, 1 + len otherwise); value may overlap dst + 1.
 */
size_t
keynorm_column(uint8_t *dst, int flags, bool isnull,
			   const uint8_t *value, size_t len)
{
	if (isnull)
	{
		dst[0] = (flags & KEYNORM_NULLS_FIRST) ?
			KEYNORM_NULL_FIRST : KEYNORM_NULL_LAST;
		return 1;
	}
	if (len > 0 && dst + 1 != value)
		memmove(dst + 1, value, len);
	dst[0] = KEYNORM_NOT_NULL;
	if (flags & KEYNORM_DESC)
		keynorm_invert(dst + 1, len);
	return 1 + len;
}

/*
 * Compare two normalized keys with memcmp semantics (a shorter key that is
 * a prefix of the other sorts first) and return -1, 0 or 1.  a_decisive and
 * b_decisive are the keys' decisive lengths (KEYNORM_EXACT for a key without
 * an incomplete truncated column); *decisive (if not NULL) is set to false
 * when the result depends on bytes at or past the end of an incomplete
 * truncated column, in which case the caller must compare the full keys.
 */
int
keynorm_compare(const uint8_t *a, size_t alen, size_t a_decisive,
				const uint8_t *b, size_t blen, size_t b_decisive,
				bool *decisive)
{
	size_t		m = alen < blen ? alen : blen;
	size_t		p;
	int			r;

	r = memcmp(a, b, m);
	if (r != 0)
		r = r < 0 ? -1 : 1;
	else if (alen != blen)
		r = alen < blen ? -1 : 1;

	if (decisive != NULL)
	{
		/*
		 * p is where the keys first differ, or the shorter key's length.  The
		 * result is final when both keys are still exact at p: an incomplete
		 * column ending at or before p means equal truncated prefixes, which
		 * decide nothing whatever follows them.
		 */
		for (p = 0; p < m && a[p] == b[p]; p++)
			;
		*decisive = (p < a_decisive && p < b_decisive);
	}
	return r;
}

/*
 * Start building a key into buf, which has room for cap bytes.
 */
void
keynorm_builder_init(KeyNormBuilder *b, uint8_t *buf, size_t cap)
{
	b->buf = buf;
	b->cap = cap;
	b->len = 0;
	b->decisive_len = KEYNORM_EXACT;
	b->overflow = false;
}

/*
 * Reserve room for n more bytes; on failure mark the builder overflowed.
 */
static bool
kn_reserve(KeyNormBuilder *b, size_t n)
{
	if (b->overflow)
		return false;
	if (n > b->cap - b->len)
	{
		b->overflow = true;
		return false;
	}
	return true;
}

/*
 * Begin a non-NULL column whose encoding has n bytes: write its marker and
 * return where the encoding goes, or NULL if it does not fit.
 */
static uint8_t *
kn_begin_value(KeyNormBuilder *b, size_t n)
{
	if (n == SIZE_MAX || !kn_reserve(b, n + 1))
		return NULL;
	b->buf[b->len] = KEYNORM_NOT_NULL;
	return b->buf + b->len + 1;
}

/*
 * Finish a non-NULL column begun with kn_begin_value whose encoding of n
 * bytes is in place: invert it for DESC and account for it.
 */
static bool
kn_end_value(KeyNormBuilder *b, int flags, size_t n)
{
	if (flags & KEYNORM_DESC)
		keynorm_invert(b->buf + b->len + 1, n);
	b->len += 1 + n;
	return true;
}

/*
 * Append a NULL column.
 */
bool
keynorm_add_null(KeyNormBuilder *b, int flags)
{
	if (!kn_reserve(b, 1))
		return false;
	b->len += keynorm_column(b->buf + b->len, flags, true, NULL, 0);
	return true;
}

/*
 * Append a non-NULL column whose value the caller encoded already; the
 * encoding must be prefix-free among the column's values (every encoding of
 * this module is) for later columns to compare correctly.
 */
bool
keynorm_add_encoded(KeyNormBuilder *b, int flags,
					const uint8_t *value, size_t len)
{
	uint8_t    *dst = kn_begin_value(b, len);

	if (dst == NULL)
		return false;
	if (len > 0)
		memmove(dst, value, len);
	return kn_end_value(b, flags, len);
}

/*
 * Append an int2 column.
 */
bool
keynorm_add_int16(KeyNormBuilder *b, int flags, int16_t v)
{
	uint8_t    *dst = kn_begin_value(b, KEYNORM_INT16_SIZE);

	if (dst == NULL)
		return false;
	return kn_end_value(b, flags, keynorm_int16(v, dst));
}

/*
 * Append an int4 column.
 */
bool
keynorm_add_int32(KeyNormBuilder *b, int flags, int32_t v)
{
	uint8_t    *dst = kn_begin_value(b, KEYNORM_INT32_SIZE);

	if (dst == NULL)
		return false;
	return kn_end_value(b, flags, keynorm_int32(v, dst));
}

/*
 * Append an int8 column.
 */
bool
keynorm_add_int64(KeyNormBuilder *b, int flags, int64_t v)
{
	uint8_t    *dst = kn_begin_value(b, KEYNORM_INT64_SIZE);

	if (dst == NULL)
		return false;
	return kn_end_value(b, flags, keynorm_int64(v, dst));
}

/*
 * Append a float4 column.
 */
bool
keynorm_add_float4(KeyNormBuilder *b, int flags, float v)
{
	uint8_t    *dst = kn_begin_value(b, KEYNORM_FLOAT4_SIZE);

	if (dst == NULL)
		return false;
	return kn_end_value(b, flags, keynorm_float4(v, dst));
}

/*
 * Append a float8 column.
 */
bool
keynorm_add_float8(KeyNormBuilder *b, int flags, double v)
{
	uint8_t    *dst = kn_begin_value(b, KEYNORM_FLOAT8_SIZE);

	if (dst == NULL)
		return false;
	return kn_end_value(b, flags, keynorm_float8(v, dst));
}

/*
 * Append a bool column.
 */
bool
keynorm_add_bool(KeyNormBuilder *b, int flags, bool v)
{
	uint8_t    *dst = kn_begin_value(b, KEYNORM_BOOL_SIZE);

	if (dst == NULL)
		return false;
	return kn_end_value(b, flags, keynorm_bool(v, dst));
}

/*
 * Append an oid column.
 */
bool
keynorm_add_oid(KeyNormBuilder *b, int flags, uint32_t v)
{
	uint8_t    *dst = kn_begin_value(b, KEYNORM_OID_SIZE);

	if (dst == NULL)
		return false;
	return kn_end_value(b, flags, keynorm_oid(v, dst));
}

/*
 * Append a date column.
 */
bool
keynorm_add_date(KeyNormBuilder *b, int flags, int32_t v)
{
	uint8_t    *dst = kn_begin_value(b, KEYNORM_DATE_SIZE);

	if (dst == NULL)
		return false;
	return kn_end_value(b, flags, keynorm_date(v, dst));
}

/*
 * Append a timestamp column.
 */
bool
keynorm_add_timestamp(KeyNormBuilder *b, int flags, int64_t v)
{
	uint8_t    *dst = kn_begin_value(b, KEYNORM_TIMESTAMP_SIZE);

	if (dst == NULL)
		return false;
	return kn_end_value(b, flags, keynorm_timestamp(v, dst));
}

/*
 * Append a timestamptz column.
 */
bool
keynorm_add_timestamptz(KeyNormBuilder *b, int flags, int64_t v)
{
	uint8_t    *dst = kn_begin_value(b, KEYNORM_TIMESTAMP_SIZE);

	if (dst == NULL)
		return false;
	return kn_end_value(b, flags, keynorm_timestamptz(v, dst));
}

/*
 * Append a time column.
 */
bool
keynorm_add_time(KeyNormBuilder *b, int flags, int64_t v)
{
	uint8_t    *dst = kn_begin_value(b, KEYNORM_TIME_SIZE);

	if (dst == NULL)
		return false;
	return kn_end_value(b, flags, keynorm_time(v, dst));
}

/*
 * Append a uuid column.
 */
bool
keynorm_add_uuid(KeyNormBuilder *b, int flags, const uint8_t *v)
{
	uint8_t    *dst = kn_begin_value(b, KEYNORM_UUID_SIZE);

	if (dst == NULL)
		return false;
	return kn_end_value(b, flags, keynorm_uuid(v, dst));
}

/*
 * Append a bytea column in its full variable-length encoding.
 */
bool
keynorm_add_bytes(KeyNormBuilder *b, int flags, const void *data, size_t len)
{
	uint8_t    *dst = kn_begin_value(b, keynorm_bytes_size(data, len));

	if (dst == NULL)
		return false;
	return kn_end_value(b, flags, keynorm_bytes(data, len, dst));
}

/*
 * Append a text column (C collation) in its full variable-length encoding.
 */
bool
keynorm_add_text(KeyNormBuilder *b, int flags, const char *data, size_t len)
{
	return keynorm_add_bytes(b, flags, data, len);
}

/*
 * Append a bytea column truncated to width bytes; if the value does not fit
 * entirely, the key's decisive length ends with this column (unless an
 * earlier column ended it already).
 */
bool
keynorm_add_bytes_prefix(KeyNormBuilder *b, int flags,
						 const void *data, size_t len, size_t width)
{
	uint8_t    *dst = kn_begin_value(b, width);
	bool		complete;

	if (dst == NULL)
		return false;
	kn_end_value(b, flags,
				 keynorm_bytes_prefix(data, len, width, dst, &complete));
	if (!complete && b->decisive_len == KEYNORM_EXACT)
		b->decisive_len = b->len;
	return true;
}

/*
 * Append a text column (C collation) truncated to width bytes.
 */
bool
keynorm_add_text_prefix(KeyNormBuilder *b, int flags,
						const char *data, size_t len, size_t width)
{
	return keynorm_add_bytes_prefix(b, flags, data, len, width);
}

/*
 * Append the heap TID suffix, which is ascending in every index.
 */
bool
keynorm_add_tid(KeyNormBuilder *b, uint32_t block, uint16_t offset)
{
	if (!kn_reserve(b, KEYNORM_TID_SIZE))
		return false;
	b->len += keynorm_tid(block, offset, b->buf + b->len);
	return true;
}

/*
 * Return the number of bytes of the key built so far.
 */
size_t
keynorm_builder_length(const KeyNormBuilder *b)
{
	return b->len;
}

/*
 * Return the key's decisive length: the end of its first incomplete
 * truncated column, or KEYNORM_EXACT when there is none.
 */
size_t
keynorm_builder_decisive_length(const KeyNormBuilder *b)
{
	return b->decisive_len;
}

/*
 * Return true if every truncated column of the key fit completely, so that
 * memcmp against any other key is always decisive.
 */
bool
keynorm_builder_exact(const KeyNormBuilder *b)
{
	return b->decisive_len == KEYNORM_EXACT;
}

/*
 * Return true if every append so far fit into the buffer.
 */
bool
keynorm_builder_ok(const KeyNormBuilder *b)
{
	return !b->overflow;
}
