// One document's page: header, totals beside the document's own final_metrics, the findings
// list, the source tree of other formats, the timeline; and opening the way to a pointer.
function tree(doc, value, p, key, list) {
  // A JSON tree (non-ATIF sources): a finding shows at the deepest node that exists on its path.
  const isBox = value !== null && typeof value === 'object';
  const inside = list.filter(function (fk) { return within(fk[0].pointer || '', p); });
  const here = inside.filter(function (fk) {
    const q = fk[0].pointer || '';
    if (q === p || !isBox) return true;
    return !Object.prototype.hasOwnProperty.call(value, untoken(q.slice(p.length + 1).split('/')[0]));
  });
  if (!isBox) {
    const row = el('div', 'leaf');
    row.setAttribute('data-ptr', p);
    add(row, key !== null ? el('span', 'key mono', key + ': ') : null, el('span', 'mono', JSON.stringify(value).slice(0, FOLD)));
    for (const [f, k] of here) row.appendChild(findingBox(doc, f, k));
    return row;
  }
  const d = el('details', 'tree');
  d.setAttribute('data-ptr', p);
  const n = Array.isArray(value) ? value.length : Object.keys(value).length;
  add(d, add(el('summary'), key !== null ? el('span', 'key mono', key) : el('span', 'mono', '(document)'),
    el('span', 'muted', Array.isArray(value) ? ' [' + n + ']' : ' {' + n + '}'),
    inside.length ? badge(inside.length + ' findings', 'error') : null));
  for (const [f, k] of here) d.appendChild(findingBox(doc, f, k));
  let done = false;
  d.open_ = function () {
    if (done) return;
    done = true;
    const keys = Array.isArray(value) ? value.map(function (v, i) { return i; }) : Object.keys(value);
    for (const kk of keys) d.appendChild(tree(doc, value[kk], ptr(p, kk), String(kk), inside));
  };
  d.addEventListener('toggle', function () { if (d.open) d.open_(); });
  return d;
}

function totalsView(entry) {
  // The computed totals (RFC.md §2.4) and, side by side, the document's final_metrics with the
  // reason for each difference in words.
  const final = entry.final;
  const box = el('div', 'totals');
  box.setAttribute('data-ptr', '/final_metrics');
  if (!final) return box;
  if (!final.differs) {
    box.appendChild(el('p', 'muted agree', 'final_metrics agrees with the computed totals (RFC.md §2.4).'));
    return box;
  }
  const table = el('table', 'compare-totals');
  const head = el('tr');
  for (const h of ['', 'final_metrics (as written)', 'computed (RFC.md §2.4)']) head.appendChild(el('th', null, h));
  table.appendChild(head);
  for (const r of final.rows) {
    if (r.written === undefined || r.written === null) continue;
    const show = r.field === 'total_cost_usd' ? cost : num;
    const tr = el('tr', r.same ? null : 'differs');
    add(tr, el('td', null, r.label), el('td', 'mono', show(r.written)), el('td', 'mono', show(r.computed)));
    table.appendChild(tr);
  }
  const why = el('ul', 'reasons');
  for (const r of final.reasons) why.appendChild(el('li', null, r));
  add(box, el('h2', null, 'final_metrics differ from the computed totals'), add(el('div', 'side'), table, why));
  return box;
}

function header(doc, root) {
  const entry = DATA.docs[doc];
  root.appendChild(el('h1', null, short(entry.source + (entry.line ? ':' + entry.line : ''))));
  const tags = el('div');
  add(tags, badge(entry.format ? entry.format + '@' + (entry.version || '?') : 'unknown format'),
    badge(entry.valid ? 'valid' : 'invalid', entry.valid ? 'valid' : 'invalid'));
  const errs = entry.findings.filter(function (f) { return f.level === 'error'; }).length;
  add(tags, badge(plural(errs, 'error'), errs ? 'error' : null), badge(plural(entry.findings.length - errs, 'warning'), entry.findings.length - errs ? 'warning' : null));
  root.appendChild(tags);
  if (entry.converted) root.appendChild(el('p', 'note converted', entry.converted));
  const atif = entry.atif;
  if (!isObj(atif)) return;
  const agent = isObj(atif.agent) ? atif.agent : {};
  const t = entry.totals || {};
  const n = entry.numbers || {};
  root.appendChild(grid([
    ['agent', [agent.name, agent.version].filter(function (x) { return x !== undefined && x !== null; }).join(' ')],
    ['model', agent.model_name], ['schema_version', atif.schema_version],
    ['session_id', atif.session_id], ['trajectory_id', atif.trajectory_id],
    ['steps (with subagents)', num(t.steps)], ['agent steps', num(n.agent_steps)],
    ['prompt tokens', num(t.prompt_tokens)], ['completion tokens', num(t.completion_tokens)],
    ['cached tokens', num(t.cached_tokens)], ['cost', cost(t.cost_usd)],
    ['duration', typeof n.duration_sec === 'number' ? n.duration_sec.toFixed(1) + ' s' : null],
    ['copied-context steps', num(t.copied_context_steps)], ['llm_call_count 0 steps', num(t.zero_call_steps)],
    ['subagents', num(t.subagents)], ['unresolved subagent files', t.unresolved_refs ? num(t.unresolved_refs) : null],
  ]));
  root.appendChild(totalsView(entry));
}

function findingsList(doc, fx, root) {
  const entry = DATA.docs[doc];
  root.appendChild(el('h2', null, 'Findings (' + entry.findings.length + ')'));
  const ol = el('ol', 'findings-list');
  entry.findings.forEach(function (f, k) {
    const li = el('li');
    li.id = 'fl-' + doc + '-' + k;
    const label = labelOf(doc, f.pointer);
    add(li, badge(f.level, f.level), el('span', 'code mono', f.code + ' '), el('span', null, f.message + ' '),
      label ? el('span', 'where', label) : null, el('span', 'muted mono', ' ' + (f.pointer || '(document)')),
      linkButton(docPrefix(doc) + 'finding-' + (k + 1)));
    li.tabIndex = 0;
    li.addEventListener('click', function (ev) { if (!ev.target.closest('button')) goFinding(doc, k); });
    li.addEventListener('keydown', function (ev) { if (ev.key === 'Enter') goFinding(doc, k); });
    ol.appendChild(li);
  });
  root.appendChild(ol);
  const loose = entry.tree ? [] : fx.findings.loose;
  if (loose.length) {
    const box = el('div', 'field');
    box.setAttribute('data-ptr', '');
    add(box, el('span', 'label', 'document-level findings'));
    for (const [f, k] of loose) box.appendChild(findingBox(doc, f, k));
    root.appendChild(box);
  }
}

function documentBody(doc) {
  const entry = DATA.docs[doc];
  const fx = { findings: indexFindings(entry) };
  shown.set(doc, fx);
  const root = el('section', 'document');
  root.id = 'doc-' + doc;
  header(doc, root);
  if (entry.findings.length) findingsList(doc, fx, root);
  if (entry.charts && entry.charts.length) root.appendChild(stepCharts(doc, entry.charts));
  if (entry.waterfall) root.appendChild(waterfallSection(doc, entry.waterfall));
  const atif = entry.atif;
  if (entry.tree !== null && entry.tree !== undefined) {
    root.appendChild(el('h2', null, 'Source document (' + (entry.format || 'unknown') + '), findings in place'));
    const t = tree(doc, entry.tree, '', null, entry.findings.map(function (f, k) { return [f, k]; }));
    root.appendChild(t);
    fx.tree = t;
    if (isObj(atif)) root.appendChild(el('h2', null, 'As ATIF (converted to atif@v1.7)'));
    else root.appendChild(el('p', 'note', 'This document was not converted to ATIF (its findings say why); its own tree is shown above.'));
  }
  if (isObj(atif)) {
    const holder = el('div', 'timeline');
    root.appendChild(holder);
    trajectoryView(doc, atif, '', holder);
    if (entry.continuation !== null && entry.continuation !== undefined) {
      root.appendChild(linkedDetails('continues in ' + String(atif.continued_trajectory_ref), entry.continuation));
    } else if (typeof atif.continued_trajectory_ref === 'string') {
      root.appendChild(el('p', 'muted', 'continues in ' + atif.continued_trajectory_ref + notShown(entry, '/continued_trajectory_ref')));
    }
  } else if (!entry.tree) {
    root.appendChild(el('p', 'note', 'This document could not be read as a trajectory; its findings say why.'));
  }
  fx.root = root;
  return root;
}

function stepCharts(doc, specs) {
  // Tokens and latency per step; a click on a column goes to its (first) step.
  const d = el('details', 'step-charts');
  d.open = true;
  d.appendChild(el('summary', null, 'tokens and latency per step'));
  const box = el('div', 'charts');
  for (const spec of specs) {
    box.appendChild(chartView(spec, function (i) {
      const anchor = anchorOf(doc, ptr('', 'steps', i * spec.per));
      if (anchor) location.hash = '#' + anchor;
    }));
  }
  d.appendChild(box);
  return d;
}

function reveal(doc, k) {
  const entry = DATA.docs[doc];
  const f = entry.findings[k];
  const fx = shown.get(doc);
  if (entry.tree) { openTree(fx.tree, f.pointer || ''); }
  else {
    const m = STEP_KEY.exec(f.pointer || '');
    if (m) openStep(doc, m[1]);
  }
  const box = document.getElementById('f-' + doc + '-' + k);
  if (box) jumpTo(box);
  return box;
}

function openTree(node, target) {
  let cur = node;
  while (cur) {
    if (cur.tagName === 'DETAILS') { cur.open = true; if (cur.open_) cur.open_(); }
    let next = null;
    for (const kid of cur.children) {
      const p = kid.getAttribute('data-ptr');
      if (p !== null && kid !== cur && within(target, p) && p !== cur.getAttribute('data-ptr')) { next = kid; break; }
    }
    cur = next;
  }
}

function openStep(doc, key) {
  // key: (/subagent_trajectories/K)*/steps/I; open each subagent on the way. Returns the step.
  const parts = key.split('/').slice(1);
  let base = '';
  while (parts.length > 2) {
    const k = Number(parts[1]);
    const view = views.get(doc + '|' + base);
    if (!view) return null;
    const at = view.launched.get(k);
    const sub = ptr(base, 'subagent_trajectories', k);
    if (at !== undefined) view.renderUpTo(at + 1);
    const d = view.nodes.length ? document.querySelector('[data-ptr="' + CSS.escape(sub) + '"]') : null;
    if (d && d.tagName === 'DETAILS') { d.open = true; if (d.open_) d.open_(); }
    base = sub;
    parts.splice(0, 2);
  }
  const view = views.get(doc + '|' + base);
  if (view) view.renderUpTo(Number(parts[1]) + 1);
  return document.getElementById('s-' + doc + '-' + key);
}
