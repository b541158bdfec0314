// A dataset: its index (validity, one click to each document), statistics and small charts.
function svg(tag, attrs) {
  const e = document.createElementNS(SVG, tag);
  for (const k in attrs) e.setAttribute(k, String(attrs[k]));
  return e;
}
function barChart(title, rows, cls) {
  const box = el('div', 'chart');
  box.appendChild(el('h3', null, title));
  const W = 320, bar = 16, gap = 4, labelW = 130;
  const max = Math.max(1, ...rows.map(function (r) { return r[1]; }));
  const s = svg('svg', { width: W, height: rows.length * (bar + gap) + 4, role: 'img' });
  s.appendChild(svg('title', {})).textContent = title;
  rows.forEach(function (r, i) {
    const y = i * (bar + gap);
    const t = svg('text', { x: 0, y: y + 12 }); t.textContent = String(r[0]).slice(0, 22); s.appendChild(t);
    s.appendChild(svg('rect', { x: labelW, y: y, width: Math.max(1, (W - labelW - 50) * r[1] / max), height: bar, class: 'bar ' + (r[2] || cls || '') }));
    const v = svg('text', { x: labelW + (W - labelW - 50) * r[1] / max + 4, y: y + 12 }); v.textContent = num(r[1]); s.appendChild(v);
  });
  box.appendChild(s);
  return box;
}
function histogram(title, values) {
  const box = el('div', 'chart');
  box.appendChild(el('h3', null, title));
  if (!values || !values.length) { box.appendChild(el('p', 'muted', 'no data')); return box; }
  const lo = values[0], hi = values[values.length - 1];
  const bins = 20, W = 320, H = 100;
  const width = Math.max(1, (hi - lo) / bins);
  const counts = new Array(bins).fill(0);
  for (const v of values) counts[Math.min(bins - 1, Math.floor((v - lo) / width))]++;
  const max = Math.max(...counts);
  const s = svg('svg', { width: W, height: H + 16, role: 'img' });
  s.appendChild(svg('title', {})).textContent = title;
  counts.forEach(function (c, i) {
    const h = H * c / max;
    s.appendChild(svg('rect', { x: i * (W / bins) + 1, y: H - h, width: W / bins - 2, height: h, class: 'bar' }));
  });
  const a = svg('text', { x: 0, y: H + 12 }); a.textContent = num(lo); s.appendChild(a);
  const b = svg('text', { x: W - 60, y: H + 12 }); b.textContent = num(hi); s.appendChild(b);
  box.appendChild(s);
  return box;
}

function pageNote() {
  // Which documents this page holds and how to write the others (--max-docs bounds a page).
  const total = num(DATA.total) + ' documents';
  if (DATA.shown === DATA.total) return total + '; all shown';
  const again = 'atif view ' + DATA.named.join(' ') + ' --max-docs ' + DATA.max_docs + ' --page N';
  if (!DATA.shown) return total + '; page ' + DATA.page + ' is past the last page (' + DATA.pages + ' pages of ' + num(DATA.max_docs) + ', --max-docs); write one with: ' + again;
  return total + '; this page shows documents ' + num(DATA.first + 1) + '–' + num(DATA.first + DATA.shown) +
    ' (page ' + DATA.page + ' of ' + DATA.pages + ', --max-docs ' + DATA.max_docs + '); the statistics count all ' + num(DATA.total) +
    '; the other pages: ' + again + ' (N from 1 to ' + DATA.pages + ')';
}

function indexView() {
  const root = el('section', 'index');
  const job = DATA.trials && DATA.trials.length;
  root.appendChild(el('h1', null, job ? 'Harbor job: ' + DATA.named.join(', ') : 'Dataset: ' + DATA.inputs.join(', ')));
  root.appendChild(el('p', 'note', pageNote()));
  if (job) root.appendChild(trialsView());
  const st = DATA.stats;
  if (st) {
    root.appendChild(el('h2', null, 'Statistics'));
    root.appendChild(grid([
      ['documents', num(st.documents)], ['valid', num(st.valid)], ['invalid', num(st.invalid)],
      ['steps', num(st.steps)], ['agent steps', num(st.agent_steps)],
      ['prompt tokens', num(st.tokens.prompt)], ['completion tokens', num(st.tokens.completion)],
      ['cached tokens', num(st.tokens.cached)], ['cost', cost(st.cost_usd)],
      ['copied-context steps', num(st.copied_context_steps)], ['llm_call_count 0 steps', num(st.zero_call_steps)],
      ['steps/doc p50 · p90 · max', st.distributions.steps ? [st.distributions.steps.p50, st.distributions.steps.p90, st.distributions.steps.max].map(num).join(' · ') : null],
      ['tokens/doc p50 · p90 · max', st.distributions.tokens ? [st.distributions.tokens.p50, st.distributions.tokens.p90, st.distributions.tokens.max].map(num).join(' · ') : null],
    ]));
    const charts = el('div', 'charts');
    charts.appendChild(barChart('validity', [['valid', st.valid, 'good'], ['invalid', st.invalid, 'bad']]));
    const calls = Object.entries(st.tool_calls).sort(function (a, b) { return b[1] - a[1]; }).slice(0, 8);
    if (calls.length) charts.appendChild(barChart('tool calls (top ' + calls.length + ')', calls));
    const codes = Object.entries(st.findings).map(function (e) { return [e[0], e[1].findings]; }).sort(function (a, b) { return b[1] - a[1]; }).slice(0, 8);
    if (codes.length) charts.appendChild(barChart('findings by code (top ' + codes.length + ')', codes, 'bad'));
    charts.appendChild(histogram('steps per document', DATA.values ? DATA.values.steps : null));
    charts.appendChild(histogram('tokens per document', DATA.values ? DATA.values.tokens : null));
    root.appendChild(charts);
  }
  root.appendChild(el('h2', null, 'Documents'));
  const table = el('table');
  const head = el('tr');
  for (const h of ['#', 'source', 'version', 'validity', 'errors', 'warnings', 'steps', 'tokens', 'model']) head.appendChild(el('th', null, h));
  table.appendChild(head);
  DATA.index.forEach(function (r, i) {
    const tr = el('tr', 'row');
    const a = el('a', null, r.source + (r.line ? ':' + r.line : ''));
    a.href = '#doc-' + r.doc;
    const cells = [el('td', null, DATA.first + i + 1), add(el('td'), a), el('td', 'mono', r.version),
      add(el('td'), badge(r.valid ? 'valid' : 'invalid', r.valid ? 'valid' : 'invalid')),
      el('td', null, r.errors), el('td', null, r.warnings), el('td', null, num(r.steps)), el('td', null, num(r.tokens)), el('td', 'mono', r.model || '')];
    for (const c of cells) tr.appendChild(c);
    tr.addEventListener('click', function (ev) { if (ev.target !== a) location.hash = '#doc-' + r.doc; });
    table.appendChild(tr);
  });
  root.appendChild(table);
  return root;
}

