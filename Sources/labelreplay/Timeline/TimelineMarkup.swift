/// The timeline page's fixed markup: the panels the script fills. Stable ids
/// and classes (documented in docs/CLI.md) are what the browser tests read.
enum TimelineMarkup {
    /// From `<body>` to just before the data element.
    static let body = """
        <body>
        <header>
        <h1>labelreplay timeline</h1><span id="log-name"></span><span id="summary"></span>
        <output id="error" hidden></output>
        </header>
        <section id="scrub" aria-label="Current seq">
        <button id="prev" type="button" title="Previous seq (←)">◀</button>
        <input id="scrubber" type="range" min="0" max="0" step="1" value="0" aria-label="seq">
        <button id="next" type="button" title="Next seq (→)">▶</button>
        <output id="current-seq"></output>
        <a id="permalink" title="A link to this moment (seq, label, diff, filters)">link</a>
        <div id="current-event"></div>
        </section>
        <section id="charts">
        <figure class="chart"><figcaption>Events per kind over time <span id="kinds-legend" class="legend"></span></figcaption>
        <svg id="chart-kinds" viewBox="0 0 1000 100" preserveAspectRatio="none" role="img" aria-label="events per kind over time"></svg>
        <div class="axis"><span id="kinds-start"></span><span id="kinds-end"></span></div></figure>
        <figure class="chart"><figcaption>List length <span class="key count"></span> and enabled count <span class="key enabled"></span>
        over seq <span id="counts-max"></span></figcaption>
        <svg id="chart-counts" viewBox="0 0 1000 100" preserveAspectRatio="none" role="img"
        aria-label="list length and enabled count over seq"></svg>
        <div class="axis"><span id="counts-start"></span><span id="counts-end"></span></div></figure>
        </section>
        <main>
        <section class="panel" id="events-panel">
        <h2>Events <span id="events-count"></span></h2>
        <div class="filters">
        <label>kind <select id="filter-kind"></select></label>
        <label>actor <select id="filter-actor"></select></label>
        <label>label <input id="filter-label" type="search" placeholder="id prefix or title" spellcheck="false"></label>
        </div>
        <div class="head ev"><span>seq</span><span>time (UTC)</span><span>actor</span><span>kind</span><span>label</span>
        <span>change</span></div>
        <div id="events" class="vlist" tabindex="0"></div>
        </section>
        <section class="panel" id="state-panel">
        <h2 id="list-heading">List</h2>
        <div class="head lrow"><span>pos</span><span>id</span><span>title</span><span>state</span><span>version</span></div>
        <div id="list" class="vlist"></div>
        <h2 id="view-heading">View</h2>
        <div class="head lrow vrow"><span>row</span><span>pos</span><span>id</span><span>title</span><span>state</span></div>
        <div id="view" class="vlist"></div>
        </section>
        <section class="panel" id="side-panel">
        <h2 id="told-heading">Who was told</h2>
        <ul id="told"></ul>
        <h2 class="tools">Diff
        <label>from <input id="diff-from" type="number" min="0" step="1"></label>
        <label>to <input id="diff-to" type="number" min="0" step="1"></label>
        <button id="diff-here" type="button" title="Diff the seq before the current one with the current one">this event</button>
        </h2>
        <div id="diff-heading" class="sub"></div>
        <div id="diff" class="vlist"></div>
        <h2 id="history-heading">Label history</h2>
        <div id="history" class="vlist"></div>
        </section>
        </main>
        <output id="perf" hidden></output>

        """
}
