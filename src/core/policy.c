/*-------------------------------------------------------------------------
 *
 * policy.c
 *	  The table of policy callbacks through which the core reaches what an
 *	  access method decides and adds (EITreePolicy, eitree.h).
 *
 * Each access method registers its table at _PG_init.  The core finds an
 * index's table by the aminsert of the routine the AM's handler built,
 * which the relcache keeps with the index (rd_indam): a pointer comparison
 * over the few registered tables, with no catalog access, so it is safe
 * under buffer locks and in every backend that loaded the library.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/relation.h"
#include "access/xact.h"
#include "access/xlogrecord.h"
#include "catalog/index.h"
#include "catalog/pg_class.h"
#include "storage/buf_internals.h"
#include "storage/lmgr.h"
#include "miscadmin.h"
#include "utils/guc.h"
#include "utils/inval.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/rel.h"

#include "eitree.h"

/* at most this many access methods share the core */
#define EI_MAX_POLICIES		4

static const EITreePolicy *ei_policies[EI_MAX_POLICIES];
static int	ei_npolicies = 0;

/*
 * The WAL record tables the policies and their leaf kinds added to the
 * resource manager, each once (a leaf kind two policies share registers
 * its records with the first of them).
 */
static const EIRecordKind *ei_record_tables[2 * EI_MAX_POLICIES];
static int	ei_nrecord_tables = 0;

#ifdef USE_ASSERT_CHECKING
/* the leaf an insert works on (EIGuardLeaf), InvalidBuffer when none */
static Buffer ei_guarded_leaf = InvalidBuffer;
#endif

/* the metapage keeps the policies' words where version 2 put them */
StaticAssertDecl(offsetof(EIMetaPageData, policy) == 32 &&
				 sizeof(EIMetaPageData) == 56,
				 "EIMetaPageData's layout is the on-disk metapage's");

/*
 * Add a policy's (or its leaf kind's) WAL record table to the resource
 * manager, unless it is there already: every code must be free (not the
 * core's, not another table's) and appear once in the table.
 */
static void
ei_register_records(const EITreePolicy *policy, const EIRecordKind *records)
{
	if (records == NULL || records->redo == NULL)
		return;
	for (int i = 0; i < ei_nrecord_tables; i++)
		if (ei_record_tables[i] == records)
			return;
	for (const EIRecordKind *kind = records; kind->redo != NULL; kind++)
	{
		if ((kind->info & XLR_INFO_MASK) != 0 || EIIsCoreRecord(kind->info) ||
			EIGetRecordKind(kind->info) != NULL)
			elog(ERROR, "policy \"%s\" claims WAL record code 0x%02X, which is not free",
				 policy->name, kind->info);
		for (const EIRecordKind *other = records; other < kind; other++)
			if (other->info == kind->info)
				elog(ERROR, "policy \"%s\" claims WAL record code 0x%02X twice",
					 policy->name, kind->info);
	}
	ei_record_tables[ei_nrecord_tables++] = records;
}

/*
 * Register an access method's policy table; called from _PG_init.
 */
void
EIRegisterPolicy(const EITreePolicy *policy)
{
	for (int i = 0; i < ei_npolicies; i++)
	{
		if (ei_policies[i] == policy)
			return;
		if (ei_policies[i]->am_kind == policy->am_kind ||
			ei_policies[i]->aminsert == policy->aminsert)
			elog(ERROR, "policy \"%s\" clashes with policy \"%s\"",
				 policy->name, ei_policies[i]->name);
	}
	if (ei_npolicies >= EI_MAX_POLICIES)
		elog(ERROR, "too many elastic_index policies");
	if (policy->aminsert == NULL)
		elog(ERROR, "policy \"%s\" has no aminsert", policy->name);

	ei_register_records(policy, policy->records);
	if (policy->leaf != NULL)
		ei_register_records(policy, policy->leaf->records);
	ei_policies[ei_npolicies++] = policy;
}

/*
 * The policy table of an index, or NULL when the core does not serve it.
 */
const EITreePolicy *
EIGetPolicy(Relation rel)
{
	if (rel->rd_indam == NULL)
		return NULL;
	for (int i = 0; i < ei_npolicies; i++)
		if (ei_policies[i]->aminsert == rel->rd_indam->aminsert)
			return ei_policies[i];
	return NULL;
}

/*
 * The policy table of an index the core serves; can't-happen otherwise.
 */
const EITreePolicy *
EIGetPolicyChecked(Relation rel)
{
	const EITreePolicy *policy = EIGetPolicy(rel);

	if (policy == NULL)
		elog(ERROR, "index \"%s\" has no elastic_index policy",
			 RelationGetRelationName(rel));
	return policy;
}

/*
 * Is this index served by the policy of the given EI_AM_* kind?  False for
 * any index the core does not serve.
 */
bool
EIRelServedBy(Relation rel, uint32 am_kind)
{
	const EITreePolicy *policy = EIGetPolicy(rel);

	return policy != NULL && policy->am_kind == am_kind;
}

/*
 * The EI_AM_* kind of an index, which its metapage records.
 */
uint32
EIRelAmKind(Relation rel)
{
	return EIGetPolicyChecked(rel)->am_kind;
}

/*
 * The leaf fill factor of an index: its policy's, or nbtree's default.
 */
int
EIGetFillFactor(Relation rel)
{
	const EITreePolicy *policy = EIGetPolicyChecked(rel);

	return policy->fillfactor ? policy->fillfactor(rel) : EI_DEFAULT_FILLFACTOR;
}

/*
 * The least share of a leaf its left half keeps when a dense sorted run
 * splits it: the policy's, or an even split.
 */
double
EIGetSplitFactor(Relation rel)
{
	const EITreePolicy *policy = EIGetPolicyChecked(rel);

	return policy->split_factor ? policy->split_factor(rel) : 0.5;
}

/*
 * Does a build (building) or an insert into the index write posting lists?
 * The policy's choice (EIDedupChoice; EI_DEDUP_IF_BUILT lets an insert merge
 * keys only in an index whose metapage says it may hold lists), and only
 * when every key column's operator class says equal values have equal
 * images and there are no INCLUDE columns (EIAllEqualImage).  The catalogs
 * are looked up once per relcache entry (EIRelCache.equalimage; an index's
 * operator classes and collations never change, and a rebuilt entry asks
 * again), so every insert may ask; it must be called before any buffer
 * lock (it may read the metapage).
 */
bool
EIGetDeduplicate(Relation rel, bool building)
{
	const EITreePolicy *policy = EIGetPolicyChecked(rel);
	EIDedupChoice choice;

	choice = policy->deduplicate ? policy->deduplicate(rel) : EI_DEDUP_OFF;
	if (choice == EI_DEDUP_OFF)
		return false;
	if (EIGetRelCache(rel)->equalimage == EI_EQUALIMAGE_UNKNOWN)
	{
		/* its catalog lookups may free rd_amcache: ask for the cache after */
		bool		equalimage = EIAllEqualImage(rel);

		EIGetRelCache(rel)->equalimage = equalimage ? EI_EQUALIMAGE_YES :
			EI_EQUALIMAGE_NO;
	}
	if (EIGetRelCache(rel)->equalimage != EI_EQUALIMAGE_YES)
		return false;
	/* after the catalog lookups, which may reset rd_amcache */
	if (choice == EI_DEDUP_IF_BUILT && !building)
		return EIGetMetaCached(rel, false)->version == EI_VERSION_POSTING;
	return true;
}

/*
 * The spellings a boolean reloption accepts (parse_bool's, prefixes
 * included, matched without regard to case), for a boolean reloption that a
 * setting stands in for while it is unset: a bool reloption cannot tell
 * "unset" from its default, so such an option is an enum of these values
 * with EI_RELOPT_UNSET, none of them, as its default, as core's view option
 * check_option has "not set" (EI_OPTIONAL_BOOL_DETAIL names the main ones).
 * The prefixes keep what a bool reloption stored (say "t") readable and
 * restorable by pg_dump.
 */
relopt_enum_elt_def EIOptionalBoolValues[] = {
	{"on", 1},
	{"off", 0},
	{"of", 0},
	{"true", 1},
	{"tru", 1},
	{"tr", 1},
	{"t", 1},
	{"false", 0},
	{"fals", 0},
	{"fal", 0},
	{"fa", 0},
	{"f", 0},
	{"yes", 1},
	{"ye", 1},
	{"y", 1},
	{"no", 0},
	{"n", 0},
	{"1", 1},
	{"0", 0},
	{NULL, 0}
};

/*
 * The choice a deduplicate_items reloption (an EIOptionalBoolValues enum,
 * maybe EI_RELOPT_UNSET) and the setting that stands in for it make: set,
 * ON or OFF; unset, IF_BUILT while the setting is on, so that an index built
 * without lists (by an older library, or with the setting off) keeps its
 * format until REINDEX, as btree's indexes from before deduplication do.
 */
EIDedupChoice
EIDedupChoiceOf(int reloption, bool setting)
{
	if (reloption != EI_RELOPT_UNSET)
		return reloption ? EI_DEDUP_ON : EI_DEDUP_OFF;
	return setting ? EI_DEDUP_IF_BUILT : EI_DEDUP_OFF;
}

/*
 * Do equal keys of the index always have equal images, so that one posting
 * list may keep one key for several rows?  As nbtree's _bt_allequalimage:
 * every key column's operator class has an equalimage function (support
 * function 4) that returns true for the column's collation, and the index
 * has no INCLUDE columns.
 */
bool
EIAllEqualImage(Relation rel)
{
	int			nkeyatts = IndexRelationGetNumberOfKeyAttributes(rel);

	if (nkeyatts != IndexRelationGetNumberOfAttributes(rel))
		return false;
	for (int i = 0; i < nkeyatts; i++)
	{
		if (!EIColumnEqualImage(rel->rd_opfamily[i], rel->rd_opcintype[i],
								rel->rd_indcollation[i]))
			return false;
	}
	return true;
}

/*
 * Does the operator class (family and input type) say that equal values
 * of the type have equal images under the collation?  Its equalimage
 * function (support function 4) decides; without one, no.
 */
bool
EIColumnEqualImage(Oid opfamily, Oid opcintype, Oid collation)
{
	Oid			proc;

	proc = get_opfamily_proc(opfamily, opcintype, opcintype,
							 EI_EQUALIMAGE_PROC);
	return OidIsValid(proc) &&
		DatumGetBool(OidFunctionCall1Coll(proc, collation,
										  ObjectIdGetDatum(opcintype)));
}

/*
 * A policy's cache of one index, and its leaf kind's, kept as long as the
 * index's relcache entry keeps its rd_indexcxt: a relcache rebuild of an
 * open index frees rd_amcache (and with it EIRelCache) but keeps
 * rd_indexcxt, so the caches are found again here instead of being made
 * anew (and the old ones leaked) on every rebuild.  The slot lives in
 * rd_indexcxt; a reset callback unlinks it when that context goes with the
 * relcache entry.
 */
typedef struct EIPolicyCacheSlot
{
	MemoryContext cxt;			/* the index's rd_indexcxt */
	void	   *data;			/* the policy's cache, in cxt, or NULL */
	uint32		am_kind;		/* EI_AM_* of the policy that made it */
	void	   *leaf_data;		/* the leaf kind's cache, in cxt, or NULL */
	MemoryContextCallback forget;	/* unlinks the slot when cxt goes */
	struct EIPolicyCacheSlot *next;
} EIPolicyCacheSlot;

/* the backend's policy caches, one per index whose rd_indexcxt lives */
static EIPolicyCacheSlot *ei_policy_cache_slots = NULL;

/*
 * Unlink a policy cache slot whose index's rd_indexcxt is being deleted or
 * reset (a memory context reset callback).
 */
static void
ei_forget_policy_cache(void *arg)
{
	EIPolicyCacheSlot *slot = (EIPolicyCacheSlot *) arg;

	for (EIPolicyCacheSlot **link = &ei_policy_cache_slots; *link != NULL;
		 link = &(*link)->next)
	{
		if (*link == slot)
		{
			*link = slot->next;
			break;
		}
	}
}

/*
 * The cache slot of an index's rd_indexcxt, made (empty) the first time.
 */
static EIPolicyCacheSlot *
ei_policy_cache_slot(Relation rel)
{
	EIPolicyCacheSlot *slot;

	for (slot = ei_policy_cache_slots; slot != NULL; slot = slot->next)
		if (slot->cxt == rel->rd_indexcxt)
			return slot;
	slot = MemoryContextAllocZero(rel->rd_indexcxt, sizeof(EIPolicyCacheSlot));
	slot->cxt = rel->rd_indexcxt;
	slot->forget.func = ei_forget_policy_cache;
	slot->forget.arg = slot;
	MemoryContextRegisterResetCallback(rel->rd_indexcxt, &slot->forget);
	slot->next = ei_policy_cache_slots;
	ei_policy_cache_slots = slot;
	return slot;
}

/*
 * The per-backend cache of an index's policy: size zeroed bytes of
 * rd_indexcxt the first time, kept for the life of the index's relcache
 * entry (EIPolicyCacheSlot) and noted in rd_amcache, where it is found
 * again after a relcache rebuild.  am_kind is the asking policy's, which
 * must be the index's: two policies' caches never share the slot.  Reads
 * no page and no catalog, and accepts no invalidation, so it may be called
 * under any buffer lock; the pointer stays valid while the index is open.
 */
void *
EIGetPolicyCache(Relation rel, uint32 am_kind, Size size)
{
	EIRelCache *cache;

	if (!EIRelServedBy(rel, am_kind))
		elog(ERROR, "index \"%s\" is not served by the policy of access method kind %u",
			 RelationGetRelationName(rel), am_kind);
	cache = EIGetRelCache(rel);
	if (cache->policy_cache == NULL)
	{
		EIPolicyCacheSlot *slot = ei_policy_cache_slot(rel);

		if (slot->data == NULL)
		{
			slot->data = MemoryContextAllocZero(rel->rd_indexcxt, size);
			slot->am_kind = am_kind;
		}
		cache->policy_cache = slot->data;
		cache->policy_cache_kind = slot->am_kind;
	}
	Assert(cache->policy_cache_kind == am_kind);
	return cache->policy_cache;
}

/*
 * The per-backend cache of the leaf kind of an index's policy
 * (EITreePolicy.leaf): like EIGetPolicyCache, but a place of its own next
 * to the policy's, so that a leaf kind two policies share keeps its state
 * the same way under either, and neither policy's cache struct has to
 * embed it.  The same rules: zeroed the first time, no catalog, no page,
 * no invalidation, valid while the index is open.
 */
void *
EIGetLeafKindCache(Relation rel, Size size)
{
	EIRelCache *cache;

	if (EIGetPolicyChecked(rel)->leaf == NULL)
		elog(ERROR, "index \"%s\" has no policy leaf kind",
			 RelationGetRelationName(rel));
	cache = EIGetRelCache(rel);
	if (cache->leaf_cache == NULL)
	{
		EIPolicyCacheSlot *slot = ei_policy_cache_slot(rel);

		if (slot->leaf_data == NULL)
			slot->leaf_data = MemoryContextAllocZero(rel->rd_indexcxt, size);
		cache->leaf_cache = slot->leaf_data;
	}
	return cache->leaf_cache;
}

/*
 * Act as heap's owner, in a security-restricted operation with a GUC nest
 * level of its own (and search_path pinned from 17 on), until
 * EIRestoreCaller: what a SQL function does before it runs code of the
 * table's owner (index expressions and predicates, comparison support
 * functions), as amcheck's bt_index_check_internal, VACUUM and REINDEX do
 * since CVE-2022-1552, so that the owner's code cannot act with a caller's
 * (a superuser's) rights.  An error ends it with the transaction.
 */
void
EIBecomeTableOwner(Relation heap, EIOwnerSwitch *sw)
{
	GetUserIdAndSecContext(&sw->save_userid, &sw->save_sec_context);
	SetUserIdAndSecContext(heap->rd_rel->relowner,
						   sw->save_sec_context | SECURITY_RESTRICTED_OPERATION);
	sw->save_nestlevel = NewGUCNestLevel();
	EIRestrictSearchPath();
}

/*
 * Be the caller again after EIBecomeTableOwner, undoing the settings the
 * owner's code made.
 */
void
EIRestoreCaller(EIOwnerSwitch *sw)
{
	AtEOXact_GUC(false, sw->save_nestlevel);
	SetUserIdAndSecContext(sw->save_userid, sw->save_sec_context);
}

/*
 * Open an index with the given lock mode, erroring out unless the core
 * serves it; the policy then applies what this backend holds back, so
 * that the caller sees the whole index.
 *
 * The index's table is locked first (AccessShareLock, kept to the end of
 * the transaction), as the executor and DDL lock them: DROP, TRUNCATE,
 * ALTER and CLUSTER lock the table and then its indexes, so taking the
 * index first would deadlock with them.  As amcheck does, the table is
 * found before the index is locked, so the index is checked afterwards to
 * still be an index of that table (it may have been dropped and its OID
 * reused meanwhile).
 */
Relation
EIOpenIndexChecked(Oid indexoid, LOCKMODE lockmode)
{
	Relation	rel;
	const EITreePolicy *policy;
	Oid			heapoid;

	heapoid = IndexGetRelation(indexoid, true);
	if (OidIsValid(heapoid))
		LockRelationOid(heapoid, AccessShareLock);

	rel = try_relation_open(indexoid, lockmode);
	if (rel == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_OBJECT),
				 errmsg("index does not exist"),
				 errdetail("No relation has OID %u; it may have been dropped meanwhile.",
						   indexoid)));

	policy = (rel->rd_rel->relkind == RELKIND_INDEX) ? EIGetPolicy(rel) : NULL;
	if (policy == NULL)
	{
		char	   *relname = pstrdup(RelationGetRelationName(rel));
		bool		partitioned = rel->rd_rel->relkind == RELKIND_PARTITIONED_INDEX;

		relation_close(rel, lockmode);
		ereport(ERROR,
				(errcode(ERRCODE_WRONG_OBJECT_TYPE),
				 errmsg("\"%s\" is not an elastic_index index", relname),
				 partitioned ?
				 errhint("\"%s\" is a partitioned index, which holds no entries: name the index of each partition.",
						 relname) : 0));
	}

	/*
	 * Other sessions' temporary relations live in their local buffers, which
	 * we cannot read.
	 */
	if (RELATION_IS_OTHER_TEMP(rel))
	{
		char	   *relname = pstrdup(RelationGetRelationName(rel));

		relation_close(rel, lockmode);
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("cannot access temporary index \"%s\" of another session",
						relname)));
	}

	/* dropped, and its OID reused, between the lookup and the locks */
	if (rel->rd_index == NULL || rel->rd_index->indrelid != heapoid)
	{
		char	   *relname = pstrdup(RelationGetRelationName(rel));

		relation_close(rel, lockmode);
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_TABLE),
				 errmsg("could not open table of index \"%s\"", relname),
				 errhint("The index was dropped or recreated meanwhile; try again.")));
	}

	if (policy->apply_pending)
		policy->apply_pending(rel);

	return rel;
}

/*
 * The record kind a registered policy or its leaf kind added to the
 * resource manager for an info code, or NULL.
 */
const EIRecordKind *
EIGetRecordKind(uint8 info)
{
	for (int i = 0; i < ei_nrecord_tables; i++)
	{
		for (const EIRecordKind *kind = ei_record_tables[i];
			 kind->redo != NULL; kind++)
			if (kind->info == info)
				return kind;
	}
	return NULL;
}

#ifdef USE_ASSERT_CHECKING
/*
 * Relation cache callback of assert builds: no invalidation may be
 * accepted while a policy callback works on the insert's locked leaf
 * (catalog access, relation opens and rd_amcache rebuilds do not belong
 * there).  The core's own calls under the leaf lock are not covered:
 * table_index_delete_tuples may look up the tablespace's settings there,
 * as it does under nbtree's leaf lock, and the core holds no rd_amcache
 * pointer across it.
 */
static void
ei_guard_relcache_callback(Datum arg, Oid relid)
{
	if (BufferIsValid(ei_guarded_leaf) && !BufferIsLocal(ei_guarded_leaf))
		Assert(!LWLockHeldByMe(BufferDescriptorGetContentLock(GetBufferDescriptor(ei_guarded_leaf - 1))));
}

/*
 * Forget the guarded leaf when a (sub)transaction aborts: an error inside
 * a policy callback leaves it set.
 */
static void
ei_guard_xact_callback(XactEvent event, void *arg)
{
	if (event == XACT_EVENT_ABORT || event == XACT_EVENT_PARALLEL_ABORT)
		ei_guarded_leaf = InvalidBuffer;
}

/*
 * The same for a subtransaction's abort.
 */
static void
ei_guard_subxact_callback(SubXactEvent event, SubTransactionId mySubid,
						  SubTransactionId parentSubid, void *arg)
{
	if (event == SUBXACT_EVENT_ABORT_SUB)
		ei_guarded_leaf = InvalidBuffer;
}
#endif

/*
 * Register the assert builds' check that no invalidation is accepted under
 * a leaf lock of the insert path; called from _PG_init.
 */
void
EIGuardInit(void)
{
#ifdef USE_ASSERT_CHECKING
	CacheRegisterRelcacheCallback(ei_guard_relcache_callback, (Datum) 0);
	RegisterXactCallback(ei_guard_xact_callback, NULL);
	RegisterSubXactCallback(ei_guard_subxact_callback, NULL);
#endif
}

/*
 * Note the leaf a policy callback of the insert path now works on
 * (InvalidBuffer: none), for the assert builds' check
 * (ei_guard_relcache_callback).
 */
void
EIGuardLeaf(Buffer buf)
{
#ifdef USE_ASSERT_CHECKING
	ei_guarded_leaf = buf;
#endif
}
