"""A mended reader reads its old files again (ingest/reading.py), on the real pipeline.

A file whose content did not change used to be skipped for good, so a library ingested before a
loader was mended kept what the old loader made of it (white text dropped as hidden, a table's
title read as every column's name). Each test reads files with an "old" loader first (the
real loader with a line of its output left out), then mends it the way a release does (its
``reader_version`` raised) and checks that the next ingest or folder sync reads exactly the
files that reader made again, and nothing else.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from sqlalchemy import select, update

from core.db.models import Chunk, Document
from core.embedder import Embedder
from core.knowledge import KnowledgeBase
from core.types import Section
from ingest.ignore import IgnoreRules
from ingest.loaders.base import LOADERS
from ingest.pipeline import IngestPipeline
from ingest.reading import reader_version
from ingest.sync import FolderSync
from samples.formats import mail

PASSCODE = "The gate passcode is HERON-7731."


def texts(kb: KnowledgeBase) -> dict[str, str]:
    """Each document's path -> its chunks' text joined."""
    with kb.db.session() as s:
        rows = s.execute(select(Document.path, Chunk.text).join(Chunk).order_by(Chunk.ordinal))
        out: dict[str, str] = {}
        for path, text in rows:
            out[path] = out.get(path, "") + text + "\n"
        return out


def actions(results: list[object]) -> dict[str, str]:
    return {Path(r.path).name: str(r.action) for r in results}  # type: ignore[attr-defined]


@pytest.fixture
def old_markdown(monkeypatch: pytest.MonkeyPatch) -> None:
    """The markdown reader as an older release had it: it lost the passcode line."""
    cls = LOADERS.get("markdown")
    real = cls.load

    def lossy(self: object, path: Path) -> list[Section]:
        return [
            Section(s.text.replace(PASSCODE, ""), s.provenance)
            for s in real(self, path)  # type: ignore[arg-type]
        ]

    monkeypatch.setattr(cls, "load", lossy)


def mend_markdown(monkeypatch: pytest.MonkeyPatch) -> None:
    """The release that mends it: the real reader back, its version one higher."""
    cls = LOADERS.get("markdown")
    monkeypatch.undo()
    monkeypatch.setattr(cls, "reader_version", reader_version("markdown") + 1, raising=False)


def make_files(folder: Path) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "gate.md").write_text(f"# Gate\n\nVisitors ring twice.\n\n{PASSCODE}\n")
    (folder / "kettle.txt").write_text("The blue kettle was bought in Oslo in 1987.\n")


@pytest.mark.usefixtures("old_markdown")
def test_a_mended_reader_reads_its_unchanged_files_again_and_only_those(
    pipeline: IngestPipeline, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    make_files(tmp_path / "docs")
    first = pipeline.ingest_paths([tmp_path / "docs"])
    assert actions(first.results) == {"gate.md": "added", "kettle.txt": "added"}
    assert "HERON-7731" not in texts(pipeline.kb)[str(tmp_path / "docs" / "gate.md")]
    assert actions(pipeline.ingest_paths([tmp_path / "docs"]).results) == {
        "gate.md": "unchanged",
        "kettle.txt": "unchanged",
    }

    mend_markdown(monkeypatch)
    again = pipeline.ingest_paths([tmp_path / "docs"])
    assert actions(again.results) == {"gate.md": "updated", "kettle.txt": "unchanged"}
    assert "HERON-7731" in texts(pipeline.kb)[str(tmp_path / "docs" / "gate.md")]
    kb = pipeline.kb
    assert kb.catalogue_ids() == kb.stores["faiss"].ids() == kb.stores["chroma"].ids()
    # Read once: the next ingest finds it read as now.
    assert set(actions(pipeline.ingest_paths([tmp_path / "docs"]).results).values()) == {
        "unchanged"
    }


@pytest.mark.usefixtures("old_markdown")
def test_a_watched_folder_is_read_again_at_its_next_sync(
    pipeline: IngestPipeline, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = tmp_path / "watched"
    make_files(root)
    sync = FolderSync(pipeline, IgnoreRules([root]))
    assert set(actions(sync.reconcile()).values()) == {"added"}
    assert set(actions(sync.reconcile()).values()) == {"unchanged"}

    mend_markdown(monkeypatch)
    assert actions(sync.reconcile()) == {"gate.md": "updated", "kettle.txt": "unchanged"}
    assert "HERON-7731" in texts(pipeline.kb)[str(root / "gate.md")]
    assert set(actions(sync.reconcile()).values()) == {"unchanged"}


@pytest.mark.usefixtures("old_markdown")
def test_a_carrier_is_read_again_when_a_reader_of_what_it_carries_is_mended(
    pipeline: IngestPipeline, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Attachments are ingested only through their message: a mended markdown reader reads the
    message again; a failed attachment (no reader) does not make it read again each time."""
    msg = mail("Gate", "The gate note is attached.")
    msg.add_attachment(
        f"# Gate\n\n{PASSCODE}\n".encode(), maintype="text", subtype="markdown", filename="gate.md"
    )
    exe = b"MZ\x90\x00" + bytes(64)
    msg.add_attachment(exe, maintype="application", subtype="octet-stream", filename="tool.exe")
    message = tmp_path / "gate.eml"
    message.write_bytes(msg.as_bytes())
    assert pipeline.ingest_file(message).action == "added"
    assert pipeline.ingest_file(message).action == "unchanged"

    attachment = f"{message}#attachment/1/gate.md"
    assert "HERON-7731" not in texts(pipeline.kb)[attachment]

    mend_markdown(monkeypatch)
    again = pipeline.ingest_file(message)
    assert (again.action, again.attachments) == ("updated", 1)  # the .exe fails again
    assert "HERON-7731" in texts(pipeline.kb)[attachment]
    assert pipeline.ingest_file(message).action == "unchanged"


def test_new_chunking_settings_and_a_catalogue_from_before_readings_read_files_again(
    kb: KnowledgeBase, embedder: Embedder, tmp_path: Path
) -> None:
    """What the chunker does is part of a reading; a document stored before readings were
    kept (migration 0013, ``reading`` NULL) was read by an unknown older reader: read once."""
    make_files(tmp_path / "docs")
    pipeline = IngestPipeline(kb, embedder)
    pipeline.ingest_paths([tmp_path / "docs"])
    with kb.db.session() as s:
        s.execute(update(Document).where(Document.path.like("%kettle.txt")).values(reading=None))
    assert actions(pipeline.ingest_paths([tmp_path / "docs"]).results) == {
        "gate.md": "unchanged",
        "kettle.txt": "updated",
    }

    kb.settings.chunking.chunk_tokens = 120
    smaller = IngestPipeline(kb, embedder)
    assert set(actions(smaller.ingest_paths([tmp_path / "docs"]).results).values()) == {"updated"}
    assert set(actions(smaller.ingest_paths([tmp_path / "docs"]).results).values()) == {"unchanged"}
