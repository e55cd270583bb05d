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

	/* unset: elastic_btree.deduplicate_items decides */
	add_enum_reloption(ei_relopt_kind, "deduplicate_items",
					   "Merge entries with equal keys into posting lists (elastic_btree.deduplicate_items if unset)",
					   EIOptionalBoolValues, EI_RELOPT_UNSET,
					   EI_OPTIONAL_BOOL_DETAIL, ShareUpdateExclusiveLock);
	ei_relopt_tab[2].optname = "deduplicate_items";
	ei_relopt_tab[2].opttype = RELOPT_TYPE_ENUM;
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
 * What these reloptions (NULL: none set) say of posting lists: the
 * deduplicate_items reloption once set; unset, elastic_btree.deduplicate_items
 * gives lists to builds, and inserts merge keys only in an index built with
 * lists (or once given the reloption), so that an index built by an older
 * library or with the setting off keeps its format until REINDEX, as
 * btree's indexes from before deduplication do.
 */
EIDedupChoice
EIElasticOptionsDeduplicate(EIElasticOptions *opts)
{
	return EIDedupChoiceOf(opts != NULL ? opts->deduplicate_items :
						   EI_RELOPT_UNSET, ei_deduplicate_items);
}

/*
 * What an elastic_btree index's deduplicate_items says of posting lists.
 */
EIDedupChoice
EIElasticGetDeduplicate(Relation rel)
{
	return EIElasticOptionsDeduplicate((EIElasticOptions *) rel->rd_options);
}
