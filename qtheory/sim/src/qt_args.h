/* Argument handling shared by the simulators: ValueError messages that name the
 * parameter and the rule it broke, and the bit generator taken from its capsule. */
#ifndef QTHEORY_SIM_QT_ARGS_H
#define QTHEORY_SIM_QT_ARGS_H

/* Raise ValueError "<name> must <rule>, got <value>"; returns -1. */
int qt_fail_rule(const char *name, const char *rule, double value);

/* 0 if `ok`; otherwise ValueError (a NaN gets its own message); returns -1. */
int qt_check_real(const char *name, double value, int ok, const char *rule);

/* New reference to the capsule of a numpy.random.BitGenerator, its bitgen_t in *rng;
 * NULL with TypeError set when `bit_generator` is not one.  (Needs Python.h and
 * numpy/random/bitgen.h first.) */
PyObject *qt_get_bitgen(PyObject *bit_generator, bitgen_t **rng);

#endif /* QTHEORY_SIM_QT_ARGS_H */
