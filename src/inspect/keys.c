/*-------------------------------------------------------------------------
 *
 * keys.c
 *	  elastic_index_normalized_key(): show the normalized key an index
 *	  gives an entry.
 *
 * The function lets tests (and curious users) check the one property
 * compact leaves rely on: ordering entries by these bytes is ordering them
 * the way the index does.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/relation.h"
#include "eiam.h"
#include "eielastic.h"
#include "eiosm.h"
#include "fmgr.h"
#include "parser/parse_coerce.h"
#include "storage/itemptr.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/rel.h"

PG_FUNCTION_INFO_V1(elastic_index_normalized_key);

/*
 * elastic_index_normalized_key(index regclass, tid tid, VARIADIC "any")
 * returns the normalized key of the entry (values..., tid) of the index, or
 * raises an error saying why the index has none.  A NULL tid gives the key
 * without its TID suffix (a search key).
 */
Datum
elastic_index_normalized_key(PG_FUNCTION_ARGS)
{
	Oid			indexoid = PG_GETARG_OID(0);
	ItemPointer tid = PG_ARGISNULL(1) ? NULL : (ItemPointer) PG_GETARG_POINTER(1);
	int			nvalues = PG_NARGS() - 2;
	Relation	index;
	EINormKeyInfo *info;
	Datum		values[INDEX_MAX_KEYS];
	bool		isnull[INDEX_MAX_KEYS];
	StringInfoData out;
	bytea	   *result;

	if (PG_ARGISNULL(0))
		PG_RETURN_NULL();

	index = EIOpenIndexChecked(indexoid, AccessShareLock);
	info = EIGetNormKeyInfo(index);

	if (!info->ok)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("index \"%s\" has no normalized keys",
						RelationGetRelationName(index)),
				 errdetail("It keeps standard leaves: %s.", info->reason)));
	if (nvalues != info->nkeyatts)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("index \"%s\" has %d key columns, but %d values were given",
						RelationGetRelationName(index), info->nkeyatts, nvalues),
				 errhint("Pass one value per key column, in index column order.")));

	for (int i = 0; i < nvalues; i++)
	{
		Oid			argtype = get_fn_expr_argtype(fcinfo->flinfo, i + 2);
		Oid			coltype = index->rd_opcintype[i];

		if (!OidIsValid(argtype) || !IsBinaryCoercible(argtype, coltype))
			ereport(ERROR,
					(errcode(ERRCODE_DATATYPE_MISMATCH),
					 errmsg("value %d has type %s, but index column %d has type %s",
							i + 1, format_type_be(argtype), i + 1,
							format_type_be(coltype)),
					 errhint("Cast the value to the column's type.")));
		values[i] = PG_GETARG_DATUM(i + 2);
		isnull[i] = PG_ARGISNULL(i + 2);
	}

	initStringInfo(&out);
	EINormalizeKey(info, values, isnull, tid, &out);

	result = (bytea *) palloc(VARHDRSZ + out.len);
	SET_VARSIZE(result, VARHDRSZ + out.len);
	memcpy(VARDATA(result), out.data, out.len);

	relation_close(index, AccessShareLock);
	PG_RETURN_BYTEA_P(result);
}
