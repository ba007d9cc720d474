"""Questions about speakers through /api/ask (issue 32): "what did the second speaker say about
the train?" and, once a speaker is named, "what did Maria say about the train?", over
conversations of bench/diarset.py (espeak-ng voices; the sentences each voice said are known).

    .venv/bin/python bench/speaker_questions.py [--split dev|test|test2|test3|test4]
        [--conversations 6] [--model NAME] [--retrieval] [--out DIR] [--json P]

The conversations are written as WAV files, ingested by `hearth ingest` (Whisper, then
diarization; a collection each, so a question is asked of its own conversation) and asked
through a real `hearth serve` (the default model unless ``--model``).
For each conversation: one question about the first and one about the second speaker (by
order of first speech), then speaker 2 is named Maria (PUT /api/documents/{id}/speakers) and
speaker 1 Tom, and each is asked about another topic by name (the same one when that voice
said only one sentence no other voice said). Each topic is a sentence only that voice said in
the conversation. Splits: ``dev`` (seeds 300+, where retrieval's speaker ranking was tuned),
``test`` (seeds 400+) and ``test2`` (seeds 800+), each run once and seen since, ``test3``
(seeds 1200+, run once on the 3rd of December and seen since), and ``test4`` (seeds 1600+,
voices drawn by seed; held out: run once). ``--retrieval`` asks the retriever alone, in this
process, without a model: whether the right turn is the first passage, among the passages,
and the share of passages labelled with the asked speaker (fast; for tuning on dev). ``--out DIR``
keeps the files and the data directory: a second run with the same DIR asks again without
ingesting again. Figures: the share of questions whose citations hold a turn in
which that voice said it, cited with the asked speaker's label ("right turn cited"); the share
of all citations labelled with the asked speaker; and the share of answers holding the
sentence's answer word (e.g. "March" for the builder). Goals (issue 32): questions right >= 80%,
citations naming the right speaker >= 90%.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import httpx

from bench.common import SHARED, serve
from bench.diarset import ESPEAK_VOICES, SENTENCES, Conversation, conversation
from bench.figures import Figure, add_json_option, write_json
from core.errors import HearthError

REPO = Path(__file__).resolve().parents[1]
#: For each sentence of bench/diarset.py: what a question asks about, and a word the answer
#: should hold.
TOPICS = (
    ("the budget", "roof"),
    ("the builder", "March"),
    ("the bank", "loan"),
    ("the garden fence", "north"),
    ("the sister's visit", "June"),
    ("the train", "late"),
    ("the meeting with the accountant", "Thursday"),
    ("the printer", "quieter"),
    ("the photos", "lake"),
    ("the doctor", "two weeks"),
    ("the neighbours", "apple"),
    ("the kitchen", "green"),
    ("the library", "Saturday"),
    ("the flight", "seven"),
    ("the dog", "rain"),
    ("the water bill", "pipe"),
    ("the party", "salad"),
    ("the car", "tyre"),
    ("the repairs", "cost"),
    ("the concert tickets", "hour"),
)
NAMES = {1: "Tom", 2: "Maria"}
ORDINAL = {1: "first", 2: "second"}


#: First seed of each split: ``dev`` tuned retrieval's speaker ranking and the split of alike
#: voices; ``test`` and ``test2`` were run once on the 2nd of December and have been seen since
#: (test2 tuned on after); ``test3`` was run once on the 3rd and seen since; ``test4`` is the
#: fresh held-out draw (run once).
SEEDS = {"dev": 300, "test": 400, "test2": 800, "test3": 1200, "test4": 1600}
#: Splits whose voices were picked by the conversation's index (the same voice pairs in each),
#: kept so for their figures to stay reproducible; later splits pick them by seed.
BY_INDEX = ("dev", "test", "test2", "test3")


def talks(n: int, split: str = "dev") -> list[Conversation]:
    """``n`` conversations of 2-3 espeak-ng voices (seeds from ``SEEDS[split]``; not the
    diarization splits' seeds), 8 turns each. The voices are drawn by the conversation's seed
    (``BY_INDEX`` splits: chosen by its index)."""
    voices = [v[0] for v in ESPEAK_VOICES]
    out = []
    for i in range(n):
        seed = SEEDS[split] + i
        if split in BY_INDEX:
            shift = i // len(voices)  # past the fifth conversation: other pairs of voices
            chosen = [voices[(i + j * (2 + shift)) % len(voices)] for j in range(2 + i % 2)]
        else:
            chosen = random.Random(seed).sample(voices, 2 + i % 2)
        out.append(conversation(f"talk{seed}", chosen, seed, 8, SHARED / "audio"))
    return out


def topics_of(c: Conversation) -> dict[int, list[tuple[int, int]]]:
    """For speaker k (1, 2: order of first speech), (sentence index, turn index) of each
    sentence that voice alone said in the conversation."""
    order: list[str] = []
    for _, _, who in c.turns:
        if who not in order:
            order.append(who)
    said_by: dict[int, set[str]] = {}
    for (_, _, who), text in zip(c.turns, c.said, strict=True):
        for i, sentence in enumerate(SENTENCES):
            if sentence in text:
                said_by.setdefault(i, set()).add(who)
    found: dict[int, list[tuple[int, int]]] = {}
    for k in (1, 2):
        voice = order[k - 1]
        for t, ((_, _, who), text) in enumerate(zip(c.turns, c.said, strict=True)):
            for i, sentence in enumerate(SENTENCES):
                if who == voice and sentence in text and said_by[i] == {voice}:
                    found.setdefault(k, []).append((i, t))
    return found


def _overlaps(prov: dict[str, Any], start: float, end: float) -> bool:
    s, e = float(prov.get("start", -1)), float(prov.get("end", -1))
    return min(e, end) - max(s, start) > 0.5 * max(e - s, 0.1)


def plan(
    convs: list[Conversation], by_name: bool
) -> list[tuple[Conversation, int, int, list[int]]]:
    """(conversation, speaker, sentence, turns in which that voice said it) of each question:
    the voice's first sentence asked by ordinal, its second (else the first) by name."""
    out = []
    for c in convs:
        for k, found in sorted(topics_of(c).items()):
            sentences = list(dict.fromkeys(i for i, _ in found))
            sentence = sentences[min(int(by_name), len(sentences) - 1)]
            out.append((c, k, sentence, [t for i, t in found if i == sentence]))
    return out


def question_of(k: int, sentence: int, by_name: bool) -> str:
    """The question about speaker ``k`` and a sentence's topic."""
    who = NAMES[k] if by_name else f"the {ORDINAL[k]} speaker"
    return f"What did {who} say about {TOPICS[sentence][0]}?"


def ask_all(url: str, convs: list[Conversation], paths: dict[str, str]) -> list[dict[str, Any]]:
    """Ask each conversation's questions, by ordinal then by name; one row per question."""
    rows: list[dict[str, Any]] = []
    with httpx.Client(base_url=url, timeout=900) as client:
        docs = {d["path"]: d["id"] for d in client.get("/api/documents").json()}
        for c in convs:
            heard = len(client.get(f"/api/documents/{docs[paths[c.name]]}/speakers").json())
            print(f"{c.name}: {c.speakers} voices, {heard} speakers found", file=sys.stderr)
        for by_name in (False, True):
            if by_name:
                for c in convs:
                    for k, name in NAMES.items():
                        put = {"speaker": k, "name": name}
                        client.put(f"/api/documents/{docs[paths[c.name]]}/speakers", json=put)
            for c, k, sentence, turns in plan(convs, by_name):
                word = TOPICS[sentence][1]
                question = question_of(k, sentence, by_name)
                t0 = time.perf_counter()
                r = client.post("/api/ask", json={"question": question, "collection": c.name})
                r.raise_for_status()
                answer = r.json()
                cites = answer["citations"]
                right = [
                    x
                    for x in cites
                    if x["document_id"] == docs[paths[c.name]]
                    and x["provenance"].get("speaker") == k
                    and any(_overlaps(x["provenance"], *c.turns[t][:2]) for t in turns)
                ]
                labelled = [x for x in cites if x["provenance"].get("speaker") == k]
                rows.append(
                    {
                        "question": question,
                        "by_name": by_name,
                        "answer": answer["answer"],
                        "citations": [x["label"] for x in cites],
                        "turns": [c.turns[t][:2] for t in turns],
                        "right_turn_cited": bool(right),
                        "citations_right_speaker": len(labelled),
                        "citations_total": len(cites),
                        "answer_word": word.lower() in answer["answer"].lower(),
                        "seconds": round(time.perf_counter() - t0, 1),
                        "grounding": answer.get("grounding", {}),
                        "sources": [f"{x['label']}: {x['text']}" for x in answer["sources"]],
                    }
                )
                row = rows[-1]
                print(
                    f"{row['seconds']:6.1f} s  turn {'yes' if right else 'no ':3}  "
                    f"{len(labelled)}/{len(cites)} right label  {question}",
                    file=sys.stderr,
                )
    return rows


def ask_retriever(
    data: Path, convs: list[Conversation], paths: dict[str, str]
) -> list[dict[str, Any]]:
    """The same questions to the retriever alone (in this process, no model): one row per
    question, the passages standing for the citations."""
    from core.embedder import create_embedder
    from core.filters import Filters
    from core.knowledge import KnowledgeBase
    from core.settings import load_settings
    from service.answering.retrieval import Retriever
    from service.speakers.service import find_document, list_speakers, rename

    settings = load_settings(data_dir=data)
    kb = KnowledgeBase(settings)
    retriever = Retriever(kb, create_embedder(settings.embedder))
    docs = {c.name: find_document(kb.db, paths[c.name]) for c in convs}
    for c in convs:
        heard = len(list_speakers(kb.db, docs[c.name]))
        print(f"{c.name}: {c.speakers} voices, {heard} speakers found", file=sys.stderr)
    rows: list[dict[str, Any]] = []
    for by_name in (False, True):
        for c in convs if by_name else ():
            for k, name in NAMES.items():
                with contextlib.suppress(HearthError):  # a recording read as one speaker
                    rename(kb.db, data, docs[c.name], k, name)
        for c, k, sentence, turns in plan(convs, by_name):
            question = question_of(k, sentence, by_name)
            found = retriever.retrieve(question, filters=Filters(collection=c.name))
            right = [
                p.provenance.get("speaker") == k
                and any(_overlaps(p.provenance, *c.turns[t][:2]) for t in turns)
                for p in found
            ]
            labelled = [p for p in found if p.provenance.get("speaker") == k]
            rows.append(
                {
                    "question": question,
                    "by_name": by_name,
                    "passages": [p.label for p in found],
                    "turns": [c.turns[t][:2] for t in turns],
                    "right_turn_cited": any(right),
                    "right_turn_first": bool(right and right[0]),
                    "citations_right_speaker": len(labelled),
                    "citations_total": len(found),
                    "answer_word": False,
                    "seconds": 0.0,
                }
            )
            first, among = ("yes" if x else "no" for x in (right and right[0], any(right)))
            print(
                f"first {first:3}  among {among:3}  {len(labelled)}/{len(found)} right label  "
                f"{question}",
                file=sys.stderr,
            )
    kb.close()
    return rows


def figures(rows: list[dict[str, Any]]) -> list[Figure]:
    """The table's figures, over all questions and by kind (ordinal, name)."""
    out = []
    for kind, part in (
        ("all", rows),
        ("ordinal", [r for r in rows if not r["by_name"]]),
        ("name", [r for r in rows if r["by_name"]]),
    ):
        n = max(len(part), 1)
        cites = sum(r["citations_total"] for r in part)
        out += [
            Figure(
                "speaker questions",
                f"right turn cited ({kind}, {len(part)} questions)",
                sum(r["right_turn_cited"] for r in part) / n,
                "fraction",
                note=">= 0.80",
            ),
            Figure(
                "speaker questions",
                f"citations naming the asked speaker ({kind}, {cites} citations)",
                sum(r["citations_right_speaker"] for r in part) / max(cites, 1),
                "fraction",
                note=">= 0.90",
            ),
            Figure(
                "speaker questions",
                f"answer holds the answer word ({kind})",
                sum(r["answer_word"] for r in part) / n,
                "fraction",
            ),
        ]
    return out


def main() -> None:
    """Build, ingest, serve, ask, print the table (and write JSON when asked)."""
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--split", choices=tuple(SEEDS), default="dev")
    p.add_argument("--conversations", type=int, default=6)
    p.add_argument("--model", default=None, help="hearth serve --model (default: the default)")
    p.add_argument("--retrieval", action="store_true", help="The retriever alone, no model.")
    p.add_argument("--out", type=Path, default=None, help="Kept files and data (reused).")
    add_json_option(p)
    args = p.parse_args()
    out = args.out or Path(tempfile.mkdtemp(prefix="speaker-q-"))
    files, data = out / "files", out / "data"
    files.mkdir(parents=True, exist_ok=True)
    convs = talks(args.conversations, args.split)
    paths = {}
    for c in convs:
        path = files / f"{c.name}.wav"
        if not path.exists():
            path.write_bytes(c.wav_bytes())
        paths[c.name] = str(path.resolve())
    print(f"load average {os.getloadavg()}", file=sys.stderr)
    env = {**os.environ, "HEARTH_DATA_DIR": str(data), "PYTHONPATH": str(REPO)}
    started = time.perf_counter()
    for c in convs:  # a collection each: a question is asked of its own conversation
        if (data / "ingested" / c.name).exists():
            continue
        ingest = [sys.executable, "-m", "service.cli", "ingest", "--collection", c.name]
        done = subprocess.run([*ingest, paths[c.name]], env=env, cwd=REPO, check=False)
        if done.returncode:
            raise SystemExit(f"hearth ingest {paths[c.name]} failed ({done.returncode})")
        (data / "ingested").mkdir(exist_ok=True)
        (data / "ingested" / c.name).touch()
    print(f"ingest {time.perf_counter() - started:.0f} s", file=sys.stderr)
    if args.retrieval:
        rows = ask_retriever(data, convs, paths)
    else:
        url, proc = serve(data, *(["--model", args.model] if args.model else []), timeout=600)
        try:
            rows = ask_all(url, convs, paths)
        finally:
            proc.terminate()
            proc.wait(timeout=60)
    (out / "rows.json").write_text(json.dumps(rows, indent=1))
    found = figures(rows)
    if args.retrieval:
        n = max(len(rows), 1)
        found.append(
            Figure(
                "speaker questions",
                "right turn is the first passage (all)",
                sum(r["right_turn_first"] for r in rows) / n,
                "fraction",
                note="",
            )
        )
    for f in found:
        print(f"{f.name:62} {f.value or 0:6.3f}  goal {f.note}")
    print(f"split {args.split}, load average {os.getloadavg()}; rows in {out / 'rows.json'}")
    write_json(args.json, found)


if __name__ == "__main__":
    main()
