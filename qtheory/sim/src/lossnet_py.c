/*
 * qtheory.sim._core.lossnet_simulate / lossnet_path: argument checking, output objects
 * and the GIL-free runs of the loss-network simulator in lossnet.c.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "qt_numpy.h"

#include "lossnet.h"
#include "lossnet_py.h"
#include "qt_args.h"

/* Events simulated between two re-acquisitions of the GIL (to honour Ctrl-C). */
#define QT_LN_CHUNK ((int64_t)1 << 22)

/* The signatures write max_cells' default inf as 1e309, a literal that inspect parses
 * (to inf); a name would make the whole signature invalid. */
const char qt_lossnet_simulate_doc[] =
    "lossnet_simulate(bit_generator, info, policy, param, servers, lambda_h, lambda_l, mu, "
    "r_h, r_l, horizon, warmup, trace=False, max_cells=1e309, lookahead_stats=True, "
    "isa=None)\n"
    "--\n\n"
    "Simulate the two-class loss network from empty over (0, horizon], recording\n"
    "statistics in (warmup, horizon].  info is 'clock' or 'job'; policy is 'threshold'\n"
    "(param = reserve k, an integer in 0..servers), 'pfi' (param ignored), 'sss' (param =\n"
    "window W > 0) or 'offline' (param = 0: the certified banded programme from band\n"
    "K = 32, widening and falling back to the full one as needed; K in 1..servers: the same\n"
    "from band K; -1: the full programme); the job model supports 'threshold' only.\n"
    "Rates and rewards must be finite and > 0; 1 <= servers <= 1e9.\n\n"
    "bit_generator is a numpy.random.BitGenerator; the caller must hold its `lock` during\n"
    "the call (the GIL is released while simulating; the offline dynamic programme runs\n"
    "without checking for signals).\n\n"
    "Returns a dict: admitted_h, admitted_l, rejected_h, rejected_l (window counts),\n"
    "idle_area (integral of the idle count over the window), events and reward_total (whole\n"
    "run), lookahead_events, lookahead_time, l_arrivals_scored (sums over L arrivals in the\n"
    "window, lookahead policies), offline_band (offline: the band K of idle counts the\n"
    "programme kept, servers for the full programme; 0 otherwise).  With trace=True also\n"
    "trace_t, trace_code (-1 H, -2 L, else departure slot; job model: 0 for a departure),\n"
    "trace_decision (1 admit, 0 reject, -1 departure) and trace_busy (int32, busy servers\n"
    "just after the event) for every event of the run (offline: of its optimal path);\n"
    "MemoryError when the trace cannot grow.  max_cells (> 0): the offline programme\n"
    "starts no band K (nor the full programme, K = servers) of more than events x (K + 1)\n"
    "cells, and raises ValueError naming max_cells when the certificate fails below such\n"
    "a band.  lookahead_stats=False leaves lookahead_events and lookahead_time 0 (the\n"
    "decisions are the same; PFI then runs without the walks behind its statistics,\n"
    "about 40% of its time, and two-class SSS decides by thresholds instead of\n"
    "scanning where windows hold at most 1024 expected events and mu W K <= 1/16, K\n"
    "about a window's H arrivals).  isa (a test hook): the best instruction set the\n"
    "kernels may take, 'generic', 'avx2' or 'avx512' (each twin gives the same numbers;\n"
    "None, the default, takes the processor's best).  Raises ValueError on invalid\n"
    "arguments, including more than 1e15 expected events ((lambda_h + lambda_l + mu)\n"
    "servers horizon) and SSS windows of more than 1e9 expected events; MemoryError\n"
    "when an array cannot be allocated (every size is computed with overflow checks; no\n"
    "single block above 1 TiB is attempted).";

const char qt_lossnet_source_doc[] =
    "lossnet_source(bit_generator, servers, lambdas, mu)\n"
    "--\n\n"
    "A clock-model path of the network (servers, per-server class rates lambdas, mu)\n"
    "drawn from bit_generator once and replayed: pass it as the bit_generator of\n"
    "lossnet_simulate or lossnet_classes_simulate (clock model, same network) and each\n"
    "run reads the events a run on a fresh copy of bit_generator's present state would\n"
    "draw, extending the path (drawing from bit_generator) when it needs an event not\n"
    "drawn yet.  Several policies on one path then draw it once.  The caller must hold\n"
    "bit_generator's lock while a run uses the source, and not use bit_generator\n"
    "otherwise; one run at a time (ValueError when in use, or for a run of another\n"
    "network or of the job model).  The path lives as long as the returned capsule.";

const char qt_lossnet_path_doc[] =
    "lossnet_path(bit_generator, info, servers, lambda_h, lambda_l, mu, horizon)\n"
    "--\n\n"
    "The random future of (0, horizon], exactly as lossnet_simulate draws it from the same\n"
    "bit generator state.  info='clock': (t, code), float64 and int32 arrays, code -1 for H,\n"
    "-2 for L, else the departure slot floor(U servers) (a departure ends a service iff\n"
    "slot < busy).  info='job': (t, is_l, service), float64, int8 and float64 arrays, one\n"
    "entry per arrival, service times drawn for every arrival.  ValueError beyond 1e15\n"
    "expected events; MemoryError when the path cannot be allocated.";

const char qt_lossnet_classes_simulate_doc[] =
    "lossnet_classes_simulate(bit_generator, policy, param, servers, lambdas, rewards, mu, "
    "horizon, warmup, trace=False, max_cells=1e309, lookahead_stats=True, isa=None)\n"
    "--\n\n"
    "Simulate the n-class loss network (2 <= n <= 32 classes, class j code -j) from empty\n"
    "over (0, horizon] in the clock model, recording statistics in (warmup, horizon].\n"
    "The kernel of lossnet_simulate: with n = 2 the same bit generator state gives the\n"
    "same run.  policy is 'threshold' (param = the reserves k_1 <= ... <= k_n, integers in\n"
    "0..servers: class j is admitted iff more than k_j servers are idle), 'pfi' (param\n"
    "ignored), 'sss' (param = window W > 0) or 'offline' (param as in lossnet_simulate).\n"
    "lambdas and rewards: n finite values > 0, rewards strictly decreasing; isa as in\n"
    "lossnet_simulate.\n\n"
    "Returns the dict of lossnet_simulate with the per-class lists admitted and rejected\n"
    "in place of admitted_h, ..., rejected_l and arrivals_scored (arrivals of classes\n"
    "2..n in the window) in place of l_arrivals_scored.  Raises ValueError naming the\n"
    "parameter on invalid arguments, TypeError for non-numbers.";

/* ---------------------------------------------------------------- validation */

static int check_positive(const char *name, double value) {
    return qt_check_real(name, value, value > 0.0 && isfinite(value), "be finite and > 0");
}

/* ValueError "<what> must be <= <limit> (<why>), got <value>"; returns -1. */
static int fail_count(const char *what, double limit, const char *why, double value) {
    char numbers[2][32];
    snprintf(numbers[0], sizeof numbers[0], "%g", limit);
    snprintf(numbers[1], sizeof numbers[1], "%.3g", value);
    PyErr_Format(PyExc_ValueError, "%s must be <= %s (%s), got %s", what, numbers[0], why,
                 numbers[1]);
    return -1;
}

/* The model's checks; `rates` names the event rate in messages ("lambda_h + lambda_l"
 * or "sum(lambdas)").  p->lambda and p->classes are set (and checked) by the caller. */
static int check_model(Py_ssize_t servers, const qt_ln_params *p, const char *rates,
                       double horizon) {
    if (servers < 1 || servers > QT_LN_MAX_SERVERS) {
        PyErr_Format(PyExc_ValueError, "servers must be in 1..%d, got %zd", QT_LN_MAX_SERVERS,
                     servers);
        return -1;
    }
    if (check_positive("mu", p->mu) < 0 || check_positive("horizon", horizon) < 0) {
        return -1;
    }
    double total = p->mu;
    for (int32_t j = 0; j < p->classes; j++) {
        total += p->lambda[j];
    }
    double events = total * (double)servers * horizon;
    char what[160];
    if (!isfinite(events)) {
        PyErr_Format(PyExc_ValueError, "(%s + mu) * servers * horizon must be finite", rates);
        return -1;
    }
    if (events > QT_LN_MAX_EVENTS) {
        snprintf(what, sizeof what,
                 "horizon: (%s + mu) * servers * horizon, the expected number of events,", rates);
        return fail_count(what, QT_LN_MAX_EVENTS, "float64 event times lose resolution beyond",
                          events);
    }
    return 0;
}

/* The two-class model: class 1 = H, class 2 = L. */
static int two_class_model(Py_ssize_t servers, double lambda_h, double lambda_l, double mu,
                           double horizon, qt_ln_params *p) {
    if (check_positive("lambda_h", lambda_h) < 0 || check_positive("lambda_l", lambda_l) < 0) {
        return -1;
    }
    p->servers = servers;
    p->classes = 2;
    p->lambda[0] = lambda_h;
    p->lambda[1] = lambda_l;
    p->mu = mu;
    p->horizon = horizon;
    return check_model(servers, p, "lambda_h + lambda_l", horizon);
}

static int parse_info(const char *info, int *job_model) {
    if (strcmp(info, "clock") == 0 || strcmp(info, "job") == 0) {
        *job_model = info[0] == 'j';
        return 0;
    }
    PyErr_Format(PyExc_ValueError, "info must be 'clock' or 'job', got '%s'", info);
    return -1;
}

/* The policy `name` with its numeric parameter (threshold: the two-class reserve k of L;
 * the n-class threshold's reserves are parsed by parse_reserves); `rates` names the
 * event rate in messages, as for check_model. */
static int parse_policy(const char *name, double param, int job_model, const char *rates,
                        qt_ln_params *p) {
    if (strcmp(name, "threshold") == 0) {
        p->policy = QT_LN_THRESHOLD;
        if (isnan(param) || param < 0.0 || param > (double)p->servers || param != floor(param)) {
            char rule[96];
            snprintf(rule, sizeof rule, "be an integer in 0..servers = 0..%lld",
                     (long long)p->servers);
            return isnan(param) ? check_positive("param (reserve k)", param)
                                : qt_fail_rule("param (reserve k)", rule, param);
        }
        p->reserve[0] = 0;
        p->reserve[1] = (int64_t)param;
        return 0;
    }
    if (strcmp(name, "sss") == 0) {
        p->policy = QT_LN_SSS;
        p->window = param;
        if (check_positive("param (window W)", param) < 0) {
            return -1;
        }
        double total = p->mu;
        for (int32_t j = 0; j < p->classes; j++) {
            total += p->lambda[j];
        }
        double window_events = total * (double)p->servers * param;
        if (window_events > QT_LN_MAX_WINDOW_EVENTS) {
            char what[160];
            snprintf(what, sizeof what,
                     "param (window W): (%s + mu) * servers * W, the expected events of one "
                     "SSS window,",
                     rates);
            return fail_count(what, QT_LN_MAX_WINDOW_EVENTS,
                              "better arrivals in a window are counted in 32 bits",
                              window_events);
        }
    } else if (strcmp(name, "pfi") == 0) {
        p->policy = QT_LN_PFI;
        if (isnan(param)) {
            PyErr_SetString(PyExc_ValueError, "param must not be NaN");
            return -1;
        }
    } else if (strcmp(name, "offline") == 0) {
        p->policy = QT_LN_OFFLINE;
        if (isnan(param) || param < -1.0 || param > (double)p->servers || param != floor(param)) {
            char rule[96];
            snprintf(rule, sizeof rule, "be an integer in -1..servers = -1..%lld",
                     (long long)p->servers);
            return isnan(param) ? (PyErr_SetString(PyExc_ValueError, "param must not be NaN"), -1)
                                : qt_fail_rule("param (offline: -1 full programme, 0 default "
                                               "band, K >= 1 first band)",
                                               rule, param);
        }
        p->band = (int64_t)param;
    } else {
        PyErr_Format(PyExc_ValueError,
                     "policy must be one of 'threshold', 'pfi', 'sss', 'offline', got '%s'", name);
        return -1;
    }
    if (job_model) {
        PyErr_Format(PyExc_ValueError,
                     "policy '%s' is not available in the job information model (only "
                     "'threshold' is)",
                     name);
        return -1;
    }
    return 0;
}

/* ---------------------------------------------------------------- outputs */

/* A new 1-d array that owns a copy of n elements of `data`. */
static PyObject *array_copy(const void *data, int64_t n, int typenum, size_t itemsize) {
    npy_intp dims[1] = {(npy_intp)n};
    PyObject *array = PyArray_EMPTY(1, dims, typenum, 0);
    if (array != NULL && n > 0) {
        memcpy(PyArray_DATA((PyArrayObject *)array), data, (size_t)n * itemsize);
    }
    return array;
}

static int set_item(PyObject *dict, const char *key, PyObject *value) {
    if (value == NULL) {
        return -1;
    }
    int status = PyDict_SetItemString(dict, key, value);
    Py_DECREF(value);
    return status;
}

/* A list of the n counts. */
static PyObject *count_list(const int64_t *counts, int32_t n) {
    PyObject *list = PyList_New(n);
    for (int32_t j = 0; list != NULL && j < n; j++) {
        PyObject *item = PyLong_FromLongLong(counts[j]);
        if (item == NULL) {
            Py_CLEAR(list);
        } else {
            PyList_SET_ITEM(list, j, item);
        }
    }
    return list;
}

/* The statistics as a dict: per-class counts under admitted_h, admitted_l, rejected_h,
 * rejected_l and the scored arrivals under l_arrivals_scored for the two-class entry
 * points (`two_class`), else lists `admitted`, `rejected` and `arrivals_scored`. */
static PyObject *stats_dict(const qt_ln_stats *s, int32_t classes, int two_class,
                            const qt_ln_trace *trace) {
    PyObject *d = PyDict_New();
    if (d == NULL) {
        return NULL;
    }
    int status =
        two_class
            ? (set_item(d, "admitted_h", PyLong_FromLongLong(s->admitted[0])) < 0 ||
               set_item(d, "admitted_l", PyLong_FromLongLong(s->admitted[1])) < 0 ||
               set_item(d, "rejected_h", PyLong_FromLongLong(s->rejected[0])) < 0 ||
               set_item(d, "rejected_l", PyLong_FromLongLong(s->rejected[1])) < 0 ||
               set_item(d, "l_arrivals_scored", PyLong_FromLongLong(s->arrivals_scored)) < 0)
            : (set_item(d, "admitted", count_list(s->admitted, classes)) < 0 ||
               set_item(d, "rejected", count_list(s->rejected, classes)) < 0 ||
               set_item(d, "arrivals_scored", PyLong_FromLongLong(s->arrivals_scored)) < 0);
    if (status ||
        set_item(d, "idle_area", PyFloat_FromDouble(s->idle_area)) < 0 ||
        set_item(d, "events", PyLong_FromLongLong(s->events)) < 0 ||
        set_item(d, "reward_total", PyFloat_FromDouble(s->reward_total)) < 0 ||
        set_item(d, "lookahead_events", PyLong_FromLongLong(s->lookahead_events)) < 0 ||
        set_item(d, "lookahead_time", PyFloat_FromDouble(s->lookahead_time)) < 0 ||
        set_item(d, "offline_band", PyLong_FromLongLong(s->offline_band)) < 0) {
        Py_DECREF(d);
        return NULL;
    }
    if (trace != NULL &&
        (set_item(d, "trace_t", array_copy(trace->t, trace->size, NPY_DOUBLE, 8)) < 0 ||
         set_item(d, "trace_code", array_copy(trace->code, trace->size, NPY_INT32, 4)) < 0 ||
         set_item(d, "trace_decision",
                  array_copy(trace->decision, trace->size, NPY_INT8, 1)) < 0 ||
         set_item(d, "trace_busy", array_copy(trace->busy, trace->size, NPY_INT32, 4)) < 0)) {
        Py_DECREF(d);
        return NULL;
    }
    return d;
}

/* ---------------------------------------------------------------- runs */

/* Run to completion in GIL-free chunks; -1 with an exception set on failure. */
static int run_chunked(qt_ln_run *run) {
    int status = 0;
    while (status == 0) {
        Py_BEGIN_ALLOW_THREADS
        status = qt_ln_run_advance(run, QT_LN_CHUNK);
        Py_END_ALLOW_THREADS
        if (status < 0) {
            PyErr_NoMemory();
            return -1;
        }
        if (PyErr_CheckSignals() < 0) {
            return -1;
        }
    }
    return 0;
}

/* The offline optimum on the path drawn from rng: qt_ln_offline's status. */
static int run_offline(const qt_ln_params *p, bitgen_t *rng, qt_ln_stats *stats,
                       qt_ln_trace *trace, int64_t *n_events) {
    int status;
    Py_BEGIN_ALLOW_THREADS
    status = qt_ln_offline_drawn(p, rng, stats, trace, n_events);
    Py_END_ALLOW_THREADS
    return status;
}

/* The exception of a failed offline run (status -2 or -3: max_cells; else out of
 * memory). */
static void offline_error(int status, int64_t n_events, const qt_ln_stats *stats) {
    if (status == -3) {
        PyErr_Format(PyExc_ValueError,
                     "max_cells: the offline programme of segments (band K = %lld) on this "
                     "path (%lld events) walked more than max_cells cells and blocks",
                     (long long)stats->offline_band, (long long)n_events);
    } else if (status == -2) {
        char cells[32];
        snprintf(cells, sizeof cells, "%.3g", (double)n_events * (double)(stats->offline_band + 1));
        PyErr_Format(PyExc_ValueError,
                     "max_cells: the offline programme of band K = %lld on this path "
                     "(%lld events) needs %s cells, more than max_cells (the band's "
                     "certificate failed below it)",
                     (long long)stats->offline_band, (long long)n_events, cells);
    } else {
        PyErr_NoMemory();
    }
}

/* The cap on the kernels' instruction set (qt_ln_isa): None for the processor's best,
 * or 'generic', 'avx2' or 'avx512' (the best of them the processor has up to it). */
static int parse_isa(const char *name, qt_ln_isa *isa) {
    static const char *names[] = {"generic", "avx2", "avx512"};
    static const qt_ln_isa values[] = {QT_LN_ISA_GENERIC, QT_LN_ISA_AVX2, QT_LN_ISA_AVX512};
    *isa = QT_LN_ISA_BEST;
    for (int i = 0; name != NULL && i < 3; i++) {
        if (strcmp(name, names[i]) == 0) {
            *isa = values[i];
            return 0;
        }
    }
    if (name != NULL) {
        PyErr_Format(PyExc_ValueError,
                     "isa must be None, 'generic', 'avx2' or 'avx512', got '%.100s'", name);
        return -1;
    }
    return 0;
}

/* warmup and max_cells, checked into p (horizon already set). */
static int check_run(double warmup, double max_cells, qt_ln_params *p) {
    if (isnan(warmup) || !(warmup >= 0.0 && warmup < p->horizon)) {
        return isnan(warmup) ? (PyErr_SetString(PyExc_ValueError, "warmup must not be NaN"), -1)
                             : qt_fail_rule("warmup", "be >= 0 and < horizon", warmup);
    }
    if (isnan(max_cells) || !(max_cells > 0.0)) {
        return isnan(max_cells)
                   ? (PyErr_SetString(PyExc_ValueError, "max_cells must not be NaN"), -1)
                   : qt_fail_rule("max_cells", "be > 0", max_cells);
    }
    p->warmup = warmup;
    p->max_cells = max_cells;
    return 0;
}

/* ------------------------------------------------------------ path sources */

#define QT_SOURCE_NAME "qtheory.sim._core.lossnet_source"

/* The object behind a lossnet_source capsule: the path, the network it is a path of,
 * and the bit generator it draws from (kept alive: its capsule does not own it). */
typedef struct {
    qt_ln_source source;
    qt_ln_params p; /* servers, classes, lambda, mu */
    PyObject *bit_generator, *capsule;
    int busy; /* a run is reading it (with the GIL released) */
} qt_py_source;

static void source_destroy(PyObject *object) {
    qt_py_source *s = PyCapsule_GetPointer(object, QT_SOURCE_NAME);
    if (s != NULL) {
        qt_ln_source_free(&s->source);
        Py_XDECREF(s->capsule);
        Py_XDECREF(s->bit_generator);
        PyMem_Free(s);
    }
}

/* The source behind `object`, checked against the network of `p` and marked busy; NULL
 * with ValueError when it is of another network, clock model only, or in use. */
static qt_py_source *source_for(PyObject *object, const qt_ln_params *p, int job_model) {
    qt_py_source *s = PyCapsule_GetPointer(object, QT_SOURCE_NAME);
    if (s == NULL) {
        return NULL;
    }
    int same = s->p.servers == p->servers && s->p.classes == p->classes && s->p.mu == p->mu;
    for (int32_t j = 0; same && j < p->classes; j++) {
        same = s->p.lambda[j] == p->lambda[j];
    }
    if (!same || job_model || s->busy) {
        PyErr_SetString(PyExc_ValueError,
                        !same ? "bit_generator: the path source was drawn for another network "
                                "(servers, rates and mu must be the run's)"
                        : job_model ? "info: a path source holds a clock-model path; the job "
                                      "model draws its own (pass a bit generator)"
                                    : "bit_generator: the path source is in use by another run");
        return NULL;
    }
    s->busy = 1;
    return s;
}

/* The offline optimum on the source's path of (0, T]. */
static int run_offline_source(const qt_ln_params *p, qt_ln_source *source, qt_ln_stats *stats,
                              qt_ln_trace *trace, int64_t *n_events) {
    const qt_ln_event *events = NULL;
    int status = -1;
    Py_BEGIN_ALLOW_THREADS
    if (qt_ln_source_path(source, p->horizon, &events, n_events) == 0) {
        status = qt_ln_offline(p, events, *n_events, stats, trace);
    }
    Py_END_ALLOW_THREADS
    return status;
}

/* One run of the validated parameters on the bit generator, or on the path of a
 * lossnet_source; the statistics dict (see stats_dict) or NULL with an exception set. */
static PyObject *simulate(PyObject *bit_generator, const qt_ln_params *p, int job_model,
                          int want_trace, int two_class) {
    bitgen_t *rng = NULL;
    qt_py_source *source = NULL;
    PyObject *capsule = NULL;
    if (PyCapsule_IsValid(bit_generator, QT_SOURCE_NAME)) {
        source = source_for(bit_generator, p, job_model);
        if (source == NULL) {
            return NULL;
        }
    } else if ((capsule = qt_get_bitgen(bit_generator, &rng)) == NULL) {
        return NULL;
    }
    qt_ln_trace trace = {0};
    qt_ln_trace *tr = want_trace ? &trace : NULL;
    PyObject *result = NULL;
    if (p->policy == QT_LN_OFFLINE) {
        qt_ln_stats stats;
        int64_t n_events = 0;
        int status = source != NULL
                         ? run_offline_source(p, &source->source, &stats, tr, &n_events)
                         : run_offline(p, rng, &stats, tr, &n_events);
        if (status == 0) {
            result = stats_dict(&stats, p->classes, two_class, tr);
        } else {
            offline_error(status, n_events, &stats);
        }
    } else {
        qt_ln_run *run =
            qt_ln_run_new(p, rng, source != NULL ? &source->source : NULL, job_model, tr);
        if (run == NULL) {
            PyErr_NoMemory();
        } else {
            if (run_chunked(run) == 0) {
                result = stats_dict(qt_ln_run_stats(run), p->classes, two_class, tr);
            }
            qt_ln_run_free(run);
        }
    }
    qt_ln_trace_free(&trace);
    if (source != NULL) {
        source->busy = 0;
    }
    Py_XDECREF(capsule);
    return result;
}

PyObject *qt_lossnet_simulate(PyObject *Py_UNUSED(self), PyObject *args, PyObject *kwargs) {
    static char *keywords[] = {"bit_generator", "info",   "policy",  "param", "servers",
                               "lambda_h",      "lambda_l", "mu",     "r_h",   "r_l",
                               "horizon",       "warmup", "trace",   "max_cells",
                               "lookahead_stats", "isa",   NULL};
    PyObject *bit_generator;
    const char *info, *policy, *isa = NULL;
    double param, lambda_h, lambda_l, mu, r_h, r_l, horizon, warmup;
    Py_ssize_t servers;
    int want_trace = 0, job_model = 0;
    double max_cells = INFINITY;
    qt_ln_params p = {.lookahead_stats = 1};
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "Ossdnddddddd|pdpz:lossnet_simulate",
                                     keywords, &bit_generator, &info, &policy, &param,
                                     &servers, &lambda_h, &lambda_l, &mu, &r_h, &r_l, &horizon,
                                     &warmup, &want_trace, &max_cells, &p.lookahead_stats,
                                     &isa) ||
        parse_isa(isa, &p.isa) < 0 ||
        two_class_model(servers, lambda_h, lambda_l, mu, horizon, &p) < 0 ||
        check_positive("r_h", r_h) < 0 || check_positive("r_l", r_l) < 0 ||
        parse_info(info, &job_model) < 0 || check_run(warmup, max_cells, &p) < 0) {
        return NULL;
    }
    p.reward[0] = r_h;
    p.reward[1] = r_l;
    if (parse_policy(policy, param, job_model, "lambda_h + lambda_l", &p) < 0) {
        return NULL;
    }
    return simulate(bit_generator, &p, job_model, want_trace, 1);
}

/* The numbers of the sequence `name` into values[]: 2..QT_LN_MAX_CLASSES of them, or
 * exactly *n when *n > 0 (one per class); their count in *n. */
static int parse_numbers(const char *name, PyObject *sequence, double *values, int32_t *n) {
    PyObject *fast = PySequence_Fast(sequence, "");
    if (fast == NULL) {
        PyErr_Format(PyExc_TypeError, "%s must be a sequence of numbers, got %.100s", name,
                     Py_TYPE(sequence)->tp_name);
        return -1;
    }
    Py_ssize_t length = PySequence_Fast_GET_SIZE(fast);
    int status = 0;
    if (*n > 0 && length != *n) {
        PyErr_Format(PyExc_ValueError,
                     "%s must have one entry per class (as many as lambdas, %d), got %zd", name,
                     (int)*n, length);
        status = -1;
    } else if (length < 2 || length > QT_LN_MAX_CLASSES) {
        PyErr_Format(PyExc_ValueError, "%s must have 2..%d entries (one per class), got %zd",
                     name, QT_LN_MAX_CLASSES, length);
        status = -1;
    }
    for (Py_ssize_t j = 0; status == 0 && j < length; j++) {
        values[j] = PyFloat_AsDouble(PySequence_Fast_GET_ITEM(fast, j));
        status = values[j] == -1.0 && PyErr_Occurred() ? -1 : 0;
    }
    Py_DECREF(fast);
    if (status == 0) {
        *n = (int32_t)length;
    }
    return status;
}

/* Rates or rewards: parse_numbers, each finite and > 0. */
static int parse_rates(const char *name, PyObject *sequence, double *values, int32_t *n) {
    if (parse_numbers(name, sequence, values, n) < 0) {
        return -1;
    }
    char item[64];
    for (int32_t j = 0; j < *n; j++) {
        snprintf(item, sizeof item, "%s[%d]", name, (int)j);
        if (check_positive(item, values[j]) < 0) {
            return -1;
        }
    }
    return 0;
}

/* The nested reserves k_1 <= ... <= k_n of the n-class threshold policy, integers in
 * 0..servers. */
static int parse_reserves(PyObject *param, qt_ln_params *p) {
    double k[QT_LN_MAX_CLASSES];
    int32_t n = p->classes;
    if (parse_numbers("param (reserves k)", param, k, &n) < 0) {
        return -1;
    }
    for (int32_t j = 0; j < n; j++) {
        if (!(k[j] >= 0.0 && k[j] <= (double)p->servers && k[j] == floor(k[j]))) {
            char name[48], rule[96];
            snprintf(name, sizeof name, "param (reserves k)[%d]", (int)j);
            snprintf(rule, sizeof rule, "be an integer in 0..servers = 0..%lld",
                     (long long)p->servers);
            return qt_fail_rule(name, rule, k[j]);
        }
        if (j > 0 && k[j] < k[j - 1]) {
            PyErr_Format(PyExc_ValueError,
                         "param (reserves k) must be nested, k_1 <= k_2 <= ... <= k_n, got "
                         "k_%d = %lld > k_%d = %lld",
                         (int)j, (long long)k[j - 1], (int)j + 1, (long long)k[j]);
            return -1;
        }
        p->reserve[j] = (int64_t)k[j];
    }
    return 0;
}

PyObject *qt_lossnet_classes_simulate(PyObject *Py_UNUSED(self), PyObject *args,
                                      PyObject *kwargs) {
    static char *keywords[] = {"bit_generator", "policy", "param",  "servers", "lambdas",
                               "rewards",       "mu",     "horizon", "warmup", "trace",
                               "max_cells",     "lookahead_stats", "isa", NULL};
    PyObject *bit_generator, *param, *lambdas, *rewards;
    const char *policy, *isa = NULL;
    double mu, horizon, warmup;
    Py_ssize_t servers;
    int want_trace = 0;
    double max_cells = INFINITY;
    qt_ln_params p = {.lookahead_stats = 1};
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "OsOnOOddd|pdpz:lossnet_classes_simulate",
                                     keywords, &bit_generator, &policy, &param, &servers,
                                     &lambdas, &rewards, &mu, &horizon, &warmup, &want_trace,
                                     &max_cells, &p.lookahead_stats, &isa) ||
        parse_isa(isa, &p.isa) < 0 ||
        parse_rates("lambdas", lambdas, p.lambda, &p.classes) < 0 ||
        parse_rates("rewards", rewards, p.reward, &p.classes) < 0) {
        return NULL;
    }
    for (int32_t j = 1; j < p.classes; j++) {
        if (!(p.reward[j] < p.reward[j - 1])) {
            PyErr_Format(PyExc_ValueError,
                         "rewards must be strictly decreasing (r_1 > r_2 > ... > r_n), got "
                         "rewards[%d] >= rewards[%d]",
                         (int)j, (int)j - 1);
            return NULL;
        }
    }
    p.servers = servers;
    p.mu = mu;
    p.horizon = horizon;
    if (check_model(servers, &p, "sum(lambdas)", horizon) < 0 ||
        check_run(warmup, max_cells, &p) < 0) {
        return NULL;
    }
    if (strcmp(policy, "threshold") == 0) {
        p.policy = QT_LN_THRESHOLD;
        if (parse_reserves(param, &p) < 0) {
            return NULL;
        }
    } else {
        /* an unknown name is reported before its parameter's type */
        double value = strcmp(policy, "pfi") == 0 || strcmp(policy, "sss") == 0 ||
                               strcmp(policy, "offline") == 0
                           ? PyFloat_AsDouble(param)
                           : 0.0;
        if ((value == -1.0 && PyErr_Occurred()) ||
            parse_policy(policy, value, 0, "sum(lambdas)", &p) < 0) {
            return NULL;
        }
    }
    return simulate(bit_generator, &p, 0, want_trace, 0);
}

PyObject *qt_lossnet_source(PyObject *Py_UNUSED(self), PyObject *args, PyObject *kwargs) {
    static char *keywords[] = {"bit_generator", "servers", "lambdas", "mu", NULL};
    PyObject *bit_generator, *lambdas;
    Py_ssize_t servers;
    double mu;
    qt_ln_params p = {0};
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "OnOd:lossnet_source", keywords,
                                     &bit_generator, &servers, &lambdas, &mu) ||
        parse_rates("lambdas", lambdas, p.lambda, &p.classes) < 0) {
        return NULL;
    }
    p.servers = servers;
    p.mu = mu;
    if (check_model(servers, &p, "sum(lambdas)", 1.0) < 0) {
        return NULL;
    }
    bitgen_t *rng = NULL;
    PyObject *capsule = qt_get_bitgen(bit_generator, &rng);
    if (capsule == NULL) {
        return NULL;
    }
    qt_py_source *s = PyMem_Calloc(1, sizeof *s);
    if (s == NULL) {
        Py_DECREF(capsule);
        return PyErr_NoMemory();
    }
    s->p = p;
    s->capsule = capsule;
    Py_INCREF(bit_generator);
    s->bit_generator = bit_generator;
    qt_ln_source_init(&s->source, rng, &p);
    PyObject *result = PyCapsule_New(s, QT_SOURCE_NAME, source_destroy);
    if (result == NULL) {
        qt_ln_source_free(&s->source);
        Py_DECREF(capsule);
        Py_DECREF(bit_generator);
        PyMem_Free(s);
    }
    return result;
}

PyObject *qt_lossnet_path(PyObject *Py_UNUSED(self), PyObject *args, PyObject *kwargs) {
    static char *keywords[] = {"bit_generator", "info", "servers", "lambda_h",
                               "lambda_l",      "mu",   "horizon", NULL};
    PyObject *bit_generator;
    const char *info;
    double lambda_h, lambda_l, mu, horizon;
    Py_ssize_t servers;
    int job_model = 0;
    qt_ln_params p = {0};
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "Osndddd:lossnet_path", keywords,
                                     &bit_generator, &info, &servers, &lambda_h, &lambda_l, &mu,
                                     &horizon) ||
        two_class_model(servers, lambda_h, lambda_l, mu, horizon, &p) < 0 ||
        parse_info(info, &job_model) < 0) {
        return NULL;
    }
    bitgen_t *rng = NULL;
    PyObject *capsule = qt_get_bitgen(bit_generator, &rng);
    if (capsule == NULL) {
        return NULL;
    }
    int64_t n = 0;
    qt_ln_event *events = NULL;
    qt_ln_job *jobs = NULL;
    Py_BEGIN_ALLOW_THREADS
    if (job_model) {
        jobs = qt_ln_job_path(&p, rng, &n);
    } else {
        events = qt_ln_clock_path(&p, rng, &n);
    }
    Py_END_ALLOW_THREADS
    Py_DECREF(capsule);
    if (events == NULL && jobs == NULL) {
        return PyErr_NoMemory();
    }
    npy_intp dims[1] = {(npy_intp)n};
    PyObject *out[3] = {NULL, NULL, NULL};
    PyObject *result = NULL;
    int n_out = job_model ? 3 : 2;
    out[0] = PyArray_EMPTY(1, dims, NPY_DOUBLE, 0);
    out[1] = PyArray_EMPTY(1, dims, job_model ? NPY_INT8 : NPY_INT32, 0);
    if (job_model) {
        out[2] = PyArray_EMPTY(1, dims, NPY_DOUBLE, 0);
    }
    for (int i = 0; i < n_out; i++) {
        if (out[i] == NULL) {
            goto done;
        }
    }
    double *t = PyArray_DATA((PyArrayObject *)out[0]);
    if (job_model) {
        int8_t *is_l = PyArray_DATA((PyArrayObject *)out[1]);
        double *service = PyArray_DATA((PyArrayObject *)out[2]);
        for (int64_t i = 0; i < n; i++) {
            t[i] = jobs[i].t;
            is_l[i] = (int8_t)jobs[i].klass;
            service[i] = jobs[i].service;
        }
        result = PyTuple_Pack(3, out[0], out[1], out[2]);
    } else {
        int32_t *code = PyArray_DATA((PyArrayObject *)out[1]);
        for (int64_t i = 0; i < n; i++) {
            t[i] = events[i].t;
            code[i] = events[i].code;
        }
        result = PyTuple_Pack(2, out[0], out[1]);
    }
done:
    for (int i = 0; i < 3; i++) {
        Py_XDECREF(out[i]);
    }
    free(events);
    free(jobs);
    return result;
}
