"""The planner on the bundled GGUF headers (no model is loaded)."""

from __future__ import annotations

import pytest

from core.settings import HearthSettings, ModelEntry
from service.llm.planner import kv_row_bytes, plan_from_settings

MIB = 2**20


def test_kv_row_bytes() -> None:
    assert kv_row_bytes(192, "f16") == 384
    assert kv_row_bytes(192, "q8_0") == 6 * 34
    assert kv_row_bytes(192, "q4_0") == 6 * 18


def test_smollm_plan(settings: HearthSettings) -> None:
    settings.llm.model = "smollm2-135m"
    plan = plan_from_settings(settings, available=8 * 2**30)
    m = plan.models[0]
    assert (m.n_layer, m.n_head_kv, m.key_length, m.value_length) == (30, 3, 64, 64)
    assert m.kv_cache == 4096 * 30 * 3 * (64 + 64) * 2
    assert m.quantization == "Q4_1"
    assert plan.fits and plan.budget == int(8 * 2**30 * 0.8)
    assert "embedder" in plan.extras


def test_several_models_and_extras_sum(settings: HearthSettings) -> None:
    settings.llm.model = "smollm2-135m"
    one = plan_from_settings(settings, available=8 * 2**30)
    settings.llm.models = [
        ModelEntry(name="a", model="smollm2-135m"),
        ModelEntry(name="b", model="smollm2-135m", n_ctx=2048, kv_type="q8_0"),
    ]
    settings.memory_extra = {"reranker": "300MiB"}
    two = plan_from_settings(settings, available=8 * 2**30)
    _a, b = two.models
    assert b.kv_cache == 2048 * 30 * 2 * (3 * 64 // 32 * 34)
    assert two.total == one.total + b.total + 300 * MIB


def test_over_budget_advice_names_parts_and_changes(settings: HearthSettings) -> None:
    settings.llm.model = "smollm2-135m"
    settings.memory_budget = "100MB"
    plan = plan_from_settings(settings)
    assert not plan.fits
    advice = plan.advice()
    for needle in (
        "weights",
        "KV cache",
        "compute",
        "embedder",
        "N_CTX",
        "KV_TYPE=q8_0",
        "qwen2.5-coder-0.5b",
        "HEARTH_MEMORY_BUDGET",
    ):
        assert needle in advice


@pytest.mark.parametrize("kv", ["f16", "q8_0", "q4_0"])
def test_kv_shrinks_with_type(settings: HearthSettings, kv: str) -> None:
    settings.llm.model = "smollm2-135m"
    settings.llm.kv_type = kv  # type: ignore[assignment]
    m = plan_from_settings(settings, available=2**33).models[0]
    assert (
        m.kv_cache
        == {"f16": 90 * MIB, "q8_0": 90 * MIB * 34 // 64, "q4_0": 90 * MIB * 18 // 64}[kv]
    )
