// The data model: decodes the embedded document (see ``TimelineData``) into
// typed arrays, indexes each label's events, and folds the list's order to
// any seq from the nearest checkpoint the real fold wrote.
const KINDS = ['added', 'renamed', 'toggled', 'removed', 'moved', 'reordered', 'rejected'];
const ADDED = 0, RENAMED = 1, TOGGLED = 2, REMOVED = 3, MOVED = 4, REORDERED = 5, REJECTED = 6;
const TOLD = { membership: 1, title: 2, isEnabled: 4, view: 8, enabledCount: 16 };

function bytesOf(b64) {
  if (typeof Uint8Array.fromBase64 === 'function') return Uint8Array.fromBase64(b64);
  const s = atob(b64), out = new Uint8Array(s.length);
  for (let i = 0; i < s.length; i++) out[i] = s.charCodeAt(i);
  return out;
}

class Varints {
  constructor(bytes) { this.b = bytes; this.p = 0; }
  get done() { return this.p >= this.b.length; }
  next() {
    const b = this.b;
    if (this.p >= b.length) throw new Error('data: a varint runs past the end');
    let x = b[this.p++];
    if (x < 128) return x;
    let v = x & 127, m = 128;
    do { x = b[this.p++]; v += (x & 127) * m; m *= 128; } while (x >= 128);
    return v;
  }
}

const unzigzag = (v) => (v % 2 ? -(v + 1) / 2 : v / 2);
function grown(a, need) {
  if (need <= a.length) return a;
  const b = new a.constructor(Math.max(need, a.length * 2));
  b.set(a);
  return b;
}

class Model {
  constructor(doc) {
    if (doc.format !== 1) throw new Error('unknown data format ' + doc.format);
    if (doc.kinds.join() !== KINDS.join()) throw new Error('unknown event kinds: ' + doc.kinds.join(', '));
    this.doc = doc;
    this.strings = doc.strings;
    this.n = doc.eventCount;
    this.firstSeq = doc.firstSeq;
    this.baseSeq = doc.firstSeq - 1;
    this.lastSeq = this.baseSeq + this.n;
    this.hex = doc.labels;
    this.labelCount = doc.labels.length / 32;
    this.query = doc.query;
    this.matchBits = doc.titleMatches ? bytesOf(doc.titleMatches) : null;
    this.timeTexts = doc.timeTexts || {};
    this.decodeBase();
    this.decodeEvents();
    this.indexLabels();
    this.checkpoints = [{ event: -1, seq: this.baseSeq, b64: doc.base.order, order: this.baseOrder }];
    for (const c of doc.checkpoints) this.checkpoints.push({ event: c.event, seq: c.seq, b64: c.order, order: null });
    this.decoded = [];
    this.work = { at: -1, order: new Int32Array(this.maxCount + 1), len: 0 };
    this.work.order.set(this.baseOrder);
    this.work.len = this.baseOrder.length;
  }

  seq(i) { return this.firstSeq + i; }
  id(lab) {
    const h = this.hex.substr(lab * 32, 32);
    return h.slice(0, 8) + '-' + h.slice(8, 12) + '-' + h.slice(12, 16) + '-' + h.slice(16, 20) + '-' + h.slice(20);
  }
  shortId(lab) { return this.hex.substr(lab * 32, 8); }
  findLabel(text) {
    const want = String(text).toLowerCase().replace(/-/g, '');
    if (!/^[0-9a-f]{1,32}$/.test(want)) return -1;
    let found = -1;
    for (let l = 0; l < this.labelCount; l++) {
      if (this.hex.startsWith(want, l * 32)) { if (found >= 0) return -1; found = l; }
    }
    return found;
  }

  decodeOrder(b64) {
    const r = new Varints(bytesOf(b64)), out = new Int32Array(r.b.length);
    let n = 0;
    while (!r.done) out[n++] = r.next();
    return out.slice(0, n);
  }

  decodeBase() {
    const L = this.labelCount;
    this.baseTitle = new Int32Array(L).fill(-1);
    this.baseEnabled = new Uint8Array(L);
    this.baseVersion = new Float64Array(L);
    this.baseOrder = this.decodeOrder(this.doc.base.order);
    const states = new Varints(bytesOf(this.doc.baseStates));
    let enabled = 0;
    for (const lab of this.baseOrder) {
      const x = states.next();
      this.baseTitle[lab] = Math.floor(x / 2);
      this.baseEnabled[lab] = x % 2;
      enabled += x % 2;
      this.baseVersion[lab] = states.next();
    }
    this.baseEnabledCount = enabled;
  }

  decodeEvents() {
    const n = this.n, first = this.firstSeq;
    const kind = this.kind = new Uint8Array(n), flag = this.flag = new Uint8Array(n), told = this.told = new Uint8Array(n);
    const time = this.time = new Float64Array(n), actor = this.actor = new Int32Array(n), note = this.note = new Int32Array(n);
    const label = this.label = new Int32Array(n), a = this.a = new Int32Array(n), b = this.b = new Int32Array(n);
    const count = this.count = new Int32Array(n), enabled = this.enabled = new Int32Array(n);
    const titleAfter = this.titleAfter = new Int32Array(n), enabledAfter = this.enabledAfter = new Uint8Array(n);
    const versionAfter = this.versionAfter = new Float64Array(n);
    const viewStart = this.viewStart = new Int32Array(n + 1);
    let views = new Int32Array(1024), nv = 0, orders = new Int32Array(1024), no = 0;
    const title = Int32Array.from(this.baseTitle), on = Uint8Array.from(this.baseEnabled);
    const version = Float64Array.from(this.baseVersion);
    const r = new Varints(bytesOf(this.doc.events));
    let t = this.doc.t0, who = -1, cnt = this.baseOrder.length, en = this.baseEnabledCount, most = cnt;
    for (let i = 0; i < n; i++) {
      const h = r.next(), k = h & 7, f = (h >> 5) & 1, seq = first + i;
      kind[i] = k;
      flag[i] = f;
      told[i] = Math.floor(h / 64);
      t += unzigzag(r.next());
      time[i] = t;
      if (!(h & 16)) who = r.next() - 1;
      actor[i] = who;
      note[i] = h & 8 ? r.next() : -1;
      let lab = -1;
      switch (k) {
      case ADDED:
        lab = r.next(); a[i] = r.next(); b[i] = r.next();
        title[lab] = a[i]; on[lab] = f; version[lab] = seq; cnt++; en += f;
        break;
      case RENAMED:
        lab = r.next(); a[i] = r.next(); b[i] = r.next();
        // Strings are deduplicated by their exact bytes: the same index is the same title, a rename
        // that changes nothing, and the store's fold then leaves the version as it was.
        title[lab] = b[i]; if (b[i] !== a[i]) version[lab] = seq;
        break;
      case TOGGLED:
        lab = r.next();
        on[lab] = f; version[lab] = seq; en += f ? 1 : -1;
        break;
      case REMOVED:
        lab = r.next(); a[i] = r.next(); b[i] = r.next();
        title[lab] = b[i]; on[lab] = f; cnt--; en -= f;
        break;
      case MOVED:
        lab = r.next(); a[i] = r.next(); b[i] = r.next();
        break;
      case REORDERED: {
        const m = r.next();
        orders = grown(orders, no + m);
        for (let j = 0; j < m; j++) orders[no + j] = r.next();
        a[i] = no; b[i] = m; no += m;
        break;
      }
      case REJECTED:
        lab = r.next() - 1; a[i] = r.next(); b[i] = r.next();
        break;
      default:
        throw new Error('data: seq ' + seq + ' has an unknown kind ' + k);
      }
      label[i] = lab;
      if (lab >= 0) { titleAfter[i] = title[lab]; enabledAfter[i] = on[lab]; versionAfter[i] = version[lab]; }
      count[i] = cnt;
      enabled[i] = en;
      if (cnt > most) most = cnt;
      if (told[i] & TOLD.view) {
        const m = r.next();
        views = grown(views, nv + 4 * m);
        for (let j = 0; j < m; j++) {
          const x = r.next(), type = x % 4;
          views[nv++] = type; views[nv++] = (x - type) / 4; views[nv++] = r.next(); views[nv++] = type === 3 ? r.next() : -1;
        }
      }
      viewStart[i + 1] = nv;
    }
    if (!r.done) throw new Error('data: ' + (r.b.length - r.p) + ' bytes after the last event');
    this.views = views;
    this.orders = orders;
    this.maxCount = Math.max(most, this.doc.maxCount);
  }

  indexLabels() {
    const L = this.labelCount, n = this.n, start = new Int32Array(L + 1);
    for (let i = 0; i < n; i++) if (this.label[i] >= 0) start[this.label[i] + 1]++;
    for (let l = 0; l < L; l++) start[l + 1] += start[l];
    const fill = start.slice(0, L), events = new Int32Array(start[L]);
    for (let i = 0; i < n; i++) { const l = this.label[i]; if (l >= 0) events[fill[l]++] = i; }
    this.labelStart = start;
    this.labelEvents = events;
  }

  /** The last event of label `lab` at or before event `t` (-1: none). */
  lastEventOf(lab, t) {
    let lo = this.labelStart[lab], hi = this.labelStart[lab + 1] - 1, found = -1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      if (this.labelEvents[mid] <= t) { found = this.labelEvents[mid]; lo = mid + 1; } else hi = mid - 1;
    }
    return found;
  }
  titleAt(lab, t) { const e = this.lastEventOf(lab, t); return e < 0 ? this.baseTitle[lab] : this.titleAfter[e]; }
  enabledAt(lab, t) { const e = this.lastEventOf(lab, t); return e < 0 ? this.baseEnabled[lab] : this.enabledAfter[e]; }
  versionAt(lab, t) { const e = this.lastEventOf(lab, t); return e < 0 ? this.baseVersion[lab] : this.versionAfter[e]; }
  countAt(t) { return t < 0 ? this.baseOrder.length : this.count[t]; }
  enabledCountAt(t) { return t < 0 ? this.baseEnabledCount : this.enabled[t]; }
  titleMatches(s) { return s >= 0 && this.matchBits !== null && ((this.matchBits[s >> 3] >> (s & 7)) & 1) === 1; }
  inView(lab, t) {
    if (!this.query) return false;
    if (this.query.enabledOnly && !this.enabledAt(lab, t)) return false;
    return this.titleMatches(this.titleAt(lab, t));
  }

  checkpointOrder(cp) {
    if (!cp.order) {
      cp.order = this.decodeOrder(cp.b64);
      this.decoded.push(cp);
      if (this.decoded.length > 8) this.decoded.shift().order = null;
    }
    return cp.order;
  }

  /** Folds the working order to right after event `t` (-1: the base), from the nearest checkpoint or from where it is. */
  foldTo(t) {
    const w = this.work, cps = this.checkpoints;
    let lo = 0, hi = cps.length - 1;
    while (lo < hi) { const mid = (lo + hi + 1) >> 1; if (cps[mid].event <= t) lo = mid; else hi = mid - 1; }
    const cp = cps[lo];
    if (w.at > t || w.at < cp.event) {
      const order = this.checkpointOrder(cp);
      w.order.set(order);
      w.len = order.length;
      w.at = cp.event;
    }
    for (let i = w.at + 1; i <= t; i++) this.applyOrder(i);
    w.at = t;
    return w;
  }

  applyOrder(i) {
    const w = this.work, o = w.order;
    switch (this.kind[i]) {
    case ADDED: o.copyWithin(this.b[i] + 1, this.b[i], w.len); o[this.b[i]] = this.label[i]; w.len++; break;
    case REMOVED: o.copyWithin(this.a[i], this.a[i] + 1, w.len); w.len--; break;
    case MOVED: {
      const from = this.a[i], to = this.b[i], lab = o[from];
      if (from < to) o.copyWithin(from, from + 1, to + 1); else o.copyWithin(to + 1, to, from);
      o[to] = lab;
      break;
    }
    case REORDERED: o.set(this.orders.subarray(this.a[i], this.a[i] + this.b[i])); w.len = this.b[i]; break;
    }
  }

  /** A copy of the list's order right after event `t`. */
  orderAt(t) { const w = this.foldTo(t); return w.order.slice(0, w.len); }

  /** Event `i`'s row changes of the view: [{type, lab, x, y}], type 0 inserted, 1 removed, 2 updated, 3 moved. */
  viewChanges(i) {
    const out = [];
    for (let j = this.viewStart[i]; j < this.viewStart[i + 1]; j += 4) {
      out.push({ type: this.views[j], lab: this.views[j + 1], x: this.views[j + 2], y: this.views[j + 3] });
    }
    return out;
  }

  /** The labels a reorder event `i` lists. */
  reorderLabels(i) { return this.orders.subarray(this.a[i], this.a[i] + this.b[i]); }
}
