/* Tap a step: the rule diagram drawn inline, each step clickable (mouse, touch or keyboard), and a
   panel saying who decides there, what can be chosen and what a computer player would choose in an
   example position. Used by the served rule pages (this script alone) and by the workshop. */
"use strict";
const RulebookSteps = (() => {
  function el(tag, attrs, ...children) {
    const e = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (v === null || v === undefined) continue;
      if (k === "class") e.className = v; else if (k === "text") e.textContent = v; else e.setAttribute(k, v);
    }
    for (const c of children) if (c) e.append(c);
    return e;
  }

  /* The SVG text as an element of this page, without anything that could run or navigate. */
  function inline(svgText) {
    const doc = new DOMParser().parseFromString(svgText, "image/svg+xml");
    const svg = doc.documentElement;
    if (!svg || svg.nodeName.toLowerCase() !== "svg" || doc.querySelector("parsererror")) return null;
    svg.querySelectorAll("script, foreignObject, iframe, object, embed, use").forEach((e) => e.remove());
    svg.querySelectorAll("a").forEach((a) => a.replaceWith(...a.childNodes));
    svg.querySelectorAll("*").forEach((e) => {
      for (const a of [...e.attributes]) if (/^on/i.test(a.name) || /href$/i.test(a.name)) e.removeAttribute(a.name);
    });
    svg.removeAttribute("width");
    svg.removeAttribute("height");
    svg.classList.add("rule-diagram");
    return document.importNode(svg, true);
  }

  /* The step a diagram node draws: its id is "node-STEP" (the page's step list links to it). */
  function stepOf(g) {
    const m = /^node-(.+)$/.exec(g.getAttribute("id") || "");
    return m ? m[1] : null;
  }

  function render(panel, s, texts) {
    const parts = [el("h3", {text: s.name + (s.bound ? ` (${s.bound})` : "")})];
    if (s.sentence) parts.push(el("p", {text: s.sentence}));
    if (s.role === "decision") {
      parts.push(el("dl", {class: "decision"},
        el("dt", {text: texts.who}), el("dd", {text: s.who}),
        el("dt", {text: texts.choice}), el("dd", {text: s.choice})));
    } else if (s.role === "chance") {
      parts.push(el("p", {class: "who", text: texts.nobody}));
    }
    if (s.rule) parts.push(el("p", {class: "rule", text: s.rule}));
    if (s.example) {
      parts.push(el("div", {class: "example" + (s.example.optimal ? " optimal" : " greedy")},
        el("h4", {text: texts.example}), el("p", {text: s.example.position}),
        el("p", {class: "choice", text: s.example.choice}),
        s.example.note ? el("p", {class: "note", text: s.example.note}) : null));
    }
    panel.replaceChildren(...parts);
    panel.dataset.step = s.id;
  }

  /* Make every step of the inline diagram tappable; `steps` maps step ids to their texts. */
  function bind(svg, steps, panel, texts) {
    // the steps are buttons now: the picture is a group of them, not an image (no buttons inside an image)
    const figure = svg.closest("figure");
    if (figure && figure.getAttribute("role") === "img") figure.setAttribute("role", "group");
    svg.setAttribute("role", "group");
    svg.querySelectorAll("g.node, g.cluster").forEach((g) => {
      const id = stepOf(g);
      if (!id || !steps[id]) return;
      g.classList.add("tappable");
      g.setAttribute("tabindex", "0");
      g.setAttribute("role", "button");
      // (its name is the text it shows, as a button's is)
      g.querySelectorAll("title").forEach((t) => t.remove());
      g.dataset.step = id;
      const show = (e) => {
        if (e) e.stopPropagation();
        svg.querySelectorAll(".tapped").forEach((x) => x.classList.remove("tapped"));
        g.classList.add("tapped");
        render(panel, steps[id], texts);
      };
      g.addEventListener("click", show);
      g.addEventListener("keydown", (e) => { if (e.key === "Enter" || e.key === " ") { e.preventDefault(); show(); } });
    });
  }

  /* On a served rule page: replace the diagram picture by the tappable diagram. */
  const me = document.currentScript;
  if (me && me.dataset.model) {
    const figure = document.querySelector("figure.diagram");
    const panel = document.getElementById("step-panel");
    const img = figure && figure.querySelector("img");
    const drawn = figure && figure.querySelector("svg");  // the page may carry the diagram inline
    if ((img || drawn) && panel) {
      Promise.all([
        drawn ? Promise.resolve(null) : fetch(img.getAttribute("src")).then((r) => r.text()),
        fetch(`/api/games/${encodeURIComponent(me.dataset.model)}/steps?lang=${me.dataset.lang}`).then((r) => r.json()),
      ]).then(([svgText, data]) => {
        const svg = drawn || inline(svgText);
        if (!svg || !data.steps) return;
        if (drawn) drawn.classList.add("rule-diagram");
        else (img.closest("a") || img).replaceWith(svg);
        bind(svg, data.steps, panel, data.texts);
        document.body.classList.add("steps-ready");
      }).catch(() => { /* the picture stays as it was */ });
    }
  }
  return {inline, bind, render};
})();
