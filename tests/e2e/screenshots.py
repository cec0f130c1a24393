"""Make the README's screenshots of the session page with the headless Chromium.

    python -m tests.e2e.screenshots [--out docs]

Writes ``session-web.png`` (a wide light window: hand-written digits shown as
images, after a few answers), ``session-clusters.png`` (that page's cluster
strips, the largest marked pure), ``session-cluster-view.png`` (the largest cluster's members, least typical
first), ``session-review.png`` (the answer list, one answer withdrawn and one changed), ``session-narrow.png`` (a phone-width window,
iris as a table) and ``session-conflict.png`` (two answers that disagree).
"""

import argparse
import json
import tempfile
from pathlib import Path

import numpy as np
import pandas as pd

import linkwise as lw
from tests.e2e.helpers import CHROMIUM, CHROMIUM_ARGS, Server, iris_csv


def digits_csv(folder):
    """digits389 as a person's folder: one PNG per digit, pixel columns as features."""
    import matplotlib.pyplot as plt

    X, y = lw.datasets.load("digits389")
    (Path(folder) / "img").mkdir()
    for k, pixels in enumerate(X):
        big = np.kron(pixels.reshape(8, 8), np.ones((24, 24)))
        plt.imsave(Path(folder) / "img" / f"{k}.png", big, cmap="gray_r", vmin=0, vmax=16)
    frame = pd.DataFrame(X.astype(int), columns=[f"px{r}{c}" for r in range(8) for c in range(8)])
    frame.insert(0, "scan", [f"scan-{k:04d}" for k in range(len(y))])
    frame.insert(1, "image", [f"img/{k}.png" for k in range(len(y))])
    frame.insert(2, "writer", [f"writer {k % 30 + 1}" for k in range(len(y))])
    path = Path(folder) / "digits.csv"
    frame.to_csv(path, index=False)
    return path, y


def answer(page, y, n, prefix):
    for _ in range(n):
        a, b = (int(t.removeprefix(prefix)) for t in page.locator("#pair .item-id").all_text_contents())
        old = page.get_attribute("body", "data-position")
        page.keyboard.press("s" if y[a] == y[b] else "d")
        page.wait_for_selector(f'body:not([data-position="{old}"])', state="attached")


def main():
    from playwright.sync_api import sync_playwright

    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", default="docs", type=Path)
    out = parser.parse_args().out
    out.mkdir(exist_ok=True)
    with tempfile.TemporaryDirectory() as folder, sync_playwright() as p:
        folder = Path(folder)
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)

        digits, y = digits_csv(folder)
        server = Server(digits, "--id-column", "scan", "--image-column", "image", "--session", folder / "d.db",
                        "--param", "random_state=3")
        try:
            page = browser.new_page(viewport={"width": 1280, "height": 820})
            page.goto(server.url)
            page.wait_for_selector("body[data-position]", state="attached")
            answer(page, y, 12, "scan-")
            page.wait_for_timeout(300)
            page.screenshot(path=out / "session-web.png")
            page.wait_for_selector("body[data-clusters]", state="attached")
            old = page.get_attribute("body", "data-clusters")
            page.locator(".strip button.mark-pure").first.click()  # the largest cluster: confirmed once shown
            page.click("#named button.confirm-mark")
            page.wait_for_selector(f'body:not([data-clusters="{old}"])', state="attached")
            page.wait_for_load_state("networkidle")  # the images
            page.locator(".clusters").screenshot(path=out / "session-clusters.png")
            page.locator(".strip button.view-atypical").first.click()
            page.wait_for_selector('#members[data-page="0"]')
            page.wait_for_load_state("networkidle")
            page.locator("#members").screenshot(path=out / "session-cluster-view.png")
            # the answer list, one answer changed (the list follows the file's revision)
            rows = page.locator("#review-list tr")
            rows.nth(rows.count() - 3).locator("button.withdraw").click()
            page.wait_for_selector('#message:has-text("Withdrawn")')
            page.locator("#review-list tr").nth(2).locator("button.change-unknown").click()
            page.wait_for_selector('#message:has-text("Changed")')
            page.wait_for_timeout(300)
            page.locator("#review").screenshot(path=out / "session-review.png")
        finally:
            server.stop()

        iris, y = iris_csv(folder)
        server = Server(iris, "--id-column", "name", "--session", folder / "i.db", "--param", "random_state=0")
        try:
            page = browser.new_page(viewport={"width": 400, "height": 860}, device_scale_factor=2)
            page.goto(server.url)
            page.wait_for_selector("body[data-position]", state="attached")
            answer(page, y, 8, "flower-")
            page.screenshot(path=out / "session-narrow.png", full_page=True)
        finally:
            server.stop()

        script = json.dumps([[7, 10], [10, 28], [7, 28, "recheck"]])
        server = Server(iris, "--id-column", "name", "--session", folder / "c.db",
                        "--method", "tests.e2e.helpers:Scripted", "--param", f"script={script}")
        try:
            page = browser.new_page(viewport={"width": 1280, "height": 820})
            page.goto(server.url)
            page.wait_for_selector("body[data-position]", state="attached")
            for key in "ssd":
                old = page.get_attribute("body", "data-position")
                page.keyboard.press(key)
                page.wait_for_selector(f'body:not([data-position="{old}"])', state="attached")
            page.screenshot(path=out / "session-conflict.png")
        finally:
            server.stop()
        browser.close()
    for name in ("session-web.png", "session-clusters.png", "session-cluster-view.png", "session-review.png",
                 "session-narrow.png",
                 "session-conflict.png"):
        print(out / name)


if __name__ == "__main__":
    main()
