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

/* Customers simulated between two re-acquisitions of the GIL (to honour Ctrl-C). */
#define QT_CHUNK ((int64_t)1 << 22)

const char qt_lindley_doc[] =
    "lindley(bit_generator, gate, arrival_rate, service_kind, service_rate, service_param, "
    "customers, warmup, batches)\n"
    "--\n\n"
    "Simulate the FIFO single-server queue W_{n+1} = max(0, W_n + S_n - T_{n+1}), W_1 = 0,\n"
    "with inter-arrival times T = gate + Exp(arrival_rate) (arrival_rate = inf: T = gate)\n"
    "and service times S of mean 1/service_rate.\n\n"
    "service_kind is 'exponential', 'deterministic', 'erlang' (service_param = number of\n"
    "phases k, an integer >= 1) or 'hyperexp' (two phases with balanced means,\n"
    "service_param = squared coefficient of variation in (1, 1e9]); service_param is otherwise\n"
    "ignored but must not be NaN.  The first `warmup` customers are discarded; the next\n"
    "`customers` are split into `batches` equal consecutive batches.\n\n"
    "bit_generator is a numpy.random.BitGenerator; the caller must hold its `lock` during\n"
    "the call (the GIL is released while simulating).\n\n"
    "Returns a tuple of four float64 arrays of length `batches`: per batch the mean\n"
    "sojourn time, the mean waiting time, the fraction of customers who did not wait and\n"
    "the total inter-arrival time.  Raises ValueError on invalid parameters and on an\n"
    "unstable queue (gate + 1/arrival_rate <= 1/service_rate).";

/* ---------------------------------------------------------------- validation */

static int check_rates(double gate, double arrival_rate, double service_rate) {
    if (qt_check_real("gate", gate, gate >= 0.0 && isfinite(gate), "be finite and >= 0") < 0 ||
        qt_check_real("arrival_rate", arrival_rate, arrival_rate > 0.0, "be > 0 (inf allowed)") < 0 ||
        qt_check_real("service_rate", service_rate, service_rate > 0.0 && isfinite(service_rate),
                   "be finite and > 0") < 0) {
        return -1;
    }
    double mean_interarrival = gate + (isinf(arrival_rate) ? 0.0 : 1.0 / arrival_rate);
    if (!isfinite(mean_interarrival)) {
        PyErr_SetString(PyExc_ValueError, "gate + 1/arrival_rate must be finite");
        return -1;
    }
    if (!(mean_interarrival > 1.0 / service_rate)) {
        PyErr_SetString(PyExc_ValueError,
                        "unstable: gate + 1/arrival_rate must exceed 1/service_rate");
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
    };
    for (size_t i = 0; i < sizeof table / sizeof table[0]; i++) {
        if (strcmp(name, table[i].name) == 0) {
            *kind = table[i].kind;
            return 0;
        }
    }
    PyErr_Format(PyExc_ValueError,
                 "service_kind must be one of 'exponential', 'deterministic', 'erlang', "
                 "'hyperexp', got '%s'",
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
                               "batches",       NULL};
    PyObject *bit_generator;
    double gate, arrival_rate, service_rate, service_param;
    const char *kind_name;
    Py_ssize_t customers, warmup, batches;
    qt_service_kind kind;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "Oddsddnnn:lindley", keywords, &bit_generator,
                                     &gate, &arrival_rate, &kind_name, &service_rate,
                                     &service_param, &customers, &warmup, &batches) ||
        check_rates(gate, arrival_rate, service_rate) < 0 ||
        parse_service_kind(kind_name, &kind) < 0 || check_service_param(kind, service_param) < 0 ||
        check_counts(customers, warmup, batches) < 0) {
        return NULL;
    }

    bitgen_t *rng = NULL;
    PyObject *capsule = qt_get_bitgen(bit_generator, &rng);
    if (capsule == NULL) {
        return NULL;
    }
    PyObject *out[QT_N_OUT] = {NULL};
    PyObject *result = NULL;
    if (new_outputs(batches, out) < 0) {
        goto done;
    }
    qt_lindley_model model =
        qt_lindley_model_make(gate, arrival_rate, kind, service_rate, service_param);
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
    Py_DECREF(capsule);
    return result;
}
