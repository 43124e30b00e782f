/*
 * Simulator of the overloaded loss network with n >= 2 customer classes
 * (docs/loss-network.md).
 *
 * N servers, no queue; class j = 1..n arrives Poisson(lambda_j N); an admitted job holds
 * a server for an Exp(mu) time and pays r_j on admission, r_1 > ... > r_n.  The
 * two-class network is n = 2 with H = class 1 and L = class 2 (the names used below
 * where a rule is easier to state for n = 2).  The run starts empty at time 0 and stops
 * at the horizon T; statistics are recorded in the window (T0, T] (T0 = warm-up).
 *
 * Information models
 * ------------------
 * clock: the future is one stream of events (time, code), generated from the bit
 *   generator independently of any policy (so one seed replays one future under every
 *   policy: common random numbers).  Events form a Poisson process of rate
 *   Lambda = N (lambda_1 + ... + lambda_n + mu); each is an arrival of class j (code
 *   -j: -1 for H, -2 for L) or a potential departure, with probabilities proportional
 *   to lambda_1, ..., lambda_n, mu.  A potential departure carries a uniform mark U,
 *   stored as the slot floor(U N) in 0..N-1; it ends a service iff U < busy / N, i.e.
 *   iff slot < busy.  Per event the draws are one standard exponential (time step) and
 *   one uint64 whose top 53 bits give a uniform u that picks the type (class j iff
 *   P(class < j) <= u < P(class <= j)) and, for a departure, the mark
 *   U = (u - P(arrival)) / P(departure) (uniform given the type; its resolution is
 *   2^-53 / P(departure)).
 * job: every arrival carries its own Exp(mu) service time, drawn whether or not the job
 *   is admitted; departures come from a binary heap of completion times.
 *
 * Policies (clock model: all; job model: threshold only)
 * -------------------------------------------------------
 * threshold (k_1, ..., k_n): admit class j iff idle > k_j (nested trunk reservation,
 *   k_1 <= ... <= k_n; n = 2: admit H iff idle > 0, L iff idle > k).
 * pfi / sss(W): class 1 is admitted iff a server is idle.  An arrival of class j >= 2
 *   to idle I is judged on the hypothetical future in which it is admitted, every later
 *   arrival of a better class 1..j-1 is admitted and every later arrival of class j..n
 *   is rejected (n = 2: an L, with every later H admitted and every later L rejected);
 *   call h the hypothetical idle count, h = I - 1 just after the admission.  Boundary
 *   conventions: "the idle count drops below 1" means h = 0 at some instant of the
 *   hypothetical future, including the instant of admission itself (so a class j >= 2
 *   is never admitted with I <= 1); a better arrival while h = 0 cannot occur before
 *   that failure is declared.
 *   pfi: admit iff h reaches s = floor(sqrt(N)) (h >= s, possibly already at admission)
 *   before it drops below 1; the failure test comes first, so for N <= 3 (s = 1) a
 *   class j >= 2 is admitted exactly when I >= 2.  The promise is judged on the infinite
 *   future (past the horizon if needed), in O(1) amortised work per event: a threshold
 *   theta_j(m) of the class and the next event index decides (admit iff
 *   I - 1 >= theta_j(m)), computed by a backward recursion that is exact where its two
 *   envelopes meet, and the look-ahead statistics of the literal scan come from the
 *   walks' ends read backward over chunks of the events, the walks still pending at a
 *   chunk's end grouped by idle count (lossnet.c, "PFI in O(1) amortised work per
 *   event"), unless lookahead_stats is 0.
 *   sss(W): admit iff h >= 1 at every instant of [t, t + W] (events at exactly t + W
 *   count).  Only events in the window are scanned, and the scan stops early once the
 *   better arrivals left in the window (prefix counts kept with the buffer) cannot
 *   bring h to 0.  With two classes and lookahead_stats 0, where windows hold at most
 *   1024 expected events and mu W K <= 1/16 (K about the window's H arrivals), a
 *   threshold per L arrival decides instead, like PFI's: 1 + how far the running count
 *   of departures minus H arrivals falls below its value at the window's start, read
 *   from a sparse table of minima (a window that may hold a departure not ending a
 *   service is read backward; lossnet.c, "SSS deciding only, two classes").
 * offline (clock model): the exact optimum over the generated path by backward dynamic
 *   programming over (event, busy): V_i(b) = best reward from event i on with b busy.
 *   The objective is the reward of the whole run (0, T]; the statistics of the
 *   optimal path are then recorded in (T0, T] like for every other policy.  By default
 *   the programme keeps only a band of K + 1 busy counts N - K..N (idle 0..K) with a
 *   certificate that the optimum admits everything at more than K idle servers, and
 *   falls back to wider bands and to the full programme when the certificate fails
 *   (lossnet.c, "Banded programme with a certificate"); its values and decisions are the
 *   full programme's, bit for bit.  The certificate needs the optimum to admit every
 *   class there, which holds when the marginal class is the last one (n = 2 always);
 *   with classes below the marginal class the offline optimum turns them away at some
 *   idle counts of order N and admits them at others (the classes above them overload
 *   the system: measured, the value of the k-th idle server exceeds r_n at scattered k
 *   up to 0.1 N to 0.4 N over the horizon at N = 300 and 1000).  With exactly one class
 *   below the marginal one, the programme of segments runs instead (lossnet.c,
 *   "Programme of segments"): the band, and the whole stack of idle-server values as
 *   blocks on which the lower class acts block by block, the same decisions bit for bit;
 *   with more, the full programme.
 *
 * Pure C, no Python objects: safe without the GIL.  The caller validates the
 * parameters (lossnet_py.c) and owns the bit generator for the whole run.
 */
#ifndef QTHEORY_SIM_LOSSNET_H
#define QTHEORY_SIM_LOSSNET_H

#include <stdint.h>

#include "numpy/random/bitgen.h"

/* Largest N: slots are int32. */
#define QT_LN_MAX_SERVERS 1000000000

/* Most classes n (fixed-size arrays in the parameters and statistics). */
#define QT_LN_MAX_CLASSES 32

/* Largest expected event count (lambda_1 + ... + lambda_n + mu) N T of a run or path.
 * Event times are float64 sums of steps of mean 1 / (event rate); beyond about 1e15
 * events a step is a few ulps of the time (at 1e17 most steps round to nothing and a run
 * would never reach T), and the int64 counters stay far from overflow. */
#define QT_LN_MAX_EVENTS 1e15

/* Largest expected event count (lambda_1 + ... + lambda_n + mu) N W of an SSS window:
 * the scan counts the better arrivals of the window in 32 bits (prefix counts of the
 * lookahead buffer). */
#define QT_LN_MAX_WINDOW_EVENTS 1e9

/* Largest single allocation attempted, in bytes (1 TiB): a larger request fails as out
 * of memory without reaching the allocator (whose own limit may abort the process, e.g.
 * under AddressSanitizer).  Sizes are computed with overflow checks against it. */
#define QT_LN_MAX_ALLOC ((uint64_t)1 << 40)

/* Event codes: an arrival of class j = 1..n has code -j; codes >= 0 are departure
 * slots. */
#define QT_LN_H (-1)
#define QT_LN_L (-2)

typedef enum { QT_LN_THRESHOLD, QT_LN_PFI, QT_LN_SSS, QT_LN_OFFLINE } qt_ln_policy;

/* The instruction sets of the kernels' twins, in order: a run takes the best one the
 * processor has up to its params' `isa` (QT_LN_ISA_BEST, 0: no cap).  Every twin gives
 * the same numbers; the cap lets a test run each of them. */
typedef enum {
    QT_LN_ISA_BEST,
    QT_LN_ISA_GENERIC, /* SSE2 on x86-64, plain C or the compiler's vectors elsewhere */
    QT_LN_ISA_AVX2,
    QT_LN_ISA_AVX512
} qt_ln_isa;

/* Model and run parameters (validated by the caller). */
typedef struct {
    int64_t servers;
    int32_t classes;                   /* n, 2..QT_LN_MAX_CLASSES */
    double lambda[QT_LN_MAX_CLASSES];  /* per-server rates: class rates are lambda N */
    double reward[QT_LN_MAX_CLASSES];  /* r_1 > ... > r_n (the band's certificate uses r_n) */
    double mu;
    double horizon, warmup;
    qt_ln_policy policy;
    int64_t reserve[QT_LN_MAX_CLASSES]; /* threshold k_1 <= ... <= k_n, in 0..N */
    double window;    /* sss W */
    int lookahead_stats; /* pfi and sss: 1 records the look-ahead statistics, 0 skips them */
    int64_t band;     /* offline: first band K (0: QT_LN_BAND), -1 for the full programme */
    double max_cells; /* offline: no programme of more than max_cells cells is started */
    qt_ln_isa isa;    /* the best instruction set the kernels may take (see qt_ln_isa) */
} qt_ln_params;

typedef struct {
    double t;
    int32_t code; /* -j for an arrival of class j, or a departure slot 0..N-1 */
} qt_ln_event;

typedef struct qt_ln_source qt_ln_source;

/* Event generator of the clock model: draws from `rng`, or, with `source` set, replays
 * the source's events from index `next` on (see qt_ln_source). */
typedef struct {
    bitgen_t *rng;
    qt_ln_source *source;
    int64_t next;
    int32_t classes;
    double step_scale;                /* 1 / Lambda */
    double cum[QT_LN_MAX_CLASSES];    /* cum[j] = P(an arrival of class <= j + 1) */
    double slot_scale;                /* N / P(departure) */
    double max_slot;                  /* N - 1 */
    double t;                         /* time of the last event generated */
} qt_ln_clock;

void qt_ln_clock_init(qt_ln_clock *c, bitgen_t *rng, const qt_ln_params *p);

/* Up to `count` next events into out[0..count), exactly as drawn one at a time, stopping
 * after the first event later than `stop` (none if the last one generated already is);
 * returns the number generated, or -1 when a replaying clock's source cannot grow (out
 * of memory). */
int64_t qt_ln_clock_fill(qt_ln_clock *c, qt_ln_event *out, int64_t count, double stop);

/*
 * A clock-model path drawn once and replayed: the events a clock on `rng` would draw,
 * kept in a growable array that is extended (by that clock) only when a replaying run
 * needs an event not drawn yet.  Every run that reads it sees exactly the events of a
 * run drawing from a fresh bit generator in the state `rng` had at qt_ln_source_init
 * (the draws of one event do not depend on the policy), so several policies on one
 * path (common random numbers) draw it once.  Not thread-safe: one run at a time.
 */
struct qt_ln_source {
    qt_ln_clock clock; /* draws the events (never replays) */
    qt_ln_event *events;
    int64_t size, capacity;
};

void qt_ln_source_init(qt_ln_source *s, bitgen_t *rng, const qt_ln_params *p);
void qt_ln_source_free(qt_ln_source *s);

/* The events of (0, T] of the source (drawn up to the first one past the horizon):
 * *events points into the source (valid until it next grows), *n_events their count.
 * -1 when out of memory. */
int qt_ln_source_path(qt_ln_source *s, double horizon, const qt_ln_event **events,
                      int64_t *n_events);

/* Statistics of one run; everything except `events` and `reward_total` is recorded in
 * the window (T0, T].  "Scored" arrivals are those of classes 2..n (n = 2: L), whose
 * decisions a lookahead policy takes on a look-ahead.  PFI's lookahead sums are complete
 * once the run has finished (the walks of its last promises are followed past the
 * horizon then); both sums are 0 when the run's lookahead_stats is 0. */
typedef struct {
    int64_t admitted[QT_LN_MAX_CLASSES], rejected[QT_LN_MAX_CLASSES];
    double idle_area;          /* integral of the idle count over (T0, T] */
    int64_t events;            /* events processed in (0, T] */
    double reward_total;       /* reward earned in (0, T] */
    int64_t lookahead_events;  /* sum over scored arrivals in the window of events scanned */
    double lookahead_time;     /* ... and of (time of the last event scanned - now) */
    int64_t arrivals_scored;   /* scored arrivals in the window (denominator of the means) */
    int64_t offline_band;      /* offline: the band K the programme used (N: full) */
} qt_ln_stats;

/* Optional per-event trace: time, code, decision (1 admit, 0 reject, -1 departure
 * event) and the busy count just after the event (so a departure that ends no service
 * leaves it unchanged).  Growable arrays owned by the caller (free with
 * qt_ln_trace_free); an append that cannot grow them fails the run with -1 (out of
 * memory) and leaves every array valid. */
typedef struct {
    double *t;
    int32_t *code;
    int8_t *decision;
    int32_t *busy;
    int64_t size, capacity;
} qt_ln_trace;

void qt_ln_trace_free(qt_ln_trace *tr);

/*
 * A resumable run of a threshold, pfi or sss policy in the clock model, or of the
 * threshold policy in the job model.  Create with qt_ln_run_new (NULL when out of
 * memory), call qt_ln_run_advance until it returns 1 (-1: out of memory, including an
 * array that would exceed QT_LN_MAX_ALLOC), read the statistics, free with
 * qt_ln_run_free.  The job model's heap of completion times grows with the busy count
 * (no up-front N-sized allocation).
 */
typedef struct qt_ln_run qt_ln_run;

/* `source` (clock model only; NULL to draw from `rng`): replay its events instead. */
qt_ln_run *qt_ln_run_new(const qt_ln_params *p, bitgen_t *rng, qt_ln_source *source,
                         int job_model, qt_ln_trace *trace);
int qt_ln_run_advance(qt_ln_run *run, int64_t budget);
const qt_ln_stats *qt_ln_run_stats(const qt_ln_run *run);
void qt_ln_run_free(qt_ln_run *run);

/* First band width tried by the certified banded programme (a power of 2). */
#define QT_LN_BAND 32

/*
 * Offline optimum in the clock model over the events of (0, T] (events[i].t increasing,
 * all <= horizon).  p->band = -1 runs the full programme: work O(n_events * N), memory
 * about 9 (N + 1) (sqrt(n_events) + 3) bytes (checkpointed backward values and one
 * segment's admission bits).  Otherwise it tries the certified bands K = p->band
 * (QT_LN_BAND if 0), 2 K, 4 K, ... while 4 K + 1 < N (work O(n_events * K) each, memory
 * 4 n_events bytes of admission bits for K <= 32, 8 n_events for K <= 64 (of which only
 * the arrivals' are written) and O(K sqrt(n_events)) above), then the full programme;
 * with exactly one class below the marginal one (the first m with lambda_1 + ... +
 * lambda_m > mu), the programme of segments instead of the bands, K then 2 K up to 64
 * (lossnet.c, "Programme of segments": work O(n_events * (K + blocks)) plus the entries
 * it moves, blocks N / 30 to N / 7 measured; memory the admission bits of the whole path,
 * the stack's blocks (peaks of 3.5 to 6.2 N doubles measured), 16 bytes per lower-class
 * arrival and 4 bytes per cut, most cuts while the servers fill up: 0.03 to 0.14 N^2
 * measured; past a budget of cuts it gives way to the full programme).
 * stats->offline_band says which ran.  No programme of more than
 * p->max_cells cells (n_events * (K + 1)) is started.  Returns 0, -1 when out of memory
 * (or when the checkpoints would exceed QT_LN_MAX_ALLOC), -2 when the next programme to
 * try would exceed p->max_cells (stats->offline_band then holds its width K), or -3 when
 * the programme of segments' work (its band's cells and the blocks it walks) passes
 * p->max_cells (stats->offline_band: its K).
 */
int qt_ln_offline(const qt_ln_params *p, const qt_ln_event *events, int64_t n_events,
                  qt_ln_stats *stats, qt_ln_trace *trace);

/* qt_ln_offline on the clock-model path of (0, T] drawn from rng (the events of
 * qt_ln_clock_path, kept in 12 bytes each instead of 16); *n_events is set to their
 * count once drawn.  Same returns. */
int qt_ln_offline_drawn(const qt_ln_params *p, bitgen_t *rng, qt_ln_stats *stats,
                        qt_ln_trace *trace, int64_t *n_events);

/* The whole clock-model path of (0, T] (growable array; *n_events set).  NULL when out of
 * memory. */
qt_ln_event *qt_ln_clock_path(const qt_ln_params *p, bitgen_t *rng, int64_t *n_events);

/* One arrival of the job model. */
typedef struct {
    double t;
    double service;
    int32_t klass; /* 0-based class: 0 for H, 1 for L */
} qt_ln_job;

/* All job-model arrivals of (0, T]. NULL when out of memory. */
qt_ln_job *qt_ln_job_path(const qt_ln_params *p, bitgen_t *rng, int64_t *n_jobs);

#endif /* QTHEORY_SIM_LOSSNET_H */
