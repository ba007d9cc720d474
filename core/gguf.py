"""Read a GGUF file's key/value metadata and tensor table without loading the model."""

from __future__ import annotations

import struct
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, BinaryIO

from core.errors import ModelError

_SCALARS = {
    0: "<B",
    1: "<b",
    2: "<H",
    3: "<h",
    4: "<I",
    5: "<i",
    6: "<f",
    7: "<?",
    10: "<Q",
    11: "<q",
    12: "<d",
}
_STRING, _ARRAY = 8, 9
#: Arrays longer than this (token lists) are summarised by their length.
MAX_ARRAY = 64


@dataclass
class GGUFInfo:
    """Metadata and tensor table of a GGUF file."""

    path: Path
    version: int
    metadata: dict[str, Any] = field(default_factory=dict)
    tensors: list[tuple[str, tuple[int, ...], int]] = field(default_factory=list)
    data_offset: int = 0

    @property
    def architecture(self) -> str:
        """``general.architecture`` (llama, qwen2, ...)."""
        return str(self.metadata.get("general.architecture", ""))

    def arch(self, key: str, default: Any = None) -> Any:
        """A key under the architecture prefix, e.g. ``arch('block_count')``."""
        return self.metadata.get(f"{self.architecture}.{key}", default)

    @property
    def tensor_bytes(self) -> int:
        """Bytes of tensor data (file size minus header)."""
        return self.path.stat().st_size - self.data_offset


def _read(fh: BinaryIO, fmt: str) -> Any:
    size = struct.calcsize(fmt)
    data = fh.read(size)
    if len(data) != size:
        raise EOFError
    return struct.unpack(fmt, data)[0]


def _string(fh: BinaryIO) -> str:
    n = _read(fh, "<Q")
    if n > 1 << 26:
        raise ValueError("string length out of range")
    return fh.read(n).decode("utf-8", errors="replace")


def _value(fh: BinaryIO, vtype: int) -> Any:
    if vtype in _SCALARS:
        return _read(fh, _SCALARS[vtype])
    if vtype == _STRING:
        return _string(fh)
    if vtype == _ARRAY:
        itype, count = _read(fh, "<I"), _read(fh, "<Q")
        if itype in _SCALARS and count > MAX_ARRAY:
            fh.seek(struct.calcsize(_SCALARS[itype]) * count, 1)
            return {"array_length": count}
        items = [_value(fh, itype) for _ in range(count)]
        return items if count <= MAX_ARRAY else {"array_length": count}
    raise ValueError(f"unknown GGUF value type {vtype}")


def read_gguf(path: Path) -> GGUFInfo:
    """Parse the header; ``ModelError`` naming the file when it is not a GGUF model."""
    try:
        with path.open("rb") as fh:
            if fh.read(4) != b"GGUF":
                raise ModelError(f"{path.name}: not a GGUF file (bad magic)")
            version = _read(fh, "<I")
            if version < 2:
                raise ModelError(f"{path.name}: GGUF version {version} is too old")
            n_tensors, n_kv = _read(fh, "<Q"), _read(fh, "<Q")
            info = GGUFInfo(path=path, version=version)
            for _ in range(n_kv):
                key = _string(fh)
                info.metadata[key] = _value(fh, _read(fh, "<I"))
            for _ in range(n_tensors):
                name = _string(fh)
                dims = tuple(_read(fh, "<Q") for _ in range(_read(fh, "<I")))
                ttype = _read(fh, "<I")
                _read(fh, "<Q")
                info.tensors.append((name, dims, ttype))
            align = int(info.metadata.get("general.alignment", 32))
            pos = fh.tell()
            info.data_offset = pos + (-pos % align)
            return info
    except ModelError:
        raise
    except (OSError, EOFError, ValueError, struct.error) as exc:
        raise ModelError(f"{path.name}: not a readable GGUF file ({exc})") from exc
