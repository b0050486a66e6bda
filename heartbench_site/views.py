from django.contrib.auth.decorators import login_required
from django.shortcuts import render

from .roles import user_roles


@login_required
def home(request):
    return render(request, "home.html", {"roles": user_roles(request.user)})
