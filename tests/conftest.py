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
