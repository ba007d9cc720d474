"""`hearth eval` and `hearth models bench` through the real command: a GOLD.jsonl over an ingested
knowledge base (SmolLM2 answering), a generated BEIR folder in a scratch base (reused on a re-run),
the shared squad_dev set, and the model table."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from sqlalchemy import delete

from core.db.models import Chunk
from core.embedder import Embedder
from core.filters import Filters
from core.knowledge import KnowledgeBase
from ingest.pipeline import IngestPipeline
from service.answering.retrieval import Retriever
from service.evaluation.gold import GoldQuestion
from service.evaluation.runner import RetrievalScores, rank_documents, score_retrieval
from tests.integration.conftest import run_hearth

pytestmark = pytest.mark.embedded_only(
    "the eval harness (its metrics, reports and scratch bases) is the subject; test_congruence "
    "and test_rag cover retrieval and answers over these backends: one pass"
)

MODEL = "smollm2-135m"

DOCS = {
    "lighthouse.txt": (
        "The Skerry Point lighthouse was lit for the first time in 1872. Its first keeper, "
        "Maren Holt, logged every ship that passed the cape and the state of the tide."
    ),
    "bakery.txt": (
        "Ferro's bakery on Canal Street was founded by Lucia Ferro in 1931. It bakes rye bread "
        "and almond cakes every morning before five o'clock."
    ),
    "volcano.txt": (
        "Mount Tarn is a volcano in the northern highlands. Its great eruption in 1783 buried "
        "the valley farms under ash and lava, and the crater lake formed afterwards."
    ),
}


# Close neighbours of DOCS, so the rankings below the first place are close calls.
NEAR_DOCS = {
    "lighthouse2.txt": (
        "The Marren Head lighthouse was lit in 1881; its keepers logged the tide and the ships "
        "rounding the headland each night."
    ),
    "bakery2.txt": (
        "Holt's bakery on Mill Street opened in 1929 and sells rye loaves and honey cakes from "
        "six in the morning."
    ),
    "volcano2.txt": (
        "Mount Orrin, a volcano south of the highlands, last erupted in 1790, when ash covered "
        "the orchards of the valley."
    ),
}

#: (question, the document that answers it): short and long, so a batch pads them.
QUESTIONS = [
    ("Lighthouse keeper?", "lighthouse.txt"),
    ("When was the Marren Head lighthouse lit for the first time, and what did its keepers "
     "write down every night?", "lighthouse2.txt"),
    ("Who founded the bakery on Canal Street?", "bakery.txt"),
    ("Which bakery sells honey cakes?", "bakery2.txt"),
    ("What did the great eruption of Mount Tarn in 1783 bury under ash and lava?", "volcano.txt"),
    ("Orrin eruption", "volcano2.txt"),
]  # fmt: skip


def _gold_lines(corpus: Path) -> list[dict[str, object]]:
    return [
        {"question": "When was the Skerry Point lighthouse first lit?",
         "source": "lighthouse.txt", "answer": "1872"},
        {"question": "Who founded Ferro's bakery on Canal Street?",
         "source": str(corpus / "bakery.txt"), "answer": ["Lucia Ferro", "Ferro"]},
        {"question": "When did the volcano Mount Tarn erupt?", "source": ["volcano.txt"]},
        {"question": "What is the phone number of the Helsinki tram depot?",
         "unanswerable": True},
        {"question": "Where does the harbour ferry dock in winter?",
         "source": "ferry-timetable.pdf"},
    ]  # fmt: skip


def test_eval_gold_jsonl_with_answers(tmp_path: Path) -> None:
    data = tmp_path / "data"
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    for name, text in DOCS.items():
        (corpus / name).write_text(text)
    assert run_hearth(data, "ingest", "-q", str(corpus)).returncode == 0
    gold = tmp_path / "gold.jsonl"
    gold.write_text("\n".join(json.dumps(line) for line in _gold_lines(corpus)) + "\n")

    # SmolLM2 tends to repeat itself up to max_tokens: a short cap keeps the test quick.
    done = run_hearth(
        data, "eval", str(gold), "--model", MODEL, "--json", timeout=900,
        HEARTH_LLM__MAX_TOKENS="48",
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    report = json.loads(done.stdout)  # --json: stdout holds only the report
    assert report["version"] == 1 and report["kind"] == "jsonl" and report["k"] == 10
    assert report["gold"] == str(gold)
    assert report["model"] == MODEL
    r = report["retrieval"]
    # Four questions name sources; three are in the catalogue and obvious (rank 1), one
    # (ferry-timetable.pdf) is not: every recall, MRR and nDCG is 3/4.
    assert r["questions"] == 4
    assert r["sources_not_found"] == 1
    for key in ("recall@1", "recall@5", "recall@10", "recall@k", "mrr", "ndcg@10"):
        assert r[key] == pytest.approx(0.75), (key, r)
    assert "ferry-timetable.pdf" in done.stderr  # the warning names the missing source
    a = report["answers"]
    assert a["questions"] == 5 and a["with_expected"] == 2
    assert a["unanswerable"] == 1 and a["answerable"] == 4
    for key in ("containment", "abstention_accuracy", "declined_unanswerable",
                "declined_answerable"):  # fmt: skip
        assert 0.0 <= a[key] <= 1.0, (key, a)
    # Combined accuracy is the mean over the five answers of "declined iff unanswerable".
    expected = (a["declined_unanswerable"] * 1 + (1 - a["declined_answerable"]) * 4) / 5
    assert a["abstention_accuracy"] == pytest.approx(expected, abs=1e-3)
    if a["generated"]:
        assert 0 < a["ttft_s"]["median"] <= a["ttft_s"]["p95"]
    assert len(a["samples"]) == 5 and all(s["answer"] is not None for s in a["samples"])
    last = json.loads((data / "eval" / "last.json").read_text())
    assert last == report


def _write_beir(folder: Path, extra: str = "") -> None:
    docs = {
        "b1": ("Lighthouse", DOCS["lighthouse.txt"] + extra),
        "b2": ("Bakery", DOCS["bakery.txt"]),
        "b3": ("Volcano", DOCS["volcano.txt"]),
        "b4": ("Chess", "The chess club meets on Tuesdays in the library; beginners learn the "
               "Sicilian Defence and endgames with a rook and king."),
        "b5": ("Beekeeping", "Beekeepers harvest honey in late summer, leaving enough in the "
               "hive for the bees to survive the winter."),
    }  # fmt: skip
    queries = {
        "q1": "Who kept the Skerry Point lighthouse?",
        "q2": "Which bakery bakes almond cakes?",
        "q3": "What did the 1783 eruption of Mount Tarn bury?",
        "q4": "When does the chess club meet?",
        "q5": "When is honey harvested from the hive?",
    }
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "qrels").mkdir(exist_ok=True)
    (folder / "corpus.jsonl").write_text(
        "".join(json.dumps({"_id": i, "title": t, "text": x}) + "\n" for i, (t, x) in docs.items())
    )
    (folder / "queries.jsonl").write_text(
        "".join(json.dumps({"_id": q, "text": t}) + "\n" for q, t in queries.items())
    )
    (folder / "qrels" / "test.tsv").write_text(
        "query-id\tcorpus-id\tscore\n" + "".join(f"q{n}\tb{n}\t1\n" for n in range(1, 6))
    )


def test_eval_beir_folder_scratch_reused(tmp_path: Path) -> None:
    data = tmp_path / "data"
    beir = tmp_path / "tiny_beir"
    _write_beir(beir)

    first = run_hearth(data, "eval", str(beir), "--no-answers", "--json", timeout=600)
    assert first.returncode == 0, first.stderr[-3000:]
    report = json.loads(first.stdout)
    assert report["kind"] == "beir" and report["answers"] is None and report["model"] is None
    assert report["retrieval"]["questions"] == 5
    assert report["retrieval"]["recall@10"] == 1.0  # obvious queries, one document each
    assert report["retrieval"]["mrr"] > 0.8
    scratch = report["scratch"]
    assert scratch["reused"] is False and scratch["documents"] == 5
    assert Path(scratch["folder"]).parent == data / "eval" / "scratch"
    assert not (data / "catalogue.db").exists()  # the user's own knowledge base is untouched

    again = run_hearth(data, "eval", str(beir), "--no-answers", "--json", timeout=600)
    assert again.returncode == 0, again.stderr[-3000:]
    rerun = json.loads(again.stdout)
    assert rerun["scratch"]["reused"] is True and rerun["scratch"]["ingest_s"] == 0.0
    assert rerun["scratch"]["folder"] == scratch["folder"]
    assert rerun["retrieval"] == report["retrieval"]
    assert json.loads((data / "eval" / "last.json").read_text()) == rerun

    # A changed corpus gets a new scratch base, and the old one is removed.
    _write_beir(beir, extra=" The lamp burned colza oil.")
    changed = run_hearth(data, "eval", str(beir), "--no-answers", "--json", timeout=600)
    assert changed.returncode == 0, changed.stderr[-3000:]
    new = json.loads(changed.stdout)["scratch"]
    assert new["reused"] is False and new["folder"] != scratch["folder"]
    assert [p.name for p in (data / "eval" / "scratch").iterdir()] == [Path(new["folder"]).name]


def test_eval_clear_errors(tmp_path: Path) -> None:
    data = tmp_path / "data"
    missing = run_hearth(data, "eval", str(tmp_path / "nope.jsonl"), "--no-answers")
    assert missing.returncode == 1 and "no such file" in missing.stderr
    bad = tmp_path / "bad.jsonl"
    bad.write_text(
        json.dumps({"question": "fine?", "source": "a.txt"})
        + "\n"
        + json.dumps({"question": "bad source?", "source": 7})
        + "\n"
    )
    done = run_hearth(data, "eval", str(bad), "--no-answers")
    assert done.returncode == 1
    assert "line 2" in done.stderr and "'source'" in done.stderr
    folder = tmp_path / "not_beir"
    folder.mkdir()
    (folder / "corpus.jsonl").write_text("")
    done = run_hearth(data, "eval", str(folder), "--no-answers")
    assert done.returncode == 1 and "not a BEIR folder" in done.stderr


@pytest.mark.slow
def test_eval_squad_dev_retrieval(shared_data: Path, tmp_path: Path) -> None:
    squad = shared_data / "retrieval" / "squad_dev"
    done = run_hearth(
        tmp_path / "data", "eval", str(squad), "--no-answers", "--limit", "300", "--json",
        timeout=1800,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    r = json.loads(done.stdout)["retrieval"]
    assert r["questions"] == 300
    assert r["recall@10"] > 0.85, r
    assert r["recall@1"] <= r["recall@5"] <= r["recall@10"]
    assert r["mrr"] <= r["recall@10"]


@pytest.mark.slow
@pytest.mark.embedded_only("loads the model in process to measure its memory")
def test_models_bench_smollm2(tmp_path: Path) -> None:
    beir = tmp_path / "tiny_beir"
    _write_beir(beir)
    done = run_hearth(
        tmp_path / "data", "models", "bench", "--models", MODEL, "--gold", str(beir),
        "--answers", "2", "--json", timeout=900, HEARTH_LLM__MAX_TOKENS="48",
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    report = json.loads(done.stdout)
    assert [m["name"] for m in report["models"]] == [MODEL]
    row = report["models"][0]
    assert row["status"] == "ok", row
    assert row["quantization"] == "Q4_1"
    assert row["load_s"] > 0 and row["ttft_s"] > 0
    assert row["planned_bytes"] > 50 * 2**20
    assert row["measured_bytes"] > 0
    assert row["prompt_tokens"] > 100 and row["prompt_tokens_per_s"] > 0
    assert 0 < row["generated_tokens"] <= 64 + 1
    assert row["generation_tokens_per_s"] is None or row["generation_tokens_per_s"] > 0
    assert isinstance(row["fixed_answer_correct"], bool)
    q = row["quality"]
    assert q["questions"] == 2 and q["answerable"] == 2
    assert 0.0 <= q["abstention_accuracy"] <= 1.0


@pytest.fixture
def retriever(tmp_path: Path, pipeline: IngestPipeline, kb: KnowledgeBase) -> Retriever:
    """A retriever over DOCS and their close neighbours NEAR_DOCS, ingested."""
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    for name, text in {**DOCS, **NEAR_DOCS}.items():
        (corpus / name).write_text(text)
    assert pipeline.ingest_paths([corpus]).count("failed") == 0
    return Retriever(kb, pipeline.embedder)


def test_batched_question_embeddings_rank_as_one_at_a_time(
    retriever: Retriever, embedder: Embedder
) -> None:
    # `hearth eval` embeds its questions in batches and hands each embedding to the retriever;
    # the rankings must be the ones a question embedded on its own gets (padding in a batch of
    # questions of different lengths must not move a passage).
    questions = [GoldQuestion(f"q{i}", text, {name: 1}) for i, (text, name) in enumerate(QUESTIONS)]

    batch = embedder.embed([q.question for q in questions])
    for q, vector in zip(questions, batch, strict=True):
        alone = retriever.retrieve(q.question, k=10, cut=False)
        given = retriever.retrieve(q.question, k=10, cut=False, vector=vector)
        assert [p.chunk_id for p in given] == [p.chunk_id for p in alone], q.question
        assert [p.score for p in given] == pytest.approx([p.score for p in alone], abs=1e-4)
        assert rank_documents(retriever, q.question, 10, Filters(), vector) == rank_documents(
            retriever, q.question, 10, Filters()
        )

    def key_of(_q: GoldQuestion, _doc_id: int, path: str) -> str:
        return Path(path).name

    batched = score_retrieval(retriever, questions, key_of, 10, Filters(), progress=False)
    single = RetrievalScores(10)
    for q in questions:
        ranked = [Path(p).name for _, p in rank_documents(retriever, q.question, 10, Filters())]
        single.add(ranked, dict(q.relevance))
    assert batched.summary() == single.summary()
    assert batched.rr == single.rr and batched.ndcg10 == single.ndcg10
    # The whole order is compared, not only the first: every document is ranked for each one.
    assert all(
        len(rank_documents(retriever, q.question, 10, Filters())) == len(DOCS) + len(NEAR_DOCS)
        for q in questions
    )
    assert batched.summary()["recall@10"] == 1.0


def test_passages_missing_from_the_catalogue_are_replaced_by_the_next(
    retriever: Retriever, kb: KnowledgeBase
) -> None:
    # The retriever reads only the first k fused chunks from the catalogue; when a vector store
    # is ahead of it (a chunk row gone, its vector still there), it reads on and still gives k.
    question = "When was the lighthouse lit?"
    before = retriever.retrieve(question, k=2, method="dense", cut=False)
    assert len(before) == 2
    with kb.db.session() as s:  # the catalogue loses the best chunk; FAISS keeps its vector
        s.execute(delete(Chunk).where(Chunk.id == before[0].chunk_id))
        s.commit()
    after = retriever.retrieve(question, k=2, method="dense", cut=False)
    assert [p.chunk_id for p in after][:1] == [before[1].chunk_id]
    assert len(after) == 2 and before[0].chunk_id not in {p.chunk_id for p in after}
