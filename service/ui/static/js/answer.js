// Rendering one answer: its text with [n] markers turned into links, the citations under it, and
// the citation dialog (chunk text with its document and place, and the original in place: viewer.js).

import { $, h, append, replace, basename, where } from "./dom.js";
import { closeView, showView } from "./viewer.js";

/** Answer text as text nodes, each "[n]" that names a known source a link that opens it. */
export function answerText(text, sources) {
  const byNumber = new Map((sources || []).map((s) => [Number(s.number), s]));
  const out = [];
  let last = 0;
  for (const match of String(text).matchAll(/\[(\d+)\]/g)) {
    const source = byNumber.get(Number(match[1]));
    if (!source) continue;
    out.push(text.slice(last, match.index));
    out.push(citeLink(source, `[${source.number}]`, "cite-inline"));
    last = match.index + match[0].length;
  }
  out.push(String(text).slice(last));
  return out;
}

function citeLink(source, label, cls) {
  return h("a", {
    href: `#/knowledge/${source.document_id}?chunk=${source.chunk_id}`,
    class: cls,
    dataset: { chunk: String(source.chunk_id), number: String(source.number) },
    onclick: (e) => { e.preventDefault(); openCitation(source); },
  }, label);
}

/** The list under an answer: the passages it cites, else the ones it was given. */
export function citationList(citations, sources) {
  const cited = citations && citations.length ? citations : [];
  const list = cited.length ? cited : sources || [];
  if (!list.length) return null;
  return h("nav", { class: "citations", "aria-label": cited.length ? "Citations" : "Passages used" },
    h("span", { class: "hint" }, cited.length ? "Sources:" : "Passages used:"),
    h("ul", {}, list.map((s) => h("li", {}, citeLink(s, `[${s.number}] ${s.label || basename(s.path)}`, "cite")))));
}

/** Where the time to first token went: condensing, retrieval, prompt tokens reused/new, evaluation. */
export function ttftBreakdown(t) {
  const out = [];
  if (t.condense_s) out.push(`condense ${Number(t.condense_s).toFixed(2)} s`);
  if (t.retrieval_s !== undefined) out.push(`retrieval ${Number(t.retrieval_s).toFixed(2)} s`);
  if (t.prompt_tokens !== undefined) {
    out.push(`prompt ${t.prompt_tokens} tokens (${t.prompt_cached_tokens} reused, ${t.prompt_new_tokens} new)`);
    out.push(`evaluated in ${Number(t.prompt_eval_s).toFixed(2)} s`);
  }
  return out.length ? `(${out.join(", ")})` : "";
}

/** Time to first token and speed, and whether the answer was found to be grounded. */
export function answerMeta(done) {
  const parts = [];
  const t = done.timings || {};
  if (t.ttft_s !== undefined) parts.push(`first token ${Number(t.ttft_s).toFixed(2)} s`);
  const meta0 = ttftBreakdown(t);
  if (meta0) parts.push(meta0);
  if (t.tokens_per_s !== undefined) parts.push(`${Number(t.tokens_per_s).toFixed(1)} tokens/s`);
  if (done.model) parts.push(done.model);
  const meta = h("p", { class: "meta" }, parts.join(" · "));
  const g = done.grounding;
  if (g && typeof g === "object") {
    const unsupported = Array.isArray(g.unsupported) ? g.unsupported : [];
    append(meta, " ", h("span", { class: g.grounded ? "badge ok" : "badge warn" },
      g.grounded ? "grounded" : `not grounded${unsupported.length ? `: ${unsupported.join(", ")}` : ""}`));
  }
  return meta;
}

/** Show one source in the citation dialog. */
export function openCitation(source) {
  const dialog = $("#citation");
  replace($("#cite-title"), `[${source.number}] ${source.name || basename(source.path)}`);
  const place = where(source.provenance);
  replace($("#cite-where"), [source.path, place].filter(Boolean).join(" — "));
  replace($("#cite-text"), source.text || "");
  const link = $("#cite-doc");
  link.href = `#/knowledge/${source.document_id}?chunk=${source.chunk_id}`;
  link.onclick = () => dialog.close();
  const view = $("#cite-view");
  dialog.addEventListener("close", () => closeView(view), { once: true });
  dialog.showModal();
  // The original with the passage marked: page, photo, recording, rows or the text around it.
  if (source.chunk_id !== undefined) showView(view, source.chunk_id);
}
