"""Fixtures shared by every tier."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

import core  # noqa: F401 - offline switches before any model library loads
from core.settings import HearthSettings, load_settings

REPO = Path(__file__).resolve().parents[1]
SHARED_DATA = Path(os.environ.get("HEARTH_SHARED_DATA", REPO.parent / "shared" / "data"))
#: The files that take longest (scripts/test.sh's --durations, 2026-12-07: twenty kills 326 s,
#: the squad_dev eval 141 s, ...), run first: scripts/test.sh hands whole files to two workers in
#: collection order (--no-loadscope-reorder), so a long file started last would leave one
#: worker alone at the end (test_crash_many did: ~5 minutes).
SLOWEST_FIRST = (
    "tests/integration/test_crash_many.py",
    "tests/integration/test_eval.py",
    "tests/integration/test_shared_docs.py",
    "tests/integration/test_large_text.py",
    "tests/integration/test_privacy.py",
    "tests/integration/test_rag.py",
    "tests/integration/test_crash.py",
    "tests/integration/test_mail_cli.py",
    "tests/integration/test_squad_abstain.py",
    "tests/integration/test_bad_inputs.py",
)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The files of ``SLOWEST_FIRST`` first, in that order; the rest as collected."""
    rank = {name: i for i, name in enumerate(SLOWEST_FIRST)}
    items.sort(key=lambda item: rank.get(item.nodeid.split("::")[0], len(rank)))


@pytest.fixture
def shared_data() -> Path:
    """``../shared/data``; the test skips with a reason when this clone has none."""
    if not (SHARED_DATA / "docs").is_dir():
        pytest.skip(f"real-data tier: {SHARED_DATA} is absent (only this workplace has ../shared)")
    return SHARED_DATA


@pytest.fixture
def settings(tmp_path: Path) -> Iterator[HearthSettings]:
    """Settings on a fresh temporary data directory (bundled models from the install)."""
    yield load_settings(data_dir=tmp_path / "data")
