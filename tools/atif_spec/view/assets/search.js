// Search over the whole document (every step of every subagent, folded text included: it reads
// the data, not the lazily drawn page) with hit counts and next/previous; filters of the
// timeline by step source, tool, findings and subagents; the toolbar that holds them.
const filters = { source: '', tool: '', findings: '', subagents: false };
const search = { doc: null, corpus: null, query: '', hits: [], total: 0, at: -1 };

function resetSearch() {
  filters.source = ''; filters.tool = ''; filters.findings = ''; filters.subagents = false;
  search.doc = null; search.corpus = null; search.query = ''; search.hits = []; search.total = 0; search.at = -1;
  if (window.CSS && CSS.highlights) CSS.highlights.clear();
}

function topOf(doc, key) {
  // The index of the top-level step a step pointer belongs to (a subagent's steps belong to the
  // step that launched it); null for a subagent no call launched.
  const m = /^\/(steps|subagent_trajectories)\/(\d+)/.exec(key);
  if (!m) return null;
  if (m[1] === 'steps') return Number(m[2]);
  const at = launches(DATA.docs[doc].atif).get(Number(m[2]));
  return at === undefined ? null : at;
}

function strings(value, out) {
  if (typeof value === 'string') out.push(value);
  else if (Array.isArray(value)) for (const v of value) strings(v, out);
  else if (isObj(value)) for (const k in value) strings(value[k], out);
  return out;
}

function corpusOf(doc) {
  // Every step in the order the page shows them (a subagent's steps after the step that
  // launched it), with its text in lower case.
  const out = [];
  const visit = function (base, traj) {
    const launched = launches(traj);
    const after = new Map();
    launched.forEach(function (i, k) { if (!after.has(i)) after.set(i, []); after.get(i).push(k); });
    const subs = Array.isArray(traj.subagent_trajectories) ? traj.subagent_trajectories : [];
    stepsOf(traj).forEach(function (step, i) {
      const key = ptr(base, 'steps', i);
      out.push({ key: key, top: topOf(doc, key), text: strings(step, []).join('\n').toLowerCase() });
      for (const k of after.get(i) || []) if (isObj(subs[k])) visit(ptr(base, 'subagent_trajectories', k), subs[k]);
    });
    subs.forEach(function (s, k) { if (!launched.has(k) && isObj(s)) visit(ptr(base, 'subagent_trajectories', k), s); });
  };
  visit('', DATA.docs[doc].atif);
  return out;
}

function occurrences(haystack, needle) {
  let n = 0;
  for (let at = haystack.indexOf(needle); at >= 0; at = haystack.indexOf(needle, at + needle.length)) n++;
  return n;
}

function runSearch(doc, query) {
  search.query = query.toLowerCase();
  search.hits = []; search.total = 0; search.at = -1;
  if (window.CSS && CSS.highlights) CSS.highlights.clear();
  if (search.query) {
    if (search.doc !== doc) { search.corpus = corpusOf(doc); search.doc = doc; }
    for (const entry of search.corpus) {
      if (entry.top !== null && filtersOn() && !passes(doc, entry.top)) continue;
      const n = occurrences(entry.text, search.query);
      if (n) { search.hits.push(entry.key); search.total += n; }
    }
  }
  showCount();
}

function showCount() {
  const out = document.getElementById('q-count');
  if (!out) return;
  if (!search.query) out.textContent = '';
  else if (!search.hits.length) out.textContent = 'no hits';
  else out.textContent = (search.at < 0 ? '' : (search.at + 1) + ' / ') + plural(search.hits.length, 'step') + ' · ' + plural(search.total, 'hit');
}

function goHit(doc, delta) {
  if (!search.hits.length) return;
  const n = search.hits.length;
  search.at = search.at < 0 ? (delta > 0 ? 0 : n - 1) : (search.at + delta + n) % n;
  const key = search.hits[search.at];
  const li = openStep(doc, key);
  showCount();
  if (!li) return;
  const top = topOf(doc, key);
  if (key === ptr('', 'steps', top)) setCursor(top);
  unfold(li);
  const ranges = markHits(li, search.query);
  const at = ranges.length ? ranges[0].startContainer.parentElement : li;
  reach(at, 'center');
  if (!ranges.length) flash(li);
}

function own(li, node) { return (node.nodeType === 1 ? node : node.parentElement).closest('li.step') === li; }

function markHits(li, query) {
  // Open what holds a hit in this step (folded text, closed fields), then highlight every hit.
  li.querySelectorAll('pre, details.field').forEach(function (n) {
    if (!own(li, n) || !n.textContent.toLowerCase().includes(query)) return;
    if (n.tagName === 'PRE') showAll(n); else n.open = true;
  });
  const ranges = [];
  const walk = document.createTreeWalker(li, NodeFilter.SHOW_TEXT);
  for (let t = walk.nextNode(); t; t = walk.nextNode()) {
    if (!own(li, t) || t.parentElement.closest('.preview, button, .step-head .id')) continue; // labels are not content
    const s = t.data.toLowerCase();
    for (let at = s.indexOf(query); at >= 0; at = s.indexOf(query, at + query.length)) {
      const r = document.createRange();
      r.setStart(t, at); r.setEnd(t, at + query.length);
      ranges.push(r);
    }
  }
  if (window.CSS && CSS.highlights && typeof Highlight === 'function') {
    CSS.highlights.set('hit', new Highlight(...ranges));
    if (ranges.length) CSS.highlights.set('hit-current', new Highlight(ranges[0]));
  }
  return ranges;
}

// --- filters -------------------------------------------------------------------------------
function filtersOn() { return !!(filters.source || filters.tool || filters.findings || filters.subagents); }

function stepLevels(doc) {
  // Per top-level step: its findings' levels, those of the subagents it launched included.
  const fx = shown.get(doc);
  if (!fx.levels) {
    fx.levels = new Map();
    // A source tree's findings point into the source, not at the ATIF steps: they filter nothing.
    for (const f of DATA.docs[doc].tree ? [] : DATA.docs[doc].findings) {
      const m = STEP_KEY.exec(f.pointer || '');
      const top = m ? topOf(doc, m[1]) : null;
      if (top === null) continue;
      if (!fx.levels.has(top)) fx.levels.set(top, new Set());
      fx.levels.get(top).add(f.level === 'warning' ? 'warning' : 'error');
    }
  }
  return fx.levels;
}

function passes(doc, i) {
  const step = stepsOf(DATA.docs[doc].atif)[i];
  if (!isObj(step)) return !filters.source && !filters.tool && !filters.findings && !filters.subagents;
  if (filters.source && step.source !== filters.source) return false;
  if (filters.tool && !(Array.isArray(step.tool_calls) && step.tool_calls.some(function (c) { return isObj(c) && c.function_name === filters.tool; }))) return false;
  if (filters.subagents && !refsOf(step).length) return false;
  if (filters.findings) {
    const levels = stepLevels(doc).get(i);
    if (!levels || (filters.findings !== 'any' && !levels.has(filters.findings))) return false;
  }
  return true;
}

function filterNode(doc, node, i) {
  node.classList.toggle('filtered-out', filtersOn() && !passes(doc, i));
}

function applyFilters(doc) {
  const view = views.get(doc + '|');
  if (!view) return;
  if (filtersOn()) view.renderUpTo(view.steps.length); // every match is in the page
  let n = 0;
  view.nodes.forEach(function (node, i) { filterNode(doc, node, i); if (!node.classList.contains('filtered-out')) n++; });
  const out = document.getElementById('f-count');
  if (out) out.textContent = filtersOn() ? 'showing ' + num(n) + ' of ' + plural(view.steps.length, 'step') : '';
  if (search.query) runSearch(doc, search.query);
}

function clearFiltersFor(doc, i) {
  // Going to a step the filters hide clears them.
  if (i === null || !filtersOn() || passes(doc, i)) return;
  resetFilterControls();
  applyFilters(doc);
}

function resetFilterControls() {
  filters.source = ''; filters.tool = ''; filters.findings = ''; filters.subagents = false;
  document.querySelectorAll('.toolbar select').forEach(function (s) { s.value = ''; });
  document.querySelectorAll('.toolbar input[type=checkbox]').forEach(function (c) { c.checked = false; });
}

function select(name, label, options, doc) {
  const s = el('select');
  s.name = name;
  s.setAttribute('aria-label', label);
  for (const [value, text] of options) { const o = el('option', null, text); o.value = value; s.appendChild(o); }
  s.addEventListener('change', function () { filters[name] = s.value; applyFilters(doc); });
  return s;
}

function toolbar(doc) {
  const steps = stepsOf(DATA.docs[doc].atif);
  const bar = el('div', 'toolbar');
  const box = el('input');
  box.type = 'search'; box.id = 'q';
  box.placeholder = 'search all steps and subagents (Ctrl+F)';
  box.title = 'Searches every step, subagents and folded text included; Enter: next hit, Shift+Enter: previous. Ctrl+F pressed again opens the browser\'s find.';
  box.setAttribute('aria-label', 'search');
  let timer = null;
  box.addEventListener('input', function () { clearTimeout(timer); timer = setTimeout(function () { runSearch(doc, box.value); }, 120); });
  box.addEventListener('keydown', function (ev) {
    if (ev.key !== 'Enter') return;
    clearTimeout(timer);
    if (box.value.toLowerCase() !== search.query) runSearch(doc, box.value);
    goHit(doc, ev.shiftKey ? -1 : 1);
  });
  const sources = Array.from(new Set(steps.map(function (s) { return isObj(s) ? s.source : null; }).filter(function (s) { return typeof s === 'string'; }))).sort();
  const tools = new Map();
  for (const s of steps) for (const c of (isObj(s) && Array.isArray(s.tool_calls) ? s.tool_calls : [])) {
    if (isObj(c) && typeof c.function_name === 'string') tools.set(c.function_name, (tools.get(c.function_name) || 0) + 1);
  }
  const subs = el('label', 'check');
  const check = el('input');
  check.type = 'checkbox'; check.name = 'subagents';
  check.addEventListener('change', function () { filters.subagents = check.checked; applyFilters(doc); });
  add(subs, check, document.createTextNode(' launches subagents'));
  const compact = button(document.body.classList.contains('compact') ? 'full steps' : 'compact', function () { setCompact(!document.body.classList.contains('compact')); }, 'tool');
  compact.id = 'compact';
  add(bar, box, el('span', 'count', ''),
    button('↑', function () { goHit(doc, -1); }, 'tool'), button('↓', function () { goHit(doc, 1); }, 'tool'),
    select('source', 'step source', [['', 'every source']].concat(sources.map(function (s) { return [s, s + ' steps']; })), doc),
    select('tool', 'tool', [['', 'every tool']].concat(Array.from(tools.entries()).sort(function (a, b) { return b[1] - a[1]; }).map(function (e) { return [e[0], e[0] + ' (' + e[1] + ')']; })), doc),
    select('findings', 'findings', [['', 'findings or not'], ['any', 'steps with findings'], ['error', 'steps with errors'], ['warning', 'steps with warnings']], doc),
    subs, el('span', 'count', ''), compact,
    steps.length > CHUNK ? button('draw all ' + num(steps.length) + ' steps', function (ev) {
      views.get(doc + '|').renderUpTo(steps.length);
      ev.target.textContent = 'all steps drawn: the browser\'s find sees them';
    }, 'tool') : null,
    el('span', 'muted keys', 'keys: j/k step · n/p finding · / search · c compact'));
  bar.children[1].id = 'q-count';
  bar.querySelectorAll('span.count')[1].id = 'f-count';
  return bar;
}
