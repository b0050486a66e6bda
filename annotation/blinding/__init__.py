"""Proving the blinding after annotation (issue 22, "Blinding integrity"): an optional
question, open only once an annotator's judgment is final, asks which family they
think wrote each letter; the admin's report gives the blinding success rate against
chance (Wilson CI, exact binomial test) beside the position-bias figures.

Modules: stats (pure arithmetic, no Django), models, services, selectors (the guess
page, the report, the selected-letter count the outcomes page reuses), forms, views,
urls, admin. Sits above ``annotation.comparison`` and below
``adjudication.arbitration``.
"""
