/* Sampling loop of the Lindley-recursion simulator; see lindley.h. */
#define PY_SSIZE_T_CLEAN
#include <Python.h> /* numpy/random/distributions.h needs it first */

#include <math.h>

#include "numpy/random/distributions.h"

#include "lindley.h"

#define QT_INLINE static inline __attribute__((always_inline))

qt_lindley_model qt_lindley_model_make(double gate, double arrival_rate, qt_service_kind kind,
                                       double service_rate, double service_param) {
    qt_lindley_model m = {0};
    m.gate = gate;
    m.random_arrivals = !isinf(arrival_rate);
    m.arrival_scale = m.random_arrivals ? 1.0 / arrival_rate : 0.0;
    m.kind = kind;
    m.service_mean = 1.0 / service_rate;
    if (kind == QT_SERVICE_ERLANG) {
        m.erlang_shape = service_param;
    } else if (kind == QT_SERVICE_HYPEREXP) {
        /* Balanced means (p1 * mean1 = p2 * mean2 = mean / 2) give
         * E[S^2] = mean^2 / (2 p1 p2), i.e. scv = 1 / (2 p1 p2) - 1, whose root
         * p2 <= 1/2 is p2 = (1 - sqrt(r)) / 2 = 1 / ((scv + 1) (1 + sqrt(r))) with
         * r = (scv - 1) / (scv + 1); the second form avoids cancellation. */
        double scv = service_param;
        double p_slow = 1.0 / ((scv + 1.0) * (1.0 + sqrt((scv - 1.0) / (scv + 1.0))));
        m.hyper_p_slow = p_slow;
        m.hyper_mean_fast = m.service_mean / (2.0 * (1.0 - p_slow));
        m.hyper_mean_slow = m.service_mean / (2.0 * p_slow);
    }
    return m;
}

/* Cumulative probabilities of n outcomes (last entry 1): the outcome of a uniform u in
 * [0, 1), skipping outcomes of probability 0. */
QT_INLINE int pick(const double *cum, int n, double u) {
    int j = 0;
    while (j < n - 1 && u >= cum[j]) {
        j++;
    }
    return j;
}

qt_ph_law qt_ph_law_make(int m, const double *alpha, const double *T, double time_scale,
                         double *buffer) {
    double *alpha_cum = buffer;
    double *jump_cum = buffer + m;
    double *holding_mean = buffer + m + (size_t)m * (m + 1);
    double total = 0.0;
    for (int i = 0; i < m; i++) {
        total += alpha[i];
        alpha_cum[i] = total;
    }
    alpha_cum[m - 1] = 1.0;
    for (int i = 0; i < m; i++) {
        const double *row = T + (size_t)i * m;
        double out = -row[i]; /* total rate out of phase i (> 0 for a valid law) */
        double *cum = jump_cum + (size_t)i * (m + 1);
        double running = 0.0;
        for (int j = 0; j < m; j++) {
            running += (j == i) ? 0.0 : row[j] / out;
            cum[j] = running;
        }
        cum[m] = 1.0; /* the rest, t_i / out, is absorption */
        holding_mean[i] = time_scale / out;
    }
    qt_ph_law law = {m, alpha_cum, jump_cum, holding_mean};
    return law;
}

static void multiply(int m, const double *A, const double *B, double *out) {
    for (int i = 0; i < m; i++) {
        double *row = out + (size_t)i * m;
        for (int j = 0; j < m; j++) {
            row[j] = 0.0;
        }
        for (int k = 0; k < m; k++) {
            double a = A[(size_t)i * m + k];
            const double *b = B + (size_t)k * m;
            for (int j = 0; j < m && a != 0.0; j++) {
                row[j] += a * b[j];
            }
        }
    }
}

void qt_renewal_phases(int m, const double *alpha, const double *T, double tau, double *pi,
                       double *work) {
    const size_t mm = (size_t)m * m;
    double *P = work, *E = work + mm, *power = work + 2 * mm, *next = work + 3 * mm;
    double theta = 0.0;
    for (int i = 0; i < m; i++) {
        double exit = 0.0;
        for (int j = 0; j < m; j++) {
            exit -= T[(size_t)i * m + j];
        }
        for (int j = 0; j < m; j++) {
            P[(size_t)i * m + j] = T[(size_t)i * m + j] + exit * alpha[j]; /* Q for now */
        }
        theta = fmax(theta, -P[(size_t)i * m + i]);
    }
    for (int j = 0; j < m; j++) {
        pi[j] = alpha[j];
    }
    if (!(theta > 0.0 && tau > 0.0)) {
        return; /* Q = 0 (an exponential gap) or tau = 0: the phase law stays alpha */
    }
    int squarings = 0;
    double h = tau;
    while (theta * h > 0.5) {
        h *= 0.5;
        squarings++;
    }
    for (size_t k = 0; k < mm; k++) {
        P[k] /= theta;
    }
    for (int i = 0; i < m; i++) {
        P[(size_t)i * m + i] += 1.0;
    }
    double x = theta * h, weight = exp(-x);
    for (size_t k = 0; k < mm; k++) {
        power[k] = (k % ((size_t)m + 1) == 0) ? 1.0 : 0.0;
        E[k] = weight * power[k];
    }
    for (int k = 1; k <= 25; k++) {
        multiply(m, power, P, next);
        weight *= x / k;
        for (size_t c = 0; c < mm; c++) {
            power[c] = next[c];
            E[c] += weight * next[c];
        }
    }
    for (int s = 0; s < squarings; s++) {
        multiply(m, E, E, next);
        double change = 0.0;
        for (size_t c = 0; c < mm; c++) {
            change = fmax(change, fabs(next[c] - E[c]));
            E[c] = next[c];
        }
        if (change <= 1e-17) {
            break;
        }
    }
    for (int j = 0; j < m; j++) {
        double v = 0.0;
        for (int i = 0; i < m; i++) {
            v += alpha[i] * E[(size_t)i * m + j];
        }
        pi[j] = v;
    }
}

/* A draw of the phase-type law: run its absorbing chain. */
QT_INLINE double draw_ph(bitgen_t *rng, const qt_ph_law *ph) {
    int m = ph->phases;
    int phase = pick(ph->alpha_cum, m, next_double(rng));
    double total = 0.0;
    for (;;) {
        total += ph->holding_mean[phase] * random_standard_exponential(rng);
        int next = pick(ph->jump_cum + (size_t)phase * (m + 1), m + 1, next_double(rng));
        if (next == m) {
            return total;
        }
        phase = next;
    }
}

/* The gap to the next admission with renewal arrivals: from one admission (an arrival),
 * arrivals until the gate has passed, then until one is admitted.  No uniform is drawn
 * when every arrival after the gate is admitted. */
QT_INLINE double draw_renewal_gap(bitgen_t *rng, const qt_lindley_model *m) {
    int thinned = m->admit_probability < 1.0;
    double t = 0.0;
    do {
        t += draw_ph(rng, &m->arrival_ph);
    } while (t < m->gate || (thinned && next_double(rng) >= m->admit_probability));
    return t;
}

QT_INLINE double draw_interarrival(bitgen_t *rng, const qt_lindley_model *m) {
    if (m->ph_arrivals) {
        return draw_renewal_gap(rng, m);
    }
    double t = m->gate;
    if (m->ph_gate) {
        t += draw_ph(rng, &m->gate_ph);
    }
    if (m->random_arrivals) {
        t += m->arrival_scale * random_standard_exponential(rng);
    }
    return t;
}

/* `kind` is a compile-time constant at every call site, so the switch folds away. */
QT_INLINE double draw_service(bitgen_t *rng, const qt_lindley_model *m, qt_service_kind kind) {
    switch (kind) {
    case QT_SERVICE_EXPONENTIAL:
        return m->service_mean * random_standard_exponential(rng);
    case QT_SERVICE_DETERMINISTIC:
        return m->service_mean;
    case QT_SERVICE_ERLANG: /* Gamma(k, 1) with integer k is Erlang(k) */
        return m->service_mean / m->erlang_shape * random_standard_gamma(rng, m->erlang_shape);
    case QT_SERVICE_HYPEREXP: {
        int slow = next_double(rng) < m->hyper_p_slow;
        return (slow ? m->hyper_mean_slow : m->hyper_mean_fast) * random_standard_exponential(rng);
    }
    case QT_SERVICE_PH:
        return draw_ph(rng, &m->service_ph);
    }
    return NAN; /* unreachable: the kind is validated */
}

typedef struct {
    double sojourn, wait, no_wait, interarrival;
} segment_sums;

/*
 * Simulate n customers, adding their statistics to *sums when sums != NULL.  The
 * recursion is written W = max(0, W_prev + (S_prev - T)) so that the loop-carried
 * dependency is one addition and one max; S_prev - T is computed off that chain.
 */
QT_INLINE void segment(bitgen_t *rng, const qt_lindley_model *m, qt_service_kind kind,
                       qt_lindley_customer *last, int64_t n, segment_sums *sums) {
    double wait = last->wait, service = last->service;
    double sojourn_total = 0.0, wait_total = 0.0, interarrival_total = 0.0;
    int64_t no_wait = 0;
    for (int64_t i = 0; i < n; i++) {
        double t = draw_interarrival(rng, m);
        wait = wait + (service - t);
        wait = wait > 0.0 ? wait : 0.0;
        service = draw_service(rng, m, kind);
        sojourn_total += wait + service;
        wait_total += wait;
        no_wait += (wait == 0.0);
        interarrival_total += t;
    }
    last->wait = wait;
    last->service = service;
    if (sums != NULL) {
        sums->sojourn = sojourn_total;
        sums->wait = wait_total;
        sums->no_wait = (double)no_wait;
        sums->interarrival = interarrival_total;
    }
}

/* One specialised copy of the loop per service law. */
static void segment_dispatch(bitgen_t *rng, const qt_lindley_model *m, qt_lindley_customer *last,
                             int64_t n, segment_sums *sums) {
    switch (m->kind) {
    case QT_SERVICE_EXPONENTIAL:
        segment(rng, m, QT_SERVICE_EXPONENTIAL, last, n, sums);
        break;
    case QT_SERVICE_DETERMINISTIC:
        segment(rng, m, QT_SERVICE_DETERMINISTIC, last, n, sums);
        break;
    case QT_SERVICE_ERLANG:
        segment(rng, m, QT_SERVICE_ERLANG, last, n, sums);
        break;
    case QT_SERVICE_HYPEREXP:
        segment(rng, m, QT_SERVICE_HYPEREXP, last, n, sums);
        break;
    case QT_SERVICE_PH:
        segment(rng, m, QT_SERVICE_PH, last, n, sums);
        break;
    }
}

static int64_t min64(int64_t a, int64_t b) { return a < b ? a : b; }

int qt_lindley_advance(bitgen_t *rng, const qt_lindley_model *model, qt_lindley_run *run,
                       int64_t budget) {
    if (run->warmup_left > 0) {
        int64_t n = min64(run->warmup_left, budget);
        segment_dispatch(rng, model, &run->last, n, NULL);
        run->warmup_left -= n;
        budget -= n;
    }
    while (budget > 0 && run->batch < run->batches) {
        int64_t n = min64(run->per_batch - run->done_in_batch, budget);
        segment_sums sums;
        segment_dispatch(rng, model, &run->last, n, &sums);
        int64_t b = run->batch;
        run->sojourn_sum[b] += sums.sojourn;
        run->wait_sum[b] += sums.wait;
        run->no_wait_count[b] += sums.no_wait;
        run->interarrival_sum[b] += sums.interarrival;
        run->done_in_batch += n;
        budget -= n;
        if (run->done_in_batch == run->per_batch) {
            run->batch++;
            run->done_in_batch = 0;
        }
    }
    return run->warmup_left == 0 && run->batch == run->batches;
}
