"""Every new format through the real pipeline and embedder: the question about a file's fact
retrieves that file's chunk with the right provenance."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import select

from core.db.models import Chunk, Document
from core.embedder import Embedder
from core.knowledge import KnowledgeBase
from ingest.pipeline import IngestPipeline, IngestReport
from samples.formats import make_all, make_code, make_csv, make_xlsx
from service.answering.retrieval import Passage, Retriever
from tests.integration.conftest import backend_settings

pytestmark = pytest.mark.embedded_only(
    "the loaders and the embedder are the subject; other tests write the catalogue and "
    "stores on this pass: one pass"
)


class Corpus:
    """One knowledge base holding a file of every kind."""

    def __init__(
        self,
        kb: KnowledgeBase,
        files: dict[str, Path],
        report: IngestReport,
        retriever: Retriever,
        pipeline: IngestPipeline,
    ) -> None:
        self.kb, self.files, self.report = kb, files, report
        self.retriever, self.pipeline = retriever, pipeline

    def top(self, question: str) -> Passage:
        passages = self.retriever.retrieve(question, k=5)
        assert passages, question
        return passages[0]


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory, embedder: Embedder) -> Iterator[Corpus]:
    root = tmp_path_factory.mktemp("formats")
    files = make_all(root / "files")
    kb = KnowledgeBase(backend_settings(root / "data"))
    pipeline = IngestPipeline(kb, embedder)
    report = pipeline.ingest(sorted(files.values()))
    yield Corpus(kb, files, report, Retriever(kb, embedder), pipeline)
    kb.close()


def test_every_file_is_ingested(corpus: Corpus) -> None:
    assert corpus.report.failures == []
    assert corpus.report.count("added") == len(corpus.files)
    with corpus.kb.db.session() as s:
        types = {Path(d.path).name: d.file_type for d in s.scalars(select(Document))}
    for kind, path in corpus.files.items():
        assert types[path.name] == kind


CASES: list[tuple[str, str, dict[str, Any], str]] = [
    ("pptx", "Which data centre does the Falcon project move to?", {"slide": 2}, "Lisbon"),
    ("pptx", "What budget was approved for the move?", {"slide": 2}, "42,000 euros"),
    (
        "epub",
        "How many fishermen did the keeper Elias rescue in the storm?",
        {"chapter": "The Storm"},
        "eleven fishermen",
    ),
    (
        "mbox",
        "When does the garden party start?",
        {"message": "Garden party", "index": 2},
        "old water mill",
    ),
    (
        "eml",
        "Which room is the quarterly review meeting in?",
        {"message": "Quarterly review"},
        "Aurora room",
    ),
    ("odt", "Where must hard hats be worn?", {"heading": "Site handbook > Safety rules"}, "zone C"),
    ("rtf", "What is the secret ingredient of the fish soup?", {}, "smoked paprika"),
    ("json", "Which region is the atlas server in?", {"key": "servers"}, "eu-north-7"),
    ("yaml", "Which port does the database listen on?", {"key": "database"}, "5433"),
]


@pytest.mark.parametrize(("kind", "question", "provenance", "fact"), CASES)
def test_question_finds_the_fact_with_its_provenance(
    corpus: Corpus, kind: str, question: str, provenance: dict[str, Any], fact: str
) -> None:
    top = corpus.top(question)
    assert Path(top.path).name == corpus.files[kind].name
    assert fact in top.text
    for key, value in provenance.items():
        assert top.provenance.get(key) == value, top.provenance


def test_sheet_rows_hold_the_cell_and_repeat_the_header(corpus: Corpus, tmp_path: Path) -> None:
    fact_row = make_xlsx(tmp_path / "again.xlsx")
    top = corpus.top("How many copper widgets are in stock in the Oslo warehouse?")
    assert Path(top.path).name == "stock.xlsx"
    assert top.provenance["sheet"] == "Inventory"
    first, last = map(int, str(top.provenance["rows"]).split("-"))
    assert first <= fact_row <= last
    assert "Item: Copper widget | Warehouse: Oslo | Quantity: 1375" in top.text
    assert "sheet Inventory, rows" in top.label
    with corpus.kb.db.session() as s:
        doc = s.scalar(select(Document).where(Document.path == str(corpus.files["xlsx"])))
        assert doc is not None
        texts = list(s.scalars(select(Chunk.text).where(Chunk.document_id == doc.id)))
    inventory = [t for t in texts if t.startswith("Inventory (")]
    # Rows carry their headers (issue 21), so the sheet takes more chunks than its bare rows did.
    assert len(inventory) >= 4 and all("\nItem | Warehouse | Quantity\n" in t for t in inventory)
    assert any(t.startswith("Staff (row 2)\nName | Role") for t in texts)


def test_csv_row_found_by_one_cell(corpus: Corpus, tmp_path: Path) -> None:
    fact_line = make_csv(tmp_path / "again.csv")
    top = corpus.top("What is the population of Tromsø?")
    assert Path(top.path).name == "cities.csv"
    assert "City: Tromsø | Country: Norway | Population: 77544" in top.text
    first, last = map(int, str(top.provenance["rows"]).split("-"))
    assert first <= fact_line <= last
    assert top.provenance["sheet"] == "cities.csv"


def test_code_chunk_names_its_lines(corpus: Corpus, tmp_path: Path) -> None:
    fact_first, fact_last = make_code(tmp_path / "again.py")
    top = corpus.top("How is the shipping cost computed per kilogram?")
    assert Path(top.path).name == "orders.py"
    first, last = map(int, str(top.provenance["lines"]).split("-"))
    assert first <= fact_first and fact_last <= last
    assert "lines " in top.label


def test_email_attachment_is_its_own_linked_document(corpus: Corpus) -> None:
    message = str(corpus.files["eml"])
    with corpus.kb.db.session() as s:
        docs = {d.path: d for d in s.scalars(select(Document))}
    attachment = docs[f"{message}#attachment/1/invoice.pdf"]
    assert attachment.parent_id == docs[message].id
    assert attachment.file_type == "pdf" and attachment.status == "ingested"
    top = corpus.top("What is the invoice total for the Pelican account?")
    assert top.path == attachment.path
    assert top.provenance["page"] == 1 and top.provenance["attachment"] == "invoice.pdf"
    assert "9,870 dollars" in top.text
    assert top.label == (
        "invoice.pdf in review.eml, attachment of message “Quarterly review”, page 1"
    )
    # The message names what it carries: "which file was attached?" is asked of the message.
    sent = corpus.top("What is the name of the file attached to the Quarterly review message?")
    assert sent.path == message and "Attachments: invoice.pdf" in sent.text


def test_labels_show_the_new_provenance(corpus: Corpus) -> None:
    slide = corpus.top("Which data centre does the Falcon project move to?")
    assert slide.label == "deck.pptx, slide 2 (Migration plan)"
    chapter = corpus.top("How many fishermen did the keeper Elias rescue in the storm?")
    assert chapter.label.startswith("keeper.epub, chapter The Storm")
    mail = corpus.top("When does the garden party start?")
    assert mail.label.startswith("club.mbox, message 2 “Garden party”")


def test_mojibake_is_read_as_it_was_written(corpus: Corpus, tmp_path: Path) -> None:
    """Text encoded as UTF-8 twice (a French list post whose body says "GÃ©nÃ©ral"), or UTF-8
    read as cp1252 ("1991â€“92"), is stored as it was meant, so keyword search and the checks
    see the words; text that was right stays as it is."""
    body = (
        "Bonjour,\n\nJe cherche un partenaire capable de remonter le trafic en métropole, "
        "idéalement à TH2, près de l'avenue du Général de Gaulle.\n"
    )
    twice = body.encode("utf-8").decode("latin-1").encode("utf-8")  # the file's bytes
    mail = tmp_path / "liste.eml"
    mail.write_bytes(
        b"From: Guillaume <g@example.org>\nTo: liste@example.org\nSubject: Collecte en DOM\n"
        b"Date: Tue, 02 Jun 2015 12:00:55 +0200\nContent-Type: text/plain; charset=utf-8\n\n"
        + twice
    )
    season = tmp_path / "club.txt"
    season.write_text(
        "Club history\n\nIn the 1991–92 season the club won the league; Müller scored 31.\n"
        .replace("–", "â€“"),
        encoding="utf-8",
    )
    clean = tmp_path / "clean.txt"
    clean.write_text("Straße, café, naïve — “quoted” 5 £ and 20 °C.\n", encoding="utf-8")
    report = corpus.pipeline.ingest([mail, season, clean])
    assert report.failures == []
    with corpus.kb.db.session() as s:
        text = {
            Path(path).name: "\n".join(t for p, t in rows if p == path)
            for path in {str(mail), str(season), str(clean)}
            for rows in [
                s.execute(
                    select(Document.path, Chunk.text).join(Chunk).where(Document.path == path)
                ).all()
            ]
        }
    assert "idéalement à TH2" in text["liste.eml"] and "Général" in text["liste.eml"]
    assert "Ã" not in text["liste.eml"] and "Ã©" in twice.decode("utf-8")  # it was broken
    assert "1991–92 season" in text["club.txt"] and "Müller" in text["club.txt"]
    assert "Straße, café, naïve — “quoted” 5 £ and 20 °C." in text["clean.txt"]  # left alone
    top = corpus.top("Où le trafic doit-il être remonté, idéalement ?")
    assert Path(top.path).name == "liste.eml" and "idéalement à TH2" in top.text
