"""The matched-information human baseline (seed 000 App. J, Table 19): a balanced subset
(150 items in the paper: a quota per answer-key source, the families and the
arbitrator's rewrites), participants who answer it with the same materials the models
saw, and the report comparing them.
!!! BLINDING !!!  Participant pages render only ``selectors.item_materials``.

Modules: subset (pure core, the ILP selection), report (pure core, App. J statistics),
models, services (study: sources, selection, study; participation; report: the best
model fixed before the report, the report), selectors, celery_tasks, views
(presentation: their tables and charts), forms, urls, admin, demo.
The report reweights to this benchmark's final-set counts by source and compares
humans with a best model fixed in advance (``BestModelChoice``), never one picked on
the subset; practice items share no scenario with the subset.
Calls go views → services/selectors → models and the pure cores, celery_tasks →
services; down into ``evaluation`` (retrieval sets, model predictions),
``adjudication.mcq``, ``adjudication.arbitration`` (rewritten references),
``annotation.generation`` (model families), ``annotation.corpus``
and ``agreement``.
"""
