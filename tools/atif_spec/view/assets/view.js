// atif view: builds the page from the embedded JSON. Content is only ever set with textContent
// (never innerHTML), links only for http(s) URLs, media only from data: URIs made by atif view.
(function () {
  'use strict';
  const DATA = JSON.parse(document.getElementById('atif-data').textContent);
  const app = document.getElementById('app');
  const CHUNK = 50;
  const FOLD = 1200;
  const views = new Map(); // "doc|base" -> trajectory view
  const shown = new Map(); // doc index -> {root, findings}
  const SVG = 'http://www.w3.org/2000/svg';

  // --- small helpers ---------------------------------------------------------------------
  function el(tag, cls, text) {
    const e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined && text !== null) e.textContent = String(text);
    return e;
  }
  function add(parent) {
    for (let i = 1; i < arguments.length; i++) {
      const kid = arguments[i];
      if (kid !== null && kid !== undefined && kid !== false) parent.appendChild(kid);
    }
    return parent;
  }
  function token(t) { return String(t).replace(/~/g, '~0').replace(/\//g, '~1'); }
  function ptr(base) {
    let out = base;
    for (let i = 1; i < arguments.length; i++) out += '/' + token(arguments[i]);
    return out;
  }
  function within(p, prefix) { return p === prefix || p.startsWith(prefix + '/'); }
  function num(n) { return typeof n === 'number' ? n.toLocaleString('en-US') : '–'; }
  function cost(n) { return typeof n === 'number' ? '$' + n.toFixed(n < 1 ? 4 : 2) : '–'; }
  function isObj(v) { return v !== null && typeof v === 'object' && !Array.isArray(v); }
  function short(v) { const s = String(v); return s.length > 200 ? s.slice(0, 200) + ' … (' + num(s.length) + ' characters)' : s; }
  function badge(text, cls) { return el('span', 'badge' + (cls ? ' ' + cls : ''), short(text)); }
  function button(text, onClick, cls) {
    const b = el('button', cls || 'link', text);
    b.type = 'button';
    b.addEventListener('click', function (ev) { ev.preventDefault(); onClick(ev); });
    return b;
  }
  function flash(node) {
    node.classList.add('flash');
    setTimeout(function () { node.classList.remove('flash'); }, 1600);
  }
  function jumpTo(node) {
    for (let p = node.parentElement; p; p = p.parentElement) {
      if (p.tagName === 'DETAILS' && !p.open) p.open = true;
    }
    node.scrollIntoView({ block: 'center' });
    flash(node);
  }
  function text(value, cls) {
    const s = typeof value === 'string' ? value : JSON.stringify(value, null, 2);
    const pre = el('pre', cls || null);
    if (s.length <= FOLD) { pre.textContent = s; return pre; }
    const wrap = el('div', 'folded');
    pre.textContent = s.slice(0, FOLD) + ' …';
    const more = button('show all ' + num(s.length) + ' characters', function () {
      pre.textContent = s; more.remove();
    }, 'link more');
    return add(wrap, pre, more);
  }
  function urlLink(url) {
    try {
      const u = new URL(url);
      if (u.protocol === 'http:' || u.protocol === 'https:') {
        const a = el('a', 'mono', url);
        a.href = u.href; a.rel = 'noopener noreferrer nofollow'; a.target = '_blank';
        return a;
      }
    } catch (e) { /* not a URL: shown as text */ }
    return el('code', null, url);
  }
  function grid(pairs) {
    const g = el('div', 'grid');
    for (const [k, v] of pairs) {
      if (v === undefined || v === null || v === '') continue;
      const d = el('div');
      add(d, el('span', 'k', k), el('span', 'v', short(v)));
      g.appendChild(d);
    }
    return g;
  }

  // --- findings ----------------------------------------------------------------------------
  const STEP_KEY = /^((?:\/subagent_trajectories\/\d+)*\/steps\/\d+)(?:\/|$)/;
  function findingBox(doc, f, k) {
    const box = el('div', 'finding ' + (f.level === 'warning' ? 'warning' : 'error'));
    box.id = 'f-' + doc + '-' + k;
    add(box, el('span', 'code', f.code), badge(f.level, f.level), el('span', null, f.message),
      el('span', 'ptr mono', f.pointer || '(document)'));
    return box;
  }
  function indexFindings(entry) {
    const byStep = new Map();
    const loose = [];
    entry.findings.forEach(function (f, k) {
      const m = entry.tree ? null : STEP_KEY.exec(f.pointer || '');
      if (m) {
        if (!byStep.has(m[1])) byStep.set(m[1], []);
        byStep.get(m[1]).push([f, k]);
      } else loose.push([f, k]);
    });
    return { byStep: byStep, loose: loose };
  }
  function place(doc, container, items) {
    // Each finding goes into the deepest element whose data-ptr its pointer is within.
    const fields = Array.from(container.querySelectorAll('[data-ptr]'));
    for (const [f, k] of items) {
      let best = null;
      for (const node of fields) {
        const p = node.getAttribute('data-ptr');
        if (within(f.pointer, p) && (!best || p.length > best.getAttribute('data-ptr').length)) best = node;
      }
      const box = findingBox(doc, f, k);
      const at = best || container;
      at.insertBefore(box, at.firstChild ? at.firstChild.nextSibling : null);
    }
  }

  // --- one trajectory --------------------------------------------------------------------
  function trajectoryView(doc, traj, base, holder) {
    const entry = DATA.docs[doc];
    const steps = Array.isArray(traj.steps) ? traj.steps : [];
    const subs = Array.isArray(traj.subagent_trajectories) ? traj.subagent_trajectories : [];
    const byId = new Map();
    subs.forEach(function (s, k) { if (isObj(s) && typeof s.trajectory_id === 'string') byId.set(s.trajectory_id, k); });
    const launched = new Map(); // subagent index -> step index
    steps.forEach(function (step, i) {
      for (const [, ref] of refsOf(step)) {
        if (byId.has(ref.trajectory_id) && !launched.has(byId.get(ref.trajectory_id))) launched.set(byId.get(ref.trajectory_id), i);
      }
    });
    let first = null;
    for (const s of steps) { const t = isObj(s) ? Date.parse(s.timestamp) : NaN; if (!isNaN(t)) { first = t; break; } }
    const list = el('ol', 'steps');
    const sentinel = el('div', 'muted');
    const view = { doc: doc, base: base, rendered: 0, nodes: [], launched: launched, subs: subs };
    view.renderUpTo = function (n) {
      const end = Math.min(n, steps.length);
      const frag = document.createDocumentFragment();
      const added = [];
      for (let i = view.rendered; i < end; i++) {
        const node = stepView(doc, steps[i], ptr(base, 'steps', i), first, view);
        view.nodes.push(node); added.push(node);
        frag.appendChild(node);
      }
      view.rendered = Math.max(view.rendered, end);
      list.appendChild(frag);
      const fx = shown.get(doc);
      for (const node of added) {
        const items = fx && fx.findings.byStep.get(node.getAttribute('data-ptr'));
        if (items) { node.classList.add('has-error'); place(doc, node, items); }
      }
      sentinel.textContent = view.rendered < steps.length
        ? 'showing ' + view.rendered + ' of ' + steps.length + ' steps (more load as you scroll)' : '';
    };
    views.set(doc + '|' + base, view);
    add(holder, list, sentinel);
    view.renderUpTo(CHUNK);
    if ('IntersectionObserver' in window) {
      const io = new IntersectionObserver(function (seen) {
        if (seen.some(function (e) { return e.isIntersecting; }) && view.rendered < steps.length) view.renderUpTo(view.rendered + CHUNK);
      }, { rootMargin: '1200px' });
      io.observe(sentinel);
    }
    const loose = subs.map(function (s, k) { return k; }).filter(function (k) { return !launched.has(k); });
    if (loose.length) {
      const box = el('div', 'field');
      add(box, el('span', 'label', 'subagents not launched by any call'));
      for (const k of loose) box.appendChild(subagentDetails(doc, subs[k], ptr(base, 'subagent_trajectories', k)));
      holder.appendChild(box);
    }
    if (!steps.length) holder.appendChild(el('p', 'muted', 'no steps'));
    return view;
  }

  function refsOf(step) {
    const out = [];
    const results = isObj(step) && isObj(step.observation) && Array.isArray(step.observation.results) ? step.observation.results : [];
    results.forEach(function (r, k) {
      if (!isObj(r)) return;
      const refs = Array.isArray(r.subagent_trajectory_ref) ? r.subagent_trajectory_ref : [r.subagent_trajectory_ref];
      for (const ref of refs) if (isObj(ref)) out.push([k, ref]);
    });
    return out;
  }

  function subagentDetails(doc, sub, base) {
    const d = el('details', 'subagent');
    d.setAttribute('data-ptr', base);
    const n = isObj(sub) && Array.isArray(sub.steps) ? sub.steps.length : 0;
    const name = isObj(sub) ? (sub.trajectory_id || (isObj(sub.agent) && sub.agent.name) || 'subagent') : 'subagent';
    add(d, el('summary', null, 'subagent ' + name + ' · ' + n + ' steps'));
    let done = false;
    d.open_ = function () {
      if (done) return;
      done = true;
      if (isObj(sub)) {
        if (isObj(sub.agent)) d.appendChild(grid([['agent', sub.agent.name], ['model', sub.agent.model_name]]));
        trajectoryView(doc, sub, base, d);
      }
    };
    d.addEventListener('toggle', function () { if (d.open) d.open_(); });
    return d;
  }

  function stepView(doc, step, base, first, view) {
    const entry = DATA.docs[doc];
    const li = el('li', 'step');
    li.setAttribute('data-ptr', base);
    li.id = 's-' + doc + '-' + base;
    if (!isObj(step)) { add(li, el('div', 'step-head', 'not an object'), text(step)); return li; }
    const source = typeof step.source === 'string' ? step.source : '?';
    li.classList.add(['user', 'agent', 'system'].includes(source) ? source : 'other');
    const cm = isObj(step.extra) && isObj(step.extra.context_management) ? step.extra.context_management : null;
    const head = el('div', 'step-head');
    add(head, el('span', 'id', '#' + (step.step_id === undefined ? '?' : step.step_id)), badge(source, source));
    const t = Date.parse(step.timestamp);
    if (typeof step.timestamp === 'string') {
      head.appendChild(el('span', 'muted mono', step.timestamp + (!isNaN(t) && first !== null ? '  (+' + ((t - first) / 1000).toFixed(1) + ' s)' : '')));
    }
    if (typeof step.model_name === 'string') head.appendChild(badge(step.model_name));
    if (step.reasoning_effort !== undefined && step.reasoning_effort !== null) head.appendChild(badge('effort ' + step.reasoning_effort));
    if (step.llm_call_count !== undefined && step.llm_call_count !== null && step.llm_call_count !== 0) head.appendChild(badge(step.llm_call_count + ' LLM calls'));
    if (step.is_copied_context === true) { li.classList.add('copied'); head.appendChild(badge('copied context: not counted', 'mark')); }
    if (step.llm_call_count === 0) { li.classList.add('zero'); head.appendChild(badge('llm_call_count 0: no inference', 'mark')); }
    if (isObj(step.metrics)) {
      const m = step.metrics;
      const parts = [];
      if (m.prompt_tokens !== undefined) parts.push('prompt ' + num(m.prompt_tokens));
      if (m.completion_tokens !== undefined) parts.push('completion ' + num(m.completion_tokens));
      if (m.cached_tokens !== undefined) parts.push('cached ' + num(m.cached_tokens));
      if (m.cost_usd !== undefined) parts.push(cost(m.cost_usd));
      const chip = el('span', 'muted mono', parts.join(' · '));
      chip.setAttribute('data-ptr', ptr(base, 'metrics'));
      head.appendChild(chip);
    }
    li.appendChild(head);
    if (cm) {
      const b = el('div', 'boundary', '⟂ context management: ' + String(cm.type) + ' · boundary ' + String(cm.boundary));
      b.setAttribute('data-ptr', ptr(base, 'extra', 'context_management'));
      li.appendChild(b);
    }
    if (step.message !== undefined && step.message !== null) li.appendChild(content(doc, step.message, ptr(base, 'message'), 'message'));
    if (typeof step.reasoning_content === 'string' || (step.reasoning_content !== undefined && step.reasoning_content !== null)) {
      const d = el('details', 'field');
      d.setAttribute('data-ptr', ptr(base, 'reasoning_content'));
      const r = step.reasoning_content;
      add(d, el('summary', null, 'reasoning (' + num(typeof r === 'string' ? r.length : 0) + ' characters)'), text(r));
      li.appendChild(d);
    }
    const results = isObj(step.observation) && Array.isArray(step.observation.results) ? step.observation.results : [];
    const calls = Array.isArray(step.tool_calls) ? step.tool_calls : [];
    const resultFor = new Map();
    results.forEach(function (r, k) { if (isObj(r) && typeof r.source_call_id === 'string' && !resultFor.has(r.source_call_id)) resultFor.set(r.source_call_id, k); });
    const callFor = new Map();
    calls.forEach(function (c, k) { if (isObj(c) && typeof c.tool_call_id === 'string' && !callFor.has(c.tool_call_id)) callFor.set(c.tool_call_id, k); });
    const callNodes = [], resultNodes = [];
    calls.forEach(function (c, k) {
      const node = el('div', 'call');
      node.setAttribute('data-ptr', ptr(base, 'tool_calls', k));
      const h = el('div');
      add(h, el('span', 'label', 'tool call'), el('span', 'fn mono', short(isObj(c) ? c.function_name : '?')), el('span', 'muted mono', isObj(c) && c.tool_call_id ? '  ' + short(c.tool_call_id) : ''));
      if (isObj(c) && resultFor.has(c.tool_call_id)) {
        const r = resultFor.get(c.tool_call_id);
        h.appendChild(document.createTextNode('  '));
        h.appendChild(button('→ result', function () { jumpTo(resultNodes[r]); }));
      }
      node.appendChild(h);
      if (isObj(c) && c.arguments !== undefined) {
        const a = text(c.arguments, 'args');
        const wrap = el('div');
        wrap.setAttribute('data-ptr', ptr(base, 'tool_calls', k, 'arguments'));
        add(wrap, a);
        node.appendChild(wrap);
      }
      callNodes.push(node);
      li.appendChild(node);
    });
    results.forEach(function (r, k) {
      const rp = ptr(base, 'observation', 'results', k);
      const node = el('div', 'result');
      node.setAttribute('data-ptr', rp);
      const h = el('div');
      h.appendChild(el('span', 'label', 'observation result'));
      if (isObj(r) && callFor.has(r.source_call_id)) {
        const c = callFor.get(r.source_call_id);
        h.appendChild(button('← ' + String(calls[c].function_name) + ' call', function () { jumpTo(callNodes[c]); }));
      } else if (isObj(r) && r.source_call_id) h.appendChild(el('span', 'muted mono', 'call ' + r.source_call_id));
      node.appendChild(h);
      if (isObj(r) && r.content !== undefined && r.content !== null) node.appendChild(content(doc, r.content, ptr(rp, 'content'), null));
      if (isObj(r)) {
        const many = Array.isArray(r.subagent_trajectory_ref);
        const refs = many ? r.subagent_trajectory_ref : [r.subagent_trajectory_ref];
        refs.forEach(function (ref, j) {
          const at = many ? ptr(rp, 'subagent_trajectory_ref', j) : ptr(rp, 'subagent_trajectory_ref');
          if (isObj(ref)) node.appendChild(refView(doc, ref, at, view));
        });
      }
      resultNodes.push(node);
      li.appendChild(node);
    });
    if (isObj(step.extra)) {
      const d = el('details', 'field');
      d.setAttribute('data-ptr', ptr(base, 'extra'));
      add(d, el('summary', null, 'extra'), text(step.extra));
      li.appendChild(d);
    }
    return li;
  }

  function refView(doc, ref, at, view) {
    const entry = DATA.docs[doc];
    const k = view.subs.findIndex(function (s) { return isObj(s) && s.trajectory_id === ref.trajectory_id; });
    if (typeof ref.trajectory_id === 'string' && k >= 0 && view.launched.get(k) !== undefined) {
      return subagentDetails(doc, view.subs[k], ptr(view.base, 'subagent_trajectories', k));
    }
    const linked = entry.links ? entry.links[at] : undefined;
    if (linked !== undefined) {
      const d = el('details', 'subagent');
      add(d, el('summary', null, 'subagent file ' + String(ref.trajectory_path)));
      let done = false;
      d.addEventListener('toggle', function () { if (d.open && !done) { done = true; d.appendChild(documentBody(linked)); } });
      return d;
    }
    const what = typeof ref.trajectory_path === 'string'
      ? 'subagent file ' + ref.trajectory_path + ' (not shown: atif view --follow-refs)'
      : 'subagent ' + String(ref.trajectory_id || ref.session_id || '?') + ' (not in this document)';
    return el('div', 'muted', what);
  }

  function content(doc, value, base, label) {
    const box = el('div', 'field');
    box.setAttribute('data-ptr', base);
    if (label) box.appendChild(el('span', 'label', label));
    if (typeof value === 'string') { box.appendChild(text(value)); return box; }
    if (!Array.isArray(value)) { box.appendChild(text(value)); return box; }
    value.forEach(function (part, j) {
      const p = ptr(base, j);
      const node = el('div', 'part');
      node.setAttribute('data-ptr', p);
      if (isObj(part) && part.type === 'text') node.appendChild(text(part.text === undefined ? '' : part.text));
      else if (isObj(part) && (part.type === 'image' || part.type === 'audio')) node.appendChild(media(doc, part, p));
      else node.appendChild(text(part));
      box.appendChild(node);
    });
    return box;
  }

  function media(doc, part, p) {
    const entry = DATA.docs[doc];
    const m = entry.media ? entry.media[p] : undefined;
    const src = isObj(part.source) ? part.source : {};
    const box = el('div', 'media');
    box.appendChild(el('span', 'label', part.type + ' ' + String(src.media_type || '') + ' ' + String(src.path || '')));
    if (m && typeof m.data === 'string' && m.data.startsWith('data:' + src.media_type + ';base64,')) {
      const node = part.type === 'image' ? el('img') : el('audio');
      if (part.type === 'image') node.alt = String(src.path || 'image');
      else node.controls = true;
      node.src = m.data;
      box.appendChild(node);
    } else if (m && typeof m.url === 'string') {
      add(box, el('span', 'muted', 'URL (not loaded): '), urlLink(m.url));
    } else {
      box.appendChild(el('span', 'muted', m && m.error ? 'not shown: ' + m.error : 'not shown: no file to read'));
    }
    return box;
  }

  // --- a JSON tree (non-ATIF sources, findings on the source's own tree) ---------------------
  function untoken(t) { return t.replace(/~1/g, '/').replace(/~0/g, '~'); }
  function tree(doc, value, p, key, list) {
    // A finding shows at the deepest node that exists on its pointer's path.
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

  // --- a document --------------------------------------------------------------------------
  function documentBody(doc) {
    const entry = DATA.docs[doc];
    const fx = { findings: indexFindings(entry) };
    shown.set(doc, fx);
    const root = el('section', 'document');
    root.id = 'doc-' + doc;
    const h = el('h1', null, short(entry.source + (entry.line ? ':' + entry.line : '')));
    root.appendChild(h);
    const tags = el('div');
    add(tags, badge(entry.format ? entry.format + '@' + (entry.version || '?') : 'unknown format'),
      badge(entry.valid ? 'valid' : 'invalid', entry.valid ? 'valid' : 'invalid'));
    const errs = entry.findings.filter(function (f) { return f.level === 'error'; }).length;
    add(tags, badge(errs + ' errors', errs ? 'error' : null), badge((entry.findings.length - errs) + ' warnings', entry.findings.length - errs ? 'warning' : null));
    root.appendChild(tags);
    const atif = entry.atif;
    if (isObj(atif)) {
      const agent = isObj(atif.agent) ? atif.agent : {};
      const t = entry.totals || {};
      const n = entry.numbers || {};
      root.appendChild(grid([
        ['agent', [agent.name, agent.version].filter(function (x) { return x !== undefined && x !== null; }).join(' ')],
        ['model', agent.model_name], ['schema_version', atif.schema_version],
        ['session_id', atif.session_id], ['trajectory_id', atif.trajectory_id],
        ['steps', num(t.steps)], ['agent steps', num(n.agent_steps)],
        ['prompt tokens', num(t.prompt_tokens)], ['completion tokens', num(t.completion_tokens)],
        ['cached tokens', num(t.cached_tokens)], ['cost', cost(t.cost_usd)],
        ['duration', typeof n.duration_sec === 'number' ? n.duration_sec.toFixed(1) + ' s' : null],
        ['copied-context steps', num(t.copied_context_steps)], ['llm_call_count 0 steps', num(t.zero_call_steps)],
        ['subagents', num(t.subagents)], ['unresolved subagent files', t.unresolved_refs ? num(t.unresolved_refs) : null],
      ]));
      if (isObj(atif.final_metrics)) {
        const f = atif.final_metrics;
        const line = el('div', 'muted');
        line.setAttribute('data-ptr', '/final_metrics');
        line.textContent = 'final_metrics as written: prompt ' + num(f.total_prompt_tokens) + ' · completion ' + num(f.total_completion_tokens) +
          ' · cached ' + num(f.total_cached_tokens) + ' · cost ' + cost(f.total_cost_usd) + ' · steps ' + num(f.total_steps) +
          ' (totals above: RFC.md §2.4)';
        root.appendChild(line);
      }
    }
    if (entry.findings.length) {
      root.appendChild(el('h2', null, 'Findings (' + entry.findings.length + ')'));
      const ul = el('ul', 'findings-list');
      entry.findings.forEach(function (f, k) {
        const li = el('li');
        add(li, badge(f.level, f.level), el('span', 'code mono', f.code + ' '), el('span', null, f.message + ' '), el('span', 'muted mono', f.pointer || '(document)'));
        li.tabIndex = 0;
        li.addEventListener('click', function () { reveal(doc, k); });
        li.addEventListener('keydown', function (ev) { if (ev.key === 'Enter') reveal(doc, k); });
        ul.appendChild(li);
      });
      root.appendChild(ul);
      const loose = fx.findings.loose.filter(function () { return !entry.tree; });
      if (loose.length) {
        const box = el('div', 'field');
        box.setAttribute('data-ptr', '');
        add(box, el('span', 'label', 'document-level findings'));
        for (const [f, k] of loose) box.appendChild(findingBox(doc, f, k));
        root.appendChild(box);
      }
    }
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
        const d = el('details', 'subagent');
        add(d, el('summary', null, 'continues in ' + String(atif.continued_trajectory_ref)));
        let done = false;
        d.addEventListener('toggle', function () { if (d.open && !done) { done = true; d.appendChild(documentBody(entry.continuation)); } });
        root.appendChild(d);
      } else if (typeof atif.continued_trajectory_ref === 'string') {
        root.appendChild(el('p', 'muted', 'continues in ' + atif.continued_trajectory_ref + ' (not shown: atif view --follow-refs)'));
      }
    } else if (!entry.tree) {
      root.appendChild(el('p', 'note', 'This document could not be read as a trajectory; its findings say why.'));
    }
    fx.root = root;
    return root;
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
    // key: (/subagent_trajectories/K)*/steps/I; open each subagent on the way.
    const parts = key.split('/').slice(1);
    let base = '';
    while (parts.length > 2) {
      const k = Number(parts[1]);
      const view = views.get(doc + '|' + base);
      if (!view) return;
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
  }

  // --- a dataset ---------------------------------------------------------------------------
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

  function indexView() {
    const root = el('section', 'index');
    root.appendChild(el('h1', null, 'Dataset: ' + DATA.inputs.join(', ')));
    const capped = DATA.shown < DATA.total;
    root.appendChild(el('p', 'note', DATA.total + ' documents' + (capped
      ? '; the index shows the first ' + DATA.shown + ' (--max-docs ' + DATA.max_docs + '); the statistics count all ' + DATA.total
      : '; all shown')));
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
      const cells = [el('td', null, i + 1), add(el('td'), a), el('td', 'mono', r.version),
        add(el('td'), badge(r.valid ? 'valid' : 'invalid', r.valid ? 'valid' : 'invalid')),
        el('td', null, r.errors), el('td', null, r.warnings), el('td', null, num(r.steps)), el('td', null, num(r.tokens)), el('td', 'mono', r.model || '')];
      for (const c of cells) tr.appendChild(c);
      tr.addEventListener('click', function (ev) { if (ev.target !== a) location.hash = '#doc-' + r.doc; });
      table.appendChild(tr);
    });
    root.appendChild(table);
    return root;
  }

  // --- routing -------------------------------------------------------------------------------
  function route() {
    const m = /^#doc-(\d+)$/.exec(location.hash);
    app.textContent = '';
    shown.clear(); views.clear();
    if (DATA.dataset && !m) { app.appendChild(indexView()); window.scrollTo(0, 0); return; }
    const doc = m ? Number(m[1]) : 0;
    if (!DATA.docs[doc]) { app.appendChild(el('p', 'note', 'no documents')); return; }
    if (DATA.dataset) {
      const nav = el('nav', 'top');
      const a = el('a', null, '← dataset index'); a.href = '#';
      nav.appendChild(a);
      app.appendChild(nav);
    }
    app.appendChild(documentBody(doc));
    window.scrollTo(0, 0);
  }
  window.addEventListener('hashchange', route);
  route();
  document.documentElement.setAttribute('data-ready', '1');
})();
