// Start the page: wire each view, then route on the URL hash (#/chat, #/knowledge, ...).

import { $ } from "./dom.js";
import { initChat, showChat } from "./chat.js";
import { initKnowledge, showKnowledge } from "./knowledge.js";
import { initTemplates, showTemplates } from "./templates.js";
import { initEval, showEval } from "./eval.js";
import { initLive } from "./live.js";
import { initMail } from "./mail.js";
import { initVoice } from "./voice.js";
import { initWhole } from "./wholedoc.js";

const VIEWS = ["chat", "knowledge", "templates", "eval", "live"];

async function route() {
  const [path, query = ""] = location.hash.replace(/^#\/?/, "").split("?");
  const [view = "chat", ...rest] = path.split("/");
  const name = VIEWS.includes(view) ? view : "chat";
  const arg = rest.length ? decodeURIComponent(rest.join("/")) : null;
  document.body.dataset.route = name;
  // The live panel has its own column on wide screens: the chat stays beside it there.
  for (const v of ["chat", "knowledge", "templates", "eval"]) $(`#view-${v}`).hidden = !(v === name || (v === "chat" && name === "live"));
  for (const a of document.querySelectorAll("nav.views a")) {
    if (a.dataset.view === name) a.setAttribute("aria-current", "page");
    else a.removeAttribute("aria-current");
  }
  if (name === "chat") await showChat(arg);
  else if (name === "knowledge") await showKnowledge(arg, new URLSearchParams(query));
  else if (name === "templates") await showTemplates(arg);
  else if (name === "eval") await showEval();
}

async function start() {
  initKnowledge();
  initMail();
  initTemplates();
  initEval();
  initVoice();
  initWhole();
  await initChat();
  initLive();
  window.addEventListener("hashchange", () => route().catch(report));
  await route();
  document.body.dataset.ready = "true";
}

function report(e) {
  const s = $("#ask-status");
  s.textContent = e.message || String(e);
  s.classList.add("error");
}

start().catch((e) => { report(e); document.body.dataset.ready = "true"; });
