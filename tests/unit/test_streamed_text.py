"""Streamed ingest of large text (issue 28, item 5): blocks, chunking across them, the
character cap, incremental decoding, the spool and the vector cache; a whitespace tokenizer
stands in for the real one (the real pipeline runs in tests/integration/test_large_text.py)."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

from core.types import ChunkDraft, Section
from ingest import spool as spool_module
from ingest.chunker import Chunker
from ingest.loaders import text as text_module
from ingest.loaders.text import TextLoader, decode_text, stream_text, text_blocks


def count(texts: list[str]) -> list[int]:
    return [len(t.split()) for t in texts]


def offsets(text: str) -> list[tuple[int, int]]:
    return [(m.start(), m.end()) for m in re.finditer(r"\S+", text)]


def paragraphs(n: int) -> str:
    return "\n\n".join(" ".join(f"p{i}w{j}" for j in range(3 + i % 9)) + "." for i in range(n))


def test_blocks_end_at_paragraphs_and_give_back_the_text() -> None:
    text = paragraphs(400)
    blocks = list(text_blocks([text[i : i + 333] for i in range(0, len(text), 333)], size=1000))
    assert "".join(blocks) == text
    assert len(blocks) > 5 and all(len(b) <= 1000 for b in blocks)
    assert all(b.endswith("\n\n") for b in blocks[:-1])


def test_text_without_newlines_or_spaces_is_still_cut() -> None:
    line = " ".join(f"word{i}." for i in range(3000))
    assert all(len(b) <= 1000 for b in text_blocks([line], size=1000))
    assert all(b.endswith(" ") for b in list(text_blocks([line], size=1000))[:-1])
    solid = "x" * 5000
    assert [len(b) for b in text_blocks([solid], size=1000)] == [1000] * 5


def test_streamed_blocks_chunk_as_the_whole_text_does() -> None:
    chunker = Chunker(count, offsets, chunk_tokens=30, overlap_tokens=8)
    text = paragraphs(300)
    whole = chunker.chunk([Section(text, {"k": 1})])
    blocks = [Section(b, {"k": 1}) for b in text_blocks([text], size=700)]
    assert len(blocks) > 10
    streamed = [d for batch in chunker.stream(blocks, continued=True) for d in batch]
    assert streamed == whole


def test_stream_of_sections_equals_chunk() -> None:
    chunker = Chunker(count, offsets, chunk_tokens=20, overlap_tokens=5)
    sections = [Section(paragraphs(40), {"page": 1}), Section(paragraphs(7), {"page": 2})]
    batches = list(chunker.stream(sections))
    assert [d for b in batches for d in b] == chunker.chunk(sections)


def test_a_run_without_spaces_is_cut_by_characters() -> None:
    """WordPiece makes a 100+ character word one unknown token: only characters bound it."""

    def unk(texts: list[str]) -> list[int]:
        return [len(re.findall(r"\S{1,100}(?=\s|$)|\S{101,}", t)) for t in texts]

    def unk_offsets(text: str) -> list[tuple[int, int]]:
        return [(m.start(), m.end()) for m in re.finditer(r"\S+", text)]

    chunker = Chunker(unk, unk_offsets, chunk_tokens=20, overlap_tokens=4)
    solid = "acgt" * 5000
    drafts = chunker.chunk([Section(solid)])
    assert len(drafts) > 5
    assert all(len(d.text) <= chunker.max_chars for d in drafts)
    assert "".join(d.text for d in drafts) == solid


def test_large_files_decode_as_they_are_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(text_module, "WHOLE_BYTES", 100)
    monkeypatch.setattr(text_module, "READ_BYTES", 7)  # multi-byte characters cross reads
    utf8 = tmp_path / "utf8.txt"
    utf8.write_text("Grüße aus Tromsø, café crème. " * 50, encoding="utf-8")
    pieces = list(stream_text(utf8))
    assert "".join(p for p, _ in pieces) == utf8.read_text(encoding="utf-8")
    assert pieces[-1][1] == utf8.stat().st_size
    assert [n for _, n in pieces] == sorted(n for _, n in pieces)
    western = tmp_path / "cp1252.txt"
    western.write_bytes("Caf\u00e9 cr\u00e8me and na\u00efve fa\u00e7ade. ".encode("cp1252") * 40)
    assert "".join(p for p, _ in stream_text(western)) == decode_text(western, western.read_bytes())
    loaded = "".join(s.text for s, _ in TextLoader().stream(utf8))
    assert loaded == utf8.read_text(encoding="utf-8")


def test_binary_content_is_refused_when_streamed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from core.errors import LoaderError

    monkeypatch.setattr(text_module, "WHOLE_BYTES", 100)
    blob = tmp_path / "blob.txt"
    blob.write_bytes(bytes(range(256)) * 20)
    with pytest.raises(LoaderError, match=r"blob\.txt: looks like binary data"):
        list(TextLoader().stream(blob))


class CountingEmbedder:
    dimension = 4

    def __init__(self) -> None:
        self.seen: list[str] = []

    def embed(self, texts: list[str]) -> np.ndarray:
        self.seen += texts
        return np.array([[len(t), t.count("a"), 1.0, 0.0] for t in texts], dtype=np.float32)


def test_the_cache_embeds_each_distinct_text_once_and_stays_bounded() -> None:
    embedder = CountingEmbedder()
    cache = spool_module.VectorCache(embedder, size=3)  # type: ignore[arg-type]
    first = cache.embed(["a", "bb", "a", "ccc"])
    assert embedder.seen == ["a", "bb", "ccc"]
    assert first.shape == (4, 4) and (first[0] == first[2]).all()
    cache.embed(["bb", "dddd", "a"])  # "ccc", least recently used, leaves the cache
    assert embedder.seen == ["a", "bb", "ccc", "dddd"]
    cache.embed(["a", "ccc"])
    assert embedder.seen == ["a", "bb", "ccc", "dddd", "ccc"]
    assert len(cache._known) <= 3


def test_the_spool_gives_its_batches_back_in_order(tmp_path: Path) -> None:
    with spool_module.Spool(tmp_path, 4) as spool:
        drafts = [ChunkDraft(i, f"text {i} \u00e9", i + 1, {"page": i}) for i in range(10)]
        vectors = np.arange(40, dtype=np.float32).reshape(10, 4)
        spool.add(drafts[:6], vectors[:6])
        spool.add(drafts[6:], vectors[6:])
        for _ in range(2):  # read twice: the commit, then the stores
            got = list(spool.batches(4))
            assert [len(d) for d, _ in got] == [4, 4, 2]
            assert [d for batch, _ in got for d in batch] == drafts
            assert np.array_equal(np.concatenate([v for _, v in got]), vectors)
        assert list(tmp_path.iterdir()) == []  # unlinked files: nothing to clean up
