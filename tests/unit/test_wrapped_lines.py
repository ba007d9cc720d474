"""Sentences across the line breaks of wrapped text (core.text.unwrap_lines, split_sentences).

A PDF page's or a wrapped e-mail's lines end where the width ends, so a sentence continued on a
line opening with a capital or a figure ("... a MacBook Pro with 2.2\\nGHz Core 2 processor",
held-out dev h915) was cut in two, and passage fitting kept the half without the machine.
Lines that end where their paragraph, row or item ends stay apart.
"""

from __future__ import annotations

from core.text import split_sentences, unwrap_lines

PAGE = (
    "JavaScript programs. This is in stark contrast to benchmark suites\n"
    "such as SpecJVM98 (3) used to evaluate desktop and server Java\n"
    "VMs. Many programs in those benchmarks use large data sets and\n"
    "execute for minutes. The SunSpider programs carry out a variety of\n"
    "tasks, primarily 3d rendering, bit-bashing, cryptographic encoding,\n"
    "math kernels, and string processing.\n"
    "All experiments were performed on a MacBook Pro with 2.2\n"
    "GHz Core 2 processor and 2 GB RAM running MacOS 10.5.\n"
    "Benchmark results. The main question is whether programs"
)


def test_a_sentence_wrapped_before_a_capital_or_a_figure_is_one_sentence() -> None:
    sentences = split_sentences(PAGE)
    assert (
        "All experiments were performed on a MacBook Pro with 2.2 GHz Core 2 processor and "
        "2 GB RAM running MacOS 10.5." in sentences
    )
    assert (
        "This is in stark contrast to benchmark suites such as SpecJVM98 (3) used to evaluate "
        "desktop and server Java VMs." in sentences
    )
    assert "Benchmark results." in sentences


def test_rows_items_captions_and_paragraphs_stay_apart() -> None:
    statement = (
        "FIRST CHEQUING\n"
        "Line of Credit 100,000.00 Rate 4.2000\n"
        "Date Description Number Debits Credits Balance\n"
        "31Jul2018 Balance Forward 99,878.08\n"
        "01Aug2018 Clearing Cheque 4987 36.07 99,914.15\n"
        "01Aug2018 Incoming Interac e-Transfer 14.54 101,583.92 EX\n"
        "01Aug2018 Incoming Interac e-Transfer 400.00 101,183.92 EX"
    )
    assert unwrap_lines(statement) == statement.split("\n")
    listed = (
        "Additional relief valves are to be fitted on separate spaces of the\n"
        "crankcase, such as gear or chain cases for camshaft or similar drives\n"
        "4. The free area of each relief valve is not to be less than 45 cm2 in\n"
        "every engine of this kind, whatever the bore of its cylinders may be."
    )
    assert not any("drives" in x and "free area" in x for x in split_sentences(listed))
    assert any("camshaft or similar drives" in x for x in unwrap_lines(listed))
    paper = (
        "Average worker machines per job and the deaths of workers in each one\n"
        "Table 1: MapReduce jobs run in August 2004 and the resources they used\n"
        "Figure 4 shows the significant growth in the number of separate programs"
    )
    assert "Figure 4 shows the significant growth in the number of separate programs" in (
        unwrap_lines(paper)
    )
    # a Word document's or a web page's paragraphs are one line each, of any width
    docx = (
        "Contacting Plutext\n"
        "Unless you have paid for support, general questions should be posted directly to the "
        "docx4j forum or StackOverflow, where others can answer them and find the answers.\n"
        "Plutext can be contacted at either jason@plutext.org, or jharrop@plutext.com\n"
        "Appendix 1 – Font Mapping\n"
        "This section is most relevant for PDF output via XSL FO"
    )
    assert unwrap_lines(docx) == docx.split("\n")
    receipt = "Clachan\n34 Kingley Street\nW1B 5QH\n2 Meantime Pale = 10.20\nTotal 10.20"
    assert split_sentences(receipt) == receipt.split("\n")


def test_a_sentence_ending_on_initials_goes_on() -> None:
    assert split_sentences("JUMA PARTICIPAÇÕES S.A.\n678003 10.000,00") == [
        "JUMA PARTICIPAÇÕES S.A. 678003 10.000,00"
    ]
