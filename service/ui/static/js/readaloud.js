// Read an answer aloud: its words (no [n] markers) go to /v1/audio/speech; the WAV plays here.

import { h } from "./dom.js";
import { send } from "./api.js";

/** The answer as read aloud: citation markers and markdown emphasis dropped. */
export function speakable(text) {
  return text.replace(/\s*\[\d+(?:\s*[,;]\s*\d+)*\]/g, "").replace(/[*_`#]+/g, "").replace(/\s+/g, " ").trim();
}

/** A "Read aloud" button for one answer; data-state: idle, loading, playing, done or failed. */
export function readAloudButton(getText) {
  const button = h("button", { type: "button", class: "read-aloud", dataset: { state: "idle" }, "aria-label": "Read this answer aloud" }, "🔊 Read aloud");
  let audio = null;
  button.addEventListener("click", async () => {
    if (audio && !audio.paused) {
      audio.pause();
      button.dataset.state = "done";
      return;
    }
    button.dataset.state = "loading";
    try {
      const response = await send("/v1/audio/speech", {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify({ model: "hearth-tts", voice: "default", input: speakable(getText()), response_format: "wav" }),
      });
      if (!response.ok) throw new Error((await response.json().catch(() => ({})))?.error?.message || `HTTP ${response.status}`);
      const blob = await response.blob();
      button.dataset.bytes = String(blob.size);
      audio = new Audio(URL.createObjectURL(blob));
      audio.addEventListener("ended", () => { button.dataset.state = "done"; });
      button.dataset.state = "playing";
      await audio.play().catch(() => { button.dataset.state = "done"; });
    } catch (err) {
      button.dataset.state = "failed";
      button.title = `Read-aloud failed: ${err.message}`;
    }
  });
  return button;
}
