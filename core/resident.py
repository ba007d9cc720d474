"""Resident-memory estimates of the models besides the LLM, for the memory planner.

The planner adds these to the LLM's weights, KV cache and compute buffers. Whisper and OCR load
lazily and may be freed when idle, but a plan must hold room for them while they are in use.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from core.settings import HearthSettings


def resident_estimates(settings: HearthSettings) -> dict[str, int]:
    """Estimated resident bytes of each auxiliary model: ``{"whisper": n, "ocr": n, "voice": n}``.

    Whisper: its model.bin plus a measured working set (0 when the model is not found); OCR:
    measured with rapidocr's bundled models. Neither includes the decoded audio or image, which
    grow with the input (64 KB per second of audio; about 3 bytes per pixel of an image). Voice
    (read-aloud): the piper .onnx plus a measured working set (see ``core.tts``).
    """
    from core.ocr import estimate_resident_bytes as ocr_bytes
    from core.speech import estimate_resident_bytes as speech_bytes
    from core.tts import estimate_resident_bytes as voice_bytes

    return {
        "whisper": speech_bytes(settings.speech),
        "ocr": ocr_bytes(settings.ocr),
        "voice": voice_bytes(settings.tts),
    }
