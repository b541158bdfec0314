// Harbor job folders: the trials index (reward and outcome from each trial's result.json,
// agent, model, steps, tokens, cost, findings), sortable by any column and filterable by
// outcome and text; each trial one click from its trajectory (subagents and continuations in it).
const TRIAL_COLUMNS = [
  ['trial', 'name'], ['task', 'task'], ['agent', 'agent'], ['model', 'model'], ['reward', 'reward'],
  ['outcome', 'outcome'], ['steps', 'steps'], ['tokens', 'tokens'], ['cost', 'cost'],
  ['errors', 'errors'], ['warnings', 'warnings'], ['trajectories', null],
];
function trialCost(t) { return typeof t.cost_usd === 'number' ? t.cost_usd : t.trajectory_cost_usd; }
function trialValue(t, key) {
  if (key === 'cost') return trialCost(t);
  return t[key];
}
function trialSummary(trials) {
  const counts = {};
  for (const t of trials) counts[t.outcome] = (counts[t.outcome] || 0) + 1;
  const rewards = trials.map(function (t) { return t.reward; }).filter(function (r) { return typeof r === 'number'; });
  const mean = rewards.length ? rewards.reduce(function (a, b) { return a + b; }, 0) / rewards.length : null;
  return plural(trials.length, 'trial') + ': ' + Object.keys(counts).sort().map(function (k) { return counts[k] + ' ' + k; }).join(', ') +
    (mean === null ? '' : '; mean reward ' + mean.toFixed(3) + ' over ' + plural(rewards.length, 'rewarded trial'));
}
function trialRow(t) {
  const tr = el('tr', 'row trial');
  tr.setAttribute('data-outcome', t.outcome);
  const main = t.docs[t.main];
  const go = main && main.doc !== null ? '#doc-' + main.doc : null;
  const name = go ? el('a', null, t.name) : el('span', null, t.name);
  if (go) name.href = go;
  const outcome = add(el('td'), badge(t.outcome, t.outcome === 'passed' ? 'valid' : (t.outcome === 'error' || t.outcome === 'failed') ? 'invalid' : 'warning'));
  if (t.exception) outcome.appendChild(el('div', 'muted exception', [t.exception.type, t.exception.message].filter(Boolean).join(': ')));
  if (t.problem) outcome.appendChild(el('div', 'muted', t.problem));
  const tokens = typeof t.tokens === 'number' ? num(t.tokens)
    : typeof t.input_tokens === 'number' ? num(t.input_tokens + (t.output_tokens || 0)) + ' (result.json)' : '–';
  const files = el('td', 'files');
  t.docs.forEach(function (d) {
    const a = el(d.doc === null ? 'span' : 'a', 'file mono', d.label + (d.doc === null ? ' (not in the page: --max-docs)' : ''));
    if (d.doc !== null) a.href = '#doc-' + d.doc;
    files.appendChild(add(el('div'), a));
  });
  const cells = [add(el('td', 'mono'), name), el('td', null, t.task || ''), el('td', null, t.agent || ''), el('td', 'mono', t.model || ''),
    el('td', 'num', typeof t.reward === 'number' ? String(t.reward) : '–'), outcome, el('td', 'num', num(t.steps)),
    el('td', 'num', tokens), el('td', 'num', cost(trialCost(t))),
    el('td', 'num', num(t.errors)), el('td', 'num', num(t.warnings)), files];
  for (const c of cells) tr.appendChild(c);
  tr.addEventListener('click', function (ev) { if (go && !ev.target.closest('a')) location.hash = go; });
  return tr;
}
function trialsView() {
  const trials = DATA.trials;
  const box = el('section', 'trials');
  box.appendChild(el('h2', null, 'Trials'));
  box.appendChild(el('p', 'note trial-summary', trialSummary(trials) +
    '. Reward and outcome are each trial\u2019s result.json (verifier_result.rewards, exception_info); steps, tokens and findings add up its trajectories.'));
  box.appendChild(indexTable({
    name: 'trial', noun: 'trial', columns: TRIAL_COLUMNS, rows: trials, row: trialRow, value: trialValue,
    choice: { label: 'outcome', all: 'all outcomes', of: function (t) { return t.outcome; } },
    placeholder: 'filter trials: name, task, agent, model, exception',
    text: function (t) { return [t.name, t.task, t.agent, t.model, t.exception && t.exception.type, t.exception && t.exception.message].concat(t.docs.map(function (d) { return d.label; })); },
    link: function (t) { const main = t.docs[t.main]; return main && main.doc !== null ? 'doc-' + main.doc : null; },
  }));
  return box;
}
