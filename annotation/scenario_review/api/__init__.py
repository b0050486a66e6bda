"""Scenario review and blueprints over REST (/api/review/), one module per resource:
scenarios (queue, one review page, manual entry), screenings (pass 1), revisions, ratings
(pass 2), reassessments, coverage, blueprints; shared serializers in ``serializers.py``,
the schema's examples in ``examples.py``. Thin: validate with the page's form, call the
page's service, serialize. The blinding of the pages holds here too: every read goes
through the same selectors."""
