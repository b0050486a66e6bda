"""Memory generation api for plans."""

urlpatterns: list = []
