// Conversations: kept by the server (/api/conversations) where it offers them, else in this
// browser's localStorage. Both stores have the same methods, so the chat view does not care.

import { api, ApiError } from "./api.js";

const LOCAL_KEY = "hearth.conversations";
const ANSWERS_KEY = "hearth.answers";
const MAX_CACHED_ANSWERS = 200;

/** Sources and citations of answers, by answer id: the server's messages carry only text. */
export const answerCache = {
  all() {
    try { return JSON.parse(localStorage.getItem(ANSWERS_KEY) || "{}"); } catch { return {}; }
  },
  get(id) { return id === undefined || id === null ? null : this.all()[id] || null; },
  put(id, value) {
    if (id === undefined || id === null) return;
    const all = this.all();
    all[id] = value;
    const keys = Object.keys(all);
    for (const key of keys.slice(0, Math.max(0, keys.length - MAX_CACHED_ANSWERS))) delete all[key];
    try { localStorage.setItem(ANSWERS_KEY, JSON.stringify(all)); } catch { /* full: skip */ }
  },
};

class ServerStore {
  constructor() { this.mode = "server"; }
  async list() {
    const data = await api("/api/conversations");
    return Array.isArray(data) ? data : data.conversations || data.items || [];
  }
  create(title, collection) {
    return api("/api/conversations", { method: "POST", json: { title, collection: collection || undefined } });
  }
  async get(id) {
    const data = await api(`/api/conversations/${id}`);
    const messages = (data.messages || []).map((m) => ({ ...m, ...(answerCache.get(m.answer_id) || {}) }));
    return { conversation: data.conversation || data, messages };
  }
  rename(id, title) { return api(`/api/conversations/${id}`, { method: "PATCH", json: { title } }); }
  remove(id) { return api(`/api/conversations/${id}`, { method: "DELETE" }); }
  /** The server records the turn itself when the question names the conversation. */
  record() {}
  askFields(id) { return { conversation_id: Number(id) }; }
}

class LocalStore {
  constructor() { this.mode = "local"; }
  load() {
    try { return JSON.parse(localStorage.getItem(LOCAL_KEY) || "[]"); } catch { return []; }
  }
  save(all) { localStorage.setItem(LOCAL_KEY, JSON.stringify(all)); }
  find(all, id) {
    const found = all.find((c) => String(c.id) === String(id));
    if (!found) throw new ApiError(404, { error: "NotFound", detail: `conversation ${id}` });
    return found;
  }
  async list() {
    return this.load().map(({ messages, ...c }) => c).sort((a, b) => (b.updated_at || "").localeCompare(a.updated_at || ""));
  }
  async create(title, collection) {
    const all = this.load();
    const now = new Date().toISOString();
    const c = { id: `local-${Date.now().toString(36)}`, title: title || "New conversation", collection: collection || null, created_at: now, updated_at: now, messages: [] };
    all.push(c);
    this.save(all);
    return c;
  }
  async get(id) {
    const { messages, ...conversation } = this.find(this.load(), id);
    return { conversation, messages };
  }
  async rename(id, title) {
    const all = this.load();
    this.find(all, id).title = title;
    this.save(all);
  }
  async remove(id) { this.save(this.load().filter((c) => String(c.id) !== String(id))); }
  record(id, messages) {
    const all = this.load();
    const c = all.find((x) => String(x.id) === String(id));
    if (!c) return;
    c.messages.push(...messages);
    c.updated_at = new Date().toISOString();
    this.save(all);
  }
  askFields() { return {}; }
  /** History the server cannot see: the last turns, for a client-side conversation. */
}

/** The server's store when it has the routes, else this browser's. */
export async function openStore() {
  try {
    await api("/api/conversations");
    return new ServerStore();
  } catch (e) {
    if (e instanceof ApiError && [404, 405, 501].includes(e.status)) return new LocalStore();
    throw e;
  }
}
