"""Issue 28, item 3: encrypted files and missing libraries fail one file, never the batch.

The encrypted kinds themselves (PDF RC4-40/RC4-128/AES-128/AES-256 owner-only and with a user
password, DOCX/XLSX/PPTX with a password, an XLSX under Excel's built-in password, an ODT with a
password, a DRM'd EPUB) are in tests/badfiles.py, so test_bad_inputs.py runs them through the
CLI, the upload API and the watcher; here they go through `hearth ingest` alone beside good
files, and a reader's library that is not installed is shown to fail only its own files.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from core.knowledge import KnowledgeBase
from ingest.commands import EXIT_FILES_FAILED
from tests.badfiles import NEEDS_PASSWORD, encrypted_kinds, encrypted_pdf
from tests.integration.conftest import REPO, backend_settings, hearth_env, run_hearth
from tests.integration.test_bad_inputs import stored

pytestmark = pytest.mark.embedded_only("the loaders' refusals are the subject: one pass")

GOOD = {
    "lamp.md": "# Lamp\nThe brass lamp in the hallway was made in Bergen in 1911.\n",
    "boat.txt": "The rowing boat Maren is painted yellow and kept in shed nine.\n",
}


def _write_good(folder: Path) -> None:
    for name, text in GOOD.items():
        (folder / name).write_text(text)


def test_encrypted_files_beside_good_ones_through_the_cli(tmp_path: Path) -> None:
    folder = tmp_path / "batch"
    folder.mkdir()
    kinds = encrypted_kinds(tmp_path / "scratch")
    for bad in kinds:
        bad.write(folder)
    _write_good(folder)
    done = run_hearth(tmp_path / "data", "ingest", "-q", str(folder))
    assert done.returncode == EXIT_FILES_FAILED, done.stderr
    assert "Traceback" not in done.stderr, done.stderr
    opened = [b for b in kinds if b.outcome == "added"]
    locked = [b for b in kinds if b.outcome == "failed"]
    assert len(opened) == 5 and len(locked) == 8
    assert f"added {len(GOOD) + len(opened)}," in done.stdout, done.stdout
    assert f"failed {len(locked)}" in done.stdout, done.stdout
    for bad in locked:  # each named, with its reason
        line = next((ln for ln in done.stderr.splitlines() if f"/{bad.name}: " in ln), "")
        assert f"failed: {folder.resolve() / bad.name}: {bad.name}: encrypted" in line, bad.kind
        assert all(fragment in line for fragment in bad.expect), (bad.kind, line)
    kb = KnowledgeBase(backend_settings(tmp_path / "data"))
    try:
        texts = {Path(p).name: " ".join(t for _, t, _ in ch) for p, ch in stored(kb).items()}
    finally:
        kb.close()
    assert set(GOOD) <= set(texts)
    for bad in opened:
        assert all(fragment in texts.get(bad.name, "") for fragment in bad.expect), bad.kind
    assert not {b.name for b in locked} & set(texts)  # owner-only PDFs, the workbook: read


BLOCKED = """
import sys
for name in sys.argv[1].split(","):
    sys.modules[name] = None  # import raises ImportError: as if the package were not installed
sys.argv = ["hearth", *sys.argv[2:]]
from service.cli import main
main()
"""


@pytest.mark.embedded_only("one CLI run; the missing library is the point, not the backend")
def test_a_missing_library_fails_only_the_files_that_need_it(tmp_path: Path) -> None:
    """Without `cryptography` an AES-encrypted PDF used to end the whole ingest with pypdf's
    DependencyError and a traceback (issue 28); without `odf` every .odt did the same."""
    import subprocess

    import samples.formats as samples

    folder = tmp_path / "batch"
    folder.mkdir()
    aes = "Marker AES: the lighthouse keeper counts eleven gulls."
    (folder / "owner-only-aes.pdf").write_bytes(encrypted_pdf(aes, "AES-128", user=""))
    samples.make_odt(folder / "handbook.odt")
    _write_good(folder)
    done = subprocess.run(
        [sys.executable, "-c", BLOCKED, "cryptography,odf", "ingest", "-q", str(folder)],
        env=hearth_env(tmp_path / "data"),
        capture_output=True,
        text=True,
        timeout=600,
        cwd=REPO,
    )
    assert done.returncode == EXIT_FILES_FAILED, done.stderr
    assert "Traceback" not in done.stderr, done.stderr
    assert f"added {len(GOOD)}," in done.stdout and "failed 2" in done.stdout, done.stdout
    pdf = next(ln for ln in done.stderr.splitlines() if "owner-only-aes.pdf: " in ln)
    assert "owner-only-aes.pdf: " in pdf and "'cryptography'" in pdf and "not installed" in pdf
    odt = next(ln for ln in done.stderr.splitlines() if "handbook.odt: " in ln)
    assert "'odf'" in odt and "not installed" in odt, odt
    assert NEEDS_PASSWORD not in pdf  # a missing library is not taken for a password
