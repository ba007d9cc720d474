"""The relative margin's best is measured on text the English-only embedder reads (issue 35)."""

from service.answering.retrieval._retriever import _latin


def test_latin_text_is_readable() -> None:
    assert _latin("Joanna Bender, 2021-03-04, subscribed")
    assert _latin("Café Müller, Straße 12")
    assert _latin("12,345 | 6.7")  # no letters: kept as readable


def test_other_scripts_are_not_readable() -> None:
    assert not _latin("שלום, הסיסמה החדשה נשלחה אליך")
    assert not _latin("Привет, как дела у тебя сегодня")
    assert not _latin("東京都の人口は何人ですか")


def test_mostly_hebrew_with_a_latin_name_is_not_readable() -> None:
    assert not _latin("From: Dana — שלום לכולם, מצורף הקובץ של הפגישה מחר בבוקר")
