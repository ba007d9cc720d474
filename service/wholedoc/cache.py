"""Whole-document results kept per document version: DATA_DIR/wholedoc/<mode>-<what>-<key>.json,
and the reply of each model call (a group's map, a reduce batch) per prompt:
DATA_DIR/wholedoc/calls/<key>.json.

A result's key hashes the mode, what was asked, every document's path + content sha256 + chunk
count, the prompts' version and the model's sha256, so a changed document, prompt or model never
reuses a result. A call's key hashes the model's sha256 and the prompt itself (which holds the
group's chunk texts and the template), so a document changed in one place is read again only in
the groups whose chunks changed: the other groups' replies are reused and grounded again against
the chunks as they are now. Files are written to a temporary file and renamed into place, and a
run's call replies only once the run has ended, so a run stopped half-way (or a crash) leaves no
entry; writing a result removes the older ones of the same request (the documents' earlier
versions) and the call replies only they used.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import tempfile
from pathlib import Path
from typing import Any

from service.llm.base import ChatMessage

CALLS = "calls"


def request_key(mode: str, what: str, paths: list[str]) -> str:
    """What the request is about, whatever the documents' versions: 16 hex digits."""
    text = json.dumps([mode, what.strip().lower(), sorted(paths)])
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def version_key(version: str, template_version: str, model_sha256: str) -> str:
    """Which versions of documents, prompts (:attr:`Prompts.version`) and model made the
    result: 32 hex digits."""
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
        data = self.get_path(self._path(mode, request, version))
        if data is not None:
            data.pop("call_keys", None)
        return data

    def put(
        self,
        mode: str,
        request: str,
        version: str,
        result: dict[str, Any],
        calls: CallMemo | None = None,
    ) -> Path:
        """Store ``result`` (and the new replies of ``calls``) atomically; drop the same
        request's results of other versions and the call replies only those used."""
        used = sorted(calls.used) if calls is not None else []
        if calls is not None:
            calls.commit()
        target = self._path(mode, request, version)
        _write_json(target, {**result, "call_keys": used})
        keep = set(used)
        for old in self.folder.glob(f"{mode}-{request}-*.json"):
            if old == target:
                continue
            stale = self.get_path(old)
            old.unlink(missing_ok=True)
            for key in (stale or {}).get("call_keys", []):
                if isinstance(key, str) and key not in keep and _KEY.fullmatch(key):
                    (self.folder / CALLS / f"{key}.json").unlink(missing_ok=True)
        return target

    @staticmethod
    def get_path(path: Path) -> dict[str, Any] | None:
        """The JSON object in ``path``, or None (absent or unreadable)."""
        try:
            data = json.loads(path.read_text("utf-8"))
        except (OSError, ValueError):
            return None
        return data if isinstance(data, dict) else None

    def calls(self, salt: str, read: bool = True) -> CallMemo:
        """The call replies of one run (``salt``: what besides the prompt makes a reply, the
        model's sha256; ``read`` False: stored replies are not used, only replaced)."""
        return CallMemo(self.folder / CALLS, salt, read)

    def entries(self) -> list[Path]:
        """Every stored result."""
        return sorted(self.folder.glob("*.json")) if self.folder.is_dir() else []


_KEY = re.compile(r"[0-9a-f]{32}")


def _write_json(target: Path, data: dict[str, Any]) -> None:
    """``data`` written to a temporary file beside ``target`` and renamed into place."""
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=".tmp-", suffix=".json")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            json.dump(data, fh, ensure_ascii=False)
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


class CallMemo:
    """The replies of one run's model calls, by prompt: earlier runs' replies found in
    ``folder`` (unless ``read`` is False), this run's held in memory until :meth:`commit` (a
    stopped run writes none). ``hits`` counts the calls answered from the folder."""

    def __init__(self, folder: Path, salt: str, read: bool = True) -> None:
        self.folder = folder
        self.salt = salt
        self.read = read
        self.pending: dict[str, str] = {}
        self.used: set[str] = set()
        self.hits = 0

    def key(self, messages: list[ChatMessage], max_tokens: int) -> str:
        """32 hex digits of the model's salt, the prompt's messages and the reply's length."""
        text = json.dumps([self.salt, max_tokens, [[m["role"], m["content"]] for m in messages]])
        return hashlib.sha256(text.encode()).hexdigest()[:32]

    def get(self, messages: list[ChatMessage], max_tokens: int) -> str | None:
        """The stored reply to this prompt, or None."""
        key = self.key(messages, max_tokens)
        reply = self.pending.get(key)
        if reply is None and not self.read:
            return None
        if reply is None:
            data = ResultCache.get_path(self.folder / f"{key}.json")
            reply = data.get("reply") if data is not None else None
            if not isinstance(reply, str):
                return None
            self.hits += 1
        self.used.add(key)
        return reply

    def add(self, messages: list[ChatMessage], max_tokens: int, reply: str) -> None:
        """Hold the reply to this prompt until :meth:`commit`."""
        key = self.key(messages, max_tokens)
        self.pending[key] = reply
        self.used.add(key)

    def commit(self) -> int:
        """Write the held replies (each atomically); how many were written."""
        for key, reply in self.pending.items():
            _write_json(self.folder / f"{key}.json", {"reply": reply})
        written = len(self.pending)
        self.pending = {}
        return written
