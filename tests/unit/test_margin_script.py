"""The relative margin's best is measured on text the English-only embedder reads (issue 35)."""

from core.text import latin_share
from service.answering.retrieval import READABLE_SHARE


def _readable(text: str) -> bool:
    return latin_share(text) >= READABLE_SHARE


def test_latin_text_is_readable() -> None:
    assert _readable("Joanna Bender, 2021-03-04, subscribed")
    assert _readable("Café Müller, Straße 12, Việt Nam")
    assert _readable("12,345 | 6.7")  # no letters: kept as readable


def test_other_scripts_are_not_readable() -> None:
    assert not _readable("שלום, הסיסמה החדשה נשלחה אליך")
    assert not _readable("Привет, как дела у тебя сегодня")
    assert not _readable("東京都の人口は何人ですか")


def test_mostly_hebrew_with_a_latin_name_is_not_readable() -> None:
    assert not _readable("From: Dana — שלום לכולם, מצורף הקובץ של הפגישה מחר בבוקר")
