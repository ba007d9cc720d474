"""Which files below a watched folder are watched: hidden and temporary files are not.

Rules, in order: a path outside every root is not watched; dot files and anything in a dot folder
are ignored (``ignore_hidden``); names matching an ``ignore`` glob (swap files, ``~$`` Office
locks, partial downloads) are ignored; if ``include`` globs are set a file must match one; a file
matching an ``exclude`` glob is ignored. A glob without ``/`` matches the file name, one with
``/`` the path relative to its root folder (``*`` crosses ``/``, as in :mod:`fnmatch`). Without
``follow_symlinks`` a path through a symbolic link below its root is ignored (see
:mod:`ingest.files` for links that are followed).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from fnmatch import fnmatchcase
from pathlib import Path

from core.settings import DEFAULT_IGNORE, WatchSettings
from ingest.files import catalogue_path, walk_files


class IgnoreRules:
    """Decides, for a path below one of the ``roots``, whether it is watched."""

    def __init__(
        self,
        roots: Iterable[Path],
        *,
        ignore_hidden: bool = True,
        ignore: Iterable[str] = DEFAULT_IGNORE,
        include: Iterable[str] = (),
        exclude: Iterable[str] = (),
        skip: Iterable[Path] = (),
        follow_symlinks: bool = True,
    ) -> None:
        # Longest root first, so a file in nested roots is judged relative to the nearest one.
        self.roots = sorted({catalogue_path(r) for r in roots}, key=lambda r: -len(r.parts))
        self.ignore_hidden = ignore_hidden
        self.ignore = tuple(ignore)
        self.include = tuple(include)
        self.exclude = tuple(exclude)
        self.skip = tuple(p.expanduser().resolve() for p in skip)  # e.g. the data directory
        self.follow_symlinks = follow_symlinks

    @classmethod
    def from_settings(
        cls,
        roots: Iterable[Path],
        settings: WatchSettings,
        skip: Iterable[Path] = (),
        *,
        follow_symlinks: bool = True,
    ) -> IgnoreRules:
        """Rules for ``roots`` from the ``watch`` settings (and ``ingest.follow_symlinks``);
        nothing below ``skip`` is watched."""
        return cls(
            roots,
            ignore_hidden=settings.ignore_hidden,
            ignore=settings.ignore,
            include=settings.include,
            exclude=settings.exclude,
            skip=skip,
            follow_symlinks=follow_symlinks,
        )

    def root_of(self, path: Path) -> Path | None:
        """The watched root ``path`` lies in, or None (also for anything below a skipped folder)."""
        if any(path == s or path.is_relative_to(s) for s in self.skip):
            return None
        for root in self.roots:
            if path == root or path.is_relative_to(root):
                return root
        return None

    def dir_ignored(self, path: Path) -> bool:
        """True for a folder whose whole content is ignored (a dot folder, or outside the roots)."""
        root = self.root_of(path)
        if root is None:
            return True
        parts = path.relative_to(root).parts
        return self.ignore_hidden and any(p.startswith(".") for p in parts)

    def ignored(self, path: Path) -> bool:
        """True when the file at ``path`` is not watched."""
        root = self.root_of(path)
        if root is None or path == root:
            return True
        rel = path.relative_to(root)
        if self.ignore_hidden and any(p.startswith(".") for p in rel.parts):
            return True
        if not self.follow_symlinks and _through_link(path, root):
            return True
        name, posix = rel.name, rel.as_posix()
        if any(fnmatchcase(name, pat) for pat in self.ignore):
            return True
        if self.include and not any(_match(name, posix, pat) for pat in self.include):
            return True
        return any(_match(name, posix, pat) for pat in self.exclude)

    def walk(self, folder: Path) -> Iterator[Path]:
        """Every watched file below ``folder``, skipping ignored folders without entering them;
        links followed or not by ``follow_symlinks``, loops listed (to be reported), dangling
        links not (to the watcher they are files that went away)."""
        yield from walk_files(
            folder,
            follow_symlinks=self.follow_symlinks,
            enter=lambda d: not self.dir_ignored(d),
            keep=lambda f: not self.ignored(f),
            dangling=False,
        )


def _through_link(path: Path, root: Path) -> bool:
    """True when ``path`` or a folder between it and ``root`` is a symbolic link."""
    while path != root and path != path.parent:
        if path.is_symlink():
            return True
        path = path.parent
    return False


def _match(name: str, posix: str, pattern: str) -> bool:
    return fnmatchcase(posix, pattern) if "/" in pattern else fnmatchcase(name, pattern)
