"""Consensus routing of the blinded comparison (seed 000 §2.4 Stage 2, App. D.2): an
annotator submits a judgment, and the pair is routed once every assigned annotator has.

services (submit, then route: one transaction) ← views (the comparison page, whose form
submits) and demo. Calls down into annotation.comparison (record the judgment) and
adjudication.arbitration (unanimous adoption or escalation); URLs stay in the
``comparison`` namespace, composed by the site's ``urls.py``.
"""
