/*-------------------------------------------------------------------------
 *
 * keynorm.h
 *	  Binary-comparable ("normalized") index keys.
 *
 * A normalized key is a byte string whose memcmp order equals the index's
 * order of the entries it stands for: all key columns, each honouring its
 * DESC and NULLS FIRST/LAST options, followed by the heap TID, so that every
 * entry of an index has a distinct normalized key.  The SeqTree compact leaf
 * stores and compares keys in this form without calling any comparison
 * function.
 *
 * This module is plain C: it includes only <stdint.h>, <stdbool.h>,
 * <string.h>, <stdlib.h> and <math.h>, needs nothing from the server at link
 * time, and can be linked into stand-alone unit tests.
 *
 * Value encodings ("E(v)"), each ordered like PostgreSQL orders the type:
 *
 *	int2, int4, int8, date, time, timestamp, timestamptz
 *		two's complement value with the sign bit flipped, big-endian
 *		(2, 4 or 8 bytes).  The infinities of date and timestamp[tz] are the
 *		extreme integers, so they sort first and last as in PostgreSQL.
 *	oid
 *		the unsigned value, big-endian (4 bytes).
 *	bool
 *		one byte, 0x00 for false and 0x01 for true.
 *	float4, float8
 *		IEEE bits, canonicalized first: every NaN becomes the one positive
 *		quiet NaN and -0 becomes +0 (PostgreSQL treats all NaNs as equal and
 *		greater than everything, and -0 as equal to +0).  Then a positive
 *		value has its sign bit set and a negative one has all its bits
 *		inverted; big-endian (4 or 8 bytes).  This yields -Infinity <
 *		negatives < 0 < positives < +Infinity < NaN.
 *	uuid
 *		the 16 bytes as they are (PostgreSQL compares uuids with memcmp).
 *	bytea, and text under the C (POSIX) collation
 *		variable length: every 0x00 byte is written as 0x00 0xFF, every other
 *		byte as itself, and the value ends with the terminator 0x00 0x00.
 *		The pair 0x00 0x00 occurs only as the terminator, so no encoding is a
 *		proper prefix of another (the encoding is prefix-free) and the first
 *		differing byte of two distinct encodings always lies inside both.  At
 *		that byte the order of the values is kept: two data bytes compare as
 *		themselves; an escaped 0x00 (0x00 0xFF) against a larger data byte
 *		compares 0x00 < byte; the terminator (0x00 0x00) against a data byte
 *		c compares 0x00 < c when c > 0 and 0x00 0x00 < 0x00 0xFF when c = 0,
 *		so a value sorts before every longer value it is a prefix of.  The
 *		encoded size is len + (number of 0x00 bytes) + 2.
 *	timetz
 *		the time adjusted to UTC (time + zone seconds, in microseconds) as
 *		an int8, then the zone (seconds west of UTC) as an int4: 12 bytes,
 *		ordered like timetz_cmp (UTC time, then zone).
 *	money
 *		as int8: the amount in the currency's smallest unit.
 *	pg_lsn
 *		the unsigned 64-bit value, big-endian (8 bytes).
 *	"char"
 *		the byte itself (PostgreSQL compares "char" as unsigned).
 *	macaddr, macaddr8
 *		the 6 or 8 bytes as they are (compared byte by byte, high first).
 *	inet, cidr
 *		a family byte (0x00 IPv4, 0x01 IPv6), the address with every bit
 *		past the netmask length cleared, the netmask length (one byte),
 *		then the whole address: 10 bytes for IPv4, 34 for IPv6.  This is
 *		network_cmp's order: family; the common-prefix bits; netmask
 *		length; the whole address.  Where the first min(m1, m2) bits
 *		differ, the masked addresses differ there first.  Where they agree
 *		and m1 < m2, the masked first address has only zeros past m1, so
 *		it is smaller than or equal to the second; equal only if the
 *		second's bits m1..m2-1 are zero, and then the length byte orders
 *		them by netmask length as network_cmp does.  The family byte fixes
 *		the length, so the encoding is prefix-free.  inet and cidr values
 *		with the same address and netmask are equal, as in PostgreSQL.
 *	bit, varbit
 *		the data bytes (padding bits are zero) in the variable-length
 *		bytea encoding below, then one byte, the number of bits used in
 *		the last data byte (1..8; 0 for the empty string).  bit_cmp
 *		compares the bytes over the shorter length, then the bit lengths:
 *		a string whose bytes are a proper prefix of the other's has fewer
 *		bits, and with equal bytes the lengths differ only in the last
 *		byte's count.
 *	bpchar (char(n))
 *		the text encoding of the value without its trailing spaces, which
 *		PostgreSQL ignores when comparing (keynorm_trim_spaces).
 *	truncated bytea/text (fixed width N)
 *		the first N bytes of the variable-length encoding above, padded with
 *		0x00 up to N bytes, plus a "complete" flag that is true when the
 *		whole encoding (terminator included) fit into N bytes.  A prefix of
 *		a prefix-free order-preserving encoding keeps the order wherever two
 *		prefixes differ; where they are equal, either both values are
 *		complete (then the values are equal) or neither is (then the values
 *		may differ beyond the prefix and the comparison is "not decisive":
 *		the caller must compare the full values).
 *
 * Column encoding, written by keynorm_column() and the builder:
 *
 *	marker byte: KEYNORM_NULL_FIRST (0x00) for a NULL in a NULLS FIRST
 *	column, KEYNORM_NOT_NULL (0x01) for any non-NULL value, KEYNORM_NULL_LAST
 *	(0x02) for a NULL in a NULLS LAST column.  The marker is never inverted:
 *	NULLS FIRST/LAST are absolute positions whatever the column direction.
 *	A NULL has no further bytes; all NULLs of a column are equal.
 *
 *	value bytes: E(v) for an ASC column; for a DESC column every byte of
 *	E(v) inverted (b -> 0xFF - b).  Inversion reverses the memcmp order of
 *	two byte strings exactly when their first difference lies inside both of
 *	them, i.e. when neither is a proper prefix of the other.  That holds for
 *	every encoding here: the fixed-width ones trivially, the variable-length
 *	one because it is prefix-free (the inverted terminator 0xFF 0xFF likewise
 *	occurs only at the end of an inverted encoding, so bytes of the next
 *	column never take part in deciding this column).  Hence DESC needs no
 *	other scheme.
 *
 * Because every column encoding is prefix-free, the concatenation of the
 * columns of two keys is parsed identically up to the first column in which
 * they differ, and that column alone decides their memcmp order.
 *
 * Heap TID suffix (KEYNORM_TID_SIZE bytes): block number, 4 bytes
 * big-endian, then offset number, 2 bytes big-endian; always ascending.
 *
 * Decisiveness: a key containing an incomplete truncated column carries a
 * "decisive length", the end offset of its first incomplete column;
 * KEYNORM_EXACT when there is none.  Let p be the first byte where two keys
 * differ (the shorter key's length if one is a prefix of the other).  Their
 * memcmp order is final exactly when p lies before both decisive lengths:
 * otherwise an earlier column of both keys holds equal, incomplete prefixes
 * and the values themselves must be compared (the SeqTree reads the heap
 * key).  keynorm_compare() applies this rule.  A key is compared correctly
 * against a shorter search key made of its leading columns (no TID): the
 * search key sorts before every key it is a prefix of.
 *
 * Encoders of a single value write into a caller-provided buffer that must
 * be large enough (the fixed sizes below, keynorm_bytes_size() or the chosen
 * width) and return the number of bytes written.  The builder checks its
 * capacity itself.
 *
 *-------------------------------------------------------------------------
 */
#ifndef KEYNORM_H
#define KEYNORM_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

/* Column option flags; the same bits as PostgreSQL's INDOPTION_* */
#define KEYNORM_DESC			0x0001
#define KEYNORM_NULLS_FIRST		0x0002

/* Column marker bytes */
#define KEYNORM_NULL_FIRST		0x00
#define KEYNORM_NOT_NULL		0x01
#define KEYNORM_NULL_LAST		0x02

/* Sizes of the fixed-width value encodings */
#define KEYNORM_INT16_SIZE		2
#define KEYNORM_INT32_SIZE		4
#define KEYNORM_INT64_SIZE		8
#define KEYNORM_FLOAT4_SIZE		4
#define KEYNORM_FLOAT8_SIZE		8
#define KEYNORM_BOOL_SIZE		1
#define KEYNORM_OID_SIZE		4
#define KEYNORM_DATE_SIZE		4
#define KEYNORM_TIMESTAMP_SIZE	8
#define KEYNORM_TIME_SIZE		8
#define KEYNORM_UUID_SIZE		16
#define KEYNORM_TID_SIZE		6
#define KEYNORM_TIMETZ_SIZE		12
#define KEYNORM_MONEY_SIZE		8
#define KEYNORM_LSN_SIZE		8
#define KEYNORM_CHAR_SIZE		1
#define KEYNORM_MACADDR_SIZE	6
#define KEYNORM_MACADDR8_SIZE	8
#define KEYNORM_INET4_SIZE		10
#define KEYNORM_INET6_SIZE		34

/* Decisive length of a key without an incomplete truncated column */
#define KEYNORM_EXACT			SIZE_MAX

/* Largest encoding of a variable-length value of len bytes (all 0x00) */
#define KEYNORM_BYTES_MAX_SIZE(len)	(2 * (size_t) (len) + 2)

/* Largest encoding of a bit string of nbits bits */
#define KEYNORM_BITS_MAX_SIZE(nbits) \
	(KEYNORM_BYTES_MAX_SIZE(((size_t) (nbits) + 7) / 8) + 1)

/*
 * State of a multi-column key being built into a caller-provided buffer.
 * Fields are read-only for the caller; use the functions below.
 */
typedef struct KeyNormBuilder
{
	uint8_t    *buf;			/* output buffer */
	size_t		cap;			/* its capacity in bytes */
	size_t		len;			/* bytes written so far */
	size_t		decisive_len;	/* end of the first incomplete truncated
								 * column, or KEYNORM_EXACT */
	bool		overflow;		/* a write did not fit; buf is unusable */
} KeyNormBuilder;

/* Value encoders: write E(v) to dst, return the number of bytes written */
extern size_t keynorm_int16(int16_t v, uint8_t *dst);
extern size_t keynorm_int32(int32_t v, uint8_t *dst);
extern size_t keynorm_int64(int64_t v, uint8_t *dst);
extern size_t keynorm_float4(float v, uint8_t *dst);
extern size_t keynorm_float8(double v, uint8_t *dst);
extern size_t keynorm_bool(bool v, uint8_t *dst);
extern size_t keynorm_oid(uint32_t v, uint8_t *dst);
extern size_t keynorm_date(int32_t v, uint8_t *dst);
extern size_t keynorm_timestamp(int64_t v, uint8_t *dst);
extern size_t keynorm_timestamptz(int64_t v, uint8_t *dst);
extern size_t keynorm_time(int64_t v, uint8_t *dst);
extern size_t keynorm_uuid(const uint8_t *v, uint8_t *dst);
extern size_t keynorm_timetz(int64_t time, int32_t zone, uint8_t *dst);
extern size_t keynorm_money(int64_t v, uint8_t *dst);
extern size_t keynorm_lsn(uint64_t v, uint8_t *dst);
extern size_t keynorm_char(uint8_t v, uint8_t *dst);
extern size_t keynorm_macaddr(const uint8_t *v, uint8_t *dst);
extern size_t keynorm_macaddr8(const uint8_t *v, uint8_t *dst);
extern size_t keynorm_inet(bool ipv6, const uint8_t *addr, int masklen,
						   uint8_t *dst);
extern size_t keynorm_bits_size(const uint8_t *bits, size_t nbits);
extern size_t keynorm_bits(const uint8_t *bits, size_t nbits, uint8_t *dst);
extern size_t keynorm_trim_spaces(const char *data, size_t len);
extern size_t keynorm_bytes_size(const void *data, size_t len);
extern size_t keynorm_bytes(const void *data, size_t len, uint8_t *dst);
extern size_t keynorm_text(const char *data, size_t len, uint8_t *dst);
extern size_t keynorm_bytes_prefix(const void *data, size_t len, size_t width,
								   uint8_t *dst, bool *complete);
extern size_t keynorm_text_prefix(const char *data, size_t len, size_t width,
								  uint8_t *dst, bool *complete);

/* TID suffix */
extern size_t keynorm_tid(uint32_t block, uint16_t offset, uint8_t *dst);
extern void keynorm_get_tid(const uint8_t *key, size_t len,
							uint32_t *block, uint16_t *offset);

/* Column wrapper and helpers */
extern void keynorm_invert(uint8_t *data, size_t len);
extern size_t keynorm_column(uint8_t *dst, int flags, bool isnull,
							 const uint8_t *value, size_t len);
extern int	keynorm_compare(const uint8_t *a, size_t alen, size_t a_decisive,
							const uint8_t *b, size_t blen, size_t b_decisive,
							bool *decisive);

/* Multi-column key builder */
extern void keynorm_builder_init(KeyNormBuilder *b, uint8_t *buf, size_t cap);
extern bool keynorm_add_null(KeyNormBuilder *b, int flags);
extern bool keynorm_add_encoded(KeyNormBuilder *b, int flags,
								const uint8_t *value, size_t len);
extern bool keynorm_add_int16(KeyNormBuilder *b, int flags, int16_t v);
extern bool keynorm_add_int32(KeyNormBuilder *b, int flags, int32_t v);
extern bool keynorm_add_int64(KeyNormBuilder *b, int flags, int64_t v);
extern bool keynorm_add_float4(KeyNormBuilder *b, int flags, float v);
extern bool keynorm_add_float8(KeyNormBuilder *b, int flags, double v);
extern bool keynorm_add_bool(KeyNormBuilder *b, int flags, bool v);
extern bool keynorm_add_oid(KeyNormBuilder *b, int flags, uint32_t v);
extern bool keynorm_add_date(KeyNormBuilder *b, int flags, int32_t v);
extern bool keynorm_add_timestamp(KeyNormBuilder *b, int flags, int64_t v);
extern bool keynorm_add_timestamptz(KeyNormBuilder *b, int flags, int64_t v);
extern bool keynorm_add_time(KeyNormBuilder *b, int flags, int64_t v);
extern bool keynorm_add_uuid(KeyNormBuilder *b, int flags, const uint8_t *v);
extern bool keynorm_add_bytes(KeyNormBuilder *b, int flags,
							  const void *data, size_t len);
extern bool keynorm_add_text(KeyNormBuilder *b, int flags,
							 const char *data, size_t len);
extern bool keynorm_add_bytes_prefix(KeyNormBuilder *b, int flags,
									 const void *data, size_t len,
									 size_t width);
extern bool keynorm_add_text_prefix(KeyNormBuilder *b, int flags,
									const char *data, size_t len,
									size_t width);
extern bool keynorm_add_tid(KeyNormBuilder *b, uint32_t block,
							uint16_t offset);
extern size_t keynorm_builder_length(const KeyNormBuilder *b);
extern size_t keynorm_builder_decisive_length(const KeyNormBuilder *b);
extern bool keynorm_builder_exact(const KeyNormBuilder *b);
extern bool keynorm_builder_ok(const KeyNormBuilder *b);

#endif							/* KEYNORM_H */
