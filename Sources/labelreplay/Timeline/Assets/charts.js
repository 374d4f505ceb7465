// The charts, inline SVG built with `createElementNS`: events per kind
// over time (stacked bars, one per time bucket) and the list's length and
// enabled count over seq (sampled lines); a cursor marks the current
// seq, and clicking a chart moves to the seq under the pointer.
const SVG = 'http://www.w3.org/2000/svg';
function svgEl(tag, attributes) {
  const e = document.createElementNS(SVG, tag);
  for (const key in attributes) e.setAttribute(key, String(attributes[key]));
  return e;
}

function buildCharts(app) {
  const m = app.model, n = m.n;
  // Events per kind over time.
  let lo = Infinity, hi = -Infinity;
  for (let i = 0; i < n; i++) { if (m.time[i] < lo) lo = m.time[i]; if (m.time[i] > hi) hi = m.time[i]; }
  const buckets = n === 0 || hi === lo ? 1 : Math.min(160, n), span = hi - lo || 1;
  const counts = new Float64Array(buckets * 7), firstEvent = new Int32Array(buckets).fill(-1);
  for (let i = 0; i < n; i++) {
    const bucket = Math.min(buckets - 1, Math.floor(((m.time[i] - lo) / span) * buckets));
    counts[bucket * 7 + m.kind[i]]++;
    if (firstEvent[bucket] < 0) firstEvent[bucket] = i;
  }
  let most = 1;
  for (let bucket = 0; bucket < buckets; bucket++) {
    let total = 0;
    for (let k = 0; k < 7; k++) total += counts[bucket * 7 + k];
    most = Math.max(most, total);
  }
  const kinds = $('chart-kinds'), width = 1000 / buckets;
  kinds.replaceChildren();
  for (let bucket = 0; bucket < buckets; bucket++) {
    let y = 100;
    for (let k = 0; k < 7; k++) {
      const h = (counts[bucket * 7 + k] / most) * 96;
      if (h <= 0) continue;
      y -= h;
      kinds.append(svgEl('rect', { x: bucket * width, y, width: Math.max(width * 0.86, 0.5), height: h, class: 'k-' + KINDS[k] }));
    }
  }
  app.timeCursor = svgEl('line', { x1: 0, x2: 0, y1: 0, y2: 100, class: 'cursor' });
  kinds.append(app.timeCursor);
  app.timeScale = { lo, span };
  kinds.addEventListener('click', (e) => {
    const r = kinds.getBoundingClientRect(), bucket = Math.min(buckets - 1, Math.floor(((e.clientX - r.left) / r.width) * buckets));
    let i = -1;
    for (let b = bucket; b < buckets && i < 0; b++) i = firstEvent[b];
    if (i >= 0) app.setSeq(m.seq(i));
  });
  const legend = $('kinds-legend');
  legend.replaceChildren();
  for (let k = 0; k < 7; k++) legend.append(el('span', 'k-' + KINDS[k], KINDS[k]));
  $('kinds-start').textContent = n ? isoTime(m, m.time.indexOf(lo)) : '';
  $('kinds-end').textContent = n ? isoTime(m, m.time.indexOf(hi)) : '';

  // List length and enabled count over seq.
  const counter = $('chart-counts'), points = Math.max(2, Math.min(800, n + 1)), top = Math.max(1, m.maxCount);
  const line = (value) => {
    const xy = [];
    for (let p = 0; p < points; p++) {
      const t = Math.round(-1 + (p / (points - 1)) * n);
      xy.push(((p / (points - 1)) * 1000).toFixed(1) + ',' + (100 - (value(t) / top) * 96).toFixed(2));
    }
    return xy.join(' ');
  };
  counter.replaceChildren(
    svgEl('polyline', { points: line((t) => m.countAt(t)), class: 'count' }),
    svgEl('polyline', { points: line((t) => m.enabledCountAt(t)), class: 'enabled' }));
  app.seqCursor = svgEl('line', { x1: 0, x2: 0, y1: 0, y2: 100, class: 'cursor' });
  counter.append(app.seqCursor);
  counter.addEventListener('click', (e) => {
    const r = counter.getBoundingClientRect();
    app.setSeq(Math.round(m.baseSeq + ((e.clientX - r.left) / r.width) * n));
  });
  $('counts-max').textContent = '(max ' + m.maxCount + ')';
  $('counts-start').textContent = 'seq ' + m.baseSeq;
  $('counts-end').textContent = 'seq ' + m.lastSeq;
}

function moveCursors(app) {
  const m = app.model, t = app.t;
  const x = m.n ? ((t + 1) / m.n) * 1000 : 0;
  app.seqCursor.setAttribute('x1', String(x));
  app.seqCursor.setAttribute('x2', String(x));
  const tx = t >= 0 ? ((m.time[t] - app.timeScale.lo) / app.timeScale.span) * 1000 : 0;
  app.timeCursor.setAttribute('x1', String(tx));
  app.timeCursor.setAttribute('x2', String(tx));
}
