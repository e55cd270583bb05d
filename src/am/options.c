/*-------------------------------------------------------------------------
 *
 * options.c
 *	  Reloptions and build phase names shared by the tree's access methods.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/reloptions.h"
#include "commands/progress.h"
#include "eitree.h"

static relopt_kind ei_relopt_kind;
static relopt_parse_elt ei_relopt_tab[2];

/*
 * Reject an invalid size_bound reloption with the accepted forms.
 */
static void
ei_validate_size_bound(const char *value)
{
	char	   *hint = NULL;

	if (value != NULL && !EIValidateSizeBound(value, &hint))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("invalid value for size_bound: \"%s\"", value),
				 errhint("%s", hint)));
}

/*
 * Define our reloptions; called from _PG_init in every process.
 */
void
EIInitReloptions(void)
{
	ei_relopt_kind = add_reloption_kind();
	add_int_reloption(ei_relopt_kind, "fillfactor",
					  "Percentage of leaf page space filled by CREATE INDEX and rightmost splits",
					  EI_DEFAULT_FILLFACTOR, EI_MIN_FILLFACTOR, 100,
					  ShareUpdateExclusiveLock);
	ei_relopt_tab[0].optname = "fillfactor";
	ei_relopt_tab[0].opttype = RELOPT_TYPE_INT;
	ei_relopt_tab[0].offset = offsetof(EIOptions, fillfactor);

	add_string_reloption(ei_relopt_kind, "size_bound",
						 "Size bound of the index: a size such as '64MB' or a share of the table's size such as '50%' (elastic_btree.size_bound if unset)",
						 NULL, ei_validate_size_bound,
						 ShareUpdateExclusiveLock);
	ei_relopt_tab[1].optname = "size_bound";
	ei_relopt_tab[1].opttype = RELOPT_TYPE_STRING;
	ei_relopt_tab[1].offset = offsetof(EIOptions, size_bound_offset);
}

/*
 * Parse and validate reloptions (amoptions).
 */
bytea *
eioptions(Datum reloptions, bool validate)
{
	return (bytea *) build_reloptions(reloptions, validate, ei_relopt_kind,
									  sizeof(EIOptions), ei_relopt_tab,
									  lengthof(ei_relopt_tab));
}

/*
 * Name a build phase for pg_stat_progress_create_index (ambuildphasename).
 */
char *
eibuildphasename(int64 phasenum)
{
	switch (phasenum)
	{
		case PROGRESS_CREATEIDX_SUBPHASE_INITIALIZE:
			return "initializing";
		case EI_BUILD_PHASE_SCAN:
			return "scanning table";
		case EI_BUILD_PHASE_SORT:
			return "sorting";
		case EI_BUILD_PHASE_LOAD:
			return "loading tree";
		default:
			return NULL;
	}
}
