"""Whole-document modes (issue 30) with real components: the real ingest pipeline, embedder and
catalogue, and the bundled SmolLM2 on a small context so a document spans several map groups."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from core import catalogue
from core.embedder import Embedder
from core.errors import InvalidInputError, NotFoundError
from core.knowledge import KnowledgeBase
from core.settings import HearthSettings
from ingest.pipeline import IngestPipeline
from samples.pdf import write_pdf
from service.llm.planner import plan_from_settings
from service.llm.pool import ModelPool
from service.llm.queue import Abandoned
from service.templates.service import TemplateService
from service.wholedoc.prompts import NAMES, default
from service.wholedoc.selection import select
from service.wholedoc.service import Event, Job, WholeDocService, WholeRequest
from tests.integration.conftest import backend_settings

FILLER = [
    "The warehouse on Harbour Street stores grain for the Kelby cooperative.",
    "Morwen Estates owns the building and maintains the slate roof.",
    "The loading bay faces the north quay and opens at six every morning.",
    "Tenants keep a log of deliveries in the ledger of the front office.",
]
MEMO = (
    "# Memo\nThe Kelby cooperative meets in the grain warehouse on {day}. Ines Varga chairs the "
    "meeting and reads the accounts of the harvest."
)
PLANTED = "Deadline: the Zephyr permit must be filed by 14 March 2027."


def lease_text(sections: int = 4, last: str = PLANTED) -> str:
    parts = [
        f"## Section {i + 1}\n"
        + " ".join(f"{s} Clause {i}.{j} applies." for j, s in enumerate(FILLER))
        for i in range(sections)
    ]
    parts.append(f"## Final terms\n{last} The landlord repaints the facade in the summer.")
    return "\n\n".join(parts)


@dataclass
class Library:
    root: Path
    settings: HearthSettings
    kb: KnowledgeBase
    pipeline: IngestPipeline
    service: WholeDocService


@pytest.fixture(scope="module")
def library(tmp_path_factory: pytest.TempPathFactory, embedder: Embedder) -> Iterator[Library]:
    root = tmp_path_factory.mktemp("wholedoc")
    settings = backend_settings(
        root / "data",
        llm={"model": "smollm2-135m", "n_ctx": 560, "warmup": False},
        chunking={"chunk_tokens": 64, "overlap_tokens": 8},
    )
    kb = KnowledgeBase(settings)
    pipeline = IngestPipeline(kb, embedder)
    (root / "lease.md").write_text(lease_text())
    assert pipeline.ingest_file(root / "lease.md").action != "failed"
    pool = ModelPool.load(settings, plan_from_settings(settings))
    service = WholeDocService(kb, pool, settings.data_dir / "wholedoc", embedder)
    yield Library(root, settings, kb, pipeline, service)
    pool.close()
    kb.close()


def run(
    service: WholeDocService, request: WholeRequest, stop: threading.Event | None = None
) -> tuple[Job, list[Event]]:
    job = service.prepare(request)
    events = list(service.stream(job, stop or threading.Event(), service.admit(job)))
    return job, events


def chunk_ids(kb: KnowledgeBase, path: Path) -> list[int]:
    with kb.db.session() as s:
        doc = catalogue.document_at(s, str(path))
        assert doc is not None
        return [c.id for c in catalogue.chunks_of(s, doc.id)]


@pytest.mark.slow
def test_extract_reads_every_group_and_cites_the_planted_item_in_the_last_chunk(
    library: Library,
) -> None:
    ids = chunk_ids(library.kb, library.root / "lease.md")
    job, events = run(library.service, WholeRequest("extract", ("lease.md",), what="deadlines"))
    assert len(job.groups) >= 3, "the small context must split the document"
    progress = [e.data for e in events if e.kind == "progress"]
    assert [p["done"] for p in progress] == list(range(len(job.groups) + 1))
    assert progress[-1]["chunks_read"] == progress[-1]["chunks_total"] == len(ids)
    done = events[-1].data
    assert done["mode"] == "extract" and done["cached"] is False
    assert done["answer"].startswith("[extract mode: read all")
    planted = [i for i in done["items"] if "14 March 2027" in i["text"]]
    assert len(planted) == 1, done["items"]
    sources = {s["number"]: s for s in done["sources"]}
    cited = [sources[n] for n in planted[0]["citations"]]
    assert ids[-1] in [s["chunk_id"] for s in cited]
    assert all("14 March 2027" in s["text"] for s in cited)
    for item in done["items"]:  # every item listed is a sentence of a chunk it cites
        assert any(item["text"] in sources[n]["text"] for n in item["citations"]), item


@pytest.mark.slow
def test_second_run_is_from_the_cache_and_a_changed_document_is_read_again(
    library: Library,
) -> None:
    path = library.root / "memo.md"
    path.write_text(MEMO.format(day="14 March 2027"))
    library.pipeline.ingest_file(path)
    request = WholeRequest("summarise", (str(path),))
    _, first = run(library.service, request)
    assert first[-1].data["cached"] is False and first[-1].data["items"]
    calls = len(library.service.pool.default.queue.recent)
    job, again = run(library.service, request)
    assert job.cached is not None and again[-1].data["cached"] is True
    assert again[-1].data["answer"] == first[-1].data["answer"]
    assert len(library.service.pool.default.queue.recent) == calls, "no model call"
    entries = library.service.cache.entries()
    path.write_text(MEMO.format(day="2 May 2028"))
    assert library.pipeline.ingest_file(path).action == "updated"
    job = library.service.prepare(request)
    assert job.cached is None, "the changed document's summary must not be reused"
    list(library.service.stream(job, threading.Event(), library.service.admit(job)))
    after = library.service.cache.entries()
    assert len(after) == len(entries) and set(after) != set(entries), "old version replaced"


@pytest.mark.slow
def test_cancel_mid_way_stops_and_stores_nothing(library: Library) -> None:
    request = WholeRequest("extract", ("lease.md",), what="roof repairs", refresh=True)
    before = library.service.cache.entries()
    job = library.service.prepare(request)
    stop = threading.Event()
    seen = []
    queue = library.service.pool.default.queue
    calls = len(queue.recent)
    with pytest.raises(Abandoned):
        for event in library.service.stream(job, stop, library.service.admit(job)):
            seen.append(event.kind)
            if event.kind == "progress" and event.data["done"] == 1:
                stop.set()
    assert "done" not in seen
    assert len(queue.recent) - calls < len(job.groups), "it stopped after the first group"
    assert library.service.cache.entries() == before
    assert not list(library.service.cache.folder.glob(".tmp-*"))
    assert not library.service.pool.default.queue.snapshot()["running"]


@pytest.mark.slow
def test_compare_finds_the_changes_and_cites_both_versions(library: Library) -> None:
    old, new = library.root / "policy-2022.md", library.root / "policy-2023.md"
    base = [
        "Staff may work from home on two days each week.",
        "The notice period for leaving is thirty days.",
        "Travel claims are paid within fourteen days of approval.",
        "The office closes at six in the evening on Fridays.",
    ]
    changed = list(base)
    changed[1] = "The notice period for leaving is sixty days."
    changed[3] = "The office closes at four in the afternoon on Fridays."
    old.write_text("# Policy\n" + "\n\n".join(base))
    new.write_text(
        "# Policy\n" + "\n\n".join(changed) + "\n\nParking permits are issued by Ines Varga."
    )
    for path in (old, new):
        library.pipeline.ingest_file(path)
    _, events = run(library.service, WholeRequest("compare", (str(old), str(new))))
    done = events[-1].data
    kinds = {i.get("kind") for i in done["items"]}
    assert {"same", "changed", "added"} <= kinds
    changes = [i for i in done["items"] if i.get("kind") == "changed"]
    assert {c["after"] for c in changes} == {changed[1], changed[3]}
    sources = {s["number"]: s for s in done["sources"]}
    for change in changes:
        paths = {sources[n]["path"] for n in change["citations"]}
        assert paths == {str(old), str(new)}, change
    added = [i for i in done["items"] if i.get("kind") == "added"]
    assert any("Ines Varga" in i["text"] for i in added)


#: One finding a page, amid background sentences: a summary must read every page.
PAGES = [
    ("Kelby", "3,351"),
    ("Harwick", "4,468"),
    ("Dunmore", "5,585"),
    ("Felling", "6,702"),
    ("Astley", "7,819"),
]


@pytest.mark.slow
def test_a_summary_of_a_multi_page_pdf_cites_at_least_three_pages(library: Library) -> None:
    path = library.root / "depots.pdf"
    write_pdf(
        path,
        [
            [
                ("", f"The {place} depot"),
                ("", "The warehouse stores grain for the cooperative."),
                ("", f"The {place} depot handled {amount} tonnes of grain in 2026."),
                ("", "Deliveries are logged in the front office."),
            ]
            for place, amount in PAGES
        ],
    )
    assert library.pipeline.ingest_file(path).action != "failed"
    job, events = run(library.service, WholeRequest("summarise", (str(path),)))
    done = events[-1].data
    assert done["chunks_read"] >= len(PAGES) and len(job.groups) >= 2
    sources = {s["number"]: s for s in done["sources"]}
    pages = {sources[n]["provenance"].get("page") for i in done["items"] for n in i["citations"]}
    assert len(pages - {None}) >= 3, done["answer"]
    for item in done["items"]:  # each line's names and numbers are on a page it cites
        cited = " ".join(sources[n]["text"] for n in item["citations"])
        numbers = [w.strip(".,;:()[]") for w in item["text"].split() if w[:1].isdigit()]
        assert all(n in cited for n in numbers), item


@pytest.mark.slow
def test_a_new_template_version_invalidates_the_cached_result(library: Library) -> None:
    templates = TemplateService(library.kb.db)
    for name in NAMES:  # seeded by migrations 0009 and 0010 from the packaged defaults
        seeded = templates.get(name)
        assert seeded.version == (2 if name == "wholedoc-summarise" else 1)
        assert seeded.note.startswith("default")
        assert (seeded.system, seeded.user) == (default(name).system, default(name).user)
    path = library.root / "memo-template.md"
    path.write_text(MEMO.format(day="9 June 2027"))
    library.pipeline.ingest_file(path)
    request = WholeRequest("summarise", (str(path),))
    _, first = run(library.service, request)
    assert first[-1].data["templates"]["wholedoc-summarise"] == 2
    assert library.service.prepare(request).cached is not None
    v2 = templates.get("wholedoc-summarise")
    templates.add_version(
        "wholedoc-summarise", v2.system + " Be brief.", v2.user, "test", activate=True
    )
    try:
        job = library.service.prepare(request)
        assert job.cached is None, "a result of the older template must not be reused"
        assert job.prompts.templates["wholedoc-summarise"].version == 3
        assert job.prompts.summarise(["x"])[0]["content"].endswith("Be brief.")
    finally:
        templates.activate("wholedoc-summarise", 2)
    assert library.service.prepare(request).cached is not None, "version 2 again: reused"


def test_bad_requests_name_the_field(
    kb: KnowledgeBase, pipeline: IngestPipeline, tmp_path: Path
) -> None:
    with pytest.raises(NotFoundError) as missing:
        select(kb, ["nowhere.pdf"])
    assert missing.value.field == "documents" and "nowhere.pdf" in missing.value.message
    with pytest.raises(NotFoundError) as empty:
        select(kb, [], "empty-collection")
    assert empty.value.field == "collection"
    for i in range(3):
        (tmp_path / f"note{i}.md").write_text(f"# Note {i}\nThe kettle number {i} is blue.")
        pipeline.ingest_file(tmp_path / f"note{i}.md")
    assert len(select(kb, [str(tmp_path)])) == 3
    with pytest.raises(InvalidInputError) as many:
        select(kb, [str(tmp_path)], max_documents=2)
    assert many.value.field == "documents" and "3 documents" in many.value.message
    for request, name in (
        (WholeRequest("poem", ("note0.md",)), "mode"),
        (WholeRequest("extract", ("note0.md",)), "what"),
        (WholeRequest("compare", ("note0.md",)), "documents"),
        (WholeRequest("summarise", tuple(f"n{i}" for i in range(60))), "documents"),
    ):
        with pytest.raises(InvalidInputError) as bad:
            request.checked()
        assert bad.value.field == name
