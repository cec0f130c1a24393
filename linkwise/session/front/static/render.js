// How the linkwise session page draws an item: reusable by any page that loads this file before its own
// script (the session page, a notebook widget). Item text is only ever set with textContent, never as markup.
"use strict";

// 20 colours (d3's category20, dark ones first) times 4 shapes: 80 clusters before a marker repeats
const PALETTE = ["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f",
                 "#bcbd22", "#17becf", "#aec7e8", "#ffbb78", "#98df8a", "#ff9896", "#c5b0d5", "#c49c94",
                 "#f7b6d2", "#c7c7c7", "#dbdb8d", "#9edae5"];
const SHAPES = ["circle", "square", "triangle", "diamond"];
const FIELDS_SHOWN = 10;
const SVG = "http://www.w3.org/2000/svg";
const REP_FIELDS = 3;  // columns shown of a small item (a tile) when it has no image, series or text

function el(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined && text !== null) node.textContent = String(text);
  return node;
}

function marker(label) {
  return {colour: PALETTE[label % PALETTE.length], shape: SHAPES[Math.floor(label / PALETTE.length) % SHAPES.length]};
}

function clamped(tag, className, text, q) {
  // a long cell shows its first lines; "show more" (added by addToggles once laid out) opens it
  return withMatches(tag, (className ? className + " " : "") + "clamp", text, q);
}

function withMatches(tag, className, text, q) {
  // ``text`` in a new element, each occurrence of the search ``q`` (ignoring case) in a <mark>; text nodes only
  const node = el(tag, className);
  text = String(text);
  const lower = text.toLowerCase();
  const needle = (q || "").toLowerCase();
  if (!needle || lower.length !== text.length) {  // no search, or case folding moved the offsets: plain text
    node.textContent = text;
    return node;
  }
  let at = 0;
  for (let k = lower.indexOf(needle); k !== -1; k = lower.indexOf(needle, at)) {
    node.append(text.slice(at, k), el("mark", null, text.slice(k, k + needle.length)));
    at = k + needle.length;
  }
  node.append(text.slice(at));
  return node;
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
    card.append(itemImage(item));
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

function itemImage(item) {
  const img = el("img");
  img.src = item.image;
  img.alt = "image of item " + item.id;
  img.addEventListener("load", () => img.classList.toggle("pixels", img.naturalWidth < 64));  // e.g. 8x8 digits
  return img;
}

function itemTile(item, nFields = REP_FIELDS, q = "") {
  // an item small (a cluster's strip, a page of its members): id, then its series, image, text or first columns;
  // a search's matches ``q`` marked
  const tile = el("div", "rep");
  tile.dataset.row = item.row;
  tile.append(withMatches("span", "item-id", item.id, q));
  if (item.series) tile.append(seriesChart(item.series, [], item.id));
  if (item.image) {
    tile.append(itemImage(item));
  } else if (item.text !== null) {
    tile.append(clamped("p", "text", item.text, q));
  } else if (!item.series) {
    tile.append(clamped("p", "fields", item.fields.slice(0, nFields).map(([k, v]) => k + ": " + v).join("\n"), q));
  }
  return tile;
}
