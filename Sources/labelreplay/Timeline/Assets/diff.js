// The diff between two seqs, per label, as `diff` computes it (the same
// comparison, step for step: added, renamed, toggled and moved in the later
// list's order, then removed in the earlier list's; moved means outside one
// longest increasing run of the common labels' new positions).
/** The indices of one longest strictly increasing subsequence of `values` (patience sorting, as `diff`). */
function longestIncreasingRun(values) {
  const tails = [], previous = new Int32Array(values.length).fill(-1);
  for (let i = 0; i < values.length; i++) {
    const value = values[i];
    let low = 0, high = tails.length;
    while (low < high) { const mid = (low + high) >> 1; if (values[tails[mid]] < value) low = mid + 1; else high = mid; }
    if (low > 0) previous[i] = tails[low - 1];
    if (low === tails.length) tails.push(i); else tails[low] = i;
  }
  const run = [];
  for (let i = tails.length ? tails[tails.length - 1] : -1; i >= 0; i = previous[i]) run.push(i);
  return run.reverse();
}

/** The per-label changes from right after event `tf` to right after event `tt`. */
function compareStates(m, tf, tt) {
  const a = m.orderAt(tf), b = m.orderAt(tt), L = m.labelCount;
  const aPos = new Int32Array(L).fill(-1), bPos = new Int32Array(L).fill(-1);
  a.forEach((lab, i) => { aPos[lab] = i; });
  b.forEach((lab, i) => { bPos[lab] = i; });
  const common = Array.from(a).filter((lab) => bPos[lab] >= 0);
  const stayed = new Uint8Array(L);
  for (const i of longestIncreasingRun(common.map((lab) => bPos[lab]))) stayed[common[i]] = 1;
  const changes = [];
  b.forEach((lab, position) => {
    const title = m.titleAt(lab, tt), on = m.enabledAt(lab, tt);
    if (aPos[lab] < 0) { changes.push({ change: 'added', lab, title, on, to: position }); return; }
    const oldTitle = m.titleAt(lab, tf), oldOn = m.enabledAt(lab, tf);
    if (oldTitle !== title) changes.push({ change: 'renamed', lab, title, oldTitle });
    if (oldOn !== on) changes.push({ change: 'toggled', lab, title, oldOn, on });
    if (!stayed[lab]) changes.push({ change: 'moved', lab, title, from: aPos[lab], to: position });
  });
  a.forEach((lab, position) => {
    if (bPos[lab] >= 0) return;
    changes.push({ change: 'removed', lab, title: m.titleAt(lab, tt), on: m.enabledAt(lab, tt), from: position });
  });
  return { before: a.length, after: b.length, changes };
}

function diffRow(app, c) {
  const m = app.model, s = m.strings;
  return rowOf('drow', (row) => {
    row.dataset.change = c.change;
    row.dataset.id = m.id(c.lab);
    cell(row, 'kind k-' + c.change).textContent = c.change;
    cell(row).textContent = m.shortId(c.lab);
    const d = cell(row);
    if (c.title >= 0) { quoted(d, s[c.title]); d.append('  '); }
    switch (c.change) {
    case 'added': d.append('new ' + onOff(c.on) + ' at position ' + c.to); break;
    case 'removed': d.append('gone (was ' + onOff(c.on) + ' at position ' + c.from + ')'); break;
    case 'renamed': step(d, (p, k, which) => quoted(p, s[which ? c.title : c.oldTitle], k)); break;
    case 'toggled': step(d, (p, k, which) => p.append(el('span', k, onOff(which ? c.on : c.oldOn)))); break;
    case 'moved': d.append('position '); step(d, (p, k, which) => p.append(el('span', k, String(which ? c.to : c.from)))); break;
    }
    row.addEventListener('click', () => app.select(c.lab));
  });
}

/** Computes and shows the diff between the seqs in the diff inputs. */
function showDiff(app) {
  const m = app.model, heading = $('diff-heading'), from = app.diff.from, to = app.diff.to;
  $('diff-from').value = String(from);
  $('diff-to').value = String(to);
  delete heading.dataset.error;
  if (!(from >= m.baseSeq && to <= m.lastSeq && from <= to)) {
    heading.textContent = from > to ? 'from (' + from + ') must not be after to (' + to + ')'
      : 'seqs must be within ' + m.baseSeq + '–' + m.lastSeq;
    heading.dataset.error = 'true';
    app.diffChanges = [];
    app.lists.diff.setCount(0);
    return;
  }
  const result = compareStates(m, from - m.firstSeq, to - m.firstSeq);
  app.diffChanges = result.changes;
  const n = result.changes.length;
  heading.textContent = 'seq ' + from + ' → ' + to + ': ' + result.before + ' → ' + result.after + ' labels, ' + n
    + ' change' + (n === 1 ? '' : 's');
  heading.dataset.from = String(from);
  heading.dataset.to = String(to);
  for (const kind of ['added', 'removed', 'renamed', 'toggled', 'moved']) {
    heading.dataset[kind] = String(result.changes.filter((c) => c.change === kind).length);
  }
  app.lists.diff.setCount(n);
}
