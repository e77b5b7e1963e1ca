
from django.contrib import admin
from django.contrib.auth.forms import AuthenticationForm
from django.urls import include, path
from two_factor.admin import AdminSiteOTPRequired
from two_factor.urls import urlpatterns as two_factor_urls
from two_factor.views import LoginView

from captcha.fields import CaptchaField

admin.site.__class__ = AdminSiteOTPRequired  # the admin wants a verified (2FA) sign-in


class CaptchaAuthenticationForm(AuthenticationForm):
    captcha = CaptchaField(help_text="Type the characters in the picture.")


class CaptchaLoginView(LoginView):
    form_list = ((LoginView.AUTH_STEP, CaptchaAuthenticationForm),
                 *tuple(LoginView.form_list)[1:])


urlpatterns = [
    path("account/login/", CaptchaLoginView.as_view(), name="login"),
    path("", include(two_factor_urls)),
    path("captcha/", include("captcha.urls")),
    path("admin/", admin.site.urls),
]

