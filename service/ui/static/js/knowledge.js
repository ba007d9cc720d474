// The knowledge view: upload (picker or drag and drop, per-file progress and outcome), the
// document list with status, collection and delete, and one document with its chunks.

import { $, h, append, replace, basename, where, bytes } from "./dom.js";
import { api, upload, send } from "./api.js";
import { refreshCollections } from "./chat.js";
import { showSpeakers, speakerLabel } from "./speakers.js";

export const ingestActivity = { active: 0, done: 0, failed: 0, recent: [] };

export function initKnowledge() {
  const zone = $("#dropzone");
  const input = $("#file-input");
  input.addEventListener("change", () => { uploadAll([...input.files]); input.value = ""; });
  for (const kind of ["dragenter", "dragover"]) {
    zone.addEventListener(kind, (e) => { e.preventDefault(); zone.classList.add("over"); });
  }
  for (const kind of ["dragleave", "drop"]) {
    zone.addEventListener(kind, (e) => { e.preventDefault(); zone.classList.remove("over"); });
  }
  zone.addEventListener("drop", (e) => uploadAll([...(e.dataTransfer?.files || [])]));
  // Dropping a file elsewhere on the page must not navigate away from Hearth.
  window.addEventListener("dragover", (e) => e.preventDefault());
  window.addEventListener("drop", (e) => e.preventDefault());
  $("#docs-refresh").addEventListener("click", () => refreshDocuments());
  $("#backup-download").addEventListener("click", downloadBackup);
}

/** Fetch a backup of the knowledge base (with the token) and save it as a .tar file. */
async function downloadBackup() {
  const button = $("#backup-download");
  button.disabled = true;
  button.dataset.state = "loading";
  try {
    const response = await send("/api/backup");
    if (!response.ok) throw new Error(`HTTP ${response.status}`);
    const blob = await response.blob();
    const name = /filename="([^"]+)"/.exec(response.headers.get("Content-Disposition") || "")?.[1] || "hearth-backup.tar";
    const link = h("a", { href: URL.createObjectURL(blob), download: name });
    document.body.append(link);
    link.click();
    link.remove();
    button.dataset.state = "done";
    button.dataset.bytes = String(blob.size);
  } catch (err) {
    button.dataset.state = "failed";
    button.title = `Backup failed: ${err.message}`;
  } finally {
    button.disabled = false;
  }
}

/** Route: #/knowledge or #/knowledge/<id>?chunk=<chunk id> */
export async function showKnowledge(id, params) {
  await refreshDocuments();
  if (id) await showDocument(id, params.get("chunk"));
  else $("#doc-detail").hidden = true;
}

async function uploadAll(files) {
  const collection = $("#upload-collection").value.trim() || "default";
  // One at a time: ingest runs one file after another on the server anyway.
  for (const file of files) await uploadOne(file, collection);
  await Promise.all([refreshDocuments(), refreshCollections()]);
  document.dispatchEvent(new CustomEvent("hearth:documents"));
}

async function uploadOne(file, collection) {
  const bar = h("progress", { max: "100", value: "0", "aria-label": `Upload of ${file.name}` });
  const status = h("span", { class: "status" }, "uploading…");
  const row = h("li", { class: "upload", dataset: { state: "uploading", name: file.name } },
    h("span", { class: "name" }, file.name), h("span", { class: "size" }, bytes(file.size)), bar, status);
  append($("#uploads"), row);
  ingestActivity.active += 1;
  document.dispatchEvent(new CustomEvent("hearth:documents"));
  const form = new FormData();
  form.append("file", file, file.name);
  form.append("collection", collection);
  try {
    const result = await upload("/api/documents", form, (fraction) => {
      bar.value = Math.round(fraction * 100);
      if (fraction >= 1) status.textContent = "ingesting…";
    });
    bar.value = 100;
    const doc = result.document || {};
    const failed = doc.status === "failed";
    row.dataset.state = failed ? "failed" : "done";
    status.textContent = failed
      ? `failed: ${doc.error || "unreadable"}`
      : `${result.action} · ${result.chunks} chunks · ${doc.status || "ok"}`;
    status.classList.toggle("error", failed);
    ingestActivity[failed ? "failed" : "done"] += 1;
  } catch (e) {
    row.dataset.state = "failed";
    status.textContent = `failed: ${e.message}`;
    status.classList.add("error");
    ingestActivity.failed += 1;
  } finally {
    ingestActivity.active -= 1;
    ingestActivity.recent.unshift({ name: file.name, state: row.dataset.state, at: Date.now() });
    ingestActivity.recent.length = Math.min(ingestActivity.recent.length, 5);
  }
}

export async function refreshDocuments() {
  const tbody = $("#docs tbody");
  let docs;
  try {
    docs = await api("/api/documents");
  } catch (e) {
    replace(tbody, h("tr", {}, h("td", { colspan: "5", class: "error" }, e.message)));
    return;
  }
  replace(tbody, docs.map((d) => h("tr", { dataset: { id: String(d.id) } },
    h("td", {}, h("a", { href: `#/knowledge/${d.id}`, title: d.path }, basename(d.path))),
    h("td", {}, h("span", { class: `badge ${d.status}` }, d.status), d.error ? h("span", { class: "hint" }, ` ${d.error}`) : null),
    h("td", {}, d.collection),
    h("td", { class: "num" }, String(d.chunk_count)),
    h("td", {}, h("button", { type: "button", class: "danger small", "aria-label": `Delete ${basename(d.path)}`, onclick: () => remove(d) }, "Delete")))));
  if (!docs.length) append(tbody, h("tr", {}, h("td", { colspan: "5", class: "hint" }, "Nothing yet: upload a file above.")));
}

async function remove(doc) {
  if (!confirm(`Delete ${basename(doc.path)} from every store?`)) return;
  try {
    await api(`/api/documents/${doc.id}`, { method: "DELETE" });
  } catch (e) {
    alert(e.message);
  }
  await Promise.all([refreshDocuments(), refreshCollections()]);
  document.dispatchEvent(new CustomEvent("hearth:documents"));
  if ($("#doc-detail").dataset.id === String(doc.id)) $("#doc-detail").hidden = true;
}

async function showDocument(id, chunkId) {
  const section = $("#doc-detail");
  section.hidden = false;
  section.dataset.id = String(id);
  try {
    const { document: doc, chunks } = await api(`/api/documents/${id}`);
    replace($("#doc-title"), basename(doc.path));
    replace($("#doc-meta"), `${doc.path} · ${doc.file_type} · ${doc.status} · collection ${doc.collection} · ${bytes(doc.size_bytes)}`);
    showChunks(chunks, chunkId);
    showSpeakers($("#doc-speakers"), id, async () => {
      showChunks((await api(`/api/documents/${id}`)).chunks, chunkId);
    });
    const target = chunkId ? document.getElementById(`chunk-${chunkId}`) : null;
    (target || section).scrollIntoView({ block: "start" });
    if (target) target.focus();
  } catch (e) {
    replace($("#doc-title"), "Document");
    replace($("#doc-meta"), e.message);
    replace($("#doc-chunks"));
    $("#doc-speakers").hidden = true;
  }
}

function showChunks(chunks, chunkId) {
  const said = (p) => [speakerLabel(p), where(p)].filter(Boolean).join(", ");
  replace($("#doc-chunks"), chunks.map((c) => h("li", {
    id: `chunk-${c.id}`,
    class: String(c.id) === String(chunkId) ? "chunk target" : "chunk",
    tabindex: "-1",
  }, h("p", { class: "hint" }, `#${c.ordinal + 1}${said(c.provenance) ? ` · ${said(c.provenance)}` : ""} · ${c.token_count} tokens`),
    h("p", { class: "text" }, c.text))));
}
