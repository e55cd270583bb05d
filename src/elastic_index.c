/*-------------------------------------------------------------------------
 *
 * elastic_index.c
 *	  Library entry point: registers the WAL resource manager, the access
 *	  methods (each with its policy table, reloptions and settings), the
 *	  hypothetical-index hooks and the GUC prefixes.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "eiam.h"
#include "eihypo.h"
#include "eistats.h"
#include "eitree.h"
#include "fmgr.h"
#include "miscadmin.h"
#include "utils/guc.h"

PG_MODULE_MAGIC;

extern void _PG_init(void);

#ifdef EI_FAULT_INJECTION
static const struct config_enum_entry ei_fault_options[] = {
	{"none", EI_FAULT_NONE, false},
	{"after_halfdead", EI_FAULT_AFTER_HALFDEAD, false},
	{"after_unlink", EI_FAULT_AFTER_UNLINK, false},
	{"after_split", EI_FAULT_AFTER_SPLIT, false},
	{"after_seal", EI_FAULT_AFTER_SEAL, false},
	{"after_flush_insert", EI_FAULT_AFTER_FLUSH_INSERT, false},
	{"parallel_collect_gate", EI_FAULT_PARALLEL_COLLECT_GATE, false},
	{"parallel_alone", EI_FAULT_PARALLEL_ALONE, false},
	{"in_build_worker", EI_FAULT_IN_BUILD_WORKER, false},
	{"unlocked_read_gate", EI_FAULT_UNLOCKED_READ_GATE, false},
	{"build_phase_gate", EI_FAULT_BUILD_PHASE_GATE, false},
	{"extension_gate", EI_FAULT_EXTENSION_GATE, false},
	{"plain_tids", EI_FAULT_PLAIN_TIDS, false},
	{"after_truncate_gate", EI_FAULT_AFTER_TRUNCATE_GATE, false},
	{"before_truncate_gate", EI_FAULT_BEFORE_TRUNCATE_GATE, false},
	{"run_split_posting", EI_FAULT_RUN_SPLIT_POSTING, false},
	{"scan_bounds", EI_FAULT_SCAN_BOUNDS, false},
	{NULL, 0, false}
};
#endif

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
		EIActivityInit();
	}

	EIGuardInit();
	EIElasticBtreeInit();
	EIOsmTreeInit();
	EIHypoInit();

#ifdef EI_FAULT_INJECTION
	/* only in builds for the crash tests (make EI_FAULT_INJECTION=1) */
	DefineCustomEnumVariable("elastic_index.debug_fault",
							 "Stops a split, a page deletion or an osm_tree buffer flush with an error after the given WAL-logged step, holds a parallel scan's participants or a build's phases at a gate, or stops a parallel build's worker as it starts (tests only).",
							 NULL,
							 &ei_debug_fault,
							 EI_FAULT_NONE,
							 ei_fault_options,
							 PGC_SUSET,
							 GUC_NOT_IN_SAMPLE,
							 NULL, NULL, NULL);
#endif

	MarkGUCPrefixReserved("elastic_index");
	MarkGUCPrefixReserved("elastic_btree");
}
