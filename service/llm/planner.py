"""The memory plan: what every resident part will take, computed from the GGUF header alone.

Per local model (nothing is loaded; ``core.gguf`` reads the header):

- weights = tensor bytes of the file (what llama.cpp maps as its model buffer);
- KV cache = n_ctx x n_layer x (row(K) + row(V)), with row(x) = bytes of n_head_kv x key_length
  (resp. value_length) elements of the cache type: f16 2 bytes, q8_0 34 per 32, q4_0 18 per 32.
  llama.cpp allocates exactly this at context creation (its log: ``llama_kv_cache: size = ...``);
- compute buffer = n_ubatch x (n_vocab + 3 x n_embd) x 4 bytes: the worst-case graph llama.cpp
  reserves is dominated by the f32 logits of one micro-batch, plus a few f32 activations; fitted on
  the bundled models (SmolLM2 99.4 MiB at n_ubatch 512, predicted 99.4; Qwen 0.5B/1.5B 300-306 MiB,
  predicted 302/306; with or without flash attention, n_ctx 2048-4096);
- output buffer = n_vocab x 4 bytes (logits of one sequence);
- repacked weights: on x86 with AVX2, llama.cpp copies every 2-D matmul weight of type Q4_0, Q4_K
  or IQ4_NL whose second dimension is a multiple of 8 (not token_embd) into an interleaved
  ``CPU_REPACK`` buffer, while the mapped file pages stay resident too: the Qwen 1.5B Q4_K_M
  holds 596.5 MiB twice (llama.cpp's log: ``CPU_REPACK model buffer size``). Other CPUs have
  other repack rules, not modelled here.

Other resident parts (the embedder, and whatever else is configured in ``memory_extra`` such as
Whisper or OCR) come from ``core.resident.resident_parts``, the one place for them.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from core.bundled import resolve_llm
from core.gguf import GGUFInfo, read_gguf
from core.memsize import MIB, available_memory, human, parse_budget
from core.resident import resident_parts
from core.settings import HearthSettings
from service.llm.base import ModelConfig
from service.llm.config import model_configs

#: bytes per block of 32 elements (f16: 32 x 2).
KV_BLOCK_BYTES = {"f16": 64, "q8_0": 34, "q4_0": 18}
FILE_TYPES = {
    0: "F32", 1: "F16", 2: "Q4_0", 3: "Q4_1", 7: "Q8_0", 8: "Q5_0", 9: "Q5_1", 10: "Q2_K",
    11: "Q3_K_S", 12: "Q3_K_M", 13: "Q3_K_L", 14: "Q4_K_S", 15: "Q4_K_M", 16: "Q5_K_S",
    17: "Q5_K_M", 18: "Q6_K", 32: "BF16",
}  # fmt: skip
SMALLER = ("qwen2.5-coder-0.5b", "smollm2-135m")
#: GGUF tensor type -> (elements per block, bytes per block) of the types llama.cpp repacks.
REPACKED_TYPES = {2: (32, 18), 12: (256, 144), 20: (32, 18)}  # Q4_0, Q4_K, IQ4_NL


def cpu_repacks() -> bool:
    """True on an x86 CPU with AVX2, where llama.cpp's CPU_REPACK buffer is used."""
    try:
        with open("/proc/cpuinfo") as fh:
            return any(line.startswith("flags") and " avx2" in line for line in fh)
    except OSError:
        return False


def repacked_bytes(info: GGUFInfo) -> int:
    """Bytes of the weights llama.cpp copies into its CPU_REPACK buffer (see module doc)."""
    total = 0
    for name, dims, ttype in info.tensors:
        matmul = len(dims) == 2 and name != "token_embd.weight" and dims[1] % 8 == 0
        if ttype in REPACKED_TYPES and matmul:
            per, size = REPACKED_TYPES[ttype]
            total += dims[0] * dims[1] // per * size
    return total


def kv_row_bytes(elements: int, kv_type: str) -> int:
    """Bytes of one row of ``elements`` cache values of ``kv_type``."""
    if kv_type == "f16":
        return elements * 2
    return elements // 32 * KV_BLOCK_BYTES[kv_type]


@dataclass
class ModelPlan:
    """Planned memory of one model and the header figures it came from."""

    name: str
    path: str
    backend: str
    n_ctx: int
    kv_type: str
    quantization: str = ""
    architecture: str = ""
    n_layer: int = 0
    n_head_kv: int = 0
    key_length: int = 0
    value_length: int = 0
    n_embd: int = 0
    n_vocab: int = 0
    context_length: int = 0
    weights: int = 0
    repacked: int = 0
    kv_cache: int = 0
    compute: int = 0
    output: int = 0
    prompt_cache: int = 0

    @property
    def total(self) -> int:
        """Every byte this model is planned to hold."""
        return (
            self.weights
            + self.repacked
            + self.kv_cache
            + self.compute
            + self.output
            + self.prompt_cache
        )

    def as_dict(self) -> dict[str, Any]:
        """JSON-ready, with the total."""
        return {**asdict(self), "total": self.total}


def _vocab(info: GGUFInfo) -> int:
    tokens = info.metadata.get("tokenizer.ggml.tokens")
    if isinstance(tokens, dict):
        return int(tokens["array_length"])
    if isinstance(tokens, list):
        return len(tokens)
    return int(info.arch("vocab_size", 0))


def plan_model(
    config: ModelConfig,
    path: Path,
    n_ubatch: int,
    repack: bool | None = None,
    prompt_cache: int = 0,
) -> ModelPlan:
    """Plan one local GGUF model from its header (``repack``: default, this CPU's;
    ``prompt_cache``: bytes of saved KV states held at most, ``llm.prompt_cache_mib``)."""
    info = read_gguf(path)
    n_embd = int(info.arch("embedding_length", 0))
    n_head = int(info.arch("attention.head_count", 1)) or 1
    head_kv = info.arch("attention.head_count_kv", n_head)
    n_head_kv = int(head_kv if not isinstance(head_kv, list) else max(head_kv))
    key_len = int(info.arch("attention.key_length", n_embd // n_head))
    val_len = int(info.arch("attention.value_length", n_embd // n_head))
    n_layer = int(info.arch("block_count", 0))
    n_vocab = _vocab(info)
    row = kv_row_bytes(n_head_kv * key_len, config.kv_type)
    row += kv_row_bytes(n_head_kv * val_len, config.kv_type)
    return ModelPlan(
        name=config.name,
        path=str(path),
        backend=config.backend,
        n_ctx=config.n_ctx,
        kv_type=config.kv_type,
        quantization=FILE_TYPES.get(int(info.metadata.get("general.file_type", -1)), "unknown"),
        architecture=info.architecture,
        n_layer=n_layer,
        n_head_kv=n_head_kv,
        key_length=key_len,
        value_length=val_len,
        n_embd=n_embd,
        n_vocab=n_vocab,
        context_length=int(info.arch("context_length", 0)),
        weights=info.tensor_bytes,
        repacked=repacked_bytes(info) if (cpu_repacks() if repack is None else repack) else 0,
        kv_cache=config.n_ctx * n_layer * row,
        compute=n_ubatch * (n_vocab + 3 * n_embd) * 4,
        output=n_vocab * 4,
        prompt_cache=prompt_cache,
    )


@dataclass
class MemoryPlan:
    """Every planned part against the budget."""

    budget: int
    budget_setting: str
    available: int
    models: list[ModelPlan]
    extras: dict[str, int] = field(default_factory=dict)

    @property
    def parts(self) -> list[tuple[str, int]]:
        """(label, bytes) of every part, models first."""
        rows: list[tuple[str, int]] = []
        for m in self.models:
            if m.backend != "local":
                continue
            rows += [
                (f"{m.name}: weights ({m.quantization})", m.weights),
                *([(f"{m.name}: repacked weights (CPU_REPACK)", m.repacked)] if m.repacked else []),
                (f"{m.name}: KV cache (n_ctx {m.n_ctx}, {m.kv_type})", m.kv_cache),
                (f"{m.name}: compute buffers", m.compute + m.output),
                *([(f"{m.name}: saved prompt states", m.prompt_cache)] if m.prompt_cache else []),
            ]
        return rows + [(name, size) for name, size in self.extras.items()]

    @property
    def total(self) -> int:
        """Sum of every part."""
        return sum(size for _, size in self.parts)

    @property
    def fits(self) -> bool:
        """True when the plan is within the budget."""
        return self.total <= self.budget

    def as_dict(self) -> dict[str, Any]:
        """JSON-ready plan."""
        return {
            "budget": self.budget,
            "budget_setting": self.budget_setting,
            "available": self.available,
            "total": self.total,
            "fits": self.fits,
            "parts": [{"part": label, "bytes": size} for label, size in self.parts],
            "models": [m.as_dict() for m in self.models],
            "extras": dict(self.extras),
        }

    def table(self) -> str:
        """The plan as a text table."""
        width = max([len(label) for label, _ in self.parts] + [20])
        lines = [f"{'part':{width}}  {'planned':>12}"]
        lines += [f"{label:{width}}  {human(size):>12}" for label, size in self.parts]
        lines.append(f"{'total':{width}}  {human(self.total):>12}")
        lines.append(
            f"{'budget (' + self.budget_setting + ')':{width}}  {human(self.budget):>12}"
            f"  {'fits' if self.fits else 'OVER BUDGET'}"
        )
        return "\n".join(lines)

    def advice(self) -> str:
        """Why the plan does not fit, part by part, and what to change."""
        lines = [
            f"memory plan {human(self.total)} exceeds the budget {human(self.budget)} "
            f"(memory_budget={self.budget_setting}):"
        ]
        lines += [f"  {label}: {human(size)}" for label, size in self.parts]
        lines.append("to fit, change one of:")
        for m in (m for m in self.models if m.backend == "local"):
            half = m.kv_cache // 2
            q8 = m.kv_cache * 34 // 64 if m.kv_type == "f16" else m.kv_cache
            lines.append(
                f"  {m.name}: lower n_ctx (HEARTH_LLM__N_CTX={m.n_ctx // 2} saves {human(half)})"
                + (
                    f"; KV type q8_0 (HEARTH_LLM__KV_TYPE=q8_0 saves {human(m.kv_cache - q8)})"
                    if m.kv_type == "f16"
                    else ""
                )
                + f"; lower n_ubatch (HEARTH_LLM__N_UBATCH=128 saves {human(m.compute * 3 // 4)})"
            )
        used = {m.name for m in self.models} | {Path(m.path).name for m in self.models}
        smaller = [n for n in SMALLER if n not in used]
        if smaller:
            lines.append(f"  a smaller model (--model {' or '.join(smaller)})")
        lines.append("  or a larger budget (HEARTH_MEMORY_BUDGET, e.g. 6GiB or 60%)")
        return "\n".join(lines)


def plan_from_settings(settings: HearthSettings, available: int | None = None) -> MemoryPlan:
    """The plan of the configured models, embedder and extra parts; reads headers only."""
    avail = available if available is not None else available_memory()
    n_ubatch = min(settings.llm.n_batch, settings.llm.n_ubatch)
    models = []
    for config in model_configs(settings):
        if config.backend == "local":
            path = resolve_llm(config.model, settings.models_dir)
            models.append(
                plan_model(config, path, n_ubatch, prompt_cache=settings.llm.prompt_cache_mib * MIB)
            )
        else:
            models.append(
                ModelPlan(
                    config.name, config.url or "", config.backend, config.n_ctx, config.kv_type
                )
            )
    extras = resident_parts(settings)  # embedder, Whisper, OCR, voice, indexes, extras
    budget = parse_budget(settings.memory_budget, avail)
    return MemoryPlan(budget, settings.memory_budget, avail, models, extras)


__all__ = ["MIB", "MemoryPlan", "ModelPlan", "kv_row_bytes", "plan_from_settings", "plan_model"]
