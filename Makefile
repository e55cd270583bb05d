# Makefile for elastic_index (PGXS)
#
#   make                 build the extension
#   make install         install it into the PostgreSQL found by $(PG_CONFIG)
#   make installcheck    regression tests (sql/) and isolation tests
#                        (test/specs/), each in its own temporary instance
#   make unittest        compile and run the pure C unit tests in test/unit/
#
# TAP tests (test/t/*.pl) are run by scripts/test.sh with prove, because
# PGXS in Debian's packages has them disabled.

MODULE_big = elastic_index

# One object per line, so adding a source file is a one-line change.
OBJS = \
	src/elastic_index.o \
	src/am/elastic_btree.o \
	src/am/options.o \
	src/am/validate.o \
	src/core/page.o \
	src/core/search.o \
	src/core/insert.o \
	src/core/pagedel.o \
	src/core/build.o \
	src/core/scan.o \
	src/core/vacuum.o \
	src/core/cost.o \
	src/core/xlog.o \
	src/inspect/stats.o \
	src/inspect/check.o

PGFILEDESC = "elastic_index - elastic B+-tree index access methods"

EXTENSION = elastic_index
DATA = $(wildcard sql/install/*.sql)

PG_CPPFLAGS = -I$(srcdir)/src/include

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

EXTRA_CLEAN = tmp_unit/ results/ regression.diffs regression.out \
	tmp_check/ tmp_check_iso/ output_iso/ log/

PG_CONFIG ?= pg_config
PGXS := $(shell $(PG_CONFIG) --pgxs)
include $(PGXS)

# Pure C unit tests: each test/unit/NAME.c is a stand-alone program (with
# its own main) that may include headers from src/include and the server's
# include directory, but links against nothing from the server.  It exits
# 0 on success.
UNIT_TESTS := $(sort $(basename $(notdir $(wildcard test/unit/*.c))))
UNIT_CC ?= cc
UNIT_CFLAGS ?= -std=gnu99 -O1 -g -Wall -Wextra -Wno-unused-parameter \
	-Wno-sign-compare -Wno-missing-field-initializers
UNIT_CPPFLAGS = -I$(srcdir)/src/include -I$(srcdir)/test/unit \
	-I$(includedir_server)

.PHONY: unittest
unittest:
ifeq ($(strip $(UNIT_TESTS)),)
	@echo "no unit tests"
else
	@mkdir -p tmp_unit
	@pass=0; fail=0; \
	for t in $(UNIT_TESTS); do \
		if $(UNIT_CC) $(UNIT_CFLAGS) $(UNIT_CPPFLAGS) -o tmp_unit/$$t \
			$(srcdir)/test/unit/$$t.c -lm >tmp_unit/$$t.build.log 2>&1; then \
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
