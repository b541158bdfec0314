// The timeline: a trajectory's steps drawn lazily in chunks, each step with its message,
// reasoning, tool calls linked to their results, media, and subagents under the calls that
// launched them.
function trajectoryView(doc, traj, base, holder) {
  const steps = stepsOf(traj);
  const subs = Array.isArray(traj.subagent_trajectories) ? traj.subagent_trajectories : [];
  const launched = launches(traj);
  let first = null;
  for (const s of steps) { const t = isObj(s) ? Date.parse(s.timestamp) : NaN; if (!isNaN(t)) { first = t; break; } }
  const list = el('ol', 'steps');
  const sentinel = el('div', 'muted');
  const view = { doc: doc, base: base, rendered: 0, nodes: [], launched: launched, subs: subs, steps: steps };
  view.renderUpTo = function (n) {
    const end = Math.min(n, steps.length);
    const frag = document.createDocumentFragment();
    const added = [];
    for (let i = view.rendered; i < end; i++) {
      const node = stepView(doc, steps[i], ptr(base, 'steps', i), first, view);
      view.nodes.push(node); added.push(node);
      if (base === '') filterNode(doc, node, i);
      frag.appendChild(node);
    }
    view.rendered = Math.max(view.rendered, end);
    list.appendChild(frag);
    const fx = shown.get(doc);
    for (const node of added) {
      const items = fx && fx.findings.byStep.get(node.getAttribute('data-ptr'));
      if (!items) continue;
      node.classList.add('has-error');
      place(doc, node, items);
      const counts = { error: 0, warning: 0 };
      for (const [f] of items) counts[f.level === 'warning' ? 'warning' : 'error']++;
      add.apply(null, [node.querySelector('.step-head')].concat(findingBadges(counts))); // seen in compact mode too
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

function subagentDetails(doc, sub, base) {
  const d = el('details', 'subagent');
  d.setAttribute('data-ptr', base);
  const n = stepsOf(sub).length;
  const name = isObj(sub) ? (sub.trajectory_id || (isObj(sub.agent) && sub.agent.name) || 'subagent') : 'subagent';
  const summary = el('summary', null, 'subagent ' + name + ' · ' + plural(n, 'step') + ' ');
  add(d, add.apply(null, [summary].concat(findingBadges(countFindings(DATA.docs[doc].findings, base)))));
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

function stepHead(doc, step, base, first, li) {
  const source = typeof step.source === 'string' ? step.source : '?';
  const head = el('div', 'step-head');
  add(head, el('span', 'id', 'step ' + (step.step_id === undefined ? '?' : short(step.step_id))), badge(source, source));
  const anchor = anchorOf(doc, base);
  if (anchor) head.appendChild(linkButton(anchor));
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
  head.addEventListener('click', function (ev) {
    if (ev.target === head || ev.target.classList.contains('id')) setOpen(li, !li.classList.contains('open'));
  });
  return head;
}

function preview(step) {
  // One line for compact mode: the message's first words and the tools called.
  const m = step.message;
  let s = typeof m === 'string' ? m : '';
  if (Array.isArray(m)) s = m.map(function (p) { return isObj(p) && typeof p.text === 'string' ? p.text : (isObj(p) ? '[' + p.type + ']' : ''); }).join(' ');
  const calls = Array.isArray(step.tool_calls) ? step.tool_calls.map(function (c) { return isObj(c) ? String(c.function_name) : '?'; }) : [];
  if (calls.length) s = (s ? s + '  ' : '') + '→ ' + calls.join(', ');
  return el('div', 'preview', s.replace(/\s+/g, ' ').slice(0, 240));
}

function stepView(doc, step, base, first, view) {
  const li = el('li', 'step');
  li.setAttribute('data-ptr', base);
  li.id = 's-' + doc + '-' + base;
  if (!isObj(step)) { add(li, el('div', 'step-head', 'not an object'), text(step)); return li; }
  const source = typeof step.source === 'string' ? step.source : '?';
  li.classList.add(['user', 'agent', 'system'].includes(source) ? source : 'other');
  add(li, stepHead(doc, step, base, first, li), preview(step));
  const body = el('div', 'body');
  body.addEventListener('beforematch', function () { setOpen(li, true); });
  stepBody(doc, step, base, view, body);
  li.appendChild(body);
  setOpen(li, false);
  return li;
}

function stepBody(doc, step, base, view, li) {
  const cm = isObj(step.extra) && isObj(step.extra.context_management) ? step.extra.context_management : null;
  if (cm) {
    const b = el('div', 'boundary', '⟂ context management: ' + String(cm.type) + ' · boundary ' + String(cm.boundary));
    b.setAttribute('data-ptr', ptr(base, 'extra', 'context_management'));
    li.appendChild(b);
  }
  if (step.message !== undefined && step.message !== null) li.appendChild(content(doc, step.message, ptr(base, 'message'), 'message'));
  if (step.reasoning_content !== undefined && step.reasoning_content !== null) {
    const d = el('details', 'field');
    d.setAttribute('data-ptr', ptr(base, 'reasoning_content'));
    const r = step.reasoning_content;
    add(d, el('summary', null, 'reasoning (' + num(typeof r === 'string' ? r.length : 0) + ' characters)'), text(r));
    li.appendChild(d);
  }
  callsAndResults(doc, step, base, view, li);
  if (isObj(step.extra)) {
    const d = el('details', 'field');
    d.setAttribute('data-ptr', ptr(base, 'extra'));
    add(d, el('summary', null, 'extra'), text(step.extra));
    li.appendChild(d);
  }
}

function callsAndResults(doc, step, base, view, li) {
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
    const anchor = anchorOf(doc, ptr(base, 'tool_calls', k));
    if (anchor) h.appendChild(linkButton(anchor));
    if (isObj(c) && resultFor.has(c.tool_call_id)) {
      const r = resultFor.get(c.tool_call_id);
      h.appendChild(document.createTextNode('  '));
      h.appendChild(button('→ result', function () { jumpTo(resultNodes[r]); }));
    }
    node.appendChild(h);
    if (isObj(c) && c.arguments !== undefined) {
      const wrap = el('div');
      wrap.setAttribute('data-ptr', ptr(base, 'tool_calls', k, 'arguments'));
      add(wrap, text(c.arguments, 'args'));
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
}

function notShown(entry, at) {
  // Why a file reference is not shown: not followed (and why), or --follow-refs not given.
  const why = entry.not_followed ? entry.not_followed[at] : undefined;
  if (typeof why === 'string') return ' (not followed: ' + why + ')';
  return DATA.follow_refs ? ' (not followed)' : ' (not shown: atif view --follow-refs)';
}

function linkedDetails(summaryText, linked) {
  const d = el('details', 'subagent');
  const summary = el('summary', null, summaryText + ' ');
  add(d, add.apply(null, [summary].concat(findingBadges(countFindings(DATA.docs[linked].findings, '')))));
  let done = false;
  d.open_ = function () { if (!done) { done = true; d.appendChild(documentBody(linked)); } };
  d.addEventListener('toggle', function () { if (d.open) d.open_(); });
  return d;
}

function refView(doc, ref, at, view) {
  const entry = DATA.docs[doc];
  const k = view.subs.findIndex(function (s) { return isObj(s) && s.trajectory_id === ref.trajectory_id; });
  if (typeof ref.trajectory_id === 'string' && k >= 0 && view.launched.get(k) !== undefined) {
    return subagentDetails(doc, view.subs[k], ptr(view.base, 'subagent_trajectories', k));
  }
  const linked = entry.links ? entry.links[at] : undefined;
  if (linked !== undefined) return linkedDetails('subagent file ' + String(ref.trajectory_path), linked);
  const what = typeof ref.trajectory_path === 'string'
    ? 'subagent file ' + ref.trajectory_path + notShown(entry, at)
    : 'subagent ' + String(ref.trajectory_id || ref.session_id || '?') + ' (not in this document)';
  return el('div', 'muted', what);
}

function content(doc, value, base, label) {
  const box = el('div', 'field');
  box.setAttribute('data-ptr', base);
  if (label) box.appendChild(el('span', 'label', label));
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
  const remote = m && typeof m.url === 'string';
  // A URL is shown once, as the link below; a file's path goes in the label.
  box.appendChild(el('span', 'label', part.type + ' ' + String(src.media_type || '') + (remote ? '' : ' ' + String(src.path || ''))));
  if (m && typeof m.data === 'string' && m.data.startsWith('data:' + src.media_type + ';base64,')) {
    const node = part.type === 'image' ? el('img') : el('audio');
    if (part.type === 'image') node.alt = String(src.path || 'image');
    else node.controls = true;
    node.src = m.data;
    box.appendChild(node);
  } else if (remote) {
    add(box, el('span', 'muted', 'URL (not loaded): '), urlLink(m.url));
  } else {
    box.appendChild(el('span', 'muted', m && m.error ? 'not shown: ' + m.error : 'not shown: no file to read'));
  }
  return box;
}
