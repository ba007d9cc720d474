"""Read-aloud: answers and any text spoken by the configured voice (``core.tts``)."""
