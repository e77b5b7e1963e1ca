from django.apps import AppConfig


class ShopConfig(AppConfig):
    name = "shop_site.shop"
    default_auto_field = "django.db.models.AutoField"
