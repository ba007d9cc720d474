// Talking to the Hearth API: JSON requests, multipart uploads with progress, and the SSE answer
// stream. A 401 from any route asks for an access token (kept in localStorage) and retries.

import { askToken } from "./auth.js";

const TOKEN_KEY = "hearth.token";

export class ApiError extends Error {
  constructor(status, body) {
    const detail = body && (body.detail || body.error) ? `${body.error || "Error"}: ${body.detail || ""}` : `HTTP ${status}`;
    super(detail.trim());
    this.status = status;
    this.body = body;
  }
}

export function token() {
  return localStorage.getItem(TOKEN_KEY) || "";
}

function headers(extra = {}) {
  const out = { ...extra };
  const t = token();
  if (t) out.Authorization = `Bearer ${t}`;
  return out;
}

async function signIn(hadToken) {
  const t = await askToken(hadToken ? "That token was refused." : "");
  if (!t) throw new ApiError(401, { error: "Unauthorized", detail: "an access token is needed" });
  localStorage.setItem(TOKEN_KEY, t);
}

async function body(response) {
  const text = await response.text();
  if (!text) return null;
  try { return JSON.parse(text); } catch { return { detail: text }; }
}

/** fetch() with the token; on 401 ask for one and try again. Returns the Response. */
export async function send(path, init = {}) {
  for (;;) {
    const response = await fetch(path, { ...init, headers: headers(init.headers) });
    if (response.status !== 401) return response;
    await signIn(Boolean(token()));
  }
}

/** A JSON request; throws ApiError on a non-2xx answer. */
export async function api(path, { method = "GET", json, signal } = {}) {
  const init = { method, signal };
  if (json !== undefined) {
    init.body = JSON.stringify(json);
    init.headers = { "Content-Type": "application/json" };
  }
  const response = await send(path, init);
  const data = await body(response);
  if (!response.ok) throw new ApiError(response.status, data);
  return data;
}

/** Multipart upload with progress (fetch cannot report upload progress; XHR can). */
export function upload(path, form, onProgress) {
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open("POST", path);
    const t = token();
    if (t) xhr.setRequestHeader("Authorization", `Bearer ${t}`);
    xhr.upload.addEventListener("progress", (e) => {
      if (e.lengthComputable) onProgress(e.loaded / e.total);
    });
    xhr.addEventListener("load", async () => {
      let data = null;
      try { data = xhr.responseText ? JSON.parse(xhr.responseText) : null; } catch { data = { detail: xhr.responseText }; }
      if (xhr.status === 401) {
        try { await signIn(Boolean(t)); resolve(await upload(path, form, onProgress)); } catch (e) { reject(e); }
      } else if (xhr.status >= 200 && xhr.status < 300) {
        resolve(data);
      } else {
        reject(new ApiError(xhr.status, data));
      }
    });
    xhr.addEventListener("error", () => reject(new ApiError(0, { error: "NetworkError", detail: "the upload did not reach Hearth" })));
    xhr.send(form);
  });
}

/**
 * POST a question to /api/ask/stream (or another streaming route: /api/wholedoc/stream) and call
 * onEvent(kind, data) for each server-sent event. Abort with the signal. Resolves when the
 * stream ends.
 */
export async function streamAnswer(payload, onEvent, signal, path = "/api/ask/stream") {
  const response = await send(path, {
    method: "POST",
    body: JSON.stringify(payload),
    headers: { "Content-Type": "application/json", Accept: "text/event-stream" },
    signal,
  });
  if (!response.ok) {
    const err = new ApiError(response.status, await body(response));
    err.retryAfter = response.headers.get("Retry-After");
    throw err;
  }
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  let buffer = "";
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    buffer += decoder.decode(value, { stream: true }).replace(/\r\n?/g, "\n");
    let cut;
    while ((cut = buffer.indexOf("\n\n")) >= 0) {
      const block = buffer.slice(0, cut);
      buffer = buffer.slice(cut + 2);
      dispatch(block, onEvent);
    }
  }
  if (buffer.trim()) dispatch(buffer, onEvent);
}

function dispatch(block, onEvent) {
  let kind = "message";
  const data = [];
  for (const line of block.split("\n")) {
    if (line.startsWith(":")) continue;
    const [field, ...rest] = line.split(":");
    const value = rest.join(":").replace(/^ /, "");
    if (field === "event") kind = value;
    else if (field === "data") data.push(value);
  }
  if (!data.length) return;
  let parsed;
  try { parsed = JSON.parse(data.join("\n")); } catch { parsed = { text: data.join("\n") }; }
  onEvent(kind, parsed);
}
