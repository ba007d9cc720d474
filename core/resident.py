"""Every input of the memory plan besides the LLMs themselves, in one place.

The planner (service/llm/planner.py) adds these to each local model's weights, KV cache and
compute buffers. Whisper, OCR and the voice load lazily and may be freed when idle, but a plan
must hold room for them while they are in use; the vector indexes this process loads (FAISS,
an embedded Chroma's HNSW segment) come from their store backends (core/vectorstores, each
registered with its estimate); the embedder and ``memory_extra`` parts come from settings.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from core.memsize import MIB, parse_size

if TYPE_CHECKING:
    from core.settings import HearthSettings

#: The cl100k_base vocabulary /v1/embeddings reads token-id inputs with
#: (service/openai_compat/token_ids.py): 46 MiB RSS growth measured when it loads.
TOKEN_IDS_RESIDENT = 48 * MIB


def model_resident_bytes(settings: HearthSettings) -> dict[str, int]:
    """Estimated resident bytes of each auxiliary model: ``{"whisper": n, "ocr": n, "voice": n,
    "speakers": n}`` (speakers: the diarization encoder, see ``core.voiceprint``).

    Whisper: its model.bin plus a measured working set (0 when the model is not found); OCR:
    measured with rapidocr's bundled models. Neither includes the decoded audio or image, which
    grow with the input (64 KB per second of audio; about 3 bytes per pixel of an image). Voice
    (read-aloud): the piper .onnx plus a measured working set (see ``core.tts``).
    """
    from core.ocr import estimate_resident_bytes as ocr_bytes
    from core.speech import estimate_resident_bytes as speech_bytes
    from core.tts import estimate_resident_bytes as voice_bytes
    from core.voiceprint import estimate_resident_bytes as speaker_bytes

    return {
        "whisper": speech_bytes(settings.speech),
        "ocr": ocr_bytes(settings.ocr),
        "voice": voice_bytes(settings.tts),
        "speakers": speaker_bytes(settings.diarization),
    }


def resident_parts(settings: HearthSettings) -> dict[str, int]:
    """Bytes of every planned part besides the LLMs, by the label the plan shows: ``embedder``
    (``embedder.resident_memory``), ``embeddings token ids``, ``whisper``, ``ocr``, ``voice``,
    ``<role> index`` per vector index this process loads (the keyword index stays in the
    database, read through its page cache), then each ``memory_extra`` entry. ``ConfigError``
    naming the setting for a size that does not parse."""
    from core.vectorstores.base import store_resident_bytes

    parts = {"embedder": parse_size(settings.embedder.resident_memory, "embedder.resident_memory")}
    parts["embeddings token ids"] = TOKEN_IDS_RESIDENT  # loaded at the first such request
    parts.update(model_resident_bytes(settings))
    for role, index_bytes in store_resident_bytes(settings).items():
        parts[f"{role} index"] = index_bytes
    for name, size in settings.memory_extra.items():
        parts[name] = parse_size(size, f"memory_extra.{name}")
    return parts
