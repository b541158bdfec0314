// A dataset: its index (validity, one click to each document; sorted and filtered by the table
// a job folder's trials share, indexTable), statistics and charts.
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
    for (const c of DATA.charts || []) charts.appendChild(chartView(c));
    root.appendChild(charts);
  }
  root.appendChild(el('h2', null, 'Documents'));
  const rows = DATA.index.map(function (r, i) { return Object.assign({ n: DATA.first + i + 1 }, r); });
  root.appendChild(indexTable({
    name: 'doc', noun: 'document', columns: DOC_COLUMNS, rows: rows, row: docRow,
    value: function (r, key) { return key === 'validity' ? r.valid : r[key]; },
    choice: { label: 'validity', all: 'valid or not', of: function (r) { return r.valid ? 'valid' : 'invalid'; } },
    placeholder: 'filter documents: source, version, model',
    text: function (r) { return [r.source + (r.line ? ':' + r.line : ''), r.version, r.model]; },
    scope: DATA.shown === DATA.total ? '' : ' on this page',
  }));
  return root;
}

const DOC_COLUMNS = [
  ['#', 'n'], ['source', 'source'], ['version', 'version'], ['validity', 'validity'], ['errors', 'errors'],
  ['warnings', 'warnings'], ['steps', 'steps'], ['tokens', 'tokens'], ['model', 'model'],
];
function docRow(r) {
  const tr = el('tr', 'row doc');
  const a = el('a', null, r.source + (r.line ? ':' + r.line : ''));
  a.href = '#doc-' + r.doc;
  const cells = [el('td', null, r.n), add(el('td'), a), el('td', 'mono', r.version),
    add(el('td'), badge(r.valid ? 'valid' : 'invalid', r.valid ? 'valid' : 'invalid')),
    el('td', null, r.errors), el('td', null, r.warnings), el('td', null, num(r.steps)), el('td', null, num(r.tokens)), el('td', 'mono', r.model || '')];
  for (const c of cells) tr.appendChild(c);
  tr.addEventListener('click', function (ev) { if (ev.target !== a) location.hash = '#doc-' + r.doc; });
  return tr;
}

// The index of a dataset's documents and of a job folder's trials: one table, sorted by clicking
// a column (again: the other way; missing values last), filtered by one choice and by text.
// spec: name (class prefix), noun, columns [[label, key or null]], rows, row(r) -> <tr>,
// value(r, key), choice {label, all, of(r)}, placeholder, text(r) -> strings, scope.
function indexTable(spec) {
  const box = el('div', 'index-table');
  const bar = el('div', 'index-filters ' + spec.name + '-filters');
  const choice = el('select');
  choice.setAttribute('aria-label', spec.choice.label);
  const seen = Array.from(new Set(spec.rows.map(spec.choice.of))).sort();
  for (const o of [spec.choice.all].concat(seen)) { const opt = el('option', null, o); opt.value = o === spec.choice.all ? '' : o; choice.appendChild(opt); }
  const query = el('input');
  query.type = 'search'; query.placeholder = spec.placeholder;
  query.setAttribute('aria-label', spec.placeholder.split(':')[0]);
  const count = el('span', 'muted ' + spec.name + '-count');
  add(bar, choice, query, count);
  const table = el('table', spec.name + '-table');
  const head = el('tr');
  const state = { key: null, dir: 1 };
  const body = el('tbody');
  function draw() {
    const q = query.value.trim().toLowerCase();
    let rows = spec.rows.filter(function (r) {
      if (choice.value && spec.choice.of(r) !== choice.value) return false;
      return !q || spec.text(r).filter(Boolean).join(' ').toLowerCase().indexOf(q) >= 0;
    });
    if (state.key) {
      rows = rows.slice().sort(function (a, b) {
        const x = spec.value(a, state.key), y = spec.value(b, state.key);
        if (x === y) return 0;
        if (x === null || x === undefined) return 1; // missing values last either way
        if (y === null || y === undefined) return -1;
        return (x < y ? -1 : 1) * state.dir;
      });
    }
    body.textContent = '';
    for (const r of rows) body.appendChild(spec.row(r));
    count.textContent = rows.length + ' of ' + plural(spec.rows.length, spec.noun) + (spec.scope || '');
  }
  for (const [label, key] of spec.columns) {
    const th = el('th', key ? 'sortable' : null, label);
    if (key) {
      th.tabIndex = 0;
      th.setAttribute('data-key', key);
      const sort = function () {
        state.dir = state.key === key ? -state.dir : 1;
        state.key = key;
        for (const other of head.children) other.removeAttribute('aria-sort');
        th.setAttribute('aria-sort', state.dir === 1 ? 'ascending' : 'descending');
        draw();
      };
      th.addEventListener('click', sort);
      th.addEventListener('keydown', function (ev) { if (ev.key === 'Enter') sort(); });
    }
    head.appendChild(th);
  }
  add(table, add(el('thead'), head), body);
  choice.addEventListener('change', draw);
  query.addEventListener('input', draw);
  draw();
  return add(box, bar, table);
}

