// The panels that follow the current seq: the events (filtered by kind,
// actor and label), the list and the view at the seq (rows the event
// changed highlighted, rows it removed shown as gone), who was told
// (from the store's own notifications, embedded per event), and the
// selected label's history.
/** A row for event `i`: the events panel's columns, or (compact) the history's. */
function eventRow(app, i, compact) {
  const m = app.model, k = m.kind[i];
  return rowOf((compact ? 'hrow ' : 'ev ') + 'k-row-' + KINDS[k], (row) => {
    row.dataset.seq = String(m.seq(i));
    row.dataset.kind = KINDS[k];
    if (i === app.t) row.classList.add('current');
    if (k === REJECTED) row.classList.add('rejected');
    if (app.selected >= 0 && m.label[i] === app.selected) row.classList.add('selected');
    cell(row).textContent = String(m.seq(i));
    if (!compact) {
      const when = cell(row), iso = isoTime(m, i);
      when.textContent = iso.length === 24 ? iso.slice(11, 23) : iso;
      when.title = iso;
      actorName(m, cell(row, 'actor'), i);
    }
    cell(row, 'kind k-' + KINDS[k]).textContent = KINDS[k];
    if (!compact) {
      const who = cell(row, 'label');
      if (m.label[i] >= 0) labelName(m, who, m.label[i], i, app.select);
    }
    const change = cell(row, 'change');
    describe(m, change, i);
    change.title = change.textContent;
    row.addEventListener('click', () => app.setSeq(m.seq(i)));
  });
}

/** The events that pass the kind, actor and label filters (null: all). */
function filterEvents(app) {
  const m = app.model, f = app.filters;
  if (f.kind < 0 && f.actor === -2 && f.labels === null) return null;
  const out = new Int32Array(m.n);
  let n = 0;
  for (let i = 0; i < m.n; i++) {
    if (f.kind >= 0 && m.kind[i] !== f.kind) continue;
    if (f.actor !== -2 && m.actor[i] !== f.actor) continue;
    if (f.labels !== null && (m.label[i] < 0 || !f.labels[m.label[i]])) continue;
    out[n++] = i;
  }
  return out.subarray(0, n);
}

/** The labels whose id starts with `text` or one of whose titles contains it (case-insensitively). */
function labelsMatching(m, text) {
  const want = text.toLowerCase(), hex = want.replace(/-/g, ''), hits = new Uint8Array(m.labelCount);
  const isHex = /^[0-9a-f]+$/.test(hex), seen = new Map();
  const has = (s) => {
    if (s < 0) return false;
    let v = seen.get(s);
    if (v === undefined) { v = m.strings[s].toLowerCase().includes(want); seen.set(s, v); }
    return v;
  };
  for (let l = 0; l < m.labelCount; l++) {
    if (isHex && m.hex.startsWith(hex, l * 32)) { hits[l] = 1; continue; }
    if (has(m.baseTitle[l])) { hits[l] = 1; continue; }
    for (let j = m.labelStart[l]; j < m.labelStart[l + 1]; j++) if (has(m.titleAfter[m.labelEvents[j]])) { hits[l] = 1; break; }
  }
  return hits;
}

function showEvents(app) {
  const rows = app.evRows, m = app.model, n = rows ? rows.length : m.n;
  $('events-count').textContent = rows ? n + ' of ' + m.n : String(m.n);
  app.lists.events.setCount(n, currentEventRow(app));
}

/** The row of the events list that shows the current event (or the last before it). */
function currentEventRow(app) {
  const rows = app.evRows;
  if (!rows) return Math.max(app.t, 0);
  let lo = 0, hi = rows.length - 1, r = -1;
  while (lo <= hi) { const mid = (lo + hi) >> 1; if (rows[mid] <= app.t) { r = mid; lo = mid + 1; } else hi = mid - 1; }
  return Math.max(r, 0);
}

/** Folds to the current seq and works out the rows to show: positions, and gone rows as -1 - label. */
function computeState(app) {
  const m = app.model, t = app.t, k = t >= 0 ? m.kind[t] : -1, changed = new Set();
  let prev = null;
  if (k === REORDERED) prev = m.orderAt(t - 1);
  const order = m.orderAt(t);
  if (k === ADDED || k === TOGGLED || k === MOVED || (k === RENAMED && m.a[t] !== m.b[t])) changed.add(m.label[t]);
  if (prev) for (let p = 0; p < order.length; p++) if (prev[p] !== order[p]) changed.add(order[p]);
  const rows = new Int32Array(order.length + (k === REMOVED ? 1 : 0));
  let r = 0;
  for (let p = 0; p < order.length; p++) {
    if (k === REMOVED && p === m.a[t]) rows[r++] = -1 - m.label[t];
    rows[r++] = p;
  }
  if (k === REMOVED && m.a[t] >= order.length) rows[r++] = -1 - m.label[t];
  const view = [], gone = t >= 0 ? m.viewChanges(t).filter((c) => c.type === 1) : [];
  if (m.query) {
    for (let p = 0; p < order.length; p++) {
      while (gone.length && gone[0].x === view.length) view.push(-1 - gone.shift().lab);
      if (m.inView(order[p], t)) view.push(p);
    }
    for (const c of gone) view.push(-1 - c.lab);
  }
  app.cur = { order, rows, view, changed };
}

function stateRow(app, code, viewRow) {
  const m = app.model, t = app.t, gone = code < 0, lab = gone ? -1 - code : app.cur.order[code];
  return rowOf(viewRow === undefined ? 'lrow' : 'lrow vrow', (row) => {
    row.dataset.id = m.id(lab);
    if (gone) { row.classList.add('gone'); row.dataset.gone = 'true'; } else row.dataset.pos = String(code);
    if (viewRow !== undefined) { row.dataset.row = String(viewRow); cell(row).textContent = gone ? '–' : String(viewRow); }
    const on = m.enabledAt(lab, t);
    row.dataset.enabled = String(on === 1);
    if (app.cur.changed.has(lab) || (gone && t >= 0)) { row.classList.add('changed'); row.dataset.changed = 'true'; }
    if (lab === app.selected) row.classList.add('selected');
    cell(row).textContent = gone ? 'gone' : String(code);
    cell(row).textContent = m.shortId(lab);
    const title = cell(row, 'title'), s = m.titleAt(lab, t);
    if (s >= 0) put(title, m.strings[s]);
    cell(row, on ? '' : 'off').textContent = onOff(on);
    if (viewRow === undefined) cell(row).textContent = gone ? '' : String(m.versionAt(lab, t));
    row.addEventListener('click', () => app.select(lab));
  });
}

function showState(app) {
  const m = app.model, t = app.t, cur = app.cur, seq = m.seq(t);
  const heading = $('list-heading');
  heading.textContent = 'List at seq ' + seq + ': ' + m.countAt(t) + ' label' + (m.countAt(t) === 1 ? '' : 's') + ', '
    + m.enabledCountAt(t) + ' enabled';
  heading.dataset.count = String(m.countAt(t));
  heading.dataset.enabled = String(m.enabledCountAt(t));
  let focus = -1;
  for (let r = 0; r < cur.rows.length && focus < 0; r++) {
    const code = cur.rows[r], lab = code < 0 ? -1 - code : cur.order[code];
    if (code < 0 || cur.changed.has(lab)) focus = r;
  }
  app.lists.list.setCount(cur.rows.length, focus);
  const vh = $('view-heading');
  if (!m.query) {
    vh.textContent = 'View: none (pass --query or --enabled-only to timeline)';
    app.lists.view.setCount(0);
    return;
  }
  const shown = cur.view.filter((c) => c >= 0).length;
  vh.textContent = 'View ' + viewName(m) + ' at seq ' + seq + ': ' + shown + ' of ' + m.countAt(t) + ' shown';
  vh.dataset.rows = String(shown);
  app.lists.view.setCount(cur.view.length, cur.view.findIndex((c) => c < 0 || cur.changed.has(cur.order[c])));
}

function viewName(m) {
  const q = m.query;
  return (q.text ? '"' + q.text + '"' : '') + (q.enabledOnly ? (q.text ? ' ' : '') + 'enabled-only' : '');
}

/** Who was told about the current event: the store's notifications, and the subscribers it did not tell. */
function showTold(app) {
  const m = app.model, t = app.t, ul = $('told');
  ul.replaceChildren();
  $('told-heading').textContent = t < 0 ? 'Who was told' : 'Who was told at seq ' + m.seq(t);
  if (t < 0) { ul.append(el('li', 'note', 'The list before seq ' + m.firstSeq + ': no event.')); return; }
  const mask = m.told[t], lab = m.label[t], k = m.kind[t];
  const item = (dep, notified, name, fill) => {
    const li = el('li');
    li.dataset.dep = dep;
    li.dataset.notified = String(notified);
    li.append(el('span', 'mark', notified ? '→' : '·'), el('span', 'name', name));
    const detail = el('span', 'detail');
    if (fill) fill(detail);
    li.append(detail);
    ul.append(li);
  };
  const titleOf = (x) => (x < 0 ? '(not live)' : x);
  if (mask & TOLD.membership) {
    item('membership', true, 'list', (d) => { d.append(m.countAt(t) + ' labels: '); summary(m, d, app.cur.order, t); });
  }
  if (mask & TOLD.title) {
    item('title', true, 'title(' + m.shortId(lab) + ')', (d) => step(d, (p, c, which) => {
      const s = k === RENAMED ? (which ? m.b[t] : m.a[t]) : k === ADDED ? (which ? m.a[t] : -1) : (which ? -1 : m.b[t]);
      if (s >= 0) quoted(p, m.strings[s], c); else p.append(el('span', c, which ? '(removed)' : titleOf(s)));
    }));
  }
  if (mask & TOLD.isEnabled) {
    item('isEnabled', true, 'isEnabled(' + m.shortId(lab) + ')', (d) => step(d, (p, c, which) => {
      const f = m.flag[t] === 1;
      const text = k === TOGGLED ? onOff(which ? f : !f)
        : k === ADDED ? (which ? onOff(f) : '(not live)') : (which ? '(removed)' : onOff(f));
      p.append(el('span', c, text));
    }));
  }
  if (mask & TOLD.view) {
    item('view', true, 'view ' + viewName(m), (d) => {
      const names = ['inserted', 'removed', 'updated', 'moved'];
      m.viewChanges(t).forEach((c, j) => {
        if (j > 0) d.append('; ');
        d.append(c.type === 3 ? 'row ' + c.x + ' moved to ' + c.y + ' (' : 'row ' + c.x + ' ' + names[c.type] + ' (');
        labelName(m, d, c.lab, t);
        d.append(')');
      });
      d.append('; rows now: ');
      summary(m, d, app.cur.view.filter((c) => c >= 0).map((p) => app.cur.order[p]), t);
    });
  }
  if (mask & TOLD.enabledCount) {
    item('enabledCount', true, 'enabled count', (d) => d.append(m.enabledCountAt(t - 1) + ' → ' + m.enabledCountAt(t)));
  }
  const quiet = [['membership', 'list']];
  if (m.query) quiet.push(['view', 'view ' + viewName(m)]);
  quiet.push(['enabledCount', 'enabled count']);
  if (lab >= 0) quiet.push(['title', 'title(' + m.shortId(lab) + ')'], ['isEnabled', 'isEnabled(' + m.shortId(lab) + ')']);
  for (const [dep, name] of quiet) if (!(mask & TOLD[dep])) item(dep, false, name, (d) => d.append('not notified'));
  if (mask === 0) ul.append(el('li', 'note', '(the record changes nothing, so no subscriber is told)'));
}

/** The selected label's every event (its own, reorders that list it, and edits refused after its removal). */
function showHistory(app) {
  const m = app.model, lab = app.selected, heading = $('history-heading');
  if (lab < 0) {
    heading.textContent = 'Label history: click a label';
    app.history = new Int32Array(0);
    app.lists.history.setCount(0);
    return;
  }
  const own = m.labelEvents.subarray(m.labelStart[lab], m.labelStart[lab + 1]), all = Array.from(own);
  for (let i = 0; i < m.n; i++) if (m.kind[i] === REORDERED && m.reorderLabels(i).includes(lab)) all.push(i);
  all.sort((x, y) => x - y);
  app.history = all;
  heading.replaceChildren('Label ');
  labelName(m, heading, lab, m.n - 1);
  heading.append(': ' + all.length + ' event' + (all.length === 1 ? '' : 's'));
  heading.dataset.label = m.id(lab);
  app.lists.history.setCount(all.length, all.findIndex((i) => i >= app.t));
}
