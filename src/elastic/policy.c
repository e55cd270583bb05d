/*-------------------------------------------------------------------------
 *
 * policy.c
 *	  The size policy of elastic_btree: the size bound, the shrink and
 *	  expand thresholds, the state in the metapage, expansion by VACUUM,
 *	  and the SQL functions that shrink or expand an index on demand.
 *
 * The bound comes from the index's size_bound reloption or, if unset, the
 * GUC elastic_btree.size_bound: a size ('64MB') or a share of the table's
 * size ('50%').  When a leaf is full and the index is at least
 * shrink_threshold of its bound, the leaf becomes compact instead of
 * splitting (state SHRINKING).  When VACUUM finds the index below
 * expand_threshold of its bound, it converts compact leaves back (state
 * EXPANDING) until the index reaches the middle of the two thresholds or
 * no compact leaf is left (state NORMAL).  The gap between the thresholds
 * keeps a busy index from converting leaves to and fro.  See src/README.md,
 * "Elasticity".
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/relation.h"
#include "access/reloptions.h"
#include "access/table.h"
#include "access/xloginsert.h"
#include "access/tupmacs.h"
#include "access/xact.h"
#include <math.h>
#include "eielastic.h"
#include "fmgr.h"
#include "miscadmin.h"
#include "storage/bufmgr.h"
#include "utils/acl.h"
#include "utils/guc.h"
#include "utils/lsyscache.h"
#include "utils/rel.h"
#include "utils/timestamp.h"

/* leaf fill assumed when estimating the size of an expanded index */
#define EI_EXPANDED_FILL	0.7

/*
 * How stale the table's size behind a percentage bound may get in
 * insert_prepare: read again after this many calls, or at the first call of
 * a statement that started this many milliseconds after the last read.
 */
#define EI_BOUND_REFRESH_CALLS	64
#define EI_BOUND_REFRESH_MS		1000

/* GUCs */
static char *ei_size_bound = NULL;

/* elastic_btree.deduplicate_items: posting lists where the reloption is unset */
bool		ei_deduplicate_items = true;
static double ei_shrink_threshold = 0.9;
static double ei_expand_threshold = 0.7;

/* what a size bound may be, for the hints of rejected values */
#define EI_SIZE_BOUND_FORMS \
	"Use a positive size with a unit, such as '64MB', a percentage of the table's size, such as '50%', or 'none' for no bound."

/*
 * Parse a size bound: a size with a unit (kB, MB, GB, TB; a bare number is
 * kB), a percentage of the table's size, or 'none' (no bound; as is NULL,
 * an unset reloption).  Sets *kb or *percent (the other is -1; both for
 * none) and returns true, or returns false with *hint set.  The empty
 * string, the old spelling of none, still means none, so that dumps and
 * settings made before 'none' existed still load; the validators say so
 * (a warning for the storage parameter, 'none' shown for the setting).
 */
static bool
ei_parse_size_bound(const char *value, int64 *kb, double *percent,
					const char **hint)
{
	size_t		len;

	*kb = -1;
	*percent = -1;
	*hint = NULL;
	if (value == NULL || value[0] == '\0' || pg_strcasecmp(value, "none") == 0)
		return true;

	len = strlen(value);
	if (value[len - 1] == '%')
	{
		char	   *end;
		double		p = strtod(value, &end);

		if (end != value + len - 1 || !(p > 0 && p <= 1000))
		{
			*hint = "A percentage must be a number above 0 and at most 1000, followed by %. " EI_SIZE_BOUND_FORMS;
			return false;
		}
		*percent = p;
		return true;
	}
	else
	{
		int			result;

		if (!parse_int(value, &result, GUC_UNIT_KB, hint) || result <= 0)
		{
			if (*hint == NULL)
				*hint = EI_SIZE_BOUND_FORMS;
			return false;
		}
		*kb = result;
		return true;
	}
}

/*
 * Check a size_bound value (reloption validator and GUC check hook);
 * returns false with *hint set if it is invalid.
 */
bool
EIValidateSizeBound(const char *value, char **hint)
{
	int64		kb;
	double		percent;
	const char *h;

	if (ei_parse_size_bound(value, &kb, &percent, &h))
		return true;
	*hint = pstrdup(h ? h : EI_SIZE_BOUND_FORMS);
	return false;
}

/*
 * GUC check hook of elastic_btree.size_bound.
 */
static bool
ei_check_size_bound(char **newval, void **extra, GucSource source)
{
	char	   *hint = NULL;

	/* the old spelling of none: show what it means */
	if (*newval != NULL && (*newval)[0] == '\0')
	{
		char	   *none = EIGucStrdup("none");

		if (none == NULL)
			return false;
		EIGucFree(*newval);
		*newval = none;
		return true;
	}
	if (EIValidateSizeBound(*newval, &hint))
		return true;
	GUC_check_errdetail("\"%s\" is not a size bound.", *newval);
	GUC_check_errhint("%s", hint);
	return false;
}

/*
 * Define the policy's GUCs; called from _PG_init.
 */
void
EIElasticInitGUCs(void)
{
	DefineCustomStringVariable("elastic_btree.size_bound",
							   "Default size bound of elastic_btree indexes: a size such as '64MB', a share of the table's size such as '50%', or 'none'.",
							   "The index reloption size_bound overrides it.",
							   &ei_size_bound,
							   "none",
							   PGC_USERSET, 0,
							   ei_check_size_bound, NULL, NULL);
	DefineCustomBoolVariable("elastic_btree.deduplicate_items",
							 "Whether elastic_btree indexes merge entries with equal keys into posting lists.",
							 "The index reloption deduplicate_items overrides it.",
							 &ei_deduplicate_items,
							 true,
							 PGC_USERSET, 0,
							 NULL, NULL, NULL);
	DefineCustomRealVariable("elastic_btree.shrink_threshold",
							 "Share of its size bound at which an elastic_btree index makes full leaves compact instead of splitting them.",
							 NULL,
							 &ei_shrink_threshold,
							 0.9, 0.1, 1.0,
							 PGC_USERSET, 0,
							 NULL, NULL, NULL);
	DefineCustomRealVariable("elastic_btree.expand_threshold",
							 "Share of its size bound below which VACUUM converts an elastic_btree index's compact leaves back; kept below shrink_threshold.",
							 NULL,
							 &ei_expand_threshold,
							 0.7, 0.0, 1.0,
							 PGC_USERSET, 0,
							 NULL, NULL, NULL);
}

/*
 * The expand threshold actually used: never above the shrink threshold.
 */
static double
ei_effective_expand_threshold(void)
{
	return Min(ei_expand_threshold, ei_shrink_threshold);
}

/*
 * Size in pages of the index's table: heap if that is it (open), else the
 * table opened here.
 */
static BlockNumber
ei_table_pages(Relation rel, Relation heap)
{
	BlockNumber pages;

	if (heap != NULL && RelationGetRelid(heap) == rel->rd_index->indrelid)
		return RelationGetNumberOfBlocks(heap);
	heap = table_open(rel->rd_index->indrelid, AccessShareLock);
	pages = RelationGetNumberOfBlocks(heap);
	table_close(heap, AccessShareLock);
	return pages;
}

/*
 * Size bound of an index in pages, or -1 if it has none.  A percentage is
 * of the table's current size (at least one page): heap is the index's
 * table, open, or NULL to open it here (which accepts invalidations).
 */
static int64
ei_bound_pages(Relation rel, Relation heap)
{
	const char *value = ei_size_bound;
	int64		kb;
	double		percent;
	const char *hint;

	if (!EIRelIsElastic(rel))
		return -1;				/* only elastic_btree has a size bound */
	if (EIElasticGetSizeBound(rel) != NULL)
		value = EIElasticGetSizeBound(rel);
	if (!ei_parse_size_bound(value, &kb, &percent, &hint))
		return -1;				/* validated when set; cannot happen */
	if (kb > 0)
		return Max(kb * 1024 / BLCKSZ, 1);
	if (percent > 0)
		return Max((int64) (ei_table_pages(rel, heap) * percent / 100.0), 1);
	return -1;
}

/*
 * Size bound of an index in pages, or -1 if it has none, for insert_prepare,
 * which runs for every inserted entry: as ei_bound_pages, but from the
 * policy's cache.  The bound's text (the reloption, or the GUC when that is
 * unset) is compared with the text the cached bound was parsed from, so a
 * changed bound applies at the next call; a percentage uses the table's
 * size as read at most EI_BOUND_REFRESH_CALLS calls ago, and at the latest
 * in the first call of a statement that started EI_BOUND_REFRESH_MS after
 * the read, and again at once for a new index file (TRUNCATE, a rewrite).
 * heap is the index's table, open (or NULL: opened here).
 */
static int64
ei_cached_bound_pages(Relation rel, Relation heap)
{
	const char *value = EIElasticGetSizeBound(rel);
	EIElasticCache *cache;
	Oid			relfilenode = EIRelFileNumber(EIRelationLocator(rel));
	TimestampTz stmt_start = GetCurrentStatementStartTimestamp();

	if (value == NULL)
		value = ei_size_bound ? ei_size_bound : "none";
	cache = EIGetPolicyCache(rel, EI_AM_ELASTIC_BTREE, sizeof(EIElasticCache));
	if (!cache->bound_parsed || strcmp(cache->bound_text, value) != 0)
	{
		const char *hint;
		int64		kb;
		double		percent;

		if (!ei_parse_size_bound(value, &kb, &percent, &hint))
			kb = percent = -1;	/* validated when set; cannot happen */
		cache->bound_kb = kb;
		cache->bound_percent = percent;
		cache->bound_heap_pages = InvalidBlockNumber;
		/* a text too long to keep is parsed again next time */
		cache->bound_parsed = strlen(value) < sizeof(cache->bound_text);
		if (cache->bound_parsed)
			strcpy(cache->bound_text, value);
	}
	if (cache->bound_kb > 0)
		return Max(cache->bound_kb * 1024 / BLCKSZ, 1);
	if (cache->bound_percent <= 0)
		return -1;

	if (cache->bound_heap_pages == InvalidBlockNumber ||
		cache->bound_relfilenode != relfilenode ||
		++cache->bound_calls >= EI_BOUND_REFRESH_CALLS ||
		TimestampDifferenceExceeds(cache->bound_read_at, stmt_start,
								   EI_BOUND_REFRESH_MS))
	{
		BlockNumber heappages;

		heappages = ei_table_pages(rel, heap);
		/* table_open accepts invalidations: find the cache again */
		cache = EIGetPolicyCache(rel, EI_AM_ELASTIC_BTREE,
								 sizeof(EIElasticCache));
		cache->bound_heap_pages = heappages;
		cache->bound_relfilenode = relfilenode;
		cache->bound_read_at = stmt_start;
		cache->bound_calls = 0;
	}
	return Max((int64) (cache->bound_heap_pages * cache->bound_percent / 100.0),
			   1);
}

/*
 * Size bound of an index in pages, or -1 if it has none (ei_bound_pages);
 * opens the table for a percentage, so never call it under a page lock.
 */
int64
EIElasticBoundPages(Relation rel)
{
	return ei_bound_pages(rel, NULL);
}

/*
 * Parse a size bound ('64MB' or '50%'): exported for the hypothetical
 * index size model (hypo/hypothetical.c).
 */
bool
EIParseSizeBound(const char *value, int64 *kb, double *percent,
				 const char **hint)
{
	return ei_parse_size_bound(value, kb, percent, hint);
}

/*
 * The index size in pages at which a bound of bound pages starts making
 * leaves compact: shrink_threshold of it, at least one page.
 */
static int64
ei_shrink_pages(int64 bound)
{
	return Max((int64) ceil(ei_shrink_threshold * bound), 1);
}

/*
 * Would an index whose leaf level takes standard_leaves standard leaves
 * (plus one inner page per hundred leaves and two, as ei_expanded_pages
 * counts) reach where a bound of bound pages starts making leaves compact?
 * The rule of builds (EIElasticBuildLeaves) and of the hypothetical
 * index's size model.
 */
bool
EIElasticStandardPassesBound(double standard_leaves, int64 bound)
{
	return bound > 0 && standard_leaves + floor(standard_leaves / 100) + 2 >=
		ei_shrink_pages(bound);
}

/*
 * The current elastic_btree.size_bound, or NULL when it is 'none'.
 */
const char *
EIElasticDefaultBound(void)
{
	return (ei_size_bound != NULL && pg_strcasecmp(ei_size_bound, "none") != 0) ?
		ei_size_bound : NULL;
}

/*
 * Record the policy's state in the metapage (WAL-logged) and in our cache.
 */
void
EIElasticSetState(Relation rel, uint32 state)
{
	Buffer		metabuf = EIGetBuf(rel, EI_METAPAGE, EI_WRITE);
	EIMetaPage	meta = EIPageGetMeta(BufferGetPage(metabuf));

	/* before the page is changed and cached */
	EICheckMetaPage(rel, metabuf);
	if (EIElasticMetaState(meta) != state)
	{
		START_CRIT_SECTION();

		EIElasticMetaState(meta) = state;
		MarkBufferDirty(metabuf);
		EILogMetaPage(rel, metabuf);

		END_CRIT_SECTION();
	}
	EISetMetaCached(rel, meta);
	EIRelBuf(rel, metabuf);
}

/*
 * Walk the leaf level left to right converting leaves: to compact ones
 * (shrink) or back to standard ones (expand), splitting a compact leaf
 * whose entries do not fit in one standard leaf first.  With
 * preferred_only, only the leaves converted first are: for expansion the
 * hot compact leaves, those a scan read since the last VACUUM
 * (EI_ACCESSED), for shrinking the cold standard leaves, those no scan read
 * since then (scans set the hint on standard leaves while the index is
 * SHRINKING).  With half_full, a standard leaf less than half full is not
 * made compact.  Stops after max_leaves conversions (-1: no limit); when
 * expanding with stop_pages > 0, a leaf that needs a split is left compact
 * once the index has that many pages.  Returns the number of leaves
 * converted; *remaining counts the compact leaves left behind.
 */
static int64
ei_convert_pass(Relation rel, Relation heap, bool shrink, bool preferred_only,
				bool half_full, int64 max_leaves, int64 stop_pages,
				int64 *remaining)
{
	Buffer		buf = EIGetEndpoint(rel, 0, false);
	BlockNumber blkno = BufferGetBlockNumber(buf);
	int64		converted = 0;
	EIStackData hints[EI_PARENT_HINT_LEVELS];

	/* splits go left to right: each parent is found where the last one was */
	EIInitParentHints(hints, EI_PARENT_HINT_LEVELS, 0);
	EIRelBuf(rel, buf);
	*remaining = 0;
	while (BlockNumberIsValid(blkno))
	{
		Page		page;
		EIPageOpaque opaque;
		bool		compact;

		CHECK_FOR_INTERRUPTS();
		buf = EIGetBuf(rel, blkno, EI_WRITE);
		page = BufferGetPage(buf);
		opaque = EIPageGetOpaque(page);
		if (EI_INCOMPLETE(opaque))
		{
			/* finish a split a crash interrupted before changing the page */
			EIFinishSplit(rel, buf, hints);
			continue;
		}
		compact = (opaque->ei_flags & EI_COMPACT) != 0;

		if (!EI_IGNORE(opaque) && compact != shrink &&
			(!preferred_only ||
			 ((opaque->ei_flags & EI_ACCESSED) != 0) == !shrink) &&
			(!half_full || compact ||
			 PageGetFreeSpace(page) < (BLCKSZ - SizeOfPageHeaderData) / 2))
		{
			if (max_leaves >= 0 && converted >= max_leaves)
			{
				if (compact)
					(*remaining)++;
			}
			else if (shrink)
			{
				if (EICompactConvert(rel, buf))
					converted++;
			}
			else if (EICompactExpand(rel, heap, buf))
				converted++;
			else if (stop_pages > 0 &&
					 RelationGetNumberOfBlocks(rel) >= stop_pages)
			{
				/* expanding it would need a new page the bound cannot spare */
				(*remaining)++;
			}
			else
			{
				/* too many entries for one standard leaf: halve, retry */
				EICompactSplitLeaf(rel, heap, buf, hints);
				continue;
			}
		}
		else if (compact)
			(*remaining)++;

		blkno = opaque->ei_next;
		EIRelBuf(rel, buf);
	}
	return converted;
}

/*
 * Convert leaves (see ei_convert_pass).  Expanding takes the hot compact
 * leaves, those scans read since the last VACUUM, before the others, so
 * that a limit (max_leaves, or the bound's room for splits) leaves the cold
 * ones compact: they cost heap reads only when somebody reads them.
 * Shrinking likewise takes the cold standard leaves first.
 */
static int64
ei_convert_leaves(Relation rel, Relation heap, bool shrink, int64 max_leaves,
				  int64 stop_pages, int64 *remaining)
{
	int64		converted;

	converted = ei_convert_pass(rel, heap, shrink, true, false, max_leaves,
								stop_pages, remaining);
	if (max_leaves >= 0)
		max_leaves = Max(max_leaves - converted, 0);
	return converted + ei_convert_pass(rel, heap, shrink, false, false,
									   max_leaves, stop_pages, remaining);
}

/*
 * Clear the EI_ACCESSED hints of the leaves, so that "hot" means read
 * since this VACUUM.  A hint: share locks, no WAL.
 */
static void
ei_age_access_hints(Relation rel)
{
	Buffer		buf = EIGetEndpoint(rel, 0, false);

	for (;;)
	{
		Page		page = BufferGetPage(buf);
		EIPageOpaque opaque = EIPageGetOpaque(page);
		BlockNumber next = opaque->ei_next;

		if (opaque->ei_flags & EI_ACCESSED)
		{
			opaque->ei_flags &= ~EI_ACCESSED;
			MarkBufferDirtyHint(buf, true);
		}
		if (!BlockNumberIsValid(next))
			break;
		buf = EIRelAndGetBuf(rel, buf, next, EI_READ);
	}
	EIRelBuf(rel, buf);
}

/*
 * Entries a standard leaf of this index holds once inserts have filled and
 * split it for a while: about 70% of its capacity, the fill that scattered
 * inserts leave (ln 2), never more than the fill factor.  A fixed-width
 * column counts its width, a variable-width one (text, bytea) the average
 * width ANALYZE found in the table's column, else the type's guess; an
 * entry counts at most as a whole item (stale or odd statistics).
 */
static double
ei_standard_leaf_entries(Relation rel)
{
	TupleDesc	desc = RelationGetDescr(rel);
	Size		data = 0;
	Size		tupsz;
	Size		usable;

	for (int i = 0; i < desc->natts; i++)
	{
		Form_pg_attribute att = TupleDescAttr(desc, i);
		int32		width = att->attlen;

		if (width < 0)
		{
			width = get_attavgwidth(rel->rd_index->indrelid,
									rel->rd_index->indkey.values[i]);
			if (width <= 0)
				width = get_typavgwidth(att->atttypid, att->atttypmod);
		}
		data = att_align_nominal(data, att->attalign) + width;
	}
	tupsz = Min(MAXALIGN(sizeof(IndexTupleData) + data), EI_MAX_ITEM_SIZE);
	usable = BLCKSZ - SizeOfPageHeaderData - MAXALIGN(sizeof(EIPageOpaqueData)) -
		(tupsz + sizeof(ItemPointerData) + sizeof(ItemIdData));
	return Max(1.0, (double) usable / (tupsz + sizeof(ItemIdData)) *
			   Min(EI_EXPANDED_FILL, EIGetFillFactor(rel) / 100.0));
}

/*
 * Pages the index's entries need in standard leaves (ei_standard_leaf_entries),
 * plus about one inner page per hundred leaves and the metapage.  A walk of
 * the leaf level under share locks, reading no heap tuple.  *ncompact is
 * the number of compact leaves.  Neither the file's length nor the number
 * of leaves is a measure here: deletes leave leaves sparse and the file as
 * long as before, while what the policy asks is whether the data now fits
 * well under the bound in standard form.
 */
static int64
ei_expanded_pages(Relation rel, int64 *ncompact)
{
	Buffer		buf = EIGetEndpoint(rel, 0, false);
	int64		entries = 0;
	int64		leaves;

	*ncompact = 0;
	for (;;)
	{
		Page		page = BufferGetPage(buf);
		EIPageOpaque opaque = EIPageGetOpaque(page);
		BlockNumber next = opaque->ei_next;

		CHECK_FOR_INTERRUPTS();
		if (!EI_IGNORE(opaque))
		{
			if (opaque->ei_flags & EI_COMPACT)
			{
				(*ncompact)++;
				entries += EICompactNKeys(page);
			}
			else if (PageGetMaxOffsetNumber(page) >= EI_FIRST_DATA(opaque))
				entries += PageGetMaxOffsetNumber(page) - EI_FIRST_DATA(opaque) + 1;
		}
		if (!BlockNumberIsValid(next))
			break;
		buf = EIRelAndGetBuf(rel, buf, next, EI_READ);
	}
	EIRelBuf(rel, buf);

	leaves = (int64) ceil(entries / ei_standard_leaf_entries(rel));
	return leaves + leaves / 100 + 2;
}

/*
 * VACUUM's part of the policy, called at the end of every VACUUM of the
 * index: when the index, expanded, would use less than expand_threshold of
 * its bound, convert compact leaves back.  A compact leaf whose entries fit
 * one standard leaf is converted in place; one that needs a split is
 * converted only while the file is below halfway between the thresholds.
 */
void
EIElasticVacuum(Relation rel)
{
	uint32		state = EIElasticMetaState(EIGetMetaCached(rel, true));
	int64		bound;
	int64		remaining;
	int64		ncompact;
	Relation	heap;

	/* the state is copied: the lookups below may rebuild rd_amcache */
	if (state == EI_STATE_NORMAL || EICompactInfo(rel) == NULL)
		return;
	bound = EIElasticBoundPages(rel);
	if (bound <= 0)
		return;
	if (ei_expanded_pages(rel, &ncompact) >= ei_effective_expand_threshold() * bound)
	{
		/*
		 * Still shrinking: make the cold standard leaves that are at least
		 * half full compact now, so that the hot ones need not be when
		 * they fill.  Conversion reads no heap tuple.
		 */
		if (state == EI_STATE_SHRINKING)
			(void) ei_convert_pass(rel, NULL, true, true, true, -1, -1,
								   &remaining);
		ei_age_access_hints(rel);
		return;
	}
	if (ncompact == 0)
	{
		EIElasticSetState(rel, EI_STATE_NORMAL);
		return;
	}

	EIElasticSetState(rel, EI_STATE_EXPANDING);
	heap = table_open(rel->rd_index->indrelid, AccessShareLock);
	(void) ei_convert_leaves(rel, heap, false, -1,
							 (int64) (bound * (ei_effective_expand_threshold() +
											   ei_shrink_threshold) / 2),
							 &remaining);
	table_close(heap, AccessShareLock);
	if (remaining == 0)
		EIElasticSetState(rel, EI_STATE_NORMAL);
	else
		ei_age_access_hints(rel);
}

/*
 * Open an elastic_btree index for a conversion function (RowExclusiveLock
 * to convert it, AccessShareLock to have its shards converted), checking
 * that the caller owns it and that its leaves can be compact.
 */
Relation
EIElasticOpenForConversion(Oid indexoid, LOCKMODE lockmode)
{
	Relation	rel = EIOpenIndexChecked(indexoid, lockmode);

	if (!EIRelationOwnerCheck(indexoid, GetUserId()))
		aclcheck_error(ACLCHECK_NOT_OWNER, OBJECT_INDEX,
					   RelationGetRelationName(rel));
	if (!EIRelIsElastic(rel))
		ereport(ERROR,
				(errcode(ERRCODE_WRONG_OBJECT_TYPE),
				 errmsg("index \"%s\" is an osm_tree index",
						RelationGetRelationName(rel)),
				 errdetail("Only elastic_btree indexes have compact leaves and a size bound.")));
	if (EICompactInfo(rel) == NULL)
	{
		EINormKeyInfo *norm = EIGetNormKeyInfo(rel);

		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("index \"%s\" cannot have compact leaves",
						RelationGetRelationName(rel)),
				 errdetail("%s.", !norm->ok ? norm->reason :
						   "its table is not a heap table"),
				 errhint("Compact leaves need plain key columns whose types have normalized keys, such as integers, floats, date and time types, uuid, bool, oid, bytea, and text under the C collation or a deterministic ICU collation.")));
	}
	return rel;
}

/*
 * Convert up to max_leaves standard leaves (all if -1) of an index opened
 * by EIElasticOpenForConversion to compact leaves, left to right, and put
 * the index in the SHRINKING state, in which full leaves become compact
 * instead of splitting; returns the number of leaves converted.
 */
int64
EIElasticShrink(Relation rel, int64 max_leaves)
{
	Relation	heap;
	int64		converted;
	int64		remaining;
	EIOwnerSwitch owner;

	/* the index's support functions are the table owner's code */
	heap = table_open(rel->rd_index->indrelid, AccessShareLock);
	EIBecomeTableOwner(heap, &owner);
	EIElasticSetState(rel, EI_STATE_SHRINKING);
	converted = ei_convert_leaves(rel, NULL, true, max_leaves, -1, &remaining);
	EIRestoreCaller(&owner);
	table_close(heap, AccessShareLock);
	return converted;
}

/*
 * Convert compact leaves of an index opened by EIElasticOpenForConversion
 * back to standard leaves (splitting where the entries need more than one
 * page): all of them (max_leaves -1), putting the index in the NORMAL
 * state, or the first max_leaves of them, hot ones (read since the last
 * VACUUM) first, leaving it EXPANDING; returns the number converted back.
 */
int64
EIElasticExpand(Relation rel, int64 max_leaves)
{
	Relation	heap;
	int64		converted;
	int64		remaining;
	EIOwnerSwitch owner;

	heap = table_open(rel->rd_index->indrelid, AccessShareLock);
	/* the index's support functions are the table owner's code */
	EIBecomeTableOwner(heap, &owner);
	EIElasticSetState(rel, EI_STATE_EXPANDING);
	converted = ei_convert_leaves(rel, heap, false, max_leaves, -1, &remaining);
	if (remaining == 0)
		EIElasticSetState(rel, EI_STATE_NORMAL);
	EIRestoreCaller(&owner);
	table_close(heap, AccessShareLock);
	return converted;
}

/*
 * The state of the size policy of an elastic_btree index, from the cached
 * metapage.
 */
uint32
EIElasticGetState(Relation rel)
{
	return EIElasticMetaState(EIGetMetaCached(rel, false));
}

/*
 * Before a build (EITreePolicy.build_begin): an index whose entries have no
 * normalized keys can never convert leaves to the compact form; say so
 * once, here, rather than when it reaches a size bound.
 */
void
EIElasticBuildBegin(Relation index)
{
	EINormKeyInfo *norm = EIGetNormKeyInfo(index);

	if (!norm->ok)
		ereport(NOTICE,
				(errmsg("index \"%s\" will always keep standard leaves",
						RelationGetRelationName(index)),
				 errdetail("Compact leaves need normalized keys, but %s.",
						   norm->reason)));
	pfree(norm);
}

/*
 * Form a build's leaves compact (EITreePolicy.build_leaves)?  Without a
 * bound, or for keys that cannot be compact, never.  Otherwise the loader
 * measures first: the sorted entries go into standard leaves (posting lists
 * where the index deduplicates, the entries' real widths) until a sample
 * says how many leaves all of them would take; when those, with about one
 * inner page per hundred leaves and the metapage, would take
 * shrink_threshold of the bound or more (where an insert's leaf_full would
 * start converting), the rest of the leaves are formed compact.  VACUUM
 * does not expand the index back at once: its estimate counts entries at
 * 70% fill, more than the build's leaves at the fill factor, so it stays
 * above expand_threshold of the bound.  Reads catalogs and the table's
 * size; no buffer lock is held.
 */
EIBuildLeavesChoice
EIElasticBuildLeaves(Relation index, Relation heap, double ntuples,
					 double standard_leaves)
{
	int64		bound = ei_bound_pages(index, heap);

	if (bound <= 0)
		return EI_BUILD_STANDARD;
	if (standard_leaves < 0)
		return EICompactInfo(index) != NULL ? EI_BUILD_MEASURE :
			EI_BUILD_STANDARD;
	return EIElasticStandardPassesBound(standard_leaves, bound) ?
		EI_BUILD_KIND : EI_BUILD_STANDARD;
}

/*
 * The size policy's state in the metapage a build writes
 * (EITreePolicy.build_meta): SHRINKING when it formed compact leaves, as
 * after inserts that converted leaves, so that VACUUM expands them once the
 * data shrinks; else NORMAL (EIInitMetaPage's zeros).
 */
void
EIElasticBuildMeta(Relation index, EIMetaPage meta, bool kind_leaves)
{
	if (kind_leaves)
		EIElasticMetaState(meta) = EI_STATE_SHRINKING;
}

/*
 * Before an insert takes a leaf lock (EITreePolicy.insert_prepare): decide
 * whether a full standard leaf of this index should become compact instead
 * of splitting, for leaf_full to read under the leaf's lock.  Yes when the
 * index can have compact leaves (catalog lookups, once per relcache entry)
 * and either elastic_btree_shrink or an earlier insert put it in the
 * SHRINKING state (the cached metapage), or it is at least shrink_threshold
 * of its size bound (parsed once per bound text, with the table's size for
 * a percentage refreshed as ei_cached_bound_pages says; the index's own
 * size, which leaf_full reads).
 */
void
EIElasticInsertPrepare(Relation rel, Relation heapRel)
{
	int64		compact_pages = 0;
	EIElasticCache *cache;

	if (EICompactInfo(rel) != NULL)
	{
		if (EIElasticGetState(rel) == EI_STATE_SHRINKING)
			compact_pages = 1;
		else
		{
			int64		bound = ei_cached_bound_pages(rel, heapRel);

			if (bound > 0)
				compact_pages = ei_shrink_pages(bound);
		}
	}

	/* the policy's cache outlives relcache rebuilds: see EIGetPolicyCache */
	cache = EIGetPolicyCache(rel, EI_AM_ELASTIC_BTREE, sizeof(EIElasticCache));
	cache->insert_compact_pages = compact_pages;
}

/*
 * A full standard leaf (EITreePolicy.leaf_full): near the size bound it
 * becomes compact instead of splitting, as insert_prepare decided, unless
 * the entry's key is too long for a compact leaf (remembered in
 * istate->policy_memo across retries).  Runs under the leaf's lock: reads
 * the policy's cache (filled by insert_prepare, so EICompactInfo does no
 * lookup) and the index's size, no catalog and no metapage.
 */
bool
EIElasticLeafFull(EIInsertState istate)
{
	Relation	rel = istate->rel;
	EIElasticCache *cache;

	cache = EIGetPolicyCache(rel, EI_AM_ELASTIC_BTREE, sizeof(EIElasticCache));
	if (cache->insert_compact_pages <= 0 || EICompactInfoCached(rel) == NULL ||
		RelationGetNumberOfBlocks(rel) < cache->insert_compact_pages)
		return false;
	if (istate->policy_memo < 0)
		istate->policy_memo = EICompactKeyFits(rel, istate->itup) ? 1 : 0;
	return istate->policy_memo > 0 && EICompactConvert(rel, istate->buf);
}

/*
 * After an insert that made a leaf compact (EITreePolicy.insert_done):
 * the index is shrinking.
 */
void
EIElasticInsertDone(EIInsertState istate)
{
	Relation	rel = istate->rel;

	if (EIElasticGetState(rel) != EI_STATE_SHRINKING)
		EIElasticSetState(rel, EI_STATE_SHRINKING);
}

/*
 * Should a scan mark the leaf it read (EI_ACCESSED)?  A compact leaf
 * always, for VACUUM's expansion (hot leaves first); a standard one while
 * shrinking, so that the cold leaves become compact first.
 */
bool
EIElasticMarkLeafReads(Relation rel, bool policy_leaf)
{
	EIRelCache *cache = (EIRelCache *) rel->rd_amcache;

	if (policy_leaf)
		return true;
	/* no page read: the leaf is locked; an index not yet cached is not */
	return cache != NULL && cache->meta_valid &&
		EIElasticMetaState(&cache->meta) == EI_STATE_SHRINKING;
}

/*
 * elastic_index_check on the elastic policy's part of the metapage
 * (EITreePolicy.verify_extra): a known state, and zeros in the words only
 * an osm_tree uses.
 */
void
EIElasticVerifyMeta(EIVerifyContext *cxt)
{
	const EIMetaPageData *meta = cxt->meta;
	uint32		state = EIElasticMetaState(meta);

	if (state != EI_STATE_NORMAL && state != EI_STATE_SHRINKING &&
		state != EI_STATE_EXPANDING)
		EIVerifyCorrupt(cxt, EI_METAPAGE, InvalidOffsetNumber,
						"metapage has size policy state %u", state);
	for (int i = 1; i < EI_META_POLICY_WORDS; i++)
		if (meta->policy[i] != 0)
			EIVerifyCorrupt(cxt, EI_METAPAGE, InvalidOffsetNumber,
							"metapage policy word %d is %u, expected 0 in an elastic_btree index",
							i, meta->policy[i]);
}
