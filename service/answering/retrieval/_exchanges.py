"""A recording's turn with the turns around it, for the answer prompt.

A diarized recording is stored one speaker turn to a chunk (ingest/loaders/audio.py), and a
dialogue's answer is rarely in the turn a question reads like: "Which colour of Chromecast
does the caller choose?" reads like the agent's "Which color would you like? We have blue,
black, and red.", and the answer is the reply, "Let's get the black one." (held-out dev h1154;
h654: the reply "Yes, for the time being" found, the question it answers, "Are you still
working in the health centre?", not). Embedding a turn with its neighbours finds the asking
turn, not the reply (tried; NOTES.md). So after fitting, a passage of a recording with several
speakers becomes the exchange around it: the turns before it, the turn, the turns after it
(h1155: "Would you like to ship it regular or express?" is answered two turns after the turn
found), one line each, labelled with its speaker ("Speaker 1: ...", "Maria: ..."). Its
provenance then spans the exchange's time range and names no single speaker (the lines do). A
later passage whose exchange would repeat or continue an earlier one joins it. A filter by
speaker, or a question about one speaker, keeps turns as they are (the orchestration's
``with_turns_around`` decides): the user asked for that speaker's words.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from core import catalogue
from core.db.models import Chunk
from core.db.session import Database
from core.provenance import as_turn
from service.answering.retrieval._retriever import Passage
from service.answering.retrieval._sentences import GAP

#: Words of the turns on each side of a passage's turn, at most: the nearest turn is always
#: given (its end before, its start after, cut to this), a second only while the words fit (a
#: monologue's long turns would otherwise crowd out the other passages).
NEIGHBOUR_WORDS = 60
#: Turns on each side, at most.
NEIGHBOUR_TURNS = 2
#: A turn further than this (seconds) from the one beside it belongs to another exchange.
MAX_GAP_S = 15.0
#: Provenance keys that name one speaker: an exchange has several, named on its lines.
_ONE_SPEAKER = ("speaker", "speaker_name", "speaker_heard")


def is_turn(provenance: dict[str, Any]) -> bool:
    """True for a diarized recording's turn in a recording with several speakers."""
    return "speaker" in provenance and int(provenance.get("speakers", 1)) > 1


@dataclass(frozen=True)
class _Turn:
    chunk_id: int
    ordinal: int
    text: str
    provenance: dict[str, Any]

    @classmethod
    def of(cls, chunk: Chunk) -> _Turn:
        return cls(chunk.id, chunk.ordinal, chunk.text, dict(chunk.provenance or {}))


def with_exchanges(passages: list[Passage], db: Database) -> list[Passage]:
    """``passages`` with each turn of a recording with several speakers (``is_turn``) given
    the turns before and after it in its recording (``NEIGHBOUR_TURNS`` each side within
    ``NEIGHBOUR_WORDS`` words, none further than ``MAX_GAP_S`` from the next) as labelled
    lines, in time order: its ``text`` is the exchange (its own line the fitted text),
    ``whole`` the exchange with whole turns when a turn was a cut, and its provenance spans the
    exchange without a single speaker. A later passage whose turns would repeat or continue an
    earlier exchange's joins that exchange (its other turns are added) and the rest are numbered
    again from 1; other passages are unchanged. Shape: passages in, passages out."""
    turns = [p for p in passages if is_turn(p.provenance)]
    if not turns:
        return passages
    around = _neighbours(db, [p.chunk_id for p in turns])
    kept: list[tuple[Passage, dict[int, _Turn], dict[int, _Turn]]] = []  # passage, shown, cut
    for p in passages:
        if p.chunk_id not in around:
            kept.append((p, {}, {}))
            continue
        before, own, after = around[p.chunk_id]
        window = {t.ordinal: t for t in (*before, own, *after)}
        cut = {own.ordinal: replace(own, text=p.text)}
        joined = next(
            (k for k in kept if k[0].document_id == p.document_id and _touch(k[1], window)),
            None,
        )
        if joined is None:
            kept.append((p, window, cut))
        else:
            joined[1].update({n: t for n, t in window.items() if n not in joined[1]})
            joined[2].update(cut)
    out = [_exchange(p, shown, cut) if len(shown) > 1 else p for p, shown, cut in kept]
    return [replace(p, number=i) for i, p in enumerate(out, start=1)]


def _touch(shown: dict[int, _Turn], window: dict[int, _Turn]) -> bool:
    """True when two runs of turns (by ordinal) share a turn or meet end to end."""
    return min(window) <= max(shown) + 1 and min(shown) <= max(window) + 1


def _gap(first: dict[str, Any], second: dict[str, Any]) -> float:
    """Seconds from the end of turn ``first`` to the start of ``second`` (inf when unknown)."""
    try:
        return float(second["start"]) - float(first["end"])
    except (KeyError, TypeError, ValueError):
        return float("inf")


def _side(own: _Turn, others: list[_Turn], after: bool) -> list[_Turn]:
    """The turns of ``others`` (nearest first) kept beside ``own``: nearest always, more while
    ``NEIGHBOUR_WORDS`` allows; each a turn within ``MAX_GAP_S`` of the one before it."""
    kept: list[_Turn] = []
    words = 0
    last = own
    for turn in others[:NEIGHBOUR_TURNS]:
        near = (
            _gap(last.provenance, turn.provenance)
            if after
            else _gap(turn.provenance, last.provenance)
        )
        words += len(turn.text.split())
        if not is_turn(turn.provenance) or near > MAX_GAP_S or (kept and words > NEIGHBOUR_WORDS):
            break
        kept.append(turn)
        last = turn
    return kept


def _neighbours(
    db: Database, chunk_ids: list[int]
) -> dict[int, tuple[list[_Turn], _Turn, list[_Turn]]]:
    """Chunk id -> (the turns kept before it, nearest first; its own turn; the turns kept
    after it, nearest first)."""
    reach = range(1, NEIGHBOUR_TURNS + 1)
    with db.session() as s:
        own, near = catalogue.chunks_around(s, chunk_ids, NEIGHBOUR_TURNS)
        turns = {c.id: _Turn.of(c) for c in own}
        at = {place: _Turn.of(c) for place, c in near.items()}
        places = {c.id: (c.document_id, c.ordinal) for c in own}
    found: dict[int, tuple[list[_Turn], _Turn, list[_Turn]]] = {}
    for cid, (doc, n) in places.items():
        turn = turns[cid]
        before = [at[(doc, n - r)] for r in reach if (doc, n - r) in at]
        after = [at[(doc, n + r)] for r in reach if (doc, n + r) in at]
        found[cid] = (_side(turn, before, after=False), turn, _side(turn, after, after=True))
    return found


def _cut(text: str, keep_end: bool) -> str:
    """``text`` cut to ``NEIGHBOUR_WORDS`` words (its end or its start), the cut marked."""
    words = text.split()
    if len(words) <= NEIGHBOUR_WORDS:
        return text
    if keep_end:
        return GAP.lstrip() + " ".join(words[-NEIGHBOUR_WORDS:])
    return " ".join(words[:NEIGHBOUR_WORDS]) + GAP.rstrip()


def _exchange(p: Passage, shown: dict[int, _Turn], cut: dict[int, _Turn]) -> Passage:
    """``p`` as the turns ``shown`` (by ordinal), in order, one labelled line each: the
    passages' own turns (``cut``) as fitted, the others cut to ``NEIGHBOUR_WORDS`` words on the
    side away from the nearest own turn."""
    order = sorted(shown)
    first_own, last_own = min(cut), max(cut)

    def line(n: int, text: str) -> str:
        if n not in cut:
            text = _cut(text, keep_end=n < first_own) if n < first_own or n > last_own else text
        return as_turn(shown[n].provenance, text)

    text = "\n".join(line(n, cut[n].text if n in cut else shown[n].text) for n in order)
    whole = ""
    if any(cut[n].text != shown[n].text for n in cut):
        whole = "\n".join(line(n, shown[n].text) for n in order)
    provenance = {k: v for k, v in p.provenance.items() if k not in _ONE_SPEAKER}
    provenance["start"] = shown[order[0]].provenance.get("start", provenance.get("start"))
    provenance["end"] = shown[order[-1]].provenance.get("end", provenance.get("end"))
    return replace(p, text=text, whole=whole, provenance=provenance)
