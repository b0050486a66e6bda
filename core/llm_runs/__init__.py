"""The one framework of every LLM-backed run (issue #33).

``models``: the abstract run, unit and call-record models each workflow's concrete
models derive from (their tables stay per workflow), and ``RunStatus``, the one set of
run states. ``services``: storing a call with its cost (``record_call``) and the run
state machine (start, cancel, resume, retry, finish) under the run's row lock. A
workflow keeps only its own unit-execution code.
"""
