"""Tests of memory generation: plans, runs, pages, storage and the demo."""
