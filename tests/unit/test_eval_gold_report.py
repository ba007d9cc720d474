"""Gold sets (GOLD.jsonl lines, BEIR folders, answers files), answer sampling, and the report's
JSON contract and atomic last.json."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from core.errors import InvalidInputError, NotFoundError
from service.evaluation.gold import attach_answers, load_gold, parse_gold_line
from service.evaluation.report import EvalReport, write_last
from service.evaluation.runner import RetrievalScores, sample


def test_gold_line_forms() -> None:
    q = parse_gold_line(json.dumps({"question": " Who? ", "source": "a.pdf", "answer": "Ada"}), 1)
    assert q.question == "Who?" and dict(q.relevance) == {"a.pdf": 1} and q.answers == ("Ada",)
    q = parse_gold_line(json.dumps({"question": "Who?", "source": ["a.pdf", "b.txt"]}), 2)
    assert set(q.relevance) == {"a.pdf", "b.txt"} and q.answers == () and not q.unanswerable
    q = parse_gold_line(json.dumps({"question": "Depth?", "unanswerable": True}), 3)
    assert q.unanswerable and not q.relevance


@pytest.mark.parametrize(
    ("line", "field"),
    [
        ("{not json", "line"),
        ("[1, 2]", "line"),
        (json.dumps({"source": "a.pdf"}), "question"),
        (json.dumps({"question": "   ", "source": "a.pdf"}), "question"),
        (json.dumps({"question": "Who?"}), "source"),
        (json.dumps({"question": "Who?", "source": 3}), "source"),
        (json.dumps({"question": "Who?", "source": []}), "source"),
        (json.dumps({"question": "Who?", "source": "a", "answer": [1]}), "answer"),
        (json.dumps({"question": "Who?", "unanswerable": "yes"}), "unanswerable"),
        (json.dumps({"question": "Who?", "unanswerable": True, "answer": "x"}), "answer"),
    ],
)
def test_gold_line_errors_name_line_and_field(line: str, field: str) -> None:
    with pytest.raises(InvalidInputError) as err:
        parse_gold_line(line, 7)
    assert err.value.message.startswith("line 7:")
    assert err.value.field == field


def test_gold_file_errors(tmp_path: Path) -> None:
    with pytest.raises(NotFoundError):
        load_gold(tmp_path / "missing.jsonl")
    empty = tmp_path / "empty.jsonl"
    empty.write_text("\n\n")
    with pytest.raises(InvalidInputError, match="no questions"):
        load_gold(empty)
    gold = tmp_path / "gold.jsonl"
    gold.write_text(
        json.dumps({"question": "A?", "source": "a.txt"}) + "\n\n"
        + json.dumps({"question": "B?", "source": "b.txt", "answer": 5}) + "\n"
    )  # fmt: skip
    with pytest.raises(InvalidInputError, match=r"^line 3: field 'answer'"):
        load_gold(gold)


def _beir(folder: Path, qrels: dict[str, str]) -> None:
    folder.mkdir()
    (folder / "corpus.jsonl").write_text(
        json.dumps({"_id": "d1", "title": "T", "text": "one"}) + "\n"
        + json.dumps({"_id": "d2", "text": "two"}) + "\n"
    )  # fmt: skip
    (folder / "queries.jsonl").write_text(
        json.dumps({"_id": "q1", "text": "first?"}) + "\n"
        + json.dumps({"_id": "q2", "text": "second?"}) + "\n"
        + json.dumps({"_id": "q3", "text": "unjudged?"}) + "\n"
    )  # fmt: skip
    (folder / "qrels").mkdir()
    for name, body in qrels.items():
        (folder / "qrels" / name).write_text("query-id\tcorpus-id\tscore\n" + body)


def test_beir_folder_graded_and_only_judged_queries(tmp_path: Path) -> None:
    _beir(tmp_path / "set", {"dev.tsv": "q1\td1\t2\nq1\td2\t1\nq2\td2\t1\nq2\td1\t0\n"})
    gold = load_gold(tmp_path / "set")  # the only qrels file, though not test.tsv
    assert gold.kind == "beir" and gold.name == "set"
    assert [q.id for q in gold.questions] == ["q1", "q2"]  # q3 has no judgment
    assert dict(gold.questions[0].relevance) == {"d1": 2, "d2": 1}
    assert dict(gold.questions[1].relevance) == {"d2": 1}  # grade 0 is not relevant
    assert gold.corpus["d1"] == {"title": "T", "text": "one"} and gold.corpus["d2"]["title"] == ""
    assert len(gold.corpus_sha256) == 64


def test_beir_folder_errors(tmp_path: Path) -> None:
    _beir(tmp_path / "two", {"dev.tsv": "q1\td1\t1\n", "train.tsv": "q2\td2\t1\n"})
    with pytest.raises(InvalidInputError, match=r"not a BEIR folder.*dev\.tsv, train\.tsv"):
        load_gold(tmp_path / "two")
    (tmp_path / "plain").mkdir()
    with pytest.raises(InvalidInputError, match=r"missing corpus\.jsonl, queries\.jsonl"):
        load_gold(tmp_path / "plain")
    _beir(tmp_path / "badscore", {"test.tsv": "q1\td1\thigh\n"})
    with pytest.raises(InvalidInputError, match=r"test\.tsv line 2: score 'high'"):
        load_gold(tmp_path / "badscore")


def test_attach_answers_by_query_id(tmp_path: Path) -> None:
    _beir(tmp_path / "set", {"test.tsv": "q1\td1\t1\nq2\td2\t1\n"})
    gold = load_gold(tmp_path / "set")
    qa = tmp_path / "qa.jsonl"
    qa.write_text(
        json.dumps({"id": "q2", "question": "second?", "answers": ["two", "2"]}) + "\n"
        + json.dumps({"id": "zz", "answers": ["x"]}) + "\n"
    )  # fmt: skip
    assert attach_answers(gold, qa) == 1
    assert gold.questions[1].answers == ("two", "2") and gold.questions[0].answers == ()
    assert dict(gold.questions[1].relevance) == {"d2": 1}  # judgments kept


def test_sample_spreads_evenly() -> None:
    gold = load_gold_list(10)
    assert [q.id for q in sample(gold, 4)] == ["0", "2", "5", "7"]  # int(i * 10 / 4)
    assert len(sample(gold, 50)) == 10


def load_gold_list(n: int) -> list:  # type: ignore[type-arg]
    from service.evaluation.gold import GoldQuestion

    return [GoldQuestion(str(i), f"q{i}?", {"d": 1}) for i in range(n)]


def test_retrieval_scores_summary_hand_worked() -> None:
    scores = RetrievalScores(k=3)
    # q1: ranked [x, d1], relevant {d1} -> R@1 0, R@5 1, RR 1/2, nDCG 1/log2(3) = 0.6309
    scores.add(["x", "d1"], {"d1": 1})
    # q2: ranked [d2, y, z, w], relevant {d2} -> R@1 1, RR 1, nDCG 1
    scores.add(["d2", "y", "z", "w"], {"d2": 1})
    s = scores.summary()
    assert s["questions"] == 2
    assert s["recall@1"] == 0.5 and s["recall@5"] == 1.0 and s["recall@k"] == 1.0
    assert s["mrr"] == 0.75  # (1/2 + 1) / 2
    assert s["ndcg@10"] == pytest.approx((0.63093 + 1) / 2, abs=1e-4)


def test_report_contract_and_atomic_last_json(tmp_path: Path) -> None:
    report = EvalReport(
        gold="g.jsonl", kind="jsonl", collection=None, model="m", k=10,
        retrieval={"questions": 1, "recall@1": 1.0, "recall@5": 1.0, "recall@10": 1.0,
                   "recall@k": 1.0, "mrr": 1.0, "ndcg@10": 1.0},
        answers=None, seconds=1.5,
    )  # fmt: skip
    path = write_last(report, tmp_path / "data")
    assert path == tmp_path / "data" / "eval" / "last.json"
    body = json.loads(path.read_text())
    contract = {"version", "created", "gold", "kind", "collection", "model", "k", "retrieval",
                "answers", "seconds"}  # fmt: skip
    assert contract <= set(body) and body["version"] == 1 and body["answers"] is None
    assert [p.name for p in path.parent.iterdir()] == ["last.json"]  # no temporary file left
    text = report.text()
    assert "recall@10" in text and "not evaluated" in text
