/*
 * P1: the benchmark workloads evaluated with libgeos used directly from C.
 *
 * What a C/C++ developer gets from GEOS itself: an STRtree (node capacity 10)
 * over the conditions' envelopes, each polygon prepared once, and per fix a
 * GEOS point, a tree query and an exact test on the candidates.
 *
 *   polygons  GEOSPreparedCovers_r (boundary counts as inside, as Perimeter)
 *   circles   the tree holds each circle's conservative lat/lon box (the same
 *             box formula as Perimeter's Geodesy.boundingBox); candidates are
 *             tested with the haversine distance on the mean Earth radius
 *             (6371008.8 m), inside when d <= r, evaluated in the same order
 *             as Perimeter's Geodesy.distance(centre, fix) so that the two agree
 *             to the last bit
 *   mixed     circles and polygons in one tree, dispatching on the item
 *   single    one prepared (Multi)Polygon, GEOSPreparedCovers_r per point
 *   beacons   no geometry: a plain open-addressing hash map per wildcard form
 *             (uuid | uuid+major | uuid+major+minor -> conditions)
 *
 * Build (compare.py does this):
 *   gcc -O2 -march=native -ffp-contract=off -o .build/peers/geos_peer \
 *       Benchmarks/peers/geos_peer.c $(geos-config --clibs) -lm
 * -ffp-contract=off stops gcc from fusing the haversine's multiply-adds into
 * FMAs, which would round differently from Perimeter (Swift does not fuse).
 *
 * Run:
 *   geos_peer MODE WORKDIR [NAME] [--repeat R]
 *   MODE: circles | polygons | mixed | single NAME | beacons
 * Prints one JSON line:
 *   {"peer":"P1","mode":..,["name":..,]"fixes":N,"conditions":M,"seconds":S,
 *    "build_seconds":B,"containments":K,"hash":H}
 * "seconds" is the query loop only (the best of R runs); "build_seconds" covers
 * building the tree and preparing the polygons (file loading and WKT parsing
 * are excluded).  hash = wrapping u64 sum over every (fix i, condition j) that
 * contains: i * 1000003 + j.  In mixed mode circles are conditions 0..C-1 and
 * polygons C..C+P-1.  Single-threaded.
 */
#define GEOS_USE_ONLY_R_API
#include <geos_c.h>

#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define EARTH_RADIUS 6371008.8
#define RAD_PER_DEG (M_PI / 180.0)
#define METRES_PER_DEG (EARTH_RADIUS * RAD_PER_DEG)
#define HASH_MUL 1000003ULL

static void die(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "geos_peer: ");
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, "\n");
    va_end(ap);
    exit(2);
}

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void geos_message(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "GEOS: ");
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, "\n");
    va_end(ap);
}

/* ------------------------------------------------------------------ files */

static char *read_file(const char *path, size_t *size) {
    FILE *f = fopen(path, "rb");
    if (!f) die("cannot open %s", path);
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *buf = malloc((size_t)n + 1);
    if (!buf || fread(buf, 1, (size_t)n, f) != (size_t)n) die("cannot read %s", path);
    buf[n] = 0;
    fclose(f);
    *size = (size_t)n;
    return buf;
}

/* Opens a structure-of-arrays file; returns the count and a pointer to the
 * first array.  `record` is the sum of the element sizes. */
static const char *open_soa(const char *path, const char *magic, size_t record, uint64_t *count) {
    size_t size;
    char *buf = read_file(path, &size);
    if (size < 16 || memcmp(buf, magic, 8) != 0) die("%s: bad magic (want %s)", path, magic);
    memcpy(count, buf + 8, 8);
    if (size != 16 + *count * record) die("%s: size %zu does not match count %llu", path, size,
                                          (unsigned long long)*count);
    return buf + 16;
}

/* Copies the next array out of the file image (keeps every array aligned). */
static void *take(const char **p, size_t bytes) {
    void *out = malloc(bytes ? bytes : 1);
    memcpy(out, *p, bytes);
    *p += bytes;
    return out;
}

typedef struct {
    uint64_t n;
    double *lat, *lon;
} Points;

static Points load_fixes(const char *dir) {
    char path[4096];
    snprintf(path, sizeof path, "%s/fixes.bin", dir);
    Points pts;
    const char *p = open_soa(path, "PFIXES01", 8 + 8 + 8 + 8 + 4, &pts.n);
    pts.lat = take(&p, pts.n * 8);
    pts.lon = take(&p, pts.n * 8);
    return pts;
}

static Points load_points(const char *dir, const char *name) {
    char path[4096];
    snprintf(path, sizeof path, "%s/single/%s.points.bin", dir, name);
    Points pts;
    const char *p = open_soa(path, "PPOINTS1", 16, &pts.n);
    pts.lat = take(&p, pts.n * 8);
    pts.lon = take(&p, pts.n * 8);
    return pts;
}

typedef struct {
    uint64_t n;
    double *lat, *lon, *radius;
} Circles;

static Circles load_circles(const char *dir) {
    char path[4096];
    snprintf(path, sizeof path, "%s/circles.bin", dir);
    Circles c;
    const char *p = open_soa(path, "PCIRCLE1", 24, &c.n);
    c.lat = take(&p, c.n * 8);
    c.lon = take(&p, c.n * 8);
    c.radius = take(&p, c.n * 8);
    return c;
}

/* One geometry per line of WKT. */
static GEOSGeometry **load_wkt(GEOSContextHandle_t ctx, const char *path, uint64_t *count) {
    size_t size;
    char *text = read_file(path, &size);
    GEOSWKTReader *reader = GEOSWKTReader_create_r(ctx);
    size_t cap = 1024, n = 0;
    GEOSGeometry **out = malloc(cap * sizeof *out);
    char *line = text;
    while (*line) {
        char *end = strchr(line, '\n');
        if (end) *end = 0;
        if (*line) {
            GEOSGeometry *g = GEOSWKTReader_read_r(ctx, reader, line);
            if (!g) die("%s: cannot parse line %zu", path, n + 1);
            if (n == cap) out = realloc(out, (cap *= 2) * sizeof *out);
            out[n++] = g;
        }
        if (!end) break;
        line = end + 1;
    }
    GEOSWKTReader_destroy_r(ctx, reader);
    free(text);
    *count = n;
    return out;
}

/* ------------------------------------------------------------- geodesy */

/* Perimeter's Geodesy.boundingBox: the smallest lat/lon box holding every point
 * within `metres` of the centre, conservative by construction. */
static void circle_box(double lat, double lon, double metres, double box[4]) {
    double m = metres * (1 + 1e-9) + 1e-6;
    double dlat = m / METRES_PER_DEG;
    double min_lat = lat - dlat, max_lat = lat + dlat;
    double phi_max = fmax(fabs(min_lat), fabs(max_lat));
    double dlon = 360;
    if (phi_max < 90) {
        double s = sin(m / (2 * EARTH_RADIUS)) / cos(phi_max * RAD_PER_DEG);
        if (s < 1) dlon = 2 * asin(s) / RAD_PER_DEG * (1 + 1e-9) + 1e-9;
    }
    if (dlon >= 180) {
        box[0] = -180; box[2] = 180;
    } else {
        /* A box past +-180 would need splitting at the antimeridian; the
         * workloads here never get near it. */
        box[0] = lon - dlon; box[2] = lon + dlon;
    }
    box[1] = fmax(-90, min_lat);
    box[3] = fmin(90, max_lat);
}

typedef struct {
    double lat, lon, cos_phi, radius;
} Circle;

/* Haversine distance from the circle's centre to (lat, lon), exactly as
 * Perimeter's Geodesy.distance(centre, fix). */
static inline int circle_contains(const Circle *c, double lat, double lon) {
    double phi2 = lat * RAD_PER_DEG;
    double dphi = phi2 - c->lat * RAD_PER_DEG;
    double dlambda = (lon - c->lon) * RAD_PER_DEG;
    double s1 = sin(dphi / 2);
    double s2 = sin(dlambda / 2);
    double h = s1 * s1 + c->cos_phi * cos(phi2) * s2 * s2;
    double d = 2 * EARTH_RADIUS * asin(fmin(1, sqrt(h)));
    return d <= c->radius;
}

/* -------------------------------------------------------------- geometry */

enum { KIND_CIRCLE = 0, KIND_POLYGON = 1 };

typedef struct {
    int kind;
    uint32_t index; /* condition index for the hash */
    Circle circle;
    const GEOSPreparedGeometry *prepared;
} Item;

typedef struct {
    GEOSContextHandle_t ctx;
    const GEOSGeometry *point;
    double lat, lon;
    uint64_t fix;
    uint64_t containments, hash;
} Query;

static void on_candidate(void *item_ptr, void *userdata) {
    const Item *item = item_ptr;
    Query *q = userdata;
    int inside;
    if (item->kind == KIND_CIRCLE)
        inside = circle_contains(&item->circle, q->lat, q->lon);
    else
        inside = GEOSPreparedCovers_r(q->ctx, item->prepared, q->point) == 1;
    if (inside) {
        q->containments++;
        q->hash += q->fix * HASH_MUL + item->index;
    }
}

static void ignore_candidate(void *item, void *userdata) { (void)item; (void)userdata; }

typedef struct {
    GEOSSTRtree *tree;
    Item *items;
    size_t n_items;
    GEOSGeometry **owned; /* boxes and polygons kept alive for the tree's life */
    size_t n_owned;
    GEOSGeometry **polygons;
    const GEOSPreparedGeometry **prepared;
    size_t n_polygons;
} Index;

static Index build_index(GEOSContextHandle_t ctx, const Circles *circles, GEOSGeometry **polygons,
                         uint64_t n_polygons) {
    Index ix = {0};
    uint64_t n_circles = circles ? circles->n : 0;
    ix.n_items = n_circles + n_polygons;
    ix.items = calloc(ix.n_items ? ix.n_items : 1, sizeof *ix.items);
    ix.owned = calloc(n_circles ? n_circles : 1, sizeof *ix.owned);
    ix.polygons = polygons;
    ix.n_polygons = n_polygons;
    ix.prepared = calloc(n_polygons ? n_polygons : 1, sizeof *ix.prepared);
    ix.tree = GEOSSTRtree_create_r(ctx, 10);
    for (uint64_t i = 0; i < n_circles; i++) {
        Item *it = &ix.items[i];
        it->kind = KIND_CIRCLE;
        it->index = (uint32_t)i;
        it->circle.lat = circles->lat[i];
        it->circle.lon = circles->lon[i];
        it->circle.cos_phi = cos(circles->lat[i] * RAD_PER_DEG);
        it->circle.radius = circles->radius[i];
        double b[4];
        circle_box(circles->lat[i], circles->lon[i], circles->radius[i], b);
        GEOSGeometry *box = GEOSGeom_createRectangle_r(ctx, b[0], b[1], b[2], b[3]);
        ix.owned[ix.n_owned++] = box;
        GEOSSTRtree_insert_r(ctx, ix.tree, box, it);
    }
    for (uint64_t j = 0; j < n_polygons; j++) {
        Item *it = &ix.items[n_circles + j];
        it->kind = KIND_POLYGON;
        it->index = (uint32_t)(n_circles + j);
        it->prepared = ix.prepared[j] = GEOSPrepare_r(ctx, polygons[j]);
        /* Prepared geometries build their point-in-area index lazily; build it
         * now so that the query loop measures the steady state. */
        double x, y;
        GEOSGeom_getXMin_r(ctx, polygons[j], &x);
        GEOSGeom_getYMin_r(ctx, polygons[j], &y);
        GEOSGeometry *probe = GEOSGeom_createPointFromXY_r(ctx, x, y);
        GEOSPreparedCovers_r(ctx, it->prepared, probe);
        GEOSGeom_destroy_r(ctx, probe);
        GEOSSTRtree_insert_r(ctx, ix.tree, polygons[j], it);
    }
    /* GEOS 3.11 has no GEOSSTRtree_build: the tree is built by its first query. */
    GEOSGeometry *probe = GEOSGeom_createPointFromXY_r(ctx, 0, 0);
    GEOSSTRtree_query_r(ctx, ix.tree, probe, ignore_candidate, NULL);
    GEOSGeom_destroy_r(ctx, probe);
    return ix;
}

static void run_index(GEOSContextHandle_t ctx, const Index *ix, const Points *pts, uint64_t *containments,
                      uint64_t *hash) {
    Query q = {.ctx = ctx};
    for (uint64_t i = 0; i < pts->n; i++) {
        GEOSGeometry *pt = GEOSGeom_createPointFromXY_r(ctx, pts->lon[i], pts->lat[i]);
        q.point = pt;
        q.lat = pts->lat[i];
        q.lon = pts->lon[i];
        q.fix = i;
        GEOSSTRtree_query_r(ctx, ix->tree, pt, on_candidate, &q);
        GEOSGeom_destroy_r(ctx, pt);
    }
    *containments = q.containments;
    *hash = q.hash;
}

/* --------------------------------------------------------------- beacons */

typedef struct {
    uint64_t *keys;     /* key + 1 (0 = empty slot) */
    uint32_t *start;    /* into `conds` */
    uint32_t *count;
    uint64_t mask;
    uint32_t *conds;    /* condition indices grouped by key */
} BeaconMap;

static inline uint64_t mix64(uint64_t x) {
    x ^= x >> 30; x *= 0xbf58476d1ce4e5b9ULL;
    x ^= x >> 27; x *= 0x94d049bb133111ebULL;
    x ^= x >> 31;
    return x;
}

typedef struct { uint64_t key; uint32_t cond; } KeyCond;

static int cmp_keycond(const void *a, const void *b) {
    const KeyCond *x = a, *y = b;
    if (x->key != y->key) return x->key < y->key ? -1 : 1;
    return x->cond < y->cond ? -1 : x->cond > y->cond;
}

static BeaconMap beacon_map(KeyCond *kc, size_t n) {
    BeaconMap m;
    qsort(kc, n, sizeof *kc, cmp_keycond);
    uint64_t cap = 16;
    while (cap < 2 * n) cap <<= 1;
    m.mask = cap - 1;
    m.keys = calloc(cap, 8);
    m.start = calloc(cap, 4);
    m.count = calloc(cap, 4);
    m.conds = malloc((n ? n : 1) * 4);
    for (size_t i = 0; i < n; i++) m.conds[i] = kc[i].cond;
    for (size_t i = 0; i < n;) {
        size_t j = i;
        while (j < n && kc[j].key == kc[i].key) j++;
        uint64_t s = mix64(kc[i].key) & m.mask;
        while (m.keys[s]) s = (s + 1) & m.mask;
        m.keys[s] = kc[i].key + 1;
        m.start[s] = (uint32_t)i;
        m.count[s] = (uint32_t)(j - i);
        i = j;
    }
    return m;
}

static inline void beacon_lookup(const BeaconMap *m, uint64_t key, uint64_t fix, uint64_t *containments,
                                 uint64_t *hash) {
    uint64_t s = mix64(key) & m->mask;
    for (;;) {
        uint64_t k = m->keys[s];
        if (!k) return;
        if (k == key + 1) {
            const uint32_t *c = m->conds + m->start[s];
            for (uint32_t i = 0; i < m->count[s]; i++) {
                *hash += fix * HASH_MUL + c[i];
            }
            *containments += m->count[s];
            return;
        }
        s = (s + 1) & m->mask;
    }
}

/* ------------------------------------------------------------------ main */

static void print_result(const char *mode, const char *name, uint64_t fixes, uint64_t conditions, double seconds,
                         double build, uint64_t containments, uint64_t hash) {
    printf("{\"peer\":\"P1\",\"mode\":\"%s\",", mode);
    if (name) printf("\"name\":\"%s\",", name);
    printf("\"fixes\":%llu,\"conditions\":%llu,\"seconds\":%.6f,\"build_seconds\":%.6f,"
           "\"containments\":%llu,\"hash\":%llu}\n",
           (unsigned long long)fixes, (unsigned long long)conditions, seconds, build,
           (unsigned long long)containments, (unsigned long long)hash);
}

int main(int argc, char **argv) {
    const char *mode = NULL, *dir = NULL, *name = NULL;
    int repeat = 1;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--repeat") && i + 1 < argc) repeat = atoi(argv[++i]);
        else if (!mode) mode = argv[i];
        else if (!dir) dir = argv[i];
        else if (!name) name = argv[i];
        else die("unexpected argument %s", argv[i]);
    }
    if (!mode || !dir || repeat < 1)
        die("usage: geos_peer circles|polygons|mixed|beacons|single WORKDIR [NAME] [--repeat R]");

    GEOSContextHandle_t ctx = GEOS_init_r();
    GEOSContext_setNoticeHandler_r(ctx, geos_message);
    GEOSContext_setErrorHandler_r(ctx, geos_message);

    double best = INFINITY, build = 0;
    uint64_t containments = 0, hash = 0, n_fixes = 0, n_conditions = 0;

    if (!strcmp(mode, "circles") || !strcmp(mode, "polygons") || !strcmp(mode, "mixed")) {
        int want_c = strcmp(mode, "polygons") != 0, want_p = strcmp(mode, "circles") != 0;
        Circles circles = {0};
        GEOSGeometry **polygons = NULL;
        uint64_t n_polygons = 0;
        char path[4096];
        if (want_c) circles = load_circles(dir);
        if (want_p) {
            snprintf(path, sizeof path, "%s/polygons.wkt", dir);
            polygons = load_wkt(ctx, path, &n_polygons);
        }
        Points fixes = load_fixes(dir);
        double t0 = now();
        Index ix = build_index(ctx, want_c ? &circles : NULL, polygons, n_polygons);
        build = now() - t0;
        for (int r = 0; r < repeat; r++) {
            uint64_t k, h;
            double t = now();
            run_index(ctx, &ix, &fixes, &k, &h);
            t = now() - t;
            if (t < best) best = t;
            if (r && (k != containments || h != hash)) die("runs disagree");
            containments = k;
            hash = h;
        }
        n_fixes = fixes.n;
        n_conditions = ix.n_items;
    } else if (!strcmp(mode, "single")) {
        if (!name) die("single needs a NAME (e.g. world-land)");
        char path[4096];
        snprintf(path, sizeof path, "%s/single/%s.wkt", dir, name);
        uint64_t n;
        GEOSGeometry **g = load_wkt(ctx, path, &n);
        if (n != 1) die("%s: expected one geometry, got %llu", path, (unsigned long long)n);
        Points pts = load_points(dir, name);
        double t0 = now();
        const GEOSPreparedGeometry *prep = GEOSPrepare_r(ctx, g[0]);
        double x, y;
        GEOSGeom_getXMin_r(ctx, g[0], &x);
        GEOSGeom_getYMin_r(ctx, g[0], &y);
        GEOSGeometry *probe = GEOSGeom_createPointFromXY_r(ctx, x, y);
        GEOSPreparedCovers_r(ctx, prep, probe); /* builds the lazy point-in-area index */
        GEOSGeom_destroy_r(ctx, probe);
        build = now() - t0;
        for (int r = 0; r < repeat; r++) {
            uint64_t k = 0, h = 0;
            double t = now();
            for (uint64_t i = 0; i < pts.n; i++) {
                GEOSGeometry *pt = GEOSGeom_createPointFromXY_r(ctx, pts.lon[i], pts.lat[i]);
                if (GEOSPreparedCovers_r(ctx, prep, pt) == 1) {
                    k++;
                    h += i * HASH_MUL;
                }
                GEOSGeom_destroy_r(ctx, pt);
            }
            t = now() - t;
            if (t < best) best = t;
            if (r && (k != containments || h != hash)) die("runs disagree");
            containments = k;
            hash = h;
        }
        n_fixes = pts.n;
        n_conditions = 1;
    } else if (!strcmp(mode, "beacons")) {
        char path[4096];
        uint64_t nb, ns;
        snprintf(path, sizeof path, "%s/beacons.bin", dir);
        const char *p = open_soa(path, "PBEACON1", 12, &nb);
        uint32_t *b_uuid = take(&p, nb * 4);
        int32_t *b_major = take(&p, nb * 4);
        int32_t *b_minor = take(&p, nb * 4);
        snprintf(path, sizeof path, "%s/sightings.bin", dir);
        p = open_soa(path, "PSIGHT01", 20, &ns);
        uint32_t *s_uuid = take(&p, ns * 4);
        uint16_t *s_major = take(&p, ns * 2);
        uint16_t *s_minor = take(&p, ns * 2);
        double t0 = now();
        /* One map per form, keyed by the identity's fixed fields. */
        KeyCond *kc[3];
        size_t nk[3] = {0, 0, 0};
        for (int f = 0; f < 3; f++) kc[f] = malloc((nb ? nb : 1) * sizeof(KeyCond));
        for (uint64_t i = 0; i < nb; i++) {
            uint64_t u = b_uuid[i];
            int f = b_major[i] < 0 ? 0 : (b_minor[i] < 0 ? 1 : 2);
            uint64_t key = f == 0 ? u
                         : f == 1 ? (u << 16 | (uint64_t)b_major[i])
                                  : (u << 32 | (uint64_t)b_major[i] << 16 | (uint64_t)b_minor[i]);
            kc[f][nk[f]++] = (KeyCond){key, (uint32_t)i};
        }
        BeaconMap maps[3];
        for (int f = 0; f < 3; f++) maps[f] = beacon_map(kc[f], nk[f]);
        build = now() - t0;
        for (int r = 0; r < repeat; r++) {
            uint64_t k = 0, h = 0;
            double t = now();
            for (uint64_t i = 0; i < ns; i++) {
                uint64_t u = s_uuid[i];
                beacon_lookup(&maps[0], u, i, &k, &h);
                beacon_lookup(&maps[1], u << 16 | s_major[i], i, &k, &h);
                beacon_lookup(&maps[2], u << 32 | (uint64_t)s_major[i] << 16 | s_minor[i], i, &k, &h);
            }
            t = now() - t;
            if (t < best) best = t;
            if (r && (k != containments || h != hash)) die("runs disagree");
            containments = k;
            hash = h;
        }
        n_fixes = ns;
        n_conditions = nb;
    } else {
        die("unknown mode %s", mode);
    }
    print_result(mode, name, n_fixes, n_conditions, best, build, containments, hash);
    GEOS_finish_r(ctx);
    return 0;
}
