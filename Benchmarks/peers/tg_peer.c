/*
 * P3: one polygon's point-in-polygon with tidwall/tg (https://github.com/tidwall/tg).
 *
 * tg is a single C file whose rings carry their own index (by default in
 * this peer YStripes, the index the tg README benchmarks; tg's own
 * TG_DEFAULT is TG_NATURAL unless tg_env_set_index() says otherwise). It has
 * no batch query: an embedded user asks one point at a time, so this peer
 * does exactly that, tg_geom_intersects_xy() per point.  For a point and an
 * areal geometry tg's intersects is covers (tg_poly_intersects_point calls
 * tg_poly_covers_point, boundary included), the same predicate as P1's
 * GEOSPreparedCovers_r and Perimeter's PolygonShape.covers.
 *
 * tg's source is not part of this repository: the caller provides a copy of
 * it (compare.py --tg DIR) and it is compiled together with this file:
 *   gcc -O2 -march=native -ffp-contract=off -I DIR -o .build/peers/tg_peer \
 *       DIR/tg.c Benchmarks/peers/tg_peer.c -lm
 * -ffp-contract=off keeps gcc from fusing tg's cross products into FMAs, so the
 * arithmetic is that of tg's portable build (x86-64 without FMA).
 *
 * Run:
 *   tg_peer single WORKDIR NAME [--repeat R] [--index ystripes|natural|none]
 * Any other mode exits with status 3 ("not supported"), which compare.py
 * shows as n/a.  Prints one JSON line:
 *   {"peer":"P3","mode":"single","name":..,"index":"ystripes","fixes":N,
 *    "conditions":1,"seconds":S,"build_seconds":B,"parse_build_seconds":PB,
 *    "index_bytes":M,"vertices":V,"containments":K,"hash":H}
 * "seconds": the query loop only, one tg_geom_intersects_xy call per point,
 * best of R runs.  "build_seconds": the polygon built from its coordinate
 * arrays with the index (tg_ring_new_ix for every ring, tg_poly_new, and
 * tg_geom_new_multipolygon for several parts), best of R builds; WKT parsing
 * is excluded, as for the other peers.  "parse_build_seconds": tg_parse_wkt_ix
 * of the WKT text with the same index, parse and build together (best of R),
 * for reference.  "index_bytes": tg_geom_memsize of the built geometry, i.e.
 * the coordinates, the rings' natural index and their YStripes.
 * hash = wrapping u64 sum of i * 1000003 over the points i the polygon covers
 * (the condition index is 0), as the other peers'.
 */
#include "tg.h"

#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define HASH_MUL 1000003ULL

static void die(int code, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "tg_peer: ");
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, "\n");
    va_end(ap);
    exit(code);
}

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static char *read_file(const char *path, size_t *size) {
    FILE *f = fopen(path, "rb");
    if (!f) die(2, "cannot open %s", path);
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *buf = malloc((size_t)n + 1);
    if (!buf || fread(buf, 1, (size_t)n, f) != (size_t)n) die(2, "cannot read %s", path);
    buf[n] = 0;
    fclose(f);
    *size = (size_t)n;
    return buf;
}

/* single/NAME.points.bin: "PPOINTS1", u64 n, f64 lat[n], f64 lon[n]. */
static void load_points(const char *dir, const char *name, uint64_t *n, double **lat, double **lon) {
    char path[4096];
    snprintf(path, sizeof path, "%s/single/%s.points.bin", dir, name);
    size_t size;
    char *buf = read_file(path, &size);
    if (size < 16 || memcmp(buf, "PPOINTS1", 8) != 0) die(2, "%s: bad magic (want PPOINTS1)", path);
    memcpy(n, buf + 8, 8);
    if (size != 16 + *n * 16) die(2, "%s: size %zu does not match count %llu", path, size, (unsigned long long)*n);
    /* Copied out so that each array is 8-byte aligned on its own. */
    *lat = malloc(*n * 8 + 1);
    *lon = malloc(*n * 8 + 1);
    memcpy(*lat, buf + 16, *n * 8);
    memcpy(*lon, buf + 16 + *n * 8, *n * 8);
    free(buf);
}

/* The (Multi)Polygon's parts, parsed once without an index: the coordinate
 * arrays the timed build starts from. */
typedef struct {
    int nparts;
    const struct tg_poly **parts;
    int vertices; /* without each ring's closing point */
} Shape;

static Shape shape_of(const struct tg_geom *g) {
    Shape s = {0};
    enum tg_geom_type type = tg_geom_typeof(g);
    if (type == TG_POLYGON) {
        s.nparts = 1;
        s.parts = malloc(sizeof *s.parts);
        s.parts[0] = tg_geom_poly(g);
    } else if (type == TG_MULTIPOLYGON) {
        s.nparts = tg_geom_num_polys(g);
        s.parts = malloc((size_t)(s.nparts ? s.nparts : 1) * sizeof *s.parts);
        for (int i = 0; i < s.nparts; i++) s.parts[i] = tg_geom_poly_at(g, i);
    } else {
        die(2, "expected a Polygon or MultiPolygon, got %s", tg_geom_type_string(type));
    }
    for (int i = 0; i < s.nparts; i++) {
        const struct tg_poly *p = s.parts[i];
        s.vertices += tg_ring_num_points(tg_poly_exterior(p)) - 1;
        for (int h = 0; h < tg_poly_num_holes(p); h++) s.vertices += tg_ring_num_points(tg_poly_hole_at(p, h)) - 1;
    }
    return s;
}

static struct tg_ring *ring_copy(const struct tg_ring *r, enum tg_index ix) {
    struct tg_ring *out = tg_ring_new_ix(tg_ring_points(r), tg_ring_num_points(r), ix);
    if (!out) die(2, "out of memory");
    return out;
}

/* What a user holding coordinate arrays does: a ring per ring (each with its
 * index), a polygon per part, a multipolygon when there are several. */
static struct tg_geom *build_geom(const Shape *s, enum tg_index ix) {
    struct tg_poly **polys = malloc((size_t)s->nparts * sizeof *polys);
    for (int i = 0; i < s->nparts; i++) {
        const struct tg_poly *p = s->parts[i];
        int nholes = tg_poly_num_holes(p);
        struct tg_ring *exterior = ring_copy(tg_poly_exterior(p), ix);
        struct tg_ring **holes = malloc((size_t)(nholes ? nholes : 1) * sizeof *holes);
        for (int h = 0; h < nholes; h++) holes[h] = ring_copy(tg_poly_hole_at(p, h), ix);
        polys[i] = tg_poly_new(exterior, (const struct tg_ring *const *)holes, nholes);
        if (!polys[i]) die(2, "out of memory");
        /* tg_poly_new retains (reference-counts) the rings; drop ours. */
        tg_ring_free(exterior);
        for (int h = 0; h < nholes; h++) tg_ring_free(holes[h]);
        free(holes);
    }
    struct tg_geom *g;
    if (s->nparts == 1) {
        g = tg_geom_new_polygon(polys[0]);
    } else {
        g = tg_geom_new_multipolygon((const struct tg_poly *const *)polys, s->nparts);
    }
    if (!g) die(2, "out of memory");
    for (int i = 0; i < s->nparts; i++) tg_poly_free(polys[i]);
    free(polys);
    return g;
}

int main(int argc, char **argv) {
    const char *mode = NULL, *dir = NULL, *name = NULL, *ixname = "ystripes";
    int repeat = 1;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--repeat") && i + 1 < argc) repeat = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--index") && i + 1 < argc) ixname = argv[++i];
        else if (!mode) mode = argv[i];
        else if (!dir) dir = argv[i];
        else if (!name) name = argv[i];
        else die(2, "unexpected argument %s", argv[i]);
    }
    if (!mode || !dir || repeat < 1)
        die(2, "usage: tg_peer single WORKDIR NAME [--repeat R] [--index ystripes|natural|none]");
    if (strcmp(mode, "single") != 0) die(3, "mode %s is not supported (only single)", mode);
    if (!name) die(2, "single needs a NAME (e.g. tg-br)");
    enum tg_index ix;
    if (!strcmp(ixname, "ystripes")) ix = TG_YSTRIPES;
    else if (!strcmp(ixname, "natural")) ix = TG_NATURAL;
    else if (!strcmp(ixname, "none")) ix = TG_NONE;
    else die(2, "unknown index %s (ystripes, natural or none)", ixname);

    char path[4096];
    snprintf(path, sizeof path, "%s/single/%s.wkt", dir, name);
    size_t wkt_len;
    char *wkt = read_file(path, &wkt_len);
    struct tg_geom *parsed = tg_parse_wktn_ix(wkt, wkt_len, TG_NONE);
    if (!parsed || tg_geom_error(parsed)) die(2, "%s: %s", path, parsed ? tg_geom_error(parsed) : "out of memory");
    Shape shape = shape_of(parsed);
    uint64_t n;
    double *lat, *lon;
    load_points(dir, name, &n, &lat, &lon);

    /* Parse and build together, as tg_parse_wkt does for a user starting from text. */
    double parse_build = INFINITY;
    for (int r = 0; r < repeat; r++) {
        double t = now();
        struct tg_geom *g = tg_parse_wktn_ix(wkt, wkt_len, ix);
        t = now() - t;
        if (!g || tg_geom_error(g)) die(2, "%s: cannot parse", path);
        if (t < parse_build) parse_build = t;
        tg_geom_free(g);
    }

    /* The build the comparison uses: from coordinates; the last one is queried. */
    double build = INFINITY;
    struct tg_geom *geom = NULL;
    for (int r = 0; r < repeat; r++) {
        if (geom) tg_geom_free(geom);
        double t = now();
        geom = build_geom(&shape, ix);
        t = now() - t;
        if (t < build) build = t;
    }
    size_t index_bytes = tg_geom_memsize(geom);

    double best = INFINITY;
    uint64_t containments = 0, hash = 0;
    for (int r = 0; r < repeat; r++) {
        uint64_t k = 0, h = 0;
        double t = now();
        for (uint64_t i = 0; i < n; i++) {
            if (tg_geom_intersects_xy(geom, lon[i], lat[i])) {
                k++;
                h += i * HASH_MUL;
            }
        }
        t = now() - t;
        if (t < best) best = t;
        if (r && (k != containments || h != hash)) die(2, "runs disagree");
        containments = k;
        hash = h;
    }

    printf("{\"peer\":\"P3\",\"mode\":\"single\",\"name\":\"%s\",\"index\":\"%s\",\"fixes\":%llu,\"conditions\":1,"
           "\"seconds\":%.6f,\"build_seconds\":%.9f,\"parse_build_seconds\":%.9f,\"index_bytes\":%zu,"
           "\"vertices\":%d,\"containments\":%llu,\"hash\":%llu}\n",
           name, ixname, (unsigned long long)n, best, build, parse_build, index_bytes, shape.vertices,
           (unsigned long long)containments, (unsigned long long)hash);
    tg_geom_free(geom);
    tg_geom_free(parsed);
    free(shape.parts);
    free(wkt);
    return 0;
}
