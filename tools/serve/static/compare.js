/* The comparison page: start the comparison and show its table when the worker has finished. */
"use strict";
(() => {
  const boot = JSON.parse(document.getElementById("boot").textContent);
  const T = boot.texts;
  const status = document.getElementById("compare-status");
  const out = document.getElementById("compare-result");
  async function poll() {
    try {
      const res = await Rulebook.post(`/api/copies/${boot.copy}/compare`, {lang: boot.lang});
      if (res.state === "done") {
        status.textContent = "";
        out.innerHTML = res.html;  // built and escaped on the server
        document.body.classList.add("compared");
        return;
      }
      if (res.state === "failed") {
        status.textContent = T.failed + " " + res.error;
        status.classList.add("bad");
        return;
      }
      status.textContent = T.computing;
      setTimeout(poll, 1500);
    } catch (err) {
      status.textContent = T.failed + " " + err.message;
      status.classList.add("bad");
    }
  }
  poll();
})();
