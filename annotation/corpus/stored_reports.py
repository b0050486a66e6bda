"""The corpus package's stored reports (``core.reports`` imports this module to find a
kind ``annotation.corpus.*``): the distinctness table."""

from annotation.corpus.distinctness_report import KIND, compute, inputs  # noqa: F401 (registers)
