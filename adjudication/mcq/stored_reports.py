"""The MCQ workflow's stored reports (``core.reports``): the worker imports this module
to find a kind named ``adjudication.mcq.<name>``. The item screener against the item
reviewers: :mod:`adjudication.mcq.screener_agreement`."""

from adjudication.mcq import screener_agreement  # noqa: F401  (registers its kind)
