# SPDX-License-Identifier: BSD-3-Clause
include config.mk

PKGS := hwloc libnl-3.0 libnl-route-3.0 libibverbs libcjson
# pkg-config name -> the Debian package that provides it
deb_hwloc          := libhwloc-dev
deb_libnl-3.0      := libnl-3-dev
deb_libnl-route-3.0 := libnl-route-3-dev
deb_libibverbs     := libibverbs-dev
deb_libcjson       := libcjson-dev
deb_check          := check

GOALS_NO_DEPS := clean uninstall
ifneq ($(filter-out $(GOALS_NO_DEPS),$(or $(MAKECMDGOALS),all)),)
  $(foreach p,$(PKGS),$(if $(shell $(PKG_CONFIG) --exists $(p) && echo y),,\
    $(error pkg-config cannot find '$(p)': install the Debian package $(deb_$(p)) (or run scripts/bootstrap.sh))))
  ifeq ($(wildcard $(CUDA_HOME)/include/cuda.h),)
    $(error CUDA Toolkit header '$(CUDA_HOME)/include/cuda.h' not found: install the CUDA Toolkit or set CUDA_HOME=/path/to/cuda)
  endif
  ifeq ($(wildcard $(CUDA_HOME)/include/nccl.h),)
    $(error NCCL header '$(CUDA_HOME)/include/nccl.h' not found: install NCCL's development files (libnccl-dev) or set CUDA_HOME)
  endif
endif

ifeq ($(MPI),1)
  CD_CC := $(MPICC)
  CD_MPI_CPPFLAGS := -DCD_HAVE_MPI=1
else
  CD_CC := $(CC)
  CD_MPI_CPPFLAGS :=
endif
ifeq ($(SANITIZE),1)
  CD_SAN := -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined
endif

# A folder per stage (docs/ARCHITECTURE.md); headers are named by module, found on these paths.
STAGES := core discover probe judge advise report dist
CD_CPPFLAGS := -D_GNU_SOURCE -DCD_VERSION=\"$(VERSION)\" -Isrc $(addprefix -Isrc/,$(STAGES)) -Iprobes \
	-DCD_LIBIBVERBS_VERSION=\"$(shell $(PKG_CONFIG) --modversion libibverbs 2>/dev/null)\" \
	$(CD_MPI_CPPFLAGS) $(shell $(PKG_CONFIG) --cflags $(PKGS) 2>/dev/null) -isystem $(CUDA_HOME)/include
CD_CFLAGS := -std=c11 -Wall -Wextra -Wformat=2 -Wshadow -Wstrict-prototypes -Wmissing-prototypes \
	-Wno-format-nonliteral -MMD -MP $(CD_SAN)
CD_LIBS := $(shell $(PKG_CONFIG) --libs $(PKGS) 2>/dev/null) -ldl -lm

SRC := $(sort $(wildcard src/*.c $(addsuffix /*.c,$(addprefix src/,$(STAGES))) probes/*.c))
# every data file of rules/ is compiled in (gen/embedded.c), so the binary needs nothing installed
RULES_DATA := $(sort $(filter-out rules/README%,$(wildcard rules/*)))
OBJ := $(SRC:.c=.o) gen/embedded.o
# tests/ck_*.c: helpers the suites share
TEST_SRC := $(sort $(wildcard tests/check_*.c tests/ck_*.c))
TEST_OBJ := $(TEST_SRC:.c=.o)
# the command line (main, the commands, the -o sink): the tests and fuzz targets link the rest
MAIN_SRC := src/main.c src/sink.c $(wildcard src/cmd_*.c)

# Objects depend on the flags they were built with: switching SANITIZE=1/0 or MPI rebuilds them.
FLAGS_LINE := $(CD_CC) $(CD_CPPFLAGS) $(CPPFLAGS) $(CD_CFLAGS) $(CFLAGS) $(CD_SAN) $(LDFLAGS) $(RULES_DATA)
ifneq ($(filter-out $(GOALS_NO_DEPS),$(or $(MAKECMDGOALS),all)),)
  $(shell echo '$(FLAGS_LINE)' | cmp -s - .build-flags || echo '$(FLAGS_LINE)' > .build-flags)
endif
.build-flags:
	@echo '$(FLAGS_LINE)' > $@

all: commdiag

commdiag: $(OBJ)
	$(CD_CC) $(CD_SAN) $(LDFLAGS) -o $@ $(OBJ) $(CD_LIBS)

gen/embedded.c: scripts/embed.sh $(RULES_DATA) .build-flags
	@mkdir -p gen
	sh scripts/embed.sh $@ $(RULES_DATA)

%.o: %.c .build-flags
	$(CD_CC) $(CD_CPPFLAGS) $(CPPFLAGS) $(CD_CFLAGS) $(CFLAGS) -c -o $@ $<

tests/%.o: tests/%.c .build-flags
	$(CD_CC) $(CD_CPPFLAGS) $(CPPFLAGS) $(CD_CFLAGS) $(CFLAGS) $(shell $(PKG_CONFIG) --cflags check) -c -o $@ $<

# the ABI test looks for the stub libcuda.so and NCCL of the toolkit whose headers it checks
tests/check_abi.o: CD_CPPFLAGS += -DCD_CUDA_HOME=\"$(CUDA_HOME)\"

tests/check_commdiag: $(TEST_OBJ) $(filter-out $(MAIN_SRC:.c=.o),$(OBJ))
	@$(PKG_CONFIG) --exists check || { echo "pkg-config cannot find 'check': install the Debian package check (or run scripts/bootstrap.sh)" >&2; exit 1; }
	$(CD_CC) $(CD_SAN) $(LDFLAGS) -o $@ $^ $(shell $(PKG_CONFIG) --libs check) $(CD_LIBS)

# The layout rules (docs/ARCHITECTURE.md), the unit suites (CK_RUN_SUITE=name runs one),
# end-to-end tests of the binary and of its Prometheus metrics, `commdiag hang` against a fake NCCL
# RAS server (tests/run_hang.sh), alerting rules and systemd
# units, the bad-input catalogue, the scripts (Slurm, CI, bash completion, install/uninstall),
# the HTML report in headless Chromium (skipped without it), what ships for deployment (systemd,
# alerts, Grafana, Kubernetes, Containerfile: tests/run_deploy.sh), the man page against the binary,
# the attacks of tests/security (what needs root is skipped with a reason without it), and last the
# calibration corpus (tests/data/calibration: the verdict each healthy and broken case must get).
# Every JSON document the shell suites see commdiag write is validated against docs/schema.
check: commdiag tests/check_commdiag
	python3 tests/layout_check.py
	./tests/check_commdiag
	./tests/run_e2e.sh ./commdiag
	./tests/run_prom.sh ./commdiag
	./tests/run_hang.sh ./commdiag
	./tests/run_gpu_compare.sh ./commdiag
	./tests/run_merge.sh ./commdiag
	./tests/run_versions.sh ./commdiag
	./tests/run_ncclwarn.sh ./commdiag
	./tests/run_explain_formats.sh ./commdiag
	./tests/bad_inputs/run.sh ./commdiag
	./tests/run_mpi.sh ./commdiag
	./tests/run_scripts.sh ./commdiag
	./tests/run_html.sh ./commdiag
	./tests/run_man.sh ./commdiag
	./tests/run_deploy.sh ./commdiag
	./tests/security/run.sh ./commdiag
	./tests/run_calibration.sh ./commdiag

# Two hosts in network namespaces under one mpirun (root; skips with a reason otherwise).
check-netns: commdiag
	./tests/netns/run.sh ./commdiag

# commdiag under srun on a one-node Slurm cluster of this machine (private munged, slurmctld
# and slurmd; root; skips with a reason when Slurm or its PMIx plugin is missing).
check-slurm: commdiag
	./tests/slurm/run.sh ./commdiag

# Under memcheck, zero errors and zero definite leaks: the unit suites in one process, then
# every error path of the bad-input catalogue. Not the children of fork (--topology files
# are tried in a child first: see topo.c), nor hwloc's x86 backend, which valgrind breaks.
VALGRIND := valgrind -q --error-exitcode=123 --leak-check=full --errors-for-leak-kinds=definite \
	--child-silent-after-fork=yes
check-valgrind: commdiag tests/check_commdiag
	CK_FORK=no $(VALGRIND) ./tests/check_commdiag
	CD_WRAP="env HWLOC_COMPONENTS=-x86 $(VALGRIND)" ./tests/bad_inputs/run.sh ./commdiag

# ---- fuzzing: libFuzzer targets tests/fuzz/fuzz_<name>.c, found by name ----
# Each target links every object but main, rebuilt by clang with the fuzzer's coverage
# and ASan+UBSan in tests/fuzz/build/ (the gcc objects are left alone). Seeds come from
# tests/fuzz/corpus/<name>/ (committed, small); what a run discovers goes to
# tests/fuzz/build/corpus/<name>/, a crash to tests/fuzz/build/crash-<name>-*.
# Optional beside a target: <name>.dict (libFuzzer dictionary), <name>.lsan (LeakSanitizer
# suppressions, for leaks inside a library we cannot fix).
FUZZ_SRC := $(sort $(wildcard tests/fuzz/fuzz_*.c))
FUZZ_BIN := $(FUZZ_SRC:.c=)
FUZZ_DIR := tests/fuzz/build
FUZZ_OBJ := $(patsubst %.c,$(FUZZ_DIR)/%.o,$(filter-out $(MAIN_SRC),$(SRC)) gen/embedded.c)
FUZZ_SAN := -fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer
FUZZ_CPPFLAGS := $(filter-out -DCD_HAVE_MPI=1,$(CD_CPPFLAGS)) -Itests/fuzz
FUZZ_CFLAGS := $(filter-out $(CD_SAN),$(CD_CFLAGS)) -g -O1 $(FUZZ_SAN)
# one run: stderr closed (every refusal prints a message; libFuzzer keeps its own and the
# sanitizers' reports), 10 s for one input counts as a hang
FUZZ_RUN_FLAGS ?= -close_fd_mask=2 -timeout=10 -rss_limit_mb=2048 -print_final_stats=1

$(FUZZ_DIR)/%.o: %.c
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_CPPFLAGS) $(FUZZ_CFLAGS) -fsanitize=fuzzer-no-link -c -o $@ $<

tests/fuzz/fuzz_%: tests/fuzz/fuzz_%.c tests/fuzz/fuzz.h $(FUZZ_OBJ)
	$(FUZZ_CC) $(FUZZ_CPPFLAGS) $(filter-out -MMD -MP,$(FUZZ_CFLAGS)) -fsanitize=fuzzer -o $@ $< $(FUZZ_OBJ) $(CD_LIBS)

fuzz: $(FUZZ_BIN)
.SECONDARY: $(FUZZ_OBJ)

# Every target for FUZZ_SECONDS each (default 60); stops at the first crash.
fuzz-run: fuzz
	@for f in $(FUZZ_BIN); do \
		n=$${f##*/fuzz_}; mkdir -p $(FUZZ_DIR)/corpus/$$n; \
		dict=; [ -f tests/fuzz/$$n.dict ] && dict=-dict=tests/fuzz/$$n.dict; \
		supp=; [ -f tests/fuzz/$$n.lsan ] && supp=suppressions=tests/fuzz/$$n.lsan:print_suppressions=0; \
		echo "fuzz: $$n for $(FUZZ_SECONDS) s"; \
		LSAN_OPTIONS=$$supp ./$$f $(FUZZ_RUN_FLAGS) $$dict -max_total_time=$(FUZZ_SECONDS) -artifact_prefix=$(FUZZ_DIR)/crash-$$n- \
			$(FUZZ_DIR)/corpus/$$n tests/fuzz/corpus/$$n >$(FUZZ_DIR)/$$n.log 2>&1; rc=$$?; \
		grep -E '^(#[0-9]+ +DONE|Done [0-9]|stat::number_of_executed_units|stat::peak_rss_mb|==[0-9]+==|SUMMARY|fuzz: )' \
			$(FUZZ_DIR)/$$n.log; \
		[ $$rc = 0 ] || { echo "fuzz: $$n FAILED (exit $$rc): see $(FUZZ_DIR)/$$n.log and $(FUZZ_DIR)/crash-$$n-*" >&2; exit 1; }; \
	done

install: commdiag
	$(INSTALL) -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(MANDIR)/man1
	$(INSTALL) -m 755 commdiag $(DESTDIR)$(BINDIR)/commdiag
	$(INSTALL) -m 644 man/commdiag.1 $(DESTDIR)$(MANDIR)/man1/commdiag.1
	$(INSTALL) -d $(DESTDIR)$(DATADIR)/rules
	$(INSTALL) -m 644 $(RULES_DATA) $(DESTDIR)$(DATADIR)/rules/
	$(INSTALL) -d $(DESTDIR)$(BASHCOMPDIR) $(DESTDIR)$(LIBEXECDIR)/commdiag
	$(INSTALL) -m 644 scripts/commdiag.bash-completion $(DESTDIR)$(BASHCOMPDIR)/commdiag
	$(INSTALL) -m 755 scripts/slurm-prolog.sh $(DESTDIR)$(LIBEXECDIR)/commdiag/slurm-prolog
	$(INSTALL) -m 755 scripts/ci-preflight.sh $(DESTDIR)$(LIBEXECDIR)/commdiag/ci-preflight
	$(INSTALL) -m 755 scripts/slurm-epilog-collect.sh $(DESTDIR)$(LIBEXECDIR)/commdiag/slurm-epilog-collect
	# sourced by slurm-prolog and ci-preflight (their --require auto), not run
	$(INSTALL) -m 644 scripts/commdiag-expect.sh $(DESTDIR)$(LIBEXECDIR)/commdiag/commdiag-expect.sh
	# Slurm runs its programs without arguments: the name chooses the mode
	ln -sf slurm-prolog $(DESTDIR)$(LIBEXECDIR)/commdiag/slurm-epilog
	ln -sf slurm-prolog $(DESTDIR)$(LIBEXECDIR)/commdiag/slurm-healthcheck
	# the node check as a systemd service and timer, with this install's paths
	$(INSTALL) -d $(DESTDIR)$(SYSTEMDDIR) $(DESTDIR)$(DATADIR)/prometheus $(DESTDIR)$(SYSCONFDIR)/default
	sed -e 's|@BINDIR@|$(BINDIR)|g' -e 's|@SYSCONFDIR@|$(SYSCONFDIR)|g' -e 's|@DATADIR@|$(DATADIR)|g' \
		-e 's|@SYSTEMDDIR@|$(SYSTEMDDIR)|g' scripts/systemd/commdiag-check.service.in \
		>$(DESTDIR)$(SYSTEMDDIR)/commdiag-check.service
	chmod 644 $(DESTDIR)$(SYSTEMDDIR)/commdiag-check.service
	$(INSTALL) -m 644 scripts/systemd/commdiag-check.timer $(DESTDIR)$(SYSTEMDDIR)/commdiag-check.timer
	$(INSTALL) -m 644 scripts/prometheus/commdiag-alerts.yml $(DESTDIR)$(DATADIR)/prometheus/commdiag-alerts.yml
	# the JSON Schema of the document (docs/schema), for validators of saved documents
	$(INSTALL) -d $(DESTDIR)$(DATADIR)/schema
	$(INSTALL) -m 644 docs/schema/commdiag-results-1.schema.json $(DESTDIR)$(DATADIR)/schema/
	# the example settings, never over the administrator's
	[ -e $(DESTDIR)$(SYSCONFDIR)/default/commdiag ] || \
		$(INSTALL) -m 644 scripts/default/commdiag $(DESTDIR)$(SYSCONFDIR)/default/commdiag

# exactly what install put there, and commdiag's own directories once empty
uninstall:
	rm -f $(DESTDIR)$(BINDIR)/commdiag $(DESTDIR)$(MANDIR)/man1/commdiag.1
	rm -rf $(DESTDIR)$(DATADIR)/rules
	rm -f $(DESTDIR)$(BASHCOMPDIR)/commdiag
	rm -f $(addprefix $(DESTDIR)$(LIBEXECDIR)/commdiag/,slurm-prolog slurm-epilog slurm-healthcheck ci-preflight \
		slurm-epilog-collect commdiag-expect.sh)
	rm -f $(addprefix $(DESTDIR)$(SYSTEMDDIR)/,commdiag-check.service commdiag-check.timer)
	rm -f $(DESTDIR)$(DATADIR)/prometheus/commdiag-alerts.yml
	rm -f $(DESTDIR)$(DATADIR)/schema/commdiag-results-1.schema.json
	rmdir $(DESTDIR)$(DATADIR)/schema 2>/dev/null || true
	# the settings only as install left them: a changed file is the administrator's
	if cmp -s scripts/default/commdiag $(DESTDIR)$(SYSCONFDIR)/default/commdiag; then \
		rm -f $(DESTDIR)$(SYSCONFDIR)/default/commdiag; \
	elif [ -e $(DESTDIR)$(SYSCONFDIR)/default/commdiag ]; then \
		echo "uninstall: $(DESTDIR)$(SYSCONFDIR)/default/commdiag was changed: kept"; fi
	rmdir $(DESTDIR)$(DATADIR)/prometheus 2>/dev/null || true
	rmdir $(DESTDIR)$(LIBEXECDIR)/commdiag $(DESTDIR)$(DATADIR) 2>/dev/null || true

clean:
	rm -rf gen
	rm -f .build-flags commdiag tests/check_commdiag src/*.o src/*.d src/*/*.o src/*/*.d probes/*.o probes/*.d tests/*.o tests/*.d
	rm -rf $(FUZZ_DIR) $(FUZZ_BIN)

.PHONY: all check check-netns check-slurm check-valgrind fuzz fuzz-run install uninstall clean
-include $(OBJ:.o=.d) $(TEST_OBJ:.o=.d) $(FUZZ_OBJ:.o=.d)
