"""A slide's line breaks (Shift+Enter, ``a:br``) part its lines: joining a paragraph's runs alone
ran a title's lines together (batch 11's Census deck: "2020 Census Small Business
ParticipationSubcontracting Goals", "VENDOR EXPO2020 Census")."""

from __future__ import annotations

from pathlib import Path

from pptx import Presentation

from ingest.loaders.pptx import PptxLoader


def test_a_line_break_inside_a_paragraph_starts_a_new_line(tmp_path: Path) -> None:
    deck = Presentation()
    slide = deck.slides.add_slide(deck.slide_layouts[1])
    title = slide.shapes.title
    assert title is not None
    paragraph = title.text_frame.paragraphs[0]
    paragraph.add_run().text = "2020 Census Small Business Participation"
    paragraph.add_line_break()
    paragraph.add_run().text = "Subcontracting Goals"
    path = tmp_path / "census.pptx"
    deck.save(str(path))
    (section,) = PptxLoader().load(path)
    lines = section.text.splitlines()
    assert "2020 Census Small Business Participation" in lines
    assert "Subcontracting Goals" in lines
    assert section.provenance["title"] == (
        "2020 Census Small Business Participation Subcontracting Goals"
    )
