// A citation in place (GET /api/chunks/{id}/view): the PDF page or photo with the passage's
// boxes laid over it (zoom, previous/next page), a player that plays the cited range, the
// sheet's header and cited rows, or the text around the passage with the passage marked.
// Images and media are fetched with the access token and shown from blob: URLs.

import { api, send, token } from "./api.js";
import { h, replace } from "./dom.js";

const ZOOMS = [1, 1.5, 2, 3];
let urls = [];

function clock(s) {
  const t = Math.max(0, Math.round(Number(s)));
  return `${Math.floor(t / 60)}:${String(t % 60).padStart(2, "0")}`;
}

async function blobUrl(path) {
  const response = await send(path);
  if (!response.ok) {
    let detail = `HTTP ${response.status}`;
    try { detail = (await response.json()).detail || detail; } catch { /* not JSON */ }
    throw new Error(detail);
  }
  const url = URL.createObjectURL(await response.blob());
  urls.push(url);
  return url;
}

/** Free what the last view held (object URLs, a playing recording). */
export function closeView(root) {
  for (const audio of root.querySelectorAll("audio")) audio.pause();
  for (const url of urls) URL.revokeObjectURL(url);
  urls = [];
  replace(root);
  root.hidden = true;
}

/** Fetch a chunk's view and render it into ``root``; returns the view (or null on error). */
export async function showView(root, chunkId) {
  closeView(root);
  root.hidden = false;
  root.dataset.state = "loading";
  replace(root, h("p", { class: "hint" }, "Loading the original…"));
  let view;
  try {
    view = await api(`/api/chunks/${chunkId}/view`);
  } catch (e) {
    replace(root, h("p", { class: "error" }, `The original cannot be shown: ${e.message}`));
    root.dataset.state = "error";
    return null;
  }
  root.dataset.kind = view.kind;
  const parts = [];
  const original = view.original || {};
  if (original.ok === false) parts.push(h("p", { class: "warn cite-problem", role: "status" }, original.reason));
  if (view.message) {
    const m = view.message;
    parts.push(h("dl", { class: "cite-message" },
      ["from", "date", "subject", "attachment"].filter((k) => m[k]).map((k) => [h("dt", {}, k), h("dd", {}, m[k])])));
  }
  replace(root, ...parts);
  try {
    if (view.page) await renderPage(root, view);
    else if (view.audio) renderAudio(root, view);
    else if (view.table) renderTable(root, view);
    if (view.context) renderContext(root, view.context);
  } catch (e) {
    root.append(h("p", { class: "error" }, `The original cannot be shown: ${e.message}`));
  }
  root.dataset.state = "ready";
  return view;
}

async function renderPage(root, view) {
  const page = view.page;
  let number = page.number;
  let zoom = 0;
  const img = h("img", { class: "cite-img", alt: `${view.name}, page ${number}` });
  const figure = h("figure", { class: "cite-page" }, img);
  const scroller = h("div", { class: "cite-scroll" }, figure);
  const label = h("span", { class: "cite-pageno", "aria-live": "polite" });
  const prev = h("button", { type: "button", class: "cite-prev", "aria-label": "Previous page" }, "‹ Previous");
  const next = h("button", { type: "button", class: "cite-next", "aria-label": "Next page" }, "Next ›");
  const out = h("button", { type: "button", class: "cite-zoom-out", "aria-label": "Zoom out" }, "−");
  const inn = h("button", { type: "button", class: "cite-zoom-in", "aria-label": "Zoom in" }, "+");
  const bar = h("div", { class: "cite-tools" }, prev, label, next, out, inn);
  root.append(bar, scroller);

  const applyZoom = () => {
    figure.style.width = `${ZOOMS[zoom] * 100}%`;
    out.disabled = zoom === 0;
    inn.disabled = zoom === ZOOMS.length - 1;
  };
  const load = async (n) => {
    number = n;
    prev.disabled = n <= 1;
    next.disabled = n >= page.pages;
    label.textContent = `page ${n} of ${page.pages}`;
    figure.dataset.page = String(n);
    for (const m of figure.querySelectorAll(".cite-mark")) m.remove();
    const url = await blobUrl(page.page_url.replace("{n}", String(n)));
    await new Promise((resolve, reject) => {
      img.onload = resolve;
      img.onerror = () => reject(new Error("the page image did not load"));
      img.src = url;
    });
    img.alt = `${view.name}, page ${n}`;
    if (n === page.number) {
      for (const [x0, y0, x1, y1] of page.marks.fractions) {
        // Through the CSSOM: the policy refuses inline style attributes.
        const mark = h("span", { class: "cite-mark" });
        Object.assign(mark.style, {
          left: `${x0 * 100}%`, top: `${y0 * 100}%`, width: `${(x1 - x0) * 100}%`, height: `${(y1 - y0) * 100}%`,
        });
        figure.append(mark);
      }
      const first = figure.querySelector(".cite-mark");
      if (first) first.scrollIntoView({ block: "center", inline: "nearest" });
    }
    figure.dataset.loaded = String(n);
  };
  prev.onclick = () => load(number - 1);
  next.onclick = () => load(number + 1);
  out.onclick = () => { zoom = Math.max(0, zoom - 1); applyZoom(); };
  inn.onclick = () => { zoom = Math.min(ZOOMS.length - 1, zoom + 1); applyZoom(); };
  applyZoom();
  await load(number);
}

function renderAudio(root, view) {
  const a = view.audio;
  const audio = h("audio", { controls: true, preload: "auto", class: "cite-audio", dataset: { start: String(a.start), end: String(a.end) } });
  const lines = h("ol", { class: "cite-lines" }, a.lines.map((line) =>
    h("li", { class: line.cited ? "cited" : "" },
      h("span", { class: "time" }, clock(line.start)),
      line.channel ? h("span", { class: "badge" }, `${line.channel} channel`) : null,
      line.speaker ? h("span", { class: "speaker" }, ` ${line.speaker}:`) : null,
      " ", line.cited ? h("mark", {}, line.text) : line.text)));
  const range = h("p", { class: "hint" }, `Plays ${clock(a.start)}–${clock(a.end)}${a.channel ? ` (${a.channel} channel)` : ""}`);
  root.append(range, audio, lines);
  if (!a.media_url) return;
  audio.addEventListener("loadedmetadata", () => { audio.currentTime = a.start; }, { once: true });
  audio.addEventListener("timeupdate", () => {
    if (audio.currentTime >= a.end) { audio.pause(); audio.currentTime = a.end; }
  });
  audio.addEventListener("play", () => {
    if (audio.currentTime >= a.end - 0.05) audio.currentTime = a.start;
  });
  const start = (src) => {
    audio.src = src;
    audio.play().catch(() => { /* the browser wants a gesture: the controls are there */ });
  };
  // With no access token the player streams the file by byte ranges; with one, it is fetched.
  if (!token()) start(a.media_url);
  else blobUrl(a.media_url).then(start, (e) => root.append(h("p", { class: "error" }, e.message)));
}

function renderTable(root, view) {
  const t = view.table;
  const table = h("table", { class: "cite-table" },
    h("caption", {}, t.sheet ? `Sheet ${t.sheet}` : "Rows"),
    h("thead", {}, h("tr", {}, h("th", { scope: "col" }, "Row"), t.header.map((c) => h("th", { scope: "col" }, c)))),
    h("tbody", {}, t.rows.map((r) => h("tr", { class: "cited" },
      h("th", { scope: "row" }, r.number === null ? "" : String(r.number)),
      r.cells.map((c) => h("td", {}, c))))));
  root.append(h("div", { class: "cite-scroll" }, table));
}

/** The text around the passage, the passage marked, below what the model was given (#cite-text). */
function renderContext(root, context) {
  const around = h("blockquote", { class: "cite-context" }, context.map((part) => (part.cited
    ? [h("mark", { class: "cite-passage" }, part.text), "\n"]
    : h("span", { class: "cite-around" }, `${part.text}\n`))));
  root.append(h("p", { class: "hint" }, "In the document:"), around);
  const mark = around.querySelector(".cite-passage");
  if (mark) mark.scrollIntoView({ block: "center" });
}
