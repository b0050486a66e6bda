from django.apps import AppConfig


class AdjudicationConfig(AppConfig):
    name = "adjudication"
    verbose_name = "Adjudication, references and MCQs"

    def ready(self):
        from adjudication.mcq.celery_tasks import connect_mcq_workflow

        connect_mcq_workflow()  # re-screen revised items; screening/review export sections
