/*-------------------------------------------------------------------------
 *
 * normkey.c
 *	  Normalized keys of index entries: bytes whose memcmp order is the
 *	  index's order of (key columns, heap TID).
 *
 * Compact leaves compare keys only in this form.  An index can have them
 * when every key column is a plain column (not an expression) whose
 * operator class has a normalize function (src/am/normalize.c) and, for a
 * collatable type, a collation that function supports.  The layout of a
 * key is keynorm's (src/lib/keynorm.h): per column a marker byte (NULLS
 * FIRST, not NULL, NULLS LAST) and, for a non-NULL value, the support
 * function's bytes, inverted for a DESC column (for a NULL of a fixed-width
 * type, as many zero bytes); then the heap TID.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/genam.h"
#include "catalog/index.h"
#include "catalog/pg_collation.h"
#include "catalog/pg_language.h"
#include "catalog/pg_proc.h"
#include "catalog/pg_type.h"
#include "eitree.h"
#include "keynorm.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/pg_locale.h"
#include "utils/rel.h"
#include "utils/syscache.h"

/*
 * Decide whether an index's entries have normalized keys, and gather what
 * EINormalizeKey needs.  The result is palloc'd in the current memory
 * context; when info->ok is false, info->reason says why in a phrase that
 * fits "... keeps standard leaves: <reason>".
 */
EINormKeyInfo *
EIGetNormKeyInfo(Relation index)
{
	int			nkeyatts = IndexRelationGetNumberOfKeyAttributes(index);
	EINormKeyInfo *info = palloc0(sizeof(EINormKeyInfo));

	info->nkeyatts = nkeyatts;
	info->ok = true;

	for (int i = 0; i < nkeyatts; i++)
	{
		Oid			typid = TupleDescAttr(RelationGetDescr(index), i)->atttypid;
		Oid			procid;

		if (index->rd_index->indkey.values[i] == 0)
		{
			info->ok = false;
			info->reason = psprintf("column %d is an expression, which compact leaves cannot re-evaluate", i + 1);
			return info;
		}

		procid = EIGetNormalizeProc(index->rd_opfamily[i],
									index->rd_opcintype[i]);
		if (!OidIsValid(procid))
		{
			info->ok = false;
			info->reason = psprintf("type %s has no binary-comparable encoding",
									format_type_be(typid));
			return info;
		}
		if (type_is_collatable(typid) &&
			EINormalizeProcUsesCollation(procid) &&
			!EINormKeyCollationOK(index->rd_indcollation[i]))
		{
			info->ok = false;
			info->reason = psprintf("collation \"%s\" of column %d is neither C nor a deterministic ICU collation",
									get_collation_name(index->rd_indcollation[i]),
									i + 1);
			return info;
		}

		/* fixed-width columns' keys have one length (EINormKeyTypeWidth) */
		info->widths[i] = EINormKeyTypeWidth(typid);

		fmgr_info_cxt(procid, &info->procs[i], CurrentMemoryContext);
		info->collations[i] = index->rd_indcollation[i];
		info->flags[i] = 0;
		if (index->rd_indoption[i] & INDOPTION_DESC)
			info->flags[i] |= KEYNORM_DESC;
		if (index->rd_indoption[i] & INDOPTION_NULLS_FIRST)
			info->flags[i] |= KEYNORM_NULLS_FIRST;
	}

	info->keylen = KEYNORM_TID_SIZE;
	for (int i = 0; i < nkeyatts; i++)
	{
		if (info->widths[i] < 0)
		{
			info->keylen = -1;
			break;
		}
		info->keylen += 1 + info->widths[i];
	}

	return info;
}

/*
 * Make info describe the padded keys of compact leaves: an index with a
 * variable-width key column gets keys of EI_NORMKEY_VARKEY_LEN bytes, the
 * natural key followed by zeros.  Fixed-width keys are left as they are.
 */
void
EINormKeyPad(EINormKeyInfo *info)
{
	if (info->ok && info->keylen < 0)
	{
		info->keylen = EI_NORMKEY_VARKEY_LEN;
		info->padded = true;
	}
}

/*
 * Length of the first column's part of a normalized search key of
 * keylen bytes built by EINormalizeKey from a value in the first column
 * and NULLs in all others (tid NULL, no padding counted).
 */
int
EINormKeyPrefixLength(EINormKeyInfo *info, int keylen)
{
	int			len = keylen;

	for (int i = 1; i < info->nkeyatts; i++)
		len -= 1 + Max(info->widths[i], 0);
	return len;
}

/*
 * Append the normalized key of one entry to out: the key columns in
 * values/isnull, then the heap TID unless tid is NULL (a search key).
 * With padded keys (EINormKeyPad), an entry's key (tid given) of at most
 * info->keylen bytes is padded with zeros to that length; a longer one is
 * left as it is and the result is false: it cannot be stored in a compact
 * leaf.  Otherwise the result is true.  Search keys are never padded.
 */
bool
EINormalizeKey(EINormKeyInfo *info, Datum *values, bool *isnull,
			   ItemPointer tid, StringInfo out)
{
	int			start = out->len;

	Assert(info->ok);

	for (int i = 0; i < info->nkeyatts; i++)
	{
		bytea	   *enc = NULL;
		size_t		len = 0;

		if (!isnull[i])
		{
			enc = DatumGetByteaPP(FunctionCall1Coll(&info->procs[i],
													info->collations[i],
													values[i]));
			len = VARSIZE_ANY_EXHDR(enc);
		}
		/* the marker, then the value or a NULL's padding */
		enlargeStringInfo(out, 1 + (int) (isnull[i] ?
										  Max(info->widths[i], 0) : len));
		out->len += (int) keynorm_column((uint8 *) out->data + out->len,
										 info->flags[i], isnull[i],
										 enc ? (uint8 *) VARDATA_ANY(enc) : NULL,
										 len);

		/*
		 * The normalize functions return a new bytea: free it, or a nested
		 * loop of compact leaf lookups (two keys normalized per lookup)
		 * grows its executor's memory by every one.
		 */
		if (enc != NULL && (Pointer) enc != DatumGetPointer(values[i]))
			pfree(enc);

		/*
		 * Pad a NULL of a fixed-width column with zeros, so that all keys of
		 * the index have one length.  The marker byte alone decides the
		 * order of a NULL, and all NULLs of a column pad alike.
		 */
		if (isnull[i] && info->widths[i] > 0)
		{
			memset(out->data + out->len, 0, info->widths[i]);
			out->len += info->widths[i];
		}
		out->data[out->len] = '\0';
	}

	if (tid != NULL)
	{
		enlargeStringInfo(out, KEYNORM_TID_SIZE);
		out->len += (int) keynorm_tid(ItemPointerGetBlockNumber(tid),
									  ItemPointerGetOffsetNumber(tid),
									  (uint8 *) out->data + out->len);
		out->data[out->len] = '\0';
	}

	if (info->padded && tid != NULL)
	{
		int			natural = out->len - start;

		if (natural > info->keylen)
			return false;
		enlargeStringInfo(out, info->keylen - natural);
		memset(out->data + out->len, 0, info->keylen - natural);
		out->len += info->keylen - natural;
		out->data[out->len] = '\0';
	}
	return true;
}

/*
 * The normalize function of an operator family for a type, or InvalidOid.
 * Under a catalog still at extension version 0.1.0 (the library updated,
 * ALTER EXTENSION UPDATE not yet run) it is support function 3, which
 * 0.2.0 leaves to btree's in_range numbering: accept number 3 only if it
 * has the normalize function's shape, one argument returning bytea.
 */
Oid
EIGetNormalizeProc(Oid opfamily, Oid opcintype)
{
	Oid			procid;

	procid = get_opfamily_proc(opfamily, opcintype, opcintype,
							   EI_NORMALIZE_PROC);
	if (OidIsValid(procid))
		return procid;
	procid = get_opfamily_proc(opfamily, opcintype, opcintype,
							   EI_NORMALIZE_PROC_V1);
	if (OidIsValid(procid) && get_func_nargs(procid) == 1 &&
		get_func_rettype(procid) == BYTEAOID)
		return procid;
	return InvalidOid;
}

/*
 * Can text under this collation be normalized?  Under C and POSIX the
 * order is the bytes' order.  A deterministic ICU collation orders by ICU
 * sort key and breaks ties by the bytes, as varstr_cmp does; both parts
 * are memcmp-comparable.  A libc collation's strxfrm is not trusted
 * (PostgreSQL itself disables abbreviated keys for it), and a
 * nondeterministic collation calls strings equal that differ in bytes.
 */
bool
EINormKeyCollationOK(Oid collation)
{
	pg_locale_t locale;

	if (!OidIsValid(collation))
		return false;
	if (EICollationIsC(collation))
		return true;
	locale = pg_newlocale_from_collation(collation);
#ifdef USE_ICU
	if (locale != NULL && locale->provider == COLLPROVIDER_ICU &&
		locale->deterministic)
		return true;
#endif
	return false;
}

/*
 * Does the normalize function procid encode values according to the
 * column's collation?  Those of the pattern classes (text_pattern_ops,
 * varchar_pattern_ops, bpchar_pattern_ops) do not: like the classes'
 * comparison functions they order bytes whatever the collation, so any
 * collation will do.  They are the normalize functions whose C symbol ends
 * in "_pattern" (src/am/normalize.c).
 */
bool
EINormalizeProcUsesCollation(Oid procid)
{
	static const char suffix[] = "_pattern";
	HeapTuple	tup;
	Datum		prosrc;
	bool		isnull;
	bool		uses = true;

	tup = SearchSysCache1(PROCOID, ObjectIdGetDatum(procid));
	if (!HeapTupleIsValid(tup))
		elog(ERROR, "cache lookup failed for function %u", procid);
	if (((Form_pg_proc) GETSTRUCT(tup))->prolang == ClanguageId)
	{
		prosrc = SysCacheGetAttr(PROCOID, tup, Anum_pg_proc_prosrc, &isnull);
		if (!isnull)
		{
			char	   *src = TextDatumGetCString(prosrc);
			size_t		len = strlen(src);

			if (len >= sizeof(suffix) - 1 &&
				strcmp(src + len - (sizeof(suffix) - 1), suffix) == 0)
				uses = false;
			pfree(src);
		}
	}
	ReleaseSysCache(tup);
	return uses;
}

/*
 * Width in bytes of the normalized encoding of every value of type typid,
 * or -1 if it varies.  A fixed-length type's encoding is as long as the
 * type (every fixed-width encoder in keynorm.h keeps the width), so keys of
 * such columns have one length and a NULL is padded to it (see
 * EINormalizeKey).  name (or a domain over it) is the exception: a string
 * in a fixed 64-byte buffer, encoded like text.
 */
int
EINormKeyTypeWidth(Oid typid)
{
	int			typlen = get_typlen(typid);

	if (getBaseType(typid) == NAMEOID)
		return -1;
	return typlen > 0 ? typlen : -1;
}
