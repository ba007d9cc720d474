"""Keep the process offline: no model hub, no telemetry."""

from __future__ import annotations

import os

#: Environment switches honoured by huggingface_hub, transformers, sentence-transformers and Chroma.
OFFLINE_ENV: dict[str, str] = {
    "HF_HUB_OFFLINE": "1",
    "TRANSFORMERS_OFFLINE": "1",
    "HF_DATASETS_OFFLINE": "1",
    "HF_HUB_DISABLE_TELEMETRY": "1",
    "DO_NOT_TRACK": "1",
    "ANONYMIZED_TELEMETRY": "False",
    # ONNX Runtime (rapidocr's engine) otherwise resolves mobile.events.data.microsoft.com and
    # sends usage events from native threads when an OCR session starts (seen with strace).
    "ORT_DISABLE_TELEMETRY": "1",
    "TOKENIZERS_PARALLELISM": "false",
    "TRANSFORMERS_VERBOSITY": "error",
    "HF_HUB_DISABLE_PROGRESS_BARS": "1",
    "TRANSFORMERS_NO_ADVISORY_WARNINGS": "1",
}


def enforce_offline() -> None:
    """Set the offline and no-telemetry switches in this process's environment (idempotent)."""
    for key, value in OFFLINE_ENV.items():
        os.environ[key] = value
