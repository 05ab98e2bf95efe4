"""The dashboard as a user sees it: headless Chromium on the page, and the switch's own counters to compare.

Shared by the lab test (test_vr_dashboard.py) and the campus test (test_vr_campus.py).
"""

from __future__ import annotations

import json
import time
import urllib.request
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from p4rt import CounterData, CounterEntry, Switch, TableEntry

CHROMIUM, CHROMEDRIVER = "/usr/bin/chromium", "/usr/bin/chromedriver"


def dashboard_ready(address: str, timeout: float = 20) -> dict:
    """The dashboard's JSON once every switch has been sampled."""
    deadline = time.monotonic() + timeout
    state = None
    while True:
        try:
            with urllib.request.urlopen(f"http://{address}/api/state", timeout=2) as resp:
                state = json.loads(resp.read())
                if all(s["ok"] for s in state["switches"]):
                    return state
        except OSError:
            pass
        assert time.monotonic() < deadline, f"the dashboard did not answer, or not with a sample: {state}"
        time.sleep(0.2)


def browser(size: str = "1400,1000"):
    """Debian's chromium, headless, through its chromium-driver (make setup installs both)."""
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    opts = webdriver.ChromeOptions()
    opts.binary_location = CHROMIUM
    for flag in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", f"--window-size={size}"):
        opts.add_argument(flag)
    return webdriver.Chrome(service=Service(CHROMEDRIVER), options=opts)


def close(driver, traffic: list) -> None:
    """The end of a browser test: the browser, if it started, then the traffic still running."""
    if driver is not None:
        driver.quit()
    for t in traffic:
        if t.poll() is None:
            t.kill()


def page_value(driver, row: str, field: str, attr: str = "data-value") -> str | None:
    """An attribute of a cell, read in one script (the page redraws its tables every second)."""
    return driver.execute_script("const c = document.querySelector(arguments[0]); return c && c.getAttribute(arguments[1])",
                                 f'[id="{row}"] [data-field="{field}"]', attr)


def page_number(driver, row: str, field: str) -> float:
    """A number the page shows; a missing row or cell fails with what the page lacks."""
    value = page_value(driver, row, field)
    assert value is not None, f"the page shows no {field} in row {row}"
    return float(value)


def wait_equal(what: str, page: Callable[[], str | None], switch: Callable[[], int], timeout: float = 6) -> int:
    """The page's number becomes the switch's (the page samples every second and polls every second)."""
    deadline = time.monotonic() + timeout
    while True:
        want, got = switch(), page()
        if got is not None and int(float(got)) == want:
            return want
        assert time.monotonic() < deadline, f"{what}: page shows {got}, the switch counts {want}"
        time.sleep(0.3)


class Counters:
    """The switch's counters read over P4Runtime (a read-only client beside the controller)."""

    def __init__(self, sw: Switch) -> None:
        self.sw = sw

    def counter(self, name: str, index: int) -> int:
        cells = list(self.sw.read(CounterEntry(name, index)))
        return cells[0].data.packets if cells and cells[0].data else 0

    def direct(self, table: str, wanted: Callable) -> int:
        """The direct counter of the one entry of `table` that `wanted(entry)` picks."""
        hits = [e.counter_data.packets for e in self.sw.read(TableEntry(table, counter_data=CounterData()))
                if not e.is_default and wanted(e)]
        assert len(hits) == 1, hits
        return hits[0]


@contextmanager
def switch_counters(address: str) -> Iterator[Counters]:
    with Switch(address).connect(timeout=5, stream=False) as sw:
        sw.load_schema()
        yield Counters(sw)


def full_page_screenshot(driver, path: str, width: int = 1400) -> None:
    """The whole page in one PNG: the window made as tall as the page (plus the window's own frame)."""
    frame = driver.execute_script("return window.outerHeight - window.innerHeight")
    height = driver.execute_script("return document.documentElement.scrollHeight")
    driver.set_window_size(width, height + frame)
    time.sleep(1.2)            # the next redraw, at the new size
    driver.save_screenshot(path)
