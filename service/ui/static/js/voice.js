// A spoken question: record with MediaRecorder, send to /api/ask/voice, show transcript and answer.

import { $ } from "./dom.js";
import { upload } from "./api.js";
import { showExchange } from "./chat.js";

let recorder = null;

export function initVoice() {
  const button = $("#voice");
  if (!(navigator.mediaDevices && navigator.mediaDevices.getUserMedia && window.MediaRecorder)) return;
  button.hidden = false;
  button.addEventListener("click", () => (recorder ? recorder.stop() : record()));
}

function status(text, error = false) {
  const s = $("#ask-status");
  s.textContent = text;
  s.classList.toggle("error", error);
}

async function record() {
  const button = $("#voice");
  let stream;
  try {
    stream = await navigator.mediaDevices.getUserMedia({ audio: true });
  } catch (e) {
    status(`No microphone: ${e.message}`, true);
    return;
  }
  const pieces = [];
  recorder = new MediaRecorder(stream);
  recorder.addEventListener("dataavailable", (e) => e.data.size && pieces.push(e.data));
  recorder.addEventListener("stop", async () => {
    stream.getTracks().forEach((t) => t.stop());
    recorder = null;
    button.textContent = "Record question";
    button.setAttribute("aria-pressed", "false");
    const type = pieces[0]?.type || "audio/webm";
    const ext = type.includes("ogg") ? "ogg" : type.includes("mp4") ? "m4a" : "webm";
    await send(new Blob(pieces, { type }), `question.${ext}`);
  });
  recorder.start();
  button.textContent = "Stop recording";
  button.setAttribute("aria-pressed", "true");
  status("Recording… press the button again to send.");
}

async function send(blob, name) {
  const form = new FormData();
  form.append("file", blob, name);
  status("Transcribing and answering…");
  try {
    const result = await upload("/api/ask/voice", form, () => {});
    status("");
    showExchange(result.transcript, result);
  } catch (e) {
    status(e.status === 404 ? "This Hearth has no voice endpoint." : `Voice question failed: ${e.message}`, true);
  }
}
