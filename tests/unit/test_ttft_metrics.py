"""The TTFT breakdown reaches /metrics: retrieval, condensing, prompt evaluation, prompt tokens
reused and new."""

from __future__ import annotations

from prometheus_client.parser import text_string_to_metric_families

from service.llm.queue import RequestStats
from service.metrics import Metrics


def _samples(metrics: Metrics) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    out = {}
    for family in text_string_to_metric_families(metrics.render().decode()):
        for s in family.samples:
            out[(s.name, tuple(sorted(s.labels.items())))] = s.value
    return out


def test_prompt_figures_are_observed() -> None:
    metrics = Metrics()
    stats = RequestStats("m", 0, ttft_s=1.5, tokens=10, tokens_per_s=8.0, outcome="done")
    stats.retrieval_s, stats.condense_s = 0.12, 0.0
    stats.prompt_tokens, stats.prompt_cached_tokens, stats.prompt_eval_s = 400, 150, 1.2
    metrics.observe_generation("m", stats)
    got = _samples(metrics)
    model = (("model", "m"),)
    assert got[("hearth_llm_prompt_tokens_total", (("kind", "cached"), ("model", "m")))] == 150
    assert got[("hearth_llm_prompt_tokens_total", (("kind", "new"), ("model", "m")))] == 250
    assert got[("hearth_llm_prompt_eval_seconds_sum", model)] == 1.2
    assert got[("hearth_answer_retrieval_seconds_count", model)] == 1
    assert got.get(("hearth_answer_condense_seconds_count", model), 0) == 0  # not a follow-up
