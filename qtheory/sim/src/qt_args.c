/* Argument checks shared by the simulators; see qt_args.h. */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <math.h>

#include "qt_args.h"

int qt_fail_rule(const char *name, const char *rule, double value) {
    char *repr = PyOS_double_to_string(value, 'r', 0, Py_DTSF_ADD_DOT_0, NULL);
    if (repr != NULL) {
        PyErr_Format(PyExc_ValueError, "%s must %s, got %s", name, rule, repr);
        PyMem_Free(repr);
    }
    return -1;
}

int qt_check_real(const char *name, double value, int ok, const char *rule) {
    if (isnan(value)) {
        PyErr_Format(PyExc_ValueError, "%s must not be NaN", name);
        return -1;
    }
    return ok ? 0 : qt_fail_rule(name, rule, value);
}
