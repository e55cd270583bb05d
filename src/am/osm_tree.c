/*-------------------------------------------------------------------------
 *
 * osm_tree.c
 *	  The osm_tree access method: its handler, its settings, and its insert
 *	  callback, which hands entries to the per-transaction batch
 *	  (core/batch.c) instead of inserting them one by one.
 *
 * osm_tree is the shared tree core tuned for sorted and near-sorted
 * ingestion: entries a transaction inserts are sorted and applied leaf by
 * leaf (small batches go to the insert buffer, osm/buffer.c), runs past the right edge become whole new leaves filled to
 * osm_tree.fill_factor, and a leaf that a batch's run splits is left the
 * fill factor full once the run is in (or, among dense early keys, keeps at
 * least osm_tree.split_factor on the left).  Everything else (search,
 * scans, VACUUM, WAL) is the core's, exactly as for elastic_btree.  See
 * src/README.md, "osm_tree".
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/amapi.h"
#include "commands/vacuum.h"
#include "eitree.h"
#include "fmgr.h"
#include "utils/guc.h"

PG_FUNCTION_INFO_V1(osm_tree_handler);

/* osm_tree.fill_factor: leaf fill of bulk appends, builds, rightmost splits */
int			osm_fill_factor = 96;

/* osm_tree.split_factor: least share the left page keeps in a batch's split
 * among dense early keys (elsewhere the split looks ahead at the batch) */
double		osm_split_factor = 0.7;

/* osm_tree.batch_size: entries a transaction collects before applying them */
int			osm_batch_size = 100000;

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

	MarkGUCPrefixReserved("osm_tree");
}

/*
 * Insert one heap tuple's entry (aminsert): into the transaction's batch,
 * or at once where other backends must see it before we commit.
 *
 * An exclusion constraint's check in another backend searches the index
 * for our uncommitted entry in order to wait for us, so those indexes
 * (and any uniqueness check) take entries at once.  Serializable
 * transactions need nothing special: an access method without predicate
 * locks is checked for conflicts at the relation level by index_insert,
 * before this is called.
 */
bool
osminsert(Relation rel, Datum *values, bool *isnull, ItemPointer ht_ctid,
		  Relation heapRel, IndexUniqueCheck checkUnique, bool indexUnchanged,
		  IndexInfo *indexInfo)
{
	IndexTuple	itup;

	itup = index_form_tuple(RelationGetDescr(rel), values, isnull);
	itup->t_tid = *ht_ctid;

	if (checkUnique != UNIQUE_CHECK_NO || indexInfo == NULL ||
		indexInfo->ii_ExclusionOps != NULL)
		EIDoInsert(rel, itup, heapRel);
	else if (EIGetBatchSize(rel) > 1)
		EIBatchAdd(rel, heapRel, itup);
	else if (OsmBufferEnabled(rel))
		OsmBufferInsert(rel, heapRel, &itup, 1);
	else
		EIDoInsert(rel, itup, heapRel);
	pfree(itup);

	return false;
}

/*
 * Describe the access method to the server (the AM handler).  Only
 * aminsert and amoptions differ from elastic_btree.
 */
Datum
osm_tree_handler(PG_FUNCTION_ARGS)
{
	IndexAmRoutine *amroutine;

	amroutine = (IndexAmRoutine *) DatumGetPointer(DirectFunctionCall1(elastic_btree_handler,
																	   PointerGetDatum(NULL)));
	amroutine->aminsert = osminsert;
	amroutine->amoptions = osmoptions;
	/* a participant could return a buffered entry another read in the tree */
	amroutine->amcanparallel = false;

	PG_RETURN_POINTER(amroutine);
}
