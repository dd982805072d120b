# flowlab: the README's two commands are `make demo` and `make test`.
JOBS ?= $(shell nproc)
BUILD_RELEASE := build/release
BUILD_TEST := build/test
BUILD_FUZZ := build/fuzz
FUZZ_SECONDS ?= 15
FUZZ_LONG_SECONDS ?= 600

.PHONY: all deps deps-demo release demo test test-build fuzz-build fuzz-quick fuzz format format-check tidy clean

all: release

deps:
	@./scripts/install-deps.sh

# The Release build and the default scenario need fewer packages than the tests
# (no chromium, prometheus, Mininet, clang-tidy, ...): a fresh machine's `make demo`
# installs only those.
deps-demo:
	@./scripts/install-deps.sh --demo

# Ninja schedules the two cores better than make and keeps a per-file log of
# compile times (.ninja_log, docs/performance/build.md). A build dir configured
# with another generator is configured anew.
CONFIGURE = @d=$(1); if [ -f $$d/CMakeCache.txt ] && ! grep -q 'CMAKE_GENERATOR:INTERNAL=Ninja' $$d/CMakeCache.txt; then rm -rf $$d; fi; \
	cmake -G Ninja -S . -B $$d

release: deps-demo
	$(call CONFIGURE,$(BUILD_RELEASE)) -DCMAKE_BUILD_TYPE=Release -DFLOWLAB_TESTS=OFF >/dev/null
	@cmake --build $(BUILD_RELEASE) -j $(JOBS) --target flowlab

# Runs the default lab scenario with flowlab's own switch and controller.
demo: release
	@./scripts/demo.sh $(BUILD_RELEASE)/flowlab

# Line tables are what the sanitizers' reports need (file and line of each frame);
# full debug info made the objects 1.7x larger and their links slower
# (docs/performance/build.md). `make test TEST_DEBUG_INFO=-g` for a debugger.
TEST_DEBUG_INFO ?= -gline-tables-only

# The test tree is compiled by clang (half GCC's time on this code at -O0 with the
# sanitizers) and holds the fuzz targets too (FLOWLAB_FUZZ_SMOKE): one tree, built
# once (docs/performance/build.md). A tree configured with another compiler is configured anew.
test-build: deps
	@if [ -f $(BUILD_TEST)/CMakeCache.txt ] && ! grep -q '^CMAKE_CXX_COMPILER:[A-Z]*=.*clang++' $(BUILD_TEST)/CMakeCache.txt; then rm -rf $(BUILD_TEST); fi
	$(call CONFIGURE,$(BUILD_TEST)) -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ -DCMAKE_BUILD_TYPE=Debug -DFLOWLAB_SANITIZE=ON -DFLOWLAB_WERROR=ON \
	  "-DCMAKE_CXX_FLAGS_DEBUG=$(TEST_DEBUG_INFO)" >/dev/null
	@cmake --build $(BUILD_TEST) -j $(JOBS)

FUZZ_TARGETS := $(basename $(notdir $(wildcard tests/fuzz/fuzz_*.cpp)))

# Builds only the fuzz targets (and the layers they link), not the whole tree.
fuzz-build: deps
	$(call CONFIGURE,$(BUILD_FUZZ)) -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ -DCMAKE_BUILD_TYPE=RelWithDebInfo -DFLOWLAB_FUZZ=ON >/dev/null
	@cmake --build $(BUILD_FUZZ) -j $(JOBS) --target $(FUZZ_TARGETS)

# Builds with ASan+UBSan and -Werror, runs every test, then each fuzzer for FUZZ_SECONDS (two at a time)
# from the same tree. The unit tests (in-memory, loopback, their own namespaces) and the CLI
# tests (the binary's answers to bad input, golden output; unique names and free ports) run two
# at a time; then the interop, lab, cluster and soak tests (peers, namespaces of their own, unique
# names), two at a time too, except those marked RUN_SERIAL (tests/CMakeLists.txt,
# FLOWLAB_SERIAL_TESTS: they assert rates, delays and timeouts), which run alone.
test: test-build
	@cd $(BUILD_TEST) && export ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1; \
	  s=0; ctest --output-on-failure -L '^(unit|cli)$$' -j $(JOBS) --timeout 600 || s=1; \
	  ctest --output-on-failure -LE '^(unit|cli)$$' -j $(JOBS) --timeout 600 || s=1; exit $$s
	@./scripts/run-fuzzers.sh $(BUILD_TEST) $(FUZZ_SECONDS)

fuzz: fuzz-build
	@./scripts/run-fuzzers.sh $(BUILD_FUZZ) $(FUZZ_LONG_SECONDS)

format:
	@find src tests -name '*.cpp' -o -name '*.h' | xargs clang-format -i

format-check:
	@find src tests -name '*.cpp' -o -name '*.h' | xargs clang-format --dry-run -Werror && echo "clang-format: clean"

# clang-tidy over every source and test file (.clang-tidy; warnings are errors).
tidy: test-build
	@run-clang-tidy -p $(BUILD_TEST) -j $(JOBS) -quiet '(src|tests)/.*\.cpp$$' >$(BUILD_TEST)/tidy.err 2>&1 \
	  || { cat $(BUILD_TEST)/tidy.err; echo "clang-tidy found problems"; exit 1; }
	@echo "clang-tidy: clean"


clean:
	rm -rf build
