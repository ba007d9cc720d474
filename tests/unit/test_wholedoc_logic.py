"""Whole-document logic without a model: grouping to the context, grounding of model lines,
deduplication, the sentence diff of compare, which questions take a whole-document mode, the
per-prompt store of model replies (a changed group is read again, the others reused) and the
OpenAI route's ``mode`` field."""

from __future__ import annotations

from collections.abc import Generator
from pathlib import Path
from typing import TypeVar

import pytest

from core.errors import InvalidInputError
from service.llm.base import ChatMessage
from service.openai_compat.schemas import ChatRequest, parse
from service.wholedoc.cache import ResultCache
from service.wholedoc.intent import detect
from service.wholedoc.mapreduce import MapReduce, Stopped, group_budget, groups
from service.wholedoc.selection import ChunkText, DocumentText
from service.wholedoc.support import Unit, fold, support, units_of

T = TypeVar("T")
NAMES = ["annual-report-2023.pdf", "policy-2022.md", "policy-2023.md", "notes.txt"]


def chunk(i: int, text: str, doc: int = 1) -> ChunkText:
    return ChunkText(100 * doc + i, doc, i, f"/d/doc{doc}.md", text, {"page": i + 1})


def words(text: str) -> int:
    return len(text.split())


def test_groups_keep_order_and_fit_the_budget() -> None:
    chunks = [chunk(i, "word " * 40) for i in range(10)]
    planned = groups(chunks, words, 100)
    assert [c for g in planned for c in g] == chunks
    assert all(sum(words(c.text) + 6 for c in g) <= 100 for g in planned)
    assert group_budget(4096) == 1536 and group_budget(560) == 200 and group_budget(300) == 128


def test_a_line_is_supported_only_when_its_names_and_numbers_are_in_the_chunk() -> None:
    units = units_of([(1, "The permit must be filed by 14 March 2027."), (2, "Rent rises in May.")])
    hay = {1: fold("The permit must be filed by 14 March 2027."), 2: fold("Rent rises in May.")}
    found = support("14 March 2027", units, hay)
    assert found is not None and found.unit.keys == (1,) and found.score == 1.0
    assert support("The permit must be filed by 14 March 2029", units, hay) is None
    assert support("The Harbour permit is filed", units, hay) is None  # Harbour is in no chunk


def scripted(replies: list[str]) -> MapReduce:
    answers = iter(replies)
    return MapReduce(lambda messages, n: next(answers), words, 560)


def drain(steps: Generator[tuple[int, int], None, T]) -> T:
    result: list[T] = []

    def collect() -> Generator[tuple[int, int], None, None]:
        result.append((yield from steps))

    for _ in collect():
        pass
    return result[0]


def test_items_differing_only_in_a_number_are_not_merged() -> None:
    from service.wholedoc.support import same_item

    assert not same_item("Permit 1 is due by 1 May 2027.", "Permit 7 is due by 7 May 2027.")
    assert same_item("Permit 1 is due by 1 May 2027.", "permit 1 is due by 1 May 2027")


def test_extract_drops_unsupported_items_and_merges_duplicates() -> None:
    doc = DocumentText(
        1,
        "/d/doc1.md",
        "sha",
        (
            chunk(0, "Invoice 17 from Acme Ltd is due on 3 June. The van is blue."),
            chunk(1, "Invoice 17 from Acme Ltd is due on 3 June. Invoice 18 from Birch is paid."),
        ),
    )
    runner = scripted(["- Invoice 17 from Acme Ltd [1]\n- Invoice 99 from Zeta [2]"] * 2)
    runner.budget = 20  # one chunk a group
    items = drain(runner.extract([doc], "invoices"))
    texts = [i.text for i in items]
    assert texts[0] == "Invoice 17 from Acme Ltd is due on 3 June." and items[0].chunks == [
        100,
        101,
    ]
    assert "Invoice 18 from Birch is paid." in texts  # named "invoice": listed though not copied
    assert not any("Zeta" in t for t in texts) and runner.run.dropped == 2


def test_extract_keeps_only_items_about_what_is_asked() -> None:
    doc = DocumentText(
        1,
        "/d/doc1.md",
        "sha",
        (
            chunk(0, "Invoice 17 from Acme Ltd is due on 3 June. Invoice 18 from Birch is paid."),
            chunk(1, "The permit is due on 4 May 2027. Clause 3 applies to tenant number 6."),
        ),
    )
    listed = "- Invoice 17 from Acme Ltd [1]\n- Invoice 18 from Birch [1]"
    runner = scripted([listed])
    items = drain(runner.extract([doc], "invoices from Acme"))
    assert [i.text for i in items] == ["Invoice 17 from Acme Ltd is due on 3 June."]
    assert runner.run.irrelevant == 1  # Birch's: supported, but not from Acme

    cosines = {  # to "deadlines", and to the sentence naming a deadline
        "The permit is due on 4 May 2027.": (0.1, 0.7),
        "Clause 3 applies to tenant number 6.": (0.1, 0.3),
        "The fee is payable before 9 May 2027.": (0.3, 0.2),
        "The roof is slate.": (0.0, 0.1),
    }
    seen: list[list[str]] = []

    def relevance(queries: list[str], texts: list[str]) -> list[list[float]]:
        seen.append(queries)
        return [[cosines[t][i] for t in texts] for i in range(len(queries))]

    doc = DocumentText(
        1,
        "/d/lease.md",
        "sha",
        (
            chunk(0, "Deadline: the deposit is paid by 1 May 2027. The roof is slate."),
            chunk(1, "The permit is due on 4 May 2027. Clause 3 applies to tenant number 6."),
            chunk(2, "The fee is payable before 9 May 2027."),
        ),
    )
    listed = (
        "- The permit is due on 4 May 2027 [2]\n- Clause 3 applies to tenant number 6 [2]\n"
        "- The fee is payable before 9 May 2027 [3]"
    )
    runner = MapReduce(lambda m, n: listed, words, 560, relevance=relevance)
    items = drain(runner.extract([doc], "deadlines"))
    assert [i.text for i in items] == [
        "Deadline: the deposit is paid by 1 May 2027.",  # names it: listed by code
        "The permit is due on 4 May 2027.",  # like the named sentence
        "The fee is payable before 9 May 2027.",  # close to "deadlines"
    ]
    asked = ["deadlines", "Deadline: the deposit is paid by 1 May 2027."]
    assert seen == [asked, asked]  # every unnamed sentence once, then the model's items
    assert runner.run.irrelevant == 1
    # A sentence like the named one is an item even when the model does not list it; one only
    # close to "deadlines" must be listed.
    runner = MapReduce(lambda m, n: "NONE", words, 560, relevance=relevance)
    unlisted = drain(runner.extract([doc], "deadlines"))
    assert [i.text for i in unlisted] == [i.text for i in items[:2]]
    runner = MapReduce(lambda m, n: listed, words, 560)  # no embedder: unnamed items dropped
    assert [i.text for i in drain(runner.extract([doc], "deadlines"))] == [items[0].text]


def test_summarise_keeps_a_key_line_per_excerpt_and_an_overview_only_when_long() -> None:
    texts = [f"The depot number {i} handled {1000 + i} tonnes of grain." for i in range(10)]
    doc = DocumentText(1, "/d/r.md", "sha", tuple(chunk(i, t) for i, t in enumerate(texts)))
    asked: list[list[ChatMessage]] = []

    def generate(messages: list[ChatMessage], n: int) -> str:
        asked.append(messages)
        if "Statements:" in messages[1]["content"]:
            return "Depot number 0 handled 1000 tonnes of grain [1]. Depot 7 sank at Harbour."
        lines = messages[1]["content"].removeprefix("Excerpts:\n").split("\n\n")[:-1]
        # each excerpt restated on a line of its own, in reverse order
        return "\n".join(reversed([line.replace("The depot", "Depot") for line in lines]))

    runner = MapReduce(generate, words, 4096)
    items, overview = drain(runner.summarise([doc]))
    assert [i.chunks for i in items] == [[100 + i] for i in range(10)], "document order"
    assert len(asked) == 2 and [o.chunks for o in overview] == [[100]]
    assert runner.run.dropped == 1  # "Depot 7 sank ...": no statement says it
    short = DocumentText(1, "/d/s.md", "sha", doc.chunks[:3])
    items, overview = drain(MapReduce(generate, words, 4096).summarise([short]))
    assert len(items) == 3 and overview == []


def test_a_summary_pointer_line_shows_the_documents_sentence() -> None:
    doc = DocumentText(
        1,
        "/d/r.md",
        "sha",
        (
            chunk(
                0,
                "## 1. The Kelby depot\nThe Kelby depot has a slate roof. "
                "The Kelby depot handled 7,848 tonnes in 2023, reported by Owen Lusk.",
            ),
            chunk(1, "Lorries queue on the road. Rhea Patel counted 512 sacks at Brora."),
        ),
    )
    reply = "[1] Kelby 7848 tonnes\n[2] Brora 999 sacks"  # the second holds no sentence
    runner = MapReduce(lambda m, n: reply, words, 4096)
    items, overview = drain(runner.summarise([doc]))
    assert [(i.text, i.chunks) for i in items] == [
        ("The Kelby depot handled 7,848 tonnes in 2023, reported by Owen Lusk.", [100]),
        ("Rhea Patel counted 512 sacks at Brora.", [101]),  # its stand-in sentence
    ]
    assert (runner.run.dropped, runner.run.stand_ins, overview) == (1, 1, [])


def test_compare_pairs_changed_sentences_and_cites_both_sides() -> None:
    a = DocumentText(1, "/a.md", "x", (chunk(0, "Notice is thirty days. Pay is monthly.", 1),))
    b = DocumentText(
        2, "/b.md", "y", (chunk(0, "Notice is sixty days. Pay is monthly. Pets are allowed.", 2),)
    )
    runner = scripted(["Notice went from thirty to sixty days [1]."])
    changes, overview = drain(runner.compare(a, b))
    kinds = {c.kind: c for c in changes}
    assert kinds["changed"].extra == {
        "before": "Notice is thirty days.",
        "after": "Notice is sixty days.",
    }
    assert kinds["changed"].chunks == [100, 200] and kinds["same"].chunks == [100, 200]
    assert kinds["added"].text == "Pets are allowed."
    assert overview and overview[0].chunks == [100, 200]


def test_questions_naming_a_document_take_its_mode() -> None:
    summary = detect("Summarise annual-report-2023.pdf for me", NAMES)
    assert summary is not None and summary.mode == "summarise"
    assert summary.documents == ("annual-report-2023.pdf",)
    every = detect("List every deadline in notes.txt", NAMES)
    assert every is not None and every.mode == "extract" and every.what == "deadline"
    compare = detect("What changed between policy-2022 and policy-2023?", NAMES)
    assert compare is not None and compare.mode == "compare"
    assert compare.documents == ("policy-2022.md", "policy-2023.md")
    assert detect("Summarise the history of Rome", NAMES) is None  # no document named
    assert detect("What does notes.txt say about bananas?", NAMES) is None  # a lookup
    assert Unit("x", (1,)).keys == (1,)


def lease(last: str) -> DocumentText:
    """Three sections, one chunk a group (budget 20), the last one's text ``last``."""
    texts = [
        "Section one: the tenant Ines Varga pays rent monthly.",
        "Section two: the landlord Morwen Estates repairs the roof.",
        last,
    ]
    return DocumentText(1, "/d/lease.md", "sha", tuple(chunk(i, t) for i, t in enumerate(texts)))


def memo_run(folder: Path, doc: DocumentText, stopped: bool = False) -> tuple[MapReduce, list[str]]:
    """Summarise ``doc`` with every reply stored by prompt in ``folder``; the prompts the model
    was asked (the calls the store could not answer)."""
    asked: list[str] = []

    def generate(messages: list[ChatMessage], n: int) -> str:
        asked.append(messages[1]["content"])
        return messages[1]["content"].split("[1] ", 1)[1].split("\n")[0]  # copies its excerpt

    memo = ResultCache(folder).calls("model-sha")
    runner = MapReduce(generate, words, 560, lambda: stopped and len(asked) >= 1, memo)
    runner.budget = 20
    try:
        drain(runner.summarise([doc]))
    except Stopped:
        return runner, asked
    memo.commit()
    return runner, asked


def test_a_document_changed_in_one_place_reuses_the_other_groups_replies(
    tmp_path: Path,
) -> None:
    first, asked = memo_run(tmp_path, lease("Section three: the deposit is 900 pounds."))
    assert len(asked) == 3 and first.run.reused == 0
    again, asked = memo_run(tmp_path, lease("Section three: the deposit is 950 pounds."))
    assert len(asked) == 1 and "950" in asked[0], "only the changed group is read again"
    assert again.run.reused == 2 and again.run.calls == 1
    stopped_dir = tmp_path / "stopped"
    _, asked = memo_run(stopped_dir, lease("Section three: pets are allowed."), stopped=True)
    assert asked and not list(stopped_dir.rglob("*.json")), "a stopped run stores no reply"


def test_a_result_replaced_by_a_newer_version_drops_the_replies_only_it_used(
    tmp_path: Path,
) -> None:
    cache = ResultCache(tmp_path)
    old, new = cache.calls("m"), cache.calls("m")
    shared: list[ChatMessage] = [{"role": "user", "content": "shared group"}]
    gone: list[ChatMessage] = [{"role": "user", "content": "old group"}]
    old.add(shared, 10, "a")
    old.add(gone, 10, "b")
    cache.put("summarise", "req", "v1", {"answer": "old"}, old)
    assert new.get(shared, 10) == "a" and new.get(gone, 10) == "b"
    fresh = cache.calls("m")
    assert fresh.get(shared, 10) == "a"
    cache.put("summarise", "req", "v2", {"answer": "new"}, fresh)
    assert cache.get("summarise", "req", "v2") == {"answer": "new"}
    assert cache.get("summarise", "req", "v1") is None
    assert cache.calls("m").get(shared, 10) == "a" and cache.calls("m").get(gone, 10) is None
    assert cache.calls("another model").get(shared, 10) is None


def test_openai_mode_field_is_checked_by_name() -> None:
    def req(**extra: object) -> ChatRequest:
        body = {"model": "hearth-rag", "messages": [{"role": "user", "content": "x"}], **extra}
        return parse(ChatRequest, body)

    assert req().whole_mode() is None and req(mode="answer").whole_mode() is None
    assert req(mode="Summarize").whole_mode() == "summarise"
    assert req(mode="extract", documents=["a.md", 3], what="deadlines").whole_mode() == "extract"
    for extra, name in (({"mode": "poem"}, "mode"), ({"documents": ["a.md"]}, "documents")):
        with pytest.raises(InvalidInputError) as bad:
            req(**extra).whole_mode()
        assert bad.value.field == name
    with pytest.raises(InvalidInputError) as poem:
        req(mode="poem").whole_mode()
    assert "'poem'" in poem.value.message and "summarise" in poem.value.message
