"""Walking folders with symbolic links (ingest.files, ingest.ignore): what is listed, under which
path, and that no loop walks forever (issue 28, item 4)."""

from __future__ import annotations

from pathlib import Path

import pytest

from ingest.files import catalogue_path, is_link_loop, iter_files, link_problem
from ingest.ignore import IgnoreRules


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    """``lib`` with a plain file, links to a file and a folder outside, a dangling link, a
    self-loop, a link to its own ancestor and two folders linking to each other."""
    out = tmp_path / "out"
    (out / "d").mkdir(parents=True)
    (out / "t.txt").write_text("t")
    (out / "d" / "f.txt").write_text("f")
    lib = tmp_path / "lib"
    for folder in ("x", "y"):
        (lib / folder).mkdir(parents=True)
    (lib / "plain.txt").write_text("p")
    (lib / "file-link.txt").symlink_to(out / "t.txt")
    (lib / "dir-link").symlink_to(out / "d", target_is_directory=True)
    (lib / "dangling.txt").symlink_to("nowhere.txt")
    (lib / "self.txt").symlink_to("self.txt")
    (lib / "x" / "up").symlink_to("../..", target_is_directory=True)
    (lib / "x" / "to-y").symlink_to("../y", target_is_directory=True)
    (lib / "y" / "to-x").symlink_to("../x", target_is_directory=True)
    return lib


def _rel(paths: list[Path], root: Path) -> list[str]:
    return [p.relative_to(root).as_posix() for p in paths]


def test_following_lists_links_under_their_own_paths_and_loops_once(tree: Path) -> None:
    found = _rel(list(iter_files([tree], follow_symlinks=True)), tree)
    assert found == [
        "dangling.txt",
        "dir-link/f.txt",
        "file-link.txt",
        "plain.txt",
        "self.txt",
        "x/to-y/to-x",  # back into x through y: a loop, listed to be reported
        "x/up",
        "y/to-x/to-y",
        "y/to-x/up",
    ]
    watched = _rel(list(IgnoreRules([tree]).walk(tree)), tree)
    assert watched == [f for f in found if f != "dangling.txt"]  # to the watcher: a deletion


def test_not_following_lists_no_link(tree: Path) -> None:
    assert _rel(list(iter_files([tree], follow_symlinks=False)), tree) == ["plain.txt"]
    rules = IgnoreRules([tree], follow_symlinks=False)
    assert _rel(list(rules.walk(tree)), tree) == ["plain.txt"]
    assert rules.ignored(tree / "file-link.txt") and rules.ignored(tree / "dir-link" / "f.txt")
    assert not rules.ignored(tree / "plain.txt")


def test_named_links_keep_their_own_path(tree: Path) -> None:
    assert list(iter_files([tree / "file-link.txt"], follow_symlinks=False)) == [
        tree / "file-link.txt"
    ]
    assert list(iter_files([tree / "dir-link"], follow_symlinks=False)) == [
        tree / "dir-link" / "f.txt"
    ]
    assert catalogue_path(tree / "x" / ".." / "file-link.txt") == tree / "file-link.txt"
    assert catalogue_path(Path("/")) == Path("/")


def test_link_problems_name_the_link_and_say_why(tree: Path) -> None:
    assert link_problem(tree / "plain.txt") is None
    assert link_problem(tree / "file-link.txt") is None
    assert link_problem(tree / "dir-link") is None
    dangling = link_problem(tree / "dangling.txt") or ""
    assert dangling.startswith("dangling.txt: a broken symbolic link") and "nowhere.txt" in dangling
    for name in ("self.txt", "x/up", "x/to-y/to-x"):
        problem = link_problem(tree / name) or ""
        assert problem.startswith(f"{Path(name).name}: a symbolic link loop"), problem
        assert is_link_loop(tree / name)
    assert not is_link_loop(tree / "dangling.txt") and not is_link_loop(tree / "plain.txt")
