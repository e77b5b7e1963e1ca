"""Start the real third-party apps the end-to-end tests drive, each on 127.0.0.1.

The apps come from the registries (requirements.txt), installed into a venv of their own
by `.ci/realapps` (cached outside the checkout). Only their configuration is ours: the
Django project's settings and models (shop_site/), a notebook file, a Streamlit script,
a Gradio script. Nothing here imitates an app; every page a test sees is the app's own.
"""

from __future__ import annotations

import hashlib
import hmac
import os
import socket
import sqlite3
import struct
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent


def venv() -> Path:
    """The real apps' venv, installed (once, then cached) by .ci/realapps."""
    found = os.environ.get("COCKPIT_REALAPPS_VENV")
    if found:
        return Path(found)
    done = subprocess.run(["bash", str(ROOT / ".ci" / "realapps")], capture_output=True,
                          text=True, check=False)
    if done.returncode != 0:
        raise RuntimeError(f".ci/realapps failed:\n{done.stderr[-2000:]}")
    path = done.stdout.strip().splitlines()[-1]
    os.environ["COCKPIT_REALAPPS_VENV"] = path  # once per test run
    return Path(path)


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def wait_http(url: str, process: subprocess.Popen[bytes], log: Path, timeout: float = 90) -> None:
    """Until the app answers HTTP at URL (any status), or fail with the app's own log."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"{url}: the app exited ({process.returncode}):\n"
                               f"{log.read_text(errors='replace')[-3000:]}")
        try:
            urllib.request.urlopen(url, timeout=2).close()  # loopback only
            return
        except urllib.error.HTTPError:
            return  # it answered
        except OSError:
            time.sleep(0.2)
    process.kill()
    raise RuntimeError(f"{url} did not answer in {timeout:.0f} s:\n"
                       f"{log.read_text(errors='replace')[-3000:]}")


@contextmanager
def running(argv: list[str], url: str, cwd: Path, env: dict[str, str]) -> Iterator[None]:
    log = cwd / "app.log"
    with log.open("wb") as out:
        process = subprocess.Popen(argv, cwd=cwd, env={**os.environ, **env}, stdout=out,
                                   stderr=subprocess.STDOUT, start_new_session=True)
    try:
        wait_http(url, process, log)
        yield
    finally:
        process.terminate()
        try:
            process.wait(10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(5)


# --- the Django admin: two-step sign-in, image CAPTCHA, CRUD with popups ---------------
USER, PASSWORD = "admin", "correct-horse-battery"
TOTP_KEY = bytes.fromhex("3132333435363738393031323334353637383930")


@dataclass
class Shop:
    """The running Django admin (Django + django-two-factor-auth + django-simple-captcha)."""
    url: str
    db: Path
    log: Path  # runserver's: one line per request, as it ends
    user: str = USER
    password: str = PASSWORD

    def captcha_answer(self, hashkey: str) -> str:
        """What the CAPTCHA picture with this key says (from the captcha app's own table):
        the test plays the person who reads the picture."""
        with sqlite3.connect(self.db) as db:
            row = db.execute("SELECT response FROM captcha_captchastore WHERE hashkey = ?",
                             (hashkey,)).fetchone()
        if row is None:
            raise KeyError(f"no CAPTCHA {hashkey!r}")
        return str(row[0])

    def totp(self) -> str:
        """A one-time code the server takes now, found from its own state of the device
        (as the person's authenticator app is in step with it): django-otp accepts the time
        steps around now shifted by the device's drift, only one later than the last code
        it took, and moves the drift to each code it takes. So any number of sign-ins a
        minute, no waiting, and a code handed out but never typed costs nothing."""
        with sqlite3.connect(self.db) as db:
            last_t, drift = db.execute("SELECT last_t, drift FROM otp_totp_totpdevice "
                                       "WHERE name = 'default'").fetchone()
        # the window's middle: still inside it if the clock turns a step before it is sent
        step = max(int(last_t) + 1, int(time.time()) // 30 + int(drift))
        digest = hmac.new(TOTP_KEY, struct.pack(">Q", step), hashlib.sha1).digest()
        offset = digest[-1] & 0x0F
        code = (struct.unpack(">I", digest[offset:offset + 4])[0] & 0x7FFFFFFF) % 1_000_000
        return f"{code:06d}"


@contextmanager
def shop() -> Iterator[Shop]:
    python = str(venv() / "bin" / "python")
    with tempfile.TemporaryDirectory(prefix="cockpit-shop-") as tmp:
        work = Path(tmp)
        env = {"PYTHONPATH": str(HERE), "DJANGO_SETTINGS_MODULE": "shop_site.settings",
               "SHOP_DB": str(work / "db.sqlite3"), "PYTHONDONTWRITEBYTECODE": "1"}
        # migrate and seed in one process: Django's start-up is seconds on a busy machine
        subprocess.run([python, "-c", "import django; django.setup(); from django.core."
                        "management import call_command; call_command('migrate', verbosity=0);"
                        " import shop_site.seed"], cwd=work, env={**os.environ, **env},
                       check=True, capture_output=True)
        port = free_port()
        url = f"http://127.0.0.1:{port}"
        argv = [python, "-m", "django", "runserver", f"127.0.0.1:{port}", "--noreload",
                "--insecure"]  # --insecure: runserver serves the admin's static files
        with running(argv, url + "/account/login/", work, env):
            yield Shop(url, work / "db.sqlite3", work / "app.log")


# --- a marimo notebook: a single-page app over a websocket ------------------------------
NOTEBOOK = '''import marimo

app = marimo.App()


@app.cell
def _():
    import marimo as mo
    return (mo,)


@app.cell
def _():
    total = sum(range(10))
    total
    return (total,)


@app.cell
def _(mo):
    size = mo.ui.slider(1, 10, value=3, label="Size")
    size
    return (size,)


@app.cell
def _(size):
    "*" * size.value
    return


if __name__ == "__main__":
    app.run()
'''


@contextmanager
def notebook() -> Iterator[str]:
    """`marimo edit` on a small notebook; yields the editor's URL."""
    marimo = str(venv() / "bin" / "marimo")
    with tempfile.TemporaryDirectory(prefix="cockpit-marimo-") as tmp:
        work = Path(tmp)
        (work / "notebook.py").write_text(NOTEBOOK)
        port = free_port()
        url = f"http://127.0.0.1:{port}"
        env = {"XDG_CONFIG_HOME": str(work / "config"), "HOME": str(work),
               "MARIMO_SKIP_UPDATE_CHECK": "1"}
        argv = [marimo, "-q", "edit", "notebook.py", "--headless", "--no-token",
                "--port", str(port), "--skip-update-check", "--no-sandbox"]
        with running(argv, url, work, env):
            yield url


# --- a Streamlit app: a websocket data app with BaseWeb widgets ----------------------
STREAMLIT_APP = '''import streamlit as st

st.set_page_config(page_title="Plant orders")  # the app names its tab as it renders
st.title("Plant orders")
category = st.selectbox("Category", ["Garden", "Kitchen", "Tools"])
quantity = st.slider("Quantity", 1, 20, 2)
note = st.text_input("Note", placeholder="Anything we should know")
urgent = st.checkbox("Urgent")
if st.button("Place order"):
    st.success(f"Ordered {quantity} x {category}" + (" (urgent)" if urgent else ""))
st.write(f"Current: {quantity} x {category}")
'''


@contextmanager
def data_app() -> Iterator[str]:
    """`streamlit run` on a small app; yields its URL."""
    streamlit = str(venv() / "bin" / "streamlit")
    with tempfile.TemporaryDirectory(prefix="cockpit-streamlit-") as tmp:
        work = Path(tmp)
        (work / "app.py").write_text(STREAMLIT_APP)
        port = free_port()
        url = f"http://127.0.0.1:{port}"
        env = {"HOME": str(work), "STREAMLIT_BROWSER_GATHER_USAGE_STATS": "false"}
        argv = [streamlit, "run", "app.py", "--server.headless", "true",
                "--server.port", str(port), "--server.address", "127.0.0.1",
                "--server.fileWatcherType", "none", "--browser.gatherUsageStats", "false"]
        with running(argv, url + "/_stcore/health", work, env):
            yield url


# --- Datasette: a data explorer, its SQL editor a CodeMirror 5 -----------------------
@contextmanager
def explorer() -> Iterator[str]:
    """`datasette` on a small SQLite database of products; yields its URL."""
    datasette = str(venv() / "bin" / "datasette")
    with tempfile.TemporaryDirectory(prefix="cockpit-datasette-") as tmp:
        work = Path(tmp)
        with sqlite3.connect(work / "shop.db") as db:
            db.execute("CREATE TABLE products (id INTEGER PRIMARY KEY, name TEXT, "
                       "category TEXT, price REAL)")
            db.executemany("INSERT INTO products (name, category, price) VALUES (?, ?, ?)",
                           [(f"Item {i}", ("Garden", "Kitchen", "Tools")[i % 3], i * 1.5)
                            for i in range(1, 31)])
        db.close()
        port = free_port()
        url = f"http://127.0.0.1:{port}"
        argv = [datasette, "serve", "shop.db", "--host", "127.0.0.1", "--port", str(port),
                "--setting", "sql_time_limit_ms", "5000"]
        with running(argv, url, work, {"HOME": str(work)}):
            yield url


# --- Gradio: a model's demo page, a Svelte app of modules, its queue over SSE ---------
GRADIO_APP = '''import time

import gradio as gr


def greet(name, greeting, shout):
    time.sleep(0.2)  # a model's work
    if not name:
        raise gr.Error("Please type a name first")
    text = f"{greeting}, {name}!"
    return text.upper() if shout else text


with gr.Blocks(title="Greeter") as demo:
    name = gr.Textbox(label="Name", placeholder="Your name")
    greeting = gr.Dropdown(["Hello", "Hi", "Good morning"], value="Hello", label="Greeting")
    shout = gr.Checkbox(label="Shout")
    button = gr.Button("Greet", variant="primary")
    result = gr.Textbox(label="Result")
    button.click(greet, [name, greeting, shout], result)

demo.launch(server_name="127.0.0.1", server_port=int(__import__("sys").argv[1]))
'''


@contextmanager
def model_demo() -> Iterator[str]:
    """A Gradio app (`python app.py PORT`); yields its URL."""
    with tempfile.TemporaryDirectory(prefix="cockpit-gradio-") as tmp:
        work = Path(tmp)
        (work / "app.py").write_text(GRADIO_APP)
        port = free_port()
        url = f"http://127.0.0.1:{port}"
        env = {"HOME": str(work), "GRADIO_ANALYTICS_ENABLED": "False",
               "HF_HUB_OFFLINE": "1", "NO_PROXY": "127.0.0.1,localhost"}
        with running([str(venv() / "bin" / "python"), "app.py", str(port)], url, work, env):
            yield url


if __name__ == "__main__":  # `python tests/realapps/apps.py shop|notebook|data|explorer|demo`
    import signal

    # The app runs in a session of its own: a SIGTERM here (`timeout`, a kill) must still
    # reach `running()`'s clean-up, or the app outlives this process.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    which = sys.argv[1] if len(sys.argv) > 1 else "shop"
    starter = {"shop": shop, "notebook": notebook, "data": data_app, "explorer": explorer,
               "demo": model_demo}[which]
    with starter() as started:
        print(getattr(started, "url", started), flush=True)
        try:
            while True:
                time.sleep(3600)
        except KeyboardInterrupt:
            pass
