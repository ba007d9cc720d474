"""Finding files to ingest and hashing them; where a named file sits in the catalogue; symbolic
links.

Symbolic links below a folder are followed when ``ingest.follow_symlinks`` is on (the default):
a link to a file is read and recorded under the link's own path, a link to a folder is walked
and its files recorded under paths through the link; a link that leads back to itself or to a
folder above it (a loop) is handed on, so the pipeline records it as one failed file with its
reason. Off, links below a folder are neither read nor listed. A path named on the command line
(or a watched folder) is read even when it is itself a link.
"""

from __future__ import annotations

import errno
import hashlib
import os
from collections.abc import Callable, Iterator
from pathlib import Path

from core.errors import InvalidInputError


def sha256_of(path: Path) -> str:
    """Hex sha256 of a file's bytes."""
    digest = hashlib.sha256()
    with path.open("rb") as fh:
        while block := fh.read(1 << 20):
            digest.update(block)
    return digest.hexdigest()


def is_hidden(path: Path, root: Path) -> bool:
    """True for dot files and anything inside a dot folder below ``root``."""
    try:
        parts = path.relative_to(root).parts
    except ValueError:
        parts = path.parts
    return any(part.startswith(".") for part in parts)


def catalogue_path(raw: Path) -> Path:
    """The catalogue path of a file or folder a person names: absolute, ``~``, ``.`` and ``..``
    gone, the folders above it resolved, its own name kept (a named link is recorded under the
    link's path, not its target's). Never raises; a folder above it that cannot be resolved (a
    loop) is kept as written."""
    path = Path(os.path.abspath(raw.expanduser()))
    if not path.name:  # the file system's root
        return path
    try:
        return path.parent.resolve() / path.name
    except (OSError, RuntimeError):  # RuntimeError: Python 3.11's "Symlink loop"
        return path


def folder_loops(link: Path) -> bool:
    """True when the link ``link`` leads to a folder that holds it: the real path of its target
    is that of one of the folders it lies in (walking it would never end)."""
    try:
        target = link.resolve(strict=True)
        return any(target == folder.resolve() for folder in link.parents)
    except (OSError, RuntimeError):
        return False


def _link_kind(path: Path) -> str | None:
    """``"loop"``, ``"dangling"``, ``"folder loop"`` or ``"readable"`` for a symbolic link, None
    for anything else."""
    if not path.is_symlink():
        return None
    try:
        os.stat(path)
    except OSError as exc:
        return "loop" if exc.errno == errno.ELOOP else "dangling"
    return "folder loop" if path.is_dir() and folder_loops(path) else "readable"


def link_problem(path: Path) -> str | None:
    """Why ``path`` cannot be read through its symbolic link, or None (not a link, or a readable
    one): a broken link, a loop of links, or a link to a folder that holds it. The text names the
    link, as every failure reason does."""
    kind = _link_kind(path)
    if kind is None or kind == "readable":
        return None
    target = os.readlink(path)
    if kind == "dangling":
        return (
            f"{path.name}: a broken symbolic link (its target {target} does not exist); fix or "
            "remove the link"
        )
    what = "leads back to itself" if kind == "loop" else "is a folder that holds the link"
    return f"{path.name}: a symbolic link loop (its target {target} {what}); fix or remove the link"


def is_link_loop(path: Path) -> bool:
    """True for a symbolic link that can never be read: a loop of links, or a link to a folder
    that holds it (a dangling link is not a loop)."""
    return _link_kind(path) in ("loop", "folder loop")


def walk_files(
    folder: Path,
    *,
    follow_symlinks: bool,
    enter: Callable[[Path], bool],
    keep: Callable[[Path], bool],
    dangling: bool,
) -> Iterator[Path]:
    """Every file below ``folder`` (sorted, depth first) whose path ``keep`` accepts, entering
    the folders ``enter`` accepts.

    With ``follow_symlinks`` links to files are listed and links to folders walked; a link loop
    (:func:`is_link_loop`) is listed so that it is reported, and so is a dangling link when
    ``dangling`` is set. Without it, no link is listed or walked. Unreadable folders are skipped.
    """
    try:
        with os.scandir(folder) as found:
            entries = sorted(found, key=lambda e: e.name)
    except OSError:
        return
    for entry in entries:
        path = folder / entry.name
        link = entry.is_symlink()
        if link and not follow_symlinks:
            continue
        # Path's tests, unlike DirEntry's, take a link loop for "neither" instead of raising.
        if link:
            is_dir, is_file = path.is_dir(), path.is_file()
        else:
            is_dir, is_file = entry.is_dir(), entry.is_file()
        if is_dir:
            if link and folder_loops(path):
                if keep(path):
                    yield path
            elif enter(path):
                yield from walk_files(
                    path,
                    follow_symlinks=follow_symlinks,
                    enter=enter,
                    keep=keep,
                    dangling=dangling,
                )
        elif (is_file or (link and (dangling or is_link_loop(path)))) and keep(path):
            yield path


def iter_files(paths: list[Path], *, follow_symlinks: bool) -> Iterator[Path]:
    """Files named directly, and every non-hidden file below named folders, sorted; links below
    the folders as :func:`walk_files` says (dangling ones listed, to be reported)."""
    for raw in paths:
        path = catalogue_path(raw)
        if path.is_dir():

            def visible(child: Path, root: Path = path) -> bool:
                return not is_hidden(child, root)

            yield from walk_files(
                path, follow_symlinks=follow_symlinks, enter=visible, keep=visible, dangling=True
            )
        elif path.is_file() or path.is_symlink():  # a named link loop or dangling link: reported
            yield path
        else:
            raise InvalidInputError(f"{raw}: no such file or folder")
