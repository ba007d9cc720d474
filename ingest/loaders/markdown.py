"""Markdown: sections by heading, each chunk keeps its heading path."""

from __future__ import annotations

import re
from pathlib import Path

from core.types import Section
from ingest.loaders.base import handles
from ingest.loaders.refmarks import drop_markdown_markers
from ingest.loaders.sections import SectionBuilder
from ingest.loaders.text import decode_text

_HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")
_FENCE = re.compile(r"^\s*(```|~~~)")


def sections_by_heading(lines: list[str]) -> list[Section]:
    """Group lines under ATX headings (ignoring fenced code), with the heading path."""
    builder = SectionBuilder()
    in_fence = False
    for line in lines:
        if _FENCE.match(line):
            in_fence = not in_fence
        m = None if in_fence else _HEADING.match(line)
        if m:
            builder.heading(len(m.group(1)), m.group(2).strip())
        else:
            builder.add(line)
    return builder.finish()


@handles("markdown", (".md", ".markdown", ".mdown"))
class MarkdownLoader:
    """Markdown files split at headings."""

    file_type = "markdown"
    library = "built-in (ATX headings)"
    provenance = "heading (path, e.g. A > B)"

    def load(self, path: Path) -> list[Section]:
        """Sections under each heading, with the heading path as provenance."""
        text = drop_markdown_markers(decode_text(path, path.read_bytes()))
        return sections_by_heading(text.splitlines())
