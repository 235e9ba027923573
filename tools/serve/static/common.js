/* rulebook serve: what every page shares. Seat tokens live in this browser's localStorage. */
"use strict";
const Rulebook = (() => {
  const KEY = "rulebook.seats";
  function all() {
    try { return JSON.parse(localStorage.getItem(KEY) || "{}") || {}; } catch (e) { return {}; }
  }
  function seats(table) { return all()[table] || {}; }
  function remember(table, seat, token) {
    const data = all();
    data[table] = data[table] || {};
    data[table][String(seat)] = token;
    try { localStorage.setItem(KEY, JSON.stringify(data)); } catch (e) { /* private mode: this page only */ }
  }
  function forget(table, seat) {
    const data = all();
    if (data[table]) { delete data[table][String(seat)]; localStorage.setItem(KEY, JSON.stringify(data)); }
  }
  async function post(url, body) {
    let res;
    try {
      res = await fetch(url, {method: "POST", headers: {"Content-Type": "application/json"},
                              body: JSON.stringify(body)});
    } catch (e) {  // no answer at all: said in the page's language, not the browser's "Failed to fetch"
      const err = new Error(document.body.dataset.offline || e.message);
      err.status = 0;
      err.data = {};
      throw err;
    }
    let data = null;
    try { data = await res.json(); } catch (e) { data = {error: res.statusText}; }
    if (!res.ok) {
      const err = new Error((data && data.error) || res.statusText);
      err.status = res.status;
      err.data = data || {};
      throw err;
    }
    return data;
  }
  function fmt(text, values) {
    return String(text).replace(/\{(\w+)\}/g, (m, k) => (k in values ? values[k] : m));
  }
  function el(tag, attrs, ...children) {
    const e = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (v === null || v === undefined || v === false) continue;
      if (k === "class") e.className = v;
      else if (k === "text") e.textContent = v;
      else if (k === "style") e.style.cssText = v;  // CSSOM: allowed by the page's Content-Security-Policy
      else if (k.startsWith("on")) e.addEventListener(k.slice(2), v);
      else e.setAttribute(k, v === true ? "" : v);
    }
    for (const c of children) if (c !== null && c !== undefined) e.append(c);
    return e;
  }
  return {seats, remember, forget, post, fmt, el};
})();
