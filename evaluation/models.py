"""Models of model evaluation runs (seed 000 §3.1, App. E, F, G, I, L.1).

Evaluation is its own app: its runs, retrieval sets and predictions feed the human
baseline (humans and models must see *identical* memory strings in identical order,
App. J), the reference-label audit subset and the profile-disclosure diagnostic, so it
sits beside them rather than inside one.
"""

from django.db import models

from adjudication.models import McqItem
from annotation.models import Memory


class RetrievalSet(models.Model):
    """The memories retrieved for one item under one retriever configuration.

    ``method`` is ``bm25`` or ``tfidf`` for the built-in retriever, or ``imported``
    when the set came with an imported evaluation run (``origin`` names the run/file).
    Entries are snapshots: the strings a model or participant saw, in rank order.
    """

    class Method(models.TextChoices):
        BM25 = "bm25", "BM25 over content_full"
        TFIDF = "tfidf", "TF-IDF cosine over content_full"
        IMPORTED = "imported", "Imported with an evaluation run"

    item = models.ForeignKey(McqItem, on_delete=models.PROTECT, related_name="retrieval_sets")
    method = models.CharField(max_length=16, choices=Method.choices)
    k = models.PositiveSmallIntegerField()
    origin = models.CharField(max_length=200, default="builtin")
    query = models.TextField()
    scenario_age = models.PositiveSmallIntegerField()
    eligible_count = models.PositiveIntegerField()
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["item", "method", "k"]
        constraints = [
            models.UniqueConstraint(
                fields=["item", "method", "k", "origin"], name="retrieval_set_unique"
            )
        ]

    def __str__(self):
        return f"{self.item.question_id} {self.method}@{self.k}"


class RetrievedMemory(models.Model):
    retrieval_set = models.ForeignKey(
        RetrievalSet, on_delete=models.CASCADE, related_name="entries"
    )
    rank = models.PositiveSmallIntegerField()
    memory = models.ForeignKey(
        Memory, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    anonymized_id = models.CharField(max_length=40)
    timeline = models.CharField(max_length=120)
    event_age = models.PositiveSmallIntegerField()
    content_full = models.TextField()
    score = models.FloatField(null=True, blank=True)

    class Meta:
        ordering = ["retrieval_set", "rank"]
        constraints = [
            models.UniqueConstraint(fields=["retrieval_set", "rank"], name="retrieved_rank_unique")
        ]

    def __str__(self):
        return f"{self.retrieval_set_id}#{self.rank} {self.anonymized_id}"
