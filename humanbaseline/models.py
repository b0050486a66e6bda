"""Models of the matched-information human baseline (seed 000 §3.2, App. J)."""
