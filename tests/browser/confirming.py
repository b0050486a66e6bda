"""Page actions around the confirmation dialog of final actions (templates/base.html
<dialog id="hb-confirm">, opened by static/app/heartbench.js)."""


def open_confirmation(page, button):
    """Press a final action's button: the confirmation opens, nothing is sent yet.
    Returns the dialog's message."""
    button.click()
    message = page.get_by_test_id("confirm-message")
    message.wait_for()
    return message.inner_text()


def submit_and_confirm(page, button):
    """Press a final action's button, then confirm it, and wait for the answer to load."""
    open_confirmation(page, button)
    with page.expect_navigation():
        page.get_by_test_id("confirm-yes").click()
