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
 * normalize function; text has one only under the C (POSIX) collation and
 * deterministic ICU collations, which EINormKeyCollationOK decides.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "catalog/pg_collation.h"
#include "catalog/pg_type.h"
#include "eiam.h"
#include "fmgr.h"
#include "keynorm.h"
#include "mb/pg_wchar.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/pg_locale.h"
#include "utils/uuid.h"

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
 * text: under C, the bytes (escaped like bytea); under a deterministic ICU
 * collation, the ICU sort key (which contains no zero byte but its final
 * terminator, so it is prefix-free) followed by the escaped bytes for the
 * tie-break.
 */
Datum
elastic_btree_norm_text(PG_FUNCTION_ARGS)
{
	text	   *value = PG_GETARG_TEXT_PP(0);
	Oid			collation = PG_GET_COLLATION();
	const char *data = VARDATA_ANY(value);
	size_t		len = VARSIZE_ANY_EXHDR(value);
	size_t		tail = keynorm_bytes_size(data, len);
	bytea	   *result;

	if (!EINormKeyCollationOK(collation))
		elog(ERROR, "collation %u has no normalized text encoding", collation);

	if (EICollationIsC(collation))
	{
		result = (bytea *) palloc(VARHDRSZ + tail);
		SET_VARSIZE(result, VARHDRSZ + keynorm_text(data, len,
													(uint8 *) VARDATA(result)));
		PG_RETURN_BYTEA_P(result);
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
		PG_RETURN_BYTEA_P(result);
	}
#else
	pg_unreachable();
#endif
}
