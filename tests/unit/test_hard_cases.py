"""Issue 21: table rows keep their headers (DOCX, HTML, PDF layout text), a near-miss number is
flagged by grounding, stereo channels make separate sections, bridging names for a second hop."""

from __future__ import annotations

from core.speech import Segment
from ingest.loaders.audio import segment_sections
from ingest.loaders.html import html_sections
from ingest.loaders.pdf_tables import layout_with_tables
from service.answering.grounding import check
from service.answering.prompting import clean_for_prompt
from service.answering.retrieval import bridge_names

ROWS = (
    "Item | Q1 | Q2\nItem: Brass hinge | Q1: 4.15 | Q2: 4.35\n"
    "Item: Steel hinge | Q1: 3.05 | Q2: 3.25"
)


def test_html_table_cell_is_on_its_row_with_its_column() -> None:
    html = (
        "<main><table><tr><th>Name</th><th>Office</th></tr>"
        "<tr><td>Priya</td><td>Leeds</td></tr><tr><td>Tomas</td><td>Bristol</td></tr></table></main>"
    )
    text = html_sections(html)[0].text
    assert "Name: Priya | Office: Leeds" in text.split("\n")
    # a row-header table (an infobox): key and value, whatever its first row says
    infobox = (
        "<main><table><tr><th colspan='2'>Northwind</th></tr>"
        "<tr><th>Company type</th><td>Public</td></tr><tr><th>ISIN</th><td>US0000000017</td></tr>"
        "</table></main>"
    )
    lines = html_sections(infobox)[0].text.split("\n")
    assert lines[0] == "Northwind" and "Field: ISIN | Value: US0000000017" in lines, lines
    # a row header beside a column header row: columns named as before
    grid = (
        "<main><table><tr><th></th><th>2022</th><th>2023</th></tr>"
        "<tr><th>Sales</th><td>10</td><td>12</td></tr><tr><th>Costs</th><td>7</td><td>8</td></tr>"
        "</table></main>"
    )
    assert "Sales | 2022: 10 | 2023: 12" in html_sections(grid)[0].text.split("\n")


def test_pdf_layout_table_becomes_rows_with_headers_and_prose_is_left() -> None:
    layout = (
        "Results\n\nSample      pH      Nitrate mg/L\nW-01        7.2     11.4\n"
        "W-04        8.1     22.6\n\nTaken from the river."
    )
    text = layout_with_tables(layout) or ""
    assert "Sample: W-04 | pH: 8.1 | Nitrate mg/L: 22.6" in text.split("\n")
    prose = "A long sentence of prose in one column    and another long sentence beside it\n" * 4
    assert layout_with_tables(prose) is None


def test_table_rows_stay_on_their_own_lines_in_the_prompt() -> None:
    assert clean_for_prompt("Prices\n" + ROWS).split("\n")[1:] == ROWS.split("\n")


def test_near_miss_number_is_flagged() -> None:
    q = "What was the Q2 price of the brass hinge?"
    wrong = check("The Q2 price of the brass hinge was 4.15 [1].", {1: ROWS}, question=q)
    assert not wrong.grounded and wrong.near_misses and wrong.near_misses[0].startswith("4.15")
    right = check("The Q2 price of the brass hinge was 4.35 [1].", {1: ROWS}, question=q)
    assert right.grounded and right.near_misses == []
    text = "Revenue for 2025 was 4.82 million, up from 4.28 million in 2024."
    assert check("Revenue in 2025 was 4.28 million [1].", {1: text}).near_misses
    assert check("Revenue in 2025 was 4.82 million [1].", {1: text}).grounded


def test_stereo_segments_make_sections_per_channel() -> None:
    segs = [
        Segment(0.0, 3.0, "Oliver speaking", channel="left"),
        Segment(1.0, 4.0, "Grace speaking", channel="right"),
        Segment(3.0, 6.0, "Oliver again", channel="left"),
    ]
    sections = segment_sections(segs, max_words=50)
    assert [(s.text, s.provenance["channel"]) for s in sections] == [
        ("Oliver speaking Oliver again", "left"),
        ("Grace speaking", "right"),
    ]


def test_bridging_names_come_from_the_first_passage() -> None:
    passage = "The Harbour project was led by Imogen Clarke. The Meadow project added panels."
    names = bridge_names("When did the leader of the Harbour project join?", passage)
    assert names[:2] == ["Imogen", "Clarke"] and "Harbour" not in names
