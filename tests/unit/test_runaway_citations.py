"""A reply counting citation markers past its passages ("is [1] [2] ... [96]"), seen on the
held-out runs up to the token limit: where the run stops being citing (``runaway_citations``)."""

from __future__ import annotations

import pytest

from core.text import runaway_citations


def run(start: int, end: int) -> str:
    return " ".join(f"[{n}]" for n in range(start, end + 1))


@pytest.mark.parametrize(
    ("reply", "passages", "kept"),
    [
        # counting from the first passage on: the markers it could mean are kept
        (f"The deficit widened by {run(1, 12)}", 8, f"The deficit widened by {run(1, 8)} "),
        # counting from the second, cut by the token limit inside a marker
        (f"The pizzas cost together {run(2, 37)} [3", 6, f"The pizzas cost together {run(2, 6)} "),
        # commas between, a full stop after
        ("It is [1], [2], [3], [4].", 3, "It is [1], [2], [3], "),
        # the same markers over and over: more markers than passages
        ("It is [1] [2] [1] [2] [1]", 2, "It is [1] [2] "),
    ],
    ids=["from-one", "cut-at-the-limit", "commas", "repeating"],
)
def test_a_run_counting_past_the_passages_is_found_at_its_first_impossible_marker(
    reply: str, passages: int, kept: str
) -> None:
    offset = runaway_citations(reply, passages)
    assert offset is not None and reply[:offset] == kept


@pytest.mark.parametrize(
    ("reply", "passages"),
    [
        ("Both say so [1] [2] [3].", 8),  # three real passages cited together
        ("It is 12 [1] [9].", 3),  # two markers are no run (an invalid citation, judged later)
        ("The first [1] [2] [9] and then the rest of the sentence.", 3),  # not the reply's end
        ("No citation at all.", 0),
    ],
    ids=["three-real", "two-markers", "not-at-the-end", "none"],
)
def test_citing_is_not_counting(reply: str, passages: int) -> None:
    assert runaway_citations(reply, passages) is None
