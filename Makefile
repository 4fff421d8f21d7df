# Makefile - the two commands of the README: `make demo` and `make test`. Each installs the
# Debian packages it needs (when missing and running as root), configures and builds.
BUILD ?= build
ASAN_BUILD ?= build-asan
JOBS ?= $(shell nproc)
PACKAGES = gcc make cmake pkg-config libfftw3-dev

.PHONY: all deps build demo test test-full clean

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

clean:
	rm -rf $(BUILD) $(ASAN_BUILD) kernel-cache
