"""Data trees (JSON, YAML) flattened to ``key.path: value`` lines, one section per top entry."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from core.errors import LoaderError
from core.types import Section

MAX_LINES = 200_000
MAX_DEPTH = 64


def _leaves(value: Any, prefix: str, depth: int) -> Iterator[str]:
    if depth > MAX_DEPTH:
        raise LoaderError(f"nested more than {MAX_DEPTH} levels deep (or refers to itself)")
    if isinstance(value, dict):
        if not value:
            yield f"{prefix}: {{}}"
        for key, inner in value.items():
            yield from _leaves(inner, f"{prefix}.{key}" if prefix else str(key), depth + 1)
    elif isinstance(value, list | tuple):
        if not value:
            yield f"{prefix}: []"
        for i, inner in enumerate(value):
            yield from _leaves(inner, f"{prefix}[{i}]", depth + 1)
    else:
        text = "null" if value is None else str(value)
        yield f"{prefix}: {' '.join(text.split())}" if prefix else " ".join(text.split())


def tree_sections(name: str, data: Any, key_prefix: str = "") -> list[Section]:
    """One section per top-level key (or list item), provenance ``{"key": ...}``.

    ``name`` (the file's) prefixes the error when the tree is too deep or too large.
    """
    if isinstance(data, dict):
        entries: list[tuple[str, Any]] = [(str(k), v) for k, v in data.items()]
    elif isinstance(data, list):
        entries = [(f"[{i}]", v) for i, v in enumerate(data)]
    else:
        entries = [("", data)]
    sections: list[Section] = []
    total = 0
    for key, value in entries:
        full = f"{key_prefix}{key}" if not key.startswith("[") else f"{key_prefix.rstrip('.')}{key}"
        try:
            lines = list(_leaves(value, full, 0))
        except LoaderError as exc:
            raise LoaderError(f"{name}: {exc.message}") from exc
        total += len(lines)
        if total > MAX_LINES:
            raise LoaderError(f"{name}: over {MAX_LINES} values once expanded; refused")
        text = "\n".join(lines).strip()
        if text:
            prov = {"key": full} if full else {}
            sections.append(Section(text, prov))
    return sections
