/*
 * Lindley-recursion simulator of a single-server FIFO queue whose admitted
 * inter-arrival times are T = gate + G + Exp(arrival_rate) (gated admission; gate = 0 gives
 * a Poisson stream, arrival_rate = inf gives T = gate exactly; G is an optional
 * phase-type gate, 0 when absent) and whose i.i.d. service times have mean service_mean
 * (exponential, deterministic, Erlang, hyper-exponential or phase-type).  With renewal
 * potential arrivals (ph_arrivals: i.i.d. phase-type gaps X) an admission opens a gate of
 * length `gate`, and T runs from it to the first arrival after the gate that is admitted,
 * each with probability admit_probability (1: gated admission; gate 0: random routing):
 *
 *     W_1 = 0,   W_{n+1} = max(0, W_n + S_n - T_{n+1}),   sojourn_n = W_n + S_n.
 *
 * Pure C: no Python objects, safe to run without the GIL.  Every random number comes
 * from a NumPy bit generator through NumPy's distribution kernels (npyrandom).  The
 * caller validates the parameters (see lindley_py.c) and must own the bit generator
 * (hold its lock) for the whole run.
 */
#ifndef QTHEORY_SIM_LINDLEY_H
#define QTHEORY_SIM_LINDLEY_H

#include <stdint.h>

#include "numpy/random/bitgen.h"

/* Largest hyper-exponential scv: its slow phase (probability about 1 / (2 scv)) must
 * stay far above the 2^-53 resolution of the uniform draw that selects it. */
#define QT_HYPEREXP_MAX_SCV 1e9

typedef enum {
    QT_SERVICE_EXPONENTIAL,
    QT_SERVICE_DETERMINISTIC,
    QT_SERVICE_ERLANG,   /* parameter: number of phases k >= 1 */
    QT_SERVICE_HYPEREXP, /* parameter: squared coefficient of variation > 1 */
    QT_SERVICE_PH,       /* a phase-type law (qt_ph_law), rescaled to mean service_mean */
} qt_service_kind;

/* Most phases of a phase-type law (its mean is found by O(m^3) elimination). */
#define QT_PH_MAX_PHASES 256
/* Most expected phase visits per draw (a draw runs the absorbing chain phase by phase;
 * nearly-closed loops of phases would make one draw take practically forever). */
#define QT_PH_MAX_VISITS 1e6

/*
 * A phase-type law PH(alpha, T) in the form the sampler wants: start in phase i with
 * probability alpha_i; stay an exponential time of mean holding_mean[i]; then jump to
 * phase j with probability -T_ij / T_ii or be absorbed with probability t_i / -T_ii
 * (t = -T 1).  The sample is the total time until absorption.  Both probability rows
 * are stored cumulatively, their last entry exactly 1.
 */
typedef struct {
    int phases;                 /* m >= 1 */
    const double *alpha_cum;    /* m entries */
    const double *jump_cum;     /* m rows of m + 1 entries (entry m: absorption) */
    const double *holding_mean; /* m entries */
} qt_ph_law;

/* Doubles of the buffer that qt_ph_law_make fills for m phases. */
#define QT_PH_BUFFER_SIZE(m) ((size_t)(m) * (size_t)(m) + 3 * (size_t)(m))

/*
 * Fill `buffer` (QT_PH_BUFFER_SIZE(m) doubles, owned by the caller for the law's life)
 * from a VALID representation (alpha >= 0 summing to 1, T a sub-generator from whose
 * every phase absorption is reachable; alpha and T row-major) and return the law of
 * `time_scale` times a PH(alpha, T) variable.
 */
qt_ph_law qt_ph_law_make(int m, const double *alpha, const double *T, double time_scale,
                         double *buffer);

/* Model parameters in the form the sampling loop wants them. */
typedef struct {
    double gate;          /* fixed part of every inter-arrival time */
    double arrival_scale; /* mean of the exponential part: 1 / arrival_rate */
    int random_arrivals;  /* 0 when arrival_rate is infinite (T = gate) */
    qt_service_kind kind;
    double service_mean;  /* 1 / service_rate */
    double erlang_shape;  /* k (Erlang) */
    double hyper_p_slow;    /* probability p2 <= 1/2 of the slow phase (hyper-exponential) */
    double hyper_mean_fast; /* service_mean / (2 p1), p1 = 1 - p2 */
    double hyper_mean_slow; /* service_mean / (2 p2) */
    qt_ph_law service_ph;   /* QT_SERVICE_PH */
    int ph_gate;            /* 1: add a draw of gate_ph to every inter-arrival time */
    qt_ph_law gate_ph;
    int ph_arrivals;          /* 1: potential arrivals are a renewal stream of arrival_ph */
    qt_ph_law arrival_ph;     /* its gap X, already scaled to mean 1 / arrival_rate */
    double admit_probability; /* each arrival after the gate is admitted with it (ph_arrivals) */
} qt_lindley_model;

/*
 * Fill in a model.  service_param is k for Erlang and the squared coefficient of
 * variation for the hyper-exponential law (two phases with balanced means), and is
 * ignored otherwise.  Parameters must already be valid.  A phase-type service law or
 * gate is set afterwards (service_ph, already scaled to mean service_mean; ph_gate and
 * gate_ph), and so are renewal arrivals (ph_arrivals, arrival_ph, admit_probability).
 */
qt_lindley_model qt_lindley_model_make(double gate, double arrival_rate, qt_service_kind kind,
                                       double service_rate, double service_param);

/*
 * pi = alpha e^{Q tau}, Q = T + t alpha (t = -T 1): the phase law at time tau >= 0 of the
 * renewal process of PH(alpha, T) gaps started at a renewal, for a VALID representation.
 * Uniformisation (P = I + Q / theta, theta the largest rate out of a phase) over a step
 * h = tau / 2^j with theta h <= 1/2, 25 terms (tail below 1e-25), then j squarings, which
 * stop once a squaring leaves e^{Qh} unchanged (its rows have reached the stationary
 * law); every matrix is stochastic, so nothing cancels.  `work` holds 4 m^2 doubles.
 */
void qt_renewal_phases(int m, const double *alpha, const double *T, double tau, double *pi,
                       double *work);

/* The customer simulated last (all zero before the first: an empty system). */
typedef struct {
    double wait;
    double service;
} qt_lindley_customer;

/*
 * A resumable run: `warmup` unrecorded customers, then `batches` batches of
 * `per_batch` recorded customers.  Each output array has `batches` entries, must be
 * zero on entry and receives per-batch SUMS: sojourn times, waiting times, number of
 * customers who did not wait, inter-arrival times.
 */
typedef struct {
    int64_t warmup_left;
    int64_t per_batch;
    int64_t batches;
    int64_t batch;         /* index of the batch being filled */
    int64_t done_in_batch; /* customers already recorded in that batch */
    qt_lindley_customer last;
    double *sojourn_sum;
    double *wait_sum;
    double *no_wait_count;
    double *interarrival_sum;
} qt_lindley_run;

/*
 * Simulate at most `budget` further customers (warm-up customers count) and return
 * 1 when the run is complete, 0 otherwise.  Call repeatedly to finish the run.
 */
int qt_lindley_advance(bitgen_t *rng, const qt_lindley_model *model, qt_lindley_run *run,
                       int64_t budget);

#endif /* QTHEORY_SIM_LINDLEY_H */
