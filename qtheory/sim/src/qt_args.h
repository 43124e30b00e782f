/* Argument checks shared by the simulators: ValueError messages that name the parameter
 * and the rule it broke. */
#ifndef QTHEORY_SIM_QT_ARGS_H
#define QTHEORY_SIM_QT_ARGS_H

/* Raise ValueError "<name> must <rule>, got <value>"; returns -1. */
int qt_fail_rule(const char *name, const char *rule, double value);

/* 0 if `ok`; otherwise ValueError (a NaN gets its own message); returns -1. */
int qt_check_real(const char *name, double value, int ok, const char *rule);

#endif /* QTHEORY_SIM_QT_ARGS_H */
