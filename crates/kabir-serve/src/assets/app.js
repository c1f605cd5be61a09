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
