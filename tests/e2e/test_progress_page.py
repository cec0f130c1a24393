"""Progress and when to stop on the session page (issue 28), in a real headless Chromium: "N of M answered",
raising the budget, the end message agreeing with the header, and why a check question is asked."""

import re
from pathlib import Path

import pytest

import linkwise as lw
from tests.e2e.helpers import CHROMIUM, CHROMIUM_ARGS, answer_from, truth_answer

pytestmark = pytest.mark.browser

if not Path(CHROMIUM).exists():
    pytest.skip(f"Debian's chromium is not installed at {CHROMIUM} ('make test' installs it with apt)",
                allow_module_level=True)
sync_api = pytest.importorskip("playwright.sync_api", reason="the playwright package (dev extra) is not installed")


@pytest.fixture
def page():
    with sync_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield browser.new_page(viewport={"width": 1200, "height": 800})
        browser.close()


def moved(page, old):
    page.wait_for_selector(f'body[data-position]:not([data-position="{old}"])', state="attached")


def test_a_spent_budget_is_said_alike_in_the_header_and_the_end_message_and_raised_from_the_page(live, iris_data,
                                                                                                  page):
    data, y = iris_data
    server, session = live(data, lw.COBRAS(random_state=0, max_queries=5))
    page.goto(server.url)
    page.wait_for_selector("#progress >> text=0 of 5 answered")
    for n in range(1, 6):
        old = page.get_attribute("body", "data-position")
        page.click(f"#ask button.{truth_answer(y, session.state().question.pair)}")
        moved(page, old)
        assert page.text_content("#progress") == f"{n} of 5 answered"
    # spent: the header and the end message name the same counts, and the question is gone
    page.wait_for_selector("#done", state="visible")
    header = re.fullmatch(r"(\d+) of (\d+) answered", page.text_content("#progress")).groups()
    end = re.fullmatch(r"Budget spent: (\d+) of (\d+) questions answered", page.text_content("#done-title")).groups()
    assert header == end == ("5", "5") and page.locator("#ask").is_hidden()
    assert page.text_content("#outlook") in page.text_content("#done-text")

    page.fill("#budget-value", "5")  # not a raise: the field refuses it, nothing is sent
    page.click("#budget button")
    assert page.locator("#budget-value:invalid").count() == 1
    assert page.text_content("#progress") == "5 of 5 answered" and session.budget == 5

    old = page.get_attribute("body", "data-position")
    page.fill("#budget-value", "8")
    page.click("#budget button")
    moved(page, old)
    page.wait_for_selector("#message >> text=Budget raised to 8 questions")
    assert page.text_content("#progress") == "5 of 8 answered" and page.locator("#ask").is_visible()
    assert page.locator("#done").is_hidden() and session.store.meta["params"]["max_queries"] == 8
    assert re.fullmatch(r"About 1 in \d+ answers still changes the grouping: about \d+ of the 3 left\.",
                        page.text_content("#outlook"))


def test_a_check_question_says_so_on_the_page(live, iris_data, page):
    data, y = iris_data
    server, session = live(data, lw.NoiseRobustCOBRAS(random_state=0, max_queries=40))
    page.goto(server.url)
    page.wait_for_selector("body[data-position]", state="attached")
    assert page.locator("#check").is_hidden()
    while (question := session.state().question) is not None and question.check is None:
        answer_from(session, y, 1)
    assert question is not None, "the method asked no check question"
    page.reload()
    page.wait_for_selector("#check", state="visible")
    assert page.text_content("#check") == question.check
    assert re.fullmatch(r"A check: your earlier answers imply (same group|different groups)\.", question.check)
    old = page.get_attribute("body", "data-position")
    page.click(f"#ask button.{truth_answer(y, question.pair)}")
    moved(page, old)
    assert page.locator("#check").is_hidden() == (session.state().question.check is None)
