"""Reads of the export page and the admins' home card: counts only, a fixed number of
queries whatever the size of the set."""

from django.db.models import Count, Exists, OuterRef, Q
from django.urls import reverse

from adjudication.arbitration.models import McqItem, McqOption, ReferenceResponse
from annotation.corpus.models import Character
from heartbench_site.base.roles import Role, user_roles

# What the zip holds, for the page (adjudication/export.py writes it).
EXPORT_LAYOUT = (
    (
        "release/",
        "mcq, ground_truth, scenarios and characters in the public release's layouts, "
        "each as .json, .jsonl and .csv",
    ),
    (
        "model_facing/",
        "items, memories (content_full only, anonymized ids, timeline labels) and the "
        "keys in a separate answers file: hand these to an evaluation harness",
    ),
    (
        "construction/",
        "every item with its key, option provenance, versions, reference and full "
        "adjudication chain: construction team only",
    ),
    ("manifest.json", "counts, item and profile versions, SHA-256 of every file"),
)


def export_summary() -> dict:
    by_status = dict(
        McqItem.objects.values_list("status").annotate(n=Count("pk")).order_by("status")
    )
    final = McqItem.objects.filter(status=McqItem.Status.FINAL)
    options = McqOption.objects.filter(item__status=McqItem.Status.FINAL).aggregate(
        total=Count("pk"), generated=Count("pk", filter=Q(is_generated=True))
    )
    targets = Character.objects.filter(mcq_items__status=McqItem.Status.FINAL).distinct()
    without_profile = list(
        targets.filter(versions__isnull=True).order_by("key").values_list("key", flat=True)
    )
    current_reference = ReferenceResponse.objects.filter(
        superseded_at__isnull=True,
        character_id=OuterRef("character_id"),
        scenario_id=OuterRef("scenario_id"),
    )
    unkeyed = final.filter(reference__isnull=True).exclude(Exists(current_reference)).count()
    return {
        "by_status": [(label, by_status.get(value, 0)) for value, label in McqItem.Status.choices],
        "final": by_status.get(McqItem.Status.FINAL, 0),
        "excluded": sum(n for s, n in by_status.items() if s != McqItem.Status.FINAL),
        "options": options["total"],
        "generated_options": options["generated"],
        "scenarios": final.values("scenario").distinct().count(),
        "characters": targets.count(),
        "characters_without_profile": without_profile,
        "items_without_reference": unkeyed,
        "references": ReferenceResponse.objects.filter(superseded_at__isnull=True).count(),
    }


def export_home_queues(*, user) -> dict:
    """The admins' home card: how many items the export would contain (one query)."""
    if Role.ADMIN not in user_roles(user):
        return {}
    count = McqItem.objects.filter(status=McqItem.Status.FINAL).count()
    return {
        "final_set_export": {
            "count": count,
            "url": reverse("export:home"),
            "label": f"{count} item(s) in the final set, ready to export",
        }
    }
