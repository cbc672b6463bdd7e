# Thin wrapper: everything real is in CMakeLists.txt and scripts/.
BUILD ?= build
BUILD_TYPE ?= RelWithDebInfo
ASAN_BUILD ?= build-asan
FUZZ_BUILD ?= build-fuzz
FUZZ_SECONDS ?= 60
CMAKE_FLAGS ?=
JOBS ?= 2
PREFIX ?= /usr/local
DESTDIR ?=

.PHONY: all build deps demo test check asan valgrind memcheck ci fuzz conformance install clean bench

all: build

deps:
	scripts/deps.sh

# Re-running cmake on an existing tree keeps it in sync with PREFIX and the
# flags passed on the command line; it is cheap.
build:
	cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=$(BUILD_TYPE) -DCMAKE_INSTALL_PREFIX=$(PREFIX) $(CMAKE_FLAGS)
	cmake --build $(BUILD) -j$(JOBS)

# Set-up step 1: packages, build, and `shard check` over samples/.
demo: deps
	$(MAKE) build
	scripts/demo.sh $(BUILD)/shard samples

# Set-up step 2 and CI: warnings are errors; unit, cli, golden, samples and
# conformance (with the floor check) through ctest.
test: deps
	$(MAKE) build CMAKE_FLAGS="-DSHARD_WERROR=ON $(CMAKE_FLAGS)"
	ctest --test-dir $(BUILD) --output-on-failure -j$(JOBS)

check: test

# The whole suite (unit, cli, golden, malformed, fuzz regressions,
# conformance with its floor) under ASan+UBSan in its own tree: any sanitizer
# report fails, LeakSanitizer included (scripts/lsan.supp holds only Graphviz
# and its font stack). Every finding aborts (status 134), so a report cannot
# pass as an ordinary failure under `not shard ...` or inside a
# `2>&1 | FileCheck` pipeline (gcc's UBSan prints to stderr whatever
# log_path says, and would otherwise exit 1 like any diagnostic). ASan and
# LSan reports go to files in ASAN_LOGS, which must stay empty: that catches
# them even in a test that was failing anyway (a conformance case below the
# floor, a shard run by a helper script). Whole malloc stacks
# (fast_unwind_on_malloc=0, about a quarter slower) let scripts/lsan.supp
# name a function inside Graphviz, which has no frame pointers.
ASAN_LOGS = $(abspath $(ASAN_BUILD))/sanitizer-logs
asan:
	$(MAKE) build BUILD=$(ASAN_BUILD) BUILD_TYPE=Asan CMAKE_FLAGS="-DSHARD_WERROR=ON $(CMAKE_FLAGS)"
	rm -rf $(ASAN_LOGS) && mkdir -p $(ASAN_LOGS)
	status=0; \
	ASAN_OPTIONS=detect_leaks=1:fast_unwind_on_malloc=0:abort_on_error=1:handle_segv=0:log_path=$(ASAN_LOGS)/report \
	LSAN_OPTIONS=suppressions=$(CURDIR)/scripts/lsan.supp:print_suppressions=0 \
	UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1:abort_on_error=1 \
	ctest --test-dir $(ASAN_BUILD) --output-on-failure -j$(JOBS) || status=$$?; \
	for f in $(ASAN_LOGS)/report.*; do \
	  [ -e "$$f" ] || continue; \
	  echo "asan: sanitizer report $$f:"; head -n 60 "$$f"; status=1; \
	done; \
	exit $$status

# shard under valgrind, in the normal tree: `shard check`/`opt` over the
# samples and every golden case of tests/*/cases (scripts/valgrind.sh), the
# malformed corpus, then the syntax/verify part of conformance (ir/test; the
# pass tests are left to `make asan`, which runs all of them: under valgrind
# they would take most of CI's half hour). Any invalid access, use of
# uninitialised memory or leak fails. Unit tests are covered by `make asan`
# (`ctest -T memcheck` works too but takes very long: Criterion re-executes
# itself for every test).
valgrind: build
	scripts/valgrind.sh $(BUILD)/shard . $(JOBS)
	python3 tests/malformed/run.py --shard $(BUILD)/shard --valgrind -j$(JOBS)
	python3 tests/conformance/run.py --build $(BUILD) --valgrind --filter /ir/test/ -j$(JOBS)

# Both memory checks; CI (.ci/run) runs `make test` and then this.
memcheck: asan valgrind

# What .ci/run does, minus the timing lines.
ci: test
	$(MAKE) asan
	$(MAKE) valgrind

conformance: build
	python3 tests/conformance/run.py --build $(BUILD) -j$(JOBS)

# libFuzzer over every parser and pipeline harness (tests/fuzz), or the
# FUZZ_TARGETS given (propagate export ...), FUZZ_SECONDS each at nice 10,
# in a clang ASan+UBSan tree; run.sh builds them, findings land in
# $(FUZZ_BUILD)/fuzz-artifacts. The only target that needs clang and
# libclang-rt (scripts/deps.sh --fuzz).
FUZZ_TARGETS ?=
fuzz:
	scripts/deps.sh --fuzz
	cmake -S . -B $(FUZZ_BUILD) -DCMAKE_BUILD_TYPE=Fuzz -DCMAKE_C_COMPILER=clang $(CMAKE_FLAGS)
	JOBS=$(JOBS) tests/fuzz/run.sh $(FUZZ_BUILD) $(FUZZ_SECONDS) $(FUZZ_TARGETS)

# Wall time and peak RSS of shard vs mlir-opt-16 on generated transformer
# modules (bench/); BENCH_OPS sizes, Release tree.
BENCH_BUILD ?= build-bench
BENCH_OPS ?= 10000 100000 1000000
bench:
	$(MAKE) build BUILD=$(BENCH_BUILD) BUILD_TYPE=Release
	bench/run.sh $(BENCH_BUILD)/shard $(BENCH_OPS)

install: build
	DESTDIR=$(DESTDIR) cmake --install $(BUILD) --prefix $(PREFIX)

clean:
	rm -rf $(BUILD) $(ASAN_BUILD) $(FUZZ_BUILD)
