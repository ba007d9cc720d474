"""Versioned prompt templates: list, show, add a version, activate, roll back, diff, export, import.

Versions are immutable; adding one that fails to render with sample variables is refused.
Templates are Jinja2 (sandboxed, undefined variables are errors) with two parts, ``system`` and
``user``; the variables are ``question``, ``sources`` (number, label, text, path), ``history``
(role, content) and ``language``.
"""

from __future__ import annotations

import difflib
import hashlib
import json
from dataclasses import asdict, dataclass
from datetime import datetime
from typing import Any

from sqlalchemy.orm import Session

from core import catalogue
from core.db.session import Database
from core.db.templates import PromptTemplate, PromptTemplateVersion
from core.errors import InvalidInputError, NotFoundError
from service.answering.prompting import SAMPLE, RenderedPrompt, render_parts

EXPORT_FORMAT = "hearth-templates/1"


def content_hash(system: str, user: str) -> str:
    """sha256 of a version's content (independent of its number, note and time)."""
    blob = json.dumps({"system": system, "user": user}, sort_keys=True).encode()
    return hashlib.sha256(blob).hexdigest()


@dataclass(frozen=True)
class TemplateVersion:
    """One version of a template, as returned by the API and the CLI."""

    name: str
    version: int
    active: bool
    system: str
    user: str
    content_hash: str
    note: str
    created_at: datetime


class TemplateService:
    """Prompt templates stored in the catalogue database (its rows through ``core.catalogue``)."""

    def __init__(self, db: Database) -> None:
        self.db = db

    @staticmethod
    def _template(s: Session, name: str) -> PromptTemplate:
        tpl = catalogue.template_named(s, name)
        if tpl is None:
            raise NotFoundError(f"template {name!r} does not exist", field="name")
        return tpl

    @staticmethod
    def _out(tpl: PromptTemplate, v: PromptTemplateVersion) -> TemplateVersion:
        return TemplateVersion(
            tpl.name,
            v.version,
            v.version == tpl.active_version,
            v.system,
            v.user,
            v.content_hash,
            v.note,
            v.created_at,
        )

    def active(self) -> list[TemplateVersion]:
        """The active version of every template."""
        with self.db.session() as s:
            tpls = catalogue.templates_by_name(s)
            return [
                self._out(t, v) for t in tpls for v in t.versions if v.version == t.active_version
            ]

    def versions(self, name: str) -> list[TemplateVersion]:
        """Every version of one template, oldest first."""
        with self.db.session() as s:
            tpl = self._template(s, name)
            return [self._out(tpl, v) for v in tpl.versions]

    def get(self, name: str, version: int | None = None) -> TemplateVersion:
        """One version (the active one by default)."""
        for v in self.versions(name):
            if (version is None and v.active) or v.version == version:
                return v
        raise NotFoundError(f"template {name!r} has no version {version}", field="version")

    def add_version(
        self, name: str, system: str, user: str, note: str = "", activate: bool = False
    ) -> TemplateVersion:
        """Add a new immutable version (refused when it does not render); a new name is a new
        template whose first version is active."""
        if not name.strip() or len(name) > 100:
            raise InvalidInputError("name: must be 1-100 characters", field="name")
        _, rendered_user = render_parts(system, user, SAMPLE)
        if not rendered_user.strip():
            raise InvalidInputError("template user: renders to nothing", field="user")
        with self.db.session() as s:
            tpl = catalogue.template_named(s, name)
            if tpl is None:
                tpl = catalogue.add_template(s, name, 1)
                number, activate = 1, True
            else:
                number = max(v.version for v in tpl.versions) + 1
            version = catalogue.add_template_version(
                s, tpl, number, system, user, content_hash(system, user), note
            )
            if activate:
                tpl.active_version = number
            s.flush()
            return self._out(tpl, version)

    def activate(self, name: str, version: int) -> TemplateVersion:
        """Make ``version`` the active one."""
        with self.db.session() as s:
            tpl = self._template(s, name)
            if version not in {v.version for v in tpl.versions}:
                raise NotFoundError(f"template {name!r} has no version {version}", field="version")
            tpl.active_version = version
        return self.get(name, version)

    def rollback(self, name: str) -> TemplateVersion:
        """Activate the version before the active one."""
        current = self.get(name)
        older = [v.version for v in self.versions(name) if v.version < current.version]
        if not older:
            raise InvalidInputError(f"template {name!r}: version {current.version} is the first")
        return self.activate(name, max(older))

    def diff(self, name: str, a: int, b: int) -> str:
        """Unified diff of two versions (system, then user)."""
        va, vb = self.get(name, a), self.get(name, b)
        text_a = f"# system\n{va.system}\n# user\n{va.user}\n".splitlines(keepends=True)
        text_b = f"# system\n{vb.system}\n# user\n{vb.user}\n".splitlines(keepends=True)
        return "".join(difflib.unified_diff(text_a, text_b, f"{name} v{a}", f"{name} v{b}"))

    def render(
        self, name: str, variables: dict[str, Any], version: int | None = None
    ) -> RenderedPrompt:
        """Render a version (the active one by default)."""
        v = self.get(name, version)
        system, user = render_parts(v.system, v.user, variables)
        return RenderedPrompt(name, v.version, v.content_hash, system, user)

    def export(self) -> dict[str, Any]:
        """Every version of every template, with hashes and which is active."""
        with self.db.session() as s:
            tpls = catalogue.templates_by_name(s)
            return {
                "format": EXPORT_FORMAT,
                "templates": [
                    {
                        "name": t.name,
                        "active_version": t.active_version,
                        "versions": [
                            {**asdict(self._out(t, v)), "created_at": v.created_at.isoformat()}
                            for v in t.versions
                        ],
                    }
                    for t in tpls
                ],
            }

    def import_(self, data: dict[str, Any]) -> dict[str, int]:
        """Import an export: versions keep their numbers, hashes and notes; a version whose number
        exists with other content is a conflict. Returns how many versions were added."""
        if data.get("format") != EXPORT_FORMAT:
            raise InvalidInputError(
                f"format: not a Hearth template export (format {EXPORT_FORMAT})", field="format"
            )
        added = 0
        with self.db.session() as s:
            for item in data.get("templates", []):
                tpl = catalogue.template_named(s, item["name"])
                if tpl is None:
                    tpl = catalogue.add_template(s, item["name"], item["active_version"])
                have = {v.version: v for v in tpl.versions}
                for v in item["versions"]:
                    digest = content_hash(v["system"], v["user"])
                    if digest != v["content_hash"]:
                        raise InvalidInputError(
                            f"{item['name']} v{v['version']}: content does not match its hash"
                        )
                    if v["version"] in have:
                        if have[v["version"]].content_hash != digest:
                            raise InvalidInputError(
                                f"{item['name']} v{v['version']}: differs from the version here"
                            )
                        continue
                    render_parts(v["system"], v["user"], SAMPLE)
                    catalogue.add_template_version(
                        s,
                        tpl,
                        v["version"],
                        v["system"],
                        v["user"],
                        digest,
                        v.get("note", ""),
                        datetime.fromisoformat(v["created_at"]),
                    )
                    added += 1
                tpl.active_version = item["active_version"]
        return {"added": added}
