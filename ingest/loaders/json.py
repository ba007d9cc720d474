"""JSON and JSON Lines (stdlib json): flattened to key paths, one section per top-level entry."""

from __future__ import annotations

import json
from pathlib import Path

from core.errors import LoaderError
from core.types import Section
from ingest.loaders.base import handles
from ingest.loaders.structured import tree_sections
from ingest.loaders.text import decode_text


@handles("json", (".json", ".jsonl", ".ndjson", ".geojson"))
class JsonLoader:
    """JSON documents; in JSON Lines each line is one record keyed ``line N``."""

    file_type = "json"
    library = "json (stdlib)"
    provenance = "key (top-level key or [index]; 'line N' in JSON Lines)"

    def load(self, path: Path) -> list[Section]:
        """Sections of ``a.b[0].c: value`` lines."""
        text = decode_text(path, path.read_bytes())
        if path.suffix.lower() in (".jsonl", ".ndjson"):
            sections: list[Section] = []
            for number, line in enumerate(text.splitlines(), start=1):
                if not line.strip():
                    continue
                try:
                    record = json.loads(line)
                except json.JSONDecodeError as exc:
                    msg = f"{path.name}: line {number} is not JSON ({exc.msg})"
                    raise LoaderError(msg) from exc
                for s in tree_sections(path.name, {f"line {number}": record}):
                    sections.append(s)
            return sections
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            raise LoaderError(
                f"{path.name}: not valid JSON ({exc.msg} at line {exc.lineno}, column {exc.colno})"
            ) from exc
        except RecursionError as exc:
            raise LoaderError(f"{path.name}: JSON is nested too deeply") from exc
        return tree_sections(path.name, data)
