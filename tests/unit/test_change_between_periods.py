"""Issue 35, item 5: a change between two periods of a table, computed by Hearth and shown with
its two cited cells. The rows are the held-out dev files' own, as the spreadsheet loader wrote
them: the UN population estimates (wpp.xls, a column per period: dev h1002) and Nationwide's
house prices (nationwide.xls, a row per quarter: dev h1106)."""

from __future__ import annotations

from service.answering.grounding import compute, sides

BRAZIL = (
    "Index: 220 | Variant: Estimates | Major area, region, country or area: Brazil | … | "
    "1950-1955: 3.054 | … | 2005-2010: 0.941"
)
CHILE = (
    "Index: 221 | Variant: Estimates | Major area, region, country or area: Chile | … | "
    "1950-1955: 2.172 | … | 2005-2010: 1.021"
)
Q4_2007 = (
    "1952 Q4 = 100: Q4 2007 | All Houses (UK), Index: 9729.5 | £, All Houses (UK), Price: "
    "183959 | %, All Houses (UK), Annual Change: 6.9 | New Houses (UK), Index: 9127.2 | £, New "
    "Houses (UK), Price: 192268 | %, New Houses (UK), Annual Change: 6.2"
)
Q1_2009 = (
    "1952 Q4 = 100: Q1 2009 | All Houses (UK), Index: 7918.0 | £, All Houses (UK), Price: "
    "149709 | %, All Houses (UK), Annual Change: -16.5 | New Houses (UK), Index: 7580.7 | £, New "
    "Houses (UK), Price: 159691 | %, New Houses (UK), Annual Change: -16.3"
)


def test_a_change_between_two_period_columns_of_one_row() -> None:
    asked = (
        "By how many percentage points did Brazil's average annual population growth rate fall "
        "between 1950-1955 and 2005-2010 in the UN estimates?"
    )
    got = compute(asked, {1: CHILE, 2: BRAZIL})
    assert got is not None
    assert got.text().startswith(
        "2.113 percentage points (computed by Hearth from two cited numbers: 3.054 − 0.941 = 2.113)"
    ), got.text()
    assert "Brazil" in got.text() and "[2]" in got.text() and "Chile" not in got.text()


def test_a_change_between_two_period_rows_of_one_column() -> None:
    asked = "By how much did the average price of all UK houses fall between Q4 2007 and Q1 2009?"
    got = compute(asked, {1: Q1_2009, 2: Q4_2007})
    assert got is not None
    assert got.text().startswith(
        "34250 (computed by Hearth from two cited numbers: 183959 − 149709 = 34250)"
    ), got.text()
    # each input is shown with the row's period and its column
    assert "“1952 Q4 = 100: Q4 2007 | £, All Houses (UK), Price: 183959” [2]" in got.text()
    relative = compute(asked.replace("By how much", "By what percentage"), {1: Q1_2009, 2: Q4_2007})
    assert relative is not None and relative.text().startswith("18.6%"), relative
    # each period searched on its own: the table's rows are apart
    assert sides(asked) == (
        "the average price of all UK houses Q4 2007",
        "the average price of all UK houses Q1 2009",
    )


def test_no_change_between_periods_against_the_question_or_without_a_fit() -> None:
    rows = {1: Q4_2007, 2: Q1_2009}
    rise = "By how much did the average price of all UK houses rise between Q4 2007 and Q1 2009?"
    assert compute(rise, rows) is None  # it fell
    assert compute("By how much did the rent fall between Q4 2007 and Q1 2009?", rows) is None
    assert compute("By how much did prices fall between Q4 2007 and Q2 2009?", rows) is None
    # no row names what changed (the growth rate is the sheet's title): neither is chosen
    tie = "By how much did the growth rate fall between 1950-1955 and 2005-2010?"
    assert compute(tie, {1: BRAZIL, 2: CHILE}) is None


# eu-004.pdf's franchising table (held-out batch 4), a row per country, a column per year and
# measure
FRANCHISING = {
    1: "Germany | 1993, number of franchisors: 370 | 1994, number of franchisors: 420 | 1993, "
    "number of franchisees: 15500 | 1994, number of franchisees: 18000",
    2: "UK | 1993, number of franchisors: 373 | 1994, number of franchisors: 396 | 1993, number "
    "of franchisees: 18100 | 1994, number of franchisees: 24900",
}
SLIDE = (
    "Comparing Content 1997 vs. 1995 1997 Study 1995 Study\nSeries: 1997 | … | Text only: 29% | "
    "…\nSeries: 1995 | … | Text only: 34% | …"
)


def test_the_measure_under_both_periods_is_the_one_asked() -> None:
    asked = "By how much did the number of franchisees in the UK rise between 1993 and 1994?"
    got = compute(asked, FRANCHISING)
    assert got is not None and got.text().startswith(
        "6800 (computed by Hearth from two cited numbers: 24900 − 18100 = 6800)"
    ), got
    germany = compute("By how much did Germany's franchisors grow from 1993 to 1994?", FRANCHISING)
    assert germany is not None and germany.text().startswith("50 (computed"), germany


def test_two_years_named_in_a_lead_in_are_the_periods_earlier_first() -> None:
    """Held-out dev h534: the years are in the lead-in, "1997 vs. 1995"; the share dropped from
    1995's 34% to 1997's 29%."""
    asked = (
        "In the slide comparing content in 1997 vs. 1995, by how many percentage points did the "
        "share of text-only slides drop?"
    )
    got = compute(asked, {1: "Text Only Slide", 2: SLIDE})
    assert got is not None and got.text().startswith(
        "5 percentage points (computed by Hearth from two cited numbers: 34% − 29% = 5)"
    ), got
