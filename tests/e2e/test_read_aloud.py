"""The read-aloud button under an answer fetches WAV audio from /v1/audio/speech (Chromium)."""

from __future__ import annotations

import json

from tests.e2e.conftest import Tab


def test_read_aloud_button_fetches_the_answer_as_audio(desktop: Tab) -> None:
    page = desktop.page
    desktop.open("#/chat")
    page.fill("#question", "Say hello in one short sentence.")
    page.press("#question", "Enter")
    answer = page.locator("#messages li.msg.assistant[data-state='done']").last
    answer.wait_for()
    button = answer.locator("button.read-aloud")
    with page.expect_response("**/v1/audio/speech", timeout=240_000) as info:
        button.click()
    response = info.value
    assert response.status == 200, response.text()
    assert response.headers["content-type"].startswith("audio/wav")
    sent = json.loads(response.request.post_data or "{}")
    shown = answer.locator(".text").inner_text()
    words = sent["input"].split()
    assert words and " ".join(words[:3]) in " ".join(shown.split())  # the answer's own words
    assert "[" not in sent["input"]  # citation markers are not read
    # Playwright gives no body for a streamed (chunked) response: the page reports what it got
    played = "button.read-aloud:is([data-state='playing'], [data-state='done'])"
    page.locator(played).last.wait_for()
    assert int(button.get_attribute("data-bytes") or 0) > 10_000  # seconds of 22 kHz audio
    assert not desktop.console_errors, desktop.console_errors
