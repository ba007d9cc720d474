// Knowledge view, "Mail accounts": IMAP accounts followed like folders (/api/mail). Add one (the
// server checks the login first; the password goes to the server once and is never shown again),
// sync now, remove one with its documents after saying how many.

import { api } from "./api.js";
import { $, h, replace } from "./dom.js";

function status(text, error = false) {
  const s = $("#mail-status");
  s.textContent = text;
  s.classList.toggle("error", error);
}

function transport(a) {
  const name = { ssl: "IMAPS", starttls: "STARTTLS", none: "plaintext" }[a.tls] || a.tls;
  return a.insecure ? `${name}, INSECURE` : name;
}

export async function refreshMail() {
  const list = $("#mail-accounts");
  let accounts;
  try {
    accounts = await api("/api/mail/accounts");
  } catch (e) {
    replace(list, h("li", { class: "error" }, e.message));
    return;
  }
  replace(list, accounts.map((a) => h("li", { dataset: { name: a.name } },
    h("strong", {}, a.name), ` ${a.user}@${a.host}:${a.port} (${transport(a)}) · `,
    a.all_folders ? "all but Trash/Spam/Junk" : a.folders.join(", "),
    ` · ${a.messages} messages · last sync ${a.last_sync || "never"}`,
    a.following ? null : h("span", { class: "badge failed" }, " not following"),
    a.last_error ? h("span", { class: "hint error" }, ` ${a.last_error}`) : null,
    " ",
    h("button", { type: "button", class: "danger small", "aria-label": `Remove ${a.name}`, onclick: () => removeAccount(a) }, "Remove"))));
  if (!accounts.length) list.append(h("li", { class: "hint" }, "No mail account yet."));
}

async function removeAccount(a) {
  if (!confirm(`Stop following ${a.name} and remove its ${a.documents} documents (${a.messages} messages and their attachments) from every store?`)) return;
  try {
    const done = await api(`/api/mail/accounts/${encodeURIComponent(a.name)}`, { method: "DELETE" });
    status(`Removed ${done.name} and ${done.removed_documents} documents.`);
  } catch (e) {
    status(e.message, true);
  }
  await refreshMail();
  document.dispatchEvent(new CustomEvent("hearth:documents"));
}

async function addAccount(event) {
  event.preventDefault();
  const form = event.target;
  const f = new FormData(form);
  const folders = String(f.get("folders") || "").split(",").map((s) => s.trim()).filter(Boolean);
  const body = {
    host: String(f.get("host") || "").trim(),
    user: String(f.get("user") || "").trim(),
    password: String(f.get("password") || ""),
    tls: String(f.get("tls") || "ssl"),
    all_folders: f.get("all_folders") === "on",
    folders: folders.length ? folders : null,
    ca_file: String(f.get("ca_file") || "").trim() || null,
  };
  if (f.get("port")) body.port = Number(f.get("port"));
  form.elements.password.value = "";
  status("Checking the login…");
  try {
    const made = await api("/api/mail/accounts", { method: "POST", json: body });
    status(`Following ${made.name}: ${made.followed_folders.join(", ")}. The first sync runs now.`);
    form.reset();
  } catch (e) {
    status(e.message, true);
  }
  await refreshMail();
}

async function syncNow() {
  status("Syncing…");
  try {
    const reports = await api("/api/mail/sync", { method: "POST", json: {} });
    status(reports.map((r) => `${r.account}: ${r.added} added, ${r.removed} removed, ${r.moved} moved, ${r.failed.length} failed`).join("; ") || "No mail account.");
  } catch (e) {
    status(e.message, true);
  }
  await refreshMail();
  document.dispatchEvent(new CustomEvent("hearth:documents"));
}

export function initMail() {
  $("#mail-add").addEventListener("submit", addAccount);
  $("#mail-sync").addEventListener("click", syncNow);
  const show = () => { if (location.hash.startsWith("#/knowledge")) refreshMail(); };
  window.addEventListener("hashchange", show);
  show();
}
