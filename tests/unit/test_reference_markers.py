"""Footnote/reference markers of web pages are dropped at load time (issue 20, kind 5)."""

from __future__ import annotations

import re
from pathlib import Path

from ingest.loaders.html import HtmlLoader
from ingest.loaders.markdown import MarkdownLoader

MARKER = re.compile(r"\[\s*\\?\[?\s*\d+\s*\\?\]?\s*\]|cite_note|\[\^\d+\]")


def test_saved_wikipedia_page_has_no_reference_markers(shared_data: Path) -> None:
    sections = HtmlLoader().load(shared_data / "docs" / "html" / "wiki_duck.html")
    text = "\n".join(s.text for s in sections)
    assert not MARKER.findall(text), MARKER.findall(text)[:5]
    # the sentence the markers followed is intact
    assert (
        "A male is called a drake and the female is called a duck, or in ornithology a hen." in text
    )


def test_html_markers_go_and_ordinary_links_and_numbers_stay(tmp_path: Path) -> None:
    page = tmp_path / "p.html"
    page.write_text(
        "<html><body><main><p>Boil for 3 minutes<sup id='cite_ref-1' class='reference'>"
        "<a href='#cite_note-1'>[1]</a></sup>, then see <a href='#step-2'>step [2]</a>."
        "<a href='#fn3' role='doc-noteref'>3</a> Dose: [5] mg.</p></main></body></html>"
    )
    text = HtmlLoader().load(page)[0].text
    assert text == "Boil for 3 minutes , then see step [2] . Dose: [5] mg."


def test_markdown_converted_from_html_loses_markers(tmp_path: Path) -> None:
    md = tmp_path / "duck.md"
    md.write_text(
        "# Duck\nA male is called a drake [[ 3 ]](#cite_note-3) [[ 4 ]](#cite_note-4).\n"
        "A hen.[\\[5\\]](#cite_note-FOOTNOTECarboneras1992536-5) Ducks fly[^6] far.\n"
        "See [the taxonomy](#Taxonomy) and [3](https://example.org/3).\n\n[^6]: A footnote.\n"
    )
    text = MarkdownLoader().load(md)[0].text
    assert "A male is called a drake." in text and "A hen. Ducks fly far." in text
    assert "[the taxonomy](#Taxonomy)" in text and "[3](https://example.org/3)" in text
    assert "[^6]: A footnote." in text
    assert "cite_note" not in text
