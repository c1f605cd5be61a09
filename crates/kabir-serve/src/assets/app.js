// kabir serve: quicker moving around. Every page works without this script (links and
// forms); with it, moving to another position or move replaces the page's main part in
// place, the arrow keys step, and the explorer's arrows on the board can be clicked.
"use strict";

(function () {
  // The explorer's line to come back to: the longest line visited that extends the
  // current one, so that the right arrow key retraces it after going back.
  let ahead = null;
  let pending = null;

  const main = () => document.getElementById("main");

  function movesOf(m) {
    return (m.dataset.moves || "").split(" ").filter(Boolean);
  }

  function settle(listScroll) {
    const m = main();
    if (!m) return;
    if (m.dataset.page === "explore") {
      const cur = movesOf(m);
      const base = m.dataset.base || "";
      const extends_ = ahead && ahead.base === base && ahead.moves.length >= cur.length &&
        cur.every((s, i) => ahead.moves[i] === s);
      if (!extends_) ahead = { base: base, moves: cur };
    }
    const list = document.getElementById("movelist");
    if (list) {
      if (listScroll !== undefined) list.scrollTop = listScroll;
      const cur = list.querySelector("a.current");
      if (cur) {
        const top = cur.offsetTop - list.offsetTop;
        if (top < list.scrollTop || top > list.scrollTop + list.clientHeight - 30) {
          list.scrollTop = Math.max(0, top - list.clientHeight / 2);
        }
      }
    }
    prepareBoard();
  }

  // The board stays in view when a move is chosen. On a wide window the style sheet keeps it
  // there (sticky); on a narrow one the board is above the moves, and a move chosen low in
  // the table would change a board scrolled out of sight.
  function boardIntoView() {
    const board = document.querySelector("#main .board");
    if (!board) return;
    const r = board.getBoundingClientRect();
    if (r.top < 0 || r.bottom > window.innerHeight) {
      board.scrollIntoView({ block: r.height > window.innerHeight ? "start" : "nearest" });
    }
  }

  async function go(href, push) {
    const url = new URL(href, location.href);
    if (pending) pending.abort();
    const ctl = new AbortController();
    pending = ctl;
    let doc;
    try {
      const res = await fetch(url, { signal: ctl.signal, headers: { Accept: "text/html" } });
      doc = new DOMParser().parseFromString(await res.text(), "text/html");
    } catch (e) {
      if (e.name !== "AbortError") location.href = url.href;
      return;
    }
    if (pending !== ctl) return;
    pending = null;
    const next = doc.getElementById("main");
    const old = main();
    if (!next || !old) {
      location.href = url.href;
      return;
    }
    const list = document.getElementById("movelist");
    const keep = list && next.dataset.page === "game" ? list.scrollTop : undefined;
    old.replaceWith(document.adoptNode(next));
    document.title = doc.title;
    if (push) history.pushState(null, "", url.href);
    settle(keep);
    boardIntoView();
  }

  function inPlace(url) {
    return url.origin === location.origin && /^\/(explore|game\/)/.test(url.pathname);
  }

  document.addEventListener("click", function (ev) {
    if (ev.defaultPrevented || ev.button !== 0 || ev.metaKey || ev.ctrlKey || ev.shiftKey || ev.altKey) return;
    const target = ev.target instanceof Element ? ev.target : null;
    if (!target) return;
    const m = main();
    const arrow = target.closest("path.arrow");
    if (arrow && m && m.dataset.page === "explore") {
      const from = CSS.escape(arrow.dataset.from || "");
      const to = CSS.escape(arrow.dataset.to || "");
      const a = m.querySelector('table.moves a[data-from="' + from + '"][data-to="' + to + '"]');
      if (a) {
        ev.preventDefault();
        go(a.href, true);
      }
      return;
    }
    const a = target.closest("a[href]");
    if (!a || a.target || a.hasAttribute("download")) return;
    const url = new URL(a.href, location.href);
    if (!inPlace(url)) return;
    ev.preventDefault();
    go(url.href, true);
  });

  // A form's URL without its empty fields: `?player=Ali` rather than `?player=Ali&event=&...`.
  // (Built here rather than by disabling the empty fields, which would stay disabled when
  // the browser brings the page back from its history.)
  function formUrl(form) {
    const url = new URL(form.action, location.href);
    for (const [k, v] of new FormData(form)) {
      const s = String(v).trim();
      if (s !== "") url.searchParams.append(k, s);
    }
    return url;
  }

  document.addEventListener("submit", function (ev) {
    const form = ev.target;
    if (!(form instanceof HTMLFormElement) || form.method.toLowerCase() !== "get") return;
    const url = formUrl(form);
    ev.preventDefault();
    if (form.classList.contains("fen")) go(url.href, true);
    else location.assign(url.href);
  });

  window.addEventListener("popstate", function () {
    go(location.href, false);
  });

  function follow(id, ev) {
    const a = document.getElementById(id);
    if (a && a.href) {
      ev.preventDefault();
      go(a.href, true);
    }
  }

  function forward(ev) {
    const m = main();
    const cur = movesOf(m);
    if (ahead && ahead.base === (m.dataset.base || "") && ahead.moves.length > cur.length &&
        cur.every((s, i) => ahead.moves[i] === s)) {
      const url = new URL(ahead.base, location.href);
      url.searchParams.set("moves", ahead.moves.slice(0, cur.length + 1).join(" "));
      ev.preventDefault();
      go(url.href, true);
      return;
    }
    follow("forward", ev);
  }

  document.addEventListener("keydown", function (ev) {
    if (ev.altKey || ev.ctrlKey || ev.metaKey) return;
    const t = ev.target;
    if (t instanceof Element && (t.isContentEditable || /^(INPUT|SELECT|TEXTAREA|BUTTON)$/.test(t.tagName))) return;
    const m = main();
    if (!m) return;
    const page = m.dataset.page;
    if (page === "explore") {
      if (ev.key === "ArrowLeft") follow("back", ev);
      else if (ev.key === "ArrowRight") forward(ev);
      else if (ev.key === "Home") follow("start", ev);
      else if (ev.key === "f") follow("flip", ev);
    } else if (page === "game") {
      if (ev.key === "ArrowLeft") follow("prev", ev);
      else if (ev.key === "ArrowRight") follow("next", ev);
      else if (ev.key === "Home") follow("first", ev);
      else if (ev.key === "End") follow("last", ev);
      else if (ev.key === "f") follow("flip", ev);
    }
  });

  // ----- Playing on the explorer's board; choosing a variation in the viewer -------------
  // The explorer's page carries its position's legal moves (`#legal-moves`, whose
  // `data-moves` holds from, to, SAN and a label each, from the server's move generator). A piece of the side to move is
  // clicked or dragged, its targets are marked, and a target plays the move by going to the
  // explorer's URL with its SAN added to the line, whether or not any game played it.

  const SVG_NS = "http://www.w3.org/2000/svg";
  // The piece chosen: { svg, from, press }, where press follows the pointer while it is down.
  let chosen = null;
  // The click that ends a press the board handled, which must not also follow an arrow.
  let swallowClick = false;

  function explorerBoard() {
    const m = main();
    if (!m || m.dataset.page !== "explore") return null;
    return m.querySelector(".explorer-board svg.kabir-diagram");
  }

  function legalMoves() {
    const el = document.getElementById("legal-moves");
    if (!el) return [];
    if (!el.parsedMoves) {
      try {
        el.parsedMoves = JSON.parse(el.dataset.moves || "[]");
      } catch (e) {
        el.parsedMoves = [];
      }
    }
    return el.parsedMoves;
  }

  function squareRect(svg, name) {
    return svg.querySelector('rect.square[data-square="' + CSS.escape(name) + '"]');
  }

  function pieceOn(svg, name) {
    return svg.querySelector('g.piece[data-square="' + CSS.escape(name) + '"]');
  }

  function cell(rect) {
    return {
      x: Number(rect.getAttribute("x")),
      y: Number(rect.getAttribute("y")),
      size: Number(rect.getAttribute("width")),
    };
  }

  // The square under a point of the screen, citadels included, whatever is drawn over it.
  function squareAt(svg, clientX, clientY) {
    const ctm = svg.getScreenCTM();
    if (!ctm) return null;
    const p = new DOMPoint(clientX, clientY).matrixTransform(ctm.inverse());
    for (const r of svg.querySelectorAll("rect.square")) {
      const c = cell(r);
      if (p.x >= c.x && p.x < c.x + c.size && p.y >= c.y && p.y < c.y + c.size) {
        return r.dataset.square;
      }
    }
    return null;
  }

  function movesFrom(from) {
    return legalMoves().filter((mv) => mv.from === from);
  }

  function isTarget(to) {
    return !!chosen && to !== chosen.from && movesFrom(chosen.from).some((mv) => mv.to === to);
  }

  function playUrl(san) {
    const m = main();
    const url = new URL(m.dataset.base || location.href, location.href);
    url.searchParams.set("moves", movesOf(m).concat([san]).join(" "));
    return url.href;
  }

  function closeChoice() {
    const box = document.getElementById("play-choice");
    if (box) box.remove();
  }

  function unchoose() {
    closeChoice();
    if (chosen && chosen.press) dropPiece(chosen.press);
    chosen = null;
    const svg = explorerBoard();
    if (!svg) return;
    svg.classList.remove("choosing");
    for (const g of svg.querySelectorAll("g.play-marks")) g.remove();
  }

  function svgElement(tag, attrs) {
    const e = document.createElementNS(SVG_NS, tag);
    for (const k in attrs) e.setAttribute(k, attrs[k]);
    return e;
  }

  // Marks the piece's square and each of its targets: a dot on an empty square, a ring
  // round a piece (a capture, or a king swap's partner).
  function choose(svg, from) {
    unchoose();
    const moves = movesFrom(from);
    const own = squareRect(svg, from);
    if (!moves.length || !own) return false;
    const layer = svgElement("g", { class: "play-marks" });
    const c = cell(own);
    layer.appendChild(svgElement("rect", {
      class: "chosen-square", "data-square": from, x: c.x, y: c.y, width: c.size, height: c.size,
      fill: "#3d7dca", "fill-opacity": "0.35",
    }));
    const seen = new Set();
    for (const mv of moves) {
      if (seen.has(mv.to)) continue;
      seen.add(mv.to);
      const r = squareRect(svg, mv.to);
      if (!r) continue;
      const t = cell(r);
      const cx = t.x + t.size / 2;
      const cy = t.y + t.size / 2;
      layer.appendChild(svgElement("circle", pieceOn(svg, mv.to) ? {
        class: "target ring", "data-square": mv.to, cx: cx, cy: cy, r: t.size * 0.45,
        fill: "none", stroke: "#14551e", "stroke-opacity": "0.6", "stroke-width": t.size * 0.08,
      } : {
        class: "target dot", "data-square": mv.to, cx: cx, cy: cy, r: t.size * 0.15,
        fill: "#14551e", "fill-opacity": "0.6",
      }));
    }
    // Under the pieces, so that a dragged piece passes over the marks.
    const pieces = svg.querySelector("g.pieces");
    if (pieces) svg.insertBefore(layer, pieces);
    else svg.appendChild(layer);
    // While a piece is chosen, a touch on the board moves it rather than the page.
    svg.classList.add("choosing");
    chosen = { svg: svg, from: from, press: null };
    return true;
  }

  // Plays the move from the chosen piece to `to`: at once if it is the only one between the
  // two squares, else after a choice between them (promotion pieces, a swap or not...).
  function playTo(to) {
    const moves = movesFrom(chosen.from).filter((mv) => mv.to === to);
    if (moves.length === 1) {
      const href = playUrl(moves[0].san);
      unchoose();
      go(href, true);
    } else if (moves.length > 1) {
      offerChoice(moves);
    }
  }

  function offerChoice(moves) {
    closeChoice();
    const box = document.createElement("div");
    box.id = "play-choice";
    box.className = "play-choice";
    box.setAttribute("role", "dialog");
    box.setAttribute("aria-label", "Choose the move");
    const what = document.createElement("p");
    what.textContent = "Play:";
    box.appendChild(what);
    for (const mv of moves) {
      const b = document.createElement("button");
      b.type = "button";
      b.className = "play-option";
      b.dataset.san = mv.san;
      b.title = mv.san;
      b.textContent = mv.label;
      b.addEventListener("click", function () {
        const href = playUrl(mv.san);
        unchoose();
        go(href, true);
      });
      box.appendChild(b);
    }
    const cancel = document.createElement("button");
    cancel.type = "button";
    cancel.className = "play-cancel";
    cancel.title = "Cancel (Esc)";
    cancel.setAttribute("aria-label", "Cancel");
    cancel.textContent = "\u00d7";
    cancel.addEventListener("click", unchoose);
    box.appendChild(cancel);
    const board = chosen.svg.closest(".explorer-board") || chosen.svg;
    board.after(box);
    const first = box.querySelector("button");
    if (first) first.focus();
  }

  // A dragged piece follows the pointer, drawn over everything, and goes back to its own
  // place in the drawing when it is dropped.
  function liftPiece(press) {
    const g = press.piece;
    if (!g) return;
    press.home = { parent: g.parentNode, next: g.nextSibling };
    g.classList.add("dragging");
    press.svg.appendChild(g);
  }

  function dropPiece(press) {
    const g = press.piece;
    if (!g || !press.home) return;
    g.removeAttribute("transform");
    g.classList.remove("dragging");
    if (press.home.parent && press.home.parent.isConnected) {
      press.home.parent.insertBefore(g, press.home.next);
    }
    press.home = null;
  }

  document.addEventListener("pointerdown", function (ev) {
    if (ev.button !== 0) return;
    const target = ev.target instanceof Element ? ev.target : null;
    if (!target || target.closest("#play-choice")) return;
    const svg = explorerBoard();
    if (!svg || !svg.contains(target)) {
      if (chosen) unchoose();
      return;
    }
    if (chosen && chosen.svg !== svg) chosen = null;
    closeChoice();
    const sq = squareAt(svg, ev.clientX, ev.clientY);
    if (sq && isTarget(sq)) {
      ev.preventDefault();
      swallowClick = true;
      playTo(sq);
      return;
    }
    const movable = sq && movesFrom(sq).length > 0 && pieceOn(svg, sq);
    // With no piece chosen, an arrow drawn over a piece still plays its own move.
    if (!movable || (!chosen && target.closest("path.arrow"))) {
      if (chosen) {
        swallowClick = true;
        unchoose();
      }
      return;
    }
    ev.preventDefault();
    swallowClick = true;
    const again = !!chosen && chosen.from === sq;
    if (!again) choose(svg, sq);
    chosen.press = {
      svg: svg, piece: pieceOn(svg, sq), id: ev.pointerId, x: ev.clientX, y: ev.clientY,
      dragging: false, again: again, home: null,
    };
  });

  document.addEventListener("pointermove", function (ev) {
    const press = chosen && chosen.press;
    if (!press || press.id !== ev.pointerId) return;
    const dx = ev.clientX - press.x;
    const dy = ev.clientY - press.y;
    if (!press.dragging) {
      if (Math.abs(dx) + Math.abs(dy) < 6) return;
      press.dragging = true;
      liftPiece(press);
    }
    const ctm = press.svg.getScreenCTM();
    const scale = ctm && ctm.a ? ctm.a : 1;
    if (press.piece) press.piece.setAttribute("transform", "translate(" + dx / scale + " " + dy / scale + ")");
    ev.preventDefault();
  });

  document.addEventListener("pointerup", function (ev) {
    const press = chosen && chosen.press;
    if (!press || press.id !== ev.pointerId) return;
    chosen.press = null;
    if (press.dragging) {
      dropPiece(press);
      const sq = squareAt(press.svg, ev.clientX, ev.clientY);
      if (sq && isTarget(sq)) playTo(sq);
      else if (sq !== chosen.from) unchoose();
    } else if (press.again) {
      unchoose();
    }
  });

  document.addEventListener("pointercancel", function (ev) {
    const press = chosen && chosen.press;
    if (!press || press.id !== ev.pointerId) return;
    chosen.press = null;
    dropPiece(press);
  });

  // Runs before the page's own click handler (in the capture phase), which would follow an
  // arrow under the pointer.
  document.addEventListener("click", function (ev) {
    if (!swallowClick) return;
    swallowClick = false;
    const svg = explorerBoard();
    const target = ev.target instanceof Element ? ev.target : null;
    if (!svg || (target && svg.contains(target))) {
      ev.preventDefault();
      ev.stopPropagation();
    }
  }, true);

  // The link of the moves table that an arrow of the board shows.
  function arrowLink(arrow) {
    const m = main();
    if (!m) return null;
    const from = CSS.escape(arrow.dataset.from || "");
    const to = CSS.escape(arrow.dataset.to || "");
    return m.querySelector('table.moves a[data-from="' + from + '"][data-to="' + to + '"]');
  }

  // After each page: the arrows become links for the keyboard and screen readers, the
  // pieces that can move say so, and nothing stays chosen.
  function prepareBoard() {
    chosen = null;
    swallowClick = false;
    closeChoice();
    const svg = explorerBoard();
    if (!svg) return;
    const hint = document.querySelector("#main .play-hint");
    if (hint) hint.hidden = false;
    for (const mv of legalMoves()) {
      const g = pieceOn(svg, mv.from);
      if (g) g.classList.add("movable");
    }
    for (const arrow of svg.querySelectorAll("path.arrow")) {
      const a = arrowLink(arrow);
      if (!a) continue;
      const label = "Play " + a.textContent.trim();
      arrow.setAttribute("tabindex", "0");
      arrow.setAttribute("role", "link");
      arrow.setAttribute("aria-label", label);
      const title = svgElement("title", {});
      title.textContent = label;
      arrow.appendChild(title);
    }
  }

  // Marks the arrow of a row of the moves table (none: unmarks them all).
  function markArrow(a) {
    const svg = explorerBoard();
    if (!svg) return;
    for (const p of svg.querySelectorAll("path.arrow.hovered")) p.classList.remove("hovered");
    if (!a) return;
    const from = CSS.escape(a.dataset.from || "");
    const to = CSS.escape(a.dataset.to || "");
    for (const p of svg.querySelectorAll('path.arrow[data-from="' + from + '"][data-to="' + to + '"]')) {
      p.classList.add("hovered");
    }
  }

  function rowLink(ev) {
    const t = ev.target instanceof Element ? ev.target : null;
    const row = t && t.closest("#main table.moves tbody tr");
    return row ? row.querySelector("a[data-from]") : null;
  }

  document.addEventListener("mouseover", function (ev) {
    if (explorerBoard()) markArrow(rowLink(ev));
  });
  document.addEventListener("focusin", function (ev) {
    if (explorerBoard()) markArrow(rowLink(ev));
  });

  // The viewer: ↑ ↓ move the choice of the next move between the line and its variations;
  // the forward button (and →) then play the one chosen.
  function chooseNext(step, ev) {
    const box = document.getElementById("next-choice");
    if (!box) return;
    const items = Array.from(box.querySelectorAll("a.choice"));
    if (items.length < 2) return;
    ev.preventDefault();
    let i = items.findIndex((a) => a.classList.contains("chosen"));
    i = Math.min(items.length - 1, Math.max(0, (i < 0 ? 0 : i) + step));
    const href = items[i].getAttribute("href");
    items.forEach(function (a, k) {
      a.classList.toggle("chosen", k === i);
      if (k === i) a.setAttribute("aria-current", "true");
      else a.removeAttribute("aria-current");
    });
    const next = document.getElementById("next");
    if (next) next.setAttribute("href", href);
    for (const mv of document.querySelectorAll("#movelist a.mv")) {
      mv.classList.toggle("next-chosen", mv.getAttribute("href") === href);
    }
  }

  document.addEventListener("keydown", function (ev) {
    if (ev.altKey || ev.ctrlKey || ev.metaKey) return;
    const t = ev.target instanceof Element ? ev.target : null;
    if (ev.key === "Escape" && (chosen || document.getElementById("play-choice"))) {
      unchoose();
      ev.preventDefault();
      return;
    }
    if (t && t.matches("path.arrow") && (ev.key === "Enter" || ev.key === " ")) {
      const a = arrowLink(t);
      if (a) {
        ev.preventDefault();
        go(a.href, true);
      }
      return;
    }
    if (t && (t.isContentEditable || /^(INPUT|SELECT|TEXTAREA|BUTTON)$/.test(t.tagName))) return;
    const m = main();
    if (!m || m.dataset.page !== "game") return;
    if (ev.key === "ArrowUp") chooseNext(-1, ev);
    else if (ev.key === "ArrowDown") chooseNext(1, ev);
  });

  settle();
})();

// Copy buttons: the position string (FEN) and the game text to the clipboard. They are
// hidden until this script marks the page (`html.can-copy`); without it the text is still on
// the page to select. The page may be served over plain http to another machine, where the
// clipboard API is missing: then a hidden text area is selected and copied instead.
(function () {
  document.documentElement.classList.add("can-copy");

  function textOf(button) {
    if (button.dataset.copy !== undefined) return button.dataset.copy;
    const el = document.getElementById(button.dataset.copyFrom || "");
    if (!el) return null;
    if ("value" in el && typeof el.value === "string") return el.value;
    return el.textContent;
  }

  function copyBySelection(text, button) {
    const area = document.createElement("textarea");
    area.value = text;
    area.setAttribute("readonly", "");
    area.className = "copy-buffer";
    document.body.appendChild(area);
    area.select();
    area.setSelectionRange(0, text.length);
    let ok = false;
    try {
      ok = document.execCommand("copy");
    } catch (e) {
      ok = false;
    }
    area.remove();
    button.focus();
    return ok;
  }

  async function copyText(text, button) {
    if (navigator.clipboard && window.isSecureContext) {
      try {
        await navigator.clipboard.writeText(text);
        return true;
      } catch (e) {
        // Refused (no permission, the page not focused): the old way may still work.
      }
    }
    return copyBySelection(text, button);
  }

  const timers = new WeakMap();

  function feedback(button, ok) {
    if (!button.dataset.label) button.dataset.label = button.textContent;
    button.textContent = ok ? "Copied" : "Copy failed: select the text";
    button.classList.toggle("copied", ok);
    clearTimeout(timers.get(button));
    timers.set(button, setTimeout(function () {
      button.textContent = button.dataset.label;
      button.classList.remove("copied");
    }, 1500));
  }

  document.addEventListener("click", async function (ev) {
    const target = ev.target instanceof Element ? ev.target : null;
    const button = target && target.closest("button.copy");
    if (!button) return;
    ev.preventDefault();
    const text = textOf(button);
    if (text === null) return;
    const ok = await copyText(text, button);
    feedback(button, ok);
    // Told to the page, so that whatever watches it (a test, another script) knows when the
    // copy is done and whether it worked.
    button.dispatchEvent(new CustomEvent("kabir-copied", { bubbles: true, detail: { ok: ok } }));
  });
})();
