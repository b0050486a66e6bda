"""The matched-information human baseline (seed 000 App. J, Table 19): a balanced subset
(150 items in the paper: a quota per answer-key source, the families and the
arbitrator's rewrites), participants who answer it with the same materials the models
saw, and the report comparing them.
!!! BLINDING !!!  Participant pages render only ``selectors.item_materials``.

Modules: subset (pure core, the ILP selection), report (pure core, App. J statistics),
models, services, selectors, celery_tasks, views (presentation: their tables and charts),
forms, urls, admin, demo.
Calls go views → services/selectors → models and the pure cores, celery_tasks →
services; down into ``evaluation`` (retrieval sets, model predictions),
``adjudication.mcq``, ``adjudication.arbitration`` (rewritten references),
``annotation.generation`` (model families), ``annotation.corpus``
and ``agreement``.
"""
