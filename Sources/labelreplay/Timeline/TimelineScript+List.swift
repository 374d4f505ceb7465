extension TimelineScript {
    /// A virtualised list: a scrolling box that holds only the rows in view
    /// (plus a few), however many rows there are. Past a few million pixels
    /// the scroll range is scaled, as browsers cap an element's height.
    static let list = #"""
        const ROW = 22, MAX_SPACE = 4000000;

        class VList {
          constructor(box, render) {
            this.box = box;
            this.render = render;
            this.n = 0;
            this.space = el('div', 'vspace');
            box.replaceChildren(this.space);
            box.addEventListener('scroll', () => this.draw());
          }
          get scaled() { return this.n * ROW > MAX_SPACE; }
          get height() { return this.box.clientHeight || 300; }
          get visible() { return Math.ceil(this.height / ROW) + 1; }
          setCount(n) {
            this.n = n;
            this.space.style.height = Math.min(n * ROW, MAX_SPACE) + 'px';
            this.draw();
          }
          first() {
            const top = this.box.scrollTop;
            if (!this.scaled) return Math.min(Math.floor(top / ROW), Math.max(0, this.n - 1));
            const range = MAX_SPACE - this.height;
            return range > 0 ? Math.floor((Math.min(top, range) / range) * Math.max(0, this.n - this.visible + 1)) : 0;
          }
          draw() {
            const first = this.first(), end = Math.min(this.n, first + this.visible + 2);
            const offset = this.scaled ? this.box.scrollTop : first * ROW, rows = [];
            for (let i = first; i < end; i++) {
              const row = this.render(i);
              row.style.top = offset + (i - first) * ROW + 'px';
              rows.push(row);
            }
            this.space.replaceChildren(...rows);
          }
          /** Scrolls so that row `i` is in view (a third of the way down when it was not). */
          reveal(i) {
            if (i < 0 || i >= this.n) { this.draw(); return; }
            const first = this.first();
            if (i >= first && i < first + this.visible - 2 && (this.scaled || i * ROW >= this.box.scrollTop)) { this.draw(); return; }
            if (!this.scaled) {
              this.box.scrollTop = Math.max(0, (i - Math.floor(this.height / ROW / 3)) * ROW);
            } else {
              const range = MAX_SPACE - this.height, span = Math.max(1, this.n - this.visible + 1);
              this.box.scrollTop = Math.max(0, ((i - Math.floor(this.visible / 3)) / span) * range);
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
        """#
}
