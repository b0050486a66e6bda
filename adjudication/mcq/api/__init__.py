"""MCQ item review and assembly over REST (/api/items/), one module per resource: the
queue, items (the review page; "screen now"), decisions, the revise form's drafts, assembly
runs; serializers beside their endpoints, the schema's examples in ``examples.py``.

Reviewers (arbitrators, admins) see what the item page shows them: the key, the options'
provenance, the judge's assessments, checks and issues, the versions and decisions. Never
the judge's model or family (provenance: ``McqScreening.judge_family``/``judge_model``).
Each write calls the service the page calls, with the page's form for validation.
"""
