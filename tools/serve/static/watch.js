/* The watch page: start a table of two computer players and watch it. */
"use strict";
(() => {
  const form = document.getElementById("computers");
  if (!form) return;
  form.addEventListener("submit", async (e) => {
    e.preventDefault();
    const [a, b] = form.dataset.names.split("|");
    const button = form.querySelector("button");
    button.disabled = true;
    try {
      const res = await Rulebook.post("/api/tables", {model: form.dataset.model, claim: false,
                                                      seats: [{name: a, kind: "greedy"}, {name: b, kind: "random"}]});
      location.href = `/t/${res.table}/watch?lang=${form.dataset.lang}`;
    } catch (err) {
      document.getElementById("status").textContent = err.message;
      button.disabled = false;
    }
  });
})();
