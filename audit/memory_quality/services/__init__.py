"""Writes of the memory quality audit (seed 000 §2.2 Stage 3, App. B.6), one module per step.

configuration (settings versions, the repair and classifier models) → runs (criteria 1-6
over a run's memories) → repair_loop (up to three LLM repairs, each re-audited) → review
(the reviewer's decision, the senior expert's edit) → finalize (deduplicate, timeline,
sanitize); classifier (the optional LLM classifier) beside them; records (event log,
memory versions, flags) under all of them. Every transition is one keyword-only function
that checks the state it starts from, raises an ``AuditError`` a person can act on, and
appends an ``AuditEvent``.
"""
