"""Loaders on small generated files, and their clear errors on bad ones."""

from __future__ import annotations

from pathlib import Path

import pytest

from core.errors import LoaderError, UnsupportedTypeError
from ingest.loaders import loader_for
from samples.pdf import write_pdf


def load(path: Path) -> list:  # type: ignore[type-arg]
    return loader_for(path).load(path)


def test_markdown_keeps_heading_path_and_ignores_code_fences(tmp_path: Path) -> None:
    md = tmp_path / "a.md"
    md.write_text("# Top\nintro\n## Sub\nbody text\n```\n# not a heading\n```\n# Next\nmore\n")
    sections = load(md)
    assert [s.provenance.get("heading") for s in sections] == ["Top", "Top > Sub", "Next"]
    assert "# not a heading" in sections[1].text


def test_html_drops_scripts_and_navigation(tmp_path: Path) -> None:
    page = tmp_path / "p.html"
    page.write_text(
        "<html><body><nav>Home | About</nav><script>var secret=1;</script>"
        "<div class='sidebar'>Menu stuff</div><main><h1>Otters</h1><p>Otters eat fish.</p>"
        "<h2>Habitat</h2><p>Rivers and coasts.</p></main><footer>Copyright</footer></body></html>"
    )
    sections = load(page)
    text = "\n".join(s.text for s in sections)
    assert "Otters eat fish." in text and "Rivers and coasts." in text
    for chrome in ("Home | About", "secret", "Menu stuff", "Copyright"):
        assert chrome not in text
    assert sections[-1].provenance == {"heading": "Otters > Habitat"}


def test_text_in_latin1_is_decoded(tmp_path: Path) -> None:
    f = tmp_path / "l.txt"
    f.write_bytes("Café crème brûlée, naïve façade, déjà vu and more words".encode("latin-1"))
    assert "crème" in load(f)[0].text


def test_binary_named_txt_is_refused_with_the_file_name(tmp_path: Path) -> None:
    f = tmp_path / "blob.txt"
    f.write_bytes(b"\x00\x01\x02" * 100)
    with pytest.raises(UnsupportedTypeError, match=r"blob\.txt: the content is binary data"):
        load(f)


def test_pdf_pages_keep_their_numbers(tmp_path: Path) -> None:
    pdf = tmp_path / "doc.pdf"
    write_pdf(pdf, ["First page about herons.", "Second page about cranes."])
    sections = load(pdf)
    assert [(s.provenance["page"], "cranes" in s.text) for s in sections] == [(1, False), (2, True)]


def test_text_named_pdf_is_read_as_the_text_it_is(tmp_path: Path) -> None:
    f = tmp_path / "fake.pdf"
    f.write_text("just some text, not a PDF")
    assert [s.text for s in load(f)] == ["just some text, not a PDF"]


def test_truncated_pdf_is_a_clear_failure(tmp_path: Path) -> None:
    f = tmp_path / "cut.pdf"
    write_pdf(f, ["A page about herons."])
    f.write_bytes(f.read_bytes()[:60])
    with pytest.raises(LoaderError, match=r"cut\.pdf: not a readable PDF"):
        load(f)


def test_docx_headings_and_tables(tmp_path: Path) -> None:
    import docx

    d = docx.Document()
    d.add_heading("Garden", level=1)
    d.add_paragraph("Tomatoes need sun.")
    d.add_heading("Tools", level=2)
    table = d.add_table(rows=2, cols=2)
    table.cell(0, 0).text, table.cell(0, 1).text = "spade", "digging"
    table.cell(1, 0).text, table.cell(1, 1).text = "rake", "leaves"
    path = tmp_path / "g.docx"
    d.save(str(path))
    sections = load(path)
    assert sections[0].provenance == {"heading": "Garden"}
    assert sections[1].provenance == {"heading": "Garden > Tools"}
    assert "spade: rake | digging: leaves" in sections[1].text  # first row read as the header


def test_a_word_table_of_fields_has_no_header_row(tmp_path: Path) -> None:
    """Held-out batch 5 dev h542 (Open-XML-SDK's comment.docx): a spec's header table of
    fields and values opens "Document last updated: | 10/17/2003", and every row read
    "Document last updated:: Program Manager | 10/17/2003: LaBrowne". A first row whose field
    ends on a colon is no header: each row is a field and its value."""
    import docx

    d = docx.Document()
    table = d.add_table(rows=3, cols=2)
    fields = [
        ("Document last updated:", "10/17/2003"),
        ("Tester", "WendyWu"),
        ("Program Manager", "LaBrowne"),
    ]
    for row, (field, value) in zip(table.rows, fields, strict=True):
        row.cells[0].text, row.cells[1].text = field, value
    path = tmp_path / "spec.docx"
    d.save(str(path))
    text = "\n".join(s.text for s in load(path))
    assert "Field: Program Manager | Value: LaBrowne" in text, text
    assert "Field: Document last updated: | Value: 10/17/2003" in text, text


def test_corrupt_docx_is_a_clear_failure(tmp_path: Path) -> None:
    f = tmp_path / "broken.docx"
    f.write_bytes(b"PK\x03\x04 not really a zip")
    with pytest.raises(UnsupportedTypeError, match=r"broken\.docx: the content is a damaged zip"):
        load(f)


def test_unknown_extension_names_the_file(tmp_path: Path) -> None:
    f = tmp_path / "thing.xyz"
    f.write_text("hello")
    with pytest.raises(UnsupportedTypeError, match=r"thing\.xyz: unsupported file type \.xyz"):
        loader_for(f)
