// The chat view: conversations, the question box, streamed answers with a stop button.

import { $, h, append, replace } from "./dom.js";
import { api, streamAnswer, ApiError } from "./api.js";
import { answerText, citationList, answerMeta } from "./answer.js";
import { openStore, answerCache } from "./conversations.js";
import { readAloudButton } from "./readaloud.js";
import { finishProgress, showProgress, streamWhole, wholeAnswer, wholeRequest } from "./wholedoc.js";

const state = { store: null, current: null, controller: null, conversations: [] };

const el = {
  list: () => $("#conv-list"),
  messages: () => $("#messages"),
  question: () => $("#question"),
  status: () => $("#ask-status"),
};

export async function initChat() {
  state.store = await openStore();
  $("#conv-mode").textContent = state.store.mode === "local"
    ? "Kept in this browser (the server does not keep conversations)." : "";
  $("#ask-form").addEventListener("submit", (e) => { e.preventDefault(); ask(); });
  el.question().addEventListener("keydown", (e) => {
    if (e.key === "Enter" && !e.shiftKey && !e.isComposing) {
      e.preventDefault();
      $("#ask-form").requestSubmit();
    }
  });
  $("#stop").addEventListener("click", () => state.controller && state.controller.abort());
  $("#conv-new").addEventListener("click", () => newConversation());
  $("#conv-rename").addEventListener("click", renameConversation);
  $("#conv-delete").addEventListener("click", deleteConversation);
  await Promise.all([refreshConversations(), refreshCollections()]);
}

/** Route: #/chat or #/chat/<id> */
export async function showChat(id) {
  if (!id && state.current === null && state.conversations.length) {
    id = state.conversations[0].id; // the most recent one
    history.replaceState(null, "", `#/chat/${id}`);
  }
  if (id && String(id) !== String(state.current)) await selectConversation(id);
  if (!id && state.current === null) renderMessages([]);
  updateConversationButtons();
}

export async function refreshCollections() {
  try {
    const cols = await api("/api/collections");
    const select = $("#collection");
    const chosen = select.value;
    replace(select, h("option", { value: "" }, "All collections"),
      cols.map((c) => h("option", { value: c.name }, `${c.name} (${c.documents})`)));
    select.value = cols.some((c) => c.name === chosen) ? chosen : "";
    replace($("#collection-names"), cols.map((c) => h("option", { value: c.name })));
  } catch { /* the selector keeps "All" */ }
}

async function refreshConversations() {
  state.conversations = await state.store.list();
  replace(el.list(), state.conversations.map((c) => h("li", {},
    h("a", {
      href: `#/chat/${c.id}`,
      "aria-current": String(c.id) === String(state.current) ? "page" : false,
    }, c.title || "Untitled"))));
  if (!state.conversations.length) append(el.list(), h("li", { class: "hint" }, "No conversations yet."));
}

async function selectConversation(id) {
  try {
    const { conversation, messages } = await state.store.get(id);
    state.current = conversation.id ?? id;
    $("#chat-title").textContent = conversation.title || "Chat";
    renderMessages(messages);
  } catch (e) {
    state.current = null;
    renderMessages([]);
    setStatus(e.message, true);
  }
  await refreshConversations();
}

async function newConversation(title) {
  const c = await state.store.create(title || "New conversation", $("#collection").value);
  state.current = c.id;
  $("#chat-title").textContent = c.title || "Chat";
  renderMessages([]);
  history.replaceState(null, "", `#/chat/${c.id}`);
  await refreshConversations();
  updateConversationButtons();
  el.question().focus();
  return c;
}

async function renameConversation() {
  if (state.current === null) return;
  const c = state.conversations.find((x) => String(x.id) === String(state.current));
  const title = prompt("New name for this conversation", c ? c.title : "");
  if (!title || !title.trim()) return;
  await state.store.rename(state.current, title.trim());
  $("#chat-title").textContent = title.trim();
  await refreshConversations();
}

async function deleteConversation() {
  if (state.current === null || !confirm("Delete this conversation?")) return;
  await state.store.remove(state.current);
  state.current = null;
  $("#chat-title").textContent = "Chat";
  renderMessages([]);
  history.replaceState(null, "", "#/chat");
  await refreshConversations();
  updateConversationButtons();
}

function updateConversationButtons() {
  const none = state.current === null;
  $("#conv-rename").disabled = none;
  $("#conv-delete").disabled = none;
}

function renderMessages(messages) {
  replace(el.messages(), messages.map((m) => (m.role === "user" ? userBubble(m.content) : answerBubble(m))));
  if (!messages.length) append(el.messages(), h("li", { class: "empty hint" }, "Ask a question about your documents."));
}

function userBubble(text) {
  return h("li", { class: "msg user" }, h("span", { class: "who" }, "You"), h("p", { class: "text" }, text));
}

function answerBubble(m) {
  const li = h("li", { class: "msg assistant", dataset: { state: "done" } }, h("span", { class: "who" }, "Hearth"));
  finishAnswer(li, m);
  return li;
}

function finishAnswer(li, done) {
  const sources = done.sources || [];
  const text = li.querySelector(".text") || append(li, h("p", { class: "text" })).lastChild;
  replace(text, answerText(done.answer ?? done.content ?? "", sources));
  li.querySelector(".citations")?.remove();
  li.querySelector(".meta")?.remove();
  li.querySelector(".read-aloud")?.remove();
  const words = done.answer ?? done.content ?? "";
  append(li, citationList(done.citations, sources), done.timings ? answerMeta(done) : null, words ? readAloudButton(() => words) : null);
  li.dataset.state = "done";
  li.removeAttribute("aria-busy");
}

/** Show a question and its answer that came another way (the voice endpoint). */
export function showExchange(question, answer) {
  el.messages().querySelector(".empty")?.remove();
  append(el.messages(), userBubble(question), answerBubble({ ...answer, role: "assistant" }));
  if (state.current !== null) {
    state.store.record(state.current, [{ role: "user", content: question }, { role: "assistant", content: answer.answer, ...answer }]);
  }
  el.messages().lastChild.scrollIntoView({ block: "end" });
}

function setStatus(text, error = false) {
  const s = el.status();
  s.textContent = text;
  s.classList.toggle("error", error);
}

function busy(on) {
  $("#send").disabled = on;
  $("#stop").hidden = !on;
  document.body.classList.toggle("generating", on);
}

async function ask() {
  const typed = el.question().value.trim();
  if (state.controller) return;
  const collection = $("#collection").value;
  let whole = null; // a whole-document mode (summarise, list every, compare): wholedoc.js
  try {
    whole = wholeRequest(typed, collection);
  } catch (e) {
    setStatus(e.message, true);
    return;
  }
  const question = whole ? whole.label : typed;
  if (!question) return;
  setStatus("");
  if (state.current === null) await newConversation(question.slice(0, 60));
  const conversationId = state.current;
  el.question().value = "";
  el.messages().querySelector(".empty")?.remove();
  const li = h("li", { class: "msg assistant", dataset: { state: "waiting" }, "aria-busy": "true" },
    h("span", { class: "who" }, "Hearth"), h("p", { class: "text" }), h("p", { class: "meta" }, whole ? "Reading the whole document…" : "Finding passages…"));
  append(el.messages(), userBubble(question), li);
  li.scrollIntoView({ block: "end" });
  const text = li.querySelector(".text");
  const payload = { question, ...state.store.askFields(conversationId), ...(collection ? { collection } : {}) };
  let sources = [];
  let done = null;
  state.controller = new AbortController();
  busy(true);
  try {
    const run = whole ? (on, signal) => streamWhole(whole, on, signal) : (on, signal) => streamAnswer(payload, on, signal);
    await run((kind, data) => {
      if (kind === "progress") {
        showProgress(li, data);
      } else if (kind === "sources") {
        sources = data.sources || [];
        li.querySelector(".meta").textContent = `${sources.length} passages found; generating…`;
      } else if (kind === "token") {
        li.dataset.state = "generating";
        text.append(document.createTextNode(data.text || ""));
      } else if (kind === "done") {
        done = data;
      } else if (kind === "error") {
        throw new ApiError(500, data);
      }
    }, state.controller.signal);
    if (!done) throw new Error("the answer stream ended early");
    if (whole) done = wholeAnswer(done);
    done.sources = done.sources || sources;
    finishAnswer(li, done);
    finishProgress(li, done);
    answerCache.put(done.answer_id, { sources: done.sources, citations: done.citations, timings: done.timings, grounding: done.grounding, model: done.model });
    state.store.record(conversationId, [
      { role: "user", content: question },
      { role: "assistant", content: done.answer, answer_id: done.answer_id, sources: done.sources, citations: done.citations, timings: done.timings, grounding: done.grounding, model: done.model },
    ]);
  } catch (e) {
    li.removeAttribute("aria-busy");
    if (e.name === "AbortError") {
      li.dataset.state = "stopped";
      li.querySelector(".meta").textContent = li.querySelector(".whole-progress") ? "Stopped: nothing was stored." : "Stopped.";
    } else {
      li.dataset.state = "failed";
      const wait = e.retryAfter ? ` Try again in ${e.retryAfter} s.` : "";
      li.querySelector(".meta").textContent = `${e.status === 429 ? "Hearth is busy." : "Failed:"} ${e.message}${wait}`;
      li.querySelector(".meta").classList.add("error");
    }
  } finally {
    state.controller = null;
    busy(false);
    el.question().focus();
    document.dispatchEvent(new CustomEvent("hearth:answered"));
    refreshConversations().catch(() => {});
  }
}
