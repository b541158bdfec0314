// The helpers every part uses, and the page's state. Content is only ever set with textContent
// (never innerHTML), links only for http(s) URLs, media only from data: URIs made by atif view.
const DATA = JSON.parse(document.getElementById('atif-data').textContent);
const app = document.getElementById('app');
const CHUNK = 50;
const FOLD = 1200;
const views = new Map(); // "doc|base" -> trajectory view
const shown = new Map(); // doc index -> {root, findings, tree}
const SVG = 'http://www.w3.org/2000/svg';
const STEP_KEY = /^((?:\/subagent_trajectories\/\d+)*\/steps\/\d+)(?:\/|$)/;

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
function untoken(t) { return t.replace(/~1/g, '/').replace(/~0/g, '~'); }
function ptr(base) {
  let out = base;
  for (let i = 1; i < arguments.length; i++) out += '/' + token(arguments[i]);
  return out;
}
function within(p, prefix) { return p === prefix || p.startsWith(prefix + '/'); }
function num(n) { return typeof n === 'number' ? n.toLocaleString('en-US') : '–'; }
function cost(n) { return typeof n === 'number' ? '$' + n.toFixed(n < 1 ? 4 : 2) : '–'; }
function isObj(v) { return v !== null && typeof v === 'object' && !Array.isArray(v); }
function plural(n, word) { return num(n) + ' ' + word + (n === 1 ? '' : 's'); }
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
function setOpen(li, on) {
  // A step in compact mode shows one line until opened; its body is then hidden until found,
  // so that the browser's find still sees it (and opens it: 'beforematch').
  li.classList.toggle('open', on);
  const body = li.querySelector(':scope > .body');
  if (!body) return;
  if (!on && document.body.classList.contains('compact')) body.setAttribute('hidden', 'until-found');
  else body.removeAttribute('hidden');
}
function unfold(node) {
  // Open what hides node: closed <details>, compact steps.
  for (let p = node; p; p = p.parentElement) {
    if (p !== node && p.tagName === 'DETAILS' && !p.open) { p.open = true; if (p.open_) p.open_(); }
    if (p.tagName === 'LI' && p.classList.contains('step')) setOpen(p, true);
  }
}
function reach(node, block) {
  node.scrollIntoView({ block: block || 'center' });
  // Steps coming into view are laid out only then (content-visibility: auto) and change height:
  // once they have, scroll again.
  requestAnimationFrame(function () { requestAnimationFrame(function () { node.scrollIntoView({ block: block || 'center' }); }); });
}
function jumpTo(node, block) {
  unfold(node);
  reach(node, block);
  flash(node);
}
function showAll(pre, found) {
  // A folded text's rest is in the page (hidden until found: the browser's find sees it).
  // Shown by the browser's find (found), its nodes stay where the find's match is; otherwise
  // the text becomes one node again (a search hit may straddle the fold).
  const rest = pre.querySelector('.rest');
  if (!rest) return;
  const dots = pre.querySelector('.dots');
  if (dots) dots.remove();
  const more = pre.parentElement && pre.parentElement.querySelector(':scope > button.more');
  if (more) more.remove();
  rest.removeAttribute('hidden');
  rest.classList.remove('rest');
  if (!found) pre.textContent = pre.textContent;
}
function text(value, cls) {
  const s = typeof value === 'string' ? value : JSON.stringify(value, null, 2);
  const pre = el('pre', cls || null);
  if (s.length <= FOLD) { pre.textContent = s; return pre; }
  const wrap = el('div', 'folded');
  const rest = el('span', 'rest', s.slice(FOLD));
  rest.setAttribute('hidden', 'until-found');
  rest.addEventListener('beforematch', function () { showAll(pre, true); });
  add(pre, document.createTextNode(s.slice(0, FOLD)), el('span', 'dots', ' …'), rest);
  const more = button('show all ' + num(s.length) + ' characters', function () { showAll(pre); }, 'link more');
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
function trajectoryAt(doc, base) {
  // The (sub)trajectory at base ('' or (/subagent_trajectories/K)*) of a document's ATIF.
  let node = DATA.docs[doc].atif;
  const parts = base.split('/').slice(1);
  for (let i = 0; i + 1 < parts.length && isObj(node); i += 2) {
    const subs = node.subagent_trajectories;
    node = Array.isArray(subs) ? subs[Number(parts[i + 1])] : null;
  }
  return isObj(node) ? node : null;
}
function stepsOf(traj) { return isObj(traj) && Array.isArray(traj.steps) ? traj.steps : []; }
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
function launches(traj) {
  // subagent index -> index of the step whose result first names it.
  const subs = isObj(traj) && Array.isArray(traj.subagent_trajectories) ? traj.subagent_trajectories : [];
  const byId = new Map();
  subs.forEach(function (s, k) { if (isObj(s) && typeof s.trajectory_id === 'string' && !byId.has(s.trajectory_id)) byId.set(s.trajectory_id, k); });
  const launched = new Map();
  stepsOf(traj).forEach(function (step, i) {
    for (const [, ref] of refsOf(step)) {
      const k = byId.get(ref.trajectory_id);
      if (k !== undefined && !launched.has(k)) launched.set(k, i);
    }
  });
  return launched;
}
