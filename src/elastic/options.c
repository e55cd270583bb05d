/*-------------------------------------------------------------------------
 *
 * options.c
 *	  elastic_btree's reloptions: fillfactor, size_bound and
 *	  deduplicate_items.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/reloptions.h"
#include "eielastic.h"

static relopt_kind ei_relopt_kind;
static relopt_parse_elt ei_relopt_tab[3];

/*
 * Reject an invalid size_bound reloption with the accepted forms.
 */
static void
ei_validate_size_bound(const char *value)
{
	char	   *hint = NULL;

	if (value != NULL && value[0] == '\0')
		ereport(WARNING,
				(errcode(ERRCODE_WARNING_DEPRECATED_FEATURE),
				 errmsg("size_bound '' means no bound"),
				 errhint("Write size_bound = 'none'. An empty value is still read as 'none' so that dumps of older indexes restore.")));
	else if (value != NULL && !EIValidateSizeBound(value, &hint))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("invalid value for size_bound: \"%s\"", value),
				 errhint("%s", hint)));
}

/*
 * Register elastic_btree's reloptions; called from _PG_init.
 */
void
EIElasticInitReloptions(void)
{
	ei_relopt_kind = add_reloption_kind();
	add_int_reloption(ei_relopt_kind, "fillfactor",
					  "Percentage of leaf page space filled by CREATE INDEX and rightmost splits",
					  EI_DEFAULT_FILLFACTOR, EI_MIN_FILLFACTOR, 100,
					  ShareUpdateExclusiveLock);
	ei_relopt_tab[0].optname = "fillfactor";
	ei_relopt_tab[0].opttype = RELOPT_TYPE_INT;
	ei_relopt_tab[0].offset = offsetof(EIElasticOptions, fillfactor);

	add_string_reloption(ei_relopt_kind, "size_bound",
						 "Size bound of the index: a size such as '64MB', a share of the table's size such as '50%', or 'none' (elastic_btree.size_bound if unset)",
						 NULL, ei_validate_size_bound,
						 ShareUpdateExclusiveLock);
	ei_relopt_tab[1].optname = "size_bound";
	ei_relopt_tab[1].opttype = RELOPT_TYPE_STRING;
	ei_relopt_tab[1].offset = offsetof(EIElasticOptions, size_bound_offset);

	/* off until inserts and VACUUM handle posting lists (src/README.md) */
	add_bool_reloption(ei_relopt_kind, "deduplicate_items",
					   "Merge entries with equal keys into posting lists",
					   false, ShareUpdateExclusiveLock);
	ei_relopt_tab[2].optname = "deduplicate_items";
	ei_relopt_tab[2].opttype = RELOPT_TYPE_BOOL;
	ei_relopt_tab[2].offset = offsetof(EIElasticOptions, deduplicate_items);
}

/*
 * Parse and validate an elastic_btree index's reloptions (amoptions).
 */
bytea *
eioptions(Datum reloptions, bool validate)
{
	return (bytea *) build_reloptions(reloptions, validate, ei_relopt_kind,
									  sizeof(EIElasticOptions), ei_relopt_tab,
									  lengthof(ei_relopt_tab));
}

/*
 * The leaf fill factor of an elastic_btree index.
 */
int
EIElasticGetFillFactor(Relation rel)
{
	EIElasticOptions *opts = (EIElasticOptions *) rel->rd_options;

	return opts != NULL ? opts->fillfactor : EI_DEFAULT_FILLFACTOR;
}

/*
 * The size_bound reloption of an elastic_btree index, or NULL if unset.
 */
const char *
EIElasticGetSizeBound(Relation rel)
{
	EIElasticOptions *opts = (EIElasticOptions *) rel->rd_options;

	if (opts != NULL && opts->size_bound_offset != 0)
		return (const char *) opts + opts->size_bound_offset;
	return NULL;
}

/*
 * Does an elastic_btree index ask for posting lists (deduplicate_items)?
 */
bool
EIElasticGetDeduplicate(Relation rel)
{
	EIElasticOptions *opts = (EIElasticOptions *) rel->rd_options;

	return opts != NULL && opts->deduplicate_items;
}
