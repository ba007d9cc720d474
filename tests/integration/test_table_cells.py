"""A table cell is found by its row and column words (issue 21): tables in DOCX, XLSX and PDF go
through the real loaders, the bundled embedder and the catalogue's keyword index, and the passage
that reaches the model holds the asked row with its column headers, above the score cut."""

from __future__ import annotations

from pathlib import Path

import pytest

from core.embedder import Embedder
from core.knowledge import KnowledgeBase
from ingest.pipeline import IngestPipeline
from samples.tables import write_docx, write_pdf_table, write_xlsx
from service.answering.retrieval import Retriever, fit_passages

CASES = [
    ("staff.docx", write_docx, "Which office does Marcus Lindqvist work in?", "Marcus Lindqvist",
     "Office: Leeds"),
    # A short question about one row: its chunk's cosine (0.15) is under min_score, but the
    # passage holds the names asked about.
    ("staff.docx", write_docx, "What is Helen Okafor's role?", "Helen Okafor",
     "Role: Site manager"),
    ("prices.xlsx", write_xlsx, "What did a steel hinge cost in Q2 2026?", "Steel hinge",
     "Q2 2026: 3.25"),
    ("water.pdf", write_pdf_table, "What was the nitrate level of sample W-04?", "W-04",
     "Nitrate mg/L: 22.6"),
]  # fmt: skip


@pytest.mark.parametrize(("name", "write", "question", "row", "cell"), CASES)
def test_a_cell_is_retrieved_by_row_and_column_with_its_header(
    kb: KnowledgeBase,
    embedder: Embedder,
    tmp_path: Path,
    name: str,
    write: object,
    question: str,
    row: str,
    cell: str,
) -> None:
    path = tmp_path / name
    write(path)  # type: ignore[operator]
    assert not IngestPipeline(kb, embedder).ingest([path]).failures
    passages = Retriever(kb, embedder).retrieve(question)  # the default k and score cut
    assert passages, f"{name}: nothing passed the score cut for {question!r}"
    lines = [ln for p in passages[:2] for ln in p.text.splitlines() if row in ln]
    assert any(cell in ln for ln in lines), (name, [p.text for p in passages])


COMPANY = """<html><body><h1>Northwind Corporation</h1>
<table class="infobox"><tr><th>Company type</th><td>Public</td></tr>
<tr><th>Traded as</th><td>Nasdaq: NWND</td></tr>
<tr><th>ISIN</th><td>US0000000017</td></tr>
<tr><th>Industry</th><td>Wholesale trade</td></tr>
<tr><th>Founded</th><td>April 4, 1975</td></tr>
<tr><th>Headquarters</th><td>One Northwind Way, Seattle</td></tr>
<tr><th>Key people</th><td>Ana Trujillo (Chair), Thomas Hardy (Vice Chair)</td></tr>
<tr><th>Products</th><td>Beverages Condiments Confections Dairy products Grains Seafood</td></tr>
<tr><th>Revenue</th><td>US$ 211.9 million (2023)</td></tr>
<tr><th>Operating income</th><td>US$ 88.5 million (2023)</td></tr>
<tr><th>Total assets</th><td>US$ 411.9 million (2023)</td></tr>
<tr><th>Number of employees</th><td>2,210 (2023)</td></tr>
<tr><th>Subsidiaries</th><td>Exotic Liquids, Tokyo Traders, Pavlova Ltd, Karkki Oy</td></tr>
<tr><th>Website</th><td>northwind.example</td></tr></table>
{prose}
</body></html>"""
PROSE = [
    "In 2018, Northwind Corporation opened its first store in Boston and joined the Open "
    "Invention Network.",
    "In July 2012, Northwind Corporation sold its stake in a shipping venture it had run since "
    "1996.",
    "On August 23, 2012, Northwind Corporation unveiled a new logo at its largest store.",
    "In April 2018, Northwind Corporation released the source of its catalogue software.",
    "The logo history of Northwind Corporation runs from 1975 to the present day.",
    "In 2020, Northwind Corporation moved its warehouses to a new site near Seattle.",
    "Northwind is a trading company: investors know Northwind by its "
    "ticker, and the shares of Northwind trade on the Nasdaq.",
]


def test_a_table_row_the_question_names_is_kept_however_low_its_cosine(
    kb: KnowledgeBase, embedder: Embedder, tmp_path: Path
) -> None:
    """bench/heldout.py dev half (h213), "What is Microsoft's ISIN?": the infobox holding the
    "ISIN" row was the keyword search's first chunk, but its cosine (0.39) fell under the margin
    set by prose naming the company (0.58), and fitting then preferred prose sentences to the
    row. The keyword search's first chunk is kept when it is a table with a row the question
    names by a value, and fitting keeps that row."""
    path = tmp_path / "company-profile.html"
    prose = "".join(f"<h2>Part {i}</h2><p>{p * 6}</p>" for i, p in enumerate(PROSE))
    path.write_text(COMPANY.format(prose=prose))
    assert not IngestPipeline(kb, embedder).ingest([path]).failures
    question = "What is Northwind's ISIN?"
    passages = Retriever(kb, embedder).retrieve(question)
    rows = [p for p in passages if "ISIN" in p.text]
    assert rows, [p.text[:80] for p in passages]
    # an infobox's rows are key and value, not columns named by its first row ("Company type:
    # ISIN | Public: US0000000017" was answered "ISIN [2]" on held-out dev h213)
    assert "Field: ISIN | Value: US0000000017" in rows[0].text, rows[0].text
    words = sum(len(p.text.split()) for p in passages)
    fitted = fit_passages(question, passages, embedder, lambda t: len(t.split()), words // 3)
    assert any("US0000000017" in p.text for p in fitted), [p.text for p in fitted]


HANDBOOK = Path(__file__).parent / "data" / "handbook-disbursements.txt"


def test_a_chunk_holding_every_word_of_the_question_is_kept_however_low_its_cosine(
    kb: KnowledgeBase, embedder: Embedder, tmp_path: Path
) -> None:
    """bench/heldout.py dev half (h199), "Within how many days must stale outstanding checks be
    canceled and reissued?": the handbook says so word for word ("Stale outstanding checks must
    be canceled and reissued within 120 days.") inside a long chunk on disbursements, the keyword
    search's first; its cosine fell under the margin set by passages on voided and returned
    checks. A chunk holding every word of the question is kept like a row named by a value.
    (The file: pages of the US DOJ Handbook for Chapter 13 Standing Trustees, a US government
    work, as the held-out set's handbook-872p.docx reads.)"""
    path = tmp_path / "handbook.txt"
    path.write_text(HANDBOOK.read_text())
    assert not IngestPipeline(kb, embedder).ingest([path]).failures
    question = "Within how many days must stale outstanding checks be canceled and reissued?"
    passages = Retriever(kb, embedder).retrieve(question)
    assert any("reissued within 120 days" in p.text for p in passages), [
        (p.score, p.text[:60]) for p in passages
    ]
    # ... and fitting keeps its best sentence, however many passages share the budget (dev h199
    # was found, then cut out of the 144 tokens the model is given)
    kept = [p for p in passages if "reissued within 120 days" in p.text]
    assert all(p.kept for p in kept)
    words = sum(len(p.text.split()) for p in passages)
    fitted = fit_passages(question, passages, embedder, lambda t: len(t.split()), words // 6)
    assert any("reissued within 120 days" in p.text for p in fitted), [p.text for p in fitted]


#: Countries of a wide monthly table, each column named by a code, a country and a long text.
WIDE_COUNTRIES = [
    "Austria", "Belgium", "Croatia", "Denmark", "Estonia", "Finland", "Hungary", "Iceland",
    "Norway", "Poland", "Portugal", "Slovenia", "Sweden", "Turkey",
]  # fmt: skip
MONTHS = ["JAN", "FEB", "MAR", "APR", "MAY", "JUN", "JUL", "AUG", "SEP", "OCT", "NOV", "DEC"]


def _wide_monthly_csv() -> str:
    """A statistics office's monthly CSV, shaped like the held-out set's bond yields (issue 35):
    a title, a frequency line, rows of series codes and descriptions above the real header (the
    first column's labels "Series:", "Description:"), then one row per month ("MAR-2011") with a
    long-named cell per country: a row of ~2,000 characters, cut into several chunks."""
    codes = [f"MRT.M.{c[:2].upper()}.CONV.10Y.{i:02d}" for i, c in enumerate(WIDE_COUNTRIES)]
    about = [
        f'"{c}, average rate on new mortgages for households - fixed for ten years or more, '
        f'all lenders reporting to the central bank"'
        for c in WIDE_COUNTRIES
    ]
    lines = [
        "",
        "Average mortgage rates for households, convergence panel",
        "Frequency: MONTHLY Data",
        "Series:," + ",".join(codes),
        "Description:," + ",".join(about),
        "Units:," + ",".join(["PERCENT"] * len(codes)),
        "DATE," + ",".join(f"S{i:02d}" for i in range(len(codes))),
    ]
    for year in (2010, 2011, 2012):
        for m, month in enumerate(MONTHS):
            cells = [f"{2 + (i * 37 + m * 11 + year) % 700 / 100:.2f}" for i in range(len(codes))]
            lines.append(f"{month}-{year}," + ",".join(cells))
    return "\r\n".join(lines) + "\r\n"


def test_a_wide_rows_piece_holding_the_asked_column_is_retrieved(
    kb: KnowledgeBase, embedder: Embedder, tmp_path: Path
) -> None:
    """bench/heldout.py dev half (h908), "What long-term interest rate is listed for Ireland for
    July 2012?": the month's row of 26 countries was cut into eight chunks; the keyword search
    ranked first every "JUL" row's first chunk (it holds the title's words), and the one holding
    Ireland's cell was in no passage. The row's label written under stacked header labels
    ("Units: Description: Name: DATE: JUL-2012") did not read as the asked month either. The
    row's piece holding the asked column now comes right after the piece found, and "July"
    finds the keyword index's "JUL"."""
    path = tmp_path / "mortgage-rates.csv"
    path.write_text(_wide_monthly_csv())
    assert not IngestPipeline(kb, embedder).ingest([path]).failures
    row = next(ln for ln in _wide_monthly_csv().splitlines() if ln.startswith("MAR-2011,"))
    rate = row.split(",")[1 + WIDE_COUNTRIES.index("Portugal")]
    question = "What mortgage rate is listed for Portugal for March 2011?"
    passages = Retriever(kb, embedder).retrieve(question)
    held = [p for p in passages if "MAR-2011" in p.text and "Portugal" in p.text]
    assert held, [p.text[:120] for p in passages]
    assert any(f": {rate}" in p.text for p in held), [p.text for p in held]
    assert all(p.kept for p in held)
