"""The decision history's historical models and the base's two tables (FormDraft,
ProtocolDeviation) leave this app's state: each app's own migrations now carry them
(``*_history_state_here``, ``core`` 0001). Their tables stay where they are, unchanged; the
content types follow the models to their apps, so the admin's permissions and log entries
keep pointing at them."""

from django.db import migrations

# model name (lower case) → the app that holds it now
MOVED = {
    "historicaladjudicationsettings": "adjudication",
    "historicalarbitrationdecision": "adjudication",
    "historicalmcqitem": "adjudication",
    "historicalmcqreviewdecision": "adjudication",
    "historicalreferenceresponse": "adjudication",
    "historicalchangerequest": "annotation",
    "historicalcomparisonjudgment": "annotation",
    "historicaldiamondsrating": "annotation",
    "historicalfinaldiamondsrating": "annotation",
    "historicalmemoryplan": "annotation",
    "historicalpairassignment": "annotation",
    "historicalprofileedit": "annotation",
    "historicalprofilereview": "annotation",
    "historicalprofilereviewcase": "annotation",
    "historicalprofileversion": "annotation",
    "historicalquotaweights": "annotation",
    "historicalscenarioreview": "annotation",
    "historicalscreeningdecision": "annotation",
    "historicalauditsettings": "audit",
    "historicallabeladjudication": "audit",
    "historicallabelaudit": "audit",
    "historicallabelauditexpert": "audit",
    "historicallabelselection": "audit",
    "historicalmemorycase": "audit",
    "historicalmemoryflag": "audit",
    "protocoldeviation": "core",
    "formdraft": "core",
    "historicalevaluationrun": "evaluation",
    "historicalbaselinestudy": "humanbaseline",
    "historicalitemresponse": "humanbaseline",
    "historicalitemsourcefamily": "humanbaseline",
    "historicalparticipation": "humanbaseline",
}


def content_types_follow(apps, schema_editor):
    ContentType = apps.get_model("contenttypes", "ContentType")
    for model, app_label in MOVED.items():
        if not ContentType.objects.filter(app_label=app_label, model=model).exists():
            ContentType.objects.filter(app_label="heartbench_site", model=model).update(
                app_label=app_label
            )


def content_types_return(apps, schema_editor):
    ContentType = apps.get_model("contenttypes", "ContentType")
    for model, app_label in MOVED.items():
        if not ContentType.objects.filter(app_label="heartbench_site", model=model).exists():
            ContentType.objects.filter(app_label=app_label, model=model).update(
                app_label="heartbench_site"
            )


class Migration(migrations.Migration):
    dependencies = [
        ("heartbench_site", "0015_historicalbaselinestudy_pay_text"),
        ("contenttypes", "0002_remove_content_type_name"),
        ("adjudication", "0011_history_state_here"),
        ("annotation", "0016_history_state_here"),
        ("audit", "0005_history_state_here"),
        ("core", "0001_history_state_here"),
        ("evaluation", "0004_history_state_here"),
        ("humanbaseline", "0007_history_state_here"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.DeleteModel(name="FormDraft"),
                migrations.DeleteModel(name="HistoricalAdjudicationSettings"),
                migrations.DeleteModel(name="HistoricalArbitrationDecision"),
                migrations.DeleteModel(name="HistoricalAuditSettings"),
                migrations.DeleteModel(name="HistoricalBaselineStudy"),
                migrations.DeleteModel(name="HistoricalChangeRequest"),
                migrations.DeleteModel(name="HistoricalComparisonJudgment"),
                migrations.DeleteModel(name="HistoricalDiamondsRating"),
                migrations.DeleteModel(name="HistoricalEvaluationRun"),
                migrations.DeleteModel(name="HistoricalFinalDiamondsRating"),
                migrations.DeleteModel(name="HistoricalItemResponse"),
                migrations.DeleteModel(name="HistoricalItemSourceFamily"),
                migrations.DeleteModel(name="HistoricalLabelAdjudication"),
                migrations.DeleteModel(name="HistoricalLabelAudit"),
                migrations.DeleteModel(name="HistoricalLabelAuditExpert"),
                migrations.DeleteModel(name="HistoricalLabelSelection"),
                migrations.DeleteModel(name="HistoricalMcqItem"),
                migrations.DeleteModel(name="HistoricalMcqReviewDecision"),
                migrations.DeleteModel(name="HistoricalMemoryCase"),
                migrations.DeleteModel(name="HistoricalMemoryFlag"),
                migrations.DeleteModel(name="HistoricalMemoryPlan"),
                migrations.DeleteModel(name="HistoricalPairAssignment"),
                migrations.DeleteModel(name="HistoricalParticipation"),
                migrations.DeleteModel(name="HistoricalProfileEdit"),
                migrations.DeleteModel(name="HistoricalProfileReview"),
                migrations.DeleteModel(name="HistoricalProfileReviewCase"),
                migrations.DeleteModel(name="HistoricalProfileVersion"),
                migrations.DeleteModel(name="HistoricalQuotaWeights"),
                migrations.DeleteModel(name="HistoricalReferenceResponse"),
                migrations.DeleteModel(name="HistoricalScenarioReview"),
                migrations.DeleteModel(name="HistoricalScreeningDecision"),
                migrations.DeleteModel(name="ProtocolDeviation"),
            ],
            database_operations=[],
        ),
        migrations.RunPython(content_types_follow, content_types_return),
    ]
