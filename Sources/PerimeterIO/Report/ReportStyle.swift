/// The report page's style sheet.
enum ReportStyle {
    static let css = #"""
    :root { --satisfied: #1a9850; --unsatisfied: #4575b4; --unknown: #d9d9d9; --held: #f29e38; --dropped: #d73027;
            --unmonitored: #969696; --dwelling: #7b3294; --ink: #1f2933; --muted: #6b7785; }
    * { box-sizing: border-box; }
    body { margin: 0; font: 14px/1.4 system-ui, -apple-system, "Segoe UI", sans-serif; color: var(--ink); background: #f6f7f9; }
    header { padding: 12px 20px 4px; } h1 { margin: 0; font-size: 20px; } h2 { font-size: 16px; margin: 8px 0; }
    .subtitle { margin: 2px 0 0; color: var(--muted); }
    #summary { display: flex; flex-wrap: wrap; gap: 10px; padding: 8px 20px; }
    .card { background: #fff; border: 1px solid #e3e6ea; border-radius: 6px; padding: 8px 12px; min-width: 110px; }
    .card .n { font-size: 20px; font-weight: 600; } .card .l { color: var(--muted); font-size: 12px; }
    .card.reasons { min-width: 220px; } .card table { border-collapse: collapse; } .card td { padding: 0 8px 0 0; }
    details.rejected { flex-basis: 100%; } details.rejected li { font-family: ui-monospace, monospace; font-size: 12px; }
    main { display: flex; gap: 12px; padding: 0 20px; }
    #map-panel { flex: 1; min-width: 0; background: #fff; border: 1px solid #e3e6ea; border-radius: 6px; padding: 8px; }
    .toolbar { display: flex; gap: 6px; align-items: center; margin-bottom: 6px; } .hint { color: var(--muted); font-size: 12px; }
    button { border: 1px solid #c9ced6; background: #fff; border-radius: 4px; padding: 2px 10px; cursor: pointer; }
    #map { width: 100%; height: 62vh; min-height: 360px; display: block; cursor: grab; background: #eef3f7; }
    #map-background { fill: #eef3f7; }
    .condition { fill: rgba(69, 117, 180, 0.12); stroke: #4575b4; fill-rule: evenodd; vector-effect: non-scaling-stroke; stroke-width: 1.2; }
    .condition.polygon { fill: rgba(26, 152, 80, 0.10); stroke: #1a9850; }
    .condition:hover, .condition.active { fill-opacity: 0.35; stroke-width: 2.5; }
    .track { fill: none; stroke: #8a94a3; stroke-width: 1; vector-effect: non-scaling-stroke; opacity: 0.55; }
    .track.selected { stroke: #111; stroke-width: 2; opacity: 1; }
    .event-marker, .swatch { stroke-width: 1.5; vector-effect: non-scaling-stroke; }
    .state-satisfied { fill: var(--satisfied); stroke: var(--satisfied); } .state-unsatisfied { fill: var(--unsatisfied); stroke: var(--unsatisfied); }
    .state-unmonitored { fill: var(--unmonitored); stroke: var(--unmonitored); } .state-dwelling { fill: var(--dwelling); stroke: var(--dwelling); }
    .verdict-held-delivered { stroke: var(--held); stroke-width: 3; }
    .verdict-held, .verdict-held-dropped { fill: #fff; stroke: var(--held); stroke-width: 3; }
    .verdict-dropped { fill: #fff; stroke: var(--dropped); stroke-width: 2.5; }
    .event-marker.dimmed { opacity: 0.25; }
    #legend { display: flex; flex-wrap: wrap; gap: 14px; margin-top: 6px; color: var(--muted); font-size: 12px; }
    #legend svg { vertical-align: middle; }
    #device-panel { width: 260px; background: #fff; border: 1px solid #e3e6ea; border-radius: 6px; padding: 8px; }
    #device-filter { width: 100%; padding: 4px 6px; border: 1px solid #c9ced6; border-radius: 4px; }
    #device-list { list-style: none; margin: 6px 0; padding: 0; max-height: 55vh; overflow: auto; }
    #device-list li { padding: 3px 6px; border-radius: 4px; cursor: pointer; display: flex; justify-content: space-between; gap: 6px; }
    #device-list li:hover { background: #eef3f7; } #device-list li.selected { background: #dbe7f3; font-weight: 600; }
    #device-list .count { color: var(--muted); font-weight: normal; }
    .pager { display: flex; justify-content: space-between; align-items: center; }
    #timeline-panel { margin: 12px 20px 24px; background: #fff; border: 1px solid #e3e6ea; border-radius: 6px; padding: 8px 12px; }
    #timeline svg { width: 100%; display: block; }
    .row-label { font-size: 11px; fill: var(--ink); } .axis text { font-size: 10px; fill: var(--muted); } .axis line { stroke: #e3e6ea; }
    .seg { stroke: #fff; stroke-width: 0.5; } .seg-label { font-size: 9px; fill: #fff; pointer-events: none; }
    .use-foreground { fill: #1a9850; } .use-background { fill: #b8c2cc; } .use-indicator { fill: #2b8cbe; } .use-terminated { fill: #f0f0f0; }
    .use-grace { fill: #a6d96a; }
    .status-notDetermined { fill: #bdbdbd; } .status-denied { fill: var(--dropped); } .status-restricted { fill: #8c2d04; }
    .status-whenInUse { fill: #74add1; } .status-always { fill: #4575b4; }
    .flag-on { fill: #7b3294; } .accuracy-full { fill: #1a9850; } .accuracy-reduced { fill: #fdae61; } .accuracy-temporary { fill: #66bd63; }
    .cond-satisfied { fill: var(--satisfied); } .cond-unsatisfied { fill: var(--unsatisfied); } .cond-unknown { fill: var(--unknown); }
    .cond-unmonitored { fill: var(--unmonitored); } .cond-dwelling { fill: var(--dwelling); }
    .held-bar { fill: var(--held); opacity: 0.8; }
    .timeline-event { stroke: #fff; stroke-width: 1; }
    .empty { color: var(--muted); }
    """#
}
