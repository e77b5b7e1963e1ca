"""Settings of the Django project the real-app tests run: Django's own admin behind
django-two-factor-auth's sign-in wizard (password + image CAPTCHA, then a TOTP code).
Only configuration lives here; every page is the real apps' own."""

import os
from pathlib import Path

BASE_DIR = Path(__file__).resolve().parent
SECRET_KEY = "cockpit-tests-only"
DEBUG = False
ALLOWED_HOSTS = ["127.0.0.1", "localhost"]
ROOT_URLCONF = "shop_site.urls"
INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "django_otp",
    "django_otp.plugins.otp_static",
    "django_otp.plugins.otp_totp",
    "two_factor",
    "captcha",
    "shop_site.shop",
]
MIDDLEWARE = [
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django_otp.middleware.OTPMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
]
TEMPLATES = [{
    "BACKEND": "django.template.backends.django.DjangoTemplates",
    "DIRS": [], "APP_DIRS": True,
    "OPTIONS": {"context_processors": [
        "django.template.context_processors.request",
        "django.contrib.auth.context_processors.auth",
        "django.contrib.messages.context_processors.messages",
    ]},
}]
DATABASES = {"default": {"ENGINE": "django.db.backends.sqlite3",
                         "NAME": os.environ.get("SHOP_DB", str(BASE_DIR / "db.sqlite3"))}}
STATIC_URL = "/static/"
LOGIN_URL = "two_factor:login"
LOGIN_REDIRECT_URL = "/admin/"
USE_TZ = True
# The CAPTCHA is a real picture with a real answer: a test playing the human reads the
# answer from the captcha app's own table (tests/realapps/apps.py).
DEFAULT_AUTO_FIELD = "django.db.models.AutoField"
