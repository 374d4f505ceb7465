// The page: state (the current seq, the selected label, the filters, the
// diff's seqs) kept in the URL fragment (`#seq=17&label=…&from=12&to=18&kind=…&actor=…&find=…`),
// the scrubber, keyboard and clicks, and the timings it records in
// `<output id="perf">` (ready; with `bench=N`, N scrubber moves to seqs
// spread over the range).
class App {
  constructor(model) {
    this.model = model;
    this.t = model.n - 1;
    this.selected = model.doc.selected === null || model.doc.selected === undefined ? -1 : model.doc.selected;
    this.filters = { kind: -1, actor: -2, labels: null, find: '' };
    this.evRows = null;
    this.diff = { from: model.baseSeq, to: model.lastSeq, explicit: false };
    this.history = new Int32Array(0);
    this.diffChanges = [];
    this.select = (lab) => {
      this.selected = lab;
      showHistory(this);
      for (const key in this.lists) this.lists[key].draw();  // the selected label's rows are marked where they are
      this.writeHash();
    };
    this.lists = {
      events: new VList($('events'), (r) => eventRow(this, this.evRows ? this.evRows[r] : r, false)),
      list: new VList($('list'), (r) => stateRow(this, this.cur.rows[r])),
      view: new VList($('view'), (r) => stateRow(this, this.cur.view[r], this.viewRowNumber(r))),
      diff: new VList($('diff'), (r) => diffRow(this, this.diffChanges[r])),
      history: new VList($('history'), (r) => eventRow(this, this.history[r], true)),
    };
  }

  viewRowNumber(r) {
    let row = 0;
    for (let j = 0; j < r; j++) if (this.cur.view[j] >= 0) row++;
    return row;
  }

  /** Moves to `seq` (clamped to the range) and redraws what depends on it. */
  setSeq(seq, keepHash) {
    const m = this.model, t = Math.max(-1, Math.min(m.n - 1, Math.round(Number(seq)) - m.firstSeq));
    if (!Number.isFinite(t)) return;
    this.t = t;
    const s = m.seq(t), scrubber = $('scrubber');
    scrubber.value = String(s);
    const out = $('current-seq');
    out.textContent = 'seq ' + s + ' / ' + m.lastSeq;
    out.dataset.seq = String(s);
    const line = $('current-event');
    line.replaceChildren();
    if (t < 0) {
      line.textContent = 'before seq ' + m.firstSeq + ' (the list the range starts from)';
    } else {
      line.append(isoTime(m, t) + '  ');
      actorName(m, line, t);
      line.append('  ', el('span', 'k-' + KINDS[m.kind[t]], KINDS[m.kind[t]]), '  ');
      if (m.label[t] >= 0) { labelName(m, line, m.label[t], t, this.select); line.append('  '); }
      describe(m, line, t);
    }
    computeState(this);
    showState(this);
    showTold(this);
    this.lists.events.reveal(currentEventRow(this));
    this.lists.history.draw();
    moveCursors(this);
    if (!keepHash) this.writeHash();
  }

  /** After a resize: measures the lists again and keeps the current rows in view. */
  redraw() {
    for (const key in this.lists) { this.lists[key].measure(); this.lists[key].draw(); }
    this.lists.events.reveal(currentEventRow(this));
    showState(this);
  }

  setFilters() {
    const m = this.model, f = this.filters;
    f.kind = KINDS.indexOf($('filter-kind').value);
    const actor = $('filter-actor').value;
    f.actor = actor === '' ? -2 : Number(actor);
    f.find = $('filter-label').value.trim();
    f.labels = f.find ? labelsMatching(m, f.find) : null;
    this.evRows = filterEvents(this);
    showEvents(this);
  }

  setDiff(from, to, explicit) {
    this.diff = { from: Math.round(Number(from)), to: Math.round(Number(to)), explicit };
    showDiff(this);
  }

  writeHash() {
    const m = this.model, p = new URLSearchParams(), f = this.filters;
    p.set('seq', String(m.seq(this.t)));
    if (this.selected >= 0) p.set('label', m.id(this.selected));
    if (this.diff.explicit) { p.set('from', String(this.diff.from)); p.set('to', String(this.diff.to)); }
    if (f.kind >= 0) p.set('kind', KINDS[f.kind]);
    if (f.actor >= 0) p.set('actor', m.strings[f.actor]);
    if (f.actor === -1) p.set('noactor', '1');
    if (f.find) p.set('find', f.find);
    $('permalink').href = '#' + p.toString();
    try {
      history.replaceState(null, '', '#' + p.toString());
    } catch (e) {
      // A browser that refuses it for file: URLs keeps the old fragment; the link still has the new one.
    }
  }

  readHash() {
    const m = this.model, p = new URLSearchParams(location.hash.slice(1));
    if (p.has('kind')) $('filter-kind').value = KINDS.includes(p.get('kind')) ? p.get('kind') : '';
    if (p.has('noactor')) {
      $('filter-actor').value = '-1';
    } else if (p.has('actor')) {
      const j = this.actors.indexOf(p.get('actor'));
      $('filter-actor').value = j >= 0 ? String(this.actorIDs[j]) : '';
    }
    if (p.has('find')) $('filter-label').value = p.get('find');
    this.setFilters();
    if (p.has('label')) this.selected = m.findLabel(p.get('label'));
    showHistory(this);
    if (p.has('from') || p.has('to')) this.setDiff(p.get('from') || m.baseSeq, p.get('to') || m.lastSeq, true);
    else showDiff(this);
    const seq = p.has('seq') ? Number(p.get('seq')) : m.lastSeq;
    this.setSeq(Number.isFinite(seq) ? seq : m.lastSeq, true);
    this.writeHash();
  }

  fillFilters() {
    const m = this.model, kinds = $('filter-kind'), actors = $('filter-actor'), perKind = new Float64Array(7), perActor = new Map();
    for (let i = 0; i < m.n; i++) { perKind[m.kind[i]]++; perActor.set(m.actor[i], (perActor.get(m.actor[i]) || 0) + 1); }
    const option = (value, text) => { const o = el('option', '', text); o.value = value; return o; };
    kinds.append(option('', 'all'));
    KINDS.forEach((k, i) => { if (perKind[i]) kinds.append(option(k, k + ' (' + perKind[i] + ')')); });
    actors.append(option('', 'all'));
    const ids = Array.from(perActor.keys()).sort((x, y) => perActor.get(y) - perActor.get(x));
    this.actorIDs = ids.filter((a) => a >= 0);
    this.actors = this.actorIDs.map((a) => m.strings[a]);
    for (const a of ids) {
      actors.append(option(String(a), (a < 0 ? '(none)' : visibleText(m.strings[a])) + ' (' + perActor.get(a) + ')'));
    }
  }

  start() {
    const m = this.model, scrubber = $('scrubber');
    document.title = 'timeline: ' + visibleText(m.doc.log);
    put($('log-name'), m.doc.log);
    const span = m.n ? isoTime(m, 0) + ' – ' + isoTime(m, m.n - 1) : 'no events';
    $('summary').textContent = m.n + ' event' + (m.n === 1 ? '' : 's') + ', seq ' + m.firstSeq + '–' + m.lastSeq + ' · ' + span
      + ' · ' + m.labelCount + ' labels · ' + (m.query ? 'view ' + viewName(m) : 'no view');
    scrubber.min = String(m.baseSeq);
    scrubber.max = String(m.lastSeq);
    this.fillFilters();
    buildCharts(this);
    scrubber.addEventListener('input', () => this.setSeq(scrubber.value));
    $('prev').addEventListener('click', () => this.setSeq(m.seq(this.t) - 1));
    $('next').addEventListener('click', () => this.setSeq(m.seq(this.t) + 1));
    for (const id of ['filter-kind', 'filter-actor', 'filter-label']) {
      $(id).addEventListener('input', () => { this.setFilters(); this.writeHash(); });
    }
    const diffInput = () => { this.setDiff($('diff-from').value, $('diff-to').value, true); this.writeHash(); };
    $('diff-from').addEventListener('change', diffInput);
    $('diff-to').addEventListener('change', diffInput);
    $('diff-here').addEventListener('click', () => { this.setDiff(m.seq(this.t) - 1, m.seq(this.t), true); this.writeHash(); });
    document.addEventListener('keydown', (e) => {
      const tag = e.target && e.target.tagName;
      if (e.target === scrubber || tag === 'INPUT' || tag === 'SELECT' || e.altKey || e.ctrlKey || e.metaKey) return;
      const steps = { ArrowLeft: -1, ArrowRight: 1, ArrowUp: -1, ArrowDown: 1, PageUp: -100, PageDown: 100 };
      if (e.key in steps) this.setSeq(m.seq(this.t) + steps[e.key] * (e.shiftKey ? 10 : 1));
      else if (e.key === 'Home') this.setSeq(m.baseSeq);
      else if (e.key === 'End') this.setSeq(m.lastSeq);
      else return;
      e.preventDefault();
    });
    window.addEventListener('hashchange', () => this.readHash());
    window.addEventListener('resize', () => this.redraw());
    this.readHash();
  }
}

/** With `bench=N` in the fragment: N moves to seqs spread over the range, timed (then back to where it was). */
function bench(app, moves, perf) {
  const m = app.model, back = m.seq(app.t), times = [];
  let x = 12345;
  for (let j = 0; j < moves; j++) {
    x = (x * 1103515245 + 12345) % 2147483648;
    const seq = m.baseSeq + (x % (m.n + 1)), started = performance.now();
    app.setSeq(seq, true);
    void document.body.offsetHeight;
    times.push(performance.now() - started);
  }
  app.setSeq(back, true);
  times.sort((p, q) => p - q);
  perf.dataset.moves = String(moves);
  perf.dataset.moveMedian = times.length ? times[times.length >> 1].toFixed(1) : '0';
  perf.dataset.moveMax = times.length ? times[times.length - 1].toFixed(1) : '0';
}

const perf = $('perf');
try {
  const decodeStart = performance.now();
  const model = new Model(JSON.parse($('data').textContent));
  perf.dataset.decode = (performance.now() - decodeStart).toFixed(1);
  const moves = Number(new URLSearchParams(location.hash.slice(1)).get('bench'));
  const app = new App(model);
  app.start();
  void document.body.offsetHeight;
  perf.dataset.ready = performance.now().toFixed(1);
  perf.dataset.events = String(model.n);
  if (moves > 0) bench(app, Math.min(moves, 10000), perf);
  document.body.dataset.ready = 'true';
} catch (error) {
  const box = $('error');
  box.hidden = false;
  box.textContent = 'This page could not show the log: ' + (error && error.message ? error.message : String(error));
  document.body.dataset.error = 'true';
  throw error;
}
