// Findings: their label in words (which step, by step_id; which field), their boxes in place,
// and counts under a pointer (a collapsed subagent says what it holds).
function labelOf(doc, pointer) {
  // '/subagent_trajectories/0/steps/1/metrics' -> 'subagent verify-1 › step 2 › metrics'
  const entry = DATA.docs[doc];
  if (entry.tree || !isObj(entry.atif) || !pointer) return pointer ? '' : 'document';
  const parts = pointer.split('/').slice(1).map(untoken);
  const words = [];
  let traj = entry.atif;
  let i = 0;
  while (i < parts.length) {
    const key = parts[i], at = parts[i + 1];
    if (key === 'subagent_trajectories' && at !== undefined && isObj(traj)) {
      const subs = Array.isArray(traj.subagent_trajectories) ? traj.subagent_trajectories : [];
      traj = subs[Number(at)];
      words.push('subagent ' + (isObj(traj) && typeof traj.trajectory_id === 'string' ? traj.trajectory_id : '#' + at));
      i += 2;
    } else if (key === 'steps' && at !== undefined) {
      const step = stepsOf(traj)[Number(at)];
      words.push(isObj(step) && step.step_id !== undefined ? 'step ' + step.step_id : 'step at index ' + at);
      i += 2;
      if (i < parts.length) words.push(parts.slice(i).join('/'));
      break;
    } else { words.push(parts.slice(i).join('/')); break; }
  }
  return words.join(' › ');
}
function findingBox(doc, f, k) {
  const box = el('div', 'finding ' + (f.level === 'warning' ? 'warning' : 'error'));
  box.id = 'f-' + doc + '-' + k;
  const label = labelOf(doc, f.pointer);
  add(box, el('span', 'code', f.code), badge(f.level, f.level), el('span', null, f.message),
    label ? el('span', 'where', label) : null, el('span', 'ptr mono', f.pointer || '(document)'));
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
function countFindings(findings, base) {
  // {error: n, warning: m} of the findings at or below pointer base.
  const out = { error: 0, warning: 0 };
  for (const f of findings) if (within(f.pointer || '', base)) out[f.level === 'warning' ? 'warning' : 'error']++;
  return out;
}
function findingBadges(counts) {
  const out = [];
  if (counts.error) out.push(badge(plural(counts.error, 'error'), 'error'));
  if (counts.warning) out.push(badge(plural(counts.warning, 'warning'), 'warning'));
  return out;
}
