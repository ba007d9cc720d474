"""Which languages a question names as the part of a text to read, and which language a
sentence is in (lingua, its models inside the wheel)."""

from __future__ import annotations

import pytest

from core.languages import language_descriptions, language_words, languages_named, written_in


@pytest.mark.parametrize(
    ("question", "named"),
    [
        ("In the Portuguese sentence of the scan, what word is used for the dog?", ("PORTUGUESE",)),
        ("In the German part of the recording, which German word is used?", ("GERMAN",)),
        ("What is the French abstract about?", ("FRENCH",)),
        ("What does the title say in Spanish?", ("SPANISH",)),
        ("Which Norwegian words open the letter?", ("BOKMAL", "NYNORSK")),
        # a language as a fact, not as the part to read
        ("Which German company makes the car?", ()),
        ("How many people speak Dutch in Belgium?", ()),
        ("Who translated the novel from Russian to English?", ()),
    ],
)
def test_the_languages_a_question_names_as_the_part_to_read(
    question: str, named: tuple[str, ...]
) -> None:
    assert languages_named(question) == named


def test_the_words_naming_them_are_folded() -> None:
    assert language_words("In the GERMAN part, which word …") == {"german": ("GERMAN",)}


@pytest.mark.parametrize(
    ("text", "language", "expected"),
    [
        ("A raposa marrom rápida salta sobre o cão preguiçoso.", "PORTUGUESE", True),
        ("über den faulen Hund.", "GERMAN", True),
        ("Genehmigung wird hiermit kostenlos erteilt", "GERMAN", True),
        # low accuracy reads these as another language; the second look reads English
        ("- Lots of whitespace", "SWEDISH", False),
        ("Here's the attachments!", "GERMAN", False),
        ("Permission is hereby granted, free of charge", "GERMAN", False),
        ("A raposa marrom rápida salta sobre o cão preguiçoso.", "SPANISH", False),
        ("Le chien", "FRENCH", False),  # too short to tell
    ],
)
def test_a_sentence_is_written_in_a_language(text: str, language: str, expected: bool) -> None:
    assert written_in(text, language) is expected


def test_addresses_and_file_names_are_no_language() -> None:
    """An e-mail's "Attachments: fake-attachment.txt" line read as German (0.5) and was kept
    as the German sentence of the library (the CI of c8422ac)."""
    assert not written_in("Attachments: fake-attachment.txt", "GERMAN")
    assert not written_in("mallori@unstructured.io www.unstructured.io/docs", "GERMAN")
    german = "Schreiben Sie an info@beispiel.de oder besuchen Sie www.beispiel.de heute."
    assert written_in(german, "GERMAN")


@pytest.mark.parametrize(
    ("question", "words"),
    [
        ("According to the French book page, where did the octopus come from?", {"french"}),
        ("In the German fable in the email, where did the hares go?", {"german"}),
        ("According to the speaker in the English clip, what is six times ten?", {"english"}),
        (
            "In the German-language BFS table, what does the mark mean?",
            {"german", "german-language"},
        ),
        ("What score does the German OWASP Top 10 deck give A9?", {"german"}),
        ("In the Portuguese sentence of the scan, what is the dog?", {"portuguese"}),
        ("Which English king signed the charter?", set()),  # a language as a fact
        ("Which German company built the bridge?", set()),
    ],
)
def test_a_language_describing_a_document_is_one_of_its_descriptions(
    question: str, words: set[str]
) -> None:
    assert set(language_descriptions(question)) == words


def test_a_language_describing_a_document_is_held_by_a_passage_written_in_it() -> None:
    """Held-out dev h1228 ("According to the French book page, where did the octopus ... come
    from?") was declined, "No passage mentions French", though the model's reply was right: the
    page is French and no passage writes the word. A passage in French holds it; with none in
    French, an answer naming French stays unmentioned."""
    from service.answering.grounding import check

    question = (
        "According to the French book page, where did the octopus of Bernard de Fischer come from?"
    )
    page = "Le poulpe que Bernard de Fischer a décrit venait de la Grèce, dit le vieux naturaliste."
    reply = "According to the French book page, it came from Grèce [1]."
    assert check(reply, {1: page}, "", question).unmentioned == []
    english = "The octopus that Bernard de Fischer described came from Greece, the naturalist said."
    held = check(reply.replace("Grèce", "Greece"), {1: english}, "", question)
    assert held.unmentioned == ["French"], held
