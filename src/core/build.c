/*-------------------------------------------------------------------------
 *
 * build.c
 *	  Bulk build of a tree (ambuild) and of the empty init fork of an
 *	  unlogged index (ambuildempty).
 *
 * A build scans the table, sorts the entries by (keys, heap TID) with a
 * tuplesort that spills to disk beyond maintenance_work_mem, and then loads
 * the tree bottom-up, as nbtree does: leaves are filled left to right, and
 * whenever a page is finished its right neighbour's downlink goes to the
 * level above, which grows the same way.  Pages are written through shared
 * buffers (nobody else reads the index before the build commits) and
 * WAL-logged as full-page images once the whole tree exists.
 *
 * A page is finished with a high key that is the pivot of the first item of
 * the next page, so room for that pivot must be kept before the next item
 * is known to go elsewhere.  Each level therefore holds back one item until
 * its successor arrives: an item goes on the current page only if the
 * page can still take its successor's pivot as high key afterwards.
 *
 * A parallel build (set up as nbtree's, nbtsort.c) has the workers and the
 * leader scan the table together, each sorting its share in memory as a
 * serial build does and writing it as sorted runs to a shared file set (the
 * leader keeps its last run in memory); the leader merges the runs and
 * loads the tree alone, exactly as a serial build loads its sorted entries.
 * Both sort by (keys, heap TID), a total order, so both write the same
 * tree.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/nbtree.h"
#include "access/parallel.h"
#include "access/table.h"
#include "access/tableam.h"
#include "access/xact.h"
#include "access/xloginsert.h"
#include "catalog/index.h"
#include "catalog/pg_index.h"
#include "catalog/pg_operator_d.h"
#include "catalog/pg_type_d.h"
#include "commands/progress.h"
#include "eicompat.h"
#include "eitree.h"
#include "executor/instrument.h"
#include "executor/tuptable.h"
#include "lib/binaryheap.h"
#include "miscadmin.h"
#include "pgstat.h"
#include "storage/buffile.h"
#include "storage/bufmgr.h"
#include "storage/condition_variable.h"
#include "storage/proc.h"
#include "storage/sharedfileset.h"
#include "storage/smgr.h"
#include "storage/spin.h"
#include "tcop/tcopprot.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/regproc.h"
#include "utils/rel.h"
#include "utils/snapmgr.h"
#include "utils/sortsupport.h"
#include "utils/tuplesort.h"

/* Keys of a parallel build's entries in its DSM segment's table of contents */
#define EI_PARALLEL_KEY_SHARED			UINT64CONST(0xE1B0000000000001)
#define EI_PARALLEL_KEY_RUNS			UINT64CONST(0xE1B0000000000002)
#define EI_PARALLEL_KEY_QUERY_TEXT		UINT64CONST(0xE1B0000000000003)
#define EI_PARALLEL_KEY_WAL_USAGE		UINT64CONST(0xE1B0000000000004)
#define EI_PARALLEL_KEY_BUFFER_USAGE	UINT64CONST(0xE1B0000000000005)

/*
 * State of a parallel build shared by the leader and its workers (nbtree's
 * BTShared), followed in the segment by the parallel table scan's state.
 */
typedef struct EIBuildShared
{
	/* set by the leader before the workers start, then read-only */
	Oid			heaprelid;
	Oid			indexrelid;
	bool		isconcurrent;	/* CREATE INDEX CONCURRENTLY (MVCC snapshot) */
	int			scantuplesortstates;	/* participants planned, leader
										 * included: divides
										 * maintenance_work_mem */
	uint64		queryid;		/* the leader's, reported by the workers */

	/* signalled by each participant when its share is sorted */
	ConditionVariable workersdonecv;

	/* protected by mutex: the participants' results, added up */
	slock_t		mutex;
	int			nparticipantsdone;
	double		reltuples;		/* heap tuples scanned */
	double		indtuples;		/* entries sorted */
	bool		brokenhotchain; /* some participant saw a broken HOT chain */
} EIBuildShared;

/*
 * The sorted runs of a parallel build's participants: files in a shared
 * file set, named by ei_build_run_name, each a sequence of formed entries
 * in the tree's order; nruns[p] is the count participant p wrote (the
 * workers are 0 to nworkers - 1, the leader is the last).
 */
typedef struct EIBuildRuns
{
	SharedFileSet fileset;
	int			nruns[FLEXIBLE_ARRAY_MEMBER];	/* one per participant */
} EIBuildRuns;

/* One sorted run as the leader merges it: a file, or the leader's memory. */
typedef struct EIMergeRun
{
	BufFile    *file;			/* the run's file, or NULL */
	EISortEntry *mem;			/* else its entries in memory */
	int64		nmem;
	int64		pos;			/* next entry of mem */
	EISortEntry cur;			/* the run's smallest entry not yet loaded */
} EIMergeRun;

/* The leader's merge of the sorted runs: a heap of run numbers. */
typedef struct EIMerge
{
	EIEntrySort cmp;			/* comparison without abbreviated keys */
	EIMergeRun *runs;
	binaryheap *heap;			/* runs not yet exhausted, smallest entry
								 * first */
} EIMerge;

/* The parallel table scan's state, after the shared build state. */
#define EIBuildSharedScan(shared) \
	((ParallelTableScanDesc) ((char *) (shared) + \
							  BUFFERALIGN(sizeof(EIBuildShared))))

/* The leader's view of a parallel build (nbtree's BTLeader). */
typedef struct EIBuildLeader
{
	ParallelContext *pcxt;
	int			nparticipants;	/* participants that sort: launched workers
								 * and the leader */
	EIBuildShared *shared;
	EIBuildRuns *runs;
	Snapshot	snapshot;		/* the scan's: SnapshotAny, or registered MVCC */
	WalUsage   *walusage;		/* one per worker */
	BufferUsage *bufferusage;	/* one per worker */
} EIBuildLeader;

/* State of the table scan that feeds the sort. */
typedef struct EIBuildState
{
	Relation	heap;
	Relation	index;
	int			nkeys;			/* key columns of the index */
	int			natts;			/* key and INCLUDE columns */
	Tuplesortstate *sort;		/* rows: key columns, then heap TID */
	TupleDesc	sortdesc;
	TupleTableSlot *inslot;		/* virtual slot that feeds the sort */
	MemoryContext tmpcxt;		/* reset after every heap tuple */
	double		indtuples;		/* entries fed into the sort */

	/*
	 * Entries are first kept in memory as formed index tuples and sorted with
	 * qsort; only if they outgrow maintenance_work_mem do they all go to the
	 * tuplesort above, which can spill to disk.
	 */
	bool		spilled;		/* true once the tuplesort is in use */
	bool		sortvalues;		/* the tuplesort may take the scan's values
								 * as they are (ei_build_values_as_stored) */
	Size		keysize;		/* then: the columns' data, without NULLs */
	MemoryContext memcxt;		/* holds the in-memory entries */
	EISortEntry *memtuples;
	int64		nmem;
	int64		memcap;
	Size		memused;
	Size		memlimit;
	EIEntrySort esort;			/* how to sort them (core/sort.c) */

	/* a parallel build's participant writes sorted runs instead of spilling */
	EIBuildRuns *runs;			/* the shared runs, or NULL */
	int			participant;	/* its number in runs->nruns */

	EIBuildLeader *leader;		/* a parallel build's, or NULL */
	EIMerge    *merge;			/* the leader's merge of the runs, or NULL */
} EIBuildState;

/* One level of the tree while it is loaded. */
typedef struct EILoadLevel
{
	uint32		level;			/* 0 for leaves */
	Page		page;			/* page being filled, in local memory */
	Buffer		buf;			/* its block, pinned and still all zeroes */
	BlockNumber blkno;			/* block number of buf */
	BlockNumber firstblkno;		/* leftmost page of the level */
	int			ndata;			/* data items on the page so far */
	Size		slack;			/* free space each page keeps (fill factor) */
	IndexTuple	pending;		/* item held back until its successor comes */
	struct EILoadLevel *parent; /* level above, once this one has two pages */
} EILoadLevel;

/* State of the bottom-up load. */
typedef struct EILoadState
{
	Relation	index;
	int			fillfactor;		/* leaf fill factor, in percent */
	EILoadLevel *leaf;			/* level 0; higher levels hang off it */

	/*
	 * Posting lists (src/README.md, "Posting lists"): with dedup, a run of
	 * entries with equal keys is held back as base (its first entry) and
	 * the TIDs so far, and goes to the leaf level as one list.
	 */
	bool		dedup;
	EIPostingRun run;

	/*
	 * Leaves in the policy's kind (build_leaves; src/README.md, "Compact
	 * leaves in osm_tree"): the leaf level's entries are collected here
	 * until they hold more heap TIDs than any leaf of the kind takes, then
	 * formed into one (EIFormKindLeaf) of as many as fill_count says.
	 */
	const EILeafKindOps *kind;	/* NULL: standard leaves only */
	IndexTuple *kindents;		/* EI_MAX_ITEMS_PER_PAGE + 1 at most */
	int			nkindents;
	int			nkindtids;		/* heap TIDs kindents hold */
	int64		nkindleaves;	/* leaves formed in the kind */

	/*
	 * Measuring (build_leaves said EI_BUILD_MEASURE): standard leaves
	 * closed so far, and the sorted entries read when the last one closed.
	 */
	bool		measure;
	double		loaded;			/* sorted entries read so far */
	int64		nleaves;		/* leaves closed */
	double		loaded_at_close;	/* loaded when the last one closed */
} EILoadState;

static IndexBuildResult *ei_build_tree(Relation heap, Relation index,
									   IndexInfo *indexInfo, uint32 am_kind);
static void ei_build_begin_sort(EIBuildState *bstate, int workmem);
static void ei_build_begin_parallel(EIBuildState *bstate, bool isconcurrent,
									int request);
static void ei_build_end_parallel(EIBuildLeader *leader);
static double ei_build_parallel_wait(EIBuildState *bstate,
									 bool *brokenhotchain);
static void ei_build_scan_and_sort(EIBuildState *bstate,
								   EIBuildShared *shared, EIBuildRuns *runs,
								   int participant, int sortmem,
								   bool progress);
static void ei_build_memory_begin(EIBuildState *bstate, Size memlimit);
static void ei_build_run_name(char *name, int participant, int run);
static void ei_build_write_run(EIBuildState *bstate);
static void ei_build_merge_begin(EIBuildState *bstate);
static bool ei_build_merge_read(EIMerge *merge, EIMergeRun *run);
static int	ei_build_merge_cmp(Datum a, Datum b, void *arg);
static IndexTuple ei_build_merge_next(EIMerge *merge);
static void ei_build_merge_end(EIMerge *merge);
static void ei_build_put_sorted(EIBuildState *bstate, IndexTuple itup);
static void ei_build_spill(EIBuildState *bstate);
static bool ei_build_values_as_stored(Relation index, Size *keysize);
static void ei_build_sort_memory(EIBuildState *bstate);
static void ei_build_callback(Relation index, ItemPointer tid, Datum *values,
							  bool *isnull, bool tupleIsAlive, void *state);
static void ei_load_tree(EIBuildState *bstate, uint32 am_kind);
static IndexTuple ei_load_copy_sorted(EIBuildState *bstate,
									  TupleTableSlot *slot);
static Buffer ei_load_extend(Relation index);
static EILoadLevel *ei_load_new_level(EILoadState *lstate, uint32 level);
static void ei_load_add(EILoadState *lstate, EILoadLevel *lvl, IndexTuple itup);
static void ei_load_entry(EILoadState *lstate, IndexTuple itup);
static void ei_load_flush_run(EILoadState *lstate);
static void ei_load_place(EILoadState *lstate, EILoadLevel *lvl,
						  IndexTuple itup, IndexTuple next);
static void ei_load_kind_leaves(EILoadState *lstate);
static int	ei_load_kind_unfit(EILoadState *lstate, IndexTuple *ents, int n);
static void ei_load_kind_begin(EILoadState *lstate,
							   const EILeafKindOps *kind);
static void ei_load_kind_end(EILoadState *lstate);
static void ei_load_close_page(EILoadState *lstate, EILoadLevel *lvl,
							   IndexTuple hikey);
static void ei_load_next_page(EILoadState *lstate, EILoadLevel *lvl,
							  IndexTuple first);
static void ei_load_write_page(EILoadState *lstate, EILoadLevel *lvl);
static Size ei_load_hikey_size(IndexTuple itup, bool isleaf);
static void ei_load_finish(EILoadState *lstate);

/*
 * Build a new index of either access method from the rows of its table
 * (ambuild).  The policy first says what it must (build_begin: the
 * elastic policy notes an index that can never have compact leaves).
 */
IndexBuildResult *
eibuild(Relation heap, Relation index, IndexInfo *indexInfo)
{
	const EITreePolicy *policy = EIGetPolicyChecked(index);

	if (policy->build_begin)
		policy->build_begin(index);

	return ei_build_tree(heap, index, indexInfo, policy->am_kind);
}

/*
 * Write the init fork of an unlogged index: a metapage and an empty root leaf
 * (ambuildempty).
 */
void
eibuildempty(Relation index)
{
	EIAlignedBlock block;
	Page		page = (Page) block.data;

	EICheckPreloaded();

	/*
	 * block 0: the metapage, pointing at the root leaf in block 1, with the
	 * format version the main fork's build wrote (the index that crash
	 * recovery resets to this fork goes on deduplicating as it did)
	 */
	EIInitMetaPage(page, EIRelAmKind(index), 1, 0, EIGetFillFactor(index));
	if (EIGetDeduplicate(index, true))
		EIPageGetMeta(page)->version = EI_VERSION_POSTING;
	PageSetChecksumInplace(page, EI_METAPAGE);
	smgrextend(RelationGetSmgr(index), INIT_FORKNUM, EI_METAPAGE,
			   (char *) page, true);
	log_newpage(&EISmgrLocator(RelationGetSmgr(index)), INIT_FORKNUM,
				EI_METAPAGE, page, true);

	/* block 1: the empty root leaf */
	EIInitPage(page, EI_LEAF | EI_ROOT, 0);
	PageSetChecksumInplace(page, 1);
	smgrextend(RelationGetSmgr(index), INIT_FORKNUM, 1, (char *) page, true);
	log_newpage(&EISmgrLocator(RelationGetSmgr(index)), INIT_FORKNUM,
				1, page, true);

	/*
	 * The pages bypassed shared buffers, so a checkpoint cannot have flushed
	 * them; sync them now, or a crash right after the checkpoint that follows
	 * our WAL records would lose them.
	 */
	smgrimmedsync(RelationGetSmgr(index), INIT_FORKNUM);
}

/*
 * Build a tree serving the given access method kind: scan, sort, load.
 *
 * With parallel workers (planned as eicompat.h's EIBuildParallelWorkers
 * says, and launched) the scan and the sort are shared and the leader
 * merges; otherwise, or if no worker could be launched, the build is
 * serial.
 */
static IndexBuildResult *
ei_build_tree(Relation heap, Relation index, IndexInfo *indexInfo,
			  uint32 am_kind)
{
	EIBuildState bstate;
	IndexBuildResult *result;
	double		reltuples;
	int			nworkers;

	EICheckPreloaded();

	if (RelationGetNumberOfBlocks(index) != 0)
		elog(ERROR, "index \"%s\" already contains data",
			 RelationGetRelationName(index));

	memset(&bstate, 0, sizeof(bstate));
	bstate.heap = heap;
	bstate.index = index;
	bstate.nkeys = IndexRelationGetNumberOfKeyAttributes(index);
	bstate.natts = IndexRelationGetNumberOfAttributes(index);
	bstate.tmpcxt = AllocSetContextCreate(CurrentMemoryContext,
										  "elastic_index build tuple",
										  ALLOCSET_DEFAULT_SIZES);

	pgstat_progress_update_param(PROGRESS_CREATEIDX_SUBPHASE,
								 EI_BUILD_PHASE_SCAN);

	/* try to start parallel workers; the leader takes its share of the scan */
	nworkers = EIBuildParallelWorkers(heap, index, indexInfo);
	if (nworkers > 0)
		ei_build_begin_parallel(&bstate, indexInfo->ii_Concurrent, nworkers);

	if (bstate.leader != NULL)
	{
		/* the leader's own share is sorted and kept in memory: wait for all */
		reltuples = ei_build_parallel_wait(&bstate,
										   &indexInfo->ii_BrokenHotChain);
	}
	else
	{
		ei_build_begin_sort(&bstate, maintenance_work_mem);
		/* the same orderings, for sorting formed tuples in memory */
		ei_build_memory_begin(&bstate, (Size) maintenance_work_mem * 1024);

		/* scan the table; the callback feeds the sort */
		reltuples = table_index_build_scan(heap, index, indexInfo, true, true,
										   ei_build_callback, &bstate, NULL);
	}

	{
		/* the sort's target, and the scan's block counts reset, as nbtree */
		const int	index_params[] = {
			PROGRESS_CREATEIDX_SUBPHASE,
			PROGRESS_CREATEIDX_TUPLES_TOTAL,
			PROGRESS_SCAN_BLOCKS_TOTAL,
			PROGRESS_SCAN_BLOCKS_DONE
		};
		const int64 vals[] = {
			EI_BUILD_PHASE_SORT,
			(int64) bstate.indtuples,
			0, 0
		};

		pgstat_progress_update_multi_param(4, index_params, vals);
		EIFaultGate(EI_FAULT_BUILD_PHASE_GATE, EI_BUILD_PHASE_SORT);
	}
	if (bstate.leader != NULL)
		ei_build_merge_begin(&bstate);
	else if (bstate.spilled)
		tuplesort_performsort(bstate.sort);
	else
		ei_build_sort_memory(&bstate);

	pgstat_progress_update_param(PROGRESS_CREATEIDX_SUBPHASE,
								 EI_BUILD_PHASE_LOAD);
	EIFaultGate(EI_FAULT_BUILD_PHASE_GATE, EI_BUILD_PHASE_LOAD);
	ei_load_tree(&bstate, am_kind);

	if (bstate.sort != NULL)
		tuplesort_end(bstate.sort);
	/* the participants' runs live in the parallel context: end it after */
	if (bstate.leader != NULL)
	{
		ei_build_merge_end(bstate.merge);
		ei_build_end_parallel(bstate.leader);
	}
	if (bstate.inslot != NULL)
		ExecDropSingleTupleTableSlot(bstate.inslot);
	MemoryContextDelete(bstate.tmpcxt);
	if (bstate.memcxt != NULL)
		MemoryContextDelete(bstate.memcxt);

	result = (IndexBuildResult *) palloc(sizeof(IndexBuildResult));
	result->heap_tuples = reltuples;
	result->index_tuples = bstate.indtuples;
	return result;
}

/*
 * Set up the sort: one column per index column, plus the heap TID, with
 * workmem kilobytes of memory; it orders by the key columns and the heap
 * TID, and carries INCLUDE columns along unsorted.
 */
static void
ei_build_begin_sort(EIBuildState *bstate, int workmem)
{
	Relation	index = bstate->index;
	TupleDesc	itupdesc = RelationGetDescr(index);
	int			nkeys = bstate->nkeys;
	int			natts = bstate->natts;
	int			ncols = natts + 1;
	int			nsortkeys = nkeys + 1;
	AttrNumber *attnums = palloc(sizeof(AttrNumber) * nsortkeys);
	Oid		   *sortops = palloc(sizeof(Oid) * nsortkeys);
	Oid		   *collations = palloc(sizeof(Oid) * nsortkeys);
	bool	   *nullsfirst = palloc(sizeof(bool) * nsortkeys);
	int			i;

	bstate->sortdesc = CreateTemplateTupleDesc(ncols);
	for (i = 0; i < natts; i++)
		TupleDescCopyEntry(bstate->sortdesc, i + 1, itupdesc, i + 1);
	for (i = 0; i < nkeys; i++)
	{
		attnums[i] = i + 1;
		sortops[i] = EISortOperator(index, i);
		collations[i] = index->rd_indcollation[i];
		nullsfirst[i] = (index->rd_indoption[i] & INDOPTION_NULLS_FIRST) != 0;
	}
	TupleDescInitEntry(bstate->sortdesc, ncols, "heap_tid", TIDOID, -1, 0);
	attnums[nkeys] = ncols;
	sortops[nkeys] = TIDLessOperator;
	collations[nkeys] = InvalidOid;
	nullsfirst[nkeys] = false;

	bstate->sort = tuplesort_begin_heap(bstate->sortdesc, nsortkeys, attnums,
										sortops, collations, nullsfirst,
										workmem, NULL, TUPLESORT_NONE);
	bstate->sortvalues = ei_build_values_as_stored(index, &bstate->keysize);
	bstate->inslot = MakeSingleTupleTableSlot(bstate->sortdesc,
											  &TTSOpsVirtual);
}

/*
 * Start a parallel build with up to request workers, as nbtree's
 * _bt_begin_parallel does: set up the shared state, the shared sort and the
 * parallel table scan, launch the workers, and scan and sort the leader's
 * own share.  Leaves bstate->leader NULL (a serial build follows) if no
 * DSM segment or no worker could be had.
 */
static void
ei_build_begin_parallel(EIBuildState *bstate, bool isconcurrent, int request)
{
	Relation	heap = bstate->heap;
	Relation	index = bstate->index;
	ParallelContext *pcxt;
	int			scantuplesortstates;
	Snapshot	snapshot;
	Size		estshared;
	Size		estruns;
	EIBuildShared *shared;
	EIBuildRuns *runs;
	EIBuildLeader *leader;
	WalUsage   *walusage;
	BufferUsage *bufferusage;
	int			querylen = 0;

	EnterParallelMode();
	Assert(request > 0);
	pcxt = CreateParallelContext("elastic_index", "ei_parallel_build_main",
								 request);

	/* the leader sorts a share too */
	scantuplesortstates = request + 1;

	/*
	 * A plain build reads every tuple (SnapshotAny) and checks visibility
	 * itself, to index RECENTLY_DEAD tuples too; a concurrent build indexes
	 * what a fresh MVCC snapshot sees.
	 */
	if (!isconcurrent)
		snapshot = SnapshotAny;
	else
		snapshot = RegisterSnapshot(GetTransactionSnapshot());

	estshared = add_size(BUFFERALIGN(sizeof(EIBuildShared)),
						 table_parallelscan_estimate(heap, snapshot));
	shm_toc_estimate_chunk(&pcxt->estimator, estshared);
	estruns = add_size(offsetof(EIBuildRuns, nruns),
					   mul_size(sizeof(int), scantuplesortstates));
	shm_toc_estimate_chunk(&pcxt->estimator, estruns);
	shm_toc_estimate_keys(&pcxt->estimator, 2);

	/* the workers' WAL and buffer usage, added to the leader's at the end */
	shm_toc_estimate_chunk(&pcxt->estimator,
						   mul_size(sizeof(WalUsage), pcxt->nworkers));
	shm_toc_estimate_keys(&pcxt->estimator, 1);
	shm_toc_estimate_chunk(&pcxt->estimator,
						   mul_size(sizeof(BufferUsage), pcxt->nworkers));
	shm_toc_estimate_keys(&pcxt->estimator, 1);

	/* the query text, which the workers show in pg_stat_activity */
	if (debug_query_string)
	{
		querylen = strlen(debug_query_string);
		shm_toc_estimate_chunk(&pcxt->estimator, querylen + 1);
		shm_toc_estimate_keys(&pcxt->estimator, 1);
	}

	InitializeParallelDSM(pcxt);

	/* no DSM segment: build serially */
	if (pcxt->seg == NULL)
	{
		if (IsMVCCSnapshot(snapshot))
			UnregisterSnapshot(snapshot);
		DestroyParallelContext(pcxt);
		ExitParallelMode();
		return;
	}

	shared = (EIBuildShared *) shm_toc_allocate(pcxt->toc, estshared);
	shared->heaprelid = RelationGetRelid(heap);
	shared->indexrelid = RelationGetRelid(index);
	shared->isconcurrent = isconcurrent;
	shared->scantuplesortstates = scantuplesortstates;
	shared->queryid = pgstat_get_my_query_id();
	ConditionVariableInit(&shared->workersdonecv);
	SpinLockInit(&shared->mutex);
	shared->nparticipantsdone = 0;
	shared->reltuples = 0.0;
	shared->indtuples = 0.0;
	shared->brokenhotchain = false;
	table_parallelscan_initialize(heap, EIBuildSharedScan(shared), snapshot);

	/* the runs' files go away when the last participant detaches */
	runs = (EIBuildRuns *) shm_toc_allocate(pcxt->toc, estruns);
	memset(runs->nruns, 0, sizeof(int) * scantuplesortstates);
	SharedFileSetInit(&runs->fileset, pcxt->seg);

	shm_toc_insert(pcxt->toc, EI_PARALLEL_KEY_SHARED, shared);
	shm_toc_insert(pcxt->toc, EI_PARALLEL_KEY_RUNS, runs);

	if (debug_query_string)
	{
		char	   *sharedquery;

		sharedquery = (char *) shm_toc_allocate(pcxt->toc, querylen + 1);
		memcpy(sharedquery, debug_query_string, querylen + 1);
		shm_toc_insert(pcxt->toc, EI_PARALLEL_KEY_QUERY_TEXT, sharedquery);
	}

	walusage = shm_toc_allocate(pcxt->toc,
								mul_size(sizeof(WalUsage), pcxt->nworkers));
	shm_toc_insert(pcxt->toc, EI_PARALLEL_KEY_WAL_USAGE, walusage);
	bufferusage = shm_toc_allocate(pcxt->toc,
								   mul_size(sizeof(BufferUsage), pcxt->nworkers));
	shm_toc_insert(pcxt->toc, EI_PARALLEL_KEY_BUFFER_USAGE, bufferusage);

	LaunchParallelWorkers(pcxt);

	leader = (EIBuildLeader *) palloc0(sizeof(EIBuildLeader));
	leader->pcxt = pcxt;
	leader->nparticipants = pcxt->nworkers_launched + 1;
	leader->shared = shared;
	leader->runs = runs;
	leader->snapshot = snapshot;
	leader->walusage = walusage;
	leader->bufferusage = bufferusage;

	/* no worker could be launched: build serially */
	if (pcxt->nworkers_launched == 0)
	{
		ei_build_end_parallel(leader);
		return;
	}

	ereport(DEBUG1,
			(errmsg_internal("elastic_index: building index \"%s\" with %d of %d parallel workers launched",
							 RelationGetRelationName(index),
							 pcxt->nworkers_launched, request)));
	bstate->leader = leader;

	/*
	 * Scan and sort the leader's share, with the memory of one participant
	 * among those that really sort (more than a worker's when fewer workers
	 * started than planned); its last run stays in bstate's memory.
	 */
	ei_build_scan_and_sort(bstate, shared, runs, scantuplesortstates - 1,
						   maintenance_work_mem / leader->nparticipants, true);

	/* a worker that failed to start would otherwise be waited for forever */
	WaitForParallelWorkersToAttach(pcxt);
}

/*
 * Wait for the workers to finish, add their WAL and buffer usage to the
 * leader's, and end the parallel context and parallel mode.
 */
static void
ei_build_end_parallel(EIBuildLeader *leader)
{
	int			i;

	WaitForParallelWorkersToFinish(leader->pcxt);
	for (i = 0; i < leader->pcxt->nworkers_launched; i++)
		InstrAccumParallelQuery(&leader->bufferusage[i], &leader->walusage[i]);
	if (IsMVCCSnapshot(leader->snapshot))
		UnregisterSnapshot(leader->snapshot);
	DestroyParallelContext(leader->pcxt);
	ExitParallelMode();
}

/*
 * In the leader, wait until every participant has scanned and sorted its
 * share; return the heap tuples scanned, and set bstate->indtuples and (if
 * any participant saw one) *brokenhotchain.
 */
static double
ei_build_parallel_wait(EIBuildState *bstate, bool *brokenhotchain)
{
	EIBuildShared *shared = bstate->leader->shared;
	double		reltuples;

	for (;;)
	{
		SpinLockAcquire(&shared->mutex);
		if (shared->nparticipantsdone == bstate->leader->nparticipants)
		{
			bstate->indtuples = shared->indtuples;
			if (shared->brokenhotchain)
				*brokenhotchain = true;
			reltuples = shared->reltuples;
			SpinLockRelease(&shared->mutex);
			break;
		}
		SpinLockRelease(&shared->mutex);

		ConditionVariableSleep(&shared->workersdonecv,
							   WAIT_EVENT_PARALLEL_CREATE_INDEX_SCAN);
	}
	ConditionVariableCancelSleep();

	return reltuples;
}

/*
 * The entry point of a parallel build's worker (named to
 * CreateParallelContext): open the relations with the locks the leader
 * holds, then scan and sort a share of the table.
 */
void
ei_parallel_build_main(dsm_segment *seg, shm_toc *toc)
{
	EIBuildShared *shared;
	EIBuildRuns *runs;
	EIBuildState bstate;
	Relation	heap;
	Relation	index;
	LOCKMODE	heaplockmode;
	LOCKMODE	indexlockmode;
	WalUsage   *walusage;
	BufferUsage *bufferusage;

	/* the only status flag a worker may have (as in nbtree) */
	Assert((MyProc->statusFlags == 0) ||
		   (MyProc->statusFlags == PROC_IN_SAFE_IC));

	/* show the leader's statement */
	debug_query_string = shm_toc_lookup(toc, EI_PARALLEL_KEY_QUERY_TEXT, true);
	pgstat_report_activity(STATE_RUNNING, debug_query_string);

	shared = shm_toc_lookup(toc, EI_PARALLEL_KEY_SHARED, false);
	pgstat_report_query_id(shared->queryid, false);

	/* tests prove that a build used workers by stopping them here */
	EIFaultPoint(EI_FAULT_IN_BUILD_WORKER);

	/* the lock modes index.c takes for a plain or a concurrent build */
	if (!shared->isconcurrent)
	{
		heaplockmode = ShareLock;
		indexlockmode = AccessExclusiveLock;
	}
	else
	{
		heaplockmode = ShareUpdateExclusiveLock;
		indexlockmode = RowExclusiveLock;
	}
	heap = table_open(shared->heaprelid, heaplockmode);
	index = index_open(shared->indexrelid, indexlockmode);

	runs = shm_toc_lookup(toc, EI_PARALLEL_KEY_RUNS, false);
	SharedFileSetAttach(&runs->fileset, seg);

	InstrStartParallelQuery();
	memset(&bstate, 0, sizeof(bstate));
	bstate.heap = heap;
	bstate.index = index;
	ei_build_scan_and_sort(&bstate, shared, runs, ParallelWorkerNumber,
						   maintenance_work_mem / shared->scantuplesortstates,
						   false);
	bufferusage = shm_toc_lookup(toc, EI_PARALLEL_KEY_BUFFER_USAGE, false);
	walusage = shm_toc_lookup(toc, EI_PARALLEL_KEY_WAL_USAGE, false);
	InstrEndParallelQuery(&bufferusage[ParallelWorkerNumber],
						  &walusage[ParallelWorkerNumber]);

	index_close(index, indexlockmode);
	table_close(heap, heaplockmode);
}

/*
 * Scan a share of the table through the parallel scan as a participant of
 * a parallel build, and sort its entries in memory as a serial build does
 * (sortmem kilobytes); whenever they outgrow it, and at the end in a
 * worker, write them as a sorted run to the shared file set, then add the
 * counts to the shared state and tell the leader.  The leader (isleader)
 * keeps its last run sorted in bstate's memory, and reports the scan's
 * blocks in pg_stat_progress_create_index.  bstate has its relations set.
 */
static void
ei_build_scan_and_sort(EIBuildState *bstate, EIBuildShared *shared,
					   EIBuildRuns *runs, int participant, int sortmem,
					   bool isleader)
{
	Relation	heap = bstate->heap;
	Relation	index = bstate->index;
	TableScanDesc scan;
	IndexInfo  *indexInfo;
	double		reltuples;

	bstate->nkeys = IndexRelationGetNumberOfKeyAttributes(index);
	bstate->natts = IndexRelationGetNumberOfAttributes(index);
	if (bstate->tmpcxt == NULL)
		bstate->tmpcxt = AllocSetContextCreate(CurrentMemoryContext,
											   "elastic_index build tuple",
											   ALLOCSET_DEFAULT_SIZES);
	bstate->runs = runs;
	bstate->participant = participant;
	ei_build_memory_begin(bstate, (Size) sortmem * 1024);

	/* expressions and the predicate are evaluated here, in each participant */
	indexInfo = BuildIndexInfo(index);
	indexInfo->ii_Concurrent = shared->isconcurrent;
	scan = table_beginscan_parallel(heap, EIBuildSharedScan(shared));
	reltuples = table_index_build_scan(heap, index, indexInfo, true, isleader,
									   ei_build_callback, bstate, scan);

	if (isleader)
	{
		pgstat_progress_update_param(PROGRESS_CREATEIDX_SUBPHASE,
									 EI_BUILD_PHASE_SORT);
		ei_build_sort_memory(bstate);
	}
	else
		ei_build_write_run(bstate);

	SpinLockAcquire(&shared->mutex);
	shared->nparticipantsdone++;
	shared->reltuples += reltuples;
	shared->indtuples += bstate->indtuples;
	if (indexInfo->ii_BrokenHotChain)
		shared->brokenhotchain = true;
	SpinLockRelease(&shared->mutex);
	ConditionVariableSignal(&shared->workersdonecv);

	if (!isleader)
	{
		MemoryContextDelete(bstate->memcxt);
		MemoryContextDelete(bstate->tmpcxt);
	}
}

/*
 * Prepare to keep formed entries in memory, up to memlimit bytes, and to
 * sort them in the tree's order.
 */
static void
ei_build_memory_begin(EIBuildState *bstate, Size memlimit)
{
	EIEntrySortInit(&bstate->esort, bstate->index);
	bstate->memcxt = AllocSetContextCreate(CurrentMemoryContext,
										   "elastic_index build entries",
										   ALLOCSET_DEFAULT_SIZES);
	bstate->memlimit = memlimit;
	bstate->memcap = 1024;
	bstate->memtuples = MemoryContextAllocHuge(bstate->memcxt,
											   sizeof(EISortEntry) * bstate->memcap);
}

/*
 * Name the file of a participant's sorted run in the shared file set.
 */
static void
ei_build_run_name(char *name, int participant, int run)
{
	snprintf(name, MAXPGPATH, "ei_build.%d.%d", participant, run);
}

/*
 * Sort a participant's in-memory entries and write them, in order, as its
 * next run to the shared file set (each entry as the index stores it), then
 * empty the memory for the entries that follow.
 */
static void
ei_build_write_run(EIBuildState *bstate)
{
	EIBuildRuns *runs = bstate->runs;
	char		name[MAXPGPATH];
	BufFile    *file;
	int64		i;

	ei_build_sort_memory(bstate);
	ei_build_run_name(name, bstate->participant,
					  runs->nruns[bstate->participant]);
	file = BufFileCreateFileSet(&runs->fileset.fs, name);
	for (i = 0; i < bstate->nmem; i++)
	{
		IndexTuple	itup = bstate->memtuples[i].itup;

		if (i % 1024 == 0)
			CHECK_FOR_INTERRUPTS();
		BufFileWrite(file, itup, IndexTupleSize(itup));
	}
	BufFileClose(file);
	/* read by the leader only once this participant says it is done */
	runs->nruns[bstate->participant]++;

	MemoryContextReset(bstate->memcxt);
	bstate->memtuples = MemoryContextAllocHuge(bstate->memcxt,
											   sizeof(EISortEntry) * bstate->memcap);
	bstate->nmem = 0;
	bstate->memused = 0;
}

/*
 * In the leader, once every participant is done, open all the sorted runs
 * (the workers' files, its own files and its last run in memory) for a
 * merge in the tree's order.
 */
static void
ei_build_merge_begin(EIBuildState *bstate)
{
	EIBuildRuns *runs = bstate->leader->runs;
	int			nparticipants = bstate->leader->shared->scantuplesortstates;
	EIMerge    *merge = palloc0(sizeof(EIMerge));
	int			nruns = 1;
	int			p;
	int			r;
	int			i;

	EIEntrySortInitCompare(&merge->cmp, bstate->index, CurrentMemoryContext);
	for (p = 0; p < nparticipants; p++)
		nruns += runs->nruns[p];
	merge->runs = palloc0(sizeof(EIMergeRun) * nruns);
	merge->heap = binaryheap_allocate(nruns, ei_build_merge_cmp, merge);

	i = 0;
	for (p = 0; p < nparticipants; p++)
	{
		for (r = 0; r < runs->nruns[p]; r++)
		{
			char		name[MAXPGPATH];

			ei_build_run_name(name, p, r);
			merge->runs[i++].file = BufFileOpenFileSet(&runs->fileset.fs, name,
													   O_RDONLY, false);
		}
	}
	merge->runs[i].mem = bstate->memtuples;
	merge->runs[i].nmem = bstate->nmem;

	for (i = 0; i < nruns; i++)
	{
		if (ei_build_merge_read(merge, &merge->runs[i]))
			binaryheap_add_unordered(merge->heap, Int32GetDatum(i));
	}
	binaryheap_build(merge->heap);
	bstate->merge = merge;

	ereport(DEBUG1,
			(errmsg_internal("elastic_index: merging %d sorted runs to build index \"%s\"",
							 nruns, RelationGetRelationName(bstate->index))));
}

/*
 * Make a run's next entry its current one (a palloc'd copy when read from
 * its file); return false when the run is exhausted.
 */
static bool
ei_build_merge_read(EIMerge *merge, EIMergeRun *run)
{
	IndexTupleData header;
	IndexTuple	itup;
	size_t		nread;
	Size		size;

	if (run->file == NULL)
	{
		if (run->pos >= run->nmem)
			return false;
		EIEntrySortSet(&merge->cmp, &run->cur, run->mem[run->pos++].itup);
		return true;
	}

	nread = BufFileRead(run->file, &header, sizeof(IndexTupleData));
	if (nread == 0)
		return false;
	size = IndexTupleSize(&header);
	if (nread != sizeof(IndexTupleData) || size < sizeof(IndexTupleData))
		ereport(ERROR,
				(errcode_for_file_access(),
				 errmsg("could not read from a sorted run of a parallel build of index \"%s\"",
						RelationGetRelationName(merge->cmp.index))));
	itup = palloc(size);
	memcpy(itup, &header, sizeof(IndexTupleData));
	if (size > sizeof(IndexTupleData) &&
		BufFileRead(run->file, (char *) itup + sizeof(IndexTupleData),
					size - sizeof(IndexTupleData)) !=
		size - sizeof(IndexTupleData))
		ereport(ERROR,
				(errcode_for_file_access(),
				 errmsg("could not read from a sorted run of a parallel build of index \"%s\"",
						RelationGetRelationName(merge->cmp.index))));
	EIEntrySortSet(&merge->cmp, &run->cur, itup);
	return true;
}

/*
 * Order two runs by their current entries for the merge's heap, which puts
 * its largest first: the run with the smaller entry is the larger.
 */
static int
ei_build_merge_cmp(Datum a, Datum b, void *arg)
{
	EIMerge    *merge = (EIMerge *) arg;

	return EIEntryCompare(&merge->cmp, &merge->runs[DatumGetInt32(b)].cur,
						  &merge->runs[DatumGetInt32(a)].cur);
}

/*
 * Return the smallest entry of all the runs (the caller owns it), or NULL
 * when all are exhausted.
 */
static IndexTuple
ei_build_merge_next(EIMerge *merge)
{
	int			r;
	IndexTuple	itup;

	if (binaryheap_empty(merge->heap))
		return NULL;
	r = DatumGetInt32(binaryheap_first(merge->heap));
	itup = merge->runs[r].cur.itup;
	if (ei_build_merge_read(merge, &merge->runs[r]))
		binaryheap_replace_first(merge->heap, Int32GetDatum(r));
	else
		(void) binaryheap_remove_first(merge->heap);
	return itup;
}

/*
 * Close the files of the merged runs (the shared file set deletes them).
 */
static void
ei_build_merge_end(EIMerge *merge)
{
	EIMergeRun *run;

	for (run = merge->runs; run->file != NULL; run++)
		BufFileClose(run->file);
}

/*
 * Would every entry of the index store its values unchanged and fit on a
 * page whatever the values?  True when all key columns are fixed-width (no
 * compression, no TOAST, no short varlena headers) and an entry with every
 * column present, plus a null bitmap, is small enough: then the values the
 * table scan computes can go to the tuplesort without forming the entry
 * first, and sort exactly as the formed entry's would.  *keysize: the size
 * of the columns' data (key and INCLUDE) when none is NULL.
 */
static bool
ei_build_values_as_stored(Relation index, Size *keysize)
{
	TupleDesc	itupdesc = RelationGetDescr(index);
	int			natts = IndexRelationGetNumberOfAttributes(index);
	Size		size = 0;
	int			i;

	for (i = 0; i < natts; i++)
	{
		Form_pg_attribute att = TupleDescAttr(itupdesc, i);

		if (att->attlen <= 0)
			return false;
		size = att_align_nominal(size, att->attalign) + att->attlen;
	}
	*keysize = size;
	return MAXALIGN(IndexInfoFindDataOffset(INDEX_NULL_MASK) + size) <=
		EI_MAX_ITEM_SIZE;
}

/*
 * Receive one heap tuple's index values from the table scan and sort them.
 *
 * The entry is formed as the index will store it, so that oversized keys are
 * refused here, before any sorting, with the usual message.
 */
static void
ei_build_callback(Relation index, ItemPointer tid, Datum *values,
				  bool *isnull, bool tupleIsAlive, void *state)
{
	EIBuildState *bstate = (EIBuildState *) state;
	MemoryContext oldcxt;
	IndexTuple	itup;

	/* straight into the tuplesort when forming the entry changes nothing */
	if (bstate->spilled && bstate->sortvalues)
	{
		TupleTableSlot *slot = bstate->inslot;

		bstate->indtuples += 1;
		ExecClearTuple(slot);
		memcpy(slot->tts_values, values, sizeof(Datum) * bstate->natts);
		memcpy(slot->tts_isnull, isnull, sizeof(bool) * bstate->natts);
		slot->tts_values[bstate->natts] = PointerGetDatum(tid);
		slot->tts_isnull[bstate->natts] = false;
		ExecStoreVirtualTuple(slot);
		tuplesort_puttupleslot(bstate->sort, slot);
		ExecClearTuple(slot);
		return;
	}

	oldcxt = MemoryContextSwitchTo(bstate->spilled ? bstate->tmpcxt :
								   bstate->memcxt);

	itup = index_form_tuple(RelationGetDescr(index), values, isnull);
	itup->t_tid = *tid;
	EICheckItemSize(index, bstate->heap, itup);
	bstate->indtuples += 1;

	if (!bstate->spilled)
	{
		Size		size = GetMemoryChunkSpace(itup) + sizeof(EISortEntry);

		/* a parallel participant writes out a full memory as a sorted run */
		if (bstate->runs != NULL && bstate->nmem > 0 &&
			bstate->memused + size > bstate->memlimit)
		{
			IndexTuple	copy;

			MemoryContextSwitchTo(bstate->tmpcxt);
			copy = CopyIndexTuple(itup);
			ei_build_write_run(bstate);
			MemoryContextSwitchTo(bstate->memcxt);
			itup = CopyIndexTuple(copy);
			MemoryContextReset(bstate->tmpcxt);
			size = GetMemoryChunkSpace(itup) + sizeof(EISortEntry);
		}

		if (bstate->runs != NULL || bstate->memused + size <= bstate->memlimit)
		{
			EISortEntry *entry;

			if (bstate->nmem == bstate->memcap)
			{
				bstate->memcap *= 2;
				bstate->memtuples = repalloc_huge(bstate->memtuples,
												  sizeof(EISortEntry) * bstate->memcap);
			}
			entry = &bstate->memtuples[bstate->nmem++];
			EIEntrySortSet(&bstate->esort, entry, itup);
			bstate->memused += size;
			MemoryContextSwitchTo(oldcxt);
			return;
		}

		/* itup lives in memcxt too: feed it before memcxt goes away */
		ei_build_spill(bstate);
		ei_build_put_sorted(bstate, itup);
		MemoryContextSwitchTo(oldcxt);
		MemoryContextReset(bstate->memcxt);
		bstate->memtuples = NULL;
		return;
	}

	ei_build_put_sorted(bstate, itup);

	MemoryContextSwitchTo(oldcxt);
	MemoryContextReset(bstate->tmpcxt);
}

/*
 * Feed one formed entry to the tuplesort, as its key columns plus heap TID.
 *
 * The stored (possibly compressed) form is sorted, as the tree compares it.
 */
static void
ei_build_put_sorted(EIBuildState *bstate, IndexTuple itup)
{
	TupleTableSlot *slot = bstate->inslot;

	ExecClearTuple(slot);
	index_deform_tuple(itup, RelationGetDescr(bstate->index),
					   slot->tts_values, slot->tts_isnull);
	slot->tts_values[bstate->natts] = PointerGetDatum(&itup->t_tid);
	slot->tts_isnull[bstate->natts] = false;
	ExecStoreVirtualTuple(slot);
	tuplesort_puttupleslot(bstate->sort, slot);
	ExecClearTuple(slot);
}

/*
 * The entries outgrew maintenance_work_mem: move them all to the tuplesort,
 * which spills to disk, and use it from now on.  The caller frees memcxt.
 */
static void
ei_build_spill(EIBuildState *bstate)
{
	int64		i;

	for (i = 0; i < bstate->nmem; i++)
		ei_build_put_sorted(bstate, bstate->memtuples[i].itup);
	bstate->spilled = true;
	bstate->nmem = 0;
}

/*
 * Sort the in-memory entries in the tree's order.
 */
static void
ei_build_sort_memory(EIBuildState *bstate)
{
	EIEntrySortRun(&bstate->esort, bstate->memtuples, bstate->nmem);
}

/*
 * Load the sorted entries into a new tree, then write its metapage and
 * WAL-log every page.
 */
static void
ei_load_tree(EIBuildState *bstate, uint32 am_kind)
{
	Relation	index = bstate->index;
	const EITreePolicy *policy = EIGetPolicyChecked(index);
	TupleDesc	itupdesc = RelationGetDescr(index);
	int			natts = bstate->natts;
	EILoadState lstate;
	TupleTableSlot *slot;
	Buffer		metabuf;
	int64		done = 0;

	lstate.index = index;
	lstate.fillfactor = EIGetFillFactor(index);
	lstate.dedup = EIGetDeduplicate(index, true);
	lstate.run.base = NULL;
	lstate.leaf = NULL;
	lstate.kind = NULL;
	lstate.nkindents = 0;
	lstate.nkindtids = 0;
	lstate.nkindleaves = 0;
	lstate.measure = false;
	lstate.loaded = 0;
	lstate.nleaves = 0;
	lstate.loaded_at_close = 0;
	if (policy->leaf != NULL && policy->leaf->fill_count != NULL &&
		policy->leaf->form != NULL && policy->build_leaves != NULL)
	{
		switch (policy->build_leaves(index, bstate->heap, bstate->indtuples,
									 -1))
		{
			case EI_BUILD_KIND:
				ei_load_kind_begin(&lstate, policy->leaf);
				break;
			case EI_BUILD_MEASURE:
				lstate.measure = true;
				break;
			case EI_BUILD_STANDARD:
				break;
		}
	}

	/* block 0 is the metapage; it is written once the root is known */
	metabuf = ei_load_extend(index);
	if (BufferGetBlockNumber(metabuf) != EI_METAPAGE)
		elog(ERROR, "index \"%s\" already contains data",
			 RelationGetRelationName(index));

	lstate.leaf = ei_load_new_level(&lstate, 0);

	slot = bstate->sortdesc == NULL ? NULL :
		MakeSingleTupleTableSlot(bstate->sortdesc, &TTSOpsMinimalTuple);
	for (;;)
	{
		IndexTuple	itup;

		CHECK_FOR_INTERRUPTS();

		if (bstate->merge != NULL)
		{
			itup = ei_build_merge_next(bstate->merge);
			if (itup == NULL)
				break;
		}
		else if (!bstate->spilled)
		{
			if (done >= bstate->nmem)
				break;
			itup = bstate->memtuples[done].itup;
		}
		else
		{
			if (!tuplesort_gettupleslot(bstate->sort, true, false, slot, NULL))
				break;
			itup = bstate->sortvalues ? ei_load_copy_sorted(bstate, slot) : NULL;
			if (itup == NULL)
			{
				slot_getallattrs(slot);
				itup = index_form_tuple(itupdesc, slot->tts_values,
										slot->tts_isnull);
				itup->t_tid = *((ItemPointer) DatumGetPointer(slot->tts_values[natts]));
			}
		}
		ei_load_entry(&lstate, itup);
		lstate.loaded = ++done;

		/*
		 * The sample: at least four leaves and 1/256 of the entries; the
		 * rate of the leaves closed so far says how many all of them would
		 * take
		 */
		if (lstate.measure && lstate.nleaves >= 4 &&
			lstate.loaded_at_close >= bstate->indtuples / 256)
		{
			double		leaves = lstate.nleaves * bstate->indtuples /
				lstate.loaded_at_close;

			lstate.measure = false;
			if (policy->build_leaves(index, bstate->heap, bstate->indtuples,
									 leaves) == EI_BUILD_KIND)
				ei_load_kind_begin(&lstate, policy->leaf);
		}

		if (done % 1024 == 0)
			pgstat_progress_update_param(PROGRESS_CREATEIDX_TUPLES_DONE, done);
	}
	pgstat_progress_update_param(PROGRESS_CREATEIDX_TUPLES_DONE, done);
	if (slot != NULL)
		ExecDropSingleTupleTableSlot(slot);

	ei_load_flush_run(&lstate);
	ei_load_kind_end(&lstate);
	ei_load_finish(&lstate);

	/* now that the root is known, write the metapage */
	{
		EILoadLevel *top = lstate.leaf;

		while (top->parent != NULL)
			top = top->parent;
		LockBuffer(metabuf, BUFFER_LOCK_EXCLUSIVE);
		EIInitMetaPage(BufferGetPage(metabuf), am_kind, top->blkno,
					   top->level, lstate.fillfactor);
		/* an index that may hold posting lists says so (EI_VERSION_POSTING) */
		if (lstate.dedup)
			EIPageGetMeta(BufferGetPage(metabuf))->version = EI_VERSION_POSTING;
		/* the policy's words: elastic_btree's state after compact leaves */
		if (policy->build_meta != NULL)
			policy->build_meta(index, EIPageGetMeta(BufferGetPage(metabuf)),
							   lstate.nkindleaves > 0);
		MarkBufferDirty(metabuf);
		UnlockReleaseBuffer(metabuf);
	}

	/* free the level states */
	while (lstate.leaf != NULL)
	{
		EILoadLevel *parent = lstate.leaf->parent;

		pfree(lstate.leaf->page);
		pfree(lstate.leaf);
		lstate.leaf = parent;
	}

	/*
	 * Log every page as a full-page image.  When the index needs no WAL
	 * (unlogged, or created in this transaction under wal_level = minimal),
	 * the pages reach disk through shared buffers: at a checkpoint, or by the
	 * sync at commit that wal_level = minimal arranges.
	 */
	if (RelationNeedsWAL(index))
		log_newpage_range(index, MAIN_FORKNUM, 0,
						  RelationGetNumberOfBlocks(index), true);
}

/*
 * Form the entry of a sorted row without deforming it, or return NULL if it
 * has a NULL key.  Only for indexes whose entries store their values
 * unchanged (bstate->sortvalues): the sort's minimal tuple then holds the
 * key columns' data exactly as the entry does (both start MAXALIGNed, and
 * neither has a null bitmap), followed by the heap TID, so the entry is
 * its header and a copy of that data, byte for byte what index_form_tuple
 * would make.
 */
static IndexTuple
ei_load_copy_sorted(EIBuildState *bstate, TupleTableSlot *slot)
{
	bool		shouldfree;
	MinimalTuple mtup = ExecFetchSlotMinimalTuple(slot, &shouldfree);
	char	   *data = (char *) mtup + mtup->t_hoff - MINIMAL_TUPLE_OFFSET;
	Size		hoff = IndexInfoFindDataOffset(0);
	Size		size = MAXALIGN(hoff + bstate->keysize);
	IndexTuple	itup;

	Assert(!shouldfree);
	if (mtup->t_infomask & HEAP_HASNULL)
		return NULL;
	itup = (IndexTuple) palloc0(size);
	memcpy((char *) itup + hoff, data, bstate->keysize);
	itup->t_info = size;
	memcpy(&itup->t_tid,
		   data + att_align_nominal(bstate->keysize, TYPALIGN_SHORT),
		   sizeof(ItemPointerData));
	return itup;
}

/*
 * Extend the index by one block and return it pinned, still all zeroes.
 */
static Buffer
ei_load_extend(Relation index)
{
	return ReadBufferExtended(index, MAIN_FORKNUM, P_NEW, RBM_NORMAL, NULL);
}

/*
 * Start a new level of the tree with its first, still empty, page.
 */
static EILoadLevel *
ei_load_new_level(EILoadState *lstate, uint32 level)
{
	EILoadLevel *lvl = palloc0(sizeof(EILoadLevel));
	int			fillfactor;

	fillfactor = (level == 0) ? lstate->fillfactor : EI_NONLEAF_FILLFACTOR;

	lvl->level = level;
	lvl->page = (Page) palloc(BLCKSZ);
	lvl->buf = ei_load_extend(lstate->index);
	lvl->blkno = BufferGetBlockNumber(lvl->buf);
	lvl->firstblkno = lvl->blkno;
	lvl->ndata = 0;
	/* as nbtree's BTGetTargetPageFreeSpace: a share of the whole block */
	lvl->slack = BLCKSZ * (100 - fillfactor) / 100;
	lvl->pending = NULL;
	lvl->parent = NULL;
	EIInitPage(lvl->page, level == 0 ? EI_LEAF : 0, level);
	return lvl;
}

/*
 * Append an item to a level; the item before it is placed now that its
 * successor is known.
 *
 * The level takes ownership of itup (palloc'd) and frees it once placed.
 */
static void
ei_load_add(EILoadState *lstate, EILoadLevel *lvl, IndexTuple itup)
{
	IndexTuple	prev = lvl->pending;

	/* the leaf level, formed in the policy's kind: collect */
	if (lvl->level == 0 && lstate->kind != NULL)
	{
		lstate->kindents[lstate->nkindents++] = itup;
		lstate->nkindtids += EILeafNTIDs(itup);
		if (lstate->nkindtids > EI_MAX_ITEMS_PER_PAGE)
			ei_load_kind_leaves(lstate);
		/*
		 * What is left fits one leaf, so the array (EI_MAX_ITEMS_PER_PAGE +
		 * 1 entries) stays bounded; a kind whose fill_count took all of more
		 * would overrun it next time.
		 */
		if (lstate->nkindtids > EI_MAX_ITEMS_PER_PAGE)
			elog(ERROR, "leaf kind of index \"%s\" took all of %d entries for one leaf",
				 RelationGetRelationName(lstate->index), lstate->nkindents);
		return;
	}

	lvl->pending = itup;
	if (prev != NULL)
	{
		ei_load_place(lstate, lvl, prev, itup);
		pfree(prev);
	}
}

/*
 * Pass the next sorted entry to the leaf level: as it is, or with dedup
 * into the run of equal keys it continues (EIPostingRunAdd, as nbtree's
 * _bt_sort_dedup).  Takes ownership of itup.
 */
static void
ei_load_entry(EILoadState *lstate, IndexTuple itup)
{
	if (!lstate->dedup)
	{
		ei_load_add(lstate, lstate->leaf, itup);
		return;
	}
	if (EIPostingRunAdd(&lstate->run, itup))
	{
		pfree(itup);
		return;
	}
	ei_load_flush_run(lstate);
	EIPostingRunStart(&lstate->run, itup);
}

/*
 * Pass the held-back run of equal keys, if any, to the leaf level: its one
 * entry, or a posting list of its TIDs.
 */
static void
ei_load_flush_run(EILoadState *lstate)
{
	IndexTuple	base = lstate->run.base;
	IndexTuple	entry = EIPostingRunEnd(&lstate->run);

	if (entry == NULL)
		return;
	ei_load_add(lstate, lstate->leaf, entry);
	if (entry != base)
		pfree(base);
}

/*
 * Put an item on the level's current page, or on a new page to its right if
 * the current one is full; next is the item that follows, or NULL if none.
 *
 * The rule is nbtree's (_bt_buildadd): the item stays on the current page
 * if, with it, the page keeps its fill factor's free space (BLCKSZ times
 * 100 - fillfactor percent), counting the item as the high key it would
 * become were it moved to the next page (its key without a posting list's
 * TIDs, and a line pointer); and, as a hard limit, if next's pivot still
 * fits as the page's high key.  A page thereby ends up to one high key
 * fuller than the fill factor, as nbtree's do.  The first two items of a
 * page go on it regardless: EI_MAX_ITEM_SIZE guarantees that two items
 * plus any high key fit.
 */
static void
ei_load_place(EILoadState *lstate, EILoadLevel *lvl, IndexTuple itup,
			  IndexTuple next)
{
	bool		isleaf = (lvl->level == 0);
	IndexTuple	item = itup;
	Size		itemsz;

	if (lvl->ndata >= 2)
	{
		Size		freesz = PageGetExactFreeSpace(lvl->page);
		Size		needed = MAXALIGN(IndexTupleSize(itup)) + sizeof(ItemIdData);
		Size		truncextra = 0;
		bool		full;

		/* a list's TIDs, which its high key would not keep */
		if (isleaf)
			truncextra = MAXALIGN(IndexTupleSize(itup)) - EIPostingKeySize(itup);
		full = freesz < needed ||
			freesz - needed + truncextra < lvl->slack + 2 * sizeof(ItemIdData);
		if (!full && next != NULL)
			full = freesz - needed <
				ei_load_hikey_size(next, isleaf) + sizeof(ItemIdData);
		if (full)
			ei_load_next_page(lstate, lvl, itup);
	}

	/* an inner page starts with the minus-infinity downlink */
	if (!isleaf && lvl->ndata == 0 && !EIPivotIsMinusInf(itup))
		item = EIFormMinusInf(EITupleGetDownlink(itup));

	itemsz = MAXALIGN(IndexTupleSize(item));
	if (PageAddItem(lvl->page, (Item) item, itemsz, InvalidOffsetNumber,
					false, false) == InvalidOffsetNumber)
		elog(ERROR, "failed to add item to block %u of index \"%s\"",
			 lvl->blkno, RelationGetRelationName(lstate->index));
	lvl->ndata++;

	if (item != itup)
		pfree(item);
}

/*
 * Form leaves of the policy's kind from the leaf level's collected entries
 * while they fill one at the fill factor (fill_count takes fewer than all
 * of them), each behind a high key between its last entry and the next,
 * as a bulk append forms them (EIFormKindLeaf, no heap reads); a standard
 * leaf being filled is finished first.  Entries the kind cannot take (it
 * takes none, or they do not fit) go on standard leaves; an entry it cannot
 * take at all goes there with as few others as it can.  What is left is
 * less than a leaf of the kind takes at the fill factor.
 */
static void
ei_load_kind_leaves(EILoadState *lstate)
{
	EILoadLevel *lvl = lstate->leaf;
	IndexTuple *ents = lstate->kindents;

	for (;;)
	{
		int			n = lstate->nkindents;
		int			take;
		int			used;
		Page		page = NULL;
		IndexTuple	hikey = NULL;

		CHECK_FOR_INTERRUPTS();
		take = lstate->kind->fill_count(lstate->index, ents, n,
										lstate->fillfactor);
		/* (a leaf always has a next entry: its high key needs it) */
		if (take >= n || (take == 0 && n < 2))
			break;
		used = Max(take, 1);
		if (take > 0)
			page = EIFormKindLeaf(lstate->index, lstate->kind, EI_LEAF, ents,
								  &take, 0, &hikey);
		if (page == NULL && used > 1)
		{
			/*
			 * One entry the kind cannot take at all (a key too long for it)
			 * spoils every leaf it is in: form the entries before it if
			 * they are a quarter of the leaf or more, else put them and it
			 * on standard leaves, with the rest of that quarter (every
			 * round then uses a quarter of what it looked at: the load
			 * stays linear however many entries do not fit).
			 */
			int			unfit = ei_load_kind_unfit(lstate, ents, used);

			if (unfit < used)
			{
				if (unfit > 0 && unfit >= used / 4)
				{
					take = unfit;
					page = EIFormKindLeaf(lstate->index, lstate->kind,
										  EI_LEAF, ents, &take, 0, &hikey);
				}
				if (page == NULL)
					used = Max(unfit + 1, used / 4);
			}
		}
		if (page != NULL)
		{
			if (lvl->ndata > 0)
				ei_load_next_page(lstate, lvl, ents[0]);
			EIPageGetOpaque(page)->ei_prev = EIPageGetOpaque(lvl->page)->ei_prev;
			memcpy(lvl->page, page, BLCKSZ);
			pfree(page);
			ei_load_close_page(lstate, lvl, hikey);
			lstate->nkindleaves++;
			used = take;
		}
		else
		{
			for (int j = 0; j < used; j++)
				ei_load_place(lstate, lvl, ents[j], ents[j + 1]);
		}
		for (int j = 0; j < used; j++)
		{
			lstate->nkindtids -= EILeafNTIDs(ents[j]);
			pfree(ents[j]);
		}
		memmove(ents, ents + used, sizeof(IndexTuple) * (n - used));
		lstate->nkindents -= used;
	}
}

/*
 * The first of the collected entries ents[0..n) that a leaf of the policy's
 * kind cannot hold even alone (its key cannot be stored in the kind), or n.
 */
static int
ei_load_kind_unfit(EILoadState *lstate, IndexTuple *ents, int n)
{
	Page		page = (Page) palloc(BLCKSZ);
	int			j;

	for (j = 0; j < n; j++)
	{
		/* a rightmost leaf: no high key */
		EIInitPage(page, EI_LEAF, 0);
		if (!lstate->kind->form(lstate->index, &ents[j], 1, page))
			break;
	}
	pfree(page);
	return j;
}

/*
 * From now on, collect the leaf level's entries for leaves of the policy's
 * kind: before the first entry, or after a sample in standard leaves, when
 * the item the leaf level holds back (its successor not yet known) is the
 * first collected.
 */
static void
ei_load_kind_begin(EILoadState *lstate, const EILeafKindOps *kind)
{
	EILoadLevel *lvl = lstate->leaf;

	lstate->kind = kind;
	lstate->kindents = palloc(sizeof(IndexTuple) * (EI_MAX_ITEMS_PER_PAGE + 1));
	lstate->nkindents = 0;
	lstate->nkindtids = 0;
	if (lvl != NULL && lvl->pending != NULL)
	{
		IndexTuple	held = lvl->pending;

		lvl->pending = NULL;
		ei_load_add(lstate, lvl, held);
	}
}

/*
 * At the end of the load, form the collected entries that still fill a
 * leaf of the policy's kind, and put the rest on standard leaves: the
 * rightmost leaf stays standard, as after a bulk append, so that appends
 * add to it in bulk.
 */
static void
ei_load_kind_end(EILoadState *lstate)
{
	int			n;

	if (lstate->kind == NULL)
		return;
	ei_load_kind_leaves(lstate);
	n = lstate->nkindents;
	lstate->kind = NULL;
	for (int j = 0; j < n; j++)
		ei_load_add(lstate, lstate->leaf, lstate->kindents[j]);
	pfree(lstate->kindents);
	lstate->kindents = NULL;
	lstate->nkindents = 0;
}

/*
 * Finish the level's current page, with first's pivot as its high key, and
 * start a new page to its right whose downlink goes to the level above.
 */
static void
ei_load_next_page(EILoadState *lstate, EILoadLevel *lvl, IndexTuple first)
{
	Page		page = lvl->page;
	IndexTuple	hikey;

	/*
	 * The high key: a pivot of the leaf item, separating it from the page's
	 * last item (EIFormPivot); inner pivots are copied.
	 */
	if (lvl->level == 0)
		hikey = EIFormPivot(lstate->index,
							(IndexTuple) PageGetItem(page,
													 PageGetItemId(page,
																   PageGetMaxOffsetNumber(page))),
							first);
	else
		hikey = CopyIndexTuple(first);
	EITupleSetDownlink(hikey, InvalidBlockNumber);

	/* in front of the data */
	if (PageAddItem(page, (Item) hikey, MAXALIGN(IndexTupleSize(hikey)),
					EI_HIKEY, false, false) == InvalidOffsetNumber)
		elog(ERROR, "failed to add high key to block %u of index \"%s\"",
			 lvl->blkno, RelationGetRelationName(lstate->index));
	ei_load_close_page(lstate, lvl, hikey);
}

/*
 * Finish the level's current page, which holds its high key hikey (the
 * level above takes ownership of that copy for the downlink): link it to a
 * new page to its right, write it, and start the new one, whose downlink
 * goes to the level above.
 */
static void
ei_load_close_page(EILoadState *lstate, EILoadLevel *lvl, IndexTuple hikey)
{
	bool		isleaf = (lvl->level == 0);
	Page		page = lvl->page;
	Buffer		nbuf;
	BlockNumber oblkno = lvl->blkno;
	BlockNumber nblkno;

	nbuf = ei_load_extend(lstate->index);
	nblkno = BufferGetBlockNumber(nbuf);
	if (isleaf)
	{
		lstate->nleaves++;
		lstate->loaded_at_close = lstate->loaded;
	}

	/* finish the old page: right link */
	EIPageGetOpaque(page)->ei_next = nblkno;
	ei_load_write_page(lstate, lvl);

	/* start the new page */
	lvl->buf = nbuf;
	lvl->blkno = nblkno;
	lvl->ndata = 0;
	EIInitPage(page, isleaf ? EI_LEAF : 0, lvl->level);
	EIPageGetOpaque(page)->ei_prev = oblkno;

	/* the level above gets the new page's downlink (and the first's) */
	if (lvl->parent == NULL)
	{
		lvl->parent = ei_load_new_level(lstate, lvl->level + 1);
		ei_load_add(lstate, lvl->parent, EIFormMinusInf(lvl->firstblkno));
	}
	EITupleSetDownlink(hikey, nblkno);
	ei_load_add(lstate, lvl->parent, hikey);
}

/*
 * Copy the level's finished page into its buffer and release the buffer.
 */
static void
ei_load_write_page(EILoadState *lstate, EILoadLevel *lvl)
{
	LockBuffer(lvl->buf, BUFFER_LOCK_EXCLUSIVE);
	memcpy(BufferGetPage(lvl->buf), lvl->page, BLCKSZ);
	MarkBufferDirty(lvl->buf);
	UnlockReleaseBuffer(lvl->buf);
	lvl->buf = InvalidBuffer;
}

/*
 * Return the space the high key made from an item would take on a page.
 */
static Size
ei_load_hikey_size(IndexTuple itup, bool isleaf)
{
	if (isleaf)
		return MAXALIGN(EIPostingKeySize(itup) + sizeof(ItemPointerData));
	return MAXALIGN(IndexTupleSize(itup));
}

/*
 * Place every level's held-back item and write each level's last page,
 * bottom-up; the only page of the top level becomes the root.
 */
static void
ei_load_finish(EILoadState *lstate)
{
	EILoadLevel *lvl;

	for (lvl = lstate->leaf; lvl != NULL; lvl = lvl->parent)
	{
		if (lvl->pending != NULL)
		{
			/* may finish a page, and so add to (or create) the level above */
			ei_load_place(lstate, lvl, lvl->pending, NULL);
			pfree(lvl->pending);
			lvl->pending = NULL;
		}

		/* the last page of a level is its rightmost: no high key */
		if (lvl->parent == NULL)
			EIPageGetOpaque(lvl->page)->ei_flags |= EI_ROOT;
		ei_load_write_page(lstate, lvl);
	}
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
