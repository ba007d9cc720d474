#!/usr/bin/env bash
# Install with the test extras, lint and type-check, then run every test tier.
# Tiers: tests/unit (fast), tests/integration (real models, stores and a loopback server; the
# parts that need ../shared/data skip with a reason when it is absent), tests/e2e (browser).
# Then, for the whole suite (no arguments) or with HEARTH_SCALED_PASS=on, the integration tier again
# on Postgres + a Chroma server + llama_cpp.server (HEARTH_TEST_BACKENDS=scaled; the fixtures start
# them on loopback ports). Postgres comes from Debian's packages: installed here when running as
# root with apt-get; otherwise the pass is skipped with the reason. HEARTH_SCALED_PASS=off skips it.
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
# The privacy test also watches native code's connects with strace when it is there.
if ! command -v strace >/dev/null && [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null; then
    echo "installing Debian's strace for the privacy test's native-code layer"
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq strace \
        || echo "strace could not be installed: the privacy test's strace layer will skip"
fi
# Read-aloud falls back to Debian's espeak-ng when piper is absent; its test needs the binary.
if ! command -v espeak-ng >/dev/null && [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null; then
    echo "installing Debian's espeak-ng for the read-aloud fallback test"
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq espeak-ng \
        || echo "espeak-ng could not be installed: the espeak-ng fallback test will skip"
fi
# Mail sync is tested against a real IMAP server on loopback: Debian's dovecot, started by the tests.
if ! command -v dovecot >/dev/null && [ ! -x /usr/sbin/dovecot ] && [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null; then
    echo "installing Debian's dovecot-imapd for the mail sync tests"
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq dovecot-imapd \
        || echo "dovecot-imapd could not be installed: tests/integration/test_mail*.py will skip"
fi
VENV="${HEARTH_VENV:-.venv}"
"$VENV/bin/ruff" check .
"$VENV/bin/mypy"
status=0
# With no arguments the suite runs on HEARTH_TEST_WORKERS pytest-xdist workers (default 2: a
# test spends about 40% of its time waiting on a subprocess, a server or a model load, so two
# keep both cores busy), whole files to a worker so a module's server starts once, the longest
# first (tests/conftest.py, SLOWEST_FIRST) and then in collection order; then the
# tests marked `serial` (they read the machine's load or time a run against a cap) alone.
# Arguments (a tier, a file, -k ...) run as given in one process.
workers="${HEARTH_TEST_WORKERS:-2}"
passed_or_empty() { [ "$1" -eq 0 ] || [ "$1" -eq 5 ]; }  # 5: no tests collected (an empty tier)
if [ "$#" -gt 0 ]; then
  "$VENV/bin/python" -m pytest --durations=25 "$@" || status=$?
  if passed_or_empty "$status"; then status=0; fi
else
  "$VENV/bin/python" -m pytest --durations=25 -n "$workers" --dist loadfile --no-loadscope-reorder \
    -m "not serial" || status=$?
  if passed_or_empty "$status"; then status=0; fi
  serial_status=0
  "$VENV/bin/python" -m pytest --durations=10 -m serial || serial_status=$?
  if ! passed_or_empty "$serial_status"; then status=$serial_status; fi
fi

have_postgres() {
  command -v initdb >/dev/null 2>&1 || compgen -G "/usr/lib/postgresql/*/bin/initdb" >/dev/null
}

scaled="${HEARTH_SCALED_PASS:-auto}"
if [ "$scaled" = "auto" ] && [ "$#" -gt 0 ]; then scaled="off"; fi
if [ "$scaled" = "off" ]; then
  echo "==> scaled pass skipped (HEARTH_SCALED_PASS=off, or pytest arguments were given)" >&2
else
  if ! have_postgres && [ "$(id -u)" -eq 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "==> installing PostgreSQL from Debian's packages for the scaled pass" >&2
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends postgresql >&2
  fi
  if have_postgres; then
    echo "==> scaled pass: tests/integration on Postgres + Chroma server + llama_cpp.server" >&2
    start=$SECONDS
    scaled_status=0
    HEARTH_TEST_BACKENDS=scaled "$VENV/bin/python" -m pytest --durations=15 -n "$workers" \
      --dist loadfile --no-loadscope-reorder -m "not slow and not serial" tests/integration \
      || scaled_status=$?
    echo "==> scaled pass took $((SECONDS - start)) s (exit $scaled_status)" >&2
    if [ "$scaled_status" -ne 0 ] && [ "$scaled_status" -ne 5 ]; then status=$scaled_status; fi
  else
    echo "==> scaled pass skipped: PostgreSQL is not installed and cannot be installed here" \
      "(needs root and apt-get; install Debian's postgresql to run it)" >&2
  fi
fi
exit "$status"
