"""Check boxes in a form's text said in words.

A form's options come with box characters: "Yes ☐ No ☑", "Large accelerated filer ☐ ...
Smaller reporting company ☑". Neither the keyword index nor a small model reads a box as
"checked": asked "Is Galaxy Gaming a well-known seasoned issuer?", the 1.5B had the line and
could not say (held-out dev h053). A line with two boxes or more, one of them checked, gets the
checked options named after it: "... Yes ☐ No ☑ (checked: No)".
"""

from __future__ import annotations

import re

from core.text import SENTENCE_END

#: Boxes as Unicode writes them: empty, and checked (a tick or a cross).
EMPTY = "\u2610"
CHECKED = "\u2611\u2612"
_BOX = re.compile(f"[{EMPTY}{CHECKED}]")
#: A field's lead before its options ("Pets: ☑ Cat"), besides a sentence's end.
_FIELD_LEAD = re.compile(r"[:|]\s")
#: Words of an option's label at most.
MAX_LABEL_WORDS = 6


def _label(text: str) -> str:
    words = text.strip(" |\t").split()
    return " ".join(words[-MAX_LABEL_WORDS:])


def _checked(line: str) -> list[str]:
    """The labels of the checked boxes of ``line``: the text before each box, from the box
    before it (or the sentence's end, or a colon), or after each box when nothing but such a
    lead comes before the first."""
    boxes = list(_BOX.finditer(line))
    if len(boxes) < 2 or not any(b.group(0) in CHECKED for b in boxes):
        return []
    first = line[: boxes[0].start()]
    leads = [*SENTENCE_END.finditer(first), *_FIELD_LEAD.finditer(first)]
    first = first[max((m.end() for m in leads), default=0) :]
    if not first.strip(" |\t"):  # "Pets: ☑ Cat ☐ Dog": each box before its label
        starts = [b.end() for b in boxes]
        ends = [b.start() for b in boxes[1:]] + [len(line)]
    else:  # "Yes ☐ No ☑": each label before its box
        starts = [boxes[0].start() - len(first), *(b.end() for b in boxes[:-1])]
        ends = [b.start() for b in boxes]
    labels = [
        _label(line[start:end])
        for box, start, end in zip(boxes, starts, ends, strict=True)
        if box.group(0) in CHECKED
    ]
    return [label for label in labels if label]


def mark_checked(text: str) -> str:
    """``text`` with each line of check boxes followed by its checked options in words:
    ``"Yes ☐ No ☑"`` -> ``"Yes ☐ No ☑ (checked: No)"``; text without a checked box as it is."""
    if not any(c in text for c in CHECKED):
        return text
    lines = text.split("\n")
    for i, line in enumerate(lines):
        if labels := _checked(line):
            lines[i] = f"{line} (checked: {'; '.join(labels)})"
    return "\n".join(lines)
