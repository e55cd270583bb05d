# Makefile for elastic_index (PGXS)
#
#   make                 build the extension
#   make install         install it into the PostgreSQL found by $(PG_CONFIG)
#   make installcheck    regression tests (sql/) and isolation tests
#                        (test/specs/), each in its own temporary instance
#   make unittest        compile and run the pure C unit tests in test/unit/
#   make fuzz            run each libFuzzer target (SeqTree, TID code, Bloom filter, normalized keys)
#                        for FUZZ_SECONDS seconds (default 30; needs clang)
#
# TAP tests (test/t/*.pl) are run by scripts/test.sh with prove, because
# PGXS in Debian's packages has them disabled.

MODULE_big = elastic_index

# One object per line, so adding a source file is a one-line change.
OBJS = \
	src/elastic_index.o \
	src/core/page.o \
	src/core/search.o \
	src/core/insert.o \
	src/core/pagedel.o \
	src/core/build.o \
	src/core/sort.o \
	src/core/scan.o \
	src/core/vacuum.o \
	src/core/cost.o \
	src/core/normkey.o \
	src/core/policy.o \
	src/core/activity.o \
	src/core/xlog.o \
	src/core/shift.o \
	src/compact/compact.o \
	src/compact/heapkey.o \
	src/compact/leafops.o \
	src/compact/scan.o \
	src/compact/verify.o \
	src/compact/xlog.o \
	src/elastic/options.o \
	src/elastic/policy.o \
	src/osm/batch.o \
	src/osm/buffer.o \
	src/osm/flushworker.o \
	src/osm/options.o \
	src/osm/policy.o \
	src/osm/verify.o \
	src/osm/xlog.o \
	src/am/elastic_btree.o \
	src/am/osm_tree.o \
	src/am/validate.o \
	src/am/normalize.o \
	src/inspect/stats.o \
	src/inspect/check.o \
	src/inspect/maintenance.o \
	src/inspect/shards.o \
	src/inspect/keys.o \
	src/inspect/preview.o \
	src/inspect/sortedness.o \
	src/hypo/hypothetical.o \
	src/lib/bloomfilter.o \
	src/lib/keynorm.o \
	src/lib/nearsort.o \
	src/lib/seqtree.o \
	src/lib/tidcode.o

PGFILEDESC = "elastic_index - elastic B+-tree index access methods"

EXTENSION = elastic_index
DATA = $(wildcard sql/install/*.sql)

PG_CPPFLAGS = -I$(srcdir)/src/include -I$(srcdir)/src/lib

# The fault points of the crash tests and their setting
# elastic_index.debug_fault are compiled in only with EI_FAULT_INJECTION=1
# (scripts/test.sh builds so), as PostgreSQL's injection points need a
# build option: a plain "make install" ships neither.
EI_FAULT_INJECTION ?= 0
ifeq ($(EI_FAULT_INJECTION),1)
PG_CPPFLAGS += -DEI_FAULT_INJECTION
endif

# Rebuild the objects that include a header when it changes (gcc -MMD;
# the dependency files go to .deps/).
override autodepend = yes

# Text keys under ICU collations are normalized with ICU sort keys
# (src/am/normalize.c); PGXS defines ICU_LIBS when the server has ICU.
SHLIB_LINK += $(ICU_LIBS)

# Every sql/NAME.sql is a regression test with expected output in
# expected/NAME.out; every test/specs/NAME.spec is an isolation test with
# expected output in test/expected/NAME.out.  ":=" so that an empty list
# really is empty for PGXS's "ifdef".
REGRESS := $(sort $(basename $(notdir $(wildcard sql/*.sql))))
REGRESS_OPTS = \
	--temp-instance=./tmp_check \
	--temp-config=$(srcdir)/test/regress.conf \
	--port=54329 \
	--encoding=UTF8 --no-locale \
	--inputdir=.

ISOLATION := $(sort $(basename $(notdir $(wildcard test/specs/*.spec))))
ISOLATION_OPTS = \
	--temp-instance=./tmp_check_iso \
	--temp-config=$(srcdir)/test/regress.conf \
	--port=54339 \
	--encoding=UTF8 --no-locale \
	--inputdir=test

EXTRA_CLEAN = tmp_unit/ tmp_fuzz/ results/ regression.diffs regression.out \
	tmp_check/ tmp_check_iso/ output_iso/ log/

PG_CONFIG ?= pg_config
PGXS := $(shell $(PG_CONFIG) --pgxs)
include $(PGXS)

# PGXS names an object's dependency file after its base name, and
# src/core, src/elastic and src/osm each have a policy.c, an xlog.c and
# more of the same name: one would overwrite the other's, and a changed
# header would leave objects stale.  Name the file after the whole path.
%.o : %.c
	@mkdir -p $(DEPDIR)
	$(COMPILE.c) -o $@ $< -MMD -MP -MF $(DEPDIR)/$(subst /,__,$*).Po

# Objects compiled against another server's headers, or with another
# EI_FAULT_INJECTION, are never reused: .build-server names the server the
# objects were built for (and the flag), every object depends on it, and it
# is rewritten (so newer than every object) whenever make runs with a
# PG_CONFIG of another server or the other flag.
EI_BUILD_SERVER := $(shell $(PG_CONFIG) --version) $(includedir_server) faults=$(EI_FAULT_INJECTION)
ifneq ($(EI_BUILD_SERVER),$(shell cat .build-server 2>/dev/null))
$(shell echo '$(EI_BUILD_SERVER)' > .build-server)
endif
$(OBJS) $(OBJS:.o=.bc): .build-server

# Pure C unit tests: each test/unit/NAME.c is a stand-alone program (with
# its own main) that may include headers from src/include, src/lib and the
# server's include directory, and is linked with every src/lib/*.c (the
# pure C library: those files use nothing but the C library, never the
# server).  It exits 0 on success.
UNIT_TESTS := $(sort $(basename $(notdir $(wildcard test/unit/*.c))))
UNIT_LIB_SRCS := $(sort $(wildcard $(srcdir)/src/lib/*.c))
UNIT_CC ?= cc
UNIT_CFLAGS ?= -std=gnu99 -O1 -g -Wall -Wextra -Wno-unused-parameter \
	-Wno-sign-compare -Wno-missing-field-initializers
UNIT_CPPFLAGS = -I$(srcdir)/src/include -I$(srcdir)/src/lib \
	-I$(srcdir)/test/unit -I$(includedir_server)

.PHONY: unittest
unittest:
ifeq ($(strip $(UNIT_TESTS)),)
	@echo "no unit tests"
else
	@mkdir -p tmp_unit
	@pass=0; fail=0; \
	for t in $(UNIT_TESTS); do \
		if $(UNIT_CC) $(UNIT_CFLAGS) $(UNIT_CPPFLAGS) -o tmp_unit/$$t \
			$(srcdir)/test/unit/$$t.c $(UNIT_LIB_SRCS) -lm \
			>tmp_unit/$$t.build.log 2>&1; then \
			if ./tmp_unit/$$t >tmp_unit/$$t.log 2>&1; then \
				echo "unit $$t ... ok"; pass=$$((pass + 1)); \
			else \
				echo "unit $$t ... FAILED (see tmp_unit/$$t.log)"; \
				cat tmp_unit/$$t.log; fail=$$((fail + 1)); \
			fi; \
		else \
			echo "unit $$t ... FAILED (does not compile)"; \
			cat tmp_unit/$$t.build.log; fail=$$((fail + 1)); \
		fi; \
	done; \
	echo "unit tests: $$pass passed, $$fail failed"; \
	test $$fail -eq 0
endif

# libFuzzer targets test/fuzz/NAME_fuzz.c (the SeqTree, the Bloom filter, normalized keys):
# each is built with clang and run for FUZZ_SECONDS seconds, starting from
# its seed corpus test/fuzz/corpus/NAME_fuzz/.  New inputs go to
# tmp_fuzz/NAME_fuzz/corpus/, a crashing input to tmp_fuzz/NAME_fuzz/crash-*;
# a target fails if one is found.  FUZZ_TARGETS picks some (default: all).
FUZZ_CC ?= $(firstword $(shell command -v clang-14 clang 2>/dev/null) clang)
FUZZ_SECONDS ?= 30
FUZZ_CFLAGS ?= -std=gnu99 -g -O1 -fsanitize=fuzzer,address,undefined \
	-fno-sanitize-recover=all -Wall -Wextra -Wno-unused-parameter \
	-Wno-sign-compare
FUZZ_TARGETS ?= $(sort $(basename $(notdir $(wildcard $(srcdir)/test/fuzz/*_fuzz.c))))

.PHONY: fuzz
fuzz:
	@set -e; for t in $(FUZZ_TARGETS); do \
		mkdir -p tmp_fuzz/$$t/corpus; \
		echo "fuzz $$t: $(FUZZ_SECONDS) s"; \
		$(FUZZ_CC) $(FUZZ_CFLAGS) -I$(srcdir)/src/lib -o tmp_fuzz/$$t/$$t \
			$(srcdir)/test/fuzz/$$t.c $(UNIT_LIB_SRCS); \
		./tmp_fuzz/$$t/$$t -max_total_time=$(FUZZ_SECONDS) -timeout=10 \
			-max_len=4096 -print_final_stats=1 -artifact_prefix=tmp_fuzz/$$t/ \
			tmp_fuzz/$$t/corpus $(srcdir)/test/fuzz/corpus/$$t; \
	done
