/*-------------------------------------------------------------------------
 *
 * validate.c
 *	  Operator class validator (amvalidate) for the tree's access methods.
 *
 * Our operator classes must look like btree's: strategies 1-5 are the
 * boolean <, <=, =, >=, > operators, support function 1 is a 3-way int4
 * comparison and the optional support function 2 a sort-support function.
 * The optional support function 3 is ours: it maps a value to bytes whose
 * memcmp order is the operator class's order (see src/core/normkey.c).
 * The planner relies on btree strategy numbers to use our indexes for
 * ordering, so a mismatch here would give wrong plans, not just slow ones.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/amvalidate.h"
#include "access/htup_details.h"
#include "catalog/pg_amop.h"
#include "catalog/pg_amproc.h"
#include "catalog/pg_opclass.h"
#include "catalog/pg_opfamily.h"
#include "catalog/pg_type.h"
#include "commands/defrem.h"
#include "eiam.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/regproc.h"
#include "utils/syscache.h"

/*
 * Report one problem with an operator family of the named access method
 * (elastic_btree or osm_tree, which share this validator) at INFO level,
 * as btvalidate does.
 */
static void
ei_validate_report(const char *amname, const char *opfamilyname,
				   const char *problem)
{
	ereport(INFO,
			(errcode(ERRCODE_INVALID_OBJECT_DEFINITION),
			 errmsg("operator family \"%s\" of access method %s %s",
					opfamilyname, amname, problem)));
}

/*
 * Return the name of an operator family.
 */
static char *
ei_opfamily_name(Oid opfamilyoid)
{
	HeapTuple	tup = SearchSysCache1(OPFAMILYOID, ObjectIdGetDatum(opfamilyoid));
	char	   *name;

	if (!HeapTupleIsValid(tup))
		elog(ERROR, "cache lookup failed for operator family %u", opfamilyoid);
	name = pstrdup(NameStr(((Form_pg_opfamily) GETSTRUCT(tup))->opfname));
	ReleaseSysCache(tup);
	return name;
}

/*
 * Validate an operator class and its family (amvalidate).
 */
bool
eivalidate(Oid opclassoid)
{
	bool		result = true;
	HeapTuple	classtup;
	Form_pg_opclass classform;
	Oid			opfamilyoid;
	Oid			opcintype;
	char	   *opfamilyname;
	char	   *amname;
	CatCList   *proclist;
	CatCList   *oprlist;
	bool		has_strategy[EI_NSTRATEGIES + 1] = {false};
	bool		has_cmp = false;
	int			i;

	classtup = SearchSysCache1(CLAOID, ObjectIdGetDatum(opclassoid));
	if (!HeapTupleIsValid(classtup))
		elog(ERROR, "cache lookup failed for operator class %u", opclassoid);
	classform = (Form_pg_opclass) GETSTRUCT(classtup);
	opfamilyoid = classform->opcfamily;
	opcintype = classform->opcintype;
	opfamilyname = ei_opfamily_name(opfamilyoid);
	amname = get_am_name(classform->opcmethod);
	if (amname == NULL)
		elog(ERROR, "cache lookup failed for access method %u",
			 classform->opcmethod);

	proclist = SearchSysCacheList1(AMPROCNUM, ObjectIdGetDatum(opfamilyoid));
	oprlist = SearchSysCacheList1(AMOPSTRATEGY, ObjectIdGetDatum(opfamilyoid));

	for (i = 0; i < proclist->n_members; i++)
	{
		HeapTuple	proctup = &proclist->members[i]->tuple;
		Form_pg_amproc procform = (Form_pg_amproc) GETSTRUCT(proctup);
		bool		ok;

		switch (procform->amprocnum)
		{
			case EI_CMP_PROC:
				ok = check_amproc_signature(procform->amproc, INT4OID, true,
											2, 2, procform->amproclefttype,
											procform->amprocrighttype);
				if (procform->amproclefttype == opcintype &&
					procform->amprocrighttype == opcintype)
					has_cmp = true;
				break;
			case EI_SORTSUPPORT_PROC:
				ok = check_amproc_signature(procform->amproc, VOIDOID, true,
											1, 1, INTERNALOID);
				break;
			case EI_EQUALIMAGE_PROC:
				ok = procform->amproclefttype == procform->amprocrighttype &&
					check_amproc_signature(procform->amproc, BOOLOID, true,
										   1, 1, OIDOID);
				break;
			case EI_NORMALIZE_PROC:
				ok = procform->amproclefttype == procform->amprocrighttype &&
					check_amproc_signature(procform->amproc, BYTEAOID, true,
										   1, 1, procform->amproclefttype);
				break;
			default:
				ei_validate_report(amname, opfamilyname,
								   psprintf("contains function %s with invalid support number %d",
											format_procedure(procform->amproc),
											procform->amprocnum));
				result = false;
				continue;
		}
		if (!ok)
		{
			ei_validate_report(amname, opfamilyname,
							   psprintf("contains function %s with wrong signature for support number %d",
										format_procedure(procform->amproc),
										procform->amprocnum));
			result = false;
		}
	}

	for (i = 0; i < oprlist->n_members; i++)
	{
		HeapTuple	oprtup = &oprlist->members[i]->tuple;
		Form_pg_amop oprform = (Form_pg_amop) GETSTRUCT(oprtup);

		if (oprform->amopstrategy < 1 || oprform->amopstrategy > EI_NSTRATEGIES ||
			oprform->amoppurpose != AMOP_SEARCH ||
			!check_amop_signature(oprform->amopopr, BOOLOID,
								  oprform->amoplefttype,
								  oprform->amoprighttype))
		{
			ei_validate_report(amname, opfamilyname,
							   psprintf("contains invalid operator %s for strategy %d",
										format_operator(oprform->amopopr),
										oprform->amopstrategy));
			result = false;
			continue;
		}
		if (oprform->amoplefttype == opcintype &&
			oprform->amoprighttype == opcintype)
			has_strategy[oprform->amopstrategy] = true;
	}

	for (i = 1; i <= EI_NSTRATEGIES; i++)
	{
		if (!has_strategy[i])
		{
			ei_validate_report(amname, opfamilyname,
							   psprintf("is missing operator for strategy %d on type %s",
										i, format_type_be(opcintype)));
			result = false;
		}
	}
	if (!has_cmp)
	{
		ei_validate_report(amname, opfamilyname,
						   psprintf("is missing support function 1 for type %s",
									format_type_be(opcintype)));
		result = false;
	}

	ReleaseCatCacheList(proclist);
	ReleaseCatCacheList(oprlist);
	ReleaseSysCache(classtup);

	return result;
}
