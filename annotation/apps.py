from django.apps import AppConfig


class AnnotationConfig(AppConfig):
    name = "annotation"
    verbose_name = "Corpus and annotation"

    def ready(self):
        # Queues the stored distinctness table's new computation when a profile changes.
        from annotation.corpus import distinctness_report  # noqa: F401
