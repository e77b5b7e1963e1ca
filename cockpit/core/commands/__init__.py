"""Every command module registers its commands with the registry on import."""

from . import (  # noqa: F401  (imported for their registrations)
    control,
    expect,
    inspect,
    interact,
    meta,
    mouse,
    navigate,
    policy,
    read,
    state,
    tabs,
    visual,
    wait,
)
