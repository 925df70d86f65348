"""The page's language in headless Chromium against ``manage.py serve``: the switch
in the header (Eesti / English) changes the language, the choice is remembered
across reloads (the language cookie), the client's catalogue is loaded before
its modules, and an unknown path is the client's own 404 page in both languages.
Screenshots: artifacts/web-language-et.png, artifacts/web-404-et.png."""

from __future__ import annotations

from typing import Any

from tests.integration.serve import Serve
from tests.web.conftest import base_url, check_requests_against_contract, save_shot, until


def _lang(driver: Any) -> str:
    return str(driver.execute_script("return document.documentElement.lang"))


def _switch(driver: Any, language: str) -> None:
    from selenium.webdriver.common.by import By

    before = driver.find_element(By.TAG_NAME, "html")
    driver.find_element(By.CSS_SELECTOR, f'[data-testid="language-{language}"]').click()
    until(driver, "the page to load again", lambda d: _stale(before) and _lang(d) == language)


def _stale(element: Any) -> bool:
    from selenium.common.exceptions import StaleElementReferenceException

    try:
        element.tag_name  # noqa: B018 - reading it tells whether the page was replaced
    except StaleElementReferenceException:
        return True
    return False


def test_the_switch_changes_the_language_and_a_reload_keeps_it(embedded: Serve, browser: Any) -> None:
    from selenium.webdriver.common.by import By

    browser.get(base_url(embedded) + "/login/")
    until(browser, "the page", lambda d: _lang(d) == "en")
    assert browser.execute_script("return window.django.gettext('Open')") == "Open"
    assert browser.find_element(By.CSS_SELECTOR, ".brand").text == "Chicken Foot"
    english = browser.find_element(By.CSS_SELECTOR, '[data-testid="language-en"]')
    assert english.get_attribute("aria-pressed") == "true"
    # Each language is named as its readers write it, in either language.
    names = [b.text for b in browser.find_elements(By.CSS_SELECTOR, ".language-option")]
    assert names == ["English", "Eesti"]

    _switch(browser, "et")
    assert browser.current_url == base_url(embedded) + "/login/"  # the same page, drawn again
    assert browser.find_element(By.CSS_SELECTOR, ".brand").text == "Kanajalg"
    assert browser.title.endswith("Kanajalg")  # js/ui.js's setTitle, through the catalogue
    assert browser.execute_script("return window.django.gettext('Open')") == "Avatud"
    assert browser.get_cookie("language")["value"] == "et"
    assert [b.text for b in browser.find_elements(By.CSS_SELECTOR, ".language-option")] == ["English", "Eesti"]
    save_shot(browser, "language-et")

    browser.refresh()
    until(browser, "the page again", lambda d: d.find_element(By.CSS_SELECTOR, ".brand").text == "Kanajalg")
    assert _lang(browser) == "et"
    assert browser.find_element(By.CSS_SELECTOR, '[data-testid="language-et"]').get_attribute("aria-pressed") == "true"

    _switch(browser, "en")
    assert browser.find_element(By.CSS_SELECTOR, ".brand").text == "Chicken Foot"
    check_requests_against_contract(browser)


def test_an_unknown_path_is_the_clients_404_page_in_both_languages(embedded: Serve, browser: Any) -> None:
    from selenium.webdriver.common.by import By

    browser.get(base_url(embedded) + "/no/such/page/")
    page = until(browser, "the 404 page", lambda d: d.find_element(By.CSS_SELECTOR, '[data-testid="error-page"]'))
    assert page.get_attribute("data-status") == "404"
    assert _lang(browser) == "en" and browser.find_element(By.TAG_NAME, "h1").text == "Page not found"
    assert "Traceback" not in browser.page_source and "Django" not in browser.page_source

    _switch(browser, "et")
    assert browser.current_url == base_url(embedded) + "/no/such/page/"
    assert browser.find_element(By.TAG_NAME, "h1").text == "Lehte ei leitud"
    assert browser.find_element(By.CSS_SELECTOR, '[data-testid="error-home"]').text == "Tagasi fuajeesse"
    save_shot(browser, "404-et")
    check_requests_against_contract(browser)


def test_on_a_phone_the_switch_offers_the_other_language_and_the_page_fits(embedded: Serve, make_browser: Any) -> None:
    from selenium.webdriver.common.by import By

    phone = make_browser(360, 740)
    phone.get(base_url(embedded) + "/login/")
    until(phone, "the page", lambda d: _lang(d) == "en")
    shown = [b.text for b in phone.find_elements(By.CSS_SELECTOR, ".language-option") if b.is_displayed()]
    assert shown == ["Eesti"]
    _switch(phone, "et")
    shown = [b.text for b in phone.find_elements(By.CSS_SELECTOR, ".language-option") if b.is_displayed()]
    assert shown == ["English"]
    assert phone.execute_script("return document.documentElement.scrollWidth") <= 360  # no sideways scrolling
