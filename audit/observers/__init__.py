"""Observer reports (issue 37): does a reader of a character's memories, who never sees
its profile, rate the character as the design vector says?

``inventory``: the Big Five short inventory as a file the lab loads (format, checks);
``models``: the loaded inventory, the observer run (an LLM run on ``core.llm_runs``), one
unit per (character, observer family) and its ratings; ``sampling``: the seeded,
stratified sample of audited memories (or adjudicated references) an observer reads;
``prompts``: what an LLM observer is asked; ``services``: launch, start, cancel, resume
and one unit's call; ``scoring``: the report's figures (pure numpy/scipy);
``stored_reports``: the report computed once on a worker; ``views``: the admin pages.

!!! BLINDING !!!  The observer is blind to the profile and the design: nothing of the
profile goes into a prompt. The pages compare ratings with the design vector and are
for admins only.
"""
