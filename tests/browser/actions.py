"""Page actions shared by the browser tests."""


def submit(page, button):
    """Click a button that posts a whole page and wait for the answer to load.

    `page.wait_for_load_state()` after a click can return at once, before the post
    has left (the old page is still loaded); the next locator then finds an element
    of the old page, which the navigation detaches. Waiting for the navigation the
    click starts has no such gap."""
    with page.expect_navigation():
        button.click()
