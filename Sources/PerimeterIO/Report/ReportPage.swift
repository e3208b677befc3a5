import Foundation

/// The report as one self-contained HTML file: the page, its style and script, and the data as JSON
/// in a `<script type="application/json">` element. Nothing is fetched when it is viewed.
public enum ReportPage {
    /// The whole page for `data`.
    public static func html(_ data: ReportData) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        // JSONEncoder writes "/" as "\/", so "</script>" cannot appear inside the data; "<!--" is
        // taken apart too, for the same parser state.
        let json = String(decoding: try encoder.encode(data), as: UTF8.self).replacingOccurrences(of: "<!--", with: "<\\u0021--")
        return """
            <!DOCTYPE html>
            <html lang="en">
            <head>
            <meta charset="utf-8">
            <meta name="viewport" content="width=device-width, initial-scale=1">
            <title>\(escaped(data.title)) — Perimeter report</title>
            <style>\(ReportStyle.css)</style>
            </head>
            <body>
            <header>
              <h1>\(escaped(data.title))</h1>
              <p class="subtitle">Perimeter report: conditions, tracks and monitor events, with what each event's delivery was and why.</p>
            </header>
            <section id="summary" aria-label="Summary"></section>
            <main>
              <section id="map-panel" aria-label="Map">
                <div class="toolbar">
                  <button type="button" id="zoom-in" title="Zoom in">+</button>
                  <button type="button" id="zoom-out" title="Zoom out">−</button>
                  <button type="button" id="zoom-fit" title="Fit the tracks">Fit</button>
                  <span class="hint">Drag to pan, scroll to zoom; hover a shape or marker for details.</span>
                </div>
                <svg id="map" xmlns="http://www.w3.org/2000/svg" role="img" aria-label="Map of conditions, tracks and events">
                  <rect id="map-background" x="-1000" y="-1000" width="3000" height="3000"></rect>
                  <g id="shapes"></g><g id="tracks"></g><g id="markers"></g>
                </svg>
                <div id="legend"></div>
              </section>
              <aside id="device-panel" aria-label="Devices">
                <input id="device-filter" type="search" placeholder="Filter devices">
                <ul id="device-list"></ul>
                <div class="pager"><button type="button" id="page-prev">‹</button><span id="page-label"></span><button type="button" id="page-next">›</button></div>
              </aside>
            </main>
            <section id="timeline-panel" aria-label="Timeline"><h2 id="timeline-title"></h2><div id="timeline"></div></section>
            <script type="application/json" id="report-data">\(json)</script>
            <script>\(ReportScript.map)\(ReportScript.timeline)</script>
            </body>
            </html>

            """
    }

    static func escaped(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;").replacingOccurrences(of: "\"", with: "&quot;")
    }
}
