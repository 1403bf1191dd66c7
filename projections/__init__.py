"""Read models of the log: views updated exactly once, rebuildable, embedded or in a process.

``run_views`` keeps views up to date (``LogPoller``, which follows the log in its order);
``ViewsWorker`` runs it in a background thread of the service; ``open_view_store`` opens the store
the query functions of ``projections.views.*`` read; ``rebuild`` and ``view_status`` rebuild views
and report how far they have caught up. See docs/projections.md.
"""

from projections.rebuild import rebuild, view_status
from projections.runners import LogPoller, ViewsWorker, run_views
from projections.store import ViewStore, open_view_store
from projections.views import ALL_VIEWS

__all__ = [
    "ALL_VIEWS",
    "LogPoller",
    "ViewStore",
    "ViewsWorker",
    "open_view_store",
    "rebuild",
    "run_views",
    "view_status",
]
