"""System figures: memory plan versus measured, warm-up, queues; and the configured models."""

from __future__ import annotations

from typing import Any

from litestar import Controller, get
from litestar.datastructures import State


class SystemController(Controller):
    """How the service uses memory and how its queues are doing."""

    path = "/api"
    tags = ["system"]

    @get("/system", sync_to_thread=False)
    def system(self, state: State) -> dict[str, Any]:
        """Memory plan against the budget, RSS growth measured after loading, mlock status,
        warm-up (cold and warm time to first token), and per model its queue depth and the
        recent requests' queue depth, wait, time to first token and tokens/s."""
        result: dict[str, Any] = state.hearth.system()
        return result

    @get("/models", sync_to_thread=True)
    def models(self, state: State) -> list[dict[str, Any]]:
        """Configured models: name, backend, sha256, quantization, context, planned memory,
        and which tasks route to each."""
        pool = state.hearth.pool
        out = []
        for name, slot in pool.slots.items():
            info = slot.info()
            info["tasks"] = sorted(t for t, n in pool.router.routes.items() if n == name)
            info["default"] = name == pool.router.default
            out.append(info)
        return out
