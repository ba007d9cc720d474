"""The one place a prompt template is rendered: Jinja2, sandboxed, an undefined variable is an
error. A template has two parts, ``system`` and ``user``; the variables are ``question``,
``sources`` (number, label, text, path), ``history`` (role, content) and ``language``."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from jinja2 import StrictUndefined, TemplateError
from jinja2.sandbox import SandboxedEnvironment

from core.errors import InvalidInputError

_ENV = SandboxedEnvironment(undefined=StrictUndefined, autoescape=False, keep_trailing_newline=True)
SAMPLE: dict[str, Any] = {
    "question": "What is in the sample?",
    "sources": [
        {"number": 1, "label": "sample.txt", "text": "A sample passage.", "path": "/sample.txt"}
    ],
    "history": [{"role": "user", "content": "Hello"}, {"role": "assistant", "content": "Hi"}],
    "language": "English",
}


@dataclass(frozen=True)
class RenderedPrompt:
    """A rendered template and the version it came from."""

    name: str
    version: int
    content_hash: str
    system: str
    user: str


def render_parts(system: str, user: str, variables: dict[str, Any]) -> tuple[str, str]:
    """Render both parts; ``InvalidInputError`` naming the part on any template error."""
    out = []
    for part, text in (("system", system), ("user", user)):
        try:
            out.append(_ENV.from_string(text).render(**variables))
        except TemplateError as exc:
            raise InvalidInputError(f"template {part}: {exc}", field=part) from exc
    return out[0], out[1]
