// Anchors (#step-7, #sub-<trajectory_id>/step-3, #step-7/call-<tool_call_id>, #finding-4, each
// behind #doc-N/ on a dataset's page), copy-link buttons, keys (j/k steps, n/p findings,
// / search, c compact) and routing. Runs last: it draws the page.
let current = undefined; // the document shown (null: a dataset's index)
const cursor = { step: -1, finding: -1 };
const COMPACT_FROM = 300; // a document with more steps opens in compact mode

function docPrefix(doc) { return DATA.dataset || doc !== 0 ? 'doc-' + doc + '/' : ''; }

function anchorOf(doc, p) {
  // '/steps/6' -> 'step-7'; '/subagent_trajectories/0/steps/2' -> 'sub-verify-1/step-3';
  // '/steps/2/tool_calls/1' -> 'step-3/call-c2'; null when ids are missing.
  const m = /^((?:\/subagent_trajectories\/\d+)*)\/steps\/(\d+)(?:\/tool_calls\/(\d+))?$/.exec(p);
  if (!m) return null;
  const traj = trajectoryAt(doc, m[1]);
  const step = stepsOf(traj)[Number(m[2])];
  if (!isObj(step) || (typeof step.step_id !== 'number' && typeof step.step_id !== 'string')) return null;
  let out = 'step-' + encodeURIComponent(String(step.step_id));
  if (m[1]) {
    if (typeof traj.trajectory_id !== 'string') return null;
    out = 'sub-' + encodeURIComponent(traj.trajectory_id) + '/' + out;
  }
  if (m[3] !== undefined) {
    const call = Array.isArray(step.tool_calls) ? step.tool_calls[Number(m[3])] : null;
    if (!isObj(call) || typeof call.tool_call_id !== 'string') return null;
    out += '/call-' + encodeURIComponent(call.tool_call_id);
  }
  return docPrefix(doc) + out;
}

function linkButton(anchor) {
  const b = button('#', function () {
    history.replaceState(null, '', '#' + anchor);
    const done = function (ok) {
      b.textContent = ok ? 'link copied' : 'link in the address bar';
      setTimeout(function () { b.textContent = '#'; }, 1500);
    };
    if (navigator.clipboard && navigator.clipboard.writeText) {
      navigator.clipboard.writeText(location.href).then(function () { done(true); }, function () { done(false); });
    } else done(false);
  }, 'link copy');
  b.title = 'copy a link to here (#' + anchor + ')';
  b.setAttribute('aria-label', 'copy a link to #' + anchor);
  return b;
}

function subBase(doc, id) {
  // The pointer of the embedded subagent whose trajectory_id is id (nearest the top first), or null.
  const pending = [['', DATA.docs[doc].atif]];
  while (pending.length) {
    const [base, traj] = pending.shift();
    const subs = isObj(traj) && Array.isArray(traj.subagent_trajectories) ? traj.subagent_trajectories : [];
    for (let k = 0; k < subs.length; k++) {
      const p = ptr(base, 'subagent_trajectories', k);
      if (isObj(subs[k]) && subs[k].trajectory_id === id) return p;
      pending.push([p, subs[k]]);
    }
  }
  return null;
}

function goAnchor(doc, rest) {
  // Go to an anchor (the part after any doc-N/); false when it names nothing here.
  let m = /^finding-(\d+)$/.exec(rest);
  if (m) return goFinding(doc, Number(m[1]) - 1);
  m = /^(?:sub-([^/]*)\/)?step-([^/]*)(?:\/call-([^/]*))?$/.exec(rest);
  if (!m || !isObj(DATA.docs[doc].atif)) return false;
  const base = m[1] === undefined ? '' : subBase(doc, decodeURIComponent(m[1]));
  if (base === null) return false;
  const id = decodeURIComponent(m[2]);
  const i = stepsOf(trajectoryAt(doc, base)).findIndex(function (s) { return isObj(s) && String(s.step_id) === id; });
  if (i < 0) return false;
  if (base === '') clearFiltersFor(doc, i);
  const li = openStep(doc, ptr(base, 'steps', i));
  if (!li) return false;
  let node = li;
  if (m[3] !== undefined) {
    const call = decodeURIComponent(m[3]);
    const k = (stepsOf(trajectoryAt(doc, base))[i].tool_calls || []).findIndex(function (c) { return isObj(c) && c.tool_call_id === call; });
    node = li.querySelector('[data-ptr="' + CSS.escape(ptr(base, 'steps', i, 'tool_calls', k)) + '"]') || li;
  }
  if (base === '') setCursor(i);
  jumpTo(node, 'start');
  return true;
}

function goFinding(doc, k) {
  const entry = DATA.docs[doc];
  if (!entry || k < 0 || k >= entry.findings.length) return false;
  cursor.finding = k;
  const m = STEP_KEY.exec(entry.findings[k].pointer || '');
  if (m && !entry.tree) clearFiltersFor(doc, topOf(doc, m[1]));
  document.querySelectorAll('.findings-list li.current').forEach(function (n) { n.classList.remove('current'); });
  const item = document.getElementById('fl-' + doc + '-' + k);
  if (item) item.classList.add('current');
  history.replaceState(null, '', '#' + docPrefix(doc) + 'finding-' + (k + 1));
  if (!reveal(doc, k) && item) jumpTo(item);
  return true;
}

function setCursor(i) {
  const view = views.get(current + '|');
  if (!view) return null;
  view.renderUpTo(i + 1);
  document.querySelectorAll('li.step.current').forEach(function (n) { n.classList.remove('current'); });
  const li = view.nodes[i];
  cursor.step = i;
  li.classList.add('current');
  return li;
}

function moveStep(delta) {
  const view = views.get(current + '|');
  if (!view || !view.steps.length) return;
  let i = cursor.step;
  if (i < 0) { // start from the first step on screen
    i = view.nodes.findIndex(function (n) { return n.getBoundingClientRect().bottom > 0; });
    i = i < 0 ? 0 : i - (delta > 0 ? 1 : 0);
  }
  for (let j = i + delta; j >= 0 && j < view.steps.length; j += delta) {
    if (!filtersOn() || passes(current, j)) {
      const li = setCursor(j);
      const anchor = anchorOf(current, ptr('', 'steps', j));
      if (anchor) history.replaceState(null, '', '#' + anchor);
      reach(li, 'start');
      return;
    }
  }
}

function moveFinding(delta) {
  const n = current === null ? 0 : DATA.docs[current].findings.length;
  if (!n) return;
  goFinding(current, ((cursor.finding < 0 && delta < 0 ? 0 : cursor.finding) + delta + n) % n);
}

function setCompact(on) {
  document.body.classList.toggle('compact', on);
  document.querySelectorAll('li.step').forEach(function (li) { setOpen(li, li.classList.contains('open')); });
  const b = document.getElementById('compact');
  if (b) b.textContent = on ? 'full steps' : 'compact';
}

document.addEventListener('keydown', function (ev) {
  const typing = ev.target.closest && ev.target.closest('input, textarea, select');
  const box = document.getElementById('q');
  const finder = box || (current === null && indexes.length ? indexes[0].query : null);
  if ((ev.ctrlKey || ev.metaKey) && ev.key === 'f') {
    // The first press goes to the page's search (it sees every step, every index row); pressed
    // again, the browser's find.
    if (finder && document.activeElement !== finder) { ev.preventDefault(); finder.focus(); finder.select(); }
    return;
  }
  if (ev.ctrlKey || ev.metaKey || ev.altKey) return;
  if (typing) { if (ev.key === 'Escape') ev.target.blur(); return; }
  if (current === null && indexes.length) { indexKey(ev, indexes[0]); return; }
  const keys = {
    j: function () { moveStep(1); }, k: function () { moveStep(-1); },
    n: function () { moveFinding(1); }, p: function () { moveFinding(-1); },
    c: function () { setCompact(!document.body.classList.contains('compact')); },
    '/': function () { if (box) { box.focus(); box.select(); } },
  };
  if (keys[ev.key] && current !== null && current !== undefined) { ev.preventDefault(); keys[ev.key](); }
});

function indexKey(ev, index) {
  // On a dataset's page: j/k the next/previous row of its (first) index, Enter or o opens it, / its search.
  if (ev.target.closest && ev.target.closest('a, button, th')) return; // their own Enter
  const keys = {
    j: function () { index.move(1); }, k: function () { index.move(-1); },
    o: index.open, Enter: index.open, '/': function () { index.query.focus(); index.query.select(); },
  };
  if (keys[ev.key]) { ev.preventDefault(); keys[ev.key](); }
}

function draw(doc) {
  app.textContent = '';
  for (const t of indexes.splice(0)) t.stop();
  shown.clear(); views.clear();
  cursor.step = -1; cursor.finding = -1;
  resetSearch();
  current = doc;
  if (doc === null) { app.appendChild(DATA.compare ? compareView() : indexView()); return; }
  if (!DATA.docs[doc]) { app.appendChild(el('p', 'note', 'no documents')); return; }
  if (DATA.dataset || doc !== 0) {
    const nav = el('nav', 'top');
    const a = el('a', null, DATA.compare ? '← comparison' : DATA.dataset ? '← dataset index' : '← ' + DATA.docs[0].source);
    a.href = DATA.compare ? '#' : DATA.dataset ? '#index/doc-' + doc : '#doc-0'; // back to this document's row
    nav.appendChild(a);
    app.appendChild(nav);
  }
  const body = documentBody(doc);
  const timeline = body.querySelector(':scope > .timeline');
  if (timeline) body.insertBefore(toolbar(doc), timeline);
  app.appendChild(body);
}

function route() {
  const m = /^#doc-(\d+)(?:\/(.*))?$/.exec(location.hash);
  const doc = m ? Number(m[1]) : (DATA.dataset ? null : 0);
  const rest = m ? (m[2] || '') : location.hash.slice(1);
  const fresh = doc !== current;
  if (fresh) draw(doc);
  const found = rest && (doc === null ? goIndex(rest) : DATA.docs[doc] && goAnchor(doc, rest));
  if (!found && fresh) window.scrollTo(0, 0);
}

window.addEventListener('hashchange', route);
if (!DATA.dataset && DATA.docs[0] && stepsOf(DATA.docs[0].atif).length > COMPACT_FROM) setCompact(true);
route();
document.documentElement.setAttribute('data-ready', '1');
