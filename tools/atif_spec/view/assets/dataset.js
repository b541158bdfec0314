// A dataset: its index (validity, one click to each document; the virtualised table a job
// folder's trials share, indexTable in index.js), statistics and charts.
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
    link: function (r) { return r.doc === null ? null : 'doc-' + r.doc; },
    scope: DATA.shown === DATA.total ? '' : ' on this page, of ' + num(DATA.total) + ' in the dataset (--max-docs ' + DATA.max_docs + '; --page N for the others)',
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
