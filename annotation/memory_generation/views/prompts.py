"""Memory generation views for prompts."""

urlpatterns: list = []
