from .roles import user_roles


def roles(request):
    held = user_roles(request.user) if hasattr(request, "user") else frozenset()
    return {"user_roles": sorted(held, key=lambda r: list(type(r)).index(r)) if held else []}
