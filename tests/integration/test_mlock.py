"""use_mlock under a small ``ulimit -l``: reported, and the model still loads and answers."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.integration.conftest import REPO, hearth_env

pytestmark = [
    pytest.mark.slow,
    pytest.mark.embedded_only("mlock of the in-process model; the LLM is remote here"),
]

# Drop CAP_IPC_LOCK so the 8 MiB-style ``ulimit -l`` applies even to root.
NO_LOCK_CAP = ["setpriv", "--bounding-set", "-ipc_lock", "--inh-caps", "-ipc_lock"]
LOAD = """
import json, threading
from core.bundled import resolve_llm
from core.settings import load_settings
from service.llm.base import SamplingParams
from service.llm.runtimes.llama_cpp import LlamaCppRuntime
from service.llm.pool import mlock_status
s = load_settings(); s.llm.use_mlock = True; s.llm.n_ctx = 512
rt = LlamaCppRuntime("smollm2-135m", resolve_llm("smollm2-135m", s.models_dir), s.llm)
out = "".join(rt.stream_chat([{"role": "user", "content": "Hi"}],
                             SamplingParams(max_tokens=4), threading.Event()))
print(json.dumps({"status": mlock_status(True, 200 * 2**20), "answered": bool(out)}))
"""


@pytest.fixture
def limited() -> list[str]:
    """The setpriv prefix, when it can be used here with a finite memlock limit."""
    import resource

    if os.geteuid() != 0 or shutil.which("setpriv") is None:
        pytest.skip("needs root and setpriv to drop CAP_IPC_LOCK")
    if resource.getrlimit(resource.RLIMIT_MEMLOCK)[0] == resource.RLIM_INFINITY:
        pytest.skip("ulimit -l is unlimited here")
    return NO_LOCK_CAP


def test_mlock_over_the_limit_is_reported_not_fatal(limited: list[str], tmp_path: Path) -> None:
    done = subprocess.run(
        [*limited, sys.executable, "-c", LOAD],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=REPO,
        env=hearth_env(tmp_path),
    )
    assert done.returncode == 0, done.stderr[-2000:]
    result = json.loads(done.stdout.strip().splitlines()[-1])
    assert result["answered"]
    assert not result["status"]["sufficient"] and "ulimit -l" in result["status"]["warning"]


def test_plan_warns_about_mlock(limited: list[str], tmp_path: Path) -> None:
    done = subprocess.run(
        [*limited, sys.executable, "-m", "service.cli", "--model", "smollm2-135m", "plan"],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=REPO,
        env=hearth_env(tmp_path, HEARTH_LLM__USE_MLOCK="true"),
    )
    assert done.returncode == 0, done.stderr
    assert "warning: use_mlock" in done.stdout
