"""Resident-memory estimates of Whisper and OCR for the memory planner."""

from __future__ import annotations

from pathlib import Path

from core.bundled import SPLIT_FOLDERS, packaged_path
from core.resident import model_resident_bytes
from core.settings import HearthSettings
from core.speech import WORKING_BYTES


def test_estimates_cover_the_bundled_models(settings: HearthSettings) -> None:
    est = model_resident_bytes(settings)
    weights = (packaged_path("whisper-tiny.en") / "model.bin").stat().st_size
    # tiny.en and the multilingual model a recording it cannot read goes to, one working set
    second = SPLIT_FOLDERS["whisper-base"].size
    assert est["whisper"] == weights + second + WORKING_BYTES
    settings.speech.second_model = None
    assert model_resident_bytes(settings)["whisper"] == weights + WORKING_BYTES
    assert est["ocr"] >= 256 * 2**20


def test_a_missing_whisper_folder_counts_nothing(settings: HearthSettings, tmp_path: Path) -> None:
    settings.speech.model = str(tmp_path / "nowhere")
    assert model_resident_bytes(settings)["whisper"] == 0
