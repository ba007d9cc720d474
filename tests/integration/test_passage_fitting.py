"""Passages fitted to a token budget with the real embedder: the answer's sentence kept on the
shared SQuAD set, identical passages merged with every file cited."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

import pytest

from core.embedder import Embedder
from core.evalmetrics import normalize_answer
from ingest.loaders.tables import cell_text, row_line
from samples.tables import PRICES
from service.answering.retrieval import (
    GAP,
    Passage,
    fit_passages,
    merge_identical,
    narrow_row,
    split_sentences,
)

pytestmark = pytest.mark.embedded_only(
    "passage fitting is the subject; test_congruence and test_rag cover retrieval over "
    "these backends: one pass"
)

#: Questions of the shared set measured (spread over it) and the budget per passage.
SAMPLE = 120
BUDGET = 64
#: A passage on nothing the tests ask about.
BREAD = (
    "Bread rises because yeast makes gas. Flour holds the gas in gluten. "
    "Salt slows the yeast. Ovens bake at 230 degrees. Crusts brown by the Maillard reaction."
)


def _counter(embedder: Embedder) -> Callable[[str], int]:
    """The embedder's token count of one text (the budget's unit in these tests)."""
    return lambda text: embedder.count_tokens([text])[0]


def _fitted_alone(embedder: Embedder, question: str, text: str, budget: int) -> str:
    """``text`` as one passage fitted to ``budget`` tokens for ``question``."""
    fitted = fit_passages(
        question, [_passage(1, "a.txt", text)], embedder, _counter(embedder), budget
    )
    return fitted[0].text


def _passage(n: int, path: str, text: str, provenance: dict[str, object] | None = None) -> Passage:
    return Passage(n, n, n, path, "text", provenance or {"page": 2}, 0.9 - n / 100, text)


def test_sentence_selection_keeps_the_answer_sentence_on_the_shared_qa_set(
    shared_data: Path, embedder: Embedder
) -> None:
    rows = [
        json.loads(line)
        for line in (shared_data / "qa" / "squad2_dev_answerable.jsonl").read_text().splitlines()
    ]
    step = len(rows) / SAMPLE
    picked = [rows[int(i * step)] for i in range(SAMPLE)]
    count = _counter(embedder)
    cut = kept = 0
    for row in picked:
        context, answers = row["context"], row["answers"]
        sentences = split_sentences(context)
        holding = [s for s in sentences if any(a in s for a in answers)]
        if not holding or len(sentences) < 2 or count(context) <= BUDGET:
            continue  # answer across sentences, or nothing to cut
        fitted = fit_passages(
            row["question"], [_passage(1, "a.txt", context)], embedder, count, BUDGET
        )
        assert len(fitted) == 1 and fitted[0].provenance == {"page": 2}
        assert fitted[0].path == "a.txt" and fitted[0].number == 1
        text = fitted[0].text
        assert len(text) < len(context)
        cut += 1
        kept += any(normalize_answer(a) in normalize_answer(text) for a in answers)
    share = kept / cut
    print(f"answer kept in {kept}/{cut} cut passages ({share:.1%}) at {BUDGET} tokens")
    assert cut >= SAMPLE // 2
    assert share >= 0.8


def test_budget_spans_passages_and_keeps_order_labels_and_gaps(embedder: Embedder) -> None:
    first = (
        "The lighthouse stands on the north cape. It was built of granite in 1852. "
        "Its lamp burned whale oil until 1880. Visitors climb 140 steps to the gallery. "
        "The keeper's cottage is now a museum. Gulls nest on the rocks below."
    )
    count = _counter(embedder)
    passages = [_passage(1, "light.pdf", first), _passage(2, "bread.txt", BREAD)]
    fitted = fit_passages("When was the lighthouse built?", passages, embedder, count, 30)
    assert fitted[0].path == "light.pdf" and "1852" in fitted[0].text
    assert sum(count(p.text.replace(GAP.strip(), "")) for p in fitted) <= 30 + 4
    assert fitted[0].text.endswith(GAP.strip())  # later sentences were left out
    assert fitted[0].whole == first  # the whole chunk stays at hand for the grounding check
    assert [p.number for p in fitted] == list(range(1, len(fitted) + 1))
    assert fit_passages("q", passages, embedder, count, 0) == passages  # 0: unchanged


def test_tables_are_kept_whole(embedder: Embedder) -> None:
    table = "Item | Price\nApples | 3\nPears | 4\nPlums | 5\n" * 6
    passage = Passage(1, 1, 1, "prices.xlsx", "xlsx", {"sheet": "S", "rows": "1-25"}, 0.9, table)
    count = _counter(embedder)
    fitted = fit_passages("price of pears", [passage], embedder, count, 20)
    assert fitted[0].text == table  # the best passage is never dropped, a table never cut


def test_table_rows_that_name_their_columns_are_chosen_row_by_row(embedder: Embedder) -> None:
    # Seen on the hard set: two sheet chunks did not fit the budget whole, so the second, which
    # held the brass hinge row, was dropped and the 1.5B said it did not know.
    header = list(PRICES[0])
    rows = [row_line(header, [cell_text(c) for c in r]) for r in PRICES[1:7]]
    rows = rows[3:] + rows[:3]  # the brass hinge row (PRICES' first) in the second chunk
    head = "Prices (rows {})\n" + " | ".join(header) + "\n"
    sheet = {"sheet": "Prices"}
    passages = [
        Passage(1, 1, 1, "p.xlsx", "xlsx", {**sheet, "rows": "7-9"}, 0.51,
                head.format("7-9") + "\n".join(rows[:3])),
        Passage(2, 2, 1, "p.xlsx", "xlsx", {**sheet, "rows": "2-4"}, 0.50,
                head.format("2-4") + "\n".join(rows[3:])),
    ]  # fmt: skip
    count = _counter(embedder)
    budget = count(passages[0].text) + 10  # the first sheet chunk whole would leave no room
    question = "What was the Q2 2026 price of the brass hinge?"
    fitted = fit_passages(question, passages, embedder, count, budget)
    lines = [ln for p in fitted for ln in p.text.splitlines()]
    assert rows[3] in lines, [p.text for p in fitted]  # the asked row, whole, on its own line
    assert all(p.provenance["rows"] in ("7-9", "2-4") for p in fitted)


def test_identical_passages_are_given_once_and_cite_both_files() -> None:
    text = "The archive moved to Reykjavik in 2031.\nIt holds 4,000 maps."
    a = _passage(1, "/docs/archive.txt", text)
    other = _passage(2, "/docs/other.txt", "Something else entirely.")
    b = _passage(
        3,
        "/inbox/archive copy.txt",
        "The archive moved  to Reykjavik in 2031. It holds 4,000 maps.",
    )
    merged = merge_identical([a, other, b])
    assert [p.number for p in merged] == [1, 2]
    assert merged[0].path == "/docs/archive.txt"
    assert [c.path for c in merged[0].copies] == ["/inbox/archive copy.txt"]
    assert (
        "archive.txt, page 2" in merged[0].label and "archive copy.txt, page 2" in merged[0].label
    )
    cited = merged[0].as_dict()
    assert {cited["path"], *(c["path"] for c in cited["copies"])} == {
        "/docs/archive.txt",
        "/inbox/archive copy.txt",
    }
    # The same chunk found twice in one file is not a copy.
    assert merge_identical([a, a])[0].copies == ()


def test_the_sentence_after_the_match_and_the_heading_are_kept(embedder: Embedder) -> None:
    # squad_dev's Louisbourg paragraph: the question's words are in one sentence, the answer in
    # the next ("Faced with this strength, ..."); the title line must not take the best slot.
    # By its own score the answer stays out at any budget short of the whole passage.
    text = (
        "French and Indian War\n"
        "Loudoun planned one major operation for 1757: an attack on New France's capital, "
        "Quebec. Leaving a sizable force at Fort William Henry to distract Montcalm, he began "
        "organizing for the expedition to Quebec. He was then ordered by William Pitt to attack "
        "Louisbourg first. Beset by delays of all kinds, the expedition was finally ready to sail "
        "from Halifax in early August. In the meantime French ships had escaped the British "
        "blockade, and a fleet outnumbering the British one awaited Loudoun at Louisbourg. "
        "Faced with this strength, Loudoun returned to New York amid news that a massacre had "
        "occurred at Fort William Henry."
    )
    question = "Given the strength of French forces at Louisbourg, what did Loudoun do?"
    fitted = _fitted_alone(embedder, question, text, 90)
    assert "returned to New York" in fitted, fitted
    assert fitted.startswith("French and Indian War"), fitted


def test_the_year_asked_about_wins_over_a_closer_paraphrase(embedder: Embedder) -> None:
    # norwich-city.txt, wrapped lines as the file has them: "in 1990" is the question's rarest
    # word; by meaning alone a sentence about another move scored higher.
    text = (
        "His footballing career started at Watford as a trainee before signing his first "
        "professional\ncontract with the club in 1986. He moved to Huddersfield Town in 1990 "
        "where he remained\nfor three seasons before transferring to Leicester City. Roberts "
        "signed for Wolverhampton\nWanderers after three further seasons, but stayed for a "
        "single campaign before transferring\nto Norwich City, where he spent seven years."
    )
    assert "He moved to Huddersfield Town in 1990 where he remained for three seasons before " \
        "transferring to Leicester City." in split_sentences(text)  # fmt: skip
    count = _counter(embedder)
    question = "Which club did Iwan Roberts join in 1990?"
    fitted = fit_passages(question, [_passage(1, "norwich-city.txt", text)], embedder, count, 30)
    assert "Huddersfield Town in 1990" in fitted[0].text, fitted[0].text


def test_a_weak_passage_gives_way_to_a_strong_one(embedder: Embedder) -> None:
    strong = (
        "It was shown by Ladner that if P is not NP then there exist problems in NP that are "
        "neither in P nor NP-complete. Such problems are called NP-intermediate problems. The "
        "graph isomorphism problem and integer factorization are believed to be NP-intermediate."
    )
    count = _counter(embedder)
    passages = [_passage(1, "np.txt", strong), _passage(2, "bread.txt", BREAD)]
    question = "What is the name for a problem that meets Ladner's assertion?"
    budget = count(strong) - 5
    fitted = fit_passages(question, passages, embedder, count, budget)
    assert [p.path for p in fitted] == ["np.txt"]  # bread had no sentence worth the room
    assert "NP-intermediate problems" in fitted[0].text


def test_a_named_documents_passage_keeps_its_best_sentence(embedder: Embedder) -> None:
    """A held-out dev fault (issue 35): "How many days after the delivery was the memo dated?"
    The memo (named by the question) came second behind two long handbook passages that took
    the whole budget, so the model never saw its date; and its PDF text wraps "January 23,\\n
    2023." mid-sentence."""
    memo = (
        "May 5, 2023\nTo Whom it May Concern:\nThere were 20,000 bottles of water, 10,000 "
        "blankets, and 200 laptops delivered on January 23,\n2023. A total of 3 trucks were used "
        "for 15 hours.\nBest Regards,\nMallori"
    )
    assert any(s.endswith("delivered on January 23, 2023.") for s in split_sentences(memo))
    strong = (
        "It was shown by Ladner that if P is not NP then there exist problems in NP that are "
        "neither in P nor NP-complete. Such problems are called NP-intermediate problems. The "
        "graph isomorphism problem and integer factorization are believed to be NP-intermediate."
    )
    count = _counter(embedder)
    question = "What is the name for a problem that meets Ladner's assertion?"
    passages = [_passage(1, "np.txt", strong), _passage(2, "memo.pdf", memo)]
    budget = count(strong)  # the strong passage takes it all
    assert [p.path for p in fit_passages(question, passages, embedder, count, budget)] == ["np.txt"]
    passages[1] = replace(passages[1], named=True)
    fitted = fit_passages(question, passages, embedder, count, budget)
    assert [p.path for p in fitted] == ["np.txt", "memo.pdf"]
    assert fitted[1].whole == memo  # the review reads the whole chunk (dates for arithmetic)


def test_a_wide_row_keeps_its_label_and_the_cells_the_question_names(embedder: Embedder) -> None:
    """Held-out dev h171 (enron.xlsx, a column per month): the sheet's "Current" row, fused
    first, took the whole budget and the "10-Day High" row, ranked second, was left out."""
    months = [f"{m} {y}" for y in (2002, 2003) for m in ("January", "February", "March",
              "April", "May", "June", "July", "August", "September", "October", "November",
              "December")]  # fmt: skip

    def row(label: str, base: float) -> str:
        cells = [f"{m}: {base + i / 100:.3f}" for i, m in enumerate(months)]
        return " | ".join([f"NYMEX Month: {label}", *cells])

    title = "Enron North America - West Gas: November 9, 2001"
    passages = [
        Passage(1, 1, 1, "e.xlsx", "xlsx", {"sheet": "Report", "rows": "2"}, 0.66,
                f"{title} | {row('Current', 3.132)}"),
        Passage(2, 2, 1, "e.xlsx", "xlsx", {"sheet": "Report", "rows": "4"}, 0.73,
                row("10-Day High", 3.464)),
    ]  # fmt: skip
    count = _counter(embedder)
    budget = 144
    assert count(passages[0].text) > budget  # one row alone is over the budget
    question = "What was the NYMEX 10-Day High for January 2002 in the West Gas spreadsheet?"
    fitted = fit_passages(question, passages, embedder, count, budget)
    assert [p.number for p in fitted] == [1, 2] and [p.path for p in fitted] == ["e.xlsx"] * 2
    high = fitted[1].text
    assert high == "NYMEX Month: 10-Day High | January 2002: 3.464 | …", high
    assert "February 2002" not in high and fitted[1].whole == passages[1].text
    assert "NYMEX Month: Current" in fitted[0].text and title in fitted[0].text
    assert sum(count(p.text) for p in fitted) <= budget
    # the cell the question asks for by its header, and the one it names by its value (dev h018)
    customer = (
        "Index: 3 | Customer Id: 6F94879bDAfE5a6 | First Name: Roy | Last Name: Berry | "
        "Company: Murillo-Perry | City: Isabelborough | Country: Antigua and Barbuda | "
        "Phone 1: +1-539-402-0259"
    )
    assert narrow_row(customer, "In which city is the customer who works for Murillo-Perry?") == (
        "Index: 3 | Customer Id: 6F94879bDAfE5a6 | First Name: Roy | … | "
        "Company: Murillo-Perry | City: Isabelborough | …"
    )
    # no cell past the label names anything asked: the row as it is
    plain = "Office: Leeds | Start year: 2019 | Staff: 12"
    assert narrow_row(plain, "Who founded the company?") == plain
    # a year the question asks about names its column though another header holds more of
    # its words (batch 8 dev h810: a 10-K's table, its header row read into the cells)
    riders = (
        "Three Months Ended December 31 | 2021: 18,728 | 2020 (in thousands,: 12,552 | Active "
        "Riders 2019 except for dollar amounts: 22,905 | 2019 to 2020 % Change: (45.2)%"
    )
    asked = "How many Active Riders did Lyft have in the three months ended December 31, 2021?"
    assert "2021: 18,728" in narrow_row(riders, asked), narrow_row(riders, asked)
    assert "2021: 18,728" not in narrow_row(riders, asked.replace("2021", "2019"))


BILL = (
    "Bill no. 3139\nItem Description Amount Individual price Total\n1 Garden work 28 Std. CHF "
    "120.00 CHF 3'360.00\n2 Disposal of cuttings CHF 307.35 CHF 307.35\nsum CHF 3'667.35\nVAT "
    "rate 7.7 %\nVAT amount CHF 282.40\nBill amount CHF 3`949.75\nThank you for the assignment. "
    "Please pay the bill amount within 30 days.\nYours sincerely,\nRobert Schneider"
)


def test_a_figure_after_an_abbreviation_stays_in_its_sentence(embedder: Embedder) -> None:
    """Held-out dev h106 (the OCR of qr_bill_example.jpg): "Bill no." and "3139" were split as
    two sentences, neither holding "bill" and "number" with the figure, so fitting kept the
    bill's amount and the 1.5B gave 3949.75 as "the bill number"."""
    assert split_sentences(BILL)[0] == "Bill no. 3139"
    assert split_sentences("I said no. Then he left.") == ["I said no.", "Then he left."]
    count = _counter(embedder)
    question = "What is the bill number on Robert Schneider's bill?"
    fitted = fit_passages(question, [_passage(1, "bill.jpg", BILL)], embedder, count, 30)
    assert "3139" in fitted[0].text, fitted[0].text


def test_a_line_under_a_label_line_is_scored_with_it(embedder: Embedder) -> None:
    """Held-out batch 4 dev h428: "what revenue target is set for 2025?" lost "Revenue Target:
    $12M" (under the line "2025 Objectives") to "Q1 2025: ... ($5M target)"; a line is now
    scored after the short label line above it, which comes along when it is taken."""
    report = (
        "Strategic Initiatives\n2025 Objectives\nRevenue Target: $12M (400% growth)\n"
        "Market Expansion: Enter European and Asian markets\nProduct Portfolio: Launch 4 new "
        "products\nTeam Growth: Scale to 150 employees\nKey Action Items\n• Q1 2025: Complete "
        "Series A funding round ($5M target)\n• Q2 2025: Open European office in London\n"
        "• Q3 2025: Launch enterprise mobile application\n• Q4 2025: Achieve SOC 2 Type II "
        "compliance\nConclusion\nQ4 2024 represents a transformative quarter for TechCorp."
    )
    question = "In the Q4 2024 business performance report, what revenue target is set for 2025?"
    fitted = _fitted_alone(embedder, question, report, 24)
    assert "2025 Objectives Revenue Target: $12M" in fitted, fitted


def test_a_row_of_many_cells_is_narrowed_to_the_named_column(embedder: Embedder) -> None:
    """Held-out batch 4 dev h439: given the whole Robbery row of six cells, the 1.5B model read
    another row's "Asian Pacific Islander"; a row of ``MANY_CELLS`` cells keeps its label and
    the cells the question names."""
    head = (
        "Offense charged | Total | White | Black | American Indian/Alaskan Native | "
        "Asian Pacific Islander"
    )
    rows = [
        ("Total", "10,690,561", "7,389,208", "3,027,153", "150,544", "123,656"),
        ("Robbery", "100,496", "43,039", "55,742", "726", "989"),
        ("Burglary", "234,551", "155,994", "74,419", "2,021", "2,117"),
    ]
    names = head.split(" | ")
    table = "\n".join([head, *(row_line(names, list(r)) for r in rows)])
    count = _counter(embedder)
    question = "How many robbery arrests of Asian Pacific Islanders were reported in 2009?"
    passage = _passage(1, "arrests.pdf", table)
    others = [_passage(n, f"bread{n}.txt", BREAD) for n in range(2, 6)]
    assert sum(count(p.text) for p in [passage, *others]) > 144  # fitting has work to do
    fitted = fit_passages(question, [passage, *others], embedder, count, 144)
    robbery = next(ln for ln in fitted[0].text.splitlines() if "Robbery" in ln)
    assert "Asian Pacific Islander: 989" in robbery and "White: 43,039" not in robbery, robbery


KYC_NAMES = ["Code", "Description", "KYC Status"]
KYC_ROWS = [
    ("19", "OLD RECORD REJECTED BY CVLKRA"),
    ("21", "OLD RECORD SCANNED COPY RECEIVED"),
    ("24", "OLD RECORD ON HOLD BY CVLKRA"),
    ("44", "HOLD BY CVLKRA"),
    ("98", "VERIFIED BY CVLKRA"),
    ("99", "REJECTED BY CVLKRA"),
]


def _kyc_sheet(rows: list[tuple[str, str]]) -> tuple[list[str], str]:
    """A KYC status sheet chunk of ``rows`` as ingest writes it: its title and column-names
    lines, and the whole text."""
    lines = [f"KYC Status (rows 12-{12 + len(rows)})", " | ".join(KYC_NAMES)]
    return lines, "\n".join([*lines, *(row_line(KYC_NAMES, list(r)) for r in rows)])


def test_a_tables_column_names_line_is_never_its_best_piece(embedder: Embedder) -> None:
    """Held-out batch 5 dev h526: a sheet chunk's column-names line ("Code | Description |
    KYC Status") held more of "what does KYC status code 98 mean?" than the row "Code: 98 |
    Description: VERIFIED BY CVLKRA", and fitting gave the model the names alone. Every row
    names its columns, so that line is a heading, never the best piece."""
    lines, table = _kyc_sheet(KYC_ROWS)
    count = _counter(embedder)
    question = "In the KYC download file structure workbook, what does KYC status code 98 mean?"
    passage = _passage(1, "kyc.xlsx", table, {"sheet": "KYC Status", "rows": "12-19"})
    others = [_passage(n, f"bread{n}.txt", BREAD) for n in range(2, 6)]
    budget = count(lines[0]) + count(lines[1]) + 20
    assert count(table) > budget  # fitting has work to do
    fitted = fit_passages(question, [passage, *others], embedder, count, budget)
    assert "Code: 98 | Description: VERIFIED BY CVLKRA" in fitted[0].text, fitted[0].text


def test_a_tables_column_names_line_is_not_given_as_a_rows_neighbour(
    embedder: Embedder,
) -> None:
    """Held-out dev h705: the one row asked about came with the column-names line before it
    (48 of 144 tokens), which every row's cells repeat; the row's neighbour is taken only
    when it is no heading."""
    lines, table = _kyc_sheet(KYC_ROWS[:5])
    count = _counter(embedder)
    passage = _passage(1, "kyc.xlsx", table, {"sheet": "KYC Status", "rows": "12-17"})
    others = [_passage(n, f"bread{n}.txt", BREAD) for n in range(2, 4)]
    asked = row_line(KYC_NAMES, list(KYC_ROWS[0]))
    budget = count(lines[0]) + count(lines[1]) + count(asked) + 2
    question = "Which KYC status code says an old record was rejected by CVLKRA?"
    fitted = fit_passages(question, [passage, *others], embedder, count, budget)
    assert asked in fitted[0].text and lines[1] not in fitted[0].text, fitted[0].text


@pytest.fixture(scope="module")
def llm_tokens() -> tuple[Callable[[str], int], int]:
    """The default model's token count (its vocabulary only, as ``/api/ask`` counts the budget)
    and the default passage budget."""
    import llama_cpp

    from core.bundled import resolve_llm
    from core.settings import load_settings

    settings = load_settings()
    vocab = llama_cpp.Llama(
        str(resolve_llm(settings.llm.model, settings.models_dir)), vocab_only=True, verbose=False
    )

    def count(text: str) -> int:
        return len(vocab.tokenize(text.encode(), add_bos=False, special=True))

    return count, settings.retrieval.passage_tokens


def test_a_table_cut_to_the_row_asked_about_keeps_that_row(
    embedder: Embedder, llm_tokens: tuple[Callable[[str], int], int]
) -> None:
    """Held-out dev h405 (foo.pdf, an NREL report page: US government work): "... eliminating
    stops on cycle 2012_2?" The five passages retrieval found (data/nrel-table-passages.json),
    fitted to the default budget counted by the default model's tokenizer, as ``/api/ask``
    does: the table passage cut to the 2012_2 row kept its title line, which outscored the
    row, and the row's 29.2% never reached the model."""
    count, budget = llm_tokens
    texts = json.loads((Path(__file__).parent / "data" / "nrel-table-passages.json").read_text())
    passages = [_passage(i, "foo.pdf", t, {"page": 1}) for i, t in enumerate(texts, start=1)]
    question = (
        "In Table 2-1 of the NREL fuel-savings page, what percent fuel saving comes from "
        "eliminating stops on cycle 2012_2?"
    )
    fitted = fit_passages(question, passages, embedder, count, budget)
    assert any("Eliminate Stops: 29.2%" in p.text for p in fitted), [p.text for p in fitted]


def _heldout_case(name: str) -> tuple[str, list[Passage]]:
    """A held-out dev question and the passages retrieval and the further hops found for it
    (data/heldout-dev-passages.json; the files' sources are in bench/heldout/README.md)."""
    case = json.loads((Path(__file__).parent / "data" / "heldout-dev-passages.json").read_text())[
        name
    ]
    passages = [
        Passage(
            i, i, i, d["path"], d["file_type"], d["provenance"], 0.9 - i / 100, d["text"],
            named=d["named"], kept=d["kept"],
        )
        for i, d in enumerate(case["passages"], start=1)
    ]  # fmt: skip
    return case["question"], passages


@pytest.mark.parametrize(
    ("case", "wanted"),
    [
        # a PDF page's table row among prose was cut as sentences after "EXPORT." (dev h503)
        ("fishery", "Mill., 2005: 40,106"),
        # the 10-K's cover lines, held by three overlapping chunks, were given three times
        # and left no room for the incorporation line (dev h052)
        ("galaxy", "State or other jurisdiction of incorporation or organization: Nevada"),
        # every passage of the named contract disclosure kept its best line first; the
        # related-body question's "N/A" was left out (dev h519)
        ("sydney", "N/A"),
        # the row narrowed to the cells holding three of the question's words lost the
        # "Revenue & Capital, Total" cell it asks for, which holds two (dev h401)
        ("health", "42,927,344"),
        # a row named by its values only ("Medec Service", "IMSP Institutul de Cardiologie")
        # was narrowed to a header holding "de" and lost its amount (dev h706)
        ("procurement", "Suma contractului MDL (cu TVA): 56669.83"),
        # four 33-token title lines of one sheet's chunks took the budget from their rows
        # (dev h424): a table chunk's title comes with a row, never instead of one
        ("arequipa", "column 5: Arequipa | Medida promedio: 543"),
        # the asked row of ten cells (135 tokens) did not fit what was left and lower
        # pieces that did were given (dev h600): its leading cells that fit are given
        ("ott", "column 2: May | NSA, All Visits: 3560"),
        # "jason@plutext.org" reads little like "what e-mail addresses are given" (dev h623):
        # a piece holding the shape of value asked for scores a little higher
        ("docx4j", "jason@plutext.org"),
        # the rows are one a chunk, labelled "2012/2013 - 5": "period 5 of 2012/2013" named
        # none, and the first passage's period 3 and the named file's period 4 were given
        # (batch 9 dev h912)
        ("tfl", "Millions bus journeys adjusted for odd days - new measure: 167.3"),
    ],
)
def test_the_answer_a_retrieved_passage_holds_is_given(
    embedder: Embedder, llm_tokens: tuple[Callable[[str], int], int], case: str, wanted: str
) -> None:
    """Held-out dev questions whose answer retrieval found and fitting to the default budget
    (counted by the default model's tokenizer, as ``/api/ask`` does) left out."""
    count, budget = llm_tokens
    question, passages = _heldout_case(case)
    assert any(wanted in p.text for p in passages)
    fitted = fit_passages(question, passages, embedder, count, budget)
    assert any(wanted in p.text for p in fitted), [p.text for p in fitted]
    assert sum(count(p.text) for p in fitted) <= budget + max(count(p.text) for p in fitted)


def test_rows_of_other_dates_are_left_out_beside_the_asked_dates_row(
    embedder: Embedder, llm_tokens: tuple[Callable[[str], int], int]
) -> None:
    """Held-out batch 10 dev h1009 (IMEA's weekly maize harvest, a PDF table whose rows are
    weeks): the "14-jul-17" row was in the second passage, the best one held the 30-jun-17 and
    7-jul-17 rows, and the model answered with the 30 June share. The other weeks' rows of the
    same table are left out when the asked week's row is given."""
    count, budget = llm_tokens
    question, passages = _heldout_case("harvest")
    fitted = "\n".join(p.text for p in fit_passages(question, passages, embedder, count, budget))
    assert "Médio-Norte: 81,01%" in fitted
    for other in ("45,11%", "61,41%", "91,07%", "18,18%"):  # 30 June, 7 and 21 July, 16 June
        assert other not in fitted, fitted
    # a question asking how the share changed keeps the other weeks' rows
    changed = fit_passages(
        "How much did the Médio-Norte harvest progress in the week to 14 July 2017?",
        passages, embedder, count, budget,
    )  # fmt: skip
    assert any("61,41%" in p.text or "45,11%" in p.text for p in changed)


def test_a_translated_question_finds_the_sentence_in_another_language(
    embedder: Embedder, llm_tokens: tuple[Callable[[str], int], int]
) -> None:
    """Held-out dev h754: "for how many years had computers been teaching us to click on
    icons?" over a French radio excerpt (Whisper's transcript): the English question scored
    the answering sentence ("ce qui profite aussi de 20 ans pendant l'été, les ordinateurs nous ont
    appris à cliquer sur des icons") under its neighbours and fitting left it out. With the
    question in French beside it (``also``, as the answer service has the model translate it),
    each sentence is scored by the better of the two and the sentence is given."""
    count, budget = llm_tokens
    question, passages = _heldout_case("smartphone")
    wanted = "20 ans pendant l'été, les ordinateurs"
    fitted = fit_passages(question, passages, embedder, count, budget)
    assert not any(wanted in p.text for p in fitted)  # as before
    also = (
        "Selon l'enregistrement sur le smartphone, depuis combien d'années les ordinateurs nous "
        "apprenaient-ils à cliquer sur des icônes ?"
    )
    fitted = fit_passages(question, passages, embedder, count, budget, also=also)
    assert any(wanted in p.text for p in fitted), [p.text for p in fitted]
