// The live panel: models, memory plan versus measured RSS, recent answers' time to first token and
// tokens/s, the threads the last answer used and the cores other programs kept busy, queue depth,
// and ingest activity. Polls /api/system and /api/documents.

import { $, h, replace, bytes } from "./dom.js";
import { api } from "./api.js";
import { ingestActivity } from "./knowledge.js";

const SYSTEM_EVERY_MS = 2000;
const DOCUMENTS_EVERY_MS = 6000;
let documents = null;
let lastSystem = null;
let error = "";

export function initLive() {
  pollSystem();
  pollDocuments();
  setInterval(pollSystem, SYSTEM_EVERY_MS);
  setInterval(pollDocuments, DOCUMENTS_EVERY_MS);
  document.addEventListener("hearth:answered", () => pollSystem());
  document.addEventListener("hearth:documents", () => pollDocuments());
}

async function pollSystem() {
  if (document.hidden) return;
  try {
    lastSystem = await api("/api/system");
    error = "";
  } catch (e) {
    error = e.message;
  }
  render();
}

async function pollDocuments() {
  if (document.hidden) return;
  try { documents = await api("/api/documents"); } catch { /* keep the last list */ }
  render();
}

function stat(label, value, id) {
  return [h("dt", {}, label), h("dd", id ? { id } : {}, value)];
}

function modelCard(name, m) {
  const q = m.queue || {};
  const recent = (q.recent || []).filter((r) => r.tokens_per_s > 0);
  const last = recent[recent.length - 1];
  const mean = (key) => {
    const xs = recent.map((r) => r[key]).filter((x) => typeof x === "number" && x > 0);
    return xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : null;
  };
  const tps = mean("tokens_per_s");
  const ttft = mean("ttft_s");
  const evalS = mean("prompt_eval_s");
  const withPrompt = recent.filter((r) => typeof r.prompt_tokens === "number");
  const lastPrompt = withPrompt[withPrompt.length - 1];
  const withThreads = recent.filter((r) => typeof r.threads === "number");
  const lastThreads = withThreads[withThreads.length - 1];
  return h("section", { class: "card", dataset: { model: name } },
    h("h3", {}, name),
    h("dl", {},
      stat("Planned", bytes(m.planned_bytes)),
      stat("Queue", `${q.waiting ?? 0} waiting${q.running ? ", 1 running" : ""} (max ${q.max_waiting ?? "–"})`, "live-queue"),
      stat("Tokens/s", tps === null ? "–" : `${tps.toFixed(1)} (last ${last ? Number(last.tokens_per_s).toFixed(1) : "–"})`, "live-tps"),
      stat("First token", ttft === null ? "–" : `${ttft.toFixed(2)} s avg`, "live-ttft"),
      stat("Prompt evaluation", evalS === null ? "–" : `${evalS.toFixed(2)} s avg`, "live-prompt-eval"),
      stat("Last prompt", lastPrompt ? `${lastPrompt.prompt_tokens} tokens, ${lastPrompt.prompt_cached_tokens} reused; retrieval ${Number(lastPrompt.retrieval_s ?? 0).toFixed(2)} s${lastPrompt.condense_s ? `, condense ${Number(lastPrompt.condense_s).toFixed(2)} s` : ""}` : "–", "live-prompt"),
      stat("Threads", lastThreads ? threadsText(lastThreads) : "–", "live-threads"),
      stat("Recent answers", String(recent.length)),
      q.rejected ? stat("Refused (busy)", String(q.rejected)) : null));
}

// "2 reading the prompt, 1 generating, of 2 cores (1.0 busy elsewhere)".
function threadsText(r) {
  const gen = r.generation_threads && r.generation_threads !== r.threads ? `, ${r.generation_threads} generating` : "";
  return `${r.threads}${gen ? " reading the prompt" : ""}${gen} of ${r.cores} cores (${Number(r.cores_busy).toFixed(1)} busy elsewhere)`;
}

function render() {
  const body = $("#live-body");
  const parts = [];
  if (error) parts.push(h("p", { class: "error" }, error));
  const s = lastSystem;
  if (s) {
    const mem = s.memory || {};
    const planned = mem.planned_total ?? (s.plan && s.plan.total);
    const budget = s.plan && s.plan.budget;
    const ratio = planned ? Math.min(1.5, (mem.rss_now || 0) / planned) : 0;
    parts.push(h("section", { class: "card" }, h("h3", {}, "Memory"),
      h("dl", {},
        stat("Plan", `${bytes(planned)}${budget ? ` of ${bytes(budget)} budget` : ""}`, "live-plan"),
        stat("RSS now", bytes(mem.rss_now), "live-rss"),
        s.cores ? stat("Cores", `${s.cores.free} of ${s.cores.cores} free (${Number(s.cores.busy).toFixed(1)} busy elsewhere)`, "live-cores") : null,
        stat("Models' RSS growth", `${bytes(mem.rss_growth_models)} (planned ${bytes(mem.planned_models)})`)),
      h("meter", { min: "0", max: "1.5", low: "1", high: "1.2", optimum: "0.5", value: String(ratio.toFixed(3)), "aria-label": "RSS now against the plan" })));
    for (const [name, m] of Object.entries(s.models || {})) parts.push(modelCard(name, m));
  }
  const counts = {};
  for (const d of documents || []) counts[d.status] = (counts[d.status] || 0) + 1;
  const a = ingestActivity;
  parts.push(h("section", { class: "card" }, h("h3", {}, "Knowledge"),
    h("dl", {},
      stat("Documents", documents ? Object.entries(counts).map(([k, v]) => `${v} ${k}`).join(", ") || "none" : "–", "live-docs"),
      stat("Uploads", `${a.active} in progress, ${a.done} done, ${a.failed} failed`, "live-ingest")),
    a.recent.length ? h("ul", { class: "plain" }, a.recent.map((r) => h("li", {}, `${r.name}: ${r.state}`))) : null));
  replace(body, parts);
}
