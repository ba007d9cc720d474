"""Configured models with every default filled in, and how requests are routed to them."""

from __future__ import annotations

from core.errors import ConfigError, InvalidInputError, NotFoundError
from core.settings import TASKS, HearthSettings
from service.llm.base import ModelConfig
from service.llm.runtimes import RUNTIMES


def model_configs(settings: HearthSettings) -> list[ModelConfig]:
    """``llm.models`` with defaults filled, or the single ``llm.model`` when that list is empty."""
    llm = settings.llm
    if not llm.models:
        RUNTIMES.get(llm.backend)  # an unknown backend is refused by name, with the known ones
        return [
            ModelConfig(llm.model, llm.model, llm.n_ctx, llm.kv_type, llm.backend, llm.remote_url)
        ]
    configs = [
        ModelConfig(
            e.name,
            e.model,
            e.n_ctx or llm.n_ctx,
            e.kv_type or llm.kv_type,
            e.backend or llm.backend,
            e.url or llm.remote_url,
        )
        for e in llm.models
    ]
    names = [c.name for c in configs]
    if len(set(names)) != len(names):
        raise ConfigError(
            f"llm.models: model names must be unique, got {names}", field="llm.models"
        )
    for c in configs:
        RUNTIMES.get(c.backend)
        if c.backend == "openai" and not c.url:
            raise ConfigError(
                f"llm.models[{c.name}]: the openai backend needs url (or llm.remote_url)",
                field="llm.models",
            )
    return configs


class Router:
    """Picks a model by name, else by task through ``llm.routes``, else the default."""

    def __init__(self, names: list[str], routes: dict[str, str], default: str | None) -> None:
        self.names = names
        self.routes = dict(routes)
        self.default = default or names[0]
        for task, name in [*self.routes.items(), ("default_model", self.default)]:
            if name not in names:
                raise ConfigError(
                    f"llm.routes: {task} -> {name!r} is not a configured model "
                    f"({', '.join(names)})",
                    field="llm.routes",
                )

    @classmethod
    def from_settings(cls, settings: HearthSettings, names: list[str]) -> Router:
        """The router of the configured models."""
        return cls(names, settings.llm.routes, settings.llm.default_model)

    def pick(self, model: str | None = None, task: str | None = None) -> str:
        """The model name a request goes to; 4xx errors naming the field when it is unknown."""
        if model:
            if model not in self.names:
                raise NotFoundError(
                    f"model: {model!r} is not configured (models: {', '.join(self.names)})",
                    field="model",
                )
            return model
        if task:
            if task not in TASKS:
                raise InvalidInputError(
                    f"task: {task!r} is not a task ({', '.join(TASKS)})", field="task"
                )
            return self.routes.get(task, self.default)
        return self.default
