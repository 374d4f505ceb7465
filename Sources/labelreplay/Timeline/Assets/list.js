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
