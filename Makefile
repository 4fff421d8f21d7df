# Makefile - the two commands of the README: `make demo` and `make test`. Each installs the
# Debian packages it needs (when missing and running as root), configures and builds.
BUILD ?= build
ASAN_BUILD ?= build-asan
JOBS ?= $(shell nproc)
PACKAGES = gcc make cmake pkg-config libfftw3-dev

FUZZ_BUILD ?= build-fuzz
FUZZ_SECONDS ?= 600

.PHONY: all deps build demo test test-full fuzz clean

all: build

deps:
	@scripts/install-deps $(PACKAGES)

build: deps
	cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo -DZIPFFT_WERROR=ON
	cmake --build $(BUILD) -j $(JOBS)

demo: build
	$(BUILD)/zipfft match

# The CI suite: the quick tier, plain and under AddressSanitizer + UndefinedBehaviorSanitizer,
# the test programs in parallel (the quick tier's CPU kernels at -O0, tests/CMakeLists.txt).
# How long it takes on CI's 2 cores: docs/ci-times.md.
test: build
	cd $(BUILD) && ctest -j $(JOBS) --output-on-failure
	cmake -S . -B $(ASAN_BUILD) -DCMAKE_BUILD_TYPE=Debug -DZIPFFT_WERROR=ON -DZIPFFT_SANITIZE=ON
	cmake --build $(ASAN_BUILD) -j $(JOBS)
	cd $(ASAN_BUILD) && ctest -j $(JOBS) --output-on-failure

# Every supported length (slow): not part of CI.
test-full: build
	cmake -S . -B $(BUILD) -DZIPFFT_TEST_TIER=full
	cmake --build $(BUILD) -j $(JOBS)
	cd $(BUILD) && ctest -j $(JOBS) --output-on-failure
	cmake -S . -B $(BUILD) -DZIPFFT_TEST_TIER=quick

# The libFuzzer target over the public API (tests/test_fuzz_api.c) for FUZZ_SECONDS, under
# ASan + UBSan with the CPU kernels it compiles instrumented too (ZIPFFT_CC), growing
# $(FUZZ_BUILD)/corpus from tests/fuzz_corpus: not part of CI. Inputs that break an
# invariant land in $(FUZZ_BUILD)/artifacts; copy them into tests/fuzz_corpus with the fix,
# so that test_fuzz_api replays them.
fuzz: deps
	@scripts/install-deps clang libclang-rt-dev
	CC=clang cmake -S . -B $(FUZZ_BUILD) -DCMAKE_BUILD_TYPE=Debug -DZIPFFT_SANITIZE=ON -DZIPFFT_FUZZ=ON
	cmake --build $(FUZZ_BUILD) -j $(JOBS) --target fuzz_api
	mkdir -p $(FUZZ_BUILD)/corpus $(FUZZ_BUILD)/artifacts
	cd $(FUZZ_BUILD) && ASAN_OPTIONS=intercept_tls_get_addr=0 ZIPFFT_CACHE_DIR=$(CURDIR)/$(FUZZ_BUILD)/kernel-cache \
	  ZIPFFT_CC="clang -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer" \
	  tests/fuzz_api -max_total_time=$(FUZZ_SECONDS) -len_control=0 -timeout=120 -rss_limit_mb=6144 -max_len=256 \
	  -artifact_prefix=artifacts/ corpus $(CURDIR)/tests/fuzz_corpus

clean:
	rm -rf $(BUILD) $(ASAN_BUILD) $(FUZZ_BUILD) kernel-cache
