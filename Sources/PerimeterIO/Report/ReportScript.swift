/// The report page's script: the summary, the map (pan and zoom by the SVG's view box) and the
/// device list. The timeline is in `ReportScript+Timeline.swift`.
enum ReportScript {
    static let map = #"""
    "use strict";
    const DATA = JSON.parse(document.getElementById("report-data").textContent);
    const NS = "http://www.w3.org/2000/svg";
    function el(name, attrs, parent) {
      const e = document.createElementNS(NS, name);
      for (const k in attrs) e.setAttribute(k, attrs[k]);
      if (parent) parent.appendChild(e);
      return e;
    }
    function titled(e, text) { el("title", {}, e).textContent = text; return e; }
    function iso(t) { return t == null ? "—" : new Date(t * 1000).toISOString().replace(".000Z", "Z"); }
    function html(tag, text, cls) { const e = document.createElement(tag); if (text != null) e.textContent = text; if (cls) e.className = cls; return e; }
    function verdictClass(e) {
      if (e.delivery !== "held") return "verdict-" + e.delivery;
      return e.outcome ? "verdict-held-" + e.outcome : "verdict-held";
    }
    function verdictText(e) {
      if (e.delivery === "delivered") return "delivered";
      if (e.delivery === "dropped") return "dropped: " + e.reason;
      const held = "held (" + e.reason + ")";
      if (!e.outcome) return held + ", still held at the end";
      return held + ", then " + e.outcome + (e.outcomeReason ? ": " + e.outcomeReason : "") + " at " + iso(e.outcomeAt);
    }
    function eventText(d, e) {
      return d.name + " · " + e.condition + " → " + e.state + " at " + iso(e.t) + "\n" + verdictText(e) + "\nrecord line " + e.line;
    }

    // Summary.
    (function summary() {
      const s = DATA.summary, box = document.getElementById("summary");
      function card(n, label) { const c = html("div", null, "card"); c.appendChild(html("div", String(n), "n")); c.appendChild(html("div", label, "l")); box.appendChild(c); }
      card(s.records.toLocaleString("en"), "records read");
      card(s.rejected.toLocaleString("en"), "rejected records");
      card(s.devices.toLocaleString("en"), "devices");
      card(s.eventLines.toLocaleString("en"), "event lines");
      for (const v of ["delivered", "held", "dropped"]) card((s.verdicts[v] || 0).toLocaleString("en"), v);
      if (s.stillHeld) card(s.stillHeld, "still held at the end");
      const reasons = Object.keys(s.reasons).sort();
      if (reasons.length) {
        const c = html("div", null, "card reasons"); c.appendChild(html("div", "held or dropped, by reason", "l"));
        const t = html("table"); for (const r of reasons) { const tr = html("tr"); tr.appendChild(html("td", r)); tr.appendChild(html("td", String(s.reasons[r]))); t.appendChild(tr); }
        c.appendChild(t); box.appendChild(c);
      }
      if (s.rejectedExamples.length) {
        const d = html("details", null, "rejected"); d.appendChild(html("summary", "Rejected records" + (s.rejected > s.rejectedExamples.length ? " (the first " + s.rejectedExamples.length + ")" : "")));
        const ul = html("ul"); for (const r of s.rejectedExamples) ul.appendChild(html("li", r)); d.appendChild(ul); box.appendChild(d);
      }
      if (DATA.conditionsNotDrawn) card(DATA.conditionsNotDrawn.toLocaleString("en"), "conditions away from the shown devices, not drawn");
    })();

    // Map.
    const svg = document.getElementById("map");
    const shapes = document.getElementById("shapes"), tracks = document.getElementById("tracks"), markers = document.getElementById("markers");
    for (const c of DATA.conditions) {
      if (!c.path) continue;
      titled(el("path", { d: c.path, class: "condition " + c.kind, "data-id": c.id }, shapes), c.id + " (" + c.kind + ")");
    }
    const trackOf = new Map(), markersOf = new Map();
    DATA.devices.forEach((d, i) => {
      const tr = d.track, pts = [];
      for (let k = 0; k < tr.length; k += 3) pts.push(tr[k] + "," + tr[k + 1]);
      if (pts.length) trackOf.set(i, titled(el("polyline", { points: pts.join(" "), class: "track", "data-device": i }, tracks), d.name + " (" + d.fixes + " fixes)"));
      const list = [];
      for (const e of d.events) {
        if (e.x == null) continue;
        list.push(titled(el("circle", { cx: e.x, cy: e.y, r: 1, class: "event-marker state-" + e.state + " " + verdictClass(e), "data-device": i }, markers), eventText(d, e)));
      }
      markersOf.set(i, list);
    });

    let view = null;
    function bounds() {
      let b = null;
      function add(x, y) { b = b ? [Math.min(b[0], x), Math.min(b[1], y), Math.max(b[2], x), Math.max(b[3], y)] : [x, y, x, y]; }
      for (const d of DATA.devices) for (let k = 0; k < d.track.length; k += 3) add(d.track[k], d.track[k + 1]);
      if (!b) for (const p of shapes.querySelectorAll("path")) { const bb = p.getBBox(); add(bb.x, bb.y); add(bb.x + bb.width, bb.y + bb.height); }
      return b || [0, 0, 1000, 1000];
    }
    function fit(b) {
      const w = Math.max(b[2] - b[0], 0.002), h = Math.max(b[3] - b[1], 0.002);
      view = { x: b[0] - w * 0.08, y: b[1] - h * 0.08, w: w * 1.16, h: h * 1.16 };
      apply();
    }
    function apply() {
      svg.setAttribute("viewBox", view.x + " " + view.y + " " + view.w + " " + view.h);
      // (A map not laid out yet, printed, say, has no size: take a usual one.)
      const px = Math.max(view.w / (svg.clientWidth || 800), view.h / (svg.clientHeight || 500));
      for (const m of markers.children) m.setAttribute("r", 4.5 * px);
    }
    function point(evt) {
      const r = svg.getBoundingClientRect(), s = Math.max(view.w / r.width, view.h / r.height);
      return { x: view.x + (evt.clientX - r.left - (r.width - view.w / s) / 2) * s, y: view.y + (evt.clientY - r.top - (r.height - view.h / s) / 2) * s };
    }
    function zoom(factor, at) {
      const c = at || { x: view.x + view.w / 2, y: view.y + view.h / 2 };
      view = { x: c.x - (c.x - view.x) * factor, y: c.y - (c.y - view.y) * factor, w: view.w * factor, h: view.h * factor };
      apply();
    }
    svg.addEventListener("wheel", (evt) => { evt.preventDefault(); zoom(evt.deltaY > 0 ? 1.25 : 0.8, point(evt)); }, { passive: false });
    let drag = null;
    svg.addEventListener("pointerdown", (evt) => { drag = { start: { x: evt.clientX, y: evt.clientY }, v: Object.assign({}, view) }; svg.setPointerCapture(evt.pointerId); });
    svg.addEventListener("pointermove", (evt) => {
      if (!drag) return;
      const r = svg.getBoundingClientRect(), s = Math.max(drag.v.w / r.width, drag.v.h / r.height);
      view = Object.assign({}, drag.v, { x: drag.v.x - (evt.clientX - drag.start.x) * s, y: drag.v.y - (evt.clientY - drag.start.y) * s });
      apply();
    });
    svg.addEventListener("pointerup", () => { drag = null; });
    document.getElementById("zoom-in").onclick = () => zoom(0.7);
    document.getElementById("zoom-out").onclick = () => zoom(1 / 0.7);
    document.getElementById("zoom-fit").onclick = () => fit(selected == null ? bounds() : deviceBounds(selected));
    function deviceBounds(i) {
      const t = DATA.devices[i].track;
      if (!t.length) return bounds();
      let b = [t[0], t[1], t[0], t[1]];
      for (let k = 0; k < t.length; k += 3) b = [Math.min(b[0], t[k]), Math.min(b[1], t[k + 1]), Math.max(b[2], t[k]), Math.max(b[3], t[k + 1])];
      return b;
    }

    // Legend.
    (function legend() {
      const box = document.getElementById("legend");
      const items = [["state-satisfied verdict-delivered", "satisfied, delivered"], ["state-unsatisfied verdict-delivered", "unsatisfied, delivered"],
                     ["state-satisfied verdict-held-delivered", "held, then delivered"], ["state-satisfied verdict-held-dropped", "held, then dropped"],
                     ["state-satisfied verdict-dropped", "dropped (hover for the reason)"]];
      for (const [cls, label] of items) {
        const span = html("span"); const s = el("svg", { width: 14, height: 14 }); el("circle", { cx: 7, cy: 7, r: 5, class: "swatch " + cls }, s);
        span.appendChild(s); span.appendChild(document.createTextNode(" " + label)); box.appendChild(span);
      }
    })();

    // Devices: a filtered, paged list; choosing one highlights its track and draws its timeline.
    let selected = null, page = 0;
    const PAGE = 50;
    function matching() {
      const q = document.getElementById("device-filter").value.toLowerCase();
      return DATA.devices.map((d, i) => i).filter((i) => DATA.devices[i].name.toLowerCase().includes(q));
    }
    function renderList() {
      const ids = matching(), pages = Math.max(1, Math.ceil(ids.length / PAGE));
      page = Math.min(page, pages - 1);
      const ul = document.getElementById("device-list"); ul.textContent = "";
      for (const i of ids.slice(page * PAGE, page * PAGE + PAGE)) {
        const d = DATA.devices[i], li = html("li", null, i === selected ? "selected" : "");
        li.appendChild(html("span", d.name)); li.appendChild(html("span", d.events.length + " events", "count"));
        li.onclick = () => select(i); ul.appendChild(li);
      }
      document.getElementById("page-label").textContent = (page + 1) + " / " + pages + " (" + ids.length + " devices)";
    }
    document.getElementById("device-filter").oninput = () => { page = 0; renderList(); };
    document.getElementById("page-prev").onclick = () => { page = Math.max(0, page - 1); renderList(); };
    document.getElementById("page-next").onclick = () => { page += 1; renderList(); };
    function select(i) {
      selected = i;
      for (const [k, t] of trackOf) t.classList.toggle("selected", k === i);
      for (const [k, list] of markersOf) for (const m of list) m.classList.toggle("dimmed", k !== i);
      const t = trackOf.get(i); if (t) tracks.appendChild(t);
      const active = new Set(DATA.devices[i].events.map((e) => e.condition));
      for (const p of shapes.children) p.classList.toggle("active", active.has(p.getAttribute("data-id")));
      renderList();
      drawTimeline(i);
    }
    """#
}
