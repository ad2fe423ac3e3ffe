"""A live jobs table for an ``AgentScheduler`` in a notebook.

``show_scheduler(scheduler)`` displays the table once and redraws that same
output (through its display id) after every firing, so a cell that awaits
``scheduler.astart()`` shows each job's next run and last result as they change.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .._view.scheduler import scheduler_html, scheduler_text

if TYPE_CHECKING:
    from ..scheduler import AgentScheduler, JobResult

__all__ = ["SchedulerView", "show_scheduler"]


class SchedulerView:
    """One notebook output that mirrors a scheduler; ``close()`` stops the updates."""

    def __init__(self, scheduler: AgentScheduler) -> None:
        from IPython.display import display

        self.scheduler = scheduler
        self.updates = 0
        self._handle: Any = display(self._bundle(), raw=True, display_id=True)
        scheduler.listeners.append(self._on_result)

    def _bundle(self) -> dict[str, str]:
        now = self.scheduler.now()
        return {
            "text/html": scheduler_html(self.scheduler, now),
            "text/plain": scheduler_text(self.scheduler, now),
        }

    def _on_result(self, scheduler: AgentScheduler, result: JobResult) -> None:
        self.refresh()

    def refresh(self) -> None:
        """Redraw the table now (it also redraws after every firing)."""
        self.updates += 1
        self._handle.update(self._bundle(), raw=True)

    def close(self) -> None:
        if self._on_result in self.scheduler.listeners:
            self.scheduler.listeners.remove(self._on_result)

    def __repr__(self) -> str:
        return f"SchedulerView({self.updates} updates)"


def show_scheduler(scheduler: AgentScheduler) -> SchedulerView:
    """Display ``scheduler``'s jobs and keep the display current as jobs fire."""
    return SchedulerView(scheduler)
