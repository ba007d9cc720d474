"""``hearth export BUNDLE`` / ``hearth import BUNDLE``: an assistant carried as one tar archive.

The archive holds ``manifest.json`` first, then the model files in use (the LLM's GGUF, the
Whisper folder, the embedder folder, the voice and its .onnx.json), ``templates.json`` (every
version of every prompt template, ``TemplateService.export``) and ``settings.toml`` (the
non-secret settings, model entries pointing into the imported folder). The manifest lists every
member with its size and sha256, and each model's name, role, origin and licence.

Import extracts into a staging folder beside the data directory, checks every member against the
manifest (and that nothing is missing, extra or outside the archive's root), and only then moves
the files into ``data_dir/imported`` and adds the templates; a refused bundle names the file at
fault and leaves the data directory as it was.
"""

from __future__ import annotations

import hashlib
import io
import json
import shutil
import tarfile
import time
from pathlib import Path, PurePosixPath
from typing import Any

from core.bundled import CHUNK, PACKAGED, packaged_path, resolve_llm, sha256_file
from core.db.session import Database
from core.errors import InvalidInputError, LoaderError
from core.settings import HearthSettings
from core.speech import whisper_path
from core.tts import voice_path
from service.templates.service import TemplateService

FORMAT = 1
MANIFEST = "manifest.json"
LICENCES = {
    "qwen2.5-coder-1.5b": "Apache-2.0", "qwen2.5-coder-0.5b": "Apache-2.0",
    "smollm2-135m": "Apache-2.0", "all-MiniLM-L6-v2": "Apache-2.0", "whisper-tiny.en": "MIT",
    "en_US-joe-medium": "CC0-1.0", "ge2e-speaker-encoder": "Apache-2.0",
}  # fmt: skip
#: Settings never carried: where this machine keeps things, and anything secret.
LOCAL_ONLY = {"data_dir", "models_dir", "database_url", "log_file", "memory_extra"}
#: A setting whose name ends so is treated as secret (``max_tokens`` is not; ``api_key`` is).
SECRET_ENDINGS = ("key", "token", "password", "secret")


def _model_files(settings: HearthSettings) -> list[tuple[str, str, list[Path], Path]]:
    """(role, name, files, root) of each model in use; files are under root."""
    llm = resolve_llm(settings.llm.model, settings.models_dir)
    whisper = whisper_path(settings.speech.model)
    emb_name = settings.embedder.model
    embedder = packaged_path(emb_name) if emb_name in PACKAGED else Path(emb_name).expanduser()
    voice = voice_path(settings.tts.voice, verify=False)
    return [
        ("llm", settings.llm.model, [llm], llm.parent),
        (
            "speech",
            settings.speech.model,
            sorted(p for p in whisper.rglob("*") if p.is_file()),
            whisper,
        ),
        ("embedder", emb_name, sorted(p for p in embedder.rglob("*") if p.is_file()), embedder),
        ("voice", settings.tts.voice, [voice, Path(f"{voice}.json")], voice.parent),
    ]


def portable_settings(settings: HearthSettings) -> dict[str, Any]:
    """The settings without local paths or secrets."""

    def clean(d: dict[str, Any]) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for k, v in d.items():
            if k in LOCAL_ONLY or k.lower().endswith(SECRET_ENDINGS) or v is None:
                continue
            out[k] = clean(v) if isinstance(v, dict) else v
        return out

    return clean(settings.model_dump(mode="json"))


def to_toml(data: dict[str, Any], prefix: str = "") -> str:
    """A minimal TOML writer for nested tables of strings, numbers, booleans and lists."""
    scalars = [(k, v) for k, v in data.items() if not isinstance(v, dict)]
    lines = [f"[{prefix}]"] if prefix and scalars else []
    lines += [f"{k} = {json.dumps(v)}" for k, v in scalars]
    text = "\n".join(lines) + ("\n\n" if lines else "")
    for k, v in data.items():
        if isinstance(v, dict):
            text += to_toml(v, f"{prefix}.{k}" if prefix else k)
    return text


def export_bundle(settings: HearthSettings, bundle: Path) -> dict[str, Any]:
    """Write the bundle; returns its manifest."""
    db = Database(settings.sqlalchemy_url)
    try:
        db.migrate()
        templates = json.dumps(TemplateService(db).export(), indent=2).encode()
    finally:
        db.dispose()
    carried = portable_settings(settings)
    members: list[tuple[str, Path | bytes]] = []
    models: list[dict[str, Any]] = []
    for role, name, paths, root in _model_files(settings):
        entries = []
        for path in paths:
            arc = f"models/{role}/{path.relative_to(root).as_posix()}"
            members.append((arc, path))
            entries.append(arc)
        source = PACKAGED[name].pip_name if name in PACKAGED else "file"
        licence = LICENCES.get(name, "see its source")
        models.append(
            {"role": role, "name": name, "files": entries, "licence": licence, "source": source}
        )
        main = entries[0] if role in ("llm", "voice") else f"models/{role}"
        section = "tts" if role == "voice" else role
        key = "voice" if role == "voice" else "model"
        carried.setdefault(section, {})[key] = main
    members.append(("templates.json", templates))
    members.append(("settings.toml", to_toml(carried).encode()))
    files: dict[str, dict[str, Any]] = {}
    for arc, item in members:
        if isinstance(item, bytes):
            files[arc] = {"size": len(item), "sha256": hashlib.sha256(item).hexdigest()}
        else:
            files[arc] = {"size": item.stat().st_size, "sha256": sha256_file(item)}
    manifest = {
        "format": FORMAT,
        "created_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "hearth_version": "0.1.0",
        "models": models,
        "files": files,
    }
    tmp = bundle.with_suffix(bundle.suffix + ".part")
    with tarfile.open(tmp, "w") as tar:
        _add_bytes(tar, MANIFEST, json.dumps(manifest, indent=2).encode())
        for arc, item in members:
            if isinstance(item, bytes):
                _add_bytes(tar, arc, item)
            else:
                tar.add(item, arcname=arc, recursive=False)
    tmp.replace(bundle)
    return manifest


def _add_bytes(tar: tarfile.TarFile, name: str, data: bytes) -> None:
    info = tarfile.TarInfo(name)
    info.size = len(data)
    info.mtime = int(time.time())
    tar.addfile(info, io.BytesIO(data))


def _verified_staging(bundle: Path, staging: Path) -> dict[str, Any]:
    """Extract ``bundle`` into ``staging`` checking every member; ``LoaderError`` naming it."""
    try:
        with tarfile.open(bundle, "r:") as tar:
            first = tar.next()
            if first is None or first.name != MANIFEST:
                raise LoaderError(f"{bundle}: {MANIFEST} is not the first member", field="BUNDLE")
            reader = tar.extractfile(first)
            assert reader is not None
            manifest: dict[str, Any] = json.loads(reader.read())
            expected = dict(manifest["files"])
            for member in tar:
                if member is first:
                    continue
                name = member.name
                if name not in expected or not member.isfile():
                    raise LoaderError(f"{bundle}: {name}: not listed in the manifest")
                if PurePosixPath(name).is_absolute() or ".." in PurePosixPath(name).parts:
                    raise LoaderError(f"{bundle}: {name}: unsafe path")
                info = expected.pop(name)
                out = staging / name
                out.parent.mkdir(parents=True, exist_ok=True)
                digest, size = hashlib.sha256(), 0
                src = tar.extractfile(member)
                assert src is not None
                try:
                    with out.open("wb") as fh:
                        while block := src.read(CHUNK):
                            digest.update(block)
                            size += len(block)
                            fh.write(block)
                except (tarfile.TarError, EOFError) as exc:
                    raise LoaderError(
                        f"{bundle}: {name}: cut short (truncated bundle: {exc})", field="BUNDLE"
                    ) from exc
                if size != info["size"] or digest.hexdigest() != info["sha256"]:
                    raise LoaderError(
                        f"{bundle}: {name}: size or sha256 differs from the manifest "
                        "(tampered or damaged)",
                        field="BUNDLE",
                    )
            if expected:
                raise LoaderError(f"{bundle}: {next(iter(expected))}: missing (truncated bundle)")
    except (tarfile.TarError, EOFError, OSError, ValueError, KeyError) as exc:
        raise LoaderError(
            f"{bundle}: not a readable Hearth bundle ({exc})", field="BUNDLE"
        ) from exc
    return manifest


def import_bundle(settings: HearthSettings, bundle: Path) -> dict[str, Any]:
    """Verify the whole bundle, then install it into ``data_dir/imported``; returns a summary
    (``settings``: the path of the settings file to use with ``HEARTH_CONFIG``)."""
    target = settings.data_dir / "imported"
    if target.exists():
        raise InvalidInputError(
            f"{target} exists: import into a data directory once", field="BUNDLE"
        )
    settings.data_dir.parent.mkdir(parents=True, exist_ok=True)
    staging = settings.data_dir.parent / f".{settings.data_dir.name}.import-{time.time_ns()}"
    staging.mkdir()
    try:
        manifest = _verified_staging(bundle, staging)
        toml = (staging / "settings.toml").read_text()
        # model entries are relative to the imported folder: make them absolute
        for key in ('model = "models/', 'voice = "models/'):
            toml = toml.replace(key, key.replace('"models/', f'"{target.resolve()}/models/'))
        (staging / "settings.toml").write_text(toml)
        templates = json.loads((staging / "templates.json").read_text())
        settings.data_dir.mkdir(parents=True, exist_ok=True)
        db = Database(settings.sqlalchemy_url)
        try:
            db.migrate()
            added = TemplateService(db).import_(templates)
        finally:
            db.dispose()
        staging.replace(target)
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return {"models": manifest["models"], "templates": added, "settings": target / "settings.toml"}
