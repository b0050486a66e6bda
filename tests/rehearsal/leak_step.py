"""The rehearsal's leak step (issue 22, "Blinding integrity"): the candidate the fake
provider answered with a planted identity leak is caught when the pairs are created; its
pair waits while the others are assigned; the admin cleans it on the flag's page and
assigns the pair, which then goes on like any other."""

import re

from .conftest import PLANTED_LEAK
from .steps import Lab


def clean_the_leak(lab: Lab) -> int:
    """The admin finds the one open leak flag, cleans the candidate's final decision
    (removing the planted sentence, with a reason) and assigns the freed pair to the
    three annotators. Returns the flag's id."""
    admin = lab["admin"]
    listing = admin.get("/screening/")
    (flag_id,) = {int(n) for n in re.findall(r"/screening/flags/(\d+)/", listing.text)}
    assert "As an AI" in listing.text and "OpenAI" in listing.text
    page = admin.get(f"/screening/flags/{flag_id}/")
    form = admin.form(page, action=f"/screening/flags/{flag_id}/clean/")
    leaky = dict(form.fields)["final_decision"].strip()
    assert leaky.endswith(PLANTED_LEAK.strip())
    answer = admin.submit(
        form,
        {
            "final_decision": leaky.removesuffix(PLANTED_LEAK.strip()).strip(),
            "reason": "Removed the self-reference and the provider name.",
        },
        page_url=page.url,
    )
    assert "cleaned; flag closed" in answer.text, answer.text[-2000:]
    page = admin.get("/compare/assign/")
    assert 'data-testid="pair-waits"' not in page.text
    form = admin.form(page, action="/compare/assign/")
    answer = admin.submit(
        form, {"annotators": [v for v, _ in form.choices["annotators"]]}, page_url=page.url
    )
    assert "3 new assignments" in answer.text, answer.text[-2000:]
    return flag_id
