/*-------------------------------------------------------------------------
 *
 * normalize.c
 *	  Operator class support function 7 (EI_NORMALIZE_PROC): a value's
 *	  normalized encoding.
 *
 * Each function returns, as bytea, bytes whose memcmp order is the order of
 * the operator class it belongs to (the encodings are described in
 * src/lib/keynorm.h).  The tree core (src/core/normkey.c) adds the column
 * markers for NULLs, inverts DESC columns and appends the heap TID; the
 * support function only encodes one non-NULL value.
 *
 * Types whose order has no such encoding (numeric, interval) have no
 * normalize function, and neither have enums (see docs/reference.md,
 * "Normalized keys").  text, char(n) and name have one only under the C
 * (POSIX) collation and deterministic ICU collations, which
 * EINormKeyCollationOK decides; the pattern classes' functions ignore the
 * collation, as their comparison functions do (EINormalizeProcUsesCollation
 * recognizes them by their C symbol's "_pattern" suffix).
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <sys/socket.h>

#include "catalog/pg_collation.h"
#include "catalog/pg_type.h"
#include "eiam.h"
#include "fmgr.h"
#include "keynorm.h"
#include "mb/pg_wchar.h"
#include "utils/builtins.h"
#include "utils/cash.h"
#include "utils/date.h"
#include "utils/inet.h"
#include "utils/lsyscache.h"
#include "utils/pg_locale.h"
#include "utils/pg_lsn.h"
#include "utils/uuid.h"
#include "utils/varbit.h"

#ifdef USE_ICU
#include <unicode/ucnv.h>
#include <unicode/ucol.h>
#endif

PG_FUNCTION_INFO_V1(elastic_btree_norm_int2);
PG_FUNCTION_INFO_V1(elastic_btree_norm_int4);
PG_FUNCTION_INFO_V1(elastic_btree_norm_int8);
PG_FUNCTION_INFO_V1(elastic_btree_norm_float4);
PG_FUNCTION_INFO_V1(elastic_btree_norm_float8);
PG_FUNCTION_INFO_V1(elastic_btree_norm_bool);
PG_FUNCTION_INFO_V1(elastic_btree_norm_oid);
PG_FUNCTION_INFO_V1(elastic_btree_norm_uuid);
PG_FUNCTION_INFO_V1(elastic_btree_norm_bytea);
PG_FUNCTION_INFO_V1(elastic_btree_norm_text);
PG_FUNCTION_INFO_V1(elastic_btree_norm_timetz);
PG_FUNCTION_INFO_V1(elastic_btree_norm_money);
PG_FUNCTION_INFO_V1(elastic_btree_norm_pg_lsn);
PG_FUNCTION_INFO_V1(elastic_btree_norm_char);
PG_FUNCTION_INFO_V1(elastic_btree_norm_macaddr);
PG_FUNCTION_INFO_V1(elastic_btree_norm_macaddr8);
PG_FUNCTION_INFO_V1(elastic_btree_norm_inet);
PG_FUNCTION_INFO_V1(elastic_btree_norm_bit);
PG_FUNCTION_INFO_V1(elastic_btree_norm_bpchar);
PG_FUNCTION_INFO_V1(elastic_btree_norm_name);
PG_FUNCTION_INFO_V1(elastic_btree_norm_text_pattern);
PG_FUNCTION_INFO_V1(elastic_btree_norm_bpchar_pattern);

/*
 * Wrap len bytes of an encoding into a new bytea.
 */
static bytea *
ei_norm_result(const uint8 *data, size_t len)
{
	bytea	   *result = (bytea *) palloc(VARHDRSZ + len);

	SET_VARSIZE(result, VARHDRSZ + len);
	memcpy(VARDATA(result), data, len);
	return result;
}

/*
 * Define the support function for a fixed-width type: fetch the argument
 * with getarg, encode it with keynorm's encoder into size bytes.
 */
#define EI_NORM_FIXED(name, size, encoder, getarg) \
Datum \
name(PG_FUNCTION_ARGS) \
{ \
	uint8		buf[size]; \
\
	PG_RETURN_BYTEA_P(ei_norm_result(buf, encoder(getarg(0), buf))); \
}

/* int2, int4 (also date), int8 (also timestamp and timestamptz): sign bit
 * flipped, big-endian; the infinities are the extreme values */
EI_NORM_FIXED(elastic_btree_norm_int2, KEYNORM_INT16_SIZE, keynorm_int16, PG_GETARG_INT16)
EI_NORM_FIXED(elastic_btree_norm_int4, KEYNORM_INT32_SIZE, keynorm_int32, PG_GETARG_INT32)
EI_NORM_FIXED(elastic_btree_norm_int8, KEYNORM_INT64_SIZE, keynorm_int64, PG_GETARG_INT64)

/* float4, float8: -0 equals +0, every NaN equal and largest */
EI_NORM_FIXED(elastic_btree_norm_float4, KEYNORM_FLOAT4_SIZE, keynorm_float4, PG_GETARG_FLOAT4)
EI_NORM_FIXED(elastic_btree_norm_float8, KEYNORM_FLOAT8_SIZE, keynorm_float8, PG_GETARG_FLOAT8)

/* bool: one byte; oid: unsigned, big-endian */
EI_NORM_FIXED(elastic_btree_norm_bool, KEYNORM_BOOL_SIZE, keynorm_bool, PG_GETARG_BOOL)
EI_NORM_FIXED(elastic_btree_norm_oid, KEYNORM_OID_SIZE, keynorm_oid, PG_GETARG_OID)

/* money: signed 64 bits; pg_lsn: unsigned 64 bits; "char": the byte */
EI_NORM_FIXED(elastic_btree_norm_money, KEYNORM_MONEY_SIZE, keynorm_money, PG_GETARG_CASH)
EI_NORM_FIXED(elastic_btree_norm_pg_lsn, KEYNORM_LSN_SIZE, keynorm_lsn, PG_GETARG_LSN)
EI_NORM_FIXED(elastic_btree_norm_char, KEYNORM_CHAR_SIZE, keynorm_char, PG_GETARG_CHAR)

/*
 * timetz: the UTC-adjusted time, then the zone (timetz_cmp's order).
 */
Datum
elastic_btree_norm_timetz(PG_FUNCTION_ARGS)
{
	TimeTzADT  *value = PG_GETARG_TIMETZADT_P(0);
	uint8		buf[KEYNORM_TIMETZ_SIZE];

	PG_RETURN_BYTEA_P(ei_norm_result(buf, keynorm_timetz(value->time,
														 value->zone, buf)));
}

/*
 * macaddr: its 6 bytes.
 */
Datum
elastic_btree_norm_macaddr(PG_FUNCTION_ARGS)
{
	macaddr    *value = PG_GETARG_MACADDR_P(0);
	uint8		bytes[KEYNORM_MACADDR_SIZE] = {value->a, value->b, value->c,
	value->d, value->e, value->f};
	uint8		buf[KEYNORM_MACADDR_SIZE];

	PG_RETURN_BYTEA_P(ei_norm_result(buf, keynorm_macaddr(bytes, buf)));
}

/*
 * macaddr8: its 8 bytes.
 */
Datum
elastic_btree_norm_macaddr8(PG_FUNCTION_ARGS)
{
	macaddr8   *value = PG_GETARG_MACADDR8_P(0);
	uint8		bytes[KEYNORM_MACADDR8_SIZE] = {value->a, value->b, value->c,
	value->d, value->e, value->f, value->g, value->h};
	uint8		buf[KEYNORM_MACADDR8_SIZE];

	PG_RETURN_BYTEA_P(ei_norm_result(buf, keynorm_macaddr8(bytes, buf)));
}

/*
 * inet and cidr: family, address masked to the netmask, netmask length,
 * whole address (network_cmp's order; the cidr flag is not part of it).
 */
Datum
elastic_btree_norm_inet(PG_FUNCTION_ARGS)
{
	inet	   *value = PG_GETARG_INET_PP(0);
	uint8		buf[KEYNORM_INET6_SIZE];
	bool		ipv6 = (ip_family(value) == PGSQL_AF_INET6);

	if (!ipv6 && ip_family(value) != PGSQL_AF_INET)
		elog(ERROR, "invalid inet address family %d", ip_family(value));
	PG_RETURN_BYTEA_P(ei_norm_result(buf, keynorm_inet(ipv6, ip_addr(value),
													   ip_bits(value), buf)));
}

/*
 * bit and varbit: the data bytes escaped like bytea, then the number of
 * bits used in the last byte (bit_cmp's order).
 */
Datum
elastic_btree_norm_bit(PG_FUNCTION_ARGS)
{
	VarBit	   *value = PG_GETARG_VARBIT_P(0);
	size_t		nbits = VARBITLEN(value);
	bytea	   *result;

	result = (bytea *) palloc(VARHDRSZ + keynorm_bits_size(VARBITS(value),
														   nbits));
	SET_VARSIZE(result, VARHDRSZ + keynorm_bits(VARBITS(value), nbits,
												(uint8 *) VARDATA(result)));
	PG_RETURN_BYTEA_P(result);
}

/*
 * uuid: its 16 bytes (PostgreSQL compares uuids with memcmp).
 */
Datum
elastic_btree_norm_uuid(PG_FUNCTION_ARGS)
{
	pg_uuid_t  *uuid = PG_GETARG_UUID_P(0);
	uint8		buf[KEYNORM_UUID_SIZE];

	PG_RETURN_BYTEA_P(ei_norm_result(buf, keynorm_uuid(uuid->data, buf)));
}

/*
 * bytea: zero bytes escaped, a two-byte terminator (prefix-free).
 */
Datum
elastic_btree_norm_bytea(PG_FUNCTION_ARGS)
{
	bytea	   *value = PG_GETARG_BYTEA_PP(0);
	const char *data = VARDATA_ANY(value);
	size_t		len = VARSIZE_ANY_EXHDR(value);
	bytea	   *result;

	result = (bytea *) palloc(VARHDRSZ + keynorm_bytes_size(data, len));
	SET_VARSIZE(result, VARHDRSZ + keynorm_bytes(data, len,
												 (uint8 *) VARDATA(result)));
	PG_RETURN_BYTEA_P(result);
}

#ifdef USE_ICU
/*
 * Convert text in the database encoding to UTF-16 for ICU; *result is
 * palloc'd and the length in UTF-16 code units is returned.  (The server
 * has such a function, but 18 no longer exports it.)
 */
static int32_t
ei_text_to_uchars(UChar **result, const char *data, size_t len)
{
	static UConverter *converter = NULL;
	UErrorCode	status = U_ZERO_ERROR;
	int32_t		capacity;
	int32_t		nuchars;

	if (converter == NULL)
	{
		const char *name = get_encoding_name_for_icu(GetDatabaseEncoding());

		if (name == NULL)
			ereport(ERROR,
					(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
					 errmsg("encoding \"%s\" not supported by ICU",
							pg_encoding_to_char(GetDatabaseEncoding()))));
		converter = ucnv_open(name, &status);
		if (U_FAILURE(status))
			ereport(ERROR,
					(errmsg("could not open ICU converter for encoding \"%s\": %s",
							name, u_errorName(status))));
	}

	/* at most one UTF-16 unit per input byte, and a terminator */
	capacity = (int32_t) len + 1;
	*result = palloc(capacity * sizeof(UChar));
	nuchars = ucnv_toUChars(converter, *result, capacity, data, (int32_t) len,
							&status);
	if (U_FAILURE(status))
		ereport(ERROR,
				(errmsg("ICU could not convert a string: %s",
						u_errorName(status))));
	return nuchars;
}
#endif

/*
 * The encoding of a string of len bytes compared as text under collation:
 * under C, the bytes (escaped like bytea); under a deterministic ICU
 * collation, the ICU sort key (which contains no zero byte but its final
 * terminator, so it is prefix-free) followed by the escaped bytes for the
 * tie-break varstr_cmp applies.
 */
static bytea *
ei_norm_string(const char *data, size_t len, Oid collation)
{
	size_t		tail = keynorm_bytes_size(data, len);
	bytea	   *result;

	if (!EINormKeyCollationOK(collation))
		elog(ERROR, "collation %u has no normalized text encoding", collation);

	if (EICollationIsC(collation))
	{
		result = (bytea *) palloc(VARHDRSZ + tail);
		SET_VARSIZE(result, VARHDRSZ + keynorm_text(data, len,
													(uint8 *) VARDATA(result)));
		return result;
	}
#ifdef USE_ICU
	{
		pg_locale_t locale = pg_newlocale_from_collation(collation);
		UChar	   *uchars;
		int32_t		nuchars = ei_text_to_uchars(&uchars, data, len);
		int32_t		keylen;
		uint8	   *dst;

		keylen = ucol_getSortKey(locale->info.icu.ucol, uchars, nuchars,
								 NULL, 0);
		result = (bytea *) palloc(VARHDRSZ + keylen + tail);
		dst = (uint8 *) VARDATA(result);
		if (ucol_getSortKey(locale->info.icu.ucol, uchars, nuchars,
							dst, keylen) != keylen)
			elog(ERROR, "ICU sort key changed length");
		SET_VARSIZE(result, VARHDRSZ + keylen +
					keynorm_text(data, len, dst + keylen));
		pfree(uchars);
		return result;
	}
#else
	pg_unreachable();
#endif
}

/*
 * The bytes of a string escaped like bytea, whatever the collation (the
 * pattern classes' order).
 */
static bytea *
ei_norm_bytes(const char *data, size_t len)
{
	bytea	   *result;

	result = (bytea *) palloc(VARHDRSZ + keynorm_bytes_size(data, len));
	SET_VARSIZE(result, VARHDRSZ + keynorm_bytes(data, len,
												 (uint8 *) VARDATA(result)));
	return result;
}

/*
 * text (and varchar): the string under the column's collation.
 */
Datum
elastic_btree_norm_text(PG_FUNCTION_ARGS)
{
	text	   *value = PG_GETARG_TEXT_PP(0);

	PG_RETURN_BYTEA_P(ei_norm_string(VARDATA_ANY(value),
									 VARSIZE_ANY_EXHDR(value),
									 PG_GET_COLLATION()));
}

/*
 * char(n): the string without its trailing spaces, which bpcharcmp
 * ignores, under the column's collation.
 */
Datum
elastic_btree_norm_bpchar(PG_FUNCTION_ARGS)
{
	BpChar	   *value = PG_GETARG_BPCHAR_PP(0);
	const char *data = VARDATA_ANY(value);

	PG_RETURN_BYTEA_P(ei_norm_string(data,
									 keynorm_trim_spaces(data,
														 VARSIZE_ANY_EXHDR(value)),
									 PG_GET_COLLATION()));
}

/*
 * name: the bytes before the terminating zero, under the column's
 * collation (namecmp's strncmp under C orders them like text; other
 * collations compare them with varstr_cmp, as text).
 */
Datum
elastic_btree_norm_name(PG_FUNCTION_ARGS)
{
	Name		value = PG_GETARG_NAME(0);

	PG_RETURN_BYTEA_P(ei_norm_string(NameStr(*value),
									 strnlen(NameStr(*value), NAMEDATALEN),
									 PG_GET_COLLATION()));
}

/*
 * text_pattern_ops, varchar_pattern_ops: the bytes, whatever the collation
 * (internal_text_pattern_compare).
 */
Datum
elastic_btree_norm_text_pattern(PG_FUNCTION_ARGS)
{
	text	   *value = PG_GETARG_TEXT_PP(0);

	PG_RETURN_BYTEA_P(ei_norm_bytes(VARDATA_ANY(value),
									VARSIZE_ANY_EXHDR(value)));
}

/*
 * bpchar_pattern_ops: the bytes without the trailing spaces, whatever the
 * collation (internal_bpchar_pattern_compare).
 */
Datum
elastic_btree_norm_bpchar_pattern(PG_FUNCTION_ARGS)
{
	BpChar	   *value = PG_GETARG_BPCHAR_PP(0);
	const char *data = VARDATA_ANY(value);

	PG_RETURN_BYTEA_P(ei_norm_bytes(data,
									keynorm_trim_spaces(data,
														VARSIZE_ANY_EXHDR(value))));
}
