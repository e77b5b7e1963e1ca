"""Every command module registers its commands with the registry on import."""

from . import (  # noqa: F401  (imported for their registrations)
    control,
    emulation,
    inspect,
    interact,
    meta,
    network,
    navigate,
    read,
    state,
    tabs,
    visual,
    wait,
)
