"""Profile review over REST (/api/review/), one module per resource: profiles (the queue,
your review), change requests (add, withdraw, resolve), outcomes, and the senior
expert's side (seed 000 App. B.3): adjudications, edits, freezes; shared serializers in
``serializers.py``, the schema's examples in ``examples.py``. Thin: validate with the
page's form, call the page's service, serialize. The blinding of the pages holds here
too: every read goes through the same selectors. ``common.py`` (errors, conflicts, 404s,
body, ETag) serves scenario review's API too."""
