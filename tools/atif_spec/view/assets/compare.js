// Two runs side by side (atif view A B --compare): their summaries, tool calls, and their steps
// aligned by view/compare.py (a sequence diff over each step's source and tool names); a step
// only one run has stands against a gap. A step is one click from its place in its run's page.
const TAG_TEXT = { same: '=', changed: '≠', 'only-a': 'only A', 'only-b': 'only B' };

function compareSummary(c) {
  const [a, b] = c.sides;
  const table = el('table', 'compare-summary');
  add(table, add(el('tr'), el('th'), el('th', null, 'A'), el('th', null, 'B')));
  const rows = [
    ['source', a.source, b.source, true], ['agent', a.agent, b.agent], ['model', a.model, b.model],
    ['steps', num(a.steps.length), num(b.steps.length)],
    ['prompt tokens', num(a.prompt_tokens), num(b.prompt_tokens)],
    ['completion tokens', num(a.completion_tokens), num(b.completion_tokens)],
    ['cost', cost(a.cost_usd), cost(b.cost_usd)],
    ['tool calls', num(Object.values(a.tool_calls).reduce(function (x, y) { return x + y; }, 0)), num(Object.values(b.tool_calls).reduce(function (x, y) { return x + y; }, 0))],
    ['errors', num(a.errors), num(b.errors)], ['warnings', num(a.warnings), num(b.warnings)],
  ];
  for (const [label, x, y, link] of rows) {
    const tr = el('tr', String(x) === String(y) ? null : 'differs');
    const cell = function (v, k) {
      if (!link) return el('td', 'mono', v === undefined || v === null ? '–' : v);
      const a2 = el('a', 'mono', v);
      a2.href = '#doc-' + c.docs[k];
      return add(el('td'), a2);
    };
    add(tr, el('th', null, label), cell(x, 0), cell(y, 1));
    table.appendChild(tr);
  }
  return table;
}

function compareTools(c) {
  const names = Array.from(new Set(Object.keys(c.sides[0].tool_calls).concat(Object.keys(c.sides[1].tool_calls)))).sort();
  const table = el('table', 'compare-tools');
  add(table, add(el('tr'), el('th', null, 'tool'), el('th', null, 'calls in A'), el('th', null, 'calls in B')));
  for (const name of names) {
    const x = c.sides[0].tool_calls[name] || 0, y = c.sides[1].tool_calls[name] || 0;
    add(table, add(el('tr', x === y ? null : 'differs'), el('td', 'mono', name), el('td', 'num', num(x)), el('td', 'num', num(y))));
  }
  return table;
}

function stepCell(c, k, i) {
  // One side of a row: the step, or a gap where this run has no step.
  if (i === null) return el('td', 'gap', '—');
  const s = c.sides[k].steps[i];
  const td = el('td', 'side');
  const label = 'step ' + (s.id === null ? '#' + (i + 1) : s.id);
  add(td, el('span', 'id', label + ' '), badge(s.source, s.source),
    s.tools.length ? el('span', 'mono tools', '→ ' + s.tools.join(', ') + ' ') : null,
    s.tokens !== null ? el('span', 'muted tokens', num(s.tokens) + ' tokens ') : null,
    s.errors ? badge(plural(s.errors, 'error'), 'error') : null,
    s.warnings ? badge(plural(s.warnings, 'warning'), 'warning') : null);
  td.title = 'open ' + label + ' in ' + c.sides[k].source;
  td.addEventListener('click', function () {
    location.hash = '#doc-' + c.docs[k] + '/' + (s.id === null ? '' : 'step-' + encodeURIComponent(String(s.id)));
  });
  return td;
}

function compareView() {
  const c = DATA.compare;
  const root = el('section', 'compare');
  root.appendChild(el('h1', null, 'Comparison: ' + c.sides[0].source + ' (A) and ' + c.sides[1].source + ' (B)'));
  root.appendChild(compareSummary(c));
  if (Object.keys(c.sides[0].tool_calls).length || Object.keys(c.sides[1].tool_calls).length) {
    root.appendChild(el('h2', null, 'Tool calls'));
    root.appendChild(compareTools(c));
  }
  root.appendChild(el('h2', null, 'Steps, aligned'));
  const n = c.counts;
  root.appendChild(el('p', 'note align-note', num(c.rows.length) + ' rows: ' + num(n.same) + ' same, ' + num(n.changed) + ' changed, ' +
    num(n['only-a']) + ' only in A, ' + num(n['only-b']) + ' only in B. Steps are aligned by a sequence diff over each step\'s source and tool names; ' +
    '"changed" pairs steps in the same place whose source or tools differ; a step only one run has stands against a gap.'));
  const only = el('input');
  only.type = 'checkbox';
  only.name = 'differences';
  const table = el('table', 'alignment');
  add(root, add(el('label', 'check'), only, document.createTextNode(' differences only')), table);
  add(table, add(el('tr'), el('th', null, 'A'), el('th', null, ''), el('th', null, 'B')));
  // The first rows now, the rest a chunk at a time after the first screen is up.
  let next = 0;
  const more = function (count) {
    if (next > 0 && !table.isConnected) return; // the page moved on
    const end = Math.min(c.rows.length, next + count);
    for (; next < end; next++) {
      const [i, j, tag] = c.rows[next];
      add(table, add(el('tr', 'aligned ' + tag), stepCell(c, 0, i), el('td', 'tag', TAG_TEXT[tag]), stepCell(c, 1, j)));
    }
    if (next < c.rows.length) setTimeout(function () { more(500); }, 0);
  };
  more(CHUNK * 4);
  only.addEventListener('change', function () { table.classList.toggle('differences', only.checked); });
  return root;
}
