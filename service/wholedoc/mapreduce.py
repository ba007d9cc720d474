"""Map-reduce over a document's chunks: context-sized groups in order, a map prompt per group,
reduce prompts until one result fits, every kept line cited to the chunks that support it.

The model is reached through ``generate(messages, max_tokens) -> reply`` and tokens are counted
with ``count_tokens(text) -> int``, so the logic runs on any runtime (the service passes the
model queue's; unit tests a scripted one). Each mode is a generator yielding ``(done, total)``
after each map group (``total`` = groups) and returning its statements; ``stopped()`` is asked
before and after each model call. With a ``memo`` (:class:`service.wholedoc.cache.CallMemo`) a
call whose prompt was answered before (the same chunks, template and model) takes the stored
reply instead, and its lines are grounded again against the chunks given now.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Callable, Generator, Sequence
from dataclasses import dataclass, field
from typing import TypeVar

from core.text import SENTENCE_GAP_BEFORE_CAPITAL
from service.llm.base import ChatMessage
from service.wholedoc.cache import CallMemo
from service.wholedoc.prompts import Prompts
from service.wholedoc.selection import ChunkText, DocumentText
from service.wholedoc.support import (
    Unit,
    clean_line,
    facts,
    fold,
    same_item,
    sentences,
    support,
    units_of,
    words,
)

T = TypeVar("T")
Generate = Callable[[list[ChatMessage], int], str]
CountTokens = Callable[[str], int]
Steps = Generator[tuple[int, int], None, T]
#: ``(queries, texts) -> cosines[i][j]`` of text j to query i (the embedder's unit vectors).
Relevance = Callable[[list[str], list[str]], list[list[float]]]

#: Tokens a map reply may take; kept free in every group's context.
MAP_TOKENS = 200
#: Tokens a summarise map reply may take per excerpt: one pointer line each (its number and
#: the name its key fact is about, ~5 tokens; the document's sentence holding it is what is
#: shown). Generating costs ~3x a prompt token, so this keeps the read within ~1.25x of
#: reading the prompt; a reply cut short leaves the later excerpts to their stand-in sentences.
LINE_TOKENS = 9
#: Tokens of excerpts one group holds at most: small models read shorter groups better, and
#: the cost of prompt evaluation is the same whichever way the chunks are grouped.
GROUP_TOKENS = 1536
#: Tokens of the prompts' fixed text and the chat template, and per excerpt's number.
PROMPT_OVERHEAD = 160
PER_EXCERPT = 6
#: Key-fact lines a summary shows without an overview; more are reduced to one of at most
#: this many sentences (the key lines stay listed under it).
FINAL_SENTENCES = 8
#: Share of a line's content words its supporting sentence must hold.
MIN_SUPPORT = 0.6
#: An extract item that names no word of what is asked is about it when its sentence's cosine
#: (the embedder's) to what is asked is at least RELEVANT_COSINE, or to a sentence of the
#: documents that names it at least LIKE_NAMED_COSINE. Tuned on the bench's dev split (MiniLM:
#: "deadlines" against a deadline phrased without the word 0.21-0.28, against other clauses at
#: most 0.19; such a deadline against one naming the word 0.76-0.79, other clauses at most 0.42).
RELEVANT_COSINE = 0.25
LIKE_NAMED_COSINE = 0.6
#: Sentences naming what is asked that unnamed items are compared with, at most.
MAX_NAMED = 16


class Stopped(Exception):
    """The run was stopped before its end (nothing is kept)."""


@dataclass
class Statement:
    """A line of a result and the chunk ids supporting it, in the order first read."""

    text: str
    chunks: list[int]
    kind: str = ""  # compare: same, changed, added, removed
    extra: dict[str, str] = field(default_factory=dict)


@dataclass
class Run:
    """How a run went: groups read, model calls, statements dropped as unsupported."""

    groups: int = 0
    calls: int = 0
    dropped: int = 0
    reduce_rounds: int = 0
    #: Calls answered by a stored reply to the same prompt (no model call).
    reused: int = 0
    #: Extract items the model listed that are not about what was asked (dropped).
    irrelevant: int = 0
    #: Summary lines taken from an excerpt because no line of the model's held for it.
    stand_ins: int = 0


def counting(count: CountTokens) -> CountTokens:
    """``count`` remembering each text's count (planning, estimating and the run's reply
    budgets count the same chunks)."""
    seen: dict[str, int] = {}

    def counted(text: str) -> int:
        n = seen.get(text)
        if n is None:
            n = seen[text] = count(text)
        return n

    return counted


def group_budget(n_ctx: int) -> int:
    """Excerpt tokens one group may hold in a context of ``n_ctx`` tokens."""
    return max(128, min(GROUP_TOKENS, n_ctx - MAP_TOKENS - PROMPT_OVERHEAD))


def pack(items: Sequence[T], size: Callable[[T], int], budget: int) -> list[list[T]]:
    """Consecutive items in groups of at most ``budget`` (by ``size``; a larger item alone)."""
    out: list[list[T]] = []
    used = 0
    for item in items:
        n = size(item)
        if out and used + n <= budget:
            out[-1].append(item)
            used += n
        else:
            out.append([item])
            used = n
    return out


def groups(chunks: Sequence[ChunkText], count: CountTokens, budget: int) -> list[list[ChunkText]]:
    """Consecutive chunks in groups of at most ``budget`` tokens (a larger chunk alone)."""
    return pack(chunks, lambda c: count(c.text) + PER_EXCERPT, budget)


def _lines(reply: str) -> list[str]:
    """The lines and sentences of a reply, bullets and marks removed."""
    out = []
    for line in reply.splitlines():
        for part in SENTENCE_GAP_BEFORE_CAPITAL.split(line):
            cleaned = clean_line(part)
            if cleaned and cleaned.upper() != "NONE" and not cleaned.endswith(":"):
                out.append(cleaned)
    return out


def _haystacks(chunks: Sequence[ChunkText]) -> dict[int, str]:
    return {c.chunk_id: fold(c.text) for c in chunks}


def _add(found: list[Statement], new: Statement) -> bool:
    """Add ``new`` unless an equal statement is there (its citations merged); True if added."""
    for old in found:
        if same_item(old.text, new.text):
            old.chunks += [c for c in new.chunks if c not in old.chunks]
            return False
    found.append(new)
    return True


class MapReduce:
    """One run of a mode over chosen documents."""

    def __init__(
        self,
        generate: Generate,
        count: CountTokens,
        n_ctx: int,
        stopped: Callable[[], bool] | None = None,
        memo: CallMemo | None = None,
        prompts: Prompts | None = None,
        relevance: Relevance | None = None,
    ) -> None:
        self.generate = generate
        self.prompts = prompts or Prompts.defaults()
        self.relevance = relevance
        self.count = count
        self.n_ctx = n_ctx
        self.budget = group_budget(n_ctx)
        self.stopped = stopped or (lambda: False)
        self.memo = memo
        self.run = Run()

    def _call(self, messages: list[ChatMessage], max_tokens: int) -> str:
        if self.stopped():
            raise Stopped("stopped")
        stored = self.memo.get(messages, max_tokens) if self.memo is not None else None
        if stored is not None:
            self.run.reused += 1
            return stored
        reply = self.generate(messages, max_tokens)
        self.run.calls += 1
        if self.stopped():
            raise Stopped("stopped")
        if self.memo is not None:
            self.memo.add(messages, max_tokens, reply)
        return reply

    def _reply_tokens(self, group: list[ChunkText]) -> int:
        """Tokens a map reply may take: :data:`MAP_TOKENS`, or fewer for a short group (a reply
        restating or copying its excerpts needs no more than they hold)."""
        return min(MAP_TOKENS, max(64, sum(self.count(c.text) for c in group)))

    def _line_tokens(self, group: list[ChunkText]) -> int:
        """Tokens a summarise map reply may take: :data:`LINE_TOKENS` per excerpt (one line
        each), within what the context leaves after the prompt; at least 64."""
        prompt = sum(self.count(c.text) + PER_EXCERPT for c in group) + PROMPT_OVERHEAD
        return max(64, min(LINE_TOKENS * len(group), self.n_ctx - prompt))

    def plan(self, documents: Sequence[DocumentText], mix: bool = False) -> list[list[ChunkText]]:
        """The map groups of ``documents``: each document's chunks in order, never mixed unless
        ``mix`` (extract: its items are cited per chunk, so small documents such as a folder of
        invoices share a group instead of costing a model call each)."""
        if mix:
            return groups([c for d in documents for c in d.chunks], self.count, self.budget)
        out: list[list[ChunkText]] = []
        for doc in documents:
            out += groups(doc.chunks, self.count, self.budget)
        return out

    # -- summarise -----------------------------------------------------------------------

    def summarise(
        self, documents: Sequence[DocumentText]
    ) -> Steps[tuple[list[Statement], list[Statement]]]:
        """The key fact of every chunk of ``documents`` (one cited line per excerpt, in
        document order; an excerpt no model line holds for gives its :func:`key_sentence`)
        and, when there are more than :data:`FINAL_SENTENCES` of them, a cited
        overview reduced from them."""
        planned = self.plan(documents)
        self.run.groups = len(planned)
        found: list[Statement] = []
        for done, group in enumerate(planned, start=1):
            reply = self._call(
                self.prompts.summarise([c.text for c in group]), self._line_tokens(group)
            )
            kept = self._pointed(_lines(reply), units_of((c.chunk_id, c.text) for c in group))
            # An excerpt no kept line cites is still summarised: its sentence stating the most
            # names and numbers stands in (the model skipped it, or wrote what does not hold).
            cited = {k for st in kept for k in st.chunks}
            for c in group:
                stand_in = key_sentence(c.text) if c.chunk_id not in cited else ""
                if stand_in:
                    kept.append(Statement(stand_in, [c.chunk_id]))
                    self.run.stand_ins += 1
            order = {c.chunk_id: i for i, c in enumerate(group)}
            kept.sort(key=lambda st: min(order.get(k, len(order)) for k in st.chunks))
            for statement in kept:
                _add(found, statement)
            yield done, len(planned)
        if len(found) <= FINAL_SENTENCES:
            return found, []
        texts = {c.chunk_id: fold(c.text) for d in documents for c in d.chunks}
        return found, self._reduce(found, texts)

    def _pointed(self, lines: list[str], units: list[Unit]) -> list[Statement]:
        """The sentence of ``units`` each line points to, as the document says it: the one
        holding every name and number of the line and the largest share (at least
        :data:`MIN_SUPPORT`) of its content words; of equals, the one stating the most names
        and numbers, then the first (:func:`support`). A line no sentence holds is dropped."""
        kept: list[Statement] = []
        for line in lines:
            found = support(line, units, {}, most_facts=True)
            if found is None or found.score < MIN_SUPPORT:
                self.run.dropped += 1
                continue
            _add(kept, Statement(found.unit.text, list(found.unit.keys)))
        return kept

    def _grounded(
        self, lines: list[str], units: list[Unit], haystacks: dict[int, str]
    ) -> list[Statement]:
        kept: list[Statement] = []
        for line in lines:
            found = support(line, units, haystacks)
            if found is None or found.score < MIN_SUPPORT:
                self.run.dropped += 1
                continue
            _add(kept, Statement(line, list(found.unit.keys)))
        return kept

    def _reduce(self, statements: list[Statement], texts: dict[int, str]) -> list[Statement]:
        """Reduce prompts over batches of statements until one batch gives the summary."""
        while len(statements) > FINAL_SENTENCES:
            batches = self._batches(statements)
            self.run.reduce_rounds += 1
            reduced: list[Statement] = []
            for batch in batches:
                n = FINAL_SENTENCES
                reply = self._call(self.prompts.reduce([s.text for s in batch]), MAP_TOKENS)
                units = [Unit(s.text, tuple(s.chunks)) for s in batch]
                hay = {k: v for s in batch for k in s.chunks if (v := texts.get(k))}
                kept = self._grounded(_lines(reply), units, hay) or batch[:n]
                for statement in kept:
                    _add(reduced, statement)
            if len(reduced) >= len(statements):  # the model did not shorten: stop here
                return statements
            statements = reduced
        return statements

    def _batches(self, statements: list[Statement]) -> list[list[Statement]]:
        return pack(statements, lambda s: self.count(s.text) + PER_EXCERPT, self.budget)

    # -- extract -------------------------------------------------------------------------

    def extract(self, documents: Sequence[DocumentText], what: str) -> Steps[list[Statement]]:
        """Every ``what`` in ``documents``: one item per supporting sentence, deduplicated, in
        document order; an item the model wrote that no sentence supports is dropped."""
        planned = self.plan(documents, mix=True)
        self.run.groups = len(planned)
        terms = _terms(what)
        named = _texts(documents, lambda text: bool(terms) and _names_all(terms, text))
        named = named[:MAX_NAMED]
        alike = self._like_named(what, terms, named, documents)
        found: list[Statement] = []
        for done, group in enumerate(planned, start=1):
            units = units_of((c.chunk_id, c.text) for c in group)
            hay = _haystacks(group)
            reply = self._call(
                self.prompts.extract([c.text for c in group], what), self._reply_tokens(group)
            )
            hits: list[Unit] = []
            for line in _lines(reply):
                best = support(line, units, hay)
                if best is None or best.score < MIN_SUPPORT:
                    self.run.dropped += 1
                    continue
                hits.append(best.unit)
            relevant = self._relevant(what, terms, named, hits)
            self.run.irrelevant += len(hits) - len(relevant)
            hits = relevant
            # Sentences naming what is asked for are items too, whether the model copied them
            # or not (a small model skips some; every chunk is read either way).
            hits += [u for u in units if terms and _names_all(terms, u.text)]
            # And so are sentences like those (see _like_named): the model lists few of them.
            hits += [u for u in units if u.text in alike]
            for unit in sorted(set(hits), key=units.index):
                _add(found, Statement(unit.text, list(unit.keys)))
            yield done, len(planned)
        return found

    def _like_named(
        self, what: str, terms: list[str], named: list[str], documents: Sequence[DocumentText]
    ) -> set[str]:
        """Sentences of ``documents`` that are items without naming a word of ``what``: every
        name and number of ``what`` in them and a cosine of at least
        :data:`LIKE_NAMED_COSINE` to one of the ``named`` sentences ("The permit is due on 4
        May" beside "Deadline: the permit must be filed by 1 May"). Empty without an embedder
        or a named sentence. Every sentence of the documents is embedded once."""
        if self.relevance is None or not named:
            return set()
        names = facts(what)
        candidates = _texts(
            documents,
            lambda text: all(_has_word(n, text) for n in names)
            and not any(_names_any(t, text) for t in terms),
        )
        if not candidates:
            return set()
        scores = self.relevance([what, *named], candidates)
        return {
            text
            for j, text in enumerate(candidates)
            if any(row[j] >= LIKE_NAMED_COSINE for row in scores[1:])
        }

    def _relevant(
        self, what: str, terms: list[str], named: list[str], hits: list[Unit]
    ) -> list[Unit]:
        """The items the model listed that are about ``what``: every name and number of
        ``what`` (as :func:`facts` finds them: numbers, capitalised words after the first) in
        the item's sentence, and the sentence naming a word of ``what`` or (with an embedder)
        close to ``what`` or to one of the ``named`` sentences (those naming every word of
        ``what``; see :data:`RELEVANT_COSINE`)."""
        names = facts(what)
        hits = [u for u in hits if all(_has_word(n, u.text) for n in names)]
        unnamed = [u for u in hits if not any(_names_any(t, u.text) for t in terms)]
        if not unnamed or self.relevance is None:
            return [u for u in hits if u not in unnamed]
        scores = self.relevance([what, *named], [u.text for u in unnamed])
        close = {
            u
            for j, u in enumerate(unnamed)
            if scores[0][j] >= RELEVANT_COSINE
            or any(row[j] >= LIKE_NAMED_COSINE for row in scores[1:])
        }
        return [u for u in hits if u not in unnamed or u in close]

    # -- compare -------------------------------------------------------------------------

    def compare(
        self, a: DocumentText, b: DocumentText
    ) -> Steps[tuple[list[Statement], list[Statement]]]:
        """What changed from ``a`` to ``b`` (each change cited to both sides) and a cited
        overview of the changes written by the model."""
        left, right = _doc_units(a), _doc_units(b)
        self.run.groups = 1
        changes = _diff(left, right)
        yield 1, 1
        different = [c for c in changes if c.kind != "same"]
        if not different:
            return changes, []
        texts = {c.chunk_id: fold(c.text) for d in (a, b) for c in d.chunks}
        lines = [_change_line(c) for c in different]
        overview: list[Statement] = []
        for start in range(0, len(lines), 24):
            part = different[start : start + 24]
            reply = self._call(self.prompts.compare(lines[start : start + 24]), MAP_TOKENS)
            units = [Unit(_change_line(c), tuple(c.chunks)) for c in part]
            hay = {k: v for c in part for k in c.chunks if (v := texts.get(k))}
            for statement in self._grounded(_lines(reply), units, hay):
                _add(overview, statement)
        return changes, overview


def _texts(documents: Sequence[DocumentText], keep: Callable[[str], bool]) -> list[str]:
    """The sentences of ``documents`` that ``keep`` accepts, in order, once each."""
    return list(
        dict.fromkeys(
            u.text
            for d in documents
            for u in units_of((c.chunk_id, c.text) for c in d.chunks)
            if keep(u.text)
        )
    )


def _terms(what: str) -> list[str]:
    """The stems of what an extract asks for ("deadlines" -> "deadline")."""
    out = []
    for word in sorted(words(what)):
        for suffix in ("ies", "es", "s"):
            if word.endswith(suffix) and len(word) - len(suffix) >= 4:
                word = word[: -len(suffix)] + ("y" if suffix == "ies" else "")
                break
        out.append(word)
    return out


def key_sentence(text: str) -> str:
    """The sentence of ``text`` stating the most names and numbers (the first of equals; the
    first sentence when none states any); "" when ``text`` has no sentence."""
    found = sentences(text)
    if not found:
        return ""
    return max(found, key=lambda s: (len(facts(s)), -found.index(s)))


def _has_word(word: str, text: str) -> bool:
    return re.search(rf"(?<!\w){re.escape(word)}(?!\w)", fold(text)) is not None


def _names_any(term: str, text: str) -> bool:
    return re.search(rf"(?<!\w){re.escape(term)}", fold(text)) is not None


def _names_all(terms: list[str], text: str) -> bool:
    folded = fold(text)
    return all(re.search(rf"(?<!\w){re.escape(t)}", folded) for t in terms)


def _doc_units(doc: DocumentText) -> list[Unit]:
    """A document's sentences in order, once each (overlapping chunks repeat some)."""
    seen: set[str] = set()
    out = []
    for unit in units_of((c.chunk_id, c.text) for c in doc.chunks):
        key = " ".join(fold(unit.text).split())
        if key not in seen:
            seen.add(key)
            out.append(unit)
    return out


def _similar(a: str, b: str) -> float:
    wa, wb = words(a), words(b)
    return len(wa & wb) / max(1, len(wa | wb))


def _diff(left: list[Unit], right: list[Unit]) -> list[Statement]:
    """Sentences the same, changed (paired by shared words), removed and added."""
    keys_l = [" ".join(fold(u.text).split()) for u in left]
    keys_r = [" ".join(fold(u.text).split()) for u in right]
    out: list[Statement] = []
    matcher = difflib.SequenceMatcher(a=keys_l, b=keys_r, autojunk=False)
    for op, i1, i2, j1, j2 in matcher.get_opcodes():
        if op == "equal":
            out += [
                Statement(u.text, list(u.keys) + list(right[j1 + k].keys), "same")
                for k, u in enumerate(left[i1:i2])
            ]
            continue
        olds, news = left[i1:i2], right[j1:j2]
        paired: set[int] = set()
        for old in olds:
            scored = [
                (_similar(old.text, n.text), j) for j, n in enumerate(news) if j not in paired
            ]
            score, j = max(scored, default=(0.0, -1))
            if score >= 0.4:
                paired.add(j)
                new = news[j]
                out.append(
                    Statement(
                        new.text,
                        [*old.keys, *new.keys],
                        "changed",
                        {"before": old.text, "after": new.text},
                    )
                )
            else:
                out.append(Statement(old.text, list(old.keys), "removed", {"before": old.text}))
        out += [
            Statement(n.text, list(n.keys), "added", {"after": n.text})
            for j, n in enumerate(news)
            if j not in paired
        ]
    return out


def _change_line(change: Statement) -> str:
    if change.kind == "changed":
        return f"Before: {change.extra['before']} After: {change.extra['after']}"
    if change.kind == "removed":
        return f"Removed: {change.extra['before']}"
    return f"Added: {change.extra['after']}"
