"""The human baseline's administration over REST (/api/baseline/), for admins, one module
per resource: sources (answer-key sources and predictions), selections, studies,
participants, time on task, best model, reports; serializers beside their endpoints (the
study's, which several show, in ``serializers.py``), the schema's examples in
``examples.py``.

Thin, as the pages are: the page's form validates, the page's service writes, with the
same messages. A participant holds no API token and every endpoint here refuses the
participant role (403): the participant's study stays in the browser.
"""
