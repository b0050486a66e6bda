"""Consensus routing of the blinded comparison (seed 000 §2.4 Stage 2, App. D.2): an
annotator submits a judgment, and the pair is routed once its three annotators have; an
admin assigns pairs, never to someone who arbitrated them.

services (submit, then route: one transaction; assign after the arbitration check) ← views
(the comparison page, whose form submits; the assignment page), api (the judgment submit,
in the ``comparison-api`` namespace) and demo. Calls down into
annotation.comparison (record the judgment) and adjudication.arbitration (unanimous
adoption or escalation); URLs stay in the ``comparison`` namespace, composed by the site's
``urls.py``.
"""
