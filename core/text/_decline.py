"""The product's decline sentence."""

from __future__ import annotations

#: What the assistant answers when its sources do not say (the prompt templates ask for exactly
#: this sentence). Kept in core so metrics can recognise it.
DONT_KNOW = "I don't know: your documents do not say."
