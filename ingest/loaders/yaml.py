"""YAML (PyYAML, safe loader only): flattened to key paths, one section per top-level entry."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from core.errors import LoaderError
from core.types import Section
from ingest.loaders.base import handles
from ingest.loaders.structured import tree_sections
from ingest.loaders.text import decode_text


@handles("yaml", (".yaml", ".yml"))
class YamlLoader:
    """YAML files, every document of a multi-document stream; never constructs Python objects."""

    file_type = "yaml"
    library = "PyYAML (safe loader)"
    provenance = "key (top-level key or [index]; prefixed 'doc N.' after the first document)"

    def load(self, path: Path) -> list[Section]:
        """Sections of ``a.b[0].c: value`` lines."""
        import yaml

        loader: Any = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
        text = decode_text(path, path.read_bytes())
        try:
            documents = list(yaml.load_all(text, Loader=loader))
        except yaml.YAMLError as exc:
            where = getattr(exc, "problem_mark", None)
            at = f" at line {where.line + 1}" if where is not None else ""
            raise LoaderError(f"{path.name}: not valid YAML{at} ({exc})") from exc
        sections: list[Section] = []
        for n, data in enumerate(documents, start=1):
            if data is None:
                continue
            prefix = "" if n == 1 else f"doc {n}."
            sections.extend(tree_sections(path.name, data, prefix))
        return sections
