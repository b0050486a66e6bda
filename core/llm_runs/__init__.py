"""The one framework of every LLM-backed run (issue #33).

``models``: the abstract run, unit and call-record models each workflow's concrete
models derive from (their tables stay per workflow), and ``RunStatus``, the one set of
run states. ``services``: storing a call with its cost (``record_call``) and the run
state machine (start, cancel, resume, retry, finish) under the run's row lock. A
workflow keeps only its own unit-execution code.

Issue #36: ``estimate`` turns the prompts a run will send and the configured prices into
its cost estimate before launch; ``spending`` holds a run's budget and the lab's monthly
cap per provider, which ``RunFlow.claim_allowed`` checks before a unit is taken up
(stopping the run at budget) and ``RunFlow.resume_locked`` lifts; ``forms`` has the
budget field and the resume form.
"""
