"""The team page's forms, the invitation link's account form, and the password reset
form whose mail goes through the worker."""

from django import forms
from django.contrib.auth.forms import PasswordResetForm, UsernameField
from django.template import loader

from core.roles import Role

from .models import MailAttempt
from .services import INVITABLE_ROLES, mail_queue


def _role_choices(roles) -> list[tuple[str, str]]:
    return [(r.value, r.label) for r in roles]


class InvitationForm(forms.Form):
    email = forms.EmailField(label="Email address")
    roles = forms.MultipleChoiceField(
        choices=_role_choices(INVITABLE_ROLES),
        widget=forms.CheckboxSelectMultiple,
        help_text="Study participants join through their study's own link, not here.",
    )


class RolesForm(forms.Form):
    roles = forms.MultipleChoiceField(
        choices=_role_choices(Role), widget=forms.CheckboxSelectMultiple, required=False
    )


class JoinForm(forms.Form):
    """The invited person's username and password (checked by the site's password
    validators in ``invitation_accept``)."""

    username = UsernameField(
        max_length=150,
        help_text="How the platform names you to your colleagues. Letters, digits and "
        "@/./+/-/_ only.",
    )
    password1 = forms.CharField(
        label="Password",
        strip=False,
        widget=forms.PasswordInput(attrs={"autocomplete": "new-password"}),
    )
    password2 = forms.CharField(
        label="Password again",
        strip=False,
        widget=forms.PasswordInput(attrs={"autocomplete": "new-password"}),
    )

    def clean(self):
        data = super().clean()
        if data.get("password1") and data.get("password1") != data.get("password2"):
            self.add_error("password2", "The two passwords differ.")
        return data


class QueuedPasswordResetForm(PasswordResetForm):
    """Django's password reset form whose mail is recorded and sent by a worker."""

    def send_mail(
        self,
        subject_template_name,
        email_template_name,
        context,
        from_email,
        to_email,
        html_email_template_name=None,
    ):
        subject = "".join(loader.render_to_string(subject_template_name, context).splitlines())
        body = loader.render_to_string(email_template_name, context)
        mail_queue(
            to=to_email,
            subject=subject,
            body=body,
            kind=MailAttempt.Kind.PASSWORD_RESET,
            user=context.get("user"),
        )
