// Whole-document modes beside the question box: answer (top passages), summarise, list every X,
// compare. Documents are picked by name (typed, with the library's names offered) or from the
// Knowledge view ("Read whole in Chat" on a document); the run streams its progress (chunks read
// of total, time left) from POST /api/wholedoc/stream, and Stop cancels it (nothing is stored).

import { $, h, append, replace, basename } from "./dom.js";
import { api, streamAnswer, ApiError } from "./api.js";

const PLACEHOLDERS = {
  answer: "Ask about your documents (Enter sends, Shift+Enter for a new line)",
  summarise: "Summarise the documents picked below (no question needed)",
  extract: "What to list, e.g. deadlines",
  compare: "Compare the two documents picked below (no question needed)",
};

/** Documents picked for a whole-document mode: {ref (id or name), name}. */
const picked = [];

export function initWhole() {
  $("#ask-mode").addEventListener("change", modeChanged);
  $("#whole-add").addEventListener("click", addTyped);
  $("#whole-doc-name").addEventListener("keydown", (e) => {
    if (e.key === "Enter") { e.preventDefault(); addTyped(); }
  });
  $("#doc-pick").addEventListener("click", pickShown);
  document.addEventListener("hearth:documents", () => refreshNames().catch(() => {}));
  modeChanged();
  refreshNames().catch(() => {});
}

function mode() {
  return $("#ask-mode").value;
}

function modeChanged() {
  const m = mode();
  $("#whole-docs").hidden = m === "answer";
  const question = $("#question");
  question.placeholder = PLACEHOLDERS[m] || PLACEHOLDERS.answer;
  question.required = m === "answer" || m === "extract";
  $("#whole-hint").textContent = m === "compare"
    ? "Pick exactly two documents (old, then new)."
    : m === "answer" ? "" : "None picked: every document of the collection is read.";
}

async function refreshNames() {
  const docs = await api("/api/documents");
  const names = [...new Set(docs.filter((d) => d.status === "ingested").map((d) => basename(d.path)))];
  replace($("#doc-names"), names.map((n) => h("option", { value: n })));
}

function addTyped() {
  const input = $("#whole-doc-name");
  const name = input.value.trim();
  if (!name) return;
  pick(name, name);
  input.value = "";
}

/** The Knowledge view's open document goes to the chat's list and the chat is shown. */
function pickShown() {
  const detail = $("#doc-detail");
  if (!detail.dataset.id) return;
  pick(Number(detail.dataset.id), $("#doc-title").textContent || `document ${detail.dataset.id}`);
  if (mode() === "answer") {
    $("#ask-mode").value = "summarise";
    modeChanged();
  }
  location.hash = "#/chat";
}

function pick(ref, name) {
  if (picked.some((p) => String(p.ref) === String(ref))) return;
  picked.push({ ref, name });
  renderPicked();
}

function renderPicked() {
  replace($("#whole-picked"), picked.map((p, i) => h("li", { class: "chip", dataset: { ref: String(p.ref) } },
    h("span", {}, p.name),
    h("button", {
      type: "button", class: "small", "aria-label": `Remove ${p.name}`,
      onclick: () => { picked.splice(i, 1); renderPicked(); },
    }, "×"))));
}

/**
 * The whole-document request of the question box, or null in answer mode:
 * {payload, label (the question as shown)}. Throws an Error with what is missing.
 */
export function wholeRequest(question, collection) {
  const m = mode();
  if (m === "answer") return null;
  const documents = picked.map((p) => p.ref);
  const names = picked.map((p) => p.name);
  if (m === "compare" && documents.length !== 2) throw new Error(`Compare needs two documents picked, not ${documents.length}.`);
  if (m === "extract" && !question) throw new Error("Say what to list (e.g. deadlines).");
  const payload = { mode: m, documents, ...(m === "extract" ? { what: question } : {}) };
  if (!documents.length && collection) payload.collection = collection;
  const over = names.length ? names.join(m === "compare" ? " and " : ", ") : collection ? `collection ${collection}` : "the library";
  const label = m === "summarise" ? `Summarise ${over}` : m === "extract" ? `List every ${question} in ${over}` : `Compare ${over}`;
  return { payload, label };
}

/**
 * Stream a whole-document run, calling onEvent(kind, data) for progress and done. A run
 * estimated over the limit (409, field confirm) is confirmed by the user and sent again.
 */
export async function streamWhole(whole, onEvent, signal) {
  try {
    await streamAnswer(whole.payload, onEvent, signal, "/api/wholedoc/stream");
  } catch (e) {
    if (!(e instanceof ApiError) || e.status !== 409 || e.body?.field !== "confirm") throw e;
    if (!confirm(`${e.body.detail || e.message}. Run it anyway?`)) throw e;
    whole.payload = { ...whole.payload, confirm: true };
    await streamAnswer(whole.payload, onEvent, signal, "/api/wholedoc/stream");
  }
}

function clock(seconds) {
  const s = Math.max(0, Math.round(Number(seconds) || 0));
  return s < 60 ? `${s} s` : `${Math.floor(s / 60)} min ${s % 60} s`;
}

/** Show a progress event on the answer being read: a bar of chunks read, and time left. */
export function showProgress(li, data) {
  let bar = li.querySelector("progress.whole-progress");
  if (!bar) {
    bar = h("progress", { class: "whole-progress", "aria-label": "Chunks read" });
    const status = h("p", { class: "hint whole-status", role: "status" });
    li.querySelector(".text").before(bar, status);
  }
  const total = Number(data.chunks_total) || 0;
  const read = Number(data.chunks_read) || 0;
  bar.max = Math.max(total, 1);
  bar.value = read;
  li.dataset.state = "reading";
  li.dataset.chunksRead = String(read);
  li.dataset.chunksTotal = String(total);
  const left = read < total ? ` · about ${clock(data.eta_s)} left` : "";
  li.querySelector(".whole-status").textContent = `Read ${read} of ${total} chunks${left}`;
  const meta = li.querySelector(".meta");
  if (meta) meta.textContent = "Reading the whole document…";
}

/** A /api/wholedoc result in the fields an answer is shown with (every source is cited). */
export function wholeAnswer(done) {
  return {
    answer: done.answer,
    sources: done.sources || [],
    citations: done.sources || [],
    model: done.model,
    timings: {},
    grounding: { grounded: true, mode: done.mode, whole_document: true, cached: done.cached, dropped: done.dropped, chunks_read: done.chunks_read },
  };
}

/** After the result: the bar full and how the run went (or that it came from the cache). */
export function finishProgress(li, done) {
  const status = li.querySelector(".whole-status");
  if (!status) return;
  const bar = li.querySelector("progress.whole-progress");
  bar.value = bar.max;
  const g = done.grounding || {};
  append(replace(status, `Read all ${g.chunks_read ?? li.dataset.chunksTotal} chunks`),
    g.cached ? " (from the cache)" : "", g.dropped ? ` · ${g.dropped} unsupported lines dropped` : "");
}
