"""Reading server-sent events from a real streaming response."""

from __future__ import annotations

import json
from typing import Any

import httpx


def read_events(client: httpx.Client, path: str, body: dict[str, Any]) -> list[tuple[str, Any]]:
    """POST and collect (event, data) pairs until the stream ends."""
    events: list[tuple[str, Any]] = []
    with client.stream("POST", path, json=body) as resp:
        assert resp.status_code == 200, resp.read()
        assert resp.headers["content-type"].startswith("text/event-stream")
        kind, data = "message", []
        for line in resp.iter_lines():
            if line.startswith("event:"):
                kind = line.split(":", 1)[1].strip()
            elif line.startswith("data:"):
                data.append(line.split(":", 1)[1].strip())
            elif not line and data:
                events.append((kind, json.loads("\n".join(data))))
                kind, data = "message", []
    return events
