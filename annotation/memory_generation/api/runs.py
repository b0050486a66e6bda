"""Memory generation api for runs."""

urlpatterns: list = []
