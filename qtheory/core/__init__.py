"""The foundation every layer stands on: validation and limits, precision, statistics,
numerics, Sympy formulas and their evaluators, enclosures, the claim record, notation,
phase-type laws, the executor and its cache, and provenance.  Nothing here imports a
model, an engine, a report or the command line (``docs/architecture.md``).
"""
