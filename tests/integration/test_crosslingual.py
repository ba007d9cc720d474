"""Issue 35: an English question over passages in another language (a French radio excerpt, an
Italian e-mail) is translated by the default model before fitting, so the sentence answering it
is among those the model reads; the translation is part of the answer's recipe and a replay
fits the same passages. Real embedder, stores and default model (``slow``)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from core.languages import language_of
from service.answering.orchestration import replay
from service.state import Hearth
from tests.integration.conftest import hearth_on_library

#: A French note long enough that fitting to the default budget must choose its sentences;
#: the answer ("vingt ans") sits mid-way, among sentences on the same topic.
FRENCH = """# Le code a changé : notes d'écoute

C'est évident ce que dit Nicolas, mais je ne l'avais jamais formulé comme ça : ce qui fait la
force du smartphone, ce n'est pas seulement l'accumulation des fonctions, mais la manière dont
elles interagissent entre elles. Il faudrait ajouter les interfaces, et l'écran tactile a été
très souvent mentionné pendant l'émission. Le smartphone ajoute le toucher, il rend le contact
plus direct, plus sensible. Cela faisait alors vingt ans que les ordinateurs nous apprenaient à
cliquer sur des icônes, et le geste s'est déplacé du bureau à la poche. Bref, ce sont les
conditions qui permettent de créer cet objet, dont Nicolas dit qu'il est vraisemblablement
inédit dans l'histoire des techniques. Est-ce que le rapport qu'on a au smartphone est
comparable à celui qu'on entretenait à d'autres objets techniques comme la voiture ou le
téléphone ? Le môme qui occupait la ligne une heure chaque soir ne ressemblait pas à celui
qu'on voit aujourd'hui, continuellement avec son écran. La dépendance du sentier explique en
partie pourquoi nous gardons nos habitudes, même quand de meilleures solutions existent.
"""
ENGLISH = """# Garden notes

The tomatoes went in on the third of May. The courgettes were sown under glass a week before
and planted out once the nights were warm. The water butt by the shed holds two hundred litres.
"""
QUESTION = (
    "In my radio listening notes, for how many years had computers been teaching us to click on "
    "icons?"
)


def write_library(folder: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "notes-ecoute.md").write_text(FRENCH)
    (folder / "garden.md").write_text(ENGLISH)
    return folder


@pytest.fixture(scope="module")
def hearth(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Hearth]:
    """Hearth on the library above with the default model (loaded once for the module)."""
    yield from hearth_on_library(tmp_path_factory.mktemp("crosslingual"), write_library)


@pytest.mark.slow
def test_a_question_over_passages_in_another_language_is_translated_for_fitting(
    hearth: Hearth,
) -> None:
    answer = hearth.answers.answer(QUESTION).as_dict()
    assert answer["timings"].get("translate_s", 0) > 0, answer["timings"]
    given = " ".join(s["text"] for s in answer["sources"])
    assert "vingt ans" in given, given  # the answering sentence reached the model
    record = hearth.answers.records.get(answer["answer_id"])
    translated = record.retrieval["translated_question"]
    assert language_of(translated) == "FRENCH", translated
    again = replay(hearth.answers, answer["answer_id"])
    assert again.same_sources and again.same_text, again


@pytest.mark.slow
def test_a_question_over_passages_in_its_own_language_is_not_translated(hearth: Hearth) -> None:
    answer = hearth.answers.answer("When did the tomatoes go in, according to my garden notes?")
    timings = answer.as_dict()["timings"]
    assert "translate_s" not in timings, timings
    record = hearth.answers.records.get(answer.answer_id or 0)
    assert "translated_question" not in record.retrieval
