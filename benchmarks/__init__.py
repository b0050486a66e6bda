"""Benchmark scripts: each prints measured ratios (`make bench`)."""
