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
