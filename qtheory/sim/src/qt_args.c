/* Argument checks shared by the simulators; see qt_args.h. */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <math.h>

#include "numpy/random/bitgen.h"

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

/* New reference to the capsule of a numpy.random.BitGenerator, its bitgen_t in *rng. */
PyObject *qt_get_bitgen(PyObject *bit_generator, bitgen_t **rng) {
    /* An interned name, kept for the life of the process: a fresh string per call
     * would also churn CPython's type attribute cache. */
    static PyObject *capsule_attribute = NULL;
    if (capsule_attribute == NULL) {
        capsule_attribute = PyUnicode_InternFromString("capsule");
        if (capsule_attribute == NULL) {
            return NULL;
        }
    }
    PyObject *capsule = PyObject_GetAttr(bit_generator, capsule_attribute);
    if (capsule == NULL) {
        if (PyErr_ExceptionMatches(PyExc_AttributeError)) {
            PyErr_Format(PyExc_TypeError,
                         "bit_generator must be a numpy.random.BitGenerator (e.g. "
                         "numpy.random.default_rng().bit_generator), got %.200s",
                         Py_TYPE(bit_generator)->tp_name);
        }
        return NULL;
    }
    if (!PyCapsule_IsValid(capsule, "BitGenerator")) {
        Py_DECREF(capsule);
        PyErr_SetString(PyExc_TypeError,
                        "bit_generator.capsule must be a PyCapsule named 'BitGenerator'");
        return NULL;
    }
    *rng = (bitgen_t *)PyCapsule_GetPointer(capsule, "BitGenerator");
    return capsule;
}
