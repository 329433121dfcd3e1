# nnaccel top-level driver. `make demo` and `make check` are the two commands
# the README promises; both install missing packages first and rebuild only
# what changed (Ninja + ccache).
BUILD_DIR   ?= build
RUNTIME_DIR ?= build-runtime
BUILD_TYPE  ?= Release
CMAKE       ?= cmake
WERROR      := $(if $(filter true,$(CI)),ON,OFF)

CONFIGURE = $(CMAKE) -G Ninja -S . -DCMAKE_BUILD_TYPE=$(BUILD_TYPE) \
            -DNNACCEL_WERROR=$(WERROR) -Wno-dev

# The instrumented build (ASan + UBSan + libFuzzer coverage, clang-19) behind
# `make check-sanitize` and `make fuzz`; docs/robustness.md.
SANITIZE_DIR ?= build-sanitize
SANITIZE_JOBS ?= 2
FUZZ_SECONDS ?= 60
FUZZ_TARGETS ?=

.PHONY: all setup build build-runtime check demo bench docs format format-check \
        clean setup-sanitize build-sanitize check-sanitize fuzz

all: build

setup:
	@bash scripts/setup.sh

$(BUILD_DIR)/build.ninja:
	@$(CONFIGURE) -B $(BUILD_DIR) >/dev/null

build: setup $(BUILD_DIR)/build.ninja
	@$(CMAKE) --build $(BUILD_DIR)

# The runtime half alone, without LLVM/MLIR: proves the boundary.
$(RUNTIME_DIR)/build.ninja:
	@$(CONFIGURE) -B $(RUNTIME_DIR) -DNNACCEL_BUILD_COMPILER=OFF >/dev/null

build-runtime: setup $(RUNTIME_DIR)/build.ninja
	@$(CMAKE) --build $(RUNTIME_DIR)

check: build build-runtime
	@python3 scripts/run-tests.py --build $(BUILD_DIR) --runtime-build $(RUNTIME_DIR)

setup-sanitize:
	@bash scripts/setup.sh --sanitize

# -O1 -g1 for readable stacks at tolerable speed. NDEBUG stays defined: the
# Debian LLVM/MLIR libraries are built with it and several of their headers
# (llvm::Statistic, MLIR's storage classes) change layout without it, which
# shows up as false sanitizer reports.
$(SANITIZE_DIR)/build.ninja:
	@CC=clang-19 CXX=clang++-19 $(CMAKE) -G Ninja -S . -B $(SANITIZE_DIR) \
	  -DCMAKE_BUILD_TYPE=RelWithDebInfo -Wno-dev \
	  -DCMAKE_C_FLAGS_RELWITHDEBINFO="-O1 -g1 -DNDEBUG" \
	  -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g1 -DNDEBUG" \
	  -DNNACCEL_SANITIZE=ON -DNNACCEL_FUZZ=ON >/dev/null

build-sanitize: setup-sanitize $(SANITIZE_DIR)/build.ninja
	@$(CMAKE) --build $(SANITIZE_DIR) -j $(SANITIZE_JOBS)

check-sanitize: build-sanitize
	@python3 scripts/run-tests.py --build $(SANITIZE_DIR) --sanitize

fuzz: build-sanitize
	@python3 scripts/fuzz.py --build $(SANITIZE_DIR) --seconds $(FUZZ_SECONDS) $(FUZZ_TARGETS)

demo: build
	@bash scripts/demo.sh $(BUILD_DIR)

# Per-model compile time, package size, emulator speed and the PyTorch CPU
# yardstick of issue 17, f32 and int8. Installs python3-torch, python3-onnx
# and OpenBLAS if missing (not part of `make check`).
BENCH_FLAGS ?= --repeat 5
bench: build
	@bash scripts/setup.sh --bench
	@/usr/bin/python3 bench/models.py --bin $(BUILD_DIR)/bin $(BENCH_FLAGS)
	@/usr/bin/python3 bench/models.py --bin $(BUILD_DIR)/bin $(BENCH_FLAGS) --quantize int8

docs: build
	@$(CMAKE) --build $(BUILD_DIR) --target nnaccel-docs

FORMAT_FILES = $(shell git ls-files '*.cpp' '*.h' '*.hpp')
format:
	@clang-format-19 -i $(FORMAT_FILES)

format-check: setup
	@clang-format-19 --dry-run --Werror $(FORMAT_FILES) && echo "format-check: clean"

clean:
	rm -rf $(BUILD_DIR) $(RUNTIME_DIR) $(SANITIZE_DIR)
