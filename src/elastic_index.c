/*-------------------------------------------------------------------------
 *
 * elastic_index.c
 *	  Library entry point: registers the WAL resource manager, reloptions
 *	  and GUC prefixes, and checks that the library was preloaded.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "eistats.h"
#include "eitree.h"
#include "fmgr.h"
#include "miscadmin.h"
#include "utils/guc.h"

PG_MODULE_MAGIC;

/* true once our resource manager is registered (only when preloaded) */
bool		ei_rmgr_registered = false;

static const struct config_enum_entry ei_fault_options[] = {
	{"none", EI_FAULT_NONE, false},
	{"after_halfdead", EI_FAULT_AFTER_HALFDEAD, false},
	{"after_unlink", EI_FAULT_AFTER_UNLINK, false},
	{"after_split", EI_FAULT_AFTER_SPLIT, false},
	{"after_seal", EI_FAULT_AFTER_SEAL, false},
	{"after_flush_insert", EI_FAULT_AFTER_FLUSH_INSERT, false},
	{NULL, 0, false}
};

/*
 * Load-time initialization.
 *
 * The WAL resource manager can only be registered while the postmaster
 * loads shared_preload_libraries; backends inherit it.  Loading the library
 * any other way still defines reloptions, so that existing indexes can be
 * read, but every operation that writes WAL refuses to run.
 */
void
_PG_init(void)
{
	if (process_shared_preload_libraries_in_progress)
	{
		EIRmgrRegister();
		ei_rmgr_registered = true;
		EIActivityInit();
	}

	EIInitReloptions();
	EIElasticInitGUCs();
	OsmInitGUCs();
	EIBatchInit();
	EIHypoInit();

	DefineCustomEnumVariable("elastic_index.debug_fault",
							 "Stops a split, a page deletion or an osm_tree buffer flush with an error after the given WAL-logged step (crash tests only).",
							 NULL,
							 &ei_debug_fault,
							 EI_FAULT_NONE,
							 ei_fault_options,
							 PGC_SUSET,
							 GUC_NOT_IN_SAMPLE,
							 NULL, NULL, NULL);

	MarkGUCPrefixReserved("elastic_index");
	MarkGUCPrefixReserved("elastic_btree");
}

/*
 * Raise a clear error unless the library was loaded at server start.
 */
void
EICheckPreloaded(void)
{
	if (!ei_rmgr_registered)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("elastic_index must be loaded via shared_preload_libraries"),
				 errdetail("Its indexes write WAL records that only a preloaded library can replay."),
				 errhint("Add elastic_index to shared_preload_libraries in postgresql.conf "
						 "(or ALTER SYSTEM SET shared_preload_libraries = 'elastic_index') "
						 "and restart the server.")));
}
