"""Issue 35, item 5 (two facts combined): "did A or B have more X" over two rows of a table is
decided by Hearth from the two cells, shown with both cited; held-out dev h413 had "Germany"
for the UK's larger figure, both rows given."""

from __future__ import annotations

from service.answering.grounding import compare, review, sides
from service.answering.retrieval import Passage

GERMANY = (
    "Germany | 1993, number of franchisors: 370 | 1994, number of franchisors: 420 | "
    "1993, number of franchisees: 15500 | 1994, number of franchisees: 18000"
)
UK = (
    "UK | 1993, number of franchisors: 373 | 1994, number of franchisors: 396 | "
    "1993, number of franchisees: 18100 | 1994, number of franchisees: 24900"
)
ROWS = {1: f"Table 6.8 Franchising\n{GERMANY}", 2: UK}
H413 = "According to the franchising table, did Germany or the UK have more franchisees in 1994?"


def test_the_side_whose_row_holds_the_larger_cell_is_the_answer() -> None:
    compared = compare(H413, ROWS)
    assert compared is not None
    assert compared.text() == (
        "UK (compared by Hearth from two cited numbers: UK 24900 > Germany 18000). "
        "UK: “UK | 1994, number of franchisees: 24900” [2]. "
        "Germany: “Germany | 1994, number of franchisees: 18000” [1]."
    )
    fewer = compare("Did Germany or the UK have fewer franchisors in 1993?", ROWS)
    assert fewer is not None and fewer.formula() == "Germany 370 < UK 373"
    which = compare("Which country had more franchisees in 1993, Germany or the UK?", ROWS)
    assert which is not None and which.formula() == "UK 18100 > Germany 15500"


def test_each_side_may_name_a_column_of_one_row() -> None:
    kpi = {
        1: "Metric: Revenue | Q4 2024: $12.5M | Q3 2024: $11.2M | Change: +11.6%\n"
        "Metric: Customers | Q4 2024: 1,250 | Q3 2024: 1,180 | Change: +5.9%"
    }
    higher = compare("Was revenue higher in Q4 2024 or Q3 2024?", kpi)
    assert higher is not None and higher.formula() == "Q4 2024 $12.5M > Q3 2024 $11.2M"
    fewer = compare("Did Q4 2024 or Q3 2024 have fewer customers?", kpi)
    assert fewer is not None and fewer.formula() == "Q3 2024 1,180 < Q4 2024 1,250"


def test_nothing_is_decided_when_a_side_or_the_column_is_not_one() -> None:
    assert compare("Did France or the UK have more franchisees in 1994?", ROWS) is None
    # 1993 and 1994 both hold franchisees: the column is not one
    assert compare("Did Germany or the UK have more franchisees?", ROWS) is None
    # "public health" is every other header's: no header holds half of what is asked
    outlay = {
        1: "States-A: Kerala | Medical & Public Health, Revenue: 27,923,965 | Medical & Public "
        "Health, Capital: 929,503 | Revenue & Capital, Total: 32,838,941 | Total: 33,173,581",
        2: "States-A: Delhi | Medical & Public Health, Revenue: 20,155,044 | Medical & Public "
        "Health, Capital: 2,135,000 | Revenue & Capital, Total: 32,771,044 | Total: 33,051,480",
    }
    question = "Which state had the bigger overall total public health outlay, Kerala or Delhi?"
    assert compare(question, outlay) is None
    assert compare("Is the report a PDF or a Word document?", ROWS) is None
    assert compare("How many franchisees did Germany have in 1994?", ROWS) is None


def test_the_review_shows_the_comparison_whatever_the_reply_said() -> None:
    passages = [
        Passage(n, n, 1, "/docs/eu-004.pdf", "pdf", {"page": 9}, 0.8, text)
        for n, text in ROWS.items()
    ]
    shown, verdict = review("Germany had more franchisees in 1994. [1]", passages, H413)
    assert shown.startswith("UK (compared by Hearth"), shown
    assert verdict.computed == ["UK 24900 > Germany 18000"] and verdict.cited == [2, 1]
    assert sides(H413) == ("Germany franchisees in 1994", "UK franchisees in 1994")
