"""Speaker names in the catalogue (issue 32, migration 0008): a name reaches the chunks at once
and every later version of the document, goes with its document, is imported once from an old
``speakers.json``, and a backup restores it. The catalogue is real (SQLite through Alembic, or
Postgres on the scaled pass); chunks are committed the way the pipeline commits them, with
stand-in vectors (no model is needed to keep a name)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from core import catalogue
from core.errors import InvalidInputError, NotFoundError
from core.knowledge import KnowledgeBase
from core.settings import HearthSettings
from ingest.speakers.names import FILE, IMPORTED, adopt_names_file, all_names
from service.backup.restore import restore
from service.backup.snapshot import backup
from service.speakers.service import find_document, list_speakers, rename
from tests.integration.conftest import backend_settings, run_hearth
from tests.integration.stored_talk import TURNS, commit_talk


def _names_in_chunks(kb: KnowledgeBase, doc: int) -> list[tuple[int, str | None]]:
    with kb.db.session() as s:
        return [
            (c.provenance["speaker"], c.provenance.get("speaker_name"))
            for c in catalogue.chunks_of(s, doc)
        ]


def test_a_name_reaches_the_chunks_and_every_later_version(
    kb: KnowledgeBase, settings: HearthSettings
) -> None:
    data = settings.data_dir
    doc = commit_talk(kb, "/rec/kitchen.wav", TURNS)
    assert find_document(kb.db, "/rec/kitchen.wav") == doc
    assert list_speakers(kb.db, doc, data) == {1: "Speaker 1", 2: "Speaker 2"}
    assert rename(kb.db, data, doc, 2, "  Maria   Lopez ") == 1
    assert list_speakers(kb.db, doc, data) == {1: "Speaker 1", 2: "Maria Lopez"}
    assert _names_in_chunks(kb, doc) == [(1, None), (2, "Maria Lopez"), (1, None)]
    assert all_names(kb.db, data) == ["Maria Lopez"]

    # A changed file: its new version (sections without names, as the loader makes them) is
    # committed to the same document, and speaker 2 is still Maria Lopez.
    again = commit_talk(kb, "/rec/kitchen.wav", [*TURNS, (2, "And the door.")])
    assert again == doc
    maria = (2, "Maria Lopez")
    assert _names_in_chunks(kb, doc) == [(1, None), maria, (1, None), maria]

    assert rename(kb.db, data, doc, 1, "Ole") == 2
    assert rename(kb.db, data, doc, 2, "") == 2  # back to "Speaker 2"
    commit_talk(kb, "/rec/kitchen.wav", TURNS)
    assert _names_in_chunks(kb, doc) == [(1, "Ole"), (2, None), (1, "Ole")]
    assert list_speakers(kb.db, doc, data) == {1: "Ole", 2: "Speaker 2"}


def test_bad_names_are_refused_naming_the_field_and_names_go_with_their_document(
    kb: KnowledgeBase, settings: HearthSettings
) -> None:
    data = settings.data_dir
    doc = commit_talk(kb, "/rec/a.wav", TURNS)
    with pytest.raises(InvalidInputError, match=r"a\.wav has no speaker 3") as err:
        rename(kb.db, data, doc, 3, "Nobody")
    assert err.value.field == "speaker"
    with pytest.raises(InvalidInputError) as err:
        rename(kb.db, data, doc, 1, "x" * 81)
    assert err.value.field == "name"
    with pytest.raises(NotFoundError):
        rename(kb.db, data, doc + 99, 1, "Ole")
    rename(kb.db, data, doc, 1, "Ole")
    other = commit_talk(kb, "/rec/b.wav", TURNS)
    rename(kb.db, data, other, 2, "Maria")
    assert all_names(kb.db, data) == ["Maria", "Ole"]

    with kb.db.session() as s:  # removed: its names go too, the other recording keeps its own
        catalogue.delete_documents(s, catalogue.documents_at(s, ["/rec/a.wav"]))
    assert all_names(kb.db, data) == ["Maria"]
    again = commit_talk(kb, "/rec/a.wav", TURNS)  # ingested anew: a new document, no names
    assert list_speakers(kb.db, again, data) == {1: "Speaker 1", 2: "Speaker 2"}


def test_an_old_speakers_json_is_imported_once(kb: KnowledgeBase, settings: HearthSettings) -> None:
    data = settings.data_dir
    doc = commit_talk(kb, "/rec/old.wav", TURNS)
    named = commit_talk(kb, "/rec/named.wav", TURNS)
    rename(kb.db, data, named, 1, "Kept")  # a name in the catalogue wins over the file's
    old = {
        "/rec/old.wav": {"2": "Maria", "x": "not a number", "1": ""},
        "/rec/named.wav": {"1": "From the file"},
        "/rec/gone.wav": {"1": "Nobody"},  # no such document any more
    }
    (data / FILE).write_text(json.dumps(old), encoding="utf-8")

    assert list_speakers(kb.db, doc, data) == {1: "Speaker 1", 2: "Maria"}
    assert not (data / FILE).exists() and (data / IMPORTED).is_file()
    assert list_speakers(kb.db, named, data) == {1: "Kept", 2: "Speaker 2"}
    assert adopt_names_file(kb.db, data) is None  # once: nothing left to import
    commit_talk(kb, "/rec/old.wav", [*TURNS, (2, "More.")])  # the imported name reaches a re-ingest
    assert _names_in_chunks(kb, doc)[-1] == (2, "Maria")

    (data / FILE).write_text("{not json", encoding="utf-8")  # unreadable: logged, set aside
    assert adopt_names_file(kb.db, data) == (0, 0)
    assert not (data / FILE).exists()


def test_a_backup_restores_the_names(settings: HearthSettings, tmp_path: Path) -> None:
    kb = KnowledgeBase(settings)
    try:
        doc = commit_talk(kb, "/rec/kitchen.wav", TURNS)
        rename(kb.db, settings.data_dir, doc, 2, "Maria")
    finally:
        kb.close()
    made = backup(settings, tmp_path / "backup")
    assert made.manifest["alembic_revision"] >= "0008"

    target = backend_settings(tmp_path / "restored")
    restore(target, tmp_path / "backup")
    back = KnowledgeBase(target)
    try:
        assert list_speakers(back.db, doc, target.data_dir) == {1: "Speaker 1", 2: "Maria"}
        commit_talk(back, "/rec/kitchen.wav", [*TURNS, (2, "Later.")])  # kept after the restore too
        assert _names_in_chunks(back, doc)[-1] == (2, "Maria")
    finally:
        back.close()


def test_the_cli_names_and_lists_speakers(settings: HearthSettings) -> None:
    kb = KnowledgeBase(settings)
    try:
        commit_talk(kb, "/rec/kitchen.wav", TURNS)
    finally:
        kb.close()
    data = settings.data_dir
    named = run_hearth(data, "speakers", "name", "/rec/kitchen.wav", "2", "Maria")
    assert named.returncode == 0, named.stderr
    assert named.stdout.strip() == "speaker 2: Maria (1 chunks)"
    listed = run_hearth(data, "speakers", "list", "/rec/kitchen.wav")
    assert listed.returncode == 0, listed.stderr
    assert listed.stdout.splitlines() == ["1\tSpeaker 1", "2\tMaria"]
    wrong = run_hearth(data, "speakers", "name", "/rec/kitchen.wav", "5", "Ole")
    assert wrong.returncode != 0 and "has no speaker 5" in wrong.stderr, wrong
