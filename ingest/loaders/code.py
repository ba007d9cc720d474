"""Source code and other plain-text files by extension: blocks of lines with their line range."""

from __future__ import annotations

from pathlib import Path

from core.types import Section
from ingest.loaders.base import handles
from ingest.loaders.text import decode_text

SOFT_CHARS = 600
HARD_CHARS = 1000
HARD_LINES = 40

_EXTS = """
py pyi pyw js mjs cjs ts tsx jsx java kt kts scala go rs c h cc cpp cxx hpp hh cs swift m mm
rb php pl pm lua r jl sh bash zsh fish ps1 bat cmd sql css scss sass less vue svelte dart ex exs
erl hrl hs ml mli clj cljs groovy gradle tf proto graphql gql zig nim f90 asm s vb fs el vim cmake
mk xml xsl toml ini cfg conf properties rst tex bib org adoc asciidoc diff patch srt vtt
"""
_SOURCE = tuple("." + ext for ext in _EXTS.split())
_NAMES = (
    "Makefile",
    "GNUmakefile",
    "Dockerfile",
    "Containerfile",
    "Jenkinsfile",
    "Vagrantfile",
    "Gemfile",
    "Rakefile",
    "Procfile",
    "README",
    "LICENSE",
    "COPYING",
    "CHANGELOG",
    "AUTHORS",
    "NOTICE",
)


def line_blocks(lines: list[str]) -> list[tuple[int, int, list[str]]]:
    """(first, last, lines) blocks, 1-based: cut at a blank line or an unindented line once a
    block passes ``SOFT_CHARS``, and anywhere at ``HARD_CHARS`` or ``HARD_LINES``."""
    blocks: list[tuple[int, int, list[str]]] = []
    start, size = 1, 0
    current: list[str] = []
    for number, line in enumerate(lines, start=1):
        boundary = not line.strip() or not line[:1].isspace()
        if current and (
            (size >= SOFT_CHARS and boundary)
            or size + len(line) > HARD_CHARS
            or len(current) >= HARD_LINES
        ):
            blocks.append((start, number - 1, current))
            start, current, size = number, [], 0
        current.append(line)
        size += len(line) + 1
    if current:
        blocks.append((start, len(lines), current))
    return [(a, b, block) for a, b, block in blocks if any(s.strip() for s in block)]


@handles("code", _SOURCE, _NAMES)
class CodeLoader:
    """Source code, configuration and markup read as text, with line ranges as provenance."""

    file_type = "code"
    library = "built-in (UTF-8 / charset-normalizer)"
    provenance = "lines a-b, language (from the extension)"

    def load(self, path: Path) -> list[Section]:
        """Blocks of about 600-1000 characters, cut at blank or unindented lines."""
        text = decode_text(path, path.read_bytes())
        language = path.suffix.lower().lstrip(".") or path.name
        sections = []
        for first, last, block in line_blocks(text.splitlines()):
            body = "\n".join(block).strip("\n")
            span = f"{first}-{last}" if last != first else str(first)
            sections.append(Section(body, {"lines": span, "language": language}))
        return sections
