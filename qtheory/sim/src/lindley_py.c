/*
 * qtheory.sim._core.lindley: argument checking, output arrays and the GIL-free run of
 * the Lindley-recursion simulator in lindley.c.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <math.h>
#include <string.h>

#include "qt_numpy.h"

#include "lindley.h"
#include "lindley_py.h"
#include "qt_args.h"

/* Most expected phase visits of the potential arrivals per admission with renewal
 * arrivals (one admission is simulated without a look at the signals). */
#define QT_MAX_VISITS_PER_GAP 1e8
/* Customers simulated between two re-acquisitions of the GIL (to honour Ctrl-C). */
#define QT_CHUNK ((int64_t)1 << 22)

const char qt_lindley_doc[] =
    "lindley(bit_generator, gate, arrival_rate, service_kind, service_rate, service_param, "
    "customers, warmup, batches, service_alpha=None, service_T=None, gate_alpha=None, "
    "gate_T=None, arrival_alpha=None, arrival_T=None, admit_probability=1.0)\n"
    "--\n\n"
    "Simulate the FIFO single-server queue W_{n+1} = max(0, W_n + S_n - T_{n+1}), W_1 = 0,\n"
    "with inter-arrival times T = gate + G + Exp(arrival_rate) (arrival_rate = inf: no\n"
    "exponential part; G ~ PH(gate_alpha, gate_T) when both are given, else G = 0) and\n"
    "service times S of mean 1/service_rate.\n\n"
    "service_kind is 'exponential', 'deterministic', 'erlang' (service_param = number of\n"
    "phases k, an integer >= 1), 'hyperexp' (two phases with balanced means,\n"
    "service_param = squared coefficient of variation in (1, 1e9]) or 'ph' (the law\n"
    "PH(service_alpha, service_T) rescaled to mean 1/service_rate); service_param is otherwise\n"
    "ignored but must not be NaN.  A phase-type law has 1 to 256 phases: alpha >= 0 summing\n"
    "to 1, T with non-negative off-diagonal rates, negative diagonal, row sums <= 0,\n"
    "absorption reachable from every phase and at most 1e6 expected phase visits per\n"
    "draw.\n\n"
    "Renewal arrivals: with arrival_alpha and arrival_T, potential customers arrive with\n"
    "i.i.d. gaps X ~ PH(arrival_alpha, arrival_T) rescaled to mean 1/arrival_rate (finite);\n"
    "an admission opens a gate of length `gate` (no phase-type gate), and the next\n"
    "admission is the first arrival after it that is admitted, each with probability\n"
    "admit_probability in (0, 1] (1: gated admission; gate 0: random routing).  The queue\n"
    "must be stable: gate + E[R(gate)] + (1/admit_probability - 1)/arrival_rate >\n"
    "1/service_rate, R(gate) the forward recurrence time at `gate` of the renewal stream\n"
    "started at an arrival, and give at most 1e8 expected phase visits per admission.  Without\n"
    "them admit_probability must be 1; they cannot be combined with a phase-type gate.\n\n"
    "The first `warmup` customers are discarded; the next `customers` are split\n"
    "into `batches` equal consecutive batches.\n\n"
    "bit_generator is a numpy.random.BitGenerator; the caller must hold its `lock` during\n"
    "the call (the GIL is released while simulating).\n\n"
    "Returns a tuple of four float64 arrays of length `batches`: per batch the mean\n"
    "sojourn time, the mean waiting time, the fraction of customers who did not wait and\n"
    "the total inter-arrival time.  Raises ValueError on invalid parameters and on an\n"
    "unstable queue (gate + E[G] + 1/arrival_rate <= 1/service_rate).";

/* ---------------------------------------------------------------- validation */

/* The ranges of the rates and, without renewal arrivals, stability (with them, see
 * check_renewal_rates). */
static int check_rates(double gate, double gate_ph_mean, double arrival_rate,
                       double service_rate, int renewal) {
    if (qt_check_real("gate", gate, gate >= 0.0 && isfinite(gate), "be finite and >= 0") < 0 ||
        qt_check_real("arrival_rate", arrival_rate, arrival_rate > 0.0, "be > 0 (inf allowed)") < 0 ||
        qt_check_real("service_rate", service_rate, service_rate > 0.0 && isfinite(service_rate),
                   "be finite and > 0") < 0) {
        return -1;
    }
    if (renewal) {
        return 0;
    }
    double mean_interarrival =
        gate + gate_ph_mean + (isinf(arrival_rate) ? 0.0 : 1.0 / arrival_rate);
    if (!isfinite(mean_interarrival)) {
        PyErr_SetString(PyExc_ValueError, "gate + E[G] + 1/arrival_rate must be finite");
        return -1;
    }
    if (!(mean_interarrival > 1.0 / service_rate)) {
        PyErr_SetString(PyExc_ValueError,
                        "unstable: gate + E[G] + 1/arrival_rate must exceed 1/service_rate");
        return -1;
    }
    return 0;
}

static int parse_service_kind(const char *name, qt_service_kind *kind) {
    static const struct {
        const char *name;
        qt_service_kind kind;
    } table[] = {
        {"exponential", QT_SERVICE_EXPONENTIAL},
        {"deterministic", QT_SERVICE_DETERMINISTIC},
        {"erlang", QT_SERVICE_ERLANG},
        {"hyperexp", QT_SERVICE_HYPEREXP},
        {"ph", QT_SERVICE_PH},
    };
    for (size_t i = 0; i < sizeof table / sizeof table[0]; i++) {
        if (strcmp(name, table[i].name) == 0) {
            *kind = table[i].kind;
            return 0;
        }
    }
    PyErr_Format(PyExc_ValueError,
                 "service_kind must be one of 'exponential', 'deterministic', 'erlang', "
                 "'hyperexp', 'ph', got '%s'",
                 name);
    return -1;
}

static int check_service_param(qt_service_kind kind, double param) {
    switch (kind) {
    case QT_SERVICE_ERLANG:
        /* 2^53: beyond it every double is an integer and Erlang is deterministic anyway */
        return qt_check_real("service_param (Erlang phases k)", param,
                          param >= 1.0 && param <= 9007199254740992.0 && param == floor(param),
                          "be an integer >= 1");
    case QT_SERVICE_HYPEREXP:
        return qt_check_real("service_param (hyper-exponential scv)", param,
                          param > 1.0 && param <= QT_HYPEREXP_MAX_SCV, "be > 1 and <= 1e9");
    default:
        return qt_check_real("service_param", param, 1, "");
    }
}

static int check_counts(Py_ssize_t customers, Py_ssize_t warmup, Py_ssize_t batches) {
    if (customers < 1) {
        PyErr_Format(PyExc_ValueError, "customers must be >= 1, got %zd", customers);
    } else if (warmup < 0) {
        PyErr_Format(PyExc_ValueError, "warmup must be >= 0, got %zd", warmup);
    } else if (batches < 2) {
        PyErr_Format(PyExc_ValueError, "batches must be >= 2, got %zd", batches);
    } else if (customers < batches) {
        PyErr_Format(PyExc_ValueError, "customers (%zd) must be >= batches (%zd)", customers,
                     batches);
    } else if (customers % batches != 0) {
        PyErr_Format(PyExc_ValueError, "customers (%zd) must be a multiple of batches (%zd)",
                     customers, batches);
    } else {
        return 0;
    }
    return -1;
}

/* ---------------------------------------------------------------- phase-type laws */

/* A validated phase-type representation: its arrays (new references) and its mean. */
typedef struct {
    PyArrayObject *alpha, *T;
    int phases;
    double mean;
    double visits; /* expected phase visits per draw */
} ph_arg;

static void ph_arg_clear(ph_arg *ph) {
    Py_CLEAR(ph->alpha);
    Py_CLEAR(ph->T);
}

/* 1 if absorption is reachable from every phase of the sub-generator T (m x m). */
static int absorption_reachable(int m, const double *T, const double *exits, char *reaches) {
    for (int i = 0; i < m; i++) {
        reaches[i] = exits[i] > 0.0;
    }
    for (int grown = 1; grown;) {
        grown = 0;
        for (int i = 0; i < m; i++) {
            for (int j = 0; j < m && !reaches[i]; j++) {
                if (j != i && reaches[j] && T[(size_t)i * m + j] > 0.0) {
                    reaches[i] = 1;
                    grown = 1;
                }
            }
        }
    }
    for (int i = 0; i < m; i++) {
        if (!reaches[i]) {
            return 0;
        }
    }
    return 1;
}

/* The expected time in each phase before absorption, y = alpha (-T)^{-1} (the solution
 * of (-T)^T y = alpha), by Gaussian elimination with partial pivoting; written to y (m
 * entries).  Returns -1 if the matrix is singular.  `work` holds m * (m + 1) doubles. */
static int ph_occupation(int m, const double *alpha, const double *T, double *work, double *y) {
    const size_t w = (size_t)m + 1;
    for (int i = 0; i < m; i++) {
        for (int j = 0; j < m; j++) {
            work[i * w + j] = -T[(size_t)j * m + i]; /* transposed */
        }
        work[i * w + m] = alpha[i];
    }
    for (int k = 0; k < m; k++) {
        int pivot = k;
        for (int i = k + 1; i < m; i++) {
            if (fabs(work[i * w + k]) > fabs(work[pivot * w + k])) {
                pivot = i;
            }
        }
        if (work[pivot * w + k] == 0.0) {
            return -1;
        }
        for (int j = 0; j <= m && pivot != k; j++) {
            double swap = work[k * w + j];
            work[k * w + j] = work[pivot * w + j];
            work[pivot * w + j] = swap;
        }
        for (int i = k + 1; i < m; i++) {
            double factor = work[i * w + k] / work[k * w + k];
            for (int j = k; j <= m; j++) {
                work[i * w + j] -= factor * work[k * w + j];
            }
        }
    }
    for (int i = m - 1; i >= 0; i--) {
        double x = work[i * w + m];
        for (int j = i + 1; j < m; j++) {
            x -= work[i * w + j] * y[j];
        }
        y[i] = x / work[i * w + i];
    }
    return 0;
}

/* The checks of qtheory.core.phase_type.PhaseType, repeated here so that no input can crash
 * the sampler: shapes, finiteness, alpha a distribution, T a sub-generator with negative
 * diagonal, absorption reachable; the mean finite and > 0.  Names the argument. */
static int ph_check(const char *alpha_name, const char *T_name, int m, const double *alpha,
                    const double *T, double *mean, double *visits_out) {
    double alpha_sum = 0.0;
    for (int i = 0; i < m; i++) {
        if (!isfinite(alpha[i]) || alpha[i] < 0.0) {
            return qt_fail_rule(alpha_name, "have finite entries >= 0", alpha[i]);
        }
        alpha_sum += alpha[i];
    }
    if (!(fabs(alpha_sum - 1.0) <= 1e-12)) {
        return qt_fail_rule(alpha_name, "sum to 1 (no mass at zero)", alpha_sum);
    }
    double *scratch = PyMem_Malloc(((size_t)m * (m + 1) + 2 * (size_t)m) * sizeof(double) +
                                   (size_t)m);
    if (scratch == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    double *exits = scratch + (size_t)m * (m + 1);
    double *occupation = exits + m;
    char *reaches = (char *)(occupation + m);
    int status = 0;
    for (int i = 0; i < m && status == 0; i++) {
        double row = 0.0, out = -T[(size_t)i * m + i];
        for (int j = 0; j < m && status == 0; j++) {
            double v = T[(size_t)i * m + j];
            if (!isfinite(v)) {
                status = qt_fail_rule(T_name, "have finite entries", v);
            } else if (j != i && v < 0.0) {
                status = qt_fail_rule(T_name, "have off-diagonal entries >= 0", v);
            }
            row += v;
        }
        if (status == 0 && !(out > 0.0)) {
            status = qt_fail_rule(T_name, "have a negative diagonal", -out);
        } else if (status == 0 && row > 1e-12 * out) {
            status = qt_fail_rule(T_name, "have row sums <= 0", row);
        }
        exits[i] = -row;
    }
    if (status == 0 && !absorption_reachable(m, T, exits, reaches)) {
        PyErr_Format(PyExc_ValueError, "%s must let every phase reach absorption", T_name);
        status = -1;
    }
    if (status == 0) {
        /* mean = sum_j y_j; expected phase visits = sum_j y_j * (rate out of j) */
        double visits = 0.0;
        *mean = NAN;
        if (ph_occupation(m, alpha, T, scratch, occupation) == 0) {
            *mean = 0.0;
            for (int j = 0; j < m; j++) {
                *mean += occupation[j];
                visits += occupation[j] * -T[(size_t)j * m + j];
            }
        }
        if (!(isfinite(*mean) && *mean > 0.0)) {
            status = qt_fail_rule(T_name, "give a finite mean > 0", *mean);
        } else if (!(visits <= QT_PH_MAX_VISITS)) {
            status = qt_fail_rule(T_name, "give at most 1e6 expected phase visits per draw",
                                  visits);
        }
        *visits_out = visits;
    }
    PyMem_Free(scratch);
    return status;
}

/* Convert and validate (alpha, T); both None leaves ph->phases = 0.  -1 on error. */
static int ph_arg_parse(const char *alpha_name, const char *T_name, PyObject *alpha_obj,
                        PyObject *T_obj, ph_arg *ph) {
    if (alpha_obj == Py_None && T_obj == Py_None) {
        return 0;
    }
    if (alpha_obj == Py_None || T_obj == Py_None) {
        PyErr_Format(PyExc_ValueError, "%s and %s must be given together", alpha_name, T_name);
        return -1;
    }
    ph->alpha = (PyArrayObject *)PyArray_FROMANY(alpha_obj, NPY_DOUBLE, 1, 1,
                                                 NPY_ARRAY_IN_ARRAY | NPY_ARRAY_FORCECAST);
    if (ph->alpha == NULL) {
        PyErr_Format(PyExc_ValueError, "%s must be a 1-d array of real numbers", alpha_name);
        return -1;
    }
    ph->T = (PyArrayObject *)PyArray_FROMANY(T_obj, NPY_DOUBLE, 2, 2,
                                             NPY_ARRAY_IN_ARRAY | NPY_ARRAY_FORCECAST);
    if (ph->T == NULL) {
        PyErr_Format(PyExc_ValueError, "%s must be a 2-d array of real numbers", T_name);
        return -1;
    }
    npy_intp m = PyArray_DIM(ph->alpha, 0);
    if (m < 1 || m > QT_PH_MAX_PHASES) {
        PyErr_Format(PyExc_ValueError, "%s must have 1 to %d phases, got %zd", alpha_name,
                     QT_PH_MAX_PHASES, (Py_ssize_t)m);
        return -1;
    }
    if (PyArray_DIM(ph->T, 0) != m || PyArray_DIM(ph->T, 1) != m) {
        PyErr_Format(PyExc_ValueError, "%s must have shape (%zd, %zd) to match %s", T_name,
                     (Py_ssize_t)m, (Py_ssize_t)m, alpha_name);
        return -1;
    }
    ph->phases = (int)m;
    return ph_check(alpha_name, T_name, ph->phases, (const double *)PyArray_DATA(ph->alpha),
                    (const double *)PyArray_DATA(ph->T), &ph->mean, &ph->visits);
}

/* The mean admitted gap with renewal arrivals of the parsed law ph (of mean ph->mean) scaled
 * to mean 1 / arrival_rate: gate + E[R(gate)] + (1/q - 1) / arrival_rate, R(gate) the
 * forward recurrence time, c pi(gate / c) (-T)^{-1} 1 for X = c Y (lindley.h); checked
 * against 1 / service_rate.  -1 (ValueError or MemoryError) on failure. */
static int check_renewal_rates(const ph_arg *ph, double gate, double arrival_rate, double q,
                               double service_rate) {
    const int m = ph->phases;
    if (qt_check_real("arrival_rate", arrival_rate, isfinite(arrival_rate),
                      "be finite with arrival_alpha and arrival_T") < 0 ||
        qt_check_real("admit_probability", q, q > 0.0 && q <= 1.0, "be in (0, 1]") < 0) {
        return -1;
    }
    double scale = 1.0 / (arrival_rate * ph->mean);
    double *scratch = PyMem_Malloc((4 * (size_t)m * m + (size_t)m * (m + 1) + 2 * (size_t)m) *
                                   sizeof(double));
    if (scratch == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    double *pi = scratch + 4 * (size_t)m * m, *work = pi + m, *y = work + (size_t)m * (m + 1);
    const double *raw_T = (const double *)PyArray_DATA(ph->T);
    qt_renewal_phases(m, (const double *)PyArray_DATA(ph->alpha), raw_T, gate / scale, pi,
                      scratch);
    double residual = NAN;
    if (ph_occupation(m, pi, raw_T, work, y) == 0) {
        residual = 0.0;
        for (int j = 0; j < m; j++) {
            residual += y[j];
        }
        residual *= scale;
    }
    PyMem_Free(scratch);
    double mean = gate + residual + (1.0 / q - 1.0) / arrival_rate;
    if (!isfinite(mean)) {
        return qt_fail_rule("gate", "give a finite mean admitted gap", mean);
    }
    /* expected arrivals per admission: Lambda E[A] (Wald), each ph->visits phase visits */
    double visits = mean * arrival_rate * ph->visits;
    if (!(visits <= QT_MAX_VISITS_PER_GAP)) {
        return qt_fail_rule("admit_probability and gate",
                            "give at most 1e8 expected phase visits per admission (the "
                            "arrivals before it times the visits per arrival)",
                            visits);
    }
    if (!(mean > 1.0 / service_rate)) {
        PyErr_SetString(PyExc_ValueError,
                        "unstable: gate + E[R(gate)] + (1/admit_probability - 1)/arrival_rate "
                        "must exceed 1/service_rate (R: the forward recurrence time of the "
                        "renewal arrivals)");
        return -1;
    }
    return 0;
}

/* The sampler's form of a parsed law, scaled by time_scale; its storage is *buffer
 * (PyMem_Malloc'ed; the caller frees it).  -1 on error. */
static int ph_law_of(const ph_arg *ph, double time_scale, qt_ph_law *law, double **buffer) {
    *buffer = PyMem_Malloc(QT_PH_BUFFER_SIZE(ph->phases) * sizeof(double));
    if (*buffer == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    *law = qt_ph_law_make(ph->phases, (const double *)PyArray_DATA(ph->alpha),
                          (const double *)PyArray_DATA(ph->T), time_scale, *buffer);
    return 0;
}

/* ---------------------------------------------------------------- simulation */

enum { QT_OUT_SOJOURN, QT_OUT_WAIT, QT_OUT_NO_WAIT, QT_OUT_INTERARRIVAL, QT_N_OUT };

static int new_outputs(Py_ssize_t batches, PyObject *out[QT_N_OUT]) {
    npy_intp dims[1] = {batches};
    for (int i = 0; i < QT_N_OUT; i++) {
        out[i] = PyArray_ZEROS(1, dims, NPY_DOUBLE, 0);
        if (out[i] == NULL) {
            return -1;
        }
    }
    return 0;
}

static double *data(PyObject *array) { return (double *)PyArray_DATA((PyArrayObject *)array); }

/* Run to completion in GIL-free chunks; -1 if a signal handler raised (e.g. Ctrl-C). */
static int run_chunked(bitgen_t *rng, const qt_lindley_model *model, qt_lindley_run *run) {
    int finished = 0;
    while (!finished) {
        Py_BEGIN_ALLOW_THREADS
        finished = qt_lindley_advance(rng, model, run, QT_CHUNK);
        Py_END_ALLOW_THREADS
        if (PyErr_CheckSignals() < 0) {
            return -1;
        }
    }
    return 0;
}

static void sums_to_means(PyObject *out[QT_N_OUT], Py_ssize_t batches, double per_batch) {
    double *sojourn = data(out[QT_OUT_SOJOURN]);
    double *wait = data(out[QT_OUT_WAIT]);
    double *no_wait = data(out[QT_OUT_NO_WAIT]);
    for (Py_ssize_t b = 0; b < batches; b++) {
        sojourn[b] /= per_batch;
        wait[b] /= per_batch;
        no_wait[b] /= per_batch;
    }
}

PyObject *qt_lindley(PyObject *Py_UNUSED(self), PyObject *args, PyObject *kwargs) {
    static char *keywords[] = {"bit_generator", "gate",      "arrival_rate", "service_kind",
                               "service_rate",  "service_param", "customers", "warmup",
                               "batches",       "service_alpha", "service_T", "gate_alpha",
                               "gate_T",        "arrival_alpha", "arrival_T",
                               "admit_probability", NULL};
    PyObject *bit_generator;
    PyObject *service_alpha = Py_None, *service_T = Py_None;
    PyObject *gate_alpha = Py_None, *gate_T = Py_None;
    PyObject *arrival_alpha = Py_None, *arrival_T = Py_None;
    double gate, arrival_rate, service_rate, service_param, admit_probability = 1.0;
    const char *kind_name;
    Py_ssize_t customers, warmup, batches;
    qt_service_kind kind;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "Oddsddnnn|OOOOOOd:lindley", keywords,
                                     &bit_generator, &gate, &arrival_rate, &kind_name,
                                     &service_rate, &service_param, &customers, &warmup,
                                     &batches, &service_alpha, &service_T, &gate_alpha,
                                     &gate_T, &arrival_alpha, &arrival_T,
                                     &admit_probability)) {
        return NULL;
    }
    ph_arg service_ph = {NULL, NULL, 0, 0.0, 0.0}, gate_ph = {NULL, NULL, 0, 0.0, 0.0};
    ph_arg arrival_ph = {NULL, NULL, 0, 0.0, 0.0};
    double *service_buffer = NULL, *gate_buffer = NULL, *arrival_buffer = NULL;
    PyObject *capsule = NULL;
    PyObject *out[QT_N_OUT] = {NULL};
    PyObject *result = NULL;
    if (parse_service_kind(kind_name, &kind) < 0 ||
        ph_arg_parse("service_alpha", "service_T", service_alpha, service_T, &service_ph) < 0 ||
        ph_arg_parse("gate_alpha", "gate_T", gate_alpha, gate_T, &gate_ph) < 0 ||
        ph_arg_parse("arrival_alpha", "arrival_T", arrival_alpha, arrival_T, &arrival_ph) < 0 ||
        check_rates(gate, gate_ph.mean, arrival_rate, service_rate, arrival_ph.phases > 0) < 0 ||
        check_service_param(kind, service_param) < 0 ||
        check_counts(customers, warmup, batches) < 0) {
        goto done;
    }
    if (arrival_ph.phases == 0 && admit_probability != 1.0) {
        PyErr_SetString(PyExc_ValueError,
                        "admit_probability must be 1 unless arrival_alpha and arrival_T are "
                        "given (thin a Poisson stream through arrival_rate)");
        goto done;
    }
    if (arrival_ph.phases > 0 && gate_ph.phases > 0) {
        PyErr_SetString(PyExc_ValueError,
                        "gate_alpha and gate_T (a phase-type gate) cannot be combined with "
                        "arrival_alpha and arrival_T (renewal arrivals)");
        goto done;
    }
    if (arrival_ph.phases > 0 &&
        check_renewal_rates(&arrival_ph, gate, arrival_rate, admit_probability, service_rate) <
            0) {
        goto done;
    }
    if ((kind == QT_SERVICE_PH) != (service_ph.phases > 0)) {
        PyErr_SetString(PyExc_ValueError,
                        "service_alpha and service_T must be given exactly when service_kind "
                        "is 'ph'");
        goto done;
    }
    bitgen_t *rng = NULL;
    capsule = qt_get_bitgen(bit_generator, &rng);
    if (capsule == NULL || new_outputs(batches, out) < 0) {
        goto done;
    }
    qt_lindley_model model =
        qt_lindley_model_make(gate, arrival_rate, kind, service_rate, service_param);
    if (kind == QT_SERVICE_PH &&
        ph_law_of(&service_ph, 1.0 / (service_rate * service_ph.mean), &model.service_ph,
                  &service_buffer) < 0) {
        goto done;
    }
    if (gate_ph.phases > 0) {
        if (ph_law_of(&gate_ph, 1.0, &model.gate_ph, &gate_buffer) < 0) {
            goto done;
        }
        model.ph_gate = 1;
    }
    if (arrival_ph.phases > 0) {
        if (ph_law_of(&arrival_ph, 1.0 / (arrival_rate * arrival_ph.mean), &model.arrival_ph,
                      &arrival_buffer) < 0) {
            goto done;
        }
        model.ph_arrivals = 1;
        model.admit_probability = admit_probability;
    }
    qt_lindley_run run = {
        .warmup_left = warmup,
        .per_batch = customers / batches,
        .batches = batches,
        .sojourn_sum = data(out[QT_OUT_SOJOURN]),
        .wait_sum = data(out[QT_OUT_WAIT]),
        .no_wait_count = data(out[QT_OUT_NO_WAIT]),
        .interarrival_sum = data(out[QT_OUT_INTERARRIVAL]),
    };
    if (run_chunked(rng, &model, &run) < 0) {
        goto done;
    }
    sums_to_means(out, batches, (double)run.per_batch);
    result = PyTuple_Pack(QT_N_OUT, out[0], out[1], out[2], out[3]);
done:
    for (int i = 0; i < QT_N_OUT; i++) {
        Py_XDECREF(out[i]);
    }
    Py_XDECREF(capsule);
    PyMem_Free(service_buffer);
    PyMem_Free(gate_buffer);
    PyMem_Free(arrival_buffer);
    ph_arg_clear(&service_ph);
    ph_arg_clear(&gate_ph);
    ph_arg_clear(&arrival_ph);
    return result;
}
