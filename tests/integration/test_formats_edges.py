"""Lying extensions, attachments over a message's life, `hearth formats`, HTML chrome."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest
from sqlalchemy import select

from core.db.models import Chunk, Document
from ingest.loaders.html import HtmlLoader
from ingest.pipeline import IngestPipeline
from ingest.remove import remove_documents
from samples.formats import mail, make_eml, make_pptx, minimal_pdf
from tests.integration.conftest import run_hearth

pytestmark = pytest.mark.embedded_only(
    "the loaders are the subject; other tests write the catalogue and stores on this pass: one pass"
)


def _docs(pipeline: IngestPipeline) -> dict[str, Document]:
    with pipeline.kb.db.session() as s:
        return {d.path: d for d in s.scalars(select(Document))}


def test_lying_extensions_in_one_batch(pipeline: IngestPipeline, tmp_path: Path) -> None:
    deck = tmp_path / "deck.pdf"  # a PowerPoint file named .pdf
    make_pptx(deck)
    pdf = tmp_path / "scan.txt"  # a PDF named .txt
    pdf.write_bytes(minimal_pdf(["The boiler was serviced on 3 March."]))
    old = tmp_path / "budget.xlsx"  # a legacy OLE file
    old.write_bytes(b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + b"\x00" * 512)
    packed = tmp_path / "notes.docx"  # gzip named .docx
    packed.write_bytes(gzip.compress(b"words"))
    fine = tmp_path / "fine.md"
    fine.write_text("# Fine\n\nA perfectly ordinary note.\n")
    report = pipeline.ingest([deck, pdf, old, packed, fine])
    actions = {Path(r.path).name: r.action for r in report.results}
    assert actions == {
        "deck.pdf": "added",
        "scan.txt": "added",
        "budget.xlsx": "failed",
        "notes.docx": "failed",
        "fine.md": "added",
    }
    errors = {Path(r.path).name: r.error or "" for r in report.failures}
    assert errors["budget.xlsx"].startswith("budget.xlsx: the content is a legacy Microsoft Office")
    assert "gzip-compressed data, not the .docx file" in errors["notes.docx"]
    docs = _docs(pipeline)
    assert docs[str(deck.resolve())].file_type == "pptx"
    assert docs[str(pdf.resolve())].file_type == "pdf"


def test_attachments_follow_their_message(pipeline: IngestPipeline, tmp_path: Path) -> None:
    message = tmp_path / "review.eml"
    make_eml(message)
    key = str(message.resolve())
    result = pipeline.ingest_file(message)
    assert (result.action, result.attachments) == ("added", 1)
    docs = _docs(pipeline)
    child = docs[f"{key}#attachment/1/invoice.pdf"]
    assert child.parent_id == docs[key].id

    # A new version with a different attachment replaces the old one in every store.
    msg = mail("Quarterly review", "Moved again, to the Borealis room.")
    msg.add_attachment(
        b"Agenda: budget, hiring.\n", maintype="text", subtype="plain", filename="agenda.txt"
    )
    msg.add_attachment(
        b"\x89PNG\r\n\x1a\n" + b"\x00" * 32, maintype="image", subtype="png", filename="logo.png"
    )
    message.write_bytes(msg.as_bytes())
    result = pipeline.ingest_file(message)
    assert result.action == "updated"
    docs = _docs(pipeline)
    assert f"{key}#attachment/1/invoice.pdf" not in docs
    assert docs[f"{key}#attachment/1/agenda.txt"].status == "ingested"
    logo = docs.get(f"{key}#attachment/2/logo.png")
    if logo is not None and logo.status == "failed":  # no image loader in this build
        assert logo.parent_id == docs[key].id and "logo.png" in (logo.error or "")
    assert pipeline.kb.catalogue_ids() == pipeline.kb.stores["faiss"].ids()

    removed = remove_documents(pipeline.kb, [message])
    assert {r.path for r in removed} >= {key, f"{key}#attachment/1/agenda.txt"}
    assert _docs(pipeline) == {}
    with pipeline.kb.db.session() as s:
        assert s.scalars(select(Chunk.id)).first() is None
    assert all(store.ids() == set() for store in pipeline.kb.stores.values())


def test_hearth_formats_lists_every_kind(tmp_path: Path) -> None:
    done = run_hearth(tmp_path / "data", "formats", "--json", timeout=120)
    assert done.returncode == 0, done.stderr
    rows = {r["file_type"]: r for r in json.loads(done.stdout)}
    expected = {
        "pptx",
        "xlsx",
        "csv",
        "epub",
        "eml",
        "mbox",
        "odt",
        "rtf",
        "json",
        "yaml",
        "code",
        "text",
        "markdown",
        "html",
        "pdf",
        "docx",
    }
    assert expected <= set(rows)
    assert rows["pptx"]["library"] == "python-pptx" and "slide" in rows["pptx"]["provenance"]
    # recordings: tiny.en, and the multilingual model for speech it cannot read
    assert "whisper-tiny.en" in rows["audio"]["library"], rows["audio"]
    assert "whisper-base, multilingual" in rows["audio"]["library"], rows["audio"]
    assert ".py" in rows["code"]["extensions"] and "makefile" in rows["code"]["extensions"]
    table = run_hearth(tmp_path / "data", "formats", timeout=120)
    assert table.returncode == 0 and "XlsxLoader" in table.stdout and "openpyxl" in table.stdout


def test_wiki_page_keeps_headings_and_drops_chrome(shared_data: Path) -> None:
    sections = HtmlLoader().load(shared_data / "docs/html/wiki_duck.html")
    text = "\n".join(s.text for s in sections)
    for chrome in (
        "Jump to content",
        "Main menu",
        "Privacy policy",
        "mw.config",
        "What links here",
    ):
        assert chrome not in text
    headings = [s.provenance.get("heading") for s in sections]
    assert "Taxonomy" in headings
    assert "Relationship with humans > Heraldry" in headings


def test_cli_ingest_and_served_citations_name_slide_and_attachment(tmp_path: Path) -> None:
    from samples.formats import make_all
    from tests.integration.conftest import start_server

    data = tmp_path / "data"
    files = make_all(tmp_path / "files")
    done = run_hearth(data, "ingest", "-q", str(tmp_path / "files"), timeout=600)
    assert done.returncode == 0, done.stderr
    assert f"added {len(files)}," in done.stdout and "attachments 1" in done.stdout
    server = start_server(data)
    try:
        with server.client() as client:
            reply = client.post(
                "/api/ask", json={"question": "Which data centre does the Falcon project move to?"}
            )
            assert reply.status_code == 200, reply.text
            labels = [s["label"] for s in reply.json()["sources"]]
            assert "deck.pptx, slide 2 (Migration plan)" in labels
            reply = client.post(
                "/api/ask", json={"question": "What is the invoice total for the Pelican account?"}
            )
            labels = [s["label"] for s in reply.json()["sources"]]
            assert labels[0].startswith("invoice.pdf in review.eml, attachment of message")
    finally:
        server.stop()
    removed = run_hearth(data, "remove", str(files["eml"]), timeout=300)
    assert removed.returncode == 0, removed.stderr
    assert "#attachment/1/invoice.pdf" in removed.stdout


def test_damaged_files_of_every_kind_fail_cleanly(pipeline: IngestPipeline, tmp_path: Path) -> None:
    import zipfile

    from samples.formats import make_all

    bad = tmp_path / "bad"
    bad.mkdir()
    for path in make_all(tmp_path / "ok").values():
        data = path.read_bytes()
        (bad / f"half-{path.name}").write_bytes(data[: len(data) // 2])
        (bad / f"empty-{path.name}").write_bytes(b"")
        if data[:2] == b"PK":  # a package missing its main part
            with (
                zipfile.ZipFile(path) as zin,
                zipfile.ZipFile(bad / f"gutted-{path.name}", "w") as z,
            ):
                for name in zin.namelist():
                    if not name.endswith(("content.xml", "workbook.xml", "presentation.xml")):
                        z.writestr(name, zin.read(name))
    report = pipeline.ingest_paths([bad])
    assert len(report.results) >= 2 * 11
    assert {r.action for r in report.results} <= {"failed", "empty", "added"}
    for failure in report.failures:
        assert failure.error and failure.error.startswith(Path(failure.path).name.split("#")[0])
    assert report.count("failed") >= 10
