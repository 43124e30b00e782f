/* Module definition of qtheory.sim._core (placeholder until the simulators land). */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

static PyMethodDef core_methods[] = {{NULL, NULL, 0, NULL}};

static struct PyModuleDef core_module = {
    PyModuleDef_HEAD_INIT, "_core", "qtheory simulation kernels in C.", -1, core_methods,
};

PyMODINIT_FUNC PyInit__core(void) { return PyModule_Create(&core_module); }
