// Talking to the homefabric API: fetch with the optional bearer token, and WebSocket URLs.
// The token comes from the URL fragment (#token=...) or, after a 401, from a prompt; it is kept for the tab.

const TOKEN_KEY = "homefabric-token";

function initialToken() {
  const fragment = new URLSearchParams(location.hash.slice(1));
  const fromUrl = fragment.get("token");
  if (fromUrl) sessionStorage.setItem(TOKEN_KEY, fromUrl);
  return sessionStorage.getItem(TOKEN_KEY);
}

let token = initialToken();

export class ApiError extends Error {
  constructor(status, body) {
    super(body && body.message ? body.message : `HTTP ${status}`);
    this.status = status;
    this.body = body;
  }
}

export async function api(path, { method = "GET", body } = {}) {
  for (let attempt = 0; attempt < 2; attempt++) {
    const headers = { Accept: "application/json" };
    if (token) headers.Authorization = `Bearer ${token}`;
    if (body !== undefined) headers["Content-Type"] = "application/json";
    const response = await fetch(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
    if (response.status === 401 && attempt === 0) {
      showAuth("required");
      const entered = window.prompt("This home API needs a token:");
      if (!entered) throw new ApiError(401, { message: "token required" });
      token = entered;
      sessionStorage.setItem(TOKEN_KEY, token);
      continue;
    }
    if (response.status !== 401) showAuth("ok");
    const data = response.headers.get("content-type")?.includes("json") ? await response.json() : null;
    if (!response.ok) throw new ApiError(response.status, data);
    return data;
  }
  throw new ApiError(401, { message: "unauthorized" });
}

// A visible "token required" state (body[data-auth] and a banner), not only a prompt that can be dismissed.
function showAuth(state) {
  if (document.body.dataset.auth === state) return;
  document.body.dataset.auth = state;
  const banner = document.getElementById("auth-banner");
  if (banner) banner.hidden = state !== "required";
}

export function socketUrl(path, params = {}) {
  const url = new URL(path, location.href);
  url.protocol = location.protocol === "https:" ? "wss:" : "ws:";
  if (token) url.searchParams.set("token", token);
  for (const [key, value] of Object.entries(params)) url.searchParams.set(key, value);
  return url.toString();
}

export function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (value === undefined || value === null || value === false) continue;
    if (key === "class") node.className = value;
    else if (key === "dataset") Object.assign(node.dataset, value);
    else if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
    else node.setAttribute(key, value === true ? "" : value);
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

export function toast(message, kind = "error") {
  const box = document.getElementById("toasts");
  const item = el("div", { class: `toast ${kind}`, role: "status" }, message);
  box.append(item);
  setTimeout(() => item.remove(), 6000);
}
