/*-------------------------------------------------------------------------
 *
 * options.c
 *	  osm_tree's settings: the osm_tree.* GUCs and the reloptions that
 *	  override them per index.
 *
 * Every reloption defaults to "unset" (-1, EI_RELOPT_UNSET for
 * deduplicate_items), "use the osm_tree.* setting", so that SET and ALTER
 * SYSTEM reach every index that does not override them; deduplicate_items
 * follows elastic_btree's rule (EIDedupChoice: unset, the setting gives
 * lists to builds, and inserts merge keys only in an index built with them).
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/reloptions.h"
#include "eiosm.h"
#include "miscadmin.h"
#include "utils/guc.h"

static relopt_kind osm_relopt_kind;
static relopt_parse_elt osm_relopt_tab[10];

/* osm_tree.fill_factor: leaf fill of bulk appends, builds, rightmost splits */
int			osm_fill_factor = 96;

/* osm_tree.split_factor: least share the left page keeps in a batch's split
 * among dense early keys (elsewhere the split looks ahead at the batch) */
double		osm_split_factor = 0.7;

/* osm_tree.batch_size: entries a transaction collects before applying them */
int			osm_batch_size = 100000;

/* osm_tree.batch_memory: kB a transaction's batches may take (-1: work_mem) */
int			osm_batch_memory = 8192;

/* osm_tree.buffer_size: pages of the insert buffer (0: no buffer) */
int			osm_buffer_size = 32;

/* osm_tree.flush_fraction: share of buffer_size one flush moves */
double		osm_flush_fraction = 0.5;

/* osm_tree.bloom_bits_per_key: Bloom filter bits per buffered entry */
int			osm_bloom_bits_per_key = 10;

/* osm_tree.sort_threshold: unsorted entries at which a query sorts a page */
int			osm_sort_threshold = 64;

/* osm_tree.top_inserts: entries for the rightmost leaf bypass the buffer */
bool		osm_top_inserts = true;

/* osm_tree.flush_worker: flush in a background worker, not in inserts */
bool		osm_flush_worker = true;

/* osm_tree.deduplicate_items: posting lists where the reloption is unset */
bool		osm_deduplicate_items = true;

/*
 * Refuse an osm_tree.batch_memory below OSM_MIN_BATCH_MEMORY other than -1.
 */
static bool
osm_check_batch_memory(int *newval, void **extra, GucSource source)
{
	if (*newval == -1 || *newval >= OSM_MIN_BATCH_MEMORY)
		return true;
	GUC_check_errcode(ERRCODE_INVALID_PARAMETER_VALUE);
	GUC_check_errdetail("osm_tree.batch_memory must be -1 (use work_mem) or at least %d kB.",
						OSM_MIN_BATCH_MEMORY);
	return false;
}

/*
 * Define the osm_tree.* settings; called from _PG_init.
 */
void
OsmInitGUCs(void)
{
	DefineCustomIntVariable("osm_tree.fill_factor",
							"Percentage of leaf page space filled by CREATE INDEX, bulk appends at the right edge and rightmost splits of osm_tree indexes.",
							"The fillfactor storage parameter of an index overrides it.",
							&osm_fill_factor,
							96, EI_MIN_FILLFACTOR, 100,
							PGC_USERSET, 0,
							NULL, NULL, NULL);

	DefineCustomRealVariable("osm_tree.split_factor",
							 "Least share of a leaf the left page keeps when an entry of a sorted batch splits an osm_tree leaf among many keys that arrived early.",
							 "The split_factor storage parameter of an index overrides it.",
							 &osm_split_factor,
							 0.7, OSM_MIN_SPLIT_FACTOR, OSM_MAX_SPLIT_FACTOR,
							 PGC_USERSET, 0,
							 NULL, NULL, NULL);

	DefineCustomIntVariable("osm_tree.batch_size",
							"Entries a transaction collects per osm_tree index before applying them sorted, leaf by leaf; 1 inserts each entry at once.",
							"The batch_size storage parameter of an index overrides it.",
							&osm_batch_size,
							100000, 1, OSM_MAX_BATCH_SIZE,
							PGC_USERSET, 0,
							NULL, NULL, NULL);

	DefineCustomIntVariable("osm_tree.batch_memory",
							"Memory a transaction's osm_tree batches may take, over all its indexes, before they are applied; -1 uses work_mem.",
							"Counts the entries' copies and the array that sorts them.",
							&osm_batch_memory,
							8192, -1, MAX_KILOBYTES,
							PGC_USERSET, GUC_UNIT_KB,
							osm_check_batch_memory, NULL, NULL);

	DefineCustomIntVariable("osm_tree.buffer_size",
							"Size of the insert buffer of osm_tree indexes; 0 disables it.",
							"New entries go to buffer pages in arrival order and are flushed into the tree in sorted steps.  The buffer_size storage parameter of an index overrides it.",
							&osm_buffer_size,
							32, 0, OSM_MAX_BUFFER_SIZE,
							PGC_USERSET, GUC_UNIT_BLOCKS,
							NULL, NULL, NULL);

	DefineCustomRealVariable("osm_tree.flush_fraction",
							 "Share of osm_tree.buffer_size that one flush moves from the insert buffer into the tree.",
							 "A background flush starts once that many pages are waiting.  The flush_fraction storage parameter of an index overrides it.",
							 &osm_flush_fraction,
							 0.5, OSM_MIN_FLUSH_FRACTION, 1.0,
							 PGC_USERSET, 0,
							 NULL, NULL, NULL);

	DefineCustomIntVariable("osm_tree.bloom_bits_per_key",
							"Bits per entry of the Bloom filter of each osm_tree insert buffer page; 0 for no filters.",
							"Applies to buffer pages made from then on.  The bloom_bits_per_key storage parameter of an index overrides it.",
							&osm_bloom_bits_per_key,
							10, 0, OSM_MAX_BLOOM_BITS,
							PGC_USERSET, 0,
							NULL, NULL, NULL);

	DefineCustomIntVariable("osm_tree.sort_threshold",
							"Unsorted entries on an osm_tree insert buffer page at which a query that reads the page sorts it first; 0 disables query-driven sorting.",
							"A sorted page is searched, not scanned.  Pages no query reads are never sorted before their flush.  The sort_threshold storage parameter of an index overrides it.",
							&osm_sort_threshold,
							64, 0, OSM_MAX_SORT_THRESHOLD,
							PGC_USERSET, 0,
							NULL, NULL, NULL);

	DefineCustomBoolVariable("osm_tree.top_inserts",
							 "Insert entries that belong in the rightmost leaf of an osm_tree index straight into it instead of into the insert buffer.",
							 "Keys that arrive in order then reach the tree through the predicted-leaf fast path, and the buffer holds only the out-of-order ones.",
							 &osm_top_inserts,
							 true,
							 PGC_USERSET, 0,
							 NULL, NULL, NULL);

	DefineCustomBoolVariable("osm_tree.flush_worker",
							 "Flush osm_tree insert buffers in a background worker once a flush's worth of pages is waiting.",
							 "When off, or when no worker slot is free, buffers are flushed by VACUUM, by osm_tree_flush(), and by the insert that finds the buffer full.",
							 &osm_flush_worker,
							 true,
							 PGC_USERSET, 0,
							 NULL, NULL, NULL);

	DefineCustomBoolVariable("osm_tree.deduplicate_items",
							 "Whether osm_tree indexes merge entries with equal keys into posting lists.",
							 "The index reloption deduplicate_items overrides it.",
							 &osm_deduplicate_items,
							 true,
							 PGC_USERSET, 0,
							 NULL, NULL, NULL);

	MarkGUCPrefixReserved("osm_tree");
}

/*
 * Register osm_tree's reloptions; called from _PG_init.
 */
void
OsmInitReloptions(void)
{
	osm_relopt_kind = add_reloption_kind();
	add_int_reloption(osm_relopt_kind, "fillfactor",
					  "Percentage of leaf page space filled by CREATE INDEX, bulk appends at the right edge and rightmost splits (osm_tree.fill_factor if unset)",
					  -1, EI_MIN_FILLFACTOR, 100, ShareUpdateExclusiveLock);
	osm_relopt_tab[0].optname = "fillfactor";
	osm_relopt_tab[0].opttype = RELOPT_TYPE_INT;
	osm_relopt_tab[0].offset = offsetof(OsmOptions, fillfactor);

	add_real_reloption(osm_relopt_kind, "split_factor",
					   "Least share of a leaf the left page keeps when an entry of a sorted batch splits it among many keys that arrived early (osm_tree.split_factor if unset)",
					   -1, OSM_MIN_SPLIT_FACTOR, OSM_MAX_SPLIT_FACTOR,
					   ShareUpdateExclusiveLock);
	osm_relopt_tab[1].optname = "split_factor";
	osm_relopt_tab[1].opttype = RELOPT_TYPE_REAL;
	osm_relopt_tab[1].offset = offsetof(OsmOptions, split_factor);

	add_int_reloption(osm_relopt_kind, "batch_size",
					  "Entries a transaction collects before it applies them to the index sorted, leaf by leaf; 1 inserts every entry at once (osm_tree.batch_size if unset)",
					  -1, 1, OSM_MAX_BATCH_SIZE, ShareUpdateExclusiveLock);
	osm_relopt_tab[2].optname = "batch_size";
	osm_relopt_tab[2].opttype = RELOPT_TYPE_INT;
	osm_relopt_tab[2].offset = offsetof(OsmOptions, batch_size);

	add_int_reloption(osm_relopt_kind, "buffer_size",
					  "Pages of the insert buffer; 0 disables it (osm_tree.buffer_size if unset)",
					  -1, 0, OSM_MAX_BUFFER_SIZE, ShareUpdateExclusiveLock);
	osm_relopt_tab[3].optname = "buffer_size";
	osm_relopt_tab[3].opttype = RELOPT_TYPE_INT;
	osm_relopt_tab[3].offset = offsetof(OsmOptions, buffer_size);

	add_real_reloption(osm_relopt_kind, "flush_fraction",
					   "Share of buffer_size one flush moves from the insert buffer into the tree (osm_tree.flush_fraction if unset)",
					   -1, OSM_MIN_FLUSH_FRACTION, 1.0, ShareUpdateExclusiveLock);
	osm_relopt_tab[4].optname = "flush_fraction";
	osm_relopt_tab[4].opttype = RELOPT_TYPE_REAL;
	osm_relopt_tab[4].offset = offsetof(OsmOptions, flush_fraction);

	add_int_reloption(osm_relopt_kind, "bloom_bits_per_key",
					  "Bits per entry of the Bloom filter of each insert buffer page; 0 for none (osm_tree.bloom_bits_per_key if unset)",
					  -1, 0, OSM_MAX_BLOOM_BITS, ShareUpdateExclusiveLock);
	osm_relopt_tab[5].optname = "bloom_bits_per_key";
	osm_relopt_tab[5].opttype = RELOPT_TYPE_INT;
	osm_relopt_tab[5].offset = offsetof(OsmOptions, bloom_bits_per_key);

	add_int_reloption(osm_relopt_kind, "sort_threshold",
					  "Unsorted entries on an insert buffer page at which a query that reads it sorts it; 0 disables query-driven sorting (osm_tree.sort_threshold if unset)",
					  -1, 0, OSM_MAX_SORT_THRESHOLD, ShareUpdateExclusiveLock);
	osm_relopt_tab[6].optname = "sort_threshold";
	osm_relopt_tab[6].opttype = RELOPT_TYPE_INT;
	osm_relopt_tab[6].offset = offsetof(OsmOptions, sort_threshold);

	/* as elastic_btree's (src/README.md, "Posting lists") */
	add_enum_reloption(osm_relopt_kind, "deduplicate_items",
					   "Merge entries with equal keys into posting lists (osm_tree.deduplicate_items if unset)",
					   EIOptionalBoolValues, EI_RELOPT_UNSET,
					   EI_OPTIONAL_BOOL_DETAIL, ShareUpdateExclusiveLock);
	osm_relopt_tab[7].optname = "deduplicate_items";
	osm_relopt_tab[7].opttype = RELOPT_TYPE_ENUM;
	osm_relopt_tab[7].offset = offsetof(OsmOptions, deduplicate_items);

	/*
	 * No setting: an index's own choice (src/README.md, "osm_tree").  Turning
	 * compact leaves on takes AccessExclusiveLock: a scan that started while
	 * full leaves shifted entries right (redistribute_leaves) skips the
	 * moved entries by their keys, which a compact leaf does not have, so
	 * no leaf may become compact while such a scan runs.
	 */
	add_bool_reloption(osm_relopt_kind, "compact_leaves",
					   "Write the leaves that bulk appends fill past the right edge as compact leaves (no keys, compressed heap TIDs)",
					   false, AccessExclusiveLock);
	osm_relopt_tab[8].optname = "compact_leaves";
	osm_relopt_tab[8].opttype = RELOPT_TYPE_BOOL;
	osm_relopt_tab[8].offset = offsetof(OsmOptions, compact_leaves);

	/*
	 * src/README.md, "Redistribution between sibling leaves".  Changing it
	 * takes AccessExclusiveLock: a scan keeps the bounds of the leaves it
	 * reads only if the index shifts entries when the scan starts, so no
	 * scan may run while shifts begin.
	 */
	add_bool_reloption(osm_relopt_kind, "redistribute_leaves",
					   "Let a full leaf give entries to its right sibling before it splits (not with compact_leaves)",
					   false, AccessExclusiveLock);
	osm_relopt_tab[9].optname = "redistribute_leaves";
	osm_relopt_tab[9].opttype = RELOPT_TYPE_BOOL;
	osm_relopt_tab[9].offset = offsetof(OsmOptions, redistribute_leaves);
}

/*
 * Parse and validate an osm_tree index's reloptions (amoptions).
 */
bytea *
osmoptions(Datum reloptions, bool validate)
{
	return (bytea *) build_reloptions(reloptions, validate, osm_relopt_kind,
									  sizeof(OsmOptions), osm_relopt_tab,
									  lengthof(osm_relopt_tab));
}

/*
 * The parsed reloptions of an osm_tree index, or NULL if it has none.
 * Another access method's rd_options has another layout: asking for it is
 * a bug in the caller.
 */
static OsmOptions *
osm_options(Relation rel)
{
	if (!EIRelIsOsm(rel))
		elog(ERROR, "index \"%s\" is not an osm_tree index",
			 RelationGetRelationName(rel));
	return (OsmOptions *) rel->rd_options;
}

/*
 * The leaf fill factor of an osm_tree index.
 */
int
OsmGetFillFactor(Relation rel)
{
	OsmOptions *opts = osm_options(rel);

	return (opts != NULL && opts->fillfactor > 0) ?
		opts->fillfactor : osm_fill_factor;
}

/*
 * The split factor of an osm_tree index.
 */
double
OsmGetSplitFactor(Relation rel)
{
	OsmOptions *opts = osm_options(rel);

	return (opts != NULL && opts->split_factor > 0) ?
		opts->split_factor : osm_split_factor;
}

/*
 * What these reloptions (NULL: none set) say of posting lists: the
 * deduplicate_items reloption once set, else osm_tree.deduplicate_items
 * (EI_DEDUP_IF_BUILT, as elastic_btree's EIElasticOptionsDeduplicate).
 */
EIDedupChoice
OsmOptionsDeduplicate(OsmOptions *opts)
{
	return EIDedupChoiceOf(opts != NULL ? opts->deduplicate_items :
						   EI_RELOPT_UNSET, osm_deduplicate_items);
}

/*
 * What an osm_tree index's deduplicate_items says of posting lists.
 */
EIDedupChoice
OsmGetDeduplicate(Relation rel)
{
	return OsmOptionsDeduplicate(osm_options(rel));
}

/*
 * What osminsert reads of an osm_tree's options for each entry, in one
 * look: the entries a transaction collects for the index before applying
 * them sorted (batch_size, else osm_tree.batch_size; 1 means every entry
 * goes in at once), returned, and whether it asks for compact leaves (as
 * OsmGetCompactLeaves).  Only for osm_tree's aminsert, whose index is an
 * osm_tree's by construction, so without osm_options' check.
 */
int
OsmGetInsertOptions(Relation rel, bool *compact_leaves)
{
	OsmOptions *opts = (OsmOptions *) rel->rd_options;

	Assert(EIRelIsOsm(rel));
	*compact_leaves = (opts != NULL && opts->compact_leaves);
	return (opts != NULL && opts->batch_size > 0) ?
		opts->batch_size : osm_batch_size;
}

/*
 * Bytes the transaction's batches may take together before they are
 * applied: osm_tree.batch_memory, or work_mem if that is -1.
 */
Size
OsmGetBatchMemory(void)
{
	int			kb = osm_batch_memory >= 0 ? osm_batch_memory : work_mem;

	return (Size) kb * 1024;
}

/*
 * Pages of an osm_tree's insert buffer (0: no buffer).
 */
int
OsmGetBufferSize(Relation rel)
{
	OsmOptions *opts = osm_options(rel);

	return (opts != NULL && opts->buffer_size >= 0) ?
		opts->buffer_size : osm_buffer_size;
}

/*
 * Share of buffer_size that one flush of an osm_tree's buffer moves.
 */
double
OsmGetFlushFraction(Relation rel)
{
	OsmOptions *opts = osm_options(rel);

	return (opts != NULL && opts->flush_fraction > 0) ?
		opts->flush_fraction : osm_flush_fraction;
}

/*
 * Bits per entry of the Bloom filters of an osm_tree's buffer pages.
 */
int
OsmGetBloomBitsPerKey(Relation rel)
{
	OsmOptions *opts = osm_options(rel);

	return (opts != NULL && opts->bloom_bits_per_key >= 0) ?
		opts->bloom_bits_per_key : osm_bloom_bits_per_key;
}

/*
 * Unsorted entries on an osm_tree buffer page at which a reading query
 * sorts the page; 0 means never.
 */
int
OsmGetSortThreshold(Relation rel)
{
	OsmOptions *opts = osm_options(rel);

	return (opts != NULL && opts->sort_threshold >= 0) ?
		opts->sort_threshold : osm_sort_threshold;
}

/*
 * Does an osm_tree index form compact leaves (the compact_leaves
 * reloption)?  Reads only rd_options, so it may run under buffer locks.
 */
bool
OsmGetCompactLeaves(Relation rel)
{
	OsmOptions *opts = osm_options(rel);

	return opts != NULL && opts->compact_leaves;
}

/*
 * May a full standard leaf of an osm_tree index give entries to its right
 * sibling (EITreePolicy.redistribute)?  With the redistribute_leaves
 * reloption, and never with compact leaves, which the scans' skip of moved
 * entries cannot read keys from.  Reads only rd_options.
 */
bool
OsmGetRedistribute(Relation rel)
{
	OsmOptions *opts = osm_options(rel);

	return opts != NULL && opts->redistribute_leaves && !opts->compact_leaves;
}
