"""``ledgerspec run --html``: no Spark log line on the terminal, every invariant in the report, and the
report rendered by a real headless browser (Debian's chromium and chromium-driver, via selenium).

The browser test saves a screenshot; with LEDGERSPEC_SCREENSHOT=PATH it also writes it to PATH (the
README's picture is made so: ``LEDGERSPEC_SCREENSHOT=tests/slow/report-screenshot.png``).
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from ledgerspec.spec.cache._catalogue import CATALOGUE

SPARK_LOG = re.compile(
    r"\b(WARN|INFO|DEBUG)\b|log4j|SLF4J|NativeCodeLoader|SparkContext|SparkUI|\[Stage \d|Using Spark's default|"
    r"Setting default log level|py4j",
)
"""What a Spark or JVM log line looks like: any of these on the terminal means the JVM's output leaked."""
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
CHROMEDRIVER = shutil.which("chromedriver")


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    """``ledgerspec run --skip-real --html r.html`` on Spark, as a user runs it (a process of its own)."""
    folder = tmp_path_factory.mktemp("run")
    report = folder / "r.html"
    command = [sys.executable, "-m", "ledgerspec.conformance.cli", "run", "--skip-real", "--html", str(report)]
    done = subprocess.run(command, capture_output=True, text=True, check=False, timeout=900, cwd=folder)
    return done, report


def test_run_exits_0_and_prints_no_spark_log_line(run):
    done, _ = run
    assert done.returncode == 0, done.stdout + done.stderr
    output = done.stdout + done.stderr
    leaked = [line for line in output.splitlines() if SPARK_LOG.search(line)]
    assert not leaked, f"Spark/JVM log lines reached the terminal: {leaked[:5]}"
    assert "the JVM's log: " in done.stdout
    log = Path(done.stdout.split("the JVM's log: ", 1)[1].split(")", 1)[0])
    assert log.is_file(), "the run names a JVM log file that does not exist"


def test_the_report_names_every_invariant_and_holds_inline_plots(run):
    _, report = run
    page = report.read_text(encoding="utf-8")
    for invariant in CATALOGUE:
        assert invariant.id in page, f"{invariant.id} is not in the report"
    assert page.count("<svg") >= 2  # the status grid of the references, the sample traces
    assert not re.search(r"""(src|href)\s*=\s*["']?(https?:)?//""", page), "the report fetches something"
    assert "url(http" not in page
    assert "<script" not in page


def chromium():
    """A headless Chromium driven by selenium (the caller quits it)."""
    # Never skipped (tox's spark env): .ci/run installs Debian's chromium and chromium-driver.
    assert CHROMIUM is not None, "no chromium on PATH: apt-get install chromium chromium-driver"
    assert CHROMEDRIVER is not None, "no chromedriver on PATH: apt-get install chromium-driver"
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = str(CHROMIUM)
    flags = ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--window-size=1100,1400")
    for flag in flags:
        options.add_argument(flag)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    return webdriver.Chrome(service=Service(str(CHROMEDRIVER)), options=options)


def rendered_plots(driver, page: Path) -> list:
    """Open ``page``; each inline SVG's drawn size and path count; no console error on the way."""
    driver.get(page.as_uri())
    sizes = driver.execute_script(
        "return Array.from(document.querySelectorAll('svg')).map(s => {"
        " const r = s.getBoundingClientRect(); return [r.width, r.height, s.querySelectorAll('path').length]; })"
    )
    assert all(width > 0 and height > 0 and paths > 0 for width, height, paths in sizes), sizes
    errors = [entry for entry in driver.get_log("browser") if entry["level"] in {"SEVERE", "ERROR"}]
    assert not errors, errors
    return sizes


def test_the_report_renders_in_headless_chromium(run, tmp_path):
    _, report = run
    driver = chromium()
    try:
        assert len(rendered_plots(driver, report)) >= 2
        shot = tmp_path / "report.png"
        driver.save_screenshot(str(shot))
        assert shot.stat().st_size > 10_000
        target = os.environ.get("LEDGERSPEC_SCREENSHOT")
        if target:
            shutil.copyfile(shot, target)
    finally:
        driver.quit()


def test_the_cursor_and_txlog_timelines_render_in_headless_chromium(tmp_path):
    """A counterexample of each lockstep system (a mutant of its reference), as ``conform --html`` writes it."""
    from ledgerspec.conformance.lockstep._engine import conform
    from ledgerspec.conformance.lockstep._views import section
    from ledgerspec.conformance.render._html import HtmlReport
    from ledgerspec.conformance.systems import SYSTEMS

    driver = chromium()
    try:
        for system, name in (
            ("txlog-writer", "pulsar-master-timer-not-rearmed"),
            ("cursor-state", "pulsar-master-reads-first-entry"),
        ):
            mutant = next(m for m in SYSTEMS[system].mutants() if m.name == name)
            report = conform(SYSTEMS[system], mutant.adapter, mutant.profile, settings_name="quick", seed=1)
            assert report.violation is not None, f"{name} survived seed 1"
            page = HtmlReport(name)
            section(page, report, name)
            path = tmp_path / f"{system}.html"
            page.write(path)
            assert len(rendered_plots(driver, path)) == 1
    finally:
        driver.quit()
