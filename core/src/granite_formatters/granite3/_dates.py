"""The date of the Granite 3.x default system prompt ("Today's Date: April 06, 2025")."""

from __future__ import annotations

import datetime

__all__ = ["current_date"]


def current_date() -> datetime.date:
    """Today's date in local time: the clock a formatter reads when no date is given.

    Read at every call (never cached). Tests replace this function
    (``granite_formatters.granite3._dates.current_date``) to move the clock.
    """
    return datetime.date.today()
