# TIRx — top-level entry points. `make demo` and `make check` work on a fresh
# Debian bookworm machine: they install what is missing, build, then run.

LLVM_PREFIX ?= /usr/lib/llvm-22
CUDA_HOME   ?= /usr/local/cuda
BUILD_DIR   ?= build
JOBS        ?= $(shell nproc)

# Debian packages the build and the tests need (see docs/dependencies.md).
DEB_PACKAGES := llvm-22-dev libmlir-22-dev mlir-22-tools llvm-22-tools \
                nlohmann-json3-dev libgtest-dev cmake ninja-build ccache \
                python3 zlib1g-dev libzstd-dev libedit-dev libcurl4-openssl-dev \
                libxml2-dev python3-jsonschema chromium \
                slurm-wlm munge

SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

.PHONY: all deps build demo check check-lit check-unit clean docs pack check-pack

all: build

deps:
	@missing=$$(for p in $(DEB_PACKAGES); do \
	    dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q 'install ok installed' || echo $$p; \
	  done); \
	if [ -n "$$missing" ]; then \
	  echo "deps: installing:" $$missing; \
	  $(SUDO) apt-get update -qq && \
	  DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq --no-install-recommends $$missing; \
	else echo "deps: all Debian packages present"; fi
	@# The MCP test's client: the official TypeScript SDK from the npm registry.
	@if command -v npm > /dev/null && [ ! -d test/MCP/node_modules/@modelcontextprotocol/sdk ]; then \
	  echo "deps: npm install (test/MCP)"; \
	  (cd test/MCP && npm install --no-audit --no-fund --silent) || \
	    echo "deps: npm install failed: the MCP client test will be UNSUPPORTED"; \
	fi
	@if [ ! -x $(CUDA_HOME)/bin/ptxas ]; then \
	  echo "deps: $(CUDA_HOME)/bin/ptxas not found."; \
	  echo "      Install the CUDA 13 toolkit (NVIDIA's cuda-toolkit-13-0 package) so that"; \
	  echo "      ptxas lies at $(CUDA_HOME)/bin/ptxas, or run make with CUDA_HOME=<toolkit dir>."; \
	  exit 1; \
	fi

$(BUILD_DIR)/build.ninja:
	cmake -G Ninja -S . -B $(BUILD_DIR) \
	  -DCMAKE_BUILD_TYPE=Release \
	  -DMLIR_DIR=$(LLVM_PREFIX)/lib/cmake/mlir \
	  -DLLVM_DIR=$(LLVM_PREFIX)/lib/cmake/llvm \
	  -DCUDA_HOME=$(CUDA_HOME)

build: deps $(BUILD_DIR)/build.ninja
	cmake --build $(BUILD_DIR) -j $(JOBS)

demo: build
	@bash examples/demo.sh $(BUILD_DIR)

check: build
	cmake --build $(BUILD_DIR) --target check-tirx

# build/tirx-pack.tar.xz: tirx, tirx-opt, tirx-run and the Python package
# for a GPU host without LLVM (cmake/TIRxPack.cmake, docs/testing.md).
pack: deps $(BUILD_DIR)/build.ninja
	cmake --build $(BUILD_DIR) --target pack

# Unpacks the pack and runs the loop with /usr/lib/llvm-22 hidden (~2.5 min).
check-pack: deps $(BUILD_DIR)/build.ninja
	cmake --build $(BUILD_DIR) --target check-pack

docs: build
	cmake --build $(BUILD_DIR) --target tirx-doc

clean:
	rm -rf $(BUILD_DIR)
