"""The hard set's questions: kind, question, accepted answers (any one, normalised containment),
and the file that answers it (None: unanswerable, the assistant should decline)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class HardQuestion:
    """One question of the hard set."""

    kind: str
    question: str
    answers: tuple[str, ...] = ()
    source: str | None = None

    @property
    def answerable(self) -> bool:
        """True when a file answers it."""
        return self.source is not None


def _q(kind: str, question: str, answers: str, source: str | None) -> HardQuestion:
    return HardQuestion(kind, question, tuple(a for a in answers.split("|") if a), source)


KINDS = ("table", "image", "recording", "two-step", "near-miss", "paraphrase", "unanswerable")

QUESTIONS: list[HardQuestion] = [
    # tables: a cell by its row and column words
    _q("table", "What was the Q2 2026 price of the brass hinge?", "4.35", "prices.xlsx"),
    _q("table", "What did a pine shelf cost in Q3 2026?", "13.6", "prices.xlsx"),
    _q("table", "Who supplies the cabinet knob?", "Marlow", "prices.xlsx"),
    _q("table", "What was the Q1 2026 price of a wall anchor?", "0.18", "prices.xlsx"),
    _q("table", "Which office does Priya Natarajan work in?", "Leeds", "staff.docx"),
    _q("table", "What is Helen Okafor's role?", "site manager", "staff.docx"),
    _q("table", "In what year did Tomas Varga start?", "2016", "staff.docx"),
    _q("table", "What was the nitrate level of sample W-04?", "22.6", "water_quality.pdf"),
    _q("table", "What pH did sample W-03 have?", "7.4", "water_quality.pdf"),
    _q("table", "How much lead was in sample W-02?", "3.8", "water_quality.pdf"),
    _q(
        "table",
        "Which platform does the 09:42 train to Exeter St Davids leave from?",
        "4",
        "departures.html",
    ),
    _q(
        "table",
        "Who operates the 10:05 departure to Cardiff Central?",
        "Transport for Wales",
        "departures.html",
    ),
    # text read from images
    _q("image", "How much did the oat milk cost at Hollybrook Grocers?", "1.85", "receipt.jpg"),
    _q(
        "image",
        "What was the total on the Hollybrook Grocers receipt?",
        "12.10|12.1",
        "receipt.jpg",
    ),
    _q("image", "What is the address of Hollybrook Grocers?", "Mill Lane", "receipt.jpg"),
    _q("image", "How much was the cheddar on the grocery receipt?", "4.10|4.1", "receipt.jpg"),
    _q(
        "image",
        "What size of text does the scanned test page say it contains?",
        "12 point",
        "phototest.png",
    ),
    _q(
        "image",
        "In the scanned test page, what did the quick brown dog jump over?",
        "lazy fox",
        "phototest.png",
    ),
    # recordings
    _q(
        "recording",
        "When is the roof repair on the east wing booked for?",
        "fourteenth of March|14th of March|March 14|14 March",
        "site_meeting.wav",
    ),
    _q(
        "recording",
        "What is the budget for the roof repair?",
        "18,000|eighteen thousand|18000",
        "site_meeting.wav",
    ),
    _q(
        "recording",
        "Which scaffolding company was named in the site meeting?",
        "Brightline",
        "site_meeting.wav",
    ),
    _q("recording", "Where do the roof repair invoices go?", "Swindon", "site_meeting.wav"),
    _q(
        "recording",
        "In the speech, what should you ask instead of what your country can do for you?",
        "what you can do for your country",
        "jfk.flac",
    ),
    # two steps: two passages needed
    _q(
        "two-step",
        "When did the leader of the Harbour project join the company?",
        "2014",
        "annual_report.md",
    ),
    _q(
        "two-step",
        "Who manages the region with the highest sales in 2025?",
        "Declan Murphy",
        "annual_report.md",
    ),
    _q(
        "two-step",
        "Which company did the Harbour project leader work for before joining?",
        "Vantra",
        "annual_report.md",
    ),
    _q("two-step", "Who manages the region that grew fastest?", "Sofia Reyes", "annual_report.md"),
    _q(
        "two-step",
        "In which office does the manager of the Northern region work?",
        "Leeds",
        "annual_report.md",
    ),
    _q(
        "two-step",
        "How much did electricity use fall after the Meadow project's installation?",
        "63|318",
        "annual_report.md",
    ),
    # numbers with a near-miss number in the same document
    _q(
        "near-miss",
        "What is the floor area of the Swindon head office?",
        "1,420|1420",
        "annual_report.md",
    ),
    _q("near-miss", "What was group revenue in 2024?", "4.28", "annual_report.md"),
    _q(
        "near-miss",
        "How many reportable accidents were there in 2025?",
        "3 reportable|3 accidents|three",
        "annual_report.md",
    ),
    _q(
        "near-miss",
        "What was customer satisfaction in the spring survey?",
        "78",
        "annual_report.md",
    ),
    _q("near-miss", "How much electricity was used in 2024?", "381", "annual_report.md"),
    _q("near-miss", "What was the Q2 2026 price of the steel hinge?", "3.25", "prices.xlsx"),
    # paraphrased: the words of the question are not the document's
    _q(
        "paraphrase",
        "How large is the storage building in Ashford?",
        "1,240|1240",
        "annual_report.md",
    ),
    _q(
        "paraphrase", "How many of the delivery vehicles run on batteries?", "9", "annual_report.md"
    ),
    _q(
        "paraphrase",
        "What turnover does the board forecast for next year?",
        "5.1",
        "annual_report.md",
    ),
    _q(
        "paraphrase",
        "Who obtained a patent for the typing machine in 1868?",
        "Sholes",
        "multi_page.pdf",
    ),
    _q("paraphrase", "What name is given to a male duck?", "drake", "wiki_duck.html"),
    _q(
        "paraphrase",
        "Which person heads the buying of supplies at Northgate?",
        "Rafael Costa",
        "annual_report.md",
    ),
    _q(
        "paraphrase", "How far did the vans travel last year?", "412,000|412000", "annual_report.md"
    ),
    # unanswerable: near the documents' topics, not in them
    _q("unanswerable", "What was the Q4 2026 price of the brass hinge?", "", None),
    _q("unanswerable", "Which office does Oliver Grant work in?", "", None),
    _q("unanswerable", "What was the nitrate level of sample W-09?", "", None),
    _q("unanswerable", "Which platform does the 11:15 train to London leave from?", "", None),
    _q("unanswerable", "What did the bananas cost at Hollybrook Grocers?", "", None),
    _q("unanswerable", "What was group revenue in 2019?", "", None),
    _q("unanswerable", "Who led the Meadow project?", "", None),
    _q("unanswerable", "How many electric vans will the fleet have in 2027?", "", None),
    _q("unanswerable", "What is the name of the scaffolding company's director?", "", None),
    _q("unanswerable", "What was the warehouse's floor area in 2015?", "", None),
    _q("unanswerable", "Who patented the first electric typewriter in 1902?", "", None),
    _q("unanswerable", "What colour is the Hollybrook Grocers logo?", "", None),
]
