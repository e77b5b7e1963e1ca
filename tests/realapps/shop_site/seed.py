"""Seeds the shop: a staff user with a TOTP device (the key the tests compute codes from)
and two categories. Run with the project's settings: `python -m shop_site.seed`."""

import django

django.setup()

from django.contrib.auth.models import User  # noqa: E402
from django_otp.plugins.otp_totp.models import TOTPDevice  # noqa: E402

from shop_site.shop.models import Category  # noqa: E402

USER, PASSWORD = "admin", "correct-horse-battery"
TOTP_KEY = "3132333435363738393031323334353637383930"  # RFC 6238's test key, hex

user = User.objects.create_superuser(USER, "admin@example.com", PASSWORD)
TOTPDevice.objects.create(user=user, name="default", key=TOTP_KEY, confirmed=True)
for name in ("Garden", "Kitchen"):
    Category.objects.create(name=name)
