"""A recording's transcript committed to a catalogue the way the pipeline commits it (speaker
turns as sections, stand-in unit vectors), for tests of speaker names that need no model."""

from __future__ import annotations

import time

import numpy as np

from core.catalogue import DocumentVersion
from core.embedder import Embedder, configured_dimension
from core.knowledge import KnowledgeBase
from core.types import ChunkDraft

#: (speaker, text) of each section of a two-person talk.
TURNS = [(1, "We should fix the roof first."), (2, "The budget says windows."), (1, "Roof.")]


def commit_talk(
    kb: KnowledgeBase, path: str, turns: list[tuple[int, str]], embedder: Embedder | None = None
) -> int:
    """Commit one version of a recording at catalogue path ``path`` whose sections are
    ``turns`` (speaker, text), 5 s apart; its document id. The vectors are stand-ins unless
    ``embedder`` is given (then each turn's own, so a question's search finds them)."""
    drafts = [
        ChunkDraft(
            i, text, 6, {"start": 5.0 * i, "end": 5.0 * i + 4, "speaker": who, "speakers": 2}
        )
        for i, (who, text) in enumerate(turns)
    ]
    vectors = np.zeros((len(drafts), configured_dimension(kb.settings.embedder)), np.float32)
    vectors[:, 0] = 1.0
    if embedder is not None:
        vectors = np.asarray(embedder.embed([d.text for d in drafts]), np.float32)
    version = DocumentVersion(
        path=path, sha256=f"{len(turns):064x}", size=100, file_type="audio",
        collection="default", drafts=drafts, vectors=vectors, title="talk",
        empty_reason="", started=time.perf_counter(),
    )  # fmt: skip
    done = kb.commit(version)
    kb.write_vectors(done, vectors)
    return done.document_id
