"""Speakers of recordings in retrieval.

A question about one speaker ("what did Maria say about the roof", "what did the second speaker
say about the train"): the speaker it names (:func:`asked_speaker`), and that speaker's turns
ranked by the words they share with the question (stems, British and American spellings as
one) before their cosine (:func:`speaker_turns`), so the turn about the roof comes before the
same speaker's other turns. A filter by speaker (``Filters.speakers``: names or ``Speaker N``
labels) keeps only those speakers' turns (:func:`check_speakers` refuses a value no recording
has).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from core import catalogue
from core.db.session import Database
from core.errors import InvalidInputError
from core.filters import Filters
from core.text import content_stems
from ingest.speakers.names import all_names

ORDINALS = ("first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth")
_NUMBERED = re.compile(r"\bspeaker\s+(\d{1,2})\b", re.IGNORECASE)
_ORDINAL = re.compile(rf"\b({'|'.join(ORDINALS)})\s+speaker\b", re.IGNORECASE)
#: Words of a question about a speaker that say who and how, not what about.
_ASKING = frozenset(
    {"say", "said", "says", "speaker", "speakers", "tell", "told", "mention", "mentioned",
     "talk", "talked", "about", "think", "thought", "promise", "promised", *ORDINALS}
)  # fmt: skip
#: The most turns read for a question about a speaker or a filter by speaker.
MAX_TURNS = 2000
#: A turn sharing this share of the best turn's words with the question stays among the asked
#: speaker's turns put first; the others go (the question is about what the speaker said of X).
KEEP_SHARE = 0.5


def asked_speaker(question: str, db: Database, data_dir: Path) -> tuple[int | None, str | None]:
    """(speaker number, speaker name) the question names; (None, None) when it names none.
    Names are those given with ``hearth speakers name`` (kept in ``db``'s catalogue; an old
    speakers.json in ``data_dir`` is imported first)."""
    if m := _NUMBERED.search(question):
        return int(m.group(1)), None
    if m := _ORDINAL.search(question):
        return ORDINALS.index(m.group(1).lower()) + 1, None
    words = {w.lower() for w in re.findall(r"\w+", question)}
    for name in all_names(db, data_dir):
        if set(re.findall(r"\w+", name.lower())) <= words:
            return None, name
    return None, None


def by_speaker(provenance: dict[str, Any], number: int | None, name: str | None) -> bool:
    """True when a chunk's provenance is the asked speaker's turn."""
    if name is not None:
        return str(provenance.get("speaker_name", "")).lower() == name.lower()
    return number is not None and provenance.get("speaker") == number


def _label_number(value: str) -> int | None:
    m = re.fullmatch(r"speaker\s+(\d{1,3})", value.strip(), re.IGNORECASE)
    return int(m.group(1)) if m else None


def split_speakers(values: Sequence[str]) -> tuple[list[int], list[str]]:
    """(numbers, names) of a filter's values: ``Speaker 2`` is speaker 2 of any recording,
    anything else a name given to a speaker."""
    numbers = [n for v in values if (n := _label_number(v)) is not None]
    names = [v.strip() for v in values if _label_number(v) is None]
    return numbers, names


def check_speakers(db: Database, values: Sequence[str], collection: str | None) -> tuple[str, ...]:
    """The filter's values, trimmed, when every one names a speaker of some recording (in
    ``collection`` when given); ``InvalidInputError`` on field ``speakers`` naming the first
    that does not, with the speakers there are."""
    clean = tuple(" ".join(str(v).split()) for v in values)
    with db.session() as s:
        for value in clean:
            numbers, names = split_speakers([value])
            if not value or not catalogue.speaker_chunks(
                s, numbers, names, Filters(collection=collection), limit=1
            ):
                top = catalogue.highest_speaker(s, collection)
                known = [
                    *catalogue.every_speaker_name(s),
                    *(f"Speaker {k + 1}" for k in range(top)),
                ]
                where = f" in collection {collection!r}" if collection else ""
                have = ", ".join(known) or "none: no recording was diarized"
                raise InvalidInputError(
                    f"speakers: no speaker {value!r}{where} (speakers: {have})", field="speakers"
                )
    return clean


def question_stems(question: str, name: str | None = None) -> set[str]:
    """What a question about a speaker asks about: its content stems without the words that
    say who (the name, "speaker", "second") and how ("say", "about")."""
    leave = set(_ASKING)
    if name:
        leave |= {w.lower() for w in re.findall(r"\w+", name)}
    return content_stems(question, frozenset(leave))


def speaker_turns(
    db: Database,
    vector: np.ndarray,
    question: str,
    filters: Filters,
    numbers: Sequence[int],
    names: Sequence[str],
    sharpen: bool,
) -> tuple[list[tuple[Any, Any, float]], set[int]]:
    """(chunk, document, cosine) of the given speakers' turns within ``filters``, best first:
    by the share of the question's content stems a turn holds, then by cosine; and the ids of
    the turns holding any of them. ``sharpen`` keeps only the turns holding at least
    ``KEEP_SHARE`` of the best turn's share when any holds one (a question about what one
    speaker said of X)."""
    with db.session() as s:
        rows = catalogue.speaker_chunks(s, numbers, names, filters, MAX_TURNS)
    asked = question_stems(question, names[0] if len(names) == 1 else None)
    ranked = []
    for chunk, doc in rows:
        cosine = float(np.frombuffer(chunk.embedding, dtype=np.float32) @ vector)
        share = len(asked & content_stems(chunk.text)) / len(asked) if asked else 0.0
        ranked.append((share, cosine, chunk, doc))
    ranked.sort(key=lambda r: (-r[0], -r[1]))
    best = ranked[0][0] if ranked else 0.0
    if sharpen and best > 0:
        ranked = [r for r in ranked if r[0] >= KEEP_SHARE * best]
    about = {chunk.id for share, _, chunk, _ in ranked if share > 0}
    return [(chunk, doc, cosine) for _, cosine, chunk, doc in ranked], about
