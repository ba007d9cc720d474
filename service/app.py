"""The Litestar application factory."""

from __future__ import annotations

import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from anyio import to_thread
from litestar import Litestar
from litestar.config.app import AppConfig
from litestar.datastructures import State
from litestar.middleware import DefineMiddleware
from litestar.openapi import OpenAPIConfig
from litestar.openapi.plugins import JsonRenderPlugin

from core.settings import HearthSettings
from service import __version__
from service.answering.controllers import (
    AnswerController,
    AskController,
    ConversationController,
    VoiceAskController,
)
from service.api_docs import document_responses
from service.backup.controller import BackupController
from service.csp import add_security_headers
from service.errors import EXCEPTION_HANDLERS
from service.evaluation.controller import EvaluationController
from service.library.controller import CollectionController, DocumentController
from service.llm.planner import MemoryPlan
from service.mail.controller import MailController
from service.mail.service import MailService
from service.mcp.transports import HttpMount
from service.metrics import Metrics
from service.openai_compat.audio import OpenAIAudioController
from service.openai_compat.controller import OpenAIController
from service.security.guard import RequestGuard
from service.security.nul import NulGuard
from service.speakers.controller import SpeakerController
from service.state import Hearth, start_watcher
from service.system.controller import SystemController
from service.system.health_controller import HealthController
from service.system.metrics_controller import MetricsController
from service.templates.controller import TemplateController
from service.tokens.auth import AuthController, GateMiddleware
from service.tokens.service import TokenStore
from service.ui import ui_routes
from service.viewer.controller import ViewerController
from service.wholedoc.controller import WholeDocController


def create_app(
    settings: HearthSettings, hearth: Hearth | None = None, plan: MemoryPlan | None = None
) -> Litestar:
    """Build the app; the knowledge base and model load at start-up unless ``hearth`` is given
    (``plan``: the memory plan already computed, passed to :meth:`Hearth.start`)."""

    @asynccontextmanager
    async def lifespan(app: Litestar) -> AsyncIterator[None]:
        own = hearth is None
        app.state.hearth = hearth or await to_thread.run_sync(Hearth.start, settings, plan)
        app.state.metrics.bind(app.state.hearth)
        app.state.tokens = TokenStore(app.state.hearth.kb.db)
        app.state.started_at = time.time()
        watcher = await to_thread.run_sync(start_watcher, app.state.hearth)
        app.state.mail = MailService(settings, app.state.hearth.library.pipeline)
        app.state.mail.start()
        try:
            yield
        finally:
            await to_thread.run_sync(app.state.mail.stop)
            if watcher is not None:
                await to_thread.run_sync(watcher.stop)
            if own:
                await to_thread.run_sync(app.state.hearth.close)

    mcp = HttpMount(settings)  # /mcp: the MCP server over streamable HTTP
    app = Litestar(
        route_handlers=[
            HealthController,
            AskController,
            VoiceAskController,
            DocumentController,
            SpeakerController,
            CollectionController,
            TemplateController,
            SystemController,
            ConversationController,
            AnswerController,
            EvaluationController,
            *ui_routes(),
            OpenAIController,
            OpenAIAudioController,
            BackupController,
            MetricsController,
            AuthController,
            MailController,
            mcp.handler(),
            ViewerController,
            WholeDocController,
        ],
        # Outermost: a foreign Host or a cross-site change is refused before any token check.
        # Then the token gate, then a NUL in the request's text is a 400 (never Postgres' 500).
        middleware=[
            DefineMiddleware(RequestGuard, server=settings.server),
            GateMiddleware,
            DefineMiddleware(NulGuard, max_body=settings.server.max_upload_bytes),
        ],
        before_send=[add_security_headers],
        state=State({"metrics": Metrics()}),
        exception_handlers=EXCEPTION_HANDLERS,  # type: ignore[arg-type]
        lifespan=[lifespan, mcp.lifespan],
        request_max_body_size=settings.server.max_upload_bytes,
        openapi_config=OpenAPIConfig(
            title="Hearth",
            version=__version__,
            description="A private assistant that answers from your own files.",
            use_handler_docstrings=True,
            # Only the raw document: the HTML renderers load scripts from CDNs.
            render_plugins=[JsonRenderPlugin()],
        ),
        on_app_init=[_quiet],
        debug=False,
    )
    document_responses(app)
    return app


def _quiet(config: AppConfig) -> AppConfig:
    """No request logging middleware: paths and bodies can carry user text."""
    config.logging_config = None
    return config
