#!/usr/bin/env python3
"""The web dashboard in a real browser: headless Chromium over WebDriver.

Starts `vetro serve` on a loopback port with a fresh SQLite database and no
workers of its own, and one `vetro worker` process beside it (so the live
log learns of reports written by another process), then, as a person would: signs in with a token, imports the
example package from a zip file, creates an environment, adds the web server
through its form (an invalid port first, checked in the browser, then a
site name the server refuses, each message at the field), deploys and watches the live
log reach `ready` without the page reloading, runs the `restart` action,
deletes the environment and signs out. Every page visited is saved as a
screenshot in --screenshots, and on every one each field must have a label.
Then, with the keyboard alone, it signs in, reaches the catalog's search and
goes through the add-component wizard; and in a 390x844 window, as a phone
shows it, no page is wider than the window.

With --keystone-clouds (the clouds.yaml of a running Keystone, as
crates/vetro-openstack/tests/support/openstack-services.sh writes it), a
second service runs with `--auth keystone`: a wrong password is refused at
the sign-in form, the user signs in with user name, password and project,
imports, adds and deploys the web server, and the deployment's task carries
a Keystone trust from that user; signs out, and in again with a pasted
Keystone token.

    dashboard_browser.py --vetro target/debug/vetro --screenshots /tmp/shots \
        [--keystone-clouds clouds.yaml]
"""

import argparse
import os
import re
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import time
import zipfile

from selenium import webdriver
from selenium.common.exceptions import (NoSuchElementException, StaleElementReferenceException,
                                        TimeoutException)
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.ui import Select, WebDriverWait

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.abspath(os.path.join(HERE, "..", "..", "..", ".."))
sys.path.insert(0, os.path.join(REPO, "crates", "vetro-openstack", "tests", "support"))
PACKAGE = os.path.join(REPO, "examples", "murano", "webserver")
WAIT = 60


class Failure(Exception):
    pass


def zip_dir(src, dest):
    with zipfile.ZipFile(dest, "w", zipfile.ZIP_DEFLATED) as z:
        for root, _, files in os.walk(src):
            for f in files:
                full = os.path.join(root, f)
                z.write(full, os.path.relpath(full, src))


class Run:
    def __init__(self, a):
        self.a = a
        self.work = tempfile.mkdtemp(prefix="vetro-browser-")
        self.shots = a.screenshots
        os.makedirs(self.shots, exist_ok=True)
        self.n = 0
        self.server = None
        self.driver = None
        self.t0 = time.monotonic()

    def step(self, what):
        print(f"[{time.monotonic() - self.t0:6.1f}s] {what}", flush=True)

    def shot(self, name):
        self.n += 1
        path = os.path.join(self.shots, f"{self.n:02d}-{name}.png")
        self.driver.save_screenshot(path)
        if name not in ("timeout", "failure"):
            self.check_labels(name)

    def check_labels(self, page):
        """Every visible field has a label (a <label for>, an enclosing label or aria-label)."""
        unlabelled = self.driver.execute_script("""
            return [...document.querySelectorAll('input, select, textarea')]
              .filter(e => e.type !== 'hidden' && e.type !== 'submit')
              .filter(e => !(e.labels && e.labels.length) && !e.getAttribute('aria-label')
                           && !e.getAttribute('aria-labelledby'))
              .map(e => e.outerHTML.slice(0, 120));""")
        self.check(not unlabelled, f"fields without a label on {page}: {unlabelled}")

    def check(self, cond, what):
        if not cond:
            raise Failure(what)

    # -- the server -----------------------------------------------------

    def start_server(self):
        db = "sqlite://" + os.path.join(self.work, "vetro.db")
        tok = subprocess.run([self.a.vetro, "token", "create", "--db", db, "--project", "demo",
                              "--user", "alice", "--admin"], capture_output=True, text=True,
                             check=True, timeout=120)
        self.token = tok.stdout.strip()
        self.log = open(os.path.join(self.work, "serve.log"), "w")
        self.server = subprocess.Popen(
            [self.a.vetro, "serve", "--db", db, "--listen", "127.0.0.1:0", "--workers", "0"],
            stdout=subprocess.PIPE, stderr=self.log, text=True)
        self.worker = subprocess.Popen([self.a.vetro, "worker", "--db", db, "--concurrency", "1"],
                                       stdout=self.log, stderr=self.log, text=True)
        line = self.server.stdout.readline()
        m = re.search(r"listening on (http://\S+)", line)
        self.check(m is not None, f"vetro serve did not start: {line!r}")
        self.url = m.group(1)

    def start_keystone_server(self, ks):
        """A second service, on Keystone, with its own database and one worker in it."""
        self.stop_servers()
        self.db = os.path.join(self.work, "keystone.db")
        clouds = ks.make_service_user(self.work)
        self.server = subprocess.Popen(
            [self.a.vetro, "serve", "--db", "sqlite://" + self.db, "--listen", "127.0.0.1:0",
             "--workers", "1", "--auth", "keystone", "--keystone-cloud", "vetro-service"],
            stdout=subprocess.PIPE, stderr=self.log, text=True,
            env=dict(os.environ, OS_CLIENT_CONFIG_FILE=clouds))
        self.worker = None
        line = self.server.stdout.readline()
        m = re.search(r"listening on (http://\S+) .*Keystone at", line)
        self.check(m is not None, f"vetro serve --auth keystone did not start: {line!r}")
        self.url = m.group(1)

    def stop_servers(self):
        for p in (self.server, getattr(self, "worker", None)):
            if p and p.poll() is None:
                p.terminate()
                try:
                    p.wait(timeout=10)
                except subprocess.TimeoutExpired:
                    p.kill()
                    p.wait()

    def stop(self):
        if self.driver:
            self.driver.quit()
        self.stop_servers()
        # The browser profile and database: nothing is left behind.
        shutil.rmtree(self.work, ignore_errors=True)

    # -- the browser ----------------------------------------------------

    def start_browser(self):
        o = webdriver.ChromeOptions()
        o.binary_location = self.a.chromium
        for flag in ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
                     "--no-first-run", "--disable-background-networking",
                     "--disable-component-update", "--disable-sync",
                     "--user-data-dir=" + os.path.join(self.work, "profile"),
                     f"--window-size={self.a.width},900"]:
            o.add_argument(flag)
        o.set_capability("goog:loggingPrefs", {"browser": "ALL"})
        self.driver = webdriver.Chrome(service=Service(self.a.chromedriver), options=o)
        self.driver.set_page_load_timeout(WAIT)

    def go(self, path):
        self.driver.get(self.url + path)

    def find(self, css):
        return self.driver.find_element(By.CSS_SELECTOR, css)

    def wait(self, cond, what, timeout=WAIT):
        def poll(_):
            try:
                return cond()
            except (StaleElementReferenceException, NoSuchElementException):
                return False  # the page is being replaced: look again
        try:
            return WebDriverWait(self.driver, timeout).until(poll)
        except TimeoutException:
            self.shot("timeout")
            raise Failure(f"timed out waiting for {what}")

    def path(self):
        return re.sub(r"^https?://[^/]+", "", self.driver.current_url)

    def submit(self, form_css):
        self.find(form_css + " button[type=submit]").click()

    def flash(self):
        els = self.driver.find_elements(By.CSS_SELECTOR, "p.flash")
        return els[0].text if els else ""

    # -- the scenario ---------------------------------------------------

    def sign_in(self):
        self.step("sign in")
        self.go("/")
        self.wait(lambda: self.path() == "/signin", "the sign-in page")
        self.shot("signin")
        self.find("#token").send_keys("not-a-token")
        self.submit("form[action='/signin']")
        self.wait(lambda: "not valid" in self.flash(), "the wrong token to be refused")
        self.find("#token").send_keys(self.token)
        self.submit("form[action='/signin']")
        self.wait(lambda: self.path() == "/environments", "the environments page")
        cookies = {c["name"]: c for c in self.driver.get_cookies()}
        s = cookies.get("vetro_session")
        self.check(s is not None and s.get("httpOnly") and s.get("sameSite") == "Strict",
                   f"the session cookie is HttpOnly and SameSite=Strict: {s}")
        self.check(self.token not in self.driver.current_url, "the token is not in the URL")
        self.shot("environments-empty")

    def import_package(self):
        self.step("import the example package")
        archive = os.path.join(self.work, "webserver.zip")
        zip_dir(PACKAGE, archive)
        self.go("/catalog")
        self.find("#package").send_keys(archive)
        self.submit("form[action='/catalog/import']")
        self.wait(lambda: "Imported" in self.flash(), "the import to succeed")
        self.shot("package")
        self.go("/catalog")
        self.check("Example web server" in self.find("ul.cards").text, "the catalog shows the package")
        self.shot("catalog")

    def create_environment(self):
        self.step("create an environment")
        self.go("/environments")
        self.find("#env-name").send_keys("web-demo")
        self.submit("form[action='/environments']")
        self.wait(lambda: re.fullmatch(r"/environments/[0-9a-f]{32}", self.path()), "the environment page")
        self.env_path = self.path()
        self.shot("environment-new")

    def set_field(self, css, value):
        el = self.find(css)
        el.clear()
        el.send_keys(value)

    def add_web_server(self):
        self.step("add the web server through its form")
        self.driver.find_element(By.LINK_TEXT, "Add a component").click()
        self.wait(lambda: self.path().endswith("/add"), "the list of applications")
        self.shot("choose-application")
        self.driver.find_element(By.LINK_TEXT, "Example web server").click()
        self.wait(lambda: self.driver.find_elements(By.ID, "f-port"), "the first form")
        # A value the browser refuses: the message appears at the field, nothing is sent.
        before = self.path()
        self.set_field("#f-port", "70000")
        self.submit("main form[data-checked]")
        self.wait(lambda: self.find("#f-port-error").is_displayed(), "the browser's message at the port field")
        self.check(self.path() == before, "an out-of-range port is not submitted")
        self.shot("form-browser-check")
        # A value only the server refuses (the site name's regular expression).
        self.set_field("#f-port", "8080")
        self.set_field("#f-siteName", "My Site")
        self.submit("main form[data-checked]")
        self.wait(lambda: "Lower-case" in self.find("#f-siteName-error").text,
                  "the server's message at the site name field")
        self.check(self.find("#f-siteName").get_attribute("aria-invalid") == "true",
                   "the field is marked invalid")
        self.shot("form-server-check")
        self.set_field("#f-siteName", "hello")
        self.submit("main form[data-checked]")
        self.wait(lambda: self.driver.find_elements(By.ID, "f-flavor"), "the instance form")
        Select(self.find("#f-flavor")).select_by_visible_text("m1.small")
        image = Select(self.find("#f-osImage"))
        ubuntu = [o.text for o in image.options if "Ubuntu" in o.text]
        self.check(ubuntu, "the image list comes from the cloud")
        image.select_by_visible_text(ubuntu[0])
        self.shot("form-instance")
        self.submit("main form[data-checked]")
        self.wait(lambda: self.driver.find_elements(By.ID, "f-application_name"), "the application name form")
        self.shot("form-name")
        self.submit("main form[data-checked]")
        self.wait(lambda: "Added" in self.flash(), "the component to be added")
        self.check("WebServer" in self.find("section[aria-labelledby=components-title]").text,
                   "the component is listed")
        self.shot("environment-draft")

    def deploy(self):
        self.step("deploy and watch the live log")
        self.submit(f"form[action='{self.env_path}/deploy']")
        self.wait(lambda: "Deployment started" in self.flash(), "the deployment to start")
        self.driver.execute_script("window.vetroMarker = 42")
        self.shot("environment-deploying")
        t = time.monotonic()
        self.wait(lambda: self.find("[data-live-status]").text == "ready", "the live status to reach ready",
                  timeout=300)
        self.step(f"  ready after {time.monotonic() - t:.1f}s")
        self.check(self.driver.execute_script("return window.vetroMarker") == 42,
                   "the page was not reloaded while the log came in")
        lines = self.driver.find_elements(By.CSS_SELECTOR, "ol.log li")
        self.check(len(lines) >= 3, f"the live log shows the reports ({len(lines)} lines)")
        self.shot("environment-deployed")

    def run_action(self):
        self.step("run an action")
        self.go(self.env_path)
        self.driver.find_element(By.PARTIAL_LINK_TEXT, "restart").click()
        self.wait(lambda: "takes no parameters" in self.find("main form[data-checked]").text,
                  "the action's form (restart has no parameters)")
        self.shot("action-form")
        self.submit("main form[data-checked]")
        self.wait(lambda: "/deployments/" in self.path(), "the action's page")
        self.wait(lambda: self.find("[data-live-done]").is_displayed(), "the action to finish", timeout=300)
        self.check("restarting" in self.find("ol.log").text, "the action's report is in the log")
        self.shot("action-done")

    def run_typed_action(self):
        self.step("run an action with typed arguments")
        self.go(self.env_path)
        self.driver.find_element(By.PARTIAL_LINK_TEXT, "reconfigure").click()
        self.wait(lambda: self.driver.find_elements(By.ID, "f-port"), "the reconfigure form")
        port, restart = self.find("#f-port"), self.find("#f-restart")
        self.check(port.get_attribute("type") == "number" and port.get_attribute("max") == "65535"
                   and port.get_attribute("required") is not None,
                   "the port is a required number box bounded by its contract")
        self.check(restart.get_attribute("type") == "checkbox" and restart.is_selected(),
                   "restart is a check box, ticked by its default")
        self.check(self.find("#f-siteName").get_attribute("required") is not None,
                   "the site name is required (notNull)")
        before = self.path()
        self.set_field("#f-siteName", "renamed")
        self.set_field("#f-port", "70000")
        self.submit("main form[data-checked]")
        self.wait(lambda: self.find("#f-port-error").is_displayed(), "the message at the port")
        self.check(self.path() == before, "an out-of-range port is not submitted")
        self.shot("action-typed-check")
        self.set_field("#f-port", "8081")
        restart.click()
        self.submit("main form[data-checked]")
        self.wait(lambda: "/deployments/" in self.path(), "the action's page")
        self.wait(lambda: self.find("[data-live-done]").is_displayed(), "the action to finish",
                  timeout=300)
        self.check("serving renamed on port 8081" in self.find("ol.log").text,
                   "the action ran with the typed arguments")
        self.shot("action-typed-done")

    def delete_environment(self):
        self.step("delete the environment")
        self.go(self.env_path)
        self.submit(f"form[action='{self.env_path}/delete']")
        WebDriverWait(self.driver, 10).until(lambda d: d.switch_to.alert).accept()
        self.wait(lambda: "Deletion started" in self.flash(), "the deletion to start")
        self.wait(lambda: self.find("[data-live-status]").text == "deleted", "the deletion to finish",
                  timeout=300)
        self.shot("environment-deleted")
        self.go("/environments")
        self.check("web-demo" not in self.find("main").text, "the environment is gone")
        self.shot("environments-after")
        self.find("form.signout button").click()
        self.wait(lambda: self.path() == "/signin", "sign out")
        self.go("/environments")
        self.wait(lambda: self.path() == "/signin", "pages to need a session again")

    # -- Keystone ---------------------------------------------------------

    def keystone(self, ks):
        self.step("Keystone: sign in with user name, password and project")
        self.driver.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})
        self.start_keystone_server(ks)
        self.go("/signin")
        self.wait(lambda: self.driver.find_elements(By.ID, "project"), "the password form")
        self.shot("keystone-signin")
        user = ks.user_auth
        self.find("#username").send_keys(user["username"])
        self.find("#password").send_keys("wrong-" + user["password"])
        self.find("#project").send_keys(user["project_name"])
        self.submit("form[action='/signin']:has(#password)")
        self.wait(lambda: "not right" in self.flash(), "the wrong password to be refused")
        self.shot("keystone-signin-refused")
        self.find("#username").send_keys(user["username"])
        self.find("#password").send_keys(user["password"])
        self.find("#project").send_keys(user["project_name"])
        self.submit("form[action='/signin']:has(#password)")
        self.wait(lambda: self.path() == "/environments", "the environments page")
        s = {c["name"]: c for c in self.driver.get_cookies()}.get("vetro_session")
        self.check(s is not None and s.get("httpOnly") and s.get("sameSite") == "Strict"
                   and s.get("expiry", 0) <= time.time() + 3600 + 60,
                   f"the session cookie: HttpOnly, SameSite=Strict, no longer than the token: {s}")
        self.check(user["password"] not in self.driver.current_url, "no secret in the URL")
        who = self.find("span.who").text
        self.check(who.startswith(f"{user['username']} · {user['project_name']}"),
                   f"the header names the Keystone user and project: {who!r}")
        self.import_package()
        self.create_environment()
        self.add_web_server()
        self.deploy()
        with sqlite3.connect(self.db) as c:
            trusts = [r[0] for r in c.execute("SELECT trust_id FROM tasks")]
        self.check(len(trusts) == 1 and trusts[0], f"the deployment carries a trust: {trusts}")
        # The deployment has ended, so its worker deletes the trust (its
        # fields are checked against Keystone by the service's live tests).
        deadline = time.time() + 10
        while time.time() < deadline and ks.trust(trusts[0]) is not None:
            time.sleep(0.2)
        self.check(ks.trust(trusts[0]) is None,
                   f"the deployment's trust is gone from Keystone once it ended: {trusts[0]}")
        self.find("form.signout button").click()
        self.wait(lambda: self.path() == "/signin", "sign out")
        self.step("Keystone: sign in with a pasted Keystone token")
        token, _ = ks.user_token()
        self.find("#token").send_keys(token)
        self.submit("form[action='/signin']:has(#token)")
        self.wait(lambda: self.path() == "/environments", "the environments page")
        self.check("web-demo" in self.find("main").text, "the same project's environment")
        self.check(token not in self.driver.current_url, "the token is not in the URL")
        self.find("form.signout button").click()
        self.wait(lambda: self.path() == "/signin", "sign out")

    # -- the keyboard alone ---------------------------------------------

    def focused(self):
        return self.driver.switch_to.active_element

    def tab_to(self, pred, what, limit=60):
        """Presses Tab until the focused element satisfies `pred`."""
        for _ in range(limit):
            ActionChains(self.driver).send_keys(Keys.TAB).perform()
            el = self.focused()
            if pred(el):
                outline = el.value_of_css_property("outline-style")
                self.check(outline not in ("none", ""), f"{what} shows where the focus is ({outline})")
                return el
        raise Failure(f"Tab never reached {what}")

    def keys(self, *keys):
        ActionChains(self.driver).send_keys(*keys).perform()

    def by_id(self, id_):
        return lambda el: el.get_attribute("id") == id_

    def keyboard(self):
        self.step("the keyboard alone: sign in, catalog, the add-component wizard")
        self.go("/signin")
        self.tab_to(self.by_id("token"), "the token field")
        self.keys(self.token, Keys.ENTER)
        self.wait(lambda: self.path() == "/environments", "signing in with Enter")
        self.tab_to(lambda el: el.text == "Skip to content", "the skip link")
        self.tab_to(lambda el: el.text == "Catalog" and el.tag_name == "a", "the catalog link")
        self.keys(Keys.ENTER)
        self.wait(lambda: self.path() == "/catalog", "the catalog by keyboard")
        self.tab_to(self.by_id("q"), "the catalog search")
        self.keys("web", Keys.ENTER)
        self.wait(lambda: "q=web" in self.driver.current_url, "searching by keyboard")
        self.tab_to(lambda el: el.text == "Example web server", "the package's card")
        self.shot("keyboard-catalog")
        # The wizard: each step's fields reached and filled in order, Enter submits.
        self.go("/environments")
        self.tab_to(self.by_id("env-name"), "the new environment's name")
        self.keys("keys-only", Keys.ENTER)
        self.wait(lambda: re.fullmatch(r"/environments/[0-9a-f]{32}", self.path()), "the environment")
        env = self.path()
        self.tab_to(lambda el: el.text == "Add a component", "Add a component")
        self.keys(Keys.ENTER)
        self.wait(lambda: self.path().endswith("/add"), "the list of applications")
        self.tab_to(lambda el: el.text == "Example web server", "the application")
        self.keys(Keys.ENTER)
        self.wait(lambda: self.driver.find_elements(By.ID, "f-siteName"), "the first step")
        self.tab_to(self.by_id("f-siteName"), "the site name")
        ActionChains(self.driver).key_down(Keys.CONTROL).send_keys("a").key_up(Keys.CONTROL).perform()
        self.keys(Keys.BACKSPACE, "keyboard")
        self.tab_to(self.by_id("f-port"), "the port")
        self.keys(Keys.ENTER)
        self.wait(lambda: self.driver.find_elements(By.ID, "f-flavor"), "the instance step")
        self.tab_to(self.by_id("f-flavor"), "the flavor")
        self.keys("m1.small")
        self.tab_to(self.by_id("f-osImage"), "the image")
        self.keys("Ubuntu")
        self.shot("keyboard-wizard")
        self.tab_to(lambda el: el.text == "Next", "Next")
        self.keys(Keys.ENTER)
        self.wait(lambda: self.driver.find_elements(By.ID, "f-application_name"), "the last step")
        self.tab_to(lambda el: el.text == "Add to the environment", "the last button")
        self.keys(Keys.ENTER)
        self.wait(lambda: "Added" in self.flash(), "the component added by keyboard")
        self.check(self.path() == env, "back on the environment")

    # -- a phone's width --------------------------------------------------

    def narrow(self):
        self.step("390x844: no page is wider than the window")
        self.driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {
            "width": 390, "height": 844, "deviceScaleFactor": 1, "mobile": True})
        pages = ["/environments", "/catalog", "/catalog?q=web", "/templates", "/policy", "/categories"]
        self.go("/environments")
        envs = [a.get_attribute("href") for a in self.driver.find_elements(By.CSS_SELECTOR, "main a")
                if re.search(r"/environments/[0-9a-f]{32}$", a.get_attribute("href") or "")]
        pages += [re.sub(r"^https?://[^/]+", "", h) for h in envs[:1]]
        self.go("/catalog")
        pkg = self.driver.find_element(By.LINK_TEXT, "Example web server").get_attribute("href")
        pages.append(re.sub(r"^https?://[^/]+", "", pkg))
        for page in pages:
            self.go(page)
            wide = self.driver.execute_script("""
                const w = document.documentElement.clientWidth;
                return [document.documentElement.scrollWidth, w,
                        [...document.querySelectorAll('main *')]
                          .filter(e => e.getBoundingClientRect().right > w + 1
                                       && !e.closest('.table-wrap, pre, ol.log'))
                          .slice(0, 3).map(e => e.outerHTML.slice(0, 100))];""")
            self.shot("narrow" + re.sub(r"[^a-z]+", "-", page.split("?")[0]))
            self.check(wide[0] <= wide[1] and not wide[2], f"{page} overflows 390 px: {wide}")

    def run(self):
        self.start_server()
        self.start_browser()
        self.sign_in()
        self.import_package()
        self.create_environment()
        self.add_web_server()
        self.deploy()
        self.run_action()
        self.run_typed_action()
        self.delete_environment()
        self.keyboard()
        self.narrow()
        if self.a.keystone_clouds:
            from keystone_fixture import KeystoneFixture
            ks = KeystoneFixture(self.a.keystone_clouds)
            try:
                self.keystone(ks)
            finally:
                ks.clean_up()


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--vetro", required=True)
    ap.add_argument("--chromium", default="/usr/bin/chromium")
    ap.add_argument("--chromedriver", default="/usr/bin/chromedriver")
    ap.add_argument("--screenshots", required=True)
    ap.add_argument("--width", type=int, default=1280)
    ap.add_argument("--keystone-clouds", help="clouds.yaml of a running Keystone: also sign in with it")
    a = ap.parse_args()
    r = Run(a)
    try:
        r.run()
    except Exception as e:  # every failure ends the run with what was seen
        print(f"FAILED: {e}", file=sys.stderr)
        try:
            r.shot("failure")
        except Exception:
            pass
        if r.server:
            r.log.flush()
            with open(os.path.join(r.work, "serve.log")) as f:
                print(f.read()[-3000:], file=sys.stderr)
        r.stop()
        return 1
    r.stop()
    print(f"browser: 1 passed, 0 failed ({time.monotonic() - r.t0:.1f}s, screenshots in {a.screenshots})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
