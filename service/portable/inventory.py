"""Every model file Hearth knows: the bundled ones, the configured ones, and those the catalogue
records as having answered questions, each with its sha256 and where it came from.

Bundled split GGUFs and the bundled voice carry their published sha256 (checked when they are
assembled or loaded); the other files are hashed here (about 1 s for the small bundled models).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from core.bundled import (
    PACKAGED,
    PACKAGED_SHA256,
    SPLIT_FOLDERS,
    SPLIT_GGUFS,
    SplitGGUF,
    assembled_ok,
    assembled_path,
    package_dir,
    sha256_file,
)
from core.settings import HearthSettings

#: kind and the weights file inside the folder, of each bundled model carried whole.
BUNDLED_KIND = {
    "smollm2-135m": ("llm", ""),
    "all-MiniLM-L6-v2": ("embedder", "model.safetensors"),
    "whisper-tiny.en": ("speech", "model.bin"),
    "en_US-joe-medium": ("voice", ""),
    "ge2e-speaker-encoder": ("speakers", ""),
}


@dataclass(frozen=True)
class ModelFile:
    """One model file: name, kind (llm, embedder, speech, voice), path, bytes, sha256, origin."""

    name: str
    kind: str
    path: str
    size: int
    sha256: str
    source: str


def _packaged(name: str) -> ModelFile:
    entry = PACKAGED[name]
    kind, inner = BUNDLED_KIND[name]
    base = package_dir(entry.package)
    path = (base / entry.relative / inner) if base else None
    origin = f"pip package {entry.pip_name} (--no-deps)"
    if path is None or not path.is_file():
        return ModelFile(name, kind, "", 0, "", origin + "; not installed")
    published = PACKAGED_SHA256.get(name)
    sha = published[0] if published else sha256_file(path)
    return ModelFile(name, kind, str(path), path.stat().st_size, sha, origin)


def bundled_models(settings: HearthSettings) -> list[ModelFile]:
    """The bundled models, installed or not."""
    rows = []
    split: list[tuple[str, SplitGGUF]] = [
        *(("llm", m) for m in SPLIT_GGUFS.values()),
        *(("speech", m) for m in SPLIT_FOLDERS.values()),
    ]
    for kind, model in split:
        ready = assembled_ok(model, settings.models_dir)
        origin = f"assembled from {model.parts} pip packages {model.pip_names[0]}..{model.parts}"
        rows.append(
            ModelFile(
                model.name,
                kind,
                str(assembled_path(model, settings.models_dir)) if ready else "",
                model.size,
                model.sha256,
                origin + ("" if ready else "; not assembled (hearth models assemble)"),
            )
        )
    rows += [_packaged(name) for name in PACKAGED]
    return rows


def answered_with(settings: HearthSettings) -> list[tuple[str, str, int]]:
    """(model, sha256, answers) of every model file the catalogue says answered questions.

    An empty list when there is no catalogue yet: no SQLite file, or a database (Postgres) that has
    not been migrated (nothing has been ingested or served there).
    """
    path = settings.data_dir / "catalogue.db"
    if settings.database_url is None and not path.is_file():
        return []
    from core import catalogue
    from core.db.session import Database

    db = Database(settings.sqlalchemy_url)
    try:
        with db.session() as s:
            return catalogue.models_answered(s)
    finally:
        db.dispose()


def inventory(settings: HearthSettings) -> list[ModelFile]:
    """Bundled models, any configured by path, and those recorded in the catalogue's answers."""
    rows = bundled_models(settings)
    known = {r.sha256 for r in rows if r.sha256}
    configured = [("llm", settings.llm.model), ("voice", settings.tts.voice)]
    for kind, name in configured:
        path = Path(name).expanduser()
        if name not in PACKAGED and name not in SPLIT_GGUFS and path.is_file():
            sha = sha256_file(path)
            known.add(sha)
            rows.append(ModelFile(path.name, kind, str(path), path.stat().st_size, sha, "setting"))
    for model, sha, count in answered_with(settings):
        if sha not in known:
            known.add(sha)
            rows.append(
                ModelFile(Path(model).name, "llm", model, 0, sha, f"catalogue: {count} answers")
            )
    return rows
