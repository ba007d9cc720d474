"""The citation viewer's logic: aligning a passage with a page's words, merging character boxes
into line rectangles, byte ranges, a sheet's rows back as cells, the text around a passage, and
a real PDF page's marks against pypdfium2's own character boxes."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from core.db.models import Document
from core.errors import InvalidInputError
from samples.pdf import write_pdf
from service.viewer.marks import aligned_words, merge_lines, recorded_marks, text_marks, words_of
from service.viewer.original import byte_range
from service.viewer.views import kind_of, table_view, text_context


def chunk(cid: int, text: str, **prov: Any) -> Any:
    return SimpleNamespace(id=cid, text=text, provenance=prov)


def test_a_passage_is_aligned_with_its_run_of_page_words_not_a_stray_word_elsewhere() -> None:
    page = words_of("The cat sat. Later the harbour master rang the bell at noon. The end")
    passage = words_of("the harbour master rang the bell at noon")
    matched = aligned_words(page, passage)
    assert [page[i] for i in sorted(matched)] == passage
    # "The" at the very start and "The end" are not marked.
    assert 0 not in matched and len(page) - 2 not in matched


def test_a_table_row_written_with_its_headers_still_finds_its_cells() -> None:
    page = words_of("Office Start year Staff Leeds 2019 40 York 2021 12 Bath 2015 9")
    passage = words_of(
        "Sheet (row 3)\nOffice | Start year | Staff\nOffice: York | Start year: 2021 | Staff: 12"
    )
    matched = {page[i] for i in aligned_words(page, passage)}
    assert {"york", "2021", "12", "office", "start", "year", "staff"} <= matched
    assert "leeds" not in matched and "bath" not in matched


def test_nothing_is_marked_when_the_page_does_not_hold_the_passage() -> None:
    assert aligned_words(words_of("alpha beta gamma delta"), words_of("one two three")) == set()


def test_character_boxes_merge_into_one_rectangle_per_line_and_run() -> None:
    boxes = [
        (0, [10.0, 10.0, 15.0, 20.0]),
        (0, [15.0, 10.0, 20.0, 20.0]),
        (1, [24.0, 10.0, 40.0, 20.0]),  # next word, same line: same rectangle
        (2, [10.0, 30.0, 30.0, 40.0]),  # next line
        (5, [50.0, 30.0, 60.0, 40.0]),  # same line, but words 3-4 are not marked
    ]
    assert merge_lines(boxes) == [
        [10.0, 10.0, 40.0, 20.0],
        [10.0, 30.0, 30.0, 40.0],
        [50.0, 30.0, 60.0, 40.0],
    ]


def test_recorded_ocr_boxes_are_used_as_they_are() -> None:
    marks = recorded_marks(
        {"page": 1, "box": [1, 2, 30, 40], "lines": [[1, 2, 30, 20], [1, 22, 25, 40]]}
    )
    assert (
        marks.rects == [[1.0, 2.0, 30.0, 20.0], [1.0, 22.0, 25.0, 40.0]] and marks.source == "ocr"
    )
    assert recorded_marks({"page": 1, "box": [5, 5, 9, 9]}).rects == [[5.0, 5.0, 9.0, 9.0]]
    assert recorded_marks({"page": 1}).source == "none"


def test_byte_ranges() -> None:
    assert byte_range(None, 100) is None
    assert byte_range("bytes=0-", 100) == (0, 99)
    assert byte_range("bytes=10-19", 100) == (10, 19)
    assert byte_range("bytes=-10", 100) == (90, 99)
    assert byte_range("bytes=90-500", 100) == (90, 99)
    for bad in ("bytes=200-300", "bytes=5-2", "lines=1-2", "bytes=-", "bytes=1-2,4-5"):
        with pytest.raises(InvalidInputError, match="range"):
            byte_range(bad, 100)


def test_a_sheet_chunk_becomes_its_header_and_rows_with_their_numbers() -> None:
    text = "\n".join(
        [
            "Staff (rows 2-3)",
            "Name | Office | Start",
            "Name: Ann | Office: Leeds | Start: 2019",
            "Name: Bo | Start: 2020",
        ]
    )
    view = table_view(chunk(1, text, sheet="Staff", rows="2-3"))
    assert view["header"] == ["Name", "Office", "Start"]
    assert view["rows"] == [
        {"number": 2, "cells": ["Ann", "Leeds", "2019"]},
        {"number": 3, "cells": ["Bo", "", "2020"]},
    ]


def test_the_text_around_a_passage_shows_the_chunkers_overlap_once() -> None:
    chunks = [
        chunk(1, "First part. Shared sentence."),
        chunk(2, "Shared sentence. The cited passage."),
        chunk(3, "The cited passage. After it."),
    ]
    parts = text_context(chunks[1], chunks)
    assert [p["cited"] for p in parts] == [False, True, False]
    assert parts[1]["text"] == "Shared sentence. The cited passage."
    assert "".join(p["text"] for p in parts).count("Shared sentence.") == 1
    assert parts[2]["text"] == "After it."


def test_a_slide_is_shown_whole() -> None:
    chunks = [
        chunk(1, "Title one", slide=1),
        chunk(2, "Body two", slide=2),
        chunk(3, "More two", slide=2),
    ]
    assert [p["text"] for p in text_context(chunks[2], chunks)] == ["Body two", "More two"]


def test_kinds() -> None:
    pdf, image, xlsx = (Document(file_type=t) for t in ("pdf", "image", "xlsx"))
    assert kind_of(pdf, {"page": 2}) == "pdf"
    assert kind_of(image, {"page": 1, "box": [0, 0, 1, 1]}) == "image"
    assert kind_of(Document(file_type="audio"), {"start": 1.0, "end": 2.0}) == "audio"
    assert kind_of(xlsx, {"sheet": "S", "rows": "2-4"}) == "table"
    assert kind_of(Document(file_type="docx"), {"heading": "A"}) == "text"


def test_marks_on_a_real_pdf_page_cover_the_words_pdfium_places_there(tmp_path: Path) -> None:
    import pypdfium2 as pdfium

    path = tmp_path / "three.pdf"
    lines = [
        ("", "An opening line about nothing much."),
        ("", "The harbour master rang the bell"),
        ("", "at noon on the first of May."),
        ("", "A closing line about the weather."),
    ]
    write_pdf(path, ["one", "two", lines])
    pdf = pdfium.PdfDocument(str(path))
    page = pdf[2]
    marks, width, height = text_marks(
        page, "The harbour master rang the bell\nat noon on the first of May."
    )
    assert (width, height) == (612, 792) and marks.source == "text" and len(marks.rects) == 2
    assert marks.coverage == 1.0
    textpage = page.get_textpage()
    text = textpage.get_text_range()
    for word in ("harbour", "bell", "noon", "May"):
        i = text.index(word)
        for k in range(i, i + len(word)):
            left, bottom, right, top = textpage.get_charbox(k)
            x0, y0, x1, y1 = left, height - top, right, height - bottom
            assert any(
                r[0] - 0.5 <= x0 and x1 <= r[2] + 0.5 and r[1] - 0.5 <= y0 and y1 <= r[3] + 0.5
                for r in marks.rects
            ), (word, marks.rects)
    # Neither the opening nor the closing line is marked (their y is outside every rectangle).
    i = text.index("opening")
    _, bottom, _, top = textpage.get_charbox(i)
    assert all(not (r[1] <= height - top <= r[3]) for r in marks.rects)
    pdf.close()
