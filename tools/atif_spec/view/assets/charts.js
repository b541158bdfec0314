// Charts as inline SVG with axes and counts. What they show, their scales (ticks) and bins come
// computed with the data (view/charts.py); this only draws them. Kinds: 'bars' (horizontal, one
// per row), 'columns' (vertical stacks of series), 'none' (a note saying why there is no chart).
function svg(tag, attrs) {
  const e = document.createElementNS(SVG, tag);
  for (const k in attrs) e.setAttribute(k, String(attrs[k]));
  return e;
}
function svgText(parent, attrs, value) {
  const t = svg('text', attrs);
  t.textContent = String(value);
  parent.appendChild(t);
  return t;
}
function tip(node, value) { node.appendChild(svg('title', {})).textContent = value; return node; }
function tickLabel(v) {
  // Axis marks stay short: 400,000 -> 400k, 2,500,000 -> 2.5M.
  if (Math.abs(v) >= 1e6) return num(v / 1e6) + 'M';
  if (Math.abs(v) >= 1e4) return num(v / 1e3) + 'k';
  return num(v);
}
function topOfTicks(ticks) { return ticks.length ? ticks[ticks.length - 1] || 1 : 1; }

function chartView(spec, onColumn) {
  // onColumn(i): called when column i of a 'columns' chart is clicked (optional).
  const box = el('div', 'chart ' + spec.kind);
  box.appendChild(el('h3', null, spec.title));
  if (spec.kind === 'none') { box.appendChild(el('p', 'muted chart-note', spec.note)); return box; }
  box.appendChild(spec.kind === 'bars' ? barsSvg(spec) : columnsSvg(spec, onColumn));
  if (spec.kind === 'columns') {
    const legend = el('div', 'legend');
    for (const s of spec.series) {
      const item = el('span', 'key');
      add(item, el('span', 'swatch ' + s.cls), el('span', null, s.name + ' '), el('span', 'count mono', num(s.total)));
      legend.appendChild(item);
    }
    box.appendChild(legend);
  }
  if (spec.note) box.appendChild(el('p', 'muted chart-note', spec.note));
  return box;
}

function barsSvg(spec) {
  const W = 380, labelW = 130, right = 44, bar = 16, gap = 4;
  const plotW = W - labelW - right, top = topOfTicks(spec.ticks);
  const H = spec.rows.length * (bar + gap);
  const s = svg('svg', { viewBox: '0 0 ' + W + ' ' + (H + 20), width: W, height: H + 20, role: 'img' });
  s.appendChild(svg('title', {})).textContent = spec.title;
  const at = function (v) { return labelW + plotW * v / top; };
  for (const t of spec.ticks) {
    s.appendChild(svg('line', { x1: at(t), x2: at(t), y1: 0, y2: H, class: 'gridline' }));
    svgText(s, { x: at(t), y: H + 14, 'text-anchor': 'middle', class: 'tick' }, tickLabel(t));
  }
  s.appendChild(svg('line', { x1: labelW, x2: labelW + plotW, y1: H, y2: H, class: 'axis' }));
  spec.rows.forEach(function (r, i) {
    const y = i * (bar + gap);
    svgText(s, { x: labelW - 6, y: y + 12, 'text-anchor': 'end', class: 'label' }, String(r[0]).slice(0, 22));
    s.appendChild(tip(svg('rect', { x: labelW, y: y, width: Math.max(r[1] ? 1 : 0, at(r[1]) - labelW), height: bar, class: 'bar ' + (r[2] || '') }), r[0] + ': ' + num(r[1])));
    svgText(s, { x: at(r[1]) + 4, y: y + 12, class: 'count' }, num(r[1]));
  });
  return s;
}

function columnsSvg(spec, onColumn) {
  const n = spec.labels.length;
  const left = 56, right = 12, H = 140, bottom = 36;
  const W = n > 24 ? 760 : 400;
  const plotW = W - left - right, colW = plotW / n, top = topOfTicks(spec.ticks);
  const s = svg('svg', { viewBox: '0 0 ' + W + ' ' + (H + bottom + 8), width: W, height: H + bottom + 8, role: 'img' });
  s.appendChild(svg('title', {})).textContent = spec.title;
  const y = function (v) { return 8 + H - H * v / top; };
  for (const t of spec.ticks) {
    s.appendChild(svg('line', { x1: left, x2: W - right, y1: y(t), y2: y(t), class: 'gridline' }));
    svgText(s, { x: left - 4, y: y(t) + 3, 'text-anchor': 'end', class: 'tick' }, tickLabel(t));
  }
  s.appendChild(svg('line', { x1: left, x2: left, y1: 8, y2: y(0), class: 'axis' }));
  s.appendChild(svg('line', { x1: left, x2: W - right, y1: y(0), y2: y(0), class: 'axis' }));
  svgText(s, { x: 10, y: 8 + H / 2, 'text-anchor': 'middle', class: 'axis-name', transform: 'rotate(-90 10 ' + (8 + H / 2) + ')' }, spec.y);
  svgText(s, { x: left + plotW / 2, y: H + bottom + 4, 'text-anchor': 'middle', class: 'axis-name' }, spec.x);
  const counts = n <= 24;
  for (let i = 0; i < n; i++) {
    const g = svg('g', { class: 'column' + (onColumn ? ' clickable' : '') });
    let base = 0;
    const parts = [];
    for (const sr of spec.series) {
      const v = sr.values[i];
      parts.push(sr.name + ' ' + num(v));
      if (v > 0) g.appendChild(svg('rect', { x: left + i * colW + (colW > 4 ? 1 : 0), y: y(base + v), width: Math.max(0.5, colW - (colW > 4 ? 2 : 0)), height: y(base) - y(base + v), class: 'bar ' + sr.cls }));
      base += v;
    }
    tip(g, spec.x + ' ' + spec.labels[i] + ': ' + parts.join(' · '));
    if (counts && base > 0) svgText(g, { x: left + (i + 0.5) * colW, y: y(base) - 3, 'text-anchor': 'middle', class: 'count' }, num(base));
    if (onColumn) {
      // The column's whole height takes the click, not only its bars.
      g.insertBefore(svg('rect', { x: left + i * colW, y: 8, width: colW, height: H, class: 'hit' }), g.firstChild);
      g.addEventListener('click', function () { onColumn(i); });
    }
    s.appendChild(g);
  }
  // As many x labels as fit, evenly spread, the first and the last always.
  const longest = Math.max.apply(null, spec.labels.map(function (l) { return String(l).length; }));
  const room = Math.max(2, Math.floor(plotW / Math.max(24, 7 * longest + 12)));
  const shown = new Set();
  for (let k = 0; k < Math.min(room, n); k++) shown.add(Math.round(k * (n - 1) / Math.max(1, Math.min(room, n) - 1)));
  for (const i of shown) {
    // The first and last labels of many columns start and end at the plot's edges (not cut off).
    const edge = n > 24 && i === 0 ? ['start', left] : n > 24 && i === n - 1 ? ['end', W - right] : ['middle', left + (i + 0.5) * colW];
    svgText(s, { x: edge[1], y: y(0) + 14, 'text-anchor': edge[0], class: 'tick' }, spec.labels[i]);
  }
  return s;
}
