"""Memory generation views for runs."""

urlpatterns: list = []
