"""Health."""

from __future__ import annotations

from litestar import Controller, get
from litestar.datastructures import State

from service.system.schemas import Health


class HealthController(Controller):
    """Liveness and readiness of the service."""

    path = "/api/health"
    tags = ["system"]

    @get("/", sync_to_thread=True)
    def health(self, state: State) -> Health:
        """The service is up and its model is loaded; counts of what it knows."""
        hearth = state.hearth
        stats = hearth.kb.stats()
        return Health(
            "ok", hearth.pool.default.runtime.model_name, stats["documents"], stats["chunks"]
        )
