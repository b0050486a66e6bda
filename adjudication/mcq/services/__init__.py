"""Every write of MCQ assembly, screening and item review, by responsibility.

item_assembly (assemble one pair's item; start and execute assembly runs), item_screening
(the App. D.3.1 judge on one screening of an item version) → screening_runs (screening
runs on ``core.llm_runs.RunFlow``: open, cancel, resume, retry, a screening's states);
item_review (a reviewer's action on a flagged or incomplete item). Every change of an
item's options or key goes through :mod:`adjudication.mcq.versions`, which queues the
item's re-screen.
"""
