"""Issue 35, item 4: a PDF table without ruling lines (a paper's model-zoo table with a long
"Notes" column) is found from its words' columns and written as rows with their headers, its
caption on the line before; prose PDFs, and layouts whose cells do not stand in columns, are
left as they were. Real files through the loader (bench/heldout/files)."""

from __future__ import annotations

from pathlib import Path

from ingest.loaders import loader_for
from ingest.loaders.hyphens import join_hyphenated, vocabulary
from ingest.loaders.pdf_tables import layout_with_tables

FILES = Path(__file__).resolve().parents[2] / "bench" / "heldout" / "files"


def _text(name: str) -> str:
    path = FILES / name
    return "\n".join(s.text for s in loader_for(path).load(path))


def test_a_table_without_rules_becomes_rows_with_headers_and_its_caption() -> None:
    lines = _text("layout-parser-paper-with-table.pdf").splitlines()
    row = (
        "Dataset: Newspaper [17] | Base Model1: F | Large Model: - | Notes: Layouts of scanned "
        "US newspapers from the 20th century"
    )
    assert row in lines, lines
    assert "Dataset: TableBank [18] | Base Model1: F | Large Model: F" in "\n".join(lines)
    caption = lines.index("Dataset | Base Model1 | Large Model | Notes") - 1
    assert lines[caption].startswith("Table 1: Current layout detection models"), lines


def test_a_prose_pdf_is_read_as_before() -> None:
    from pypdf import PdfReader

    for name in ("fake-memo.pdf", "DA-1p.pdf", "fr_olap.pdf"):  # a memo, a form, a paper
        pages = [(p.extract_text() or "").strip() for p in PdfReader(FILES / name).pages]
        words = vocabulary(pages)  # as pypdf writes it, words broken at a line's end whole
        plain = "\n".join(join_hyphenated(page, words) for page in pages)
        assert _text(name) == plain, name


def test_a_wide_table_keeps_blank_cells_blank_and_its_group_labels() -> None:
    """The NICS table: 25 columns under six group labels, the two Rentals columns blank in
    most rows, cells drawn without a space between them; every state's row keeps its cells
    under their own columns (pypdf's layout text ran them together from Florida on)."""
    lines = _text("nics-background-checks-2015-11.pdf").splitlines()
    rows = {ln.split(" | ")[0]: ln for ln in lines if ln.startswith("State / Territory: ")}
    assert len(rows) >= 56, sorted(rows)
    kentucky = rows["State / Territory: Kentucky"]
    assert kentucky.startswith("State / Territory: Kentucky | Permit: 264,140 | Handgun: 12,155")
    assert "| Long Gun: 12,425 |" in rows["State / Territory: Washington"]
    guam = rows["State / Territory: Guam"]  # "3" and "0" drawn as "30"
    assert "| **Multiple: 3 | Admin: 0 |" in guam, guam
    alabama = rows["State / Territory: Alabama"]
    assert "| Handgun, Pre-Pawn: 14 | Long Gun, Pre-Pawn: 15 |" in alabama
    assert "Rentals" not in alabama  # blank there
    california = rows["State / Territory: California"]
    assert "California | Permit: 98 452 | Handgun: 41 181 |" in california


def test_a_header_of_two_lines_and_cells_spanning_two_rows() -> None:
    """A paper's table with no rules: its header on two lines ("# / enc-layers"), its first
    columns written once for each pair of rows."""
    lines = _text("2305.03393v1-pg9.pdf").splitlines()
    assert (
        "# enc-layers: 4 | # dec-layers: 2 | Language: HTML | simple: 0.944 | TEDs complex: "
        "0.903 | all: 0.931 | mAP (0.75): 0.824 | Inference time (secs): 2"
    ) in lines, lines
    caption = next(i for i, ln in enumerate(lines) if ln.startswith("Table 1. HPO"))
    assert lines[caption + 1].startswith("# enc-layers | # dec-layers | Language"), lines


def test_a_two_column_page_with_a_table_keeps_its_columns_in_order() -> None:
    """The page's text outside the table stays in the order the page writes it: a column's
    lines follow each other, not the line beside them in the other column."""
    text = _text("multi-column.pdf")
    assert (
        "see that higher retriever accuracy typically leads to\n"
        "better final QA results: in all cases except SQuAD,\n"
        "answers extracted from the passages retrieved by"
    ) in text
    assert "Training: Single | Model: ORQA (Lee et al., 2019) | NQ: 33.3 | TriviaQA: 45.0" in text


def test_text_boxes_side_by_side_are_not_a_table() -> None:
    """A cover page's quotation, figures and page references line up by chance."""
    lines = _text("reliance.pdf").splitlines()
    assert not [ln for ln in lines if "I would like the story of" in ln and " | " in ln]
    assert not [ln for ln in _text("a1977-backus-p21.pdf").splitlines() if " | " in ln]


def test_a_long_last_column_needs_its_cells_under_their_columns() -> None:
    table = (
        "Name        Kind     Notes\n"
        "Ash         tree     Grows in damp woods across most of northern Europe\n"
        "Heather     shrub    Flowers on open moorland in late summer and autumn\n"
    )
    text = layout_with_tables(table) or ""
    assert "Name: Ash | Kind: tree | Notes: Grows in damp woods across most of" in text, text
    drifting = (
        "Name        Kind     Notes\n"
        "   a long run of prose words      then some more    and a much longer tail of prose here\n"
        "Heather          shrub                Flowers on open moorland in late summer\n"
    )
    assert layout_with_tables(drifting) is None
    two_columns = "Ash     Grows in damp woods across most of northern Europe and beyond\n" * 3
    assert layout_with_tables(two_columns) is None  # a long cell needs three columns or more


def test_a_first_row_of_values_is_never_the_header() -> None:
    """Held-out batch 4 (dev): health.pdf's state table (layout text) has a header of four
    lines, its top line's labels ("Revenue", "Capital") each centred over two columns; it was
    read with Andhra Pradesh's row as the names ("Andhra Pradesh: Kerala | 47,824,589:
    27,923,965")."""
    lines = _text("health.pdf").splitlines()
    kerala = next(ln for ln in lines if "Kerala" in ln)
    assert kerala.startswith(
        "States-A: Kerala | Medical & Public Health, Revenue: 27,923,965 | Family Welfare, "
        "Revenue: 3,985,473 | Medical & Public Health, Capital: 929,503 | Family Welfare, "
        "Capital: 0 | Revenue & Capital, Total: 32,838,941 | Others(1): 334,640 | Total: 33,173,581"
    ), kerala
    assert not [ln for ln in lines if "Andhra Pradesh: " in ln]
    values = "Ash     4,120     17\nElm     3,005     12\nOak     2,980     30\n"
    assert layout_with_tables(values) == "Ash | 4,120 | 17\nElm | 3,005 | 12\nOak | 2,980 | 30"


def test_group_labels_over_two_columns_years_and_missing_values() -> None:
    """eu-004.pdf (drawn words): "1996" and "1991" each over two columns of a header on four
    lines; "1993 1994 1993 1994" under "number of franchisors / franchisees"; rows of "n.a."
    and ".." are rows of values, not names (Greece's row had named every column)."""
    lines = _text("eu-004.pdf").splitlines()
    germany = next(ln for ln in lines if ln.startswith("Germany | % of national"))
    assert "| no. of stores, 1996: 12130 |" in germany and "no. of stores, 1991: 8290" in germany
    assert "Greece | % of national turnover, 1996: n.a. |" in "\n".join(lines)
    uk = next(ln for ln in lines if ln.startswith("UK | 1993, number of franchisors"))
    assert uk.endswith("| 1994, number of franchisees: 24900"), uk


def test_a_header_row_continued_below_and_named_above() -> None:
    """foo.pdf: "Eliminate" over "Stops" (a header row going on in the row under it) and
    "Cycle" over "Name" (a line above naming some columns)."""
    lines = _text("foo.pdf").splitlines()
    assert (
        "Cycle Name: 2012_2 | KI (1/km): 3.30 | Distance (mi): 1.3 | Improved Speed: 5.9% | "
        "Decreased Accel: 9.5% | Eliminate Stops: 29.2% | Decreased Idle: 17.4%"
    ) in lines, lines


def test_dot_leaders_and_row_names_on_two_lines() -> None:
    """12s0324.pdf (Statistical Abstract): rows "Robbery . . . . 102.1 25.5 ..." with dot
    leaders, names wrapped onto two lines ("Murder and nonnegligent / manslaughter"), a header
    of three lines with "Under 18 years" (a name holding a number); a table of contents' dot
    leaders stay as drawn."""
    lines = _text("12s0324.pdf").splitlines()
    assert (
        "Offense charged: Robbery | Total: 102.1 | Total Under 18 years: 25.5 | 18 years and "
        "over: 76.6 | Total: 90.0 | Male Under 18 years: 22.9 | 18 years and over: 67.1 | "
        "Total: 12.1 | Female Under 18 years: 2.5 | 18 years and over: 9.5"
    ) in lines, lines
    assert (
        "Offense charged: Murder and nonnegligent manslaughter | Total: 9,739 | White: 4,741"
        in ("\n".join(lines))
    )
    assert "Asian Pacific Islander: 989" in next(
        ln for ln in lines if ": Robbery | Total: 100,496" in ln
    )
    contents = _text("redp5110_sampled.pdf")
    assert "Notices | vii" not in contents and "Preface  . . . ." in contents


def test_row_names_wrapped_over_lines_and_years_over_column_pairs() -> None:
    """Held-out batch 5 (tabula-java's puertos1.pdf): row names written on two to four lines
    with the values on the last ("Productos primarios" over "pesqueros | 663 | 2.5% | ...";
    "0302 | Pescado fresco" over "o refrigerado." over "exc. filetes | 7.704 | ..."), and a
    line of years each over a pair of columns (Mill. u$s, Part.): the tables were plain text,
    every year's figures in one run. A table's title ("2001-07") far left of the first year is
    no part of a row name."""
    lines = _text("puertos1.pdf").splitlines()
    total = next(ln for ln in lines if ln.startswith("Clasificación: Exportaciones totales"))
    assert total.startswith(
        "Clasificación: Exportaciones totales pesqueras | Mill., 2001: 895 | Part., 2001: 3.4%"
    ), total
    assert "| Mill., 2006: 1,249 | Part., 2006: 2.7% |" in total
    wrapped = next(ln for ln in lines if ln.startswith("Partida: 0302 |"))
    assert wrapped.startswith(
        "Partida: 0302 | Descripción: Pescado fresco o refrigerado. exc. filetes | "
        "TM, 2001: 7.704 | M.U$S, 2001: 7.175"
    ), wrapped
    coded = next(ln for ln in lines if ln.startswith("Partida: 0511.91 |"))
    assert "Descripción: Prod. no exp. en otros capítulos. No apto p/c humano | TM" in coded
