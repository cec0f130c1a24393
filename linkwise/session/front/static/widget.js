// The notebook widget of a linkwise human session (anywidget; plain JavaScript, no build step).
// Python holds the session: this module renders the synced `state`, `clusters` and `curve` and sends
// actions as messages. It is loaded after the page's render.js (one module, see _widget.py), whose item
// cards, tiles and series charts it uses (no scatter plot, no drag and drop); item text is only ever set
// with textContent.

const MARK_WORDS = {pure: "pure", complete: "pure and complete"};
const KIND_WORDS = {pure: "marked pure", complete: "marked pure and complete", move: "moved", imported: "imported"};
const KEYS = {s: true, d: false, "?": null, k: null};  // same, different, don't know (? as in the terminal)

function counted(n, word) {
  return n + " " + word + (n === 1 ? "" : "s");
}

function svgNode(tag, attributes) {
  const node = document.createElementNS(SVG, tag);
  for (const [name, value] of Object.entries(attributes)) node.setAttribute(name, value);
  return node;
}

function button(className, label, key, onClick) {
  const b = el("button", className);
  b.type = "button";
  if (key) b.append(el("kbd", null, key));
  b.append(document.createTextNode(label));
  b.addEventListener("click", onClick);
  return b;
}

function pair(items) {
  const box = el("div", "pair");
  box.append(itemCard(items[0], "A", items[1]), itemCard(items[1], "B", items[0]));
  return box;
}

function clock(iso) {
  const t = new Date(iso);
  return isNaN(t) ? iso : t.toLocaleString();
}

function conflictPanel(conflict, send, undoButton) {
  const panel = el("div", "conflict");
  const newest = conflict.answers[conflict.answers.length - 1];
  const samePair = conflict.answers.length === 2;
  panel.append(el("h3", null, "Your answers disagree"), el("p", null,
    "Your earlier answers imply “" + conflict.believed + "” for A and B; your latest answer says “" +
    newest.answer + "”. The clustering now puts them " +
    (conflict.clustering === "same" ? "in the same group. " : "in different groups. ") +
    (samePair ? "Which answer is right?" : "Which of these answers is wrong?")), pair(conflict.items));
  const list = el("ol", "conflict-answers");
  conflict.answers.forEach((a, k) => {
    const li = el("li");
    const how = KIND_WORDS[a.kind] ? " (" + KIND_WORDS[a.kind] + ")" : "";
    const wrong = samePair ? conflict.answers[1 - k].seq : a.seq;
    li.append(el("span", "what", a.ids[0] + " and " + a.ids[1] + ": " + a.answer + how),
              el("span", "when", (a.new ? "just now, " : "") + (a.by ? a.by + ", " : "") + clock(a.answered_at)),
              button("resolve", samePair ? "Keep “" + a.answer + "”" : "This one is wrong", null,
                     () => send({action: "resolve", conflict: conflict.id, wrong: wrong})));
    list.append(li);
  });
  const answers = el("div", "answers");
  answers.append(undoButton("Undo the latest answer"));
  panel.append(list, answers);
  return panel;
}

function curveChart(curve) {
  // ARI after each answer: x the answers (0..last, at least 0..1), y from min(0, lowest ARI) to 1
  const [w, h, left, bottom] = [320, 120, 34, 18];
  const answered = curve[curve.length - 1][0];
  const last = Math.max(answered, 1);
  const low = Math.min(0, ...curve.map((p) => p[1]));
  const x = (n) => left + (w - left - 8) * n / last;
  const y = (v) => 6 + (h - bottom - 6) * (1 - (v - low) / (1 - low));
  const svg = svgNode("svg", {viewBox: "0 0 " + w + " " + h, class: "curve", role: "img",
                              "aria-label": "ARI after each answer"});
  for (const v of [low, 1]) {
    svg.append(svgNode("line", {x1: left, x2: w - 8, y1: y(v), y2: y(v), class: "grid"}));
    const label = svgNode("text", {x: left - 4, y: y(v) + 4, "text-anchor": "end"});
    label.textContent = v.toFixed(1);
    svg.append(label);
  }
  const axis = svgNode("text", {x: w - 8, y: h - 3, "text-anchor": "end"});
  axis.textContent = counted(answered, "answer");
  svg.append(axis, svgNode("polyline", {points: curve.map(([n, v]) => x(n).toFixed(1) + "," + y(v).toFixed(1)).join(" "),
                                        class: "ari"}));
  for (const [n, v] of curve.slice(-1)) svg.append(svgNode("circle", {cx: x(n), cy: y(v), r: 3, class: "ari"}));
  const box = el("figure", "learning");
  box.append(svg, el("figcaption", null, "ARI against the known labels: " + curve[curve.length - 1][1].toFixed(3)));
  return box;
}

function clusterName(c) {
  return "Cluster " + c;
}

function stripCard(strip, clusters, state, send) {
  const card = el("article", "strip");
  card.dataset.cluster = strip.cluster;
  const head = el("header");
  const swatch = el("span", "swatch");
  swatch.style.background = PALETTE[strip.cluster % PALETTE.length];
  head.append(swatch, el("strong", null, clusterName(strip.cluster) + (strip.name ? " · " + strip.name : "")),
              el("span", "size", counted(strip.size, "item")));
  if (strip.mark) head.append(el("span", "badge " + strip.mark, MARK_WORDS[strip.mark]));
  const mark = (complete) => send({action: "mark", position: state.position, cluster: strip.cluster, complete: complete,
                                   confirmed: false});
  const pure = button("mark-pure", "Pure", null, () => mark(false));
  const complete = button("mark-complete", "Pure and complete", null, () => mark(true));
  pure.disabled = !!strip.mark || !!state.conflict;
  complete.disabled = strip.mark === "complete" || !!state.conflict;
  head.append(pure, complete);
  const reps = el("div", "reps");
  // the members nearest the centre, then the least typical ones: "Pure" is not judged from the easy cases only
  for (const [item, doubtful] of [...strip.items.map((it) => [it, false]), ...strip.doubtful.map((it) => [it, true])]) {
    const rep = itemTile(item);
    if (doubtful) {
      rep.classList.add("doubtful");
      rep.prepend(el("span", "badge", "least typical"));
    }
    const to = el("select", "move-to");
    to.setAttribute("aria-label", "Move " + item.id + " to another cluster");
    to.disabled = !!state.conflict;
    to.append(new Option("Move to…", ""));
    for (const c of clusters) if (c !== strip.cluster) to.append(new Option(clusterName(c), String(c)));
    to.addEventListener("change", () => {
      if (to.value !== "") send({action: "move", position: state.position, row: item.row, to: Number(to.value)});
    });
    rep.append(to);
    reps.append(rep);
  }
  card.append(head, reps);
  return card;
}

function refusedPanel(refused, state, send) {
  // the items a refusal names, with their clusters; a mark on a large cluster asks to be confirmed here
  const panel = el("section", "refusal");
  const reps = el("div", "reps");
  for (const item of refused.items) {
    const rep = itemTile(item);
    rep.append(el("span", "size", clusterName(item.cluster)));
    reps.append(rep);
  }
  panel.append(reps);
  if (refused.mark) {
    const words = refused.mark.complete ? "pure and complete" : "pure";
    panel.append(button("confirm-mark", "Yes, mark " + clusterName(refused.mark.cluster) + " " + words, null,
                        () => send({action: "mark", ...refused.mark, confirmed: true})));
  }
  return panel;
}

function render({model, el: host}) {
  const root = el("div", "linkwise-widget");
  root.tabIndex = 0;  // keys answer while the widget has the focus
  root.setAttribute("data-lm-suppress-shortcuts", "true");  // JupyterLab leaves S, D, K, U to the widget
  host.append(root);
  let waiting = false;  // one action at a time: the next waits for the state it produces
  const send = (message) => {
    if (waiting) return;
    waiting = true;
    root.classList.add("waiting");
    model.send(message);
  };
  const undo = () => {
    const state = model.get("state");
    if (state.can_undo) send({action: "undo", position: state.position});
  };
  const undoButton = (label) => {
    const b = button("undo", label, "U", undo);
    b.disabled = !model.get("state").can_undo;
    return b;
  };
  const answer = (same) => {
    const state = model.get("state");
    if (state.question) send({action: "answer", position: state.position, answer: same});
  };

  function draw() {
    const state = model.get("state");
    const view = model.get("clusters");
    const curve = model.get("curve");
    waiting = false;
    root.classList.remove("waiting");
    root.dataset.position = state.position;
    root.dataset.answered = state.n_answered;
    const head = el("header");
    const stats = el("div", "stats");
    // as the page and the terminal count: the answers against the question budget, when there is one
    const answered = (state.budget == null ? state.n_answered + " answered" :
      state.n_answered + " of " + state.budget + " answered") +
      (state.counts.statements ? "; " + state.counts.statements : "");  // moves, marks, imports: as everywhere
    stats.append(el("span", "answered", answered), el("span", null, counted(state.n_clusters, "cluster")),
                 el("span", "stability", state.stability.message));
    const about = [state.data + " (" + state.n_rows + " items)", state.method];
    if (state.embedding) about.push("text: " + state.embedding);
    head.append(el("span", "brand", "linkwise"), el("span", "about", about.join(" · ")), stats);
    const parts = [head];
    for (const text of [model.get("message"), state.notice]) {
      if (text) parts.push(el("p", "message", text));
    }
    const refused = model.get("refused");
    if (refused.items) parts.push(refusedPanel(refused, state, send));
    const main = el("div", "main");
    const stage = el("section", "stage");
    if (state.question) {
      stage.append(el("h3", "prompt", "Question " + state.question.number + ": do A and B belong to the same group?"),
                   pair(state.question.items));
      const answers = el("div", "answers");
      answers.append(button("same", "Same group", "S", () => answer(true)),
                     button("different", "Different groups", "D", () => answer(false)),
                     button("unknown", "Don't know", "?", () => answer(null)), undoButton("Undo"));
      stage.append(answers);
    } else if (state.conflict) {
      stage.append(conflictPanel(state.conflict, send, undoButton));
    } else if (state.done) {
      const answers = el("div", "answers");
      answers.append(undoButton("Undo"));
      stage.append(el("h3", null, "No more questions"), el("p", null,
        "The method has what it needs (or its question budget is spent). The clustering is " +
        "session.labels_frame(); undo an answer to change it."), answers);
    }
    main.append(stage);
    if (curve.length) main.append(curveChart(curve));
    parts.push(main);
    if (view.strips) {
      const section = el("section", "clusters");
      section.append(el("h3", null, "Clusters"));
      const others = view.strips.map((s) => s.cluster);
      const strips = el("div", "strips");
      strips.append(...view.strips.map((strip) => stripCard(strip, others, state, send)));
      section.append(strips);
      if (view.n_more) section.append(el("p", "note", counted(view.n_more, "smaller cluster") + " (" +
                                                   counted(view.n_rows_more, "item") + ") not shown."));
      parts.push(section);
    }
    root.replaceChildren(...parts);
  }

  root.addEventListener("keydown", (event) => {
    if (event.ctrlKey || event.metaKey || event.altKey || event.target.closest("select, input, textarea")) return;
    const key = event.key.toLowerCase();
    if (key in KEYS) answer(KEYS[key]);
    else if (key === "u") undo();
    else return;
    event.preventDefault();
    event.stopPropagation();  // not also a notebook command (D D deletes a cell)
  });
  const ready = (message) => {
    if (message && message.done) {
      waiting = false;
      root.classList.remove("waiting");
    }
  };
  // every synced trait redraws; the same list is let go when the view is removed
  const traits = ["state", "clusters", "curve", "message", "refused"].map((name) => "change:" + name);
  model.on("msg:custom", ready);
  for (const event of traits) model.on(event, draw);
  draw();
  return () => {
    model.off("msg:custom", ready);
    for (const event of traits) model.off(event, draw);
  };
}

export default {render};
