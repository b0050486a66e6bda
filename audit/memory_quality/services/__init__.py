"""Writes of the memory quality audit (seed 000 §2.2 Stage 3, App. B.6), one module per step.

configuration (settings versions, the repair and classifier models, the override team)
→ runs (criteria 1-6 over a run's memories) → repair_loop (up to three targeted LLM
repairs per defect, each re-checked) → review (the reviewing team's false-positive
agreements, the reviewer's confirmation, the senior expert's re-audited edit) → finalize
(deduplicate, timeline, sanitize); classifier (the optional LLM classifier, whose flags
enter the repair loop) beside them; checks (the pattern checks and the classifier on one
memory's text, the re-check of repairs and edits) and records (event log, memory
versions, flags) under all of them. Every transition is one keyword-only function
that checks the state it starts from, raises an ``AuditError`` a person can act on, and
appends an ``AuditEvent``.
"""
