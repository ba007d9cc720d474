#!/usr/bin/env bash
# Install with the test extras, lint and type-check, then run every test tier.
# Tiers: tests/unit (fast), tests/integration (real models, stores and a loopback server; the
# parts that need ../shared/data skip with a reason when it is absent), tests/e2e (browser).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install.sh --test
# The browser tier drives Debian's Chromium (never a downloaded browser). Install it when running
# as root and it is missing; otherwise tests/e2e skips with the reason.
if [ ! -x /usr/bin/chromium ] && [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null; then
    echo "installing Debian's chromium and chromium-driver for the browser tests"
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium chromium-driver \
        || echo "chromium could not be installed: tests/e2e will skip"
fi
VENV="${HEARTH_VENV:-.venv}"
"$VENV/bin/ruff" check .
"$VENV/bin/mypy"
status=0
"$VENV/bin/python" -m pytest "$@" || status=$?
# Exit code 5 means "no tests collected" (an empty tier): not a failure of the suite.
if [ "$status" -eq 5 ]; then status=0; fi
exit "$status"
