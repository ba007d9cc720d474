// Tiny DOM helpers. Everything that came from a model, a document or a user goes in as text:
// this module never parses HTML.

/** Create an element: h("a", {href: "#x", class: "c"}, "text", child) */
export function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (value === undefined || value === null || value === false) continue;
    if (key.startsWith("on") && typeof value === "function") {
      el.addEventListener(key.slice(2), value);
    } else if (key === "class") {
      el.className = value;
    } else if (key === "dataset") {
      Object.assign(el.dataset, value);
    } else {
      el.setAttribute(key, value === true ? "" : String(value));
    }
  }
  append(el, ...children);
  return el;
}

/** Append children; strings become text nodes. */
export function append(el, ...children) {
  for (const child of children.flat()) {
    if (child === undefined || child === null || child === false) continue;
    el.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return el;
}

/** Replace all children. */
export function replace(el, ...children) {
  el.replaceChildren();
  return append(el, ...children);
}

export const $ = (selector, root = document) => root.querySelector(selector);

/** 1536 -> "1.5 KiB" */
export function bytes(n) {
  if (n === null || n === undefined || Number.isNaN(n)) return "–";
  const units = ["B", "KiB", "MiB", "GiB", "TiB"];
  let i = 0;
  let v = Math.abs(n);
  while (v >= 1024 && i < units.length - 1) { v /= 1024; i += 1; }
  return `${n < 0 ? "-" : ""}${v.toFixed(i ? 1 : 0)} ${units[i]}`;
}

/** A file name from a path (documents carry their full path). */
export function basename(path) {
  const clean = String(path || "").split("#")[0];
  return clean.split(/[\\/]/).pop() || clean;
}

/** "page 3" / "0:12–0:30" from a chunk's provenance. */
export function where(prov = {}) {
  const parts = [];
  const clock = (s) => {
    const t = Math.max(0, Math.round(Number(s)));
    const m = Math.floor(t / 60);
    return `${m}:${String(t % 60).padStart(2, "0")}`;
  };
  if (prov.page !== undefined) parts.push(`page ${prov.page}`);
  if (prov.slide !== undefined) parts.push(`slide ${prov.slide}`);
  if (prov.sheet !== undefined) parts.push(`sheet ${prov.sheet}`);
  if (prov.start !== undefined && prov.end !== undefined) parts.push(`${clock(prov.start)}–${clock(prov.end)}`);
  if (prov.heading) parts.push(String(prov.heading));
  return parts.join(", ");
}
