"""A transcript's timed cues written as turns: who said what, and when.

A meeting transcript saved as a document (Microsoft Teams' Word export, a WebVTT or SubRip text
pasted into a file) gives each cue as a time range line, the speaker's name on a line of its own,
then what was said::

    0:0:3.270 --> 0:0:4.250
    James Bond
    Umm.

Read as lines, the name stands between two utterances and a small model gives a speaker the
line before theirs ("James Bond said 'Yeah'": held-out dev h099). Each cue becomes one line,
``"James Bond (0:03–0:04): Umm."``, as a recording's turns are written (``core.provenance``).
A cue without a name line keeps its text after its time. Text with fewer than ``MIN_CUES`` cues
is returned as it is.
"""

from __future__ import annotations

import re

from core.provenance import clock

_TIME = r"(?:(\d{1,2}):)?(\d{1,2}):(\d{1,2}(?:[.,]\d+)?)"
#: A cue's time range line ("0:0:3.270 --> 0:0:4.250", "00:00:03,270 --> 00:00:04,250").
CUE_TIME = re.compile(rf"^\s*{_TIME}\s*-->\s*{_TIME}(?:\s.*)?$")
#: A transcript has at least this many cues.
MIN_CUES = 2
#: A speaker's name: a few capitalised words (or initials), no sentence's end.
_NAME = re.compile(r"^[A-Z][\w'’.-]*(?: [A-Z][\w'’.-]*| [a-z]{1,3}){0,3}$")


def _seconds(hours: str | None, minutes: str, seconds: str) -> float:
    return int(hours or 0) * 3600 + int(minutes) * 60 + float(seconds.replace(",", "."))


def _is_name(line: str) -> bool:
    return _NAME.match(line) is not None and not line.endswith((".", "?", "!"))


def speaker_turns(text: str) -> str:
    """``text`` with each timed cue written as one line ``"Name (start–end): words"`` (see the
    module); lines outside cues, and text with fewer than ``MIN_CUES`` cues, as they are."""
    lines = text.split("\n")
    cues = [(i, m) for i, line in enumerate(lines) if (m := CUE_TIME.match(line))]
    if len(cues) < MIN_CUES:
        return text
    out = lines[: cues[0][0]]
    longest = 0
    for n, (start, m) in enumerate(cues):
        last = n + 1 == len(cues)
        end = len(lines) if last else cues[n + 1][0]
        when = f"{clock(_seconds(*m.group(1, 2, 3)))}–{clock(_seconds(*m.group(4, 5, 6)))}"
        body = [ln.strip() for ln in lines[start + 1 : end]]
        if "" in body:  # a blank line ends a cue (WebVTT, SubRip)
            body, rest = body[: body.index("")], body[body.index("") :]
        else:  # the last cue of a document goes on no longer than the longest cue before it
            cut = longest if last and longest else len(body)
            body, rest = body[:cut], body[cut:]
        longest = max(longest, len(body))
        # SubRip numbers its cues, WebVTT may name them: the line before the next cue's time
        if not last and rest and rest[-1] and (rest[-1].isdigit() or len(rest) > 1):
            rest = rest[:-1]
        if len(body) > 1 and _is_name(body[0]):
            out.append(f"{body[0]} ({when}): {' '.join(body[1:])}")
        elif body:
            out.append(f"({when}) {' '.join(body)}")
        out += [ln for ln in rest if ln]
    return "\n".join(out)
