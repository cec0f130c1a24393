// The page of a linkwise human session. The server holds the state; this script
// shows it and sends the person's answers. Items are drawn by render.js (loaded first);
// item text is only ever set with textContent, never as markup.
"use strict";

const DROPPED_SHOWN = 5;
const MARK_WORDS = {pure: "pure", complete: "pure and complete"};
const KIND_WORDS = {pure: "marked pure", complete: "marked pure and complete", move: "moved", imported: "imported"};
let state = null;
let points = null;
let busy = false;
let stripsFor = null;  // the revision the cluster strips show
let loadingStrips = false;
let listed = [];  // the cluster numbers the strips show: where an item can be moved
const MEMBERS_PAGE = 50;  // a screenful of table lines (or of small images) and more
// the member view: which cluster, page, search and order it shows (null: closed), and what it shows now
let membersQuery = null;
let membersFor = null;
let loadingMembers = false;
let searchTimer = null;
let membersScroll = false;
const REVIEW_PAGE = 20;
let reviewQuery = {page: 0, q: ""};
let reviewFor = null;  // the revision and query the answer list shows
let loadingReview = false;
let stopped = false;  // Finish stopped the server: nothing on the page talks to it any more
let pollTimer = null;

const $ = (id) => document.getElementById(id);

function showMessage(text, done) {
  // a refusal, or with ``done`` the short confirmation of what an action did
  const box = $("message");
  box.textContent = text || "";
  box.hidden = !text;
  box.classList.toggle("done", !!done);
}

function fillPair(container, items) {
  container.replaceChildren(itemCard(items[0], "A", items[1]), itemCard(items[1], "B", items[0]));
  addToggles(container);
}

function renderDropped(dropped) {
  const entries = Object.entries(dropped || {});
  const box = $("dropped");
  box.hidden = !entries.length;
  if (!entries.length) return;
  const named = entries.slice(0, DROPPED_SHOWN).map(([column, why]) => column + " (" + why + ")");
  if (entries.length > DROPPED_SHOWN) named.push("and " + (entries.length - DROPPED_SHOWN) + " more");
  box.textContent = "Not used for clustering: " + named.join("; ") + ".";
}

function renderTeam(team) {
  // who this page answers for, and how often the answers of pairs asked twice agree
  $("team").hidden = !team;
  if (!team) return;
  const all = team.agreement[team.agreement.length - 1];
  const mine = team.agreement.find((row) => row.annotator === team.annotator);
  const agree = (row) => row && row.n_overlap ? Math.round(100 * row.agreement) + "% agreement, kappa " +
    row.kappa.toFixed(2) + " over " + row.n_overlap + " pairs asked twice" : "no pair asked twice yet";
  $("team").textContent = "You answer as " + (team.annotator || "an observer") + " (team: " +
    team.annotators.join(", ") + "). Yours: " + agree(mine) + ". Team: " + agree(all) + ".";
}

function clock(iso) {
  const t = new Date(iso);
  return isNaN(t) ? iso : t.toLocaleString();
}

function renderConflict(conflict) {
  const newest = conflict.answers[conflict.answers.length - 1];
  const samePair = conflict.answers.length === 2;
  $("conflict-text").textContent =
    "Your earlier answers imply “" + conflict.believed + "” for A and B; your latest answer says “" +
    newest.answer + "”. The clustering linkwise holds now puts them " +
    (conflict.clustering === "same" ? "in the same group. " : "in different groups. ") +
    (samePair ? "Which answer is right?" : "Which of these answers is wrong?");
  fillPair($("conflict-pair"), conflict.items);
  const list = $("conflict-answers");
  list.replaceChildren();
  conflict.answers.forEach((a, k) => {
    const li = el("li");
    const how = KIND_WORDS[a.kind] ? " (" + KIND_WORDS[a.kind] + ")" : "";
    const what = el("span", "what", a.ids[0] + " and " + a.ids[1] + ": " + a.answer + how);
    const when = el("span", "when", (a.new ? "just now, " : "") + (a.by ? a.by + ", " : "") + clock(a.answered_at));
    const button = el("button", "resolve");
    button.type = "button";
    // two answers on one pair: the person keeps one, the other is corrected
    const wrong = samePair ? conflict.answers[1 - k].seq : a.seq;
    button.textContent = samePair ? "Keep “" + a.answer + "”" : "This one is wrong";
    button.addEventListener("click", () => post("/api/resolve", {conflict: conflict.id, wrong: wrong},
      () => "Resolved: " + a.ids[0] + " and " + a.ids[1] + " “" + a.answer + "” " + (samePair ? "kept" : "was wrong")));
    li.append(what, when, button);
    list.append(li);
  });
}

function render(next) {
  state = next;
  $("preparing").hidden = true;
  $("n-answered").textContent = state.n_answered;
  // moves, marks and imports beside the questions, in the words of the terminal, the widget and the summary
  $("n-statements").textContent = state.counts.statements ? "; " + state.counts.statements : "";
  $("n-clusters").textContent = state.n_clusters;
  $("stability").textContent = state.stability.message;
  renderProgress(state);
  $("status").title = (state.stability.message + " " + state.outlook).trim();  // the line may be cut: all of it
  $("about").textContent = state.about.text;  // plain words; how the items are compared on hover
  $("about").title = state.about.details;
  $("ask").hidden = !state.question;
  $("conflict").hidden = !state.conflict;
  $("done").hidden = !state.done;
  $("wait").hidden = !(state.team && state.team.annotator && !state.question && !state.conflict && !state.done);
  renderTeam(state.team);
  $("join").hidden = !(state.team && state.team.open && !state.team.annotator);
  renderDropped(state.dropped_columns);
  // the session file was deleted or moved: where the answers are now (stays in view)
  $("file-notice").hidden = !state.notice;
  $("file-notice").textContent = state.notice || "";
  const changed = $("changed");  // the notice of a changed question goes once another question is shown
  if (!state.question || changed.dataset.pair !== state.question.pair.join("-")) changed.hidden = true;
  if (state.question) {
    $("prompt").textContent = "Question " + state.question.number + ": do A and B belong to the same group?";
    fillPair($("pair"), state.question.items);
    showHint(false);
  }
  if (state.conflict) renderConflict(state.conflict);
  for (const b of document.querySelectorAll("[data-undo]")) b.disabled = !state.can_undo;
  document.body.dataset.position = state.position;
  $("strips").disabled = !!state.conflict;  // the server refuses feedback until the contradiction is resolved
  drawScatter();
  loadClusters();
  loadMembers();
  loadReview();
}

async function loadClusters() {
  if (!state || stripsFor === state.revision || loadingStrips || stopped) return;
  loadingStrips = true;
  let view = null;
  try {
    const response = await fetch("/api/clusters");
    if (response.ok) view = await response.json();  // else the next poll asks again
  } catch (err) {
    // the server is gone; the next click reports it
  } finally {
    loadingStrips = false;
  }
  if (!view || !view.strips) return;
  stripsFor = view.revision;
  renderClusters(view);
  if (state && state.revision !== stripsFor) loadClusters();  // the state moved on while this loaded
}

function clusterName(c) {
  return "Cluster " + c;
}

function renderClusters(view) {
  // a name being typed survives the redraw: another answer (a teammate's, another tab's) may arrive meanwhile
  const active = document.activeElement;
  const typing = active && active.classList.contains("cluster-name")
    ? {cluster: active.closest(".strip").dataset.cluster, value: active.value, at: active.selectionStart} : null;
  listed = view.strips.map((s) => s.cluster);
  $("strips").replaceChildren(...view.strips.map((strip) => stripCard(strip, listed)));
  const field = typing && $("strips").querySelector('.strip[data-cluster="' + typing.cluster + '"] .cluster-name');
  if (field) {
    field.value = typing.value;
    field.focus();
    field.setSelectionRange(typing.at, typing.at);
  }
  const more = $("strips-more");
  more.hidden = !view.n_more;
  more.textContent = view.n_more ? view.n_more + " smaller clusters (" + view.n_rows_more + " items) not shown." : "";
  addToggles($("strips"));
  document.body.dataset.clusters = view.revision;
}

function stripCard(strip, clusters) {
  const card = el("article", "strip");
  card.dataset.cluster = strip.cluster;
  card.dataset.size = strip.size;
  const head = el("header");
  const swatch = el("span", "swatch");
  swatch.style.background = marker(strip.cluster).colour;  // CSSOM, allowed by the page's CSP
  head.append(swatch, el("h3", null, clusterName(strip.cluster) + (strip.name ? " · " + strip.name : "")),
    el("span", "size", strip.size + " items"));
  if (strip.mark) head.append(el("span", "badge " + strip.mark, MARK_WORDS[strip.mark]));
  const pure = el("button", "mark-pure", "Pure");
  const complete = el("button", "mark-complete", "Pure and complete");
  pure.type = complete.type = "button";
  pure.disabled = !!strip.mark;
  complete.disabled = strip.mark === "complete";
  pure.addEventListener("click", () => mark(strip.cluster, "pure"));
  complete.addEventListener("click", () => mark(strip.cluster, "complete"));
  const all = el("button", "view-all", "All " + strip.size + " items");
  const odd = el("button", "view-atypical", "Least typical first");
  all.type = odd.type = "button";
  all.addEventListener("click", () => openMembers(strip.cluster, "typical"));
  odd.addEventListener("click", () => openMembers(strip.cluster, "atypical"));
  // a name kept with the cluster's number (Enter or leaving the field saves it; empty removes it)
  const name = el("input", "cluster-name");
  name.type = "text";
  name.maxLength = 60;
  name.placeholder = "Name it";
  name.value = strip.name || "";
  name.setAttribute("aria-label", "Name of " + clusterName(strip.cluster));
  const save = () => post("/api/name", {cluster: strip.cluster, name: name.value},
    () => (name.value.trim() ? "Named: " + clusterName(strip.cluster) + " " + name.value.trim()
      : "Name removed: " + clusterName(strip.cluster))).then(loadClusters);
  name.addEventListener("change", save);
  // a field redrawn while typed in (renderClusters) holds the text it was given, which fires no "change": Enter
  // saves a name that differs from the stored one all the same
  name.addEventListener("keydown", (event) => {
    if (event.key === "Enter" && name.value.trim() !== (strip.name || "")) save();
  });
  head.append(name, pure, complete, all, odd);
  const reps = el("div", "reps");
  reps.append(...strip.items.map((item) => repCard(item, strip.cluster, clusters)));
  if (strip.doubtful.length) {
    // the members farthest from the centre: "pure" is not judged from the easy cases only
    reps.append(el("span", "doubt-label", "least typical:"));
    reps.append(...strip.doubtful.map((item) => repCard(item, strip.cluster, clusters, "doubtful")));
  }
  card.append(head, reps);
  // an item dragged onto another strip moves there
  card.addEventListener("dragover", (event) => {
    if (event.dataTransfer.types.includes("text/plain")) event.preventDefault();
  });
  card.addEventListener("drop", (event) => {
    event.preventDefault();
    const [row, from] = event.dataTransfer.getData("text/plain").split(":").map(Number);
    if (from !== strip.cluster) move(row, strip.cluster);
  });
  return card;
}

function repCard(item, cluster, clusters, className, nFields, q) {
  // a member of ``cluster``: its tile, draggable onto another strip, with a list of the clusters to move it to
  const card = itemTile(item, nFields, q);
  if (className) card.classList.add(className);
  card.append(movable(card, item, cluster, clusters));
  return card;
}

function movable(node, item, cluster, clusters) {
  // ``node`` (a member's tile or table row) made draggable onto another strip; returns its "Move to…" list
  node.draggable = true;
  node.addEventListener("dragstart", (event) => event.dataTransfer.setData("text/plain", item.row + ":" + cluster));
  const to = el("select", "move-to");
  to.setAttribute("aria-label", "Move " + item.id + " to another cluster");
  to.append(el("option", null, "Move to…"));
  to.options[0].value = "";
  for (const c of clusters) {
    if (c === cluster) continue;
    const option = el("option", null, clusterName(c));
    option.value = c;
    to.append(option);
  }
  to.addEventListener("change", () => {
    if (to.value !== "") move(item.row, Number(to.value));
  });
  return to;
}

function memberRow(item, view, nFields) {
  // a member of a table's cluster on one line: its id, text and first columns (a search's matches marked; the
  // text opens in full on a click), then its "Move to…" list
  const tr = el("tr", "rep");
  tr.dataset.row = item.row;
  const q = view.q || "";
  const marks = (name) => (!view.column || view.column === name ? q : "");
  const cell = (name, value) => {
    const td = el("td");
    td.title = value;  // the whole cell on hover, however narrow its column
    td.append(withMatches("span", null, value, marks(name)));
    return td;
  };
  const id = cell("id", item.id);
  id.firstChild.className = "item-id";
  tr.append(id);
  if (view.text_column !== null) {
    const full = item.text || "";
    const sought = marks(view.text_column);
    const at = sought ? full.toLowerCase().indexOf(sought.toLowerCase()) : -1;
    const line = at > 40 ? "…" + full.slice(at - 20) : full;  // the match in view on a line that is cut
    const td = cell(view.text_column, line);
    td.className = "wide";
    td.title = full;
    td.addEventListener("click", () => {
      td.replaceChildren(withMatches("span", null, tr.classList.toggle("open") ? full : line, sought));
    });
    tr.append(td);
  }
  for (const [name, value] of item.fields.slice(0, nFields)) tr.append(cell(name, value));
  const move = el("td");
  move.append(movable(tr, item, view.cluster, listed));
  tr.append(move);
  return tr;
}

function memberTable(view) {
  // every member of a table's cluster: a line each, under the data's column names
  const table = el("table", "member-table");
  const first = view.items[0];
  const names = ["id", ...(view.text_column !== null ? [view.text_column] : []),
    ...first.fields.slice(0, FIELDS_SHOWN).map(([name]) => name), "Move to"];
  const cols = el("colgroup");
  for (const name of names) cols.append(el("col", name === view.text_column ? "wide" : null));
  const head = el("tr");
  head.append(...names.map((name) => el("th", null, name)));
  const thead = el("thead");
  thead.append(head);
  const body = el("tbody");
  body.append(...view.items.map((item) => memberRow(item, view, FIELDS_SHOWN)));
  table.append(cols, thead, body);
  return table;
}

async function mark(cluster, word, confirmed) {
  if (!state) return;
  const payload = {position: state.position, cluster: cluster, mark: word};
  if (confirmed) payload.confirmed = true;
  const before = state.question;
  const done = "Marked: " + clusterName(cluster) + " " + MARK_WORDS[word];
  const reply = await post("/api/mark", payload, () => done);
  // both items asked about were in the marked cluster: the mark settles them
  const what = "your mark (" + clusterName(cluster) + " " + MARK_WORDS[word] + ")";
  if (reply && before && before.items.every((item) => item.cluster === cluster)) {
    sayChanged(before, what + " says that they belong together: that pair is settled");
  } else if (reply) {
    sayChanged(before, what + " changed what the method knows, so it asks another pair");
  }
}

async function move(row, cluster) {
  if (!state) return;
  const tile = document.querySelector('.rep[data-row="' + row + '"] .item-id');
  const name = tile ? tile.textContent : "item";
  const before = state.question;
  const named = $("named");
  const inWay = named.dataset.confirm === "no" && !named.hidden && named.querySelector('.rep[data-row="' + row + '"]');
  const reply = await post("/api/move", {position: state.position, row: row, to: cluster},
    () => "Moved: " + name + " to " + clusterName(cluster) +
      (inWay ? " (marking the cluster again says which items are still in the way)" : ""));
  if (reply && inWay) {  // one of the items in a mark's way: the others stay in view, to be moved in the same round
    inWay.remove();
    named.hidden = !named.querySelector(".rep");
  }
  const what = "your move of " + name + " to " + clusterName(cluster);
  const asked = before && before.items.some((item) => item.row === row);
  if (reply) sayChanged(before, what + (asked ? " says where " + name + ", one of the two, belongs" :
    " changed what the method knows") + ", so it asks another pair");
}

function sayChanged(before, why) {
  // a move or a mark is new knowledge: the method may now ask another pair under the same number; say so and why
  const now = state.question;
  const box = $("changed");
  const same = !before || !now || (before.pair[0] === now.pair[0] && before.pair[1] === now.pair[1]);
  box.hidden = same;
  box.dataset.pair = now ? now.pair.join("-") : "";
  box.textContent = same ? "" : "Question " + now.number + " changed (it was " + before.items[0].id + " and " +
    before.items[1].id + "): " + why + ".";
}

function renderNamed(reply, payload) {
  // the items a refusal names: a mark the answers contradict (move one), or a large cluster's least typical
  // members before "pure" is confirmed
  const box = $("named");
  box.replaceChildren(el("p", null, reply.error));
  const tiles = el("div", "reps grid");  // every item at once, wrapping: none hidden off to the side
  tiles.append(...reply.items.map((item) => {
    const card = repCard(item, item.cluster, listed);
    const note = clusterName(item.cluster) + (item.note ? " · " + item.note : "");
    card.querySelector(".item-id").after(el("span", "note", note));
    return card;
  }));
  box.append(tiles);
  if (reply.confirm) {  // below the items, on a row of their own
    const yes = el("button", "confirm-mark", "Yes, mark " + clusterName(payload.cluster) + " " + MARK_WORDS[payload.mark]);
    const no = el("button", "cancel-mark", "Cancel");
    yes.type = no.type = "button";
    yes.addEventListener("click", () => mark(payload.cluster, payload.mark, true));
    no.addEventListener("click", () => { box.hidden = true; showMessage(""); });
    const actions = el("div", "actions");
    actions.append(yes, no);
    box.append(actions);
  }
  box.dataset.confirm = reply.confirm ? "yes" : "no";
  box.hidden = false;
  addToggles(box);
  box.scrollIntoView({block: "nearest"});
}

function openMembers(cluster, sort) {
  membersQuery = {cluster: cluster, page: 0, q: "", column: "", sort: sort};
  $("members-q").value = "";
  $("members-sort").value = sort;
  membersFor = null;
  $("members").hidden = false;
  $("members").scrollIntoView({block: "start"});
  membersScroll = true;  // again once its items are in: the page may have been too short to scroll that far
  loadMembers();
}

function changeMembers(change) {
  if (!membersQuery) return;
  Object.assign(membersQuery, change);
  loadMembers();
}

async function loadMembers() {
  // the member view follows every change of state (a move, a mark, an undo) and of its own query
  if (!membersQuery || !state || loadingMembers || stopped) return;
  const asked = JSON.stringify(membersQuery);
  if (membersFor === state.revision + asked) return;
  loadingMembers = true;
  let reply = null;
  let ok = false;
  try {
    const q = membersQuery;
    const query = new URLSearchParams({page: q.page, size: MEMBERS_PAGE, q: q.q, column: q.column, sort: q.sort});
    const response = await fetch("/api/cluster/" + q.cluster + "/members?" + query);
    ok = response.ok;
    reply = await response.json();
  } catch (err) {
    // the server is gone; the next click reports it
  } finally {
    loadingMembers = false;
  }
  if (!reply) return;
  if (!ok) {
    // e.g. the cluster is gone (an undo, a move): the view closes and says why
    membersQuery = null;
    $("members").hidden = true;
    showMessage(reply.error);
    return;
  }
  membersFor = reply.revision + asked;
  renderMembers(reply);
  if (state.revision !== reply.revision || JSON.stringify(membersQuery) !== asked) loadMembers();
}

function renderMembers(view) {
  $("members-title").textContent = clusterName(view.cluster) + " · " + view.size + " items" +
    (view.mark ? " · " + MARK_WORDS[view.mark] : "");
  const column = $("members-column");
  if (column.options.length !== view.columns.length + 1) {
    column.replaceChildren(el("option", null, "any column"));
    column.options[0].value = "";
    for (const name of view.columns) {
      const option = el("option", null, name);
      option.value = name;
      column.append(option);
    }
  }
  column.value = view.column || "";
  $("members-page").textContent = "Page " + (view.page + 1) + " of " + view.n_pages + " · " + view.n_matching +
    (view.q ? " matching" : " members") + (view.sort === "atypical" ? ", least typical first" : ", most typical first");
  $("members-prev").disabled = view.page === 0;
  $("members-next").disabled = view.page + 1 >= view.n_pages;
  const grid = $("members-grid");
  // a table reads best as lines under its column names; images and series as a grid of small multiples
  const lines = view.items.length > 0 && !view.items.some((it) => it.image || it.series);
  grid.classList.toggle("grid", !lines);
  grid.replaceChildren(...(lines ? [memberTable(view)]
    : view.items.map((item) => repCard(item, view.cluster, listed, null, FIELDS_SHOWN, view.q))));
  addToggles(grid);
  if (membersScroll) $("members").scrollIntoView({block: "start"});
  membersScroll = false;
  $("members").dataset.revision = view.revision;
  $("members").dataset.page = view.page;
}

function drawScatter() {
  const canvas = $("scatter");
  if (!points || !state) return;
  const ratio = window.devicePixelRatio || 1;
  const size = canvas.clientWidth;
  if (canvas.width !== Math.round(size * ratio)) {
    canvas.width = canvas.height = Math.round(size * ratio);
  }
  const ctx = canvas.getContext("2d");
  ctx.setTransform(ratio, 0, 0, ratio, 0, 0);
  ctx.clearRect(0, 0, size, size);
  const pad = 10;
  const at = (x, y) => [pad + x * (size - 2 * pad), size - pad - y * (size - 2 * pad)];
  // one path per marker: a few fills instead of one per point
  const groups = new Map();
  for (let k = 0; k < points.x.length; k++) {
    const key = state.labels[k] % (PALETTE.length * SHAPES.length);
    if (!groups.has(key)) groups.set(key, []);
    groups.get(key).push(k);
  }
  for (const [key, members] of groups) {
    const {colour, shape} = marker(key);
    ctx.beginPath();
    for (const k of members) {
      const [px, py] = at(points.x[k], points.y[k]);
      markerPath(ctx, shape, px, py, 2.8);
    }
    ctx.fillStyle = colour;
    ctx.fill();
  }
  const pair = state.question || state.conflict;
  if (!pair) return;
  pair.items.forEach((item, k) => {
    const [px, py] = at(item.point[0], item.point[1]);
    ctx.lineWidth = 2.5;
    ctx.strokeStyle = "#111";
    ctx.beginPath();
    ctx.arc(px, py, 7, 0, 2 * Math.PI);
    ctx.stroke();
    ctx.font = "bold 13px system-ui, sans-serif";
    ctx.fillStyle = "#111";
    ctx.textBaseline = k ? "top" : "bottom";
    ctx.fillText(k ? "B" : "A", px + (k ? 7 : -16), py + (k ? 5 : -5));
  });
}

function markerPath(ctx, shape, x, y, r) {
  if (shape === "circle") {
    ctx.moveTo(x + r, y);
    ctx.arc(x, y, r, 0, 2 * Math.PI);
  } else if (shape === "square") {
    ctx.rect(x - r * 0.85, y - r * 0.85, r * 1.7, r * 1.7);
  } else {
    const corners = shape === "triangle" ? [[0, -1.2], [1.1, 0.8], [-1.1, 0.8]] : [[0, -1.25], [1.1, 0], [0, 1.25], [-1.1, 0]];
    ctx.moveTo(x + corners[0][0] * r, y + corners[0][1] * r);
    for (const [dx, dy] of corners.slice(1)) ctx.lineTo(x + dx * r, y + dy * r);
    ctx.closePath();
  }
}

async function loadReview() {
  // the answer list follows every change of state and of its own query
  if (!state || loadingReview || stopped) return;
  const asked = JSON.stringify(reviewQuery);
  if (reviewFor === state.revision + asked) return;
  loadingReview = true;
  let reply = null;
  let ok = false;
  try {
    const query = new URLSearchParams({page: reviewQuery.page, size: REVIEW_PAGE, q: reviewQuery.q});
    const response = await fetch("/api/answers?" + query);
    ok = response.ok;
    reply = await response.json();
  } catch (err) {
    // the server is gone; the next click reports it
  } finally {
    loadingReview = false;
  }
  if (!reply) return;
  if (!ok) {  // a page past the end (answers withdrawn elsewhere): back to the first
    if (reviewQuery.page) {
      reviewQuery.page = 0;
      loadReview();
    }
    return;
  }
  reviewFor = reply.revision + asked;
  renderReview(reply);
  if (state.revision !== reply.revision || JSON.stringify(reviewQuery) !== asked) loadReview();
}

function renderReview(view) {
  const words = {same: "Same", different: "Different", unknown: "Don't know"};
  const rows = view.answers.map((a) => {
    const tr = el("tr");
    tr.dataset.seq = a.seq;
    const what = a.answer === null ? KIND_WORDS[a.kind] + " (" + a.n_members + " items)"
      : a.answer + (a.kind === "question" ? "" : " · " + KIND_WORDS[a.kind]);
    // the items as the question showed them (text, image, series or first columns), not their ids alone
    const tiles = el("div", "pair-tiles");
    tiles.append(...a.items.map((item) => itemTile(item)));
    if (a.n_members) tiles.append(el("span", "more-members", "and " + (a.n_members - 1) + " more"));
    const items = el("td", "items");
    items.append(tiles);
    tr.append(el("td", null, a.seq), items, el("td", "answer", what), el("td", "who", a.by || ""),
      el("td", null, a.answered_at.replace("T", " ").slice(0, 19)));
    const actions = el("td", "actions");
    if (a.can_change) {
      for (const [word, label] of Object.entries(words)) {
        if (a.kind === "imported" && word === "unknown") continue;
        const button = el("button", "change-" + word, label);
        button.type = "button";
        button.disabled = a.answer === (word === "unknown" ? "don't know" : word);
        button.addEventListener("click", () => post("/api/answers/change", {seq: a.seq, answer: word},
          (reply) => "Changed: " + reply.state.changed));
        actions.append(button);
      }
    }
    const withdraw = el("button", "withdraw", "Withdraw");
    withdraw.type = "button";
    withdraw.addEventListener("click", () => post("/api/answers/withdraw", {seq: a.seq},
      (reply) => "Withdrawn: " + reply.state.withdrawn));
    actions.append(withdraw);
    tr.append(actions);
    return tr;
  });
  $("review-list").replaceChildren(...rows);
  $("review-list").closest("table").classList.toggle("solo", !state.team);  // "Who" only in a team's session
  addToggles($("review-list"));
  $("review-page").textContent = "Page " + (view.page + 1) + " of " + view.n_pages + " · " + view.n_matching +
    (view.q ? " matching" : " answers");
  $("review-prev").disabled = view.page === 0;
  $("review-next").disabled = view.page + 1 >= view.n_pages;
  $("review").dataset.revision = view.revision;
}

async function post(url, payload, confirmation) {
  // ``confirmation(reply)``: the short text saying what a successful action did
  if (busy || stopped) return null;
  busy = true;
  try {
    const response = await fetch(url, {
      method: "POST",
      headers: {"Content-Type": "application/json"},
      body: JSON.stringify(payload),
    });
    const text = await response.text();
    let reply;
    try {
      reply = JSON.parse(text);
    } catch (err) {  // a plain-text refusal (e.g. the server restarted with a new access token)
      reply = {error: text || response.statusText};
    }
    showMessage(response.ok ? (confirmation ? confirmation(reply) : "") : reply.error, response.ok);
    $("named").hidden = true;
    if (reply.items) renderNamed(reply, payload);
    if (reply.state) render(reply.state);
    return response.ok ? reply : null;
  } catch (err) {
    showMessage("The linkwise server does not answer (" + err.message + "). Your answers so far are saved.");
    return null;
  } finally {
    busy = false;
  }
}

function answer(word) {
  // during a contradiction the server refuses, and its message says what to do
  if (!state || state.done) return;
  const asked = state.question;
  const words = {same: "same group", different: "different groups", unknown: "don't know"};
  post("/api/answer", {position: state.position, answer: word},
    () => asked ? "Answered: " + asked.items[0].id + " and " + asked.items[1].id + " " + words[word] : "Answered");
}

function undo() {
  if (state && state.can_undo) post("/api/undo", {position: state.position}, (reply) => "Undone: " + reply.state.undone);
}

async function finish() {
  const reply = await post("/api/finish", {});
  if (!reply) return;
  const saved = "Saved the clustering of " + reply.n_rows + " items (" + reply.n_clusters + " clusters) to " +
    reply.path + ". ";
  if (reply.stops) {  // one person's session: the server stops once this reply is sent
    showFinished(saved + "The linkwise server has stopped, and this page with it; your answers are kept in the " +
      "session file.", reply.summary);
    return;
  }
  const box = $("message");
  const link = el("a", null, "Download it");
  link.href = "/labels.csv";
  box.replaceChildren(document.createTextNode(saved), link, ". The server keeps running (Ctrl+C in its terminal " +
    "stops it): you may close this page, or keep answering.");
  box.hidden = false;
}

function showFinished(text, lines) {
  // the server is gone: the summary and the commands that go on from here, and nothing left that would ask it
  stopped = true;
  clearInterval(pollTimer);
  for (const id of ["ask", "conflict", "done", "wait", "join", "preparing"]) $(id).hidden = true;
  $("finished").hidden = false;
  $("finished-text").textContent = text;
  $("finished-lines").textContent = lines.join("\n");
  showMessage("");
  for (const control of document.querySelectorAll("button, input, select, fieldset")) control.disabled = true;
  for (const part of document.querySelectorAll(".downloads, #members, #named")) part.hidden = true;
  document.body.dataset.stopped = "yes";
}

async function firstState() {
  // the server prints its address before the session is open: until it is, the state says "preparing" (after
  // waiting a while for it), and is asked for again
  for (;;) {
    let reply;
    try {
      reply = await (await fetch("/api/state")).json();
    } catch (err) {
      reply = {error: "The linkwise server does not answer (" + err.message + ")."};
    }
    if (reply.error) {  // the session could not start: the server says why, and stops
      $("preparing-title").textContent = "The session did not start";
      $("preparing-text").textContent = reply.error;
      return false;
    }
    if (!reply.preparing) {
      render(reply);
      return true;
    }
  }
}

async function poll() {
  // another tab or window may have answered: show the session's current question
  if (busy || document.hidden || !state || stopped) return;
  try {
    const response = await fetch("/api/state?revision=" + encodeURIComponent(state.revision));
    const reply = await response.json();
    if (!reply.unchanged && !busy) render(reply);
    loadClusters();  // a strip or member view that failed to load is asked again
    loadMembers();
    loadReview();
  } catch (err) {
    // the server is gone; the next click reports it
  }
}

document.addEventListener("keydown", (event) => {
  if (event.ctrlKey || event.metaKey || event.altKey || stopped) return;
  if (event.target.closest("select, input, textarea")) return;  // keys that choose in a list are not answers
  const key = event.key.toLowerCase();
  if (key === "s") answer("same");
  else if (key === "d") answer("different");
  else if (key === "?" || key === "k") answer("unknown");  // "?" as in the terminal; K as before
  else if (key === "u") undo();
  else return;
  event.preventDefault();
});

// A demo's introduction (what a group is) and each item's own label, shown under the pair only when asked
let hints = null;

function showHint(shown) {
  const pair = state && state.question ? state.question.pair : null;
  $("hint-line").hidden = !hints || !pair;
  $("hint-text").textContent = shown && hints && pair ? "A: " + hints[pair[0]] + " · B: " + hints[pair[1]] : "";
  $("hint").setAttribute("aria-pressed", String(!!shown));
}

async function loadDemo() {
  const demo = await (await fetch("/api/demo")).json();
  hints = demo.hints;
  $("intro").hidden = !demo.intro;
  $("intro").textContent = demo.intro || "";
  showHint(false);
}

document.addEventListener("DOMContentLoaded", async () => {
  $("hint").addEventListener("click", () => showHint($("hint").getAttribute("aria-pressed") !== "true"));
  loadDemo();
  for (const b of document.querySelectorAll("[data-answer]")) {
    b.addEventListener("click", () => answer(b.dataset.answer));
  }
  for (const b of document.querySelectorAll("[data-undo]")) b.addEventListener("click", undo);
  $("finish").addEventListener("click", finish);
  $("join").addEventListener("submit", (event) => {
    event.preventDefault();
    post("/api/join", {name: $("join-name").value.trim()});
  });
  window.addEventListener("resize", drawScatter);
  $("members-close").addEventListener("click", () => {
    membersQuery = null;
    $("members").hidden = true;
  });
  $("members-prev").addEventListener("click", () => changeMembers({page: membersQuery.page - 1}));
  $("members-next").addEventListener("click", () => changeMembers({page: membersQuery.page + 1}));
  $("members-sort").addEventListener("change", () => changeMembers({page: 0, sort: $("members-sort").value}));
  $("members-column").addEventListener("change", () => changeMembers({page: 0, column: $("members-column").value}));
  $("members-q").addEventListener("input", () => {
    clearTimeout(searchTimer);  // one request once the person pauses typing
    searchTimer = setTimeout(() => changeMembers({page: 0, q: $("members-q").value}), 250);
  });
  $("review-prev").addEventListener("click", () => { reviewQuery.page -= 1; loadReview(); });
  $("review-next").addEventListener("click", () => { reviewQuery.page += 1; loadReview(); });
  $("review-q").addEventListener("input", () => {
    clearTimeout(searchTimer);
    searchTimer = setTimeout(() => { reviewQuery = {page: 0, q: $("review-q").value}; loadReview(); }, 250);
  });
  points = await (await fetch("/api/points")).json();
  if (await firstState()) pollTimer = setInterval(poll, 1500);
});
