/*-------------------------------------------------------------------------
 *
 * eielastic.h
 *	  The elastic policy (src/elastic/): the size bound that decides when
 *	  leaves change form between standard and compact (src/compact/).
 *
 * Everything here is built on the core (eitree.h) and the compact leaf
 * kind (eicompact.h) and called by the elastic_btree access method (am/)
 * and the inspection functions; the core reaches it only through the
 * EITreePolicy table am/elastic_btree.c registers.  See src/README.md,
 * "Compact leaves" and "Elasticity".
 *
 *-------------------------------------------------------------------------
 */
#ifndef EIELASTIC_H
#define EIELASTIC_H

#include "eicompact.h"

/*
 * The elastic policy's part of the metapage (EIMetaGetPolicy): the state
 * of the size policy.  Its place is the first word, where metapages of
 * every version have kept it.
 */
typedef struct EIElasticMeta
{
	uint32		state;			/* EI_STATE_*: what the size policy is doing */
} EIElasticMeta;

StaticAssertDecl(sizeof(EIElasticMeta) <= EI_META_POLICY_WORDS * sizeof(uint32),
				 "EIElasticMeta must fit the metapage's policy words");

/*
 * States of the size policy (src/README.md, "Elasticity").  NORMAL: no
 * conversions; full leaves split.  SHRINKING: the index is near its size
 * bound, so a full standard leaf is converted to a compact leaf instead of
 * being split.  EXPANDING: the index fell below the expand threshold, so
 * VACUUM converts compact leaves back.  Only elastic_btree_shrink, the
 * insert path and VACUUM change it, each by a META record.
 */
#define EI_STATE_NORMAL		0
#define EI_STATE_SHRINKING	1
#define EI_STATE_EXPANDING	2

/* The state of an elastic_btree index, read from a metapage copy. */
#define EIElasticMetaState(meta)	(EIMetaGetPolicy(meta, EIElasticMeta)->state)

/* size_bound texts insert_prepare keeps parsed are shorter than this */
#define EI_BOUND_TEXT_LEN	32

/* What a backend keeps for an elastic_btree index (EIGetPolicyCache). */
typedef struct EIElasticCache
{
	/*
	 * The size bound, parsed by insert_prepare from bound_text (the
	 * reloption or GUC string it came from, compared on every call; a new
	 * text is parsed again), and for a percentage the table's size as last
	 * read: for index file bound_relfilenode, at the start of the statement
	 * bound_read_at, bound_calls insert_prepare calls ago (see src/README.md,
	 * "Elasticity").
	 */
	bool		bound_parsed;	/* bound_text, bound_kb, bound_percent valid */
	char		bound_text[EI_BOUND_TEXT_LEN];
	int64		bound_kb;		/* -1: not a size */
	double		bound_percent;	/* -1: not a percentage */
	BlockNumber bound_heap_pages;	/* InvalidBlockNumber: not read */
	Oid			bound_relfilenode;
	TimestampTz bound_read_at;
	uint32		bound_calls;

	/*
	 * The decision the last insert_prepare took for leaf_full, which runs
	 * under the leaf's lock: a full standard leaf becomes compact when the
	 * index has at least this many pages; 0: never (split).
	 */
	int64		insert_compact_pages;
} EIElasticCache;

/* elastic_btree's reloptions (elastic/options.c) */
typedef struct EIElasticOptions
{
	int32		varlena_header_;	/* varlena header (do not touch) */
	int			fillfactor;		/* leaf page fill factor */
	int			size_bound_offset;	/* size_bound string, or 0 */
	int			deduplicate_items;	/* leaves may hold posting lists: 0, 1, or
									 * EI_RELOPT_UNSET (the setting decides) */
} EIElasticOptions;

/* elastic/options.c */
extern void EIElasticInitReloptions(void);
extern bytea *eioptions(Datum reloptions, bool validate);
extern EIDedupChoice EIElasticGetDeduplicate(Relation rel);
extern EIDedupChoice EIElasticOptionsDeduplicate(EIElasticOptions *opts);
extern int	EIElasticGetFillFactor(Relation rel);
extern const char *EIElasticGetSizeBound(Relation rel);

/* elastic/policy.c: the size bound and the shrink/expand policy */
extern void EIElasticVerifyMeta(EIVerifyContext *cxt);
extern void EIElasticInit(void);
extern void EIElasticInitGUCs(void);
extern bool ei_deduplicate_items;
/* Is this index one of this policy's? */
#define EIRelIsElastic(rel)	EIRelServedBy((rel), EI_AM_ELASTIC_BTREE)
extern void EIElasticBuildBegin(Relation index);
extern EIBuildLeavesChoice EIElasticBuildLeaves(Relation index, Relation heap,
												double ntuples,
												double standard_leaves);
extern void EIElasticBuildMeta(Relation index, EIMetaPage meta, bool kind_leaves);
extern void EIElasticInsertPrepare(Relation rel, Relation heapRel);
extern bool EIElasticLeafFull(EIInsertState istate);
extern void EIElasticInsertDone(EIInsertState istate);
extern bool EIElasticMarkLeafReads(Relation rel, bool policy_leaf);
extern int64 EIElasticBoundPages(Relation rel);
extern void EIElasticSetState(Relation rel, uint32 state);
extern void EIElasticVacuum(Relation rel);
extern uint32 EIElasticGetState(Relation rel);
extern Relation EIElasticOpenForConversion(Oid indexoid, LOCKMODE lockmode);
extern int64 EIElasticShrink(Relation rel, int64 max_leaves);
extern int64 EIElasticExpand(Relation rel, int64 max_leaves);
extern bool EIValidateSizeBound(const char *value, char **hint);
extern bool EIParseSizeBound(const char *value, int64 *kb, double *percent,
							 const char **hint);
extern bool EIElasticStandardPassesBound(double standard_leaves, int64 bound);
extern const char *EIElasticDefaultBound(void);

#endif							/* EIELASTIC_H */
