"""Issue 35, items 3 and 5, through the real embedder, stores and (``slow``) the default model:
a question naming its document by sender ("the e-mail from Priya") or by date ("the memo of
March 3") is answered from it, though another e-mail or memo says nearly the same; "how many
more A than B" is computed by Hearth and shown with its two cited inputs."""

from __future__ import annotations

from collections.abc import Iterator
from email.message import EmailMessage
from pathlib import Path

import pytest

from core.embedder import Embedder
from core.knowledge import KnowledgeBase
from ingest.pipeline import IngestPipeline
from service.answering.retrieval import Retriever
from service.state import Hearth
from tests.integration.conftest import cited_names, hearth_on_library

pytestmark = pytest.mark.embedded_only(
    "document references and computed amounts are the subject; test_named_documents covers "
    "document filters over these backends: one pass"
)

BODY = "Hello all,\n\nI propose a budget of {} euros for the library roof repairs this autumn.\n"
MEMO = (
    "MEMORANDUM\n\n{}\n\nTo: the board\n\nThe board set a budget of {} euros for the library "
    "roof repairs.\n"
)
DELIVERY = (
    "# Shelter deliveries\n\nOn January 23, 2023 the volunteers delivered 10,000 blankets to the "
    "shelter.\n\nThe laptops came later: 2,500 laptops were delivered in February.\n"
)
BY_SENDER = "What budget does the e-mail from Priya propose for the library roof repairs?"
BY_DATE = "What budget did the memo of March 3 set for the library roof repairs?"
MORE = "How many more blankets than laptops were delivered?"


def _email(path: Path, sender: str, budget: str) -> None:
    msg = EmailMessage()
    msg["From"] = sender
    msg["To"] = "board@example.org"
    msg["Subject"] = "Roof repairs"
    msg["Date"] = "Tue, 07 Mar 2023 09:00:00 +0000"
    msg.set_content(BODY.format(budget))
    path.write_bytes(bytes(msg))


def write_library(folder: Path) -> Path:
    """Two e-mails that differ only in sender and budget, two memos that differ only in date
    and budget, and the deliveries."""
    folder.mkdir(parents=True, exist_ok=True)
    _email(folder / "roof-a.eml", "Priya Shah <priya@example.org>", "48,000")
    _email(folder / "roof-b.eml", "Tomas Berg <tomas@example.org>", "31,500")
    (folder / "memo-1.md").write_text(MEMO.format("March 3, 2023", "52,000"))
    (folder / "memo-2.md").write_text(MEMO.format("April 9, 2023", "39,000"))
    (folder / "deliveries.md").write_text(DELIVERY)
    return folder


def test_documents_named_by_sender_and_date_come_first(
    kb: KnowledgeBase, embedder: Embedder, tmp_path: Path
) -> None:
    IngestPipeline(kb, embedder).ingest_paths([write_library(tmp_path / "docs")])
    retriever = Retriever(kb, embedder)
    by_sender = retriever.retrieve(BY_SENDER)
    assert by_sender and Path(by_sender[0].path).name == "roof-a.eml", by_sender
    other = retriever.retrieve(BY_SENDER.replace("Priya", "Tomas"))
    assert Path(other[0].path).name == "roof-b.eml", other
    by_date = retriever.retrieve(BY_DATE)
    assert by_date and Path(by_date[0].path).name == "memo-1.md", by_date
    april = retriever.retrieve(BY_DATE.replace("March 3", "April 9"))
    assert Path(april[0].path).name == "memo-2.md", april
    named = retriever.documents.named(BY_SENDER)  # by its sender: one document, not both
    assert [p.path for p in by_sender if p.document_id in named.document_ids] == [
        p.path for p in by_sender if Path(p.path).name == "roof-a.eml"
    ]
    assert set(named.by.values()) == {"author"} and len(named.document_ids) == 1
    dated = retriever.documents.named(BY_DATE)
    assert set(dated.by.values()) == {"date"} and len(dated.document_ids) == 1
    titled = retriever.documents.named("Who wrote the e-mail 'Roof repairs'?")  # the Subject
    assert set(titled.by.values()) == {"title"} and len(titled.document_ids) == 2, titled


@pytest.fixture(scope="module")
def hearth(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Hearth]:
    """Hearth on the library above with the default model (loaded once for the module)."""
    yield from hearth_on_library(tmp_path_factory.mktemp("authors"), write_library)


@pytest.mark.slow
def test_a_question_naming_the_sender_is_answered_from_that_e_mail(hearth: Hearth) -> None:
    answer = hearth.answers.answer(BY_SENDER).as_dict()
    assert "48000" in str(answer["answer"]).replace(",", ""), answer["answer"]
    assert "roof-a.eml" in cited_names(answer), answer


@pytest.mark.slow
def test_a_question_naming_the_date_is_answered_from_that_memo(hearth: Hearth) -> None:
    answer = hearth.answers.answer(BY_DATE).as_dict()
    assert "52000" in str(answer["answer"]).replace(",", ""), answer["answer"]
    assert "memo-1.md" in cited_names(answer), answer


@pytest.mark.slow
def test_how_many_more_is_computed_and_shown_with_its_inputs(hearth: Hearth) -> None:
    answer = hearth.answers.answer(MORE).as_dict()
    text = str(answer["answer"])
    assert text.startswith("7500 (computed by Hearth from two cited numbers: 10,000 − 2,500"), text
    assert "10,000 blankets" in text and "2,500 laptops" in text, text
    grounding = answer["grounding"]
    assert isinstance(grounding, dict)
    assert grounding["computed"] == ["10,000 - 2,500 = 7500"] and grounding["grounded"]
    assert cited_names(answer) == {"deliveries.md"}
