"""The API docs pages (Swagger UI at /api/docs/, Redoc at /api/redoc/) in headless
Chromium under the site's Content-Security-Policy: each draws the contract's
operations, loads nothing from another host, and its console shows no violation
(the ``make_browser`` fixture checks the console after every web test)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from tests.integration.serve import Serve
from tests.web.conftest import base_url, browser_requests, until

DOCS_SECONDS = 120


def test_the_api_docs_pages_draw_the_contract_with_nothing_inline_or_foreign(
    embedded: Serve, make_browser: Callable[..., Any]
) -> None:
    driver = make_browser()
    # Redoc lays out the whole contract in the page's one thread: on a loaded machine the
    # renderer can be busy for longer than the usual 30 s page-load deadline.
    driver.set_page_load_timeout(DOCS_SECONDS)
    base = base_url(embedded)

    driver.get(f"{base}/api/docs/")
    # Swagger UI: one block per operation, drawn by its scripts (no inline one)
    until(driver, "Swagger UI's operations", lambda d: d.find_elements("css selector", ".opblock-summary"))
    assert "tokens_create" in driver.page_source or "/api/v1/tokens/" in driver.page_source

    driver.get(f"{base}/api/redoc/")
    # Redoc: its menu lists the operations (its styles work: the menu is laid out)
    until(
        driver,
        "Redoc's menu",
        lambda d: d.find_elements("css selector", "[role=menuitem], li[data-item-id]"),
        seconds=DOCS_SECONDS,
    )
    until(driver, "Redoc's operation headings", lambda d: d.find_elements("css selector", "h2"), seconds=DOCS_SECONDS)

    foreign = [
        sent["url"]
        for sent in browser_requests(driver)
        if sent["url"].startswith(("http:", "https:")) and not sent["url"].startswith(base)
    ]
    assert foreign == []
