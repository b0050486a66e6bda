"""API tokens for scripts (issue #23): one per person, shown once, revocable.

A token is DRF's ``authtoken`` (``Authorization: Token <key>``). The browser keeps its
session; scripts use the token. Two ways to get one:

- the page ``/accounts/token/`` (signed in): create, replace or revoke, the key shown
  once right after it is made, never again (the page shows only its last four characters);
- ``POST /api/auth/token/`` with a username and password, under the same login lockout as
  the login page (django-axes: the same failure limit, counted per username and address).

Creating a token replaces the previous one, which stops working at once. Tokens are
for the research team (every role that reads the corpus); baseline participants take the
study in the browser and get none.
``DELETE /api/auth/token/`` revokes the caller's own token.
"""

import re

from django.conf import settings
from django.contrib import messages
from django.contrib.auth import authenticate
from django.db import transaction
from django.shortcuts import redirect, render
from django.views.decorators.http import require_http_methods
from drf_spectacular.utils import OpenApiExample, extend_schema, inline_serializer
from rest_framework import serializers, status
from rest_framework.authtoken.models import Token
from rest_framework.permissions import AllowAny, IsAuthenticated
from rest_framework.response import Response
from rest_framework.views import APIView

from core.roles import CORPUS_READERS, has_any_role, role_required

NO_TOKEN_FOR_PARTICIPANTS = (
    "API tokens are for the research team; baseline participants take the study in the browser."
)
# Characters no username or password holds; refused before they reach the database.
CONTROL_CHARACTERS = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")


def issue_token(user) -> Token:
    """A new token for ``user``; the previous one, if any, stops working."""
    with transaction.atomic():
        Token.objects.filter(user=user).delete()
        return Token.objects.create(user=user)


def revoke_token(user) -> bool:
    return Token.objects.filter(user=user).delete()[0] > 0


@role_required(*CORPUS_READERS)
@require_http_methods(["GET", "POST"])
def token_page(request):
    shown_key = ""
    if request.method == "POST":
        action = request.POST.get("action")
        if action == "create":
            shown_key = issue_token(request.user).key
        elif action == "revoke":
            if revoke_token(request.user):
                messages.success(
                    request, "Your API token is revoked: scripts using it now get 401."
                )
            else:
                messages.info(request, "You had no API token.")
            return redirect("account-token")
        else:
            messages.error(request, "Choose Create or Revoke.")
            return redirect("account-token")
    token = Token.objects.filter(user=request.user).first()
    return render(
        request,
        "account/token.html",
        {"token": token, "shown_key": shown_key, "ending": token.key[-4:] if token else ""},
    )


class TokenApi(APIView):
    """Obtain (POST, with a password) or revoke (DELETE, with the token) an API token."""

    authentication_classes = []  # set per method in get_authenticators
    permission_classes = [AllowAny]
    throttle_classes = []

    def get_authenticators(self):
        from rest_framework.authentication import TokenAuthentication

        if self.request is not None and self.request.method == "DELETE":
            return [TokenAuthentication()]
        return []

    def get_permissions(self):
        if self.request is not None and self.request.method == "DELETE":
            return [IsAuthenticated()]
        return [AllowAny()]

    @extend_schema(
        operation_id="auth_token_obtain",
        summary="Get an API token with your username and password",
        description=(
            "Answers a new token; your previous token stops working. Wrong passwords count "
            "towards the same lockout as the login page: after the failure limit the answer "
            "is 429 until the cool-off ends or an admin lifts the lockout."
        ),
        auth=[],
        request=inline_serializer(
            "TokenRequest",
            {"username": serializers.CharField(), "password": serializers.CharField()},
        ),
        responses={
            201: inline_serializer(
                "TokenResponse",
                {"token": serializers.CharField(), "username": serializers.CharField()},
            ),
            400: inline_serializer("TokenError", {"detail": serializers.CharField()}),
            403: inline_serializer("TokenRefused", {"detail": serializers.CharField()}),
            429: inline_serializer("TokenLockedOut", {"detail": serializers.CharField()}),
        },
        examples=[
            OpenApiExample(
                "Credentials",
                value={"username": "annotator1", "password": "your password"},
                request_only=True,
            ),
            OpenApiExample(
                "A new token",
                value={
                    "token": "9944b09199c62bcf9418ad846dd0e4bbdfc6ee4b",
                    "username": "annotator1",
                },
                response_only=True,
                status_codes=["201"],
            ),
        ],
    )
    def post(self, request):
        data = request.data if hasattr(request.data, "get") else {}
        username = data.get("username")
        password = data.get("password")
        if not isinstance(username, str) or not isinstance(password, str) or not username:
            return Response(
                {"detail": "Send your username and password."},
                status=status.HTTP_400_BAD_REQUEST,
            )
        if CONTROL_CHARACTERS.search(username) or CONTROL_CHARACTERS.search(password):
            return Response(
                {"detail": "The username or password holds a control character."},
                status=status.HTTP_400_BAD_REQUEST,
            )
        django_request = request._request
        user = authenticate(django_request, username=username, password=password)
        if getattr(django_request, "axes_locked_out", False):
            # Answer in JSON here rather than letting the axes middleware render its page.
            django_request.axes_locked_out = False
            hours = settings.AXES_COOLOFF_TIME.total_seconds() / 3600
            period = f"{hours:g} hour" + ("" if hours == 1 else "s")
            return Response(
                {
                    "detail": (
                        f"Too many failed logins for {username} from this address: getting a "
                        f"token is locked for {period}, as logging in is. Ask the study's "
                        "admin to lift the lockout."
                    )
                },
                status=settings.AXES_HTTP_RESPONSE_CODE,
            )
        if user is None:
            return Response(
                {"detail": "Wrong username or password."}, status=status.HTTP_400_BAD_REQUEST
            )
        if not has_any_role(user, CORPUS_READERS):
            return Response({"detail": NO_TOKEN_FOR_PARTICIPANTS}, status=status.HTTP_403_FORBIDDEN)
        token = issue_token(user)
        return Response(
            {"token": token.key, "username": user.get_username()}, status=status.HTTP_201_CREATED
        )

    @extend_schema(
        operation_id="auth_token_revoke",
        summary="Revoke your API token",
        request=None,
        responses={204: None},
    )
    def delete(self, request):
        revoke_token(request.user)
        return Response(status=status.HTTP_204_NO_CONTENT)
