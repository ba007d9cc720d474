"""A document's title, carried by each of its chunks for keyword and dense search alike."""

from __future__ import annotations

from core.types import ChunkDraft

#: Longer first lines are a paragraph, not a title.
MAX_TITLE_CHARS = 200


def document_title(drafts: list[ChunkDraft]) -> str:
    """The first non-empty line of the first chunk when it is short enough to be a title
    (a heading, a paper's or note's title line), else ``""``."""
    if not drafts:
        return ""
    for line in drafts[0].text.splitlines():
        line = line.strip()
        if line:
            return line if len(line) <= MAX_TITLE_CHARS else ""
    return ""


def embedding_texts(drafts: list[ChunkDraft], title: str | None = None) -> list[str]:
    """What the embedder sees for each chunk: the title, then the text, unless the text already
    starts with the title (the first chunk), so a chunk far from the heading keeps its subject.
    ``title``: the document's (default: :func:`document_title` of ``drafts``, which must then
    start with the document's first chunk)."""
    title = document_title(drafts) if title is None else title
    return [
        d.text if not title or d.text.lstrip().startswith(title) else f"{title}\n{d.text}"
        for d in drafts
    ]


_NOTHING = {
    "audio": "no speech found in the recording",
    "image": "no text found in the image (OCR read nothing)",
}


def nothing_found(name: str, file_type: str, size: int) -> str:
    """Why a file that was read gave no chunks."""
    if size == 0:
        return f"{name}: the file is empty (0 bytes)"
    return f"{name}: {_NOTHING.get(file_type, 'no text found')}"
