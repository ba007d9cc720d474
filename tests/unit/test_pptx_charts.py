"""A chart's numbers live only in its data (issue 35, item 4): they are read as table rows."""

from __future__ import annotations

from pathlib import Path

from pptx import Presentation
from pptx.chart.data import CategoryChartData
from pptx.enum.chart import XL_CHART_TYPE
from pptx.util import Inches

from ingest.loaders.pptx import PptxLoader

C = "{http://schemas.openxmlformats.org/drawingml/2006/chart}"


def _deck(path: Path, kind: XL_CHART_TYPE, three_d: bool = False) -> None:
    deck = Presentation()
    slide = deck.slides.add_slide(deck.slide_layouts[5])
    assert slide.shapes.title is not None
    slide.shapes.title.text = "Visitors"
    data = CategoryChartData()  # type: ignore[no-untyped-call]
    data.categories = ["2021", "2022", "2023"]
    data.add_series("Museum", (1250.0, 1375.0, 1410.5))  # type: ignore[no-untyped-call]
    data.add_series("Garden", (800.0, 950.0, 990.0))  # type: ignore[no-untyped-call]
    frame = slide.shapes.add_chart(kind, Inches(1), Inches(1), Inches(6), Inches(4), data)
    frame.chart.has_title = True
    frame.chart.chart_title.text_frame.text = "Visitors by year"
    if three_d:  # python-pptx writes no 3-D chart; the same series under a bar3DChart element
        plot = frame.chart._chartSpace.find(f".//{C}barChart")
        assert plot is not None
        plot.tag = f"{C}bar3DChart"
    deck.save(str(path))


def test_a_column_chart_is_read_as_rows(tmp_path: Path) -> None:
    path = tmp_path / "visitors.pptx"
    _deck(path, XL_CHART_TYPE.COLUMN_CLUSTERED)
    text = PptxLoader().load(path)[0].text
    # before: only the slide title, no number of the chart
    assert "Series: Museum | 2021: 1250 | 2022: 1375 | 2023: 1410.5" in text
    assert "Series: Garden | 2021: 800 | 2022: 950 | 2023: 990" in text
    assert "Chart: Visitors by year" in text


def test_a_3d_chart_python_pptx_cannot_plot_is_read_too(tmp_path: Path) -> None:
    path = tmp_path / "visitors3d.pptx"
    _deck(path, XL_CHART_TYPE.COLUMN_CLUSTERED, three_d=True)
    assert "Series: Garden | 2021: 800" in PptxLoader().load(path)[0].text


def test_a_charts_values_are_shown_as_its_labels_show_them(tmp_path: Path) -> None:
    """Held-out batch 5 (Open-XML-SDK's O12Typical.pptx, dev h532): a poll's pie chart stores
    0.5900000000000003 and labels it "59%" (its data labels' number format "0%"); it was read
    as "Disapprove: 0.5900000000000003". Values now read as the chart shows them."""
    deck = Presentation()
    slide = deck.slides.add_slide(deck.slide_layouts[5])
    data = CategoryChartData()  # type: ignore[no-untyped-call]
    data.categories = ["Approve", "Disapprove", "Neutral"]
    data.add_series("Poll", (0.37000000000000016, 0.5900000000000003, 0.04))  # type: ignore[no-untyped-call]
    frame = slide.shapes.add_chart(
        XL_CHART_TYPE.PIE, Inches(1), Inches(1), Inches(6), Inches(4), data
    )
    labels = frame.chart.plots[0].series[0].data_labels  # the series' own, as in O12Typical
    labels.number_format, labels.number_format_is_linked = "0%", False
    path = tmp_path / "poll.pptx"
    deck.save(str(path))
    text = PptxLoader().load(path)[0].text
    assert "Series: Poll | Approve: 37% | Disapprove: 59% | Neutral: 4%" in text, text
