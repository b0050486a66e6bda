"""Memory generation services: ``plans`` (allocation, B.4) and the run machinery (B.5)."""
