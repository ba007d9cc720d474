"""The Knowledge view's backup download: a tar with the catalogue snapshot and its manifest."""

from __future__ import annotations

import json
import tarfile
from pathlib import Path

from tests.e2e.conftest import Tab


def test_knowledge_view_downloads_a_backup(desktop: Tab, tmp_path: Path) -> None:
    page = desktop.page
    desktop.open("#/knowledge")
    with page.expect_download(timeout=240_000) as info:
        page.click("#backup-download")
    saved = tmp_path / info.value.suggested_filename
    info.value.save_as(saved)
    assert saved.name.startswith("hearth-backup-") and saved.suffix == ".tar"
    with tarfile.open(saved) as tar:
        names = tar.getnames()
        reader = tar.extractfile("hearth-backup/manifest.json")
        assert reader is not None
        manifest = json.loads(reader.read())
    assert "hearth-backup/catalogue.db" in names
    assert manifest["files"]["catalogue.db"]["size"] > 0
    assert manifest["counts"]["prompt_templates"] >= 1
    page.locator("#backup-download[data-state='done']").wait_for()
    assert not desktop.console_errors, desktop.console_errors
