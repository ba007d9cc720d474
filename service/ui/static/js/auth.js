// The sign-in prompt: shown on a 401; one prompt at a time however many requests were refused.

import { $ } from "./dom.js";

let pending = null;

/** Ask for an access token; resolves to it, or "" when cancelled. */
export function askToken(message = "") {
  if (pending) return pending;
  const dialog = $("#token-dialog");
  const input = $("#token-input");
  $("#token-error").textContent = message;
  input.value = "";
  pending = new Promise((resolve) => {
    dialog.addEventListener("close", () => {
      pending = null;
      resolve(dialog.returnValue === "ok" ? input.value.trim() : "");
    }, { once: true });
  });
  dialog.showModal();
  input.focus();
  return pending;
}
