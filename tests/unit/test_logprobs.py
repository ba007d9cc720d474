"""Token log-probabilities from one row of logits (service.llm.logprobs)."""

from __future__ import annotations

import math

import numpy as np

from service.llm.logprobs import LoggedPiece, LogprobRecorder, log_softmax, token_logprob

VOCAB = [b"a", b"b", b" c", b"\xc3", b"\xa9"]


def test_log_softmax_is_a_distribution_even_for_large_logits() -> None:
    lp = log_softmax(np.array([1000.0, 999.0, -5.0], dtype=np.float32))
    assert all(v <= 0 for v in lp)
    assert math.isclose(float(np.exp(lp).sum()), 1.0, rel_tol=1e-9)
    assert math.isclose(float(lp[0] - lp[1]), 1.0, rel_tol=1e-6)


def test_token_logprob_reports_the_chosen_token_and_the_sorted_top() -> None:
    logits = np.array([0.5, 3.0, 2.0, -1.0, 0.0], dtype=np.float32)
    rec = token_logprob(logits, 2, 3, lambda i: VOCAB[i])
    assert rec.token == " c" and rec.bytes == tuple(b" c")
    assert [t for t, _, _ in rec.top] == ["b", " c", "a"]
    assert rec.top[1][1] == rec.logprob < 0
    assert token_logprob(logits, 2, 0, lambda i: VOCAB[i]).top == ()


def test_recorder_hands_out_records_once_the_text_covers_their_bytes() -> None:
    logits = np.zeros(5, dtype=np.float32)
    rec = LogprobRecorder(0)
    rec.records += [token_logprob(logits, i, 0, lambda i: VOCAB[i]) for i in (0, 3, 4, 1)]
    assert [r.token for r in rec.take(1)] == ["a"]
    assert rec.take(1) == []  # nothing new yielded
    assert len(rec.take(3)) == 2  # "é" (two byte tokens) yielded whole
    assert rec.take(3) == []  # "b" (say, part of a stop sequence) never reached the text
    piece = LoggedPiece("é", rec.records[1:3])
    assert piece == "é" and len(piece.logprobs) == 2
