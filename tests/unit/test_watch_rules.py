"""Ignore patterns and debounce book-keeping of the folder watcher (pure logic, fakes only)."""

from __future__ import annotations

from pathlib import Path

import pytest

from core.settings import WatchSettings
from ingest.debounce import Debouncer, Signature
from ingest.ignore import IgnoreRules

ROOT = Path("/data/notes")


def rules(**kw: object) -> IgnoreRules:
    return IgnoreRules.from_settings([ROOT], WatchSettings(**kw))  # type: ignore[arg-type]


@pytest.mark.parametrize(
    "name",
    [
        ".hidden.txt",
        ".git/config.md",
        "sub/.cache/page.html",
        "report.docx.swp",
        ".report.md.swp",
        "notes.txt~",
        "~$budget.docx",
        ".~lock.sheet.odt#",
        "#draft.md#",
        "movie.mp4.part",
        "paper.pdf.crdownload",
        "upload.tmp",
        "sub/dir/scratch.TEMP.tmp",
    ],
)
def test_temporary_and_hidden_files_are_ignored_by_default(name: str) -> None:
    assert rules().ignored(ROOT / name)


@pytest.mark.parametrize("name", ["a.txt", "sub/dir/b.md", "report.docx", "tilde~in.middle.txt"])
def test_ordinary_files_are_watched(name: str) -> None:
    assert not rules().ignored(ROOT / name)


def test_outside_every_root_and_the_root_itself_are_not_watched() -> None:
    r = rules()
    assert r.ignored(Path("/data/other/a.txt"))
    assert r.ignored(ROOT)
    assert r.root_of(ROOT / "x" / "a.txt") == ROOT


def test_hidden_files_can_be_let_in() -> None:
    assert not rules(ignore_hidden=False).ignored(ROOT / ".notes.md")
    assert rules(ignore_hidden=False).ignored(ROOT / ".notes.md.swp")  # still a swap file


def test_include_patterns_on_name_and_relative_path() -> None:
    r = rules(include=["*.md", "papers/*.pdf"])
    assert not r.ignored(ROOT / "deep" / "x.md")
    assert not r.ignored(ROOT / "papers" / "a.pdf")
    assert not r.ignored(ROOT / "papers" / "2024" / "b.pdf")  # '*' crosses '/', as fnmatch does
    assert r.ignored(ROOT / "other" / "a.pdf")
    assert r.ignored(ROOT / "x.txt")


def test_exclude_wins_over_include() -> None:
    r = rules(include=["*.md"], exclude=["drafts/*", "*secret*"])
    assert r.ignored(ROOT / "drafts" / "x.md")
    assert r.ignored(ROOT / "my-secret.md")
    assert not r.ignored(ROOT / "final" / "x.md")


def test_nested_roots_match_relative_to_the_nearest() -> None:
    inner = ROOT / "inner"
    r = IgnoreRules([ROOT, inner], exclude=["inner/*"])
    assert r.root_of(inner / "a.txt") == inner
    assert not r.ignored(inner / "a.txt")  # relative to inner it is just "a.txt"


def test_a_skipped_folder_inside_a_root_is_not_watched() -> None:
    r = IgnoreRules([ROOT], skip=[ROOT / "hearth-data"])
    assert r.ignored(ROOT / "hearth-data" / "notes.txt")
    assert r.dir_ignored(ROOT / "hearth-data" / "chroma")
    assert not r.ignored(ROOT / "hearth-data-old.txt")


def test_walk_skips_ignored_folders_and_files(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    (tmp_path / ".git" / "x.txt").write_text("x")
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "a.txt").write_text("a")
    (tmp_path / "sub" / "a.txt.swp").write_text("a")
    (tmp_path / "b.md").write_text("b")
    found = list(IgnoreRules([tmp_path]).walk(tmp_path))
    assert found == [tmp_path / "b.md", tmp_path / "sub" / "a.txt"]


class FakeFiles:
    """A clock and a stat function under the test's control."""

    def __init__(self) -> None:
        self.now = 0.0
        self.sigs: dict[Path, Signature] = {}

    def clock(self) -> float:
        return self.now

    def stat(self, path: Path) -> Signature:
        return self.sigs.get(path)

    def debouncer(self, quiet: float = 1.0, hold: float = 5.0) -> Debouncer:
        return Debouncer(quiet, hold=hold, stat=self.stat, clock=self.clock)


A, B = Path("/w/a.txt"), Path("/w/b.txt")


def test_a_file_is_due_only_after_it_stopped_changing() -> None:
    fs = FakeFiles()
    d = fs.debouncer(quiet=1.0)
    fs.sigs[A] = (10, 1)
    d.touch(A)
    for size in (20, 30, 40):  # still being written: each check sees a new size
        fs.now += 0.6
        fs.sigs[A] = (size, size)
        assert d.due() == []
    fs.now += 0.6
    assert d.due() == []  # stable, but only for 0.6 s
    fs.now += 0.5
    assert d.due() == [A]
    assert len(d) == 0 and d.due() == []


def test_an_event_restarts_the_quiet_period() -> None:
    fs = FakeFiles()
    d = fs.debouncer(quiet=1.0)
    fs.sigs[A] = (1, 1)
    d.touch(A)
    fs.now = 0.9
    d.touch(A)
    fs.now = 1.5
    assert d.due() == []
    fs.now = 2.0
    assert d.due() == [A]


def test_a_vanished_path_waits_for_its_move_partner_to_settle() -> None:
    fs = FakeFiles()
    d = fs.debouncer(quiet=1.0, hold=5.0)
    d.touch(A)  # gone (no signature): the old half of a move
    fs.sigs[B] = (5, 1)
    d.touch(B)
    fs.now = 0.5
    fs.sigs[B] = (9, 2)  # the new half is still being written
    assert d.due() == []
    fs.now = 1.2
    assert d.due() == []  # A is quiet, but held back while B settles
    fs.now = 1.6
    assert d.due() == [A, B]  # handed on together, so they can be paired


def test_a_vanished_path_is_not_held_forever() -> None:
    fs = FakeFiles()
    d = fs.debouncer(quiet=1.0, hold=3.0)
    d.touch(A)
    fs.sigs[B] = (1, 1)
    d.touch(B)
    for step in range(1, 8):  # B keeps changing
        fs.now = step * 0.5
        fs.sigs[B] = (step, step)
        due = d.due()
        if fs.now >= 3.0:
            assert due == [A]
            break
        assert due == []
    else:
        pytest.fail("the vanished path was never handed on")
