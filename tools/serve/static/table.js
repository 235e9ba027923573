/* The table page: draws the server's view of a table and sends this browser's decisions.
   The server decides everything; this script only shows what it says and asks it to act. */
"use strict";
(async () => {
  let boot = JSON.parse(document.getElementById("boot").textContent);
  const TABLE = boot.table;
  const {el, fmt} = Rulebook;
  const $ = (id) => document.getElementById(id);

  // a seat link (#seat=N&token=…) moves a seat to this browser
  if (location.hash.length > 1 && !boot.watch) {
    const h = new URLSearchParams(location.hash.slice(1));
    if (h.get("seat") !== null && h.get("token")) Rulebook.remember(TABLE, h.get("seat"), h.get("token"));
    history.replaceState(null, "", location.pathname + location.search);
  }
  const mine = boot.watch ? {} : Rulebook.seats(TABLE);
  // a private table shows itself to one of its players only: the seat's token asks for the page's data
  if (boot.locked) {
    const s = Object.keys(mine)[0];
    try {
      if (s === undefined) throw new Error(boot.texts.no_access);
      boot = await Rulebook.post(`/api/tables/${TABLE}/boot?lang=${boot.lang}`, {seat: Number(s), token: mine[s]});
    } catch (err) {
      $("turn").textContent = boot.texts.no_access;
      document.body.classList.add("no-access");
      return;
    }
    document.querySelector(".game-name").textContent = boot.model.name;
    $("rules-link").href = boot.game.rules;
    $("diagram-link").href = boot.game.diagram;
    document.title = boot.model.name + " · rulebook";
  }
  const T = boot.texts, M = boot.model;
  // how this page proves what it may see at a private table: the watch key, or a seat's token
  const firstSeat = Object.keys(mine)[0];
  const proof = boot.key ? `&key=${encodeURIComponent(boot.key)}`
    : (firstSeat !== undefined ? `&seat=${firstSeat}&token=${encodeURIComponent(mine[firstSeat])}` : "");

  let state = boot.state;
  let lastSeq = state.seq;
  let selected = new Set();     // positions of the dice this browser wants to keep
  let wasKept = [];             // faces kept before the last roll (marked for everyone)
  let rolled = false;           // the last update rolled dice (animate them)
  let busy = false;
  let hint = null;
  let review = null;            // the game's review, once asked for at the end
  let display = [];             // the dice in the places they are shown (they keep their places)
  let lastHeld = [];            // places of the dice kept in the last roll
  let theirPick = {seq: -1, dice: []};  // the dice the player to move is choosing (live)
  let ws = null;
  let clockOffset = 0;          // server time − this browser's time, in seconds

  const names = () => state.players.map((p) => p.name);
  const one = (pair, n) => (n === 1 ? pair[0] : pair[1]);
  const boxName = {};         // box or write target (box@column) → its name
  M.sections.forEach((s) => s.boxes.forEach((b) => { boxName[b.id] = b.name; }));
  Object.entries(M.targets || {}).forEach(([id, t]) => { boxName[id] = t.name; });
  const COLS = (M.columns && M.columns.length) ? M.columns : [null];  // a sheet without columns has one
  // an announcement names the box; where more than one column takes announcements (or none has that
  // order), it names the column too, in a sentence of its own ("Announce Ones in the Hand column")
  const ANNOUNCE_COLS = COLS.filter((c) => c && c.order === "announced");
  const announceColumn = (id) => {
    const t = M.targets && M.targets[id];
    if (!t || !t.column || ANNOUNCE_COLS.length === 1) return null;
    return (COLS.find((c) => c && c.id === t.column) || {name: t.column}).name;
  };
  const announcedName = (id) => ((M.targets && M.targets[id] && boxName[M.targets[id].box]) || boxName[id] || id);
  // an announcement as a sentence: `key` names the box only, `key + "_in"` the box and its column
  const announceText = (key, id, extra) => {
    const column = announceColumn(id);
    return column === null ? fmt(T[key], {...extra, box: announcedName(id)})
      : fmt(T[key + "_in"], {...extra, box: announcedName(id), column});
  };
  // a sheet of several columns takes the wider side of the page (the dice and moves the other)
  if (COLS.length > 1) document.querySelector(".table-layout").classList.add("many-columns");

  function mySeat() {
    if (state.terminal || state.chance || state.player === null) return null;
    return String(state.player) in mine ? state.player : null;
  }

  // the log ------------------------------------------------------------------------
  function eventText(ev) {
    const name = (state.players[ev.player] || {}).name || "?";
    const player = ev.robot ? fmt(T.computer_for, {player: name}) : name;
    const cap = (t) => t.charAt(0).toUpperCase() + t.slice(1);
    return cap(eventSentence(ev, player));
  }
  function eventSentence(ev, player) {
    const dice = (d) => d.join(" ");
    switch (ev.type) {
      case "roll":
        return ev.kept && ev.kept.length
          ? fmt(T.ev_reroll, {player, faces: dice(ev.faces), dice: dice(ev.dice)})
          : fmt(T.ev_roll, {player, dice: dice(ev.dice)});
      case "keep":
        return ev.dice.length ? fmt(T.ev_keep, {player, dice: dice(ev.dice)}) : fmt(T.ev_keep_none, {player});
      case "stop":
        return fmt(T.ev_stop, {player});
      case "roll_on":
        return fmt(T.ev_roll_on, {player});
      case "announce":
        return ev.box ? announceText("ev_announce", ev.box, {player}) : fmt(T.ev_announce_none, {player});
      case "write": {
        let text = fmt(one(T.ev_write, ev.points), {player, points: ev.points, box: boxName[ev.box] || ev.box});
        if (ev.bonus) text += " " + fmt(T.ev_bonus, {bonus: ev.bonus});
        return text;
      }
      default:
        return ev.move;
    }
  }
  function addEvent(ev) {
    const log = $("log");
    const li = el("li", {class: "ev ev-" + ev.type + (ev.player !== undefined ? " p" + (ev.player % 8) : "")
                           + (ev.robot ? " by-computer" : ""),
                         "data-seq": ev.seq, value: ev.seq, text: eventText(ev)});
    log.prepend(li);
    while (log.children.length > 80) log.lastElementChild.remove();
    if (ev.type === "roll") { wasKept = ev.kept || []; rolled = true; arrange(ev); }
    if (ev.type === "write" || ev.type === "stop") wasKept = [];
  }

  // the dice keep their places: kept dice stay where they were, the new ones fill the gaps
  function sameDice(a, b) {
    return a.length === b.length && [...a].sort((x, y) => x - y).join() === [...b].sort((x, y) => x - y).join();
  }
  function arrange(ev) {
    const kept = ev.kept || [];
    lastHeld = [];
    // dice that differ stay in their groups' places (a place says the die's group)
    if (!kept.length || display.length !== ev.dice.length || (M.groups || []).length) { display = ev.dice.slice(); return; }
    // which places were kept: the mover's own choice, else the live one, else the first with those faces
    let held = String(ev.player) in mine ? [...selected] : (theirPick.dice || []);
    const fits = (places) => {
      const pool = [...kept];
      return places.length === kept.length && places.every((i) => {
        const j = pool.indexOf(display[i]); if (j < 0) return false; pool.splice(j, 1); return true; });
    };
    if (!fits(held)) {
      const pool = [...kept];
      held = [];
      display.forEach((f, i) => { const j = pool.indexOf(f); if (j >= 0) { pool.splice(j, 1); held.push(i); } });
    }
    const fresh = [...(ev.faces || [])];
    const next = display.map((f, i) => (held.includes(i) ? f : fresh.shift()));
    if (fresh.length || next.includes(undefined) || !sameDice(next, ev.dice)) { display = ev.dice.slice(); return; }
    display = next;
    lastHeld = held;
  }
  function shown() {
    if (!sameDice(display, state.dice)) { display = state.dice.slice(); lastHeld = []; }
    return display;
  }

  // drawing ------------------------------------------------------------------------
  const SVG = "http://www.w3.org/2000/svg";
  const PIP_AT = {1: [20, 20], 2: [50, 20], 3: [80, 20], 4: [20, 50], 5: [50, 50], 6: [80, 50], 7: [20, 80], 8: [50, 80], 9: [80, 80]};
  function dieFace(face, colour) {
    const svg = document.createElementNS(SVG, "svg");
    svg.setAttribute("viewBox", "0 0 100 100");
    svg.setAttribute("aria-hidden", "true");
    const rect = document.createElementNS(SVG, "rect");
    for (const [k, v] of Object.entries({x: 3, y: 3, width: 94, height: 94, rx: 16, class: "face"})) rect.setAttribute(k, v);
    if (colour) rect.style.fill = colour;  // a die of a group of dice that differ (CSSOM: the CSP allows it)
    const light = !colour || ["white", "gold", "yellow", "#ffffff"].includes(colour);
    svg.append(rect);
    if (PIPS[face] && M.faces <= 6) {
      for (const c of PIPS[face]) {
        const dot = document.createElementNS(SVG, "circle");
        dot.setAttribute("cx", PIP_AT[c][0]); dot.setAttribute("cy", PIP_AT[c][1]); dot.setAttribute("r", 9.5);
        dot.setAttribute("class", "pip");
        if (!light) dot.style.fill = "white";
        svg.append(dot);
      }
    } else {
      const text = document.createElementNS(SVG, "text");
      for (const [k, v] of Object.entries({x: 50, y: 52, "text-anchor": "middle", "dominant-baseline": "central", class: "num"})) text.setAttribute(k, v);
      text.textContent = String(face);
      svg.append(text);
    }
    return svg;
  }
  const PIPS = {1: [5], 2: [3, 7], 3: [3, 5, 7], 4: [1, 3, 7, 9], 5: [1, 3, 5, 7, 9], 6: [1, 3, 4, 6, 7, 9]};
  function die(face, i, opts) {
    const b = el("button", {type: "button", class: "die" + (opts.held ? " held" : "") + (opts.wasKept ? " was-kept" : "")
                              + (opts.rolling ? " rolling" : ""),
                            "data-face": face, "data-index": i, "data-focus": "die-" + i,
                            "aria-pressed": opts.held ? "true" : "false",
                            "aria-label": fmt(T.die_n, {n: i + 1, face}), disabled: !opts.active});
    b.append(dieFace(face, groupColour(i)));
    if (opts.held) b.append(el("span", {class: "held-label", text: T.kept}));
    return b;
  }

  // dice that differ (groups): the colour of the die at place i, from the model's groups in order
  function groupColour(i) {
    let start = 0;
    for (const g of (M.groups || [])) {
      if (i < start + g.count) return g.colour || null;
      start += g.count;
    }
    return null;
  }

  function drawDice(me) {
    const box = $("dice");
    box.replaceChildren();
    const choosing = me !== null && state.step && state.step.kind === "keep";
    const active = choosing && !busy;  // no clicks while a move is on its way
    const faces = shown();
    const kept = faces.map((f, i) => lastHeld.includes(i) && wasKept.length > 0);
    const live = theirPick.seq === state.seq && !choosing ? theirPick.dice : [];
    faces.forEach((face, i) => {
      box.append(die(face, i, {held: (choosing && selected.has(i)) || live.includes(i),
                               wasKept: kept[i] && !choosing && !live.length, active, rolling: rolled && !kept[i]}));
    });
    if (!state.dice.length) {
      for (let i = 0; i < M.n_dice; i++) box.append(el("span", {class: "die blank", "aria-hidden": "true"}));
    }
    rolled = false;
  }

  // the sheet: a row per box, per player a cell per column (one without columns); a cell shows the
  // entries written (a box used several times has several) and, for the player to move, what the dice
  // would score there
  // A sheet too wide for the screen shows one player's columns at a time (tabs choose whose; the
  // player to move by default) and, if one player's columns are still too wide, turns the column
  // names on their side. Words are never broken: box names wrap between words only.
  let sheetPick = null, sheetPickTurn = null;  // the player chosen in the tabs, and in whose turn
  function drawSheet(me) {
    const wrap = document.querySelector(".sheet-wrap"), table = $("sheet");
    const n = state.players.length;
    const turnKey = state.terminal ? "end" : state.player;
    if (sheetPickTurn !== turnKey) sheetPick = null;  // a new turn shows the player to move again
    const overflows = () => table.scrollWidth > wrap.clientWidth + 1;
    table.classList.remove("turned");
    drawSheetOf(me, null);
    let only = null;
    if (overflows() && n > 1) {
      only = sheetPick ?? (state.terminal ? (me ?? 0) : (state.player ?? 0));
      drawSheetOf(me, only);
    }
    if (overflows() && COLS.length > 1) table.classList.add("turned");
    drawSheetTabs(only, turnKey);
  }
  function drawSheetTabs(only, turnKey) {
    let tabs = $("sheet-players");
    if (!tabs) {
      tabs = el("div", {class: "sheet-players", id: "sheet-players", role: "group", "aria-label": T.sheet_of_player});
      document.querySelector(".sheet-wrap").before(tabs);
    }
    tabs.replaceChildren();
    tabs.hidden = only === null;
    if (only === null) return;
    state.players.forEach((p, i) => tabs.append(el("button", {
      type: "button", class: "button small" + (i === only ? " primary" : ""), "aria-pressed": String(i === only),
      "data-focus": "sheet-player-" + i, "data-player": i, text: p.name,
      onclick: () => { sheetPick = i; sheetPickTurn = turnKey; drawSheet(mySeat()); }})));
  }
  function drawSheetOf(me, only) {
    const table = $("sheet");
    table.replaceChildren();
    const nc = COLS.length, multi = COLS[0] !== null;
    const seats = only === null ? state.players.map((_, i) => i) : [only];
    const cur = state.terminal ? null : state.player;
    const choices = {};
    state.choices.forEach((c) => { choices[c.box] = c; });
    const canPick = me !== null && state.step && (state.can_write || (state.step.kind === "keep" && state.step.can_stop));
    const cls = (i, extra) => [i === cur ? "current" : "", extra || ""].join(" ").trim();

    const head = el("tr", {}, el("th", {scope: "col", class: "box-col", rowspan: multi ? 2 : 1, text: T.box}));
    seats.forEach((i) => {
      const p = state.players[i];
      const th = el("th", {scope: "colgroup", colspan: nc,
                           class: "player" + (i === cur ? " current" : "") + (String(i) in mine ? " mine" : "")},
                    el("span", {class: "pname", text: p.name}));
      if (p.kind !== "human") th.append(el("span", {class: "pkind", text: boot.kinds[p.kind] || p.kind}));
      else if (p.open) th.append(el("span", {class: "pkind open", text: T.open_seat}));
      else if (p.robot) th.append(el("span", {class: "pkind robot", text: T.robot}));
      else th.append(el("span", {class: "pkind presence " + (p.present ? "here" : "away"),
                                 text: p.present ? T.present : T.away}));
      head.append(th);
    });
    const thead = el("thead", {}, head);
    if (multi) {
      const colRow = el("tr", {class: "column-row"});
      for (const i of seats) {
        COLS.forEach((c) => colRow.append(el("th", {scope: "col", class: cls(i, "column"), "data-column": c.id,
                                                    title: c.multiplier !== 1 ? fmt(T.column_times, {n: c.multiplier}) : "",
                                                    text: c.name})));
      }
      thead.append(colRow);
    }
    table.append(thead);
    const body = el("tbody");
    // a row of numbers: one per player, or with `perColumn(id, column)` one per column
    const numberRow = (rowClass, label, title, value, perColumn) => {
      const tr = el("tr", {class: rowClass}, el("th", {scope: "row", title: title || "", text: label}));
      for (const i of seats) {
        if (perColumn && multi) COLS.forEach((c) => tr.append(el("td", {class: cls(i), text: String(perColumn(i, c) ?? 0)})));
        else tr.append(el("td", {class: cls(i), colspan: nc, text: String(value(i) ?? 0)}));
      }
      return tr;
    };
    const bonusRow = (b) => {
      const perColumn = multi && (`${b.id}@${COLS[0].id}` in (state.totals[0] || {}))
        ? (i, c) => state.totals[i][`${b.id}@${c.id}`] : null;
      const tr = numberRow("bonus-row", b.name, b.rule, (i) => state.totals[i][b.id], perColumn);
      if (perColumn) return tr;
      for (const i of seats) {
        const prog = (state.progress[i] || {})[b.id];
        if (!prog || !b.progress) continue;
        const [value, goal] = prog;
        const pct = Math.max(0, Math.min(100, goal ? (100 * value) / goal : 0));
        tr.children[seats.indexOf(i) + 1].append(el("span", {class: "progress" + (value >= goal ? " reached" : ""),
                                               title: fmt(T.progress, {value, goal})},
                                      el("span", {class: "bar"}, el("span", {class: "fill", style: `width:${pct}%`})),
                                      el("span", {class: "ptext", text: fmt(T.progress, {value, goal})})));
      }
      return tr;
    };
    const cell = (i, b, target) => {
      const sheet = state.sheets[i];
      const cells = (M.targets[target] || {cells: [target]}).cells;
      const entries = cells.filter((c) => c in sheet).map((c) => sheet[c]);
      const td = el("td", {class: cls(i), "data-target": target});
      if (entries.length) {
        td.classList.add(entries.length === cells.length ? "filled" : "partly");
        if (cells.length > 1) {
          td.append(el("span", {class: "entries", title: fmt(T.entries_of, {n: entries.length, total: cells.length})},
                       ...entries.map((e) => el("span", {class: "entry", text: String(e)}))));
        } else {
          td.append(String(entries[0]));
        }
      }
      const cost = review && (review.turns[String(i)] || {})[target];
      if (cost && cost.shown) {
        td.classList.add("costly");
        td.append(el("span", {class: "cost", title: fmt(cost.unit === "chance" ? T.review_cell_chance : T.review_cell, {cost: cost.cost}),
                              text: "−" + cost.cost}));
      }
      const c = i === cur ? choices[target] : null;
      if (!c) return td;
      const label = c.bonus ? `${c.points}+${c.bonus}` : String(c.points);
      const name = boxName[target] || b.name;
      if (canPick && i === me) {
        td.append(el("button", {type: "button", class: "write" + (c.points + c.bonus ? "" : " zero"), disabled: busy,
                                "data-box": target, "data-focus": "write-" + target,
                                "aria-label": fmt(one(T.write_label, c.points + c.bonus), {box: name, points: c.points + c.bonus}),
                                title: fmt(T.would_score, {points: c.points + c.bonus}),
                                onclick: () => write(target)}, label));
      } else {
        td.append(el("span", {class: "would", title: fmt(T.would_score, {points: c.points + c.bonus}), text: label}));
      }
      return td;
    };
    M.sections.forEach((section) => {
      // a section that does not count (the layout says so) says it in its heading
      const heading = section.counts === false ? fmt(T.section_not_counted, {section: section.name}) : section.name;
      body.append(el("tr", {class: "section-row" + (section.counts === false ? " not-counted" : ""), "data-section": section.id},
                     el("th", {scope: "colgroup", colspan: seats.length * nc + 1, text: heading})));
      section.boxes.forEach((b) => {
        const targets = b.targets && b.targets.length ? b.targets : [b.id];
        const label = b.uses > 1 ? fmt(T.box_uses, {box: b.name, n: b.uses}) : b.name;
        const tr = el("tr", {class: "box-row", "data-box": b.id}, el("th", {scope: "row", title: b.rule, text: label}));
        for (const i of seats) targets.forEach((t) => tr.append(cell(i, b, t)));
        body.append(tr);
      });
      const label = section.total || fmt(T.section_total, {section: section.name});
      body.append(numberRow("total-row", label, "", (i) => state.totals[i][section.id],
                            multi ? (i, c) => state.totals[i][`${section.id}@${c.id}`] : null));
      if (multi) {
        body.append(numberRow("total-row weighted", fmt(T.section_weighted, {section: section.name}), "",
                              (i) => state.totals[i][section.id]));
      }
      M.bonuses.filter((b) => b.section === section.id).forEach((b) => body.append(bonusRow(b)));
    });
    M.bonuses.filter((b) => !b.section || !M.sections.some((s) => s.id === b.section)).forEach((b) => body.append(bonusRow(b)));
    body.append(numberRow("grand-row", T.grand_total, "", (i) => state.totals[i].total));
    if (M.ranking && state.finals) {  // the game's own final score, which decides the winner
      body.append(numberRow("grand-row final-row", M.ranking, "", (i) => state.finals[i]));
    }
    (M.counters || []).forEach((c) => {  // numbers that outlive a turn: each player's, or the game's
      body.append(numberRow("counter-row", c.name, "", (i) => (c.per === "game" ? state.game_counters[c.id]
                                                              : (state.counters[i] || {})[c.id])));
      body.lastElementChild.dataset.counter = c.id;
    });
    table.append(body);
  }

  function drawTurn(me) {
    const turn = $("turn"), prompt = $("prompt");
    $("round").textContent = state.terminal ? "" : fmt(T.round, {n: state.round[0], total: state.round[1]});
    turn.className = "turn";
    prompt.textContent = "";
    if (state.broken) {
      turn.textContent = fmt(T.broken, {message: state.broken});
      turn.classList.add("bad");
      return;
    }
    if (state.terminal) { turn.textContent = ""; return; }
    const p = state.players[state.player];
    if (me !== null) {
      turn.textContent = fmt(T.your_turn, {player: p.name});
      turn.classList.add("mine");
      if (state.step.kind === "keep") prompt.textContent = state.step.can_stop ? T.do_keep : T.do_keep_no_stop;
      else if (state.step.kind === "announce") prompt.textContent = T.do_announce;
      else if (state.step.kind === "bank") prompt.textContent = T.do_bank;
      else if (state.step.kind === "write") prompt.textContent = state.announced
        ? announceText("do_write_announced", state.announced) : T.do_write;
      return;
    }
    if (state.chance) turn.textContent = T.wait_dice;
    else if (p.kind !== "human") turn.textContent = fmt(T.wait_bot, {player: p.name});
    else if (p.open) turn.textContent = fmt(T.wait_join, {player: p.name});
    else turn.textContent = fmt(T.wait_person, {player: p.name});
    turn.prepend(el("span", {class: "dot"}));
  }

  function drawControls(me) {
    const controls = $("controls");
    controls.hidden = me === null;
    if (me === null) { $("hint").hidden = true; hint = null; return; }
    const roll = $("roll");
    if (state.step.kind === "keep") {
      roll.hidden = false;
      roll.textContent = fmt(one(T.roll, state.rolls_left), {n: state.rolls_left});
      roll.disabled = busy;
    } else if (state.step.kind === "bank") {  // bank the turn total (stop), or roll on
      roll.hidden = false;
      roll.textContent = T.roll_on;
      roll.disabled = busy;
    } else if (state.step.kind === "write" && state.can_pass) {  // an optional write: writing nothing
      roll.hidden = false;
      roll.textContent = T.pass;
      roll.disabled = busy;
    } else {
      roll.hidden = true;
    }
    let bank = $("bank");
    if (!bank) {
      bank = el("button", {type: "button", class: "button primary", id: "bank"});
      bank.addEventListener("click", () => { if (!busy) send("stop"); });
      roll.after(bank);
    }
    bank.hidden = state.step.kind !== "bank";
    bank.textContent = T.bank;
    bank.disabled = busy;
    // an announce step: a button per box that may be announced (and one to announce nothing)
    let announce = $("announce");
    if (!announce) {
      announce = el("div", {class: "announce", id: "announce", role: "group"});
      controls.append(announce);
    }
    announce.replaceChildren();
    announce.hidden = state.step.kind !== "announce";
    if (!announce.hidden) {
      (state.announce || []).forEach((box) => {
        announce.append(el("button", {type: "button", class: "button" + (box ? "" : " primary"), disabled: busy,
                                      text: box ? announceText("announce_box", box) : T.announce_none,
                                      onclick: () => send(box ? "announce " + box : "announce none")}));
      });
    }
    $("hint-button").textContent = T.hint;
    $("hint-button").disabled = busy;
    $("hint-button").hidden = !state.hints;
  }

  function drawRanking() {
    const box = $("ranking");
    box.hidden = !state.terminal || !state.ranking;
    if (box.hidden) return;
    $("ranking-title").textContent = T.game_over;
    const list = $("ranking-list");
    list.replaceChildren();
    state.ranking.forEach((r) => {
      list.append(el("li", {class: "rank rank-" + r.rank + (String(r.seat) in mine ? " mine" : ""),
                            text: fmt(one(T.rank_line, r.total), {rank: r.rank, player: r.name, total: r.total})}));
    });
    const first = state.ranking.filter((r) => r.rank === 1);
    $("winner").textContent = first.length > 1 ? fmt(T.tie, {total: first[0].total})
      : fmt(T.winner, {player: first[0].name, total: first[0].total});
    $("play-again").textContent = T.play_again;
    $("rematch").textContent = mineSeats().length ? T.rematch : T.watch_rematch;
    $("rematch").hidden = !mineSeats().length && !state.rematch;
    $("rematch-note").hidden = !state.rematch;
    $("rematch-note").textContent = state.rematch ? T.rematch_ready : "";
    $("review-button").textContent = T.review;
  }

  // the review: what each decision cost, every player's total and biggest mistakes, the turns' costs on the sheet
  function drawReview() {
    const box = $("review");
    box.hidden = !review;
    if (!review) return;
    $("review-title").textContent = T.review_title;
    $("review-note").textContent = review.explanation;
    const players = $("review-players");
    players.replaceChildren();
    review.players.forEach((p) => {
      if (!p.summary) return;
      players.append(el("p", {class: "review-summary", text: p.summary}));
      if (p.heading) {
        players.append(el("p", {class: "review-heading", text: p.heading}),
                       el("ol", {class: "review-mistakes"}, ...p.mistakes.map((m) => el("li", {text: m}))));
      }
    });
    $("review-moves-title").textContent = T.review_moves;
    const names = state.players.map((p) => p.name);
    $("review-list").replaceChildren(...review.decisions.map((d) => el("li", {
      class: d.better ? "worse" : "",
      text: fmt(d.better ? T.review_line_better : T.review_line,
                {round: d.round, player: names[d.player], dice: d.dice.join(" "), made: d.made, best: d.best, cost: d.cost})})));
  }

  $("review-button").addEventListener("click", async () => {
    const button = $("review-button");
    button.disabled = true;
    button.textContent = T.review_loading;
    try {
      const res = await fetch(`/api/tables/${TABLE}/review?lang=${boot.lang}${proof}`);
      const data = await res.json();
      if (!res.ok) throw new Error(data.error || res.statusText);
      review = data;
      drawSheet(mySeat());
      drawReview();
      $("review").focus();
    } catch (err) { refuse(err.message); } finally { button.disabled = false; button.textContent = T.review; }
  });

  function drawMe() {
    const seats = Object.keys(mine).map(Number).filter((s) => s < state.players.length);
    const me = $("me");
    if (boot.watch || !seats.length) {
      me.textContent = T.watching;
      $("personal").hidden = true;
    } else {
      me.textContent = fmt(T.you_play, {player: seats.map((s) => state.players[s].name).join(", ")});
      const s = seats[0];
      $("personal").hidden = false;
      $("seat-link").value = `${boot.links.table}#seat=${s}&token=${mine[String(s)]}`;
    }
  }

  // keyboard focus stays where it was across redraws (or moves to the next sensible control)
  let focusKey = null;
  function keepFocus(key) { focusKey = key; }
  function restoreFocus() {
    const key = focusKey;
    if (!key) return;
    const target = document.querySelector(`[data-focus="${key}"]`);
    if (target && !target.disabled && !target.hidden && target.offsetParent !== null) { target.focus(); return; }
    if (busy) return;  // the control comes back when the answer is in
    const next = [$("roll"), document.querySelector("#dice .die:not([disabled])"),
                  document.querySelector("#sheet button.write")]
      .find((b) => b && !b.disabled && !b.hidden && b.offsetParent !== null);
    focusKey = null;
    if (next) next.focus();
    else $("turn").focus();
  }
  document.addEventListener("focusin", (e) => {
    const k = e.target.closest("[data-focus]");
    focusKey = k ? k.dataset.focus : null;
  });

  function draw() {
    const me = mySeat();
    if (me === null) selected.clear();
    drawTurn(me);
    drawDice(me);
    drawControls(me);
    drawSheet(me);
    drawRanking();
    drawReview();
    drawMe();
    document.body.classList.toggle("my-turn", me !== null);
    document.body.classList.toggle("busy", busy);
    document.title = (me !== null ? "● " : "") + M.name + " · rulebook";  // a sign in a background tab
    drawSeatNotes();
    drawTimer();
    restoreFocus();
  }

  // people coming and going ------------------------------------------------------------
  function mineSeats() { return Object.keys(mine).map(Number).filter((s) => s < state.players.length); }
  function drawSeatNotes() {
    const robot = mineSeats().filter((s) => state.players[s].robot);
    $("robot").hidden = boot.watch || !robot.length;
    if (robot.length) {
      $("robot-text").textContent = fmt(T.robot_plays, {player: state.players[robot[0]].name});
      $("take-back").textContent = T.take_back;
    }
    const standIn = (state.stand_in || []).map((i) => state.players[i].name);
    $("stand-in").hidden = !standIn.length;
    $("stand-in").textContent = standIn.length ? fmt(T.stand_in, {player: standIn.join(", ")}) : "";
    drawReturn();
    drawVotes();
    drawStart();
  }

  // back from the computer: what it did for me while I was away
  const wasRobot = {};
  function drawReturn() {
    mineSeats().forEach((s) => {
      const now = state.players[s].robot;
      if (wasRobot[s] && !now) {
        const moves = [...$("log").children].filter((li) => li.classList.contains("by-computer")
                                                      && li.classList.contains("p" + (s % 8)) && Number(li.dataset.seq) > wasRobot[s].from);
        const note = $("returned");
        note.replaceChildren(el("p", {text: fmt(one(T.returned, moves.length), {n: moves.length})}));
        if (moves.length) note.append(el("ul", {}, ...moves.reverse().map((li) => el("li", {text: li.textContent}))));
        note.hidden = false;
      }
      if (now && !wasRobot[s]) wasRobot[s] = {from: booted ? state.seq - 1 : 0};  // (on arrival: all it did)
      if (!now) delete wasRobot[s];
    });
  }
  // any click or key of mine on my own page takes my seat back from the computer at once
  let takingBack = false;
  async function takeBack() {
    const s = mineSeats().find((i) => state.players[i].robot);
    if (s === undefined || takingBack) return;
    takingBack = true;
    try {
      const res = await Rulebook.post(`/api/tables/${TABLE}/back`, {seat: s, token: mine[String(s)]});
      setState(res.state);
    } catch (err) { refuse(err.message); } finally { takingBack = false; }
  }
  document.addEventListener("pointerdown", () => { if (!boot.watch) takeBack(); }, true);
  document.addEventListener("keydown", () => { if (!boot.watch) takeBack(); }, true);

  // a table without a timer: the others vote to let the computer play an absent seat, or to end the game
  function drawVotes() {
    const box = $("votes");
    const me = mineSeats();
    const absent = state.players.map((p, i) => i).filter((i) => {
      const p = state.players[i];
      return p.kind === "human" && !p.open && !p.present && !p.robot && !me.includes(i);
    });
    box.hidden = boot.watch || !me.length || state.terminal || state.turn_timer > 0 || !absent.length;
    if (box.hidden) return;
    const voted = (key) => (state.votes[key] || []);
    const row = (key, label, body) => {
      const n = voted(key).length;
      const b = el("button", {type: "button", class: "button small", "data-vote": key, "data-focus": "vote-" + key,
                              disabled: voted(key).includes(me[0]), text: label,
                              onclick: () => vote(body)});
      return el("li", {}, b, n ? " " + fmt(one(T.votes_n, n), {n}) : "");
    };
    box.replaceChildren(el("p", {text: fmt(T.vote_why, {player: absent.map((i) => state.players[i].name).join(", ")})}),
      el("ul", {}, ...absent.map((i) => row("robot:" + i, fmt(T.vote_robot, {player: state.players[i].name}),
                                            {vote: "robot", for: i})),
         row("end", T.vote_end, {vote: "end"})));
  }
  async function vote(body) {
    const s = mineSeats()[0];
    try {
      const res = await Rulebook.post(`/api/tables/${TABLE}/vote`, {seat: s, token: mine[String(s)], ...body});
      setState(res.state);
    } catch (err) { refuse(err.message); }
  }
  // a table whose clock waits for its seats: a player may start it with the computer in the empty seats
  function drawStart() {
    const box = $("start");
    const open = state.players.filter((p) => p.open && !p.reserved).length;
    box.hidden = boot.watch || !mineSeats().length || state.started || state.terminal || !open;
    if (!box.hidden) { $("start-text").textContent = T.waiting_start; $("start-now").textContent = T.start_now; }
  }
  $("start-now").addEventListener("click", async () => {
    const s = mineSeats()[0];
    try {
      const res = await Rulebook.post(`/api/tables/${TABLE}/start`, {seat: s, token: mine[String(s)]});
      setState(res.state);
    } catch (err) { refuse(err.message); }
  });

  // the links a player may pass on: watch, and one invite per open seat (a new one revokes the old)
  function drawInvites(links) {
    $("watch-link").value = links.watch;
    if ((links.invites || []).length && !drawInvites.shown) { $("invite").open = true; drawInvites.shown = true; }  // seats to fill: shown open
    const list = $("invite-links");
    list.replaceChildren();
    (links.invites || []).forEach((inv, k) => {
      const id = "invite-" + inv.seat;
      const copy = el("button", {type: "button", class: "button small copy", "data-for": id, text: T.copy});
      copy.addEventListener("click", () => copyLink(copy));
      list.append(el("p", {class: "invite-row"},
        el("span", {class: "label", id: id + "-label", text: fmt(T.invite_for, {seat: inv.seat + 1, player: inv.name})}),
        el("span", {class: "link-row"}, el("input", {readonly: true, id, value: inv.url, "aria-labelledby": id + "-label"}),
           copy, el("button", {type: "button", class: "button small", "data-revoke": inv.seat, text: T.new_invite,
                               onclick: () => revoke(inv.seat)}))));
    });
  }
  async function revoke(seat) {
    const s = mineSeats()[0];
    try {
      const res = await Rulebook.post(`/api/tables/${TABLE}/invite`, {seat: s, token: mine[String(s)], for: seat});
      drawInvites(res.links);
    } catch (err) { refuse(err.message); }
  }
  function drawTimer() {
    const t = $("timer");
    if (!state.turn_ends || state.terminal) { t.hidden = true; return; }
    const left = Math.max(0, Math.ceil(state.turn_ends - (Date.now() / 1000 + clockOffset)));
    t.hidden = false;
    t.textContent = fmt(T.time_left, {seconds: left});
    t.classList.toggle("bad", left <= 10);
  }
  setInterval(drawTimer, 1000);
  $("take-back").addEventListener("click", takeBack);
  $("rematch").addEventListener("click", async () => {
    const s = mineSeats()[0];
    const key = boot.key ? `&key=${encodeURIComponent(boot.key)}` : "";  // a rematch is watched with the same key
    if (s === undefined) { if (state.rematch) location.href = `/t/${state.rematch}/watch?lang=${boot.lang}${key}`; return; }
    if (state.rematch && Object.keys(Rulebook.seats(state.rematch)).length) {  // asked before: my seat there
      location.href = `/t/${state.rematch}?lang=${boot.lang}`;
      return;
    }
    try {
      const res = await Rulebook.post(`/api/tables/${TABLE}/rematch`, {seat: s, token: mine[String(s)]});
      Rulebook.remember(res.table, res.seat, res.token);
      location.href = `/t/${res.table}?lang=${boot.lang}`;
    } catch (err) { refuse(err.message); }
  });

  function setState(next) {
    if (next.seq < state.seq) return;
    const before = state;
    state = next;
    const me = mySeat();
    // after a roll of my own, the dice I kept stay selected (the dice are shown sorted)
    if (me !== null && state.step && state.step.kind === "keep" && (before.seq !== state.seq)) {
      selected.clear();
      shown();
      if (wasKept.length) lastHeld.forEach((i) => selected.add(i));
    }
    if (before.seq !== state.seq) theirPick = {seq: -1, dice: []};
    if (before.player !== state.player || before.seq !== state.seq) { hint = null; $("hint").hidden = true; }
    draw();
  }

  // acting -------------------------------------------------------------------------
  function refuse(message) {
    const r = $("refused");
    r.textContent = fmt(T.error, {message});
    r.hidden = false;
    clearTimeout(refuse.timer);
    refuse.timer = setTimeout(() => { r.hidden = true; }, 6000);
  }
  async function send(action) {
    // one move at a time, made in the position shown (the server carries each out once)
    const me = mySeat();
    if (me === null || busy) return false;
    busy = true;
    draw();
    try {
      const res = await Rulebook.post(`/api/tables/${TABLE}/act`,
                                      {seat: me, token: mine[String(me)], action, seq: state.seq});
      $("refused").hidden = true;
      for (const ev of res.events) if (ev.seq > lastSeq) { addEvent(ev); lastSeq = ev.seq; }
      busy = false;
      setState(res.state);
      return true;
    } catch (err) {
      refuse(err.message);
      if (err.status === 403) Rulebook.forget(TABLE, me);
      if (err.status === 409 && err.data.state) { busy = false; setState(err.data.state); }
      return false;
    } finally {
      busy = false;
      draw();
    }
  }
  function keptFaces() {
    const faces = shown();
    return [...selected].sort((a, b) => a - b).map((i) => faces[i]).sort((a, b) => a - b);
  }
  function toggle(i) {
    if (selected.has(i)) selected.delete(i); else selected.add(i);
    const focused = document.activeElement && document.activeElement.closest && document.activeElement.closest(".die");
    drawDice(mySeat());
    if (focused) { keepFocus(focused.dataset.focus); restoreFocus(); }
    if (ws && ws.readyState === 1) ws.send(JSON.stringify({type: "select", dice: [...selected]}));
  }
  async function roll() {
    if (state.step && state.step.kind === "write") { await send("stop"); return; }  // the pass button
    if (state.step && state.step.kind === "bank") { await send("roll on"); return; }
    if ((M.groups || []).length) {  // dice that differ: each kept die by its group and face
      const faces = shown(), ids = (M.groups || []).flatMap((g) => Array(g.count).fill(g.id));
      const places = [...selected].sort((a, b) => a - b);
      await send(places.length ? "keep " + places.map((i) => ids[i] + ":" + faces[i]).join(" ") : "keep none");
      return;
    }
    const faces = keptFaces();
    await send(faces.length ? "keep " + faces.join(" ") : "keep none");
  }
  async function write(box) {
    if (busy || mySeat() === null) return;
    if (state.step.kind === "keep") {
      if (!(await send("stop"))) return;
    }
    await send("write " + box);
  }
  $("dice").addEventListener("click", (e) => {
    const d = e.target.closest(".die");
    if (!d || d.disabled) return;
    toggle(Number(d.dataset.index));
  });
  $("roll").addEventListener("click", roll);
  $("hint-button").addEventListener("click", async () => {
    const me = mySeat();
    if (me === null) return;
    const box = $("hint");
    try {
      hint = await Rulebook.post(`/api/tables/${TABLE}/hint`, {seat: me, token: mine[String(me)]});
    } catch (err) { refuse(err.message); return; }
    box.replaceChildren(el("p", {class: "hint-title", text: hint.optimal ? T.hint_optimal : T.hint_greedy}));
    const list = el("ol");
    hint.options.forEach((o) => {
      let label;
      if (o.type === "write") label = fmt(T.hint_write, {box: boxName[o.box] || o.box});
      else if (o.type === "announce") label = o.box ? announceText("announce_box", o.box) : T.announce_none;
      else if (o.type === "stop") label = T.hint_stop;
      else label = o.dice.length ? fmt(T.hint_keep, {dice: o.dice.join(" ")}) : T.hint_reroll;
      list.append(el("li", {}, el("span", {class: "hlabel", text: label}), " ",
                     el("span", {class: "hvalue", text: o.value.toLocaleString(document.documentElement.lang || "en",
                                                                       {minimumFractionDigits: 2, maximumFractionDigits: 2})}), " ",
                     el("button", {type: "button", class: "button small", text: T.hint_do,
                                   onclick: async () => {
                                     keepFocus("hint");  // focus stays on the hint button, not the page
                                     await (o.type === "write" ? write(o.box) : send(o.action));
                                     keepFocus("hint"); restoreFocus();
                                   }})));
    });
    box.append(list);
    box.hidden = false;
  });
  async function copyLink(b) {
    const input = $(b.dataset.for);
    try { await navigator.clipboard.writeText(input.value); } catch (e) { input.select(); document.execCommand("copy"); }
    b.textContent = T.copied;
    setTimeout(() => { b.textContent = T.copy; }, 1500);
  }
  document.querySelectorAll("button.copy").forEach((b) => {
    b.textContent = T.copy;
    b.addEventListener("click", () => copyLink(b));
  });
  drawInvites(boot.links);
  // the single-key shortcuts can be turned off (WCAG 2.1.4); the choice is kept in this browser
  const SHORTCUTS = "rulebook.shortcuts";
  const shortcutsBox = $("shortcuts-on");
  shortcutsBox.checked = localStorage.getItem(SHORTCUTS) !== "off";
  shortcutsBox.addEventListener("change", () => {
    try { localStorage.setItem(SHORTCUTS, shortcutsBox.checked ? "on" : "off"); } catch (e) { /* this page only */ }
  });
  document.addEventListener("keydown", (e) => {
    if (!shortcutsBox.checked) return;
    if (e.target.closest("input, textarea, select")) return;
    const me = mySeat();
    if (me === null || !state.step) return;
    if (e.ctrlKey || e.metaKey || e.altKey) return;
    if (state.step.kind === "keep" && /^[1-9]$/.test(e.key) && Number(e.key) <= state.dice.length && !busy) {
      toggle(Number(e.key) - 1);
    } else if (state.step.kind === "keep" && e.key.toLowerCase() === "r" && !busy) {
      e.preventDefault();
      roll();
    } else if (e.key.toLowerCase() === "h" && state.hints && !busy) {
      e.preventDefault();
      $("hint-button").click();
    } else if (e.key.toLowerCase() === "w" && !busy) {  // to the score sheet's first box to write in
      const b = document.querySelector("#sheet button.write");
      if (b) { e.preventDefault(); b.focus(); }
    }
  });

  // the live stream -----------------------------------------------------------------
  let delay = 500;
  function connect() {
    const proto = location.protocol === "https:" ? "wss:" : "ws:";
    ws = new WebSocket(`${proto}//${location.host}/ws/tables/${TABLE}?since=${lastSeq}&lang=${document.documentElement.lang}${proof}`);
    ws.onopen = () => {
      delay = 500;
      $("conn").hidden = true;
      const s = boot.watch ? undefined : mineSeats()[0];
      if (s !== undefined) ws.send(JSON.stringify({type: "seat", seat: s, token: mine[String(s)]}));  // I am here
    };
    ws.onmessage = (m) => {
      const msg = JSON.parse(m.data);
      if (msg.at) clockOffset = msg.at - Date.now() / 1000;
      if (msg.type === "error") { refuse(msg.error); return; }
      if (msg.type === "select") {
        if (msg.seq === state.seq && mySeat() === null) { theirPick = {seq: msg.seq, dice: msg.dice}; drawDice(null); }
        return;
      }
      if (msg.type === "hello") {
        for (const ev of msg.events) if (ev.seq > lastSeq) { addEvent(ev); lastSeq = ev.seq; }
        setState(msg.state);
        return;
      }
      if (msg.event && msg.event.seq > lastSeq) { addEvent(msg.event); lastSeq = msg.event.seq; }
      if (msg.state) setState(msg.state);
    };
    ws.onclose = (e) => {
      if (e.code >= 4400 && e.code < 4500) return;  // the table does not exist: no point in retrying
      $("conn").hidden = false;
      $("conn").textContent = T.offline;
      setTimeout(connect, delay);
      delay = Math.min(delay * 2, 5000);
    };
  }

  let booted = false;
  boot.events.forEach(addEvent);
  wasKept = [];
  for (const ev of boot.events) { if (ev.type === "roll") wasKept = ev.kept || []; if (ev.type === "write") wasKept = []; }
  rolled = false;
  setState(state);
  draw();
  booted = true;
  connect();
})();
