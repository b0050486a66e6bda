"""Page actions shared by the browser tests."""


def submit(page, button):
    """Click a button that posts a whole page and wait for the answer to load.

    `page.wait_for_load_state()` after a click can return at once, before the post
    has left (the old page is still loaded); the next locator then finds an element
    of the old page, which the navigation detaches. Waiting for the navigation the
    click starts has no such gap."""
    with page.expect_navigation():
        button.click()


def in_viewport(page, locator):
    """True when some part of the element is inside the visible window (no scrolling):
    what a person sees on the screen without moving. Not a pixel assertion, geometry."""
    box = locator.bounding_box()
    if box is None:
        return False
    view = page.viewport_size
    return (
        box["width"] > 0
        and box["height"] > 0
        and box["x"] < view["width"]
        and box["y"] < view["height"]
        and box["x"] + box["width"] > 0
        and box["y"] + box["height"] > 0
    )


def keep_screenshot(page, name):
    """Write the visible window to test-output/screenshots/NAME.png, for people to look at
    (the tests never compare pixels)."""
    from tests.conftest import TEST_OUTPUT

    folder = TEST_OUTPUT / "screenshots"
    folder.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(folder / f"{name}.png"))
