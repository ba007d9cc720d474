"""The LLM runtimes behind `service.llm.base.LLMRuntime`, chosen by ``llm.backend`` (or a model's
``backend`` in ``llm.models``) through :data:`RUNTIMES`, filled by plugins (core/plugins.py, hook
``register_llm_runtimes``). Hearth's own (builtin.py): ``local``, llama.cpp in process
(llama_cpp.py), and ``openai``, a remote OpenAI-compatible server (remote_openai.py)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from core.plugins import Registry

if TYPE_CHECKING:
    from core.settings import HearthSettings
    from service.llm.base import LLMRuntime, ModelConfig

#: factory(settings, model config) -> a loaded runtime.
RuntimeFactory = Callable[["HearthSettings", "ModelConfig"], "LLMRuntime"]
RUNTIMES: Registry[RuntimeFactory] = Registry(
    "register_llm_runtimes", "llm.backend", ("service.llm.runtimes.builtin",)
)

__all__ = ["RUNTIMES", "RuntimeFactory"]
