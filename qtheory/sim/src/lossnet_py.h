/* Python bindings of the loss-network simulator: qtheory.sim._core.lossnet_simulate,
 * lossnet_path (two classes), lossnet_classes_simulate (n classes) and lossnet_source
 * (a path drawn once for several runs). */
#ifndef QTHEORY_SIM_LOSSNET_PY_H
#define QTHEORY_SIM_LOSSNET_PY_H

#include <Python.h>

extern const char qt_lossnet_simulate_doc[];
extern const char qt_lossnet_path_doc[];
extern const char qt_lossnet_source_doc[];
extern const char qt_lossnet_classes_simulate_doc[];
PyObject *qt_lossnet_simulate(PyObject *self, PyObject *args, PyObject *kwargs);
PyObject *qt_lossnet_path(PyObject *self, PyObject *args, PyObject *kwargs);
PyObject *qt_lossnet_source(PyObject *self, PyObject *args, PyObject *kwargs);
PyObject *qt_lossnet_classes_simulate(PyObject *self, PyObject *args, PyObject *kwargs);

#define QT_LOSSNET_METHODDEFS                                                                 \
    {"lossnet_simulate", (PyCFunction)(void (*)(void))qt_lossnet_simulate,                     \
     METH_VARARGS | METH_KEYWORDS, qt_lossnet_simulate_doc},                                   \
    {"lossnet_path", (PyCFunction)(void (*)(void))qt_lossnet_path,                             \
     METH_VARARGS | METH_KEYWORDS, qt_lossnet_path_doc},                                       \
    {"lossnet_source", (PyCFunction)(void (*)(void))qt_lossnet_source,                         \
     METH_VARARGS | METH_KEYWORDS, qt_lossnet_source_doc},                                     \
    {"lossnet_classes_simulate", (PyCFunction)(void (*)(void))qt_lossnet_classes_simulate,     \
     METH_VARARGS | METH_KEYWORDS, qt_lossnet_classes_simulate_doc}

#endif /* QTHEORY_SIM_LOSSNET_PY_H */
