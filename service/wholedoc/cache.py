"""Whole-document results kept per document version: DATA_DIR/wholedoc/<mode>-<what>-<key>.json.

The key hashes the mode, what was asked, every document's path + content sha256 + chunk count,
the prompts' version and the model's sha256, so a changed document, prompt or model never reuses
a result. A result is written to a temporary file and renamed into place, so a run stopped
half-way (or a crash) leaves no entry; writing a result removes the older ones of the same
request (the documents' earlier versions).
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from pathlib import Path
from typing import Any


def request_key(mode: str, what: str, paths: list[str]) -> str:
    """What the request is about, whatever the documents' versions: 16 hex digits."""
    text = json.dumps([mode, what.strip().lower(), sorted(paths)])
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def version_key(version: str, template_version: int, model_sha256: str) -> str:
    """Which versions of documents, prompts and model made the result: 32 hex digits."""
    text = f"{version}\0{template_version}\0{model_sha256}"
    return hashlib.sha256(text.encode()).hexdigest()[:32]


class ResultCache:
    """JSON results in ``folder`` (created on first write)."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder

    def _path(self, mode: str, request: str, version: str) -> Path:
        return self.folder / f"{mode}-{request}-{version}.json"

    def get(self, mode: str, request: str, version: str) -> dict[str, Any] | None:
        """The stored result, or None (absent or unreadable)."""
        try:
            data = json.loads(self._path(mode, request, version).read_text("utf-8"))
        except (OSError, ValueError):
            return None
        return data if isinstance(data, dict) else None

    def put(self, mode: str, request: str, version: str, result: dict[str, Any]) -> Path:
        """Store ``result`` atomically and drop the same request's results of other versions."""
        self.folder.mkdir(parents=True, exist_ok=True)
        target = self._path(mode, request, version)
        fd, tmp = tempfile.mkstemp(dir=self.folder, prefix=".tmp-", suffix=".json")
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as fh:
                json.dump(result, fh, ensure_ascii=False)
            os.replace(tmp, target)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise
        for old in self.folder.glob(f"{mode}-{request}-*.json"):
            if old != target:
                old.unlink(missing_ok=True)
        return target

    def entries(self) -> list[Path]:
        """Every stored result."""
        return sorted(self.folder.glob("*.json")) if self.folder.is_dir() else []
