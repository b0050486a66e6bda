"""The memory audit's stored reports (``core.reports``): the worker imports this module
to find a kind named ``audit.memory_quality.<name>``. The LLM classifier against the
memory reviewers: :mod:`audit.memory_quality.classifier_agreement`."""

from audit.memory_quality import classifier_agreement  # noqa: F401  (registers its kind)
