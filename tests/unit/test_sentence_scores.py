"""Passage fitting's lexical score and its cache of sentence vectors (no model)."""

from __future__ import annotations

import numpy as np

from service.answering.retrieval import SentenceVectors, lexical_scores


def test_rarer_question_words_weigh_more_and_words_are_stemmed() -> None:
    sentences = [
        "Roberts signed for Wolverhampton.",
        "Roberts moved to Huddersfield in 1990.",
        "Roberts joined the youth team.",
        "Roberts joined Watford.",
    ]
    scores = lexical_scores("Which club did Roberts join in 1990?", sentences)
    assert scores.shape == (4,)
    assert scores[1] > scores[2] > scores[0]  # 1990 is rarer than Roberts; "joined" ~ "join"
    assert scores.min() >= 0.0 and scores.max() <= 1.0


def test_cjk_question_words_count_as_substrings() -> None:
    scores = lexical_scores("图书馆几点开门", ["图书馆早上九点开门。", "今天天气很好。"])
    assert scores[0] > 0 and scores[1] == 0


def test_nothing_to_match_scores_zero() -> None:
    assert lexical_scores("the of and", ["The cat sat."]).tolist() == [0.0]
    assert lexical_scores("cats", []).shape == (0,)


class _CountingEmbedder:
    dimension = 4

    def __init__(self) -> None:
        self.embedded: list[str] = []

    def embed_questions(self, texts: list[str], threads: int = 1) -> np.ndarray:
        self.embedded.extend(texts)
        out = np.array([[len(t), 1.0, 0.0, 0.0] for t in texts], dtype=np.float32)
        return np.asarray(out / np.linalg.norm(out, axis=1, keepdims=True), dtype=np.float32)


def test_sentence_vectors_are_embedded_once_and_bounded() -> None:
    cache = SentenceVectors(size=3)
    embedder = _CountingEmbedder()
    first = cache(embedder, ["a", "bb", "a"])  # type: ignore[arg-type]
    assert embedder.embedded == ["a", "bb"] and first.shape == (3, 4)
    again = cache(embedder, ["bb", "ccc"])  # type: ignore[arg-type]
    assert embedder.embedded == ["a", "bb", "ccc"]
    assert np.allclose(again[0], first[1])
    cache(embedder, ["dddd"])  # type: ignore[arg-type]  # "a" was least recently used
    cache(embedder, ["a"])  # type: ignore[arg-type]
    assert embedder.embedded == ["a", "bb", "ccc", "dddd", "a"]
    other = _CountingEmbedder()  # another model never gets this one's vectors
    cache(other, ["bb"])  # type: ignore[arg-type]
    assert other.embedded == ["bb"]


def test_an_abbreviation_before_a_figure_holds_the_word_it_stands_for() -> None:
    """Held-out dev h106: "the bill number" is written "Bill no. 3139" on the bill."""
    from core.text import spelled_out

    assert spelled_out("Bill no. 3139") == ["number"]
    assert spelled_out("Tel. 059/987 6540") == ["telephone", "phone"]
    assert spelled_out("There is no way.") == []
    scores = lexical_scores("What is the bill number?", ["Bill no. 3139", "Bill amount CHF 3949"])
    assert scores[0] > scores[1]


def test_a_line_going_on_in_an_accented_lower_case_letter_is_the_same_sentence() -> None:
    """OCR of eurotext.tif: "Der schnelle braune Fuchs springt" / "über den faulen Hund." was
    split in two (only a-z counted as lower case), and each half read as its language alone."""
    from service.answering.retrieval import split_sentences

    text = "Der schnelle braune Fuchs springt\nüber den faulen Hund. Le renard\n«rapide» saute."
    assert split_sentences(text) == [
        "Der schnelle braune Fuchs springt über den faulen Hund.",
        "Le renard",
        "«rapide» saute.",
    ]
    assert split_sentences("Il a\nété vu.\nÇa va.") == ["Il a été vu.", "Ça va."]


def test_a_line_ending_on_a_comma_goes_on_into_the_next() -> None:
    """Held-out dev h036 ("Who signed the memo?"): "Best Regards," and "Mallori" were two
    sentences, and fitting kept the sign-off without the name. A comma ends no sentence; a
    colon, a stop or a line of its own still do."""
    from core.text import split_sentences

    memo = "May 5, 2023\nTo Whom it May Concern:\nThere were 3 trucks.\nBest Regards,\nMallori"
    assert split_sentences(memo) == [
        "May 5, 2023",
        "To Whom it May Concern:",
        "There were 3 trucks.",
        "Best Regards, Mallori",
    ]


def test_a_line_ending_on_a_word_no_sentence_ends_on_goes_on() -> None:
    """Held-out batch 5 dev h507: a narrow column's "total employment in the" / "United States
    will rise 20.5 million between" / "2010 and 2020, from about 143.1 million" / "to 163.5
    million." was three sentences, and fitting kept the one without the total. A line ending on
    an article, a preposition or a conjunction goes on; a heading line still stands alone."""
    from core.text import split_sentences

    column = (
        "BLS projects that total employment in the\nUnited States will rise 20.5 million "
        "between\n2010 and 2020, from about 143.1 million\nto 163.5 million.\nOutlook\nThe end"
    )
    assert split_sentences(column) == [
        "BLS projects that total employment in the United States will rise 20.5 million "
        "between 2010 and 2020, from about 143.1 million to 163.5 million.",
        "Outlook",
        "The end",
    ]
    assert split_sentences("Theme\nIn the\nNews") == ["Theme", "In the News"]
