"""Prometheus metrics."""

from __future__ import annotations

from litestar import Controller, Response, get
from litestar.datastructures import State

from service.metrics import CONTENT_TYPE


class MetricsController(Controller):
    """Figures for Prometheus (text exposition format)."""

    path = "/metrics"
    tags = ["system"]
    include_in_schema = False

    @get("/", sync_to_thread=True)
    def metrics(self, state: State) -> Response[bytes]:
        """Requests by route and status, time to first token and tokens/s histograms, queue
        depth, documents and ingest outcomes, process RSS, planned memory."""
        return Response(state.metrics.render(), media_type=CONTENT_TYPE)
