"""Pages of the human baseline. Thin: parse, call a service or selector, render.

Participant pages only ever look up the signed-in person's own participation; another
study's pages are a 404 for them. The admin pages are in ``admin_views.py``.
"""

from urllib.parse import urlsplit

from django.contrib import messages
from django.contrib.auth import login
from django.http import Http404, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_POST

from adjudication.mcq.models import OPTION_LABELS
from core.roles import Role, role_required, user_roles
from core.web import add_error_messages

from . import selectors, services
from .forms import (
    SignupForm,
)
from .models import (
    BaselineError,
    BaselineNotFound,
    BaselineStudy,
    Participation,
)

participant_required = role_required(Role.BASELINE_PARTICIPANT)
S = Participation.Status
# How long the finalize page shows the completion code before it sends the participant to
# the study's completion URL (a button goes at once).
COMPLETION_REDIRECT_SECONDS = 10


def _own(request, study_id) -> Participation:
    participation = selectors.participation_for(user=request.user, study_id=study_id)
    if participation is None:
        raise Http404("You are not enrolled in this study.")
    return participation


def _next_url(p: Participation) -> str:
    study_id = p.study_id
    if p.status == S.WITHDRAWN:
        return reverse("baseline:withdraw", args=[study_id])
    if p.status in (S.INVITED, S.DECLINED):
        return reverse("baseline:consent", args=[study_id])
    if p.status == S.CONSENTED:
        if p.briefing_done_at is None:
            return reverse("baseline:briefing", args=[study_id])
        return reverse("baseline:practice", args=[study_id, _practice_to_resume(p)])
    if p.status == S.STARTED:
        first_open = p.responses.filter(choice="").order_by("position").first()
        position = first_open.position if first_open else 1
        return reverse("baseline:item", args=[study_id, position])
    return reverse("baseline:finalize", args=[study_id])


def _practice_to_resume(p: Participation) -> int:
    """The first practice item without an answer, else the last one (where the study
    starts)."""
    n_practice = len(selectors.practice_items(study=p.study))
    answered = selectors.practice_answered(participation=p)
    return next((n for n in range(1, n_practice + 1) if n not in answered), max(n_practice, 1))


@role_required(Role.BASELINE_PARTICIPANT, Role.ADMIN)
def home(request):
    if Role.BASELINE_PARTICIPANT not in user_roles(request.user):
        return redirect("baseline:admin")
    studies = selectors.participant_studies(user=request.user)
    return render(request, "humanbaseline/participant_home.html", {"participations": studies})


def _pool_of_link(request, token) -> dict | None:
    """The pool id the invitation link carried (Prolific, SONA), kept in the session
    between the link's page and the signup it posts; its problems become messages."""
    key = f"baseline-pool-{token}"
    pool, problems = services.pool_from_query(request.GET)
    for problem in problems:
        messages.warning(request, problem)
    if pool:
        request.session[key] = pool
        return pool
    return request.session.get(key)


def join(request, token):
    """The invitation link: sign up (or, signed in, enrol) into the study. A pool's
    participant id in the link (``?PROLIFIC_PID=…``, ``?sona_id=…``) is stored with it."""
    study = BaselineStudy.objects.filter(invitation_token=token).first()
    if study is None:
        raise Http404("This invitation link is not valid.")
    pool = _pool_of_link(request, token)
    if request.user.is_authenticated:
        if request.method == "POST":
            try:
                services.participant_enrol(
                    study=study, user=request.user, via="invitation", pool=pool
                )
            except BaselineError as error:
                messages.error(request, " ".join(error.messages))
                return redirect("home")
            request.session.pop(f"baseline-pool-{token}", None)
            return redirect("baseline:study", study_id=study.pk)
        return render(request, "humanbaseline/join.html", {"study": study, "form": None})
    form = SignupForm(request.POST or None, token=token)
    if request.method == "POST" and form.is_valid():
        try:
            participation = services.invitation_signup(
                token=token,
                username=form.cleaned_data["username"],
                password=form.cleaned_data["password"],
                pool=pool,
            )
        except BaselineError as error:
            add_error_messages(form, error)
        else:
            login(request, participation.user, backend="django.contrib.auth.backends.ModelBackend")
            request.session.pop(f"baseline-pool-{token}", None)
            return redirect("baseline:study", study_id=study.pk)
    return render(request, "humanbaseline/join.html", {"study": study, "form": form})


@participant_required
def study(request, study_id):
    return redirect(_next_url(_own(request, study_id)))


@participant_required
def consent(request, study_id):
    p = _own(request, study_id)
    if request.method == "POST" and p.status == S.INVITED:
        try:
            p = services.consent_decide(
                participation=p,
                agree=request.POST.get("decision") == "agree",
                version=request.POST.get("version", ""),
            )
        except BaselineError as error:
            messages.error(request, " ".join(error.messages))
            return redirect("baseline:consent", study_id=study_id)
        if p.status == S.DECLINED:
            return redirect("baseline:consent", study_id=study_id)
        return redirect("baseline:briefing", study_id=study_id)
    if p.status not in (S.INVITED, S.DECLINED):
        return redirect(_next_url(p))
    return render(
        request,
        "humanbaseline/consent.html",
        {
            "p": p,
            "study": p.study,
            "load": selectors.study_reading_load(study=p.study),
            "n_practice": len(selectors.practice_items(study=p.study)),
        },
    )


@participant_required
def briefing(request, study_id):
    p = _own(request, study_id)
    if p.status in (S.INVITED, S.DECLINED, S.WITHDRAWN):
        return redirect(_next_url(p))
    if request.method == "POST":
        services.briefing_complete(participation=p)
        return redirect("baseline:practice", study_id=study_id, position=1)
    return render(
        request,
        "humanbaseline/briefing.html",
        {
            "p": p,
            "study": p.study,
            "load": selectors.study_reading_load(study=p.study),
            "instruction": selectors.INSTRUCTION,
        },
    )


def _practice_context(p: Participation, items, position: int, *, error: str = "") -> dict:
    study_item = items[position - 1]
    answered = selectors.practice_answered(participation=p)
    choice = answered.get(position, "")
    unanswered = [n for n in range(1, len(items) + 1) if n not in answered]
    return {
        "p": p,
        "study": p.study,
        "position": position,
        "n_practice": len(items),
        "choice": choice,
        # Feedback is allowed on practice items only (App. J): the expected answer and
        # the reason the admin gave for it, once the participant has chosen.
        "practice_key": study_item.item.correct_answer if choice else "",
        "practice_reason": study_item.practice_reason if choice else "",
        "next_unanswered": next((n for n in unanswered if n > position), None)
        or (unanswered[0] if unanswered else None),
        "all_answered": not unanswered,
        "started": p.status in (S.STARTED, S.FINALIZED),
        "error": error,
        "study_item": study_item,
    }


@participant_required
def practice(request, study_id, position):
    """A practice item. "Check my answer" posts through htmx and the answer's part of the
    page comes back with the feedback in place (a plain post redirects here); the study
    can be started once every practice item has an answer."""
    p = _own(request, study_id)
    if p.status in (S.INVITED, S.DECLINED, S.WITHDRAWN) or p.briefing_done_at is None:
        return redirect(_next_url(p))
    items = selectors.practice_items(study=p.study)
    if not 1 <= position <= len(items):
        raise Http404("No such practice item.")
    error = ""
    if request.method == "POST":
        try:
            services.practice_answer(
                participation=p, position=position, choice=request.POST.get("choice", "")
            )
        except BaselineError as e:
            error = " ".join(e.messages)
        if request.htmx:
            context = _practice_context(p, items, position, error=error)
            context["materials"] = selectors.item_materials(context["study_item"])
            context["checked"] = not error
            return render(request, "humanbaseline/practice.html#answer", context)
        if error:
            messages.error(request, error)
        return redirect("baseline:practice", study_id=study_id, position=position)
    context = _practice_context(p, items, position)
    context["materials"] = selectors.item_materials(context["study_item"])
    return render(request, "humanbaseline/practice.html", context)


@participant_required
@require_POST
def start(request, study_id):
    p = _own(request, study_id)
    try:
        p = services.baseline_session_start(participation=p)
    except BaselineError as error:
        messages.error(request, " ".join(error.messages))
    return redirect(_next_url(p))


def _item_context(p, position):
    response = selectors.study_item_at(participation=p, position=position)
    if response is None:
        raise Http404("No such item in your study.")
    # The letters an option can carry a "Saved" mark for (the htmx save sends them all).
    option_letters = OPTION_LABELS
    nav = selectors.navigator(participation=p)
    answered = sum(1 for _, done in nav if done)
    return {
        "p": p,
        "study": p.study,
        "position": position,
        "response": response,
        "nav": nav,
        "n_items": len(nav),
        "answered": answered,
        "percent": round(100 * answered / len(nav)) if nav else 0,
        "previous": position - 1 if position > 1 else None,
        "next": position + 1 if position < len(nav) else None,
        "locked": p.status == S.FINALIZED,
        "option_letters": option_letters,
    }


@participant_required
def item(request, study_id, position):
    p = _own(request, study_id)
    if p.status not in (S.STARTED, S.FINALIZED):
        return redirect(_next_url(p))
    if request.method == "POST":
        try:
            services.answer_save(
                participation=p,
                position=position,
                choice=request.POST.get("choice", ""),
                seconds=request.POST.get("seconds"),
                report_id=request.POST.get("report_id", ""),
            )
            error = None
        except BaselineNotFound as e:
            raise Http404(" ".join(e.messages)) from None
        except BaselineError as e:
            error = " ".join(e.messages)
        if request.htmx:
            context = _item_context(p, position)
            context["error"] = error
            context["saved"] = error is None
            context["refresh"] = True
            return render(request, "humanbaseline/item.html#saved", context)
        if error:
            messages.error(request, error)
            return redirect("baseline:item", study_id=study_id, position=position)
        nav_next = request.POST.get("go")
        target = position + 1 if nav_next == "next" else position
        if target > len(selectors.navigator(participation=p)):
            return redirect("baseline:finalize", study_id=study_id)
        return redirect("baseline:item", study_id=study_id, position=target)
    services.activity_touch(participation=p)
    context = _item_context(p, position)
    context["materials"] = selectors.item_materials(context["response"].study_item)
    return render(request, "humanbaseline/item.html", context)


@participant_required
@require_POST
def item_time(request, study_id, position):
    """The page reports time spent on an item when the participant leaves it; a report
    received twice is counted once. A value that is not a number of seconds is a 400 with
    the reason; an item that is not the participant's a 404."""
    try:
        services.time_record(
            participation=_own(request, study_id),
            position=position,
            seconds=request.POST.get("seconds"),
            report_id=request.POST.get("report_id", ""),
        )
    except BaselineNotFound as error:
        raise Http404(" ".join(error.messages)) from None
    except BaselineError as error:
        return HttpResponse(
            " ".join(error.messages), status=400, content_type="text/plain; charset=utf-8"
        )
    return HttpResponse(status=204)


@participant_required
def finalize(request, study_id):
    p = _own(request, study_id)
    if p.status not in (S.STARTED, S.FINALIZED):
        return redirect(_next_url(p))
    if request.method == "POST" and p.status == S.STARTED:
        try:
            services.baseline_finalize(participation=p)
        except BaselineError as error:
            messages.error(request, " ".join(error.messages))
        return redirect("baseline:finalize", study_id=study_id)
    nav = selectors.navigator(participation=p)
    # The end of the study for the recruitment pool, once finalized.
    completion = services.completion_url(p) if p.status == S.FINALIZED else ""
    return render(
        request,
        "humanbaseline/finalize.html",
        {
            "p": p,
            "study": p.study,
            "nav": nav,
            "unanswered": [pos for pos, done in nav if not done],
            "n_items": len(nav),
            "completion_url": completion,
            "completion_delay": COMPLETION_REDIRECT_SECONDS,
            "completion_host": urlsplit(completion).netloc,
        },
    )


@participant_required
def withdraw(request, study_id):
    """Withdraw from the study: a page that says what happens to the answers, then one
    button. A second submit (or a reload) changes nothing and shows the same outcome."""
    p = _own(request, study_id)
    if request.method == "POST":
        try:
            services.participant_withdraw(participation=p)
        except BaselineError as error:
            messages.error(request, " ".join(error.messages))
        return redirect("baseline:withdraw", study_id=study_id)
    return render(
        request,
        "humanbaseline/withdraw.html",
        {"p": p, "study": p.study, "back": _next_url(p) if p.status != S.WITHDRAWN else ""},
    )
