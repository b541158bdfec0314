// The index of a dataset's documents and of a job folder's trials: one virtualised table. Sorted
// by clicking a column (again: the other way; missing values last) and filtered by one choice and
// by text over every row of the page's data; only the rows in its scroll box's window, and
// OVERSCAN more on each side, are in the DOM (spacer rows stand for the others). A row's height
// is measured once it is drawn (until then: the mean of the first rows drawn). Its filter box is the
// index's search (Ctrl+F and / go there: the browser's find sees only the drawn rows); keys
// j/k move a current row, Enter or o opens it; #index/doc-N scrolls to the row linking #doc-N.
const OVERSCAN = 8;
const ROW_GUESS = 30; // px: a row's height before any is measured
const VIEW_GUESS = 600; // px: the scroll box's height before it is laid out
const indexes = []; // the index tables on the page, in order

// spec: name (class prefix), noun, columns [[label, key or null]], rows, row(r) -> <tr>,
// value(r, key), choice {label, all, of(r)}, placeholder, text(r) -> strings, link(r) -> 'doc-N'
// or null, scope (words after the count).
function indexTable(spec) {
  const box = el('div', 'index-table');
  const bar = el('div', 'index-filters ' + spec.name + '-filters');
  const choice = el('select');
  choice.setAttribute('aria-label', spec.choice.label);
  const seen = Array.from(new Set(spec.rows.map(spec.choice.of))).sort();
  for (const o of [spec.choice.all].concat(seen)) { const opt = el('option', null, o); opt.value = o === spec.choice.all ? '' : o; choice.appendChild(opt); }
  const query = el('input');
  query.type = 'search'; query.placeholder = spec.placeholder + ' (Ctrl+F)';
  query.title = 'Searches every row of the index (the browser\u2019s find sees only the rows drawn); j/k: next/previous row, Enter: open it';
  query.setAttribute('aria-label', spec.placeholder.split(':')[0]);
  const count = el('span', 'muted ' + spec.name + '-count');
  add(bar, choice, query, count);
  const scroller = el('div', 'index-scroll');
  const table = el('table', spec.name + '-table');
  const head = el('tr');
  const body = el('tbody');
  const texts = spec.rows.map(function (r) { return spec.text(r).filter(Boolean).join(' ').toLowerCase(); });
  const heights = new Float64Array(spec.rows.length); // 0: not measured yet
  const state = { key: null, dir: 1, list: [], tops: null, drawn: new Map(), from: 0, to: 0, cursor: -1 };
  let guess = 0; // an unmeasured row's height: the mean of the first rows drawn, then fixed (a row
  // measured moves only the rows after it)
  const above = spacer(spec.columns.length), below = spacer(spec.columns.length);

  function compare(a, b) {
    const x = spec.value(spec.rows[a], state.key), y = spec.value(spec.rows[b], state.key);
    if (x === y) return 0;
    if (x === null || x === undefined) return 1; // missing values last either way
    if (y === null || y === undefined) return -1;
    return (x < y ? -1 : 1) * state.dir;
  }
  function filter() {
    // Every row of the data, filtered then sorted (stable: the page's order among equals).
    const q = query.value.trim().toLowerCase();
    const list = [];
    for (let i = 0; i < spec.rows.length; i++) {
      if (choice.value && spec.choice.of(spec.rows[i]) !== choice.value) continue;
      if (!q || texts[i].indexOf(q) >= 0) list.push(i);
    }
    if (state.key) list.sort(compare);
    state.list = list; state.cursor = -1;
    for (const tr of state.drawn.values()) tr.remove();
    state.drawn.clear();
    count.textContent = num(list.length) + ' of ' + plural(spec.rows.length, spec.noun) + (spec.scope || '');
    scroller.scrollTop = 0;
    render();
  }
  function measure() {
    // tops[k]: where row k of the list starts in the body; tops[n]: the body's height.
    const tops = new Float64Array(state.list.length + 1);
    for (let k = 0; k < state.list.length; k++) tops[k + 1] = tops[k] + (heights[state.list[k]] || guess || ROW_GUESS);
    state.tops = tops;
  }
  function at(y) {
    // The list position of the row at y (0 when above the first).
    const tops = state.tops;
    let lo = 0, hi = tops.length - 1;
    while (lo < hi) { const mid = (lo + hi + 1) >> 1; if (tops[mid] <= y) lo = mid; else hi = mid - 1; }
    return Math.min(lo, Math.max(0, state.list.length - 1));
  }
  function render() {
    // Draw the rows in view; once drawn rows are measured, again with their heights (the end of
    // the list stays the end).
    const end = scroller.scrollTop > 0 && scroller.scrollTop + scroller.clientHeight >= scroller.scrollHeight - 1;
    for (let pass = 0; pass < 2; pass++) {
      measure();
      const y = scroller.scrollTop - head.offsetHeight;
      const view = scroller.clientHeight || VIEW_GUESS;
      place(Math.max(0, at(y) - OVERSCAN), Math.min(state.list.length, at(y + view) + 1 + OVERSCAN));
      let changed = false, sum = 0;
      for (const [k, tr] of state.drawn) {
        const i = state.list[k], h = tr.offsetHeight;
        sum += h;
        if (h && h !== heights[i]) { heights[i] = h; changed = true; }
      }
      if (!guess && sum) guess = sum / state.drawn.size;
      if (!changed) break;
      measure();
      pad();
      if (end) scroller.scrollTop = scroller.scrollHeight;
    }
    pad();
  }
  function pad() {
    // The spacers: the heights of the rows above and below the drawn ones.
    above.firstChild.style.height = state.tops[state.from] + 'px';
    below.firstChild.style.height = (state.tops[state.list.length] - state.tops[state.to]) + 'px';
  }
  function place(from, to) {
    // Draw rows from..to of the list, keeping the drawn rows still in it (a focused link stays).
    for (const [k, tr] of state.drawn) if (k < from || k >= to) { tr.remove(); state.drawn.delete(k); }
    let next = null;
    for (let k = to - 1; k >= from; k--) {
      let tr = state.drawn.get(k);
      if (!tr) {
        tr = spec.row(spec.rows[state.list[k]]);
        state.drawn.set(k, tr);
        body.insertBefore(tr, next || below);
      }
      tr.classList.toggle('current', k === state.cursor);
      next = tr;
    }
    state.from = from; state.to = to;
  }
  function reveal(k) {
    // Scroll the index (and the page, to the index) to row k of the list.
    if (k < 0 || k >= state.list.length) return null;
    scroller.scrollIntoView({ block: 'nearest' });
    for (let pass = 0; pass < 2; pass++) { // the second pass: heights measured in the first
      const h = heights[state.list[k]] || guess || ROW_GUESS;
      scroller.scrollTop = state.tops[k] + head.offsetHeight - (scroller.clientHeight - h) / 2;
      render();
    }
    return state.drawn.get(k);
  }
  function move(delta) {
    if (!state.list.length) return;
    const k = state.cursor < 0 ? at(scroller.scrollTop) // the first row in view
      : Math.min(state.list.length - 1, Math.max(0, state.cursor + delta));
    state.cursor = k;
    reveal(k);
  }
  function open() {
    const tr = state.cursor < 0 ? null : state.drawn.get(state.cursor);
    if (tr) tr.click();
  }
  function find(link) {
    // Scroll to the row whose link is link ('doc-N'); false when no row of the list has it.
    const k = state.list.findIndex(function (i) { return spec.link(spec.rows[i]) === link; });
    if (k < 0) return false;
    state.cursor = k;
    const tr = reveal(k);
    if (tr) flash(tr);
    return true;
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
        filter();
      };
      th.addEventListener('click', sort);
      th.addEventListener('keydown', function (ev) { if (ev.key === 'Enter') sort(); });
    }
    head.appendChild(th);
  }
  add(body, above, below);
  add(table, add(el('thead'), head), body);
  scroller.appendChild(table);
  choice.addEventListener('change', filter);
  query.addEventListener('input', filter);
  query.addEventListener('keydown', function (ev) { if (ev.key === 'Enter') { ev.preventDefault(); move(1); query.blur(); } });
  let queued = false;
  scroller.addEventListener('scroll', function () {
    if (queued) return;
    queued = true;
    requestAnimationFrame(function () { queued = false; render(); });
  });
  const resized = new ResizeObserver(function () { if (scroller.isConnected) render(); });
  resized.observe(scroller);
  filter();
  indexes.push({ query: query, move: move, open: open, find: find, stop: function () { resized.disconnect(); } });
  return add(box, bar, scroller);
}

function spacer(columns) {
  const tr = el('tr', 'spacer');
  const td = el('td');
  td.colSpan = columns;
  tr.setAttribute('aria-hidden', 'true');
  return add(tr, td);
}

function goIndex(rest) {
  // #index/doc-N: the first index row that links to document N.
  const m = /^index\/(doc-\d+)$/.exec(rest);
  return !!m && indexes.some(function (t) { return t.find(m[1]); });
}
