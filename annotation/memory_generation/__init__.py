"""Memory quota allocation and memory generation (seed 000 §2.2 Stage 2, App. B.4, B.5,
B.7, L.3): from a frozen profile to the character's 1,000 memories, which then go to
the memory-quality audit (``audit.memory_quality``).

- ``quota``: the pure allocation arithmetic (45 one-year segments, ages 6–50).
- ``models``: versioned weight vectors and plans (``models/plans.py``), generation runs,
  batches, call records and each generated memory's provenance (``models/runs.py``).
- ``services``/``selectors``/``views``/``api``: plans (before launch) and runs.

Generated memories are ordinary ``corpus.Memory`` rows whose ``source`` names their
provenance, so the audit and every later stage read them like imported ones.
"""
