"""Grouping of speech segments and OCR lines into sections, and citation labels."""

from __future__ import annotations

from core.ocr import OcrFragment, OcrLine, _lines, scale_for
from core.provenance import clock, describe
from core.speech import Segment
from core.types import Section
from ingest.loaders.audio import segment_sections
from ingest.loaders.ocr_sections import line_sections
from ingest.loaders.sections import word_runs
from service.answering.retrieval import Passage


def test_segments_grouped_by_words_and_pauses() -> None:
    segs = [
        Segment(0.0, 4.0, "one two three"),
        Segment(4.0, 8.0, "four five six"),
        Segment(8.0, 9.5, "seven eight"),
        Segment(20.0, 22.0, "after a long pause"),
    ]
    sections = segment_sections(segs, max_words=6)
    assert [s.provenance for s in sections] == [
        {"start": 0.0, "end": 8.0},
        {"start": 8.0, "end": 9.5},
        {"start": 20.0, "end": 22.0},
    ]
    assert sections[0].text == "one two three four five six"
    assert segment_sections([], max_words=6) == []
    steady = [Segment(i * 10.0, i * 10.0 + 10.0, "word") for i in range(7)]
    spans = [(s.provenance["start"], s.provenance["end"]) for s in segment_sections(steady, 100)]
    assert spans == [(0.0, 30.0), (30.0, 60.0), (60.0, 70.0)]


def test_lines_grouped_into_blocks_with_union_box() -> None:
    lines = [
        OcrLine("first line here", (10, 10, 200, 30), 0.9),
        OcrLine("second line", (12, 34, 180, 54), 0.9),
        OcrLine("new paragraph", (10, 120, 220, 140), 0.9),
    ]
    sections = line_sections(lines, page=2, max_words=50)
    assert len(sections) == 2
    assert sections[0].text == "first line here\nsecond line"
    assert sections[0].provenance["page"] == 2
    assert sections[0].provenance["box"] == [10.0, 10.0, 200.0, 54.0]
    assert sections[0].provenance["lines"] == [[10.0, 10.0, 200.0, 30.0], [12.0, 34.0, 180.0, 54.0]]
    scaled = line_sections(lines[:1], page=1, max_words=50, scale=2.0, ocr=True)
    assert scaled[0].provenance["box"] == [5.0, 5.0, 100.0, 15.0]
    assert scaled[0].provenance["ocr"] is True


def test_oversized_images_scale_to_the_limit_and_boxes_map_back() -> None:
    assert scale_for(1000, 500, 4096) == 1.0
    assert scale_for(8192, 1000, 4096) == 0.5

    class Out:
        txts = ("hello", "  ", "faint")
        boxes = (
            [[10, 20], [110, 20], [110, 40], [10, 40]],
            [[0, 0], [1, 0], [1, 1], [0, 1]],
            [[0, 50], [10, 50], [10, 60], [0, 60]],
        )
        scores = (0.99, 0.99, 0.2)

    lines = _lines(Out(), factor=0.5, min_score=0.5)
    box = (20, 40, 220, 80)
    assert lines == [OcrLine("hello", box, 0.99, (OcrFragment("hello", box),))]


def passage(provenance: dict[str, object], path: str = "/x/jfk.flac") -> Passage:
    return Passage(1, 1, 1, path, "audio", provenance, 0.5, "text")


def test_labels_show_time_ranges_and_boxes() -> None:
    assert clock(0) == "0:00" and clock(11.0) == "0:11" and clock(3725.4) == "1:02:05"
    assert passage({"start": 0.0, "end": 11.0}).label == "jfk.flac, 0:00–0:11"
    box = {"page": 1, "box": [30.4, 84.0, 623.0, 364.2]}
    assert passage(box, "/x/scan.png").label == "scan.png, page 1, box (30, 84)–(623, 364)"
    assert passage({"page": 3}, "/x/a.pdf").label == "a.pdf, page 3"


def test_ocr_fragments_of_a_tilted_row_are_one_line_read_left_to_right() -> None:
    def quad(x0: float, y0: float, width: float, slope: float) -> list[list[float]]:
        return [[x0, y0], [x0 + width, y0 + slope * width],
                [x0 + width, y0 + slope * width + 20], [x0, y0 + 20]]  # fmt: skip

    slope = -0.05  # the right side higher, as a photo turned a little anticlockwise

    class Out:
        # Each price starts higher than its item: sorted by top edge, it came first.
        txts = ("1.85", "Oat milk 1L", "3.20", "Sourdough loaf")
        boxes = (
            quad(400, 30 + slope * 400, 60, slope),
            quad(20, 30 + slope * 20, 200, slope),
            quad(400, 80 + slope * 400, 60, slope),
            quad(20, 80 + slope * 20, 200, slope),
        )
        scores = (0.9, 0.95, 0.9, 0.95)

    lines = _lines(Out(), factor=1.0, min_score=0.5)
    assert [ln.text for ln in lines] == ["Oat milk 1L 1.85", "Sourdough loaf 3.20"]
    assert lines[0].score == 0.9 and lines[0].box[0] == 20 and lines[0].box[2] == 460


def test_a_label_names_the_speaker_only_when_the_recording_has_several_or_a_name() -> None:
    """jfk.flac's label stayed "jfk.flac, 0:00–0:11" once diarization recorded its one speaker."""
    span = {"start": 0.0, "end": 11.0}
    assert describe({**span, "speaker": 2, "speakers": 2}) == "Speaker 2, 0:00–0:11"
    assert describe({**span, "speaker": 1, "speakers": 1}) == "0:00–0:11"
    assert (
        describe({**span, "speaker": 1, "speakers": 1, "speaker_name": "JFK"}) == "JFK, 0:00–0:11"
    )
    assert describe({**span, "speaker": 1}) == "Speaker 1, 0:00–0:11"  # stored before the count


def test_word_runs_end_at_the_word_budget_or_where_cut_says() -> None:
    items = [Section(t) for t in ("one two", "three", "four five six seven", "STOP eight", "nine")]
    runs = word_runs(items, 3, lambda run, item: item.text.startswith("STOP"))
    assert [[i.text for i in run] for run in runs] == [
        ["one two", "three"],
        ["four five six seven"],  # longer than the budget: a run of its own
        ["STOP eight", "nine"],
    ]
    assert word_runs([], 3, lambda run, item: True) == []
