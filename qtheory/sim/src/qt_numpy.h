/*
 * Include the NumPy array C API in every translation unit of qtheory.sim._core through
 * this header.  All units share one API table; only _coremodule.c (which defines
 * QT_IMPORT_NUMPY) fills it, by calling import_array() in the module init.
 */
#ifndef QTHEORY_SIM_QT_NUMPY_H
#define QTHEORY_SIM_QT_NUMPY_H

#define PY_ARRAY_UNIQUE_SYMBOL qtheory_sim_ARRAY_API
#ifndef QT_IMPORT_NUMPY
#define NO_IMPORT_ARRAY
#endif
#include "numpy/arrayobject.h"

#endif /* QTHEORY_SIM_QT_NUMPY_H */
