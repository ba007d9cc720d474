"""Prompt templates over HTTP: list, versions, add, activate, roll back, diff, export, import."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from litestar import Controller, get, post
from litestar.datastructures import State

from service.schemas import BodyId, Id
from service.templates.service import TemplateService, TemplateVersion


@dataclass
class TemplateVersionCreate:
    """A new version; a part left out is copied from the active version."""

    system: str | None = None
    user: str | None = None
    note: str = ""
    activate: bool = False


@dataclass
class TemplateActivate:
    """Which version to make active."""

    version: BodyId


@dataclass
class TemplateDiff:
    """A unified diff of two versions."""

    name: str
    a: int
    b: int
    diff: str


def _svc(state: State) -> TemplateService:
    svc: TemplateService = state.hearth.templates
    return svc


class TemplateController(Controller):
    """Versioned prompt templates; versions are immutable, one is active per template."""

    path = "/api/templates"
    tags = ["templates"]

    @get("/", sync_to_thread=True)
    def list_active(self, state: State) -> list[TemplateVersion]:
        """The active version of every template."""
        return _svc(state).active()

    @get("/export", sync_to_thread=True)
    def export(self, state: State) -> dict[str, Any]:
        """Every version of every template, to import on another machine."""
        return _svc(state).export()

    @post("/import", sync_to_thread=True, status_code=200)
    def import_(self, data: dict[str, Any], state: State) -> dict[str, int]:
        """Import an export (same version numbers and hashes)."""
        return _svc(state).import_(data)

    @get("/{name:str}/versions", sync_to_thread=True)
    def versions(self, name: str, state: State) -> list[TemplateVersion]:
        """Every version of one template, oldest first."""
        return _svc(state).versions(name)

    @get("/{name:str}/versions/{version:int}", sync_to_thread=True)
    def version(self, name: str, version: Id, state: State) -> TemplateVersion:
        """One version."""
        return _svc(state).get(name, version)

    @post("/{name:str}/versions", sync_to_thread=True, status_code=201)
    def add_version(self, name: str, data: TemplateVersionCreate, state: State) -> TemplateVersion:
        """Add a version; refused (400) when it does not render."""
        svc = _svc(state)
        if data.system is None or data.user is None:
            base = svc.get(name)
        system = data.system if data.system is not None else base.system
        user = data.user if data.user is not None else base.user
        return svc.add_version(name, system, user, data.note, data.activate)

    @post("/{name:str}/activate", sync_to_thread=True, status_code=200)
    def activate(self, name: str, data: TemplateActivate, state: State) -> TemplateVersion:
        """Make a version the active one."""
        return _svc(state).activate(name, data.version)

    @post("/{name:str}/rollback", sync_to_thread=True, status_code=200)
    def rollback(self, name: str, state: State) -> TemplateVersion:
        """Activate the version before the active one."""
        return _svc(state).rollback(name)

    @get("/{name:str}/diff", sync_to_thread=True)
    def diff(self, name: str, a: Id, b: Id, state: State) -> TemplateDiff:
        """Unified diff of versions ``a`` and ``b``."""
        return TemplateDiff(name, a, b, _svc(state).diff(name, a, b))
