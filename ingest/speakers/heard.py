"""Names the speakers of a recording say themselves: who introduces themself, who is greeted.

A speaker who says "I'm Sheila", "my name is Diane" or "this is Diane" is that person; a turn
that opens with a greeting or thanks and a name ("Good morning, Steve.", "Thanks, Maria") names
the other speaker of a two-voice recording. A name heard for two speakers, or two names for one,
names nobody. Heard names are shown beside the speaker's number ("Speaker 2 (Steve)"), never
instead of a name the person gave with ``hearth speakers name``; they are read by capitalisation
(Whisper writes names capitalised), so a product introduced as "this is Windows" can be heard
as a name: the number stays beside it.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from core.speech import Segment
from core.text import CALENDAR_WORDS, NOT_NAMES

_NAME = r"(?P<name>[A-Z][a-z]+(?:-[A-Z][a-z]+)?)\b"
#: A speaker saying who they are.
INTRODUCTION = re.compile(rf"\b(?i:my name is|I'm|I am|this is)\s+{_NAME}")
#: A turn opening with a greeting or thanks to someone by name.
GREETING = re.compile(
    r"^\W*(?i:hi|hello|hey|good (?:morning|afternoon|evening)|morning|thanks|thank you|welcome"
    rf"|bye|goodbye)[\s,!.]+{_NAME}"
)


def _is_name(word: str) -> bool:
    lowered = word.lower()
    return len(word) > 1 and lowered not in NOT_NAMES and lowered not in CALENDAR_WORDS


def heard_names(segments: Sequence[Segment], speakers: Sequence[int]) -> dict[int, str]:
    """Speaker number -> the name heard for them, from ``segments`` (in time order) and each
    one's speaker (from 1; as ``segment_speakers`` gives them). Empty for one speaker."""
    voices = sorted(set(speakers))
    if len(voices) < 2:
        return {}
    heard: dict[int, set[str]] = {}
    for seg, who in zip(segments, speakers, strict=True):
        text = seg.text.strip()
        for intro in INTRODUCTION.finditer(text):
            if _is_name(intro.group("name")):
                heard.setdefault(who, set()).add(intro.group("name"))
        greeting = GREETING.match(text) if len(voices) == 2 else None
        if greeting and _is_name(greeting.group("name")):
            other = voices[1] if who == voices[0] else voices[0]
            heard.setdefault(other, set()).add(greeting.group("name"))
    named = {who: next(iter(names)) for who, names in heard.items() if len(names) == 1}
    taken = list(named.values())
    return {who: name for who, name in named.items() if taken.count(name) == 1}
