/// The timeline page's style sheet (hand-written; allowed by its hash in the
/// page's Content-Security-Policy). The script sets only `top` and `height`
/// through the CSSOM, which the policy does not restrict.
enum TimelineStyle {
    /// The CSS inside the page's `<style>` element.
    static let css = """
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
        """
}
