// The page of a linkwise human session. The server holds the state; this script
// shows it and sends the person's answers. Item text is only ever set with
// textContent, never as markup.
"use strict";

// 20 colours (d3's category20, dark ones first) times 4 shapes: 80 clusters before a marker repeats
const PALETTE = ["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f",
                 "#bcbd22", "#17becf", "#aec7e8", "#ffbb78", "#98df8a", "#ff9896", "#c5b0d5", "#c49c94",
                 "#f7b6d2", "#c7c7c7", "#dbdb8d", "#9edae5"];
const SHAPES = ["circle", "square", "triangle", "diamond"];
const FIELDS_SHOWN = 10;
const SVG = "http://www.w3.org/2000/svg";
const DROPPED_SHOWN = 5;
const REP_FIELDS = 3;  // columns shown of a cluster's representative when it has no image, series or text
const MARK_WORDS = {pure: "pure", complete: "pure and complete"};
const KIND_WORDS = {pure: "marked pure", complete: "marked pure and complete", move: "moved", imported: "imported"};
let state = null;
let points = null;
let busy = false;
let stripsFor = null;  // the revision the cluster strips show
let loadingStrips = false;

const $ = (id) => document.getElementById(id);

function el(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined && text !== null) node.textContent = String(text);
  return node;
}

function showMessage(text) {
  const box = $("message");
  box.textContent = text || "";
  box.hidden = !text;
}

function marker(label) {
  return {colour: PALETTE[label % PALETTE.length], shape: SHAPES[Math.floor(label / PALETTE.length) % SHAPES.length]};
}

function clamped(tag, className, text) {
  // a long cell shows its first lines; "show more" (added by addToggles once laid out) opens it
  return el(tag, (className ? className + " " : "") + "clamp", text);
}

function addToggles(root) {
  for (const box of root.querySelectorAll(".clamp:not([data-checked])")) {
    if (!box.clientHeight) continue;  // not laid out (a closed "more columns"): checked when opened
    box.dataset.checked = "";
    if (box.scrollHeight <= box.clientHeight + 1) continue;
    const more = el("button", "more", "show more");
    more.type = "button";
    more.addEventListener("click", () => {
      more.textContent = box.classList.toggle("open") ? "show less" : "show more";
    });
    box.after(more);
  }
}

function itemCard(item, letter, other) {
  const card = el("article", "item");
  const head = el("header");
  head.append(el("span", "letter", letter), el("span", "item-id", item.id));
  card.append(head);
  if (item.series) card.append(seriesChart(item.series, item.context || [], item.id));
  if (item.image) {
    const img = el("img");
    img.src = item.image;
    img.alt = "image of item " + item.id;
    img.addEventListener("load", () => img.classList.toggle("pixels", img.naturalWidth < 64));  // e.g. 8x8 digits
    card.append(img);
  } else if (item.image_error) {
    card.append(el("p", "refused", item.image_error));
  }
  if (item.text !== null) card.append(clamped("p", "text", item.text));
  const rows = item.fields.map(([name, value], k) => {
    const tr = el("tr", other.fields[k][1] === value ? null : "differs");
    const td = el("td");
    td.append(clamped("div", null, value));
    tr.append(el("th", null, name), td);
    return tr;
  });
  if (rows.length) {
    const table = el("table");
    table.append(...rows.slice(0, FIELDS_SHOWN));
    card.append(table);
  }
  if (rows.length > FIELDS_SHOWN) {
    // wide tables: the rest of the columns one click away
    const more = el("details");
    const rest = el("table");
    rest.append(...rows.slice(FIELDS_SHOWN));
    more.append(el("summary", null, (rows.length - FIELDS_SHOWN) + " more columns"), rest);
    more.addEventListener("toggle", () => addToggles(more));
    card.append(more);
  }
  return card;
}

function seriesChart(series, context, id) {
  // the item's channels over a few members of its current cluster, faint; values in [0, 1] on one scale for all
  const svg = document.createElementNS(SVG, "svg");
  svg.setAttribute("viewBox", "0 0 300 100");
  svg.setAttribute("preserveAspectRatio", "none");
  svg.setAttribute("class", "chart");
  svg.setAttribute("aria-label", "series " + id + " over " + context.length + " members of its current cluster");
  const line = (points, className, colour) => {
    const path = document.createElementNS(SVG, "path");
    const step = 300 / Math.max(points.length - 1, 1);
    path.setAttribute("d", points.map((v, k) => (k ? "L" : "M") + (k * step).toFixed(1) + "," + (97 - 94 * v).toFixed(1)).join(""));
    path.setAttribute("class", className);
    if (colour) path.setAttribute("stroke", colour);
    svg.append(path);
  };
  for (const member of context) member.forEach((points) => line(points, "context"));
  series.forEach((points, c) => line(points, "line", PALETTE[c % PALETTE.length]));
  return svg;
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
    button.addEventListener("click", () => post("/api/resolve", {conflict: conflict.id, wrong: wrong}));
    li.append(what, when, button);
    list.append(li);
  });
}

function render(next) {
  state = next;
  $("n-answered").textContent = state.n_answered;
  $("n-clusters").textContent = state.n_clusters;
  $("stability").textContent = state.stability.message;
  const about = [state.data + " (" + state.n_rows + " items)", state.method];
  if (state.embedding) about.push("text: " + state.embedding);
  $("about").textContent = about.join(" · ");
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
  if (state.question) {
    $("prompt").textContent = "Question " + state.question.number + ": do A and B belong to the same group?";
    fillPair($("pair"), state.question.items);
  }
  if (state.conflict) renderConflict(state.conflict);
  for (const b of document.querySelectorAll("[data-undo]")) b.disabled = !state.can_undo;
  document.body.dataset.position = state.position;
  $("strips").disabled = !!state.conflict;  // the server refuses feedback until the contradiction is resolved
  drawScatter();
  loadClusters();
}

async function loadClusters() {
  if (!state || stripsFor === state.revision || loadingStrips) return;
  loadingStrips = true;
  let view = null;
  try {
    view = await (await fetch("/api/clusters")).json();
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
  return "Cluster " + (c + 1);
}

function renderClusters(view) {
  const others = view.strips.map((s) => s.cluster);
  $("strips").replaceChildren(...view.strips.map((strip) => stripCard(strip, others)));
  const more = $("strips-more");
  more.hidden = !view.n_more;
  more.textContent = view.n_more ? view.n_more + " smaller clusters (" + view.n_rows_more + " items) not shown." : "";
  addToggles($("strips"));
  document.body.dataset.clusters = view.revision;
}

function stripCard(strip, clusters) {
  const card = el("article", "strip");
  card.dataset.cluster = strip.cluster;
  const head = el("header");
  const swatch = el("span", "swatch");
  swatch.style.background = marker(strip.cluster).colour;  // CSSOM, allowed by the page's CSP
  head.append(swatch, el("h3", null, clusterName(strip.cluster)), el("span", "size", strip.size + " items"));
  if (strip.mark) head.append(el("span", "badge " + strip.mark, MARK_WORDS[strip.mark]));
  const pure = el("button", "mark-pure", "Pure");
  const complete = el("button", "mark-complete", "Pure and complete");
  pure.type = complete.type = "button";
  pure.disabled = !!strip.mark;
  complete.disabled = strip.mark === "complete";
  pure.addEventListener("click", () => mark(strip.cluster, "pure"));
  complete.addEventListener("click", () => mark(strip.cluster, "complete"));
  head.append(pure, complete);
  const reps = el("div", "reps");
  reps.append(...strip.items.map((item) => repCard(item, strip.cluster, clusters)));
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

function repCard(item, cluster, clusters) {
  const card = el("div", "rep");
  card.draggable = true;
  card.dataset.row = item.row;
  card.addEventListener("dragstart", (event) => event.dataTransfer.setData("text/plain", item.row + ":" + cluster));
  card.append(el("span", "item-id", item.id));
  if (item.series) card.append(seriesChart(item.series, [], item.id));
  if (item.image) {
    const img = el("img");
    img.src = item.image;
    img.alt = "image of item " + item.id;
    img.addEventListener("load", () => img.classList.toggle("pixels", img.naturalWidth < 64));
    card.append(img);
  } else if (item.text !== null) {
    card.append(clamped("p", "text", item.text));
  } else if (!item.series) {
    card.append(clamped("p", "fields", item.fields.slice(0, REP_FIELDS).map(([k, v]) => k + ": " + v).join("\n")));
  }
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
  card.append(to);
  return card;
}

function mark(cluster, word) {
  if (state) post("/api/mark", {position: state.position, cluster: cluster, mark: word});
}

function move(row, cluster) {
  if (state) post("/api/move", {position: state.position, row: row, to: cluster});
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

async function post(url, payload) {
  if (busy) return;
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
    showMessage(response.ok ? "" : reply.error);
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
  if (state && !state.done) post("/api/answer", {position: state.position, answer: word});
}

function undo() {
  if (state && state.can_undo) post("/api/undo", {position: state.position});
}

async function finish() {
  const reply = await post("/api/finish", {});
  if (!reply) return;
  const box = $("message");
  box.replaceChildren(
    document.createTextNode("Saved the clustering of " + reply.n_rows + " items (" + reply.n_clusters +
      " clusters) to " + reply.path + ". "),
  );
  const link = el("a", null, "Download it");
  link.href = "/labels.csv";
  box.append(link, document.createTextNode(". You may close this page, or keep answering."));
  box.hidden = false;
}

async function poll() {
  // another tab or window may have answered: show the session's current question
  if (busy || document.hidden || !state) return;
  try {
    const response = await fetch("/api/state?revision=" + encodeURIComponent(state.revision));
    const reply = await response.json();
    if (!reply.unchanged && !busy) render(reply);
  } catch (err) {
    // the server is gone; the next click reports it
  }
}

document.addEventListener("keydown", (event) => {
  if (event.ctrlKey || event.metaKey || event.altKey) return;
  if (event.target.closest("select, input, textarea")) return;  // keys that choose in a list are not answers
  const key = event.key.toLowerCase();
  if (key === "s") answer("same");
  else if (key === "d") answer("different");
  else if (key === "?" || key === "k") answer("unknown");
  else if (key === "u") undo();
  else return;
  event.preventDefault();
});

document.addEventListener("DOMContentLoaded", async () => {
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
  points = await (await fetch("/api/points")).json();
  render(await (await fetch("/api/state")).json());
  setInterval(poll, 1500);
});
