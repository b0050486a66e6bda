"""The page of the LLM defect classifier checked against the memory reviewers (a stored
report: the page reads it, a worker computes it; a GET computes no figure).

!!! BLINDING !!!  Admins only: the classifier's verdicts beside the reviewers' decisions
are for judging the classifier, not something a reviewer should see while reviewing.
"""

from django.shortcuts import render

from audit.memory_quality import classifier_agreement
from core.roles import Role, role_required

admin_required = role_required(Role.ADMIN)


@admin_required
def classifier_agreement_report(request):
    stored = classifier_agreement.stored_report()
    return render(
        request,
        "judge_agreement/classifier.html",
        {
            "stored": stored,
            "poll_url": request.get_full_path(),
            "result": stored.result if stored.ready else None,
            "min_pairs": classifier_agreement.MIN_PAIRS,
        },
    )
