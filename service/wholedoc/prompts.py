"""The map and reduce prompts of whole-document modes: versioned templates of the catalogue
(``wholedoc-summarise``, ``wholedoc-reduce``, ``wholedoc-extract``, ``wholedoc-compare``, seeded
by migration 0009, wholedoc-summarise v2 by 0010), so a new active version of any of them keys
new cached results.

The templates are Jinja2 over the variables every template has (see
:mod:`service.templates.service`): ``sources`` are the numbered excerpts, statements or changes
(``number``, ``label``, ``text``, ``path``) and ``question`` is what an ``extract`` lists. The
default texts are package data, ``service/answering/prompting/defaults/<revision>/``; they
stand in when the catalogue has no such template (a unit test without a database).
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

from core.errors import NotFoundError
from service.answering.prompting import render_parts
from service.llm.base import ChatMessage
from service.templates.service import TemplateService, content_hash

NAMES = ("wholedoc-summarise", "wholedoc-reduce", "wholedoc-extract", "wholedoc-compare")
_DEFAULTS = Path(str(resources.files("service"))) / "answering" / "prompting" / "defaults"


def _defaults_revision(name: str) -> str:
    """The newest migration folder of ``defaults/`` holding template ``name``'s text ("0010"
    for wholedoc-summarise, "0009" for the others): its text stands in for a template the
    catalogue lacks.

    Raises:
        FileNotFoundError: no migration ships a default text for ``name``.
    """
    found = [d.name for d in _DEFAULTS.iterdir() if (d / f"{name}.system.txt").is_file()]
    if not found:
        raise FileNotFoundError(f"no default text for template {name!r} in {_DEFAULTS}")
    return max(found)


@dataclass(frozen=True)
class Template:
    """One template version: its two parts and where it came from."""

    name: str
    version: int
    system: str
    user: str

    @property
    def content_hash(self) -> str:
        """sha256 of the two parts (as the catalogue stores it)."""
        return content_hash(self.system, self.user)


def default(name: str) -> Template:
    """The packaged default text of template ``name`` (version 0: not from the catalogue)."""
    revision = _defaults_revision(name)
    parts = [
        (_DEFAULTS / revision / f"{name}.{part}.txt")
        .read_text(encoding="utf-8")
        .removesuffix("\n")
        for part in ("system", "user")
    ]
    return Template(name, 0, parts[0], parts[1])


class Prompts:
    """The active version of each whole-document template, rendered into chat messages."""

    def __init__(self, templates: dict[str, Template]) -> None:
        missing = [n for n in NAMES if n not in templates]
        if missing:
            raise ValueError(f"templates missing: {', '.join(missing)}")
        self.templates = templates

    @classmethod
    def defaults(cls) -> Prompts:
        """The packaged default texts."""
        return cls({name: default(name) for name in NAMES})

    @classmethod
    def active(cls, service: TemplateService) -> Prompts:
        """The active versions in the catalogue; a template it lacks takes its default text."""
        out = {}
        for name in NAMES:
            try:
                v = service.get(name)
                out[name] = Template(name, v.version, v.system, v.user)
            except NotFoundError:
                out[name] = default(name)
        return cls(out)

    @property
    def version(self) -> str:
        """What keys cached results: 16 hex digits over every template's content hash."""
        blob = json.dumps({n: t.content_hash for n, t in sorted(self.templates.items())})
        return hashlib.sha256(blob.encode()).hexdigest()[:16]

    def versions(self) -> dict[str, int]:
        """Template name -> version number (0: the packaged default)."""
        return {n: t.version for n, t in self.templates.items()}

    def _messages(self, name: str, texts: list[str], question: str = "") -> list[ChatMessage]:
        tpl = self.templates[name]
        variables: dict[str, Any] = {
            "question": question,
            "sources": [
                {"number": i, "label": f"[{i}]", "text": t.strip(), "path": ""}
                for i, t in enumerate(texts, start=1)
            ],
            "history": [],
            "language": "English",
        }
        system, user = render_parts(tpl.system, tpl.user, variables)
        return [{"role": "system", "content": system}, {"role": "user", "content": user}]

    def summarise(self, excerpts: list[str]) -> list[ChatMessage]:
        """The map prompt of ``summarise`` over one group of excerpts."""
        return self._messages("wholedoc-summarise", excerpts)

    def reduce(self, statements: list[str]) -> list[ChatMessage]:
        """The reduce prompt of ``summarise`` over partial results."""
        return self._messages("wholedoc-reduce", statements)

    def extract(self, excerpts: list[str], what: str) -> list[ChatMessage]:
        """The map prompt of ``extract`` ("every ``what``") over one group of excerpts."""
        return self._messages("wholedoc-extract", excerpts, what)

    def compare(self, changes: list[str]) -> list[ChatMessage]:
        """The prompt of ``compare`` over the changes found."""
        return self._messages("wholedoc-compare", changes)
