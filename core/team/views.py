"""The team page (admins), the invitation link (anyone holding it) and password reset."""

from django.conf import settings
from django.contrib import messages
from django.contrib.auth import get_user_model, login
from django.contrib.auth import views as auth_views
from django.core.exceptions import ValidationError
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_POST

from core.roles import Role, role_required
from core.web import add_error_messages

from . import selectors, services
from .forms import InvitationForm, JoinForm, QueuedPasswordResetForm, RolesForm


def _site_url(request) -> str:
    return request.build_absolute_uri("/")


@role_required(Role.ADMIN)
def team(request):
    participants = request.GET.get("participants") == "1"
    page, rows = selectors.team_people(page=request.GET.get("page"), participants=participants)
    return render(
        request,
        "team/team.html",
        {
            "page": page,
            "rows": rows,
            "participants": participants,
            "participant_count": selectors.participant_count(),
            "invitations": selectors.open_invitations(),
            "failed_mail": selectors.failed_mail(),
        },
    )


@role_required(Role.ADMIN)
def invite(request):
    form = InvitationForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        try:
            invitation = services.invitation_create(
                email=form.cleaned_data["email"],
                roles=form.cleaned_data["roles"],
                invited_by=request.user,
                site_url=_site_url(request),
            )
        except services.TeamError as error:
            add_error_messages(form, error)
        else:
            messages.success(
                request,
                f"Invitation queued for {invitation.email}; the link works until "
                f"{invitation.expires_at:%Y-%m-%d %H:%M} UTC.",
            )
            return redirect("team:team")
    return render(
        request, "team/invite.html", {"form": form, "days": settings.HEARTBENCH_INVITATION_DAYS}
    )


def _act(request, action, done: str):
    try:
        action()
    except services.TeamError as error:
        for message in error.messages:
            messages.error(request, message)
    else:
        messages.success(request, done)


@role_required(Role.ADMIN)
@require_POST
def invitation_resend(request, id):
    _act(
        request,
        lambda: services.invitation_resend(
            invitation_id=id, by=request.user, site_url=_site_url(request)
        ),
        "Invitation sent again with a new link; the earlier link no longer works.",
    )
    return redirect("team:team")


@role_required(Role.ADMIN)
@require_POST
def invitation_revoke(request, id):
    _act(
        request,
        lambda: services.invitation_revoke(invitation_id=id, by=request.user),
        "Invitation revoked: its link no longer works.",
    )
    return redirect("team:team")


@role_required(Role.ADMIN)
def person(request, id):
    person = get_object_or_404(get_user_model().objects.prefetch_related("groups"), pk=id)
    row = selectors.people_rows([person])[0]
    form = RolesForm(request.POST or None, initial={"roles": [r.value for r in row.roles]})
    if request.method == "POST" and form.is_valid():
        try:
            services.person_roles_set(
                person_id=person.pk, roles=form.cleaned_data["roles"], by=request.user
            )
        except services.TeamError as error:
            add_error_messages(form, error)
        else:
            messages.success(request, f"Roles of {person.get_username()} saved.")
            return redirect("team:person", id=person.pk)
    return render(
        request,
        "team/person.html",
        {
            "person": person,
            "row": row,
            "form": form,
            "open_work": selectors.person_open_work(person),
            "is_self": person.pk == request.user.pk,
        },
    )


@role_required(Role.ADMIN)
@require_POST
def person_deactivate(request, id):
    _act(
        request,
        lambda: services.person_deactivate(person_id=id, by=request.user),
        "Deactivated: they can no longer log in. Their records keep their name; hand on "
        "their open work listed below.",
    )
    return redirect("team:person", id=id)


@role_required(Role.ADMIN)
@require_POST
def person_reactivate(request, id):
    _act(
        request,
        lambda: services.person_reactivate(person_id=id, by=request.user),
        "Reactivated: they can log in again.",
    )
    return redirect("team:person", id=id)


def join(request, token):
    """The invitation link: set a username and password, get the roles, land at home."""
    invitation = services.invitation_from_link(token)
    refusal = services.invitation_refusal(invitation)
    if refusal:
        status = 404 if invitation is None else 410
        return render(request, "team/join.html", {"refusal": refusal}, status=status)
    form = JoinForm(request.POST or None, initial={"username": invitation.email.split("@")[0]})
    if request.method == "POST" and form.is_valid():
        try:
            user = services.invitation_accept(
                invitation_id=invitation.pk,
                nonce=invitation.nonce,
                username=form.cleaned_data["username"],
                password=form.cleaned_data["password1"],
            )
        except services.TeamError as error:
            add_error_messages(form, error)
        except ValidationError as error:  # the password validators
            form.add_error("password1", error)
        else:
            login(request, user, backend="django.contrib.auth.backends.ModelBackend")
            messages.success(request, "Welcome to heartbench: your account is ready.")
            return redirect(settings.LOGIN_REDIRECT_URL)
    roles = [Role(r).label for r in invitation.roles]
    return render(
        request, "team/join.html", {"form": form, "invitation": invitation, "roles": roles}
    )


class PasswordResetView(auth_views.PasswordResetView):
    """Django's view; the mail goes through the worker and its link starts with SITE_URL
    when that is set (else the host the request came to)."""

    form_class = QueuedPasswordResetForm
    email_template_name = "team/mail/password_reset.txt"
    subject_template_name = "team/mail/password_reset_subject.txt"

    def form_valid(self, form):
        self.extra_email_context = {"site_url": settings.SITE_URL.rstrip("/")}
        return super().form_valid(form)


password_reset = PasswordResetView.as_view()
