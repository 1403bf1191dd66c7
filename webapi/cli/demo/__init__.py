"""``questlog demo``: a Quest Calendar week and a Calendar Board match played through the
application's commands on server dice, the seeds revealed, the views caught up, and the links to
go and look. ``week`` and ``match`` tell the stories, ``run`` does the rest, ``report`` prints."""

from webapi.cli.demo.player import DemoError
from webapi.cli.demo.report import print_demo
from webapi.cli.demo.run import (
    DEMO_DB,
    DemoResult,
    ResetRefused,
    demo_config,
    play_demo,
    reset_store,
)

__all__ = [
    "DEMO_DB",
    "DemoError",
    "DemoResult",
    "ResetRefused",
    "demo_config",
    "play_demo",
    "print_demo",
    "reset_store",
]
