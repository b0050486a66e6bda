"""What the evaluation endpoints' writes share: the request's fields for a page's form."""

from rest_framework.exceptions import ParseError


def form_fields(request, form_class) -> dict:
    """The request's fields for ``form_class``, with the page's initial values for those
    a script leaves out (as the page's form sends them); a list of question ids is
    accepted as well as the page's text."""
    if not isinstance(request.data, dict):
        raise ParseError("Send the fields as a JSON object or a form.")
    data = {}
    for name, field in form_class.base_fields.items():
        if field.initial is not None and not isinstance(field.initial, list | tuple):
            data[name] = field.initial
    for name in request.data:
        if name in request.FILES:
            continue
        value = request.data.get(name)
        if name == "question_ids" and isinstance(value, list):
            value = "\n".join(str(v) for v in value)
        data[name] = value
    return data
