// Keyboard shortcuts for the cluster strips and the answer list, and the overlay listing every shortcut (H).
// Loaded after app.js, whose functions (mark, openMembers) and state it uses; app.js keeps the answer keys
// (S, D, ? or K, U). H shows the overlay; Esc closes it, or the Download menu. One cluster strip is *selected*
// (outlined): [ and ] change it, a click on a strip selects it.
"use strict";

let selectedCluster = null;

function strips() {
  return Array.from(document.querySelectorAll("#strips .strip"));
}

function selectedStrip() {
  // the selected cluster's strip; the first strip when it is gone (an undo, a move) or none was chosen
  const all = strips();
  return all.find((s) => Number(s.dataset.cluster) === selectedCluster) || all[0] || null;
}

function showSelection() {
  const strip = selectedStrip();
  for (const s of strips()) {
    s.classList.toggle("selected", s === strip);
    if (s === strip) s.setAttribute("aria-current", "true");
    else s.removeAttribute("aria-current");
  }
}

function select(strip) {
  if (!strip) return;
  selectedCluster = Number(strip.dataset.cluster);
  showSelection();
  strip.scrollIntoView({block: "nearest"});
}

function step(by) {
  const all = strips();
  if (!all.length) return;
  const at = all.indexOf(selectedStrip());
  select(all[(at + by + all.length) % all.length]);
}

let pointed = null;  // the member tile under the pointer: what M moves

function moveList() {
  // the "Move to…" list of the focused tile, else the one under the pointer, else the selected strip's first
  const focused = document.activeElement && document.activeElement.closest(".rep");
  const strip = selectedStrip();
  const tile = focused || (pointed && pointed.isConnected ? pointed : strip && strip.querySelector(".rep"));
  return tile ? tile.querySelector("select.move-to") : null;
}

function openMoveList() {
  const list = moveList();
  if (!list) return;
  list.scrollIntoView({block: "nearest"});
  list.focus();
  try {
    list.showPicker();  // the list opens; arrows and Enter choose, Esc closes it
  } catch (err) {
    // a browser without showPicker on a select: the list has the focus, arrows choose
  }
}

function toggleHelp(show) {
  const help = document.getElementById("keys-help");
  help.hidden = show === undefined ? !help.hidden : !show;
  if (!help.hidden) help.querySelector("button").focus();
}

const ACTIONS = {
  "[": () => step(-1),
  "]": () => step(1),
  p: () => selectedStrip() && mark(Number(selectedStrip().dataset.cluster), "pure"),
  c: () => selectedStrip() && mark(Number(selectedStrip().dataset.cluster), "complete"),
  a: () => selectedStrip() && openMembers(Number(selectedStrip().dataset.cluster), "typical"),
  m: openMoveList,
  y: () => {  // confirm a mark the page asks about (a large cluster's least typical members are shown)
    const yes = document.querySelector("#named:not([hidden]) .confirm-mark");
    if (yes) yes.click();
  },
  r: () => {
    const search = document.getElementById("review-q");
    search.scrollIntoView({block: "start"});
    search.focus();
  },
  h: () => toggleHelp(),
};

function closeDownloads() {
  // the open Download menu closes, and the focus goes back to its button; false when it was not open
  const menu = document.querySelector("details.downloads[open]");
  if (!menu) return false;
  menu.open = false;
  menu.querySelector("summary").focus();
  return true;
}

// capture phase: runs before app.js's answer keys, so that an open overlay swallows every key
window.addEventListener("keydown", (event) => {
  if (event.ctrlKey || event.metaKey || event.altKey) return;
  const help = document.getElementById("keys-help");
  if (!help.hidden) {
    if (event.key === "Escape" || event.key.toLowerCase() === "h") toggleHelp(false);
    if (event.key !== "Tab") {
      event.preventDefault();
      event.stopPropagation();
    }
    return;
  }
  if (event.key === "Escape" && closeDownloads()) {
    event.preventDefault();
    return;
  }
  if (stopped || event.target.closest("select, input, textarea")) return;
  const action = ACTIONS[event.key.length === 1 ? event.key.toLowerCase() : event.key];
  if (!action) return;
  event.preventDefault();
  event.stopPropagation();
  action();
}, true);

document.addEventListener("DOMContentLoaded", () => {
  const container = document.getElementById("strips");
  new MutationObserver(showSelection).observe(container, {childList: true});  // the strips are redrawn
  container.addEventListener("click", (event) => {
    const strip = event.target.closest(".strip");
    if (strip) select(strip);
  });
  document.addEventListener("pointerover", (event) => {
    const tile = event.target.closest && event.target.closest("#strips .rep, #members .rep");
    if (tile) pointed = tile;
  });
  const help = document.getElementById("keys-help");
  help.querySelector("button").addEventListener("click", () => toggleHelp(false));
  help.addEventListener("click", (event) => {
    if (event.target === help) toggleHelp(false);  // a click beside the list closes it
  });
  document.getElementById("keys-open").addEventListener("click", () => toggleHelp(true));
  document.addEventListener("click", (event) => {  // a click beside the open Download menu closes it
    const menu = document.querySelector("details.downloads[open]");
    if (menu && !menu.contains(event.target)) menu.open = false;
  });
});
