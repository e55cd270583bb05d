/*-------------------------------------------------------------------------
 *
 * eiam.h
 *	  The access methods (src/am/): elastic_btree and osm_tree, each the
 *	  core tree with a policy's callbacks in its EITreePolicy table, and
 *	  the operator classes' support functions.
 *
 *-------------------------------------------------------------------------
 */
#ifndef EIAM_H
#define EIAM_H

#include "eitree.h"

/* am/validate.c */
extern bool eivalidate(Oid opclassoid);
extern bool eiproperty(Oid index_oid, int attno, IndexAMProperty prop,
					   const char *propname, bool *res, bool *isnull);

/* am/elastic_btree.c */
extern void EIElasticBtreeInit(void);
extern Datum elastic_btree_handler(PG_FUNCTION_ARGS);
extern bool eiinsert(Relation rel, Datum *values, bool *isnull,
					 ItemPointer ht_ctid, Relation heapRel,
					 IndexUniqueCheck checkUnique, bool indexUnchanged,
					 IndexInfo *indexInfo);
extern bool eicanreturn(Relation index, int attno);

/* am/osm_tree.c */
extern void EIOsmTreeInit(void);
extern Datum osm_tree_handler(PG_FUNCTION_ARGS);
extern bool osminsert(Relation rel, Datum *values, bool *isnull,
					  ItemPointer ht_ctid, Relation heapRel,
					  IndexUniqueCheck checkUnique, bool indexUnchanged,
					  IndexInfo *indexInfo);

#endif							/* EIAM_H */
