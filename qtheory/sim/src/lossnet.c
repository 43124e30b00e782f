/* Sampling loops, lookahead policies and offline optimum of the loss network; see
 * lossnet.h. */
#define PY_SSIZE_T_CLEAN
#include <Python.h> /* numpy/random/distributions.h needs it first */

#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "numpy/random/distributions.h"

#if defined(__SSE2__)
#include <immintrin.h>
#endif
/* AVX2 and AVX-512 twins of some kernels (target attribute), chosen at run time where
 * the processor has them (kernel_isa). */
#if defined(__SSE2__) && defined(__GNUC__) && defined(__x86_64__)
#define QT_LN_AVX2 1
#endif

#include "lossnet.h"

#define QT_INLINE static inline __attribute__((always_inline))

/* The instruction set of the kernels' twins for a run of p: the best the processor
 * has, up to p->isa. */
static qt_ln_isa kernel_isa(const qt_ln_params *p) {
#if defined(QT_LN_AVX2)
    const qt_ln_isa cap = p->isa == QT_LN_ISA_BEST ? QT_LN_ISA_AVX512 : p->isa;
    if (cap >= QT_LN_ISA_AVX512 && __builtin_cpu_supports("avx512f")) {
        return QT_LN_ISA_AVX512;
    }
    if (cap >= QT_LN_ISA_AVX2 && __builtin_cpu_supports("avx2")) {
        return QT_LN_ISA_AVX2;
    }
#else
    (void)p;
#endif
    return QT_LN_ISA_GENERIC;
}

/* ---------------------------------------------------------------- clock events */

/* The sum lambda_1 + ... + lambda_n, added left to right (so that every caller, and
 * n = 2, gets the same float64). */
static double lambda_sum(const qt_ln_params *p) {
    double sum = 0.0;
    for (int32_t j = 0; j < p->classes; j++) {
        sum += p->lambda[j];
    }
    return sum;
}

void qt_ln_clock_init(qt_ln_clock *c, bitgen_t *rng, const qt_ln_params *p) {
    double total = lambda_sum(p) + p->mu, partial = 0.0;
    c->rng = rng;
    c->classes = p->classes;
    c->step_scale = 1.0 / (total * (double)p->servers);
    for (int32_t j = 0; j < p->classes; j++) {
        partial += p->lambda[j];
        c->cum[j] = partial / total;
    }
    c->slot_scale = (double)p->servers / (1.0 - c->cum[p->classes - 1]);
    c->max_slot = (double)(p->servers - 1);
    c->t = 0.0;
    c->source = NULL;
    c->next = 0;
}

/* Events drawn per pass of qt_ln_clock_fill (its scratch array of marks is on the
 * stack). */
#define QT_LN_FILL 256

/*
 * The event of the mark u uniform in [0, 1): class j (code -j) for the first j with
 * u < P(class <= j), i.e. j - 1 = the number of cumulative probabilities <= u, else a
 * potential departure whose mark, (u - P(arrival)) / P(departure), is again uniform in
 * [0, 1) (given the type) and becomes the slot floor(mark N), clamped to N - 1 against
 * rounding.  Without branches (the type is a coin toss a predictor cannot learn), and
 * in doubles up to one conversion at the end (so that the compiler vectorises a loop of
 * these): the slot is computed for every event as |mark N| clamped to N - 1 (an
 * arrival's mark is negative: its absolute value keeps the conversion in range; a NaN,
 * impossible here, would become N - 1 as in a compare), an arrival takes its code
 * -1 - (j - 1) instead (an integer, exact in a double), and the result is truncated,
 * which for a departure's mark (>= 0) is floor, and, as N - 1 is an integer, the same as
 * clamping floor(mark N) to N - 1.
 */
QT_INLINE int32_t clock_code(const double *cum, int32_t classes, double slot_scale,
                             double max_slot, double u) {
    double below = 0.0;
    for (int32_t j = 0; j < classes - 1; j++) {
        below += u >= cum[j] ? 1.0 : 0.0;
    }
    double slot = fabs((u - cum[classes - 1]) * slot_scale);
    slot = slot < max_slot ? slot : max_slot;
    return (int32_t)(u < cum[classes - 1] ? -1.0 - below : slot);
}

/* The codes of `count` events from their marks; `classes` is c->classes, a constant
 * where the caller passes one (then the loop over the classes unrolls).  The codes are
 * computed into a contiguous array first, a loop the compiler vectorises, and then
 * copied into the events (whose stride of 16 bytes would keep it scalar). */
QT_INLINE void clock_codes(const qt_ln_clock *c, int32_t classes, const double *marks,
                           qt_ln_event *ev, int64_t count) {
    const double slot_scale = c->slot_scale, max_slot = c->max_slot;
    double cum[QT_LN_MAX_CLASSES];
    int32_t codes[QT_LN_FILL];
    memcpy(cum, c->cum, (size_t)classes * sizeof *cum);
    for (int64_t k = 0; k < count; k++) {
        codes[k] = clock_code(cum, classes, slot_scale, max_slot, marks[k]);
    }
    for (int64_t k = 0; k < count; k++) {
        ev[k].code = codes[k];
    }
}

/*
 * Per event the draws are a standard exponential time step and then one uint64 x whose
 * top 53 bits give the mark u = (x >> 11) 2^-53, in exactly this order for every event,
 * so a block drawn ahead is the stream of single events.  The draws of a pass come
 * first (their calls into the bit generator are the whole loop), then the marks are
 * turned into codes.  The time is advanced after both calls of an event: every vector
 * register is caller-saved, so t lives in memory across a call, and one call between its
 * stores instead of two keeps its chain of additions short.
 */
static int64_t replay_fill(qt_ln_clock *c, qt_ln_event *out, int64_t count, double stop);

int64_t qt_ln_clock_fill(qt_ln_clock *c, qt_ln_event *out, int64_t count, double stop) {
    if (c->source != NULL) {
        return replay_fill(c, out, count, stop);
    }
    bitgen_t *rng = c->rng;
    double marks[QT_LN_FILL];
    int64_t made = 0;
    while (made < count && !(c->t > stop)) {
        int64_t pass = count - made < QT_LN_FILL ? count - made : QT_LN_FILL, i = 0;
        qt_ln_event *ev = out + made;
        double t = c->t;
        while (i < pass) {
            double step = random_standard_exponential(rng);
            marks[i] = (double)(rng->next_uint64(rng->state) >> 11) * 0x1.0p-53;
            t += c->step_scale * step;
            ev[i++].t = t;
            if (t > stop) {
                break;
            }
        }
        c->t = t;
        if (c->classes == 2) {
            clock_codes(c, 2, marks, ev, i);
        } else {
            clock_codes(c, c->classes, marks, ev, i);
        }
        made += i;
    }
    return made;
}

/* ---------------------------------------------------------------- growable arrays */

/* The byte count of `count` x `rows` elements of `size` bytes, or 0 when it is negative,
 * overflows or exceeds QT_LN_MAX_ALLOC (a request that is refused, never attempted). */
static size_t checked_bytes(int64_t count, int64_t rows, size_t size) {
    if (count < 0 || rows < 0 || size == 0) {
        return 0;
    }
    uint64_t limit = QT_LN_MAX_ALLOC / size;
    if ((uint64_t)count > limit || (rows > 0 && (uint64_t)count > limit / (uint64_t)rows)) {
        return 0;
    }
    size_t bytes = (size_t)count * (size_t)rows * size;
    return bytes > 0 ? bytes : size; /* an empty array still gets a valid block */
}

/* A new array of count x rows elements of `size` bytes (zeroed if `zero`); NULL when out
 * of memory or refused by checked_bytes. */
static void *new_array(int64_t count, int64_t rows, size_t size, int zero) {
    size_t bytes = checked_bytes(count, rows, size);
    if (bytes == 0) {
        return NULL;
    }
    return zero ? calloc(1, bytes) : malloc(bytes);
}

/* Resize *array to `count` elements of `size` bytes; -1 (array untouched) when out of
 * memory or refused by checked_bytes. */
static int resize(void **array, int64_t count, size_t size) {
    size_t bytes = checked_bytes(count, 1, size);
    if (bytes == 0) {
        return -1;
    }
    void *bigger = realloc(*array, bytes);
    if (bigger == NULL) {
        return -1;
    }
    *array = bigger;
    return 0;
}

/* The capacity after doubling `capacity` until it holds `needed` (at least 1024); when
 * doubling would overflow int64, `needed` itself (resize then refuses it). */
static int64_t grown(int64_t capacity, int64_t needed) {
    int64_t cap = capacity > 0 ? capacity : 1024;
    while (cap < needed) {
        if (cap > INT64_MAX / 2) {
            return needed;
        }
        cap *= 2;
    }
    return cap;
}

/* Make room for one more element of `size` bytes; -1 when out of memory. */
static int grow(void **array, int64_t *capacity, int64_t needed, size_t size) {
    if (needed <= *capacity) {
        return 0;
    }
    int64_t cap = grown(*capacity, needed);
    if (resize(array, cap, size) < 0) {
        return -1;
    }
    *capacity = cap;
    return 0;
}

void qt_ln_trace_free(qt_ln_trace *tr) {
    free(tr->t);
    free(tr->code);
    free(tr->decision);
    free(tr->busy);
    memset(tr, 0, sizeof *tr);
}

/* Append one event with the busy count just after it.  The capacity is raised only
 * once all four arrays have grown; an array already grown when a later one fails is
 * merely larger than needed. */
static int trace_push(qt_ln_trace *tr, double t, int32_t code, int8_t decision, int64_t busy) {
    if (tr->size == tr->capacity) {
        int64_t cap = grown(tr->capacity, tr->size + 1);
        if (resize((void **)&tr->t, cap, sizeof *tr->t) < 0 ||
            resize((void **)&tr->code, cap, sizeof *tr->code) < 0 ||
            resize((void **)&tr->decision, cap, sizeof *tr->decision) < 0 ||
            resize((void **)&tr->busy, cap, sizeof *tr->busy) < 0) {
            return -1;
        }
        tr->capacity = cap;
    }
    tr->t[tr->size] = t;
    tr->code[tr->size] = code;
    tr->decision[tr->size] = decision;
    tr->busy[tr->size] = (int32_t)busy; /* busy <= N <= QT_LN_MAX_SERVERS */
    tr->size++;
    return 0;
}

/* ---------------------------------------------------------------- runs */

#define QT_LN_NONE UINT64_MAX

/* Index of the tally of arrivals of 0-based class j, admitted or not, in the window or
 * not (see qt_ln_run). */
#define QT_LN_TALLY(j, admit, in_window) (4 * (j) + 2 * (admit) + (in_window))

/* 1 when `code` is an arrival of a class better than the 0-based class j (codes -1..-j),
 * without a branch: -1 - code, as unsigned, is below j exactly then (a departure's slot
 * wraps to above it). */
QT_INLINE int is_better(int32_t code, int32_t j) { return (uint32_t)(-1 - code) < (uint32_t)j; }

/* Two-class sss: what a block of QT_LN_BLOCK events (absolute indices 8B..8B+7) does to
 * the hypothetical idle count h of decide_sss when every departure in it ends a
 * service: `sum` is its net change (departures minus H arrivals) and `low` the least of
 * its partial sums after each event.  Every departure in it ends a service iff
 * key < N - h at the block's start, where key is the largest of slot + the partial sum
 * before it over its departures (-1 without one): if the earlier ones all ended a
 * service, h before a departure is h + that partial sum, and the departure ends a
 * service iff its slot < N - h there. */
#define QT_LN_BLOCK 8
/* Windows of fewer expected events than this scan one event at a time: their scans are
 * short, and keeping the summaries would cost more than skipping saves. */
#define QT_LN_BLOCK_WINDOW 64.0
/* Two-class sss deciding only takes its thresholds from a refill (sss_refill, of
 * QT_LN_SSS_SPAN events) for windows of at most QT_LN_SSS_LIMIT_WINDOW expected events,
 * at most QT_LN_SSS_RARE_SHARE of them read event by event (sss_by_thresholds). */
#define QT_LN_SSS_LIMIT_WINDOW 1024.0
#define QT_LN_SSS_RARE_SHARE 0.0625
#define QT_LN_SSS_SPAN 4096
/* The top level of sss's sparse table at windows of QT_LN_SSS_LIMIT_WINDOW expected
 * events, floor(log2(2 QT_LN_SSS_LIMIT_WINDOW + 1)), and the most sss_init takes (the
 * exactness of the refill's 32-bit counts rests on it: see QT_LN_SSS_RARE). */
#define QT_LN_SSS_LEVELS 11
struct qt_ln_block {
    int32_t key;
    int8_t sum, low;
};

/* One hypothetical PFI walk whose look-ahead statistics are pending: the arrival's time,
 * the index of the first event of its future, and once resolved the index and time of
 * the event that resolved it (end = QT_LN_NONE while pending); `next` links the walks
 * of one group (see walk_pass). */
struct qt_ln_walk {
    double t, t_end;
    uint64_t start, end, next;
};

/* The events of one walk_pass: the forward loop of PFI with look-ahead statistics hands
 * them over in chunks of 16 floor(sqrt N) events (a walk typically ends within a few
 * sqrt N), a power of 2 from 4096 to QT_LN_WALK_CHUNK, whose resolutions (offsets in the
 * chunk, and tags, see walk_pass) fit in 16 bits. */
#define QT_LN_WALK_CHUNK 65536

/* PFI state of one class j >= 2 (see pfi_refill and walk_pass).  Thresholds: the run's
 * ring `theta` holds theta_j(m + 1) at every arrival m of class j below theta_end (the
 * arrival's future starts at m + 1), theta_span events per refill.  Walks: `tau` is the
 * ring of walk_pass's resolutions; first/last[h] is the group of pending walks at
 * hypothetical idle count h at the end of the last pass (first and last walk,
 * QT_LN_NONE if empty; walk_finish moves them under a shift), next_first/next_last the
 * groups the next pass builds; `pending` walks of class j are in groups. */
struct qt_ln_pfi_class {
    int64_t theta_span;
    uint64_t theta_end;
    int32_t *tau;
    uint64_t *groups; /* the four arrays of groups, slot_mask + 1 entries each */
    uint64_t *first, *last, *next_first, *next_last;
    int64_t pending;
};

struct qt_ln_run {
    qt_ln_params p;
    qt_ln_isa isa; /* the instruction set of the kernels' twins (kernel_isa) */
    int job_model;
    qt_ln_clock clock;
    int64_t busy;
    /* class j admitted iff busy < limit[j] (threshold; pfi and sss: class 1);
     * limit[QT_LN_MAX_CLASSES] = 0 admits nothing (the row of departures, limit_event) */
    int64_t limit[QT_LN_MAX_CLASSES + 1];
    double stat_t; /* idle_area is integrated up to here (>= warmup) */
    /* Arrivals of class j by outcome: tally[QT_LN_TALLY(j, admitted, in the window)];
     * the row j = QT_LN_MAX_CLASSES is a sink for departures (branch-free counting).
     * finish() turns it into the statistics. */
    int64_t tally[QT_LN_TALLY(QT_LN_MAX_CLASSES + 1, 0, 0)];
    int finished;
    qt_ln_stats st;
    qt_ln_trace *trace;
    /* Event ring (clock model): the generated, not yet processed events with absolute
     * indices [head, tail), drawn in blocks (buffer_fill); capacity a power of 2.
     * sss also keeps, per event, the prefix counts better[(index & mask) * (n - 1) + j]
     * of the arrivals of classes 1..j + 1 generated before it (mod 2^32), counted in
     * counts[j], and with two classes the summaries of its blocks of QT_LN_BLOCK events;
     * pfi, and sss deciding by thresholds, keep per event theta[index & mask] (see
     * qt_ln_pfi_class and sss_refill). */
    qt_ln_event *buf;
    uint32_t *better;
    int32_t *theta;
    uint32_t counts[QT_LN_MAX_CLASSES];
    /* two-class sss with a window of QT_LN_BLOCK_WINDOW expected events or more (NULL
     * otherwise): the summaries of the complete blocks of the ring,
     * blocks[B & (mask / QT_LN_BLOCK)], and the summary of the block being drawn */
    struct qt_ln_block *blocks, block;
    uint64_t mask;
    uint64_t head, tail;
    uint64_t window_end; /* sss: first index with t > now + W, nondecreasing */
    int64_t pfi_target;  /* floor(sqrt(N)) */
    /* Two-class sss deciding by thresholds (sss_limit; see sss_refill): its thresholds
     * in `theta`, refilled like class 2's of PFI (pfi[1].theta_end); a window with a
     * departure of slot at least N - sss_rare, or more than sss_rare H arrivals, is read
     * backward (sss_theta_exact); window minima from a sparse table of sss_levels + 1
     * levels in the scratch array. */
    int sss_limit;
    int32_t sss_levels;
    int64_t sss_rare;
    char *sss_scratch;
    int64_t sss_scratch_cap;
    /* PFI: per-class thresholds and walk groups (pfi[j], j = 1..n-1 for class j + 1),
     * and one ring of the walks of the undecided scored arrivals in the window whose
     * statistics are not yet summed, absolute indices [walk_head, walk_tail) in arrival
     * order. */
    struct qt_ln_pfi_class pfi[QT_LN_MAX_CLASSES];
    struct qt_ln_walk *walks;
    uint64_t walk_mask, walk_head, walk_tail;
    uint32_t *walk_list; /* walk_pass's list of the walks of its events */
    int64_t walk_chunk;  /* the events of one walk_pass (QT_LN_WALK_CHUNK) */
    uint64_t slot_mask;
    /* Job model: min-heap of completion times and the next arrival, drawn ahead. */
    double *heap;
    int64_t heap_size, heap_capacity;
    double job_cum[QT_LN_MAX_CLASSES]; /* P(an arrival is of class <= j + 1) */
    double job_rate;                   /* N (lambda_1 + ... + lambda_n) */
    double next_t, next_service;
    int32_t next_class; /* 0-based */
};

const qt_ln_stats *qt_ln_run_stats(const qt_ln_run *run) { return &run->st; }

void qt_ln_run_free(qt_ln_run *run) {
    if (run != NULL) {
        free(run->buf);
        free(run->better);
        free(run->theta);
        free(run->sss_scratch);
        free(run->blocks);
        for (int32_t j = 0; j < QT_LN_MAX_CLASSES; j++) {
            free(run->pfi[j].tau);
            free(run->pfi[j].groups);
        }
        free(run->walks);
        free(run->walk_list);
        free(run->heap);
        free(run);
    }
}

static int64_t isqrt64(int64_t n) {
    int64_t s = (int64_t)sqrt((double)n);
    while (s * s > n) {
        s--;
    }
    while ((s + 1) * (s + 1) <= n) {
        s++;
    }
    return s;
}

static void draw_next_job(qt_ln_run *r) {
    bitgen_t *rng = r->clock.rng;
    r->next_t += random_standard_exponential(rng) / r->job_rate;
    double u = next_double(rng);
    int32_t j = 0;
    while (j < r->p.classes - 1 && u >= r->job_cum[j]) {
        j++;
    }
    r->next_class = j;
    r->next_service = random_standard_exponential(rng) / r->p.mu;
}

static void job_init(qt_ln_run *r) {
    double sum = lambda_sum(&r->p), partial = 0.0;
    r->job_rate = sum * (double)r->p.servers;
    for (int32_t j = 0; j < r->p.classes; j++) {
        partial += r->p.lambda[j];
        r->job_cum[j] = partial / sum;
    }
}

/* PFI state: the first refill of each class spans 4096 + 64 floor(sqrt N) events (about
 * ten times the span over which the thresholds typically coalesce); per class 2..n, the
 * ring of walk_pass's resolutions and the walk groups, one slot for each hypothetical
 * idle count 0..floor(sqrt N) (a power of 2 > floor(sqrt N) + 1 slots).  -1 when out of
 * memory. */
static int pfi_init(qt_ln_run *r) {
    uint64_t slots = 2;
    while (slots < (uint64_t)r->pfi_target + 2) {
        slots *= 2;
    }
    r->slot_mask = slots - 1;
    r->walk_chunk = 4096;
    while (r->walk_chunk < QT_LN_WALK_CHUNK && r->walk_chunk < 16 * r->pfi_target) {
        r->walk_chunk *= 2;
    }
    r->walks = new_array(r->walk_chunk, 1, sizeof *r->walks, 0);
    r->walk_mask = (uint64_t)r->walk_chunk - 1;
    r->walk_list = new_array(r->walk_chunk, 1, sizeof *r->walk_list, 0);
    if (r->walks == NULL || r->walk_list == NULL) {
        return -1;
    }
    for (int32_t j = 1; j < r->p.classes; j++) {
        struct qt_ln_pfi_class *c = &r->pfi[j];
        c->theta_span = 4096 + 64 * r->pfi_target;
        c->tau = new_array((int64_t)slots, 1, sizeof *c->tau, 1);
        c->groups = new_array((int64_t)slots, 4, sizeof *c->groups, 0);
        if (c->tau == NULL || c->groups == NULL) {
            return -1;
        }
        for (uint64_t i = 0; i < 4 * slots; i++) {
            c->groups[i] = QT_LN_NONE;
        }
        c->first = c->groups;
        c->last = c->groups + slots;
        c->next_first = c->groups + 2 * slots;
        c->next_last = c->groups + 3 * slots;
    }
    return 0;
}

/* Two-class sss deciding only (see sss_refill): the bound K of its windows, the expected
 * H arrivals of one plus four standard deviations plus 4. */
static int64_t sss_rare_bound(const qt_ln_params *p) {
    const double h_events = p->window * p->lambda[0] * (double)p->servers;
    return (int64_t)ceil(h_events + 4.0 * sqrt(h_events) + 4.0);
}

/* Whether two-class sss decides by thresholds: without look-ahead statistics, for
 * windows of at most QT_LN_SSS_LIMIT_WINDOW expected events of which few hold a
 * departure of slot N - K or more (their expected number mu W K at most
 * QT_LN_SSS_RARE_SHARE: each such window costs its length, while the scan stops early). */
static int sss_by_thresholds(const qt_ln_params *p, double window_events) {
    return p->policy == QT_LN_SSS && p->classes == 2 && !p->lookahead_stats &&
           window_events <= QT_LN_SSS_LIMIT_WINDOW &&
           p->mu * p->window * (double)sss_rare_bound(p) <= QT_LN_SSS_RARE_SHARE;
}

/* Two-class sss deciding only (see sss_refill): the sparse table's top level
 * floor(log2(2 w + 1)) for windows of w expected events, at most QT_LN_SSS_LEVELS (a
 * window of up to about 4 w events takes one lookup, a longer one is read backward),
 * and K. */
static void sss_init(qt_ln_run *r, double window_events) {
    int32_t levels = 0;
    while (levels < QT_LN_SSS_LEVELS &&
           (double)((int64_t)2 << levels) <= 2.0 * window_events + 1.0) {
        levels++;
    }
    r->sss_levels = levels;
    r->sss_rare = sss_rare_bound(&r->p);
}

/* Two-class sss: start the summary of the next block (no event yet). */
static void block_start(qt_ln_run *r) {
    r->block.key = -1;
    r->block.sum = 0;
    r->block.low = QT_LN_BLOCK;
}

qt_ln_run *qt_ln_run_new(const qt_ln_params *p, bitgen_t *rng, qt_ln_source *source,
                         int job_model, qt_ln_trace *trace) {
    qt_ln_run *r = calloc(1, sizeof *r);
    if (r == NULL) {
        return NULL;
    }
    r->p = *p;
    r->isa = kernel_isa(p);
    r->job_model = job_model;
    r->trace = trace;
    r->stat_t = p->warmup;
    for (int32_t j = 0; j < p->classes; j++) {
        r->limit[j] = p->policy == QT_LN_THRESHOLD ? p->servers - p->reserve[j] : p->servers;
    }
    qt_ln_clock_init(&r->clock, rng, p);
    r->clock.source = job_model ? NULL : source;
    r->pfi_target = isqrt64(p->servers);
    if (job_model) {
        job_init(r);
        draw_next_job(r);
    } else {
        r->buf = new_array(1024, 1, sizeof *r->buf, 0);
        r->mask = 1023;
        const double window_events = p->window * (lambda_sum(p) + p->mu) * (double)p->servers;
        r->sss_limit = sss_by_thresholds(p, window_events);
        const int scan = p->policy == QT_LN_SSS && !r->sss_limit;
        const int blocks = scan && p->classes == 2 && window_events >= QT_LN_BLOCK_WINDOW;
        if (scan) {
            r->better = new_array(1024, p->classes - 1, sizeof *r->better, 0);
        }
        if (blocks) {
            r->blocks = new_array(1024 / QT_LN_BLOCK, 1, sizeof *r->blocks, 0);
            block_start(r);
        }
        if (r->sss_limit) {
            sss_init(r, window_events);
        }
        /* the thresholds of a moving limit (moving_limit_batch), zeroed: the batch reads,
         * and masks off, the entries of the events of other classes */
        const int moving = p->policy == QT_LN_PFI || r->sss_limit;
        if (moving) {
            r->theta = new_array((int64_t)r->mask + 1, 1, sizeof *r->theta, 1);
        }
        if (r->buf == NULL || (scan && r->better == NULL) || (blocks && r->blocks == NULL) ||
            (moving && r->theta == NULL) ||
            (p->policy == QT_LN_PFI && pfi_init(r) < 0)) {
            qt_ln_run_free(r);
            return NULL;
        }
    }
    return r;
}

/* Integrate `idle` idle servers into *idle_area from *stat_t up to time t, if t is past
 * the warm-up (an event at t is about to change the count); 1 then, else 0.  The loops
 * pass their locals (always inlined, they stay in registers). */
QT_INLINE int record_idle(double t, double warmup, int64_t idle, double *idle_area,
                          double *stat_t) {
    if (t > warmup) {
        *idle_area += (double)idle * (t - *stat_t);
        *stat_t = t;
        return 1;
    }
    return 0;
}

/* record_idle on the run's own state. */
QT_INLINE int record_time(qt_ln_run *r, double t) {
    return record_idle(t, r->p.warmup, r->p.servers - r->busy, &r->st.idle_area, &r->stat_t);
}

static void finish(qt_ln_run *r) {
    r->st.idle_area += (double)(r->p.servers - r->busy) * (r->p.horizon - r->stat_t);
    r->stat_t = r->p.horizon;
    r->st.reward_total = 0.0;
    for (int32_t j = 0; j < r->p.classes; j++) {
        const int64_t *tally = r->tally + QT_LN_TALLY(j, 0, 0);
        int64_t total = tally[QT_LN_TALLY(0, 1, 0)] + tally[QT_LN_TALLY(0, 1, 1)]; /* (0, T] */
        r->st.admitted[j] = tally[QT_LN_TALLY(0, 1, 1)];
        r->st.rejected[j] = tally[QT_LN_TALLY(0, 0, 1)];
        r->st.reward_total += r->p.reward[j] * (double)total;
    }
    r->finished = 1;
}

/* An arrival of 0-based class j, admitted or not. */
QT_INLINE void count_arrival(qt_ln_run *r, int32_t j, int admit, int in_window) {
    r->busy += admit;
    r->tally[QT_LN_TALLY(j, admit, in_window)]++;
}

/* Double the event ring (and sss's prefix counts and block summaries, the thresholds of
 * pfi and of sss deciding by thresholds); -1 when out of memory. */
static int buffer_double(qt_ln_run *r) {
    const uint64_t cap = 2 * (r->mask + 1);
    const int64_t stride = r->p.classes - 1;
    qt_ln_event *bigger = cap > INT64_MAX ? NULL : new_array((int64_t)cap, 1, sizeof *bigger, 0);
    uint32_t *better = NULL;
    int32_t *theta = NULL;
    struct qt_ln_block *blocks = NULL;
    if (bigger != NULL && r->better != NULL) {
        better = new_array((int64_t)cap, stride, sizeof *better, 0);
        if (better == NULL) {
            free(bigger);
            bigger = NULL;
        }
    }
    if (bigger != NULL && r->theta != NULL) {
        theta = new_array((int64_t)cap, 1, sizeof *theta, 1); /* zeroed, as in run_new */
        if (theta == NULL) {
            free(bigger);
            free(better);
            bigger = NULL;
        }
    }
    if (bigger != NULL && r->blocks != NULL) {
        blocks = new_array((int64_t)(cap / QT_LN_BLOCK), 1, sizeof *blocks, 0);
        if (blocks == NULL) {
            free(bigger);
            free(better);
            free(theta);
            bigger = NULL;
        }
    }
    if (bigger == NULL) {
        return -1;
    }
    if (blocks != NULL) { /* the complete blocks from head on: the only ones read */
        const uint64_t old_mask = r->mask / QT_LN_BLOCK, new_mask = cap / QT_LN_BLOCK - 1;
        for (uint64_t b = (r->head + QT_LN_BLOCK - 1) / QT_LN_BLOCK; b < r->tail / QT_LN_BLOCK;
             b++) {
            blocks[b & new_mask] = r->blocks[b & old_mask];
        }
        free(r->blocks);
        r->blocks = blocks;
    }
    for (uint64_t j = r->head; j < r->tail; j++) {
        bigger[j & (cap - 1)] = r->buf[j & r->mask];
        if (better != NULL) {
            memcpy(better + (j & (cap - 1)) * (uint64_t)stride,
                   r->better + (j & r->mask) * (uint64_t)stride, (size_t)stride * sizeof *better);
        }
        if (theta != NULL) {
            theta[j & (cap - 1)] = r->theta[j & r->mask];
        }
    }
    free(r->buf);
    r->buf = bigger;
    if (theta != NULL) {
        free(r->theta);
        r->theta = theta;
    }
    if (better != NULL) {
        free(r->better);
        r->better = better;
    }
    r->mask = cap - 1;
    return 0;
}

/*
 * Draw events into the ring after `tail`: at least min(needed, room to the ring's end)
 * of them (the ring doubles first if full).  Up to the first event past the horizon a
 * block of max(needed, QT_LN_FILL) is drawn, stopping after that event: every run
 * consumes every event up to it, so drawing them early leaves the stream, and the bit
 * generator's state after the run, unchanged.  Past it exactly `needed` are drawn (a
 * lookahead beyond the horizon draws only the events it reads).  sss's prefix counts of
 * the new events follow.  -1 when out of memory.
 */
static int buffer_fill(qt_ln_run *r, uint64_t needed) {
    if (r->tail - r->head > r->mask && buffer_double(r) < 0) {
        return -1;
    }
    uint64_t count = r->mask + 1 - (r->tail - r->head);      /* room */
    uint64_t to_end = r->mask + 1 - (r->tail & r->mask); /* contiguous room */
    double stop = INFINITY;
    count = count < to_end ? count : to_end;
    if (!(r->clock.t > r->p.horizon)) {
        needed = needed > QT_LN_FILL ? needed : QT_LN_FILL;
        stop = r->p.horizon;
    }
    count = count < needed ? count : needed;
    int64_t made = qt_ln_clock_fill(&r->clock, r->buf + (r->tail & r->mask), (int64_t)count, stop);
    if (made < 0) {
        return -1;
    }
    if (r->blocks != NULL) { /* one count, on a local; no wrap */
        const qt_ln_event *ev = r->buf + (r->tail & r->mask);
        uint32_t *counts = r->better + (r->tail & r->mask), count = r->counts[0];
        const uint64_t block_mask = r->mask / QT_LN_BLOCK;
        struct qt_ln_block block = r->block;
        for (int64_t i = 0; i < made; i++) {
            const int32_t code = ev[i].code;
            const int departure = code >= 0, h_arrival = code == QT_LN_H;
            counts[i] = count;
            count += h_arrival;
            if (departure && code + block.sum > block.key) {
                block.key = code + block.sum;
            }
            block.sum = (int8_t)(block.sum + departure - h_arrival);
            block.low = block.sum < block.low ? block.sum : block.low;
            const uint64_t index = r->tail + (uint64_t)i;
            if (index % QT_LN_BLOCK == QT_LN_BLOCK - 1) {
                r->blocks[(index / QT_LN_BLOCK) & block_mask] = block;
                block_start(r);
                block = r->block;
            }
        }
        r->counts[0] = count;
        r->block = block;
    } else if (r->better != NULL) { /* class by class, each count on a local; no wrap */
        const int32_t stride = r->p.classes - 1;
        const qt_ln_event *ev = r->buf + (r->tail & r->mask);
        uint32_t *counts = r->better + (r->tail & r->mask) * (uint64_t)stride;
        for (int32_t j = 0; j < stride; j++) {
            uint32_t count = r->counts[j];
            for (int64_t i = 0; i < made; i++) {
                counts[i * stride + j] = count;
                count += is_better(ev[i].code, j + 1);
            }
            r->counts[j] = count;
        }
    }
    r->tail += (uint64_t)made;
    return 0;
}

/* Make sure the ring holds event `index`; -1 when out of memory. */
QT_INLINE int buffer_ensure(qt_ln_run *r, uint64_t index) {
    while (r->tail <= index) {
        if (buffer_fill(r, index + 1 - r->tail) < 0) {
            return -1;
        }
    }
    return 0;
}

QT_INLINE const qt_ln_event *buffer_at(const qt_ln_run *r, uint64_t index) {
    return &r->buf[index & r->mask];
}

/* The tally's row of the event of `code`, without a branch on its type: min(-1 - code as
 * unsigned, QT_LN_MAX_CLASSES), the 0-based class of an arrival and QT_LN_MAX_CLASSES
 * for a departure (a slot c >= 0 wraps to above it). */
QT_INLINE uint32_t event_row(int32_t code) {
    const uint32_t j = (uint32_t)(-1 - code);
    return j < QT_LN_MAX_CLASSES ? j : QT_LN_MAX_CLASSES;
}

/*
 * An event decided by a limit on the busy count (any event of trunk reservation; an H
 * arrival or a departure under pfi and sss), with no branch on its type: with j its row
 * (event_row), the event is an admission iff busy < limit[j] (never for a departure:
 * limit = 0 there) and ends a service iff c as unsigned < busy (a departure with slot <
 * busy; an arrival's code wraps to above N).  Returns the trace's decision.
 */
QT_INLINE int limit_event(qt_ln_run *r, int64_t *busy, int32_t code, int in_window) {
    const uint32_t j = event_row(code);
    int admit = *busy < r->limit[j];
    *busy += admit - ((int64_t)(uint32_t)code < *busy);
    r->tally[QT_LN_TALLY(j, admit, in_window)]++;
    return code < 0 ? admit : -1;
}

/*
 * Nested trunk reservation in the clock model over the events [head, end) of the ring
 * (all at or before the horizon), appending to `trace` unless NULL.  The state lives in
 * locals; always inlined, so that the loop without a trace has no call in it (around
 * which the compiler would keep the state in memory).
 */
QT_INLINE int threshold_batch(qt_ln_run *r, uint64_t end, qt_ln_trace *trace) {
    const double warmup = r->p.warmup;
    const int64_t idle_of = r->p.servers;
    const qt_ln_event *buf = r->buf;
    const uint64_t mask = r->mask;
    int64_t busy = r->busy;
    double idle_area = r->st.idle_area, stat_t = r->stat_t;
    uint64_t m = r->head;
    int status = 0;
    for (; m < end; m++) {
        qt_ln_event ev = buf[m & mask];
        int in_window = record_idle(ev.t, warmup, idle_of - busy, &idle_area, &stat_t);
        int decision = limit_event(r, &busy, ev.code, in_window);
        if (trace != NULL && trace_push(trace, ev.t, ev.code, (int8_t)decision, busy) < 0) {
            status = -1; /* the run is abandoned */
            break;
        }
    }
    r->st.events += (int64_t)(m - r->head);
    r->head = m;
    r->busy = busy;
    r->st.idle_area = idle_area;
    r->stat_t = stat_t;
    return status;
}

/* Trunk reservation: batches of the ring, refilled when it runs empty.  The ring ends
 * at the first event past the horizon once that is drawn, so only a batch's last event
 * can end the run. */
static int advance_threshold(qt_ln_run *r, int64_t budget) {
    while (budget > 0) {
        if (buffer_ensure(r, r->head) < 0) {
            return -1;
        }
        uint64_t end = r->tail - r->head < (uint64_t)budget ? r->tail : r->head + (uint64_t)budget;
        budget -= (int64_t)(end - r->head);
        int last = buffer_at(r, end - 1)->t > r->p.horizon;
        end -= (uint64_t)last;
        if ((r->trace != NULL ? threshold_batch(r, end, r->trace)
                              : threshold_batch(r, end, NULL)) < 0) {
            return -1;
        }
        if (last) {
            finish(r);
            return 0;
        }
    }
    return 0;
}

/*
 * PFI in O(1) amortised work per event
 * -------------------------------------
 * Class j >= 2 is judged on its own hypothetical future: arrivals of the better classes
 * 1..j-1 admitted, arrivals of classes j..n rejected.  Its walk starts at h = I - 1 at
 * the next event index m; event m maps h to step_m(h): h - 1 for a better arrival, h
 * for any other arrival, and for a departure slot c, h + 1 if c < N - h (the
 * hypothetical busy count) else h.  The walk admits iff it reaches s = floor(sqrt N)
 * before 0.  Every step_m is nondecreasing in h and moves h by at most 1, so two walks
 * from the same index never cross: the outcome is monotone in the starting value, and
 * there is a threshold
 *     theta_j(m) = min{h in 1..s : the walk from h at index m admits}   (h = s admits)
 * with "admit iff I - 1 >= theta_j(m)" (I - 1 < 1 rejects, as theta >= 1).  One step
 * back:
 *     theta_j(m) = min{h in 1..s : h = s or step_m(h) >= theta_j(m + 1)} = g_m(theta_j(m + 1)),
 *     g_better(x) = min(x + 1, s),   g_other(x) = x,
 *     g_c(x) = x - 1 if x >= 2 and c <= N - x (then h = x - 1 steps up to x), else x,
 * each g_m nondecreasing on 1..s.  theta_j at a far index is unknown (the future is
 * infinite), but G = g_m o ... o g_{M-1} is nondecreasing, so if G(1) = G(s) then G is
 * constant on 1..s and theta_j(m) = G(1) whatever theta_j(M) is (coupling from the
 * past).  pfi_refill runs the recursion backward from M = start + span with the two
 * envelopes lo (from 1) and hi (from s); every index at or below the first (largest)
 * index where they meet has its exact theta_j; the rest is recomputed by the next refill
 * of class j (its span doubles while it is wasteful or too short to meet).  Each class
 * has its own thresholds, refilled ahead of the events (moving_limit_batch), so that PFI
 * is trunk reservation with a limit that moves with the event.  The decisions are
 * exactly those of the event-by-event scan, which no longer runs.
 *
 * The look-ahead statistics (events scanned and time to the last event scanned, per
 * scored arrival in the window) are those of the scan, and come from the same steps
 * read backward.  The walk of an arrival ends at the first event where it reaches 0 or
 * s; call tau_m(h) that event for a walk at h just before event m.  Then tau_m(h) =
 * tau_{m+1}(step_m(h)), or m where step_m(h) is 0 or s: a better arrival moves every h
 * down and ends h = 1, a departure of slot c <= N - s moves every h up and ends h = s - 1
 * (every h <= s - 1 < N - c steps up), any other arrival changes nothing.  Kept as a
 * ring of slots under a moving shift, one step back is a shift and one write (a
 * departure of slot c > N - s, probability (s - 1) / N an event, lifts only h < N - c:
 * O(s) work, O(1) per event).  So the forward loop marks each undecided arrival with h
 * (with two classes every L arrival: walk_pass picks the walks by h and the window), and
 * every walk_chunk events walk_pass runs the chunk backward from tau = "still
 * pending at the chunk's end, at h" and reads each walk's tau where its future starts;
 * the walks still pending are grouped by h at the chunk's end and take the next chunk's
 * tau at its start.  At the end of the run the groups are followed forward past the
 * horizon, drawing only the events they read (walk_finish).  The walks are accounted
 * in arrival order (one ring for every class), so the sums are the scan's, bit for bit.
 */

/* g_m(x) of the event of `code` for the 0-based class j >= 1, on 1..s.  A better arrival
 * steps up to at most s, and a departure of slot c <= N - s down to at least 1 (every
 * x <= s is at most N - c), so these and every other event (d = 0) are the clamped step
 * min(max(x + d, 1), s), whose chain from one event to the next is an add and two
 * conditional moves (a branch on the type, a coin toss, would be mispredicted).  A
 * departure of slot c > N - s steps down on 2..N - c only; it is rare (probability
 * (s - 1) / N an event), behind a branch that is almost never taken. */
QT_INLINE int32_t pfi_step(int32_t code, int32_t j, int64_t n, int32_t s, int32_t x) {
    if (__builtin_expect(code > n - s, 0)) {
        return x - (x >= 2 && x <= n - code);
    }
    x += is_better(code, j) - (code >= 0);
    x = x < 1 ? 1 : x;
    return x < s ? x : s;
}

/* theta[m] = theta_j(m + 1) at the arrivals m of the 0-based class j in [start, end), at
 * every event if `every` (a constant where the caller passes one), from lo =
 * theta_j(end) backward. */
QT_INLINE void refill_exact(const qt_ln_event *buf, uint64_t mask, int32_t *theta,
                            uint64_t start, uint64_t end, int32_t lo, int32_t j, int64_t n,
                            int32_t s, const int every) {
    for (uint64_t m = end; m-- > start;) { /* lo = theta(m + 1) */
        const int32_t code = buf[m & mask].code;
        if (every) {
            theta[m & mask] = lo;
        } else {
            int32_t *slot = &theta[m & mask];
            *slot = code == -1 - j ? lo : *slot;
        }
        lo = pfi_step(code, j, n, s, lo);
    }
}

#if defined(QT_LN_AVX2)
/* The eight events from `slot` of the ring: in place, or copied to `copy` when they wrap
 * around its end. */
QT_INLINE const qt_ln_event *ring8(const qt_ln_event *buf, uint64_t mask, uint64_t slot,
                                   qt_ln_event *copy) {
    if (slot + 8 <= mask + 1) {
        return buf + slot;
    }
    for (int k = 0; k < 8; k++) {
        copy[k] = buf[(slot + (uint64_t)k) & mask];
    }
    return copy;
}

/* The codes of eight consecutive events e[0..1], e[2..3], ... loaded as four 32-byte
 * vectors: the code of each 16-byte event picked (unpackhi) and ordered. */
__attribute__((target("avx2"))) QT_INLINE __m256i codes8_avx2(__m256d e0, __m256d e1,
                                                              __m256d e2, __m256d e3) {
    const __m256i order = _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7);
    const __m256 odd = _mm256_shuffle_ps(_mm256_castpd_ps(_mm256_unpackhi_pd(e0, e1)),
                                         _mm256_castpd_ps(_mm256_unpackhi_pd(e2, e3)), 0x88);
    return _mm256_permutevar8x32_epi32(_mm256_castps_si256(odd), order);
}

/* One round of refill_exact2_avx2's scan: lane k composes its step (D, L, U) after the
 * one of lane k + d (`up` moves it down d lanes; the identity above lane 7 - d, lanes
 * `above`): D = D' + D, L = clamp(L' + D, L, U), U = clamp(U' + D, L, U). */
#define QT_LN_SCAN_ROUND(up, above)                                                            \
    do {                                                                                       \
        const __m256i dd = _mm256_blend_epi32(_mm256_permutevar8x32_epi32(d, up), zero, above); \
        const __m256i ll = _mm256_blend_epi32(_mm256_permutevar8x32_epi32(l, up), low, above);  \
        const __m256i uu = _mm256_blend_epi32(_mm256_permutevar8x32_epi32(u, up), high, above); \
        const __m256i l2 = _mm256_min_epi32(_mm256_max_epi32(_mm256_add_epi32(ll, d), l), u);   \
        u = _mm256_min_epi32(_mm256_max_epi32(_mm256_add_epi32(uu, d), l), u);                  \
        l = l2;                                                                                \
        d = _mm256_add_epi32(dd, d);                                                           \
    } while (0)

/*
 * refill_exact of two classes (every event) with AVX2, eight events at a time.  Each step
 * g_m other than a rare departure's is the clamp min(max(x + D, L), U) with D = +1 for
 * an H arrival, -1 for a departure, 0 for an L arrival, L = 1 and U = s, and clamps
 * compose into clamps: g o f = (D_f + D_g, clamp(L_f + D_g, L_g, U_g), clamp(U_f + D_g,
 * L_g, U_g)) (L <= U throughout).  A scan over the eight lanes (three rounds) gives lane
 * k the composition of the steps of events k..7 of the eight, so theta at each of them
 * is one clamp of theta past the eight, and the carry to the next eight is lane 0's.
 * Eight events with a departure of slot above N - s go one step at a time (pfi_step), as
 * do the first (end - start) mod 8; eight events that wrap around the ring are copied out
 * first.  The values are those of refill_exact.
 */
__attribute__((target("avx2"))) static void refill_exact2_avx2(const qt_ln_event *buf,
                                                               uint64_t mask, int32_t *theta,
                                                               uint64_t start, uint64_t end,
                                                               int32_t lo, int64_t n,
                                                               int32_t s) {
    const __m256i up1 = _mm256_setr_epi32(1, 2, 3, 4, 5, 6, 7, 7);
    const __m256i up2 = _mm256_setr_epi32(2, 3, 4, 5, 6, 7, 7, 7);
    const __m256i up4 = _mm256_setr_epi32(4, 5, 6, 7, 7, 7, 7, 7);
    const __m256i h_code = _mm256_set1_epi32(QT_LN_H), no_slot = _mm256_set1_epi32(-1);
    const __m256i rare_above = _mm256_set1_epi32((int32_t)(n - s));
    const __m256i one = _mm256_set1_epi32(1), top = _mm256_set1_epi32(s);
    const __m256i zero = _mm256_setzero_si256(), low = _mm256_set1_epi32(-(1 << 29)),
                  high = _mm256_set1_epi32(1 << 29);
    uint64_t e = end;
    for (; e - start >= 8; e -= 8) {
        const uint64_t slot = (e - 8) & mask;
        qt_ln_event copy[8];
        const qt_ln_event *ev = ring8(buf, mask, slot, copy);
        const double *t = &ev->t;
        const __m256i code = codes8_avx2(_mm256_loadu_pd(t), _mm256_loadu_pd(t + 4),
                                         _mm256_loadu_pd(t + 8), _mm256_loadu_pd(t + 12));
        const __m256i rare = _mm256_cmpgt_epi32(code, rare_above);
        if (!_mm256_testz_si256(rare, rare)) {
            for (int k = 8; k-- > 0;) {
                theta[(slot + (uint64_t)k) & mask] = lo;
                lo = pfi_step(ev[k].code, 1, n, s, lo);
            }
            continue;
        }
        __m256i d = _mm256_sub_epi32(_mm256_cmpgt_epi32(code, no_slot),
                                     _mm256_cmpeq_epi32(code, h_code));
        __m256i l = one, u = top;
        QT_LN_SCAN_ROUND(up1, 0x80);
        QT_LN_SCAN_ROUND(up2, 0xC0);
        QT_LN_SCAN_ROUND(up4, 0xF0);
        const __m256i x = _mm256_set1_epi32(lo);
        const __m256i y = _mm256_min_epi32(_mm256_max_epi32(_mm256_add_epi32(x, d), l), u);
        const __m256i stored = _mm256_blend_epi32(_mm256_permutevar8x32_epi32(y, up1), x, 0x80);
        if (ev == copy) {
            int32_t values[8];
            _mm256_storeu_si256((__m256i *)(void *)values, stored);
            for (int k = 0; k < 8; k++) {
                theta[(slot + (uint64_t)k) & mask] = values[k];
            }
        } else {
            _mm256_storeu_si256((__m256i *)(void *)(theta + slot), stored);
        }
        lo = _mm_cvtsi128_si32(_mm256_castsi256_si128(y));
    }
    refill_exact(buf, mask, theta, start, e, lo, 1, n, s, 1);
}
#undef QT_LN_SCAN_ROUND
#endif

/* Make theta_j exact for the next events (from the class's theta_end on, or from the
 * ring's head if that is later: a run far from full decides without thresholds),
 * writing theta_j(m + 1) into the ring's theta[m] at each arrival m of the 0-based class
 * j >= 1 (at every event with two classes: the entries at the other events are read and
 * masked off); -1 when out of memory. */
static int pfi_refill(qt_ln_run *r, int32_t j) {
    const int64_t n = r->p.servers;
    const int32_t s = (int32_t)r->pfi_target;
    struct qt_ln_pfi_class *c = &r->pfi[j];
    const uint64_t start = c->theta_end > r->head ? c->theta_end : r->head;
    for (;;) {
        int64_t span = c->theta_span;
        if (buffer_ensure(r, start + (uint64_t)span - 1) < 0) {
            return -1;
        }
        const qt_ln_event *buf = r->buf;
        const uint64_t mask = r->mask;
        int32_t lo = 1, hi = s, *theta = r->theta;
        int64_t met = span; /* lo and hi bound theta(start + met), which is unknown at span */
        while (lo < hi && met > 0) { /* the two envelopes until they meet */
            met--;
            const int32_t code = buf[(start + (uint64_t)met) & mask].code;
            lo = pfi_step(code, j, n, s, lo);
            hi = pfi_step(code, j, n, s, hi);
        }
        if (lo == hi && met > span / 2) { /* lo = theta(start + met) exactly */
            if (r->p.classes == 2) {
#if defined(QT_LN_AVX2)
                if (r->isa >= QT_LN_ISA_AVX2) {
                    refill_exact2_avx2(buf, mask, theta, start, start + (uint64_t)met, lo, n, s);
                } else
#endif
                    refill_exact(buf, mask, theta, start, start + (uint64_t)met, lo, 1, n, s, 1);
            } else {
                refill_exact(buf, mask, theta, start, start + (uint64_t)met, lo, j, n, s, 0);
            }
            c->theta_end = start + (uint64_t)met;
            if (met < span - span / 8 && span < ((int64_t)1 << 40)) {
                c->theta_span = 2 * span; /* more than 1/8 wasted: longer refills */
            }
            return 0;
        }
        if (span >= ((int64_t)1 << 40)) {
            return -1; /* QT_LN_MAX_ALLOC would refuse the buffer anyway */
        }
        c->theta_span = 2 * span;
    }
}

/* Account the resolved walks at the front of the ring, in arrival order. */
static void walk_flush(qt_ln_run *r) {
    const struct qt_ln_walk *walks = r->walks;
    const uint64_t walk_mask = r->walk_mask, tail = r->walk_tail;
    uint64_t head = r->walk_head;
    int64_t events = r->st.lookahead_events;
    double time = r->st.lookahead_time;
    for (; head < tail && walks[head & walk_mask].end != QT_LN_NONE; head++) {
        const struct qt_ln_walk *w = &walks[head & walk_mask];
        events += (int64_t)(w->end + 1 - w->start);
        time += w->t_end - w->t;
    }
    r->walk_head = head;
    r->st.lookahead_events = events;
    r->st.lookahead_time = time;
}

/* Make room in the ring of walks for `more` records; -1 when out of memory. */
static int walk_reserve(qt_ln_run *r, uint64_t more) {
    uint64_t cap = r->walk_mask + 1;
    while (r->walk_tail - r->walk_head + more > cap) {
        cap *= 2;
    }
    if (cap == r->walk_mask + 1) {
        return 0;
    }
    struct qt_ln_walk *bigger =
        cap > INT64_MAX ? NULL : new_array((int64_t)cap, 1, sizeof *bigger, 0);
    if (bigger == NULL) {
        return -1;
    }
    for (uint64_t i = r->walk_head; i < r->walk_tail; i++) {
        bigger[i & (cap - 1)] = r->walks[i & r->walk_mask];
    }
    free(r->walks);
    r->walks = bigger;
    r->walk_mask = cap - 1;
    return 0;
}

/* Append the walks of the list from `head` to `tail` to the group in first/last[slot]. */
QT_INLINE void walk_join(qt_ln_run *r, uint64_t *first, uint64_t *last, uint64_t slot,
                         uint64_t head, uint64_t tail) {
    if (first[slot] == QT_LN_NONE) {
        first[slot] = head;
    } else {
        r->walks[last[slot] & r->walk_mask].next = head;
    }
    last[slot] = tail;
}

/* Mark every walk of the list from `first` resolved at event `end` (time t); their
 * count. */
static int64_t walk_resolve(qt_ln_run *r, uint64_t first, uint64_t end, double t) {
    int64_t count = 0;
    for (uint64_t w = first; w != QT_LN_NONE; w = r->walks[w & r->walk_mask].next) {
        r->walks[w & r->walk_mask].end = end;
        r->walks[w & r->walk_mask].t_end = t;
        count++;
    }
    return count;
}

/* A departure of slot N - q with q < s lifts only the walks below q: after the shift
 * has moved every h up, the resolutions of h = q..s-1 are their own again, one slot up
 * (walk_back).  Rare (probability (s - 1) / N an event): out of line. */
static __attribute__((noinline)) void walk_back_lift(int32_t *tau, uint32_t tau_mask,
                                                    uint32_t shift, int64_t q, int64_t s) {
    for (uint32_t h = (uint32_t)s - 1; h >= (uint32_t)q; h--) {
        tau[(h + shift) & tau_mask] = tau[(h - 1 + shift) & tau_mask];
    }
}

/*
 * The walks of 0-based class j >= 1 over the events [a, b) of the ring, backward:
 * tau[(h + shift) & tau_mask] is, once the events from m on are applied, the offset
 * from a of the event resolving a walk at h just before event m (in 1..s-1), or
 * -1 - h' if the walk is still pending, at h', at b.  One step back over event m: a
 * better arrival moves every h down (shift - 1) and resolves h = 1 at m; a departure of
 * slot c <= N - s moves every h up (shift + 1) and resolves h = s - 1 at m; any other
 * event changes nothing (its write goes to the unused slot of h = 0); a departure of
 * slot c > N - s moves up only h < N - c (walk_back_lift).  Where keys[i] (i in [a, b))
 * is the walk of an arrival of class j at h, it becomes the walk's resolution at i + 1,
 * where its future starts.  With two classes the keys are h for every L arrival (a
 * walk's or not: the others read any slot, and walk_pass ignores them), or 0, which
 * reads the unused slot; with more the key of a walk of class j is (j << 16) + h, and every
 * other key is left as it is, so that the passes of the classes share the keys.  No
 * branch but the rare departure's; the shift is kept modulo 2^32 (only its residue
 * modulo tau_mask + 1 is used).  Returns the final shift.
 */
QT_INLINE uint32_t walk_back(const qt_ln_event *buf, uint64_t mask, int32_t *keys,
                             int32_t *tau, uint32_t tau_mask, uint64_t a, uint64_t b,
                             const int32_t classes, int32_t j, int64_t n, int64_t s) {
    for (int32_t h = 1; h < s; h++) {
        tau[h] = -1 - h;
    }
    const int32_t tag = j << 16, rare = (int32_t)(n - s); /* rare departures: code > rare */
    const uint32_t top = (uint32_t)s - 1;
    uint32_t shift = 0;
    for (uint64_t i = b; i-- > a;) {
        const uint64_t e = i & mask;
        const int32_t key = keys[e];
        if (classes == 2) { /* keys are h, 0 for other than L arrivals (the unused slot) */
            keys[e] = tau[((uint32_t)key + shift) & tau_mask];
        } else {
            const uint32_t h = (uint32_t)(key - tag);
            const int32_t mine = -(int32_t)(h - 1 < top); /* all ones for a walk of class j */
            const int32_t v = tau[((h & (uint32_t)mine) + shift) & tau_mask];
            keys[e] = key ^ ((key ^ v) & mine);
        }
        const int32_t code = buf[e].code;
        if (__builtin_expect(code > rare, 0)) {
            shift++;
            walk_back_lift(tau, tau_mask, shift, n - code, s);
        } else {
            const uint32_t better = (uint32_t)(-1 - code) < (uint32_t)j;
            const uint32_t departure = ~(uint32_t)code >> 31;
            shift += departure - better;
            tau[(better + (top & -departure) + shift) & tau_mask] = (int32_t)(i - a);
        }
    }
    return shift;
}

/* The first index in [lo, hi) whose event is after time `bound` (hi if none): the times
 * of the ring do not decrease. */
static uint64_t first_after(const qt_ln_run *r, uint64_t lo, uint64_t hi, double bound) {
    while (lo < hi) {
        const uint64_t mid = lo + (hi - lo) / 2;
        if (buffer_at(r, mid)->t > bound) {
            hi = mid;
        } else {
            lo = mid + 1;
        }
    }
    return lo;
}

/* One key of walk_list at offset i - a: the entry is written whatever the key (no
 * branch) and kept (count + 1) only for a walk.  With two classes the forward loop keys
 * every L arrival with its h (every other event with 0), and the walks are those in the
 * window with h in 1..s-1; with more it keys only the walks. */
QT_INLINE uint32_t walk_list_one(const int32_t *keys, uint64_t mask, uint64_t a, uint64_t i,
                                 const int32_t classes, int64_t s, uint32_t *list,
                                 uint32_t count, uint32_t *started) {
    const int32_t key = keys[i & mask];
    const int walk = classes == 2 ? (uint32_t)(key - 1) < (uint32_t)(s - 1) : key != 0;
    list[count] = (uint32_t)(i - a) | ((uint32_t)key >> 16 << 16);
    *started |= classes == 2 ? (uint32_t)walk << 1 : 1u << ((uint32_t)key >> 16);
    return count + (uint32_t)walk;
}

/* The walks started in the events [from, b) of the ring (from >= a: the window's) in
 * order, as the entries (offset from a) | (class << 16) of list[0 .. count), and in
 * *started bit j for a walk of class j (bit 0 may be set too); returns count. */
static uint32_t walk_list(const int32_t *keys, uint64_t mask, uint64_t a, uint64_t from,
                          uint64_t b, const int32_t classes, int64_t s, uint32_t *list,
                          uint32_t *started) {
    uint32_t count = 0;
    for (uint64_t i = from; i < b; i++) {
        count = walk_list_one(keys, mask, a, i, classes, s, list, count, started);
    }
    return count;
}

#if defined(QT_LN_AVX2)
/* walk_list sixteen keys at a time with AVX-512 (a compress of the walks' entries and
 * its popcount), one at a time where sixteen would wrap around the ring or pass b: the
 * same list, count and bits (the store of sixteen entries at count <= i - a stays below
 * b - a, inside the list). */
__attribute__((target("avx2,avx512f,popcnt"))) static uint32_t walk_list_avx512(
    const int32_t *keys, uint64_t mask, uint64_t a, uint64_t from, uint64_t b,
    const int32_t classes, int64_t s, uint32_t *list, uint32_t *started) {
    const __m512i lanes = _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
    const __m512i high = _mm512_set1_epi32((int32_t)0xFFFF0000), one = _mm512_set1_epi32(1);
    __m512i bits = _mm512_setzero_si512();
    const __m512i top = _mm512_set1_epi32((int32_t)s - 1);
    uint32_t count = 0;
    for (uint64_t i = from; i < b;) {
        const uint64_t slot = i & mask;
        if (b - i < 16 || slot + 16 > mask + 1) {
            count = walk_list_one(keys, mask, a, i, classes, s, list, count, started);
            i++;
            continue;
        }
        const __m512i key = _mm512_loadu_si512(keys + slot);
        const __mmask16 walk = classes == 2
                                   ? _mm512_cmplt_epu32_mask(_mm512_sub_epi32(key, one), top)
                                   : _mm512_test_epi32_mask(key, key);
        const __m512i offset = _mm512_add_epi32(lanes, _mm512_set1_epi32((int32_t)(i - a)));
        const __m512i entry = _mm512_or_si512(offset, _mm512_and_si512(key, high));
        _mm512_storeu_si512(list + count, _mm512_maskz_compress_epi32(walk, entry));
        count += (uint32_t)_mm_popcnt_u32(walk);
        bits = _mm512_or_si512(bits, _mm512_sllv_epi32(one, _mm512_srli_epi32(key, 16)));
        i += 16;
    }
    /* two classes: bit 1 iff any walk (as walk_list_one sets it) */
    *started |= classes == 2 ? (uint32_t)(count > 0) << 1
                             : (uint32_t)_mm512_reduce_or_epi32(bits);
    return count;
}
#endif

/*
 * The look-ahead statistics of the walks started in the events [a, b) of the ring (the
 * forward loop's keys there, b - a <= walk_chunk) and of the walks pending at a:
 * the walks of [a, b) are listed (offset from a, and class above bit 16; with two
 * classes from the window's first event on, see walk_list_one), one backward
 * pass of each class with walks (walk_back) resolves those that end before b, the
 * pending groups at a follow the pass's resolutions at a, the walks of [a, b) are
 * recorded in arrival order (the unresolved ones joining the groups at b), and
 * walk_flush sums the resolved ones at the front (the sums of the scan, bit for bit).
 * -1 when out of memory.
 */
QT_INLINE int walk_pass(qt_ln_run *r, const int32_t classes, uint64_t a, uint64_t b) {
    const int64_t n = r->p.servers, s = r->pfi_target;
    const uint64_t mask = r->mask;
    const uint32_t tau_mask = (uint32_t)r->slot_mask;
    const qt_ln_event *buf = r->buf;
    int32_t *keys = r->theta;
    uint32_t *list = r->walk_list, started = 0; /* bit j: a walk of class j */
    /* with two classes the forward loop keys every L arrival: the walks start in the window */
    const uint64_t from = classes == 2 ? first_after(r, a, b, r->p.warmup) : a;
#if defined(QT_LN_AVX2)
    const uint32_t count =
        r->isa >= QT_LN_ISA_AVX512
            ? walk_list_avx512(keys, mask, a, from, b, classes, s, list, &started)
            : walk_list(keys, mask, a, from, b, classes, s, list, &started);
#else
    const uint32_t count = walk_list(keys, mask, a, from, b, classes, s, list, &started);
#endif
    if (walk_reserve(r, count) < 0) {
        return -1;
    }
    for (int32_t j = 1; j < classes; j++) {
        struct qt_ln_pfi_class *c = &r->pfi[j];
        if (!(started >> j & 1) && c->pending == 0) {
            continue;
        }
        const uint32_t shift = walk_back(buf, mask, keys, c->tau, tau_mask, a, b, classes, j, n, s);
        for (int64_t h = 1; c->pending > 0 && h < s; h++) { /* the groups pending at a */
            const uint64_t w = c->first[h];
            if (w == QT_LN_NONE) {
                continue;
            }
            const int32_t v = c->tau[((uint32_t)h + shift) & tau_mask];
            if (v >= 0) {
                c->pending -= walk_resolve(r, w, a + (uint64_t)v, buf[(a + (uint64_t)v) & mask].t);
            } else {
                walk_join(r, c->next_first, c->next_last, (uint64_t)(-1 - v), w, c->last[h]);
            }
            c->first[h] = QT_LN_NONE;
        }
    }
    struct qt_ln_walk *walks = r->walks; /* the walks started in [a, b), in order */
    const uint64_t walk_mask = r->walk_mask;
    for (uint32_t k = 0; k < count; k++) {
        const uint64_t i = a + (list[k] & 0xFFFF), id = r->walk_tail + k;
        struct qt_ln_walk *w = &walks[id & walk_mask];
        const int32_t v = keys[i & mask];
        w->t = buf[i & mask].t;
        w->start = i + 1;
        if (v >= 0) {
            w->end = a + (uint64_t)v;
            w->t_end = buf[w->end & mask].t;
        } else {
            struct qt_ln_pfi_class *c = &r->pfi[classes == 2 ? 1 : list[k] >> 16];
            w->end = QT_LN_NONE;
            w->next = QT_LN_NONE;
            walk_join(r, c->next_first, c->next_last, (uint64_t)(-1 - v), id, id);
            c->pending++;
        }
    }
    r->walk_tail += count;
    for (int32_t j = 1; j < classes; j++) { /* the groups at b are the next pass's */
        struct qt_ln_pfi_class *c = &r->pfi[j];
        uint64_t *first_at_a = c->first, *last_at_a = c->last;
        c->first = c->next_first;
        c->last = c->next_last;
        c->next_first = first_at_a;
        c->next_last = last_at_a;
    }
    walk_flush(r);
    return 0;
}

/* At the end of a PFI run (every event before `index` through walk_pass): follow the
 * pending groups forward from event `index` past the horizon (the scan's infinite
 * lookahead), drawing only the events they read, and account them; -1 when out of
 * memory.  The groups move as in walk_back, forward: in slot coordinates h - shift
 * (shift 0 at `index`), a better arrival (shift - 1) or a departure of slot c <= N - s
 * (shift + 1) moves every group and resolves the one reaching 0 or s; a departure of
 * slot c > N - s lifts only the groups below q = N - c, so the groups at q..s-1 move
 * down one slot (the one from q joining the one lifted from q - 1). */
static int walk_finish(qt_ln_run *r, uint64_t index) {
    const int64_t n = r->p.servers, s = r->pfi_target;
    const uint64_t slot_mask = r->slot_mask;
    int64_t pending = 0, shifts[QT_LN_MAX_CLASSES] = {0};
    for (int32_t j = 1; j < r->p.classes; j++) {
        pending += r->pfi[j].pending;
    }
    for (uint64_t m = index; pending > 0; m++) {
        if (buffer_ensure(r, m) < 0) {
            return -1;
        }
        const qt_ln_event ev = *buffer_at(r, m);
        const int64_t q = n - ev.code; /* a departure lifts the walks at h < q */
        pending = 0;
        for (int32_t j = 1; j < r->p.classes; j++) {
            struct qt_ln_pfi_class *c = &r->pfi[j];
            const int better = is_better(ev.code, j), departure = ev.code >= 0;
            const int64_t shift = shifts[j] += departure - better;
            if (departure && q < s) {
                for (int64_t h = q; h < s; h++) {
                    const uint64_t from = (uint64_t)(h - shift + 1) & slot_mask;
                    if (c->first[from] != QT_LN_NONE) {
                        walk_join(r, c->first, c->last, (uint64_t)(h - shift) & slot_mask,
                                  c->first[from], c->last[from]);
                        c->first[from] = QT_LN_NONE;
                    }
                }
            } else if (better || departure) {
                const uint64_t slot = (uint64_t)((better ? 0 : s) - shift) & slot_mask;
                if (c->first[slot] != QT_LN_NONE) {
                    c->pending -= walk_resolve(r, c->first[slot], m, ev.t);
                    c->first[slot] = QT_LN_NONE;
                }
            }
            pending += c->pending;
        }
    }
    walk_flush(r);
    return 0;
}

/* SSS(W) decision for an arrival of 0-based class j >= 1 at time t to `idle` idle
 * servers (its future starts at r->head): 1 admit, 0 reject, -1 out of memory; *scanned
 * receives the number of future events examined.  `classes` is the run's (a constant
 * where the caller passes one).  The window end moves over the ring's events on locals
 * and draws (buffer_ensure, the same requests as one event at a time) only when it
 * reaches the ring's tail; the scan stays below the window end, inside the ring. */
QT_INLINE int decide_sss(qt_ln_run *r, const int32_t classes, int32_t j, double t, int64_t idle,
                         uint64_t *scanned) {
    const int64_t n = r->p.servers;
    const uint64_t stride = (uint64_t)(classes - 1);
    int64_t h = idle - 1;
    *scanned = 0;
    if (h < 1) {
        return 0;
    }
    /* Advance the window end to the first event after t + W. */
    const double end = t + r->p.window;
    uint64_t window_end = r->window_end < r->head ? r->head : r->window_end;
    for (;;) {
        if (window_end >= r->tail && buffer_ensure(r, window_end) < 0) {
            r->window_end = window_end;
            return -1;
        }
        const qt_ln_event *buf = r->buf;
        const uint64_t mask = r->mask, tail = r->tail;
        /* Eight events at a time while the ring holds them: the times do not decrease,
         * so the number of them at or before t + W is the window end's move, and the
         * loop ends (without a branch per event) when it is below eight. */
        while (window_end + 8 <= tail) {
            uint64_t move = 0;
            for (int k = 0; k < 8; k++) {
                move += !(buf[(window_end + (uint64_t)k) & mask].t > end);
            }
            window_end += move;
            if (move < 8) {
                break;
            }
        }
        while (window_end < tail && !(buf[window_end & mask].t > end)) {
            window_end++;
        }
        if (window_end < tail) {
            break;
        }
    }
    r->window_end = window_end;
    const qt_ln_event *buf = r->buf;
    const uint64_t mask = r->mask;
    /* better arrivals (classes 1..j) before an index: better[index, j - 1] */
    const uint32_t *better = r->better + (uint64_t)(j - 1);
    const uint32_t better_at_end = better[(window_end & mask) * stride];
    const uint64_t start = r->head;
    uint64_t m = start;
    /* better arrivals left in [m, window_end): they alone can lower h (kept along the
     * scan; uint32 like the prefix counts, exact below 2^32) */
    uint32_t left = better_at_end - better[(m & mask) * stride];
    int decision;
    for (;;) {
        /* Two classes, long windows: whole blocks at once while every departure in them
         * ends a service, h stays >= 1 and h - (H arrivals left) stays <= 0 to the block's
         * end.
         * That difference never decreases (an H arrival lowers both, a departure that
         * ends a service raises h), so the checks below would not stop inside the
         * block: the scan and its count are those of one event at a time. */
        if (r->blocks != NULL) {
            const struct qt_ln_block *blocks = r->blocks;
            const uint64_t block_mask = mask / QT_LN_BLOCK;
            while (m % QT_LN_BLOCK == 0 && m + QT_LN_BLOCK <= window_end) {
                const struct qt_ln_block block = blocks[(m / QT_LN_BLOCK) & block_mask];
                const uint32_t after = better_at_end - better[((m + QT_LN_BLOCK) & mask) * stride];
                if (!(block.key < n - h && h + block.low >= 1 && h + block.sum <= (int64_t)after)) {
                    break;
                }
                h += block.sum;
                m += QT_LN_BLOCK;
                left = after;
            }
        }
        if ((uint64_t)h > left) {
            decision = 1;
            break;
        }
        /* m < window_end here: at least one better arrival is left in the window */
        const int32_t code = buf[m & mask].code;
        const int is_b = is_better(code, j);
        m++;
        h += ((code >= 0) & (code < n - h)) - is_b;
        left -= (uint32_t)is_b;
        if (h == 0) {
            decision = 0;
            break;
        }
    }
    *scanned = m - start;
    return decision;
}

/* The state a batch keeps in locals (head, busy count, event count, idle area, tallies),
 * written back to the run around every call that reads it there, and its tallies (of
 * this call, a local array that no store through r can alias) added to the run's, with
 * the scored arrivals (classes 2..n, rows 1..n-1, in the window) they count. */
#define QT_LN_SYNC()                                                                          \
    do {                                                                                      \
        r->head = head;                                                                       \
        r->busy = busy;                                                                       \
        r->st.events = events;                                                                \
        r->st.idle_area = idle_area;                                                          \
        r->stat_t = stat_t;                                                                   \
    } while (0)
#define QT_LN_TALLIES()                                                                       \
    do {                                                                                      \
        for (int32_t row = 0; row < classes; row++) {                                         \
            for (int32_t k = 0; k < 4; k++) {                                                 \
                r->tally[QT_LN_TALLY(row, 0, 0) + k] += tally[QT_LN_TALLY(row, 0, 0) + k];    \
            }                                                                                 \
            r->st.arrivals_scored +=                                                          \
                row > 0 ? tally[QT_LN_TALLY(row, 0, 1)] + tally[QT_LN_TALLY(row, 1, 1)] : 0;  \
        }                                                                                     \
    } while (0)

/* The threshold moving_limit_batch reads where no arrival needs one (see there). */
static const int32_t qt_ln_theta_one = 1;

/*
 * SSS deciding only, two classes
 * ------------------------------
 * The scan of an L arrival at event m with h = I - 1 follows h over the window's events
 * [m + 1, e) (e the first index past t_m + W): an H arrival steps down, a departure of
 * slot c up iff c < N - h, and the arrival is rejected iff h reaches 0.  Each step is
 * PFI's, nondecreasing in h and moving it by at most 1, so the outcome is monotone in h:
 * admit iff h >= theta(m), the least admitted h (at most the window's H arrivals B + 1,
 * which no H arrival can bring to 0).  While every departure steps up, h at index i is
 * h + S_i - S_{m+1}, with S the prefix sum of (departures - H arrivals), so
 *     theta(m) = 1 + S_{m+1} - min{S_i : m + 1 <= i <= e}.
 * Every departure the scan reads steps up when the window has at most K H arrivals and
 * no departure of slot N - K or more: the scan admits as soon as h exceeds the H
 * arrivals left, so h <= B <= K < N - c while it runs.  Otherwise (rare: mu W K such
 * departures are expected in a window) theta comes from the window's events read
 * backward (sss_theta_exact).  The minima over the windows come from a sparse table over
 * the refill's span (the least of two overlapping power-of-two blocks).  Then SSS is
 * trunk reservation with a moving limit, the loop of PFI deciding only (moving_limit_batch).
 */

/* The least h >= 1 whose walk over the events [a, e) of the ring never reaches 0, by
 * the recursion backward from theta = 1 at e: an H arrival needs one more (x + 1), a
 * departure of slot c one less where h = x - 1 >= 1 steps up (x - 1 if x >= 2 and
 * c <= N - x, PFI's g_c), any other event the same. */
static __attribute__((noinline)) int64_t sss_theta_exact(const qt_ln_run *r, uint64_t a,
                                                          uint64_t e) {
    const int64_t n = r->p.servers;
    int64_t x = 1;
    for (uint64_t i = e; i-- > a;) {
        const int32_t code = buffer_at(r, i)->code;
        x += (code == QT_LN_H) - ((code >= 0) & (x >= 2) & (x <= n - code));
    }
    return x;
}

/* The refill's counts before an index: the H arrivals plus QT_LN_SSS_RARE times the
 * departures of a slot at least N - K, modulo 2^32, so that the difference over a window
 * of the table (fewer than 2^(QT_LN_SSS_LEVELS + 1) = 4096 events) exceeds K exactly when
 * it is read backward (sss_theta_exact): the difference is then below 2^32, and K is
 * below 2^16 (at most 1024 expected H arrivals plus four sd plus 5). */
#define QT_LN_SSS_RARE ((uint32_t)1 << 16)

/* The refill's first pass over the events [start, start + total) of the ring, each
 * relative to start: the times, S before each event (table, level 0 of the sparse
 * table), the counts before each event and the L arrivals below `span` (arrivals[]
 * takes up to eight entries past them); returns how many L arrivals. */
struct qt_ln_first_pass {
    const qt_ln_event *buf;
    uint64_t mask, start;
    int64_t total, span, n, rare;
    double *times;
    int32_t *table, *arrivals;
    uint32_t *counts;
};
typedef int64_t qt_ln_first(const struct qt_ln_first_pass *f);

/* The first pass's event x, after x events made the sums `sum` and `count` and listed
 * `n_arrivals` L arrivals. */
QT_INLINE void sss_first_event(const struct qt_ln_first_pass *f, int64_t x, int32_t *sum,
                               uint32_t *count, int64_t *n_arrivals) {
    const qt_ln_event ev = f->buf[(f->start + (uint64_t)x) & f->mask];
    f->times[x] = ev.t;
    f->table[x] = *sum;
    f->counts[x] = *count;
    f->arrivals[*n_arrivals] = (int32_t)x;
    *n_arrivals += (ev.code == QT_LN_L) & (x < f->span);
    *sum += (ev.code >= 0) - (ev.code == QT_LN_H);
    *count += (uint32_t)(ev.code == QT_LN_H) +
              ((ev.code >= 0) & (ev.code >= f->n - f->rare) ? QT_LN_SSS_RARE : 0);
}

static int64_t sss_first(const struct qt_ln_first_pass *f) {
    int32_t sum = 0;
    uint32_t count = 0;
    int64_t n_arrivals = 0;
    for (int64_t x = 0; x < f->total; x++) {
        sss_first_event(f, x, &sum, &count, &n_arrivals);
    }
    return n_arrivals;
}

#if defined(QT_LN_AVX2)
/* Bytes b0..b3 of entry m: the lanes of the set bits of the 4-bit mask m, in order (the
 * rest 0), for packing four lanes with a permute. */
static const uint32_t qt_ln_pack4[16] = {
    0x00000000, 0x00000000, 0x00000001, 0x00000100, 0x00000002, 0x00000200,
    0x00000201, 0x00020100, 0x00000003, 0x00000300, 0x00000301, 0x00030100,
    0x00000302, 0x00030200, 0x00030201, 0x03020100,
};

/* Append the lanes of `lanes` whose bit of the 4-bit mask `bits` is set to list[*n..]
 * (four entries written). */
__attribute__((target("avx2"))) QT_INLINE void sss_pack4(int32_t *list, int64_t *n,
                                                        __m128i lanes, int bits) {
    const __m128i ctrl = _mm_cvtepu8_epi32(_mm_cvtsi32_si128((int)qt_ln_pack4[bits]));
    const __m128 packed = _mm_permutevar_ps(_mm_castsi128_ps(lanes), ctrl);
    _mm_storeu_si128((__m128i *)(void *)(list + *n), _mm_castps_si128(packed));
    *n += __builtin_popcount((unsigned)bits);
}

/* The inclusive prefix sums of the eight 32-bit lanes of v: within each half, then the
 * low half's total carried into the high half. */
__attribute__((target("avx2"))) QT_INLINE __m256i sss_prefix8(__m256i v) {
    v = _mm256_add_epi32(v, _mm256_slli_si256(v, 4));
    v = _mm256_add_epi32(v, _mm256_slli_si256(v, 8));
    const __m256i low_total = _mm256_permutevar8x32_epi32(v, _mm256_set1_epi32(3));
    return _mm256_add_epi32(v, _mm256_blend_epi32(_mm256_setzero_si256(), low_total, 0xF0));
}

/*
 * sss_first eight events at a time with AVX2 (the same arrays): the eight events, four
 * 32-byte loads, are split into their times (unpacklo, lane order restored by a permute)
 * and codes (unpackhi, then the code of each 16-byte event picked and ordered); S and
 * the counts before each event are prefix sums within the eight plus the sums before
 * them; the L arrivals are packed four lanes at a time (qt_ln_pack4).  Eight events that
 * wrap around the ring are copied out first; the last total mod 8 go one at a time.
 */
__attribute__((target("avx2"))) static int64_t sss_first_avx2(const struct qt_ln_first_pass *f) {
    const __m256i h = _mm256_set1_epi32(QT_LN_H), l = _mm256_set1_epi32(QT_LN_L);
    const __m256i lane = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7), last = _mm256_set1_epi32(7);
    const __m256i span = _mm256_set1_epi32((int32_t)f->span);
    /* a departure is rare iff its slot >= N - K, i.e. > max(N - K, 0) - 1 */
    const __m256i rare_above =
        _mm256_set1_epi32((int32_t)((f->n - f->rare > 0 ? f->n - f->rare : 0) - 1));
    const __m256i rare_term = _mm256_set1_epi32((int32_t)QT_LN_SSS_RARE);
    __m256i sum = _mm256_setzero_si256(), count = sum; /* broadcast */
    int64_t n_arrivals = 0, x = 0;
    for (; x + 8 <= f->total; x += 8) {
        qt_ln_event copy[8];
        const qt_ln_event *ev = ring8(f->buf, f->mask, (f->start + (uint64_t)x) & f->mask, copy);
        const double *d = &ev->t;
        const __m256d e0 = _mm256_loadu_pd(d), e1 = _mm256_loadu_pd(d + 4),
                      e2 = _mm256_loadu_pd(d + 8), e3 = _mm256_loadu_pd(d + 12);
        _mm256_storeu_pd(f->times + x, _mm256_permute4x64_pd(_mm256_unpacklo_pd(e0, e1), 0xD8));
        _mm256_storeu_pd(f->times + x + 4,
                         _mm256_permute4x64_pd(_mm256_unpacklo_pd(e2, e3), 0xD8));
        const __m256i code = codes8_avx2(e0, e1, e2, e3);
        const __m256i is_h = _mm256_cmpeq_epi32(code, h),
                      is_dep = _mm256_cmpgt_epi32(code, _mm256_set1_epi32(-1));
        const __m256i is_rare = _mm256_and_si256(is_dep, _mm256_cmpgt_epi32(code, rare_above));
        /* S and the counts before each event: the sums before the eight plus the prefix
         * sums within them of the steps (departure +1, H arrival -1) and of the counts' terms
         * (1 for an H arrival, QT_LN_SSS_RARE for a rare departure) */
        const __m256i step = _mm256_sub_epi32(is_h, is_dep), s = sss_prefix8(step);
        const __m256i term = _mm256_or_si256(_mm256_and_si256(is_h, _mm256_set1_epi32(1)),
                                             _mm256_and_si256(is_rare, rare_term));
        const __m256i c = sss_prefix8(term);
        _mm256_storeu_si256((__m256i *)(void *)(f->table + x),
                            _mm256_add_epi32(sum, _mm256_sub_epi32(s, step)));
        _mm256_storeu_si256((__m256i *)(void *)(f->counts + x),
                            _mm256_add_epi32(count, _mm256_sub_epi32(c, term)));
        sum = _mm256_add_epi32(sum, _mm256_permutevar8x32_epi32(s, last));
        count = _mm256_add_epi32(count, _mm256_permutevar8x32_epi32(c, last));
        /* the L arrivals below span */
        const __m256i index = _mm256_add_epi32(_mm256_set1_epi32((int32_t)x), lane);
        const int bits = _mm256_movemask_ps(_mm256_castsi256_ps(
            _mm256_and_si256(_mm256_cmpeq_epi32(code, l), _mm256_cmpgt_epi32(span, index))));
        sss_pack4(f->arrivals, &n_arrivals, _mm256_castsi256_si128(index), bits & 15);
        sss_pack4(f->arrivals, &n_arrivals, _mm256_extracti128_si256(index, 1), bits >> 4);
    }
    int32_t s = _mm_cvtsi128_si32(_mm256_castsi256_si128(sum));
    uint32_t c = (uint32_t)_mm_cvtsi128_si32(_mm256_castsi256_si128(count));
    for (; x < f->total; x++) {
        sss_first_event(f, x, &s, &c, &n_arrivals);
    }
    return n_arrivals;
}
#endif

/* How many of the eight nondecreasing times t[0..7] are at most `end` (the ones of the
 * comparison are a prefix). */
typedef int64_t qt_ln_count8(const double *t, double end);
QT_INLINE int64_t sss_count8(const double *t, double end) {
#if defined(__SSE2__)
    const __m128d bound = _mm_set1_pd(end);
    const int bits = _mm_movemask_pd(_mm_cmple_pd(_mm_loadu_pd(t), bound)) |
                     _mm_movemask_pd(_mm_cmple_pd(_mm_loadu_pd(t + 2), bound)) << 2 |
                     _mm_movemask_pd(_mm_cmple_pd(_mm_loadu_pd(t + 4), bound)) << 4 |
                     _mm_movemask_pd(_mm_cmple_pd(_mm_loadu_pd(t + 6), bound)) << 6;
    return __builtin_ctz((unsigned)~bits);
#else
    int64_t count = 0;
    for (int k = 0; k < 8; k++) {
        count += !(t[k] > end);
    }
    return count;
#endif
}

#if defined(QT_LN_AVX2)
__attribute__((target("avx2"))) QT_INLINE int64_t sss_count8_avx2(const double *t, double end) {
    const __m256d bound = _mm256_set1_pd(end);
    const int bits =
        _mm256_movemask_pd(_mm256_cmp_pd(_mm256_loadu_pd(t), bound, _CMP_LE_OQ)) |
        _mm256_movemask_pd(_mm256_cmp_pd(_mm256_loadu_pd(t + 4), bound, _CMP_LE_OQ)) << 4;
    return __builtin_ctz((unsigned)~bits);
}
#endif

/* theta[m] = theta(m) of two-class sss at the L arrivals m of the next QT_LN_SSS_SPAN
 * events (from pfi[1].theta_end on, or from the ring's head if that is later; up to
 * the first event past the horizon once it is drawn), with the first pass `first`
 * (sss_first or its AVX2 twin) and `count8` (sss_count8 or its AVX2 or AVX-512 twin),
 * constants where the caller passes them; -1 when out of memory. */
QT_INLINE int sss_refill_with(qt_ln_run *r, qt_ln_first *first, qt_ln_count8 *count8) {
    struct qt_ln_pfi_class *c = &r->pfi[1];
    const uint64_t start = c->theta_end > r->head ? c->theta_end : r->head;
    const int64_t n = r->p.servers, rare = r->sss_rare;
    const int32_t levels = r->sss_levels;
    uint64_t span = QT_LN_SSS_SPAN;
    if (buffer_ensure(r, start + span - 1) < 0) {
        return -1;
    }
    if (buffer_at(r, r->tail - 1)->t > r->p.horizon) { /* no decision past that event */
        const uint64_t past = first_after(r, start, r->tail, r->p.horizon);
        span = past + 1 - start < span ? past + 1 - start : span;
    }
    /* The last arrival's window ends at `stop`, the first event past its time + W; the
     * ring holds seven more, read by the eight-event counts. */
    const double last = buffer_at(r, start + span - 1)->t + r->p.window;
    uint64_t stop = start + span;
    for (;; stop++) {
        if (buffer_ensure(r, stop + 7) < 0) {
            return -1;
        }
        if (buffer_at(r, stop)->t > last) {
            break;
        }
    }
    /* Scratch, relative to start: the times and the last time of each block of eight
     * (+inf past the end), the counts, the L arrivals of the span (and eight entries
     * past them that the first pass may write), and the levels 0..levels of the
     * sparse table of S (level k: minima of 2^k entries). */
    const int64_t total = (int64_t)(stop - start) + 8, n_tops = total / 8 + 8;
    const size_t bytes =
        (size_t)(total + n_tops) * sizeof(double) +
        ((size_t)span + 8 + (size_t)total * (size_t)(levels + 2)) * sizeof(int32_t);
    if (grow((void **)&r->sss_scratch, &r->sss_scratch_cap, (int64_t)bytes, 1) < 0) {
        return -1;
    }
    double *times = (double *)(void *)r->sss_scratch, *tops = times + total;
    uint32_t *counts = (uint32_t *)(void *)(tops + n_tops);
    int32_t *arrivals = (int32_t *)(void *)(counts + total), *table = arrivals + span + 8;
    const struct qt_ln_first_pass pass = {r->buf, r->mask, start, total, (int64_t)span, n, rare,
                                           times, table, arrivals, counts};
    const int64_t n_arrivals = first(&pass);
    for (int64_t b = 0; b < n_tops; b++) {
        tops[b] = 8 * b + 7 < total ? times[8 * b + 7] : INFINITY;
    }
    int32_t *level[QT_LN_SSS_LEVELS + 1]; /* level k of the table; level 0 is S */
    level[0] = table;
    for (int32_t k = 1; k <= levels; k++) {
        const int32_t *below = level[k - 1];
        const int64_t half = (int64_t)1 << (k - 1);
        level[k] = table + k * total;
        for (int64_t x = 0; x + 2 * half <= total; x++) {
            level[k][x] = below[x] < below[x + half] ? below[x] : below[x + half];
        }
    }
    const double window = r->p.window;
    int32_t *theta = r->theta;
    const uint64_t mask = r->mask;
    for (int64_t i = 0; i < n_arrivals; i++) {
        const uint64_t x = (uint64_t)arrivals[i], a = x + 1;
        const double end = times[x] + window;
        /* e, the first index past end, without a chain from one arrival to the next:
         * the whole blocks of eight from a's on at or before end, then the events of
         * the next block at or before end (fewer than eight) */
        uint64_t b = a / 8, blocks;
        while ((blocks = (uint64_t)count8(tops + b, end)) == 8) {
            b += 8;
        }
        const uint64_t e = 8 * (b + blocks) + (uint64_t)count8(times + 8 * (b + blocks), end);
        /* the window's S: [a, e], the least of two overlapping blocks of 2^k entries;
         * a window longer than the table's or that may hold a departure not ending a
         * service is read backward */
        const int32_t k = 63 - __builtin_clzll(e - a + 1);
        const uint64_t m = start + x;
        if (__builtin_expect(k > levels || counts[e] - counts[a] > (uint32_t)rare, 0)) {
            theta[m & mask] = (int32_t)sss_theta_exact(r, m + 1, start + e);
        } else {
            const int32_t u = level[k][a], v = level[k][e + 1 - ((uint64_t)1 << k)];
            theta[m & mask] = 1 + table[a] - (u < v ? u : v);
        }
    }
    c->theta_end = start + span;
    return 0;
}

#if defined(QT_LN_AVX2)
/* sss_count8 with AVX-512: one compare of the eight times. */
__attribute__((target("avx2,avx512f"))) QT_INLINE int64_t sss_count8_avx512(const double *t,
                                                                          double end) {
    const __mmask8 le = _mm512_cmp_pd_mask(_mm512_loadu_pd(t), _mm512_set1_pd(end), _CMP_LE_OQ);
    return __builtin_ctz(~(unsigned)le);
}

__attribute__((target("avx2,avx512f"))) static int sss_refill_avx512(qt_ln_run *r) {
    return sss_refill_with(r, sss_first_avx2, sss_count8_avx512);
}

__attribute__((target("avx2"))) static int sss_refill_avx2(qt_ln_run *r) {
    return sss_refill_with(r, sss_first_avx2, sss_count8_avx2);
}
#endif

/* sss_refill_with, compiled as a whole for the run's instruction set (kernel_isa). */
static int sss_refill(qt_ln_run *r) {
#if defined(QT_LN_AVX2)
    switch (r->isa) {
    case QT_LN_ISA_AVX512:
        return sss_refill_avx512(r);
    case QT_LN_ISA_AVX2:
        return sss_refill_avx2(r);
    default:
        break;
    }
#endif
    return sss_refill_with(r, sss_first, sss_count8);
}

/*
 * PFI in the clock model is trunk reservation whose limit for an arrival of class j >= 2
 * moves with the event: admit iff h = I - 1 >= theta_j(m + 1), i.e. busy < N - theta[m]
 * (the ring's threshold), right also for h < 1 and h >= s (as 1 <= theta <= s).  The
 * thresholds are refilled ahead of a batch, which ends where the first class's run out,
 * so the loop over the events has no branch on their type (a coin toss); only an
 * undecided arrival in the window (1 <= h < s) starts a walk, whose look-ahead
 * statistics are the scan's: the loop marks it, and walk_pass follows every
 * walk_chunk events.
 * The events and decisions are those of one event at a time; a walk's future starts at
 * the next event.  `classes` and `stats` (0: no walks, and no look-ahead statistics;
 * about 40% of the run with two classes) are constants where the caller passes them.
 * Two-class sss deciding only runs the same loop on its own thresholds (sss_refill,
 * and never the stretch at theta = 1: its theta may exceed s).
 */
QT_INLINE int moving_limit_batch(qt_ln_run *r, int64_t budget, const int32_t classes,
                                 const int stats, qt_ln_trace *trace) {
    const int64_t n = r->p.servers, s = r->pfi_target;
    const double warmup = r->p.warmup;
    int64_t busy = r->busy, events;
    double idle_area = r->st.idle_area, stat_t = r->stat_t;
    uint64_t head = r->head;
    const uint64_t first = head; /* the events, and the scored ones, are counted at the end */
    int status = 0, last = 0;
    int64_t tally[QT_LN_TALLY(QT_LN_MAX_CLASSES + 1, 0, 0)] = {0};
    while (budget > 0 && status == 0 && !last) {
        uint64_t end = head + (uint64_t)budget;
        r->head = head; /* the ring's first event, for the refills' draws */
        /* The next `far` events find h >= s (the busy count grows by at most one an
         * event): every arrival is admitted and none is undecided, whatever the
         * thresholds, so a long enough such stretch reads theta = 1 instead of refilling
         * them (a run far from full refills nothing; a refill may read as far ahead as
         * the envelopes take to meet, about N events where H arrives at rate mu). */
        const int64_t far = n - s - busy;
        const int32_t *theta = r->theta;
        uint64_t theta_mask = r->mask;
        int refill = 0;
        for (int32_t j = 1; j < classes; j++) {
            refill |= r->pfi[j].theta_end <= head;
        }
        if (refill && far >= QT_LN_FILL && !r->sss_limit) {
            if (buffer_ensure(r, head) < 0) {
                status = -1;
                break;
            }
            end = end < head + (uint64_t)far ? end : head + (uint64_t)far;
            end = end < r->tail ? end : r->tail;
            theta = &qt_ln_theta_one;
            theta_mask = 0;
        } else {
            for (int32_t j = 1; j < classes; j++) { /* theta_end <= tail */
                if (r->pfi[j].theta_end <= head &&
                    (r->sss_limit ? sss_refill(r) : pfi_refill(r, j)) < 0) {
                    status = -1;
                    break;
                }
                end = r->pfi[j].theta_end < end ? r->pfi[j].theta_end : end;
            }
            if (status < 0) {
                break;
            }
            theta = r->theta; /* a refill may have grown the ring */
            theta_mask = r->mask;
        }
        const qt_ln_event *buf = r->buf;
        const int64_t *limit = r->limit;
        const uint64_t mask = r->mask;
        last = buffer_at(r, end - 1)->t > r->p.horizon;
        end = last ? first_after(r, head, end, r->p.horizon) : end;
        budget -= (int64_t)(end - head);
        while (head < end && status == 0) { /* chunks of walk_pass with statistics */
            const uint64_t chunk = (uint64_t)r->walk_chunk;
            const uint64_t from = head, stop = stats && end - head > chunk
                                                    ? head + chunk
                                                    : end;
            int32_t *keys = r->theta;
            for (; head < stop; head++) {
                const qt_ln_event ev = buf[head & mask];
                int in_window = record_idle(ev.t, warmup, n - busy, &idle_area, &stat_t);
                /* classes 2..n (rows 1..n-1) take the moving limit */
                const uint32_t row = event_row(ev.code);
                const int is_scored = row - 1 < (uint32_t)(classes - 1);
                const int64_t h = n - busy - 1, fixed = limit[row];
                /* the moving limit where is_scored, selected without a branch */
                const int64_t moving = n - theta[head & theta_mask] - fixed;
                const int admit = busy < fixed + (moving & -(int64_t)is_scored);
                if (stats) { /* an undecided arrival starts a walk: its key (walk_back) */
                    const int walk =
                        is_scored & in_window & ((uint64_t)(h - 1) < (uint64_t)(s - 1));
                    keys[head & mask] = classes == 2
                                            ? (int32_t)h & -is_scored /* see walk_list_one */
                                            : ((int32_t)h + (int32_t)(row << 16)) & -walk;
                }
                busy += admit - ((int64_t)(uint32_t)ev.code < busy);
                tally[QT_LN_TALLY(row, admit, in_window)]++;
                if (trace != NULL && trace_push(trace, ev.t, ev.code,
                                                (int8_t)(ev.code < 0 ? admit : -1), busy) < 0) {
                    status = -1;
                    break;
                }
            }
            if (stats && status == 0 && walk_pass(r, classes, from, head) < 0) {
                status = -1;
            }
        }
    }
    events = r->st.events + (int64_t)(head - first);
    QT_LN_SYNC();
    QT_LN_TALLIES();
    if (status == 0 && last) {
        if (stats && walk_finish(r, head) < 0) {
            return -1;
        }
        finish(r);
    }
    return status;
}

/*
 * SSS in the clock model: events flow through the lookahead buffer, in batches of the
 * ring whose state lives in locals (QT_LN_SYNC).  `classes` is a constant where the
 * caller passes one (the two-class loop then has no loop over the classes).  The events
 * and decisions are those of one event at a time: head moves past the event before its
 * decision (its future starts there).
 */
QT_INLINE int sss_batch(qt_ln_run *r, int64_t budget, const int32_t classes,
                        qt_ln_trace *trace) {
    const int64_t n = r->p.servers;
    const double warmup = r->p.warmup, horizon = r->p.horizon;
    int64_t busy = r->busy, events = r->st.events, done = 0;
    double idle_area = r->st.idle_area, stat_t = r->stat_t;
    uint64_t head = r->head;
    int status = 0;
    int64_t tally[QT_LN_TALLY(QT_LN_MAX_CLASSES + 1, 0, 0)] = {0};
    while (done < budget) {
        if (head >= r->tail) {
            r->head = head;
            if (buffer_ensure(r, head) < 0) {
                status = -1;
                break;
            }
        }
        const qt_ln_event *buf = r->buf;
        uint64_t mask = r->mask;
        const uint64_t left = (uint64_t)(budget - done);
        const uint64_t end = r->tail - head < left ? r->tail : head + left;
        done += (int64_t)(end - head);
        while (head < end) {
            const qt_ln_event ev = buf[head & mask];
            if (ev.t > horizon) {
                QT_LN_SYNC();
                QT_LN_TALLIES();
                finish(r);
                return 0;
            }
            head++; /* the future now starts at head */
            events++;
            int in_window = record_idle(ev.t, warmup, n - busy, &idle_area, &stat_t);
            int decision;
            if (ev.code < QT_LN_H) { /* classes 2..n */
                int32_t j = -1 - ev.code;
                uint64_t scanned = 0;
                r->head = head;
                decision = decide_sss(r, classes, classes == 2 ? 1 : j, ev.t, n - busy, &scanned);
                if (decision < 0) {
                    status = -1;
                    break;
                }
                buf = r->buf;
                mask = r->mask;
                if (in_window && r->p.lookahead_stats) {
                    r->st.lookahead_events += (int64_t)scanned;
                    if (scanned > 0) {
                        r->st.lookahead_time += buf[(head + scanned - 1) & mask].t - ev.t;
                    }
                }
                busy += decision;
                tally[QT_LN_TALLY(j, decision, in_window)]++;
            } else { /* limit_event, on the local tallies */
                const uint32_t row = event_row(ev.code);
                int admit = busy < r->limit[row];
                busy += admit - ((int64_t)(uint32_t)ev.code < busy);
                tally[QT_LN_TALLY(row, admit, in_window)]++;
                decision = ev.code < 0 ? admit : -1;
            }
            if (trace != NULL && trace_push(trace, ev.t, ev.code, (int8_t)decision, busy) < 0) {
                status = -1;
                break;
            }
        }
        if (status < 0) {
            break;
        }
    }
    QT_LN_SYNC();
    QT_LN_TALLIES();
    return status;
}
#undef QT_LN_TALLIES
#undef QT_LN_SYNC

static int advance_lookahead(qt_ln_run *r, int64_t budget) {
    if (r->p.policy == QT_LN_PFI || r->sss_limit) {
        const int stats = r->p.lookahead_stats;
        if (r->trace != NULL) {
            return moving_limit_batch(r, budget, r->p.classes, stats, r->trace);
        }
        if (!stats) {
            return r->p.classes == 2 ? moving_limit_batch(r, budget, 2, 0, NULL)
                                     : moving_limit_batch(r, budget, r->p.classes, 0, NULL);
        }
        return r->p.classes == 2 ? moving_limit_batch(r, budget, 2, 1, NULL)
                                 : moving_limit_batch(r, budget, r->p.classes, 1, NULL);
    }
    if (r->trace != NULL) {
        return sss_batch(r, budget, r->p.classes, r->trace);
    }
    return r->p.classes == 2 ? sss_batch(r, budget, 2, NULL)
                             : sss_batch(r, budget, r->p.classes, NULL);
}

/* ------------------------------------------------------- job model (binary heap) */

/* Push a completion time, growing the heap if needed; -1 when out of memory. */
static int heap_push(qt_ln_run *r, double value) {
    if (grow((void **)&r->heap, &r->heap_capacity, r->heap_size + 1, sizeof *r->heap) < 0) {
        return -1;
    }
    double *heap = r->heap;
    int64_t i = r->heap_size++;
    while (i > 0) {
        int64_t parent = (i - 1) / 2;
        if (heap[parent] <= value) {
            break;
        }
        heap[i] = heap[parent];
        i = parent;
    }
    heap[i] = value;
    return 0;
}

static void heap_pop(qt_ln_run *r) {
    double *heap = r->heap;
    int64_t size = --r->heap_size;
    double value = heap[size];
    int64_t i = 0;
    for (;;) {
        int64_t child = 2 * i + 1;
        if (child >= size) {
            break;
        }
        if (child + 1 < size && heap[child + 1] < heap[child]) {
            child++;
        }
        if (value <= heap[child]) {
            break;
        }
        heap[i] = heap[child];
        i = child;
    }
    if (size > 0) {
        heap[i] = value;
    }
}

static int advance_job(qt_ln_run *r, int64_t budget) {
    for (int64_t i = 0; i < budget; i++) {
        if (r->heap_size > 0 && r->heap[0] <= r->next_t) { /* departure */
            double t = r->heap[0];
            if (t > r->p.horizon) {
                finish(r);
                return 0;
            }
            r->st.events++;
            record_time(r, t);
            heap_pop(r);
            r->busy--;
            if (r->trace != NULL && trace_push(r->trace, t, 0, -1, r->busy) < 0) {
                return -1;
            }
            continue;
        }
        double t = r->next_t;
        if (t > r->p.horizon) {
            finish(r);
            return 0;
        }
        r->st.events++;
        int in_window = record_time(r, t);
        int32_t j = r->next_class;
        int admit = r->busy < r->limit[j];
        if (admit && heap_push(r, t + r->next_service) < 0) {
            return -1;
        }
        count_arrival(r, j, admit, in_window);
        if (r->trace != NULL && trace_push(r->trace, t, -1 - j, (int8_t)admit, r->busy) < 0) {
            return -1;
        }
        draw_next_job(r);
    }
    return 0;
}

int qt_ln_run_advance(qt_ln_run *run, int64_t budget) {
    int status;
    if (run->finished) {
        return 1;
    }
    if (run->job_model) {
        status = advance_job(run, budget);
    } else if (run->p.policy == QT_LN_THRESHOLD) {
        status = advance_threshold(run, budget);
    } else {
        status = advance_lookahead(run, budget);
    }
    return status < 0 ? -1 : run->finished;
}

/* ---------------------------------------------------------------- paths */

void qt_ln_source_init(qt_ln_source *s, bitgen_t *rng, const qt_ln_params *p) {
    qt_ln_clock_init(&s->clock, rng, p);
    s->events = NULL;
    s->size = s->capacity = 0;
}

void qt_ln_source_free(qt_ln_source *s) {
    free(s->events);
    s->events = NULL;
    s->size = s->capacity = 0;
}

/* Draw up to `count` more events into the source, no more than about those expected up
 * to time `stop` (1% and QT_LN_FILL more: a reader stops after the first event past
 * it) and at least QT_LN_FILL; -1 when out of memory. */
static int source_extend(qt_ln_source *s, int64_t count, double stop) {
    double ahead = (stop - s->clock.t) / s->clock.step_scale; /* expected events to stop */
    if (ahead < (double)count) {
        count = ahead > 0.0 ? (int64_t)(1.01 * ahead) + QT_LN_FILL : QT_LN_FILL;
    }
    count = count > QT_LN_FILL ? count : QT_LN_FILL;
    if (grow((void **)&s->events, &s->capacity, s->size + count, sizeof *s->events) < 0) {
        return -1;
    }
    s->size += qt_ln_clock_fill(&s->clock, s->events + s->size, count, INFINITY);
    return 0;
}

/* qt_ln_clock_fill of a replaying clock: the source's events from c->next on, drawn
 * (by the source's own clock) where the source has none yet. */
static int64_t replay_fill(qt_ln_clock *c, qt_ln_event *out, int64_t count, double stop) {
    qt_ln_source *s = c->source;
    int64_t made = 0;
    while (made < count && !(c->t > stop)) {
        if (c->next == s->size && source_extend(s, count - made, stop) < 0) {
            return -1;
        }
        const qt_ln_event *ev = s->events + c->next;
        int64_t room = s->size - c->next < count - made ? s->size - c->next : count - made;
        int64_t i = 0;
        while (i < room) { /* up to and including the first event past `stop` */
            out[made + i] = ev[i];
            if (ev[i++].t > stop) {
                break;
            }
        }
        c->next += i;
        made += i;
        c->t = out[made - 1].t;
    }
    return made;
}

int qt_ln_source_path(qt_ln_source *s, double horizon, const qt_ln_event **events,
                      int64_t *n_events) {
    while (!(s->size > 0 && s->events[s->size - 1].t > horizon)) {
        if (source_extend(s, (int64_t)QT_LN_MAX_EVENTS, horizon) < 0) {
            return -1;
        }
    }
    int64_t lo = 0, hi = s->size - 1; /* the first event past the horizon is in [lo, hi] */
    while (lo < hi) {
        int64_t mid = lo + (hi - lo) / 2;
        if (s->events[mid].t > horizon) {
            hi = mid;
        } else {
            lo = mid + 1;
        }
    }
    *events = s->events;
    *n_events = lo;
    return 0;
}

qt_ln_event *qt_ln_clock_path(const qt_ln_params *p, bitgen_t *rng, int64_t *n_events) {
    qt_ln_clock c;
    qt_ln_clock_init(&c, rng, p);
    qt_ln_event *events = NULL;
    int64_t size = 0, capacity = 0;
    for (;;) { /* blocks up to the first event past the horizon, which is dropped */
        if (grow((void **)&events, &capacity, size + 1, sizeof *events) < 0) {
            free(events);
            return NULL;
        }
        size += qt_ln_clock_fill(&c, events + size, capacity - size, p->horizon);
        if (c.t > p->horizon) {
            size--;
            break;
        }
    }
    *n_events = size;
    return events;
}

qt_ln_job *qt_ln_job_path(const qt_ln_params *p, bitgen_t *rng, int64_t *n_jobs) {
    qt_ln_run r = {0};
    r.p = *p;
    qt_ln_clock_init(&r.clock, rng, p);
    job_init(&r);
    qt_ln_job *jobs = NULL;
    int64_t size = 0, capacity = 0;
    for (;;) {
        draw_next_job(&r);
        if (r.next_t > p->horizon) {
            break;
        }
        if (grow((void **)&jobs, &capacity, size + 1, sizeof *jobs) < 0) {
            free(jobs);
            return NULL;
        }
        jobs[size++] = (qt_ln_job){r.next_t, r.next_service, r.next_class};
    }
    if (jobs == NULL) {
        jobs = new_array(1, 1, sizeof *jobs, 0);
    }
    *n_jobs = size;
    return jobs;
}

/* ---------------------------------------------------------------- offline optimum */

/*
 * The backward programme over (event, busy), for any number of classes: V_i(b) is the
 * best reward from event i on with b busy servers just before it, V_end = 0, and
 *     arrival of reward r:  V_i(b) = max(V_{i+1}(b), r + V_{i+1}(b + 1)) (b < N),
 *                           V_i(N) = V_{i+1}(N);
 *     departure slot c:     V_i(b) = V_{i+1}(b - 1) if c < b, else V_{i+1}(b).
 * The forward pass admits an arrival at b iff b < N and r + V_{i+1}(b + 1) >= V_{i+1}(b)
 * (ties admit).  The full programme costs O(N) per event.
 *
 * Banded programme with a certificate
 * -----------------------------------
 * Write k = N - b for the idle count and delta_i(k) = V_i(N - k) - V_i(N - k + 1), the
 * value of the k-th idle server (0 <= delta <= r_1).  An arrival of reward r at k idle
 * is admitted iff delta_{i+1}(k) <= r.  The band keeps V_i(b) exactly for the K + 1 busy
 * counts b = N - K..N (idle 0..K); outside it the programme only needs the stack
 * S_i = (delta_i(K + 1), delta_i(K + 2), ..., delta_i(N)).  One step back:
 *   - departure slot c >= N - K: inside the band only (the stack is unchanged);
 *   - departure slot c < N - K: V_i(N - K) = V_{i+1}(N - K) + S[0] (the departure
 *     brings N - K busy down to N - K - 1), and the stack loses its top and gains a 0 at
 *     depth N - c - K - 1 (the coupled systems with q = N - c and q - 1 idle meet);
 *   - arrival of reward r, *provided every entry of S_{i+1} is <= r_n* (the last
 *     class's reward, the smallest; r_L for n = 2): the stack shifts one deeper
 *     (delta_i(k) = delta_{i+1}(k - 1) for k >= K + 2: admitting at both k and k - 1
 *     idle), its bottom drops off, and its new top is delta_i(K + 1) = min(r, delta_{i+1}(K)).
 * Certificate: if every value pushed is <= r_n (automatic for a class-n arrival; for
 * the other classes it is the check delta_{i+1}(K) <= r_n on the band's edge), then by
 * induction backward from S_end = 0 every entry of every S_i is <= r_n <= r (pushes are
 * <= r_n, inserted entries are 0).  Hence at every event the optimum admits every arrival at
 * more than K idle servers, the shift rule above is exact, and the band values equal
 * the full programme's.  Only the top of S is ever read, so the band keeps the first
 * `len` entries of S (a ring of capacity cap < N - K) and a flag `deep_zero` saying that
 * the entries below are all 0 (true until a nonzero entry is pushed below the ring).
 * The certificate fails, and the band is abandoned, when an arrival finds
 * min(r, delta_{i+1}(K)) > r_n or when the top of S is needed but unknown (len = 0 and
 * not deep_zero).  qt_ln_offline then doubles K (and cap), and gives up for the full
 * programme once 4 K + 1 >= N (the band would be a sizeable part of it).
 *
 * Equality with the full programme is meant bit for bit, so the band runs only when
 * every number of the programme is an exact float64 (dp_exact): all rewards integer
 * multiples of one power of two g, and (max reward) (events + 1) 2 / g < 2^53.  Every V,
 * r + V and delta is then an integer multiple of g below 2^53 g, every operation of
 * either programme is exact, and both take the same decisions (the forward pass admits
 * outside the band, where delta <= r_n <= r, exactly as the full one does).  Rewards
 * such as 2 and 1 or 1.5 and 1 qualify; others (0.7, say) run the full programme.
 *
 * Both programmes share the code: the full one is the band with K = N (no stack).
 */

/* The entries of S outside the band: d[(top + j) & mask] = S[j] for j < len. */
typedef struct {
    double *d;
    uint64_t mask, top;
    int64_t len, cap;
    int deep_zero;
} qt_ln_stack;

QT_INLINE void stack_push(qt_ln_stack *s, double value) {
    if (s->len == s->cap) { /* the bottom entry leaves the ring */
        s->deep_zero &= s->d[(s->top + (uint64_t)s->len - 1) & s->mask] == 0.0;
        s->len--;
    }
    s->top--;
    s->d[s->top & s->mask] = value;
    s->len++;
}

/* The top of the stack S[0] popped into *top (0 when the ring is empty and every entry
 * below it is 0); -1 when it is unknown (the certificate cannot continue). */
QT_INLINE int stack_pop(qt_ln_stack *s, double *top) {
    *top = 0.0;
    if (s->len > 0) {
        *top = s->d[s->top & s->mask];
        s->top++;
        s->len--;
    } else if (!s->deep_zero) {
        return -1;
    }
    return 0;
}

/* After a pop: a 0 enters at depth `depth` (0 = top) of the whole stack. */
QT_INLINE void stack_insert_zero(qt_ln_stack *s, int64_t depth) {
    double *d = s->d;
    const uint64_t mask = s->mask;
    if (depth < s->len) { /* move the shorter side */
        if (depth < s->len - depth) {
            s->top--;
            for (int64_t j = 0; j < depth; j++) {
                d[(s->top + (uint64_t)j) & mask] = d[(s->top + (uint64_t)j + 1) & mask];
            }
        } else {
            for (int64_t j = s->len; j > depth; j--) {
                d[(s->top + (uint64_t)j) & mask] = d[(s->top + (uint64_t)j - 1) & mask];
            }
        }
        d[(s->top + (uint64_t)depth) & mask] = 0.0;
        s->len++;
    } else if (depth == s->len || s->deep_zero) { /* the next entry is known to be 0 */
        d[(s->top + (uint64_t)s->len) & mask] = 0.0;
        s->len++;
    } /* else the known part is unchanged: the entry below it is unknown */
}

/* The band's values u[j] = V(N - K + j), j = 0..K, a window of a buffer of
 * width + room doubles: a departure moves the window down one place instead of moving
 * the values up (band_down recentres it when the room below is used up). */
typedef struct {
    double *buf, *u;
    int64_t width, room;
} qt_ln_band;

/* Move the window down one place: afterwards u[j + 1] is the old u[j], j < K. */
QT_INLINE void band_down(qt_ln_band *b) {
    if (b->u == b->buf) {
        memmove(b->buf + b->room, b->buf, (size_t)b->width * sizeof *b->buf);
        b->u = b->buf + b->room;
    }
    b->u--;
}

/* A departure of slot N - K + j inside the band: V_i(b) = V_{i+1}(b - 1) for b > slot
 * (a departure happens iff slot < b), moving the shorter side: u[j..K-1] up, or u[0..j]
 * down. */
QT_INLINE void band_depart(qt_ln_band *b, int64_t k, int64_t j) {
    if (k - j <= j + 1) {
        memmove(b->u + j + 1, b->u + j, (size_t)(k - j) * sizeof *b->u);
    } else {
        band_down(b);
        memmove(b->u, b->u + 1, (size_t)(j + 1) * sizeof *b->u);
    }
}

/* The new top of the stack after an arrival of reward r admitted at every idle count
 * outside the band: delta_i(K + 1) = min(r, delta_{i+1}(K)), delta_{i+1}(K) the band's
 * edge u[0] - u[1]. */
QT_INLINE double band_push(double edge, double reward) {
    return edge < reward ? edge : reward;
}

/* A departure of slot c < N - K: every value moves up one busy count, and the new
 * V_i(N - K) is V_{i+1}(N - K) + top, top = S[0] = V_{i+1}(N - K - 1) - V_{i+1}(N - K)
 * (the stack's top, which the caller pops). */
QT_INLINE void band_enter(qt_ln_band *b, double top) {
    band_down(b);
    b->u[0] = b->u[1] + top;
}

/* The admission bits of one block of `count` <= 64 band values into the 32-bit words
 * bits[0] and, when count > 32, bits[1] (an arrival's bits take (K + 31) / 32 words: 4
 * bytes at the default band). */
QT_INLINE void store_bits(uint32_t *bits, int64_t count, uint64_t mask) {
    bits[0] = (uint32_t)mask;
    if (count > 32) {
        bits[1] = (uint32_t)(mask >> 32);
    }
}

#if defined(__SSE2__)
/*
 * An arrival of reward r on the band: u[j] = max(u[j], r + u[j + 1]) for j < K (ties
 * admit: the new value is r + u[j + 1] when it is >= u[j], as the scalar
 * `admit >= u ? admit : u`), and bit j of bits[] (words of 32) set iff it admits.
 * Two lanes at a time with SSE2 (x86-64): the loads of u[j + 1] come before the store
 * to u[j]; the new value is maxpd(u[j], admit), which is admit unless u[j] > admit, the
 * same double as the scalar choice (in a tie the two are the same number, and no value
 * is -0 or NaN: every admit is r > 0 plus a value >= 0, built by additions and maxima
 * only, or exact under dp_exact), and the admission bits are the
 * compare's sign mask (movmskpd).
 */
/* The arrival on v[j..count) one value at a time (the last ones of a word of 64, after
 * the vector loop): their admission bits. */
QT_INLINE uint64_t dp_arrival_tail(double *v, int64_t j, int64_t count, double reward) {
    uint64_t mask = 0;
    for (; j < count; j++) {
        double admit = reward + v[j + 1];
        mask |= (uint64_t)(admit >= v[j]) << j;
        v[j] = admit >= v[j] ? admit : v[j];
    }
    return mask;
}

static void dp_arrival(double *u, int64_t k, double reward, uint32_t *bits) {
    const __m128d r = _mm_set1_pd(reward);
    for (int64_t word = 0; word * 64 < k; word++) {
        double *v = u + word * 64;
        int64_t count = k - word * 64 < 64 ? k - word * 64 : 64, j = 0;
        uint64_t mask = 0;
        for (; j + 3 < count; j += 4) {
            __m128d here0 = _mm_loadu_pd(v + j), here1 = _mm_loadu_pd(v + j + 2);
            __m128d admit0 = _mm_add_pd(r, _mm_loadu_pd(v + j + 1));
            __m128d admit1 = _mm_add_pd(r, _mm_loadu_pd(v + j + 3));
            mask |= (uint64_t)_mm_movemask_pd(_mm_cmpge_pd(admit0, here0)) << j;
            mask |= (uint64_t)_mm_movemask_pd(_mm_cmpge_pd(admit1, here1)) << (j + 2);
            _mm_storeu_pd(v + j, _mm_max_pd(here0, admit0));
            _mm_storeu_pd(v + j + 2, _mm_max_pd(here1, admit1));
        }
        store_bits(bits + 2 * word, count, mask | dp_arrival_tail(v, j, count, reward));
    }
}

#if defined(QT_LN_AVX2)
/*
 * dp_arrival (SSE2) four lanes at a time with AVX2, for the default bands (K = 32 and
 * up) and wide programmes (the full one of an n-class network whose marginal class is
 * not the last): the same loads before the same stores, maxpd and an ordered >= compare
 * (no NaN can occur), so the same doubles and bits; chosen at run time where the
 * processor has AVX2.
 */
__attribute__((target("avx2"))) static void dp_arrival_avx2(double *u, int64_t k,
                                                             double reward, uint32_t *bits) {
    const __m256d r = _mm256_set1_pd(reward);
    for (int64_t word = 0; word * 64 < k; word++) {
        double *v = u + word * 64;
        int64_t count = k - word * 64 < 64 ? k - word * 64 : 64, j = 0;
        uint64_t mask = 0;
        for (; j + 7 < count; j += 8) {
            __m256d here0 = _mm256_loadu_pd(v + j), here1 = _mm256_loadu_pd(v + j + 4);
            __m256d admit0 = _mm256_add_pd(r, _mm256_loadu_pd(v + j + 1));
            __m256d admit1 = _mm256_add_pd(r, _mm256_loadu_pd(v + j + 5));
            mask |= (uint64_t)_mm256_movemask_pd(_mm256_cmp_pd(admit0, here0, _CMP_GE_OQ)) << j;
            mask |= (uint64_t)_mm256_movemask_pd(_mm256_cmp_pd(admit1, here1, _CMP_GE_OQ))
                    << (j + 4);
            _mm256_storeu_pd(v + j, _mm256_max_pd(here0, admit0));
            _mm256_storeu_pd(v + j + 4, _mm256_max_pd(here1, admit1));
        }
        store_bits(bits + 2 * word, count, mask | dp_arrival_tail(v, j, count, reward));
    }
}

/*
 * dp_arrival_avx2 at the default band K = 32, unrolled: the 32 values u[0..31] in eight
 * registers, and the values above them, u[j + 1], taken from those registers (each
 * rotated down one lane, its top lane from the next one, u[32] broadcast) instead of
 * loaded from addresses straddling the stores of the previous arrival (which would wait
 * for those stores to reach the cache).  The same additions, compares and maxima, so
 * the same doubles and bits.
 */
__attribute__((target("avx2"))) QT_INLINE void dp_arrival32_avx2(double *u, int64_t k,
                                                               double reward, uint32_t *bits) {
    (void)k; /* 32 */
    const __m256d r = _mm256_set1_pd(reward);
    __m256d here[8], down[9]; /* down[m]: here[m] rotated down one lane */
    for (int m = 0; m < 8; m++) {
        here[m] = _mm256_loadu_pd(u + 4 * m);
        down[m] = _mm256_permute4x64_pd(here[m], _MM_SHUFFLE(0, 3, 2, 1));
    }
    down[8] = _mm256_broadcast_sd(u + 32);
    uint32_t mask = 0;
    for (int m = 0; m < 8; m++) {
        __m256d admit = _mm256_add_pd(r, _mm256_blend_pd(down[m], down[m + 1], 8));
        mask |= (uint32_t)_mm256_movemask_pd(_mm256_cmp_pd(admit, here[m], _CMP_GE_OQ))
                << (4 * m);
        _mm256_storeu_pd(u + 4 * m, _mm256_max_pd(here[m], admit));
    }
    bits[0] = mask;
}
#endif

/* Bands at least this wide take the AVX2 loop where the run may (at K = 32, the first
 * band tried, the offline programme ran 6% faster than with SSE2). */
#define QT_LN_WIDE_BAND QT_LN_BAND
#else
/* 1 << j for j = 0..63, the admission bit of idle count K - j in a word of a mask. */
static const uint64_t qt_ln_bit[64] = {
#define QT_LN_BITS4(j) 1ull << (j), 1ull << ((j) + 1), 1ull << ((j) + 2), 1ull << ((j) + 3)
#define QT_LN_BITS16(j) QT_LN_BITS4(j), QT_LN_BITS4((j) + 4), QT_LN_BITS4((j) + 8), \
                        QT_LN_BITS4((j) + 12)
    QT_LN_BITS16(0), QT_LN_BITS16(16), QT_LN_BITS16(32), QT_LN_BITS16(48)
#undef QT_LN_BITS16
#undef QT_LN_BITS4
};

typedef double qt_ln_v2d __attribute__((vector_size(16)));
typedef int64_t qt_ln_v2i __attribute__((vector_size(16)));

/*
 * An arrival of reward r on the band: u[j] = max(u[j], r + u[j + 1]) for j < K (ties
 * admit: the new value is r + u[j + 1] when it is >= u[j], as the scalar
 * `admit >= u ? admit : u`), and bit j of bits[] (words of 32) set iff it admits.
 * Two lanes at a time with the compiler's vector extensions (SSE2 on x86-64, any
 * target elsewhere): the loads of u[j + 1] come before the store to u[j], and the
 * admission bits are the compare's lanes and'ed with their bit values.
 */
static void dp_arrival(double *u, int64_t k, double reward, uint32_t *bits) {
    const qt_ln_v2d r = {reward, reward};
    for (int64_t word = 0; word * 64 < k; word++) {
        double *v = u + word * 64;
        int64_t count = k - word * 64 < 64 ? k - word * 64 : 64, j = 0;
        qt_ln_v2i acc = {0, 0};
        for (; j + 1 < count; j += 2) {
            qt_ln_v2d here, above, admit;
            qt_ln_v2i take, bit;
            memcpy(&here, v + j, sizeof here);
            memcpy(&above, v + j + 1, sizeof above);
            admit = r + above;
            take = admit >= here;
            here = (qt_ln_v2d)(((qt_ln_v2i)admit & take) | ((qt_ln_v2i)here & ~take));
            memcpy(v + j, &here, sizeof here);
            memcpy(&bit, qt_ln_bit + j, sizeof bit);
            acc |= take & bit;
        }
        uint64_t mask = (uint64_t)(acc[0] | acc[1]);
        if (j < count) { /* an odd count: the last one alone */
            double admit = reward + v[j + 1];
            mask |= (uint64_t)(admit >= v[j]) << j;
            v[j] = admit >= v[j] ? admit : v[j];
        }
        store_bits(bits + 2 * word, count, mask);
    }
}

#endif /* __SSE2__ */

/* An arrival's update of the band: dp_arrival, or dp_arrival32_avx2 at K = 32. */
typedef void qt_ln_arrival(double *u, int64_t k, double reward, uint32_t *bits);

/* Turn the band b (V_{i+1}, K = N: the full programme, no stack) and the stack into V_i,
 * S_i for the event of `code` (rewards r[0..n), the last r_min); an arrival's admission
 * bits (bit j: admitted at busy N - K + j) go to bits[].  -1 when the certificate
 * fails. */
QT_INLINE int dp_step(qt_ln_band *b, int64_t k, int64_t n, qt_ln_stack *s, int32_t code,
                      const double *r, double r_min, uint32_t *bits, qt_ln_arrival *arrival) {
    const int64_t lo = n - k; /* busy count of u[0] */
    double *u = b->u;
    if (code < 0) {
        double reward = r[-1 - code];
        if (k < n) {
            double push = band_push(u[0] - u[1], reward);
            if (push > r_min) {
                return -1;
            }
            stack_push(s, push);
        }
        arrival(u, k, reward, bits);
        return 0;
    }
    if (code >= lo) {
        band_depart(b, k, code - lo);
        return 0;
    }
    double top; /* S[0] = V_{i+1}(N - K - 1) - V_{i+1}(N - K) */
    if (stack_pop(s, &top) < 0) {
        return -1;
    }
    band_enter(b, top);
    stack_insert_zero(s, n - code - k - 1);
    return 0;
}

/* 1 when every number of the programme is an exact float64 (see above). */
static int dp_exact(const qt_ln_params *p, int64_t n_events) {
    int grain = INT32_MAX;
    double largest = 0.0;
    for (int32_t j = 0; j < p->classes; j++) {
        int e;
        uint64_t mantissa = (uint64_t)ldexp(frexp(p->reward[j], &e), 53);
        int g = e - 53 + __builtin_ctzll(mantissa); /* r = odd * 2^g */
        grain = g < grain ? g : grain;
        largest = p->reward[j] > largest ? p->reward[j] : largest;
    }
    double top = largest * ((double)n_events + 1.0) * 2.0;
    return ldexp(top, -grain) < 0x1p53;
}

/* Bands up to this width keep the admission bits of every arrival of the path ((K + 31)
 * / 32 words of 4 bytes each: 4 bytes an arrival at the default band, a third of the
 * event itself) and need one backward pass; wider ones (and the full programme) keep
 * them for one segment of sqrt(events) events at a time, recomputed from a checkpoint. */
#define QT_LN_ONE_PASS_BAND 64

/* The path as the programme reads it: event i has the int32 code at byte
 * i * code_stride of `code` (the backward pass reads only these) and the double time at
 * byte i * t_stride of `t`; separate arrays when the offline run draws the path itself,
 * the fields of a qt_ln_event array when it replays a source. */
typedef struct {
    const char *code, *t;
    int64_t code_stride, t_stride, size;
} qt_ln_path;

QT_INLINE int32_t path_code(const qt_ln_path *path, int64_t i) {
    int32_t code;
    memcpy(&code, path->code + i * path->code_stride, sizeof code);
    return code;
}

QT_INLINE double path_t(const qt_ln_path *path, int64_t i) {
    double t;
    memcpy(&t, path->t + i * path->t_stride, sizeof t);
    return t;
}

/* The backward steps of the events [start, end) of the path, the last first.  The a-th
 * arrival met (a = 0, 1, ...: counted from `end`) writes its admission bits to
 * bits + a * stride (stride 0: every arrival to the same scratch words).  Returns the
 * number of arrivals, or -1 when the certificate fails.  Always inlined with a constant
 * `arrival` (and k where the caller passes one), the band and stack in locals. */
QT_INLINE int64_t dp_back_loop(qt_ln_band *b, int64_t k, qt_ln_stack *s,
                               const qt_ln_params *p, const qt_ln_path *path, int64_t start,
                               int64_t end, uint32_t *bits, int64_t stride,
                               qt_ln_arrival *arrival) {
    int64_t arrivals = 0;
    qt_ln_band band = *b;
    qt_ln_stack stack = *s;
    /* Local copies, which the stores to the band cannot alias (else the compiler reloads
     * them after each one) */
    const qt_ln_path view = *path;
    const int64_t n = p->servers;
    double r[QT_LN_MAX_CLASSES];
    memcpy(r, p->reward, (size_t)p->classes * sizeof *r);
    const double r_min = r[p->classes - 1];
    for (int64_t i = end - 1; i >= start; i--) {
        int32_t code = path_code(&view, i);
        if (dp_step(&band, k, n, &stack, code, r, r_min, bits + arrivals * stride, arrival) < 0) {
            return -1;
        }
        arrivals += code < 0;
    }
    *b = band;
    *s = stack;
    return arrivals;
}

#if defined(QT_LN_AVX2)
/* dp_back_loop at K = 32, compiled for AVX2 as a whole so that dp_arrival32_avx2 is
 * inlined into it. */
__attribute__((target("avx2"))) static int64_t dp_back32_avx2(
    qt_ln_band *b, qt_ln_stack *s, const qt_ln_params *p, const qt_ln_path *path,
    int64_t start, int64_t end, uint32_t *bits, int64_t stride) {
    return dp_back_loop(b, 32, s, p, path, start, end, bits, stride, dp_arrival32_avx2);
}
#endif

#if defined(QT_LN_AVX2)
/*
 * dp_back_loop at K = 32 with AVX-512, the band's 33 values in registers (z[0..3] hold
 * u[0..31], z4's lane 0 u[32]) instead of a window of memory: an arrival is
 * dp_arrival32_avx2's step on eight lanes (u[j + 1] by a lane shift across two
 * registers), a departure of slot below N - K shifts every lane up one (valignq), so a
 * value is never reloaded across the previous event's stores (whose lanes a moved
 * window would straddle).  A departure inside the band (rare: probability K / N) goes
 * through memory (band_depart).  The same operations on the same values: the results of
 * dp_back_loop, bit for bit.
 */
/* The lanes 1..7 of b then lane 0 of a, as doubles. */
#define QT_LN_UP1(a, b) _mm512_castsi512_pd(_mm512_alignr_epi64((a), (b), 1))

__attribute__((target("avx2,avx512f"))) static int64_t dp_back32_avx512(
    qt_ln_band *b, qt_ln_stack *s, const qt_ln_params *p, const qt_ln_path *path,
    int64_t start, int64_t end, uint32_t *bits, int64_t stride) {
    const int64_t k = 32, n = p->servers, lo = n - k;
    qt_ln_band band = *b;
    qt_ln_stack stack = *s;
    const qt_ln_path view = *path;
    double r[QT_LN_MAX_CLASSES];
    memcpy(r, p->reward, (size_t)p->classes * sizeof *r);
    const double r_min = r[p->classes - 1];
    __m512i z0 = _mm512_loadu_si512(band.u), z1 = _mm512_loadu_si512(band.u + 8),
            z2 = _mm512_loadu_si512(band.u + 16), z3 = _mm512_loadu_si512(band.u + 24),
            z4 = _mm512_castpd_si512(_mm512_set1_pd(band.u[32]));
    int64_t arrivals = 0, status = 0;
    for (int64_t i = end - 1; i >= start; i--) {
        const int32_t code = path_code(&view, i);
        if (code < 0) {
            const double reward = r[-1 - code];
            const __m128d low = _mm512_castpd512_pd128(_mm512_castsi512_pd(z0));
            const double push =
                band_push(_mm_cvtsd_f64(low) - _mm_cvtsd_f64(_mm_unpackhi_pd(low, low)), reward);
            if (push > r_min) {
                status = -1;
                break;
            }
            stack_push(&stack, push);
            const __m512d rv = _mm512_set1_pd(reward);
            const __m512d u0 = _mm512_castsi512_pd(z0), u1 = _mm512_castsi512_pd(z1),
                          u2 = _mm512_castsi512_pd(z2), u3 = _mm512_castsi512_pd(z3);
            /* c[m] = r + u[8 m + 1 .. 8 m + 8] */
            const __m512d c0 = _mm512_add_pd(rv, QT_LN_UP1(z1, z0)),
                          c1 = _mm512_add_pd(rv, QT_LN_UP1(z2, z1)),
                          c2 = _mm512_add_pd(rv, QT_LN_UP1(z3, z2)),
                          c3 = _mm512_add_pd(rv, QT_LN_UP1(z4, z3));
            const uint32_t mask = (uint32_t)_mm512_cmp_pd_mask(c0, u0, _CMP_GE_OQ) |
                                  (uint32_t)_mm512_cmp_pd_mask(c1, u1, _CMP_GE_OQ) << 8 |
                                  (uint32_t)_mm512_cmp_pd_mask(c2, u2, _CMP_GE_OQ) << 16 |
                                  (uint32_t)_mm512_cmp_pd_mask(c3, u3, _CMP_GE_OQ) << 24;
            z0 = _mm512_castpd_si512(_mm512_max_pd(u0, c0));
            z1 = _mm512_castpd_si512(_mm512_max_pd(u1, c1));
            z2 = _mm512_castpd_si512(_mm512_max_pd(u2, c2));
            z3 = _mm512_castpd_si512(_mm512_max_pd(u3, c3));
            bits[arrivals * stride] = mask;
            arrivals++;
        } else if (__builtin_expect(code >= lo, 0)) {
            _mm512_storeu_si512(band.u, z0);
            _mm512_storeu_si512(band.u + 8, z1);
            _mm512_storeu_si512(band.u + 16, z2);
            _mm512_storeu_si512(band.u + 24, z3);
            band.u[32] = _mm512_cvtsd_f64(_mm512_castsi512_pd(z4));
            band_depart(&band, k, code - lo);
            z0 = _mm512_loadu_si512(band.u);
            z1 = _mm512_loadu_si512(band.u + 8);
            z2 = _mm512_loadu_si512(band.u + 16);
            z3 = _mm512_loadu_si512(band.u + 24);
            z4 = _mm512_castpd_si512(_mm512_set1_pd(band.u[32]));
        } else {
            double top; /* S[0], as in dp_step */
            if (stack_pop(&stack, &top) < 0) {
                status = -1;
                break;
            }
            const double entering = _mm512_cvtsd_f64(_mm512_castsi512_pd(z0)) + top;
            z4 = _mm512_alignr_epi64(z4, z3, 7);
            z3 = _mm512_alignr_epi64(z3, z2, 7);
            z2 = _mm512_alignr_epi64(z2, z1, 7);
            z1 = _mm512_alignr_epi64(z1, z0, 7);
            z0 = _mm512_alignr_epi64(z0, _mm512_castpd_si512(_mm512_set1_pd(entering)), 7);
            stack_insert_zero(&stack, n - code - k - 1);
        }
    }
    _mm512_storeu_si512(band.u, z0);
    _mm512_storeu_si512(band.u + 8, z1);
    _mm512_storeu_si512(band.u + 16, z2);
    _mm512_storeu_si512(band.u + 24, z3);
    band.u[32] = _mm512_cvtsd_f64(_mm512_castsi512_pd(z4));
    *b = band;
    *s = stack;
    return status < 0 ? -1 : arrivals;
}
#undef QT_LN_UP1
#endif

/* dp_back_loop with the arrival kernel for band k. */
static int64_t dp_back(qt_ln_band *b, int64_t k, qt_ln_stack *s, const qt_ln_params *p,
                       const qt_ln_path *path, int64_t start, int64_t end, uint32_t *bits,
                       int64_t stride) {
#if defined(QT_LN_AVX2)
    if (kernel_isa(p) >= QT_LN_ISA_AVX2) {
        if (k == 32) {
            return kernel_isa(p) >= QT_LN_ISA_AVX512
                       ? dp_back32_avx512(b, s, p, path, start, end, bits, stride)
                       : dp_back32_avx2(b, s, p, path, start, end, bits, stride);
        }
        if (k >= QT_LN_WIDE_BAND) {
            return dp_back_loop(b, k, s, p, path, start, end, bits, stride, dp_arrival_avx2);
        }
    }
#endif
    return dp_back_loop(b, k, s, p, path, start, end, bits, stride, dp_arrival);
}

/* Checkpoint c of a segmented programme: the band's values, then the known part of the
 * stack; len[c] is its length, negated (-1 - length) when the entries below it are not
 * all 0. */
static void ckpt_save(const qt_ln_band *b, const qt_ln_stack *s, double *c, int64_t *len) {
    memcpy(c, b->u, (size_t)b->width * sizeof *c);
    for (int64_t j = 0; j < s->len; j++) {
        c[b->width + j] = s->d[(s->top + (uint64_t)j) & s->mask];
    }
    *len = s->deep_zero ? s->len : -1 - s->len;
}

/* The band and stack of checkpoint c (NULL: V_end = 0 with an empty stack). */
static void ckpt_load(qt_ln_band *b, qt_ln_stack *s, const double *c, int64_t len) {
    b->u = b->buf + b->room;
    s->top = 0;
    s->len = 0;
    s->deep_zero = 1;
    if (c == NULL) {
        memset(b->u, 0, (size_t)b->width * sizeof *b->u);
        return;
    }
    s->deep_zero = len >= 0;
    s->len = len >= 0 ? len : -1 - len;
    memcpy(b->u, c, (size_t)b->width * sizeof *c);
    if (s->len > 0) {
        memcpy(s->d, c + b->width, (size_t)s->len * sizeof *c);
    }
}

/*
 * Programme of segments: one class below the marginal one
 * -------------------------------------------------------
 * With a class below the marginal class m (reward r < r_m) the band's certificate fails:
 * the optimum admits that class at some idle counts of order N and turns it away at
 * others, and starting empty its path meets them (while the servers fill up).  Yet
 * the optimum still admits classes 1..m at every idle count above the band (measured:
 * delta <= r_m there at every event), and one step back acts on S simply:
 *   - departure slot c < N - K: as in the banded programme, the stack's top enters the
 *     band and a 0 enters at depth N - c - K - 1;
 *   - arrival of reward >= r_m: the shift of the banded programme (push min(r, delta(K))),
 *     exact while every entry is <= r_m (the certificate, checked at each push);
 *   - arrival of the lower class: from V_i(b) = max(V_{i+1}(b), r + V_{i+1}(b + 1)),
 *         delta_i(k) = max(delta_{i+1}(k), r) - max(0, r - delta_{i+1}(k - 1)),
 *     (delta_{i+1}(K) the band's edge).  Cut S into maximal blocks of entries <= r
 *     (segments, where the class is admitted) and > r (gaps).  Inside a segment every
 *     entry takes its upper neighbour's value: the segment moves one deeper, its new top
 *     is min(r, value above) (r below a gap), and its bottom entry x leaves it; the first
 *     entry z of the gap below becomes z - (r - x) (> x >= 0), and joins the segment if
 *     it is now <= r (merging it with the next segment if the gap empties); every other
 *     gap entry keeps its value.  A segment whose entries all equal r moves by changing
 *     nothing, so only the top block and the segments holding an entry below r (kept in
 *     a list: 6-12 of them against 380-3300 blocks on (0.3, 0.9, 0.6); up to half the
 *     blocks with a lower class of rate 0.001) are visited.  Work
 *     O(those segments) per lower-class arrival and O(blocks) per departure (the walk to
 *     its depth), plus the entries moved inside and between blocks (all of it counted
 *     against max_cells).
 * A lower-class arrival at k > K idle is admitted iff delta_{i+1}(k) <= r: the cuts of
 * the arrival, the depths where S passes between segments and gaps.  They are kept only
 * down to the idle count the forward pass can meet: its busy count is at least that of
 * the policy admitting classes 1..m above the band only (by coupling: wherever that
 * policy admits at the same busy count, so does the optimum), run forward first; past
 * the fill-up from empty that keeps the cuts to a few; if the cuts of the fill-up would
 * pass cuts_budget the full programme runs instead.  Under dp_exact the values and
 * decisions are the full programme's, bit for bit.  Measured on (0.3, 0.9, 0.6),
 * r = (3, 2, 1): about 380 blocks at N = 10^4 and 3300 at 10^5 (N / 30; N / 7 with a
 * lower class of half the load), and cuts of about 0.03 N^2 in all (0.14 N^2), almost
 * all while the servers fill up.
 */

/* A block of S: entries d[head .. head + len) (the block's top first) in a buffer of cap
 * doubles with room on both sides; every entry <= r (a segment) or > r (a gap).  A
 * segment with no entry below r (under = 0) moves one deeper by changing nothing. */
typedef struct {
    double *d;
    int64_t head, len, cap;
    int64_t under; /* the entries < r */
    int low;
} qt_ln_block;

/* S as blocks alternating between segments and gaps, the top block last, and the
 * increasing indices of the segments with an entry below r (the only ones a lower-class
 * arrival changes, with the gaps below them and the top block). */
typedef struct {
    qt_ln_block *at;
    int64_t count, capacity;
    int64_t *active, n_active, active_capacity;
    double r, r_marginal; /* the lower class's reward, the marginal class's */
    int64_t work;         /* cells: the band's, the blocks walked and the entries moved */
} qt_ln_blocks;

/* The cuts of the lower-class arrivals, the a-th counted from the path's end: at[first[a]]
 * is D, the depths [0, D) of S they cover; then (if D > 0) 1 if the arrival is admitted
 * at depth 0 (K + 1 idle), and the increasing depths < D where the answer changes. */
typedef struct {
    int32_t *at;
    int64_t *first;
    int64_t size, capacity, count, first_capacity;
    int32_t klass; /* the 0-based lower class */
} qt_ln_cuts;

/* A block of `len` entries (to be written) in the middle of a buffer of 2 len + 16; its
 * buffer is NULL when out of memory. */
static qt_ln_block block_new(int low, int64_t len) {
    const int64_t cap = 2 * len + 16;
    return (qt_ln_block){new_array(cap, 1, sizeof(double), 0), (cap - len) / 2, len, cap, 0,
                         low};
}

/* Room for `front` more entries above the block's top and `back` below its bottom: the
 * entries move to the middle of the buffer (added to *work), doubled when they and the
 * room would fill more than half of it (so each move is paid by as many steps); -1 when
 * out of memory. */
static int block_room(qt_ln_block *b, int64_t front, int64_t back, int64_t *work) {
    if (b->head >= front && b->cap - b->head - b->len >= back) {
        return 0;
    }
    *work += b->len;
    const int64_t need = b->len + front + back;
    const int64_t cap = 2 * need > b->cap ? 2 * need + 16 : b->cap;
    const int64_t head = front + (cap - need) / 2;
    if (cap == b->cap) {
        memmove(b->d + head, b->d + b->head, (size_t)b->len * sizeof *b->d);
    } else {
        double *d = new_array(cap, 1, sizeof *d, 0);
        if (d == NULL) {
            return -1;
        }
        memcpy(d + head, b->d + b->head, (size_t)b->len * sizeof *d);
        free(b->d);
        b->d = d;
        b->cap = cap;
    }
    b->head = head;
    return 0;
}

/* Insert `value` (< r iff `under`) at position j (0..len) of block b, moving the shorter
 * side (added to *work); -1 when out of memory. */
static int block_insert(qt_ln_block *b, int64_t j, double value, int under, int64_t *work) {
    const int up = j < b->len - j; /* move the entries above j up, else those below down */
    const int64_t moved = up ? j : b->len - j;
    if (block_room(b, up, !up, work) < 0) {
        return -1;
    }
    if (up) {
        memmove(b->d + b->head - 1, b->d + b->head, (size_t)moved * sizeof *b->d);
        b->head--;
    } else {
        memmove(b->d + b->head + j + 1, b->d + b->head + j, (size_t)moved * sizeof *b->d);
    }
    *work += moved;
    b->d[b->head + j] = value;
    b->len++;
    b->under += under;
    return 0;
}

/* The position in the active list of the first index >= i. */
static int64_t active_at(const qt_ln_blocks *s, int64_t i) {
    int64_t lo = 0, hi = s->n_active;
    while (lo < hi) {
        const int64_t mid = lo + (hi - lo) / 2;
        if (s->active[mid] < i) {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    return lo;
}

/* Drop block i from the active list, if listed. */
static void active_drop(qt_ln_blocks *s, int64_t i) {
    const int64_t a = active_at(s, i);
    if (a < s->n_active && s->active[a] == i) {
        memmove(s->active + a, s->active + a + 1,
                (size_t)(s->n_active - a - 1) * sizeof *s->active);
        s->n_active--;
    }
}

/* List block i as active iff it is a segment with an entry below r; -1 when out of
 * memory. */
static int blocks_mark(qt_ln_blocks *s, int64_t i) {
    if (!s->at[i].low || s->at[i].under == 0) {
        active_drop(s, i);
        return 0;
    }
    const int64_t a = active_at(s, i);
    if (a < s->n_active && s->active[a] == i) {
        return 0;
    }
    if (grow((void **)&s->active, &s->active_capacity, s->n_active + 1, sizeof *s->active) <
        0) {
        return -1;
    }
    memmove(s->active + a + 1, s->active + a, (size_t)(s->n_active - a) * sizeof *s->active);
    s->active[a] = i;
    s->n_active++;
    return 0;
}

/* Insert `block` at index i of the blocks (those from i on move up one); -1 when out of
 * memory (the block's buffer is then freed). */
static int blocks_insert(qt_ln_blocks *s, int64_t i, qt_ln_block block) {
    if (block.d == NULL ||
        grow((void **)&s->at, &s->capacity, s->count + 1, sizeof *s->at) < 0) {
        free(block.d);
        return -1;
    }
    memmove(s->at + i + 1, s->at + i, (size_t)(s->count - i) * sizeof *s->at);
    s->at[i] = block;
    s->work += s->count++ - i;
    for (int64_t a = active_at(s, i); a < s->n_active; a++) {
        s->active[a]++;
    }
    return blocks_mark(s, i);
}

/* A new block holding `value`, inserted at index i; -1 when out of memory. */
static int blocks_insert_one(qt_ln_blocks *s, int64_t i, double value) {
    qt_ln_block block = block_new(value <= s->r, 1);
    if (block.d != NULL) {
        block.d[block.head] = value;
        block.under = value < s->r;
    }
    return blocks_insert(s, i, block);
}

/* Remove block i (freeing its buffer). */
static void blocks_remove(qt_ln_blocks *s, int64_t i) {
    free(s->at[i].d);
    memmove(s->at + i, s->at + i + 1, (size_t)(s->count - i - 1) * sizeof *s->at);
    s->work += --s->count - i;
    active_drop(s, i);
    for (int64_t a = active_at(s, i); a < s->n_active; a++) {
        s->active[a]--;
    }
}

static void blocks_free(qt_ln_blocks *s) {
    for (int64_t i = 0; i < s->count; i++) {
        free(s->at[i].d);
    }
    free(s->at);
    free(s->active);
}

/* S = (0, ..., 0), `entries` long: one segment; -1 when out of memory. */
static int blocks_init(qt_ln_blocks *s, int64_t entries, double r, double r_marginal) {
    *s = (qt_ln_blocks){.r = r, .r_marginal = r_marginal};
    qt_ln_block block = block_new(1, entries);
    if (block.d != NULL) {
        memset(block.d + block.head, 0, (size_t)entries * sizeof *block.d);
        block.under = entries;
    }
    return blocks_insert(s, 0, block);
}

/* Block i just lost the entry `value`: its count below r follows, and it leaves S when
 * empty, or the active list when it holds only r. */
static void blocks_lost(qt_ln_blocks *s, int64_t i, double value) {
    qt_ln_block *b = &s->at[i];
    b->under -= value < s->r;
    if (b->len == 0) {
        blocks_remove(s, i);
    } else if (b->under == 0) {
        active_drop(s, i);
    }
}

/* Pop the top entry of S (never the last: S has N - K >= 2 entries before a pop). */
static double blocks_pop(qt_ln_blocks *s) {
    qt_ln_block *top = &s->at[s->count - 1];
    const double value = top->d[top->head++];
    top->len--;
    blocks_lost(s, s->count - 1, value);
    return value;
}

/* Push `value` on top of S, its bottom entry dropping off; -1 when out of memory. */
static int blocks_push(qt_ln_blocks *s, double value) {
    qt_ln_block *top = &s->at[s->count - 1];
    if (top->low == (value <= s->r)) {
        if (block_insert(top, 0, value, value < s->r, &s->work) < 0 ||
            blocks_mark(s, s->count - 1) < 0) {
            return -1;
        }
    } else if (blocks_insert_one(s, s->count, value) < 0) {
        return -1;
    }
    qt_ln_block *bottom = &s->at[0];
    blocks_lost(s, 0, bottom->d[bottom->head + --bottom->len]);
    return 0;
}

/* After a pop: a 0 enters S at `depth` (0 = top; at most the number of entries), the
 * entries from there on moving one deeper; -1 when out of memory. */
static int blocks_insert_zero(qt_ln_blocks *s, int64_t depth) {
    int64_t i = s->count - 1, above = 0; /* above: the entries of the blocks above i */
    while (i >= 0 && above + s->at[i].len <= depth) {
        above += s->at[i--].len;
    }
    s->work += s->count - i;
    const int64_t at = depth - above; /* block i holds S[depth] at `at` (i = -1: none) */
    if (i >= 0 && s->at[i].low) {
        return block_insert(&s->at[i], at, 0.0, 1, &s->work) < 0 ? -1 : blocks_mark(s, i);
    }
    if (at == 0 && i + 1 < s->count && s->at[i + 1].low) { /* S[depth - 1] ends a segment */
        qt_ln_block *upper = &s->at[i + 1];
        return block_insert(upper, upper->len, 0.0, 1, &s->work) < 0 ? -1
                                                                     : blocks_mark(s, i + 1);
    }
    if (at > 0) { /* split the gap: its entries from `at` on form a gap below the 0 */
        qt_ln_block *gap = &s->at[i], lower = block_new(0, gap->len - at);
        if (lower.d != NULL) {
            memcpy(lower.d + lower.head, gap->d + gap->head + at,
                   (size_t)lower.len * sizeof *lower.d);
            gap->len = at;
            s->work += lower.len;
        }
        if (blocks_insert(s, i, lower) < 0) {
            return -1;
        }
    }
    return blocks_insert_one(s, i + 1, 0.0); /* above block i (the gap's lower part) */
}

/* Append the value to the growable cuts; -1 when out of memory. */
QT_INLINE int cuts_put(qt_ln_cuts *c, int64_t value) {
    if (grow((void **)&c->at, &c->capacity, c->size + 1, sizeof *c->at) < 0) {
        return -1;
    }
    c->at[c->size++] = (int32_t)value;
    return 0;
}

/* The admission of the a-th lower-class arrival (counted from the path's end) at depth
 * `depth` of S: its answer at depth 0, flipped at each cut <= depth; -1 if its cuts do
 * not reach that depth. */
QT_INLINE int cuts_admit(const qt_ln_cuts *c, int64_t a, int64_t depth) {
    const int32_t *cut = c->at + c->first[a];
    if (depth >= cut[0]) {
        return -1;
    }
    int64_t lo = 0, hi = c->first[a + 1] - c->first[a] - 2; /* cuts <= depth: [0, lo) */
    while (lo < hi) {
        const int64_t mid = lo + (hi - lo) / 2;
        if (cut[2 + mid] <= depth) {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    return (cut[1] ^ (int)(lo & 1)) & 1;
}

/* Record the cuts of S for a lower-class arrival, down to depth `reach`; -1 when out of
 * memory. */
static int blocks_cuts(const qt_ln_blocks *s, int64_t reach, qt_ln_cuts *c) {
    if (grow((void **)&c->first, &c->first_capacity, c->count + 2, sizeof *c->first) < 0) {
        return -1;
    }
    c->first[c->count] = c->size;
    reach = reach > 0 ? reach : 0;
    if (cuts_put(c, reach) < 0 || (reach > 0 && cuts_put(c, s->at[s->count - 1].low) < 0)) {
        return -1;
    }
    int64_t depth = s->at[s->count - 1].len;
    for (int64_t i = s->count - 2; i >= 0 && depth < reach; i--) {
        if (cuts_put(c, depth) < 0) {
            return -1;
        }
        depth += s->at[i].len;
    }
    c->count++;
    c->first[c->count] = c->size;
    return 0;
}

/* Join the segments i and i - 1 (adjacent once the gap between them is gone), copying
 * the shorter one into the other, into index i - 1; -1 when out of memory. */
static int blocks_join(qt_ln_blocks *s, int64_t i) {
    qt_ln_block *upper = &s->at[i], *lower = &s->at[i - 1];
    const size_t bytes = (size_t)(upper->len <= lower->len ? upper->len : lower->len) *
                         sizeof(double);
    s->work += (int64_t)(bytes / sizeof(double));
    if (upper->len <= lower->len) {
        if (block_room(lower, upper->len, 0, &s->work) < 0) {
            return -1;
        }
        lower->head -= upper->len;
        lower->len += upper->len;
        lower->under += upper->under;
        memcpy(lower->d + lower->head, upper->d + upper->head, bytes);
        blocks_remove(s, i);
    } else {
        if (block_room(upper, 0, lower->len, &s->work) < 0) {
            return -1;
        }
        memcpy(upper->d + upper->head + upper->len, lower->d + lower->head, bytes);
        upper->len += lower->len;
        upper->under += lower->under;
        blocks_remove(s, i - 1);
    }
    return blocks_mark(s, i - 1);
}

/* Segment i of S moves one deeper: `in` becomes its top entry and its old bottom entry
 * leaves, into *out; -1 when out of memory. */
static int blocks_rotate(qt_ln_blocks *s, int64_t i, double in, double *out) {
    qt_ln_block *b = &s->at[i];
    if (block_room(b, 1, 0, &s->work) < 0) {
        return -1;
    }
    *out = b->d[b->head + b->len - 1];
    b->d[--b->head] = in;
    b->under += (in < s->r) - (*out < s->r);
    return 0;
}

/* The first entry of gap i (none if i < 0) drops by r - x (x < r, the old bottom of the
 * segment above it, or the band's edge); listed in the growable *list if now <= r; -1
 * when out of memory. */
static int blocks_lower_gap(qt_ln_blocks *s, int64_t i, double x, int64_t **list,
                            int64_t *capacity, int64_t *changed) {
    if (i < 0 || x >= s->r) {
        return 0;
    }
    qt_ln_block *g = &s->at[i];
    g->d[g->head] -= s->r - x;
    if (g->d[g->head] > s->r) {
        return 0;
    }
    if (grow((void **)list, capacity, *changed + 1, sizeof **list) < 0) {
        return -1;
    }
    (*list)[(*changed)++] = i;
    return 0;
}

/* A lower-class arrival outside the band (edge = delta_{i+1}(K)): every segment moves
 * one deeper (taking min(r, edge) on top of S, r below a gap), the first entry of the
 * gap below it drops by r - x (x the segment's old bottom; the edge for a gap on top)
 * and joins it if now <= r; -1 when out of memory.  A segment whose entries all equal r
 * that takes r changes nothing, so only the top block and the active segments are
 * visited.  The gaps that change are listed in the growable *list (indices of blocks). */
static int blocks_arrival(qt_ln_blocks *s, double edge, int64_t **list, int64_t *capacity) {
    const double r = s->r;
    const int64_t top = s->count - 1;
    int64_t changed = 0;
    s->work += 1 + s->n_active;
    double x = edge < r ? edge : r; /* the top block's new entry, or its gap's drop */
    if (s->at[top].low && (s->at[top].under > 0 || x < r) &&
        blocks_rotate(s, top, x, &x) < 0) {
        return -1;
    }
    if (blocks_lower_gap(s, s->at[top].low ? top - 1 : top, x, list, capacity, &changed) < 0) {
        return -1;
    }
    for (int64_t a = s->n_active - 1; a >= 0; a--) { /* top first; no block moves here */
        const int64_t i = s->active[a];
        if (i != top && (blocks_rotate(s, i, r, &x) < 0 ||
                         blocks_lower_gap(s, i - 1, x, list, capacity, &changed) < 0)) {
            return -1;
        }
    }
    int64_t kept = 0; /* the segments that now hold only r leave the list */
    for (int64_t a = 0; a < s->n_active; a++) {
        s->active[kept] = s->active[a];
        kept += s->at[s->active[a]].under > 0;
    }
    s->n_active = kept;
    if (blocks_mark(s, top) < 0) {
        return -1;
    }
    for (int64_t c = 0; c < changed; c++) { /* top first: the indices below stay valid */
        const int64_t i = (*list)[c];
        qt_ln_block *b = &s->at[i];
        const double z = b->d[b->head++];
        b->len--;
        if (i == s->count - 1 ? blocks_insert_one(s, s->count, z) < 0
                              : block_insert(&s->at[i + 1], s->at[i + 1].len, z, z < r,
                                             &s->work) < 0 ||
                                    blocks_mark(s, i + 1) < 0) {
            return -1;
        }
        if (s->at[i].len == 0) {
            blocks_remove(s, i);
            if (i > 0 && blocks_join(s, i) < 0) {
                return -1;
            }
        }
    }
    return 0;
}

/* The idle count before each lower-class arrival (by order of arrival) under the policy
 * admitting classes 1..m (rewards >= r_m) at more than K idle servers only: an upper
 * bound of the optimum's (see above), into the growable *idle; -1 when out of memory. */
static int dp_idle_bound(const qt_ln_params *p, const qt_ln_path *path, int64_t k,
                         double r_marginal, int64_t **idle, int64_t *count) {
    int64_t busy = 0, capacity = 0;
    *count = 0;
    for (int64_t i = 0; i < path->size; i++) {
        const int32_t code = path_code(path, i);
        if (code >= 0) {
            busy -= code < busy;
        } else if (p->reward[-1 - code] >= r_marginal) {
            busy += p->servers - busy > k;
        } else {
            if (grow((void **)idle, &capacity, *count + 1, sizeof **idle) < 0) {
                return -1;
            }
            (*idle)[(*count)++] = p->servers - busy;
        }
    }
    return 0;
}

/* The most cuts the programme of segments keeps on a path of n_events events: half the
 * bytes the cost estimate (qtheory/sim/lossnet_costs.py) allows for the full programme's
 * checkpoints, 8 (4 N + 3) (sqrt(n_events) + 2), so that the estimate of the full
 * programme covers this one too (the other half, and the estimate's 48 bytes an event of
 * path, hold its blocks, admission bits and per-arrival records). */
static int64_t cuts_budget(const qt_ln_params *p, int64_t n_events) {
    const double bytes = 4.0 * (4.0 * (double)p->servers + 3.0) * (sqrt((double)n_events) + 2.0);
    return (int64_t)(bytes / sizeof(int32_t));
}

/* The backward pass of the programme of segments over the whole path (band b, S as
 * blocks s, the cuts c of the lower-class arrivals, whose idle bounds are idle[0..lows)):
 * the a-th arrival from the path's end writes its band's admission bits to
 * bits + a * words.  Returns the number of arrivals, or -1 when the certificate fails,
 * -2 when out of memory, -3 once s->work exceeds p->max_cells, -4 once the cuts pass
 * cuts_budget. */
static int64_t dp_back_blocks(qt_ln_band *b, int64_t k, qt_ln_blocks *s, qt_ln_cuts *c,
                              const int64_t *idle, int64_t lows, const qt_ln_params *p,
                              const qt_ln_path *path, uint32_t *bits, int64_t words) {
    qt_ln_arrival *arrival = dp_arrival;
#if defined(QT_LN_AVX2)
    if (kernel_isa(p) >= QT_LN_ISA_AVX2 && k >= QT_LN_WIDE_BAND) {
        arrival = dp_arrival_avx2;
    }
#endif
    const int64_t n = p->servers, lo = n - k, max_cuts = cuts_budget(p, path->size);
    int64_t arrivals = 0, *changed = NULL, capacity = 0; /* blocks_arrival's list */
    for (int64_t i = path->size - 1; i >= 0; i--) {
        const int32_t code = path_code(path, i);
        if (code < 0) {
            const double reward = p->reward[-1 - code];
            if (reward >= s->r_marginal) { /* the shift, certified */
                const double push = band_push(b->u[0] - b->u[1], reward);
                if (push > s->r_marginal) {
                    arrivals = -1;
                    break;
                }
                if (blocks_push(s, push) < 0) {
                    arrivals = -2;
                    break;
                }
            } else if (blocks_cuts(s, idle[--lows] - k, c) < 0 ||
                       blocks_arrival(s, b->u[0] - b->u[1], &changed, &capacity) < 0) {
                arrivals = -2;
                break;
            }
            arrival(b->u, k, reward, bits + arrivals * words);
            arrivals++;
        } else if (code >= lo) {
            band_depart(b, k, code - lo);
        } else {
            band_enter(b, blocks_pop(s));
            if (blocks_insert_zero(s, n - code - k - 1) < 0) {
                arrivals = -2;
                break;
            }
        }
        if ((double)s->work > p->max_cells || c->size > max_cuts) {
            arrivals = c->size > max_cuts ? -4 : -3;
            break;
        }
    }
    free(changed);
    return arrivals;
}

/*
 * The forward pass over the events [start, start + len) of the path, whose `arrivals`
 * arrivals have their admission bits at bits + a * words for the a-th one counted from
 * the segment's end (as dp_back wrote them), following the optimal decisions (ties
 * admit; every arrival is admitted outside the band, where the certificate holds,
 * but in the programme of segments the lower class, decided there by its cuts) on r's
 * state and tallies.  `words` is (K + 31) / 32, the constant 1 where the caller passes
 * it (K <= 32: the word of an arrival is read without waiting for the busy count);
 * `cuts` is NULL (a constant where the caller passes it) but in the programme of
 * segments.  -1 when the trace cannot grow, 1 when an arrival's cuts do not reach its
 * idle count (the trace is then as it was).
 */
QT_INLINE int dp_forward(qt_ln_run *r, const qt_ln_path *path, int64_t start, int64_t len,
                         const uint32_t *bits, int64_t arrivals, int64_t words, int64_t k,
                         const qt_ln_cuts *cuts, qt_ln_trace *trace) {
    const int64_t n = r->p.servers, lo = n - k;
    const double warmup = r->p.warmup;
    const qt_ln_path view = *path; /* a local copy, which the tallies cannot alias */
    int64_t busy = r->busy, left = arrivals; /* arrivals of the segment not met yet */
    int64_t low_left = cuts != NULL ? cuts->count : 0; /* the same, of the lower class */
    const int64_t traced = trace != NULL ? trace->size : 0;
    double idle_area = r->st.idle_area, stat_t = r->stat_t;
    for (int64_t i = start; i < start + len; i++) {
        double t = path_t(&view, i);
        int32_t code = path_code(&view, i);
        int in_window = record_idle(t, warmup, n - busy, &idle_area, &stat_t);
        /* Without a branch on the type, as in limit_event: the tally's row, and an
         * arrival is admitted at busy < N - K, by its bit busy - N + K of the band, never
         * at N (q = busy - lo wraps to above K below the band; a departure reads the
         * segment's first words, at bit 0 if need be, and ignores them). */
        const uint32_t row = event_row(code);
        int arrival = code < 0;
        left -= arrival;
        const uint32_t *mine = bits + (arrival ? left : 0) * words;
        uint64_t q = (uint64_t)(busy - lo), at = q < (uint64_t)k ? q : 0;
        int bit = (int)(mine[words == 1 ? 0 : at >> 5] >> (at & 31) & 1);
        int admit = arrival & ((busy < lo) | ((q < (uint64_t)k) & bit));
        if (cuts != NULL && row == (uint32_t)cuts->klass) {
            low_left--;
            admit = busy < lo ? cuts_admit(cuts, low_left, lo - 1 - busy) : admit;
            if (admit < 0) {
                if (trace != NULL) {
                    trace->size = traced;
                }
                return 1;
            }
        }
        busy += admit - ((int64_t)(uint32_t)code < busy);
        r->tally[QT_LN_TALLY(row, admit, in_window)]++;
        if (trace != NULL &&
            trace_push(trace, t, code, (int8_t)(arrival ? admit : -1), busy) < 0) {
            return -1;
        }
    }
    r->st.events += len;
    r->busy = busy;
    r->st.idle_area = idle_area;
    r->stat_t = stat_t;
    return 0;
}

/* One backward-forward run with band K (K = N: full) and stack capacity cap (a power of
 * 2, 0 when K = N), or (by_blocks: one class below the marginal one, the last; cap 0) the
 * programme of segments, in one pass.  0, -1 out of memory, 1 when the certificate fails
 * (a wider band may hold), 2 when the programme of segments gives up (its cuts would
 * pass cuts_budget: the full programme should run), -3 when its work exceeds
 * p->max_cells (stats->offline_band is then K). */
static int offline_band(const qt_ln_params *p, const qt_ln_path *path, int64_t k, int64_t cap,
                        int by_blocks, qt_ln_stats *stats, qt_ln_trace *trace) {
    const int64_t n_events = path->size, width = k + 1, words = (k + 31) / 32;
    const int32_t lower = p->classes - 1;
    int64_t lows = 0, *idle = NULL; /* see dp_back_blocks */
    qt_ln_blocks blocks = {0};
    qt_ln_cuts cuts = {.klass = lower};
    int64_t seg = k <= QT_LN_ONE_PASS_BAND || by_blocks
                      ? (n_events > 0 ? n_events : 1)
                      : (int64_t)ceil(sqrt((double)(n_events > 0 ? n_events : 1)));
    int64_t n_ckpt = n_events / seg + 1; /* checkpoints at events seg, 2 seg, ... */
    double *ckpt = NULL;
    int64_t *ckpt_len = NULL, arrivals = 0;
    uint32_t *masks = NULL, *scratch = NULL; /* the admission bits of one segment */
    qt_ln_band band = {.buf = NULL, .width = width, .room = width};
    qt_ln_stack stack = {.d = NULL, .mask = (uint64_t)(cap > 0 ? cap - 1 : 0), .cap = cap,
                         .deep_zero = 1};
    int status = -1;
    /* In turn, stopping at the first refusal: the checkpoints first, the largest block
     * of a wide programme (the full one at N = 1e9 is refused there, and nothing else is
     * attempted). */
    if ((ckpt = new_array(n_ckpt, width + cap, sizeof *ckpt, 1)) == NULL ||
        (ckpt_len = new_array(n_ckpt, 1, sizeof *ckpt_len, 1)) == NULL ||
        (masks = new_array(seg, words, sizeof *masks, 1)) == NULL ||
        (scratch = new_array(words, 1, sizeof *scratch, 0)) == NULL ||
        (band.buf = new_array(width + width, 1, sizeof(double), 1)) == NULL ||
        (cap > 0 && (stack.d = new_array(cap, 1, sizeof(double), 0)) == NULL) ||
        (by_blocks && (blocks_init(&blocks, p->servers - k, p->reward[lower],
                                   p->reward[lower - 1]) < 0 ||
                       dp_idle_bound(p, path, k, p->reward[lower - 1], &idle, &lows) < 0))) {
        goto done;
    }
    band.u = band.buf + band.room;
    /* Backward pass, one segment at a time from the last: V_{n_events} = 0; keep V_i and
     * S_i at every checkpoint, and the admission bits of the first segment, which the
     * forward pass reads first. */
    for (int64_t start = (n_events - 1) / seg * seg; start >= 0; start -= seg) {
        int64_t end = n_events - start < seg ? n_events : start + seg;
        if (by_blocks) { /* one pass over the whole path; the band's cells counted first */
            blocks.work = n_events * width;
            arrivals = dp_back_blocks(&band, k, &blocks, &cuts, idle, lows, p, path, masks,
                                      words);
        } else {
            arrivals = start > 0 ? dp_back(&band, k, &stack, p, path, start, end, scratch, 0)
                                 : dp_back(&band, k, &stack, p, path, start, end, masks, words);
        }
        if (arrivals < 0) {
            static const int statuses[] = {1, -1, -3, 2}; /* of -1, -2, -3, -4 */
            status = statuses[-1 - arrivals];
            memset(stats, 0, sizeof *stats);
            stats->offline_band = k;
            goto done;
        }
        if (start > 0) {
            ckpt_save(&band, &stack, ckpt + (start / seg) * (width + cap), ckpt_len + start / seg);
        }
    }
    /* Forward pass, one segment at a time: after the first, recompute its admission
     * bits from the next checkpoint (the steps cannot fail, they passed above). */
    memset(stats, 0, sizeof *stats);
    qt_ln_run r = {0};
    r.p = *p;
    r.stat_t = p->warmup;
    for (int64_t start = 0; start < n_events; start += seg) {
        int64_t len = n_events - start < seg ? n_events - start : seg;
        if (start > 0) {
            const double *c = NULL; /* the last segment starts from V_end = 0 */
            int64_t known = 0;
            if (start + seg < n_events) {
                c = ckpt + (start / seg + 1) * (width + cap);
                known = ckpt_len[start / seg + 1];
            }
            ckpt_load(&band, &stack, c, known);
            arrivals = dp_back(&band, k, &stack, p, path, start, start + len, masks, words);
        }
        int forward =
            by_blocks ? dp_forward(&r, path, start, len, masks, arrivals, words, k, &cuts, trace)
            : words == 1
                ? dp_forward(&r, path, start, len, masks, arrivals, 1, k, NULL, trace)
                : dp_forward(&r, path, start, len, masks, arrivals, words, k, NULL, trace);
        if (forward != 0) { /* -1 out of memory, 1: cuts short of the idle count */
            status = forward < 0 ? -1 : 2;
            goto done;
        }
    }
    finish(&r);
    r.st.offline_band = k;
    *stats = r.st;
    status = 0;
done:
    free(ckpt);
    free(ckpt_len);
    free(masks);
    free(scratch);
    free(band.buf);
    free(stack.d);
    blocks_free(&blocks);
    free(idle);
    free(cuts.at);
    free(cuts.first);
    return status;
}

/* The 0-based marginal class m, the first with lambda_1 + ... + lambda_{m+1} > mu (the
 * last class if none: the fluid LP then serves every class). */
static int32_t marginal_class(const qt_ln_params *p) {
    double partial = 0.0;
    for (int32_t j = 0; j < p->classes; j++) {
        partial += p->lambda[j];
        if (partial > p->mu) {
            return j;
        }
    }
    return p->classes - 1;
}

/* Refuse (-2) a programme of band k above p->max_cells cells. */
static int offline_affordable(const qt_ln_params *p, int64_t n_events, int64_t k,
                              qt_ln_stats *stats) {
    if ((double)n_events * (double)(k + 1) > p->max_cells) {
        memset(stats, 0, sizeof *stats);
        stats->offline_band = k;
        return -2;
    }
    return 0;
}

/* qt_ln_offline on a path. */
static int offline_solve(const qt_ln_params *p, const qt_ln_path *path, qt_ln_stats *stats,
                         qt_ln_trace *trace) {
    const int64_t n = p->servers, n_events = path->size;
    if (p->band >= 0 && dp_exact(p, n_events)) {
        /* Bands K, 2 K, ... while they stay well below the full width: the banded
         * programme, each with a stack ring of the largest power of 2 <= 2 K (>= K, and
         * < N - K); with one class below the marginal one, the programme of segments up to
         * QT_LN_ONE_PASS_BAND (only K when larger: it keeps the admission bits of the
         * whole path), which gives up (2) for the full programme at once. */
        const int by_blocks = marginal_class(p) == p->classes - 2;
        const int64_t first = p->band > 0 ? p->band : QT_LN_BAND;
        for (int64_t k = first;
             4 * k + 1 < n && (!by_blocks || k == first || k <= QT_LN_ONE_PASS_BAND); k *= 2) {
            int64_t cap = by_blocks ? 0 : 1; /* the programme of segments keeps no ring */
            while (cap > 0 && 2 * cap <= 2 * k) {
                cap *= 2;
            }
            int status = offline_affordable(p, n_events, k, stats);
            if (status == 0) {
                status = offline_band(p, path, k, cap, by_blocks, stats, trace);
            }
            if (status <= 0) {
                return status;
            }
            if (status == 2) {
                break;
            }
        }
    }
    int status = offline_affordable(p, n_events, n, stats);
    return status < 0 ? status : offline_band(p, path, n, 0, 0, stats, trace);
}

int qt_ln_offline(const qt_ln_params *p, const qt_ln_event *events, int64_t n_events,
                  qt_ln_stats *stats, qt_ln_trace *trace) {
    const qt_ln_path path = {(const char *)events + offsetof(qt_ln_event, code),
                             (const char *)events + offsetof(qt_ln_event, t),
                             sizeof *events, sizeof *events, n_events};
    return offline_solve(p, &path, stats, trace);
}

/* The clock-model path of (0, T] drawn from rng, the events of qt_ln_clock_path (the
 * first one past the horizon is drawn and dropped), into the growable arrays *t and
 * *code (12 bytes an event instead of a qt_ln_event's 16).  -1 when out of memory. */
static int offline_draw(const qt_ln_params *p, bitgen_t *rng, double **t, int32_t **code,
                        int64_t *n_events) {
    qt_ln_clock c;
    qt_ln_clock_init(&c, rng, p);
    qt_ln_event block[QT_LN_FILL];
    int64_t size = 0, t_capacity = 0, code_capacity = 0;
    for (;;) {
        int64_t made = qt_ln_clock_fill(&c, block, QT_LN_FILL, p->horizon);
        made -= c.t > p->horizon;
        if (grow((void **)t, &t_capacity, size + made, sizeof **t) < 0 ||
            grow((void **)code, &code_capacity, size + made, sizeof **code) < 0) {
            return -1;
        }
        for (int64_t i = 0; i < made; i++) {
            (*t)[size + i] = block[i].t;
            (*code)[size + i] = block[i].code;
        }
        size += made;
        if (c.t > p->horizon) {
            *n_events = size;
            return 0;
        }
    }
}

int qt_ln_offline_drawn(const qt_ln_params *p, bitgen_t *rng, qt_ln_stats *stats,
                        qt_ln_trace *trace, int64_t *n_events) {
    double *t = NULL;
    int32_t *code = NULL;
    int status = offline_draw(p, rng, &t, &code, n_events);
    if (status == 0) {
        const qt_ln_path path = {(const char *)code, (const char *)t, sizeof *code, sizeof *t,
                                 *n_events};
        status = offline_solve(p, &path, stats, trace);
    }
    free(t);
    free(code);
    return status;
}
