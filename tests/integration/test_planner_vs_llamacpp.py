"""The planner's KV cache and compute figures against what llama.cpp itself reports at load."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from core.bundled import resolve_llm
from core.settings import HearthSettings
from service.llm.base import ModelConfig
from service.llm.planner import plan_model

MIB = 2**20
LOAD = (
    "import sys, llama_cpp; from llama_cpp import Llama; kv = sys.argv[3]; "
    "t = getattr(llama_cpp, 'GGML_TYPE_' + kv.upper()); "
    "Llama(model_path=sys.argv[1], n_ctx=int(sys.argv[2]), n_threads=2, type_k=t, type_v=t, "
    "flash_attn=kv != 'f16', verbose=True)"
)


def llama_cpp_report(path: Path, n_ctx: int, kv: str) -> dict[str, float]:
    """KV and compute buffer sizes (MiB) from llama.cpp's own log of a real load."""
    err = subprocess.run(
        [sys.executable, "-c", LOAD, str(path), str(n_ctx), kv],
        capture_output=True,
        text=True,
        timeout=300,
        check=True,
    ).stderr
    kv_mib = re.search(r"llama_kv_cache: size =\s+([\d.]+) MiB", err)
    compute = re.search(r"CPU compute buffer size =\s+([\d.]+) MiB", err)
    repack = re.search(r"CPU_REPACK model buffer size =\s+([\d.]+) MiB", err)
    weights = re.search(r"CPU_Mapped model buffer size =\s+([\d.]+) MiB", err)
    assert kv_mib and compute and weights, err[-2000:]
    return {
        "kv": float(kv_mib.group(1)),
        "compute": float(compute.group(1)),
        "weights": float(weights.group(1)),
        "repacked": float(repack.group(1)) if repack else 0.0,
    }


@pytest.mark.slow
@pytest.mark.embedded_only("measures the in-process llama.cpp against the planner")
@pytest.mark.parametrize(
    ("model", "n_ctx", "kv"),
    [
        ("smollm2-135m", 4096, "f16"),
        ("smollm2-135m", 2048, "q8_0"),
        ("smollm2-135m", 4096, "q4_0"),
        ("qwen2.5-coder-0.5b", 4096, "f16"),
        ("qwen2.5-coder-1.5b", 2048, "q8_0"),
    ],
)
def test_kv_cache_matches_llama_cpp(
    settings: HearthSettings, model: str, n_ctx: int, kv: str
) -> None:
    path = resolve_llm(model, settings.models_dir)
    plan = plan_model(
        ModelConfig(model, model, n_ctx, kv, "local", None),
        path,  # type: ignore[arg-type]
        n_ubatch=512,
    )
    report = llama_cpp_report(path, n_ctx, kv)
    # llama.cpp prints MiB with two decimals.
    assert plan.kv_cache / MIB == pytest.approx(report["kv"], abs=0.01)
    assert plan.weights / MIB == pytest.approx(report["weights"], abs=0.01)
    assert plan.repacked / MIB == pytest.approx(report["repacked"], abs=0.01)
    # The compute estimate is a fitted formula: within 3% of what llama.cpp reserves.
    assert plan.compute / MIB == pytest.approx(report["compute"], rel=0.03)
