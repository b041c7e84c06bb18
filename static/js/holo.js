// The holographic dress of the board, drawn once: a glowing rim under the spaces, a
// faint projector cone of light and scan lines over everything (pointer-events off).
// The flicker is a slow stepped CSS animation of the scan lines (art.css), stopped
// under prefers-reduced-motion; nothing here runs per update.

const SVG = "http://www.w3.org/2000/svg";

function el(name, attrs, parent) {
  const node = document.createElementNS(SVG, name);
  for (const [key, value] of Object.entries(attrs)) node.setAttribute(key, value);
  parent.appendChild(node);
  return node;
}

export function dressBoard(svg, spaceLayer, radius) {
  const defs = svg.querySelector("defs") || el("defs", {}, svg);
  const scan = el("pattern", { id: "holo-scan", width: 3, height: 3, patternUnits: "userSpaceOnUse" }, defs);
  el("rect", { width: 3, height: 1, class: "holo-scan-line" }, scan);
  const rim = el("radialGradient", { id: "holo-rim" }, defs);
  el("stop", { offset: "88%", "stop-color": "#6fd3ff", "stop-opacity": "0" }, rim);
  el("stop", { offset: "97%", "stop-color": "#6fd3ff", "stop-opacity": "0.55" }, rim);
  el("stop", { offset: "100%", "stop-color": "#6fd3ff", "stop-opacity": "0" }, rim);
  const under = document.createElementNS(SVG, "g");
  under.setAttribute("class", "holo-under");
  under.setAttribute("aria-hidden", "true");
  svg.insertBefore(under, spaceLayer);
  el("circle", { r: radius + 4, fill: "url(#holo-rim)" }, under);
  const over = el("g", { class: "holo-over", "aria-hidden": "true" }, svg);
  el("circle", { r: radius, fill: "url(#holo-scan)", class: "holo-scan" }, over);
  el("circle", { r: radius, class: "holo-edge" }, over);
  return over;
}
