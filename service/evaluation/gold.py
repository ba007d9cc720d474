"""Gold sets in memory: a GOLD.jsonl file of questions, or a BEIR folder (corpus, queries, qrels).

GOLD.jsonl, one question per line::

    {"question": "Who patented the typewriter?", "source": "typewriters.pdf",
     "answer": ["Sholes", "Christopher Sholes"]}
    {"question": "How deep is the pool?", "unanswerable": true}

``source`` (a string or a list) names the expected document: its catalogue path, a path suffix,
its file name, or its document id. ``answer`` (a string or a list) is optional: the answer
should contain one of them. ``unanswerable: true`` means the assistant should decline; such a
question needs no source.
"""

from __future__ import annotations

import csv
import hashlib
import json
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from core.errors import InvalidInputError, NotFoundError

GoldKind = Literal["jsonl", "beir"]


@dataclass(frozen=True)
class GoldQuestion:
    """One question: its expected documents (graded), answers, and whether it is answerable."""

    id: str
    question: str
    relevance: Mapping[str, int] = field(default_factory=dict)  # source -> grade (> 0)
    answers: tuple[str, ...] = ()
    unanswerable: bool = False


@dataclass
class GoldSet:
    """Questions, and for a BEIR folder its corpus (``_id`` -> title and text)."""

    path: Path
    kind: GoldKind
    questions: list[GoldQuestion]
    corpus: dict[str, dict[str, str]] = field(default_factory=dict)
    corpus_sha256: str = ""

    @property
    def name(self) -> str:
        """The set's name (file stem or folder name)."""
        return self.path.stem if self.kind == "jsonl" else self.path.name


def load_gold(path: Path) -> GoldSet:
    """A GOLD.jsonl file or a BEIR folder; clear errors for anything else."""
    if not path.exists():
        raise NotFoundError(f"gold set {path}: no such file or folder", field="gold")
    if path.is_dir():
        return load_beir(path)
    return load_jsonl(path)


def _strings(value: Any, line: int, name: str) -> tuple[str, ...]:
    if isinstance(value, str):
        items = [value]
    elif isinstance(value, list) and all(isinstance(v, str) for v in value):
        items = list(value)
    else:
        raise InvalidInputError(
            f"line {line}: field {name!r} must be a string or a list of strings, "
            f"not {type(value).__name__}",
            field=name,
        )
    items = [v.strip() for v in items if v.strip()]
    if not items:
        raise InvalidInputError(f"line {line}: field {name!r} is empty", field=name)
    return tuple(items)


def parse_gold_line(raw: str, line: int) -> GoldQuestion:
    """One GOLD.jsonl line; errors name the line number and the wrong field."""
    try:
        row = json.loads(raw)
    except json.JSONDecodeError as exc:
        raise InvalidInputError(f"line {line}: not valid JSON ({exc.msg})", field="line") from exc
    if not isinstance(row, dict):
        raise InvalidInputError(f"line {line}: expected a JSON object", field="line")
    question = row.get("question")
    if not isinstance(question, str) or not question.strip():
        raise InvalidInputError(
            f"line {line}: field 'question' is missing or not a non-empty string",
            field="question",
        )
    unanswerable = row.get("unanswerable", False)
    if not isinstance(unanswerable, bool):
        raise InvalidInputError(
            f"line {line}: field 'unanswerable' must be true or false", field="unanswerable"
        )
    if "source" in row and row["source"] is not None:
        sources = _strings(row["source"], line, "source")
    elif unanswerable:
        sources = ()
    else:
        raise InvalidInputError(
            f"line {line}: field 'source' is missing (needed unless 'unanswerable' is true)",
            field="source",
        )
    answers = _strings(row["answer"], line, "answer") if row.get("answer") is not None else ()
    if answers and unanswerable:
        raise InvalidInputError(
            f"line {line}: field 'answer' given for an unanswerable question", field="answer"
        )
    qid = str(row.get("id") or f"line{line}")
    return GoldQuestion(qid, question.strip(), {s: 1 for s in sources}, answers, unanswerable)


def load_jsonl(path: Path) -> GoldSet:
    """Every non-blank line of a GOLD.jsonl file."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise InvalidInputError(f"gold set {path}: cannot read it ({exc})", field="gold") from exc
    questions = [
        parse_gold_line(raw, n) for n, raw in enumerate(text.splitlines(), start=1) if raw.strip()
    ]
    if not questions:
        raise InvalidInputError(f"gold set {path}: no questions in it", field="gold")
    return GoldSet(path, "jsonl", questions)


def _qrels_file(folder: Path) -> Path:
    qrels = folder / "qrels"
    files = sorted(qrels.glob("*.tsv")) if qrels.is_dir() else []
    if (qrels / "test.tsv").is_file():
        return qrels / "test.tsv"
    if len(files) == 1:
        return files[0]
    raise InvalidInputError(
        f"{folder}: not a BEIR folder (qrels/test.tsv or a single qrels/*.tsv is needed; "
        f"found {', '.join(f.name for f in files) or 'none'})",
        field="gold",
    )


def _json_lines(path: Path, field: str) -> Iterator[tuple[int, Any]]:
    """(line number, decoded value) of each non-blank line; bad JSON names the file and line."""
    for n, raw in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if not raw.strip():
            continue
        try:
            yield n, json.loads(raw)
        except json.JSONDecodeError as exc:
            raise InvalidInputError(
                f"{path.name} line {n}: not valid JSON ({exc.msg})", field=field
            ) from exc


def _jsonl_rows(path: Path) -> list[dict[str, Any]]:
    rows = []
    for n, row in _json_lines(path, "gold"):
        if not isinstance(row, dict) or "_id" not in row or "text" not in row:
            raise InvalidInputError(
                f"{path.name} line {n}: needs the fields '_id' and 'text'", field="gold"
            )
        rows.append(row)
    return rows


def load_beir(folder: Path) -> GoldSet:
    """corpus.jsonl, queries.jsonl and qrels (test.tsv, or the only .tsv): the judged queries
    become questions whose relevance is the qrels grades."""
    missing = [n for n in ("corpus.jsonl", "queries.jsonl") if not (folder / n).is_file()]
    if missing:
        raise InvalidInputError(
            f"{folder}: not a BEIR folder (missing {', '.join(missing)}; a BEIR folder holds "
            "corpus.jsonl, queries.jsonl and qrels/test.tsv)",
            field="gold",
        )
    qrels_path = _qrels_file(folder)
    corpus_bytes = (folder / "corpus.jsonl").read_bytes()
    corpus = {
        str(r["_id"]): {"title": str(r.get("title") or ""), "text": str(r["text"])}
        for r in _jsonl_rows(folder / "corpus.jsonl")
    }
    queries = {str(r["_id"]): str(r["text"]) for r in _jsonl_rows(folder / "queries.jsonl")}
    qrels: dict[str, dict[str, int]] = {}
    with qrels_path.open(encoding="utf-8") as fh:
        reader = csv.DictReader(fh, delimiter="\t")
        needed = {"query-id", "corpus-id", "score"}
        if not needed <= set(reader.fieldnames or ()):
            raise InvalidInputError(
                f"{qrels_path}: needs the columns query-id, corpus-id and score", field="gold"
            )
        for n, row in enumerate(reader, start=2):
            try:
                grade = int(row["score"])
            except (TypeError, ValueError) as exc:
                raise InvalidInputError(
                    f"{qrels_path.name} line {n}: score {row['score']!r} is not an integer",
                    field="gold",
                ) from exc
            if grade > 0:
                qrels.setdefault(row["query-id"], {})[row["corpus-id"]] = grade
    questions = [
        GoldQuestion(qid, text, qrels[qid]) for qid, text in queries.items() if qid in qrels
    ]
    if not questions:
        raise InvalidInputError(f"{folder}: no query has a relevance judgment", field="gold")
    digest = hashlib.sha256(corpus_bytes).hexdigest()
    return GoldSet(folder, "beir", questions, corpus, digest)


def attach_answers(gold: GoldSet, path: Path) -> int:
    """Expected answers from a QA file (JSON lines ``{"id", "answers": [...]}`` such as SQuAD's,
    ``id`` matching the query ids): questions with a match get them; returns how many did."""
    if not path.is_file():
        raise NotFoundError(f"answers file {path}: no such file", field="answers_from")
    answers: dict[str, tuple[str, ...]] = {}
    for _, row in _json_lines(path, "answers_from"):
        values = row.get("answers") if isinstance(row, dict) else None
        if isinstance(values, list) and values and "id" in row:
            answers[str(row["id"])] = tuple(str(v) for v in values if str(v).strip())
    matched = 0
    for i, q in enumerate(gold.questions):
        if q.id in answers and not q.unanswerable:
            gold.questions[i] = GoldQuestion(q.id, q.question, q.relevance, answers[q.id])
            matched += 1
    return matched
