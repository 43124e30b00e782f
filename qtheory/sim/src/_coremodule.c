/* Module definition of qtheory.sim._core: simulation kernels in C. */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#define QT_IMPORT_NUMPY
#include "qt_numpy.h"

#include "lindley_py.h"
#include "lossnet_py.h"

static PyMethodDef core_methods[] = {
    QT_LINDLEY_METHODDEF,
    QT_LOSSNET_METHODDEFS,
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef core_module = {
    PyModuleDef_HEAD_INIT,
    .m_name = "_core",
    .m_doc = "qtheory simulation kernels in C.",
    .m_size = -1,
    .m_methods = core_methods,
};

PyMODINIT_FUNC PyInit__core(void) {
    import_array(); /* returns NULL with an exception set on failure */
    return PyModule_Create(&core_module);
}
