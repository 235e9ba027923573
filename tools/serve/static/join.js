/* The join page: take an open seat, keep its token in this browser, go to the table. */
"use strict";
(() => {
  const form = document.getElementById("join");
  if (!form) return;
  const status = document.getElementById("status");
  form.addEventListener("submit", async (e) => {
    e.preventDefault();
    const seat = Number((e.submitter || form.querySelector("button[name=seat]")).value);
    const name = form.querySelector("input[name=name]").value.trim();
    form.querySelectorAll("button").forEach((b) => { b.disabled = true; });
    try {
      const body = {seat};
      if (name) body.name = name;
      if (form.dataset.key) body.key = form.dataset.key;  // the invite key: this link's one seat
      const res = await Rulebook.post(`/api/tables/${form.dataset.table}/join`, body);
      Rulebook.remember(res.table, res.seat, res.token);
      location.href = `/t/${res.table}?lang=${form.dataset.lang}`;
    } catch (err) {
      status.textContent = err.message;
      status.classList.add("bad");
      form.querySelectorAll("button").forEach((b) => { b.disabled = false; });
    }
  });
})();
