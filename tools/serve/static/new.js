/* The new-table form: seats, rule variants and pace → POST /api/tables → the table page. */
"use strict";
(() => {
  const form = document.getElementById("new-table");
  const list = document.getElementById("seats");
  const template = document.getElementById("seat-template");
  const addButton = document.getElementById("add-seat");
  const status = document.getElementById("status");
  const min = Number(form.dataset.min), max = Number(form.dataset.max);
  const optimalNote = form.querySelector(".optimal-note");

  function refresh() {
    const rows = list.querySelectorAll(".seat");
    addButton.disabled = rows.length >= max;
    rows.forEach((row) => { row.querySelector(".remove").disabled = rows.length <= min; });
    const anyOptimal = [...list.querySelectorAll("select[name=kind]")].some((s) => s.value === "optimal" || s.value === "win");
    if (optimalNote) optimalNote.hidden = Boolean(optimalNote.dataset.solved) || !anyOptimal;
  }
  list.addEventListener("click", (e) => {
    if (e.target.classList.contains("remove")) { e.target.closest(".seat").remove(); refresh(); }
  });
  list.addEventListener("change", refresh);
  addButton.addEventListener("click", () => {
    const row = template.content.firstElementChild.cloneNode(true);
    const names = new Set([...list.querySelectorAll("input[name=name]")].map((i) => i.value));
    let n = list.querySelectorAll(".seat").length + 1;
    const base = list.querySelector("input[name=name]").value.replace(/\s*\d+$/, "") || "Player";
    while (names.has(`${base} ${n}`)) n++;
    row.querySelector("input[name=name]").value = `${base} ${n}`;
    list.append(row);
    refresh();
    row.querySelector("input").focus();
  });
  form.addEventListener("submit", async (e) => {
    e.preventDefault();
    const seats = [...list.querySelectorAll(".seat")].map((row) => ({
      name: row.querySelector("input[name=name]").value,
      kind: row.querySelector("select[name=kind]").value,
    }));
    const options = {};
    form.querySelectorAll("[name^='opt:']").forEach((input) => {
      const id = input.name.slice(4);
      options[id] = input.dataset.type === "bool" ? input.checked : input.value;
    });
    const body = {model: form.dataset.model, seats, options,
                  pace_ms: Number(form.querySelector("[name=pace_ms]").value),
                  private: form.querySelector("[name=private]").checked,
                  hints: form.querySelector("[name=hints]").checked,
                  turn_seconds: Number(form.querySelector("[name=turn_seconds]").value)};
    const button = form.querySelector("button[type=submit]");
    button.disabled = true;
    status.textContent = form.querySelector(".status-texts").dataset.preparing;
    status.classList.remove("bad");
    try {
      const res = await Rulebook.post("/api/tables", body);
      if (res.token) Rulebook.remember(res.table, res.seat, res.token);
      location.href = `/t/${res.table}?lang=${form.dataset.lang}`;
    } catch (err) {
      status.textContent = err.message;
      status.classList.add("bad");
      button.disabled = false;
    }
  });
  refresh();
})();
