"""Issue 35, items 3 and 5, through the real embedder, stores and (``slow``) the default model:
a question naming its document by kind ("the spreadsheet") or by a word of its file name ("the
autumn minutes") is answered from that document, though a near neighbour of another file says
nearly the same; a years-between question is computed by Hearth and shown with its two cited
inputs."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import openpyxl
import pytest

from core import catalogue
from core.embedder import Embedder
from core.knowledge import KnowledgeBase
from ingest.pipeline import IngestPipeline
from service.answering.retrieval import Retriever, fit_passages, with_heads
from service.state import Hearth
from tests.integration.conftest import cited_names, hearth_on_library

NOTES = (
    "# Office costs: notes\n\n"
    "The draft plan of March put the office's travel costs for 2023 at 3,900 euros, before "
    "the board's review of every travel cost of the year."
)
MINUTES = "# Board minutes\n\nThe board agreed a budget of {} euros for the library roof repairs."
LOREM = (
    "# Lorem Ipsum\n\nLorem Ipsum has been the industry's standard dummy text ever since 1966, "
    "when designers at Letraset took a 1914 Cicero translation and scrambled it to make dummy "
    "text for their Body Type sheets."
)
BY_KIND = "In the spreadsheet, what were the office's travel costs in 2023?"
BY_NAME = "In the autumn minutes, what budget did the board agree for the library roof?"
YEARS = (
    "How many years after the 1914 Cicero translation did Lorem Ipsum become the industry's "
    "standard dummy text?"
)


def write_library(folder: Path) -> Path:
    """The files: a cost sheet and notes giving another figure, two minutes that differ only
    in their budget (and file name), and the Lorem Ipsum history."""
    folder.mkdir(parents=True, exist_ok=True)
    book = openpyxl.Workbook()
    sheet = book.active
    assert sheet is not None
    sheet.title = "Costs"
    for row in (("Item", "2022", "2023"), ("Rent", 11800, 12000), ("Travel", 3100, 4200)):
        sheet.append(row)
    book.save(folder / "office-costs.xlsx")
    (folder / "office-costs-notes.md").write_text(NOTES)
    (folder / "autumn-minutes.md").write_text(MINUTES.format("48,000"))
    (folder / "spring-minutes.md").write_text(MINUTES.format("31,500"))
    (folder / "lorem-history.md").write_text(LOREM)
    return folder


def test_a_named_document_comes_first(
    kb: KnowledgeBase, embedder: Embedder, tmp_path: Path
) -> None:
    IngestPipeline(kb, embedder).ingest_paths([write_library(tmp_path / "docs")])
    retriever = Retriever(kb, embedder)
    by_kind = retriever.retrieve(BY_KIND)
    assert by_kind and Path(by_kind[0].path).name == "office-costs.xlsx", by_kind
    by_name = retriever.retrieve(BY_NAME)
    assert by_name and Path(by_name[0].path).name == "autumn-minutes.md", by_name
    assert by_name[0].title == "Board minutes"  # its document's title, for the checks
    spring = retriever.retrieve(BY_NAME.replace("autumn", "spring"))
    assert Path(spring[0].path).name == "spring-minutes.md", spring
    named = retriever.documents.named(BY_NAME)
    assert len(named.document_ids) == 1 and named.extensions == ()


@pytest.fixture(scope="module")
def hearth(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Hearth]:
    """Hearth on the library above with the default model (loaded once for the module)."""
    yield from hearth_on_library(tmp_path_factory.mktemp("named"), write_library)


@pytest.mark.slow
def test_a_question_naming_its_document_by_kind_is_answered_from_it(hearth: Hearth) -> None:
    answer = hearth.answers.answer(BY_KIND).as_dict()
    assert "4200" in str(answer["answer"]).replace(",", ""), answer["answer"]
    assert "office-costs.xlsx" in cited_names(answer), answer


@pytest.mark.slow
def test_a_question_naming_its_document_by_name_is_answered_from_it(hearth: Hearth) -> None:
    answer = hearth.answers.answer(BY_NAME).as_dict()
    assert "48000" in str(answer["answer"]).replace(",", ""), answer["answer"]
    assert "autumn-minutes.md" in cited_names(answer), answer


@pytest.mark.slow
def test_years_between_are_computed_and_shown_with_their_inputs(hearth: Hearth) -> None:
    answer = hearth.answers.answer(YEARS).as_dict()
    text = str(answer["answer"])
    assert text.startswith("52 years (computed by Hearth from two cited numbers: 1966 − 1914"), text
    assert "since 1966” [" in text and "a 1914 Cicero translation" in text, text
    grounding = answer["grounding"]
    assert isinstance(grounding, dict)
    assert grounding["computed"] == ["1966 - 1914 = 52 years"] and grounding["grounded"]
    assert cited_names(answer) == {"lorem-history.md"}


HELDOUT = Path(__file__).resolve().parents[2] / "bench" / "heldout" / "files"
SCAN_QUESTION = "According to the scanned page of text, what percentage of e-mail is spam?"


def test_the_best_chunk_of_a_kind_named_alone_is_kept_below_the_margin(
    kb: KnowledgeBase, embedder: Embedder, tmp_path: Path
) -> None:
    """bench/heldout.py dev half (h158): the OCR of eurotext.tif, a page in six languages,
    scored 0.115 against the question while an e-mail about attachments scored 0.347, so the
    relative margin cut the scan the question names ("the scanned page") though the search
    among images ranked it first. The best chunk of the named kind is kept, on every backend:
    on Postgres ``ts_rank`` ranked phototest.png first among images where SQLite's BM25 ranked
    the scan first (the scaled pass of 9e4130a), so the lexical best is computed by Hearth."""
    docs = tmp_path / "docs"
    docs.mkdir()
    for name in ("eurotext.tif", "phototest.png", "fake-email-attachment.eml", "family-day.eml"):
        (docs / name).write_bytes((HELDOUT / name).read_bytes())
    IngestPipeline(kb, embedder).ingest_paths([docs])
    retriever = Retriever(kb, embedder)
    found = [Path(p.path).name for p in retriever.retrieve(SCAN_QUESTION)]
    assert "eurotext.tif" in found, found
    # a question naming no kind keeps the margin: the scan is not pulled in
    plain = [Path(p.path).name for p in retriever.retrieve("What do the e-mails say about spam?")]
    assert "phototest.png" not in plain, plain


HANDBOOK = (
    "# Trustee handbook\n\nThe standing trustee and the employees of the office shall sign and "
    "submit an annual certification of compliance with this section. The trustee shall sign "
    "every report to the United States Trustee and keep a signed copy for two years.\n\n"
    "Each signed certification is kept with the annual report."
)
MEMO_QUESTION = "Who signed the memo?"


def test_a_document_named_by_name_is_read_first(
    kb: KnowledgeBase, embedder: Embedder, tmp_path: Path
) -> None:
    """bench/heldout.py dev half (h036): "Who signed the memo?" drew handbook passages on
    signing above the memo (cosine 0.35-0.57 against 0.10), fitting kept the handbook's
    sentences and cut the memo's "Best Regards, / Mallori", and the 1.5B named the trustee.
    The named document's passages now come first and its sentences are fitted before any
    other document's; another document's passage that reads less like the question than the
    named one's best is left out (h096: "the sample presentation's table" answered from
    another deck's table)."""
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "fake-memo.pdf").write_bytes((HELDOUT / "fake-memo.pdf").read_bytes())
    (docs / "trustee-handbook.md").write_text(HANDBOOK)
    IngestPipeline(kb, embedder).ingest_paths([docs])
    retriever = Retriever(kb, embedder)
    passages = retriever.retrieve(MEMO_QUESTION)
    names = [Path(p.path).name for p in passages]
    assert names[0] == "fake-memo.pdf" and passages[0].named, names
    assert [p.named for p in passages] == sorted((p.named for p in passages), reverse=True)
    best = max(p.score for p in passages if p.named)
    assert all(p.score >= best for p in passages if not p.named), passages
    # fitting to a budget too small for everything keeps the memo's sign-off with its name
    words = sum(len(p.text.split()) for p in passages)
    fitted = fit_passages(MEMO_QUESTION, passages, embedder, lambda t: len(t.split()), words - 8)
    memo = next(p.text for p in fitted if p.named)
    assert "Best Regards, Mallori" in memo.replace("\n", " "), fitted


@pytest.mark.parametrize(
    ("question", "named"),
    [
        ("When is the Family Day?", {"family-day.md"}),  # every word of its name
        ("How many days did the roof work take?", set()),  # "days" is no reference to it
        ("By how many mg per day was the dose raised?", set()),
        ("Who signed the memo?", {"site-memo.md"}),  # "the memo": a reference, in part
        ("In the sample presentation, what is on slide 2?", {"sample-presentation.md"}),
        ("Who gave the presentation on the roof?", set()),  # a kind word alone names no file
        # a name of kind words only is outranked by one the question says a word of besides
        # its kind words (held-out batch 10 dev h1038: "the Xamarin slides" named slides.pptx)
        ("According to the Xamarin slides, what is on slide 2?", {"xamarin-presentation.md"}),
        ("In the slides, what is on slide 2?", {"slides.md"}),
        # a word saying what a document is ("invoice") names a file in part only when the
        # question names nothing else the file's name lacks (held-out batch 11 dev h1120)
        ("Who was the invoice billed to?", {"invoice-turnpike.md"}),
        ("Who was the Turnpike invoice billed to?", {"invoice-turnpike.md"}),
        ("What is the total on the EDF electricity invoice?", set()),
        # held-out dev h635, h746: the "s" of "U.S." is no possessive, a count no name word,
        # and a code the question writes names the file whose name holds it
        ("Below what wages need a person whose only U.S. business was services not file?", set()),
        ("What would the two Belkin products cost together?", set()),
        ("According to the Form 1040NR instructions, who need not file?", {"i1040nr.md"}),
    ],
)
def test_a_file_is_named_by_its_name_used_as_a_reference(
    kb: KnowledgeBase, embedder: Embedder, tmp_path: Path, question: str, named: set[str]
) -> None:
    """bench/heldout.py dev half: "How many days after ..." and "... per day ..." named
    family-day.eml (h144, h168, h199), and "the presentation on ..." / "the ecodesign
    presentation" named sample-presentation.pptx (h182, h190), whose only non-generic word is
    the kind word. A name matched in part counts when a matched word is used as a reference (a
    determiner or a possessive before it); a name of kind words only, when every word of it
    is said."""
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "family-day.md").write_text("# Family Day\n\nThe Family Day picnic is on June 3.")
    (docs / "site-memo.md").write_text("To the crew:\n\nThe roof work took 12 days.\nMallori")
    (docs / "sample-presentation.md").write_text("# Slides\n\nSlide 2: the roof plan.")
    (docs / "slides.md").write_text("# Opioid deaths\n\nSlide 2: the quarterly rate.")
    (docs / "xamarin-presentation.md").write_text("# Xamarin\n\nSlide 2: the app's layers.")
    (docs / "invoice-turnpike.md").write_text("# Invoice 14\n\nBill to: Jiro Doi. Total $2,608.20")
    (docs / "business-report.md").write_text("# Q4 report\n\nRevenue rose 20% in Q4.")
    (docs / "two_column.md").write_text("# Mentors\n\nMentor fecundity across generations.")
    (docs / "i1040nr.md").write_text("# Form 1040NR\n\nYou need not file if wages were less.")
    IngestPipeline(kb, embedder).ingest_paths([docs])
    names = Retriever(kb, embedder).documents
    found = names.named(question)
    with kb.db.session() as s:
        paths = dict(catalogue.document_paths(s))
    assert {Path(paths[i]).name for i in found.document_ids} == named, found


KYC_QUESTION = (
    "What error code does the KYC agency use when someone sends a phone bill as their address "
    "proof?"
)


@pytest.mark.parametrize(
    ("question", "by_reference", "topic"),
    [
        (KYC_QUESTION, set(), {"qr_bill_example.md"}),  # "a phone bill": its topic
        ("What is the total on the bill?", {"qr_bill_example.md"}, set()),  # "the bill"
        ("What did I buy at Roller?", {"roller_26092016.md"}, set()),  # written as a name
        ("What did I buy at the roller shop?", {"roller_26092016.md"}, set()),
        ("Which roller skates are on sale?", set(), {"roller_26092016.md"}),
        ("What does roller_26092016.md say?", {"roller_26092016.md"}, set()),
        # held-out dev h809: a word of the file's name inside a longer name of something else
        (
            "Who is the referring physician on the Integrative Health and Sports Performance "
            "scan report?",
            set(),
            {"health.md"},
        ),
        ("What does the Health report say about Kerala?", {"health.md"}, set()),
        (  # said on its own too: the file is named
            "In the health report, who heads the Integrative Health and Sports Performance clinic?",
            {"health.md"},
            set(),
        ),
    ],
)
def test_a_one_word_file_name_used_as_a_topic_word_earns_no_privilege(
    kb: KnowledgeBase,
    embedder: Embedder,
    tmp_path: Path,
    question: str,
    by_reference: set[str],
    topic: set[str],
) -> None:
    """bench/heldout.py dev half (h528): "... sends a phone bill as their address proof?"
    named qr_bill_example.jpg (its one word besides the generic ones) and fitting gave the
    Swiss bill's sentences before the KYC sheet's "ERR-00011 | MOBILE BILL SUBMITTED AS A
    ADDRESS PROOF" row. A one-word name the question uses neither as a reference ("the bill")
    nor writes as a name ("at Roller", the file's own name) still lifts its document, but is
    not one the question names: not kept first, not fitted first."""
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "qr_bill_example.md").write_text(
        "# Bill no. 3139\n\nPlease pay the bill amount of CHF 3949.75 within 30 days. "
        "Payable to Robert Schneider AG, Biel. Telefon: 059/987 6540."
    )
    (docs / "roller_26092016.md").write_text("ROLLER Paderborn\n\nRegal Kiefer 25,99 EUR")
    (docs / "health.md").write_text("Public Health Outlay 2012-13\n\nKerala | 4,191,757")
    (docs / "kyc-error-codes.csv").write_text(
        "ERROR CODE,ERROR DESCRIPTION\n"
        "ERR-00009,INVALID PAN\n"
        "ERR-00010,MINOR PAN CARD COPY SUBMITTED\n"
        "ERR-00011,MOBILE BILL SUBMITTED AS A ADDRESS PROOF\n"
    )
    IngestPipeline(kb, embedder).ingest_paths([docs])
    retriever = Retriever(kb, embedder)
    with kb.db.session() as s:
        paths = {i: Path(p).name for i, p in catalogue.document_paths(s)}
    named = retriever.documents.named(question)
    assert {paths[i] for i in named.by_reference()} == by_reference, named
    assert {paths[i] for i in named.document_ids} == by_reference | topic, named
    if question == KYC_QUESTION:
        passages = retriever.retrieve(question)
        assert not any(p.named for p in passages), passages
        fitted = fit_passages(question, passages, embedder, lambda t: len(t.split()), 24)
        assert any("ERR-00011" in p.text for p in fitted), fitted


@pytest.mark.parametrize(
    ("question", "first", "named"),
    [
        # the receipt asked about is another file's: receipt.md gives way
        (
            "How much did the three kinds of pizza on the receipt cost together?",
            "order-113533.md",
            False,
        ),
        # it is receipt.md's: still named, first
        ("How much did the coffee with milk cost on the receipt?", "receipt.md", True),
    ],
)
def test_a_file_named_by_one_kind_word_gives_way_to_a_document_reading_more_like_the_question(
    kb: KnowledgeBase, embedder: Embedder, tmp_path: Path, question: str, first: str, named: bool
) -> None:
    """bench/heldout.py dev half: "the receipt" named receipt.jpg (a file name that is the kind
    word alone) whatever the receipt asked about, and fitting gave its passage the room: "How
    much did the three kinds of pizza on the receipt cost together?" was answered from a
    McDonald's receipt (h1028; h748-h750, h551, and "the slides" h184, h431 the same). Such a
    name stays a reference while no other document's chunk reads more like the question."""
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "receipt.md").write_text(
        "McDonald's Toa Payoh Central\n\nQTY ITEM TOTAL\n1 Med Ice Lemon Tea 2.95\n"
        "1 Coffee with Milk 2.40\nEat-In Total (incl GST) 5.35"
    )
    (docs / "order-113533.md").write_text(
        "Order 113533 Cashier: Eric H\n\n1 Taco Party Pack 10.00\n26 Med Drink 43.94\n"
        "3 Supreme Pizza 11.97\n3 Pepperoni Pizza 11.07\n3 Cheese Pizza 10.47\nTotal 128.27"
    )
    IngestPipeline(kb, embedder).ingest_paths([docs])
    passages = Retriever(kb, embedder).retrieve(question)
    assert passages and Path(passages[0].path).name == first, passages
    assert passages[0].named is named, passages
    assert all(not p.named for p in passages if Path(p.path).name != "receipt.md"), passages


def test_a_passage_carries_its_documents_head_and_the_review_reads_it(
    kb: KnowledgeBase, embedder: Embedder, tmp_path: Path
) -> None:
    """Held-out dev h810: "According to Lyft's 2021 annual report on Form 10-K, how many
    Active Riders ...?" was declined ("No passage mentions 10"): the table's page lacks the
    form's name, which the filing's cover (its first chunk) holds. ``with_heads`` gives each
    passage its document's first chunk; the review reads it as naming the document."""
    from service.answering.grounding import review

    docs = tmp_path / "docs"
    docs.mkdir()
    cover = "UNITED STATES SECURITIES AND EXCHANGE COMMISSION\n\nFORM 10-K\n\nAnnual report."
    riders = " ".join(["Operating metrics are discussed below."] * 60)
    (docs / "filing.md").write_text(
        f"# Cover\n\n{cover}\n\n# Metrics\n\n{riders}\n\n"
        "Active Riders in the three months ended December 31, 2021 were 18,728 thousand.\n"
    )
    IngestPipeline(kb, embedder).ingest_paths([docs])
    retriever = Retriever(kb, embedder)
    question = "According to the 2021 annual report on Form 10-K, how many Active Riders?"
    found = [p for p in retriever.retrieve(question) if "18,728" in p.text]
    assert found and "10-K" not in found[0].text  # the answer's chunk lacks the form's name
    headed = with_heads(kb.db, found)
    assert "FORM 10-K" in headed[0].head and headed[0].text == found[0].text
    reply = "There were 18,728 thousand Active Riders [1]."
    text, verdict = review(reply, headed[:1], question, "", "passages")
    assert verdict.unmentioned == [] and text.startswith("There were 18,728"), text
    _, bare = review(reply, found[:1], question, "", "passages")
    assert bare.unmentioned == ["10-K"]  # without the head, as before
