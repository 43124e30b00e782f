/* Python binding of the Lindley-recursion simulator: qtheory.sim._core.lindley. */
#ifndef QTHEORY_SIM_LINDLEY_PY_H
#define QTHEORY_SIM_LINDLEY_PY_H

#include <Python.h>

extern const char qt_lindley_doc[];
PyObject *qt_lindley(PyObject *self, PyObject *args, PyObject *kwargs);

#define QT_LINDLEY_METHODDEF                                                                  \
    {"lindley", (PyCFunction)(void (*)(void))qt_lindley, METH_VARARGS | METH_KEYWORDS,          \
     qt_lindley_doc}

#endif /* QTHEORY_SIM_LINDLEY_PY_H */
