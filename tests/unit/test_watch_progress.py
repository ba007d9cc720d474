"""The progress bar `hearth watch` draws for each batch (on a terminal; none with -q)."""

from __future__ import annotations

import io

import pytest

from ingest.pipeline import FileResult
from ingest.progress import ProgressBar


class FakeTerminal(io.StringIO):
    def isatty(self) -> bool:
        return True


@pytest.mark.parametrize("quiet", [False, True])
def test_a_batch_draws_a_bar_on_stderr_unless_quiet(
    monkeypatch: pytest.MonkeyPatch, quiet: bool
) -> None:
    err = FakeTerminal()
    monkeypatch.setattr("sys.stderr", err)
    bar = ProgressBar(quiet)
    bar.begin(3)
    for i in range(3):
        bar.step(FileResult(f"/x/{i}.txt", "added", 1))
    bar.end()
    if quiet:
        assert err.getvalue() == ""
    else:
        assert "ingest" in err.getvalue() and "3/3" in err.getvalue()
