// Generated from the files in Sources/labelreplay/Timeline/Assets/ (the timeline page's
// script and style sheet, as real .js and .css files); do not edit. After changing them,
// `LABELREPLAY_UPDATE_ASSETS=1 swift test --filter TimelineAssetsTests` writes this file
// again; the test fails while it differs from them.

extension TimelineScript {
    /// `Assets/model.js`.
    static let model = ##"""
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
        """##

    /// `Assets/text.js`.
    static let text = ##"""
        // Text: untrusted strings as isolated text nodes with control and bidi
        // characters shown as `\u{…}` (as the terminal output escapes them), and
        // the human-readable form of events (as `log` and `trace` print them).
        const $ = (id) => document.getElementById(id);
        const ESCAPED = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\u2028\u2029]/g;
        const NAMED = { '\n': '\\n', '\t': '\\t', '\r': '\\r' };

        function el(tag, className, text) {
          const e = document.createElement(tag);
          if (className) e.className = className;
          if (text !== undefined) e.textContent = text;
          return e;
        }

        /** Appends untrusted `text` to `parent` as text in an isolating span; control and bidi characters become visible escapes. */
        function put(parent, text, className) {
          const span = el('span', className ? 'u ' + className : 'u');
          let last = 0, m;
          ESCAPED.lastIndex = 0;
          while ((m = ESCAPED.exec(text)) !== null) {
            if (m.index > last) span.append(text.slice(last, m.index));
            const c = m[0];
            span.append(el('span', 'esc', NAMED[c] || '\\u{' + c.charCodeAt(0).toString(16).toUpperCase() + '}'));
            last = m.index + 1;
          }
          if (last < text.length) span.append(text.slice(last));
          parent.append(span);
          return span;
        }

        /** `text` with control and bidi characters written as escapes, for places that hold plain text only (options, the title). */
        function visibleText(text) {
          return text.replace(ESCAPED, (c) => NAMED[c] || '\\u{' + c.charCodeAt(0).toString(16).toUpperCase() + '}');
        }

        /** Appends `"text"` (a quoted untrusted string). */
        function quoted(parent, text, className) {
          parent.append('"');
          put(parent, text, className);
          parent.append('"');
        }

        function cell(row, className) { const c = el('span', className); row.append(c); return c; }
        const onOff = (on) => (on ? 'on' : 'off');

        /** `a / b` rounded toward zero, exactly, for integers (as Swift's `/` on Int64). */
        const quotient = (a, b) => (a - (a % b)) / b;

        /** Year, month and day (proleptic Gregorian) of day `z0` after 1970-01-01: EventTimestamp.civilFromDays, step for step. */
        function civilFromDays(z0) {
          const z = z0 + 719468;
          const era = quotient(z >= 0 ? z : z - 146096, 146097);
          const doe = z - era * 146097;
          const yoe = quotient(doe - quotient(doe, 1460) + quotient(doe, 36524) - quotient(doe, 146096), 365);
          const y = yoe + era * 400;
          const doy = doe - (365 * yoe + quotient(yoe, 4) - quotient(yoe, 100));
          const mp = quotient(5 * doy + 2, 153);
          const d = doy - quotient(153 * mp + 2, 5) + 1;
          const m = mp + (mp < 10 ? 3 : -9);
          return [m <= 2 ? y + 1 : y, m, d];
        }

        /**
         * `ms` milliseconds after 1970 (an integer) in ISO 8601, UTC, exactly as `log` writes it
         * (EventTimestamp.iso8601): years 0000–9999 with four digits, other years with a sign and at
         * least four digits (`+10000-01-01T00:00:00.000Z`, `-0001-12-31T23:59:59.999Z`) — not
         * `toISOString`'s six.
         */
        function iso8601(ms) {
          const pad = (v, width) => String(v).padStart(width, '0');
          let milli = ms % 1000, seconds = (ms - milli) / 1000;
          if (milli < 0) { milli += 1000; seconds -= 1; }
          let second = seconds % 86400, days = (seconds - second) / 86400;
          if (second < 0) { second += 86400; days -= 1; }
          const [y, m, d] = civilFromDays(days);
          const year = y < 0 ? '-' + pad(-y, 4) : y > 9999 ? '+' + String(y) : pad(y, 4);
          return year + '-' + pad(m, 2) + '-' + pad(d, 2) + 'T' + pad(Math.floor(second / 3600), 2) + ':'
            + pad(Math.floor(second / 60) % 60, 2) + ':' + pad(second % 60, 2) + '.' + pad(milli, 3) + 'Z';
        }

        /**
         * The ISO 8601 time of event `i`, as `log` prints it. The stream holds times within ±2e15 ms
         * (exact in a double); the generator wrote the text of every time it clamped.
         */
        function isoTime(model, i) {
          if (model.timeTexts[i] !== undefined) return model.timeTexts[i];
          return iso8601(model.time[i]);
        }

        /** Appends `3f2a9c1e "Title"` for label `lab` as of event `t`; clicking it selects the label. */
        function labelName(model, parent, lab, t, select) {
          const span = el('span', 'label-link');
          span.dataset.label = model.id(lab);
          span.append(model.shortId(lab));
          const title = model.titleAt(lab, t);
          if (title >= 0) { span.append(' '); quoted(span, model.strings[title]); }
          if (select) span.addEventListener('click', (e) => { e.stopPropagation(); select(lab); });
          parent.append(span);
        }

        /** Appends `old → new` with the values coloured. */
        function step(parent, write) {
          write(parent, 'old', 0);
          parent.append(' → ');
          write(parent, 'new', 1);
        }

        /** Appends up to six labels by title, `"A" · "B" · … (+12 more)`, or `(empty)`. */
        function summary(model, parent, labs, t, limit) {
          const max = limit || 6;
          if (labs.length === 0) { parent.append('(empty)'); return; }
          for (let i = 0; i < Math.min(max, labs.length); i++) {
            if (i > 0) parent.append(' · ');
            const title = model.titleAt(labs[i], t);
            if (title >= 0) quoted(parent, model.strings[title]); else parent.append(model.shortId(labs[i]));
          }
          if (labs.length > max) parent.append(' · … (+' + (labs.length - max) + ' more)');
        }

        /** Appends the change of event `i` (as `log`'s change column), then its note. */
        function describe(model, parent, i) {
          const s = model.strings, a = model.a[i], b = model.b[i], f = model.flag[i];
          switch (model.kind[i]) {
          case ADDED: parent.append('new ' + onOff(f) + ' at position ' + b); break;
          case RENAMED: step(parent, (p, c, which) => quoted(p, s[which ? b : a], c)); break;
          case TOGGLED: step(parent, (p, c, which) => p.append(el('span', c, onOff(which ? f : !f)))); break;
          case REMOVED: parent.append('gone (was ' + onOff(f) + ' at position ' + a + ')'); break;
          case MOVED: parent.append('position '); step(parent, (p, c, which) => p.append(el('span', c, String(which ? b : a)))); break;
          case REORDERED: parent.append('order: '); summary(model, parent, model.reorderLabels(i), i); break;
          case REJECTED:
            parent.append('refused ');
            quoted(parent, s[a]);
            parent.append(': ');
            put(parent, s[b], 'reason');
            break;
          }
          if (model.note[i] >= 0) { parent.append('  # '); put(parent, s[model.note[i]], 'note'); }
        }

        /** Appends the name of an actor (or `-`). */
        function actorName(model, parent, i) {
          if (model.actor[i] < 0) parent.append('-'); else put(parent, model.strings[model.actor[i]]);
        }
        """##

    /// `Assets/list.js`.
    static let list = ##"""
        // A virtualised list: a scrolling box that holds only the rows in view
        // (plus a few), however many rows there are. Past a few million pixels
        // the scroll range is scaled, as browsers cap an element's height.
        const ROW = 22, MAX_SPACE = 4000000;

        class VList {
          constructor(box, render) {
            this.box = box;
            this.render = render;
            this.n = 0;
            this.top = 0;
            this.h = 0;
            this.space = el('div', 'vspace');
            box.replaceChildren(this.space);
            box.addEventListener('scroll', () => { this.top = box.scrollTop; this.draw(); });
          }
          /** Reads the box's height (at start and on resize only: reading layout after a change forces a layout). */
          measure() { this.h = this.box.clientHeight || 300; }
          get height() { if (!this.h) this.measure(); return this.h; }
          get scaled() { return this.n * ROW > MAX_SPACE; }
          get visible() { return Math.ceil(this.height / ROW) + 1; }
          get spaceHeight() { return Math.min(this.n * ROW, MAX_SPACE); }
          /** Sets the number of rows and draws them, scrolled so that row `reveal` (if given) is in view. */
          setCount(n, reveal) {
            this.n = n;
            this.space.style.height = this.spaceHeight + 'px';
            this.top = Math.min(this.top, Math.max(0, this.spaceHeight - this.height));
            this.reveal(reveal === undefined ? -1 : reveal);
          }
          first() {
            if (!this.scaled) return Math.min(Math.floor(this.top / ROW), Math.max(0, this.n - 1));
            const range = MAX_SPACE - this.height;
            return range > 0 ? Math.floor((Math.min(this.top, range) / range) * Math.max(0, this.n - this.visible + 1)) : 0;
          }
          draw() {
            const first = this.first(), end = Math.min(this.n, first + this.visible + 2);
            const offset = this.scaled ? this.top : first * ROW, rows = [];
            for (let i = first; i < end; i++) {
              const row = this.render(i);
              row.style.top = offset + (i - first) * ROW + 'px';
              rows.push(row);
            }
            this.space.replaceChildren(...rows);
          }
          /** Scrolls so that row `i` is in view (a third of the way down when it was not), then draws. */
          reveal(i) {
            const first = this.first();
            const shown = i >= first && i < first + this.visible - 2 && (this.scaled || i * ROW >= this.top);
            if (i >= 0 && i < this.n && !shown) {
              let top;
              if (!this.scaled) {
                top = (i - Math.floor(this.height / ROW / 3)) * ROW;
              } else {
                const range = MAX_SPACE - this.height, span = Math.max(1, this.n - this.visible + 1);
                top = ((i - Math.floor(this.visible / 3)) / span) * range;
              }
              top = Math.max(0, Math.min(top, this.spaceHeight - this.height));
              if (top !== this.top) { this.top = top; this.box.scrollTop = top; }
            }
            this.draw();
          }
        }

        /** A row element of `className` whose cells are filled by `fill(row)`. */
        function rowOf(className, fill) {
          const row = el('div', 'row ' + className);
          fill(row);
          return row;
        }
        """##

    /// `Assets/panels.js`.
    static let panels = ##"""
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
        """##

    /// `Assets/diff.js`.
    static let diff = ##"""
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
        """##

    /// `Assets/charts.js`.
    static let charts = ##"""
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
        """##

    /// `Assets/app.js`.
    static let app = ##"""
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
        """##
}

extension TimelineStyle {
    /// `Assets/timeline.css`: the CSS inside the page's `<style>` element.
    static let css = ##"""
        :root { --fg: #1f2328; --muted: #656d76; --line: #d8dee4; --soft: #f0f2f5; --panel: #fff; --current: #fff3b0;
          --changed: #fff8d6; --selected: #ddeaff; --added: #1a7f37; --renamed: #0b62d6; --toggled: #b35900; --removed: #cf222e;
          --moved: #7e3ccf; --reordered: #0f8a80; --rejected: #b3003b; --count: #0b62d6; --enabled: #1a7f37;
          --mono: ui-monospace, SFMono-Regular, Menlo, Consolas, "DejaVu Sans Mono", monospace; }
        * { box-sizing: border-box; }
        html, body { margin: 0; height: 100%; }
        body { font: 13px/1.35 system-ui, -apple-system, "Segoe UI", Roboto, "DejaVu Sans", sans-serif; color: var(--fg);
          background: var(--soft); display: grid; grid-template-rows: auto auto auto minmax(0, 1fr); height: 100vh; overflow: hidden; }
        header { display: flex; align-items: baseline; gap: 14px; padding: 7px 14px; background: #16181d; color: #f3f4f6;
          white-space: nowrap; overflow: hidden; }
        header h1 { font-size: 15px; margin: 0; font-weight: 650; }
        #log-name { font-family: var(--mono); color: #e5e7eb; overflow: hidden; text-overflow: ellipsis; }
        #summary { color: #a8b1bd; font-size: 12px; overflow: hidden; text-overflow: ellipsis; }
        #error { color: #fff; background: var(--removed); padding: 2px 8px; border-radius: 4px; white-space: pre-wrap; }
        #permalink { font-size: 12px; color: var(--renamed); }
        #scrub { display: grid; grid-template-columns: auto minmax(0, 1fr) auto auto auto; gap: 4px 10px; align-items: center;
          padding: 8px 14px 6px; background: var(--panel); border-bottom: 1px solid var(--line); }
        #scrub button { font-size: 12px; padding: 2px 8px; }
        #scrubber { width: 100%; margin: 0; }
        #current-seq { font: 650 14px var(--mono); min-width: 11em; }
        #current-event { grid-column: 1 / -1; font-family: var(--mono); font-size: 12px; white-space: nowrap; overflow: hidden;
          text-overflow: ellipsis; color: var(--fg); }
        #charts { display: grid; grid-template-columns: 1fr 1fr; gap: 14px; padding: 4px 14px 6px; background: var(--panel);
          border-bottom: 1px solid var(--line); }
        .chart { margin: 0; min-width: 0; }
        .chart figcaption { font-size: 11px; color: var(--muted); margin-bottom: 2px; white-space: nowrap; overflow: hidden; }
        .chart svg { display: block; width: 100%; height: 74px; background: #fafbfc; border: 1px solid var(--soft); cursor: crosshair; }
        .axis { display: flex; justify-content: space-between; font: 10px var(--mono); color: var(--muted); }
        .legend { margin-left: 6px; }
        .legend span { margin-right: 8px; }
        .legend span::before, .key::before { content: ""; display: inline-block; width: 9px; height: 9px; margin-right: 3px;
          border-radius: 2px; vertical-align: -1px; background: currentColor; }
        .key.count { color: var(--count); } .key.enabled { color: var(--enabled); }
        svg .count { fill: none; stroke: var(--count); stroke-width: 1.5; vector-effect: non-scaling-stroke; }
        svg .enabled { fill: none; stroke: var(--enabled); stroke-width: 1.5; vector-effect: non-scaling-stroke; }
        svg .cursor { stroke: #16181d; stroke-width: 1.5; vector-effect: non-scaling-stroke; }
        .k-added { color: var(--added); fill: var(--added); } .k-renamed { color: var(--renamed); fill: var(--renamed); }
        .k-toggled { color: var(--toggled); fill: var(--toggled); } .k-removed { color: var(--removed); fill: var(--removed); }
        .k-moved { color: var(--moved); fill: var(--moved); } .k-reordered { color: var(--reordered); fill: var(--reordered); }
        .k-rejected { color: var(--rejected); fill: var(--rejected); }
        main { display: grid; grid-template-columns: minmax(0, 50fr) minmax(0, 24fr) minmax(0, 26fr); gap: 10px; padding: 10px 14px;
          min-height: 0; }
        .panel { background: var(--panel); border: 1px solid var(--line); border-radius: 6px; display: flex; flex-direction: column;
          min-height: 0; overflow: hidden; }
        .panel h2 { font-size: 12px; color: #3d444d; margin: 0;
          padding: 6px 10px; border-top: 1px solid var(--line); font-weight: 650; white-space: nowrap; overflow: hidden;
          text-overflow: ellipsis; }
        .panel h2.tools { display: flex; gap: 8px; align-items: center; }
        .panel h2:first-child { border-top: 0; }
        .panel h2 label { text-transform: none; letter-spacing: 0; font-weight: 400; }
        .panel h2 input { width: 6.5em; font-size: 11px; }
        .sub { font-size: 11px; color: var(--muted); padding: 0 10px 3px; white-space: nowrap; overflow: hidden; text-overflow: ellipsis; }
        .filters { display: flex; gap: 12px; padding: 2px 10px 6px; font-size: 12px; color: var(--muted); }
        .filters select, .filters input { font-size: 12px; max-width: 12em; }
        .vlist { position: relative; overflow-y: auto; overflow-x: hidden; flex: 1 1 0; min-height: 44px; overflow-anchor: none; }
        .vspace { position: relative; }
        .row, .head { display: grid; align-items: center; column-gap: 8px; padding: 0 10px; white-space: nowrap;
          font-family: var(--mono); font-size: 12px; }
        .row { position: absolute; left: 0; right: 0; height: 22px; border-bottom: 1px solid #f3f4f6; cursor: pointer; }
        .row > span, .head > span { overflow: hidden; text-overflow: ellipsis; }
        .head { color: var(--muted); font-size: 11px; border-bottom: 1px solid var(--line); padding-bottom: 2px; }
        .ev { grid-template-columns: 7ch 12ch 10ch 9ch minmax(10ch, 19ch) minmax(0, 1fr); }
        .lrow { grid-template-columns: 5ch 8ch minmax(0, 1fr) 5ch 7ch; }
        .lrow.vrow { grid-template-columns: 4ch 5ch 8ch minmax(0, 1fr) 5ch; }
        .hrow { grid-template-columns: 7ch 9ch minmax(0, 1fr); }
        .drow { grid-template-columns: 7ch 8ch minmax(0, 1fr); }
        .row:hover { background: #f6f8fa; }
        .row.current { background: var(--current); font-weight: 600; }
        .row.changed { background: var(--changed); box-shadow: inset 3px 0 0 var(--toggled); }
        .row.selected { box-shadow: inset 3px 0 0 var(--renamed); }
        .row.selected.current, .row.selected.changed { box-shadow: inset 3px 0 0 var(--renamed), inset 6px 0 0 var(--toggled); }
        .row.gone { color: var(--muted); text-decoration: line-through; background: #fdf0f0; }
        .row.rejected { color: var(--rejected); background: #fff0f3; }
        .row.rejected.current { background: #ffd9e2; }
        .row .off { color: var(--muted); }
        .row .note { color: var(--muted); }
        .label-link { cursor: pointer; }
        .label-link:hover { text-decoration: underline; }
        .u { unicode-bidi: isolate; }
        .esc { color: #fff; background: #8250df; border-radius: 3px; padding: 0 2px; font-size: 10px; }
        .old { color: var(--removed); } .new { color: var(--added); }
        #told { list-style: none; margin: 0; padding: 4px 10px 6px; font-family: var(--mono); font-size: 12px; max-height: 34%;
          overflow-y: auto; flex: 0 0 auto; }
        #told li { display: grid; grid-template-columns: 2ch 19ch minmax(0, 1fr); column-gap: 6px; padding: 1px 0; }
        #told li > span { overflow-wrap: anywhere; }
        #told li[data-notified="true"] .mark { color: var(--added); font-weight: 700; }
        #told li[data-notified="false"] { color: var(--muted); }
        #told li.note { display: block; color: var(--muted); font-style: italic; }
        #side-panel .vlist { flex: 1 1 0; }
        """##
}
