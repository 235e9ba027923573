/* The workshop: CodeMirror on the model's YAML, checked as you type (POST /api/copies/ID/check),
   the messages at their lines, the copy's diagram (tap a step) and rule page beside it. */
"use strict";
(() => {
  const boot = JSON.parse(document.getElementById("boot").textContent);
  const T = boot.texts, LANG = boot.lang;
  let ID = boot.copy;
  const KEY = "rulebook.copies";
  const $ = (id) => document.getElementById(id);

  // the edit token arrives once in the address's fragment; it is kept in this browser only
  function tokens() { try { return JSON.parse(localStorage.getItem(KEY) || "{}") || {}; } catch (e) { return {}; } }
  const m = /^#edit=([A-Za-z0-9_-]+)$/.exec(location.hash);
  let token = tokens()[ID] || null;
  if (m) {
    token = m[1];
    const all = tokens(); all[ID] = token;
    try { localStorage.setItem(KEY, JSON.stringify(all)); } catch (e) { /* private mode: this page only */ }
    history.replaceState(null, "", location.pathname + location.search);
  }
  let mine = Boolean(token) && !boot.frozen;
  function keep(id, tok) {
    const all = tokens(); all[id] = tok;
    try { localStorage.setItem(KEY, JSON.stringify(all)); } catch (e) { /* private mode: this page only */ }
  }
  function showOwner() {
    document.body.classList.toggle("mine", mine);
    $("frozen-note").hidden = mine;
    $("share-link").value = location.origin + "/w/" + ID;
    $("compare").setAttribute("href", `/w/${ID}/compare?lang=${LANG}`);
    $("download").setAttribute("href", `/w/${ID}/download`);
  }
  showOwner();

  // Tab indents; Esc, then Tab (or Shift+Tab), leaves the editor (WCAG 2.1.2), as the note under it says
  const keys = {Tab: (cm) => cm.replaceSelection("  "), Esc: () => { leaving(true); }};
  const editor = CodeMirror.fromTextArea($("source"), {
    mode: "yaml", lineNumbers: true, indentUnit: 2, tabSize: 2, lineWrapping: false,
    gutters: ["CodeMirror-linenumbers", "marks"], readOnly: false, extraKeys: keys,
    screenReaderLabel: $("source").getAttribute("aria-label"),
  });
  function leaving(on) {
    editor.setOption("extraKeys", on ? {...keys, Tab: false, "Shift-Tab": false} : keys);
    editor.getScrollerElement().setAttribute("tabindex", on ? "-1" : "0");
    document.body.classList.toggle("editor-escaped", on);
  }
  editor.on("keydown", (cm, e) => { if (!["Escape", "Tab", "Shift"].includes(e.key)) leaving(false); });
  editor.on("blur", () => leaving(false));
  editor.getInputField().setAttribute("aria-describedby", "editor-help");
  // the scrolling area can be reached by keyboard (arrows scroll it); skipped on the way out after Esc
  editor.getScrollerElement().setAttribute("tabindex", "0");
  editor.getScrollerElement().setAttribute("aria-label", $("source").getAttribute("aria-label"));
  editor.setSize(null, "70vh");
  window.workshopEditor = editor;  // for people poking at the page, and for tests

  let marked = [];
  function clearMarks() {
    for (const line of marked) {
      editor.removeLineClass(line, "background", "error-line");
      editor.setGutterMarker(line, "marks", null);
    }
    marked = [];
  }
  function markLine(n, text) {
    const line = Math.max(0, Math.min(editor.lineCount() - 1, n - 1));
    editor.addLineClass(line, "background", "error-line");
    const dot = document.createElement("span");
    dot.className = "error-mark";
    dot.textContent = "●";
    dot.title = text;
    editor.setGutterMarker(line, "marks", dot);
    marked.push(line);
  }

  function showErrors(errors, refused) {
    clearMarks();
    const list = $("messages");
    list.replaceChildren();
    for (const e of errors) {
      const li = Rulebook.el("li", {class: "error", "data-line": e.line || ""});
      if (e.line) {
        const jump = Rulebook.el("button", {type: "button", class: "line-link", text: Rulebook.fmt(T.line, {line: e.line}),
          onclick: () => { editor.focus(); editor.setCursor({line: e.line - 1, ch: Math.max(0, (e.col || 1) - 1)}); }});
        li.append(jump, " ");
        markLine(e.line, e.text);
      }
      li.append(e.text);
      list.append(li);
    }
    const status = $("check");
    status.className = "check " + (errors.length ? "bad" : "good");
    status.textContent = errors.length ? (refused ? T.refused : T.errors) : T.ok;
  }

  let lastDiagram = null;
  function showDiagram(svgText, steps) {
    if (!svgText || svgText === lastDiagram) return;
    lastDiagram = svgText;
    const svg = RulebookSteps.inline(svgText);
    if (!svg) return;
    const box = $("diagram");
    box.replaceChildren(svg);
    RulebookSteps.bind(svg, steps || {}, $("step-panel"), T);
    const panel = $("step-panel");
    if (panel.dataset.step && steps && steps[panel.dataset.step]) RulebookSteps.render(panel, steps[panel.dataset.step], T);
  }

  // a visitor who starts typing gets a copy of their own with the text as they have it ("Make my copy")
  let forking = null;
  async function makeMine() {
    if (mine) return;
    if (!forking) {
      forking = (async () => {
        const res = await Rulebook.post(`/api/copies/${ID}/fork`, {source: editor.getValue(), lang: LANG});
        ID = res.copy; token = res.token; mine = true;
        keep(ID, token);
        history.replaceState(null, "", res.url);
        showOwner();
        $("play-status").textContent = T.own_copy;
      })();
      forking.catch((err) => { forking = null; $("play-status").textContent = err.message; });
    }
    await forking;
  }

  let timer = null, running = null, again = false, generation = 0;
  async function check() {
    if (running) { again = true; return running; }
    if (!mine && generation > 0) {
      try { await makeMine(); } catch (err) { return; }
    }
    const source = editor.getValue();
    const mineNow = generation;
    $("check").className = "check busy";
    $("check").textContent = T.checking;
    running = (async () => {
      try {
        const res = await Rulebook.post(`/api/copies/${ID}/check`, {source, token: mine ? token : null, lang: LANG});
        showErrors(res.errors || [], res.refused);
        if (res.ok) {
          showDiagram(res.diagram, res.steps);
          if (res.page) {
            const frame = $("page");
            if (frame.getAttribute("src") !== res.page) frame.setAttribute("src", res.page);
          }
          if (mine) $("check").textContent = T.ok + " " + T.saved;
        }
        if (!mine) $("check").textContent += " " + T.not_saved;
        document.body.dataset.checked = String(mineNow);
        document.body.classList.toggle("model-ok", Boolean(res.ok));
      } catch (err) {
        $("check").className = "check bad";
        $("check").textContent = err.message;
      }
    })();
    await running;
    running = null;
    if (again) { again = false; return check(); }
  }
  editor.on("changes", () => {
    generation += 1;
    document.body.classList.remove("model-ok");
    clearTimeout(timer);
    timer = setTimeout(check, 500);
  });

  async function settled() {
    if (timer) { clearTimeout(timer); timer = null; await check(); }
    while (running) await running;
  }

  $("play").addEventListener("click", async () => {
    const button = $("play");
    button.disabled = true;
    $("play-status").textContent = T.preparing;
    try {
      await settled();
      const res = await Rulebook.post(`/api/copies/${ID}/play`, {lang: LANG});
      if (res.token) Rulebook.remember(res.table, res.seat, res.token);
      location.href = res.url;
    } catch (err) {
      $("play-status").textContent = err.message;
      button.disabled = false;
    }
  });
  $("compare").addEventListener("click", async (e) => {
    e.preventDefault();
    await settled();
    location.href = $("compare").getAttribute("href");
  });
  check();
})();
