"""A person at a browser without the browser: pages fetched and forms posted over HTTP.

``Session`` logs in through the login page and keeps the cookie jar; ``Form`` is read
from the page's HTML (every input, select and textarea with the value the page gave
it), so a step names only the fields a person would change and posts everything else
as the page rendered it, CSRF token included.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from html.parser import HTMLParser
from urllib.parse import urljoin

import requests


@dataclass
class Form:
    action: str
    method: str
    attrs: dict
    fields: list[tuple[str, str]] = field(default_factory=list)
    # name → every (value, checked) of a radio group / checkbox / select option
    choices: dict[str, list[tuple[str, bool]]] = field(default_factory=dict)
    labels: dict[str, str] = field(default_factory=dict)  # label text → field name
    buttons: list[tuple[str, str, str]] = field(default_factory=list)  # (name, value, text)

    def data(self, values: dict, button: str | None = None) -> list[tuple[str, str]]:
        """The posted pairs: the page's values, with ``values`` (by field name or label
        text) replacing them; a list value posts the name once per item."""
        named = {}
        for key, value in values.items():
            name = key if key in self.field_names() else self.labels.get(key)
            assert name is not None, f"no field {key!r} in form {self.action}: {self.labels}"
            named[name] = value
        out = [(n, v) for n, v in self.fields if n not in named]
        for name, value in named.items():
            if value is None:
                continue
            for v in value if isinstance(value, list | tuple) else [value]:
                out.append((name, str(v)))
        if button is not None:
            match = [b for b in self.buttons if button in (b[0], b[1], b[2])]
            assert match, f"no button {button!r} in form {self.action}: {self.buttons}"
            if match[0][0]:
                out.append((match[0][0], match[0][1]))
        return out

    def field_names(self) -> set[str]:
        return {n for n, _ in self.fields} | set(self.choices)


class _FormParser(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.forms: list[Form] = []
        self.current: Form | None = None
        self.textarea: tuple[str, list[str]] | None = None
        self.select: str | None = None
        self.option: tuple[str | None, bool, list[str]] | None = None
        self.select_values: list[tuple[str, bool]] = []
        self.label_for: str | None = None
        self.label_text: list[str] = []
        self.ids: dict[str, str] = {}  # element id → field name (whole page)
        self.page_labels: list[tuple[str, str]] = []  # (for id, text)
        self.button: tuple[str, str, list[str]] | None = None

    def handle_starttag(self, tag, attrs):
        a = {k: (v if v is not None else "") for k, v in attrs}
        if tag == "form":
            self.current = Form(a.get("action", ""), a.get("method", "get").lower(), a)
            self.forms.append(self.current)
            return
        if tag == "label":
            self.label_for, self.label_text = a.get("for"), []
            return
        form = self.current
        if tag in ("input", "select", "textarea") and a.get("id") and a.get("name"):
            self.ids[a["id"]] = a["name"]
        if form is None:
            return
        name = a.get("name")
        if tag == "input" and name and "disabled" not in a:
            kind = a.get("type", "text").lower()
            if kind in ("radio", "checkbox"):
                form.choices.setdefault(name, []).append((a.get("value", "on"), "checked" in a))
                if "checked" in a:
                    form.fields.append((name, a.get("value", "on")))
            elif kind == "submit":
                form.buttons.append((name, a.get("value", ""), a.get("value", "")))
            elif kind not in ("file", "button", "reset", "image"):
                form.fields.append((name, a.get("value", "")))
        elif tag == "input" and a.get("type") == "submit":
            form.buttons.append(("", a.get("value", ""), a.get("value", "")))
        elif tag == "textarea" and name:
            self.textarea = (name, [])
        elif tag == "select" and name:
            self.select, self.select_values = name, []
        elif tag == "option" and self.select:
            self.option = (a.get("value"), "selected" in a, [])
        elif tag == "button" and a.get("type", "submit") == "submit":
            self.button = (name or "", a.get("value", ""), [])

    def handle_data(self, data):
        if self.textarea is not None:
            self.textarea[1].append(data)
        if self.option is not None:
            self.option[2].append(data)
        if self.label_for is not None:
            self.label_text.append(data)
        if self.button is not None:
            self.button[2].append(data)

    def handle_endtag(self, tag):
        form = self.current
        if tag == "form":
            self.current = None
        elif tag == "label" and self.label_for is not None:
            text = " ".join("".join(self.label_text).split()).rstrip("*").strip()
            self.page_labels.append((self.label_for, text))
            self.label_for = None
        elif tag == "textarea" and self.textarea is not None and form is not None:
            form.fields.append((self.textarea[0], "".join(self.textarea[1]).lstrip("\n")))
            self.textarea = None
        elif tag == "option" and self.option is not None:
            value, selected, text = self.option
            self.select_values.append((value if value is not None else "".join(text), selected))
            self.option = None
        elif tag == "select" and self.select and form is not None:
            form.choices[self.select] = self.select_values
            chosen = [v for v, s in self.select_values if s] or [
                v for v, _ in self.select_values[:1]
            ]
            form.fields.extend((self.select, v) for v in chosen)
            self.select = None
        elif tag == "button" and self.button is not None and form is not None:
            name, value, text = self.button
            form.buttons.append((name, value, " ".join("".join(text).split())))
            self.button = None


def parse_forms(html: str) -> list[Form]:
    parser = _FormParser()
    parser.feed(html)
    for form in parser.forms:
        for for_id, text in parser.page_labels:
            name = parser.ids.get(for_id)
            if name is not None and name in form.field_names():
                form.labels.setdefault(text, name)
    return parser.forms


class Session:
    """One person's browser session against the live server."""

    def __init__(self, base_url: str, username: str, password: str | None):
        """Logged in as ``username``; with no password, a visitor not logged in yet (a
        participant arriving by an invitation link)."""
        self.base = base_url.rstrip("/")
        self.username = username
        self.http = requests.Session()
        if password is None:
            return
        page = self.get("/accounts/login/")
        form = self.form(page, action="/accounts/login/")
        response = self.submit(
            form, {"username": username, "password": password}, page_url=page.url
        )
        assert "/accounts/login/" not in response.url, f"{username} could not log in"

    def url(self, path: str) -> str:
        return path if path.startswith("http") else self.base + path

    def get(self, path: str, *, status: int = 200, **kw) -> requests.Response:
        response = self.http.get(self.url(path), timeout=60, **kw)
        assert response.status_code == status, (
            f"GET {path} as {self.username}: {response.status_code}\n{response.text[:2000]}"
        )
        return response

    def csrf(self) -> str:
        return self.http.cookies.get("csrftoken", "")

    def post(self, path: str, data=None, *, status: int | None = 200, **kw):
        headers = {"X-CSRFToken": self.csrf(), "Referer": self.url(path), **kw.pop("headers", {})}
        response = self.http.post(self.url(path), data=data, headers=headers, timeout=120, **kw)
        if status is not None:
            assert response.status_code == status, (
                f"POST {path} as {self.username}: {response.status_code}\n"
                f"{visible_errors(response.text)}\n{response.text[:3000]}"
            )
        return response

    def form(
        self, page, *, id: str | None = None, action: str | None = None, testid: str | None = None
    ) -> Form:
        html = page.text if hasattr(page, "text") else page
        forms = parse_forms(html)
        for f in forms:
            if id is not None and f.attrs.get("id") != id:
                continue
            if testid is not None and f.attrs.get("data-testid") != testid:
                continue
            if f.action.endswith("/accounts/logout/") and action != "/accounts/logout/":
                continue  # the navbar's, on every page
            if action is not None and not f.action.endswith(action) and f.action != action:
                continue
            return f
        raise AssertionError(
            f"no form id={id!r} action={action!r}; forms: "
            f"{[(f.attrs.get('id'), f.action) for f in forms]}"
        )

    def submit(
        self,
        form: Form,
        values: dict | None = None,
        *,
        page_url: str = "",
        button: str | None = None,
        files=None,
        status: int | None = 200,
    ):
        target = urljoin(page_url or self.base + "/", form.action or page_url)
        return self.post(target, form.data(values or {}, button), files=files, status=status)

    def fill(
        self,
        path: str,
        values: dict | None = None,
        *,
        id: str | None = None,
        action: str | None = None,
        testid: str | None = None,
        button: str | None = None,
        files=None,
        status: int | None = 200,
    ) -> requests.Response:
        """GET the page, find the form, post it with ``values`` changed; the answer
        after redirects."""
        page = self.get(path)
        form = self.form(page, id=id, action=action, testid=testid)
        return self.submit(
            form, values, page_url=page.url, button=button, files=files, status=status
        )


_ERRORS = re.compile(
    r'class="[^"]*(?:invalid-feedback|alert-danger|errorlist)[^"]*"[^>]*>(.*?)</', re.S
)


def visible_errors(html: str) -> str:
    return "; ".join(" ".join(m.split()) for m in _ERRORS.findall(html))
