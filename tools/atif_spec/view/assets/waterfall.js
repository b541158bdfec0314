// The waterfall: a run's spans as the OpenTelemetry mapping makes them (one row each, nested by
// depth), on a time axis in seconds. Rows, times and ticks come computed (view/waterfall.py); this
// draws them, only when the section is first opened (the first screen does not pay for it), and
// then only the rows in its scroll box and a few more (rows of one height: a 3,000-step run's
// 6,000 spans open at once). A row links to its step; a row with no timestamp (time synthesized
// by the mapping) or no known end has no bar and says so.
const WF_ROW = 20; // px, the height of a row (view.css .wf-row)
const WF_MORE = 20; // rows drawn above and below the scroll box
function waterfallSection(doc, spec) {
  const d = el('details', 'waterfall');
  if (spec.kind === 'none') {
    d.appendChild(el('summary', null, spec.title + ': none'));
    d.appendChild(el('p', 'muted chart-note', spec.note));
    return d;
  }
  d.appendChild(el('summary', null, spec.title + ' (' + plural(spec.rows.length, 'span') + ', ' + num(spec.total) + ' s)'));
  d.addEventListener('toggle', function () {
    if (d.open && !d.querySelector('.wf')) add(d, waterfallView(doc, spec), el('p', 'muted chart-note', spec.note));
  });
  return d;
}

function waterfallView(doc, spec) {
  const box = el('div', 'wf');
  const top = topOfTicks(spec.ticks);
  const at = function (s) { return (100 * s / top) + '%'; };
  const axis = add(el('div', 'wf-row wf-axis'), el('span', 'wf-label', 'span'), el('span', 'wf-time', 'duration'));
  const marks = el('div', 'wf-track');
  for (const t of spec.ticks) {
    const m = el('span', 'wf-tick', tickLabel(t) + ' s');
    m.style.left = at(t);
    marks.appendChild(m);
  }
  const body = el('div', 'wf-body'); // the axis stays on top as the rows scroll under it
  const space = el('div', 'wf-space');
  space.style.height = spec.rows.length * WF_ROW + 'px';
  box.appendChild(add(body, add(axis, marks), space));
  let drawn = [-1, -1];
  const draw = function () {
    const from = Math.max(0, Math.floor(body.scrollTop / WF_ROW) - WF_MORE);
    const to = Math.min(spec.rows.length, Math.ceil((body.scrollTop + (body.clientHeight || 600)) / WF_ROW) + WF_MORE);
    if (from === drawn[0] && to === drawn[1]) return;
    drawn = [from, to];
    space.textContent = '';
    for (let i = from; i < to; i++) {
      const row = waterfallRow(doc, spec.rows[i], spec.names[spec.rows[i][2]], at);
      row.style.top = i * WF_ROW + 'px';
      space.appendChild(row);
    }
  };
  body.addEventListener('scroll', draw, { passive: true });
  requestAnimationFrame(draw);
  draw();
  return box;
}

function waterfallRow(doc, r, name, at) {
  const p = r[0], depth = r[1], start = r[3], length = r[4];
  const row = el('div', 'wf-row ' + name.split(' ')[0].replace('.', '-'));
  row.setAttribute('data-span', p);
  const label = el('a', 'wf-label', name);
  label.style.paddingLeft = (0.3 + 1.2 * depth) + 'em';
  const anchor = spanAnchor(doc, p);
  if (anchor) label.href = '#' + anchor;
  const track = el('div', 'wf-track');
  let time = 'no timestamp';
  if (start !== null) {
    const bar = el('span', length === null ? 'wf-mark' : 'wf-bar');
    bar.style.left = at(start);
    if (length !== null) bar.style.width = at(length);
    track.appendChild(bar);
    time = length === null ? 'end unknown' : num(length) + ' s';
  }
  row.title = name + ': ' + (start === null ? 'no timestamp (the mapping synthesizes its time)' : 'starts at ' + num(start) + ' s, ' + time);
  return add(row, label, el('span', 'wf-time mono' + (length === null ? ' muted' : ''), time), track);
}

function spanAnchor(doc, p) {
  // A step's or tool call's own anchor (the step's when the call has no id); a trajectory's
  // first step's.
  if (/^(?:\/subagent_trajectories\/\d+)*$/.test(p)) return anchorOf(doc, p + '/steps/0');
  return anchorOf(doc, p) || anchorOf(doc, p.replace(/\/tool_calls\/\d+$/, ''));
}
