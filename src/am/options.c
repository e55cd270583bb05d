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
static relopt_kind osm_relopt_kind;
static relopt_parse_elt osm_relopt_tab[7];

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

	/*
	 * osm_tree: every option defaults to -1, "use the osm_tree.* setting",
	 * so that SET and ALTER SYSTEM reach every index that does not override
	 * them.  PostgreSQL checks only values given, not defaults, against the
	 * range.
	 */
	osm_relopt_kind = add_reloption_kind();
	add_int_reloption(osm_relopt_kind, "fillfactor",
					  "Percentage of leaf page space filled by CREATE INDEX, bulk appends at the right edge and rightmost splits (osm_tree.fill_factor if unset)",
					  -1, EI_MIN_FILLFACTOR, 100, ShareUpdateExclusiveLock);
	osm_relopt_tab[0].optname = "fillfactor";
	osm_relopt_tab[0].opttype = RELOPT_TYPE_INT;
	osm_relopt_tab[0].offset = offsetof(EIOptions, fillfactor);

	add_real_reloption(osm_relopt_kind, "split_factor",
					   "Least share of a leaf the left page keeps when an entry of a sorted batch splits it among many keys that arrived early (osm_tree.split_factor if unset)",
					   -1, OSM_MIN_SPLIT_FACTOR, OSM_MAX_SPLIT_FACTOR,
					   ShareUpdateExclusiveLock);
	osm_relopt_tab[1].optname = "split_factor";
	osm_relopt_tab[1].opttype = RELOPT_TYPE_REAL;
	osm_relopt_tab[1].offset = offsetof(EIOptions, split_factor);

	add_int_reloption(osm_relopt_kind, "batch_size",
					  "Entries a transaction collects before it applies them to the index sorted, leaf by leaf; 1 inserts every entry at once (osm_tree.batch_size if unset)",
					  -1, 1, OSM_MAX_BATCH_SIZE, ShareUpdateExclusiveLock);
	osm_relopt_tab[2].optname = "batch_size";
	osm_relopt_tab[2].opttype = RELOPT_TYPE_INT;
	osm_relopt_tab[2].offset = offsetof(EIOptions, batch_size);

	add_int_reloption(osm_relopt_kind, "buffer_size",
					  "Pages of the insert buffer; 0 disables it (osm_tree.buffer_size if unset)",
					  -1, 0, OSM_MAX_BUFFER_SIZE, ShareUpdateExclusiveLock);
	osm_relopt_tab[3].optname = "buffer_size";
	osm_relopt_tab[3].opttype = RELOPT_TYPE_INT;
	osm_relopt_tab[3].offset = offsetof(EIOptions, buffer_size);

	add_real_reloption(osm_relopt_kind, "flush_fraction",
					   "Share of buffer_size one flush moves from the insert buffer into the tree (osm_tree.flush_fraction if unset)",
					   -1, OSM_MIN_FLUSH_FRACTION, 1.0, ShareUpdateExclusiveLock);
	osm_relopt_tab[4].optname = "flush_fraction";
	osm_relopt_tab[4].opttype = RELOPT_TYPE_REAL;
	osm_relopt_tab[4].offset = offsetof(EIOptions, flush_fraction);

	add_int_reloption(osm_relopt_kind, "bloom_bits_per_key",
					  "Bits per entry of the Bloom filter of each insert buffer page; 0 for none (osm_tree.bloom_bits_per_key if unset)",
					  -1, 0, OSM_MAX_BLOOM_BITS, ShareUpdateExclusiveLock);
	osm_relopt_tab[5].optname = "bloom_bits_per_key";
	osm_relopt_tab[5].opttype = RELOPT_TYPE_INT;
	osm_relopt_tab[5].offset = offsetof(EIOptions, bloom_bits_per_key);

	add_int_reloption(osm_relopt_kind, "sort_threshold",
					  "Unsorted entries on an insert buffer page at which a query that reads it sorts it; 0 disables query-driven sorting (osm_tree.sort_threshold if unset)",
					  -1, 0, OSM_MAX_SORT_THRESHOLD, ShareUpdateExclusiveLock);
	osm_relopt_tab[6].optname = "sort_threshold";
	osm_relopt_tab[6].opttype = RELOPT_TYPE_INT;
	osm_relopt_tab[6].offset = offsetof(EIOptions, sort_threshold);
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
 * Parse and validate the reloptions of an osm_tree index (amoptions).
 */
bytea *
osmoptions(Datum reloptions, bool validate)
{
	return (bytea *) build_reloptions(reloptions, validate, osm_relopt_kind,
									  sizeof(EIOptions), osm_relopt_tab,
									  lengthof(osm_relopt_tab));
}

/*
 * Leaf fill factor of an index, in percent: its fillfactor reloption, or the
 * default of its access method.
 */
int
EIGetFillFactor(Relation rel)
{
	EIOptions  *opts = (EIOptions *) rel->rd_options;

	if (EIRelIsOsm(rel))
		return (opts != NULL && opts->fillfactor > 0) ?
			opts->fillfactor : osm_fill_factor;
	return opts != NULL ? opts->fillfactor : EI_DEFAULT_FILLFACTOR;
}

/*
 * Least share of a leaf the left page keeps when an entry of a sorted batch
 * splits it among many keys that arrived early (core/insert.c,
 * ei_find_split_loc; elsewhere the split looks ahead at the batch):
 * split_factor for osm_tree, 0.5 for elastic_btree (which applies no
 * batches).
 */
double
EIGetSplitFactor(Relation rel)
{
	EIOptions  *opts = (EIOptions *) rel->rd_options;

	if (!EIRelIsOsm(rel))
		return 0.5;
	return (opts != NULL && opts->split_factor > 0) ?
		opts->split_factor : osm_split_factor;
}

/*
 * Entries a transaction collects for the index before applying them sorted;
 * 1 (elastic_btree always) means every entry goes in at once.
 */
int
EIGetBatchSize(Relation rel)
{
	EIOptions  *opts = (EIOptions *) rel->rd_options;

	if (!EIRelIsOsm(rel))
		return 1;
	return (opts != NULL && opts->batch_size > 0) ?
		opts->batch_size : osm_batch_size;
}

/*
 * Pages of an osm_tree's insert buffer (0: no buffer; elastic_btree never
 * has one).
 */
int
EIGetBufferSize(Relation rel)
{
	EIOptions  *opts = (EIOptions *) rel->rd_options;

	if (!EIRelIsOsm(rel))
		return 0;
	return (opts != NULL && opts->buffer_size >= 0) ?
		opts->buffer_size : osm_buffer_size;
}

/*
 * Share of buffer_size that one flush of an osm_tree's buffer moves.
 */
double
EIGetFlushFraction(Relation rel)
{
	EIOptions  *opts = (EIOptions *) rel->rd_options;

	return (opts != NULL && opts->flush_fraction > 0) ?
		opts->flush_fraction : osm_flush_fraction;
}

/*
 * Bits per entry of the Bloom filters of an osm_tree's buffer pages.
 */
int
EIGetBloomBitsPerKey(Relation rel)
{
	EIOptions  *opts = (EIOptions *) rel->rd_options;

	return (opts != NULL && opts->bloom_bits_per_key >= 0) ?
		opts->bloom_bits_per_key : osm_bloom_bits_per_key;
}

/*
 * Unsorted entries on an osm_tree buffer page at which a reading query
 * sorts the page; 0 means never.
 */
int
EIGetSortThreshold(Relation rel)
{
	EIOptions  *opts = (EIOptions *) rel->rd_options;

	return (opts != NULL && opts->sort_threshold >= 0) ?
		opts->sort_threshold : osm_sort_threshold;
}

/*
 * Which access method an index belongs to, as the metapage records it.
 */
uint32
EIRelAmKind(Relation rel)
{
	return EIRelIsOsm(rel) ? EI_AM_OSM_TREE : EI_AM_ELASTIC_BTREE;
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
