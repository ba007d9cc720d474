#!/usr/bin/env bash
# Install with the test extras, lint and type-check, then run every test tier.
# Tiers: tests/unit (fast), tests/integration (real models, stores and a loopback server; the
# parts that need ../shared/data skip with a reason when it is absent), tests/e2e (browser).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install.sh --test
VENV="${HEARTH_VENV:-.venv}"
"$VENV/bin/ruff" check .
"$VENV/bin/mypy"
status=0
"$VENV/bin/python" -m pytest "$@" || status=$?
# Exit code 5 means "no tests collected" (an empty tier): not a failure of the suite.
if [ "$status" -eq 5 ]; then status=0; fi
exit "$status"
