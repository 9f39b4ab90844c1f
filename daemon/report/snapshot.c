/* SPDX-License-Identifier: MIT */
/* The snapshot renders every body once when it is built (a change), never per request: a scrape
 * costs a pointer lookup and a write(). Compression happens here too, so a gzip'd scrape costs
 * no CPU either; the price is paid once per change (md progress ticks are the most frequent, a
 * few per second at most). Per-volume JSON bodies are kept sorted by name for bsearch(). */

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "basic/dlopen-util.h"
#include "basic/macro.h"
#include "config.h"
#include "report/api.h"
#include "report/metrics.h"
#include "report/snapshot.h"

typedef struct NamedBody {
        char *name;
        SnapshotBody body;
} NamedBody;

struct Snapshot {
        atomic_uint n_ref;
        uint64_t generation;
        SnapshotBody bodies[_SNAPSHOT_BODY_TYPE_MAX];
        NamedBody *volumes;
        size_t n_volumes;
};

/* zlib is dlopen()ed at the first compression: the first snapshot is built when the HTTP
 * endpoint first starts, so a daemon nobody scraped never maps it (basic/dlopen-util.h). */
static struct {
        typeof(deflateInit2_) *init2_;
        typeof(deflateBound) *bound;
        typeof(deflate) *deflate;
        typeof(deflateEnd) *end;
} libz;
static int libz_error;

static void libz_load(void) {
        const DlopenSymbol symbols[] = {
                DLOPEN_SYMBOL(libz, init2_, deflateInit2_),
                DLOPEN_SYMBOL(libz, bound, deflateBound),
                DLOPEN_SYMBOL(libz, deflate, deflate),
                DLOPEN_SYMBOL(libz, end, deflateEnd),
        };

        libz_error = dlopen_symbols(ZLIB_SONAME, symbols, ELEMENTSOF(symbols), NULL);
}

int snapshot_gzip(const void *data, size_t size, void **ret, size_t *ret_size) {
        static pthread_once_t load_once = PTHREAD_ONCE_INIT;
        z_stream z = {};
        uLong bound;
        void *out, *fit;
        int r;

        (void) pthread_once(&load_once, libz_load);
        if (libz_error < 0)
                return libz_error;
        /* deflateInit2() is this macro of zlib.h, with the header's version and stream size */
        if (libz.init2_(&z, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY,
                        ZLIB_VERSION, (int) sizeof(z_stream)) != Z_OK)
                return -ENOMEM;
        bound = libz.bound(&z, size) + 32;
        out = malloc(bound);
        if (!out) {
                (void) libz.end(&z);
                return -ENOMEM;
        }
        z.next_in = (Bytef *) data;
        z.avail_in = size;
        z.next_out = out;
        z.avail_out = bound;
        r = libz.deflate(&z, Z_FINISH);
        (void) libz.end(&z);
        if (r != Z_STREAM_END) {
                free(out);
                return -ENOBUFS;
        }
        /* the bound is about the input's size, the result a tenth of it: a snapshot lives until
         * the next change, so it keeps only what it uses */
        fit = realloc(out, z.total_out ?: 1);
        *ret = fit ?: out;
        *ret_size = z.total_out;
        return 0;
}

static void body_done(SnapshotBody *b) {
        free((char *) b->data);
        free((void *) b->gzip);
        *b = (SnapshotBody){};
}

static int body_set(SnapshotBody *b, char *data, size_t size) {
        void *gz;
        size_t gz_size;
        int r;

        b->data = data;
        b->size = size;
        r = snapshot_gzip(data, size, &gz, &gz_size);
        if (r < 0)
                return r;
        b->gzip = gz;
        b->gzip_size = gz_size;
        return 0;
}

static int body_set_json(SnapshotBody *b, json_object *o) {
        const char *s;
        size_t n;
        char *copy;

        s = json_object_to_json_string_length(
                o, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE, &n);
        if (!s)
                return -ENOMEM;
        copy = malloc(n + 2);
        if (!copy)
                return -ENOMEM;
        memcpy(copy, s, n);
        copy[n] = '\n';
        copy[n + 1] = '\0';
        return body_set(b, copy, n + 1);
}

Snapshot *snapshot_ref(Snapshot *s) {
        if (s)
                atomic_fetch_add_explicit(&s->n_ref, 1, memory_order_relaxed);
        return s;
}

static Snapshot *snapshot_free(Snapshot *s) {
        for (size_t i = 0; i < _SNAPSHOT_BODY_TYPE_MAX; i++)
                body_done(&s->bodies[i]);
        for (size_t i = 0; i < s->n_volumes; i++) {
                free(s->volumes[i].name);
                body_done(&s->volumes[i].body);
        }
        free(s->volumes);
        free(s);
        return NULL;
}

Snapshot *snapshot_unref(Snapshot *s) {
        if (!s)
                return NULL;
        if (atomic_fetch_sub_explicit(&s->n_ref, 1, memory_order_acq_rel) == 1)
                snapshot_free(s);
        return NULL;
}

static int cmp_named(const void *a, const void *b) {
        return strcmp(((const NamedBody *) a)->name, ((const NamedBody *) b)->name);
}

int snapshot_build(const ReportInput *in, uint64_t generation, Snapshot **ret) {
        _cleanup_(snapshot_unrefp) Snapshot *s = NULL;
        Volume *v;
        int r;

        if (!in || !in->inventory || !ret)
                return -EINVAL;
        s = calloc(1, sizeof(*s));
        if (!s)
                return -ENOMEM;
        atomic_init(&s->n_ref, 1);
        s->generation = generation;

        for (MetricsFormat f = 0; f < _METRICS_FORMAT_MAX; f++) {
                char *text;
                size_t size;

                r = metrics_render(in, f, &text, &size);
                if (r < 0)
                        return r;
                r = body_set(
                        &s->bodies[f == METRICS_FORMAT_PROMETHEUS ? SNAPSHOT_METRICS_PROMETHEUS
                                                                  : SNAPSHOT_METRICS_OPENMETRICS],
                        text, size);
                if (r < 0)
                        return r;
        }

        {
                json_object *o = NULL;

                r = api_volumes_json(in, &o);
                if (r < 0)
                        return r;
                r = body_set_json(&s->bodies[SNAPSHOT_VOLUMES_JSON], o);
                json_object_put(o);
                if (r < 0)
                        return r;
                r = api_history_json(in, &o);
                if (r < 0)
                        return r;
                r = body_set_json(&s->bodies[SNAPSHOT_HISTORY_JSON], o);
                json_object_put(o);
                if (r < 0)
                        return r;
        }

        s->volumes = calloc(inventory_size(in->inventory) + 1, sizeof(*s->volumes));
        if (!s->volumes)
                return -ENOMEM;
        INVENTORY_FOREACH(v, in->inventory) {
                NamedBody *nb = &s->volumes[s->n_volumes];
                json_object *o = NULL;

                if (!volume_is_listed(v))
                        continue;

                nb->name = strdup(v->name);
                if (!nb->name)
                        return -ENOMEM;
                s->n_volumes++;
                r = api_volume_json(in, v->name, &o);
                if (r < 0)
                        return r;
                r = body_set_json(&nb->body, o);
                json_object_put(o);
                if (r < 0)
                        return r;
        }
        qsort(s->volumes, s->n_volumes, sizeof(*s->volumes), cmp_named);

        *ret = TAKE_PTR(s);
        return 0;
}

const SnapshotBody *snapshot_body(const Snapshot *s, SnapshotBodyType t) {
        if (!s || t < 0 || t >= _SNAPSHOT_BODY_TYPE_MAX)
                return NULL;
        return &s->bodies[t];
}

const SnapshotBody *snapshot_volume(const Snapshot *s, const char *name) {
        NamedBody key = { .name = (char *) name }, *hit;

        if (!s || !name || s->n_volumes == 0)
                return NULL;
        hit = bsearch(&key, s->volumes, s->n_volumes, sizeof(*s->volumes), cmp_named);
        return hit ? &hit->body : NULL;
}

uint64_t snapshot_generation(const Snapshot *s) {
        return s ? s->generation : 0;
}
