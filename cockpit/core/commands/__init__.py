"""Every command module registers its commands with the registry on import."""

from . import (  # noqa: F401  (imported for their registrations)
    capture,
    control,
    emulation,
    expect,
    inspect,
    interact,
    meta,
    mouse,
    network,
    navigate,
    policy,
    read,
    state,
    tabs,
    visual,
    wait,
)
