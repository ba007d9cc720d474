"""Budget and size parsing, and HEARTH_MEMORY_BUDGET through the settings tree."""

from __future__ import annotations

import pytest

from core.errors import ConfigError
from core.memsize import parse_budget, parse_size
from core.settings import load_settings


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("6GB", 6 * 10**9),
        ("6GiB", 6 * 2**30),
        ("512MiB", 512 * 2**20),
        ("1000", 1000),
        (2048, 2048),
        ("1.5 GiB", int(1.5 * 2**30)),
    ],
)
def test_sizes(text: str | int, expected: int) -> None:
    assert parse_size(text) == expected


def test_share_of_available() -> None:
    assert parse_budget("60%", available=10_000) == 6_000


@pytest.mark.parametrize("bad", ["lots", "6XB", "0", "-1GB", "150%", "0%"])
def test_bad_budget_names_the_field(bad: str) -> None:
    with pytest.raises(ConfigError, match="memory_budget"):
        parse_budget(bad, available=10_000)


def test_env_budget(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HEARTH_MEMORY_BUDGET", "6GiB")
    assert load_settings().memory_budget == "6GiB"
    monkeypatch.setenv("HEARTH_MEMORY_BUDGET", "nonsense")
    with pytest.raises(ValueError, match="memory_budget"):
        load_settings()
