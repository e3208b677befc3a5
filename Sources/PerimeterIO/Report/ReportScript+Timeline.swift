extension ReportScript {
    /// The timeline of one device: the app's use (grace periods drawn), its authorization field by
    /// field, and each condition's state with its events and how held ones ended; then the start.
    static let timeline = #"""

    function drawTimeline(i) {
      const d = DATA.devices[i], box = document.getElementById("timeline");
      document.getElementById("timeline-title").textContent = "Timeline of " + d.name;
      box.textContent = "";
      let t0 = d.first, t1 = d.last;
      for (const e of d.events) { t0 = Math.min(t0, e.t); t1 = Math.max(t1, e.outcomeAt || e.t); }
      for (const a of d.authorization) { t0 = Math.min(t0, a.t); t1 = Math.max(t1, a.t); }
      if (t0 == null) { box.appendChild(html("p", "No records for this device.", "empty")); return; }
      if (t1 <= t0) t1 = t0 + 1;
      const LEFT = 190, W = 1000, ROW = 18, GAP = 6;
      const rows = [];
      const x = (t) => LEFT + (t - t0) / (t1 - t0) * W;

      // Segments [from, to) of a value that changes at given times, up to the end.
      function segments(changes, value) {
        const out = [];
        changes.forEach((c, k) => { const end = k + 1 < changes.length ? changes[k + 1].t : t1; out.push({ from: c.t, to: end, v: value(c) }); });
        return out;
      }
      function row(label, draw) { rows.push({ label, draw }); }
      function bar(g, y, from, to, cls, tip, text) {
        const r = titled(el("rect", { x: x(from), y, width: Math.max(x(to) - x(from), 1.5), height: ROW, class: "seg " + cls }, g), tip);
        if (text && x(to) - x(from) > text.length * 5.5 + 6) { const tx = el("text", { x: x(from) + 3, y: y + 12.5, class: "seg-label" }, g); tx.textContent = text; }
        return r;
      }

      if (d.use.length) row("app use", (g, y) => {
        const segs = segments(d.use, (c) => c.state);
        segs.forEach((s, k) => {
          bar(g, y, s.from, s.to, "use-" + s.v, s.v + " from " + iso(s.from), s.v);
          const before = k > 0 ? segs[k - 1].v : null;
          if (s.v === "background" && before === "foreground" && DATA.gracePeriod > 0) {
            const end = Math.min(s.from + DATA.gracePeriod, s.to);
            bar(g, y, s.from, end, "use-grace", "grace period: still in use until " + iso(end), "grace");
          }
        });
      });
      if (d.authorization.length) {
        const auth = d.authorization;
        row("authorization", (g, y) => segments(auth, (a) => a.status + (a.temporary ? " (once)" : "")).forEach((s) =>
          bar(g, y, s.from, s.to, "status-" + s.v.split(" ")[0], s.v + " from " + iso(s.from), s.v)));
        row("provisional always", (g, y) => segments(auth, (a) => a.provisional).forEach((s) => { if (s.v) bar(g, y, s.from, s.to, "flag-on", "provisional always from " + iso(s.from), "provisional"); }));
        row("accuracy", (g, y) => segments(auth, (a) => a.temporaryFullAccuracy ? "temporary" : a.accuracy).forEach((s) =>
          bar(g, y, s.from, s.to, "accuracy-" + s.v, (s.v === "temporary" ? "temporary full accuracy" : s.v + " accuracy") + " from " + iso(s.from), s.v)));
        row("in use", (g, y) => segments(auth, (a) => a.inUse).forEach((s) => { if (s.v) bar(g, y, s.from, s.to, "flag-on", "in use from " + iso(s.from), "in use"); }));
        if (auth.some((a) => !a.locationServices)) row("location services off", (g, y) => segments(auth, (a) => !a.locationServices).forEach((s) => { if (s.v) bar(g, y, s.from, s.to, "status-denied", "location services off from " + iso(s.from), "off"); }));
      }
      const byCondition = new Map();
      for (const e of d.events) { if (!byCondition.has(e.condition)) byCondition.set(e.condition, []); byCondition.get(e.condition).push(e); }
      for (const [id, events] of byCondition) row(id, (g, y) => {
        const changes = [{ t: t0, state: "unknown" }].concat(events.map((e) => ({ t: e.t, state: e.state })));
        segments(changes, (c) => c.state).forEach((s) => bar(g, y, s.from, s.to, "cond-" + s.v, id + " " + s.v + " from " + iso(s.from)));
        for (const e of events) {
          if (e.delivery === "held") bar(g, y + ROW / 2 - 3, e.t, e.outcomeAt || t1, "held-bar", "held from " + iso(e.t) + (e.outcome ? " until " + iso(e.outcomeAt) + ", then " + e.outcome : ", still held at the end"));
          titled(el("circle", { cx: x(e.t), cy: y + ROW / 2, r: 5, class: "timeline-event state-" + e.state + " " + verdictClass(e) }, g), eventText(d, e));
        }
      });

      const height = 24 + rows.length * (ROW + GAP) + 20;
      const s = el("svg", { viewBox: "0 0 " + (LEFT + W + 20) + " " + height, role: "img", "aria-label": "Timeline of " + d.name });
      const axis = el("g", { class: "axis" }, s);
      for (let k = 0; k <= 6; k++) {
        const t = t0 + (t1 - t0) * k / 6;
        el("line", { x1: x(t), x2: x(t), y1: 14, y2: height - 4 }, axis);
        const label = el("text", { x: x(t), y: 10, "text-anchor": k === 0 ? "start" : k === 6 ? "end" : "middle" }, axis);
        const stamp = iso(t).replace("T", " ").replace(/\.\d+Z|Z/, "");
        // The date once, on the first label (and on any other when the run spans days).
        label.textContent = k === 0 ? stamp + " UTC" : (t1 - t0 > 86400 ? stamp : stamp.slice(11));
      }
      rows.forEach((r, k) => {
        const y = 20 + k * (ROW + GAP);
        const label = el("text", { x: LEFT - 8, y: y + 13, "text-anchor": "end", class: "row-label" }, s);
        label.textContent = r.label.length > 30 ? r.label.slice(0, 29) + "…" : r.label;
        r.draw(el("g", {}, s), y);
      });
      box.appendChild(s);
      if (!rows.length) box.appendChild(html("p", "No app, authorization or event records for this device.", "empty"));
    }

    fit(bounds());
    renderList();
    const firstWithEvents = DATA.devices.findIndex((d) => d.events.length);
    if (DATA.devices.length) select(firstWithEvents >= 0 ? firstWithEvents : 0);
    """#
}
