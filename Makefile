# Thin wrapper: everything real is in CMakeLists.txt and scripts/.
BUILD ?= build
BUILD_TYPE ?= RelWithDebInfo
ASAN_BUILD ?= build-asan
FUZZ_BUILD ?= build-fuzz
FUZZ_SECONDS ?= 60
CMAKE_FLAGS ?=
# One set of flags for every make target in $(BUILD), so that `make test`
# after `make build` (or scripts/setup.sh) recompiles nothing: warnings are
# errors everywhere (WERROR=OFF for a compiler newer than Debian 12's).
WERROR ?= ON
JOBS ?= 2
PREFIX ?= /usr/local
DESTDIR ?=

.PHONY: all build deps test-deps demo test check asan asan-clang valgrind memcheck ci fuzz conformance install clean bench fresh-clone format format-check

all: build

# What building and running need; test-deps adds the test tools
# (Criterion, FileCheck, mlir-opt, valgrind).
deps:
	scripts/deps.sh
test-deps:
	scripts/deps.sh --test

# Re-running cmake on an existing tree keeps it in sync with PREFIX and the
# flags passed on the command line; it is cheap. The tests are configured
# when their packages are there (scripts/deps.sh --test); TESTING=ON
# requires them, TESTING=OFF leaves them out.
TESTING ?= $(shell scripts/deps.sh --have-test >/dev/null 2>&1 && echo ON || echo OFF)
build:
	cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=$(BUILD_TYPE) -DCMAKE_INSTALL_PREFIX=$(PREFIX) \
	  -DSHARD_WERROR=$(WERROR) -DBUILD_TESTING=$(TESTING) $(CMAKE_FLAGS)
	cmake --build $(BUILD) -j$(JOBS)

# Set-up step 1: packages, build, and `shard check` over samples/.
demo: deps
	$(MAKE) build
	scripts/demo.sh $(BUILD)/shard samples

# Set-up step 2 and CI: installs the test tools, builds (the same flags as
# `make build`: only the test programs are new), then unit, cli, golden,
# samples and conformance (with the floor check) through ctest. Tests that
# need a suite from outside the repository (tests/suites.py) are skipped
# when it is missing, and the last line says how to get it.
test: test-deps
	$(MAKE) build TESTING=ON
	status=0; ctest --test-dir $(BUILD) --output-on-failure -j$(JOBS) || status=$$?; \
	python3 tests/suites.py; exit $$status

check: test

# The layout of the C sources against .clang-format (clang-format 14, which
# scripts/deps.sh --test installs); `make test` runs the same check as the
# ctest `format`. `make format` rewrites the files.
format-check:
	scripts/format_check.sh

format:
	scripts/format_check.sh --fix

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
asan: test-deps
	$(MAKE) build BUILD=$(ASAN_BUILD) BUILD_TYPE=Asan TESTING=ON
	rm -rf $(ASAN_LOGS) && mkdir -p $(ASAN_LOGS)
	status=0; \
	ASAN_OPTIONS=detect_leaks=1:fast_unwind_on_malloc=0:abort_on_error=1:handle_segv=0:log_path=$(ASAN_LOGS)/report \
	LSAN_OPTIONS=suppressions=$(CURDIR)/scripts/lsan.supp:print_suppressions=0 \
	UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1:abort_on_error=1 \
	ctest --test-dir $(ASAN_BUILD) --output-on-failure -j$(JOBS) $(if $(ASAN_TESTS),-R '$(ASAN_TESTS)') || status=$$?; \
	for f in $(ASAN_LOGS)/report.*; do \
	  [ -e "$$f" ] || continue; \
	  echo "asan: sanitizer report $$f:"; head -n 60 "$$f"; status=1; \
	done; \
	exit $$status

# The same tree and checks built by clang (its UBSan also reports
# "applying zero offset to null pointer", which gcc's does not); clang and
# libclang-rt come with scripts/deps.sh --fuzz. `make asan` must pass with
# both. ASAN_TESTS=REGEX runs only the ctest tests it matches (ctest -R).
ASAN_CLANG_BUILD ?= build-asan-clang
asan-clang:
	scripts/deps.sh --fuzz
	$(MAKE) asan ASAN_BUILD=$(ASAN_CLANG_BUILD) CMAKE_FLAGS="-DCMAKE_C_COMPILER=clang $(CMAKE_FLAGS)"

# shard under valgrind, in the normal tree: `shard check`/`opt` over the
# samples and every golden case of tests/*/cases (scripts/valgrind.sh), the
# malformed corpus, then the syntax/verify part of conformance (ir/test; the
# pass tests are left to `make asan`, which runs all of them: under valgrind
# they would take tens of minutes). Any invalid access, use of
# uninitialised memory or leak fails. Unit tests are covered by `make asan`
# (`ctest -T memcheck` works too but takes very long: Criterion re-executes
# itself for every test).
valgrind: test-deps
	$(MAKE) build TESTING=ON
	scripts/valgrind.sh $(BUILD)/shard . $(JOBS)
	python3 tests/malformed/run.py --shard $(BUILD)/shard --valgrind -j$(JOBS)
	python3 tests/conformance/run.py --build $(BUILD) --valgrind --filter /ir/test/ -j$(JOBS)

# Both memory checks; CI (.ci/run) runs `make test` and then this.
memcheck: asan valgrind

# What .ci/run does, minus the timing lines.
ci: test
	$(MAKE) asan
	$(MAKE) valgrind
	$(MAKE) fresh-clone

# Exit 77 from run.py: Shardy's lit tests are missing (it said how to get
# them), which is not a failure of shard.
conformance: build
	status=0; python3 tests/conformance/run.py --build $(BUILD) -j$(JOBS) || status=$$?; \
	if [ $$status -eq 77 ]; then status=0; fi; exit $$status

# The newcomer's path: clone HEAD into a temporary directory with no
# ../shared beside it and run `make test` there, as root and as an
# unprivileged user (FRESH_USER, default nobody) when run as root.
FRESH_USER ?= nobody
fresh-clone:
	tests/install/fresh_clone.sh . $(FRESH_USER) $(JOBS)

# libFuzzer over every parser and pipeline harness (tests/fuzz), or the
# FUZZ_TARGETS given (propagate export ...), FUZZ_SECONDS each at nice 10,
# in a clang ASan+UBSan tree; run.sh builds them, findings land in
# $(FUZZ_BUILD)/fuzz-artifacts. The only target that needs clang and
# libclang-rt (scripts/deps.sh --fuzz).
FUZZ_TARGETS ?=
fuzz:
	scripts/deps.sh --test --fuzz
	cmake -S . -B $(FUZZ_BUILD) -DCMAKE_BUILD_TYPE=Fuzz -DCMAKE_C_COMPILER=clang $(CMAKE_FLAGS)
	JOBS=$(JOBS) tests/fuzz/run.sh $(FUZZ_BUILD) $(FUZZ_SECONDS) $(FUZZ_TARGETS)

# Wall, CPU, peak RSS and MB/s of shard's commands vs mlir-opt-16 on
# generated narrow and wide modules (bench/run.sh); BENCH_OPS sizes (add
# 1000000 on request: minutes per command), Release tree.
BENCH_BUILD ?= build-bench
BENCH_OPS ?= 10000 100000
bench:
	$(MAKE) build BUILD=$(BENCH_BUILD) BUILD_TYPE=Release WERROR=OFF
	bench/run.sh $(BENCH_BUILD)/shard $(BENCH_OPS)

install: build
	DESTDIR=$(DESTDIR) cmake --install $(BUILD) --prefix $(PREFIX)

clean:
	rm -rf $(BUILD) $(ASAN_BUILD) $(FUZZ_BUILD)
