// The templates view: templates, their versions, one version, a new version, activate, roll back.

import { $, h, replace } from "./dom.js";
import { api } from "./api.js";

let current = null; // template name
let shown = null; // version being viewed

export function initTemplates() {
  $("#tpl-form").addEventListener("submit", (e) => { e.preventDefault(); addVersion(); });
  $("#tpl-rollback").addEventListener("click", rollback);
}

/** Route: #/templates or #/templates/<name> */
export async function showTemplates(name) {
  let templates = [];
  try {
    templates = await api("/api/templates");
  } catch (e) {
    status(e.message, true);
  }
  current = name || current || (templates[0] && templates[0].name) || null;
  replace($("#tpl-list"), templates.map((t) => h("li", {},
    h("a", { href: `#/templates/${encodeURIComponent(t.name)}`, "aria-current": t.name === current ? "page" : false },
      `${t.name} `, h("span", { class: "hint" }, `v${t.version} active`)))));
  if (current) await showVersions();
}

async function showVersions() {
  const versions = await api(`/api/templates/${encodeURIComponent(current)}/versions`);
  $("#tpl-versions-title").textContent = `Versions of ${current}`;
  const active = versions.find((v) => v.active);
  $("#tpl-rollback").disabled = !active || versions.indexOf(active) === 0;
  replace($("#tpl-versions"), [...versions].reverse().map((v) => h("li", { class: v.active ? "active" : "", dataset: { version: String(v.version) } },
    h("button", { type: "button", class: "link", onclick: () => viewVersion(v) }, `v${v.version}`),
    " ", h("span", { class: "hint" }, v.note || "(no note)"), " ",
    v.active ? h("span", { class: "badge ok" }, "active")
      : h("button", { type: "button", class: "small", onclick: () => activate(v.version) }, "Activate"))));
  const same = shown && shown.name === current ? versions.find((v) => v.version === shown.version) : null;
  const target = same || active;
  if (target) viewVersion(target, Boolean(same));
}

function viewVersion(v, keepEditor = false) {
  shown = v;
  $("#tpl-view").hidden = false;
  $("#tpl-view-title").textContent = `${v.name} v${v.version}${v.active ? " (active)" : ""}`;
  $("#tpl-view-note").textContent = `${v.note || "(no note)"} · ${new Date(v.created_at).toLocaleString()} · ${String(v.content_hash).slice(0, 12)}`;
  $("#tpl-view-system").textContent = v.system;
  $("#tpl-view-user").textContent = v.user;
  if (!keepEditor || !$("#tpl-system").value) {
    $("#tpl-system").value = v.system;
    $("#tpl-user").value = v.user;
  }
}

async function addVersion() {
  if (!current) return;
  try {
    const v = await api(`/api/templates/${encodeURIComponent(current)}/versions`, {
      method: "POST",
      json: { system: $("#tpl-system").value, user: $("#tpl-user").value, note: $("#tpl-note").value, activate: $("#tpl-activate").checked },
    });
    status(`Added v${v.version}${v.active ? " and made it active" : ""}.`);
    $("#tpl-note").value = "";
    shown = v;
    await showTemplates(current);
  } catch (e) {
    status(e.message, true);
  }
}

async function activate(version) {
  try {
    await api(`/api/templates/${encodeURIComponent(current)}/activate`, { method: "POST", json: { version } });
    status(`v${version} is active.`);
    await showTemplates(current);
  } catch (e) {
    status(e.message, true);
  }
}

async function rollback() {
  try {
    const v = await api(`/api/templates/${encodeURIComponent(current)}/rollback`, { method: "POST" });
    status(`Rolled back: v${v.version} is active.`);
    await showTemplates(current);
  } catch (e) {
    status(e.message, true);
  }
}

function status(text, error = false) {
  const s = $("#tpl-status");
  s.textContent = text;
  s.classList.toggle("error", error);
}
