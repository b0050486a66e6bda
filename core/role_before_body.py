"""The role check of an API view before its body is read.

DRF reads the role after authentication, and session authentication runs Django's CSRF
check, which reads the POST body: on a view that parses uploads only, a signed-in person
without the role who posts JSON is answered 415 (unsupported media type) before the role
is ever checked. :class:`RoleBeforeBody` checks the view's permissions first for a
signed-in session user (the user session authentication would pick), so such a person
gets the 403 that names the missing access and nothing about what the view parses. A
person with the role goes on as before: CSRF, parsing and the view's own checks.
"""

from rest_framework import exceptions


class RoleBeforeBody:
    """Mixin for an ``APIView`` whose permissions need only the user and the method."""

    def initial(self, request, *args, **kwargs):
        django_request = request._request
        user = getattr(django_request, "user", None)
        if user is not None and user.is_active and user.is_authenticated:
            for permission in self.get_permissions():
                if not permission.has_permission(django_request, self):
                    raise exceptions.PermissionDenied(getattr(permission, "message", None))
        super().initial(request, *args, **kwargs)
