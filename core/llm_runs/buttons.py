"""The action buttons of a run's page (issue #33): cancel, resume and retry look and
ask the same on every LLM-backed stage. A view lists the buttons its run offers now;
``templates/core/llm_run_actions.html`` draws them."""

from dataclasses import dataclass

__all__ = ["RunButton", "cancel_button", "resume_button", "retry_button"]

STYLES = {"cancel": "btn-outline-danger", "resume": "btn-primary", "retry": "btn-warning"}


@dataclass(frozen=True)
class RunButton:
    """One form posting to ``url``; ``confirm`` is the question asked first (none: no
    question), ``element_id`` the button's id for the keyboard and the tests."""

    action: str
    url: str
    label: str
    confirm: str = ""
    element_id: str = ""

    @property
    def style(self) -> str:
        return STYLES[self.action]


def cancel_button(url: str, *, question: str, label: str = "Cancel run", element_id: str = ""):
    return RunButton("cancel", url, label, question, element_id or "run-cancel")


def resume_button(url: str, *, label: str = "Resume run", question: str = "", element_id: str = ""):
    return RunButton("resume", url, label, question, element_id or "run-resume")


def retry_button(url: str, *, label: str, question: str = "", element_id: str = ""):
    return RunButton("retry", url, label, question, element_id or "run-retry")
