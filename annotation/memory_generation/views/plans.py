"""Memory generation views for plans."""

urlpatterns: list = []
